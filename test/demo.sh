#!/bin/bash
# The main job: install what is needed, build kstats.ko, boot a stock Debian
# kernel in QEMU, load kstats and the kstats_demo client, and show the
# distributions it measured: how late a 1 ms hrtimer fires and how long
# usleep_range(1000, 1100) really sleeps.
# Usage: test/demo.sh [KVER]   (default: the newest reference kernel)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh

bash test/lib/deps.sh
KVER=${1:-$(ks_kernels | tail -1)}
echo "== building kstats for $KVER"
bash test/build.sh "$KVER"

script=$(mktemp)
log=$TOP/out/demo-$KVER.console
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
D=/sys/kernel/debug/kstats
insmod /modules/kstats.ko
insmod /modules/kstats_demo.ko
echo "== loaded: $(ls $D | tr '\n' ' ')"
sleep 3
for n in demo_hrtimer_late demo_usleep_1ms; do
	echo "== cat $D/$n   (ns; slot, CPU, count, avg, cumulative fraction)"
	cat $D/$n
done
echo "== grep CPUS $D/demo_usleep_1ms"
grep CPUS $D/demo_usleep_1ms
rmmod kstats_demo
rmmod kstats
echo "== unloaded"
GUEST
echo "== booting $KVER in QEMU (TCG, 2 CPUs)"
status=0
bash test/lib/run-guest.sh "$KVER" "$script" "$log" \
	"out/$KVER/kstats.ko" "out/$KVER/kstats_demo.ko" || status=$?
# The guest's own output, without the kernel's console messages.
sed -n '/KSTATS-GUEST-START/,/KSTATS-GUEST-END/p' "$log" | grep -v '^\[ *[0-9.]*\]'
echo "== full console log: $log"
exit "$status"
