/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook engine: traces attached at run time through _control, each
 * timing a function (kretprobe or fprobe) or a section between two probes
 * (kprobe pair or tracepoint pair) into a node NAME and a node GAP-NAME.
 */
#ifndef _KSTATS_HOOK_H
#define _KSTATS_HOOK_H

#include <linux/kallsyms.h>
#include <linux/kstats.h>
#include <linux/ratelimit.h>
#include <linux/string.h>
#include <linux/types.h>

#include "keys.h"

struct seq_file;

/* A trace's name leaves room for "GAP-" in front of it. */
#define KS_GAP_PREFIX		"GAP-"
/* KEY-NAME: keyed rows and slowest samples; as long as GAP-. */
#define KS_KEY_PREFIX		"KEY-"
#define KS_TRACE_NAME_MAX	(KSTATS_NAME_MAX - (sizeof(KS_GAP_PREFIX) - 1))
#define KS_TP_PREFIX		"__tracepoint_"
#define KS_MAXACTIVE_MAX	4096
/* The default maxactive is 2 per possible CPU, in 64..this. */
#define KS_MAXACTIVE_DEFAULT_MAX	1024
#define KS_DEFAULT_BITS		3

/* @dst = "__tracepoint_EVENT"; false if that is KSYM_NAME_LEN or longer. */
static inline bool ks_tp_symbol(char *dst, const char *event)
{
	size_t prefix = strlen(KS_TP_PREFIX), len = strlen(event);

	if (prefix + len >= KSYM_NAME_LEN)
		return false;
	memcpy(dst, KS_TP_PREFIX, prefix);
	memcpy(dst + prefix, event, len + 1);
	return true;
}

enum ks_method {
	KS_METHOD_DEFAULT,	/* fprobe where possible, else kretprobe */
	KS_METHOD_KRETPROBE,
	KS_METHOD_FPROBE,
	KS_METHOD_KPROBE,	/* a pair of entry probes: start and end */
	KS_METHOD_TRACEPOINT,	/* a pair of tracepoints */
};

/* How a start or end word names its probe point. */
enum ks_point_kind {
	KS_POINT_ANY,		/* a bare name or GROUP:EVENT: resolved in hook.c */
	KS_POINT_FUNCTION,	/* kprobe:F, kretprobe:F, fentry:F, kfunc:F */
	KS_POINT_TRACEPOINT,	/* tracepoint:[GROUP:]EVENT, __tracepoint_EVENT */
	KS_POINT_SYSCALL,	/* syscall:NAME: the arch's syscall entry */
};

/* Longest tracepoint group (TRACE_SYSTEM) kstats checks. */
#define KS_GROUP_MAX		32

enum ks_control_op {
	KS_OP_NONE,		/* not read yet */
	KS_OP_TRACE,
	KS_OP_REMOVE,
};

/* One parsed _control command. */
struct ks_trace_req {
	enum ks_control_op op;
	enum ks_method method;
	u8 bits;
	unsigned int maxactive;	/* 0: the default */
	char name[KSTATS_NAME_MAX + 1];
	enum ks_method given_method;	/* as written: method M or a prefix */
	char start[KSYM_NAME_LEN];
	char end[KSYM_NAME_LEN];	/* empty: time the function start */
	/* What the words said, before hook.c resolved them. */
	enum ks_point_kind start_kind;
	enum ks_point_kind end_kind;
	char start_group[KS_GROUP_MAX];
	char end_group[KS_GROUP_MAX];
	char start_word[KSYM_NAME_LEN];	/* as written, for messages */
	char end_word[KSYM_NAME_LEN];
	struct ks_key_spec keys;	/* key, keys, slowest */
	struct ks_filter filter;	/* pid, tgid, comm, cpu */
	bool resolved;			/* by ks_resolve_points() */
	char why[160];			/* the parser's reason for a refusal */
};

/* Refusals go to dmesg rate-limited: _control may be written in a loop. */
extern struct ratelimit_state ks_refusal_rs;
#define ks_err_ratelimited(fmt, ...)						\
	do {								\
		if (__ratelimit(&ks_refusal_rs))			\
			pr_err(fmt, ##__VA_ARGS__);			\
	} while (0)

int ks_parse_control(char *line, struct ks_trace_req *req, const char **why);
int ks_check_trace(struct ks_trace_req *req, const char **why);
const char *ks_method_name(enum ks_method method);

int ks_hook_init(void);
void ks_hook_exit(void);
int ks_trace_add(const struct ks_trace_req *req);
int ks_trace_remove(const char *name);
void ks_trace_list(struct seq_file *m);

#endif /* _KSTATS_HOOK_H */
