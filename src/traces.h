/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace registry: traces attached at run time through _control, each
 * timing a function or a section into a node NAME and a node GAP-NAME.
 */
#ifndef _KSTATS_TRACES_H
#define _KSTATS_TRACES_H

struct seq_file;
struct ks_trace_req;

int ks_traces_init(void);
void ks_traces_exit(void);
int ks_trace_add(const struct ks_trace_req *req);
int ks_trace_remove(const char *name);
void ks_trace_list(struct seq_file *m);

#endif /* _KSTATS_TRACES_H */
