#!/bin/bash
# The kstats tool's usage errors and refusals on nodes captured in a guest
# (test/data/6.12/kstats, read with --root): each names what is wrong and
# exits with the code kstats(8) gives. Ends with "cli: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
KSTATS=$TOP/tools/kstats
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A captured root without _control: writes must be refused as such. No
# device (an older module's case): commands meet that root, never the
# /dev/kstats of a module loaded on this host.
export KSTATS_DEV=$T/nodev
cp -r "$TOP/test/data/6.12/kstats" "$T/cap"
rm -f "$T/cap/_control"
PASSED=0
FAILED=0
# expect CODE PATTERN ARGS...: kstats ARGS exits CODE, its stderr matching PATTERN
expect() {
	local code=$1 pattern=$2 rc
	shift 2
	"$KSTATS" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [[ $rc == "$code" ]] && grep -Eq -- "$pattern" "$T/err"; then
		PASSED=$((PASSED + 1))
	else
		FAILED=$((FAILED + 1))
		echo "FAIL: kstats $*: exit $rc (want $code), stderr: $(head -c 300 "$T/err")"
	fi
}
R=(--root "$T/cap")
expect 64 "^kstats: trace: $T/cap/_control is not in debugfs" "${R[@]}" trace z start vfs_read
expect 64 "^kstats: remove: $T/cap/_control is not in debugfs" "${R[@]}" remove read
expect 64 "^kstats: trace: '--json' is not a word of _control; kstats' options go before the command" \
	"${R[@]}" trace z start vfs_read --json
expect 66 '^kstats: runq: no _interval/runq under ' "${R[@]}" watch runq -n 1
expect 64 "^kstats: list takes no NAME: 'extra'" "${R[@]}" list extra
expect 64 '^kstats: show: give NAME' "${R[@]}" show
expect 64 "^kstats: show takes one NAME: 'b' too" "${R[@]}" show read b
expect 64 '^kstats: export: give --prometheus' "${R[@]}" export
expect 64 '^kstats: plot: give -o FILE' "${R[@]}" plot read
expect 64 '^kstats: run: give NAME' "${R[@]}" run -d 1
expect 64 "^kstats: run --svg $T/z.svg: trace z has no key, so no rows to draw: add key kstack" \
	"${R[@]}" run --svg "$T/z.svg" z start vfs_read
expect 64 "^kstats: run: option '--svg' needs a value" "${R[@]}" run --svg
expect 64 '^kstats: remove: give NAME' "${R[@]}" remove
expect 64 '^kstats: trace: give NAME' "${R[@]}" trace
expect 64 '^kstats: reset: give NAME' "${R[@]}" reset
expect 64 "^kstats: unknown option '-x'" -x list
expect 64 "^kstats: unknown command 'frob'" frob
expect 64 '^kstats: --root needs a DIR' --root
expect 73 "^kstats: --textfile $T/nodir: No such file or directory" "${R[@]}" export --prometheus --textfile "$T/nodir"
expect 64 '^kstats: -n -1: not a whole number from 0 to 2147483647' "${R[@]}" watch read -n -1
# run: options go before NAME (issue 45), said with the command as it should read.
expect 64 "^kstats: run: options go before NAME, the words after it are the trace's \(_control has no word '-...'\): kstats run -d 1 rd start vfs_read$" \
	"${R[@]}" run rd start vfs_read -d 1
expect 64 "^kstats: trace: '-d' is not a word of _control" "${R[@]}" trace rd start vfs_read -d 1
expect 64 '^kstats: run: --cumulative is a way to print each -i interval: give -i SECONDS' \
	"${R[@]}" run --cumulative rd start vfs_read
expect 64 "^kstats: run: options go before NAME, the words after it are the trace's \(_control has no word '-...'\): kstats run --top 3 rd start vfs_read key comm$" \
	"${R[@]}" run rd start vfs_read key comm --top 3
expect 64 '^kstats: --top x: not a whole number' "${R[@]}" run --top x rd start vfs_read
expect 64 '^kstats: -d 1.5: not a whole number from 0 to' "${R[@]}" run -d 1.5 rd start vfs_read
expect 64 "^kstats: trace: word 1 is empty: _control's words are separated by blanks" "${R[@]}" trace '' start vfs_read
# rows: of a trace with a key only; its options' faults.
expect 66 '^kstats: read: no KEY-read: not a trace with a key' "${R[@]}" rows read
expect 64 '^kstats: rows: give NAME' "${R[@]}" rows
expect 64 '^kstats: --sort min: use total, count, avg, p50, p99 or max' "${R[@]}" rows read --sort min
expect 64 "^kstats: rows: --raw prints no symbols" "${R[@]}" rows read --raw --kallsyms /proc/kallsyms
expect 64 '^kstats: rows has no --json' "${R[@]}" --json rows read
# --unit keeps the unit on each figure of the summary (issue 45).
"$KSTATS" "${R[@]}" show read --unit ms >"$T/out" 2>&1
if grep -q '^  min 0.002978ms  mean 0.053114ms  max 6.682961ms$' "$T/out" &&
	grep -q '^  p50 0.021793ms (+-0.002047ms)  p90 ' "$T/out"; then
	PASSED=$((PASSED + 1))
else
	FAILED=$((FAILED + 1))
	echo "FAIL: show read --unit ms drops units: $(head -3 "$T/out")"
fi
# getopt's faults, in kstats' words and prefix.
expect 64 "^kstats: list: option '--unit' needs a value" "${R[@]}" list --unit
expect 64 "^kstats: list: unknown option '--bogus'" "${R[@]}" list --bogus
expect 64 "^kstats: show: unknown option '-q'" "${R[@]}" show -q read
expect 64 "^kstats: watch: option '-i' needs a value" "${R[@]}" watch read -i
echo "cli: $PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
