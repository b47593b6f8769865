// SPDX-License-Identifier: GPL-2.0
/*
 * sigpair N US: N times, raise SIGUSR1 while it is blocked, sleep US
 * microseconds, then unblock it, so each signal_generate to signal_deliver
 * span in this task lasts at least US.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile sig_atomic_t delivered;

static void on_usr1(int sig)
{
	(void)sig;
	delivered++;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0, us = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
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
		raise(SIGUSR1);
		nanosleep(&ts, NULL);
		sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	}
	printf("sigpair delivered %d\n", (int)delivered);
	return delivered == n ? 0 : 1;
}
