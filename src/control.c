// SPDX-License-Identifier: GPL-2.0
/*
 * The _control file: "trace NAME [bits B] [start X] [end Y] [method M]
 * [maxactive N]" and "remove NAME". Parsing is a pure function of the
 * line, so it can be tested without attaching anything.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "hist.h"
#include "hook.h"
#include "output.h"

/* "trace NAME" and five "key value" pairs. */
#define KS_CONTROL_MAX_WORDS	12
/* Two full-length symbol names and the keywords fit. */
#define KS_CONTROL_MAX_LEN	(2 * KSYM_NAME_LEN + 128)

static const char * const ks_method_names[] = {
	[KS_METHOD_DEFAULT] = "default",
	[KS_METHOD_KRETPROBE] = "kretprobe",
	[KS_METHOD_FPROBE] = "fprobe",
	[KS_METHOD_KPROBE] = "kprobe",
	[KS_METHOD_TRACEPOINT] = "tracepoint",
};

const char *ks_method_name(enum ks_method method)
{
	return ks_method_names[method];
}

static bool ks_is_tracepoint(const char *sym)
{
	return !strncmp(sym, KS_TP_PREFIX, strlen(KS_TP_PREFIX)) &&
	       sym[strlen(KS_TP_PREFIX)];
}

static int ks_copy_word(char *dst, size_t size, const char *word,
			const char **why, const char *toolong)
{
	if (strscpy(dst, word, size) < 0) {
		*why = toolong;
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Checks between the keywords once the whole line is read. */
static int ks_check_trace(struct ks_trace_req *req, const char **why)
{
	bool tp_start = ks_is_tracepoint(req->start);
	bool tp_end = req->end[0] && ks_is_tracepoint(req->end);

	if (req->end[0] && !strcmp(req->start, req->end)) {
		*why = "end is the same as start";
		return -EINVAL;
	}
	if (req->end[0] && tp_start != tp_end) {
		*why = "start and end must both be tracepoints or both functions";
		return -EINVAL;
	}
	if (tp_start && !req->end[0]) {
		*why = "a tracepoint needs an end tracepoint";
		return -EINVAL;
	}
	switch (req->method) {
	case KS_METHOD_DEFAULT:
		if (tp_start)
			req->method = KS_METHOD_TRACEPOINT;
		else if (req->end[0])
			req->method = KS_METHOD_KPROBE;
		return 0;
	case KS_METHOD_TRACEPOINT:
		if (tp_start)
			return 0;
		*why = "method tracepoint needs __tracepoint_ names";
		return -EINVAL;
	case KS_METHOD_KPROBE:
		if (req->end[0] && !tp_start)
			return 0;
		*why = "method kprobe needs an end function";
		return -EINVAL;
	default:
		if (!req->end[0] && !tp_start)
			return 0;
		*why = "kretprobe and fprobe time one function: no end";
		return -EINVAL;
	}
}

static int ks_parse_pair(struct ks_trace_req *req, const char *key,
			 const char *val, unsigned int *seen, const char **why)
{
	static const char * const keys[] = {
		"bits", "start", "end", "method", "maxactive",
	};
	int k, m;

	k = match_string(keys, ARRAY_SIZE(keys), key);
	if (k < 0) {
		*why = "unknown keyword";
		return -EINVAL;
	}
	if (*seen & BIT(k)) {
		*why = "keyword given twice";
		return -EINVAL;
	}
	*seen |= BIT(k);
	switch (k) {
	case 0:
		if (kstrtou8(val, 10, &req->bits) ||
		    req->bits > KSTATS_FRAC_BITS_MAX) {
			*why = "bits must be 0..5";
			return -EINVAL;
		}
		return 0;
	case 1:
		return ks_copy_word(req->start, sizeof(req->start), val, why,
				    "start symbol too long");
	case 2:
		return ks_copy_word(req->end, sizeof(req->end), val, why,
				    "end symbol too long");
	case 3:
		m = match_string(ks_method_names, ARRAY_SIZE(ks_method_names),
				 val);
		if (m <= KS_METHOD_DEFAULT) {
			*why = "method must be kretprobe, fprobe, kprobe or tracepoint";
			return -EINVAL;
		}
		req->method = m;
		return 0;
	default:
		if (kstrtouint(val, 10, &req->maxactive) || !req->maxactive ||
		    req->maxactive > KS_MAXACTIVE_MAX) {
			*why = "maxactive must be 1..4096";
			return -EINVAL;
		}
		return 0;
	}
}

/**
 * ks_parse_control() - parse one line written to _control
 * @line: the line, NUL-terminated; it is split in place
 * @req: filled in on success
 * @why: set to a one-line reason on failure
 *
 * Words are separated by any blanks; a trailing newline is allowed.
 * Defaults: start is NAME, bits 3, no end, method chosen from the names.
 *
 * Context: any; pure function of @line.
 * Return: 0; -EINVAL for a bad or missing value, an unknown keyword or
 * too many words; -ENAMETOOLONG for a NAME over KS_TRACE_NAME_MAX bytes
 * or a symbol over KSYM_NAME_LEN - 1.
 */
int ks_parse_control(char *line, struct ks_trace_req *req, const char **why)
{
	char *words[KS_CONTROL_MAX_WORDS + 1];
	unsigned int seen = 0;
	int n = 0, i, err;
	char *w;

	memset(req, 0, sizeof(*req));
	req->bits = KS_DEFAULT_BITS;
	while ((w = strsep(&line, " \t\n\r\v\f"))) {
		if (!*w)
			continue;
		if (n == ARRAY_SIZE(words)) {
			*why = "too many words";
			return -EINVAL;
		}
		words[n++] = w;
	}
	if (n > KS_CONTROL_MAX_WORDS) {
		*why = "too many words";
		return -EINVAL;
	}
	if (n < 2) {
		*why = "expected trace NAME ... or remove NAME";
		return -EINVAL;
	}
	if (strlen(words[1]) > KS_TRACE_NAME_MAX) {
		*why = "NAME longer than 59 bytes (63 with GAP-)";
		return -ENAMETOOLONG;
	}
	strscpy(req->name, words[1], sizeof(req->name));
	if (!strcmp(words[0], "remove")) {
		req->op = KS_OP_REMOVE;
		if (n == 2)
			return 0;
		*why = "remove takes only NAME";
		return -EINVAL;
	}
	if (strcmp(words[0], "trace")) {
		*why = "expected trace or remove";
		return -EINVAL;
	}
	req->op = KS_OP_TRACE;
	if (n % 2) {
		*why = "keyword without a value";
		return -EINVAL;
	}
	for (i = 2; i < n; i += 2) {
		err = ks_parse_pair(req, words[i], words[i + 1], &seen, why);
		if (err)
			return err;
	}
	if (!req->start[0])
		strscpy(req->start, req->name, sizeof(req->start));
	return ks_check_trace(req, why);
}

static ssize_t ks_control_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ks_trace_req *req;
	const char *why = NULL;
	char *line, *nl;
	int err;

	if (!count || count > KS_CONTROL_MAX_LEN) {
		pr_err("_control: write of %zu bytes: expected 1..%d\n", count,
		       KS_CONTROL_MAX_LEN);
		return -EINVAL;
	}
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	/* NUL bytes would hide the rest; one newline may end the command. */
	nl = strchr(line, '\n');
	if (strlen(line) != count || (nl && nl != line + count - 1)) {
		pr_err("_control: one command per write, no NUL bytes\n");
		kfree(line);
		return -EINVAL;
	}
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req) {
		kfree(line);
		return -ENOMEM;
	}
	err = ks_parse_control(line, req, &why);
	if (err)
		pr_err("_control: %s\n", why);
	else if (req->op == KS_OP_REMOVE)
		err = ks_trace_remove(req->name);
	else
		err = ks_trace_add(req);
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

const struct file_operations ks_control_fops = {
	.owner = THIS_MODULE,
	.open = ks_control_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = ks_control_write,
	.release = single_release,
};
