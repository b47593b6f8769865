/* SPDX-License-Identifier: GPL-2.0 */
/* Names: resolving the start and end words of a trace to probe points. */
#ifndef _KSTATS_NAMES_H
#define _KSTATS_NAMES_H

#include <linux/types.h>

#include "patterns.h"

struct module;
struct tracepoint;
struct ks_trace_req;

struct tracepoint *ks_find_tracepoint(const char *name);
int ks_resolve(const char *trace, const char *sym, unsigned long *addr);
int ks_resolve_points(struct ks_trace_req *req);
bool ks_is_function_set(const char *spec);
int ks_funcs_resolve(const char *trace, const char *spec, struct ks_funcs *f);
void ks_funcs_free(struct ks_funcs *f);
bool ks_symbol_range(unsigned long addr, unsigned long *lo, unsigned long *hi);

#endif /* _KSTATS_NAMES_H */
