// SPDX-License-Identifier: GPL-2.0
/*
 * The trace registry: adds, removes and lists traces, each attached by
 * the first method of ks_methods[] that claims it, and follows them
 * through modules going away and tasks exiting. It owns their lifetimes
 * and counts their memory; the methods (method.h) own their probes.
 *
 * All of kstats is built without ftrace hooks (see Kbuild), and a trace
 * of any address inside kstats is refused, so it never traces itself.
 */
#include <linux/debugfs.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>

#include "cgroup.h"
#include "hist.h"
#include "hotpath.h"
#include "keys.h"
#include "method.h"
#include "metrics.h"
#include "names.h"
#include "symbols.h"
#include "starts.h"
#include "traces.h"
#include "values.h"

/* The methods, most specific first: a trace takes the first that claims it. */
static const struct ks_method_ops *const ks_methods[] = {
	&ks_offcpu_ops,		/* trace NAME offcpu */
	&ks_runq_ops,		/* a tracepoint pair of the scheduler's */
	&ks_matched_tp_ops,	/* ... match argI: paired on an object */
	&ks_matched_kprobe_ops,
	&ks_tracepoint_pair_ops,
	&ks_kprobe_pair_ops,
	&ks_fprobe_ops,
	&ks_kretprobe_ops,
};

/*
 * Serializes trace/remove/list and the module notifier. Taken before
 * ks_lock (in kstats_new/kstats_delete), never inside it.
 */
static DEFINE_MUTEX(ks_trace_lock);
static LIST_HEAD(ks_traces);
static struct tracepoint *ks_free_tp;

static const struct ks_method_ops *ks_method_for(const struct ks_trace_req *req)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ks_methods); i++)
		if (ks_methods[i]->claims(req))
			return ks_methods[i];
	return NULL;
}

/*
 * A task freed with a section open would leave a start whose key a new
 * task_struct could reuse. sched_process_free fires just before the free,
 * after everything the task could still start (even SIGCHLD in exit).
 */
static void notrace ks_tp_task_free(void *data, struct task_struct *p)
{
	struct ks_trace *t;

	/* Under SRCU-fast (7.x) a probe is no RCU reader: see tracepoint_pair.c. */
	rcu_read_lock();
	list_for_each_entry_rcu(t, &ks_traces, list)
		/* A matched trace's starts are an object's, not a task's. */
		if (t->starts && !t->req.match.on)
			ks_starts_drop_task(t->starts, p);
	rcu_read_unlock();
}

/* The kernel's own count of what @t's probes lost, for the life of @t. */
static unsigned long ks_probe_missed_raw(struct ks_trace *t)
{
	/* A function trace may fall back to a kretprobe while read. */
	const struct ks_method_ops *ops = READ_ONCE(t->ops);

	return ops->missed ? ops->missed(t) : 0;
}

/*
 * What the kernel's probes of @t lost while NAME recorded: not fired, or
 * no instance free. While NAME is stopped its samples would be ignored,
 * so, as kstats' own counts, this pauses: a stopped trace's figures stay
 * whole until it is read and removed (kstats run).
 */
static unsigned long ks_probe_missed(struct ks_trace *t)
{
	unsigned long raw = ks_probe_missed_raw(t), missed;

	spin_lock(&t->probe_lock);
	missed = (t->probe_stopped ? t->probe_at_stop : raw) - t->probe_paused;
	spin_unlock(&t->probe_lock);
	return missed;
}

/*
 * NAME's set_active hook: start and stop pause the kernel's count too,
 * and stop and start the method's parts (README), whose state lines then
 * say so. A part's own stop holds until NAME's next start.
 */
static void ks_trace_set_active(void *arg, bool active)
{
	struct ks_trace *t = arg;
	unsigned long raw = ks_probe_missed_raw(t);
	unsigned int i;

	for (i = 0; i < KS_PARTS_MAX; i++)
		if (t->part[i])
			WRITE_ONCE(t->part[i]->active, active);

	spin_lock(&t->probe_lock);
	if (active && t->probe_stopped)
		t->probe_paused += raw - t->probe_at_stop;
	else if (!active && !t->probe_stopped)
		t->probe_at_stop = raw;
	t->probe_stopped = !active;
	spin_unlock(&t->probe_lock);
}

/*
 * Samples lost, each counted once, where it is lost: a probe that did
 * not fire, a start with no room, a hit inside a kstats handler, an end
 * before its start. An end that finds no start (no_start) is not among
 * them: its section began before the trace did, or the pair's functions
 * do not always come in pairs (a write without a read); and a start
 * that was lost has already been counted.
 */
static unsigned long ks_trace_missed(struct ks_trace *t)
{
	return ks_probe_missed(t) + atomic_long_read(&t->table_full) +
	       atomic_long_read(&t->too_deep) +
	       atomic_long_read(&t->nested_start) +
	       atomic_long_read(&t->nested_end) +
	       atomic_long_read(&t->negative) +
	       atomic_long_read(&t->expired) +
	       atomic_long_read(&t->replaced) +
	       atomic_long_read(&t->fault);
}

/* ks_trace_missed() as the nodes' "missed" callback. */
static unsigned long ks_trace_missed_cb(void *arg)
{
	return ks_trace_missed(arg);
}

/* The '#' line of a trace's nodes: the missed count and its causes. */
static void ks_trace_show_missed(struct seq_file *m, void *arg)
{
	struct ks_trace *t = arg;

	seq_printf(m, "# trace %s method %s missed %lu (probe %lu table_full %ld nested %ld depth %ld negative %ld expired %ld replaced %ld fault %ld) no_start %ld%s\n",
		   t->req.name, ks_method_names[t->req.method],
		   ks_trace_missed(t), ks_probe_missed(t),
		   atomic_long_read(&t->table_full),
		   atomic_long_read(&t->nested_start) +
		   atomic_long_read(&t->nested_end),
		   atomic_long_read(&t->too_deep),
		   atomic_long_read(&t->negative),
		   atomic_long_read(&t->expired),
		   atomic_long_read(&t->replaced),
		   atomic_long_read(&t->fault),
		   atomic_long_read(&t->no_start), t->gone ? " gone" : "");
}

/*
 * Bytes a trace holds: its histograms, start table and per-CPU state,
 * and what the kernel keeps for its probes (the method's count).
 */
static size_t ks_trace_bytes(const struct ks_trace *t)
{
	size_t cpus = num_possible_cpus();
	/* A histogram has its second bank once its interval file is read. */
	size_t bytes = sizeof(*t) + t->ops->priv_size + ks_hist_bytes(t->dur) +
		       (t->gap ? ks_hist_bytes(t->gap) : 0) + cpus * sizeof(u64) +
		       ks_starts_bytes(t->starts);
	unsigned int i;

	for (i = 0; i < KS_PARTS_MAX; i++)
		if (t->part[i])
			bytes += ks_hist_bytes(t->part[i]);

	if (t->ops->bytes)
		bytes += t->ops->bytes(t);
	return bytes + t->funcs.n * sizeof(unsigned long) +
	       ks_keys_bytes(t->keys);
}

/**
 * ks_default_maxactive() - instances in flight when the line sets none
 *
 * Two per possible CPU, like the kernel's own kretprobe default, within
 * 64..KS_MAXACTIVE_DEFAULT_MAX. The cap keeps the kernel's per-CPU rings
 * (6.7+) under 8 KiB per possible CPU, where a default growing with the
 * CPU count would make them grow with its square.
 */
static unsigned int ks_default_maxactive(void)
{
	return clamp(2 * num_possible_cpus(), 64U, KS_MAXACTIVE_DEFAULT_MAX);
}

static void ks_trace_free(struct ks_trace *t)
{
	unsigned int i;

	/* Waits for readers of KEY-NAME, which use t->keys. */
	debugfs_remove(t->key_node);
	ks_keys_free(t->keys);
	ks_cgroup_filter_put(t->req.filter.cgroup);
	for (i = 0; i < KS_PARTS_MAX; i++)
		kstats_delete(t->part[i]);
	kstats_delete(t->gap);
	kstats_delete(t->dur);
	ks_starts_free(t->starts);
	if (t->ops->free)
		t->ops->free(t);
	ks_funcs_free(&t->funcs);
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
	char name[sizeof(KS_BLOCKED_PREFIX) + sizeof(t->req.name)];
	char who[sizeof("trace ") + sizeof(t->req.name)];

	snprintf(name, sizeof(name), "%s%s", prefix, t->req.name);
	snprintf(who, sizeof(who), "trace %s", t->req.name);
	return ks_create(who, name, t->req.bits, ks_trace_show_missed,
			 ks_trace_missed_cb, t);
}

/* NAME, GAP-NAME, the method's parts and, with a key, KEY-NAME; under ks_trace_lock. */
static int ks_trace_nodes(struct ks_trace *t)
{
	unsigned int i;

	for (i = 0; i < KS_PARTS_MAX && t->ops->part_prefix[i]; i++) {
		t->part[i] = ks_trace_node(t, t->ops->part_prefix[i]);
		if (IS_ERR(t->part[i])) {
			int err = PTR_ERR(t->part[i]);

			t->part[i] = NULL;
			return err;
		}
	}
	t->dur = ks_trace_node(t, "");
	if (IS_ERR(t->dur)) {
		int err = PTR_ERR(t->dur);

		t->dur = NULL;
		return err;
	}
	/* A stop written before the hook is set counts from the hook. */
	mutex_lock(&t->dur->interval_lock);
	t->dur->set_active = ks_trace_set_active;
	ks_trace_set_active(t, READ_ONCE(t->dur->active));
	mutex_unlock(&t->dur->interval_lock);
	t->gap = t->req.gap_off ? NULL : ks_trace_node(t, KS_GAP_PREFIX);
	if (IS_ERR(t->gap)) {
		int err = PTR_ERR(t->gap);

		t->gap = NULL;
		return err;
	}
	if (t->keys) {
		char name[sizeof(KS_KEY_PREFIX) + sizeof(t->req.name)];
		char who[sizeof("trace ") + sizeof(t->req.name)];

		snprintf(name, sizeof(name), "%s%s", KS_KEY_PREFIX, t->req.name);
		snprintf(who, sizeof(who), "trace %s", t->req.name);
		t->key_node = ks_create_text(who, name, &ks_keys_fops, t->keys);
		if (IS_ERR(t->key_node)) {
			int err = PTR_ERR(t->key_node);

			t->key_node = NULL;
			return err;
		}
	}
	return 0;
}

/* A trace and what its handlers use, before anything is resolved. */
static struct ks_trace *ks_trace_alloc(const struct ks_trace_req *req,
				       const struct ks_method_ops *ops)
{
	struct ks_trace *t;

	t = kzalloc(sizeof(*t) + ops->priv_size, GFP_KERNEL);
	if (!t)
		return NULL;
	t->ops = ops;
	t->req = *req;
	spin_lock_init(&t->probe_lock);
	if (!t->req.maxactive)
		t->req.maxactive = ops->starts_default ?: ks_default_maxactive();
	t->last_end = alloc_percpu(u64);
	if (!t->last_end)
		goto err;
	if (req->keys.n_parts || req->keys.slowest) {
		t->keys = ks_keys_alloc(&req->keys);
		if (!t->keys)
			goto err;
	}
	if (ops->starts) {
		t->starts = ks_starts_alloc(t->req.maxactive);
		if (!t->starts)
			goto err;
	}
	return t;
err:
	ks_trace_free(t);
	return NULL;
}

/*
 * Lockdown's confidentiality mode takes kprobes (and fprobes) from the
 * kernel's own tracers, and tracefs, their one way to tracepoint events:
 * kstats takes them from itself. The kernel checks at attach time, not
 * later, and so does kstats: traces made before the raise stay.
 */
static int ks_lockdown_check(const struct ks_trace_req *req,
			     const struct ks_method_ops *ops)
{
	bool tracepoints = ops->method == KS_METHOD_TRACEPOINT;
	int err;

	err = security_locked_down(tracepoints ? LOCKDOWN_TRACEFS : LOCKDOWN_KPROBES);
	if (err)
		ks_err_ratelimited("trace %s: the kernel is locked down (confidentiality), which allows %s to no tracer: kstats attaches none\n",
				   req->name, tracepoints ? "tracepoint events" : "kprobes");
	return err;
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
 * tracepoint, or a cgroup filter's path that names no cgroup v2 directory
 * (-ENOTDIR: a file of one; -EOPNOTSUPP: a cgroup v1 directory);
 * -EINVAL for an address that cannot be probed (kprobe blacklist, kstats
 * itself) or a bad name; -EOPNOTSUPP for method fprobe where the kernel
 * or function has none; -EPERM (or an LSM's errno)
 * where lockdown refuses tracers; -ENOMEM.
 */
int ks_trace_add(const struct ks_trace_req *req)
{
	const struct ks_method_ops *ops = ks_method_for(req);
	struct ks_trace *t;
	int err;

	if (WARN_ON_ONCE(!ops))
		return -EINVAL;
	t = ks_trace_alloc(req, ops);
	if (!t)
		return -ENOMEM;
	if ((req->filter.has & KS_FILTER_CPU) && req->filter.cpu >= nr_cpu_ids) {
		ks_err_ratelimited("trace %s: cpu %u: this machine's CPUs are 0..%u\n",
				   req->name, req->filter.cpu, nr_cpu_ids - 1);
		ks_trace_free(t);
		return -EINVAL;
	}
	/* A taken name first: resolving a pattern takes a while, and says things. */
	mutex_lock(&ks_trace_lock);
	err = ks_trace_find(req->name) ? -EEXIST : 0;
	mutex_unlock(&ks_trace_lock);
	if (err) {
		ks_err_ratelimited("trace %s: a trace of that name exists (remove %s first)\n",
				   req->name, req->name);
		ks_trace_free(t);
		return err;
	}
	err = ks_lockdown_check(req, ops);
	if (err) {
		ks_trace_free(t);
		return err;
	}
	if (req->filter.has & KS_FILTER_CGROUP) {
		/*
		 * Once, as the writer: handlers compare with it, never look
		 * it up. After lockdown's check: it registers a tracepoint probe.
		 */
		err = ks_cgroup_filter_get(req->filter.cgroup_path,
					   ks_find_tracepoint("cgroup_mkdir"),
					   &t->req.filter.cgroup, t->req.why,
					   sizeof(t->req.why));
		if (err) {
			if (err != -ENOMEM)
				ks_err_ratelimited("trace %s: %s\n", req->name, t->req.why);
			ks_trace_free(t);
			return err;
		}
	}
	/*
	 * Refuse unknown or unprobeable symbols before any node appears;
	 * without ks_trace_lock, which the module notifier needs: resolving
	 * waits for grace periods.
	 */
	err = ops->resolve(t);
	if (err) {
		ks_trace_free(t);
		return err;
	}
	mutex_lock(&ks_trace_lock);
	if (ks_trace_find(req->name)) {
		ks_err_ratelimited("trace %s: a trace of that name exists (remove %s first)\n",
				   req->name, req->name);
		err = -EEXIST;
		goto err_unlock;
	}
	err = ks_trace_nodes(t);
	if (err)
		goto err_unlock;
	err = ops->attach(t);
	if (err)
		goto err_unlock;
	/* attach may have handed the trace to another method. */
	t->req.method = t->ops->method;
	if (t->ops->maxactive_unused) {
		if (req->maxactive)
			pr_info("trace %s: maxactive %u does not apply: %s on this kernel has no instance pool\n",
				t->req.name, req->maxactive,
				ks_method_names[t->req.method]);
		t->req.maxactive = 0;
	}
	list_add_tail_rcu(&t->list, &ks_traces);
	mutex_unlock(&ks_trace_lock);
	pr_info("trace %s: attached with %s to %s%s%s\n", t->req.name,
		ks_method_names[t->req.method], t->req.start,
		t->req.end[0] ? " .. " : "", t->req.end);
	return 0;

err_unlock:
	mutex_unlock(&ks_trace_lock);
	ks_trace_free(t);
	return err;
}

/*
 * Detaches @t, already off ks_traces, and frees it. Without ks_trace_lock
 * on remove: the kernel's unregistration waits for grace periods, which a
 * CPU taken by a real-time task can hold back for as long as it runs.
 */
static void ks_trace_destroy(struct ks_trace *t)
{
	unsigned int i;
	int err;

	/*
	 * Stopped first: the figures, and dmesg's below, are those of the
	 * trace up to the remove. Calls that meet its probes while they are
	 * torn down give no sample, and the kernel may count them missed
	 * (an fprobe stops its rethook before it unhooks the function):
	 * stopped, the trace's count does not take them.
	 */
	kstats_set_active(t->dur, false);
	err = t->ops->detach(t);
	/* ks_tp_task_free() walks ks_traces under RCU. */
	synchronize_rcu();
	if (err) {
		/*
		 * Its handlers may still be called: keep it, and kstats with
		 * it, for good. The nodes stay, stopped, under their names.
		 */
		pr_err("trace %s: cannot detach (%d); keeping it, and kstats loaded\n",
		       t->req.name, err);
		WRITE_ONCE(t->dur->active, false);
		if (t->gap)
			WRITE_ONCE(t->gap->active, false);
		for (i = 0; i < KS_PARTS_MAX; i++)
			if (t->part[i])
				WRITE_ONCE(t->part[i]->active, false);
		__module_get(THIS_MODULE);
		return;
	}
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
		list_del_rcu(&t->list);
	mutex_unlock(&ks_trace_lock);
	if (!t) {
		ks_err_ratelimited("remove %s: no such trace\n", name);
		return -ENOENT;
	}
	ks_trace_destroy(t);
	return 0;
}

/**
 * ks_trace_list() - print one line per trace, for reading _control
 * @m: the output
 *
 * Context: process context; may sleep.
 */
void ks_trace_list(struct seq_file *m)
{
	struct ks_trace *t;

	mutex_lock(&ks_trace_lock);
	list_for_each_entry(t, &ks_traces, list) {
		const struct ks_filter *f = &t->req.filter;
		unsigned int i;
		char key[160], types[400];

		ks_key_spec_print(key, sizeof(key), &t->req.keys);
		/* functions: a pair has 2 points. */
		seq_printf(m, "%s method %s bits %u start %s end %s functions %u skipped %u maxactive %u memory %zu missed %lu key %s keys %u other %lu slowest %u",
			   t->req.name, ks_method_names[t->req.method],
			   t->req.bits, t->req.start,
			   t->req.end[0] ? t->req.end : "-",
			   t->funcs.n ? t->funcs.n : 2,
			   t->funcs.skipped,
			   t->req.maxactive, ks_trace_bytes(t),
			   ks_trace_missed(t), key,
			   t->req.keys.n_parts ? t->req.keys.rows : 0,
			   ks_keys_other(t->keys), t->req.keys.slowest);
		if (f->has & KS_FILTER_PID)
			seq_printf(m, " pid %d", f->pid);
		if (f->has & KS_FILTER_TGID)
			seq_printf(m, " tgid %d", f->tgid);
		if (f->has & KS_FILTER_COMM) {
			seq_puts(m, " comm ");
			seq_escape(m, f->comm, " \t\n\\");
		}
		if (f->has & KS_FILTER_CPU)
			seq_printf(m, " cpu %u", f->cpu);
		if (f->has & KS_FILTER_CGROUP) {
			seq_puts(m, " cgroup ");
			seq_escape(m, f->cgroup_path, " \t\n\\");
		}
		for (i = 0; i < f->n_values; i++)
			seq_printf(m, " if %s", f->value[i].word);
		if (ks_values_print_types(types, sizeof(types), &t->req))
			seq_printf(m, " types %s", types);
		if (t->ops->list)
			t->ops->list(m, t);
		seq_printf(m, "%s%s\n", t->req.gap_off ? " gap off" : "",
			   t->gone ? " gone" : "");
	}
	mutex_unlock(&ks_trace_lock);
}

/* Does any probe of @t sit in @mod? */
static bool ks_trace_within(struct ks_trace *t, struct module *mod)
{
	unsigned int i;

	for (i = 0; i < t->funcs.n; i++)
		if (within_module(t->funcs.addrs[i], mod))
			return true;
	return within_module(t->addr, mod) || within_module(t->end_addr, mod);
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
	list_for_each_entry(t, &ks_traces, list) {
		if (!ks_trace_within(t, mod))
			continue;
		t->gone = true;
		if (t->ops->module_going)
			t->ops->module_going(t);
	}
	mutex_unlock(&ks_trace_lock);
	return NOTIFY_DONE;
}

static struct notifier_block ks_module_nb = {
	.notifier_call = ks_module_notify,
};

/**
 * ks_traces_init() - follow modules and exiting tasks for the traces
 *
 * And tell the hot path where other tracers' return probes send calls.
 *
 * Context: module init.
 * Return: 0, or register_module_notifier()'s error.
 */
int ks_traces_init(void)
{
	struct ks_sym tramp[] = {
		{ .name = "arch_rethook_trampoline" },
		{ .name = "return_to_handler" },
		{ .name = "__kretprobe_trampoline" },
	};
	int err;

	/* One reading of kallsyms; a trampoline this kernel lacks stays 0. */
	err = ks_symbols_find(tramp, ARRAY_SIZE(tramp));
	if (err)
		pr_warn("cannot read /proc/kallsyms (%d): stacks may show return trampolines\n",
			err);
	ks_set_return_trampolines(tramp[0].addr, tramp[1].addr, tramp[2].addr);
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

/**
 * ks_traces_exit() - detach every trace, as rmmod kstats must
 *
 * Context: module exit.
 */
void ks_traces_exit(void)
{
	struct ks_trace *t, *tmp;

	mutex_lock(&ks_trace_lock);
	list_for_each_entry_safe(t, tmp, &ks_traces, list) {
		list_del_rcu(&t->list);
		ks_trace_destroy(t);
	}
	mutex_unlock(&ks_trace_lock);
	if (ks_free_tp) {
		tracepoint_probe_unregister(ks_free_tp, ks_tp_task_free, NULL);
		tracepoint_synchronize_unregister();
	}
	unregister_module_notifier(&ks_module_nb);
}
