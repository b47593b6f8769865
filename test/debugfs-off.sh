#!/bin/bash
# debugfs-off.sh KVER: with debugfs=off (or debugfs=no-mount, which never
# registers debugfs) on the kernel command line, loading kstats fails with
# EPERM (ENOENT) and a dmesg line that says why, once per load attempt
# (busybox's insmod tries finit_module, then init_module).
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
KVER=$1
OUT=$TOP/out/$KVER
LOGS=$TOP/out/logs
mkdir -p "$LOGS"
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
insmod /modules/kstats.ko 2>/tmp/err; echo "@@INSMOD rc=$? $(cat /tmp/err)"
GUEST
fail=0
for mode in off no-mount; do
	log=$LOGS/guest-debugfs-$mode-$KVER.console
	KS_APPEND="debugfs=$mode" bash "$TOP/test/lib/run-guest.sh" "$KVER" "$script" \
		"$log" "$OUT/kstats.ko" || fail=1
	insmod=$(grep -a '^@@INSMOD' "$log")
	reason=$(grep -a -c 'kstats: debugfs is not available (debugfs=off or debugfs=no-mount on the kernel command line?)' "$log")
	# busybox words ENOENT from init_module as "unknown symbol in module".
	want="Operation not permitted"
	[[ $mode == off ]] || want="unknown symbol in module"
	[[ $insmod == "@@INSMOD rc="[12]*"$want"* ]] ||
		{ echo "FAIL debugfs=$mode: insmod should fail with '$want': $insmod"; fail=1; }
	((reason >= 1)) ||
		{ echo "FAIL debugfs=$mode: no dmesg line saying why"; fail=1; }
	grep -a 'kstats:' "$log" | grep -a -v -e 'debugfs is not available' -e taint &&
		{ echo "FAIL debugfs=$mode: other kstats messages"; fail=1; }
done
exit $fail
