/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record table of key waker-chain: per task, who woke it at its
 * last wakeup, and how long each of them had itself been blocked
 * (offcpu.c). Lock-free and preallocated, as the start table.
 */
#ifndef _KSTATS_RECS_H
#define _KSTATS_RECS_H

#include <linux/types.h>

#include "keys.h"

struct ks_recs;

/*
 * A task's record: from its switch-out into a blocked wait ("blocked",
 * @ts its switch-out) until its wakeup; then ("woken") until its next
 * blocking switch-out, @ts its blocked time and @level the chain that
 * woke it (ks_keys_chain_level() ids or KS_CHAIN_* markers), @ns each
 * level's own blocked time (KS_CHAIN_NS_UNKNOWN: that task's wait was
 * not seen).
 */
struct ks_rec {
	u64 ts;
	u64 ns[KS_CHAIN_MAX];
	u32 level[KS_CHAIN_MAX];
};

/* What ks_recs_find() found. */
enum ks_rec_state {
	KS_REC_NONE,		/* no record */
	KS_REC_BLOCKED,		/* switched out, not woken yet */
	KS_REC_WOKEN,		/* woken: a whole record, copied */
};

struct ks_recs *ks_recs_alloc(unsigned int tasks);
void ks_recs_free(struct ks_recs *rt);
size_t ks_recs_bytes(const struct ks_recs *rt);
bool ks_recs_block(struct ks_recs *rt, const void *task, u64 out);
bool ks_recs_wake(struct ks_recs *rt, const void *task, u64 now,
		  const u32 *level, const u64 *ns);
enum ks_rec_state ks_recs_find(struct ks_recs *rt, const void *task,
			       struct ks_rec *rec, bool drop_blocked);
void ks_recs_drop(struct ks_recs *rt, const void *task);

#endif /* _KSTATS_RECS_H */
