#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Foundation tests of kstats.ko in a stock-kernel QEMU guest.

  basic_test.py gen GUEST_SCRIPT   write the busybox script the guest runs
  basic_test.py check LOGFILE      assert on the guest's console log

Expected figures come from ref_*() below, a plain restatement of the
histogram's definition (slot ranges searched by bisection), not from the
module's code.
"""
import bisect
import re
import sys

U64_MAX = (1 << 64) - 1
SUM_BITS = 20  # documented in src/hist.h: offsets keep 20 significant bits

# ---------------------------------------------------------------- reference


def ref_n_slots(fb):
    return ((64 - fb + 1) << fb) + 1


def ref_slot_ranges(fb):
    """[lo, hi] of every reachable slot, in order."""
    ranges = [(v, v) for v in range(1 << fb)]
    for top in range(fb, 64):           # position of the leftmost 1
        width = 1 << (top - fb)
        for j in range(1 << fb):
            lo = (1 << top) + j * width
            ranges.append((lo, lo + width - 1))
    return ranges


_RANGES = {fb: ref_slot_ranges(fb) for fb in range(6)}
_LOS = {fb: [r[0] for r in _RANGES[fb]] for fb in range(6)}


def ref_slot(fb, v):
    return bisect.bisect_right(_LOS[fb], v) - 1


def ref_avg(fb, slot, values):
    """Average as documented: exact while the slot is <= 2^20 wide, else
    offsets from the slot's base keep their top 20 bits."""
    lo, hi = _RANGES[fb][slot]
    width = hi - lo + 1
    shift = max(0, width.bit_length() - 1 - SUM_BITS)
    scaled = sum((v - lo) >> shift for v in values) // len(values)
    return lo + (scaled << shift)


def ref_node(fb, samples, ncpus):
    """samples: list of (cpu, value, n). Returns the expected data lines."""
    per = {}                              # (slot, cpu) -> list of (value, n)
    for cpu, v, n in samples:
        per.setdefault((ref_slot(fb, v), cpu), []).append((v, n))
    tot_cpu = {}
    for (s, cpu), vs in per.items():
        tot_cpu[cpu] = tot_cpu.get(cpu, 0) + sum(n for _, n in vs)
    total = sum(tot_cpu.values())
    lines, cum, cum_all = [], {}, 0
    for s in sorted({s for s, _ in per}):
        allvals = []
        for cpu in range(ncpus):
            vs = per.get((s, cpu))
            if not vs:
                continue
            vals = [v for v, n in vs for _ in range(n)]
            allvals += vals
            cum[cpu] = cum.get(cpu, 0) + len(vals)
            lines.append(fmt(s, False, cpu, len(vals), ref_avg(fb, s, vals),
                             cum[cpu], tot_cpu[cpu]))
        cum_all += len(allvals)
        lines.append(fmt(s, True, ncpus, len(allvals), ref_avg(fb, s, allvals),
                         cum_all, total))
    return lines


def fmt(slot, totals, cpu, count, avg, cum, total):
    micro = cum * 1000000 // total
    p = "1.000000" if micro >= 1000000 else "0.%06d" % micro
    return "slot %-3d CPU%s %-4d count %8d avg %8d p %s" % (
        slot, "S" if totals else " ", cpu, count, avg, p)


# The summary ('#' lines at the top of a node), as documented in the README.
PCTS = [("p50", 1, 2), ("p90", 9, 10), ("p99", 99, 100), ("p99.9", 999, 1000),
        ("p99.99", 9999, 10000)]
KEYS = (["name", "frac_bits", "state", "samples", "missed", "nmi_dropped",
         "min", "max", "mean"] +
        [k + x for k, _, _ in PCTS for x in ("", "_slot", "_err", "_relerr")] +
        ["unit"])
# The figures that are "-" without samples.
FIGURES = KEYS[6:-1]


def ref_mean(fb, values):
    """Documented: each sample counts as its slot's base plus its offset
    with the offset's bits below the top 20 cleared; rounded down."""
    tot = 0
    for v in values:
        lo, hi = _RANGES[fb][ref_slot(fb, v)]
        shift = max(0, (hi - lo + 1).bit_length() - 1 - SUM_BITS)
        tot += lo + (((v - lo) >> shift) << shift)
    return tot // len(values)


def ref_summary(fb, values):
    """Expected figures from the raw samples: exact min/max/mean, and for
    each percentile the true nearest-rank value and the documented
    estimate: the slot's samples spread evenly over [L, H], the slot's
    range cut to [min, max]; a lone one at H if H is the max, else at L)."""
    vs = sorted(values)
    n = len(vs)
    res = {"samples": n}
    if not n:
        return res
    res.update(min=vs[0], max=vs[-1], mean=ref_mean(fb, vs))
    for key, num, den in PCTS:
        rank = max(1, -(-n * num // den))
        true = vs[rank - 1]
        s = ref_slot(fb, true)
        lo, hi = _RANGES[fb][s]
        below = sum(1 for v in vs if v < lo)
        count = sum(1 for v in vs if lo <= v <= hi)
        L, H = max(lo, vs[0]), min(hi, vs[-1])
        if count > 1:
            est = L + (H - L) * (rank - below - 1) // (count - 1)
        else:
            est = H if H == vs[-1] else L
        res[key] = dict(true=true, slot=s, est=est, lo=lo, hi=hi, err=H - L)
    return res


def summary(hdr):
    """The '# key value' lines of a node: dict, and the keys in order."""
    d, order = {}, []
    for l in hdr:
        f = l.split()
        if len(f) == 3 and f[1] in KEYS:
            d[f[1]] = f[2]
            order.append(f[1])
    return d, order


def check_summary(r, what, hdr, fb, values, name, state="active", exact=True):
    """Summary of a node against the reference from its raw samples."""
    got, order = summary(hdr)
    r.check(order == KEYS, "%s: summary keys, in the documented order" % what,
            str(order))
    ref = ref_summary(fb, values)
    r.check(got.get("name") == name and got.get("frac_bits") == str(fb) and
            got.get("state") == state and got.get("missed") == "0" and
            got.get("nmi_dropped") == "0" and got.get("unit") == "ns",
            "%s: name, frac_bits, state, missed 0, nmi_dropped 0, unit ns" % what, str(got))
    r.check(got.get("samples") == str(ref["samples"]), "%s: samples" % what,
            "%s vs %s" % (got.get("samples"), ref["samples"]))
    if not ref["samples"]:
        r.check(all(got.get(k) == "-" for k in FIGURES),
                "%s: no samples: every figure is '-'" % what, str(got))
        return
    for k in ("min", "max", "mean"):
        r.check(got.get(k) == str(ref[k]), "%s: exact %s" % (what, k),
                "got %s want %s" % (got.get(k), ref[k]))
    for key, _, _ in PCTS:
        want = ref[key]
        try:
            est, slot, err = (int(got[key]), int(got[key + "_slot"]),
                              int(got[key + "_err"]))
            rel = float(got[key + "_relerr"])
        except (KeyError, ValueError):
            r.check(False, "%s: %s lines parse" % (what, key), str(got))
            continue
        t = want["true"]
        ok = (slot == want["slot"] and want["lo"] <= est <= want["hi"] and
              abs(est - t) <= err <= want["hi"] - want["lo"] and
              abs(est - t) <= rel * t + 1e-9 and rel <= 2.0 ** -fb)
        r.check(ok, "%s: %s in the true value's slot, within err and relerr of it"
                % (what, key),
                "got %s slot %d err %d relerr %s; true %d slot %d [%d, %d]"
                % (est, slot, err, rel, t, want["slot"], want["lo"], want["hi"]))
        if exact:
            r.check(est == want["est"] and err == want["err"],
                    "%s: %s estimate and err as documented" % (what, key),
                    "got %d/%d want %d/%d" % (est, err, want["est"], want["err"]))


def check_consistent(r, what, data, hdr, state):
    """Summary against the slot lines of the same read."""
    got, _ = summary(hdr)
    cpus = [l.split() for l in data if "CPUS" in l]
    n = sum(int(c[5]) for c in cpus)
    ok = got.get("samples") == str(n) and got.get("state") == state
    if n:
        fb = int(got["frac_bits"])
        ok = ok and (ref_slot(fb, int(got["min"])) == int(cpus[0][1]) and
                     ref_slot(fb, int(got["max"])) == int(cpus[-1][1]) and
                     int(got["min"]) <= int(got["mean"]) <= int(got["max"]))
    else:
        ok = ok and got.get("min") == "-"
    r.check(ok, "%s: summary agrees with the slot lines (samples, min/max slots, state %s)"
            % (what, state), str(got) + " " + str(cpus))


# ---------------------------------------------------------------- scenario

NCPUS = 2
C = "/sys/kernel/debug/kstats_test_client"
D = "/sys/kernel/debug/kstats"

# The seed's example line, plus values on both CPUs and in hardirq context.
EXACT = [(0, 480, 589), (0, 500, 10), (0, 511, 1),
         (1, 480, 225), (1, 0, 3), (1, 1, 1), (1, 7, 2), (1, 8, 4), (1, 9, 1),
         (1, 1000000, 5), (1, U64_MAX, 1), (1, 1 << 63, 1),
         (0, 123456789, 2), (0, (1 << 62) + 12345, 3)]
EXACT_IRQ = {(1, 480), (1, 8), (1, U64_MAX), (0, 123456789)}


# Random samples with repeats, for percentiles inside crowded slots.
def random_samples():
    import random
    rnd = random.Random(9)
    return [(int(2 ** rnd.uniform(0, 40)), rnd.randint(1, 40)) for _ in range(60)]


INTERVAL = [[(480, 5), (7, 1)], [(1000000, 2), (500, 3), (2, 1)], []]
LOAD_ROUNDS = 200
# reset_race: a record of RZ_FIRST samples, then one of RZ_SECOND that a
# reset from the other CPU cuts (a count above RZ_SECOND would be one
# from before the reset come back).
RZ_FIRST = 100000
RZ_SECOND = 1000000


def boundary_values():
    vals = [0, 1, 1 << 63, U64_MAX]
    for k in range(1, 64):
        vals += [(1 << k) - 1, 1 << k, (1 << k) + 1]
    return vals


def gen(path):
    out = ["""set -u
C=%s
D=%s
w() { # w FILE TEXT: write, and print the outcome for the checker
	if (echo -n "$2" > "$1") 2>/tmp/err; then echo "@@W ok"
	else echo "@@W fail $(sed 's/.*: //' /tmp/err)"; fi
}
step() { echo "@@STEP $1 $(cut -d" " -f1 /proc/uptime)"; }
show() { echo "@@BEGIN $1"; cat "$D/$1"; echo "@@END $1 rc=$?"; }
ival() { echo "@@BEGIN $1"; cat "$D/_interval/$1"; echo "@@END $1 rc=$?"; }
step load
insmod /modules/kstats.ko && echo "@@OK insmod kstats"
insmod /modules/kstats_test_client.ko && echo "@@OK insmod client"
ls -l $D
""" % (C, D)]
    out.append("step exact\nw $C 'new 3 exact'")
    for cpu, v, n in EXACT:
        cmd = ("irq %d exact %d %d" % (cpu, v, n)) if (cpu, v) in EXACT_IRQ \
            else ("record exact %d %d" % (v, n))
        out.append("taskset -c %d sh -c \"printf '%s' > $C\" || echo '@@FAIL %s'"
                   % (cpu, cmd, cmd))
    out.append("show exact")
    for fb in range(6):
        out.append("step bounds%d\nw $C 'new %d bounds%d'" % (fb, fb, fb))
        out.append("for v in %s; do printf 'record bounds%d '$v' 1' > $C "
                   "|| echo \"@@FAIL $v\"; done"
                   % (" ".join(str(v) for v in boundary_values()), fb))
        out.append("show bounds%d" % fb)

    # On one CPU, whose lines the check compares whole: a PREEMPT_RT
    # kernel moves the shell between CPUs within the step.
    out.append("step random\nw $C 'new 2 rnd'")
    out.append("taskset -c 0 sh -c \"" + "; ".join(
        "printf 'record rnd %d %d' > $C || echo '@@FAIL %d'" % (v, n, v)
        for v, n in random_samples()) + "\"")
    out.append("show rnd")
    out.append("""step single
w $C 'new 4 one'
show one
w $C 'record one 123457 1'
show one
step interval
w $C 'new 3 iv'
test -f $D/_interval/iv && echo "@@OK interval file"
""")
    for batch in INTERVAL:
        for v, n in batch:
            out.append("w $C 'record iv %d %d'" % (v, n))
        out.append("ival iv")
    out.append("""show iv
w $C 'record iv 5000 4'
w $D/iv reset
w $C 'record iv 300 2'
ival iv
w $C 'record iv 70 1'
# An open that is never read ends no interval: 70 and 90 are in one.
exec 3< $D/_interval/iv
exec 3<&-
w $C 'record iv 90 1'
ival iv
step lossless
w $C 'new 3 ll'
w $C 'load ll 1000'
for i in $(seq 1 %d); do
	echo "@@IV $(awk '/^# samples /{s=$3} /CPUS/{c+=$6} END{print s, c}' $D/_interval/ll)"
done
w $C 'unload'
echo "@@IVF $(awk '/^# samples /{s=$3} /CPUS/{c+=$6} END{print s, c}' $D/_interval/ll)"
echo "@@LOAD $(cat $C)"
show ll
ival ll
""" % LOAD_ROUNDS)
    out.append("""step control
w $C 'new 2 ctl'
w $C 'record ctl 100 7'
w $D/ctl 'stop
'
w $C 'record ctl 100 5'
show ctl
w $D/ctl 'START'
w $C 'record ctl 100 3'
show ctl
for bad in bogus 'startx' 'start

' 'resetresetreset' ' start' 'Stop '; do w $D/ctl "$bad"; done
show ctl
w $D/ctl 'Reset
'
show ctl
w $C 'record ctl 20 1'
show ctl
step reset_race
w $C 'new 3 rz'
# The resets fall at 1/40 .. 30/40 of a record's length as timed here
# (at least 10 ms): how long it takes depends on the host's load.
s0=$(cut -d' ' -f1 /proc/uptime)
taskset -c 1 sh -c "echo 'record rz 1000 %(rz2)d' > $C"
s1=$(cut -d' ' -f1 /proc/uptime)
rzlen=$(awk -v a=$s0 -v b=$s1 'BEGIN { d = (b - a) * 1000000; if (d < 10000) d = 10000; printf "%%d", d }')
echo "@@RECORD-US $rzlen"
echo reset > $D/rz
for t in $(seq 1 30); do
	taskset -c 1 sh -c "echo 'record rz 1000 %(rz1)d' > $C"
	taskset -c 1 sh -c "echo 'record rz 1000 %(rz2)d' > $C" &
	usleep $((rzlen * t / 40))
	taskset -c 0 sh -c "echo reset > $D/rz"
	wait
	echo "@@RZ $(grep 'CPUS' $D/rz | awk '{print $6}')"
done
step names
w $C 'new 3 exact'
w $C 'new 6 badbits'
w $C 'new 3 '
w $C 'new 3 a/b'
w $C 'new 3 a b'
w $C 'new 3 tab	x'
w $C 'new 3 _control'
w $C 'new 3 ..'
w $C 'new 3 %(n63)s'
w $C 'new 3 %(n64)s'
ls $D
w $C 'null'
step delete_open
w $C 'new 0 doomed'
w $C 'record doomed 5 1'
exec 3< $D/doomed
w $C 'delete doomed'
cat <&3 >/dev/null 2>/tmp/err; echo "@@READ rc=$? $(sed 's/.*: //' /tmp/err)"
exec 3<&-
test -e $D/doomed && echo "@@STALE doomed"
step unload
rmmod kstats 2>&1; echo "@@RMMOD kstats_with_client rc=$?"
exec 4< $D/exact
rmmod kstats_test_client; echo "@@RMMOD client rc=$?"
ls $D | grep -v '^_control$' | sed 's/^/@@LEFT /'
rmmod kstats 2>&1; echo "@@RMMOD kstats_with_open_file rc=$?"
exec 4<&-
rmmod kstats; echo "@@RMMOD kstats rc=$?"
test -e $D && echo "@@STALE kstats dir"
step demo
insmod /modules/kstats.ko
insmod /modules/kstats_demo.ko
sleep 2
show demo_usleep_1ms
show demo_hrtimer_late
rmmod kstats_demo && rmmod kstats && echo "@@OK demo unloaded"
ls /sys/kernel/debug | grep kstats | sed 's/^/@@LEFT /'
step done
""" % {"rz1": RZ_FIRST, "rz2": RZ_SECOND, "n63": "n" * 63, "n64": "n" * 64})
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- checker

def series_of(kver):
    """The kernel series of a release string: "7.2.13+deb14-rt-amd64" -> "7.2"."""
    m = re.match(r"(\d+)\.(\d+)", kver or "")
    return "%s.%s" % m.groups() if m else "6.1"


def at_least(series, base):
    """Whether SERIES ("6.12") is BASE ("6.12") or later."""
    return tuple(map(int, series.split("."))) >= tuple(map(int, base.split(".")))


def console_series(log):
    """The series of the kernel that booted, from the guest's start marker."""
    m = re.search(r"KSTATS-GUEST-START (\S+)", log)
    return series_of(m.group(1) if m else "")


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s %s" % (what, detail))


# A kernel message that cut a line of the script's output: the serial
# console prints it where the script's line stood, and the rest of that
# line follows the message's newline.
_CUT_BY_PRINTK = re.compile(r"^([^\[].*?)(\[ *\d+\.\d+\] .*)$")


def deinterleave(lines):
    """@lines with each kernel message that cut a line of the script's
    output moved before that line, and the line made whole again."""
    out, i = [], 0
    while i < len(lines):
        m = _CUT_BY_PRINTK.match(lines[i])
        if m and i + 1 < len(lines):
            out += [m.group(2), m.group(1) + lines[i + 1]]
            i += 2
        else:
            out.append(lines[i])
            i += 1
    return out


def parse(log):
    """The console's lines, and the lines of each '@@STEP name'."""
    lines = deinterleave([l.rstrip("\r") for l in log.split("\n")])
    steps, cur = {}, None
    for l in lines:
        m = re.search(r"@@STEP (\S+)", l)
        if m:
            cur = m.group(1)
            steps[cur] = []
            continue
        if cur is not None:
            steps[cur].append(l)
    return lines, steps


def blocks(step_lines):
    """Each 'show' in a step, as (data lines, '#' lines)."""
    res, cur = [], None
    for l in step_lines:
        if l.startswith("@@BEGIN"):
            cur = []
        elif l.startswith("@@END"):
            res.append(([x for x in cur if x.startswith("slot")],
                        [x for x in cur if x.startswith("#")], l))
            cur = None
        elif cur is not None:
            cur.append(l)
    return res


def writes(step_lines):
    return [l[4:] for l in step_lines if l.startswith("@@W ")]


def check(logpath):
    r = Results()
    log = open(logpath, errors="replace").read()
    lines, steps = parse(log)
    for s in ["load", "exact", "random", "single", "interval", "lossless", "control", "reset_race", "names", "delete_open", "unload",
              "demo", "done"] + ["bounds%d" % fb for fb in range(6)]:
        r.check(s in steps, "step %s reached" % s)
    if "done" not in steps:
        return r

    ld = steps["load"]
    r.check("@@OK insmod kstats" in ld and "@@OK insmod client" in ld,
            "modules load")

    data, hdr, _ = blocks(steps["exact"])[0]
    want = ref_node(3, EXACT, NCPUS)
    r.check(data == want, "exact: every slot, count, avg and p line",
            "\n got:\n  %s\n want:\n  %s" % ("\n  ".join(data), "\n  ".join(want)))
    r.check(not any("@@FAIL" in l for l in steps["exact"]), "exact: records accepted")
    r.check("slot 55  CPU  0    count      600 avg      480 p " in "\n".join(data),
            "exact: seed layout for slot 55")
    expand = lambda pairs: [v for v, n in pairs for _ in range(n)]
    check_summary(r, "exact", hdr, 3, expand((v, n) for _, v, n in EXACT), "exact")
    r.check(hdr[:1] == ["# name exact"] and len(hdr) == len(KEYS),
            "exact: summary lines come first, and a client metric has no other '#' line",
            str(hdr))

    data, hdr, _ = blocks(steps["random"])[0]
    check_summary(r, "random", hdr, 2, expand(random_samples()), "rnd")
    r.check(data == ref_node(2, [(c, v, n) for v, n in random_samples()
                                 for c in [int(data[0].split()[3])]], NCPUS)
            if data else False, "random: slot lines", "\n".join(data[:4]))

    sb = blocks(steps["single"])
    check_summary(r, "empty", sb[0][1], 4, [], "one")
    r.check(sb[0][0] == [], "empty: no slot lines")
    check_summary(r, "single sample", sb[1][1], 4, [123457], "one")
    got, _ = summary(sb[1][1])
    r.check(all(got.get(k) == "123457" for k, _, _ in PCTS) and
            all(got.get(k + "_err") == "0" for k, _, _ in PCTS),
            "single sample: every percentile is that sample, with err 0", str(got))

    st = steps["interval"]
    r.check("@@OK interval file" in st, "interval: _interval/NAME exists")
    ib = blocks(st)
    for i, batch in enumerate(INTERVAL):
        data, hdr, end = ib[i]
        check_summary(r, "interval %d" % i, hdr, 3, expand(batch), "iv")
        want = [l for l in ref_node(3, [(0, v, n) for v, n in batch], NCPUS) if "CPUS" in l]
        r.check([l for l in data if "CPUS" in l] == want,
                "interval %d: CPUS lines of that interval only" % i, str(data))
    allv = expand(p for b in INTERVAL for p in b)
    check_summary(r, "interval: cumulative node unchanged by cuts", ib[len(INTERVAL)][1], 3,
                  allv, "iv")
    check_summary(r, "interval after reset: only what came after the reset",
                  ib[len(INTERVAL) + 1][1], 3, [300, 300], "iv")
    check_summary(r, "interval: an open never read ends no interval (70 and 90 in one)",
                  ib[len(INTERVAL) + 2][1], 3, [70, 90], "iv")

    st = steps["lossless"]
    iv = [l.split()[1:] for l in st if l.startswith("@@IV ")]
    ivf = [l.split()[1:] for l in st if l.startswith("@@IVF ")]
    load = [l.split() for l in st if l.startswith("@@LOAD ")]
    try:
        made = int(load[0][3]) + int(load[0][5])
        task, timer = int(load[0][3]), int(load[0][5])
        counts = [int(x[0]) for x in iv + ivf]
        sums = [int(x[1]) if len(x) > 1 else 0 for x in iv + ivf]
    except (IndexError, ValueError):
        made, task, timer, counts, sums = -1, 0, 0, [], []
    r.check(len(iv) == LOAD_ROUNDS, "lossless: %d interval reads" % LOAD_ROUNDS, str(len(iv)))
    r.check(task > 0 and timer > 0, "lossless: a task and a HARD hrtimer recorded",
            str(load))
    r.check(sum(counts) == made,
            "lossless: %d intervals sum exactly to the records made" % len(counts),
            "sum %d made %d" % (sum(counts), made))
    r.check(counts == sums, "lossless: each interval's samples equal its CPUS counts")
    r.check(sum(1 for c in counts[:-1] if c) >= LOAD_ROUNDS // 2,
            "lossless: intervals did cut while CPUs recorded", str(counts[:20]))
    lb = blocks(st)
    got, _ = summary(lb[0][1])
    r.check(got.get("samples") == str(made) and got.get("min") == "1000" and
            got.get("max") == "1000",
            "lossless: cumulative node has every record", str(got))
    r.check(len({l.split()[3] for l in lb[0][0] if "CPUS" not in l}) == NCPUS,
            "lossless: records on every CPU", str(lb[0][0]))
    got, _ = summary(lb[1][1])
    r.check(got.get("samples") == "0" and lb[1][0] == [],
            "lossless: nothing left after the last interval", str(got))

    for fb in range(6):
        data, _, _ = blocks(steps["bounds%d" % fb])[0]
        want = ref_node(fb, [(0, v, 1) for v in boundary_values()], NCPUS)
        # Records came from whatever CPU the shell ran on: compare the
        # CPUS lines, which do not depend on it.
        got = [l for l in data if "CPUS" in l]
        want = [l for l in want if "CPUS" in l]
        r.check(got == want, "bounds frac_bits=%d: slots of 0,1,2^k-1,2^k,2^k+1,2^63,U64_MAX" % fb,
                "\n got:\n  %s\n want:\n  %s" % ("\n  ".join(got[:8]), "\n  ".join(want[:8])))
        top = [l for l in data if "CPUS" in l][-1]
        r.check(top.startswith("slot %-3d CPUS" % ref_slot(fb, U64_MAX)),
                "bounds frac_bits=%d: U64_MAX in slot n_slots-2 = %d"
                % (fb, ref_n_slots(fb) - 2))
        r.check(ref_slot(fb, U64_MAX) == ref_n_slots(fb) - 2,
                "reference agrees: U64_MAX slot is n_slots-2 (fb=%d)" % fb)

    # start/stop/reset and refused writes
    st = steps["control"]
    sh = blocks(st)
    ctl = lambda n: [(0, 100, n)]
    cpus = lambda d: [l for l in d if "CPUS" in l]
    ws = writes(st)
    r.check(ws[:3] == ["ok", "ok", "ok"], "control: new, record, stop accepted", str(ws[:3]))
    r.check(cpus(sh[0][0]) == cpus(ref_node(2, ctl(7), NCPUS)),
            "control: records while stopped are ignored", str(sh[0][0]))
    r.check("# state stopped" in sh[0][1], "control: '# state stopped' while stopped")
    r.check(cpus(sh[1][0]) == cpus(ref_node(2, ctl(10), NCPUS)),
            "control: START (any case) resumes", str(sh[1][0]))
    r.check("# state active" in sh[1][1], "control: '# state active' after start")
    for i, state in enumerate(["stopped", "active", "active", "active", "active"]):
        check_consistent(r, "control read %d" % i, sh[i][0], sh[i][1], state)
    bad = ws[6:12]
    r.check(bad == ["fail Invalid argument"] * 6,
            "control: bad and over-long commands give EINVAL", str(bad))
    r.check(sh[2][0] == sh[1][0], "control: refused writes change nothing")
    # Each refused write says why in dmesg, naming the word.
    for word in ("bogus", "startx", "resetresetreset"):
        r.check(any(l.endswith("kstats: ctl: unknown command '%s'; use start, stop or reset" % word)
                    for l in lines), "control: dmesg names the refused command '%s'" % word)
    r.check(ws[12] == "ok" and sh[3][0] == [], "control: reset clears all",
            str(sh[3]))
    r.check(cpus(sh[4][0]) == cpus(ref_node(2, [(0, 20, 1)], NCPUS)),
            "control: records after reset", str(sh[4][0]))

    rz = [l.split()[1:] for l in steps["reset_race"] if l.startswith("@@RZ")]
    counts = [int(x[0]) if x else 0 for x in rz]
    # Above RZ_SECOND only if counts from before the reset came back.
    r.check(len(counts) == 30 and all(c <= RZ_SECOND for c in counts),
            "reset while another CPU records never brings back pre-reset counts",
            str(counts))
    r.check(sum(1 for c in counts if 0 < c < RZ_SECOND) >= 5,
            "reset race test: resets did land while the other CPU recorded",
            str(counts))

    # names
    ws = writes(steps["names"])
    expect = ["fail Invalid argument"] * 8 + ["ok", "fail Invalid argument", "ok"]
    r.check(ws == expect, "names: duplicate, frac_bits 6, empty, '/', blank, tab, _reserved, '..', 63 ok, 64 refused; NULL key ok",
            str(ws))
    for reason in ["kstats_new: exact: name already exists",
                   "kstats_new: badbits: frac_bits 6 out of range 0..5",
                   "kstats_new: empty name",
                   "kstats_new: name has '/' or a byte other than printable ASCII",
                   "kstats_new: names starting with _ are reserved",
                   "kstats_new: name is . or ..",
                   "kstats_new: name longer than 63 bytes"]:
        r.check(any(("kstats: " + reason) in l for l in lines),
                "names: dmesg says '%s'" % reason)
    r.check(any(l.strip() == "n" * 63 for l in steps["names"]),
            "names: 63-byte node exists")

    d = steps["delete_open"]
    r.check(any(l.startswith("@@READ rc=1 Input/output error") for l in d),
            "delete: read of an open file after removal gives EIO",
            str([l for l in d if "@@READ" in l]))
    r.check(not any("@@STALE" in l for l in d), "delete: node is gone")

    u = steps["unload"]
    rc = lambda tag: next((l.split("rc=")[1] for l in u
                           if l.startswith("@@RMMOD %s " % tag)), None)
    r.check(rc("kstats_with_client") not in (None, "0"),
            "unload: rmmod kstats refused while a client is loaded")
    r.check(rc("client") == "0", "unload: rmmod client")
    r.check(not any(l.startswith("@@LEFT") for l in u),
            "unload: client's nodes all removed", str([l for l in u if "@@LEFT" in l]))
    r.check(rc("kstats_with_open_file") not in (None, "0"),
            "unload: rmmod kstats refused while a node is open")
    r.check(rc("kstats") == "0", "unload: rmmod kstats once nothing holds it")
    r.check(not any("@@STALE" in l for l in u), "unload: debugfs dir removed")

    dm = blocks(steps["demo"])
    for data, _, end in dm:
        r.check(end.endswith("rc=0") and data, "demo: %s has samples" % end.split()[1])
    sl = [l for l in dm[0][0] if "CPUS" in l]
    r.check(all(_RANGES[3][int(l.split()[1])][1] >= 1000000 for l in sl),
            "demo: no usleep_range(1000, 1100) shorter than 1 ms", str(sl))
    r.check("@@OK demo unloaded" in steps["demo"] and
            not any(l.startswith("@@LEFT") for l in steps["demo"]),
            "demo: unloads and leaves nothing")
    return r


def report(suite, r):
    """The line run-all.sh adds up, and the exit code."""
    print("%s: %d passed, %d failed" % (suite, r.passed, r.failed))
    return 1 if r.failed else 0


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        return 0
    return report("basic", check(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
