// SPDX-License-Identifier: GPL-2.0
/*
 * The hook engine: attaches kretprobes, fprobes, kprobe pairs and
 * tracepoint pairs at run time and records what they time.
 *
 * Function timing keeps the entry timestamp per call (kretprobe instance
 * data, fprobe entry data), so sleeping, recursing and migrating calls
 * are timed right. Sections between two probes keep the start per task in
 * a start table (starts.c). GAP-NAME gets the time from the end of one
 * call to the start of the next on the same CPU.
 *
 * All of kstats is built without ftrace hooks (see Kbuild), and a trace
 * of any address inside kstats is refused, so it never traces itself.
 */
#include <linux/debugfs.h>
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#if KS_RETHOOK_PERCPU_RING
#include <linux/objpool.h>
#endif
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "hist.h"
#include "hook.h"
#include "keys.h"
#include "names.h"
#include "starts.h"

/* What a timed call keeps from its entry to its return. */
struct ks_call {
	u64 ts;		/* entry, ns */
	u32 stack;	/* its kstack, for key kstack */
};

/* A kretprobe of a trace that may cover several functions. */
struct ks_krp {
	struct kretprobe rp;
	struct ks_trace *t;
};

struct ks_trace {
	struct list_head list;	/* on ks_traces: RCU, writers under ks_trace_lock */
	struct ks_trace_req req;	/* as written, with defaults applied */
	struct ks_funcs funcs;	/* the function(s) timed, for functions */
	unsigned long addr;	/* where the start probe sits, for "gone" */
	unsigned long end_addr;
	bool gone;		/* its module was unloaded */
	bool runq;		/* run-queue latency: keyed on the woken task */
	struct kstats *dur;
	struct kstats *gap;
	struct ks_keys *keys;	/* keyed rows and slowest samples, or NULL */
	struct dentry *key_node;	/* KEY-NAME */
	/* Where the probe's own frames end in a stack: start, end, new task. */
	struct ks_anchor anchor[3];
	u64 __percpu *last_end;	/* per CPU: end of the last call, 0: none */
	struct ks_starts *starts;	/* pairs only */
	/* Lost samples, by cause; ks_trace_missed() adds up the right ones. */
	atomic_long_t no_start;		/* an end found no start */
	atomic_long_t table_full;	/* a start found no room */
	atomic_long_t nested_start;	/* a start hit inside a kstats handler */
	atomic_long_t nested_end;	/* an end hit inside a kstats handler */
	atomic_long_t too_deep;		/* a start inside KS_STARTS_DEPTH open ones */
	atomic_long_t negative;		/* an end before its start */
	struct ks_krp *krps;	/* kretprobe: one per function */
	struct kretprobe **rps;	/* the same, as register_kretprobes() takes them */
	union {
#if KS_HAVE_FPROBE
		struct fprobe fp;
#endif
		struct {
			struct kprobe start;
			struct kprobe end;
		} kp;
		struct {
			struct tracepoint *start;
			struct tracepoint *end;
			void *start_fn;
			void *end_fn;
			/* Run-queue latency: sched_wakeup_new starts too. */
			struct tracepoint *new_task;
		} tp;
	};
};

/*
 * Serializes trace/remove/list and the module notifier. Taken before
 * ks_lock (in kstats_new/kstats_delete), never inside it.
 */
static DEFINE_MUTEX(ks_trace_lock);
static LIST_HEAD(ks_traces);
static struct tracepoint *ks_free_tp;

/* ---------------------------------------------------------------- record */

/* Per CPU, one flag per context slot (see ks_context_slot()). */
struct ks_guard {
	u8 busy[KS_CONTEXT_SLOTS];
};

static DEFINE_PER_CPU(struct ks_guard, ks_guard);

/*
 * Marks this CPU's context slot as inside a kstats handler. A probe hit
 * from inside one (kstats reads the clock through ktime_get_mono_fast_ns(),
 * which may itself be traced) is then neither timed nor lost silently: it
 * counts as missed, for every method, as kprobes already does for its own
 * handlers. An interrupt or NMI meanwhile has its own slot and is timed,
 * the end of an interrupt back at task level included (ks_context_slot()).
 * Handlers run with preemption off, so the flag stays on this CPU.
 *
 * Return: the flag to clear with ks_leave(), or NULL if already inside.
 */
static __always_inline u8 *ks_enter(void)
{
	u8 *busy = &this_cpu_ptr(&ks_guard)->busy[ks_context_slot()];

	if (READ_ONCE(*busy))
		return NULL;
	WRITE_ONCE(*busy, 1);
	barrier();
	return busy;
}

static __always_inline void ks_leave(u8 *busy)
{
	barrier();
	WRITE_ONCE(*busy, 0);
}

/* A sample lost: counted while the trace's node records (not stopped). */
static __always_inline void ks_lost(struct ks_trace *t, atomic_long_t *cause)
{
	if (READ_ONCE(t->dur->active))
		atomic_long_inc(cause);
}

static u64 notrace ks_now(void)
{
	return ktime_get_mono_fast_ns();
}

static void notrace ks_gap_begin(struct ks_trace *t, u64 now)
{
	u64 last = this_cpu_xchg(*t->last_end, 0);

	if (last && now >= last)
		kstats_record(t->gap, now - last);
}

static void notrace ks_gap_end(struct ks_trace *t, u64 now)
{
	this_cpu_write(*t->last_end, now);
}

/*
 * A sample of @task from @start to @now, with the stack ids of its start
 * and end for the keyed rows.
 */
static void notrace ks_record_span(struct ks_trace *t, struct task_struct *task,
				   u64 start, u64 now, u32 start_stack,
				   u32 end_stack)
{
	if (unlikely(now < start)) {
		ks_lost(t, &t->negative);
		return;
	}
	kstats_record(t->dur, now - start);
	if (t->keys && READ_ONCE(t->dur->active))
		ks_keys_record(t->keys, start_stack, end_stack, task,
			       now - start, now);
}

/*
 * The stack for key kstack (@part) or end-kstack, if the key has it, cut
 * at @at with the probed function's return address @ret (see ks_anchor).
 */
static u32 notrace ks_stack(struct ks_trace *t, enum ks_key_part part,
			    const struct ks_anchor *at, unsigned long ret)
{
	struct ks_anchor anchor;

	if (!ks_keys_has(t->keys, part))
		return 0;
	anchor = *at;
	anchor.ret = ret;
	return ks_keys_stack(t->keys, part, &anchor);
}

/*
 * A keyed stack is never part of the time it keys: a start captures its
 * stack before reading the clock, an end reads the clock before capturing
 * its stack (the unwinder takes microseconds).
 */
static void notrace ks_put_start(struct ks_trace *t, struct task_struct *task,
				 u64 now, u32 stack, bool replace)
{
	if (!ks_starts_put(t->starts, task, now, stack, replace))
		ks_lost(t, &t->table_full);
}

/*
 * A section belongs to its task and to the context level it runs at
 * (task, softirq, hardirq, NMI): an interrupt's sections never pair with
 * the task's it interrupted. task_struct is at least L1_CACHE_BYTES
 * aligned (kernel/fork.c), so the level fits in the pointer's low bits.
 */
static __always_inline const void *ks_section_key(struct task_struct *task,
						  unsigned int level)
{
	return (const void *)((unsigned long)task + level);
}

/*
 * A section of @task ends now, closing the innermost one open at this
 * context level; @ret is the end function's return address when the probe
 * is at its entry, else 0 (see ks_anchor).
 */
static void notrace ks_section_end(struct ks_trace *t, struct task_struct *task,
				   unsigned int level, unsigned long ret)
{
	u8 *busy;
	u64 now, start;
	u32 stack;

	/*
	 * Filtered out: neither a sample nor a miss. The cpu filter is on
	 * the CPU where the section starts: its end may be anywhere.
	 */
	if (!ks_filter_task(&t->req.filter, task))
		return;
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_end);
		return;
	}
	now = ks_now();
	if (ks_starts_take(t->starts, ks_section_key(task, level), &start, &stack))
		ks_record_span(t, task, start, now, stack,
			       ks_stack(t, KS_KEY_END_KSTACK, &t->anchor[1], ret));
	/* With a cpu filter, a missing start may be one it left out. */
	else if (!(t->req.filter.has & KS_FILTER_CPU))
		atomic_long_inc(&t->no_start);
	ks_gap_end(t, now);
	ks_leave(busy);
}

/*
 * A section of @task starts now, inside those still open at this level:
 * sections nest as calls do, up to KS_STARTS_DEPTH.
 */
static void notrace ks_section_start(struct ks_trace *t, struct task_struct *task,
				     unsigned int level, unsigned long ret)
{
	u8 *busy;
	u64 now;
	u32 stack;

	if (!ks_filter_task(&t->req.filter, task) ||
	    !ks_filter_cpu(&t->req.filter))
		return;
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_start);
		return;
	}
	stack = ks_stack(t, KS_KEY_KSTACK, &t->anchor[0], ret);
	now = ks_now();
	ks_gap_begin(t, now);
	switch (ks_starts_push(t->starts, ks_section_key(task, level), now, stack)) {
	case -E2BIG:
		ks_lost(t, &t->too_deep);
		break;
	case -ENOSPC:
		ks_lost(t, &t->table_full);
		break;
	}
	ks_leave(busy);
}

/* ------------------------------------------------------------- handlers */

/* A probed function's frame starts near its entry (past an ENDBR, a call to __fentry__). */
static void notrace ks_anchor_function(struct ks_anchor *a, unsigned long addr)
{
	a->lo = addr - 16;
	a->hi = addr + 32;
	a->keep = true;
	a->ret = 0;
}

/*
 * A call of the function at @func, returning to @ret, begins: what its
 * return needs goes to @call. False: not timed (filtered out, or a miss
 * already counted).
 */
static bool notrace ks_call_begin(struct ks_trace *t, struct ks_call *call,
				  unsigned long func, unsigned long ret)
{
	struct ks_anchor anchor;
	u8 *busy;

	if (!ks_filter_task(&t->req.filter, current) ||
	    !ks_filter_cpu(&t->req.filter))
		return false;
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_start);
		return false;
	}
	call->stack = 0;
	if (ks_keys_has(t->keys, KS_KEY_KSTACK)) {
		ks_anchor_function(&anchor, func);
		call->stack = ks_stack(t, KS_KEY_KSTACK, &anchor, ret);
	}
	/* After the unwind: see ks_put_start(). */
	call->ts = ks_now();
	ks_gap_begin(t, call->ts);
	ks_leave(busy);
	return true;
}

/* A timed call returns. */
static void notrace ks_call_end(struct ks_trace *t, const struct ks_call *call)
{
	u8 *busy = ks_enter();
	u64 now;

	if (!busy) {
		ks_lost(t, &t->nested_end);
		return;
	}
	now = ks_now();
	ks_record_span(t, current, call->ts, now, call->stack, 0);
	ks_gap_end(t, now);
	ks_leave(busy);
}

static int notrace ks_krp_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct ks_trace *t = container_of(rp, struct ks_krp, rp)->t;

	/* Non-zero: no return probe for this call. */
	return !ks_call_begin(t, (struct ks_call *)ri->data,
			      (unsigned long)rp->kp.addr,
			      ks_entry_return_address(regs));
}

static int notrace ks_krp_return(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	ks_call_end(container_of(get_kretprobe(ri), struct ks_krp, rp)->t,
		    (struct ks_call *)ri->data);
	return 0;
}

#if KS_HAVE_FPROBE
static KS_FPROBE_ENTRY(ks_fp_entry)
{
	struct ks_trace *t = container_of(fp, struct ks_trace, fp);

	return ks_call_begin(t, entry_data, entry_ip, ret_ip) ?
	       KS_FPROBE_ENTRY_OK : KS_FPROBE_ENTRY_SKIP;
}

static KS_FPROBE_EXIT(ks_fp_exit)
{
	ks_call_end(container_of(fp, struct ks_trace, fp), entry_data);
}
#endif

static int notrace ks_kp_start(struct kprobe *p, struct pt_regs *regs)
{
	ks_section_start(container_of(p, struct ks_trace, kp.start), current,
			 ks_kprobe_level(p), ks_entry_return_address(regs));
	return 0;
}

static int notrace ks_kp_end(struct kprobe *p, struct pt_regs *regs)
{
	ks_section_end(container_of(p, struct ks_trace, kp.end), current,
		       ks_kprobe_level(p), ks_entry_return_address(regs));
	return 0;
}

/*
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
static void notrace ks_tp_start(void *data)
{
	preempt_disable_notrace();
	ks_section_start(data, current, interrupt_context_level(), 0);
	preempt_enable_notrace();
}

static void notrace ks_tp_end(void *data)
{
	preempt_disable_notrace();
	ks_section_end(data, current, interrupt_context_level(), 0);
	preempt_enable_notrace();
}

/*
 * Run-queue latency, as bcc's runqlat defines it: the time a task waits
 * on a run queue, from the moment it becomes runnable while off CPU
 * (woken, or switched out still runnable) until it is switched in.
 *
 * A wakeup may fire for a task that is on a CPU: current waking itself
 * in try_to_wake_up(), or ttwu_runnable() for a task between
 * set_current_state() and schedule(). It waits on no run queue: no
 * start. A start can still be left for a task that then runs (a
 * sched_waking, which holds only p->pi_lock, racing the switch to p), so
 * every switch-out replaces or drops the task's start: no start survives
 * a run of its task to be ended by a later switch-in.
 */
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
	stack = ks_stack(t, KS_KEY_KSTACK, anchor, 0);
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
	u64 now, start;
	u32 stack;

	if (!busy) {
		ks_lost(t, &t->nested_end);
		return;
	}
	now = ks_now();
	/*
	 * No start: next ran before the trace began, its start was lost and
	 * counted, or the filters refused it. The cpu filter is on the run
	 * queue's CPU, this one: elsewhere the start still goes.
	 */
	if (!is_idle_task(next) && ks_filter_task(f, next) &&
	    ks_starts_take(t->starts, next, &start, &stack) &&
	    ks_filter_cpu(f)) {
		ks_record_span(t, next, start, now, stack,
			       ks_stack(t, KS_KEY_END_KSTACK, &t->anchor[1], 0));
		ks_gap_end(t, now);
	}
	if (is_idle_task(prev) || !ks_filter_task(f, prev)) {
		;
	} else if (preempt || task_is_running(prev)) {
		/*
		 * next's wait ended at now; with a key, prev's starts after
		 * next's row and prev's stack are done (see ks_put_start()).
		 */
		stack = ks_stack(t, KS_KEY_KSTACK, &t->anchor[1], 0);
		if (t->keys)
			now = ks_now();
		ks_put_start(t, prev, now, stack, true);
	} else {
		ks_starts_drop(t->starts, prev);
	}
	ks_leave(busy);
}

struct ks_typed_pair {
	const char *start;
	const char *end;
	void *start_fn;
	void *end_fn;
};

static const struct ks_typed_pair ks_typed_pairs[] = {
	{ "sched_wakeup", "sched_switch", ks_tp_wakeup, ks_tp_switch },
	{ "sched_waking", "sched_switch", ks_tp_waking, ks_tp_switch },
	{ "sched_wakeup_new", "sched_switch", ks_tp_wakeup, ks_tp_switch },
};

/*
 * A task freed with a section open would leave a start whose key a new
 * task_struct could reuse. sched_process_free fires just before the free,
 * after everything the task could still start (even SIGCHLD in exit).
 */
static void notrace ks_tp_task_free(void *data, struct task_struct *p)
{
	struct ks_trace *t;

	/* Under SRCU-fast (7.x) a probe is no RCU reader: see ks_tp_start(). */
	rcu_read_lock();
	list_for_each_entry_rcu(t, &ks_traces, list) {
		unsigned long level;

		/* A run-queue key is the task; a section's adds its level. */
		for (level = 0; t->starts && level < 4; level++)
			ks_starts_drop(t->starts,
				       (const void *)((unsigned long)p + level));
	}
	rcu_read_unlock();
}

/* Probing kstats' own handlers would recurse. */
NOKPROBE_SYMBOL(ks_krp_entry);
NOKPROBE_SYMBOL(ks_krp_return);
NOKPROBE_SYMBOL(ks_kp_start);
NOKPROBE_SYMBOL(ks_kp_end);
#if KS_HAVE_FPROBE
NOKPROBE_SYMBOL(ks_fp_entry);
NOKPROBE_SYMBOL(ks_fp_exit);
#endif

/* ------------------------------------------------------ attach, detach */

static int ks_attach_kretprobe(struct ks_trace *t)
{
	unsigned int i, n = t->funcs.n;
	struct ks_krp *krps;
	int err;

	krps = kcalloc(n, sizeof(*krps), GFP_KERNEL);
	t->rps = kcalloc(n, sizeof(*t->rps), GFP_KERNEL);
	if (!krps || !t->rps) {
		kfree(krps);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct kretprobe *rp = &krps[i].rp;

		krps[i].t = t;
		rp->kp.symbol_name = t->funcs.names[i];
		rp->entry_handler = ks_krp_entry;
		rp->handler = ks_krp_return;
		rp->data_size = sizeof(struct ks_call);
		rp->maxactive = t->req.maxactive;
		t->rps[i] = rp;
	}
	/* The nodes are already readable: see ks_probe_missed(). */
	smp_store_release(&t->krps, krps);
	err = register_kretprobes(t->rps, n);
	if (err)
		return err;
	/* Where the probes went, even if two functions share a name. */
	for (i = 0; i < n; i++)
		t->funcs.addrs[i] = (unsigned long)t->krps[i].rp.kp.addr;
	t->addr = t->funcs.addrs[0];
	return 0;
}

#if KS_HAVE_FPROBE
/*
 * At the address kprobes resolved (past an ENDBR, on the ftrace call
 * site), so "gone" watches the very function the fprobe is on, even
 * where two functions share the name.
 */
static int ks_attach_fprobe(struct ks_trace *t)
{
	t->fp.entry_handler = ks_fp_entry;
	t->fp.exit_handler = ks_fp_exit;
	t->fp.entry_data_size = sizeof(struct ks_call);
	ks_fprobe_set_maxactive(&t->fp, t->req.maxactive);
	return register_fprobe_ips(&t->fp, t->funcs.addrs, t->funcs.n);
}
#else
static int ks_attach_fprobe(struct ks_trace *t)
{
	return -EOPNOTSUPP;
}
#endif

/* A function: fprobe if asked or possible, else kretprobe. */
static int ks_attach_function(struct ks_trace *t)
{
	int err;

	/* Without CONFIG_FPROBE the default is simply a kretprobe. */
	if (t->req.method == KS_METHOD_FPROBE ||
	    (KS_HAVE_FPROBE && t->req.method == KS_METHOD_DEFAULT)) {
		err = ks_attach_fprobe(t);
		if (!err) {
			t->req.method = KS_METHOD_FPROBE;
			return 0;
		}
		if (t->funcs.pattern) {
			ks_err_ratelimited("trace %s: fprobe on the %u functions %s matches failed (%d)%s\n",
					   t->req.name, t->funcs.n, t->funcs.pattern, err,
					   err == -EINVAL || err == -ENOENT ?
					   ": has a module of theirs gone away?" : "");
			return err;
		}
		if (t->req.method == KS_METHOD_FPROBE) {
			ks_err_ratelimited("trace %s: fprobe unavailable for %s (%d)%s\n",
					   t->req.name, t->req.start, err,
					   KS_HAVE_FPROBE ? ": no ftrace site?" :
					   ": " KS_FPROBE_MISSING);
			return err == -ENOMEM ? err : -EOPNOTSUPP;
		}
		pr_info("trace %s: no fprobe for %s (%d), using a kretprobe\n",
			t->req.name, t->req.start, err);
	}
	t->req.method = KS_METHOD_KRETPROBE;
	err = ks_attach_kretprobe(t);
	if (err)
		pr_err("trace %s: register_kretprobes(%s) failed: %d\n",
		       t->req.name, t->req.start, err);
	return err;
}

/* A tracepoint's frames: up to its iterator, when it has more than one probe. */
static void ks_anchor_tracepoint(struct ks_anchor *a, struct tracepoint *tp)
{
	a->keep = false;
	if (tp && ks_symbol_range((unsigned long)tp->iterator, &a->lo, &a->hi))
		return;
	a->lo = 0;
	a->hi = 0;
}

static int ks_attach_kprobes(struct ks_trace *t)
{
	struct kprobe *kps[] = { &t->kp.start, &t->kp.end };
	int err;

	/* Before the probes can fire; kprobes may move them past an ENDBR. */
	ks_anchor_function(&t->anchor[0], t->addr);
	ks_anchor_function(&t->anchor[1], t->end_addr);
	t->kp.start.symbol_name = t->req.start;
	t->kp.start.pre_handler = ks_kp_start;
	t->kp.end.symbol_name = t->req.end;
	t->kp.end.pre_handler = ks_kp_end;
	err = register_kprobes(kps, ARRAY_SIZE(kps));
	if (err) {
		pr_err("trace %s: register_kprobes failed: %d\n",
		       t->req.name, err);
		return err;
	}
	t->addr = (unsigned long)t->kp.start.addr;
	t->end_addr = (unsigned long)t->kp.end.addr;
	return 0;
}

static int ks_attach_tracepoints(struct ks_trace *t)
{
	const char *start = t->req.start + strlen(KS_TP_PREFIX);
	const char *end = t->req.end + strlen(KS_TP_PREFIX);
	int i, err;

	t->tp.start_fn = ks_tp_start;
	t->tp.end_fn = ks_tp_end;
	for (i = 0; i < ARRAY_SIZE(ks_typed_pairs); i++) {
		if (!strcmp(ks_typed_pairs[i].start, start) &&
		    !strcmp(ks_typed_pairs[i].end, end)) {
			t->tp.start_fn = ks_typed_pairs[i].start_fn;
			t->tp.end_fn = ks_typed_pairs[i].end_fn;
			t->runq = true;
		}
	}
	/* As runqlat: a new task's first wait starts at sched_wakeup_new. */
	if (t->runq && strcmp(start, "sched_wakeup_new"))
		t->tp.new_task = ks_find_tracepoint("sched_wakeup_new");
	ks_anchor_tracepoint(&t->anchor[0], t->tp.start);
	ks_anchor_tracepoint(&t->anchor[1], t->tp.end);
	ks_anchor_tracepoint(&t->anchor[2], t->tp.new_task);
	err = tracepoint_probe_register(t->tp.start, t->tp.start_fn, t);
	if (err)
		goto err_msg;
	if (t->tp.new_task) {
		err = tracepoint_probe_register(t->tp.new_task, ks_tp_wakeup_new,
						t);
		if (err)
			goto err_start;
	}
	err = tracepoint_probe_register(t->tp.end, t->tp.end_fn, t);
	if (err)
		goto err_new_task;
	return 0;
err_new_task:
	if (t->tp.new_task)
		tracepoint_probe_unregister(t->tp.new_task, ks_tp_wakeup_new, t);
err_start:
	tracepoint_probe_unregister(t->tp.start, t->tp.start_fn, t);
	tracepoint_synchronize_unregister();
err_msg:
	pr_err("trace %s: tracepoint_probe_register failed: %d\n",
	       t->req.name, err);
	return err;
}

/*
 * After this returns 0 no handler of @t runs or will run. Only
 * unregister_fprobe() can fail (ftrace shut down): @t must then be kept.
 */
static int ks_detach(struct ks_trace *t)
{
	struct kprobe *kps[] = { &t->kp.start, &t->kp.end };

	switch (t->req.method) {
	case KS_METHOD_KRETPROBE:
		/* Returns still pending no longer reach our handler. */
		unregister_kretprobes(t->rps, t->funcs.n);
		break;
#if KS_HAVE_FPROBE
	case KS_METHOD_FPROBE:
		return unregister_fprobe(&t->fp);
#endif
	case KS_METHOD_KPROBE:
		unregister_kprobes(kps, ARRAY_SIZE(kps));
		break;
	case KS_METHOD_TRACEPOINT:
		tracepoint_probe_unregister(t->tp.start, t->tp.start_fn, t);
		if (t->tp.new_task)
			tracepoint_probe_unregister(t->tp.new_task,
						    ks_tp_wakeup_new, t);
		tracepoint_probe_unregister(t->tp.end, t->tp.end_fn, t);
		tracepoint_synchronize_unregister();
		break;
	default:
		break;
	}
	return 0;
}

/* Finds what a trace hooks into, without attaching anything. */
/*
 * A pattern needs fprobe: refused before its functions are looked for,
 * whatever it matches, once its grammar is known to be right.
 */
static int ks_pattern_method(struct ks_trace *t)
{
	const char *spec = t->req.start;
	int err;

	if (!strpbrk(spec, "*?["))
		return 0;
	err = ks_pattern_check(t->req.name, spec);
	if (err)
		return err;
	if (t->req.method == KS_METHOD_KRETPROBE) {
		ks_err_ratelimited("trace %s: a pattern needs fprobe; list the functions for method kretprobe (f1,f2,...)\n",
				   t->req.name);
		return -EOPNOTSUPP;
	}
	if (!KS_HAVE_FPROBE) {
		ks_err_ratelimited("trace %s: a pattern needs fprobe (%s); list the functions instead (f1,f2,..., e.g. from /sys/kernel/tracing/available_filter_functions)\n",
				   t->req.name, KS_FPROBE_MISSING);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int ks_trace_resolve(struct ks_trace *t)
{
	const char *start = t->req.start + strlen(KS_TP_PREFIX);
	const char *end = t->req.end + strlen(KS_TP_PREFIX);
	int err;

	if (t->req.method == KS_METHOD_KPROBE) {
		err = ks_resolve(t->req.name, t->req.start, &t->addr);
		if (!err)
			err = ks_resolve(t->req.name, t->req.end, &t->end_addr);
		return err;
	}
	if (t->req.method != KS_METHOD_TRACEPOINT) {
		err = ks_pattern_method(t);
		if (err)
			return err;
		err = ks_funcs_resolve(t->req.name, t->req.start, &t->funcs);
		t->addr = t->funcs.addrs ? t->funcs.addrs[0] : 0;
		return err;
	}
	t->tp.start = ks_find_tracepoint(start);
	t->tp.end = ks_find_tracepoint(end);
	if (!t->tp.start || !t->tp.end) {
		ks_err_ratelimited("trace %s: no tracepoint %s in the kernel\n",
				   t->req.name, t->tp.start ? end : start);
		return -ENOENT;
	}
	return 0;
}

/* What the kernel's probe itself lost: not fired, or no instance free. */
static unsigned long ks_probe_missed(struct ks_trace *t)
{
	const struct ks_krp *krps;
	unsigned long missed = 0;
	unsigned int i;

	switch (t->req.method) {
	case KS_METHOD_KRETPROBE:
		/*
		 * NULL until ks_attach_kretprobe(): a trace's nodes appear
		 * before its probes, and a reader may come in between.
		 */
		krps = smp_load_acquire(&t->krps);
		for (i = 0; krps && i < t->funcs.n; i++)
			missed += krps[i].rp.nmissed + krps[i].rp.kp.nmissed;
		return missed;
#if KS_HAVE_FPROBE
	case KS_METHOD_FPROBE:
		/* fprobe counts without atomics: approximate under contention. */
		return t->fp.nmissed;
#endif
	case KS_METHOD_KPROBE:
		return t->kp.start.nmissed + t->kp.end.nmissed;
	default:
		return 0;
	}
}

/*
 * Samples lost, each counted once, where it is lost: a probe that did
 * not fire, a start with no room, a hit inside a kstats handler, an end
 * before its start. An end that finds no start (no_start) is not among
 * them: its section began before the trace did, or the pair's functions
 * do not always come in pairs (a write without a read); and a start
 * that was lost has already been counted.
 */
static unsigned long ks_trace_missed(struct ks_trace *t)
{
	return ks_probe_missed(t) + atomic_long_read(&t->table_full) +
	       atomic_long_read(&t->too_deep) +
	       atomic_long_read(&t->nested_start) +
	       atomic_long_read(&t->nested_end) +
	       atomic_long_read(&t->negative);
}

/* ks_trace_missed() as the nodes' "missed" callback. */
static unsigned long ks_trace_missed_cb(void *arg)
{
	return ks_trace_missed(arg);
}

/* The '#' line of a trace's nodes: the missed count and its causes. */
static void ks_trace_show_missed(struct seq_file *m, void *arg)
{
	struct ks_trace *t = arg;

	seq_printf(m, "# trace %s method %s missed %lu (probe %lu table_full %ld nested %ld depth %ld negative %ld) no_start %ld%s\n",
		   t->req.name, ks_method_name(t->req.method),
		   ks_trace_missed(t), ks_probe_missed(t),
		   atomic_long_read(&t->table_full),
		   atomic_long_read(&t->nested_start) +
		   atomic_long_read(&t->nested_end),
		   atomic_long_read(&t->too_deep),
		   atomic_long_read(&t->negative),
		   atomic_long_read(&t->no_start), t->gone ? " gone" : "");
}

#if KS_HAVE_FPROBE && !KS_FPROBE_POOL
/*
 * An fprobe on the function-graph tracer (6.14+) keeps each call's data on
 * the task's shadow stack, which fgraph gives every task once any fgraph
 * user is active, and shares: not this trace's. What is its own is one
 * hash node per address.
 */
static size_t ks_fprobe_bytes(const struct ks_trace *t)
{
	const struct fprobe_hlist *h = t->fp.hlist_array;

	return h ? struct_size(h, array, h->size) : 0;
}
#else
static size_t ks_fprobe_bytes(const struct ks_trace *t)
{
	return 0;
}
#endif

#if KS_RETHOOK_PERCPU_RING
/*
 * A return-probe pool of @nr instances of @size bytes on objpool (6.7+):
 * each possible CPU has one vmalloc area, whole pages, holding a ring of
 * roundup_pow_of_two(@nr) pointers and its share of the instances
 * (lib/objpool.c); then the array of those areas and the rethook.
 */
static size_t ks_pool_bytes(unsigned int nr, size_t size)
{
	size_t cpus = num_possible_cpus(), ring = roundup_pow_of_two(nr);
	size_t bytes = 0, i;

	size = ALIGN(size, sizeof(long));
	for (i = 0; i < cpus; i++) {
		size_t nodes = nr / cpus + (i < nr % cpus);

		bytes += PAGE_ALIGN(sizeof(struct objpool_slot) +
				    ring * sizeof(void *) + size * nodes);
	}
	return bytes + kmalloc_size_roundup(nr_cpu_ids * sizeof(void *)) +
	       kmalloc_size_roundup(sizeof(struct rethook));
}
#else
/* Before 6.7: @nr instances, each its own kmalloc, on a free list. */
static size_t ks_pool_bytes(unsigned int nr, size_t size)
{
	return nr * kmalloc_size_roundup(size) +
	       kmalloc_size_roundup(sizeof(struct rethook));
}
#endif

/*
 * Bytes a trace holds: its histograms, start table and per-CPU state,
 * and the pool of return-probe instances the kernel keeps for it
 * (computed from the kernel's own layout: see KS_RETHOOK_PERCPU_RING).
 */
static size_t ks_trace_bytes(const struct ks_trace *t)
{
	size_t cpus = num_possible_cpus();
	/* A histogram has its second bank once its interval file is read. */
	size_t bytes = sizeof(*t) + ks_hist_bytes(t->dur) +
		       ks_hist_bytes(t->gap) + cpus * sizeof(u64) +
		       ks_starts_bytes(t->starts);
	size_t inst = 0, pool = 0;

	if (t->req.method == KS_METHOD_KRETPROBE)
		inst = sizeof(struct kretprobe_instance) + sizeof(struct ks_call);
	else if (t->req.method == KS_METHOD_FPROBE && KS_FPROBE_POOL)
		/* fprobe's private node: a rethook_node, two ips, our data. */
		inst = sizeof(struct rethook_node) + 2 * sizeof(long) +
		       sizeof(struct ks_call);
	else if (t->req.method == KS_METHOD_FPROBE)
		/* No pool: the hash nodes of its addresses (see ks_fprobe_bytes()). */
		pool = ks_fprobe_bytes(t);
	if (inst)
		pool = ks_pool_bytes(t->req.maxactive, inst);
	/* One fprobe for all functions, but a kretprobe, and pool, each. */
	if (t->req.method == KS_METHOD_KRETPROBE)
		pool = t->funcs.n * (pool + sizeof(struct ks_krp) + sizeof(void *));
	return bytes + pool + t->funcs.n * sizeof(unsigned long) +
	       ks_keys_bytes(t->keys);
}

/**
 * ks_default_maxactive() - instances in flight when the line sets none
 *
 * Two per possible CPU, like the kernel's own kretprobe default, within
 * 64..KS_MAXACTIVE_DEFAULT_MAX. The cap keeps the kernel's per-CPU rings
 * (6.7+) under 8 KiB per possible CPU, where a default growing with the
 * CPU count would make them grow with its square.
 */
static unsigned int ks_default_maxactive(void)
{
	return clamp(2 * num_possible_cpus(), 64U, KS_MAXACTIVE_DEFAULT_MAX);
}

static void ks_trace_free(struct ks_trace *t)
{
	/* Waits for readers of KEY-NAME, which use t->keys. */
	debugfs_remove(t->key_node);
	ks_keys_free(t->keys);
	kstats_delete(t->gap);
	kstats_delete(t->dur);
	ks_starts_free(t->starts);
	kfree(t->rps);
	kfree(t->krps);
	ks_funcs_free(&t->funcs);
	free_percpu(t->last_end);
	kfree(t);
}

static struct ks_trace *ks_trace_find(const char *name)
{
	struct ks_trace *t;

	list_for_each_entry(t, &ks_traces, list)
		if (!strcmp(t->req.name, name))
			return t;
	return NULL;
}

static struct kstats *ks_trace_node(struct ks_trace *t, const char *prefix)
{
	/* The parser keeps prefix and name within KSTATS_NAME_MAX. */
	char name[sizeof(KS_GAP_PREFIX) + sizeof(t->req.name)];
	char who[sizeof("trace ") + sizeof(t->req.name)];

	snprintf(name, sizeof(name), "%s%s", prefix, t->req.name);
	snprintf(who, sizeof(who), "trace %s", t->req.name);
	return ks_create(who, name, t->req.bits, ks_trace_show_missed,
			 ks_trace_missed_cb, t);
}

/**
 * ks_trace_add() - attach a trace as described by a _control line
 * @req: the parsed line
 *
 * Creates NAME and GAP-NAME, then attaches the probes. On failure nothing
 * is left behind and dmesg has the reason.
 *
 * Context: process context; may sleep.
 * Return: 0; -EEXIST for a name in use; -ENOENT for an unknown symbol or
 * tracepoint; -EINVAL for an address that cannot be probed (kprobe
 * blacklist, kstats itself) or a bad name; -EOPNOTSUPP for method fprobe
 * where the kernel or function has none; -ENOMEM.
 */
int ks_trace_add(const struct ks_trace_req *req)
{
	struct ks_trace *t;
	int err;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->req = *req;
	if (!t->req.maxactive)
		t->req.maxactive = ks_default_maxactive();
	t->last_end = alloc_percpu(u64);
	if (!t->last_end)
		goto err_nomem;
	if (req->keys.n_parts || req->keys.slowest) {
		t->keys = ks_keys_alloc(&req->keys);
		if (!t->keys)
			goto err_nomem;
	}
	if (req->method == KS_METHOD_KPROBE ||
	    req->method == KS_METHOD_TRACEPOINT) {
		t->starts = ks_starts_alloc(t->req.maxactive);
		if (!t->starts)
			goto err_nomem;
	}

	if ((req->filter.has & KS_FILTER_CPU) && req->filter.cpu >= nr_cpu_ids) {
		ks_err_ratelimited("trace %s: cpu %u: this machine's CPUs are 0..%u\n",
				   req->name, req->filter.cpu, nr_cpu_ids - 1);
		ks_trace_free(t);
		return -EINVAL;
	}
	/*
	 * Refuse unknown or unprobeable symbols before any node appears;
	 * without ks_trace_lock, which the module notifier needs: resolving
	 * waits for grace periods.
	 */
	err = ks_trace_resolve(t);
	if (err) {
		ks_trace_free(t);
		return err;
	}
	mutex_lock(&ks_trace_lock);
	if (ks_trace_find(req->name)) {
		ks_err_ratelimited("trace %s: already traced\n", req->name);
		err = -EEXIST;
		goto err_unlock;
	}
	t->dur = ks_trace_node(t, "");
	if (IS_ERR(t->dur)) {
		err = PTR_ERR(t->dur);
		t->dur = NULL;
		goto err_unlock;
	}
	t->gap = ks_trace_node(t, KS_GAP_PREFIX);
	if (IS_ERR(t->gap)) {
		err = PTR_ERR(t->gap);
		t->gap = NULL;
		goto err_unlock;
	}
	if (t->keys) {
		char name[sizeof(KS_KEY_PREFIX) + sizeof(t->req.name)];
		char who[sizeof("trace ") + sizeof(t->req.name)];

		snprintf(name, sizeof(name), "%s%s", KS_KEY_PREFIX, t->req.name);
		snprintf(who, sizeof(who), "trace %s", t->req.name);
		t->key_node = ks_create_text(who, name, &ks_keys_fops,
					     t->keys);
		if (IS_ERR(t->key_node)) {
			err = PTR_ERR(t->key_node);
			t->key_node = NULL;
			goto err_unlock;
		}
	}

	switch (t->req.method) {
	case KS_METHOD_KPROBE:
		err = ks_attach_kprobes(t);
		break;
	case KS_METHOD_TRACEPOINT:
		err = ks_attach_tracepoints(t);
		break;
	default:
		err = ks_attach_function(t);
		break;
	}
	if (err)
		goto err_unlock;
	if (t->req.method == KS_METHOD_FPROBE && !KS_FPROBE_POOL) {
		/* Calls wait on the task's shadow stack: there is no pool to size. */
		if (req->maxactive)
			pr_info("trace %s: maxactive %u does not apply: fprobe on this kernel has no instance pool\n",
				t->req.name, req->maxactive);
		t->req.maxactive = 0;
	}
	list_add_tail_rcu(&t->list, &ks_traces);
	mutex_unlock(&ks_trace_lock);
	pr_info("trace %s: attached with %s to %s%s%s\n", t->req.name,
		ks_method_name(t->req.method), t->req.start,
		t->req.end[0] ? " .. " : "", t->req.end);
	return 0;

err_unlock:
	mutex_unlock(&ks_trace_lock);
	ks_trace_free(t);
	return err;
err_nomem:
	ks_trace_free(t);
	return -ENOMEM;
}

/*
 * Detaches @t, already off ks_traces, and frees it. Without ks_trace_lock
 * on remove: the kernel's unregistration waits for grace periods, which a
 * CPU taken by a real-time task can hold back for as long as it runs.
 */
static void ks_trace_destroy(struct ks_trace *t)
{
	int err;

	err = ks_detach(t);
	/* ks_tp_task_free() walks ks_traces under RCU. */
	synchronize_rcu();
	if (err) {
		/*
		 * Its handlers may still be called: keep it, and kstats with
		 * it, for good. The nodes stay, stopped, under their names.
		 */
		pr_err("trace %s: cannot detach (%d); keeping it, and kstats loaded\n",
		       t->req.name, err);
		WRITE_ONCE(t->dur->active, false);
		WRITE_ONCE(t->gap->active, false);
		__module_get(THIS_MODULE);
		return;
	}
	pr_info("trace %s: removed, %lu missed\n", t->req.name,
		ks_trace_missed(t));
	ks_trace_free(t);
}

/**
 * ks_trace_remove() - detach a trace and remove its nodes
 * @name: the trace's NAME
 *
 * Calls still pending give no sample.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOENT if nothing is traced under @name.
 */
int ks_trace_remove(const char *name)
{
	struct ks_trace *t;

	mutex_lock(&ks_trace_lock);
	t = ks_trace_find(name);
	if (t)
		list_del_rcu(&t->list);
	mutex_unlock(&ks_trace_lock);
	if (!t) {
		ks_err_ratelimited("remove %s: no such trace\n", name);
		return -ENOENT;
	}
	ks_trace_destroy(t);
	return 0;
}

/**
 * ks_trace_list() - print one line per trace, for reading _control
 * @m: the output
 */
void ks_trace_list(struct seq_file *m)
{
	struct ks_trace *t;

	mutex_lock(&ks_trace_lock);
	list_for_each_entry(t, &ks_traces, list) {
		const struct ks_filter *f = &t->req.filter;
		char key[96];

		ks_key_spec_print(key, sizeof(key), &t->req.keys);
		/* functions: a pair has 2 points. */
		seq_printf(m, "%s method %s bits %u start %s end %s functions %u skipped %u maxactive %u memory %zu missed %lu key %s keys %u other %lu slowest %u",
			   t->req.name, ks_method_name(t->req.method),
			   t->req.bits, t->req.start,
			   t->req.end[0] ? t->req.end : "-",
			   t->funcs.n ? t->funcs.n : 2,
			   t->funcs.skipped,
			   t->req.maxactive, ks_trace_bytes(t),
			   ks_trace_missed(t), key,
			   t->req.keys.n_parts ? t->req.keys.rows : 0,
			   ks_keys_other(t->keys), t->req.keys.slowest);
		if (f->has & KS_FILTER_PID)
			seq_printf(m, " pid %d", f->pid);
		if (f->has & KS_FILTER_TGID)
			seq_printf(m, " tgid %d", f->tgid);
		if (f->has & KS_FILTER_COMM) {
			seq_puts(m, " comm ");
			seq_escape(m, f->comm, " \t\n\\");
		}
		if (f->has & KS_FILTER_CPU)
			seq_printf(m, " cpu %u", f->cpu);
		seq_printf(m, "%s\n", t->gone ? " gone" : "");
	}
	mutex_unlock(&ks_trace_lock);
}

/* Does any probe of @t sit in @mod? */
static bool ks_trace_within(struct ks_trace *t, struct module *mod)
{
	unsigned int i;

	for (i = 0; i < t->funcs.n; i++)
		if (within_module(t->funcs.addrs[i], mod))
			return true;
	return within_module(t->addr, mod) || within_module(t->end_addr, mod);
}

/* Marks traces whose functions go away with a module. */
static int ks_module_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct module *mod = data;
	struct ks_trace *t;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&ks_trace_lock);
	list_for_each_entry(t, &ks_traces, list) {
		if (!ks_trace_within(t, mod))
			continue;
		t->gone = true;
		/*
		 * kprobes disarms its own probes of a module going away. An
		 * fprobe's address stays in its ftrace filter and would fire
		 * again for whatever code a later module puts there.
		 */
#if KS_HAVE_FPROBE
		if (t->req.method == KS_METHOD_FPROBE)
			disable_fprobe(&t->fp);
#endif
	}
	mutex_unlock(&ks_trace_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ks_module_nb = {
	.notifier_call = ks_module_notify,
};

int ks_hook_init(void)
{
	int err;

	err = register_module_notifier(&ks_module_nb);
	if (err)
		return err;
	ks_free_tp = ks_find_tracepoint("sched_process_free");
	if (ks_free_tp &&
	    tracepoint_probe_register(ks_free_tp, ks_tp_task_free, NULL))
		ks_free_tp = NULL;
	if (!ks_free_tp)
		pr_warn("no sched_process_free tracepoint: sections left open by exiting tasks stay in the start tables\n");
	return 0;
}

/* Detaches every trace, as rmmod kstats must. */
void ks_hook_exit(void)
{
	struct ks_trace *t, *tmp;

	mutex_lock(&ks_trace_lock);
	list_for_each_entry_safe(t, tmp, &ks_traces, list) {
		list_del_rcu(&t->list);
		ks_trace_destroy(t);
	}
	mutex_unlock(&ks_trace_lock);
	if (ks_free_tp) {
		tracepoint_probe_unregister(ks_free_tp, ks_tp_task_free, NULL);
		tracepoint_synchronize_unregister();
	}
	unregister_module_notifier(&ks_module_nb);
}
