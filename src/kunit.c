// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of kstats, built into kstats.ko when KSTATS_KUNIT=y is
 * passed to make against a kernel with CONFIG_KUNIT. They run when the
 * module loads (after kunit.ko).
 */
#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "hist.h"
#include "hook.h"
#include "output.h"

/* ------------------------------------------------------------ slot math */

/* The reference: a slot holds v iff its base <= v < the next slot's base. */
static void ks_expect_slot_holds(struct kunit *test, u8 fb, u64 v)
{
	u32 n = ks_n_slots(fb);
	u32 s = ks_slot_of(v, fb, n);

	KUNIT_ASSERT_LT_MSG(test, s, n - 1, "fb %u v %llu", fb, v);
	KUNIT_EXPECT_LE_MSG(test, ks_slot_base(s, fb), v, "fb %u v %llu slot %u", fb, v, s);
	if (s + 1 < n - 1)
		KUNIT_EXPECT_GT_MSG(test, ks_slot_base(s + 1, fb), v,
				    "fb %u v %llu slot %u", fb, v, s);
	else
		KUNIT_EXPECT_EQ_MSG(test, s, n - 2, "fb %u v %llu", fb, v);
}

static void ks_test_slot_boundaries(struct kunit *test)
{
	u8 fb;
	int k;

	for (fb = 0; fb <= KSTATS_FRAC_BITS_MAX; fb++) {
		ks_expect_slot_holds(test, fb, 0);
		ks_expect_slot_holds(test, fb, 1);
		ks_expect_slot_holds(test, fb, 1ULL << 63);
		ks_expect_slot_holds(test, fb, U64_MAX);
		for (k = 1; k < 64; k++) {
			ks_expect_slot_holds(test, fb, (1ULL << k) - 1);
			ks_expect_slot_holds(test, fb, 1ULL << k);
			ks_expect_slot_holds(test, fb, (1ULL << k) + 1);
		}
		/* The highest reachable slot is n_slots - 2. */
		KUNIT_EXPECT_EQ(test, ks_slot_of(U64_MAX, fb, ks_n_slots(fb)),
				ks_n_slots(fb) - 2);
		/* Below 2^frac_bits, one slot per value. */
		for (k = 0; k < (1 << fb); k++)
			KUNIT_EXPECT_EQ(test, ks_slot_of(k, fb, ks_n_slots(fb)), k);
	}
	/* Anchors from the seed patch's documentation. */
	KUNIT_EXPECT_EQ(test, ks_n_slots(3), 497);
	KUNIT_EXPECT_EQ(test, ks_n_slots(5), 1921);
	KUNIT_EXPECT_EQ(test, ks_slot_of(U64_MAX, 3, 497), 495);
	KUNIT_EXPECT_EQ(test, ks_slot_of(480, 3, 497), 55);
	KUNIT_EXPECT_EQ(test, ks_slot_of(511, 3, 497), 55);
	KUNIT_EXPECT_EQ(test, ks_slot_base(55, 3), 480);
	KUNIT_EXPECT_EQ(test, sizeof(struct ks_slot), 16);
}

static void ks_test_slot_random(struct kunit *test)
{
	int i;

	for (i = 0; i < 20000; i++) {
		u64 v = get_random_u64() >> (get_random_u32() % 64);

		ks_expect_slot_holds(test, i % (KSTATS_FRAC_BITS_MAX + 1), v);
	}
}

/* --------------------------------------------------- sums and averages */

static struct kstats *ks_test_new(struct kunit *test, const char *name, u8 fb)
{
	struct kstats *ks = ks_create(name, fb, NULL, NULL);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ks));
	return ks;
}

/* Slot range of @slot: [base, base + width - 1]. */
static u64 ks_test_slot_max(u32 slot, u8 fb)
{
	u32 bucket = slot >> fb;

	return ks_slot_base(slot, fb) + (bucket ? (1ULL << (bucket - 1)) - 1 : 0);
}

static void ks_test_avg_in_range(struct kunit *test)
{
	static const u64 values[] = {
		0, 1, 7, 480, 511, 1000000, 123456789, (1ULL << 62) + 12345,
		1ULL << 63, U64_MAX - 1, U64_MAX,
	};
	struct kstats *ks = ks_test_new(test, "kunit_avg", 3);
	struct ks_snapshot *snap;
	unsigned int row;
	u32 slot;
	int i, j;

	/* Many samples at the top of each slot, to press on the sums. */
	for (i = 0; i < ARRAY_SIZE(values); i++)
		for (j = 0; j < 10000; j++)
			kstats_record(ks, values[i]);
	snap = ks_snapshot_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	row = snap->n_rows - 1;
	KUNIT_EXPECT_EQ(test, ks_row_total(snap, row), 10000 * ARRAY_SIZE(values));
	for (slot = 0; slot < snap->n_slots; slot++) {
		if (!ks_cell_count(snap, row, slot))
			continue;
		KUNIT_EXPECT_GE(test, ks_cell(snap, row, slot)->avg,
				ks_slot_base(slot, 3));
		KUNIT_EXPECT_LE(test, ks_cell(snap, row, slot)->avg,
				ks_test_slot_max(slot, 3));
	}
	/* Exact while a slot is at most 2^20 wide. */
	KUNIT_EXPECT_EQ(test, ks_cell(snap, row, ks_slot_of(1000000, 3, 497))->avg,
			1000000);
	KUNIT_EXPECT_EQ(test, ks_cell(snap, row, 55)->avg, (480 + 511) / 2);
	ks_snapshot_free(snap);
	kstats_delete(ks);
}

static void ks_test_avg_clamped(struct kunit *test)
{
	u8 fb;
	u32 slot;

	/* A racing copy can pair a sum with too small a count. */
	for (fb = 0; fb <= KSTATS_FRAC_BITS_MAX; fb++)
		for (slot = 0; slot < ks_n_slots(fb) - 1; slot++) {
			u64 avg = ks_slot_avg(slot, fb, 1, U64_MAX);

			KUNIT_EXPECT_GE(test, avg, ks_slot_base(slot, fb));
			KUNIT_EXPECT_LE(test, avg, ks_test_slot_max(slot, fb));
		}
}

/* --------------------------------------------------------------- output */

struct ks_test_out {
	struct seq_file m;
	char buf[8192];
};

static const char *ks_test_show(struct ks_test_out *o,
				const struct ks_snapshot *snap, u32 slot)
{
	memset(o, 0, sizeof(*o));
	o->m.buf = o->buf;
	o->m.size = sizeof(o->buf) - 1;
	ks_show_slot(&o->m, snap, slot);
	o->buf[o->m.count] = '\0';
	return o->buf;
}

/* A snapshot of one CPU plus totals, with the given counts per slot. */
static struct ks_snapshot *ks_test_snap(struct kunit *test, u8 fb,
					const u64 *count, u32 n)
{
	struct ks_snapshot *snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	unsigned int row;
	u32 slot;

	KUNIT_ASSERT_NOT_NULL(test, snap);
	snap->frac_bits = fb;
	snap->n_slots = ks_n_slots(fb);
	snap->n_rows = nr_cpu_ids + 1;
	snap->cells = kunit_kcalloc(test, (size_t)snap->n_rows * snap->n_slots,
				    sizeof(*snap->cells), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap->cells);
	for (row = 0; row < snap->n_rows; row += snap->n_rows - 1) {
		u64 cum = 0;

		for (slot = 0; slot < snap->n_slots; slot++) {
			cum += slot < n ? count[slot] : 0;
			ks_cell(snap, row, slot)->cum = cum;
			ks_cell(snap, row, slot)->avg = ks_slot_base(slot, fb);
		}
	}
	return snap;
}

static void ks_test_output_format(struct kunit *test)
{
	struct ks_test_out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	static u64 counts[56];
	struct ks_snapshot *snap;
	char want[128];

	KUNIT_ASSERT_NOT_NULL(test, o);
	/* One sample in 2^21: its p rounds down to 0.000000. */
	counts[0] = 1;
	counts[55] = (1ULL << 21) - 1;
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	snprintf(want, sizeof(want),
		 "slot 0   CPU  0    count        1 avg        0 p 0.000000\n"
		 "slot 0   CPUS %-4u count        1 avg        0 p 0.000000\n",
		 nr_cpu_ids);
	KUNIT_EXPECT_STREQ(test, ks_test_show(o, snap, 0), want);
	snprintf(want, sizeof(want),
		 "slot 55  CPU  0    count  2097151 avg      480 p 1.000000\n"
		 "slot 55  CPUS %-4u count  2097151 avg      480 p 1.000000\n",
		 nr_cpu_ids);
	KUNIT_EXPECT_STREQ(test, ks_test_show(o, snap, 55), want);
	/* An empty slot prints nothing. */
	KUNIT_EXPECT_STREQ(test, ks_test_show(o, snap, 54), "");
}

static void ks_test_output_huge_totals(struct kunit *test)
{
	struct ks_test_out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	static u64 counts[3];
	struct ks_snapshot *snap;
	char want[160];

	KUNIT_ASSERT_NOT_NULL(test, o);
	/* Totals far above 2^44, where cum * 10^6 overflows 64 bits. */
	counts[0] = 1ULL << 50;
	counts[1] = 3ULL << 50;
	snap = ks_test_snap(test, 1, counts, ARRAY_SIZE(counts));
	snprintf(want, sizeof(want),
		 "slot 0   CPU  0    count %8llu avg        0 p 0.250000\n"
		 "slot 0   CPUS %-4u count %8llu avg        0 p 0.250000\n",
		 1ULL << 50, nr_cpu_ids, 1ULL << 50);
	KUNIT_EXPECT_STREQ(test, ks_test_show(o, snap, 0), want);
}

static void ks_test_output_single_max(struct kunit *test)
{
	struct kstats *ks = ks_test_new(test, "kunit_max", 3);
	struct ks_test_out *o;
	struct ks_snapshot *snap;
	u32 slot, seen = 0;
	char want[96];

	/* Empty: no slot has samples. */
	snap = ks_snapshot_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, ks_row_total(snap, snap->n_rows - 1), 0);
	ks_snapshot_free(snap);

	kstats_record(ks, U64_MAX);
	snap = ks_snapshot_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	for (slot = 0; slot < snap->n_slots; slot++)
		if (ks_cell_count(snap, snap->n_rows - 1, slot))
			seen = slot;
	KUNIT_EXPECT_EQ(test, seen, 495);
	KUNIT_EXPECT_EQ(test, ks_row_total(snap, snap->n_rows - 1), 1);
	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	snprintf(want, sizeof(want), "slot 495 CPUS %-4u count        1 avg %llu p 1.000000\n",
		 nr_cpu_ids, ks_cell(snap, snap->n_rows - 1, 495)->avg);
	KUNIT_EXPECT_NOT_NULL(test, strstr(ks_test_show(o, snap, 495), want));
	KUNIT_EXPECT_GE(test, ks_cell(snap, snap->n_rows - 1, 495)->avg,
			ks_slot_base(495, 3));
	ks_snapshot_free(snap);
	kstats_delete(ks);
}

/* --------------------------------------------------------------- parser */

struct ks_parse_case {
	const char *line;
	int err;
	enum ks_method method;
	const char *start;
	const char *end;
	u8 bits;
	unsigned int maxactive;
};

static const struct ks_parse_case ks_parse_cases[] = {
	{ "trace foo", 0, KS_METHOD_DEFAULT, "foo", "", 3, 0 },
	{ "trace foo\n", 0, KS_METHOD_DEFAULT, "foo", "", 3, 0 },
	{ " \ttrace\t foo  bits 5\t\n", 0, KS_METHOD_DEFAULT, "foo", "", 5, 0 },
	{ "trace t start vfs_read", 0, KS_METHOD_DEFAULT, "vfs_read", "", 3, 0 },
	{ "trace t maxactive 4096 method kretprobe start f bits 0", 0,
	  KS_METHOD_KRETPROBE, "f", "", 0, 4096 },
	{ "trace t method fprobe", 0, KS_METHOD_FPROBE, "t", "", 3, 0 },
	{ "trace t start a end b", 0, KS_METHOD_KPROBE, "a", "b", 3, 0 },
	{ "trace t end b start a method kprobe maxactive 1", 0,
	  KS_METHOD_KPROBE, "a", "b", 3, 1 },
	{ "trace t start __tracepoint_a end __tracepoint_b", 0,
	  KS_METHOD_TRACEPOINT, "__tracepoint_a", "__tracepoint_b", 3, 0 },
	{ "trace t start __tracepoint_a end __tracepoint_b method tracepoint", 0,
	  KS_METHOD_TRACEPOINT, "__tracepoint_a", "__tracepoint_b", 3, 0 },
	{ "remove t", 0 },
	{ "remove t\n", 0 },
	{ "", -EINVAL },
	{ "trace", -EINVAL },
	{ "remove", -EINVAL },
	{ "frob t", -EINVAL },
	{ "remove t u", -EINVAL },
	{ "trace t bits", -EINVAL },
	{ "trace t bits 6", -EINVAL },
	{ "trace t bits -1", -EINVAL },
	{ "trace t bits x", -EINVAL },
	{ "trace t maxactive 0", -EINVAL },
	{ "trace t maxactive 4097", -EINVAL },
	{ "trace t method uprobe", -EINVAL },
	{ "trace t method default", -EINVAL },
	{ "trace t color red", -EINVAL },
	{ "trace t bits 1 bits 2", -EINVAL },
	{ "trace t bits 1 start a end b method kprobe maxactive 2 x y", -EINVAL },
	{ "trace t start a end a", -EINVAL },
	{ "trace t method kprobe", -EINVAL },
	{ "trace t start a end b method kretprobe", -EINVAL },
	{ "trace t start a end b method fprobe", -EINVAL },
	{ "trace t start __tracepoint_a", -EINVAL },
	{ "trace t start __tracepoint_a end b", -EINVAL },
	{ "trace t start a end __tracepoint_b", -EINVAL },
	{ "trace t start a end b method tracepoint", -EINVAL },
	/* No tracepoint name after the prefix: a (missing) function. */
	{ "trace t start __tracepoint_", 0, KS_METHOD_DEFAULT, "__tracepoint_", "", 3, 0 },
	{ "trace 123456789012345678901234567890123456789012345678901234567890",
	  -ENAMETOOLONG },
	{ "remove 123456789012345678901234567890123456789012345678901234567890",
	  -ENAMETOOLONG },
};

static void ks_test_parse(struct kunit *test)
{
	struct ks_trace_req *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	char *line = kunit_kzalloc(test, 2 * KSYM_NAME_LEN, GFP_KERNEL);
	const char *why;
	int i, err;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_NOT_NULL(test, line);
	for (i = 0; i < ARRAY_SIZE(ks_parse_cases); i++) {
		const struct ks_parse_case *c = &ks_parse_cases[i];

		strscpy(line, c->line, 2 * KSYM_NAME_LEN);
		why = NULL;
		err = ks_parse_control(line, req, &why);
		KUNIT_EXPECT_EQ_MSG(test, err, c->err, "line '%s'", c->line);
		if (err) {
			KUNIT_EXPECT_NOT_NULL_MSG(test, why, "line '%s'", c->line);
			continue;
		}
		if (!strncmp(c->line, "remove", 6)) {
			KUNIT_EXPECT_EQ(test, req->op, KS_OP_REMOVE);
			KUNIT_EXPECT_STREQ(test, req->name, "t");
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, req->op, KS_OP_TRACE, "line '%s'", c->line);
		KUNIT_EXPECT_EQ_MSG(test, req->method, c->method, "line '%s'", c->line);
		KUNIT_EXPECT_STREQ_MSG(test, req->start, c->start, "line '%s'", c->line);
		KUNIT_EXPECT_STREQ_MSG(test, req->end, c->end, "line '%s'", c->line);
		KUNIT_EXPECT_EQ_MSG(test, req->bits, c->bits, "line '%s'", c->line);
		KUNIT_EXPECT_EQ_MSG(test, req->maxactive, c->maxactive, "line '%s'", c->line);
	}
	/* The longest NAME that leaves room for "GAP-", and a symbol too long. */
	memset(line, 0, 2 * KSYM_NAME_LEN);
	strscpy(line, "trace ", 2 * KSYM_NAME_LEN);
	memset(line + 6, 'n', KS_TRACE_NAME_MAX);
	KUNIT_EXPECT_EQ(test, ks_parse_control(line, req, &why), 0);
	strscpy(line, "trace t start ", 2 * KSYM_NAME_LEN);
	memset(line + 14, 's', KSYM_NAME_LEN);
	KUNIT_EXPECT_EQ(test, ks_parse_control(line, req, &why), -ENAMETOOLONG);
}

static void ks_test_node_cmd(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ks_parse_node_cmd("start", 5), KS_CMD_START);
	KUNIT_EXPECT_EQ(test, ks_parse_node_cmd("STOP\n", 5), KS_CMD_STOP);
	KUNIT_EXPECT_EQ(test, ks_parse_node_cmd("ReSeT\n", 6), KS_CMD_RESET);
	KUNIT_EXPECT_EQ(test, ks_parse_node_cmd("reset\n\n", 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_parse_node_cmd("star", 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_parse_node_cmd(" start", 6), -EINVAL);
	KUNIT_EXPECT_EQ(test, ks_parse_node_cmd("", 0), -EINVAL);
}

/* ------------------------------------------------------------ API misuse */

static void ks_test_api_misuse(struct kunit *test)
{
	struct kstats *ks = ks_test_new(test, "kunit_dup", 0);
	char name[KSTATS_NAME_MAX + 2];
	struct kstats *other;

	kstats_record(NULL, 1);
	kstats_delete(NULL);
	KUNIT_EXPECT_NULL(test, kstats_new("kunit_dup", 0));
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit_dup", 0, NULL, NULL)), -EEXIST);
	KUNIT_EXPECT_NULL(test, kstats_new("kunit_bits", 6));
	KUNIT_EXPECT_NULL(test, kstats_new("kunit_bits", 255));
	KUNIT_EXPECT_NULL(test, kstats_new(NULL, 3));
	/* kstats' own rules refuse these, before debugfs would. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create(NULL, 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("", 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("a/b", 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("a b", 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("a\tb", 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("caf\xc3\xa9", 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("..", 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("_x", 3, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("ok", 6, NULL, NULL)), -EINVAL);
	memset(name, 'n', sizeof(name));
	name[KSTATS_NAME_MAX + 1] = '\0';
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create(name, 3, NULL, NULL)), -EINVAL);
	name[KSTATS_NAME_MAX] = '\0';
	other = kstats_new(name, 3);
	KUNIT_EXPECT_NOT_NULL(test, other);
	kstats_delete(other);
	kstats_delete(ks);
	kstats_delete(ks_create("kunit_dup_gone", 0, NULL, NULL));
	/* The name is free again once deleted. */
	other = kstats_new("kunit_dup_gone", 0);
	KUNIT_EXPECT_NOT_NULL(test, other);
	kstats_delete(other);
}

/* -------------------------------------------------------------- contexts */

static struct kstats *ks_ctx_key;

static enum hrtimer_restart ks_test_hrtimer_fn(struct hrtimer *t)
{
	kstats_record(ks_ctx_key, 100);
	return HRTIMER_NORESTART;
}

static noinline void ks_test_probed(void)
{
	barrier();
}

static int ks_test_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	kstats_record(ks_ctx_key, 300);
	return 0;
}

static u64 ks_test_count_in(struct kstats *ks, u64 value)
{
	struct ks_snapshot *snap = ks_snapshot_take(ks);
	u64 n = 0;

	if (snap) {
		n = ks_cell_count(snap, snap->n_rows - 1,
				  ks_slot_of(value, ks->frac_bits, ks->n_slots));
		ks_snapshot_free(snap);
	}
	return n;
}

static void ks_test_contexts(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "ks_test_probed",
		.pre_handler = ks_test_kprobe_pre,
	};
	struct hrtimer timer;
	unsigned long flags;
	spinlock_t lock;	/* only to record with it held, IRQs off */
	int i;

	spin_lock_init(&lock);
	ks_ctx_key = ks_test_new(test, "kunit_ctx", 3);
	spin_lock_irqsave(&lock, flags);
	for (i = 0; i < 10; i++)
		kstats_record(ks_ctx_key, 200);
	spin_unlock_irqrestore(&lock, flags);
	KUNIT_EXPECT_EQ(test, ks_test_count_in(ks_ctx_key, 200), 10);

	hrtimer_init(&timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	timer.function = ks_test_hrtimer_fn;
	hrtimer_start(&timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	while (hrtimer_active(&timer))
		cpu_relax();
	hrtimer_cancel(&timer);
	KUNIT_EXPECT_EQ(test, ks_test_count_in(ks_ctx_key, 100), 1);

	/* ks_test_probed() is in kstats.ko, which _control refuses; kprobes do not. */
	if (register_kprobe(&kp) == 0) {
		for (i = 0; i < 5; i++)
			ks_test_probed();
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, ks_test_count_in(ks_ctx_key, 300), 5);
		KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	} else {
		KUNIT_FAIL(test, "register_kprobe(ks_test_probed) failed");
	}
	kstats_delete(ks_ctx_key);
	ks_ctx_key = NULL;
}

static void ks_test_reset_stop(struct kunit *test)
{
	struct kstats *ks = ks_test_new(test, "kunit_reset", 2);

	kstats_record(ks, 5);
	WRITE_ONCE(ks->active, false);
	kstats_record(ks, 5);
	KUNIT_EXPECT_EQ(test, ks_test_count_in(ks, 5), 1);
	WRITE_ONCE(ks->active, true);
	kstats_record(ks, 5);
	KUNIT_EXPECT_EQ(test, ks_test_count_in(ks, 5), 2);
	kstats_reset(ks);
	KUNIT_EXPECT_EQ(test, ks_test_count_in(ks, 5), 0);
	kstats_delete(ks);
}

static struct kunit_case ks_hist_cases[] = {
	KUNIT_CASE(ks_test_slot_boundaries),
	KUNIT_CASE(ks_test_slot_random),
	KUNIT_CASE(ks_test_avg_in_range),
	KUNIT_CASE(ks_test_avg_clamped),
	{}
};

static struct kunit_case ks_output_cases[] = {
	KUNIT_CASE(ks_test_output_format),
	KUNIT_CASE(ks_test_output_huge_totals),
	KUNIT_CASE(ks_test_output_single_max),
	KUNIT_CASE(ks_test_node_cmd),
	{}
};

static struct kunit_case ks_control_cases[] = {
	KUNIT_CASE(ks_test_parse),
	{}
};

static struct kunit_case ks_api_cases[] = {
	KUNIT_CASE(ks_test_api_misuse),
	KUNIT_CASE(ks_test_contexts),
	KUNIT_CASE(ks_test_reset_stop),
	{}
};

static struct kunit_suite ks_hist_suite = {
	.name = "kstats_hist",
	.test_cases = ks_hist_cases,
};

static struct kunit_suite ks_output_suite = {
	.name = "kstats_output",
	.test_cases = ks_output_cases,
};

static struct kunit_suite ks_control_suite = {
	.name = "kstats_control",
	.test_cases = ks_control_cases,
};

static struct kunit_suite ks_api_suite = {
	.name = "kstats_api",
	.test_cases = ks_api_cases,
};

kunit_test_suites(&ks_hist_suite, &ks_output_suite, &ks_control_suite,
		  &ks_api_suite);
