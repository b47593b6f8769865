// SPDX-License-Identifier: GPL-2.0
/*
 * Glob patterns of functions: kstats' own grammar, and how many functions
 * a pattern matches before anything is attached.
 *
 * ftrace, which matches an fprobe's pattern, reads more than a glob into
 * the word: a leading '!' removes from the filter (and an empty filter
 * means every function), a number is an index into
 * available_filter_functions, "mod:" and ":command" have meanings of
 * their own. kstats takes none of those: a pattern is names and *, ?
 * and [...] only, matched as glob_match() matches.
 *
 * The kernel exports no way for a module to list its symbols, so the
 * matches are counted where ftrace's own list is: tracefs'
 * available_filter_functions, one "name" or "name [module]" line per
 * ftrace site, which is the list ftrace matches a pattern against
 * (Documentation/trace/ftrace.rst).
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "hook.h"
#include "names.h"

/* Where tracefs is, mounted or automounted under debugfs. */
static const char *const ks_avail_paths[] = {
	"/sys/kernel/tracing/available_filter_functions",
	"/sys/kernel/debug/tracing/available_filter_functions",
};

static bool ks_name_char(char c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/**
 * ks_pattern_valid() - is @p a pattern of kstats' grammar?
 * @p: the word
 *
 * Names ([A-Za-z0-9_.]), *, ? and bracket sets such as [rw] or [!a-c],
 * starting with a letter, '_', '*', '?' or '['.
 *
 * Return: NULL if it is, else the first character that is not.
 */
const char *ks_pattern_valid(const char *p)
{
	const char *c = p;

	if (isdigit(*c))
		return c;
	while (*c) {
		if (ks_name_char(*c) || *c == '*' || *c == '?') {
			c++;
			continue;
		}
		if (*c != '[')
			return c;
		c++;
		if (*c == '!' || *c == '^')
			c++;
		if (*c == ']')
			return c;
		while (*c && *c != ']') {
			if (!ks_name_char(*c) && *c != '-')
				return c;
			c++;
		}
		if (!*c)
			return c;
		c++;
	}
	return NULL;
}

/* The names of one read of available_filter_functions, counted. */
static void ks_count_lines(char *buf, size_t len, char *line, size_t *held,
			   const char *pattern, unsigned int *n)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (c != '\n') {
			/* A name longer than a line of ours matches nothing. */
			if (*held < KSYM_NAME_LEN - 1)
				line[(*held)++] = c;
			continue;
		}
		line[*held] = '\0';
		/* "name" or "name [module]" */
		line[strcspn(line, " \t")] = '\0';
		if (*line && glob_match(pattern, line))
			(*n)++;
		*held = 0;
	}
}

/**
 * ks_pattern_count() - how many ftrace sites a pattern matches
 * @trace: the trace's NAME, for messages
 * @pattern: a pattern that ks_pattern_valid() accepted
 * @n: set to the count
 *
 * Reads tracefs' available_filter_functions once, through its seq_file,
 * as a reader in userspace would.
 *
 * Context: process context; may sleep.
 * Return: 0; -EOPNOTSUPP when the list cannot be read (dmesg says why);
 * -ENOMEM.
 */
int ks_pattern_count(const char *trace, const char *pattern, unsigned int *n)
{
	struct file *file = ERR_PTR(-ENOENT);
	char *buf, *line;
	size_t held = 0;
	unsigned int i;
	int err = 0;

	*n = 0;
	for (i = 0; i < ARRAY_SIZE(ks_avail_paths) && IS_ERR(file); i++)
		file = filp_open(ks_avail_paths[i], O_RDONLY, 0);
	if (IS_ERR(file)) {
		ks_err_ratelimited("trace %s: %s: cannot count the functions it matches: no tracefs available_filter_functions (%ld)\n",
				   trace, pattern, PTR_ERR(file));
		return -EOPNOTSUPP;
	}
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	line = kmalloc(KSYM_NAME_LEN, GFP_KERNEL);
	if (!buf || !line) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		struct kvec kv = { .iov_base = buf, .iov_len = PAGE_SIZE };
		struct iov_iter iter;
		struct kiocb kiocb;
		ssize_t got;

		init_sync_kiocb(&kiocb, file);
		kiocb.ki_pos = file->f_pos;
		iov_iter_kvec(&iter, READ, &kv, 1, PAGE_SIZE);
		/* The file's read is seq_read(); this is its kernel-buffer half. */
		got = seq_read_iter(&kiocb, &iter);
		if (got <= 0) {
			err = got;
			break;
		}
		file->f_pos = kiocb.ki_pos;
		ks_count_lines(buf, got, line, &held, pattern, n);
		cond_resched();
	}
	if (err) {
		ks_err_ratelimited("trace %s: %s: cannot count the functions it matches: reading available_filter_functions failed (%d)\n",
				   trace, pattern, err);
		err = err == -ENOMEM ? err : -EOPNOTSUPP;
	}
out:
	kfree(line);
	kfree(buf);
	filp_close(file, NULL);
	return err;
}
