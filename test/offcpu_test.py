#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Off-CPU traces ("trace NAME offcpu") in a stock-kernel QEMU guest: waits
of known cause and length keyed by the blocked and the waking stacks, the
split at the wakeup (BLOCKED-NAME, RUNQ-NAME), the state, tasks, min and
max filters, sleep(1)'s nanosleep, the off-wake folded stacks of
`kstats flame`, refusals, and fork/exit churn while tracing.

  offcpu_test.py gen GUEST_SCRIPT SERIES [ARCH]   write the busybox script
  offcpu_test.py check LOGFILE                     assert on the console log

kstats_test_target's offcpu_* commands make each wait: the writer blocks
in kst_wait_*() and a waker, once it has seen it asleep off CPU for the
command's US, wakes it from kst_wake_*(). Counts are exact; each wait is
at least US and at most the longest the caller measured around them.
"""
import re
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lockdown"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import kstats  # noqa: E402
import lockdown  # noqa: E402
from basic_test import Results, parse, report, summary
from keys_test import check_folded, check_no_nodes_left, flames, func, key_nodes
from trace_test import ctls, listings, measured, nodes

# (command, US, N, the waiter's function, the waker's function)
WAITS = [("offcpu_thread", 5000, 20, "kst_wait_thread", "kst_wake_thread"),
         ("offcpu_timer", 2000, 20, "kst_wait_timer", "kst_wake_timer")]
SLEEPS = 20
SLEEP_NS = 50 * 1000 * 1000
# nanosleep arms its timer before the task switches out, and on a loaded
# host the guest may lose its CPU for ms between the two (seen: 44.39 ms
# off CPU for 50), so no wait has a lower bound from the nominal 50 ms.
# What holds: the kernel ends no call before its timer (each call the
# task timed lasts at least 50 ms) and a wait lies inside its call (no
# wait is longer than the longest call the task timed).
# The wakeup chain of kstats_test_target's chain_sleep and chain_busy:
# A (kstask kstA) waits in kst_chain_wait_a, B (kst_chain_b) wakes it
# from kst_chain_wake_a, C (kst_chain_c) woke B from kst_chain_wake_b.
CHAIN_US = 2000
CHAIN_N = 10
LONG_NAME = "o" * 56
BAD_LINES = [
    ("trace e1 offcpu start kst_target_delay", "keyword start: an off-CPU trace has its own probes"),
    ("trace e2 offcpu state X", "state X: must be any, all, S or D"),
    ("trace e3 offcpu tasks some", "tasks some: must be all, user or kernel"),
    ("trace e4 offcpu max 0", "max 0: must be a number of ns, 1 or more"),
    ("trace e5 offcpu min abc", "min abc: must be a number of ns"),
    ("trace e6 offcpu key end-kstack", "key end-kstack: an off-CPU wait ends in the scheduler"),
    ("trace e7 start kst_target_delay key waker-pid", "key waker-pid: only an off-CPU wait has a waker"),
    ("trace e8 start kst_target_delay state D", "keyword state is for off-CPU waits"),
    ("trace e9 offcpu key waker-comm:4", "only kstack, end-kstack, ustack, waker-kstack and waker-ustack take a depth"),
    ("trace %s offcpu" % LONG_NAME, "offcpu NAME oooooooooooooooo... is longer than 55 bytes"),
    ("trace e10 offcpu min 10 max 5", "min 10 is above max 5"),
    ("trace e11 comm sleep offcpu", "offcpu comes right after NAME"),
    ("trace e12 offcpu offcpu", "offcpu given twice"),
    ("trace BLOCKED-e13 offcpu", "names starting with BLOCKED- or RUNQ- are off-CPU traces' parts"),
    ("trace RUNQ-e14 start kst_target_delay", "names starting with BLOCKED- or RUNQ- are off-CPU"),
    ("trace e15 start kst_target_delay key waker-chain", "key waker-chain: only an off-CPU wait has a waker"),
    ("trace e16 offcpu key waker-chain:5", "key waker-chain:5: levels must be 1..4"),
    ("trace e17 offcpu key waker-chain:0", "key waker-chain:0: levels must be 1..4"),
    ("trace e18 offcpu key kstack,waker-chain,waker-comm",
     "key waker-comm: not beside waker-chain (its levels carry kernel stacks"),
    ("trace e19 offcpu key waker-kstack,waker-chain:3",
     "key waker-kstack: not beside waker-chain (its levels carry kernel stacks"),
    ("trace e20 offcpu key waker-chain,waker-pid", "key waker-pid: not beside waker-chain (its levels"),
    ("trace e21 offcpu key waker-ustack,waker-chain", "key waker-ustack: not beside waker-chain (its levels"),
]


def gen(path, series, arch="x86_64"):
    out = ["""set -u
D=/sys/kernel/debug/kstats
C=$D/_control
T=/sys/kernel/debug/kstats_test_target
ctl() { (echo "$1" > $C) 2>/tmp/err; echo "@@CTL rc=$? $(sed 's/.*: //' /tmp/err) :: $1"; }
meas() { echo "@@MEAS $1 $(cat $T)"; }
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
listing() { echo "@@LIST-BEGIN $1"; cat $C; echo "@@LIST-END $1"; }
flame() { [ -x /modules/kstats ] || return 0; echo "@@FLAME-BEGIN $1 ${2:-}"; /modules/kstats flame "$@"; echo "@@FLAME-END $1 rc=$?"; }
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
step pair
ctl "trace op offcpu comm kstW key kstack,waker-kstack slowest 4"
echo clear > $T
"""]
    out.append("/modules/kstask kstW write $T %s" %
               " ".join("'%s %d %d'" % w[:3] for w in WAITS))
    out.append("""meas pair
for n in op BLOCKED-op RUNQ-op KEY-op; do show $n; done
flame op
flame op --count
flame BLOCKED-op
listing pair
ctl "remove op"
step stop
ctl "trace st offcpu comm kstP"
echo stop > $D/st
/modules/kstask kstP write $T 'offcpu_thread 1000 3'
for n in st BLOCKED-st RUNQ-st; do show $n; done
echo start > $D/st
/modules/kstask kstP write $T 'offcpu_thread 1000 5'
for n in st BLOCKED-st RUNQ-st; do show $n; done
# A part's own stop holds until NAME's next start.
echo stop > $D/BLOCKED-st
echo stop > $D/st
echo start > $D/st
for n in st BLOCKED-st RUNQ-st; do show $n; done
ctl "remove st"
step sleep
ctl "trace os offcpu comm sleep key kstack"
/modules/kstask sleep sleep %d 50000
show KEY-os
show os
ctl "remove os"
step state
ctl "trace sd offcpu state D comm kstD key kstack"
ctl "trace ss offcpu state S comm kstD key kstack"
ctl "trace sa offcpu state all comm kstD key kstack"
/modules/kstask kstD write $T 'offcpu_thread 1000 10' 'offcpu_sleep 1000 10' 'offcpu_idle 1000 10'
show KEY-sd
show KEY-ss
show KEY-sa
listing state
ctl "remove sd"
ctl "remove ss"
ctl "remove sa"
step split
ctl "trace hs offcpu comm kstH"
taskset 2 /modules/kstask kstH write $T 'offcpu_thread 10000 20' &
sleep 0.05
/modules/kstask kstS spin 50 1
wait
for n in hs BLOCKED-hs RUNQ-hs; do show $n; done
ctl "remove hs"
step tasks
ctl "trace tu offcpu tasks user key comm keys 1024"
ctl "trace tk offcpu tasks kernel key comm keys 1024"
/modules/kstask kstU write $T 'offcpu_thread 1000 5'
show KEY-tu
show KEY-tk
ctl "remove tu"
ctl "remove tk"
step bounds
ctl "trace mm offcpu comm kstM min 3000000 max 1000000000"
ctl "trace mx offcpu comm kstM max 1500000 key kstack"
/modules/kstask kstM write $T 'offcpu_thread 1000 5' 'offcpu_thread 6000 5'
show mm
show mx
show KEY-mx
listing bounds
ctl "remove mm"
ctl "remove mx"
step chain
# B and C made asleep before the traces: C's first wakeup starts no record.
echo chain_prep > $T
ctl "trace c2 offcpu comm kstA key kstack,waker-chain:2"
ctl "trace c3 offcpu comm kstA key kstack,waker-chain:3"
ctl "trace c1 offcpu comm kstA key kstack,waker-chain:1"
/modules/kstask kstA write $T 'chain_sleep %d %d'
echo "@@CHAIN sleep $(cat $T)"
show KEY-c2
show KEY-c3
show KEY-c1
flame c2
listing chain
ctl "remove c2"
ctl "remove c3"
ctl "remove c1"
echo chain_prep > $T
ctl "trace cb offcpu comm kstA key kstack,waker-chain:3"
/modules/kstask kstA write $T 'chain_busy %d %d'
echo "@@CHAIN busy $(cat $T)"
show KEY-cb
listing chainbusy
ctl "remove cb"
# C a user task (kstask kstC's write), asleep before the trace, then busy.
echo chain_prep_b > $T
/modules/kstask kstC write $T chain_c &
echo chain_wait_c > $T || echo "@@CHAIN no C"
ctl "trace cu offcpu comm kstA key kstack,waker-chain:3"
/modules/kstask kstA write $T 'chain_busy %d %d'
wait
echo "@@CHAIN user $(cat $T)"
show KEY-cu
ctl "remove cu"
step errors
""" % (SLEEPS, CHAIN_US, CHAIN_N, CHAIN_US, CHAIN_N, CHAIN_US, CHAIN_N))
    for line, _ in BAD_LINES:
        out.append('ctl "%s"' % line)
    out.append("""echo "@@LS $(ls $D | tr '\\n' ' ')"
step churn
ctl "trace ch offcpu key kstack:8,waker-kstack:8,waker-comm,waker-pid,comm,pid keys 64 slowest 16"
ctl "trace chc offcpu key kstack:8,waker-chain:4 keys 64 slowest 16"
i=0
while [ $i -lt 100 ]; do /bin/true; sh -c 'exit 0' & i=$((i + 1)); done
wait
/modules/kstask kstC sleep 50 100 &
i=0
while [ $i -lt 10 ]; do cat $D/KEY-ch $D/KEY-chc > /dev/null; cat $D/ch > /dev/null; i=$((i + 1)); done
wait
listing churn
ctl "remove ch"
ctl "remove chc"
echo "@@LS $(ls $D | tr '\\n' ' ')"
step done
""")
    with open(path, "w") as f:
        f.write(lockdown.locked_down("\n".join(out) + "\n"))


def with_frame(rows, part, name):
    return [row for row in rows if any(func(f) == name for f in row["parts"].get(part, []))]


def node_summary(step_lines, name):
    got = nodes(step_lines).get(name)
    return summary(got[0][1])[0] if got else {}


def check_split(r, what, st, name):
    """NAME, BLOCKED-NAME and RUNQ-NAME hold the same samples, and each
    wait's two parts add up to it: the means (rounded down) agree within
    their rounding, and the bounds nest."""
    w, b, q = (node_summary(st, p + name) for p in ("", "BLOCKED-", "RUNQ-"))
    r.check(w and b and q, "%s: NAME, BLOCKED-NAME and RUNQ-NAME read" % what)
    if not (w and b and q):
        return w, b, q
    n = int(w["samples"])
    r.check(n > 0 and int(b["samples"]) == n and int(q["samples"]) == n,
            "%s: the three nodes count the same samples" % what,
            "%s %s %s" % (w["samples"], b["samples"], q["samples"]))
    # The means are exact but for samples in slots over 2^20 wide, whose
    # offsets keep their top 20 bits (README, "mean"): max >> 20 per sample.
    slack = 2 + (int(w["max"]) >> 20)
    r.check(abs(int(w["mean"]) - int(b["mean"]) - int(q["mean"])) <= slack,
            "%s: the parts' means add up to the whole's" % what,
            "%s vs %s + %s" % (w["mean"], b["mean"], q["mean"]))
    r.check(int(b["min"]) + int(q["min"]) <= int(w["min"]) and
            int(w["max"]) <= int(b["max"]) + int(q["max"]),
            "%s: min and max of the whole lie within the parts'" % what,
            str((w["min"], w["max"], b["min"], b["max"], q["min"], q["max"])))
    r.check(int(w["missed"]) == 0, "%s: nothing missed" % what, w["missed"])
    return w, b, q


def check_pair(r, st, flame):
    keys = key_nodes(st).get("op", [{}])[0]
    rows = keys.get("rows", [])
    meas = measured(st).get("pair")
    r.check(meas and meas[0] == sum(w[2] for w in WAITS),
            "pair: the target made every wait", str(meas))
    for cmd, us, n, waiter, waker in WAITS:
        # A hardirq waker's stack goes on into what it interrupted (idle,
        # a task): one row per interrupted path.
        got = [row for row in with_frame(rows, "kstack", waiter)
               if any(func(f) == waker for f in row["parts"].get("waker-kstack", []))]
        r.check(got, "pair %s: rows with %s in kstack and %s in waker-kstack"
                % (cmd, waiter, waker), "%d rows" % len(got))
        if not got:
            continue
        r.check(sum(x["count"] for x in got) == n, "pair %s: exactly %d waits" % (cmd, n),
                str([x["count"] for x in got]))
        r.check(min(x["min"] for x in got) >= us * 1000,
                "pair %s: each wait at least %d us" % (cmd, us),
                str([x["min"] for x in got]))
        r.check(meas and max(x["max"] for x in got) <= meas[2],
                "pair %s: none longer than the caller measured" % cmd,
                "%s > %s" % ([x["max"] for x in got], meas and meas[2]))
        r.check(all(func(x["parts"]["kstack"][0]) == "__schedule" for x in got),
                "pair %s: the blocked stack starts at __schedule" % cmd,
                str(got[0]["parts"]["kstack"][:2]))
        r.check(all(func(x["parts"]["waker-kstack"][0]) == "try_to_wake_up" for x in got),
                "pair %s: the waker's stack starts at try_to_wake_up" % cmd,
                str(got[0]["parts"]["waker-kstack"][:2]))
        # Another waiter's row must not hold this waker.
        strays = [x for x in with_frame(rows, "waker-kstack", waker)
                  if all(x is not y for y in got)]
        r.check(not strays, "pair %s: %s wakes no other row" % (cmd, waker), str(len(strays)))
    w, _, _ = check_split(r, "pair", st, "op")
    if w and keys:
        r.check(sum(x["count"] for x in rows) + keys["other"]["count"] == int(w["samples"]),
                "pair: rows and other add up to the trace's samples",
                "%d + %d vs %s" % (sum(x["count"] for x in rows), keys["other"]["count"],
                                   w["samples"]))
    slow = keys.get("slowest", [])
    r.check(len(slow) == 4 and all("kstack" in s["parts"] and "waker-kstack" in s["parts"]
                                   for s in slow),
            "pair: 4 slowest samples, each with both stacks", str(len(slow)))
    ls = listings(st).get("pair", [])
    r.check(any(l.startswith("op ") and l.endswith(
        " comm kstW kind offcpu state any tasks all min 0 max -") for l in ls),
        "pair: the listing shows the filter and the off-CPU words", str(ls))
    if not flame:
        return
    fl = flames(st)
    lines, rc = fl.get(("BLOCKED-op", ""), ([], "missing"))
    r.check(rc == "66" and any("a part of trace op" in l and "kstats flame op" in l
                               for l in lines),
            "flame BLOCKED-op: no KEY-BLOCKED-op (66), and it names kstats flame op", str((rc, lines)))
    for flag, field in (("", "total"), ("--count", "count")):
        lines, rc = fl.get(("op", flag), ([], "missing"))
        vals = check_folded(r, "pair flame %s" % (flag or "total"), lines, rc, keys, field)
        if flag:
            continue
        for cmd, _, n, waiter, waker in WAITS:
            got = [f for f, _ in vals if "--" in f and waiter in
                   [func(x) for x in f[:f.index("--")]] and waker in
                   [func(x) for x in f[f.index("--"):]]]
            r.check(got and all(func(f[f.index("--") - 1]) == "__schedule" and
                                func(f[f.index("--") + 1]) == "try_to_wake_up" for f in got),
                    "pair flame %s: blocked stack root first, '--', then the waker's leaf "
                    "first (offwaketime -f)" % cmd, str(got[:1]))


def chain_meas(st, what):
    """The target's sums for chain_sleep or chain_busy: (n, lower_b,
    upper_b, upper_c), or None."""
    for l in st:
        m = re.match(r"@@CHAIN %s chain (\d+) lower_b (\d+) upper_b (\d+) upper_c (\d+)"
                     % what, l)
        if m:
            return tuple(int(x) for x in m.groups())
    return None


def check_chain_levels(r, what, row, meas, busy, c_comm="kst_chain_c"):
    """Levels 1 and 2 of a row of A's waits: B woke A from kst_chain_wake_a,
    C woke B from kst_chain_wake_b; B's blocked time lies between what C
    measured from seeing B asleep to its wakeup and what B measured around
    its wait; C's, within what C measured around its last sleep (0 when
    busy: no record)."""
    lv = row["parts"].get("waker-chain", [])
    r.check(len(lv) >= 2 and [x.get("level") for x in lv[:2]] == [1, 2],
            "%s: levels 1 and 2 shown" % what, str(lv)[:300])
    if len(lv) < 2:
        return lv
    b, c = lv[0], lv[1]
    fb, fc = [func(f) for f in b["frames"]], [func(f) for f in c["frames"]]
    r.check(b.get("comm") == "kst_chain_b" and "kst_chain_wake_a" in fb and
            fb[:1] == ["try_to_wake_up"],
            "%s: level 1 is B, kst_chain_b, its stack from try_to_wake_up through "
            "kst_chain_wake_a" % what, str(b)[:300])
    r.check(c.get("comm") == c_comm and "kst_chain_wake_b" in fc and
            fc[:1] == ["try_to_wake_up"],
            "%s: level 2 is C, %s, its stack through kst_chain_wake_b" % (what, c_comm),
            str(c)[:300])
    r.check(b.get("pid", 0) > 0 and c.get("pid", 0) > 0 and b.get("pid") != c.get("pid"),
            "%s: levels 1 and 2 carry their tasks' pids" % what, str((b.get("pid"), c.get("pid"))))
    if not meas:
        r.check(False, "%s: the target's measures read" % what)
        return lv
    n, lower_b, upper_b, upper_c = meas
    count = row["count"]
    mb = b.get("blocked_ns")
    # KEY-NAME prints the mean rounded down: bounds on the sum carry over.
    r.check(mb is not None and count == n and lower_b // n <= mb <= upper_b // n,
            "%s: level 1's mean blocked time within [C's measure, B's own] / %d"
            % (what, n), "%s <= %s <= %s" % (lower_b // n, mb, upper_b // n))
    mc = c.get("blocked_ns")
    if busy:
        r.check(mc is None, "%s: level 2, never blocked, shows no blocked time (not known)"
                % what, str(mc))
    else:
        r.check(mc is not None and 0 < mc <= upper_c // n,
                "%s: level 2's mean blocked time within C's own measure of its sleep"
                % what, "0 < %s <= %s" % (mc, upper_c // n))
    return lv


def key_text(st, name):
    """KEY-@name's text as the step printed it, the console's own lines
    (a kernel message) left out."""
    out, on = [], False
    for l in st:
        if l == "@@BEGIN KEY-%s" % name:
            on = True
        elif on and l.startswith("@@END "):
            break
        elif on and not re.match(r"\[ *\d+\.\d+\]", l):
            out.append(l)
    return "\n".join(out) + "\n"


def check_python_levels(r, st, kn, name):
    """import kstats's parse_keys() reads KEY-@name's rows' chains as this
    test's parser does: each level's comm, pid, blocked time or marker."""
    def ours(lv):
        return [x.get("marker") or (x.get("comm"), x.get("pid"), x.get("blocked_ns"))
                for x in lv]
    try:
        got = [ours(x.get("waker-chain", [])) for x in kstats.parse_keys(key_text(st, name))]
    except kstats.ParseError as e:
        got = repr(e)
    want = [ours(x["parts"].get("waker-chain", [])) for x in kn.get(name, [{}])[0].get("rows", [])]
    r.check(want and got == want,
            "chain %s: import kstats reads the rows' levels as KEY-NAME prints them" % name,
            "%s != %s" % (str(got)[:300], str(want)[:300]))


def check_chain(r, st, flame):
    kn = key_nodes(st)
    check_python_levels(r, st, kn, "c3")
    meas = chain_meas(st, "sleep")
    r.check(meas and meas[0] == CHAIN_N and meas[1] >= CHAIN_N * CHAIN_US * 1000,
            "chain: the target ran %d rounds, each delay >= %d us" % (CHAIN_N, CHAIN_US),
            str(meas))
    c2 = kn.get("c2", [{}])[0]
    rows = with_frame(c2.get("rows", []), "kstack", "kst_chain_wait_a")
    r.check(len(rows) == 1 and rows[0]["count"] == CHAIN_N,
            "chain c2: one row of kst_chain_wait_a, exactly %d waits" % CHAIN_N,
            str([x["count"] for x in rows]))
    if rows:
        lv = check_chain_levels(r, "chain c2", rows[0], meas, False)
        r.check(len(lv) == 2, "chain c2: waker-chain:2 shows 2 levels", str(len(lv)))
    # One level: B alone, with its own blocked time as at level 1 of c2.
    rows = with_frame(kn.get("c1", [{}])[0].get("rows", []), "kstack", "kst_chain_wait_a")
    r.check(len(rows) == 1 and rows[0]["count"] == CHAIN_N,
            "chain c1: one row of kst_chain_wait_a, exactly %d waits" % CHAIN_N,
            str([x["count"] for x in rows]))
    if rows and meas:
        lv = rows[0]["parts"].get("waker-chain", [])
        n, lower_b, upper_b = meas[:3]
        mb = lv[0].get("blocked_ns") if lv else None
        r.check(len(lv) == 1 and lv[0].get("comm") == "kst_chain_b" and mb is not None and
                lower_b // n <= mb <= upper_b // n,
                "chain c1: waker-chain:1 shows B alone, its mean blocked time within "
                "[C's measure, B's own] / %d" % n, str(lv)[:300])
    # Three levels: C was woken by the hrtimer of its usleep_range(), in
    # hardirq; its stack goes on into what it interrupted (one row each).
    rows = with_frame(kn.get("c3", [{}])[0].get("rows", []), "kstack", "kst_chain_wait_a")
    r.check(rows and sum(x["count"] for x in rows) == CHAIN_N,
            "chain c3: rows of kst_chain_wait_a, %d waits in all" % CHAIN_N,
            str([x["count"] for x in rows]))
    for i, row in enumerate(rows):
        lv = row["parts"].get("waker-chain", [])
        fb = [func(f) for f in lv[0]["frames"]] if lv else []
        fc = [func(f) for f in lv[1]["frames"]] if len(lv) > 1 else []
        r.check(len(lv) == 3 and "kst_chain_wake_a" in fb and "kst_chain_wake_b" in fc and
                lv[2].get("marker") == "[interrupt]" and
                "hrtimer_wakeup" in [func(f) for f in lv[2]["frames"]],
                "chain c3 row %d: B, C, then [interrupt] with its stack through "
                "hrtimer_wakeup" % i, str(lv)[:400])
    ls = listings(st).get("chain", [])
    r.check(any(l.startswith("c2 ") and " key kstack:16,waker-chain:2 " in l and
                " missed 0 " in l and re.search(r" records_lost 0( |$)", l) for l in ls),
            "chain: the listing shows key waker-chain:2, nothing missed, no record lost",
            str(ls))
    # A busy C, never blocked in the trace, has no record: the level after
    # it is [kernel thread] for the kthread kst_chain_c, [running] for a
    # user task's write (kstask kstC).
    for name, what, comm, marker in (("cb", "busy", "kst_chain_c", "[kernel thread]"),
                                     ("cu", "user", "kstC", "[running]")):
        meas = chain_meas(st, what)
        rows = with_frame(kn.get(name, [{}])[0].get("rows", []), "kstack", "kst_chain_wait_a")
        r.check(len(rows) == 1 and rows[0]["count"] == CHAIN_N,
                "chain %s: one row of kst_chain_wait_a, exactly %d waits" % (what, CHAIN_N),
                str([x["count"] for x in rows]))
        if rows:
            lv = check_chain_levels(r, "chain " + what, rows[0], meas, True, comm)
            r.check(len(lv) == 3 and lv[2].get("marker") == marker and not lv[2]["frames"],
                    "chain %s: level 3 is %s, no stack" % (what, marker), str(lv[2:])[:200])
    if not flame:
        return
    lines, rc = flames(st).get(("c2", ""), ([], "missing"))
    vals = check_folded(r, "chain flame", lines, rc, c2, "total")
    got = [f for f, _ in vals if "kst_chain_wait_a" in [func(x) for x in f]]
    want = None
    if got:
        f = got[0]
        seps = [i for i, x in enumerate(f) if x == "--"]
        # As offwaketime -f folds a waker: its stack leaf first, then its comm.
        want = len(seps) == 2 and func(f[seps[0] - 1]) == "__schedule" and \
            func(f[seps[0] + 1]) == "try_to_wake_up" and f[seps[1] - 1] == "kst_chain_b" and \
            func(f[seps[1] + 1]) == "try_to_wake_up" and f[-1] == "kst_chain_c" and \
            "kst_chain_wake_a" in [func(x) for x in f[seps[0]:seps[1]]] and \
            "kst_chain_wake_b" in [func(x) for x in f[seps[1]:]]
    r.check(len(got) == 1 and want,
            "chain flame: the blocked stack, then per level '--', its stack leaf "
            "first, its comm", str(got)[:400])


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lockdown.check(r, log)
    lines, steps = parse(log)
    m = re.search(r"KSTATS-GUEST-START (\S+)", log)
    flame = not (m and m.group(1).endswith("-arm64"))
    for s in ("pair", "stop", "sleep", "state", "split", "tasks", "bounds", "chain", "errors",
              "churn", "done"):
        r.check(s in steps, "step %s ran" % s)
    if "done" not in steps:
        return r
    check_pair(r, steps["pair"], flame)
    check_chain(r, steps["chain"], flame)

    st = steps["stop"]
    got = nodes(st)
    first = [summary(got.get(n, [[[], []]])[0][1])[0] for n in ("st", "BLOCKED-st", "RUNQ-st")]
    again = [summary(got.get(n, [[], [[], []]])[-1][1])[0] for n in ("st", "BLOCKED-st", "RUNQ-st")]
    r.check(all(d.get("samples") == "0" for d in first),
            "stop: NAME stopped, its parts record nothing either", str(first))
    r.check(all(d.get("samples") == again[0].get("samples") for d in again) and
            int(again[0].get("samples", 0)) >= 5,
            "start: NAME and its parts record again, the same samples", str(again))
    shown = [[summary(x[1])[0].get("state") for x in got.get(n, [])]
             for n in ("st", "BLOCKED-st", "RUNQ-st")]
    r.check(all(x == ["stopped", "active", "active"] for x in shown),
            "stop, start: the parts' state lines follow NAME's, and NAME's start "
            "restarts a part stopped on its own", str(shown))

    st = steps["sleep"]
    rows = with_frame(key_nodes(st).get("os", [{}])[0].get("rows", []), "kstack",
                      "do_nanosleep")
    r.check(sum(x["count"] for x in rows) == SLEEPS,
            "sleep: %d waits through do_nanosleep" % SLEEPS,
            str([x["count"] for x in rows]))
    task = [l.split() for l in st if l.startswith("@@TASK sleep ")]
    slept = task and (int(task[0][11]), int(task[0][13]))
    r.check(slept and slept[0] >= SLEEP_NS,
            "sleep: each call lasted 50 ms or more, as the task timed it",
            str(task))
    r.check(rows and slept and min(x["min"] for x in rows) > 0 and
            max(x["max"] for x in rows) <= slept[1],
            "sleep: each wait lies inside its call: none longer than the longest call",
            "%s, calls %s" % ([(x["min"], x["max"]) for x in rows], slept))

    st = steps["state"]
    kn = key_nodes(st)
    # D is ps's: TASK_IDLE (kst_wait_idle) is not in it; all takes it in.
    for name, want, others in (("sd", "kst_wait_thread", ("kst_wait_sleep", "kst_wait_idle")),
                               ("ss", "kst_wait_sleep", ("kst_wait_thread", "kst_wait_idle"))):
        rows = kn.get(name, [{}])[0].get("rows", [])
        got = with_frame(rows, "kstack", want)
        r.check(sum(x["count"] for x in got) == 10, "state %s: the 10 waits in %s"
                % (name, want), str([x["count"] for x in got]))
        for other in others:
            r.check(not with_frame(rows, "kstack", other),
                    "state %s: none in %s" % (name, other))
    rows = kn.get("sa", [{}])[0].get("rows", [])
    got = [sum(x["count"] for x in with_frame(rows, "kstack", f))
           for f in ("kst_wait_thread", "kst_wait_sleep", "kst_wait_idle")]
    r.check(min(got) >= 10, "state all: the 10 waits in each of D, S and TASK_IDLE", str(got))
    ls = listings(st).get("state", [])
    r.check(all(any(" kind offcpu state %s tasks all " % w in l for l in ls)
                for w in ("D", "S", "all")),
            "state: the listing shows each trace's state", str(ls))

    w, b, q = check_split(r, "split", steps["split"], "hs")
    if q:
        r.check(int(w["samples"]) >= 20, "split: the 20 waits are samples", w["samples"])
        r.check(int(q["min"]) > 0, "split: every wait has run-queue time", q["min"])
        r.check(int(q["max"]) >= 100000,
                "split: a wait woken during the pinned SCHED_FIFO hog waited >= 100 us "
                "on the run queue", q["max"])
        r.check(int(b["max"]) >= 10000000, "split: a wait was blocked >= 10 ms", b["max"])

    kn = key_nodes(steps["tasks"])
    comms = {n: [x["parts"].get("comm") for x in kn.get(n, [{}])[0].get("rows", [])]
             for n in ("tu", "tk")}
    r.check("kstU" in comms["tu"] and "kst_waker" not in comms["tu"],
            "tasks user: the user task's waits, not the kthread's", str(comms["tu"][:8]))
    r.check("kst_waker" in comms["tk"] and "kstU" not in comms["tk"],
            "tasks kernel: the kthread's waits, not the user task's", str(comms["tk"][:8]))

    st = steps["bounds"]
    mm, mx = node_summary(st, "mm"), node_summary(st, "mx")
    r.check(mm and int(mm["samples"]) >= 5 and int(mm["min"]) >= 3000000 and
            int(mm["max"]) <= 1000000000,
            "bounds: min 3 ms max 1 s: the 6 ms waits, nothing outside the bounds",
            str(mm))
    r.check(mx and (int(mx["samples"]) == 0 or int(mx["max"]) <= 1500000),
            "bounds: max 1.5 ms: nothing longer", str(mx))
    r.check(not with_frame(key_nodes(st).get("mx", [{}])[0].get("rows", []), "kstack",
                           "kst_wait_thread") or int(mx["max"]) <= 1500000,
            "bounds: max 1.5 ms leaves out the target's waits")
    ls = listings(st).get("bounds", [])
    r.check(any(l.startswith("mm ") and l.endswith(" min 3000000 max 1000000000") for l in ls),
            "bounds: the listing shows min and max", str(ls))

    st = steps["errors"]
    got = {cmd: (rc, err) for cmd, rc, err in ctls(st)}
    for line, why in BAD_LINES:
        rc, _ = got.get(line, ("missing", ""))
        r.check(rc != "0", "refused: %s" % line, rc)
        r.check(any(why in l for l in lines if "kstats:" in l), "dmesg reason: %s" % why)
    check_no_nodes_left(r, "errors: only _control (and _interval) remain", st)

    st = steps["churn"]
    ls = listings(st).get("churn", [])
    r.check(any(l.startswith("ch ") and " missed 0 " in l for l in ls),
            "churn: fork and exit while tracing: nothing missed", str(ls))
    r.check(any(l.startswith("chc ") and " missed 0 " in l for l in ls),
            "churn: with waker-chain:4, a record per sleeping task: nothing missed",
            str(ls))
    check_no_nodes_left(r, "churn: no node left behind", st)
    return r


def main():
    if sys.argv[1] == "gen":
        gen(*sys.argv[2:5])
        return 0
    return report("offcpu", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
