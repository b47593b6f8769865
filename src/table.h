/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zeroed tables that handlers use without allocating (start tables,
 * keyed rows), and the bytes they hold, for the _control listing.
 */
#ifndef _KSTATS_TABLE_H
#define _KSTATS_TABLE_H

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

#endif /* _KSTATS_TABLE_H */
