// SPDX-License-Identifier: GPL-2.0
/*
 * KEY-NAME, the node of a trace's keyed rows and slowest samples: each
 * open reads every figure once and sorts the rows by total. keys.c fills
 * the tables from probe handlers; this file only reads them.
 */
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "cgroup.h"
#include "keys.h"
#include "keys_table.h"
#include "ustack.h"

/*
 * The percentile @pct of @st: the top of the power-of-two bucket that
 * holds it, clamped to [min, max]. Never below the true value, and less
 * than twice it.
 */
static u64 ks_stats_pct(const struct ks_stats *st, u64 count, u64 lo, u64 hi,
			unsigned int pct)
{
	u64 rank = div64_u64(count * pct + 99, 100), seen = 0;
	int b;

	if (!count)
		return 0;
	for (b = 0; b < ARRAY_SIZE(st->pow2); b++) {
		seen += atomic64_read(&st->pow2[b]);
		if (seen >= rank)
			break;
	}
	if (b >= 64)
		return hi;
	return clamp(b ? (1ULL << b) - 1 : 0, lo, hi);
}

/* A row's figures, read once when KEY-NAME is opened. */
struct ks_row_view {
	u64 sum, count, p50, p99, min, max;
	u64 chain_ns[KS_CHAIN_MAX];	/* waker-chain: each level's sum */
	u32 e;
};

static void ks_stats_read(const struct ks_stats *st, struct ks_row_view *v)
{
	v->count = atomic64_read(&st->count);
	v->sum = atomic64_read(&st->sum);
	v->min = v->count ? atomic64_read(&st->min) : 0;
	v->max = v->count ? atomic64_read(&st->max) : 0;
	v->p50 = ks_stats_pct(st, v->count, v->min, v->max, 50);
	v->p99 = ks_stats_pct(st, v->count, v->min, v->max, 99);
}

static void ks_stats_show(struct seq_file *m, const char *what,
			  const struct ks_row_view *v)
{
	seq_printf(m, "%s total %llu count %llu avg %llu p50 %llu p99 %llu min %llu max %llu\n",
		   what, v->sum, v->count,
		   v->count ? div64_u64(v->sum, v->count) : 0, v->p50, v->p99,
		   v->min, v->max);
}

/* ---------------------------------------------------------------- node */

/*
 * What one open of KEY-NAME shows, each figure read once at open: rows by
 * total, then other, then the slowest samples.
 */
struct ks_keys_view {
	struct ks_keys *k;
	u32 n_rows;
	u32 n_slow;
	struct ks_row_view other;
	struct ks_row_view *rows;
	struct ks_slow slow[];
};

static int ks_view_cmp(const void *a, const void *b)
{
	const struct ks_row_view *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum < y->sum ? 1 : -1;
	return x->e < y->e ? -1 : x->e > y->e;
}

static int ks_slow_cmp(const void *a, const void *b)
{
	const struct ks_slow *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * A stack part: kernel frames as symbols; user frames as addresses in
 * their process (the tool names them), or why there are none.
 */
static void ks_show_stack(struct seq_file *m, const struct ks_keys *k,
			  enum ks_key_part part, u32 id)
{
	bool user = part == KS_KEY_USTACK || part == KS_KEY_WAKER_USTACK;
	const struct ks_stack *s;
	u32 i;

	seq_printf(m, "\t%s", ks_key_part_names[part]);
	if (!id || id > ks_set_size(&k->stacks)) {
		seq_puts(m, "\n\t\t[not captured]\n");
		return;
	}
	s = ks_set_key(&k->stacks, id - 1);
	if (!user) {
		seq_putc(m, '\n');
		for (i = 0; i < s->nr; i++)
			seq_printf(m, "\t\t%pS\n", (void *)s->frame[i]);
		return;
	}
	if (s->user_none != KS_USTACK_TAKEN) {
		seq_printf(m, " %s\n", ks_ustack_none_names[s->user_none]);
		return;
	}
	seq_printf(m, " tgid %d start %llu\n", s->tgid, s->start);
	for (i = 0; i < s->user_nr; i++)
		seq_printf(m, "\t\t0x%lx\n", s->frame[s->nr + i]);
}

/* A waker part, as the blocked task's are shown. */
static void ks_show_waker(struct seq_file *m, const struct ks_keys *k,
			  enum ks_key_part part, u32 id)
{
	const struct ks_waker *w;

	if (!id || id > ks_set_size(&k->wakers)) {
		if (ks_key_part_is_stack(part))
			ks_show_stack(m, k, part, 0);
		else
			seq_printf(m, "\t%s [not captured]\n", ks_key_part_names[part]);
		return;
	}
	w = ks_set_key(&k->wakers, id - 1);
	if (ks_key_part_is_stack(part)) {
		ks_show_stack(m, k, part, w->stack);
	} else if (part == KS_KEY_WAKER_PID) {
		seq_printf(m, "\twaker-pid %d\n", w->pid);
	} else if (part == KS_KEY_WAKER_CGROUP) {
		ks_cgroup_show(m, k->cgroup_names, ks_key_part_names[part],
			       w->cgroup);
	} else {
		seq_puts(m, "\twaker-comm ");
		seq_escape(m, w->comm, " \t\n\\");
		seq_putc(m, '\n');
	}
}

/*
 * Key waker-chain: a line per level, "waker-chain L comm C pid P
 * blocked-ns MEAN" and its kernel frames, as a stack part's; a level that
 * is an interrupt, "waker-chain L [interrupt]" and its frames, the last;
 * a level that is no waker, a marker: "waker-chain L [running]", or
 * [kernel thread], the last; [not captured] for a table that was full.
 * @v, a row's figures, gives each level's mean blocked time (none where
 * the chain says it is not known); NULL for a slowest sample, whose
 * levels show no time.
 */
static void ks_show_chain(struct seq_file *m, const struct ks_keys *k, u32 id,
			  const struct ks_row_view *v)
{
	const struct ks_chain *c;
	const struct ks_stack *s;
	const struct ks_waker *w;
	unsigned int i, f;

	if (!id || id > ks_set_size(&k->chains)) {
		seq_puts(m, "\twaker-chain [not captured]\n");
		return;
	}
	c = ks_set_key(&k->chains, id - 1);
	for (i = 0; i < k->spec.chain && c->level[i]; i++) {
		u32 l = c->level[i];

		seq_printf(m, "\twaker-chain %u ", i + 1);
		if (l == KS_CHAIN_RUNNING) {
			seq_puts(m, "[running]\n");
			return;
		}
		if (l == KS_CHAIN_KTHREAD) {
			seq_puts(m, "[kernel thread]\n");
			return;
		}
		if (l > ks_set_size(&k->wakers)) {
			seq_puts(m, "[not captured]\n");
			return;
		}
		w = ks_set_key(&k->wakers, l - 1);
		if (!w->pid && !strcmp(w->comm, "[interrupt]")) {
			seq_puts(m, "[interrupt]\n");
		} else {
			seq_puts(m, "comm ");
			seq_escape(m, w->comm, " \t\n\\");
			seq_printf(m, " pid %d", w->pid);
			/* A time not known (no wait of that task seen): none. */
			if (v && !(c->unknown & BIT(i)))
				seq_printf(m, " blocked-ns %llu",
					   v->count ? div64_u64(v->chain_ns[i],
								v->count) : 0);
			seq_putc(m, '\n');
		}
		if (!w->stack || w->stack > ks_set_size(&k->stacks)) {
			seq_puts(m, "\t\t[not captured]\n");
			continue;
		}
		s = ks_set_key(&k->stacks, w->stack - 1);
		for (f = 0; f < s->nr; f++)
			seq_printf(m, "\t\t%pS\n", (void *)s->frame[f]);
	}
}

/* "ret -2", "arg2 4096", "arg2:log2 [4096, 8192)". */
static void ks_show_value(struct seq_file *m, const struct ks_key_spec *spec,
			  u64 value)
{
	char buf[8];
	const char *name = ks_key_value_word(buf, spec);

	if (!spec->value_log2)
		seq_printf(m, spec->value.is_signed ? "\t%s %lld\n" : "\t%s %llu\n",
			   name, value);
	else if (value == KS_LOG2_NEGATIVE)
		seq_printf(m, "\t%s:log2 [%lld, 0)\n", name,
			   spec->value.bits == 64 ? S64_MIN :
			   -(s64)BIT_ULL(spec->value.bits - 1));
	else if (value == 64)
		seq_printf(m, "\t%s:log2 [%llu, 18446744073709551616)\n", name,
			   BIT_ULL(63));
	else
		seq_printf(m, "\t%s:log2 [%llu, %llu)\n", name,
			   value ? BIT_ULL(value - 1) : 0, BIT_ULL(value));
}

static void ks_show_key(struct seq_file *m, const struct ks_keys *k,
			const struct ks_row_key *rk,
			const struct ks_row_view *v)
{
	unsigned int i;

	for (i = 0; i < k->spec.n_parts; i++) {
		u8 part = k->spec.parts[i];

		switch (part) {
		case KS_KEY_KSTACK:
		case KS_KEY_END_KSTACK:
			ks_show_stack(m, k, part, rk->stack[part]);
			break;
		case KS_KEY_USTACK:
			ks_show_stack(m, k, part, rk->stack[0]);
			break;
		case KS_KEY_COMM:
			seq_puts(m, "\tcomm ");
			seq_escape(m, rk->comm, " \t\n\\");
			seq_putc(m, '\n');
			break;
		case KS_KEY_PID:
			seq_printf(m, "\tpid %d\n", rk->pid);
			break;
		case KS_KEY_TGID:
			seq_printf(m, "\ttgid %d\n", rk->tgid);
			break;
		case KS_KEY_CPU:
			seq_printf(m, "\tcpu %u\n", rk->cpu);
			break;
		case KS_KEY_CGROUP:
			ks_cgroup_show(m, k->cgroup_names, ks_key_part_names[part],
				       rk->cgroup);
			break;
		case KS_KEY_VALUE:
			ks_show_value(m, &k->spec, rk->value);
			break;
		case KS_KEY_WAKER_CHAIN:
			ks_show_chain(m, k, rk->waker, v);
			break;
		default:
			ks_show_waker(m, k, part, rk->waker);
			break;
		}
	}
}

static void ks_show_slow(struct seq_file *m, const struct ks_keys *k,
			 const struct ks_slow *s)
{
	static const enum ks_key_part stacks[] = {
		KS_KEY_KSTACK, KS_KEY_END_KSTACK, KS_KEY_WAKER_KSTACK,
		KS_KEY_USTACK, KS_KEY_WAKER_USTACK,
	};
	unsigned int i;

	seq_printf(m, "slowest value %llu pid %d comm ", s->value, s->pid);
	seq_escape(m, s->comm, " \t\n\\");
	seq_printf(m, " cpu %u time %llu\n", s->cpu, s->time);
	for (i = 0; i < ARRAY_SIZE(stacks); i++) {
		if (!ks_keys_has(k, stacks[i]))
			continue;
		if (ks_key_part_is_waker(stacks[i]))
			ks_show_waker(m, k, stacks[i], s->waker);
		else
			ks_show_stack(m, k, stacks[i],
				      s->stack[stacks[i] == KS_KEY_END_KSTACK]);
	}
	if (ks_keys_has(k, KS_KEY_WAKER_CHAIN))
		ks_show_chain(m, k, s->waker, NULL);
}

/* Items: 0 the header, then rows, other, the slowest. */
static void *ks_view_item(struct seq_file *m, loff_t pos)
{
	struct ks_keys_view *v = m->private;

	return pos < 2 + v->n_rows + v->n_slow ? (void *)(uintptr_t)(pos + 1) :
						 NULL;
}

static void *ks_view_start(struct seq_file *m, loff_t *pos)
{
	return ks_view_item(m, *pos);
}

static void *ks_view_next(struct seq_file *m, void *p, loff_t *pos)
{
	return ks_view_item(m, ++*pos);
}

static void ks_view_stop(struct seq_file *m, void *p)
{
}

static int ks_view_show(struct seq_file *m, void *p)
{
	struct ks_keys_view *v = m->private;
	struct ks_keys *k = v->k;
	u32 i = (uintptr_t)p - 1;
	char key[160];

	if (i == 0) {
		ks_key_spec_print(key, sizeof(key), &k->spec);
		seq_printf(m, "# key %s keys %u rows %u other %lu stacks %u slowest %u skipped %ld unit ns\n",
			   key, k->spec.n_parts ? k->spec.rows : 0, v->n_rows,
			   (unsigned long)v->other.count,
			   k->scratch ? ks_set_size(&k->stacks) : 0,
			   k->spec.slowest,
			   atomic_long_read(&k->slow_skipped));
	} else if (i <= v->n_rows) {
		ks_stats_show(m, "row", &v->rows[i - 1]);
		ks_show_key(m, k, ks_set_key(&k->rows, v->rows[i - 1].e),
			    &v->rows[i - 1]);
	} else if (i == v->n_rows + 1) {
		if (k->spec.n_parts)
			ks_stats_show(m, "other", &v->other);
	} else {
		ks_show_slow(m, k, &v->slow[i - v->n_rows - 2]);
	}
	return 0;
}

static const struct seq_operations ks_view_ops = {
	.start = ks_view_start,
	.next = ks_view_next,
	.stop = ks_view_stop,
	.show = ks_view_show,
};

static int ks_keys_open(struct inode *inode, struct file *file)
{
	struct ks_keys *k = inode->i_private;
	struct ks_keys_view *v;
	u32 e, i, n = k->spec.n_parts ? ks_set_size(&k->rows) : 0;
	int err;

	v = kvzalloc(struct_size(v, slow, k->spec.slowest), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	v->k = k;
	v->rows = kvcalloc(max(n, 1U), sizeof(*v->rows), GFP_KERNEL);
	if (!v->rows) {
		kvfree(v);
		return -ENOMEM;
	}
	for (e = 0; e < n; e++) {
		if (!ks_set_ready(&k->rows, e))
			continue;
		ks_stats_read(&k->stats[e], &v->rows[v->n_rows]);
		for (i = 0; k->chain_ns && i < k->spec.chain; i++)
			v->rows[v->n_rows].chain_ns[i] =
				atomic64_read(&k->chain_ns[(size_t)e * k->spec.chain + i]);
		v->rows[v->n_rows++].e = e;
	}
	ks_stats_read(&k->other, &v->other);
	sort(v->rows, v->n_rows, sizeof(*v->rows), ks_view_cmp, NULL);

	/* Handlers only try this lock; no interrupt here can wait on it. */
	preempt_disable();
	while (atomic_cmpxchg_acquire(&k->slow_lock, 0, 1))
		cpu_relax();
	v->n_slow = k->slow_n;
	memcpy(v->slow, k->slow, v->n_slow * sizeof(*v->slow));
	atomic_set_release(&k->slow_lock, 0);
	preempt_enable();
	sort(v->slow, v->n_slow, sizeof(*v->slow), ks_slow_cmp, NULL);

	err = seq_open(file, &ks_view_ops);
	if (err) {
		kvfree(v->rows);
		kvfree(v);
		return err;
	}
	((struct seq_file *)file->private_data)->private = v;
	return 0;
}

static int ks_keys_release(struct inode *inode, struct file *file)
{
	struct ks_keys_view *v = ((struct seq_file *)file->private_data)->private;

	kvfree(v->rows);
	kvfree(v);
	return seq_release(inode, file);
}

/* The node KEY-NAME; its i_private is the trace's struct ks_keys. */
const struct file_operations ks_keys_fops = {
	.owner = THIS_MODULE,
	.open = ks_keys_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = ks_keys_release,
};
