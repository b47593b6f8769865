// SPDX-License-Identifier: GPL-2.0
/*
 * getpid_p90 N [twin]: N getpid() system calls, each timed by the caller
 * with clock_gettime(CLOCK_MONOTONIC) (vDSO) around the call; print the p50
 * and p90 of those times and the total, in ns. With "twin", each call is
 * followed by a timed getuid() (its untraced twin: whatever slows the
 * emulator at that moment slows both), and the line ends with its
 * "twin_p50 NS twin_p90 NS".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	int twin = argc > 2 && !strcmp(argv[2], "twin");
	long long *d, *e, t0, a, total;

	if (n <= 0 || !(d = malloc(n * sizeof(*d))) || !(e = malloc(n * sizeof(*e)))) {
		fprintf(stderr, "usage: getpid_p90 N [twin]\n");
		return 2;
	}
	t0 = ns();
	for (i = 0; i < n; i++) {
		a = ns();
		syscall(SYS_getpid);
		d[i] = ns() - a;
		if (twin) {
			a = ns();
			syscall(SYS_getuid);
			e[i] = ns() - a;
		}
	}
	total = ns() - t0;
	qsort(d, n, sizeof(*d), cmp);
	printf("getpid_p90 %ld p50 %lld p90 %lld total %lld", n, d[n / 2],
	       d[n * 9 / 10], total);
	if (twin) {
		qsort(e, n, sizeof(*e), cmp);
		printf(" twin_p50 %lld twin_p90 %lld", e[n / 2], e[n * 9 / 10]);
	}
	printf("\n");
	return 0;
}
