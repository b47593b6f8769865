// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs/output layer: /sys/kernel/debug/kstats/ and one node per
 * metric. Reading a node prints, for each non-empty slot, a line per CPU
 * with samples and a CPUS line with the totals, in the seed patch's
 * format. Extra information only ever goes on lines starting with '#'.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "hist.h"
#include "output.h"

static struct dentry *ks_root;

/* Per open file: the snapshot of the read in progress. */
struct ks_reader {
	struct kstats *ks;
	struct ks_snapshot *snap;
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
	unsigned int total_row = snap->n_rows - 1;
	unsigned int row;
	u64 count;

	if (!ks_cell_count(snap, total_row, slot))
		return;
	for (row = 0; row <= total_row; row++) {
		const struct ks_cell *c = ks_cell(snap, row, slot);

		count = ks_cell_count(snap, row, slot);
		if (!count)
			continue;
		ks_print_line(m, slot, row == total_row,
			      row == total_row ? nr_cpu_ids : row, count,
			      c->avg, c->cum, ks_row_total(snap, row));
	}
}

static void ks_show_header(struct seq_file *m, struct kstats *ks)
{
	long nmi_dropped = atomic_long_read(&ks->nmi_dropped);

	if (!READ_ONCE(ks->active))
		seq_puts(m, "# stopped\n");
	if (nmi_dropped)
		seq_printf(m, "# nmi_dropped %ld\n", nmi_dropped);
	if (ks->show_extra)
		ks->show_extra(m, ks->show_extra_arg);
}

static void *ks_seq_start(struct seq_file *m, loff_t *pos)
{
	struct ks_reader *r = m->private;

	if (*pos == KS_POS_HEADER) {
		/* A read from the top takes a fresh copy of the counters. */
		ks_snapshot_free(r->snap);
		r->snap = ks_snapshot_take(r->ks);
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
	u32 total_row = r->snap->n_rows - 1;

	/* Skip empty slots so seq_file does not visit them one by one. */
	for (++*pos; *pos <= r->snap->n_slots; ++*pos)
		if (ks_cell_count(r->snap, total_row, *pos - 1))
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
		ks_show_header(m, r->ks);
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

static int ks_node_open(struct inode *inode, struct file *file)
{
	struct ks_reader *r;

	r = __seq_open_private(file, &ks_seq_ops, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->ks = inode->i_private;
	return 0;
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
	char buf[KS_NODE_CMD_MAX];
	int cmd;

	if (!count || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	cmd = ks_parse_node_cmd(buf, count);
	switch (cmd) {
	case KS_CMD_START:
		WRITE_ONCE(r->ks->active, true);
		break;
	case KS_CMD_STOP:
		WRITE_ONCE(r->ks->active, false);
		break;
	case KS_CMD_RESET:
		kstats_reset(r->ks);
		break;
	default:
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

/**
 * ks_node_create() - create the debugfs node of a histogram
 * @ks: the histogram, with its name set
 *
 * The node is 0444: root may still write to it, and a kernel locked down
 * under Secure Boot still lets anyone with access read it.
 *
 * Context: may sleep.
 * Return: 0, or a negative errno.
 */
int ks_node_create(struct kstats *ks)
{
	struct dentry *d;

	d = debugfs_create_file(ks->name, 0444, ks_root, ks, &ks_node_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	ks->node = d;
	return 0;
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
	debugfs_remove(ks->node);
	ks->node = NULL;
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
 * ks_control_create() - create _control, once everything behind it is ready
 *
 * 0600: it attaches probes, and a locked-down kernel refuses it anyway.
 * Return: 0, or a negative errno.
 */
int ks_control_create(void)
{
	struct dentry *d;

	d = debugfs_create_file("_control", 0600, ks_root, NULL,
				&ks_control_fops);
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
