/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced functions of kstats_test_target. Global, so their names stay
 * as written (no .isra/.constprop clones): the tests trace them by name.
 */
#ifndef _KSTATS_TEST_TARGET_H
#define _KSTATS_TEST_TARGET_H

void kst_target_delay(unsigned int us);
void kst_path_1(unsigned int us);
void kst_path_2(unsigned int us);
void kst_path_3(unsigned int us);
void kst_path_4(unsigned int us);
void kst_path_5(unsigned int us);
void kst_begin_site_1(void);
void kst_begin_site_2(void);
void kst_end_site_1(void);
void kst_end_site_2(void);
void kst_target_recurse(unsigned int depth, unsigned int us);
void kst_target_sleep(unsigned int us);
void kst_target_migrate(unsigned int us);
void kst_section_begin(void);
void kst_section_end(void);
void kst_target_notrace(void);
void kst_target_null(void);
void kst_target_twin(void);
long kst_ret_long(unsigned int i, unsigned long size);
int kst_ret_int(unsigned int i);
/* Sections matched on an object (objs, objbegin, objpair, objend). */
struct kst_obj;
void kst_obj_begin(struct kst_obj *obj);
void kst_obj_end(struct kst_obj *obj);
void kst_obj_end2(int unused, struct kst_obj *obj);
void kst_obj_begin_nt(struct kst_obj *obj);
void kst_obj_end_nt(struct kst_obj *obj);
void kst_miss_site(void);
long kst_ret_migrate(void);
/* Off-CPU waits (offcpu_*): where the writer waits, where it is woken. */
void kst_wait_thread(void);
void kst_wait_timer(void);
void kst_wait_sleep(void);
void kst_wait_idle(void);
void kst_wake_thread(void);
void kst_wake_timer(void);
void kst_wake_sleep(void);
/* A wakeup chain (chain_sleep, chain_busy): A waits, B wakes it, C wakes B. */
void kst_chain_wait_a(void);
void kst_chain_wait_b(void);
void kst_chain_wake_a(void);
void kst_chain_wake_b(void);

#endif /* _KSTATS_TEST_TARGET_H */
