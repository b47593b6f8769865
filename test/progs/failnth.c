// SPDX-License-Identifier: GPL-2.0
/*
 * failnth: kstats' system calls with their Nth allocation failing, through
 * the kernel's fail-nth (/proc/thread-self/fail-nth: failslab and
 * fail_page_alloc; Documentation/fault-injection/fault-injection.rst).
 * For N = 1, 2, ... until the call makes fewer than N allocations, in one
 * process (a fork and exec per N would take longer than the calls):
 *
 *	failnth w NAME CMD LINE		write LINE to _control; after a
 *					success, write CMD to the test
 *					target (calls to trace; "raise N":
 *					N signals to itself instead), then print
 *					NAME's samples and missed, KEY-NAME
 *					if any, and remove NAME
 *	failnth r FILE CMD		CMD to the test target, then the
 *					first read() of FILE (opened before
 *					arming)
 *	failnth o FILE			the open() of FILE
 *	failnth 1 FILE LINE		once, N = 1: write LINE to FILE
 *
 * Each N prints
 *	failnth N res R errno E injected Y|N
 * (injected Y: the kernel failed an allocation, fail-nth read back 0;
 * N: the call made fewer than N), then for w after a success
 * "samples S missed M method M" and KEY-NAME, for r and o after a success
 * what was read; then "@@FNEND state S", S for w a hash of the _control
 * listing, the names under kstats/, the kprobes list and enabled_functions
 * (after a success, once NAME is removed again). The first line is
 * "failnth base state S". Only the armed call runs between arming and
 * disarming, so the fault can fire in it alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KS "/sys/kernel/debug/kstats"
#define TARGET "/sys/kernel/debug/kstats_test_target"

static char buf[1 << 16];
static int fn;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* Reads FILE whole into buf; returns its length, or -1. */
static ssize_t slurp(const char *file)
{
	ssize_t len = 0, n;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return -1;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

static uint64_t hash_dir(uint64_t h, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return fnv(h, "-", 1);
	/* debugfs lists a directory in a stable order. */
	while ((e = readdir(d)))
		h = fnv(h, e->d_name, strlen(e->d_name) + 1);
	closedir(d);
	return h;
}

/* What a failed call must leave as it was. */
static uint64_t state(void)
{
	static const char * const files[] = {
		KS "/_control", "/sys/kernel/debug/kprobes/list",
		"/sys/kernel/tracing/enabled_functions",
	};
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		ssize_t len = slurp(files[i]);

		h = fnv(h, buf, len > 0 ? len : 0);
		h = fnv(h, "|", 1);
	}
	h = hash_dir(h, KS);
	return hash_dir(h, KS "/_interval");
}

static void put(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("@@FAIL write '%s' to %s: %s\n", text, file, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void arm(int n)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", n);
	if (write(fn, num, strlen(num)) < 0)
		die("arm fail-nth");
}

/* Disarms; returns whether the fault was injected. */
static int disarm(void)
{
	char num[16];
	ssize_t len = pread(fn, num, sizeof(num) - 1, 0);

	if (write(fn, "0", 1) < 0)
		die("disarm fail-nth");
	num[len > 0 ? len : 0] = 0;
	return len > 0 && atoi(num) == 0;
}

/* The figure KEY of a node's "# KEY VALUE" lines, in buf. */
static long long figure(const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n# %s ", key);
	p = strstr(buf, pat);
	return p ? atoll(p + strlen(pat)) : -1;
}

/* The method of trace NAME in the _control listing, in buf. */
static void method(const char *name, char *out, size_t size)
{
	char pat[96];
	const char *p;

	snprintf(pat, sizeof(pat), "%s method ", name);
	p = strstr(buf, pat);
	if (p && (p == buf || p[-1] == '\n'))
		sscanf(p + strlen(pat), "%31s", out);
	else
		snprintf(out, size, "-");
}

static void on_signal(int sig)
{
	(void)sig;
}

/* CALLS to the test target; "raise N": N signals to this process. */
static void make_calls(const char *calls)
{
	int i, n;

	if (sscanf(calls, "raise %d", &n) != 1) {
		put(TARGET, calls);
		return;
	}
	signal(SIGUSR1, on_signal);
	for (i = 0; i < n; i++)
		if (raise(SIGUSR1))
			printf("@@FAIL raise: %s\n", strerror(errno));
}

static void after_trace(const char *name, const char *calls)
{
	char file[256], cmd[128], meth[32] = "-";
	long long samples, missed;

	make_calls(calls);
	snprintf(file, sizeof(file), KS "/%s", name);
	slurp(file);
	samples = figure("samples");
	missed = figure("missed");
	slurp(KS "/_control");
	method(name, meth, sizeof(meth));
	printf("samples %lld missed %lld method %s\n", samples, missed, meth);
	snprintf(file, sizeof(file), KS "/KEY-%s", name);
	if (slurp(file) >= 0)
		fputs(buf, stdout);
	snprintf(cmd, sizeof(cmd), "remove %s", name);
	put(KS "/_control", cmd);
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 0;
	int n, fd = -1, injected, err;
	ssize_t res, len;

	if (!((mode == 'w' && argc == 5) || (mode == 'r' && argc == 4) ||
	      (mode == 'o' && argc == 3) || (mode == '1' && argc == 4))) {
		fprintf(stderr, "usage: failnth w NAME CMD LINE | r FILE CMD | o FILE | 1 FILE LINE\n");
		return 2;
	}
	fn = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fn < 0)
		die("fail-nth");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("failnth base state %016llx\n", (unsigned long long)state());
	for (n = 1; n < 100000; n++) {
		if (mode == 'r')
			put(TARGET, argv[3]);
		if (mode != 'o') {
			fd = open(mode == 'w' ? KS "/_control" : argv[2],
				  mode == 'r' ? O_RDONLY : O_WRONLY);
			if (fd < 0)
				die(argv[2]);
		}
		/* The armed call: nothing but it between arm() and disarm(). */
		arm(n);
		if (mode == 'w')
			res = write(fd, argv[4], strlen(argv[4]));
		else if (mode == '1')
			res = write(fd, argv[3], strlen(argv[3]));
		else if (mode == 'r')
			res = read(fd, buf, sizeof(buf) - 1);
		else
			res = fd = open(argv[2], O_RDONLY);
		err = res < 0 ? errno : 0;
		injected = disarm();
		if (mode == 'r' && res >= 0)
			buf[res] = 0;
		if (mode == 'o' && res >= 0) {
			len = read(fd, buf, sizeof(buf) - 1);
			buf[len > 0 ? len : 0] = 0;
		}
		if (fd >= 0)
			close(fd);
		fd = -1;
		printf("failnth %d res %zd errno %d injected %c\n",
		       n, res, err, injected ? 'Y' : 'N');
		if (res >= 0 && mode == 'w')
			after_trace(argv[2], argv[3]);
		else if (res >= 0 && (mode == 'r' || mode == 'o'))
			fputs(buf, stdout);
		/* After a successful write, once its trace is removed again. */
		printf("@@FNEND state %016llx\n",
		       (unsigned long long)(mode == 'w' ? state() : 0));
		if (!injected || mode == '1')
			break;
	}
	return 0;
}
