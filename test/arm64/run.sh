#!/bin/bash
# arm64: cross-build kstats.ko, the test modules, the demo client and the
# guest programs for Debian's stock arm64 kernels (the same 6.1 and 6.12
# versions as the amd64 reference kernels), W=1 and sparse clean, then
# boot each kernel in qemu-system-aarch64 -M virt -cpu max (TCG) with an
# arm64 busybox initramfs and run the foundation and _control tests.
# Kernels, headers and busybox come from Debian's archive, unpacked under
# /var/cache/kstats (see test/lib/arm64.sh).
# Usage: test/arm64/run.sh [LOGDIR]   (default out/logs/arm64)
# Prints PASS/FAIL lines and ends with "aarch: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
# shellcheck source=../lib/arm64.sh
. test/lib/arm64.sh
LOGS=${1:-$TOP/out/logs/arm64}
mkdir -p "$LOGS"
PASSED=0
FAILED=0

# shellcheck source=../lib/suite.sh
. test/lib/suite.sh

finish() {
	echo "aarch: $PASSED passed, $FAILED failed"
	[[ $FAILED -eq 0 ]]
	exit
}

run "arm64: cross compiler and qemu-system-aarch64 installed" ks_arm64_host_deps
BUSYBOX=$(ks_arm64_busybox 2>"$LOGS/busybox.log") ||
	{ FAILED=$((FAILED + 1)); echo "FAIL arm64: busybox-static:arm64"; cat "$LOGS/busybox.log"; finish; }
mapfile -t KERNELS < <(ks_arm64_kernels)
((${#KERNELS[@]})) || { FAILED=$((FAILED + 1)); echo "FAIL arm64: no reference kernel"; finish; }

export KS_ARCH=arm64
# Pointer authentication with QEMU's own hash: the architected QARMA
# makes TCG several times slower, and the kernel cannot tell the difference.
export KS_CPU=max,pauth-impdef=on
# The foundation script runs with multi-threaded TCG: the vCPUs run at
# once, as its reset race test needs (single-threaded, one vCPU's
# 2M-sample loop ends before the other vCPU gets its turn). The tracing
# scripts patch kernel text (static keys, kprobes) and run single-threaded,
# as the x86 guests do (see run-guest.sh): under multi-threaded TCG on a
# loaded host, the keyed-trace script twice saw no sched_wakeup probe hit
# for a whole window after its tracepoint's static key was enabled (the
# run-queue-by-comm check: 1 sample of 30 sleeps, and missed 0), as if a
# vCPU ran stale code; the single-threaded x86 guests never have.
MT=tcg,thread=multi ST=tcg,thread=single
# The arm64 package (arch all, the same for each kernel) is built once,
# by the first kernel's DKMS step (test/arm64/dkms.sh).
export KS_ARM64_DEB_DIR=$TOP/out/arm64-deb
rm -rf "$KS_ARM64_DEB_DIR"
for kv in "${KERNELS[@]}"; do
	read -r k ver <<<"$kv"
	series=$(ks_kernel_series "$k")
	if ! dir=$(ks_arm64_kernel_locked "$k" "$ver" 2>"$LOGS/fetch-$k.log"); then
		FAILED=$((FAILED + 1))
		echo "FAIL $k: fetch Debian's arm64 image and headers"
		tail -n 20 "$LOGS/fetch-$k.log"
		continue
	fi
	kdir=$dir/root/usr/src/linux-headers-$k
	export KS_KERNEL=$dir/root/boot/vmlinuz-$k KS_BUSYBOX=$BUSYBOX
	run "$k: W=1 cross build, no warnings" env KDIR="$kdir" KS_SPARSE=1 \
		KS_PROGS_CC=aarch64-linux-gnu-gcc bash test/build.sh "$k" \
		ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	run "$k: sparse (in the W=1 build)" bash test/lint.sh sparse-log "$k"
	run "$k: DKMS builds the arm64-built package with its dkms.conf" \
		bash test/arm64/dkms.sh "$k" "$kdir"
	[[ -f out/$k/kstats.ko ]] || continue
	run "$k: modules are arm64 with the stock kernel's vermagic" \
		bash -c "modinfo -F vermagic out/$k/kstats.ko | grep -q '^$k SMP .*modversions aarch64'"

	KS_ACCEL=$MT guest_suite "$k" basic "guest boots, runs the foundation script" "" \
		"out/$k/kstats.ko" "out/$k/kstats_test_client.ko" "out/$k/kstats_demo.ko"
	# One boot (test/lib/run-batch.sh) for the single-threaded scripts
	# that leave the kernel as they found it, keys' (which raises
	# lockdown) last. User stacks: no tool here: the check names frames
	# with the program's symbols, from aarch64-linux-gnu-nm.
	KS_ACCEL=$ST guest_batch "$k" \
		"trace|guest runs the _control script|$series arm64" \
		"ustack|guest keys traces by user stacks|$series arm64" \
		"keys|guest runs the keyed-trace script|$series arm64" -- \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/sigpair" "out/$k/syscall_loop" "out/$k/kstask" "out/$k/ustack_prog"
	KS_ACCEL=$ST guest_suite "$k" lockdown "guest controls kstats through /dev/kstats under lockdown" \
		"$series arm64" "out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/kstats_test_client.ko" "out/$k/ksfuzz" "test/fuzz-corpus/control.txt"
done
finish
