#!/bin/bash
# Host tests of the Python package (python/): its unit tests on the
# captured nodes (python3 -m unittest), then the parity test against the
# C tool (test/python_parity.py, needs tools/kstats: make tools). Ends
# with "python: N passed, M failed" for test/run-all.sh's add_counts.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
bash "$TOP/test/lib/need-pkgs.sh" python3 >&2
out=$(cd "$TOP/python" && python3 -W error -m unittest -v 2>&1)
echo "$out" | grep -E '(FAIL|ERROR)' | grep -v '^Ran' || true
echo "$out" | tail -n 5
n=$(echo "$out" | sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p')
f=$(echo "$out" | sed -n 's/^FAILED (\(.*\))$/\1/p' | grep -oE '[0-9]+' | awk '{s += $1} END {print s + 0}')
n=${n:-0} f=${f:-0}
[[ $n -gt 0 ]] || f=$((f + 1))
p=$((n > f ? n - f : 0))
pp=$(python3 "$TOP/test/python_parity.py" "$TOP/tools/kstats" "$TOP/test/data" 2>&1)
echo "$pp" | grep -E '^(FAIL|  )' || true
read -r pp_p pp_f < <(echo "$pp" | sed -n 's/^parity: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
if [[ -n ${pp_f:-} ]]; then
	p=$((p + pp_p)) f=$((f + pp_f))
else
	echo "FAIL parity test gave no count"
	f=$((f + 1))
fi
echo "python: $p passed, $f failed"
