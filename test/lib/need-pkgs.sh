#!/bin/bash
# need-pkgs.sh PKG...: install the Debian packages a test needs, when
# missing (apt-get update first: CI starts from a fresh Debian 12).
set -euo pipefail
missing=()
for p in "$@"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] ||
		missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
if ((EUID != 0)); then
	echo "need-pkgs: missing ${missing[*]}; run as root" >&2
	exit 1
fi
echo "need-pkgs: installing ${missing[*]}"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
