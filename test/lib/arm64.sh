# shellcheck shell=bash
# Sourceable helpers for the arm64 tests: Debian's stock arm64 kernels,
# their headers and an arm64 busybox, fetched from Debian's archive and
# unpacked with dpkg-deb -x under /var/cache/kstats, keyed by package
# version. Nothing arm64 is installed through dpkg: the headers package
# depends on gcc-12:arm64 and linux-image:arm64, which cannot be installed
# beside their amd64 versions, and an installed arm64 headers tree would
# make DKMS (test/package.sh) try to build kstats for that kernel.
# The unpacked headers use the host's own linux-kbuild (amd64 fixdep,
# modpost, genksyms), which Debian builds for this (Multi-Arch: foreign):
# the tree's scripts/ link resolves to a link to the host's package.
# shellcheck source=apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

# shellcheck source=kernels.sh
. "$(dirname "${BASH_SOURCE[0]}")/kernels.sh"

KS_ARM64_CACHE=${KS_CACHE:-/var/cache/kstats}
KS_ARM64_HOST_PKGS=(qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross)

# ks_arm64_host_deps: the cross compiler and QEMU, from Debian's archive.
ks_arm64_host_deps() {
	local p status missing=()
	for p in "${KS_ARM64_HOST_PKGS[@]}"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || missing+=("$p")
	done
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		ks_apt update -q
	fi
	((${#missing[@]} == 0)) && return 0
	echo "arm64: installing ${missing[*]}"
	ks_apt update -q
	ks_apt install -y -q --no-install-recommends \
		"${KS_ARM64_HOST_PKGS[@]}"
}

# ks_arm64_fetch DIR PKG=VERSION...: download arm64 packages into DIR,
# running apt-get update once if the lists lack them.
ks_arm64_fetch() {
	local dir=$1
	shift
	mkdir -p "$dir"
	(cd "$dir" && ks_apt download -q "$@") && return 0
	ks_apt update -q
	(cd "$dir" && ks_apt download -q "$@")
}

# ks_arm64_kernels: "ARM64_KVER VERSION" per stock amd64 reference kernel
# installed (the same Debian version, so the host's linux-kbuild matches).
ks_arm64_kernels() {
	local k ver
	for k in $(ks_kernels); do
		ver=$(dpkg-query -W -f='${Version}' "linux-image-$k" 2>/dev/null) || continue
		echo "${k%-amd64}-arm64 $ver"
	done
}

# ks_arm64_kernel KVER VERSION: unpack image and headers into the cache;
# prints the directory, which holds boot/vmlinuz-KVER and the build tree
# usr/src/linux-headers-KVER. Keyed by version and by this function's text.
ks_arm64_kernel() {
	local kver=$1 ver=$2 dir tmp common kbuild key
	key=$(declare -f ks_arm64_kernel | sha256sum | cut -c1-8)
	dir=$KS_ARM64_CACHE/arm64-$kver-$ver-$key
	if [[ ! -f $dir/.kstats-ready ]]; then
		rm -rf "$dir" "$dir.tmp"
		tmp=$dir.tmp
		ks_arm64_fetch "$tmp/debs" "linux-image-$kver:arm64=$ver" \
			"linux-headers-$kver:arm64=$ver" >&2
		# The common headers are arch: all; their name is in the Depends.
		common=$(dpkg-deb -f "$tmp"/debs/linux-headers-*.deb Depends |
			grep -o 'linux-headers-[^ ,]*-common')
		ks_arm64_fetch "$tmp/debs" "$common=$ver" >&2
		for d in "$tmp"/debs/*.deb; do
			dpkg-deb -x "$d" "$tmp/root"
		done
		# Only the image and the build tree are used: no modules, dtbs or docs.
		rm -rf "$tmp/debs" "$tmp/root/lib" "$tmp/root/usr/lib" "$tmp/root/usr/share"
		# scripts/ and tools/ point at ../../lib/linux-kbuild-*: the host's.
		kbuild=$(readlink "$tmp/root/usr/src/linux-headers-$kver/scripts")
		kbuild=${kbuild#../../lib/}
		kbuild=${kbuild%/scripts}
		[[ -x /usr/lib/$kbuild/scripts/basic/fixdep ]] ||
			{ echo "arm64: host lacks /usr/lib/$kbuild for $kver" >&2; return 1; }
		# The arch Makefile includes the common one by absolute path.
		sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" \
			"$tmp/root/usr/src/linux-headers-$kver/Makefile"
		mkdir -p "$tmp/root/usr/lib"
		ln -sfn "/usr/lib/$kbuild" "$tmp/root/usr/lib/$kbuild"
		touch "$tmp/.kstats-ready"
		mv "$tmp" "$dir"
	fi
	echo "$dir"
}

# ks_arm64_kernel_locked KVER VERSION: ks_arm64_kernel, one caller at a
# time per KVER (test/run-all.sh fetches ahead beside the arm64 job).
ks_arm64_kernel_locked() (
	mkdir -p "$KS_ARM64_CACHE"
	exec 7>"$KS_ARM64_CACHE/arm64-$1.lock"
	flock 7
	ks_arm64_kernel "$@"
)

# ks_arm64_busybox: the static arm64 busybox, unpacked; prints its path.
ks_arm64_busybox() (
	mkdir -p "$KS_ARM64_CACHE"
	exec 7>"$KS_ARM64_CACHE/arm64-busybox.lock"
	flock 7
	ver=$(apt-cache policy busybox-static:arm64 | awk '/Candidate:/ {print $2}')
	[[ -n $ver && $ver != "(none)" ]] || { ks_apt update -q >&2; ver=$(apt-cache policy busybox-static:arm64 | awk '/Candidate:/ {print $2}'); }
	dir=$KS_ARM64_CACHE/arm64-busybox-${ver//:/_}
	if [[ ! -x $dir/bin/busybox ]]; then
		rm -rf "$dir" "$dir.tmp"
		ks_arm64_fetch "$dir.tmp/debs" "busybox-static:arm64=$ver" >&2
		dpkg-deb -x "$dir.tmp"/debs/*.deb "$dir.tmp/root"
		mkdir -p "$dir.tmp/bin"
		cp "$dir.tmp/root/bin/busybox" "$dir.tmp/bin/busybox"
		rm -rf "$dir.tmp/debs" "$dir.tmp/root"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir/bin/busybox"
)
