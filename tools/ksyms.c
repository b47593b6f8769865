// SPDX-License-Identifier: GPL-2.0
/*
 * kstats: kernel addresses as symbols, from /proc/kallsyms (ksyms.h).
 * The lookup is bpftrace's ksym(): the symbol at or below the address,
 * bounded by the next symbol.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

/* How far past a module's last symbol (or vmlinux's _end) still counts. */
#define KS_KSYM_TAIL	4096

static int cmp_ksym(const void *a, const void *b)
{
	const struct ks_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Of aliases, a global (the first by name) is as good as any: stable. */
	return strcmp(x->name, y->name);
}

int ks_ksyms_parse(const char *text, struct ks_ksyms *s)
{
	size_t cap = 0, i;
	char *line, *save = NULL;
	bool text_seen = false;

	memset(s, 0, sizeof(*s));
	s->buf = strdup(text);
	if (!s->buf)
		return ENOMEM;
	for (line = strtok_r(s->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *addr, *type, *name, *mod, *end, *f = NULL;
		uint64_t a;

		addr = strtok_r(line, " \t", &f);
		type = strtok_r(NULL, " \t", &f);
		name = strtok_r(NULL, " \t", &f);
		mod = strtok_r(NULL, " \t", &f);
		if (!addr || !type || !name || type[1])
			continue;
		errno = 0;
		a = strtoull(addr, &end, 16);
		if (errno || *end || !a || *type == 'A' || *type == 'a')
			continue;
		if (s->n == cap) {
			struct ks_ksym *nv = realloc(s->v, (cap = cap ? cap * 2 : 4096) * sizeof(*nv));

			if (!nv) {
				ks_ksyms_free(s);
				return ENOMEM;
			}
			s->v = nv;
		}
		if (mod && mod[0] == '[') {
			mod++;
			mod[strcspn(mod, "]")] = 0;
		} else {
			mod = name + strlen(name);	/* "" */
		}
		s->v[s->n].addr = a;
		s->v[s->n].name = name;
		s->v[s->n].mod = mod;
		s->v[s->n].type = *type;
		s->n++;
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_ksym);
	/*
	 * Below the first code symbol is no symbol of the kernel's image:
	 * per-CPU offsets, where a kernel lists them as data at small
	 * addresses, would otherwise name small numbers.
	 */
	for (i = 0; i < s->n && !text_seen; i++)
		if (s->v[i].type == 'T' || s->v[i].type == 't')
			text_seen = true;
	if (text_seen && i > 1) {
		i--;
		memmove(s->v, s->v + i, (s->n - i) * sizeof(*s->v));
		s->n -= i;
	}
	return 0;
}

int ks_ksyms_load(const char *path, struct ks_ksyms *s)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	int e;

	memset(s, 0, sizeof(*s));
	if (!f)
		return errno;
	{
		FILE *m = open_memstream(&text, &len);
		char chunk[65536];
		size_t r;

		if (!m) {
			fclose(f);
			return errno;
		}
		while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, r, m);
		e = ferror(f) ? EIO : 0;
		fclose(f);
		if (fclose(m))
			e = e ? e : ENOMEM;
	}
	if (!e)
		e = ks_ksyms_parse(text, s);
	free(text);
	return e;
}

void ks_ksyms_free(struct ks_ksyms *s)
{
	free(s->v);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

int ks_ksym_fmt(char *buf, size_t len, const struct ks_ksyms *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n, i;
	const struct ks_ksym *k, *next;
	uint64_t off;

	/* The last symbol at or below @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	i = lo - 1;
	k = &s->v[i];
	/* Of several at one address, the first (cmp_ksym's order). */
	while (i && s->v[i - 1].addr == k->addr)
		k = &s->v[--i];
	next = NULL;
	for (i = lo; i < s->n; i++)
		if (s->v[i].addr > addr) {
			next = &s->v[i];
			break;
		}
	off = addr - k->addr;
	/* The end of an image: vmlinux's _end, a module's last symbol. */
	if (!strcmp(k->name, "_end") && !*k->mod)
		return -1;
	if ((!next || strcmp(k->mod, next->mod)) && off >= KS_KSYM_TAIL)
		return -1;
	if (off)
		snprintf(buf, len, "%s+0x%" PRIx64 "%s%s%s", k->name, off,
			 *k->mod ? " [" : "", k->mod, *k->mod ? "]" : "");
	else
		snprintf(buf, len, "%s%s%s%s", k->name, *k->mod ? " [" : "", k->mod,
			 *k->mod ? "]" : "");
	return 0;
}
