# shellcheck shell=bash
# ks_apt ARGS...: apt-get ARGS, non-interactive, waiting for another apt or
# dpkg (unattended-upgrades, a user's apt) to let go of its locks: dpkg's
# lock through DPkg::Lock::Timeout, the lists' lock by retrying.
ks_apt() {
	local i rc err path=()
	# KS_CCACHE=1 (test/run-all.sh): dpkg's maintainer scripts (DKMS's
	# builds) get this PATH, ccache's compilers first, instead of apt's
	# DPkg::Path (/usr/sbin:/usr/bin:/sbin:/bin).
	[[ ${KS_CCACHE:-0} == 1 ]] && path=(-o "DPkg::Path=$PATH")
	err=$(mktemp)
	for i in $(seq 1 120); do
		if DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "${path[@]}" "$@" 2>"$err"; then
			rc=0
		else
			rc=$?
		fi
		cat "$err" >&2
		grep -q 'Could not get lock' "$err" || break
		echo "apt: another apt or dpkg holds its lock; waiting ($i)" >&2
		sleep 5
	done
	rm -f "$err"
	return "$rc"
}
