#!/bin/bash
# The floor of each hook and kstats' own share, on getpid(): per round, the
# caller-measured p50 of a getpid() call (test/progs/getpid_p90) untraced,
# with an empty-handler hook of each method
# (bench/floor/kstats_bench_floor.ko), and with a kstats trace of the
# same method:
#   kretprobe, fprobe  entry and return of the syscall's function
#   kprobe             a pair: the syscall's function to __task_pid_nr_ns(),
#                      which getpid() calls
#   tracepoint         a pair: raw_syscalls sys_enter to sys_exit
# Paired figures: each getpid() call is followed by a timed getuid(), its
# untraced twin; a round's figure is its getpid() p50 over its getuid()
# p50, over the median of that in every base round. floor and kstats are
# those ratios, share = (kstats - floor) / (floor - 1), medians of the
# rounds. Not for the tracepoint pair, whose tracepoints the twin passes
# too. Then a table, then the fast-mode figures of every method
# (bench/fastmode.py). KS_BENCH_BOOTS busybox guests per kernel,
# ROUNDS rounds each; every figure also goes to the report.
# Usage: bench/floor.sh [KVER...]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
N=${KS_BENCH_N:-50000}
# Rounds per boot (KS_BENCH_BOOTS boots, default 3).
ROUNDS=${KS_BENCH_ROUNDS:-3}
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	ks_bench_floor_module "$k" || exit 1
	methods="kretprobe kprobe tracepoint"
	[[ $(ks_kernel_series "$k") == 6.12 ]] && methods="kretprobe fprobe kprobe tracepoint"
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
F=__x64_sys_getpid
E=__task_pid_nr_ns
insmod /modules/kstats.ko || exit 1
t() { echo "@@F \$1 \$(/modules/getpid_p90 $N twin)"; }
for r in \$(seq 1 $ROUNDS); do
	for m in $methods; do
		t base-\$m
		insmod /modules/kstats_bench_floor.ko method=\$m sym=\$F end=\$E && { t floor-\$m; rmmod kstats_bench_floor; }
		case \$m in
		kprobe) tr="start \$F end \$E" ;;
		tracepoint) tr="start __tracepoint_sys_enter end __tracepoint_sys_exit" ;;
		*) tr="start \$F method \$m" ;;
		esac
		echo "trace b \$tr" > \$C && { t kstats-\$m; echo "@@N \$m \$(grep -a '^# samples' /sys/kernel/debug/kstats/b)"; echo "remove b" > \$C; }
	done
done
GUEST
	ks_bench_boots "$k" floor test/lib/run-guest.sh "$script" "out/$k/kstats.ko" \
		"$FLOOR_KO" "out/$k/getpid_p90"
	rm -f "$script"
	log=$LOG
	lines=$(mktemp)
	python3 - "$k" "$log" <<'PY' | tee "$lines"
import re, statistics as st, sys
k, t = sys.argv[1], {}
for l in open(sys.argv[2], errors="replace"):
    m = re.search(r"^@@F (\S+)-(\S+) getpid_p90 \d+ p50 (\d+) p90 \d+ total \d+ twin_p50 (\d+)", l)
    if m:
        t.setdefault(m.group(2), {}).setdefault(m.group(1), []).append(
            int(m.group(3)) / int(m.group(4)))
# Each round's getpid() p50 over its own getuid() twin's p50, over the
# median of that figure in every base round: a paired ratio, which a
# slow spell of the emulator (it slows both calls) leaves alone.
base = st.median(x for d in t.values() for x in d.get("base", []))
rows = []
for m, d in t.items():
    f, s = d.get("floor", []), d.get("kstats", [])
    if m == "tracepoint":
        print("# %s %s: no paired figures (getuid, the twin, passes the same tracepoints)" % (k, m))
        continue
    if not f or not s:
        print("# %s %s: missing (the empty hook or the trace did not load)" % (k, m))
        continue
    fr = [x / base for x in f]
    sr = [x / base for x in s]
    share = [(y - x) / (x - 1) for x, y in zip(fr, sr)]
    for what, name, v, unit in (("floor", "paired_ratio", fr, "x"), ("kstats", "paired_ratio", sr, "x"),
                                ("kstats", "paired_share_of_hook", share, "share")):
        print("%s %s %s %s %.2f %s (rounds: %s)" % (what, k, m, name, st.median(v), unit,
                                                  " ".join("%.2f" % x for x in v)))
    rows.append("| %s | %.2f | %.2f | %.2f |" % (m, st.median(fr), st.median(sr), st.median(share)))
print("\n| %s getpid() p50 over its twin's, over base | floor | kstats | kstats' share of the hook |" % k)
print("|---|---|---|---|")
print("\n".join(rows) + "\n")
PY
	ks_bench_import <"$lines" >>"$KS_BENCH_REPORT"
	rm -f "$lines"
	python3 bench/fastmode.py "$log"
	python3 bench/fastmode.py --report "$k" "$log" >>"$KS_BENCH_REPORT"
done
