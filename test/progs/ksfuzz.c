// SPDX-License-Identifier: GPL-2.0
/*
 * ksfuzz: a grammar fuzzer for kstats' writable files, run in a guest.
 *
 *   ksfuzz -s SEED -k KVER -n LINES [-b BATCH] [-c CORPUS] [-f FUNCS]
 *          [-i FIRST] [-l LAST] [-p [-F] [-C CPUS]] [-S]
 *
 * Line I of a run is a pure function of SEED, KVER, I, FUNCS (names
 * sampled from the guest's available_filter_functions), the CPU count
 * and whether the kernel has fprobe: the same seed on the same kernel
 * writes the same lines (-i/-l replay a range, -p prints without writing;
 * -F and -C give it the fprobe and cpus of the run's "@@FUZZ" line).
 *
 * Each line comes from kstats' grammar (README, src/control.c,
 * src/values.c): a valid trace of every method, the same with one known
 * fault (whose errno the README gives), or mutated at random (dropped,
 * doubled, swapped words, boundary numbers, overlong words, any byte).
 * A write must be accepted (the trace then shows in the listing and its
 * node exists, and the fuzzer removes it by the name it gave) or refused
 * with one of the README's errnos (the fault's own, when it has one),
 * with at most one error line in dmesg, which names the command. Node
 * files get random bytes too: start, stop and reset in any case with one
 * newline are taken, anything else is EINVAL; _interval/ and KEY- files
 * take no writes (EINVAL).
 *
 * After every batch the invariants are compared with the start: the
 * kprobes list, enabled_functions, the debugfs tree, vmalloc areas of
 * [kstats] and of the kernel's return-probe pools, and with -S (a kernel
 * booted with slub_debug=U,kmalloc-*) the live slab objects allocated
 * from [kstats] or from the probe code kstats calls. Output: "@@FAIL ..."
 * lines with seed and line index, "@@FUZZ-DONE ..." at the end.
 *
 * Memory, exactly: /proc/vmallocinfo names each area's caller, so
 * kstats' areas (and the kernel's kretprobe/fprobe pools) are counted by
 * caller and size; stock kernels have SLUB_DEBUG, and slub_debug=U
 * makes /sys/kernel/debug/slab/CACHE/alloc_traces count the live
 * objects of every allocation site, [kstats] ones included. Not counted:
 * percpu memory (alloc_percpu; /proc/meminfo's Percpu keeps freed
 * pages populated, no per-module figure) and kmalloc()s over 8 KiB,
 * which go to the page allocator (only kmemleak, on the debug kernel,
 * sees those). Not -S under KASAN: its quarantine holds freed objects,
 * which alloc_traces still counts (seen: 293 freed _control lines);
 * there kmemleak's scan after rmmod (fuzz_test.py) is the check.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define D "/sys/kernel/debug/kstats"
/* -P /dev/kstats: the control path that kernel lockdown allows. */
static const char *CTL = D "/_control";
#define MAXLINE 4096
#define KEEP "fzkeep"	/* a trace kept all run: EEXIST, node writes */

static uint64_t seed;
static const char *kver = "?";
static unsigned int deep = 3;	/* -d: permille of mutations of valid lines */
static int ncpus = 2, ncpus_given, have_fprobe, print_only, slab_check;
static long fails, accepted, refused, nlines, node_writes;
static long acc_by[8];
static double t_refused, t_accepted, t_snap, t_nodes;
static char **funcs;
static int nfuncs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- deterministic PRNG (splitmix64) ---- */
static uint64_t rs;
static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static unsigned int rn(unsigned int n) { return n ? rnd() % n : 0; }
static int chance(int pct) { return rn(100) < (unsigned int)pct; }
#define PICK(a) ((a)[rn(sizeof(a) / sizeof((a)[0]))])

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/* ---- lines ---- */
struct line {
	char b[MAXLINE];
	size_t n;
};

static void lput(struct line *l, const char *s, size_t n)
{
	if (l->n + n >= MAXLINE)
		n = MAXLINE - 1 - l->n;
	memcpy(l->b + l->n, s, n);
	l->n += n;
	l->b[l->n] = 0;
}

static void esc(char *out, size_t sz, const char *s, size_t n)
{
	size_t o = 0, i;

	for (i = 0; i < n && o + 5 < sz; i++) {
		unsigned char c = s[i];

		if (c == '\\')
			o += sprintf(out + o, "\\\\");
		else if (c == '\n')
			o += sprintf(out + o, "\\n");
		else if (c == '\t')
			o += sprintf(out + o, "\\t");
		else if (c < 0x20 || c >= 0x7f)
			o += sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	if (i < n)
		o += sprintf(out + o, "...(%zu bytes)", n);
	out[o] = 0;
}

/* Words of a line as built, before separators are chosen. */
struct words {
	char w[48][600];
	int n;
};

static void wadd(struct words *w, const char *fmt, ...)
{
	va_list ap;

	if (w->n == 48)
		return;
	va_start(ap, fmt);
	vsnprintf(w->w[w->n++], sizeof(w->w[0]), fmt, ap);
	va_end(ap);
}

/* ---- the vocabulary ---- */
static const char *const keywords[] = {
	"bits", "start", "end", "method", "maxactive", "key", "keys", "slowest",
	"pid", "tgid", "comm", "cpu", "match", "expire", "repeat", "if", "gap",
	"state", "min", "max", "tasks",
};
static const char *const methods_fn[] = { "kretprobe", "fprobe" };
/* Functions of the test target: cheap to probe, rarely called. */
static const char *const fn_safe[] = {
	"kst_target_delay", "kst_target_null", "kst_target_recurse",
	"kst_target_sleep", "kst_ret_long", "kst_ret_int", "kst_target_twin",
	"kst_obj_begin", "kst_obj_end", "kst_wait_thread", "kst_wake_thread",
	"kst_path_1", "kst_path_2", "kst_target_migrate",
};
/* Kernel functions, spelled in every way kstats takes. */
static const char *const fn_kernel[] = {
	"vfs_read", "vfs_write", "kprobe:vfs_read", "do_sys_openat2",
	"syscall:getppid", "sys_getppid", "__x64_sys_getppid", "kfree",
	"kretprobe:kst_target_null", "kprobe:kst_target_delay", "mutex_lock",
	"kst_target_notrace",
};
static const char *const pairs_fn[][2] = {
	{ "kst_section_begin", "kst_section_end" },
	{ "kst_obj_begin", "kst_obj_end" },
	{ "kst_obj_begin", "kst_obj_end2" },
	{ "kprobe:kst_section_begin", "kprobe:kst_section_end" },
	{ "vfs_read", "vfs_write" },
	{ "kst_begin_site_1", "kst_end_site_2" },
};
static const char *const pairs_tp[][2] = {
	{ "signal:signal_generate", "signal:signal_deliver" },
	{ "tracepoint:signal:signal_generate", "signal_deliver" },
	{ "sched:sched_wakeup", "sched:sched_switch" },
	{ "sched_waking", "tracepoint:sched:sched_switch" },
	{ "sched:sched_wakeup_new", "sched_switch" },
	{ "workqueue:workqueue_queue_work", "workqueue:workqueue_execute_start" },
	{ "__tracepoint_sched_process_fork", "__tracepoint_sched_process_exec" },
	{ "tracepoint:sched_update_nr_running_tp", "sched_switch" },
	{ "irq:softirq_entry", "irq:softirq_exit" },
};
static const char *const patterns[] = {
	"kst_target_d*", "kst_wa?t_thread", "kst_path_[12]", "kst_obj_e*",
	"kst_target_delay,kst_target_null", "kst_target_null,kst_ret_int,kst_path_3",
};
static const char *const bogus_fn[] = {
	"kst_no_such_function", "nosuchthing", "vfs_read+4", "kprobe:vfs_read+4",
	"kst_target_delay,,kst_target_null", "sched:nosuch", "irq:sched_switch",
	"syscalls:sys_enter_getppid", "syscall:nosuch", "sys_enter_getppid",
	"tracepoint:irq:sched_wakeup", "kprobe:sched_wakeup", "mod:nosuch",
	"tracepoint:sched:sched_*", "kprobe:", "tracepoint:a:b:c", "[", "[]",
	"!vfs_read", "vfs_*,kst_target_null", "::", ":", "a:", ":b",
	"tracepoint:", "syscall:", "kst_[", "kst_target_[!a-z]*", "0abc*",
};
/* Refused as unprobeable (EINVAL): kprobes' blacklist, kstats, data. */
static const char *const fn_blacklisted[] = {
	"do_int3", "kstats_record", "ks_trace_add", "jiffies_64",
};
static const char *const key_plain[] = { "comm", "pid", "tgid", "cpu" };
static const char *const types[] = {
	"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
};
static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "&" };
static const char *const boundary[] = {
	"0", "-1", "1", "2147483647", "2147483648", "-2147483648", "4294967295",
	"4294967296", "9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "18446744073709551615", "18446744073709551616",
	"99999999999999999999999999999999", "0x10", "0X7f", "+5", "-0", "00", "1e3",
	"", "5x", "0x", "0x8000000000000000", "0xffffffffffffffff",
	"0x10000000000000000", "4096", "4097", "65", "64", "6", "5", "33", "32",
};

static const char *fn_any(void)
{
	if (nfuncs && chance(30))
		return funcs[rn(nfuncs)];
	return chance(70) ? PICK(fn_safe) : PICK(fn_kernel);
}

/* Words of is_report()'s patterns that a name's characters could spell. */
static const char *const report_stems[] = {
	"BUG", "WARNING", "Oops", "KASAN", "UBSAN", "kmemleak", "lockdep", NULL,
};

/* A name kstats takes: printable ASCII, no '/', not '_' first. */
static void gen_name(char *out, size_t sz, unsigned int idx, int maxlen)
{
	static const char cs[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-+=:@%,!~";
	int n = 1 + rn(chance(20) ? maxlen - 8 : 12), i;

	i = snprintf(out, sz, "f%u", idx % 100000);
	for (; i < n && i < (int)sz - 1; i++)
		out[i] = cs[rn(sizeof(cs) - 1)];
	out[i] = 0;
	if (!strcmp(out, "."))
		out[0] = 'f';
	/*
	 * kstats' messages put the name before a colon ("trace NAME: ..."),
	 * so a name ending in "BUG" reads as a kernel report to every log
	 * scanner, this one included: keep report words out of names.
	 */
	for (i = 0; report_stems[i]; i++) {
		char *at;

		while ((at = strstr(out, report_stems[i])))
			*at = 'x';
	}
}

/*
 * An "if" word: OPERAND[:TYPE]OP NUMBER, fitting its type. @must_type:
 * a tracepoint's argN, which BTF types as its TP_PROTO does (an int is
 * s32), takes a :TYPE, so that its number fits what it says.
 */
static void gen_if(char *out, size_t sz, int allow_ret, int must_type)
{
	int ret = allow_ret && chance(50), typed = must_type || chance(50);
	const char *t = typed ? PICK(types) : (ret ? "s64" : "u64");
	const char *op = PICK(ops);
	int bits = atoi(t + 1);
	int sgn = t[0] == 's' && strcmp(op, "&");
	char num[32];

	/*
	 * Without :TYPE the function's BTF types the operand, as s32, u8,
	 * u64 or whatever it was declared (an int's ret<-2^40 is EINVAL):
	 * a number that every such type holds.
	 */
	if (!typed)
		snprintf(num, sizeof(num), chance(30) ? "0x%x" : "%u", rn(128));
	else if (sgn && chance(50))
		snprintf(num, sizeof(num), "-%llu", (unsigned long long)
			 (rnd() % (1ULL << (bits - 1 < 63 ? bits - 1 : 62)) + 1));
	else if (chance(30))
		snprintf(num, sizeof(num), "0x%llx", (unsigned long long)
			 (rnd() & (bits == 64 ? (sgn ? 0x7fffffffffffffffULL : ~0ULL) :
				   ((1ULL << (bits - sgn)) - 1))));
	else
		snprintf(num, sizeof(num), "%llu", (unsigned long long)
			 (rnd() % (bits >= 63 ? 1000000ULL : (1ULL << (bits - sgn)))));
	{
		char a[4] = "";

		if (!ret)
			snprintf(a, sizeof(a), "%u", rn(5));
		snprintf(out, sz, "%s%s%s%s%s%s", ret ? "ret" : "arg", a,
			 typed ? ":" : "", typed ? t : "", op, num);
	}
}

/* "key ..." parts: stacks, task parts, one value part; what the kind allows. */
enum kind { K_FN, K_KPAIR, K_TPAIR, K_RUNQ, K_OFFCPU, K_MATCH, K_NKIND };
static const char *const kind_names[] = {
	"function", "kprobe-pair", "tracepoint-pair", "runq", "offcpu", "matched",
};

static void gen_key(char *out, size_t sz, enum kind k)
{
	char parts[12][32];
	int n = 0, want = 1 + rn(4), i, used = 0;

	for (i = 0; i < 12 && n < want; i++) {
		int c = rn(6), bit;
		char d[8] = "";

		if (chance(40))
			snprintf(d, sizeof(d), ":%u", 1 + rn(32));
		switch (c) {
		case 0:
			/* A run-queue wait refuses ustack (its task is off CPU). */
			if (k != K_RUNQ && chance(30)) {
				bit = 1024;
				snprintf(parts[n], 32, "ustack%s", d);
				break;
			}
			bit = 1;
			snprintf(parts[n], 32, "kstack%s", d);
			break;
		case 1:
			if (k != K_KPAIR && k != K_TPAIR && k != K_MATCH)
				continue;
			bit = 2;
			snprintf(parts[n], 32, "end-kstack%s", d);
			break;
		case 2: {
			int p = rn(4);

			if (k == K_MATCH && p < 3)
				continue;
			bit = 4 << p;
			snprintf(parts[n], 32, "%s", key_plain[p]);
			break;
		}
		case 3:
			if (k != K_OFFCPU)
				continue;
			/* waker-chain[:1..4] goes alone: no other waker part. */
			if (chance(20)) {
				if (used & (64 | 128 | 256 | 2048))
					continue;
				bit = 4096;
				snprintf(parts[n], 32, "waker-chain");
				if (chance(50))
					snprintf(parts[n] + 11, 21, ":%u", 1 + rn(4));
				break;
			}
			if (used & 4096)
				continue;
			bit = chance(25) ? 2048 : 64 << rn(3);
			snprintf(parts[n], 32, "%s", bit == 64 ? "waker-kstack" :
				 bit == 2048 ? "waker-ustack" :
				 bit == 128 ? "waker-comm" : "waker-pid");
			if (bit == 64 || bit == 2048)
				strncat(parts[n], d, 31 - strlen(parts[n]));
			break;
		default: {
			int ret = k == K_FN && chance(50);
			char a[4] = "", t[8] = "";
			const char *lg;

			if (k == K_OFFCPU || k == K_RUNQ)
				continue;
			bit = 512;
			if (!ret)
				snprintf(a, sizeof(a), "%u", rn(5));
			if (chance(50))
				snprintf(t, sizeof(t), ":%s", PICK(types));
			lg = chance(40) ? ":log2" : "";
			snprintf(parts[n], 32, "%s%s%s%s", ret ? "ret" : "arg", a, t, lg);
			break;
		}
		}
		if (used & bit)
			continue;
		used |= bit;
		n++;
	}
	if (!n)
		snprintf(parts[n++], 32, "cpu");
	out[0] = 0;
	for (i = 0; i < n; i++) {
		if (i)
			strncat(out, ",", sz - strlen(out) - 1);
		strncat(out, parts[i], sz - strlen(out) - 1);
	}
}

/* Options every kind takes: bits, maxactive, key/keys/slowest, filters. */
static void gen_common(struct words *w, enum kind k)
{
	char key[200];

	if (chance(30))
		wadd(w, "bits"), wadd(w, "%u", rn(6));
	if (chance(20))
		wadd(w, "maxactive"), wadd(w, "%u", chance(90) ? 1 + rn(128) : 1 + rn(4096));
	if (chance(35)) {
		gen_key(key, sizeof(key), k);
		wadd(w, "key"), wadd(w, "%s", key);
		if (chance(40))
			wadd(w, "keys"), wadd(w, "%u", chance(90) ? 1 + rn(300) : 1 + rn(4096));
	}
	if (chance(25))
		wadd(w, "slowest"), wadd(w, "%u", rn(65));
	if (chance(10))
		wadd(w, "pid"), wadd(w, "%u", 1 + rn(100000));
	if (chance(10))
		wadd(w, "tgid"), wadd(w, "%u", 1 + rn(100000));
	if (chance(10))
		wadd(w, "comm"), wadd(w, "%s", chance(50) ? "ksfuzz" : "a\\040b");
	if (chance(10))
		wadd(w, "cpu"), wadd(w, "%u", rn(ncpus));
}

/*
 * Names and fields through pointers (BTF) of starts the fuzzer picks:
 * words every reference kernel's BTF takes, for if and for key.
 */
static const struct {
	const char *start;	/* in the start word */
	const char *ifw[4], *keyw[4];
} named[] = {
	{ "vfs_read", { "count>=4096", "file->f_flags&0x800",
			"file->f_path.dentry->d_flags!=0", "pos>0" },
	  { "count:log2", "file->f_mode", "file->f_inode->i_mode", "buf" } },
	{ "signal_generate", { "sig==9", "task->pid>1", "info->si_signo<64", "group!=0" },
	  { "sig", "task->tgid", "result", "task->flags:log2" } },
	{ "workqueue_queue_work", { "req_cpu>=-1", "work->func!=0", "pwq>0",
				    "work->data.counter&1" },
	  { "work", "work->func", "req_cpu", "pwq" } },
	{ "sched_process_fork", { "child->pid>1", "parent->tgid!=0", "child>0",
				  "parent->flags&4" },
	  { "child->pid", "parent->pid:log2", "child", "parent->flags" } },
	{ "softirq_entry", { "vec_nr<10", "vec_nr!=3", "vec_nr:u8<10", "vec_nr>=0" },
	  { "vec_nr", "vec_nr:log2", "vec_nr:u16", "vec_nr" } },
};

static int wfind(struct words *w, const char *kw);

/* A name's if word, or a key by name, where the start has BTF's names. */
static void named_words(struct words *w, int nif)
{
	int s = wfind(w, "start");
	unsigned int i;

	if (s < 0)
		return;
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!strstr(w->w[s], named[i].start))
			continue;
		/* At most 4 if words; one value part in a key. */
		if (nif < 4 && chance(50))
			wadd(w, "if"), wadd(w, "%s", named[i].ifw[rn(4)]);
		if (wfind(w, "key") < 0 && chance(50))
			wadd(w, "key"), wadd(w, "%s", named[i].keyw[rn(4)]);
		return;
	}
}

/* A valid trace line, as words: a trace the kernel must accept. */
/*
 * The tour: the first TOUR lines of a run are valid traces of each kind
 * and method in turn, so that every run attaches each at least once.
 */
#define TOUR 9
static const enum kind tour[9] = {
	K_FN, K_FN, K_FN, K_KPAIR, K_TPAIR, K_RUNQ, K_OFFCPU, K_MATCH, K_MATCH,
};

static enum kind gen_valid(struct words *w, const char *name, int force)
{
	/* Function traces twice as often: they have three methods. */
	enum kind k = force >= 0 ? tour[force % 9] : rn(K_NKIND + 1) % K_NKIND;
	int tp_match = force >= 0 && force % 9 == 8;
	char v[64];
	int i, nif, tp = 0;
	const char *const *p;

	w->n = 0;
	wadd(w, "trace");
	wadd(w, "%s", name);
	switch (k) {
	case K_FN:
		wadd(w, "start");
		wadd(w, "%s", chance(8) ? PICK(patterns) : PICK(fn_safe));
		if (force >= 0 && force % 9 < 3) {
			/* default, kretprobe, fprobe (where the kernel has it) */
			if (force % 9)
				wadd(w, "method"), wadd(w, "%s", have_fprobe ? methods_fn[force % 9 - 1] : "kretprobe");
		} else if (chance(40)) {
			wadd(w, "method");
			wadd(w, "%s", have_fprobe ? PICK(methods_fn) : "kretprobe");
		}
		break;
	case K_MATCH:
		if (tp_match)
			goto tpair;
		/* fall through */
	case K_KPAIR:
		p = pairs_fn[rn(sizeof(pairs_fn) / sizeof(pairs_fn[0]))];
		wadd(w, "start"), wadd(w, "%s", p[0]);
		wadd(w, "end"), wadd(w, "%s", p[1]);
		if (chance(30))
			wadd(w, "method"), wadd(w, "kprobe");
		break;
	case K_TPAIR:
	case K_RUNQ:
tpair:
		tp = 1;
		/* The scheduler's wakeup..switch without match is run-queue latency. */
		do
			p = pairs_tp[rn(sizeof(pairs_tp) / sizeof(pairs_tp[0]))];
		while ((k == K_RUNQ) != (strstr(p[0], "wak") != NULL) ||
		       (tp_match && strstr(p[0], "wak")));
		wadd(w, "start"), wadd(w, "%s", p[0]);
		wadd(w, "end"), wadd(w, "%s", p[1]);
		if (chance(30))
			wadd(w, "method"), wadd(w, "tracepoint");
		if (k == K_TPAIR && chance(25) && force < 0)
			k = K_MATCH;	/* a matched tracepoint pair */
		break;
	case K_OFFCPU:
		wadd(w, "offcpu");
		if (chance(40))
			wadd(w, "state"), wadd(w, "%s", (const char *[]){ "any", "S", "D" }[rn(3)]);
		if (chance(30))
			wadd(w, "tasks"), wadd(w, "%s", (const char *[]){ "all", "user", "kernel" }[rn(3)]);
		if (chance(30))
			wadd(w, "min"), wadd(w, "%u", rn(1000000));
		if (chance(30))
			wadd(w, "max"), wadd(w, "%u", 1000000 + rn(1000000));
		break;
	default:
		break;
	}
	if (k == K_MATCH) {
		unsigned int a = rn(5), b = rn(5);

		wadd(w, "match");
		if (chance(50))
			wadd(w, "arg%u", a);
		else
			wadd(w, "arg%u,arg%u", a, b);
		if (chance(40))
			wadd(w, "expire"), wadd(w, "%llu", 1 + rnd() % 100000000000ULL);
		if (chance(40))
			wadd(w, "repeat"), wadd(w, "%s", chance(50) ? "keep" : "replace");
	}
	if (chance(15))
		wadd(w, "gap"), wadd(w, "%s", chance(50) ? "off" : "on");
	gen_common(w, k);
	nif = k == K_OFFCPU || k == K_RUNQ ? 0 : rn(5) * chance(30);
	for (i = 0; i < nif; i++) {
		gen_if(v, sizeof(v), k == K_FN, tp);
		wadd(w, "if"), wadd(w, "%s", v);
	}
	if (k == K_KPAIR || k == K_TPAIR || k == K_MATCH)
		named_words(w, nif);
	/* Shuffle the keyword pairs (after "trace NAME [offcpu]"): any order. */
	{
		int first = k == K_OFFCPU ? 3 : 2, np = (w->n - first) / 2, a;
		char t[2][600];

		for (a = np - 1; a > 0; a--) {
			int b = rn(a + 1);

			memcpy(t[0], w->w[first + 2 * a], 600);
			memcpy(t[1], w->w[first + 2 * a + 1], 600);
			memcpy(w->w[first + 2 * a], w->w[first + 2 * b], 600);
			memcpy(w->w[first + 2 * a + 1], w->w[first + 2 * b + 1], 600);
			memcpy(w->w[first + 2 * b], t[0], 600);
			memcpy(w->w[first + 2 * b + 1], t[1], 600);
		}
	}
	return k;
}

/* Index of keyword @kw's value in @w, or -1. */
static int wfind(struct words *w, const char *kw)
{
	int i;

	for (i = 2; i + 1 < w->n; i++)
		if (!strcmp(w->w[i], kw))
			return i + 1;
	return -1;
}

static void wdel(struct words *w, int i, int cnt)
{
	memmove(w->w[i], w->w[i + cnt], (w->n - i - cnt) * sizeof(w->w[0]));
	w->n -= cnt;
}

static void wins(struct words *w, int i, const char *s)
{
	char t[600];

	if (w->n == 48)
		return;
	snprintf(t, sizeof(t), "%.599s", s);
	memmove(w->w[i + 1], w->w[i], (w->n - i) * sizeof(w->w[0]));
	memcpy(w->w[i], t, sizeof(t));
	w->n++;
}

static void join(struct line *l, struct words *w, int odd_blanks)
{
	static const char *const seps[] = { " ", "  ", "\t", " \t ", "\r", "\v", "\f" };
	int i;

	l->n = 0;
	l->b[0] = 0;
	if (odd_blanks && chance(20))
		lput(l, " \t", 2);
	for (i = 0; i < w->n; i++) {
		const char *s = i ? (odd_blanks && chance(20) ? PICK(seps) : " ") : "";

		lput(l, s, strlen(s));
		lput(l, w->w[i], strlen(w->w[i]));
	}
	if (chance(50))
		lput(l, "\n", 1);
}

/* ---- expectations ---- */
#define XE_OK		(1 << 0)	/* must be accepted */
#define XE_ENOENT	(1 << 1)
#define XE_EINVAL	(1 << 2)
#define XE_EEXIST	(1 << 3)
#define XE_ENAMETOOLONG	(1 << 4)
#define XE_EOPNOTSUPP	(1 << 5)
#define XE_E2BIG		(1 << 6)
/* What the README documents for _control, or acceptance. */
#define XE_ANY		(XE_OK | XE_ENOENT | XE_EINVAL | XE_EEXIST | XE_ENAMETOOLONG | \
			 XE_EOPNOTSUPP | XE_E2BIG)

static int errbit(int e)
{
	switch (e) {
	case 0: return XE_OK;
	case ENOENT: return XE_ENOENT;
	case EINVAL: return XE_EINVAL;
	case EEXIST: return XE_EEXIST;
	case ENAMETOOLONG: return XE_ENAMETOOLONG;
	case EOPNOTSUPP: return XE_EOPNOTSUPP;
	case E2BIG: return XE_E2BIG;
	}
	return 0;
}

static void xdesc(char *o, size_t sz, int x)
{
	static const char *const n[] = { "ok", "ENOENT", "EINVAL", "EEXIST",
		"ENAMETOOLONG", "EOPNOTSUPP", "E2BIG" };
	int i;

	o[0] = 0;
	for (i = 0; i < 7; i++)
		if (x & (1 << i)) {
			if (o[0])
				strncat(o, "|", sz - strlen(o) - 1);
			strncat(o, n[i], sz - strlen(o) - 1);
		}
}

/* The faults whose errno the README states, each applied alone to a valid line. */
enum fault {
	F_LONGNAME, F_PREFIXNAME, F_BADNAME, F_UNKNOWN_KW, F_DUP_KW, F_NO_VALUE,
	F_BAD_NUMBER, F_BOGUS_FN, F_LONGSYM, F_NUL, F_NEWLINE, F_TOOLONG,
	F_BADCMD, F_REMOVE_UNKNOWN, F_EEXIST, F_FPROBE_NONE, F_BLACKLIST,
	F_CPU_BEYOND, F_BAD_KEY, F_BAD_IF, F_NFAULT
};
static const char *const fault_names[] = {
	"long-name", "reserved-prefix", "bad-name", "unknown-keyword",
	"keyword-twice", "no-value", "bad-number", "unknown-function",
	"long-symbol", "nul-byte", "inner-newline", "write-over-1280",
	"unknown-command", "remove-unknown", "name-exists", "no-fprobe",
	"unprobeable", "cpu-beyond", "bad-key", "bad-if",
};

/* Numeric keywords and values out of their README range. */
static const struct {
	const char *kw;
	const char *bad[8];
} bad_numbers[] = {
	{ "bits", { "6", "-1", "256", "4294967296", "18446744073709551616", "three", "0x3", "" } },
	{ "maxactive", { "0", "4097", "-1", "4294967296", "65536", "1k", "" } },
	{ "keys", { "0", "4097", "65536", "-1", "65537", "x", "" } },
	{ "slowest", { "65", "256", "-1", "1000", "x", "" } },
	{ "pid", { "0", "-1", "2147483648", "4294967296", "x", "1.5", "" } },
	{ "tgid", { "0", "-5", "9223372036854775808", "p", "" } },
	{ "expire", { "0", "-1", "+5", "18446744073709551616", "1e9", "" } },
	{ "cpu", { "-1", "4294967296", "x", "" } },
	{ "gap", { "maybe", "0", "1", "OFF", "" } },
};

struct gen {
	struct line l;
	int expect;		/* X_ bits */
	const char *what;	/* valid KIND, fault name, mutation, random */
	enum kind kind;
	int is_remove;
};

static void make_name(char *name, size_t sz, unsigned int idx, enum kind k)
{
	gen_name(name, sz, idx, k == K_OFFCPU ? 55 : 59);
}

static void apply_fault(struct gen *g, struct words *w, enum fault f, enum kind k,
			unsigned int idx)
{
	char buf[1400];
	int i, n;

	g->expect = XE_EINVAL;
	switch (f) {
	case F_LONGNAME:
		n = (k == K_OFFCPU ? 56 : 60) + rn(chance(80) ? 10 : 400);
		for (i = 0; i < n && i < 599; i++)
			buf[i] = 'a' + rn(26);
		buf[i] = 0;
		strcpy(w->w[1], buf);
		g->expect = XE_ENAMETOOLONG;
		break;
	case F_PREFIXNAME:
		snprintf(buf, 64, "%s%.20s", (const char *[]){ "GAP-", "KEY-", "BLOCKED-", "RUNQ-" }[rn(4)],
			 w->w[1]);
		strcpy(w->w[1], buf);
		break;
	case F_BADNAME: {
		/* '/' inside, '_' first, "." or "..", a byte kstats_new() refuses. */
		static const char *const bn[] = { "a/b", "_x", ".", "..", "/", "x/", "_control", "_interval" };

		if (chance(50)) {
			strcpy(w->w[1], PICK(bn));
		} else {
			unsigned char c;

			do
				c = 1 + rn(255);
			while ((c >= 0x21 && c <= 0x7e) || strchr(" \t\n\r\v\f", c));
			w->w[1][rn(strlen(w->w[1]))] = c;
		}
		break;
	}
	case F_UNKNOWN_KW:
		i = 2 + (k == K_OFFCPU) + 2 * rn((w->n - 2 - (k == K_OFFCPU)) / 2 + 1);
		wins(w, i, "red");
		wins(w, i, (const char *[]){ "color", "Bits", "START", "methods", "ifs", "offset", "keyz" }[rn(7)]);
		break;
	case F_DUP_KW: {
		/* A keyword the line already has, not "if". */
		int first = 2 + (k == K_OFFCPU);

		for (i = first; i + 1 < w->n; i += 2)
			if (strcmp(w->w[i], "if"))
				break;
		if (i + 1 >= w->n) {
			wadd(w, "bits"), wadd(w, "1"), wadd(w, "bits"), wadd(w, "2");
			break;
		}
		wadd(w, "%s", w->w[i]);
		wadd(w, "%s", w->w[i + 1]);
		break;
	}
	case F_NO_VALUE:
		wadd(w, "%s", PICK(keywords));
		break;
	case F_BAD_NUMBER: {
		int b = rn(sizeof(bad_numbers) / sizeof(bad_numbers[0])), nb = 0;

		while (bad_numbers[b].bad[nb][0])
			nb++;
		i = wfind(w, bad_numbers[b].kw);
		if (!strcmp(bad_numbers[b].kw, "keys") && wfind(w, "key") < 0)
			wadd(w, "key"), wadd(w, "cpu");
		if (!strcmp(bad_numbers[b].kw, "expire") && wfind(w, "match") < 0) {
			/* expire without match is EINVAL anyway. */
		}
		if (i < 0)
			wadd(w, "%s", bad_numbers[b].kw), wadd(w, "%s", bad_numbers[b].bad[rn(nb)]);
		else
			strcpy(w->w[i], bad_numbers[b].bad[rn(nb)]);
		break;
	}
	case F_BOGUS_FN:
		i = wfind(w, "start");
		snprintf(buf, 64, "kst_nosuch_%u", rn(1000));
		/* An off-CPU trace takes no start at all. */
		g->expect = k == K_OFFCPU ? XE_EINVAL : XE_ENOENT;
		if (k == K_TPAIR || k == K_RUNQ)
			snprintf(buf, 64, "%s:nosuch_%u", chance(50) ? "sched" : "tracepoint:sched", rn(1000));
		if (i < 0)
			wins(w, 2, buf), wins(w, 2, "start");
		else
			strcpy(w->w[i], buf);
		break;
	case F_LONGSYM:
		n = 512 + rn(300);
		for (i = 0; i < n && i < 599; i++)
			buf[i] = 'a' + rn(26);
		buf[i] = 0;
		i = wfind(w, "start");
		if (i < 0)
			wins(w, 2, buf), wins(w, 2, "start");
		else
			strcpy(w->w[i], buf);
		g->expect = k == K_OFFCPU ? XE_EINVAL : XE_ENAMETOOLONG;
		break;
	case F_NUL:
	case F_NEWLINE:
	case F_TOOLONG:
		break;	/* on the joined line, below */
	case F_BADCMD:
		strcpy(w->w[0], (const char *[]){ "frob", "Trace", "TRACE", "trac", "traces", "tracee", "rm", "add" }[rn(8)]);
		break;
	case F_REMOVE_UNKNOWN:
		w->n = 2;
		strcpy(w->w[0], "remove");
		if (chance(10)) {
			wadd(w, "now");	/* remove takes only NAME */
			break;
		}
		g->expect = strlen(w->w[1]) > 59 ? XE_ENAMETOOLONG : XE_ENOENT;
		break;
	case F_EEXIST:
		strcpy(w->w[1], KEEP);
		g->expect = XE_EEXIST;
		break;
	case F_FPROBE_NONE:
		/*
		 * fprobe where the kernel has none: EOPNOTSUPP; or the function no
		 * ftrace site, which kstats refuses whatever the method: EINVAL.
		 */
		w->n = 2;
		wadd(w, "start");
		wadd(w, "%s", have_fprobe ? "kst_target_notrace" : PICK(fn_safe));
		if (chance(50))
			wadd(w, "method"), wadd(w, "fprobe");
		else
			strcpy(w->w[3], have_fprobe ? "fentry:kst_target_notrace" : "kfunc:kst_target_null");
		g->expect = have_fprobe ? XE_EINVAL : XE_EOPNOTSUPP;
		break;
	case F_BLACKLIST:
		w->n = 2;
		wadd(w, "start"), wadd(w, "%s", PICK(fn_blacklisted));
		break;
	case F_CPU_BEYOND:
		i = wfind(w, "cpu");
		snprintf(buf, 32, "%u", ncpus + rn(chance(50) ? 8 : 100000));
		if (i < 0)
			wadd(w, "cpu"), wadd(w, "%s", buf);
		else
			strcpy(w->w[i], buf);
		break;
	case F_BAD_KEY: {
		static const char *const bk[] = {
			"kstack:0", "kstack:33", "comm:3", "ret:s7", "arg5", "arg0:log3",
			"kstack,kstack", "foo", "", ",", "comm,,pid", "ret:s32:log2:log2",
			"arg1:u8:s8", "kstack:-1", "kstack:4294967297", "arg0,arg1",
			"pid:log2", "kstack:", "retval", "file->f_nosuch", "comm->x",
			"file->f_path", "file->a->b->c", "file.", "file->", "a..b",
		};
		i = wfind(w, "key");
		if (i < 0)
			wadd(w, "key"), wadd(w, "%s", PICK(bk));
		else
			strcpy(w->w[i], PICK(bk));
		break;
	}
	case F_BAD_IF: {
		static const char *const bi[] = {
			"ret", "ret<", "<0", "arg5<1", "arg0<-1", "ret:s8>128", "ret:s8<-129",
			"arg0:u8==256", "arg0=1", "arg0=>1", "arg0<+1", "arg0:x<1",
			"arg0:s0<1", "arg0:s08<1", "ret<0x", "arg0<0x10000000000000000",
			"arg0<18446744073709551616", "rett<0", "arg00<1", "arg0<<1",
			/* Names: none is a parameter of a start the fuzzer picks. */
			"nosuchparam>1", "count:s8>128", "file->f_nosuch&1", "9count<1",
			"_<0", "file->f_flags->x<1", "file->f_path<1", "file.f_flags<1",
			"file->a->b->c<1", "file->>1", "->f_flags<1", "file-->f_flags<1",
		};
		if (k == K_OFFCPU || k == K_RUNQ || chance(30)) {
			wadd(w, "if"), wadd(w, "%s", PICK(bi));
		} else {
			/* A fifth if word. */
			for (i = 0; i < 5; i++)
				wadd(w, "if"), wadd(w, "arg%u!=%u", rn(5), rn(9));
		}
		break;
	}
	default:
		break;
	}
	(void)idx;
}

/* Random mutations: the result may be anything the README documents. */
static void mutate(struct gen *g, struct words *w)
{
	int m = 1 + rn(3), j;

	for (j = 0; j < m && w->n > 0; j++) {
		int i = rn(w->n), k2 = rn(w->n);
		char t[600];

		switch (rn(10)) {
		case 0:
			if (w->n > 1)
				wdel(w, i, 1);
			break;
		case 1:
			wins(w, i, w->w[i]);
			break;
		case 2:
			memcpy(t, w->w[i], 600);
			memcpy(w->w[i], w->w[k2], 600);
			memcpy(w->w[k2], t, 600);
			break;
		case 3:
			strcpy(w->w[i], PICK(boundary));
			break;
		case 4: {
			/* An overlong word: a page and more. */
			int n = chance(50) ? 599 : 60 + rn(540), a;

			for (a = 0; a < n; a++)
				t[a] = 'a' + rn(26);
			t[n] = 0;
			strcpy(w->w[i], t);
			break;
		}
		case 5: {
			/* Any byte, somewhere in a word. */
			size_t len = strlen(w->w[i]);

			w->w[i][len ? rn(len) : 0] = 1 + rn(255);
			break;
		}
		case 6:
			strcpy(w->w[i], PICK(keywords));
			break;
		case 7:
			strcpy(w->w[i], chance(50) ? PICK(bogus_fn) : fn_any());
			break;
		case 8:
			wins(w, i, (const char *[]){ "trace", "remove", "offcpu", "if", "key", "match" }[rn(6)]);
			break;
		default:
			strcpy(w->w[i], (const char *[]){ "kstack", "end-kstack", "waker-kstack:3",
				"ret:s32", "arg2:log2", "any", "S", "D", "user", "kernel", "keep",
				"replace", "arg0,arg4", "tracepoint", "kprobe", "fprobe", "kretprobe",
				"default", KEEP, "GAP-" KEEP, "KEY-" KEEP, "ustack:2",
				"waker-ustack" }[rn(23)]);
			break;
		}
	}
	g->expect = XE_ANY;
}

/* Raw bytes at the line level: NUL, CR, tabs, truncation, byte flips. */
static void raw_mutate(struct line *l)
{
	int m = 1 + rn(3);

	while (m--) {
		size_t p = l->n ? rn(l->n) : 0;

		switch (rn(5)) {
		case 0:
			if (l->n)
				l->b[p] = rn(256);
			break;
		case 1:
			l->n = p;	/* truncated */
			break;
		case 2:
			if (l->n + 1 < MAXLINE) {
				memmove(l->b + p + 1, l->b + p, l->n - p);
				l->b[p] = (char[]){ 0, '\r', '\t', '\n', '\v', '\f', 0x7f, (char)0xff }[rn(8)];
				l->n++;
			}
			break;
		case 3:
			while (l->n < MAXLINE - 1 && rn(4))
				l->b[l->n++] = rn(256);
			break;
		default:
			if (l->n)
				l->b[p] ^= 1 << rn(8);
			break;
		}
	}
}

/* Line @idx of the run. */
static void generate(unsigned int idx, struct gen *g)
{
	static struct words w;
	char name[80];
	unsigned int r;

	rs = seed ^ fnv(kver) ^ ((uint64_t)idx * 0xd1342543de82ef95ULL);
	rnd();
	memset(g, 0, sizeof(*g));
	/*
	 * Shares, per 10,000 lines. A refusal by the parser costs about 0.2
	 * ms in a TCG guest; an accepted trace about 0.2 s (probes attached,
	 * then removed, each waiting for grace periods), and so do the
	 * faults found only while attaching (a bad name, no fprobe): they
	 * are kept rare to fit the CI's time.
	 */
	r = idx < TOUR ? 300 : rn(10000);
	if (r < 300) {
		/* Fully random bytes. */
		size_t n = rn(chance(10) ? 1400 : 80), i;

		for (i = 0; i < n; i++)
			g->l.b[i] = rn(256);
		g->l.n = n;
		if (!n)
			g->l.b[g->l.n++] = 'x';
		g->expect = XE_ANY;
		g->what = "random-bytes";
		return;
	}
	g->kind = K_FN;
	make_name(name, sizeof(name), idx, K_FN);
	g->kind = gen_valid(&w, name, idx < TOUR ? (int)idx : -1);
	if (g->kind == K_OFFCPU && strlen(name) > 55)
		name[55] = 0, strcpy(w.w[1], name);
	if (r < 306) {
		/* Valid, every kind. */
		join(&g->l, &w, 1);
		g->expect = XE_OK;
		g->what = kind_names[g->kind];
		if (g->kind == K_FN && wfind(&w, "start") > 0 && strchr(w.w[wfind(&w, "start")], '*'))
			g->expect |= XE_ENOENT;	/* a pattern: its functions may all be refused */
		return;
	}
	if (r < 5400) {
		/* Faults found only after a symbol is resolved, or at attach: rare. */
		static const enum fault dear[] = {
			F_FPROBE_NONE, F_BADNAME, F_BADNAME, F_BLACKLIST, F_EEXIST,
			F_CPU_BEYOND,
		};
		static const enum fault cheap[] = {
			F_LONGNAME, F_PREFIXNAME, F_UNKNOWN_KW, F_DUP_KW, F_NO_VALUE,
			F_BAD_NUMBER, F_BOGUS_FN, F_LONGSYM, F_NUL, F_NEWLINE, F_TOOLONG,
			F_BADCMD, F_REMOVE_UNKNOWN, F_BAD_KEY, F_BAD_IF,
		};
		enum fault f = r < 326 ? dear[(r - 306) * 6 / 20] : PICK(cheap);

		apply_fault(g, &w, f, g->kind, idx);
		join(&g->l, &w, 1);
		g->what = fault_names[f];
		if (f == F_NUL || f == F_NEWLINE) {
			size_t p = 1 + rn(g->l.n > 2 ? g->l.n - 2 : 1);

			if (g->l.b[g->l.n - 1] == '\n' && p >= g->l.n - 1)
				p = g->l.n - 2;
			memmove(g->l.b + p + 1, g->l.b + p, g->l.n - p);
			g->l.b[p] = f == F_NUL ? 0 : '\n';
			g->l.n++;
			g->expect = XE_EINVAL;
		} else if (f == F_TOOLONG) {
			while (g->l.n <= 1280)
				lput(&g->l, " bits 1", 7);
			g->expect = XE_EINVAL;
		} else if (g->l.n > 1280) {
			g->expect = XE_EINVAL;
		}
		return;
	}
	/*
	 * Mutations start, but for 0.3 %, from a line with a fault the parser
	 * finds (cheap): a mutated valid line that parses costs as much as
	 * an accepted one.
	 */
	if (rn(1000) >= deep || r >= 8000) {
		static const enum fault cheap[] = {
			F_LONGNAME, F_PREFIXNAME, F_UNKNOWN_KW, F_DUP_KW, F_NO_VALUE,
			F_BAD_NUMBER, F_LONGSYM, F_BADCMD, F_BAD_KEY, F_BAD_IF,
		};

		apply_fault(g, &w, PICK(cheap), g->kind, idx);
	}
	if (r < 8000) {
		mutate(g, &w);
		join(&g->l, &w, 1);
		g->what = "word-mutation";
	} else {
		join(&g->l, &w, 1);
		raw_mutate(&g->l);
		g->expect = XE_ANY;
		g->what = "byte-mutation";
	}
	if (!g->l.n)
		g->l.b[g->l.n++] = ' ';
}

/* ---- the kernel side ---- */
static int kmsg = -1;

static int is_report(const char *m)
{
	static const char *const pat[] = {
		"BUG:", "WARNING:", "Oops", "Call Trace", "KASAN", "kmemleak",
		"possible recursive locking", "circular locking", "lockdep",
		"sleeping function called from invalid context", "Kernel panic",
		"general protection fault", "UBSAN", "list_add corruption",
		"list_del corruption",
	};
	unsigned int i;

	for (i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (strstr(m, pat[i]))
			return 1;
	return 0;
}

/* kmsg escapes bytes as \xNN: undo it. */
static void unesc(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
		    isxdigit((unsigned char)s[3])) {
			char h[3] = { s[2], s[3], 0 };

			*o++ = strtol(h, NULL, 16);
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
}

struct msgs {
	int errs;		/* error lines (level <= 3), not "callbacks suppressed" */
	char first[512];	/* the first of them */
	int report;
	char rep[512];
};

static void drain(struct msgs *ms)
{
	char rec[8192];
	ssize_t n;

	memset(ms, 0, sizeof(*ms));
	for (;;) {
		char *semi, *nl;
		int pri;

		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: keep reading */
		if (n <= 0)
			break;
		rec[n] = 0;
		pri = atoi(rec) & 7;
		semi = strchr(rec, ';');
		if (!semi)
			continue;
		semi++;
		nl = strchr(semi, '\n');
		if (nl)
			*nl = 0;
		unesc(semi);
		if (is_report(semi) && !ms->report) {
			ms->report = 1;
			snprintf(ms->rep, sizeof(ms->rep), "%s", semi);
		}
		if (pri <= 3 && !strstr(semi, "callbacks suppressed")) {
			if (!ms->errs++)
				snprintf(ms->first, sizeof(ms->first), "%s", semi);
		}
	}
}

static void fail(unsigned int idx, const char *what, const struct line *l, const char *fmt, ...)
{
	char e[700], m[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	esc(e, sizeof(e), l ? l->b : "", l ? l->n : 0);
	printf("@@FAIL seed=%llu kernel=%s line=%u (%s) %s :: %s\n",
	       (unsigned long long)seed, kver, idx, what, m, e);
	fflush(stdout);
	fails++;
}

static int wr(const char *path, const char *b, size_t n)
{
	int fd = open(path, O_WRONLY), e = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, b, n);
	if (r < 0)
		e = -errno;
	else if ((size_t)r != n)
		e = -EIO;
	close(fd);
	return e;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	size_t cap = 65536, n = 0;
	char *b;
	ssize_t r;

	if (fd < 0)
		return NULL;
	b = malloc(cap + 1);
	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += r;
		if (n == cap)
			b = realloc(b, (cap *= 2) + 1);
	}
	close(fd);
	b[n] = 0;
	if (len)
		*len = n;
	return b;
}

static int ctl(const char *s)
{
	return wr(CTL, s, strlen(s));
}

/* Is NAME a trace in _control's listing? */
static int listed(const char *name)
{
	char *b = slurp(CTL, NULL), *p;
	size_t nl = strlen(name);
	int found = 0;

	for (p = b; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (!strncmp(p, name, nl) && p[nl] == ' ')
			found = 1;
	free(b);
	return found;
}

/* The kernel's words: split on blanks as the parser does. */
static int kwords(const struct line *l, char w[3][700])
{
	int n = 0;
	size_t i = 0;

	while (n < 3) {
		size_t s;

		while (i < l->n && strchr(" \t\n\r\v\f", l->b[i]) && l->b[i])
			i++;
		if (i >= l->n || !l->b[i])
			break;
		s = i;
		while (i < l->n && l->b[i] && !strchr(" \t\n\r\v\f", l->b[i]))
			i++;
		snprintf(w[n++], 700, "%.*s", (int)(i - s), l->b + s);
	}
	return n;
}

/* ---- invariants ---- */
struct snap {
	char *kprobes, *ftrace, *tree, *vmalloc, *slab, *listing;
};

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort @b's lines, after @keep may rewrite each (return 0 to drop it). */
static char *sorted(char *b, int (*keep)(char *line))
{
	char **v = NULL, *p, *out;
	size_t n = 0, cap = 0, len = 0, i;

	for (p = strtok(b ? b : (char[]){ 0 }, "\n"); p; p = strtok(NULL, "\n")) {
		if (keep && !keep(p))
			continue;
		if (n == cap)
			v = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));
		v[n++] = p;
		len += strlen(p) + 1;
	}
	qsort(v, n, sizeof(*v), cmpstr);
	out = calloc(1, len + 1);
	for (i = 0; i < n; i++)
		strcat(strcat(out, v[i]), "\n");
	free(v);
	return out;
}

/* enabled_functions: the function and its count of users; trampolines move. */
static int keep_ftrace(char *l)
{
	char *sp = strchr(l, ' '), *c;

	if (!sp)
		return 1;
	c = strchr(sp, ')');
	if (c)
		c[1] = 0;
	return 1;
}

/* vmallocinfo: "size caller" of kstats' areas and of return-probe pools. */
static int keep_vmalloc(char *l)
{
	char size[32], caller[256];

	if (sscanf(l, "%*s %31s %255s", size, caller) != 2)
		return 0;
	if (!strstr(l, "[kstats]") && !strstr(caller, "rethook") &&
	    !strstr(caller, "objpool") && !strstr(caller, "fprobe"))
		return 0;
	*strchrnul(caller, '+') = 0;
	sprintf(l, "%s %s%s", size, caller, strstr(l, "[kstats]") ? " [kstats]" : "");
	return 1;
}

/* The listing's names: only the kept trace stays between batches. */
static int keep_name(char *l)
{
	*strchrnul(l, ' ') = 0;
	return 1;
}

static void tree_walk(const char *dir, char **out, size_t *len)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[1024];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &st))
			continue;
		*out = realloc(*out, *len + strlen(p) + 16);
		*len += sprintf(*out + *len, "%s %o\n", p, st.st_mode & 07777);
		if (S_ISDIR(st.st_mode))
			tree_walk(p, out, len);
	}
	closedir(d);
}

/*
 * Live slab objects by allocation site (slub_debug=U): those of kstats
 * and of the kernel's probe code that kstats calls. The count per site.
 */
static int slab_site(const char *s)
{
	static const char *const kernel[] = {
		"kprobe", "fprobe", "rethook", "objpool", "tracepoint", "allocate_probes",
		"ftrace_hash", "alloc_ftrace", "add_hash_entry", "ftrace_ops",
	};
	unsigned int i;

	if (strstr(s, "[kstats]"))
		return 1;
	for (i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if (strstr(s, kernel[i]))
			return 1;
	return 0;
}

static char *slab_snap(void)
{
	DIR *d = opendir("/sys/kernel/debug/slab");
	struct dirent *e;
	char *out = NULL, *res;
	size_t len = 0;

	if (!d)
		return strdup("no /sys/kernel/debug/slab\n");
	while ((e = readdir(d))) {
		char p[512], *b, *l;

		if (strncmp(e->d_name, "kmalloc", 7))
			continue;
		snprintf(p, sizeof(p), "/sys/kernel/debug/slab/%s/alloc_traces", e->d_name);
		b = slurp(p, NULL);
		if (!b)
			continue;
		for (l = strtok(b, "\n"); l; l = strtok(NULL, "\n")) {
			long cnt;
			char site[256];

			if (sscanf(l, " %ld %255s", &cnt, site) != 2 || !slab_site(l))
				continue;
			*strchrnul(site, '+') = 0;
			out = realloc(out, len + 512);
			len += sprintf(out + len, "%s %s%s %ld\n", e->d_name, site,
				       strstr(l, "[kstats]") ? " [kstats]" : "", cnt);
		}
		free(b);
	}
	closedir(d);
	/* One line per cache and site, the counts summed. */
	res = sorted(out, NULL);
	free(out);
	{
		char *o = calloc(1, strlen(res) + 1), *l, prev[300] = "";
		long sum = 0;
		size_t ol = 0;

		for (l = strtok(res, "\n"); ; l = strtok(NULL, "\n")) {
			char key[300];
			long c = 0;
			char *sp = l ? strrchr(l, ' ') : NULL;

			if (l && sp) {
				snprintf(key, sizeof(key), "%.*s", (int)(sp - l), l);
				c = atol(sp + 1);
			}
			if (!l || strcmp(key, prev)) {
				if (prev[0])
					ol += sprintf(o + ol, "%s %ld\n", prev, sum);
				if (!l)
					break;
				snprintf(prev, sizeof(prev), "%s", key);
				sum = 0;
			}
			sum += c;
		}
		free(res);
		return o;
	}
}

static void take(struct snap *s, int with_slab)
{
	size_t len = 0;
	char *t = NULL;
	double t0 = now();

	s->kprobes = sorted(slurp("/sys/kernel/debug/kprobes/list", NULL), NULL);
	s->ftrace = sorted(slurp("/sys/kernel/tracing/enabled_functions", NULL), keep_ftrace);
	tree_walk(D, &t, &len);
	s->tree = sorted(t, NULL);
	s->vmalloc = sorted(slurp("/proc/vmallocinfo", NULL), keep_vmalloc);
	s->slab = slab_check && with_slab ? slab_snap() : NULL;
	s->listing = sorted(slurp(CTL, NULL), keep_name);
	t_snap += now() - t0;
}

static void drop(struct snap *s)
{
	free(s->kprobes), free(s->ftrace), free(s->tree);
	free(s->vmalloc), free(s->slab), free(s->listing);
}

/* Print the first differing line of two snapshots' part. */
static int differs(const char *part, const char *a, const char *b, char *why, size_t sz)
{
	const char *p = a, *q = b;

	if (!strcmp(a, b))
		return 0;
	while (*p && *p == *q)
		p++, q++;
	while (p > a && p[-1] != '\n')
		p--, q--;
	snprintf(why, sz, "%s differs: was '%.*s' now '%.*s'", part,
		 (int)strcspn(p, "\n"), p, (int)strcspn(q, "\n"), q);
	return 1;
}

/* Only kstats' own lines of a slab snapshot. */
static char *own(const char *s)
{
	char *o = calloc(1, strlen(s) + 1), *d = strdup(s), *l;

	for (l = strtok(d, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, "[kstats]"))
			strcat(strcat(o, l), "\n");
	free(d);
	return o;
}

/*
 * The kernel's probe objects count only against the start, when none of
 * kstats' probes is left: while the kept trace's kretprobe stays, the
 * kernel may keep an aggregate kprobe (alloc_aggr_kprobe) that another
 * probe on the same function made, and frees it with the last one.
 */
/*
 * A leak is an allocation site with more live objects than at the start.
 * Fewer is no leak: an object the start counted may be freed later, by a
 * lazy RCU callback (seen on 7.2 RT: register_fprobe_ips' object of the
 * fprobe test, freed only once the kept trace's removal waited for RCU).
 */
static int grew(const char *part, const char *a, const char *b, char *why, size_t sz)
{
	char *d = strdup(b), *l;
	int bad = 0;

	for (l = strtok(d, "\n"); l && !bad; l = strtok(NULL, "\n")) {
		char *sp = strrchr(l, ' '), key[400];
		const char *p;
		long was = 0;

		if (!sp)
			continue;
		snprintf(key, sizeof(key), "%.*s ", (int)(sp - l + 1) - 1, l);
		for (p = a; (p = strstr(p, key)); p++)
			if (p == a || p[-1] == '\n') {
				was = atol(p + strlen(key));
				break;
			}
		if (atol(sp + 1) > was) {
			snprintf(why, sz, "%s grew: %s, %ld at the start", part, l, was);
			bad = 1;
		}
	}
	free(d);
	return bad;
}

static int slab_differs(struct snap *a, struct snap *b, int strict, char *why, size_t sz)
{
	char *x, *y;
	int d;

	if (!a->slab || !b->slab)
		return 0;
	if (strict)
		return grew("slab objects", a->slab, b->slab, why, sz);
	x = own(a->slab);
	y = own(b->slab);
	d = grew("slab objects of [kstats]", x, y, why, sz);
	free(x);
	free(y);
	return d;
}

static int compare(struct snap *a, struct snap *b, int strict, char *why, size_t sz)
{
	return differs("kprobes list", a->kprobes, b->kprobes, why, sz) ||
	       differs("enabled_functions", a->ftrace, b->ftrace, why, sz) ||
	       differs("debugfs tree", a->tree, b->tree, why, sz) ||
	       differs("vmalloc areas", a->vmalloc, b->vmalloc, why, sz) ||
	       slab_differs(a, b, strict, why, sz) ||
	       differs("_control listing", a->listing, b->listing, why, sz);
}

/*
 * Frees may wait for RCU: compare again for up to about 5 s. Slab
 * objects (slub_debug=U's alloc_traces walk every kmalloc cache, about
 * 1 s in a TCG guest) are counted at the start and at the end: a leak
 * stays.
 */
static void check_invariants(struct snap *base, unsigned int idx, const char *when,
			     int with_slab, int strict)
{
	char why[1200];
	int tries;

	for (tries = 0; tries < 50; tries++) {
		struct snap now;
		int d;

		take(&now, with_slab);
		d = compare(base, &now, strict, why, sizeof(why));
		drop(&now);
		if (!d)
			return;
		usleep(100000);
	}
	fail(idx, when, NULL, "invariant: %s", why);
}

/*
 * A start that stays: frees of a probe just removed (the fprobe test,
 * the kept trace's own setup) may be deferred past RCU grace periods,
 * and a baseline taken before them would count them as kstats' (seen on
 * 7.2 RT: register_fprobe_ips' object freed after the first snapshot).
 */
static void settle(struct snap *s)
{
	char why[1200];
	int i;

	take(s, 1);
	for (i = 0; i < 20; i++) {
		struct snap again;
		int d;

		usleep(200000);
		take(&again, 1);
		d = compare(s, &again, 1, why, sizeof(why));
		drop(s);
		*s = again;
		if (!d)
			return;
	}
}

/* ---- node files ---- */
/* README: start, stop, reset in any case, with one trailing newline. */
static int node_cmd_ok(const char *b, size_t n)
{
	static const char *const w[] = { "start", "stop", "reset" };
	unsigned int i;

	if (n && b[n - 1] == '\n')
		n--;
	for (i = 0; i < 3; i++)
		if (n == strlen(w[i]) && !strncasecmp(b, w[i], n))
			return 1;
	return 0;
}

/*
 * Under lockdown node writes are refused: their commands go through the
 * control path as "WORD NAME". A node of a histogram takes the three
 * words as written; KEY-NAME and other words are refused.
 */
static void node_fuzz_ctl(unsigned int idx, const char *dir)
{
	static const char *const words[] = { "start", "stop", "reset", "StOp", "RESET", "Start" };
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		unsigned int wi = rn(6);
		struct line l;
		struct msgs ms;
		int err, want;

		if (e->d_name[0] == '.' || e->d_type == DT_DIR || !strcmp(e->d_name, "_control"))
			continue;
		l.n = snprintf(l.b, sizeof(l.b), "%s %s%s", words[wi], e->d_name, chance(50) ? "\n" : "");
		want = wi >= 3 ? -EINVAL : strncmp(e->d_name, "KEY-", 4) ? 0 : -ENOENT;
		err = wr(CTL, l.b, l.n);
		node_writes++;
		drain(&ms);
		if (err != want)
			fail(idx, CTL, &l, "node command gave %s, the README says %s",
			     err ? strerror(-err) : "success", want ? strerror(-want) : "success");
		if (ms.report)
			fail(idx, CTL, &l, "kernel report: %s", ms.rep);
		if (ms.errs > (want ? 1 : 0))
			fail(idx, CTL, &l, "%d error lines in dmesg, first: %s", ms.errs, ms.first);
	}
	closedir(d);
}

static void node_fuzz(unsigned int idx, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[600], b[64];
		struct line l;
		size_t n, i;
		int err, want, interval = strstr(dir, "_interval") != NULL;
		struct msgs ms;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "_control"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			node_fuzz(idx, p);
			continue;
		}
		/* A word, a cased word, or bytes of any value. */
		switch (rn(4)) {
		case 0:
			n = sprintf(b, "%s%s", (const char *[]){ "start", "stop", "reset", "StOp", "RESET", "Start" }[rn(6)],
				    (const char *[]){ "", "\n", "\n\n", " ", "\r\n", "x" }[rn(6)]);
			break;
		default:
			n = rn(chance(10) ? 40 : 8) + 1;
			for (i = 0; i < n; i++)
				b[i] = chance(60) ? "startopresSTOP\n"[rn(15)] : rn(256);
		}
		want = !interval && strncmp(e->d_name, "KEY-", 4) && node_cmd_ok(b, n);
		err = wr(p, b, n);
		node_writes++;
		drain(&ms);
		memcpy(l.b, b, n);
		l.n = n;
		l.b[n] = 0;
		if (want && err)
			fail(idx, p, &l, "node write refused (%s), the README takes it", strerror(-err));
		else if (!want && err != -EINVAL)
			fail(idx, p, &l, "node write gave %s, the README says EINVAL",
			     err ? strerror(-err) : "success");
		if (ms.report)
			fail(idx, p, &l, "kernel report: %s", ms.rep);
		if (ms.errs > 1)
			fail(idx, p, &l, "%d error lines in dmesg, first: %s", ms.errs, ms.first);
	}
	closedir(d);
}

/* ---- one write to _control ---- */
static void one_(unsigned int idx, struct gen *g);
static void one(unsigned int idx, struct gen *g, struct snap *base)
{
	double t = now();
	long acc = accepted;

	one_(idx, g);
	t = now() - t;
	if (accepted != acc)
		t_accepted += t;
	else
		t_refused += t;
	if (t > 0.05 && getenv("KSFUZZ_SLOW"))
		printf("@@SLOW %.3fs line %u %s\n", t, idx, g->what);
	(void)base;
}

static void one_(unsigned int idx, struct gen *g)
{
	char w[3][700], xs[80], path[800];
	struct msgs ms;
	int err, nw, ok;

	nlines++;
	if (print_only) {
		char e[8000];

		xdesc(xs, sizeof(xs), g->expect);
		esc(e, sizeof(e), g->l.b, g->l.n);
		printf("%u %s %s %s\n", idx, g->what, xs, e);
		return;
	}
	err = -wr(CTL, g->l.b, g->l.n);
	drain(&ms);
	if (ms.report)
		fail(idx, g->what, &g->l, "kernel report: %s", ms.rep);
	xdesc(xs, sizeof(xs), g->expect);
	if (!(errbit(err) & g->expect)) {
		fail(idx, g->what, &g->l, "%s, expected %s", err ? strerror(err) : "accepted", xs);
	}
	nw = kwords(&g->l, w);
	if (err) {
		refused++;
		if (ms.errs > 1)
			fail(idx, g->what, &g->l, "%d error lines in dmesg for one refusal, first: %s",
			     ms.errs, ms.first);
		if (ms.errs == 1 && strncmp(ms.first, "kstats: ", 8))
			fail(idx, g->what, &g->l, "the error line is not kstats': %s", ms.first);
		/* It names the command: "trace NAME:", "remove NAME:" or "_control:". */
		if (ms.errs == 1 && nw >= 2) {
			char want[1500];

			snprintf(want, sizeof(want), "kstats: %s %s:", w[0], w[1]);
			if (strncmp(ms.first, want, strlen(want)) &&
			    strncmp(ms.first, "kstats: _control:", 17))
				fail(idx, g->what, &g->l, "the dmesg line does not name the command: %s",
				     ms.first);
		}
		return;
	}
	/* Accepted: no error line; the trace (or its absence after remove) shows. */
	if (ms.errs)
		fail(idx, g->what, &g->l, "accepted, but dmesg has an error line: %s", ms.first);
	if (nw < 2) {
		fail(idx, g->what, &g->l, "accepted a line of fewer than two words");
		return;
	}
	if (!strcmp(w[0], "remove")) {
		if (listed(w[1]))
			fail(idx, g->what, &g->l, "remove %s accepted, still listed", w[1]);
		if (!strcmp(w[1], KEEP) && ctl("trace " KEEP " start kst_target_null key comm slowest 4"))
			fail(idx, "recreate " KEEP, NULL, "cannot trace " KEEP " again");
		return;
	}
	accepted++;
	acc_by[g->kind]++;
	snprintf(path, sizeof(path), D "/%s", w[1]);
	ok = listed(w[1]);
	if (!ok)
		fail(idx, g->what, &g->l, "accepted, but %s is not in the listing", w[1]);
	if (access(path, F_OK))
		fail(idx, g->what, &g->l, "accepted, but %s does not exist", path);
	/* Its files get a write or two before it goes. */
	if (chance(10))
		strcmp(CTL, D "/_control") ? node_fuzz_ctl(idx, D) : node_fuzz(idx, D);
	{
		char rm[800];

		snprintf(rm, sizeof(rm), "remove %s\n", w[1]);
		err = ctl(rm);
		drain(&ms);
		if (err)
			fail(idx, g->what, &g->l, "remove %s: %s", w[1], strerror(-err));
		if (ms.report)
			fail(idx, g->what, &g->l, "kernel report at remove: %s", ms.rep);
		if (listed(w[1]) || !access(path, F_OK))
			fail(idx, g->what, &g->l, "%s left behind after remove", w[1]);
	}
}

/* ---- corpus: "EXPECT<TAB>LINE", EXPECT ok|ENOENT|EINVAL|...|any, C escapes ---- */
static int corpus_line(char *s, struct gen *g)
{
	char *tab = strchr(s, '\t'), *p;
	size_t n = 0;

	if (!tab || s[0] == '#')
		return 0;
	*tab = 0;
	memset(g, 0, sizeof(*g));
	g->expect = 0;
	for (p = strtok(s, "|"); p; p = strtok(NULL, "|")) {
		static const char *const n2[] = { "ok", "ENOENT", "EINVAL", "EEXIST",
			"ENAMETOOLONG", "EOPNOTSUPP", "E2BIG" };
		int i;

		if (!strcmp(p, "any"))
			g->expect = XE_ANY;
		for (i = 0; i < 7; i++)
			if (!strcmp(p, n2[i]))
				g->expect |= 1 << i;
	}
	for (p = tab + 1; *p && *p != '\n'; p++) {
		char c = *p;

		if (c == '\\' && p[1]) {
			p++;
			switch (*p) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '0': c = 0; break;
			case 'x': {
				char h[3] = { p[1], p[2], 0 };

				c = strtol(h, NULL, 16);
				p += 2;
				break;
			}
			default: c = *p;
			}
		}
		g->l.b[n++] = c;
	}
	g->l.n = n;
	g->what = "corpus";
	return 1;
}

int main(int argc, char **argv)
{
	const char *corpus = NULL, *ffile = NULL;
	unsigned int n = 1000, batch = 500, first = 0, last = ~0U, i;
	struct snap base0, base;
	struct gen g;
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt(argc, argv, "s:k:n:b:c:f:i:l:pSFC:d:P:")) != -1) {
		switch (o) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'k': kver = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'b': batch = atoi(optarg); break;
		case 'c': corpus = optarg; break;
		case 'f': ffile = optarg; break;
		case 'i': first = atoi(optarg); break;
		case 'l': last = atoi(optarg); break;
		case 'p': print_only = 1; break;
		case 'S': slab_check = 1; break;
		case 'F': have_fprobe = 1; break;	/* -p: as a kernel with fprobe */
		case 'd': deep = atoi(optarg); break;	/* a deeper, slower hunt */
		case 'C': ncpus_given = atoi(optarg); break;	/* -p: nr_cpu_ids */
		case 'P': CTL = optarg; break;	/* the control path: /dev/kstats */
		default:
			fprintf(stderr, "usage: ksfuzz -s SEED -k KVER -n LINES [-b BATCH] [-c CORPUS] [-f FUNCS] [-i FIRST] [-l LAST] [-p] [-S] [-P CONTROL]\n");
			return 2;
		}
	}
	{
		/* nr_cpu_ids: the possible CPUs, "0-N". */
		char *b = slurp("/sys/devices/system/cpu/possible", NULL), *dash;

		dash = b ? strrchr(b, '-') : NULL;
		ncpus = dash ? atoi(dash + 1) + 1 : (b ? atoi(b) + 1 : 2);
		free(b);
		if (ncpus_given)
			ncpus = ncpus_given;
	}
	if (ffile) {
		char *b = slurp(ffile, NULL), *l;

		for (l = b ? strtok(b, "\n") : NULL; l; l = strtok(NULL, "\n")) {
			funcs = realloc(funcs, (nfuncs + 1) * sizeof(*funcs));
			funcs[nfuncs++] = l;
		}
	}
	if (!print_only) {
		kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (kmsg < 0) {
			perror("/dev/kmsg");
			return 2;
		}
		lseek(kmsg, 0, SEEK_END);
		/* Does this kernel have fprobe? (A known function, by method fprobe.) */
		have_fprobe = !ctl("trace fzprobe start kst_target_null method fprobe");
		if (have_fprobe)
			ctl("remove fzprobe");
		/*
		 * kstats reads vmlinux's BTF at the first typed trace and keeps
		 * it (a copy where kallsyms does not name it, as on 6.1 arm64):
		 * read before the baseline, as a lasting part of kstats.
		 */
		if (!ctl("trace fzbtf start vfs_read if ret<0"))
			ctl("remove fzbtf");
		{
			struct msgs ms;

			drain(&ms);
		}
		settle(&base0);
		if (ctl("trace " KEEP " start kst_target_null key comm slowest 4")) {
			printf("@@FAIL cannot trace " KEEP "\n");
			return 1;
		}
		settle(&base);
		if (getenv("KSFUZZ_DUMP"))
			printf("@@DUMP kprobes\n%s@@DUMP ftrace\n%s@@DUMP tree\n%s@@DUMP vmalloc\n%s@@DUMP slab\n%s@@DUMP end\n",
			       base.kprobes, base.ftrace, base.tree, base.vmalloc,
			       base.slab ? base.slab : "");
	}
	printf("@@FUZZ seed=%llu kernel=%s lines=%u batch=%u fprobe=%d cpus=%d funcs=%d slab=%d\n",
	       (unsigned long long)seed, kver, n, batch, have_fprobe, ncpus, nfuncs, slab_check);
	/* The corpus first: lines that found bugs. */
	if (corpus && first == 0) {
		FILE *f = fopen(corpus, "r");
		char s[8192];
		unsigned int c = 0;

		while (f && fgets(s, sizeof(s), f))
			if (corpus_line(s, &g))
				one(c++, &g, &base);
		if (f)
			fclose(f);
		if (!print_only)
			check_invariants(&base, c, "after the corpus", 0, 0);
		printf("@@CORPUS %u lines\n", c);
	}
	for (i = first; i < n && i <= last; i++) {
		generate(i, &g);
		one(i, &g, &base);
		if (!print_only && i % 97 == 0) {
			double t = now();

			strcmp(CTL, D "/_control") ? node_fuzz_ctl(i, D) : node_fuzz(i, D);
			t_nodes += now() - t;
		}
		if (!print_only && (i + 1) % batch == 0) {
			check_invariants(&base, i, "batch end", 0, 0);
			printf("@@BATCH %u fails=%ld\n", (i + 1) / batch, fails);
		}
	}
	if (!print_only) {
		check_invariants(&base, i, "end", 1, 0);
		if (ctl("remove " KEEP))
			fail(i, "remove " KEEP, NULL, "cannot remove " KEEP);
		check_invariants(&base0, i, "after removing " KEEP, 1, 1);
	}
	printf("@@FUZZ-DONE seed=%llu kernel=%s lines=%ld accepted=%ld refused=%ld node_writes=%ld fails=%ld",
	       (unsigned long long)seed, kver, nlines, accepted, refused, node_writes, fails);
	for (o = 0; o < K_NKIND; o++)
		printf(" %s=%ld", kind_names[o], acc_by[o]);
	printf("\n@@FUZZ-TIME refused=%.1fs accepted=%.1fs snapshots=%.1fs nodes=%.1fs\n",
	       t_refused, t_accepted, t_snap, t_nodes);
	return fails ? 1 : 0;
}
