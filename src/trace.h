/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace: what the trace registry (traces.c), its method (method.h) and
 * the hot path (hotpath.c) share. A method keeps its own state, of
 * ops->priv_size bytes, at the end of each trace: ks_trace_priv().
 */
#ifndef _KSTATS_TRACE_H
#define _KSTATS_TRACE_H

#include <linux/atomic.h>
#include <linux/container_of.h>
#include <linux/list.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

#include "keys.h"
#include "patterns.h"
#include "request.h"

struct dentry;
struct kstats;
struct ks_method_ops;
struct ks_starts;

/* Nodes a method may add for the parts of each sample. */
#define KS_PARTS_MAX	2

struct ks_trace {
	struct list_head list;	/* on ks_traces: RCU, writers under ks_trace_lock */
	struct ks_trace_req req;	/* as written, with defaults applied */
	const struct ks_method_ops *ops;	/* how it attaches */
	struct ks_funcs funcs;	/* the function(s) timed, for functions */
	unsigned long addr;	/* where the start probe sits, for "gone" */
	unsigned long end_addr;
	bool gone;		/* its module was unloaded */
	struct kstats *dur;
	struct kstats *gap;
	/* Each sample's parts, as the method names them (ops->part_prefix). */
	struct kstats *part[KS_PARTS_MAX];
	struct ks_keys *keys;	/* keyed rows and slowest samples, or NULL */
	struct dentry *key_node;	/* KEY-NAME */
	/* Where the probe's own frames end in a stack: start, end, new task. */
	struct ks_anchor anchor[3];
	u64 __percpu *last_end;	/* per CPU: end of the last call, 0: none */
	struct ks_starts *starts;	/* sections: ops->starts */
	/* Lost samples, by cause; ks_trace_missed() adds up the right ones. */
	atomic_long_t no_start;		/* an end found no start */
	atomic_long_t table_full;	/* a start found no room */
	atomic_long_t nested_start;	/* a start hit inside a kstats handler */
	atomic_long_t nested_end;	/* an end hit inside a kstats handler */
	atomic_long_t too_deep;		/* a start inside KS_STARTS_DEPTH open ones */
	atomic_long_t negative;		/* an end before its start */
	atomic_long_t expired;		/* a matched start older than expire */
	atomic_long_t replaced;		/* a matched start replaced by another */
	atomic_long_t fault;		/* a start's field read faulted */
	/*
	 * The kernel's probe count pauses while NAME is stopped, as
	 * kstats' own counts do: its value at the stop, and what it grew
	 * by while stopped (ks_probe_missed()); under probe_lock.
	 */
	spinlock_t probe_lock;
	bool probe_stopped;
	unsigned long probe_at_stop;
	unsigned long probe_paused;
	/* The method's own state, zeroed: see ks_trace_priv(). */
	unsigned long priv[];
};

/* The method's own state at the end of @t. */
static inline void *ks_trace_priv(const struct ks_trace *t)
{
	return (void *)t->priv;
}

/* The trace whose method state is @priv: ks_trace_priv() undone. */
static inline struct ks_trace *ks_trace_of(void *priv)
{
	return container_of(priv, struct ks_trace, priv);
}

#endif /* _KSTATS_TRACE_H */
