// SPDX-License-Identifier: GPL-2.0
/*
 * Names: what the start and end words of a trace name. Functions as
 * kprobes find them, tracepoints of vmlinux by name (and perf's
 * GROUP:EVENT), syscalls by the arch's entry prefix.
 */
#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "names.h"
#include "request.h"
#include "symbols.h"

struct ks_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void ks_tp_match(struct tracepoint *tp, void *priv)
{
	struct ks_tp_lookup *l = priv;

	if (!strcmp(tp->name, l->name))
		l->tp = tp;
}

/**
 * ks_find_tracepoint() - a tracepoint of vmlinux by name
 * @name: the event name, e.g. "sched_switch"
 *
 * Modules' tracepoints are not looked up.
 * Context: process context.
 * Return: the tracepoint, or NULL.
 */
struct tracepoint *ks_find_tracepoint(const char *name)
{
	struct ks_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(ks_tp_match, &l);
	return l.tp;
}

/* Looks @sym up as kprobes would (symbols.c): 0, or -ENOENT for none. */
static int ks_lookup(const char *sym, struct ks_sym *s)
{
	int err;

	s->name = sym;
	err = ks_symbols_find(s, 1);
	return !err && !s->type ? -ENOENT : err;
}

/*
 * Is @addr in the core kernel's data (.rodata, .data, .bss: from _etext
 * to __bss_stop), as jiffies_64 is? kallsyms' type letter does not say:
 * 7.2 lists jiffies_64, which the linker script defines, as T. A
 * module's data cannot be told from its text here: within_module()
 * needs the module, which no export finds.
 */
static bool ks_is_core_data(unsigned long addr)
{
	struct ks_sym b[] = {
		{ .name = "_sinittext" }, { .name = "_einittext" },
		{ .name = "_etext" }, { .name = "__bss_stop" },
	};

	if (ks_symbols_find(b, ARRAY_SIZE(b)))
		return false;
	/* x86 puts the init text, freed after boot, among them. */
	if (addr >= b[0].addr && addr < b[1].addr)
		return false;
	return b[2].addr && addr >= b[2].addr && addr < b[3].addr;
}

/**
 * ks_resolve() - find a function kstats may probe
 * @name: the trace's NAME, for messages
 * @sym: the function, as kprobes take it (FUNCTION or MODULE:FUNCTION)
 * @addr: set to its address
 *
 * Found as kprobes would find it, in /proc/kallsyms, and refused, with
 * a line in dmesg, before anything is attached: unknown symbols, data,
 * kstats' own functions, and functions kstats may not probe (see
 * ks_probeable(): on amd64, those without an ftrace site, which the
 * kernel's kprobe_events refuses too).
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOENT for an unknown symbol; -EINVAL for one that cannot
 * be probed; -EPERM when kallsyms hides addresses; -ENODEV when ftrace
 * is off; -EOPNOTSUPP; -ENOMEM.
 */
int ks_resolve(const char *name, const char *sym, unsigned long *addr)
{
	unsigned int retry = 1;
	struct ks_sym s;
	int err;

look_up:
	err = ks_lookup(sym, &s);
	if (err == -ENOENT) {
		if (ks_find_tracepoint(sym))
			ks_err_ratelimited("trace %s: no function %s; the tracepoint is tracepoint:%s\n",
					   name, sym, sym);
		else if (strchr(sym, '+'))
			ks_err_ratelimited("trace %s: no function %s: kstats times functions and sections, not offsets\n",
					   name, sym);
		else
			ks_err_ratelimited("trace %s: no function %s in the kernel or its modules\n",
					   name, sym);
		return err;
	}
	if (err == -EPERM)
		ks_err_ratelimited("trace %s: %s: /proc/kallsyms shows no addresses (kernel.kptr_restrict is 2)\n",
				   name, sym);
	if (err)
		return err;
	if (!ks_sym_is_text(&s) || ks_is_core_data(s.addr)) {
		ks_err_ratelimited("trace %s: %s is data, not a function\n", name, sym);
		return -EINVAL;
	}
	err = ks_probeable(s.addr);
	/*
	 * No site where kallsyms put the function: its module may have gone
	 * since the lookup, and come back elsewhere, or at the same address
	 * as a new module whose sites ftrace has. Look and ask again, once.
	 */
	if (err == -ESRCH && retry--)
		goto look_up;
	if (err == -EPERM) {
		ks_err_ratelimited("trace %s: %s is part of kstats, which cannot trace itself; see /sys/kernel/debug/kprobes/blacklist\n",
				   name, sym);
		return -EINVAL;
	}
	if (err == -ESRCH)
		ks_err_ratelimited("trace %s: %s has no ftrace site (notrace, __init or __exit code, or not plain text): kstats probes only where ftrace can, as kprobe_events does\n",
				   name, sym);
	else if (err == -ENODEV)
		ks_err_ratelimited("trace %s: %s: ftrace is off, so kstats cannot tell whether it may be probed\n",
				   name, sym);
	else if (err)
		ks_err_ratelimited("trace %s: %s cannot be probed (%d); see /sys/kernel/debug/kprobes/blacklist\n",
				   name, sym, err);
	if (err)
		return err == -ESRCH ? -EINVAL : err;
	*addr = s.addr;
	return 0;
}

/*
 * Is @sym a function kprobes can find (probeable or not)? 0 if so,
 * -ENOENT if not, or the lookup's own error (-ENOMEM, ...).
 */
static int ks_function_find(const char *sym)
{
	struct ks_sym s;

	return ks_lookup(sym, &s);
}

/*
 * The prefix of this kernel's syscall entry points, found once by trying
 * the spellings of the arch syscall wrappers (arch/{*}/include/asm/
 * syscall_wrapper.h) on getpid, which every kernel has. 0 with *@prefix
 * set; -ENOENT if no spelling is found; or the lookup's own error
 * (-ENOMEM, ...), which is not remembered.
 */
static int ks_syscall_prefix(const char **prefix)
{
	static const char * const prefixes[] = { KS_SYSCALL_PREFIXES };
	static const char *found;
	char sym[32];
	int i, err;

	/* Racing first uses store the same answer. */
	for (i = 0; !READ_ONCE(found) && i < ARRAY_SIZE(prefixes); i++) {
		snprintf(sym, sizeof(sym), "%sgetpid", prefixes[i]);
		err = ks_function_find(sym);
		if (!err)
			WRITE_ONCE(found, prefixes[i]);
		else if (err != -ENOENT)
			return err;
	}
	*prefix = READ_ONCE(found);
	return *prefix ? 0 : -ENOENT;
}

/* Is tracepoint @event in trace event group @group (TRACE_SYSTEM)? */
static bool ks_tracepoint_in_group(const char *group, const char *event,
				   struct tracepoint *tp)
{
	struct trace_event_file *file;
	bool in;

	file = trace_get_event_file(NULL, group, event);
	if (IS_ERR(file))
		return false;
	in = (file->event_call->flags & TRACE_EVENT_FL_TRACEPOINT) &&
	     file->event_call->tp == tp;
	trace_put_event_file(file);
	return in;
}

/* @sym = "__tracepoint_EVENT" if that tracepoint exists (in @group). */
static int ks_point_tracepoint(const char *name, char *sym, const char *group,
			       const char *word)
{
	const char *event = sym + strlen(KS_TP_PREFIX);
	struct tracepoint *tp = ks_find_tracepoint(event);

	if (tp && (!group[0] || ks_tracepoint_in_group(group, event, tp)))
		return 0;
	if (!strncmp(event, "sys_enter_", 10) || !strncmp(event, "sys_exit_", 9))
		ks_err_ratelimited("trace %s: %s is a syscall event, not a tracepoint; use syscall:%s\n",
				   name, word, strchr(event + 8, '_') + 1);
	else if (tp)
		ks_err_ratelimited("trace %s: no tracepoint %s: %s is not in group %s\n",
				   name, word, event, group);
	else
		ks_err_ratelimited("trace %s: no tracepoint %s in the kernel\n",
				   name, word);
	return -ENOENT;
}

/* @sym = this kernel's entry point of syscall @call. */
static int ks_point_syscall(const char *name, char *sym, const char *call,
			    const char *word)
{
	char entry[KSYM_NAME_LEN];
	const char *prefix;
	int err;

	err = ks_syscall_prefix(&prefix);
	if (err == -ENOENT)
		ks_err_ratelimited("trace %s: %s: cannot tell this kernel's syscall entry prefix\n",
				   name, word);
	if (err)
		return err;
	if (strlen(prefix) + strlen(call) >= sizeof(entry)) {
		ks_err_ratelimited("trace %s: %s: name too long\n", name, word);
		return -ENAMETOOLONG;
	}
	scnprintf(entry, sizeof(entry), "%s%s", prefix, call);
	err = ks_function_find(entry);
	if (err && err != -ENOENT)
		return err;
	if (err) {
		ks_err_ratelimited("trace %s: no syscall %s (no function %s)\n", name,
				   call, entry);
		return -ENOENT;
	}
	strscpy(sym, entry, KSYM_NAME_LEN);
	return 0;
}

/*
 * One start or end word: bare names are a function if there is one,
 * else a tracepoint, else (sys_NAME) a syscall; GROUP:EVENT is that
 * tracepoint if it exists, else kprobes' MODULE:FUNCTION.
 */
static int ks_resolve_point(struct ks_trace_req *req, bool is_end)
{
	enum ks_point_kind kind = is_end ? req->end_kind : req->start_kind;
	char *group = is_end ? req->end_group : req->start_group;
	const char *word = is_end ? req->end_word : req->start_word;
	char *sym = is_end ? req->end : req->start;
	enum ks_point_kind *resolved = is_end ? &req->end_kind :
						&req->start_kind;
	char tp_sym[KSYM_NAME_LEN];
	const char *colon;
	int err;

	*resolved = KS_POINT_FUNCTION;
	switch (kind) {
	case KS_POINT_TRACEPOINT:
		*resolved = KS_POINT_TRACEPOINT;
		return ks_point_tracepoint(req->name, sym, group, word);
	case KS_POINT_SYSCALL:
		return ks_point_syscall(req->name, sym, word + strlen("syscall:"),
					word);
	case KS_POINT_FUNCTION:
		return 0;	/* looked up when attached */
	default:
		break;
	}
	if (ks_is_function_set(sym))
		return 0;	/* functions only, looked up when attached */
	colon = strchr(sym, ':');
	if (colon) {
		struct tracepoint *tp = NULL;
		char g[KS_GROUP_MAX] = "";

		if (colon != sym && colon - sym < KS_GROUP_MAX &&
		    ks_tp_symbol(tp_sym, colon + 1)) {
			strscpy(g, sym, colon - sym + 1);
			tp = ks_find_tracepoint(colon + 1);
		}
		if (tp && ks_tracepoint_in_group(g, colon + 1, tp)) {
			strscpy(group, g, KS_GROUP_MAX);
			strscpy(sym, tp_sym, KSYM_NAME_LEN);
			*resolved = KS_POINT_TRACEPOINT;
			return 0;
		}
		/* perf's syscalls:sys_enter_NAME: say what to write instead. */
		if (ks_tp_symbol(tp_sym, colon + 1) &&
		    (strstarts(colon + 1, "sys_enter_") ||
		     strstarts(colon + 1, "sys_exit_")))
			return ks_point_tracepoint(req->name, tp_sym, "", word);
		err = ks_function_find(sym);
		if (err != -ENOENT)
			return err;	/* MODULE:FUNCTION is kprobes' own spelling */
		if (tp)		/* a tracepoint, in another group */
			return ks_point_tracepoint(req->name, tp_sym, g, word);
		ks_err_ratelimited("trace %s: no tracepoint or function %s in the kernel or its modules\n",
				   req->name, word);
		return -ENOENT;
	}
	err = ks_function_find(sym);
	if (err != -ENOENT)
		return err;
	if (ks_find_tracepoint(sym) && ks_tp_symbol(tp_sym, sym)) {
		strscpy(sym, tp_sym, KSYM_NAME_LEN);
		*resolved = KS_POINT_TRACEPOINT;
		return 0;
	}
	/* perf's event names without their group: syscalls:sys_enter_NAME */
	if ((strstarts(sym, "sys_enter_") || strstarts(sym, "sys_exit_")) &&
	    ks_tp_symbol(tp_sym, sym))
		return ks_point_tracepoint(req->name, tp_sym, "", word);
	if (!strncmp(sym, "sys_", 4)) {
		const char *prefix;

		err = ks_syscall_prefix(&prefix);
		if (!err)
			return ks_point_syscall(req->name, sym, sym + 4, word);
		if (err != -ENOENT)
			return err;
	}
	ks_err_ratelimited("trace %s: no function or tracepoint %s in the kernel or its modules\n",
			   req->name, word);
	return -ENOENT;
}

/**
 * ks_resolve_points() - turn the start and end words into probe points
 * @req: a request from ks_parse_control()
 *
 * Rewrites @req->start and @req->end to a function symbol, or to
 * __tracepoint_EVENT for a tracepoint, as the words ask: see
 * ks_resolve_point(). Where a function and a tracepoint share a bare
 * name, the function wins.
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOENT, with a line in dmesg, for a name that is none of
 * these; -ENAMETOOLONG.
 */
int ks_resolve_points(struct ks_trace_req *req)
{
	int err;

	err = ks_resolve_point(req, false);
	if (!err && req->end[0])
		err = ks_resolve_point(req, true);
	req->resolved = !err;
	return err;
}

/* ---------------------------------------------- lists and patterns */

/**
 * ks_is_function_set() - does @spec name several functions?
 * @spec: a start word: "f1,f2,..." or a glob such as "vfs_*"
 *
 * Return: true for a comma list or a pattern with *, ? or [.
 */
bool ks_is_function_set(const char *spec)
{
	return strpbrk(spec, ",*?[");
}

/* The dmesg line that names the skipped functions. */
static void ks_funcs_report_skipped(const char *trace, const struct ks_funcs *f)
{
	if (f->skipped)
		pr_info("trace %s: skipped %u function%s kstats may not probe:%s%s\n",
			trace, f->skipped, f->skipped == 1 ? "" : "s", f->skipped_names,
			f->skipped > f->skipped_named ? " ..." : "");
}

/* Adds @name once; a function kstats may not probe is skipped. */
static int ks_funcs_add(struct ks_funcs *f, const char *trace,
			const char *name)
{
	unsigned long addr;
	unsigned int i;
	int err;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->names[i], name))
			return 0;
	err = ks_resolve(trace, name, &addr);
	if (err == -ENOENT)
		return err;
	if (err) {
		ks_funcs_skip(f, name);
		return 0;
	}
	/* One function under two spellings (f, mod:f) is timed once. */
	for (i = 0; i < f->n; i++)
		if (f->addrs[i] == addr)
			return 0;
	if (f->n == KS_FUNCS_MAX)
		return -E2BIG;
	f->names[f->n] = kstrdup(name, GFP_KERNEL);
	if (!f->names[f->n])
		return -ENOMEM;
	f->addrs[f->n++] = addr;
	return 0;
}

/*
 * A pattern: of kstats' grammar, and naming 1..KS_FUNCS_MAX functions,
 * found by any of their names before anything is attached (patterns.c).
 */
/**
 * ks_pattern_check() - is @spec one pattern of kstats' grammar?
 * @trace: the trace's NAME, for messages
 * @spec: a start word with *, ? or [
 *
 * Return: 0, or -EINVAL with a dmesg line naming what is wrong.
 */
int ks_pattern_check(const char *trace, const char *spec)
{
	const char *bad;

	if (strchr(spec, ',')) {
		ks_err_ratelimited("trace %s: %s: give one pattern, or a list of names\n",
				   trace, spec);
		return -EINVAL;
	}
	bad = ks_pattern_valid(spec);
	/* "[]" or "[!]": ks_pattern_valid() stops at the ']' of an empty set. */
	if (bad && *bad == ']' && bad > spec &&
	    (bad[-1] == '[' || (bad - 1 > spec && bad[-2] == '['))) {
		ks_err_ratelimited("trace %s: %s: an empty [] matches nothing\n",
				   trace, spec);
		return -EINVAL;
	}
	if (bad && *bad) {
		ks_err_ratelimited("trace %s: %s: '%c' is not part of a pattern (names, *, ? and [...]; ftrace's !, indexes, mod: and commands are not taken)\n",
				   trace, spec, *bad);
		return -EINVAL;
	}
	if (bad) {
		ks_err_ratelimited("trace %s: %s: a [ without its ]\n", trace, spec);
		return -EINVAL;
	}
	return 0;
}

/* Arrays for @n functions; ks_funcs_free() frees them. */
static int ks_funcs_alloc(struct ks_funcs *f, unsigned int n)
{
	f->names = kvcalloc(n, sizeof(*f->names), GFP_KERNEL);
	f->addrs = kvcalloc(n, sizeof(*f->addrs), GFP_KERNEL);
	return f->names && f->addrs ? 0 : -ENOMEM;
}

/* A pattern's matches, found in arrays of KS_PATTERN_NAMES_MAX, kept in n. */
static int ks_funcs_fit(struct ks_funcs *f)
{
	struct ks_funcs fit = { .n = f->n };
	int err = ks_funcs_alloc(&fit, f->n);

	if (err) {
		kvfree(fit.names);
		kvfree(fit.addrs);
		return err;
	}
	memcpy(fit.names, f->names, f->n * sizeof(*f->names));
	memcpy(fit.addrs, f->addrs, f->n * sizeof(*f->addrs));
	kvfree(f->names);
	kvfree(f->addrs);
	f->names = fit.names;
	f->addrs = fit.addrs;
	return 0;
}

static int ks_funcs_pattern(const char *trace, const char *spec,
			    struct ks_funcs *f)
{
	int err = ks_pattern_check(trace, spec);

	if (err)
		return err;
	err = ks_funcs_alloc(f, KS_PATTERN_NAMES_MAX);
	if (!err)
		err = ks_pattern_expand(trace, spec, f);
	if (!err)
		err = ks_funcs_fit(f);
	if (err)
		return err;
	ks_funcs_report_skipped(trace, f);
	f->pattern = kstrdup(spec, GFP_KERNEL);
	return f->pattern ? 0 : -ENOMEM;
}

/**
 * ks_funcs_resolve() - the functions a start word covers
 * @trace: the trace's NAME, for messages
 * @spec: one function, a comma list of functions, or one glob pattern
 * @f: filled in; free with ks_funcs_free(), also on failure
 *
 * A listed function that does not exist refuses the trace; listed
 * functions kstats may not probe are skipped, counted in @f->skipped and
 * named in one dmesg line. A pattern's functions are found by any of
 * their names (patterns.c), and the pattern is kept in @f->pattern.
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOENT when nothing is left to probe; -E2BIG for more
 * than KS_FUNCS_MAX functions; -EINVAL; -EOPNOTSUPP when a pattern's
 * matches cannot be counted; -ENOMEM.
 */
int ks_funcs_resolve(const char *trace, const char *spec, struct ks_funcs *f)
{
	const char *cur;
	char *list, *rest, *name;
	unsigned int n = 1;
	int err;

	memset(f, 0, sizeof(*f));
	if (strpbrk(spec, "*?["))
		return ks_funcs_pattern(trace, spec, f);
	/* A list has one name more than it has commas. */
	for (cur = strchr(spec, ','); cur; cur = strchr(cur + 1, ','))
		n++;
	err = ks_funcs_alloc(f, min(n, KS_FUNCS_MAX));
	list = kstrdup(spec, GFP_KERNEL);
	if (err || !list) {
		kfree(list);
		return -ENOMEM;
	}
	if (!ks_is_function_set(spec)) {
		err = ks_resolve(trace, spec, &f->addrs[0]);
		if (err) {
			kfree(list);
			return err;
		}
		f->names[f->n++] = list;
		return 0;
	}
	rest = list;
	while (!err && (name = strsep(&rest, ","))) {
		if (!*name) {
			ks_err_ratelimited("trace %s: %s: an empty name in the list\n",
					   trace, spec);
			err = -EINVAL;
			break;
		}
		err = ks_funcs_add(f, trace, name);
	}
	kfree(list);
	if (err == -E2BIG)
		ks_err_ratelimited("trace %s: %s covers more than %d functions\n",
				   trace, spec, KS_FUNCS_MAX);
	if (err)
		return err;
	ks_funcs_report_skipped(trace, f);
	if (!f->n) {
		ks_err_ratelimited("trace %s: %s matches no function that can be probed\n",
				   trace, spec);
		return -ENOENT;
	}
	return 0;
}

/**
 * ks_funcs_free() - free what ks_funcs_resolve() allocated
 * @f: the set; may be zeroed
 */
void ks_funcs_free(struct ks_funcs *f)
{
	unsigned int i;

	for (i = 0; f->names && i < f->n; i++)
		kfree(f->names[i]);
	kvfree(f->names);
	kvfree(f->addrs);
	kfree(f->pattern);
	memset(f, 0, sizeof(*f));
}

/**
 * ks_symbol_range() - the extent of the function that holds @addr
 * @addr: a kernel or module text address
 * @lo: set to the function's start
 * @hi: set to its end (exclusive)
 *
 * From kallsyms, as sprint_symbol() prints it: "name+0xOFF/0xSIZE".
 *
 * Context: process context.
 * Return: false if kallsyms does not know @addr.
 */
bool ks_symbol_range(unsigned long addr, unsigned long *lo, unsigned long *hi)
{
	char buf[KSYM_SYMBOL_LEN], *mod, *plus;
	unsigned long off, size;

	sprint_symbol(buf, addr);
	mod = strstr(buf, " [");
	if (mod)
		*mod = '\0';
	plus = strrchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, &size) != 2 || off > addr)
		return false;
	*lo = addr - off;
	*hi = *lo + size;
	return true;
}
