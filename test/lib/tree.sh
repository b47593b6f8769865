# shellcheck shell=bash
# ks_copy_tree DEST: copy the source tree (without out/ and .git) to DEST,
# so a build there leaves the working tree clean.
ks_copy_tree() {
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	mkdir -p "$1"
	tar -C "$top" --exclude=./out --exclude=./.git -cf - . | tar -C "$1" -xf -
}
