// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 for filters and keys, in process context: a filter's cgroup
 * from the path written on the trace line, held while the trace lives
 * and followed to a new directory of that path when its service restarts;
 * a key's cgroup id back to its path when KEY-NAME is read. Handlers only
 * read a task's cgroup (cgroup.h): no path is looked up in a handler,
 * where kernfs' locks cannot be taken (NMI, a lock's own probes).
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/limits.h>
#include <linux/magic.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "cgroup.h"

#ifdef CONFIG_CGROUPS
/*
 * @path as a path under the cgroup2 root: itself, or, for a directory of
 * a mounted cgroup2 (/sys/fs/cgroup/a), its path from that mount's root.
 * Return: @path, a path in @buf, or an ERR_PTR.
 */
static const char *ks_cgroup_relative(const char *path, char *buf,
				      char *why, size_t size)
{
	const char *rel = path;
	struct path p;

	if (kern_path(path, LOOKUP_FOLLOW, &p))
		return path;	/* no such file: a path under the root */
	switch (p.dentry->d_sb->s_magic) {
	case CGROUP_SUPER_MAGIC:
		snprintf(why, size,
			 "cgroup %s is a cgroup v1 directory: kstats takes cgroup v2 (cgroup2) paths",
			 path);
		rel = ERR_PTR(-EOPNOTSUPP);
		break;
	case CGROUP2_SUPER_MAGIC:
		rel = dentry_path_raw(p.dentry, buf, PATH_MAX);
		if (IS_ERR(rel))
			snprintf(why, size, "cgroup %s: its path is too long", path);
		break;
	}
	path_put(&p);
	return rel;
}

/*
 * A directory made in the filter's hierarchy: when it has the filter's
 * path, the one the filter held was removed (cgroup v2 renames nothing),
 * so a service restarted: follow it. Called under cgroup_mutex, which
 * serializes the swaps; a handler that loaded the old cgroup is safe
 * until its grace period ends, after which the cgroup core frees it
 * (css_free_rwork_fn, queued by queue_rcu_work()).
 */
static void ks_cgroup_mkdir(void *data, struct cgroup *cgrp, const char *path)
{
	struct ks_cgroup_filter *cf = data;
	struct cgroup *old;

	if (cgrp->root != cf->root || strcmp(path, cf->path))
		return;
	cgroup_get(cgrp);
	old = rcu_replace_pointer(cf->cgrp, cgrp, true);
	cgroup_put(old);
}

/**
 * ks_cgroup_filter_get() - the cgroup v2 directory a "cgroup PATH" names
 * @path: as written under the cgroup2 mount (/system.slice), or the full
 *        path of a directory on a mounted cgroup2 (/sys/fs/cgroup/...)
 * @mkdir_tp: the cgroup_mkdir tracepoint, or NULL where there is none
 * @cf: set to the filter, holding the cgroup and following a directory
 *      of its path made after it is removed; ks_cgroup_filter_put() ends it
 * @why: set to a one-line reason on failure, naming the word
 * @size: of @why
 *
 * Context: process context, as the writer of the trace line; may sleep.
 * Return: 0; -ENOENT for no such cgroup (on a system with cgroup v1 only
 * the v2 hierarchy has its root alone); -ENOTDIR for a file of it;
 * -EOPNOTSUPP for a directory of a cgroup v1 mount, or no tracepoint to
 * follow it by; tracepoint_probe_register()'s error; -ENOMEM.
 */
int ks_cgroup_filter_get(const char *path, struct tracepoint *mkdir_tp,
			 struct ks_cgroup_filter **cf, char *why, size_t size)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	struct ks_cgroup_filter *f = NULL;
	const char *rel;
	struct cgroup *c;
	size_t len;
	int err;

	if (!buf)
		return -ENOMEM;
	rel = ks_cgroup_relative(path, buf, why, size);
	if (IS_ERR(rel)) {
		kfree(buf);
		return PTR_ERR(rel);
	}
	c = cgroup_get_from_path(rel);
	if (IS_ERR(c)) {
		kfree(buf);
		if (PTR_ERR(c) == -ENOTDIR)
			snprintf(why, size, "cgroup %s is a file, not a cgroup", path);
		else
			snprintf(why, size,
				 "cgroup %s: no such cgroup in the cgroup2 hierarchy (with cgroup v1 only, it has only its root, /)",
				 path);
		return PTR_ERR(c);
	}
	err = -EOPNOTSUPP;
	if (!mkdir_tp) {
		snprintf(why, size,
			 "cgroup %s: no cgroup_mkdir tracepoint to follow it when its service restarts",
			 path);
		goto fail;
	}
	err = cgroup_path(c, buf, PATH_MAX);
	if (err < 0) {
		snprintf(why, size, "cgroup %s: its path is too long", path);
		goto fail;
	}
	err = -ENOMEM;
	len = strlen(buf) + 1;
	f = kzalloc(struct_size(f, path, len), GFP_KERNEL);
	if (!f)
		goto fail;
	strscpy(f->path, buf, len);
	f->root = c->root;
	RCU_INIT_POINTER(f->cgrp, c);
	err = tracepoint_probe_register(mkdir_tp, ks_cgroup_mkdir, f);
	if (err) {
		snprintf(why, size,
			 "cgroup %s: the cgroup_mkdir tracepoint cannot be probed (%d)",
			 path, err);
		goto fail;
	}
	f->mkdir_tp = mkdir_tp;
	kfree(buf);
	*cf = f;
	return 0;
fail:
	kfree(f);
	kfree(buf);
	cgroup_put(c);
	return err;
}

/**
 * ks_cgroup_filter_put() - stop following, and drop the cgroup
 * @cf: from ks_cgroup_filter_get(), or NULL; no handler uses it
 *
 * Context: process context; may sleep.
 */
void ks_cgroup_filter_put(struct ks_cgroup_filter *cf)
{
	if (!cf)
		return;
	tracepoint_probe_unregister(cf->mkdir_tp, ks_cgroup_mkdir, cf);
	tracepoint_synchronize_unregister();
	cgroup_put(rcu_dereference_protected(cf->cgrp, true));
	kfree(cf);
}
#else
int ks_cgroup_filter_get(const char *path, struct tracepoint *mkdir_tp,
			 struct ks_cgroup_filter **cf, char *why, size_t size)
{
	snprintf(why, size, "cgroup %s: this kernel has no cgroups (CONFIG_CGROUPS)",
		 path);
	return -EOPNOTSUPP;
}

void ks_cgroup_filter_put(struct ks_cgroup_filter *cf)
{
}
#endif

/*
 * The paths of a trace's cgroup ids, as KEY-NAME last showed them: a
 * cgroup removed since prints the path it had, " (gone)".
 */
struct ks_cgroup_names {
	struct mutex lock;	/* readers of KEY-NAME, each updating by_id */
	DECLARE_HASHTABLE(by_id, 6);
};

struct ks_cgroup_name {
	struct hlist_node node;
	u64 id;
	char path[];
};

/**
 * ks_cgroup_names_alloc() - an empty table of paths by cgroup id
 *
 * Context: process context; may sleep.
 * Return: the table, or NULL when out of memory.
 */
struct ks_cgroup_names *ks_cgroup_names_alloc(void)
{
	struct ks_cgroup_names *names = kzalloc(sizeof(*names), GFP_KERNEL);

	if (!names)
		return NULL;
	mutex_init(&names->lock);
	hash_init(names->by_id);
	return names;
}

/**
 * ks_cgroup_names_free() - free the table and its paths
 * @names: from ks_cgroup_names_alloc(), or NULL; no reader uses it
 */
void ks_cgroup_names_free(struct ks_cgroup_names *names)
{
	struct ks_cgroup_name *name;
	struct hlist_node *tmp;
	unsigned int b;

	if (!names)
		return;
	hash_for_each_safe(names->by_id, b, tmp, name, node) {
		hash_del(&name->node);
		kfree(name);
	}
	mutex_destroy(&names->lock);
	kfree(names);
}

static struct ks_cgroup_name *ks_cgroup_name_of(struct ks_cgroup_names *names,
						u64 id)
{
	struct ks_cgroup_name *name;

	hash_for_each_possible(names->by_id, name, node, id)
		if (name->id == id)
			return name;
	return NULL;
}

/*
 * The path of cgroup @id now, into @buf (PATH_MAX bytes): 0, or -ENOENT
 * once it is removed (or outside the reader's cgroup namespace).
 */
static int ks_cgroup_path_of(u64 id, char *buf)
{
#ifdef CONFIG_CGROUPS
	struct cgroup *cgrp = cgroup_get_from_id(id);
	int len;

	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	len = cgroup_path(cgrp, buf, PATH_MAX);
	cgroup_put(cgrp);
	return len < 0 ? len : 0;
#else
	return -ENOENT;
#endif
}

/* Remembers @path as @id's, replacing what was. Best effort: may fail. */
static void ks_cgroup_remember(struct ks_cgroup_names *names,
			       struct ks_cgroup_name *old, u64 id,
			       const char *path)
{
	struct ks_cgroup_name *name;
	size_t len = strlen(path) + 1;

	if (old && !strcmp(old->path, path))
		return;
	name = kmalloc(struct_size(name, path, len), GFP_KERNEL);
	if (!name)
		return;
	name->id = id;
	strscpy(name->path, path, len);
	if (old) {
		hash_del(&old->node);
		kfree(old);
	}
	hash_add(names->by_id, &name->node, id);
}

/**
 * ks_cgroup_show() - a key part of a cgroup, as KEY-NAME prints it
 * @m: the output
 * @names: the trace's paths by id, or NULL
 * @part: "cgroup" or "waker-cgroup"
 * @id: the cgroup's id, kept in the row
 *
 * "\tcgroup /a/b" (escaped as comm is), the path from the cgroup2 root.
 * A cgroup removed since shows the path it had when KEY-NAME last showed
 * it, then " (gone)"; one never shown shows "[id:ID] (gone)".
 *
 * Context: process context (a read of KEY-NAME); may sleep.
 */
void ks_cgroup_show(struct seq_file *m, struct ks_cgroup_names *names,
		    const char *part, u64 id)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	struct ks_cgroup_name *name;
	int err;

	seq_printf(m, "\t%s ", part);
	if (!buf || !names) {
		seq_printf(m, "[id:%llu]\n", id);
		kfree(buf);
		return;
	}
	err = ks_cgroup_path_of(id, buf);
	mutex_lock(&names->lock);
	name = ks_cgroup_name_of(names, id);
	if (!err) {
		ks_cgroup_remember(names, name, id, buf);
		seq_escape(m, buf, " \t\n\\");
	} else if (name) {
		seq_escape(m, name->path, " \t\n\\");
		seq_puts(m, " (gone)");
	} else {
		seq_printf(m, "[id:%llu] (gone)", id);
	}
	mutex_unlock(&names->lock);
	seq_putc(m, '\n');
	kfree(buf);
}
