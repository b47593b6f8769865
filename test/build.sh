#!/bin/bash
# Build kstats.ko, the test client and the demo client for one kernel.
# Usage: [KS_SPARSE=1] [KS_MODULE_ONLY=1] test/build.sh KVER [EXTRA_MAKE_ARGS...]
# Output: out/KVER/{kstats.ko,kstats_test_client.ko,kstats_demo.ko,build.log}
# KS_MODULE_ONLY=1: kstats.ko alone (out/KVER/kstats.ko), for a variant
# of kstats whose test modules, demo client and programs another build
# of the same kernel makes (test/debug-kernel/run.sh's KUnit build).
# Each kernel gets its own copy of the tree, since Kbuild writes objects
# next to the sources.
set -euo pipefail
KVER=$1
shift
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/out/$KVER
KDIR=${KDIR:-/lib/modules/$KVER/build}

# KS_INCREMENTAL=1 (the demo) keeps the last build and lets Kbuild's own
# dependency tracking rebuild what changed: the copy keeps the sources'
# times. The tests build from scratch, so every warning shows again.
[[ ${KS_INCREMENTAL:-0} == 1 ]] || rm -rf "$OUT"
# shellcheck source=lib/tree.sh
. "$TOP/test/lib/tree.sh"
ks_copy_tree "$OUT/tree"

# KS_SPARSE=1: sparse checks each file of kstats.ko as it is compiled
# (C=1; KBUILD_CHECKSRC, as in test/lint.sh, because 7.x's Makefile turns
# C= off without scripts/checker-valid.sh): one compile for both checks.
sparse=()
[[ ${KS_SPARSE:-0} == 1 ]] && sparse=(C=1 KBUILD_CHECKSRC=1)
only=${KS_MODULE_ONLY:-0}
# kbuild_all TREE [MAKE_ARGS...]: kstats, then the test modules and the
# demo client against its Module.symvers, all W=1.
kbuild_all() {
	local tree=$1
	shift
	make -C "$KDIR" M="$tree" W=1 "${sparse[@]}" "$@" modules &&
		{ [[ $only == 1 ]] || make -C "$KDIR" M="$tree/test/modules" W=1 "$@" \
			KBUILD_EXTRA_SYMBOLS="$tree/Module.symvers" modules; } &&
		{ [[ $only == 1 ]] || make -C "$KDIR" M="$tree/examples" W=1 "$@" \
			KBUILD_EXTRA_SYMBOLS="$tree/Module.symvers" modules; }
}
# KS_CCACHE=1 (test/run-all.sh, with Debian's ccache first in PATH): the
# tree is built at one fixed path, bound there in a mount namespace of its
# own, so that the compile lines, and so ccache's keys, do not depend on
# where the clone is; a warm run then compiles only what changed. ccache
# replays each compile's warnings, and sparse, objtool, modpost and BTF
# still run on every build. In a suite's chroot the namespace that
# ks_suite_in made is private already, and the chroot's / is no mount.
if [[ ${KS_CCACHE:-0} == 1 ]]; then
	fixed=/run/kstats-build
	mkdir -p "$fixed"
	prop=private
	[[ -n ${KS_SUITE:-} ]] && prop=unchanged
	export KDIR only
	export -f kbuild_all
	# An array cannot be exported: sparse's two words go as a string.
	export KS_SPARSE_ARGS="${sparse[*]}"
	# shellcheck disable=SC2016 # expanded by the inner bash
	run_build() {
		unshare -m --propagation "$prop" bash -c '
			read -r -a sparse <<<"$KS_SPARSE_ARGS"
			mount --bind "$1" "$2" && shift && kbuild_all "$@"' \
			ks-build "$OUT/tree" "$fixed" "$@"
	}
else
	run_build() { kbuild_all "$OUT/tree" "$@"; }
fi
run_build "$@" >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }

# The sparse check reads this build's log (test/lint.sh sparse-log), kept
# apart: a later incremental build (the demo's) rewrites build.log.
[[ ${KS_SPARSE:-0} == 1 ]] && cp "$OUT/build.log" "$OUT/sparse.log"
# Any compiler, modpost or objtool warning fails the build check.
if grep -E 'warning:|WARNING:' "$OUT/build.log"; then
	echo "build for $KVER has warnings" >&2
	exit 1
fi
if [[ $only == 1 ]]; then
	cp "$OUT/tree/kstats.ko" "$OUT/"
	exit 0
fi
cp "$OUT/tree/kstats.ko" "$OUT/tree/test/modules/kstats_test_client.ko" \
	"$OUT/tree/examples/kstats_demo.ko" \
	"$OUT/tree/test/modules/kstats_test_target.ko" \
	"$OUT/tree/test/modules/kstats_test_sched.ko" "$OUT/"
# Static guest programs, for the busybox initramfs (KS_PROGS_CC: another
# arch's compiler, e.g. aarch64-linux-gnu-gcc).
# A program's own flags, if any, are on its "/* cflags: ... */" line.
for src in "$TOP"/test/progs/*.c; do
	bin=$OUT/$(basename "$src" .c)
	flags=$(sed -n 's|^/\* cflags: \(.*\) \*/$|\1|p' "$src")
	# Static, for the busybox guests; "link: dynamic" for the rootfs's.
	link=-static
	grep -q '^/\* link: dynamic \*/$' "$src" && link=
	# shellcheck disable=SC2086
	[[ $bin -nt $src ]] || ${KS_PROGS_CC:-gcc} $link ${flags:--O2} -Wall -Werror -o "$bin" "$src"
done
# The user-stack test's program stripped, and its debug file and build ID
# (test/ustack/: frames named from /usr/lib/debug/.build-id/).
cross=${KS_PROGS_CC:-gcc}
cross=${cross%gcc}
if [[ ! $OUT/ustack_prog.debug -nt $OUT/ustack_prog ]]; then
	"${cross}objcopy" --only-keep-debug "$OUT/ustack_prog" "$OUT/ustack_prog.debug"
	"${cross}objcopy" --strip-all "$OUT/ustack_prog" "$OUT/ustack_prog.stripped"
	"${cross}readelf" -n "$OUT/ustack_prog" | sed -n 's/^ *Build ID: *//p' >"$OUT/ustack_prog.buildid"
	[[ -s $OUT/ustack_prog.buildid ]] || { echo "ustack_prog has no build ID" >&2; exit 1; }
fi
