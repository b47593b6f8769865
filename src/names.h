/* SPDX-License-Identifier: GPL-2.0 */
/* Names: resolving the start and end words of a trace to probe points. */
#ifndef _KSTATS_NAMES_H
#define _KSTATS_NAMES_H

struct tracepoint;
struct ks_trace_req;

struct tracepoint *ks_find_tracepoint(const char *name);
int ks_resolve(const char *trace, const char *sym, unsigned long *addr);
int ks_resolve_points(struct ks_trace_req *req);

#endif /* _KSTATS_NAMES_H */
