#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""/dev/kstats and kernel lockdown (issue 39), in a stock-kernel QEMU guest.

  lockdown_test.py gen GUEST_SCRIPT SERIES [ARCH]   write the busybox script
  lockdown_test.py check LOGFILE                     assert on the console log

Before lockdown: /dev/kstats is root's character device, mode 0600; bad
lines and node commands get the same errno and the same one dmesg line
through _control and /dev/kstats; writers on both paths at once leave no
trace and no node behind. Under integrity (Secure Boot's mode): _control
and node writes are refused, a function trace made, stopped, started and
reset through /dev/kstats counts exactly the target's calls, intervals
read, and the grammar fuzzer (its corpus first) runs through /dev/kstats
with its own expected errnos and dmesg lines. Under confidentiality:
function, tracepoint and off-CPU traces are refused with EPERM, with the
kernel's Lockdown line and kstats' one; a trace made before the raise
keeps recording and is removed; a client's metric records and reads.
The keys, offcpu and counts guests run locked down too (lockdown.py).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from basic_test import Results, parse, report, summary  # noqa: E402
from trace_test import nodes, total  # noqa: E402

DELAY_NS, N1, N_STOPPED, N3 = 20000, 10, 5, 3
N_PRE, N_CLIENT, N_RUN = 4, 7, 6
RACE_ROUNDS = 20
FUZZ_LINES = 1500
LONG64 = "x" * 64

# Lines whose answer _control and /dev/kstats must share: errno and the
# one dmesg line.
PARITY = [
    "frob x",
    "start",
    "stop a b",
    "Start pa",
    "start nosuch",
    "reset " + LONG64,
    "remove nosuch",
    "trace p1 start kst_nosuch_fn",
    "trace p1 bits 9 start kst_target_delay",
    "trace KEY-x start kst_target_delay",
    "trace p1 start kst_target_delay frob 1",
    "reset pa",
    "stop pa",
    "start pa",
]


def gen(path, series, arch="x86_64"):
    # TCG runs arm64's single-threaded guests slower: a third of the lines.
    fuzz = FUZZ_LINES if arch == "x86_64" else FUZZ_LINES // 3
    # kstats run, where the tool is built (x86_64): SIGTERM ends it, so
    # the calls made while it ran are all its histogram shows.
    run = "" if arch != "x86_64" else """/modules/kstats run lr start kst_target_delay > /tmp/run.out 2>&1 &
p=$!
while ! grep -q '^lr ' /dev/kstats; do usleep 10000; done
tgt "delay %d %d"
kill -TERM $p; wait $p; echo "@@RUN rc=$?"
sed 's/^/@@RUNOUT /' /tmp/run.out
echo "@@RUN-LEFT $(grep -c '^lr ' /dev/kstats)"
""" % (DELAY_NS, N_RUN)
    par = "\n".join('parity "%s"' % l for l in PARITY)
    script = """set -u
D=/sys/kernel/debug/kstats
T=/dev/kstats_test_target
TC=/dev/kstats_test_client
L=/sys/kernel/security/lockdown
# One command through one path: rc, strerror, and the dmesg lines it made.
say() {
	dmesg -c > /dev/null
	(echo "$2" > $1) 2>/tmp/err
	rc=$?
	echo "@@SAY $1 rc=$rc $(sed 's/.*: //' /tmp/err) :: $2"
	dmesg | sed 's/^\\[[^]]*\\] //; s/^/@@DMESG /'
}
dev() { say /dev/kstats "$1"; }
ctl() { say $D/_control "$1"; }
parity() { ctl "$1"; dev "$1"; }
tgt() { echo "$1" > $T || echo "@@FAIL tgt $1"; }
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
insmod /modules/kstats.ko || echo "@@FAIL insmod kstats"
insmod /modules/kstats_test_target.ko || echo "@@FAIL insmod target"
insmod /modules/kstats_test_client.ko || echo "@@FAIL insmod client"
awk 'NR %% 1499 == 7 {print $1}' /sys/kernel/tracing/available_filter_functions > /tmp/funcs

step device
echo "@@LOCKDOWN $(cat $L)"
echo "@@DEVNODE $(stat -c '%%a %%u %%g' /dev/kstats) $([ -c /dev/kstats ] && echo char)"
echo "@@MISC $(grep -c ' kstats$' /proc/misc)"

step parity
ctl "trace pa start kst_target_delay"
%(par)s
ctl "remove pa"

step race
# Writers on both paths at once: their own names and one shared name,
# node commands and listings between.
racer() {
	i=0
	while [ $i -lt %(rounds)d ]; do
		echo "trace $2$i start kst_target_null" > $1
		echo "trace shared start kst_target_null" > $1
		echo "reset $2$i" > $1
		echo "stop shared" > $1
		cat $1 > /dev/null
		echo "remove shared" > $1
		echo "remove $2$i" > $1
		i=$((i + 1))
	done 2>/dev/null
	echo "@@RACER $2 done"
}
racer $D/_control ra &
racer /dev/kstats rb &
wait
echo "@@RACE-LIST $(cat /dev/kstats | wc -l)"
echo "@@RACE-LS $(ls $D | tr '\\n' ' ')"

step integrity
echo integrity > $L
echo "@@LOCKDOWN $(cat $L)"
ctl "remove none"
(cat $D/_control > /dev/null) 2>/dev/null; echo "@@CONTROL-READ rc=$?"
dev "trace ld start kst_target_delay"
say $D/ld reset
tgt "delay %(ns)d %(n1)d"
show ld
dev "stop ld"
tgt "delay %(ns)d %(n2)d"
show ld
dev "start ld"
dev "reset ld"
tgt "delay %(ns)d %(n3)d"
show ld
echo "@@INTERVAL-BEGIN"; cat $D/_interval/ld; echo "@@INTERVAL-END"
echo "@@INTERVAL2-BEGIN"; cat $D/_interval/ld; echo "@@INTERVAL2-END"
echo "@@LIST $(grep -c '^ld ' /dev/kstats)"
dev "remove ld"
%(run)s
step fuzz
/modules/ksfuzz -s 1 -k "$(uname -r)" -n %(fuzz)d -b 500 -P /dev/kstats -c /modules/control.txt -f /tmp/funcs
echo "@@FUZZ-RC $?"
# The fuzzer's refusals used up the window of dmesg's rate limit.
sleep 6

step confidentiality
dev "trace pre start kst_target_delay"
echo confidentiality > $L
echo "@@LOCKDOWN $(cat $L)"
dev "trace cf start kst_target_delay"
dev "trace ct start signal:signal_generate end signal:signal_deliver"
dev "trace co offcpu"
dev "trace pre bits 3 start kst_target_delay"
tgt "delay %(ns)d %(npre)d"
show pre
dev "remove pre"
echo "new 3 ldc" > $TC || echo "@@FAIL client new"
echo "record ldc 1000 %(nc)d" > $TC || echo "@@FAIL client record"
show ldc
dev "reset ldc"
show ldc
echo "@@LEFT $(cat /dev/kstats | wc -l)"

step unload
rmmod kstats_test_client || echo "@@FAIL rmmod client"
rmmod kstats_test_target || echo "@@FAIL rmmod target"
rmmod kstats && echo "@@RMMOD ok"
echo "@@GONE $([ -e /dev/kstats ] && echo dev) $([ -e $D ] && echo dir)"
step done
""" % {"par": par, "rounds": RACE_ROUNDS, "ns": DELAY_NS, "n1": N1, "n2": N_STOPPED,
       "n3": N3, "fuzz": fuzz, "run": run, "npre": N_PRE, "nc": N_CLIENT}
    with open(path, "w") as f:
        f.write(script)


def x86(log):
    m = re.search(r"KSTATS-GUEST-START (\S+)", log)
    return not (m and m.group(1).endswith("-arm64"))


def says(step_lines):
    """Each command's (path, rc, error, line, [dmesg lines])."""
    res = []
    for l in step_lines:
        m = re.match(r"@@SAY (\S+) rc=(\d+) (.*?) :: (.*)$", l)
        if m:
            res.append([m.group(1), int(m.group(2)), m.group(3).strip(), m.group(4), []])
        elif l.startswith("@@DMESG ") and res:
            res[-1][4].append(l[len("@@DMESG "):])
    return res


def samples(step_lines, name, i):
    shown = nodes(step_lines).get(name, [])
    if i >= len(shown):
        return None
    cpus, hdr = shown[i]
    s = summary(hdr)[0].get("samples")
    return (int(s) if s else None), total(cpus)


def kstats_lines(dm):
    return [l for l in dm if l.startswith("kstats: ")]


def check(logpath):
    log = open(logpath, errors="replace").read()
    lines, steps = parse(log)
    r = Results()
    r.check(not [l for l in lines if l.startswith("@@FAIL")], "every module and workload command ran",
            str([l for l in lines if l.startswith("@@FAIL")][:3]))
    r.check("done" in steps, "the guest script ran to its end")

    st = steps.get("device", [])
    r.check("@@LOCKDOWN [none] integrity confidentiality" in st, "device: no lockdown at first",
            str([l for l in st if "LOCKDOWN" in l]))
    r.check("@@DEVNODE 600 0 0 char" in st,
            "device: /dev/kstats is a character device, root's, mode 0600 (devtmpfs)",
            str([l for l in st if "DEVNODE" in l]))
    r.check("@@MISC 1" in st, "device: a misc device named kstats")

    st = steps.get("parity", [])
    sy = says(st)
    r.check(len(sy) == 2 * len(PARITY) + 2, "parity: every line went through both paths",
            str(len(sy)))
    pairs = {}
    for path, rc, err, line, dm in sy:
        pairs.setdefault(line, []).append((path, rc, err, kstats_lines(dm)))
    for line in PARITY:
        got = pairs.get(line, [])
        ok = len(got) == 2 and got[0][0].endswith("_control") and got[1][0] == "/dev/kstats"
        r.check(ok and got[0][1:] == got[1][1:],
                "parity: '%s' gets the same errno and dmesg line through _control and /dev/kstats"
                % line, str(got))
        if not ok:
            continue
        _, rc, err, km = got[1]
        node_ok = line in ("reset pa", "stop pa", "start pa")
        r.check((rc == 0 and not km) if node_ok else (rc != 0 and len(km) == 1),
                "parity: '%s' is %s" % (line, "taken, silently" if node_ok else
                                        "refused with one dmesg line"), str(got[1]))
    want = {"start nosuch": "No such file or directory",
            "reset " + LONG64: "File name too long",
            "start": "Invalid argument", "stop a b": "Invalid argument",
            "Start pa": "Invalid argument"}
    for line, err in want.items():
        got = pairs.get(line, [(None, None, None, None)] * 2)[1]
        r.check(got[2] == err, "parity: '%s' is refused with %s" % (line, err), str(got))
    got = pairs.get("start nosuch", [(None,) * 4] * 2)[1]
    r.check(got[3] == ["kstats: start nosuch: no histogram of that name"],
            "parity: an unknown node's dmesg line names the command and the name", str(got))

    st = steps.get("race", [])
    r.check("@@RACER ra done" in st and "@@RACER rb done" in st, "race: both writers finished")
    r.check("@@RACE-LIST 0" in st, "race: no trace is left in the listing",
            str([l for l in st if "RACE-LIST" in l]))
    r.check("@@RACE-LS _control " in st, "race: no node is left, only _control",
            str([l for l in st if "RACE-LS" in l]))

    st = steps.get("integrity", [])
    r.check("@@LOCKDOWN none [integrity] confidentiality" in st, "integrity: raised")
    sy = says(st)
    ctl_refused = [s for s in sy if s[0].endswith("_control")]
    r.check(len(ctl_refused) == 1 and ctl_refused[0][2] == "Operation not permitted",
            "integrity: the kernel refuses writes to _control (EPERM)", str(ctl_refused))
    r.check("@@CONTROL-READ rc=1" in st, "integrity: and reads of it")
    node_w = [s for s in sy if s[0] == "/sys/kernel/debug/kstats/ld"]
    r.check(len(node_w) == 1 and node_w[0][2] == "Operation not permitted",
            "integrity: the kernel refuses node writes (EPERM)", str(node_w))
    dv = [s for s in sy if s[0] == "/dev/kstats"]
    r.check(len(dv) == 5 and all(s[1] == 0 for s in dv),
            "integrity: trace, stop, start, reset and remove through /dev/kstats are taken",
            str([s[:4] for s in dv]))
    want = [(N1, N1), (N1, N1), (N3, N3)]
    got = [samples(st, "ld", i) for i in range(3)]
    r.check(got == want,
            "integrity: %d calls counted, none while stopped (%d calls), %d after start and reset"
            % (N1, N_STOPPED, N3), str(got))
    iv = [l for l in st[st.index("@@INTERVAL-BEGIN") + 1:st.index("@@INTERVAL-END")]] \
        if "@@INTERVAL-END" in st else []
    iv2 = [l for l in st[st.index("@@INTERVAL2-BEGIN") + 1:st.index("@@INTERVAL2-END")]] \
        if "@@INTERVAL2-END" in st else []
    r.check(summary(iv)[0].get("samples") == str(N3) and summary(iv2)[0].get("samples") == "0",
            "integrity: _interval/ld reads %d, then 0" % N3,
            str((summary(iv)[0].get("samples"), summary(iv2)[0].get("samples"))))
    r.check("@@LIST 1" in st, "integrity: reading /dev/kstats lists the trace")
    if x86(log):
        out = [l[len("@@RUNOUT "):] for l in st if l.startswith("@@RUNOUT ")]
        r.check("@@RUN rc=0" in st, "integrity: kstats run exits 0 at SIGTERM", str(out[-3:]))
        r.check(any(l.startswith("lr: %d samples, missed 0" % N_RUN) for l in out),
                "integrity: kstats run shows the histogram of the %d calls made while it ran"
                % N_RUN, str(out[:3]))
        r.check("@@RUN-LEFT 0" in st, "integrity: and removes its trace")

    st = steps.get("fuzz", [])
    done = [l for l in st if "@@FUZZ-DONE" in l]
    start = [l for l in st if "@@FUZZ seed=" in l]
    fails = [l for l in st if l.startswith("@@FAIL")]
    corpus = [l for l in st if l.startswith("@@CORPUS ")]
    r.check(bool(corpus), "fuzz: the corpus went through /dev/kstats first", str(corpus))
    m = re.search(r"lines=(\d+) accepted=(\d+) refused=(\d+)", done[0]) if done else None
    want = int(re.search(r"lines=(\d+)", start[0]).group(1)) if start else FUZZ_LINES
    r.check(m is not None and int(m.group(1)) >= want > 0 and int(m.group(2)) > 0,
            "fuzz: %d lines through /dev/kstats, some accepted" % want,
            done[0] if done else "no @@FUZZ-DONE")
    r.check(not fails and "@@FUZZ-RC 0" in st,
            "fuzz: every line got the errno and dmesg line the README gives", str(fails[:3]))

    st = steps.get("confidentiality", [])
    r.check("@@LOCKDOWN none integrity [confidentiality]" in st, "confidentiality: raised")
    sy = {s[3]: s for s in says(st)}
    for name, what, reason in (("cf", "a function trace", "use of kprobes is restricted"),
                               ("ct", "a tracepoint pair", "use of tracefs is restricted"),
                               ("co", "an off-CPU trace", "use of tracefs is restricted")):
        got = [s for line, s in sy.items() if line.startswith("trace %s " % name)]
        got = got[0] if got else [None, None, None, None, []]
        km = kstats_lines(got[4])
        r.check(got[2] == "Operation not permitted",
                "confidentiality: %s is refused with EPERM" % what, str(got[:4]))
        r.check(len(km) == 1 and "locked down (confidentiality)" in km[0] and
                km[0].startswith("kstats: trace %s: " % name),
                "confidentiality: %s: one kstats line naming lockdown" % what, str(got[4]))
        r.check(any("Lockdown: " in l and reason in l for l in got[4]),
                "confidentiality: %s: the kernel's Lockdown line (%s)" % (what, reason),
                str(got[4]))
    r.check(samples(st, "pre", 0) == (N_PRE, N_PRE),
            "confidentiality: a trace made before the raise records on (%d calls)" % N_PRE,
            str(samples(st, "pre", 0)))
    again = sy.get("trace pre bits 3 start kst_target_delay")
    r.check(again is not None and again[2] == "File exists",
            "confidentiality: a taken name is still EEXIST, as without lockdown", str(again))
    rm = sy.get("remove pre")
    r.check(rm is not None and rm[1] == 0, "confidentiality: and is removed", str(rm))
    r.check(samples(st, "ldc", 0) == (N_CLIENT, N_CLIENT) and samples(st, "ldc", 1) == (0, 0),
            "confidentiality: a client's metric records %d samples, and resets through "
            "/dev/kstats" % N_CLIENT, str((samples(st, "ldc", 0), samples(st, "ldc", 1))))
    r.check("@@LEFT 0" in st, "confidentiality: no trace is left")

    st = steps.get("unload", [])
    r.check("@@RMMOD ok" in st, "unload: rmmod kstats")
    r.check("@@GONE  " in st, "unload: /dev/kstats and the debugfs directory are gone",
            str([l for l in st if "GONE" in l]))
    return r


def main():
    if sys.argv[1] == "gen":
        gen(*sys.argv[2:5])
        return 0
    return report("lockdown", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
