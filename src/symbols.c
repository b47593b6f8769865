// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols: functions by name, and whether ftrace can trace them.
 *
 * The kernel exports no lookup of a symbol by name (kallsyms_lookup_name()
 * is not exported since 5.7). kprobes look names up themselves, but only
 * inside register_kprobe(), which prepares a probe at the address before
 * it can be asked anything: on x86 that decodes the whole function for
 * the optimizer, by kallsyms' idea of its size, which for a module's
 * __exit function runs past the end of the module's text (an oops in
 * insn_get_modrm() on 6.12). So kstats reads /proc/kallsyms, as a user
 * would, and asks ftrace whether an address is one of its sites with a
 * filter on an ftrace_ops that is never registered: nothing is patched
 * and no probe is placed to find anything out.
 */
#include <linux/bitmap.h>
#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "request.h"
#include "symbols.h"

/* Every symbol, "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]" a line. */
#define KS_KALLSYMS	"/proc/kallsyms"

/* Splits one line and hands it to @fn; true to stop. */
static bool ks_kallsyms_line(char *line, ks_kallsyms_fn fn, void *priv)
{
	char *type, *name, *mod;
	unsigned long addr;

	type = strchr(line, ' ');
	name = type ? strchr(type + 1, ' ') : NULL;
	if (!name || type[2] != ' ')
		return false;
	*type = '\0';
	name++;
	mod = strchr(name, '\t');
	if (mod) {
		*mod = '\0';
		mod += 2;			/* past "\t[" */
		mod[strcspn(mod, "]")] = '\0';
	}
	if (kstrtoul(line, 16, &addr))
		return false;
	return fn(priv, addr, type[1], name, mod);
}

/**
 * ks_kallsyms_read() - hand each line of /proc/kallsyms to @fn
 * @trace: the trace's NAME, for messages
 * @fn: called for each line, in the file's order (vmlinux, by address,
 *	then each module's); returns true to stop
 * @priv: for @fn
 *
 * Reads the file through its seq_file, as a reader in userspace would;
 * opened as the writer of _control (root), whose CAP_SYSLOG shows the
 * addresses.
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOMEM; -EOPNOTSUPP, with a dmesg line, when it cannot be
 * read.
 */
int ks_kallsyms_read(const char *trace, ks_kallsyms_fn fn, void *priv)
{
	const size_t line_len = KSYM_NAME_LEN + MODULE_NAME_LEN + 32;
	struct file *file;
	size_t held = 0;
	char *buf, *line;
	bool stop = false;
	int err = 0;

	file = filp_open(KS_KALLSYMS, O_RDONLY, 0);
	if (IS_ERR(file)) {
		if (PTR_ERR(file) == -ENOMEM)
			return -ENOMEM;
		ks_err_ratelimited("trace %s: cannot look functions up: no %s (%ld)\n",
				   trace, KS_KALLSYMS, PTR_ERR(file));
		return -EOPNOTSUPP;
	}
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	line = kmalloc(line_len, GFP_KERNEL);
	if (!buf || !line) {
		err = -ENOMEM;
		goto out;
	}
	while (!stop) {
		struct kvec kv = { .iov_base = buf, .iov_len = PAGE_SIZE };
		struct iov_iter iter;
		struct kiocb kiocb;
		ssize_t got, i;

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
		for (i = 0; i < got && !stop; i++) {
			if (buf[i] != '\n') {
				/* A line longer than ours matches nothing. */
				if (held < line_len - 1)
					line[held++] = buf[i];
				continue;
			}
			line[held] = '\0';
			held = 0;
			stop = ks_kallsyms_line(line, fn, priv);
		}
		cond_resched();
	}
	if (err) {
		ks_err_ratelimited("trace %s: cannot look functions up: reading %s failed (%d)\n",
				   trace, KS_KALLSYMS, err);
		err = err == -ENOMEM ? err : -EOPNOTSUPP;
	}
out:
	kfree(line);
	kfree(buf);
	filp_close(file, NULL);
	return err;
}

struct ks_find {
	struct ks_sym *syms;
	unsigned int n;
	unsigned int left;	/* not found yet */
};

/*
 * kallsyms_lookup_name() takes vmlinux's first symbol of the name, else
 * the first module's (in the modules list's order, which the file
 * follows); MODULE:FUNCTION only that module's. The file lists vmlinux
 * first, so the first line that fits is kprobes' answer. Symbols of bpf
 * programs and of ftrace's and kprobes' own pages follow the modules
 * under pseudo-module names, which no lookup finds.
 */
static bool ks_pseudo_module(const char *mod)
{
	return mod && (!strcmp(mod, "bpf") || str_has_prefix(mod, "__builtin__"));
}

/*
 * Modules whose last event was MODULE_STATE_GOING: kallsyms still lists
 * their symbols until they are freed, but ftrace has dropped their sites
 * and kprobes refuse them, so a lookup finds no such symbol (ENOENT), as
 * after the unload, not a function without a site.
 */
#define KS_GOING_MAX	8
static char ks_going[KS_GOING_MAX][MODULE_NAME_LEN];
static DEFINE_SPINLOCK(ks_going_lock);

static bool ks_module_going(const char *mod)
{
	bool going = false;
	unsigned int i;

	spin_lock(&ks_going_lock);
	for (i = 0; i < KS_GOING_MAX && !going; i++)
		going = !strcmp(ks_going[i], mod);
	spin_unlock(&ks_going_lock);
	return going;
}

static void ks_module_set_going(const char *mod, bool going)
{
	unsigned int i, free = KS_GOING_MAX;

	spin_lock(&ks_going_lock);
	for (i = 0; i < KS_GOING_MAX; i++) {
		if (!strcmp(ks_going[i], mod)) {
			if (!going)
				ks_going[i][0] = '\0';
			going = false;		/* already there */
		} else if (!ks_going[i][0] && free == KS_GOING_MAX) {
			free = i;
		}
	}
	if (going)
		strscpy(ks_going[free == KS_GOING_MAX ? 0 : free], mod, MODULE_NAME_LEN);
	spin_unlock(&ks_going_lock);
}

static bool ks_find_line(void *priv, unsigned long addr, char type,
			 const char *name, const char *mod)
{
	struct ks_find *f = priv;
	unsigned int i;

	if (ks_pseudo_module(mod) || (mod && ks_module_going(mod)))
		return false;
	for (i = 0; i < f->n; i++) {
		struct ks_sym *s = &f->syms[i];
		const char *colon;

		if (s->type)
			continue;
		colon = strchr(s->name, ':');
		if (colon) {
			if (!mod || strlen(mod) != colon - s->name ||
			    strncmp(mod, s->name, colon - s->name) ||
			    strcmp(colon + 1, name))
				continue;
		} else if (strcmp(s->name, name)) {
			continue;
		}
		s->addr = addr;
		s->type = type;
		f->left--;
	}
	return !f->left;
}

/*
 * Reading /proc/kallsyms takes 0.1 to 0.2 s in a QEMU guest, and a trace
 * looks a name up more than once, so lookups are remembered until the
 * set of symbols changes (a module comes, goes live or goes: its
 * notifier bumps ks_sym_gen):
 * - a Bloom filter of every name (and MODULE:NAME) answers "no such
 *   symbol" without reading, for the typos and unknown names a user or
 *   a fuzzer writes; 256 KiB, about 1 % false "maybe" at 160,000 names;
 * - the last KS_SYM_CACHED answers are kept, found or not, in place
 *   (names up to KS_SYM_CACHED_LEN bytes; longer ones are read for).
 */
#define KS_BLOOM_BITS	BIT(21)
#define KS_SYM_CACHED	64
#define KS_SYM_CACHED_LEN	96

struct ks_sym_cached {
	char name[KS_SYM_CACHED_LEN];	/* "": an empty slot */
	unsigned long addr;
	char type;		/* '\0': no such symbol */
};

static DEFINE_MUTEX(ks_sym_lock);	/* the filter and the cache */
static atomic_t ks_sym_gen = ATOMIC_INIT(1);
static unsigned int ks_sym_seen;	/* the gen they were made at */
static unsigned long *ks_bloom;
static struct ks_sym_cached ks_sym_cache[KS_SYM_CACHED];
static unsigned int ks_sym_next;	/* the slot to fill next */

static u32 ks_bloom_bit(u32 h1, u32 h2, unsigned int i)
{
	return (h1 + i * h2) & (KS_BLOOM_BITS - 1);
}

static void ks_bloom_hashes(const char *mod, const char *name, u32 *h1, u32 *h2)
{
	u32 seed1 = 0, seed2 = 0x9e3779b9;

	if (mod) {
		seed1 = jhash(mod, strlen(mod), seed1);
		seed2 = jhash(mod, strlen(mod), seed2);
	}
	*h1 = jhash(name, strlen(name), seed1);
	*h2 = jhash(name, strlen(name), seed2) | 1;
}

static void ks_bloom_add(const char *mod, const char *name)
{
	u32 h1, h2;
	unsigned int i;

	ks_bloom_hashes(mod, name, &h1, &h2);
	for (i = 0; i < 3; i++)
		__set_bit(ks_bloom_bit(h1, h2, i), ks_bloom);
}

/* Is @sym (NAME or MODULE:NAME) perhaps a symbol? */
static bool ks_bloom_maybe(const char *sym)
{
	char mod[MODULE_NAME_LEN];
	const char *colon = strchr(sym, ':');
	u32 h1, h2;
	unsigned int i;

	if (!ks_bloom)
		return true;
	if (colon && colon - sym < MODULE_NAME_LEN) {
		strscpy(mod, sym, colon - sym + 1);
		ks_bloom_hashes(mod, colon + 1, &h1, &h2);
	} else {
		ks_bloom_hashes(NULL, sym, &h1, &h2);
	}
	for (i = 0; i < 3; i++)
		if (!test_bit(ks_bloom_bit(h1, h2, i), ks_bloom))
			return false;
	return true;
}

static void ks_sym_cache_clear(void)
{
	unsigned int i;

	for (i = 0; i < KS_SYM_CACHED; i++)
		ks_sym_cache[i].name[0] = '\0';
}

/*
 * One reading both fills the filter anew and answers the names asked
 * (@priv: their ks_find), after the set of symbols changed.
 */
static bool ks_bloom_line(void *priv, unsigned long addr, char type,
			  const char *name, const char *mod)
{
	if (ks_pseudo_module(mod))
		return false;
	ks_bloom_add(NULL, name);
	if (mod)
		ks_bloom_add(mod, name);
	ks_find_line(priv, addr, type, name, mod);
	return false;
}

/*
 * Makes the filter for today's symbols, answering @f's names on the way:
 * true if it read them. Without memory for the filter, or when the
 * reading fails, there is none, and every name is read for.
 */
static bool ks_sym_refresh(struct ks_find *f)
{
	unsigned int gen = atomic_read(&ks_sym_gen);

	if (ks_sym_seen == gen)
		return false;
	ks_sym_cache_clear();
	ks_sym_seen = gen;
	if (!ks_bloom)
		ks_bloom = vmalloc(BITS_TO_LONGS(KS_BLOOM_BITS) * sizeof(long));
	if (!ks_bloom)
		return false;
	bitmap_zero(ks_bloom, KS_BLOOM_BITS);
	f->left = f->n;
	if (!ks_kallsyms_read("", ks_bloom_line, f))
		return true;
	vfree(ks_bloom);
	ks_bloom = NULL;
	for (f->left = 0; f->left < f->n; f->left++) {
		f->syms[f->left].addr = 0;
		f->syms[f->left].type = '\0';
	}
	f->left = 0;
	return false;
}

/* Fills @s from the cache; false if it holds no answer for it. */
static bool ks_sym_cached(struct ks_sym *s)
{
	unsigned int i;

	for (i = 0; i < KS_SYM_CACHED; i++) {
		struct ks_sym_cached *c = &ks_sym_cache[i];

		if (c->name[0] && !strcmp(c->name, s->name)) {
			s->addr = c->addr;
			s->type = c->type;
			return true;
		}
	}
	return false;
}

static void ks_sym_remember(const struct ks_sym *s)
{
	struct ks_sym_cached *c = &ks_sym_cache[ks_sym_next];

	/* A hidden address is no answer; a long name is not kept. */
	if ((s->type && !s->addr) ||
	    strscpy(c->name, s->name, sizeof(c->name)) < 0) {
		c->name[0] = '\0';
		return;
	}
	c->addr = s->addr;
	c->type = s->type;
	ks_sym_next = (ks_sym_next + 1) % KS_SYM_CACHED;
}

/**
 * ks_symbols_find() - look symbols up as kprobes would
 * @syms: each ->name to look up; ->addr and ->type are set, or left 0
 *	for a name that no symbol has
 * @n: how many
 *
 * From the cache, the filter, or else one reading of /proc/kallsyms for
 * all the names neither answers.
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOMEM; -EOPNOTSUPP when /proc/kallsyms cannot be read;
 * -EPERM when it hides the addresses (kernel.kptr_restrict 2): a
 * function found at 0.
 */
int ks_symbols_find(struct ks_sym *syms, unsigned int n)
{
	struct ks_find f = { .syms = syms, .n = n };
	unsigned long read = 0;		/* the names a reading answers */
	unsigned int i;
	int err = 0;

	if (WARN_ON_ONCE(n > BITS_PER_LONG))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		syms[i].addr = 0;
		syms[i].type = '\0';
	}
	mutex_lock(&ks_sym_lock);
	if (ks_sym_refresh(&f)) {
		read = BIT(n) - 1;
		goto remember;
	}
	for (i = 0; i < n; i++) {
		if (ks_sym_cached(&syms[i]) || !ks_bloom_maybe(syms[i].name))
			continue;
		__set_bit(i, &read);
		f.left++;
	}
	/* The reading skips names whose type is set: set the others'. */
	for (i = 0; i < n; i++)
		if (!test_bit(i, &read) && !syms[i].type)
			syms[i].type = '?';
	if (f.left)
		err = ks_kallsyms_read("", ks_find_line, &f);
	for (i = 0; i < n; i++)
		if (syms[i].type == '?' && !test_bit(i, &read))
			syms[i].type = '\0';
remember:
	for (i = 0; i < n && !err; i++)
		if (test_bit(i, &read))
			ks_sym_remember(&syms[i]);
	mutex_unlock(&ks_sym_lock);
	if (err)
		return err;
	/*
	 * A function at 0 is an address kallsyms hides. Data may be at 0:
	 * x86-64's per-CPU symbols are offsets (__per_cpu_start,
	 * fixed_percpu_data), and they are found as the data they are.
	 */
	for (i = 0; i < n; i++)
		if (ks_sym_is_text(&syms[i]) && !syms[i].addr)
			return -EPERM;
	return 0;
}

static int ks_symbols_module_notify(struct notifier_block *nb,
				    unsigned long action, void *data)
{
	struct module *mod = data;

	/* A module's symbols come, its __init ones go when it is live. */
	ks_module_set_going(mod->name, action == MODULE_STATE_GOING);
	atomic_inc(&ks_sym_gen);
	return NOTIFY_DONE;
}

static struct notifier_block ks_symbols_module_nb = {
	.notifier_call = ks_symbols_module_notify,
};

/**
 * ks_symbols_init() - follow modules, whose symbols lookups remember
 *
 * Context: module init.
 * Return: 0, or register_module_notifier()'s error.
 */
int ks_symbols_init(void)
{
	return register_module_notifier(&ks_symbols_module_nb);
}

/**
 * ks_symbols_exit() - stop following modules; free what lookups keep
 *
 * Context: module exit, or init's unwinding.
 */
void ks_symbols_exit(void)
{
	unregister_module_notifier(&ks_symbols_module_nb);
	ks_sym_cache_clear();
	vfree(ks_bloom);
	ks_bloom = NULL;
}

/**
 * ks_sym_is_text() - is a symbol ks_symbols_find() found a function?
 * @sym: the symbol
 *
 * Return: true for nm's text letters (t, T, and w, W for weak ones).
 */
bool ks_sym_is_text(const struct ks_sym *sym)
{
	return sym->type && strchr("tTwW", sym->type);
}

/**
 * ks_ftrace_site() - does ftrace have a site in the function at @addr?
 * @addr: a function's start (or its site)
 *
 * As kprobe_events decides (trace_kprobe.c, within_notrace_func()):
 * ftrace_location() maps a function's start to its __fentry__ site.
 * notrace functions, __init and __exit code, and sections that are not
 * normal text (noinstr, entry, kprobes' own) have none. Asked through
 * the filter of an ftrace_ops that is never registered, so nothing is
 * patched; a new one each time, since ftrace_free_filter() leaves the
 * ops' hashes freed but still in place.
 *
 * Context: process context; may sleep.
 * Return: 0 if it has one; -EINVAL if not; -ENODEV when ftrace is
 * off; -ENOMEM.
 */
int ks_ftrace_site(unsigned long addr)
{
	struct ftrace_ops *ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	int err;

	if (!ops)
		return -ENOMEM;
	err = ftrace_set_filter_ip(ops, addr, 0, 1);
	ftrace_free_filter(ops);
	kfree(ops);
	return err;
}

/**
 * ks_probe_site() - may kstats place a kprobe at @addr, as far as ftrace says?
 * @addr: a function's start
 *
 * Where kprobes sit on ftrace's sites (CONFIG_KPROBES_ON_FTRACE: every
 * amd64 kernel), only a function with a site, as kprobe_events and
 * ftrace's own glob decide: ks_ftrace_site(), which places nothing.
 * Elsewhere (arm64, no optimizer to decode the function) every address
 * passes here, and kprobes decide. kstats' own functions never pass.
 *
 * Context: process context; may sleep.
 * Return: 0; -EPERM for kstats' own; -ESRCH for no ftrace site; -ENODEV
 * when ftrace is off; -ENOMEM.
 */
int ks_probe_site(unsigned long addr)
{
	int err;

	if (within_module(addr, THIS_MODULE))
		return -EPERM;
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return 0;
	err = ks_ftrace_site(addr);
	return err == -EINVAL ? -ESRCH : err;
}

/**
 * ks_probeable() - may kstats probe the function at @addr?
 * @addr: its start
 *
 * ks_probe_site(), then kprobes decide as they do for kprobe_events
 * (blacklist, reserved text): a disabled kprobe, never armed, says
 * whether they accept it. On an ftrace site that is only ftrace's
 * bookkeeping; nothing is written to the text.
 *
 * Context: process context; may sleep.
 * Return: 0; -EPERM for kstats' own; -ESRCH for no ftrace site; -EINVAL
 * for one kprobes refuse; -ENODEV when ftrace is off; -ENOMEM.
 */
int ks_probeable(unsigned long addr)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)addr,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int err = ks_probe_site(addr);

	if (err)
		return err;
	err = register_kprobe(&kp);
	if (!err)
		unregister_kprobe(&kp);
	return err == -EILSEQ || err == -EBUSY ? -EINVAL : err;
}
