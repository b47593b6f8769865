# shellcheck shell=bash
# The bookkeeping of test/run-all.sh and test/arm64/run.sh: each sets
# LOGS, PASSED=0 and FAILED=0, sources this file and ends with its sums.

# run NAME CMD...: one check, pass if CMD exits 0; its output goes to a log.
run() {
	local name=$1 log
	shift
	log=$LOGS/$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log
	if "$@" >"$log" 2>&1; then
		PASSED=$((PASSED + 1))
		echo "PASS $name"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $name (log: $log)"
		tail -n 30 "$log" | sed 's/^/    /'
	fi
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

# guest_suite KVER NAME TITLE "GEN ARGS" FILE...: test/NAME_test.py writes
# the guest script, the kernel boots it with FILEs under /modules/, and
# the same checker counts what the console shows.
guest_suite() {
	local k=$1 name=$2 title=$3 gen=$4 script console result
	shift 4
	script=$LOGS/$name-$k.sh
	console=$LOGS/guest-$name-$k.console
	result=$LOGS/$name-$k.result
	# shellcheck disable=SC2086
	python3 "test/${name}_test.py" gen "$script" $gen
	KS_TIMEOUT=${KS_TIMEOUT:-600} run "$k: $title, clean console" \
		bash test/lib/run-guest.sh "$k" "$script" "$console" "$@"
	python3 "test/${name}_test.py" check "$console" >"$result" 2>&1
	sed "s/^/    [$k] /" "$result"
	add_counts "$result"
}
