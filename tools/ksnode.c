// SPDX-License-Identifier: GPL-2.0
/* ksnode: parse, format, merge and export kstats nodes (see ksnode.h). */
#include "ksnode.h"

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

static void prom_series(FILE *f, const char *pn, const struct ks_node *n,
			enum ks_buckets b, int cpu)
{
	unsigned int fb = n->frac_bits, nb = prom_nbuckets(fb, b), k;
	unsigned __int128 sum = 0;
	uint64_t cum = 0, total = 0;
	char le[48], lab[32] = "";
	size_t i = 0, j;

	if (cpu >= 0)
		snprintf(lab, sizeof(lab), "cpu=\"%d\",", cpu);
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
	if (cpu >= 0) {
		lab[strlen(lab) - 1] = 0;	/* no trailing comma */
		fprintf(f, "%s_seconds_sum{%s} %s\n", pn, lab, le);
		fprintf(f, "%s_seconds_count{%s} %" PRIu64 "\n", pn, lab, total);
	} else {
		fprintf(f, "%s_seconds_sum %s\n", pn, le);
		fprintf(f, "%s_seconds_count %" PRIu64 "\n", pn, total);
	}
}

void ks_prom_write(FILE *f, const struct ks_node *n, enum ks_buckets b,
		   bool per_cpu)
{
	char pn[160];
	size_t j;

	ks_prom_name(pn, sizeof(pn), n->name);
	fprintf(f, "# HELP %s_seconds kstats metric %s: distribution of its samples (ns in the kernel)\n",
		pn, n->name);
	fprintf(f, "# TYPE %s_seconds histogram\n", pn);
	if (!per_cpu) {
		prom_series(f, pn, n, b, -1);
	} else {
		/* Each CPU that has samples, in the order of its first line. */
		unsigned int seen[4096 / 32] = { 0 };

		for (j = 0; j < n->n_lines; j++) {
			unsigned int c = n->lines[j].cpu;

			if (n->lines[j].totals || c >= 4096 ||
			    (seen[c / 32] & (1U << (c % 32))))
				continue;
			seen[c / 32] |= 1U << (c % 32);
		}
		for (j = 0; j < 4096; j++)
			if (seen[j / 32] & (1U << (j % 32)))
				prom_series(f, pn, n, b, (int)j);
	}
	fprintf(f, "# HELP %s_missed_total samples of kstats metric %s that were lost (not in the histogram)\n",
		pn, n->name);
	fprintf(f, "# TYPE %s_missed_total counter\n", pn);
	fprintf(f, "%s_missed_total %" PRIu64 "\n", pn, n->missed);
}
