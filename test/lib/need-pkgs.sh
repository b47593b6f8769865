#!/bin/bash
# need-pkgs.sh PKG...: install the Debian packages a test needs, when
# missing (apt-get update first: CI starts from a fresh Debian 12): only
# those, upgrading nothing already installed, and waiting for another
# apt's lock (test/lib/apt.sh).
set -euo pipefail
# shellcheck source=apt.sh
. "$(dirname "$0")/apt.sh"
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
ks_apt update
ks_apt install -y --no-install-recommends --no-upgrade "${missing[@]}"
