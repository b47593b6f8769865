#!/usr/bin/env bash
# Install everything the kstats tests need on a fresh Debian 12 (bookworm)
# machine, as root.  Idempotent: if every package is already installed we do
# not touch apt at all, so reruns cost a single dpkg-query.
set -euo pipefail

PKGS=(
	build-essential make gcc
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	qemu-system-x86 busybox-static cpio kmod python3 gzip xz-utils
	sparse linux-source-6.12 bc flex bison libelf-dev libssl-dev file
	debhelper dh-dkms dkms lintian dpkg-dev dh-python libjson-c-dev
	# test/lib/rootfs.sh builds the Debian guest for the python and
	# bpftrace tests with these.
	debootstrap e2fsprogs util-linux
)

missing=()
for p in "${PKGS[@]}"; do
	# "install ok installed" is the only state that means fully configured;
	# half-installed/config-files states must be (re)installed.
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [[ "$status" != "install ok installed" ]]; then
		missing+=("$p")
	fi
done

if ((${#missing[@]} == 0)); then
	echo "deps: all ${#PKGS[@]} packages already installed"
	exit 0
fi

if ((EUID != 0)); then
	echo "deps: missing packages (${missing[*]}); run as root" >&2
	exit 1
fi

echo "deps: installing: ${missing[*]}"
apt-get update
# Install the full list, not just the missing ones, so apt can resolve
# the set consistently; already-installed packages are no-ops.
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${PKGS[@]}"
echo "deps: done"
