# shellcheck shell=bash
# Sourced by the benchmarks (bench/*.sh): the kernels to run, their
# guests, and the machine-readable report that every figure goes to, one
# line each, "KVER:NAME VALUE UNIT"; a figure taken over rounds also
# gives NAME.min and NAME.max. bench/bench.sh gathers its scripts' figures
# in one report (KS_BENCH_REPORT) and prints it last; a script run alone
# prints its own when it ends.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
# shellcheck source-path=SCRIPTDIR source=../test/lib/kernels.sh
. test/lib/kernels.sh
# For the scripts that source this file.
# shellcheck disable=SC2034
ROUNDS=${KS_BENCH_ROUNDS:-5}

ks_bench_report_print() {
	echo "== report: name value unit (TCG: only ratios mean anything)"
	cat "$KS_BENCH_REPORT"
}

if [[ -z ${KS_BENCH_REPORT:-} ]]; then
	KS_BENCH_REPORT=$(mktemp)
	trap 'ks_bench_report_print; rm -f "$KS_BENCH_REPORT"' EXIT
fi
export KS_BENCH_REPORT

# ks_bench_suite KVER: the newer Debian suite whose chroot
# (test/lib/suites.sh) has KVER's headers, when the host has none; else
# nothing
ks_bench_suite() {
	local s
	[[ -d /lib/modules/$1/build ]] && return 0
	for s in trixie sid; do
		[[ -d ${KS_CACHE:-/var/cache/kstats}/chroot-$s/usr/lib/modules/$1/build ]] &&
			{ echo "$s"; return 0; }
	done
}

# ks_bench_in KVER CMD...: CMD where KVER builds: here, or in its suite's
# chroot
ks_bench_in() {
	local suite
	suite=$(ks_bench_suite "$1")
	shift
	if [[ -n $suite ]]; then
		# shellcheck source-path=SCRIPTDIR source=../test/lib/suites.sh
		. test/lib/suites.sh
		ks_suite_in "$suite" "$@"
	else
		"$@"
	fi
}

# ks_bench_image KVER: the image to boot: KS_KERNEL if set (one kernel
# named), a suite kernel's stock image (test/lib/suites.sh), or nothing
# (the guest's /boot/vmlinuz-KVER)
ks_bench_image() {
	local suite
	[[ -n ${KS_KERNEL:-} ]] && { echo "$KS_KERNEL"; return 0; }
	suite=$(ks_bench_suite "$1")
	[[ -z $suite ]] && return 0
	# shellcheck source-path=SCRIPTDIR source=../test/lib/suites.sh
	. test/lib/suites.sh
	ks_suite_image "$suite" "$1"
}

# ks_bench_kernels [KVER...]: KERNELS=(the KVERs, or every reference
# kernel), each built by test/build.sh (in its suite's chroot for a
# newer suite's kernel) unless the caller has built them all
# (KS_BENCH_BUILT=1)
ks_bench_kernels() {
	local k
	mapfile -t KERNELS < <(if (($#)); then printf '%s\n' "$@"; else ks_kernels; fi)
	[[ ${KS_BENCH_BUILT:-0} == 1 ]] && return 0
	for k in "${KERNELS[@]}"; do
		ks_bench_in "$k" bash test/build.sh "$k" >/dev/null
	done
}

# ks_bench_guest KVER NAME FILE... <SCRIPT: SCRIPT in a busybox guest of
# KVER (test/lib/run-guest.sh, its KS_* knobs) with FILEs in /modules;
# sets LOG to its console, out/bench-NAME-KVER.console. A failed guest
# leaves its figures out; its verdict goes to stderr.
ks_bench_guest() {
	local k=$1 name=$2 script
	shift 2
	script=$(mktemp)
	cat >"$script"
	LOG=$TOP/out/bench-$name-$k.console
	bash test/lib/run-guest.sh "$k" "$script" "$LOG" "$@" >&2 || true
	rm -f "$script"
}

# ks_bench_values LOG TAG EXPR: for each line "@@TAG KEY VALUE KEY VALUE..."
# of LOG, the awk expression EXPR over v["KEY"], one value a line
ks_bench_values() {
	grep -a "^@@$2 " "$1" | awk "{
		split(\"\", v)
		for (i = 2; i < NF; i += 2)
			v[\$i] = \$(i + 1)
		printf \"%.6g\\n\", $3
	}"
}

# ks_bench_single KVER NAME VALUE UNIT: a figure of one value, in the report
ks_bench_single() {
	echo "$1:$2 $3 $4" >>"$KS_BENCH_REPORT"
}

# ks_bench_figure KVER NAME UNIT <VALUES: one figure over its rounds'
# values, one a line: a line "NAME median UNIT min..max (rounds)" on
# stdout, and NAME, NAME.min and NAME.max in the report
ks_bench_figure() {
	local k=$1 name=$2 unit=$3 rounds
	mapfile -t rounds
	if ((${#rounds[@]} == 0)); then
		echo "$name: no rounds (see the guest's console)"
		return 0
	fi
	printf '%s\n' "${rounds[@]}" | sort -g | awk -v k="$k" -v name="$name" -v unit="$unit" \
		-v rounds="${rounds[*]}" -v report="$KS_BENCH_REPORT" '
		{ v[NR] = $1 }
		END {
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			n = split(rounds, r, " ")
			s = ""
			for (i = 1; i <= n; i++)
				s = s sprintf(" %.3g", r[i])
			printf "%-36s %8.3g %-5s min..max %.3g..%.3g (rounds:%s)\n", name, med, unit, v[1], v[NR], s
			printf "%s:%s %.4g %s\n", k, name, med, unit >> report
			printf "%s:%s.min %.4g %s\n", k, name, v[1], unit >> report
			printf "%s:%s.max %.4g %s\n", k, name, v[NR], unit >> report
		}'
}

# ks_bench_import: the figure lines of bench/table.sh, floor.sh and
# mem.sh (the formats their headers give), read on stdin, in the
# report's form on stdout
ks_bench_import() {
	awk '$1 ~ /^(table|floor|kstats)$/ && $5 ~ /^-?[0-9.]+$/ {
		name = $2 ":" ($1 == "kstats" ? "floor.kstats" : $1) "." $3 "." $4
		unit = $6 == "x" ? "ratio" : "share"
		print name, $5, unit
		if (match($0, /\(rounds: [^)]*\)/)) {
			n = split(substr($0, RSTART + 9, RLENGTH - 10), r, " ")
			lo = hi = r[1]
			for (i = 2; i <= n; i++) {
				if (r[i] + 0 < lo + 0) lo = r[i]
				if (r[i] + 0 > hi + 0) hi = r[i]
			}
			print name ".min", lo, unit
			print name ".max", hi, unit
		}
	}
	$1 == "memory" && $4 ~ /^[0-9]+$/ { print $2 ":memory.frac_bits" $4 "." $5, $6, $7 }'
}

# ks_bench_boots KVER NAME RUNNER SCRIPT FILE...: SCRIPT in KS_BENCH_BOOTS
# (default 3) fresh guests of KVER, one after another, by RUNNER
# (test/lib/run-guest.sh or rootfs.sh) with the FILEs; sets LOG to
# out/bench-NAME-KVER.console, their consoles, each after a line
# "@@BOOT I". Under TCG a configuration can stay in its slow mode for a
# whole boot (the addresses of modules and allocations are fixed then),
# so rounds are spread over boots. A failed guest's verdict goes to stderr.
ks_bench_boots() {
	local k=$1 name=$2 runner=$3 script=$4 i
	shift 4
	LOG=$TOP/out/bench-$name-$k.console
	: >"$LOG"
	for i in $(seq 1 "${KS_BENCH_BOOTS:-3}"); do
		echo "@@BOOT $i" >>"$LOG"
		bash "$runner" "$k" "$script" "$LOG.boot" "$@" >&2 || true
		cat "$LOG.boot" >>"$LOG"
		rm -f "$LOG.boot"
	done
}

# ks_bench_floor_module KVER: build the empty-hook module (bench/floor/)
# for KVER in out/KVER/bench-floor (in its suite's chroot for a newer
# suite's kernel), with kstats' compat header so its
# fprobe handlers have kstats' types; sets FLOOR_KO to the module.
ks_bench_floor_module() {
	local k=$1 mod=$TOP/out/$1/bench-floor
	rm -rf "$mod" && mkdir -p "$mod"
	cp bench/floor/kstats_bench_floor.c bench/floor/Kbuild src/compat.h src/compat.mk "$mod/"
	ks_bench_in "$k" make -s -C "/lib/modules/$k/build" M="$mod" W=1 modules >"$mod/build.log" 2>&1 ||
		{ echo "bench-floor: $k: the empty-hook module did not build:" >&2; cat "$mod/build.log" >&2; return 1; }
	# For the scripts that source this file.
	# shellcheck disable=SC2034
	FLOOR_KO=$mod/kstats_bench_floor.ko
}
