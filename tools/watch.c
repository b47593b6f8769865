// SPDX-License-Identifier: GPL-2.0
/* kstats watch: one summary per interval, from _interval/NAME. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>

#include "kstats.h"

static int usage_watch(FILE *f)
{
	fputs("usage: kstats watch NAME [-i SECONDS] [-n COUNT] [--unit U] [--json]\n"
	      "Every SECONDS (default 1), the summary of the samples recorded in\n"
	      "that interval (from _interval/NAME, lossless), with a UTC timestamp.\n"
	      "Stops after COUNT intervals (-n 0, the default: until Ctrl-C), or at Ctrl-C.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int cmd_watch(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	unsigned long ival = 1, count = 0, k;
	struct timespec next;
	struct ks_node n;
	char ts[32], a[32], b[32], c[32], path[4096];
	int opt, rc;

	while ((opt = getopt_long(argc, argv, ":hju:i:n:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'i':
			if ((rc = parse_range("-i", optarg, 1, 86400, &ival)))
				return rc;
			break;
		case 'n':
			if ((rc = parse_uint("-n", optarg, 2147483647, &count)))
				return rc;
			break;
		case 'h': return usage_watch(stdout);
		default: bad_option(argv, opt); return usage_watch(stderr);
		}
	}
	if (optind != argc - 1)
		return usage_watch(stderr);
	if ((rc = check_root()))
		return rc;
	/* This open ends the interval before the first one we show. */
	if ((rc = load(argv[optind], true, &n)))
		return rc;
	ks_node_free(&n);
	install_signals();
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (k = 0; !count || k < count; k++) {
		next.tv_sec += ival;
		if (!sleep_until(&next))
			break;
		snprintf(path, sizeof(path), "%s/_interval/%s", root, argv[optind]);
		if (access(path, F_OK) && errno == ENOENT)
			return err_exit(EX_IOERR, "%s: the metric was removed while being watched",
					argv[optind]);
		rc = load(argv[optind], true, &n);
		if (rc)
			return rc;
		timestamp(ts, sizeof(ts));
		if (json) {
			struct json_object *o = json_summary(&n);

			json_object_object_add(o, "time", json_object_new_string(ts));
			json_object_object_add(o, "interval", json_object_new_int64(ival));
			print_json(o);
		} else {
			const struct ks_pct *p50 = ks_pct_get(&n, "p50"),
					    *p99 = ks_pct_get(&n, "p99");

			printf("%s %s samples %" PRIu64 " p50 %s p99 %s max %s missed %" PRIu64 "\n",
			       ts, n.name, n.samples,
			       fmtv(a, sizeof(a), p50->has, p50->value, u),
			       fmtv(b, sizeof(b), p99->has, p99->value, u),
			       fmtv(c, sizeof(c), n.has_minmax, n.max, u), n.missed);
		}
		fflush(stdout);
		ks_node_free(&n);
	}
	return 0;
}
