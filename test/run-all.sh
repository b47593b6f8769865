#!/bin/bash
# Every kstats test, on every stock reference kernel installed (Debian's
# 6.1 and 6.12, which test/lib/deps.sh installs), and on Debian's arm64
# builds of the same kernels in QEMU (test/arm64/run.sh). Ends with the line
# "N passed, M failed" and exits non-zero on any failure.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh

bash test/lib/deps.sh || { echo "0 passed, 1 failed"; exit 1; }

PASSED=0
FAILED=0
LOGS=$TOP/out/logs
# The grammar fuzzer's seed (test/fuzz_test.py): one per run, printed;
# KS_FUZZ_SEED=N reruns a run's lines. 17,000 lines on each of the six
# x86 kernels: over 100,000 a run.
KS_FUZZ_SEED=${KS_FUZZ_SEED:-$(date +%s)}
KS_FUZZ_LINES=${KS_FUZZ_LINES:-17000}
echo "fuzz seed $KS_FUZZ_SEED (KS_FUZZ_SEED=$KS_FUZZ_SEED reruns its lines)"
mkdir -p "$LOGS"

# shellcheck source=lib/suite.sh
. test/lib/suite.sh

# The kstats tool: build (static too) and host unit tests on the nodes
# captured under test/data/.
run "kstats tool: builds, dynamic and static" bash test/tool-build.sh
./tools/unit_test test/data >"$LOGS/tool-unit.result" 2>&1
grep -E '^(FAIL|unit: )' "$LOGS/tool-unit.result" | sed 's/^/    [tool] /'
add_counts "$LOGS/tool-unit.result"
# The Python package (python/): its unit tests on test/data/ and parity
# with the C tool's parser on every captured node.
bash test/python-unit.sh >"$LOGS/python-unit.result" 2>&1
grep -E '^(FAIL|ERROR|python: )' "$LOGS/python-unit.result" | sed 's/^/    [python] /'
add_counts "$LOGS/python-unit.result"
# Prometheus end to end: node_exporter and prometheus on loopback.
bash test/prom-e2e.sh >"$LOGS/prom.result" 2>&1
grep -E '^(FAIL|prom: )' "$LOGS/prom.result" | sed 's/^/    [prom] /'
add_counts "$LOGS/prom.result"
bash test/cli-test.sh >"$LOGS/cli.result" 2>&1
grep -E '^(FAIL|cli: )' "$LOGS/cli.result" | sed 's/^/    [cli] /'
add_counts "$LOGS/cli.result"
bash test/plot-test.sh >"$LOGS/plot.result" 2>&1
grep -E '^(FAIL|plot: )' "$LOGS/plot.result" | sed 's/^/    [plot] /'
add_counts "$LOGS/plot.result"
# The guest harness's own verdicts, on hand-written consoles.
bash test/harness-test.sh >"$LOGS/harness.result" 2>&1
grep -E '^(FAIL|harness: )' "$LOGS/harness.result" | sed 's/^/    [harness] /'
add_counts "$LOGS/harness.result"

# core_guests KVER: the foundation, _control, hook-engine, keyed-trace,
# off-CPU and CPU hotplug guests of one kernel, built in out/KVER
# (KS_KERNEL: its image, if not /boot/vmlinuz-KVER).
core_guests() {
	local k=$1 series
	series=$(ks_kernel_series "$k")
	guest_suite "$k" basic "guest boots, runs the foundation script" "" \
		"out/$k/kstats.ko" "out/$k/kstats_test_client.ko" "out/$k/kstats_demo.ko"
	guest_suite "$k" trace "guest runs the _control script" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/sigpair" "out/$k/syscall_loop" "out/$k/kstask"
	guest_suite "$k" engine "guest runs the hook-engine script" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/kstats_test_sched.ko" "out/$k/rqlat" "out/$k/syscall_loop"
	guest_suite "$k" keys "guest runs the keyed-trace script" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/kstask" "out/tools/kstats"
	guest_suite "$k" offcpu "guest runs the off-CPU trace script" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/kstask" "out/tools/kstats"
	# Each lost section counted once; GAP where sections are left out,
	# at off-CPU switches and across a migration (test/counts_test.py).
	guest_suite "$k" counts "guest counts lost sections once and GAPs as documented" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" "out/$k/kstask"
	# CPU 1 offline and online under traces: per-CPU counters, intervals
	# and keyed rows keep every sample once (test/hotplug_test.py).
	guest_suite "$k" hotplug "guest takes CPU 1 offline and online under traces" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko"
	# The grammar fuzzer: the corpus, then KS_FUZZ_LINES lines of this
	# run's seed; slub_debug=U lets it count kstats' live slab objects.
	KS_APPEND="slub_debug=U,kmalloc-*" guest_suite "$k" fuzz \
		"guest runs the grammar fuzzer (seed $KS_FUZZ_SEED)" \
		"$KS_FUZZ_SEED $KS_FUZZ_LINES 1" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/ksfuzz" "test/fuzz-corpus/control.txt"
}

mapfile -t KERNELS < <(ks_kernels)
for series in 6.1 6.12; do
	found=0
	for k in "${KERNELS[@]}"; do
		[[ $(ks_kernel_series "$k") == "$series" ]] && found=1
	done
	run "reference kernel $series installed" test "$found" = 1
done

# The README's first command, as a user runs it.
bash test/demo-test.sh "$LOGS" >"$LOGS/demo.result" 2>&1
grep -E '^(FAIL|demo: )' "$LOGS/demo.result" | sed 's/^/    [demo] /'
add_counts "$LOGS/demo.result"

run "checkpatch --strict" bash test/lint.sh checkpatch
run "i386 build needs no libgcc helper (__udivdi3, __umoddi3, ...)" bash test/i386/check.sh

for k in "${KERNELS[@]}"; do
	run "$k: W=1 build, no warnings" bash test/build.sh "$k"
	run "$k: src/ points down: each file includes and calls only those below it in the README's Tree" \
		python3 test/layers.py README "out/$k/tree"
	run "$k: sparse" bash test/lint.sh sparse "$k"
	run "$k: Kbuild refuses kernels without what kstats needs, or with kCFI" \
		bash test/kbuild-refusals.sh "$k"
	[[ -f out/$k/kstats.ko ]] || continue

	core_guests "$k"
	guest_suite "$k" tool "guest runs the kstats tool against live metrics" "" \
		"out/$k/kstats.ko" "out/tools/kstats"

	# import kstats in the Debian rootfs guest (python3): a real script.
	bash test/python-guest.sh "$k" "$LOGS" >"$LOGS/python-$k.result" 2>&1
	grep -E '^(FAIL|pyguest: )' "$LOGS/python-$k.result" | sed "s/^/    [$k] /"
	add_counts "$LOGS/python-$k.result"

	# Off-CPU waits against bpftrace's count of the same waits (rootfs guest).
	bash test/offcpu-peer.sh "$k" "$LOGS" >"$LOGS/offcpu-peer-$k.result" 2>&1
	grep -E '^(FAIL|peer: )' "$LOGS/offcpu-peer-$k.result" | sed "s/^/    [$k] /"
	add_counts "$LOGS/offcpu-peer-$k.result"

	bash test/bio-peer.sh "$k" "$LOGS" >"$LOGS/bio-peer-$k.result" 2>&1
	grep -E '^(FAIL|bio: |@@FIGURES)' "$LOGS/bio-peer-$k.result" | sed "s/^/    [$k] /"
	add_counts "$LOGS/bio-peer-$k.result"

	run "$k: debugfs=off and debugfs=no-mount refuse the load with a reason" \
		bash test/debugfs-off.sh "$k"

	# Guest instructions per event, counted by a QEMU plugin (repeatable
	# within 1 %, unlike TCG timings): kstats' own share for the default
	# trace must stay within 5 % of the committed baseline.
	[[ $(ks_kernel_series "$k") == 6.12 ]] &&
		run "$k: kstats' own instructions per event (default trace, QEMU plugin count) within 5 % of bench/results/insn-baseline.txt" \
			env KS_BENCH_BUILT=1 bash test/insn-guard.sh "$k"
done

# The chaos run and the soak (test/chaos_test.py): about 16 minutes of one
# debug-kernel guest (KASAN, lockdep, kmemleak; 4 vCPUs, Debian rootfs for
# python3), run in the background beside the suite kernels' guests below
# (each guest is one host thread) and collected before the summary. The
# debug kernel is built here, before it starts (cached; the debug run at
# the end finds it).
bash test/debug-kernel/build.sh >"$LOGS/debug-kernel-build.log" 2>&1
python3 test/chaos_test.py run "$LOGS/chaos" >"$LOGS/chaos.result" 2>&1 &
CHAOS_PID=$!

# Debian 13's and Debian unstable's current kernels, generic and
# PREEMPT_RT: each built in a chroot of its suite with that suite's
# compiler and headers (test/lib/suites.sh), and its stock image booted
# with the foundation, _control, hook-engine and keyed-trace scripts.
# shellcheck source=lib/suites.sh
. test/lib/suites.sh
for sk in "${KS_SUITE_KERNELS[@]}"; do
	read -r suite flavour <<<"$sk"
	k=""
	if ks_suite_chroot "$suite" 2>>"$LOGS/suite-$suite.log"; then
		k=$(ks_suite_kver "$suite" "$flavour")
	fi
	img=""
	[[ -n $k ]] && img=$(ks_suite_image "$suite" "$k" 2>>"$LOGS/suite-$suite.log")
	run "$suite $flavour: chroot, current kernel ${k:-?} and its image" test -n "$img"
	[[ -n $img ]] || { tail -n 20 "$LOGS/suite-$suite.log"; continue; }
	run "$k: W=1 build in a $suite chroot, no warnings" \
		ks_suite_in "$suite" bash test/build.sh "$k"
	run "$k: sparse" ks_suite_in "$suite" bash test/lint.sh sparse "$k"
	run "$k: Kbuild refuses kernels without what kstats needs, or with kCFI" \
		ks_suite_in "$suite" bash test/kbuild-refusals.sh "$k"
	[[ -f out/$k/kstats.ko ]] || continue
	KS_KERNEL=$img core_guests "$k"
done

# arm64: the same 6.1 and 6.12 kernels of Debian's arm64 port, cross-built
# for and booted in qemu-system-aarch64: build, sparse, foundation and
# _control tests (test/arm64/run.sh; its own PASS/FAIL lines are counted).
bash test/arm64/run.sh "$LOGS/arm64" >"$LOGS/arm64.result" 2>&1
grep -E '^(FAIL|aarch: |    \[)' "$LOGS/arm64.result" | sed 's/^/    [arm64] /'
add_counts "$LOGS/arm64.result"

# Debian package, DKMS, and modprobe of what DKMS installed, in guests.
bash test/package.sh >"$LOGS/package.result" 2>&1
grep -E '^(FAIL|package: )' "$LOGS/package.result" | sed 's/^/    [package] /'
add_counts "$LOGS/package.result"

# The debug test kernel: KUnit suites, stress and fault tests under
# KASAN, lockdep and kmemleak. Built from linux-source-6.12 on first use.
run "debug kernel: builds, boots, runs KUnit and the stress script, clean console" \
	bash test/debug-kernel/run.sh "$LOGS/debug"
for f in kunit debug; do
	if [[ -f $LOGS/debug/$f.result ]]; then
		grep -E '^(FAIL|kunit: |debug: )|not ok' "$LOGS/debug/$f.result" | sed 's/^/    [debug] /'
		add_counts "$LOGS/debug/$f.result"
	else
		FAILED=$((FAILED + 1))
	fi
done

# Allocation failures on the same debug kernel (test/faults_test.py, with
# test/progs/failnth): every allocation of a trace write, an interval read
# and a KEY-NAME open fails in turn. The console holds the kernel's own
# reports of the vmalloc and per-CPU failures injected (warn_alloc()'s
# stack dumps of the failing task), so run-guest.sh's verdict is not the
# test's: the checker allows those alone, runs console-check.sh on the
# rest, and counts it. One vCPU, 512 MiB and acpi=off (ks_reboot to end
# it) keep its boot and kmemleak's scans short: ACPI's and PCI's probing
# took 40 s of a loaded host's boot under KASAN.
tree=$(bash test/debug-kernel/build.sh 2>/dev/null | tail -n 1)
python3 test/faults_test.py gen "$LOGS/faults-debug.sh"
KS_KERNEL=$tree/arch/x86/boot/bzImage KS_SMP=1 KS_QEMU_MEM=512 KS_TIMEOUT=900 \
	KS_APPEND="rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60 acpi=off ks_reboot" \
	bash test/lib/run-guest.sh debug "$LOGS/faults-debug.sh" "$LOGS/guest-faults-debug.console" \
	out/debug/kstats.ko out/debug/kstats_test_target.ko out/debug/failnth \
	>"$LOGS/faults-guest.log" 2>&1
python3 test/faults_test.py check "$LOGS/guest-faults-debug.console" >"$LOGS/faults.result" 2>&1
grep -E '^(FAIL|faults: )' "$LOGS/faults.result" | sed 's/^/    [debug] /'
add_counts "$LOGS/faults.result"

waited=$SECONDS
wait "$CHAOS_PID"
echo "    [chaos] waited $((SECONDS - waited)) s for it here"
grep -E '^(FAIL|chaos: )' "$LOGS/chaos.result" | sed 's/^/    [chaos] /'
add_counts "$LOGS/chaos.result"

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
