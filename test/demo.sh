#!/bin/bash
# The main job: install what is needed, build kstats.ko, boot a stock Debian
# kernel in QEMU, load kstats, trace real kernel code through _control while
# a workload runs (vfs_read, run-queue latency from sched_wakeup to
# sched_switch, and why dd waits off CPU in a pipe between two dd), and
# show the answers first: kstats show, the top rows by comm and kernel
# stack (and the waker's stack), folded stacks, and dd's off-CPU flame
# graph as an SVG (out/demo-KVER.off.svg); then the kstats_demo client
# module (how late a 1 ms hrtimer fires), kstats list, and last the raw
# node as scripts read it. Recording stops before the demo reads the nodes,
# so its own readers are not in its figures.
# Usage: test/demo.sh [KVER]   (default: the newest reference kernel)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh

bash test/lib/deps.sh
KVER=${1:-$(ks_kernels | tail -1)}
if [[ ! -d /lib/modules/$KVER/build || ! -e /boot/vmlinuz-$KVER ]]; then
	echo "demo: no kernel $KVER with its headers here; these are: $(ks_kernels | tr '\n' ' ')" >&2
	echo "demo: add one with apt-get install linux-image-$KVER linux-headers-$KVER" >&2
	exit 2
fi
echo "== building kstats for $KVER (only what changed since the last run)"
KS_INCREMENTAL=1 bash test/build.sh "$KVER"
echo "== building the kstats tool (static, for the guest)"
bash test/tool-build.sh >/dev/null

script=$(mktemp)
log=$TOP/out/demo-$KVER.console
# dd's off-CPU flame graph, drawn in the guest (kstats flame off --svg).
svg=out/demo-$KVER.off.svg
rm -f "$svg" "$svg.ttyS1"
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
# What follows reads the nodes, with vfs_read: stop recording first, so
# that the demo's own readers are not in its figures.
run "kstats stop read; kstats stop runq"
echo "== the answer: how long vfs_read took (kstats show)"
run "kstats show read"
echo "== who called it: the top rows by total time, then the slowest sample"
run "awk '/^row/ {r++} /^other/ {r = 99} /^slowest/ {s++} NR == 1 || (r >= 1 && r <= 3) || s == 1' $D/KEY-read"
run "kstats flame read | head -5"
echo "== run-queue latency, sched_wakeup to sched_switch, and who waited"
run "kstats show runq"
run "grep -A1 '^row' $D/KEY-runq | head -6"
echo "== why dd waited: off CPU, split at the wakeup; the top row, its stack and its waker's"
run "grep -h -e '^# name' -e '^# samples' -e '^# mean' $D/off $D/BLOCKED-off $D/RUNQ-off"
run "awk '/^row/ {n++} n == 1' $D/KEY-off"
run "kstats flame off | head -2"
run "kstats flame off --svg > /tmp/off.svg"
# The SVG leaves the guest on its second serial port (ttyS1), a file on
# the host of its own: the console (ttyS0) interleaves the kernel's lines.
cat /tmp/off.svg > /dev/ttyS1
echo "== a client module, kstats_demo.ko: how late a 1 ms hrtimer fires (demo_hrtimer_late), how long usleep_range(1 ms) takes (demo_usleep_1ms)"
insmod /modules/kstats_demo.ko
sleep 2
run "kstats show demo_hrtimer_late"
run "kstats list"
echo "== what scripts read: the node itself, its summary lines and its first slot lines (slot, CPU, count, avg, cumulative p)"
run "awk '!/^slot/ || n++ < 4' $D/read"
kstats remove read
kstats remove runq
kstats remove off
rmmod kstats_demo
rmmod kstats
echo "== unloaded"
GUEST
echo "== booting $KVER in QEMU (TCG, 2 CPUs)"
status=0
KS_QEMU_ARGS="${KS_QEMU_ARGS:+$KS_QEMU_ARGS }-serial file:$svg.ttyS1" \
	bash test/lib/run-guest.sh "$KVER" "$script" "$log" \
	"out/$KVER/kstats.ko" "out/$KVER/kstats_demo.ko" out/tools/kstats || status=$?
# The guest's own output, without the kernel's console messages.
sed -n '/KSTATS-GUEST-START/,/KSTATS-GUEST-END/p' "$log" | grep -v '^\[ *[0-9.]*\]'
# The tty wrote each newline as CRLF; the SVG itself holds no CR.
if [[ -s $svg.ttyS1 ]]; then
	tr -d '\r' <"$svg.ttyS1" >"$svg"
	echo "== dd's off-CPU flame graph (kstats flame off --svg): $TOP/$svg (open it in a browser)"
else
	echo "== no off-CPU flame graph came out of the guest ($svg.ttyS1 is empty)"
fi
rm -f "$svg.ttyS1"
echo "== full console log: $log"
exit "$status"
