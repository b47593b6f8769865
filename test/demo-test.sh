#!/bin/bash
# The README's first command, test/demo.sh, run as a user runs it: it must
# exit 0 and show each answer it announces, with figures from its own
# workload, and write dd's off-CPU flame graph (an SVG with its frames).
# Prints "demo: N passed, M failed". Usage: test/demo-test.sh [LOGDIR]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:-$TOP/out/logs}
mkdir -p "$logs"
out=$logs/demo.out
bash "$TOP/test/demo.sh" >"$out" 2>&1
rc=$?
p=0 f=0
check() { # WHAT GREP-E-PATTERN
	if grep -Eq -- "$2" "$out"; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL demo: $1 (no /$2/ in $out)"; fi
}
if [[ $rc == 0 ]]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL demo: exit status $rc (see $out)"; fi
check "kstats show read comes first, with samples" '^read: [1-9][0-9]* samples?, missed 0, stopped'
check "the top row of KEY-read is dd's" '^	comm dd$'
check "the slowest sample is shown" '^slowest value [0-9]+ pid [0-9]+ comm '
check "flame read has dd's reads" '^dd;.*;vfs_read [0-9]+$'
check "the run-queue latency has samples" '^runq: [1-9][0-9]* samples?, missed 0, stopped'
check "dd's off-CPU wait and the stack that woke it" '^		pipe_(read|write)\+'
check "the waker is dd" '^	waker-comm dd$'
check "flame off is an off-wake line" '^[^ ]*;__schedule;--;try_to_wake_up;[^ ]* [0-9]+$'
check "the off-CPU flame graph's path" "^== dd's off-CPU flame graph \\(kstats flame off --svg\\): /.*\\.off\\.svg "
# That file: XML, an <svg>, with dd's frames: the root, the blocked
# side (__schedule), the "--" frame and the waker's side above it.
svg=$(sed -n "s/^== dd's off-CPU flame graph (kstats flame off --svg): \(.*\.off\.svg\) .*/\1/p" "$out")
if [[ -n $svg ]] && python3 - "$svg" <<'PY'; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL demo: the off-CPU flame graph ${svg:-(no path)}"; fi
import sys
import xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
frames = {}
for g in root.iter(NS + 'g'):
    t = g.find(NS + 'title')
    if g.get('class') and t is not None:
        frames.setdefault(g.get('class'), []).append(t.text.rsplit(' (', 1)[0])
names = [n for v in frames.values() for n in v]
bad = [w for w in ('all', '__schedule', '--', 'try_to_wake_up') if w not in names]
if root.tag != NS + 'svg' or bad or 'w1' not in frames:
    sys.exit(f'{sys.argv[1]}: {root.tag}, {len(names)} frames, missing {bad}, classes {sorted(frames)}')
print(f'{sys.argv[1]}: {len(names)} frames')
PY
check "the client module's metric" '^demo_hrtimer_late: [1-9][0-9]* samples?'
check "kstats list" '^NAME +SAMPLES'
check "the raw node, last: its summary lines to the unit" '^# unit ns$'
check "and its first slot lines" '^slot +[0-9]+ +CPUS +[0-9]+ +count'
check "the raw node, last" '^# name read$'
check "unloaded at the end" '^== unloaded$'
# A kernel that is not here: one message naming those that are, exit 2.
bash "$TOP/test/demo.sh" 6.99-nosuch >"$logs/demo-nosuch.out" 2>&1
rc=$?
if [[ $rc == 2 ]] && grep -q "^demo: no kernel 6.99-nosuch with its headers here; these are: [0-9]" "$logs/demo-nosuch.out" &&
	! grep -q "make" "$logs/demo-nosuch.out"; then
	p=$((p + 1))
else
	f=$((f + 1))
	echo "FAIL demo: an unknown kernel (rc $rc): $(tr '\n' ' ' <"$logs/demo-nosuch.out")"
fi
echo "demo: $p passed, $f failed"
[[ $f == 0 ]]
