// SPDX-License-Identifier: GPL-2.0
/*
 * sigpair N US: N times, raise SIGUSR1 while it is blocked, sleep US
 * microseconds, then unblock it, so each signal_generate to signal_deliver
 * span in this task lasts at least US. Each span is also timed from
 * before raise() to after the unblock returns (the handler has run by
 * then), on CLOCK_MONOTONIC, the clock kstats' ktime_get_mono_fast_ns()
 * reads; the last line gives the shortest and longest, so the tests can
 * bound kstats' samples by them however long the host stalled a span.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile sig_atomic_t delivered;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void on_usr1(int sig)
{
	(void)sig;
	delivered++;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0, us = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	long long t0, d, lo = 0, hi = 0;
	sigset_t usr1;
	long i;

	if (n <= 0 || us < 0) {
		fprintf(stderr, "usage: sigpair N US\n");
		return 2;
	}
	signal(SIGUSR1, on_usr1);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	for (i = 0; i < n; i++) {
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		t0 = now_ns();
		raise(SIGUSR1);
		nanosleep(&ts, NULL);
		sigprocmask(SIG_UNBLOCK, &usr1, NULL);
		d = now_ns() - t0;
		if (!i || d < lo)
			lo = d;
		if (d > hi)
			hi = d;
	}
	printf("sigpair delivered %d\n", (int)delivered);
	printf("measured %ld min_ns %lld max_ns %lld\n", n, lo, hi);
	return delivered == n ? 0 : 1;
}
