// SPDX-License-Identifier: GPL-2.0
/*
 * The control path's parser, for _control and /dev/kstats
 * (control_files.c): "trace NAME [bits B] [start X] [end Y] [method M] [maxactive N]
 * [key K[,K]] [keys N] [slowest N] [pid P] [tgid P] [comm C] [cpu N]
 * [cgroup PATH] [if V ...] [match argI[,argJ]] [expire NS] [repeat replace|keep]
 * [gap on|off]", "trace NAME offcpu [state any|all|S|D] [min NS]
 * [max NS] [tasks all|user|kernel] ...", "remove NAME", and a node's own
 * commands as "start|stop|reset NAME". Parsing is a pure function of the
 * line, so it can be tested without attaching anything.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/string_helpers.h>

#include "control.h"
#include "metrics.h"
#include "names.h"
#include "output.h"
#include "request.h"
#include "traces.h"
#include "values.h"

/* "trace NAME", the kind (offcpu) and a "keyword value" pair of each keyword. */
#define KS_CONTROL_MAX_WORDS	(3 + 2 * ARRAY_SIZE(ks_keywords) + \
				 2 * (KS_VALUE_FILTERS_MAX - 1))

static const char * const ks_keywords[] = {
	"bits", "start", "end", "method", "maxactive",
	"key", "keys", "slowest", "pid", "tgid", "comm", "cpu",
	"match", "expire", "repeat", "if", "gap", "cgroup",
	"state", "min", "max", "tasks",
};

enum ks_keyword {
	KS_KW_BITS, KS_KW_START, KS_KW_END, KS_KW_METHOD, KS_KW_MAXACTIVE,
	KS_KW_KEY, KS_KW_KEYS, KS_KW_SLOWEST, KS_KW_PID, KS_KW_TGID,
	KS_KW_COMM, KS_KW_CPU, KS_KW_MATCH, KS_KW_EXPIRE, KS_KW_REPEAT, KS_KW_IF,
	KS_KW_GAP, KS_KW_CGROUP,
	/* offcpu only */
	KS_KW_STATE, KS_KW_MIN, KS_KW_MAX, KS_KW_TASKS,
};

/* The kind word after NAME: "trace NAME offcpu ...". */
#define KS_KIND_OFFCPU		"offcpu"

static bool ks_is_tracepoint(const char *sym)
{
	return !strncmp(sym, KS_TP_PREFIX, strlen(KS_TP_PREFIX)) &&
	       sym[strlen(KS_TP_PREFIX)];
}

/* Sets *why to a message naming what is wrong; kept in @req. */
static __printf(3, 4) int ks_why(struct ks_trace_req *req, const char **why,
				 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vscnprintf(req->why, sizeof(req->why), fmt, args);
	va_end(args);
	*why = req->why;
	return -EINVAL;
}

/*
 * A matched section may start in one task and end in another, or in an
 * interrupt: the task-level keys would be the end's, so they are refused.
 */
static int ks_check_match(struct ks_trace_req *req, const char **why)
{
	static const enum ks_key_part task_parts[] = {
		KS_KEY_COMM, KS_KEY_PID, KS_KEY_TGID, KS_KEY_CGROUP,
	};
	unsigned int i;

	if (!KS_MATCH_SOUND)
		return ks_why(req, why,
			      "match reads arguments from registers, which kstats does only on x86-64 and arm64");
	if (req->offcpu.on)
		return ks_why(req, why, "match: an off-CPU wait is matched on its task");
	if (!req->end[0])
		return ks_why(req, why, "match pairs a section's start and end: give end");
	for (i = 0; i < ARRAY_SIZE(task_parts); i++)
		if (ks_keys_spec_has(&req->keys, task_parts[i]))
			return ks_why(req, why,
				      "key %s: a matched section may end in another task or an interrupt; key kstack, end-kstack and cpu are its ends'",
				      ks_key_part_names[task_parts[i]]);
	if (!req->match.expire_ns)
		req->match.expire_ns = KS_EXPIRE_DEFAULT_NS;
	return 0;
}

/* What "if" and key ret/argN may read: a function's return, the start's arguments. */
static int ks_check_values(struct ks_trace_req *req, bool tp_start,
			   const char **why)
{
	bool key_ret = ks_keys_spec_on_ret(&req->keys);
	bool key_arg = ks_keys_spec_on_arg(&req->keys);
	const struct ks_filter *f = &req->filter;
	char name[8];
	/* The word at fault: the first if word, else the key's value part. */
	const char *word = f->n_values ? f->value[0].word :
			   ks_key_value_word(name, &req->keys);
	unsigned int i;

	for (i = 0; i < f->n_values && f->on_ret && f->value[i].v.arg != KS_VALUE_RET; i++)
		;
	if (req->offcpu.on)
		return ks_why(req, why, "%s %s: an off-CPU wait has no arguments to %s",
			      f->n_values ? "if" : "key", word,
			      f->n_values ? "compare" : "key on");
	if ((f->on_ret || key_ret) && (req->end[0] || tp_start))
		return ks_why(req, why,
			      "%s %s: a return value is a function's; trace a function (no end)",
			      f->on_ret ? "if" : "key",
			      f->on_ret ? f->value[i].word : "ret");
	if ((f->on_args || key_arg) && !KS_MATCH_SOUND)
		return ks_why(req, why,
			      "%s %s: kstats reads arguments from registers only on x86-64 and arm64",
			      f->n_values ? "if" : "key", word);
	req->reads_args = req->filter.on_args || key_arg;
	req->reads_ret = req->filter.on_ret || key_ret;
	return 0;
}

/**
 * ks_check_trace() - checks between the keywords of a trace request
 * @req: a parsed request, its start and end resolved or not
 * @why: set to a one-line reason on failure
 *
 * Sets @req->method from @req->given_method and the kinds of start and
 * end: a pair of __tracepoint_ names is a tracepoint pair, two functions a
 * kprobe pair. Before ks_resolve_points() has run, only what holds
 * whatever the names turn out to be is checked.
 *
 * Context: any; pure function of @req.
 * Return: 0, or -EINVAL.
 */
int ks_check_trace(struct ks_trace_req *req, const char **why)
{
	bool tp_start = ks_is_tracepoint(req->start);
	bool tp_end = req->end[0] && ks_is_tracepoint(req->end);
	/* Names are checked first: "no such tracepoint" beats "needs an end". */
	bool unresolved = !req->resolved;
	int i;

	req->method = req->given_method;
	if ((req->end[0] && ks_is_function_set(req->start)) ||
	    ks_is_function_set(req->end))
		return ks_why(req, why,
			      "a list or pattern of functions (%s) times each call: no end",
			      ks_is_function_set(req->end) ? req->end_word :
			      req->start_word);
	if (req->end[0] && !strcmp(req->start, req->end))
		return ks_why(req, why, "end %s is the same as start",
			      req->end_word);
	if (req->filter.n_values || ks_keys_spec_has(&req->keys, KS_KEY_VALUE)) {
		int err = ks_check_values(req, tp_start, why);

		if (err)
			return err;
	}
	if (req->match.expire_ns && !req->end[0])
		return ks_why(req, why,
			      "expire bounds the age of a section's start: give end");
	if (req->match.repeat_given && !req->match.on)
		return ks_why(req, why,
			      "repeat says which start of an object is kept: give match");
	if (req->match.on) {
		int err = ks_check_match(req, why);

		if (err)
			return err;
	}
	if (req->offcpu.on) {
		/* An off-CPU wait ends in __schedule(): its end has one stack. */
		if (ks_keys_spec_has(&req->keys, KS_KEY_END_KSTACK))
			return ks_why(req, why,
				      "key end-kstack: an off-CPU wait ends in the scheduler; key waker-kstack is the stack that woke it");
		/* A chain's first level is the waker: its stack, comm and pid. */
		for (i = KS_KEY_WAKER_KSTACK; i <= KS_KEY_WAKER_CGROUP; i++)
			if (ks_keys_spec_has(&req->keys, KS_KEY_WAKER_CHAIN) &&
			    ks_keys_spec_has(&req->keys, i))
				return ks_why(req, why,
					      "key %s: not beside waker-chain (its levels carry kernel stacks, comms and pids; waker-kstack, waker-comm and waker-pid are its level 1)",
					      ks_key_part_names[i]);
		req->method = KS_METHOD_TRACEPOINT;
		return 0;
	}
	for (i = KS_KEY_WAKER_KSTACK; i <= KS_KEY_WAKER_CHAIN; i++)
		if (ks_keys_spec_has(&req->keys, i))
			return ks_why(req, why,
				      "key %s: only an off-CPU wait has a waker (trace NAME offcpu)",
				      ks_key_part_names[i]);
	if (!req->end[0] && ks_keys_spec_has(&req->keys, KS_KEY_END_KSTACK))
		return ks_why(req, why,
			      "key end-kstack is the stack where a section ends: give end");
	if (unresolved)
		return 0;	/* checked again once resolved */
	if (req->end[0] && tp_start != tp_end)
		return ks_why(req, why,
			      "start %s and end %s must both be tracepoints or both functions",
			      req->start_word, req->end_word);
	if (tp_start && !req->end[0])
		return ks_why(req, why, "tracepoint %s needs an end (end TRACEPOINT)",
			      req->start_word);
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
		return ks_why(req, why, "method tracepoint needs tracepoints, and %s is a function",
			      req->start_word);
	case KS_METHOD_KPROBE:
		if (req->end[0] && !tp_start)
			return 0;
		return ks_why(req, why, "method kprobe times from start to end: give end FUNCTION");
	default:
		if (!req->end[0] && !tp_start)
			return 0;
		return ks_why(req, why, "method %s times one function: no end, no tracepoint",
			      ks_method_names[req->method]);
	}
}

/* Spellings of bpftrace and perf, and what each says about the point. */
static const struct {
	const char *prefix;
	enum ks_point_kind kind;
	enum ks_method method;
} ks_prefixes[] = {
	{ "tracepoint:", KS_POINT_TRACEPOINT, KS_METHOD_DEFAULT },
	{ "kprobe:", KS_POINT_FUNCTION, KS_METHOD_DEFAULT },
	{ "kretprobe:", KS_POINT_FUNCTION, KS_METHOD_KRETPROBE },
	{ "fentry:", KS_POINT_FUNCTION, KS_METHOD_FPROBE },
	{ "kfunc:", KS_POINT_FUNCTION, KS_METHOD_FPROBE },
	{ "syscall:", KS_POINT_SYSCALL, KS_METHOD_DEFAULT },
};

/*
 * Reads the value of start or end: strips a prefix into a kind (and a
 * method hint), and writes tracepoints as __tracepoint_EVENT. Bare names
 * and GROUP:EVENT stay as written, for names.c to resolve.
 */
static int ks_parse_point(struct ks_trace_req *req, const char *word,
			  bool is_end, enum ks_method *hint, const char **why)
{
	char *sym = is_end ? req->end : req->start;
	char *group = is_end ? req->end_group : req->start_group;
	enum ks_point_kind kind = KS_POINT_ANY;
	const char *name = word, *colon;
	int i;

	if (strscpy(is_end ? req->end_word : req->start_word, word,
		    KSYM_NAME_LEN) < 0)
		goto toolong;
	*hint = KS_METHOD_DEFAULT;
	for (i = 0; i < ARRAY_SIZE(ks_prefixes); i++) {
		size_t len = strlen(ks_prefixes[i].prefix);

		if (strncmp(word, ks_prefixes[i].prefix, len))
			continue;
		kind = ks_prefixes[i].kind;
		*hint = ks_prefixes[i].method;
		name = word + len;
		break;
	}
	if (!*name)
		return ks_why(req, why, "%s names nothing", word);
	if (kind == KS_POINT_ANY && ks_is_tracepoint(name))
		kind = KS_POINT_TRACEPOINT;
	if (kind == KS_POINT_TRACEPOINT && strpbrk(name, ",*?["))
		return ks_why(req, why, "%s: lists and patterns are of functions only",
			      word);
	if (kind == KS_POINT_TRACEPOINT && !ks_is_tracepoint(name)) {
		colon = strchr(name, ':');
		if (colon) {
			if (colon == name || colon - name >= KS_GROUP_MAX ||
			    !colon[1] || strchr(colon + 1, ':'))
				return ks_why(req, why, "%s: expected tracepoint:GROUP:EVENT",
					      word);
			strscpy(group, name, colon - name + 1);
			name = colon + 1;
		}
		if (!ks_tp_symbol(sym, name))
			goto toolong;
	} else if (strscpy(sym, name, KSYM_NAME_LEN) < 0) {
		goto toolong;
	}
	if (is_end)
		req->end_kind = kind;
	else
		req->start_kind = kind;
	return 0;
toolong:
	ks_why(req, why, "%s %.32s...: longer than %d bytes",
	       is_end ? "end" : "start", word, KSYM_NAME_LEN - 1);
	return -ENAMETOOLONG;
}

/* "key kstack:8,comm": the parts of a row's key, in the order written. */
static int ks_parse_key(struct ks_trace_req *req, char *val, const char **why)
{
	struct ks_key_spec *spec = &req->keys;
	unsigned int seen = 0, depth;
	char *part, *colon;
	int p;

	while ((part = strsep(&val, ","))) {
		colon = strchr(part, ':');
		if (colon)
			*colon++ = '\0';
		p = ks_value_parse_key(spec, part, colon, req->why, sizeof(req->why));
		if (p == -EINVAL)
			*why = req->why;
		if (p != -ENOENT) {
			if (p)
				return p;
			continue;
		}
		/* Below KS_KEY_VALUE: "value" is written ret or argN. */
		p = match_string(ks_key_part_names, KS_KEY_VALUE, part);
		/* A '>' unquoted in a shell cuts "file->f_flags" to "file-". */
		if (p < 0 && *part && part[strlen(part) - 1] == '-')
			return ks_why(req, why,
				      "key '%s': a field path cut short: quote the line from the shell ('key file->f_flags')",
				      part);
		if (p < 0 && (strstr(part, "->") || strchr(part, '.')))
			return ks_why(req, why,
				      "key '%s': not a field path kstats reads: NAME->MEMBER, at most %d '->' and %d members in all, each a C name",
				      part, KS_FIELD_DEREFS, KS_FIELD_MEMBERS_MAX);
		if (p < 0)
			return ks_why(req, why,
				      "key '%s': expected kstack[:DEPTH], end-kstack[:DEPTH], ustack[:DEPTH], comm, pid, tgid, cpu, cgroup, ret[:TYPE], argN[:TYPE] or argN:log2, waker-kstack[:DEPTH], waker-ustack[:DEPTH], waker-comm, waker-pid, waker-cgroup or waker-chain[:LEVELS]; or with BTF a parameter's name or NAME->MEMBER (at most %d '->' and %d members)",
				      part, KS_FIELD_DEREFS, KS_FIELD_MEMBERS_MAX);
		if (seen & BIT(p))
			return ks_why(req, why, "key %s given twice", part);
		seen |= BIT(p);
		if (p == KS_KEY_WAKER_CHAIN) {
			unsigned int levels = KS_CHAIN_DEFAULT;

			if (colon && (kstrtouint(colon, 10, &levels) || !levels ||
				      levels > KS_CHAIN_MAX))
				return ks_why(req, why,
					      "key waker-chain:%s: levels must be 1..%d",
					      colon, KS_CHAIN_MAX);
			spec->chain = levels;
			/* Each level's kernel stack, at waker-kstack's depth. */
			spec->depth[ks_key_stack_slot(p)] = KS_DEPTH_DEFAULT;
			spec->parts[spec->n_parts++] = p;
			continue;
		}
		depth = KS_DEPTH_DEFAULT;
		if (colon && !ks_key_part_is_stack(p))
			return ks_why(req, why,
				      "key %s:%s: only kstack, end-kstack, ustack, waker-kstack and waker-ustack take a depth",
				      part, colon);
		if (colon && strchr(colon, ':'))
			return ks_why(req, why,
				      "key %s:%s: a stack takes one suffix, its depth (%s:1..%d)",
				      part, colon, part, KS_DEPTH_MAX);
		if (colon && (kstrtouint(colon, 10, &depth) || !depth ||
			      depth > KS_DEPTH_MAX))
			return ks_why(req, why, "key %s:%s: depth must be 1..%d",
				      part, colon, KS_DEPTH_MAX);
		if (ks_key_part_is_stack(p))
			spec->depth[ks_key_stack_slot(p)] = depth;
		spec->parts[spec->n_parts++] = p;
	}
	return 0;
}

/* pid P, tgid P: a task the trace records alone. */
static int ks_parse_pid(struct ks_trace_req *req, const char *key,
			const char *val, pid_t *pid, const char **why)
{
	if (kstrtoint(val, 10, pid) || *pid <= 0)
		return ks_why(req, why, "%s %s: must be a positive number",
			      key, val);
	return 0;
}

/* "state S", "tasks user": one of @n names, its index into *@dst. */
static_assert(KS_STATE_NR == 4 && KS_TASKS_NR == 3, "the messages name them");
static int ks_parse_choice(struct ks_trace_req *req, const char *key,
			   const char *val, const char *const *names,
			   unsigned int n, u8 *dst, const char **why)
{
	int m = match_string(names, n, val);

	if (m < 0 && n == 3)
		return ks_why(req, why, "%s %s: must be %s, %s or %s", key, val,
			      names[0], names[1], names[2]);
	if (m < 0)
		return ks_why(req, why, "%s %s: must be %s, %s, %s or %s", key,
			      val, names[0], names[1], names[2], names[3]);
	*dst = m;
	return 0;
}

/* "match argI[,argJ]": the end's argument is the start's if not given. */
static int ks_parse_match(struct ks_trace_req *req, char *val, const char **why)
{
	u8 *arg[2] = { &req->match.start_arg, &req->match.end_arg };
	char word[16];
	unsigned int n = 0;
	char *part;

	strscpy(word, val, sizeof(word));
	while ((part = strsep(&val, ","))) {
		if (n == 2 || !ks_arg_index(part, arg[n]))
			return ks_why(req, why,
				      "match %s: expected argI or argI,argJ, each arg0..arg%d",
				      word, KS_ARGS - 1);
		n++;
	}
	if (n == 1)
		req->match.end_arg = req->match.start_arg;
	req->match.on = true;
	return 0;
}

/*
 * An odd number of words after NAME (and offcpu): a keyword lacks its
 * value, or a word stands where a keyword is due. That word is the first
 * word at a keyword's place that is no keyword; the words after it are
 * shifted by one. A bare function name suggests start, unless start (or
 * offcpu, which takes none) is given: then the word is a stray one.
 */
static int ks_odd_words(struct ks_trace_req *req, char **words, int first,
			int n, const char **why)
{
	const char *w = words[n - 1];
	int i, j;

	for (i = first; i < n - 1; i += 2)
		if (match_string(ks_keywords, ARRAY_SIZE(ks_keywords), words[i]) < 0)
			break;
	if (i >= n - 1) {
		if (match_string(ks_keywords, ARRAY_SIZE(ks_keywords), w) >= 0)
			return ks_why(req, why, "keyword %s needs a value", w);
		i = n - 1;
	}
	w = words[i];
	if (req->offcpu.on)
		return ks_why(req, why,
			      "'%s' is not a keyword; an off-CPU trace takes no start, and each keyword one word",
			      w);
	/* Keywords stand at first, first + 2, ... before it, one later after. */
	for (j = first; j < n - 1; j += 2) {
		if (j == i) {
			j--;
			continue;
		}
		if (!strcmp(words[j], "start"))
			return ks_why(req, why,
				      "'%s' is not a keyword; start is given (start %s) and takes one word",
				      w, words[j + 1]);
	}
	return ks_why(req, why, "'%s' is not a keyword; did you mean 'start %s'?",
		      w, w);
}

static int ks_parse_pair(struct ks_trace_req *req, const char *key,
			 char *val, unsigned int *seen,
			 enum ks_method *hints, const char **why)
{
	struct ks_filter *f = &req->filter;
	int k, m, err;

	k = match_string(ks_keywords, ARRAY_SIZE(ks_keywords), key);
	if (k < 0)
		return ks_why(req, why,
			      "'%s' is not a keyword (bits, start, end, method, maxactive, key, keys, slowest, pid, tgid, comm, cpu, cgroup, match, expire, repeat, if, gap; with offcpu: state, min, max, tasks)",
			      key);
	if ((*seen & BIT(k)) && k != KS_KW_IF)
		return ks_why(req, why, "keyword %s given twice", key);
	*seen |= BIT(k);
	if (k >= KS_KW_STATE && !req->offcpu.on)
		return ks_why(req, why, "keyword %s is for off-CPU waits: trace NAME offcpu %s ...",
			      key, key);
	if (req->offcpu.on && (k == KS_KW_START || k == KS_KW_END ||
			       k == KS_KW_METHOD))
		return ks_why(req, why,
			      "keyword %s: an off-CPU trace has its own probes (sched_switch, sched_waking)",
			      key);
	if (req->offcpu.on && k == KS_KW_EXPIRE)
		return ks_why(req, why,
			      "keyword expire: an off-CPU wait is one per task, from its switch-out to its switch-in");
	switch (k) {
	case KS_KW_KEY:
		return ks_parse_key(req, val, why);
	case KS_KW_KEYS:
		if (kstrtou16(val, 10, &req->keys.rows) || !req->keys.rows ||
		    req->keys.rows > KS_KEYS_MAX)
			return ks_why(req, why, "keys %s: must be 1..%d", val,
				      KS_KEYS_MAX);
		return 0;
	case KS_KW_SLOWEST:
		if (kstrtou8(val, 10, &req->keys.slowest) ||
		    req->keys.slowest > KS_SLOWEST_MAX)
			return ks_why(req, why, "slowest %s: must be 0..%d", val,
				      KS_SLOWEST_MAX);
		return 0;
	case KS_KW_PID:
		f->has |= KS_FILTER_PID;
		return ks_parse_pid(req, key, val, &f->pid, why);
	case KS_KW_TGID:
		f->has |= KS_FILTER_TGID;
		return ks_parse_pid(req, key, val, &f->tgid, why);
	case KS_KW_COMM:
		f->has |= KS_FILTER_COMM;
		/* As KEY-NAME prints a comm: \040 for a blank. */
		string_unescape_inplace(val, UNESCAPE_OCTAL);
		if (!*val)
			return ks_why(req, why, "comm: empty");
		if (strscpy(f->comm, val, sizeof(f->comm)) < 0)
			return ks_why(req, why,
				      "comm %s: longer than the %zu bytes the kernel keeps",
				      val, sizeof(f->comm) - 1);
		return 0;
	case KS_KW_CGROUP:
		f->has |= KS_FILTER_CGROUP;
		/* As KEY-NAME prints a path: \040 for a blank. */
		string_unescape_inplace(val, UNESCAPE_OCTAL);
		if (*val != '/')
			return ks_why(req, why,
				      "cgroup %s: expected a path from the cgroup2 root (/system.slice) or a full path (/sys/fs/cgroup/...)",
				      val);
		if (strscpy(f->cgroup_path, val, sizeof(f->cgroup_path)) < 0)
			return ks_why(req, why, "cgroup %.32s...: longer than %zu bytes",
				      val, sizeof(f->cgroup_path) - 1);
		return 0;
	case KS_KW_CPU:
		f->has |= KS_FILTER_CPU;
		if (kstrtouint(val, 10, &f->cpu))
			return ks_why(req, why, "cpu %s: must be a CPU number",
				      val);
		return 0;
	case KS_KW_BITS:
		if (kstrtou8(val, 10, &req->bits) ||
		    req->bits > KSTATS_FRAC_BITS_MAX)
			return ks_why(req, why, "bits %s: must be 0..5", val);
		return 0;
	case KS_KW_START:
		return ks_parse_point(req, val, false, &hints[0], why);
	case KS_KW_END:
		return ks_parse_point(req, val, true, &hints[1], why);
	case KS_KW_METHOD:
		m = match_string(ks_method_names, ARRAY_SIZE(ks_method_names),
				 val);
		if (m <= KS_METHOD_DEFAULT)
			return ks_why(req, why,
				      "method %s: must be kretprobe, fprobe, kprobe or tracepoint",
				      val);
		req->given_method = m;
		return 0;
	case KS_KW_MATCH:
		return ks_parse_match(req, val, why);
	case KS_KW_IF:
		err = ks_value_parse_if(&req->filter, val, req->why,
					sizeof(req->why));
		if (err)
			*why = req->why;
		return err;
	case KS_KW_REPEAT:
		if (strcmp(val, "keep") && strcmp(val, "replace"))
			return ks_why(req, why, "repeat %s: must be replace or keep", val);
		req->match.keep = !strcmp(val, "keep");
		req->match.repeat_given = true;
		return 0;
	case KS_KW_GAP:
		if (strcmp(val, "on") && strcmp(val, "off"))
			return ks_why(req, why, "gap %s: must be on or off", val);
		req->gap_off = !strcmp(val, "off");
		return 0;
	case KS_KW_EXPIRE:
		if (*val == '+' || kstrtou64(val, 10, &req->match.expire_ns) ||
		    !req->match.expire_ns)
			return ks_why(req, why, "expire %s: must be a number of ns, 1 to %llu",
				      val, U64_MAX);
		return 0;
	case KS_KW_STATE:
		return ks_parse_choice(req, key, val, ks_offcpu_state_names,
				       KS_STATE_NR, &req->offcpu.state, why);
	case KS_KW_TASKS:
		return ks_parse_choice(req, key, val, ks_offcpu_tasks_names,
				       KS_TASKS_NR, &req->offcpu.tasks, why);
	case KS_KW_MIN:
		if (kstrtou64(val, 10, &req->offcpu.min_ns))
			return ks_why(req, why, "min %s: must be a number of ns", val);
		return 0;
	case KS_KW_MAX:
		if (kstrtou64(val, 10, &req->offcpu.max_ns) || !req->offcpu.max_ns)
			return ks_why(req, why, "max %s: must be a number of ns, 1 or more", val);
		return 0;
	default:
		if (kstrtouint(val, 10, &req->maxactive) || !req->maxactive ||
		    req->maxactive > KS_MAXACTIVE_MAX)
			return ks_why(req, why, "maxactive %s: must be 1..4096",
				      val);
		return 0;
	}
}

/* The '=' of a word spelled KEYWORD=VALUE, as in "gap=off"; else NULL. */
static const char *ks_keyword_eq(const char *word)
{
	const char *eq = strchr(word, '=');
	unsigned int i;

	for (i = 0; eq && i < ARRAY_SIZE(ks_keywords); i++)
		if (strlen(ks_keywords[i]) == eq - word &&
		    !strncmp(word, ks_keywords[i], eq - word))
			return eq;
	return NULL;
}

/*
 * "trace NAME offcpu": a wait off CPU, from the switch-out of a task that
 * sleeps to its switch-in, its parts in BLOCKED-NAME and RUNQ-NAME.
 */
static int ks_parse_offcpu(struct ks_trace_req *req, const char **why)
{
	enum ks_method hint;

	if (strlen(req->name) > KS_OFFCPU_NAME_MAX) {
		ks_why(req, why, "offcpu NAME %.16s... is longer than %zu bytes (%d with %s)",
		       req->name, KS_OFFCPU_NAME_MAX, KSTATS_NAME_MAX,
		       KS_BLOCKED_PREFIX);
		return -ENAMETOOLONG;
	}
	req->offcpu.on = true;
	/* What the listing shows; offcpu.c attaches to sched_waking too. */
	return ks_parse_point(req, "tracepoint:sched_switch", false, &hint,
			      why);
}

/* A method asked for by a prefix (kretprobe:F) agrees with the rest. */
static int ks_apply_hints(struct ks_trace_req *req,
			  const enum ks_method *hints, const char **why)
{
	int i;

	for (i = 0; i < 2; i++) {
		const char *word = i ? req->end_word : req->start_word;

		if (hints[i] == KS_METHOD_DEFAULT)
			continue;
		if (req->given_method != KS_METHOD_DEFAULT &&
		    req->given_method != hints[i])
			return ks_why(req, why,
				      "%s asks for method %s, but the line says method %s",
				      word, ks_method_names[hints[i]],
				      ks_method_names[req->given_method]);
		req->given_method = hints[i];
	}
	return 0;
}

#define KS_COMMANDS	"expected trace, remove, start, stop or reset"

/* "start NAME", "stop NAME", "reset NAME": what a write to the node does. */
static enum ks_control_op ks_node_op(const char *word)
{
	if (!strcmp(word, "start"))
		return KS_OP_START;
	if (!strcmp(word, "stop"))
		return KS_OP_STOP;
	if (!strcmp(word, "reset"))
		return KS_OP_RESET;
	return KS_OP_NONE;
}

/**
 * ks_parse_control() - parse one line written to _control
 * @line: the line, NUL-terminated; it is split in place
 * @req: filled in on success
 * @why: set to a one-line reason on failure, naming the offending word
 *
 * Words are separated by any blanks; a trailing newline is allowed.
 * Defaults: start is NAME, bits 3, no end, method chosen from the names.
 * Start and end may be spelled as bpftrace and perf do (kprobe:F,
 * kretprobe:F, fentry:F, kfunc:F, tracepoint:GROUP:EVENT, GROUP:EVENT,
 * syscall:NAME); bare names and GROUP:EVENT are resolved later, by
 * ks_resolve_points(), and ks_check_trace() runs again then.
 *
 * Context: any; pure function of @line.
 * Return: 0; -EINVAL for a bad or missing value, an unknown keyword or
 * too many words; -ENAMETOOLONG for a NAME over KS_TRACE_NAME_MAX bytes
 * or a symbol over KSYM_NAME_LEN - 1.
 */
int ks_parse_control(char *line, struct ks_trace_req *req, const char **why)
{
	enum ks_method hints[2] = { KS_METHOD_DEFAULT, KS_METHOD_DEFAULT };
	char *words[KS_CONTROL_MAX_WORDS + 1];
	unsigned int seen = 0;
	int n = 0, i, err, first;
	char *w;

	memset(req, 0, sizeof(*req));
	req->bits = KS_DEFAULT_BITS;
	req->keys.rows = KS_KEYS_DEFAULT;
	req->keys.slowest = KS_SLOWEST_DEFAULT;
	while ((w = strsep(&line, " \t\n\r\v\f"))) {
		if (!*w)
			continue;
		if (n == ARRAY_SIZE(words))
			break;
		words[n++] = w;
	}
	if (n && ks_node_op(words[0])) {
		req->op = ks_node_op(words[0]);
		if (n != 2)
			return ks_why(req, why, "%s takes one NAME", words[0]);
		if (strlen(words[1]) > KSTATS_NAME_MAX) {
			ks_why(req, why, "NAME %.16s... is longer than %d bytes",
			       words[1], KSTATS_NAME_MAX);
			return -ENAMETOOLONG;
		}
		strscpy(req->name, words[1], sizeof(req->name));
		return 0;
	}
	if (n == 1 && strcmp(words[0], "trace") && strcmp(words[0], "remove"))
		return ks_why(req, why, "'%s' is not a command: " KS_COMMANDS, words[0]);
	if (n < 2)
		return ks_why(req, why,
			      "expected trace NAME ..., remove NAME or start|stop|reset NAME");
	if (strlen(words[1]) > KS_TRACE_NAME_MAX) {
		ks_why(req, why, "NAME %.16s... is longer than 59 bytes (63 with GAP-)",
		       words[1]);
		return -ENAMETOOLONG;
	}
	strscpy(req->name, words[1], sizeof(req->name));
	if (!strcmp(words[0], "remove")) {
		req->op = KS_OP_REMOVE;
		if (n == 2)
			return 0;
		return ks_why(req, why, "'%s': remove takes only NAME", words[2]);
	}
	if (strcmp(words[0], "trace"))
		return ks_why(req, why, "'%s' is not a command: " KS_COMMANDS, words[0]);
	req->op = KS_OP_TRACE;
	if (!strncmp(req->name, KS_GAP_PREFIX, strlen(KS_GAP_PREFIX)))
		return ks_why(req, why, "names starting with %s are the gap nodes of traces",
			      KS_GAP_PREFIX);
	if (!strncmp(req->name, KS_KEY_PREFIX, strlen(KS_KEY_PREFIX)))
		return ks_why(req, why, "names starting with %s are the keyed nodes of traces",
			      KS_KEY_PREFIX);
	if (!strncmp(req->name, KS_BLOCKED_PREFIX, strlen(KS_BLOCKED_PREFIX)) ||
	    !strncmp(req->name, KS_RUNQ_PREFIX, strlen(KS_RUNQ_PREFIX)))
		return ks_why(req, why, "names starting with %s or %s are off-CPU traces' parts",
			      KS_BLOCKED_PREFIX, KS_RUNQ_PREFIX);
	if (n > KS_CONTROL_MAX_WORDS)
		return ks_why(req, why, "too many words (at most %d): '%s' and after",
			      (int)KS_CONTROL_MAX_WORDS, words[KS_CONTROL_MAX_WORDS]);
	first = 2;
	if (n > 2 && !strcmp(words[2], KS_KIND_OFFCPU)) {
		err = ks_parse_offcpu(req, why);
		if (err)
			return err;
		first = 3;
	}
	/* The kind is a word of its own, not a keyword: it follows NAME. */
	for (i = first; i < n; i += 2)
		if (!strcmp(words[i], KS_KIND_OFFCPU))
			return ks_why(req, why, req->offcpu.on ? "offcpu given twice" :
				      "offcpu comes right after NAME: trace NAME offcpu ...");
	/* Where a keyword is due: a value may hold '=' (comm a=b). */
	for (i = first; i < n; i += 2) {
		const char *eq = ks_keyword_eq(words[i]);

		if (eq)
			return ks_why(req, why,
				      "'%s': a keyword and its value are two words: '%.*s %s'",
				      words[i], (int)(eq - words[i]), words[i], eq + 1);
	}
	if ((n - first) % 2)
		return ks_odd_words(req, words, first, n, why);
	for (i = first; i < n; i += 2) {
		err = ks_parse_pair(req, words[i], words[i + 1], &seen, hints,
				    why);
		if (err)
			return err;
	}
	if (req->offcpu.max_ns && req->offcpu.min_ns > req->offcpu.max_ns)
		return ks_why(req, why, "min %llu is above max %llu: no wait could be a sample",
			      req->offcpu.min_ns, req->offcpu.max_ns);
	if ((seen & BIT(KS_KW_KEYS)) && !req->keys.n_parts)
		return ks_why(req, why, "keys %u bounds the rows of a key: give key",
			      req->keys.rows);
	if (!req->start[0] && (seen & BIT(KS_KW_END)))
		return ks_why(req, why,
			      "end %s without start: give start FUNC (alone, NAME is the function)",
			      req->end);
	if (!req->start[0] && !req->offcpu.on) {
		err = ks_parse_point(req, req->name, false, &hints[0], why);
		if (err)
			return err;
	}
	err = ks_apply_hints(req, hints, why);
	if (err)
		return err;
	return ks_check_trace(req, why);
}
