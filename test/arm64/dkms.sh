#!/bin/bash
# DKMS on arm64, as far as an amd64 host allows: build the package for
# the arm64 host architecture (dpkg-buildpackage -aarm64), unpack it, and
# have DKMS build it with the package's own dkms.conf against Debian's
# arm64 headers (unpacked by test/lib/arm64.sh), in a DKMS tree of its own
# so the host's DKMS state is untouched. Not possible here: installing the
# package on arm64 (apt would need the arm64 kernel and gcc) and DKMS's
# install step into /lib/modules/KVER; on a real arm64 machine DKMS
# compiles natively, here CROSS_COMPILE comes from the environment.
# Usage: test/arm64/dkms.sh KVER HEADERS_DIR
# KS_ARM64_DEB_DIR: a directory that keeps the package between calls:
# the first call builds it there, the next ones (the other kernels) use
# it: it is arch-all (-A), the same for every kernel.
set -euo pipefail
KVER=$1
KDIR=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

debs=${KS_ARM64_DEB_DIR:-$WORK/debs}
if ! deb=$(ls "$debs"/kstats-dkms_*_all.deb 2>/dev/null); then
	rm -rf "$debs"
	mkdir -p "$debs/src"
	git -C "$TOP" ls-files -c | (cd "$TOP" && tar -cf - -T -) | tar -C "$debs/src" -xf -
	(cd "$debs/src" && dpkg-buildpackage -us -uc -A -aarm64) >"$WORK/bp.log" 2>&1 ||
		{ cat "$WORK/bp.log"; rm -rf "$debs"; exit 1; }
	rm -rf "$debs/src"
	deb=$(ls "$debs"/kstats-dkms_*_all.deb)
	echo "dkms: package built for arm64: $deb"
else
	echo "dkms: package built for arm64 by the first kernel's step: $deb"
fi
dpkg-deb -x "$deb" "$WORK/root"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$WORK"/root/usr/src/kstats-*/dkms.conf)
# The DKMS tree at one fixed path (one build at a time holds it): DKMS
# builds in TREE/kstats/VERSION/build, and a fixed path keeps ccache's
# keys (test/run-all.sh) the same from one run, or clone, to the next.
tree=${TMPDIR:-/tmp}/kstats-arm64-dkms
exec 9>"$tree.lock"
flock 9
rm -rf "$tree"
mkdir -p "$tree"
trap 'rm -rf "$WORK" "$tree"' EXIT
ln -s "$tree" "$WORK/tree"
CROSS_COMPILE=aarch64-linux-gnu- dkms build -m kstats -v "$ver" -k "$KVER" -a aarch64 \
	--kernelsourcedir "$KDIR" --dkmstree "$tree" \
	--sourcetree "$WORK/root/usr/src" >"$WORK/dkms.log" 2>&1 ||
	{ cat "$WORK/dkms.log"; exit 1; }
out=$WORK/tree/kstats/$ver/$KVER/aarch64
ko=$out/module/kstats.ko
[[ -f $ko ]] || ko=$(ls "$out"/module/kstats.ko*)
kind=$(file "$ko")
[[ $kind == *'ARM aarch64'* ]] || { echo "dkms: not an arm64 module: $kind"; exit 1; }
magic=$(modinfo -F vermagic "$ko")
[[ $magic == "$KVER SMP "*" aarch64" ]] || { echo "dkms: vermagic $magic"; exit 1; }
# The POST_BUILD step keeps what client modules build against.
[[ -s $out/Module.symvers && -s $out/include/linux/kstats.h ]] ||
	{ echo "dkms: POST_BUILD left no Module.symvers or kstats.h"; cat "$WORK/dkms.log"; exit 1; }
echo "dkms: package built for arm64; DKMS built kstats $ver for $KVER/aarch64 ($magic)"
