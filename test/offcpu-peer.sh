#!/bin/bash
# Off-CPU waits counted by kstats and by bpftrace over the same workload,
# in one Debian rootfs guest (test/lib/rootfs.sh, Debian's bpftrace), with
# test/offcpu_peer.bt counting them on sched_switch both as bcc's
# offcputime defines them and as kstats' own views do:
#   "trace a offcpu state all min 1000 comm pingpong" against bcc's default
#   (every switch-out, preemptions included, waits of 1 us and more), and
#   "trace p offcpu comm pingpong" (sleeps) against the same sleeps, over
#   test/progs/pingpong (two tasks on CPU 0 passing a byte through pipes)
#   beside a busy loop on CPU 0, which preempts them;
#   "trace d offcpu state D comm kstD" (ps's D) against bcc's --state 2
#   (the TASK_UNINTERRUPTIBLE bit) less TASK_IDLE, over 20 uninterruptible
#   and 20 TASK_IDLE waits of the test target: bcc counts the 20 TASK_IDLE
#   waits more.
# The counts must be equal, and kstats must miss none. bpftrace prints its
# counts before it is stopped, and each wait on it is bounded: one that
# never exits is killed and fails its check, the counts compared still.
# Prints "peer: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/rootfs-guest.sh
. "$TOP/test/lib/rootfs-guest.sh"
k=$1 logs=${2:-$TOP/out/logs}
mkdir -p "$logs"
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
. /ks/bt-guest.sh
C=/sys/kernel/debug/kstats/_control
T=/sys/kernel/debug/kstats_test_target
insmod /ks/kstats.ko || echo "@@FAIL insmod kstats"
insmod /ks/kstats_test_target.ko || echo "@@FAIL insmod kstats_test_target"
echo "trace p offcpu comm pingpong" > $C || echo "@@FAIL trace p"
echo "trace a offcpu state all min 1000 comm pingpong" > $C || echo "@@FAIL trace a"
echo "trace d offcpu state D comm kstD" > $C || echo "@@FAIL trace d"
bpftrace -B none /ks/offcpu_peer.bt > /tmp/bt.out 2>&1 &
bt=$!
# Until its probe runs on CPU 0: a task of comm kstready blocks there.
for i in $(seq 1 300); do
	grep -q '^ready' /tmp/bt.out && break
	taskset 1 /ks/kstask kstready sleep 1 1000 > /dev/null
	sleep 0.2
done
grep -q '^ready' /tmp/bt.out || echo "@@FAIL bpftrace never attached"
taskset 1 sh -c 'while :; do :; done' &
hog=$!
/ks/pingpong 2000 peer
kill $hog; wait $hog
/ks/kstask kstD write $T 'offcpu_thread 1000 20' 'offcpu_idle 1000 20' > /dev/null ||
	echo "@@FAIL kstD waits"
# Its counts: printed when a task of comm kstdone switches out.
bt_dump /tmp/bt.out
counts=$(sed -n '/^final/,/^end/p' /tmp/bt.out | sed -n 's/^@\([a-z0-9]*\): \([0-9]*\)$/\1 \2/p' | head -n 4)
bcount() { echo "$counts" | awk -v m="$1" '$1 == m {print $2; f=1} END {if (!f) print 0}'; }
bt_stop $bt
grep -q '^end' /tmp/bt.out || echo "@@FAIL bpftrace printed no counts"
kv() { awk -v k="$2" '$2 == k {print $3}' /sys/kernel/debug/kstats/$1; }
echo "@@PEER kstats $(kv p samples) missed $(kv p missed) bpftrace $(bcount sleep)"
echo "@@ALL kstats $(kv a samples) missed $(kv a missed) bpftrace $(bcount all)"
echo "@@D kstats $(kv d samples) missed $(kv d missed) bpftrace $(bcount dps) bcc $(bcount d2)"
for n in p a d; do echo "remove $n" > $C; done
GUEST
console=$logs/guest-offcpu-peer-$k.console
ks_rootfs "$k" "$script" "$console" "$TOP/out/$k/kstats.ko" \
	"$TOP/out/$k/pingpong" "$TOP/out/$k/kstask" "$TOP/test/offcpu_peer.bt" \
	"$TOP/out/$k/kstats_test_target.ko" "$TOP/test/lib/bt-guest.sh"
rc=$?
p=0 f=0
check() { # OK WHAT DETAIL
	if [[ $1 == 1 ]]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL $2: $3"; fi
}
line=$(grep -a '^@@PEER' "$console" | tail -n1)
read -r _ _ ks _ missed _ bt <<<"$line"
all=$(grep -a '^@@ALL' "$console" | tail -n1)
read -r _ _ ks_all _ missed_all _ bt_all <<<"$all"
d=$(grep -a '^@@D ' "$console" | tail -n1)
read -r _ _ ks_d _ missed_d _ bt_d _ bcc_d <<<"$d"
check "$([[ $rc == 0 ]] && echo 1)" "rootfs guest runs, clean console" "exit status $rc (see $console)"
check "$(grep -a '^@@FAIL' "$console" | grep -vq '^@@FAIL bpftrace' || echo 1)" \
	"kstats and the test target loaded, the traces and the waits made" \
	"$(grep -a '^@@FAIL' "$console")"
# bpftrace prints its counts before SIGINT (when kstdone switches out),
# so a bpftrace 0.17 that then never exits is the peer's own fault: it
# is killed and reported here, and fails nothing of kstats'.
check "$(grep -aq -e '^@@BT rc=0' -e '^@@BT hung' "$console" && ! grep -aq '^@@FAIL bpftrace' "$console" && echo 1)" \
	"bpftrace attached, ran and printed its counts (the peer's failure if not)" \
	"$(grep -a -e '^@@BT' -e '^@@FAIL bpftrace' "$console"); kstats: $line / $all / $d"
if grep -aq '^@@BT hung' "$console"; then
	echo "note: the peer's failure, not kstats': bpftrace did not exit 10 s after SIGINT" \
		"(after printing its counts) and was killed; kstats: $line / $all / $d"
fi
check "$([[ -n ${ks:-} && $ks -ge 2000 ]] && echo 1)" "kstats counted the waits of 2000 round trips" "${line:-no @@PEER line}"
check "$([[ ${missed:-x} == 0 && ${missed_all:-x} == 0 && ${missed_d:-x} == 0 ]] && echo 1)" \
	"kstats missed none" "$line / $all / $d"
check "$([[ -n ${bt:-} && ${ks:-} == "$bt" ]] && echo 1)" "kstats and bpftrace count the same sleeps" "${line:-no @@PEER line}"
check "$([[ -n ${bt_all:-} && ${ks_all:-} == "$bt_all" ]] && echo 1)" \
	"state all min 1000 counts what bcc's offcputime counts by default" "${all:-no @@ALL line}"
check "$([[ -n ${ks_all:-} && -n ${ks:-} && $ks_all -gt $ks ]] && echo 1)" \
	"the busy loop preempted pingpong: state all counts more than the sleeps" "$line / $all"
check "$([[ -n ${bt_d:-} && ${ks_d:-} == "$bt_d" && $ks_d -ge 20 ]] && echo 1)" \
	"state D counts the D sleeps, the 20 uninterruptible waits among them" "${d:-no @@D line}"
check "$([[ -n ${bcc_d:-} && -n ${ks_d:-} && $((bcc_d - ks_d)) -ge 20 ]] && echo 1)" \
	"bcc's --state 2 counts the 20 TASK_IDLE waits more than state D" "${d:-no @@D line}"
echo "peer: $p passed, $f failed"
[[ $f == 0 ]]
