# shellcheck shell=bash
# Sourceable helpers to discover the stock Debian kernels the tests target.
# Versions are resolved at run time (never hard-coded): a kernel counts only
# if both its image (to boot in QEMU) and its build tree (to compile the
# module against) are installed.

# ks_kernel_series KVER -> "6.1" or "6.12" (non-zero exit for anything else)
ks_kernel_series() {
	local kver=$1
	case $kver in
	6.1.*) echo 6.1 ;;
	6.12.*) echo 6.12 ;;
	*) return 1 ;;
	esac
}

# ks_kernels -> usable KVERs, one per line, version-sorted.
ks_kernels() {
	local img kver
	for img in /boot/vmlinuz-*; do
		[[ -e $img ]] || continue
		kver=${img#/boot/vmlinuz-}
		# Only Debian's amd64 flavour of the 6.1 and 6.12 series.
		[[ $kver == *-amd64 ]] || continue
		ks_kernel_series "$kver" >/dev/null || continue
		[[ -d /lib/modules/$kver/build ]] || continue
		echo "$kver"
	done | sort -V
}
