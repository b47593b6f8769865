#!/bin/bash
# What match (a pair on an object) and if (filters on values) cost per
# event, in one QEMU guest run per kernel, side by side in rounds:
# - bench_obj: N x kst_obj_begin(A), kst_obj_end(A), untraced, as a kprobe
#   pair on the task ("pair"), and the same pair with "match arg0";
# - bench_ret: N calls of kst_ret_long(i, 1000 i), untraced, traced, and
#   traced with "if arg1>=0 if ret!=1" (both always true: the same
#   samples, the filters' own cost).
# TCG emulates the CPU: only ratios mean anything. Prints each loop's time
# as a ratio to its untraced loop (median of rounds), then matched/pair
# and filtered/traced.
# Usage: bench/match.sh [KVER...]   (default: every reference kernel)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
. test/lib/kernels.sh
N=${KS_BENCH_N:-20000}
ROUNDS=${KS_BENCH_ROUNDS:-5}
mapfile -t KERNELS < <(if (($#)); then printf '%s\n' "$@"; else ks_kernels; fi)
for k in "${KERNELS[@]}"; do
	bash test/build.sh "$k" >/dev/null
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
T=/sys/kernel/debug/kstats_test_target
insmod /modules/kstats.ko && insmod /modules/kstats_test_target.ko || exit 1
bench() { echo "\$1 $N" > \$T; echo "@@BENCH \$2 \$(cat \$T)"; }
for r in \$(seq 1 $ROUNDS); do
	bench bench_obj obj-untraced
	echo "trace b start kst_obj_begin end kst_obj_end" > \$C
	bench bench_obj obj-pair
	echo "remove b" > \$C
	echo "trace b start kst_obj_begin end kst_obj_end match arg0" > \$C
	bench bench_obj obj-matched
	echo "remove b" > \$C
	bench bench_ret ret-untraced
	echo "trace b start kst_ret_long" > \$C
	bench bench_ret ret-traced
	echo "remove b" > \$C
	echo "trace b start kst_ret_long if arg1>=0 if ret!=1" > \$C
	bench bench_ret ret-filtered
	grep '^b ' \$C | sed 's/^/@@LIST /'
	echo "remove b" > \$C
done
GUEST
	log=$TOP/out/bench-match-$k.console
	bash test/lib/run-guest.sh "$k" "$script" "$log" "out/$k/kstats.ko" \
		"out/$k/kstats_test_target.ko" >/dev/null
	rm -f "$script"
	echo "== $k: $N events per loop, $ROUNDS rounds; TCG: ratio to the untraced loop (median)"
	python3 - "$log" <<'PY'
import re, statistics, sys
t = {}
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r"@@BENCH (\S+) \S+ (\d+) ns (\d+)", l)
    if m:
        t.setdefault(m.group(1), []).append(int(m.group(3)) / int(m.group(2)))
med = {k: statistics.median(v) for k, v in t.items()}
for base in ("obj", "ret"):
    un = med.get(base + "-untraced")
    for name in sorted(med):
        if name.startswith(base + "-") and un:
            print("%-14s %7.1f ns/event  x%.2f" % (name, med[name], med[name] / un))
if med.get("obj-pair") and med.get("ret-traced"):
    u, r = med["obj-untraced"], med["ret-untraced"]
    print("matched / pair, added cost: x%.2f" % ((med["obj-matched"] - u) / (med["obj-pair"] - u)))
    print("filtered / traced, added cost: x%.2f" % ((med["ret-filtered"] - r) / (med["ret-traced"] - r)))
PY
done
