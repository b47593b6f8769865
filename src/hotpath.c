// SPDX-License-Identifier: GPL-2.0
/*
 * The hot path every method shares: span recording, GAP, the key hooks
 * and sections. Sections between two probes keep the start per task in
 * a start table (starts.c); function calls keep theirs per call
 * (function.c). GAP-NAME gets the time from the end of one call to the
 * start of the next on the same CPU.
 *
 * A keyed stack is never part of the time it keys: a start captures its
 * stack before reading the clock, an end reads the clock before capturing
 * its stack (the unwinder takes microseconds).
 *
 * Every function here is called from a probe handler with preemption
 * off, in any context: task, softirq, hardirq or NMI; and only directly
 * (KS_DIRECT_ONLY).
 */
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "hist.h"
#include "hotpath.h"
#include "keys.h"
#include "starts.h"

DEFINE_PER_CPU(struct ks_guard, ks_guard);

/*
 * Where another return probe on the same function (a kretprobe, an
 * fprobe, bpftrace's) sends the call back instead of to its caller: the
 * rethook and function-graph trampolines, and kretprobes' before rethook.
 * 0: not in this kernel.
 */
static unsigned long ks_rethook_trampoline __read_mostly;
static unsigned long ks_fgraph_trampoline __read_mostly;
static unsigned long ks_kretprobe_trampoline __read_mostly;

/**
 * ks_set_return_trampolines() - what ks_stack() must not take for a caller
 * @rethook: arch_rethook_trampoline, or 0
 * @fgraph: return_to_handler, or 0
 * @kretprobe: __kretprobe_trampoline, or 0
 *
 * Context: module init, before any trace.
 */
void ks_set_return_trampolines(unsigned long rethook, unsigned long fgraph,
			       unsigned long kretprobe)
{
	ks_rethook_trampoline = rethook;
	ks_fgraph_trampoline = fgraph;
	ks_kretprobe_trampoline = kretprobe;
}

/*
 * The caller @ret stands for: a return probe that hooked the call before
 * kstats' left its trampoline there. Under rethook or a kretprobe the
 * caller is the one the probe saved (ks_rethook_caller(),
 * ks_kretprobe_caller()); under the function graph, 0: the unwinder shows
 * the caller (x86), or better no frame than the trampoline's.
 */
static unsigned long notrace ks_caller_of(unsigned long ret)
{
	if (!ret || ret == ks_fgraph_trampoline)
		return 0;
	if (ret == ks_rethook_trampoline)
		return ks_rethook_caller(ret);
	if (ret == ks_kretprobe_trampoline)
		return ks_kretprobe_caller(ret);
	return ret;
}

/**
 * __ks_gap_begin() - a call or section starts: GAP-NAME gets the time
 * since the end of the last one on this CPU
 * @t: the trace, with a GAP-NAME
 * @now: from ks_now()
 *
 * Context: a probe handler, inside ks_enter().
 */
void KS_DIRECT_ONLY notrace __ks_gap_begin(struct ks_trace *t, u64 now)
{
	u64 last = this_cpu_xchg(*t->last_end, 0);

	if (last && now >= last)
		ks_record(t->gap, now - last);
}

/**
 * __ks_gap_admitted() - ks_gap_begin() for a call whose "if ret" admitted it
 * @t: the trace, with a GAP-NAME
 * @last: *t->last_end as its entry read it
 * @start: its entry, from ks_now()
 * @cpu: its entry's CPU, whose *t->last_end @last is
 *
 * Whether a call is a sample is known only at its return: its GAP, from
 * the last sample's end to its start, is counted then, if no other call
 * on this CPU has taken that end meanwhile (a nested call). So GAP-NAME
 * spans the calls left out, as it does for filters at the entry.
 *
 * Context: a function's return probe, inside ks_enter().
 */
void KS_DIRECT_ONLY notrace __ks_gap_admitted(struct ks_trace *t, u64 last,
					      u64 start, unsigned int cpu)
{
	u64 *end;

	if (!last || start < last)
		return;
	/*
	 * A call that returns on another CPU: its GAP is its entry CPU's.
	 * That CPU's own accesses are not atomic against this one's; a
	 * call starting there at this instant may record the same GAP.
	 */
	if (cpu != smp_processor_id()) {
		end = per_cpu_ptr(t->last_end, cpu);
		if (cmpxchg64(end, last, 0) != last)
			return;
	} else if (this_cpu_cmpxchg(*t->last_end, last, 0) != last) {
		return;
	}
	ks_record(t->gap, start - last);
}

/**
 * ks_record_span() - a sample of @task from @start to @now
 * @t: the trace
 * @task: whose the sample is, for the keyed rows
 * @start: when it started, ns
 * @now: when it ended, ns
 * @tag: what its start kept for the keyed rows: the start's stack id,
 *       the register key argN reads (or, for a function, ret)
 * @end_stack: the stack id of its end
 *
 * Context: a probe handler, inside ks_enter().
 */
void KS_DIRECT_ONLY notrace ks_record_span(struct ks_trace *t,
					   struct task_struct *task, u64 start,
					   u64 now, const struct ks_tag *tag,
					   u32 end_stack)
{
	if (unlikely(now < start)) {
		ks_lost(t, &t->negative);
		return;
	}
	ks_record(t->dur, now - start);
	if (t->keys && READ_ONCE(t->dur->active) &&
	    ks_keys_wanted(t->keys, now - start))
		ks_keys_record(t->keys, tag->stack, end_stack, tag->raw, task,
			       now - start, now);
}

/**
 * __ks_stack() - the stack for key kstack or end-kstack (ks_stack())
 * @t: the trace
 * @part: KS_KEY_KSTACK or KS_KEY_END_KSTACK
 * @at: where the probe's own frames end
 * @ret: the probed function's return address, or 0 (see ks_anchor)
 * @level: the context level of the sampled code
 *
 * Context: a probe handler, inside ks_enter().
 * Return: the stack's id, or 0 if the key has no such part.
 */
u32 KS_DIRECT_ONLY notrace __ks_stack(struct ks_trace *t, enum ks_key_part part,
				      const struct ks_anchor *at,
				      unsigned long ret, unsigned int level)
{
	struct ks_anchor anchor;

	anchor = *at;
	anchor.ret = ks_caller_of(ret);
	return ks_keys_stack(t->keys, part, &anchor, level);
}

/**
 * ks_put_start() - a wait of @task starts at @now, one per task
 * @t: the trace, with a start table
 * @task: whose wait it is
 * @now: from ks_now(), read after @stack was taken
 * @stack: its stack id
 * @replace: replace a start @task already has, else keep that one
 *
 * Context: a probe handler, inside ks_enter().
 */
void KS_DIRECT_ONLY notrace ks_put_start(struct ks_trace *t,
					 struct task_struct *task, u64 now,
					 u32 stack, bool replace)
{
	struct ks_tag tag = { .stack = stack };

	if (!ks_starts_put(t->starts, task, now, &tag, replace))
		ks_lost(t, &t->table_full);
}

/*
 * A section belongs to its task and to the context level it runs at
 * (task, softirq, hardirq, NMI): an interrupt's sections never pair with
 * the task's it interrupted. task_struct is at least L1_CACHE_BYTES
 * aligned (kernel/fork.c), so the level fits in the pointer's low bits.
 */
#define KS_SECTION_LEVELS	4

static __always_inline const void *ks_section_key(struct task_struct *task,
						  unsigned int level)
{
	return (const void *)((unsigned long)task + level);
}

/**
 * ks_starts_drop_task() - forget every start of @task, at every level
 * @st: a start table
 * @task: a task about to be freed, whose key a new task could reuse
 *
 * Context: any.
 */
void KS_DIRECT_ONLY notrace ks_starts_drop_task(struct ks_starts *st,
						struct task_struct *task)
{
	unsigned int level;

	/* A run-queue key is the task; a section's adds its level. */
	for (level = 0; level < KS_SECTION_LEVELS; level++)
		ks_starts_drop(st, ks_section_key(task, level));
}

/**
 * ks_section_left_out() - a section of @task starts now, left out by a
 * filter on the start (cpu, if)
 * @t: the trace, with a start table
 * @task: whose section it is
 * @level: its context level (interrupt_context_level())
 *
 * Neither a sample nor a miss; but its end must close it, not the
 * innermost section of @task still open.
 *
 * Context: a probe handler, preemption off.
 */
void KS_DIRECT_ONLY notrace ks_section_left_out(struct ks_trace *t,
						struct task_struct *task,
						unsigned int level)
{
	/* A task filtered out ends no section either. */
	if (ks_filter_task(&t->req.filter, task))
		ks_starts_mark(t->starts, ks_section_key(task, level));
}

/**
 * ks_section_end() - a section of @task ends now
 * @t: the trace, with a start table
 * @task: whose section it is
 * @level: its context level (interrupt_context_level())
 * @ret: the end function's return address when the probe is at its
 *       entry, else 0 (see ks_anchor)
 *
 * Closes the innermost section open at this context level, whether its
 * start was recorded or only marked (ks_starts_mark()). A start older
 * than the trace's expire is no sample: it is counted (expired).
 *
 * Context: a probe handler, preemption off.
 */
void KS_DIRECT_ONLY notrace ks_section_end(struct ks_trace *t,
					   struct task_struct *task,
					   unsigned int level,
					   unsigned long ret)
{
	const void *key = ks_section_key(task, level);
	struct ks_tag tag;
	u8 *busy;
	u64 now, start;

	/*
	 * Filtered out: neither a sample nor a miss. The cpu filter is on
	 * the CPU where the section starts: its end may be anywhere.
	 */
	if (!ks_filter_task(&t->req.filter, task))
		return;
	busy = ks_enter();
	if (!busy) {
		/*
		 * The section is lost here, once: its start goes too, or it
		 * would stay open under the task's next sections. A marked
		 * start was counted (or left out) at its start.
		 */
		if (ks_starts_pop(t->starts, key, &start, &tag) == KS_POP_START)
			ks_lost(t, &t->nested_end);
		return;
	}
	now = ks_now();
	switch (ks_starts_pop(t->starts, key, &start, &tag)) {
	case KS_POP_START:
		if (unlikely(now > start &&
			     now - start > t->req.match.expire_ns)) {
			ks_lost(t, &t->expired);
			break;
		}
		ks_record_span(t, task, start, now, &tag,
			       ks_stack(t, KS_KEY_END_KSTACK, &t->anchor[1], ret, 0));
		/* GAP runs from a section's end: not from one left out. */
		ks_gap_end(t, now);
		break;
	case KS_POP_NONE:
		/* With a cpu or if filter, a missing start may be one it left out. */
		if (!(t->req.filter.has & KS_FILTER_CPU) && !t->req.filter.on_args)
			atomic_long_inc(&t->no_start);
		break;
	case KS_POP_MARK:
		break;
	}
	ks_leave(busy);
}

/**
 * ks_section_start() - a section of @task starts now
 * @t: the trace, with a start table
 * @task: whose section it is
 * @level: its context level (interrupt_context_level())
 * @ret: as for ks_section_end()
 * @args: the start's arguments, for key argN; NULL if the key has none
 *
 * Inside those still open at this level: sections nest as calls do, up
 * to KS_STARTS_DEPTH. A start that finds no room, in depth or in the
 * table, first drops starts older than the trace's expire (counted
 * expired); if it still finds none it is counted and marked, so that
 * its end closes it and not an open one.
 *
 * Context: a probe handler, preemption off.
 */
void KS_DIRECT_ONLY notrace ks_section_start(struct ks_trace *t,
					     struct task_struct *task,
					     unsigned int level,
					     unsigned long ret,
					     const unsigned long *args)
{
	const void *key = ks_section_key(task, level);
	struct ks_tag tag = {};
	unsigned int old;
	u8 *busy;
	u64 now;
	int err;

	if (!ks_filter_task(&t->req.filter, task))
		return;
	if (!ks_filter_cpu(&t->req.filter)) {
		ks_starts_mark(t->starts, key);
		return;
	}
	busy = ks_enter();
	if (!busy) {
		ks_lost(t, &t->nested_start);
		return;
	}
	if (args)
		tag.raw = ks_key_arg(t, args);
	tag.stack = ks_stack(t, KS_KEY_KSTACK, &t->anchor[0], ret, level);
	now = ks_now();
	ks_gap_begin(t, now);
	err = ks_starts_push(t->starts, key, now, &tag);
	if (unlikely(err)) {
		/* Saturating: expire may exceed the time since boot. */
		old = ks_starts_expire(t->starts, key,
				       now > t->req.match.expire_ns ?
				       now - t->req.match.expire_ns : 0);
		if (old && READ_ONCE(t->dur->active))
			atomic_long_add(old, &t->expired);
		if (old)
			err = ks_starts_push(t->starts, key, now, &tag);
		if (err) {
			ks_lost(t, err == -E2BIG ? &t->too_deep : &t->table_full);
			ks_starts_mark(t->starts, key);
		}
	}
	ks_leave(busy);
}

/* @size bytes at @addr into *@out, as the integer they are; non-0 on a fault. */
static __always_inline long ks_field_load(unsigned long addr, u8 size,
					  unsigned long *out)
{
	const void *src = (const void *)addr;
	long err;
	u32 v32;
	u16 v16;
	u8 v8;

	switch (size) {
	case 1:
		err = copy_from_kernel_nofault(&v8, src, 1);
		*out = v8;
		return err;
	case 2:
		err = copy_from_kernel_nofault(&v16, src, 2);
		*out = v16;
		return err;
	case 4:
		err = copy_from_kernel_nofault(&v32, src, 4);
		*out = v32;
		return err;
	default:
		/* 8 bytes: args are read only on 64-bit (KS_MATCH_SOUND). */
		return copy_from_kernel_nofault(out, src, sizeof(*out));
	}
}

/**
 * ks_fields_read() - the fields a start reads through its pointers
 * @t: the trace, with t->req.n_fields fields
 * @arg: the start's arguments in [0, KS_ARGS); field i is set at
 *       [KS_ARGS + i]
 *
 * Each pointer is read with copy_from_kernel_nofault(): a NULL, freed
 * or unmapped pointer faults without an oops. A start with a field
 * that faults is not timed, and counts as missed (fault) if the task
 * and CPU filters take it: its value is unknown, and it is no sample
 * of any row.
 *
 * Context: a probe handler, preemption off.
 * Return: false on a fault.
 */
bool KS_DIRECT_ONLY notrace ks_fields_read(struct ks_trace *t,
					   unsigned long *arg)
{
	unsigned int i, j;

	for (i = 0; i < t->req.n_fields; i++) {
		const struct ks_field *f = &t->req.field[i];
		unsigned long p = arg[f->arg];

		for (j = 0; j + 1 < f->n_derefs; j++)
			if (copy_from_kernel_nofault(&p, (const void *)(p + f->off[j]),
						     sizeof(p)))
				goto fault;
		if (ks_field_load(p + f->off[j], f->size, &arg[KS_ARGS + i]))
			goto fault;
	}
	return true;
fault:
	if (ks_filter_task(&t->req.filter, current) &&
	    ks_filter_cpu(&t->req.filter))
		ks_lost(t, &t->fault);
	return false;
}

/**
 * ks_anchor_function() - where a probed function's frame starts
 * @a: set to just around @addr: past an ENDBR, a call to __fentry__
 * @addr: the function's entry
 *
 * Context: any.
 */
void KS_DIRECT_ONLY notrace ks_anchor_function(struct ks_anchor *a,
					       unsigned long addr)
{
	a->lo = addr - 16;
	a->hi = addr + 32;
	a->keep = true;
	a->ret = 0;
}
