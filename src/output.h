/* SPDX-License-Identifier: GPL-2.0 */
/* The debugfs/output layer: the kstats directory and one node per metric. */
#ifndef _KSTATS_OUTPUT_H
#define _KSTATS_OUTPUT_H

#include <linux/types.h>

struct kstats;
struct seq_file;
struct ks_snapshot;

int ks_output_init(void);
int ks_control_node_create(const struct file_operations *fops);
void ks_output_exit(void);
int ks_node_create(struct kstats *ks);
void ks_node_remove(struct kstats *ks);
struct dentry *ks_text_node_create(const char *name,
				   const struct file_operations *fops,
				   void *data);
void ks_show_slot(struct seq_file *m, const struct ks_snapshot *snap, u32 slot);
void ks_show_summary(struct seq_file *m, const char *name, bool active,
		     const struct ks_snapshot *snap);
int ks_parse_node_cmd(const char *buf, size_t len);

/* What a write to a node asks for. */
enum ks_node_cmd {
	KS_CMD_START,
	KS_CMD_STOP,
	KS_CMD_RESET,
};

#endif /* _KSTATS_OUTPUT_H */
