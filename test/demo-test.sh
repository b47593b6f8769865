#!/bin/bash
# The README's first command, test/demo.sh, run as a user runs it: it must
# exit 0 and show each answer it announces, with figures from its own
# workload. Prints "demo: N passed, M failed". Usage: test/demo-test.sh [LOGDIR]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:-$TOP/out/logs}
mkdir -p "$logs"
out=$logs/demo.out
bash "$TOP/test/demo.sh" >"$out" 2>&1
rc=$?
p=0 f=0
check() { # WHAT GREP-E-PATTERN
	if grep -Eq -- "$2" "$out"; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL demo: $1 (no /$2/ in $out)"; fi
}
if [[ $rc == 0 ]]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL demo: exit status $rc (see $out)"; fi
check "kstats show read comes first, with samples" '^read: [1-9][0-9]* samples?, missed 0, stopped'
check "the top row of KEY-read is dd's" '^	comm dd$'
check "the slowest sample is shown" '^slowest value [0-9]+ pid [0-9]+ comm '
check "flame read has dd's reads" '^dd;.*;vfs_read [0-9]+$'
check "the run-queue latency has samples" '^runq: [1-9][0-9]* samples?, missed 0, stopped'
check "dd's off-CPU wait and the stack that woke it" '^		pipe_(read|write)\+'
check "the waker is dd" '^	waker-comm dd$'
check "flame off is an off-wake line" '^[^ ]*;__schedule;--;try_to_wake_up;[^ ]* [0-9]+$'
check "the client module's metric" '^demo_hrtimer_late: [1-9][0-9]* samples?'
check "kstats list" '^NAME +SAMPLES'
check "the raw node, last: its summary lines to the unit" '^# unit ns$'
check "and its first slot lines" '^slot +[0-9]+ +CPUS +[0-9]+ +count'
check "the raw node, last" '^# name read$'
check "unloaded at the end" '^== unloaded$'
# A kernel that is not here: one message naming those that are, exit 2.
bash "$TOP/test/demo.sh" 6.99-nosuch >"$logs/demo-nosuch.out" 2>&1
rc=$?
if [[ $rc == 2 ]] && grep -q "^demo: no kernel 6.99-nosuch with its headers here; these are: [0-9]" "$logs/demo-nosuch.out" &&
	! grep -q "make" "$logs/demo-nosuch.out"; then
	p=$((p + 1))
else
	f=$((f + 1))
	echo "FAIL demo: an unknown kernel (rc $rc): $(tr '\n' ' ' <"$logs/demo-nosuch.out")"
fi
echo "demo: $p passed, $f failed"
[[ $f == 0 ]]
