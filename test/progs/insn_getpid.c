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

#ifdef __x86_64__
/* nopl "ksiB"(%rax) and nopl "ksiE"(%rax) */
#define KI_BEGIN() asm volatile(".byte 0x0f, 0x1f, 0x80, 'k', 's', 'i', 'B'" ::: "memory")
#define KI_END() asm volatile(".byte 0x0f, 0x1f, 0x80, 'k', 's', 'i', 'E'" ::: "memory")
#else
/* test/build.sh builds every program for arm64 too; the plugin is x86-64 only */
#define KI_BEGIN() do { } while (0)
#define KI_END() do { } while (0)
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, warm = argc > 2 ? atol(argv[2]) : 1000, i;

	if (n <= 0 || warm < 0) {
		fprintf(stderr, "usage: insn_getpid N [WARM]\n");
		return 2;
	}
	for (i = 0; i < warm; i++)
		syscall(SYS_getpid);
	KI_BEGIN();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	KI_END();
	printf("insn_getpid %ld\n", n);
	return 0;
}
