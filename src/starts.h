/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The start table: timestamps of sections in flight, keyed on a task (and
 * for sections its context level), nested up to KS_STARTS_DEPTH.
 * Lock-free and preallocated, so probe handlers can use it anywhere,
 * NMI and spinlock internals included.
 */
#ifndef _KSTATS_STARTS_H
#define _KSTATS_STARTS_H

#include <linux/types.h>

/* Open starts one key may nest (sections of one task and context level). */
#define KS_STARTS_DEPTH		8

struct ks_starts;

/* What a start hands to its end, besides its time. */
struct ks_tag {
	u64 raw;	/* the register key argN reads, read at the start */
	u32 stack;	/* a stack id (key kstack), or a waker id */
};

/* What ks_starts_pop() found. */
enum ks_pop {
	KS_POP_NONE,	/* no open start */
	KS_POP_START,	/* a recorded start, returned */
	KS_POP_MARK,	/* a start that was not recorded (ks_starts_mark()) */
};

struct ks_starts *ks_starts_alloc(unsigned int maxactive);
void ks_starts_free(struct ks_starts *st);
size_t ks_starts_bytes(const struct ks_starts *st);
bool ks_starts_put(struct ks_starts *st, const void *key, u64 ts,
		   const struct ks_tag *tag, bool replace);
int ks_starts_push(struct ks_starts *st, const void *key, u64 ts,
		   const struct ks_tag *tag);
bool ks_starts_take(struct ks_starts *st, const void *key, u64 *ts,
		    struct ks_tag *tag);
bool ks_starts_mark(struct ks_starts *st, const void *key);
enum ks_pop ks_starts_pop(struct ks_starts *st, const void *key, u64 *ts,
			  struct ks_tag *tag);
unsigned int ks_starts_drop(struct ks_starts *st, const void *key);
unsigned int ks_starts_expire(struct ks_starts *st, const void *key,
			      u64 before);
bool ks_starts_holds(struct ks_starts *st, const void *key);

#endif /* _KSTATS_STARTS_H */
