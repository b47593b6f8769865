#!/bin/bash
# Read cost of one node: the mean time of one whole read (open, read to
# the end, close: test/progs/readnode) of a frac_bits 3 node with each of
# its 496 reachable slots holding one sample on every CPU ("full"), and
# of one with 10 slots so (each value recorded on its CPU with the test
# client's "irq CPU" command), ROUNDS times, in one busybox guest at each
# of -smp 1, 2, 4 and 8 (KS_BENCH_READ_SMPS; possible CPUs = vCPUs).
# Figures: read.full.smpN ms per read, read.full.smpN_vs_smp1 (round i
# over round i of the -smp 1 guest), the same for read.ten, and
# read.calib: reading the test client's empty debugfs file, the same
# open, read and close without kstats' work, which does not grow with
# the CPUs: calib.smpN_vs_smp1 is how much the guests' speed differs
# (host load, more vCPUs to emulate), not kstats' cost.
# Usage: bench/read.sh [KVER...]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
SMPS=${KS_BENCH_READ_SMPS:-1 2 4 8}
# Reads per timing: full, ten, calib.
FN=${KS_BENCH_READ_N:-10}
TN=$((FN * 10))
CN=$((FN * 100))
# One value in each reachable slot of frac_bits 3: slot s is bucket
# s >> 3, sub-slot s & 7 (src/hist.h); bucket 0 holds the values 0..7.
full=$(for s in $(seq 0 495); do
	b=$((s >> 3))
	if ((b == 0)); then echo "$s"; else printf '%u\n' $(((1 << (b + 2)) | ((s & 7) << (b - 1)))); fi
done | tr '\n' ' ')
ten=$(tr ' ' '\n' <<<"$full" | sed -n '1~50p' | tr '\n' ' ')
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	declare -A logs=()
	for smp in $SMPS; do
		KS_SMP=$smp ks_bench_guest "$k" "read-smp$smp" "out/$k/kstats.ko" \
			"out/$k/kstats_test_client.ko" "out/$k/readnode" <<GUEST
insmod /modules/kstats.ko && insmod /modules/kstats_test_client.ko || exit 1
TC=/sys/kernel/debug/kstats_test_client
K=/sys/kernel/debug/kstats
echo "new 3 full" > \$TC && echo "new 3 ten" > \$TC || exit 1
cpus=\$(grep -c ^processor /proc/cpuinfo)
for cpu in \$(seq 0 \$((cpus - 1))); do
	for v in $full; do echo "irq \$cpu full \$v 1" > \$TC || exit 1; done
	for v in $ten; do echo "irq \$cpu ten \$v 1" > \$TC || exit 1; done
done
echo "@@CHECK cpus \$cpus possible \$(cat /sys/devices/system/cpu/possible) full_slots \$(grep -c '^slot .*CPUS' \$K/full) ten_slots \$(grep -c '^slot .*CPUS' \$K/ten) full_lines \$(grep -c '^slot' \$K/full)"
for r in \$(seq 1 $ROUNDS); do
	echo "@@READ \$(/modules/readnode $FN full \$K/full) \$(/modules/readnode $TN ten \$K/ten) \$(/modules/readnode $CN calib \$TC)"
done
GUEST
		logs[$smp]=$LOG
		grep -a '^@@CHECK' "$LOG" | sed "s/^@@CHECK/check $k smp $smp/" || true
	done
	echo "== $k node read: ms per read ($FN full, $TN ten, $CN calib reads a round), median of $ROUNDS rounds; ratio to -smp 1 round by round"
	base=${logs[${SMPS%% *}]}
	for smp in $SMPS; do
		for n in full ten calib; do
			ks_bench_values "${logs[$smp]}" READ "v[\"${n}_ns\"] / 1e6" |
				ks_bench_figure "$k" "read.$n.smp$smp" ms
			[[ ${logs[$smp]} == "$base" ]] && continue
			paste <(ks_bench_values "$base" READ "v[\"${n}_ns\"]") \
				<(ks_bench_values "${logs[$smp]}" READ "v[\"${n}_ns\"]") |
				awk 'NF == 2 { print $2 / $1 }' |
				ks_bench_figure "$k" "read.$n.smp${smp}_vs_smp${SMPS%% *}" ratio
		done
	done
done
