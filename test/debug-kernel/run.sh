#!/bin/bash
# KUnit suites and stress tests on the debug test kernel.
# Usage: test/debug-kernel/run.sh RESULTS_DIR
# Writes RESULTS_DIR/{kunit,debug}.result, each ending in a
# "NAME: N passed, M failed" line, and the guest console.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
RES=$1
mkdir -p "$RES"

tree=$(bash test/debug-kernel/build.sh | tail -n 1)
# kstats.ko twice: with the KUnit suites (which run at every load) and
# without, for the stress and rmmod rounds. The KUnit build makes
# kstats.ko alone: the test modules, the demo client and the programs are
# out/debug's, built against the kstats without KUnit that the guest
# loads with them. test/run-all.sh builds out/debug once for this
# script, the chaos guest and the fault guest, and passes its exit status
# in KS_DEBUG_BUILD_RC (its log in KS_DEBUG_BUILD_LOG); run alone, this
# script builds it.
KDIR=$tree KS_MODULE_ONLY=1 bash test/build.sh debug-kunit KSTATS_KUNIT=y
if [[ -n ${KS_DEBUG_BUILD_RC:-} ]]; then
	[[ $KS_DEBUG_BUILD_RC == 0 ]] ||
		{ cat "${KS_DEBUG_BUILD_LOG:-/dev/null}"; echo "kstats does not build for the debug kernel" >&2; exit 1; }
else
	KDIR=$tree bash test/build.sh debug
fi
cp out/debug-kunit/kstats.ko out/debug/kstats_with_kunit.ko
cp "$tree/lib/kunit/kunit.ko" out/debug/

script=$RES/debug-guest.sh
console=$RES/guest-debug.console
python3 test/debug_test.py gen "$script" "${KS_STRESS_SECONDS:-30}" "${KS_RMMOD_ROUNDS:-12}"
# 4 vCPUs share the 2 host cores: give RCU and the watchdogs room.
# acpi=off: ACPI, built in for the rootfs guest, costs 40 s of boot here.
# One vCPU per socket: SeaBIOS's MP table lists the first CPU of each
# package only, and ACPI is off, so "-smp 4" (one socket of
# 4 cores) would boot with one CPU.
rc=0
KS_KERNEL=$tree/arch/x86/boot/bzImage KS_SMP=4,sockets=4 KS_QEMU_MEM=2048 KS_TIMEOUT=2700 \
	KS_APPEND="rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60 acpi=off ks_reboot" \
	bash test/lib/run-guest.sh debug "$script" "$console" \
	out/debug/kunit.ko out/debug/kstats_with_kunit.ko out/debug/kstats.ko \
	out/debug/kstats_test_client.ko \
	out/debug/kstats_test_target.ko out/debug/kstats_demo.ko || rc=$?

# KTAP, read by the kernel tree's own parser.
python3 "$tree/tools/testing/kunit/kunit.py" parse "$console" >"$RES/kunit.parse" 2>&1 || true
# Every KUNIT_CASE (and KUNIT_CASE_SLOW) in src/kunit*.c must have run.
cases=$(cat src/kunit*.c | grep -c -E '^\s*KUNIT_CASE(_SLOW)?\(')
python3 - "$RES/kunit.parse" "$cases" >"$RES/kunit.result" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
sys.stdout.write(text)
want = int(sys.argv[2])
m = re.search(r"Ran (\d+) tests?: passed: (\d+)", text)
total, passed = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
print("kunit: %d passed, %d failed" % (passed, max(total, want) - passed))
PY
python3 test/debug_test.py check "$console" "${KS_RMMOD_ROUNDS:-12}" >"$RES/debug.result" || true
exit "$rc"
