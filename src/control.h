/* SPDX-License-Identifier: GPL-2.0 */
/* The control path (_control, /dev/kstats): its parser, and what feeds the registry. */
#ifndef _KSTATS_CONTROL_H
#define _KSTATS_CONTROL_H

struct ks_trace_req;

int ks_parse_control(char *line, struct ks_trace_req *req, const char **why);
int ks_check_trace(struct ks_trace_req *req, const char **why);
int ks_control_init(void);
void ks_control_exit(void);

#endif /* _KSTATS_CONTROL_H */
