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
#include <linux/sort.h>
#include <linux/spinlock.h>

#include "hist.h"
#include "control.h"
#include "metrics.h"
#include "output.h"
#include "request.h"

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
	struct kstats *ks = ks_create("kunit", name, fb, NULL, NULL, NULL);

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
	u32 slot;
	int i, j;

	/* Many samples at the top of each slot, to press on the sums. */
	for (i = 0; i < ARRAY_SIZE(values); i++)
		for (j = 0; j < 10000; j++)
			kstats_record(ks, values[i]);
	snap = ks_snapshot_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->samples, 10000 * ARRAY_SIZE(values));
	KUNIT_EXPECT_EQ(test, snap->min, 0);
	KUNIT_EXPECT_EQ(test, snap->max, U64_MAX);
	for (slot = 0; slot < snap->n_slots; slot++) {
		if (!ks_total_count(snap, slot))
			continue;
		KUNIT_EXPECT_GE(test, snap->total[slot].avg, ks_slot_base(slot, 3));
		KUNIT_EXPECT_LE(test, snap->total[slot].avg,
				ks_test_slot_max(slot, 3));
	}
	/* Exact while a slot is at most 2^20 wide. */
	KUNIT_EXPECT_EQ(test, snap->total[ks_slot_of(1000000, 3, 497)].avg,
			1000000);
	KUNIT_EXPECT_EQ(test, snap->total[55].avg, (480 + 511) / 2);
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

/*
 * A hand-made snapshot: CPU 0 alone, with @count[slot] samples per slot,
 * every average at the slot's base; min and max at the first and last
 * non-empty slots' ends.
 */
static struct ks_snapshot *ks_test_snap(struct kunit *test, u8 fb,
					const u64 *count, u32 n)
{
	struct ks_snapshot *snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	struct ks_row *row = kunit_kzalloc(test, sizeof(*row), GFP_KERNEL);
	u32 slot, cells = 0, first = U32_MAX, last = 0;
	u64 cum = 0;

	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_NOT_NULL(test, row);
	snap->frac_bits = fb;
	snap->n_slots = ks_n_slots(fb);
	snap->total = kunit_kcalloc(test, snap->n_slots, sizeof(*snap->total),
				    GFP_KERNEL);
	row->cells = kunit_kcalloc(test, n, sizeof(*row->cells), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap->total);
	KUNIT_ASSERT_NOT_NULL(test, row->cells);
	for (slot = 0; slot < snap->n_slots; slot++) {
		u64 c = slot < n ? count[slot] : 0;

		cum += c;
		snap->total[slot].cum = cum;
		snap->total[slot].avg = ks_slot_base(slot, fb);
		if (!c)
			continue;
		row->cells[cells].slot = slot;
		row->cells[cells].cum = cum;
		row->cells[cells].avg = ks_slot_base(slot, fb);
		cells++;
		if (first == U32_MAX)
			first = slot;
		last = slot;
	}
	row->n_cells = cells;
	snap->rows = row;
	snap->n_rows = cells ? 1 : 0;
	snap->samples = cum;
	if (cum) {
		snap->min = ks_slot_base(first, fb);
		snap->max = ks_test_slot_max(last, fb);
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

	/* Empty: no slot has samples, no row. */
	snap = ks_snapshot_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->samples, 0);
	KUNIT_EXPECT_EQ(test, snap->n_rows, 0);
	ks_snapshot_free(snap);

	kstats_record(ks, U64_MAX);
	snap = ks_snapshot_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	for (slot = 0; slot < snap->n_slots; slot++)
		if (ks_total_count(snap, slot))
			seen = slot;
	KUNIT_EXPECT_EQ(test, seen, 495);
	KUNIT_EXPECT_EQ(test, snap->samples, 1);
	KUNIT_EXPECT_EQ(test, snap->n_rows, 1);
	KUNIT_EXPECT_EQ(test, snap->min, U64_MAX);
	KUNIT_EXPECT_EQ(test, snap->mean, U64_MAX);
	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	snprintf(want, sizeof(want), "slot 495 CPUS %-4u count        1 avg %llu p 1.000000\n",
		 nr_cpu_ids, snap->total[495].avg);
	KUNIT_EXPECT_NOT_NULL(test, strstr(ks_test_show(o, snap, 495), want));
	KUNIT_EXPECT_GE(test, snap->total[495].avg, ks_slot_base(495, 3));
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
	/* KEYWORD=VALUE where a keyword is due; a value may hold '='. */
	{ "trace t gap=off", -EINVAL },
	{ "trace t gap=off start a", -EINVAL },
	{ "trace t start a gap=off", -EINVAL },
	{ "trace t comm a=b", 0, KS_METHOD_DEFAULT, "t", "", 3, 0 },
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
	/* The spellings of bpftrace and perf. */
	{ "trace t start kretprobe:f", 0, KS_METHOD_KRETPROBE, "f", "", 3, 0 },
	{ "trace t start fentry:f", 0, KS_METHOD_FPROBE, "f", "", 3, 0 },
	{ "trace t start kfunc:f", 0, KS_METHOD_FPROBE, "f", "", 3, 0 },
	{ "trace t start kprobe:a end kprobe:b", 0, KS_METHOD_KPROBE, "a", "b", 3, 0 },
	{ "trace t start tracepoint:g:a end tracepoint:b", 0,
	  KS_METHOD_TRACEPOINT, "__tracepoint_a", "__tracepoint_b", 3, 0 },
	{ "trace t start syscall:getpid", 0, KS_METHOD_DEFAULT, "getpid", "", 3, 0 },
	{ "trace t start f,g", 0, KS_METHOD_DEFAULT, "f,g", "", 3, 0 },
	{ "trace t start vfs_*", 0, KS_METHOD_DEFAULT, "vfs_*", "", 3, 0 },
	{ "trace t start kretprobe:f method fprobe", -EINVAL },
	{ "trace t start kretprobe:a end fentry:b", -EINVAL },
	{ "trace t start tracepoint:", -EINVAL },
	{ "trace t start tracepoint:g:a:b end tracepoint:c", -EINVAL },
	{ "trace t start f* end g", -EINVAL },
	{ "trace t start f end g,h", -EINVAL },
	{ "trace t vfs_read", -EINVAL },
	/* No tracepoint name after the prefix: a (missing) function. */
	{ "trace t start __tracepoint_", 0, KS_METHOD_DEFAULT, "__tracepoint_", "", 3, 0 },
	/* Keys, filters, slowest: values checked in ks_test_parse_keys(). */
	{ "trace t key kstack:8,comm keys 16 slowest 0 pid 5 tgid 6 comm sh cpu 1",
	  0, KS_METHOD_DEFAULT, "t", "", 3, 0 },
	{ "trace t start a end b key kstack,end-kstack:2", 0, KS_METHOD_KPROBE,
	  "a", "b", 3, 0 },
	{ "trace t key", -EINVAL },
	/* "key bogus" is a parameter's name until BTF says (values.c): 9bogus is none. */
	{ "trace t key 9bogus", -EINVAL },
	{ "trace t key kstack,", -EINVAL },
	{ "trace t key kstack:0", -EINVAL },
	{ "trace t key kstack:33", -EINVAL },
	{ "trace t key comm:3", -EINVAL },
	{ "trace t key pid,pid", -EINVAL },
	{ "trace t key end-kstack", -EINVAL },
	{ "trace t keys 5", -EINVAL },
	{ "trace t key comm keys 0", -EINVAL },
	{ "trace t key comm keys 4097", -EINVAL },
	{ "trace t slowest 65", -EINVAL },
	{ "trace t pid 0", -EINVAL },
	{ "trace t tgid x", -EINVAL },
	{ "trace t comm 0123456789abcdef", -EINVAL },
	{ "trace t cpu -1", -EINVAL },
	{ "trace t cpu 1 cpu 2", -EINVAL },
	/* cgroup: a path from the cgroup2 root or a full one; resolved later. */
	{ "trace t cgroup / key cgroup", 0, KS_METHOD_DEFAULT, "t", "", 3, 0 },
	{ "trace t cgroup /sys/fs/cgroup/a", 0, KS_METHOD_DEFAULT, "t", "", 3, 0 },
	{ "trace t offcpu key cgroup,waker-cgroup", 0, KS_METHOD_TRACEPOINT,
	  "__tracepoint_sched_switch", "", 3, 0 },
	{ "trace t cgroup a/b", -EINVAL },
	{ "trace t cgroup /a cgroup /b", -EINVAL },
	{ "trace t key cgroup:2", -EINVAL },
	{ "trace t key cgroup,cgroup", -EINVAL },
	{ "trace t key waker-cgroup", -EINVAL },
	/* waker-chain[:LEVELS]: offcpu only, 1..4 levels, no other waker part. */
	{ "trace t offcpu key kstack,waker-chain:4", 0, KS_METHOD_TRACEPOINT,
	  "__tracepoint_sched_switch", "", 3, 0 },
	{ "trace t key waker-chain", -EINVAL },
	{ "trace t offcpu key waker-chain:0", -EINVAL },
	{ "trace t offcpu key waker-chain:5", -EINVAL },
	{ "trace t offcpu key waker-chain:2:2", -EINVAL },
	{ "trace t offcpu key waker-chain,waker-chain", -EINVAL },
	{ "trace t offcpu key waker-chain,waker-comm", -EINVAL },
	{ "trace t offcpu key waker-kstack,waker-chain", -EINVAL },
	{ "trace t start a end b match arg0 key cgroup", -EINVAL },
	/* An end with no start: not the function t. */
	{ "trace t end b", -EINVAL },
	{ "trace KEY-t", -EINVAL },
	/* Too many words: more than "trace t" and a pair of each keyword. */
	{ "trace t x x x x x x x x x x x x x x x x x x x x x x x x x", -EINVAL },
	{ "trace 123456789012345678901234567890123456789012345678901234567890",
	  -ENAMETOOLONG },
	{ "remove 123456789012345678901234567890123456789012345678901234567890",
	  -ENAMETOOLONG },
};

#define KS_NAME63 "123456789012345678901234567890123456789012345678901234567890123"

/* A node's commands through the control path: lockdown refuses node writes. */
static void ks_test_parse_node_cmds(struct kunit *test)
{
	static const struct {
		const char *line;
		int err;
		enum ks_control_op op;
		const char *name;
	} cases[] = {
		{ "start t", 0, KS_OP_START, "t" },
		{ "stop GAP-t\n", 0, KS_OP_STOP, "GAP-t" },
		{ "reset\tt ", 0, KS_OP_RESET, "t" },
		{ "reset " KS_NAME63, 0, KS_OP_RESET, KS_NAME63 },
		{ "reset 1234567890123456789012345678901234567890123456789012345678901234",
		  -ENAMETOOLONG },
		{ "start", -EINVAL },
		{ "stop a b", -EINVAL },
		{ "Start t", -EINVAL },
		{ "resets t", -EINVAL },
	};
	struct ks_trace_req *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	char *line = kunit_kzalloc(test, 2 * KSYM_NAME_LEN, GFP_KERNEL);
	const char *why;
	int i, err;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_NOT_NULL(test, line);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		strscpy(line, cases[i].line, 2 * KSYM_NAME_LEN);
		why = NULL;
		err = ks_parse_control(line, req, &why);
		KUNIT_EXPECT_EQ_MSG(test, err, cases[i].err, "line '%s'", cases[i].line);
		if (err) {
			KUNIT_EXPECT_NOT_NULL_MSG(test, why, "line '%s'", cases[i].line);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, req->op, cases[i].op, "line '%s'", cases[i].line);
		KUNIT_EXPECT_STREQ_MSG(test, req->name, cases[i].name, "line '%s'", cases[i].line);
	}
}

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
		/* As if ks_resolve_points() found every bare name a function. */
		if (!err && req->op == KS_OP_TRACE) {
			if (req->start_kind == KS_POINT_ANY)
				req->start_kind = KS_POINT_FUNCTION;
			if (req->end_kind == KS_POINT_ANY)
				req->end_kind = KS_POINT_FUNCTION;
			req->resolved = true;
			err = ks_check_trace(req, &why);
		}
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

static void ks_test_parse_keys(struct kunit *test)
{
	struct ks_trace_req *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);
	char line[] = "trace t key kstack:8,comm keys 16 slowest 0 pid 5 tgid 6 comm sh cpu 1";
	char cgroup[] = "trace t key cgroup,comm cgroup /sys/fs/cgroup/a\\040b";
	char plain[] = "trace t";
	char user[] = "trace t offcpu key ustack:4,kstack,waker-ustack";
	char chain[] = "trace t offcpu key kstack,waker-chain";
	const char *why;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_EQ(test, ks_parse_control(plain, req, &why), 0);
	KUNIT_EXPECT_EQ(test, req->keys.n_parts, 0);
	KUNIT_EXPECT_EQ(test, req->keys.rows, KS_KEYS_DEFAULT);
	KUNIT_EXPECT_EQ(test, req->keys.slowest, KS_SLOWEST_DEFAULT);
	KUNIT_EXPECT_EQ(test, req->filter.has, 0);
	KUNIT_ASSERT_EQ(test, ks_parse_control(line, req, &why), 0);
	KUNIT_EXPECT_EQ(test, req->keys.n_parts, 2);
	KUNIT_EXPECT_EQ(test, req->keys.parts[0], KS_KEY_KSTACK);
	KUNIT_EXPECT_EQ(test, req->keys.depth[KS_KEY_KSTACK], 8);
	KUNIT_EXPECT_EQ(test, req->keys.parts[1], KS_KEY_COMM);
	KUNIT_EXPECT_EQ(test, req->keys.rows, 16);
	KUNIT_EXPECT_EQ(test, req->keys.slowest, 0);
	KUNIT_EXPECT_EQ(test, req->filter.has, KS_FILTER_PID | KS_FILTER_TGID |
			KS_FILTER_COMM | KS_FILTER_CPU);
	KUNIT_EXPECT_EQ(test, req->filter.pid, 5);
	KUNIT_EXPECT_EQ(test, req->filter.tgid, 6);
	KUNIT_EXPECT_STREQ(test, req->filter.comm, "sh");
	KUNIT_EXPECT_EQ(test, req->filter.cpu, 1);
	/* A cgroup path as KEY-NAME prints it: \040 for a blank. */
	KUNIT_ASSERT_EQ(test, ks_parse_control(cgroup, req, &why), 0);
	KUNIT_EXPECT_EQ(test, req->keys.n_parts, 2);
	KUNIT_EXPECT_EQ(test, req->keys.parts[0], KS_KEY_CGROUP);
	KUNIT_EXPECT_EQ(test, req->keys.parts[1], KS_KEY_COMM);
	KUNIT_EXPECT_EQ(test, req->filter.has, KS_FILTER_CGROUP);
	KUNIT_EXPECT_STREQ(test, req->filter.cgroup_path, "/sys/fs/cgroup/a b");
	KUNIT_EXPECT_NULL(test, req->filter.cgroup);
	/* User stacks take their own depths, in their own slots. */
	KUNIT_ASSERT_EQ(test, ks_parse_control(user, req, &why), 0);
	KUNIT_EXPECT_EQ(test, req->keys.n_parts, 3);
	KUNIT_EXPECT_EQ(test, req->keys.parts[0], KS_KEY_USTACK);
	KUNIT_EXPECT_EQ(test, req->keys.parts[2], KS_KEY_WAKER_USTACK);
	KUNIT_EXPECT_EQ(test, req->keys.depth[ks_key_stack_slot(KS_KEY_USTACK)], 4);
	KUNIT_EXPECT_EQ(test, req->keys.depth[ks_key_stack_slot(KS_KEY_KSTACK)],
			KS_DEPTH_DEFAULT);
	KUNIT_EXPECT_EQ(test, req->keys.depth[ks_key_stack_slot(KS_KEY_WAKER_USTACK)],
			KS_DEPTH_DEFAULT);
	KUNIT_EXPECT_EQ(test, req->keys.depth[ks_key_stack_slot(KS_KEY_WAKER_KSTACK)], 0);
	/* waker-chain: 2 levels by default, each level's stack 16 frames. */
	KUNIT_ASSERT_EQ(test, ks_parse_control(chain, req, &why), 0);
	KUNIT_EXPECT_EQ(test, req->keys.n_parts, 2);
	KUNIT_EXPECT_EQ(test, req->keys.parts[1], KS_KEY_WAKER_CHAIN);
	KUNIT_EXPECT_EQ(test, req->keys.chain, KS_CHAIN_DEFAULT);
	KUNIT_EXPECT_EQ(test, req->keys.depth[ks_key_stack_slot(KS_KEY_WAKER_CHAIN)],
			KS_DEPTH_DEFAULT);
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
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ks_create("kunit", "kunit_dup", 0, NULL, NULL, NULL)),
			-EEXIST);
	KUNIT_EXPECT_NULL(test, kstats_new("kunit_bits", 6));
	KUNIT_EXPECT_NULL(test, kstats_new("kunit_bits", 255));
	KUNIT_EXPECT_NULL(test, kstats_new(NULL, 3));
	/* kstats' own rules refuse these, before debugfs would. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", NULL, 3, NULL, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", "", 3, NULL, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", "a/b", 3, NULL, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", "a b", 3, NULL, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", "a\tb", 3, NULL, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(ks_create("kunit", "caf\xc3\xa9", 3, NULL, NULL, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", "..", 3, NULL, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", "_x", 3, NULL, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", "ok", 6, NULL, NULL, NULL)), -EINVAL);
	memset(name, 'n', sizeof(name));
	name[KSTATS_NAME_MAX + 1] = '\0';
	KUNIT_EXPECT_EQ(test, PTR_ERR(ks_create("kunit", name, 3, NULL, NULL, NULL)), -EINVAL);
	name[KSTATS_NAME_MAX] = '\0';
	other = kstats_new(name, 3);
	KUNIT_EXPECT_NOT_NULL(test, other);
	kstats_delete(other);
	kstats_delete(ks);
	kstats_delete(ks_create("kunit", "kunit_dup_gone", 0, NULL, NULL, NULL));
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
		n = ks_total_count(snap, ks_slot_of(value, ks->frac_bits,
						    ks->n_slots));
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

	hrtimer_setup(&timer, ks_test_hrtimer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
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

/* ---------------------------------------------------------- percentiles */

struct ks_pct_want {
	u32 num, den, slot;
	u64 value, err;
};

static void ks_expect_pcts(struct kunit *test, const char *what,
			   const struct ks_snapshot *snap,
			   const struct ks_pct_want *w, int n)
{
	struct ks_pct p;
	int i;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ_MSG(test, ks_percentile(snap, w[i].num, w[i].den, &p),
				    0, "%s", what);
		KUNIT_EXPECT_EQ_MSG(test, p.slot, w[i].slot, "%s %u/%u", what,
				    w[i].num, w[i].den);
		KUNIT_EXPECT_EQ_MSG(test, p.value, w[i].value, "%s %u/%u", what,
				    w[i].num, w[i].den);
		KUNIT_EXPECT_EQ_MSG(test, p.err, w[i].err, "%s %u/%u", what,
				    w[i].num, w[i].den);
	}
}

static void ks_test_percentile_hand(struct kunit *test)
{
	static u64 counts[497];
	struct ks_snapshot *snap;
	struct ks_pct p;

	/* Empty. */
	memset(counts, 0, sizeof(counts));
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	KUNIT_EXPECT_EQ(test, ks_percentile(snap, 1, 2, &p), -ENODATA);

	/* One sample, 500, in slot 55 (480..511): every percentile is it. */
	counts[55] = 1;
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	snap->min = 500;
	snap->max = 500;
	{
		const struct ks_pct_want w[] = {
			{ 1, 2, 55, 500, 0 }, { 9999, 10000, 55, 500, 0 },
			{ 1, 1, 55, 500, 0 },
		};
		ks_expect_pcts(test, "one sample", snap, w, ARRAY_SIZE(w));
	}

	/*
	 * 100 samples in slot 55, min 480, max 511: the k-th is at
	 * 480 + 31 * (k - 1) / 99, by hand: 495, 507, 510, 511, 511.
	 */
	counts[55] = 100;
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	{
		const struct ks_pct_want w[] = {
			{ 1, 2, 55, 495, 31 }, { 9, 10, 55, 507, 31 },
			{ 99, 100, 55, 510, 31 }, { 999, 1000, 55, 511, 31 },
			{ 9999, 10000, 55, 511, 31 }, { 1, 100, 55, 480, 31 },
		};
		ks_expect_pcts(test, "one slot", snap, w, ARRAY_SIZE(w));
	}
	KUNIT_ASSERT_EQ(test, ks_percentile(snap, 1, 2, &p), 0);
	/* ceil(31 / 480 * 10^6) */
	KUNIT_EXPECT_EQ(test, p.relerr_micro, 64584);

	/* Two slots: 8 (exact, width 1) and one sample at the max, 511. */
	counts[55] = 1;
	counts[8] = 1;
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	{
		const struct ks_pct_want w[] = {
			{ 1, 2, 8, 8, 0 }, { 9, 10, 55, 511, 31 },
			{ 9999, 10000, 55, 511, 31 },
		};
		ks_expect_pcts(test, "two slots", snap, w, ARRAY_SIZE(w));
	}
	KUNIT_ASSERT_EQ(test, ks_percentile(snap, 1, 2, &p), 0);
	KUNIT_EXPECT_EQ(test, p.relerr_micro, 0);

	/* Samples at 0. */
	memset(counts, 0, sizeof(counts));
	counts[0] = 3;
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	{
		const struct ks_pct_want w[] = {
			{ 1, 2, 0, 0, 0 }, { 9999, 10000, 0, 0, 0 },
		};
		ks_expect_pcts(test, "zeros", snap, w, ARRAY_SIZE(w));
	}

	/* Samples at U64_MAX, in slot 495 of 497. */
	memset(counts, 0, sizeof(counts));
	counts[495] = 2;
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	snap->min = U64_MAX;
	snap->max = U64_MAX;
	{
		const struct ks_pct_want w[] = {
			{ 1, 2, 495, U64_MAX, 0 }, { 9999, 10000, 495, U64_MAX, 0 },
		};
		ks_expect_pcts(test, "U64_MAX", snap, w, ARRAY_SIZE(w));
	}

	/* 2^45 samples in slot 100 (24576..26623), by Python's integers. */
	memset(counts, 0, sizeof(counts));
	counts[100] = 1ULL << 45;
	snap = ks_test_snap(test, 3, counts, ARRAY_SIZE(counts));
	{
		const struct ks_pct_want w[] = {
			{ 1, 2, 100, 25599, 2047 }, { 9999, 10000, 100, 26622, 2047 },
		};
		ks_expect_pcts(test, "2^45 samples", snap, w, ARRAY_SIZE(w));
	}

	/* Above 2^44 in total, over two exact slots (frac_bits 1). */
	memset(counts, 0, sizeof(counts));
	counts[0] = 1ULL << 50;
	counts[1] = 3ULL << 50;
	snap = ks_test_snap(test, 1, counts, ARRAY_SIZE(counts));
	{
		const struct ks_pct_want w[] = {
			{ 1, 4, 0, 0, 0 }, { 1, 2, 1, 1, 0 },
			{ 9999, 10000, 1, 1, 0 },
		};
		ks_expect_pcts(test, "2^52 samples", snap, w, ARRAY_SIZE(w));
	}
	KUNIT_EXPECT_EQ(test, ks_rank(1ULL << 52, 9999, 10000), 4503149267407759ULL);
	KUNIT_EXPECT_EQ(test, ks_rank(1, 1, 2), 1);
	KUNIT_EXPECT_EQ(test, ks_rank(10, 9, 10), 9);
	KUNIT_EXPECT_EQ(test, ks_rank(11, 9, 10), 10);
	KUNIT_EXPECT_EQ(test, ks_rank(U64_MAX, 1, 1), U64_MAX);
	KUNIT_EXPECT_EQ(test, ks_mul_div(U64_MAX, U64_MAX - 1, U64_MAX, NULL),
			U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, ks_mul_div(1ULL << 63, 3, 4, NULL), 3ULL << 61);
}

static int ks_test_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

#define KS_TEST_N	2000

/*
 * Random samples: every estimate lies in its slot and within the
 * stated bounds of the true nearest-rank value; min, max, mean exact.
 */
static void ks_test_percentile_random(struct kunit *test)
{
	u64 *v = kunit_kcalloc(test, KS_TEST_N, sizeof(*v), GFP_KERNEL);
	struct ks_snapshot *snap;
	struct kstats *ks;
	struct ks_pct p;
	u32 num, i;
	u64 sum;
	u8 fb;

	KUNIT_ASSERT_NOT_NULL(test, v);
	for (fb = 0; fb <= KSTATS_FRAC_BITS_MAX; fb++) {
		ks = ks_test_new(test, "kunit_pct", fb);
		sum = 0;
		for (i = 0; i < KS_TEST_N; i++) {
			/*
			 * Below 2^21: slots at most 2^20 wide at any frac_bits,
			 * where sums, hence the mean, are exact (KS_SUM_BITS).
			 */
			v[i] = get_random_u32() >> (11 + get_random_u32() % 21);
			if (i % 7 == 0 && i)
				v[i] = v[i - 1];
			sum += v[i];
			kstats_record(ks, v[i]);
		}
		sort(v, KS_TEST_N, sizeof(*v), ks_test_cmp_u64, NULL);
		snap = ks_snapshot_take(ks);
		KUNIT_ASSERT_NOT_NULL(test, snap);
		KUNIT_EXPECT_EQ(test, snap->samples, KS_TEST_N);
		KUNIT_EXPECT_EQ(test, snap->min, v[0]);
		KUNIT_EXPECT_EQ(test, snap->max, v[KS_TEST_N - 1]);
		KUNIT_EXPECT_EQ(test, snap->mean, div_u64(sum, KS_TEST_N));
		for (num = 1; num <= 1000; num++) {
			u64 t = v[ks_rank(KS_TEST_N, num, 1000) - 1];
			u64 d;

			KUNIT_ASSERT_EQ(test, ks_percentile(snap, num, 1000, &p), 0);
			d = p.value > t ? p.value - t : t - p.value;
			KUNIT_EXPECT_EQ_MSG(test, p.slot, ks_slot_of(t, fb, snap->n_slots),
					    "fb %u q %u/1000", fb, num);
			KUNIT_EXPECT_GE(test, p.value, ks_slot_base(p.slot, fb));
			KUNIT_EXPECT_LE(test, p.value, ks_test_slot_max(p.slot, fb));
			KUNIT_EXPECT_LE(test, d, p.err);
			KUNIT_EXPECT_LE(test, p.err,
					ks_test_slot_max(p.slot, fb) - ks_slot_base(p.slot, fb));
			/* d / t <= relerr, and relerr <= 2^-fb (rounded up). */
			KUNIT_EXPECT_LE(test, d * 1000000, p.relerr_micro * t);
			KUNIT_EXPECT_LE(test, p.relerr_micro, (1000000 >> fb) + 1);
		}
		ks_snapshot_free(snap);
		kstats_delete(ks);
	}
}

/* ------------------------------------------------ min/max under hardirq */

struct ks_mm {
	struct hrtimer timer;
	struct kstats *ks;
	int cpu;
	u64 cur_min, cur_max;	/* the task's latest values */
	u64 irq_min, irq_max;	/* the extremes the timer recorded */
	unsigned long fired, fired_here;
};

static enum hrtimer_restart ks_test_mm_fn(struct hrtimer *t)
{
	struct ks_mm *mm = container_of(t, struct ks_mm, timer);
	u64 lo = READ_ONCE(mm->cur_min) - 1, hi = READ_ONCE(mm->cur_max) + 1;

	/* Just past the task's latest values, so both keep writing. */
	kstats_record(mm->ks, lo);
	kstats_record(mm->ks, hi);
	WRITE_ONCE(mm->irq_min, min(mm->irq_min, lo));
	WRITE_ONCE(mm->irq_max, max(mm->irq_max, hi));
	mm->fired++;
	mm->fired_here += smp_processor_id() == mm->cpu;
	hrtimer_forward_now(t, ns_to_ktime(20000));
	return HRTIMER_RESTART;
}

/*
 * A task records a new min and a new max at every step while a HARD
 * hrtimer on the same CPU records values just beyond them. After each
 * step this CPU's bounds must hold everything recorded so far: a
 * read-compare-write that the timer interrupted would put back the
 * task's value over the timer's. At the end they must be exact.
 */
static void ks_test_minmax_hardirq(struct kunit *test)
{
	struct ks_mm *mm = kunit_kzalloc(test, sizeof(*mm), GFP_KERNEL);
	unsigned long bad = 0, i;
	struct ks_cpu *c;
	u64 t_min, t_max, t0;

	KUNIT_ASSERT_NOT_NULL(test, mm);
	mm->ks = ks_test_new(test, "kunit_mm", 3);
	mm->cur_min = 1ULL << 40;
	mm->cur_max = 1ULL << 40;
	mm->irq_min = U64_MAX;
	hrtimer_setup(&mm->timer, ks_test_mm_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	mm->cpu = get_cpu();
	c = per_cpu_ptr(mm->ks->bank[0], mm->cpu);	/* no cut: bank 0 is live */
	t0 = ktime_get_ns();
	hrtimer_start(&mm->timer, ns_to_ktime(20000), HRTIMER_MODE_REL_PINNED_HARD);
	/*
	 * Until the timer has fired 50 times here, however slowly a loaded
	 * host delivers it (36 in 180 ms was seen), within 5 s of wall time.
	 */
	for (i = 0; i < 1000 || (READ_ONCE(mm->fired_here) < 50 &&
				 ktime_get_ns() - t0 < 5 * NSEC_PER_SEC); i++) {
		u64 lo = READ_ONCE(mm->cur_min) - 3, hi = READ_ONCE(mm->cur_max) + 3;

		WRITE_ONCE(mm->cur_min, lo);
		WRITE_ONCE(mm->cur_max, hi);
		kstats_record(mm->ks, lo);
		kstats_record(mm->ks, hi);
		/*
		 * What the timer recorded before this point must be in the
		 * bounds; it may record more (lower, higher) just after.
		 */
		t_min = min(lo, READ_ONCE(mm->irq_min));
		t_max = max(hi, READ_ONCE(mm->irq_max));
		barrier();
		bad += READ_ONCE(c->min) > t_min || READ_ONCE(c->max) < t_max;
	}
	put_cpu();
	hrtimer_cancel(&mm->timer);
	KUNIT_EXPECT_EQ(test, c->min, min(mm->cur_min, mm->irq_min));
	KUNIT_EXPECT_EQ(test, c->max, max(mm->cur_max, mm->irq_max));
	KUNIT_EXPECT_GE(test, mm->fired_here, 50);
	KUNIT_EXPECT_EQ(test, mm->fired_here, mm->fired);
	KUNIT_EXPECT_EQ(test, bad, 0);
	kstats_delete(mm->ks);
}

/* ------------------------------------------------------------ intervals */

static void ks_test_interval(struct kunit *test)
{
	struct kstats *ks = ks_test_new(test, "kunit_iv", 3);
	struct ks_snapshot *snap;
	int i;

	for (i = 0; i < 10; i++)
		kstats_record(ks, 100 + i);
	snap = ks_interval_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->samples, 10);
	KUNIT_EXPECT_EQ(test, snap->min, 100);
	KUNIT_EXPECT_EQ(test, snap->max, 109);
	KUNIT_EXPECT_EQ(test, snap->mean, 104);
	ks_snapshot_free(snap);

	kstats_record(ks, 7);
	kstats_record(ks, 7000);
	snap = ks_interval_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->samples, 2);
	KUNIT_EXPECT_EQ(test, snap->min, 7);
	KUNIT_EXPECT_EQ(test, snap->max, 7000);
	KUNIT_EXPECT_EQ(test, ks_total_count(snap, ks_slot_of(100, 3, 497)), 0);
	ks_snapshot_free(snap);

	snap = ks_interval_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->samples, 0);
	ks_snapshot_free(snap);

	/* The cumulative counters saw everything. */
	snap = ks_snapshot_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->samples, 12);
	KUNIT_EXPECT_EQ(test, snap->min, 7);
	KUNIT_EXPECT_EQ(test, snap->max, 7000);
	ks_snapshot_free(snap);

	/* Reset ends the interval too. */
	kstats_record(ks, 5);
	kstats_reset(ks);
	kstats_record(ks, 9);
	snap = ks_interval_take(ks);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_EQ(test, snap->samples, 1);
	KUNIT_EXPECT_EQ(test, snap->min, 9);
	ks_snapshot_free(snap);
	kstats_delete(ks);
}

static struct kunit_case ks_hist_cases[] = {
	KUNIT_CASE(ks_test_slot_boundaries),
	KUNIT_CASE(ks_test_slot_random),
	KUNIT_CASE(ks_test_avg_in_range),
	KUNIT_CASE(ks_test_avg_clamped),
	KUNIT_CASE(ks_test_percentile_hand),
	KUNIT_CASE(ks_test_percentile_random),
	KUNIT_CASE(ks_test_minmax_hardirq),
	KUNIT_CASE(ks_test_interval),
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
	KUNIT_CASE(ks_test_parse_node_cmds),
	KUNIT_CASE(ks_test_parse_keys),
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
