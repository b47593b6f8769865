#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Stress and fault tests of kstats on the debug test kernel (KASAN,
lockdep, kmemleak, DEBUG_ATOMIC_SLEEP), after its KUnit suites.

  debug_test.py gen GUEST_SCRIPT [SECONDS] [ROUNDS]
  debug_test.py check LOGFILE [ROUNDS]
"""
import re
import sys

from basic_test import Results, report

# What the counted phase records, per key: (command, repetitions).
S1 = [("record s1 1000 5000", 16), ("timer s1 2000 200", 10)]
S2 = [("kthread s2 3000 5000", 16), ("irq %d s2 4000 5000", 16)]


def expected(cmds):
    return sum(int(c.split()[-1]) * n for c, n in cmds)


def gen(path, seconds, rounds):
    s = """set -u
C=/sys/kernel/debug/kstats_test_client
D=/sys/kernel/debug/kstats
K=$D/_control
T=/sys/kernel/debug/kstats_test_target
step() { echo "@@STEP $1"; }
ncpu=$(nproc)
echo "@@NCPU $ncpu"
step kunit
insmod /modules/kunit.ko || echo "@@FAIL insmod kunit"
# The suites run when the module that holds them loads.
insmod /modules/kstats_with_kunit.ko || echo "@@FAIL insmod kstats with KUnit"
rmmod kstats || echo "@@FAIL rmmod kstats with KUnit"
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_client.ko || echo "@@FAIL insmod client"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
step counted
echo "new 3 s1" > $C; echo "new 2 s2" > $C
stopf=/tmp/stop; rm -f $stopf
# Background churn that does not touch s1/s2's counters.
(while [ ! -e $stopf ]; do echo "trace t1 start kst_target_delay" > $K; echo "delay 10 5" > $T; echo "remove t1" > $K; done) 2>/dev/null &
(while [ ! -e $stopf ]; do cat $D/s1 $D/s2 $K > /dev/null; done) 2>/dev/null &
pids=""
"""
    for cmd, n in S1 + S2:
        if cmd.startswith("irq"):
            s += ("(for i in $(seq 1 %d); do echo \"%s\" > $C || echo '@@FAIL %s'; done) &\npids=\"$pids $!\"\n"
                  % (n, cmd.replace("%d", "$((i % ncpu))"), cmd))
        elif cmd.startswith("record"):
            s += ("(for i in $(seq 1 %d); do taskset -c $((i %% ncpu)) sh -c \"echo '%s' > $C\" || echo '@@FAIL %s'; done) &\npids=\"$pids $!\"\n"
                  % (n, cmd, cmd))
        else:
            s += ("(for i in $(seq 1 %d); do echo \"%s\" > $C || echo '@@FAIL %s'; done) &\npids=\"$pids $!\"\n"
                  % (n, cmd, cmd))
    s += """for p in $pids; do wait $p; done
touch $stopf; wait; rm -f $stopf
echo "@@COUNT s1 $(grep CPUS $D/s1 | awk '{s += $6} END {print s}')"
echo "@@COUNT s2 $(grep CPUS $D/s2 | awk '{s += $6} END {print s}')"
step chaos
end=$(( $(date +%%s) + %d ))
(while [ $(date +%%s) -lt $end ]; do for n in s1 s2; do echo reset > $D/$n; echo stop > $D/$n; echo start > $D/$n; done; done) &
(while [ $(date +%%s) -lt $end ]; do taskset -c $(( $(date +%%s) %% ncpu )) sh -c "echo 'record s1 7 1000' > $C" || echo "@@FAIL chaos record"; echo "irq 0 s2 9 500" > $C || echo "@@FAIL chaos irq"; echo "timer s1 11 20" > $C || echo "@@FAIL chaos timer"; echo "kthread s2 13 100" > $C || echo "@@FAIL chaos kthread"; done) &
# Interval reads cut every CPU's counters while the timers record.
(while [ $(date +%%s) -lt $end ]; do cat $D/s1 $D/s2 $D/* $D/_interval/* > /dev/null 2>&1; done) &
(while [ $(date +%%s) -lt $end ]; do insmod /modules/kstats_demo.ko; sleep 0.3; rmmod kstats_demo; done) &
(while [ $(date +%%s) -lt $end ]; do for c in "trace c1 start kst_target_sleep method kretprobe key kstack:8,comm" "trace c2 start kst_section_begin end kst_section_end key kstack,end-kstack slowest 64" "trace c3 start __tracepoint_sched_wakeup end __tracepoint_sched_switch key comm,kstack:4,cpu keys 16"; do echo "$c" > $K || echo "@@FAIL chaos $c"; done; echo "sleep 1000 3" > $T; echo "section 100 5" > $T; for c in c1 c2 c3; do echo "remove $c" > $K || echo "@@FAIL chaos remove $c"; done; done) &
(while [ $(date +%%s) -lt $end ]; do echo "trace c4 start kst_target_delay key kstack,pid keys 4" > $K || echo "@@FAIL chaos trace c4"; echo "delay 50 20" > $T; cat $D/c4 $D/GAP-c4 $D/KEY-c4 > /dev/null || echo "@@FAIL chaos read c4"; echo "remove c4" > $K || echo "@@FAIL chaos remove c4"; done) &
(while [ $(date +%%s) -lt $end ]; do echo "sleep 2000 5" > $T; done) &
# Off-CPU traces made and removed while tasks fork, block and exit.
(while [ $(date +%%s) -lt $end ]; do echo "trace c5 offcpu key kstack:8,waker-kstack:8,waker-comm,waker-pid,comm,pid keys 16 slowest 16" > $K || echo "@@FAIL chaos trace c5"; for i in 1 2 3 4 5 6 7 8; do sh -c 'exit 0' & done; echo "offcpu_thread 500 3" > $T; echo "offcpu_timer 500 3" > $T; wait; cat $D/c5 $D/BLOCKED-c5 $D/RUNQ-c5 $D/KEY-c5 > /dev/null || echo "@@FAIL chaos read c5"; echo "remove c5" > $K || echo "@@FAIL chaos remove c5"; done) &
# Wakeup chains: a record per sleeping task, dropped at exit (issue 44).
(while [ $(date +%%s) -lt $end ]; do echo "trace c6 offcpu key kstack:8,waker-chain:4 keys 16 slowest 16" > $K || echo "@@FAIL chaos trace c6"; for i in 1 2 3 4 5 6 7 8; do sh -c 'sleep 0.01; exit 0' & done; echo "offcpu_thread 500 3" > $T; wait; cat $D/c6 $D/KEY-c6 > /dev/null || echo "@@FAIL chaos read c6"; echo "remove c6" > $K || echo "@@FAIL chaos remove c6"; done) &
wait
echo "@@CHAOS-DONE"
step unload
rmmod kstats_demo 2>/dev/null
rmmod kstats_test_client; echo "@@RMMOD client rc=$?"
rmmod kstats; echo "@@RMMOD kstats rc=$?"
test -e $D && echo "@@STALE"
step rmmod-rounds
fails=0
for r in $(seq 1 %d); do
	insmod /modules/kstats.ko || fails=$((fails + 1))
	m=kretprobe
	[ $((r %% 4)) -eq 0 ] && m=fprobe
	echo "trace z1 start kst_target_sleep method $m" > $K || fails=$((fails + 1))
	echo "trace z2 start kst_section_begin end kst_section_end key kstack,end-kstack" > $K || fails=$((fails + 1))
	echo "trace z3 start kst_target_delay method kretprobe key kstack:4,comm" > $K || fails=$((fails + 1))
	echo "trace z4 offcpu state D key kstack:4,waker-kstack:4" > $K || fails=$((fails + 1))
	(echo "sleep 30000 2" > $T) &
	(echo "section_sleep 30000 2" > $T) &
	(echo "delay 500 40" > $T) &
	(echo "offcpu_thread 10000 2" > $T) &
	usleep 15000
	rmmod kstats || fails=$((fails + 1))
	wait
done
echo "@@ROUNDS %d fails=$fails"
step leaks
rmmod kstats_test_target; echo "@@RMMOD target rc=$?"
rmmod kunit
echo scan > /sys/kernel/debug/kmemleak
sleep 6
echo scan > /sys/kernel/debug/kmemleak
echo "@@KMEMLEAK-BEGIN"
cat /sys/kernel/debug/kmemleak
echo "@@KMEMLEAK-END"
step done
""" % (seconds, rounds, rounds)
    with open(path, "w") as f:
        f.write(s)


def check(logpath, rounds):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines = [l.rstrip("\r") for l in log.split("\n")]
    for st in ["kunit", "counted", "chaos", "unload", "rmmod-rounds", "leaks", "done"]:
        r.check(any(l.endswith("@@STEP " + st) or l == "@@STEP " + st for l in lines),
                "debug: step %s reached" % st)
    r.check(not any(l.startswith("@@FAIL") for l in lines),
            "debug: every load, record, trace, remove and read command succeeds, stress included",
            str([l for l in lines if l.startswith("@@FAIL")][:5]))
    counts = dict(re.findall(r"@@COUNT (s\d) (\d+)", log))
    r.check(counts.get("s1") == str(expected(S1)),
            "debug: s1 CPUS counts add up to the %d recorded from tasks and a HARD hrtimer"
            % expected(S1), str(counts.get("s1")))
    r.check(counts.get("s2") == str(expected(S2)),
            "debug: s2 CPUS counts add up to the %d recorded from kthreads and IPIs"
            % expected(S2), str(counts.get("s2")))
    # run.sh boots 4 vCPUs; fewer means the guest ran the stress on fewer CPUs.
    ncpu = re.findall(r"@@NCPU (\d+)", log)
    r.check(ncpu == ["4"], "debug: the guest runs on its 4 vCPUs", str(ncpu))
    r.check("@@CHAOS-DONE" in log, "debug: chaos phase finished")
    r.check("@@RMMOD client rc=0" in log and "@@RMMOD kstats rc=0" in log
            and "@@STALE" not in log, "debug: rmmod of everything after the stress")
    r.check(("@@ROUNDS %d fails=0" % rounds) in log,
            "debug: %d rounds of rmmod kstats with traces on running and sleeping calls" % rounds)
    kl = log.split("@@KMEMLEAK-BEGIN")[-1].split("@@KMEMLEAK-END")[0] if "@@KMEMLEAK-END" in log else None
    r.check(kl is not None and "unreferenced object" not in kl, "debug: kmemleak finds no leak",
            (kl or "")[:500])
    return r


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 30,
            int(sys.argv[4]) if len(sys.argv) > 4 else 50)
        return 0
    return report("debug", check(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 50))


if __name__ == "__main__":
    sys.exit(main())
