/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels kstats builds for lives here.
 * Force-included into every file by Kbuild, so the rest of the code reads
 * as if written for one kernel. Features are probed, not versions, where
 * the headers allow it.
 */
#ifndef _KSTATS_COMPAT_H
#define _KSTATS_COMPAT_H

#include <linux/version.h>

/* get_kretprobe() and the per-instance data layout kstats relies on. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#error "kstats supports Linux 5.11 and later (tested on Debian 6.1 and 6.12)"
#endif

#ifndef CONFIG_DEBUG_FS
#error "kstats needs CONFIG_DEBUG_FS: its histograms are read from debugfs"
#endif

/*
 * this_cpu_add() is a single instruction on x86-64, so a sample taken in
 * NMI context cannot tear a record it interrupted. Elsewhere it may be a
 * load/modify/store guarded by disabling IRQs, which NMIs ignore.
 */
#ifdef CONFIG_X86_64
#define KS_NMI_SAFE_THIS_CPU	1
#else
#define KS_NMI_SAFE_THIS_CPU	0
#endif

#endif /* _KSTATS_COMPAT_H */
