#!/bin/bash
# ./playground as a user runs it, three boots (one at a time):
# - the busybox guest with a SCRIPT and a carried-in directory (--dir):
#   the script lists the directory's files under /work, finds kstats on
#   PATH and /dev/nullb0, traces kst_target_delay while `target` makes
#   exactly 200 calls and prints the trace's samples, traces vfs_read
#   through the kstats tool while dd reads nullb0, runs the README's
#   one-liners ("From bcc and bpftrace") all at once as a shell runs
#   each, and exits 3: the playground prints the script's lines only and
#   exits 3;
# - the Debian rootfs guest (--rootfs) with a script: import kstats in
#   python3 reads a trace's samples, bpftrace is there, and the same
#   carried-in directory;
# - the busybox guest with no SCRIPT, its console on a pipe: once the
#   shell's prompt shows, commands typed, then poweroff; exit 0.
# Prints "playground: N passed, M failed". Usage: test/playground-test.sh [LOGDIR]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:-$TOP/out/logs}
mkdir -p "$logs"
p=0 f=0
ok() { # STATUS WHAT [DETAIL]
	if [[ $1 == 0 ]]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL playground: $2${3:+ ($3)}"; fi
}
has() { # FILE WHAT GREP-E-PATTERN
	grep -Eq -- "$3" "$1"
	ok $? "$2" "no /$3/ in $1"
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The directory carried in: two files, one in a subdirectory.
mkdir -p "$work/pgdata/sub" "$work/readme"
echo "hello from the host" >"$work/pgdata/hello.txt"
echo 42 >"$work/pgdata/sub/answer"

# 1. busybox, SCRIPT.
cat >"$work/script.sh" <<'EOF'
echo "files: $(cd /work/pgdata && find . -type f | sort | tr '\n' ' ')"
echo "content: $(cat /work/pgdata/hello.txt)"
echo "kstats at $(command -v kstats)"
[ -b /dev/nullb0 ] && echo "nullb0 is a block device"
echo trace t start kst_target_delay > /sys/kernel/debug/kstats/_control
target delay 20 200
echo "t samples $(awk '/^# samples/ {print $3}' /sys/kernel/debug/kstats/t)"
kstats trace rd start vfs_read comm dd
dd if=/dev/nullb0 of=/dev/null bs=4k count=300 2>/dev/null
kstats show rd | head -1
kstats remove rd
# The README's one-liners ("From bcc and bpftrace"), each as a shell runs
# it, all at once; the workload starts once every trace is listed, and
# then Ctrl-C (SIGINT) ends them all, as a user ends a run sooner. They
# run with -d 0 (until Ctrl-C), not the README's -d 5: on a loaded host
# the first ones' 5 s ran out before the last one was listed.
mount -t cgroup2 none /sys/fs/cgroup && mkdir -p /sys/fs/cgroup/system.slice/ssh.service
n=0
while read -r line; do
	n=$((n + 1))
	(sh -c "$line" >/tmp/ol.$n 2>&1; echo "@@rc=$?" >>/tmp/ol.$n) &
done </work/readme/oneliners.run
# Each trace's NAME: the first word after run's options.
names=$(awk '{for (i = 3; i <= NF; i++) if ($i ~ /^-/) i++; else { print $i; break }}' /work/readme/oneliners)
for i in $(seq 1200); do
	missing=0
	for x in $names; do grep -q "^$x " /sys/kernel/debug/kstats/_control || missing=1; done
	[ $missing = 0 ] && break
	sleep 0.1
done
echo "oneliners listed: $((1 - missing))"
sh -c 'echo $$ >/sys/fs/cgroup/system.slice/ssh.service/cgroup.procs && dd if=/dev/nullb0 of=/dev/null bs=4k count=200 2>/dev/null && sleep 0.1'
dd if=/proc/self/mem of=/dev/null count=1 2>/dev/null
echo x | cat >/dev/null
sleep 0.2
killall -INT kstats
wait
for i in $(seq $n); do sed "s/^/@@OL$i /" /tmp/ol.$i; done
exit 3
EOF
# The README's one-liners, as its "From bcc and bpftrace" gives them.
awk '/^From bcc and bpftrace$/,/^Contents$/' "$TOP/README" |
	sed -n 's/^    \(kstats run .*\)$/\1/p' >"$work/readme/oneliners"
mapfile -t oneliners <"$work/readme/oneliners"
sed 's/^kstats run -d 5 /kstats run -d 0 /' "$work/readme/oneliners" >"$work/readme/oneliners.run"
! grep -q -- ' -d 5 ' "$work/readme/oneliners.run"
ok $? "the one-liners run until Ctrl-C (-d 0 for the README's -d 5)" "$(grep -- ' -d 5 ' "$work/readme/oneliners.run")"
((${#oneliners[@]} >= 11))
ok $? "README: its table gives at least 11 one-liners" "${#oneliners[@]}"
out=$logs/playground-script.out
err=$logs/playground-script.err
"$TOP/playground" --dir "$work/pgdata" --dir "$work/readme" "$work/script.sh" >"$out" 2>"$err"
rc=$?
[[ $rc == 3 ]]
ok $? "busybox: the playground exits with the script's status 3" "rc $rc, see $err"
has "$out" "busybox: the carried directory's files under /work" '^files: \./hello\.txt \./sub/answer $'
has "$out" "busybox: a carried file's content" '^content: hello from the host$'
has "$out" "busybox: kstats on PATH" '^kstats at /.*/kstats$'
has "$out" "busybox: /dev/nullb0" '^nullb0 is a block device$'
has "$out" "busybox: the test target's 200 calls, traced" '^t samples 200$'
has "$out" "busybox: the tool's trace of dd's reads of nullb0" '^rd: [1-9][0-9]* samples?, missed 0'
has "$out" "busybox: every one-liner's trace was listed before the workload" '^oneliners listed: 1$'
for ((i = 1; i <= ${#oneliners[@]}; i++)); do
	line=${oneliners[i - 1]}
	name=$(awk '{for (i = 3; i <= NF; i++) if ($i ~ /^-/) i++; else { print $i; break }}' <<<"$line")
	has "$out" "README one-liner exits 0: $line" "^@@OL$i @@rc=0$"
	case $name in
	wq) has "$out" "README one-liner prints its figures: $line" "^@@OL$i $name: [0-9]+ samples?," ;;
	*) has "$out" "README one-liner counts samples: $line" "^@@OL$i $name: [1-9][0-9]* samples?," ;;
	esac
	if [[ $line == *" key "* ]]; then
		has "$out" "README one-liner prints its rows: $line" "^@@OL$i $name: [0-9]+ rows? of key "
	fi
done
has "$out" "README one-liner rderr: a row of EIO (-5), dd's read of /proc/self/mem" '^@@OL[0-9]+ .*  ret -5$'
has "$out" "README one-liner rqcg: a row of /system.slice/ssh.service" '^@@OL[0-9]+ .*  cgroup /system.slice/ssh.service$'
! grep -Eq '^\[ *[0-9.]+\]|KSTATS-GUEST|PLAYGROUND-' "$out"
ok $? "busybox: only the script's lines on stdout" "see $out"

# 2. the Debian rootfs, SCRIPT.
cat >"$work/script-rootfs.sh" <<'EOF'
#!/bin/bash
echo "files: $(cd /work/pgdata && find . -type f | sort | tr '\n' ' ')"
echo "kstats at $(command -v kstats)"
[ -b /dev/nullb0 ] && echo "nullb0 is a block device"
command -v bpftrace >/dev/null && echo "bpftrace is here"
kstats trace t start kst_target_delay
target delay 20 150
python3 -c 'import kstats; print("python t samples", kstats.metric("t").summary().samples)'
EOF
out=$logs/playground-rootfs.out
err=$logs/playground-rootfs.err
"$TOP/playground" --rootfs --dir "$work/pgdata" "$work/script-rootfs.sh" >"$out" 2>"$err"
rc=$?
[[ $rc == 0 ]]
ok $? "rootfs: the script runs and exits 0" "rc $rc, see $err"
has "$out" "rootfs: the carried directory's files under /work" '^files: \./hello\.txt \./sub/answer $'
has "$out" "rootfs: kstats on PATH" '^kstats at /.*/kstats$'
has "$out" "rootfs: /dev/nullb0 (null_blk by modprobe)" '^nullb0 is a block device$'
has "$out" "rootfs: bpftrace" '^bpftrace is here$'
has "$out" "rootfs: import kstats reads the trace's 150 samples" '^python t samples 150$'

# 3. busybox, interactive: the console on a pipe. Commands go in once the
# prompt shows, poweroff once they have answered.
out=$logs/playground-shell.out
fifo=$work/console
mkfifo "$fifo"
"$TOP/playground" --dir "$work/pgdata" <"$fifo" >"$out" 2>&1 &
pid=$!
exec 3>"$fifo"
wait_for() { # PATTERN SECONDS
	local i
	for ((i = 0; i < $2; i++)); do
		grep -aq -- "$1" "$out" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}
wait_for 'playground:/work# ' 300
ok $? "shell: a prompt on the console" "see $out"
# shellcheck disable=SC2016 # expanded by the guest's shell
echo 'find /work/pgdata -type f; kstats list | head -1; echo "shell says $((6 * 7))"' >&3
wait_for 'shell says 42' 60
ok $? "shell: typed commands run" "see $out"
echo poweroff >&3
for ((i = 0; i < 60; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
if kill -0 "$pid" 2>/dev/null; then
	kill "$pid"
	ok 1 "shell: poweroff ends the playground"
fi
wait "$pid"
rc=$?
exec 3>&-
[[ $rc == 0 ]]
ok $? "shell: exit status 0 after poweroff" "rc $rc"
has "$out" "shell: the carried directory" '/work/pgdata/sub/answer'
has "$out" "shell: how to leave is printed" 'Leave with poweroff .*Ctrl-A X'
has "$out" "shell: kstats list's header" 'NAME +SAMPLES'

echo "playground: $p passed, $f failed"
[[ $f == 0 ]]
