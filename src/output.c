// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs/output layer: /sys/kernel/debug/kstats/, one node per
 * metric and its interval file in _interval/. Reading either prints the
 * summary ('#' key-value lines), then for each non-empty slot a line per
 * CPU with samples and a CPUS line with the totals, in the seed patch's
 * format. Extra information only ever goes on lines starting with '#'.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "hist.h"
#include "output.h"

static struct dentry *ks_root;

/*
 * _interval/ holds one file per metric; it exists while metrics do, so
 * that the kstats directory of a kstats without metrics is as before.
 */
static DEFINE_MUTEX(ks_interval_lock);
static struct dentry *ks_interval_dir;
static unsigned int ks_interval_files;

/* Per open file: the snapshot of the read in progress. */
struct ks_reader {
	struct kstats *ks;
	struct ks_snapshot *snap;
	bool interval;
};

/* Iterator positions: 0 is the '#' header, slot s is position s + 1. */
#define KS_POS_HEADER	0

static void ks_print_line(struct seq_file *m, u32 slot, bool totals,
			  unsigned int cpu, u64 count, u64 avg, u64 cum,
			  u64 row_total)
{
	u64 micro = mul_u64_u64_div_u64(cum, 1000000, row_total);

	seq_printf(m, "slot %-3u CPU%c %-4u count %8llu avg %8llu p %c.%06llu\n",
		   slot, totals ? 'S' : ' ', cpu, count, avg,
		   micro >= 1000000 ? '1' : '0',
		   micro >= 1000000 ? 0ULL : micro);
}

/* Index of @slot in @row's cells, or -1. */
static int ks_row_find(const struct ks_row *row, u32 slot)
{
	u32 lo = 0, hi = row->n_cells;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (row->cells[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < row->n_cells && row->cells[lo].slot == slot ? lo : -1;
}

/**
 * ks_show_slot() - print one slot's CPU lines and its CPUS line
 * @m: the output
 * @snap: the snapshot being printed
 * @slot: a slot of @snap
 *
 * Prints nothing for an empty slot.
 */
void ks_show_slot(struct seq_file *m, const struct ks_snapshot *snap, u32 slot)
{
	unsigned int r;
	int i;

	if (!ks_total_count(snap, slot))
		return;
	for (r = 0; r < snap->n_rows; r++) {
		const struct ks_row *row = &snap->rows[r];

		i = ks_row_find(row, slot);
		if (i < 0)
			continue;
		ks_print_line(m, slot, false, row->cpu, ks_row_count(row, i),
			      row->cells[i].avg, row->cells[i].cum,
			      ks_row_total(row));
	}
	ks_print_line(m, slot, true, nr_cpu_ids, ks_total_count(snap, slot),
		      snap->total[slot].avg, snap->total[slot].cum,
		      snap->samples);
}

/* The percentiles of the summary: key, and the fraction num/den. */
static const struct {
	const char *key;
	u32 num, den;
} ks_pcts[] = {
	{ "p50", 1, 2 },
	{ "p90", 9, 10 },
	{ "p99", 99, 100 },
	{ "p99.9", 999, 1000 },
	{ "p99.99", 9999, 10000 },
};

/**
 * ks_show_summary() - the '#' key-value lines that start a node
 * @m: the output
 * @name: the metric's name
 * @active: whether it records
 * @snap: the snapshot being printed
 *
 * One "# key value" line per figure, in a fixed order; a figure that
 * needs samples is "-" without them. The README lists the keys.
 */
void ks_show_summary(struct seq_file *m, const char *name, bool active,
		     const struct ks_snapshot *snap)
{
	bool any = snap->samples;
	struct ks_pct p;
	u64 whole;
	u32 frac;
	int i;

	seq_printf(m, "# name %s\n", name);
	seq_printf(m, "# frac_bits %u\n", snap->frac_bits);
	seq_printf(m, "# state %s\n", active ? "active" : "stopped");
	seq_printf(m, "# samples %llu\n", snap->samples);
	seq_printf(m, "# missed %lu\n", snap->missed);
	seq_printf(m, "# nmi_dropped %ld\n", snap->nmi_dropped);
	if (any) {
		seq_printf(m, "# min %llu\n", snap->min);
		seq_printf(m, "# max %llu\n", snap->max);
		seq_printf(m, "# mean %llu\n", snap->mean);
	} else {
		seq_puts(m, "# min -\n# max -\n# mean -\n");
	}
	for (i = 0; i < ARRAY_SIZE(ks_pcts); i++) {
		const char *k = ks_pcts[i].key;

		if (ks_percentile(snap, ks_pcts[i].num, ks_pcts[i].den, &p)) {
			seq_printf(m, "# %s -\n# %s_slot -\n# %s_err -\n# %s_relerr -\n",
				   k, k, k, k);
			continue;
		}
		seq_printf(m, "# %s %llu\n", k, p.value);
		seq_printf(m, "# %s_slot %u\n", k, p.slot);
		seq_printf(m, "# %s_err %llu\n", k, p.err);
		whole = div_u64_rem(p.relerr_micro, 1000000, &frac);
		seq_printf(m, "# %s_relerr %llu.%06u\n", k, whole, frac);
	}
	/* Traces record ns; client metrics do by convention (see kstats.h). */
	seq_puts(m, "# unit ns\n");
}

static void ks_show_header(struct seq_file *m, struct ks_reader *r)
{
	struct kstats *ks = r->ks;

	ks_show_summary(m, ks->name, READ_ONCE(ks->active), r->snap);
	if (ks->show_extra)
		ks->show_extra(m, ks->show_extra_arg);
}

static void *ks_seq_start(struct seq_file *m, loff_t *pos)
{
	struct ks_reader *r = m->private;

	/*
	 * A read from the top of a node takes a fresh copy of the counters.
	 * An interval file takes its cut once per open: re-reading it shows
	 * the same interval, and no retry of seq_file ends another one.
	 */
	if (*pos == KS_POS_HEADER && (!r->interval || !r->snap)) {
		ks_snapshot_free(r->snap);
		r->snap = r->interval ? ks_interval_take(r->ks) :
					ks_snapshot_take(r->ks);
		if (!r->snap)
			return ERR_PTR(-ENOMEM);
	}
	if (!r->snap || *pos > r->snap->n_slots)
		return NULL;
	return pos;
}

static void *ks_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct ks_reader *r = m->private;

	/* Skip empty slots so seq_file does not visit them one by one. */
	for (++*pos; *pos <= r->snap->n_slots; ++*pos)
		if (ks_total_count(r->snap, *pos - 1))
			return pos;
	return NULL;
}

static void ks_seq_stop(struct seq_file *m, void *v)
{
}

static int ks_seq_show(struct seq_file *m, void *v)
{
	struct ks_reader *r = m->private;
	loff_t pos = *(loff_t *)v;

	if (pos == KS_POS_HEADER)
		ks_show_header(m, r);
	else
		ks_show_slot(m, r->snap, pos - 1);
	return 0;
}

static const struct seq_operations ks_seq_ops = {
	.start = ks_seq_start,
	.next = ks_seq_next,
	.stop = ks_seq_stop,
	.show = ks_seq_show,
};

static int ks_open(struct inode *inode, struct file *file, bool interval)
{
	struct ks_reader *r;

	r = __seq_open_private(file, &ks_seq_ops, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->ks = inode->i_private;
	r->interval = interval;
	return 0;
}

static int ks_node_open(struct inode *inode, struct file *file)
{
	return ks_open(inode, file, false);
}

static int ks_interval_open(struct inode *inode, struct file *file)
{
	return ks_open(inode, file, true);
}

/* Runs even after the node is removed: it must not touch r->ks. */
static int ks_node_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct ks_reader *r = m->private;

	ks_snapshot_free(r->snap);
	return seq_release_private(inode, file);
}

/* Longest command a node accepts: "reset\n". */
#define KS_NODE_CMD_MAX	6

/**
 * ks_parse_node_cmd() - parse a write to a node
 * @buf: the bytes written, not NUL-terminated
 * @len: their number
 *
 * Accepts start, stop and reset in any case, with one trailing newline.
 * Return: an enum ks_node_cmd, or -EINVAL.
 */
int ks_parse_node_cmd(const char *buf, size_t len)
{
	static const char * const words[] = {
		[KS_CMD_START] = "start",
		[KS_CMD_STOP] = "stop",
		[KS_CMD_RESET] = "reset",
	};
	int i;

	if (len && buf[len - 1] == '\n')
		len--;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (len == strlen(words[i]) && !strncasecmp(buf, words[i], len))
			return i;
	return -EINVAL;
}

static ssize_t ks_node_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct ks_reader *r = m->private;
	char buf[16];
	size_t len = min(count, sizeof(buf));
	int cmd;

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	cmd = count <= KS_NODE_CMD_MAX ? ks_parse_node_cmd(buf, count) : -EINVAL;
	switch (cmd) {
	case KS_CMD_START:
		kstats_set_active(r->ks, true);
		break;
	case KS_CMD_STOP:
		kstats_set_active(r->ks, false);
		break;
	case KS_CMD_RESET:
		kstats_reset(r->ks);
		break;
	default:
		/* Nodes may be written in a loop too: rate-limited. */
		if (len && buf[len - 1] == '\n')
			len--;
		pr_err_ratelimited("%s: unknown command '%*pE%s'; use start, stop or reset\n",
				   r->ks->name, (int)len, buf,
				   count > sizeof(buf) ? "..." : "");
		return cmd;
	}
	return count;
}

static const struct file_operations ks_node_fops = {
	.owner = THIS_MODULE,
	.open = ks_node_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = ks_node_write,
	.release = ks_node_release,
};

static const struct file_operations ks_interval_fops = {
	.owner = THIS_MODULE,
	.open = ks_interval_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = ks_node_release,
};

/* Drops a reference to _interval/, removing it with the last file. */
static void ks_interval_put(void)
{
	mutex_lock(&ks_interval_lock);
	if (!--ks_interval_files) {
		debugfs_remove(ks_interval_dir);
		ks_interval_dir = NULL;
	}
	mutex_unlock(&ks_interval_lock);
}

/* Creates _interval/NAME, and _interval/ for the first one. */
static int ks_interval_create(struct kstats *ks)
{
	struct dentry *d;

	mutex_lock(&ks_interval_lock);
	if (!ks_interval_files) {
		d = debugfs_create_dir("_interval", ks_root);
		if (IS_ERR(d)) {
			mutex_unlock(&ks_interval_lock);
			return PTR_ERR(d);
		}
		ks_interval_dir = d;
	}
	ks_interval_files++;
	d = debugfs_create_file(ks->name, 0444, ks_interval_dir, ks,
				&ks_interval_fops);
	mutex_unlock(&ks_interval_lock);
	if (IS_ERR(d)) {
		ks_interval_put();
		return PTR_ERR(d);
	}
	ks->interval_node = d;
	return 0;
}

/**
 * ks_node_create() - create the debugfs files of a histogram
 * @ks: the histogram, with its name set
 *
 * NAME, the cumulative node, and _interval/NAME, whose every open ends
 * an interval (see ks_interval_take()). Both are 0444: root may still
 * write to the node, and a kernel locked down under Secure Boot still
 * lets anyone with access read them, intervals included.
 *
 * Context: may sleep.
 * Return: 0, or a negative errno.
 */
int ks_node_create(struct kstats *ks)
{
	struct dentry *d;
	int err;

	d = debugfs_create_file(ks->name, 0444, ks_root, ks, &ks_node_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	ks->node = d;
	err = ks_interval_create(ks);
	if (err) {
		debugfs_remove(ks->node);
		ks->node = NULL;
	}
	return err;
}

/**
 * ks_node_remove() - remove the node of a histogram
 * @ks: the histogram
 *
 * Waits for file operations in progress; later ones on files still open
 * fail with -EIO and never reach @ks.
 *
 * Context: may sleep.
 */
void ks_node_remove(struct kstats *ks)
{
	debugfs_remove(ks->interval_node);
	ks->interval_node = NULL;
	ks_interval_put();
	debugfs_remove(ks->node);
	ks->node = NULL;
}

/**
 * ks_text_node_create() - a read-only node beside the metrics (KEY-NAME)
 * @name: its file name
 * @fops: its file operations; @data is its inode's i_private
 * @data: for @fops
 *
 * Remove it with debugfs_remove(), which waits for its readers. 0400:
 * KEY-NAME's argN rows may be kernel pointers, for root alone even where
 * debugfs is mounted readable by others (mode=755); no write bit, so
 * lockdown still lets root read it.
 *
 * Context: process context; may sleep.
 * Return: the node, or an ERR_PTR (-EEXIST for a name in use).
 */
struct dentry *ks_text_node_create(const char *name,
				   const struct file_operations *fops,
				   void *data)
{
	return debugfs_create_file(name, 0400, ks_root, data, fops);
}

int ks_output_init(void)
{
	ks_root = debugfs_create_dir("kstats", NULL);
	/*
	 * debugfs=off refuses files with -EPERM; debugfs=no-mount never
	 * registers debugfs, so files fail with -ENOENT. kstats has no
	 * other output.
	 */
	if (PTR_ERR_OR_ZERO(ks_root) == -EPERM ||
	    PTR_ERR_OR_ZERO(ks_root) == -ENOENT) {
		pr_err("debugfs is not available (debugfs=off or debugfs=no-mount on the kernel command line?), and kstats reports only through it\n");
		return PTR_ERR(ks_root);
	}
	if (IS_ERR(ks_root)) {
		pr_err("cannot create debugfs directory kstats: %ld\n",
		       PTR_ERR(ks_root));
		return PTR_ERR(ks_root);
	}
	return 0;
}

/**
 * ks_control_node_create() - create _control
 * @fops: its file operations (control.c)
 *
 * 0600: it attaches probes, and a locked-down kernel refuses it anyway.
 * Return: 0, or a negative errno.
 */
int ks_control_node_create(const struct file_operations *fops)
{
	struct dentry *d;

	d = debugfs_create_file("_control", 0600, ks_root, NULL, fops);
	if (IS_ERR(d)) {
		pr_err("cannot create _control: %ld\n", PTR_ERR(d));
		return PTR_ERR(d);
	}
	return 0;
}

void ks_output_exit(void)
{
	debugfs_remove(ks_root);
}
