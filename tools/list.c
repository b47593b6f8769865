// SPDX-License-Identifier: GPL-2.0
/* kstats list: one line per metric. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"

/* A name of the list: a trace's part nodes sort right after the trace. */
struct listed {
	char *name;
	const char *base;	/* the trace's name, or the name itself */
	int rank;		/* 0 the trace (or a metric), then its parts' order */
};

static int cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	return c ? c : x->rank - y->rank;
}

static const char *const parts[] = { "GAP-", "BLOCKED-", "RUNQ-" };
/* What a part's TRACE column says, and the footnote (stderr) that explains it once. */
static const char *const part_of[] = { "gap of", "blocked of", "runq of" };
static const char *const part_note[] = {
	"GAP-NAME: the time from the end of one call of trace NAME to the start of\n"
	"  the next on the same CPU (kstats trace NAME ... gap off leaves it out).\n",
	"BLOCKED-NAME, RUNQ-NAME: the two parts of off-CPU trace NAME's waits:\n"
	"  blocked until woken, then waiting for a CPU.\n",
	NULL,
};

/*
 * @names (sorted by metric_names()) with GAP-, BLOCKED- and RUNQ-NAME
 * after NAME when NAME is listed too, rather than all GAP- nodes first;
 * @rank[i] 0 for a trace (or a metric), else 1 + its part's index.
 */
static void group_parts(char **names, int n, int *rank)
{
	struct listed *l = calloc(n ? n : 1, sizeof(*l));
	int i;
	size_t p;

	if (!l)
		return;		/* the plain order, then */
	for (i = 0; i < n; i++) {
		l[i].name = names[i];
		l[i].base = names[i];
		for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
			const char *base = names[i] + strlen(parts[p]);

			if (!strncmp(names[i], parts[p], strlen(parts[p])) &&
			    bsearch(&base, names, n, sizeof(*names), cmp_str)) {
				l[i].base = base;
				l[i].rank = p + 1;
				break;
			}
		}
	}
	qsort(l, n, sizeof(*l), cmp_listed);
	for (i = 0; i < n; i++) {
		names[i] = l[i].name;
		rank[i] = l[i].rank;
	}
	free(l);
}

#define LCOLS 6
/* Column widths: the headers' (at least these), else the widest cell. */
static const int min_w[LCOLS] = { 28, 10, 12, 12, 12, 0 };
static const char *const heads[LCOLS] = { "NAME", "SAMPLES", "P50", "P99", "MAX", "TRACE" };

static void print_line(char cell[LCOLS][160], const int *w)
{
	printf("%-*s %*s %*s %*s %*s  %s\n", w[0], cell[0], w[1], cell[1], w[2], cell[2],
	       w[3], cell[3], w[4], cell[4], cell[5]);
}

static int usage_list(FILE *f)
{
	fputs("usage: kstats list [--json] [--unit ns|us|ms|s|auto]\n"
	      "One line per metric: samples, p50, p99 and max; traces show their\n"
	      "method and missed count, a trace's GAP-, BLOCKED- and RUNQ-NAME whose\n"
	      "part they are (\"gap of NAME\"), explained once below the table.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int cmd_list(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	struct json_object *arr = NULL;
	char **names, (*cells)[LCOLS][160];
	int opt, n, i, rc, c, rows = 0, w[LCOLS], *rank;
	bool noted[2] = { false, false };

	while ((opt = getopt_long(argc, argv, "+:hju:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'h': return usage_list(stdout);
		default: bad_option(argv, opt); return usage_list(stderr);
		}
	}
	if (optind != argc) {
		err_exit(EX_USAGE, "list takes no NAME: '%s'", argv[optind]);
		return usage_list(stderr);
	}
	if ((rc = check_root()))
		return rc;
	n = metric_names(&names);
	if (n < 0)
		return node_error("list", root, errno);
	rank = calloc(n ? n : 1, sizeof(*rank));
	cells = calloc(n + 1, sizeof(*cells));
	if (!rank || !cells) {
		free(rank);
		free(cells);
		free_names(names, n);
		return err_exit(EX_OSERR, "out of memory");
	}
	group_parts(names, n, rank);
	if (json)
		arr = json_object_new_array();
	for (c = 0; c < LCOLS; c++) {
		snprintf(cells[0][c], sizeof(cells[0][c]), "%s", heads[c]);
		w[c] = min_w[c];
	}
	for (i = 0; i < n; i++) {
		struct ks_node nd;
		const struct ks_pct *p50, *p99;
		char (*cl)[160] = cells[rows + 1];

		rc = load(names[i], false, &nd);
		if (rc == EX_NOINPUT)
			continue;	/* removed since the listing: not an error */
		if (rc) {
			free_names(names, n);
			free(rank);
			free(cells);
			json_object_put(arr);
			return rc;
		}
		if (json) {
			json_object_array_add(arr, json_summary(&nd));
			ks_node_free(&nd);
			continue;
		}
		p50 = ks_pct_get(&nd, "p50");
		p99 = ks_pct_get(&nd, "p99");
		if (rank[i]) {
			snprintf(cl[5], sizeof(cl[5]), "%s %s", part_of[rank[i] - 1],
				 names[i] + strlen(parts[rank[i] - 1]));
			noted[rank[i] == 1 ? 0 : 1] = true;
		} else if (nd.is_trace) {
			snprintf(cl[5], sizeof(cl[5]), "%s missed %" PRIu64 "%s", nd.method,
				 nd.trace_missed, nd.gone ? " gone" : "");
		} else {
			snprintf(cl[5], sizeof(cl[5]), "-");
		}
		snprintf(cl[0], sizeof(cl[0]), "%s", nd.name);
		snprintf(cl[1], sizeof(cl[1]), "%" PRIu64, nd.samples);
		fmtv(cl[2], sizeof(cl[2]), p50->has, p50->value, u);
		fmtv(cl[3], sizeof(cl[3]), p99->has, p99->value, u);
		fmtv(cl[4], sizeof(cl[4]), nd.has_minmax, nd.max, u);
		for (c = 0; c < LCOLS; c++)
			if ((int)strlen(cl[c]) > w[c])
				w[c] = strlen(cl[c]);
		rows++;
		ks_node_free(&nd);
	}
	if (!json) {
		for (i = 0; i <= rows; i++)
			print_line(cells[i], w);
		/* On stderr: a script reading the table gets the table alone. */
		fflush(stdout);
		for (c = 0; c < 2; c++)
			if (noted[c])
				fprintf(stderr, "%s%s", c && noted[0] ? "" : "\n", part_note[c]);
	}
	free(rank);
	free(cells);
	free_names(names, n);
	if (json)
		print_json(arr);
	return 0;
}
