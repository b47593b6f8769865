#!/bin/bash
# biolatency by kstats and by bpftrace over the same writes, in one Debian
# rootfs guest (test/lib/rootfs.sh): a null_blk device whose requests
# complete from an hrtimer after 1.5 ms (queue_mode=2 irqmode=2), 400
# O_DIRECT writes of 4 KiB by dd, timed at once by kstats' matched pairs
# on the struct request (the end in hardirq) and by test/bio_peer.bt
# (paired on dev and sector, as bcc's biosnoop).
# - The README's "trace bio start block:block_rq_issue end
#   block:block_rq_complete match arg0" times every disk's requests, as
#   biolatency does: its KEY-bio row whose completion stack is null_blk's
#   (key end-kstack) must hold one sample per write the device completed
#   (its sysfs stat), each at least 1.5 ms, and it must miss none.
# - key rq->__data_len (a field through block_rq_issue's argument rq, by
#   BTF) on null_blk's completions: a row of 30 writes of 4096 bytes and
#   one of 20 of 65536, exactly; and the same of null_blk's
#   null_queue_rq() keyed bd->rq->__data_len, by null_blk's own BTF.
# - bpftrace on nullb0's requests, from a marker read on: as many as
#   kstats' row, but for 1 % it may lose (a BPF program that fires while
#   another runs on its CPU is skipped uncounted), and the row's p50 and
#   p99, power-of-two bucket tops, are bpftrace's buckets.
# Prints "bio: N passed, M failed".
# Usage: test/bio-peer.sh KVER [LOGDIR]   after test/build.sh KVER
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/rootfs-guest.sh
. "$TOP/test/lib/rootfs-guest.sh"
k=$1 logs=${2:-$TOP/out/logs}
mkdir -p "$logs"
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
. /ks/bt-guest.sh
D=/sys/kernel/debug/kstats
C=$D/_control
# Files in a tmpfs, nothing left to write back: the root disk stays quiet.
mount -t tmpfs none /tmp
sync
insmod /ks/kstats.ko || echo "@@FAIL insmod kstats"
modprobe null_blk queue_mode=2 irqmode=2 completion_nsec=1500000 nr_devices=1 ||
	echo "@@FAIL modprobe null_blk"
# The marker: a direct read of the root disk at sector 8 x MARK (dev_t
# as the kernel keeps it, major << 20 | minor).
MARK=4000
devt() { echo $(( $(stat -c '%t' $1 | sed 's/^/0x/') << 20 | $(stat -c '%T' $1 | sed 's/^/0x/') )); }
echo "trace bio start block:block_rq_issue end block:block_rq_complete match arg0 key end-kstack:6" > $C ||
	echo "@@FAIL trace bio"
# The read that makes bpftrace print its figures: sector 8 x DUMP.
DUMP=3000
bpftrace /ks/bio_peer.bt $(devt /dev/vda) $((MARK * 8)) $(devt /dev/nullb0) $((DUMP * 8)) > /tmp/bt.out 2>&1 &
bt=$!
# Until its probes run (bpftrace says "Attaching" before they are): reads
# of the root disk, not of nullb0, whose requests stay the writes'.
for i in $(seq 1 300); do
	dd if=/dev/vda of=/dev/null bs=4096 count=1 skip=$((MARK + i)) iflag=direct 2>/dev/null
	sleep 0.2
	grep -q '^ready' /tmp/bt.out && break
done
grep -q '^ready' /tmp/bt.out || echo "@@FAIL bpftrace never attached"
# Every program below already in the page cache, the root file system
# read-only, and no CD-ROM to poll.
for p in dd awk sed cat grep sleep rmmod; do cat "$(command -v $p)" > /dev/null; done
[ -e /sys/block/sr0/device/delete ] && echo 1 > /sys/block/sr0/device/delete
sync
mount -o remount,ro /
dd if=/dev/vda of=/dev/null bs=4096 count=1 skip=$MARK iflag=direct 2>/dev/null
echo "reset" > $D/bio
# Writes completed: the fifth field of the device's stat.
w0=$(awk '{print $5}' /sys/block/nullb0/stat)
dd if=/dev/zero of=/dev/nullb0 bs=4096 count=400 oflag=direct 2>/dev/null || echo "@@FAIL dd"
w1=$(awk '{print $5}' /sys/block/nullb0/stat)
sleep 0.5
grep -q '^marked' /tmp/bt.out || echo "@@FAIL bpftrace saw no marker"
bt_dump /tmp/bt.out dd if=/dev/vda of=/dev/null bs=4096 count=1 skip=$DUMP iflag=direct ||
	echo "@@FAIL bpftrace printed no figures"
bt_stop $bt
echo "@@DEV writes $((w1 - w0))"
# Up to its "end": what it printed on the dump marker.
sed -n '1,/^end/p' /tmp/bt.out | sed 's/^/@@BTOUT /'
echo "@@KS-BEGIN"; cat $D/bio; echo "@@KS-END"
grep "^bio " $C | sed "s/^/@@LIST /"
sed "s/^/@@KEY /" $D/KEY-bio
echo "remove bio" > $C
# Rows by a field of the request: block_rq_issue's rq (its name and
# struct request's __data_len from BTF), the bytes of each write.
echo "trace bsz start block:block_rq_issue end block:block_rq_complete match arg0 key end-kstack:6,rq->__data_len" > $C ||
	echo "@@FAIL trace bsz"
# A module's function, by its module's BTF (split on vmlinux's): null_blk's
# null_queue_rq(hctx, bd), the request two pointers away.
echo "trace bq start null_queue_rq key bd->rq->__data_len" > $C || echo "@@FAIL trace bq"
dd if=/dev/zero of=/dev/nullb0 bs=4096 count=30 oflag=direct 2>/dev/null || echo "@@FAIL dd 4k"
dd if=/dev/zero of=/dev/nullb0 bs=65536 count=20 oflag=direct 2>/dev/null || echo "@@FAIL dd 64k"
sleep 0.5
grep "^bsz " $C | sed "s/^/@@BSZLIST /"
grep "^bq " $C | sed "s/^/@@BQLIST /"
sed "s/^/@@BSZ /" $D/KEY-bsz
sed "s/^/@@BQ /" $D/KEY-bq
echo "remove bsz" > $C
echo "remove bq" > $C
rmmod null_blk
mount -o remount,rw /
GUEST
console=$logs/guest-bio-peer-$k.console
ks_rootfs "$k" "$script" "$console" "$TOP/out/$k/kstats.ko" \
	"$TOP/test/bio_peer.bt" "$TOP/test/lib/bt-guest.sh"
rc=$?
python3 "$TOP/test/bio_peer.py" "$console" "$rc"
