// SPDX-License-Identifier: GPL-2.0
/*
 * ustack_thr: a thread of a dynamically linked program sleeps through
 * glibc's nanosleep() (which keeps no frame record) from sleeper(), 3
 * times, as main does. A thread's stack is mapped just below the shared
 * libraries: the search for sleeper's call into glibc must not take
 * libc's code for addresses on that stack (test/ustack-peer.sh).
 * Prints "ready PID" once both are done, then waits to be killed.
 */
/* cflags: -O0 -g -fno-omit-frame-pointer -pthread */
/* link: dynamic */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define SLEEPS 3

__attribute__((noinline)) static void sleeper(void)
{
	struct timespec t = { 0, 20 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

static void *thr_body(void *arg)
{
	int i;

	for (i = 0; i < SLEEPS; i++)
		sleeper();
	return arg;
}

int main(void)
{
	pthread_t t;
	int i;

	if (pthread_create(&t, NULL, thr_body, NULL))
		return 1;
	for (i = 0; i < SLEEPS; i++)
		sleeper();
	pthread_join(t, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	pause();
	return 0;
}
