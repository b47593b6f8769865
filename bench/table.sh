#!/bin/bash
# The seed's overhead table, redone for getpid() and for a module function:
# the caller-measured p50/p90 of one getpid() call (test/progs/getpid_p90),
# and of one call of kstats_test_target's kst_target_null() (its "timed"
# command: back to back, and about 100 calls a second), untraced, traced by
# kstats with each method the kernel offers, by bpftrace kprobe/kretprobe +
# hist(), by bpftrace kfunc/kretfunc + hist(), and by a bare ftrace kprobe
# event. KS_BENCH_BOOTS rootfs guests (test/lib/rootfs.sh) per kernel, one
# after another. In each, each tracer is attached once and runs ROUNDS
# rounds, after untraced (base) rounds of its own. Every call is followed
# by a timed call of an untraced twin (getuid(), kst_target_twin()).
# Output: "table KVER WORKLOAD-METHOD p50_paired X" lines (a round's p50
# over its twin's p50, over the median of that in every base round of the
# workload; medians of rounds, with the rounds; WORKLOAD getpid, modfast or
# modslow) and p90_ratio lines (to the tracer's own base rounds), a table
# each, then the fast-mode figures (bench/fastmode.py); every figure
# also goes to the report. TCG: only ratios within one run mean anything.
# Usage: bench/table.sh [KVER...]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

N=${KS_BENCH_N:-20000}
# About 100 calls a second, as the seed's table's slow column.
NSLOW=${KS_BENCH_NSLOW:-200}
# Rounds per boot (KS_BENCH_BOOTS boots, default 3).
ROUNDS=${KS_BENCH_ROUNDS:-3}
ks_bench_kernels "$@"

for k in "${KERNELS[@]}"; do
	fprobe=""
	[[ $(ks_kernel_series "$k") == 6.12 ]] && fprobe=fprobe
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
TR=/sys/kernel/tracing
T=/sys/kernel/debug/kstats_test_target
insmod /ks/kstats.ko || exit 1
insmod /ks/kstats_test_target.ko || exit 1
echo "@@INFO possible \$(cat /sys/devices/system/cpu/possible) clock \$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) bpftrace \$(bpftrace --version)"
rounds() { # NAME: ROUNDS rounds of workload \$W
	for r in \$(seq 1 $ROUNDS); do
		if [ \$W = getpid ]; then
			echo "@@T getpid \$1 \$(/ks/getpid_p90 $N twin)"
		else
			echo "timed $N 0 1" > \$T && echo "@@T modfast \$1 \$(head -1 \$T)"
			echo "timed $NSLOW 10000 1" > \$T && echo "@@T modslow \$1 \$(head -1 \$T)"
		fi
	done
}
base() { rounds base-\$1; }
bt() { # NAME PROGRAM
	bpftrace -e "\$2" >/tmp/bt.out 2>&1 &
	pid=\$!
	for i in \$(seq 1 600); do grep -q Attaching /tmp/bt.out && break; sleep 0.2; done
	sleep 1
	if kill -0 \$pid 2>/dev/null; then
		rounds \$1
		kill -INT \$pid; wait \$pid
		echo "@@BT \$W \$1 \$(grep -E '^\[' /tmp/bt.out | sed 's/.*)//' | awk '{s += \$1} END {print "hist_count", s}')"
	else
		echo "@@BT-FAIL \$W \$1 \$(tr '\n' ' ' </tmp/bt.out)"
	fi
}
tracers() { # FUNCTION KFUNC: every tracer, each with its own base rounds
	for m in kretprobe $fprobe; do
		base kstats-\$m
		echo "trace b start \$1 method \$m" > \$C || continue
		rounds kstats-\$m
		echo "@@KSTATS \$W \$m \$(head -c 300 /sys/kernel/debug/kstats/b | tr '\n' ' ')"
		echo "remove b" > \$C
	done
	base bpftrace-kprobe
	bt bpftrace-kprobe "kprobe:\$1 { @s[tid] = nsecs; } kretprobe:\$1 /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }"
	base bpftrace-kfunc
	bt bpftrace-kfunc "kfunc:\$2 { @s[tid] = nsecs; } kretfunc:\$2 /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }"
	base ftrace-kprobe
	echo "p:ksb \$1" > \$TR/kprobe_events && echo 1 > \$TR/events/kprobes/ksb/enable && {
		rounds ftrace-kprobe
		echo 0 > \$TR/events/kprobes/ksb/enable
		echo "-:ksb" >> \$TR/kprobe_events
	}
}
W=getpid
F=__x64_sys_getpid
KF=\$F
grep -qw __do_sys_getpid /proc/kallsyms && KF=__do_sys_getpid
tracers \$F \$KF
# The module's function; kfunc names it MODULE:FUNCTION.
W=mod
tracers kst_target_null kstats_test_target:kst_target_null
exit 0
GUEST
	# bpftrace takes a minute or more to start under TCG, eight times a boot.
	KS_TIMEOUT=${KS_TIMEOUT:-1800} ks_bench_boots "$k" table test/lib/rootfs.sh "$script" "out/$k/kstats.ko" \
		"out/$k/kstats_test_target.ko" "out/$k/getpid_p90"
	rm -f "$script"
	log=$LOG
	grep -a '^@@INFO' "$log" | sed "s/^@@INFO/info $k/" || true
	grep -aE '^@@(BT|KSTATS)' "$log" | sed "s/^@@/check $k /" || true
	lines=$(mktemp)
	python3 - "$k" "$log" <<'PY' | tee "$lines"
import re, statistics as st, sys
k, t = sys.argv[1], {}
for l in open(sys.argv[2], errors="replace"):
    m = re.search(r"^@@T (\S+) (\S+) \S+ \d+ p50 (\d+) p90 (\d+) total \d+ twin_p50 (\d+)", l)
    if m:
        t.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(
            (int(m.group(3)), int(m.group(4)), int(m.group(3)) / int(m.group(5))))
# Workloads: getpid (the syscall), modfast and modslow (the module's
# function back to back, and about 100 calls a second). Each call is
# followed by a timed call of its untraced twin (getuid(),
# kst_target_twin()); the paired figure of a round is its p50 over the
# twin's p50, over the median of that in every base round of the
# workload: a slow spell of the emulator slows both calls alike. The p90
# figures are to the tracer's own base rounds, taken just before it.
for w, tw in t.items():
    rows = []
    pooled = st.median(y[2] for n, v in tw.items() if n.startswith("base-") for y in v)
    for name, v in tw.items():
        b = tw.get("base-" + name)
        if name.startswith("base-") or not b:
            continue
        pr = [x[2] / pooled for x in v]
        r90 = [x[1] / y[1] for x, y in zip(v, b)]
        for what, r in (("p50_paired", pr), ("p90_ratio", r90)):
            print("table %s %s-%s %s %.2f x (rounds: %s)" % (
                k, w, name, what, st.median(r), " ".join("%.2f" % x for x in r)))
        rows.append((name, st.median(pr), min(pr), max(pr), st.median(r90)))
    print("\n| %s %s | p50 over twin, over base (median) | min..max | p90 over own base |" % (k, w))
    print("|---|---|---|---|")
    for r in rows:
        print("| %s | %.2f | %.2f..%.2f | %.2f |" % r)
    print()
PY
	ks_bench_import <"$lines" >>"$KS_BENCH_REPORT"
	rm -f "$lines"
	python3 bench/fastmode.py "$log"
	python3 bench/fastmode.py --report "$k" "$log" >>"$KS_BENCH_REPORT"
done
