// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_demo: an example client of kstats that measures two real things.
 *
 *   demo_hrtimer_late  how late a periodic hrtimer fires, in ns
 *   demo_usleep_1ms    how long usleep_range(1000, 1100) really sleeps, in ns
 *
 * Build it against kstats' Module.symvers (see Kbuild in this folder).
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kstats.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>

#ifndef HAVE_HRTIMER_SETUP	/* before 6.13: see Kbuild */
static void hrtimer_setup(struct hrtimer *timer,
			  enum hrtimer_restart (*fn)(struct hrtimer *),
			  clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = fn;
}
#endif

static unsigned int period_us = 1000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "hrtimer period in microseconds (default 1000)");

static struct kstats *late_ks, *sleep_ks;
static struct hrtimer demo_timer;
static struct task_struct *sleeper;

static enum hrtimer_restart demo_timer_fn(struct hrtimer *t)
{
	ktime_t late = ktime_sub(ktime_get(), hrtimer_get_expires(t));

	kstats_record(late_ks, ktime_to_ns(late));
	hrtimer_forward_now(t, ns_to_ktime((u64)period_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int demo_sleeper_fn(void *unused)
{
	while (!kthread_should_stop()) {
		u64 t0 = ktime_get_ns();

		usleep_range(1000, 1100);
		kstats_record(sleep_ks, ktime_get_ns() - t0);
	}
	return 0;
}

static int __init demo_init(void)
{
	int err = -ENOMEM;

	if (!period_us)
		return -EINVAL;
	late_ks = kstats_new("demo_hrtimer_late", 3);
	sleep_ks = kstats_new("demo_usleep_1ms", 3);
	if (!late_ks || !sleep_ks)
		goto err_delete;

	sleeper = kthread_run(demo_sleeper_fn, NULL, "kstats_demo");
	if (IS_ERR(sleeper)) {
		err = PTR_ERR(sleeper);
		goto err_delete;
	}
	hrtimer_setup(&demo_timer, demo_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	hrtimer_start(&demo_timer, ns_to_ktime((u64)period_us * NSEC_PER_USEC), HRTIMER_MODE_REL);
	return 0;

err_delete:
	kstats_delete(sleep_ks);
	kstats_delete(late_ks);
	return err;
}

static void __exit demo_exit(void)
{
	hrtimer_cancel(&demo_timer);
	kthread_stop(sleeper);
	kstats_delete(sleep_ks);
	kstats_delete(late_ks);
}

module_init(demo_init);
module_exit(demo_exit);
MODULE_DESCRIPTION("kstats example: hrtimer lateness and usleep_range() duration");
MODULE_LICENSE("GPL");
