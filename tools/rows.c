// SPDX-License-Identifier: GPL-2.0
/*
 * kstats rows: a keyed trace's rows (KEY-NAME) for a person: sorted,
 * the top N, figures in a unit, the key's parts named, stacks indented
 * (or folded on one line), and kernel addresses of argN parts as
 * symbols (ksyms.c), as bpftrace's ksym() prints them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "kstats.h"

static int usage_rows(FILE *f)
{
	fputs("usage: kstats rows NAME [--top N] [--sort total|count|avg|p50|p99|max]\n"
	      "                  [--folded] [--unit ns|us|ms|s|auto] [--kallsyms FILE | --raw]\n"
	      "The rows of trace NAME's key (KEY-NAME) as a table, largest first by\n"
	      "--sort (total time by default): total, count, avg, p50, p99, min and max,\n"
	      "then the row's key; stacks indented below it, one frame per line (with\n"
	      "--folded: each on one line, root first, frames as kstats flame prints\n"
	      "them; flame puts a waker's stack leaf first, above). --top N:\n"
	      "the first N rows (default 20; 0: all). An argN part that is a kernel\n"
	      "address prints as its symbol from /proc/kallsyms (or --kallsyms FILE),\n"
	      "e.g. kprobe_mutex, or in hex where no symbol holds it; --raw prints\n"
	      "the kernel's numbers.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

enum sort_by { S_TOTAL, S_COUNT, S_AVG, S_P50, S_P99, S_MAX };
static const char *const sort_names[] = { "total", "count", "avg", "p50", "p99", "max" };

static uint64_t sort_key(const struct ks_kstats *st, enum sort_by by)
{
	switch (by) {
	case S_COUNT: return st->count;
	case S_AVG: return st->avg;
	case S_P50: return st->p50;
	case S_P99: return st->p99;
	case S_MAX: return st->max;
	default: return st->total;
	}
}

struct sorted {
	const struct ks_krow *row;
	size_t pos;		/* KEY-NAME's order, for ties */
	uint64_t key;
};

static int cmp_sorted(const void *a, const void *b)
{
	const struct sorted *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

#define NCOL 7
static const char *const col_names[NCOL] = { "TOTAL", "COUNT", "AVG", "P50", "P99", "MIN", "MAX" };

/* A row's seven figures as text; count as a plain number. */
static void row_cells(char cell[NCOL][32], const struct ks_kstats *st, enum ks_unit u)
{
	const uint64_t v[NCOL] = { st->total, st->count, st->avg, st->p50, st->p99,
				   st->min, st->max };
	int c;

	for (c = 0; c < NCOL; c++) {
		if (c == 1)
			snprintf(cell[c], 32, "%" PRIu64, v[c]);
		else
			fmtv(cell[c], 32, true, v[c], u);
	}
}

/* The top half of the 64-bit address space, the kernel's on x86-64 and arm64. */
#define KERNEL_HALF	0x8000000000000000ULL

/*
 * The value part @v as it prints: an argument (argN, a parameter's name
 * or a field: not ret) that is a kernel address as its symbol (when @ks
 * resolves it) or, with none, in hex; else as KEY-NAME gives it.
 */

static void value_text(char *buf, size_t len, const struct ks_kval *v,
		       const struct ks_ksyms *ks)
{
	char *end;
	uint64_t a;

	if (ks && strcmp(v->name, "ret") && !strchr(v->name, ':') &&
	    v->text[0] != '-') {
		errno = 0;
		a = strtoull(v->text, &end, 10);
		if (!errno && !*end && !ks_ksym_fmt(buf, len, ks, a))
			return;
		/* A kernel address no symbol holds (a heap object): hex, as ksym() misses print. */
		if (!errno && !*end && a >= KERNEL_HALF) {
			snprintf(buf, len, "0x%" PRIx64, a);
			return;
		}
	}
	snprintf(buf, len, "%s", v->text);
}

/* A comm, its control characters (a tab, a newline) as octal escapes. */
static void print_comm(const char *c)
{
	for (; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			printf("\\%03o", (unsigned char)*c);
		else
			putchar(*c);
	}
}

/* The key's non-stack parts on one line: "comm dd pid 155 arg0 kprobe_mutex". */
static void print_scalars(const struct ks_krow *r, const struct ks_ksyms *ks)
{
	char val[512];
	unsigned int i;

	for (i = 0; i < r->n_parts; i++) {
		const struct ks_kval *v = &r->part[i];

		if (ks_kpart_is_stack(v->part) || v->part == KS_KP_WAKER_CHAIN)
			continue;
		switch (v->part) {
		case KS_KP_COMM:
		case KS_KP_WAKER_COMM:
			printf("  %s ", ks_kpart_names[v->part]);
			print_comm(v->comm);
			break;
		case KS_KP_VALUE:
			value_text(val, sizeof(val), v, ks);
			printf("  %s %s", v->name, val);
			break;
		case KS_KP_CGROUP:
		case KS_KP_WAKER_CGROUP:
			/* As KEY-NAME prints it: the path, " (gone)" and all. */
			printf("  %s ", ks_kpart_names[v->part]);
			print_comm(v->path);
			break;
		default:
			printf("  %s %lld", ks_kpart_names[v->part], v->num);
			break;
		}
	}
}

/*
 * Key waker-chain below the row: per level "waker-chain L comm C pid P
 * blocked T" (KEY-NAME's blocked-ns, in the rows' unit @u) or its
 * marker, then its frames as a stack's.
 */
static void print_chain(const struct ks_keynode *k, const struct ks_kval *v, bool folded,
			enum ks_unit u)
{
	char fr[1024], t[32];
	size_t i, j;

	for (i = 0; i < v->n_levels; i++) {
		const struct ks_klevel *lv = &k->levels[v->level0 + i];

		printf("    waker-chain");
		if (lv->level)
			printf(" %u", lv->level);
		if (lv->comm) {
			printf(" comm ");
			print_comm(lv->comm);
			printf(" pid %lld", lv->pid);
			if (lv->has_blocked) {
				fmtv(t, sizeof(t), true, lv->blocked_ns, u);
				printf(" blocked %s", t);
			}
		} else {
			printf(" %s", lv->marker);
		}
		if (!folded) {
			putchar('\n');
			for (j = 0; j < lv->n_frames; j++)
				printf("      %s\n", k->frames[lv->frame0 + j]);
			continue;
		}
		if (lv->n_frames)
			putchar(' ');
		for (j = lv->n_frames; j-- > 0; ) {
			ks_fold_frame(fr, sizeof(fr), k->frames[lv->frame0 + j]);
			printf("%s%s", fr, j ? ";" : "");
		}
		putchar('\n');
	}
}

/* The key's stacks below the row: indented frames, or folded on one line. */
static void print_stacks(const struct ks_keynode *k, const struct ks_krow *r, bool folded,
			 enum ks_unit u)
{
	char fr[1024];
	unsigned int i;
	size_t j;

	for (i = 0; i < r->n_parts; i++) {
		const struct ks_kval *v = &r->part[i];

		if (v->part == KS_KP_WAKER_CHAIN) {
			print_chain(k, v, folded, u);
			continue;
		}
		if (!ks_kpart_is_stack(v->part))
			continue;
		printf("    %s", ks_kpart_names[v->part]);
		if (ks_kpart_is_user(v->part) && v->num)
			printf(" tgid %lld", v->num);
		if (v->note)
			printf(v->n_frames ? " (%s)" : " %s", v->note);
		if (!folded) {
			putchar('\n');
			for (j = 0; j < v->n_frames; j++)
				printf("      %s\n", k->frames[v->frame0 + j]);
			if (!v->n_frames && !v->note)
				printf("      [not captured]\n");
			continue;
		}
		/* Root first, as kstats flame; offsets dropped. */
		putchar(' ');
		for (j = v->n_frames; j-- > 0; ) {
			ks_fold_frame(fr, sizeof(fr), k->frames[v->frame0 + j]);
			printf("%s%s", fr, j ? ";" : "");
		}
		if (!v->n_frames && !v->note)
			printf("[not captured]");
		putchar('\n');
	}
}

/* Does the key have an argument part (argN, a name: values may be addresses)? */
static bool key_has_arg(const struct ks_keynode *k)
{
	size_t r;
	unsigned int i;

	for (r = 0; r < k->n_rows; r++)
		for (i = 0; i < k->row[r].n_parts; i++)
			if (k->row[r].part[i].part == KS_KP_VALUE &&
			    strcmp(k->row[r].part[i].name, "ret") &&
			    strncmp(k->row[r].part[i].name, "ret:", 4))
				return true;
	return false;
}

static int print_rows(const char *name, const struct ks_keynode *k, enum sort_by by,
		      unsigned long top, bool folded, enum ks_unit u,
		      const struct ks_ksyms *ks)
{
	size_t n = k->n_rows, shown, i;
	struct sorted *s = calloc(n ? n : 1, sizeof(*s));
	char (*cells)[NCOL][32] = calloc(n + 1, sizeof(*cells));
	size_t w[NCOL];
	int c;

	if (!s || !cells) {
		free(s);
		free(cells);
		return err_exit(EX_OSERR, "out of memory");
	}
	for (i = 0; i < n; i++) {
		s[i].row = &k->row[i];
		s[i].pos = i;
		s[i].key = sort_key(&k->row[i].st, by);
	}
	qsort(s, n, sizeof(*s), cmp_sorted);
	shown = top && top < n ? top : n;
	for (c = 0; c < NCOL; c++)
		w[c] = strlen(col_names[c]);
	for (i = 0; i <= shown; i++) {
		if (i == shown && !(k->has_other && k->other_st.count))
			break;
		row_cells(cells[i], i < shown ? &s[i].row->st : &k->other_st, u);
		for (c = 0; c < NCOL; c++)
			if (strlen(cells[i][c]) > w[c])
				w[c] = strlen(cells[i][c]);
	}
	printf("%s: %zu row%s of key %s, by %s, largest first", name, n, n == 1 ? "" : "s",
	       k->key, sort_names[by]);
	if (shown < n)
		printf(" (the first %zu)", shown);
	printf("\n");
	for (c = 0; c < NCOL; c++)
		printf("%s%*s", c ? "  " : "", (int)w[c], col_names[c]);
	printf("  KEY\n");
	for (i = 0; i < shown; i++) {
		for (c = 0; c < NCOL; c++)
			printf("%s%*s", c ? "  " : "", (int)w[c], cells[i][c]);
		print_scalars(s[i].row, ks);
		putchar('\n');
		print_stacks(k, s[i].row, folded, u);
	}
	if (k->has_other && k->other_st.count) {
		for (c = 0; c < NCOL; c++)
			printf("%s%*s", c ? "  " : "", (int)w[c], cells[shown][c]);
		/* Rows to spare: the other row's keys were not captured. */
		if (k->rows < k->keys)
			printf("  [other: keys not captured (a stack or level table full, a key being added on another CPU, no waker seen)]\n");
		else
			printf("  [other: keys that found no row in the table of %" PRIu64 ", or not captured]\n", k->keys);
	}
	if (shown < n)
		printf("... %zu more row%s (--top 0 shows all)\n", n - shown, n - shown == 1 ? "" : "s");
	printf("P50 and P99 of a row are upper bounds: the top of its power-of-two bucket\n"
	       "(under twice the true value); kstats show %s has the trace's exact ones.\n", name);
	free(s);
	free(cells);
	return 0;
}

/**
 * rows_print() - trace @name's rows as kstats rows prints them
 * @name: the trace
 * @by: the sort
 * @top: rows shown, 0 for all
 * @folded: stacks on one line
 * @u: the unit
 * @ks: symbols for argN parts, or NULL to read /proc/kallsyms when a part
 *      is an argument (unless @raw)
 * @raw: argN parts as numbers
 *
 * Return: 0, or an exit status (said on stderr).
 */
int rows_print(const char *name, int by, unsigned long top, bool folded,
	       enum ks_unit u, const struct ks_ksyms *ks, bool raw)
{
	struct ks_ksyms own = { 0 };
	struct ks_keynode k;
	int rc;

	if ((rc = load_keynode("rows", name, &k)))
		return rc;
	if (!k.n_key) {
		ks_keynode_free(&k);
		return no_key(name);
	}
	if (!raw && !ks && key_has_arg(&k) && !ks_ksyms_load(KS_KALLSYMS, &own))
		ks = &own;
	rc = print_rows(name, &k, (enum sort_by)by, top, folded, u, raw ? NULL : ks);
	ks_keynode_free(&k);
	ks_ksyms_free(&own);
	return rc;
}

int cmd_rows(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "sort", required_argument, NULL, 's' },
		{ "folded", no_argument, NULL, 'f' },
		{ "unit", required_argument, NULL, 'u' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum ks_unit u = KS_AUTO;
	enum sort_by by = S_TOTAL;
	unsigned long top = 20;
	const char *kallsyms = NULL, *name;
	bool folded = false, raw = false;
	struct ks_ksyms ks = { 0 };
	bool have_ks = false;
	int opt, rc;
	size_t i;

	while ((opt = getopt_long(argc, argv, ":hn:u:", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
		case 'n':
			if ((rc = parse_uint("--top", optarg, 1000000, &top)))
				return rc;
			break;
		case 's':
			for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
				if (!strcmp(optarg, sort_names[i]))
					break;
			if (i == sizeof(sort_names) / sizeof(sort_names[0]))
				return err_exit(EX_USAGE, "--sort %s: use total, count, avg, p50, p99 or max",
						optarg);
			by = i;
			break;
		case 'f': folded = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'k': kallsyms = optarg; break;
		case 'r': raw = true; break;
		case 'h': return usage_rows(stdout);
		default: bad_option(argv, opt); return usage_rows(stderr);
		}
	}
	if (json)
		return err_exit(EX_USAGE, "rows has no --json: KEY-NAME is the stable format "
				"(or Python's kstats.trace(...).keys())");
	if (raw && kallsyms)
		return err_exit(EX_USAGE, "rows: --raw prints no symbols: drop --kallsyms %s", kallsyms);
	if ((rc = one_name("rows", argc, argv)))
		return usage_rows(stderr);
	name = argv[optind];
	/* A --kallsyms FILE must be there; /proc/kallsyms is used where it can be read. */
	if (kallsyms && !raw) {
		int e = ks_ksyms_load(kallsyms, &ks);

		if (e)
			return err_exit(e == ENOENT ? EX_NOINPUT : EX_IOERR, "--kallsyms %s: %s",
					kallsyms, strerror(e));
		have_ks = true;
	}
	rc = check_root();
	if (!rc)
		rc = rows_print(name, by, top, folded, u, have_ks ? &ks : NULL, raw);
	ks_ksyms_free(&ks);
	if (!rc && (fflush(stdout) || ferror(stdout)))
		return err_exit(EX_IOERR, "rows %s: standard output: %s", name, strerror(errno));
	return rc;
}
