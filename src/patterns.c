// SPDX-License-Identifier: GPL-2.0
/*
 * Glob patterns of functions: kstats' own grammar, and the functions a
 * pattern names, found before anything is attached.
 *
 * ftrace, which would match an fprobe's pattern itself, reads more than a
 * glob into the word: a leading '!' removes from the filter (and an empty
 * filter means every function), a number is an index into
 * available_filter_functions, "mod:" and ":command" have meanings of
 * their own. kstats takes none of those: a pattern is names and *, ?
 * and [...] only, matched as glob_match() matches.
 *
 * ftrace also matches one name per function: the one kallsyms gives its
 * address first. A function with aliases (SYSCALL_DEFINE0's
 * __x64_sys_NAME and __ia32_sys_NAME are aliases of __do_sys_NAME, and
 * gcc folds identical functions into one under several names) would be
 * missed under the others, though each name times it when listed. So
 * kstats matches the pattern against every name in /proc/kallsyms, the
 * kernel's and its modules', and attaches to the functions found by
 * address, as for a list. The kernel exports no other way for a module
 * to walk its symbols.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "patterns.h"
#include "request.h"

/* Every symbol, "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]" a line. */
#define KS_KALLSYMS	"/proc/kallsyms"

/**
 * ks_funcs_skip() - count @name among the functions kprobes refuse
 * @f: the set
 * @name: the function, the first few of which dmesg names
 */
void ks_funcs_skip(struct ks_funcs *f, const char *name)
{
	size_t len = strlen(f->skipped_names);

	f->skipped++;
	/* Whole names only; the summary says when some are left out. */
	if (len + 1 + strlen(name) >= sizeof(f->skipped_names))
		return;
	scnprintf(f->skipped_names + len, sizeof(f->skipped_names) - len,
		  " %s", name);
	f->skipped_named++;
}

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

/* A pattern's scan of kallsyms: the functions it names, by address. */
struct ks_scan {
	const char *pattern;
	struct ks_funcs *f;	/* candidates: names[], addrs[] (symbol starts) */
	unsigned int found;	/* functions matched, counted past the bound too */
	unsigned long last;	/* the last match: aliases of vmlinux are adjacent */
	unsigned long init_lo;	/* vmlinux's __init text, freed after boot */
	unsigned long init_hi;
	bool hidden;		/* addresses read as 0 (kernel.kptr_restrict) */
	int err;
};

/* One line of /proc/kallsyms. */
static void ks_scan_line(struct ks_scan *s, char *line)
{
	struct ks_funcs *f = s->f;
	char *type, *name, *mod;
	unsigned long addr;
	unsigned int i;

	type = strchr(line, ' ');
	name = type ? strchr(type + 1, ' ') : NULL;
	if (!name || type[2] != ' ' || !strchr("tTwW", type[1]))
		return;
	*type = '\0';
	name++;
	mod = strchr(name, '\t');
	if (mod) {
		*mod = '\0';
		mod += 2;			/* past "\t[" */
		mod[strcspn(mod, "]")] = '\0';
	}
	if (!mod && (!strcmp(name, "_sinittext") || !strcmp(name, "_einittext"))) {
		if (kstrtoul(line, 16, &addr))
			return;
		if (name[1] == 's')
			s->init_lo = addr;
		else
			s->init_hi = addr;
		return;
	}
	/* Padding and CFI preambles before functions are no functions. */
	if (str_has_prefix(name, "__pfx_") || str_has_prefix(name, "__cfi_") ||
	    !glob_match(s->pattern, name) || kstrtoul(line, 16, &addr))
		return;
	if (!addr) {
		s->hidden = true;
		return;
	}
	if (addr == s->last)
		return;
	s->last = addr;
	for (i = 0; i < f->n; i++)
		if (f->addrs[i] == addr)
			return;
	s->found++;
	if (f->n == KS_PATTERN_NAMES_MAX || s->err)
		return;
	/* kprobes' spelling: MODULE:FUNCTION */
	f->names[f->n] = mod ? kasprintf(GFP_KERNEL, "%s:%s", mod, name) :
			       kstrdup(name, GFP_KERNEL);
	if (!f->names[f->n]) {
		s->err = -ENOMEM;
		return;
	}
	f->addrs[f->n++] = addr;
}

/* Splits one read into lines; @held carries a line across reads. */
static void ks_scan_buf(struct ks_scan *s, const char *buf, size_t len,
			char *line, size_t *held, size_t line_len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			/* A line longer than ours matches nothing. */
			if (*held < line_len - 1)
				line[(*held)++] = buf[i];
			continue;
		}
		line[*held] = '\0';
		ks_scan_line(s, line);
		*held = 0;
	}
}

/*
 * Reads /proc/kallsyms once, through its seq_file, as a reader in
 * userspace would; opened as the writer of _control (root), whose
 * CAP_SYSLOG shows the addresses.
 */
static int ks_scan_kallsyms(const char *trace, struct ks_scan *s)
{
	const size_t line_len = KSYM_NAME_LEN + MODULE_NAME_LEN + 32;
	struct file *file;
	char *buf, *line;
	size_t held = 0;
	int err = 0;

	file = filp_open(KS_KALLSYMS, O_RDONLY, 0);
	if (IS_ERR(file)) {
		ks_err_ratelimited("trace %s: %s: cannot look for the functions it matches: no %s (%ld)\n",
				   trace, s->pattern, KS_KALLSYMS, PTR_ERR(file));
		return -EOPNOTSUPP;
	}
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	line = kmalloc(line_len, GFP_KERNEL);
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
		ks_scan_buf(s, buf, got, line, &held, line_len);
		cond_resched();
	}
	if (err) {
		ks_err_ratelimited("trace %s: %s: cannot look for the functions it matches: reading %s failed (%d)\n",
				   trace, s->pattern, KS_KALLSYMS, err);
		err = err == -ENOMEM ? err : -EOPNOTSUPP;
	}
out:
	kfree(line);
	kfree(buf);
	filp_close(file, NULL);
	return err ? err : s->err;
}

/*
 * Where kprobes can tell an ftrace site (CONFIG_KPROBES_ON_FTRACE: every
 * amd64 kernel), a pattern covers what ftrace's own glob would: the
 * functions with a site, so the same set whichever method times them.
 * Elsewhere (arm64) it covers every function kprobes accept.
 */
static bool ks_pattern_keeps(const struct kprobe *kp)
{
	return !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) ||
	       (kp->flags & KPROBE_FLAG_FTRACE);
}

/*
 * Keeps the candidates ks_pattern_keeps(), each where a kprobe on it sits
 * (past an ENDBR, on the ftrace site), and counts those kprobes refuse,
 * as a list does. Disabled kprobes tell, arming nothing; one grace
 * period for them all.
 */
static int ks_pattern_sites(struct ks_funcs *f)
{
	struct kprobe *kps, **regd;
	unsigned int i, n_regd = 0, kept = 0;

	kps = kvcalloc(f->n, sizeof(*kps), GFP_KERNEL);
	regd = kvcalloc(f->n, sizeof(*regd), GFP_KERNEL);
	if (!kps || !regd) {
		kvfree(kps);
		kvfree(regd);
		return -ENOMEM;
	}
	for (i = 0; i < f->n; i++) {
		struct kprobe *kp = &kps[i];
		int err;

		kp->addr = (kprobe_opcode_t *)f->addrs[i];
		kp->flags = KPROBE_FLAG_DISABLED;
		err = register_kprobe(kp);
		if (!err)
			regd[n_regd++] = kp;
		if (err == -ENOMEM) {
			unregister_kprobes(regd, n_regd);
			kvfree(regd);
			kvfree(kps);
			return err;
		}
		if (!err && within_module((unsigned long)kp->addr, THIS_MODULE))
			err = -EINVAL;
		if (err || !ks_pattern_keeps(kp)) {
			/* Named in one summary line (ks_funcs_report_skipped()). */
			if (err)
				ks_funcs_skip(f, f->names[i]);
			kfree(f->names[i]);
			continue;
		}
		f->names[kept] = f->names[i];
		f->addrs[kept++] = (unsigned long)kp->addr;
	}
	f->n = kept;
	unregister_kprobes(regd, n_regd);
	kvfree(regd);
	kvfree(kps);
	return 0;
}

/*
 * kallsyms still lists vmlinux's __init functions, whose text was freed
 * after boot: no function any more, as ftrace has dropped their sites.
 */
static void ks_pattern_drop_init(struct ks_scan *s)
{
	struct ks_funcs *f = s->f;
	unsigned int i, kept = 0;

	for (i = 0; i < f->n; i++) {
		if (f->addrs[i] >= s->init_lo && f->addrs[i] < s->init_hi) {
			kfree(f->names[i]);
			continue;
		}
		f->names[kept] = f->names[i];
		f->addrs[kept++] = f->addrs[i];
	}
	f->n = kept;
}

/**
 * ks_pattern_expand() - the functions a pattern names
 * @trace: the trace's NAME, for messages
 * @pattern: a pattern that ks_pattern_valid() accepted
 * @f: its functions go to @f->names and @f->addrs (@f->n of them)
 *
 * Every function one of whose names in /proc/kallsyms @pattern matches,
 * once, that kprobes accept; where kprobes can tell, only those with an
 * ftrace site, at the site (see ks_pattern_keeps()). The same set for
 * every method: fprobe attaches to them all, or a kretprobe to each.
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOENT for none; -E2BIG for more than KS_FUNCS_MAX (or
 * KS_PATTERN_NAMES_MAX names before they are sifted);
 * -EPERM when /proc/kallsyms hides addresses; -EOPNOTSUPP when it cannot
 * be read; -ENOMEM. Each with a dmesg line.
 */
int ks_pattern_expand(const char *trace, const char *pattern,
		      struct ks_funcs *f)
{
	struct ks_scan s = { .pattern = pattern, .f = f };
	int err = ks_scan_kallsyms(trace, &s);

	if (err)
		return err;
	if (s.hidden && !s.found) {
		ks_err_ratelimited("trace %s: %s: %s shows no addresses (kernel.kptr_restrict is 2); list the functions instead\n",
				   trace, pattern, KS_KALLSYMS);
		return -EPERM;
	}
	if (s.found > KS_PATTERN_NAMES_MAX) {
		ks_err_ratelimited("trace %s: %s matches %u names, more than %d functions\n",
				   trace, pattern, s.found, KS_FUNCS_MAX);
		return -E2BIG;
	}
	ks_pattern_drop_init(&s);
	if (f->n) {
		err = ks_pattern_sites(f);
		if (err)
			return err;
	}
	if (f->n > KS_FUNCS_MAX) {
		ks_err_ratelimited("trace %s: %s matches %u functions, more than %d\n",
				   trace, pattern, f->n, KS_FUNCS_MAX);
		return -E2BIG;
	}
	if (!f->n) {
		ks_err_ratelimited("trace %s: %s matches no function %s\n", trace,
				   pattern, IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) ?
				   "with an ftrace site" : "kprobes can probe");
		return -ENOENT;
	}
	return 0;
}
