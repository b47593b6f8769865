#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hook-engine correctness tests of kstats.ko in a stock-kernel QEMU guest:
run-queue latency as runqlat defines it, calls from inside kstats'
handlers, traces of an unloaded module that must stay dead, and what a
trace holds in memory.

  engine_test.py gen GUEST_SCRIPT SERIES   write the busybox script
  engine_test.py check LOGFILE             assert on the console log
"""
import re
import sys

from basic_test import Results, _RANGES, at_least, console_series, parse, report
from trace_test import ctls, listings, missed_of, nodes, total
from trace_test import fprobe_has_pool
from trace_test import function_methods as trace_function_methods

FB = 3
# Calls of a traced function whose handlers each read the clock once.
NESTED_CALLS = 5000
NESTED_OUTER = {
    "kretprobe": ("start kst_target_null method kretprobe", 'tgt "bench %d"'),
    "fprobe": ("start kst_target_null method fprobe", 'tgt "bench %d"'),
    "kprobe": ("start kst_section_begin end kst_section_end", 'tgt "bench_pair %d"'),
    "tracepoint": ("start __tracepoint_sys_enter end __tracepoint_sys_exit",
                   "/modules/syscall_loop %d > /dev/null"),
}


# Run-queue traces created under load, and how long each records (s).
WHOLE_ROUNDS = 4
WHOLE_WINDOW_S = 1
WHOLE_SLEEP_S = 0.5
# A switch-in's wait as kstats times it may exceed schedstat's by what
# passes between the scheduler's clock read at the top of __schedule()
# and sched_switch: a vCPU paused there (TCG switches vCPUs every 100 ms).
WHOLE_SLACK_NS = 100 * 1000 * 1000

# Calls of getppid() by each of the six contention processes.
CONTENTION_CALLS = 100000


def function_methods(series):
    # The engine guests are amd64 only.
    return trace_function_methods(series, "x86_64")


def nested_outers(series):
    return function_methods(series) + ["kprobe", "tracepoint"]


def gen(path, series):
    out = ["""set -u
D=/sys/kernel/debug/kstats
C=$D/_control
T=/sys/kernel/debug/kstats_test_target
ctl() { (echo -e "$1" > $C) 2>/tmp/err; echo "@@CTL rc=$? $(sed 's/.*: //' /tmp/err) :: $1"; }
tgt() { echo "$1" > $T || echo "@@TGTFAIL $1"; }
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
listing() { echo "@@LIST-BEGIN $1"; cat $C; echo "@@LIST-END $1"; }
ctxt() { echo "@@CTXT $1 $(grep ^ctxt /proc/stat | cut -d' ' -f2)"; }
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
insmod /modules/kstats_test_sched.ko || echo "@@FAIL insmod sched"
echo "@@NCPUS $(grep -c ^processor /proc/cpuinfo) possible $(cat /sys/devices/system/cpu/possible)"
step runq-selfwake
ctl "trace rq start __tracepoint_sched_wakeup end __tracepoint_sched_switch comm kstSW"
ctl "trace rqw start __tracepoint_sched_waking end __tracepoint_sched_switch comm kstSW"
/modules/rqlat selfwake 800 || echo "@@FAIL rqlat selfwake"
show rq
show rqw
listing selfwake
ctl "remove rq"
ctl "remove rqw"
step runq-pair
ctl "trace rq start __tracepoint_sched_wakeup end __tracepoint_sched_switch"
ctxt before
show rq
/modules/rqlat pair 1500 || echo "@@FAIL rqlat pair"
show rq
ctxt after
listing pair
ctl "remove rq"
step runq-full
ctl "trace rqf start __tracepoint_sched_wakeup end __tracepoint_sched_switch maxactive 1"
/modules/rqlat pair 600 5 > /dev/null || echo "@@FAIL rqlat pair 5"
show rqf
listing full
ctl "remove rqf"
"""]
    # Run-queue traces created while three busy loops keep both vCPUs
    # busy: each slowest sample against schedstat's run_delay of its
    # task, read before the trace was created and after KEY-rqw was.
    out.append("""step runq-whole
sd() {
	s=""
	for f in /proc/[0-9]*/task/[0-9]*/schedstat; do
		read -r a b c < "$f" 2>/dev/null || continue
		t=${f%%/schedstat}
		s="$s ${t##*/}:$b"
	done
	echo "@@SD $1$s"
}
B=""
for i in 1 2 3; do (while :; do :; done) & B="$B $!"; done
# Tasks that sleep %(sleep)s s at a time: one woken while the trace is
# being created would keep a start until its next switch-in.
for i in 1 2 3 4 5 6 7 8; do (while :; do sleep %(sleep)s; done) & B="$B $!"; sleep 0.05; done
for r in %(rounds)s; do
	sd b$r
	ctl "trace rqw start sched:sched_wakeup end sched:sched_switch key comm slowest 6"
	sleep %(window)s
	echo "@@ROUND $r"
	show KEY-rqw
	sd a$r
	ctl "remove rqw"
done
kill $B
wait
""" % {"rounds": " ".join(str(i) for i in range(1, WHOLE_ROUNDS + 1)),
       "window": WHOLE_WINDOW_S, "sleep": WHOLE_SLEEP_S})
    # kstats' handlers read the clock with ktime_get_mono_fast_ns(), which
    # is notrace: no ftrace site, so on amd64 kstats refuses it, as
    # kprobe_events does, and its handlers cannot be entered again from a
    # trace of kstats' own. Where it is taken (an int3 kprobe), each outer
    # call below runs two kstats handlers, so makes two nested calls.
    out.append("""step nested
ctl "trace k start ktime_get_mono_fast_ns"
sleep 1
listing idle
show k
""")
    for outer in nested_outers(series):
        trace, work = NESTED_OUTER[outer]
        out.append("""ctl "trace d %(trace)s"
%(work)s
ctl "remove d"
listing after-%(o)s
show k
""" % {"trace": trace, "work": work % NESTED_CALLS, "o": outer})
    out.append('ctl "remove k"')
    for m in function_methods(series) + ["kprobe"]:
        tr = ("trace gn start kst_section_begin end kst_section_end"
              if m == "kprobe" else
              "trace gn start kst_target_delay method " + m)
        call = "section 0" if m == "kprobe" else "delay 0"
        # @@ADDR: where the module's text was and is (for a failure's
        # message): its section, not a grep of /proc/kallsyms, a read of
        # which takes about a second of a TCG guest (200,000 lines on 7.2).
        out.append("""step gone-%(m)s
ctl "%(tr)s"
tgt "%(call)s 3"
echo "@@ADDR before $(cat /sys/module/kstats_test_target/sections/.text)"
rmmod kstats_test_target || echo "@@FAIL rmmod target"
insmod /modules/kstats_test_target.ko || echo "@@FAIL reinsmod target"
echo "@@ADDR after $(cat /sys/module/kstats_test_target/sections/.text)"
tgt "%(call)s 5"
show gn
listing gone
ctl "remove gn"
""" % {"m": m, "tr": tr, "call": call})
    # Six processes of 100k getppid() on 2 vCPUs, through a tracepoint pair
    # and a kprobe pair at once. Tracepoint probes run preemptible on 7.x:
    # a handler preempted inside kstats' per-CPU guard made every other
    # task's handler on that CPU count as "nested".
    out.append("""step contention
ctl "trace ct start __tracepoint_sys_enter end __tracepoint_sys_exit"
ctl "trace ck start syscall:getppid end __task_pid_nr_ns"
ctl "trace crq start sched_wakeup end sched_switch"
for i in 1 2 3 4 5 6; do /modules/syscall_loop %d > /dev/null & done
wait
show ct
show ck
show crq
listing contention
ctl "remove ct"
ctl "remove ck"
ctl "remove crq"
""" % CONTENTION_CALLS)
    out.append("""step memory
# Pages of return-probe pools in vmalloc (objpool, 6.7+), as the kernel lists them.
vm() { echo "@@VM $1 $(grep -E 'rethook_alloc|objpool_init' /proc/vmallocinfo | sed -n 's/.* pages=\\([0-9]*\\).*/\\1/p' | awk '{s += $1} END {print s * 4096}')"; }
vm a0
ctl "trace ma start kst_target_delay method kretprobe maxactive 1024"
vm a1
listing ma
ctl "remove ma"
vm b0
ctl "trace mb start kst_target_delay method kretprobe maxactive 64"
vm b1
listing mb
ctl "remove mb"
ctl "trace mf start kst_target_delay"
ctl "trace mk start kst_section_begin end kst_section_end bits 5 maxactive 4096"
listing memory
ctl "remove mf"
ctl "remove mk"
step done
""")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def slots_with_samples(cpus):
    return [s for s, c in cpus if c]


def listing_field(lines, name, key):
    for l in lines:
        w = l.split()
        if w and w[0] == name and key in w:
            return w[w.index(key) + 1]
    return None


def schedstat_delays(line):
    """tid -> run_delay ns, from a '@@SD TAG tid:delay...' line."""
    return {int(t): int(d) for t, d in (w.split(":") for w in line.split()[2:])}


def check_runq_whole(r, st):
    """No sample from before the trace was whole: a wakeup seen before
    sched_switch's probe was live left a start that the task's next
    switch-in closed, seconds later (issue 37, item 4). Every slowest
    sample must fit in what the scheduler counted its task waiting
    (schedstat's run_delay) from before the trace to after the read."""
    sd = {l.split()[1]: schedstat_delays(l) for l in st if l.startswith("@@SD ")}
    rounds, cur, inkey = {}, None, False
    for l in st:
        if l.startswith("@@ROUND "):
            cur = l.split()[1]
            rounds[cur] = []
        elif l.startswith("@@BEGIN KEY-rqw"):
            inkey = True
        elif l.startswith("@@END KEY-rqw"):
            inkey = False
        elif inkey and cur and l.startswith("slowest "):
            w = l.split()
            rounds[cur].append((int(w[w.index("value") + 1]), int(w[w.index("pid") + 1]),
                                w[w.index("comm") + 1]))
    r.check(len(rounds) == WHOLE_ROUNDS and all(rounds.values()),
            "runq under load: %d traces created, each with slowest samples" % WHOLE_ROUNDS,
            str({k: len(v) for k, v in rounds.items()}))
    bad, worst, n = [], 0, 0
    for k, samples in sorted(rounds.items()):
        before, after = sd.get("b" + k, {}), sd.get("a" + k, {})
        for value, pid, comm in samples:
            if pid not in after:
                continue        # exited: its run_delay is gone
            n += 1
            delay = after[pid] - before.get(pid, 0)
            worst = max(worst, value - delay)
            if value > delay + WHOLE_SLACK_NS:
                bad.append("round %s: %s (pid %d) %d ns, run_delay %d ns"
                           % (k, comm, pid, value, delay))
    r.check(n > 0 and not bad,
            "runq under load: each of %d slowest samples <= its task's schedstat "
            "run_delay over the trace's life (+%d ms); most over: %d ns"
            % (n, WHOLE_SLACK_NS // 1000000, worst), "; ".join(bad[:8]))


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines, steps = parse(log)
    series = console_series(log)
    r.check(not any("@@FAIL" in l or "@@TGTFAIL" in l for l in lines),
            "modules load and every workload command succeeds",
            str([l for l in lines if "FAIL" in l][:5]))
    want = ["runq-selfwake", "runq-pair", "runq-full", "runq-whole", "nested",
            "contention"] + \
        ["gone-" + m for m in function_methods(series) + ["kprobe"]] + \
        ["memory", "done"]
    for s in want:
        r.check(s in steps, "step %s reached" % s)
    if "done" not in steps:
        return r
    ranges = _RANGES[FB]

    # A task that woke itself while running, then ran alone for run_ns:
    # a start left by the self-wakeup would be ended by its next switch-in,
    # a wait longer than the run. The traces hold only that task's waits,
    # and none can be longer than all its waits as the scheduler counted
    # them (schedstat's run_delay, taken by the task itself; a host that
    # stalls the vCPU lengthens both alike).
    st = steps["runq-selfwake"]
    nd = nodes(st)
    sw = [l.split() for l in st if l.startswith("@@SELFWAKE run_ns ")]
    ran, delay = (int(sw[0][2]), int(sw[0][4])) if len(sw) == 1 and len(sw[0]) == 5 else (0, 0)
    r.check(ran > 0, "selfwake: the task ran after waking itself", str(sw))
    for name in ("rq", "rqw"):
        cpus = nd.get(name, [([], [])])[0][0]
        r.check(total(cpus) > 0, "%s: the self-woken task's run-queue waits have samples" % name)
        top = max(slots_with_samples(cpus) or [0])
        r.check(ran and ranges[top][0] <= delay,
                "%s: no wait longer than the task's schedstat run_delay %d ns "
                "(its run after the self-wakeup: %d ns)" % (name, delay, ran),
                "highest slot %d from %d ns" % (top, ranges[top][0]))
        r.check(missed_of(listings(st).get("selfwake", []), name) == 0,
                "%s: nothing missed" % name)

    # Two CPU-bound tasks on one CPU: every switch-in of either is the end
    # of a wait that began at its preemption (or, first, at wakeup_new).
    st = steps["runq-pair"]
    nd = nodes(st)
    pairs = [l.split() for l in st if l.startswith("@@PAIR ")]
    pcount = sum(int(p[4]) for p in pairs)
    ctx = {l.split()[1]: int(l.split()[2]) for l in st if l.startswith("@@CTXT ")}
    before, after = (total(nd["rq"][0][0]), total(nd["rq"][1][0])) if len(nd.get("rq", [])) == 2 else (0, 0)
    got = after - before
    r.check(len(pairs) == 2 and pcount > 20,
            "pair: both tasks report their switch-ins from schedstat", str(pairs))
    r.check(got >= pcount,
            "pair: run-queue samples %d >= the two tasks' switch-ins %d (schedstat pcount)" % (got, pcount))
    r.check("before" in ctx and "after" in ctx and got <= ctx["after"] - ctx["before"],
            "pair: run-queue samples %d <= context switches in the window %s" % (got, ctx))
    r.check(missed_of(listings(st).get("pair", []), "rq") == 0, "pair: nothing missed")

    # Five tasks waiting for one CPU, a table of 2 slots: starts refused
    # for room are lost samples, and the listing says so.
    st = steps["runq-full"]
    miss = missed_of(listings(st).get("full", []), "rqf")
    hdr = " ".join(nodes(st).get("rqf", [([], [])])[0][1])
    full = re.search(r"table_full (\d+)", hdr)
    r.check(full and int(full.group(1)) > 0, "run-queue table of 2 slots, 5 waiting tasks: table_full > 0", hdr)
    # The trace keeps running between the two reads: the node first.
    nmiss = re.search(r"missed (\d+) \(", hdr)
    r.check(full and nmiss and int(nmiss.group(1)) == int(full.group(1)),
            "run-queue: every start refused for room is in the node's missed", hdr)
    r.check(full and miss is not None and miss >= int(full.group(1)),
            "run-queue: ... and in the listing's missed, read after it",
            "missed %s, %s" % (miss, hdr))

    check_runq_whole(r, steps["runq-whole"])

    # Calls made from inside kstats' handlers: not timed, counted missed.
    # Other callers of ktime_get_mono_fast_ns add tens to hundreds of
    # samples per step (more on a loaded host); timing the nested calls
    # would add two per outer call, 2 x NESTED_CALLS.
    st = steps["nested"]
    ls, nd = listings(st), nodes(st)
    outers = nested_outers(series)
    refused = [x for x in ctls(st) if x[0] == "trace k start ktime_get_mono_fast_ns"]
    r.check(refused and refused[0][2] == "Invalid argument",
            "nested: ktime_get_mono_fast_ns (notrace, no ftrace site) refused with EINVAL, "
            "so no trace of kstats' own runs inside its handlers", str(refused))
    ks = [total(x[0]) for x in nd.get("k", [])]
    ms = [missed_of(ls.get(n, []), "k") for n in ["idle"] + ["after-" + o for o in outers]]
    if not refused or refused[0][1] == "0":
        r.check(len(ks) == len(ms) and None not in ms, "nested: listings and nodes read",
                "%s %s" % (ks, ms))
    if len(ks) == len(ms) and None not in ms:
        for i, outer in enumerate(outers):
            ds, dm = ks[i + 1] - ks[i], ms[i + 1] - ms[i]
            r.check(ds < NESTED_CALLS,
                    "nested: calls from a %s trace's handlers are not timed" % outer,
                    "%d samples for %d outer calls (idle second: %d)" % (ds, NESTED_CALLS, ks[0]))
            r.check(dm >= 2 * NESTED_CALLS,
                    "nested: calls from a %s trace's handlers count as missed" % outer,
                    "missed +%d for %d outer calls" % (dm, NESTED_CALLS))

    for meth in function_methods(series) + ["kprobe"]:
        st = steps["gone-" + meth]
        nd, ls = nodes(st), listings(st)
        addrs = [l for l in st if l.startswith("@@ADDR")]
        r.check(all(x[1] == "0" for x in ctls(st)), "gone %s: trace and remove accepted" % meth)
        r.check(total(nd.get("gn", [([], [])])[0][0]) == 3,
                "gone %s: 3 calls counted; after the module is reloaded, 5 calls add nothing" % meth,
                "%s %s" % (nd.get("gn"), addrs))
        r.check(any(l.startswith("gn ") and l.endswith(" gone") for l in ls.get("gone", [])),
                "gone %s: listing says gone" % meth)

    st = steps["contention"]
    nd, ls = nodes(st), listings(st).get("contention", [])
    # The run-queue trace beside them: the ends of interrupts that wake
    # ksoftirqd or (PREEMPT_RT) ktimers, back at task level over another
    # pair's handler, are not "nested" (16 to 46 of them were on -rt).
    hdr = " ".join(nd["crq"][0][1]) if "crq" in nd else ""
    m = re.search(r"nested (\d+)", hdr)
    r.check(m is not None and int(m.group(1)) == 0 and missed_of(ls, "crq") == 0,
            "run-queue trace beside the two pairs: nothing missed, nested %s == 0"
            % (m.group(1) if m else "?"), hdr)
    for name, what in (("ct", "sys_enter/sys_exit pair"), ("ck", "kprobe pair getppid/__task_pid_nr_ns")):
        hdr = " ".join(nd[name][0][1]) if name in nd else ""
        m = re.search(r"# samples (\d+)", hdr)
        samples = int(m.group(1)) if m else 0
        m = re.search(r"nested (\d+)", hdr)
        nested = int(m.group(1)) if m else -1
        miss = missed_of(ls, name)
        r.check(samples >= 6 * CONTENTION_CALLS and miss is not None and
                miss * 1000 <= samples and nested == 0,
                "%s, 6 x %d getppid() on 2 vCPUs: every call a sample (%d >= %d), "
                "missed %s <= 0.1%%, nested %d == 0"
                % (what, CONTENTION_CALLS, samples, 6 * CONTENTION_CALLS, miss, nested))

    st = steps["memory"]
    # A kretprobe's pool, as the listing counts it, against what vmalloc
    # holds for it (objpool, 6.7+): the two traces differ in maxactive
    # only, so their memory differs by what their pools' areas differ.
    vm = dict((k, int(v)) for k, v in re.findall(r"@@VM (\w+) (\d+)", "\n".join(st)))
    mem = {n: listing_field(listings(st).get(n, []), n, "memory") for n in ("ma", "mb")}
    if at_least(series, "6.7"):
        got = None
        if None not in mem.values() and len(vm) == 4:
            got = int(mem["ma"]) - int(mem["mb"])
        want = (vm.get("a1", 0) - vm.get("a0", 0)) - (vm.get("b1", 0) - vm.get("b0", 0))
        r.check(got is not None and want > 0 and got == want,
                "kretprobe pool: maxactive 1024 holds %s B more than 64 in the listing, "
                "%d B more in /proc/vmallocinfo" % (got, want), "%s %s" % (mem, vm))
    ls = listings(st).get("memory", [])
    ncpus = int(re.search(r"@@NCPUS (\d+)", log).group(1))
    # mf's default method is fprobe where there is one, which has no
    # instance pool (maxactive 0) from 6.14 on.
    mf_pool = "fprobe" not in function_methods(series) or fprobe_has_pool(series)
    for name, fb, maxactive in (("mf", 3, 64 if mf_pool else 0), ("mk", 5, 4096)):
        mem = listing_field(ls, name, "memory")
        nslots = ((64 - fb + 1) << fb) + 1
        floor = 2 * nslots * 16 * ncpus
        if name == "mk":
            floor += 2 * maxactive * 16     # the start table
        r.check(listing_field(ls, name, "maxactive") == str(maxactive),
                "%s: maxactive %d (default: 2 per possible CPU, at least 64; 0: no pool)"
                % (name, maxactive), str(ls))
        r.check(mem is not None and int(mem) >= floor,
                "%s: listing shows memory >= its histograms%s (%d B)" %
                (name, " and start table" if name == "mk" else "", floor), str(mem))
    return r


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3])
        return 0
    return report("engine", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
