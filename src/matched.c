// SPDX-License-Identifier: GPL-2.0
/*
 * Sections matched by an object: "trace NAME start P end Q match argI[,argJ]"
 * times from P to the Q that passes the same value (a request, a lock, a
 * work item) as argument J that P passed as argument I, in whatever task,
 * CPU or context each runs: biolatency's block_rq_issue to
 * block_rq_complete on the request, a lock's hold from its lock call to
 * its release.
 *
 * Arguments are read from the registers they are passed in (compat.h,
 * KS_MATCH_SOUND): at a kprobe on a function's entry through
 * regs_get_kernel_argument(); in a tracepoint probe, the tracepoint's own
 * arguments (its TP_PROTO's, as bpftrace's rawtracepoint: args) follow
 * @data, and the probe takes the first KS_MATCH_ARG_MAX + 1 of them as
 * unsigned longs. A tracepoint with fewer arguments leaves the rest
 * unset: kstats cannot see a tracepoint's prototype, so it cannot refuse
 * them; such a value only pairs nothing.
 *
 * The start table is keyed on the value: one start per object. A start
 * for an object that has one replaces it, or with "repeat keep" is
 * dropped (either way counted "replaced"); a start
 * older than the trace's expire is dropped when met (counted "expired"),
 * and gives way to a new start that finds no room.
 */
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>

#include "hotpath.h"
#include "method.h"
#include "names.h"
#include "starts.h"

/* A matched pair's probes: kprobes or tracepoint probes. */
struct ks_matched {
	union {
		struct kprobe kp[2];		/* start, end */
		struct ks_tp_probe probe[2];
	};
};

static struct ks_matched *ks_matched(const struct ks_trace *t)
{
	return ks_trace_priv(t);
}

/*
 * The start table's key for @value. Keys 0..2 are the table's own marks
 * (starts.c), so those values borrow bit 63: 0, 1, 2 and 2^63 + 0..2
 * share a key (no object's address is either).
 */
static __always_inline const void *ks_match_key(unsigned long value)
{
	return (const void *)(value > 2 ? value : value | BIT(BITS_PER_LONG - 1));
}

/*
 * Drops the starts of @key's window older than the trace's expire,
 * whoever's they are, and counts them (expired). Returns how many.
 */
static unsigned int notrace ks_matched_expire_old(struct ks_trace *t,
						  const void *key, u64 now)
{
	/* Saturating: expire may exceed the time since boot. */
	u64 before = now > t->req.match.expire_ns ?
		     now - t->req.match.expire_ns : 0;
	unsigned int old = ks_starts_expire(t->starts, key, before);

	if (old && READ_ONCE(t->dur->active))
		atomic_long_add(old, &t->expired);
	return old;
}

/*
 * A start on the object @value, at context level @level (as
 * interrupt_context_level(): ks_kprobe_level() at a kprobe, whose int3
 * handler runs in NMI context on x86); @raw is what key argN reads, @ret
 * the start function's return address (see ks_anchor) or 0.
 */
static void notrace ks_matched_start(struct ks_trace *t, unsigned int level,
				     unsigned long value, unsigned long raw,
				     unsigned long ret)
{
	const void *key = ks_match_key(value);
	struct ks_tag tag = { .raw = raw };
	unsigned int dropped;
	u8 *busy;
	u64 now;

	/*
	 * Filters are on the start: the end may be in any task. A start in
	 * an interrupt is no task's, whatever it interrupted.
	 */
	if (!ks_filter_cpu(&t->req.filter) ||
	    ((t->req.filter.has & ~KS_FILTER_CPU) &&
	     (level || !ks_filter_task(&t->req.filter, current))))
		return;
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_start);
		return;
	}
	tag.stack = ks_stack(t, KS_KEY_KSTACK, &t->anchor[0], ret, level);
	now = ks_now();
	/*
	 * A repeated start: the older one goes (repeat replace), or this
	 * one (repeat keep: a lock's second caller waits for its holder,
	 * whose release must pair with the holder's start). Two starts of
	 * one object at once on two CPUs may both stay; an end takes one.
	 */
	if (t->req.match.keep && ks_starts_holds(t->starts, key)) {
		/*
		 * A kept start older than expire gives way to this one: its
		 * end is not coming, and keeping it would lose this section.
		 */
		ks_matched_expire_old(t, key, now);
		if (ks_starts_holds(t->starts, key)) {
			ks_lost(t, &t->replaced);
			goto out;
		}
	} else if (!t->req.match.keep) {
		/* Racing starts may have left two: each is a section lost. */
		dropped = ks_starts_drop(t->starts, key);
		if (dropped && READ_ONCE(t->dur->active))
			atomic_long_add(dropped, &t->replaced);
	}
	if (ks_starts_push(t->starts, key, now, &tag)) {
		/* No room: starts too old to be waited for give way. */
		if (!ks_matched_expire_old(t, key, now) ||
		    ks_starts_push(t->starts, key, now, &tag))
			ks_lost(t, &t->table_full);
	}
out:
	ks_leave(busy);
}

static void notrace ks_matched_end(struct ks_trace *t, unsigned long value,
				   unsigned long ret)
{
	struct ks_tag tag;
	u64 now, start;
	u8 *busy;

	busy = ks_enter();
	if (!busy) {
		/*
		 * The section is lost here, once: its start goes too, or it
		 * would be counted again when replaced or expired.
		 */
		if (ks_starts_take(t->starts, ks_match_key(value), &start, &tag))
			ks_lost(t, &t->nested_end);
		return;
	}
	now = ks_now();
	if (!ks_starts_take(t->starts, ks_match_key(value), &start, &tag)) {
		/* With a filter, a missing start may be one it left out. */
		if (!t->req.filter.has && !t->req.filter.n_values)
			atomic_long_inc(&t->no_start);
	} else if (now > start && now - start > t->req.match.expire_ns) {
		ks_lost(t, &t->expired);
	} else {
		ks_record_span(t, current, start, now, &tag,
			       ks_stack(t, KS_KEY_END_KSTACK, &t->anchor[1], ret, 0));
	}
	ks_leave(busy);
}

/* ---------------------------------------------- kprobes on two functions */

static int notrace ks_mkp_start(struct kprobe *p, struct pt_regs *regs)
{
	struct ks_trace *t = ks_trace_of(container_of(p, struct ks_matched, kp[0]));
	unsigned long arg[KS_ARG_SLOTS];

	if (unlikely(t->req.reads_args)) {
		ks_regs_args(regs, arg);
		if (!ks_args_admit(t, arg))
			return 0;
		ks_matched_start(t, ks_kprobe_level(p),
				 arg[t->req.match.start_arg], ks_key_arg(t, arg),
				 ks_entry_return_address(regs));
		return 0;
	}
	ks_matched_start(t, ks_kprobe_level(p),
			 regs_get_kernel_argument(regs, t->req.match.start_arg),
			 0, ks_entry_return_address(regs));
	return 0;
}

static int notrace ks_mkp_end(struct kprobe *p, struct pt_regs *regs)
{
	struct ks_trace *t = ks_trace_of(container_of(p, struct ks_matched, kp[1]));

	ks_matched_end(t, regs_get_kernel_argument(regs, t->req.match.end_arg),
		       ks_entry_return_address(regs));
	return 0;
}

NOKPROBE_SYMBOL(ks_mkp_start);
NOKPROBE_SYMBOL(ks_mkp_end);
NOKPROBE_SYMBOL(ks_matched_expire_old);
NOKPROBE_SYMBOL(ks_matched_start);
NOKPROBE_SYMBOL(ks_matched_end);

static int ks_matched_kprobe_resolve(struct ks_trace *t)
{
	int err = ks_resolve(t->req.name, t->req.start, &t->addr);

	if (!err)
		err = ks_resolve(t->req.name, t->req.end, &t->end_addr);
	if (!err && t->addr == t->end_addr) {
		ks_err_ratelimited("trace %s: end %s is the same function as start %s\n",
				   t->req.name, t->req.end, t->req.start);
		err = -EINVAL;
	}
	return err;
}

static int ks_matched_kprobe_attach(struct ks_trace *t)
{
	struct ks_matched *m = ks_matched(t);
	/* The end first, as for a section pair (kprobe_pair.c). */
	struct kprobe *kps[] = { &m->kp[1], &m->kp[0] };
	int err;

	ks_anchor_function(&t->anchor[0], t->addr);
	ks_anchor_function(&t->anchor[1], t->end_addr);
	/* Where resolve found them, as for a kretprobe (function.c). */
	m->kp[0].addr = (kprobe_opcode_t *)t->addr;
	m->kp[0].pre_handler = ks_mkp_start;
	m->kp[1].addr = (kprobe_opcode_t *)t->end_addr;
	m->kp[1].pre_handler = ks_mkp_end;
	err = register_kprobes(kps, ARRAY_SIZE(kps));
	if (err)
		pr_err("trace %s: register_kprobes failed: %d\n", t->req.name, err);
	return err;
}

static int ks_matched_kprobe_detach(struct ks_trace *t)
{
	struct ks_matched *m = ks_matched(t);
	struct kprobe *kps[] = { &m->kp[0], &m->kp[1] };

	unregister_kprobes(kps, ARRAY_SIZE(kps));
	return 0;
}

/*
 * The start probe's misses only. An end probe that did not fire leaves
 * its start in the table, which counts the section when it goes
 * (replaced, expired): counting the end too would count it twice.
 */
static unsigned long ks_matched_kprobe_missed(struct ks_trace *t)
{
	return ks_matched(t)->kp[0].nmissed;
}

/* ---------------------------------------------- two tracepoints */

/*
 * The tracepoint's first arguments, after @data, in registers: see the
 * comment at the top. Preemptible on 7.x: kept on this CPU, as
 * tracepoint_pair.c's probes are.
 */
static void notrace ks_mtp_start(void *data, unsigned long a0,
				 unsigned long a1, unsigned long a2,
				 unsigned long a3, unsigned long a4)
{
	unsigned long arg[KS_ARG_SLOTS] = { a0, a1, a2, a3, a4 };
	struct ks_trace *t = data;

	if (unlikely(t->req.reads_args) && !ks_args_admit(t, arg))
		return;
	preempt_disable_notrace();
	ks_matched_start(t, interrupt_context_level(),
			 arg[t->req.match.start_arg], ks_key_arg(t, arg), 0);
	preempt_enable_notrace();
}

static void notrace ks_mtp_end(void *data, unsigned long a0,
			       unsigned long a1, unsigned long a2,
			       unsigned long a3, unsigned long a4)
{
	const unsigned long arg[KS_ARGS] = { a0, a1, a2, a3, a4 };
	struct ks_trace *t = data;

	preempt_disable_notrace();
	ks_matched_end(t, arg[t->req.match.end_arg], 0);
	preempt_enable_notrace();
}

static int ks_matched_tp_resolve(struct ks_trace *t)
{
	struct ks_matched *m = ks_matched(t);

	return ks_tp_pair_resolve(t, &m->probe[0].tp, &m->probe[1].tp);
}

static int ks_matched_tp_attach(struct ks_trace *t)
{
	struct ks_matched *m = ks_matched(t);

	/* Registered last first: the end, then the start. */
	m->probe[0].fn = ks_mtp_start;
	m->probe[1].fn = ks_mtp_end;
	ks_anchor_tracepoint(&t->anchor[0], m->probe[0].tp);
	ks_anchor_tracepoint(&t->anchor[1], m->probe[1].tp);
	ks_anchor_tracepoint(&t->anchor[2], NULL);
	return ks_tp_probes_register(t, m->probe, ARRAY_SIZE(m->probe));
}

static int ks_matched_tp_detach(struct ks_trace *t)
{
	ks_tp_probes_unregister(t, ks_matched(t)->probe, 2);
	return 0;
}

/* ---------------------------------------------- both */

static void ks_matched_list(struct seq_file *m, const struct ks_trace *t)
{
	seq_printf(m, " match arg%u,arg%u expire %llu repeat %s",
		   t->req.match.start_arg, t->req.match.end_arg,
		   t->req.match.expire_ns,
		   t->req.match.keep ? "keep" : "replace");
}

static bool ks_matched_kprobe_claims(const struct ks_trace_req *req)
{
	return req->match.on && req->method == KS_METHOD_KPROBE;
}

static bool ks_matched_tp_claims(const struct ks_trace_req *req)
{
	return req->match.on && req->method == KS_METHOD_TRACEPOINT;
}

const struct ks_method_ops ks_matched_kprobe_ops = {
	.method = KS_METHOD_KPROBE,
	.priv_size = sizeof(struct ks_matched),
	.starts = true,
	.claims = ks_matched_kprobe_claims,
	.resolve = ks_matched_kprobe_resolve,
	.attach = ks_matched_kprobe_attach,
	.detach = ks_matched_kprobe_detach,
	.missed = ks_matched_kprobe_missed,
	.list = ks_matched_list,
};

const struct ks_method_ops ks_matched_tp_ops = {
	.method = KS_METHOD_TRACEPOINT,
	.priv_size = sizeof(struct ks_matched),
	.starts = true,
	.claims = ks_matched_tp_claims,
	.resolve = ks_matched_tp_resolve,
	.attach = ks_matched_tp_attach,
	.detach = ks_matched_tp_detach,
	.list = ks_matched_list,
};
