/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced functions of kstats_test_sched. Global, so their names stay
 * as written: the tests trace them by name.
 */
#ifndef _KSTATS_TEST_SCHED_H
#define _KSTATS_TEST_SCHED_H

void kss_begin(void);
void kss_end(void);

#endif /* _KSTATS_TEST_SCHED_H */
