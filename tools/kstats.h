/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats: what the tool's files share. main.c dispatches to one file per
 * command (list.c, show.c, ...); common.c holds the helpers they share,
 * control.c the commands' way to the module, ksnode.c the node format.
 */
#ifndef KSTATS_TOOL_H
#define KSTATS_TOOL_H

#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sysexits.h>
#include <time.h>

#include "ksnode.h"

#define DEBUGFS		"/sys/kernel/debug"
#define DEFAULT_ROOT	DEBUGFS "/kstats"
#define DEBUGFS_MAGIC	0x64626720
#define KEY_PREFIX	"KEY-"
#define GAP_PREFIX	"GAP-"
#define DEFAULT_DEV	"/dev/kstats"
#define LOCKDOWN_FILE	"/sys/kernel/security/lockdown"

/* common.c: the options before the command, and the signal seen. */
extern const char *root;
extern bool root_given;
extern bool json;
extern volatile sig_atomic_t stop_signal;
extern const struct option unit_opts[];

int err_exit(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bad_option(char **argv, int opt);
const char *lockdown_parse(const char *text, char *buf, size_t len);
const char *lockdown_mode(char *buf, size_t len);
int check_root(void);
int node_error(const char *what, const char *name, int e);
int read_all(const char *path, char **out);
int load(const char *name, bool interval, struct ks_node *n);
int load_keynode(const char *cmd, const char *name, struct ks_keynode *k);
int no_key(const char *name);
struct ks_flame_opts;
int keynode_svg(FILE *f, const char *what, const char *name,
		const struct ks_keynode *k, struct ks_flame_opts *o);
int cmp_str(const void *a, const void *b);
int metric_names(char ***names);
void free_names(char **v, int n);
struct json_object *ju64(uint64_t v);
struct json_object *json_summary(const struct ks_node *n);
void print_json(struct json_object *o);
const char *fmtv(char *buf, size_t len, bool has, uint64_t ns, enum ks_unit u);
int parse_unit(const char *s, enum ks_unit *u);
int parse_range(const char *opt, const char *s, unsigned long min,
		unsigned long max, unsigned long *v);
int one_name(const char *cmd, int argc, char **argv);
int parse_uint(const char *opt, const char *s, unsigned long max,
	       unsigned long *v);
void timestamp(char *buf, size_t len);
void install_signals(void);
bool sleep_until(const struct timespec *deadline);
bool wants_help(int argc, char **argv);

/* control.c: commands go to dev (KSTATS_DEV, --dev) when it exists. */
extern const char *dev;
bool use_dev(void);
void perm_hint(char *buf, size_t len, int e, const char *mode, bool to_dev,
	       const char *what);
int control(const char *verb, int argc, char **argv);
int node_cmd(const char *word, const char *name);

/* show.c: run prints with them too. */
void print_summary(const struct ks_node *n, enum ks_unit u);
int show_node(const struct ks_node *n, int cpu, bool slots, enum ks_unit u);

/* rows.c: run prints a keyed trace's rows as rows does (by: 0 is total). */
struct ks_ksyms;
int rows_print(const char *name, int by, unsigned long top, bool folded,
	       enum ks_unit u, const struct ks_ksyms *ks, bool raw);

/* One per command, in its own file. */
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_remove(int argc, char **argv);
int cmd_node_word(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_rows(int argc, char **argv);

#endif
