// SPDX-License-Identifier: GPL-2.0
/*
 * getpid_p90 N: N getpid() system calls, each timed by the caller with
 * clock_gettime(CLOCK_MONOTONIC) (vDSO) around the call; print the p50 and
 * p90 of those times and the total, in ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, i;
	long long *d, t0, a, total;

	if (n <= 0 || !(d = malloc(n * sizeof(*d)))) {
		fprintf(stderr, "usage: getpid_p90 N\n");
		return 2;
	}
	t0 = ns();
	for (i = 0; i < n; i++) {
		a = ns();
		syscall(SYS_getpid);
		d[i] = ns() - a;
	}
	total = ns() - t0;
	qsort(d, n, sizeof(*d), cmp);
	printf("getpid_p90 %ld p50 %lld p90 %lld total %lld\n", n, d[n / 2],
	       d[n * 9 / 10], total);
	return 0;
}
