#!/bin/bash
# Off-CPU waits counted by kstats and by bpftrace over the same workload,
# in one Debian rootfs guest (test/lib/rootfs.sh, Debian's bpftrace): a
# "trace p offcpu comm pingpong" and test/offcpu_peer.bt, the same waits
# on sched_switch, both attached across one run of test/progs/pingpong
# (two tasks on one CPU passing a byte through pipes). The counts must be
# equal, and kstats must miss none. Prints "peer: N passed, M failed".
# Usage: test/offcpu-peer.sh KVER [LOGDIR]   after test/build.sh KVER
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
k=$1 logs=${2:-$TOP/out/logs}
mkdir -p "$logs"
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
C=/sys/kernel/debug/kstats/_control
insmod /ks/kstats.ko || echo "@@FAIL insmod kstats"
echo "trace p offcpu comm pingpong" > $C || echo "@@FAIL trace p"
bpftrace /ks/offcpu_peer.bt > /tmp/bt.out 2>&1 &
bt=$!
# Until its probe runs on CPU 0: a task of comm kstready blocks there.
for i in $(seq 1 300); do
	grep -q '^ready' /tmp/bt.out && break
	taskset 1 /ks/kstask kstready sleep 1 1000 > /dev/null
	sleep 0.2
done
grep -q '^ready' /tmp/bt.out || echo "@@FAIL bpftrace never attached"
/ks/pingpong 2000 peer
kill -INT $bt; wait $bt
echo "@@BT rc=$?"
echo "@@PEER kstats $(awk '$2 == "samples" {print $3}' /sys/kernel/debug/kstats/p) missed $(awk '$2 == "missed" {print $3}' /sys/kernel/debug/kstats/p) bpftrace $(sed -n 's/^@waits: //p' /tmp/bt.out)"
echo "remove p" > $C
GUEST
console=$logs/guest-offcpu-peer-$k.console
bash "$TOP/test/lib/rootfs.sh" "$k" "$script" "$console" "$TOP/out/$k/kstats.ko" \
	"$TOP/out/$k/pingpong" "$TOP/out/$k/kstask" "$TOP/test/offcpu_peer.bt"
rc=$?
p=0 f=0
check() { # OK WHAT DETAIL
	if [[ $1 == 1 ]]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL $2: $3"; fi
}
line=$(grep -a '^@@PEER' "$console" | tail -n1)
read -r _ _ ks _ missed _ bt <<<"$line"
check "$([[ $rc == 0 ]] && echo 1)" "rootfs guest runs, clean console" "exit status $rc (see $console)"
check "$(grep -aq '^@@BT rc=0' "$console" && ! grep -aq '^@@FAIL' "$console" && echo 1)" \
	"bpftrace attached, ran and exited 0" "$(grep -a -e '^@@BT' -e '^@@FAIL' "$console")"
check "$([[ -n ${ks:-} && $ks -ge 2000 ]] && echo 1)" "kstats counted the waits of 2000 round trips" "${line:-no @@PEER line}"
check "$([[ ${missed:-x} == 0 ]] && echo 1)" "kstats missed none" "${line:-no @@PEER line}"
check "$([[ -n ${bt:-} && ${ks:-} == "$bt" ]] && echo 1)" "kstats and bpftrace count the same waits" "${line:-no @@PEER line}"
echo "peer: $p passed, $f failed"
[[ $f == 0 ]]
