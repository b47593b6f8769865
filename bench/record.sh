#!/bin/bash
# Record cost: kstats_record() against its floor and its neighbours, in
# one busybox guest per kernel, from the test client's commands
# (test/modules/kstats_test_client.c), ROUNDS times each:
# - "bench": RN calls of each case in 16 alternating rounds, the fastest
#   round of each: this_cpu_inc() on a per-CPU counter (the floor),
#   atomic64_inc() on one shared counter, kstats_record() on one key
#   (hot), the seed's kstats_record() from before min/max (old), and one
#   strided loop over 1,000 keys: all the hot key (hot1000) or 1,000
#   metrics, each call another one (cold). Every callee is a call to
#   another page, as a call into kstats.ko is.
# - "cpus": CN calls by one thread on one CPU, and by one thread on each
#   online CPU at once (the threads' mean time), for kstats_record() on
#   one key and for atomic64_inc() on one counter.
# Figures: ratios of the rounds' times (median, min..max), and ns per
# call. Under run-guest.sh's single-threaded TCG the vCPUs take turns on
# one host thread, so allcpus_vs_onecpu is about the vCPU count when
# recording on every CPU adds nothing per call, and TCG models no cache:
# cold measures QEMU's software TLB, not a CPU's caches.
# KS_ACCEL=tcg,thread=multi runs the vCPUs in parallel (on an idle host).
# Usage: bench/record.sh [KVER...]   KS_SMP as in run-guest.sh
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# Calls per round of "bench" (16 rounds a command) and of "cpus" (4).
RN=${KS_BENCH_RECORD_N:-200000}
CN=${KS_BENCH_CPUS_N:-1000000}
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	ks_bench_guest "$k" record "out/$k/kstats.ko" "out/$k/kstats_test_client.ko" <<GUEST
insmod /modules/kstats.ko && insmod /modules/kstats_test_client.ko || exit 1
TC=/sys/kernel/debug/kstats_test_client
echo "new 3 rec" > \$TC || exit 1
for r in \$(seq 1 $ROUNDS); do
	echo "bench rec $RN" > \$TC && echo "@@RECORD \$(cat \$TC)"
	echo "cpus rec $CN" > \$TC && echo "@@CPUS \$(cat \$TC)"
done
GUEST
	echo "== $k record cost: $RN calls a round (cpus: $CN), fastest of 16 (cpus: 4) rounds, median of $ROUNDS"
	fig() { ks_bench_values "$LOG" "${@:3}" | ks_bench_figure "$k" "$1" "$2"; }
	fig record.hot_vs_floor ratio RECORD 'v["hot_ns"] / v["floor_ns"]'
	fig record.hot_vs_atomic ratio RECORD 'v["hot_ns"] / v["atomic_ns"]'
	fig record.hot_vs_old ratio RECORD 'v["hot_ns"] / v["old_ns"]'
	fig record.cold_vs_hot ratio RECORD 'v["cold_ns"] / v["hot1000_ns"]'
	for c in floor atomic hot old hot1000 cold; do
		fig "record.${c}_ns" ns RECORD "v[\"${c}_ns\"] / v[\"bench\"]"
	done
	fig record.allcpus_vs_onecpu ratio CPUS 'v["all_ns"] / v["one_ns"]'
	fig record.allcpus_vs_onecpu_atomic ratio CPUS 'v["atomic_all_ns"] / v["atomic_one_ns"]'
	ks_bench_single "$k" record.allcpus_vcpus "$(ks_bench_values "$LOG" CPUS 'v["cpus"]' | head -n1)" count
done
