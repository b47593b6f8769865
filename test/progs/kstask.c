// SPDX-License-Identifier: GPL-2.0
/*
 * A task with a comm of the test's choosing, for keyed and filtered traces:
 *
 * kstask COMM sleep N US: sleeps N times for US microseconds, then prints
 *   "@@TASK COMM pid P sleeps N nvcsw V nivcsw I slept_min A slept_max B":
 *   the context switches it made after taking its comm (from
 *   /proc/self/status), and the shortest and longest nanosleep() call in
 *   ns as it measured each (CLOCK_MONOTONIC).
 * kstask COMM write FILE TEXT...: writes each TEXT to FILE, one write
 *   each, then prints "@@TASK COMM pid P".
 * kstask COMM spin MS CPU [FLAG]: on CPU, as SCHED_FIFO priority 50, runs
 *   in user space, making no system call, for MS milliseconds; prints
 *   "@@SPIN COMM start NS" as it begins and "@@SPIN COMM end NS" as it
 *   ends (CLOCK_REALTIME). With FLAG, a file whose first byte is '0', it
 *   reads that byte through a shared mapping: it spins until the byte is
 *   '1' (at most 60 s), then MS more at most, ending early at '2'. So the
 *   caller's steps all fall inside the spin however slow the host, and
 *   the spin outlasts them by MS only for one that needs CPU 1.
 * kstask COMM now: prints CLOCK_REALTIME in ns (the guest's date has no %N).
 * kstask COMM run OUT CMD...: runs CMD, its output to the file OUT, and
 *   prints "@@BUSY COMM rc=RC START END" (CLOCK_REALTIME) as CMD ends:
 *   the end is taken by the waiting parent itself, not by a shell that
 *   polls, which a starved guest may run seconds late. If CMD still runs
 *   1 s after it began, its kernel stack first, as "@@OPSTACK COMM FRAME"
 *   lines, to tell what it waits for.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);	/* the vDSO: no system call */
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

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

/* kstask COMM run OUT CMD...: see the top of the file. */
static int run(const char *comm, const char *out, char **cmd)
{
	long long start = now_ns(), end;
	int dumped = 0, st = 0, fd;
	char path[64], line[256];
	FILE *f;
	pid_t pid = fork();

	if (pid < 0) {
		perror("kstask run");
		return 1;
	}
	if (!pid) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	/* Polled every 2 ms: a blocking wait could not also dump at 1 s. */
	while (waitpid(pid, &st, WNOHANG) != pid) {
		if (!dumped && now_ns() - start >= 1000000000LL) {
			dumped = 1;
			snprintf(path, sizeof(path), "/proc/%d/stack", pid);
			f = fopen(path, "r");
			while (f && fgets(line, sizeof(line), f))
				printf("@@OPSTACK %s %s", comm, line);
			if (f)
				fclose(f);
		}
		usleep(2000);
	}
	end = now_ns();
	printf("@@BUSY %s rc=%d %lld %lld\n", comm,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), start, end);
	return 0;
}

int main(int argc, char **argv)
{
	long nv, niv;
	int i;

	if (argc == 3 && !strcmp(argv[2], "now")) {
		printf("%lld\n", now_ns());
		return 0;
	}
	if (argc < 4 || prctl(PR_SET_NAME, argv[1])) {
		fprintf(stderr, "usage: kstask COMM sleep N US | kstask COMM write FILE TEXT... | kstask COMM spin MS CPU [FLAG] | kstask COMM now | kstask COMM run OUT CMD...\n");
		return 2;
	}
	if (!strcmp(argv[2], "sleep") && argc == 5) {
		long n = atol(argv[3]), us = atol(argv[4]);
		struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

		long long t0, d, lo = -1, hi = -1;

		nv = status_field("voluntary_ctxt_switches");
		niv = status_field("nonvoluntary_ctxt_switches");
		for (i = 0; i < n; i++) {
			t0 = mono_ns();
			nanosleep(&ts, NULL);
			d = mono_ns() - t0;
			if (lo < 0 || d < lo)
				lo = d;
			if (d > hi)
				hi = d;
		}
		printf("@@TASK %s pid %d sleeps %ld nvcsw %ld nivcsw %ld slept_min %lld slept_max %lld\n",
		       argv[1], getpid(), n,
		       status_field("voluntary_ctxt_switches") - nv,
		       status_field("nonvoluntary_ctxt_switches") - niv, lo, hi);
		return 0;
	}
	if (!strcmp(argv[2], "spin") && (argc == 5 || argc == 6)) {
		struct sched_param sp = { .sched_priority = 50 };
		long long start, end, t;
		volatile const char *flag = NULL;
		char phase = '0';
		cpu_set_t cpus;

		if (argc == 6) {
			int fd = open(argv[5], O_RDONLY);

			flag = fd < 0 ? MAP_FAILED :
				mmap(NULL, 1, PROT_READ, MAP_SHARED, fd, 0);
			if (flag == MAP_FAILED) {
				perror(argv[5]);
				return 1;
			}
		}

		CPU_ZERO(&cpus);
		CPU_SET(atoi(argv[4]), &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus) ||
		    sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("kstask spin");
			return 1;
		}
		start = now_ns();
		end = start + (flag ? 60000 : atoll(argv[3])) * 1000000LL;

		printf("@@SPIN %s start %lld\n", argv[1], start);
		fflush(stdout);
		while ((t = now_ns()) < end) {
			if (!flag || *flag == '0' || *flag == phase)
				continue;
			if (*flag == '2')
				break;
			/* '1': MS more from now. */
			phase = '1';
			end = t + atoll(argv[3]) * 1000000LL;
		}
		printf("@@SPIN %s end %lld\n", argv[1], t);
		return 0;
	}
	if (!strcmp(argv[2], "run") && argc >= 5)
		return run(argv[1], argv[3], argv + 4);
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
