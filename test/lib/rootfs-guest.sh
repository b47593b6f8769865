# shellcheck shell=bash
# ks_rootfs KVER GUEST_SCRIPT CONSOLE [FILE...]: what the scripts of the
# Debian rootfs guests (test/python-guest.sh, offcpu-peer.sh,
# ustack-peer.sh, bio-peer.sh) call in place of test/lib/rootfs.sh, so
# that test/run-all.sh can give them one boot between them:
#   - by default it boots the guest (rootfs.sh) and returns its status;
#   - with KS_ROOTFS_RECORD=PREFIX it boots nothing: it keeps
#     GUEST_SCRIPT as PREFIX.script, CONSOLE's path in PREFIX.console and
#     the FILEs in PREFIX.files, one per line, and ends the calling
#     script with status 0 (its checks wait for the shared boot);
#   - with KS_ROOTFS_REPLAY=1 it boots nothing either: the shared boot
#     (test/lib/run-batch.sh) has written CONSOLE, the boot's console up
#     to the script's start and then its own part, and CONSOLE.verdict;
#     it returns the status rootfs.sh gives for that verdict (0 pass,
#     1 the script failed, 2 kernel report, 3 no END line, 4 other).
ks_rootfs() {
	local kver=$1 script=$2 console=$3 v
	shift 3
	if [[ -n ${KS_ROOTFS_RECORD:-} ]]; then
		cp "$script" "$KS_ROOTFS_RECORD.script" || exit 1
		echo "$console" >"$KS_ROOTFS_RECORD.console"
		printf '%s\n' "$@" >"$KS_ROOTFS_RECORD.files"
		exit 0
	fi
	if [[ ${KS_ROOTFS_REPLAY:-0} == 1 ]]; then
		v=$(cat "$console.verdict" 2>/dev/null) || v="FAIL no verdict"
		echo "rootfs: $kver $(basename "$script") (shared boot): $v"
		case $v in
		PASS*) return 0 ;;
		"FAIL test.sh exited"*) return 1 ;;
		"FAIL kernel report"*) return 2 ;;
		"FAIL no KSTATS-GUEST-END"*) return 3 ;;
		*) return 4 ;;
		esac
	fi
	bash "$(dirname "${BASH_SOURCE[0]}")/rootfs.sh" "$kver" "$script" "$console" "$@"
}
