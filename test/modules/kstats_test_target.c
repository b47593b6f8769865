// SPDX-License-Identifier: GPL-2.0
/*
 * Functions of known duration for the _control tests to trace, driven by
 * writes to /sys/kernel/debug/kstats_test_target, one command per write:
 *
 *	delay US N		N calls of kst_target_delay(): spins US
 *	recurse DEPTH US N	N calls of kst_target_recurse(): DEPTH nested
 *				calls, each spinning US plus its callees
 *	sleep US N		N calls of kst_target_sleep(): usleep_range(US)
 *	migrate US N		N calls of kst_target_migrate(), which moves
 *				the task to another CPU, then spins US
 *	path P US N		N calls of kst_target_delay(US) from
 *				kst_path_P(), P in 1..5: five call paths
 *	oncpu C US N		the same as delay, on CPU C
 *	section US N		kst_section_begin(); spin US; kst_section_end()
 *	pair SE US N		the same, kst_section_begin() called from
 *				kst_begin_site_S() and kst_section_end() from
 *				kst_end_site_E(), S and E in 1..2 (SE: 12)
 *	section_sleep US N	the same with usleep_range(US) in between
 *	end_only N		N calls of kst_section_end() alone
 *	stale OPEN MS N		in one task: OPEN calls of kst_section_begin()
 *				alone, msleep(MS), N sections of 100 us
 *				(timed by the caller), then kst_section_begin(),
 *				msleep(MS), kst_section_end()
 *	deep DEPTH US N		N rounds of DEPTH nested sections, 1..16:
 *				each kst_section_begin(), spin US, the
 *				inner one, spin US, kst_section_end(): the
 *				section at depth K (from 1) holds
 *				2 (DEPTH - K + 1) spins
 *	leftout US N		N rounds of a section kst_ret_long(1, 0) to
 *				kst_section_end() around another from
 *				kst_ret_long(0, 0), which "if arg0:u32&1"
 *				leaves out: spin US, the inner one
 *				(holding a spin of US), spin 3 US; the
 *				outer holds 5 spins, the inner 1
 *	nest OUT IN N		kst_section_begin(); spin OUT; the same
 *				section of IN inside it; kst_section_end():
 *				two nested sections, of OUT+IN and IN
 *	irqend US N		a section of US whose task, half way, is
 *				interrupted by a HARD hrtimer that calls
 *				kst_section_end() (an end in hardirq)
 *	irqsection US N		the same, the hrtimer running a whole
 *				section of 5 us of its own
 *	mixed US N		kst_section_begin(); spin US;
 *				kst_target_notrace(): a section from a
 *				function with an ftrace site to one without
 *	gap US N		N calls of kst_target_delay(0) on one CPU,
 *				US apart
 *	notrace N		N calls of kst_target_notrace(), no ftrace site
 *	alias N			N calls of kst_alias_null(), an alias of
 *				kst_impl_null(), ftrace's name for the site
 *	bench N			N calls of kst_target_null(); reading the file
 *				then gives "bench N ns T"
 *	bench_pair N		N calls of kst_section_begin(), kst_section_end()
 *	bench_obj N		N calls of kst_obj_begin(A), kst_obj_end(A)
 *	bench_ret N		N calls of kst_ret_long(i, 1000 i)
 *	timed N GAP_US		N calls of kst_target_null(), GAP_US apart (0:
 *				back to back), each timed by the caller on
 *				CLOCK_MONOTONIC; reading the file then gives
 *				"timed N p50 NS p90 NS total NS", as the seed's
 *				overhead table reported a module function
 *	timed N GAP_US 1	the same, each call followed by a timed call
 *				of kst_target_twin(); the line ends
 *				"twin_p50 NS twin_p90 NS"
 *	offcpu_thread US N	N waits of the writer on a completion in
 *				kst_wait_thread() (uninterruptible), each
 *				completed by a kthread in kst_wake_thread(),
 *				US after it saw the writer off CPU, asleep
 *	offcpu_timer US N	the same, kst_wait_timer() woken by a HARD
 *				hrtimer in kst_wake_timer() (hardirq)
 *	offcpu_sleep US N	the same as offcpu_thread, interruptible:
 *				kst_wait_sleep(), woken in kst_wake_sleep()
 *	offcpu_idle US N	the same as offcpu_thread, in TASK_IDLE
 *				(uninterruptible, not counted in the load,
 *				not D in ps): kst_wait_idle()
 *	objs US N		N rounds of two sections matched on an
 *				object: kst_obj_begin(A), kst_obj_begin(B),
 *				spin US, kst_obj_end(A) in the task, then
 *				kst_obj_end2(0, B) from a HARD hrtimer US
 *				later (hardirq): A >= US, B >= 2 US
 *	objnest US N		N rounds of two sections nested on objects
 *				A = 2 and B = 3: begin A, spin US, begin B,
 *				spin US, end B, spin US, end A; reading the
 *				file then gives "objnest N sum_a NS sum_b NS",
 *				the caller's measure of each summed
 *	objbegin I		kst_obj_begin(object I), I in 0..7
 *	objpair I		kst_obj_begin(object I), kst_obj_end(object I)
 *	objend I		kst_obj_end(object I)
 *	objmiss N		N starts on object 4, kst_obj_begin(); the
 *				end of each even one, kst_obj_end(), is
 *				called from the handler of the module's own
 *				kprobe on kst_miss_site(), where a kprobe on
 *				kst_obj_end() is missed (its nmissed); the
 *				odd ones end as usual
 *	objnt N			N sections on object 5 between two functions
 *				without an ftrace site (kprobes there use
 *				int3): kst_obj_begin_nt(), kst_obj_end_nt()
 *	gapif US N		on one CPU, N sections kst_ret_long(i, 0) to
 *				kst_section_end(), i from 0, US apart: "if
 *				arg0:u32&1" admits every other one, whose
 *				GAP spans two spins; the caller measures
 *				from each odd end's call to the return of
 *				the next odd start
 *	retmigrate N		N calls of kst_ret_migrate(), which moves the
 *				task to another CPU and returns 1: each call
 *				returns on another CPU than its entry's
 *	pingpong US N		two kthreads kst_pp on one CPU, both
 *				SCHED_FIFO at one priority (no wakeup
 *				preempts): each runs US, wakes the other and
 *				sleeps, N times, then exits
 *	ret N			N calls kst_ret_long(i, 1000 i), i from 0,
 *				which returns -EAGAIN for i % 4 == 0, -ENOENT
 *				for i % 4 == 1, else 1000 i; and as many of
 *				kst_ret_int(i), an int function that
 *				returns the same for i % 4 < 2, else i
 *	btfret N		N calls of vmlinux's kern_path(), an int
 *				function that BTF types: of a path that does
 *				not exist (-ENOENT) for i % 4 == 0, of a path
 *				under a file (-ENOTDIR) for i % 4 == 1, of /
 *				(0) for the others; flags LOOKUP_FOLLOW (1)
 *				for odd i, else 0
 *	btffield N		N calls of vmlinux's fwnode_get_name(), whose
 *				parameter fwnode is a struct fwnode_handle *,
 *				of fwnode nodes without ops (the call reads
 *				nothing else, and returns NULL), by i % 5: 0 a
 *				node of flags 3 whose secondary (flags 7) is
 *				mapped, 1 flags 5 secondary NULL, 2 flags 9
 *				secondary in the unmapped top page, 3 NULL,
 *				4 ERR_PTR(-EINVAL)
 *	work N			N work items queued on system_wq, one at a
 *				time, each waited for (flush_work()); reading
 *				the file then gives "work N item ADDR", the
 *				work item's address in decimal
 *	chain_prep		two kthreads for chain_sleep or chain_busy,
 *				kst_chain_b (B) and kst_chain_c (C), made and
 *				left asleep: made before a trace starts, C's
 *				wait is none of the trace's (no record)
 *	chain_sleep US N	a wakeup chain, N rounds: the writer (A)
 *				waits in kst_chain_wait_a() until B wakes it
 *				from kst_chain_wake_a(); B, once it has seen
 *				A asleep, waits in kst_chain_wait_b() until C
 *				wakes it from kst_chain_wake_b(); C, once it
 *				has seen B asleep there, sleeps US in
 *				usleep_range() (an hrtimer wakes it, in
 *				hardirq) before it wakes B. Reading the file
 *				then gives "chain N lower_b NS upper_b NS
 *				upper_c NS", sums over the rounds: lower_b,
 *				C's measure from seeing B asleep to its
 *				wakeup call, which B's blocked time holds;
 *				upper_b, B's own measure around its wait,
 *				which holds B's blocked time; upper_c, C's
 *				own measure around its last sleep before the
 *				wakeup, which holds that sleep's blocked time
 *	chain_busy US N		the same, C spinning instead of sleeping
 *				(cond_resched(), no sleep): C is never
 *				blocked in the trace; upper_c is 0
 *	chain_prep_b		chain_prep's B alone: C is to come
 *	chain_c			after chain_prep_b: the writer is C, a user
 *				task's write asleep until chain_busy (or
 *				chain_sleep) runs C's rounds in it
 *	chain_wait_c		until chain_c's writer is asleep (10 s at most)
 *	clear			forget the measurements below
 *
 * Every call (outermost call for recurse, begin..end for the sections)
 * is also timed by its caller on kstats' clock, ktime_get_mono_fast_ns(),
 * and for gap each span from one call's entry to the next call's return.
 * Reading the file gives, after the bench line if any,
 *	measured N min_ns MIN max_ns MAX
 * over every call of every command since the last clear, so the tests can
 * bound each kstats sample by what the caller saw around the same call,
 * however long a loaded host stalled it.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/property.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kstats_test_target.h"

static struct dentry *kst_file;
static char kst_result[128];

/* Caller-side measurements, merged across concurrent writers. */
static DEFINE_SPINLOCK(kst_lock);
static u64 kst_n, kst_min, kst_max;

static u64 kst_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* Adds one duration, in ns, that the caller measured around a call. */
static void kst_note(u64 t0)
{
	u64 ns = kst_now() - t0;

	spin_lock(&kst_lock);
	if (!kst_n || ns < kst_min)
		kst_min = ns;
	if (ns > kst_max)
		kst_max = ns;
	kst_n++;
	spin_unlock(&kst_lock);
}

/*
 * Busy-waits on the clock kstats timestamps with, so a traced call can
 * never measure shorter than @us. udelay() under TCG is calibrated
 * against another clock and often runs a few percent short.
 */
static void kst_spin(unsigned int us)
{
	u64 t0 = ktime_get_mono_fast_ns();

	while (ktime_get_mono_fast_ns() - t0 < (u64)us * NSEC_PER_USEC)
		cpu_relax();
}

noinline void kst_target_delay(unsigned int us)
{
	kst_spin(us);
}

noinline void kst_target_recurse(unsigned int depth, unsigned int us)
{
	kst_spin(us);
	if (depth > 1)
		kst_target_recurse(depth - 1, us);
	/* Keeps the recursion from becoming a loop. */
	barrier();
}

noinline void kst_target_sleep(unsigned int us)
{
	usleep_range(us, us + 100);
}

noinline void kst_target_migrate(unsigned int us)
{
	int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());

	if (cpu < nr_cpu_ids)
		set_cpus_allowed_ptr(current, cpumask_of(cpu));
	kst_spin(us);
}

noinline void kst_section_begin(void)
{
	barrier();
}

noinline void kst_section_end(void)
{
	barrier();
}

/* deep: @depth nested sections, each holding a spin of @us. */
static void kst_deep(unsigned int depth, unsigned int us)
{
	kst_section_begin();
	kst_spin(us);
	if (depth > 1)
		kst_deep(depth - 1, us);
	kst_spin(us);
	kst_section_end();
}

/* Values for "if": failures on a known share of calls. */
noinline __noclone long kst_ret_long(unsigned int i, unsigned long size)
{
	barrier();
	if (i % 4 == 0)
		return -EAGAIN;
	if (i % 4 == 1)
		return -ENOENT;
	return size;
}

noinline __noclone int kst_ret_int(unsigned int i)
{
	barrier();
	if (i % 4 == 0)
		return -EAGAIN;
	if (i % 4 == 1)
		return -ENOENT;
	return i;
}

/*
 * Objects of sections matched on an argument ("match arg0"). noclone:
 * called with constant objects, gcc for arm64 made kst_obj_begin.constprop.0
 * and called that instead.
 */
struct kst_obj {
	unsigned long id;
};

static struct kst_obj kst_objs[8];

noinline __noclone void kst_obj_begin(struct kst_obj *obj)
{
	barrier();
}

noinline __noclone void kst_obj_end(struct kst_obj *obj)
{
	barrier();
}

/* The object in second place: "match arg0,arg1". */
noinline __noclone void kst_obj_end2(int unused, struct kst_obj *obj)
{
	barrier();
}

/* The objs timer: ends B in hardirq context. */
static struct hrtimer kst_obj_timer;
static atomic_t kst_obj_fired;

static enum hrtimer_restart kst_obj_fn(struct hrtimer *timer)
{
	kst_obj_end2(0, &kst_objs[1]);
	atomic_set(&kst_obj_fired, 1);
	return HRTIMER_NORESTART;
}

static void kst_obj_round(unsigned int us)
{
	u64 t0 = kst_now();

	atomic_set(&kst_obj_fired, 0);
	kst_obj_begin(&kst_objs[0]);
	kst_obj_begin(&kst_objs[1]);
	kst_spin(us);
	kst_obj_end(&kst_objs[0]);
	kst_note(t0);
	hrtimer_start(&kst_obj_timer, ns_to_ktime((u64)us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	while (!atomic_read(&kst_obj_fired))
		cpu_relax();
	kst_note(t0);
}

/*
 * A round of two sections nested on two objects, as two locks taken
 * through the same functions: A = kst_objs[2] holds B = kst_objs[3].
 * Adds what the caller measured around each to @sum (A, B).
 */
static void kst_obj_nest(unsigned int us, u64 *sum)
{
	u64 ta = kst_now(), tb;

	kst_obj_begin(&kst_objs[2]);
	kst_spin(us);
	tb = kst_now();
	kst_obj_begin(&kst_objs[3]);
	kst_spin(us);
	kst_obj_end(&kst_objs[3]);
	sum[1] += kst_now() - tb;
	kst_spin(us);
	kst_obj_end(&kst_objs[2]);
	sum[0] += kst_now() - ta;
}

/* objnt: matched sections between two functions without an ftrace site. */
noinline __noclone notrace void kst_obj_begin_nt(struct kst_obj *obj)
{
	barrier();
}

noinline __noclone notrace void kst_obj_end_nt(struct kst_obj *obj)
{
	barrier();
}

/*
 * objmiss: kst_obj_end() called from a kprobe's handler, where the
 * kernel runs no other kprobe's: a kprobe on kst_obj_end() counts a miss.
 */
noinline __noclone void kst_miss_site(void)
{
	barrier();
}

static int kst_miss_pre(struct kprobe *p, struct pt_regs *regs)
{
	kst_obj_end(&kst_objs[4]);
	return 0;
}

static int kst_obj_miss(unsigned int n)
{
	struct kprobe kp = {
		.symbol_name = "kst_miss_site",
		.pre_handler = kst_miss_pre,
	};
	unsigned int i;
	int err;

	err = register_kprobe(&kp);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		kst_obj_begin(&kst_objs[4]);
		if (i % 2)
			kst_obj_end(&kst_objs[4]);
		else
			kst_miss_site();
	}
	unregister_kprobe(&kp);
	return 0;
}

/* retmigrate: a function with a return value that returns elsewhere. */
noinline __noclone long kst_ret_migrate(void)
{
	int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());

	if (cpu < nr_cpu_ids)
		set_cpus_allowed_ptr(current, cpumask_of(cpu));
	return 1;
}

/* pingpong: two kthreads taking turns on one CPU. */
static struct {
	struct task_struct *task[2];
	struct completion done[2];
	unsigned int us, n;
	unsigned int turn;	/* whose: 0 or 1 */
} kst_pp;

/*
 * Each of N turns: runs US since it was switched in, hands the turn to
 * the other task and, but after its last, sleeps until the turn is its
 * own again. After its last, it exits: every switch-out of either task
 * comes at least US after its switch-in.
 */
static int kst_pp_fn(void *arg)
{
	unsigned int me = (unsigned long)arg, i;

	for (i = 0; i < kst_pp.n; i++) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		while (READ_ONCE(kst_pp.turn) != me) {
			schedule();
			set_current_state(TASK_UNINTERRUPTIBLE);
		}
		__set_current_state(TASK_RUNNING);
		kst_spin(kst_pp.us);
		WRITE_ONCE(kst_pp.turn, !me);
		wake_up_process(kst_pp.task[!me]);
	}
	complete(&kst_pp.done[me]);
	return 0;
}

static int kst_pingpong(unsigned int us, unsigned int n)
{
	int cpu = raw_smp_processor_id();
	unsigned int i;

	kst_pp.us = us;
	kst_pp.n = n;
	kst_pp.turn = 0;
	for (i = 0; i < 2; i++) {
		init_completion(&kst_pp.done[i]);
		kst_pp.task[i] = kthread_create(kst_pp_fn, (void *)(unsigned long)i,
						"kst_pp");
		if (IS_ERR(kst_pp.task[i])) {
			if (i) {
				kthread_stop(kst_pp.task[0]);
				put_task_struct(kst_pp.task[0]);
			}
			return PTR_ERR(kst_pp.task[i]);
		}
		get_task_struct(kst_pp.task[i]);
		kthread_bind(kst_pp.task[i], cpu);
		sched_set_fifo_low(kst_pp.task[i]);
	}
	for (i = 0; i < 2; i++)
		wake_up_process(kst_pp.task[i]);
	for (i = 0; i < 2; i++) {
		wait_for_completion(&kst_pp.done[i]);
		put_task_struct(kst_pp.task[i]);
	}
	return 0;
}

static struct work_struct kst_work;

static void kst_work_fn(struct work_struct *work)
{
	barrier();
}

/* What the irqend and irqsection timer does, in hardirq context. */
static DEFINE_MUTEX(kst_irq_lock);	/* one writer's sections at a time */
static struct hrtimer kst_irq_timer;
static bool kst_irq_whole;
static atomic_t kst_irq_fired;

static enum hrtimer_restart kst_irq_fn(struct hrtimer *timer)
{
	if (kst_irq_whole) {
		kst_section_begin();
		kst_spin(5);
	}
	kst_section_end();
	atomic_set(&kst_irq_fired, 1);
	return HRTIMER_NORESTART;
}

/*
 * A task's section of @us, on one CPU, inside which the timer fires once
 * (armed after the start, waited for before the end).
 */
static void kst_irq_section(unsigned int us, bool whole)
{
	u64 t0;

	kst_irq_whole = whole;
	atomic_set(&kst_irq_fired, 0);
	preempt_disable();
	t0 = kst_now();
	kst_section_begin();
	hrtimer_start(&kst_irq_timer, ns_to_ktime((u64)us * NSEC_PER_USEC / 2),
		      HRTIMER_MODE_REL_PINNED_HARD);
	kst_spin(us);
	while (!atomic_read(&kst_irq_fired))
		cpu_relax();
	kst_section_end();
	kst_note(t0);
	preempt_enable();
}

/*
 * Off-CPU waits of known cause and length: the writer waits on a
 * completion in a kst_wait_*() function, and a waker completes it from a
 * kst_wake_*() function once it has seen the writer off CPU, asleep, for
 * US: each wait is blocked for at least US.
 */
static DEFINE_MUTEX(kst_offcpu_lock);	/* one writer's waits at a time */
static struct {
	struct completion done;
	struct task_struct *waiter;
	unsigned int state;	/* the waiter's: TASK_(UN)INTERRUPTIBLE */
	unsigned int us, n;
	bool seen;		/* the timer saw the waiter asleep */
	struct hrtimer timer;
} kst_offcpu;

/* Each barrier() keeps its call from becoming a tail call: a frame of its own. */
noinline void kst_wait_thread(void)
{
	wait_for_completion(&kst_offcpu.done);
	barrier();
}

noinline void kst_wait_timer(void)
{
	wait_for_completion(&kst_offcpu.done);
	barrier();
}

noinline void kst_wait_sleep(void)
{
	/* The test sends no signal: the wait ends with its completion. */
	if (wait_for_completion_interruptible(&kst_offcpu.done))
		pr_warn("%s: interrupted\n", __func__);
	barrier();
}

noinline void kst_wait_idle(void)
{
	wait_for_completion_state(&kst_offcpu.done, TASK_IDLE);
	barrier();
}

noinline void kst_wake_thread(void)
{
	complete(&kst_offcpu.done);
	barrier();
}

noinline void kst_wake_timer(void)
{
	complete(&kst_offcpu.done);
	barrier();
}

noinline void kst_wake_sleep(void)
{
	complete(&kst_offcpu.done);
	barrier();
}

/* Switched out, asleep: its wait has started. */
static bool kst_waiter_asleep(void)
{
	struct task_struct *p = kst_offcpu.waiter;

	return READ_ONCE(p->__state) == kst_offcpu.state && !READ_ONCE(p->on_cpu);
}

static int kst_waker_fn(void *arg)
{
	unsigned int i;
	u64 t0;

	for (i = 0; i < kst_offcpu.n && !kthread_should_stop(); i++) {
		while (!kst_waiter_asleep() && !kthread_should_stop())
			usleep_range(20, 50);
		t0 = kst_now();
		while (kst_now() - t0 < (u64)kst_offcpu.us * NSEC_PER_USEC)
			usleep_range(kst_offcpu.us, kst_offcpu.us + 50);
		if (kst_offcpu.state == TASK_INTERRUPTIBLE)
			kst_wake_sleep();
		else
			kst_wake_thread();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 100 + 1);
	return 0;
}

/* HARD: in hardirq, on PREEMPT_RT too. */
static enum hrtimer_restart kst_offcpu_timer_fn(struct hrtimer *timer)
{
	if (!kst_offcpu.seen) {
		bool asleep = kst_waiter_asleep();

		kst_offcpu.seen = asleep;
		hrtimer_set_expires(timer, ktime_add_us(ktime_get(),
							asleep ? kst_offcpu.us : 20));
		return HRTIMER_RESTART;
	}
	kst_wake_timer();
	return HRTIMER_NORESTART;
}

static int kst_offcpu_run(const char *cmd, unsigned int us, unsigned int n)
{
	struct task_struct *waker = NULL;
	bool timer = !strcmp(cmd, "offcpu_timer");
	unsigned int i;
	u64 t0;

	mutex_lock(&kst_offcpu_lock);
	init_completion(&kst_offcpu.done);
	kst_offcpu.waiter = current;
	kst_offcpu.state = !strcmp(cmd, "offcpu_sleep") ? TASK_INTERRUPTIBLE :
			   !strcmp(cmd, "offcpu_idle") ? TASK_IDLE :
							 TASK_UNINTERRUPTIBLE;
	kst_offcpu.us = us;
	kst_offcpu.n = n;
	if (!timer) {
		waker = kthread_run(kst_waker_fn, NULL, "kst_waker");
		if (IS_ERR(waker)) {
			mutex_unlock(&kst_offcpu_lock);
			return PTR_ERR(waker);
		}
	}
	for (i = 0; i < n; i++) {
		t0 = kst_now();
		if (timer) {
			kst_offcpu.seen = false;
			hrtimer_start(&kst_offcpu.timer, ns_to_ktime(20 * NSEC_PER_USEC),
				      HRTIMER_MODE_REL_HARD);
			kst_wait_timer();
			hrtimer_cancel(&kst_offcpu.timer);
		} else if (kst_offcpu.state == TASK_INTERRUPTIBLE) {
			kst_wait_sleep();
		} else if (kst_offcpu.state == TASK_IDLE) {
			kst_wait_idle();
		} else {
			kst_wait_thread();
		}
		kst_note(t0);
	}
	if (waker)
		kthread_stop(waker);
	mutex_unlock(&kst_offcpu_lock);
	return 0;
}

/*
 * A wakeup chain of three tasks (chain_prep, chain_sleep, chain_busy):
 * A, the writer, woken by B, woken by C.
 */
static DEFINE_MUTEX(kst_chain_lock);	/* one chain at a time */
static struct {
	struct completion go, a, b;
	struct task_struct *ta, *tb, *tc;
	bool tc_user;		/* C is a user task's write (chain_c) */
	bool abort;		/* a user C stops: kst_chain_stop() */
	unsigned int us, n;
	bool busy;
	unsigned int a_round, b_round;	/* the round each waits in, from 1 */
	u64 lower_b, upper_b, upper_c;
} kst_chain;

noinline void kst_chain_wait_a(void)
{
	wait_for_completion(&kst_chain.a);
	barrier();
}

noinline void kst_chain_wait_b(void)
{
	wait_for_completion(&kst_chain.b);
	barrier();
}

noinline void kst_chain_wake_a(void)
{
	complete(&kst_chain.a);
	barrier();
}

noinline void kst_chain_wake_b(void)
{
	complete(&kst_chain.b);
	barrier();
}

/* @p is switched out, asleep in its round @round's wait. */
static bool kst_chain_asleep(struct task_struct *p, unsigned int *at,
			     unsigned int round)
{
	return READ_ONCE(*at) == round &&
	       READ_ONCE(p->__state) == TASK_UNINTERRUPTIBLE &&
	       !READ_ONCE(p->on_cpu);
}

/* Whether the chain's task should end: kthread_stop(), or for a user C abort. */
static bool kst_chain_stopping(void)
{
	if (current->flags & PF_KTHREAD)
		return kthread_should_stop();
	return READ_ONCE(kst_chain.abort);
}

/* A kthread: until kthread_stop(), without a wait of the chain's. */
static void kst_chain_park(void)
{
	while ((current->flags & PF_KTHREAD) && !kthread_should_stop())
		schedule_timeout_interruptible(HZ / 100 + 1);
}

static int kst_chain_b_fn(void *arg)
{
	unsigned int i;
	u64 t0;

	wait_for_completion(&kst_chain.go);
	for (i = 1; i <= kst_chain.n && !kst_chain_stopping(); i++) {
		while (!kst_chain_asleep(kst_chain.ta, &kst_chain.a_round, i) &&
		       !kst_chain_stopping())
			usleep_range(20, 50);
		WRITE_ONCE(kst_chain.b_round, i);
		t0 = kst_now();
		kst_chain_wait_b();
		kst_chain.upper_b += kst_now() - t0;
		/* Nothing in between: B's last wakeup is C's. */
		kst_chain_wake_a();
	}
	kst_chain_park();
	return 0;
}

static int kst_chain_c_fn(void *arg)
{
	unsigned int i;
	u64 t0, u0, u1;

	/* Made asleep before the trace: this wakeup starts no record. */
	wait_for_completion(&kst_chain.go);
	for (i = 1; i <= kst_chain.n && !kst_chain_stopping(); i++) {
		while (!kst_chain_asleep(kst_chain.tb, &kst_chain.b_round, i) &&
		       !kst_chain_stopping()) {
			if (kst_chain.busy)
				cond_resched();
			else
				usleep_range(20, 50);
		}
		t0 = kst_now();
		u0 = t0;
		u1 = t0;
		while (u1 - t0 < (u64)kst_chain.us * NSEC_PER_USEC) {
			u0 = kst_now();
			if (kst_chain.busy)
				cond_resched();
			else
				usleep_range(kst_chain.us, kst_chain.us + 50);
			u1 = kst_now();
		}
		if (!kst_chain.busy)
			kst_chain.upper_c += u1 - u0;
		kst_chain.lower_b += kst_now() - t0;
		kst_chain_wake_b();
	}
	/* A busy C never sleeps while the chain runs: park after it. */
	kst_chain_park();
	return 0;
}

static void kst_chain_stop(void)
{
	/* Threads still waiting on go (a prep never run) run no round. */
	if (kst_chain.tb || kst_chain.tc) {
		if (!completion_done(&kst_chain.go))
			kst_chain.n = 0;
		WRITE_ONCE(kst_chain.abort, true);
		complete_all(&kst_chain.go);
	}
	if (kst_chain.tb)
		kthread_stop(kst_chain.tb);
	/* A user C returns from its write by itself. */
	if (kst_chain.tc && !kst_chain.tc_user)
		kthread_stop(kst_chain.tc);
	kst_chain.tb = NULL;
	kst_chain.tc = NULL;
	kst_chain.tc_user = false;
}

static int kst_chain_prep(bool user_c)
{
	int err = 0;

	mutex_lock(&kst_chain_lock);
	kst_chain_stop();
	init_completion(&kst_chain.go);
	kst_chain.abort = false;
	kst_chain.tb = kthread_run(kst_chain_b_fn, NULL, "kst_chain_b");
	/* chain_prep_b: C is to come, a user task's write of chain_c. */
	kst_chain.tc = user_c ? NULL : kthread_run(kst_chain_c_fn, NULL, "kst_chain_c");
	if (IS_ERR(kst_chain.tb) || IS_ERR(kst_chain.tc)) {
		err = -ENOMEM;
		if (IS_ERR(kst_chain.tb))
			kst_chain.tb = NULL;
		if (IS_ERR(kst_chain.tc))
			kst_chain.tc = NULL;
		kst_chain_stop();
		goto out;
	}
	/* Both asleep on go, switched out, before the trace begins. */
	while (READ_ONCE(kst_chain.tb->__state) != TASK_UNINTERRUPTIBLE ||
	       READ_ONCE(kst_chain.tb->on_cpu) ||
	       (kst_chain.tc && (READ_ONCE(kst_chain.tc->__state) != TASK_UNINTERRUPTIBLE ||
				 READ_ONCE(kst_chain.tc->on_cpu))))
		usleep_range(100, 200);
out:
	mutex_unlock(&kst_chain_lock);
	return err;
}

/*
 * chain_c: the writer is C (a user task, not a kernel thread), asleep on
 * go until chain_busy or chain_sleep, then C's rounds; after chain_prep_b.
 */
static int kst_chain_user_c(void)
{
	mutex_lock(&kst_chain_lock);
	if (!kst_chain.tb || kst_chain.tc) {
		mutex_unlock(&kst_chain_lock);
		return -EBUSY;
	}
	kst_chain.tc = current;
	kst_chain.tc_user = true;
	mutex_unlock(&kst_chain_lock);
	kst_chain_c_fn(NULL);
	return 0;
}

/* chain_wait_c: until chain_c's writer is asleep on go (10 s at most). */
static int kst_chain_wait_c(void)
{
	unsigned int i;

	for (i = 0; i < 50000; i++) {
		struct task_struct *c;

		mutex_lock(&kst_chain_lock);
		c = kst_chain.tc;
		if (c && READ_ONCE(c->__state) == TASK_UNINTERRUPTIBLE &&
		    !READ_ONCE(c->on_cpu)) {
			mutex_unlock(&kst_chain_lock);
			return 0;
		}
		mutex_unlock(&kst_chain_lock);
		usleep_range(200, 300);
	}
	return -ETIMEDOUT;
}

static int kst_chain_run(bool busy, unsigned int us, unsigned int n)
{
	unsigned int i;

	mutex_lock(&kst_chain_lock);
	if (!kst_chain.tb || !kst_chain.tc) {
		mutex_unlock(&kst_chain_lock);
		return -ESRCH;	/* no chain_prep, or no chain_c after chain_prep_b */
	}
	init_completion(&kst_chain.a);
	init_completion(&kst_chain.b);
	kst_chain.ta = current;
	kst_chain.us = us;
	kst_chain.n = n;
	kst_chain.busy = busy;
	kst_chain.a_round = 0;
	kst_chain.b_round = 0;
	kst_chain.lower_b = 0;
	kst_chain.upper_b = 0;
	kst_chain.upper_c = 0;
	complete_all(&kst_chain.go);
	for (i = 1; i <= n; i++) {
		WRITE_ONCE(kst_chain.a_round, i);
		kst_chain_wait_a();
	}
	kst_chain_stop();
	snprintf(kst_result, sizeof(kst_result),
		 "chain %u lower_b %llu upper_b %llu upper_c %llu\n", n,
		 kst_chain.lower_b, kst_chain.upper_b, kst_chain.upper_c);
	mutex_unlock(&kst_chain_lock);
	return 0;
}

noinline notrace void kst_target_notrace(void)
{
	barrier();
}

noinline void kst_target_null(void)
{
	barrier();
}

/*
 * One function under two names, as SYSCALL_DEFINE0's __x64_sys_NAME is an
 * alias of __do_sys_NAME: kallsyms, and so ftrace, name its site by the
 * first in the symbol table, the local kst_impl_null().
 */
static noinline void kst_impl_null(void)
{
	barrier();
}

__alias(kst_impl_null) void kst_alias_null(void);

/*
 * kst_target_null()'s untraced twin for the benchmarks: timed in the same
 * loop, it is slowed by whatever slows the emulator at that moment, so
 * the ratio of the two is free of it.
 */
noinline void kst_target_twin(void)
{
	barrier();
}

/*
 * Call paths for the keyed traces: each is its own frame above the
 * callee (noinline, and the barrier after the call forbids a tail call).
 */
#define KST_PATH(n)							\
noinline void kst_path_##n(unsigned int us)				\
{									\
	kst_target_delay(us);						\
	barrier();							\
}

KST_PATH(1)
KST_PATH(2)
KST_PATH(3)
KST_PATH(4)
KST_PATH(5)

static void (*const kst_paths[])(unsigned int) = {
	kst_path_1, kst_path_2, kst_path_3, kst_path_4, kst_path_5,
};

#define KST_SITE(what, n, fn)						\
noinline void kst_##what##_site_##n(void)				\
{									\
	fn();								\
	barrier();							\
}

KST_SITE(begin, 1, kst_section_begin)
KST_SITE(begin, 2, kst_section_begin)
KST_SITE(end, 1, kst_section_end)
KST_SITE(end, 2, kst_section_end)

static int kst_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

static int kst_timed(unsigned int n, unsigned int gap_us, bool twin)
{
	u64 *d = kvmalloc_array(n, sizeof(*d), GFP_KERNEL);
	u64 *e = twin ? kvmalloc_array(n, sizeof(*e), GFP_KERNEL) : NULL;
	u64 start, t0;
	unsigned int i;
	int len;

	if (!d || (twin && !e)) {
		kvfree(d);
		kvfree(e);
		return -ENOMEM;
	}
	start = ktime_get_ns();
	for (i = 0; i < n; i++) {
		if (gap_us)
			usleep_range(gap_us, gap_us + 100);
		else if (!(i % 1024))
			cond_resched();
		t0 = ktime_get_ns();
		kst_target_null();
		d[i] = ktime_get_ns() - t0;
		if (twin) {
			t0 = ktime_get_ns();
			kst_target_twin();
			e[i] = ktime_get_ns() - t0;
		}
	}
	start = ktime_get_ns() - start;
	sort(d, n, sizeof(*d), kst_cmp_u64, NULL);
	len = snprintf(kst_result, sizeof(kst_result), "timed %u p50 %llu p90 %llu total %llu",
		       n, d[n / 2], d[(u64)n * 9 / 10], start);
	if (twin) {
		sort(e, n, sizeof(*e), kst_cmp_u64, NULL);
		len += scnprintf(kst_result + len, sizeof(kst_result) - len,
				 " twin_p50 %llu twin_p90 %llu", e[n / 2],
				 e[(u64)n * 9 / 10]);
	}
	scnprintf(kst_result + len, sizeof(kst_result) - len, "\n");
	kvfree(d);
	kvfree(e);
	return 0;
}

static int kst_run(char *line)
{
	unsigned int a = 0, b = 0, c = 0, i;
	u64 t0, prev = 0;
	char cmd[16];
	int n;

	n = sscanf(line, "%15s %u %u %u", cmd, &a, &b, &c);
	if (n == 1 && !strcmp(cmd, "clear")) {
		spin_lock(&kst_lock);
		kst_n = 0;
		kst_min = 0;
		kst_max = 0;
		spin_unlock(&kst_lock);
		return 0;
	}
	if (n == 1 && (!strcmp(cmd, "chain_prep") || !strcmp(cmd, "chain_prep_b")))
		return kst_chain_prep(!strcmp(cmd, "chain_prep_b"));
	if (n == 1 && !strcmp(cmd, "chain_c"))
		return kst_chain_user_c();
	if (n == 1 && !strcmp(cmd, "chain_wait_c"))
		return kst_chain_wait_c();
	if (n < 2)
		return -EINVAL;
	if (!strcmp(cmd, "delay") && n == 3) {
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_target_delay(a);
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "recurse") && n == 4 && a) {
		/* The outermost call contains every nested one. */
		for (i = 0; i < c; i++) {
			t0 = kst_now();
			kst_target_recurse(a, b);
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "sleep") && n == 3) {
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_target_sleep(a);
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "migrate") && n == 3) {
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_target_migrate(a);
			kst_note(t0);
		}
		set_cpus_allowed_ptr(current, cpu_possible_mask);
	} else if (!strcmp(cmd, "path") && n == 4 && a >= 1 && a <= 5) {
		for (i = 0; i < c; i++) {
			t0 = kst_now();
			kst_paths[a - 1](b);
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "oncpu") && n == 4 && a < nr_cpu_ids &&
		   cpu_online(a)) {
		set_cpus_allowed_ptr(current, cpumask_of(a));
		for (i = 0; i < c; i++) {
			t0 = kst_now();
			kst_target_delay(b);
			kst_note(t0);
		}
		set_cpus_allowed_ptr(current, cpu_possible_mask);
	} else if (!strcmp(cmd, "pair") && n == 4) {
		unsigned int s = a / 10, e = a % 10;

		if (s < 1 || s > 2 || e < 1 || e > 2)
			return -EINVAL;
		for (i = 0; i < c; i++) {
			t0 = kst_now();
			if (s == 1)
				kst_begin_site_1();
			else
				kst_begin_site_2();
			kst_spin(b);
			if (e == 1)
				kst_end_site_1();
			else
				kst_end_site_2();
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "section") && n == 3) {
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_section_begin();
			kst_spin(a);
			kst_section_end();
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "section_sleep") && n == 3) {
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_section_begin();
			usleep_range(a, a + 100);
			kst_section_end();
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "nest") && n == 4) {
		for (i = 0; i < c; i++) {
			t0 = kst_now();
			kst_section_begin();
			kst_spin(a);
			kst_section_begin();
			kst_spin(b);
			kst_section_end();
			kst_section_end();
			kst_note(t0);
		}
	} else if ((!strcmp(cmd, "irqend") || !strcmp(cmd, "irqsection")) && n == 3) {
		mutex_lock(&kst_irq_lock);
		for (i = 0; i < b; i++)
			kst_irq_section(a, cmd[3] == 's');
		mutex_unlock(&kst_irq_lock);
	} else if (!strcmp(cmd, "mixed") && n == 3) {
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_section_begin();
			kst_spin(a);
			kst_target_notrace();
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "end_only") && n == 2) {
		for (i = 0; i < a; i++)
			kst_section_end();
	} else if (!strcmp(cmd, "stale") && n == 4) {
		for (i = 0; i < a; i++)
			kst_section_begin();
		msleep(b);
		for (i = 0; i < c; i++) {
			t0 = kst_now();
			kst_section_begin();
			kst_spin(100);
			kst_section_end();
			kst_note(t0);
		}
		kst_section_begin();
		msleep(b);
		kst_section_end();
	} else if (!strcmp(cmd, "deep") && n == 4 && a >= 1 && a <= 16) {
		for (i = 0; i < c; i++) {
			t0 = kst_now();
			kst_deep(a, b);
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "leftout") && n == 3) {
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_ret_long(1, 0);
			kst_spin(a);
			kst_ret_long(0, 0);
			kst_spin(a);
			kst_section_end();
			kst_spin(3 * a);
			kst_section_end();
			kst_note(t0);
		}
	} else if (!strcmp(cmd, "gap") && n == 3) {
		/*
		 * One CPU, so every gap is measured where it happened. The
		 * span from one call's entry to the next one's return holds
		 * kstats' gap (return to entry) whatever the probes cost.
		 */
		preempt_disable();
		for (i = 0; i < b; i++) {
			if (i)
				kst_spin(a);
			t0 = kst_now();
			kst_target_delay(0);
			if (i)
				kst_note(prev);
			prev = t0;
		}
		preempt_enable();
	} else if (!strcmp(cmd, "notrace") && n == 2) {
		for (i = 0; i < a; i++)
			kst_target_notrace();
	} else if (!strcmp(cmd, "alias") && n == 2) {
		for (i = 0; i < a; i++)
			kst_alias_null();
	} else if (!strcmp(cmd, "bench") && n == 2) {
		t0 = ktime_get_ns();
		for (i = 0; i < a; i++)
			kst_target_null();
		snprintf(kst_result, sizeof(kst_result), "bench %u ns %llu\n",
			 a, ktime_get_ns() - t0);
	} else if (!strcmp(cmd, "timed") && (n == 3 || (n == 4 && c == 1)) && a) {
		return kst_timed(a, b, n == 4);
	} else if (!strncmp(cmd, "offcpu_", 7) && n == 3 && a && b &&
		   (!strcmp(cmd, "offcpu_thread") || !strcmp(cmd, "offcpu_timer") ||
		    !strcmp(cmd, "offcpu_sleep") || !strcmp(cmd, "offcpu_idle"))) {
		return kst_offcpu_run(cmd, a, b);
	} else if ((!strcmp(cmd, "chain_sleep") || !strcmp(cmd, "chain_busy")) &&
		   n == 3 && a && b) {
		return kst_chain_run(!strcmp(cmd, "chain_busy"), a, b);
	} else if (!strcmp(cmd, "objs") && n == 3) {
		for (i = 0; i < b; i++)
			kst_obj_round(a);
	} else if (!strcmp(cmd, "objnest") && n == 3) {
		u64 sum[2] = {};

		for (i = 0; i < b; i++)
			kst_obj_nest(a, sum);
		snprintf(kst_result, sizeof(kst_result), "objnest %u sum_a %llu sum_b %llu\n",
			 b, sum[0], sum[1]);
	} else if (!strncmp(cmd, "obj", 3) && n == 2 && a < ARRAY_SIZE(kst_objs) &&
		   (!strcmp(cmd, "objbegin") || !strcmp(cmd, "objpair") ||
		    !strcmp(cmd, "objend"))) {
		if (strcmp(cmd, "objend"))
			kst_obj_begin(&kst_objs[a]);
		if (strcmp(cmd, "objbegin"))
			kst_obj_end(&kst_objs[a]);
	} else if (!strcmp(cmd, "objmiss") && n == 2) {
		return kst_obj_miss(a);
	} else if (!strcmp(cmd, "objnt") && n == 2) {
		for (i = 0; i < a; i++) {
			kst_obj_begin_nt(&kst_objs[5]);
			kst_obj_end_nt(&kst_objs[5]);
		}
	} else if (!strcmp(cmd, "gapif") && n == 3) {
		preempt_disable();
		for (i = 0; i < b; i++) {
			t0 = kst_now();
			kst_ret_long(i, 0);
			if (i >= 3 && i % 2)
				kst_note(prev);
			t0 = kst_now();
			kst_section_end();
			if (i % 2)
				prev = t0;
			kst_spin(a);
		}
		preempt_enable();
	} else if (!strcmp(cmd, "retmigrate") && n == 2) {
		for (i = 0; i < a; i++)
			kst_ret_migrate();
		set_cpus_allowed_ptr(current, cpu_possible_mask);
	} else if (!strcmp(cmd, "pingpong") && n == 3 && a && b) {
		return kst_pingpong(a, b);
	} else if (!strcmp(cmd, "ret") && n == 2) {
		for (i = 0; i < a; i++) {
			kst_ret_long(i, 1000UL * i);
			kst_ret_int(i);
		}
	} else if (!strcmp(cmd, "btfret") && n == 2) {
		static const char * const paths[] = {
			"/kst-nonexistent", "/sys/kernel/debug/kstats_test_target/x", "/", "/",
		};
		unsigned int failed = 0;
		struct path path;

		for (i = 0; i < a; i++) {
			if (kern_path(paths[i % 4], i % 2 ? LOOKUP_FOLLOW : 0, &path))
				failed++;
			else
				path_put(&path);
		}
		snprintf(kst_result, sizeof(kst_result), "btfret %u failed %u\n", a,
			 failed);
	} else if (!strcmp(cmd, "btffield") && n == 2) {
		/* Known fields for kstats to read through fwnode (->). */
		static struct fwnode_handle second = { .flags = 7 };
		static struct fwnode_handle nodes[3] = {
			{ .flags = 3, .secondary = &second },
			{ .flags = 5 },
			/* Not an ERR_PTR: the top page, never mapped. */
			{ .flags = 9, .secondary = (void *)-PAGE_SIZE },
		};
		struct fwnode_handle *node;
		unsigned int named = 0;

		for (i = 0; i < a; i++) {
			node = i % 5 < 3 ? &nodes[i % 5] :
			       i % 5 == 3 ? NULL : ERR_PTR(-EINVAL);
			if (fwnode_get_name(node))
				named++;
		}
		snprintf(kst_result, sizeof(kst_result), "btffield %u named %u\n",
			 a, named);
	} else if (!strcmp(cmd, "work") && n == 2) {
		for (i = 0; i < a; i++) {
			t0 = kst_now();
			queue_work(system_wq, &kst_work);
			flush_work(&kst_work);
			kst_note(t0);
		}
		/* The work item, as a key on its address prints it. */
		snprintf(kst_result, sizeof(kst_result), "work %u item %lu\n", a,
			 (unsigned long)&kst_work);
	} else if (!strcmp(cmd, "bench_obj") && n == 2) {
		t0 = ktime_get_ns();
		for (i = 0; i < a; i++) {
			kst_obj_begin(&kst_objs[0]);
			kst_obj_end(&kst_objs[0]);
		}
		snprintf(kst_result, sizeof(kst_result), "bench %u ns %llu\n",
			 a, ktime_get_ns() - t0);
	} else if (!strcmp(cmd, "bench_ret") && n == 2) {
		t0 = ktime_get_ns();
		for (i = 0; i < a; i++)
			kst_ret_long(i, 1000UL * i);
		snprintf(kst_result, sizeof(kst_result), "bench %u ns %llu\n",
			 a, ktime_get_ns() - t0);
	} else if (!strcmp(cmd, "bench_pair") && n == 2) {
		t0 = ktime_get_ns();
		for (i = 0; i < a; i++) {
			kst_section_begin();
			kst_section_end();
		}
		snprintf(kst_result, sizeof(kst_result), "bench %u ns %llu\n",
			 a, ktime_get_ns() - t0);
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t kst_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char *line;
	int err;

	if (count > 128)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	err = kst_run(line);
	kfree(line);
	return err ? err : count;
}

static ssize_t kst_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	char buf[sizeof(kst_result) + 80];
	u64 n, lo, hi;
	int len;

	spin_lock(&kst_lock);
	n = kst_n;
	lo = kst_min;
	hi = kst_max;
	spin_unlock(&kst_lock);
	len = scnprintf(buf, sizeof(buf), "%smeasured %llu min_ns %llu max_ns %llu\n",
			kst_result, n, lo, hi);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations kst_fops = {
	.owner = THIS_MODULE,
	.write = kst_write,
	.read = kst_read,
};

/* The same file as /dev/kstats_test_target: lockdown refuses debugfs files with a write bit. */
static struct miscdevice kst_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kstats_test_target",
	.fops = &kst_fops,
	.mode = 0600,
};

static int __init kst_init(void)
{
	int err;

	hrtimer_setup(&kst_irq_timer, kst_irq_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_setup(&kst_offcpu.timer, kst_offcpu_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	hrtimer_setup(&kst_obj_timer, kst_obj_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	INIT_WORK(&kst_work, kst_work_fn);
	kst_file = debugfs_create_file("kstats_test_target", 0600, NULL, NULL,
				       &kst_fops);
	if (IS_ERR(kst_file))
		return PTR_ERR(kst_file);
	err = misc_register(&kst_dev);
	if (err)
		debugfs_remove(kst_file);
	return err;
}

static void __exit kst_exit(void)
{
	misc_deregister(&kst_dev);
	debugfs_remove(kst_file);
	hrtimer_cancel(&kst_irq_timer);
	hrtimer_cancel(&kst_offcpu.timer);
	hrtimer_cancel(&kst_obj_timer);
	cancel_work_sync(&kst_work);
	mutex_lock(&kst_chain_lock);
	kst_chain_stop();
	mutex_unlock(&kst_chain_lock);
}

module_init(kst_init);
module_exit(kst_exit);
MODULE_DESCRIPTION("kstats test target: functions of known duration");
MODULE_LICENSE("GPL");
