#!/bin/bash
# The seed's overhead table for getpid(), redone: the caller-measured p50/p90
# of one getpid() call (test/progs/getpid_p90) untraced, traced by kstats
# with each method the kernel offers, by bpftrace kprobe/kretprobe + hist(),
# by bpftrace kfunc/kretfunc + hist(), and by a bare ftrace kprobe event.
# One rootfs guest (test/lib/rootfs.sh) per kernel. Each tracer is attached
# once and runs ROUNDS rounds; an untraced round is taken just before each
# tracer's rounds and the ratio of round i is to that tracer's base round
# set. TCG: only ratios within one guest run mean anything.
# Output: "table KVER METHOD p90_ratio X" lines (median of rounds, with the
# rounds), then a table.
# Usage: test/bench-table.sh [KVER...]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh

N=${KS_BENCH_N:-20000}
ROUNDS=${KS_BENCH_ROUNDS:-5}
mapfile -t KERNELS < <(if (($#)); then printf '%s\n' "$@"; else ks_kernels; fi)

for k in "${KERNELS[@]}"; do
	bash test/build.sh "$k" >/dev/null
	fprobe=""
	[[ $(ks_kernel_series "$k") == 6.12 ]] && fprobe=fprobe
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
TR=/sys/kernel/tracing
insmod /ks/kstats.ko || exit 1
echo "@@INFO possible \$(cat /sys/devices/system/cpu/possible) clock \$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) bpftrace \$(bpftrace --version)"
F=__x64_sys_getpid
KF=\$F
grep -qw __do_sys_getpid /proc/kallsyms && KF=__do_sys_getpid
rounds() { # NAME: ROUNDS rounds of base and of the attached tracer
	for r in \$(seq 1 $ROUNDS); do
		echo "@@T \$1 \$(/ks/getpid_p90 $N)"
	done
}
base() { for r in \$(seq 1 $ROUNDS); do echo "@@T base-\$1 \$(/ks/getpid_p90 $N)"; done; }
for m in kretprobe $fprobe; do
	base kstats-\$m
	echo "trace b start \$F method \$m" > \$C || continue
	rounds kstats-\$m
	echo "@@KSTATS \$m \$(head -c 300 /sys/kernel/debug/kstats/b | tr '\n' ' ')"
	echo "remove b" > \$C
done
bt() { # NAME PROGRAM
	bpftrace -e "\$2" >/tmp/bt.out 2>&1 &
	pid=\$!
	for i in \$(seq 1 600); do grep -q Attaching /tmp/bt.out && break; sleep 0.2; done
	sleep 1
	if kill -0 \$pid 2>/dev/null; then
		rounds \$1
		kill -INT \$pid; wait \$pid
		echo "@@BT \$1 \$(grep -E '^\[' /tmp/bt.out | sed 's/.*)//' | awk '{s += \$1} END {print "hist_count", s}')"
	else
		echo "@@BT-FAIL \$1 \$(tr '\n' ' ' </tmp/bt.out)"
	fi
}
base bpftrace-kprobe
bt bpftrace-kprobe "kprobe:\$F { @s[tid] = nsecs; } kretprobe:\$F /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }"
base bpftrace-kfunc
bt bpftrace-kfunc "kfunc:\$KF { @s[tid] = nsecs; } kretfunc:\$KF /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }"
base ftrace-kprobe
echo "p:ksb \$F" > \$TR/kprobe_events && echo 1 > \$TR/events/kprobes/ksb/enable && {
	rounds ftrace-kprobe
	echo 0 > \$TR/events/kprobes/ksb/enable
	echo "-:ksb" >> \$TR/kprobe_events
}
exit 0
GUEST
	log=$TOP/out/bench-table-$k.console
	bash test/lib/rootfs.sh "$k" "$script" "$log" "out/$k/kstats.ko" \
		"out/$k/getpid_p90" >&2 || true
	rm -f "$script"
	grep -a '^@@INFO' "$log" | sed "s/^@@INFO/info $k/" || true
	grep -aE '^@@(BT|KSTATS)' "$log" | sed "s/^@@/check $k /" || true
	python3 - "$k" "$log" <<'PY'
import re, statistics, sys
k, t = sys.argv[1], {}
for l in open(sys.argv[2], errors="replace"):
    m = re.search(r"^@@T (\S+) getpid_p90 \d+ p50 (\d+) p90 (\d+) total (\d+)", l)
    if m:
        t.setdefault(m.group(1), []).append((int(m.group(2)), int(m.group(3))))
rows = []
for name, v in t.items():
    if name.startswith("base-"):
        continue
    b = t.get("base-" + name)
    if not b:
        continue
    for i, what in ((0, "p50"), (1, "p90")):
        r = [x[i] / y[i] for x, y in zip(v, b)]
        med = statistics.median(r)
        print("table %s getpid-%s %s_ratio %.2f x (rounds: %s)" % (
            k, name, what, med, " ".join("%.2f" % x for x in r)))
        if i == 1:
            rows.append((name, statistics.median(y[1] for y in b),
                         statistics.median(x[1] for x in v), med, min(r), max(r)))
print("\n| %s getpid() | base p90 ns | traced p90 ns | p90 ratio (median) | min..max |" % k)
print("|---|---|---|---|---|")
for r in rows:
    print("| %s | %d | %d | %.2f | %.2f..%.2f |" % r)
PY
done
