// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: read and control kstats' debugfs nodes (see kstats(8)).
 * It parses the nodes' summary lines and does no percentile math of its
 * own: every figure it prints comes from the kernel's lines.
 */
#define _GNU_SOURCE
#include <string.h>

#include "kstats.h"

static int usage(FILE *f)
{
	fputs("usage: kstats [--root DIR] [--dev DEV] [--json] COMMAND [ARGS]\n"
	      "commands:\n"
	      "  list                       metrics with samples, p50, p99, max\n"
	      "  show NAME                  summary and ASCII histogram\n"
	      "  watch NAME                 one summary per interval\n"
	      "  trace NAME WORDS...        set up a trace (the words of _control)\n"
	      "  remove NAME                remove a trace\n"
	      "  run [-d S] [-i S [--cumulative]] [--svg FILE] NAME WORDS...  trace, print, remove\n"
	      "                             (-i: each interval alone; --svg: and draw its flame graph)\n"
	      "  reset|stop|start NAME      control a metric\n"
	      "  export --prometheus [--gap] [--keys]  Prometheus text exposition format\n"
	      "                             (--keys: keyed rows, labelled by cgroup, comm, ...)\n"
	      "  plot NAME -o FILE.svg      the distribution as SVG, PNG or PDF (gnuplot)\n"
	      "  rows NAME [--top N] [--sort K]  a keyed trace's rows as a table\n"
	      "  flame NAME [--count] [--svg]  a keyed trace's rows as folded stacks,\n"
	      "                             or drawn as an SVG flame graph\n"
	      "KSTATS_ROOT=DIR or --root DIR reads DIR instead of " DEFAULT_ROOT ".\n"
	      "Commands go to " DEFAULT_DEV " (or _control and the nodes on older modules,\n"
	      "which have no " DEFAULT_DEV "); KSTATS_DEV=DEV or --dev DEV names another.\n"
	      "COMMAND --help describes each command; kstats(8) the rest.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "list", cmd_list }, { "show", cmd_show }, { "watch", cmd_watch },
		{ "trace", cmd_trace }, { "remove", cmd_remove }, { "run", cmd_run },
		{ "reset", cmd_node_word }, { "stop", cmd_node_word },
		{ "start", cmd_node_word }, { "export", cmd_export },
		{ "plot", cmd_plot }, { "flame", cmd_flame }, { "rows", cmd_rows },
	};
	int i;

	/* Commands say what is wrong with an option themselves: bad_option(). */
	opterr = 0;
	root = getenv("KSTATS_ROOT");
	root_given = root && *root;
	if (!root_given)
		root = DEFAULT_ROOT;
	if (getenv("KSTATS_DEV") && *getenv("KSTATS_DEV"))
		dev = getenv("KSTATS_DEV");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dev")) {
			if (i + 1 >= argc)
				return err_exit(EX_USAGE, "--dev needs a DEV");
			dev = argv[++i];
		} else if (!strncmp(argv[i], "--dev=", 6)) {
			dev = argv[i] + 6;
		} else if (!strcmp(argv[i], "--root")) {
			if (i + 1 >= argc)
				return err_exit(EX_USAGE, "--root needs a DIR");
			root = argv[++i];
			root_given = true;
		} else if (!strncmp(argv[i], "--root=", 7)) {
			root = argv[i] + 7;
			root_given = true;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return usage(stdout);
		} else {
			break;
		}
	}
	if (i >= argc)
		return usage(stderr);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (!strcmp(argv[i], cmds[c].name)) {
			optind = 1;
			return cmds[c].fn(argc - i, argv + i);
		}
	err_exit(EX_USAGE, argv[i][0] == '-' ? "unknown option '%s' (before the command: --root DIR, --dev DEV, --json, --help)" :
		 "unknown command '%s'", argv[i]);
	return usage(stderr);
}
