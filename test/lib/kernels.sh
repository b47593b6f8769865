# shellcheck shell=bash
# Sourceable helpers to discover the stock Debian kernels the tests target.
# Versions are resolved at run time (never hard-coded): a kernel counts only
# if both its image (to boot in QEMU) and its build tree (to compile the
# module against) are installed.

# ks_kernel_series KVER -> "6.1", "6.12" or "7.N" (non-zero exit for
# anything else): the series the tests know.
ks_kernel_series() {
	local kver=$1
	case $kver in
	6.1.*) echo 6.1 ;;
	6.12.*) echo 6.12 ;;
	7.*) [[ $kver =~ ^(7\.[0-9]+)\. ]] && echo "${BASH_REMATCH[1]}" ;;
	*) return 1 ;;
	esac
}

# ks_kernels -> usable KVERs, one per line, version-sorted.
ks_kernels() {
	local img kver
	for img in /boot/vmlinuz-*; do
		[[ -e $img ]] || continue
		kver=${img#/boot/vmlinuz-}
		# Only Debian 12's amd64 flavour of the 6.1 and 6.12 series (the
		# newer suites' kernels: test/lib/suites.sh).
		[[ $kver == *-amd64 ]] || continue
		case $(ks_kernel_series "$kver") in 6.1 | 6.12) ;; *) continue ;; esac
		[[ -d /lib/modules/$kver/build ]] || continue
		echo "$kver"
	done | sort -V
}
