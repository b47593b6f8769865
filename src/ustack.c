// SPDX-License-Identifier: GPL-2.0
/*
 * User-space stacks for key ustack and waker-ustack, taken as perf's and
 * the BPF stack map's are (perf_callchain_user()): from the registers the
 * task saved when it entered the kernel, the pc, then the chain of frame
 * records (a saved frame pointer and a return address) that code built
 * with frame pointers keeps. Every read is fault-free
 * (copy_from_user_nofault(), which also refuses an NMI that came in while
 * another mm was loaded), so this is safe in every context a kstats
 * handler runs in, and it is bounded: at most KS_DEPTH_MAX records.
 *
 * The frame that chain loses: the caller of a function that keeps no
 * frame record, as glibc's system-call wrappers keep none (bcc issues
 * 2887 and 2657 show the wrapper, then skip its caller). That caller's
 * return address is on the stack, between the stack pointer and the first
 * frame record (on arm64, in the link register). A word there is taken
 * as the caller only if it is the return address of a call (x86-64: call
 * rel32 or call *rel32(%rip); arm64: bl) whose target, through at most
 * one PLT stub, starts at most KS_CALLEE_SPAN bytes before the pc, and
 * only while the first frame record's return address is not itself such
 * a call (then the callee kept its record and nothing is lost). On
 * x86-64, up to KS_LEAF_LEVELS callers are kept, one above the other, for
 * wrappers that call wrappers (nanosleep() calls clock_nanosleep(), and
 * glibc 2.42's write() __syscall_cancel()), each a call into the function
 * the one before is in, until the record's return address is such a call;
 * above the first, where no word is such a call, the next return from any
 * call (glibc 2.41's cancellable wrappers tail-call, so their callers'
 * calls name another function).
 */
#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/byteorder.h>
#ifdef CONFIG_ARM64
#include <asm/pointer_auth.h>
#endif
#include <asm/ptrace.h>

#include "ustack.h"

/* How far before the pc the function it is in may start. */
#define KS_CALLEE_SPAN	4096
/* Frameless callers kept, one above the other. */
#define KS_LEAF_LEVELS	6
/* Words whose call site is read, at most, per stack: its cost's bound. */
#define KS_LEAF_READS	24
/* How far around the frames in use a word is taken for a stack address. */
#define KS_STACK_NEAR	SZ_64K

const char * const ks_ustack_none_names[KS_USTACK_NR] = {
	[KS_USTACK_TAKEN] = "",
	[KS_USTACK_KTHREAD] = "[kernel thread]",
	[KS_USTACK_INTERRUPT] = "[interrupt]",
	[KS_USTACK_COMPAT] = "[32-bit task]",
};

static bool notrace ks_peek(void *dst, unsigned long addr, size_t size)
{
	return !copy_from_user_nofault(dst, (const void __user *)addr, size);
}

/* A little-endian 32-bit field of an instruction, at any alignment. */
static s32 notrace ks_insn32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

#if defined(CONFIG_X86_64)
/* Where the call that returns to @ret went; 0 if no call precedes @ret. */
static unsigned long notrace ks_call_target(unsigned long ret)
{
	unsigned long target;
	u8 insn[6];

	if (ret < 6 || !ks_peek(insn, ret - 6, sizeof(insn)))
		return 0;
	if (insn[1] == 0xe8)		/* call rel32 */
		return ret + (s32)ks_insn32(insn + 2);
	if (insn[0] == 0xff && insn[1] == 0x15 &&	/* call *rel32(%rip) */
	    ks_peek(&target, ret + (s32)ks_insn32(insn + 2),
		    sizeof(target)))
		return target;
	return 0;
}

/* Where a PLT stub at @at jumps ([endbr64;] [bnd] jmp *rel32(%rip)), else @at. */
static unsigned long notrace ks_plt_target(unsigned long at)
{
	unsigned long target;
	unsigned int i = 0;
	u8 insn[11];

	if (!ks_peek(insn, at, sizeof(insn)))
		return at;
	if ((u32)ks_insn32(insn) == 0xfa1e0ff3)	/* endbr64 */
		i = 4;
	if (insn[i] == 0xf2)				/* bnd */
		i++;
	if (insn[i] != 0xff || insn[i + 1] != 0x25)
		return at;
	if (!ks_peek(&target, at + i + 6 + (s32)ks_insn32(insn + i + 2),
		     sizeof(target)))
		return at;
	return target;
}
#elif defined(CONFIG_ARM64)
static unsigned long notrace ks_call_target(unsigned long ret)
{
	u32 insn;

	if (ret < 4 || !ks_peek(&insn, ret - 4, sizeof(insn)))
		return 0;
	insn = le32_to_cpu((__force __le32)insn);
	if ((insn & 0xfc000000) != 0x94000000)		/* bl imm26 */
		return 0;
	return ret - 4 + sign_extend64(insn & 0x3ffffff, 25) * 4;
}

/* Static code calls its callee straight: PLT stubs are not decoded here. */
static unsigned long notrace ks_plt_target(unsigned long at)
{
	return at;
}
#endif

#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
/* Whether @ret returns from a call into the function that holds @pc. */
static bool notrace ks_calls_into(unsigned long ret, unsigned long pc)
{
	unsigned long callee = ks_call_target(ret);

	if (!callee)
		return false;
	callee = ks_plt_target(callee);
	/*
	 * The caller's return address is not between the callee's start and
	 * the pc, inside the callee: that is a call the callee made itself
	 * (a stale return address of its own). Functions of a shared
	 * library lie side by side, so the caller may well be just after.
	 */
	return pc - callee < KS_CALLEE_SPAN && ret - callee > pc - callee;
}
#endif

#if defined(CONFIG_X86_64)
/*
 * The first of @scan[@from..@words - 1] that returns from a call into
 * @pc's function (@strict), or from any call; @words if none. Words that
 * cannot be code are passed over without a read: small numbers, and
 * addresses on this stack (saved frame pointers, locals' addresses)
 * between sp and the first frame records, @top, give or take
 * KS_STACK_NEAR. Not further: a thread's stack is mapped just below the
 * shared libraries, whose code may lie within 1 MiB above its sp.
 * Each word whose call site is read takes one of *@reads; none left, the
 * search ends.
 */
static unsigned int notrace ks_scan_calls(const unsigned long *scan,
					  unsigned int from, unsigned int words,
					  unsigned long sp, unsigned long top,
					  unsigned long pc, bool strict,
					  unsigned int *reads)
{
	unsigned long lo = sp - KS_STACK_NEAR, hi = top + KS_STACK_NEAR;

	for (; from < words; from++) {
		unsigned long w = scan[from];

		if (w < PAGE_SIZE || (w >= lo && w < hi))
			continue;
		if (!*reads)
			return words;
		--*reads;
		if (strict ? ks_calls_into(w, pc) : ks_call_target(w) != 0)
			break;
	}
	return from;
}
#endif

/*
 * Callers of @pc's function (and of theirs) that kept no frame record:
 * their return addresses, into @frame[0..@room - 1]. @rec_ret is the
 * first frame record's return address, @rec_up the record it links to,
 * @end that record's address (the search stops there), or 0 when there
 * is no record: then code without frame pointers is running, whose stack
 * kstats does not search.
 */
static unsigned int notrace ks_frameless_callers(struct pt_regs *regs,
						 unsigned long *frame,
						 unsigned int room,
						 unsigned long *scan,
						 unsigned long pc,
						 unsigned long end,
						 unsigned long rec_up,
						 unsigned long rec_ret)
{
	unsigned int n = 0;
#if defined(CONFIG_X86_64)
	unsigned long sp = user_stack_pointer(regs);
	/* The frames in use: to the first record, and the one it links to. */
	unsigned long top = rec_up > end && rec_up - end < SZ_1M ? rec_up : end;
	unsigned int words, i = 0, reads = KS_LEAF_READS;

	if (end <= sp)
		return 0;
	words = min_t(unsigned long, KS_USTACK_SCAN_WORDS, (end - sp) / sizeof(long));
	if (!words || !ks_peek(scan, sp, words * sizeof(long)))
		return 0;
	while (n < min(room, KS_LEAF_LEVELS) && !(rec_ret && ks_calls_into(rec_ret, pc))) {
		unsigned int at = ks_scan_calls(scan, i, words, sp, top, pc, true, &reads);

		/*
		 * None called the function the last one is in: a tail call hid
		 * it (glibc 2.41's read jumps to the cancellation code), so
		 * above the first caller the next return from any call is
		 * taken.
		 */
		if (at == words && n)
			at = ks_scan_calls(scan, i, words, sp, top, pc, false, &reads);
		if (at == words)
			break;
		pc = scan[at];
		frame[n++] = pc;
		i = at + 1;
	}
#elif defined(CONFIG_ARM64)
	unsigned long lr = ks_strip_user_pac(regs->regs[30]);

	/* A leaf without a record returns through the link register. */
	if (room && lr != rec_ret && !(rec_ret && ks_calls_into(rec_ret, pc)) &&
	    ks_calls_into(lr, pc))
		frame[n++] = lr;
#endif
	return n;
}

/**
 * ks_user_stack() - the current task's user frames, innermost first
 * @frame: where they go
 * @depth: at most this many
 * @scan: KS_USTACK_SCAN_WORDS words of scratch
 * @level: the context level of the sampled code (ks_kprobe_level(): not
 *         always the handler's), 0 for task level
 * @tgid: set to the process whose address space the frames are in, or 0
 * @start: set to its start (start_boottime, ns), for the tool to tell it
 *         from a later process of the same pid
 * @none: set to why there are no frames (enum ks_ustack_none), else
 *        KS_USTACK_TAKEN
 *
 * The first frame is the pc where the task entered the kernel.
 *
 * Context: a kstats handler, any context level (in an interrupt there is
 * no user stack of the sample's: *@none says so), preemption disabled.
 * Return: how many frames were written.
 */
unsigned int notrace ks_user_stack(unsigned long *frame, unsigned int depth,
				   unsigned long *scan, unsigned int level,
				   pid_t *tgid, u64 *start, u8 *none)
{
	unsigned long fp, rec[2] = {};
	struct pt_regs *regs;
	unsigned int n = 0;
	bool have_rec;

	*tgid = 0;
	*start = 0;
	if (level) {
		*none = KS_USTACK_INTERRUPT;
		return 0;
	}
	if ((current->flags & KS_PF_NO_USER) || !current->mm) {
		*none = KS_USTACK_KTHREAD;
		return 0;
	}
	regs = task_pt_regs(current);
	if (ks_user_regs_compat(regs)) {
		*none = KS_USTACK_COMPAT;
		return 0;
	}
	*none = KS_USTACK_TAKEN;
	*tgid = current->tgid;
	*start = current->group_leader->start_boottime;
	if (!depth)
		return 0;
	frame[n++] = instruction_pointer(regs);
	fp = frame_pointer(regs);
	have_rec = fp && IS_ALIGNED(fp, sizeof(long)) &&
		   ks_peek(rec, fp, sizeof(rec));
	rec[1] = ks_strip_user_pac(rec[1]);
	n += ks_frameless_callers(regs, frame + n, depth - n, scan, frame[0],
				  have_rec ? fp : 0, have_rec ? rec[0] : 0,
				  have_rec ? rec[1] : 0);
	while (have_rec && n < depth && rec[1]) {
		frame[n++] = rec[1];
		/* Records go up the stack; anything else is not a chain. */
		if (rec[0] <= fp || !IS_ALIGNED(rec[0], sizeof(long)))
			break;
		fp = rec[0];
		have_rec = ks_peek(rec, fp, sizeof(rec));
		rec[1] = ks_strip_user_pac(rec[1]);
	}
	return n;
}

#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
NOKPROBE_SYMBOL(ks_call_target);
NOKPROBE_SYMBOL(ks_plt_target);
NOKPROBE_SYMBOL(ks_calls_into);
#endif
#if defined(CONFIG_X86_64)
NOKPROBE_SYMBOL(ks_scan_calls);
#endif
NOKPROBE_SYMBOL(ks_peek);
NOKPROBE_SYMBOL(ks_insn32);
NOKPROBE_SYMBOL(ks_frameless_callers);
NOKPROBE_SYMBOL(ks_user_stack);
