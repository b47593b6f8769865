/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vocabulary of traces: what a _control line asks for, as the parser
 * (control.c) writes it, the name resolver (names.c) completes it and the
 * trace registry (traces.c) attaches it. Types, limits and node prefixes.
 */
#ifndef _KSTATS_REQUEST_H
#define _KSTATS_REQUEST_H

#include <linux/kallsyms.h>
#include <linux/kstats.h>
#include <linux/ratelimit.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "keys.h"

/* A trace's name leaves room for "GAP-" in front of it. */
#define KS_GAP_PREFIX		"GAP-"
/* KEY-NAME: keyed rows and slowest samples; as long as GAP-. */
#define KS_KEY_PREFIX		"KEY-"
/* An off-CPU trace's halves: switch-out to wakeup, wakeup to switch-in. */
#define KS_BLOCKED_PREFIX	"BLOCKED-"
#define KS_RUNQ_PREFIX		"RUNQ-"
#define KS_OFFCPU_NAME_MAX	(KSTATS_NAME_MAX - (sizeof(KS_BLOCKED_PREFIX) - 1))
#define KS_TRACE_NAME_MAX	(KSTATS_NAME_MAX - (sizeof(KS_GAP_PREFIX) - 1))
#define KS_TP_PREFIX		"__tracepoint_"
#define KS_MAXACTIVE_MAX	4096
/* The default maxactive is 2 per possible CPU, in 64..this. */
#define KS_MAXACTIVE_DEFAULT_MAX	1024
#define KS_DEFAULT_BITS		3
/* Longest tracepoint group (TRACE_SYSTEM) kstats checks. */
#define KS_GROUP_MAX		32

enum ks_method {
	KS_METHOD_DEFAULT,	/* fprobe where possible, else kretprobe */
	KS_METHOD_KRETPROBE,
	KS_METHOD_FPROBE,
	KS_METHOD_KPROBE,	/* a pair of entry probes: start and end */
	KS_METHOD_TRACEPOINT,	/* a pair of tracepoints */
	KS_METHOD_NR,
};

/* As _control and the listings spell them: ks_method_names[method]. */
extern const char *const ks_method_names[KS_METHOD_NR];

/* How a start or end word names its probe point. */
enum ks_point_kind {
	KS_POINT_ANY,		/* a bare name or GROUP:EVENT: resolved in names.c */
	KS_POINT_FUNCTION,	/* kprobe:F, kretprobe:F, fentry:F, kfunc:F */
	KS_POINT_TRACEPOINT,	/* tracepoint:[GROUP:]EVENT, __tracepoint_EVENT */
	KS_POINT_SYSCALL,	/* syscall:NAME: the arch's syscall entry */
};

enum ks_control_op {
	KS_OP_NONE,		/* not read yet */
	KS_OP_TRACE,
	KS_OP_REMOVE,
	/* The commands a node takes, as "start NAME" ...: lockdown refuses node writes. */
	KS_OP_START,
	KS_OP_STOP,
	KS_OP_RESET,
};

/* Which switch-outs start an off-CPU wait: "state any|all|S|D". */
enum ks_offcpu_state {
	KS_STATE_ANY,		/* any state that leaves the run queue */
	KS_STATE_ALL,		/* every switch-out, preempted too (bcc's) */
	KS_STATE_S,		/* TASK_INTERRUPTIBLE */
	KS_STATE_D,		/* TASK_UNINTERRUPTIBLE, not TASK_IDLE (ps's D) */
	KS_STATE_NR,
};

/* Whose waits: "tasks all|user|kernel" (bcc's -u and -k). */
enum ks_offcpu_tasks {
	KS_TASKS_ALL,
	KS_TASKS_USER,		/* not PF_KTHREAD */
	KS_TASKS_KERNEL,	/* PF_KTHREAD */
	KS_TASKS_NR,
};

/* As _control and the listing spell them. */
extern const char *const ks_offcpu_state_names[KS_STATE_NR];
extern const char *const ks_offcpu_tasks_names[KS_TASKS_NR];

/* "trace NAME offcpu [state S] [min NS] [max NS] [tasks T]". */
struct ks_offcpu_req {
	bool on;
	u8 state;		/* enum ks_offcpu_state */
	u8 tasks;		/* enum ks_offcpu_tasks */
	u64 min_ns;		/* a wait shorter is no sample */
	u64 max_ns;		/* a wait longer is no sample; 0: no bound */
};

/*
 * "match argI[,argJ]": a section pairs its start and end on an argument
 * of each (an object: a request, a lock, a work item), not on the task.
 * Arguments 0..KS_MATCH_ARG_MAX, in registers (see matched.c).
 */
#define KS_MATCH_ARG_MAX	(KS_ARGS - 1)
/* "expire NS": a matched start older than this is dropped and counted. */
#define KS_EXPIRE_DEFAULT_NS	(10ULL * NSEC_PER_SEC)

struct ks_match_req {
	bool on;
	u8 start_arg;		/* the start point's argument, from 0 */
	u8 end_arg;		/* the end point's */
	u64 expire_ns;		/* 0 until parsed: KS_EXPIRE_DEFAULT_NS */
	bool keep;		/* repeat keep: an object's second start is dropped */
	bool repeat_given;
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
	/* What the words said, before names.c resolved them. */
	enum ks_point_kind start_kind;
	enum ks_point_kind end_kind;
	char start_group[KS_GROUP_MAX];
	char end_group[KS_GROUP_MAX];
	char start_word[KSYM_NAME_LEN];	/* as written, for messages */
	char end_word[KSYM_NAME_LEN];
	struct ks_key_spec keys;	/* key, keys, slowest */
	struct ks_filter filter;	/* pid, tgid, comm, cpu */
	struct ks_offcpu_req offcpu;	/* the offcpu word and its keywords */
	struct ks_match_req match;	/* match and expire */
	bool reads_args;	/* if argN or key argN: a start reads its arguments */
	/* Fields through pointers, read at the start (ks_fields_read()). */
	u8 n_fields;
	struct ks_field field[KS_FIELDS_MAX];
	bool reads_ret;		/* if ret or key ret: a return reads its value */
	bool gap_off;		/* gap off: no GAP-NAME, and its cost not paid */
	bool resolved;			/* by ks_resolve_points() */
	char why[512];			/* the parser's reason for a refusal */
};

/* @dst = "__tracepoint_EVENT"; false if that is KSYM_NAME_LEN or longer. */
bool ks_tp_symbol(char *dst, const char *event);

/* Refusals go to dmesg rate-limited: _control may be written in a loop. */
extern struct ratelimit_state ks_refusal_rs;
#define ks_err_ratelimited(fmt, ...)						\
	do {								\
		if (__ratelimit(&ks_refusal_rs))			\
			pr_err(fmt, ##__VA_ARGS__);			\
	} while (0)

#endif /* _KSTATS_REQUEST_H */
