// SPDX-License-Identifier: GPL-2.0
/* kstats show: a metric's summary and histogram (run prints with it too). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>

#include "kstats.h"

static int usage_show(FILE *f)
{
	fputs("usage: kstats show NAME [--cpu N] [--unit ns|us|ms|s|auto] [--slots] [--json]\n"
	      "The summary, then a histogram: one row per power of two (per slot\n"
	      "with --slots), of all CPUs or of CPU N.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

void print_summary(const struct ks_node *n, enum ks_unit u)
{
	char a[32], b[32], c[32];
	int i;

	printf("%s: %" PRIu64 " sample%s, missed %" PRIu64 ", %s", n->name,
	       n->samples, n->samples == 1 ? "" : "s", n->missed,
	       n->active ? "active" : "stopped");
	if (n->is_trace)
		printf(", trace by %s%s", n->method, n->gone ? " (gone)" : "");
	printf("\n  min %s  mean %s  max %s\n",
	       fmtv(a, sizeof(a), n->has_minmax, n->min, u),
	       fmtv(b, sizeof(b), n->has_minmax, n->mean, u),
	       fmtv(c, sizeof(c), n->has_minmax, n->max, u));
	for (i = 0; i < KS_NPCT; i++) {
		const struct ks_pct *p = &n->pct[i];

		printf("%s%s %s", i ? "  " : "  ", p->key,
		       fmtv(a, sizeof(a), p->has, p->value, u));
		if (p->has && p->err)
			printf(" (+-%s)", fmtv(b, sizeof(b), true, p->err, u));
	}
	putchar('\n');
}

/* Print NAME's summary and histogram (show and run share this). */
int show_node(const struct ks_node *n, int cpu, bool slots,
	      enum ks_unit u)
{
	struct ks_row *rows;
	enum ks_unit hu = u;
	int nr = ks_rows(n, cpu, slots, &rows);
	size_t i;

	if (nr < 0)
		return err_exit(EX_OSERR, "out of memory");
	if (json) {
		struct json_object *o = json_summary(n), *arr = json_object_new_array();
		struct json_object *rarr = json_object_new_array();

		json_object_object_add(o, "cpu", cpu >= 0 ? json_object_new_int(cpu) : NULL);
		for (i = 0; i < n->n_lines; i++) {
			const struct ks_line *l = &n->lines[i];
			struct json_object *s;

			if (cpu < 0 ? !l->totals : l->totals || l->cpu != (unsigned int)cpu)
				continue;
			s = json_object_new_object();
			json_object_object_add(s, "slot", json_object_new_int(l->slot));
			json_object_object_add(s, "low", ju64(ks_slot_base(l->slot, n->frac_bits)));
			json_object_object_add(s, "high", ju64(ks_slot_top(l->slot, n->frac_bits)));
			json_object_object_add(s, "count", ju64(l->count));
			json_object_object_add(s, "avg", ju64(l->avg));
			json_object_object_add(s, "p", json_object_new_double_s(atof(l->p), l->p));
			json_object_array_add(arr, s);
		}
		json_object_object_add(o, "slots", arr);
		for (i = 0; i < (size_t)nr; i++) {
			struct json_object *r = json_object_new_object();

			json_object_object_add(r, "low", ju64(rows[i].low));
			json_object_object_add(r, "high", ju64(rows[i].high));
			json_object_object_add(r, "count", ju64(rows[i].count));
			json_object_array_add(rarr, r);
		}
		json_object_object_add(o, "rows", rarr);
		print_json(o);
		free(rows);
		return 0;
	}
	print_summary(n, u);
	if (cpu >= 0) {
		uint64_t t = 0;

		for (i = 0; i < (size_t)nr; i++)
			t += rows[i].count;
		printf("  CPU %d: %" PRIu64 " sample%s (the figures above are of all CPUs)\n",
		       cpu, t, t == 1 ? "" : "s");
	}
	/* One unit for the whole table: the median's, unless given. */
	if (hu == KS_AUTO)
		hu = n->pct[0].has ? ks_unit_auto(n->pct[0].value) : KS_NS;
	putchar('\n');
	if (nr)
		ks_print_hist(stdout, rows, nr, hu, 40);
	else
		printf("  (no samples)\n");
	free(rows);
	return 0;
}

/* The CPUs a node's CPUS lines count (nr_cpu_ids), or 0 with no samples. */
static unsigned int node_cpus(const struct ks_node *n)
{
	size_t i;

	for (i = 0; i < n->n_lines; i++)
		if (n->lines[i].totals)
			return n->lines[i].cpu;
	return 0;
}

int cmd_show(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	unsigned long cpu = 0;
	bool have_cpu = false, slots = false;
	struct ks_node n;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, ":hju:c:s", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'c':
			if ((rc = parse_uint("--cpu", optarg, 65535, &cpu)))
				return rc;
			have_cpu = true;
			break;
		case 's': slots = true; break;
		case 'h': return usage_show(stdout);
		default: bad_option(argv, opt); return usage_show(stderr);
		}
	}
	if ((rc = one_name("show", argc, argv)))
		return usage_show(stderr);
	if ((rc = check_root()) || (rc = load(argv[optind], false, &n)))
		return rc;
	if (have_cpu && node_cpus(&n) && cpu >= node_cpus(&n)) {
		rc = err_exit(EX_USAGE, "--cpu %lu: %s counts CPUs 0 to %u", cpu,
			      argv[optind], node_cpus(&n) - 1);
		ks_node_free(&n);
		return rc;
	}
	rc = show_node(&n, have_cpu ? (int)cpu : -1, slots, u);
	ks_node_free(&n);
	return rc;
}
