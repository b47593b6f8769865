#!/bin/bash
# kstats plot on nodes captured in a guest (test/data/6.12/kstats): the
# SVG must parse as XML, be an <svg> of the SVG namespace, and carry the
# axis labels, the title with the sample count, the p50/p99/max marks
# and a log-scale value axis (decade ticks). A node of two humps with
# empty slots between them: the density path is at zero there and the
# cumulative path flat (their path data read against the axis ticks);
# values within a decade, a linear value axis.
# Refusals: a metric without
# samples (65), no -o (64); PNG and PDF as the name asks, another name
# refused (64). Ends with "plot: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
bash "$TOP/test/lib/need-pkgs.sh" gnuplot-nox python3 ||
	{ echo "plot: 0 passed, 1 failed"; exit 1; }
KSTATS=$TOP/tools/kstats
[[ -x $KSTATS ]] || make -C "$TOP/tools" kstats >/dev/null
export KSTATS_ROOT=$TOP/test/data/6.12/kstats
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PASSED=0
FAILED=0
ok() {
	if "$@"; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); echo "FAIL: $*"; fi
}

for m in read runq; do
	"$KSTATS" plot "$m" -o "$T/$m.svg"
	ok test $? = 0
	samples=$(awk '$2 == "samples" {print $3; exit}' "$KSTATS_ROOT/$m")
	python3 - "$T/$m.svg" "$m" "$samples" <<'PY'
import sys
import xml.etree.ElementTree as ET
path, name, samples = sys.argv[1], sys.argv[2], sys.argv[3]
root = ET.parse(path).getroot()          # raises on malformed XML
bad = []
if root.tag != '{http://www.w3.org/2000/svg}svg':
    bad.append(f'root is {root.tag}')
texts = [''.join(e.itertext()).strip() for e in root.iter() if e.tag.endswith('}text')]
for want in ('value (ns, log scale)', 'density (fraction of samples per ns)',
             'cumulative fraction', 'p50', 'p99', 'max',
             f'kstats {name}: {samples} samples'):
    if want not in texts:
        bad.append(f'no text {want!r}')
# Log scale: the value axis has decade ticks 1000, 10000, 100000.
for tick in ('1000', '10000', '100000'):
    if tick not in texts:
        bad.append(f'no tick {tick}')
if sum(1 for e in root.iter() if e.tag.endswith('}path')) < 2:
    bad.append('fewer than 2 paths')
print(f'{path}: {len(texts)} texts', *bad, sep='\n  ')
sys.exit(1 if bad else 0)
PY
	ok test $? = 0
done
# Two humps with nothing between them (frac_bits 3: slots 72-86 are
# 2048-7679 ns, 112-118 are 65536-131071 ns; 87-111 hold no sample): the
# density is drawn over each slot's own width, at zero (the axis) over
# the empty slots, and the cumulative curve is flat there, at the first
# hump's share. Positions are read off the SVG's path data and mapped
# with the decade ticks of the value axis.
mkdir "$T/hump"
python3 - "$T/hump/twohump" <<'PY'
import sys
def base(s):
    b, lead = s >> 3, 8 | (s & 7)
    return lead << (b - 1) if b else s
def top(s):
    b = s >> 3
    return base(s) + (1 << (b - 1 if b else 0)) - 1
counts = dict(zip(range(72, 87), [1, 3, 6, 10, 14, 18, 20, 18, 14, 10, 8, 6, 4, 2, 1]))
counts.update(zip(range(112, 119), [2, 5, 9, 12, 9, 5, 2]))
n = sum(counts.values())
mid = {s: (base(s) + top(s)) // 2 for s in counts}
out = ['# name twohump', '# frac_bits 3', '# state active', f'# samples {n}',
       '# missed 0', '# nmi_dropped 0', f'# min {mid[72]}', f'# max {mid[118]}',
       f'# mean {sum(mid[s] * c for s, c in counts.items()) // n}']
for q, k in ((0.5, 'p50'), (0.9, 'p90'), (0.99, 'p99'), (0.999, 'p99.9'), (0.9999, 'p99.99')):
    acc = 0
    for s in sorted(counts):
        acc += counts[s]
        if acc >= q * n:
            break
    out += [f'# {k} {mid[s]}', f'# {k}_slot {s}', f'# {k}_err {top(s) - base(s)}',
            f'# {k}_relerr 0.062500']
out.append('# unit ns')
acc = 0
for s in sorted(counts):
    acc += counts[s]
    for cpu in ('CPU  0', 'CPUS 1'):
        out.append(f'slot {s:<3} {cpu}    count {counts[s]:8} avg {mid[s]:8} p {acc / n:.6f}')
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
PY
KSTATS_ROOT=$T/hump "$KSTATS" plot twohump -o "$T/twohump.svg"
ok test $? = 0
python3 - "$T/twohump.svg" <<'PY'
import math
import re
import sys
import xml.etree.ElementTree as ET
SVG = '{http://www.w3.org/2000/svg}'
def base(s):
    b, lead = s >> 3, 8 | (s & 7)
    return lead << (b - 1) if b else s
def top(s):
    b = s >> 3
    return base(s) + (1 << (b - 1 if b else 0)) - 1
root = ET.parse(sys.argv[1]).getroot()
bad = []
def subpaths(d):
    """Path data as lists of (x, y), one per M."""
    out = []
    for cmd, x, y in re.findall(r'([ML])\s*([-\d.]+),([-\d.]+)', d):
        if cmd == 'M':
            out.append([])
        out[-1].append((float(x), float(y)))
    return out
# The frame: the closed border path, its left, right, top and bottom.
frame = None
for e in root.iter(SVG + 'path'):
    if re.fullmatch(r'\s*M[-\d.,\sL]+Z\s*', e.get('d', '')):
        frame = subpaths(e.get('d'))[0]
        break
bottom = max(y for x, y in frame)
topy = min(y for x, y in frame)
# The value axis: decade ticks (labels under the frame) give log10 -> x.
ticks = {}
for g in root.iter(SVG + 'g'):
    m = re.match(r'translate\(([-\d.]+),([-\d.]+)\)', g.get('transform', ''))
    t = ''.join(g.itertext()).strip()
    if m and re.fullmatch(r'1(0+)', t) and float(m.group(2)) > bottom:
        ticks[len(t) - 1] = float(m.group(1))
if 4 not in ticks or 5 not in ticks:
    sys.exit(f'no decade ticks 10000 and 100000: {ticks}')
def px(v):
    return ticks[4] + (ticks[5] - ticks[4]) * (math.log10(v) - 4)
# Each plot's data: its group's paths, less the key's sample line.
plots = {}
for g in root.iter(SVG + 'g'):
    if (g.get('id') or '').startswith('gnuplot_plot_'):
        title = g.find(SVG + 'title').text
        sp = [p for e in g.iter(SVG + 'path') for p in subpaths(e.get('d'))]
        plots[title] = [pt for p in sp[1:] for pt in p]
def span(points, x0, x1):
    """The lowest and highest y the polyline takes over [x0, x1]."""
    ys = []
    for (ax, ay), (bx, by) in zip(points, points[1:]):
        lo, hi = max(min(ax, bx), x0), min(max(ax, bx), x1)
        if lo > hi:
            continue
        for x in (lo, hi):
            ys.append(ay if ax == bx else ay + (by - ay) * (x - ax) / (bx - ax))
    return (min(ys), max(ys)) if ys else None
dens, cum = plots.get('density per slot'), plots.get('cumulative fraction')
if not dens or not cum:
    sys.exit(f'no density or cumulative plot: {list(plots)}')
# The empty slots 87-111: from top(86) + 1 to base(112), less a pixel.
x0, x1 = px(top(86) + 1) + 1, px(base(112)) - 1
s = span(dens, x0, x1)
if not s or abs(s[0] - bottom) > 0.5 or abs(s[1] - bottom) > 0.5:
    bad.append(f'density over the empty slots {x0:.1f}-{x1:.1f} px is at y {s}, not at zero (y {bottom})')
s = span(cum, x0, x1)
share = 1 - sum([2, 5, 9, 12, 9, 5, 2]) / 179
want = bottom - share * (bottom - topy)
if not s or s[1] - s[0] > 0.1 or abs(s[0] - want) > 1:
    bad.append(f'cumulative over the empty slots is at y {s}, not flat at {share:.3f} (y {want:.2f})')
# A full slot (79, the peak) is drawn over its own width, above zero.
x0, x1 = px(base(79)) + 0.5, px(top(79) + 1) - 0.5
s = span(dens, x0, x1)
if not s or s[1] - s[0] > 0.1 or s[0] >= bottom - 10:
    bad.append(f'density over slot 79 ({x0:.1f}-{x1:.1f} px) is at y {s}, not one level above zero')
print(f'{sys.argv[1]}: {len(dens)} density points, {len(cum)} cumulative', *bad, sep='\n  ')
sys.exit(1 if bad else 0)
PY
ok test $? = 0
# Values within less than a decade (the first hump's slots 76-82): a
# linear value axis.
mkdir "$T/narrow"
sed -n -e '/^#/p' -e '/^slot 7[6-9] /p' -e '/^slot 8[0-2] /p' "$T/hump/twohump" >"$T/narrow/narrow"
KSTATS_ROOT=$T/narrow "$KSTATS" plot narrow -o "$T/narrow.svg"
ok test $? = 0
ok grep -q '>value (ns)<' "$T/narrow.svg"
ok test "$(grep -c 'log scale' "$T/narrow.svg")" = 0
"$KSTATS" plot idle -o "$T/idle.svg" 2>"$T/err"
ok test $? = 65
ok grep -q 'idle has no samples to plot' "$T/err"
"$KSTATS" plot read 2>/dev/null
ok test $? = 64
# The format the name asks for: PNG and PDF by their magic; others refused.
"$KSTATS" plot read -o "$T/read.png"
ok test $? = 0
ok test "$(head -c 8 "$T/read.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
"$KSTATS" plot read -o "$T/read.PDF"
ok test $? = 0
ok test "$(head -c 5 "$T/read.PDF")" = "%PDF-"
"$KSTATS" plot read -o "$T/read.jpg" 2>"$T/err"
ok test $? = 64
ok grep -q 'name a .svg, .png or .pdf file' "$T/err"
ok test ! -e "$T/read.jpg"
# A file that cannot be written: 73, naming it, nothing on stdout.
"$KSTATS" plot read -o "$T/nodir/read.svg" >"$T/out" 2>"$T/err"
ok test $? = 73
ok grep -q "nodir/read.svg: No such file or directory" "$T/err"
ok test ! -s "$T/out"
# No gnuplot: 69, and what to install.
PATH=/nonexistent "$KSTATS" plot read -o "$T/x.svg" 2>"$T/err"
ok test $? = 69
ok grep -q 'gnuplot is not installed (apt install gnuplot-nox)' "$T/err"
echo "plot: $PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
