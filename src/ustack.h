/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The current task's user-space stack, walked from the user registers it
 * saved on entering the kernel, for key ustack and waker-ustack.
 */
#ifndef _KSTATS_USTACK_H
#define _KSTATS_USTACK_H

#include <linux/types.h>

/* Why a sample that wanted a user stack has none: its row says so. */
enum ks_ustack_none {
	KS_USTACK_TAKEN,	/* frames captured (at least the pc) */
	KS_USTACK_KTHREAD,	/* a kernel thread or worker: no user space */
	KS_USTACK_INTERRUPT,	/* in an interrupt: the task's stack is not the sample's */
	KS_USTACK_COMPAT,	/* a 32-bit task on a 64-bit kernel: not walked */
	KS_USTACK_NR,
};

/* Words above the user stack pointer searched for a frameless caller. */
#define KS_USTACK_SCAN_WORDS	64

unsigned int ks_user_stack(unsigned long *frame, unsigned int depth,
			   unsigned long *scan, unsigned int level,
			   pid_t *tgid, u64 *start, u8 *none);

extern const char * const ks_ustack_none_names[KS_USTACK_NR];

#endif /* _KSTATS_USTACK_H */
