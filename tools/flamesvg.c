// SPDX-License-Identifier: GPL-2.0
/*
 * flamesvg: folded stacks as an interactive SVG flame graph (flamesvg.h).
 *
 * The lines are sorted frame by frame, so that stacks sharing a prefix
 * are neighbours, and merged into a tree in one pass: each frame is a
 * node, its value the sum of the lines through it. The tree is drawn in
 * pre-order, root ("all") at the bottom; a node's children side by side
 * in name order from its left edge. Frames narrower than the minimum
 * width are left out with everything above them (flamegraph.pl's
 * --minwidth). The script finds a frame's descendants by that order.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flamesvg.h"
#include "ksnode.h"

/* Layout, in px (flamegraph.pl's defaults). */
#define FONTSIZE	12
#define FONTWIDTH	0.59	/* a character's average width, in font sizes */
#define FRAMEHEIGHT	16
#define XPAD		10
#define YPAD1		(FONTSIZE * 3)		/* the title */
#define YPAD2		(FONTSIZE * 2 + 10)	/* the details line */
#define YPAD3		(FONTSIZE * 2)		/* the subtitle */

/* Whether @frame ends in flamegraph.pl's kernel annotation, "_[k]". */
static bool kernel_mark(const char *frame, size_t len)
{
	return len > KS_KMARK_LEN && !memcmp(frame + len - KS_KMARK_LEN, KS_KMARK, KS_KMARK_LEN);
}

enum ks_fkind ks_flame_kind(const char *frame, unsigned int level, bool marked)
{
	if (!strcmp(frame, "--"))
		return KS_FK_SEP;
	if (!strcmp(frame, "[other]"))
		return KS_FK_OTHER;
	if (level)
		return KS_FK_CHAIN;
	/*
	 * Marked input (user and kernel frames): unmarked frames are the
	 * user's. Else kstats' stacks are kernel stacks (kstack, end-kstack).
	 */
	if (marked && !kernel_mark(frame, strlen(frame)))
		return KS_FK_USER;
	return KS_FK_KERNEL;
}

struct fline {
	char *stack;		/* frames, ';'-separated, NUL-terminated */
	uint64_t value;
};

struct fnode {
	const char *name;	/* into a line's stack; not NUL-terminated */
	size_t len;
	uint64_t value, x;	/* value units: width, left edge */
	size_t parent, last_child;	/* 0: none (node 0 is the root) */
	unsigned int depth, level;
	bool drawn;
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Frame by frame: ';' sorts below every byte, so prefixes stay together. */
static int stack_cmp(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)((const struct fline *)a)->stack;
	const unsigned char *y = (const unsigned char *)((const struct fline *)b)->stack;

	for (;; x++, y++) {
		int cx = *x == ';' ? 1 : *x ? *x + 1 : 0;
		int cy = *y == ';' ? 1 : *y ? *y + 1 : 0;

		if (cx != cy)
			return cx - cy;
		if (!cx)
			return 0;
	}
}

/* Cut @text into lines; *@lines malloc'ed, their stacks in *@buf. */
static int parse_lines(const char *text, struct fline **lines, size_t *n,
		       char **buf, char *err, size_t errlen)
{
	size_t cap = 0, lineno = 0;
	char *s, *next;

	*lines = NULL;
	*n = 0;
	*buf = strdup(text);
	if (!*buf)
		return fail(err, errlen, "out of memory");
	for (s = *buf; s && *s; s = next) {
		char *e, *sp, *end;
		uint64_t v = 0;

		lineno++;
		next = strchr(s, '\n');
		if (next)
			*next++ = 0;
		e = s + strlen(s);
		if (e > s && e[-1] == '\r')
			*--e = 0;
		if (s == e)
			continue;
		sp = strrchr(s, ' ');
		if (!sp || sp == s || !sp[1])
			return fail(err, errlen, "line %zu: not \"frame;...;frame VALUE\"", lineno);
		for (end = sp + 1; *end >= '0' && *end <= '9'; end++) {
			if (v > (UINT64_MAX - (*end - '0')) / 10)
				return fail(err, errlen, "line %zu: VALUE out of range", lineno);
			v = v * 10 + (*end - '0');
		}
		if (*end)
			return fail(err, errlen, "line %zu: VALUE \"%s\" is not a decimal integer",
				    lineno, sp + 1);
		*sp = 0;
		if (*n == cap) {
			struct fline *l = realloc(*lines, (cap = cap ? 2 * cap : 256) * sizeof(*l));

			if (!l)
				return fail(err, errlen, "out of memory");
			*lines = l;
		}
		(*lines)[*n].stack = s;
		(*lines)[(*n)++].value = v;
	}
	return 0;
}

/* The lines, sorted, as a tree: *@nodes[0] is the root. */
static int build_tree(struct fline *lines, size_t n, struct fnode **nodes,
		      size_t *nn, char *err, size_t errlen)
{
	size_t cap = 64, *path = NULL, pcap = 0, plen = 0, i;
	struct fnode *t = calloc(cap, sizeof(*t));

	*nodes = t;
	if (!t)
		return fail(err, errlen, "out of memory");
	t[0].name = "all";
	t[0].len = 3;
	*nn = 1;
	qsort(lines, n, sizeof(*lines), stack_cmp);
	for (i = 0; i < n; i++) {
		const char *s = lines[i].stack;
		size_t d = 0, k;

		if (t[0].value > UINT64_MAX - lines[i].value) {
			free(path);
			return fail(err, errlen, "the values add up to 2^64 or more");
		}
		t[0].value += lines[i].value;
		for (;;) {
			size_t len = strcspn(s, ";"), parent = d ? path[d - 1] : 0;

			if (d >= pcap) {
				size_t *p = realloc(path, (pcap = 2 * pcap + 16) * sizeof(*p));

				if (!p) {
					free(path);
					return fail(err, errlen, "out of memory");
				}
				path = p;
			}
			/* The previous line's frame at this depth, or a new one. */
			if (d < plen && t[path[d]].len == len && !memcmp(t[path[d]].name, s, len)) {
				k = path[d];
			} else {
				struct fnode *c;

				plen = 0;	/* past here, nothing is shared */
				if (*nn == cap) {
					struct fnode *g = realloc(t, (cap *= 2) * sizeof(*g));

					if (!g) {
						free(path);
						return fail(err, errlen, "out of memory");
					}
					*nodes = t = g;
				}
				k = (*nn)++;
				c = &t[k];
				memset(c, 0, sizeof(*c));
				c->name = s;
				c->len = len;
				c->parent = parent;
				c->depth = d + 1;
				c->level = t[parent].level +
					   (parent && t[parent].len == 2 && !memcmp(t[parent].name, "--", 2));
				/* Earlier siblings are whole: the lines are sorted. */
				c->x = t[parent].last_child ?
				       t[t[parent].last_child].x + t[t[parent].last_child].value :
				       t[parent].x;
				t[parent].last_child = k;
				path[d] = k;
			}
			t[k].value += lines[i].value;	/* at most the root's */
			d++;
			if (!s[len])
				break;
			s += len + 1;
		}
		plen = d;
	}
	free(path);
	return 0;
}

/*
 * @s as valid UTF-8 for XML: control bytes, DEL and bytes that do not
 * start or continue a well-formed character (nor one XML allows) as
 * "\xHH". Returns a malloc'ed string.
 */
static char *display_name(const char *s, size_t len)
{
	char *out = malloc(4 * len + 1), *o = out;
	const unsigned char *p = (const unsigned char *)s, *e = p + len;

	if (!out)
		return NULL;
	while (p < e) {
		unsigned int c = *p, n = 0, cp, j;

		if (c >= 0x20 && c < 0x7f) {
			*o++ = *p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		if (n && (size_t)(e - p) > n) {
			for (j = 1; j <= n && (p[j] & 0xc0) == 0x80; j++)
				cp = cp << 6 | (p[j] & 0x3f);
			/* Whole, shortest form, no surrogate, XML's Char. */
			if (j > n && !(n == 2 && cp < 0x800) && !(n == 3 && cp < 0x10000) &&
			    cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) &&
			    cp != 0xfffe && cp != 0xffff && !(cp >= 0x80 && cp <= 0x9f)) {
				memcpy(o, p, n + 1);
				o += n + 1;
				p += n + 1;
				continue;
			}
		}
		o += sprintf(o, "\\x%02x", c);
		p++;
	}
	*o = 0;
	return out;
}

/* @s (valid UTF-8) escaped for XML text and attributes, to @f. */
static void xml_put(FILE *f, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(s[i], f);
		}
	}
}

static void xml_puts(FILE *f, const char *raw)
{
	char *d = display_name(raw, strlen(raw));

	if (d)
		xml_put(f, d, strlen(d));
	free(d);
}

/* Characters (code points) of UTF-8 @s. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Bytes of @s's first @chars characters. */
static size_t utf8_bytes(const char *s, size_t chars)
{
	const char *p = s;

	for (; *p; p++)
		if (((unsigned char)*p & 0xc0) != 0x80 && !chars--)
			break;
	return p - s;
}

/* The label of a frame @w px wide, as the script fits it on a zoom. */
static void put_label(FILE *f, const char *name, double w)
{
	size_t chars = (size_t)(w / (FONTSIZE * FONTWIDTH));

	if (chars < 3)
		return;
	if (utf8_len(name) <= chars) {
		xml_put(f, name, strlen(name));
	} else {
		xml_put(f, name, utf8_bytes(name, chars - 2));
		fputs("..", f);
	}
}

/* A value with thousands separators: "1,234,567". */
static void put_grouped(FILE *f, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%" PRIu64, v), i;

	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			fputc(',', f);
		fputc(d[i], f);
	}
}

/* A frame's figures: "1.234567 ms" (exact) or "5 samples". */
static void put_value(FILE *f, uint64_t v, const struct ks_flame_opts *o)
{
	char b[48];

	if (o->count) {
		put_grouped(f, v);
		fputs(v == 1 ? " sample" : " samples", f);
		return;
	}
	if (o->ns_per_value > 1)
		v = v > UINT64_MAX / o->ns_per_value ? UINT64_MAX : v * o->ns_per_value;
	ks_fmt(b, sizeof(b), v, KS_AUTO);
	fprintf(f, "%s %s", b, ks_unit_name(ks_unit_auto(v)));
}

/* A hash of the name in [0, 1): a frame's colour is the same in every graph. */
static double name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	/* Spread short names' hashes over the palette. */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return (h >> 8) / 16777216.0;
}

/* The CSS class and fill of a frame (flamegraph.pl's palettes). */
static const char *frame_fill(char *buf, size_t len, enum ks_fkind kind,
			      unsigned int level, double v)
{
	switch (kind) {
	case KS_FK_ROOT:
		snprintf(buf, len, "rgb(%d,%d,%d)", 220, 110 + (int)(40 * v), 50);
		return "root";
	case KS_FK_KERNEL:	/* orange */
		snprintf(buf, len, "rgb(%d,%d,0)", 190 + (int)(65 * v), 90 + (int)(65 * v));
		return "k";
	case KS_FK_USER:	/* red */
		snprintf(buf, len, "rgb(%d,%d,%d)", 200 + (int)(55 * v),
			 50 + (int)(80 * v), 50 + (int)(80 * v));
		return "u";
	case KS_FK_SEP:
		snprintf(buf, len, "rgb(160,160,160)");
		return "sep";
	case KS_FK_OTHER:
		snprintf(buf, len, "rgb(200,200,200)");
		return "other";
	case KS_FK_CHAIN:
		break;
	}
	/* Odd levels (a waker) aqua, even ones blue: neighbours apart. */
	if (level % 2)
		snprintf(buf, len, "rgb(%d,%d,%d)", 50 + (int)(60 * v),
			 165 + (int)(55 * v), 165 + (int)(55 * v));
	else
		snprintf(buf, len, "rgb(%d,%d,%d)", 80 + (int)(60 * v),
			 80 + (int)(60 * v), 205 + (int)(50 * v));
	return NULL;
}

/* The script (ECMAScript 2015: Array.from); no "]]" anywhere in it. */
static const char script[] =
"\"use strict\";\n"
"var XPAD = 10, FONTSIZE = 12, FONTWIDTH = 0.59;\n"
"var frames = [], details, unzoombtn, searchbtn, icbtn, matchedtxt;\n"
"var ignorecase = false, currentsearch = null, zoomed = null;\n"
"function el(id) { return document.getElementById(id); }\n"
"function init() {\n"
"\tvar g = el('frames').children, stack = [], i, f, t;\n"
"\tdetails = el('details').firstChild; matchedtxt = el('matched').firstChild;\n"
"\tunzoombtn = el('unzoom'); searchbtn = el('search'); icbtn = el('ignorecase');\n"
"\tfor (i = 0; i < g.length; i++) {\n"
"\t\tf = g[i]; frames.push(f);\n"
"\t\tf.r = f.getElementsByTagName('rect')[0];\n"
"\t\tf.t = f.getElementsByTagName('text')[0];\n"
"\t\tt = f.getElementsByTagName('title')[0].textContent;\n"
"\t\tf.fname = t.slice(0, t.lastIndexOf(' ('));\n"
"\t\tf.fx = +f.r.getAttribute('x'); f.fw = +f.r.getAttribute('width');\n"
"\t\tf.fy = +f.r.getAttribute('y'); f.fill = f.r.getAttribute('fill');\n"
"\t\tf.idx = i; f.end = i;\n"
"\t\t/* Pre-order, root at the bottom: a frame's subtree ends before\n"
"\t\t   the next frame at its depth or below (a larger or equal y). */\n"
"\t\twhile (stack.length && frames[stack[stack.length - 1]].fy <= f.fy)\n"
"\t\t\tframes[stack.pop()].end = i - 1;\n"
"\t\tstack.push(i);\n"
"\t}\n"
"\twhile (stack.length) frames[stack.pop()].end = frames.length - 1;\n"
"\tvar q = /[?&]s=([^&]*)/.exec(window.location.search);\n"
"\t/* ?s=TERM searches; an empty or malformed TERM is ignored. */\n"
"\tif (q) { try { q = decodeURIComponent(q[1]); } catch (e) { q = ''; } }\n"
"\tif (q) search(q);\n"
"}\n"
"function frameof(e) {\n"
"\tfor (; e && e.parentNode; e = e.parentNode)\n"
"\t\tif (e.parentNode.id === 'frames') return e;\n"
"\treturn null;\n"
"}\n"
"function fit(f, w) {\n"
"\tvar chars = Math.floor(w / (FONTSIZE * FONTWIDTH)), a = Array.from(f.fname);\n"
"\tif (!f.t) return;\n"
"\tif (chars < 3) f.t.textContent = '';\n"
"\telse if (a.length <= chars) f.t.textContent = f.fname;\n"
"\telse f.t.textContent = a.slice(0, chars - 2).join('') + '..';\n"
"}\n"
"function place(f, x, w) {\n"
"\tf.r.setAttribute('x', x.toFixed(2)); f.r.setAttribute('width', w.toFixed(2));\n"
"\tif (f.t) f.t.setAttribute('x', (x + 3).toFixed(2));\n"
"\tfit(f, w);\n"
"}\n"
"function zoom(z) {\n"
"\tvar full, ratio, i, f;\n"
"\tif (!frames.length) return;\n"
"\tfull = frames[0].fw; ratio = full / z.fw;\n"
"\tzoomed = z;\n"
"\tunzoombtn.classList.remove('hide');\n"
"\tfor (i = 0; i < frames.length; i++) {\n"
"\t\tf = frames[i];\n"
"\t\tf.classList.remove('hide'); f.classList.remove('parent');\n"
"\t\tif (i < z.idx && f.end >= z.idx) {\n"
"\t\t\tf.classList.add('parent');\n"
"\t\t\tplace(f, XPAD, full);\n"
"\t\t} else if (i >= z.idx && i <= z.end) {\n"
"\t\t\tplace(f, XPAD + (f.fx - z.fx) * ratio, f.fw * ratio);\n"
"\t\t} else {\n"
"\t\t\tf.classList.add('hide');\n"
"\t\t}\n"
"\t}\n"
"}\n"
"function unzoom() {\n"
"\tzoomed = null;\n"
"\tunzoombtn.classList.add('hide');\n"
"\tfor (var i = 0; i < frames.length; i++) {\n"
"\t\tframes[i].classList.remove('hide'); frames[i].classList.remove('parent');\n"
"\t\tplace(frames[i], frames[i].fx, frames[i].fw);\n"
"\t}\n"
"}\n"
"function resetsearch() {\n"
"\tcurrentsearch = null;\n"
"\tfor (var i = 0; i < frames.length; i++) {\n"
"\t\tframes[i].r.setAttribute('fill', frames[i].fill);\n"
"\t\tframes[i].classList.remove('match');\n"
"\t}\n"
"\tsearchbtn.firstChild.nodeValue = 'Search';\n"
"\tsearchbtn.classList.remove('show');\n"
"\tmatchedtxt.nodeValue = ' ';\n"
"}\n"
"/* Highlight the frames matching @term (a regular expression); returns\n"
"   their share of the whole, each subtree counted once. An empty term\n"
"   clears the search; with no frames (\"No stacks\") it does nothing. */\n"
"function search(term) {\n"
"\tvar re, i, f, end = -1, w = 0, pct;\n"
"\tif (!frames.length) return null;\n"
"\tif (term === '') { resetsearch(); return null; }\n"
"\ttry { re = new RegExp(term, ignorecase ? 'i' : ''); } catch (e) { return null; }\n"
"\tresetsearch();\n"
"\tcurrentsearch = term;\n"
"\tfor (i = 1; i < frames.length; i++) {\n"
"\t\tf = frames[i];\n"
"\t\tif (!re.test(f.fname)) continue;\n"
"\t\tf.r.setAttribute('fill', 'rgb(230,0,230)');\n"
"\t\tf.classList.add('match');\n"
"\t\tif (i > end) { w += f.fw; end = f.end; }\n"
"\t}\n"
"\tpct = 100 * w / frames[0].fw;\n"
"\tsearchbtn.firstChild.nodeValue = 'Reset Search';\n"
"\tsearchbtn.classList.add('show');\n"
"\tmatchedtxt.nodeValue = 'Matched: ' + (pct === 100 ? '100' : pct.toFixed(1)) + '%';\n"
"\treturn pct;\n"
"}\n"
"function searchprompt() {\n"
"\tvar term;\n"
"\tif (!frames.length) return;\n"
"\tif (currentsearch !== null) { resetsearch(); return; }\n"
"\tterm = window.prompt('Search for (a regular expression)' +\n"
"\t\t(ignorecase ? ', ignoring case' : '') + ':', '');\n"
"\tif (term) search(term);\n"
"}\n"
"window.addEventListener('load', init);\n"
"document.addEventListener('click', function (e) {\n"
"\tvar f = frameof(e.target), t = e.target.id || e.target.parentNode.id;\n"
"\tif (f) { if (f.idx === 0) unzoom(); else zoom(f); return; }\n"
"\tif (t === 'unzoom') unzoom();\n"
"\telse if (t === 'search') searchprompt();\n"
"\telse if (t === 'ignorecase') {\n"
"\t\tignorecase = !ignorecase;\n"
"\t\ticbtn.classList.toggle('show', ignorecase);\n"
"\t\tif (currentsearch !== null) search(currentsearch);\n"
"\t}\n"
"});\n"
"document.addEventListener('mouseover', function (e) {\n"
"\tvar f = frameof(e.target);\n"
"\tif (f) details.nodeValue = f.getElementsByTagName('title')[0].textContent;\n"
"});\n"
"document.addEventListener('mouseout', function (e) {\n"
"\tif (frameof(e.target)) details.nodeValue = ' ';\n"
"});\n"
"window.addEventListener('keydown', function (e) {\n"
"\tif (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
"\t\te.preventDefault();\n"
"\t\tif (currentsearch !== null) resetsearch();\n"
"\t\tsearchprompt();\n"
"\t} else if (e.keyCode === 27) {\n"
"\t\tunzoom(); resetsearch();\n"
"\t}\n"
"});\n";

static void put_head(FILE *f, const struct ks_flame_opts *o, const char *title,
		     unsigned int width, unsigned int height, bool chain)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n<title>", width, height, width, height);
	xml_puts(f, title);
	fprintf(f, "</title>\n"
		"<defs>\n<linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">\n"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/>\n"
		"<stop stop-color=\"%s\" offset=\"95%%\"/>\n"
		"</linearGradient>\n</defs>\n", chain ? "#e0e0ff" : "#eeeeb0");
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: 12px; fill: #000; }\n"
	      "#title { text-anchor: middle; font-size: 17px; }\n"
	      "#subtitle { text-anchor: middle; fill: #707070; }\n"
	      "#search, #ignorecase { opacity: 0.2; cursor: pointer; }\n"
	      "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity: 1; }\n"
	      "#unzoom { cursor: pointer; }\n"
	      "#frames > g { cursor: pointer; }\n"
	      "#frames > g:hover > rect { stroke: #000; stroke-width: 0.5; }\n"
	      "#frames text { pointer-events: none; }\n"
	      ".hide { display: none; }\n"
	      ".parent { opacity: 0.5; }\n"
	      "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n", f);
	fputs(script, f);
	fputs("]]></script>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n",
		width, height);
	fprintf(f, "<text id=\"title\" x=\"%u\" y=\"%d\">", width / 2, FONTSIZE * 2);
	xml_puts(f, title);
	fputs("</text>\n", f);
	if (o->subtitle) {
		fprintf(f, "<text id=\"subtitle\" x=\"%u\" y=\"%d\">", width / 2, FONTSIZE * 4);
		xml_puts(f, o->subtitle);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		XPAD, height - YPAD2 / 2);
	fprintf(f, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n",
		XPAD, FONTSIZE * 2);
	fprintf(f, "<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n",
		width - XPAD - 100, FONTSIZE * 2);
	fprintf(f, "<text id=\"ignorecase\" x=\"%u\" y=\"%d\">ic</text>\n",
		width - XPAD - 16, FONTSIZE * 2);
	fprintf(f, "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
		width - XPAD - 100, height - YPAD2 / 2);
}

int ks_flame_svg(FILE *f, const char *folded, const struct ks_flame_opts *o,
		 char *err, size_t errlen)
{
	const char *title = o->title ? o->title : "Flame Graph";
	unsigned int width = o->width ? o->width : KS_FLAME_WIDTH;
	unsigned int depthmax = 0, height, top;
	struct fline *lines = NULL;
	struct fnode *t = NULL;
	size_t nl, nn = 0, i;
	char *buf = NULL;
	bool chain = false, marked = false;
	double scale;
	int drawn = -1;

	if (parse_lines(folded, &lines, &nl, &buf, err, errlen) ||
	    build_tree(lines, nl, &t, &nn, err, errlen))
		goto out;
	top = YPAD1 + (o->subtitle ? YPAD3 : 0);
	if (!t[0].value) {
		height = top + FRAMEHEIGHT + YPAD2;
		put_head(f, o, title, width, height, false);
		fprintf(f, "<text x=\"%u\" y=\"%u\" style=\"text-anchor: middle\">"
			"No stacks: the values add up to 0.</text>\n<g id=\"frames\">\n</g>\n</svg>\n",
			width / 2, top + FRAMEHEIGHT);
		drawn = 0;
		goto out;
	}
	scale = (double)(width - 2 * XPAD) / t[0].value;
	/* Children are after their parent: a left-out parent leaves them out. */
	for (i = 0; i < nn; i++) {
		t[i].drawn = t[i].value && t[i].value * scale >= o->minwidth &&
			     (!i || t[t[i].parent].drawn);
		if (!t[i].drawn)
			continue;
		if (t[i].depth > depthmax)
			depthmax = t[i].depth;
		if (t[i].level)
			chain = true;
		if (i && kernel_mark(t[i].name, t[i].len))
			marked = true;
	}
	height = top + (depthmax + 1) * FRAMEHEIGHT + YPAD2;
	put_head(f, o, title, width, height, chain);
	fputs("<g id=\"frames\">\n", f);
	drawn = 0;
	for (i = 0; i < nn; i++) {
		double x = XPAD + t[i].x * scale, w = t[i].value * scale;
		unsigned int y = height - YPAD2 - (t[i].depth + 1) * FRAMEHEIGHT + 1;
		char *name, fill[48];
		const char *cls;
		enum ks_fkind kind;

		if (!t[i].drawn)
			continue;
		/* A kernel frame's mark picks its palette; it is not shown. */
		name = display_name(t[i].name, t[i].len -
				    (i && kernel_mark(t[i].name, t[i].len) ? KS_KMARK_LEN : 0));
		if (!name) {
			drawn = fail(err, errlen, "out of memory");
			goto out;
		}
		if (i) {
			char *raw = strndup(t[i].name, t[i].len);

			kind = raw ? ks_flame_kind(raw, t[i].level, marked) : KS_FK_KERNEL;
			free(raw);
		} else {
			kind = KS_FK_ROOT;
		}
		cls = frame_fill(fill, sizeof(fill), kind, t[i].level,
				 name_hash(t[i].name, t[i].len));
		if (cls)
			fprintf(f, "<g class=\"%s\"><title>", cls);
		else
			fprintf(f, "<g class=\"w%u\"><title>", t[i].level);
		xml_put(f, name, strlen(name));
		fputs(" (", f);
		put_value(f, t[i].value, o);
		fprintf(f, ", %.2f%%)</title>", 100.0 * t[i].value / t[0].value);
		fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			"rx=\"2\" ry=\"2\"/>", x, y, w, FRAMEHEIGHT - 1, fill);
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + (FRAMEHEIGHT - 1) / 2.0 + 3);
		put_label(f, name, w);
		fputs("</text></g>\n", f);
		free(name);
		drawn++;
	}
	fputs("</g>\n</svg>\n", f);
out:
	free(lines);
	free(t);
	free(buf);
	return drawn;
}
