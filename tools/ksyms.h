/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms: kernel addresses as symbols, from /proc/kallsyms (or a file in
 * its format), as bpftrace's ksym() names them: for the addresses that
 * a trace's "key argN" rows print in decimal (a lock, a work item, an
 * object of the kernel's data).
 */
#ifndef KSYMS_H
#define KSYMS_H

#include <stddef.h>
#include <stdint.h>

#define KS_KALLSYMS	"/proc/kallsyms"

struct ks_ksym {
	uint64_t addr;
	const char *name;	/* into ks_ksyms.buf */
	const char *mod;	/* "" for vmlinux, else the module's name */
	char type;		/* kallsyms' letter: T, t, D, d, B, b, ... */
};

struct ks_ksyms {
	char *buf;
	size_t n;
	struct ks_ksym *v;	/* by address */
};

/*
 * Load @path (lines "ADDR TYPE NAME [MODULE]"). Absolute symbols (type
 * A, a: per-CPU offsets and constants, not addresses) and zero addresses
 * (what a reader without CAP_SYSLOG sees) are left out. Returns 0 or an
 * errno; with no symbol left, 0 and an empty table (nothing resolves).
 */
int ks_ksyms_load(const char *path, struct ks_ksyms *s);
/* The same from @text (a copy is kept). */
int ks_ksyms_parse(const char *text, struct ks_ksyms *s);
void ks_ksyms_free(struct ks_ksyms *s);

/*
 * @addr as "sym", "sym+0xOFF" or "sym+0xOFF [mod]" in @buf, as %pS
 * writes a frame without its size. Returns 0, or -1 (nothing written)
 * when @addr is not inside a symbol: below the kernel's first symbol (a
 * heap or stack address), past the last one, or past _end (the end of
 * vmlinux's image) or a module's last symbol by more than a page.
 */
int ks_ksym_fmt(char *buf, size_t len, const struct ks_ksyms *s, uint64_t addr);

#endif
