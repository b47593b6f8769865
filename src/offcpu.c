// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU waits, as bcc's offcputime and offwaketime time them: from the
 * switch-out of a task that goes to sleep (sched_switch, prev not
 * runnable; with "state all" any switch-out, as offcputime's default) to
 * its next switch-in (sched_switch, next). NAME holds the
 * whole wait; BLOCKED-NAME its part up to the wakeup (sched_waking) and
 * RUNQ-NAME the rest, spent runnable on a run queue, over the same
 * samples: the two add up to NAME's, sample by sample.
 *
 * The wakeup is taken in the waker's context (try_to_wake_up() calls
 * sched_waking there), so the waker-* key parts are the task, or the
 * interrupt, that woke the wait. A start table keeps each blocked task's
 * switch-out and stack (t->starts), a second one its wakeup and waker.
 *
 * A wait whose wakeup came before its switch-out was done (the waker ran
 * while the task was still in __schedule()) has no wakeup of its own:
 * it was runnable all along, so all of it is run-queue time and it has
 * no waker; keyed by a waker part, it goes to "other".
 *
 * Key waker-chain (recs.c) keeps, per task, who woke it at its last
 * wakeup: the waker's level (stack, comm, pid), the levels that had woken
 * the waker before, and how long each had been blocked. A task's record
 * is "blocked" from its switch-out into a sleep (any task's, whatever
 * the filters: a waker is usually another program) to its wakeup, then
 * "woken" until its next such switch-out; its last one (TASK_DEAD) drops
 * it. When X wakes Y, Y's chain is X's level, then X's record's levels:
 * all of them from wakeups before this one. A waker with no "woken"
 * record was not blocked (running, runnable, or blocked since before the
 * trace): the level after it is [running], or [kernel thread]; an
 * interrupt's wakeup is a level of its own, comm "[interrupt]", and ends
 * the chain. Without waker-chain none of this runs.
 *
 * Tracepoint probes keep themselves on their CPU: see tracepoint_pair.c.
 */
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "hotpath.h"
#include "method.h"
#include "names.h"
#include "recs.h"
#include "starts.h"

/*
 * Its probes, and each blocked task's wakeup: when, and the waker's id.
 * Registered last first (ks_tp_probes_register()): sched_waking, then
 * sched_switch. A wait started while sched_waking was not yet live would
 * miss its wakeup and count as run-queue time from end to end.
 */
struct ks_offcpu {
	struct ks_tp_probe probe[2];	/* sched_switch, sched_waking */
	struct ks_starts *wakes;
	struct ks_recs *recs;	/* with waker-chain: every task's record */
	/*
	 * Records of waker-chain not kept (the table full, or a switch or
	 * wakeup inside a kstats handler): no sample is lost, but that
	 * task's wakeups of others show "[running]" until it next sleeps.
	 */
	atomic_long_t records_lost;
};

#define KS_OFFCPU_SWITCH	0
#define KS_OFFCPU_WAKING	1

static struct ks_offcpu *ks_offcpu(const struct ks_trace *t)
{
	return ks_trace_priv(t);
}

/*
 * Whether @prev leaves its CPU for a sleep, one that leaves the run queue
 * (and starts a record of waker-chain): not preempted, not runnable, not
 * the idle task (which never waits), not its last switch-out. 6.1 passes
 * the state read before a pending signal woke prev: prev's own counts.
 */
static __always_inline bool ks_offcpu_blocks(const struct task_struct *prev,
					     bool preempt, unsigned int state)
{
	return !preempt && state && !(state & TASK_DEAD) &&
	       !is_idle_task(prev) && READ_ONCE(prev->__state) != TASK_RUNNING;
}

/*
 * Whether @prev leaving its CPU in @state starts a wait the line asks for:
 * for "state all", every switch-out, a preemption included (bcc's
 * offcputime by default); else a sleep, one that leaves the run queue.
 */
static __always_inline bool ks_offcpu_state(const struct ks_offcpu_req *o,
					    const struct task_struct *prev,
					    bool preempt, unsigned int state)
{
	/* The idle task never waits; a task's last switch-out starts none. */
	if (o->state == KS_STATE_ALL)
		return !is_idle_task(prev) && !(state & TASK_DEAD);
	if (!ks_offcpu_blocks(prev, preempt, state))
		return false;
	switch (o->state) {
	case KS_STATE_S:
		return state & TASK_INTERRUPTIBLE;
	case KS_STATE_D:
		/* As ps: TASK_IDLE (a kworker waiting for work) is not D. */
		return (state & TASK_UNINTERRUPTIBLE) && !(state & TASK_NOLOAD);
	default:
		return true;
	}
}

/* Whether the filters admit a wait of @p starting on this CPU. */
static __always_inline bool ks_offcpu_admits(const struct ks_trace *t,
					     const struct task_struct *p)
{
	const struct ks_offcpu_req *o = &t->req.offcpu;
	bool kthread = p->flags & PF_KTHREAD;

	if ((o->tasks == KS_TASKS_USER && kthread) ||
	    (o->tasks == KS_TASKS_KERNEL && !kthread))
		return false;
	return ks_filter_task(&t->req.filter, p) && ks_filter_cpu(&t->req.filter);
}

/*
 * A wait of @p from @out to @now ends, woken at @wake if @woke. With
 * waker-chain, @chain is @p's record, woken at @wake, or NULL.
 */
static void notrace ks_offcpu_end(struct ks_trace *t, struct task_struct *p,
				  u64 out, bool woke, u64 wake, u64 now,
				  u32 stack, u32 waker, const struct ks_rec *chain)
{
	const struct ks_offcpu_req *o = &t->req.offcpu;
	u64 whole, blocked;

	if (unlikely(now < out)) {
		ks_lost(t, &t->negative);
		return;
	}
	whole = now - out;
	/* As offcputime's -m and -M: neither a sample nor a miss. */
	if (whole < o->min_ns || (o->max_ns && whole > o->max_ns))
		return;
	blocked = woke && wake >= out && wake <= now ? wake - out : 0;
	kstats_record(t->dur, whole);
	/* The parts, as the keyed rows, record while NAME does (stop, start). */
	if (!READ_ONCE(t->dur->active))
		return;
	kstats_record(t->part[0], blocked);
	kstats_record(t->part[1], whole - blocked);
	if (!t->keys)
		return;
	if (ks_offcpu(t)->recs) {
		/* No chain of its own (no wakeup seen, a level lost): other. */
		waker = woke && chain ?
			ks_keys_chain(t->keys, chain->level, chain->ns) : 0;
		ks_keys_record_woken(t->keys, stack, waker, p, whole, now,
				     chain ? chain->ns : NULL);
		return;
	}
	ks_keys_record_woken(t->keys, stack, waker, p, whole, now, NULL);
}

/*
 * The records of waker-chain at a switch, when this CPU's slot is busy:
 * none started, none left stale, the record's loss counted (a traced
 * wait's sample is counted by the caller).
 */
static void notrace ks_offcpu_recs_nested(struct ks_trace *t,
					  struct ks_offcpu *oc,
					  struct task_struct *prev,
					  struct task_struct *next,
					  bool preempt, unsigned int state)
{
	struct ks_rec rec;

	if (!is_idle_task(next))
		ks_recs_find(oc->recs, next, &rec, true);
	if (state & TASK_DEAD) {
		ks_recs_drop(oc->recs, prev);
	} else if (ks_offcpu_blocks(prev, preempt, state)) {
		ks_recs_drop(oc->recs, prev);
		atomic_long_inc(&oc->records_lost);
	}
}

/*
 * __schedule() calls sched_switch with interrupts off, on every kernel:
 * nothing of kstats' can be under way in this context slot, but a
 * nested hit is still handled, and counted.
 */
static void notrace ks_offcpu_switch(void *data, KS_SCHED_SWITCH_PROTO)
{
	struct ks_trace *t = data;
	struct ks_offcpu *oc = ks_offcpu(t);
	unsigned int state = KS_SCHED_SWITCH_STATE;
	bool sleeps = ks_offcpu_state(&t->req.offcpu, prev, preempt, state) &&
		      ks_offcpu_admits(t, prev);
	/* With waker-chain, prev's sleep starts its record, timed or not. */
	bool blocks = oc->recs && ks_offcpu_blocks(prev, preempt, state);
	u8 *busy = ks_enter();
	struct ks_tag stack, waker;
	struct ks_rec rec;
	u64 now, out, wake;
	bool woke, ended, chained = false;

	if (!busy) {
		if (oc->recs)
			ks_offcpu_recs_nested(t, oc, prev, next, preempt, state);
		/* A start left here would pair with a later switch-in. */
		if (ks_starts_take(t->starts, next, &out, &stack)) {
			ks_starts_take(oc->wakes, next, &wake, &waker);
			ks_lost(t, &t->nested_end);
		}
		if (sleeps)
			ks_lost(t, &t->nested_start);
		return;
	}
	now = ks_now();
	/* A record still blocked had no wakeup seen: it goes. */
	if (oc->recs && !is_idle_task(next))
		chained = ks_recs_find(oc->recs, next, &rec, true) == KS_REC_WOKEN;
	/* No start: the wait began before the trace, or was filtered out. */
	ended = !is_idle_task(next) &&
		ks_starts_take(t->starts, next, &out, &stack);
	if (ended) {
		woke = ks_starts_take(oc->wakes, next, &wake, &waker);
		ks_offcpu_end(t, next, out, woke, wake, now, stack.stack,
			      woke ? waker.stack : 0, chained ? &rec : NULL);
	}
	if (oc->recs && (state & TASK_DEAD)) {
		/* Its last switch-out: its task_struct may be used again. */
		ks_recs_drop(oc->recs, prev);
	} else if (blocks && !sleeps) {
		/* A sleep the trace does not time: only its record. */
		if (!ks_recs_block(oc->recs, prev, now))
			atomic_long_inc(&oc->records_lost);
	}
	if (sleeps) {
		u64 at = now;

		/* next's wait ended at now; prev's starts after its stack. */
		stack.stack = ks_stack(t, KS_KEY_KSTACK, &t->anchor[1], 0, 0);
		if (t->keys)
			at = ks_now();
		/* Before the start: a waker that sees it sees the record. */
		if (blocks && !ks_recs_block(oc->recs, prev, at))
			atomic_long_inc(&oc->records_lost);
		/*
		 * GAP: how long prev ran since the last wait here ended,
		 * before next's end starts the next GAP.
		 */
		ks_gap_begin(t, at);
		ks_put_start(t, prev, at, stack.stack, true);
	}
	if (ended)
		ks_gap_end(t, now);
	ks_leave(busy);
}

/*
 * The wakeup of @p with waker-chain: if @p was in a blocked wait, its
 * record takes the chain that wakes it (current's level, then current's
 * own record's levels), and, if the trace times the wait, its wakeup.
 * current's record is of its last wakeup, before this one: it is read,
 * never one written later.
 */
static void notrace ks_offcpu_chain_waking(struct ks_trace *t,
					   struct ks_offcpu *oc,
					   struct task_struct *p)
{
	unsigned int n = t->req.keys.chain;
	u32 level[KS_CHAIN_MAX] = {};
	u64 ns[KS_CHAIN_MAX] = {};
	/* The wait's waker is in @p's record: this only says it woke. */
	struct ks_tag tag = { .stack = 1 };
	bool admitted = ks_starts_holds(t->starts, p);
	bool blocked, irq = !in_task();
	struct ks_rec rec;
	u8 *busy;
	u64 now;

	blocked = ks_recs_find(oc->recs, p, &rec, false) == KS_REC_BLOCKED;
	if (!blocked && !admitted)
		return;
	busy = ks_enter();
	if (!busy) {
		/* Neither the wait's wakeup nor its record: both go, counted. */
		if (admitted) {
			ks_starts_drop(t->starts, p);
			ks_lost(t, &t->nested_start);
		}
		if (blocked) {
			ks_recs_drop(oc->recs, p);
			atomic_long_inc(&oc->records_lost);
		}
		return;
	}
	if (blocked) {
		level[0] = ks_keys_chain_level(t->keys, &t->anchor[0], irq) ?:
			   KS_CHAIN_LOST;
		/*
		 * An interrupt ends the chain: level[1..] stay 0. Else the
		 * waker's record gives its own blocked time (level 1's, even
		 * with waker-chain:1) and the levels above it.
		 */
		if (!irq) {
			if (ks_recs_find(oc->recs, current, &rec, false) ==
			    KS_REC_WOKEN) {
				/* Woken before this wakeup, in a record kept since. */
				ns[0] = rec.ts;
				memcpy(level + 1, rec.level, (n - 1) * sizeof(*level));
				memcpy(ns + 1, rec.ns, (n - 1) * sizeof(*ns));
			} else {
				/* No wait of the waker's seen: its time unknown. */
				ns[0] = KS_CHAIN_NS_UNKNOWN;
				if (n > 1)
					level[1] = current->flags & PF_KTHREAD ?
						   KS_CHAIN_KTHREAD : KS_CHAIN_RUNNING;
			}
		}
	}
	now = ks_now();
	if (blocked)
		ks_recs_wake(oc->recs, p, now, level, ns);
	if (admitted && !ks_starts_put(oc->wakes, p, now, &tag, true)) {
		ks_starts_drop(t->starts, p);
		ks_lost(t, &t->table_full);
	}
	ks_leave(busy);
}

/*
 * try_to_wake_up() calls sched_waking in the waker's context, under
 * p->pi_lock, once it has found p in a state it wakes: p is then woken.
 * p's switch-in comes after this returns; its switch-out, if p is still
 * in __schedule(), may not have been seen yet, and then this wakeup is
 * not the wait's (see the top of the file).
 */
static void notrace ks_offcpu_waking(void *data, struct task_struct *p)
{
	struct ks_trace *t = data;
	struct ks_offcpu *oc = ks_offcpu(t);
	struct ks_tag waker = {};
	u8 *busy;
	u64 now;

	preempt_disable_notrace();
	if (oc->recs) {
		ks_offcpu_chain_waking(t, oc, p);
		goto out;
	}
	if (!ks_starts_holds(t->starts, p))
		goto out;
	busy = ks_enter();
	if (!busy) {
		/* The wait would have no wakeup: it goes, counted. */
		ks_starts_drop(t->starts, p);
		ks_lost(t, &t->nested_start);
		goto out;
	}
	/* The waker's stack first: the wait goes on while it is taken. */
	waker.stack = ks_keys_waker(t->keys, &t->anchor[0]);
	now = ks_now();
	if (!ks_starts_put(oc->wakes, p, now, &waker, true)) {
		ks_starts_drop(t->starts, p);
		ks_lost(t, &t->table_full);
	}
	ks_leave(busy);
out:
	preempt_enable_notrace();
}

static bool ks_offcpu_claims(const struct ks_trace_req *req)
{
	return req->offcpu.on;
}

static int ks_offcpu_resolve(struct ks_trace *t)
{
	struct ks_offcpu *oc = ks_offcpu(t);
	static const char *const names[] = {
		[KS_OFFCPU_SWITCH] = "sched_switch",
		[KS_OFFCPU_WAKING] = "sched_waking",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		oc->probe[i].tp = ks_find_tracepoint(names[i]);
		if (!oc->probe[i].tp) {
			ks_err_ratelimited("trace %s: no tracepoint %s in the kernel\n",
					   t->req.name, names[i]);
			return -ENOENT;
		}
	}
	return 0;
}

static int ks_offcpu_attach(struct ks_trace *t)
{
	struct ks_offcpu *oc = ks_offcpu(t);

	oc->wakes = ks_starts_alloc(t->req.maxactive);
	if (!oc->wakes)
		return -ENOMEM;
	/* A record per task that sleeps, as many as waits in flight. */
	if (ks_keys_spec_has(&t->req.keys, KS_KEY_WAKER_CHAIN)) {
		oc->recs = ks_recs_alloc(t->req.maxactive);
		if (!oc->recs)
			return -ENOMEM;
	}
	oc->probe[KS_OFFCPU_SWITCH].fn = ks_offcpu_switch;
	oc->probe[KS_OFFCPU_WAKING].fn = ks_offcpu_waking;
	ks_anchor_tracepoint(&t->anchor[0], oc->probe[KS_OFFCPU_WAKING].tp);
	ks_anchor_tracepoint(&t->anchor[1], oc->probe[KS_OFFCPU_SWITCH].tp);
	ks_anchor_tracepoint(&t->anchor[2], NULL);
	return ks_tp_probes_register(t, oc->probe, ARRAY_SIZE(oc->probe));
}

static int ks_offcpu_detach(struct ks_trace *t)
{
	ks_tp_probes_unregister(t, ks_offcpu(t)->probe,
				ARRAY_SIZE(ks_offcpu(t)->probe));
	return 0;
}

static size_t ks_offcpu_bytes(const struct ks_trace *t)
{
	return ks_starts_bytes(ks_offcpu(t)->wakes) +
	       ks_recs_bytes(ks_offcpu(t)->recs);
}

static void ks_offcpu_free(struct ks_trace *t)
{
	ks_starts_free(ks_offcpu(t)->wakes);
	ks_recs_free(ks_offcpu(t)->recs);
}

static void ks_offcpu_list(struct seq_file *m, const struct ks_trace *t)
{
	const struct ks_offcpu_req *o = &t->req.offcpu;

	seq_printf(m, " kind offcpu state %s tasks %s min %llu max ",
		   ks_offcpu_state_names[o->state],
		   ks_offcpu_tasks_names[o->tasks], o->min_ns);
	if (o->max_ns)
		seq_printf(m, "%llu", o->max_ns);
	else
		seq_putc(m, '-');
	if (ks_offcpu(t)->recs)
		seq_printf(m, " records_lost %ld",
			   atomic_long_read(&ks_offcpu(t)->records_lost));
}

const struct ks_method_ops ks_offcpu_ops = {
	.method = KS_METHOD_TRACEPOINT,
	.priv_size = sizeof(struct ks_offcpu),
	.part_prefix = { KS_BLOCKED_PREFIX, KS_RUNQ_PREFIX },
	.starts = true,
	.starts_default = KS_MAXACTIVE_MAX,
	.claims = ks_offcpu_claims,
	.resolve = ks_offcpu_resolve,
	.attach = ks_offcpu_attach,
	.detach = ks_offcpu_detach,
	.bytes = ks_offcpu_bytes,
	.free = ks_offcpu_free,
	.list = ks_offcpu_list,
};
