// SPDX-License-Identifier: GPL-2.0
/* kstats plot: the distribution drawn by gnuplot. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kstats.h"

static int usage_plot(FILE *f)
{
	fputs("usage: kstats plot NAME -o FILE.svg|FILE.png|FILE.pdf\n"
	      "Draws the distribution with gnuplot: the density of each slot over\n"
	      "the slot's own width (zero over empty slots) and the cumulative\n"
	      "fraction (flat over empty slots), on a log-scale value axis when the\n"
	      "values span a decade or more, with p50, p99 and max, in the format\n"
	      "FILE's name ends with.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

/* Whether @prog is an executable file in a directory of $PATH. */
static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char dir[4096];

	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s/%s", (int)len, path, prog);
		if (!access(dir, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* gnuplot's terminal for the format @file's name asks for, or NULL. */
static const char *plot_terminal(const char *file)
{
	static const struct {
		const char *ext, *term;
	} terms[] = {
		{ ".svg", "svg size 900,500 dynamic enhanced" },
		{ ".png", "pngcairo size 900,500 enhanced" },
		{ ".pdf", "pdfcairo size 9in,5in enhanced" },
	};
	size_t i, len = strlen(file);

	for (i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
		if (len > strlen(terms[i].ext) &&
		    !strcasecmp(file + len - strlen(terms[i].ext), terms[i].ext))
			return terms[i].term;
	return NULL;
}

/* A non-empty slot's density: the fraction of samples per ns. */
static double slot_density(const struct ks_node *n, const struct ks_line *l)
{
	double width = (double)(ks_slot_top(l->slot, n->frac_bits) -
				ks_slot_base(l->slot, n->frac_bits)) + 1;

	return (double)l->count / n->samples / width;
}

/*
 * Where value @v stands on the value axis: a slot [lo, hi] covers
 * [lo, hi + 1). A log axis has no place for 0: there it stands at 0.5,
 * so that a slot holding 0 starts at 0.5.
 */
static double axis_x(double v, bool logx)
{
	return logx && v < 1 ? 0.5 : v;
}

/*
 * The axes the node calls for: a log value axis when its non-empty
 * slots span a decade or more; the density axis (log) from @ymin, a
 * power of ten at least half the least density, up: zero density is
 * drawn there, at the bottom of the frame.
 */
static void plot_axes(const struct ks_node *n, bool *logx, double *ymin)
{
	const struct ks_line *l;
	double lo = -1, hi = 0, dmin = 1;

	for (l = n->lines; l < n->lines + n->n_lines; l++) {
		if (!l->totals || !l->count)
			continue;
		if (lo < 0)
			lo = ks_slot_base(l->slot, n->frac_bits);
		hi = ks_slot_top(l->slot, n->frac_bits) + 1.0;
		if (slot_density(n, l) < dmin)
			dmin = slot_density(n, l);
	}
	*logx = hi >= 10 * axis_x(lo, true);
	for (*ymin = 1; *ymin > dmin / 2; *ymin /= 10)
		;
}

/*
 * The data gnuplot draws, to @f, as two outlines (gnuplot's index 0
 * and 1). The density: each non-empty slot level from its low edge to
 * its high edge, down to @ymin (zero) over empty slots and at both
 * ends. The cumulative fraction: rising across each non-empty slot from
 * the fraction below it to the node's p at its top, flat across empty
 * slots. Both are exact at every slot edge and say nothing between
 * non-empty slots that the node does not.
 */
static void plot_data(FILE *f, const struct ks_node *n, bool logx, double ymin)
{
	const struct ks_line *l;
	int cum;

	for (cum = 0; cum < 2; cum++) {
		double end = -1, below = 0, zero = ymin;

		for (l = n->lines; l < n->lines + n->n_lines; l++) {
			double lo, hi, p;

			if (!l->totals || !l->count)
				continue;
			lo = axis_x(ks_slot_base(l->slot, n->frac_bits), logx);
			hi = axis_x(ks_slot_top(l->slot, n->frac_bits) + 1.0, logx);
			p = strtod(l->p, NULL);
			if (cum)
				zero = below;
			if (end >= 0 && lo > end && !cum)
				fprintf(f, "%.17g %.9g\n", end, zero);
			if (end < 0 || lo > end)
				fprintf(f, "%.17g %.9g\n", lo, zero);
			if (cum)
				fprintf(f, "%.17g %.9g\n", hi, p);
			else
				fprintf(f, "%.17g %.9g\n%.17g %.9g\n", lo,
					slot_density(n, l), hi, slot_density(n, l));
			end = hi;
			below = p;
		}
		if (!cum)
			fprintf(f, "%.17g %.9g\n\n\n", end, ymin);
	}
}

int cmd_plot(int argc, char **argv)
{
	char dat[] = "/tmp/kstats-plot.XXXXXX", ns[3][32];
	const char *out = NULL, *term;
	struct ks_node n;
	FILE *f, *gp;
	double ymin;
	bool logx;
	int opt, rc, fd, st;

	while ((opt = getopt_long(argc, argv, ":ho:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'h': return usage_plot(stdout);
		default: bad_option(argv, opt); return usage_plot(stderr);
		}
	}
	if (one_name("plot", argc, argv))
		return usage_plot(stderr);
	if (!out) {
		err_exit(EX_USAGE, "plot: give -o FILE.svg, .png or .pdf");
		return usage_plot(stderr);
	}
	term = plot_terminal(out);
	if (!term)
		return err_exit(EX_USAGE, "-o %s: name a .svg, .png or .pdf file", out);
	if (!in_path("gnuplot"))
		return err_exit(EX_UNAVAILABLE, "gnuplot is not installed (apt install gnuplot-nox)");
	if ((rc = check_root()) || (rc = load(argv[optind], false, &n)))
		return rc;
	if (!n.samples) {
		ks_node_free(&n);
		return err_exit(EX_DATAERR, "%s has no samples to plot", argv[optind]);
	}
	fd = open(out, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_exit(EX_CANTCREAT, "-o %s: %s", out, strerror(errno));
		ks_node_free(&n);
		return rc;
	}
	close(fd);
	fd = mkstemp(dat);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = err_exit(EX_CANTCREAT, "%s: %s", dat, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(dat);
		}
		ks_node_free(&n);
		return rc;
	}
	plot_axes(&n, &logx, &ymin);
	plot_data(f, &n, logx, ymin);
	fclose(f);
	snprintf(ns[0], sizeof(ns[0]), "%.17g",
		 axis_x(ks_pct_get(&n, "p50")->value, logx));
	snprintf(ns[1], sizeof(ns[1]), "%.17g",
		 axis_x(ks_pct_get(&n, "p99")->value, logx));
	snprintf(ns[2], sizeof(ns[2]), "%.17g", axis_x(n.max, logx));
	/* gnuplot writes to stdout what it cannot write to the file. */
	gp = popen("gnuplot >/dev/null", "w");
	if (!gp) {
		unlink(dat);
		ks_node_free(&n);
		return err_exit(EX_OSERR, "cannot run gnuplot: %s", strerror(errno));
	}
	fprintf(gp,
		"set terminal %s\n"
		"set output '%s'\n"
		"set title 'kstats %s: %" PRIu64 " samples' noenhanced\n"
		"%s"
		"set xlabel 'value (ns%s)'\n"
		"set ylabel 'density (fraction of samples per ns)'\n"
		"set y2label 'cumulative fraction'\n"
		"set logscale y\n"
		"set yrange [%.9g:*]\n"
		"set y2range [0:1]\n"
		"set ytics nomirror\nset y2tics 0.1\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lc rgb 'blue'\n"
		"set label 'p50' at %s, graph 1.02 center\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lc rgb 'red'\n"
		"set label 'p99' at %s, graph 1.02 center\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 3 lc rgb 'black'\n"
		"set label 'max' at %s, graph 1.06 center\n"
		"plot '%s' index 0 with lines title 'density per slot', "
		"'' index 1 axes x1y2 with lines title 'cumulative fraction'\n",
		term, out, n.name, n.samples, logx ? "set logscale x\n" : "",
		logx ? ", log scale" : "", ymin, ns[0], ns[0], ns[0], ns[1], ns[1],
		ns[1], ns[2], ns[2], ns[2], dat);
	st = pclose(gp);
	unlink(dat);
	ks_node_free(&n);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		unlink(out);
		return err_exit(EX_SOFTWARE, "gnuplot failed to draw %s (its messages are above)", out);
	}
	return 0;
}
