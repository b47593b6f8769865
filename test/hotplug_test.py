#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""CPU hotplug against kstats' per-CPU counters, in a stock-kernel guest
with 2 vCPUs (CPU 1 goes offline and online through its online file).

  hotplug_test.py gen GUEST_SCRIPT SERIES
  hotplug_test.py check LOGFILE

Every sample is a call the test made, so every figure is exact: the target
module's "oncpu C 0 N" makes N calls of kst_target_delay() on CPU C, and
"section 0 N" under taskset makes N sections on the CPU it is pinned to.
Traces: f, a function trace by the default method; s, a kprobe pair; k,
the same pair keyed by cpu; g and h, a function trace and a keyed pair
created while CPU 1 is offline. What is checked:
- samples recorded on CPU 1 stay in every read once it is offline: the
  node's totals and its CPU 1 lines, KEY-NAME's row of cpu 1, and the
  interval read after it went offline (exactly once: the next interval,
  and the one after it comes back, do not count them again);
- traces created while it is offline record on it once it is back;
- a reset while it is offline clears its counters too;
- samples + missed equal the calls made, for every node and interval,
  also when CPU 1 goes offline and online under a task making calls.
"""
import re
import sys

from basic_test import Results, deinterleave, report

D = "/sys/kernel/debug/kstats"
CPU1 = "/sys/devices/system/cpu/cpu1/online"

# Calls per phase: distinct numbers, so a sample counted in the wrong
# phase or twice shows as a wrong sum. fN: kst_target_delay() calls on
# CPU N; sN: sections on CPU N.
A = {"f0": 30, "f1": 40, "s0": 20, "s1": 25}   # all online
B = {"f0": 15, "s0": 10}                       # CPU 1 offline
C = {"f1": 35, "s1": 12}                       # back online
E = {"f1": 45, "s1": 14}                       # then offline right after
R = {"f1": 11}                                 # after a reset while offline


def gen(path, series):
    s = ["""set -u
D=%s
C=$D/_control
T=/sys/kernel/debug/kstats_test_target
ON=%s
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
ctl() { (echo "$1" > $C) 2>/tmp/err; echo "@@CTL rc=$? :: $1"; }
# calls CPU NF NS: NF calls of kst_target_delay(0) and NS sections on CPU.
calls() {
	echo "oncpu $1 0 $2" > $T || echo "@@FAIL oncpu $1 $2"
	taskset -c $1 sh -c "echo 'section 0 $3' > $T" || echo "@@FAIL section on $1"
}
# show TAG FILE: one read, tagged for the checker.
show() { echo "@@BEGIN $1"; cat "$D/$2"; echo "@@END $1 rc=$?"; }
online() { echo $1 > $ON; echo "@@ONLINE want $1 rc=$? now $(cat $ON)"; }
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
echo "@@NCPU $(nproc) possible $(cat /sys/devices/system/cpu/possible)"
ctl "trace f start kst_target_delay"
ctl "trace s start kst_section_begin end kst_section_end"
ctl "trace k start kst_section_begin end kst_section_end key cpu"
step online
""" % (D, CPU1)]
    s.append("calls 0 %d %d\ncalls 1 %d %d" % (A["f0"], A["s0"], A["f1"], A["s1"]))
    s.append("""step offline
online 0
for n in f s; do show off.$n $n; show off.i$n _interval/$n; done
show off.k KEY-k""")
    s.append("calls 0 %d %d" % (B["f0"], B["s0"]))
    s.append("""for n in f s; do show b.i$n _interval/$n; done
step created-offline
ctl "trace g start kst_target_delay"
ctl "trace h start kst_section_begin end kst_section_end key cpu"
step back
online 1""")
    s.append("calls 1 %d %d" % (C["f1"], C["s1"]))
    s.append("""for n in f s; do show c.i$n _interval/$n; done
step offline-again""")
    s.append("calls 1 %d %d" % (E["f1"], E["s1"]))
    s.append("""online 0
for n in f s; do show e.i$n _interval/$n; done
online 1
for n in f s; do show e2.i$n _interval/$n; done
step end
for n in f s g; do show end.$n $n; done
for n in k h; do show end.$n KEY-$n; done
step during
# CPU 1 goes offline and online 3 times under a task pinned to it that
# makes calls and sections in a loop (each offline moves it to CPU 0).
rm -f /tmp/stop
(i=0; while [ ! -e /tmp/stop ]; do
	echo "delay 0 10" > $T || echo "@@FAIL delay"
	echo "section 0 10" > $T || echo "@@FAIL section"
	i=$((i + 1))
done; echo "@@DURING $i") &
loop=$!
for j in 1 2 3; do
	taskset -p -c 1 $loop > /dev/null || echo "@@FAIL taskset"
	usleep 300000; online 0; usleep 300000; online 1
done
usleep 300000; touch /tmp/stop; wait
for n in f s; do show dur.$n $n; done
show dur.k KEY-k
step reset-offline
online 0
echo reset > $D/f || echo "@@FAIL reset f"
show r.f f
online 1""")
    s.append("echo 'oncpu 1 0 %d' > $T || echo '@@FAIL oncpu'" % R["f1"])
    s.append("""show r2.f f
step unload
for n in f s k g h; do ctl "remove $n"; done
rmmod kstats_test_target
rmmod kstats && echo "@@RMMOD ok"
step done
""")
    with open(path, "w") as f:
        f.write("\n".join(s))


def reads(lines):
    """tag -> (lines of the read, rc)."""
    out, cur, buf = {}, None, []
    for l in lines:
        m = re.match(r"@@BEGIN (\S+)$", l)
        if m:
            cur, buf = m.group(1), []
            continue
        m = re.match(r"@@END (\S+) rc=(\d+)", l)
        if m and m.group(1) == cur:
            out[cur] = (buf, int(m.group(2)))
            cur = None
            continue
        if cur is not None:
            buf.append(l)
    return out


def node(got):
    """samples, missed, {cpu: count} from its CPU lines, CPUS total."""
    lines, _ = got
    d = {}
    for l in lines:
        f = l.split()
        if len(f) == 3 and f[0] == "#" and f[1] in ("samples", "missed"):
            d[f[1]] = int(f[2])
    per, tot = {}, 0
    for l in lines:
        f = l.split()
        if len(f) >= 6 and f[0] == "slot" and f[4] == "count":
            if f[2] == "CPUS":
                tot += int(f[5])
            else:
                per[int(f[3])] = per.get(int(f[3]), 0) + int(f[5])
    return d.get("samples"), d.get("missed"), per, tot


def key_rows(got):
    """{cpu: count} of KEY-NAME's rows keyed by cpu, and other's count."""
    lines, _ = got
    rows, other, cnt = {}, None, None
    for l in lines:
        m = re.match(r"row total \d+ count (\d+) ", l)
        if m:
            cnt = int(m.group(1))
            continue
        m = re.match(r"\s+cpu (\d+)$", l)
        if m and cnt is not None:
            rows[int(m.group(1))] = rows.get(int(m.group(1)), 0) + cnt
            cnt = None
            continue
        m = re.match(r"other total \d+ count (\d+) ", l)
        if m:
            other = int(m.group(1))
    return rows, other


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines = deinterleave([l.rstrip("\r") for l in log.split("\n")])
    steps = [m.group(1) for m in (re.search(r"@@STEP (\S+)", l) for l in lines) if m]
    r.check(steps == ["online", "offline", "created-offline", "back", "offline-again",
                      "end", "during", "reset-offline", "unload", "done"],
            "hotplug: every step reached", str(steps))
    r.check(not [l for l in lines if "@@FAIL" in l],
            "hotplug: every load, call and reset succeeds",
            str([l for l in lines if "@@FAIL" in l][:3]))
    ctl = [l for l in lines if l.startswith("@@CTL")]
    r.check(len(ctl) == 10 and all(l.startswith("@@CTL rc=0 ") for l in ctl),
            "hotplug: 5 traces added and removed", str(ctl))
    on = [l for l in lines if l.startswith("@@ONLINE")]
    r.check(len(on) == 12 and all(re.fullmatch(r"@@ONLINE want (\d) rc=0 now \1", l)
                                  for l in on),
            "hotplug: CPU 1 went offline and online 6 times through %s" % CPU1, str(on))
    rd = reads(lines)
    r.check(all(rc == 0 for _, rc in rd.values()), "hotplug: every read succeeds",
            str([t for t, (_, rc) in rd.items() if rc]))

    def want_node(tag, n0, n1, what):
        """Read @tag: n0 samples on CPU 0, n1 on CPU 1, nothing missed."""
        if tag not in rd:
            r.check(False, "hotplug: %s (read %s present)" % (what, tag))
            return
        samples, missed, per, tot = node(rd[tag])
        r.check(samples is not None and missed is not None and
                samples + missed == n0 + n1 and samples == tot,
                "hotplug: %s: samples + missed = %d calls made" % (what, n0 + n1),
                "samples %s missed %s CPUS lines %d" % (samples, missed, tot))
        r.check(per == {c: n for c, n in ((0, n0), (1, n1)) if n},
                "hotplug: %s: CPU lines give %d on CPU 0, %d on CPU 1" % (what, n0, n1),
                str(per))

    def want_keys(tag, n0, n1, what):
        if tag not in rd:
            r.check(False, "hotplug: %s (read %s present)" % (what, tag))
            return
        rows, other = key_rows(rd[tag])
        r.check(rows == {c: n for c, n in ((0, n0), (1, n1)) if n} and other == 0,
                "hotplug: %s: rows cpu 0 %d, cpu 1 %d, other 0" % (what, n0, n1),
                "%s other %s" % (rows, other))

    for n, x in (("f", "f"), ("s", "s")):
        kind = {"f": "function trace (default method)", "s": "kprobe pair"}[n]
        want_node("off." + n, A[x + "0"], A[x + "1"],
                  "%s node read with CPU 1 offline keeps its samples" % kind)
        want_node("off.i" + n, A[x + "0"], A[x + "1"],
                  "%s interval read after CPU 1 went offline holds its samples once" % kind)
        want_node("b.i" + n, B[x + "0"], 0,
                  "%s next interval, CPU 1 still offline: only CPU 0's new calls" % kind)
        want_node("c.i" + n, 0, C[x + "1"],
                  "%s interval after CPU 1 came back: its new calls only" % kind)
        want_node("e.i" + n, 0, E[x + "1"],
                  "%s interval read after CPU 1 went offline again, its last calls" % kind)
        want_node("e2.i" + n, 0, 0,
                  "%s interval after it came back: empty, nothing counted twice" % kind)
        want_node("end." + n, A[x + "0"] + B[x + "0"], A[x + "1"] + C[x + "1"] + E[x + "1"],
                  "%s node at the end: every call once" % kind)
    want_keys("off.k", A["s0"], A["s1"], "keyed pair, KEY-k read with CPU 1 offline")
    want_keys("end.k", A["s0"] + B["s0"], A["s1"] + C["s1"] + E["s1"],
              "keyed pair, KEY-k at the end: every section once")
    want_node("end.g", 0, C["f1"] + E["f1"],
              "function trace created while CPU 1 was offline records on it once back")
    want_keys("end.h", 0, C["s1"] + E["s1"],
              "keyed pair created while CPU 1 was offline, KEY-h")
    during = re.findall(r"@@DURING (\d+)", log)
    loops = int(during[0]) if during else 0
    r.check(loops > 0, "hotplug: the pinned loop ran while CPU 1 went offline and online",
            str(during))
    for n in ("f", "s"):
        kind = {"f": "function trace", "s": "kprobe pair"}[n]
        want = sum(x.get(n + c, 0) for x in (A, B, C, E) for c in "01") + 10 * loops
        samples, missed, per, tot = node(rd.get("dur." + n, ([], 0)))
        r.check(samples is not None and missed is not None and samples + missed == want and
                samples == tot == sum(per.values()),
                "hotplug: %s: after calls made across 3 offline/online cycles, samples + "
                "missed = the %d calls made" % (kind, want),
                "samples %s missed %s CPU lines %s" % (samples, missed, per))
    rows, other = key_rows(rd.get("dur.k", ([], 0)))
    want = sum(x.get("s" + c, 0) for x in (A, B, C, E) for c in "01") + 10 * loops
    r.check(sum(rows.values()) == want and other == 0,
            "hotplug: keyed pair: its rows add up to the %d sections made, other 0" % want,
            "%s other %s" % (rows, other))
    want_node("r.f", 0, 0, "reset while CPU 1 is offline clears its counters")
    want_node("r2.f", 0, R["f1"], "after that reset, CPU 1 back: its new calls only")
    r.check("@@RMMOD ok" in log, "hotplug: kstats unloads")
    ncpu = re.findall(r"@@NCPU (\d+)", log)
    r.check(ncpu == ["2"], "hotplug: the guest has 2 CPUs", str(ncpu))
    return r


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
        return 0
    return report("hotplug", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
