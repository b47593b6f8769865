/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of functions a trace's start covers, from a list (names.c) or a
 * glob pattern (patterns.c), and the pattern part of finding them.
 */
#ifndef _KSTATS_PATTERNS_H
#define _KSTATS_PATTERNS_H

#include <linux/types.h>

/*
 * Most functions one trace may cover, by a list or a pattern: a few
 * thousand, as a pattern such as tcp_* or ext4_* matches; kretprobes
 * each hold a pool of maxactive instances (README, "memory").
 */
#define KS_FUNCS_MAX	4096
/*
 * Names a pattern may match in kallsyms before those without an ftrace
 * site, __init ones and aliases are left out: the bound applies to what
 * is left, which is fewer (s* on 6.12: 4383 names, 3738 functions).
 */
#define KS_PATTERN_NAMES_MAX	(2 * KS_FUNCS_MAX)

/* The functions a trace's start covers. */
struct ks_funcs {
	unsigned int n;		/* probed: names[0..n-1], addrs[0..n-1] */
	unsigned int skipped;	/* matched, but kstats may not probe them */
	char **names;
	unsigned long *addrs;	/* where a kprobe on each sits */
	char *pattern;		/* the glob they were found by, if any */
	unsigned int skipped_named;	/* how many of them skipped_names holds */
	char skipped_names[160];	/* the first few skipped, for dmesg */
};

void ks_funcs_skip(struct ks_funcs *f, const char *name);
const char *ks_pattern_valid(const char *p);
int ks_pattern_check(const char *trace, const char *spec);
int ks_pattern_expand(const char *trace, const char *pattern,
		      struct ks_funcs *f);

#endif /* _KSTATS_PATTERNS_H */
