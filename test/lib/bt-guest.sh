# shellcheck shell=sh
# Guest-side helpers for the bpftrace peers (test/offcpu-peer.sh,
# test/ustack-peer.sh, test/bio-peer.sh), carried in as /ks/bt-guest.sh
# and sourced by their rootfs guest scripts (busybox or Debian sh).

# bt_dump OUT [TRIGGER...]: run TRIGGER (a command that makes bpftrace
# print its maps and an "end" line) until OUT holds "end", at most 50
# times, 0.2 s apart; false if it never did. Without TRIGGER, a task of
# comm kstdone switching out (/ks/kstask), as the .bt scripts expect.
bt_dump() {
	out=$1
	shift
	for _ in $(seq 1 50); do
		grep -q '^end' "$out" && return 0
		if [ $# -gt 0 ]; then "$@"; else /ks/kstask kstdone sleep 1 1000 > /dev/null; fi
		sleep 0.2
	done
	grep -q '^end' "$out"
}

# bt_stop PID: stop bpftrace with SIGINT, as a user does. bpftrace 0.17
# at times never exits after it (seen alive 60 s later, in
# do_epoll_wait): 10 s, then SIGKILL and "@@BT hung". Then "@@BT rc=N".
bt_stop() {
	kill -INT "$1"
	for _ in $(seq 1 100); do
		kill -0 "$1" 2> /dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2> /dev/null; then
		echo "@@BT hung: no exit 10 s after SIGINT, killed"
		kill -KILL "$1"
	fi
	wait "$1"
	echo "@@BT rc=$?"
}
