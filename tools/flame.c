// SPDX-License-Identifier: GPL-2.0
/* kstats flame: a keyed trace's rows as folded stacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstats.h"

static int usage_flame(FILE *f)
{
	fputs("usage: kstats flame NAME [--count]\n"
	      "The rows of KEY-NAME as folded stacks for flamegraph.pl or speedscope:\n"
	      "one line per row, frames root first, then its total (ns) or, with\n"
	      "--count, its count. Needs a trace with a key, e.g. key kstack.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int cmd_flame(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char path[4096], err[160], *text = NULL;
	const char *name;
	struct ks_keynode k;
	bool count = false;
	int opt, rc, e;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': count = true; break;
		case 'h': return usage_flame(stdout);
		default: bad_option(argv, opt); return usage_flame(stderr);
		}
	}
	if (optind != argc - 1)
		return usage_flame(stderr);
	name = argv[optind];
	if ((rc = check_root()))
		return rc;
	if (!*name || strchr(name, '/') || name[0] == '.' || name[0] == '_' ||
	    !strncmp(name, KEY_PREFIX, strlen(KEY_PREFIX)))
		return err_exit(EX_USAGE, "%s: not a metric name (flame takes the trace's NAME)",
				name);
	snprintf(path, sizeof(path), "%s/" KEY_PREFIX "%s", root, name);
	e = read_all(path, &text);
	if (e == ENOENT) {
		static const char *const parts[] = { "BLOCKED-", "RUNQ-", "GAP-" };
		size_t i;

		/* A part of a trace: its rows are the trace's. */
		for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			const char *trace = name + strlen(parts[i]);

			if (strncmp(name, parts[i], strlen(parts[i])))
				continue;
			snprintf(path, sizeof(path), "%s/" KEY_PREFIX "%s", root, trace);
			if (!access(path, F_OK))
				return err_exit(EX_NOINPUT, "%s: no " KEY_PREFIX "%s: a part of trace %s, "
						"whose rows are in " KEY_PREFIX "%s (kstats flame %s)",
						name, name, trace, trace, trace);
		}
		snprintf(path, sizeof(path), "%s/%s", root, name);
		if (!access(path, F_OK))
			return err_exit(EX_NOINPUT, "%s: no " KEY_PREFIX "%s: not a trace with a key (trace it with key kstack)",
					name, name);
	}
	if (e)
		return node_error("flame", name, e);
	if (ks_keynode_parse(text, &k, err, sizeof(err))) {
		free(text);
		return err_exit(EX_DATAERR, "%s: %s", path, err);
	}
	free(text);
	if (ks_fold(stdout, &k, count) < 0) {
		ks_keynode_free(&k);
		return err_exit(EX_DATAERR, "%s: the trace has no key (" KEY_PREFIX "%s says \"key -\"): "
				"trace it again with key kstack (kstats remove %s; kstats trace %s WORDS... key kstack)",
				name, name, name, name);
	}
	ks_keynode_free(&k);
	if (fflush(stdout) || ferror(stdout))
		return err_exit(EX_IOERR, "flame %s: standard output: %s", name, strerror(errno));
	return 0;
}
