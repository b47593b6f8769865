// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: where commands go: /dev/kstats, or _control and the metrics'
 * nodes on older modules. Kernel lockdown refuses writable debugfs files,
 * the device it lets through; so the device, whenever there is one, takes
 * every command, and its errors are reported as they are (no retry on
 * debugfs, which would only add lockdown's refusal).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "kstats.h"

/* The device: KSTATS_DEV or --dev (main.c), else /dev/kstats. */
const char *dev = DEFAULT_DEV;

/*
 * Does the module take commands on its device (older ones have none)?
 * Not for a --root of captured files, unless a device was named: the
 * live module's metrics are not theirs.
 */
bool use_dev(void)
{
	struct statfs sf;
	struct stat st;

	if (strcmp(dev, DEFAULT_DEV) == 0 && strcmp(root, DEFAULT_ROOT) &&
	    (statfs(root, &sf) || sf.f_type != DEBUGFS_MAGIC))
		return false;
	return !stat(dev, &st);
}

/*
 * What to add to "WHAT: PATH: strerror(@e)" for EPERM or EACCES, with
 * @mode the lockdown mode (or NULL) and @to_dev whether PATH was the
 * device: lockdown when it is the cause, else a hint to run as root.
 */
void perm_hint(char *buf, size_t len, int e, const char *mode, bool to_dev,
	       const char *what)
{
	if (e == EPERM && mode && !to_dev)
		snprintf(buf, len, ": the kernel is locked down (%s), which refuses writable debugfs files; "
			 "this kstats module has no %s (upgrade kstats-dkms)", mode, dev);
	else if (e == EPERM && mode && !strcmp(mode, "confidentiality") && !strcmp(what, "trace"))
		snprintf(buf, len, ": the kernel is locked down (confidentiality), where kstats attaches no probes");
	else if (e == EPERM && mode)
		snprintf(buf, len, ": the kernel is locked down (%s)", mode);
	else if (geteuid())
		snprintf(buf, len, " (run as root)");
	else if (len)
		buf[0] = 0;
}

/* Is @fd a file of debugfs (kstats' own), not a captured copy? */
static int on_debugfs(int fd)
{
	struct statfs sf;

	return !fstatfs(fd, &sf) && sf.f_type == DEBUGFS_MAGIC;
}

/*
 * Write @cmd to @path (the device when @to_dev) in one write(). On
 * failure, print the errno and kstats' own dmesg line for it (read from
 * /dev/kmsg, from where the log ended before the write), and return an
 * exit status. @name is the metric of a node command, else NULL.
 */
static int write_cmd(const char *path, const char *what, const char *cmd,
		     bool to_dev, const char *name)
{
	int kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int fd, e = 0;
	char reason[512] = "";

	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && !to_dev && !on_debugfs(fd)) {
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
		if (e == ENOENT && !to_dev && !statfs(slash ? dir : ".", &sf) &&
		    sf.f_type != DEBUGFS_MAGIC) {
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
	/* As without the device, where the node is looked up first. */
	if (e == ENOENT && name)
		return err_exit(EX_NOINPUT, "%s: no metric %s (kstats list shows them)%s%s",
				name, name, reason[0] ? "\nkstats: dmesg: " : "", reason);
	/* ENOENT from trace is an unknown function: the words are wrong. */
	if (e == ENOENT && strcmp(what, "trace"))
		return err_exit(EX_NOINPUT, "%s: no such metric or trace (errno %d ENOENT)%s%s",
				what, e, reason[0] ? "\nkstats: dmesg: " : "", reason);
	if (e == EACCES || e == EPERM) {
		char mode[32], hint[256];

		perm_hint(hint, sizeof(hint), e, lockdown_mode(mode, sizeof(mode)),
			  to_dev, what);
		return err_exit(EX_NOPERM, "%s: %s: %s%s", what, path, strerror(e), hint);
	}
	if (e == EIO)
		return err_exit(EX_IOERR, "%s: %s (the metric was removed)", what,
				strerror(e));
	fprintf(stderr, "kstats: %s refused: %s (errno %d %s)%s%s\n", what,
		strerror(e), e, strerrorname_np(e) ? strerrorname_np(e) : "?",
		reason[0] ? "\nkstats: dmesg: " : "", reason);
	return e == ENOMEM ? EX_OSERR : EX_DATAERR;
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
 * A comm or cgroup path with blanks, as the kernel reads it: octal
 * escapes (\040 for a space), as KEY-NAME prints them. NULL when out of
 * memory.
 */
static char *escape_blanks(const char *s)
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

/* "trace NAME WORDS..." or "remove NAME": to the device, or _control. */
int control(const char *verb, int argc, char **argv)
{
	char path[4096], *cmd, **words;
	bool to_dev = use_dev();
	int rc, i;

	if (!to_dev && (rc = check_root()))
		return rc;
	/* _control splits at blanks: a comm or a cgroup path keeps its own, escaped. */
	words = calloc(argc ? argc : 1, sizeof(*words));
	if (!words)
		return err_exit(EX_OSERR, "out of memory");
	for (i = 0; i < argc; i++) {
		bool blank = strpbrk(argv[i], " \t\n\r\v\f");
		bool comm = i && !strcmp(argv[i - 1], "comm");
		bool may_blank = comm || (i && !strcmp(argv[i - 1], "cgroup"));

		if (!argv[i][0]) {
			rc = err_exit(EX_USAGE, "%s: word %d is empty: _control's words are separated "
				      "by blanks, so it would vanish (give NAME and each word)",
				      verb, i + 1);
			goto out;
		}
		/* No _control word starts with "--" or "-LETTER"; kstats' options do. */
		if (argv[i][0] == '-' && (argv[i][1] == '-' || isalpha((unsigned char)argv[i][1])) &&
		    !comm) {
			rc = err_exit(EX_USAGE, "%s: '%s' is not a word of _control; kstats' options go "
				      "before the command (kstats [--root DIR] [--json] COMMAND ...)",
				      verb, argv[i]);
			goto out;
		}

		if (blank && !may_blank) {
			rc = err_exit(EX_USAGE, "'%s': a word with a blank; only a comm or a cgroup path "
				      "may have one (comm 'my prog', cgroup '/my svc')", argv[i]);
			goto out;
		}
		words[i] = blank ? escape_blanks(argv[i]) : strdup(argv[i]);
		if (!words[i]) {
			rc = err_exit(EX_OSERR, "out of memory");
			goto out;
		}
	}
	cmd = join(verb, argc, words);
	if (!cmd)
		return err_exit(EX_OSERR, "out of memory");
	snprintf(path, sizeof(path), "%s/_control", root);
	rc = write_cmd(to_dev ? dev : path, verb, cmd, to_dev, NULL);
	free(cmd);
out:
	for (i = 0; i < argc; i++)
		free(words[i]);
	free(words);
	return rc;
}

/*
 * Node command @word (reset, stop, start) for metric @name: "WORD NAME"
 * to the device, or "WORD" to the metric's node on older modules.
 */
int node_cmd(const char *word, const char *name)
{
	char path[4096], cmd[4200];
	int rc;

	if (use_dev()) {
		snprintf(cmd, sizeof(cmd), "%s %s\n", word, name);
		return write_cmd(dev, word, cmd, true, name);
	}
	if ((rc = check_root()))
		return rc;
	snprintf(path, sizeof(path), "%s/%s", root, name);
	if (access(path, F_OK))
		return node_error(word, name, errno);
	snprintf(cmd, sizeof(cmd), "%s\n", word);
	return write_cmd(path, word, cmd, false, name);
}
