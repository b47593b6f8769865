#!/bin/bash
# Build the kstats tool (dynamic, and static for the busybox guests, as
# out/tools/kstats) and its host unit tests. Usage: test/tool-build.sh
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
bash "$TOP/test/lib/need-pkgs.sh" build-essential libjson-c-dev libdw-dev zlib1g-dev \
	liblzma-dev libbz2-dev libzstd-dev
make -C "$TOP/tools" kstats kstats.static unit_test
mkdir -p "$TOP/out/tools"
cp "$TOP/tools/kstats.static" "$TOP/out/tools/kstats"
# The guests have no libc: the static binary must not need one.
if ldd "$TOP/out/tools/kstats" >/dev/null 2>&1; then
	echo "out/tools/kstats is dynamically linked" >&2
	exit 1
fi
