#!/bin/bash
# 32-bit build check: build kstats.ko for ARCH=i386 against a tree made
# from Debian's linux-source-6.12 (tinyconfig plus i386.config, cached by
# source version and fragment) and fail if it needs any libgcc helper,
# such as __udivdi3 or __umoddi3 for a plain 64-bit division.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${KS_CACHE:-/var/cache/kstats}

ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$(printf '%s\n' "$ver" | cat - "$HERE/i386.config" "$0" | sha256sum | cut -c1-16)
tree=$CACHE/i386-tree-$key
if [[ ! -f $tree/.kstats-built ]]; then
	echo "i386: preparing linux-source-6.12 $ver in $tree"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" --strip-components=1 -xJf /usr/src/linux-source-6.12.tar.xz
	make -C "$tree.tmp" -s ARCH=i386 tinyconfig
	(cd "$tree.tmp" && scripts/kconfig/merge_config.sh -m .config "$HERE/i386.config")
	make -C "$tree.tmp" -s ARCH=i386 olddefconfig
	grep -q '^CONFIG_X86_32=y' "$tree.tmp/.config"
	# Every option of the fragment must have survived olddefconfig.
	grep '^CONFIG_' "$HERE/i386.config" | while read -r line; do
		grep -qx "$line" "$tree.tmp/.config" || { echo "i386: $line did not stick"; exit 1; }
	done
	make -C "$tree.tmp" -s ARCH=i386 -j"$(nproc)" modules_prepare
	touch "$tree.tmp/.kstats-built"
	mv "$tree.tmp" "$tree"
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck source=../lib/tree.sh
. "$TOP/test/lib/tree.sh"
ks_copy_tree "$out"
# No Module.symvers in a modules_prepare'd tree: modpost only warns.
make -C "$tree" ARCH=i386 M="$out" KBUILD_MODPOST_WARN=1 W=1 modules >"$out/log" 2>&1 ||
	{ cat "$out/log"; exit 1; }
# Outputs are captured first: grep -q on a pipe could SIGPIPE the writer,
# which pipefail turns into a failure.
kind=$(file "$out/kstats.ko")
[[ $kind == *'ELF 32-bit'* ]] || { echo "i386: not a 32-bit module: $kind"; exit 1; }
syms=$(nm "$out/kstats.ko")
# The fprobe engine must have been compiled too.
grep -q ks_fp_entry <<<"$syms" || { echo "i386: fprobe code not built"; exit 1; }
# Undefined symbols the kernel does not provide: libgcc's helpers.
helpers=$(nm -u "$out/kstats.ko" | awk '{print $2}' | grep -E '^__(u?div|u?mod|ashl|ashr|lshr|mul|neg|cmp|ucmp|pop|clz|ctz|ffs)[a-z]*[dst]i[0-9]$' || true)
if [[ -n $helpers ]]; then
	echo "i386: kstats.ko needs libgcc helpers: $helpers"
	exit 1
fi
if grep -E 'warning:' "$out/log" | grep -v 'modpost: ' ; then
	echo "i386: compiler warnings"
	exit 1
fi
echo "i386: kstats.ko builds for 32-bit x86 and needs no libgcc helper"
