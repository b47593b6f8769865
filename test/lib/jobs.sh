# shellcheck shell=bash
# Jobs of test/run-all.sh: a part of the run (one kernel's builds and
# guests, the debug kernel's chain, arm64, ...) started in the background
# beside others, with its own output and its own counts, so that nothing
# it prints or counts is lost:
#   ks_job_start NAME CMD...  runs CMD (a function that uses run,
#     guest_suite, counted, add_counts) in a subshell with PASSED=0 and
#     FAILED=0; everything it prints goes to $KS_JOBS_DIR/NAME.out, its
#     "PASSED FAILED" to NAME.counts when it ends.
#   ks_job_reap  prints the output of every job that has ended (once),
#     adds its counts to PASSED and FAILED; a job that ended without its
#     counts (killed, or exited early) counts as one failure.
#   ks_job_throttle MAX NAME...  reaps until fewer than MAX of NAMEs run;
#     MAX is a number, or a function that prints one, asked again each
#     round (so that it can grow as other jobs end: ks_job_lanes).
#   ks_job_wait_all  reaps until every job has been reaped.
# Each job's wall time and CPU time ("START END NAME CPU", seconds, the
# first two from KS_T0) goes to $KS_JOBS_DIR/lanes for the time table. Requires test/lib/suite.sh.

declare -A KS_JOB_PID=() KS_JOB_REAPED=()
KS_JOB_NAMES=()

ks_job_start() {
	local name=$1
	shift
	rm -f "$KS_JOBS_DIR/$name".{out,counts,done}
	# shellcheck disable=SC2030 # the job's own counts, reaped from its file
	(
		# shellcheck disable=SC2064 # the name now
		trap "touch '$KS_JOBS_DIR/$name.done'" EXIT
		# KS_JOB_NICE: this job and its guests yield to un-niced ones.
		[[ -z ${KS_JOB_NICE:-} ]] || renice -n "$KS_JOB_NICE" -p "$BASHPID" >/dev/null
		PASSED=0
		FAILED=0
		t0=$(ks_now)
		"$@"
		echo "$PASSED $FAILED" >"$KS_JOBS_DIR/$name.counts"
		ks_cpu_ticks cpu
		echo "$(((t0 - KS_T0) / 1000000)) $((($(ks_now) - KS_T0) / 1000000)) $name $((cpu / KS_CLK_TCK))" \
			>>"$KS_JOBS_DIR/lanes"
	) </dev/null >"$KS_JOBS_DIR/$name.out" 2>&1 &
	KS_JOB_PID[$name]=$!
	KS_JOB_NAMES+=("$name")
	echo "== started $name (output: $KS_JOBS_DIR/$name.out)"
}

# ks_job_ended NAME: its EXIT trap ran, or its process is gone.
ks_job_ended() {
	[[ -e $KS_JOBS_DIR/$1.done ]] || ! kill -0 "${KS_JOB_PID[$1]}" 2>/dev/null
}

ks_job_reap() {
	local name p f
	for name in "${KS_JOB_NAMES[@]}"; do
		[[ -z ${KS_JOB_REAPED[$name]:-} ]] || continue
		ks_job_ended "$name" || continue
		wait "${KS_JOB_PID[$name]}" 2>/dev/null
		KS_JOB_REAPED[$name]=1
		echo "== $name:"
		cat "$KS_JOBS_DIR/$name.out"
		if read -r p f 2>/dev/null <"$KS_JOBS_DIR/$name.counts" &&
			[[ $p =~ ^[0-9]+$ && $f =~ ^[0-9]+$ ]]; then
			# shellcheck disable=SC2031 # the totals of the calling shell
			PASSED=$((PASSED + p))
			# shellcheck disable=SC2031
			FAILED=$((FAILED + f))
		else
			FAILED=$((FAILED + 1))
			echo "FAIL $name: the job ended without its counts (output: $KS_JOBS_DIR/$name.out)"
		fi
	done
}

ks_job_throttle() {
	local max=$1 name n m
	shift
	while :; do
		ks_job_reap
		n=0
		for name in "$@"; do
			ks_job_running "$name" && n=$((n + 1))
		done
		if [[ $max =~ ^[0-9]+$ ]]; then m=$max; else m=$("$max"); fi
		((n < m)) && return 0
		sleep 2
	done
}

# ks_job_running NAME: it was started and has not ended.
ks_job_running() {
	[[ -n ${KS_JOB_PID[$1]:-} ]] && ! ks_job_ended "$1"
}

# ks_job_lanes TOTAL LEAST NAME...: TOTAL less the NAMEs still running,
# and at least LEAST: how many other jobs may run beside them.
ks_job_lanes() {
	local n=$1 least=$2 name
	shift 2
	for name in "$@"; do ks_job_running "$name" && n=$((n - 1)); done
	echo $((n > least ? n : least))
}

ks_job_wait_all() {
	local name left
	while :; do
		ks_job_reap
		left=0
		for name in "${KS_JOB_NAMES[@]}"; do
			[[ -n ${KS_JOB_REAPED[$name]:-} ]] || left=1
		done
		((left)) || return 0
		sleep 2
	done
}

# ks_time_table: where the time went, from KS_TIMES and the lanes file:
# each job's wall span, the sum of the steps of each group (kernel, host,
# debug, ...), and the steps, longest first (those under KS_TIME_MIN s,
# default 2, summed on one line).
# ks_failures_list: every failed check's line from the jobs' output, so
# that the end of the run (all that a CI page may keep) names them.
ks_failures_list() {
	local lines
	lines=$(grep -h -E '(^|\] |^ +)(FAIL|not ok)' "$KS_JOBS_DIR"/*.out 2>/dev/null)
	[[ -n $lines ]] || return 0
	echo "== failed checks ($(wc -l <<<"$lines") lines; each job's whole output is above):"
	head -n 60 <<<"$lines" | cut -c1-300
}

# Wall seconds include waiting for a CPU beside other jobs; CPU seconds
# (user and system, of every process a step ran) are the step's own work,
# which is what a cut saves on a machine whose cores are all busy.
ks_time_table() {
	local total=$1 cpu ncpu
	ks_cpu_ticks cpu
	cpu=$((cpu / KS_CLK_TCK))
	ncpu=$(nproc)
	echo "== time table: $total s in all, $cpu CPU s ($((cpu * 100 / (total * ncpu + 1))) % of $ncpu CPUs over that time; steps: $KS_TIMES)"
	if [[ -s $KS_JOBS_DIR/lanes ]]; then
		echo "   jobs, side by side (s from the start; wall, CPU):"
		sort -n "$KS_JOBS_DIR/lanes" |
			awk '{ printf "   %5d..%-5d %5d s %5d s  %s\n", $1, $2, $2 - $1, $4, $3 }'
	fi
	[[ -s $KS_TIMES ]] || return 0
	echo "   per kernel or group (sums of its steps: wall, CPU):"
	awk -F'\t' '{ s[$2] += $1; c[$2] += $4; n[$2]++ }
		END { for (g in s) printf "   %7.1f s %7.1f s  %-28s %d steps\n", s[g], c[g], g, n[g] }' "$KS_TIMES" |
		sort -k3,3 -rn
	echo "   per step, most CPU first (wall, CPU):"
	sort -t$'\t' -k4,4 -rn "$KS_TIMES" | awk -F'\t' -v min="${KS_TIME_MIN:-2}" '
		$4 >= min { printf "   %7.1f s %7.1f s  %-28s %s\n", $1, $4, $2, $3; next }
		{ rest += $1; crest += $4; nrest++ }
		END { if (nrest) printf "   %7.1f s %7.1f s  (%d steps under %s CPU s each)\n", rest, crest, nrest, min }'
	echo "   CPU by kind of step (summed over kernels):"
	awk -F'\t' '{ k = $3; sub(/^[^ ]+: /, "", k); sub(/-[0-9][^ ]*$/, "", k); c[k] += $4 }
		END { for (k in c) if (c[k] >= 10) printf "   %7.1f s  %s\n", c[k], k }' "$KS_TIMES" |
		sort -rn | head -n 30
	python3 "$(dirname "${BASH_SOURCE[0]}")/guest-steps.py" "$(dirname "$KS_TIMES")" 20 || true
}
