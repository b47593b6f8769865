// SPDX-License-Identifier: GPL-2.0
/*
 * The start table: open addressing over a preallocated array, where a
 * key may only live in the KS_TABLE_WINDOW slots that follow its hash.
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
	u64 raw;	/* the caller's tag, carried from put to take */
	u32 stack;
	u16 depth;	/* of a nested start: see ks_deeper() */
	u16 marks;	/* starts not recorded since this one: ks_starts_mark() */
};

struct ks_starts {
	struct ks_window w;
	struct ks_start slot[];
};

/*
 * Whether depth @a is inside depth @b. A key's open starts have
 * consecutive depths (a push takes the deepest plus one, a take removes
 * the deepest, expiry the oldest, the outermost), so they compare across
 * a wrap of the counter.
 */
static __always_inline bool ks_deeper(u16 a, u16 b)
{
	return (s16)(a - b) > 0;
}

static __always_inline u32 ks_home(const struct ks_starts *st, const void *key)
{
	return ks_window_home(&st->w, key);
}

static __always_inline struct ks_start *ks_at(struct ks_starts *st, u32 home,
					      u32 n)
{
	return &st->slot[(home + n) & st->w.mask];
}

/**
 * ks_starts_alloc() - allocate an empty start table
 * @maxactive: sections the trace expects in flight at once, 1..4096
 *
 * The table has roundup_pow_of_two(2 * @maxactive) slots of 32 bytes
 * (28 on 32-bit kernels).
 *
 * Context: process context; may sleep.
 * Return: the table, or NULL when out of memory.
 */
struct ks_starts *ks_starts_alloc(unsigned int maxactive)
{
	/* vmalloc past a page: no high-order page, no power-of-two rounding. */
	return ks_window_alloc(sizeof(struct ks_starts), sizeof(struct ks_start),
			       maxactive);
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
	return st ? ks_window_bytes(&st->w, sizeof(*st), sizeof(st->slot[0])) : 0;
}

/**
 * ks_starts_drop() - forget every start of @key
 * @st: the table
 * @key: the task
 *
 * Context: any, NMI included.
 * Return: how many starts were forgotten.
 */
unsigned int notrace ks_starts_drop(struct ks_starts *st, const void *key)
{
	u32 home = ks_home(st, key), n;
	unsigned int dropped = 0;
	struct ks_tag tag;
	u64 ts;

	for (n = 0; n < st->w.window; n++) {
		struct ks_start *s = ks_at(st, home, n);
		unsigned long v = READ_ONCE(s->key);

		if (v == KS_KEY_EMPTY)
			break;
		/* A duplicate left by racing puts goes too. */
		if (v == (unsigned long)key)
			dropped += ks_starts_take(st, key, &ts, &tag);
	}
	return dropped;
}

/**
 * ks_starts_expire() - free the slots of @key's window whose start is old
 * @st: the table
 * @key: a key about to be put, whose window is full
 * @before: starts before this time (ns) are dropped, whoever's they are
 *
 * For sections matched on an object (matched.c), whose end may never
 * come: a start left behind must not hold its slot for good.
 *
 * Context: any, NMI included.
 * Return: how many starts were dropped.
 */
unsigned int notrace ks_starts_expire(struct ks_starts *st, const void *key,
				      u64 before)
{
	u32 home = ks_home(st, key), n;
	unsigned int dropped = 0;

	for (n = 0; n < st->w.window; n++) {
		struct ks_start *s = ks_at(st, home, n);
		/* Acquire: ts was written before the key was published. */
		unsigned long v = smp_load_acquire(&s->key);

		if (v == KS_KEY_EMPTY)
			break;
		if (v == KS_KEY_TOMB || v == KS_KEY_BUSY ||
		    READ_ONCE(s->ts) >= before ||
		    !try_cmpxchg(&s->key, &v, KS_KEY_BUSY))
			continue;
		/* Taken and put again meanwhile: a new start stays. */
		if (READ_ONCE(s->ts) >= before) {
			/* Republished as put does: its ts is unchanged. */
			smp_store_release(&s->key, v);
			continue;
		}
		/* As take does: the slot may be reused once ts was read. */
		smp_store_release(&s->key, KS_KEY_TOMB);
		dropped++;
	}
	return dropped;
}

/*
 * How many starts @key has in its window. The whole window up to EMPTY:
 * a tombstone before a start of @key does not end the search.
 */
static u32 notrace ks_starts_count(struct ks_starts *st, u32 home,
				   const void *key)
{
	u32 n, count = 0;

	for (n = 0; n < st->w.window; n++) {
		struct ks_start *s = ks_at(st, home, n);
		unsigned long v = READ_ONCE(s->key);

		if (v == KS_KEY_EMPTY)
			break;
		if (v == (unsigned long)key)
			count++;
	}
	return count;
}

/* Claims @s, if it is free, for a start of @key at @depth. */
static __always_inline bool ks_starts_claim_slot(struct ks_start *s,
						 const void *key, u64 ts,
						 const struct ks_tag *tag,
						 u16 depth)
{
	unsigned long v = READ_ONCE(s->key);

	if (v != KS_KEY_EMPTY && v != KS_KEY_TOMB)
		return false;
	if (!try_cmpxchg(&s->key, &v, KS_KEY_BUSY))
		return false;
	WRITE_ONCE(s->ts, ts);
	WRITE_ONCE(s->raw, tag->raw);
	WRITE_ONCE(s->stack, tag->stack);
	WRITE_ONCE(s->depth, depth);
	WRITE_ONCE(s->marks, 0);
	/* Pairs with the cmpxchg in ks_starts_take(): ts first. */
	smp_store_release(&s->key, (unsigned long)key);
	return true;
}

/* Claims a free slot of @key's window for a start at @depth. */
static bool notrace ks_starts_claim(struct ks_starts *st, u32 home,
				    const void *key, u64 ts,
				    const struct ks_tag *tag, u16 depth)
{
	u32 n;

	for (n = 0; n < st->w.window; n++)
		if (ks_starts_claim_slot(ks_at(st, home, n), key, ts, tag, depth))
			return true;
	return false;
}

/**
 * ks_starts_put() - record that @key's section started at @ts
 * @st: the table
 * @key: the task
 * @ts: the start, in ns
 * @tag: kept with it, for ks_starts_take()
 * @replace: a start already recorded for @key is replaced; if false,
 *           the earlier start is kept and @ts is ignored
 *
 * For run-queue waits, which do not nest: a key has one start at most.
 *
 * Context: any, NMI included. Lock-free; looks at most at twice
 * KS_TABLE_WINDOW slots.
 * Return: false if every slot of @key's window was in use: the start is
 * not recorded and the caller counts a miss.
 */
bool notrace ks_starts_put(struct ks_starts *st, const void *key, u64 ts,
			   const struct ks_tag *tag, bool replace)
{
	u32 home = ks_home(st, key);

	if (replace)
		ks_starts_drop(st, key);
	else if (ks_starts_count(st, home, key))
		return true;
	return ks_starts_claim(st, home, key, ts, tag, 0);
}

/**
 * ks_starts_push() - record a start of @key inside those still open
 * @st: the table
 * @key: the task and its context level
 * @ts: the start, in ns
 * @tag: kept with it, for ks_starts_take()
 *
 * Sections of one key nest as calls do: ks_starts_take() and
 * ks_starts_pop() return the innermost, so an end closes the last start
 * before it.
 *
 * Context: any, NMI included. Lock-free; looks at most at twice
 * KS_TABLE_WINDOW slots. A key is pushed and taken from one context at
 * a time (its task, at its level).
 * Return: 0; -E2BIG when @key already has KS_STARTS_DEPTH open starts;
 * -ENOSPC when every slot of @key's window is in use. Either way the
 * start is not recorded: the caller counts a miss, and for a section
 * marks it (ks_starts_mark()).
 */
int notrace ks_starts_push(struct ks_starts *st, const void *key, u64 ts,
			   const struct ks_tag *tag)
{
	u32 home = ks_home(st, key), open = 0, n;
	struct ks_start *free = NULL;
	u16 depth = 0;

	/*
	 * One pass for what ks_starts_count() and ks_starts_claim() would
	 * find: @key's open starts and the deepest, up to EMPTY, and the
	 * first EMPTY or TOMB, which is at or before that EMPTY.
	 */
	for (n = 0; n < st->w.window; n++) {
		struct ks_start *s = ks_at(st, home, n);
		/* Acquire: the depth was written before the key was published. */
		unsigned long v = smp_load_acquire(&s->key);

		if (v == KS_KEY_EMPTY || v == KS_KEY_TOMB) {
			if (!free)
				free = s;
			if (v == KS_KEY_EMPTY)
				break;
		} else if (v == (unsigned long)key) {
			u16 d = READ_ONCE(s->depth) + 1;

			if (!open++ || ks_deeper(d, depth))
				depth = d;
		}
	}
	if (open >= KS_STARTS_DEPTH)
		return -E2BIG;
	if (free && ks_starts_claim_slot(free, key, ts, tag, depth))
		return 0;
	/* None, or taken meanwhile (an interrupt, another CPU): look again. */
	return ks_starts_claim(st, home, key, ts, tag, depth) ? 0 : -ENOSPC;
}

/*
 * @key's innermost start in its window, claimed (BUSY) so that no one
 * else takes or expires it; NULL if @key has none.
 */
static struct ks_start *notrace ks_starts_claim_inner(struct ks_starts *st,
						      const void *key)
{
	u32 home = ks_home(st, key), n;
	struct ks_start *inner;
	unsigned long v;

again:
	inner = NULL;
	for (n = 0; n < st->w.window; n++) {
		struct ks_start *s = ks_at(st, home, n);

		/* Acquire: the depth was written before the key was published. */
		v = smp_load_acquire(&s->key);
		if (v == KS_KEY_EMPTY)
			break;
		if (v == (unsigned long)key &&
		    (!inner || ks_deeper(READ_ONCE(s->depth),
					 READ_ONCE(inner->depth))))
			inner = s;
	}
	if (!inner)
		return NULL;
	v = (unsigned long)key;
	/* Fully ordered: the reads of its fields come after it. */
	if (!try_cmpxchg(&inner->key, &v, KS_KEY_BUSY))
		goto again;	/* taken meanwhile, by another CPU */
	return inner;
}

/**
 * ks_starts_take() - remove @key's innermost start and return it
 * @st: the table
 * @key: the task
 * @ts: set to the start, in ns, on success
 * @tag: set to the start's tag, on success
 *
 * Context: any, NMI included. Lock-free; looks at most at
 * KS_TABLE_WINDOW slots (more only while another CPU takes the same
 * key, which only run-queue waits do).
 * Return: true if a start was found and removed.
 */
bool notrace ks_starts_take(struct ks_starts *st, const void *key, u64 *ts,
			    struct ks_tag *tag)
{
	struct ks_start *inner = ks_starts_claim_inner(st, key);

	if (!inner)
		return false;
	*ts = READ_ONCE(inner->ts);
	tag->raw = READ_ONCE(inner->raw);
	tag->stack = READ_ONCE(inner->stack);
	/* The slot may be reused only after ts is read. */
	smp_store_release(&inner->key, KS_KEY_TOMB);
	return true;
}

/**
 * ks_starts_mark() - a start of @key that is not recorded
 * @st: the table
 * @key: the task and its context level
 *
 * A section's start that was refused (ks_starts_push()) or left out by
 * a filter is counted on @key's innermost open start, so that its end
 * closes it (ks_starts_pop()) instead of that open one. When @key has
 * no open start there is nothing its end could close wrongly.
 *
 * Context: as ks_starts_push().
 * Return: whether a start of @key carries the mark.
 */
bool notrace ks_starts_mark(struct ks_starts *st, const void *key)
{
	struct ks_start *inner = ks_starts_claim_inner(st, key);
	u16 marks;

	if (!inner)
		return false;
	/* Saturated: the innermost ends early rather than another start. */
	marks = READ_ONCE(inner->marks);
	if (marks < U16_MAX)
		WRITE_ONCE(inner->marks, marks + 1);
	/* Republished as put does: ts and depth unchanged. */
	smp_store_release(&inner->key, (unsigned long)key);
	return true;
}

/**
 * ks_starts_pop() - the end of @key's innermost section, recorded or not
 * @st: the table
 * @key: the task and its context level
 * @ts: set to the start, in ns, for KS_POP_START
 * @tag: set to the start's tag, for KS_POP_START
 *
 * Context: as ks_starts_push().
 * Return: KS_POP_START: the innermost start, removed; KS_POP_MARK: a
 * start that ks_starts_mark() marked, the innermost, closed; KS_POP_NONE:
 * @key has no open start.
 */
enum ks_pop notrace ks_starts_pop(struct ks_starts *st, const void *key,
				  u64 *ts, struct ks_tag *tag)
{
	struct ks_start *inner = ks_starts_claim_inner(st, key);
	u16 marks;

	if (!inner)
		return KS_POP_NONE;
	marks = READ_ONCE(inner->marks);
	if (marks) {
		WRITE_ONCE(inner->marks, marks - 1);
		/* Republished as ks_starts_mark() does. */
		smp_store_release(&inner->key, (unsigned long)key);
		return KS_POP_MARK;
	}
	*ts = READ_ONCE(inner->ts);
	tag->raw = READ_ONCE(inner->raw);
	tag->stack = READ_ONCE(inner->stack);
	/* The slot may be reused only after ts is read. */
	smp_store_release(&inner->key, KS_KEY_TOMB);
	return KS_POP_START;
}

/**
 * ks_starts_holds() - whether @key has a start in the table
 * @st: the table
 * @key: the task
 *
 * Context: any, NMI included.
 */
bool notrace ks_starts_holds(struct ks_starts *st, const void *key)
{
	return ks_starts_count(st, ks_home(st, key), key);
}

NOKPROBE_SYMBOL(ks_starts_holds);
NOKPROBE_SYMBOL(ks_starts_count);
NOKPROBE_SYMBOL(ks_starts_claim);
NOKPROBE_SYMBOL(ks_starts_push);
NOKPROBE_SYMBOL(ks_starts_drop);
NOKPROBE_SYMBOL(ks_starts_expire);
NOKPROBE_SYMBOL(ks_starts_put);
NOKPROBE_SYMBOL(ks_starts_take);
NOKPROBE_SYMBOL(ks_starts_claim_inner);
NOKPROBE_SYMBOL(ks_starts_mark);
NOKPROBE_SYMBOL(ks_starts_pop);
