#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Allocation failures, on the debug test kernel (failslab and
fail_page_alloc, KASAN, lockdep, kmemleak).

  faults_test.py gen GUEST_SCRIPT
  faults_test.py check LOGFILE

The kernel's fail-nth (/proc/thread-self/fail-nth, driven by
test/progs/failnth) fails the Nth allocation of one system call of the
task, every allocation counting: sleeping ones (ignore-gfp-wait N), single
pages (min-order 0) and vmalloc's highmem pages (ignore-gfp-highmem N),
in kstats and in the kernel functions it calls (debugfs, kprobes, fprobe,
ftrace, vmalloc), but for kmemleak's own record of each allocation
(rejected by the stack filter: it is the debug kernel's, and falls back
to a pool when it fails).
For N = 1, 2, ... until the call makes fewer than N allocations, each of
these calls is made with its Nth allocation failing:
- the _control write of a function trace (default method), of a kprobe
  pair and of a keyed trace: a failure gives ENOMEM and leaves the
  listing, the debugfs tree, the kprobes list and enabled_functions as
  they were; a success (the last N, or an N whose failure the kernel
  absorbed, as kvmalloc falls back to vmalloc) records exactly the calls
  made, and is removed;
- the read of an interval file: a failure gives ENOMEM, and no sample is
  lost or counted twice: the successful reads add up to the calls made;
- the open of KEY-NAME, where its reading allocates: ENOMEM, or the
  exact rows.
A keyed trace's first samples allocate nothing in kstats: with the
fault-injection stack filter on kstats' code, fail-nth 1 is never used by
the calls' write. At the end kmemleak finds nothing and kstats unloads,
leaving no kprobe or ftrace site. The console is clean but for the
kernel's own reports of the vmalloc and per-CPU failures injected.
"""
import os
import re
import subprocess
import sys
import tempfile

from basic_test import Results, deinterleave, report

D = "/sys/kernel/debug/kstats"
ENOMEM = 12
# (tag, _control line, name, the calls after a success (to the test
# target; "raise N": failnth's own signals), its method)
CREATES = [
    ("function", "trace fa start kst_target_delay", "fa", "delay 0 %d", "fprobe"),
    ("pair", "trace fp start kst_section_begin end kst_section_end", "fp", "section 0 %d",
     "kprobe"),
    ("keyed", "trace fk start kst_target_delay method kretprobe key kstack:4,comm slowest 2",
     "fk", "delay 0 %d", "kretprobe"),
    # A pattern: kallsyms read, each candidate's ftrace site asked and a
    # disabled kprobe on it; where an ENOMEM there once freed names twice.
    ("pattern", "trace fw start kst_target_dela*", "fw", "delay 0 %d", "fprobe"),
    # The kinds on tracepoints, and matched pairs: their own tables and
    # tracepoint registrations fail too.
    ("tracepoint-pair", "trace ft start signal:signal_generate end signal:signal_deliver "
     "comm failnth", "ft", "raise %d", "tracepoint"),
    ("matched", "trace fm start kst_obj_begin end kst_obj_end match arg0", "fm",
     "bench_obj %d", "kprobe"),
    ("runq", "trace fr start sched:sched_wakeup end sched:sched_switch comm failnth", "fr",
     "offcpu_thread 1000 %d", "tracepoint"),
    ("offcpu", "trace fo offcpu state D comm failnth key kstack", "fo",
     "offcpu_thread 1000 %d", "tracepoint"),
    # waker-chain: its record table, level and chain tables and sums.
    ("chain", "trace fc offcpu state D comm failnth key kstack,waker-chain:2", "fc",
     "offcpu_thread 1000 %d", "tracepoint"),
]
CALLS = 5          # after each successful creation
IV_ROUND = 3       # calls before each interval read
KEY_CALLS = 6      # calls behind KEY-kk
FIRST_CALLS = 4    # the keyed trace's first samples


def gen(path):
    s = ["""set -u
D=%s
C=$D/_control
T=/sys/kernel/debug/kstats_test_target
F=/sys/kernel/debug
FN=/modules/failnth
step() { echo "@@STEP $1 $(cut -d' ' -f1 /proc/uptime)"; }
fig() { awk -v k=$2 '$2 == k {print $3}' $D/$1; }
mount -t tracefs nodev /sys/kernel/tracing || echo "@@FAIL mount tracefs"
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
# Every allocation of the armed call can fail, quietly: fail-nth takes
# precedence over probability, interval and times, not over these.
for a in failslab fail_page_alloc; do
	echo N > $F/$a/ignore-gfp-wait || echo "@@FAIL $a/ignore-gfp-wait"
	echo 0 > $F/$a/verbose || echo "@@FAIL $a/verbose"
done
echo 0 > $F/fail_page_alloc/min-order || echo "@@FAIL min-order"
echo N > $F/fail_page_alloc/ignore-gfp-highmem || echo "@@FAIL ignore-gfp-highmem"
# kmemleak's own object for each allocation (which falls back to a pool
# when it fails) is the debug kernel's, not the call's: frames from
# __alloc_object to the end of __create_object are never counted.
# (vmlinux's symbols are listed in address order.)
syms=$(grep -E ' t (__alloc_object|__create_object)$' /proc/kallsyms | sort)
rlo=$(echo "$syms" | head -n1 | cut -d' ' -f1)
rhi=$(grep -A1 -x "$(echo "$syms" | tail -n1)" /proc/kallsyms | tail -n1 | cut -d' ' -f1)
for a in failslab fail_page_alloc; do
	echo 0x$rlo > $F/$a/reject-start || echo "@@FAIL $a/reject-start"
	echo 0x$rhi > $F/$a/reject-end || echo "@@FAIL $a/reject-end"
done
echo "@@REJECT 0x$rlo 0x$rhi"
step create""" % D]
    for tag, line, name, cmd, _ in CREATES:
        s.append('echo "@@BEGIN c.%s"; $FN w %s "%s" "%s"; echo "@@END c.%s"'
                 % (tag, name, cmd % CALLS, line, tag))
    s.append("""step interval
echo "trace iv start kst_target_delay bits 1" > $C || echo "@@FAIL trace iv"
echo "@@BEGIN iv"; $FN r $D/_interval/iv "delay 0 %d"; echo "@@END iv"
# A read that failed after its cut shows its interval with the read after next.
for i in 1 2; do echo "@@BEGIN iv.x$i"; cat $D/_interval/iv; echo "@@END iv.x$i"; done
echo "@@IVNODE samples $(fig iv samples) missed $(fig iv missed)"
step keyread
echo "trace kk start kst_target_delay key comm slowest 2" > $C || echo "@@FAIL trace kk"
echo "delay 0 %d" > $T
echo "@@BEGIN kk"; $FN o $D/KEY-kk; echo "@@END kk"
step first-samples
echo "trace ks start kst_target_delay key kstack:4,comm" > $C || echo "@@FAIL trace ks"
# Only allocations with kstats' code on their stack count, and fail.
lo=$(grep '\\[kstats\\]' /proc/kallsyms | grep ' [tT] ' | cut -d' ' -f1 | sort | head -n1)
hi=$(grep '\\[kstats\\]' /proc/kallsyms | grep ' [tT] ' | cut -d' ' -f1 | sort | tail -n1)
hi=$(printf '0x%%x' $((0x$hi + 0x1000)))
for a in failslab fail_page_alloc; do echo 0x$lo > $F/$a/require-start; echo $hi > $F/$a/require-end; done
echo "@@RANGE 0x$lo $hi"
echo "@@BEGIN first"; $FN 1 $T "delay 0 %d"; echo "@@END first"
for a in failslab fail_page_alloc; do echo 0 > $F/$a/require-start; echo 0xffffffffffffffff > $F/$a/require-end; done
echo "@@FIRST samples $(fig ks samples)"
echo "@@BEGIN ks"; cat $D/KEY-ks; echo "@@END ks"
step unload
for n in iv kk ks; do echo "remove $n" > $C || echo "@@FAIL remove $n"; done
rmmod kstats_test_target
rmmod kstats && echo "@@RMMOD ok"
echo "@@LEFT kprobes $(cat $F/kprobes/list | wc -l) ftrace $(cat /sys/kernel/tracing/enabled_functions | wc -l)"
echo scan > $F/kmemleak
sleep 6
echo scan > $F/kmemleak
echo "@@KMEMLEAK-BEGIN"
cat $F/kmemleak
echo "@@KMEMLEAK-END"
step done
""" % (IV_ROUND, KEY_CALLS, FIRST_CALLS))
    with open(path, "w") as f:
        f.write("\n".join(s))


FN_RE = re.compile(r"failnth (\d+) res (-?\d+) errno (\d+) injected ([YN])$")


def blocks(lines):
    out, cur, buf = {}, None, []
    for l in lines:
        m = re.match(r"@@BEGIN (\S+)$", l)
        if m:
            cur, buf = m.group(1), []
            continue
        if cur is not None and l == "@@END " + cur:
            out[cur] = buf
            cur = None
            continue
        if cur is not None:
            buf.append(l)
    return out


def fn_runs(block):
    """failnth's base state, and [(N, res, errno, injected, lines, state)]."""
    base, runs, cur = None, [], None
    for l in block:
        m = re.match(r"failnth base state (\S+)$", l)
        if m:
            base = m.group(1)
            continue
        m = FN_RE.match(l)
        if m:
            cur = [int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), []]
            continue
        m = re.match(r"@@FNEND state (\S+)$", l)
        if m and cur:
            runs.append(tuple(cur) + (m.group(1),))
            cur = None
            continue
        if cur:
            cur[4].append(l)
    return base, runs


def node_samples(lines):
    d = {}
    for l in lines:
        f = l.split()
        if len(f) == 3 and f[0] == "#" and f[1] in ("samples", "missed"):
            d[f[1]] = int(f[2])
    return d


def key_view(lines):
    """(row counts, other count, number of slowest lines)."""
    rows = [int(m.group(1)) for m in (re.match(r"row total \d+ count (\d+) ", l)
                                      for l in lines) if m]
    other = [int(m.group(1)) for m in (re.match(r"other total \d+ count (\d+) ", l)
                                       for l in lines) if m]
    slow = sum(1 for l in lines if l.startswith("slowest value "))
    return rows, other[0] if other else None, slow


def check_loop(r, what, runs, ok_res):
    """The common part: N = 1..k, each failing one allocation but the
    last; every failure ENOMEM. Returns the successes."""
    r.check(runs and [x[0] for x in runs] == list(range(1, len(runs) + 1)) and
            runs[-1][3] == "N" and all(x[3] == "Y" for x in runs[:-1]) and
            ok_res(runs[-1][1]),
            "faults: %s with its Nth allocation failing, N = 1..%d; the last made fewer "
            "than N and succeeded" % (what, len(runs)), str([x[:4] for x in runs[-2:]]))
    failed = [x for x in runs if x[1] < 0]
    r.check(failed and runs[0][1] < 0 and all(x[2] == ENOMEM for x in failed),
            "faults: %s: each of the %d failures gives ENOMEM, the first allocation's too"
            % (what, len(failed)), str([x[:4] for x in failed if x[2] != ENOMEM][:3]))
    return [x for x in runs if x[1] >= 0]


def frame_counts(lines, func):
    """The samples of KEY-NAME's rows whose key holds frame FUNC."""
    total, count = 0, None
    for l in lines + ["row"]:
        if l.startswith(("row ", "other ", "slowest ")) or l == "row":
            if count is not None:
                total += count[1] if count[0] else 0
            m = re.match(r"row total \d+ count (\d+) ", l)
            count = [False, int(m.group(1))] if m else None
        elif count is not None and re.search(r"\b%s\+0x" % func, l):
            count[0] = True
    return total


def check_creates(r, bl):
    for tag, line, name, _, meth in CREATES:
        base, runs = fn_runs(bl.get("c." + tag, []))
        succ = check_loop(r, "%s: the write of '%s'" % (tag, line), runs,
                          lambda res: res == len(line))
        if not runs:
            continue
        bad = [(x[0], x[5]) for x in runs if x[5] != base]
        r.check(base and not bad,
                "faults: %s: after each, the listing, the debugfs tree, kprobes and "
                "enabled_functions are as before (%d writes)" % (tag, len(runs)),
                "base %s: %s" % (base, bad[:5]))
        # The writer's other waits count too: a run-queue trace's after a
        # preemption, an off-CPU trace's for the waker kthread to start
        # and stop. At least one sample per wait; the off-CPU trace's
        # waits in kst_wait_thread exactly, below.
        want = "samples %d missed 0 method %s" % (CALLS, meth)
        if tag in ("runq", "offcpu", "chain"):
            wrong = [(x[0], x[4][:1]) for x in succ
                     if not re.match(r"samples (\d+) missed 0 method %s$" % meth,
                                     (x[4] or [""])[0]) or
                     int(x[4][0].split()[1]) < CALLS]
            want = "samples >= %d missed 0 method %s" % (CALLS, meth)
        else:
            wrong = [(x[0], x[4][:1]) for x in succ if x[4][:1] != [want]]
        r.check(succ and not wrong,
                "faults: %s: each of the %d successes (absorbed failures included) gives "
                "'%s'" % (tag, len(succ), want), str(wrong[:5]))
        if tag in ("offcpu", "chain"):
            badk = [(x[0], frame_counts(x[4], "kst_wait_thread")) for x in succ
                    if frame_counts(x[4], "kst_wait_thread") != CALLS]
            r.check(succ and not badk,
                    "faults: %s: each success's KEY-%s has the %d waits in "
                    "kst_wait_thread" % (tag, name, CALLS), str(badk[:5]))
        if tag == "keyed":
            badk = [(x[0], key_view(x[4])) for x in succ
                    if key_view(x[4]) != ([CALLS], 0, 2)]
            r.check(succ and not badk,
                    "faults: keyed: each success's KEY-fk has one row of %d, other 0, "
                    "2 slowest" % CALLS, str(badk[:5]))


def check_interval(r, lines, bl):
    _, runs = fn_runs(bl.get("iv", []))
    succ = check_loop(r, "interval: the read of _interval/iv", runs, lambda res: res > 0)
    total = sum(node_samples(x[4]).get("samples", -10 ** 9) for x in succ)
    for x in ("iv.x1", "iv.x2"):
        total += node_samples(bl.get(x, [])).get("samples", -10 ** 9)
    calls = len(runs) * IV_ROUND
    node = re.findall(r"@@IVNODE samples (\d+) missed (\d+)", "\n".join(lines))
    r.check(runs and node == [(str(calls), "0")] and total == calls,
            "faults: interval: the %d successful reads and two after add up to the %d "
            "calls made, as the node does: nothing lost or counted twice by a failed read"
            % (len(succ), calls), "intervals %d node %s" % (total, node))


def check_keyread(r, bl):
    _, runs = fn_runs(bl.get("kk", []))
    succ = check_loop(r, "KEY-NAME: the open of KEY-kk", runs, lambda res: res >= 0)
    bad = [(x[0], key_view(x[4])) for x in succ if key_view(x[4]) != ([KEY_CALLS], 0, 2)]
    r.check(succ and not bad,
            "faults: KEY-NAME: each of the %d successes shows one row of %d, other 0, "
            "2 slowest" % (len(succ), KEY_CALLS), str(bad[:3]))


# The kernel's reports of the failures injected: warn_alloc()'s for vmalloc
# and pages, pcpu_alloc()'s for per-CPU memory, each a header line and a
# stack dump of the failing task (failnth); and kmemleak's note that it
# scans a whole object when its scan area could not be allocated.
INJECTED = re.compile(r"\] (failnth: vmalloc error: |failnth: page allocation failure: |"
                      r"percpu: allocation failed, )")
SCAN_AREA = re.compile(r"\] kmemleak: Cannot allocate a scan area, scanning the full object$")


def console_rest(lines):
    """The console without the reports of injected failures, and their
    number; None if a report is not of the failing task or never ends."""
    out, n, i = [], 0, 0
    while i < len(lines):
        if SCAN_AREA.search(lines[i]):
            n += 1
            i += 1
            continue
        if not INJECTED.search(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        end = next((j for j in range(i + 1, min(i + 200, len(lines)))
                    if lines[j].endswith(" </TASK>")), None)
        if end is None or not re.search(r"\] CPU: \d+ UID: \d+ PID: \d+ Comm: failnth ",
                                        lines[i + 1]):
            return None, n
        n += 1
        i = end + 1
    return out, n


def check_console(r, lines):
    rest, n = console_rest(lines)
    text = ""
    if rest is not None:
        with tempfile.NamedTemporaryFile("w", suffix=".console") as f:
            f.write("\n".join(rest) + "\n")
            f.flush()
            p = subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "lib", "console-check.sh"), f.name],
                               stdout=subprocess.PIPE, universal_newlines=True)
            text = p.stdout.strip() if p.returncode else ""
    r.check(rest is not None and not text,
            "faults: console clean (console-check.sh) but for the kernel's %d reports of the "
            "allocation failures injected into the failing task" % n,
            text or "an allocation-failure report not of failnth, or without its end")
    r.check(any(l.startswith("KSTATS-GUEST-END rc=0") for l in lines),
            "faults: the guest script ran to its end")


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines = deinterleave([l.rstrip("\r") for l in log.split("\n")])
    check_console(r, lines)
    steps = [m.group(1) for m in (re.search(r"@@STEP (\S+)", l) for l in lines) if m]
    r.check(steps == ["create", "interval", "keyread", "first-samples", "unload", "done"],
            "faults: every step reached", str(steps))
    r.check(not [l for l in lines if "@@FAIL" in l],
            "faults: fault injection set up; every unarmed command succeeds",
            str([l for l in lines if "@@FAIL" in l][:3]))
    bl = blocks(lines)
    check_creates(r, bl)
    check_interval(r, lines, bl)
    check_keyread(r, bl)
    _, first = fn_runs(bl.get("first", []))
    fs = re.findall(r"@@FIRST samples (\d+)", log)
    r.check(len(first) == 1 and first[0][3] == "N" and first[0][1] > 0 and
            fs == [str(FIRST_CALLS)],
            "faults: a keyed trace's first %d samples allocate nothing in kstats "
            "(fail-nth 1, stack filter on kstats' code, is left unused)" % FIRST_CALLS,
            "%s samples %s" % ([x[:4] for x in first], fs))
    r.check(key_view(bl.get("ks", [])) == ([FIRST_CALLS], 0, FIRST_CALLS),
            "faults: those samples are in KEY-ks: one row of %d, other 0, as many slowest"
            % FIRST_CALLS, str(key_view(bl.get("ks", []))))
    r.check("@@RMMOD ok" in log and "@@LEFT kprobes 0 ftrace 0" in log,
            "faults: kstats unloads, leaving no kprobe and no ftrace site",
            str(re.findall(r"@@LEFT.*", log)))
    kl = log.split("@@KMEMLEAK-BEGIN")[-1].split("@@KMEMLEAK-END")[0] \
        if "@@KMEMLEAK-END" in log else None
    r.check(kl is not None and "unreferenced object" not in kl,
            "faults: kmemleak finds no leak", (kl or "")[:800])
    return r


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        return 0
    return report("faults", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
