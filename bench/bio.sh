#!/bin/bash
# biolatency's cost per I/O, kstats against bpftrace, in one rootfs guest
# per kernel (test/lib/rootfs.sh, Debian's bpftrace): a null_blk device
# that completes each request at once (irqmode=0), KS_BENCH_BIO_N O_DIRECT
# writes of 4 KiB by dd a run (8 blocks; the fastest counts), ROUNDS rounds of:
#   untraced
#   kstats     the README's biolatency: trace bio start block:block_rq_issue
#              end block:block_rq_complete match arg0
#   bpftrace   bench/bio.bt: the same pairs on (dev, sector), hist()
# Cost: each run's time per write over the untraced one of its round
# (the added ns per I/O), and kstats' added cost over bpftrace's, median
# of the rounds. The writes are counted on both sides afterwards.
# Usage: bench/bio.sh [KVER...]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
BN=${KS_BENCH_BIO_N:-4000}
ks_bench_kernels "$@"
for k in "${KERNELS[@]}"; do
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
D=/sys/kernel/debug/kstats
mount -t tmpfs none /tmp
insmod /ks/kstats.ko || exit 1
modprobe null_blk queue_mode=2 irqmode=0 nr_devices=1 || exit 1
for p in dd date awk sleep; do cat "\$(command -v \$p)" > /dev/null; done
# ns per write of a run of $BN, in the fastest of its 8 blocks (the
# least disturbed by the host).
run() {
	best=0
	for b in 1 2 3 4 5 6 7 8; do
		t0=\$(date +%s%N)
		dd if=/dev/zero of=/dev/nullb0 bs=4096 count=$((BN / 8)) oflag=direct 2>/dev/null
		t1=\$(date +%s%N)
		ns=\$(( (t1 - t0) / $((BN / 8)) ))
		[ \$best = 0 ] || [ \$ns -lt \$best ] && best=\$ns
	done
	echo \$best
}
run > /dev/null
for r in \$(seq 1 $ROUNDS); do
	line="untraced \$(run)"
	echo "trace bio start block:block_rq_issue end block:block_rq_complete match arg0" > \$C
	line="\$line kstats \$(run)"
	echo "@@CHECK kstats \$(grep -a -e '^# trace' -e '^# samples' \$D/bio | tr '\n' ' ')" >&2
	echo "remove bio" > \$C
	bpftrace /ks/bio.bt > /tmp/bt.out 2>&1 &
	bt=\$!
	for i in \$(seq 1 300); do grep -q '^ready' /tmp/bt.out && break; sleep 0.2; done
	line="\$line bpftrace \$(run)"
	kill -INT \$bt; wait \$bt
	echo "@@CHECK bpftrace \$(sed -n 's/^\[[^)]*) *\([0-9]*\) .*/\1/p' /tmp/bt.out | awk '{n += \$1} END {print n + 0}') writes" >&2
	echo "@@BIO \$line"
done
rmmod null_blk
GUEST
	LOG=$TOP/out/bench-bio-$k.console
	bash test/lib/rootfs.sh "$k" "$script" "$LOG" "out/$k/kstats.ko" bench/bio.bt >&2 || true
	rm -f "$script"
	grep -a '^@@CHECK' "$LOG" | tail -n2 | sed "s/^@@CHECK/check $k/" || true
	echo "== $k biolatency per write: $BN O_DIRECT writes to null_blk a run, median of $ROUNDS rounds; base: untraced, same round"
	for m in kstats bpftrace; do
		ks_bench_values "$LOG" BIO "v[\"$m\"] - v[\"untraced\"]" |
			ks_bench_figure "$k" "bio.${m}_added_ns" ns
	done
	ks_bench_values "$LOG" BIO '(v["kstats"] - v["untraced"]) / (v["bpftrace"] - v["untraced"])' |
		ks_bench_figure "$k" bio.kstats_vs_bpftrace ratio
	ks_bench_values "$LOG" BIO 'v["untraced"]' | ks_bench_figure "$k" bio.untraced_ns ns
done
