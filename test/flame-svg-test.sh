#!/bin/bash
# kstats flame --svg on the host: folded stacks (--folded) and the
# captured KEY-NAME files (test/data/keys) drawn, the SVG parsed as XML
# (python3's xml.etree) and checked against a model of flamegraph.pl's
# merge computed here: one frame per merged frame, widths in proportion
# to the values to the pixel, titles with the values and shares; hostile
# names (<, &, quotes, control bytes, a newline in a comm) escaped and
# the file well-formed; an off-wake graph's waker frames and a chain's
# levels in their own classes and colours; 5000 generated stacks drawn,
# frames under the minimum width left out, exactly those. Then Debian's
# chromium, headless: the picture is not blank and carries the palettes,
# and a scripted click zooms a frame to the full width (a search finds
# its share). Ends with "flame: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
bash "$TOP/test/lib/need-pkgs.sh" python3 chromium ||
	{ echo "FAIL: python3 and chromium are not installed"; echo "flame: 0 passed, 1 failed"; exit 1; }
KSTATS=$TOP/tools/kstats
[[ -x $KSTATS ]] || make -C "$TOP/tools" kstats >/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PASSED=0
FAILED=0
ok() {
	if "$@"; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); echo "FAIL: $*"; fi
}

# The checks, shared: check.py MODE SVG [FOLDED] [ARGS].
cat >"$T/check.py" <<'PY'
import random
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
WIDTH, XPAD = 1200, 10
bad = []


def frames(path):
    root = ET.parse(path).getroot()         # raises on malformed XML
    if root.tag != NS + 'svg':
        bad.append(f'root is {root.tag}')
    g = [e for e in root.iter(NS + 'g') if e.get('id') == 'frames'][0]
    out = []
    for f in g:
        r = f.find(NS + 'rect')
        out.append({'cls': f.get('class'), 'title': f.find(NS + 'title').text,
                    'x': float(r.get('x')), 'w': float(r.get('width')),
                    'y': float(r.get('y')), 'fill': r.get('fill'),
                    'text': f.find(NS + 'text').text or ''})
    return root, out


def model(folded, minwidth=0.1):
    """flamegraph.pl's merge: a frame per distinct prefix, its value the
    sum of the lines through it; drawn if >= minwidth px and its parent is."""
    val, total = {}, 0
    for line in folded.splitlines():
        if not line:
            continue
        stack, v = line.rsplit(' ', 1)
        v = int(v)
        total += v
        fr = stack.split(';')
        for i in range(1, len(fr) + 1):
            val[tuple(fr[:i])] = val.get(tuple(fr[:i]), 0) + v
    scale = (WIDTH - 2 * XPAD) / total
    drawn = {p: v for p, v in val.items() if v and v * scale >= minwidth}
    drawn = {p: v for p, v in drawn.items()
             if all(p[:i] in drawn for i in range(1, len(p)))}
    return drawn, total, scale


def name(title):
    return title[:title.rindex(' (')]


def rgb(fill):
    return tuple(int(c) for c in re.match(r'rgb\((\d+),(\d+),(\d+)\)$', fill).groups())


mode, path = sys.argv[1], sys.argv[2]
if mode == 'small':
    folded = open(sys.argv[3]).read()
    root, fs = frames(path)
    want, total, scale = model(folded)
    if len(fs) != len(want) + 1:
        bad.append(f'{len(fs)} frames, want {len(want) + 1}')
    # Each frame: by its name and depth (y) back to its prefix.
    base = fs[0]['y']
    by = {}
    for f in fs[1:]:
        by.setdefault((name(f['title']), round((base - f['y']) / 16)), []).append(f)
    for p, v in want.items():
        cand = by.get((p[-1], len(p)), [])
        if len(cand) != 1:
            bad.append(f'{p}: {len(cand)} frames')
            continue
        f = cand[0]
        if abs(f['w'] - v * scale) > 0.01:
            bad.append(f'{p}: width {f["w"]}, want {v * scale:.2f}')
        pct = f'{100 * v / total:.2f}%'
        if not f['title'].endswith(f'({v} samples, {pct})') and \
           not f['title'].endswith(f'({v} sample, {pct})'):
            bad.append(f'{p}: title {f["title"]!r}, want {v} samples, {pct}')
    if fs[0]['w'] != WIDTH - 2 * XPAD or not fs[0]['title'].startswith(f'all ({total} samples, 100.00%'):
        bad.append(f'root {fs[0]}')
elif mode == 'hostile':
    # The names as written in the folded file, read back out of the XML.
    root, fs = frames(path)
    names = [name(f['title']) for f in fs]
    for want in sys.argv[3:]:
        if want not in names:
            bad.append(f'no frame {want!r} in {names}')
    title = ''.join(root.find(NS + 'title').itertext())
    if title != 'x<y>&"\'z':
        bad.append(f'title {title!r}')
    for f in fs:
        if re.search('[\x00-\x08\x0b-\x1f\x7f]', f['title'] + f['text']):
            bad.append(f'control byte in {f["title"]!r}')
elif mode == 'offwake':
    root, fs = frames(path)
    cls = {}
    for f in fs:
        cls.setdefault(f['cls'], []).append(f)
    if len(cls.get('sep', [])) != 2 or any(f['fill'] != 'rgb(160,160,160)' for f in cls['sep']):
        bad.append(f'separators: {cls.get("sep")}')
    waker = [name(f['title']) for f in cls.get('w1', [])]
    if sorted(waker) != sorted(['try_to_wake_up', '__wake_up_sync_key', 'pipe_write', 'my dd',
                                'waker-pid 77', 'try_to_wake_up', 'kick_pool', '__queue_work',
                                'swapper/0', 'waker-pid 0']):
        bad.append(f'waker frames {waker}')
    kern = [name(f['title']) for f in cls.get('k', [])]
    if 'pipe_read' not in kern or 'try_to_wake_up' in kern:
        bad.append(f'kernel frames {kern}')
    # Aqua waker (blue and green high, red low), orange kernel (no blue).
    for f in cls.get('w1', []):
        r, g, b = rgb(f['fill'])
        if not (r < 120 and g >= 165 and b >= 165):
            bad.append(f'waker fill {f["fill"]}')
    for f in cls.get('k', []):
        r, g, b = rgb(f['fill'])
        if not (r >= 190 and b == 0):
            bad.append(f'kernel fill {f["fill"]}')
elif mode == 'chain':
    root, fs = frames(path)
    lv = {}
    for f in fs:
        lv.setdefault(f['cls'], set()).add(rgb(f['fill']))
    if not {'k', 'sep', 'w1', 'w2', 'w3'} <= set(lv):
        bad.append(f'classes {sorted(lv)}')
    elif lv['w1'] & lv['w2'] or lv['w2'] & lv['w3'] or lv['k'] & lv['w1']:
        bad.append(f'levels share colours: {lv}')
elif mode == 'gen':
    # 5000 stacks of a few hundred frames over 2..30 levels; the values
    # spread from 1 to 10^7, so many frames are under 0.1 px.
    rnd = random.Random(41)
    syms = [f'fn_{i}' for i in range(300)]
    with open(path, 'w') as out:
        for _ in range(5000):
            d = rnd.randint(2, 30)
            st = ['do_syscall_64'] + [rnd.choice(syms[:20 + 10 * i]) for i in range(d)]
            out.write(';'.join(st) + f' {int(10 ** rnd.uniform(0, 7))}\n')
elif mode == 'large':
    folded = open(sys.argv[3]).read()
    root, fs = frames(path)
    want, total, scale = model(folded)
    every, _, _ = model(folded, 0)
    if len(fs) != len(want) + 1:
        bad.append(f'{len(fs)} frames, want {len(want) + 1} (of {len(every)})')
    if len(want) >= len(every):
        bad.append('nothing left out: the input is too even')
    if min(f['w'] for f in fs) < 0.1 - 0.005:
        bad.append('a frame under 0.1 px')
    print(f'{path}: {len(fs)} frames of {len(every) + 1}')
print(f'{mode} {path}:', *bad, sep='\n  ') if bad else None
sys.exit(1 if bad else 0)
PY
check() { python3 "$T/check.py" "$@"; }

# A small known input: exact frames, widths, titles (values as counts).
printf 'a;b;c 10\na;b;d 20\na;e 30\nf 40\na;b;c 5\nf;g 3\n' >"$T/small.folded"
"$KSTATS" flame --svg --count --folded "$T/small.folded" >"$T/small.svg"
ok test $? = 0
ok check small "$T/small.svg" "$T/small.folded"
# The same from standard input.
"$KSTATS" flame --svg --count --folded - <"$T/small.folded" >"$T/stdin.svg"
ok test $? = 0
ok check small "$T/stdin.svg" "$T/small.folded"

# Hostile names in folded input: XML's specials and control bytes.
printf '<script>alert(1)</script>;a&b;"q'"'"'\001\033e 5\n]]>;x 1\n' >"$T/hostile.folded"
"$KSTATS" flame --svg --title "x<y>&\"'z" --folded "$T/hostile.folded" >"$T/hostile.svg"
ok test $? = 0
ok check hostile "$T/hostile.svg" '<script>alert(1)</script>' 'a&b' '"q'"'"'\x01\x1be' ']]>' x
# ... and in a trace's comm: a newline (\012), <, &, quotes (kstats flame NAME).
KR=$T/root
mkdir "$KR"
for f in "$TOP"/test/data/keys/KEY-*; do ln -s "$f" "$KR/"; done
sed 's/^\tcomm dd$/\tcomm <a>\&"'"'"'\\012b/' "$TOP/test/data/keys/KEY-offcpu" >"$KR/KEY-hostile"
touch "$KR/offcpu" "$KR/hostile" "$KR/chain"
ok grep -q "comm <a>&\"'\\\\012b" "$KR/KEY-hostile"
"$KSTATS" --root "$KR" flame hostile --svg --title "x<y>&\"'z" >"$T/comm.svg"
ok test $? = 0
ok check hostile "$T/comm.svg" '<a>&"'"'"'_b' 'pipe_read'

# Off-wake: the waker side after "--" in aqua (class w1), "--" grey.
"$KSTATS" --root "$KR" flame offcpu --svg >"$T/offcpu.svg"
ok test $? = 0
ok check offwake "$T/offcpu.svg"
# A chain of three wakers: each level its own class and colours.
printf 'dd;schedule;--;ttwu;a;--;ttwu;b;--;ttwu;c 10\ndd;read;--;ttwu;d;--;e 7\n' >"$T/chain.folded"
"$KSTATS" flame --svg --folded "$T/chain.folded" >"$T/chain.svg"
ok test $? = 0
ok check chain "$T/chain.svg"

# 5000 stacks: drawn, well-formed, frames under 0.1 px left out.
check gen "$T/large.folded"
start=$(date +%s%N)
"$KSTATS" flame --svg --folded "$T/large.folded" >"$T/large.svg"
ok test $? = 0
echo "5000 stacks drawn in $((($(date +%s%N) - start) / 1000000)) ms"
ok check large "$T/large.svg" "$T/large.folded"

# --- in chromium, headless ------------------------------------------------
# One window size, 1200x800 (the option takes a comma).
# shellcheck disable=SC2054
CHROME=(timeout 20 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome"
	--window-size=1200,800)
# The picture: not blank, and orange (kernel), aqua (waker) and grey
# (separator) pixels where the frames are.
if ! "${CHROME[@]}" --screenshot="$T/offcpu.png" "file://$T/offcpu.svg" >"$T/chrome.log" 2>&1; then
	echo "FAIL: chromium --headless --screenshot did not run:"
	tail -5 "$T/chrome.log"
	FAILED=$((FAILED + 1))
fi
cat >"$T/png.py" <<'PY'
import struct
import sys
import zlib

data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and not interlace, f'PNG type {depth} {ctype} {interlace}'
bpp = 4 if ctype == 6 else 3
raw, stride = zlib.decompress(idat), w * bpp
rows, prev, i = [], bytearray(stride), 0
for y in range(h):
    ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if ft == 1:
            line[x] = (line[x] + a) & 255
        elif ft == 2:
            line[x] = (line[x] + b) & 255
        elif ft == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif ft == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
orange = aqua = grey = 0
colours = set()
for line in rows:
    for x in range(0, stride, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        colours.add((r, g, b))
        if r >= 190 and 90 <= g <= 155 and b < 30:
            orange += 1
        elif r <= 110 and g >= 165 and b >= 165:
            aqua += 1
        elif r == g == b == 160:
            grey += 1
print(f'{sys.argv[1]}: {w}x{h}, {len(colours)} colours, orange {orange}, aqua {aqua}, grey {grey}')
# The off-wake graph: 5 kernel rows, 5 waker rows, 1 separator row of
# about 1180 x 15 px each, less the labels.
sys.exit(0 if len(colours) > 20 and orange > 40000 and aqua > 40000 and grey > 8000 else 1)
PY
ok python3 "$T/png.py" "$T/offcpu.png"

# A click on kworker/0:1 (6% of the width) zooms it to the full width,
# hides the frames beside it and shows Reset Zoom; a search for schedule
# matches both stacks' (93.36% + 6.22%, counted once each).
python3 - "$T/offcpu.svg" "$T/click.svg" <<'PY'
import sys
s = open(sys.argv[1]).read()
test = '''<script type="text/ecmascript"><![CDATA[
window.addEventListener('load', function () {
	var g = document.getElementById('frames').children, i, z = null, r = [];
	for (i = 0; i < g.length; i++)
		if (g[i].getElementsByTagName('title')[0].textContent.indexOf('kworker/0:1 (') === 0)
			z = g[i];
	z.getElementsByTagName('rect')[0].dispatchEvent(new MouseEvent('click', { bubbles: true }));
	r.push('zoomed=' + z.getElementsByTagName('rect')[0].getAttribute('width'));
	r.push('hidden=' + document.querySelectorAll('#frames > g.hide').length);
	r.push('unzoom=' + (document.getElementById('unzoom').classList.contains('hide') ? 'hidden' : 'shown'));
	r.push('search=' + search('schedule').toFixed(2));
	r.push('matched=' + document.getElementById('matched').textContent);
	document.getElementById('unzoom').dispatchEvent(new MouseEvent('click', { bubbles: true }));
	r.push('unzoomed=' + z.getElementsByTagName('rect')[0].getAttribute('width'));
	var o = document.createElementNS('http://www.w3.org/2000/svg', 'text');
	o.setAttribute('id', 'testresult');
	o.textContent = r.join(' ');
	document.documentElement.appendChild(o);
});
]]></script>
'''
open(sys.argv[2], 'w').write(s.replace('</svg>\n', test + '</svg>\n'))
PY
"${CHROME[@]}" --dump-dom "file://$T/click.svg" >"$T/dom" 2>"$T/chrome.log"
result=$(grep -o '<text id="testresult">[^<]*' "$T/dom" | sed 's/.*>//')
echo "click: ${result:-no result (chromium: $(tail -1 "$T/chrome.log"))}"
# 22 frames: the root (a parent) and kworker's 10 stay; [other] and dd's 10 hide.
ok test "$result" = "zoomed=1180.00 hidden=11 unzoom=shown search=99.58 matched=Matched: 99.6% unzoomed=73.44"

# probe SVG OUT JS: OUT is SVG with JS run on load (after the page's own
# init), its result r[] and any uncaught error written to #testresult.
probe() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
s = open(sys.argv[1]).read()
test = '''<script type="text/ecmascript"><![CDATA[
var errors = [];
window.addEventListener('error', function (e) { errors.push(e.message); });
window.addEventListener('load', function () {
	var r = [];
	try { ''' + sys.argv[3] + ''' } catch (e) { errors.push(String(e)); }
	r.push('errors=' + errors.length + (errors.length ? ':' + errors.join('|') : ''));
	var o = document.createElementNS('http://www.w3.org/2000/svg', 'text');
	o.setAttribute('id', 'testresult');
	o.textContent = r.join(' ');
	document.documentElement.appendChild(o);
});
]]></script>
'''
open(sys.argv[2], 'w').write(s.replace('</svg>\n', test + '</svg>\n'))
PY
}
# run URL: the #testresult of URL in chromium.
run() {
	"${CHROME[@]}" --dump-dom "$1" >"$T/dom" 2>"$T/chrome.log"
	grep -o '<text id="testresult">[^<]*' "$T/dom" | sed 's/.*>//'
}
# ?s=TERM on opening: a term searches; an empty one does not (nothing
# marked, no "Matched"); a malformed escape is ignored, without an error.
probe "$T/offcpu.svg" "$T/url.svg" "r.push('matched=[' + document.getElementById('matched').textContent + ']');
	r.push('marked=' + document.querySelectorAll('#frames > g.match').length);"
for q in 's=sched%75le' 's=' 's=%E0%A4%A'; do
	result=$(run "file://$T/url.svg?$q")
	echo "?$q: ${result:-no result (chromium: $(tail -1 "$T/chrome.log"))}"
	case $q in
	s=sched*) ok test "$result" = "matched=[Matched: 99.6%] marked=4 errors=0" ;;
	*) ok test "$result" = "matched=[ ] marked=0 errors=0" ;;
	esac
done
# An empty term given to search() clears a search.
probe "$T/offcpu.svg" "$T/clear.svg" "search('schedule'); r.push('search=' + search(''));
	r.push('matched=[' + document.getElementById('matched').textContent + ']');
	r.push('marked=' + document.querySelectorAll('#frames > g.match').length);"
result=$(run "file://$T/clear.svg")
echo "clear: ${result:-no result (chromium: $(tail -1 "$T/chrome.log"))}"
ok test "$result" = "search=null matched=[ ] marked=0 errors=0"
# "No stacks": Search, Ctrl-F, F3, Escape, ?s= and search() do nothing
# and throw nothing.
"$KSTATS" flame --svg --folded /dev/null >"$T/empty.svg"
probe "$T/empty.svg" "$T/empty-probe.svg" "r.push('search=' + search('x'));
	document.getElementById('search').dispatchEvent(new MouseEvent('click', { bubbles: true }));
	window.dispatchEvent(new KeyboardEvent('keydown', { keyCode: 70, ctrlKey: true }));
	window.dispatchEvent(new KeyboardEvent('keydown', { keyCode: 114 }));
	window.dispatchEvent(new KeyboardEvent('keydown', { keyCode: 27 }));
	r.push('matched=[' + document.getElementById('matched').textContent + ']');"
result=$(run "file://$T/empty-probe.svg?s=x")
echo "empty: ${result:-no result (chromium: $(tail -1 "$T/chrome.log"))}"
ok test "$result" = "search=null matched=[ ] errors=0"
# --unit: another tool's folded times, in its unit; refused where it
# cannot apply, with EX_USAGE (64) and nothing on standard output.
printf 'a;b 1500\nc 500\n' >"$T/us.folded"
"$KSTATS" flame --svg --unit us --folded "$T/us.folded" >"$T/us.svg"
ok grep -q '<title>b (1.5 ms, 75.00%)</title>' "$T/us.svg"
for bad in "--svg --unit min --folded $T/us.folded" "--svg --unit us --count --folded $T/us.folded" \
	   "somename --unit us"; do
	# shellcheck disable=SC2086
	"$KSTATS" flame $bad >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	ok test "$rc" = 64 -a ! -s "$T/bad.out" -a -s "$T/bad.err"
done
echo "flame: $PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
