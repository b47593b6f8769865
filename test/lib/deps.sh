#!/usr/bin/env bash
# Install everything the kstats tests need on a fresh Debian 12 (bookworm)
# machine, as root.  Idempotent: if every package is already installed we do
# not touch apt at all, so reruns cost a single dpkg-query. It says what it
# installs, installs only what is missing and upgrades nothing else
# (test/lib/need-pkgs.sh).
set -euo pipefail

PKGS=(
	build-essential make gcc
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	qemu-system-x86 busybox-static cpio kmod python3 gzip xz-utils
	sparse linux-source-6.12 bc flex bison libelf-dev libssl-dev file
	debhelper dh-dkms dkms lintian dpkg-dev dh-python libjson-c-dev
	# Each compile of a test run, cached across runs (test/run-all.sh).
	ccache
	# The tool names user frames with elfutils' libdwfl; its static
	# build (the busybox guests') links libdw's own dependencies.
	libdw-dev zlib1g-dev liblzma-dev libbz2-dev libzstd-dev
	# test/flame-svg-test.sh draws the flame graph's SVG in it, headless.
	chromium
	# test/lib/rootfs.sh builds the Debian guest for the python and
	# bpftrace tests with these.
	debootstrap e2fsprogs util-linux
)

# Only the missing ones are installed, and nothing else is upgraded.
n=0
for p in "${PKGS[@]}"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] ||
		n=$((n + 1))
done
if ((n == 0)); then
	echo "deps: all ${#PKGS[@]} packages already installed"
	exit 0
fi
bash "$(dirname "$0")/need-pkgs.sh" "${PKGS[@]}"
echo "deps: done"
