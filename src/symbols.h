/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions by name, read from /proc/kallsyms, and whether ftrace can
 * trace them: what the kernel's own kprobe_events decides by, found
 * without placing a probe anywhere.
 */
#ifndef _KSTATS_SYMBOLS_H
#define _KSTATS_SYMBOLS_H

#include <linux/types.h>

/*
 * One line of /proc/kallsyms: @addr (0 where kernel.kptr_restrict hides
 * it), nm's @type letter, @name, and @mod (NULL for vmlinux). Returns
 * true to stop the reading.
 */
typedef bool (*ks_kallsyms_fn)(void *priv, unsigned long addr, char type,
			       const char *name, const char *mod);

int ks_kallsyms_read(const char *trace, ks_kallsyms_fn fn, void *priv);

/* A symbol looked up as kprobes look it up (kallsyms_lookup_name()). */
struct ks_sym {
	const char *name;	/* FUNCTION, or MODULE:FUNCTION */
	unsigned long addr;	/* its address; 0: no such symbol */
	char type;		/* nm's letter: t, T, w, W for text */
};

int ks_symbols_find(struct ks_sym *syms, unsigned int n);
int ks_symbols_init(void);
void ks_symbols_exit(void);
bool ks_sym_is_text(const struct ks_sym *sym);
int ks_ftrace_site(unsigned long addr);
int ks_probe_site(unsigned long addr);
int ks_probeable(unsigned long addr);

#endif /* _KSTATS_SYMBOLS_H */
