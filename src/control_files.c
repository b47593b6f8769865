// SPDX-License-Identifier: GPL-2.0
/*
 * The doors of the control path: _control in debugfs and /dev/kstats.
 * Each write is one command (control.c parses it), carried out here: a
 * trace added or removed, a node started, stopped or reset. A read gives
 * the listing of traces. Both doors share the same handlers, so a
 * command gives the same errno and dmesg line through either.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "control.h"
#include "metrics.h"
#include "names.h"
#include "output.h"
#include "request.h"
#include "traces.h"
#include "values.h"

static ssize_t ks_control_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ks_trace_req *req;
	const char *why = NULL;
	char *line, *nl;
	int err;

	if (!count || count > KS_CONTROL_MAX_LEN) {
		ks_err_ratelimited("_control: write of %zu bytes: expected 1..%d\n", count,
				   KS_CONTROL_MAX_LEN);
		return -EINVAL;
	}
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	/* NUL bytes would hide the rest; one newline may end the command. */
	nl = strchr(line, '\n');
	if (strlen(line) != count) {
		ks_err_ratelimited("_control: a NUL byte in the write; one command per write\n");
		kfree(line);
		return -EINVAL;
	}
	if (nl && nl != line + count - 1) {
		ks_err_ratelimited("_control: a newline inside the write; one command per write, ending in one newline at most\n");
		kfree(line);
		return -EINVAL;
	}
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req) {
		kfree(line);
		return -ENOMEM;
	}
	err = ks_parse_control(line, req, &why);
	if (!err && req->op == KS_OP_TRACE) {
		/* Bare names, GROUP:EVENT and syscall:NAME; names.c says why. */
		err = ks_resolve_points(req);
		if (!err)
			err = ks_check_trace(req, &why);
		else
			why = NULL;
		/* ret and argN as the function's BTF types them. */
		if (!err)
			err = ks_values_type(req, &why);
	}
	if (err && why) {
		/* The command as the user wrote it, as far as it was read. */
		if (req->op == KS_OP_TRACE)
			ks_err_ratelimited("trace %s: %s\n", req->name, why);
		else if (req->op == KS_OP_REMOVE)
			ks_err_ratelimited("remove %s: %s\n", req->name, why);
		else
			ks_err_ratelimited("_control: %s\n", why);
	} else if (!err && req->op == KS_OP_REMOVE) {
		err = ks_trace_remove(req->name);
	} else if (!err && req->op == KS_OP_TRACE) {
		err = ks_trace_add(req);
	} else if (!err) {
		err = ks_node_command(req->name, req->op == KS_OP_START ? KS_CMD_START :
				      req->op == KS_OP_STOP ? KS_CMD_STOP : KS_CMD_RESET);
	}
	kfree(req);
	kfree(line);
	return err ? err : count;
}

static int ks_control_show(struct seq_file *m, void *v)
{
	ks_trace_list(m);
	return 0;
}

static int ks_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, ks_control_show, NULL);
}

static const struct file_operations ks_control_fops = {
	.owner = THIS_MODULE,
	.open = ks_control_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = ks_control_write,
	.release = single_release,
};

/* misc_open() leaves the miscdevice there, and seq_file wants it empty. */
static int ks_device_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return ks_control_open(inode, file);
}

static const struct file_operations ks_device_fops = {
	.owner = THIS_MODULE,
	.open = ks_device_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = ks_control_write,
	.release = single_release,
};

/*
 * /dev/kstats takes what _control takes. Lockdown (Secure Boot) refuses
 * every debugfs file with a write bit, _control and node writes among
 * them, but no character device: the kernel's lockdown checks guard
 * what is attached (kprobes, under confidentiality), and ks_trace_add()
 * makes those checks. devtmpfs creates the node, root's, mode 0600.
 */
static struct miscdevice ks_device = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kstats",
	.fops = &ks_device_fops,
	.mode = 0600,
};

/**
 * ks_control_init() - create _control and /dev/kstats, once everything
 * behind them is ready
 *
 * Context: module init.
 * Return: 0, or a negative errno.
 */
int ks_control_init(void)
{
	int err;

	err = ks_control_node_create(&ks_control_fops);
	if (err)
		return err;
	err = misc_register(&ks_device);
	if (err)
		pr_err("cannot create /dev/kstats: %d\n", err);
	/* On failure _control goes with the debugfs directory. */
	return err;
}

/**
 * ks_control_exit() - remove /dev/kstats; _control goes with debugfs' kstats/
 *
 * Context: module exit. No file of /dev/kstats is open: each pins the module.
 */
void ks_control_exit(void)
{
	misc_deregister(&ks_device);
}
