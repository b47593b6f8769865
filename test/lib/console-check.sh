#!/usr/bin/env bash
# console-check.sh LOGFILE
# Scan a guest serial-console log for kernel problem reports.
# Exit 0: clean.  Exit 2: a report was found (the first offending line is
# printed on stdout as "console-check: ...").  Exit 4: usage / unreadable log.
# Sourceable too: defines ks_console_check LOGFILE with the same semantics
# (strict mode is only switched on when executed, so sourcing does not
# change the caller's shell options).

# Case-sensitive on purpose: the kernel spells these exactly like this, and
# case-insensitive matching would trip over ordinary words ("warning", "bug").
KS_REPORT_PATTERNS=(
	'BUG:'
	'WARNING:'
	'Oops'
	'Call Trace'
	'KASAN'
	'kmemleak'
	'possible recursive locking'
	'circular locking'
	'lockdep'
	'sleeping function called from invalid context'
	'Kernel panic'
	'general protection fault'
)

# Lines that match a pattern above but are known to be harmless.  Keep each
# entry as narrow as possible and say why it is benign.
KS_BENIGN_PATTERNS=(
	# The debug test kernel announces its detectors at boot.
	'kmemleak: Kernel memory leak detector initialized'
	'kmemleak: Automatic memory scanning thread started'
	'RCU lockdep checking is enabled'
)

# ks_console_first_report LOG: "LINE:TEXT" of LOG's first report line, or
# nothing
ks_console_first_report() {
	local pat
	local -a args=() benign=()
	for pat in "${KS_REPORT_PATTERNS[@]}"; do
		args+=(-e "$pat")
	done
	for pat in "${KS_BENIGN_PATTERNS[@]}"; do
		benign+=(-e "$pat")
	done
	# -a: the serial log may contain stray binary bytes from firmware.
	# (The benign list is never empty: the kernel's own banners are on it.)
	grep -a -n -F "${args[@]}" -- "$1" | grep -a -v -E "${benign[@]}" | head -n1 || true
}

ks_console_check() {
	local log=$1 hit
	if [[ ! -r $log ]]; then
		echo "console-check: cannot read $log"
		return 4
	fi
	hit=$(ks_console_first_report "$log")
	hit=${hit#*:}
	if [[ -n $hit ]]; then
		echo "console-check: kernel report in $log: ${hit//$'\r'/}"
		return 2
	fi
	return 0
}

# ks_emulator_fault LOG: true when an oops frame in LOG holds a RFLAGS
# value no x86 CPU can hold: a reserved bit (3, 5, 15, or 22 and up) set,
# or bit 1 clear. IRET, POPF and SYSRET mask those bits, so no guest code
# can load them: the emulator's own state was corrupt. Seen twice under
# single-threaded TCG (QEMU 7.2) on a host loaded by stress-ng and other
# guests, both on 6.12 with a 100 us hrtimer recording on every CPU: a
# double fault in __kmalloc_node (EFLAGS 5a965ae2) and a jump to 0 in a
# kthread (EFLAGS 024846a2); reruns of the same scripts were clean.
ks_emulator_fault() {
	grep -a -o -E 'EFLAGS: [0-9a-f]{8,16}' "$1" | awk '{
		v = 0
		for (i = 1; i <= length($2); i++)
			v = v * 16 + index("0123456789abcdef", substr($2, i, 1)) - 1
		if (v >= 4194304 || int(v / 8) % 2 || int(v / 32) % 2 ||
		    int(v / 32768) % 2 || int(v / 2) % 2 == 0)
			bad = 1
	} END { exit !bad }'
}

# ks_report_before_start LOG: true when LOG's first kernel report comes
# before KSTATS-GUEST-START (or there is none), while the kernel was still
# booting: no kstats code and no test module can have run (test.sh loads
# them all). Seen once, on the KASAN/lockdep debug kernel under stress-ng,
# whose host load failed its TSC calibration against the PIT: a KASAN
# wild-memory-access in rcu_is_watching() from an interrupt taken during
# start_kernel(), at 0.084 s; again on 2026-12-06, in the chaos guest's
# boot (rootfs.sh) at 3.65 s: the interrupt came while identify_cpu()
# had cleared boot_cpu_data's capabilities, LA57 among them, and KASAN
# took the 5-level direct map's address for a wild one. The x86 guests'
# CPU has had no LA57 since (qemu-console.sh).
ks_report_before_start() {
	local first start
	first=$(ks_console_first_report "$1")
	first=${first%%:*}
	start=$(grep -a -n -m1 'KSTATS-GUEST-START' "$1" | cut -d: -f1)
	[[ -n $first ]] && { [[ -z $start ]] || ((first < start)); }
}

# ks_boot_rerun WHO LOG REPORT: when LOG's guest earns its one rerun (an
# emulator fault, or a kernel report before the guest's script began),
# keeps LOG beside itself (LOG.emulator-fault or LOG.boot-report), says
# so on stderr as WHO and prints what the verdict's tag adds; otherwise
# status 1. REPORT: ks_console_check's line for LOG.
ks_boot_rerun() {
	local who=$1 log=$2 report=${3#console-check: kernel report in "$2": }
	if ks_emulator_fault "$log"; then
		mv "$log" "$log.emulator-fault"
		echo "$who: emulator fault (an oops frame with impossible EFLAGS, kept in $log.emulator-fault): running the guest once more" >&2
		echo ", rerun after an emulator fault"
	elif ks_report_before_start "$log"; then
		mv "$log" "$log.boot-report"
		echo "$who: kernel report during boot, before the guest's script and any kstats code ($report, kept in $log.boot-report): running the guest once more" >&2
		echo ", rerun after a kernel report during boot"
	else
		return 1
	fi
}

# ks_console_verdict LOG: sets report and report_rc (ks_console_check's
# line and status), end_line (LOG's last KSTATS-GUEST-END line) and
# guest_rc (its rc), for run-guest.sh's and rootfs.sh's verdicts.
ks_console_verdict() {
	report_rc=0
	report=$(ks_console_check "$1") || report_rc=$?
	end_line=$(grep -a -o -E 'KSTATS-GUEST-END rc=[0-9]+' "$1" | tail -n1 || true)
	guest_rc=${end_line##*rc=}
}

# ks_boot_and_rerun WHO BOOT LOG: runs BOOT (a function that boots the
# guest, its console in LOG, and ends with ks_console_verdict LOG), then
# once more if ks_boot_rerun says the first boot earned it; sets rerun
# to what the verdict's tag adds.
ks_boot_and_rerun() {
	"$2"
	rerun=""
	if ((report_rc == 2)) && rerun=$(ks_boot_rerun "$1" "$3" "$report"); then
		"$2"
	fi
}

# Run only when executed, not when sourced.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	if (($# != 1)); then
		echo "usage: $0 LOGFILE" >&2
		exit 4
	fi
	ks_console_check "$1"
fi
