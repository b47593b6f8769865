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
# Each SVG: XML, an <svg>, with dd's frames: the root, the blocked side
# (__schedule), the "--" frame and the waker's side above it (class w1);
# the chain graph also its second level above that (w2).
svg_check() { # WHAT PATH-LINE-PREFIX SUFFIX CLASSES
	local svg
	svg=$(grep -F "$2" "$out" | sed -n "s/^.*: \(\/.*\.$3\) .*/\1/p")
	if [[ -n $svg ]] && python3 - "$svg" "$4" <<'PY'; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL demo: $1 ${svg:-(no path)}"; fi
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
bad += [c for c in sys.argv[2].split(',') if c not in frames]
if root.tag != NS + 'svg' or bad:
    sys.exit(f'{sys.argv[1]}: {root.tag}, {len(names)} frames, missing {bad}, classes {sorted(frames)}')
print(f'{sys.argv[1]}: {len(names)} frames')
PY
}
svg_check "the off-CPU flame graph" "== dd's off-CPU flame graph" off.svg w1
check "the chain: dd's top row, level 1 a task with its blocked time" '^	waker-chain 1 comm [^ ]+ pid [0-9]+ blocked-ns [0-9]+$'
check "the chain: level 2" '^	waker-chain 2 '
check "the chain: the I/O wait's waker, null_blk's completion, is in a level" '^		[a-z_]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[null_blk\]$'
check "flame ch folds the chain: dd's pipe_read, --, dd's pipe_write, --, the interrupt" '^[^ ]*;pipe_read;schedule;__schedule;--;[^ ]*;pipe_write;[^ ]*;dd;--;try_to_wake_up;.* \[null_blk\];.*;\[interrupt\] [0-9]+$'
check "the chain graph's path" "^== dd's chain graph \\(kstats flame ch --svg\\): /.*\\.chain\\.svg "
svg_check "the chain graph" "== dd's chain graph" chain.svg w1,w2
check "the client module's metric" '^demo_hrtimer_late: [1-9][0-9]* samples?'
check "kstats list" '^NAME +SAMPLES'
# The demo makes three traces and its client module two metrics
# (examples/kstats_demo.c): known from its script, not from its output.
# Each trace has a GAP- node, and off its BLOCKED- and RUNQ- nodes.
check "kstats list in words: the demo's 3 traces (8 nodes) and 2 client metrics" \
	'^in words: 10 metrics: 8 of 3 traces \(off read runq\) with their GAP-, BLOCKED- and RUNQ- parts, 2 of a client module'
check "the raw node, last: its summary lines to the unit" '^# unit ns$'
check "and its first slot lines" '^slot +[0-9]+ +CPUS +[0-9]+ +count'
check "the raw node, last" '^# name read$'
check "unloaded at the end" '^== unloaded$'
# After each part, one "in words:" line states what its figures mean.
# Recomputed here, apart from the guest's awk, from the figures the output
# shows above each line (since the part's "==" line or the last such line).
words=$(python3 - "$out" <<'PY'
import itertools
import re
import sys

KINDS = ["show", "keys", "runq", "off", "chain", "client", "list", "node"]
UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def ns(v):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", v)
    return float(m.group(1)) * UNIT[m.group(2)]


def rows(block):
    """KEY file rows: total, count, avg, comm, waker-comm, kstack, waker-kstack."""
    out, cur, sect = [], None, None
    for l in block:
        m = re.match(r"row total (\d+) count (\d+) avg (\d+) ", l)
        if m:
            cur = {"total": int(m.group(1)), "count": m.group(2), "avg": m.group(3),
                   "k": [], "w": []}
            out.append(cur)
            sect = None
        elif l.startswith("slowest value "):
            cur, sect = None, None
        elif cur is None:
            continue
        elif l.startswith("\tcomm "):
            cur["comm"] = l.split()[1]
        elif l.startswith("\twaker-comm "):
            cur["wcomm"] = l.split()[1]
        elif l == "\tkstack":
            sect = "k"
        elif l == "\twaker-kstack":
            sect = "w"
        elif l.startswith("\twaker-chain "):
            f = l.split()
            sect = "c" + f[1]
            cur[sect] = []
            cur["who" + f[1]] = f[3] if f[2] == "comm" else f[2]
            cur["ns" + f[1]] = f[-1]
        elif l.startswith("\t\t") and sect:
            cur[sect].append(l.strip().split("+")[0])
    return out


def own(frames):
    return next((f for f in frames if not re.search("schedule|wake", f)), "?")


def show(block):
    t = "\n".join(block)
    return (re.search(r"^\S+: (\d+) samples?,", t, re.M).group(1),
            re.search(r"^\s+p50 (\S+)", t, re.M).group(1),
            re.search(r"^\s+p50 .* p99 (\S+)", t, re.M).group(1),
            re.search(r"^\s+min \S+\s+mean (\S+)\s+max (\S+)", t, re.M).groups())


def hashes(block):
    d, cur = {}, None
    for l in block:
        f = l.split()
        if len(f) == 3 and f[0] == "#":
            if f[1] == "name":
                cur = f[2]
            d.setdefault(cur, {})[f[1]] = f[2]
    return d, cur


def expect(kind, block):
    if kind == "show":
        n, p50, p99, (_, mx) = show(block)
        return (f"in words: half of the {n} calls took at most {p50} and 99 % at most {p99}; "
                f"the slowest, {mx}, took {int(ns(mx) / ns(p50) + 0.5)} times as long as the median")
    if kind == "keys":
        r = rows(block)
        sl = next(l.split() for l in block if l.startswith("slowest value "))
        share = int(100 * r[0]["total"] / sum(x["total"] for x in r) + 0.5)
        return (f"in words: the top row, {r[0]['comm']}'s calls from {r[0]['k'][1]}, holds {share} % "
                f"of the time of the {len(r)} rows shown ({r[0]['count']} calls, avg {r[0]['avg']} ns); "
                f"the slowest call, {sl[2]} ns, was {sl[6]}'s (pid {sl[4]})")
    if kind == "runq":
        n, _, p99, (mean, _) = show(block)
        r = rows(block)[0]
        return (f"in words: woken tasks waited for a CPU {mean} on average over {n} waits (p99 {p99}); "
                f"{r['comm']} waited longest in all: {r['count']} waits, {r['total'] / 1e6:.1f} ms")
    if kind == "off":
        d, _ = hashes(block)
        b = int(d["BLOCKED-off"]["samples"]) * int(d["BLOCKED-off"]["mean"])
        q = int(d["RUNQ-off"]["samples"]) * int(d["RUNQ-off"]["mean"])
        pq = int(100 * q / (b + q) + 0.5)
        r = rows(block)[0]
        return (f"in words: dd's {d['off']['samples']} waits off CPU: {pq} % of the time waiting for a "
                f"CPU (run queue), {100 - pq} % blocked; the top row blocked in {own(r['k'])}, "
                f"woken by {r['wcomm']}'s {own(r['w'])}")
    if kind == "chain":
        r = rows(block)[0]
        def level(n):
            if r["who%d" % n] != "[interrupt]":
                return "%s in %s" % (r["who%d" % n], own(r["c%d" % n]))
            skip = "schedule|wake|complete|^blk_|^bio_|end_?io"
            return "an interrupt in " + next((f for f in r["c%d" % n] if not re.search(skip, f)), "?")
        return (f"in words: the top two-level chain, {r['count']} waits of dd ({r['total'] / 1e6:.1f} ms): "
                f"dd blocked in {own(r['k'])}, woken by {level(1)}, which had "
                f"itself been blocked {int(r['ns1']) / 1e6:.1f} ms (mean), woken by {level(2)}")
    if kind == "client":
        _, p50, p99, _ = show(block)
        return (f"in words: the 1 ms hrtimer fired a median {p50} late ({int(ns(p50) / 1e4 + 0.5)} % "
                f"of its period), and 1 in 100 times over {p99} late")
    if kind == "list":
        i = next(i for i, l in enumerate(block) if re.match(r"NAME +SAMPLES", l))
        # The table ends at the blank line before its footnote.
        table = list(itertools.takewhile(lambda l: l.strip(), block[i + 1:]))
        ms = [l.split() for l in table if len(l.split()) >= 6]
        client = [m for m in ms if m[5] == "-"]
        traces = [m[0] for m in ms if m[5] != "-" and not re.match(r"(GAP|BLOCKED|RUNQ|KEY)-", m[0])]
        return (f"in words: {len(ms)} metrics: {len(ms) - len(client)} of {len(traces)} traces "
                f"({' '.join(traces)}) with their GAP-, BLOCKED- and RUNQ- parts, "
                f"{len(client)} of a client module (TRACE -)")
    if kind == "node":
        d, cur = hashes(block)
        n = d[cur]
        return (f"in words: p50 {n['p50']} ns: half of {cur}'s {n['samples']} samples are at most "
                f"that, give or take {n['p50_err']} ns (p50_err), in slot {n['p50_slot']}")


lines = open(sys.argv[1]).read().split("\n")
said, start = [], 0
for i, l in enumerate(lines):
    if l.startswith("== "):
        start = i + 1
    elif l.startswith("in words: "):
        said.append((l, lines[start:i]))
        start = i + 1
if len(said) != len(KINDS):
    print(f"FAIL in words: {len(said)} lines, not one after each of the {len(KINDS)} parts")
for kind, (line, block) in zip(KINDS, said):
    try:
        want = expect(kind, block)
    except (AttributeError, IndexError, KeyError, StopIteration, ValueError, ZeroDivisionError) as e:
        want = f"(no figures to recompute it from: {e!r})"
    if line == want:
        print(f"PASS in words ({kind}): {line}")
    else:
        print(f"FAIL in words ({kind}): the demo says\n    {line}\n  its figures give\n    {want}")
PY
)
printf '%s\n' "$words" | grep -v '^PASS'
p=$((p + $(grep -c '^PASS' <<<"$words")))
f=$((f + $(grep -c '^FAIL' <<<"$words")))
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
