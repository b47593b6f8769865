#!/bin/bash
# Build (or reuse) the debug test kernel: Debian's linux-source-6.12 with
# tinyconfig plus debug.config. The tree is cached under
# ${KS_CACHE:-/var/cache/kstats}/debug-kernel-KEY, where KEY hashes the
# source package version and the fragment, so only the first run builds.
# Prints the tree's path on its last line.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${KS_CACHE:-/var/cache/kstats}

need=(linux-source-6.12 bc flex bison libelf-dev libssl-dev build-essential)
missing=()
for p in "${need[@]}"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi

ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$(printf '%s\n' "$ver" | cat - "$HERE/debug.config" "$0" | sha256sum | cut -c1-16)
tree=$CACHE/debug-kernel-$key
if [[ -f $tree/.kstats-built ]]; then
	echo "debug kernel: cached at $tree" >&2
	echo "$tree"
	exit 0
fi

echo "debug kernel: building linux-source-6.12 $ver into $tree" >&2
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
tar -C "$tree.tmp" --strip-components=1 -xJf /usr/src/linux-source-6.12.tar.xz
cd "$tree.tmp"
make -s tinyconfig >&2
scripts/kconfig/merge_config.sh -m .config "$HERE/debug.config" >&2
make -s olddefconfig >&2
# Every option of the fragment must have survived olddefconfig.
bad=0
while read -r line; do
	case $line in
	CONFIG_*=n) opt=${line%%=*}; grep -q "^$opt=" .config && { echo "debug kernel: $opt still set" >&2; bad=1; } ;;
	CONFIG_*) grep -qx "$line" .config || { echo "debug kernel: $line did not stick" >&2; bad=1; } ;;
	esac
done < "$HERE/debug.config"
((bad == 0)) || exit 1
make -s -j"$(nproc)" bzImage modules >&2
make -s modules_prepare >&2
touch .kstats-built
cd /
mv "$tree.tmp" "$tree"
echo "debug kernel: built" >&2
echo "$tree"
