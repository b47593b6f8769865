#!/usr/bin/env bash
# run-batch.sh KVER BATCH_LOG NAME:SCRIPT:CONSOLE... -- [FILE...]
# run-batch.sh --verdict CONSOLE
#
# Several guest scripts of one kernel in one boot (test/lib/run-guest.sh),
# one after the other, instead of one boot each: a busybox guest spends
# 3 to 10 s booting on a loaded host, before its first step.
#
# Each SCRIPT runs as /modules/suite-NAME.sh, under its own
# KSTATS-GUEST-START and KSTATS-GUEST-END lines, between
# "@@BATCH-START NAME" and "@@BATCH-END NAME rc=N". Between scripts the
# guest is put back as it booted: leftover tasks killed, every module
# loaded since the boot unloaded, mounts the script made undone, CPUs
# online, /tmp emptied and the kernel's ring buffer cleared (scripts
# count their own dmesg lines).
# A script that raises kernel lockdown (it refuses unsigned modules from
# then on) must be the last of its batch.
#
# Afterwards CONSOLE gets what a boot of its own would have shown: the
# boot's console up to init's START line, then its script's part; and
# CONSOLE.verdict says PASS, or FAIL and why (a kernel report in its part,
# no END line, or a non-zero rc), as run-guest.sh would have. A script
# whose boot ended (a crash, a timeout) before it started runs again in a
# new boot with those left; the one that was running when it ended fails
# with what its part shows.
#
# Exit status: 0 if every boot was clean (run-guest.sh's verdict on the
# whole console, the resets between scripts included), else the first
# failing boot's. --verdict CONSOLE prints CONSOLE.verdict and exits 0 on
# PASS, 1 otherwise.
#
# Environment: KS_SUITE_TIMEOUT (seconds a script may take, default 600);
# KS_BATCH_DIR (where the guest finds the FILEs, default /modules:
# test/lib/rootfs.sh's guests have them in /ks);
# the rest (KS_APPEND, KS_KERNEL, ...) as run-guest.sh's. KS_TIMEOUT is
# set here: the scripts' timeouts summed, and 120 s for the boot.
# KS_RUN_GUEST: another boot script, rootfs.sh, or a stand-in for
# run-guest.sh (test/harness-test.sh's).
set -uo pipefail

if [[ ${1:-} == --verdict ]]; then
	v=$(cat "$2.verdict" 2>/dev/null) || v="FAIL no verdict (the batch did not run it)"
	echo "$v"
	[[ $v == PASS* ]]
	exit
fi

LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=console-check.sh
. "$LIBDIR/console-check.sh"

usage() {
	echo "usage: $0 KVER BATCH_LOG NAME:SCRIPT:CONSOLE... -- [FILE...]" >&2
	exit 4
}
(($# >= 3)) || usage
KVER=$1
BATCH_LOG=$2
shift 2
NAMES=()
declare -A SCRIPT=() CONSOLE=()
while (($#)) && [[ $1 != -- ]]; do
	IFS=: read -r n s c <<<"$1"
	[[ -n $n && -r $s && -n $c ]] || usage
	NAMES+=("$n")
	SCRIPT[$n]=$s
	CONSOLE[$n]=$c
	shift
done
[[ ${1:-} == -- ]] && shift
FILES=("$@")
PER=${KS_SUITE_TIMEOUT:-600}
DIR=${KS_BATCH_DIR:-/modules}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ks-batch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# runner NAME...: the guest script that runs NAMEs' scripts in turn.
runner() {
	cat <<'EOF'
# test/lib/run-batch.sh: several suites in one boot.
mounts0=$(awk '{print $2}' /proc/mounts)
# Modules the boot loaded (a Debian initrd's) stay.
mods0=$(awk '{print $1}' /proc/modules)
batch_reset() {
	kill -9 -1 2>/dev/null
	sleep 0.2
	for m in $(awk '{print $2}' /proc/mounts | sort -r); do
		echo "$mounts0" | grep -qxF "$m" || umount -l "$m" 2>/dev/null
	done
	# Unloads what nothing uses, until nothing is left.
	for round in 1 2 3 4 5; do
		left=$(awk '{print $1}' /proc/modules | grep -vxF "$mods0")
		[ -n "$left" ] || break
		for m in $left; do rmmod "$m" 2>/dev/null; done
	done
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat $c)" = 1 ] || echo 1 > $c
	done
	rm -rf /tmp/* 2>/dev/null
	cd /
	dmesg -c > /dev/null
}
EOF
	local n
	for n in "$@"; do
		cat <<EOF
echo "@@BATCH-START $n"
echo "KSTATS-GUEST-START \$(uname -r) cpus=\$(nproc)"
timeout $PER sh $DIR/suite-$n.sh </dev/null
rc=\$?
echo "KSTATS-GUEST-END rc=\$rc"
echo "@@BATCH-END $n rc=\$rc"
batch_reset
echo "@@BATCH-RESET $n left: \$(awk '{print \$1}' /proc/modules | tr '\n' ' ')"
EOF
	done
}

# split LOG NAME: NAME's part of LOG (the boot, then its own lines) into
# its CONSOLE; prints "ended" (its END line is there), "cut" (it started,
# no END) or "none" (it never started).
split() {
	local log=$1 n=$2 c=${CONSOLE[$2]}
	awk -v n="$n" '
		/KSTATS-GUEST-START/ && !booted { booted = 1 }
		!booted { print; next }
		$0 ~ "@@BATCH-START " n "$" { in_part = 1 }
		in_part { print; started = 1 }
		in_part && $0 ~ "@@BATCH-END " n " rc=" { in_part = 0; ended = 1 }
		END { exit ended ? 10 : started ? 11 : 12 }
	' "$log" >"$c"
	case $? in
	10) echo ended ;;
	11) echo cut ;;
	*) echo none ;;
	esac
}

# verdict NAME STATE: CONSOLE.verdict, as run-guest.sh decides.
verdict() {
	local c=${CONSOLE[$1]} report rc end
	report=$(ks_console_check "$c")
	rc=$?
	end=$(grep -a -o -E 'KSTATS-GUEST-END rc=[0-9]+' "$c" | tail -n1)
	if ((rc == 2)); then
		echo "FAIL kernel report: ${report#console-check: kernel report in "$c": }"
	elif ((rc != 0)); then
		echo "FAIL $report"
	elif [[ $2 != ended || -z $end ]]; then
		echo "FAIL no KSTATS-GUEST-END marker: the batch's boot ended while it ran (see $BATCH_LOG)"
	elif [[ ${end##*rc=} != 0 ]]; then
		echo "FAIL test.sh exited rc=${end##*rc=}"
	else
		echo PASS
	fi >"$c.verdict"
}

left=("${NAMES[@]}")
status=0
round=0
: >"$BATCH_LOG"
while ((${#left[@]})); do
	round=$((round + 1))
	log=$WORK/console.$round
	runner "${left[@]}" >"$WORK/batch.sh"
	extra=()
	for n in "${left[@]}"; do
		cp "${SCRIPT[$n]}" "$WORK/suite-$n.sh"
		extra+=("$WORK/suite-$n.sh")
	done
	KS_TIMEOUT=$((PER * ${#left[@]} + 120)) \
		bash "${KS_RUN_GUEST:-$LIBDIR/run-guest.sh}" "$KVER" "$WORK/batch.sh" "$log" "${FILES[@]}" "${extra[@]}"
	rc=$?
	((status == 0)) && status=$rc
	{
		echo "=== run-batch.sh: boot $round: ${left[*]} (run-guest.sh rc=$rc)"
		cat "$log"
	} >>"$BATCH_LOG"
	next=()
	for n in "${left[@]}"; do
		state=$(split "$log" "$n")
		if [[ $state == none && $round -lt ${#NAMES[@]} && ${#next[@]} -lt ${#left[@]} ]]; then
			next+=("$n")
		else
			verdict "$n" "$state"
		fi
	done
	# A boot in which no script started would start none the next time.
	((${#next[@]} == ${#left[@]})) && for n in "${next[@]}"; do verdict "$n" none; done && next=()
	left=("${next[@]}")
done
exit "$status"
