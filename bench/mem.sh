#!/bin/bash
# Memory per metric: the change of Percpu: in /proc/meminfo (the per-CPU
# allocator's own count) over 1,000 kstats_new() metrics, for each
# frac_bits 0..5, in a fresh busybox guest for each. Prints
# "memory KVER frac_bits B per_metric_per_cpu X bytes" and the 1,000 total;
# every figure also goes to the report.
# Usage: bench/mem.sh [KVER...]   KS_SMP as in run-guest.sh (default 2)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
ks_bench_kernels "$@"
# One guest per frac_bits: Percpu counts populated pages, and the pages of
# deleted metrics stay populated, so a later round in the same guest would
# reuse them unseen (at frac_bits 3 after rounds 0..2: 7.0 KB counted of
# 7.98 KB allocated).
for k in "${KERNELS[@]}"; do
	log=$TOP/out/bench-mem-$k.console
	: >"$log"
	for b in 0 1 2 3 4 5; do
		script=$(mktemp)
		cat >"$script" <<GUEST
insmod /modules/kstats.ko && insmod /modules/kstats_test_client.ko || exit 1
TC=/sys/kernel/debug/kstats_test_client
pcpu() { awk '/^Percpu:/ {print \$2}' /proc/meminfo; }
p0=\$(pcpu)
for i in \$(seq 1 1000); do echo "new $b m\$i" > \$TC || exit 1; done
p1=\$(pcpu)
for i in \$(seq 1 1000); do echo "delete m\$i" > \$TC; done
echo "@@MEM $b \$(cat /sys/devices/system/cpu/possible) \$p0 \$p1 \$(pcpu)"
GUEST
		bash test/lib/run-guest.sh "$k" "$script" "$log.$b" "out/$k/kstats.ko" \
			"out/$k/kstats_test_client.ko" >&2 || true
		rm -f "$script"
		cat "$log.$b" >>"$log" && rm -f "$log.$b"
	done
	lines=$(mktemp)
	grep -a '^@@MEM' "$log" | awk -v k="$k" '{
		split($3, r, "-"); n = (r[2] == "" ? 1 : r[2] + 1)
		# struct ks_cpu: 32 bytes, then n_slots x 16 (src/hist.h)
		printf "memory %s frac_bits %d per_metric_per_cpu %.0f bytes (possible %s; allocated %d)\n", k, $2, ($5 - $4) * 1024 / 1000 / n, $3, 32 + (((65 - $2) * 2 ^ $2) + 1) * 16
		printf "memory %s frac_bits %d total_1000_metrics %d KiB (after delete %+d KiB)\n", k, $2, $5 - $4, $6 - $4 }' | tee "$lines"
	ks_bench_import <"$lines" >>"$KS_BENCH_REPORT"
	rm -f "$lines"
done
