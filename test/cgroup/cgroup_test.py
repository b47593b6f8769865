#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cgroup v2 filters and keys in a stock-kernel QEMU guest (issue 42):
rows per cgroup of a function, a run-queue and an off-CPU trace, the
cgroup filter (a child counted under its parent's), a task moved between
two calls, a removed cgroup's row, a new cgroup of the same path (a new
row; the filter follows it), and the refusals.

  cgroup_test.py gen GUEST_SCRIPT SERIES [ARCH]   write the busybox script
  cgroup_test.py check LOGFILE                    assert on the console log

Counts are exact wherever the test makes the calls: the target module's
kst_target_delay() and its off-CPU waits, made by tasks the script put
in known cgroups.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from basic_test import Results, parse, report  # noqa: E402
from keys_test import key_nodes  # noqa: E402
from trace_test import ctls  # noqa: E402

# Calls of kst_target_delay() by the task put in each cgroup; "/" is the
# shell's own.
CALLS = {"/a": 3, "/b": 5, "/a/c": 7, "/": 2}
# A task moved from /a to /b between its two writes.
MOVED = (4, 6)
# Off-CPU waits of a task in /a/c, each woken by the target's kthread.
WAITS = 5
# Refusals: (line after "trace rN start kst_target_delay", errno text, dmesg words).
REFUSALS = [
    ("cgroup /nope", "No such file or directory",
     "cgroup /nope: no such cgroup in the cgroup2 hierarchy"),
    ("cgroup nope", "Invalid argument", "cgroup nope: expected a path from the cgroup2 root"),
    ("cgroup /a cgroup /b", "Invalid argument", "keyword cgroup given twice"),
    ("key cgroup:3", "Invalid argument",
     "key cgroup:3: only kstack, end-kstack, ustack, waker-kstack and waker-ustack take a depth"),
    ("key waker-cgroup", "Invalid argument", "key waker-cgroup: only an off-CPU wait has a waker"),
    ("cgroup /sys/fs/cgroup/a/cgroup.procs", "Not a directory",
     "cgroup /sys/fs/cgroup/a/cgroup.procs is a file, not a cgroup"),
    ("cgroup /tmp/v1", "Operation not supported",
     "cgroup /tmp/v1 is a cgroup v1 directory"),
    ("end kst_target_recurse match arg0 key cgroup", "Invalid argument",
     "key cgroup: a matched section may end in another task"),
]


def gen(path, series="", arch="x86_64"):
    out = ["""set -u
D=/sys/kernel/debug/kstats
C=$D/_control
T=/sys/kernel/debug/kstats_test_target
CG=/sys/fs/cgroup
ctl() { (echo "$1" > $C) 2>/tmp/err; echo "@@CTL rc=$? $(sed 's/.*: //' /tmp/err) :: $1"; }
tgt() { echo "$1" > $T || echo "@@TGTFAIL $1"; }
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
listing() { echo "@@LIST-BEGIN $1"; cat $C; echo "@@LIST-END $1"; }
# in_cg CGROUP CMD...: CMD run by a process that first moved itself there.
in_cg() { cg=$1; shift; sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG$cg" "$@" || echo "@@FAIL in_cg $cg"; }
# rm_cg CGROUP: rmdir once its tasks are gone (an exited task leaves it soon).
rm_cg() { for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$CG$1" 2>/dev/null && return; sleep 0.2; done; echo "@@FAIL rmdir $1"; }
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
mkdir -p $CG && mount -t cgroup2 none $CG || echo "@@FAIL mount cgroup2"
mkdir $CG/a $CG/b $CG/a/c || echo "@@FAIL mkdir"
mkdir -p /tmp/v1 && mount -t cgroup -o none,name=kstv1 none /tmp/v1 || echo "@@FAIL mount v1"
step function
ctl "trace fk start kst_target_delay key cgroup"
ctl "trace fa start kst_target_delay cgroup /a key cgroup"
ctl "trace fb start kst_target_delay cgroup /sys/fs/cgroup/b key comm"
ctl "trace fc start kst_target_delay cgroup /a/c key cgroup"
"""]
    for cg, comm in (("/a", "kstA"), ("/b", "kstB"), ("/a/c", "kstC")):
        out.append("in_cg %s /modules/kstask %s write $T 'delay 1 %d'" % (cg, comm, CALLS[cg]))
    out.append("""tgt 'delay 1 %d'
listing function
for n in fk fa fb fc; do show KEY-$n; ctl "remove $n"; done
step moved
ctl "trace mv start kst_target_delay key cgroup"
ctl "trace ma start kst_target_delay cgroup /a key cgroup"
sh -c 'echo $$ > $0/a/cgroup.procs && echo "delay 1 %d" > $1 && echo $$ > $0/b/cgroup.procs && echo "delay 1 %d" > $1' $CG $T || echo "@@FAIL moved"
for n in mv ma; do show KEY-$n; ctl "remove $n"; done
step runq
ctl "trace rq start sched:sched_wakeup end sched:sched_switch key cgroup,comm"
ctl "trace rqa start sched:sched_wakeup end sched:sched_switch cgroup /a key comm"
(in_cg /a /modules/kstask kswA sleep 30 2000) & (in_cg /b /modules/kstask kswB sleep 30 2000) & wait
ctl "stop rq"
ctl "stop rqa"
show KEY-rq
show KEY-rqa
show rq
show rqa
for n in rq rqa; do ctl "remove $n"; done
step offcpu
ctl "trace off offcpu key cgroup,waker-cgroup,kstack:12"
ctl "trace offa offcpu cgroup /a key kstack:12"
ctl "trace offb offcpu cgroup /b key kstack:12"
in_cg /a/c /modules/kstask kstO write $T 'offcpu_thread 1000 %d'
for n in off offa offb; do show KEY-$n; ctl "remove $n"; done
step gone
ctl "trace gk start kst_target_delay key cgroup"
mkdir $CG/d $CG/e
ctl "trace gf start kst_target_delay cgroup /d key cgroup"
in_cg /d /modules/kstask kstD write $T 'delay 1 3'
in_cg /e /modules/kstask kstE write $T 'delay 1 2'
rm_cg /e
show KEY-gk
rm_cg /d
show KEY-gk
mkdir $CG/d
in_cg /d /modules/kstask kstD write $T 'delay 1 4'
show KEY-gk
show KEY-gf
listing gone
ctl "remove gk"
ctl "remove gf"
step refusals
""" % (CALLS["/"], MOVED[0], MOVED[1], WAITS))
    for i, (words, _, _) in enumerate(REFUSALS):
        out.append('ctl "trace r%d start kst_target_delay %s"' % (i, words))
    out.append("""listing refusals
step done
""")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def rows_by(node, *parts):
    """{(part values...): count} of a parsed KEY- node."""
    got = {}
    for x in (node or {}).get("rows", []):
        k = tuple(x["parts"].get(p) for p in parts)
        got[k] = got.get(k, 0) + x["count"]
    return got


def node_of(st, name, i=0):
    n = key_nodes(st).get(name, [])
    return n[i] if len(n) > i else None


def with_frame(node, frame, *parts):
    """{(part values...): count} of the rows whose kstack holds @frame."""
    got = {}
    for x in (node or {}).get("rows", []):
        if any(f.startswith(frame + "+") for f in x["parts"].get("kstack", [])):
            k = tuple(x["parts"].get(p) for p in parts)
            got[k] = got.get(k, 0) + x["count"]
    return got


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines, steps = parse(log)
    r.check(not any("@@FAIL" in l or "@@TGTFAIL" in l for l in lines),
            "modules load, cgroups are made and moved into, every workload command succeeds",
            str([l for l in lines if "FAIL" in l][:5]))
    for s in ("function", "moved", "runq", "offcpu", "gone", "refusals", "done"):
        r.check(s in steps, "step %s reached" % s)
    if "done" not in steps:
        return r
    for s in ("function", "moved", "runq", "offcpu", "gone"):
        bad = [c for c in ctls(steps[s]) if c[1] != "0"]
        r.check(not bad, "%s: every command accepted" % s, str(bad))

    # A row per cgroup, exact; the filter takes the cgroup and below.
    st = steps["function"]
    got = rows_by(node_of(st, "fk"), "cgroup")
    r.check(got == {(k,): v for k, v in CALLS.items()},
            "function keyed by cgroup: one row per cgroup, exact counts %s" % CALLS, str(got))
    got = rows_by(node_of(st, "fa"), "cgroup")
    r.check(got == {("/a",): CALLS["/a"], ("/a/c",): CALLS["/a/c"]},
            "filter cgroup /a: /a's calls and its child /a/c's, nothing else", str(got))
    got = rows_by(node_of(st, "fb"), "comm")
    r.check(got == {("kstB",): CALLS["/b"]},
            "filter cgroup /sys/fs/cgroup/b (a full path): kstB's %d calls alone" % CALLS["/b"],
            str(got))
    got = rows_by(node_of(st, "fc"), "cgroup")
    r.check(got == {("/a/c",): CALLS["/a/c"]}, "filter cgroup /a/c: its own calls alone", str(got))
    listing = "\n".join(st)
    r.check(re.search(r"^fa .* cgroup /a( |$)", listing, re.M) and
            re.search(r"^fb .* cgroup /sys/fs/cgroup/b( |$)", listing, re.M),
            "the listing shows each cgroup filter as written")

    # A task moved between two calls: each call in the cgroup it was made in.
    st = steps["moved"]
    got = rows_by(node_of(st, "mv"), "cgroup")
    r.check(got == {("/a",): MOVED[0], ("/b",): MOVED[1]},
            "a task moved from /a to /b between calls: %d in /a, %d in /b" % MOVED, str(got))
    got = rows_by(node_of(st, "ma"), "cgroup")
    r.check(got == {("/a",): MOVED[0]}, "filter /a takes its calls made in /a alone", str(got))

    # Run-queue: the filtered trace saw exactly the keyed trace's rows of /a.
    st = steps["runq"]
    keyed = rows_by(node_of(st, "rq"), "cgroup", "comm")
    filtered = rows_by(node_of(st, "rqa"), "comm")
    under_a = {(c,): n for (g, c), n in keyed.items() if g in ("/a", "/a/c")}
    r.check(keyed.get(("/a", "kswA"), 0) >= 15 and keyed.get(("/b", "kswB"), 0) >= 15,
            "run-queue keyed by cgroup,comm: kswA's waits in /a, kswB's in /b (at least 15 each)",
            str(keyed))
    r.check(not any(c in ("kswA", "kswB") for (g, c) in keyed if g not in ("/a", "/b")),
            "run-queue: no wait of kswA or kswB outside its cgroup", str(keyed))
    r.check(filtered and filtered == under_a,
            "run-queue filtered by cgroup /a: exactly the keyed rows of /a and below",
            "%s vs %s" % (filtered, under_a))
    missed = [l for l in st if l.startswith("# trace rq") and " missed 0 " not in l]
    r.check(not missed, "run-queue traces missed nothing", str(missed))

    # Off-CPU: the blocked task's cgroup and its waker's (a kthread: /).
    st = steps["offcpu"]
    got = with_frame(node_of(st, "off"), "kst_wait_thread", "cgroup", "waker-cgroup")
    r.check(got == {("/a/c", "/"): WAITS},
            "off-CPU keyed by cgroup,waker-cgroup: %d waits of /a/c woken from /" % WAITS,
            str(got))
    got = with_frame(node_of(st, "offa"), "kst_wait_thread")
    r.check(got == {(): WAITS}, "off-CPU filtered by /a: the child's %d waits" % WAITS,
            str(got))
    got = with_frame(node_of(st, "offb"), "kst_wait_thread")
    r.check(got == {}, "off-CPU filtered by /b: none of them", str(got))

    # Removed cgroups keep their rows; a new one of the same path is new.
    st = steps["gone"]
    reads = [rows_by(node_of(st, "gk", i), "cgroup") for i in range(3)]
    ids = [k[0] for k in reads[0] if k[0] and k[0].startswith("[id:")]
    r.check(reads[0].get(("/d",)) == 3 and len(ids) == 1 and
            re.fullmatch(r"\[id:\d+\] \(gone\)", ids[0]) and reads[0][(ids[0],)] == 2,
            "a cgroup removed before any read shows [id:ID] (gone), its count kept; /d 3",
            str(reads[0]))
    r.check(reads[1].get(("/d (gone)",)) == 3 and ("/d",) not in reads[1],
            "a cgroup removed after a read shows its path and (gone), its count kept",
            str(reads[1]))
    r.check(reads[2].get(("/d (gone)",)) == 3 and reads[2].get(("/d",)) == 4 and
            len(reads[2]) == 3,
            "a new cgroup of the same path is a new row (4), the old one stays (3)",
            str(reads[2]))

    # The filter follows its path to the new cgroup (a restarted service).
    got = rows_by(node_of(st, "gf"), "cgroup")
    gone = [k for k in got if k[0] and re.fullmatch(r"\[id:\d+\] \(gone\)", k[0])]
    r.check(got.get(("/d",)) == 4 and len(gone) == 1 and got[gone[0]] == 3 and len(got) == 2,
            "filter cgroup /d follows a new /d made after the old one was removed: "
            "3 calls in the old /d, 4 in the new, none of /e's", str(got))
    r.check(re.search(r"^gf .* cgroup /d( |$)", "\n".join(st), re.M),
            "the listing still shows the filter as written")

    # Refusals: the errno and one dmesg line naming the word.
    got = {cmd: (rc, err) for cmd, rc, err in ctls(steps["refusals"])}
    for i, (words, errno, dmesg) in enumerate(REFUSALS):
        cmd = "trace r%d start kst_target_delay %s" % (i, words)
        rc, err = got.get(cmd, (None, None))
        r.check(rc == "1" and err == errno, "refused: %s (%s)" % (words, errno), str((rc, err)))
        r.check(("kstats: trace r%d: %s" % (i, dmesg)) in log,
                "dmesg names the word: %s" % dmesg)
    listing = "\n".join(steps["refusals"])
    r.check(not re.search(r"^r\d ", listing, re.M), "no refused trace is listed")
    return r


def main():
    if sys.argv[1] == "gen":
        gen(*sys.argv[2:5])
        return 0
    return report("cgroup", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
