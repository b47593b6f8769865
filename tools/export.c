// SPDX-License-Identifier: GPL-2.0
/* kstats export: Prometheus text exposition format. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kstats.h"

/* GAP-NAME of a trace NAME that is listed too: its base, else NULL. */
static const char *gap_base(char **names, int n, const char *name)
{
	const char *base = name + strlen(GAP_PREFIX);

	if (strncmp(name, GAP_PREFIX, strlen(GAP_PREFIX)) ||
	    !bsearch(&base, names, n, sizeof(*names), cmp_str))
		return NULL;
	return base;
}

/*
 * Every node, as Prometheus families: nodes whose names map to one metric
 * name (a.b, a_b, a-b) are one family with a node label each, in the
 * order of the first of them. A trace's GAP-NAME is left out, or with
 * @gap is a part="gap" series of NAME's family (NAME's own part="duration").
 */
static int export_families(FILE *f, char **names, int n, enum ks_buckets bk,
			   bool per_cpu, bool gap)
{
	struct ks_node *nd = calloc(n ? n : 1, sizeof(*nd));
	const struct ks_node **fam = calloc(n ? n : 1, sizeof(*fam));
	const char **part = calloc(n ? n : 1, sizeof(*part));
	const char **fpart = calloc(n ? n : 1, sizeof(*fpart));
	char (*pn)[160] = calloc(n ? n : 1, sizeof(*pn));
	bool *done = calloc(n ? n : 1, sizeof(*done));
	int i, j, rc = 0, loaded = 0;

	if (!nd || !fam || !pn || !done || !part || !fpart) {
		rc = err_exit(EX_OSERR, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const char *base = gap_base(names, n, names[i]);

		if (!base)
			continue;
		if (!gap) {
			done[i] = true;
			continue;
		}
		part[i] = "gap";
		for (j = 0; j < n; j++)
			if (!strcmp(names[j], base))
				part[j] = "duration";
	}
	for (i = 0; i < n; i++, loaded++) {
		if (done[i])
			continue;
		rc = load(names[i], false, &nd[i]);
		if (rc == EX_NOINPUT) {	/* removed meanwhile */
			done[i] = true;
			rc = 0;
			continue;
		}
		if (rc)
			goto out;
		/* GAP-NAME's series are NAME's family's. */
		ks_prom_name(pn[i], sizeof(pn[i]), part[i] && !strcmp(part[i], "gap") ?
			     nd[i].name + strlen(GAP_PREFIX) : nd[i].name);
	}
	for (i = 0; i < n; i++) {
		size_t k = 0;

		if (done[i])
			continue;
		/* NAME's own series before its GAP's: two passes. */
		for (int gaps = 0; gaps < 2; gaps++)
			for (j = i; j < n; j++) {
				if (done[j] || strcmp(pn[i], pn[j]) ||
				    (part[j] && !strcmp(part[j], "gap")) != gaps)
					continue;
				fpart[k] = part[j];
				fam[k++] = &nd[j];
				done[j] = true;
			}
		ks_prom_write_family_parts(f, fam, fpart, k, bk, per_cpu);
	}
out:
	for (i = 0; nd && i < loaded; i++)
		ks_node_free(&nd[i]);
	free(done);
	free(pn);
	free(fpart);
	free(part);
	free(fam);
	free(nd);
	return rc;
}

/*
 * With --keys: each trace's KEY-NAME whose key has no stack part, as a
 * summary family of a series per row (ks_prom_write_keys()), after the
 * histograms; traces whose names map to one metric name are one family.
 */
static int export_keys(FILE *f, char **names, int n)
{
	struct ks_keynode *k = calloc(n ? n : 1, sizeof(*k));
	const struct ks_keynode **fam = calloc(n ? n : 1, sizeof(*fam));
	const char **fnames = calloc(n ? n : 1, sizeof(*fnames));
	char (*pn)[160] = calloc(n ? n : 1, sizeof(*pn));
	bool *use = calloc(n ? n : 1, sizeof(*use));
	int i, j, rc = 0;

	if (!k || !fam || !fnames || !pn || !use) {
		rc = err_exit(EX_OSERR, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		char path[4096], err[160], *text = NULL;
		int e;

		snprintf(path, sizeof(path), "%s/" KEY_PREFIX "%s", root, names[i]);
		e = read_all(path, &text);
		if (e == ENOENT)	/* no key, or removed meanwhile */
			continue;
		if (e) {
			rc = node_error("read", path, e);
			goto out;
		}
		if (ks_keynode_parse(text, &k[i], err, sizeof(err))) {
			free(text);
			rc = err_exit(EX_DATAERR, "%s: %s", path, err);
			goto out;
		}
		free(text);
		use[i] = true;
		ks_prom_name(pn[i], sizeof(pn[i]), names[i]);
	}
	for (i = 0; i < n; i++) {
		size_t m = 0;

		for (j = i; j < n; j++) {
			if (!use[j] || strcmp(pn[i], pn[j]))
				continue;
			use[j] = false;
			/* Stacks are no labels: such a trace is left out. */
			if (!ks_keynode_labels_ok(&k[j]))
				continue;
			fnames[m] = names[j];
			fam[m++] = &k[j];
		}
		ks_prom_write_keys(f, fnames, fam, m);
	}
out:
	for (i = 0; k && i < n; i++)
		if (k[i].buf)
			ks_keynode_free(&k[i]);
	free(use);
	free(pn);
	free(fnames);
	free(fam);
	free(k);
	return rc;
}

static int usage_export(FILE *f)
{
	fputs("usage: kstats export --prometheus [--textfile DIR] [--per-cpu] [--buckets pow2|slots] [--gap] [--keys]\n"
	      "Every metric as a Prometheus histogram (seconds) and its missed counter,\n"
	      "to stdout, or atomically to DIR/kstats.prom for node_exporter's\n"
	      "textfile collector. A trace's GAP-NAME (the time between its calls) is\n"
	      "left out; --gap adds it to NAME's histogram as series labelled\n"
	      "part=\"gap\", NAME's own then labelled part=\"duration\".\n"
	      "--keys adds each keyed trace's rows (KEY-NAME) as a summary\n"
	      "kstats_NAME_by_key_seconds, labelled by the key's parts (cgroup, comm,\n"
	      "pid, waker_cgroup, ...; other row: row=\"other\"); a trace keyed by a\n"
	      "stack (kstack, end-kstack, ustack, waker-kstack, waker-ustack) is left out.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "prometheus", no_argument, NULL, 'P' },
		{ "textfile", required_argument, NULL, 't' },
		{ "per-cpu", no_argument, NULL, 'c' },
		{ "buckets", required_argument, NULL, 'b' },
		{ "gap", no_argument, NULL, 'g' },
		{ "keys", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum ks_buckets bk = KS_B_POW2;
	const char *dir = NULL;
	bool prom = false, per_cpu = false, gap = false, keys = false;
	char tmp[4096], dst[4096], **names;
	FILE *f = stdout;
	int opt, rc, n, fd;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'P': prom = true; break;
		case 't': dir = optarg; break;
		case 'c': per_cpu = true; break;
		case 'g': gap = true; break;
		case 'k': keys = true; break;
		case 'b':
			if (!strcmp(optarg, "pow2"))
				bk = KS_B_POW2;
			else if (!strcmp(optarg, "slots"))
				bk = KS_B_SLOTS;
			else
				return err_exit(EX_USAGE, "--buckets %s: use pow2 or slots", optarg);
			break;
		case 'h': return usage_export(stdout);
		default: bad_option(argv, opt); return usage_export(stderr);
		}
	}
	if (!prom || optind != argc) {
		if (optind != argc)
			err_exit(EX_USAGE, "export takes no NAME: '%s'", argv[optind]);
		else
			err_exit(EX_USAGE, "export: give --prometheus (the one format)");
		return usage_export(stderr);
	}
	if ((rc = check_root()))
		return rc;
	n = metric_names(&names);
	if (n < 0)
		return node_error("list", root, errno);
	if (dir) {
		snprintf(dst, sizeof(dst), "%s/kstats.prom", dir);
		/* Same directory, so rename() is atomic; node_exporter skips it. */
		snprintf(tmp, sizeof(tmp), "%s/.kstats.prom.XXXXXX", dir);
		fd = mkstemp(tmp);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			int e = errno;

			free_names(names, n);
			return err_exit(EX_CANTCREAT, "--textfile %s: %s", dir, strerror(e));
		}
		fchmod(fd, 0644);
	}
	rc = export_families(f, names, n, bk, per_cpu, gap);
	if (!rc && keys)
		rc = export_keys(f, names, n);
	free_names(names, n);
	if (!dir)
		return rc;
	if (rc || fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, dst)) {
		int e = errno;

		unlink(tmp);
		return rc ? rc : err_exit(EX_CANTCREAT, "%s: %s", dst, strerror(e));
	}
	return 0;
}
