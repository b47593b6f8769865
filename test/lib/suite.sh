# shellcheck shell=bash
# The bookkeeping of test/run-all.sh and test/arm64/run.sh: each sets
# LOGS, PASSED=0 and FAILED=0, sources this file and ends with its sums.
#
# Timing: when KS_TIMES names a file (test/run-all.sh exports it), every
# step (run, guest_suite, counted, timed) appends one line to it,
# "SECONDS<TAB>GROUP<TAB>STEP<TAB>CPU", GROUP being KS_GROUP (a kernel,
# host, debug, arm64, ...) and CPU the user and system seconds of the
# processes the step ran (a guest's QEMU among them). Wall time includes
# waiting for a CPU beside other jobs; CPU time is the step's own work.
# test/run-all.sh prints them as a table at the end.

# ks_now: microseconds since the epoch.
ks_now() {
	local t=$EPOCHREALTIME
	echo "${t//[!0-9]/}"
}

KS_CLK_TCK=$(getconf CLK_TCK)

# ks_cpu_ticks VAR: the user and system clock ticks of this shell's
# waited-for children, and theirs (getrusage(RUSAGE_CHILDREN)), into VAR.
# Read without a fork: a command substitution would read its own
# subshell's, which has no children yet.
ks_cpu_ticks() {
	local -a st
	read -r -a st <"/proc/$BASHPID/stat" 2>/dev/null || st=()
	printf -v "$1" '%d' $((${st[15]:-0} + ${st[16]:-0}))
}

# ks_t0 VAR: a step's start, "MICROSECONDS CPU_TICKS", into VAR.
ks_t0() {
	local cpu
	ks_cpu_ticks cpu
	printf -v "$1" '%s %s' "$(ks_now)" "$cpu"
}

# ks_time_add T0 STEP: record STEP as taking from T0 (ks_t0) to now.
ks_time_add() {
	[[ -n ${KS_TIMES:-} ]] || return 0
	local w0 c0 cpu d
	read -r w0 c0 <<<"$1"
	d=$(($(ks_now) - w0))
	ks_cpu_ticks cpu
	cpu=$(((cpu - ${c0:-$cpu}) * 10 / KS_CLK_TCK))
	printf '%d.%d\t%s\t%s\t%d.%d\n' $((d / 1000000)) $((d % 1000000 / 100000)) \
		"${KS_GROUP:-main}" "$2" $((cpu / 10)) $((cpu % 10)) >>"$KS_TIMES"
}

# timed STEP CMD...: run CMD (its output unchanged), recording its time.
timed() {
	local step=$1 t0 rc=0
	shift
	ks_t0 t0
	"$@" || rc=$?
	ks_time_add "$t0" "$step"
	return "$rc"
}

# run NAME CMD...: one check, pass if CMD exits 0; its output goes to a log.
# Timed as KS_STEP if set (guest_suite sets it), else as NAME.
run() {
	local name=$1 log t0
	shift
	log=$LOGS/$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log
	ks_t0 t0
	if "$@" >"$log" 2>&1; then
		PASSED=$((PASSED + 1))
		echo "PASS $name"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $name (log: $log)"
		tail -n 30 "$log" | sed 's/^/    /'
	fi
	ks_time_add "$t0" "${KS_STEP:-$name}"
}

# add_counts LOG: add a checker's "X: N passed, M failed" line to the totals.
add_counts() {
	local line
	line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed$' "$1" | tail -1)
	if [[ -z $line ]]; then
		FAILED=$((FAILED + 1))
		return
	fi
	# shellcheck disable=SC2086
	set -- $line
	PASSED=$((PASSED + $2))
	FAILED=$((FAILED + $4))
}

# counted TAG RESULT PATTERN CMD...: a checker that prints its own
# "X: N passed, M failed": CMD's output goes to RESULT, its lines that
# match PATTERN (grep -E) are shown prefixed with [TAG], its counts are
# added. Timed as the RESULT file's name.
counted() {
	local tag=$1 result=$2 pattern=$3 t0
	shift 3
	ks_t0 t0
	"$@" >"$result" 2>&1
	grep -E "$pattern" "$result" | sed "s/^/    [$tag] /"
	add_counts "$result"
	ks_time_add "$t0" "$(basename "$result" .result)"
}

# suite_checker NAME: test/NAME_test.py, or test/AREA/NAME_test.py for
# areas with a folder.
suite_checker() {
	if [[ -f test/${1}_test.py ]]; then echo "test/${1}_test.py"; else echo "test/$1/${1}_test.py"; fi
}

# guest_suite KVER NAME TITLE "GEN ARGS" FILE...: test/NAME_test.py writes
# the guest script, the kernel boots it with FILEs under /modules/, and
# the same checker counts what the console shows.
guest_suite() {
	local k=$1 name=$2 title=$3 gen=$4 script console result py
	local KS_STEP="guest $name"
	shift 4
	py=$(suite_checker "$name")
	script=$LOGS/$name-$k.sh
	console=$LOGS/guest-$name-$k.console
	result=$LOGS/$name-$k.result
	# shellcheck disable=SC2086
	python3 "$py" gen "$script" $gen
	KS_TIMEOUT=${KS_TIMEOUT:-600} run "$k: $title, clean console" \
		bash test/lib/run-guest.sh "$k" "$script" "$console" "$@"
	python3 "$py" check "$console" >"$result" 2>&1
	sed "s/^/    [$k] /" "$result"
	add_counts "$result"
}

# rootfs_batch KVER "NAME|RESULT|SCRIPT|PATTERN"...: the Debian rootfs
# guests' scripts (test/lib/rootfs-guest.sh), each as counted RESULT
# PATTERN bash SCRIPT KVER LOGS would run it, in one boot: each script
# first leaves its guest script and files (KS_ROOTFS_RECORD), one boot
# runs them all (test/lib/run-batch.sh on rootfs.sh), then each checks
# its own part of the console (KS_ROOTFS_REPLAY). The boot, the resets
# between them included, gets a check of its own.
rootfs_batch() {
	local k=$1 spec name result pattern script dir f names=() args=()
	local -A seen=() base=() recorded=()
	local -a files=()
	shift
	(($#)) || return 0
	# One script, or KS_BATCH=0: a boot each.
	if [[ ${KS_BATCH:-1} == 0 || $# == 1 ]]; then
		for spec; do
			IFS='|' read -r name result script pattern <<<"$spec"
			counted "$k" "$result" "$pattern" bash "$script" "$k" "$LOGS"
		done
		return 0
	fi
	dir=$(mktemp -d)
	for spec; do
		IFS='|' read -r name result script pattern <<<"$spec"
		if ! KS_ROOTFS_RECORD=$dir/$name bash "$script" "$k" "$LOGS" >"$dir/$name.log" 2>&1 ||
			[[ ! -s $dir/$name.script || ! -s $dir/$name.console ]]; then
			FAILED=$((FAILED + 1))
			echo "FAIL $k: $script left no guest script for the shared boot:"
			sed 's/^/    /' "$dir/$name.log"
			continue
		fi
		recorded[$name]=1
		args+=("$name:$dir/$name.script:$(cat "$dir/$name.console" 2>/dev/null)")
		names+=("$name")
		while read -r f; do
			[[ -n $f && -z ${seen[$f]:-} ]] || continue
			seen[$f]=1
			# The guest has each file as /ks/BASENAME: one name, one file.
			if [[ -n ${base[${f##*/}]:-} ]]; then
				echo "FAIL $k: $f and ${base[${f##*/}]} share a name in /ks"
				FAILED=$((FAILED + 1))
				continue
			fi
			base[${f##*/}]=$f
			files+=("$f")
		done <"$dir/$name.files"
	done
	((${#names[@]})) || { rm -rf "$dir"; return 0; }
	KS_STEP="rootfs batch ${names[*]}" KS_RUN_GUEST=test/lib/rootfs.sh KS_BATCH_DIR=/ks \
		run "$k: rootfs guests ${names[*]} in one boot, clean console" \
		bash test/lib/run-batch.sh "$k" "$LOGS/guest-batch-rootfs-$k.console" "${args[@]}" -- "${files[@]}"
	for spec; do
		IFS='|' read -r name result script pattern <<<"$spec"
		[[ -n ${recorded[$name]:-} ]] || continue
		KS_ROOTFS_REPLAY=1 counted "$k" "$result" "$pattern" bash "$script" "$k" "$LOGS"
	done
	rm -rf "$dir"
}

# guest_batch KVER "NAME|TITLE|GEN ARGS"... -- FILE...: guest_suite for
# each NAME, all in one boot (test/lib/run-batch.sh), with the FILEs of
# them all. Each keeps its "clean console" check, on its own part of the
# console, and its checker's counts; the boot, the resets between them
# included, gets a check of its own. KS_BATCH=0 boots each on its own.
guest_batch() {
	local k=$1 spec name title gen py names=() specs=() args=()
	local -A seen=()
	local -a files=()
	shift
	while [[ $1 != -- ]]; do specs+=("$1"); shift; done
	shift
	for f in "$@"; do
		[[ -n ${seen[$f]:-} ]] || files+=("$f")
		seen[$f]=1
	done
	# One script, or KS_BATCH=0: a boot each.
	if [[ ${KS_BATCH:-1} == 0 || ${#specs[@]} == 1 ]]; then
		for spec in "${specs[@]}"; do
			IFS='|' read -r name title gen <<<"$spec"
			guest_suite "$k" "$name" "$title" "$gen" "${files[@]}"
		done
		return 0
	fi
	for spec in "${specs[@]}"; do
		IFS='|' read -r name title gen <<<"$spec"
		py=$(suite_checker "$name")
		# shellcheck disable=SC2086
		python3 "$py" gen "$LOGS/$name-$k.sh" $gen
		args+=("$name:$LOGS/$name-$k.sh:$LOGS/guest-$name-$k.console")
		names+=("$name")
	done
	KS_STEP="guest batch ${names[*]}" run "$k: guests ${names[*]} in one boot, clean console" \
		bash test/lib/run-batch.sh "$k" "$LOGS/guest-batch-$(IFS=-; echo "${names[*]}")-$k.console" \
		"${args[@]}" -- "${files[@]}"
	for spec in "${specs[@]}"; do
		IFS='|' read -r name title gen <<<"$spec"
		py=$(suite_checker "$name")
		KS_STEP="guest $name" run "$k: $title, clean console" \
			bash test/lib/run-batch.sh --verdict "$LOGS/guest-$name-$k.console"
		python3 "$py" check "$LOGS/guest-$name-$k.console" >"$LOGS/$name-$k.result" 2>&1
		sed "s/^/    [$k] /" "$LOGS/$name-$k.result"
		add_counts "$LOGS/$name-$k.result"
	done
}
