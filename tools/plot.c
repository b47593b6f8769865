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
	      "Draws the distribution with gnuplot: density per slot and the\n"
	      "cumulative fraction on a log-scale value axis, with p50, p99 and max,\n"
	      "in the format FILE's name ends with.\n", f);
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

int cmd_plot(int argc, char **argv)
{
	char dat[] = "/tmp/kstats-plot.XXXXXX", ns[3][32];
	const char *out = NULL, *term;
	struct ks_node n;
	FILE *f, *gp;
	size_t i;
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
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return err_exit(EX_CANTCREAT, "%s: %s", dat, strerror(errno));
	/* low high density(per ns) cumulative: one line per non-empty slot. */
	for (i = 0; i < n.n_lines; i++) {
		const struct ks_line *l = &n.lines[i];
		uint64_t lo, hi;

		if (!l->totals)
			continue;
		lo = ks_slot_base(l->slot, n.frac_bits);
		hi = ks_slot_top(l->slot, n.frac_bits);
		fprintf(f, "%" PRIu64 " %" PRIu64 " %.9g %s\n", lo, hi,
			(double)l->count / n.samples / (double)(hi - lo + 1), l->p);
	}
	fclose(f);
	snprintf(ns[0], sizeof(ns[0]), "%" PRIu64, ks_pct_get(&n, "p50")->value);
	snprintf(ns[1], sizeof(ns[1]), "%" PRIu64, ks_pct_get(&n, "p99")->value);
	snprintf(ns[2], sizeof(ns[2]), "%" PRIu64, n.max);
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
		"set logscale x\n"
		"set xlabel 'value (ns, log scale)'\n"
		"set ylabel 'density (fraction of samples per ns)'\n"
		"set y2label 'cumulative fraction'\n"
		"set logscale y\n"
		"set y2range [0:1]\n"
		"set ytics nomirror\nset y2tics 0.1\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lc rgb 'blue'\n"
		"set label 'p50' at %s, graph 1.02 center\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lc rgb 'red'\n"
		"set label 'p99' at %s, graph 1.02 center\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 3 lc rgb 'black'\n"
		"set label 'max' at %s, graph 1.06 center\n"
		"plot '%s' using (($1+$2+1)/2):3 with steps title 'density per slot', "
		"'' using ($2+1):4 axes x1y2 with lines title 'cumulative fraction'\n",
		term, out, n.name, n.samples, ns[0], ns[0], ns[0], ns[1], ns[1], ns[1],
		ns[2], ns[2], ns[2], dat);
	st = pclose(gp);
	unlink(dat);
	ks_node_free(&n);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		unlink(out);
		return err_exit(EX_SOFTWARE, "gnuplot failed to draw %s (its messages are above)", out);
	}
	return 0;
}
