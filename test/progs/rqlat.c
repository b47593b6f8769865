// SPDX-License-Identifier: GPL-2.0
/*
 * Run-queue latency scenarios, all on CPU 1:
 *
 * rqlat selfwake MS: names itself "kstSW", wakes itself while running
 *   (kstats_test_sched's "selfwake"), runs MS ms, then wakes a CPU-bound
 *   child on its CPU and runs on for MS/4 ms, so it is preempted. Prints
 *   "@@SELFWAKE run_ns T run_delay D": how long it ran after waking
 *   itself, and how long in all it waited on a run queue as kstSW
 *   (/proc/self/schedstat, which also counts its waits before the name).
 * rqlat pair MS [N]: N (default 2) CPU-bound children share the CPU for
 *   MS ms. Each prints "@@PAIR pid P pcount N run_delay NS" from
 *   /proc/self/schedstat: how often it was switched in, and how long it
 *   waited on the run queue.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pin_cpu1(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(1, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

static void spin_ms(long ms)
{
	long long end = now_ns() + ms * 1000000LL;

	while (now_ns() < end)
		;
}

/* Time waited on a run queue (ns) and switch-ins, from the scheduler. */
static void read_schedstat(unsigned long long *delay,
			   unsigned long long *pcount)
{
	unsigned long long run;
	FILE *f = fopen("/proc/self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu %llu", &run, delay, pcount) != 3) {
		perror("/proc/self/schedstat");
		_exit(2);
	}
	fclose(f);
}

static int selfwake(long ms)
{
	int go[2];
	pid_t child;
	unsigned long long delay, pcount;
	long long t0, ran;
	char c = 0;
	FILE *f;

	pin_cpu1();
	if (pipe(go))
		return 2;
	child = fork();
	if (child == 0) {
		/* Blocked until the parent has run its MS ms alone. */
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		for (;;)
			;
	}
	/* After the fork: the child keeps the old name, out of the trace. */
	if (prctl(PR_SET_NAME, "kstSW"))
		return 2;
	usleep(100000);
	f = fopen("/sys/kernel/debug/kstats_test_sched", "w");
	if (!f || fputs("selfwake", f) < 0 || fclose(f)) {
		perror("selfwake");
		return 2;
	}
	t0 = now_ns();
	spin_ms(ms);
	ran = now_ns() - t0;
	if (write(go[1], &c, 1) != 1)
		return 2;
	spin_ms(ms / 4);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* Out of the trace first: any wait after the read is in neither. */
	if (prctl(PR_SET_NAME, "rqlat"))
		return 2;
	read_schedstat(&delay, &pcount);
	printf("@@SELFWAKE run_ns %lld run_delay %llu\n", ran, delay);
	return 0;
}

static void report_schedstat(void)
{
	unsigned long long delay, pcount;

	read_schedstat(&delay, &pcount);
	printf("@@PAIR pid %d pcount %llu run_delay %llu\n", getpid(), pcount,
	       delay);
	fflush(stdout);
}

static int pair(long ms, int n)
{
	pid_t kids[16];
	int i, status, rc = 0;

	pin_cpu1();
	for (i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			spin_ms(ms);
			report_schedstat();
			_exit(0);
		}
	}
	for (i = 0; i < n; i++) {
		waitpid(kids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	long ms = argc >= 3 ? atol(argv[2]) : 0;
	int n = argc == 4 ? atoi(argv[3]) : 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && ms > 0 && !strcmp(argv[1], "selfwake"))
		return selfwake(ms);
	if (ms > 0 && n >= 1 && n <= 16 && !strcmp(argv[1], "pair"))
		return pair(ms, n);
	fprintf(stderr, "usage: rqlat selfwake MS | rqlat pair MS [N]\n");
	return 2;
}
