# shellcheck shell=bash
# Sourceable helpers for the kernels of Debian suites newer than the host's:
# Debian 13 (trixie) and Debian unstable (sid), generic and PREEMPT_RT.
# Their headers need their own suite's compiler, so each suite gets a
# debootstrap chroot (variant buildd) with its headers packages, cached as
# $KS_CACHE/chroot-SUITE. Builds run inside it in a private mount namespace
# (unshare -m), with the source tree bound at the same path, so nothing
# stays mounted afterwards. The stock images are fetched inside the chroot
# with apt-get download and unpacked under $KS_CACHE/image-KVER.
#
# A chroot older than KS_SUITE_MAX_AGE days (default 7) is updated to its
# suite's current kernel on the next use: "current" stays current.

KS_SUITE_CACHE=${KS_CACHE:-/var/cache/kstats}
# What every chroot holds besides the buildd set: both flavours' headers
# sparse (the suite's own, for the lint check) and ccache (test/build.sh).
KS_SUITE_PKGS=(linux-headers-amd64 linux-headers-rt-amd64 sparse kmod ccache)
# The kernels the suite runs on top of Debian 12's: SUITE FLAVOUR.
# shellcheck disable=SC2034 # used by test/run-all.sh
KS_SUITE_KERNELS=("trixie amd64" "trixie rt-amd64" "sid amd64" "sid rt-amd64")

ks_suite_mirror() {
	local m
	m=$(grep -hE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list 2>/dev/null | grep -oE 'https?://[^ ]+/debian/?$' |
		head -n1 || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# ks_suite_in SUITE CMD...: run CMD in SUITE's chroot, with the source
# tree at the same path as on the host, in the same directory if it is
# inside the tree.
ks_suite_in() {
	local suite=$1 root top
	shift
	root=$KS_SUITE_CACHE/chroot-$suite
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m -- bash -c '
		set -e
		root=$1 top=$2 suite=$3
		shift 3
		mount --make-rprivate /
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root$top"
		mount --bind "$top" "$root$top"
		path=/usr/sbin:/usr/bin:/sbin:/bin
		# KS_CCACHE=1 (test/build.sh): the suite'"'"'s own ccache, whose
		# cache stays in the chroot (/root/.cache/ccache).
		[[ ${KS_CCACHE:-0} == 1 && -d $root/usr/lib/ccache ]] && path=/usr/lib/ccache:$path
		exec chroot "$root" env -i PATH="$path" KS_SUITE="$suite" \
			HOME=/root LANG=C.UTF-8 ${KDIR:+KDIR=$KDIR} ${KS_CCACHE:+KS_CCACHE=$KS_CCACHE} \
			sh -c "cd \"\$0\" 2>/dev/null || cd /; exec \"\$@\"" "$PWD" "$@"
	' ks-suite "$root" "$top" "$suite" "$@"
}

# ks_suite_chroot SUITE: make (or refresh) SUITE's chroot; quiet on stdout.
ks_suite_chroot() {
	local suite=$1 root stamp tmp
	root=$KS_SUITE_CACHE/chroot-$suite
	stamp=$root/.kstats-ready
	mkdir -p "$KS_SUITE_CACHE"
	exec 8>"$root.lock"
	flock 8
	if [[ ! -f $stamp ]]; then
		tmp=$root.tmp
		rm -rf "$tmp" "$root"
		echo "suites: debootstrap $suite into $root" >&2
		debootstrap --variant=buildd "$suite" "$tmp" "$(ks_suite_mirror)" \
			>"$KS_SUITE_CACHE/debootstrap-$suite.log" 2>&1 ||
			{ tail -n 20 "$KS_SUITE_CACHE/debootstrap-$suite.log" >&2; flock -u 8; return 1; }
		mv "$tmp" "$root"
		ks_suite_in "$suite" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${KS_SUITE_PKGS[*]} && apt-get clean" >&2 ||
			{ flock -u 8; return 1; }
		echo "${KS_SUITE_PKGS[*]}" >"$stamp"
	elif [[ $(cat "$stamp") != "${KS_SUITE_PKGS[*]}" ||
		-n $(find "$stamp" -mtime "+${KS_SUITE_MAX_AGE:-7}") ]]; then
		# Older than that, or made with another package list (the
		# stamp holds the list).
		echo "suites: updating $suite to its current kernel and ${KS_SUITE_PKGS[*]}" >&2
		# A mirror whose Release has expired (seen here: a frozen sid)
		# fails the update: the install then uses the lists it has.
		ks_suite_in "$suite" sh -c "{ apt-get update -q || echo 'suites: apt-get update failed; using the lists the chroot has'; } && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${KS_SUITE_PKGS[*]} && apt-get clean" >&2 &&
			echo "${KS_SUITE_PKGS[*]}" >"$stamp"
	fi
	flock -u 8
}

# ks_suite_kver SUITE FLAVOUR: the KVER the chroot's meta package points at.
ks_suite_kver() {
	local h
	# shellcheck disable=SC2016 # a dpkg-query format
	h=$(ks_suite_in "$1" dpkg-query -W -f='${Depends}' "linux-headers-$2" |
		grep -oE "linux-headers-[0-9][^ ,]*-$2" | head -n1)
	[[ -n $h ]] && echo "${h#linux-headers-}"
}

# ks_suite_image SUITE KVER: unpack KVER's stock image; prints its vmlinuz.
# sid ships the image in linux-binary-KVER (under /usr/lib/modules/KVER),
# trixie in linux-image-KVER (under /boot). One caller at a time per KVER
# (test/run-all.sh fetches ahead beside the suite's own job); each KVER
# downloads into a directory of its own in the chroot, so the two flavours
# of a suite can be fetched at once.
ks_suite_image() (
	suite=$1 kver=$2
	dir=$KS_SUITE_CACHE/image-$kver
	dl=/tmp/ks-image-$kver
	mkdir -p "$KS_SUITE_CACHE"
	exec 7>"$dir.lock"
	flock 7
	if [[ ! -f $dir/.kstats-ready ]]; then
		rm -rf "$dir"
		tmp=$(mktemp -d "$KS_SUITE_CACHE/image.XXXXXX")
		rm -rf "$KS_SUITE_CACHE/chroot-$suite$dl"
		mkdir -p "$KS_SUITE_CACHE/chroot-$suite$dl"
		for p in "linux-binary-$kver" "linux-image-$kver"; do
			ks_suite_in "$suite" sh -c "cd $dl && apt-get download -q $p" \
				>&2 2>/dev/null && break
		done
		deb=$(find "$KS_SUITE_CACHE/chroot-$suite$dl" -name '*.deb' | head -n1)
		[[ -n $deb ]] || { echo "suites: no image package for $kver" >&2; rm -rf "$tmp"; exit 1; }
		dpkg-deb -x "$deb" "$tmp/root"
		rm -rf "$KS_SUITE_CACHE/chroot-$suite$dl"
		mkdir -p "$dir"
		for p in "$tmp/root/boot/vmlinuz-$kver" "$tmp/root/usr/lib/modules/$kver/vmlinuz" \
			"$tmp/root/lib/modules/$kver/vmlinuz"; do
			[[ -f $p ]] && cp "$p" "$dir/vmlinuz" && break
		done
		for p in "$tmp/root/boot/config-$kver" "$tmp/root/usr/lib/modules/$kver/config" \
			"$tmp/root/lib/modules/$kver/config"; do
			[[ -f $p ]] && cp "$p" "$dir/config" && break
		done
		rm -rf "$tmp"
		[[ -f $dir/vmlinuz ]] || { echo "suites: no vmlinuz in the image package of $kver" >&2; exit 1; }
		touch "$dir/.kstats-ready"
	fi
	echo "$dir/vmlinuz"
)
