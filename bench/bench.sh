#!/bin/bash
# Cost of each tracing method, measured in one QEMU guest run per kernel,
# as the ratio of a traced loop's time to the same loop untraced, taken
# side by side in rounds. TCG emulates the CPU, so only the ratios mean
# anything; absolute times do not carry over to real hardware. Then the
# other benchmarks: bench/table.sh, floor.sh, mem.sh, record.sh (record
# cost), read.sh (node read cost by CPU count), pingpong.sh (start table
# under a run-queue trace) and loss.sh (64 sleepers: what kstats and
# bpftrace count and lose), offcpu.sh (off-CPU traces on a pipe
# ping-pong, against bpftrace's equivalent, and both counting the same waits),
# bio.sh (biolatency per write to null_blk, kstats against bpftrace),
# insn.sh (guest instructions per getpid() event by method, counted by a
# QEMU plugin: kstats' own share over the empty-hook floor).
# The run ends with the report of every figure, one a line, "KVER:NAME
# VALUE UNIT" (figures over rounds: the median, and NAME.min, NAME.max),
# after the human lines (bench/lib.sh).
# Usage: bench/bench.sh [KVER...]   (default: every reference kernel)
#        KS_ARCH=arm64 bench/bench.sh [KVER...]   Debian's arm64 kernels in
#        qemu-system-aarch64 (see test/arm64/run.sh)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
bash test/lib/deps.sh >/dev/null

N=${KS_BENCH_N:-20000}
ROUNDS=${KS_BENCH_ROUNDS:-5}
ARCH=${KS_ARCH:-x86_64}
if [[ $ARCH == arm64 ]]; then
	# shellcheck source=../test/lib/arm64.sh
	. test/lib/arm64.sh
	ks_arm64_host_deps >/dev/null
	KS_BUSYBOX=$(ks_arm64_busybox)
	export KS_BUSYBOX KS_CPU=max,pauth-impdef=on KS_ACCEL=tcg,thread=multi KS_ARCH
	mapfile -t KERNELS < <(if (($#)); then printf '%s\n' "$@"; else ks_arm64_kernels | cut -d' ' -f1; fi)
else
	mapfile -t KERNELS < <(if (($#)); then printf '%s\n' "$@"; else ks_kernels; fi)
fi

for k in "${KERNELS[@]}"; do
	kdir=/lib/modules/$k/build
	if [[ $ARCH == arm64 ]]; then
		ver=$(ks_arm64_kernels | awk -v k="$k" '$1 == k {print $2}')
		dir=$(ks_arm64_kernel "$k" "$ver")
		kdir=$dir/root/usr/src/linux-headers-$k
		export KS_KERNEL=$dir/root/boot/vmlinuz-$k
		KDIR=$kdir KS_PROGS_CC=aarch64-linux-gnu-gcc bash test/build.sh "$k" \
			ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- >/dev/null
	else
		bash test/build.sh "$k" >/dev/null
	fi
	fprobe=""
	grep -q '^CONFIG_FPROBE=y' "$kdir/.config" && fprobe=fprobe
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
T=/sys/kernel/debug/kstats_test_target
S=/sys/kernel/debug/kstats_test_sched
insmod /modules/kstats.ko && insmod /modules/kstats_test_target.ko && insmod /modules/kstats_test_sched.ko || exit 1
bench() { echo "\$1 $N" > \$T; echo "@@BENCH \$2 \$(cat \$T)"; }
# Start-table cost after many tasks: one pair trace, on kss_begin/kss_end,
# sees 10,000 distinct tasks pass through; another, on kst_section_*,
# stays fresh. Both at the largest table, maxactive 4096.
echo "trace churned start kss_begin end kss_end maxactive 4096" > \$C
echo "trace fresh start kst_section_begin end kst_section_end maxactive 4096" > \$C
echo "churn 10000" > \$S || echo "@@BENCH-FAIL churn"
for r in \$(seq 1 $ROUNDS); do
	bench bench_pair starttable-fresh
	echo "pair $N" > \$S; echo "@@BENCH starttable-churned \$(cat \$S)"
done
echo "remove churned" > \$C
echo "remove fresh" > \$C
sysbench() { echo "@@BENCH \$1 \$(/modules/syscall_loop $N)"; }
for r in \$(seq 1 $ROUNDS); do
	bench bench null-untraced
	for m in kretprobe $fprobe; do
		echo "trace b start kst_target_null method \$m" > \$C
		bench bench null-\$m
		echo "remove b" > \$C
	done
	# Keyed rows: the default trace, then with key kstack and key comm.
	for kk in none kstack comm; do
		if [ \$kk = none ]; then echo "trace b start kst_target_null" > \$C
		else echo "trace b start kst_target_null key \$kk" > \$C; fi
		bench bench keyed-\$kk
		echo "remove b" > \$C
	done
	bench bench_pair pair-untraced
	echo "trace b start kst_section_begin end kst_section_end" > \$C
	bench bench_pair pair-kprobe
	echo "remove b" > \$C
	sysbench getppid-untraced
	for m in kretprobe $fprobe; do
		echo "trace b start syscall:getppid method \$m" > \$C
		sysbench getppid-\$m
		echo "remove b" > \$C
	done
	echo "trace b start __tracepoint_sys_enter end __tracepoint_sys_exit" > \$C
	sysbench getppid-tracepoint
	echo "remove b" > \$C
done
GUEST
	log=$TOP/out/bench-$k.console
	bash test/lib/run-guest.sh "$k" "$script" "$log" "out/$k/kstats.ko" \
		"out/$k/kstats_test_target.ko" "out/$k/kstats_test_sched.ko" \
		"out/$k/syscall_loop" >/dev/null
	rm -f "$script"
	echo "== $k ($ARCH): $N calls per loop, $ROUNDS rounds; TCG figures: ratio to base (median of rounds)"
	echo "   base: the untraced loop; for starttable-churned, the fresh trace;"
	echo "   for keyed-kstack and keyed-comm, the same trace without a key (keyed-none)"
	python3 - "$log" "$k" "$KS_BENCH_REPORT" <<'PY'
import re, statistics, sys
t = {}
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r"@@BENCH (\S+) \S+ (\d+) ns (\d+)", l)
    if m:
        t.setdefault(m.group(1), []).append(int(m.group(3)) / int(m.group(2)))
report = open(sys.argv[3], "a")
for base in ("null", "pair", "getppid", "starttable", "keyed"):
    un = t.get(base + {"starttable": "-fresh", "keyed": "-none"}.get(base, "-untraced"))
    if not un:
        continue
    for name, v in sorted(t.items()):
        if name.startswith(base + "-") and t[name] is not un:
            ratios = [a / b for a, b in zip(v, un)]
            print("%-20s %7.1f ns/call base %8.1f ns/call  ratio %5.1fx (rounds: %s)"
                  % (name, statistics.median(un), statistics.median(v),
                     statistics.median(ratios), " ".join("%.1f" % x for x in ratios)))
            for suffix, x in (("", statistics.median(ratios)), (".min", min(ratios)),
                              (".max", max(ratios))):
                print("%s:%s%s %.4g ratio" % (sys.argv[2], name, suffix, x), file=report)
PY

	# Memory and read cost of one trace with many possible CPUs: QEMU's
	# maxcpus=255 (the pc machine's limit) gives the 6.1 guest 255 possible CPUs; 6.12 skips the
	# disabled ACPI entries and stays at 2 (see the README).
	smps=(2 "2,maxcpus=255")
	# QEMU's virt machine describes only present CPUs: possible stays 2.
	[[ $ARCH == arm64 ]] && smps=(2)
	for smp in "${smps[@]}"; do
		script=$(mktemp)
		cat >"$script" <<'GUEST'
C=/sys/kernel/debug/kstats/_control
insmod /modules/kstats.ko && insmod /modules/kstats_test_target.ko || exit 1
pcpu() { grep Percpu /proc/meminfo | awk '{print $2}'; }
p0=$(pcpu)
echo "trace big start kst_target_delay" > $C
p1=$(pcpu)
echo "delay 0 2000" > /sys/kernel/debug/kstats_test_target
t0=$(cut -d' ' -f1 /proc/uptime)
for i in $(seq 1 50); do cat /sys/kernel/debug/kstats/big > /dev/null; done
t1=$(cut -d' ' -f1 /proc/uptime)
echo "@@BIG possible $(cat /sys/devices/system/cpu/possible) percpu_kb $((p1 - p0)) listed $(awk '{for (i = 1; i < NF; i++) if ($i == "memory") print $(i + 1)}' $C) read50_s $t0 $t1"
GUEST
		log=$TOP/out/bench-big-$k.console
		KS_SMP=$smp bash test/lib/run-guest.sh "$k" "$script" "$log" \
			"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" >/dev/null || true
		rm -f "$script"
		grep -a '^@@BIG' "$log" | awk -v name="$k:trace_memory.smp_${smp//[^0-9a-z]/_}" \
			-v report="$KS_BENCH_REPORT" '{
			printf "trace-memory possible=%s Percpu +%s KiB, listed %d KiB, one node read %.1f ms\n", $3, $5, $7 / 1024, ($10 - $9) * 1000 / 50
			split($3, r, "-")
			printf "%s.possible %d cpus\n", name, r[2] == "" ? 1 : r[2] + 1 >> report
			printf "%s.percpu %d KiB\n%s.listed %d KiB\n", name, $5, name, $7 / 1024 >> report
			printf "%s.read %.1f ms\n", name, ($10 - $9) * 1000 / 50 >> report }'
	done
done

# The seed's table for getpid() and a module function on a Debian rootfs
# guest (bpftrace, ftrace kprobe event against kstats by method), the hook
# floor, then memory per metric per CPU; each writes its figures to the
# report, the table and the floors also their fast-mode figures
# (bench/fastmode.py).
for b in table floor mem match; do
	KS_BENCH_BUILT=1 bash "bench/$b.sh" "${KERNELS[@]}"
done
# Record cost, node read cost by CPU count, the start table under load,
# loss with 64 sleepers, off-CPU traces and biolatency against bpftrace,
# instructions per event: these write their figures to the report
# themselves. The scripts above have just built every kernel.
for b in record read pingpong loss offcpu bio insn; do
	KS_BENCH_BUILT=1 bash "bench/$b.sh" "${KERNELS[@]}"
done
