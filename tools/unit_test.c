// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of ksnode: parsing, unit formatting, bucket merging and
 * the exposition writer. Inputs are node files captured from a 6.12 guest
 * (test/data/6.12, see test/data/README); the expected figures were read
 * off those files by hand (or summed with awk from their CPUS lines), and
 * the layout ones follow the README's "Histogram layout".
 * The commands' way to the module (control.c) is tested on a file that
 * stands in for /dev/kstats (KSTATS_DEV), and its lockdown messages
 * directly (perm_hint()).
 * Usage: unit_test DATA_DIR. Ends with "unit: N passed, M failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flamesvg.h"
#include "ksyms.h"
#include "usyms.h"
#include "kstats.h"

static int passed, failed;
static const char *datadir;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		putchar('\n');						\
	}								\
} while (0)

#define EQ_U64(a, b) CHECK((uint64_t)(a) == (uint64_t)(b), "%s = %" PRIu64 ", want %" PRIu64, #a, (uint64_t)(a), (uint64_t)(b))
#define EQ_STR(a, b) CHECK(!strcmp((a), (b)), "%s = '%s', want '%s'", #a, (a), (b))

static char *slurp(const char *rel)
{
	char path[4096];
	FILE *f;
	char *buf;
	long len;

	snprintf(path, sizeof(path), "%s/%s", datadir, rel);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, len + 1);
	if (fread(buf, 1, len, f) != (size_t)len)
		exit(2);
	fclose(f);
	return buf;
}

static void nload(const char *rel, struct ks_node *n)
{
	char err[128], *t = slurp(rel);

	if (ks_parse(t, n, err, sizeof(err))) {
		printf("FAIL parse %s: %s\n", rel, err);
		exit(2);
	}
	free(t);
}

/* Output of a function writing to a FILE, as a string. */
#define CAPTURE(buf, call) do {						\
	size_t _len;							\
	FILE *f = open_memstream(&(buf), &_len);			\
	call;								\
	fclose(f);							\
} while (0)

static void test_parse_read(void)
{
	struct ks_node n;
	const struct ks_pct *p;
	uint64_t total = 0;
	size_t i, cpus = 0;

	nload("6.12/kstats/read", &n);
	EQ_STR(n.name, "read");
	EQ_U64(n.frac_bits, 3);
	CHECK(n.active, "active");
	EQ_U64(n.samples, 983);
	EQ_U64(n.missed, 0);
	EQ_U64(n.nmi_dropped, 0);
	CHECK(n.has_minmax, "has min/max");
	EQ_U64(n.min, 2978);
	EQ_U64(n.max, 6682961);
	EQ_U64(n.mean, 53114);
	p = ks_pct_get(&n, "p50");
	CHECK(p->has, "p50");
	EQ_U64(p->value, 21793);
	EQ_U64(p->slot, 98);
	EQ_U64(p->err, 2047);
	EQ_STR(p->relerr, "0.099952");
	p = ks_pct_get(&n, "p99");
	EQ_U64(p->value, 720896);
	EQ_U64(p->slot, 139);
	EQ_U64(p->err, 65535);
	EQ_STR(p->relerr, "0.090908");
	/* p99.9 must not be taken for p99 (the key is a prefix). */
	p = ks_pct_get(&n, "p99.9");
	EQ_U64(p->value, 6682961);
	EQ_U64(p->slot, 164);
	EQ_U64(p->err, 391505);
	EQ_STR(p->relerr, "0.062229");
	EQ_STR(n.unit, "ns");
	CHECK(n.is_trace, "trace line");
	EQ_STR(n.method, "fprobe");
	EQ_U64(n.trace_missed, 0);
	CHECK(!n.gone, "not gone");
	/* 86 slot lines: 43 of CPU 1, 43 CPUS lines summing to samples. */
	EQ_U64(n.n_lines, 86);
	for (i = 0; i < n.n_lines; i++)
		if (n.lines[i].totals) {
			cpus++;
			total += n.lines[i].count;
			CHECK(n.lines[i].cpu == 2, "CPUS line's number is nr_cpu_ids");
		} else {
			CHECK(n.lines[i].cpu == 1, "CPU line of CPU 1");
		}
	EQ_U64(cpus, 43);
	EQ_U64(total, 983);
	/* The first line: slot 75  CPU  1 count 1 avg 2978 p 0.001017 */
	EQ_U64(n.lines[0].slot, 75);
	CHECK(!n.lines[0].totals, "first is a CPU line");
	EQ_U64(n.lines[0].avg, 2978);
	EQ_STR(n.lines[0].p, "0.001017");
	ks_node_free(&n);
}

static void test_parse_other(void)
{
	struct ks_node n;
	int i;

	/* No samples: every figure from min on is "-". */
	nload("6.12/kstats/idle", &n);
	EQ_U64(n.frac_bits, 0);
	EQ_U64(n.samples, 0);
	CHECK(!n.has_minmax, "no min/max");
	for (i = 0; i < KS_NPCT; i++)
		CHECK(!n.pct[i].has, "%s is -", n.pct[i].key);
	EQ_U64(n.n_lines, 0);
	ks_node_free(&n);

	nload("6.12/read5.stopped", &n);
	CHECK(!n.active, "stopped");
	EQ_U64(n.frac_bits, 5);
	EQ_STR(n.method, "kretprobe");
	ks_node_free(&n);

	/* A client metric has no trace line. */
	nload("6.12/kstats/demo_hrtimer_late", &n);
	CHECK(!n.is_trace, "client metric");
	EQ_U64(n.samples, 1231);
	ks_node_free(&n);

	/* Refusals: not a node, a bad value, a missing key, a bad slot. */
	{
		char err[128];
		static const char *const bad[] = {
			"hello\n",
			"# name x\n# frac_bits 9\n",
			"# name x\n# frac_bits 3\n",
			"# name x\n# frac_bits 0\n# state active\n# samples 1\n"
			"# missed 0\n# nmi_dropped 0\n# min 1\n# max 1\n# mean 1\n"
			"# unit ns\nslot 999 CPUS 2 count 1 avg 1 p 1.000000\n",
			"# samples -5\n",
		};

		for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++)
			CHECK(ks_parse(bad[i], &n, err, sizeof(err)) == -1,
			      "bad input %d refused", i);
	}
}

/* Every captured node of both kernels parses; CPUS counts sum to samples. */
static void test_parse_all(void)
{
	static const char *const kernels[] = { "6.1", "6.12" };
	static const char *const nodes[] = {
		"read", "GAP-read", "runq", "GAP-runq", "read5", "idle",
		"demo_hrtimer_late", "_interval/read", "_interval/read.2",
	};
	char rel[128];
	size_t k, i, j;

	for (k = 0; k < 2; k++)
		for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
			struct ks_node n;
			uint64_t total = 0;

			snprintf(rel, sizeof(rel), "%s/kstats/%s", kernels[k], nodes[i]);
			nload(rel, &n);
			for (j = 0; j < n.n_lines; j++)
				if (n.lines[j].totals)
					total += n.lines[j].count;
			CHECK(total == n.samples, "%s: CPUS total %" PRIu64 " != samples %" PRIu64,
			      rel, total, n.samples);
			ks_node_free(&n);
		}
}

static void test_layout(void)
{
	/* README: "With frac_bits = 3 ... slot 55 holds 480..511". */
	EQ_U64(ks_slot_base(55, 3), 480);
	EQ_U64(ks_slot_top(55, 3), 511);
	/* 497 slots at frac_bits 3; U64_MAX is in slot 495. */
	EQ_U64(ks_n_slots(3), 497);
	EQ_U64(ks_slot_top(495, 3), UINT64_MAX);
	/* Values below 2^frac_bits get a slot each. */
	EQ_U64(ks_slot_base(7, 3), 7);
	EQ_U64(ks_slot_top(7, 3), 7);
	EQ_U64(ks_slot_base(8, 3), 8);
	EQ_U64(ks_slot_top(15, 3), 15);
	EQ_U64(ks_slot_base(16, 3), 16);
	EQ_U64(ks_slot_top(16, 3), 17);
	/* frac_bits 0: one slot per power of two. */
	EQ_U64(ks_n_slots(0), 66);
	EQ_U64(ks_slot_base(10, 0), 512);
	EQ_U64(ks_slot_top(10, 0), 1023);
	/* The read node's p99 slot 139 is [720896, 786431]: err 65535. */
	EQ_U64(ks_slot_base(139, 3), 720896);
	EQ_U64(ks_slot_top(139, 3) - ks_slot_base(139, 3), 65535);
}

static void test_units(void)
{
	char b[64];
	enum ks_unit u;

	ks_fmt(b, sizeof(b), 0, KS_NS); EQ_STR(b, "0");
	ks_fmt(b, sizeof(b), 1500, KS_US); EQ_STR(b, "1.5");
	ks_fmt(b, sizeof(b), 511, KS_MS); EQ_STR(b, "0.000511");
	ks_fmt(b, sizeof(b), 1000000, KS_MS); EQ_STR(b, "1");
	ks_fmt(b, sizeof(b), 6682961, KS_MS); EQ_STR(b, "6.682961");
	ks_fmt(b, sizeof(b), 1000001, KS_S); EQ_STR(b, "0.001000001");
	ks_fmt(b, sizeof(b), UINT64_MAX, KS_S); EQ_STR(b, "18446744073.709551615");
	ks_fmt(b, sizeof(b), 21793, KS_AUTO); EQ_STR(b, "21.793");
	ks_fmt_seconds(b, sizeof(b), 511); EQ_STR(b, "0.000000511");
	ks_fmt_seconds(b, sizeof(b), 3000000000ULL); EQ_STR(b, "3");
	CHECK(ks_unit_auto(999) == KS_NS, "auto 999");
	CHECK(ks_unit_auto(1000) == KS_US, "auto 1000");
	CHECK(ks_unit_auto(999999) == KS_US, "auto 999999");
	CHECK(ks_unit_auto(1000000) == KS_MS, "auto 1e6");
	CHECK(ks_unit_auto(1000000000) == KS_S, "auto 1e9");
	CHECK(!ks_unit_parse("us", &u) && u == KS_US, "parse us");
	CHECK(ks_unit_parse("usec", &u) == -1, "parse usec refused");
}

static void test_rows(void)
{
	/*
	 * The read node's CPUS counts summed per power of two (bucket =
	 * slot >> 3), with awk: bucket 9 (2048..4095) 1, 10: 2, 11: 27,
	 * 12: 890, 13: 13, 14: 15, 15: 18, 16: 1, 17: 9, 18: 2, 19: 4, 20: 1.
	 */
	static const uint64_t want[][2] = {
		{ 9, 1 }, { 10, 2 }, { 11, 27 }, { 12, 890 }, { 13, 13 },
		{ 14, 15 }, { 15, 18 }, { 16, 1 }, { 17, 9 }, { 18, 2 },
		{ 19, 4 }, { 20, 1 },
	};
	struct ks_node n;
	struct ks_row *r;
	uint64_t total = 0;
	int nr, i;

	nload("6.12/kstats/read", &n);
	nr = ks_rows(&n, -1, false, &r);
	EQ_U64(nr, 12);
	for (i = 0; i < nr && i < 12; i++) {
		/* Bucket b >= 1 at frac_bits 3 is [2^(b+2), 2^(b+3) - 1]. */
		EQ_U64(r[i].low, 1ULL << (want[i][0] + 2));
		EQ_U64(r[i].high, (1ULL << (want[i][0] + 3)) - 1);
		EQ_U64(r[i].count, want[i][1]);
	}
	free(r);
	/* --slots: one row per CPUS line; the counts still add up. */
	nr = ks_rows(&n, -1, true, &r);
	EQ_U64(nr, 43);
	for (i = 0; i < nr; i++)
		total += r[i].count;
	EQ_U64(total, 983);
	EQ_U64(r[0].low, 2816);		/* slot 75 = (8 | 3) << 8 */
	EQ_U64(r[0].high, 3071);
	free(r);
	/* Every sample is on CPU 1: CPU 0 has no rows, CPU 1 all of them. */
	EQ_U64(ks_rows(&n, 0, false, &r), 0);
	free(r);
	EQ_U64(ks_rows(&n, 1, false, &r), 12);
	EQ_U64(r[3].count, 890);
	free(r);
	ks_node_free(&n);
}

static void test_hist_text(void)
{
	static const struct ks_row rows[] = {
		{ 0, 7, 1 }, { 8, 15, 4 }, { 32, 63, 2 },
	};
	static const char want[] =
		"                ns                       : count     distribution\n"
		"                 0 -> 7                  : 1         |*   |\n"
		"                 8 -> 15                 : 4         |****|\n"
		"                 ...\n"
		"                32 -> 63                 : 2         |**  |\n";
	char *out = NULL;

	CAPTURE(out, ks_print_hist(f, rows, 3, KS_NS, 4));
	EQ_STR(out, want);
	free(out);
}

static void test_prom(void)
{
	struct ks_node n;
	char *out = NULL, *line, *save, nm[64];
	int lines = 0, buckets = 0;
	bool seen_4095 = false, seen_8191 = false, seen_inf = false;
	bool seen_sum = false, seen_count = false, seen_missed = false;

	ks_prom_name(nm, sizeof(nm), "GAP-read");
	EQ_STR(nm, "kstats_GAP_read");
	ks_prom_name(nm, sizeof(nm), "a.b:c9");
	EQ_STR(nm, "kstats_a_b_c9");

	nload("6.12/kstats/read", &n);
	CAPTURE(out, ks_prom_write(f, &n, KS_B_POW2, false));
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		lines++;
		if (!strncmp(line, "kstats_read_seconds_bucket{", 27))
			buckets++;
		/* Buckets 9 (to 4095) and 10 (to 8191) hold 1 and 2. */
		if (!strcmp(line, "kstats_read_seconds_bucket{le=\"0.000004095\"} 1"))
			seen_4095 = true;
		if (!strcmp(line, "kstats_read_seconds_bucket{le=\"0.000008191\"} 3"))
			seen_8191 = true;
		if (!strcmp(line, "kstats_read_seconds_bucket{le=\"+Inf\"} 983"))
			seen_inf = true;
		/* sum of count * avg over the CPUS lines (awk): 52210847 ns. */
		if (!strcmp(line, "kstats_read_seconds_sum 0.052210847"))
			seen_sum = true;
		if (!strcmp(line, "kstats_read_seconds_count 983"))
			seen_count = true;
		if (!strcmp(line, "kstats_read_missed_total 0"))
			seen_missed = true;
	}
	/* frac_bits 3: 61 finite bounds (buckets 0..60) and +Inf. */
	EQ_U64(buckets, 62);
	/* HELP, TYPE, 62 buckets, sum, count; HELP, TYPE, missed. */
	EQ_U64(lines, 69);
	CHECK(seen_4095, "bucket le 4.095us = 1");
	CHECK(seen_8191, "bucket le 8.191us = 3");
	CHECK(seen_inf, "+Inf = samples");
	CHECK(seen_sum, "sum");
	CHECK(seen_count, "count");
	CHECK(seen_missed, "missed counter");
	free(out);

	/* The bucket set depends only on frac_bits: same for an empty node. */
	{
		struct ks_node e;
		const char *p;

		nload("6.12/kstats/idle", &e);
		e.frac_bits = 3;
		out = NULL;
		CAPTURE(out, ks_prom_write(f, &e, KS_B_POW2, false));
		for (buckets = 0, p = out; (p = strstr(p, "_bucket{")); p++)
			buckets++;
		EQ_U64(buckets, 62);
		CHECK(strstr(out, "kstats_idle_seconds_bucket{le=\"0.000000007\"} 0\n") != NULL,
		      "first bound is 7 ns");
		CHECK(strstr(out, "kstats_idle_seconds_sum 0\n") != NULL, "sum 0");
		free(out);
		ks_node_free(&e);
	}
	/* --buckets slots: every slot but the one ending at U64_MAX: 495. */
	out = NULL;
	CAPTURE(out, ks_prom_write(f, &n, KS_B_SLOTS, false));
	{
		const char *p;

		for (buckets = 0, p = out; (p = strstr(p, "_bucket{")); p++)
			buckets++;
		EQ_U64(buckets, 496);
		/* slot 75 ends at 3071; slot 80 (4096..4607) is the second. */
		CHECK(strstr(out, "{le=\"0.000003071\"} 1\n") != NULL, "slot 75");
		CHECK(strstr(out, "{le=\"0.000004607\"} 2\n") != NULL, "slot 80");
	}
	free(out);
	/* --per-cpu: only CPU 1 has samples. */
	out = NULL;
	CAPTURE(out, ks_prom_write(f, &n, KS_B_POW2, true));
	CHECK(strstr(out, "kstats_read_seconds_bucket{cpu=\"1\",le=\"+Inf\"} 983\n") != NULL,
	      "per-cpu +Inf");
	CHECK(strstr(out, "kstats_read_seconds_count{cpu=\"1\"} 983\n") != NULL,
	      "per-cpu count");
	CHECK(strstr(out, "cpu=\"0\"") == NULL, "no CPU 0 series");
	free(out);
	ks_node_free(&n);
}

/*
 * Whole exposition texts, byte for byte, against test/data/expected/,
 * made by test/data/prom-model.py, a model written from the README's
 * rules (not from this code).
 */
static void test_prom_exact(void)
{
	static const struct {
		const char *node, *expected;
		bool per_cpu;
	} cases[] = {
		{ "6.12/kstats/read", "expected/read-6.12.prom", false },
		{ "6.1/kstats/GAP-runq", "expected/GAP-runq-6.1.prom", false },
		{ "6.1/kstats/runq", "expected/runq-6.1-per-cpu.prom", true },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ks_node n;
		char *out = NULL, *want = slurp(cases[i].expected);

		nload(cases[i].node, &n);
		CAPTURE(out, ks_prom_write(f, &n, KS_B_POW2, cases[i].per_cpu));
		CHECK(!strcmp(out, want), "%s: export differs from %s", cases[i].node,
		      cases[i].expected);
		free(out);
		free(want);
		ks_node_free(&n);
	}
}

/* --- KEY-NAME (test/data/keys, see its README) ----------------------- */

static void kload(const char *rel, struct ks_keynode *k)
{
	char err[160], *t = slurp(rel);

	if (ks_keynode_parse(t, k, err, sizeof(err))) {
		printf("FAIL parse %s: %s\n", rel, err);
		exit(2);
	}
	free(t);
}

/* export --keys: KEY-NAME's rows as a summary family, labels by part. */
static void test_prom_keys(void)
{
	static const char *const one[] = { "read" }, *const two[] = { "io.lat", "io_lat" };
	struct ks_keynode k, r, s, e;
	const struct ks_keynode *kp = &k;
	char *out = NULL, err[160];

	kload("keys/KEY-cgroup", &k);
	CHECK(ks_keynode_labels_ok(&k), "KEY-cgroup: labels");
	CAPTURE(out, ks_prom_write_keys(f, one, &kp, 1));
	EQ_STR(out,
	       "# HELP kstats_read_by_key_seconds kstats trace read by key (cgroup,comm,waker-cgroup): each row of KEY-NAME, quantiles as it gives them (a slot's top)\n"
	       "# TYPE kstats_read_by_key_seconds summary\n"
	       "kstats_read_by_key_seconds{cgroup=\"/system.slice/ssh.service\",comm=\"sshd\",waker_cgroup=\"/\",quantile=\"0.5\"} 0.000002047\n"
	       "kstats_read_by_key_seconds{cgroup=\"/system.slice/ssh.service\",comm=\"sshd\",waker_cgroup=\"/\",quantile=\"0.99\"} 0.000002047\n"
	       "kstats_read_by_key_seconds_sum{cgroup=\"/system.slice/ssh.service\",comm=\"sshd\",waker_cgroup=\"/\"} 0.000004\n"
	       "kstats_read_by_key_seconds_count{cgroup=\"/system.slice/ssh.service\",comm=\"sshd\",waker_cgroup=\"/\"} 2\n"
	       "kstats_read_by_key_seconds{cgroup=\"/a b;c (gone)\",comm=\"kst\",waker_cgroup=\"/a b;c (gone)\",quantile=\"0.5\"} 0.000000511\n"
	       "kstats_read_by_key_seconds{cgroup=\"/a b;c (gone)\",comm=\"kst\",waker_cgroup=\"/a b;c (gone)\",quantile=\"0.99\"} 0.000000511\n"
	       "kstats_read_by_key_seconds_sum{cgroup=\"/a b;c (gone)\",comm=\"kst\",waker_cgroup=\"/a b;c (gone)\"} 0.0000009\n"
	       "kstats_read_by_key_seconds_count{cgroup=\"/a b;c (gone)\",comm=\"kst\",waker_cgroup=\"/a b;c (gone)\"} 3\n"
	       "kstats_read_by_key_seconds{cgroup=\"[id:4242] (gone)\",comm=\"kst\",waker_cgroup=\"[id:1]\",quantile=\"0.5\"} 0.00000005\n"
	       "kstats_read_by_key_seconds{cgroup=\"[id:4242] (gone)\",comm=\"kst\",waker_cgroup=\"[id:1]\",quantile=\"0.99\"} 0.00000005\n"
	       "kstats_read_by_key_seconds_sum{cgroup=\"[id:4242] (gone)\",comm=\"kst\",waker_cgroup=\"[id:1]\"} 0.00000005\n"
	       "kstats_read_by_key_seconds_count{cgroup=\"[id:4242] (gone)\",comm=\"kst\",waker_cgroup=\"[id:1]\"} 1\n"
	       "kstats_read_by_key_seconds{row=\"other\",quantile=\"0.5\"} NaN\n"
	       "kstats_read_by_key_seconds{row=\"other\",quantile=\"0.99\"} NaN\n"
	       "kstats_read_by_key_seconds_sum{row=\"other\"} 0\n"
	       "kstats_read_by_key_seconds_count{row=\"other\"} 0\n");
	free(out);

	/* A guest's capture keyed by comm,ret; two colliding names: a node label. */
	kload("keys/KEY-ret", &r);
	{
		const struct ks_keynode *fam[] = { &r, &k };

		CAPTURE(out, ks_prom_write_keys(f, two, fam, 2));
	}
	{
		static const char want[] =
	       "# HELP kstats_io_lat_by_key_seconds kstats traces io.lat, io_lat by key (comm,ret, cgroup,comm,waker-cgroup): each row of KEY-NAME, quantiles as it gives them (a slot's top)\n"
	       "# TYPE kstats_io_lat_by_key_seconds summary\n"
	       "kstats_io_lat_by_key_seconds{node=\"io.lat\",comm=\"sh\",ret=\"-11\",quantile=\"0.5\"} 0.000008191\n"
	       "kstats_io_lat_by_key_seconds{node=\"io.lat\",comm=\"sh\",ret=\"-11\",quantile=\"0.99\"} 0.000284414\n"
	       "kstats_io_lat_by_key_seconds_sum{node=\"io.lat\",comm=\"sh\",ret=\"-11\"} 0.000405317\n"
	       "kstats_io_lat_by_key_seconds_count{node=\"io.lat\",comm=\"sh\",ret=\"-11\"} 25\n"
	       "kstats_io_lat_by_key_seconds{node=\"io.lat\",comm=\"sh\",ret=\"-2\",quantile=\"0.5\"} 0.000008191\n"
	       "kstats_io_lat_by_key_seconds{node=\"io.lat\",comm=\"sh\",ret=\"-2\",quantile=\"0.99\"} 0.000016334\n"
	       "kstats_io_lat_by_key_seconds_sum{node=\"io.lat\",comm=\"sh\",ret=\"-2\"} 0.00013389\n"
	       "kstats_io_lat_by_key_seconds_count{node=\"io.lat\",comm=\"sh\",ret=\"-2\"} 25\n"
	       "kstats_io_lat_by_key_seconds{node=\"io.lat\",row=\"other\",quantile=\"0.5\"} NaN\n"
	       "kstats_io_lat_by_key_seconds{node=\"io.lat\",row=\"other\",quantile=\"0.99\"} NaN\n"
	       "kstats_io_lat_by_key_seconds_sum{node=\"io.lat\",row=\"other\"} 0\n"
	       "kstats_io_lat_by_key_seconds_count{node=\"io.lat\",row=\"other\"} 0\n"
	       "kstats_io_lat_by_key_seconds{node=\"io_lat\",cgroup=\"/system.slice/ssh.service\",comm=\"sshd\",waker_cgroup=\"/\",quantile=\"0.5\"} 0.000002047\n";

		CHECK(!strncmp(out, want, strlen(want)), "KEY-ret, io.lat and io_lat:\n%s", out);
	}
	CHECK(strstr(out, "\nkstats_io_lat_by_key_seconds_count{node=\"io_lat\",row=\"other\"} 0\n") != NULL,
	      "io_lat's other row: %s", out);
	free(out);
	ks_keynode_free(&r);
	ks_keynode_free(&k);

	/*
	 * Label values escaped (backslash, double quote, newline); argN:log2's
	 * label arg1_log2; two rows of one label set (a cgroup removed twice)
	 * merged: totals and counts added, the larger quantiles.
	 */
	CHECK(!ks_keynode_parse(
		"# key comm,pid,cgroup,arg1:log2 keys 8 rows 3 other 4 stacks 0 slowest 0 skipped 0 unit ns\n"
		"row total 3000 count 2 avg 1500 p50 2047 p99 2047 min 1000 max 2000\n"
		"\tcomm a\\134b\"c\\012d\n\tpid 7\n\tcgroup /x (gone)\n\targ1:log2 [4, 8)\n"
		"row total 1000 count 1 avg 1000 p50 1000 p99 1000 min 1000 max 1000\n"
		"\tcomm sh\n\tpid 8\n\tcgroup /x (gone)\n\targ1:log2 [4, 8)\n"
		"row total 500 count 1 avg 500 p50 511 p99 4095 min 500 max 500\n"
		"\tcomm sh\n\tpid 8\n\tcgroup /x (gone)\n\targ1:log2 [4, 8)\n"
		"other total 9000 count 4 avg 2250 p50 2047 p99 4095 min 100 max 4000\n",
		&s, err, sizeof(err)), "hand-written KEY-: %s", err);
	kp = &s;
	CAPTURE(out, ks_prom_write_keys(f, one, &kp, 1));
	EQ_STR(strchr(strchr(out, '\n') + 1, '\n') + 1,
	       "kstats_read_by_key_seconds{comm=\"a\\\\b\\\"c\\nd\",pid=\"7\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\",quantile=\"0.5\"} 0.000002047\n"
	       "kstats_read_by_key_seconds{comm=\"a\\\\b\\\"c\\nd\",pid=\"7\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\",quantile=\"0.99\"} 0.000002047\n"
	       "kstats_read_by_key_seconds_sum{comm=\"a\\\\b\\\"c\\nd\",pid=\"7\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\"} 0.000003\n"
	       "kstats_read_by_key_seconds_count{comm=\"a\\\\b\\\"c\\nd\",pid=\"7\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\"} 2\n"
	       "kstats_read_by_key_seconds{comm=\"sh\",pid=\"8\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\",quantile=\"0.5\"} 0.000001\n"
	       "kstats_read_by_key_seconds{comm=\"sh\",pid=\"8\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\",quantile=\"0.99\"} 0.000004095\n"
	       "kstats_read_by_key_seconds_sum{comm=\"sh\",pid=\"8\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\"} 0.0000015\n"
	       "kstats_read_by_key_seconds_count{comm=\"sh\",pid=\"8\",cgroup=\"/x (gone)\",arg1_log2=\"[4, 8)\"} 2\n"
	       "kstats_read_by_key_seconds{row=\"other\",quantile=\"0.5\"} 0.000002047\n"
	       "kstats_read_by_key_seconds{row=\"other\",quantile=\"0.99\"} 0.000004095\n"
	       "kstats_read_by_key_seconds_sum{row=\"other\"} 0.000009\n"
	       "kstats_read_by_key_seconds_count{row=\"other\"} 4\n");
	free(out);
	ks_keynode_free(&s);

	/* Stacks are no labels; a trace without key has no rows. */
	kload("keys/KEY-1", &e);
	CHECK(!ks_keynode_labels_ok(&e), "KEY-1 (kstack): no labels");
	ks_keynode_free(&e);
	kload("keys/KEY-offcpu", &e);
	CHECK(!ks_keynode_labels_ok(&e), "KEY-offcpu (waker-kstack): no labels");
	ks_keynode_free(&e);
	kload("keys/KEY-nokey", &e);
	CHECK(!ks_keynode_labels_ok(&e), "KEY-nokey: no labels");
	ks_keynode_free(&e);
}

/* The sum of a folded text's VALUEs (each line's last word). */
static uint64_t fold_sum(const char *text, int *lines)
{
	uint64_t sum = 0;
	const char *l, *sp;

	*lines = 0;
	for (l = text; *l; l = strchr(l, '\n') + 1) {
		const char *eol = strchr(l, '\n');

		for (sp = eol; sp > l && sp[-1] != ' '; sp--)
			;
		sum += strtoull(sp, NULL, 10);
		(*lines)++;
	}
	return sum;
}

static void test_key_parse(void)
{
	struct ks_keynode k;
	const struct ks_krow *r;

	/* KEY-1: key kstack:6, 3 rows, other empty, 4 slowest. */
	kload("keys/KEY-1", &k);
	EQ_STR(k.key, "kstack:6");
	EQ_U64(k.n_key, 1);
	CHECK(k.key_part[0] == KS_KP_KSTACK, "part 0 is kstack");
	EQ_U64(k.keys, 256);
	EQ_U64(k.rows, 3);
	EQ_U64(k.other, 0);
	EQ_U64(k.stacks, 3);
	EQ_U64(k.slowest, 4);
	EQ_U64(k.skipped, 0);
	EQ_STR(k.unit, "ns");
	EQ_U64(k.n_rows, 3);
	r = &k.row[0];
	EQ_U64(r->st.total, 2572270);
	EQ_U64(r->st.count, 5);
	EQ_U64(r->st.avg, 514454);
	EQ_U64(r->st.p50, 32767);
	EQ_U64(r->st.p99, 2398376);
	EQ_U64(r->st.min, 19269);
	EQ_U64(r->st.max, 2398376);
	EQ_U64(r->n_parts, 1);
	EQ_U64(r->part[0].n_frames, 6);
	EQ_STR(k.frames[r->part[0].frame0], "kst_target_delay+0x9/0x40 [kstats_test_target]");
	EQ_STR(k.frames[r->part[0].frame0 + 5], "ksys_write+0x6f/0xf0");
	r = &k.row[2];
	EQ_U64(r->st.total, 120694);
	EQ_U64(r->st.count, 1);
	EQ_STR(k.frames[r->part[0].frame0 + 5], "do_syscall_64+0x87/0x1b0");
	CHECK(k.has_other, "other line");
	EQ_U64(k.other_st.count, 0);
	EQ_U64(k.n_slow, 4);
	EQ_U64(k.slow[0].value, 2398376);
	EQ_U64(k.slow[0].pid, 143);
	EQ_STR(k.slow[0].comm, "sh");
	EQ_U64(k.slow[0].cpu, 0);
	EQ_U64(k.slow[0].time, 3619940753ULL);
	EQ_U64(k.slow[0].n_parts, 1);
	EQ_U64(k.slow[3].value, 80831);
	EQ_STR(k.frames[k.slow[3].part[0].frame0 + 1], "kst_path_2+0xe/0x20 [kstats_test_target]");
	/* 3 rows of 6 frames, 4 slowest of 6. */
	EQ_U64(k.n_frames, 42);
	ks_keynode_free(&k);

	/* KEY-2: kstack:4,comm with 6 samples in other; a slowest not captured. */
	kload("keys/KEY-2", &k);
	EQ_U64(k.n_key, 2);
	CHECK(k.key_part[1] == KS_KP_COMM, "part 1 is comm");
	EQ_U64(k.n_rows, 2);
	EQ_U64(k.row[1].n_parts, 2);
	EQ_STR(k.row[1].part[1].comm, "sh");
	EQ_U64(k.other, 6);
	EQ_U64(k.other_st.count, 6);
	EQ_U64(k.other_st.total, 242679);
	EQ_U64(k.n_slow, 8);
	EQ_U64(k.slow[7].value, 38140);
	EQ_U64(k.slow[7].part[0].n_frames, 1);
	EQ_STR(k.frames[k.slow[7].part[0].frame0], "[not captured]");
	ks_keynode_free(&k);

	/* KEY-3: kstack:3,end-kstack:3: two stacks per row and per slowest. */
	kload("keys/KEY-3", &k);
	EQ_U64(k.n_rows, 4);
	EQ_U64(k.row[3].n_parts, 2);
	CHECK(k.row[3].part[1].part == KS_KP_END_KSTACK, "end-kstack second");
	EQ_STR(k.frames[k.row[3].part[1].frame0 + 1], "kst_end_site_1+0xe/0x20 [kstats_test_target]");
	EQ_U64(k.n_slow, 8);
	EQ_U64(k.slow[7].value, 17595);
	EQ_U64(k.slow[7].n_parts, 2);
	ks_keynode_free(&k);

	/* KEY-ret, KEY-log2: value parts; folded, they are frames. */
	kload("keys/KEY-ret", &k);
	EQ_U64(k.n_key, 2);
	CHECK(k.key_part[1] == KS_KP_VALUE, "part 1 is a value");
	EQ_U64(k.n_rows, 2);
	EQ_STR(k.row[0].part[1].name, "ret");
	EQ_STR(k.row[0].part[1].text, "-11");
	EQ_STR(k.row[1].part[1].text, "-2");
	ks_keynode_free(&k);
	kload("keys/KEY-log2", &k);
	EQ_STR(k.key, "arg1:log2");
	CHECK(k.key_part[0] == KS_KP_VALUE, "part 0 is a value");
	EQ_U64(k.n_rows, 9);
	EQ_STR(k.row[1].part[0].name, "arg1:log2");
	EQ_STR(k.row[1].part[0].text, "[65536, 131072)");
	ks_keynode_free(&k);
	kload("keys/KEY-typedlog2", &k);
	EQ_STR(k.key, "ret:s32:log2");
	EQ_U64(k.n_rows, 2);
	EQ_STR(k.row[0].part[0].name, "ret:log2");
	EQ_STR(k.row[0].part[0].text, "[-2147483648, 0)");
	ks_keynode_free(&k);

	/* Hand-written: every non-stack part, escapes, a key order of its own. */
	kload("keys/KEY-parts", &k);
	EQ_U64(k.n_key, 5);
	CHECK(k.key_part[0] == KS_KP_CPU && k.key_part[2] == KS_KP_END_KSTACK &&
	      k.key_part[4] == KS_KP_PID, "key order as written");
	EQ_U64(k.row[0].part[0].num, 1);
	EQ_STR(k.row[0].part[1].comm, "my task;x");
	EQ_STR(k.row[1].part[1].comm, "a\\b\tc");
	EQ_U64(k.row[0].part[3].num, 200);
	EQ_U64(k.row[0].part[4].num, 201);
	EQ_STR(k.slow[0].comm, "my task;x");
	ks_keynode_free(&k);

	/* Hand-written: cgroup parts, a removed cgroup's two forms, escapes. */
	kload("keys/KEY-cgroup", &k);
	EQ_U64(k.n_key, 3);
	CHECK(k.key_part[0] == KS_KP_CGROUP && k.key_part[2] == KS_KP_WAKER_CGROUP,
	      "cgroup parts in key order");
	EQ_U64(k.n_rows, 3);
	EQ_STR(k.row[0].part[0].path, "/system.slice/ssh.service");
	EQ_STR(k.row[0].part[2].path, "/");
	EQ_STR(k.row[1].part[0].path, "/a b;c (gone)");
	EQ_STR(k.row[2].part[0].path, "[id:4242] (gone)");
	ks_keynode_free(&k);

	/* No key: no rows, no other line, slowest lines without stacks. */
	kload("keys/KEY-nokey", &k);
	EQ_STR(k.key, "-");
	EQ_U64(k.n_key, 0);
	EQ_U64(k.n_rows, 0);
	CHECK(!k.has_other, "no other line");
	EQ_U64(k.n_slow, 2);
	EQ_U64(k.slow[1].cpu, 1);
	ks_keynode_free(&k);

	/* A parameter by name and a field through a pointer: value parts. */
	{
		char text[] = "# key comm,fwnode->secondary->flags:log2 keys 256 rows 1 other 0 stacks 0 slowest 0 skipped 0 unit ns\n"
			"row total 30 count 2 avg 15 p50 15 p99 15 min 10 max 20\n"
			"\tcomm sh\n\tfwnode->secondary->flags:log2 [4, 8)\n"
			"other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n";
		char err[160] = "";

		CHECK(ks_keynode_parse(text, &k, err, sizeof(err)) == 0, "named value parts parse: %s", err);
		EQ_U64(k.n_rows, 1);
		EQ_STR(k.row[0].part[0].comm, "sh");
		EQ_STR(k.row[0].part[1].name, "fwnode->secondary->flags:log2");
		ks_keynode_free(&k);
	}

	/* Refusals: KEY-4 and KEY-5 were cut by head; and texts off the format. */
	{
		static const char *const bad[] = {
			"",
			"# name read\n",
			"# key kstack keys 1 rows 0 other 0\n",		/* no other line */
			/* not a part, nor a parameter's name (stack would be one) */
			"# key 9stack keys 1 rows 0\nother total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			"# key comm,comm keys 1 rows 0\nother total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			"# key comm:3 keys 1 rows 0\nother total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			/* a row without its comm part */
			"# key comm keys 1 rows 1\nrow total 1 count 1 avg 1 p50 1 p99 1 min 1 max 1\n"
			"other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			/* a row whose parts are not the key's order */
			"# key comm,pid keys 1 rows 1\nrow total 1 count 1 avg 1 p50 1 p99 1 min 1 max 1\n"
			"\tpid 1\n\tcomm sh\nother total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			/* a frame under comm */
			"# key comm keys 1 rows 1\nrow total 1 count 1 avg 1 p50 1 p99 1 min 1 max 1\n"
			"\tcomm sh\n\t\tvfs_read+0x1/0x2\nother total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			/* a row without its count */
			"# key pid keys 1 rows 1\nrow total 1 avg 1 p50 1 p99 1 min 1 max 1\n"
			"\tpid 1\nother total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			/* a row after other */
			"# key pid keys 1 rows 1\nother total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n"
			"row total 1 count 1 avg 1 p50 1 p99 1 min 1 max 1\n\tpid 1\n",
		};
		char err[160];
		char *t;
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK(ks_keynode_parse(bad[i], &k, err, sizeof(err)) == -1,
			      "bad KEY- text %zu refused", i);
		t = slurp("keys/KEY-4");
		CHECK(ks_keynode_parse(t, &k, err, sizeof(err)) == -1, "KEY-4 (cut) refused");
		CHECK(strstr(err, "6 row lines for rows 8") != NULL, "KEY-4: %s", err);
		free(t);
		t = slurp("keys/KEY-5");
		CHECK(ks_keynode_parse(t, &k, err, sizeof(err)) == -1, "KEY-5 (cut) refused");
		free(t);
	}
}

static void test_fold_frame(void)
{
	char b[256];

	ks_fold_frame(b, sizeof(b), "kst_target_delay+0x9/0x40 [kstats_test_target]");
	EQ_STR(b, "kst_target_delay [kstats_test_target]");
	ks_fold_frame(b, sizeof(b), "vfs_write+0xf8/0x450");
	EQ_STR(b, "vfs_write");
	ks_fold_frame(b, sizeof(b), "my_fn.cold+0x1a/0x2f [my_mod]");
	EQ_STR(b, "my_fn.cold [my_mod]");
	/* Not an offset: kept. */
	ks_fold_frame(b, sizeof(b), "0xffffffffc0a01234");
	EQ_STR(b, "0xffffffffc0a01234");
	ks_fold_frame(b, sizeof(b), "[not captured]");
	EQ_STR(b, "[not captured]");
	ks_fold_frame(b, sizeof(b), "f+0x1");
	EQ_STR(b, "f+0x1");
	ks_fold_frame(b, sizeof(b), "f+0xzz/0x2");
	EQ_STR(b, "f+0xzz/0x2");
	/* ';' and control characters would break the line's grammar. */
	ks_fold_frame(b, sizeof(b), "a;b+0x1/0x2 [m;n]");
	EQ_STR(b, "a_b [m_n]");
	ks_fold_frame(b, sizeof(b), "x\ny\tz");
	EQ_STR(b, "x_y_z");
	/* A demangled C++ name holds blanks, and may hold a '+'. */
	ks_fold_frame(b, sizeof(b), "ns::f(int, char const*)+0x1c/0x40");
	EQ_STR(b, "ns::f(int, char const*)");
	ks_fold_frame(b, sizeof(b), "V::operator+(V const&)+0x8/0x20");
	EQ_STR(b, "V::operator+(V const&)");
	ks_fold_frame(b, sizeof(b), "libc.so.6+0x2a1c0");
	EQ_STR(b, "libc.so.6+0x2a1c0");
	ks_fold_frame(b, sizeof(b), "+0x1/0x2");
	EQ_STR(b, "+0x1/0x2");
}

/* Occurrences of @needle in @hay. */
static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay += strlen(needle))
		n++;
	return n;
}

/* Frames tell their kind by name and level: the palette follows. */
/* std::terminate(), in libstdc++ (linked for usyms.c's demangler). */
extern void _ZSt9terminatev(void);

/*
 * User frames named in a live process, this one: a C++ symbol demangled
 * (the pc: looked up at its address), a C one (a return address: looked
 * up a byte before), the start given as /proc/self/stat says.
 */
static void test_usyms(void)
{
	char text[512], err[160];
	struct ks_keynode k;
	const char *name;

	snprintf(text, sizeof(text),
		 "# key ustack:4 keys 8 rows 1 other 0 stacks 1 slowest 0 skipped 0 unit ns\n"
		 "row total 10 count 1 avg 10 p50 10 p99 10 min 10 max 10\n"
		 "\tustack tgid %d\n\t\t0x%lx\n\t\t0x%lx\n"
		 "other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
		 (int)getpid(), (unsigned long)(uintptr_t)&_ZSt9terminatev,
		 (unsigned long)(uintptr_t)&test_usyms + 1);
	if (ks_keynode_parse(text, &k, err, sizeof(err))) {
		CHECK(0, err);
		return;
	}
	EQ_U64(ks_name_user_frames(&k), 0);
	EQ_U64(k.row[0].part[0].n_frames, 2);
	name = k.frames[k.row[0].part[0].frame0];
	CHECK(!strncmp(name, "std::terminate()+0x0/0x", 23), name);
	name = k.frames[k.row[0].part[0].frame0 + 1];
	CHECK(!strncmp(name, "test_usyms+0x1/0x", 17), name);
	ks_keynode_free(&k);

	/* A JIT's frame, from /tmp/perf-PID.map: its size too, so folding drops both. */
	{
		void *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char map[64], folded[128];
		FILE *m;

		snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
		m = fopen(map, "we");
		if (jit == MAP_FAILED || !m) {
			CHECK(0, "mmap or %s", map);
			return;
		}
		fprintf(m, "%lx 100 Lcom/foo/Bar;::run(I)V\n", (unsigned long)jit);
		fclose(m);
		snprintf(text, sizeof(text),
			 "# key ustack:4 keys 8 rows 1 other 0 stacks 1 slowest 0 skipped 0 unit ns\n"
			 "row total 10 count 1 avg 10 p50 10 p99 10 min 10 max 10\n"
			 "\tustack tgid %d\n\t\t0x%lx\n"
			 "other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n",
			 (int)getpid(), (unsigned long)jit + 0x14);
		if (!ks_keynode_parse(text, &k, err, sizeof(err))) {
			EQ_U64(ks_name_user_frames(&k), 0);
			name = k.frames[k.row[0].part[0].frame0];
			EQ_STR(name, "Lcom/foo/Bar;::run(I)V+0x14/0x100");
			ks_fold_frame(folded, sizeof(folded), name);
			EQ_STR(folded, "Lcom/foo/Bar_::run(I)V");
			ks_keynode_free(&k);
		} else {
			CHECK(0, err);
		}
		unlink(map);
		munmap(jit, 4096);
	}
}

static void test_flame_kind(void)
{
	EQ_U64(ks_flame_kind("vfs_read", 0, false), KS_FK_KERNEL);
	EQ_U64(ks_flame_kind("kst_write [kstats_test_target]", 0, false), KS_FK_KERNEL);
	EQ_U64(ks_flame_kind("--", 0, false), KS_FK_SEP);
	EQ_U64(ks_flame_kind("--", 1, false), KS_FK_SEP);
	EQ_U64(ks_flame_kind("try_to_wake_up", 1, false), KS_FK_CHAIN);
	EQ_U64(ks_flame_kind("try_to_wake_up", 2, false), KS_FK_CHAIN);
	EQ_U64(ks_flame_kind("[other]", 0, false), KS_FK_OTHER);
	/* Marked: "_[k]" frames are the kernel's, the others the user's. */
	EQ_U64(ks_flame_kind("vfs_read_[k]", 0, true), KS_FK_KERNEL);
	EQ_U64(ks_flame_kind("main", 0, true), KS_FK_USER);
	EQ_U64(ks_flame_kind("_[k]", 0, true), KS_FK_USER);
	EQ_U64(ks_flame_kind("--", 0, true), KS_FK_SEP);
	EQ_U64(ks_flame_kind("writer", 1, true), KS_FK_CHAIN);
}

/*
 * The SVG of a small folded text, by hand: "all" 105, a 65 (b 35: c 15,
 * d 20; e 30), f 40: seven frames, 1180 px for 105, widths and left
 * edges in proportion, children in name order from their parent's edge.
 */
static void test_flame_svg(void)
{
	static const char small[] =
		"a;b;c 10\na;b;d 20\n\na;e 30\nf 40\na;b;c 5\n";
	struct ks_flame_opts o = { .title = "t", .count = true, .minwidth = KS_FLAME_MINWIDTH };
	char err[160], *out = NULL;
	int n;

	CAPTURE(out, n = ks_flame_svg(f, small, &o, err, sizeof(err)));
	EQ_U64(n, 7);
	EQ_U64(count_str(out, "<g class="), 7);
	CHECK(strstr(out, "<title>all (105 samples, 100.00%)</title>"
		     "<rect x=\"10.00\" y=\"85\" width=\"1180.00\"") != NULL, "root: %s", out);
	/* c is a;b;c twice: 15 of 105, 168.57 px at the left edge. */
	CHECK(strstr(out, "<title>c (15 samples, 14.29%)</title>"
		     "<rect x=\"10.00\" y=\"37\" width=\"168.57\"") != NULL, "c: %s", out);
	CHECK(strstr(out, "<title>d (20 samples, 19.05%)</title>"
		     "<rect x=\"178.57\" y=\"37\" width=\"224.76\"") != NULL, "d: %s", out);
	CHECK(strstr(out, "<title>f (40 samples, 38.10%)</title>"
		     "<rect x=\"740.48\" y=\"69\" width=\"449.52\"") != NULL, "f: %s", out);
	CHECK(strstr(out, "<script type=\"text/ecmascript\"><![CDATA[") != NULL, "has its script");
	CHECK(!strstr(out, "http://www.w3.org/1999/xlink") && !strstr(out, "href"),
	      "refers to nothing outside");
	free(out);

	/* Times: exact, in a unit that fits; the subtitle as given. */
	o.count = false;
	o.subtitle = "sub";
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "x;y 1500\nz 500\n", &o, err, sizeof(err)));
	EQ_U64(n, 4);
	CHECK(strstr(out, "<title>y (1.5 us, 75.00%)</title>") != NULL, "1500 ns: %s", out);
	CHECK(strstr(out, "<title>all (2 us, 100.00%)</title>") != NULL, "2000 ns: %s", out);
	CHECK(strstr(out, ">sub</text>") != NULL, "subtitle");
	free(out);
	/* Marked kernel frames: orange, the mark not shown; the rest red. */
	o.ns_per_value = 0;
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "main;f;read_[k];schedule_[k] 5\n", &o, err, sizeof(err)));
	EQ_U64(n, 5);
	EQ_U64(count_str(out, "<g class=\"u\">"), 2);
	EQ_U64(count_str(out, "<g class=\"k\">"), 2);
	CHECK(strstr(out, "<title>read (5 ns, 100.00%)</title>") && !strstr(out, "_[k]"),
	      "marks dropped: %s", out);
	free(out);
	/* --unit us: another tool's folded times (offcputime -f). */
	o.ns_per_value = 1000;
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "x;y 1500\nz 500\n", &o, err, sizeof(err)));
	CHECK(strstr(out, "<title>y (1.5 ms, 75.00%)</title>") != NULL, "1500 us: %s", out);
	free(out);
	o.ns_per_value = 0;

	/* Hostile names: escaped, control bytes and broken UTF-8 as \xHH. */
	o.subtitle = NULL;
	o.title = "<&\"'>";
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "<b>&amp\"q'\x01\t\x7f;\xff\xc3\xa9\xed\xa0\x80 1\n", &o,
				      err, sizeof(err)));
	EQ_U64(n, 3);
	CHECK(strstr(out, "<title>&lt;b&gt;&amp;amp&quot;q&apos;\\x01\\x09\\x7f (") != NULL,
	      "escaped: %s", out);
	CHECK(strstr(out, "<title>\\xff\xc3\xa9\\xed\\xa0\\x80 (") != NULL, "UTF-8: %s", out);
	CHECK(strstr(out, ">&lt;&amp;&quot;&apos;&gt;</text>") != NULL, "title escaped");
	free(out);

	/* Off-wake: the waker side after "--" is its own class, "--" grey. */
	o.title = NULL;
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "dd;schedule;--;ttwu;waker;--;ttwu2 5\n", &o,
				      err, sizeof(err)));
	EQ_U64(n, 8);
	EQ_U64(count_str(out, "<g class=\"k\">"), 2);
	EQ_U64(count_str(out, "<g class=\"sep\">"), 2);
	EQ_U64(count_str(out, "<g class=\"w1\">"), 2);
	EQ_U64(count_str(out, "<g class=\"w2\">"), 1);
	EQ_U64(count_str(out, "fill=\"rgb(160,160,160)\""), 2);
	free(out);

	/* Below min width: left out with what stands on it. 1 in 100000. */
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "big;a 99999\nsmall;b;c 1\n", &o, err, sizeof(err)));
	EQ_U64(n, 3);
	CHECK(!strstr(out, "small"), "small left out");
	free(out);
	o.minwidth = 0;
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "big;a 99999\nsmall;b;c 1\n", &o, err, sizeof(err)));
	EQ_U64(n, 6);
	free(out);
	o.minwidth = KS_FLAME_MINWIDTH;

	/* Nothing to draw: a note, 0 frames. */
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "", &o, err, sizeof(err)));
	EQ_U64(n, 0);
	CHECK(strstr(out, "No stacks") && strstr(out, "</svg>"), "empty: %s", out);
	/* No frames: search, its prompt and zoom return before frames[0]. */
	EQ_U64(count_str(out, "if (!frames.length) return"), 3);
	/* An empty ?s= term clears the search; a malformed one is caught. */
	CHECK(strstr(out, "if (term === '') { resetsearch(); return null; }") &&
	      strstr(out, "try { q = decodeURIComponent(q[1]); } catch (e)"), "?s=: %s", out);
	free(out);

	/* Off the format: refused, with the line. */
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "a;b 1\na;b\n", &o, err, sizeof(err)));
	EQ_U64(n, -1);
	EQ_STR(err, "line 2: not \"frame;...;frame VALUE\"");
	free(out);
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "a;b 1.5\n", &o, err, sizeof(err)));
	EQ_U64(n, -1);
	EQ_STR(err, "line 1: VALUE \"1.5\" is not a decimal integer");
	free(out);
	out = NULL;
	CAPTURE(out, n = ks_flame_svg(f, "a 18446744073709551615\nb 1\n", &o, err, sizeof(err)));
	EQ_U64(n, -1);
	EQ_STR(err, "the values add up to 2^64 or more");
	free(out);
}

/* Folded lines derived by hand from the fixtures (reversed, offsets cut). */
static void test_fold(void)
{
	static const char key1[] =
		"ksys_write;vfs_write;full_proxy_write;kst_write [kstats_test_target];"
		"kst_path_1 [kstats_test_target];kst_target_delay [kstats_test_target] 2572270\n"
		"ksys_write;vfs_write;full_proxy_write;kst_write [kstats_test_target];"
		"kst_path_2 [kstats_test_target];kst_target_delay [kstats_test_target] 212011\n"
		"do_syscall_64;ksys_write;vfs_write;full_proxy_write;kst_write [kstats_test_target];"
		"kst_target_delay [kstats_test_target] 120694\n";
#define M " [kstats_test_target]"
#define PAIR(b, e) "kst_write" M ";kst_begin_site_" #b M ";kst_section_begin" M \
	";--;kst_write" M ";kst_end_site_" #e M ";kst_section_end" M
	static const char key3_count[] =
		PAIR(1, 1) " 1\n" PAIR(1, 2) " 2\n" PAIR(2, 2) " 4\n" PAIR(2, 1) " 3\n";
	static const char key2[] =
		"sh;full_proxy_write;kst_write" M ";kst_path_1" M ";kst_target_delay" M " 549897\n"
		"sh;full_proxy_write;kst_write" M ";kst_path_2" M ";kst_target_delay" M " 93118\n"
		"[other] 242679\n";
#undef PAIR
#undef M
	static const char parts[] =
		"cpu 1;my task_x;tgid 200;pid 201;--;0xffffffffc0a01234;__schedule 3000\n"
		"cpu 0;a\\b_c;tgid 1;pid 1;--;my_fn.cold [my_mod];__schedule 500\n"
		"[other] 70\n";
	static const char parts_count[] =
		"cpu 1;my task_x;tgid 200;pid 201;--;0xffffffffc0a01234;__schedule 2\n"
		"cpu 0;a\\b_c;tgid 1;pid 1;--;my_fn.cold [my_mod];__schedule 1\n"
		"[other] 1\n";
	static const char offcpu[] =
		"dd;pipe_read;schedule;__schedule;--;try_to_wake_up;__wake_up_sync_key;"
		"pipe_write;my dd;waker-pid 77 9000\n"
		"kworker/0:1;worker_thread;schedule;__schedule;--;try_to_wake_up;kick_pool;"
		"__queue_work;swapper/0;waker-pid 0 600\n"
		"[other] 40\n";
	struct ks_keynode k;
	char *out;
	int lines, n;

	kload("keys/KEY-1", &k);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, false));
	EQ_U64(n, 3);
	EQ_STR(out, key1);
	/* 2572270 + 212011 + 120694 */
	EQ_U64(fold_sum(out, &lines), 2904975);
	EQ_U64(lines, 3);
	free(out);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, true));
	EQ_U64(fold_sum(out, &lines), 5 + 3 + 1);
	free(out);
	ks_keynode_free(&k);

	kload("keys/KEY-2", &k);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, false));
	EQ_U64(n, 3);
	EQ_STR(out, key2);
	EQ_U64(fold_sum(out, &lines), 549897 + 93118 + 242679);
	free(out);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, true));
	EQ_U64(fold_sum(out, &lines), 2 + 2 + 6);
	free(out);
	ks_keynode_free(&k);

	kload("keys/KEY-3", &k);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, false));
	/* 731287 + 282351 + 70019 + 65523 */
	EQ_U64(fold_sum(out, &lines), 1149180);
	EQ_U64(lines, 4);
	free(out);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, true));
	EQ_STR(out, key3_count);
	EQ_U64(fold_sum(out, &lines), 1 + 2 + 4 + 3);
	free(out);
	ks_keynode_free(&k);

	/* A cgroup is a frame ("cgroup PATH", ';' cleaned), the waker's last. */
	kload("keys/KEY-cgroup", &k);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, false));
	EQ_STR(out, "cgroup /system.slice/ssh.service;sshd;--;waker-cgroup / 4000\n"
		"cgroup /a b_c (gone);kst;--;waker-cgroup /a b_c (gone) 900\n"
		"cgroup [id:4242] (gone);kst;--;waker-cgroup [id:1] 50\n");
	free(out);
	ks_keynode_free(&k);

	kload("keys/KEY-parts", &k);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, false));
	EQ_STR(out, parts);
	EQ_U64(fold_sum(out, &lines), 3000 + 500 + 70);
	free(out);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, true));
	EQ_STR(out, parts_count);
	free(out);
	ks_keynode_free(&k);

	/*
	 * waker-chain: per level "--", its frames leaf first, its comm or
	 * marker (an interrupt's frames, then "[interrupt]").
	 */
	kload("keys/KEY-chain", &k);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, false));
	EQ_U64(n, 4);
	EQ_STR(out, "pipe_read;schedule;__schedule;--;try_to_wake_up;pipe_write;dd;--;"
		"try_to_wake_up;blk_mq_end_request;kworker/u4:1;--;try_to_wake_up;"
		"hrtimer_wakeup;[interrupt] 30000\n"
		"__schedule;--;try_to_wake_up;my task_x;--;[running] 5000\n"
		"__schedule;--;try_to_wake_up;kworker/0:1;--;[kernel thread] 700\n"
		"[other] 40\n");
	free(out);
	/* 3 + 2 + 2 levels of rows, 2 of the slowest sample. */
	EQ_U64(k.n_levels, 9);
	CHECK(k.levels[0].level == 1 && k.levels[0].has_blocked &&
	      k.levels[0].blocked_ns == 12000 && k.levels[0].pid == 77 &&
	      !strcmp(k.levels[0].comm, "dd") && k.levels[0].n_frames == 2,
	      "KEY-chain: level 1 is dd, pid 77, 12000 ns, 2 frames");
	CHECK(k.levels[2].level == 3 && !k.levels[2].comm &&
	      !strcmp(k.levels[2].marker, "[interrupt]") && k.levels[2].n_frames == 2,
	      "KEY-chain: level 3 is [interrupt], with its frames");
	CHECK(k.levels[3].comm && !k.levels[3].has_blocked &&
	      !strcmp(k.levels[4].marker, "[running]"),
	      "KEY-chain: a waker without a record: no blocked-ns, then [running]");
	CHECK(!strcmp(k.levels[6].marker, "[kernel thread]") && !k.levels[6].n_frames,
	      "KEY-chain: a two-word marker");
	CHECK(!k.levels[7].has_blocked && !strcmp(k.levels[8].marker, "[not captured]"),
	      "KEY-chain: a slowest sample's levels, no blocked-ns");
	CHECK(!ks_keynode_labels_ok(&k), "KEY-chain: no labels");
	ks_keynode_free(&k);

	/* Value parts are frames after comm: "ret -11", "arg1:log2 [LO, HI)". */
	kload("keys/KEY-ret", &k);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, true));
	EQ_STR(out, "sh;ret -11 25\nsh;ret -2 25\n");
	free(out);
	ks_keynode_free(&k);
	kload("keys/KEY-log2", &k);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, true));
	EQ_U64(n, 9);
	CHECK(strstr(out, "arg1:log2 [65536, 131072) 34\n") != NULL, "a log2 row folds to one frame");
	free(out);
	ks_keynode_free(&k);

	/*
	 * Off-CPU: comm, the blocked stack root first, then offwaketime -f's
	 * waker side: "--", the waker's stack leaf first, its comm, its pid.
	 */
	kload("keys/KEY-offcpu", &k);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, false));
	EQ_U64(n, 3);
	EQ_STR(out, offcpu);
	EQ_U64(fold_sum(out, &lines), 9000 + 600 + 40);
	free(out);
	EQ_U64(k.n_slow, 1);
	EQ_U64(k.slow[0].n_parts, 2);
	EQ_U64(k.slow[0].part[1].part, KS_KP_WAKER_KSTACK);
	EQ_U64(k.slow[0].part[1].n_frames, 3);
	ks_keynode_free(&k);

	/*
	 * User stacks (a guest's KEY-, not named: that is usyms.c's, in
	 * the process): main's frames under the kernel's, as offcputime
	 * -f; the waker's user frames leaf first after its side's "--";
	 * a waker without user frames is its note.
	 */
	kload("keys/KEY-ustack", &k);
	EQ_U64(k.n_key, 3);
	CHECK(k.key_part[1] == KS_KP_USTACK && k.key_part[2] == KS_KP_WAKER_USTACK,
	      "ustack, waker-ustack parts");
	EQ_U64(k.row[0].part[1].num, 160);
	EQ_U64(k.row[0].part[1].n_frames, 5);
	EQ_STR(k.frames[k.row[0].part[1].frame0], "0x43c07c");
	CHECK(k.row[1].part[2].note && !strcmp(k.row[1].part[2].note, "[interrupt]"),
	      "a timer's wakeup: [interrupt]");
	EQ_U64(k.row[1].part[2].n_frames, 0);
	EQ_U64(k.slow[0].n_parts, 3);
	CHECK(k.slow[0].part[1].part == KS_KP_USTACK && k.slow[0].part[1].num == 160,
	      "a slowest sample's ustack and its tgid");
	EQ_U64(k.row[0].part[1].start, 4000000000);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, true));
	EQ_U64(n, 2);
	EQ_STR(out, "0x401c04;0x40185e;0x40173e;0x401722;0x43c07c;"
		    "entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;vfs_read;"
		    "pipe_read;schedule;__schedule;--;0x43c11f;0x40169d;0x4016eb;0x41852c 8\n"
		    "0x41852c;0x4016e6;0x43b553;0x466d35;"
		    "entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_clock_nanosleep;"
		    "common_nsleep;hrtimer_nanosleep;do_nanosleep;schedule;__schedule;"
		    "--;[interrupt] 8\n");
	free(out);
	/* Marked for the SVG: the kernel frames, the waker's too, "_[k]". */
	CHECK(ks_keynode_has_user(&k), "a ustack key has user frames");
	out = NULL;
	CAPTURE(out, n = ks_fold_marked(f, &k, true, true));
	EQ_U64(n, 2);
	CHECK(strstr(out, "0x43c07c;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];") &&
	      strstr(out, "__schedule_[k];--;0x43c11f;"), "%s", out);
	EQ_U64(count_str(out, "_[k]"), 7 + 8);
	free(out);
	ks_keynode_free(&k);

	/*
	 * Rows that fold to one line (ksys_read+0x6f and +0xbb) print it
	 * once, with their sum, where the first stood; a frame of another
	 * module keeps its line.
	 */
	kload("keys/KEY-merge", &k);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, false));
	EQ_U64(n, 2);
	EQ_STR(out, "do_syscall_64;ksys_read;vfs_read 5700\n"
		    "do_syscall_64;ksys_read [other_mod];vfs_read 3000\n");
	free(out);
	out = NULL;
	CAPTURE(out, ks_fold(f, &k, true));
	EQ_STR(out, "do_syscall_64;ksys_read;vfs_read 6\n"
		    "do_syscall_64;ksys_read [other_mod];vfs_read 2\n");
	free(out);
	ks_keynode_free(&k);

	/* No key: refused, nothing written. */
	kload("keys/KEY-nokey", &k);
	out = NULL;
	CAPTURE(out, n = ks_fold(f, &k, false));
	EQ_U64(n, -1);
	EQ_STR(out, "");
	free(out);
	ks_keynode_free(&k);
}

/*
 * The kstats binary beside unit_test, on a --root of symlinks to the
 * captured nodes: listings skip KEY-NAME; flame's output and exit codes.
 */
static char kstats_bin[4096], keyroot[64];

/* Run kstats with @args; its stdout+stderr in *@out; its exit status. */
static int run_kstats(const char *args, char **out)
{
	char cmd[8192];
	size_t len = 0, cap = 4096;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' --root '%s' %s 2>&1", kstats_bin, keyroot, args);
	*out = calloc(1, cap);
	p = popen(cmd, "r");
	if (!p || !*out)
		exit(2);
	for (;;) {
		size_t r = fread(*out + len, 1, cap - 1 - len, p);

		len += r;
		(*out)[len] = 0;
		if (!r)
			break;
		if (len + 1 == cap) {
			*out = realloc(*out, cap *= 2);
			if (!*out)
				exit(2);
		}
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void link_node(const char *target_rel, const char *name)
{
	char t[4096], l[4096], *abs;

	snprintf(t, sizeof(t), "%s/%s", datadir, target_rel);
	abs = realpath(t, NULL);
	snprintf(l, sizeof(l), "%s/%s", keyroot, name);
	if (!abs || symlink(abs, l)) {
		perror(l);
		exit(2);
	}
	free(abs);
}

/* The bytes kstats wrote to the stand-in device @path; "" if none. */
static char *dev_bytes(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 4096);

	if (!s)
		exit(2);
	if (f) {
		if (!fread(s, 1, 4095, f) && ferror(f))
			exit(2);
		fclose(f);
	}
	return s;
}

/*
 * kstats --root keyroot @args with a FIFO at @devpath standing in for the
 * device, the shell holding it open so that one cat reads every command:
 * the bytes written in *@bytes; kstats' exit status. cat reads a read end
 * the shell opened (fd 4) rather than opening the FIFO itself: a cat that
 * opened it only after the shell had closed its end (kstats refusing at
 * once, on a loaded host) would wait for a writer forever.
 */
static int run_on_fifo_out(const char *devpath, const char *args, char **bytes, char **stdout_text)
{
	char cmd[16384], out[256], so[256];
	int rc;

	snprintf(so, sizeof(so), "%s.stdout", devpath);
	snprintf(cmd, sizeof(cmd),
		 "rm -f '%s' && mkfifo '%s' && exec 3<>'%s' 4<'%s' && { cat <&4 3>&- 4<&- >'%s.out' & } && "
		 "exec 4<&- && timeout 20 '%s' --root '%s' %s >'%s' 2>&1; "
		 "rc=$?; exec 3>&-; wait; exit $rc",
		 devpath, devpath, devpath, devpath, devpath, kstats_bin, keyroot, args, so);
	rc = system(cmd);
	snprintf(out, sizeof(out), "%s.out", devpath);
	*bytes = dev_bytes(out);
	unlink(out);
	if (stdout_text) {
		*stdout_text = NULL;
		if (read_all(so, stdout_text))
			*stdout_text = strdup("");
	}
	unlink(so);
	unlink(devpath);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int run_on_fifo(const char *devpath, const char *args, char **bytes)
{
	return run_on_fifo_out(devpath, args, bytes, NULL);
}

/*
 * Commands go to the device whenever it exists: each its one write of
 * _control's line (node commands as "WORD NAME"), nothing to --root. A
 * regular file stands in for it, emptied before each command.
 */
static void test_dev(void)
{
	static const struct {
		const char *args, *bytes;
	} cmds[] = {
		{ "trace t1 start vfs_read end vfs_write key kstack:4,comm",
		  "trace t1 start vfs_read end vfs_write key kstack:4,comm\n" },
		{ "trace t2 comm 'my prog'", "trace t2 comm my\\040prog\n" },
		{ "remove t1", "remove t1\n" },
		{ "start read", "start read\n" },
		{ "stop GAP-read", "stop GAP-read\n" },
		{ "reset nosuch", "reset nosuch\n" },
	};
	char devpath[128], cmd[16384], svg[128], *out, *got;
	size_t i;
	int rc;

	snprintf(devpath, sizeof(devpath), "%s/dev", keyroot);
	setenv("KSTATS_DEV", devpath, 1);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		FILE *f = fopen(devpath, "w");

		if (!f)
			exit(2);
		fclose(f);
		rc = run_kstats(cmds[i].args, &out);
		CHECK(rc == 0 && !*out, "%s: rc %d: %s", cmds[i].args, rc, out);
		got = dev_bytes(devpath);
		EQ_STR(got, cmds[i].bytes);
		free(got);
		free(out);
	}
	/* Refused before anything is written: no command of other words. */
	if (truncate(devpath, 0))
		exit(2);
	rc = run_kstats("reset KEY-read", &out);
	EQ_U64(rc, 64);
	free(out);
	rc = run_kstats("reset _control", &out);
	EQ_U64(rc, 64);
	free(out);
	got = dev_bytes(devpath);
	EQ_STR(got, "");
	free(got);

	/* run: trace, stop at the end, remove, all on the device, in order. */
	rc = run_on_fifo(devpath, "run -d 1 read start vfs_read", &got);
	EQ_U64(rc, 0);
	EQ_STR(got, "trace read start vfs_read\nstop read\nremove read\n");
	free(got);

	/*
	 * run -i: each interval alone, from _interval/read (captured: 493
	 * samples each read), said so in each header, then the whole run's
	 * summary (the node: 983); --cumulative: the node each time.
	 */
	{
		char idir[128], *so;

		snprintf(idir, sizeof(idir), "%s/_interval", keyroot);
		if (mkdir(idir, 0755))
			exit(2);
		link_node("6.12/kstats/_interval/read", "_interval/read");
		rc = run_on_fifo_out(devpath, "run -i 1 -d 2 read start vfs_read", &got, &so);
		EQ_U64(rc, 0);
		EQ_STR(got, "trace read start vfs_read\nstop read\nremove read\n");
		EQ_U64(count_str(so, ": interval, the samples of the last 1 s"), 2);
		EQ_U64(count_str(so, " (end): interval, the samples of the last 1 s or less (up to the end)\n"), 1);
		EQ_U64(count_str(so, "\nread: 493 samples, missed 0, active, trace by fprobe\n"), 2);
		CHECK(strstr(so, "\ntotal, every sample since the trace began:\n"
			     "read: 983 samples, missed 0, active, trace by fprobe\n") != NULL,
		      "run -i: the total after the last interval: %s", so);
		CHECK(!strstr(so, "cumulative"), "run -i says interval: %s", so);
		free(got);
		free(so);
		rc = run_on_fifo_out(devpath, "run -i 1 -d 2 --cumulative read start vfs_read", &got, &so);
		EQ_U64(rc, 0);
		EQ_STR(got, "trace read start vfs_read\nstop read\nremove read\n");
		EQ_U64(count_str(so, ": cumulative, every sample since the trace began\n"), 2);
		EQ_U64(count_str(so, "\nread: 983 samples, missed 0, active, trace by fprobe\n"), 2);
		CHECK(!strstr(so, "interval"), "run -i --cumulative: %s", so);
		free(got);
		free(so);
		/* Options after NAME, and --cumulative without -i: 64, nothing written. */
		rc = run_on_fifo_out(devpath, "run read start vfs_read -d 1", &got, &so);
		EQ_U64(rc, 64);
		EQ_STR(got, "");
		CHECK(strstr(so, "kstats: run: options go before NAME, the words after it are the trace's "
			      "(_control has no word '-...'): kstats run -d 1 read start vfs_read\n") != NULL,
		      "run NAME ... -d 1: %s", so);
		free(got);
		free(so);
		rc = run_on_fifo(devpath, "run --cumulative -d 1 read start vfs_read", &got);
		EQ_U64(rc, 64);
		EQ_STR(got, "");
		free(got);
		snprintf(idir, sizeof(idir), "%s/_interval/read", keyroot);
		unlink(idir);
		snprintf(idir, sizeof(idir), "%s/_interval", keyroot);
		rmdir(idir);
	}

	/*
	 * run --svg FILE: the same commands, and FILE holds what flame --svg
	 * draws of KEY-read, byte for byte, written before the remove.
	 */
	snprintf(svg, sizeof(svg), "%s/run.svg", keyroot);
	snprintf(cmd, sizeof(cmd), "run -d 1 --svg %s read start vfs_read key kstack", svg);
	rc = run_on_fifo(devpath, cmd, &got);
	EQ_U64(rc, 0);
	EQ_STR(got, "trace read start vfs_read key kstack\nstop read\nremove read\n");
	free(got);
	rc = run_kstats("flame read --svg", &out);
	EQ_U64(rc, 0);
	got = NULL;
	CHECK(!read_all(svg, &got) && !strcmp(got, out), "run --svg %s is not flame read --svg", svg);
	free(got);
	free(out);
	unlink(svg);
	/* A trace whose KEY-NAME says "key -": 65, no file, still removed. */
	snprintf(cmd, sizeof(cmd), "run -d 1 --svg %s nokey start vfs_read key kstack", svg);
	rc = run_on_fifo(devpath, cmd, &got);
	EQ_U64(rc, 65);
	EQ_STR(got, "trace nokey start vfs_read key kstack\nstop nokey\nremove nokey\n");
	free(got);
	CHECK(access(svg, F_OK), "run --svg of a trace without a key left %s", svg);
	/* Refused before anything is written: words without a key (64), FILE (73). */
	snprintf(cmd, sizeof(cmd), "run -d 1 --svg %s read start vfs_read comm key", svg);
	rc = run_on_fifo(devpath, cmd, &got);
	EQ_U64(rc, 64);
	EQ_STR(got, "");
	free(got);
	CHECK(access(svg, F_OK), "run --svg without a key left %s", svg);
	rc = run_kstats("run -d 1 --svg /x.svg read start vfs_read", &out);
	EQ_U64(rc, 64);
	CHECK(strstr(out, "run --svg /x.svg: trace read has no key, so no rows to draw: add key kstack") != NULL,
	      "run --svg without a key: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "run -d 1 --svg %s/nodir/x.svg read start vfs_read key kstack", keyroot);
	rc = run_on_fifo(devpath, cmd, &got);
	EQ_U64(rc, 73);
	EQ_STR(got, "");
	free(got);
	unlink(devpath);

	/* No device (an older module): _control and the nodes, as before. */
	rc = run_kstats("trace t1 start vfs_read", &out);
	EQ_U64(rc, 64);
	CHECK(strstr(out, "/_control is not in debugfs") != NULL, "trace without the device: %s", out);
	free(out);
	rc = run_kstats("reset read", &out);
	EQ_U64(rc, 64);
	CHECK(strstr(out, "/read is not in debugfs") != NULL, "reset without the device: %s", out);
	free(out);
	rc = run_kstats("stop nosuch", &out);
	EQ_U64(rc, 66);
	free(out);
	unsetenv("KSTATS_DEV");
}

/*
 * kstats rows on KEY-1 (as KEY-read), KEY-parts and KEY-arg, whose
 * addresses the test kallsyms (test/data/keys/kallsyms) names: the
 * exact text a person reads.
 */
static void test_rows_cmd(void)
{
	static const char *const names[] = { "KEY-arg", "arg", "KEY-parts", "parts", "KEY-cg", "cg",
					     "KEY-ch", "ch" };
	char args[8192], *out, *ksyms;
	size_t i;
	int rc;

	/* Traces arg and parts for these tests alone (list counts the others). */
	link_node("keys/KEY-arg", "KEY-arg");
	link_node("6.12/kstats/idle", "arg");
	link_node("keys/KEY-parts", "KEY-parts");
	link_node("6.12/kstats/idle", "parts");
	snprintf(args, sizeof(args), "%s/keys/kallsyms", datadir);
	ksyms = realpath(args, NULL);
	if (!ksyms)
		exit(2);
	snprintf(args, sizeof(args), "rows arg --kallsyms '%s'", ksyms);
	free(ksyms);
	rc = run_kstats(args, &out);
	EQ_U64(rc, 0);
	EQ_STR(out,
	       "arg: 7 rows of key arg0, by total, largest first\n"
	       "TOTAL  COUNT    AVG    P50    P99    MIN    MAX  KEY\n"
	       "  9us      3    3us    3us    3us    3us    3us  arg0 kprobe_mutex\n"
	       "  5us      2  2.5us  2.5us  2.5us  2.5us  2.5us  arg0 text_mutex+0x10\n"
	       "  4us      1    4us    4us    4us    4us    4us  arg0 kst_lock+0x8 [kstats_test_target]\n"
	       "  3us      1    3us    3us    3us    3us    3us  arg0 0xffff888003a1c000\n"
	       "  2us      1    2us    2us    2us    2us    2us  arg0 4096\n"
	       "  1us      1    1us    1us    1us    1us    1us  arg0 0xffffffff83000040\n"
	       "500ns      1  500ns  500ns  500ns  500ns  500ns  arg0 0xffffffffc0a04000\n"
	       "P50 and P99 of a row are upper bounds: the top of its power-of-two bucket\n"
	       "(under twice the true value); kstats show arg has the trace's exact ones.\n");
	free(out);
	/* --raw: the kernel's numbers; --sort count --top 2 --unit ns. */
	rc = run_kstats("rows arg --raw --sort count --top 2 --unit ns", &out);
	EQ_U64(rc, 0);
	EQ_STR(out,
	       "arg: 7 rows of key arg0, by count, largest first (the first 2)\n"
	       " TOTAL  COUNT     AVG     P50     P99     MIN     MAX  KEY\n"
	       "9000ns      3  3000ns  3000ns  3000ns  3000ns  3000ns  arg0 18446744071606486496\n"
	       "5000ns      2  2500ns  2500ns  2500ns  2500ns  2500ns  arg0 18446744071606486544\n"
	       "... 5 more rows (--top 0 shows all)\n"
	       "P50 and P99 of a row are upper bounds: the top of its power-of-two bucket\n"
	       "(under twice the true value); kstats show arg has the trace's exact ones.\n");
	free(out);
	/* Stacks indented, or folded; comm escaped; the other row. */
	rc = run_kstats("rows parts --sort max", &out);
	EQ_U64(rc, 0);
	EQ_STR(out,
	       "parts: 2 rows of key cpu,comm,end-kstack:2,tgid,pid, by max, largest first\n"
	       "TOTAL  COUNT    AVG    P50    P99    MIN    MAX  KEY\n"
	       "  3us      2  1.5us    2us    2us    1us    2us  cpu 1  comm my task;x  tgid 200  pid 201\n"
	       "    end-kstack\n"
	       "      __schedule+0x5bc/0xbf0\n"
	       "      0xffffffffc0a01234\n"
	       "500ns      1  500ns  500ns  500ns  500ns  500ns  cpu 0  comm a\\b\\011c  tgid 1  pid 1\n"
	       "    end-kstack\n"
	       "      __schedule+0x5bc/0xbf0\n"
	       "      my_fn.cold+0x1a/0x2f [my_mod]\n"
	       " 70ns      1   70ns   70ns   70ns   70ns   70ns  [other: keys not captured (a stack or level table full, a key being added on another CPU, no waker seen)]\n"
	       "P50 and P99 of a row are upper bounds: the top of its power-of-two bucket\n"
	       "(under twice the true value); kstats show parts has the trace's exact ones.\n");
	free(out);
	/* cgroup parts as KEY-NAME prints them: paths, (gone), unescaped. */
	link_node("keys/KEY-cgroup", "KEY-cg");
	link_node("6.12/kstats/idle", "cg");
	rc = run_kstats("rows cg --unit ns", &out);
	EQ_U64(rc, 0);
	EQ_STR(out,
	       "cg: 3 rows of key cgroup,comm,waker-cgroup, by total, largest first\n"
	       " TOTAL  COUNT     AVG     P50     P99     MIN     MAX  KEY\n"
	       "4000ns      2  2000ns  2047ns  2047ns  1000ns  3000ns  cgroup /system.slice/ssh.service  comm sshd  waker-cgroup /\n"
	       " 900ns      3   300ns   511ns   511ns   100ns   500ns  cgroup /a b;c (gone)  comm kst  waker-cgroup /a b;c (gone)\n"
	       "  50ns      1    50ns    50ns    50ns    50ns    50ns  cgroup [id:4242] (gone)  comm kst  waker-cgroup [id:1]\n"
	       "P50 and P99 of a row are upper bounds: the top of its power-of-two bucket\n"
	       "(under twice the true value); kstats show cg has the trace's exact ones.\n");
	free(out);
	rc = run_kstats("rows read --folded --top 1", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "\n    kstack ksys_write;vfs_write;full_proxy_write;kst_write [kstats_test_target];"
		      "kst_path_1 [kstats_test_target];kst_target_delay [kstats_test_target]\n") &&
	      strstr(out, "... 2 more rows (--top 0 shows all)\n"), "rows --folded: %s", out);
	free(out);
	/*
	 * waker-chain's levels: each level's mean blocked time in the rows'
	 * unit (KEY-NAME's blocked-ns 12000 and 9000 as 12us and 9us), its
	 * marker, its frames below it; --folded, each level's root first.
	 */
	link_node("keys/KEY-chain", "KEY-ch");
	link_node("6.12/kstats/idle", "ch");
	rc = run_kstats("rows ch --top 1 --unit us", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "\n    waker-chain 1 comm dd pid 77 blocked 12us\n"
		      "      try_to_wake_up+0x4b/0x5a0\n      pipe_write+0x1c2/0x6a0\n"
		      "    waker-chain 2 comm kworker/u4:1 pid 12 blocked 9us\n") &&
	      strstr(out, "\n    waker-chain 3 [interrupt]\n      try_to_wake_up+0x4b/0x5a0\n"),
	      "rows of a chain: %s", out);
	free(out);
	rc = run_kstats("rows ch --top 1 --unit ns --folded", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "\n    waker-chain 1 comm dd pid 77 blocked 12000ns pipe_write;try_to_wake_up\n"),
	      "rows --folded of a chain: %s", out);
	free(out);
	/* Refusals: no key 65, no KEY-NAME 66, bad --sort 64, missing --kallsyms 66. */
	rc = run_kstats("rows nokey", &out);
	EQ_U64(rc, 65);
	free(out);
	rc = run_kstats("rows GAP-read", &out);
	EQ_U64(rc, 66);
	free(out);
	rc = run_kstats("rows read --sort min", &out);
	EQ_U64(rc, 64);
	free(out);
	rc = run_kstats("rows read --kallsyms /nonexistent", &out);
	EQ_U64(rc, 66);
	free(out);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(args, sizeof(args), "%s/%s", keyroot, names[i]);
		unlink(args);
	}
}

/* Addresses to symbols (ksyms.c) on test/data/keys/kallsyms. */
static void test_ksyms(void)
{
	struct ks_ksyms ks;
	char path[4096], buf[256];

	snprintf(path, sizeof(path), "%s/keys/kallsyms", datadir);
	EQ_U64(ks_ksyms_load(path, &ks), 0);
	/* A, a and the data below _text (per-CPU offsets) are left out. */
	EQ_U64(ks.n, 9);
	CHECK(!ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffff82a5c5e0ULL), "kprobe_mutex");
	EQ_STR(buf, "kprobe_mutex");
	CHECK(!ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffff82a5c63fULL), "text_mutex+0x3f");
	EQ_STR(buf, "text_mutex+0x3f");
	CHECK(!ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffff81000004ULL), "alias");
	EQ_STR(buf, "_text+0x4");
	CHECK(!ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffffc0a00010ULL), "module");
	EQ_STR(buf, "kst_target_delay+0x10 [kstats_test_target]");
	CHECK(!ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffffc0a02ff8ULL), "a module's last symbol");
	EQ_STR(buf, "kst_lock+0xff8 [kstats_test_target]");
	CHECK(ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffffc0a03000ULL), "a page past a module's last");
	CHECK(ks_ksym_fmt(buf, sizeof(buf), &ks, 4096), "4096 is no address (cpu_number left out)");
	CHECK(ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffff888003a1c000ULL), "heap");
	CHECK(ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffff83000000ULL), "_end");
	CHECK(ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffff83000040ULL), "past _end");
	ks_ksyms_free(&ks);
	/* What a reader without CAP_SYSLOG sees: zeros, so nothing resolves. */
	EQ_U64(ks_ksyms_parse("0000000000000000 T _text\n0000000000000000 d kprobe_mutex\n", &ks), 0);
	EQ_U64(ks.n, 0);
	CHECK(ks_ksym_fmt(buf, sizeof(buf), &ks, 0xffffffff82a5c5e0ULL), "no symbols");
	ks_ksyms_free(&ks);
	EQ_U64(ks_ksyms_load("/nonexistent", &ks), ENOENT);
}

static void test_cli(void)
{
	static const char *const names[] = {
		"read", "GAP-read", "KEY-read", "KEY-nokey", "nokey", "_control"
	};
	char cmd[8192], *out, *self = realpath("/proc/self/exe", NULL), *slash;
	size_t i;
	int rc;

	if (!self || !(slash = strrchr(self, '/')))
		exit(2);
	*slash = 0;
	snprintf(kstats_bin, sizeof(kstats_bin), "%s/kstats", self);
	free(self);
	if (access(kstats_bin, X_OK)) {
		CHECK(0, "%s: not built (make -C tools kstats)", kstats_bin);
		return;
	}
	snprintf(keyroot, sizeof(keyroot), "/tmp/kstats-unit.XXXXXX");
	if (!mkdtemp(keyroot))
		exit(2);
	link_node("6.12/kstats/read", "read");
	link_node("6.12/kstats/GAP-read", "GAP-read");
	link_node("6.12/kstats/_control", "_control");
	link_node("keys/KEY-1", "KEY-read");
	link_node("6.12/kstats/idle", "nokey");
	link_node("keys/KEY-nokey", "KEY-nokey");

	test_rows_cmd();

	/* list: the header, GAP-read, idle (in file nokey), read; no KEY- line. */
	rc = run_kstats("list", &out);
	EQ_U64(rc, 0);
	CHECK(!strstr(out, "KEY-"), "list shows no KEY- node:\n%s", out);
	CHECK(strstr(out, "\nGAP-read ") && strstr(out, "\nidle ") && strstr(out, "\nread "),
	      "list shows the metrics:\n%s", out);
	{
		const char *c;
		int nl = 0;

		for (c = out; *c; c++)
			nl += *c == '\n';
		/* The header, 3 metrics, a blank line and GAP's footnote. */
		EQ_U64(nl, 7);
	}
	CHECK(strstr(out, "  gap of read\n\nGAP-NAME: the time from the end of one call of trace NAME "
		     "to the start of\n  the next on the same CPU") != NULL, "list explains GAP once:\n%s", out);
	free(out);
	/* A name wider than the column: every column as wide as its widest cell. */
	{
		char *t = slurp("6.12/kstats/idle"), l[4096];
		FILE *f;

		snprintf(l, sizeof(l), "%s/a_metric_name_wider_than_the_28_columns", keyroot);
		f = fopen(l, "w");
		if (!f || strncmp(t, "# name idle\n", 12))
			exit(2);
		fprintf(f, "# name a_metric_name_wider_than_the_28_columns\n%s", t + 12);
		fclose(f);
		free(t);
	}
	rc = run_kstats("list --unit ms", &out);
	EQ_U64(rc, 0);
	EQ_STR(out,
	       "NAME                                       SAMPLES          P50          P99           MAX  TRACE\n"
	       "a_metric_name_wider_than_the_28_columns          0            -            -             -  fprobe missed 0\n"
	       "idle                                             0            -            -             -  fprobe missed 0\n"
	       "read                                           983   0.021793ms   0.720896ms    6.682961ms  fprobe missed 0\n"
	       "GAP-read                                       986   0.007104ms   0.589824ms 1055.454191ms  gap of read\n"
	       "\n"
	       "GAP-NAME: the time from the end of one call of trace NAME to the start of\n"
	       "  the next on the same CPU (kstats trace NAME ... gap off leaves it out).\n");
	free(out);
	{
		char l[4096];

		snprintf(l, sizeof(l), "%s/a_metric_name_wider_than_the_28_columns", keyroot);
		unlink(l);
	}
	rc = run_kstats("list --json", &out);
	EQ_U64(rc, 0);
	CHECK(!strstr(out, "KEY-"), "list --json shows no KEY- node");
	free(out);
	rc = run_kstats("export --prometheus", &out);
	EQ_U64(rc, 0);
	CHECK(!strstr(out, "KEY"), "export has no KEY- metric");
	CHECK(strstr(out, "\nkstats_read_seconds_count 983\n") != NULL, "export has read");
	/* A trace's GAP-NAME only with --gap. */
	CHECK(!strstr(out, "GAP"), "export leaves GAP-read out");
	/* --keys: KEY-read (KEY-1) is keyed by a stack: left out, nothing added. */
	{
		char *keys = NULL;

		rc = run_kstats("export --prometheus --keys", &keys);
		EQ_U64(rc, 0);
		EQ_STR(keys, out);
		free(keys);
	}
	free(out);
	rc = run_kstats("export --prometheus --gap", &out);
	EQ_U64(rc, 0);
	CHECK(!strstr(out, "kstats_GAP_read"), "export --gap: no family of its own");
	CHECK(strstr(out, "# HELP kstats_read_seconds kstats metrics read, GAP-read: ") &&
	      strstr(out, "\nkstats_read_seconds_bucket{part=\"duration\",le=\"+Inf\"} 983\n"
			  "kstats_read_seconds_sum{part=\"duration\"} 0.052210847\n"
			  "kstats_read_seconds_count{part=\"duration\"} 983\n"
			  "kstats_read_seconds_bucket{part=\"gap\",le=\"0.000000007\"} 0\n") &&
	      strstr(out, "\nkstats_read_seconds_count{part=\"gap\"} 986\n"
			  "# HELP kstats_read_missed_total ") &&
	      strstr(out, "\nkstats_read_missed_total{part=\"duration\"} 0\n"
			  "kstats_read_missed_total{part=\"gap\"} 0\n") &&
	      strstr(out, "\nkstats_idle_seconds_count 0\n"),
	      "export --gap: GAP-read as part=\"gap\" of read's family:\n%s", out);
	free(out);
	rc = run_kstats("export --prometheus --gap --per-cpu", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "\nkstats_read_seconds_count{part=\"gap\",cpu=\"1\"} ") != NULL,
	      "export --gap --per-cpu: part before cpu");
	free(out);
	/* show KEY-read: not a metric (64), and says where to look. */
	rc = run_kstats("show KEY-read", &out);
	EQ_U64(rc, 64);
	CHECK(strstr(out, "kstats flame read") != NULL, "show KEY-read: %s", out);
	free(out);

	/* flame: KEY-read is KEY-1, derived above; --count before or after NAME. */
	rc = run_kstats("flame --count read", &out);
	EQ_U64(rc, 0);
	EQ_STR(out,
	       "ksys_write;vfs_write;full_proxy_write;kst_write [kstats_test_target];"
	       "kst_path_1 [kstats_test_target];kst_target_delay [kstats_test_target] 5\n"
	       "ksys_write;vfs_write;full_proxy_write;kst_write [kstats_test_target];"
	       "kst_path_2 [kstats_test_target];kst_target_delay [kstats_test_target] 3\n"
	       "do_syscall_64;ksys_write;vfs_write;full_proxy_write;kst_write [kstats_test_target];"
	       "kst_target_delay [kstats_test_target] 1\n");
	free(out);
	rc = run_kstats("flame read", &out);
	EQ_U64(rc, 0);
	{
		int lines;

		EQ_U64(fold_sum(out, &lines), 2904975);
		EQ_U64(lines, 3);
	}
	free(out);
	/* No key: 65 and the word to add. */
	rc = run_kstats("flame nokey", &out);
	EQ_U64(rc, 65);
	CHECK(strstr(out, "key kstack") != NULL, "flame nokey: %s", out);
	free(out);
	/* A metric without KEY-NAME, and no metric at all: 66. */
	rc = run_kstats("flame GAP-read", &out);
	EQ_U64(rc, 66);
	CHECK(strstr(out, "no KEY-GAP-read") != NULL, "flame GAP-read: %s", out);
	free(out);
	rc = run_kstats("flame nosuch", &out);
	EQ_U64(rc, 66);
	CHECK(strstr(out, "no metric nosuch") != NULL, "flame nosuch: %s", out);
	free(out);
	rc = run_kstats("flame", &out);
	EQ_U64(rc, 64);
	free(out);
	/* --svg: the same rows drawn; the trace's name in the title. */
	rc = run_kstats("flame read --svg", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "<title>kstats flame read</title>") != NULL, "flame read --svg title");
	CHECK(strstr(out, "<title>all (2.904975 ms, 100.00%)</title>") != NULL, "flame read --svg");
	EQ_U64(count_str(out, "<g class="), 1 + 8 + 6);
	free(out);
	rc = run_kstats("flame --count --svg read", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "<title>all (9 samples, 100.00%)</title>") != NULL, "--count --svg");
	free(out);
	rc = run_kstats("flame nokey --svg", &out);
	EQ_U64(rc, 65);
	free(out);
	/* Folded stacks from a file, or standard input; no kernel needed. */
	rc = run_kstats("flame --svg --folded /dev/null", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "No stacks") != NULL, "--folded /dev/null: %s", out);
	free(out);
	rc = run_kstats("flame --svg --count --title T --folded - < /dev/null", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, ">T</text>") != NULL, "--title T: %s", out);
	free(out);
	rc = run_kstats("flame --folded /dev/null", &out);
	EQ_U64(rc, 64);
	CHECK(strstr(out, "add --svg") != NULL, "--folded without --svg: %s", out);
	free(out);
	rc = run_kstats("flame --svg --folded /dev/null read", &out);
	EQ_U64(rc, 64);
	free(out);
	rc = run_kstats("flame --svg --folded /nonexistent", &out);
	EQ_U64(rc, 66);
	CHECK(strstr(out, "flame --folded /nonexistent: ") != NULL, "--folded /nonexistent: %s", out);
	free(out);
	/* A directory: a read error, 74. */
	rc = run_kstats("flame --svg --folded /", &out);
	EQ_U64(rc, 74);
	free(out);
	/* Values that reach 2^64: 65. All-zero values: "No stacks", 0,
	   with the default heading naming the file. */
	{
		char fpath[4096];
		FILE *ff;

		snprintf(cmd, sizeof(cmd), "flame --svg --folded - < '%s/ovf.folded'", keyroot);
		snprintf(fpath, sizeof(fpath), "%s/ovf.folded", keyroot);
		ff = fopen(fpath, "w");
		CHECK(ff != NULL, "%s", fpath);
		if (ff) {
			fputs("a 18446744073709551615\nb 1\n", ff);
			fclose(ff);
			rc = run_kstats(cmd, &out);
			EQ_U64(rc, 65);
			CHECK(strstr(out, "standard input: the values add up to 2^64 or more") != NULL,
			      "--folded 2^64: %s", out);
			free(out);
		}
		ff = fopen(fpath, "w");
		if (ff) {
			fputs("a;b 0\nc 0\n", ff);
			fclose(ff);
			snprintf(cmd, sizeof(cmd), "flame --svg --folded '%s'", fpath);
			rc = run_kstats(cmd, &out);
			EQ_U64(rc, 0);
			CHECK(strstr(out, "No stacks") != NULL, "--folded all zero: %s", out);
			CHECK(strstr(out, "<title>Flame Graph: ") != NULL && strstr(out, "ovf.folded</title>"),
			      "--folded heading: %s", out);
			free(out);
		}
		unlink(fpath);
	}
	rc = run_kstats("flame --svg --folded - < /dev/null", &out);
	EQ_U64(rc, 0);
	CHECK(strstr(out, "<title>Flame Graph: standard input</title>") != NULL, "--folded -: %s", out);
	free(out);
	rc = run_kstats("flame read --svg --width 10", &out);
	EQ_U64(rc, 64);
	free(out);
	rc = run_kstats("flame read --svg --minwidth x", &out);
	EQ_U64(rc, 64);
	free(out);
	rc = run_kstats("flame KEY-read", &out);
	EQ_U64(rc, 64);
	free(out);

	test_dev();

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char l[4096];

		snprintf(l, sizeof(l), "%s/%s", keyroot, names[i]);
		unlink(l);
	}
	rmdir(keyroot);
}

/* Lockdown's refusals name it; the device's path is the one in use. */
static void test_lockdown(void)
{
	char buf[256], mode[32];

	CHECK(!lockdown_parse("[none] integrity confidentiality\n", mode, sizeof(mode)),
	      "none is no lockdown");
	CHECK(!lockdown_parse("", mode, sizeof(mode)), "an empty file is no lockdown");
	CHECK(lockdown_parse("none [integrity] confidentiality\n", mode, sizeof(mode)) == mode,
	      "integrity");
	EQ_STR(mode, "integrity");
	lockdown_parse("none integrity [confidentiality]\n", mode, sizeof(mode));
	EQ_STR(mode, "confidentiality");

	dev = "/dev/kstats";
	perm_hint(buf, sizeof(buf), EPERM, "integrity", false, "reset");
	EQ_STR(buf, ": the kernel is locked down (integrity), which refuses writable debugfs files; "
	       "this kstats module has no /dev/kstats (upgrade kstats-dkms)");
	perm_hint(buf, sizeof(buf), EPERM, "confidentiality", true, "trace");
	EQ_STR(buf, ": the kernel is locked down (confidentiality), where kstats attaches no probes");
	perm_hint(buf, sizeof(buf), EPERM, "confidentiality", true, "reset");
	EQ_STR(buf, ": the kernel is locked down (confidentiality)");
	/* No lockdown: not lockdown's doing. */
	perm_hint(buf, sizeof(buf), EPERM, NULL, false, "trace");
	CHECK(!strstr(buf, "locked down"), "no lockdown: %s", buf);
}

int main(int argc, char **argv)
{
	datadir = argc > 1 ? argv[1] : "test/data";
	test_parse_read();
	test_parse_other();
	test_parse_all();
	test_layout();
	test_units();
	test_rows();
	test_hist_text();
	test_prom();
	test_prom_exact();
	test_key_parse();
	test_prom_keys();
	test_fold_frame();
	test_fold();
	test_flame_kind();
	test_flame_svg();
	test_ksyms();
	test_usyms();
	test_cli();
	test_lockdown();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
