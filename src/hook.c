// SPDX-License-Identifier: GPL-2.0
/*
 * The hook engine: attaches kretprobes, fprobes, kprobe pairs and
 * tracepoint pairs at run time and records what they time.
 *
 * Function timing keeps the entry timestamp per call (kretprobe instance
 * data, fprobe entry data), so sleeping, recursing and migrating calls
 * are timed right. Sections between two probes keep the start per task in
 * a preallocated table. GAP-NAME gets the time from the end of one call
 * to the start of the next on the same CPU.
 *
 * All of kstats is built without ftrace hooks (see Kbuild), and a trace
 * of any address inside kstats is refused, so it never traces itself.
 */
#include <linux/fprobe.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "hist.h"
#include "hook.h"

/*
 * Start timestamps of sections in flight, keyed on a task: open
 * addressing over a preallocated array, lock-free so that handlers can
 * run anywhere, NMI and spinlock internals included. A slot's task only
 * goes NULL -> task -> KS_START_DELETED -> task ..., never back to NULL,
 * so a lookup that stops at the first NULL slot cannot miss its key.
 * Operations on one key never overlap: a task starts and ends its own
 * sections, a wakeup precedes the switch to the woken task under the run
 * queue lock, and a task is freed only after both.
 */
#define KS_START_DELETED	((struct task_struct *)1UL)

struct ks_start {
	struct task_struct *task;	/* NULL: never used */
	u64 ts;
};

struct ks_start_table {
	atomic_t used;
	u32 mask;	/* slots - 1; slots is a power of two */
	u32 limit;	/* maxactive: more in flight counts as a miss */
	struct ks_start slot[];
};

struct ks_trace {
	struct list_head list;	/* on ks_traces: RCU, writers under ks_trace_lock */
	struct ks_trace_req req;	/* as written, with defaults applied */
	unsigned long addr;	/* start function, for "gone" */
	unsigned long end_addr;
	bool gone;		/* its module was unloaded */
	struct kstats *dur;
	struct kstats *gap;
	u64 __percpu *last_end;	/* per CPU: end of the last call, 0: none */
	struct ks_start_table *starts;	/* pairs only */
	atomic_long_t no_start;
	atomic_long_t table_full;
	atomic_long_t negative;
	union {
		struct kretprobe rp;
#if KS_HAVE_FPROBE
		struct fprobe fp;
#endif
		struct {
			struct kprobe start;
			struct kprobe end;
		} kp;
		struct {
			struct tracepoint *start;
			struct tracepoint *end;
			void *start_fn;
			void *end_fn;
		} tp;
	};
};

/*
 * Serializes trace/remove/list and the module notifier. Taken before
 * ks_lock (in kstats_new/kstats_delete), never inside it.
 */
static DEFINE_MUTEX(ks_trace_lock);
static LIST_HEAD(ks_traces);
static struct tracepoint *ks_free_tp;

/* ---------------------------------------------------------------- record */

static u64 notrace ks_now(void)
{
	return ktime_get_mono_fast_ns();
}

static void notrace ks_gap_begin(struct ks_trace *t, u64 now)
{
	u64 last = this_cpu_xchg(*t->last_end, 0);

	if (last && now >= last)
		kstats_record(t->gap, now - last);
}

static void notrace ks_gap_end(struct ks_trace *t, u64 now)
{
	this_cpu_write(*t->last_end, now);
}

static void notrace ks_record_span(struct ks_trace *t, u64 start, u64 now)
{
	if (unlikely(now < start))
		atomic_long_inc(&t->negative);
	else
		kstats_record(t->dur, now - start);
}

/* ---------------------------------------------------------- start table */

static u32 notrace ks_start_home(const struct ks_start_table *st,
				 const struct task_struct *task)
{
	return hash_ptr(task, 32) & st->mask;
}

/* The slot holding @task, or -1. */
static int notrace ks_start_find(struct ks_start_table *st,
				 struct task_struct *task)
{
	u32 i = ks_start_home(st, task), n;

	for (n = 0; n <= st->mask; n++, i = (i + 1) & st->mask) {
		struct task_struct *owner = READ_ONCE(st->slot[i].task);

		if (owner == task)
			return i;
		if (!owner)
			break;
	}
	return -1;
}

static void notrace ks_start_put(struct ks_trace *t, struct task_struct *task,
				 u64 now)
{
	struct ks_start_table *st = t->starts;
	u32 i = ks_start_home(st, task), n;
	int found = ks_start_find(st, task);

	if (found >= 0) {
		/* Started again before its end: the later start wins. */
		WRITE_ONCE(st->slot[found].ts, now);
		return;
	}
	if (atomic_inc_return(&st->used) > st->limit)
		goto full;
	for (n = 0; n <= st->mask; n++, i = (i + 1) & st->mask) {
		struct task_struct *owner = READ_ONCE(st->slot[i].task);

		if ((!owner || owner == KS_START_DELETED) &&
		    cmpxchg(&st->slot[i].task, owner, task) == owner) {
			WRITE_ONCE(st->slot[i].ts, now);
			return;
		}
	}
full:
	atomic_dec(&st->used);
	atomic_long_inc(&t->table_full);
}

static bool notrace ks_start_take(struct ks_start_table *st,
				  struct task_struct *task, u64 *ts)
{
	int i = ks_start_find(st, task);

	if (i < 0)
		return false;
	*ts = READ_ONCE(st->slot[i].ts);
	if (cmpxchg(&st->slot[i].task, task, KS_START_DELETED) != task)
		return false;
	atomic_dec(&st->used);
	return true;
}

/*
 * @strict: an end without a start is a miss. Not so for run-queue
 * latency, where most switches are to tasks that were preempted, not woken.
 */
static void notrace ks_section_end(struct ks_trace *t, struct task_struct *task,
				   bool strict)
{
	u64 now = ks_now(), start;

	if (ks_start_take(t->starts, task, &start))
		ks_record_span(t, start, now);
	else if (strict)
		atomic_long_inc(&t->no_start);
	ks_gap_end(t, now);
}

static void notrace ks_section_start(struct ks_trace *t, struct task_struct *task)
{
	u64 now = ks_now();

	ks_gap_begin(t, now);
	ks_start_put(t, task, now);
}

static struct ks_start_table *ks_start_table_alloc(unsigned int limit)
{
	u32 slots = roundup_pow_of_two(2 * limit);
	struct ks_start_table *st;

	st = kzalloc(struct_size(st, slot, slots), GFP_KERNEL);
	if (!st)
		return NULL;
	st->mask = slots - 1;
	st->limit = limit;
	return st;
}

/* ------------------------------------------------------------- handlers */

static int notrace ks_krp_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct ks_trace *t = container_of(get_kretprobe(ri), struct ks_trace, rp);
	u64 now = ks_now();

	ks_gap_begin(t, now);
	*(u64 *)ri->data = now;
	return 0;
}

static int notrace ks_krp_return(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct ks_trace *t = container_of(get_kretprobe(ri), struct ks_trace, rp);
	u64 now = ks_now();

	ks_record_span(t, *(u64 *)ri->data, now);
	ks_gap_end(t, now);
	return 0;
}

#if KS_HAVE_FPROBE
static KS_FPROBE_ENTRY(ks_fp_entry)
{
	struct ks_trace *t = container_of(fp, struct ks_trace, fp);
	u64 now = ks_now();

	ks_gap_begin(t, now);
	*(u64 *)entry_data = now;
	return KS_FPROBE_ENTRY_OK;
}

static KS_FPROBE_EXIT(ks_fp_exit)
{
	struct ks_trace *t = container_of(fp, struct ks_trace, fp);
	u64 now = ks_now();

	ks_record_span(t, *(u64 *)entry_data, now);
	ks_gap_end(t, now);
}
#endif

static int notrace ks_kp_start(struct kprobe *p, struct pt_regs *regs)
{
	ks_section_start(container_of(p, struct ks_trace, kp.start), current);
	return 0;
}

static int notrace ks_kp_end(struct kprobe *p, struct pt_regs *regs)
{
	ks_section_end(container_of(p, struct ks_trace, kp.end), current, true);
	return 0;
}

/*
 * Tracepoint probes that use no argument are called with the tracepoint's
 * arguments after @data, which the x86-64 calling convention lets them
 * ignore, like the kernel's own tracepoint stubs.
 */
static void notrace ks_tp_start(void *data)
{
	ks_section_start(data, current);
}

static void notrace ks_tp_end(void *data)
{
	ks_section_end(data, current, true);
}

/* Typed pairs: run-queue latency is keyed on the woken task. */
static void notrace ks_tp_wakeup(void *data, struct task_struct *p)
{
	ks_section_start(data, p);
}

static void notrace ks_tp_switch(void *data, KS_SCHED_SWITCH_PROTO)
{
	ks_section_end(data, next, false);
}

struct ks_typed_pair {
	const char *start;
	const char *end;
	void *start_fn;
	void *end_fn;
};

static const struct ks_typed_pair ks_typed_pairs[] = {
	{ "sched_wakeup", "sched_switch", ks_tp_wakeup, ks_tp_switch },
	{ "sched_waking", "sched_switch", ks_tp_wakeup, ks_tp_switch },
	{ "sched_wakeup_new", "sched_switch", ks_tp_wakeup, ks_tp_switch },
};

/*
 * A task freed with a section open would leave a start whose key a new
 * task_struct could reuse. sched_process_free fires just before the free,
 * after everything the task could still start (even SIGCHLD in exit).
 */
static void notrace ks_tp_task_free(void *data, struct task_struct *p)
{
	struct ks_trace *t;
	u64 ts;

	list_for_each_entry_rcu(t, &ks_traces, list)
		if (t->starts)
			ks_start_take(t->starts, p, &ts);
}

/* Probing kstats' own handlers would recurse. */
NOKPROBE_SYMBOL(ks_krp_entry);
NOKPROBE_SYMBOL(ks_krp_return);
NOKPROBE_SYMBOL(ks_kp_start);
NOKPROBE_SYMBOL(ks_kp_end);
#if KS_HAVE_FPROBE
NOKPROBE_SYMBOL(ks_fp_entry);
NOKPROBE_SYMBOL(ks_fp_exit);
#endif

/* ------------------------------------------------------------ lookups */

struct ks_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void ks_tp_match(struct tracepoint *tp, void *priv)
{
	struct ks_tp_lookup *l = priv;

	if (!strcmp(tp->name, l->name))
		l->tp = tp;
}

/* vmlinux tracepoints only: modules' tracepoints are not looked up. */
static struct tracepoint *ks_find_tracepoint(const char *name)
{
	struct ks_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(ks_tp_match, &l);
	return l.tp;
}

/*
 * Finds a function's address the way kprobes do, by registering a
 * disabled kprobe, so unknown symbols (-ENOENT) and blacklisted or
 * reserved addresses (-EINVAL) are refused before anything is attached.
 */
static int ks_resolve(const char *name, const char *sym, unsigned long *addr)
{
	struct kprobe kp = {
		.symbol_name = sym,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int err;

	err = register_kprobe(&kp);
	if (err == -ENOENT) {
		pr_err("trace %s: no function %s in the kernel or its modules\n",
		       name, sym);
		return err;
	}
	if (err) {
		pr_err("trace %s: %s cannot be probed (%d); see /sys/kernel/debug/kprobes/blacklist\n",
		       name, sym, err);
		return err == -EILSEQ || err == -EBUSY ? -EINVAL : err;
	}
	*addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	if (within_module(*addr, THIS_MODULE)) {
		pr_err("trace %s: %s is part of kstats, which cannot trace itself; see /sys/kernel/debug/kprobes/blacklist\n",
		       name, sym);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------ attach, detach */

static int ks_attach_kretprobe(struct ks_trace *t)
{
	t->rp.kp.symbol_name = t->req.start;
	t->rp.entry_handler = ks_krp_entry;
	t->rp.handler = ks_krp_return;
	t->rp.data_size = sizeof(u64);
	t->rp.maxactive = t->req.maxactive;
	return register_kretprobe(&t->rp);
}

#if KS_HAVE_FPROBE
static int ks_attach_fprobe(struct ks_trace *t)
{
	const char *sym = t->req.start;

	t->fp.entry_handler = ks_fp_entry;
	t->fp.exit_handler = ks_fp_exit;
	t->fp.entry_data_size = sizeof(u64);
	t->fp.nr_maxactive = t->req.maxactive;
	return register_fprobe_syms(&t->fp, &sym, 1);
}
#else
static int ks_attach_fprobe(struct ks_trace *t)
{
	return -EOPNOTSUPP;
}
#endif

/* A function: fprobe if asked or possible, else kretprobe. */
static int ks_attach_function(struct ks_trace *t)
{
	int err;

	/* Without CONFIG_FPROBE the default is simply a kretprobe. */
	if (t->req.method == KS_METHOD_FPROBE ||
	    (KS_HAVE_FPROBE && t->req.method == KS_METHOD_DEFAULT)) {
		err = ks_attach_fprobe(t);
		if (!err) {
			t->req.method = KS_METHOD_FPROBE;
			return 0;
		}
		if (t->req.method == KS_METHOD_FPROBE) {
			pr_err("trace %s: fprobe unavailable for %s (%d)%s\n",
			       t->req.name, t->req.start, err,
			       KS_HAVE_FPROBE ? ": no ftrace site?" :
			       ": kernel without CONFIG_FPROBE");
			return err == -ENOMEM ? err : -EOPNOTSUPP;
		}
		/* The union is reused: clear what the failed fprobe set. */
		memset(&t->rp, 0, sizeof(t->rp));
		pr_info("trace %s: no fprobe for %s (%d), using a kretprobe\n",
			t->req.name, t->req.start, err);
	}
	t->req.method = KS_METHOD_KRETPROBE;
	err = ks_attach_kretprobe(t);
	if (err)
		pr_err("trace %s: register_kretprobe(%s) failed: %d\n",
		       t->req.name, t->req.start, err);
	return err;
}

static int ks_attach_kprobes(struct ks_trace *t)
{
	struct kprobe *kps[] = { &t->kp.start, &t->kp.end };
	int err;

	t->kp.start.symbol_name = t->req.start;
	t->kp.start.pre_handler = ks_kp_start;
	t->kp.end.symbol_name = t->req.end;
	t->kp.end.pre_handler = ks_kp_end;
	err = register_kprobes(kps, ARRAY_SIZE(kps));
	if (err)
		pr_err("trace %s: register_kprobes failed: %d\n",
		       t->req.name, err);
	return err;
}

static int ks_attach_tracepoints(struct ks_trace *t)
{
	const char *start = t->req.start + strlen(KS_TP_PREFIX);
	const char *end = t->req.end + strlen(KS_TP_PREFIX);
	int i, err;

	t->tp.start_fn = ks_tp_start;
	t->tp.end_fn = ks_tp_end;
	for (i = 0; i < ARRAY_SIZE(ks_typed_pairs); i++) {
		if (!strcmp(ks_typed_pairs[i].start, start) &&
		    !strcmp(ks_typed_pairs[i].end, end)) {
			t->tp.start_fn = ks_typed_pairs[i].start_fn;
			t->tp.end_fn = ks_typed_pairs[i].end_fn;
		}
	}
	err = tracepoint_probe_register(t->tp.start, t->tp.start_fn, t);
	if (err)
		goto err_msg;
	err = tracepoint_probe_register(t->tp.end, t->tp.end_fn, t);
	if (err) {
		tracepoint_probe_unregister(t->tp.start, t->tp.start_fn, t);
		tracepoint_synchronize_unregister();
		goto err_msg;
	}
	return 0;
err_msg:
	pr_err("trace %s: tracepoint_probe_register failed: %d\n",
	       t->req.name, err);
	return err;
}

/* After this returns no handler of @t runs or will run. */
static void ks_detach(struct ks_trace *t)
{
	struct kprobe *kps[] = { &t->kp.start, &t->kp.end };

	switch (t->req.method) {
	case KS_METHOD_KRETPROBE:
		/* Returns still pending no longer reach our handler. */
		unregister_kretprobe(&t->rp);
		break;
#if KS_HAVE_FPROBE
	case KS_METHOD_FPROBE:
		unregister_fprobe(&t->fp);
		break;
#endif
	case KS_METHOD_KPROBE:
		unregister_kprobes(kps, ARRAY_SIZE(kps));
		break;
	case KS_METHOD_TRACEPOINT:
		tracepoint_probe_unregister(t->tp.start, t->tp.start_fn, t);
		tracepoint_probe_unregister(t->tp.end, t->tp.end_fn, t);
		tracepoint_synchronize_unregister();
		break;
	default:
		break;
	}
}

/*
 * Samples lost. A start refused for a full table is not added: its end
 * then finds no start and is counted there.
 */
/* Finds what a trace hooks into, without attaching anything. */
static int ks_trace_resolve(struct ks_trace *t)
{
	const char *start = t->req.start + strlen(KS_TP_PREFIX);
	const char *end = t->req.end + strlen(KS_TP_PREFIX);
	int err;

	if (t->req.method != KS_METHOD_TRACEPOINT) {
		err = ks_resolve(t->req.name, t->req.start, &t->addr);
		if (!err && t->req.method == KS_METHOD_KPROBE)
			err = ks_resolve(t->req.name, t->req.end, &t->end_addr);
		return err;
	}
	t->tp.start = ks_find_tracepoint(start);
	t->tp.end = ks_find_tracepoint(end);
	if (!t->tp.start || !t->tp.end) {
		pr_err("trace %s: no tracepoint %s in the kernel\n",
		       t->req.name, t->tp.start ? end : start);
		return -ENOENT;
	}
	return 0;
}

static unsigned long ks_trace_missed(struct ks_trace *t)
{
	unsigned long missed = atomic_long_read(&t->no_start) +
			       atomic_long_read(&t->negative);

	switch (t->req.method) {
	case KS_METHOD_KRETPROBE:
		missed += t->rp.nmissed + t->rp.kp.nmissed;
		break;
#if KS_HAVE_FPROBE
	case KS_METHOD_FPROBE:
		missed += t->fp.nmissed;
		break;
#endif
	case KS_METHOD_KPROBE:
		missed += t->kp.start.nmissed + t->kp.end.nmissed;
		break;
	default:
		break;
	}
	return missed;
}

/* ks_trace_missed() as the nodes' "missed" callback. */
static unsigned long ks_trace_missed_cb(void *arg)
{
	return ks_trace_missed(arg);
}

/* The '#' line of a trace's nodes. */
static void ks_trace_show_missed(struct seq_file *m, void *arg)
{
	struct ks_trace *t = arg;

	seq_printf(m, "# trace %s method %s missed %lu (no_start %ld table_full %ld negative %ld)%s\n",
		   t->req.name, ks_method_name(t->req.method),
		   ks_trace_missed(t), atomic_long_read(&t->no_start),
		   atomic_long_read(&t->table_full),
		   atomic_long_read(&t->negative), t->gone ? " gone" : "");
}

static void ks_trace_free(struct ks_trace *t)
{
	kstats_delete(t->gap);
	kstats_delete(t->dur);
	kfree(t->starts);
	free_percpu(t->last_end);
	kfree(t);
}

static struct ks_trace *ks_trace_find(const char *name)
{
	struct ks_trace *t;

	list_for_each_entry(t, &ks_traces, list)
		if (!strcmp(t->req.name, name))
			return t;
	return NULL;
}

static struct kstats *ks_trace_node(struct ks_trace *t, const char *prefix)
{
	/* The parser keeps prefix and name within KSTATS_NAME_MAX. */
	char name[sizeof(KS_GAP_PREFIX) + sizeof(t->req.name)];
	struct kstats *ks;

	snprintf(name, sizeof(name), "%s%s", prefix, t->req.name);
	ks = ks_create(name, t->req.bits, ks_trace_show_missed,
		       ks_trace_missed_cb, t);
	return ks;
}

/**
 * ks_trace_add() - attach a trace as described by a _control line
 * @req: the parsed line
 *
 * Creates NAME and GAP-NAME, then attaches the probes. On failure nothing
 * is left behind and dmesg has the reason.
 *
 * Context: process context; may sleep.
 * Return: 0; -EEXIST for a name in use; -ENOENT for an unknown symbol or
 * tracepoint; -EINVAL for an address that cannot be probed (kprobe
 * blacklist, kstats itself) or a bad name; -EOPNOTSUPP for method fprobe
 * where the kernel or function has none; -ENOMEM.
 */
int ks_trace_add(const struct ks_trace_req *req)
{
	struct ks_trace *t;
	int err;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->req = *req;
	if (!t->req.maxactive)
		t->req.maxactive = max(64U, 4 * num_possible_cpus());
	t->last_end = alloc_percpu(u64);
	if (!t->last_end)
		goto err_nomem;
	if (req->method == KS_METHOD_KPROBE ||
	    req->method == KS_METHOD_TRACEPOINT) {
		t->starts = ks_start_table_alloc(t->req.maxactive);
		if (!t->starts)
			goto err_nomem;
	}

	mutex_lock(&ks_trace_lock);
	if (ks_trace_find(req->name)) {
		pr_err("trace %s: already traced\n", req->name);
		err = -EEXIST;
		goto err_unlock;
	}
	/* Refuse unknown or unprobeable symbols before any node appears. */
	err = ks_trace_resolve(t);
	if (err)
		goto err_unlock;
	t->dur = ks_trace_node(t, "");
	if (IS_ERR(t->dur)) {
		err = PTR_ERR(t->dur);
		t->dur = NULL;
		goto err_unlock;
	}
	t->gap = ks_trace_node(t, KS_GAP_PREFIX);
	if (IS_ERR(t->gap)) {
		err = PTR_ERR(t->gap);
		t->gap = NULL;
		goto err_unlock;
	}

	switch (t->req.method) {
	case KS_METHOD_KPROBE:
		err = ks_attach_kprobes(t);
		break;
	case KS_METHOD_TRACEPOINT:
		err = ks_attach_tracepoints(t);
		break;
	default:
		err = ks_attach_function(t);
		break;
	}
	if (err)
		goto err_unlock;
	list_add_tail_rcu(&t->list, &ks_traces);
	mutex_unlock(&ks_trace_lock);
	pr_info("trace %s: attached with %s to %s%s%s\n", t->req.name,
		ks_method_name(t->req.method), t->req.start,
		t->req.end[0] ? " .. " : "", t->req.end);
	return 0;

err_unlock:
	mutex_unlock(&ks_trace_lock);
	ks_trace_free(t);
	return err;
err_nomem:
	ks_trace_free(t);
	return -ENOMEM;
}

static void ks_trace_destroy(struct ks_trace *t)
{
	lockdep_assert_held(&ks_trace_lock);
	list_del_rcu(&t->list);
	ks_detach(t);
	/* ks_tp_task_free() walks ks_traces under RCU. */
	synchronize_rcu();
	pr_info("trace %s: removed, %lu missed\n", t->req.name,
		ks_trace_missed(t));
	ks_trace_free(t);
}

/**
 * ks_trace_remove() - detach a trace and remove its nodes
 * @name: the trace's NAME
 *
 * Calls still pending give no sample.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOENT if nothing is traced under @name.
 */
int ks_trace_remove(const char *name)
{
	struct ks_trace *t;

	mutex_lock(&ks_trace_lock);
	t = ks_trace_find(name);
	if (t)
		ks_trace_destroy(t);
	mutex_unlock(&ks_trace_lock);
	if (!t) {
		pr_err("remove %s: no such trace\n", name);
		return -ENOENT;
	}
	return 0;
}

/**
 * ks_trace_list() - print one line per trace, for reading _control
 * @m: the output
 */
void ks_trace_list(struct seq_file *m)
{
	struct ks_trace *t;

	mutex_lock(&ks_trace_lock);
	list_for_each_entry(t, &ks_traces, list)
		seq_printf(m, "%s method %s bits %u start %s end %s maxactive %u missed %lu%s\n",
			   t->req.name, ks_method_name(t->req.method),
			   t->req.bits, t->req.start,
			   t->req.end[0] ? t->req.end : "-",
			   t->req.maxactive, ks_trace_missed(t),
			   t->gone ? " gone" : "");
	mutex_unlock(&ks_trace_lock);
}

/* Marks traces whose functions go away with a module. */
static int ks_module_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct module *mod = data;
	struct ks_trace *t;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&ks_trace_lock);
	list_for_each_entry(t, &ks_traces, list)
		if (within_module(t->addr, mod) ||
		    within_module(t->end_addr, mod))
			t->gone = true;
	mutex_unlock(&ks_trace_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ks_module_nb = {
	.notifier_call = ks_module_notify,
};

int ks_hook_init(void)
{
	int err;

	err = register_module_notifier(&ks_module_nb);
	if (err)
		return err;
	ks_free_tp = ks_find_tracepoint("sched_process_free");
	if (ks_free_tp &&
	    tracepoint_probe_register(ks_free_tp, ks_tp_task_free, NULL))
		ks_free_tp = NULL;
	if (!ks_free_tp)
		pr_warn("no sched_process_free tracepoint: sections left open by exiting tasks stay in the start tables\n");
	return 0;
}

/* Detaches every trace, as rmmod kstats must. */
void ks_hook_exit(void)
{
	struct ks_trace *t, *tmp;

	mutex_lock(&ks_trace_lock);
	list_for_each_entry_safe(t, tmp, &ks_traces, list)
		ks_trace_destroy(t);
	mutex_unlock(&ks_trace_lock);
	if (ks_free_tp) {
		tracepoint_probe_unregister(ks_free_tp, ks_tp_task_free, NULL);
		tracepoint_synchronize_unregister();
	}
	unregister_module_notifier(&ks_module_nb);
}
