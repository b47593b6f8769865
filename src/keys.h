/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keyed rows of a trace, as bpftrace's @[kstack] = hist() and systemtap's
 * lockhistory[locker, unlocker]: a bounded table of rows, each keyed by
 * kernel stack, stack pair, comm, pid, tgid, CPU or cgroup; and the trace's
 * slowest samples. Handlers fill both without locks or allocation.
 */
#ifndef _KSTATS_KEYS_H
#define _KSTATS_KEYS_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/types.h>

#include "cgroup.h"

struct seq_file;

enum ks_key_part {
	KS_KEY_KSTACK,		/* the kernel stack where the sample starts */
	KS_KEY_END_KSTACK,	/* the kernel stack where a section ends */
	KS_KEY_USTACK,		/* the task's user stack where the sample starts */
	KS_KEY_COMM,		/* of the task the sample belongs to */
	KS_KEY_PID,
	KS_KEY_TGID,
	KS_KEY_CPU,		/* where the sample ends */
	KS_KEY_CGROUP,		/* the task's cgroup v2 directory, by id */
	/* Off-CPU waits: who woke the blocked task, at its wakeup. */
	KS_KEY_WAKER_KSTACK,	/* the waker's kernel stack */
	KS_KEY_WAKER_USTACK,	/* the waker's user stack */
	KS_KEY_WAKER_COMM,
	KS_KEY_WAKER_PID,
	KS_KEY_WAKER_CGROUP,
	/* The waker, the task that woke it before, ...: ks_key_spec.chain levels. */
	KS_KEY_WAKER_CHAIN,
	/* An argument or the return value (ks_key_spec.value): ret, argN. */
	KS_KEY_VALUE,
	KS_KEY_NR_PARTS,
};

#define KS_KEYS_DEFAULT		256	/* rows */
#define KS_KEYS_MAX		4096
#define KS_DEPTH_DEFAULT	16	/* frames of a stack */
#define KS_DEPTH_MAX		32
#define KS_SLOWEST_DEFAULT	8
#define KS_SLOWEST_MAX		64
#define KS_CHAIN_DEFAULT	2	/* levels of waker-chain */
#define KS_CHAIN_MAX		4

/*
 * A level of a chain that is no waker (ks_keys_chain_level() ids are
 * below them); 0 past the chain's end, after a marker or an interrupt.
 */
#define KS_CHAIN_RUNNING	0xffffffffU	/* not blocked when it woke */
#define KS_CHAIN_KTHREAD	0xfffffffeU	/* a kernel thread, not blocked */
#define KS_CHAIN_LOST		0xfffffffdU	/* a full table: not captured */
#define KS_CHAIN_MARKERS	KS_CHAIN_LOST
/* A level's own blocked time when its task's wait was not seen (no record). */
#define KS_CHAIN_NS_UNKNOWN	U64_MAX

/* Arguments a handler can read, arg0..arg4 (compat.h: KS_MATCH_SOUND). */
#define KS_ARGS			5
/* "if" words of one trace. */
#define KS_VALUE_FILTERS_MAX	4
/* The operand of an "if" that is the return value, not an argument. */
#define KS_VALUE_RET		0xff
/* An argument by name, until BTF gives its position (values.c): never attached. */
#define KS_VALUE_NAMED		0xfe
/* "->" in one field path (file->f_path.dentry), and its members at most. */
#define KS_FIELD_DEREFS		2
#define KS_FIELD_MEMBERS_MAX	4
/* Fields one trace reads through pointers: one per if word and the key's. */
#define KS_FIELDS_MAX		(KS_VALUE_FILTERS_MAX + 1)
/* A start's arguments, then the fields read through them (ks_fields_read()). */
#define KS_ARG_SLOTS		(KS_ARGS + KS_FIELDS_MAX)
/* An if word, or a key's value part as written (a name, a field path). */
#define KS_VALUE_WORD_MAX	64

/*
 * A field a start reads through its pointer argument @arg: each "->"
 * reads at the pointer before it plus off[i], the last one @size bytes.
 * Offsets come from BTF (btf.c) when the trace is made.
 */
struct ks_field {
	u8 arg;
	u8 n_derefs;		/* 1..KS_FIELD_DEREFS */
	u8 size;		/* 1, 2, 4 or 8 */
	u32 off[KS_FIELD_DEREFS];
};

enum ks_value_op {
	KS_VOP_EQ, KS_VOP_NE, KS_VOP_LT, KS_VOP_LE, KS_VOP_GT, KS_VOP_GE,
	KS_VOP_MASK,		/* "&": any bit of the constant set */
};

/* Where a value's type came from, as the listing says. */
enum ks_value_source {
	KS_VSRC_REGISTER,	/* no BTF entry: s64 for ret, u64 for argN */
	KS_VSRC_GIVEN,		/* :TYPE */
	KS_VSRC_BTF,		/* the function's BTF (btf.c) */
};

/* A value a probe reads: an argument or the return value, and its type. */
struct ks_value {
	/* 0..KS_ARGS - 1; KS_ARGS + i, the request's field i; KS_VALUE_RET (or _NAMED) */
	u8 arg;
	u8 bits;		/* 8, 16, 32 or 64 */
	bool is_signed;
	u8 source;		/* enum ks_value_source */
};

/*
 * The register @raw read as @v's type: cut to its width, then
 * sign-extended for a signed type (the upper bits of a 32-bit argument
 * or return are not defined by the calling convention).
 */
static __always_inline u64 ks_value_of(const struct ks_value *v, u64 raw)
{
	if (v->bits == 64)
		return raw;
	raw &= GENMASK_ULL(v->bits - 1, 0);
	return v->is_signed ? (u64)sign_extend64(raw, v->bits - 1) : raw;
}

/* What "key K[,K] keys N slowest N" asked for. */
struct ks_key_spec {
	u8 n_parts;			/* 0: no keyed rows */
	u8 parts[KS_KEY_NR_PARTS];	/* in the order written */
	/* Frames of kstack, end-kstack, waker-kstack, ustack, waker-ustack. */
	u8 depth[5];
	u16 rows;			/* keys N */
	u8 slowest;			/* slowest N */
	u8 chain;			/* levels of waker-chain, 1..KS_CHAIN_MAX */
	struct ks_value value;		/* of KS_KEY_VALUE */
	bool value_log2;		/* rows by power of two of the value */
	/* A name or field path, as written; empty for ret and argN. */
	char value_word[KS_VALUE_WORD_MAX];
};

#define KS_FILTER_PID	BIT(0)
#define KS_FILTER_TGID	BIT(1)
#define KS_FILTER_COMM	BIT(2)
#define KS_FILTER_CPU	BIT(3)
#define KS_FILTER_CGROUP	BIT(4)

/* "if argN OP V" or "if ret OP V": a value against a constant. */
struct ks_value_filter {
	struct ks_value v;
	u8 op;			/* enum ks_value_op */
	u64 constant;		/* as a value of v's type, sign-extended */
	char word[KS_VALUE_WORD_MAX];	/* as written, for the listing */
};

/* "pid P tgid P comm C cpu N cgroup PATH if ...": what a trace records, ANDed. */
struct ks_filter {
	u8 has;			/* KS_FILTER_* given */
	u8 n_values;		/* value[0..n_values - 1] */
	bool on_args;		/* some value[] is an argument */
	bool on_ret;		/* some value[] is the return value */
	pid_t pid;
	pid_t tgid;
	unsigned int cpu;
	char comm[TASK_COMM_LEN];
	/* As written; the cgroup, held while the trace lives (traces.c). */
	char cgroup_path[KS_CGROUP_PATH_MAX];
	struct ks_cgroup_filter *cgroup;
	struct ks_value_filter value[KS_VALUE_FILTERS_MAX];
};

/* Whether @vf admits the register value @raw. */
static __always_inline bool ks_value_admits(const struct ks_value_filter *vf,
					    u64 raw)
{
	u64 v = ks_value_of(&vf->v, raw);
	int cmp;

	/* The constant of a mask has no bit past the type's width. */
	if (vf->op == KS_VOP_MASK)
		return v & vf->constant;
	if (vf->v.is_signed)
		cmp = ((s64)v > (s64)vf->constant) - ((s64)v < (s64)vf->constant);
	else
		cmp = (v > vf->constant) - (v < vf->constant);
	switch (vf->op) {
	case KS_VOP_EQ:
		return !cmp;
	case KS_VOP_NE:
		return cmp;
	case KS_VOP_LT:
		return cmp < 0;
	case KS_VOP_LE:
		return cmp <= 0;
	case KS_VOP_GT:
		return cmp > 0;
	default:
		return cmp >= 0;
	}
}

/* Whether the filters on arguments admit @arg[0..KS_ARG_SLOTS - 1]. */
static __always_inline bool ks_filter_args(const struct ks_filter *f,
					   const unsigned long *arg)
{
	unsigned int i;

	for (i = 0; i < f->n_values; i++)
		if (f->value[i].v.arg != KS_VALUE_RET &&
		    !ks_value_admits(&f->value[i], arg[f->value[i].v.arg]))
			return false;
	return true;
}

/* Whether the filters on the return value admit @ret. */
static __always_inline bool ks_filter_ret(const struct ks_filter *f,
					  unsigned long ret)
{
	unsigned int i;

	for (i = 0; i < f->n_values; i++)
		if (f->value[i].v.arg == KS_VALUE_RET &&
		    !ks_value_admits(&f->value[i], ret))
			return false;
	return true;
}

/* Whether the task filters admit @p. */
static __always_inline bool ks_filter_task(const struct ks_filter *f,
					   const struct task_struct *p)
{
	if (likely(!(f->has & ~KS_FILTER_CPU)))
		return true;
	if ((f->has & KS_FILTER_PID) && p->pid != f->pid)
		return false;
	if ((f->has & KS_FILTER_TGID) && p->tgid != f->tgid)
		return false;
	if ((f->has & KS_FILTER_CGROUP) && !ks_task_in_cgroup(p, f->cgroup))
		return false;
	return !(f->has & KS_FILTER_COMM) ||
	       !strncmp(p->comm, f->comm, TASK_COMM_LEN);
}

/* Whether the cpu filter admits this CPU. */
static __always_inline bool ks_filter_cpu(const struct ks_filter *f)
{
	return !(f->has & KS_FILTER_CPU) || raw_smp_processor_id() == f->cpu;
}

/*
 * Which frames of a captured stack are the probe's own, not the kernel's:
 * a frame in [lo, hi) is the first kept (a probed function, @keep) or the
 * last dropped (a tracepoint's iterator). @ret, if not 0, is the probed
 * function's return address: at its entry, before its prologue, a
 * frame-pointer unwinder (arm64) does not see its caller yet, so the
 * caller is added after it if missing.
 */
struct ks_anchor {
	unsigned long lo, hi;
	unsigned long ret;
	bool keep;
};

struct ks_keys;

extern const char * const ks_key_part_names[KS_KEY_NR_PARTS];

/* Which of a spec's depth[] a stack part takes. */
static inline unsigned int ks_key_stack_slot(enum ks_key_part part)
{
	switch (part) {
	case KS_KEY_END_KSTACK:
		return 1;
	case KS_KEY_WAKER_KSTACK:
	case KS_KEY_WAKER_CHAIN:	/* its levels' kernel frames */
		return 2;
	case KS_KEY_USTACK:
		return 3;
	case KS_KEY_WAKER_USTACK:
		return 4;
	default:
		return 0;
	}
}

/* Whether @part is a stack, which takes a depth. */
static inline bool ks_key_part_is_stack(enum ks_key_part part)
{
	return part <= KS_KEY_USTACK || part == KS_KEY_WAKER_KSTACK ||
	       part == KS_KEY_WAKER_USTACK;
}

/*
 * The user part that rides in the stack entry of kernel part @part: a
 * start's ustack in its kstack's, a waker's in its waker-kstack's.
 */
static inline enum ks_key_part ks_key_user_part(enum ks_key_part part)
{
	return part == KS_KEY_WAKER_KSTACK ? KS_KEY_WAKER_USTACK : KS_KEY_USTACK;
}

/* Whether @part is one of the waker's (offcpu traces only). */
static inline bool ks_key_part_is_waker(enum ks_key_part part)
{
	return part >= KS_KEY_WAKER_KSTACK && part <= KS_KEY_WAKER_CHAIN;
}

/* Whether @spec keys rows by @part. */
static inline bool ks_keys_spec_has(const struct ks_key_spec *spec,
				    enum ks_key_part part)
{
	unsigned int i;

	for (i = 0; i < spec->n_parts; i++)
		if (spec->parts[i] == part)
			return true;
	return false;
}

/* Whether @spec keys rows by an argument, which a start must read. */
static inline bool ks_keys_spec_on_arg(const struct ks_key_spec *spec)
{
	return ks_keys_spec_has(spec, KS_KEY_VALUE) &&
	       spec->value.arg != KS_VALUE_RET;
}

/* Whether @spec keys rows by the return value. */
static inline bool ks_keys_spec_on_ret(const struct ks_key_spec *spec)
{
	return ks_keys_spec_has(spec, KS_KEY_VALUE) &&
	       spec->value.arg == KS_VALUE_RET;
}

/*
 * The start of struct ks_keys (keys_table.h), which handlers read inline
 * before they call into keys.c: most samples of a trace without keyed
 * rows are below the floor of its slowest and have nothing to add there.
 */
struct ks_keys_head {
	struct ks_key_spec spec;
	u64 slow_floor;		/* the least value that enters the slowest */
};

/**
 * ks_keys_has() - whether a trace's rows are keyed by @part
 * @k: the trace's keys, or NULL
 * @part: a part of the key
 *
 * Context: any.
 */
static __always_inline bool ks_keys_has(const struct ks_keys *k,
					enum ks_key_part part)
{
	return k && ks_keys_spec_has(&((const struct ks_keys_head *)k)->spec,
				     part);
}

/**
 * ks_keys_has_stack() - whether a sample takes a stack entry for @part
 * @k: the trace's keys, or NULL
 * @part: KS_KEY_KSTACK or KS_KEY_WAKER_KSTACK, whose entry also holds
 *        the user stack of ustack or waker-ustack; or KS_KEY_END_KSTACK
 *
 * Context: any.
 */
static __always_inline bool ks_keys_has_stack(const struct ks_keys *k,
					      enum ks_key_part part)
{
	return ks_keys_has(k, part) ||
	       (part != KS_KEY_END_KSTACK &&
		ks_keys_has(k, ks_key_user_part(part)));
}

/**
 * ks_keys_wanted() - whether ks_keys_record() has anything to do with @value
 * @k: the trace's keys
 * @value: the sample
 *
 * False only for a sample that no keyed row takes and that is not above
 * the floor of the slowest (0 until the list is full): ks_keys_record()
 * would do nothing with it.
 *
 * Context: any.
 */
static __always_inline bool ks_keys_wanted(const struct ks_keys *k, u64 value)
{
	const struct ks_keys_head *h = (const struct ks_keys_head *)k;

	return h->spec.n_parts ||
	       (h->spec.slowest && value >= READ_ONCE(h->slow_floor));
}

struct ks_keys *ks_keys_alloc(const struct ks_key_spec *spec);
void ks_keys_free(struct ks_keys *k);
size_t ks_keys_bytes(const struct ks_keys *k);
bool ks_keys_has_waker(const struct ks_keys *k);
u32 ks_keys_stack(struct ks_keys *k, enum ks_key_part part,
		  const struct ks_anchor *anchor, unsigned int level);
u32 ks_keys_waker(struct ks_keys *k, const struct ks_anchor *anchor);
u32 ks_keys_chain_level(struct ks_keys *k, const struct ks_anchor *anchor,
			bool irq);
u32 ks_keys_chain(struct ks_keys *k, const u32 *level, const u64 *ns);
void ks_keys_record(struct ks_keys *k, u32 start_stack, u32 end_stack,
		    u64 raw, struct task_struct *p, u64 value, u64 now);
void ks_keys_record_woken(struct ks_keys *k, u32 stack, u32 waker,
			  struct task_struct *p, u64 value, u64 now,
			  const u64 *levelns);
unsigned long ks_keys_other(const struct ks_keys *k);
int ks_key_spec_print(char *buf, size_t size, const struct ks_key_spec *spec);
char *ks_key_value_name(char *buf, const struct ks_value *v);
const char *ks_key_value_word(char *buf, const struct ks_key_spec *spec);
extern const struct file_operations ks_keys_fops;

/*
 * Where a kstats handler keeps its per-CPU state (guard, stack scratch):
 * one slot per context level (task, softirq, hardirq, NMI), and a fifth
 * for task level with interrupts off. The end of an interrupt (softirq
 * processing, and on PREEMPT_RT the wakeup of ktimers and ksoftirqd)
 * runs back at task level with interrupts still off, over whatever
 * task-level handler it interrupted; a task-level handler with
 * interrupts off cannot itself be interrupted.
 */
#define KS_CONTEXT_SLOTS	5

static __always_inline unsigned int ks_context_slot(void)
{
	/* Task level, the common case, without computing the level. */
	if (likely(!(preempt_count() &
		     (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET))))
		return irqs_disabled() ? KS_CONTEXT_SLOTS - 1 : 0;
	return interrupt_context_level();
}

#endif /* _KSTATS_KEYS_H */
