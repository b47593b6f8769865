#!/bin/bash
# The guest harness's console verdicts (test/lib/console-check.sh,
# test/lib/run-guest.sh) on hand-written consoles: which logs fail, and
# which earn the one rerun (an emulator fault, a report during boot).
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/console-check.sh
. "$TOP/test/lib/console-check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # WHAT EXPECTED(0/1) COMMAND...
	local what=$1 want=$2 got=0
	shift 2
	"$@" >/dev/null || got=1
	if [[ $got == "$want" ]]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $what"
	fi
}
log() { printf '%b' "$2" >"$tmp/$1"; echo "$tmp/$1"; }
clean=$(log clean '[ 0.1] Linux version\n[ 0.2] kmemleak: Kernel memory leak detector initialized\nKSTATS-GUEST-START 6.12 cpus=2\nok\nKSTATS-GUEST-END rc=0\n')
late=$(log late 'KSTATS-GUEST-START 6.12 cpus=2\n[ 5.0] BUG: KASAN: use-after-free in ks_x\nKSTATS-GUEST-END rc=0\n')
early=$(log early '[ 0.084] BUG: KASAN: wild-memory-access in rcu_is_watching+0x20/0x3c\nKSTATS-GUEST-START 6.12 cpus=2\nKSTATS-GUEST-END rc=0\n')
nostart=$(log nostart '[ 0.5] Kernel panic - not syncing: VFS\n')
badfl=$(log badfl 'KSTATS-GUEST-START\n[ 9.0] Oops: 0000\n[ 9.0] RSP: 0018:ffffc9 EFLAGS: 5a965ae2\n')
goodfl=$(log goodfl 'KSTATS-GUEST-START\n[ 9.0] Oops: 0000\n[ 9.0] RSP: 0018:ffffc9 EFLAGS: 00010246\n')
check "a clean console passes, its detector banners benign" 0 ks_console_check "$clean"
check "a report after the script began fails" 1 ks_console_check "$late"
check "a report during boot fails the check" 1 ks_console_check "$early"
check "a report during boot earns the rerun" 0 ks_report_before_start "$early"
check "a report with no script start (boot died) earns the rerun" 0 ks_report_before_start "$nostart"
check "a report after the script began earns no rerun" 1 ks_report_before_start "$late"
check "a clean console earns no rerun" 1 ks_report_before_start "$clean"
check "EFLAGS with reserved bits set is an emulator fault" 0 ks_emulator_fault "$badfl"
check "an ordinary EFLAGS is no emulator fault" 1 ks_emulator_fault "$goodfl"
# ks_boot_rerun (run-guest.sh's and rootfs.sh's one rerun): a boot-time
# report's console is kept aside and the tag says why; a late one stays.
cp "$early" "$tmp/rerun-early" && cp "$late" "$tmp/rerun-late"
check "a report during boot: the rerun, its console kept as .boot-report" 0 \
	bash -c ". $TOP/test/lib/console-check.sh; r=\$(ks_boot_rerun t $tmp/rerun-early x 2>/dev/null) &&
		[[ \$r == ', rerun after a kernel report during boot' && -f $tmp/rerun-early.boot-report && ! -e $tmp/rerun-early ]]"
check "a report after the script began: no rerun, its console left where it is" 1 \
	bash -c ". $TOP/test/lib/console-check.sh; ks_boot_rerun t $tmp/rerun-late x 2>/dev/null || { [[ -f $tmp/rerun-late ]] && exit 1; }"

# The time table's step accounting (test/lib/suite.sh): a step's CPU
# seconds are its processes' work, not its wall time. A busy child
# counts its CPU; a sleeping one counts about none of its wall time.
(
	# shellcheck source=lib/suite.sh
	. "$TOP/test/lib/suite.sh"
	export KS_TIMES=$tmp/times.tsv KS_GROUP=harness
	timed busy bash -c 'end=$((SECONDS + 2)); while ((SECONDS < end)); do :; done'
	timed sleeping sleep 1
)
cpu_of() { awk -F'\t' -v s="$1" '$3 == s && NF == 4 { print $1, $4 }' "$tmp/times.tsv"; }
read -r busy_wall busy_cpu < <(cpu_of busy)
read -r sleep_wall sleep_cpu < <(cpu_of sleeping)
# Bounds from the step's own wall time as the table recorded it: on a
# loaded host the busy loop gets less than a CPU, never more.
check "a busy step's CPU seconds are at least a quarter of its wall time, at most all of it (wall ${busy_wall:-?} s, CPU ${busy_cpu:-?} s)" 0 \
	awk -v w="${busy_wall:-0}" -v c="${busy_cpu:--1}" 'BEGIN { exit !(w >= 1 && c >= w / 4 && c <= w + 0.2) }'
check "a sleeping step's CPU seconds are about none of its wall time (wall ${sleep_wall:-?} s, CPU ${sleep_cpu:-?} s)" 0 \
	awk -v w="${sleep_wall:-0}" -v c="${sleep_cpu:-9}" 'BEGIN { exit !(w >= 1 && c <= 0.2) }'

# Several guest scripts in one boot (test/lib/run-batch.sh), with a
# stand-in for run-guest.sh (KS_RUN_GUEST) that prints, for each script
# the batch's guest script names, what FAKE says of it: ok, report (a
# KASAN line), fail (rc 1) or crash (the boot ends there); boot: the
# kernel dies before any script starts.
cat >"$tmp/fake-guest.sh" <<'FAKE'
#!/bin/bash
script=$2 log=$3
echo "$(sed -n 's/^echo "@@BATCH-START \(.*\)"$/\1/p' "$script" | tr '\n' ' ')" >>"$BOOTS"
out() {
	echo "[ 0.1] Linux version"
	[[ $FAKE == *=boot* ]] && { echo "[ 0.5] Kernel panic - not syncing: VFS"; return 3; }
	echo "KSTATS-GUEST-START 6.12 cpus=2"
	for n in $(sed -n 's/^echo "@@BATCH-START \(.*\)"$/\1/p' "$script"); do
		b=$(tr ' ' '\n' <<<"$FAKE" | sed -n "s/^$n=//p")
		echo "@@BATCH-START $n"
		echo "KSTATS-GUEST-START 6.12 cpus=2"
		echo "@@STEP $n-work 1.0"
		rc=0
		case $b in
		crash) echo "[ 9.0] Kernel panic - not syncing: $n"; return 3 ;;
		report) echo "[ 5.0] BUG: KASAN: use-after-free in ks_$n" ;;
		fail) rc=1 ;;
		esac
		echo "KSTATS-GUEST-END rc=$rc"
		echo "@@BATCH-END $n rc=$rc"
		echo "@@BATCH-RESET $n left: "
	done
	echo "KSTATS-GUEST-END rc=0"
}
out >"$log"
FAKE
batch() { # FAKE NAME...: the batch's exit status
	local n a=()
	rm -rf "$tmp/b"
	mkdir -p "$tmp/b"
	for n in "${@:2}"; do
		echo "true" >"$tmp/b/$n.sh"
		a+=("$n:$tmp/b/$n.sh:$tmp/b/$n.console")
	done
	FAKE=$1 BOOTS=$tmp/b/boots KS_RUN_GUEST=$tmp/fake-guest.sh bash "$TOP/test/lib/run-batch.sh" 6.12 "$tmp/b/batch.console" "${a[@]}" --
}
verdict() { bash "$TOP/test/lib/run-batch.sh" --verdict "$tmp/b/$1.console"; }
check "a batch whose boot crashed fails" 1 batch "basic=ok trace=report engine=fail hotplug=crash keys=ok" basic trace engine hotplug keys
check "batch: a script that ran clean passes" 0 verdict basic
check "batch: a kernel report in a script's part fails that script" 1 verdict trace
check "batch: a script's rc 1 fails it" 1 verdict engine
check "batch: the script that was running when the boot ended fails" 1 verdict hotplug
check "batch: the scripts the crash kept from starting run in a second boot, alone" 0 \
	diff <(printf 'basic trace engine hotplug keys \nkeys \n') "$tmp/b/boots"
check "batch: that script passes" 0 verdict keys
check "batch: each part holds the boot and its own lines, not the others'" 0 \
	bash -c "grep -q 'Linux version' $tmp/b/basic.console && ! grep -q -e KASAN -e trace-work $tmp/b/basic.console &&
		grep -q keys-work $tmp/b/keys.console && ! grep -q hotplug $tmp/b/keys.console"
# The rootfs guests' scripts in a shared boot (test/lib/rootfs-guest.sh):
# replayed, each gets the status rootfs.sh would have given its part.
replay() { # NAME STATUS: ks_rootfs's status on NAME's part is STATUS
	local rc=0
	(
		# shellcheck source=lib/rootfs-guest.sh
		. "$TOP/test/lib/rootfs-guest.sh"
		KS_ROOTFS_REPLAY=1 ks_rootfs 6.12 "$tmp/b/$1.sh" "$tmp/b/$1.console"
	) || rc=$?
	((rc == $2))
}
check "rootfs replay: a clean part is status 0" 0 replay basic 0
check "rootfs replay: a kernel report is status 2" 0 replay trace 2
check "rootfs replay: the script's rc 1 is status 1" 0 replay engine 1
check "rootfs replay: a panic that cut the part is a kernel report, status 2" 0 replay hotplug 2
echo "FAIL no KSTATS-GUEST-END marker: the batch's boot ended while it ran" >"$tmp/b/cut.console.verdict"
check "rootfs replay: a part with no END line is status 3" 0 replay cut 3
check "rootfs replay: a part with no verdict is status 4" 0 replay nosuch 4
# Recorded, a script leaves its guest script, console and files, boots
# nothing and ends there, with status 0.
record() {
	(
		# shellcheck source=lib/rootfs-guest.sh
		. "$TOP/test/lib/rootfs-guest.sh"
		echo "echo guest" >"$tmp/r.sh"
		KS_ROOTFS_RECORD=$tmp/rec KS_CACHE=/nonexistent ks_rootfs 6.12 "$tmp/r.sh" "$tmp/r.console" /a/b.ko "/c/d e"
		echo "after the boot"
	) >"$tmp/rec.out"
}
check "rootfs record: status 0, nothing run after it" 0 \
	bash -c "$(declare -f record); TOP=$TOP tmp=$tmp record && ! grep -q 'after the boot' $tmp/rec.out"
check "rootfs record: the guest script, the console's path and the files, one per line" 0 \
	bash -c "cmp -s $tmp/r.sh $tmp/rec.script && [[ \$(cat $tmp/rec.console) == $tmp/r.console ]] &&
		diff <(printf '/a/b.ko\n/c/d e\n') $tmp/rec.files"
check "a clean batch passes" 0 batch "basic=ok trace=ok" basic trace
check "batch: a boot that starts no script fails" 1 batch "basic=boot" basic trace
check "batch: ... and fails each script" 1 verdict basic
check "batch: ... after one boot, not a boot per script" 0 diff <(printf 'basic trace \n') "$tmp/b/boots"

# The jobs' lanes (test/lib/jobs.sh): a total less the debug jobs still
# running, at least a floor; a throttle whose limit is a function asks it
# again each round.
lanes_while_debug_runs() {
	# shellcheck source=lib/suite.sh
	. "$TOP/test/lib/suite.sh"
	# shellcheck source=lib/jobs.sh
	. "$TOP/test/lib/jobs.sh"
	KS_JOBS_DIR=$tmp/jobs PASSED=0 FAILED=0
	export KS_T0
	KS_T0=$(ks_now)
	mkdir -p "$KS_JOBS_DIR"
	# shellcheck disable=SC2317 # run as the jobs
	go() { while [[ ! -e $tmp/jobs/go ]]; do sleep 0.1; done; }
	ks_job_start debug go >/dev/null
	ks_job_start other go >/dev/null
	# shellcheck disable=SC2317 # called by ks_job_throttle
	lanes() { ks_job_lanes 4 1 debug chaos; }
	echo "$(lanes) $(ks_job_lanes 1 1 debug) $(ks_job_lanes 3 2 debug other)"
	touch "$tmp/jobs/go"
	ks_job_wait_all >/dev/null
	lanes
	# One job runs: a limit of lanes (4) lets the next start.
	ks_job_start a sleep 30 >/dev/null
	ks_job_throttle lanes a >/dev/null
	echo "throttled"
	kill "${KS_JOB_PID[a]}"
}
check "lanes: 4 less the debug job running, at least the floor; 4 once it ended; a function as the limit" 0 \
	diff <(printf '3 1 2\n4\nthrottled\n') <(lanes_while_debug_runs 2>&1)
echo "harness: $pass passed, $fail failed"
((fail == 0))
