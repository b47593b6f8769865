// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed rows and slowest samples of a trace, filled from probe handlers
 * (their node KEY-NAME: keys_node.c).
 *
 * Rows and stacks live in sets of fixed-size keys, interned without
 * locks: open addressing over an index twice the size of the set, whose
 * tags (hash | state) point into an array of entries claimed in order.
 * Entries are never removed while the trace lives, so a lookup stops at
 * the first empty tag, and the index stays at most half full. This is
 * the design of the BPF stack map (kernel/bpf/stackmap.c: a hash of the
 * frames, the frames compared on a hash match), without its buckets'
 * reuse, so a handler never waits and never frees.
 *
 * Stacks come from the kernel's stack-trace API (stack_trace_save()),
 * which works in probe handlers and NMI. The frames of kstats and of the
 * probe that called it are dropped, so a stack starts at the probed
 * function or at the function that hit the tracepoint, as bpftrace's
 * kstack does.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stacktrace.h>

#include <asm/word-at-a-time.h>

#include "cgroup.h"
#include "keys.h"
#include "keys_table.h"
#include "table.h"
#include "ustack.h"

/* Frames captured: kstats' own, the probe's, and a full-depth stack. */
#define KS_STACK_SCAN		(KS_DEPTH_MAX + 32)
/* How deep kstats' and the probe's own frames may go. */
#define KS_OWN_FRAMES		16

#define KS_TAG_EMPTY		0
#define KS_TAG_NOROOM		1	/* claimed when the set was full */
#define KS_TAG_BUSY		2	/* | hash: its key is being written */
#define KS_TAG_READY		3	/* | hash */
#define KS_TAG_STATE		3u

/* ----------------------------------------------------------------- sets */

static int ks_set_init(struct ks_set *s, u32 cap, u32 key_size)
{
	u32 slots = roundup_pow_of_two(2 * cap);

	s->mask = slots - 1;
	s->cap = cap;
	s->key_size = key_size;
	s->cmp_off = 0;
	s->cmp_len = key_size;
	atomic_set(&s->used, 0);
	s->tag = ks_table_alloc(array_size(slots, sizeof(*s->tag)));
	s->entry = ks_table_alloc(array_size(slots, sizeof(*s->entry)));
	s->keys = ks_table_alloc(array_size(cap, key_size));
	s->ready = ks_table_alloc(cap);
	return s->tag && s->entry && s->keys && s->ready ? 0 : -ENOMEM;
}

static void ks_set_free(struct ks_set *s)
{
	kvfree(s->tag);
	kvfree(s->entry);
	kvfree(s->keys);
	kvfree(s->ready);
}

static size_t ks_set_bytes(const struct ks_set *s)
{
	return ks_table_bytes(array_size(s->mask + 1, sizeof(*s->tag))) +
	       ks_table_bytes(array_size(s->mask + 1, sizeof(*s->entry))) +
	       ks_table_bytes(array_size(s->cap, s->key_size)) +
	       ks_table_bytes(s->cap);
}

/* The words of @key that can differ, hashed as hash_64() does, chained. */
static u32 notrace ks_set_hash(const struct ks_set *s, const void *key)
{
	const unsigned long *w = key + s->cmp_off;
	u64 h = 0;
	u32 i;

	for (i = 0; i < s->cmp_len / sizeof(long); i++)
		h = (h ^ w[i]) * GOLDEN_RATIO_64;
	return h >> 32;
}

/* Whether entry @e holds @key: its words that can differ, compared. */
static bool notrace ks_set_equal(const struct ks_set *s, u32 e,
				 const void *key)
{
	const unsigned long *a = ks_set_key(s, e) + s->cmp_off;
	const unsigned long *b = key + s->cmp_off;
	u32 i;

	for (i = 0; i < s->cmp_len / sizeof(long); i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * The entry holding @key, added if new. -1 if the set is full, or if a
 * key of the same hash is being added on another CPU or in the context
 * this one interrupted: the caller counts the sample in "other".
 *
 * Context: any, NMI included. Lock-free: a tag moves EMPTY -> BUSY ->
 * READY (or NOROOM) once, by cmpxchg, and only its taker writes the key.
 */
static int notrace ks_set_intern(struct ks_set *s, const void *key)
{
	u32 h = ks_set_hash(s, key);
	u32 want = (h & ~KS_TAG_STATE) ?: 4;
	u32 n;

	for (n = 0; n <= s->mask; n++) {
		u32 slot = (h + n) & s->mask;
		/* Pairs with the release of READY: the key is written. */
		u32 tag = smp_load_acquire(&s->tag[slot]);
		int e;

		if (tag == KS_TAG_EMPTY) {
			/* Full: no claim, so "other" samples leave the index be. */
			if (atomic_read(&s->used) >= s->cap)
				return -1;
			if (!try_cmpxchg(&s->tag[slot], &tag, want | KS_TAG_BUSY)) {
				n--;	/* look at this slot again */
				continue;
			}
			e = atomic_inc_return(&s->used) - 1;
			if (e >= s->cap) {
				/* Pairs with the acquire above; no key. */
				smp_store_release(&s->tag[slot], KS_TAG_NOROOM);
				return -1;
			}
			memcpy(ks_set_key(s, e), key, s->key_size);
			s->entry[slot] = e;
			/* Whoever sees READY sees the key and the entry. */
			smp_store_release(&s->tag[slot], want | KS_TAG_READY);
			/* For readers, which walk entries, not tags. */
			smp_store_release(&s->ready[e], 1);
			return e;
		}
		if ((tag & ~KS_TAG_STATE) != want)
			continue;
		if ((tag & KS_TAG_STATE) != KS_TAG_READY)
			return -1;
		e = s->entry[slot];
		if (ks_set_equal(s, e, key))
			return e;
	}
	return -1;
}

/* ---------------------------------------------------------------- stats */

static void ks_stats_init(struct ks_stats *st)
{
	atomic64_set(&st->min, U64_MAX);
}

static __always_inline void ks_stats_add(struct ks_stats *st, u64 v)
{
	s64 cur;

	atomic64_inc(&st->count);
	atomic64_add(v, &st->sum);
	atomic64_inc(&st->pow2[fls64(v)]);
	cur = atomic64_read(&st->min);
	while ((u64)cur > v && !atomic64_try_cmpxchg(&st->min, &cur, v))
		;
	cur = atomic64_read(&st->max);
	while ((u64)cur < v && !atomic64_try_cmpxchg(&st->max, &cur, v))
		;
}

/* --------------------------------------------------------------- stacks */

/* Kernel frames, then user frames: the deepest of each that a part asks. */
static size_t ks_stack_size(const struct ks_key_spec *spec)
{
	return sizeof(struct ks_stack) +
	       (max3(spec->depth[0], spec->depth[1], spec->depth[2]) +
		max(spec->depth[3], spec->depth[4])) * sizeof(long);
}

/*
 * The current kernel stack into @key, without kstats' frames and the
 * probe's: up to the frame in @anchor's range, which is kept for a probed
 * function (its entry) and dropped for a tracepoint's iterator. If that
 * frame is not found, the stack starts below kstats' frames. Only the
 * handler's own frames, the run of kstats frames on top, are kstats':
 * frames of kstats below the probe are the probed function's callers
 * (kstats taking a lock that a trace times).
 */
static void notrace ks_kernel_frames(struct ks_stack *key, unsigned long *buf,
				     u32 depth, const struct ks_anchor *anchor)
{
	unsigned int n = stack_trace_save(buf, KS_STACK_SCAN, 0);
	unsigned int first = 0, i, top = min(n, KS_OWN_FRAMES);

	/* The handler's frames: the first run of kstats frames. */
	while (first < top && !within_module(buf[first], THIS_MODULE))
		first++;
	if (first == top)
		first = 0;
	while (first < top && within_module(buf[first], THIS_MODULE))
		first++;
	for (i = first; anchor && i < min(n, first + KS_OWN_FRAMES); i++) {
		if (buf[i] - anchor->lo < anchor->hi - anchor->lo) {
			first = anchor->keep ? i : i + 1;
			/* The caller, where the unwinder has not seen it yet. */
			if (anchor->keep && anchor->ret && i + 1 < KS_STACK_SCAN &&
			    (i + 1 >= n || buf[i + 1] != anchor->ret)) {
				memmove(buf + i + 2, buf + i + 1,
					(min(n, KS_STACK_SCAN - 1) - i - 1) * sizeof(long));
				buf[i + 1] = anchor->ret;
				n = min(n + 1, KS_STACK_SCAN);
			}
			break;
		}
	}
	key->nr = min_t(u32, n - min(n, first), depth);
	memcpy(key->frame, buf + first, key->nr * sizeof(long));
}

/**
 * ks_keys_stack() - capture the current stack and intern it
 * @k: the trace's keys
 * @part: KS_KEY_KSTACK (with ustack's user frames), KS_KEY_END_KSTACK,
 *        KS_KEY_WAKER_KSTACK (with waker-ustack's) or KS_KEY_WAKER_CHAIN
 *        (a level's kernel frames, at waker-kstack's depth)
 * @anchor: where the probed kernel's own frames begin, or NULL
 * @level: the context level of the sampled code (for user frames)
 *
 * The kernel frames if the key has @part (ks_kernel_frames()), then the
 * current task's user frames if it has @part's user part (ustack.c).
 *
 * Context: a kstats handler, NMI included, with preemption disabled and
 * its context slot's guard held (the scratch buffer is per slot).
 * Return: the stack's id, from 1; 0 if the stack table is full.
 */
u32 notrace ks_keys_stack(struct ks_keys *k, enum ks_key_part part,
			  const struct ks_anchor *anchor, unsigned int level)
{
	unsigned long *buf = this_cpu_ptr(k->scratch) +
			     ks_context_slot() * (KS_STACK_SCAN +
							  k->stacks.key_size / sizeof(long) + 1);
	struct ks_stack *key = (struct ks_stack *)(buf + KS_STACK_SCAN);
	int e;

	BUILD_BUG_ON(KS_USTACK_SCAN_WORDS > KS_STACK_SCAN);
	memset(key, 0, k->stacks.key_size);
	/* A level of waker-chain: kernel frames, at waker-kstack's depth. */
	if (ks_keys_has(k, part) || part == KS_KEY_WAKER_CHAIN)
		ks_kernel_frames(key, buf, k->spec.depth[ks_key_stack_slot(part)],
				 anchor);
	if (part != KS_KEY_END_KSTACK && part != KS_KEY_WAKER_CHAIN &&
	    ks_keys_has(k, ks_key_user_part(part))) {
		enum ks_key_part user = ks_key_user_part(part);
		pid_t tgid;
		u64 start;
		u8 none;

		key->user_nr = ks_user_stack(key->frame + key->nr,
					     k->spec.depth[ks_key_stack_slot(user)],
					     buf, level, &tgid, &start, &none);
		key->tgid = tgid;
		key->start = start;
		key->user_none = none;
	}
	e = ks_set_intern(&k->stacks, key);
	return e < 0 ? 0 : e + 1;
}

/*
 * The task's comm, zero-padded past its NUL (comm may hold stale bytes
 * there), a word at a time as strscpy() reads; its last byte is 0.
 */
static __always_inline void ks_copy_comm(char *dst, const struct task_struct *p)
{
	const struct word_at_a_time zero = WORD_AT_A_TIME_CONSTANTS;
	unsigned long w, bits, keep = ~0UL;
	unsigned int i;

	BUILD_BUG_ON(TASK_COMM_LEN % sizeof(long));
	for (i = 0; i < TASK_COMM_LEN; i += sizeof(long)) {
		/* memcpy(): neither comm nor @dst need be word-aligned. */
		memcpy(&w, p->comm + i, sizeof(w));
		w &= keep;
		if (has_zero(w, &bits, &zero)) {
			bits = prep_zero_mask(w, bits, &zero);
			w &= zero_bytemask(create_zero_mask(bits));
			keep = 0;
		}
		memcpy(dst + i, &w, sizeof(w));
	}
	dst[TASK_COMM_LEN - 1] = 0;
}

/**
 * ks_keys_waker() - intern current as the waker of a blocked task
 * @k: the trace's keys
 * @anchor: as for ks_keys_stack(), for waker-kstack and waker-ustack
 *
 * Only the waker-* parts of the key are taken: with waker-pid alone, all
 * of a pid's wakeups are one waker.
 *
 * Context: a kstats handler in the waker's context (the wakeup's), any
 * context level, with its slot's guard held.
 * Return: the waker's id, from 1; 0 if the key has no waker part or a
 * table is full (the wait's sample then goes to "other").
 */
u32 notrace ks_keys_waker(struct ks_keys *k, const struct ks_anchor *anchor)
{
	struct ks_waker w = {};
	int e;

	if (!ks_keys_has_waker(k))
		return 0;
	if (ks_keys_has_stack(k, KS_KEY_WAKER_KSTACK)) {
		w.stack = ks_keys_stack(k, KS_KEY_WAKER_KSTACK, anchor,
					interrupt_context_level());
		if (!w.stack)
			return 0;
	}
	if (ks_keys_has(k, KS_KEY_WAKER_PID))
		w.pid = current->pid;
	if (ks_keys_has(k, KS_KEY_WAKER_COMM))
		ks_copy_comm(w.comm, current);
	if (ks_keys_has(k, KS_KEY_WAKER_CGROUP))
		w.cgroup = ks_task_cgroup_id(current);
	e = ks_set_intern(&k->wakers, &w);
	return e < 0 ? 0 : e + 1;
}

/**
 * ks_keys_chain_level() - intern current, or an interrupt, as a level of
 *                         a wakeup chain
 * @k: the trace's keys, keyed by waker-chain
 * @anchor: as for ks_keys_stack()
 * @irq: the wakeup is an interrupt's (hardirq, softirq, NMI): the level
 *       is the interrupt, comm "[interrupt]" and pid 0, not the task it
 *       interrupted
 *
 * Context: a kstats handler in the waker's context, with its slot's
 * guard held.
 * Return: the level's id, from 1, below KS_CHAIN_MARKERS; 0 if a table
 * is full.
 */
u32 notrace ks_keys_chain_level(struct ks_keys *k,
				const struct ks_anchor *anchor, bool irq)
{
	struct ks_waker w = {};
	int e;

	w.stack = ks_keys_stack(k, KS_KEY_WAKER_CHAIN, anchor,
				interrupt_context_level());
	if (!w.stack)
		return 0;
	if (irq) {
		strscpy(w.comm, "[interrupt]", sizeof(w.comm));
	} else {
		w.pid = current->pid;
		ks_copy_comm(w.comm, current);
	}
	e = ks_set_intern(&k->wakers, &w);
	return e < 0 || e + 1 >= KS_CHAIN_MARKERS ? 0 : e + 1;
}

/**
 * ks_keys_chain() - intern a wakeup chain
 * @k: the trace's keys, keyed by waker-chain
 * @level: KS_CHAIN_MAX levels, of which the key's first spec.chain count
 * @ns: each level's own blocked time, or KS_CHAIN_NS_UNKNOWN
 *
 * Context: a kstats handler.
 * Return: the chain's id, from 1; 0 if a level was not captured
 * (KS_CHAIN_LOST) or the table is full: the sample goes to "other".
 */
u32 notrace ks_keys_chain(struct ks_keys *k, const u32 *level, const u64 *ns)
{
	struct ks_chain c = {};
	unsigned int i;
	int e;

	for (i = 0; i < k->spec.chain; i++) {
		if (level[i] == KS_CHAIN_LOST)
			return 0;
		c.level[i] = level[i];
		if (ns[i] == KS_CHAIN_NS_UNKNOWN)
			c.unknown |= BIT(i);
	}
	e = ks_set_intern(&k->chains, &c);
	return e < 0 ? 0 : e + 1;
}

/* ------------------------------------------------------------- slowest */

static noinline void notrace ks_slow_offer(struct ks_keys *k,
					   u32 start_stack, u32 end_stack,
					   u32 waker, struct task_struct *p,
					   u64 value, u64 now)
{
	struct ks_slow *s;
	u32 i, low;

	if (atomic_cmpxchg_acquire(&k->slow_lock, 0, 1)) {
		atomic_long_inc(&k->slow_skipped);
		return;
	}
	if (k->slow_n < k->spec.slowest) {
		s = &k->slow[k->slow_n++];
	} else {
		for (low = 0, i = 1; i < k->slow_n; i++)
			if (k->slow[i].value < k->slow[low].value)
				low = i;
		s = &k->slow[low];
		if (value <= s->value)
			goto out;
	}
	s->value = value;
	s->time = now;
	s->pid = p->pid;
	s->cpu = raw_smp_processor_id();
	s->stack[0] = start_stack;
	s->stack[1] = end_stack;
	s->waker = waker;
	memset(s->comm, 0, sizeof(s->comm));
	ks_copy_comm(s->comm, p);
	if (k->slow_n == k->spec.slowest) {
		u64 floor = U64_MAX;

		for (i = 0; i < k->slow_n; i++)
			floor = min(floor, k->slow[i].value);
		/* A full list takes only a value above its least. */
		WRITE_ONCE(k->slow_floor, floor == U64_MAX ? floor : floor + 1);
	}
out:
	atomic_set_release(&k->slow_lock, 0);
}

/* ---------------------------------------------------------------- rows */

/**
 * ks_keys_has_waker() - whether a trace's rows are keyed by its waker
 * @k: the trace's keys, or NULL
 *
 * Context: any.
 */
bool notrace ks_keys_has_waker(const struct ks_keys *k)
{
	/* waker-chain takes its levels from ks_keys_chain_level(). */
	return k && k->wakers.cap && !k->chains.cap;
}

/*
 * The row of key part ret or argN for the register @raw: the value as its
 * type reads it, or with :log2 its power of two: fls64(), so b > 0 holds
 * [2^(b-1), 2^b) and 0 holds 0, or KS_LOG2_NEGATIVE.
 */
static u64 notrace ks_key_value(const struct ks_key_spec *spec, u64 raw)
{
	u64 v = ks_value_of(&spec->value, raw);

	if (!spec->value_log2)
		return v;
	return spec->value.is_signed && (s64)v < 0 ? KS_LOG2_NEGATIVE : fls64(v);
}

/*
 * The entry of row key @rk: first the row this CPU found last, since a
 * trace's samples mostly repeat their key, then the table. The cache
 * holds only an entry, checked against the entry's key, which never
 * changes once written: whatever a racing handler (an interrupt, an
 * NMI) left there, a wrong entry only costs the table's lookup.
 */
static __always_inline int ks_row_find(struct ks_keys *k,
				       const struct ks_row_key *rk)
{
	u32 last = this_cpu_read(*k->last_row);
	int e;

	if (last && ks_set_equal(&k->rows, last - 1, rk))
		return last - 1;
	e = ks_set_intern(&k->rows, rk);
	if (e >= 0)
		this_cpu_write(*k->last_row, e + 1);
	return e;
}

/*
 * The row of a sample, its key built part by part: -1 for "other".
 * Out of line: the fast path (ks_row_last()) needs no key on its stack.
 */
static noinline int notrace ks_row_build(struct ks_keys *k, u32 start_stack,
					 u32 end_stack, u32 waker, u64 raw,
					 struct task_struct *p)
{
	struct ks_row_key rk = {};
	bool whole = true;
	unsigned int i;

	for (i = 0; i < k->spec.n_parts; i++) {
		switch (k->spec.parts[i]) {
		case KS_KEY_KSTACK:
		case KS_KEY_USTACK:	/* in the start's stack entry */
			rk.stack[0] = start_stack;
			whole &= start_stack != 0;
			break;
		case KS_KEY_END_KSTACK:
			rk.stack[1] = end_stack;
			whole &= end_stack != 0;
			break;
		case KS_KEY_COMM:
			ks_copy_comm(rk.comm, p);
			break;
		case KS_KEY_PID:
			rk.pid = p->pid;
			break;
		case KS_KEY_TGID:
			rk.tgid = p->tgid;
			break;
		case KS_KEY_CPU:
			rk.cpu = raw_smp_processor_id();
			break;
		case KS_KEY_CGROUP:
			rk.cgroup = ks_task_cgroup_id(p);
			break;
		case KS_KEY_VALUE:
			rk.value = ks_key_value(&k->spec, raw);
			break;
		default:	/* the waker's parts: all in one id */
			rk.waker = waker;
			whole &= waker != 0;
			break;
		}
	}
	return whole ? ks_row_find(k, &rk) : -1;
}

/*
 * The fast path of a trace keyed by one part of the task or CPU (comm,
 * pid, tgid, cpu, cgroup; k->one_part): the part read where it lies and
 * compared with the key of the row this CPU found last, no row key built.
 * That key holds only this part (the rest is 0), so equal is the same
 * row; a comm equal word for word is the same string, zero-padded. Else
 * -1: ks_row_build() builds the key and finds the row (a comm with stale
 * bytes past its NUL always takes that way). As in ks_row_find(), a
 * racing handler's entry in last_row only costs that way.
 */
static __always_inline int ks_row_last(struct ks_keys *k,
				       const struct task_struct *p)
{
	u32 last = this_cpu_read(*k->last_row);
	const struct ks_row_key *rk;
	unsigned long a, b;
	unsigned int i;

	if (!last)
		return -1;
	rk = ks_set_key(&k->rows, last - 1);
	switch (k->one_part) {
	case KS_KEY_COMM:
		for (i = 0; i < TASK_COMM_LEN; i += sizeof(long)) {
			/* memcpy(): comm need not be word-aligned. */
			memcpy(&a, p->comm + i, sizeof(a));
			memcpy(&b, rk->comm + i, sizeof(b));
			if (a != b)
				return -1;
		}
		return last - 1;
	case KS_KEY_PID:
		return rk->pid == p->pid ? last - 1 : -1;
	case KS_KEY_TGID:
		return rk->tgid == p->tgid ? last - 1 : -1;
	case KS_KEY_CPU:
		return rk->cpu == raw_smp_processor_id() ? last - 1 : -1;
	case KS_KEY_CGROUP:
		return rk->cgroup == ks_task_cgroup_id(p) ? last - 1 : -1;
	default:
		return -1;
	}
}

/* Inline in its two callers: a keyed sample makes one call into keys.c. */
static __always_inline void ks_keys_add(struct ks_keys *k, u32 start_stack,
					u32 end_stack, u32 waker, u64 raw,
					struct task_struct *p, u64 value,
					u64 now, const u64 *levelns)
{
	int e;

	/*
	 * Without a full list, the floor is 0: the first samples fill it,
	 * 0 ns ones too (a coarse clock gives many).
	 */
	if (k->spec.slowest && value >= READ_ONCE(k->slow_floor))
		ks_slow_offer(k, start_stack, end_stack, waker, p, value, now);
	if (!k->spec.n_parts)
		return;
	e = ks_row_last(k, p);
	if (e < 0)
		e = ks_row_build(k, start_stack, end_stack, waker, raw, p);
	ks_stats_add(e < 0 ? &k->other : &k->stats[e], value);
	if (levelns && e >= 0 && k->chain_ns) {
		atomic64_t *sum = &k->chain_ns[(size_t)e * k->spec.chain];
		unsigned int i;

		/* An unknown time is keyed apart (ks_keys_chain()): none. */
		for (i = 0; i < k->spec.chain; i++)
			if (levelns[i] != KS_CHAIN_NS_UNKNOWN)
				atomic64_add(levelns[i], &sum[i]);
	}
}

/**
 * ks_keys_record() - add a sample to its row and offer it to the slowest
 * @k: the trace's keys
 * @start_stack: from ks_keys_stack() at the start, or 0
 * @end_stack: from ks_keys_stack() at the end, or 0
 * @raw: the register that key ret or argN reads (unused without one)
 * @p: the task the sample belongs to (for run-queue latency, the woken one)
 * @value: the sample, in ns
 * @now: the sample's end, CLOCK_MONOTONIC ns
 *
 * A sample whose row cannot be had (table full, a stack not captured, the
 * same new key being added meanwhile) is counted in the "other" row.
 *
 * Context: a kstats handler, NMI included.
 */
void notrace ks_keys_record(struct ks_keys *k, u32 start_stack, u32 end_stack,
			    u64 raw, struct task_struct *p, u64 value, u64 now)
{
	ks_keys_add(k, start_stack, end_stack, 0, raw, p, value, now, NULL);
}

/**
 * ks_keys_record_woken() - ks_keys_record() for an off-CPU wait
 * @k: the trace's keys
 * @stack: the blocked task's stack at its switch-out, or 0
 * @waker: from ks_keys_waker() at its wakeup, or with waker-chain from
 *         ks_keys_chain(); or 0
 * @p: the task that waited
 * @value: the wait, in ns
 * @now: its end, CLOCK_MONOTONIC ns
 * @levelns: with waker-chain, each level's own blocked time, added to
 *           the row's sums; else NULL
 *
 * Context: a kstats handler, NMI included.
 */
void notrace ks_keys_record_woken(struct ks_keys *k, u32 stack, u32 waker,
				  struct task_struct *p, u64 value, u64 now,
				  const u64 *levelns)
{
	ks_keys_add(k, stack, 0, waker, 0, p, value, now, levelns);
}

/**
 * ks_keys_other() - samples of the "other" row
 * @k: the trace's keys, or NULL
 *
 * Return: how many samples found no row of their own.
 */
unsigned long ks_keys_other(const struct ks_keys *k)
{
	return k ? atomic64_read(&k->other.count) : 0;
}

/* ------------------------------------------------------------ lifetime */

const char * const ks_key_part_names[KS_KEY_NR_PARTS] = {
	[KS_KEY_KSTACK] = "kstack",
	[KS_KEY_END_KSTACK] = "end-kstack",
	[KS_KEY_USTACK] = "ustack",
	[KS_KEY_COMM] = "comm",
	[KS_KEY_PID] = "pid",
	[KS_KEY_TGID] = "tgid",
	[KS_KEY_CPU] = "cpu",
	[KS_KEY_CGROUP] = "cgroup",
	[KS_KEY_WAKER_KSTACK] = "waker-kstack",
	[KS_KEY_WAKER_USTACK] = "waker-ustack",
	[KS_KEY_WAKER_COMM] = "waker-comm",
	[KS_KEY_WAKER_PID] = "waker-pid",
	[KS_KEY_WAKER_CGROUP] = "waker-cgroup",
	[KS_KEY_WAKER_CHAIN] = "waker-chain",
	/* Written as ret or argN: see ks_key_value_name(). */
	[KS_KEY_VALUE] = "value",
};

/**
 * ks_key_value_name() - how KEY-NAME and the listing name key part ret/argN
 * @buf: at least 8 bytes
 * @v: the value
 *
 * Return: @buf, "ret" or "arg0".."arg4".
 */
char *ks_key_value_name(char *buf, const struct ks_value *v)
{
	if (v->arg == KS_VALUE_RET)
		strscpy(buf, "ret", 8);
	else
		snprintf(buf, 8, "arg%u", v->arg);
	return buf;
}

/**
 * ks_key_value_word() - how KEY-NAME and the listing name a key's value part
 * @buf: 8 bytes, for ret or argN
 * @spec: the key
 *
 * Return: the name or field path as written ("flags", "file->f_flags"),
 * else ret or argN in @buf.
 */
const char *ks_key_value_word(char *buf, const struct ks_key_spec *spec)
{
	return spec->value_word[0] ? spec->value_word :
	       ks_key_value_name(buf, &spec->value);
}

/**
 * ks_key_spec_print() - the key as written on a _control line
 * @buf: where to write, NUL-terminated
 * @size: its size
 * @spec: the spec
 *
 * "kstack:16,end-kstack:16,comm", or "-" when there is no key.
 *
 * Return: as scnprintf().
 */
int ks_key_spec_print(char *buf, size_t size, const struct ks_key_spec *spec)
{
	int len = 0;
	unsigned int i;

	if (!spec->n_parts)
		return scnprintf(buf, size, "-");
	for (i = 0; i < spec->n_parts; i++) {
		u8 part = spec->parts[i];

		if (part == KS_KEY_VALUE) {
			char name[8];

			len += scnprintf(buf + len, size - len, "%s%s", i ? "," : "",
					 ks_key_value_word(name, spec));
			/* The type as given: a BTF type is the listing's "types". */
			if (spec->value.source == KS_VSRC_GIVEN)
				len += scnprintf(buf + len, size - len, ":%c%u",
						 spec->value.is_signed ? 's' : 'u',
						 spec->value.bits);
			if (spec->value_log2)
				len += scnprintf(buf + len, size - len, ":log2");
			continue;
		}
		len += scnprintf(buf + len, size - len, "%s%s", i ? "," : "",
				 ks_key_part_names[part]);
		if (ks_key_part_is_stack(part))
			len += scnprintf(buf + len, size - len, ":%u",
					 spec->depth[ks_key_stack_slot(part)]);
		else if (part == KS_KEY_WAKER_CHAIN)
			len += scnprintf(buf + len, size - len, ":%u",
					 spec->chain);
	}
	return len;
}

#define KS_ROW_OFF(field)	offsetof(struct ks_row_key, field)
#define KS_ROW_END(field)	offsetofend(struct ks_row_key, field)

/* Where each part lies in a row key: [off, end) bytes. */
static const struct {
	u8 off, end;
} ks_row_parts[KS_KEY_NR_PARTS] = {
	[KS_KEY_KSTACK] = { KS_ROW_OFF(stack[0]), KS_ROW_END(stack[0]) },
	[KS_KEY_END_KSTACK] = { KS_ROW_OFF(stack[1]), KS_ROW_END(stack[1]) },
	[KS_KEY_USTACK] = { KS_ROW_OFF(stack[0]), KS_ROW_END(stack[0]) },
	[KS_KEY_COMM] = { KS_ROW_OFF(comm), KS_ROW_END(comm) },
	[KS_KEY_PID] = { KS_ROW_OFF(pid), KS_ROW_END(pid) },
	[KS_KEY_TGID] = { KS_ROW_OFF(tgid), KS_ROW_END(tgid) },
	[KS_KEY_CPU] = { KS_ROW_OFF(cpu), KS_ROW_END(cpu) },
	[KS_KEY_CGROUP] = { KS_ROW_OFF(cgroup), KS_ROW_END(cgroup) },
	/* The waker's parts: all in one id. */
	[KS_KEY_WAKER_KSTACK] = { KS_ROW_OFF(waker), KS_ROW_END(waker) },
	[KS_KEY_WAKER_USTACK] = { KS_ROW_OFF(waker), KS_ROW_END(waker) },
	[KS_KEY_WAKER_COMM] = { KS_ROW_OFF(waker), KS_ROW_END(waker) },
	[KS_KEY_WAKER_PID] = { KS_ROW_OFF(waker), KS_ROW_END(waker) },
	[KS_KEY_WAKER_CGROUP] = { KS_ROW_OFF(waker), KS_ROW_END(waker) },
	[KS_KEY_WAKER_CHAIN] = { KS_ROW_OFF(waker), KS_ROW_END(waker) },
	[KS_KEY_VALUE] = { KS_ROW_OFF(value), KS_ROW_END(value) },
};

/*
 * Rows are hashed and compared on the whole words that hold the key's
 * parts, from the first to the last: the rest is 0 in every key.
 */
static void ks_row_range(struct ks_set *s, const struct ks_key_spec *spec)
{
	size_t lo = sizeof(struct ks_row_key), hi = 0;
	unsigned int i;

	for (i = 0; i < spec->n_parts; i++) {
		u8 part = spec->parts[i];

		lo = min_t(size_t, lo, ks_row_parts[part].off);
		hi = max_t(size_t, hi, ks_row_parts[part].end);
	}
	if (hi <= lo)
		return;		/* no parts: rows are never interned */
	lo = round_down(lo, sizeof(u64));
	hi = round_up(hi, sizeof(u64));
	s->cmp_off = lo;
	s->cmp_len = hi - lo;
}

/**
 * ks_keys_alloc() - the keyed rows and slowest samples of a new trace
 * @spec: what the trace's line asked for
 *
 * Everything a handler will use is allocated here: @spec->rows rows, a
 * table of 2 * (@spec->rows + @spec->slowest) stacks (3 * with
 * waker-kstack), per-CPU scratch for stack capture, and with a waker part
 * as many wakers as stacks. With waker-chain:N, 2 + 2N stacks and 2N
 * wakers (levels) per row and slowest, a chain per row and slowest, and
 * N sums of blocked time per row.
 *
 * Context: process context; may sleep.
 * Return: the table, or NULL when out of memory.
 */
struct ks_keys *ks_keys_alloc(const struct ks_key_spec *spec)
{
	struct ks_keys *k;
	u32 rows = spec->n_parts ? spec->rows : 1;
	u32 chain = ks_keys_spec_has(spec, KS_KEY_WAKER_CHAIN) ? spec->chain : 0;
	u32 i;

	k = kzalloc(struct_size(k, slow, spec->slowest), GFP_KERNEL);
	if (!k)
		return NULL;
	k->spec = *spec;
	ks_stats_init(&k->other);
	k->stats = ks_table_alloc(array_size(rows, sizeof(*k->stats)));
	if (!k->stats || ks_set_init(&k->rows, rows, sizeof(struct ks_row_key)))
		goto err;
	ks_row_range(&k->rows, spec);
	k->one_part = KS_KEY_NR_PARTS;
	if (spec->n_parts == 1 && spec->parts[0] >= KS_KEY_COMM &&
	    spec->parts[0] <= KS_KEY_CGROUP)
		k->one_part = spec->parts[0];
	k->last_row = alloc_percpu(u32);
	if (!k->last_row)
		goto err;
	for (i = 0; i < rows; i++)
		ks_stats_init(&k->stats[i]);
	if (ks_keys_has_stack(k, KS_KEY_KSTACK) || ks_keys_has(k, KS_KEY_END_KSTACK) ||
	    ks_keys_has_stack(k, KS_KEY_WAKER_KSTACK) || chain) {
		/*
		 * Each row holds up to two stacks (three with the waker's);
		 * a chain's levels, 2 * chain more: the wakeups of every
		 * blocked task take levels, not only the trace's samples.
		 */
		u32 per = ks_keys_has_stack(k, KS_KEY_WAKER_KSTACK) ? 3 :
			  2 + 2 * chain;

		if (ks_set_init(&k->stacks, per * (rows + spec->slowest),
				ks_stack_size(spec)))
			goto err;
		k->scratch = __alloc_percpu(KS_CONTEXT_SLOTS * (KS_STACK_SCAN * sizeof(long) +
					    k->stacks.key_size + sizeof(long)),
					    sizeof(long));
		if (!k->scratch)
			goto err;
	}
	if (ks_keys_has_stack(k, KS_KEY_WAKER_KSTACK) || ks_keys_has(k, KS_KEY_WAKER_COMM) ||
	    ks_keys_has(k, KS_KEY_WAKER_PID) || ks_keys_has(k, KS_KEY_WAKER_CGROUP)) {
		/* Wakers of waits that end filtered out take room too. */
		if (ks_set_init(&k->wakers, 2 * (rows + spec->slowest),
				sizeof(struct ks_waker)))
			goto err;
	}
	if (chain) {
		if (ks_set_init(&k->wakers, 2 * chain * (rows + spec->slowest),
				sizeof(struct ks_waker)) ||
		    ks_set_init(&k->chains, rows + spec->slowest,
				sizeof(struct ks_chain)))
			goto err;
		k->chain_ns = ks_table_alloc(array_size(rows * chain,
							sizeof(*k->chain_ns)));
		if (!k->chain_ns)
			goto err;
	}
	if (ks_keys_has(k, KS_KEY_CGROUP) || ks_keys_has(k, KS_KEY_WAKER_CGROUP)) {
		k->cgroup_names = ks_cgroup_names_alloc();
		if (!k->cgroup_names)
			goto err;
	}
	return k;
err:
	ks_keys_free(k);
	return NULL;
}

/**
 * ks_keys_free() - free a trace's keys
 * @k: from ks_keys_alloc(), or NULL; no handler may use it any more
 */
void ks_keys_free(struct ks_keys *k)
{
	if (!k)
		return;
	ks_cgroup_names_free(k->cgroup_names);
	free_percpu(k->scratch);
	free_percpu(k->last_row);
	kvfree(k->chain_ns);
	ks_set_free(&k->chains);
	ks_set_free(&k->wakers);
	ks_set_free(&k->stacks);
	ks_set_free(&k->rows);
	kvfree(k->stats);
	kfree(k);
}

/**
 * ks_keys_bytes() - memory a trace's keys hold
 * @k: the keys, or NULL
 *
 * Return: bytes, the per-CPU scratch of every possible CPU included.
 */
size_t ks_keys_bytes(const struct ks_keys *k)
{
	if (!k)
		return 0;
	return kmalloc_size_roundup(struct_size(k, slow, k->spec.slowest)) +
	       ks_table_bytes(array_size(k->rows.cap, sizeof(*k->stats))) +
	       ks_set_bytes(&k->rows) + num_possible_cpus() * sizeof(u32) +
	       (k->wakers.cap ? ks_set_bytes(&k->wakers) : 0) +
	       (k->chains.cap ? ks_set_bytes(&k->chains) +
		ks_table_bytes(array_size(k->rows.cap * k->spec.chain,
					  sizeof(*k->chain_ns))) : 0) +
	       (k->scratch ? ks_set_bytes(&k->stacks) +
		num_possible_cpus() * KS_CONTEXT_SLOTS *
		(KS_STACK_SCAN * sizeof(long) + k->stacks.key_size +
		 sizeof(long)) : 0);
}

NOKPROBE_SYMBOL(ks_set_intern);
NOKPROBE_SYMBOL(ks_keys_stack);
NOKPROBE_SYMBOL(ks_slow_offer);
NOKPROBE_SYMBOL(ks_keys_waker);
NOKPROBE_SYMBOL(ks_keys_chain_level);
NOKPROBE_SYMBOL(ks_keys_chain);
NOKPROBE_SYMBOL(ks_keys_has_waker);
NOKPROBE_SYMBOL(ks_key_value);
NOKPROBE_SYMBOL(ks_row_build);
NOKPROBE_SYMBOL(ks_keys_record);
NOKPROBE_SYMBOL(ks_keys_record_woken);
