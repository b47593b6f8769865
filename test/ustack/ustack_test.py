#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""User-space stacks in a stock-kernel QEMU guest (issue 40): key ustack
on a function trace, key kstack,ustack,waker-ustack on an off-CPU trace,
named by the tool (libdwfl) while the program lives and kept as addresses
once it has exited; the rows of kernel threads and interrupt wakers; the
refusals.

  ustack_test.py gen GUEST_SCRIPT SERIES [ARCH]   write the busybox script
  ustack_test.py check LOGFILE                    assert on the console log

The program is test/progs/ustack_prog.c (-O0, frame pointers, static
glibc). Counts are exact: it calls getppid() CALLS[0] times from site_a()
and CALLS[1] times from site_b(), and blocks WAITS times in read() on a
pipe from wait_inner(), each woken by its writer thread's wake_reader()
after a nanosleep(). Every one of those user frames sits above a glibc
wrapper that keeps no frame record: the frame bcc loses.
"""
import bisect
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from basic_test import Results, parse, report  # noqa: E402
from keys_test import key_nodes  # noqa: E402
from trace_test import ctls  # noqa: E402

CALLS = (3, 5)
# The program's own functions (ustack_prog.c), all others are glibc's.
PROG_FUNCS = {"main", "site_a", "site_b", "wake_reader", "writer", "wait_inner", "wait_outer"}
WAITS = 8
REFUSALS = [
    ("trace r0 start sched:sched_wakeup end sched:sched_switch key ustack", "Invalid argument",
     "key ustack: a run-queue wait's task is off its CPU"),
    ("trace r1 start syscall:getppid key ustack:0", "Invalid argument",
     "key ustack:0: depth must be 1..32"),
    ("trace r3 start syscall:getppid key ustack:16:log2", "Invalid argument",
     "key ustack:16:log2: a stack takes one suffix, its depth (ustack:1..32)"),
    ("trace r2 start syscall:getppid key waker-ustack", "Invalid argument",
     "key waker-ustack: only an off-CPU wait has a waker"),
]


# The SVG's frames by palette class ("u:main", "k:schedule"), one line.
SVG_KINDS = ("echo \"@@SVGKINDS $($K flame up --svg | grep -o '<g class=.[uk].><title>[A-Za-z0-9_]*' |"
             " sed 's/<g class=.\\(.\\).><title>/\\1:/' | sort -u | tr '\\n' ' ')\"")


def gen(path, series="", arch="x86_64"):
    # The arm64 guests have no tool (it links libdw, built for the host):
    # their frames are named here, from the program's symbols.
    tool = arch != "arm64"
    script = """set -u
D=/sys/kernel/debug/kstats
C=$D/_control
K=/modules/kstats
ctl() { (echo "$1" > $C) 2>/tmp/err; echo "@@CTL rc=$? $(sed 's/.*: //' /tmp/err) :: $1"; }
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
%(tooldef)s
# start_prog ARGS...: ustack_prog in the background, once it said ready.
PROGBIN=/modules/ustack_prog
start_prog() {
	rm -f /tmp/prog.out
	$PROGBIN "$@" > /tmp/prog.out &
	PROG=$!
	for i in $(seq 100); do grep -q "^ready $PROG$" /tmp/prog.out && break; sleep 0.1; done
	echo "@@PROG $PROG $(cat /tmp/prog.out)"
}
stop_prog() { kill $PROG; wait $PROG 2>/dev/null; echo "@@STOPPED $PROG"; }
echo "@@UNAME $(uname -r)"
echo "@@ARCH $(uname -m)"
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
step calls
ctl "trace uc start syscall:getppid comm ustack_prog key ustack slowest 2"
start_prog calls %(a)d %(b)d
show KEY-uc
tool rows uc --top 0
tool flame uc --count
stop_prog
tool flame uc --count
ctl "remove uc"
""" % {"a": CALLS[0], "b": CALLS[1], "tooldef":
       'tool() { echo "@@TOOL-BEGIN $*"; $K "$@"; echo "@@TOOL-END rc=$?"; }' if tool else
       "tool() { :; }"}
    if tool:
        script += """step stripped
ctl "trace us start syscall:getppid comm ustack_prog key ustack"
cp /modules/ustack_prog.stripped /tmp/ustack_prog
PROGBIN=/tmp/ustack_prog
start_prog calls %(a)d %(b)d
tool flame us --count
id=$(cat /modules/ustack_prog.buildid)
mkdir -p /usr/lib/debug/.build-id/$(echo $id | cut -c1-2)
cp /modules/ustack_prog.debug /usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug
tool flame us --count
stop_prog
ctl "remove us"
PROGBIN=/modules/ustack_prog
""" % {"a": CALLS[0], "b": CALLS[1]}
    script += """step pipe
ctl "trace up offcpu comm ustack_prog state S key kstack,ustack,waker-ustack"
start_prog pipe %(w)d
ctl "stop up"
show KEY-up
tool flame up --count
%(svgkinds)s
stop_prog
ctl "remove up"
step kthread
ctl "trace uk offcpu tasks kernel key ustack"
sleep 1
ctl "stop uk"
show KEY-uk
show uk
ctl "remove uk"
step refusals
""" % {"w": WAITS, "svgkinds": SVG_KINDS if tool else ""}
    for line, _, _ in REFUSALS:
        script += 'ctl "%s"\n' % line
    script += "step done\n"
    with open(path, "w") as f:
        f.write(script)


def tool_outputs(step_lines):
    """[(argv, [lines], rc)] of each tool run in a step."""
    res, cur, argv = [], None, None
    for l in step_lines:
        if l.startswith("@@TOOL-BEGIN "):
            argv, cur = l[len("@@TOOL-BEGIN "):], []
        elif l.startswith("@@TOOL-END ") and cur is not None:
            res.append((argv, cur, l.split("rc=")[1]))
            cur = None
        elif cur is not None:
            cur.append(l)
    return res


def folded(lines):
    """{folded stack: count} of `kstats flame --count` lines."""
    got = {}
    for l in lines:
        m = re.match(r"^(.*) (\d+)$", l)
        if m:
            got[m.group(1)] = got.get(m.group(1), 0) + int(m.group(2))
    return got


def count_where(stacks, pattern):
    return sum(n for s, n in stacks.items() if re.search(pattern, s))


def prog_symbols(logpath, arch):
    """The functions of the guest's ustack_prog, from its symbol table
    (binutils' nm, not kstats): a sorted [(start, end, name)]. The
    program is out/KVER/ustack_prog, KVER from the console's name."""
    m = re.search(r"guest-ustack-(.+)\.console$", logpath)
    prog = os.path.join(HERE, "..", "..", "out", m.group(1) if m else "?", "ustack_prog")
    nm = "aarch64-linux-gnu-nm" if arch == "aarch64" else "nm"
    try:
        out = subprocess.run([nm, "-S", "--defined-only", prog], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    syms = []
    for l in out.splitlines():
        w = l.split()
        if len(w) == 4 and w[2] in "TtWw" and int(w[1], 16):
            syms.append((int(w[0], 16), int(w[0], 16) + int(w[1], 16), w[3]))
    return sorted(syms)


def user_names(syms, frames):
    """KEY-NAME's user frames (hex, leaf first) as function names; a
    return address (every frame but the first) is looked up one byte
    before. '?' where no function holds it."""
    starts = [s[0] for s in syms]
    names = []
    for i, f in enumerate(frames):
        a = int(f, 16) - (1 if i else 0)
        j = bisect.bisect_right(starts, a) - 1
        names.append(syms[j][2] if j >= 0 and a < syms[j][1] else "?")
    return names


def named_rows(node, syms, part="ustack"):
    """[(count, names leaf first, row)] of a KEY- node's rows."""
    return [(x["count"], user_names(syms, x["parts"].get(part, [])), x)
            for x in (node or {}).get("rows", [])]


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines, steps = parse(log)
    r.check(not any("@@FAIL" in l for l in lines), "kstats loads",
            str([l for l in lines if "@@FAIL" in l][:3]))
    arch = next((l.split()[1] for l in lines if l.startswith("@@ARCH ")), "?")
    # The arm64 guests have no tool, so no stripped step (see gen()).
    tool = arch != "aarch64"
    steps_run = ("calls", "stripped", "pipe", "kthread") if tool else ("calls", "pipe", "kthread")
    for s in steps_run + ("refusals", "done"):
        r.check(s in steps, "step %s reached" % s)
    if "done" not in steps:
        return r
    rt = any(re.match(r"@@UNAME \S*-rt-", l) for l in lines)
    for s in steps_run:
        bad = [c for c in ctls(steps[s]) if c[1] != "0"]
        r.check(not bad, "%s: every command accepted" % s, str(bad))

    # key ustack on a function trace: rows per call site, exact.
    st = steps["calls"]
    prog = [l.split() for l in st if l.startswith("@@PROG ")]
    pid = prog[0][1] if prog and len(prog[0]) == 4 and prog[0][2] == "ready" else None
    r.check(pid and prog[0][3] == pid, "ustack_prog starts and says its pid", str(prog))
    node = (key_nodes(st).get("uc") or [None])[0]
    rows = node["rows"] if node else []
    heads = {x["parts"].get("ustack head") for x in rows}
    r.check(rows and len(heads) == 1 and re.fullmatch(r"tgid %s start [1-9][0-9]*" % pid,
                                                      next(iter(heads))),
            "KEY-uc: every row's ustack is in the program's address space (tgid %s)" % pid,
            str(heads))
    frames = [f for x in rows for f in x["parts"].get("ustack", [])]
    r.check(frames and all(re.fullmatch(r"0x[0-9a-f]+", f) for f in frames),
            "KEY-uc: user frames are addresses (the tool names them)", str(frames[:4]))
    r.check(node and sum(x["count"] for x in rows) == sum(CALLS) and
            node["other"]["count"] == 0,
            "KEY-uc: %d getppid() calls in rows, none in other" % sum(CALLS),
            str([x["count"] for x in rows]))
    syms = prog_symbols(logpath, arch)
    r.check(len(syms) > 100, "the program's symbol table read with nm (%d functions)" % len(syms))
    for site, n in zip(("site_a", "site_b"), CALLS):
        got = sum(c for c, names, _ in named_rows(node, syms) if names[1:3] == [site, "main"])
        r.check(got == n, "KEY-uc named by nm: %d calls with %s right above the wrapper, "
                "then main (the frame bcc loses kept)" % (n, site),
                str([(c, names) for c, names, _ in named_rows(node, syms)]))
    outs = tool_outputs(st)
    r.check(not tool or (len(outs) == 3 and all(rc == "0" for _, _, rc in outs)),
            "kstats rows and flame run on the keyed trace", str([(a, rc) for a, _, rc in outs]))
    if tool and len(outs) == 3:
        live = folded(outs[1][1])
        for site, n in zip(("site_a", "site_b"), CALLS):
            r.check(count_where(live, r"(^|;)main;%s;(__)?getppid$" % site) == n,
                    "flame: main;%s;getppid, %d calls: the caller of the frameless "
                    "wrapper is kept" % (site, n), str(live))
        # Above main, glibc's own start (built without frame pointers) may end the walk.
        r.check(sum(live.values()) == sum(CALLS) and
                count_where(live, r"^([A-Za-z_]+;)*main;site_[ab];") == sum(CALLS),
                "flame: every stack goes up to main, and only libc frames above it", str(live))
        text = "\n".join(outs[0][1])
        r.check(re.search(r"^    ustack tgid %s$" % pid, text, re.M) and
                re.search(r"^      site_a\+0x[0-9a-f]+/0x[0-9a-f]+$", text, re.M),
                "rows: the user stack's process, its frames named (site_a+0xOFF/0xSIZE)",
                text[:300])
        gone = folded(outs[2][1])
        r.check(sum(gone.values()) == sum(CALLS) and
                all(re.fullmatch(r"(0x[0-9a-f]+;?)+", s) for s in gone),
                "once the program has exited, its frames stay addresses", str(gone))

    # A stripped copy: module+0xOFF frames; its debug file by build ID: names.
    outs = tool_outputs(steps.get("stripped", [])) if tool else []
    r.check(not tool or (len(outs) == 2 and all(rc == "0" for _, _, rc in outs)),
            "stripped: kstats flame runs before and after the debug file is installed",
            str([(a, rc) for a, _, rc in outs]))
    if len(outs) == 2:
        bare, named = folded(outs[0][1]), folded(outs[1][1])
        r.check(sum(bare.values()) == sum(CALLS) and
                count_where(bare, r"^(ustack_prog\+0x[0-9a-f]+;){2,}ustack_prog\+0x[0-9a-f]+$")
                == sum(CALLS) and
                not count_where(bare, r"site_"),
                "stripped: frames as ustack_prog+0xOFF (the module, no symbol)", str(bare))
        for site, n in zip(("site_a", "site_b"), CALLS):
            r.check(count_where(named, r"(^|;)main;%s;(__)?getppid$" % site) == n,
                    "stripped, its debug file in /usr/lib/debug/.build-id: main;%s;getppid "
                    "named again, %d calls" % (site, n), str(named))

    # Off-CPU: the reader's stack from main to the kernel, its waker's.
    st = steps["pipe"]
    node = (key_nodes(st).get("up") or [None])[0]
    rows = named_rows(node, syms)
    # The first program frame above glibc's (which may be several: 2.41's
    # read() reaches the syscall through __syscall_cancel and a tail call).
    def first_prog(names, seq):
        i = next((j for j, f in enumerate(names) if f in PROG_FUNCS), None)
        return i is not None and i > 0 and names[i:i + len(seq)] == seq

    reader = [(c, n, x) for c, n, x in rows if first_prog(n, ["wait_inner", "wait_outer", "main"])]
    r.check(sum(c for c, _, _ in reader) == WAITS and
            all(any(re.match(r"(anon_)?pipe_read\+", f) for f in x["parts"]["kstack"])
                for _, _, x in reader),
            "off-CPU named by nm: %d waits from main, wait_outer, wait_inner (the first "
            "program frame above glibc's), in pipe_read (anon_pipe_read on 7.x)" % WAITS, str([(c, n) for c, n, _ in rows]))
    wakers = [user_names(syms, x["parts"].get("waker-ustack", [])) for _, _, x in reader]
    r.check(wakers and all(first_prog(w, ["wake_reader", "writer"]) for w in wakers),
            "off-CPU named by nm: each woken by wake_reader (the first program frame above "
            "glibc's), in the writer thread", str(wakers))
    sleeps = [(c, x["parts"].get("waker-ustack head")) for c, n, x in rows if "writer" in n
              and x not in [y for _, _, y in reader]]
    r.check(sum(c for c, _ in sleeps) == WAITS and
            all(h in ("[interrupt]", "[kernel thread]" if rt else "[interrupt]") for _, h in sleeps),
            "off-CPU: the writer's %d nanosleep() waits, woken by a timer (%s)"
            % (WAITS, "[interrupt], or [kernel thread] on PREEMPT_RT" if rt else "[interrupt]"),
            str(sleeps))
    outs = tool_outputs(st) if tool else []
    stacks = folded(outs[0][1]) if outs else {}
    reader = r"main;wait_outer;wait_inner;(\w+;)+?entry_SYSCALL_64\w*;.*pipe_read;.*schedule"
    r.check(not tool or count_where(stacks, reader) == WAITS,
            "off-CPU: %d waits with main;wait_outer;wait_inner;(glibc) above pipe_read and "
            "schedule (user frames under the kernel's)" % WAITS, str(stacks))
    r.check(not tool or count_where(stacks, reader + r".*;--;(\w+;)+wake_reader;writer;") == WAITS,
            "off-CPU: each woken by the writer thread's wake_reader (waker-ustack)",
            str(stacks))
    woke = "(\\[kernel thread\\]|\\[interrupt\\])" if rt else "\\[interrupt\\]"
    r.check(not tool or count_where(stacks, r";writer;(__)?nanosleep;.*;--;%s$" % woke) == WAITS,
            "off-CPU: the writer's %d nanosleep() waits, woken by a timer: waker-ustack %s"
            % (WAITS, "[interrupt] ([kernel thread] on PREEMPT_RT)" if rt else "[interrupt]"),
            str(stacks))
    # Besides the reader's and the writer's waits (each exactly WAITS, in
    # their rows, above), main waits at most once more: in pthread_join()
    # for the writer's exit. That wakeup can come while main is still
    # switching out; the README gives such a wait no waker, so the other
    # row (seen once on a loaded host). No other wait may be there.
    other = node["other"]["count"] if node else -1
    extra = sum(c for c, _, _ in rows) + other - 2 * WAITS
    r.check(node and 0 <= other <= extra <= 1,
            "off-CPU: no wait in other but main's one pthread_join() (the documented wakeup "
            "during its switch-out): other %d, waits beyond the reader's and writer's %d" % (other, extra),
            str(node and node["other"]))
    kinds = next((l.split()[1:] for l in st if l.startswith("@@SVGKINDS")), [])
    r.check(not tool or ({"u:main", "u:wait_outer", "u:wait_inner", "k:schedule"} <= set(kinds)
                         and not {"k:main", "k:wait_outer", "u:schedule"} & set(kinds)),
            "flame --svg: the program's frames in the user palette, schedule in the kernel's",
            str(kinds))

    # Kernel threads have no user stack: one documented row, nothing lost.
    st = steps["kthread"]
    node = (key_nodes(st).get("uk") or [None])[0]
    rows = node["rows"] if node else []
    samples = [int(m.group(1)) for l in st
               for m in [re.match(r"^# samples (\d+)$", l)] if m]
    r.check(rows and {x["parts"].get("ustack head") for x in rows} == {"[kernel thread]"},
            "kernel threads' waits: one row, ustack [kernel thread]",
            str([x["parts"] for x in rows][:3]))
    r.check(samples and samples[0] > 0 and
            sum(x["count"] for x in rows) + node["other"]["count"] == samples[0],
            "kernel threads' waits: the row and other hold every sample",
            "%s vs %s" % (samples, [x["count"] for x in rows]))

    c = {line: (rc, err) for line, rc, err in ctls(steps["refusals"])}
    for line, err, why in REFUSALS:
        got = c.get(line)
        r.check(got and got[0] != "0" and err in got[1], "refused (%s): %s" % (err, line), str(got))
        r.check(any(why in l for l in lines), "dmesg says why: %s" % why)
    return r


def main():
    if sys.argv[1] == "gen":
        gen(*sys.argv[2:5])
        return 0
    return report("ustack", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
