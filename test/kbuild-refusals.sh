#!/bin/bash
# kbuild-refusals.sh KVER: Kbuild refuses, with its message, kernels that
# lack what kstats needs or have what breaks it. The kernel's config is
# overridden on make's command line, which wins over its auto.conf.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
KVER=$1
KDIR=${KDIR:-/lib/modules/$KVER/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/tree.sh
. "$TOP/test/lib/tree.sh"
ks_copy_tree "$tmp/tree"
fail=0
while IFS='|' read -r override message; do
	if make -C "$KDIR" M="$tmp/tree" $override modules >"$tmp/log" 2>&1; then
		echo "FAIL $override: the build went on"
		fail=1
	elif ! grep -q "kstats: $message" "$tmp/log"; then
		echo "FAIL $override: no message 'kstats: $message'"
		tail -3 "$tmp/log"
		fail=1
	else
		echo "ok $override: $message"
	fi
done <<'LIST'
CONFIG_DEBUG_FS=|this kernel lacks CONFIG_DEBUG_FS
CONFIG_KPROBES=|this kernel lacks CONFIG_KPROBES, CONFIG_KRETPROBES or CONFIG_TRACEPOINTS
CONFIG_KRETPROBES=|this kernel lacks CONFIG_KPROBES, CONFIG_KRETPROBES or CONFIG_TRACEPOINTS
CONFIG_CFI_CLANG=y|this kernel has kCFI
CONFIG_CFI=y|this kernel has kCFI
LIST
exit $fail
