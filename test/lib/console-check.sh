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

# Run only when executed, not when sourced.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	if (($# != 1)); then
		echo "usage: $0 LOGFILE" >&2
		exit 4
	fi
	ks_console_check "$1"
fi
