#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The grammar fuzzer (test/progs/ksfuzz.c) in a stock-kernel QEMU guest.

  fuzz_test.py gen GUEST_SCRIPT SEED [LINES [SLAB]]
                                   write the busybox script the guest runs
  fuzz_test.py check LOGFILE       assert on the guest's console log

The guest replays test/fuzz-corpus/control.txt, then writes LINES
generated lines (seed SEED and the kernel's release pick them: the same
pair gives the same lines), checks the invariants after every batch,
and then unloads kstats. SLAB=1 boots with slub_debug=U,kmalloc-* (see
run-all.sh), so that the fuzzer also counts kstats' live slab objects.
To replay a failure: KS_FUZZ_SEED=SEED in the environment of run-all.sh,
or `ksfuzz -p -s SEED -k KVER -i LINE -l LINE` to print the line.
"""
import re
import sys

from basic_test import Results, report

# Lines per kernel: six reference kernels make the 100,000.
LINES = 17000
BATCH = 500


def gen(path, seed, lines=LINES, slab="0"):
    with open(path, "w") as f:
        f.write("""set -u
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
# Real functions of this kernel, the same ones every boot: every 1499th
# of ftrace's list.
awk 'NR %% 1499 == 7 {print $1}' /sys/kernel/tracing/available_filter_functions > /tmp/funcs
echo "@@FUNCS $(wc -l < /tmp/funcs)"
echo "@@STEP fuzz"
t0=$(date +%%s)
/modules/ksfuzz -s %s -k "$(uname -r)" -n %d -b %d -c /modules/control.txt -f /tmp/funcs %s
echo "@@FUZZ-RC $? $(($(date +%%s) - t0))s"
echo "@@STEP unload"
rmmod kstats_test_target || echo "@@FAIL rmmod target"
if rmmod kstats; then echo "@@RMMOD ok"; else echo "@@RMMOD failed"; fi
if [ -e /sys/kernel/debug/kstats ]; then echo "@@DIR left"; else echo "@@DIR gone"; fi
# The debug kernel's kmemleak: two scans (an object is reported once it
# stayed unreferenced through one), after kstats is gone.
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak; sleep 6; echo scan > /sys/kernel/debug/kmemleak
	echo "@@LEAKS $(grep -c 'unreferenced object' /sys/kernel/debug/kmemleak)"
	grep -A14 'unreferenced object' /sys/kernel/debug/kmemleak | head -60 | sed 's/^/@@LEAK /'
fi
# The tracepoints kstats hooked fire again: a probe left behind by the
# unloaded module would oops here.
for i in 1 2 3 4 5; do sleep 0.05 & wait; kill -0 $$; done
cat /proc/self/stat > /dev/null
echo "@@STEP end"
""" % (seed, int(lines), BATCH, "-S" if slab == "1" else ""))


def check(path):
    r = Results()
    log = open(path, errors="replace").read()
    lines = [l.rstrip("\r") for l in log.split("\n")]
    start = [l for l in lines if "@@FUZZ seed=" in l]
    done = [l for l in lines if "@@FUZZ-DONE" in l]
    fails = [l for l in lines if l.startswith("@@FAIL")]
    r.check(bool(start), "the fuzzer started", start[0] if start else "")
    if start:
        print("fuzz: %s" % start[0][start[0].index("@@FUZZ"):])
    corpus = [l for l in lines if l.startswith("@@CORPUS ")]
    r.check(bool(corpus) and int(corpus[0].split()[1]) > 0,
            "the corpus of test/fuzz-corpus/ was replayed first", str(corpus))
    want = int(re.search(r"lines=(\d+)", start[0]).group(1)) if start else 0
    m = re.search(r"lines=(\d+) accepted=(\d+) refused=(\d+) node_writes=(\d+) fails=(\d+)(.*)",
                  done[0]) if done else None
    r.check(m is not None and int(m.group(1)) >= want > 0,
            "the fuzzer wrote all %d lines (and the corpus)" % want, done[0] if done else "no @@FUZZ-DONE")
    if m:
        print("fuzz: %s" % done[0][done[0].index("@@FUZZ-DONE"):])
        # Every kind of trace was accepted at least once: the grammar's
        # valid lines reach the kernel's attach paths, not only its parser.
        kinds = dict(kv.split("=") for kv in m.group(6).split())
        for kind, n in sorted(kinds.items()):
            r.check(int(n) > 0, "accepted traces of kind %s: %s" % (kind, n))
        r.check(int(m.group(4)) > 0, "node files were written (%s writes)" % m.group(4))
    batches = [l for l in lines if l.startswith("@@BATCH ")]
    r.check(len(batches) == want // BATCH, "invariants checked after each of %d batches" % (want // BATCH),
            "%d batch lines" % len(batches))
    # Each failing line, with its seed and index, is a failure of its own.
    for l in fails:
        r.check(False, "fuzz line", l)
    if not fails:
        r.check(True, "no line failed")
    rc = [l for l in lines if l.startswith("@@FUZZ-RC ")]
    r.check(bool(rc) and rc[0].split()[1] == "0", "the fuzzer exited 0", rc[0] if rc else "")
    if rc:
        t = [l for l in lines if l.startswith("@@FUZZ-TIME")]
        print("fuzz: time in guest %s (%s)" % (rc[0].split()[2], t[0][12:] if t else ""))
    r.check("@@RMMOD ok" in lines, "rmmod kstats succeeds after the run")
    r.check("@@DIR gone" in lines, "/sys/kernel/debug/kstats is gone after rmmod")
    leaks = [l for l in lines if l.startswith("@@LEAKS ")]
    if leaks:
        r.check(leaks[0] == "@@LEAKS 0", "kmemleak finds no leak after the run and rmmod", leaks[0])
    r.check("@@STEP end" in lines, "the tracepoints fire after rmmod without a report")
    return r


def main():
    if sys.argv[1] == "gen":
        gen(*sys.argv[2:])
        return 0
    return report("fuzz", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
