#!/bin/bash
# Static checks: checkpatch.pl --strict from Debian's linux-source-6.12 on
# the module's sources, and sparse (make C=2) against one headers package.
# Usage: test/lint.sh checkpatch | test/lint.sh sparse KVER [MAKE_ARGS...]
#        | test/lint.sh sparse-log KVER
# (KDIR=, as for test/build.sh, names another build tree.)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"

case $1 in
checkpatch)
	# checkpatch is not in the headers packages; take it from the source
	# tarball once, keyed by the tarball's package version.
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	dir=$TOP/out/checkpatch-$ver
	if [[ ! -x $dir/scripts/checkpatch.pl ]]; then
		mkdir -p "$dir"
		tar -C "$dir" --strip-components=1 -xJf /usr/src/linux-source-6.12.tar.xz \
			--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch'
	fi
	"$dir/scripts/checkpatch.pl" --strict --no-tree -q --show-types -f \
		src/*.c src/*.h include/linux/*.h examples/*.c test/modules/*.[ch] \
		bench/floor/*.c
	;;
sparse)
	KVER=$2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# shellcheck source=lib/tree.sh
	. test/lib/tree.sh
	ks_copy_tree "$tmp"
	# The 7.x Makefile turns C= off, with only a make
	# notice, when scripts/checker-valid.sh does not pass, and Debian's
	# 7.x headers packages do not ship that script. KBUILD_CHECKSRC on
	# the command line wins over that; the CHECK test below proves
	# sparse ran.
	make -C "${KDIR:-/lib/modules/$KVER/build}" M="$tmp" C=2 KBUILD_CHECKSRC=2 W=1 "${@:3}" modules >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log"; exit 1; }
	# Sparse reports as "file:line:col: warning/error:".
	if grep -E ': (warning|error):' "$tmp/log"; then
		exit 1
	fi
	grep -q 'CHECK' "$tmp/log" || { echo "sparse did not run"; exit 1; }
	;;
sparse-log)
	# The same verdict on a KS_SPARSE=1 build's log (test/build.sh),
	# which compiled each file once for both checks.
	log=out/$2/sparse.log
	[[ -f $log ]] || { echo "no $log"; exit 1; }
	if grep -E ': (warning|error):' "$log"; then
		exit 1
	fi
	grep -q ' CHECK ' "$log" || { echo "sparse did not run in $log"; exit 1; }
	;;
*)
	echo "usage: $0 checkpatch | sparse KVER | sparse-log KVER" >&2
	exit 2
	;;
esac
