#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each lost section counted once, and GAP-NAME where a section is left
out, in a stock-kernel QEMU guest (issue 37, items 3, 5 and 6).

  counts_test.py gen GUEST_SCRIPT SERIES [ARCH]   write the busybox script
  counts_test.py check LOGFILE                     assert on the console log

kstats_test_target makes each case: objmiss calls a matched pair's end
from inside a kprobe handler, where kprobes misses kstats' end probe;
objnt runs a matched pair on two functions probed by int3; gapif,
retmigrate and pingpong make GAPs of known least length. Counts are
exact; each GAP is at least what the target spun between the two
points, on kstats' clock, and at most what the caller measured.
"""
import re
import sys

from basic_test import Results, parse, ref_slot, report, summary
from trace_test import FB, ctls, measured

N_MISS = 20		# objmiss: starts; every even one's end is missed
N_INT3 = 20		# objnt: sections
GAPIF_US, GAPIF_N = 1000, 20
N_MIGRATE = 20
PP_US, PP_N = 2000, 20


def gen(path, series, arch="x86_64"):
    script = """set -u
D=/sys/kernel/debug/kstats
C=$D/_control
T=/sys/kernel/debug/kstats_test_target
ctl() { (echo "$1" > $C) 2>/tmp/err; echo "@@CTL rc=$? $(sed 's/.*: //' /tmp/err) :: $1"; }
tgt() { (echo "$1" > $T) 2>/tmp/err; echo "@@TGT rc=$? $(sed 's/.*: //' /tmp/err) :: $1"; }
meas() { echo "@@MEAS $1 $(cat $T)"; }
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
step() { echo "@@STEP $1"; }
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
step replaced
# Every even end is missed by kprobes; its start is replaced by the next.
ctl "trace mm start kst_obj_begin end kst_obj_end match arg0"
tgt "objmiss %(miss)d"
show mm
ctl "remove mm"
step expired
# A start whose end was missed and one never ended, both older than
# expire, give way to a third in a table of two slots.
ctl "trace me start kst_obj_begin end kst_obj_end match arg0 maxactive 1 expire 1000000"
tgt "objmiss 1"
tgt "objbegin 2"
sleep 1
tgt "objpair 3"
show me
ctl "remove me"
step int3
# A matched pair with a task filter, on two functions probed by int3.
ctl "trace nt start kst_obj_begin_nt end kst_obj_end_nt match arg0 comm kstN"
/modules/kstask kstN write $T "objnt %(int3)d"
show nt
ctl "remove nt"
step gapif
# Every other section left out by if: GAP spans it.
ctl "trace gi start kst_ret_long end kst_section_end if arg0:u32&1"
tgt clear
tgt "gapif %(gus)d %(gn)d"
meas gapif
show gi
show GAP-gi
ctl "remove gi"
step retmigrate
# if ret on a function that returns on another CPU than it entered on.
ctl "trace rm start kst_ret_migrate if ret>0"
tgt "retmigrate %(mig)d"
show rm
show GAP-rm
ctl "remove rm"
step pingpong
# Two traced kthreads taking turns on one CPU, each running US at a turn.
ctl "trace pp offcpu comm kst_pp"
tgt "pingpong %(pus)d %(pn)d"
show pp
show GAP-pp
ctl "remove pp"
step done
""" % {"miss": N_MISS, "int3": N_INT3, "gus": GAPIF_US, "gn": GAPIF_N,
       "mig": N_MIGRATE, "pus": PP_US, "pn": PP_N}
    with open(path, "w") as f:
        f.write(script)


def shown(step_lines):
    """name -> (summary dict, CPUS slot lines as (slot, count), '# trace' line)."""
    res, cur, name = {}, None, None
    for l in step_lines:
        if l.startswith("@@BEGIN "):
            name, cur = l.split()[1], []
        elif l.startswith("@@END ") and cur is not None:
            hdr = [x for x in cur if x.startswith("#")]
            cpus = [(int(x.split()[1]), int(x.split()[5])) for x in cur
                    if re.match(r"slot \d+ +CPUS ", x)]
            tr = [x for x in hdr if x.startswith("# trace ")]
            res[name] = (summary(hdr)[0], cpus, tr[0] if tr else "")
            cur = None
        elif cur is not None:
            cur.append(l)
    return res


def causes(trace_line):
    """The '# trace' line's missed and its causes, as ints."""
    m = re.search(r" missed (\d+) \((.*?)\) no_start (\d+)", trace_line)
    if not m:
        return {}
    f = m.group(2).split()
    d = {k: int(v) for k, v in zip(f[::2], f[1::2])}
    d["missed"], d["no_start"] = int(m.group(1)), int(m.group(3))
    return d


def num(d, key):
    try:
        return int(d.get(key, "-1"))
    except ValueError:
        return -1


def check_step_ok(r, name, st):
    bad = [c for c in ctls(st) if c[1] != "0" and not c[0].startswith("remove")]
    r.check(not bad, "%s: every trace made" % name, str(bad))
    tg = [l for l in st if l.startswith("@@TGT ") and not l.startswith("@@TGT rc=0 ")]
    r.check(not tg, "%s: every target command ran" % name, str(tg))


def check(logpath):
    with open(logpath, errors="replace") as f:
        log = f.read()
    lines, steps = parse(log)
    r = Results()
    r.check("done" in steps, "the guest script ran to its end")

    st = steps.get("replaced", [])
    check_step_ok(r, "replaced", st)
    s, _, tr = shown(st).get("mm", ({}, [], ""))
    c = causes(tr)
    half = N_MISS // 2
    r.check(num(s, "samples") == half,
            "replaced: %d starts, every odd end paired: %d samples" % (N_MISS, half), str(s))
    r.check(c.get("missed") == half and num(s, "missed") == half,
            "replaced: the %d sections whose end kprobes missed count once each: missed %d"
            % (half, half), tr)
    r.check(c.get("replaced") == half and c.get("probe") == 0,
            "replaced: counted where their start goes (replaced %d), not at the missed "
            "end as well (probe 0)" % half, tr)
    r.check(num(s, "samples") + c.get("missed", -1) == N_MISS,
            "replaced: samples + missed is every section that began (%d)" % N_MISS, tr)

    st = steps.get("expired", [])
    check_step_ok(r, "expired", st)
    s, _, tr = shown(st).get("me", ({}, [], ""))
    c = causes(tr)
    r.check(num(s, "samples") == 1, "expired: the third section is a sample", str(s))
    r.check(c.get("missed") == 2 and c.get("expired") == 2 and c.get("probe") == 0,
            "expired: the start whose end was missed and the one never ended count once "
            "each, when they expire: missed 2 (expired 2, probe 0)", tr)

    # On amd64 kstats probes only functions with an ftrace site, as
    # kprobe_events does (issue 37.1), so no kprobe of its own is an int3
    # there: the pair is refused. Where it is taken (arm64, whose kprobes
    # are all BRK), every section of the task must be a sample.
    st = steps.get("int3", [])
    made = [c for c in ctls(st) if c[0].startswith("trace nt ")]
    if made and made[0][2] == "Invalid argument":
        r.check(any("kst_obj_begin_nt has no ftrace site" in l for l in st),
                "int3: a matched pair on functions without an ftrace site is refused (EINVAL), "
                "dmesg names the function", str(made))
    else:
        check_step_ok(r, "int3", st)
        s, _, tr = shown(st).get("nt", ({}, [], ""))
        c = causes(tr)
        r.check(num(s, "samples") == N_INT3 and c.get("missed") == 0,
                "int3: a matched pair with a pid filter on functions probed by int3: "
                "all %d sections of the task are samples, missed 0" % N_INT3, "%s %s" % (s, tr))

    st = steps.get("gapif", [])
    check_step_ok(r, "gapif", st)
    sh, ms = shown(st), measured(st)
    s = sh.get("gi", ({},))[0]
    g, gcpus, _ = sh.get("GAP-gi", ({}, [], ""))
    half = GAPIF_N // 2
    r.check(num(s, "samples") == half, "gapif: if admits %d of %d sections" % (half, GAPIF_N),
            str(s))
    r.check(num(g, "samples") == half - 1,
            "gapif: a GAP between each two admitted sections, none from a left-out end: %d"
            % (half - 1), str(g))
    low = 2 * GAPIF_US * 1000
    r.check(num(g, "min") >= low,
            "gapif: each GAP spans the left-out section: at least two spins of %d us (%d ns)"
            % (GAPIF_US, low), str(g))
    m = ms.get("gapif")
    r.check(m is not None and m[0] == half - 1, "gapif: the caller timed %d spans" % (half - 1),
            str(m))
    high = ref_slot(FB, m[2]) + 1 if m else -1
    r.check(gcpus and all(sl <= high for sl, _ in gcpus),
            "gapif: no GAP above the caller's longest span %s ns (slot %d + 1)"
            % (m and m[2], high - 1), str(gcpus))

    st = steps.get("retmigrate", [])
    check_step_ok(r, "retmigrate", st)
    sh = shown(st)
    s, g = sh.get("rm", ({},))[0], sh.get("GAP-rm", ({},))[0]
    r.check(num(s, "samples") == N_MIGRATE, "retmigrate: every call admitted", str(s))
    r.check(num(g, "samples") == N_MIGRATE - 1,
            "retmigrate: a GAP before each call but the first, though each returns on "
            "another CPU: %d" % (N_MIGRATE - 1), str(g))

    st = steps.get("pingpong", [])
    check_step_ok(r, "pingpong", st)
    sh = shown(st)
    s, g = sh.get("pp", ({},))[0], sh.get("GAP-pp", ({},))[0]
    r.check(num(s, "samples") >= 2 * PP_N - 2, "pingpong: the turns' waits are samples",
            str(s))
    r.check(num(g, "samples") >= PP_N,
            "pingpong: a GAP at each sleep after a wait ended on the CPU", str(g))
    r.check(num(g, "min") >= PP_US * 1000,
            "pingpong: each GAP is how long a task ran between sleeps: at least %d us"
            % PP_US, str(g))
    return r


def main():
    if sys.argv[1] == "gen":
        gen(*sys.argv[2:5])
        return 0
    return report("counts", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
