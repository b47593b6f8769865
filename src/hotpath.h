/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hot path every method shares: the guard against kstats' own hits,
 * the clock, span recording, GAP and the key hooks. Called from probe
 * handlers: any context (task, softirq, hardirq, NMI), preemption off.
 */
#ifndef _KSTATS_HOTPATH_H
#define _KSTATS_HOTPATH_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include "hist.h"
#include "keys.h"
#include "trace.h"

struct ks_starts;
struct ks_tag;
struct task_struct;

/* Per CPU, one flag per context slot (see ks_context_slot()). */
struct ks_guard {
	u8 busy[KS_CONTEXT_SLOTS];
};

DECLARE_PER_CPU(struct ks_guard, ks_guard);

/**
 * ks_enter() - mark this CPU's context slot as inside a kstats handler
 *
 * A probe hit from inside one (kstats reads the clock through
 * ktime_get_mono_fast_ns(), which may itself be traced) is then neither
 * timed nor lost silently: it counts as missed, for every method, as
 * kprobes already does for its own handlers. An interrupt or NMI
 * meanwhile has its own slot and is timed, the end of an interrupt back
 * at task level included (ks_context_slot()).
 *
 * Context: a probe handler, preemption off, so the flag stays on this CPU.
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

/* The arguments of a function stopped at its entry (a kprobe there). */
static __always_inline void ks_regs_args(struct pt_regs *regs,
					 unsigned long *arg)
{
	unsigned int i;

	for (i = 0; i < KS_ARGS; i++)
		arg[i] = regs_get_kernel_argument(regs, i);
}

/* Only ever called directly: see KS_DIRECT_ONLY. */
bool KS_DIRECT_ONLY ks_fields_read(struct ks_trace *t, unsigned long *arg);

/*
 * Whether a start whose arguments are @arg[0..KS_ARGS - 1] is timed, by
 * the "if" words on arguments, after its fields through pointers are
 * read into @arg[KS_ARGS...] (a read that faults: not timed, counted).
 * Callers read @arg only if t->req.reads_args.
 */
static __always_inline bool ks_args_admit(struct ks_trace *t,
					  unsigned long *arg)
{
	if (unlikely(t->req.n_fields) && !ks_fields_read(t, arg))
		return false;
	return !t->req.filter.on_args || ks_filter_args(&t->req.filter, arg);
}

/* What key argN reads of a start's arguments @arg; 0 without such a key. */
static __always_inline unsigned long ks_key_arg(const struct ks_trace *t,
						const unsigned long *arg)
{
	return ks_keys_spec_on_arg(&t->req.keys) ? arg[t->req.keys.value.arg] : 0;
}

/* Only ever called directly: see KS_DIRECT_ONLY. */
u32 KS_DIRECT_ONLY __ks_stack(struct ks_trace *t, enum ks_key_part part,
			      const struct ks_anchor *at, unsigned long ret,
			      unsigned int level);

/**
 * ks_stack() - the stack for key kstack (or ustack) or end-kstack, if keyed
 * @t: the trace
 * @part: KS_KEY_KSTACK or KS_KEY_END_KSTACK
 * @at: where the probe's own frames end
 * @ret: the probed function's return address, or 0 (see ks_anchor)
 * @level: the context level of the sampled code (ks_kprobe_level())
 *
 * Context: a probe handler, inside ks_enter().
 * Return: the stack's id, or 0 if the key has no such part.
 */
static __always_inline u32 ks_stack(struct ks_trace *t, enum ks_key_part part,
				    const struct ks_anchor *at,
				    unsigned long ret, unsigned int level)
{
	return ks_keys_has_stack(t->keys, part) ?
	       __ks_stack(t, part, at, ret, level) : 0;
}

/* The clock of every sample: NMI-safe, monotonic. */
static inline u64 notrace ks_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* A call or section ends: the start of the next one's GAP on this CPU. */
static inline void notrace ks_gap_end(struct ks_trace *t, u64 now)
{
	this_cpu_write(*t->last_end, now);
}

void ks_set_return_trampolines(unsigned long rethook, unsigned long fgraph,
			       unsigned long kretprobe);

/* Only ever called directly: see KS_DIRECT_ONLY. */
void KS_DIRECT_ONLY __ks_gap_begin(struct ks_trace *t, u64 now);
void KS_DIRECT_ONLY __ks_gap_admitted(struct ks_trace *t, u64 last, u64 start,
				      unsigned int cpu);

/*
 * A call or section starts: GAP-NAME gets the time since the end of the
 * last one on this CPU. A trace with "gap off" has no GAP-NAME, and
 * skips the exchange and the record.
 */
static __always_inline void ks_gap_begin(struct ks_trace *t, u64 now)
{
	if (t->gap)
		__ks_gap_begin(t, now);
}

/* ks_gap_begin() of a call that "if ret" admitted: see __ks_gap_admitted(). */
static __always_inline void ks_gap_admitted(struct ks_trace *t, u64 last,
					    u64 start, unsigned int cpu)
{
	if (t->gap)
		__ks_gap_admitted(t, last, start, cpu);
}

/* Only ever called directly: see KS_DIRECT_ONLY. */
void KS_DIRECT_ONLY ks_record_span(struct ks_trace *t, struct task_struct *task,
				   u64 start, u64 now, const struct ks_tag *tag,
				   u32 end_stack);
void KS_DIRECT_ONLY ks_put_start(struct ks_trace *t, struct task_struct *task,
				 u64 now, u32 stack, bool replace);
void KS_DIRECT_ONLY ks_anchor_function(struct ks_anchor *a, unsigned long addr);
void KS_DIRECT_ONLY ks_section_left_out(struct ks_trace *t,
					struct task_struct *task,
					unsigned int level);
void KS_DIRECT_ONLY ks_section_start(struct ks_trace *t, struct task_struct *task,
				     unsigned int level, unsigned long ret,
				     const unsigned long *args);
void KS_DIRECT_ONLY ks_section_end(struct ks_trace *t, struct task_struct *task,
				   unsigned int level, unsigned long ret);
void KS_DIRECT_ONLY ks_starts_drop_task(struct ks_starts *st,
					struct task_struct *task);

#endif /* _KSTATS_HOTPATH_H */
