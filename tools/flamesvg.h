/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flamesvg: folded stacks ("frame;frame;...;frame VALUE" lines, as
 * ks_fold() writes them) drawn as a self-contained interactive SVG flame
 * graph in flamegraph.pl's conventions: root at the bottom, frames
 * sorted by name and merged, widths by value, hover titles, click to
 * zoom, search. The SVG carries its own <style> and <script>; it needs
 * no network and no other file. kstats flame --svg draws with it.
 */
#ifndef FLAMESVG_H
#define FLAMESVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What a frame is, which picks its palette (see ks_flame_kind()):
 * kernel frames in flamegraph.pl's kernel palette (orange), user frames
 * in its palette for user code (red), the "--" separator grey, the
 * frames after N "--" separators (an off-wake graph's waker side, the
 * levels of a chain graph) in blue and aqua tones by N, the other row
 * ("[other]") light grey.
 */
enum ks_fkind {
	KS_FK_ROOT,	/* "all" */
	KS_FK_KERNEL,
	KS_FK_USER,
	KS_FK_SEP,	/* "--" */
	KS_FK_CHAIN,	/* after a "--": a waker's side, a chain's level */
	KS_FK_OTHER,	/* "[other]" */
};

/*
 * The kind of @frame (as folded: no ';'), @level "--" frames above the
 * root (0: the stack's own side). The one place that tells frames apart.
 * @marked: the graph marks its kernel frames "_[k]" (flamegraph.pl's
 * annotation, as kstats flame --svg does with user stacks and perf's
 * stackcollapse-perf.pl --kernel), so unmarked frames are user frames.
 */
enum ks_fkind ks_flame_kind(const char *frame, unsigned int level, bool marked);

/* flamegraph.pl's annotation of a kernel frame, dropped from its label. */
#define KS_KMARK	"_[k]"
#define KS_KMARK_LEN	4

struct ks_flame_opts {
	const char *title;	/* the heading; NULL: "Flame Graph" */
	const char *subtitle;	/* a second line; NULL: none */
	bool count;		/* VALUEs are counts; else times */
	uint64_t ns_per_value;	/* times: VALUE's unit in ns (0: 1, ns) */
	unsigned int width;	/* px; 0: 1200 */
	double minwidth;	/* px; narrower frames are left out (0.1) */
};

#define KS_FLAME_WIDTH		1200
#define KS_FLAME_MINWIDTH	0.1

/*
 * Draw the folded stacks of @folded (lines "frames VALUE"; frames are
 * ';'-separated, VALUE a decimal integer; blank lines skipped; identical
 * stacks summed) to @f as an SVG. Names are written as valid XML
 * whatever bytes they hold: control bytes and bytes that are not UTF-8
 * as "\xHH". Returns the number of frames drawn (the root "all"
 * included; 0 when the values add up to 0, drawn as a note), or -1 with
 * "line N: ..." in @err for input off the format.
 */
int ks_flame_svg(FILE *f, const char *folded, const struct ks_flame_opts *o,
		 char *err, size_t errlen);

#endif
