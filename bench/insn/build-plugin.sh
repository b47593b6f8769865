#!/bin/bash
# build-plugin.sh: print the path of the instruction-counting QEMU TCG
# plugin (bench/insn/kstats_insn.c), built against the plugin API header
# of the QEMU installed here. Debian's qemu-system-x86 is built with
# plugin support but ships neither plugins nor the header: the header
# comes from the exact source version of the installed package
# (apt-get source), through a private apt configuration, since the host's
# apt has no deb-src lines and must not be changed. The source and the
# plugin are cached under /var/cache/kstats (KS_CACHE), keyed by the
# QEMU version and the plugin's source, so a machine fetches once.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${KS_CACHE:-/var/cache/kstats}
# shellcheck source-path=SCRIPTDIR source=../../test/lib/apt.sh
. "$HERE/../../test/lib/apt.sh"

# gcc for the plugin, dpkg-dev for dpkg-source (apt-get source unpacks
# with it), qemu-system-x86 to run it; need-pkgs.sh waits for apt's lock.
bash "$HERE/../../test/lib/need-pkgs.sh" gcc dpkg-dev qemu-system-x86 >&2

read -r srcpkg srcver < <(dpkg-query -W -f='${source:Package} ${source:Version}\n' qemu-system-x86)
sum=$(cat "$HERE/kstats_insn.c" "$0" | sha256sum | cut -c1-16)
so=$CACHE/insn-plugin-${srcver//[:~+]/_}-$sum.so
if [[ -f $so ]]; then
	echo "$so"
	exit 0
fi
mkdir -p "$CACHE"
src=$CACHE/qemu-src-${srcver//[:~+]/_}
# Two runs at once (a bench and the guard) fetch once: the second waits.
exec 9>"$src.lock"
flock 9
if [[ ! -f $src/include/qemu/qemu-plugin.h ]]; then
	apt=$(mktemp -d)
	trap 'rm -rf "$apt"' EXIT
	mkdir -p "$apt/lists/partial" "$apt/parts" "$apt/get"
	# deb-src lines for the archives the host's apt already uses for
	# Debian's main component (apt-cache policy lists them), so the
	# source version is the one installed: bookworm, its updates, its
	# security archive.
	debsrc() {
		apt-cache policy | awk '$1 ~ /^[0-9]+$/ && $3 ~ /\/main$/ && $5 == "Packages" {
			split($3, s, "/"); print "deb-src " $2 " " s[1] " main" }' |
			sort -u >"$apt/sources.list"
	}
	debsrc
	# A machine whose lists were never fetched (or were cleaned after
	# its packages were installed) lists no archive until apt-get update.
	[[ -s $apt/sources.list ]] || { ks_apt update >&2 && debsrc; }
	[[ -s $apt/sources.list ]] || { echo "build-plugin: no Debian archive in apt-cache policy" >&2; exit 1; }
	opts=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts="$apt/parts"
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		# root downloads into the private directories (_apt cannot
		# reach a mktemp directory)
		-o APT::Sandbox::User=root)
	ks_apt "${opts[@]}" update >&2
	(cd "$apt/get" && ks_apt "${opts[@]}" source "$srcpkg=$srcver" >&2)
	dir=$(find "$apt/get" -mindepth 1 -maxdepth 1 -type d | head -n1)
	[[ -f $dir/include/qemu/qemu-plugin.h ]] ||
		{ echo "build-plugin: $srcpkg $srcver: no include/qemu/qemu-plugin.h" >&2; exit 1; }
	# Keep only what a plugin build reads: the API header and the
	# example plugins, not the 500 MB tree.
	rm -rf "$src.tmp" && mkdir -p "$src.tmp/include/qemu"
	cp "$dir/include/qemu/qemu-plugin.h" "$src.tmp/include/qemu/"
	cp -r "$dir/tests/plugin" "$dir/contrib/plugins" "$src.tmp/" 2>/dev/null || true
	echo "$srcpkg $srcver" >"$src.tmp/VERSION"
	rm -rf "$src" && mv "$src.tmp" "$src"
fi
gcc -shared -fPIC -O2 -Wall -Werror -I"$src/include/qemu" -o "$so.tmp" "$HERE/kstats_insn.c"
mv "$so.tmp" "$so"
echo "$so"
