// SPDX-License-Identifier: GPL-2.0
/*
 * Histogram core: the record hot path, its two banks, reset, and the
 * snapshots and interval cuts that read the banks while records go on.
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
 * Lock-free and per-CPU: one slot's count and sum, and the bounds, on
 * the current CPU. Samples are ignored while the node is stopped. It
 * makes no call that may be traced or kprobed, so probe handlers can
 * use it freely (kstats' own use ks_record(), the same inline).
 *
 * Context: any: task, softirq, hardirq, kprobe handlers. NMI on x86-64;
 * elsewhere an NMI sample is dropped and counted.
 */
void notrace kstats_record(struct kstats *ks, u64 value)
{
	if (!ks)
		return;
	/*
	 * Keeps the sample on one CPU, and is the read-side section that
	 * kstats_delete()'s synchronize_rcu() waits for.
	 */
	preempt_disable_notrace();
	ks_record(ks, value);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(kstats_record);
NOKPROBE_SYMBOL(kstats_record);

static void ks_base_release(struct ks_base *base);

static void ks_clear_bounds(struct ks_cpu *c)
{
	c->min = U64_MAX;
	c->max = 0;
	c->cut_min = U64_MAX;
	c->cut_max = 0;
}

static void ks_reset_cpu(struct kstats *ks, int cpu)
{
	unsigned int i;

	for (i = 0; i < KS_BANKS && ks->bank[i]; i++) {
		struct ks_cpu *c = per_cpu_ptr(ks->bank[i], cpu);

		memset(c->slot, 0, ks->n_slots * sizeof(struct ks_slot));
		ks_clear_bounds(c);
	}
}

/* Bytes of one CPU's counters in one bank. */
static size_t ks_bank_size(u32 n_slots)
{
	const struct ks_cpu *c = NULL;

	return struct_size(c, slot, n_slots);
}

/**
 * ks_bank_alloc() - one bank of per-CPU counters, empty
 * @n_slots: slots per CPU
 *
 * Return: the bank, or NULL when out of memory.
 */

struct ks_cpu __percpu *ks_bank_alloc(u32 n_slots)
{
	struct ks_cpu __percpu *bank;
	int cpu;

	bank = __alloc_percpu(ks_bank_size(n_slots), __alignof__(struct ks_cpu));
	if (!bank)
		return NULL;
	for_each_possible_cpu(cpu)
		ks_clear_bounds(per_cpu_ptr(bank, cpu));
	return bank;
}

/**
 * ks_hist_bytes() - memory a histogram holds, besides its cut bases
 * @ks: the histogram
 */
size_t ks_hist_bytes(const struct kstats *ks)
{
	unsigned int i, n = 0;

	for (i = 0; i < KS_BANKS; i++)
		n += !!READ_ONCE(ks->bank[i]);
	return sizeof(*ks) + n * num_possible_cpus() * ks_bank_size(ks->n_slots);
}

/* Runs on the CPU that owns the counters, so no record is half-way. */
static void ks_reset_local(void *arg)
{
	ks_reset_cpu(arg, smp_processor_id());
}

/**
 * kstats_reset() - clear every possible CPU's counters and bounds
 * @ks: the histogram
 *
 * Each online CPU clears its own counters in an IPI: a record there is
 * a non-atomic read-modify-write that a remote memset() could race, and
 * bring a whole pre-reset count back. Offline CPUs record nothing, so
 * they are cleared from here. A sample racing the reset may be lost, or
 * keep its sum but not its count; readers clamp averages into the slot.
 * The interval in progress is dropped too: the next interval starts here;
 * missed and nmi_dropped count from here on. An IPI interrupts whatever
 * runs on a CPU, so a busy CPU delays this by one interrupt at most.
 *
 * Context: process context with interrupts enabled; may sleep.
 */
void kstats_reset(struct kstats *ks)
{
	unsigned int i;
	int cpu;

	mutex_lock(&ks->interval_lock);
	cpus_read_lock();
	on_each_cpu(ks_reset_local, ks, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			ks_reset_cpu(ks, cpu);
	cpus_read_unlock();
	for (i = 0; i < KS_BANKS; i++)
		ks_base_release(ks->base[i]);
	memset(ks->base, 0, sizeof(ks->base));
	/* The owner's counters only grow: reset moves the zero instead. */
	ks->last_missed = ks->missed ? ks->missed(ks->show_extra_arg) : 0;
	ks->last_nmi_dropped = atomic_long_read(&ks->nmi_dropped);
	WRITE_ONCE(ks->reset_missed, ks->last_missed);
	WRITE_ONCE(ks->reset_nmi_dropped, ks->last_nmi_dropped);
	mutex_unlock(&ks->interval_lock);
}

/**
 * kstats_set_active() - start or stop recording ("start", "stop")
 * @ks: the histogram
 * @active: record from now on, or ignore samples
 *
 * The owner's set_active hook, if any, hears of each change first, so
 * that its own loss counts pause with the samples.
 *
 * Context: process context; may sleep.
 */
void kstats_set_active(struct kstats *ks, bool active)
{
	mutex_lock(&ks->interval_lock);
	if (READ_ONCE(ks->active) != active) {
		if (ks->set_active)
			ks->set_active(ks->show_extra_arg, active);
		WRITE_ONCE(ks->active, active);
	}
	mutex_unlock(&ks->interval_lock);
}

/* ---------------------------------------------------------- snapshots */

/* One CPU's counters at the last cut: its non-empty slots. */
struct ks_base_cell {
	u32 slot;
	u64 count;
	u64 sum;
};

struct ks_base_row {
	unsigned int cpu;
	u32 n_cells;
	struct ks_base_cell *cells;
};

struct ks_base {
	unsigned int n_rows, cap;
	struct ks_base_row *rows;	/* CPUs with samples, ascending */
};

/* What building a snapshot needs besides the snapshot: O(n_slots). */
struct ks_builder {
	struct ks_snapshot *snap;
	struct ks_slot *raw;		/* one CPU's counters, [n_slots] */
	u64 *total_sum;			/* [n_slots], saturating */
	struct ks_u128 value_sum;	/* for the mean */
	unsigned int rows_cap;
};

static void ks_builder_free(struct ks_builder *b)
{
	kvfree(b->raw);
	kvfree(b->total_sum);
}

static int ks_builder_init(struct ks_builder *b, struct kstats *ks)
{
	struct ks_snapshot *snap;

	memset(b, 0, sizeof(*b));
	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	b->raw = kvcalloc(ks->n_slots, sizeof(*b->raw), GFP_KERNEL);
	b->total_sum = kvcalloc(ks->n_slots, sizeof(*b->total_sum), GFP_KERNEL);
	if (snap)
		snap->total = kvcalloc(ks->n_slots, sizeof(*snap->total),
				       GFP_KERNEL);
	b->snap = snap;
	if (!snap || !snap->total || !b->raw || !b->total_sum) {
		ks_builder_free(b);
		ks_snapshot_free(snap);
		b->snap = NULL;
		return -ENOMEM;
	}
	snap->n_slots = ks->n_slots;
	snap->frac_bits = ks->frac_bits;
	snap->min = U64_MAX;
	return 0;
}

/* Adds b->raw, one CPU's counts, as a row and to the totals. */
static int ks_builder_add_row(struct ks_builder *b, unsigned int cpu)
{
	struct ks_snapshot *snap = b->snap;
	u8 fb = snap->frac_bits;
	struct ks_cell *cells;
	struct ks_row *row;
	u32 slot, n = 0, i = 0;
	u64 cum = 0;

	for (slot = 0; slot < snap->n_slots; slot++)
		n += !!b->raw[slot].count;
	if (!n)
		return 0;
	if (snap->n_rows == b->rows_cap) {
		unsigned int cap = b->rows_cap ? 2 * b->rows_cap : 4;
		struct ks_row *rows;

		rows = krealloc_array(snap->rows, cap, sizeof(*rows), GFP_KERNEL);
		if (!rows)
			return -ENOMEM;
		snap->rows = rows;
		b->rows_cap = cap;
	}
	cells = kvmalloc_array(n, sizeof(*cells), GFP_KERNEL);
	if (!cells)
		return -ENOMEM;
	row = &snap->rows[snap->n_rows++];
	row->cpu = cpu;
	row->n_cells = n;
	row->cells = cells;
	for (slot = 0; slot < snap->n_slots; slot++) {
		u64 count = b->raw[slot].count, sum = b->raw[slot].sum;
		u32 shift = ks_sum_shift(ks_slot_width_shift(slot, fb));

		if (!count)
			continue;
		cum += count;
		cells[i].slot = slot;
		cells[i].cum = cum;
		cells[i].avg = ks_slot_avg(slot, fb, count, sum);
		i++;
		/* "cum" of the totals holds counts until ks_builder_done(). */
		snap->total[slot].cum += count;
		if (check_add_overflow(b->total_sum[slot], sum,
				       &b->total_sum[slot]))
			b->total_sum[slot] = U64_MAX;
		if (slot < snap->n_slots - 1) {
			ks_add128(&b->value_sum,
				  ks_mul64(count, ks_slot_base(slot, fb)));
			ks_add128(&b->value_sum, ks_shl128(sum, shift));
		}
	}
	return 0;
}

/*
 * Totals, mean and bounds. The bounds are read apart from the counts, so
 * while CPUs record they are moved into the first and last non-empty
 * slots; at rest they are there already.
 */
static void ks_builder_done(struct ks_builder *b)
{
	struct ks_snapshot *snap = b->snap;
	u8 fb = snap->frac_bits;
	u32 slot, first = U32_MAX, last = 0;
	u64 cum = 0;

	for (slot = 0; slot < snap->n_slots; slot++) {
		u64 count = snap->total[slot].cum;

		if (count) {
			snap->total[slot].avg = ks_slot_avg(slot, fb, count,
							    b->total_sum[slot]);
			if (first == U32_MAX)
				first = slot;
			last = slot;
		}
		cum += count;
		snap->total[slot].cum = cum;
	}
	snap->samples = cum;
	if (!cum) {
		snap->min = 0;
		snap->max = 0;
		return;
	}
	snap->min = clamp(snap->min, ks_slot_base(first, fb),
			  ks_slot_top(first, fb));
	snap->max = clamp(snap->max, ks_slot_base(last, fb),
			  ks_slot_top(last, fb));
	/* At most cum * U64_MAX, so the quotient fits unless sums raced. */
	if (b->value_sum.hi >= cum)
		snap->mean = snap->max;
	else
		snap->mean = ks_div128(b->value_sum, cum, NULL);
	snap->mean = clamp(snap->mean, snap->min, snap->max);
}

/* Copies one CPU's counters in one bank into @raw, each field read once. */
static void ks_copy_cpu(const struct kstats *ks, const struct ks_cpu *c,
			struct ks_slot *raw)
{
	u32 slot;

	for (slot = 0; slot < ks->n_slots; slot++) {
		raw[slot].count = READ_ONCE(c->slot[slot].count);
		raw[slot].sum = READ_ONCE(c->slot[slot].sum);
	}
}

/* Adds one CPU's counters in one bank to @raw. */
static void ks_add_cpu(const struct kstats *ks, const struct ks_cpu *c,
		       struct ks_slot *raw)
{
	u32 slot;

	for (slot = 0; slot < ks->n_slots; slot++) {
		raw[slot].count += READ_ONCE(c->slot[slot].count);
		raw[slot].sum += READ_ONCE(c->slot[slot].sum);
	}
}

/**
 * ks_snapshot_take() - copy and digest a histogram's cumulative counters
 * @ks: the histogram
 *
 * Every figure of one read comes from this one copy, so cumulative
 * fractions never exceed 1 nor decrease along a row while CPUs record.
 * Both banks are added: a bank's counters only grow, whichever is live.
 * Memory: the non-empty slots of CPUs with samples, plus O(n_slots).
 *
 * Context: may sleep; yields between CPUs.
 * Return: the snapshot, or NULL when out of memory.
 */
struct ks_snapshot *ks_snapshot_take(struct kstats *ks)
{
	struct ks_cpu __percpu *bank[KS_BANKS];
	struct ks_builder b;
	unsigned int i, n;
	int cpu;

	if (ks_builder_init(&b, ks))
		return NULL;
	/* A cut may add bank 1 meanwhile: it is empty then. */
	for (n = 0; n < KS_BANKS && (bank[n] = smp_load_acquire(&ks->bank[n])); n++)
		;
	for_each_possible_cpu(cpu) {
		u64 lo = U64_MAX, hi = 0;

		/* Bounds first: a cut folds them into cut_* before clearing. */
		for (i = 0; i < n; i++) {
			lo = min(lo, READ_ONCE(per_cpu_ptr(bank[i], cpu)->min));
			hi = max(hi, READ_ONCE(per_cpu_ptr(bank[i], cpu)->max));
		}
		/* Pairs with the cut's smp_wmb(): cleared => folded. */
		smp_rmb();
		for (i = 0; i < n; i++) {
			lo = min(lo, READ_ONCE(per_cpu_ptr(bank[i], cpu)->cut_min));
			hi = max(hi, READ_ONCE(per_cpu_ptr(bank[i], cpu)->cut_max));
		}
		b.snap->min = min(b.snap->min, lo);
		b.snap->max = max(b.snap->max, hi);
		ks_copy_cpu(ks, per_cpu_ptr(bank[0], cpu), b.raw);
		for (i = 1; i < n; i++)
			ks_add_cpu(ks, per_cpu_ptr(bank[i], cpu), b.raw);
		if (ks_builder_add_row(&b, cpu)) {
			ks_snapshot_free(b.snap);
			ks_builder_free(&b);
			return NULL;
		}
		cond_resched();
	}
	ks_builder_done(&b);
	b.snap->missed = ks->missed ? ks->missed(ks->show_extra_arg) : 0;
	b.snap->missed -= READ_ONCE(ks->reset_missed);
	b.snap->nmi_dropped = atomic_long_read(&ks->nmi_dropped) -
			      READ_ONCE(ks->reset_nmi_dropped);
	ks_builder_free(&b);
	return b.snap;
}

/* Appends the non-empty slots of @raw as the base row of @cpu. */
static int ks_base_add_row(struct ks_base *base, unsigned int cpu,
			   const struct ks_slot *raw, u32 n_slots)
{
	struct ks_base_row *row;
	u32 slot, n = 0, i = 0;

	for (slot = 0; slot < n_slots; slot++)
		n += raw[slot].count || raw[slot].sum;
	if (!n)
		return 0;
	if (base->n_rows == base->cap) {
		unsigned int cap = base->cap ? 2 * base->cap : 4;
		struct ks_base_row *rows;

		rows = krealloc_array(base->rows, cap, sizeof(*rows), GFP_KERNEL);
		if (!rows)
			return -ENOMEM;
		base->rows = rows;
		base->cap = cap;
	}
	row = &base->rows[base->n_rows];
	row->cpu = cpu;
	row->n_cells = n;
	row->cells = kvmalloc_array(n, sizeof(*row->cells), GFP_KERNEL);
	if (!row->cells)
		return -ENOMEM;
	base->n_rows++;
	for (slot = 0; slot < n_slots; slot++) {
		if (!raw[slot].count && !raw[slot].sum)
			continue;
		row->cells[i].slot = slot;
		row->cells[i].count = raw[slot].count;
		row->cells[i].sum = raw[slot].sum;
		i++;
	}
	return 0;
}

static void ks_base_release(struct ks_base *base)
{
	unsigned int i;

	if (!base)
		return;
	for (i = 0; i < base->n_rows; i++)
		kvfree(base->rows[i].cells);
	kfree(base->rows);
	kfree(base);
}

/**
 * ks_banks_free() - free a histogram's counters and cut bases
 * @ks: the histogram, which nothing records on any more
 */
void ks_banks_free(struct kstats *ks)
{
	unsigned int i;

	for (i = 0; i < KS_BANKS; i++) {
		ks_base_release(ks->base[i]);
		free_percpu(ks->bank[i]);
	}
}

/* A retired bank's bounds go to cut_*, for the cumulative readers. */
static void ks_fold_bounds(struct ks_cpu __percpu *bank)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ks_cpu *c = per_cpu_ptr(bank, cpu);

		WRITE_ONCE(c->cut_min, min(c->cut_min, c->min));
		WRITE_ONCE(c->cut_max, max(c->cut_max, c->max));
		/* Folded before cleared; pairs with ks_snapshot_take()'s smp_rmb(). */
		smp_wmb();
		WRITE_ONCE(c->min, U64_MAX);
		WRITE_ONCE(c->max, 0);
	}
}

/* Turns @raw, a CPU's counters now, into the interval since @old. */
static void ks_base_subtract(struct ks_slot *raw, const struct ks_base_row *old)
{
	u32 i;

	for (i = 0; old && i < old->n_cells; i++) {
		struct ks_slot *s = &raw[old->cells[i].slot];

		/* Counts only grow between cuts (reset drops the base). */
		s->count -= min(s->count, old->cells[i].count);
		s->sum -= min(s->sum, old->cells[i].sum);
	}
}

/* In an IPI on the CPU: its records go to the other bank from now on. */
static void ks_switch_local(void *arg)
{
	struct kstats *ks = arg;

	this_cpu_write(ks->bank[0]->live, ks->live ^ 1);
}

/*
 * Makes the other bank live on every CPU and waits until no record is
 * in flight in the retired one. An IPI interrupts whatever runs on its
 * CPU, and a record never sleeps, so this waits only for records that
 * the IPI interrupted, however busy the CPU is.
 */
static void ks_switch_banks(struct kstats *ks)
{
	unsigned int r = ks->live;
	int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct ks_cpu *gate = per_cpu_ptr(ks->bank[0], cpu);

		/* An offline CPU records nothing. */
		if (!cpu_online(cpu) ||
		    smp_call_function_single(cpu, ks_switch_local, ks, 1))
			WRITE_ONCE(gate->live, r ^ 1);
		while (READ_ONCE(gate->inflight[r])) {
			cpu_relax();
			cond_resched();
		}
	}
	cpus_read_unlock();
	/* Pairs with kstats_record()'s smp_wmb(): ended => counted. */
	smp_rmb();
	ks->live = r ^ 1;
}

/**
 * ks_interval_take() - end the current interval and return its figures
 * @ks: the histogram
 *
 * Makes the other bank live on every CPU (see ks_switch_banks()), then
 * reads the retired bank from here and compares it with its counters at
 * its previous cut; its bounds are folded and cleared. Nothing waits for
 * a task or a worker to run on another CPU. Every sample is therefore in
 * exactly one interval, with its count, sum and bounds, in every context,
 * NMI included. The cumulative counters are not changed.
 * Memory: the second bank, allocated here once; twice the non-empty
 * slots of CPUs with samples, plus O(n_slots).
 *
 * Context: process context; may sleep.
 * Return: the snapshot, or NULL when out of memory. Nothing is lost
 * then: the retired bank keeps its samples, bounds and base, and the
 * cut after next, which retires it again, counts them.
 */
struct ks_snapshot *ks_interval_take(struct kstats *ks)
{
	struct ks_base *old, *base;
	struct ks_cpu __percpu *retired;
	struct ks_builder b;
	unsigned int i_old = 0, r;
	long nmi;
	int cpu, err = 0;

	if (ks_builder_init(&b, ks))
		return NULL;
	base = kzalloc(sizeof(*base), GFP_KERNEL);
	if (!base)
		goto err_free;
	mutex_lock(&ks->interval_lock);
	if (!ks->bank[1]) {
		struct ks_cpu __percpu *bank = ks_bank_alloc(ks->n_slots);

		if (!bank)
			goto err_unlock;
		/* Initialized before a cumulative reader sees it. */
		smp_store_release(&ks->bank[1], bank);
	}
	r = ks->live;
	retired = ks->bank[r];
	ks_switch_banks(ks);

	old = ks->base[r];
	for_each_possible_cpu(cpu) {
		const struct ks_cpu *c = per_cpu_ptr(retired, cpu);
		const struct ks_base_row *prev = NULL;

		b.snap->min = min(b.snap->min, READ_ONCE(c->min));
		b.snap->max = max(b.snap->max, READ_ONCE(c->max));
		ks_copy_cpu(ks, c, b.raw);
		if (!err)
			err = ks_base_add_row(base, cpu, b.raw, ks->n_slots);
		while (old && i_old < old->n_rows && old->rows[i_old].cpu < cpu)
			i_old++;
		if (old && i_old < old->n_rows && old->rows[i_old].cpu == cpu)
			prev = &old->rows[i_old];
		ks_base_subtract(b.raw, prev);
		if (!err)
			err = ks_builder_add_row(&b, cpu);
		cond_resched();
	}
	if (err)
		goto err_unlock;
	ks_fold_bounds(retired);
	ks->base[r] = base;
	ks_builder_done(&b);
	b.snap->missed = ks->missed ? ks->missed(ks->show_extra_arg) : 0;
	b.snap->missed -= ks->last_missed;
	ks->last_missed += b.snap->missed;
	nmi = atomic_long_read(&ks->nmi_dropped);
	b.snap->nmi_dropped = nmi - ks->last_nmi_dropped;
	ks->last_nmi_dropped = nmi;
	mutex_unlock(&ks->interval_lock);
	ks_base_release(old);
	ks_builder_free(&b);
	return b.snap;

err_unlock:
	mutex_unlock(&ks->interval_lock);
	ks_base_release(base);
err_free:
	ks_snapshot_free(b.snap);
	ks_builder_free(&b);
	return NULL;
}

/**
 * ks_snapshot_free() - free a snapshot
 * @snap: from ks_snapshot_take() or ks_interval_take(), or NULL
 */
void ks_snapshot_free(struct ks_snapshot *snap)
{
	unsigned int i;

	if (!snap)
		return;
	for (i = 0; i < snap->n_rows; i++)
		kvfree(snap->rows[i].cells);
	kfree(snap->rows);
	kvfree(snap->total);
	kfree(snap);
}
