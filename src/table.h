/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zeroed tables that handlers use without allocating (start tables,
 * waker-chain's records, keyed rows), and the bytes they hold, for the
 * _control listing.
 */
#ifndef _KSTATS_TABLE_H
#define _KSTATS_TABLE_H

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

/*
 * A zeroed table of @bytes: past a page from vmalloc, since kmalloc would
 * round a large one up to the next power of two. Free it with kvfree().
 */
static inline void *ks_table_alloc(size_t bytes)
{
	return bytes > PAGE_SIZE ? vzalloc(bytes) : kzalloc(bytes, GFP_KERNEL);
}

/* What the allocator holds for a table of @bytes from ks_table_alloc(). */
static inline size_t ks_table_bytes(size_t bytes)
{
	return bytes > PAGE_SIZE ? PAGE_ALIGN(bytes) : kmalloc_size_roundup(bytes);
}

/* A windowed table's key lives in the first this many slots from its hash. */
#define KS_TABLE_WINDOW	16

/*
 * The head of a windowed table: open addressing over 2 x n slots (a
 * power of two), where a key only lives in the KS_TABLE_WINDOW slots
 * that follow its hash, so that every lookup is bounded. The start
 * table (starts.c) and waker-chain's records (recs.c) are such tables:
 * a struct whose first member is this head, then its slots.
 */
struct ks_window {
	u32 mask;	/* slots - 1; slots is a power of two */
	u32 window;	/* min(KS_TABLE_WINDOW, slots) */
};

/*
 * A zeroed windowed table of @head bytes (a struct ks_window first) and
 * roundup_pow_of_two(2 * @n) slots of @slot bytes; NULL when out of memory.
 */
static inline void *ks_window_alloc(size_t head, size_t slot, unsigned int n)
{
	u32 slots = roundup_pow_of_two(2 * max(n, 1U));
	struct ks_window *w = ks_table_alloc(size_add(head, array_size(slots, slot)));

	if (w) {
		w->mask = slots - 1;
		w->window = min_t(u32, KS_TABLE_WINDOW, slots);
	}
	return w;
}

/* What a windowed table from ks_window_alloc() holds, in bytes. */
static inline size_t ks_window_bytes(const struct ks_window *w, size_t head,
				     size_t slot)
{
	return ks_table_bytes(size_add(head, array_size(w->mask + 1, slot)));
}

/* The slot where @key's window begins. */
static __always_inline u32 ks_window_home(const struct ks_window *w,
					  const void *key)
{
	return hash_ptr(key, 32) & w->mask;
}

#endif /* _KSTATS_TABLE_H */
