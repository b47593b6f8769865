#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Runs inside a guest with python3 (the Debian rootfs guest), kstats.ko
and test/modules/kstats_test_target.ko loaded, and the package on
PYTHONPATH. A real user script: it traces kst_target_delay(), whose calls
spin a known time, inside a `with` block, checks the summary against the
known duration and against what the caller measured around the same calls
(the target module times each call itself, on kstats' clock), leaves the
block and checks that _control lists nothing. Then it raises lockdown,
as Secure Boot does: under integrity the same API, through /dev/kstats
only, counts exactly the target's calls; under confidentiality its trace
is refused, saying why. Prints "@@OK what" or "@@FAIL what: detail" per
check, "@@LOCKDOWN mode" after each raise, "@@LOCKED N" after the
lockdown part's N checks and "@@END N" (checked by
test/python_guest.py)."""
import errno
import os
import subprocess
import sys

import kstats

# The target's device when it has one: lockdown refuses its debugfs file
# (a write bit), reads included.
T = "/dev/kstats_test_target"
if not os.path.exists(T):
    T = "/sys/kernel/debug/kstats_test_target"
SECURITYFS = "/sys/kernel/security"
LOCKDOWN = SECURITYFS + "/lockdown"
N2 = 13                   # the calls after a reset, under lockdown
US, N = 200, 100          # N calls of a 200 us spin
n_checks = 0
n_failed = 0


def check(ok, what, detail=""):
    global n_checks, n_failed
    n_checks += 1
    n_failed += not ok
    print(f"@@OK {what}" if ok else f"@@FAIL {what}: {detail}", flush=True)


def tgt(cmd):
    fd = os.open(T, os.O_WRONLY)
    try:
        os.write(fd, cmd.encode())
    finally:
        os.close(fd)


def measured():
    """(n, min_ns, max_ns) of the calls the target timed since "clear"."""
    with open(T) as f:
        w = f.read().split()
    i = w.index("measured")
    return int(w[i + 1]), int(w[i + 3]), int(w[i + 5])


def control_text():
    with open(os.path.join(kstats.root(), "_control")) as f:
        return f.read()


def raise_lockdown(mode):
    """Raise lockdown to @mode (it never goes down again); the file's text."""
    with open(LOCKDOWN, "w") as f:
        f.write(mode)
    with open(LOCKDOWN) as f:
        text = f.read().strip()
    print(f"@@LOCKDOWN {text}", flush=True)
    return text


def refused(what, err, prefix, **kw):
    """kstats.trace(**@kw) through the device: KstatsError @err, and
    kstats' dmesg line starting with @prefix."""
    try:
        kstats.trace(**kw)
        check(False, what, "accepted")
    except kstats.KstatsError as e:
        check(e.errno == err and e.filename == kstats.device()
              and (e.reason or "").startswith(prefix),
              what, f"{e.errno} {e.filename} {e.reason!r}")


def locked_down():
    """The API on a Secure Boot machine: lockdown raised after the
    unsigned modules loaded; every command through /dev/kstats. Returns
    the number of checks it made."""
    first = n_checks
    # Debian's init does not mount securityfs.
    if not os.path.exists(LOCKDOWN):
        subprocess.run(["mount", "-t", "securityfs", "securityfs", SECURITYFS], check=True)
    text = raise_lockdown("integrity")
    check(text == "none [integrity] confidentiality", "lockdown: integrity raised", text)
    try:
        os.close(os.open(os.path.join(kstats.root(), "_control"), os.O_WRONLY))
        check(False, "integrity: _control refused for writing", "opened")
    except PermissionError:
        check(True, "integrity: _control refused for writing (PermissionError)")
    check(kstats.device() == "/dev/kstats" and os.path.exists(kstats.device())
          and T.startswith("/dev/"), "integrity: the API and tgt() use the devices",
          f"{kstats.device()} {T}")
    tgt("clear")
    with kstats.trace("ldpy", start="kst_target_delay") as t:
        names = [d["name"] for d in kstats.traces()]
        check(names == ["ldpy"], "integrity: traces() lists the trace (read from the device)",
              str(names))
        tgt(f"delay {US} {N}")
        s = t.summary()
        check(s.samples == N and s.missed == 0 and measured()[0] == N,
              "integrity: samples == the N calls, exactly", f"{s.samples} {measured()}")
        t.stop()
        tgt(f"delay {US} 5")
        s = t.summary()
        check(s.samples == N and s.state == "stopped", "integrity: stop(): no new samples",
              str(s))
        t.start()
        t.reset()
        s = t.summary()
        check(s.samples == 0 and s.min is None and s.state == "active",
              "integrity: start(), reset(): active and empty", str(s))
        tgt(f"delay {US} {N2}")
        check(t.summary().samples == N2, "integrity: then exactly the N2 new calls",
              str(t.summary().samples))
        # The kernel's refusals keep their errno and reason through the device.
        refused("integrity: unknown function: ENOENT through the device", errno.ENOENT,
                "kstats: trace ldnx:", name="ldnx", start="kst_no_such_function")
        refused("integrity: a bad key part: EINVAL through the device", errno.EINVAL,
                "kstats: trace ldkey: key 'frob'", name="ldkey", start="kst_target_delay",
                key="frob")
    names = [d["name"] for d in kstats.traces()]
    check(names == [], "integrity: leaving the block removed the trace", str(names))
    # An older module, without a device, is refused and told why.
    os.environ["KSTATS_DEV"] = "/dev/kstats-none"
    try:
        kstats.trace("ldold", start="kst_target_delay")
        check(False, "integrity, no device: _control refused", "accepted")
    except kstats.KstatsError as e:
        check(e.errno == errno.EPERM and "locked down (integrity)" in e.strerror
              and "no /dev/kstats-none" in e.strerror,
              "integrity, no device: EPERM, naming lockdown and the missing device", str(e))
    finally:
        del os.environ["KSTATS_DEV"]
    text = raise_lockdown("confidentiality")
    check(text == "none integrity [confidentiality]", "lockdown: confidentiality raised", text)
    try:
        kstats.trace("ldconf", start="kst_target_delay")
        check(False, "confidentiality: trace refused", "accepted")
    except kstats.KstatsError as e:
        check(e.errno == errno.EPERM and e.filename == kstats.device()
              and "locked down (confidentiality)" in e.strerror,
              "confidentiality: trace refused, EPERM naming lockdown", str(e))
    names = [d["name"] for d in kstats.traces()]
    check(names == [], "confidentiality: nothing listed", str(names))
    return n_checks - first


def main():
    check(control_text() == "", "_control lists nothing before", repr(control_text()))
    tgt("clear")
    with kstats.trace("pydelay", start="kst_target_delay") as t:
        check([d["name"] for d in kstats.traces()] == ["pydelay"], "_control lists the trace",
              repr(control_text()))
        tgt(f"delay {US} {N}")
        s = t.summary()
        mn, m_min, m_max = measured()
        fb = s.frac_bits
        # A sample may exceed the caller's figure by one slot of rounding.
        bound = kstats.slot_top(kstats.slot_of(m_max, fb), fb)
        check(mn == N, "the target made N calls", f"{mn}")
        check(s.samples == N, "summary: samples == calls", f"{s.samples} != {N}")
        check(s.missed == 0, "summary: missed 0", str(s.missed))
        check(s.min is not None and s.min >= US * 1000, "summary: min >= the spin", f"{s.min}")
        check(s.max is not None and s.max <= bound,
              "summary: max <= what the caller measured (+ one slot)", f"{s.max} > {bound}")
        check(s.mean is not None and US * 1000 <= s.mean <= s.max, "summary: mean in [spin, max]",
              f"{s.mean}")
        for k, p in s.percentiles.items():
            check(p is not None and s.min <= p.value <= s.max
                  and kstats.slot_base(p.slot, fb) <= p.value <= kstats.slot_top(p.slot, fb),
                  f"summary: {k} in its slot and in [min, max]", str(p))
        p75 = t.percentile(75)
        check(p75 is not None and s.min <= p75.value <= s.max, "percentile(75) computed in [min, max]",
              str(p75))
        h = t.histogram()
        check(sum(x.count for x in h) == N, "histogram: counts sum to the calls",
              str([x.count for x in h]))
        check(all(x.high >= US * 1000 and x.low <= bound for x in h),
              "histogram: every slot within [spin, measured max]", str(h))
        check(sum(sum(x.count for x in t.histogram(c)) for c in range(os.cpu_count() or 1)) == N,
              "histogram per CPU adds up", "")
        snap = t.snapshot()
        check(snap.summary.samples == N, "snapshot: the first interval holds every call",
              str(snap.summary.samples))
        tgt(f"delay {US} 7")
        check(t.snapshot().summary.samples == 7, "snapshot: the next holds only the 7 new calls", "")
        check(t.summary().samples == N + 7, "the node still holds all calls", "")
        t.stop()
        tgt(f"delay {US} 3")
        check(t.summary().samples == N + 7 and t.summary().state == "stopped",
              "stop: no new samples", str(t.summary()))
        t.start()
        t.reset()
        check(t.summary().samples == 0 and t.summary().min is None, "reset clears", "")
        # Refusals: the kernel's errno and dmesg line, and Python's own.
        for kw, err, reason in (({"start": "kst_target_delay"}, errno.EEXIST,
                                 "kstats: trace pydelay: a trace of that name exists (remove pydelay first)"),):
            try:
                kstats.trace("pydelay", **kw)
                check(False, "duplicate trace refused", "no error")
            except kstats.KstatsError as e:
                check(e.errno == err and e.line == "trace pydelay bits 3 start kst_target_delay"
                      and e.reason == reason and isinstance(e, OSError),
                      "duplicate trace: EEXIST, the line and the dmesg reason",
                      f"{e.errno} {e.line!r} {e.reason!r}")
        try:
            kstats.trace("nx", start="kst_no_such_function")
            check(False, "unknown function refused", "no error")
        except kstats.KstatsError as e:
            check(e.errno == errno.ENOENT and (e.reason or "").startswith("kstats: trace nx:"),
                  "unknown function: ENOENT and its dmesg reason", f"{e.errno} {e.reason!r}")
        before = control_text()
        try:
            kstats.trace("kw", start="kst_target_delay", filter="pid==1")
            check(False, "unknown keyword refused", "no error")
        except kstats.KstatsError as e:
            check(e.errno == errno.EINVAL and control_text() == before,
                  "unknown keyword: EINVAL in Python, nothing written", f"{e.errno}")
    # A keyed trace: rows by comm and stack, through Metric.keys().
    with kstats.trace("pykey", start="kst_target_delay", key=["comm", "kstack:4"],
                      keys=8, slowest=2) as t:
        tgt(f"delay {US} 5")
        rows = t.keys()
        me = [r for r in rows if r.get("comm") == "python3"]
        check(len(me) == 1 and me[0]["count"] == 5 and me[0]["min"] >= US * 1000,
              "keys(): python3's row holds its 5 calls, none below the spin", str(rows))
        check(me and me[0]["kstack"] and me[0]["kstack"][0].startswith("kst_target_delay+"),
              "keys(): the row's stack starts at the traced function", str(me))
        line = [d for d in kstats.traces() if d["name"] == "pykey"]
        check(line and line[0].get("key") == "comm,kstack:4" and line[0].get("keys") == 8
              and line[0].get("slowest") == 2 and line[0].get("gap") == "on",
              "traces(): key, keys and slowest listed (ints), gap on by default",
              str(line))
        check("KEY-pykey" not in [m.name for m in kstats.metrics()],
              "metrics() leaves out KEY-NAME", "")
    # An off-CPU trace: the target's waits of this process, keyed by its
    # stack and its waker's, and the same samples in BLOCKED-NAME.
    with kstats.trace("pyoff", offcpu=True, state="D", pid=os.getpid(),
                      key=["kstack:8", "waker-kstack:8", "waker-comm"]) as t:
        tgt("offcpu_thread 2000 4")
        rows = [r for r in t.keys()
                if any(f.startswith("kst_wait_thread+") for f in r["kstack"])]
        check(len(rows) == 1 and rows[0]["count"] == 4 and rows[0]["min"] >= 2000000
              and rows[0]["waker-comm"] == "kst_waker"
              and any(f.startswith("kst_wake_thread+") for f in rows[0]["waker-kstack"]),
              "offcpu: one row of the 4 waits, each >= 2 ms, woken by kst_waker", str(rows))
        n = t.summary().samples
        check(n >= 4 and kstats.metric("BLOCKED-pyoff").summary().samples == n
              and kstats.metric("RUNQ-pyoff").summary().samples == n,
              "offcpu: NAME, BLOCKED-NAME and RUNQ-NAME hold the same samples", str(n))
        line = [d for d in kstats.traces() if d["name"] == "pyoff"]
        check(line and line[0].get("kind") == "offcpu" and line[0].get("state") == "D",
              "traces(): kind offcpu, state D", str(line))
    try:
        kstats.trace("pyoff2", offcpu=True, start="kst_target_delay")
        check(False, "offcpu with start: refused", "accepted")
    except kstats.KstatsError as e:
        check(e.errno == errno.EINVAL and "pyoff2" not in control_text(),
              "offcpu with start: EINVAL, nothing left", f"{e.errno}")
    # A comm with a blank reaches _control escaped, as KEY-NAME prints it.
    # A glob, on every kernel (fprobe, or a kretprobe each on 6.1): the
    # target's six kst_target_* functions with an ftrace site; delay 3
    # calls, null 7.
    with kstats.trace("pyglob", start="kst_target_*") as t:
        listed = [d for d in kstats.traces() if d["name"] == "pyglob"]
        check(listed and listed[0].get("functions") == 6,
              "a glob: its 6 kst_target_* functions", repr(listed))
        tgt("delay 0 3")
        tgt("bench 7")
        check(t.summary().samples == 10, "a glob: 3 + 7 calls", str(t.summary().samples))
    # Rows by value: kst_ret_long(i, 1000 i) fails with -11 for i % 4 == 0,
    # -2 for i % 4 == 1; keys() gives ret as an int, a log2 row as a pair.
    with kstats.trace("pyret", start="kst_ret_long", key="ret", where="ret<0") as t:
        tgt("ret 40")
        got = sorted((r["ret"], r["count"]) for r in t.keys())
        check(got == [(-11, 10), (-2, 10)], "key ret, where ret<0: a row per errno", repr(got))
    with kstats.trace("pyobj", start="kst_obj_begin", end="kst_obj_end", match="arg0",
                      repeat="keep", key="arg0") as t:
        tgt("objpair 1")
        listed = [d for d in kstats.traces() if d["name"] == "pyobj"]
        check(listed and listed[0].get("repeat") == "keep" and len(t.keys()) == 1,
              "match, repeat keep, key arg0: listed, one row", repr(listed))
    # gap=False: "gap off", no GAP-NAME; the samples are all there.
    with kstats.trace("pynogap", start="kst_target_delay", gap=False) as t:
        tgt("delay 0 5")
        listed = [d for d in kstats.traces() if d["name"] == "pynogap"]
        check(listed and listed[0].get("gap") == "off" and t.summary().samples == 5
              and not os.path.exists(os.path.join(kstats.root(), "GAP-pynogap")),
              "gap=False: listed gap off, 5 samples, no GAP-NAME", repr(listed))
    with kstats.trace("pycomm", start="kst_target_delay", comm="py prog"):
        check(" comm py\\040prog" in control_text(), "comm 'py prog' listed as py\\040prog",
              control_text())
    # A script's trace does not outlive it, unless it asks (keep=True).
    code = ("import kstats; kstats.trace('pyleft', start='kst_target_delay'); "
            "kstats.trace('pykept', start='kst_target_delay', keep=True)")
    subprocess.run([sys.executable, "-c", code], check=True)
    names = [d["name"] for d in kstats.traces()]
    check(names == ["pykept"], "a script's trace is removed at its exit, unless keep=True",
          str(names))
    with open(os.path.join(kstats.root(), "_control"), "w") as f:
        f.write("remove pykept\n")
    # An exception inside the block still removes the trace.
    try:
        with kstats.trace("pyexc", start="kst_target_delay"):
            tgt(f"delay {US} 2")
            raise RuntimeError("inside the block")
    except RuntimeError:
        pass
    check(control_text() == "", "_control lists nothing after the blocks", repr(control_text()))
    check(not os.path.exists(os.path.join(kstats.root(), "pydelay"))
          and not os.path.exists(os.path.join(kstats.root(), "GAP-pyexc")),
          "the trace's nodes are gone", "")
    # Last: lockdown cannot be lowered again. @@LOCKED only when it ran through.
    print(f"@@LOCKED {locked_down()}", flush=True)
    print(f"@@END {n_checks}", flush=True)
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())
