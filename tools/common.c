// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: the helpers the commands share: errors and exit statuses, the
 * kstats directory, reading nodes and KEY-NAME, a trace's flame graph,
 * names, JSON summaries, option values, signals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "flamesvg.h"
#include "kstats.h"
#include "usyms.h"

const char *root;
bool root_given;
bool json;
volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

int err_exit(int code, const char *fmt, ...)
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
void bad_option(char **argv, int opt)
{
	const char *word = argv[optind - 1];

	if (opt == ':')
		err_exit(EX_USAGE, "%s: option '%s' needs a value", argv[0], word);
	else if (word[0] == '-' && word[1] != '-' && optopt)
		err_exit(EX_USAGE, "%s: unknown option '-%c'", argv[0], optopt);
	else
		err_exit(EX_USAGE, "%s: unknown option '%s'", argv[0], word);
}

/*
 * The mode @text (the lockdown file: "none [integrity] confidentiality")
 * selects, in @buf; NULL for none or a text without a selection.
 */
const char *lockdown_parse(const char *text, char *buf, size_t len)
{
	const char *lb = strchr(text, '['), *rb = lb ? strchr(lb, ']') : NULL;

	if (!rb)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(rb - lb - 1), lb + 1);
	return strcmp(buf, "none") ? buf : NULL;
}

/* The kernel's lockdown mode (integrity, confidentiality), or NULL. */
const char *lockdown_mode(char *buf, size_t len)
{
	char text[128] = "";
	FILE *f = fopen(LOCKDOWN_FILE, "r");

	if (!f)
		return NULL;
	if (!fgets(text, sizeof(text), f))
		text[0] = 0;
	fclose(f);
	return lockdown_parse(text, buf, len);
}

/* The kstats directory is there, or why not (an exit status). */
int check_root(void)
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
int node_error(const char *what, const char *name, int e)
{
	switch (e) {
	case ENOENT:
		return err_exit(EX_NOINPUT, "%s: no metric %s (kstats list shows them)",
				name, name);
	case EACCES:
	case EPERM: {
		char mode[32];

		if (lockdown_mode(mode, sizeof(mode)))
			return err_exit(EX_NOPERM, "%s %s: %s (the kernel is locked down (%s))",
					what, name, strerror(e), mode);
		return err_exit(EX_NOPERM, "%s %s: %s%s", what, name, strerror(e),
				geteuid() ? " (run as root)" : "");
	}
	case EIO:
		return err_exit(EX_IOERR, "%s %s: %s (the metric was removed while being read)",
				what, name, strerror(e));
	default:
		return err_exit(EX_IOERR, "%s %s: %s", what, name, strerror(e));
	}
}

/* Read a whole file; returns 0 or an errno. */
int read_all(const char *path, char **out)
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
int load(const char *name, bool interval, struct ks_node *n)
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

/*
 * Load trace @name's KEY-NAME into @k for command @cmd; returns 0 or an
 * exit status: 66 with where the rows are when there is no KEY-NAME.
 */
static int load_keynode_raw(const char *cmd, const char *name, struct ks_keynode *k)
{
	char path[4096], err[160], *text = NULL;
	int e;

	if (!*name || strchr(name, '/') || name[0] == '.' || name[0] == '_' ||
	    !strncmp(name, KEY_PREFIX, strlen(KEY_PREFIX)))
		return err_exit(EX_USAGE, "%s: not a metric name (%s takes the trace's NAME)",
				name, cmd);
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
		return node_error(cmd, name, e);
	if (ks_keynode_parse(text, k, err, sizeof(err))) {
		free(text);
		return err_exit(EX_DATAERR, "%s: %s", path, err);
	}
	free(text);
	return 0;
}

/* KEY-NAME of trace @name, its user frames named (usyms.c). */
int load_keynode(const char *cmd, const char *name, struct ks_keynode *k)
{
	int rc = load_keynode_raw(cmd, name, k);

	if (rc)
		return rc;
	if (ks_name_user_frames(k)) {
		ks_keynode_free(k);
		return err_exit(EX_OSERR, "%s %s: out of memory", cmd, name);
	}
	return 0;
}

/* Trace @name has no key (its KEY-NAME says "key -"): 65, and what to do. */
int no_key(const char *name)
{
	return err_exit(EX_DATAERR, "%s: the trace has no key (" KEY_PREFIX "%s says \"key -\"): "
			"trace it again with key kstack (kstats remove %s; kstats trace %s WORDS... key kstack)",
			name, name, name, name);
}

/*
 * Trace @name's rows @k drawn as a flame graph to @f, as kstats flame
 * NAME --svg draws them: folded (ks_fold()), titled "kstats flame NAME"
 * unless @o has a title. Returns 0, or an exit status (65 when the
 * trace has no key: nothing is written). @what names @f in messages.
 */
int keynode_svg(FILE *f, const char *what, const char *name,
		const struct ks_keynode *k, struct ks_flame_opts *o)
{
	char title[512], subtitle[512], err[160], *folded = NULL;
	size_t len;
	FILE *m = open_memstream(&folded, &len);
	int rc = 0;

	if (!m)
		return err_exit(EX_OSERR, "flame %s: %s", name, strerror(errno));
	/* With user frames, kernel frames are marked for their palette. */
	if (ks_fold_marked(m, k, o->count, ks_keynode_has_user(k)) < 0) {
		fclose(m);
		free(folded);
		return no_key(name);
	}
	if (fclose(m))
		return err_exit(EX_OSERR, "flame %s: %s", name, strerror(errno));
	if (!o->title) {
		snprintf(title, sizeof(title), "kstats flame %s", name);
		o->title = title;
	}
	snprintf(subtitle, sizeof(subtitle), "trace %s, key %s: frames as wide as their %s",
		 name, k->key, o->count ? "count" : "total time");
	o->subtitle = subtitle;
	if (ks_flame_svg(f, folded, o, err, sizeof(err)) < 0)
		rc = err_exit(EX_DATAERR, "%s: %s", name, err);
	else if (fflush(f) || ferror(f))
		rc = err_exit(EX_IOERR, "flame %s: %s: %s", name, what, strerror(errno));
	if (o->title == title)
		o->title = NULL;
	o->subtitle = NULL;
	free(folded);
	return rc;
}

int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The metrics' names, sorted; returns the count or -1 (errno set). */
int metric_names(char ***names)
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

void free_names(char **v, int n)
{
	while (n--)
		free(v[n]);
	free(v);
}

struct json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/* The node's summary as a JSON object (fields in kstats(8)). */
struct json_object *json_summary(const struct ks_node *n)
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

void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

const char *fmtv(char *buf, size_t len, bool has, uint64_t ns,
		 enum ks_unit u)
{
	if (!has) {
		snprintf(buf, len, "-");
		return buf;
	}
	ks_fmt(buf, len, ns, u);
	/* The unit always: "0.5ms" with --unit ms, as "500us" without. */
	strncat(buf, ks_unit_name(u == KS_AUTO ? ks_unit_auto(ns) : u), len - strlen(buf) - 1);
	return buf;
}

const struct option unit_opts[] = {
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

int parse_unit(const char *s, enum ks_unit *u)
{
	if (ks_unit_parse(s, u))
		return err_exit(EX_USAGE, "--unit %s: use ns, us, ms, s or auto", s);
	return 0;
}

/* @s as a number from @min to @max, or a usage error that says so. */
int parse_range(const char *opt, const char *s, unsigned long min,
		unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || !*s || *end || *s == '-' || *v < min || *v > max)
		return err_exit(EX_USAGE, "%s %s: not a whole number from %lu to %lu",
				opt, s, min, max);
	return 0;
}

/* The one NAME after a command's options, or a usage error naming the fault. */
int one_name(const char *cmd, int argc, char **argv)
{
	if (optind == argc)
		return err_exit(EX_USAGE, "%s: give NAME", cmd);
	if (optind < argc - 1)
		return err_exit(EX_USAGE, "%s takes one NAME: '%s' too", cmd, argv[optind + 1]);
	return 0;
}

int parse_uint(const char *opt, const char *s, unsigned long max,
	       unsigned long *v)
{
	return parse_range(opt, s, 0, max, v);
}

void timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Sleep until @deadline (CLOCK_MONOTONIC); false if a signal came. */
bool sleep_until(const struct timespec *deadline)
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

bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}
