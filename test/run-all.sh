#!/bin/bash
# Every kstats test, on every stock reference kernel installed (Debian's
# 6.1 and 6.12, which test/lib/deps.sh installs), on Debian 13's and
# unstable's kernels, and on Debian's arm64 builds of the same kernels in
# QEMU (test/arm64/run.sh). Ends with the line "N passed, M failed" and
# exits non-zero on any failure; before it, a table of where the time went.
#
# Usage: test/run-all.sh [--kernel K]... [--only AREA[,AREA...]]... [--jobs N]
#   --kernel K  only kernel K: a series of Debian 12's stock kernels (6.1,
#               6.12) or a KVER of one, a newer suite (trixie, sid,
#               trixie-rt, sid-rt), arm64 or debug (the debug test
#               kernel); repeat or comma-separate for more. Checks that
#               belong to no kernel then run only if --only names them.
#   --only AREA only these checks (the kernel's W=1 build always runs
#               first): a guest script (basic trace engine keys offcpu
#               cgroup ustack counts hotplug lockdown fuzz tool),
#               pyguest, peer (bpftrace's
#               off-CPU count, also under offcpu; its user stacks, also
#               under ustack), bio, debugfs, insn,
#               layers, sparse, refusals, host (tool, Python, prom, cli,
#               plot, flame and harness tests), flame (the flame graph's
#               SVG, in chromium too), demo, playground, lint (checkpatch), i386,
#               arm64, package, kunit (debug kernel's KUnit and stress),
#               faults, chaos.
#   --jobs N    kernels (and arm64, package, lint) tested side by side
#               once the debug kernel's chain and its chaos job have
#               ended, default KS_JOBS or 3; one fewer for each of those
#               two still running, but at least 2 (or N if less).
# e.g. test/run-all.sh --kernel 6.12 --only offcpu   (a few minutes)
#
# How it runs: the debug kernel's chain (build, then the KUnit/stress
# and fault guests) and its chaos job (the chaos guest, once the chain
# has built kstats) start first, in the background; so does a job that
# fetches what the later jobs download (chroots, images, arm64 kernels,
# the rootfs image). The host's own
# tests and the demo run next, in the foreground. Then each kernel's
# builds and guests, arm64, the package and the lint checks run as jobs,
# --jobs at a time. Each job keeps its output (out/logs/jobs/NAME.out,
# printed when it ends) and its counts, added to the total.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh

usage() {
	sed -n '/^# Usage:/,/^# e\.g\./s/^# \{0,1\}//p' "$0" >&2
	exit "$1"
}
SEL_KERNELS=()
SEL_AREAS=()
# Three kernels' jobs at a time once the debug chain and the chaos job
# have ended, two beside them (each holds a core). Two once they had
# ended left the cores 20 to 34 % idle (a job's guest sleeps in its
# scripts' waits, a suite's job waits on its chroot): that run took
# 1982 s, this one 1790 s. Four then (1771 s) kept the cores 97 % busy,
# but its guests did more work for the same steps: the six x86 shared
# boots took 852 CPU s, against 715 with three (more guests' code and
# memory in the same caches; time-sliced beside busy loops, which hold
# none, 6.1's shared boot of three scripts took 61.0 CPU s, and 62.6
# alone).
KS_JOBS=${KS_JOBS:-3}
while (($#)); do
	case $1 in
	--kernel | --only | --jobs) (($# >= 2)) || usage 2 ;;&
	--kernel) IFS=, read -r -a a <<<"$2"; SEL_KERNELS+=("${a[@]}"); shift 2 ;;
	--only) IFS=, read -r -a a <<<"$2"; SEL_AREAS+=("${a[@]}"); shift 2 ;;
	--jobs) KS_JOBS=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	*) usage 2 ;;
	esac
done
[[ $KS_JOBS =~ ^[1-9][0-9]*$ ]] || usage 2

# want AREA...: --only names one of them (or there is no --only). Checks
# that belong to no kernel also need --only when --kernel is given.
want() {
	local a s
	((${#SEL_AREAS[@]})) || return 0
	for a in "$@"; do
		for s in "${SEL_AREAS[@]}"; do [[ $a == "$s" ]] && return 0; done
	done
	return 1
}
want_host() {
	if ((${#SEL_AREAS[@]})); then want "$@"; else ((${#SEL_KERNELS[@]} == 0)); fi
}
# want_kernel NAME...: --kernel names one of them (or there is no --kernel).
want_kernel() {
	local a s
	((${#SEL_KERNELS[@]})) || return 0
	for a in "$@"; do
		for s in "${SEL_KERNELS[@]}"; do [[ $a == "$s" ]] && return 0; done
	done
	return 1
}
# What a kernel's job checks, besides its build.
KERNEL_AREAS=(layers sparse refusals basic trace engine keys offcpu cgroup ustack counts hotplug fuzz lockdown tool
	pyguest peer bio debugfs insn playground)

LOGS=$TOP/out/logs
mkdir -p "$LOGS"
export KS_TIMES=$LOGS/times.tsv KS_JOBS_DIR=$LOGS/jobs
rm -rf "$KS_JOBS_DIR" "$KS_TIMES"
mkdir -p "$KS_JOBS_DIR"
PASSED=0
FAILED=0
# shellcheck source=lib/suite.sh
. test/lib/suite.sh
# shellcheck source=lib/jobs.sh
. test/lib/jobs.sh
KS_T0=$(ks_now)
export KS_T0

# The debug test kernel's build (about 14 minutes on two cores when not
# cached) starts as soon as its own packages are in, beside the install
# of the others; the debug job waits for it (debug_chain).
if want_kernel debug && want kunit faults chaos; then
	# Its own list (need=(...)): build.sh itself is not edited here, since
	# its text is part of its cache's key.
	read -r -a debug_pkgs < <(sed -n 's/^need=(\(.*\))$/\1/p' test/debug-kernel/build.sh)
	KS_GROUP=setup timed "packages for the debug kernel's build" bash test/lib/need-pkgs.sh "${debug_pkgs[@]}"
	(
		KS_GROUP=debug timed "debug kernel build" bash test/debug-kernel/build.sh \
			>"$LOGS/debug-kernel-build.log" 2>&1
		touch "$KS_JOBS_DIR/debug-kernel-built"
	) </dev/null >/dev/null 2>&1 &
fi
KS_GROUP=setup timed "packages (test/lib/deps.sh)" bash test/lib/deps.sh ||
	{ echo "0 passed, 1 failed"; exit 1; }

# Every compile of the run goes through Debian's ccache (its compiler
# links first in PATH; test/build.sh builds at a fixed path for it, and
# each suite's chroot keeps its own): a run with warm caches compiles only
# what changed since the last one. The compilers' warnings are replayed
# from the cache; sparse, objtool, modpost and BTF run every time.
if [[ -d /usr/lib/ccache ]]; then
	export PATH=/usr/lib/ccache:$PATH KS_CCACHE=1
	export CCACHE_DIR=${CCACHE_DIR:-${KS_CACHE:-/var/cache/kstats}/ccache} CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
fi

# The grammar fuzzer's seed (test/fuzz_test.py): one per run, printed;
# KS_FUZZ_SEED=N reruns a run's lines. 17,000 lines on each of the six
# x86 kernels: over 100,000 a run.
KS_FUZZ_SEED=${KS_FUZZ_SEED:-$(date +%s)}
KS_FUZZ_LINES=${KS_FUZZ_LINES:-17000}
echo "fuzz seed $KS_FUZZ_SEED (KS_FUZZ_SEED=$KS_FUZZ_SEED reruns its lines)"

mapfile -t KERNELS < <(ks_kernels)
# shellcheck source=lib/suites.sh
. test/lib/suites.sh
# shellcheck source=lib/arm64.sh
. test/lib/arm64.sh

# The suite kernels asked for: "SUITE FLAVOUR" lines.
SUITES=()
for sk in "${KS_SUITE_KERNELS[@]}"; do
	read -r suite flavour <<<"$sk"
	want_kernel "$suite" "$suite-${flavour%-amd64}" "$suite-$flavour" || continue
	want build sparse refusals basic trace engine keys offcpu cgroup ustack counts hotplug fuzz lockdown || continue
	SUITES+=("$sk")
done
# arm64 and the debug test kernel count as kernels for --kernel.
WANT_ARM64=0
want_kernel arm64 && want arm64 && WANT_ARM64=1
WANT_DEBUG=0
want_kernel debug && want kunit faults chaos && WANT_DEBUG=1

# --- in the background: what later jobs download, fetched ahead ---------
# Network and disk bound, beside the CPU-bound work. Each cache has its
# lock, so a job that needs one waits for this fetch or does it itself;
# nothing here is counted (the jobs' own steps are).
prefetch() {
	local sk suite flavour k ver
	KS_GROUP=prefetch
	if ((WANT_ARM64)); then
		timed "arm64 host packages" ks_arm64_host_deps || echo "prefetch: arm64 host packages failed"
		touch "$KS_JOBS_DIR/apt-done"
		timed "arm64 busybox" ks_arm64_busybox >/dev/null || echo "prefetch: arm64 busybox failed"
		while read -r k ver; do
			timed "arm64 $k" ks_arm64_kernel_locked "$k" "$ver" >/dev/null ||
				echo "prefetch: arm64 $k failed"
		done < <(ks_arm64_kernels)
	fi
	touch "$KS_JOBS_DIR/apt-done"
	if [[ $WANT_DEBUG == 1 ]] && want chaos || want pyguest peer bio offcpu; then
		KS_ROOTFS_ONLY=1 timed "rootfs image" bash test/lib/rootfs.sh >/dev/null ||
			echo "prefetch: rootfs image failed"
	fi
	for sk in "${SUITES[@]}"; do
		read -r suite flavour <<<"$sk"
		timed "chroot $suite" ks_suite_chroot "$suite" || { echo "prefetch: chroot $suite failed"; continue; }
		k=$(ks_suite_kver "$suite" "$flavour") || continue
		timed "image $k" ks_suite_image "$suite" "$k" >/dev/null || echo "prefetch: image $k failed"
	done
}
# ks_wait_apt: the prefetch job's host package installs are over (they
# change dpkg's architectures: no other apt may run then).
ks_wait_apt() {
	local i
	for i in $(seq 1 900); do
		[[ -e $KS_JOBS_DIR/apt-done || -e $KS_JOBS_DIR/prefetch.done ]] && return 0
		sleep 1
	done
}

# --- in the background: the debug test kernel's chain -------------------
# Built from linux-source-6.12 on first use (about 14 minutes cold on two
# cores, cached after), so it starts first. Then the KUnit/stress guest
# and the fault guest run, beside the chaos job (chaos_job: the chaos run
# and the soak, test/chaos_test.py, about 10 minutes of one debug-kernel
# guest, KASAN, lockdep, kmemleak, 4 vCPUs, Debian rootfs for python3).
debug_chain() {
	local t0 tree f
	KS_GROUP=debug
	# Started before the packages (above); 45 minutes is far past it.
	ks_t0 t0
	for _ in $(seq 1 2700); do
		[[ -e $KS_JOBS_DIR/debug-kernel-built ]] && break
		sleep 1
	done
	ks_time_add "$t0" "waits for the debug kernel build (started with the packages)"
	tree=$(bash test/debug-kernel/build.sh 2>/dev/null | tail -n 1)
	# kstats, the test modules, the demo client and the programs for the
	# debug kernel (out/debug), built once here for the chaos guest, the
	# KUnit and stress guest and the fault guest; test/debug-kernel/run.sh
	# and test/chaos_test.py each made their own copy before (three W=1
	# builds of the same sources with the same flags at the start of the
	# run). Its exit status and log go to both, whose checks fail with it.
	ks_t0 t0
	KDIR=$tree bash test/build.sh debug >"$LOGS/debug-build.log" 2>&1
	export KS_DEBUG_BUILD_RC=$? KS_DEBUG_BUILD_LOG=$LOGS/debug-build.log
	ks_time_add "$t0" "kstats build for the debug kernel"
	# For the chaos job (chaos_job), which waits for it.
	echo "$KS_DEBUG_BUILD_RC" >"$KS_JOBS_DIR/debug-build.rc.tmp"
	mv "$KS_JOBS_DIR/debug-build.rc.tmp" "$KS_JOBS_DIR/debug-build.rc"

	# The debug test kernel: KUnit suites, stress and fault tests under
	# KASAN, lockdep and kmemleak.
	if want kunit; then
		run "debug kernel: builds, boots, runs KUnit and the stress script, clean console" \
			bash test/debug-kernel/run.sh "$LOGS/debug"
		for f in kunit debug; do
			if [[ -f $LOGS/debug/$f.result ]]; then
				grep -E '^(FAIL|kunit: |debug: )|not ok' "$LOGS/debug/$f.result" | sed 's/^/    [debug] /'
				add_counts "$LOGS/debug/$f.result"
			else
				FAILED=$((FAILED + 1))
			fi
		done
	fi

	# Allocation failures on the same debug kernel (test/faults_test.py, with
	# test/progs/failnth): every allocation of a trace write, an interval read
	# and a KEY-NAME open fails in turn. The console holds the kernel's own
	# reports of the vmalloc and per-CPU failures injected (warn_alloc()'s
	# stack dumps of the failing task), so run-guest.sh's verdict is not the
	# test's: the checker allows those alone, runs console-check.sh on the
	# rest, and counts it. One vCPU, 512 MiB and acpi=off (ks_reboot to end
	# it) keep its boot and kmemleak's scans short: ACPI's and PCI's probing
	# took 40 s of a loaded host's boot under KASAN. It needs out/debug,
	# which is built above.
	if want faults; then
		python3 test/faults_test.py gen "$LOGS/faults-debug.sh"
		ks_t0 t0
		KS_KERNEL=$tree/arch/x86/boot/bzImage KS_SMP=1 KS_QEMU_MEM=512 KS_TIMEOUT=900 \
			KS_APPEND="rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60 acpi=off ks_reboot" \
			bash test/lib/run-guest.sh debug "$LOGS/faults-debug.sh" "$LOGS/guest-faults-debug.console" \
			out/debug/kstats.ko out/debug/kstats_test_target.ko out/debug/failnth \
			>"$LOGS/faults-guest.log" 2>&1
		ks_time_add "$t0" "guest faults"
		python3 test/faults_test.py check "$LOGS/guest-faults-debug.console" >"$LOGS/faults.result" 2>&1
		grep -E '^(FAIL|faults: )' "$LOGS/faults.result" | sed 's/^/    [debug] /'
		add_counts "$LOGS/faults.result"
	fi
}

# The chaos run and the soak (test/chaos_test.py) on the debug kernel,
# beside the rest of its chain, once the chain has built kstats for it
# (out/debug). A job of its own, so that its CPU seconds are its own: as
# a background process of the chain's shell, they were added to whichever
# of the chain's steps ran when the shell reaped it.
chaos_job() {
	local t0
	KS_GROUP=debug
	ks_t0 t0
	for _ in $(seq 1 3600); do
		[[ -e $KS_JOBS_DIR/debug-build.rc ]] || ks_job_ended debug && break
		sleep 1
	done
	ks_time_add "$t0" "chaos: waits for the debug kernel and its kstats build"
	read -r KS_DEBUG_BUILD_RC <"$KS_JOBS_DIR/debug-build.rc" || KS_DEBUG_BUILD_RC=1
	export KS_DEBUG_BUILD_RC KS_DEBUG_BUILD_LOG=$LOGS/debug-build.log
	ks_t0 t0
	python3 test/chaos_test.py run "$LOGS/chaos" >"$LOGS/chaos.result" 2>&1
	ks_time_add "$t0" "guest chaos and soak"
	grep -E '^(FAIL|chaos: )' "$LOGS/chaos.result" | sed 's/^/    [chaos] /'
	add_counts "$LOGS/chaos.result"
}

rm -f "$KS_JOBS_DIR/debug-build.rc"
((WANT_DEBUG)) && ks_job_start debug debug_chain
((WANT_DEBUG)) && want chaos && ks_job_start chaos chaos_job
ks_job_start prefetch prefetch

# --- in the foreground: the host's own tests, then the demo --------------
KS_GROUP=host
# The kstats tool (static too): the guests of every kernel run it.
run "kstats tool: builds, dynamic and static" bash test/tool-build.sh
if want_host host; then
	# Host unit tests on the nodes captured under test/data/.
	counted tool "$LOGS/tool-unit.result" '^(FAIL|unit: )' ./tools/unit_test test/data
	# The Python package (python/): its unit tests on test/data/ and parity
	# with the C tool's parser on every captured node.
	counted python "$LOGS/python-unit.result" '^(FAIL|ERROR|python: )' bash test/python-unit.sh
	# Prometheus end to end: node_exporter and prometheus on loopback.
	counted prom "$LOGS/prom.result" '^(FAIL|prom: )' bash test/prom-e2e.sh
	counted cli "$LOGS/cli.result" '^(FAIL|cli: )' bash test/cli-test.sh
	counted plot "$LOGS/plot.result" '^(FAIL|plot: )' bash test/plot-test.sh
	# kstats flame --svg: the SVG parsed, and drawn and clicked in chromium.
	counted flame "$LOGS/flame.result" '^(FAIL|flame: )' bash test/flame-svg-test.sh
	# The guest harness's own verdicts, on hand-written consoles.
	counted harness "$LOGS/harness.result" '^(FAIL|harness: )' bash test/harness-test.sh
	for series in 6.1 6.12; do
		found=0
		for k in "${KERNELS[@]}"; do
			[[ $(ks_kernel_series "$k") == "$series" ]] && found=1
		done
		run "reference kernel $series installed" test "$found" = 1
	done
elif want_host flame; then
	counted flame "$LOGS/flame.result" '^(FAIL|flame: )' bash test/flame-svg-test.sh
fi

# The kernels' W=1 builds done here (the demo's kernel): their jobs skip it.
declare -A BUILT=()
# build_check KVER: the W=1 build check, once per kernel.
# sparse runs inside the W=1 build (one compile for both), and its step
# reads the build's log.
SPARSE_IN_BUILD=0
want sparse && SPARSE_IN_BUILD=1
build_check() {
	[[ -n ${BUILT[$1]:-} ]] && return 0
	BUILT[$1]=1
	KS_STEP="build" run "$1: W=1 build, no warnings" env KS_SPARSE="$SPARSE_IN_BUILD" \
		bash test/build.sh "$1"
}

# The README's first command, as a user runs it. It builds the newest
# kernel's modules incrementally (KS_INCREMENTAL) and the tool in place:
# after that kernel's W=1 build, so that it rebuilds nothing, and before
# any guest job starts, since it rewrites out/KVER and out/tools.
if want_host demo; then
	[[ ${#KERNELS[@]} -gt 0 ]] && KS_GROUP=${KERNELS[-1]} build_check "${KERNELS[-1]}"
	counted demo "$LOGS/demo.result" '^(FAIL|demo: )' bash test/demo-test.sh "$LOGS"
fi
# The README's second command, ./playground, as a user runs it: a script
# and a directory carried in, on the busybox and the rootfs guest, and its
# shell on a pipe. It builds in out/KVER (incrementally: nothing is left
# to rebuild) and uses the tool built above, so it runs at the end of the
# newest kernel's job, beside the others (playground_check).
playground_check() {
	[[ $1 == "${KERNELS[-1]}" ]] && want_host playground || return 0
	counted playground "$LOGS/playground.result" '^(FAIL|playground: )' \
		bash test/playground-test.sh "$LOGS"
}

# --- jobs, side by side ---------------------------------------------------

# kernel_job KVER: W=1 build, layers, sparse, Kbuild refusals and every
# guest of one of Debian 12's stock kernels, built in out/KVER.
kernel_job() {
	local k=$1 series
	KS_GROUP=$k
	series=$(ks_kernel_series "$k")
	build_check "$k"
	want layers && run "$k: src/ points down: each file includes and calls only those below it in the README's Tree" \
		python3 test/layers.py README "out/$k/tree"
	want sparse && run "$k: sparse (in the W=1 build)" bash test/lint.sh sparse-log "$k"
	want refusals && run "$k: Kbuild refuses kernels without what kstats needs, or with kCFI" \
		bash test/kbuild-refusals.sh "$k"
	[[ -f out/$k/kstats.ko ]] || return 0

	core_guests "$k" tool

	# The Debian rootfs guests, in one boot: off-CPU waits, their user
	# stacks and biolatency against bpftrace's counts of the same events;
	# then import kstats (python3) in a real script, last: it raises
	# lockdown, which refuses unsigned modules.
	local rootfs=()
	want peer offcpu && rootfs+=("offcpu-peer|$LOGS/offcpu-peer-$k.result|test/offcpu-peer.sh|^(FAIL|note: |peer: )")
	want peer ustack && rootfs+=("ustack-peer|$LOGS/ustack-peer-$k.result|test/ustack-peer.sh|^(FAIL|note: |upeer: )")
	want bio && rootfs+=("bio-peer|$LOGS/bio-peer-$k.result|test/bio-peer.sh|^(FAIL|bio: |@@FIGURES)")
	want pyguest && rootfs+=("python|$LOGS/python-$k.result|test/python-guest.sh|^(FAIL|pyguest: )")
	rootfs_batch "$k" "${rootfs[@]}"

	want debugfs && run "$k: debugfs=off and debugfs=no-mount refuse the load with a reason" \
		bash test/debugfs-off.sh "$k"

	# Guest instructions per event, counted by a QEMU plugin (repeatable
	# within 1 %, unlike TCG timings): kstats' own share for the default
	# trace must stay within 5 % of the committed baseline.
	if want insn && [[ $series == 6.12 ]]; then
		run "$k: kstats' own instructions per event (default trace, QEMU plugin count) within 5 % of bench/results/insn-baseline.txt" \
			env KS_BENCH_BUILT=1 bash test/insn-guard.sh "$k"
	fi
	playground_check "$k"
	return 0
}

# core_guests KVER [tool]: the foundation, _control, hook-engine, keyed-
# trace, off-CPU, lost-section, CPU hotplug and fuzzer guests of one
# kernel, built in out/KVER (KS_KERNEL: its image, if not /boot/vmlinuz-
# KVER); with "tool", the tool's guest too (Debian 12's kernels).
core_guests() {
	local k=$1 with_tool=${2:-} series
	series=$(ks_kernel_series "$k")
	local batch=() files=()
	# The guests that leave the kernel as they found it (test/lib/
	# run-batch.sh puts it back between them) share one boot; keys'
	# raises lockdown, which refuses unsigned modules, so it comes last.
	# offcpu's, counts' and lockdown's raise it too: each boots alone.
	want basic && batch+=("basic|guest boots, runs the foundation script|") &&
		files+=("out/$k/kstats.ko" "out/$k/kstats_test_client.ko" "out/$k/kstats_demo.ko")
	want trace && batch+=("trace|guest runs the _control script|$series") &&
		files+=("out/$k/kstats.ko" "out/$k/kstats_test_target.ko"
			"out/$k/sigpair" "out/$k/syscall_loop" "out/$k/kstask")
	want engine && batch+=("engine|guest runs the hook-engine script|$series") &&
		files+=("out/$k/kstats.ko" "out/$k/kstats_test_target.ko"
			"out/$k/kstats_test_sched.ko" "out/$k/rqlat" "out/$k/syscall_loop")
	# cgroup v2 filters and keys: rows per cgroup, a child under its
	# parent's filter, a moved task, removed cgroups (test/cgroup/).
	want cgroup && batch+=("cgroup|guest runs the cgroup filter and key script|$series") &&
		files+=("out/$k/kstats.ko" "out/$k/kstats_test_target.ko" "out/$k/kstask")
	# User stacks: rows per call site and per blocked stack from main to
	# the kernel, named by the tool; kernel threads' and interrupts' rows
	# (test/ustack/).
	want ustack && batch+=("ustack|guest keys traces by user stacks|$series") &&
		files+=("out/$k/kstats.ko" "out/$k/ustack_prog" "out/$k/ustack_prog.stripped"
			"out/$k/ustack_prog.debug" "out/$k/ustack_prog.buildid" "out/tools/kstats")
	# CPU 1 offline and online under traces: per-CPU counters, intervals
	# and keyed rows keep every sample once (test/hotplug_test.py).
	want hotplug && batch+=("hotplug|guest takes CPU 1 offline and online under traces|$series") &&
		files+=("out/$k/kstats.ko" "out/$k/kstats_test_target.ko")
	want keys && batch+=("keys|guest runs the keyed-trace script|$series") &&
		files+=("out/$k/kstats.ko" "out/$k/kstats_test_target.ko" "out/$k/kstask" "out/tools/kstats")
	((${#batch[@]})) && guest_batch "$k" "${batch[@]}" -- "${files[@]}"
	want offcpu && guest_suite "$k" offcpu "guest runs the off-CPU trace script" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/kstask" "out/tools/kstats"
	# Each lost section counted once; GAP where sections are left out,
	# at off-CPU switches and across a migration (test/counts_test.py).
	want counts && guest_suite "$k" counts "guest counts lost sections once and GAPs as documented" "$series" \
		"out/$k/kstats.ko" "out/$k/kstats_test_target.ko" "out/$k/kstask"
	# /dev/kstats and kernel lockdown, integrity then confidentiality
	# (test/lockdown/); keys, offcpu and counts above ran locked down too.
	want lockdown && guest_suite "$k" lockdown "guest controls kstats through /dev/kstats under lockdown" \
		"$series" "out/$k/kstats.ko" "out/$k/kstats_test_target.ko" \
		"out/$k/kstats_test_client.ko" "out/$k/ksfuzz" "test/fuzz-corpus/control.txt" "out/tools/kstats"
	# The grammar fuzzer: the corpus, then KS_FUZZ_LINES lines of this
	# run's seed; slub_debug=U lets it count kstats' live slab objects.
	# The tool's guest shares its boot, after it: it raises lockdown at
	# its end.
	batch=() files=()
	want fuzz && batch+=("fuzz|guest runs the grammar fuzzer (seed $KS_FUZZ_SEED)|$KS_FUZZ_SEED $KS_FUZZ_LINES 1") &&
		files+=("out/$k/kstats.ko" "out/$k/kstats_test_target.ko" "out/$k/ksfuzz" "test/fuzz-corpus/control.txt")
	[[ $with_tool == tool ]] && want tool && batch+=("tool|guest runs the kstats tool against live metrics|") &&
		files+=("out/$k/kstats.ko" "out/tools/kstats" "out/$k/kstask")
	((${#batch[@]})) && KS_APPEND="slub_debug=U,kmalloc-*" guest_batch "$k" "${batch[@]}" -- "${files[@]}"
	return 0
}

# suite_job "SUITE FLAVOUR": Debian 13's or Debian unstable's current
# kernel, generic or PREEMPT_RT: built in a chroot of its suite with that
# suite's compiler and headers (test/lib/suites.sh), and its stock image
# booted with the core guests.
suite_job() {
	local suite flavour k="" img=""
	read -r suite flavour <<<"$1"
	KS_GROUP="$suite $flavour"
	if ks_suite_chroot "$suite" 2>>"$LOGS/suite-$suite.log"; then
		k=$(ks_suite_kver "$suite" "$flavour")
	fi
	[[ -n $k ]] && img=$(ks_suite_image "$suite" "$k" 2>>"$LOGS/suite-$suite.log")
	run "$suite $flavour: chroot, current kernel ${k:-?} and its image" test -n "$img"
	[[ -n $img ]] || { tail -n 20 "$LOGS/suite-$suite.log"; return 0; }
	KS_GROUP=$k
	KS_STEP=build run "$k: W=1 build in a $suite chroot, no warnings" \
		ks_suite_in "$suite" env KS_SPARSE="$SPARSE_IN_BUILD" bash test/build.sh "$k"
	want sparse && run "$k: sparse (in the W=1 build)" bash test/lint.sh sparse-log "$k"
	want refusals && run "$k: Kbuild refuses kernels without what kstats needs, or with kCFI" \
		ks_suite_in "$suite" bash test/kbuild-refusals.sh "$k"
	[[ -f out/$k/kstats.ko ]] || return 0
	KS_KERNEL=$img core_guests "$k"
}

# arm64: the same 6.1 and 6.12 kernels of Debian's arm64 port, cross-built
# for and booted in qemu-system-aarch64: build, sparse, foundation and
# _control tests (test/arm64/run.sh; its own PASS/FAIL lines are counted).
# Its steps are timed by test/arm64/run.sh itself, as group arm64.
arm64_job() {
	export KS_GROUP=arm64
	ks_wait_apt
	bash test/arm64/run.sh "$LOGS/arm64" >"$LOGS/arm64.result" 2>&1
	grep -E '^(FAIL|aarch: |    \[)' "$LOGS/arm64.result" | sed 's/^/    [arm64] /'
	add_counts "$LOGS/arm64.result"
}

# Debian package, DKMS, and modprobe of what DKMS installed, in guests.
package_job() {
	KS_GROUP=package
	ks_wait_apt
	counted package "$LOGS/package.result" '^(FAIL|package: )' bash test/package.sh
}

lint_job() {
	KS_GROUP=lint
	want lint && run "checkpatch --strict" bash test/lint.sh checkpatch
	want i386 && run "i386 build needs no libgcc helper (__udivdi3, __umoddi3, ...)" bash test/i386/check.sh
	return 0
}

# The jobs, longest first: the stock kernels (the newest first; 750 to
# 900 s each beside the debug chain), arm64 (520 s), the newer suites'
# kernels (380 to 470 s), the package (230 s), lint (90 s), as a run with
# three at a time once the debug jobs had ended measured them. The last
# job to start decides when the run ends: with the package and lint
# before the suites, one of the suites' kernels ran alone for its last
# 240 s. A suite's job waits for its chroot and image, which the
# prefetch job makes: until that job has ended (a machine with empty
# caches), the package and lint go first (next_job).
JOBS=()
for ((i = ${#KERNELS[@]} - 1; i >= 0; i--)); do
	k=${KERNELS[i]}
	want_kernel "$k" "$(ks_kernel_series "$k")" && want build "${KERNEL_AREAS[@]}" && JOBS+=("kernel $k")
done
((WANT_ARM64)) && JOBS+=("arm64")
# The PREEMPT_RT kernels' jobs are the longer ones: they start first, so
# that the run does not end on one of them alone.
for sk in "${SUITES[@]}"; do [[ $sk == *" rt-"* ]] && JOBS+=("suite $sk"); done
for sk in "${SUITES[@]}"; do [[ $sk != *" rt-"* ]] && JOBS+=("suite $sk"); done
want_host package && JOBS+=("package")
want_host lint i386 && JOBS+=("lint")

# next_job: the index in JOBS of the next job to start: the first left
# (JOBS[i] not empty), unless it is a suite's while the prefetch job is
# still fetching and a job that needs nothing fetched is left.
next_job() {
	local i first=-1
	for i in "${!JOBS[@]}"; do
		[[ -n ${JOBS[i]} ]] || continue
		((first >= 0)) || first=$i
		if [[ ${JOBS[i]} != suite\ * ]] || ks_job_ended prefetch; then
			echo "$i"
			return
		fi
	done
	echo "$first"
}

# The chaos guest's actors answer on a schedule in guest time, and its 4
# vCPUs share one host thread: beside the debug chain the other jobs run
# niced, so that guest gets a whole CPU however many guests run beside.
nice=""
((WANT_DEBUG)) && want chaos && nice=10
# lanes: how many of these jobs may run now: KS_JOBS less one for each
# of the debug chain and the chaos job still running, and at least two
# (or KS_JOBS if less).
lanes() { ks_job_lanes "$KS_JOBS" "$((KS_JOBS < 2 ? KS_JOBS : 2))" debug chaos; }
names=()
for _ in "${JOBS[@]}"; do
	ks_job_throttle lanes "${names[@]}"
	i=$(next_job)
	j=${JOBS[i]}
	JOBS[i]=""
	read -r kind arg <<<"$j"
	name=${j// /-}
	case $kind in
	kernel) KS_JOB_NICE=$nice ks_job_start "$name" kernel_job "$arg" ;;
	suite) KS_JOB_NICE=$nice ks_job_start "$name" suite_job "$arg" ;;
	arm64) KS_JOB_NICE=$nice ks_job_start "$name" arm64_job ;;
	package) KS_JOB_NICE=$nice ks_job_start "$name" package_job ;;
	lint) KS_JOB_NICE=$nice ks_job_start "$name" lint_job ;;
	esac
	names+=("$name")
done
ks_job_wait_all

ks_time_table "$((($(ks_now) - KS_T0) / 1000000))"
ks_failures_list
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
