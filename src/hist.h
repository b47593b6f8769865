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

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/kstats.h>

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

struct kstats {
	struct ks_slot __percpu *slots;
	u32 n_slots;
	u8 frac_bits;
	/* Cleared by "stop" and before freeing; read on every record. */
	bool active;
	/* Samples dropped because they came from NMI where that is unsafe. */
	atomic_long_t nmi_dropped;
	struct dentry *node;
	/* Adds '#' lines to the node, e.g. a trace's missed counts. */
	void (*show_extra)(struct seq_file *m, void *arg);
	void *show_extra_arg;
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

/* log2 of the width of the slots in @bucket. */
static __always_inline u32 ks_width_shift(u32 bucket)
{
	return bucket ? bucket - 1 : 0;
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
 * Context: any; no calls, no division.
 * Return: the slot whose range holds @value, at most @n_slots - 1.
 */
static __always_inline u32 ks_slot_of(u64 value, u8 frac_bits, u32 n_slots)
{
	u32 bucket = fls64(value >> frac_bits);
	u32 slot;

	if (!bucket)
		return (u32)value;
	slot = (bucket << frac_bits) |
	       ((u32)(value >> (bucket - 1)) & ((1U << frac_bits) - 1));
	return slot < n_slots - 1 ? slot : n_slots - 1;
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

/* Per-slot figures of one row (a CPU, or all of them) of a snapshot. */
struct ks_cell {
	u64 cum;	/* samples in this row up to and including this slot */
	u64 avg;	/* average of the slot's samples, inside its range */
};

/*
 * A private copy of every CPU's counters, from which one read of a node
 * computes all its figures. Row nr_cpu_ids holds the totals.
 */
struct ks_snapshot {
	u32 n_slots;
	u8 frac_bits;
	unsigned int n_rows;
	struct ks_cell *cells;	/* [row * n_slots + slot] */
};

struct seq_file;

struct kstats *ks_create(const char *name, u8 frac_bits,
			 void (*show_extra)(struct seq_file *m, void *arg),
			 void *arg);
void kstats_reset(struct kstats *ks);
struct ks_snapshot *ks_snapshot_take(struct kstats *ks);
void ks_snapshot_free(struct ks_snapshot *snap);
u64 ks_slot_avg(u32 slot, u8 frac_bits, u64 count, u64 sum);

static inline struct ks_cell *ks_cell(const struct ks_snapshot *snap,
				      unsigned int row, u32 slot)
{
	return &snap->cells[(size_t)row * snap->n_slots + slot];
}

/* Samples of @row in @slot. */
static inline u64 ks_cell_count(const struct ks_snapshot *snap,
				unsigned int row, u32 slot)
{
	u64 below = slot ? ks_cell(snap, row, slot - 1)->cum : 0;

	return ks_cell(snap, row, slot)->cum - below;
}

static inline u64 ks_row_total(const struct ks_snapshot *snap, unsigned int row)
{
	return ks_cell(snap, row, snap->n_slots - 1)->cum;
}

#endif /* _KSTATS_HIST_H */
