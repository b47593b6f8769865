// SPDX-License-Identifier: GPL-2.0
/*
 * Method tracepoint: a section from one tracepoint to another, per task
 * and context level, nested as calls nest. Also the registration that the
 * run-queue pair (runq.c) shares.
 *
 * Tracepoint probes that use no argument are called with the tracepoint's
 * arguments after @data, which the x86-64 calling convention lets them
 * ignore, like the kernel's own tracepoint stubs. (Kbuild refuses kernels
 * with kCFI, where that call would trap.)
 *
 * Syscall tracepoints call their probes preemptible since 6.13 (under RCU
 * Tasks Trace), and all others do on 7.x (under SRCU-fast). Every
 * tracepoint probe of kstats therefore keeps itself on its CPU, as kprobe
 * and fprobe handlers are kept by their callers: the guard, GAP and the
 * stack scratch buffers are per CPU, and another task on this CPU must
 * not find the guard taken and be counted "nested".
 */
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>

#include "hotpath.h"
#include "method.h"
#include "names.h"

/* A tracepoint pair's own state: its start and end probes, in that order. */
struct ks_tracepoint_pair {
	struct ks_tp_probe probe[2];
};

/*
 * ks_tp_start() of a trace that reads the arguments. Apart, so that the
 * start of other traces keeps no array on its stack.
 */
static noinline void notrace ks_tp_start_args(struct ks_trace *t,
					      unsigned long a0,
					      unsigned long a1,
					      unsigned long a2,
					      unsigned long a3,
					      unsigned long a4)
{
	unsigned long arg[KS_ARG_SLOTS] = { a0, a1, a2, a3, a4 };

	preempt_disable_notrace();
	if (ks_args_admit(t, arg))
		ks_section_start(t, current, interrupt_context_level(), 0, arg);
	else
		ks_section_left_out(t, current, interrupt_context_level());
	preempt_enable_notrace();
}

/* With the tracepoint's first arguments, for if and key argN (matched.c). */
static void notrace ks_tp_start(void *data, unsigned long a0,
				unsigned long a1, unsigned long a2,
				unsigned long a3, unsigned long a4)
{
	struct ks_trace *t = data;

	if (unlikely(t->req.reads_args)) {
		ks_tp_start_args(t, a0, a1, a2, a3, a4);
		return;
	}
	preempt_disable_notrace();
	ks_section_start(t, current, interrupt_context_level(), 0, NULL);
	preempt_enable_notrace();
}

static void notrace ks_tp_end(void *data)
{
	preempt_disable_notrace();
	ks_section_end(data, current, interrupt_context_level(), 0);
	preempt_enable_notrace();
}

/**
 * ks_tp_pair_resolve() - the tracepoints of a pair's start and end
 * @t: the trace; req.start and req.end are __tracepoint_ names
 * @start: set to the start's tracepoint
 * @end: set to the end's
 *
 * Context: process context.
 * Return: 0, or -ENOENT with the reason in dmesg.
 */
int ks_tp_pair_resolve(struct ks_trace *t, struct tracepoint **start,
		       struct tracepoint **end)
{
	const char *start_name = t->req.start + strlen(KS_TP_PREFIX);
	const char *end_name = t->req.end + strlen(KS_TP_PREFIX);

	*start = ks_find_tracepoint(start_name);
	*end = ks_find_tracepoint(end_name);
	if (!*start || !*end) {
		ks_err_ratelimited("trace %s: no tracepoint %s in the kernel\n",
				   t->req.name, *start ? end_name : start_name);
		return -ENOENT;
	}
	return 0;
}

/**
 * ks_anchor_tracepoint() - a tracepoint's frames in a stack
 * @a: set to its iterator's range, when it has one (more than one probe)
 * @tp: the tracepoint, or NULL
 *
 * Context: process context.
 */
void ks_anchor_tracepoint(struct ks_anchor *a, struct tracepoint *tp)
{
	a->keep = false;
	if (tp && ks_symbol_range((unsigned long)tp->iterator, &a->lo, &a->hi))
		return;
	a->lo = 0;
	a->hi = 0;
}

/**
 * ks_tp_probes_unregister() - unregister the first @n probes of @p
 * @t: their data
 * @p: the probes, as ks_tp_probes_register() took them
 * @n: how many; entries without a tracepoint are skipped
 *
 * In the array's order, the reverse of registration: the starts go
 * first, and their ends still close what is open meanwhile.
 * Returns once no probe of @p runs any more.
 *
 * Context: process context; may sleep.
 */
void ks_tp_probes_unregister(struct ks_trace *t, const struct ks_tp_probe *p,
			     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i].tp)
			tracepoint_probe_unregister(p[i].tp, p[i].fn, t);
	tracepoint_synchronize_unregister();
}

/**
 * ks_tp_probes_register() - register @n probes with @t as their data
 * @t: the trace
 * @p: the probes, starts first; entries without a tracepoint are skipped
 * @n: how many
 *
 * From the last to the first: a method lists every probe that ends,
 * drops or completes a start after the probe that makes it, so that no
 * start is made before the probes that close it are live. Registered
 * the other way, a task woken (a start) and then run and switched out
 * before the end was live kept a start that its next switch-in, seconds
 * later, closed: a wait that never happened. An end before its start's
 * probe is live finds no start, as one of a section that began before
 * the trace. Once tracepoint_probe_register() returns, every later call
 * of the tracepoint runs the probe, and an end that follows a start
 * (through the task's own order, or a run-queue lock taken after the
 * wakeup) follows the start probe's registration too: it sees the end
 * probe. This costs the handlers nothing, where a mark of the moment
 * the trace was whole would cost every end a load and a compare.
 *
 * Context: process context; may sleep.
 * Return: 0; on failure none is left registered and dmesg says why.
 */
int ks_tp_probes_register(struct ks_trace *t, const struct ks_tp_probe *p,
			  unsigned int n)
{
	unsigned int i;
	int err;

	for (i = n; i--; ) {
		if (!p[i].tp)
			continue;
		err = tracepoint_probe_register(p[i].tp, p[i].fn, t);
		if (err) {
			if (i + 1 < n)
				ks_tp_probes_unregister(t, p + i + 1, n - i - 1);
			pr_err("trace %s: tracepoint_probe_register failed: %d\n",
			       t->req.name, err);
			return err;
		}
	}
	return 0;
}

static struct ks_tracepoint_pair *ks_tracepoint_pair(const struct ks_trace *t)
{
	return ks_trace_priv(t);
}

/**
 * ks_section_expire() - a section pair's expire, the default if not given
 * @t: a kprobe or tracepoint pair, not matched
 *
 * Context: resolve, under the registry's lock.
 */
void ks_section_expire(struct ks_trace *t)
{
	if (!t->req.match.expire_ns)
		t->req.match.expire_ns = KS_EXPIRE_DEFAULT_NS;
}

/**
 * ks_section_list() - what a section pair's line of the listing adds
 * @m: the listing
 * @t: a kprobe or tracepoint pair, not matched
 */
void ks_section_list(struct seq_file *m, const struct ks_trace *t)
{
	seq_printf(m, " expire %llu", t->req.match.expire_ns);
}

static int ks_tracepoint_pair_resolve(struct ks_trace *t)
{
	struct ks_tracepoint_pair *pair = ks_tracepoint_pair(t);

	ks_section_expire(t);
	return ks_tp_pair_resolve(t, &pair->probe[0].tp, &pair->probe[1].tp);
}

static int ks_tracepoint_pair_attach(struct ks_trace *t)
{
	struct ks_tracepoint_pair *pair = ks_tracepoint_pair(t);

	pair->probe[0].fn = ks_tp_start;
	pair->probe[1].fn = ks_tp_end;
	ks_anchor_tracepoint(&t->anchor[0], pair->probe[0].tp);
	ks_anchor_tracepoint(&t->anchor[1], pair->probe[1].tp);
	ks_anchor_tracepoint(&t->anchor[2], NULL);
	return ks_tp_probes_register(t, pair->probe, ARRAY_SIZE(pair->probe));
}

static int ks_tracepoint_pair_detach(struct ks_trace *t)
{
	struct ks_tracepoint_pair *pair = ks_tracepoint_pair(t);

	ks_tp_probes_unregister(t, pair->probe, ARRAY_SIZE(pair->probe));
	return 0;
}

static bool ks_tracepoint_pair_claims(const struct ks_trace_req *req)
{
	return req->method == KS_METHOD_TRACEPOINT;
}

const struct ks_method_ops ks_tracepoint_pair_ops = {
	.method = KS_METHOD_TRACEPOINT,
	.priv_size = sizeof(struct ks_tracepoint_pair),
	.starts = true,
	.claims = ks_tracepoint_pair_claims,
	.list = ks_section_list,
	.resolve = ks_tracepoint_pair_resolve,
	.attach = ks_tracepoint_pair_attach,
	.detach = ks_tracepoint_pair_detach,
};
