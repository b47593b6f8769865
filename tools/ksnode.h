/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksnode: the kstats tool's library. Parses a node's text (the summary
 * lines and slot lines described in the README), formats values in a
 * unit, merges slots into rows, and writes the Prometheus text
 * exposition format; parses a trace's KEY-NAME and folds its rows into
 * flame graph input. No I/O on debugfs here: the callers read the files.
 */
#ifndef KSNODE_H
#define KSNODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define KS_NPCT 5

/* One percentile's four summary lines; has = 0 when the node printed "-". */
struct ks_pct {
	char key[8];		/* "p50", "p90", "p99", "p99.9", "p99.99" */
	bool has;
	uint64_t value, err;
	unsigned int slot;
	char relerr[24];	/* as printed, e.g. "0.064584" */
};

/* One slot line. */
struct ks_line {
	unsigned int slot;
	bool totals;		/* a CPUS line */
	unsigned int cpu;	/* nr_cpu_ids on CPUS lines */
	uint64_t count, avg;
	char p[16];		/* cumulative fraction, as printed */
};

struct ks_node {
	char name[128];
	unsigned int frac_bits;
	bool active;
	uint64_t samples, missed, nmi_dropped;
	bool has_minmax;	/* false when min/max/mean are "-" */
	uint64_t min, max, mean;
	struct ks_pct pct[KS_NPCT];
	char unit[16];
	/* From a trace's "# trace NAME method M missed N (...)" line. */
	bool is_trace, gone;
	char method[16];
	uint64_t trace_missed;
	size_t n_lines;
	struct ks_line *lines;
	unsigned int seen;	/* bit mask of the summary keys found */
};

/* Parse a node's whole text. Returns 0, or -1 with a reason in @err. */
int ks_parse(const char *text, struct ks_node *n, char *err, size_t errlen);
void ks_node_free(struct ks_node *n);
const struct ks_pct *ks_pct_get(const struct ks_node *n, const char *key);

/* Histogram layout (the README's "Histogram layout"). */
unsigned int ks_n_slots(unsigned int frac_bits);
uint64_t ks_slot_base(unsigned int slot, unsigned int frac_bits);
uint64_t ks_slot_top(unsigned int slot, unsigned int frac_bits);

/* Units: ns, us, ms, s; auto picks one from a value (ns). */
enum ks_unit { KS_NS, KS_US, KS_MS, KS_S, KS_AUTO };
int ks_unit_parse(const char *s, enum ks_unit *u);
enum ks_unit ks_unit_auto(uint64_t ns);
const char *ks_unit_name(enum ks_unit u);
/*
 * Format @ns in @u: exact decimal, no float, trailing zeros of the
 * fraction dropped ("1.5" us for 1500 ns, "0.000511" ms for 511 ns).
 */
void ks_fmt(char *buf, size_t len, uint64_t ns, enum ks_unit u);

/* A row of the ASCII histogram: [low, high] with the count in it. */
struct ks_row {
	uint64_t low, high, count;
};

/*
 * Rows of @n's CPUS lines (or of CPU @cpu's lines, when @cpu >= 0): one
 * per non-empty slot when @slots, else one per power of two (slots
 * merged by bucket, slot >> frac_bits). Only non-empty rows; ascending.
 * Returns the number of rows written to *@rows (malloc'ed), or -1.
 */
int ks_rows(const struct ks_node *n, int cpu, bool slots, struct ks_row **rows);

/*
 * Print the histogram of @rows in funclatency's style to @f: a row per
 * range, "low -> high : count |****|", bar width @width, and a
 * "..." line where empty ranges were folded away.
 */
void ks_print_hist(FILE *f, const struct ks_row *rows, int nrows,
		   enum ks_unit u, int width);

/* Prometheus. */
enum ks_buckets { KS_B_POW2, KS_B_SLOTS };
/* "kstats_" + @name with every character outside [a-zA-Z0-9_] as '_'. */
void ks_prom_name(char *buf, size_t len, const char *name);
/* An exact decimal of @ns / 1e9, e.g. "0.000000511", "1", "18.446744073709551615". */
void ks_fmt_seconds(char *buf, size_t len, uint64_t ns);
/*
 * Write @n as a Prometheus histogram (cumulative _bucket{le=...}, _sum,
 * _count) and its missed counter. The bucket bounds depend only on
 * frac_bits and @b. @per_cpu adds a cpu label from the CPU lines.
 */
void ks_prom_write(FILE *f, const struct ks_node *n, enum ks_buckets b,
		   bool per_cpu);
/*
 * Nodes whose names ks_prom_name() maps to one metric name, as one family:
 * one HELP and TYPE, and each node's series with a node="NAME" label
 * (none when @n is 1), so names that collide never make the text invalid.
 */
void ks_prom_write_family(FILE *f, const struct ks_node *const *nodes,
			  size_t n, enum ks_buckets b, bool per_cpu);
/*
 * The same with a part="@part[i]" label on node i's series (none where
 * @part or @part[i] is NULL): a trace's GAP-NAME as part="gap" of NAME's
 * family, NAME's own as part="duration". A node label only where parts
 * alone do not tell the series apart.
 */
void ks_prom_write_family_parts(FILE *f, const struct ks_node *const *nodes,
				const char *const *part, size_t n, enum ks_buckets b,
				bool per_cpu);

/*
 * KEY-NAME: a trace's keyed rows, its other row and its slowest samples
 * (the README's "KEY-NAME"). The parse keeps a copy of the text; every
 * string below points into it.
 */
enum ks_kpart {
	KS_KP_KSTACK, KS_KP_END_KSTACK, KS_KP_COMM, KS_KP_PID, KS_KP_TGID,
	KS_KP_CPU, KS_KP_CGROUP, KS_KP_WAKER_KSTACK, KS_KP_WAKER_COMM,
	KS_KP_WAKER_PID, KS_KP_WAKER_CGROUP, KS_KP_USTACK, KS_KP_WAKER_USTACK,
	KS_KP_WAKER_CHAIN,	/* its levels: ks_kval.level0, n_levels */
	KS_KP_VALUE,	/* ret or argN, "argN:log2" for power-of-two rows */
	KS_KP_NR
};

/* Whether @p is a stack: kstack, end-kstack, waker-kstack, ustack, waker-ustack. */
static inline bool ks_kpart_is_stack(enum ks_kpart p)
{
	return p <= KS_KP_END_KSTACK || p == KS_KP_WAKER_KSTACK ||
	       p == KS_KP_USTACK || p == KS_KP_WAKER_USTACK;
}

/* Whether @p is a user stack, whose frames are addresses in process num. */
static inline bool ks_kpart_is_user(enum ks_kpart p)
{
	return p == KS_KP_USTACK || p == KS_KP_WAKER_USTACK;
}

/* A row's figures (ns, but count), as printed. */
struct ks_kstats {
	uint64_t total, count, avg, p50, p99, min, max;
};

/* One part of a key. */
struct ks_kval {
	enum ks_kpart part;
	const char *comm;	/* KS_KP_(WAKER_)COMM: unescaped (\040 is a space) */
	/* KS_KP_(WAKER_)CGROUP: "/a/b", unescaped; "/a/b (gone)" or "[id:N] (gone)" for a removed one */
	const char *path;
	/* KS_KP_PID, KS_KP_TGID, KS_KP_CPU, KS_KP_WAKER_PID; a user stack's tgid */
	long long num;
	uint64_t start;		/* a user stack's process's start (ns since boot), or 0 */
	const char *name;	/* KS_KP_VALUE: "ret", "arg2", "arg2:log2", "file->f_flags" */
	const char *text;	/* KS_KP_VALUE: "-11", "4096", "[4096, 8192)" */
	size_t frame0, n_frames; /* stacks: frames[frame0...], leaf first */
	/*
	 * A user stack without frames: "[kernel thread]", "[interrupt]",
	 * "[32-bit task]"; or, once ks_name_user_frames() found the process
	 * gone, "exited" (its frames stay addresses).
	 */
	const char *note;
	size_t level0, n_levels; /* KS_KP_WAKER_CHAIN: levels[level0...] */
};

/*
 * A level of key waker-chain: a waker (comm, pid, its mean blocked time
 * when the row gives it) or a marker ("[running]", "[kernel thread]",
 * "[interrupt]", "[not captured]"); its kernel frames, leaf first (an
 * interrupt's too).
 */
struct ks_klevel {
	unsigned int level;	/* from 1; 0 for "[not captured]" without one */
	const char *comm;	/* unescaped; NULL for a marker */
	long long pid;
	bool has_blocked;
	uint64_t blocked_ns;	/* the mean, in ns */
	const char *marker;	/* NULL for a waker */
	size_t frame0, n_frames;
};

struct ks_krow {
	struct ks_kstats st;
	unsigned int n_parts;	/* as the header's key: same parts, same order */
	struct ks_kval part[KS_KP_NR];
};

struct ks_kslow {
	uint64_t value, time;	/* ns; time is CLOCK_MONOTONIC at the end */
	long long pid;
	unsigned int cpu;
	const char *comm;	/* unescaped */
	/* kstack, end-kstack, waker-kstack, ustack, waker-ustack, waker-chain: those in the key */
	unsigned int n_parts;
	struct ks_kval part[6];
};

struct ks_keynode {
	char *buf;			/* the text, cut into the strings */
	char key[128];			/* as in the header: "kstack:6,comm" or "-" */
	unsigned int n_key;		/* 0: the trace has no key */
	enum ks_kpart key_part[KS_KP_NR];
	uint64_t keys, rows, other, stacks, slowest, skipped;
	char unit[16];
	size_t n_rows, n_slow, n_frames;
	struct ks_krow *row;		/* by total, largest first */
	bool has_other;			/* the "other" line (with a key) */
	struct ks_kstats other_st;
	struct ks_kslow *slow;		/* largest first */
	const char **frames;		/* as %pS prints them; user frames as 0xADDR */
	struct ks_klevel *levels;	/* of waker-chain parts */
	size_t n_levels;
	char **owned;			/* frames named by ks_name_user_frames() */
	size_t n_owned;
};

extern const char *const ks_kpart_names[KS_KP_NR];

/*
 * Parse KEY-NAME's whole text. Refuses anything off the format, and a
 * listing cut short (fewer row lines than the header's rows, a row
 * without its key's parts, no "other" line with a key). Returns 0, or -1
 * with "line N: ..." in @err.
 */
int ks_keynode_parse(const char *text, struct ks_keynode *k, char *err,
		     size_t errlen);
void ks_keynode_free(struct ks_keynode *k);

/*
 * Folded stacks (flamegraph.pl, speedscope) of @k's rows to @f, one line
 * per row, "frame;...;frame VALUE": the comm, pid, tgid and cpu parts in
 * the key's order ("pid N", "tgid N", "cpu N"), ustack root (main)
 * first, kstack root first, then "--" and end-kstack root first; or, as
 * offwaketime -f, "--" and waker-kstack leaf first, waker-ustack leaf
 * first, then waker-comm and "waker-pid N"; for waker-chain, per level
 * "--", its stack leaf first and its comm, or its marker ("[running]";
 * an interrupt's stack, then "[interrupt]"). A user stack without frames
 * is its note ("[kernel thread]"). Frames lose their +0xOFF/0xSIZE (the
 * " [module]" stays); ';' and control characters become '_'. VALUE is
 * the row's total (ns), or its count when @count. Then "[other] VALUE"
 * when the other row has samples. Rows that print the same line (they
 * differ only in what folding drops) are one line, their values summed,
 * where the first of them stood. The values add up to the rows' and
 * other's totals (counts). Returns the number of lines, or -1 when @k
 * has no key (nothing is written).
 */
int ks_fold(FILE *f, const struct ks_keynode *k, bool count);
/*
 * ks_fold(), with the kernel frames marked "_[k]" when @marks (as
 * stackcollapse-perf.pl --kernel writes them): an SVG of user and kernel
 * frames tells them apart by it (ks_flame_kind()).
 */
int ks_fold_marked(FILE *f, const struct ks_keynode *k, bool count, bool marks);
/* Whether @k's key has a user stack part (ustack, waker-ustack). */
bool ks_keynode_has_user(const struct ks_keynode *k);
/* Whether @k's rows can be Prometheus series: a key, and no stack part. */
bool ks_keynode_labels_ok(const struct ks_keynode *k);
/*
 * Traces @names' keyed rows @k (each ks_keynode_labels_ok()), whose names
 * ks_prom_name() maps to one, as one summary family
 * kstats_NAME_by_key_seconds: per row, quantile="0.5" and "0.99" (the
 * row's p50 and p99), _sum (total) and _count, labelled by the key's
 * parts (a part's name with '_' for what a label name cannot hold:
 * waker_cgroup, arg1_log2; comm and cgroup unescaped; values as printed),
 * node="NAME" first when @n > 1; then the other row, labelled
 * row="other". Rows of equal labels are one series (totals and counts
 * added, the larger quantiles).
 */
void ks_prom_write_keys(FILE *f, const char *const *names,
			const struct ks_keynode *const *k, size_t n);
/* @frame as it goes into a folded line (see ks_fold()), in @buf. */
void ks_fold_frame(char *buf, size_t len, const char *frame);

#endif
