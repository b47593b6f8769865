// SPDX-License-Identifier: GPL-2.0
/* kstats reset, stop and start: a metric's node commands. */
#define _GNU_SOURCE
#include <string.h>

#include "kstats.h"

int cmd_node_word(int argc, char **argv)
{
	if (argc != 2 && !wants_help(argc, argv))
		err_exit(EX_USAGE, argc < 2 ? "%s: give NAME" : "%s takes one NAME: '%s' too",
			 argv[0], argv[argc < 2 ? 0 : 2]);
	if (argc != 2 || wants_help(argc, argv)) {
		fprintf(argc != 2 ? stderr : stdout,
			"usage: kstats %s NAME\n%s\n", argv[0],
			!strcmp(argv[0], "reset") ? "Clears the metric's counters on all CPUs (a trace's\n"
			"KEY-NAME rows last as long as the trace: reset leaves them)." :
			!strcmp(argv[0], "stop") ? "The metric ignores new samples until start." :
			"The metric records again.");
		return argc != 2 ? EX_USAGE : 0;
	}
	/* A blank would make the device's "WORD NAME" more words. */
	if (!*argv[1] || strchr(argv[1], '/') || argv[1][0] == '.' || argv[1][0] == '_' ||
	    strpbrk(argv[1], " \t\n\r\v\f"))
		return err_exit(EX_USAGE, "%s: not a metric name", argv[1]);
	if (!strncmp(argv[1], KEY_PREFIX, strlen(KEY_PREFIX)))
		return err_exit(EX_USAGE, "%s: not a metric but the keyed rows of trace %s, which last as long as the trace",
				argv[1], argv[1] + strlen(KEY_PREFIX));
	return node_cmd(argv[0], argv[1]);
}
