/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels kstats builds for lives here.
 * Force-included into every file by Kbuild, so the rest of the code reads
 * as if written for one kernel. Features are probed, not versions, where
 * the headers allow it.
 */
#ifndef _KSTATS_COMPAT_H
#define _KSTATS_COMPAT_H

/*
 * Kernels without what kstats needs are refused by the probes in Kbuild,
 * with a message, before any file is compiled.
 */

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
