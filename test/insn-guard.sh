#!/bin/bash
# insn-guard.sh [KVER]: kstats' own guest instructions per event for the
# default function trace (fprobe on 6.12) of getpid(), counted by
# bench/insn.sh (a QEMU TCG plugin, one 1-vCPU boot, 3 windows), against
# the committed baseline, bench/results/insn-baseline.txt: fails when the
# median exceeds the baseline of the kernel's series by more than 5 %, or
# when there is no figure to compare (a guard that cannot measure must
# not pass). Counts, unlike TCG timings, repeat within about 1 % whatever
# the host's load, so a 5 % step is kstats' own. A change that makes the
# hot path dearer on purpose updates the baseline in the same commit.
# KVER: default the installed 6.12 reference kernel. KS_BENCH_BUILT=1:
# out/KVER is built already (test/run-all.sh).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source-path=SCRIPTDIR source=lib/kernels.sh
. test/lib/kernels.sh
BASELINE=${KS_INSN_BASELINE:-bench/results/insn-baseline.txt}
k=${1:-$(ks_kernels | while read -r v; do [[ $(ks_kernel_series "$v") == 6.12 ]] && echo "$v"; done | tail -n1)}
[[ -n $k ]] || { echo "insn-guard: no 6.12 reference kernel installed (test/lib/deps.sh)"; exit 1; }
series=$(ks_kernel_series "$k")
# The baseline's line for the series: "SERIES VALUE MEASURED-ON".
read -r _ base on < <(awk -v s="$series" '$1 == s' "$BASELINE") ||
	{ echo "insn-guard: no baseline for $series in $BASELINE"; exit 1; }
bash test/lib/deps.sh >/dev/null
# Built already only if everything the guest needs is there.
[[ -f out/$k/kstats.ko && -f out/$k/insn_getpid ]] || export KS_BENCH_BUILT=0
report=$(mktemp)
trap 'rm -f "$report"' EXIT
start=$(date +%s)
# Three windows: the counts repeat within a fraction of a percent.
# The busybox guest only, not bpftrace's rootfs guest.
KS_BENCH_REPORT=$report KS_BENCH_ROUNDS=${KS_BENCH_ROUNDS:-3} KS_INSN_METHODS=default KS_INSN_PEERS=0 \
	bash bench/insn.sh "$k"
own=$(awk -v n="$k:insn.default.own" '$1 == n {print $2}' "$report")
[[ -n $own ]] || { echo "insn-guard: $k: no figure for the default trace (see out/bench-insn-$k.console)"; exit 1; }
echo "insn-guard: $k: kstats' own $own insn/event (windows $(awk -v n="$k:insn.default.own" \
	'$1 == n ".min" {lo = $2} $1 == n ".max" {hi = $2} END {print lo ".." hi}' "$report")),"\
	"baseline $base (measured on $on), limit +5 % = $(awk -v b="$base" 'BEGIN {printf "%.1f", b * 1.05}');"\
	"$(($(date +%s) - start)) s"
if awk -v o="$own" -v b="$base" 'BEGIN { exit !(o > b * 1.05) }'; then
	echo "insn-guard: FAIL: kstats' own instructions per event grew by more than 5 % over $BASELINE"
	exit 1
fi
if awk -v o="$own" -v b="$base" 'BEGIN { exit !(o < b * 0.95) }'; then
	echo "insn-guard: $own is more than 5 % below the baseline: lower $BASELINE to keep the guard tight"
fi
echo "insn-guard: PASS"
