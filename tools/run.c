// SPDX-License-Identifier: GPL-2.0
/* kstats run: trace, print, remove. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamesvg.h"
#include "kstats.h"

static int usage_run(FILE *f)
{
	fputs("usage: kstats run [-d SECONDS] [-i SECONDS [--cumulative]] [--unit U] [--top N]\n"
	      "                  [--svg FILE] NAME [TRACE-WORDS...]\n"
	      "Sets up \"trace NAME TRACE-WORDS\", prints its histogram every -i seconds,\n"
	      "or once at the end (after -d seconds, or at Ctrl-C or SIGTERM; stopped\n"
	      "for the last, so that it holds every loss), then removes the trace, also\n"
	      "on SIGINT and SIGTERM. -d 0 (the default):\n"
	      "until Ctrl-C or SIGTERM; -i 0 (the default): only at the end.\n"
	      "With -i, each print is of that interval alone, as funclatency -i prints\n"
	      "(from _interval/NAME, lossless), and the whole run's summary follows the\n"
	      "last; --cumulative prints everything since the trace began each time.\n"
	      "Once the trace is live it says so on stderr (\"Tracing NAME...\").\n"
	      "Options go before NAME: the words after it are the trace's.\n"
	      "A keyed trace (key ...) prints its rows after the last figures, as\n"
	      "kstats rows prints them: the --top N (default 10; 0: all) largest by\n"
	      "total time (not with --json).\n"
	      "--svg FILE: after the last figures, the trace's rows drawn as a flame\n"
	      "graph into FILE, as kstats flame NAME --svg draws them; the trace needs\n"
	      "a key (e.g. key kstack).\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

/* Whether the trace's words give it a key ("key K"; comm's value aside). */
static bool has_key(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc - 1; i++) {
		if (!strcmp(argv[i], "comm"))
			i++;
		else if (!strcmp(argv[i], "key"))
			return true;
	}
	return false;
}

/*
 * run's options after NAME (kstats run rd start vfs_read -d 1) would go to
 * _control as words of the trace: say that they go before NAME, and how
 * the command reads with them there. Returns 0 or 64.
 */
/* Whether argv[i] is the value of a comm filter (which may start with '-'). */
static bool comm_value(char **argv, int i, int name_at)
{
	return !strcmp(argv[i - 1], "comm") &&
	       (i - 2 <= name_at || strcmp(argv[i - 2], "key"));
}

static int options_after_name(int argc, char **argv, int name_at)
{
	static const char *const with_value[] = {
		"-d", "-i", "-u", "--duration", "--interval", "--unit", "--svg",
		"--top"
	};
	char *fixed, *opts, *words;
	size_t len = 0, o = 0, w = 0, k;
	int i, rc;
	bool any = false;

	for (i = name_at + 1; i < argc; i++) {
		len += strlen(argv[i]) + 1;
		if (comm_value(argv, i, name_at))
			continue;
		if (argv[i][0] == '-' && (argv[i][1] == '-' || isalpha((unsigned char)argv[i][1])))
			any = true;
	}
	if (!any)
		return 0;
	opts = calloc(1, len + 1);
	words = calloc(1, len + strlen(argv[name_at]) + 2);
	fixed = NULL;
	if (!opts || !words) {
		free(opts);
		free(words);
		return err_exit(EX_OSERR, "out of memory");
	}
	w += sprintf(words + w, "%s", argv[name_at]);
	for (i = name_at + 1; i < argc; i++) {
		bool opt = !comm_value(argv, i, name_at) && argv[i][0] == '-' &&
			   (argv[i][1] == '-' || isalpha((unsigned char)argv[i][1]));

		if (!opt) {
			w += sprintf(words + w, " %s", argv[i]);
			continue;
		}
		o += sprintf(opts + o, "%s ", argv[i]);
		for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
			if (!strcmp(argv[i], with_value[k]) && i + 1 < argc) {
				o += sprintf(opts + o, "%s ", argv[++i]);
				break;
			}
	}
	if (asprintf(&fixed, "kstats run %s%s", opts, words) < 0)
		fixed = NULL;
	rc = err_exit(EX_USAGE, "run: options go before NAME, the words after it are the trace's "
		      "(_control has no word '-...'): %s", fixed ? fixed : "kstats run [OPTIONS] NAME WORDS...");
	free(fixed);
	free(opts);
	free(words);
	return rc;
}

/* --svg's @f of @file, when there is one, closed and removed: nothing to draw. */
static void svg_drop(FILE *f, const char *file)
{
	if (!f)
		return;
	fclose(f);
	unlink(file);
}

/*
 * The flame graph of trace @name's rows into @f (@file), as flame --svg
 * draws it; @f is closed, and @file removed when nothing whole was
 * written. Returns 0 or an exit status.
 */
static int run_svg(FILE *f, const char *file, const char *name)
{
	struct ks_flame_opts o = { .minwidth = KS_FLAME_MINWIDTH };
	struct ks_keynode k;
	int rc;

	rc = load_keynode("run --svg", name, &k);
	if (!rc) {
		rc = keynode_svg(f, file, name, &k, &o);
		ks_keynode_free(&k);
	}
	if (rc) {
		svg_drop(f, file);
		return rc;
	}
	if (fclose(f)) {
		unlink(file);
		return err_exit(EX_IOERR, "run --svg %s: %s", file, strerror(errno));
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	unsigned long dur = 0, ival = 0, top = 10;
	struct timespec now, end, next;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "unit", required_argument, NULL, 'u' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "svg", required_argument, NULL, 's' },
		{ "cumulative", no_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *name, *svg = NULL;
	FILE *svg_f = NULL;
	char *rmv[1];
	bool cumulative = false, keyed;
	int opt, rc, rc2;

	while ((opt = getopt_long(argc, argv, "+:hju:d:i:", opts, NULL)) != -1) {
		switch (opt) {
		case 's': svg = optarg; break;
		case 'c': cumulative = true; break;
		case 't':
			if ((rc = parse_uint("--top", optarg, 1000000, &top)))
				return rc;
			break;
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
	if ((rc = options_after_name(argc, argv, optind)))
		return rc;
	if (cumulative && !ival)
		return err_exit(EX_USAGE, "run: --cumulative is a way to print each -i interval: give -i SECONDS");
	name = argv[optind];
	keyed = has_key(argc - optind - 1, argv + optind + 1);
	if (svg && !keyed)
		return err_exit(EX_USAGE, "run --svg %s: trace %s has no key, so no rows to draw: "
				"add key kstack (or key comm, ...) to its words", svg, name);
	if (svg) {
		svg_f = fopen(svg, "w");
		if (!svg_f)
			return err_exit(EX_CANTCREAT, "run --svg %s: %s", svg, strerror(errno));
	}
	/* Signals must not kill us between trace and remove. */
	install_signals();
	if ((rc = control("trace", argc - optind, argv + optind))) {
		svg_drop(svg_f, svg);
		return rc;
	}
	/* As bcc's tools say it: the trace is live, start the workload now. */
	if (dur)
		fprintf(stderr, "Tracing %s for %lu s... Hit Ctrl-C to end sooner.\n", name, dur);
	else
		fprintf(stderr, "Tracing %s... Hit Ctrl-C to end.\n", name);
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
			/*
			 * Each interval alone (funclatency -i), from _interval/NAME:
			 * its first read ends the interval that began when the
			 * trace was created, each later one the one before.
			 */
			bool each = ival && !cumulative;

			rc = load(name, each, &n);
			if (rc)
				break;
			if (!json && ival) {
				char ts[32];

				timestamp(ts, sizeof(ts));
				if (each)
					printf("%s%s: interval, the samples of the last %lu s%s\n", ts,
					       last ? " (end)" : "", ival,
					       last ? " or less (up to the end)" : "");
				else
					printf("%s%s: cumulative, every sample since the trace began\n", ts,
					       last ? " (end)" : "");
			}
			show_node(&n, -1, false, u);
			ks_node_free(&n);
			if (each && last && !json) {
				/* The whole run: the node, stopped, every sample and loss. */
				rc = load(name, false, &n);
				if (rc)
					break;
				printf("\ntotal, every sample since the trace began:\n");
				print_summary(&n, u);
				ks_node_free(&n);
			}
			fflush(stdout);
		}
		if (last)
			break;
	}
	/* The rows as they were at the last figures: KEY-NAME goes with the remove. */
	if (!rc && keyed && !json) {
		putchar('\n');
		rc = rows_print(name, 0, top, false, u, NULL, false);
		fflush(stdout);
	}
	if (rc)
		svg_drop(svg_f, svg);
	else if (svg_f)
		rc = run_svg(svg_f, svg, name);
	rmv[0] = (char *)name;
	rc2 = control("remove", 1, rmv);
	return rc ? rc : rc2;
}
