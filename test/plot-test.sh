#!/bin/bash
# kstats plot on nodes captured in a guest (test/data/6.12/kstats): the
# SVG must parse as XML, be an <svg> of the SVG namespace, and carry the
# axis labels, the title with the sample count, the p50/p99/max marks
# and a log-scale value axis (decade ticks). Refusals: a metric without
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
