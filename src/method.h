/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The methods a trace attaches with, one file each, as a table the trace
 * registry (traces.c) calls through. A new trace kind is one new file,
 * its ops here and its entry in ks_methods[] (traces.c).
 */
#ifndef _KSTATS_METHOD_H
#define _KSTATS_METHOD_H

#include <linux/types.h>

#include "request.h"
#include "trace.h"

struct ks_anchor;
struct seq_file;
struct tracepoint;

/**
 * struct ks_method_ops - what a method does for the trace registry
 * @method: what the listing says it attached with
 * @priv_size: bytes of its own at the end of each trace, zeroed
 * @part_prefix: optional: nodes PREFIXNAME that the registry makes for
 *               parts of each sample (t->part[]), beside NAME and GAP-NAME
 * @starts: its sections keep their starts in a start table (t->starts)
 * @starts_default: optional: the maxactive (start-table size) of a line
 *                  that gives none, instead of the registry's default
 * @maxactive_unused: it keeps no instances: maxactive does not apply
 * @claims: whether it attaches what @req asks for: the registry takes the
 *          first method of ks_methods[] that does. Pure function of @req.
 * @resolve: finds what @t hooks into, attaching nothing; says why in
 *           dmesg on failure. Before the trace's nodes exist.
 * @attach: attaches @t; on failure nothing is attached and dmesg says
 *          why. May hand @t to another method (t->ops), as fprobe to
 *          kretprobe for a line that names no method.
 * @detach: after it returns 0 no handler of @t runs or will run; on
 *          failure its handlers may still be called, and @t is kept.
 * @missed: optional: samples the kernel's probes lost (not fired, no
 *          instance free). Called for the trace's nodes from before
 *          @attach on. Tracepoints lose none of their own.
 * @bytes: optional: what the kernel holds for the probes of @t (instance
 *         pools, probe structures), besides the trace itself
 * @module_going: optional: a module that @t probes is going away
 * @free: optional: frees what @attach allocated, attached or not
 * @list: optional: what the trace's line of the _control listing adds,
 *        as " keyword value" pairs
 *
 * All but @claims and @missed are called under the registry's lock or
 * before the trace is on its list: one at a time for a trace.
 */
struct ks_method_ops {
	enum ks_method method;
	size_t priv_size;
	const char *part_prefix[KS_PARTS_MAX];
	bool starts;
	unsigned int starts_default;
	bool maxactive_unused;
	bool (*claims)(const struct ks_trace_req *req);
	int (*resolve)(struct ks_trace *t);
	int (*attach)(struct ks_trace *t);
	int (*detach)(struct ks_trace *t);
	unsigned long (*missed)(struct ks_trace *t);
	size_t (*bytes)(const struct ks_trace *t);
	void (*module_going)(struct ks_trace *t);
	void (*free)(struct ks_trace *t);
	void (*list)(struct seq_file *m, const struct ks_trace *t);
};

extern const struct ks_method_ops ks_kretprobe_ops;	/* function.c */
extern const struct ks_method_ops ks_fprobe_ops;	/* function.c */
extern const struct ks_method_ops ks_kprobe_pair_ops;	/* kprobe_pair.c */
extern const struct ks_method_ops ks_tracepoint_pair_ops; /* tracepoint_pair.c */
extern const struct ks_method_ops ks_runq_ops;		/* runq.c */
extern const struct ks_method_ops ks_offcpu_ops;	/* offcpu.c */
extern const struct ks_method_ops ks_matched_kprobe_ops; /* matched.c */
extern const struct ks_method_ops ks_matched_tp_ops;	/* matched.c */

/* Tracepoint probes of a pair, for tracepoint_pair.c and runq.c. */
struct ks_tp_probe {
	struct tracepoint *tp;
	void *fn;
};

int ks_tp_pair_resolve(struct ks_trace *t, struct tracepoint **start,
		       struct tracepoint **end);
void ks_section_expire(struct ks_trace *t);
void ks_section_list(struct seq_file *m, const struct ks_trace *t);
void ks_anchor_tracepoint(struct ks_anchor *a, struct tracepoint *tp);
int ks_tp_probes_register(struct ks_trace *t, const struct ks_tp_probe *p,
			  unsigned int n);
void ks_tp_probes_unregister(struct ks_trace *t, const struct ks_tp_probe *p,
			     unsigned int n);

#endif /* _KSTATS_METHOD_H */
