// SPDX-License-Identifier: GPL-2.0
/*
 * The metric registry: every histogram by name, kstats_new() and
 * kstats_delete() for clients and traces alike, and the text nodes
 * (KEY-NAME) that share the metrics' namespace.
 */
#include <linux/export.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "hist.h"
#include "metrics.h"
#include "output.h"
#include "request.h"

/* Serializes creation and removal of histograms; guards ks_list. */
static DEFINE_MUTEX(ks_lock);
static LIST_HEAD(ks_list);

static struct kstats *ks_find(const char *name)
{
	struct kstats *ks;

	lockdep_assert_held(&ks_lock);
	list_for_each_entry(ks, &ks_list, list)
		if (!strcmp(ks->name, name))
			return ks;
	return NULL;
}

/*
 * Names become file names and are typed in shells: printable ASCII
 * (0x21..0x7e) without '/', and not "." or "..".
 */
static const char *ks_name_problem(const char *name)
{
	size_t len, i;

	if (!name || !*name)
		return "empty name";
	len = strnlen(name, KSTATS_NAME_MAX + 1);
	if (len > KSTATS_NAME_MAX)
		return "name longer than 63 bytes";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "name is . or ..";
	if (name[0] == '_')
		return "names starting with _ are reserved for kstats";
	if (!strncmp(name, KS_KEY_PREFIX, strlen(KS_KEY_PREFIX)))
		return "names starting with " KS_KEY_PREFIX " are the keyed nodes of traces";
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] < 0x21 || name[i] > 0x7e)
			return "name has '/' or a byte other than printable ASCII";
	return NULL;
}

/**
 * ks_create_text() - a read-only node that is not a histogram (KEY-NAME)
 * @who: what the user called, for dmesg: "trace NAME"
 * @name: its file name, in the metrics' namespace
 * @fops: its file operations; @data becomes its inode's i_private
 * @data: for @fops
 *
 * Remove it with debugfs_remove(), which waits for its readers.
 *
 * Context: process context; may sleep.
 * Return: the node; ERR_PTR(-EEXIST) for a name in use, or debugfs' error.
 */
struct dentry *ks_create_text(const char *who, const char *name,
			      const struct file_operations *fops, void *data)
{
	struct dentry *d;

	mutex_lock(&ks_lock);
	d = ks_find(name) ? ERR_PTR(-EEXIST) :
			    ks_text_node_create(name, fops, data);
	mutex_unlock(&ks_lock);
	if (IS_ERR(d))
		pr_err("%s: %s: cannot create debugfs node: %ld\n", who, name,
		       PTR_ERR(d));
	return d;
}

/**
 * ks_create() - kstats_new(), with the reason for a failure as an errno
 * @who: what the user called, for dmesg: "kstats_new", "trace NAME"
 * @name: as for kstats_new()
 * @frac_bits: as for kstats_new()
 * @show_extra: prints '#' lines in the node (e.g. a trace's missed
 *              counts) while a read is in progress, or NULL
 * @missed: returns how many samples the owner lost (a trace's misses),
 *          shown as "missed" in the node; NULL for none. Called during
 *          reads, in process context.
 * @arg: passed to @show_extra and @missed; must outlive the histogram
 *
 * Context: process context; may sleep.
 * Return: the histogram; ERR_PTR(-EINVAL) for a bad name or frac_bits,
 * -EEXIST for a name in use, -ENOMEM, or debugfs' error.
 */
struct kstats *ks_create(const char *who, const char *name, u8 frac_bits,
			 void (*show_extra)(struct seq_file *m, void *arg),
			 unsigned long (*missed)(void *arg), void *arg)
{
	const char *problem;
	struct kstats *ks;
	int err;

	might_sleep();
	problem = ks_name_problem(name);
	if (problem) {
		pr_err("%s: %s\n", who, problem);
		return ERR_PTR(-EINVAL);
	}
	if (frac_bits > KSTATS_FRAC_BITS_MAX) {
		pr_err("%s: %s: frac_bits %u out of range 0..%d\n",
		       who, name, frac_bits, KSTATS_FRAC_BITS_MAX);
		return ERR_PTR(-EINVAL);
	}

	ks = kzalloc(sizeof(*ks), GFP_KERNEL);
	if (!ks)
		goto err_nomem;
	ks->frac_bits = frac_bits;
	ks->n_slots = ks_n_slots(frac_bits);
	ks->active = true;
	ks->show_extra = show_extra;
	ks->missed = missed;
	ks->show_extra_arg = arg;
	mutex_init(&ks->interval_lock);
	strscpy(ks->name, name, sizeof(ks->name));
	/* The first interval cut adds the second bank. */
	ks->bank[0] = ks_bank_alloc(ks->n_slots);
	if (!ks->bank[0])
		goto err_free_ks;

	mutex_lock(&ks_lock);
	if (ks_find(name)) {
		mutex_unlock(&ks_lock);
		pr_err("%s: %s: name already exists\n", who, name);
		err = -EEXIST;
		goto err_free_slots;
	}
	err = ks_node_create(ks);
	if (err) {
		mutex_unlock(&ks_lock);
		pr_err("%s: %s: cannot create debugfs node: %d\n", who,
		       name, err);
		goto err_free_slots;
	}
	list_add(&ks->list, &ks_list);
	mutex_unlock(&ks_lock);
	return ks;

err_free_slots:
	ks_banks_free(ks);
	kfree(ks);
	return ERR_PTR(err);
err_free_ks:
	kfree(ks);
err_nomem:
	pr_err("%s: %s: out of memory\n", who, name);
	return ERR_PTR(-ENOMEM);
}

/**
 * kstats_new() - create a histogram and its debugfs node
 * @name: node name under /sys/kernel/debug/kstats/: 1 to 63 printable
 *        bytes, no '/' or blanks, not starting with '_'
 * @frac_bits: log2 of the slots per power of two, 0..5; 3 gives slots
 *             12.5 % wide
 *
 * The histogram starts recording at once.
 *
 * Context: process context; may sleep.
 * Return: the new histogram, or NULL with the reason in dmesg: bad
 * @frac_bits, a bad or duplicate @name, or no memory.
 */
struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	struct kstats *ks = ks_create("kstats_new", name, frac_bits, NULL, NULL, NULL);

	return IS_ERR(ks) ? NULL : ks;
}
EXPORT_SYMBOL_GPL(kstats_new);

/*
 * Removes the node and stops recording; the caller frees after a grace
 * period. Not under ks_lock: removal waits for reads in progress. The
 * histogram stays on ks_list until its node is gone, so its name cannot
 * be taken again while the old file still exists.
 */
static void ks_unpublish(struct kstats *ks)
{
	/* No write can turn recording back on once the node is gone. */
	ks_node_remove(ks);
	WRITE_ONCE(ks->active, false);
	mutex_lock(&ks_lock);
	list_del(&ks->list);
	mutex_unlock(&ks_lock);
}

static void ks_free(struct kstats *ks)
{
	ks_banks_free(ks);
	kfree(ks);
}

/**
 * kstats_delete() - remove a histogram's node and free it
 * @key: from kstats_new(); NULL is ignored
 *
 * Waits for records in flight and for file operations in progress.
 * Files still open get -EIO afterwards. Callers must not record on
 * @key once this returns.
 *
 * Context: process context; may sleep.
 */
void kstats_delete(struct kstats *key)
{
	might_sleep();
	if (!key)
		return;
	ks_unpublish(key);
	/* Records run with preemption off: wait for those in flight. */
	synchronize_rcu();
	ks_free(key);
}
EXPORT_SYMBOL_GPL(kstats_delete);

/**
 * ks_node_command() - what a write of start, stop or reset to NAME does
 * @name: a histogram's node name: a client's metric, a trace, GAP-NAME
 * @cmd: the command
 *
 * For the control path: lockdown refuses writes to the nodes themselves.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOENT for no histogram of that name.
 */
int ks_node_command(const char *name, enum ks_node_cmd cmd)
{
	static const char * const words[] = {
		[KS_CMD_START] = "start",
		[KS_CMD_STOP] = "stop",
		[KS_CMD_RESET] = "reset",
	};
	struct kstats *ks;

	/* Held throughout: the histogram is freed only once off ks_list. */
	mutex_lock(&ks_lock);
	ks = ks_find(name);
	if (ks && cmd == KS_CMD_RESET)
		kstats_reset(ks);
	else if (ks)
		kstats_set_active(ks, cmd == KS_CMD_START);
	mutex_unlock(&ks_lock);
	if (!ks) {
		ks_err_ratelimited("%s %s: no histogram of that name\n",
				   words[cmd], name);
		return -ENOENT;
	}
	return 0;
}

/**
 * ks_metrics_exit() - kstats_delete() every histogram left over
 *
 * Clients pin this module and the traces are gone, so nothing is left
 * that could record.
 *
 * Context: module exit.
 */
void ks_metrics_exit(void)
{
	for (;;) {
		struct kstats *ks;

		mutex_lock(&ks_lock);
		ks = list_first_entry_or_null(&ks_list, struct kstats, list);
		mutex_unlock(&ks_lock);
		if (!ks)
			break;
		kstats_delete(ks);
	}
}
