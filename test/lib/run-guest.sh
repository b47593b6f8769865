#!/usr/bin/env bash
# run-guest.sh KVER GUEST_SCRIPT LOGFILE [FILE...]
#
# Boot the stock kernel /boot/vmlinuz-KVER under QEMU (TCG; KVM on these
# hosts cannot run stock kernels) with a throw-away busybox initramfs, run
# GUEST_SCRIPT inside it as /test.sh and capture the serial console (kernel
# printk + test output) in LOGFILE.  Each FILE is copied to /modules/<basename>
# in the guest (.ko files, helper programs, data); a FILE that is a directory
# is copied with everything under it.
#
# Exit codes:
#   0  pass: "KSTATS-GUEST-END rc=0" seen and no kernel report on the console
#   1  test failed: test.sh exited non-zero
#   2  kernel report (BUG/WARNING/Oops/lockdep/...) on the console
#   3  no END marker: guest crashed, hung or timed out
#   4  usage / setup error
# A kernel report (2) wins over a missing marker (3), which wins over (1).
#
# Environment knobs:
#   KS_QEMU_MEM (MiB, default 1024)  KS_SMP (default 2)
#   KS_TIMEOUT (seconds, default 300)  KS_APPEND (extra kernel cmdline)
#   KS_QEMU (QEMU binary, default qemu-system-x86_64)
#   KS_ACCEL (default tcg,thread=single; see the note at the qemu command)
#   KS_CPU (QEMU -cpu; default x86: $KS_X86_CPU of qemu-console.sh,
#     arm64: max)
#   KS_QEMU_ARGS (more QEMU arguments, split at spaces; e.g. the
#     instruction-counting plugin of bench/insn.sh: -plugin PATH,out=FILE)
#   KS_KERNEL (image to boot instead of /boot/vmlinuz-KVER)
#   KS_EXTRA_ROOT (a directory copied over the initramfs root)
#   KS_CONSOLE=stdio: the console on this terminal too, both ways (stdin
#     and stdout; LOGFILE still gets a copy), for an interactive shell that
#     GUEST_SCRIPT starts on it (./playground); Ctrl-A X quits QEMU
#   KS_ARCH (x86_64 or arm64; default x86_64). arm64 boots
#     qemu-system-aarch64 -M virt with the console on ttyAMA0; KS_KERNEL
#     and KS_BUSYBOX then name arm64 files (see test/lib/arm64.sh).
set -euo pipefail

LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=console-check.sh
. "$LIBDIR/console-check.sh"
# shellcheck source-path=SCRIPTDIR source=qemu-console.sh
. "$LIBDIR/qemu-console.sh"

usage() {
	echo "usage: $0 KVER GUEST_SCRIPT LOGFILE [FILE...]" >&2
	exit 4
}

(($# >= 3)) || usage
KVER=$1
GUEST_SCRIPT=$2
LOGFILE=$3
shift 3

# KS_KERNEL boots another image, e.g. the debug test kernel's bzImage.
KERNEL=${KS_KERNEL:-/boot/vmlinuz-$KVER}
BUSYBOX=${KS_BUSYBOX:-/bin/busybox}
case ${KS_ARCH:-x86_64} in
x86_64)
	QEMU=${KS_QEMU:-qemu-system-x86_64}
	MACHINE=()
	CONSOLE="console=ttyS0 tsc=reliable"
	CPU=${KS_CPU:-$KS_X86_CPU}
	;;
arm64)
	QEMU=${KS_QEMU:-qemu-system-aarch64}
	MACHINE=(-M virt)
	CONSOLE="console=ttyAMA0"
	CPU=${KS_CPU:-max}
	;;
*)
	echo "run-guest: unknown KS_ARCH ${KS_ARCH}" >&2
	exit 4
	;;
esac

die() {
	echo "run-guest: $*" >&2
	exit 4
}
[[ -r $KERNEL ]] || die "no kernel image $KERNEL"
[[ -r $GUEST_SCRIPT ]] || die "cannot read guest script $GUEST_SCRIPT"
[[ -x $BUSYBOX ]] || die "no $BUSYBOX (apt-get install busybox-static)"
# The initramfs has no libc, so busybox must be the static build.
# (ldd fails with "not a dynamic executable" on a static binary.)
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked (apt-get install busybox-static)"
fi
for f in "$@"; do
	[[ -r $f ]] || die "cannot read extra file $f"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ks-guest.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
INITRD=$WORK/initrd.cpio.gz

# --- initramfs ---------------------------------------------------------------
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,modules,root}
cp "$BUSYBOX" "$ROOT/bin/busybox"
# Only /bin/sh is linked here; /init creates the other applet links with
# "busybox --install -s" at boot, which is much cheaper than ~270 ln forks.
ln -s busybox "$ROOT/bin/sh"

# KS_EXTRA_ROOT: a directory whose contents are copied over the root,
# e.g. /lib/modules/KVER with depmod's files and kmod's modprobe.
if [[ -n ${KS_EXTRA_ROOT:-} ]]; then
	cp -a "$KS_EXTRA_ROOT/." "$ROOT/"
fi
cp "$GUEST_SCRIPT" "$ROOT/test.sh"
chmod 755 "$ROOT/test.sh"
for f in "$@"; do
	# -L: copy the target of symlinks (e.g. build outputs linked elsewhere);
	# -R: a directory with what it holds.
	cp -RL "$f" "$ROOT/modules/$(basename "$f")"
done

# /init runs as PID 1 with the console on fds 0-2.  It must never exit
# (the kernel would panic), so it always ends in poweroff -f.
cat >"$ROOT/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null || true
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
echo "KSTATS-GUEST-START $(uname -r) cpus=$(nproc)"
cd /
sh /test.sh </dev/null >/dev/console 2>&1
rc=$?
echo "KSTATS-GUEST-END rc=$rc"
sync
# Kernels without power-off support (the debug test kernel) halt on
# poweroff; ks_reboot on the command line resets instead (-no-reboot exits).
if grep -q ks_reboot /proc/cmdline; then reboot -f; else poweroff -f; fi
INIT
chmod 755 "$ROOT/init"

(cd "$ROOT" && find . -print0 | sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$INITRD"

# --- boot --------------------------------------------------------------------
read -r -a QEMU_ARGS <<<"${KS_QEMU_ARGS:-}"
ks_console_setup "$LOGFILE"

boot() {
	mkdir -p "$(dirname "$LOGFILE")"
	: >"$LOGFILE"
	QEMU_ERR=$WORK/qemu.stderr
	start=$(date +%s.%N)
	qemu_rc=0
	# The serial port goes straight to LOGFILE, so the log holds every printk the
	# kernel sends to the console, ttyS0 or ttyAMA0 (loglevel=7), interleaved with
	# the test's own output.
	# panic=-1 + -no-reboot turn a panic into a prompt QEMU exit.
	# One host thread runs all vCPUs (thread=single). With multi-threaded TCG,
	# a vCPU can execute a stale int3 after the kernel's text_poke_bp() has
	# finished patching a static branch, and oopses ("Oops: int3" at
	# syscall_trace_enter or __schedule) or hangs. Seen on both stock kernels
	# with no kstats loaded, by toggling tracefs' raw_syscalls and
	# sched_switch events while other tasks make syscalls; single-threaded
	# TCG ran the same loop clean.
	qemu "${TIMEOUT[@]}" "${KS_TIMEOUT:-300}" \
		"$QEMU" "${MACHINE[@]}" -accel "${KS_ACCEL:-tcg,thread=single}" -cpu "$CPU" \
		-m "${KS_QEMU_MEM:-1024}" -smp "${KS_SMP:-2}" \
		-display none -no-reboot \
		"${SERIAL[@]}" \
		-kernel "$KERNEL" -initrd "$INITRD" \
		-append "$CONSOLE panic=-1 loglevel=7 ${KS_APPEND:-}" \
		"${QEMU_ARGS[@]}" || qemu_rc=$?
	end=$(date +%s.%N)
	elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

	# QEMU's own chatter (e.g. TCG feature warnings) is not guest output; show it
	# to the caller but keep it out of the console log that gets pattern-checked.
	if [[ -s $QEMU_ERR ]]; then
		sed 's/^/run-guest: qemu: /' "$QEMU_ERR" >&2
	fi
	# The serial console writes CRLF; normalise so callers can parse lines.
	sed -i 's/\r$//' "$LOGFILE"

	# --- verdict -----------------------------------------------------------------
	ks_console_verdict "$LOGFILE"
}

# A guest that an emulator fault killed, or whose kernel reported a problem
# before the guest's script began, runs once more; the first console is
# kept beside the log. A second report fails as any other.
ks_boot_and_rerun "run-guest: $KVER $(basename "$GUEST_SCRIPT")" boot "$LOGFILE"

tag="run-guest: $KVER $(basename "$GUEST_SCRIPT") (${elapsed}s$rerun)"
if ((report_rc == 2)); then
	echo "$tag: FAIL kernel report: ${report#console-check: kernel report in "$LOGFILE": }${end_line:+ [$end_line]}"
	exit 2
elif ((report_rc != 0)); then
	echo "$tag: FAIL $report"
	exit 4
elif [[ -z $end_line ]]; then
	if ((qemu_rc == 124 || qemu_rc == 137)); then
		echo "$tag: FAIL no KSTATS-GUEST-END marker: timed out after ${KS_TIMEOUT:-300}s"
	else
		echo "$tag: FAIL no KSTATS-GUEST-END marker: guest crashed or QEMU failed (qemu rc=$qemu_rc)"
	fi
	exit 3
elif [[ $guest_rc != 0 ]]; then
	echo "$tag: FAIL test.sh exited rc=$guest_rc"
	exit 1
fi
echo "$tag: PASS"
exit 0
