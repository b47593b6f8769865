#!/bin/bash
# Loss with 64 sleepers: 64 `sleep 2` processes sit in clock_nanosleep at
# once while each tracer times __x64_sys_clock_nanosleep:
#   kstats          the default trace (default method and maxactive)
#   kstats-ma16     a trace with maxactive 16: a call that finds 16 others
#                   asleep in it finds no room
#   bpftrace        kretprobe + count(), as a bpftrace user would write it
# Figures, of the 64 calls: what each counted, the missed count it reports
# (bpftrace reports none), and the unaccounted rest, lost silently. Rootfs
# guest (test/lib/rootfs.sh), one per kernel.
# Usage: bench/loss.sh [KVER...]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	script=$(mktemp)
	cat >"$script" <<'GUEST'
C=/sys/kernel/debug/kstats/_control
F=__x64_sys_clock_nanosleep
insmod /ks/kstats.ko || exit 1
# Waits for the sleepers only: a bare wait would wait for bpftrace too.
sleepers() {
	pids=""
	for i in $(seq 1 64); do sleep 2 & pids="$pids $!"; done
	wait $pids
}
kstats() { # NAME WORDS
	echo "trace s start $F $2" > $C || return
	echo "@@CHECK $1 $(grep '^s ' $C)"
	sleepers
	echo "@@LOSS tracer $1 calls 64 $(grep -E '^# (samples|missed) ' /sys/kernel/debug/kstats/s | tr -d '#\n')"
	echo "remove s" > $C
}
kstats kstats ""
kstats kstats-ma16 "maxactive 16"
bpftrace -e "kretprobe:$F { @n = count(); }" >/tmp/bt.out 2>&1 &
pid=$!
for i in $(seq 1 600); do grep -q Attaching /tmp/bt.out && break; sleep 0.2; done
sleep 1
sleepers
kill -INT $pid; wait $pid
# bpftrace reports no missed count: "missed none".
n=$(sed -n 's/^@n: //p' /tmp/bt.out)
echo "@@LOSS tracer bpftrace calls 64 samples ${n:-0} missed none"
GUEST
	LOG=$TOP/out/bench-loss-$k.console
	bash test/lib/rootfs.sh "$k" "$script" "$LOG" "out/$k/kstats.ko" >&2 || true
	rm -f "$script"
	grep -a '^@@CHECK' "$LOG" | sed "s/^@@CHECK/check $k/" || true
	grep -a '^@@LOSS' "$LOG" | sed "s/^@@LOSS/loss $k/"
	grep -a '^@@LOSS' "$LOG" | while read -r _ _ name _ calls _ got _ missed; do
		ks_bench_single "$k" "loss.$name.counted" "$got" "of_$calls"
		# A tracer that reports no missed count gets no reported_missed line.
		if [[ $missed == none ]]; then
			missed=0
		else
			ks_bench_single "$k" "loss.$name.reported_missed" "$missed" "of_$calls"
		fi
		ks_bench_single "$k" "loss.$name.unaccounted" $((calls - got - missed)) "of_$calls"
	done
done
