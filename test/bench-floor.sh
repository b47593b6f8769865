#!/bin/bash
# The floor of each hook and kstats' own share, on getpid(): per round, the
# caller-measured cost of a getpid() call (test/progs/getpid_p90: mean from
# the round's total, and p90) untraced, with an empty-handler hook of each
# method (test/bench-floor/kstats_bench_floor.ko), and with a kstats trace
# of the same method:
#   kretprobe, fprobe  entry and return of the syscall's function
#   kprobe             a pair: the syscall's function to __task_pid_nr_ns(),
#                      which getpid() calls
#   tracepoint         a pair: raw_syscalls sys_enter to sys_exit
# hook = floor - base, kstats_own = kstats - floor, share = kstats_own /
# hook; medians of ROUNDS rounds, then the table, then the fast-mode
# figures (test/bench-fastmode.py). KS_BENCH_BOOTS busybox guests per
# kernel, ROUNDS rounds each; every figure also goes to the report.
# Usage: test/bench-floor.sh [KVER...]
set -euo pipefail
# shellcheck source=lib/bench.sh
. "$(dirname "$0")/lib/bench.sh"
N=${KS_BENCH_N:-50000}
# Rounds per boot (KS_BENCH_BOOTS boots, default 3).
ROUNDS=${KS_BENCH_ROUNDS:-3}
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	mod=$TOP/out/$k/bench-floor
	rm -rf "$mod" && mkdir -p "$mod"
	cp test/bench-floor/kstats_bench_floor.c test/bench-floor/Kbuild src/compat.h src/compat.mk "$mod/"
	make -s -C "/lib/modules/$k/build" M="$mod" W=1 modules >/dev/null 2>&1
	methods="kretprobe kprobe tracepoint"
	[[ $(ks_kernel_series "$k") == 6.12 ]] && methods="kretprobe fprobe kprobe tracepoint"
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
F=__x64_sys_getpid
E=__task_pid_nr_ns
insmod /modules/kstats.ko || exit 1
t() { echo "@@F \$1 \$(/modules/getpid_p90 $N)"; }
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
		"$mod/kstats_bench_floor.ko" "out/$k/getpid_p90"
	rm -f "$script"
	log=$LOG
	lines=$(mktemp)
	python3 - "$k" "$log" <<'PY' | tee "$lines"
import re, statistics as st, sys
k, t = sys.argv[1], {}
for l in open(sys.argv[2], errors="replace"):
    m = re.search(r"^@@F (\S+)-(\S+) getpid_p90 (\d+) p50 (\d+) p90 (\d+) total (\d+)", l)
    if m:
        t.setdefault(m.group(2), {}).setdefault(m.group(1), []).append(
            (int(m.group(6)) / int(m.group(3)), int(m.group(5))))
rows = []
for m, d in t.items():
    b, f, s = d.get("base", []), d.get("floor", []), d.get("kstats", [])
    if not f:
        print("floor %s %s missing (the empty hook did not load)" % (k, m))
        continue
    fr = [x[0] / y[0] for x, y in zip(f, b)]
    hook = [x[0] - y[0] for x, y in zip(f, b)]
    print("floor %s %s mean_ratio %.2f x (rounds: %s)" % (k, m, st.median(fr), " ".join("%.2f" % x for x in fr)))
    print("floor %s %s p90_ratio %.2f x" % (k, m, st.median(x[1] / y[1] for x, y in zip(f, b))))
    row = [m, "%.2f" % st.median(fr), "-", "%.0f" % st.median(hook), "-", "-",
           "%.2f" % st.median(x[1] / y[1] for x, y in zip(f, b)), "-"]
    if s:
        sr = [x[0] / y[0] for x, y in zip(s, b)]
        own = [x[0] - y[0] for x, y in zip(s, f)]
        share = [o / h for o, h in zip(own, hook)]
        print("kstats %s %s mean_ratio %.2f x (rounds: %s)" % (k, m, st.median(sr), " ".join("%.2f" % x for x in sr)))
        print("kstats %s %s own_share_of_hook %.2f (rounds: %s)" % (k, m, st.median(share), " ".join("%.2f" % x for x in share)))
        row[2], row[4], row[5] = "%.2f" % st.median(sr), "%.0f" % st.median(own), "%.2f" % st.median(share)
        row[7] = "%.2f" % st.median(x[1] / y[1] for x, y in zip(s, b))
    rows.append("| " + " | ".join(row) + " |")
print("\n| %s getpid() | floor/base (mean) | kstats/base (mean) | hook ns | kstats own ns | kstats share of hook | floor/base p90 | kstats/base p90 |" % k)
print("|---|---|---|---|---|---|---|---|")
print("\n".join(rows) + "\n")
PY
	ks_bench_import <"$lines" >>"$KS_BENCH_REPORT"
	rm -f "$lines"
	python3 test/bench-fastmode.py "$log"
	python3 test/bench-fastmode.py --report "$k" "$log" >>"$KS_BENCH_REPORT"
done
