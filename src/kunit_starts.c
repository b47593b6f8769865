// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the start table (starts.c): its semantics, its capacity
 * after many keys have passed through, and one key hammered from a task
 * and from a hard interrupt that nests inside the task's operations.
 * Built with KSTATS_KUNIT=y, like kunit.c.
 */
#include <kunit/test.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "starts.h"

/* Keys are only hashed and compared: any distinct non-small values do. */
static const void *ks_key(unsigned long i)
{
	return (const void *)(0x10000UL + i * 64);
}

/* A tag of stack id @n whose raw value is derived from it. */
static const struct ks_tag *ks_tag_fill(struct ks_tag *tag, u32 n)
{
	tag->stack = n;
	tag->raw = ~0ULL - n;
	return tag;
}

#define KS_TAG(n) ks_tag_fill(&(struct ks_tag){}, n)

static void ks_test_starts_semantics(struct kunit *test)
{
	struct ks_starts *st = ks_starts_alloc(4);
	u64 ts = 0;
	struct ks_tag tag = {};

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_FALSE(test, ks_starts_take(st, ks_key(1), &ts, &tag));
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(1), 100, KS_TAG(7), true));
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(2), 200, KS_TAG(7), true));
	/* Without replace the earlier start stays; with it the later wins. */
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(1), 150, KS_TAG(7), false));
	KUNIT_EXPECT_TRUE(test, ks_starts_take(st, ks_key(1), &ts, &tag));
	KUNIT_EXPECT_EQ(test, ts, 100);
	KUNIT_EXPECT_FALSE(test, ks_starts_take(st, ks_key(1), &ts, &tag));
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(2), 250, KS_TAG(9), true));
	KUNIT_EXPECT_TRUE(test, ks_starts_take(st, ks_key(2), &ts, &tag));
	KUNIT_EXPECT_EQ(test, ts, 250);
	/* The tag comes back with its start. */
	KUNIT_EXPECT_EQ(test, tag.stack, 9);
	KUNIT_EXPECT_EQ(test, tag.raw, ~0ULL - 9);
	KUNIT_EXPECT_FALSE(test, ks_starts_take(st, ks_key(2), &ts, &tag));
	/* drop forgets a start. */
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(3), 300, KS_TAG(7), false));
	ks_starts_drop(st, ks_key(3));
	KUNIT_EXPECT_FALSE(test, ks_starts_take(st, ks_key(3), &ts, &tag));
	/* maxactive 4: 8 slots, so 8 starts in flight fit and a ninth does not. */
	for (ts = 10; ts < 18; ts++)
		KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(ts), ts, KS_TAG(7), true));
	KUNIT_EXPECT_FALSE(test, ks_starts_put(st, ks_key(18), 18, KS_TAG(7), true));
	KUNIT_EXPECT_TRUE(test, ks_starts_take(st, ks_key(12), &ts, &tag));
	KUNIT_EXPECT_EQ(test, ts, 12);
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(18), 18, KS_TAG(7), true));
	/* 8 slots of 32 bytes (key, ts, tag, depth) and the header, as kmalloc holds them. */
	KUNIT_EXPECT_EQ(test, ks_starts_bytes(st), kmalloc_size_roundup(8 * 32 + 8));
	ks_starts_free(st);
}

/* Pushed starts of one key come back innermost first, up to the depth. */
static void ks_test_starts_nest(struct kunit *test)
{
	struct ks_starts *st = ks_starts_alloc(16);
	u64 ts = 0, i;
	struct ks_tag tag = {};

	KUNIT_ASSERT_NOT_NULL(test, st);
	for (i = 0; i < KS_STARTS_DEPTH; i++)
		KUNIT_EXPECT_EQ(test, ks_starts_push(st, ks_key(1), 100 + i, KS_TAG(i)), 0);
	KUNIT_EXPECT_EQ(test, ks_starts_push(st, ks_key(1), 999, KS_TAG(0)), -E2BIG);
	/* Another key is not affected by the first one's depth. */
	KUNIT_EXPECT_EQ(test, ks_starts_push(st, ks_key(2), 50, KS_TAG(0)), 0);
	for (i = KS_STARTS_DEPTH; i-- > 0;) {
		KUNIT_EXPECT_TRUE(test, ks_starts_take(st, ks_key(1), &ts, &tag));
		KUNIT_EXPECT_EQ(test, ts, 100 + i);
		KUNIT_EXPECT_EQ(test, tag.stack, i);
	}
	KUNIT_EXPECT_FALSE(test, ks_starts_take(st, ks_key(1), &ts, &tag));
	KUNIT_EXPECT_TRUE(test, ks_starts_take(st, ks_key(2), &ts, &tag));
	KUNIT_EXPECT_EQ(test, ts, 50);
	ks_starts_free(st);
}

/*
 * Without replace, a put keeps the key's start even when a tombstone lies
 * before it in the window: two keys of one home, X put, A put, X taken,
 * then A put again must leave A's first start, and no second copy.
 */
static void ks_test_starts_keep_past_tomb(struct kunit *test)
{
	struct ks_starts *st = ks_starts_alloc(1);	/* 2 slots, window 2 */
	const void *x = NULL, *a = NULL;
	unsigned long i;
	u64 ts = 0;
	struct ks_tag tag = {};

	KUNIT_ASSERT_NOT_NULL(test, st);
	for (i = 0; i < 64 && !a; i++) {
		if (hash_ptr(ks_key(i), 32) & 1)
			continue;
		if (!x)
			x = ks_key(i);
		else
			a = ks_key(i);
	}
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, x, 500, KS_TAG(1), true));
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, a, 1000, KS_TAG(2), true));
	KUNIT_EXPECT_TRUE(test, ks_starts_take(st, x, &ts, &tag));
	KUNIT_EXPECT_TRUE(test, ks_starts_put(st, a, 5000, KS_TAG(3), false));
	KUNIT_EXPECT_TRUE(test, ks_starts_take(st, a, &ts, &tag));
	KUNIT_EXPECT_EQ(test, ts, 1000);
	KUNIT_EXPECT_EQ(test, tag.stack, 2);
	KUNIT_EXPECT_FALSE(test, ks_starts_take(st, a, &ts, &tag));
	ks_starts_free(st);
}

/*
 * After 10,000 keys have passed through (every slot deleted many times),
 * the table still holds maxactive keys at once, finds each of them with
 * its own timestamp and finds no absent key.
 */
static void ks_test_starts_churn(struct kunit *test)
{
	struct ks_starts *st = ks_starts_alloc(64);
	unsigned long i;
	u64 ts;
	struct ks_tag tag;

	KUNIT_ASSERT_NOT_NULL(test, st);
	for (i = 0; i < 10000; i++) {
		KUNIT_ASSERT_TRUE(test, ks_starts_put(st, ks_key(i), i, KS_TAG(7), true));
		KUNIT_ASSERT_TRUE(test, ks_starts_take(st, ks_key(i), &ts, &tag));
		KUNIT_ASSERT_EQ(test, ts, i);
	}
	for (i = 20000; i < 20064; i++)
		KUNIT_EXPECT_TRUE(test, ks_starts_put(st, ks_key(i), i, KS_TAG(7), false));
	for (i = 30000; i < 31000; i++)
		KUNIT_EXPECT_FALSE(test, ks_starts_take(st, ks_key(i), &ts, &tag));
	for (i = 20000; i < 20064; i++) {
		ts = 0;
		KUNIT_EXPECT_TRUE(test, ks_starts_take(st, ks_key(i), &ts, &tag));
		KUNIT_EXPECT_EQ(test, ts, i);
	}
	ks_starts_free(st);
}

/* One key, shared by the task below and the interrupt that nests in it. */
static struct {
	struct ks_starts *st;
	u64 begin;		/* before the first put */
	u64 worst;		/* largest end - start seen */
	bool bad_ts;		/* a start before begin: stale or torn */
	unsigned long irq_samples;
	bool stop;
} ks_hammer;

static void ks_hammer_once(void)
{
	const void *key = ks_key(7);
	u64 start, end;
	struct ks_tag tag;

	ks_starts_put(ks_hammer.st, key, ktime_get_mono_fast_ns(), KS_TAG(7), true);
	if (!ks_starts_take(ks_hammer.st, key, &start, &tag))
		return;
	end = ktime_get_mono_fast_ns();
	if (start < ks_hammer.begin || start > end)
		WRITE_ONCE(ks_hammer.bad_ts, true);
	else if (end - start > READ_ONCE(ks_hammer.worst))
		WRITE_ONCE(ks_hammer.worst, end - start);
}

static u64 ks_hammer_elapsed(void)
{
	return ktime_get_mono_fast_ns() - ks_hammer.begin;
}

static enum hrtimer_restart ks_hammer_irq(struct hrtimer *timer)
{
	ks_hammer_once();
	ks_hammer.irq_samples++;
	if (READ_ONCE(ks_hammer.stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(20000));
	return HRTIMER_RESTART;
}

static void ks_test_starts_hammer(struct kunit *test)
{
	struct hrtimer timer;
	u64 wall;

	memset(&ks_hammer, 0, sizeof(ks_hammer));
	ks_hammer.st = ks_starts_alloc(1);
	KUNIT_ASSERT_NOT_NULL(test, ks_hammer.st);
	ks_hammer.begin = ktime_get_mono_fast_ns();
	hrtimer_setup(&timer, ks_hammer_irq, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&timer, ns_to_ktime(20000), HRTIMER_MODE_REL_PINNED_HARD);
	/*
	 * Pinned: the timer interrupts this task on its own CPU. 300 ms,
	 * and on a loaded host until the timer has fired at all (up to 5 s).
	 */
	preempt_disable();
	while (ks_hammer_elapsed() < 300 * NSEC_PER_MSEC ||
	       (!READ_ONCE(ks_hammer.irq_samples) &&
		ks_hammer_elapsed() < 5 * NSEC_PER_SEC))
		ks_hammer_once();
	preempt_enable();
	WRITE_ONCE(ks_hammer.stop, true);
	hrtimer_cancel(&timer);
	wall = ktime_get_mono_fast_ns() - ks_hammer.begin;

	KUNIT_EXPECT_FALSE(test, ks_hammer.bad_ts);
	KUNIT_EXPECT_LE(test, ks_hammer.worst, wall);
	KUNIT_EXPECT_GT(test, ks_hammer.irq_samples, 0);
	ks_starts_free(ks_hammer.st);
}

static struct kunit_case ks_starts_cases[] = {
	KUNIT_CASE(ks_test_starts_semantics),
	KUNIT_CASE(ks_test_starts_nest),
	KUNIT_CASE(ks_test_starts_keep_past_tomb),
	KUNIT_CASE(ks_test_starts_churn),
	KUNIT_CASE(ks_test_starts_hammer),
	{}
};

static struct kunit_suite ks_starts_suite = {
	.name = "kstats_starts",
	.test_cases = ks_starts_cases,
};

kunit_test_suites(&ks_starts_suite);
