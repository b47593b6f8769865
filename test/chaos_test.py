#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Concurrency chaos and a soak on the debug test kernel (KASAN, lockdep,
kmemleak, UBSAN), in the Debian rootfs guest (python3 for the Python API
loop), 4 vCPUs. One boot: the chaos run first, then the soak.

Chaos, for a fixed time, all at once: writers that trace, remove, reset,
stop and start the same and different names with every method; readers
of every node, interval file and KEY-NAME; holders that keep a trace's
files open across its remove and read them after it (EIO, as the README
says of every debugfs file); kstats_test_target.ko loaded and unloaded
in a loop while traced; `kstats run` and the Python API in a loop; cpu1..3
taken offline and online; and control traces that count known calls
through all of it (samples + missed must equal the calls).

Soak: traces of every kind stay attached for SOAK seconds of mixed load
(the same actors, but the target stays loaded). Every 30 s all actors
pause and the guest samples memory: what kstats itself holds (its
[kstats] vmalloc areas, its slab objects by allocation site, the
listing's memory) must stay exactly flat after the warm-up; the system's
Slab, VmallocUsed and Percpu must show no growth. Control traces count
known calls, and their interval files, read every 10 s, sum exactly to
their nodes.

After each phase everything is removed: the kprobes list,
enabled_functions and kstats' debugfs tree must be as they were; at the
end kstats unloads and kmemleak finds nothing.

  chaos_test.py run LOGDIR [CHAOS_S SOAK_S SEED]   build, boot, check;
                        prints "chaos: N passed, M failed"
  chaos_test.py gen GUEST_SCRIPT CHAOS_S SOAK_S SEED
  chaos_test.py check CONSOLE CHAOS_S SOAK_S
  chaos_test.py guest CHAOS_S SOAK_S SEED          (inside the guest)
"""
import errno
import json
import os
import random
import re
import subprocess
import sys
import time
import traceback
import zlib

D = "/sys/kernel/debug/kstats"
C = D + "/_control"
T = "/sys/kernel/debug/kstats_test_target"
KS = "/ks"
QUIESCE = "/tmp/quiesce"
CPUS = "/sys/devices/system/cpu"

CHAOS_S = 150
SOAK_S = 180
# The phase lengths MIN_OPS' figures were measured for: the least counts
# scale from these, not from CHAOS_S and SOAK_S.
MIN_OPS_CHAOS_S = 180
MIN_OPS_SOAK_S = 360
SEED = 27
# Soak memory samples: one every MEM_EVERY s; the first WARM are warm-up.
MEM_EVERY = 30
WARM = 2
# Control-trace interval reads in the soak, every INTV_EVERY s.
INTV_EVERY = 10

# ---------------------------------------------------------------- guest side


def en(e):
    return errno.errorcode.get(e, str(e))


def wr(path, text):
    """'ok', 'open:ERRNO' when the open failed, else the write's ERRNO."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return "open:" + en(e.errno)
    try:
        os.write(fd, text.encode())
        return "ok"
    except OSError as e:
        return en(e.errno)
    finally:
        os.close(fd)


def rd(path, chunk=4096):
    """('ok', text), ('open:ERRNO', None) or (ERRNO, None), read in
    chunks, so that a seq_file is read on from where it stopped."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        return "open:" + en(e.errno), None
    try:
        parts = []
        while True:
            b = os.read(fd, chunk)
            if not b:
                break
            parts.append(b)
        return "ok", b"".join(parts).decode("ascii", "replace")
    except OSError as e:
        return en(e.errno), None
    finally:
        os.close(fd)


def ctl(line):
    return wr(C, line + "\n")


def field(text, key):
    m = re.search(r"^# %s (\S+)$" % re.escape(key), text, re.M)
    return m.group(1) if m else None


T0 = time.monotonic()


def say(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()


def step(name):
    say("@@STEP %s t=%d" % (name, time.monotonic() - T0))


class Worker:
    """One actor: counts each operation by its result, and every result
    that is not among those allowed as a failure."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = random.Random(seed * 1000003 + zlib.crc32(name.encode()))
        self.ops = {}
        self.nbad = 0
        self.bad = []
        self.extra = {}
        self.last = None
        self.iters = 0
        self.longest = 0.0

    def note(self, what, result, allowed):
        k = "%s=%s" % (what, result)
        self.ops[k] = self.ops.get(k, 0) + 1
        if result not in allowed:
            self.fail("%s gave %s, allowed %s" % (what, result, "/".join(sorted(map(str, allowed)))))

    def fail(self, what):
        self.nbad += 1
        if len(self.bad) < 8:
            self.bad.append(what)

    def pause_point(self):
        """Called between iterations: counts them and the longest one,
        and in the soak waits here while the sampler holds QUIESCE."""
        now = time.monotonic()
        if self.last is not None:
            self.iters += 1
            self.longest = max(self.longest, now - self.last)
            self.extra["iterations"] = self.iters
            self.extra["longest_s"] = round(self.longest, 1)
        if os.path.exists(QUIESCE):
            ack = "/tmp/ack-" + self.name
            open(ack, "w").close()
            while os.path.exists(QUIESCE):
                time.sleep(0.1)
            os.unlink(ack)
        self.last = time.monotonic()


def spawn(name, seed, fn, *args):
    pid = os.fork()
    if pid:
        return pid
    w = Worker(name, seed)
    try:
        fn(w, *args)
        w.pause_point()
    except BaseException:
        w.fail("exception: " + traceback.format_exc()[-600:].replace("\n", " | "))
    with open("/tmp/res-%s.json" % name, "w") as f:
        json.dump({"ops": w.ops, "nbad": w.nbad, "bad": w.bad, "extra": w.extra}, f)
    os._exit(0)


def join(pids):
    for name, pid in pids:
        os.waitpid(pid, 0)
        try:
            with open("/tmp/res-%s.json" % name) as f:
                res = json.load(f)
            os.unlink("/tmp/res-%s.json" % name)
        except OSError:
            res = {"ops": {}, "nbad": 1, "bad": ["no result file"], "extra": {}}
        say("@@WORKER %s %s" % (name, json.dumps(res, sort_keys=True)))


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode("ascii", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


# Trace lines of every method and kind, (id, line, on the target module).
# The target's functions vanish while it is unloaded: ENOENT then.
SPECS = [
    ("fn", "trace {n} start vfs_read", False),
    ("fnkey", "trace {n} start vfs_read key comm,kstack:6,ustack:6 keys 16 slowest 4", False),
    ("fnmod", "trace {n} start kst_target_delay", True),
    ("fprobe", "trace {n} start fentry:vfs_write key ret keys 8", False),
    ("kret", "trace {n} start kst_target_sleep method kretprobe key kstack:8,comm keys 16", True),
    ("kretv", "trace {n} start vfs_read method kretprobe maxactive 8", False),
    ("kpair", "trace {n} start kst_section_begin end kst_section_end key kstack,end-kstack keys 8 slowest 4", True),
    ("kpairv", "trace {n} start syscall:tgkill end syscall:rt_sigprocmask", False),
    ("tpair", "trace {n} start signal:signal_generate end signal:signal_deliver", False),
    ("runq", "trace {n} start sched:sched_wakeup end sched:sched_switch key comm,cpu keys 16", False),
    ("match", "trace {n} start workqueue:workqueue_queue_work end workqueue:workqueue_execute_start match arg2,arg0 key arg2 keys 8", False),
    ("matchmod", "trace {n} start kst_obj_begin end kst_obj_end match arg0 repeat keep expire 1000000000", True),
    ("list", "trace {n} start vfs_read,vfs_write,kst_target_delay", True),
    ("pattern", "trace {n} start kst_target_*", True),
    ("patternv", "trace {n} start vfs_rea* method kretprobe", False),
    ("ifret", "trace {n} start kst_ret_int if ret:s32<0 key ret:s32", True),
    ("offcpu", "trace {n} offcpu key kstack:4,ustack:4,waker-kstack:4,waker-ustack:4,waker-comm keys 16 slowest 4", False),
    ("offcpuD", "trace {n} offcpu state D tasks kernel min 1000 key comm", False),
]
# What drives the target's functions (each write: a few calls).
DRIVE = ["delay 20 3", "sleep 200 2", "section 20 3", "section_sleep 100 1",
         "objpair 1", "objs 20 1", "ret 8", "work 2", "offcpu_thread 200 1",
         "offcpu_timer 200 1", "recurse 3 10 1", "pair 12 10 2", "nest 10 10 1",
         "migrate 10 1", "bench 50", "end_only 2"]
# The soak's drive leaves out what its control traces count.
SOAK_DRIVE = [c for c in DRIVE if not c.startswith(("obj", "bench", "timed"))]


def parts(n, offcpu):
    """The nodes a trace NAME has (its KEY-NAME too: slowest defaults to 8)."""
    p = [n, "GAP-" + n, "KEY-" + n, "_interval/" + n, "_interval/GAP-" + n]
    if offcpu:
        p += ["BLOCKED-" + n, "RUNQ-" + n, "_interval/BLOCKED-" + n, "_interval/RUNQ-" + n]
    return p


def drive(w, cmds):
    """One command to the target, if it is loaded (it may be going)."""
    cmd = w.rng.choice(cmds)
    w.note("drive", wr(T, cmd), {"ok", "open:ENOENT", "EIO"})
    if cmd.startswith("migrate"):
        # kst_target_migrate() leaves the task on one CPU.
        os.sched_setaffinity(0, range(os.cpu_count()))


def user_load(w):
    """vfs_read/vfs_write, signals, forks and sleeps for the vmlinux traces."""
    for p in ("/proc/self/stat", "/proc/meminfo", "/etc/hostname"):
        try:
            with open(p) as f:
                f.read()
        except OSError:
            pass
    with open("/tmp/load-" + w.name, "w") as f:
        f.write("x" * 100)
    if w.rng.random() < 0.1:
        run(["/bin/true"])
    if w.rng.random() < 0.2:
        time.sleep(0.01)


def writer(w, end, shared, soak):
    """Traces, node writes and removes on shared names (another writer
    may have made or removed them: EEXIST, ENOENT, EIO allowed) and on
    its own name (exact: only the target's absence is allowed)."""
    own = w.name + "x"
    while time.monotonic() < end:
        w.pause_point()
        sid, line, mod = w.rng.choice(SPECS)
        n = own if w.rng.random() < 0.5 else w.rng.choice(shared)
        mine = n == own
        offcpu = "offcpu" in line
        ok_trace = {"ok"} if mine else {"ok", "EEXIST"}
        if mod and not soak:
            ok_trace = ok_trace | {"ENOENT"}
        r = ctl(line.format(n=n))
        w.note("trace." + sid, r, ok_trace)
        made = r == "ok"
        for _ in range(w.rng.randint(0, 4)):
            node = w.rng.choice(parts(n, offcpu))
            cmd = w.rng.choice(["reset", "stop", "start", "START\n", "bogus"])
            if node.startswith(("KEY-", "_interval/")) or cmd == "bogus":
                allowed = {"EINVAL"}
            else:
                allowed = {"ok"}
            if not (mine and made):
                allowed = allowed | {"open:ENOENT", "EIO"}
            w.note("node." + ("key" if node.startswith("KEY-") else "intv" if
                              node.startswith("_interval") else "node"),
                   wr(D + "/" + node, cmd), allowed)
        if mod:
            drive(w, DRIVE if not soak else SOAK_DRIVE)
        user_load(w)
        # In the soak every iteration leaves nothing: the samples between
        # iterations see only the soak's own traces.
        if mine or soak or w.rng.random() < 0.5:
            r = ctl("remove " + n)
            w.note("remove", r, {"ok"} if mine and made else {"ok", "ENOENT"})
            if mine and r == "ok":
                left = [p for p in parts(n, offcpu) if os.path.exists(D + "/" + p)]
                if left:
                    w.fail("remove %s left %s" % (n, left))


def reader(w, end, skip):
    """Reads every file under kstats/ in 4 KiB chunks; a file removed
    meanwhile gives ENOENT at open or EIO at read, nothing else. What is
    read must be whole: a node names itself, KEY-NAME starts with its
    header."""
    while time.monotonic() < end:
        w.pause_point()
        try:
            names = os.listdir(D) + ["_interval/" + x for x in os.listdir(D + "/_interval")]
        except FileNotFoundError:
            names = os.listdir(D)
        for x in names:
            if x == "_interval" or any(x.startswith(s) for s in skip):
                continue
            r, text = rd(D + "/" + x, w.rng.choice([64, 512, 4096]))
            kind = "ctl" if x == "_control" else "key" if x.startswith("KEY-") else \
                "intv" if x.startswith("_interval/") else "node"
            w.note("read." + kind, r, {"ok", "open:ENOENT", "EIO"})
            if r != "ok" or kind == "ctl":
                continue
            if kind == "key":
                if not text.startswith("# key "):
                    w.fail("%s does not start with '# key': %r" % (x, text[:80]))
            elif field(text, "name") != x.split("/")[-1] or field(text, "samples") is None:
                w.fail("%s is not a whole node: %r" % (x, text[:120]))


HOLD_SPECS = [s for s in SPECS if s[0] in ("fnkey", "kpair", "runq", "offcpu", "matchmod", "kret")]


def holder(w, end, soak):
    """Opens every file of a trace of its own, reads some of them part
    way, removes the trace, then reads, seeks and writes through the
    open files: each must fail with EIO (README: a read after the trace
    was removed fails with EIO), none may crash."""
    n = w.name + "h"
    while time.monotonic() < end:
        w.pause_point()
        sid, line, mod = w.rng.choice(HOLD_SPECS)
        r = ctl(line.format(n=n))
        w.note("trace." + sid, r, {"ok", "ENOENT"} if mod and not soak else {"ok"})
        if r != "ok":
            continue
        fds = []
        for p in parts(n, "offcpu" in line):
            fd = os.open(D + "/" + p, os.O_RDWR if p == n else os.O_RDONLY)
            if w.rng.random() < 0.6:
                try:
                    os.read(fd, w.rng.choice([1, 100, 4096]))
                    w.note("read.before", "ok", {"ok"})
                except OSError as e:
                    w.note("read.before", en(e.errno), {"ok"})
            fds.append((p, fd))
        if mod:
            drive(w, DRIVE if not soak else SOAK_DRIVE)
        user_load(w)
        w.note("remove", ctl("remove " + n), {"ok"})
        for p, fd in fds:
            kind = p.split("-")[0].split("/")[0] if "-" in p or "/" in p else "node"
            try:
                os.read(fd, 4096)
                w.note("read.after." + kind, "ok", {"EIO"})
            except OSError as e:
                w.note("read.after." + kind, en(e.errno), {"EIO"})
            try:
                os.lseek(fd, 0, os.SEEK_SET)
                os.read(fd, 4096)
                w.note("reread.after", "ok", {"EIO"})
            except OSError as e:
                w.note("reread.after", en(e.errno), {"EIO"})
            if p == n:
                try:
                    os.write(fd, b"reset\n")
                    w.note("write.after", "ok", {"EIO"})
                except OSError as e:
                    w.note("write.after", en(e.errno), {"EIO"})
            os.close(fd)


# What rmmod says while someone holds a reference to the module: kmod's
# own check of its refcnt ("in use"), or delete_module()'s EWOULDBLOCK
# when a reference is taken after that check (a writer opening the
# target's debugfs file, or register_kprobe() holding the module while
# it arms a probe in it).
BUSY = ("is in use", "Resource temporarily unavailable")


def modloop(w, end):
    """kstats_test_target.ko loaded, driven and unloaded, again and
    again, while writers trace its functions. rmmod waits while a writer
    or a probe being registered holds the module (BUSY), and must then
    succeed."""
    while time.monotonic() < end:
        rc, out = run(["insmod", KS + "/kstats_test_target.ko"])
        w.note("insmod", "ok" if rc == 0 else "rc%s %s" % (rc, out.strip()[:80]), {"ok"})
        for _ in range(w.rng.randint(0, 3)):
            drive(w, DRIVE)
        time.sleep(w.rng.random() * 0.3)
        for i in range(200):
            rc, out = run(["rmmod", "kstats_test_target"])
            if rc == 0 or not any(x in out for x in BUSY):
                break
            time.sleep(0.05)
        w.note("rmmod", "ok" if rc == 0 else "rc%s %s" % (rc, out.strip()[-120:]), {"ok"})
        if rc != 0:
            break


# A tool run's bound, to tell a hang from a slow op: in the chaos phase
# other actors' single writes have taken up to 132 s on a loaded host
# (4 vCPUs of one TCG thread, beside the other guests of the run).
TOOL_TIMEOUT = 300


def toolloop(w, end, soak):
    """The kstats tool: run (sets up, prints, removes), show, list, flame."""
    tool = KS + "/kstats"

    def trun(cmd):
        return run(cmd, TOOL_TIMEOUT)

    i = 0
    while time.monotonic() < end:
        w.pause_point()
        i += 1
        k = i % 5
        if k == 0:
            rc, out = trun([tool, "run", "-d", "1", "kr", "start", "vfs_read"])
            w.note("run.fn", rc, {0})
            if rc == 0 and "kr" not in out:
                w.fail("kstats run printed no kr: %r" % out[:200])
        elif k == 1:
            rc, out = trun([tool, "run", "-d", "2", "-i", "1", "krq", "start",
                           "sched:sched_wakeup", "end", "sched:sched_switch", "key", "comm"])
            w.note("run.runq", rc, {0})
        elif k == 2:
            rc, out = trun([tool, "run", "-d", "1", "kro", "offcpu", "key", "kstack:4"])
            w.note("run.offcpu", rc, {0})
        elif k == 3:
            # Other actors remove traces while list reads them.
            rc, out = trun([tool, "list"])
            w.note("list", rc, {0, 74})
        else:
            ctlname = "sf" if soak else "ctl_f"
            rc, out = trun([tool, "show", ctlname])
            w.note("show", rc, {0})
            rc, out = trun([tool, "flame", ctlname])
            w.note("flame", rc, {0})
        user_load(w)


def pyloop(w, end, soak):
    """The Python API: with-blocks, summaries, snapshots, keys, every
    metric (other actors remove theirs meanwhile: ENOENT or EIO)."""
    import kstats
    i = 0
    while time.monotonic() < end:
        w.pause_point()
        i += 1
        try:
            if i % 3 == 0:
                t = kstats.trace("pyoff", offcpu=True, key="kstack:4,waker-comm", keys=16)
                with t:
                    user_load(w)
                    t.summary()
                    t.blocked.summary()
                    t.runq.snapshot()
                    t.keys()
            else:
                with kstats.trace("py%d" % (i % 2), start="vfs_read", key="comm,kstack:4",
                                  keys=16, slowest=4) as t:
                    user_load(w)
                    s = t.summary()
                    t.snapshot()
                    t.keys()
                    t.reset()
                    t.stop()
                    t.start()
                    if s.samples is None:
                        w.fail("a summary without samples")
            w.note("with", "ok", {"ok"})
        except kstats.KstatsError as e:
            w.note("with", en(e.errno) + " " + str(e)[:100], {"ok"})
        kstats.traces()
        for m in kstats.metrics():
            if soak and m.name.startswith("q"):
                continue
            try:
                m.summary()
                w.note("metric", "ok", {"ok", "ENOENT", "EIO"})
            except kstats.KstatsError as e:
                w.note("metric", en(e.errno), {"ok", "ENOENT", "EIO"})


def online_cpus():
    return [c for c in range(64) if os.path.exists("%s/cpu%d" % (CPUS, c)) and
            (c == 0 or open("%s/cpu%d/online" % (CPUS, c)).read().strip() == "1")]


def hotplug(w, end, pause):
    """cpu1..3 offline and online again, one or two at a time."""
    cpus = [c for c in (1, 2, 3) if os.path.exists("%s/cpu%d/online" % (CPUS, c))]
    if len(cpus) != 3:
        w.fail("no cpu1..3 online files: %s" % cpus)
        return
    while time.monotonic() < end:
        w.pause_point()
        down = w.rng.sample(cpus, w.rng.choice([1, 1, 2]))
        for c in down:
            w.note("offline", wr("%s/cpu%d/online" % (CPUS, c), "0"), {"ok"})
        time.sleep(w.rng.random() * pause)
        for c in down:
            w.note("online", wr("%s/cpu%d/online" % (CPUS, c), "1"), {"ok"})
        time.sleep(w.rng.random() * pause)


def control(w, end, target):
    """Known calls for the control traces: getppid() by syscall_loop,
    signal pairs by sigpair (signal_generate/deliver; tgkill then
    rt_sigprocmask), pinned to a CPU (which may go offline) or not; with
    target, kst_target_null() (bench) and kst_obj_begin/end (bench_obj)."""
    calls = {"getppid": 0, "sig": 0, "null": 0, "obj": 0}
    while time.monotonic() < end:
        w.pause_point()
        cpu = w.rng.choice([None, 0, 1, 2, 3])
        pin = [] if cpu is None else ["taskset", "-c", str(cpu)]
        k = w.rng.randrange(4 if target else 2)
        n = w.rng.choice([2000, 5000, 10000])
        if k == 0:
            rc, out = run(pin + [KS + "/syscall_loop", str(n)])
            if rc == 0 and ("syscall_loop %d ns" % n) in out:
                calls["getppid"] += n
                w.note("syscall_loop", "ok", {"ok"})
            elif pin and "syscall_loop" not in out:
                # taskset found the CPU offline: nothing ran.
                w.note("syscall_loop", "cpu offline", {"cpu offline"})
            else:
                w.note("syscall_loop", "rc%s %r" % (rc, out[:80]), {"ok"})
        elif k == 1:
            n //= 100
            rc, out = run(pin + [KS + "/sigpair", str(n), "0"])
            if rc == 0 and ("sigpair delivered %d" % n) in out:
                calls["sig"] += n
                w.note("sigpair", "ok", {"ok"})
            elif pin and "sigpair" not in out:
                w.note("sigpair", "cpu offline", {"cpu offline"})
            else:
                w.note("sigpair", "rc%s %r" % (rc, out[:80]), {"ok"})
        elif k == 2:
            r = wr(T, "bench %d" % n)
            w.note("bench", r, {"ok"})
            if r == "ok":
                calls["null"] += n
        else:
            r = wr(T, "bench_obj %d" % n)
            w.note("bench_obj", r, {"ok"})
            if r == "ok":
                calls["obj"] += n
        with open("/tmp/calls-" + w.name, "w") as f:
            json.dump(calls, f)
    w.extra["calls"] = calls


def node_counts(n):
    r, text = rd(D + "/" + n)
    if r != "ok":
        return None
    return int(field(text, "samples")), int(field(text, "missed"))


def key_rows(n):
    """The count of KEY-NAME's rows and other row."""
    r, text = rd(D + "/KEY-" + n)
    if r != "ok":
        return None
    return sum(int(m) for m in re.findall(r"^(?:row|other) total \d+ count (\d+)", text, re.M))


def tree():
    out = []
    for top, dirs, files in os.walk(D):
        for f in dirs + files:
            out.append(os.path.relpath(os.path.join(top, f), D))
    return sorted(out)


def slurp(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError as e:
        return "<%s>" % en(e.errno)


def state():
    """What must be back where it was once every trace is removed."""
    return {"kprobes": sorted(slurp("/sys/kernel/debug/kprobes/list").splitlines()),
            "enabled_functions": sorted(slurp("/sys/kernel/tracing/enabled_functions").splitlines()),
            "tree": tree() if os.path.isdir(D) else None,
            "debugfs": sorted(os.listdir("/sys/kernel/debug"))}


def kstats_memory():
    """What kstats itself holds: its vmalloc areas (bytes, count), its
    live slab objects by allocation site (slub_debug=U's alloc_traces),
    the return-probe pools' areas, and the listing's memory."""
    vm_bytes = vm_n = rh = 0
    for line in slurp("/proc/vmallocinfo").splitlines():
        f = line.split()
        if "[kstats]" in line:
            vm_bytes += int(f[1])
            vm_n += 1
        elif "rethook" in line or "objpool" in line:
            rh += int(f[1])
    # alloc_traces: "COUNT SITE ..." then the allocation's stack, one
    # frame a line; an entry is kstats' when a frame is kstats' own (its
    # kmallocs, and what it has debugfs or kprobes allocate for it).
    # KASAN keeps freed objects in its quarantine, where alloc_traces
    # still counts them: a cache's shrink empties the quarantine of it.
    slab = {}
    base = "/sys/kernel/debug/slab"
    for cache in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        wr("/sys/kernel/slab/%s/shrink" % cache, "1")
        count = site = None
        mine = False
        for line in slurp("%s/%s/alloc_traces" % (base, cache)).splitlines() + ["0 end"]:
            m = re.match(r"\s*(\d+) (\S+)", line)
            if m:
                count, site = int(m.group(1)), re.sub(r"\+0x\w+/0x\w+$", "", m.group(2))
                mine = False
            elif "[kstats]" in line and count and not mine:
                mine = True
                k = cache + ":" + site + "<" + re.sub(r"\+0x\w+/0x\w+", "", line.split()[0])
                slab[k] = slab.get(k, 0) + count
    listing = sum(int(x) for x in re.findall(r" memory (\d+)", slurp(C)))
    # What the kernel's facilities allocate for kstats and free lazily
    # (vmalloc's lazily purged vmap areas, return-probe pools freed when
    # the last call in flight returns, kprobes' instruction slots) is
    # printed apart from what kstats allocates itself.
    lazy = ("vmap_area:", ":__get_vm_area_node<", ":__vmalloc_node_range_noprof<",
            ":rethook_alloc<", ":objpool_init<", ":__get_insn_slot<", ":alloc_aggr_kprobe<",
            ":arch_prepare_optimized_kprobe<")
    own = {k: v for k, v in slab.items() if not any(x in k for x in lazy)}
    try:
        nintv = len(os.listdir(D + "/_interval"))
    except OSError:
        nintv = 0
    return {"vm_bytes": vm_bytes, "vm_n": vm_n, "rethook": rh, "slab": own,
            "slab_n": sum(own.values()), "lazy_n": sum(slab.values()) - sum(own.values()),
            "listing": listing, "intervals": nintv}


def meminfo():
    out = {}
    for line in slurp("/proc/meminfo").splitlines():
        k, v = line.split(":", 1)
        if k in ("Slab", "SUnreclaim", "VmallocUsed", "Percpu", "MemAvailable", "KernelStack", "PageTables"):
            out[k] = int(v.split()[0])
    return out


def remove_all():
    """Removes what is left; prints what failed."""
    for line in slurp(C).splitlines():
        if line.strip():
            n = line.split()[0]
            r = ctl("remove " + n)
            say("@@LEFT %s remove=%s" % (n, r))


def ensure_online():
    for c in (1, 2, 3):
        p = "%s/cpu%d/online" % (CPUS, c)
        if os.path.exists(p) and slurp(p).strip() != "1":
            wr(p, "1")


def chaos(seconds, seed, base):
    step("chaos")
    # Control traces: only the control worker's programs pass their
    # filters; nothing else touches them (the readers do read them).
    controls = {
        "ctl_f": ("trace ctl_f start syscall:getppid comm syscall_loop key comm,kstack:4 keys 8", "getppid"),
        "ctl_k": ("trace ctl_k start syscall:getppid method kretprobe comm syscall_loop", "getppid"),
        "ctl_t": ("trace ctl_t start signal:signal_generate end signal:signal_deliver comm sigpair", "sig"),
        "ctl_p": ("trace ctl_p start syscall:tgkill end syscall:rt_sigprocmask comm sigpair", "sig"),
    }
    for n, (line, _) in controls.items():
        say("@@CTLTRACE %s %s" % (n, ctl(line)))
    end = time.monotonic() + seconds
    shared = ["cs0", "cs1", "cs2"]
    pids = []
    for i in range(3):
        pids.append(("w%d" % i, spawn("w%d" % i, seed, writer, end, shared, False)))
    pids.append(("r0", spawn("r0", seed, reader, end, [])))
    pids.append(("h0", spawn("h0", seed, holder, end, False)))
    pids.append(("mod", spawn("mod", seed, modloop, end)))
    pids.append(("tool", spawn("tool", seed, toolloop, end, False)))
    pids.append(("py", spawn("py", seed, pyloop, end, False)))
    pids.append(("hot", spawn("hot", seed, hotplug, end, 1.0)))
    pids.append(("ctl", spawn("ctl", seed, control, end, False)))
    join(pids)
    ensure_online()
    say("@@ONLINE %s" % online_cpus())
    calls = json.loads(slurp("/tmp/calls-ctl"))
    for n, (line, what) in controls.items():
        c = node_counts(n)
        say("@@CTL chaos %s calls %d samples %s missed %s" % (n, calls[what], *(c or ("-", "-"))))
    say("@@ROWS chaos ctl_f rows %s samples %s" % (key_rows("ctl_f"), (node_counts("ctl_f") or "-")[0]))
    remove_all()
    if "kstats_test_target" in slurp("/proc/modules"):
        rc, out = run(["rmmod", "kstats_test_target"])
        say("@@RMMOD-TARGET chaos rc=%s" % rc)
    after = state()
    for k in sorted(base):
        say("@@STATE chaos %s %s" % (k, "same" if after[k] == base[k] else
                                     "differs: before %s after %s" % (base[k], after[k])))


def soak(seconds, seed, base):
    step("soak")
    rc, out = run(["insmod", KS + "/kstats_test_target.ko"])
    say("@@INSMOD-TARGET soak rc=%s" % rc)
    # Traces of every kind, attached for the whole soak.
    load = [
        "trace sf start vfs_read key comm,kstack:8 keys 64",
        "trace sk start kst_target_delay method kretprobe key kstack:4",
        "trace sp start kst_section_begin end kst_section_end key kstack,end-kstack",
        "trace st start signal:signal_generate end signal:signal_deliver",
        "trace sr start sched:sched_wakeup end sched:sched_switch key comm keys 64",
        "trace sm start workqueue:workqueue_queue_work end workqueue:workqueue_execute_start match arg2,arg0 key arg2",
        "trace so offcpu key kstack:4,ustack:4,waker-kstack:4,waker-ustack:4 keys 64",
        "trace sl start vfs_read,vfs_write,kst_target_sleep",
        "trace sg start kst_ret_* key ret:s32",
        "trace si start kst_ret_int if ret:s32<0 key ret:s32",
        "trace sw start vfs_write method fprobe",
    ]
    # Control traces: known calls only (syscall_loop, sigpair, bench,
    # bench_obj); their interval files are read by the soak's own reader.
    controls = {
        "qf": ("trace qf start syscall:getppid comm syscall_loop key comm,kstack:4", "getppid"),
        "qk": ("trace qk start syscall:getppid method kretprobe comm syscall_loop", "getppid"),
        "qt": ("trace qt start signal:signal_generate end signal:signal_deliver comm sigpair", "sig"),
        "qp": ("trace qp start syscall:tgkill end syscall:rt_sigprocmask comm sigpair", "sig"),
        "qn": ("trace qn start kst_target_null", "null"),
        "qm": ("trace qm start kst_obj_begin end kst_obj_end match arg0", "obj"),
    }
    for line in load:
        say("@@SOAKTRACE %s %s" % (line.split()[1], ctl(line)))
    for n, (line, _) in controls.items():
        say("@@CTLTRACE %s %s" % (n, ctl(line)))
    t0 = time.monotonic()
    end = t0 + seconds
    shared = ["ss0", "ss1"]
    pids = []
    pids.append(("sw0", spawn("sw0", seed, writer, end, shared, True)))
    pids.append(("sr", spawn("sr", seed, reader, end, ["_interval/q"])))
    pids.append(("sh", spawn("sh", seed, holder, end, True)))
    pids.append(("stool", spawn("stool", seed, toolloop, end, True)))
    pids.append(("spy", spawn("spy", seed, pyloop, end, True)))
    pids.append(("shot", spawn("shot", seed, hotplug, end, 5.0)))
    pids.append(("sdrv", spawn("sdrv", seed, soakdrive, end)))
    pids.append(("sctl", spawn("sctl", seed, control, end, True)))
    pids.append(("sintv", spawn("sintv", seed, intervals, end, list(controls))))
    names = [p[0] for p in pids]
    i = 0
    while True:
        nxt = t0 + (i + 1) * MEM_EVERY
        if nxt > end - 5:
            break
        time.sleep(max(0, nxt - time.monotonic()))
        sample_memory(i, names, nxt - t0, dict(pids))
        i += 1
    join(pids)
    ensure_online()
    calls = json.loads(slurp("/tmp/calls-sctl"))
    sums = json.loads(slurp("/tmp/intv-sintv"))
    # The last interval: from the reader's last read to now.
    for n in controls:
        r, text = rd(D + "/_interval/" + n)
        if r == "ok":
            sums[n][0] += int(field(text, "samples"))
            sums[n][1] += int(field(text, "missed"))
            sums[n][2] += 1
    for n, (line, what) in controls.items():
        c = node_counts(n)
        say("@@CTL soak %s calls %d samples %s missed %s" % (n, calls[what], *(c or ("-", "-"))))
        say("@@INTV soak %s reads %d samples %d missed %d" % (n, sums[n][2], sums[n][0], sums[n][1]))
    say("@@ROWS soak qf rows %s samples %s" % (key_rows("qf"), (node_counts("qf") or "-")[0]))
    for line in load:
        n = line.split()[1]
        c = node_counts(n)
        say("@@LOAD %s samples %s missed %s" % (n, *(c or ("-", "-"))))
    remove_all()
    rc, out = run(["rmmod", "kstats_test_target"])
    say("@@RMMOD-TARGET soak rc=%s" % rc)
    after = state()
    for k in sorted(base):
        say("@@STATE soak %s %s" % (k, "same" if after[k] == base[k] else
                                    "differs: before %s after %s" % (base[k], after[k])))
    say("@@KMEM-END %s" % json.dumps(stable_memory()[0], sort_keys=True))


def soakdrive(w, end):
    """Mixed load on the target's functions and the vmlinux traces."""
    while time.monotonic() < end:
        w.pause_point()
        drive(w, SOAK_DRIVE)
        user_load(w)


def intervals(w, end, names):
    """Every INTV_EVERY s, one read of each control's interval file."""
    sums = {n: [0, 0, 0] for n in names}
    nxt = time.monotonic()
    while time.monotonic() < end:
        w.pause_point()
        if time.monotonic() < nxt:
            time.sleep(0.2)
            continue
        nxt += INTV_EVERY
        for n in names:
            r, text = rd(D + "/_interval/" + n)
            w.note("interval", r, {"ok"})
            if r == "ok":
                sums[n][0] += int(field(text, "samples"))
                sums[n][1] += int(field(text, "missed"))
                sums[n][2] += 1
        with open("/tmp/intv-" + w.name, "w") as f:
            json.dump(sums, f)


def stuck_stacks(pid):
    """Where an actor that does not answer waits: its tasks' kernel
    stacks and wait channels, children included (the tool, python)."""
    todo, seen = [pid], []
    while todo and len(seen) < 8:
        p = todo.pop()
        seen.append(p)
        todo += [int(k) for k in slurp("/proc/%d/task/%d/children" % (p, p)).split()
                 if k.isdigit()]
        comm = slurp("/proc/%d/comm" % p).strip()
        wchan = slurp("/proc/%d/wchan" % p).strip()
        stack = " | ".join(l.split()[-1] for l in slurp("/proc/%d/stack" % p).splitlines()
                           if l.split())
        say("@@STUCK pid %d %s wchan %s stack %s" % (p, comm, wchan, stack))


def sample_memory(i, names, t, pids=None):
    """With every actor paused, what kstats holds and the system's
    totals; taken again until two samples in a row agree (a remove frees
    after synchronize_rcu(), a worker may be leaving a call)."""
    open(QUIESCE, "w").close()
    t_end = time.monotonic() + 120
    while time.monotonic() < t_end:
        if all(os.path.exists("/tmp/ack-" + n) for n in names):
            break
        time.sleep(0.2)
    else:
        late = [n for n in names if not os.path.exists("/tmp/ack-" + n)]
        say("@@QUIESCE %d timeout: %s" % (i, late))
        for n in late:
            if pids and n in pids:
                stuck_stacks(pids[n])
    cur, tries = stable_memory()
    say("@@MEM %d t=%d tries=%d KMEM %s SYS %s" % (i, t, tries, json.dumps(cur, sort_keys=True),
                                                   json.dumps(meminfo(), sort_keys=True)))
    os.unlink(QUIESCE)


def stable_memory():
    """kstats_memory() once two readings 2 s apart agree: debugfs frees a
    removed node's dentry and inode after an RCU grace period."""
    prev = None
    for k in range(15):
        time.sleep(2)
        cur = kstats_memory()
        if cur == prev:
            break
        prev = cur
    return cur, k + 1


def guest(chaos_s, soak_s, seed):
    say("@@SEED %d CHAOS %d SOAK %d" % (seed, chaos_s, soak_s))
    say("@@NCPU %d" % os.cpu_count())
    # Reports of what booted before kstats are not kstats': set them aside.
    wr("/sys/kernel/debug/kmemleak", "scan")
    wr("/sys/kernel/debug/kmemleak", "clear")
    pre = state()
    rc, out = run(["insmod", KS + "/kstats.ko"])
    say("@@INSMOD kstats rc=%s %s" % (rc, out.strip()))
    # First uses that fill kernel caches for good (the dcache entries of
    # /proc/kallsyms, which a pattern reads, and of /sys/kernel/btf/vmlinux,
    # which a typed trace reads where kallsyms has no __start_BTF; and
    # kstats' one copy of that BTF) are not kstats' holdings.
    say("@@WARMUP %s %s %s %s" % (ctl("trace warm start vfs_rea*"), ctl("remove warm"),
                                  ctl("trace warmbtf start vfs_read if ret<0"),
                                  ctl("remove warmbtf")))
    base = state()
    say("@@KMEM-BASE %s" % json.dumps(stable_memory()[0], sort_keys=True))
    if chaos_s:
        chaos(chaos_s, seed, base)
    if soak_s:
        soak(soak_s, seed, base)
    step("unload")
    rc, out = run(["rmmod", "kstats"])
    say("@@RMMOD kstats rc=%s %s" % (rc, out.strip()))
    after = state()
    for k in ("kprobes", "enabled_functions", "debugfs"):
        say("@@STATE unload %s %s" % (k, "same" if after[k] == pre[k] else
                                      "differs: before %s after %s" % (pre[k], after[k])))
    step("leaks")
    wr("/sys/kernel/debug/kmemleak", "scan")
    time.sleep(5)
    wr("/sys/kernel/debug/kmemleak", "scan")
    say("@@KMEMLEAK-BEGIN")
    say(slurp("/sys/kernel/debug/kmemleak"))
    say("@@KMEMLEAK-END")
    step("done")


# ----------------------------------------------------------------- host side

GUEST = """#!/bin/sh
# Generated by test/chaos_test.py: the chaos run and the soak.
mkdir -p /tmp/python/kstats
for f in __init__.py __main__.py _fmt.py _node.py; do cp /ks/$f /tmp/python/kstats/; done
echo "@@PYTHON $(python3 --version 2>&1)"
PYTHONPATH=/tmp/python python3 -u /ks/chaos_test.py guest %d %d %d
echo "@@GUEST-RC $?"
"""


def gen(path, chaos_s, soak_s, seed):
    with open(path, "w") as f:
        f.write(GUEST % (chaos_s, soak_s, seed))


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s %s" % (what, detail))
        return ok


# Each actor's least number of operations in a run of the full length:
# it must have done its part (figures scale with the phase's length).
# Lenient: a loaded host gives the guest less than a core.
# w: a trace add looks its names up in /proc/kallsyms after each module
# event (the mod actor loads and unloads every few seconds), a read of
# seconds under KASAN: 7 to 13 adds in a 180 s phase, where the kprobe
# lookups of before made 30 to 40 (issue 37.1).
MIN_OPS = {"w": ("trace.", 5), "r": ("read.", 100), "h": ("read.after.", 10),
           "mod": ("rmmod=ok", 3), "tool": ("", 5), "py": ("with=ok", 2),
           "hot": ("online=ok", 5), "ctl": ("", 5)}


def marker_lines(log):
    """The guest's @@ lines, from where they start, made whole where a
    kernel message cut one (basic_test.deinterleave)."""
    from basic_test import deinterleave
    lines = deinterleave([l.rstrip("\r") for l in log.split("\n")])
    return [l[l.index("@@"):] for l in lines if "@@" in l]


def worker_checks(r, lines, phase, names, scale):
    got = {}
    for l in lines:
        m = re.match(r"@@WORKER (\S+) (\{.*\})$", l)
        if m and m.group(1) in names:
            got[m.group(1)] = json.loads(m.group(2))
    for n in names:
        res = got.get(n)
        if not r.check(res is not None, "chaos: %s: actor %s reported" % (phase, n)):
            continue
        r.check(res["nbad"] == 0, "chaos: %s: every result of actor %s is one the README allows"
                % (phase, n), "%d bad, e.g. %s" % (res["nbad"], res["bad"]))
        base = n.lstrip("s") if phase == "soak" and n != "sh" else n
        key = re.sub(r"\d+$", "", base) if base not in MIN_OPS else base
        if key == "sh":
            key = "h"
        prefix, least = MIN_OPS.get(key, ("", 1))
        least = max(1, int(least * scale))
        done = sum(v for k, v in res["ops"].items() if k.startswith(prefix))
        r.check(done >= least, "chaos: %s: actor %s did its part (%s* at least %d)"
                % (phase, n, prefix, least), "%d: %s" % (done, res["ops"]))


def ctl_checks(r, lines, phase):
    found = 0
    for l in lines:
        m = re.match(r"@@CTL %s (\S+) calls (\d+) samples (\S+) missed (\S+)$" % phase, l)
        if not m:
            continue
        found += 1
        n, calls, s, mi = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        ok = s.isdigit() and mi.isdigit() and int(s) + int(mi) == calls and calls > 0
        r.check(ok, "chaos: %s: control trace %s: samples + missed equals the %d calls made"
                % (phase, n, calls), "samples %s missed %s" % (s, mi))
    return found


def state_checks(r, lines, phase, keys):
    for k in keys:
        got = [l for l in lines if l.startswith("@@STATE %s %s " % (phase, k))]
        r.check(got == ["@@STATE %s %s same" % (phase, k)],
                "chaos: %s: %s back where it started" % (phase, k), str(got)[:600])


# Allocation sites of a facility's shared structures (see mem_checks()).
SHARED = (":allocate_probes<", ":alloc_ftrace_hash<", ":add_hash_entry<")
# The per-CPU allocator's own bookkeeping of a chunk it made for a
# request of kstats (alloc_percpu() with no room left): the chunk stays
# after kstats frees its areas, and mm/percpu.c's balance work frees
# empty chunks (but one) on its own schedule. Not kstats' to hold: its
# per-CPU memory is checked by the system's Percpu, which must not grow.
PERCPU_CHUNK = (":pcpu_create_chunk<", ":pcpu_get_vm_areas<")


def own_slab(slab):
    """kstats' slab objects by site, the per-CPU allocator's chunks left out."""
    return {x: v for x, v in slab.items() if not any(y in x for y in PERCPU_CHUNK)}


def dict_diff(a, b):
    """{key: (in a, in b)} for each key whose counts differ."""
    return {k: (a.get(k, 0), b.get(k, 0)) for k in sorted(set(a) | set(b)) if a.get(k, 0) != b.get(k, 0)}


def mem_checks(r, lines, soak_s, ncpu):
    """Soak memory: kstats' own holdings identical in every sample after
    the warm-up; the system's totals without growth: the last third's
    median within 2 % (at least 512 KiB) of the first third's."""
    samples = []
    for l in lines:
        m = re.match(r"@@MEM (\d+) t=(\d+) tries=(\d+) KMEM (\{.*\}) SYS (\{.*\})$", l)
        if m:
            samples.append((int(m.group(1)), int(m.group(2)), json.loads(m.group(4)),
                            json.loads(m.group(5))))
    want = max(3, soak_s // MEM_EVERY - 1)
    print("    soak memory samples (after %d warm-up): t, kstats vmalloc bytes/areas, kstats slab "
          "objects (+lazily freed), rethook pools, listing; Slab SUnreclaim VmallocUsed Percpu (KiB)" % WARM)
    for i, t, k, s in samples:
        print("    %2d %4ds  %8d/%-3d %6d+%-4d %8d %9d   %7d %7d %7d %6d" % (
            i, t, k["vm_bytes"], k["vm_n"], k["slab_n"], k.get("lazy_n", 0), k["rethook"], k["listing"],
            s.get("Slab", -1), s.get("SUnreclaim", -1), s.get("VmallocUsed", -1), s.get("Percpu", -1)))
    if not r.check(len(samples) >= want, "chaos: soak: %d memory samples taken" % want, str(len(samples))):
        return
    post = samples[WARM:]
    first = post[0][2]
    r.check(first["slab_n"] > 0 and first["vm_n"] > 0,
            "chaos: soak: kstats' slab objects and vmalloc areas are seen (slub_debug=U alloc_traces, vmallocinfo)",
            str(first)[:300])
    # An interval file keeps, between cuts, each CPU's non-empty slots as
    # of each bank's last cut (README, "Interval files"): per bank a base,
    # its rows array and one array per CPU with samples. These objects of
    # ks_interval_take() follow the data, bounded per file.
    worst = []
    for p in post:
        k = p[2]
        intv = {x: v for x, v in k["slab"].items() if "<ks_interval_take" in x}
        files = k.get("intervals", 68)
        if sum(intv.values()) > files * 2 * (2 + ncpu):
            worst.append((p[0], files, sum(intv.values())))
        k["slab"] = {x: v for x, v in k["slab"].items() if x not in intv}
    r.check(not worst, "chaos: soak: what interval files keep between cuts stays within, for each "
            "file and bank, a base, its rows and one array per CPU", str(worst[:3]))
    # A tracepoint's probe array and ftrace's filter hashes belong to the
    # facility and are shared by its users: every register or unregister,
    # by any trace, reallocates them, so which kstats call alloc_traces
    # names follows history. Their number is exact; their sites are not.
    for p in post:
        k = p[2]
        k["slab"] = own_slab(k["slab"])
        shared = {x: v for x, v in k["slab"].items() if any(y in x for y in SHARED)}
        k["shared"] = sum(shared.values())
        k["slab"] = {x: v for x, v in k["slab"].items() if x not in shared}
    for key in ("vm_bytes", "vm_n", "slab", "shared", "rethook", "listing"):
        vals = [p[2][key] for p in post]
        bad = [(p[0], dict_diff(vals[0], v) if isinstance(v, dict) else v)
               for p, v in zip(post, vals) if v != vals[0]]
        r.check(not bad, "chaos: soak: kstats' own %s exactly flat after the warm-up" % key,
                "sample %d: %s; then %s" % (post[0][0], str(vals[0])[:200] if not isinstance(vals[0], dict)
                                            else len(vals[0]), str(bad[:3])[:1500]))
    third = max(1, len(post) // 3)
    for key in ("Slab", "VmallocUsed", "Percpu"):
        vals = [p[3].get(key, 0) for p in post]
        a = sorted(vals[:third])[third // 2]
        b = sorted(vals[-third:])[third // 2]
        bound = max(512, a // 50)
        r.check(b - a <= bound, "chaos: soak: system %s does not grow (last third's median within "
                "%d KiB of the first third's)" % (key, bound), "first %d last %d: %s" % (a, b, vals))


def check(path, chaos_s, soak_s):
    r = Results()
    try:
        log = open(path, errors="replace").read()
    except OSError as e:
        r.check(False, "chaos: the guest's console was written", str(e))
        return r
    lines = marker_lines(log)
    r.check(any(l.startswith("@@PYTHON Python 3.") for l in lines), "chaos: the guest has python3")
    ncpu = [l for l in lines if l.startswith("@@NCPU ")]
    r.check(ncpu == ["@@NCPU 4"], "chaos: the guest runs on 4 vCPUs", str(ncpu))
    r.check(any(l.startswith("@@INSMOD kstats rc=0") for l in lines), "chaos: kstats loads")
    r.check("@@WARMUP ok ok ok ok" in lines, "chaos: the warm-up traces (a pattern, a typed one) attach and remove")
    steps = [l.split()[1] for l in lines if l.startswith("@@STEP ")]
    want = (["chaos"] if chaos_s else []) + (["soak"] if soak_s else []) + ["unload", "leaks", "done"]
    r.check(steps == want, "chaos: every step ran", str(steps))
    keys = ("kprobes", "enabled_functions", "tree", "debugfs")
    if chaos_s:
        scale = chaos_s / MIN_OPS_CHAOS_S
        r.check(all(l.endswith(" ok") for l in lines if l.startswith("@@CTLTRACE ctl_")) and
                sum(l.startswith("@@CTLTRACE ctl_") for l in lines) == 4,
                "chaos: the 4 control traces attach")
        worker_checks(r, lines, "chaos", ["w0", "w1", "w2", "r0", "h0",
                                          "mod", "tool", "py", "hot", "ctl"], scale)
        r.check(ctl_checks(r, lines, "chaos") == 4, "chaos: chaos: 4 control counts reported")
        m = [re.match(r"@@ROWS chaos ctl_f rows (\d+) samples (\d+)$", l) for l in lines]
        m = [x for x in m if x]
        r.check(len(m) == 1 and m[0].group(1) == m[0].group(2),
                "chaos: chaos: keyed control's rows add up to its samples",
                m[0].group(0) if m else "none")
        r.check("@@ONLINE [0, 1, 2, 3]" in lines, "chaos: chaos: all 4 CPUs online again")
        left = [l for l in lines if l.startswith("@@LEFT ") and not l.endswith("remove=ok")]
        r.check(not left, "chaos: chaos: what was left removes", str(left))
        r.check(not any(l.startswith("@@RMMOD-TARGET chaos") and l != "@@RMMOD-TARGET chaos rc=0"
                        for l in lines), "chaos: chaos: the target module unloads")
        state_checks(r, lines, "chaos", keys)
    if soak_s:
        scale = soak_s / MIN_OPS_SOAK_S
        r.check(sum(l.startswith("@@CTLTRACE q") and l.endswith(" ok") for l in lines) == 6
                and sum(l.startswith("@@SOAKTRACE ") and l.endswith(" ok") for l in lines) == 11,
                "chaos: soak: its 11 traces and 6 control traces attach")
        worker_checks(r, lines, "soak", ["sw0", "sr", "sh", "stool", "spy", "shot",
                                         "sdrv", "sctl", "sintv"], scale)
        r.check(ctl_checks(r, lines, "soak") == 6, "chaos: soak: 6 control counts reported")
        intv = {}
        for l in lines:
            m = re.match(r"@@INTV soak (\S+) reads (\d+) samples (\d+) missed (\d+)$", l)
            if m:
                intv[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4))
        for l in lines:
            m = re.match(r"@@CTL soak (\S+) calls \d+ samples (\d+) missed (\d+)$", l)
            if m:
                n, s, mi = m.group(1), int(m.group(2)), int(m.group(3))
                reads, isum, imiss = intv.get(n, (0, -1, -1))
                r.check(reads >= max(2, soak_s // 60) and isum == s and imiss == mi,
                        "chaos: soak: %s's %d interval reads sum to its node's samples and missed"
                        % (n, reads), "intervals %d/%d node %d/%d" % (isum, imiss, s, mi))
        m = [re.match(r"@@ROWS soak qf rows (\d+) samples (\d+)$", l) for l in lines]
        m = [x for x in m if x]
        r.check(len(m) == 1 and m[0].group(1) == m[0].group(2),
                "chaos: soak: keyed control's rows add up to its samples", m[0].group(0) if m else "none")
        loads = [l for l in lines if l.startswith("@@LOAD ")]
        r.check(len(loads) == 11 and all(not re.search(r"samples (0|-) ", l) for l in loads),
                "chaos: soak: every trace of the load recorded", str([l for l in loads if
                                                                      re.search(r"samples (0|-) ", l)]))
        r.check(not any(l.startswith("@@QUIESCE") for l in lines), "chaos: soak: every actor pauses for the samples")
        mem_checks(r, lines, soak_s, int(ncpu[0].split()[1]) if ncpu else 4)
        left = [l for l in lines if l.startswith("@@LEFT ") and not l.endswith("remove=ok")]
        r.check(not left, "chaos: soak: every trace removes", str(left))
        r.check("@@RMMOD-TARGET soak rc=0" in lines, "chaos: soak: the target module unloads")
        state_checks(r, lines, "soak", keys)
        kb = [json.loads(l.split(" ", 1)[1]) for l in lines if l.startswith("@@KMEM-BASE ")]
        ke = [json.loads(l.split(" ", 1)[1]) for l in lines if l.startswith("@@KMEM-END ")]
        parts = ("vm_bytes", "vm_n", "slab", "listing")
        for k in kb + ke:
            k["slab"] = own_slab(k["slab"])
        r.check(len(kb) == 1 and len(ke) == 1 and all(kb[0][p] == ke[0][p] for p in parts),
                "chaos: soak: kstats holds what it held before any trace once all are removed",
                "%s -> %s" % (kb, ke))
    r.check(any(l.startswith("@@RMMOD kstats rc=0") for l in lines), "chaos: kstats unloads")
    state_checks(r, lines, "unload", ("kprobes", "enabled_functions", "debugfs"))
    kl = log.split("@@KMEMLEAK-BEGIN")[-1].split("@@KMEMLEAK-END")[0] if "@@KMEMLEAK-END" in log else None
    r.check(kl is not None and "unreferenced object" not in kl, "chaos: kmemleak finds no leak",
            (kl or "")[:800])
    rep = subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "lib", "console-check.sh"), path],
                         stdout=subprocess.PIPE, universal_newlines=True)
    r.check(rep.returncode == 0, "chaos: no oops, WARN, KASAN, lockdep, UBSAN or kmemleak report on the console",
            rep.stdout.strip())
    r.check("@@GUEST-RC 0" in lines, "chaos: the guest script ran to its end")
    return r


def host_run(logdir, chaos_s, soak_s, seed):
    """Builds kstats for the debug kernel (out/debug-chaos; under
    test/run-all.sh, which built out/debug for it: KS_DEBUG_BUILD_RC),
    boots the rootfs guest on it and checks the console."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(logdir, exist_ok=True)
    t0 = time.time()
    print("chaos: seed %d, chaos %d s, soak %d s" % (seed, chaos_s, soak_s))
    r = Results()
    tree = subprocess.run(["bash", "test/debug-kernel/build.sh"], cwd=top, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout.split()
    if not r.check(bool(tree), "chaos: the debug kernel is built"):
        print("chaos: %d passed, %d failed" % (r.passed, r.failed))
        return 1
    tree = tree[-1]
    # test/run-all.sh builds out/debug once, for this guest, the KUnit and
    # stress guest and the fault guest (the same sources, kernel and
    # flags), and passes the build's exit status and log.
    built = os.environ.get("KS_DEBUG_BUILD_RC", "")
    if built:
        log = os.environ.get("KS_DEBUG_BUILD_LOG", "")
        try:
            with open(log, errors="replace") as f:
                text = f.read()
        except OSError:
            text = "(no log %r)" % log
        ok, outname = built == "0", "debug"
    else:
        env = dict(os.environ, KDIR=tree)
        b = subprocess.run(["bash", "test/build.sh", "debug-chaos"], cwd=top, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        ok, text, outname = b.returncode == 0, b.stdout, "debug-chaos"
    if not r.check(ok, "chaos: kstats builds for the debug kernel", text[-2000:]):
        print("chaos: %d passed, %d failed" % (r.passed, r.failed))
        return 1
    out = os.path.join(top, "out", outname)
    script = os.path.join(logdir, "chaos-guest.sh")
    console = os.path.join(logdir, "guest-chaos.console")
    gen(script, chaos_s, soak_s, seed)
    files = [os.path.join(out, f) for f in ("kstats.ko", "kstats_test_target.ko", "syscall_loop", "sigpair")]
    files += [os.path.join(top, "out", "tools", "kstats"), os.path.abspath(__file__)]
    files += [os.path.join(top, "python", "kstats", f) for f in
              ("__init__.py", "__main__.py", "_fmt.py", "_node.py")]
    # ACPI stays on, unlike the KUnit guest's acpi=off: without it the
    # guest has no HPET and no PM timer, and a TSC calibrated against the
    # PIT on a loaded host ran the guest's clock at half speed (the timed
    # phases took twice their length) with the APIC timer disabled.
    # -smp 4: this kernel finds the CPUs in ACPI's MADT. pci=noacpi:
    # its AML interpreter (KASAN, TCG) ran past ACPICA's 30 s loop limit
    # in the PCI _PRT, and the virtio disks got no interrupt; the BIOS's
    # PIRQ table routes them. 4 vCPUs share one host thread: give RCU and
    # the watchdogs room. loglevel=5 puts WARN and lockdep reports
    # (KERN_WARNING) on the console. slub_debug=U records the allocation
    # stack of each object of the caches kstats allocates from.
    env = dict(os.environ, KS_KERNEL=os.path.join(tree, "arch/x86/boot/bzImage"),
               KS_SMP=os.environ.get("KS_CHAOS_SMP", "4"), KS_QEMU_MEM="2048",
               # Boot, setup, quiesces and teardown slow down with the
               # host's load, not with the phases: a fixed 20 minutes.
               KS_TIMEOUT=str(chaos_s + soak_s + 1200),
               KS_APPEND="loglevel=5 pci=noacpi slub_debug=U,kmalloc-*,dentry,inode_cache,vmap_area rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60")
    g = subprocess.run(["bash", "test/lib/rootfs.sh", "debug", script, console] + files, cwd=top,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    print(g.stdout.strip())
    r.check(g.returncode == 0, "chaos: the guest boots the debug kernel, runs and powers off (rootfs.sh rc %d)"
            % g.returncode)
    c = check(console, chaos_s, soak_s)
    print("chaos: wall time %d s" % (time.time() - t0))
    print("chaos: %d passed, %d failed" % (r.passed + c.passed, r.failed + c.failed))
    return 1 if r.failed + c.failed else 0


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "guest":
        guest(int(a[1]), int(a[2]), int(a[3]))
        return 0
    if len(a) == 5 and a[0] == "gen":
        gen(a[1], int(a[2]), int(a[3]), int(a[4]))
        return 0
    if len(a) == 4 and a[0] == "check":
        r = check(a[1], int(a[2]), int(a[3]))
        print("chaos: %d passed, %d failed" % (r.passed, r.failed))
        return 1 if r.failed else 0
    if len(a) in (2, 5) and a[0] == "run":
        ch, so, seed = (int(x) for x in a[2:5]) if len(a) == 5 else (
            int(os.environ.get("KS_CHAOS_SECONDS", CHAOS_S)),
            int(os.environ.get("KS_SOAK_SECONDS", SOAK_S)),
            int(os.environ.get("KS_CHAOS_SEED", SEED)))
        return host_run(a[1], ch, so, seed)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
