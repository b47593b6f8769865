// SPDX-License-Identifier: GPL-2.0
/*
 * The start table: open addressing over a preallocated array, where a
 * key may only live in the KS_STARTS_WINDOW slots that follow its hash.
 * Every operation therefore looks at a bounded number of slots, however
 * many keys have passed through: deleted slots are reused by inserts but
 * never make a lookup longer than the window.
 *
 * A slot's key moves EMPTY -> BUSY -> key -> BUSY -> TOMB -> BUSY -> ...
 * and never back to EMPTY, so once a key is in slot i, every slot between
 * its hash and i is non-EMPTY for good, and a lookup may stop at EMPTY.
 * BUSY is taken with a cmpxchg and makes the taker the slot's only owner:
 * - put writes the timestamp while BUSY and then publishes the key with
 *   release semantics, so whoever sees the key also sees its timestamp;
 *   an interrupt or NMI that looks for the key in between does not find
 *   it (and its caller counts a miss) instead of reading a stale time;
 * - take turns the key into BUSY before reading the timestamp, so a
 *   nested put cannot reuse the slot under it, and two takes of one start
 *   cannot both succeed.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/kprobes.h>

#include "starts.h"
#include "table.h"

#define KS_KEY_EMPTY	0UL
#define KS_KEY_TOMB	1UL
#define KS_KEY_BUSY	2UL

struct ks_start {
	unsigned long key;
	u64 ts;
	u32 tag;	/* the caller's, carried from put to take */
};

struct ks_starts {
	u32 mask;	/* slots - 1; slots is a power of two */
	u32 window;	/* min(KS_STARTS_WINDOW, slots) */
	struct ks_start slot[];
};

static __always_inline u32 ks_home(const struct ks_starts *st, const void *key)
{
	return hash_ptr(key, 32) & st->mask;
}

static __always_inline struct ks_start *ks_at(struct ks_starts *st, u32 home,
					      u32 n)
{
	return &st->slot[(home + n) & st->mask];
}

/**
 * ks_starts_alloc() - allocate an empty start table
 * @maxactive: sections the trace expects in flight at once, 1..4096
 *
 * The table has roundup_pow_of_two(2 * @maxactive) slots of 24 bytes
 * (16 on 32-bit kernels).
 *
 * Context: process context; may sleep.
 * Return: the table, or NULL when out of memory.
 */
struct ks_starts *ks_starts_alloc(unsigned int maxactive)
{
	u32 slots = roundup_pow_of_two(2 * max(maxactive, 1U));
	struct ks_starts *st;

	/* vmalloc past a page: no high-order page, no power-of-two rounding. */
	st = ks_table_alloc(struct_size(st, slot, slots));
	if (!st)
		return NULL;
	st->mask = slots - 1;
	st->window = min_t(u32, KS_STARTS_WINDOW, slots);
	return st;
}

/**
 * ks_starts_free() - free a start table
 * @st: from ks_starts_alloc(), or NULL; no handler may use it any more
 */
void ks_starts_free(struct ks_starts *st)
{
	kvfree(st);
}

/**
 * ks_starts_bytes() - memory held by a start table
 * @st: the table, or NULL
 *
 * Return: its size in bytes.
 */
size_t ks_starts_bytes(const struct ks_starts *st)
{
	return st ? ks_table_bytes(struct_size(st, slot, st->mask + 1)) : 0;
}

/**
 * ks_starts_drop() - forget every start of @key
 * @st: the table
 * @key: the task
 *
 * Context: any, NMI included.
 */
void notrace ks_starts_drop(struct ks_starts *st, const void *key)
{
	u32 home = ks_home(st, key), n, tag;
	u64 ts;

	for (n = 0; n < st->window; n++) {
		struct ks_start *s = ks_at(st, home, n);
		unsigned long v = READ_ONCE(s->key);

		if (v == KS_KEY_EMPTY)
			break;
		/* A duplicate left by racing puts goes too. */
		if (v == (unsigned long)key)
			ks_starts_take(st, key, &ts, &tag);
	}
}

/*
 * Whether @key has a start in its window. The whole window up to EMPTY:
 * a tombstone before the key's slot does not end the search, or a put
 * without replace would claim it and shadow the start it must keep.
 */
static bool notrace ks_starts_find(struct ks_starts *st, u32 home,
				   const void *key)
{
	u32 n;

	for (n = 0; n < st->window; n++) {
		unsigned long v = READ_ONCE(ks_at(st, home, n)->key);

		if (v == KS_KEY_EMPTY)
			return false;
		if (v == (unsigned long)key)
			return true;
	}
	return false;
}

/**
 * ks_starts_put() - record that @key's section started at @ts
 * @st: the table
 * @key: the task
 * @ts: the start, in ns
 * @tag: kept with it, for ks_starts_take() (a stack id)
 * @replace: a start already recorded for @key is replaced; if false,
 *           the earlier start is kept and @ts is ignored
 *
 * Context: any, NMI included. Lock-free; looks at most at twice
 * KS_STARTS_WINDOW slots.
 * Return: false if every slot of @key's window was in use: the start is
 * not recorded and the caller counts a miss.
 */
bool notrace ks_starts_put(struct ks_starts *st, const void *key, u64 ts,
			   u32 tag, bool replace)
{
	u32 home = ks_home(st, key), n;

	if (replace)
		ks_starts_drop(st, key);
	else if (ks_starts_find(st, home, key))
		return true;
	for (n = 0; n < st->window; n++) {
		struct ks_start *s = ks_at(st, home, n);
		unsigned long v = READ_ONCE(s->key);

		if (v != KS_KEY_EMPTY && v != KS_KEY_TOMB)
			continue;
		if (!try_cmpxchg(&s->key, &v, KS_KEY_BUSY))
			continue;
		WRITE_ONCE(s->ts, ts);
		WRITE_ONCE(s->tag, tag);
		/* Pairs with the cmpxchg in ks_starts_take(): ts first. */
		smp_store_release(&s->key, (unsigned long)key);
		return true;
	}
	return false;
}

/**
 * ks_starts_take() - remove @key's start and return it
 * @st: the table
 * @key: the task
 * @ts: set to the start, in ns, on success
 * @tag: set to the start's tag, on success
 *
 * Context: any, NMI included. Lock-free; looks at most at
 * KS_STARTS_WINDOW slots.
 * Return: true if a start was found and removed.
 */
bool notrace ks_starts_take(struct ks_starts *st, const void *key, u64 *ts,
			    u32 *tag)
{
	u32 home = ks_home(st, key), n;

	for (n = 0; n < st->window; n++) {
		struct ks_start *s = ks_at(st, home, n);
		unsigned long v = READ_ONCE(s->key);

		if (v == KS_KEY_EMPTY)
			break;
		if (v != (unsigned long)key)
			continue;
		/* Fully ordered: the read of ts below comes after it. */
		if (!try_cmpxchg(&s->key, &v, KS_KEY_BUSY))
			continue;
		*ts = READ_ONCE(s->ts);
		*tag = READ_ONCE(s->tag);
		/* The slot may be reused only after ts is read. */
		smp_store_release(&s->key, KS_KEY_TOMB);
		return true;
	}
	return false;
}

NOKPROBE_SYMBOL(ks_starts_find);
NOKPROBE_SYMBOL(ks_starts_drop);
NOKPROBE_SYMBOL(ks_starts_put);
NOKPROBE_SYMBOL(ks_starts_take);
