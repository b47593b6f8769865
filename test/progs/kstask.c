// SPDX-License-Identifier: GPL-2.0
/*
 * A task with a comm of the test's choosing, for keyed and filtered traces:
 *
 * kstask COMM sleep N US: sleeps N times for US microseconds, then prints
 *   "@@TASK COMM pid P sleeps N nvcsw V nivcsw I": the context switches
 *   it made after taking its comm (from /proc/self/status).
 * kstask COMM write FILE TEXT...: writes each TEXT to FILE, one write
 *   each, then prints "@@TASK COMM pid P".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static long status_field(const char *name)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, strlen(name)))
			v = atol(line + strlen(name) + 1);
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	long nv, niv;
	int i;

	if (argc < 4 || prctl(PR_SET_NAME, argv[1])) {
		fprintf(stderr, "usage: kstask COMM sleep N US | kstask COMM write FILE TEXT...\n");
		return 2;
	}
	if (!strcmp(argv[2], "sleep") && argc == 5) {
		long n = atol(argv[3]), us = atol(argv[4]);
		struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

		nv = status_field("voluntary_ctxt_switches");
		niv = status_field("nonvoluntary_ctxt_switches");
		for (i = 0; i < n; i++)
			nanosleep(&ts, NULL);
		printf("@@TASK %s pid %d sleeps %ld nvcsw %ld nivcsw %ld\n",
		       argv[1], getpid(), n,
		       status_field("voluntary_ctxt_switches") - nv,
		       status_field("nonvoluntary_ctxt_switches") - niv);
		return 0;
	}
	if (!strcmp(argv[2], "write")) {
		for (i = 4; i < argc; i++) {
			int fd = open(argv[3], O_WRONLY);

			if (fd < 0 || write(fd, argv[i], strlen(argv[i])) < 0) {
				perror(argv[i]);
				return 1;
			}
			close(fd);
		}
		printf("@@TASK %s pid %d\n", argv[1], getpid());
		return 0;
	}
	fprintf(stderr, "kstask: unknown command %s\n", argv[2]);
	return 2;
}
