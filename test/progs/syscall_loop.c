// SPDX-License-Identifier: GPL-2.0
/* syscall_loop N: N getppid() system calls, then print the time taken. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, i;
	struct timespec a, b;

	if (n <= 0) {
		fprintf(stderr, "usage: syscall_loop N\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("syscall_loop %ld ns %lld\n", n,
	       (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}
