#!/bin/bash
# The main job: install what is needed, build kstats.ko, boot a stock Debian
# kernel in QEMU, load kstats, trace real kernel code through _control while
# a workload runs (vfs_read, and run-queue latency from sched_wakeup to
# sched_switch), and show the distributions, vfs_read keyed by kernel
# stack and run-queue latency keyed by comm, and why dd waits off CPU
# (a pipe between two dd), keyed by its stack and its waker's. Also loads the kstats_demo
# client module: how late a 1 ms hrtimer fires. Ends with the kstats
# tool: show of both traces, list, and vfs_read as folded stacks.
# Usage: test/demo.sh [KVER]   (default: the newest reference kernel)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh

bash test/lib/deps.sh
KVER=${1:-$(ks_kernels | tail -1)}
echo "== building kstats for $KVER (only what changed since the last run)"
KS_INCREMENTAL=1 bash test/build.sh "$KVER"
echo "== building the kstats tool (static, for the guest)"
bash test/tool-build.sh >/dev/null

script=$(mktemp)
log=$TOP/out/demo-$KVER.console
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
D=/sys/kernel/debug/kstats
ln -s /modules/kstats /bin/kstats
run() { echo "# $*"; eval "$@"; }
insmod /modules/kstats.ko
run "echo trace read start vfs_read key comm,kstack:5 > $D/_control"
run "echo trace runq start sched:sched_wakeup end sched:sched_switch key comm > $D/_control"
run "echo trace off offcpu comm dd key kstack:7,waker-kstack:7,waker-comm > $D/_control"
run "cat $D/_control"
echo "== workload: dd of the busybox binary and /proc files, 4 KiB reads"
for f in /bin/busybox /proc/cpuinfo /proc/meminfo /proc/stat /proc/interrupts; do
	dd if=$f of=/dev/null bs=4k 2>/dev/null
done
echo "== workload: dd into a pipe, read by another dd in 512-byte blocks"
dd if=/bin/busybox bs=64k 2>/dev/null | dd of=/dev/null bs=512 2>/dev/null
echo "== cat $D/read   (ns: slot, CPU, count, avg, cumulative fraction p)"
cat $D/read
run "grep CPUS $D/runq"
run "grep CPUS $D/GAP-read | tail -5"
echo "== who calls vfs_read: rows by total time, the other row, the slowest samples"
run "head -30 $D/KEY-read"
run "grep -A1 '^row' $D/KEY-runq | head -12"
echo "== why dd waited: off CPU, split at the wakeup; the top row, its stack and its waker's"
run "grep -h -e '^# name' -e '^# samples' -e '^# mean' $D/off $D/BLOCKED-off $D/RUNQ-off"
run "awk '/^row/ {n++} n == 1' $D/KEY-off"
insmod /modules/kstats_demo.ko
sleep 2
run "grep CPUS $D/demo_hrtimer_late"
echo "== the same with the kstats tool (/usr/sbin/kstats when installed)"
run "kstats show read"
run "kstats show runq"
run "kstats list"
run "kstats flame read | head -5"
run "kstats flame off | head -2"
kstats remove read
kstats remove runq
kstats remove off
rmmod kstats_demo
rmmod kstats
echo "== unloaded"
GUEST
echo "== booting $KVER in QEMU (TCG, 2 CPUs)"
status=0
bash test/lib/run-guest.sh "$KVER" "$script" "$log" \
	"out/$KVER/kstats.ko" "out/$KVER/kstats_demo.ko" out/tools/kstats || status=$?
# The guest's own output, without the kernel's console messages.
sed -n '/KSTATS-GUEST-START/,/KSTATS-GUEST-END/p' "$log" | grep -v '^\[ *[0-9.]*\]'
echo "== full console log: $log"
exit "$status"
