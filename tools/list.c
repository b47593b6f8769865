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

/*
 * @names (sorted by metric_names()) with GAP-, BLOCKED- and RUNQ-NAME
 * after NAME when NAME is listed too, rather than all GAP- nodes first.
 */
static void group_parts(char **names, int n)
{
	static const char *const parts[] = { "GAP-", "BLOCKED-", "RUNQ-" };
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
	for (i = 0; i < n; i++)
		names[i] = l[i].name;
	free(l);
}

static int usage_list(FILE *f)
{
	fputs("usage: kstats list [--json] [--unit ns|us|ms|s|auto]\n"
	      "One line per metric: samples, p50, p99 and max; traces show their\n"
	      "method and missed count.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int cmd_list(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	struct json_object *arr = NULL;
	char **names, a[32], b[32], c[32], tr[64];
	int opt, n, i, rc;

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
	group_parts(names, n);
	if (json)
		arr = json_object_new_array();
	else
		printf("%-28s %10s %12s %12s %12s  %s\n", "NAME", "SAMPLES", "P50",
		       "P99", "MAX", "TRACE");
	for (i = 0; i < n; i++) {
		struct ks_node nd;
		const struct ks_pct *p50, *p99;

		rc = load(names[i], false, &nd);
		if (rc == EX_NOINPUT)
			continue;	/* removed since the listing: not an error */
		if (rc) {
			free_names(names, n);
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
		if (nd.is_trace)
			snprintf(tr, sizeof(tr), "%s missed %" PRIu64 "%s", nd.method,
				 nd.trace_missed, nd.gone ? " gone" : "");
		else
			snprintf(tr, sizeof(tr), "-");
		printf("%-28s %10" PRIu64 " %12s %12s %12s  %s\n", nd.name,
		       nd.samples, fmtv(a, sizeof(a), p50->has, p50->value, u),
		       fmtv(b, sizeof(b), p99->has, p99->value, u),
		       fmtv(c, sizeof(c), nd.has_minmax, nd.max, u), tr);
		ks_node_free(&nd);
	}
	free_names(names, n);
	if (json)
		print_json(arr);
	return 0;
}
