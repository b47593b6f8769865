/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook engine: traces attached at run time through _control, each
 * timing a function (kretprobe or fprobe) or a section between two probes
 * (kprobe pair or tracepoint pair) into a node NAME and a node GAP-NAME.
 */
#ifndef _KSTATS_HOOK_H
#define _KSTATS_HOOK_H

#include <linux/kallsyms.h>
#include <linux/types.h>

struct seq_file;

/* A trace's name leaves room for "GAP-" in front of it. */
#define KS_GAP_PREFIX		"GAP-"
#define KS_TRACE_NAME_MAX	(KSTATS_NAME_MAX - (sizeof(KS_GAP_PREFIX) - 1))
#define KS_TP_PREFIX		"__tracepoint_"
#define KS_MAXACTIVE_MAX	4096
/* The default maxactive is 2 per possible CPU, in 64..this. */
#define KS_MAXACTIVE_DEFAULT_MAX	1024
#define KS_DEFAULT_BITS		3

enum ks_method {
	KS_METHOD_DEFAULT,	/* fprobe where possible, else kretprobe */
	KS_METHOD_KRETPROBE,
	KS_METHOD_FPROBE,
	KS_METHOD_KPROBE,	/* a pair of entry probes: start and end */
	KS_METHOD_TRACEPOINT,	/* a pair of tracepoints */
};

enum ks_control_op {
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
	char start[KSYM_NAME_LEN];
	char end[KSYM_NAME_LEN];	/* empty: time the function start */
};

int ks_parse_control(char *line, struct ks_trace_req *req, const char **why);
const char *ks_method_name(enum ks_method method);

int ks_hook_init(void);
void ks_hook_exit(void);
int ks_trace_add(const struct ks_trace_req *req);
int ks_trace_remove(const char *name);
void ks_trace_list(struct seq_file *m);

#endif /* _KSTATS_HOOK_H */
