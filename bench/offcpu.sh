#!/bin/bash
# Off-CPU traces against bpftrace, in one rootfs guest per kernel
# (test/lib/rootfs.sh, Debian's bpftrace): two tasks on CPU 0 pass a byte
# back and forth through pipes (test/progs/pingpong: each round trip is
# two waits off CPU, two wakeups and two switches), KS_BENCH_PINGPONG_N
# round trips a run, ROUNDS rounds of:
#   untraced
#   kstats     trace NAME offcpu                       (no key)
#   comm       trace NAME offcpu key comm
#   stacks     trace NAME offcpu key kstack,waker-kstack
#   chain      trace NAME offcpu key kstack,waker-chain:2 (a record per
#              sleeping task, a level per wakeup: issue 44's cost)
#   ustack     trace NAME offcpu key ustack      (pingpong: -O2, glibc's
#              read and write; the walk, its search for a frameless
#              caller and the stack table)
#   kustack    trace NAME offcpu key kstack,ustack  (offcputime's view)
#   bpftrace   bench/offcpu.bt: the same waits on sched_switch, summed by
#              the blocked kstack (Debian 12's bpftrace has no offcputime)
#   btustack   the same summed by the blocked ustack
# Cost: each run's round trip over the untraced one of its round, in the
# fastest block of 100 (the least disturbed by the host), median of the
# rounds. Parity: one more run with a kstats trace (comm pingpong) and
# the bpftrace script both attached: the waits of pingpong each counted,
# over the same window.
# Usage: bench/offcpu.sh [KVER...]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
PN=${KS_BENCH_PINGPONG_N:-5000}
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
D=/sys/kernel/debug/kstats
insmod /ks/kstats.ko || exit 1
# bpftrace in the background until its probe runs on CPU 0, where
# pingpong runs (it says "Attaching" before it has): BT=its pid.
bt_start() { # OUT [SCRIPT]
	bpftrace \${2:-/ks/offcpu.bt} >\$1 2>&1 &
	BT=\$!
	for i in \$(seq 1 300); do
		grep -q '^ready' \$1 && break
		taskset 1 /ks/kstask kstready sleep 1 1000 > /dev/null
		sleep 0.2
	done
}
# Its maps hold stacks: it would take minutes to exit (see offcpu.bt).
bt_stop() {
	kill -KILL \$BT; wait \$BT 2>/dev/null
}
kst() { # TAG WORDS: a run under "trace o offcpu WORDS"
	echo "trace o offcpu \$2" > \$C || return 1
	/ks/pingpong $PN \$1
	echo "@@CHECK \$1 \$(grep -a -e '^# trace' -e '^# samples' \$D/o | tr '\n' ' ')" >&2
	echo "remove o" > \$C
}
sed 's/= kstack;/= ustack;/' /ks/offcpu.bt > /tmp/offcpu_ustack.bt
for r in \$(seq 1 $ROUNDS); do
	line="\$(/ks/pingpong $PN untraced) \$(kst kstats '') \$(kst comm 'key comm')"
	line="\$line \$(kst stacks 'key kstack,waker-kstack')"
	line="\$line \$(kst chain 'key kstack,waker-chain:2')"
	line="\$line \$(kst ustack 'key ustack') \$(kst kustack 'key kstack,ustack')"
	bt_start /tmp/bt.out
	line="\$line \$(/ks/pingpong $PN bpftrace)"
	bt_stop
	bt_start /tmp/btu.out /tmp/offcpu_ustack.bt
	line="\$line \$(/ks/pingpong $PN btustack)"
	bt_stop
	echo "@@OC \$line"
done
# Parity: both at once, over the same pingpong run.
echo "trace p offcpu comm pingpong" > \$C
bt_start /tmp/bt2.out
/ks/pingpong $PN parity > /dev/null
bt_stop
# The last print, as the parent exited: every wait of both tasks.
n=\$(sed -n 's/^@waits\[pingpong\]: //p' /tmp/bt2.out | tail -n1)
echo "@@PARITY kstats \$(awk '\$2 == "samples" {print \$3}' \$D/p) missed \$(awk '\$2 == "missed" {print \$3}' \$D/p) bpftrace \${n:-0}"
echo "remove p" > \$C
GUEST
	LOG=$TOP/out/bench-offcpu-$k.console
	bash test/lib/rootfs.sh "$k" "$script" "$LOG" "out/$k/kstats.ko" \
		"out/$k/pingpong" "out/$k/kstask" bench/offcpu.bt >&2 || true
	rm -f "$script"
	grep -a '^@@CHECK' "$LOG" | sed "s/^@@CHECK/check $k/" || true
	echo "== $k off-CPU traces, pipe ping-pong: $PN round trips a run, median of $ROUNDS rounds; base: untraced, same round"
	for m in kstats comm stacks chain ustack kustack bpftrace btustack; do
		ks_bench_values "$LOG" OC "v[\"${m}_fast_ns\"] / v[\"untraced_fast_ns\"]" |
			ks_bench_figure "$k" "offcpu.${m}_vs_untraced" ratio
	done
	ks_bench_values "$LOG" OC 'v["untraced_fast_ns"] / 1000' |
		ks_bench_figure "$k" offcpu.untraced_us us
	read -r _ _ ks _ missed _ bt < <(grep -a '^@@PARITY' "$LOG" | tail -n1) || true
	echo "parity $k waits of pingpong: kstats ${ks:-?} (missed ${missed:-?}) bpftrace ${bt:-?}"
	ks_bench_single "$k" offcpu.parity.kstats "${ks:-0}" waits
	ks_bench_single "$k" offcpu.parity.bpftrace "${bt:-0}" waits
done
