/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of the keyed rows' tables, for keys.c, which fills them
 * from probe handlers, and keys_node.c, which shows them in KEY-NAME.
 * Only those two include it.
 */
#ifndef _KSTATS_KEYS_TABLE_H
#define _KSTATS_KEYS_TABLE_H

#include <linux/atomic.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "keys.h"

struct ks_set {
	u32 mask;		/* index slots - 1 */
	u32 cap;		/* entries */
	u32 key_size;
	/* The bytes of a key that can differ: hashed, compared on a match. */
	u16 cmp_off, cmp_len;
	atomic_t used;		/* entries claimed; may pass cap by a few */
	u32 *tag;		/* per index slot */
	u32 *entry;		/* per index slot: its entry */
	u8 *keys;		/* cap entries of key_size bytes */
	u8 *ready;		/* per entry: its key is written */
};

/*
 * A stack as a set key: zero-padded, so equal stacks are equal bytes.
 * Kernel frames first, then the user frames of the same sample (key
 * ustack rides in kstack's entry, waker-ustack in waker-kstack's).
 */
struct ks_stack {
	u8 nr;			/* kernel frames */
	u8 user_nr;		/* user frames, after them */
	u8 user_none;		/* enum ks_ustack_none, if user frames were wanted */
	u8 pad;
	pid_t tgid;		/* whose address space the user frames are in */
	/* That process's start (start_boottime): a pid used again is not it. */
	u64 start;
	unsigned long frame[];
};

/*
 * A row's key. The parts a trace does not key by stay 0, so only the
 * words from its first part to its last are hashed and compared
 * (rows.cmp_off, cmp_len): 2 of 7 for comm.
 */
struct ks_row_key {
	u32 stack[2];		/* kstack, end-kstack: stack ids */
	u32 waker;		/* waker-*: a waker id */
	pid_t pid;
	pid_t tgid;
	u32 cpu;
	char comm[TASK_COMM_LEN];
	u64 value;		/* ret or argN; with :log2, ks_log2_row() */
	u64 cgroup;		/* cgroup_id() of the task's cgroup v2 */
};

/* Sets compare and hash whole words (keys.c ks_set_equal()). */
static_assert(sizeof(struct ks_row_key) % sizeof(u64) == 0);

/* A log2 row of a signed value below 0: [type's minimum, 0). */
#define KS_LOG2_NEGATIVE	65

/*
 * Who woke a blocked task: the waker-* parts of the key, interned at the
 * wakeup so that the wait carries one id to its end.
 */
struct ks_waker {
	u32 stack;		/* waker-kstack: a stack id */
	pid_t pid;		/* waker-pid */
	char comm[TASK_COMM_LEN];	/* waker-comm */
	u64 cgroup;		/* waker-cgroup: a cgroup id */
};

static_assert(sizeof(struct ks_waker) % sizeof(long) == 0);

/*
 * A wakeup chain, key waker-chain: its levels, each a waker id (struct
 * ks_waker: stack, pid, comm; comm "[interrupt]" and pid 0 for an
 * interrupt) or a KS_CHAIN_* marker; 0 past its end; and which levels'
 * own blocked time is not known (the top level's task may have had no
 * record: keyed apart, so that a row's mean holds known times alone). A
 * row's waker is its id.
 */
struct ks_chain {
	u32 level[KS_CHAIN_MAX];
	u32 unknown;		/* bit i: level i + 1's blocked time unknown */
	u32 reserved;
};

static_assert(sizeof(struct ks_chain) % sizeof(u64) == 0);
static_assert(sizeof(struct ks_stack) % sizeof(long) == 0);

/* count, sum, min, max and one bucket per power of two, in ns. */
struct ks_stats {
	atomic64_t count;
	atomic64_t sum;
	atomic64_t min;
	atomic64_t max;
	atomic64_t pow2[65];	/* [fls64(v)]: v in [2^(b-1), 2^b) */
};

struct ks_slow {
	u64 value;
	u64 time;		/* CLOCK_MONOTONIC ns at the sample's end */
	pid_t pid;
	u32 cpu;
	u32 stack[2];
	u32 waker;
	char comm[TASK_COMM_LEN];
};

/* Begins as struct ks_keys_head (keys.h), which handlers read inline. */
struct ks_keys {
	struct ks_key_spec spec;
	u64 slow_floor;			/* the least value that enters the slowest */
	struct ks_set rows;		/* of struct ks_row_key */
	u32 __percpu *last_row;		/* the row this CPU found last, + 1 */
	u8 one_part;			/* the only part, if comm..cgroup; else KS_KEY_NR_PARTS */
	struct ks_stats *stats;		/* per row */
	struct ks_stats other;		/* samples whose key did not fit */
	struct ks_set stacks;		/* of struct ks_stack */
	struct ks_set wakers;		/* of struct ks_waker, for waker-* */
	struct ks_set chains;		/* of struct ks_chain, for waker-chain */
	/* Per row, spec.chain sums of each level's blocked time, in ns. */
	atomic64_t *chain_ns;
	struct ks_cgroup_names *cgroup_names;	/* for KEY-NAME, with a cgroup part */
	unsigned long __percpu *scratch;	/* KS_CONTEXT_SLOTS stacks per CPU */
	atomic_t slow_lock;		/* a trylock: handlers never wait */
	atomic_long_t slow_skipped;	/* candidates met a busy slow_lock */
	u32 slow_n;
	struct ks_slow slow[];
};

static_assert(offsetof(struct ks_keys, spec) ==
	      offsetof(struct ks_keys_head, spec));
static_assert(offsetof(struct ks_keys, slow_floor) ==
	      offsetof(struct ks_keys_head, slow_floor));

static inline u32 ks_set_size(const struct ks_set *s)
{
	return min_t(u32, atomic_read(&s->used), s->cap);
}

static inline void *ks_set_key(const struct ks_set *s, u32 e)
{
	return s->keys + (size_t)e * s->key_size;
}

/* Whether entry @e's key has been written. */
static inline bool ks_set_ready(const struct ks_set *s, u32 e)
{
	/* Pairs with the release in ks_set_intern(). */
	return smp_load_acquire(&s->ready[e]);
}

#endif /* _KSTATS_KEYS_TABLE_H */
