#!/bin/bash
# Start-table cost under load: two tasks on CPU 0 pass a byte back and
# forth through pipes (test/progs/pingpong: two wakeups and two switches
# a round trip), KS_BENCH_PINGPONG_N round trips untraced, then under the
# run-queue trace
#   trace rq start sched:sched_wakeup end sched:sched_switch maxactive M
# for M = 64 and 4096, each made anew and warmed up first by
# kstats_test_sched's "churn 10000": 10,000 new kernel threads, up to 5000
# alive at once, each woken, run and blocked, so that their starts leave
# the table full of deleted entries. ROUNDS rounds in one busybox guest
# per kernel; the untraced round trips of a round are taken between its
# two traced ones. Figures: the traced round trip over the untraced one
# of the same round, in the fastest block of 100 (the least disturbed by
# the host) and as the mean of all; the untraced round trip in us; check
# lines give the trace's counts after each round.
# Usage: bench/pingpong.sh [KVER...]   KS_SMP as in run-guest.sh
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
PN=${KS_BENCH_PINGPONG_N:-10000}
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	ks_bench_guest "$k" pingpong "out/$k/kstats.ko" "out/$k/kstats_test_sched.ko" \
		"out/$k/pingpong" <<GUEST
C=/sys/kernel/debug/kstats/_control
insmod /modules/kstats.ko && insmod /modules/kstats_test_sched.ko || exit 1
traced() { # MAXACTIVE: the round trips under a churned run-queue trace
	echo "trace rq start sched:sched_wakeup end sched:sched_switch maxactive \$1" > \$C || return 1
	echo "churn 10000" > /sys/kernel/debug/kstats_test_sched || return 1
	/modules/pingpong $PN rq\$1
	echo "@@CHECK maxactive \$1 \$(grep -a -e '^# trace' -e '^# samples' /sys/kernel/debug/kstats/rq | tr '\n' ' ')" >&2
	echo "remove rq" > \$C
}
for r in \$(seq 1 $ROUNDS); do
	echo "@@PP \$(traced 64) \$(/modules/pingpong $PN untraced) \$(traced 4096)"
done
GUEST
	grep -a '^@@CHECK' "$LOG" | sed "s/^@@CHECK/check $k/" || true
	echo "== $k pipe ping-pong: $PN round trips a round, median of $ROUNDS rounds; base: untraced, same round"
	for m in 64 4096; do
		ks_bench_values "$LOG" PP "v[\"rq${m}_fast_ns\"] / v[\"untraced_fast_ns\"]" |
			ks_bench_figure "$k" "pingpong.rq${m}_vs_untraced" ratio
		ks_bench_values "$LOG" PP "v[\"rq${m}_ns\"] / v[\"untraced_ns\"]" |
			ks_bench_figure "$k" "pingpong.rq${m}_vs_untraced_mean" ratio
	done
	ks_bench_values "$LOG" PP 'v["untraced_fast_ns"] / 1000' |
		ks_bench_figure "$k" pingpong.untraced_us us
done
