// SPDX-License-Identifier: GPL-2.0
/*
 * Histogram core: the record hot path, reset and snapshots.
 */
#include <linux/cpu.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/export.h>

#include "hist.h"

/**
 * kstats_record() - add one sample to a histogram
 * @ks: the histogram from kstats_new(); NULL is ignored
 * @value: the sample, usually a duration in ns
 *
 * Lock-free and per-CPU: one slot's count and sum on the current CPU.
 * Samples are ignored while the node is stopped. It makes no call that
 * may be traced or kprobed, so probe handlers can use it freely.
 *
 * Context: any: task, softirq, hardirq, kprobe handlers. NMI on x86-64;
 * elsewhere an NMI sample is dropped and counted.
 */
void notrace kstats_record(struct kstats *ks, u64 value)
{
	u32 slot, bucket, width_shift;
	u64 offset;

	if (!ks)
		return;
	if (!KS_NMI_SAFE_THIS_CPU && in_nmi()) {
		atomic_long_inc(&ks->nmi_dropped);
		return;
	}
	/*
	 * Keeps count and sum on one CPU, and is the read-side section that
	 * kstats_delete()'s synchronize_rcu() waits for.
	 */
	preempt_disable_notrace();
	if (likely(READ_ONCE(ks->active))) {
		slot = ks_slot_of(value, ks->frac_bits, ks->n_slots);
		bucket = slot >> ks->frac_bits;
		width_shift = ks_width_shift(bucket);
		offset = value & ((1ULL << width_shift) - 1);
		this_cpu_inc(ks->slots[slot].count);
		this_cpu_add(ks->slots[slot].sum,
			     offset >> ks_sum_shift(width_shift));
	}
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(kstats_record);
NOKPROBE_SYMBOL(kstats_record);

static void ks_reset_cpu(struct kstats *ks, int cpu)
{
	memset(per_cpu_ptr(ks->slots, cpu), 0,
	       ks->n_slots * sizeof(struct ks_slot));
}

/* Runs on the CPU that owns the counters, so no record is half-way. */
static void ks_reset_local(void *arg)
{
	ks_reset_cpu(arg, smp_processor_id());
}

/**
 * kstats_reset() - clear every possible CPU's counters
 * @ks: the histogram
 *
 * Each online CPU clears its own counters in an IPI: a record there is
 * a non-atomic read-modify-write that a remote memset() could race, and
 * bring a whole pre-reset count back. Offline CPUs record nothing, so
 * they are cleared from here. A sample racing the reset may be lost, or
 * keep its sum but not its count; readers clamp averages into the slot.
 *
 * Context: process context with interrupts enabled; may sleep.
 */
void kstats_reset(struct kstats *ks)
{
	int cpu;

	cpus_read_lock();
	on_each_cpu(ks_reset_local, ks, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			ks_reset_cpu(ks, cpu);
	cpus_read_unlock();
}

/**
 * ks_slot_avg() - average of a slot's samples
 * @slot: the slot
 * @frac_bits: 0..5
 * @count: samples in the slot, not 0
 * @sum: their summed scaled offsets (see struct ks_slot)
 *
 * Return: a value inside the slot's range, even when @count and @sum
 * come from a racing copy that disagree.
 */
u64 ks_slot_avg(u32 slot, u8 frac_bits, u64 count, u64 sum)
{
	u32 width_shift, sum_shift;
	u64 max_scaled, scaled;

	/* The last slot lies past U64_MAX: no value reaches it. */
	if (slot >= ks_n_slots(frac_bits) - 1)
		return U64_MAX;
	width_shift = ks_width_shift(slot >> frac_bits);
	sum_shift = ks_sum_shift(width_shift);
	max_scaled = ((1ULL << width_shift) - 1) >> sum_shift;
	scaled = div64_u64(sum, count);

	return ks_slot_base(slot, frac_bits) +
	       (min(scaled, max_scaled) << sum_shift);
}

/**
 * ks_snapshot_take() - copy and digest a histogram's counters
 * @ks: the histogram
 *
 * Every figure of one read comes from this one copy, so cumulative
 * fractions never exceed 1 nor decrease along a row while CPUs record.
 *
 * Context: may sleep.
 * Return: the snapshot, or NULL when out of memory.
 */
struct ks_snapshot *ks_snapshot_take(struct kstats *ks)
{
	unsigned int total_row = nr_cpu_ids;
	struct ks_snapshot *snap;
	u64 *total_sum;
	u32 slot;
	int cpu;

	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	total_sum = kvcalloc(ks->n_slots, sizeof(*total_sum), GFP_KERNEL);
	if (snap)
		snap->cells = kvcalloc(array_size(nr_cpu_ids + 1, ks->n_slots),
				       sizeof(*snap->cells), GFP_KERNEL);
	if (!snap || !snap->cells || !total_sum) {
		kvfree(total_sum);
		ks_snapshot_free(snap);
		return NULL;
	}
	snap->n_slots = ks->n_slots;
	snap->frac_bits = ks->frac_bits;
	snap->n_rows = nr_cpu_ids + 1;

	for_each_possible_cpu(cpu) {
		const struct ks_slot *s = per_cpu_ptr(ks->slots, cpu);
		u64 cum = 0;

		for (slot = 0; slot < ks->n_slots; slot++) {
			u64 count = READ_ONCE(s[slot].count);
			u64 sum = READ_ONCE(s[slot].sum);
			struct ks_cell *c = ks_cell(snap, cpu, slot);
			struct ks_cell *t = ks_cell(snap, total_row, slot);

			cum += count;
			c->cum = cum;
			if (count)
				c->avg = ks_slot_avg(slot, ks->frac_bits,
						     count, sum);
			/* "cum" of the totals row holds counts until below. */
			t->cum += count;
			if (check_add_overflow(total_sum[slot], sum,
					       &total_sum[slot]))
				total_sum[slot] = U64_MAX;
		}
	}

	for (slot = 0; slot < ks->n_slots; slot++) {
		struct ks_cell *t = ks_cell(snap, total_row, slot);
		u64 count = t->cum;

		if (count)
			t->avg = ks_slot_avg(slot, ks->frac_bits, count,
					     total_sum[slot]);
		if (slot)
			t->cum += ks_cell(snap, total_row, slot - 1)->cum;
	}
	kvfree(total_sum);
	return snap;
}

/**
 * ks_snapshot_free() - free a snapshot
 * @snap: from ks_snapshot_take(), or NULL
 */
void ks_snapshot_free(struct ks_snapshot *snap)
{
	if (!snap)
		return;
	kvfree(snap->cells);
	kfree(snap);
}
