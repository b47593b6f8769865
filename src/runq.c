// SPDX-License-Identifier: GPL-2.0
/*
 * The run-queue pair: a tracepoint pair from sched_wakeup, sched_waking
 * or sched_wakeup_new to sched_switch, timing run-queue latency as bcc's
 * runqlat defines it: the time a task waits on a run queue, from the
 * moment it becomes runnable while off CPU (woken, or switched out still
 * runnable) until it is switched in. Keyed on the woken task, not on
 * current. Tracepoint probes keep themselves on their CPU: see
 * tracepoint_pair.c.
 *
 * A wakeup may fire for a task that is on a CPU: current waking itself
 * in try_to_wake_up(), or ttwu_runnable() for a task between
 * set_current_state() and schedule(). It waits on no run queue: no
 * start. A start can still be left for a task that then runs (a
 * sched_waking, which holds only p->pi_lock, racing the switch to p), so
 * every switch-out replaces or drops the task's start: no start survives
 * a run of its task to be ended by a later switch-in.
 */
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "hotpath.h"
#include "method.h"
#include "names.h"
#include "starts.h"

/*
 * The probes: start, sched_wakeup_new (for a new task's first wait), end:
 * registered last first (ks_tp_probes_register()), so that no wakeup
 * starts a wait before sched_switch, which ends and drops waits, is live.
 */
struct ks_runq {
	struct ks_tp_probe probe[3];
};

static struct ks_runq *ks_runq(const struct ks_trace *t)
{
	return ks_trace_priv(t);
}

static void notrace ks_runq_wakeup(struct ks_trace *t, struct task_struct *p,
				   const struct ks_anchor *anchor, bool replace)
{
	u8 *busy;
	u64 now;
	u32 stack;

	if (is_idle_task(p) || ks_task_on_cpu(p) ||
	    !ks_filter_task(&t->req.filter, p))
		return;
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_start);
		return;
	}
	stack = ks_stack(t, KS_KEY_KSTACK, anchor, 0, 0);
	now = ks_now();
	ks_gap_begin(t, now);
	ks_put_start(t, p, now, stack, replace);
	ks_leave(busy);
}

/*
 * sched_wakeup and sched_wakeup_new run under p's run-queue lock, as do
 * p's switches: p cannot be switched in or out meanwhile. A queued task
 * woken again (preempted between set_current_state() and schedule()) has
 * waited since its switch-out: keep that start.
 */
static void notrace ks_tp_wakeup(void *data, struct task_struct *p)
{
	struct ks_trace *t = data;

	preempt_disable_notrace();
	ks_runq_wakeup(t, p, &t->anchor[0], false);
	preempt_enable_notrace();
}

/* sched_wakeup_new, when the pair starts at sched_wakeup or sched_waking. */
static void notrace ks_tp_wakeup_new(void *data, struct task_struct *p)
{
	struct ks_trace *t = data;

	preempt_disable_notrace();
	ks_runq_wakeup(t, p, &t->anchor[2], false);
	preempt_enable_notrace();
}

/*
 * sched_waking holds only p->pi_lock. Between its check that p is off
 * CPU and its put, p may be switched in, run and block (seen under TCG,
 * where one vCPU can stall for a whole time slice), leaving a start for
 * a blocked task. The next waking of p must replace it.
 */
static void notrace ks_tp_waking(void *data, struct task_struct *p)
{
	struct ks_trace *t = data;

	preempt_disable_notrace();
	ks_runq_wakeup(t, p, &t->anchor[0], true);
	preempt_enable_notrace();
}

/* __schedule() calls sched_switch with interrupts off, on every kernel. */
static void notrace ks_tp_switch(void *data, KS_SCHED_SWITCH_PROTO)
{
	struct ks_trace *t = data;
	const struct ks_filter *f = &t->req.filter;
	u8 *busy = ks_enter();
	struct ks_tag tag;
	u64 now, start;

	if (!busy) {
		/*
		 * Each wait lost here is counted once: next's goes with its
		 * start, which would pair with a later switch-in; prev's,
		 * if it waits, is never recorded.
		 */
		if (!is_idle_task(next) &&
		    ks_starts_take(t->starts, next, &start, &tag))
			ks_lost(t, &t->nested_end);
		if (!is_idle_task(prev) && ks_filter_task(f, prev) &&
		    (preempt || task_is_running(prev)))
			ks_lost(t, &t->nested_start);
		return;
	}
	now = ks_now();
	/*
	 * No start: next ran before the trace began, its start was lost and
	 * counted, or the filters refused it. The cpu filter is on the run
	 * queue's CPU, this one: elsewhere the start still goes.
	 */
	if (!is_idle_task(next) && ks_filter_task(f, next) &&
	    ks_starts_take(t->starts, next, &start, &tag) &&
	    ks_filter_cpu(f)) {
		ks_record_span(t, next, start, now, &tag,
			       ks_stack(t, KS_KEY_END_KSTACK, &t->anchor[1], 0, 0));
		ks_gap_end(t, now);
	}
	if (is_idle_task(prev) || !ks_filter_task(f, prev)) {
		;
	} else if (preempt || task_is_running(prev)) {
		/*
		 * next's wait ended at now; with a key, prev's starts after
		 * next's row and prev's stack are done (see hotpath.c).
		 */
		u32 stack = ks_stack(t, KS_KEY_KSTACK, &t->anchor[1], 0, 0);

		if (t->keys)
			now = ks_now();
		ks_put_start(t, prev, now, stack, true);
	} else {
		ks_starts_drop(t->starts, prev);
	}
	ks_leave(busy);
}

static const struct {
	const char *start;
	void *start_fn;
} ks_runq_starts[] = {
	{ "sched_wakeup", ks_tp_wakeup },
	{ "sched_waking", ks_tp_waking },
	{ "sched_wakeup_new", ks_tp_wakeup },
};

/* The start's handler, if @req is a run-queue pair, else NULL. */
static void *ks_runq_start_fn(const struct ks_trace_req *req)
{
	const char *start = req->start + strlen(KS_TP_PREFIX);
	const char *end = req->end + strlen(KS_TP_PREFIX);
	unsigned int i;

	if (req->method != KS_METHOD_TRACEPOINT || strcmp(end, "sched_switch"))
		return NULL;
	for (i = 0; i < ARRAY_SIZE(ks_runq_starts); i++)
		if (!strcmp(ks_runq_starts[i].start, start))
			return ks_runq_starts[i].start_fn;
	return NULL;
}

static bool ks_runq_claims(const struct ks_trace_req *req)
{
	/* A matched pair of the same tracepoints is matched.c's. */
	return !req->match.on && ks_runq_start_fn(req);
}

static int ks_runq_resolve(struct ks_trace *t)
{
	struct ks_runq *rq = ks_runq(t);

	char name[8];

	if (t->req.match.expire_ns) {
		ks_err_ratelimited("trace %s: expire: a run-queue wait is one per task, replaced at each wakeup\n",
				   t->req.name);
		return -EINVAL;
	}
	if (t->req.filter.n_values) {
		ks_err_ratelimited("trace %s: if %s: a run-queue wait is the scheduler's; it has no arguments to compare\n",
				   t->req.name, t->req.filter.value[0].word);
		return -EINVAL;
	}
	if (ks_keys_spec_has(&t->req.keys, KS_KEY_VALUE)) {
		ks_err_ratelimited("trace %s: key %s: a run-queue wait is the scheduler's; it has no arguments to key on\n",
				   t->req.name,
				   ks_key_value_word(name, &t->req.keys));
		return -EINVAL;
	}
	if (ks_keys_spec_has(&t->req.keys, KS_KEY_USTACK)) {
		ks_err_ratelimited("trace %s: key ustack: a run-queue wait's task is off its CPU at both ends, so its user stack cannot be read; trace NAME offcpu keys the stack it blocked in\n",
				   t->req.name);
		return -EINVAL;
	}
	return ks_tp_pair_resolve(t, &rq->probe[0].tp, &rq->probe[2].tp);
}

static int ks_runq_attach(struct ks_trace *t)
{
	struct ks_runq *rq = ks_runq(t);

	rq->probe[0].fn = ks_runq_start_fn(&t->req);
	rq->probe[2].fn = ks_tp_switch;
	/* As runqlat: a new task's first wait starts at sched_wakeup_new. */
	if (strcmp(t->req.start + strlen(KS_TP_PREFIX), "sched_wakeup_new")) {
		rq->probe[1].tp = ks_find_tracepoint("sched_wakeup_new");
		rq->probe[1].fn = ks_tp_wakeup_new;
	}
	ks_anchor_tracepoint(&t->anchor[0], rq->probe[0].tp);
	ks_anchor_tracepoint(&t->anchor[1], rq->probe[2].tp);
	ks_anchor_tracepoint(&t->anchor[2], rq->probe[1].tp);
	return ks_tp_probes_register(t, rq->probe, ARRAY_SIZE(rq->probe));
}

static int ks_runq_detach(struct ks_trace *t)
{
	ks_tp_probes_unregister(t, ks_runq(t)->probe, ARRAY_SIZE(ks_runq(t)->probe));
	return 0;
}

const struct ks_method_ops ks_runq_ops = {
	.method = KS_METHOD_TRACEPOINT,
	.priv_size = sizeof(struct ks_runq),
	.starts = true,
	.claims = ks_runq_claims,
	.resolve = ks_runq_resolve,
	.attach = ks_runq_attach,
	.detach = ks_runq_detach,
};
