#!/bin/bash
# The Python package on a live kstats, in the Debian rootfs guest of
# test/lib/rootfs.sh (which has python3): test/python_guest.py gen makes
# the guest script, which runs test/python_guest_script.py;
# test/python_guest.py check reads the console and prints
# "pyguest: N passed, M failed". Usage: test/python-guest.sh KVER [LOGDIR]
# after test/build.sh KVER.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/rootfs-guest.sh
. "$TOP/test/lib/rootfs-guest.sh"
k=$1 logs=${2:-$TOP/out/logs}
mkdir -p "$logs"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
python3 "$TOP/test/python_guest.py" gen "$stage/python-guest.sh"
console=$logs/guest-python-$k.console
ks_rootfs "$k" "$stage/python-guest.sh" "$console" \
	"$TOP/out/$k/kstats.ko" "$TOP/out/$k/kstats_test_target.ko" \
	"$TOP/test/python_guest_script.py" "$TOP"/python/kstats/*.py
rc=$?
out=$(python3 "$TOP/test/python_guest.py" check "$console")
echo "$out" | grep -v '^pyguest: '
read -r p f < <(echo "$out" | sed -n 's/^pyguest: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
if [[ $rc != 0 ]]; then
	# A kernel report, a hang or a setup error fails the run on its own.
	echo "FAIL rootfs guest exit status $rc (see $console)"
	f=$((${f:-0} + 1))
fi
echo "pyguest: ${p:-0} passed, ${f:-1} failed"
[[ $rc == 0 && ${f:-1} == 0 ]]
