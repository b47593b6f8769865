// SPDX-License-Identifier: GPL-2.0
/*
 * Test client of kstats: links only through kstats' exported symbols and
 * records values the tests choose, in the contexts they choose.
 *
 * Commands written to /sys/kernel/debug/kstats_test_client, one per write:
 *	new BITS NAME		kstats_new(); NAME is the rest of the line, blanks
 *				included; -EINVAL if kstats_new() returns NULL
 *	record NAME VALUE N	N samples from this task, on this CPU
 *	irq CPU NAME VALUE N	N samples from hardirq (IPI) on CPU
 *	timer NAME VALUE N	N samples from a HARD hrtimer, one per firing
 *	kthread NAME VALUE N	N samples from a new kernel thread
 *	delete NAME		kstats_delete()
 *	null			kstats_record(NULL, 1) and kstats_delete(NULL)
 *	load NAME VALUE		until "unload": on every online CPU a bound
 *				kthread records VALUE in bursts and a pinned
 *				HARD hrtimer records VALUE every 100 us
 *	unload			stop them; a read then gives
 *				"load task N timer M", the records made
 *	bench NAME N		N calls of each record case in 16 alternating
 *				rounds: floor (this_cpu_inc()), atomic
 *				(atomic64_inc() on one counter), hot
 *				(kstats_record() on NAME), old (a copy of
 *				kstats_record() before min/max), hot1000 and
 *				cold (the same strided loop over 1,000 keys:
 *				all NAME, or 1,000 metrics tc_cold_*, made once
 *				and kept until unload); a read then gives
 *				"bench N floor_ns A atomic_ns B hot_ns C
 *				old_ns D hot1000_ns E cold_ns F", fastest rounds
 *	cpus NAME N		N kstats_record() calls on NAME, then N
 *				atomic64_inc() on one counter, by one thread
 *				on the first online CPU and by one thread on
 *				each online CPU at once, in 4 alternating
 *				rounds; a read then gives "cpus K n N one_ns A
 *				all_ns B atomic_one_ns C atomic_all_ns D", the
 *				threads' mean time, fastest rounds
 * Reading the file returns the result of the last load, bench or cpus.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/kernel.h>
#include <linux/kstats.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* bench/mem.sh holds 1,000 metrics at once. */
#define TC_MAX_KEYS	1024

struct tc_key {
	char name[KSTATS_NAME_MAX + 1];
	struct kstats *ks;
};

static struct tc_key tc_keys[TC_MAX_KEYS];
static DEFINE_MUTEX(tc_lock);
static struct dentry *tc_file;
static char tc_result[256];

struct tc_batch {
	struct kstats *ks;
	u64 value;
	u64 n;
};

static struct tc_key *tc_find(const char *name)
{
	int i;

	for (i = 0; i < TC_MAX_KEYS; i++)
		if (tc_keys[i].ks && !strcmp(tc_keys[i].name, name))
			return &tc_keys[i];
	return NULL;
}

static void tc_record_batch(void *arg)
{
	struct tc_batch *b = arg;
	u64 i;

	for (i = 0; i < b->n; i++)
		kstats_record(b->ks, b->value);
}

struct tc_timer {
	struct hrtimer timer;
	struct tc_batch *b;
	u64 done;
	struct completion finished;
};

static enum hrtimer_restart tc_timer_fn(struct hrtimer *t)
{
	struct tc_timer *tt = container_of(t, struct tc_timer, timer);

	kstats_record(tt->b->ks, tt->b->value);
	if (++tt->done == tt->b->n) {
		complete(&tt->finished);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(t, ns_to_ktime(20 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int tc_record_timer(struct tc_batch *b)
{
	struct tc_timer *tt;

	if (!b->n)
		return 0;
	tt = kzalloc(sizeof(*tt), GFP_KERNEL);
	if (!tt)
		return -ENOMEM;
	tt->b = b;
	init_completion(&tt->finished);
	hrtimer_setup(&tt->timer, tc_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hrtimer_start(&tt->timer, ns_to_ktime(20 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	wait_for_completion(&tt->finished);
	hrtimer_cancel(&tt->timer);
	kfree(tt);
	return 0;
}

struct tc_kthread {
	struct tc_batch *b;
	struct completion done;
};

static int tc_kthread_fn(void *arg)
{
	struct tc_kthread *k = arg;

	tc_record_batch(k->b);
	/* Exits without returning into this module, which may then go. */
	kthread_complete_and_exit(&k->done, 0);
}

static int tc_record_kthread(struct tc_batch *b)
{
	struct tc_kthread k = { .b = b };
	struct task_struct *t;

	init_completion(&k.done);
	t = kthread_run(tc_kthread_fn, &k, "kstats_tc");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wait_for_completion(&k.done);
	return 0;
}

/* ---------------------------------------------------- load on every CPU */

struct tc_loader {
	struct task_struct *task;
	struct hrtimer timer;
	struct kstats *ks;
	u64 value;
	u64 task_records;
	u64 timer_records;
};

static struct tc_loader *tc_loaders;	/* [nr_cpu_ids], under tc_lock */

static enum hrtimer_restart tc_load_timer_fn(struct hrtimer *t)
{
	struct tc_loader *l = container_of(t, struct tc_loader, timer);

	kstats_record(l->ks, l->value);
	l->timer_records++;
	hrtimer_forward_now(t, ns_to_ktime(100 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int tc_load_fn(void *arg)
{
	struct tc_loader *l = arg;
	int i;

	/* Started here, pinned: it fires on this thread's CPU. */
	hrtimer_setup(&l->timer, tc_load_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&l->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!kthread_should_stop()) {
		for (i = 0; i < 64; i++) {
			kstats_record(l->ks, l->value);
			l->task_records++;
		}
		usleep_range(100, 200);
	}
	hrtimer_cancel(&l->timer);
	return 0;
}

/* Stops the loaders and sums their records; tc_lock held. */
static void tc_unload(void)
{
	u64 task = 0, timer = 0;
	unsigned int cpu;

	if (!tc_loaders)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct tc_loader *l = &tc_loaders[cpu];

		if (!l->task)
			continue;
		kthread_stop(l->task);
		put_task_struct(l->task);
		task += l->task_records;
		timer += l->timer_records;
	}
	kfree(tc_loaders);
	tc_loaders = NULL;
	snprintf(tc_result, sizeof(tc_result), "load task %llu timer %llu\n",
		 task, timer);
}

static int tc_load(struct kstats *ks, u64 value)
{
	unsigned int cpu;

	if (tc_loaders)
		return -EBUSY;
	tc_loaders = kcalloc(nr_cpu_ids, sizeof(*tc_loaders), GFP_KERNEL);
	if (!tc_loaders)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct tc_loader *l = &tc_loaders[cpu];
		struct task_struct *t;

		l->ks = ks;
		l->value = value;
		t = kthread_create(tc_load_fn, l, "kstats_tc_load/%u", cpu);
		if (IS_ERR(t)) {
			tc_unload();
			return PTR_ERR(t);
		}
		get_task_struct(t);
		kthread_bind(t, cpu);
		l->task = t;
		wake_up_process(t);
	}
	return 0;
}

/* ------------------------------------------------------------ bench */

/*
 * kstats_record() as it was before min/max (commit 0639961), on a
 * histogram of the same layout kept here: the reference of the record
 * cost benchmark.
 */
struct tc_old_slot {
	u64 count;
	u64 sum;
};

struct tc_old_hist {
	struct tc_old_slot __percpu *slots;
	u32 n_slots;
	u8 frac_bits;
	bool active;
};

static __always_inline u32 tc_old_slot_of(u64 value, u8 frac_bits, u32 n_slots)
{
	u32 bucket = fls64(value >> frac_bits);
	u32 slot;

	if (!bucket)
		return (u32)value;
	slot = (bucket << frac_bits) |
	       ((u32)(value >> (bucket - 1)) & ((1U << frac_bits) - 1));
	return slot < n_slots - 1 ? slot : n_slots - 1;
}

/*
 * On a page of its own, and so is its caller: QEMU's TCG chains a direct
 * call only within a page, and a call into kstats.ko never is. Sections
 * of their own keep the alignment padding out of objtool's sight.
 */
static noinline void notrace __aligned(PAGE_SIZE) __section(".text.tc_old")
__attribute__((__noipa__)) tc_old_record(struct tc_old_hist *ks, u64 value)
{
	u32 slot, bucket, width_shift;
	u64 offset;

	if (!ks)
		return;
	preempt_disable_notrace();
	if (likely(READ_ONCE(ks->active))) {
		slot = tc_old_slot_of(value, ks->frac_bits, ks->n_slots);
		bucket = slot >> ks->frac_bits;
		width_shift = bucket ? bucket - 1 : 0;
		offset = value & ((1ULL << width_shift) - 1);
		this_cpu_inc(ks->slots[slot].count);
		this_cpu_add(ks->slots[slot].sum,
			     offset >> (width_shift > 20 ? width_shift - 20 : 0));
	}
	preempt_enable_notrace();
}

/* The floor: the least a record can do, one per-CPU increment. */
static noinline void notrace __aligned(PAGE_SIZE) __section(".text.tc_floor")
__attribute__((__noipa__)) tc_floor_record(u64 __percpu *counter, u64 value)
{
	this_cpu_inc(*counter);
}

/* One counter shared by every CPU, as a plain global statistic would be. */
static noinline void notrace __aligned(PAGE_SIZE) __section(".text.tc_atomic")
__attribute__((__noipa__)) tc_atomic_record(atomic64_t *counter, u64 value)
{
	atomic64_inc(counter);
}

/* Metrics of the cold case: created by the first bench, kept until exit. */
#define TC_COLD_KEYS	1000
/* Coprime to TC_COLD_KEYS: consecutive calls visit every metric in turn. */
#define TC_COLD_STRIDE	617

static struct kstats *tc_cold[TC_COLD_KEYS];	/* under tc_lock */

enum tc_case {
	TC_FLOOR,	/* tc_floor_record() */
	TC_ATOMIC,	/* tc_atomic_record() */
	TC_HOT,		/* kstats_record() on one key */
	TC_OLD,		/* tc_old_record() */
	TC_HOT1000,	/* kstats_record() through the cold loop, every key the hot one */
	TC_COLD,	/* kstats_record() on TC_COLD_KEYS metrics in strided order */
	TC_CASES
};

static const char * const tc_case_name[TC_CASES] = {
	"floor", "atomic", "hot", "old", "hot1000", "cold",
};

struct tc_bench {
	u64 __percpu *floor;
	atomic64_t atomic;
	struct kstats *hot;
	struct tc_old_hist old;
	struct kstats *hot1000[TC_COLD_KEYS];
};

/*
 * n calls of one case, in ns. Each callee sits on a page of its own, so
 * every case pays the same unchained call as one into kstats.ko (see
 * tc_old_record()). Values spread over a few slots, as real durations do.
 */
static noinline u64 __aligned(PAGE_SIZE) __section(".text.tc_bench")
tc_bench_loop(struct tc_bench *b, enum tc_case c, u64 n)
{
	struct kstats **keys = c == TC_COLD ? tc_cold : b->hot1000;
	u64 __percpu *floor = b->floor;
	struct kstats *hot = b->hot;
	u64 i, t0 = ktime_get_ns();

	/* A direct call in each loop: an indirect one takes a retpoline. */
	switch (c) {
	case TC_FLOOR:
		for (i = 0; i < n; i++)
			tc_floor_record(floor, 1000 + (i & 1023));
		break;
	case TC_ATOMIC:
		for (i = 0; i < n; i++)
			tc_atomic_record(&b->atomic, 1000 + (i & 1023));
		break;
	case TC_HOT:
		for (i = 0; i < n; i++)
			kstats_record(hot, 1000 + (i & 1023));
		break;
	case TC_OLD:
		for (i = 0; i < n; i++)
			tc_old_record(&b->old, 1000 + (i & 1023));
		break;
	default:
		for (i = 0; i < n; i++)
			kstats_record(keys[i * TC_COLD_STRIDE % TC_COLD_KEYS],
				      1000 + (i & 1023));
		break;
	}
	return ktime_get_ns() - t0;
}

static void tc_bench_free(struct tc_bench *b)
{
	free_percpu(b->old.slots);
	free_percpu(b->floor);
	kfree(b);
}

/* The cases' state, recording into @ks; tc_lock held for the cold keys. */
static struct tc_bench *tc_bench_alloc(struct kstats *ks)
{
	struct tc_bench *b = kzalloc(sizeof(*b), GFP_KERNEL);
	char name[32];
	int i;

	if (!b)
		return NULL;
	b->hot = ks;
	for (i = 0; i < TC_COLD_KEYS; i++)
		b->hot1000[i] = ks;
	b->old.frac_bits = 3;
	b->old.active = true;
	b->old.n_slots = ((64 - b->old.frac_bits + 1) << b->old.frac_bits) + 1;
	b->old.slots = __alloc_percpu(b->old.n_slots * sizeof(struct tc_old_slot),
				      __alignof__(struct tc_old_slot));
	b->floor = alloc_percpu(u64);
	for (i = 0; i < TC_COLD_KEYS && b->old.slots && b->floor; i++) {
		if (tc_cold[i])
			continue;
		snprintf(name, sizeof(name), "tc_cold_%d", i);
		tc_cold[i] = kstats_new(name, 3);
		if (!tc_cold[i])
			break;
	}
	if (i < TC_COLD_KEYS) {
		tc_bench_free(b);
		return NULL;
	}
	return b;
}

/*
 * Alternating rounds of n calls of each case; each case's fastest round
 * counts, the one least disturbed by the host descheduling the vCPU.
 */
static int tc_bench(struct kstats *ks, u64 n)
{
	u64 best[TC_CASES];
	struct tc_bench *b;
	int round, c, len;

	b = tc_bench_alloc(ks);
	if (!b)
		return -ENOMEM;
	for (c = 0; c < TC_CASES; c++)
		best[c] = U64_MAX;
	for (round = 0; round < 16; round++) {
		for (c = 0; c < TC_CASES; c++)
			best[c] = min(best[c], tc_bench_loop(b, c, n));
		cond_resched();
	}
	tc_bench_free(b);
	len = scnprintf(tc_result, sizeof(tc_result), "bench %llu", n);
	for (c = 0; c < TC_CASES; c++)
		len += scnprintf(tc_result + len, sizeof(tc_result) - len,
				 " %s_ns %llu", tc_case_name[c], best[c]);
	scnprintf(tc_result + len, sizeof(tc_result) - len, "\n");
	return 0;
}

/* ------------------------------------------ every CPU recording at once */

struct tc_par {
	struct tc_bench *b;
	enum tc_case c;
	u64 n;
	struct completion go;	/* all threads are created and woken */
	atomic_t left;
	struct completion done;
};

struct tc_par_thread {
	struct tc_par *p;
	struct task_struct *task;
	u64 ns;
};

static int tc_par_fn(void *arg)
{
	struct tc_par_thread *t = arg;
	struct tc_par *p = t->p;

	wait_for_completion(&p->go);
	t->ns = tc_bench_loop(p->b, p->c, p->n);
	if (atomic_dec_and_test(&p->left))
		complete(&p->done);
	return 0;
}

/*
 * One thread bound to each CPU of @cpus makes n calls of case @c, all
 * released at once; *@ns is set to the threads' mean time.
 */
static int tc_par_run(struct tc_bench *b, enum tc_case c, u64 n,
		      const struct cpumask *cpus, u64 *ns)
{
	struct tc_par p = { .b = b, .c = c, .n = n };
	struct tc_par_thread *t;
	unsigned int cpu, threads = 0;
	u64 sum = 0;
	bool failed = false;

	t = kcalloc(nr_cpu_ids, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	init_completion(&p.go);
	init_completion(&p.done);
	for_each_cpu(cpu, cpus) {
		t[cpu].p = &p;
		t[cpu].task = kthread_create_on_cpu(tc_par_fn, &t[cpu], cpu,
						    "kstats_tc_par/%u");
		if (IS_ERR(t[cpu].task)) {
			t[cpu].task = NULL;
			failed = true;
			break;
		}
		get_task_struct(t[cpu].task);
		threads++;
	}
	if (!failed && threads) {
		atomic_set(&p.left, threads);
		for_each_cpu(cpu, cpus)
			wake_up_process(t[cpu].task);
		complete_all(&p.go);
		wait_for_completion(&p.done);
	}
	/* After a failure, threads never woken exit without tc_par_fn(). */
	for_each_cpu(cpu, cpus) {
		if (!t[cpu].task)
			continue;
		kthread_stop(t[cpu].task);
		put_task_struct(t[cpu].task);
		sum += t[cpu].ns;
	}
	kfree(t);
	if (failed || !threads)
		return -ENOMEM;
	*ns = div_u64(sum, threads);
	return 0;
}

/*
 * kstats_record() on one key and the shared atomic, by one thread on
 * one CPU and by a thread on every online CPU at once, in 4 alternating
 * rounds; fastest rounds, as tc_bench().
 */
static int tc_cpus(struct kstats *ks, u64 n)
{
	const struct cpumask *cpus[2] = {
		cpumask_of(cpumask_first(cpu_online_mask)), cpu_online_mask
	};
	u64 best[4] = { U64_MAX, U64_MAX, U64_MAX, U64_MAX }, ns = 0;
	static const enum tc_case cases[2] = { TC_HOT, TC_ATOMIC };
	struct tc_bench *b;
	int round, i, err = 0;

	b = tc_bench_alloc(ks);
	if (!b)
		return -ENOMEM;
	for (round = 0; round < 4 && !err; round++) {
		for (i = 0; i < 4 && !err; i++) {
			err = tc_par_run(b, cases[i / 2], n, cpus[i & 1], &ns);
			if (!err)
				best[i] = min(best[i], ns);
		}
	}
	tc_bench_free(b);
	if (err)
		return err;
	snprintf(tc_result, sizeof(tc_result),
		 "cpus %u n %llu one_ns %llu all_ns %llu atomic_one_ns %llu atomic_all_ns %llu\n",
		 num_online_cpus(), n, best[0], best[1], best[2], best[3]);
	return 0;
}

/* "BITS NAME": NAME goes to kstats_new() as written, to test its checks. */
static int tc_new(char *args)
{
	struct tc_key *slot = NULL;
	char *bits = strsep(&args, " ");
	char *name = args ? args : "";
	size_t len = strlen(name);
	u8 frac_bits;
	int i;

	if (len && name[len - 1] == '\n')
		name[len - 1] = '\0';
	if (kstrtou8(bits, 0, &frac_bits))
		return -EINVAL;
	for (i = 0; i < TC_MAX_KEYS && !slot; i++)
		if (!tc_keys[i].ks)
			slot = &tc_keys[i];
	if (!slot)
		return -ENOSPC;
	slot->ks = kstats_new(name, frac_bits);
	if (!slot->ks)
		return -EINVAL;
	strscpy(slot->name, name, sizeof(slot->name));
	return 0;
}

static int tc_run(char *line)
{
	char *argv[6];
	int argc = 0;
	char *word;
	struct tc_key *key;
	struct tc_batch b;
	unsigned int cpu;
	int err;

	if (!strncmp(line, "new ", 4)) {
		mutex_lock(&tc_lock);
		err = tc_new(line + 4);
		mutex_unlock(&tc_lock);
		return err;
	}
	while ((word = strsep(&line, " \t\n")) && argc < ARRAY_SIZE(argv))
		if (*word)
			argv[argc++] = word;
	if (!argc)
		return -EINVAL;

	if (!strcmp(argv[0], "null") && argc == 1) {
		kstats_record(NULL, 1);
		kstats_delete(NULL);
		return 0;
	}
	if (!strcmp(argv[0], "unload") && argc == 1) {
		mutex_lock(&tc_lock);
		tc_unload();
		mutex_unlock(&tc_lock);
		return 0;
	}
	if (!strcmp(argv[0], "irq") && argc == 5) {
		if (kstrtouint(argv[1], 0, &cpu) || cpu >= nr_cpu_ids ||
		    !cpu_online(cpu))
			return -EINVAL;
		/* Drop CPU so the rest parses like "record". */
		argc--;
		memmove(&argv[1], &argv[2], (argc - 1) * sizeof(argv[0]));
	} else {
		cpu = UINT_MAX;
	}
	if (argc < 2)
		return -EINVAL;
	mutex_lock(&tc_lock);
	key = tc_find(argv[1]);
	if (key && !strcmp(argv[0], "load") && argc == 3) {
		err = kstrtou64(argv[2], 0, &b.value);
		if (!err)
			err = tc_load(key->ks, b.value);
		mutex_unlock(&tc_lock);
		return err;
	}
	if (key && (!strcmp(argv[0], "bench") || !strcmp(argv[0], "cpus")) &&
	    argc == 3) {
		err = kstrtou64(argv[2], 0, &b.n);
		if (!err && !strcmp(argv[0], "bench"))
			err = tc_bench(key->ks, b.n);
		else if (!err)
			err = tc_cpus(key->ks, b.n);
		mutex_unlock(&tc_lock);
		return err;
	}
	if (key && !strcmp(argv[0], "delete") && argc == 2) {
		kstats_delete(key->ks);
		key->ks = NULL;
		mutex_unlock(&tc_lock);
		return 0;
	}
	/*
	 * Records run unlocked so that several writers record at once; the
	 * tests never delete a key that is being recorded on.
	 */
	b.ks = key ? key->ks : NULL;
	mutex_unlock(&tc_lock);
	if (!b.ks)
		return -ENOENT;
	if (strcmp(argv[0], "record") && strcmp(argv[0], "irq") &&
	    strcmp(argv[0], "timer") && strcmp(argv[0], "kthread"))
		return -EINVAL;
	if (argc != 4 || kstrtou64(argv[2], 0, &b.value) ||
	    kstrtou64(argv[3], 0, &b.n))
		return -EINVAL;
	if (!strcmp(argv[0], "timer"))
		return tc_record_timer(&b);
	if (!strcmp(argv[0], "kthread"))
		return tc_record_kthread(&b);
	if (cpu == UINT_MAX) {
		tc_record_batch(&b);
		return 0;
	}
	return smp_call_function_single(cpu, tc_record_batch, &b, 1);
}

static ssize_t tc_write(struct file *file, const char __user *ubuf,
			size_t count, loff_t *ppos)
{
	char *line;
	int err;

	if (count > 256)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	err = tc_run(line);
	kfree(line);
	return err ? err : count;
}

static ssize_t tc_read(struct file *file, char __user *ubuf, size_t count,
		       loff_t *ppos)
{
	char buf[sizeof(tc_result)];

	mutex_lock(&tc_lock);
	strscpy(buf, tc_result, sizeof(buf));
	mutex_unlock(&tc_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

static const struct file_operations tc_fops = {
	.owner = THIS_MODULE,
	.write = tc_write,
	.read = tc_read,
};

/* The same file as /dev/kstats_test_client: lockdown refuses debugfs files with a write bit. */
static struct miscdevice tc_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kstats_test_client",
	.fops = &tc_fops,
	.mode = 0600,
};

static int __init tc_init(void)
{
	int err;

	tc_file = debugfs_create_file("kstats_test_client", 0600, NULL, NULL,
				      &tc_fops);
	if (IS_ERR(tc_file))
		return PTR_ERR(tc_file);
	err = misc_register(&tc_dev);
	if (err)
		debugfs_remove(tc_file);
	return err;
}

static void __exit tc_exit(void)
{
	int i;

	misc_deregister(&tc_dev);
	debugfs_remove(tc_file);
	mutex_lock(&tc_lock);
	tc_unload();
	mutex_unlock(&tc_lock);
	for (i = 0; i < TC_MAX_KEYS; i++)
		kstats_delete(tc_keys[i].ks);
	for (i = 0; i < TC_COLD_KEYS; i++)
		kstats_delete(tc_cold[i]);
}

module_init(tc_init);
module_exit(tc_exit);
MODULE_DESCRIPTION("kstats test client");
MODULE_LICENSE("GPL");
