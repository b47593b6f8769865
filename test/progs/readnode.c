// SPDX-License-Identifier: GPL-2.0
/*
 * readnode N TAG FILE: N times, open FILE, read it to the end in 64 KiB
 * reads and close it, timed with clock_gettime(CLOCK_MONOTONIC) around
 * all N. Prints "TAG_bytes B TAG_ns T": the bytes of one read and the
 * mean time of one whole read, open and close included.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

int main(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[1]) : 0, i;
	struct timespec a, b;
	long long bytes = 0;
	ssize_t r;
	int fd;

	if (n <= 0) {
		fprintf(stderr, "usage: readnode N TAG FILE\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		fd = open(argv[3], O_RDONLY);
		if (fd < 0) {
			perror(argv[3]);
			return 1;
		}
		bytes = 0;
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			bytes += r;
		close(fd);
		if (r < 0) {
			perror(argv[3]);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s_bytes %lld %s_ns %lld\n", argv[2], bytes, argv[2],
	       ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
