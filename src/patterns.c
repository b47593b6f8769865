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
#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "patterns.h"
#include "request.h"
#include "symbols.h"

/**
 * ks_funcs_skip() - count @name among the functions kstats may not probe
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

/* One line of /proc/kallsyms (ks_kallsyms_read()). */
static bool ks_scan_line(void *priv, unsigned long addr, char type,
			 const char *name, const char *mod)
{
	struct ks_scan *s = priv;
	struct ks_funcs *f = s->f;
	unsigned int i;

	if (!strchr("tTwW", type))
		return false;
	if (!mod && (!strcmp(name, "_sinittext") || !strcmp(name, "_einittext"))) {
		if (name[1] == 's')
			s->init_lo = addr;
		else
			s->init_hi = addr;
		return false;
	}
	/*
	 * Padding and CFI preambles before functions are no functions; nor
	 * are bpf programs and ftrace's and kprobes' own pages.
	 */
	if (str_has_prefix(name, "__pfx_") || str_has_prefix(name, "__cfi_") ||
	    (mod && (!strcmp(mod, "bpf") || str_has_prefix(mod, "__builtin__"))) ||
	    !glob_match(s->pattern, name))
		return false;
	if (!addr) {
		s->hidden = true;
		return false;
	}
	if (addr == s->last)
		return false;
	s->last = addr;
	for (i = 0; i < f->n; i++)
		if (f->addrs[i] == addr)
			return false;
	s->found++;
	if (f->n == KS_PATTERN_NAMES_MAX || s->err)
		return false;
	/* kprobes' spelling: MODULE:FUNCTION */
	f->names[f->n] = mod ? kasprintf(GFP_KERNEL, "%s:%s", mod, name) :
			       kstrdup(name, GFP_KERNEL);
	if (!f->names[f->n]) {
		s->err = -ENOMEM;
		return true;
	}
	f->addrs[f->n++] = addr;
	return false;
}

/*
 * Keeps the candidates kstats may probe and counts the others, as a
 * list does: ks_probeable()'s rule, with the disabled kprobes of all the
 * candidates removed together, so one grace period serves them all.
 * On an error the arrays still hold every name not yet freed, in f->n,
 * for ks_funcs_free().
 */
static int ks_pattern_sites(struct ks_funcs *f)
{
	struct kprobe *kps, **regd;
	unsigned int i, n_regd = 0, kept = 0;
	int err = 0;

	kps = kvcalloc(f->n, sizeof(*kps), GFP_KERNEL);
	regd = kvcalloc(f->n, sizeof(*regd), GFP_KERNEL);
	if (!kps || !regd) {
		kvfree(kps);
		kvfree(regd);
		return -ENOMEM;
	}
	for (i = 0; i < f->n; i++) {
		int why = 0;

		if (!err) {
			why = ks_probe_site(f->addrs[i]);
			if (!why) {
				kps[i].addr = (kprobe_opcode_t *)f->addrs[i];
				kps[i].flags = KPROBE_FLAG_DISABLED;
				why = register_kprobe(&kps[i]);
				if (!why)
					regd[n_regd++] = &kps[i];
				else if (why == -EILSEQ || why == -EBUSY)
					why = -EINVAL;
			}
			if (why == -ENOMEM || why == -ENODEV)
				err = why;
		}
		if (!err && why) {
			/* Named in one summary line (ks_funcs_report_skipped()). */
			if (why != -ESRCH)
				ks_funcs_skip(f, f->names[i]);
			kfree(f->names[i]);
			continue;
		}
		f->names[kept] = f->names[i];
		f->addrs[kept++] = f->addrs[i];
	}
	f->n = kept;
	unregister_kprobes(regd, n_regd);
	kvfree(regd);
	kvfree(kps);
	return err;
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
 * once, that kstats may probe (ks_probeable(): on amd64 those with an
 * ftrace site, elsewhere those kprobes accept). The same set for every
 * method: fprobe attaches to them all, or a kretprobe to each.
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
	int err = ks_kallsyms_read(trace, ks_scan_line, &s);

	if (!err)
		err = s.err;
	if (err)
		return err;
	if (s.hidden && !s.found) {
		ks_err_ratelimited("trace %s: %s: %s shows no addresses (kernel.kptr_restrict is 2); list the functions instead\n",
				   trace, pattern, "/proc/kallsyms");
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
		if (err == -ENODEV)
			ks_err_ratelimited("trace %s: %s: ftrace is off, so no function has a site kstats may probe\n",
					   trace, pattern);
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
