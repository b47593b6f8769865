// SPDX-License-Identifier: GPL-2.0
/* ksnode: parse, format, merge and export kstats nodes, fold KEY-NAME (see ksnode.h). */
#include "ksnode.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const pct_keys[KS_NPCT] = {
	"p50", "p90", "p99", "p99.9", "p99.99"
};

/* Summary keys that must all be present (bits of ks_node.seen). */
enum {
	S_NAME, S_FRAC, S_STATE, S_SAMPLES, S_MISSED, S_NMI, S_MIN, S_MAX,
	S_MEAN, S_UNIT, S_NKEYS
};

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Copy @src into @dst of @len bytes; -1 if it does not fit. */
static int copy(char *dst, size_t len, const char *src)
{
	size_t l = strlen(src);

	if (l >= len)
		return -1;
	memcpy(dst, src, l + 1);
	return 0;
}

/* A decimal u64, the whole string. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* "-" (no samples) or a u64: returns 1 for a value, 0 for "-", -1 else. */
static int parse_opt_u64(const char *s, uint64_t *v)
{
	if (!strcmp(s, "-"))
		return 0;
	return parse_u64(s, v) ? -1 : 1;
}

static int parse_trace(const char *line, struct ks_node *n)
{
	char name[128], method[16];
	unsigned long long missed;
	int pos = 0;

	if (sscanf(line, "# trace %127s method %15s missed %llu%n",
		   name, method, &missed, &pos) != 3 || !pos)
		return -1;
	n->is_trace = true;
	snprintf(n->method, sizeof(n->method), "%s", method);
	n->trace_missed = missed;
	n->gone = strstr(line + pos, " gone") != NULL;
	return 0;
}

static int parse_summary(const char *key, const char *val, struct ks_node *n)
{
	uint64_t v;
	int i, r;

	if (!strcmp(key, "name")) {
		if (copy(n->name, sizeof(n->name), val))
			return -1;
		n->seen |= 1U << S_NAME;
	} else if (!strcmp(key, "frac_bits")) {
		if (parse_u64(val, &v) || v > 5)
			return -1;
		n->frac_bits = v;
		n->seen |= 1U << S_FRAC;
	} else if (!strcmp(key, "state")) {
		if (strcmp(val, "active") && strcmp(val, "stopped"))
			return -1;
		n->active = !strcmp(val, "active");
		n->seen |= 1U << S_STATE;
	} else if (!strcmp(key, "samples")) {
		if (parse_u64(val, &n->samples))
			return -1;
		n->seen |= 1U << S_SAMPLES;
	} else if (!strcmp(key, "missed")) {
		if (parse_u64(val, &n->missed))
			return -1;
		n->seen |= 1U << S_MISSED;
	} else if (!strcmp(key, "nmi_dropped")) {
		if (parse_u64(val, &n->nmi_dropped))
			return -1;
		n->seen |= 1U << S_NMI;
	} else if (!strcmp(key, "min") || !strcmp(key, "max") ||
		   !strcmp(key, "mean")) {
		r = parse_opt_u64(val, &v);
		if (r < 0)
			return -1;
		n->has_minmax = r;
		if (key[1] == 'i') {
			n->min = v;
			n->seen |= 1U << S_MIN;
		} else if (key[1] == 'a') {
			n->max = v;
			n->seen |= 1U << S_MAX;
		} else {
			n->mean = v;
			n->seen |= 1U << S_MEAN;
		}
	} else if (!strcmp(key, "unit")) {
		if (copy(n->unit, sizeof(n->unit), val))
			return -1;
		n->seen |= 1U << S_UNIT;
	} else {
		for (i = 0; i < KS_NPCT; i++) {
			struct ks_pct *p = &n->pct[i];
			size_t kl = strlen(pct_keys[i]);

			if (strncmp(key, pct_keys[i], kl))
				continue;
			if (!key[kl]) {
				r = parse_opt_u64(val, &p->value);
				if (r < 0)
					return -1;
				p->has = r;
			} else if (!strcmp(key + kl, "_slot")) {
				r = parse_opt_u64(val, &v);
				if (r < 0)
					return -1;
				p->slot = v;
			} else if (!strcmp(key + kl, "_err")) {
				if (parse_opt_u64(val, &p->err) < 0)
					return -1;
			} else if (!strcmp(key + kl, "_relerr")) {
				if (copy(p->relerr, sizeof(p->relerr), val))
					return -1;
			} else {
				continue;	/* p99 is a prefix of p99.9 */
			}
			return 0;
		}
		/* Keys added later are skipped, as the format allows. */
	}
	return 0;
}

static int parse_slot(const char *line, struct ks_node *n, size_t *cap)
{
	struct ks_line l = { 0 };
	unsigned long long count, avg;
	char c;

	if (sscanf(line, "slot %u CPU%c %u count %llu avg %llu p %15s",
		   &l.slot, &c, &l.cpu, &count, &avg, l.p) != 6)
		return -1;
	if (c != 'S' && c != ' ')
		return -1;
	if (l.slot >= ks_n_slots(n->frac_bits))
		return -1;
	l.totals = c == 'S';
	l.count = count;
	l.avg = avg;
	if (n->n_lines == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct ks_line *nl = realloc(n->lines, ncap * sizeof(*nl));

		if (!nl)
			return -1;
		n->lines = nl;
		*cap = ncap;
	}
	n->lines[n->n_lines++] = l;
	return 0;
}

int ks_parse(const char *text, struct ks_node *n, char *err, size_t errlen)
{
	const char *p = text;
	size_t cap = 0;
	int lineno = 0, i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < KS_NPCT; i++)
		snprintf(n->pct[i].key, sizeof(n->pct[i].key), "%s", pct_keys[i]);
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[1024], key[64], val[256];

		lineno++;
		if (len >= sizeof(line)) {
			seterr(err, errlen, "line %d: too long", lineno);
			goto fail;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (eol != NULL);
		if (!len)
			continue;
		if (!strncmp(line, "# trace ", 8)) {
			if (parse_trace(line, n)) {
				seterr(err, errlen, "line %d: bad trace line", lineno);
				goto fail;
			}
		} else if (line[0] == '#') {
			if (sscanf(line, "# %63s %255s", key, val) != 2)
				continue;	/* other '#' lines may follow */
			if (parse_summary(key, val, n)) {
				seterr(err, errlen, "line %d: bad value for %s",
				       lineno, key);
				goto fail;
			}
		} else if (!strncmp(line, "slot ", 5)) {
			if (!(n->seen & (1U << S_FRAC)) ||
			    parse_slot(line, n, &cap)) {
				seterr(err, errlen, "line %d: bad slot line", lineno);
				goto fail;
			}
		} else {
			seterr(err, errlen, "line %d: not a kstats line", lineno);
			goto fail;
		}
	}
	if (n->seen != (1U << S_NKEYS) - 1) {
		for (i = 0; i < S_NKEYS; i++)
			if (!(n->seen & (1U << i)))
				break;
		seterr(err, errlen, "not a kstats node: summary key %d missing", i);
		goto fail;
	}
	return 0;
fail:
	ks_node_free(n);
	return -1;
}

void ks_node_free(struct ks_node *n)
{
	free(n->lines);
	n->lines = NULL;
	n->n_lines = 0;
}

const struct ks_pct *ks_pct_get(const struct ks_node *n, const char *key)
{
	int i;

	for (i = 0; i < KS_NPCT; i++)
		if (!strcmp(n->pct[i].key, key))
			return &n->pct[i];
	return NULL;
}

unsigned int ks_n_slots(unsigned int frac_bits)
{
	return ((64 - frac_bits + 1) << frac_bits) + 1;
}

uint64_t ks_slot_base(unsigned int slot, unsigned int frac_bits)
{
	unsigned int bucket = slot >> frac_bits;
	uint64_t lead = (1U << frac_bits) | (slot & ((1U << frac_bits) - 1));

	return bucket ? lead << (bucket - 1) : slot;
}

uint64_t ks_slot_top(unsigned int slot, unsigned int frac_bits)
{
	unsigned int bucket = slot >> frac_bits;
	unsigned int shift = bucket ? bucket - 1 : 0;

	return ks_slot_base(slot, frac_bits) + ((1ULL << shift) - 1);
}

static const char *const unit_names[] = { "ns", "us", "ms", "s", "auto" };
static const uint64_t unit_div[] = { 1, 1000, 1000000, 1000000000 };

int ks_unit_parse(const char *s, enum ks_unit *u)
{
	int i;

	for (i = 0; i <= KS_AUTO; i++)
		if (!strcmp(s, unit_names[i])) {
			*u = i;
			return 0;
		}
	return -1;
}

/* The largest unit in which @ns is at least 1. */
enum ks_unit ks_unit_auto(uint64_t ns)
{
	if (ns >= 1000000000)
		return KS_S;
	if (ns >= 1000000)
		return KS_MS;
	if (ns >= 1000)
		return KS_US;
	return KS_NS;
}

const char *ks_unit_name(enum ks_unit u)
{
	return unit_names[u];
}

/* @v / @div as an exact decimal with trailing zeros dropped. */
static void fmt_div(char *buf, size_t len, unsigned __int128 v, uint64_t div,
		    int digits)
{
	unsigned __int128 whole = v / div;
	uint64_t frac = v % div;
	char w[48], *e = w + sizeof(w) - 1;
	int i;

	*e = 0;
	do {
		*--e = '0' + (int)(whole % 10);
		whole /= 10;
	} while (whole);
	if (!frac) {
		snprintf(buf, len, "%s", e);
		return;
	}
	char f[24];

	for (i = digits - 1; i >= 0; i--) {
		f[i] = '0' + frac % 10;
		frac /= 10;
	}
	f[digits] = 0;
	for (i = digits - 1; i > 0 && f[i] == '0'; i--)
		f[i] = 0;
	snprintf(buf, len, "%s.%s", e, f);
}

void ks_fmt(char *buf, size_t len, uint64_t ns, enum ks_unit u)
{
	static const int digits[] = { 0, 3, 6, 9 };

	if (u == KS_AUTO)
		u = ks_unit_auto(ns);
	fmt_div(buf, len, ns, unit_div[u], digits[u]);
}

void ks_fmt_seconds(char *buf, size_t len, uint64_t ns)
{
	fmt_div(buf, len, ns, 1000000000, 9);
}

int ks_rows(const struct ks_node *n, int cpu, bool slots, struct ks_row **rows)
{
	struct ks_row *r = malloc((n->n_lines + 1) * sizeof(*r));
	unsigned int fb = n->frac_bits, last = 0;
	int nr = 0;
	size_t i;

	if (!r)
		return -1;
	for (i = 0; i < n->n_lines; i++) {
		const struct ks_line *l = &n->lines[i];
		unsigned int key = slots ? l->slot : l->slot >> fb;

		if (cpu < 0 ? !l->totals : l->totals || l->cpu != (unsigned int)cpu)
			continue;
		if (!l->count)
			continue;
		if (nr && key == last) {
			r[nr - 1].count += l->count;
			continue;
		}
		if (slots) {
			r[nr].low = ks_slot_base(l->slot, fb);
			r[nr].high = ks_slot_top(l->slot, fb);
		} else {
			/* The whole power of two: the bucket's first to last slot. */
			r[nr].low = ks_slot_base(key << fb, fb);
			r[nr].high = ks_slot_top(((key + 1) << fb) - 1, fb);
		}
		r[nr].count = l->count;
		last = key;
		nr++;
	}
	*rows = r;
	return nr;
}

void ks_print_hist(FILE *f, const struct ks_row *rows, int nrows,
		   enum ks_unit u, int width)
{
	uint64_t maxc = 0;
	char lo[32], hi[32];
	int i, j, stars;

	for (i = 0; i < nrows; i++)
		if (rows[i].count > maxc)
			maxc = rows[i].count;
	fprintf(f, "%18s    %-18s : count     distribution\n",
		ks_unit_name(u), "");
	for (i = 0; i < nrows; i++) {
		/* Rows are not adjacent: an empty range was folded away. */
		if (i && rows[i].low != rows[i - 1].high + 1)
			fprintf(f, "%20s\n", "...");
		ks_fmt(lo, sizeof(lo), rows[i].low, u);
		ks_fmt(hi, sizeof(hi), rows[i].high, u);
		/* Rounded up, so any non-empty row shows at least one star. */
		stars = (int)((rows[i].count * (uint64_t)width + maxc - 1) / maxc);
		fprintf(f, "%18s -> %-18s : %-9" PRIu64 " |", lo, hi,
			rows[i].count);
		for (j = 0; j < width; j++)
			fputc(j < stars ? '*' : ' ', f);
		fputs("|\n", f);
	}
}

void ks_prom_name(char *buf, size_t len, const char *name)
{
	size_t i, o = snprintf(buf, len, "kstats_");

	for (i = 0; name[i] && o + 1 < len; i++, o++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';

		buf[o] = ok ? c : '_';
	}
	buf[o < len ? o : len - 1] = 0;
}

static void fmt_u128_seconds(char *buf, size_t len, unsigned __int128 ns)
{
	fmt_div(buf, len, ns, 1000000000, 9);
}

/* Bucket k's upper bound (ns); the last bucket is +Inf and not printed. */
static unsigned int prom_nbuckets(unsigned int fb, enum ks_buckets b)
{
	/* Every bucket, or slot, except the one that ends at U64_MAX. */
	return b == KS_B_SLOTS ? ks_n_slots(fb) - 2 : 64 - fb;
}

static uint64_t prom_le(unsigned int fb, enum ks_buckets b, unsigned int k)
{
	return b == KS_B_SLOTS ? ks_slot_top(k, fb) :
				 ks_slot_top(((k + 1) << fb) - 1, fb);
}

/* @name as a label value: backslash, double quote and newline escaped. */
static void prom_label_value(char *buf, size_t len, const char *name)
{
	size_t o = 0;

	for (; *name && o + 3 < len; name++) {
		if (*name == '\\' || *name == '"')
			buf[o++] = '\\';
		if (*name == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
			continue;
		}
		buf[o++] = *name;
	}
	buf[o] = 0;
}

/* The node="NAME" label of @n in a family of @size, or "" alone in it. */
static void prom_node_label(char *buf, size_t len, const struct ks_node *n,
			    size_t size)
{
	char v[sizeof(n->name) * 2];

	prom_label_value(v, sizeof(v), n->name);
	snprintf(buf, len, size > 1 ? "node=\"%s\"" : "", v);
}

/* @n's labels before cpu and le: node="NAME" when @node, part="@part". */
static void prom_labels(char *buf, size_t len, const struct ks_node *n, bool node,
			const char *part)
{
	prom_node_label(buf, len, n, node ? 2 : 1);
	if (part)
		snprintf(buf + strlen(buf), len - strlen(buf), "%spart=\"%s\"",
			 *buf ? "," : "", part);
}

/*
 * One node's series. @node is its node="..." label, or "" when the
 * node is alone in its family.
 */
static void prom_series(FILE *f, const char *pn, const struct ks_node *n,
			enum ks_buckets b, int cpu, const char *node)
{
	unsigned int fb = n->frac_bits, nb = prom_nbuckets(fb, b), k;
	unsigned __int128 sum = 0;
	uint64_t cum = 0, total = 0;
	char le[48], lab[320];
	size_t i = 0, j;

	snprintf(lab, sizeof(lab), "%s%s", node, *node ? "," : "");
	if (cpu >= 0)
		snprintf(lab + strlen(lab), sizeof(lab) - strlen(lab), "cpu=\"%d\",", cpu);
	for (j = 0; j < n->n_lines; j++) {
		const struct ks_line *l = &n->lines[j];

		if (cpu < 0 ? l->totals : !l->totals && l->cpu == (unsigned int)cpu) {
			total += l->count;
			sum += (unsigned __int128)l->count * l->avg;
		}
	}
	for (k = 0; k < nb; k++) {
		uint64_t top = prom_le(fb, b, k);

		for (; i < n->n_lines && ks_slot_top(n->lines[i].slot, fb) <= top; i++) {
			const struct ks_line *l = &n->lines[i];

			if (cpu < 0 ? l->totals :
				      !l->totals && l->cpu == (unsigned int)cpu)
				cum += l->count;
		}
		ks_fmt_seconds(le, sizeof(le), top);
		fprintf(f, "%s_seconds_bucket{%sle=\"%s\"} %" PRIu64 "\n",
			pn, lab, le, cum);
	}
	fprintf(f, "%s_seconds_bucket{%sle=\"+Inf\"} %" PRIu64 "\n", pn, lab, total);
	fmt_u128_seconds(le, sizeof(le), sum);
	if (*lab) {
		lab[strlen(lab) - 1] = 0;	/* no trailing comma */
		fprintf(f, "%s_seconds_sum{%s} %s\n", pn, lab, le);
		fprintf(f, "%s_seconds_count{%s} %" PRIu64 "\n", pn, lab, total);
	} else {
		fprintf(f, "%s_seconds_sum %s\n", pn, le);
		fprintf(f, "%s_seconds_count %" PRIu64 "\n", pn, total);
	}
}

/* @n's series, each CPU that has samples on its own with @per_cpu. */
static void prom_node(FILE *f, const char *pn, const struct ks_node *n,
		      enum ks_buckets b, bool per_cpu, const char *node)
{
	/* Each CPU that has samples, in the order of its first line. */
	unsigned int seen[4096 / 32] = { 0 };
	size_t j;

	if (!per_cpu) {
		prom_series(f, pn, n, b, -1, node);
		return;
	}
	for (j = 0; j < n->n_lines; j++) {
		unsigned int c = n->lines[j].cpu;

		if (n->lines[j].totals || c >= 4096 ||
		    (seen[c / 32] & (1U << (c % 32))))
			continue;
		seen[c / 32] |= 1U << (c % 32);
	}
	for (j = 0; j < 4096; j++)
		if (seen[j / 32] & (1U << (j % 32)))
			prom_series(f, pn, n, b, (int)j, node);
}

void ks_prom_write_family_parts(FILE *f, const struct ks_node *const *nodes,
				const char *const *part, size_t n, enum ks_buckets b,
				bool per_cpu)
{
	char pn[160], names[512] = "", lab[sizeof(nodes[0]->name) * 2 + 96];
	bool need_node = false;
	size_t i, j;

	if (!n)
		return;
	/* A node label where the part label alone does not tell series apart. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (!strcmp(part && part[i] ? part[i] : "", part && part[j] ? part[j] : ""))
				need_node = true;
	/* The family's name: of a node that is no GAP part (else GAP-'s base). */
	for (i = 0; i < n && part && part[i] && !strcmp(part[i], "gap"); i++)
		;
	if (i < n)
		ks_prom_name(pn, sizeof(pn), nodes[i]->name);
	else
		ks_prom_name(pn, sizeof(pn), nodes[0]->name + strlen("GAP-"));
	for (i = 0; i < n; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", nodes[i]->name);
	fprintf(f, "# HELP %s_seconds kstats metric%s %s: distribution of its samples (ns in the kernel)\n",
		pn, n > 1 ? "s" : "", names);
	fprintf(f, "# TYPE %s_seconds histogram\n", pn);
	for (i = 0; i < n; i++) {
		prom_labels(lab, sizeof(lab), nodes[i], need_node, part ? part[i] : NULL);
		prom_node(f, pn, nodes[i], b, per_cpu, lab);
	}
	fprintf(f, "# HELP %s_missed_total samples of kstats metric%s %s that were lost (not in the histogram)\n",
		pn, n > 1 ? "s" : "", names);
	fprintf(f, "# TYPE %s_missed_total counter\n", pn);
	for (i = 0; i < n; i++) {
		prom_labels(lab, sizeof(lab), nodes[i], need_node, part ? part[i] : NULL);
		fprintf(f, "%s_missed_total%s%s%s %" PRIu64 "\n", pn, *lab ? "{" : "",
			lab, *lab ? "}" : "", nodes[i]->missed);
	}
}

void ks_prom_write_family(FILE *f, const struct ks_node *const *nodes,
			  size_t n, enum ks_buckets b, bool per_cpu)
{
	ks_prom_write_family_parts(f, nodes, NULL, n, b, per_cpu);
}

void ks_prom_write(FILE *f, const struct ks_node *n, enum ks_buckets b,
		   bool per_cpu)
{
	ks_prom_write_family(f, &n, 1, b, per_cpu);
}

/* --- KEY-NAME ---------------------------------------------------------- */

const char *const ks_kpart_names[KS_KP_NR] = {
	"kstack", "end-kstack", "comm", "pid", "tgid", "cpu", "cgroup",
	"waker-kstack", "waker-comm", "waker-pid", "waker-cgroup", "ustack",
	"waker-ustack", "waker-chain", "value"
};

/*
 * The part @s names, up to @len. A value part is "ret", "argN", a
 * parameter's name ("flags") or a field through one ("file->f_flags",
 * "fwnode->secondary->flags"): a word in C's letters, '.' and "->" that
 * is no other part's name.
 */
static int kpart_of(const char *s, size_t len)
{
	size_t i;
	int p;

	for (p = 0; p < KS_KP_VALUE; p++)
		if (strlen(ks_kpart_names[p]) == len &&
		    !strncmp(s, ks_kpart_names[p], len))
			return p;
	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return -1;
	for (i = 0; i < len; i++) {
		if (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.')
			continue;
		if (s[i] == '-' && i + 1 < len && s[i + 1] == '>') {
			i++;
			continue;
		}
		return -1;
	}
	return KS_KP_VALUE;
}

/* A decimal that may be negative (pid_t is printed with %d). */
static int parse_ll(const char *s, long long *v)
{
	char *end;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Undo seq_escape()'s octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7' &&
		    (s[1] != '0' || s[2] != '0' || s[3] != '0')) {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* Split @line into blank-separated words, in place; -1 past @max. */
static int words(char *line, char **w, int max)
{
	int n = 0;
	char *save, *t;

	for (t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == max)
			return -1;
		w[n++] = t;
	}
	return n;
}

/* "# key K keys N rows N other N stacks N slowest N skipped N unit ns" */
static int parse_key_header(char *line, struct ks_keynode *k)
{
	char *w[32], spec[sizeof(k->key)], *save, *part;
	bool have_key = false, have_rows = false;
	int n = words(line, w, 32), i;

	if (n < 3 || n % 2 == 0 || strcmp(w[0], "#"))
		return -1;
	for (i = 1; i < n; i += 2) {
		const char *key = w[i], *val = w[i + 1];
		uint64_t *dst = !strcmp(key, "keys") ? &k->keys :
				!strcmp(key, "rows") ? &k->rows :
				!strcmp(key, "other") ? &k->other :
				!strcmp(key, "stacks") ? &k->stacks :
				!strcmp(key, "slowest") ? &k->slowest :
				!strcmp(key, "skipped") ? &k->skipped : NULL;

		if (dst) {
			if (parse_u64(val, dst))
				return -1;
			have_rows |= dst == &k->rows;
		} else if (!strcmp(key, "unit")) {
			if (copy(k->unit, sizeof(k->unit), val))
				return -1;
		} else if (!strcmp(key, "key")) {
			if (copy(k->key, sizeof(k->key), val))
				return -1;
			have_key = true;
		}
		/* Keys added later are skipped. */
	}
	if (!have_key || !have_rows || !strcmp(k->key, "-"))
		return have_key && have_rows ? 0 : -1;
	/* "kstack:6,comm": the parts, each once; only stacks take a depth. */
	memcpy(spec, k->key, sizeof(spec));
	for (part = strtok_r(spec, ",", &save); part;
	     part = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(part, ':');
		int p = kpart_of(part, colon ? (size_t)(colon - part) : strlen(part));
		uint64_t depth;
		unsigned int j;

		if (p < 0 || (colon && p != KS_KP_VALUE &&
			      (!(ks_kpart_is_stack(p) || p == KS_KP_WAKER_CHAIN) ||
			       parse_u64(colon + 1, &depth))))
			return -1;
		for (j = 0; j < k->n_key; j++)
			if (k->key_part[j] == (enum ks_kpart)p)
				return -1;
		k->key_part[k->n_key++] = p;
	}
	return k->n_key ? 0 : -1;
}

/* "total T count C avg A p50 P p99 Q min M max X", after the first word. */
static int parse_kstats(char *rest, struct ks_kstats *st)
{
	char *w[32];
	unsigned int seen = 0;
	int n = words(rest, w, 32), i;

	if (n < 0 || n % 2)
		return -1;
	for (i = 0; i < n; i += 2) {
		static const char *const names[] = {
			"total", "count", "avg", "p50", "p99", "min", "max"
		};
		uint64_t *dst[] = {
			&st->total, &st->count, &st->avg, &st->p50, &st->p99,
			&st->min, &st->max
		};
		unsigned int j;

		for (j = 0; j < 7; j++)
			if (!strcmp(w[i], names[j])) {
				if (parse_u64(w[i + 1], dst[j]))
					return -1;
				seen |= 1U << j;
			}
	}
	return seen == 0x7f ? 0 : -1;
}

/* "value V pid P comm C cpu N time T", after "slowest". */
static int parse_slow(char *rest, struct ks_kslow *s)
{
	char *w[32];
	unsigned int seen = 0;
	uint64_t cpu;
	int n = words(rest, w, 32), i;

	if (n < 0 || n % 2)
		return -1;
	for (i = 0; i < n; i += 2) {
		if (!strcmp(w[i], "value")) {
			if (parse_u64(w[i + 1], &s->value))
				return -1;
			seen |= 1;
		} else if (!strcmp(w[i], "pid")) {
			if (parse_ll(w[i + 1], &s->pid))
				return -1;
			seen |= 2;
		} else if (!strcmp(w[i], "comm")) {
			unescape(w[i + 1]);
			s->comm = w[i + 1];
			seen |= 4;
		} else if (!strcmp(w[i], "cpu")) {
			if (parse_u64(w[i + 1], &cpu) || cpu > UINT32_MAX)
				return -1;
			s->cpu = cpu;
			seen |= 8;
		} else if (!strcmp(w[i], "time")) {
			if (parse_u64(w[i + 1], &s->time))
				return -1;
			seen |= 16;
		}
	}
	return seen == 31 ? 0 : -1;
}

/*
 * "\tkstack", "\tcomm sh", "\tpid 143", "\tret -11", "\targ2:log2 [4, 8)":
 * one part of a row's key.
 */
static int parse_kpart(char *s, struct ks_kval *v, size_t n_frames)
{
	char *sp = strchr(s, ' ');
	size_t name = strcspn(s, " :");
	int p = kpart_of(s, name);
	uint64_t u;

	memset(v, 0, sizeof(*v));
	if (p < 0)
		return -1;
	v->part = p;
	v->frame0 = n_frames;
	switch (v->part) {
	case KS_KP_KSTACK:
	case KS_KP_END_KSTACK:
	case KS_KP_WAKER_KSTACK:
		return sp ? -1 : 0;
	case KS_KP_USTACK:
	case KS_KP_WAKER_USTACK:
		/*
		 * "ustack tgid 143 start NS", "ustack [kernel thread]", or
		 * "ustack" (not captured).
		 */
		if (!sp)
			return 0;
		if (sp[1] == '[') {
			v->note = sp + 1;
			return 0;
		}
		if (strncmp(sp + 1, "tgid ", 5))
			return -1;
		sp = strchr(sp + 6, ' ');
		if (sp) {
			*sp = 0;
			if (strncmp(sp + 1, "start ", 6) || parse_u64(sp + 7, &v->start))
				return -1;
		}
		return parse_ll(s + strlen(ks_kpart_names[v->part]) + 6, &v->num) ||
		       v->num <= 0 ? -1 : 0;
	case KS_KP_COMM:
	case KS_KP_WAKER_COMM:
		/* An empty comm is "comm " (or, trimmed, "comm"). */
		v->comm = sp ? sp + 1 : "";
		if (sp)
			unescape(sp + 1);
		return 0;
	case KS_KP_CGROUP:
	case KS_KP_WAKER_CGROUP:
		if (!sp || !sp[1])
			return -1;
		v->path = sp + 1;
		unescape(sp + 1);
		return 0;
	case KS_KP_CPU:
		if (!sp || parse_u64(sp + 1, &u) || u > UINT32_MAX)
			return -1;
		v->num = (long long)u;
		return 0;
	case KS_KP_VALUE:
		if (!sp || !sp[1])
			return -1;
		*sp = 0;
		v->name = s;
		v->text = sp + 1;
		return 0;
	case KS_KP_WAKER_CHAIN:
		/* Its first level follows on the line: parse_level(). */
		return sp ? 0 : -1;
	default:
		return !sp || parse_ll(sp + 1, &v->num) ? -1 : 0;
	}
}

/*
 * "\twaker-chain L comm C pid P blocked-ns N", "... L [running]", "...
 * [not captured]": a level of a chain, after "waker-chain".
 */
static int parse_level(char *s, struct ks_klevel *lv, size_t n_frames)
{
	char *w[8];
	uint64_t u;
	int n = words(s, w, 8), i = 0;

	memset(lv, 0, sizeof(*lv));
	lv->frame0 = n_frames;
	if (n < 1)
		return -1;
	if (w[0][0] != '[') {
		if (parse_u64(w[0], &u) || !u || u > 4)
			return -1;
		lv->level = u;
		i = 1;
	}
	if (i < n && w[i][0] == '[') {
		/* A marker: the rest of the line. */
		lv->marker = w[i];
		for (n--; n > i; n--)
			w[n][-1] = ' ';
		return 0;
	}
	if (n - i != 4 && n - i != 6)
		return -1;
	if (strcmp(w[i], "comm") || strcmp(w[i + 2], "pid") ||
	    parse_ll(w[i + 3], &lv->pid))
		return -1;
	unescape(w[i + 1]);
	lv->comm = w[i + 1];
	if (n - i == 6) {
		if (strcmp(w[i + 4], "blocked-ns") || parse_u64(w[i + 5], &lv->blocked_ns))
			return -1;
		lv->has_blocked = true;
	}
	return 0;
}

/* Does the record just ended carry the parts it must? */
static bool parts_ok(const struct ks_keynode *k, const struct ks_krow *r,
		     const struct ks_kslow *s)
{
	unsigned int i, n = 0;

	if (r) {
		if (r->n_parts != k->n_key)
			return false;
		for (i = 0; i < k->n_key; i++)
			if (r->part[i].part != k->key_part[i])
				return false;
		return true;
	}
	/* A slowest sample: kstack, end-kstack, waker-kstack, those of the key. */
	for (i = KS_KP_KSTACK; i < KS_KP_NR; i++) {
		unsigned int j;

		if (!ks_kpart_is_stack(i))
			continue;
		for (j = 0; j < k->n_key; j++)
			if (k->key_part[j] == i)
				break;
		if (j == k->n_key)
			continue;
		if (n >= s->n_parts || s->part[n].part != i)
			return false;
		n++;
	}
	/* Then the chain, if the key has one. */
	for (i = 0; i < k->n_key; i++)
		if (k->key_part[i] == KS_KP_WAKER_CHAIN) {
			if (n >= s->n_parts || s->part[n].part != KS_KP_WAKER_CHAIN)
				return false;
			n++;
		}
	return n == s->n_parts;
}

/* Grow *@v (of *@cap elements of @size) to hold @n + 1. */
static int grow(void *v, size_t *cap, size_t n, size_t size)
{
	void *nv;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	nv = realloc(*(void **)v, ncap * size);
	if (!nv)
		return -1;
	*(void **)v = nv;
	*cap = ncap;
	return 0;
}

int ks_keynode_parse(const char *text, struct ks_keynode *k, char *err,
		     size_t errlen)
{
	size_t cap_rows = 0, cap_slow = 0, cap_frames = 0, cap_levels = 0;
	struct ks_krow *row = NULL;	/* the record whose parts follow */
	struct ks_kslow *slow = NULL;
	size_t *stack = NULL;		/* the frame count of a part or level */
	enum { ROWS, OTHER, SLOWEST } at = ROWS;
	int lineno = 0;
	char *p, *line;

	memset(k, 0, sizeof(*k));
	k->buf = strdup(text);
	if (!k->buf) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	for (p = k->buf; *p; ) {
		char *eol = strchr(p, '\n');

		line = p;
		if (eol)
			*eol = 0;
		p = eol ? eol + 1 : p + strlen(p);
		lineno++;
		if (lineno == 1) {
			if (strncmp(line, "# key ", 6) || parse_key_header(line, k)) {
				seterr(err, errlen, "line 1: not a KEY- header (# key K keys N rows N ...)");
				goto fail;
			}
			continue;
		}
		if (!strncmp(line, "\t\t", 2)) {
			if (!stack) {
				seterr(err, errlen, "line %d: a frame outside a stack", lineno);
				goto fail;
			}
			if (grow(&k->frames, &cap_frames, k->n_frames, sizeof(*k->frames)))
				goto nomem;
			k->frames[k->n_frames++] = line + 2;
			(*stack)++;
			continue;
		}
		if (line[0] == '\t') {
			unsigned int *np = row ? &row->n_parts : slow ? &slow->n_parts : NULL;
			unsigned int max = row ? KS_KP_NR : 6;
			struct ks_kval *v;

			if (np && *np && !strncmp(line + 1, "waker-chain ", 12)) {
				v = row ? &row->part[*np - 1] : &slow->part[*np - 1];
				/* A level after the first: the chain's part goes on. */
				if (v->part == KS_KP_WAKER_CHAIN) {
					if (grow(&k->levels, &cap_levels, k->n_levels,
						 sizeof(*k->levels)))
						goto nomem;
					if (v->n_levels >= 4 ||
					    parse_level(line + 13, &k->levels[k->n_levels],
							k->n_frames)) {
						seterr(err, errlen, "line %d: bad waker-chain level '%s'",
						       lineno, line + 1);
						goto fail;
					}
					v->n_levels++;
					stack = &k->levels[k->n_levels++].n_frames;
					continue;
				}
			}
			if (!np || *np == max) {
				seterr(err, errlen, "line %d: a key part out of place", lineno);
				goto fail;
			}
			v = row ? &row->part[*np] : &slow->part[*np];
			if (parse_kpart(line + 1, v, k->n_frames)) {
				seterr(err, errlen, "line %d: bad key part '%s'", lineno, line + 1);
				goto fail;
			}
			(*np)++;
			stack = ks_kpart_is_stack(v->part) ? &v->n_frames : NULL;
			if (v->part == KS_KP_WAKER_CHAIN) {
				char *rest = line + 1 + strlen("waker-chain");

				if (grow(&k->levels, &cap_levels, k->n_levels,
					 sizeof(*k->levels)))
					goto nomem;
				v->level0 = k->n_levels;
				if (*rest != ' ' ||
				    parse_level(rest + 1, &k->levels[k->n_levels], k->n_frames)) {
					seterr(err, errlen, "line %d: bad waker-chain level '%s'",
					       lineno, line + 1);
					goto fail;
				}
				v->n_levels = 1;
				stack = &k->levels[k->n_levels++].n_frames;
			}
			continue;
		}
		/* A new record: the one before must be whole. */
		if ((row || slow) && !parts_ok(k, row, slow)) {
			seterr(err, errlen, "line %d: the record before lacks parts of key %s",
			       lineno, k->key);
			goto fail;
		}
		row = NULL;
		slow = NULL;
		stack = NULL;
		if (!strncmp(line, "row ", 4) && at == ROWS) {
			if (grow(&k->row, &cap_rows, k->n_rows, sizeof(*k->row)))
				goto nomem;
			row = &k->row[k->n_rows++];
			memset(row, 0, sizeof(*row));
			if (parse_kstats(line + 4, &row->st)) {
				seterr(err, errlen, "line %d: bad row line", lineno);
				goto fail;
			}
		} else if (!strncmp(line, "other ", 6) && at == ROWS && k->n_key) {
			at = OTHER;
			k->has_other = true;
			if (parse_kstats(line + 6, &k->other_st)) {
				seterr(err, errlen, "line %d: bad other line", lineno);
				goto fail;
			}
		} else if (!strncmp(line, "slowest ", 8) && (at != ROWS || !k->n_key)) {
			at = SLOWEST;
			if (grow(&k->slow, &cap_slow, k->n_slow, sizeof(*k->slow)))
				goto nomem;
			slow = &k->slow[k->n_slow++];
			memset(slow, 0, sizeof(*slow));
			if (parse_slow(line + 8, slow)) {
				seterr(err, errlen, "line %d: bad slowest line", lineno);
				goto fail;
			}
		} else {
			seterr(err, errlen, "line %d: not a KEY- line here", lineno);
			goto fail;
		}
	}
	if (!lineno) {
		seterr(err, errlen, "empty");
		goto fail;
	}
	if ((row || slow) && !parts_ok(k, row, slow)) {
		seterr(err, errlen, "line %d: the last record lacks parts of key %s",
		       lineno, k->key);
		goto fail;
	}
	/* One open lists every row: fewer is a listing cut short. */
	if (k->n_rows != k->rows || (k->n_key && !k->has_other) ||
	    k->n_slow > k->slowest) {
		seterr(err, errlen, "cut short or inconsistent: %zu row lines for rows %" PRIu64 "%s, %zu slowest for slowest %" PRIu64,
		       k->n_rows, k->rows, k->n_key && !k->has_other ? ", no other line" : "",
		       k->n_slow, k->slowest);
		goto fail;
	}
	return 0;
nomem:
	seterr(err, errlen, "out of memory");
fail:
	ks_keynode_free(k);
	return -1;
}

void ks_keynode_free(struct ks_keynode *k)
{
	while (k->n_owned)
		free(k->owned[--k->n_owned]);
	free(k->owned);
	k->owned = NULL;
	free(k->buf);
	free(k->row);
	free(k->slow);
	free(k->frames);
	free(k->levels);
	k->levels = NULL;
	k->n_levels = 0;
	k->buf = NULL;
	k->row = NULL;
	k->slow = NULL;
	k->frames = NULL;
	k->n_rows = k->n_slow = k->n_frames = 0;
}

/* Copy @n bytes of @src to @dst (of @len), ';' and controls as '_'. */
static size_t clean_copy(char *dst, size_t len, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < len; i++) {
		unsigned char c = src[i];

		dst[i] = c == ';' || c < 0x20 || c == 0x7f ? '_' : (char)c;
	}
	dst[i] = 0;
	return i;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* "+0x[hex]/0x[hex]" exactly, from @s to @end? */
static bool is_offset(const char *s, const char *end)
{
	int part;

	if (*s++ != '+')
		return false;
	for (part = 0; part < 2; part++) {
		if (part && *s++ != '/')
			return false;
		if (end - s < 3 || s[0] != '0' || s[1] != 'x' || !is_hex(s[2]))
			return false;
		for (s += 2; s < end && is_hex(*s); s++)
			;
	}
	return s == end;
}

void ks_fold_frame(char *buf, size_t len, const char *frame)
{
	/*
	 * "sym+0x9/0x40 [mod]": the offset is the last "+0xOFF/0xSIZE"
	 * word; a C++ name before it may hold blanks ("f(int, char)").
	 */
	const char *plus = NULL, *end = NULL, *p;
	size_t o;

	for (p = frame; (p = strchr(p, '+')); p++) {
		const char *e = p + strcspn(p, " ");

		if (p > frame && is_offset(p, e)) {
			plus = p;
			end = e;
		}
	}
	if (!plus)
		plus = end = frame + strlen(frame);
	o = clean_copy(buf, len, frame, plus - frame);
	clean_copy(buf + o, len - o, end, strlen(end));
}

static const struct ks_kval *kval_get(const struct ks_kval *v, unsigned int n,
				      enum ks_kpart part)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (v[i].part == part)
			return &v[i];
	return NULL;
}

/* Put @s as the next frame of the line (@first: no ';' before it). */
static void put_frame(FILE *f, bool *first, const char *s)
{
	if (!*first)
		fputc(';', f);
	*first = false;
	fputs(s, f);
}

/*
 * A kernel frame; with @marks, annotated "_[k]" as perf's
 * stackcollapse-perf.pl --kernel and flamegraph.pl mark kernel frames.
 */
static void put_kframe(FILE *f, bool *first, const char *frame, bool marks)
{
	char fr[2048];

	ks_fold_frame(fr, sizeof(fr) - 4, frame);
	if (marks)
		strcat(fr, "_[k]");
	put_frame(f, first, fr);
}

/*
 * A user stack's frames into a folded line, root (main) first, or leaf
 * first when @upside_down; its note ("[kernel thread]") when it has none.
 */
static void fold_user(FILE *f, const struct ks_keynode *k,
		      const struct ks_kval *st, bool upside_down, bool *first)
{
	char fr[2048];
	size_t j;

	if (!st)
		return;
	if (!st->n_frames) {
		put_frame(f, first, st->note ? st->note : "[not captured]");
		return;
	}
	for (j = 0; j < st->n_frames; j++) {
		size_t at = upside_down ? j : st->n_frames - 1 - j;

		ks_fold_frame(fr, sizeof(fr), k->frames[st->frame0 + at]);
		put_frame(f, first, fr);
	}
}

/*
 * The waker's side, as offwaketime -f draws it above the blocked stack:
 * "--", the waker's stack leaf first (upside down: kernel, then user
 * frames), then who it was.
 */
static void fold_waker(FILE *f, const struct ks_keynode *k,
		       const struct ks_krow *row, bool marks, bool *first)
{
	const struct ks_kval *st = kval_get(row->part, row->n_parts, KS_KP_WAKER_KSTACK);
	const struct ks_kval *ust = kval_get(row->part, row->n_parts, KS_KP_WAKER_USTACK);
	const struct ks_kval *comm = kval_get(row->part, row->n_parts, KS_KP_WAKER_COMM);
	const struct ks_kval *pid = kval_get(row->part, row->n_parts, KS_KP_WAKER_PID);
	const struct ks_kval *cg = kval_get(row->part, row->n_parts, KS_KP_WAKER_CGROUP);
	char fr[2048];
	size_t j;

	if (!st && !ust && !comm && !pid && !cg)
		return;
	put_frame(f, first, "--");
	for (j = 0; st && j < st->n_frames; j++)
		put_kframe(f, first, k->frames[st->frame0 + j], marks);
	fold_user(f, k, ust, true, first);
	if (comm) {
		clean_copy(fr, sizeof(fr), comm->comm, strlen(comm->comm));
		put_frame(f, first, fr);
	}
	if (pid) {
		snprintf(fr, sizeof(fr), "waker-pid %lld", pid->num);
		put_frame(f, first, fr);
	}
	if (cg) {
		snprintf(fr, sizeof(fr), "waker-cgroup %s", cg->path);
		clean_copy(fr, sizeof(fr), fr, strlen(fr));
		put_frame(f, first, fr);
	}
}

/*
 * A chain graph's levels above the waker's place: per level "--", its
 * kernel stack leaf first (as fold_waker()), then its comm, or its
 * marker ("[running]"; an interrupt's frames, then "[interrupt]").
 */
static void fold_chain(FILE *f, const struct ks_keynode *k,
		       const struct ks_kval *v, bool marks, bool *first)
{
	char fr[2048];
	size_t i, j;

	if (!v)
		return;
	for (i = 0; i < v->n_levels; i++) {
		const struct ks_klevel *lv = &k->levels[v->level0 + i];

		put_frame(f, first, "--");
		for (j = 0; j < lv->n_frames; j++)
			put_kframe(f, first, k->frames[lv->frame0 + j], marks);
		if (lv->comm)
			clean_copy(fr, sizeof(fr), lv->comm, strlen(lv->comm));
		else
			clean_copy(fr, sizeof(fr), lv->marker, strlen(lv->marker));
		/* An empty comm would be an empty frame. */
		put_frame(f, first, *fr ? fr : "[no comm]");
	}
}

/* A row's frames, as one folded line without its value, in @f. */
static void fold_row(FILE *f, const struct ks_keynode *k, const struct ks_krow *row,
		     bool marks)
{
	const struct ks_kval *st;
	bool first = true;
	char fr[2048];
	unsigned int i;
	size_t j;

	/* comm, pid, tgid, cpu, cgroup, ret/argN first, in the order of the key. */
	for (i = 0; i < row->n_parts; i++) {
		const struct ks_kval *v = &row->part[i];

		if (v->part == KS_KP_COMM)
			clean_copy(fr, sizeof(fr), v->comm, strlen(v->comm));
		else if (v->part == KS_KP_CGROUP)
			/* A path may hold ';', which would split the frame. */
			clean_copy(fr, sizeof(fr), fr,
				   snprintf(fr, sizeof(fr), "cgroup %s", v->path));
		else if (v->part == KS_KP_VALUE)
			snprintf(fr, sizeof(fr), "%s %s", v->name, v->text);
		else if (v->part > KS_KP_COMM && v->part <= KS_KP_CPU)
			snprintf(fr, sizeof(fr), "%s %lld",
				 ks_kpart_names[v->part], v->num);
		else
			continue;
		put_frame(f, &first, fr);
	}
	/*
	 * Stacks are listed leaf first; a folded line is root first: the
	 * user frames from main, then the kernel's, as offcputime -f.
	 */
	fold_user(f, k, kval_get(row->part, row->n_parts, KS_KP_USTACK), false, &first);
	st = kval_get(row->part, row->n_parts, KS_KP_KSTACK);
	for (j = st ? st->n_frames : 0; j-- > 0; )
		put_kframe(f, &first, k->frames[st->frame0 + j], marks);
	st = kval_get(row->part, row->n_parts, KS_KP_END_KSTACK);
	if (st) {
		put_frame(f, &first, "--");
		for (j = st->n_frames; j-- > 0; )
			put_kframe(f, &first, k->frames[st->frame0 + j], marks);
	}
	fold_waker(f, k, row, marks, &first);
	fold_chain(f, k, kval_get(row->part, row->n_parts, KS_KP_WAKER_CHAIN), marks,
		   &first);
}

struct folded {
	char *line;
	uint64_t value;
	size_t row;		/* the first row that prints it */
};

static int folded_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;
	int c = strcmp(x->line, y->line);

	return c ? c : (x->row > y->row) - (x->row < y->row);
}

static int folded_row_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	return (x->row > y->row) - (x->row < y->row);
}

bool ks_keynode_has_user(const struct ks_keynode *k)
{
	unsigned int i;

	for (i = 0; i < k->n_key; i++)
		if (k->key_part[i] == KS_KP_USTACK || k->key_part[i] == KS_KP_WAKER_USTACK)
			return true;
	return false;
}

int ks_fold(FILE *f, const struct ks_keynode *k, bool count)
{
	return ks_fold_marked(f, k, count, false);
}

int ks_fold_marked(FILE *f, const struct ks_keynode *k, bool count, bool marks)
{
	struct folded *fl;
	size_t r, n = 0;
	int lines = 0;

	if (!k->n_key)
		return -1;
	fl = calloc(k->n_rows ? k->n_rows : 1, sizeof(*fl));
	if (!fl)
		return -1;
	for (r = 0; r < k->n_rows; r++) {
		size_t len;
		FILE *m = open_memstream(&fl[n].line, &len);

		if (!m)
			break;
		fold_row(m, k, &k->row[r], marks);
		if (fclose(m))
			break;
		fl[n].value = count ? k->row[r].st.count : k->row[r].st.total;
		fl[n++].row = r;
	}
	/*
	 * Rows that differ only where folding drops it (a call site's
	 * offset, two depths of one stack cut alike) print one line: one
	 * line, their sum, where the first of them stood.
	 */
	qsort(fl, n, sizeof(*fl), folded_cmp);
	for (r = 0; r < n; ) {
		size_t e = r + 1;

		while (e < n && !strcmp(fl[e].line, fl[r].line)) {
			fl[r].value += fl[e].value;
			fl[e].row = SIZE_MAX;	/* merged into fl[r] */
			e++;
		}
		r = e;
	}
	qsort(fl, n, sizeof(*fl), folded_row_cmp);
	for (r = 0; r < n; r++) {
		if (fl[r].row != SIZE_MAX) {
			fprintf(f, "%s %" PRIu64 "\n", fl[r].line, fl[r].value);
			lines++;
		}
		free(fl[r].line);
	}
	free(fl);
	if (k->has_other && k->other_st.count) {
		fprintf(f, "[other] %" PRIu64 "\n",
			count ? k->other_st.count : k->other_st.total);
		lines++;
	}
	return lines;
}

/* --- KEY-NAME as Prometheus series ------------------------------------- */

bool ks_keynode_labels_ok(const struct ks_keynode *k)
{
	unsigned int i;

	if (!k->n_key)
		return false;
	for (i = 0; i < k->n_key; i++)
		if (ks_kpart_is_stack(k->key_part[i]) ||
		    k->key_part[i] == KS_KP_WAKER_CHAIN)
			return false;
	return true;
}

/* A key part's label name: waker-cgroup is waker_cgroup, arg1:log2 arg1_log2. */
static void prom_part_name(char *buf, size_t len, const char *s)
{
	size_t o;

	for (o = 0; *s && o + 1 < len; s++, o++) {
		char c = *s;

		buf[o] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' ? c : '_';
	}
	buf[o] = 0;
}

/* @r's key parts as labels, "cgroup=\"/a\",comm=\"sh\"", after @node's. */
static void prom_row_labels(char *buf, size_t len, const char *node,
			    const struct ks_krow *r)
{
	char v[1024], name[64];
	size_t o = snprintf(buf, len, "%s", node);
	unsigned int i;

	for (i = 0; i < r->n_parts && o < len; i++) {
		const struct ks_kval *p = &r->part[i];

		switch (p->part) {
		case KS_KP_COMM: case KS_KP_WAKER_COMM:
			prom_label_value(v, sizeof(v), p->comm);
			break;
		case KS_KP_CGROUP: case KS_KP_WAKER_CGROUP:
			prom_label_value(v, sizeof(v), p->path);
			break;
		case KS_KP_VALUE:
			prom_label_value(v, sizeof(v), p->text);
			break;
		default:
			snprintf(v, sizeof(v), "%lld", p->num);
		}
		prom_part_name(name, sizeof(name), p->part == KS_KP_VALUE ?
			       p->name : ks_kpart_names[p->part]);
		o += snprintf(buf + o, len - o, "%s%s=\"%s\"", o ? "," : "", name, v);
	}
}

/* One row's summary series; @lab its labels ("" for none). */
static void prom_key_series(FILE *f, const char *pn, const char *lab,
			    const struct ks_kstats *st)
{
	char p50[48], p99[48], sum[48];
	const char *c = *lab ? "," : "";

	if (st->count) {
		ks_fmt_seconds(p50, sizeof(p50), st->p50);
		ks_fmt_seconds(p99, sizeof(p99), st->p99);
	} else {	/* no sample: no quantile, as client libraries print */
		strcpy(p50, "NaN");
		strcpy(p99, "NaN");
	}
	ks_fmt_seconds(sum, sizeof(sum), st->total);
	fprintf(f, "%s{%s%squantile=\"0.5\"} %s\n", pn, lab, c, p50);
	fprintf(f, "%s{%s%squantile=\"0.99\"} %s\n", pn, lab, c, p99);
	fprintf(f, "%s_sum%s%s%s %s\n", pn, *lab ? "{" : "", lab, *lab ? "}" : "", sum);
	fprintf(f, "%s_count%s%s%s %" PRIu64 "\n", pn, *lab ? "{" : "", lab,
		*lab ? "}" : "", st->count);
}

void ks_prom_write_keys(FILE *f, const char *const *names,
			const struct ks_keynode *const *k, size_t n)
{
	char pn[192], node[600], all[512] = "", keys[512] = "";
	size_t i, j, m, nl = 0;
	char (*lab)[4096];
	struct ks_kstats *st;
	bool *dup;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		nl += k[i]->n_rows;
	lab = calloc(nl ? nl : 1, sizeof(*lab));
	st = calloc(nl ? nl : 1, sizeof(*st));
	dup = calloc(nl ? nl : 1, sizeof(*dup));
	if (!lab || !st || !dup) {
		free(lab);
		free(st);
		free(dup);
		return;
	}
	ks_prom_name(pn, sizeof(pn) - 16, names[0]);
	strcat(pn, "_by_key_seconds");
	for (i = 0; i < n; i++) {
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
			 i ? ", " : "", names[i]);
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
			 i ? ", " : "", k[i]->key);
	}
	/*
	 * Rows whose labels coincide (two removed cgroups of one path, both
	 * "/a (gone)") are one series: totals and counts added, each
	 * quantile the largest of theirs, which the merged one does not pass.
	 */
	for (i = 0, m = 0; i < n; i++) {
		char v[sizeof(node)];

		prom_label_value(v, sizeof(v) - 16, names[i]);
		snprintf(node, sizeof(node), n > 1 ? "node=\"%s\"" : "", v);
		for (j = 0; j < k[i]->n_rows; j++, m++) {
			size_t d;

			prom_row_labels(lab[m], sizeof(lab[m]), node, &k[i]->row[j]);
			st[m] = k[i]->row[j].st;
			for (d = 0; d < m; d++) {
				if (dup[d] || strcmp(lab[d], lab[m]))
					continue;
				st[d].total += st[m].total;
				st[d].count += st[m].count;
				if (st[m].p50 > st[d].p50)
					st[d].p50 = st[m].p50;
				if (st[m].p99 > st[d].p99)
					st[d].p99 = st[m].p99;
				dup[m] = true;
				break;
			}
		}
	}
	fprintf(f, "# HELP %s kstats trace%s %s by key (%s): each row of KEY-NAME, quantiles as it gives them (a slot's top)\n",
		pn, n > 1 ? "s" : "", all, keys);
	fprintf(f, "# TYPE %s summary\n", pn);
	for (i = 0, m = 0; i < n; i++) {
		char v[sizeof(node)], ol[sizeof(node) + 16];

		for (j = 0; j < k[i]->n_rows; j++, m++)
			if (!dup[m])
				prom_key_series(f, pn, lab[m], &st[m]);
		if (!k[i]->has_other)
			continue;
		/* The samples of keys the table had no room for. */
		prom_label_value(v, sizeof(v) - 16, names[i]);
		snprintf(ol, sizeof(ol), n > 1 ? "node=\"%s\",row=\"other\"" : "row=\"other\"", v);
		prom_key_series(f, pn, ol, &k[i]->other_st);
	}
	free(lab);
	free(st);
	free(dup);
}
