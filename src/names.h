/* SPDX-License-Identifier: GPL-2.0 */
/* Names: resolving the start and end words of a trace to probe points. */
#ifndef _KSTATS_NAMES_H
#define _KSTATS_NAMES_H

#include <linux/types.h>

struct module;
struct tracepoint;
struct ks_trace_req;

/* Most functions one trace may cover, by a list or a pattern. */
#define KS_FUNCS_MAX	256

/* The functions a trace's start covers. */
struct ks_funcs {
	unsigned int n;		/* probed: names[0..n-1], addrs[0..n-1] */
	unsigned int skipped;	/* matched, but kprobes refuse them */
	char **names;
	unsigned long *addrs;	/* where a kprobe on each sits */
	char *pattern;		/* the glob they were found by, if any */
	unsigned int skipped_named;	/* how many of them skipped_names holds */
	char skipped_names[160];	/* the first few skipped, for dmesg */
};

struct tracepoint *ks_find_tracepoint(const char *name);
int ks_resolve(const char *trace, const char *sym, unsigned long *addr);
int ks_resolve_points(struct ks_trace_req *req);
bool ks_is_function_set(const char *spec);
int ks_funcs_resolve(const char *trace, const char *spec, struct ks_funcs *f);
void ks_funcs_free(struct ks_funcs *f);
void ks_funcs_skip(struct ks_funcs *f, const char *name);
const char *ks_pattern_valid(const char *p);
int ks_pattern_check(const char *trace, const char *spec);
int ks_pattern_expand(const char *trace, const char *pattern,
		      struct ks_funcs *f);
bool ks_symbol_range(unsigned long addr, unsigned long *lo, unsigned long *hi);

#endif /* _KSTATS_NAMES_H */
