#!/bin/bash
# Packaging tests: build kstats-dkms_*.deb, lintian, apt install it with
# both reference kernels' headers, check DKMS built and installed it for
# each, build the example client against the installed Module.symvers and
# header, then boot each kernel with the modules DKMS installed and load
# them with kmod's modprobe, and finally purge and check nothing is left.
# Prints "package: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh
# shellcheck source=lib/apt.sh
. test/lib/apt.sh
# KS_CCACHE=1 (test/run-all.sh): out/package is bound at a fixed path,
# /run/kstats-package, in a mount namespace of its own, so that the
# builds' compile lines there, and so ccache's keys, are the same
# whatever the clone's path (as test/build.sh does).
if [[ ${KS_CCACHE:-0} == 1 && -z ${KS_PACKAGE_WORK:-} ]]; then
	mkdir -p "$TOP/out/package" /run/kstats-package
	# shellcheck disable=SC2016 # expanded by the inner bash
	exec unshare -m --propagation private env KS_PACKAGE_WORK=/run/kstats-package \
		bash -c 'mount --bind "$1" "$2" && exec bash "$3"' ks-package \
		"$TOP/out/package" /run/kstats-package "$TOP/test/package.sh"
fi
WORK=${KS_PACKAGE_WORK:-$TOP/out/package}
mkdir -p "$WORK"
find "$WORK" -mindepth 1 -delete
PASSED=0
FAILED=0
ok() {
	if [[ $1 == 0 ]]; then
		PASSED=$((PASSED + 1)); echo "PASS $2"
	else
		FAILED=$((FAILED + 1)); echo "FAIL $2"
	fi
}

pkgs=(debhelper dh-dkms dkms lintian dpkg-dev kmod xz-utils libjson-c-dev libdw-dev dh-python python3)
missing=()
for p in "${pkgs[@]}"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
	ks_apt update >/dev/null
	ks_apt install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

# 1. Build from a clean export of the tracked files, never untracked ones,
# made a git repository of its own so its status shows what the build left.
mkdir -p "$WORK/src"
git ls-files -c | tar -cf - -T - | tar -C "$WORK/src" -xf -
git -C "$WORK/src" init -q
git -C "$WORK/src" add -A
git -C "$WORK/src" -c user.name=kstats -c user.email=kstats@localhost \
	commit -qm export
mapfile -t KERNELS < <(ks_kernels)
[[ ${#KERNELS[@]} == 2 ]]
ok $? "both reference kernels are installed (${KERNELS[*]})"
# A tree where make has run: its objects must not reach the package.
make -C "$WORK/src" KVER="${KERNELS[0]}" >"$WORK/make.log" 2>&1
(cd "$WORK/src" && dpkg-buildpackage -us -uc -b) >"$WORK/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b"
left=$(git -C "$WORK/src" status --porcelain)
[[ -z $left ]]
ok $? "make and dpkg-buildpackage leave no untracked file (.gitignore covers them): ${left//$'\n'/ }"
# shellcheck disable=SC2012 # one known name pattern
deb=$(ls "$WORK"/kstats-dkms_*_all.deb 2>/dev/null | head -1)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[[ $deb == */kstats-dkms_${ver}_all.deb ]]
ok $? "package is kstats-dkms_${ver}_all.deb"
! dpkg -c "$deb" | awk '{print $6}' | grep -E '\.(o|ko|cmd|d|mod|symvers)$|/\.'
ok $? "package holds sources only, no build leftovers"

# 2. lintian: no error, no warning.
lintian --fail-on error,warning "$WORK"/*.changes >"$WORK/lintian.log" 2>&1
ok $? "lintian clean"

# 2b. The tool's package, kstats (arch any): its files, installed and
# purged with apt; kstats-dkms recommends it; the timer stays disabled.
tooldeb=$WORK/kstats_${ver}_$(dpkg --print-architecture).deb
[[ -f $tooldeb ]]
ok $? "package $(basename "$tooldeb") built"
files=$(dpkg -c "$tooldeb" | awk '{print $6}')
for f in ./usr/sbin/kstats ./usr/share/man/man8/kstats.8.gz \
	./usr/share/bash-completion/completions/kstats \
	./lib/systemd/system/kstats-export.service ./lib/systemd/system/kstats-export.timer; do
	grep -qx "$f" <<<"$files"
	ok $? "kstats package holds $f"
done
! grep -q '^./usr/src' <<<"$files"
ok $? "kstats package holds no DKMS sources"
dpkg-deb -f "$deb" Recommends | grep -Eq '(^|, )kstats(,|$)'
ok $? "kstats-dkms recommends kstats"
ks_apt install -y "$tooldeb" >"$WORK/install-tool.log" 2>&1
ok $? "apt install ./$(basename "$tooldeb")"
/usr/sbin/kstats --help >/dev/null
ok $? "installed kstats --help"
# The README the man page points to (SEE ALSO), compressed as Debian does.
[[ -f /usr/share/doc/kstats/README.gz || -f /usr/share/doc/kstats/README ]]
ok $? "installed kstats has /usr/share/doc/kstats/README"
# The table's names: from its header to the blank line before the footnote
# (the footnote on GAP- rows goes to stderr, kept out of this log).
[[ $(KSTATS_ROOT=$TOP/test/data/6.12/kstats /usr/sbin/kstats list 2>/dev/null | awk 'NR > 1 && !NF {exit} NR > 1 {print $1}' | tr '\n' ' ') == \
	"demo_hrtimer_late idle read GAP-read read5 runq GAP-runq " ]]
ok $? "installed kstats lists the captured nodes"
! ls /etc/systemd/system/timers.target.wants/kstats-export.timer >/dev/null 2>&1
ok $? "kstats-export.timer is not enabled"
# 2c. python3-kstats (arch all): the Python package, installed and purged
# with apt; python3 -m kstats lists the captured nodes as the installed tool does.
pydeb=$WORK/python3-kstats_${ver}_all.deb
[[ -f $pydeb ]]
ok $? "package $(basename "$pydeb") built"
pyfiles=$(dpkg -c "$pydeb" | awk '{print $6}')
for f in __init__.py __main__.py _fmt.py _node.py; do
	grep -qx "./usr/lib/python3/dist-packages/kstats/$f" <<<"$pyfiles"
	ok $? "python3-kstats holds dist-packages/kstats/$f"
done
! grep -Eq 'tests|__pycache__|\.pyc$' <<<"$pyfiles"
ok $? "python3-kstats holds no tests and no bytecode"
ks_apt install -y "$pydeb" >"$WORK/install-py.log" 2>&1
ok $? "apt install ./$(basename "$pydeb")"
[[ $(cd / && /usr/bin/python3 -c 'import kstats; print(kstats.__file__)') == /usr/lib/python3/dist-packages/kstats/__init__.py ]]
ok $? "import kstats finds the installed package"
# Its table (stdout) and its footnote (stderr) each as the tool's.
(cd / && KSTATS_ROOT=$TOP/test/data/6.12/kstats /usr/bin/python3 -m kstats >"$WORK/list-py.out" 2>"$WORK/list-py.err")
KSTATS_ROOT=$TOP/test/data/6.12/kstats /usr/sbin/kstats list >"$WORK/list-c.out" 2>"$WORK/list-c.err"
[[ -s $WORK/list-py.out ]] && cmp -s "$WORK/list-py.out" "$WORK/list-c.out" &&
	cmp -s "$WORK/list-py.err" "$WORK/list-c.err"
ok $? "installed python3 -m kstats prints the tool's list view of the captured nodes"
ks_apt purge -y python3-kstats >"$WORK/purge-py.log" 2>&1
ok $? "apt-get purge python3-kstats"
! ls /usr/lib/python3/dist-packages/kstats >/dev/null 2>&1
ok $? "purge removes the Python package and its bytecode"

ks_apt purge -y kstats >"$WORK/purge-tool.log" 2>&1
ok $? "apt-get purge kstats"
! ls /usr/sbin/kstats /lib/systemd/system/kstats-export.* >/dev/null 2>&1
ok $? "purge removes the tool and its units"

# 3. Install with both kernels' headers present.
ks_apt purge -y kstats-dkms >/dev/null 2>&1
ks_apt install -y "$deb" >"$WORK/install.log" 2>&1
ok $? "apt install ./$(basename "$deb")"
# readelf's warnings. Debian 12's dkms (3.0.10) probes each kernel's
# build/vmlinux for clang with `readelf -p .comment` whenever it reads
# dkms.conf for that kernel; the 6.12 headers' vmlinux holds only BTF,
# no .comment, and readelf warns (dkms upstream silenced it: pull request
# 454). Those lines are dkms', whatever the module: they may appear only
# when a kernel's build/vmlinux has no .comment; any other readelf
# warning, or that one without such a vmlinux, fails. kstats' own .ko
# files must give readelf nothing to warn about.
dkms status kstats >/dev/null 2>"$WORK/dkms-status.err"
bare=()
for k in "${KERNELS[@]}"; do
	v=/lib/modules/$k/build/vmlinux
	[[ -e $v ]] && readelf -p .comment "$v" 2>&1 >/dev/null | grep -q 'readelf: Warning' && bare+=("$k")
done
for log in install.log dkms-status.err; do
	# apt's log ends its lines in CR LF.
	other=$(tr -d '\r' <"$WORK/$log" | grep 'readelf: Warning' |
		grep -v "^readelf: Warning: Section '.comment' was not dumped because it does not exist$")
	probe=$(grep -c "^readelf: Warning: Section '.comment' was not dumped" "$WORK/$log")
	[[ -z $other ]] && { ((${#bare[@]})) || ((probe == 0)); }
	ok $? "$log: no readelf warning but dkms' .comment probe of a vmlinux without one (${bare[*]:-none here}; $probe seen)${other:+: $other}"
done
for k in "${KERNELS[@]}"; do
	# Not grep -q on the pipe: with pipefail, dkms' SIGPIPE would fail it.
	status=$(dkms status kstats 2>/dev/null)
	grep -q "kstats/$ver, $k, x86_64: installed" <<<"$status"
	ok $? "dkms status: installed for $k"
	# shellcheck disable=SC2012 # one known name pattern
	mod=$(ls /lib/modules/"$k"/updates/dkms/kstats.ko* 2>/dev/null | head -1)
	[[ -n $mod ]]
	ok $? "$k: DKMS installed $mod"
	ko=$WORK/kstats-$k.ko
	case $mod in
	*.xz) xz -dc "$mod" >"$ko" ;;
	*) cp "$mod" "$ko" ;;
	esac
	warn=$(readelf -a -p .comment "$ko" 2>&1 >/dev/null)
	[[ -z $warn ]] && readelf -p .comment "$ko" | grep -q 'GCC:'
	ok $? "$k: readelf reads the installed kstats.ko without a warning, its .comment names GCC${warn:+: $warn}"
	inst=/var/lib/dkms/kstats/kernel-$k-x86_64
	[[ -s $inst/Module.symvers && -s $inst/include/linux/kstats.h ]]
	ok $? "$k: Module.symvers and kstats.h at $inst"

	# 4. The example client, built against the installed files only.
	ex=$WORK/example-$k
	cp -a examples "$ex"
	make -C "/lib/modules/$k/build" M="$ex" KSTATS_INCLUDE="$inst/include" \
		KBUILD_EXTRA_SYMBOLS="$inst/Module.symvers" modules >"$ex/build.log" 2>&1 &&
		! grep -Ei 'warning|undefined' "$ex/build.log"
	ok $? "$k: example client builds against the installed files, no modpost warning"

	# 5. Boot with the DKMS-installed modules and kmod's modprobe.
	root=$WORK/root-$k
	mkdir -p "$root/lib/modules/$k/updates/dkms" "$root/kmod"
	cp "$mod" "$root/lib/modules/$k/updates/dkms/"
	cp "$ex/kstats_demo.ko" "$root/lib/modules/$k/updates/"
	cp /lib/modules/"$k"/modules.builtin* /lib/modules/"$k"/modules.order "$root/lib/modules/$k/" 2>/dev/null
	depmod -b "$root" "$k"
	# kmod is dynamically linked: bring its libraries along.
	cp "$(command -v kmod)" "$root/kmod/kmod"
	ln -s kmod "$root/kmod/modprobe"
	for lib in $(ldd "$(command -v kmod)" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cat >"$WORK/guest-$k.sh" <<'GUEST'
D=/sys/kernel/debug/kstats
/kmod/modprobe kstats && echo "@@OK modprobe kstats"
test -e $D/_control && echo "@@OK kstats debugfs"
/kmod/modprobe kstats_demo && echo "@@OK modprobe kstats_demo"
sleep 1
n=$(grep -c CPUS $D/demo_hrtimer_late)
[ "$n" -gt 0 ] && echo "@@OK demo records ($n slots)"
/kmod/modprobe -r kstats_demo && /kmod/modprobe -r kstats && echo "@@OK modprobe -r"
test -e $D || echo "@@OK nothing left in debugfs"
GUEST
	KS_EXTRA_ROOT=$root bash test/lib/run-guest.sh "$k" "$WORK/guest-$k.sh" "$WORK/guest-$k.console" >/dev/null
	ok $? "$k: guest boots clean"
	for what in "modprobe kstats" "kstats debugfs" "modprobe kstats_demo" "demo records" \
		"modprobe -r" "nothing left in debugfs"; do
		grep -q "@@OK $what" "$WORK/guest-$k.console"
		ok $? "$k: guest: $what"
	done
	! grep -q "Unknown symbol" "$WORK/guest-$k.console"
	ok $? "$k: no Unknown symbol"
done

# Reinstalling the same version rebuilds and keeps it installed.
ks_apt install -y --reinstall "$deb" >"$WORK/reinstall.log" 2>&1
status=$(dkms status kstats 2>/dev/null)
[[ $(grep -c "kstats/$ver, .*: installed" <<<"$status") == "${#KERNELS[@]}" ]]
ok $? "apt install --reinstall keeps kstats installed for every kernel"

# 6. Purge: nothing of kstats stays (DKMS's own MOK key may).
ks_apt purge -y kstats-dkms >"$WORK/purge.log" 2>&1
ok $? "apt-get purge kstats-dkms"
left=$(ls -d /usr/src/kstats* /var/lib/dkms/kstats 2>/dev/null; find /lib/modules/*/updates -name 'kstats*' 2>/dev/null)
[[ -z $left ]]
ok $? "purge leaves nothing under /usr/src, /var/lib/dkms/kstats, /lib/modules/*/updates${left:+: $left}"

echo "package: $PASSED passed, $FAILED failed"
[[ $FAILED == 0 ]]
