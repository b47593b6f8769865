// SPDX-License-Identifier: GPL-2.0
/*
 * The record table of key waker-chain (recs.h): one record per task,
 * open addressing over a preallocated array where a task's record lives
 * in the KS_TABLE_WINDOW slots after its hash, as in the start table
 * (starts.c), whose slot states it shares: a slot's key moves EMPTY ->
 * BUSY -> task -> BUSY -> task or TOMB -> ..., never back to EMPTY, and
 * only the handler that turned it BUSY (by cmpxchg) writes or reads its
 * record, so no handler waits and none reads a record half written.
 *
 * A task's record is written at its switch-out (blocked) and its wakeup
 * (woken), read when it wakes another task and at its switch-in, and
 * dropped at its last switch-out (TASK_DEAD): a task_struct freed and
 * used again never finds a record of the task it was.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "recs.h"
#include "table.h"

#define KS_REC_EMPTY	0UL
#define KS_REC_TOMB	1UL
#define KS_REC_BUSY	2UL

struct ks_rec_slot {
	unsigned long key;
	u32 woken;
	u32 pad;
	struct ks_rec rec;
};

struct ks_recs {
	struct ks_window w;
	struct ks_rec_slot slot[];
};

static __always_inline struct ks_rec_slot *ks_rec_at(struct ks_recs *rt,
						     u32 home, u32 n)
{
	return &rt->slot[(home + n) & rt->w.mask];
}

/**
 * ks_recs_alloc() - allocate an empty record table
 * @tasks: tasks the table must hold records of at once, 1..4096
 *
 * The table has roundup_pow_of_two(2 * @tasks) slots of 72 bytes.
 *
 * Context: process context; may sleep.
 * Return: the table, or NULL when out of memory.
 */
struct ks_recs *ks_recs_alloc(unsigned int tasks)
{
	return ks_window_alloc(sizeof(struct ks_recs), sizeof(struct ks_rec_slot),
			       tasks);
}

/**
 * ks_recs_free() - free a record table
 * @rt: from ks_recs_alloc(), or NULL; no handler may use it any more
 */
void ks_recs_free(struct ks_recs *rt)
{
	kvfree(rt);
}

/**
 * ks_recs_bytes() - memory held by a record table
 * @rt: the table, or NULL
 *
 * Return: its size in bytes.
 */
size_t ks_recs_bytes(const struct ks_recs *rt)
{
	return rt ? ks_window_bytes(&rt->w, sizeof(*rt), sizeof(rt->slot[0])) : 0;
}

/*
 * @task's record, claimed (BUSY) so that no one else reads, writes or
 * drops it; NULL if it has none. A record another handler holds BUSY
 * is not @task's meanwhile, so this never waits for it.
 */
static struct ks_rec_slot *notrace ks_recs_claim(struct ks_recs *rt,
						 const void *task)
{
	u32 home = ks_window_home(&rt->w, task), n;
	unsigned long v;

again:
	for (n = 0; n < rt->w.window; n++) {
		struct ks_rec_slot *s = ks_rec_at(rt, home, n);

		v = READ_ONCE(s->key);
		if (v == KS_REC_EMPTY)
			return NULL;
		if (v != (unsigned long)task)
			continue;
		/* Fully ordered: the record is read and written after it. */
		if (!try_cmpxchg(&s->key, &v, KS_REC_BUSY))
			goto again;	/* taken meanwhile, by another CPU */
		return s;
	}
	return NULL;
}

/* Publishes @s's record as @task's, or frees the slot (TOMB). */
static __always_inline void ks_recs_release(struct ks_rec_slot *s,
					    unsigned long key)
{
	/* Whoever claims it next sees what was written while BUSY. */
	smp_store_release(&s->key, key);
}

/**
 * ks_recs_drop() - forget @task's record
 * @rt: the table
 * @task: the task
 *
 * Context: any, NMI included.
 */
void notrace ks_recs_drop(struct ks_recs *rt, const void *task)
{
	struct ks_rec_slot *s;

	/* A duplicate left by racing writers goes too. */
	while ((s = ks_recs_claim(rt, task)))
		ks_recs_release(s, KS_REC_TOMB);
}

/**
 * ks_recs_block() - @task goes to sleep: its record becomes "blocked"
 * @rt: the table
 * @task: the task, switched out into a blocked wait
 * @out: its switch-out, in ns
 *
 * Context: its switch-out (sched_switch), NMI-safe.
 * Return: false if every slot of @task's window was in use: @task has
 * no record (its wakeup will not be a level of any chain); the caller
 * counts it.
 */
bool notrace ks_recs_block(struct ks_recs *rt, const void *task, u64 out)
{
	u32 home = ks_window_home(&rt->w, task), n;

	ks_recs_drop(rt, task);
	for (n = 0; n < rt->w.window; n++) {
		struct ks_rec_slot *s = ks_rec_at(rt, home, n);
		unsigned long v = READ_ONCE(s->key);

		if (v != KS_REC_EMPTY && v != KS_REC_TOMB)
			continue;
		if (!try_cmpxchg(&s->key, &v, KS_REC_BUSY))
			continue;
		s->woken = 0;
		s->rec.ts = out;
		ks_recs_release(s, (unsigned long)task);
		return true;
	}
	return false;
}

/**
 * ks_recs_wake() - @task is woken: a "blocked" record becomes "woken"
 * @rt: the table
 * @task: the task being woken
 * @now: the wakeup, in ns
 * @level: the chain that wakes it, KS_CHAIN_MAX ids or markers
 * @ns: each level's own blocked time
 *
 * Context: its wakeup (sched_waking), NMI-safe.
 * Return: whether @task had a "blocked" record, now "woken".
 */
bool notrace ks_recs_wake(struct ks_recs *rt, const void *task, u64 now,
			  const u32 *level, const u64 *ns)
{
	struct ks_rec_slot *s = ks_recs_claim(rt, task);

	if (!s)
		return false;
	if (s->woken) {
		ks_recs_release(s, (unsigned long)task);
		return false;
	}
	s->rec.ts = now >= s->rec.ts ? now - s->rec.ts : 0;
	memcpy(s->rec.level, level, sizeof(s->rec.level));
	memcpy(s->rec.ns, ns, sizeof(s->rec.ns));
	s->woken = 1;
	ks_recs_release(s, (unsigned long)task);
	return true;
}

/**
 * ks_recs_find() - @task's record
 * @rt: the table
 * @task: the task
 * @rec: set to a "woken" record; for a "blocked" one, @rec->ts only
 * @drop_blocked: a "blocked" record is dropped (the task's switch-in:
 *                a wait whose wakeup was not seen wakes no chain)
 *
 * Context: any, NMI included.
 * Return: which record @task has.
 */
enum ks_rec_state notrace ks_recs_find(struct ks_recs *rt, const void *task,
				       struct ks_rec *rec, bool drop_blocked)
{
	struct ks_rec_slot *s = ks_recs_claim(rt, task);

	if (!s)
		return KS_REC_NONE;
	if (!s->woken) {
		rec->ts = s->rec.ts;
		/* A switch-in frees it; else it is published again. */
		ks_recs_release(s, drop_blocked ? KS_REC_TOMB : (unsigned long)task);
		return KS_REC_BLOCKED;
	}
	*rec = s->rec;
	ks_recs_release(s, (unsigned long)task);
	return KS_REC_WOKEN;
}

NOKPROBE_SYMBOL(ks_recs_claim);
NOKPROBE_SYMBOL(ks_recs_drop);
NOKPROBE_SYMBOL(ks_recs_block);
NOKPROBE_SYMBOL(ks_recs_wake);
NOKPROBE_SYMBOL(ks_recs_find);
