// SPDX-License-Identifier: GPL-2.0
/* kstats run: trace, print, remove. */
#define _GNU_SOURCE

#include "kstats.h"

static int usage_run(FILE *f)
{
	fputs("usage: kstats run [-d SECONDS] [-i SECONDS] [--unit U] NAME [TRACE-WORDS...]\n"
	      "Sets up \"trace NAME TRACE-WORDS\", prints its histogram every -i seconds,\n"
	      "or once at the end (after -d seconds, or at Ctrl-C or SIGTERM; stopped\n"
	      "for the last, so that it holds every loss), then removes the trace, also\n"
	      "on SIGINT and SIGTERM. -d 0 (the default):\n"
	      "until Ctrl-C or SIGTERM; -i 0 (the default): only at the end.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int cmd_run(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	unsigned long dur = 0, ival = 0;
	struct timespec now, end, next;
	const char *name;
	char *rmv[1];
	int opt, rc, rc2;

	while ((opt = getopt_long(argc, argv, "+:hju:d:i:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'd':
			if ((rc = parse_uint("-d", optarg, 86400 * 365, &dur)))
				return rc;
			break;
		case 'i':
			if ((rc = parse_uint("-i", optarg, 86400, &ival)))
				return rc;
			break;
		case 'h': return usage_run(stdout);
		default: bad_option(argv, opt); return usage_run(stderr);
		}
	}
	if (optind >= argc) {
		err_exit(EX_USAGE, "run: give NAME (and the trace's words)");
		return usage_run(stderr);
	}
	name = argv[optind];
	/* Signals must not kill us between trace and remove. */
	install_signals();
	if ((rc = control("trace", argc - optind, argv + optind)))
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &now);
	end = now;
	end.tv_sec += dur;
	next = now;
	rc = 0;
	for (;;) {
		struct ks_node n;
		bool last;

		next.tv_sec += ival ? ival : dur ? dur : 86400;
		if (dur && (next.tv_sec > end.tv_sec))
			next = end;
		last = !sleep_until(&next) ||
		       (dur && next.tv_sec == end.tv_sec && next.tv_nsec == end.tv_nsec);
		/*
		 * The last figures: stopped first. A stopped trace's counts,
		 * its losses included, stay as they are until the remove, so
		 * these are the figures the remove reports ("trace NAME:
		 * removed, N missed" in dmesg).
		 */
		if (last) {
			rc = node_cmd("stop", name);
			if (rc)
				break;
		}
		if (ival || last) {
			rc = load(name, false, &n);
			if (rc)
				break;
			if (!json && ival) {
				char ts[32];

				timestamp(ts, sizeof(ts));
				printf("%s%s\n", ts, last ? " (end)" : "");
			}
			show_node(&n, -1, false, u);
			fflush(stdout);
			ks_node_free(&n);
		}
		if (last)
			break;
	}
	rmv[0] = (char *)name;
	rc2 = control("remove", 1, rmv);
	return rc ? rc : rc2;
}
