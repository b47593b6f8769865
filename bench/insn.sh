#!/bin/bash
# Guest instructions per event, counted, not timed: a QEMU TCG plugin
# (bench/insn/kstats_insn.c) counts what a 1-vCPU guest executes between
# two marker NOPs that test/progs/insn_getpid runs around N getpid()
# calls. Counts do not drift with host load as TCG timings do (they
# repeat within about 1 %), so they show small changes in kstats' own
# path that the ratios of bench/bench.sh cannot. Instructions are not
# cycles: atomics, cache misses and rdtsc cost more than one.
# One boot per kernel, ROUNDS windows of each configuration, side by side:
#   untraced     no hook
#   default      `trace b start __x64_sys_getpid` (fprobe where the
#                kernel has it, else kretprobe)
#   nogap        the default trace with "gap off" (no GAP-NAME)
#   kretprobe    the same with method kretprobe
#   kprobe       a pair: __x64_sys_getpid to __task_pid_nr_ns
#   tracepoint   a pair: raw_syscalls sys_enter to sys_exit
# and the empty-hook floor of each method (bench/floor/, the hooks
# without kstats). Per method: traced and floor as added instructions per
# event over untraced, and kstats' own share, traced - untraced - floor,
# each the median of the rounds with its min and max (own: per round,
# against the floor of the same round).
# KS_INSN_METHODS limits the configurations (default: all four);
# test/insn-guard.sh runs the default one alone.
# Usage: bench/insn.sh [KVER...]   (default: every reference kernel)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
N=${KS_BENCH_N:-100000}
# Counts repeat closely: 4 windows give a median and a spread.
ROUNDS=${KS_BENCH_ROUNDS:-4}
METHODS=${KS_INSN_METHODS:-default nogap kretprobe kprobe tracepoint}
ks_bench_kernels "$@"
PLUGIN=$(bash bench/insn/build-plugin.sh)
for k in "${KERNELS[@]}"; do
	ks_bench_floor_module "$k" || exit 1
	windows=$TOP/out/bench-insn-$k.windows
	rm -f "$windows"
	# The default method is whatever kstats picks on this kernel: asked
	# in the guest, so the floor compared with it is the right one.
	KS_SMP=1 KS_QEMU_ARGS="-plugin $PLUGIN,out=$windows" \
		ks_bench_guest "$k" insn "out/$k/kstats.ko" "$FLOOR_KO" "out/$k/insn_getpid" <<GUEST
C=/sys/kernel/debug/kstats/_control
F=__x64_sys_getpid
E=__task_pid_nr_ns
insmod /modules/kstats.ko || exit 1
echo "trace probe start \$F" > \$C || exit 1
D=\$(awk '\$1 == "probe" {print \$3}' \$C)
echo "remove probe" > \$C
floors=""
for m in $METHODS; do
	case \$m in
	default|nogap) f=\$D ;;
	*) f=\$m ;;
	esac
	case " \$floors " in *" \$f "*) ;; *) floors="\$floors \$f" ;; esac
done
echo "@@DEFAULT \$D"
# Each window's label after it, in the order of the plugin's windows: a
# window that did not run prints none.
w() { /modules/insn_getpid $N >/dev/null && echo "@@W \$1"; }
for r in \$(seq 1 $ROUNDS); do
	w untraced
	for m in $METHODS; do
		case \$m in
		default) tr="start \$F" ;;
		nogap) tr="start \$F gap off" ;;
		kretprobe) tr="start \$F method kretprobe" ;;
		kprobe) tr="start \$F end \$E" ;;
		tracepoint) tr="start __tracepoint_sys_enter end __tracepoint_sys_exit" ;;
		esac
		echo "trace b \$tr" > \$C || { echo "@@FAIL trace \$m"; continue; }
		w \$m
		echo "@@SAMPLES \$m \$(awk '\$2 == "samples" {print \$3}' /sys/kernel/debug/kstats/b) method \$(awk '\$1 == "b" {print \$3}' \$C)"
		echo "remove b" > \$C
	done
	for f in \$floors; do
		insmod /modules/kstats_bench_floor.ko method=\$f sym=\$F end=\$E || { echo "@@FAIL floor \$f"; continue; }
		w floor-\$f
		rmmod kstats_bench_floor
	done
done
GUEST
	echo "== $k: guest instructions per getpid() event, N = $N per window, $ROUNDS windows (1 vCPU, TCG plugin)"
	# A failed guest leaves its figures out (test/insn-guard.sh fails on
	# that) and the next kernel still runs.
	python3 - "$k" "$LOG" "$windows" "$N" "$KS_BENCH_REPORT" <<'PY' || true
import re, statistics as st, sys
k, log, wfile, n, report = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
lines = open(log, errors="replace").read().splitlines()
labels = [l.split()[1] for l in lines if l.startswith("@@W ")]
try:
    counts = [int(m.group(1)) for m in re.finditer(r"^kstats-insn window \d+ insns (\d+)$",
                                                   open(wfile).read(), re.M)]
except OSError:
    counts = []
for l in lines:
    if l.startswith("@@FAIL"):
        print("# %s: %s (see %s)" % (k, l[7:], log))
if not labels or len(labels) != len(counts):
    # A window without its label (or the reverse) would shift every
    # figure after it: none is given.
    print("# %s: %d labelled windows, %d counted: no figures (see %s, %s)"
          % (k, len(labels), len(counts), log, wfile))
    sys.exit(1)
default = next((l.split()[1] for l in lines if l.startswith("@@DEFAULT ")), "?")
w = {}
for label, c in zip(labels, counts):
    w.setdefault(label, []).append(c / n)
for l in lines:
    m = re.match(r"@@SAMPLES (\S+) (\d*) ", l)
    if m and int(m.group(2) or 0) < n:
        print("# %s: the %s trace recorded %s samples, fewer than the window's %d calls"
              % (k, m.group(1), m.group(2) or "no", n))
out = open(report, "a")

def figure(name, v, unit="insn/event"):
    med = st.median(v)
    for suffix, x in (("", med), (".min", min(v)), (".max", max(v))):
        print("%s:insn.%s%s %.1f %s" % (k, name, suffix, x, unit), file=out)
    return med

un = w.get("untraced")
if not un:
    print("# %s: no untraced window" % k)
    sys.exit(1)
base = st.median(un)
figure("untraced", un)
print("untraced: %.1f insn/event (windows: %s)" % (base, " ".join("%.1f" % x for x in un)))
print("| %s | method | traced | floor | kstats' own | own, windows min..max |" % k)
print("|---|---|---|---|---|---|")
for m in ("default", "nogap", "kretprobe", "kprobe", "tracepoint"):
    if m not in w:
        continue
    fm = default if m in ("default", "nogap") else m
    traced = [x - base for x in w[m]]
    fl = w.get("floor-" + fm)
    t = figure(m + ".traced", traced)
    if not fl:
        print("| %s | %s | %.1f | - | - | no floor |" % (m, fm, t))
        continue
    floor = [x - base for x in fl]
    # per round: the trace against the empty hook of the same round
    own = [a - b for a, b in zip(w[m], fl)]
    f = figure(m + ".floor", floor)
    o = figure(m + ".own", own)
    print("| %s | %s | %.1f | %.1f | %.1f | %.1f..%.1f |" % (m, fm, t, f, o, min(own), max(own)))
spread = max((max(v) - min(v)) / st.median(v) for v in w.values())
print("(traced, floor: added instructions per event over untraced; own = traced - floor;"
      " largest spread of a configuration's windows: %.2f %% of its median)" % (100 * spread))
print("%s:insn.window_spread %.3f %%" % (k, 100 * spread), file=out)
PY
done
