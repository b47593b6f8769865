#!/bin/bash
# The Python package on a live kstats, in the Debian rootfs guest (which
# has python3): test/python_guest.py gen makes the guest script, which runs
# test/python_guest_script.py; test/python_guest.py check reads the
# console. Usage: test/python-guest.sh KVER LOGDIR. Needs test/lib/rootfs.sh
# (the cached Debian rootfs guest, issue 13); without it, it fails.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
k=$1 logs=${2:-$TOP/out/logs}
mkdir -p "$logs"
if [[ ! -f $TOP/test/lib/rootfs.sh ]]; then
	echo "FAIL test/lib/rootfs.sh (the Debian rootfs guest with python3) is missing"
	echo "pyguest: 0 passed, 1 failed"
	exit 1
fi
# shellcheck source=/dev/null
. "$TOP/test/lib/rootfs.sh"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
python3 "$TOP/test/python_guest.py" gen "$stage/test.sh"
mkdir -p "$stage/python"
cp -r "$TOP/python/kstats" "$stage/python/"
rm -rf "$stage/python/kstats/__pycache__"
# ks_rootfs_run KVER SCRIPT LOG FILES...: as test/lib/run-guest.sh, in the
# rootfs guest (the interface issue 13 is to provide).
ks_rootfs_run "$k" "$stage/test.sh" "$logs/guest-python-$k.console" \
	"$TOP/out/$k/kstats.ko" "$TOP/out/$k/kstats_test_target.ko" \
	"$TOP/test/python_guest_script.py" "$stage/python"
python3 "$TOP/test/python_guest.py" check "$logs/guest-python-$k.console"
