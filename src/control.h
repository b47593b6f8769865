/* SPDX-License-Identifier: GPL-2.0 */
/* The _control file: its parser, and the node that feeds the registry. */
#ifndef _KSTATS_CONTROL_H
#define _KSTATS_CONTROL_H

struct ks_trace_req;

int ks_parse_control(char *line, struct ks_trace_req *req, const char **why);
int ks_check_trace(struct ks_trace_req *req, const char **why);
int ks_control_init(void);

#endif /* _KSTATS_CONTROL_H */
