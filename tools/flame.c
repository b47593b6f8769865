// SPDX-License-Identifier: GPL-2.0
/*
 * kstats flame: a keyed trace's rows as folded stacks (ks_fold()), or
 * drawn as an SVG flame graph (flamesvg.c), or folded stacks from a
 * file drawn.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamesvg.h"
#include "kstats.h"

static int usage_flame(FILE *f)
{
	fputs("usage: kstats flame NAME [--count] [--svg [--title TEXT] [--width PX] [--minwidth PX]]\n"
	      "       kstats flame --svg --folded FILE|- [--count|--unit U] [--title TEXT] [--width PX]\n"
	      "                    [--minwidth PX]\n"
	      "The rows of KEY-NAME as folded stacks for flamegraph.pl or speedscope:\n"
	      "one line per row, frames root first, then its total (ns) or, with\n"
	      "--count, its count. Needs a trace with a key, e.g. key kstack.\n"
	      "--svg draws them instead: an interactive SVG flame graph on standard\n"
	      "output (hover for figures, click to zoom, Ctrl-F to search), frames\n"
	      "as wide as their time (--count: their count), narrower than --minwidth\n"
	      "(0.1 px) left out. --folded FILE draws folded stacks from FILE (- for\n"
	      "standard input) instead of a trace's; --count says its values are counts,\n"
	      "--unit U (ns, us, ms or s; default ns) that they are times in U: bcc's\n"
	      "offcputime -f writes us.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

/* The folded lines of @folded drawn to standard output. */
static int draw(const char *folded, const struct ks_flame_opts *o, const char *what)
{
	char err[160];

	if (ks_flame_svg(stdout, folded, o, err, sizeof(err)) < 0)
		return err_exit(EX_DATAERR, "%s: %s", what, err);
	if (fflush(stdout) || ferror(stdout))
		return err_exit(EX_IOERR, "flame %s: standard output: %s", what, strerror(errno));
	return 0;
}

/* kstats flame --svg --folded FILE|-. */
static int draw_file(const char *file, struct ks_flame_opts *o)
{
	const char *what = strcmp(file, "-") ? file : "standard input";
	char *text = NULL, title[512];
	int e, rc;

	e = read_all(strcmp(file, "-") ? file : "/dev/stdin", &text);
	if (e)
		return err_exit(e == ENOENT ? EX_NOINPUT : EX_IOERR, "flame --folded %s: %s",
				what, strerror(e));
	if (!o->title) {
		snprintf(title, sizeof(title), "Flame Graph: %s", what);
		o->title = title;
	}
	rc = draw(text, o, what);
	free(text);
	return rc;
}

int cmd_flame(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", no_argument, NULL, 'c' },
		{ "svg", no_argument, NULL, 's' },
		{ "folded", required_argument, NULL, 'f' },
		{ "title", required_argument, NULL, 't' },
		{ "width", required_argument, NULL, 'w' },
		{ "minwidth", required_argument, NULL, 'm' },
		{ "unit", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *name, *folded = NULL;
	struct ks_flame_opts o = { .minwidth = KS_FLAME_MINWIDTH };
	struct ks_keynode k;
	bool svg = false;
	unsigned long w;
	char *end;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': o.count = true; break;
		case 's': svg = true; break;
		case 'f': folded = optarg; break;
		case 't': o.title = optarg; break;
		case 'w':
			if (parse_range("--width", optarg, 200, 100000, &w))
				return EX_USAGE;
			o.width = w;
			break;
		case 'm':
			errno = 0;
			o.minwidth = strtod(optarg, &end);
			if (errno || !*optarg || *end || !(o.minwidth >= 0 && o.minwidth <= 1000))
				return err_exit(EX_USAGE, "--minwidth %s: not a number of px from 0 to 1000",
						optarg);
			break;
		case 'u':
			o.ns_per_value = !strcmp(optarg, "ns") ? 1 : !strcmp(optarg, "us") ? 1000 :
					 !strcmp(optarg, "ms") ? 1000000 :
					 !strcmp(optarg, "s") ? 1000000000 : 0;
			if (!o.ns_per_value)
				return err_exit(EX_USAGE, "--unit %s: expected ns, us, ms or s", optarg);
			break;
		case 'h': return usage_flame(stdout);
		default: bad_option(argv, opt); return usage_flame(stderr);
		}
	}
	if ((o.title || o.width || o.minwidth != KS_FLAME_MINWIDTH || folded) && !svg)
		return err_exit(EX_USAGE, "flame: --folded, --title, --width and --minwidth draw: add --svg");
	if (o.ns_per_value && !folded)
		return err_exit(EX_USAGE, "flame: --unit is for --folded FILE (a trace's times are ns)");
	if (o.ns_per_value && o.count)
		return err_exit(EX_USAGE, "flame: --count and --unit: values are counts or times, not both");
	if (folded) {
		if (optind != argc)
			return err_exit(EX_USAGE, "flame --folded %s takes no NAME: '%s' too",
					folded, argv[optind]);
		return draw_file(folded, &o);
	}
	if (optind != argc - 1)
		return usage_flame(stderr);
	name = argv[optind];
	if ((rc = check_root()) || (rc = load_keynode("flame", name, &k)))
		return rc;
	if (svg)
		rc = keynode_svg(stdout, "standard output", name, &k, &o);
	else if (ks_fold(stdout, &k, o.count) < 0)
		rc = no_key(name);
	ks_keynode_free(&k);
	if (rc)
		return rc;
	if (fflush(stdout) || ferror(stdout))
		return err_exit(EX_IOERR, "flame %s: standard output: %s", name, strerror(errno));
	return 0;
}
