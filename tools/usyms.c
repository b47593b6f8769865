// SPDX-License-Identifier: GPL-2.0
/* usyms: user frames named in their processes (see usyms.h). */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usyms.h"

/* libstdc++'s demangler (cxxabi.h), as bpftrace and perf name C++ code. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* One process's modules, reported once per run of the tool. */
struct proc_syms {
	long long tgid;
	uint64_t start;		/* as KEY-NAME gives it, ns since boot; 0: not given */
	Dwfl *dwfl;		/* NULL: the process is gone (or unreadable) */
	char *perf_map;		/* /tmp/perf-PID.map's text, or NULL */
};

struct usyms {
	struct proc_syms *v;
	size_t n;
};

static char *debuginfo_path;
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/*
 * Whether process @tgid is the one that started at @start ns after boot:
 * /proc/PID/stat's starttime is the same instant in clock ticks. A pid
 * used again by a later process is not.
 */
static bool same_process(long long tgid, uint64_t start)
{
	unsigned long long ticks;
	char path[64], *text, *p;
	long hz = sysconf(_SC_CLK_TCK);
	int i;
	bool same = false;

	if (!start)
		return true;
	snprintf(path, sizeof(path), "/proc/%lld/stat", tgid);
	text = read_text(path);
	/* After the comm's last ')': state is field 3, starttime 22. */
	p = text ? strrchr(text, ')') : NULL;
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (p && hz > 0 && sscanf(p + 1, "%llu", &ticks) == 1)
		same = ticks == start / (1000000000ULL / (unsigned long long)hz);
	free(text);
	return same;
}

static struct proc_syms *proc_get(struct usyms *u, long long tgid, uint64_t start)
{
	struct proc_syms *p, *nv;
	char path[64];
	size_t i;

	for (i = 0; i < u->n; i++)
		if (u->v[i].tgid == tgid && u->v[i].start == start)
			return &u->v[i];
	nv = realloc(u->v, (u->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	u->v = nv;
	p = &u->v[u->n++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->start = start;
	if (!same_process(tgid, start))
		return p;	/* gone: no modules, no perf map */
	p->dwfl = dwfl_begin(&proc_callbacks);
	if (p->dwfl) {
		dwfl_report_begin(p->dwfl);
		if (dwfl_linux_proc_report(p->dwfl, (pid_t)tgid) ||
		    dwfl_report_end(p->dwfl, NULL, NULL)) {
			dwfl_end(p->dwfl);
			p->dwfl = NULL;
		}
	}
	snprintf(path, sizeof(path), "/tmp/perf-%lld.map", tgid);
	p->perf_map = read_text(path);
	return p;
}

/* A JIT's symbol from its perf map: lines "START SIZE NAME", in hex. */
static bool perf_map_name(const char *map, uint64_t addr, uint64_t at,
			  char *buf, size_t len)
{
	const char *line;

	for (line = map; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long long start, size;
		int name = 0;

		if (sscanf(line, "%llx %llx %n", &start, &size, &name) != 2 || !name)
			continue;
		if (at - start < size) {
			int n = (int)strcspn(line + name, "\n");

			/* As a symbol's: folding drops +0xOFF/0xSIZE. */
			snprintf(buf, len, "%.*s+0x%" PRIx64 "/0x%llx", n, line + name,
				 addr - (uint64_t)start, size);
			return true;
		}
	}
	return false;
}

/* @addr (a return address when @ret) named in @p, in @buf; false: no name. */
static bool name_addr(const struct proc_syms *p, uint64_t addr, bool ret,
		      char *buf, size_t len)
{
	uint64_t at = ret ? addr - 1 : addr;
	Dwfl_Module *m = p->dwfl ? dwfl_addrmodule(p->dwfl, at) : NULL;
	const char *mod, *sym, *base;
	Dwarf_Addr start;
	GElf_Off off;
	GElf_Sym s;

	/*
	 * A JIT's map first: its code is in anonymous memory, which libdwfl
	 * may count in the module mapped just below it.
	 */
	if (p->perf_map && perf_map_name(p->perf_map, addr, at, buf, len))
		return true;
	if (!m)
		return false;
	mod = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	sym = dwfl_module_addrinfo(m, at, &off, &s, NULL, NULL, NULL);
	if (sym) {
		/* Itanium C++ ABI names: anything else is left as it is. */
		char *plain = !strncmp(sym, "_Z", 2) ? __cxa_demangle(sym, NULL, NULL, NULL) : NULL;

		/* As %pS writes a kernel frame: folding drops +0xOFF/0xSIZE. */
		snprintf(buf, len, "%s+0x%" PRIx64 "/0x%" PRIx64, plain ? plain : sym,
			 (uint64_t)off + (addr - at), (uint64_t)s.st_size);
		free(plain);
		return true;
	}
	base = mod ? strrchr(mod, '/') : NULL;
	snprintf(buf, len, "%s+0x%" PRIx64, base ? base + 1 : mod ? mod : "[unknown]",
		 addr - (uint64_t)start);
	return true;
}

static int name_stack(struct usyms *u, struct ks_keynode *k, struct ks_kval *v)
{
	struct proc_syms *p;
	char buf[512];
	size_t j;

	if (!ks_kpart_is_user(v->part) || v->num <= 0 || !v->n_frames)
		return 0;
	p = proc_get(u, v->num, v->start);
	if (!p)
		return -1;
	if (!p->dwfl && !p->perf_map) {
		v->note = "exited";
		return 0;
	}
	for (j = 0; j < v->n_frames; j++) {
		const char *fr = k->frames[v->frame0 + j];
		unsigned long long addr;
		char *end, **owned, *name;

		errno = 0;
		addr = strtoull(fr, &end, 16);
		if (strncmp(fr, "0x", 2) || errno || *end ||
		    !name_addr(p, addr, j > 0, buf, sizeof(buf)))
			continue;
		name = strdup(buf);
		owned = realloc(k->owned, (k->n_owned + 1) * sizeof(*owned));
		if (!name || !owned) {
			free(name);
			if (owned)
				k->owned = owned;
			return -1;
		}
		k->owned = owned;
		k->owned[k->n_owned++] = name;
		k->frames[v->frame0 + j] = name;
	}
	return 0;
}

int ks_name_user_frames(struct ks_keynode *k)
{
	struct usyms u = { 0 };
	unsigned int i;
	size_t r;
	int rc = 0;

	for (r = 0; r < k->n_rows && !rc; r++)
		for (i = 0; i < k->row[r].n_parts && !rc; i++)
			rc = name_stack(&u, k, &k->row[r].part[i]);
	for (r = 0; r < k->n_slow && !rc; r++)
		for (i = 0; i < k->slow[r].n_parts && !rc; i++)
			rc = name_stack(&u, k, &k->slow[r].part[i]);
	for (r = 0; r < u.n; r++) {
		if (u.v[r].dwfl)
			dwfl_end(u.v[r].dwfl);
		free(u.v[r].perf_map);
	}
	free(u.v);
	return rc;
}
