// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler scenarios for the run-queue latency and start-table tests,
 * driven by writes to /sys/kernel/debug/kstats_test_sched, one command
 * per write:
 *
 *	selfwake	the writing task wakes itself while on its CPU, as
 *			an interrupt does between set_current_state() and
 *			schedule(): sched_wakeup fires for a running task
 *	pair N		N calls of kss_begin(), kss_end(); reading the file
 *			then gives "bench N ns T"
 *	churn N		N new kernel threads, up to 5000 alive at once, each
 *			calling kss_begin() and kss_end() once: at least
 *			min(N, 5000) distinct task_structs (keys) pass
 *			through a section, more than the largest start
 *			table holds (the slab reuses a freed task_struct,
 *			so threads alive one after another share a few)
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kstats_test_sched.h"

static struct dentry *kss_file;
static char kss_result[64];

noinline void kss_begin(void)
{
	barrier();
}

noinline void kss_end(void)
{
	barrier();
}

/* More than the largest start table, 4096 slots; ~160 MB of threads. */
#define KSS_BATCH	5000

struct kss_batch {
	struct completion go;
	atomic_t left;
	struct completion done;
};

static int kss_churn_fn(void *arg)
{
	struct kss_batch *b = arg;

	kss_begin();
	kss_end();
	/* Stay alive until the whole batch exists: distinct task_structs. */
	wait_for_completion(&b->go);
	if (atomic_dec_and_test(&b->left))
		complete(&b->done);
	return 0;
}

static int kss_churn(unsigned int n)
{
	struct kss_batch *b;
	unsigned int i, k;
	int err = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	while (n && !err) {
		k = min_t(unsigned int, n, KSS_BATCH);
		init_completion(&b->go);
		init_completion(&b->done);
		atomic_set(&b->left, k + 1);
		for (i = 0; i < k; i++) {
			if (IS_ERR(kthread_run(kss_churn_fn, b, "kss_churn"))) {
				err = -ENOMEM;
				atomic_dec(&b->left);
			}
		}
		complete_all(&b->go);
		if (!atomic_dec_and_test(&b->left))
			wait_for_completion(&b->done);
		n -= k;
	}
	kfree(b);
	return err;
}

static int kss_run(char *line)
{
	unsigned int a = 0, i;
	char cmd[16];
	u64 t0;
	int n;

	n = sscanf(line, "%15s %u", cmd, &a);
	if (n == 1 && !strcmp(cmd, "selfwake")) {
		set_current_state(TASK_INTERRUPTIBLE);
		wake_up_process(current);
		__set_current_state(TASK_RUNNING);
	} else if (n == 2 && !strcmp(cmd, "pair")) {
		t0 = ktime_get_ns();
		for (i = 0; i < a; i++) {
			kss_begin();
			kss_end();
		}
		snprintf(kss_result, sizeof(kss_result), "bench %u ns %llu\n",
			 a, ktime_get_ns() - t0);
	} else if (n == 2 && !strcmp(cmd, "churn")) {
		return kss_churn(a);
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t kss_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char *line;
	int err;

	if (count > 64)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	err = kss_run(line);
	kfree(line);
	return err ? err : count;
}

static ssize_t kss_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, kss_result,
				       strlen(kss_result));
}

static const struct file_operations kss_fops = {
	.owner = THIS_MODULE,
	.write = kss_write,
	.read = kss_read,
};

static int __init kss_init(void)
{
	kss_file = debugfs_create_file("kstats_test_sched", 0600, NULL, NULL,
				       &kss_fops);
	return PTR_ERR_OR_ZERO(kss_file);
}

static void __exit kss_exit(void)
{
	debugfs_remove(kss_file);
}

module_init(kss_init);
module_exit(kss_exit);
MODULE_DESCRIPTION("kstats test: scheduler scenarios and start-table churn");
MODULE_LICENSE("GPL");
