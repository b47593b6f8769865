// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: read and control kstats' debugfs nodes (see kstats(8)).
 * It parses the nodes' summary lines and does no percentile math of its
 * own: every figure it prints comes from the kernel's lines.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "ksnode.h"

#define DEBUGFS		"/sys/kernel/debug"
#define DEFAULT_ROOT	DEBUGFS "/kstats"
#define DEBUGFS_MAGIC	0x64626720
#define KEY_PREFIX	"KEY-"

static const char *root;
static bool root_given;
static bool json;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int err_exit(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int err_exit(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("kstats: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/*
 * After getopt_long() returned @opt, ':' (a value missing: each optstring
 * starts with ':') or '?' (unknown): the option at fault, in kstats' own
 * words and prefix (opterr is 0).
 */
static void bad_option(char **argv, int opt)
{
	const char *word = argv[optind - 1];

	if (opt == ':')
		err_exit(EX_USAGE, "%s: option '%s' needs a value", argv[0], word);
	else if (word[0] == '-' && word[1] != '-' && optopt)
		err_exit(EX_USAGE, "%s: unknown option '-%c'", argv[0], optopt);
	else
		err_exit(EX_USAGE, "%s: unknown option '%s'", argv[0], word);
}

/* Is the kernel in lockdown (which refuses debugfs writes)? */
static bool in_lockdown(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strstr(buf, "[integrity]") || strstr(buf, "[confidentiality]");
}

/* The kstats directory is there, or why not (an exit status). */
static int check_root(void)
{
	struct statfs sfs;
	struct stat st;

	if (stat(root, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return err_exit(EX_UNAVAILABLE, "%s is not a directory", root);
		return 0;
	}
	if (errno == EACCES)
		return err_exit(EX_NOPERM, "%s: permission denied (debugfs is for root only; run as root)",
				root);
	if (errno != ENOENT || root_given)
		return err_exit(EX_UNAVAILABLE, "%s: %s", root, strerror(errno));
	if (statfs(DEBUGFS, &sfs) || sfs.f_type != DEBUGFS_MAGIC)
		return err_exit(EX_UNAVAILABLE,
				"debugfs is not mounted on %s (mount -t debugfs none %s)",
				DEBUGFS, DEBUGFS);
	return err_exit(EX_UNAVAILABLE, "kstats is not loaded: no %s (modprobe kstats)",
			root);
}

/* Map an errno from opening or reading a node to an exit status + message. */
static int node_error(const char *what, const char *name, int e)
{
	switch (e) {
	case ENOENT:
		return err_exit(EX_NOINPUT, "%s: no metric %s (kstats list shows them)",
				name, name);
	case EACCES:
	case EPERM:
		return err_exit(EX_NOPERM, "%s %s: %s%s", what, name, strerror(e),
				in_lockdown() ? " (the kernel is in lockdown)" :
				geteuid() ? " (run as root)" : "");
	case EIO:
		return err_exit(EX_IOERR, "%s %s: %s (the metric was removed while being read)",
				what, name, strerror(e));
	default:
		return err_exit(EX_IOERR, "%s %s: %s", what, name, strerror(e));
	}
}

/* Read a whole file; returns 0 or an errno. */
static int read_all(const char *path, char **out)
{
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0 || !buf) {
		int e = fd < 0 ? errno : ENOMEM;

		if (fd >= 0)
			close(fd);
		free(buf);
		return e;
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				close(fd);
				return ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			close(fd);
			return e;
		}
		if (!r)
			break;
		len += r;
	}
	close(fd);
	buf[len] = 0;
	*out = buf;
	return 0;
}

/* Load node NAME (or its interval file); returns 0 or an exit status. */
static int load(const char *name, bool interval, struct ks_node *n)
{
	char path[4096], err[128], *text = NULL;
	int e;

	if (!*name || strchr(name, '/') || name[0] == '.' || name[0] == '_')
		return err_exit(EX_USAGE, "%s: not a metric name", name);
	if (!strncmp(name, KEY_PREFIX, strlen(KEY_PREFIX)))
		return err_exit(EX_USAGE, "%s: not a metric but the keyed rows of trace %s (kstats flame %s)",
				name, name + strlen(KEY_PREFIX), name + strlen(KEY_PREFIX));
	snprintf(path, sizeof(path), "%s/%s%s", root,
		 interval ? "_interval/" : "", name);
	e = read_all(path, &text);
	if (e == ENOENT && interval) {
		/* The metric may be there without its interval file (a --root). */
		snprintf(path, sizeof(path), "%s/%s", root, name);
		if (!access(path, F_OK))
			return err_exit(EX_NOINPUT, "%s: no _interval/%s under %s, which watch reads",
					name, name, root);
	}
	if (e)
		return node_error("read", name, e);
	if (ks_parse(text, n, err, sizeof(err))) {
		free(text);
		return err_exit(EX_DATAERR, "%s: %s", path, err);
	}
	free(text);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The metrics' names, sorted; returns the count or -1 (errno set). */
static int metric_names(char ***names)
{
	DIR *d = opendir(root);
	struct dirent *de;
	char **v = NULL;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		/* _control, _interval, and KEY-NAME (keyed rows, not a histogram). */
		if (de->d_name[0] == '.' || de->d_name[0] == '_' ||
		    !strncmp(de->d_name, KEY_PREFIX, strlen(KEY_PREFIX)) ||
		    de->d_type == DT_DIR)
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	return n;
}

/* A name of the list: a trace's part nodes sort right after the trace. */
struct listed {
	char *name;
	const char *base;	/* the trace's name, or the name itself */
	int rank;		/* 0 the trace (or a metric), then its parts' order */
};

static int cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	return c ? c : x->rank - y->rank;
}

/*
 * @names (sorted by metric_names()) with GAP-, BLOCKED- and RUNQ-NAME
 * after NAME when NAME is listed too, rather than all GAP- nodes first.
 */
static void group_parts(char **names, int n)
{
	static const char *const parts[] = { "GAP-", "BLOCKED-", "RUNQ-" };
	struct listed *l = calloc(n ? n : 1, sizeof(*l));
	int i;
	size_t p;

	if (!l)
		return;		/* the plain order, then */
	for (i = 0; i < n; i++) {
		l[i].name = names[i];
		l[i].base = names[i];
		for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
			const char *base = names[i] + strlen(parts[p]);

			if (!strncmp(names[i], parts[p], strlen(parts[p])) &&
			    bsearch(&base, names, n, sizeof(*names), cmp_str)) {
				l[i].base = base;
				l[i].rank = p + 1;
				break;
			}
		}
	}
	qsort(l, n, sizeof(*l), cmp_listed);
	for (i = 0; i < n; i++)
		names[i] = l[i].name;
	free(l);
}

static void free_names(char **v, int n)
{
	while (n--)
		free(v[n]);
	free(v);
}

static struct json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/* The node's summary as a JSON object (fields in kstats(8)). */
static struct json_object *json_summary(const struct ks_node *n)
{
	struct json_object *o = json_object_new_object();
	struct json_object *pcts = json_object_new_object();
	int i;

	json_object_object_add(o, "name", json_object_new_string(n->name));
	json_object_object_add(o, "frac_bits", json_object_new_int(n->frac_bits));
	json_object_object_add(o, "state",
			       json_object_new_string(n->active ? "active" : "stopped"));
	json_object_object_add(o, "samples", ju64(n->samples));
	json_object_object_add(o, "missed", ju64(n->missed));
	json_object_object_add(o, "nmi_dropped", ju64(n->nmi_dropped));
	json_object_object_add(o, "min", n->has_minmax ? ju64(n->min) : NULL);
	json_object_object_add(o, "max", n->has_minmax ? ju64(n->max) : NULL);
	json_object_object_add(o, "mean", n->has_minmax ? ju64(n->mean) : NULL);
	for (i = 0; i < KS_NPCT; i++) {
		const struct ks_pct *p = &n->pct[i];
		struct json_object *po = NULL;

		if (p->has) {
			po = json_object_new_object();
			json_object_object_add(po, "value", ju64(p->value));
			json_object_object_add(po, "slot", json_object_new_int(p->slot));
			json_object_object_add(po, "err", ju64(p->err));
			json_object_object_add(po, "relerr",
					       json_object_new_double_s(atof(p->relerr), p->relerr));
		}
		json_object_object_add(pcts, p->key, po);
	}
	json_object_object_add(o, "percentiles", pcts);
	json_object_object_add(o, "unit", json_object_new_string(n->unit));
	if (n->is_trace) {
		struct json_object *t = json_object_new_object();

		json_object_object_add(t, "method", json_object_new_string(n->method));
		json_object_object_add(t, "missed", ju64(n->trace_missed));
		json_object_object_add(t, "gone", json_object_new_boolean(n->gone));
		json_object_object_add(o, "trace", t);
	} else {
		json_object_object_add(o, "trace", NULL);
	}
	return o;
}

static void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static const char *fmtv(char *buf, size_t len, bool has, uint64_t ns,
			enum ks_unit u)
{
	if (!has) {
		snprintf(buf, len, "-");
		return buf;
	}
	ks_fmt(buf, len, ns, u);
	if (u == KS_AUTO)
		strncat(buf, ks_unit_name(ks_unit_auto(ns)), len - strlen(buf) - 1);
	return buf;
}

/* --- list ------------------------------------------------------------- */

static int usage_list(FILE *f)
{
	fputs("usage: kstats list [--json] [--unit ns|us|ms|s|auto]\n"
	      "One line per metric: samples, p50, p99 and max; traces show their\n"
	      "method and missed count.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

static const struct option unit_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "unit", required_argument, NULL, 'u' },
	{ "help", no_argument, NULL, 'h' },
	{ "cpu", required_argument, NULL, 'c' },
	{ "slots", no_argument, NULL, 's' },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 }
};

static int parse_unit(const char *s, enum ks_unit *u)
{
	if (ks_unit_parse(s, u))
		return err_exit(EX_USAGE, "--unit %s: use ns, us, ms, s or auto", s);
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	struct json_object *arr = NULL;
	char **names, a[32], b[32], c[32], tr[64];
	int opt, n, i, rc;

	while ((opt = getopt_long(argc, argv, "+:hju:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'h': return usage_list(stdout);
		default: bad_option(argv, opt); return usage_list(stderr);
		}
	}
	if (optind != argc) {
		err_exit(EX_USAGE, "list takes no NAME: '%s'", argv[optind]);
		return usage_list(stderr);
	}
	if ((rc = check_root()))
		return rc;
	n = metric_names(&names);
	if (n < 0)
		return node_error("list", root, errno);
	group_parts(names, n);
	if (json)
		arr = json_object_new_array();
	else
		printf("%-28s %10s %12s %12s %12s  %s\n", "NAME", "SAMPLES", "P50",
		       "P99", "MAX", "TRACE");
	for (i = 0; i < n; i++) {
		struct ks_node nd;
		const struct ks_pct *p50, *p99;

		rc = load(names[i], false, &nd);
		if (rc == EX_NOINPUT)
			continue;	/* removed since the listing: not an error */
		if (rc) {
			free_names(names, n);
			json_object_put(arr);
			return rc;
		}
		if (json) {
			json_object_array_add(arr, json_summary(&nd));
			ks_node_free(&nd);
			continue;
		}
		p50 = ks_pct_get(&nd, "p50");
		p99 = ks_pct_get(&nd, "p99");
		if (nd.is_trace)
			snprintf(tr, sizeof(tr), "%s missed %" PRIu64 "%s", nd.method,
				 nd.trace_missed, nd.gone ? " gone" : "");
		else
			snprintf(tr, sizeof(tr), "-");
		printf("%-28s %10" PRIu64 " %12s %12s %12s  %s\n", nd.name,
		       nd.samples, fmtv(a, sizeof(a), p50->has, p50->value, u),
		       fmtv(b, sizeof(b), p99->has, p99->value, u),
		       fmtv(c, sizeof(c), nd.has_minmax, nd.max, u), tr);
		ks_node_free(&nd);
	}
	free_names(names, n);
	if (json)
		print_json(arr);
	return 0;
}

/* --- show ------------------------------------------------------------- */

static int usage_show(FILE *f)
{
	fputs("usage: kstats show NAME [--cpu N] [--unit ns|us|ms|s|auto] [--slots] [--json]\n"
	      "The summary, then a histogram: one row per power of two (per slot\n"
	      "with --slots), of all CPUs or of CPU N.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

static void print_summary(const struct ks_node *n, enum ks_unit u)
{
	char a[32], b[32], c[32];
	int i;

	printf("%s: %" PRIu64 " sample%s, missed %" PRIu64 ", %s", n->name,
	       n->samples, n->samples == 1 ? "" : "s", n->missed,
	       n->active ? "active" : "stopped");
	if (n->is_trace)
		printf(", trace by %s%s", n->method, n->gone ? " (gone)" : "");
	printf("\n  min %s  mean %s  max %s\n",
	       fmtv(a, sizeof(a), n->has_minmax, n->min, u),
	       fmtv(b, sizeof(b), n->has_minmax, n->mean, u),
	       fmtv(c, sizeof(c), n->has_minmax, n->max, u));
	for (i = 0; i < KS_NPCT; i++) {
		const struct ks_pct *p = &n->pct[i];

		printf("%s%s %s", i ? "  " : "  ", p->key,
		       fmtv(a, sizeof(a), p->has, p->value, u));
		if (p->has && p->err)
			printf(" (+-%s)", fmtv(b, sizeof(b), true, p->err, u));
	}
	putchar('\n');
}

/* Print NAME's summary and histogram (show and run share this). */
static int show_node(const struct ks_node *n, int cpu, bool slots,
		     enum ks_unit u)
{
	struct ks_row *rows;
	enum ks_unit hu = u;
	int nr = ks_rows(n, cpu, slots, &rows);
	size_t i;

	if (nr < 0)
		return err_exit(EX_OSERR, "out of memory");
	if (json) {
		struct json_object *o = json_summary(n), *arr = json_object_new_array();
		struct json_object *rarr = json_object_new_array();

		json_object_object_add(o, "cpu", cpu >= 0 ? json_object_new_int(cpu) : NULL);
		for (i = 0; i < n->n_lines; i++) {
			const struct ks_line *l = &n->lines[i];
			struct json_object *s;

			if (cpu < 0 ? !l->totals : l->totals || l->cpu != (unsigned int)cpu)
				continue;
			s = json_object_new_object();
			json_object_object_add(s, "slot", json_object_new_int(l->slot));
			json_object_object_add(s, "low", ju64(ks_slot_base(l->slot, n->frac_bits)));
			json_object_object_add(s, "high", ju64(ks_slot_top(l->slot, n->frac_bits)));
			json_object_object_add(s, "count", ju64(l->count));
			json_object_object_add(s, "avg", ju64(l->avg));
			json_object_object_add(s, "p", json_object_new_double_s(atof(l->p), l->p));
			json_object_array_add(arr, s);
		}
		json_object_object_add(o, "slots", arr);
		for (i = 0; i < (size_t)nr; i++) {
			struct json_object *r = json_object_new_object();

			json_object_object_add(r, "low", ju64(rows[i].low));
			json_object_object_add(r, "high", ju64(rows[i].high));
			json_object_object_add(r, "count", ju64(rows[i].count));
			json_object_array_add(rarr, r);
		}
		json_object_object_add(o, "rows", rarr);
		print_json(o);
		free(rows);
		return 0;
	}
	print_summary(n, u);
	if (cpu >= 0) {
		uint64_t t = 0;

		for (i = 0; i < (size_t)nr; i++)
			t += rows[i].count;
		printf("  CPU %d: %" PRIu64 " sample%s (the figures above are of all CPUs)\n",
		       cpu, t, t == 1 ? "" : "s");
	}
	/* One unit for the whole table: the median's, unless given. */
	if (hu == KS_AUTO)
		hu = n->pct[0].has ? ks_unit_auto(n->pct[0].value) : KS_NS;
	putchar('\n');
	if (nr)
		ks_print_hist(stdout, rows, nr, hu, 40);
	else
		printf("  (no samples)\n");
	free(rows);
	return 0;
}

/* @s as a number from @min to @max, or a usage error that says so. */
static int parse_range(const char *opt, const char *s, unsigned long min,
		       unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || *v < min || *v > max)
		return err_exit(EX_USAGE, "%s %s: not a number from %lu to %lu",
				opt, s, min, max);
	return 0;
}

/* The one NAME after a command's options, or a usage error naming the fault. */
static int one_name(const char *cmd, int argc, char **argv)
{
	if (optind == argc)
		return err_exit(EX_USAGE, "%s: give NAME", cmd);
	if (optind < argc - 1)
		return err_exit(EX_USAGE, "%s takes one NAME: '%s' too", cmd, argv[optind + 1]);
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned long max,
		      unsigned long *v)
{
	return parse_range(opt, s, 0, max, v);
}

/* The CPUs a node's CPUS lines count (nr_cpu_ids), or 0 with no samples. */
static unsigned int node_cpus(const struct ks_node *n)
{
	size_t i;

	for (i = 0; i < n->n_lines; i++)
		if (n->lines[i].totals)
			return n->lines[i].cpu;
	return 0;
}

static int cmd_show(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	unsigned long cpu = 0;
	bool have_cpu = false, slots = false;
	struct ks_node n;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, ":hju:c:s", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'c':
			if ((rc = parse_uint("--cpu", optarg, 65535, &cpu)))
				return rc;
			have_cpu = true;
			break;
		case 's': slots = true; break;
		case 'h': return usage_show(stdout);
		default: bad_option(argv, opt); return usage_show(stderr);
		}
	}
	if ((rc = one_name("show", argc, argv)))
		return usage_show(stderr);
	if ((rc = check_root()) || (rc = load(argv[optind], false, &n)))
		return rc;
	if (have_cpu && node_cpus(&n) && cpu >= node_cpus(&n)) {
		rc = err_exit(EX_USAGE, "--cpu %lu: %s counts CPUs 0 to %u", cpu,
			      argv[optind], node_cpus(&n) - 1);
		ks_node_free(&n);
		return rc;
	}
	rc = show_node(&n, have_cpu ? (int)cpu : -1, slots, u);
	ks_node_free(&n);
	return rc;
}

/* --- watch ------------------------------------------------------------ */

static int usage_watch(FILE *f)
{
	fputs("usage: kstats watch NAME [-i SECONDS] [-n COUNT] [--unit U] [--json]\n"
	      "Every SECONDS (default 1), the summary of the samples recorded in\n"
	      "that interval (from _interval/NAME, lossless), with a UTC timestamp.\n"
	      "Stops after COUNT intervals (-n 0, the default: until Ctrl-C), or at Ctrl-C.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

static void timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Sleep until @deadline (CLOCK_MONOTONIC); false if a signal came. */
static bool sleep_until(const struct timespec *deadline)
{
	while (!stop_signal) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL);

		if (!r)
			return true;
		if (r != EINTR)
			return false;
	}
	return false;
}

static int cmd_watch(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	unsigned long ival = 1, count = 0, k;
	struct timespec next;
	struct ks_node n;
	char ts[32], a[32], b[32], c[32], path[4096];
	int opt, rc;

	while ((opt = getopt_long(argc, argv, ":hju:i:n:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'i':
			if ((rc = parse_range("-i", optarg, 1, 86400, &ival)))
				return rc;
			break;
		case 'n':
			if ((rc = parse_uint("-n", optarg, 2147483647, &count)))
				return rc;
			break;
		case 'h': return usage_watch(stdout);
		default: bad_option(argv, opt); return usage_watch(stderr);
		}
	}
	if (optind != argc - 1)
		return usage_watch(stderr);
	if ((rc = check_root()))
		return rc;
	/* This open ends the interval before the first one we show. */
	if ((rc = load(argv[optind], true, &n)))
		return rc;
	ks_node_free(&n);
	install_signals();
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (k = 0; !count || k < count; k++) {
		next.tv_sec += ival;
		if (!sleep_until(&next))
			break;
		snprintf(path, sizeof(path), "%s/_interval/%s", root, argv[optind]);
		if (access(path, F_OK) && errno == ENOENT)
			return err_exit(EX_IOERR, "%s: the metric was removed while being watched",
					argv[optind]);
		rc = load(argv[optind], true, &n);
		if (rc)
			return rc;
		timestamp(ts, sizeof(ts));
		if (json) {
			struct json_object *o = json_summary(&n);

			json_object_object_add(o, "time", json_object_new_string(ts));
			json_object_object_add(o, "interval", json_object_new_int64(ival));
			print_json(o);
		} else {
			const struct ks_pct *p50 = ks_pct_get(&n, "p50"),
					    *p99 = ks_pct_get(&n, "p99");

			printf("%s %s samples %" PRIu64 " p50 %s p99 %s max %s missed %" PRIu64 "\n",
			       ts, n.name, n.samples,
			       fmtv(a, sizeof(a), p50->has, p50->value, u),
			       fmtv(b, sizeof(b), p99->has, p99->value, u),
			       fmtv(c, sizeof(c), n.has_minmax, n.max, u), n.missed);
		}
		fflush(stdout);
		ks_node_free(&n);
	}
	return 0;
}

/* --- control: trace, remove, reset, stop, start ------------------------ */

/* Is @fd a file of debugfs (kstats' own), not a captured copy? */
static int on_debugfs(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == DEBUGFS_MAGIC;
}

/*
 * Write @cmd to @path in one write(). On failure, print the errno and
 * kstats' own dmesg line for it (read from /dev/kmsg, from where the log
 * ended before the write), and return an exit status.
 */
static int write_cmd(const char *path, const char *what, const char *cmd)
{
	int kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int fd, e = 0;
	char reason[512] = "";

	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && !on_debugfs(fd)) {
		/* A --root of captured files: writing would overwrite them. */
		close(fd);
		if (kfd >= 0)
			close(kfd);
		return err_exit(EX_USAGE, "%s: %s is not in debugfs: kstats writes only to kstats' own files",
				what, path);
	}
	if (fd < 0) {
		struct statfs sf;
		char dir[4096];
		char *slash;

		e = errno;
		/* No such file, and not in debugfs: a --root of captured files. */
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		if (e == ENOENT && !statfs(slash ? dir : ".", &sf) && sf.f_type != DEBUGFS_MAGIC) {
			if (kfd >= 0)
				close(kfd);
			return err_exit(EX_USAGE, "%s: %s is not in debugfs: kstats writes only to kstats' own files",
					what, path);
		}
	} else if (write(fd, cmd, strlen(cmd)) < 0) {
		e = errno;
	}
	if (fd >= 0)
		close(fd);
	if (!e) {
		if (kfd >= 0)
			close(kfd);
		return 0;
	}
	if (kfd >= 0) {
		char rec[1024];
		ssize_t r;

		while ((r = read(kfd, rec, sizeof(rec) - 1)) > 0) {
			char *msg;

			rec[r] = 0;
			msg = strchr(rec, ';');
			if (!msg || strncmp(msg + 1, "kstats: ", 8))
				continue;
			msg[strcspn(msg, "\n")] = 0;
			snprintf(reason, sizeof(reason), "%s", msg + 1);
		}
		close(kfd);
	}
	/* ENOENT from trace is an unknown function: the words are wrong. */
	if (e == ENOENT && strcmp(what, "trace"))
		return err_exit(EX_NOINPUT, "%s: no such metric or trace (errno %d ENOENT)%s%s",
				what, e, reason[0] ? "\nkstats: dmesg: " : "", reason);
	if (e == EACCES || e == EPERM)
		return err_exit(EX_NOPERM, "%s: %s: %s%s", what, path, strerror(e),
				in_lockdown() ? " (the kernel is in lockdown: debugfs refuses writes)" :
				geteuid() ? " (run as root)" : "");
	if (e == EIO)
		return err_exit(EX_IOERR, "%s: %s (the metric was removed)", what,
				strerror(e));
	fprintf(stderr, "kstats: %s refused: %s (errno %d %s)%s%s\n", what,
		strerror(e), e, strerrorname_np(e) ? strerrorname_np(e) : "?",
		reason[0] ? "\nkstats: dmesg: " : "", reason);
	return e == ENOMEM ? EX_OSERR : EX_DATAERR;
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/* The words joined by blanks, after @prefix. */
static char *join(const char *prefix, int argc, char **argv)
{
	size_t len = strlen(prefix) + 2;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, prefix);
	for (i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	strcat(s, "\n");
	return s;
}

/*
 * A comm value with blanks, as the kernel reads it: octal escapes
 * (\040 for a space), as KEY-NAME prints a comm. NULL when out of memory.
 */
static char *escape_comm(const char *s)
{
	char *out = malloc(4 * strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (isspace((unsigned char)*s) || *s == '\\')
			o += sprintf(o, "\\%03o", (unsigned char)*s);
		else
			*o++ = *s;
	}
	*o = 0;
	return out;
}

static int control(const char *verb, int argc, char **argv)
{
	char path[4096], *cmd, **words;
	int rc, i;

	if ((rc = check_root()))
		return rc;
	/* _control splits at blanks: a comm keeps its own, escaped. */
	words = calloc(argc ? argc : 1, sizeof(*words));
	if (!words)
		return err_exit(EX_OSERR, "out of memory");
	for (i = 0; i < argc; i++) {
		bool blank = strpbrk(argv[i], " \t\n\r\v\f");
		bool comm = i && !strcmp(argv[i - 1], "comm");

		/* No _control word starts with "--"; kstats' options do. */
		if (!strncmp(argv[i], "--", 2) && !comm) {
			rc = err_exit(EX_USAGE, "%s: '%s' is not a word of _control; kstats' options go "
				      "before the command (kstats [--root DIR] [--json] COMMAND ...)",
				      verb, argv[i]);
			goto out;
		}

		if (blank && !comm) {
			rc = err_exit(EX_USAGE, "'%s': a word with a blank; only a comm may have one (comm 'my prog')",
				      argv[i]);
			goto out;
		}
		words[i] = blank ? escape_comm(argv[i]) : strdup(argv[i]);
		if (!words[i]) {
			rc = err_exit(EX_OSERR, "out of memory");
			goto out;
		}
	}
	cmd = join(verb, argc, words);
	if (!cmd)
		return err_exit(EX_OSERR, "out of memory");
	snprintf(path, sizeof(path), "%s/_control", root);
	rc = write_cmd(path, verb, cmd);
	free(cmd);
out:
	for (i = 0; i < argc; i++)
		free(words[i]);
	free(words);
	return rc;
}

static int cmd_trace(int argc, char **argv)
{
	if (argc < 2)
		err_exit(EX_USAGE, "trace: give NAME and its words");
	if (argc < 2 || wants_help(argc, argv)) {
		fputs("usage: kstats trace NAME [bits B] [start X] [end Y] [method M] [maxactive N]\n"
		      "                   [key K[,K]] [keys N] [slowest N]\n"
		      "                   [pid P] [tgid P] [comm C] [cpu N] [if V ...]\n"
		      "                   [match argI[,argJ]] [expire NS] [repeat replace|keep]\n"
		      "                   [gap on|off]\n"
		      "       kstats trace NAME offcpu [state any|all|S|D] [min NS] [max NS]\n"
		      "                   [tasks all|user|kernel] [key K[,K]] ... (no start, end, method)\n"
		      "Writes \"trace WORDS\" to _control: the same words (README, kstats(8)).\n"
		      "K: kstack[:D], end-kstack[:D], comm, pid, tgid, cpu, ret[:T], argN[:T] or\n"
		      "argN:log2 (T: s8..s64, u8..u64); rows in KEY-NAME;\n"
		      "off-CPU traces also waker-kstack[:D], waker-comm, waker-pid.\n"
		      "V: argN or ret, [:s8..s64|:u8..u64], == != < <= > >= &, a number ('ret<0':\n"
		      "quote it from the shell).\n",
		      argc < 2 ? stderr : stdout);
		return argc < 2 ? EX_USAGE : 0;
	}
	return control("trace", argc - 1, argv + 1);
}

static int cmd_remove(int argc, char **argv)
{
	if (argc != 2 && !wants_help(argc, argv))
		err_exit(EX_USAGE, argc < 2 ? "remove: give NAME" : "remove takes one NAME: '%s' too",
			 argv[argc < 2 ? 0 : 2]);
	if (argc != 2 || wants_help(argc, argv)) {
		fputs("usage: kstats remove NAME\nRemoves the trace NAME (its data goes with it).\n",
		      argc != 2 ? stderr : stdout);
		return argc != 2 ? EX_USAGE : 0;
	}
	return control("remove", 1, argv + 1);
}

static int cmd_node_word(int argc, char **argv)
{
	char path[4096], cmd[16];
	int rc;

	if (argc != 2 && !wants_help(argc, argv))
		err_exit(EX_USAGE, argc < 2 ? "%s: give NAME" : "%s takes one NAME: '%s' too",
			 argv[0], argv[argc < 2 ? 0 : 2]);
	if (argc != 2 || wants_help(argc, argv)) {
		fprintf(argc != 2 ? stderr : stdout,
			"usage: kstats %s NAME\n%s\n", argv[0],
			!strcmp(argv[0], "reset") ? "Clears the metric's counters on all CPUs (a trace's\n"
			"KEY-NAME rows last as long as the trace: reset leaves them)." :
			!strcmp(argv[0], "stop") ? "The metric ignores new samples until start." :
			"The metric records again.");
		return argc != 2 ? EX_USAGE : 0;
	}
	if ((rc = check_root()))
		return rc;
	if (!*argv[1] || strchr(argv[1], '/') || argv[1][0] == '.' || argv[1][0] == '_')
		return err_exit(EX_USAGE, "%s: not a metric name", argv[1]);
	if (!strncmp(argv[1], KEY_PREFIX, strlen(KEY_PREFIX)))
		return err_exit(EX_USAGE, "%s: not a metric but the keyed rows of trace %s, which last as long as the trace",
				argv[1], argv[1] + strlen(KEY_PREFIX));
	snprintf(path, sizeof(path), "%s/%s", root, argv[1]);
	if (access(path, F_OK))
		return node_error(argv[0], argv[1], errno);
	snprintf(cmd, sizeof(cmd), "%s\n", argv[0]);
	return write_cmd(path, argv[0], cmd);
}

/* --- run -------------------------------------------------------------- */

static int usage_run(FILE *f)
{
	fputs("usage: kstats run [-d SECONDS] [-i SECONDS] [--unit U] NAME [TRACE-WORDS...]\n"
	      "Sets up \"trace NAME TRACE-WORDS\", prints its histogram every -i seconds,\n"
	      "or once at the end (after -d seconds, or at Ctrl-C or SIGTERM; stopped\n"
	      "for the last, so that it holds every loss), then removes the trace, also\n"
	      "on SIGINT and SIGTERM. -d 0 (the default):\n"
	      "until Ctrl-C or SIGTERM; -i 0 (the default): only at the end.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

static int cmd_run(int argc, char **argv)
{
	enum ks_unit u = KS_AUTO;
	unsigned long dur = 0, ival = 0;
	struct timespec now, end, next;
	const char *name;
	char *rmv[1];
	int opt, rc, rc2;

	while ((opt = getopt_long(argc, argv, "+:hju:d:i:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'u': if ((rc = parse_unit(optarg, &u))) return rc; break;
		case 'd':
			if ((rc = parse_uint("-d", optarg, 86400 * 365, &dur)))
				return rc;
			break;
		case 'i':
			if ((rc = parse_uint("-i", optarg, 86400, &ival)))
				return rc;
			break;
		case 'h': return usage_run(stdout);
		default: bad_option(argv, opt); return usage_run(stderr);
		}
	}
	if (optind >= argc) {
		err_exit(EX_USAGE, "run: give NAME (and the trace's words)");
		return usage_run(stderr);
	}
	name = argv[optind];
	/* Signals must not kill us between trace and remove. */
	install_signals();
	if ((rc = control("trace", argc - optind, argv + optind)))
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &now);
	end = now;
	end.tv_sec += dur;
	next = now;
	rc = 0;
	for (;;) {
		struct ks_node n;
		bool last;

		next.tv_sec += ival ? ival : dur ? dur : 86400;
		if (dur && (next.tv_sec > end.tv_sec))
			next = end;
		last = !sleep_until(&next) ||
		       (dur && next.tv_sec == end.tv_sec && next.tv_nsec == end.tv_nsec);
		/*
		 * The last figures: stopped first. A stopped trace's counts,
		 * its losses included, stay as they are until the remove, so
		 * these are the figures the remove reports ("trace NAME:
		 * removed, N missed" in dmesg).
		 */
		if (last) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", root, name);
			rc = write_cmd(path, "stop", "stop\n");
			if (rc)
				break;
		}
		if (ival || last) {
			rc = load(name, false, &n);
			if (rc)
				break;
			if (!json && ival) {
				char ts[32];

				timestamp(ts, sizeof(ts));
				printf("%s%s\n", ts, last ? " (end)" : "");
			}
			show_node(&n, -1, false, u);
			fflush(stdout);
			ks_node_free(&n);
		}
		if (last)
			break;
	}
	rmv[0] = (char *)name;
	rc2 = control("remove", 1, rmv);
	return rc ? rc : rc2;
}

/* --- export ----------------------------------------------------------- */

/*
 * Every node, as Prometheus families: nodes whose names map to one metric
 * name (a.b, a_b, a-b) are one family with a node label each, in the
 * order of the first of them.
 */
static int export_families(FILE *f, char **names, int n, enum ks_buckets bk,
			   bool per_cpu)
{
	struct ks_node *nd = calloc(n ? n : 1, sizeof(*nd));
	const struct ks_node **fam = calloc(n ? n : 1, sizeof(*fam));
	char (*pn)[160] = calloc(n ? n : 1, sizeof(*pn));
	bool *done = calloc(n ? n : 1, sizeof(*done));
	int i, j, rc = 0, loaded = 0;

	if (!nd || !fam || !pn || !done) {
		rc = err_exit(EX_OSERR, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++, loaded++) {
		rc = load(names[i], false, &nd[i]);
		if (rc == EX_NOINPUT) {	/* removed meanwhile */
			done[i] = true;
			rc = 0;
			continue;
		}
		if (rc)
			goto out;
		ks_prom_name(pn[i], sizeof(pn[i]), nd[i].name);
	}
	for (i = 0; i < n; i++) {
		size_t k = 0;

		if (done[i])
			continue;
		for (j = i; j < n; j++) {
			if (done[j] || strcmp(pn[i], pn[j]))
				continue;
			fam[k++] = &nd[j];
			done[j] = true;
		}
		ks_prom_write_family(f, fam, k, bk, per_cpu);
	}
out:
	for (i = 0; nd && i < loaded; i++)
		ks_node_free(&nd[i]);
	free(done);
	free(pn);
	free(fam);
	free(nd);
	return rc;
}

static int usage_export(FILE *f)
{
	fputs("usage: kstats export --prometheus [--textfile DIR] [--per-cpu] [--buckets pow2|slots]\n"
	      "Every metric as a Prometheus histogram (seconds) and its missed counter,\n"
	      "to stdout, or atomically to DIR/kstats.prom for node_exporter's\n"
	      "textfile collector.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

static int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "prometheus", no_argument, NULL, 'P' },
		{ "textfile", required_argument, NULL, 't' },
		{ "per-cpu", no_argument, NULL, 'c' },
		{ "buckets", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum ks_buckets bk = KS_B_POW2;
	const char *dir = NULL;
	bool prom = false, per_cpu = false;
	char tmp[4096], dst[4096], **names;
	FILE *f = stdout;
	int opt, rc, n, fd;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'P': prom = true; break;
		case 't': dir = optarg; break;
		case 'c': per_cpu = true; break;
		case 'b':
			if (!strcmp(optarg, "pow2"))
				bk = KS_B_POW2;
			else if (!strcmp(optarg, "slots"))
				bk = KS_B_SLOTS;
			else
				return err_exit(EX_USAGE, "--buckets %s: use pow2 or slots", optarg);
			break;
		case 'h': return usage_export(stdout);
		default: bad_option(argv, opt); return usage_export(stderr);
		}
	}
	if (!prom || optind != argc) {
		if (optind != argc)
			err_exit(EX_USAGE, "export takes no NAME: '%s'", argv[optind]);
		else
			err_exit(EX_USAGE, "export: give --prometheus (the one format)");
		return usage_export(stderr);
	}
	if ((rc = check_root()))
		return rc;
	n = metric_names(&names);
	if (n < 0)
		return node_error("list", root, errno);
	if (dir) {
		snprintf(dst, sizeof(dst), "%s/kstats.prom", dir);
		/* Same directory, so rename() is atomic; node_exporter skips it. */
		snprintf(tmp, sizeof(tmp), "%s/.kstats.prom.XXXXXX", dir);
		fd = mkstemp(tmp);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			int e = errno;

			free_names(names, n);
			return err_exit(EX_CANTCREAT, "--textfile %s: %s", dir, strerror(e));
		}
		fchmod(fd, 0644);
	}
	rc = export_families(f, names, n, bk, per_cpu);
	free_names(names, n);
	if (!dir)
		return rc;
	if (rc || fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, dst)) {
		int e = errno;

		unlink(tmp);
		return rc ? rc : err_exit(EX_CANTCREAT, "%s: %s", dst, strerror(e));
	}
	return 0;
}

/* --- plot ------------------------------------------------------------- */

static int usage_plot(FILE *f)
{
	fputs("usage: kstats plot NAME -o FILE.svg|FILE.png|FILE.pdf\n"
	      "Draws the distribution with gnuplot: density per slot and the\n"
	      "cumulative fraction on a log-scale value axis, with p50, p99 and max,\n"
	      "in the format FILE's name ends with.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

/* Whether @prog is an executable file in a directory of $PATH. */
static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char dir[4096];

	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s/%s", (int)len, path, prog);
		if (!access(dir, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* gnuplot's terminal for the format @file's name asks for, or NULL. */
static const char *plot_terminal(const char *file)
{
	static const struct {
		const char *ext, *term;
	} terms[] = {
		{ ".svg", "svg size 900,500 dynamic enhanced" },
		{ ".png", "pngcairo size 900,500 enhanced" },
		{ ".pdf", "pdfcairo size 9in,5in enhanced" },
	};
	size_t i, len = strlen(file);

	for (i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
		if (len > strlen(terms[i].ext) &&
		    !strcasecmp(file + len - strlen(terms[i].ext), terms[i].ext))
			return terms[i].term;
	return NULL;
}

static int cmd_plot(int argc, char **argv)
{
	char dat[] = "/tmp/kstats-plot.XXXXXX", ns[3][32];
	const char *out = NULL, *term;
	struct ks_node n;
	FILE *f, *gp;
	size_t i;
	int opt, rc, fd, st;

	while ((opt = getopt_long(argc, argv, ":ho:", unit_opts, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'h': return usage_plot(stdout);
		default: bad_option(argv, opt); return usage_plot(stderr);
		}
	}
	if (one_name("plot", argc, argv))
		return usage_plot(stderr);
	if (!out) {
		err_exit(EX_USAGE, "plot: give -o FILE.svg, .png or .pdf");
		return usage_plot(stderr);
	}
	term = plot_terminal(out);
	if (!term)
		return err_exit(EX_USAGE, "-o %s: name a .svg, .png or .pdf file", out);
	if (!in_path("gnuplot"))
		return err_exit(EX_UNAVAILABLE, "gnuplot is not installed (apt install gnuplot-nox)");
	if ((rc = check_root()) || (rc = load(argv[optind], false, &n)))
		return rc;
	if (!n.samples) {
		ks_node_free(&n);
		return err_exit(EX_DATAERR, "%s has no samples to plot", argv[optind]);
	}
	fd = open(out, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_exit(EX_CANTCREAT, "-o %s: %s", out, strerror(errno));
		ks_node_free(&n);
		return rc;
	}
	close(fd);
	fd = mkstemp(dat);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return err_exit(EX_CANTCREAT, "%s: %s", dat, strerror(errno));
	/* low high density(per ns) cumulative: one line per non-empty slot. */
	for (i = 0; i < n.n_lines; i++) {
		const struct ks_line *l = &n.lines[i];
		uint64_t lo, hi;

		if (!l->totals)
			continue;
		lo = ks_slot_base(l->slot, n.frac_bits);
		hi = ks_slot_top(l->slot, n.frac_bits);
		fprintf(f, "%" PRIu64 " %" PRIu64 " %.9g %s\n", lo, hi,
			(double)l->count / n.samples / (double)(hi - lo + 1), l->p);
	}
	fclose(f);
	snprintf(ns[0], sizeof(ns[0]), "%" PRIu64, ks_pct_get(&n, "p50")->value);
	snprintf(ns[1], sizeof(ns[1]), "%" PRIu64, ks_pct_get(&n, "p99")->value);
	snprintf(ns[2], sizeof(ns[2]), "%" PRIu64, n.max);
	/* gnuplot writes to stdout what it cannot write to the file. */
	gp = popen("gnuplot >/dev/null", "w");
	if (!gp) {
		unlink(dat);
		ks_node_free(&n);
		return err_exit(EX_OSERR, "cannot run gnuplot: %s", strerror(errno));
	}
	fprintf(gp,
		"set terminal %s\n"
		"set output '%s'\n"
		"set title 'kstats %s: %" PRIu64 " samples' noenhanced\n"
		"set logscale x\n"
		"set xlabel 'value (ns, log scale)'\n"
		"set ylabel 'density (fraction of samples per ns)'\n"
		"set y2label 'cumulative fraction'\n"
		"set logscale y\n"
		"set y2range [0:1]\n"
		"set ytics nomirror\nset y2tics 0.1\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lc rgb 'blue'\n"
		"set label 'p50' at %s, graph 1.02 center\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lc rgb 'red'\n"
		"set label 'p99' at %s, graph 1.02 center\n"
		"set arrow from %s, graph 0 to %s, graph 1 nohead dt 3 lc rgb 'black'\n"
		"set label 'max' at %s, graph 1.06 center\n"
		"plot '%s' using (($1+$2+1)/2):3 with steps title 'density per slot', "
		"'' using ($2+1):4 axes x1y2 with lines title 'cumulative fraction'\n",
		term, out, n.name, n.samples, ns[0], ns[0], ns[0], ns[1], ns[1], ns[1],
		ns[2], ns[2], ns[2], dat);
	st = pclose(gp);
	unlink(dat);
	ks_node_free(&n);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		unlink(out);
		return err_exit(EX_SOFTWARE, "gnuplot failed to draw %s (its messages are above)", out);
	}
	return 0;
}

/* --- flame ------------------------------------------------------------ */

static int usage_flame(FILE *f)
{
	fputs("usage: kstats flame NAME [--count]\n"
	      "The rows of KEY-NAME as folded stacks for flamegraph.pl or speedscope:\n"
	      "one line per row, frames root first, then its total (ns) or, with\n"
	      "--count, its count. Needs a trace with a key, e.g. key kstack.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

static int cmd_flame(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char path[4096], err[160], *text = NULL;
	const char *name;
	struct ks_keynode k;
	bool count = false;
	int opt, rc, e;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': count = true; break;
		case 'h': return usage_flame(stdout);
		default: bad_option(argv, opt); return usage_flame(stderr);
		}
	}
	if (optind != argc - 1)
		return usage_flame(stderr);
	name = argv[optind];
	if ((rc = check_root()))
		return rc;
	if (!*name || strchr(name, '/') || name[0] == '.' || name[0] == '_' ||
	    !strncmp(name, KEY_PREFIX, strlen(KEY_PREFIX)))
		return err_exit(EX_USAGE, "%s: not a metric name (flame takes the trace's NAME)",
				name);
	snprintf(path, sizeof(path), "%s/" KEY_PREFIX "%s", root, name);
	e = read_all(path, &text);
	if (e == ENOENT) {
		static const char *const parts[] = { "BLOCKED-", "RUNQ-", "GAP-" };
		size_t i;

		/* A part of a trace: its rows are the trace's. */
		for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			const char *trace = name + strlen(parts[i]);

			if (strncmp(name, parts[i], strlen(parts[i])))
				continue;
			snprintf(path, sizeof(path), "%s/" KEY_PREFIX "%s", root, trace);
			if (!access(path, F_OK))
				return err_exit(EX_NOINPUT, "%s: no " KEY_PREFIX "%s: a part of trace %s, "
						"whose rows are in " KEY_PREFIX "%s (kstats flame %s)",
						name, name, trace, trace, trace);
		}
		snprintf(path, sizeof(path), "%s/%s", root, name);
		if (!access(path, F_OK))
			return err_exit(EX_NOINPUT, "%s: no " KEY_PREFIX "%s: not a trace with a key (trace it with key kstack)",
					name, name);
	}
	if (e)
		return node_error("flame", name, e);
	if (ks_keynode_parse(text, &k, err, sizeof(err))) {
		free(text);
		return err_exit(EX_DATAERR, "%s: %s", path, err);
	}
	free(text);
	if (ks_fold(stdout, &k, count) < 0) {
		ks_keynode_free(&k);
		return err_exit(EX_DATAERR, "%s: the trace has no key (" KEY_PREFIX "%s says \"key -\"): "
				"trace it again with key kstack (kstats remove %s; kstats trace %s WORDS... key kstack)",
				name, name, name, name);
	}
	ks_keynode_free(&k);
	if (fflush(stdout) || ferror(stdout))
		return err_exit(EX_IOERR, "flame %s: standard output: %s", name, strerror(errno));
	return 0;
}

/* --- main ------------------------------------------------------------- */

static int usage(FILE *f)
{
	fputs("usage: kstats [--root DIR] [--json] COMMAND [ARGS]\n"
	      "commands:\n"
	      "  list                       metrics with samples, p50, p99, max\n"
	      "  show NAME                  summary and ASCII histogram\n"
	      "  watch NAME                 one summary per interval\n"
	      "  trace NAME WORDS...        set up a trace (the words of _control)\n"
	      "  remove NAME                remove a trace\n"
	      "  run [-d S] [-i S] NAME WORDS...  trace, print, remove\n"
	      "  reset|stop|start NAME      control a metric\n"
	      "  export --prometheus        Prometheus text exposition format\n"
	      "  plot NAME -o FILE.svg      the distribution as SVG, PNG or PDF (gnuplot)\n"
	      "  flame NAME [--count]       a keyed trace's rows as folded stacks\n"
	      "KSTATS_ROOT=DIR or --root DIR reads DIR instead of " DEFAULT_ROOT ".\n"
	      "COMMAND --help describes each command; kstats(8) the rest.\n", f);
	return f == stdout ? 0 : EX_USAGE;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "list", cmd_list }, { "show", cmd_show }, { "watch", cmd_watch },
		{ "trace", cmd_trace }, { "remove", cmd_remove }, { "run", cmd_run },
		{ "reset", cmd_node_word }, { "stop", cmd_node_word },
		{ "start", cmd_node_word }, { "export", cmd_export },
		{ "plot", cmd_plot }, { "flame", cmd_flame },
	};
	int i;

	/* Commands say what is wrong with an option themselves: bad_option(). */
	opterr = 0;
	root = getenv("KSTATS_ROOT");
	root_given = root && *root;
	if (!root_given)
		root = DEFAULT_ROOT;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--root")) {
			if (i + 1 >= argc)
				return err_exit(EX_USAGE, "--root needs a DIR");
			root = argv[++i];
			root_given = true;
		} else if (!strncmp(argv[i], "--root=", 7)) {
			root = argv[i] + 7;
			root_given = true;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return usage(stdout);
		} else {
			break;
		}
	}
	if (i >= argc)
		return usage(stderr);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		if (!strcmp(argv[i], cmds[c].name)) {
			optind = 1;
			return cmds[c].fn(argc - i, argv + i);
		}
	err_exit(EX_USAGE, argv[i][0] == '-' ? "unknown option '%s' (before the command: --root DIR, --json, --help)" :
		 "unknown command '%s'", argv[i]);
	return usage(stderr);
}
