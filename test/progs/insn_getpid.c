// SPDX-License-Identifier: GPL-2.0
/*
 * insn_getpid N [WARM]: WARM getpid() calls (default 1000: the pages and
 * the first-call paths, out of the window), then N getpid() system calls
 * between the begin and end markers that the instruction-counting QEMU
 * plugin (bench/insn/kstats_insn.c) recognizes, then print
 * "insn_getpid N". The markers are 7-byte NOPs: outside that plugin
 * they do nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* nopl "ksiB"(%rax) and nopl "ksiE"(%rax) */
static inline void ki_begin(void)
{
#ifdef __x86_64__
	asm volatile(".byte 0x0f, 0x1f, 0x80, 'k', 's', 'i', 'B'" ::: "memory");
#endif
}

/* test/build.sh builds every program for arm64 too: x86-64 only */
static inline void ki_end(void)
{
#ifdef __x86_64__
	asm volatile(".byte 0x0f, 0x1f, 0x80, 'k', 's', 'i', 'E'" ::: "memory");
#endif
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, warm = argc > 2 ? atol(argv[2]) : 1000, i;

	if (n <= 0 || warm < 0) {
		fprintf(stderr, "usage: insn_getpid N [WARM]\n");
		return 2;
	}
	for (i = 0; i < warm; i++)
		syscall(SYS_getpid);
	ki_begin();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	ki_end();
	printf("insn_getpid %ld\n", n);
	return 0;
}
