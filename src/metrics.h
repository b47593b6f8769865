/* SPDX-License-Identifier: GPL-2.0 */
/* The metric registry: histograms and text nodes by name (kstats_new()). */
#ifndef _KSTATS_METRICS_H
#define _KSTATS_METRICS_H

#include <linux/fs.h>
#include <linux/types.h>

#include "output.h"

struct dentry;
struct kstats;
struct seq_file;

struct kstats *ks_create(const char *who, const char *name, u8 frac_bits,
			 void (*show_extra)(struct seq_file *m, void *arg),
			 unsigned long (*missed)(void *arg), void *arg);
struct dentry *ks_create_text(const char *who, const char *name,
			      const struct file_operations *fops, void *data);
int ks_node_command(const char *name, enum ks_node_cmd cmd);
void ks_metrics_exit(void);

#endif /* _KSTATS_METRICS_H */
