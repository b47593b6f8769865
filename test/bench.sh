#!/bin/bash
# Cost of each tracing method, measured in one QEMU guest run per kernel,
# as the ratio of a traced loop's time to the same loop untraced, taken
# side by side in rounds. TCG emulates the CPU, so only the ratios mean
# anything; absolute times do not carry over to real hardware.
# Usage: test/bench.sh [KVER...]   (default: every reference kernel)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh
bash test/lib/deps.sh >/dev/null

N=${KS_BENCH_N:-20000}
# kstats_record() calls per round of the record-cost line (16 rounds).
RN=${KS_BENCH_RECORD_N:-200000}
ROUNDS=${KS_BENCH_ROUNDS:-3}
mapfile -t KERNELS < <(if (($#)); then printf '%s\n' "$@"; else ks_kernels; fi)

for k in "${KERNELS[@]}"; do
	bash test/build.sh "$k" >/dev/null
	fprobe=""
	[[ $(ks_kernel_series "$k") == 6.12 ]] && fprobe=fprobe
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
T=/sys/kernel/debug/kstats_test_target
insmod /modules/kstats.ko && insmod /modules/kstats_test_target.ko || exit 1
insmod /modules/kstats_test_client.ko || exit 1
TC=/sys/kernel/debug/kstats_test_client
echo "new 3 rec" > \$TC
bench() { echo "\$1 $N" > \$T; echo "@@BENCH \$2 \$(cat \$T)"; }
sysbench() { echo "@@BENCH \$1 \$(/modules/syscall_loop $N)"; }
for r in \$(seq 1 $ROUNDS); do
	# kstats_record() against its copy from before min/max, in the client.
	echo "bench rec $RN" > \$TC && echo "@@RECORD \$(cat \$TC)"
	bench bench null-untraced
	for m in kretprobe $fprobe; do
		echo "trace b start kst_target_null method \$m" > \$C
		bench bench null-\$m
		echo "remove b" > \$C
	done
	bench bench_pair pair-untraced
	echo "trace b start kst_section_begin end kst_section_end" > \$C
	bench bench_pair pair-kprobe
	echo "remove b" > \$C
	sysbench getppid-untraced
	for m in kretprobe $fprobe; do
		echo "trace b start __x64_sys_getppid method \$m" > \$C
		sysbench getppid-\$m
		echo "remove b" > \$C
	done
	echo "trace b start __tracepoint_sys_enter end __tracepoint_sys_exit" > \$C
	sysbench getppid-tracepoint
	echo "remove b" > \$C
done
GUEST
	log=$TOP/out/bench-$k.console
	bash test/lib/run-guest.sh "$k" "$script" "$log" "out/$k/kstats.ko" \
		"out/$k/kstats_test_target.ko" "out/$k/kstats_test_client.ko" \
		"out/$k/syscall_loop" >/dev/null
	rm -f "$script"
	echo "== $k: $N calls per loop, $ROUNDS rounds; TCG figures: ratio to untraced (median of rounds)"
	python3 - "$log" <<'PY'
import re, statistics, sys
t = {}
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r"@@BENCH (\S+) \S+ (\d+) ns (\d+)", l)
    if m:
        t.setdefault(m.group(1), []).append(int(m.group(3)) / int(m.group(2)))
# kstats_record() with min/max against the same loop before them.
rec = [re.search(r"@@RECORD bench (\d+) new_ns (\d+) old_ns (\d+)", l)
       for l in open(sys.argv[1], errors="replace")]
rec = [(int(m.group(1)), int(m.group(2)), int(m.group(3))) for m in rec if m]
if rec:
    ratios = [n / o for _, n, o in rec]
    print("%-20s %7.1f ns/call before min/max %6.1f ns/call now  ratio %5.2fx (rounds: %s)"
          % ("record-cost", statistics.median(o / c for c, _, o in rec),
             statistics.median(n / c for c, n, _ in rec),
             statistics.median(ratios), " ".join("%.2f" % x for x in ratios)))
for base in ("null", "pair", "getppid"):
    un = t.get(base + "-untraced")
    if not un:
        continue
    for name, v in sorted(t.items()):
        if name.startswith(base + "-") and name != base + "-untraced":
            ratios = [a / b for a, b in zip(v, un)]
            print("%-20s %7.1f ns/call untraced %8.1f ns/call traced  ratio %5.1fx (rounds: %s)"
                  % (name, statistics.median(un), statistics.median(v),
                     statistics.median(ratios), " ".join("%.1f" % x for x in ratios)))
PY
done
