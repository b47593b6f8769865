// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong N TAG: two tasks, both pinned to CPU 0, pass one byte back and
 * forth through two pipes N times; a round trip (the parent's write, the
 * child's read and write back, the parent's read) is two wakeups and two
 * context switches. Timed with clock_gettime(CLOCK_MONOTONIC) in blocks
 * of BLOCK round trips; prints "TAG_ns T TAG_fast_ns F": the mean round
 * trip over all N, and in the fastest block, the one least disturbed by
 * the host descheduling the guest.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK	100

static long long ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0, i;
	int ping[2], pong[2], status;
	long long t0, a, fast = -1;
	cpu_set_t cpus;
	char c = 0;
	pid_t pid;

	if (n < BLOCK) {
		fprintf(stderr, "usage: pingpong N TAG (N >= %d)\n", BLOCK);
		return 2;
	}
	/* One CPU: every round trip switches, never waits on another CPU. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || pipe(ping) || pipe(pong)) {
		perror("pingpong");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
			;
		return 0;
	}
	/* The parent's close of ping[1] is then the child's end of file. */
	close(ping[0]);
	close(pong[1]);
	t0 = a = ns();
	for (i = 1; i <= n; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("pingpong");
			return 1;
		}
		if (i % BLOCK == 0) {
			long long b = ns();

			if (fast < 0 || b - a < fast)
				fast = b - a;
			a = b;
		}
	}
	t0 = ns() - t0;
	close(ping[1]);
	waitpid(pid, &status, 0);
	printf("%s_ns %lld %s_fast_ns %lld\n", argv[2], t0 / n, argv[2],
	       fast / BLOCK);
	return 0;
}
