/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 for filters and keys: which cgroup a task is in, read in any
 * context a handler runs in (NMI included), and, in process context, a
 * filter's cgroup from its path and a key's path from its cgroup id.
 */
#ifndef _KSTATS_CGROUP_H
#define _KSTATS_CGROUP_H

#include <linux/cgroup.h>
#include <linux/sched.h>
#include <linux/types.h>

struct seq_file;
struct tracepoint;

/* Longest cgroup word: a path under the cgroup2 mount, or a full path. */
#define KS_CGROUP_PATH_MAX	256

/**
 * struct ks_cgroup_filter - the cgroup a "cgroup PATH" filter admits
 * @cgrp: the directory, held; once it is removed and a directory of the
 *        same path is made (a service restarted), that one
 * @root: the hierarchy @cgrp is in, the default (v2) one
 * @mkdir_tp: the tracepoint that tells of a new directory
 * @path: @cgrp's path from the cgroup2 root, as cgroup_path() gives it
 */
struct ks_cgroup_filter {
	struct cgroup __rcu *cgrp;
	struct cgroup_root *root;
	struct tracepoint *mkdir_tp;
	char path[];
};

#ifdef CONFIG_CGROUPS
/*
 * The task's cgroup on the default (v2) hierarchy. A handler runs with
 * preemption off, an RCU read-side section for css_set and cgroup,
 * which are freed after a grace period; task->cgroups is never NULL.
 */
static __always_inline struct cgroup *ks_task_cgroup(const struct task_struct *p)
{
	return task_dfl_cgroup((struct task_struct *)p);
}

/* The id KEY-NAME's rows keep: the cgroup directory's kernfs id. */
static __always_inline u64 ks_task_cgroup_id(const struct task_struct *p)
{
	return cgroup_id(ks_task_cgroup(p));
}

/*
 * Whether @p is in the filter's cgroup or below it: ancestors[] compared,
 * no lock. A cgroup the filter let go is freed after a grace period.
 */
static __always_inline bool ks_task_in_cgroup(const struct task_struct *p,
					      struct ks_cgroup_filter *cf)
{
	return cgroup_is_descendant(ks_task_cgroup(p),
				    rcu_dereference_sched(cf->cgrp));
}
#else
static __always_inline u64 ks_task_cgroup_id(const struct task_struct *p)
{
	return 0;
}

static __always_inline bool ks_task_in_cgroup(const struct task_struct *p,
					      struct ks_cgroup_filter *cf)
{
	return true;
}
#endif

struct ks_cgroup_names;

int ks_cgroup_filter_get(const char *path, struct tracepoint *mkdir_tp,
			 struct ks_cgroup_filter **cf, char *why, size_t size);
void ks_cgroup_filter_put(struct ks_cgroup_filter *cf);
struct ks_cgroup_names *ks_cgroup_names_alloc(void);
void ks_cgroup_names_free(struct ks_cgroup_names *names);
void ks_cgroup_show(struct seq_file *m, struct ks_cgroup_names *names,
		    const char *part, u64 id);

#endif /* _KSTATS_CGROUP_H */
