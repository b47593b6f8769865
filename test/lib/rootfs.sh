#!/usr/bin/env bash
# rootfs.sh KVER GUEST_SCRIPT LOGFILE [FILE...]
#
# Like run-guest.sh, but for tests that need a real Debian userland
# (bpftrace, python3, kmod): boot the stock kernel /boot/vmlinuz-KVER with
# its own /boot/initrd.img-KVER under QEMU (TCG) on a cached Debian bookworm
# ext4 image (root=/dev/vda, mounted read-only), run GUEST_SCRIPT as
# /ks/test.sh and capture the serial console in LOGFILE. Each FILE is copied
# to /ks/<basename> (a second, per-run ext4 disk, /dev/vdb, mounted on /ks);
# a FILE that is a directory is copied with everything under it.
# /tmp is a tmpfs, debugfs and tracefs are mounted; PATH is Debian's.
#
# The image is built once from `debootstrap --variant=minbase bookworm`
# against the archive this host's apt uses, with KS_ROOTFS_PACKAGES installed
# and every reference kernel's /lib/modules/KVER copied in, and cached as
# $KS_CACHE/rootfs-<hash>.img, the hash taken over the package list, the
# kernel list and this file's init script. The root stays read-only in the
# guest, so the cached image is never written (no journal to replay).
#
# Exit codes: as run-guest.sh (0 pass, 1 test.sh failed, 2 kernel report,
# 3 no END marker, 4 usage/setup error).
#
# Environment knobs:
#   KS_KERNEL (an image to boot instead of /boot/vmlinuz-KVER, e.g. the
#     debug test kernel's bzImage, with what the root needs built in;
#     KVER then only names the run) and KS_INITRD (its initrd, default
#     none)
#   KS_QEMU_MEM (MiB, default 1024)  KS_SMP (default 2)
#   KS_TIMEOUT (seconds, default 600)  KS_APPEND (extra kernel cmdline)
#   KS_QEMU_ARGS (more QEMU arguments, split at spaces, as run-guest.sh's)
#   KS_CPU (QEMU -cpu, default $KS_X86_CPU of qemu-console.sh)
#   KS_CACHE (default /var/cache/kstats)
#   KS_ROOTFS_PACKAGES (default "bpftrace python3 kmod procps")
#   KS_CONSOLE=stdio: the console on this terminal too, as run-guest.sh's
#   KS_ROOTFS_ONLY=1: build (or find) the image, print its path, boot nothing.
set -euo pipefail

LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=console-check.sh
. "$LIBDIR/console-check.sh"
# shellcheck source-path=SCRIPTDIR source=qemu-console.sh
. "$LIBDIR/qemu-console.sh"

die() {
	echo "rootfs: $*" >&2
	exit 4
}

CACHE=${KS_CACHE:-/var/cache/kstats}
PACKAGES=${KS_ROOTFS_PACKAGES:-bpftrace python3 kmod procps}
mapfile -t KVERS < <(ls /lib/modules)
# The archive apt already uses (deb822 or one-line sources).
MIRROR=$(grep -hE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources \
	/etc/apt/sources.list 2>/dev/null | grep -oE 'https?://[^ ]+/debian/?$' |
	head -n1 || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

# PID 1 of the guest: mounts, runs /ks/test.sh, prints the same markers as
# run-guest.sh, powers off. It is part of the cache key.
read -r -d '' INIT <<'INIT' || true
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -o ro /dev/vdb /ks
echo "KSTATS-GUEST-START $(uname -r) cpus=$(nproc)"
cd /tmp
sh /ks/test.sh </dev/null >/dev/console 2>&1
rc=$?
echo "KSTATS-GUEST-END rc=$rc"
umount /ks
mount -o remount,ro /
sync
# minbase has no poweroff (systemd-sysv); sysrq 'o' powers off without it.
echo 1 >/proc/sys/kernel/sysrq
echo o >/proc/sysrq-trigger
# The power-off runs in the background; wait for it in shell builtins:
# a program loaded from the disk now may find the disk gone, and PID 1
# exiting on that I/O error panics the kernel.
while :; do :; done
INIT

key=$(printf '%s\n' "$PACKAGES" "${KVERS[@]}" "$INIT" | sha256sum | cut -c1-16)
IMG=$CACHE/rootfs-$key.img

build_image() {
	command -v debootstrap >/dev/null || die "no debootstrap (apt-get install debootstrap)"
	local dir k
	dir=$(mktemp -d "$CACHE/rootfs-build.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$dir'" EXIT
	echo "rootfs: building $IMG from $MIRROR ($PACKAGES)" >&2
	debootstrap --variant=minbase bookworm "$dir/root" "$MIRROR" >"$dir/log" 2>&1 ||
		{ tail -n 20 "$dir/log" >&2; die "debootstrap failed"; }
	chroot "$dir/root" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $PACKAGES && apt-get clean" \
		>>"$dir/log" 2>&1 || { tail -n 20 "$dir/log" >&2; die "apt-get install failed"; }
	mkdir -p "$dir/root/lib/modules"
	# build/ and source/ point at the host's headers; not needed in the
	# guest. updates/ is left out: test/package.sh's DKMS install may be
	# writing kstats.ko there at this moment (test/run-all.sh runs jobs
	# side by side), and no guest loads a module from there.
	local ex=()
	for k in "${KVERS[@]}"; do
		ex+=(--exclude="$k/build" --exclude="$k/source" --exclude="$k/updates")
	done
	tar -C /lib/modules --anchored "${ex[@]}" -cf - "${KVERS[@]}" |
		tar -C "$dir/root/lib/modules" -xf - || die "copying /lib/modules failed"
	mkdir -p "$dir/root/ks"
	printf '%s\n' "$INIT" >"$dir/root/ks-init"
	chmod 755 "$dir/root/ks-init"
	local mb
	mb=$(($(du -sm "$dir/root" | cut -f1) * 5 / 4 + 256))
	mkfs.ext4 -q -F -L ksroot -d "$dir/root" "$dir/img" "${mb}M" >/dev/null ||
		die "mkfs.ext4 failed"
	mv "$dir/img" "$IMG"
}

(($# >= 3)) || [[ ${KS_ROOTFS_ONLY:-} == 1 ]] ||
	die "usage: $0 KVER GUEST_SCRIPT LOGFILE [FILE...]"
mkdir -p "$CACHE"
if [[ ! -s $IMG ]]; then
	# One builder at a time; a second caller waits, then finds the image.
	exec 9>"$IMG.lock"
	flock 9
	[[ -s $IMG ]] || build_image
	flock -u 9
fi
if [[ ${KS_ROOTFS_ONLY:-} == 1 ]]; then
	echo "$IMG"
	exit 0
fi

KVER=$1
GUEST_SCRIPT=$2
LOGFILE=$3
shift 3
if [[ -n ${KS_KERNEL:-} ]]; then
	KERNEL=$KS_KERNEL
	INITRD=${KS_INITRD:-}
else
	KERNEL=/boot/vmlinuz-$KVER
	INITRD=/boot/initrd.img-$KVER
fi
[[ -r $KERNEL ]] || die "no $KERNEL"
INITRD_ARGS=()
if [[ -n $INITRD ]]; then
	[[ -r $INITRD ]] || die "no $INITRD"
	INITRD_ARGS=(-initrd "$INITRD")
fi
[[ -r $GUEST_SCRIPT ]] || die "cannot read guest script $GUEST_SCRIPT"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ks-rootfs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/ks"
cp "$GUEST_SCRIPT" "$WORK/ks/test.sh"
for f in "$@"; do
	cp -RL "$f" "$WORK/ks/$(basename "$f")" || die "cannot read extra file $f"
done
mb=$(($(du -sm "$WORK/ks" | cut -f1) + 16))
mkfs.ext4 -q -F -d "$WORK/ks" 2>/dev/null "$WORK/ks.img" "${mb}M" || die "mkfs.ext4 (files) failed"

# boot: one boot of the guest; sets elapsed, report, report_rc, end_line
# and guest_rc.
boot() {
	mkdir -p "$(dirname "$LOGFILE")"
	: >"$LOGFILE"
	start=$(date +%s.%N)
	qemu_rc=0
	QEMU_ERR=$WORK/qemu.stderr
	ks_console_setup "$LOGFILE"
	# snapshot=on for the root disk: even a guest that remounted it read-write
	# would leave the cached image untouched. thread=single: see run-guest.sh.
	# shellcheck disable=SC2086 # KS_QEMU_ARGS: split at spaces
	qemu "${TIMEOUT[@]}" "${KS_TIMEOUT:-600}" \
		qemu-system-x86_64 -accel tcg,thread=single -cpu "${KS_CPU:-$KS_X86_CPU}" \
		-m "${KS_QEMU_MEM:-1024}" -smp "${KS_SMP:-2}" \
		-display none -no-reboot \
		"${SERIAL[@]}" \
		-kernel "$KERNEL" "${INITRD_ARGS[@]}" \
		-drive "file=$IMG,if=virtio,format=raw,snapshot=on" \
		-drive "file=$WORK/ks.img,if=virtio,format=raw" \
		-append "root=/dev/vda ro init=/ks-init console=ttyS0 panic=-1 loglevel=4 tsc=reliable ${KS_APPEND:-}" \
		${KS_QEMU_ARGS:-} || qemu_rc=$?
	elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	[[ -s $WORK/qemu.stderr ]] && sed 's/^/rootfs: qemu: /' "$WORK/qemu.stderr" >&2
	sed -i 's/\r$//' "$LOGFILE"

	ks_console_verdict "$LOGFILE"
}

# As run-guest.sh: a guest that an emulator fault killed, or whose kernel
# reported a problem before the guest's script began (test/lib/
# console-check.sh), runs once more; the first console is kept beside
# the log. A second report fails as any other.
ks_boot_and_rerun "rootfs: $KVER $(basename "$GUEST_SCRIPT")" boot "$LOGFILE"
tag="rootfs: $KVER $(basename "$GUEST_SCRIPT") (${elapsed}s$rerun)"
if ((report_rc == 2)); then
	echo "$tag: FAIL kernel report: $report"
	exit 2
elif ((report_rc != 0)); then
	echo "$tag: FAIL $report"
	exit 4
elif [[ -z $end_line ]]; then
	echo "$tag: FAIL no KSTATS-GUEST-END marker (qemu rc=$qemu_rc)"
	exit 3
elif [[ $guest_rc != 0 ]]; then
	echo "$tag: FAIL test.sh exited rc=$guest_rc"
	exit 1
fi
echo "$tag: PASS"
exit 0
