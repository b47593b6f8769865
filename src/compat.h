/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels kstats builds for lives here.
 * Force-included into every file by Kbuild, so the rest of the code reads
 * as if written for one kernel. Features are probed, not versions, where
 * the headers allow it.
 */
#ifndef _KSTATS_COMPAT_H
#define _KSTATS_COMPAT_H

/*
 * Kernels without what kstats needs are refused by the probes in Kbuild,
 * with a message, before any file is compiled.
 */

/*
 * this_cpu_add() is a single instruction on x86-64, so a sample taken in
 * NMI context cannot tear a record it interrupted. Elsewhere it may be a
 * load/modify/store guarded by disabling IRQs, which NMIs ignore.
 */
#ifdef CONFIG_X86_64
#define KS_NMI_SAFE_THIS_CPU	1
#else
#define KS_NMI_SAFE_THIS_CPU	0
#endif

/*
 * A matched section (matched.c) reads its points' arguments from the
 * registers they are passed in: regs_get_kernel_argument() at a kprobe,
 * the registers after @data in a tracepoint probe. Both hold for the
 * first KS_MATCH_ARG_MAX + 1 arguments on x86-64 (rsi..r9 after data)
 * and arm64 (x1..x5); 32-bit kernels pass some on the stack, or split
 * u64s in two, so match is refused there.
 */
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
#define KS_MATCH_SOUND		1
#else
#define KS_MATCH_SOUND		0
#endif

/*
 * fprobe, in the two APIs kstats knows (Kbuild probes include/linux/fprobe.h):
 * - KS_FPROBE_PT_REGS_RET_IP, 6.3 to 6.13: handlers get pt_regs; the call
 *   data sits in a rethook pool of nr_maxactive instances per probe.
 * - KS_FPROBE_FTRACE_REGS, 6.14 on: handlers get ftrace_regs; fprobe runs
 *   on the function-graph tracer, and the call data sits on the task's
 *   shadow stack: no pool, no nr_maxactive.
 * Elsewhere "method fprobe" fails with -EOPNOTSUPP and kretprobe is the
 * default; KS_FPROBE_UNKNOWN_API says the kernel had an fprobe kstats did
 * not know (the build and the load message say so).
 */
#if defined(KS_FPROBE_PT_REGS_RET_IP)
#define KS_FPROBE_REGS_ARG	struct pt_regs *regs
#define KS_FPROBE_POOL		1
#define ks_fprobe_set_maxactive(fp, n)	((fp)->nr_maxactive = (n))
#elif defined(KS_FPROBE_FTRACE_REGS)
#define KS_FPROBE_REGS_ARG	struct ftrace_regs *regs
#define KS_FPROBE_POOL		0
#define ks_fprobe_set_maxactive(fp, n)	((void)(fp), (void)(n))
#endif

/* An fprobe handler's view of the arguments and the return value. */
#if defined(KS_FPROBE_PT_REGS_RET_IP)
#define ks_fprobe_arg(regs, n)	regs_get_kernel_argument(regs, n)
#define ks_fprobe_ret(regs)	regs_return_value(regs)
#elif defined(KS_FPROBE_FTRACE_REGS)
#define ks_fprobe_arg(regs, n)	ftrace_regs_get_argument(regs, n)
#define ks_fprobe_ret(regs)	ftrace_regs_get_return_value(regs)
#endif

#ifdef KS_FPROBE_REGS_ARG
#define KS_HAVE_FPROBE		1
#define KS_FPROBE_ENTRY(fn)						\
	int notrace fn(struct fprobe *fp, unsigned long entry_ip,	\
		       unsigned long ret_ip, KS_FPROBE_REGS_ARG,	\
		       void *entry_data)
#define KS_FPROBE_EXIT(fn)						\
	void notrace fn(struct fprobe *fp, unsigned long entry_ip,	\
			unsigned long ret_ip, KS_FPROBE_REGS_ARG,	\
			void *entry_data)
#define KS_FPROBE_ENTRY_OK	0
#define KS_FPROBE_ENTRY_SKIP	1	/* no exit handler for this call */
#else
#define KS_HAVE_FPROBE		0
#define KS_FPROBE_POOL		0
#endif

/*
 * fprobe on the function graph keeps each call's entry data on the task's
 * shadow stack, in one block per call for all the fprobes of the function
 * (kernel/trace/fprobe.c, fprobe_fgraph_entry()): a header and the entry
 * data of each fprobe with an exit handler, disabled ones too. fgraph
 * refuses a block over FGRAPH_MAX_DATA_SIZE, sizeof(long) << 5 bytes
 * (kernel/trace/fgraph.c, private: no header has it, so it is written
 * here), and then every fprobe of that function misses the call. The
 * header is one word where the arch packs the fprobe's address and size
 * into one (asm/fprobe.h: ARCH_DEFINE_ENCODE_FPROBE_HEADER, 64-bit), else
 * two. function.c keeps its own fprobes within KS_FGRAPH_DATA_WORDS on
 * every function.
 */
#ifdef KS_FPROBE_FTRACE_REGS
#include <linux/fprobe.h>
#include <asm/fprobe.h>
#define KS_FGRAPH_DATA_WORDS	32
#ifdef ARCH_DEFINE_ENCODE_FPROBE_HEADER
#define KS_FPROBE_HEADER_WORDS	1
#else
#define KS_FPROBE_HEADER_WORDS	2
#endif
#define KS_FPROBE_SHADOW_STACK	1
#else
#define KS_FPROBE_SHADOW_STACK	0
#endif

#ifdef KS_FPROBE_UNKNOWN_API
#define KS_FPROBE_MISSING	"this kernel's fprobe API is not one this kstats knows"
#else
#define KS_FPROBE_MISSING	"kernel without CONFIG_FPROBE"
#endif

/*
 * hrtimer_setup() (6.13) replaced hrtimer_init() and the assignment of
 * ->function; hrtimer_init() is gone since 6.15. Code calls hrtimer_setup().
 */
#ifndef KS_HAVE_HRTIMER_SETUP
#include <linux/hrtimer.h>
static inline void ks_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = fn;
}

#define hrtimer_setup ks_hrtimer_setup
#endif

/* sched_switch gained prev_state in 5.18; Kbuild probes the header. */
#ifdef KS_SCHED_SWITCH_PREV_STATE
#define KS_SCHED_SWITCH_PROTO						\
	bool preempt, struct task_struct *prev, struct task_struct *next, \
	unsigned int prev_state
/* The state prev leaves its CPU in, inside a KS_SCHED_SWITCH_PROTO probe. */
#define KS_SCHED_SWITCH_STATE	prev_state
#else
#define KS_SCHED_SWITCH_PROTO						\
	bool preempt, struct task_struct *prev, struct task_struct *next
#define KS_SCHED_SWITCH_STATE	READ_ONCE(prev->__state)
#endif

/*
 * Since 6.7 rethook (kretprobe and fprobe instances) sits on an objpool,
 * which gives every possible CPU a ring of roundup_pow_of_two(maxactive)
 * pointers; before, one free list. Kbuild probes include/linux/rethook.h.
 */
#ifdef KS_RETHOOK_OBJPOOL
#define KS_RETHOOK_PERCPU_RING	1
#else
#define KS_RETHOOK_PERCPU_RING	0
#endif

/*
 * The return address of a function stopped at its entry (a kprobe or
 * kretprobe there, before its prologue), where arch_rethook_prepare()
 * takes it: on the stack on x86, in the link register on arm64. 0 where
 * not known: keyed stacks then show what the unwinder found.
 */
#if defined(CONFIG_X86)
#define ks_entry_return_address(r)	(*(unsigned long *)kernel_stack_pointer(r))
#elif defined(CONFIG_ARM64)
#define ks_entry_return_address(r)	((r)->regs[30])
#else
#define ks_entry_return_address(r)	((void)(r), 0UL)
#endif

/*
 * The context level (as interrupt_context_level()) of the code a kprobe
 * stopped in. x86 runs an int3 kprobe's handler inside nmi_enter()
 * (exc_int3(): irqentry_nmi_enter()), one NMI and one hardirq level above
 * it; a kprobe on an ftrace site, an optimized one, and arm64's run at
 * its level. (An optimized kprobe hit inside a real NMI would be taken
 * for task level: its sections would pair with the interrupted task's.)
 */
#include <linux/preempt.h>
static __always_inline unsigned int ks_level_of(unsigned long pc)
{
	return !!(pc & NMI_MASK) + !!(pc & (NMI_MASK | HARDIRQ_MASK)) +
	       !!(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}

#ifdef CONFIG_X86
#define ks_kprobe_level(p)						\
	ks_level_of(preempt_count() -					\
		    (!kprobe_ftrace(p) && in_nmi() ?			\
		     NMI_OFFSET + HARDIRQ_OFFSET : 0))
#else
#define ks_kprobe_level(p)	((void)(p), ks_level_of(preempt_count()))
#endif

/* Whether @p is on a CPU right now (a config difference, not a version one). */
#ifdef CONFIG_SMP
#define ks_task_on_cpu(p)	READ_ONCE((p)->on_cpu)
#else
#define ks_task_on_cpu(p)	((p) == current)
#endif

/*
 * The caller a rethook trampoline (@tramp) stands for in current's
 * newest call hooked by one: its newest rethook node not itself returning
 * to the trampoline (a second hook of one call saved the first's), as the
 * kernel's own __rethook_find_ret_addr(), which modules cannot call.
 * current's list changes only at its own level or in an interrupt that
 * restores it before returning. 0 without rethook (before 5.19).
 */
#ifdef CONFIG_RETHOOK
#include <linux/rethook.h>
#include <linux/sched.h>
static __always_inline unsigned long ks_rethook_caller(unsigned long tramp)
{
	struct llist_node *node;

	for (node = READ_ONCE(current->rethooks.first); node; node = node->next) {
		struct rethook_node *rh = container_of(node, struct rethook_node, llist);

		if (rh->ret_addr != tramp)
			return rh->ret_addr;
	}
	return 0;
}
#else
#define ks_rethook_caller(tramp)	((void)(tramp), 0UL)
#endif

/*
 * The same for a kretprobe trampoline of kretprobes without rethook
 * (arm64 on 6.1 and 6.12): current's newest kretprobe instance, as the
 * kernel's own kretprobe_find_ret_addr().
 */
#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
#include <linux/kprobes.h>
#include <linux/sched.h>
static __always_inline unsigned long ks_kretprobe_caller(unsigned long tramp)
{
	struct llist_node *node;

	for (node = READ_ONCE(current->kretprobe_instances.first); node;
	     node = node->next) {
		struct kretprobe_instance *ri =
			container_of(node, struct kretprobe_instance, llist);

		if ((unsigned long)ri->ret_addr != tramp)
			return (unsigned long)ri->ret_addr;
	}
	return 0;
}
#else
#define ks_kretprobe_caller(tramp)	((void)(tramp), 0UL)
#endif

/*
 * The hot path's shared functions are only ever called directly: with
 * IBT they need no ENDBR, which would make each 4 bytes longer than the
 * static functions they were. (A config difference, not a version one.)
 */
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#define KS_DIRECT_ONLY	__noendbr
#else
#define KS_DIRECT_ONLY
#endif

/*
 * Prefixes of syscall entry points, as each arch's syscall_wrapper.h
 * spells them (__x64_sys_getpid); the plain sys_ of arches without
 * wrappers last. names.c tries them and keeps the first that exists.
 */
#define KS_SYSCALL_PREFIXES	"__x64_sys_", "__arm64_sys_", "__riscv_sys_", \
				"__s390x_sys_", "__ia32_sys_", "sys_"

/*
 * User stacks (ustack.c). Tasks without a user space of their own:
 * kernel threads, and io_uring's and vhost's workers (PF_USER_WORKER
 * since 6.4, PF_IO_WORKER before). A 32-bit task on a 64-bit kernel
 * keeps 32-bit frame records, which are not walked. arm64's return
 * addresses may carry a pointer authentication code, stripped as perf
 * strips it (ptrauth_strip_user_insn_pac() since 6.5, before it
 * ptrauth_strip_insn_pac()).
 */
#ifdef PF_USER_WORKER
#define KS_PF_NO_USER	(PF_KTHREAD | PF_USER_WORKER)
#else
#define KS_PF_NO_USER	(PF_KTHREAD | PF_IO_WORKER)
#endif
#if defined(CONFIG_X86_64)
#define ks_user_regs_compat(regs)	(!user_64bit_mode(regs))
#elif defined(CONFIG_ARM64)
#define ks_user_regs_compat(regs)	compat_user_mode(regs)
#else
#define ks_user_regs_compat(regs)	((void)(regs), false)
#endif
#if !defined(CONFIG_ARM64)
#define ks_strip_user_pac(addr)		(addr)
#elif defined(KS_HAVE_PTRAUTH_STRIP_USER)
#define ks_strip_user_pac(addr)		ptrauth_strip_user_insn_pac(addr)
#else
#define ks_strip_user_pac(addr)		ptrauth_strip_insn_pac(addr)
#endif

#endif /* _KSTATS_COMPAT_H */
