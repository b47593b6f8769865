#!/bin/bash
# initrd.sh SUITE KVER: print the path of a small initramfs that lets
# KVER, a kernel of a newer Debian suite (test/lib/suites.sh), boot the
# Debian 12 rootfs of test/lib/rootfs.sh, which has no initrd for it (its
# disk and file system drivers are modules): busybox, the modules of
# virtio_blk and ext4 with their dependencies from KVER's own image
# modules package (fetched in SUITE's chroot, decompressed here: busybox's insmod
# reads plain .ko files), and an init that loads them, mounts /dev/vda
# read-only and switches to the rootfs's /ks-init. Cached as
# $KS_CACHE/initrd-KVER-HASH.img, HASH of this script.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
suite=$1 k=$2
CACHE=${KS_CACHE:-/var/cache/kstats}
out=$CACHE/initrd-$k-$(sha256sum "$0" | cut -c1-16).img
if [[ -s $out ]]; then
	echo "$out"
	exit 0
fi
# shellcheck source-path=SCRIPTDIR source=../../test/lib/suites.sh
. "$HERE/../../test/lib/suites.sh"
tmp=$(mktemp -d "$CACHE/initrd.XXXXXX")
trap 'rm -rf "$tmp" "$CACHE/chroot-$suite/tmp/ks-initrd"' EXIT
mkdir -p "$CACHE/chroot-$suite/tmp/ks-initrd"
# sid splits linux-modules-KVER from the image; trixie's linux-image-KVER
# has both.
for p in "linux-modules-$k" "linux-image-$k"; do
	ks_suite_in "$suite" sh -c "cd /tmp/ks-initrd && apt-get download -q $p" >&2 2>/dev/null && break
done
deb=$(find "$CACHE/chroot-$suite/tmp/ks-initrd" -name '*.deb' | head -n1)
[[ -n $deb ]] || { echo "initrd: no image package for $k in $suite" >&2; exit 1; }
dpkg-deb -x "$deb" "$tmp/pkg"
mods=$(find "$tmp/pkg" -type d -path "*/lib/modules/$k" | head -n1)
[[ -n $mods ]] || { echo "initrd: no modules of $k in $deb" >&2; exit 1; }
# The modules and their dependencies (modinfo's depends and pre
# softdeps), dependencies first.
# A softdep may name an alias (crypto-crc32c) served by built-in code:
# one not found as a module file is skipped.
order=()
add() {
	local m=$1 soft=${2:-} f d
	f=$(find "$mods" -name "$m.ko*" | head -n1)
	if [[ -z $f ]]; then
		[[ -n $soft ]] && return 0
		echo "initrd: no module $m in $(basename "$deb")" >&2
		exit 1
	fi
	for d in "${order[@]}"; do [[ $d == "$f" ]] && return 0; done
	for d in $(modinfo -F depends "$f" | tr ',' ' '); do
		add "$d"
	done
	for d in $(modinfo -F softdep "$f" | sed -n 's/^pre: *//p'); do
		add "$d" soft
	done
	order+=("$f")
}
add virtio_blk
add ext4
root=$tmp/root
mkdir -p "$root"/{bin,dev,proc,sys,mnt,mods}
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
i=0
for f in "${order[@]}"; do
	i=$((i + 1))
	case $f in
	*.xz) xz -dc "$f" ;;
	*.zst) zstd -qdc "$f" ;;
	*.gz) gzip -dc "$f" ;;
	*) cat "$f" ;;
	esac >"$root/mods/$(printf %02d $i)-$(basename "${f%.ko*}").ko"
done
cat >"$root/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs devtmpfs /dev
for m in /mods/*.ko; do insmod "$m" || echo "initrd: insmod $m failed"; done
for i in $(seq 1 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mount -t ext4 -o ro /dev/vda /mnt || { echo "initrd: cannot mount /dev/vda"; poweroff -f; }
umount /proc /dev
exec switch_root /mnt /ks-init
INIT
chmod 755 "$root/init"
(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --owner=0:0 --quiet) |
	gzip -1 >"$tmp/initrd.img"
mv "$tmp/initrd.img" "$out"
echo "initrd: $out: ${order[*]##*/}" >&2
echo "$out"
