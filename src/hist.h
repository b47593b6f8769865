/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histogram core: slot math, the per-CPU counters and their snapshots.
 *
 * A value's leftmost set bit picks its bucket (one per power of two) and
 * the next frac_bits bits pick one of the bucket's 2^frac_bits slots of
 * equal width. Values below 2^frac_bits get a slot each. This is the
 * layout of the LKML patch "kstats: kernel metric collector" (v3, 2020).
 */
#ifndef _KSTATS_HIST_H
#define _KSTATS_HIST_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/types.h>
#include <linux/kstats.h>

struct dentry;
struct seq_file;

/*
 * Offsets inside a slot are summed with at most this many significant
 * bits, so a slot's sum on one CPU overflows only after 2^44 samples,
 * and a slot's average is exact while the slot is at most 2^20 wide.
 */
#define KS_SUM_BITS	20

/* One slot on one CPU. Kept at 16 bytes: 1922 slots fit in 32 KiB. */
struct ks_slot {
	u64 count;
	/* Sum of (value - slot base) >> ks_sum_shift(slot). */
	u64 sum;
};

/*
 * One CPU's counters in one bank. min and max cover the bank's samples
 * since its last interval cut (or reset); cut_min and cut_max everything
 * before it, so the cumulative bounds are the min/max of both pairs of
 * both banks. Empty: U64_MAX, 0.
 */
struct ks_cpu {
	u64 min;
	u64 max;
	u64 cut_min;	/* written only by cuts, while the bank is retired */
	u64 cut_max;
	/*
	 * Bank 0's copy only: the bank this CPU records in, which a cut
	 * switches in an IPI, and the records in flight in each bank.
	 */
	unsigned int live;
	int inflight[2];
	struct ks_slot slot[];
};

struct ks_base;

/*
 * Each CPU records in the live one of two banks. An interval cut makes
 * the other one live on each CPU with an IPI, which interrupts whatever
 * runs there, waits for that CPU's records still in flight in the
 * retired bank (a record never sleeps), and then reads the retired bank
 * from the cutting task. A cumulative read adds both banks. The second
 * bank is allocated by the first cut: a metric whose interval file is
 * never read has one.
 */
#define KS_BANKS	2

struct kstats {
	struct ks_cpu __percpu *bank[KS_BANKS];
	unsigned int live;	/* every CPU's live bank between cuts */
	u32 n_slots;
	u8 frac_bits;
	/* Cleared by "stop" and before freeing; read on every record. */
	bool active;
	/* Samples dropped because they came from NMI where that is unsafe. */
	atomic_long_t nmi_dropped;
	struct dentry *node;
	struct dentry *interval_node;
	/* Adds '#' lines to the node, e.g. a trace's missed counts. */
	void (*show_extra)(struct seq_file *m, void *arg);
	/* Samples the owner lost (e.g. a trace's misses); NULL: none. */
	unsigned long (*missed)(void *arg);
	/*
	 * Told when start or stop turns recording on or off (with @arg,
	 * under interval_lock), so that the owner's counts pause too; or NULL.
	 */
	void (*set_active)(void *arg, bool active);
	void *show_extra_arg;
	/* Interval cuts: serialized with each other and with reset. */
	struct mutex interval_lock;
	/* Each bank's counters when it was last retired by a cut. */
	struct ks_base *base[KS_BANKS];
	unsigned long last_missed;
	long last_nmi_dropped;
	/* missed and nmi_dropped at the last reset, which clears them too. */
	unsigned long reset_missed;
	long reset_nmi_dropped;
	struct list_head list;	/* on ks_list, under ks_lock */
	char name[KSTATS_NAME_MAX + 1];
};

/**
 * ks_n_slots() - number of slots of a histogram
 * @frac_bits: log2 of the slots per power of two, 0..5
 *
 * One extra slot past the highest reachable one, as in the seed patch.
 */
static inline u32 ks_n_slots(u8 frac_bits)
{
	return ((64 - frac_bits + 1) << frac_bits) + 1;
}

/* log2 of the width of the slots in @bucket; branch-free, like below. */
static __always_inline u32 ks_width_shift(u32 bucket)
{
	return bucket - (bucket != 0);
}

/* How far offsets in a slot of @width_shift are shifted before summing. */
static __always_inline u32 ks_sum_shift(u32 width_shift)
{
	return width_shift > KS_SUM_BITS ? width_shift - KS_SUM_BITS : 0;
}

/**
 * ks_slot_of() - slot index of a value
 * @value: the sample
 * @frac_bits: 0..5
 * @n_slots: ks_n_slots(@frac_bits)
 *
 * Context: any; no calls, no division, no branch (record's hot path:
 * under QEMU's TCG every branch ends a translation block).
 * Return: the slot whose range holds @value, at most @n_slots - 1.
 */
static __always_inline u32 ks_slot_of(u64 value, u8 frac_bits, u32 n_slots)
{
	u32 bucket = fls64(value >> frac_bits);
	/* Bucket 0 (value < 2^frac_bits): shift 0 gives slot = value. */
	u32 slot = (bucket << frac_bits) |
		   ((u32)(value >> ks_width_shift(bucket)) &
		    ((1U << frac_bits) - 1));

	return slot < n_slots - 1 ? slot : n_slots - 1;
}

/*
 * Bounds: a sample that is neither a new min nor a new max costs two
 * reads and one branch. A new one is written with a CPU-local cmpxchg,
 * which an interrupt or NMI that records on this CPU between the read
 * and the write makes fail, so its value is compared again, never
 * overwritten.
 */
static __always_inline void ks_update_bounds(struct ks_cpu __percpu *pc,
					     u64 value)
{
	u64 lo = this_cpu_read(pc->min), hi = this_cpu_read(pc->max), seen;
	unsigned int out = (value < lo) | (value > hi);

	/*
	 * One branch for both (hidden from the compiler, which would split
	 * it): each branch ends a translation block under QEMU's TCG.
	 */
	OPTIMIZER_HIDE_VAR(out);
	if (likely(!out))
		return;
	while (value < lo) {
		seen = this_cpu_cmpxchg(pc->min, lo, value);
		if (seen == lo)
			break;
		lo = seen;
	}
	while (value > hi) {
		seen = this_cpu_cmpxchg(pc->max, hi, value);
		if (seen == hi)
			break;
		hi = seen;
	}
}

/**
 * ks_record() - kstats_record() with preemption already off
 * @ks: the histogram, not NULL
 * @value: the sample
 *
 * Inline, for kstats' own probe handlers, which the kernel calls with
 * preemption off (tracepoint probes disable it themselves): that is the
 * read-side section kstats_delete()'s synchronize_rcu() waits for.
 *
 * Context: as kstats_record(), with preemption disabled.
 */
static __always_inline void ks_record(struct kstats *ks, u64 value)
{
	struct ks_cpu __percpu *pc, *gate;
	u32 slot, bucket, width_shift;
	unsigned int bank;
	u64 offset;

	if (!KS_NMI_SAFE_THIS_CPU && in_nmi()) {
		atomic_long_inc(&ks->nmi_dropped);
		return;
	}
	if (unlikely(!READ_ONCE(ks->active)))
		return;
	slot = ks_slot_of(value, ks->frac_bits, ks->n_slots);
	bucket = slot >> ks->frac_bits;
	width_shift = ks_width_shift(bucket);
	offset = value & ((1ULL << width_shift) - 1);
	/*
	 * In flight in the live bank. A cut's IPI, which switches live on
	 * this CPU, may land between the two reads: then the record moves
	 * to the new bank, which the cut does not read; past the second
	 * read, the cut waits for it.
	 */
	gate = ks->bank[0];
	bank = this_cpu_read(gate->live) & 1;
	this_cpu_inc(gate->inflight[bank]);
	barrier();
	if (unlikely(this_cpu_read(gate->live) != bank)) {
		this_cpu_dec(gate->inflight[bank]);
		bank ^= 1;
		this_cpu_inc(gate->inflight[bank]);
	}
	pc = ks->bank[bank];
	this_cpu_inc(pc->slot[slot].count);
	this_cpu_add(pc->slot[slot].sum, offset >> ks_sum_shift(width_shift));
	ks_update_bounds(pc, value);
	/* The counts before the end; pairs with ks_await_bank(). */
	smp_wmb();
	this_cpu_dec(gate->inflight[bank]);
}

/**
 * ks_slot_base() - smallest value that lands in @slot
 * @slot: slot index below ks_n_slots(@frac_bits) - 1
 * @frac_bits: 0..5
 */
static inline u64 ks_slot_base(u32 slot, u8 frac_bits)
{
	u32 bucket = slot >> frac_bits;
	u64 lead = (1U << frac_bits) | (slot & ((1U << frac_bits) - 1));

	return bucket ? lead << (bucket - 1) : slot;
}

/* log2 of the width of @slot; the width is 1 << this. */
static inline u32 ks_slot_width_shift(u32 slot, u8 frac_bits)
{
	return ks_width_shift(slot >> frac_bits);
}

/* Largest value that lands in @slot (a reachable one). */
static inline u64 ks_slot_top(u32 slot, u8 frac_bits)
{
	return ks_slot_base(slot, frac_bits) +
	       ((1ULL << ks_slot_width_shift(slot, frac_bits)) - 1);
}

/* One non-empty slot of one CPU in a snapshot. */
struct ks_cell {
	u32 slot;
	u64 cum;	/* this CPU's samples up to and including this slot */
	u64 avg;	/* average of the slot's samples, inside its range */
};

/* The non-empty slots of one CPU with samples, in slot order. */
struct ks_row {
	unsigned int cpu;
	u32 n_cells;
	struct ks_cell *cells;
};

/* A slot's figures over all CPUs. */
struct ks_total {
	u64 cum;	/* samples of all CPUs up to and including this slot */
	u64 avg;
};

/*
 * A private copy of a histogram, from which one read of a node computes
 * all its figures: one row per CPU with samples, holding only its
 * non-empty slots, and the totals of every slot. min, max and mean are
 * valid when samples is not 0.
 */
struct ks_snapshot {
	u32 n_slots;
	u8 frac_bits;
	unsigned int n_rows;
	struct ks_row *rows;	/* by ascending CPU */
	struct ks_total *total;	/* [n_slots] */
	u64 samples;
	u64 min, max, mean;
	unsigned long missed;
	long nmi_dropped;
};

/*
 * A percentile: the slot holding its rank, the estimate, and how far the
 * true value can be from it: |value - true| <= err, and
 * |value - true| <= true * relerr_micro / 10^6.
 */
struct ks_pct {
	u32 slot;
	u64 value;
	u64 err;
	u64 relerr_micro;
};

void kstats_reset(struct kstats *ks);
void kstats_set_active(struct kstats *ks, bool active);
struct ks_snapshot *ks_snapshot_take(struct kstats *ks);
struct ks_snapshot *ks_interval_take(struct kstats *ks);
void ks_snapshot_free(struct ks_snapshot *snap);
struct ks_cpu __percpu *ks_bank_alloc(u32 n_slots);
void ks_banks_free(struct kstats *ks);
size_t ks_hist_bytes(const struct kstats *ks);
/* Built from 32-bit halves, so 32-bit kernels need no libgcc helper. */
struct ks_u128 {
	u64 hi, lo;
};

/* arith.c: the arithmetic of reading a histogram. */
void ks_add128(struct ks_u128 *a, struct ks_u128 b);
struct ks_u128 ks_mul64(u64 a, u64 b);
struct ks_u128 ks_shl128(u64 v, u32 shift);
u64 ks_div128(struct ks_u128 n, u64 d, u64 *rem);
u64 ks_slot_avg(u32 slot, u8 frac_bits, u64 count, u64 sum);
u64 ks_mul_div(u64 a, u64 b, u64 c, u64 *rem);
u64 ks_rank(u64 samples, u32 num, u32 den);
int ks_percentile(const struct ks_snapshot *snap, u32 num, u32 den,
		  struct ks_pct *p);

/* Samples of all CPUs in @slot. */
static inline u64 ks_total_count(const struct ks_snapshot *snap, u32 slot)
{
	return snap->total[slot].cum - (slot ? snap->total[slot - 1].cum : 0);
}

/* Samples of row @row in its cell @i. */
static inline u64 ks_row_count(const struct ks_row *row, u32 i)
{
	return row->cells[i].cum - (i ? row->cells[i - 1].cum : 0);
}

static inline u64 ks_row_total(const struct ks_row *row)
{
	return row->cells[row->n_cells - 1].cum;
}

#endif /* _KSTATS_HIST_H */
