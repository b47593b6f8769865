/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control path (_control, /dev/kstats): its parser (control.c) and
 * its two doors (control_files.c), which feed the registry.
 */
#ifndef _KSTATS_CONTROL_H
#define _KSTATS_CONTROL_H

#include <linux/kallsyms.h>

/* A command's longest write: two full-length symbol names and the other keywords fit. */
#define KS_CONTROL_MAX_LEN	(2 * KSYM_NAME_LEN + 256)

struct ks_trace_req;

int ks_parse_control(char *line, struct ks_trace_req *req, const char **why);
int ks_check_trace(struct ks_trace_req *req, const char **why);
int ks_control_init(void);
void ks_control_exit(void);

#endif /* _KSTATS_CONTROL_H */
