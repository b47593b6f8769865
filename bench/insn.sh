#!/bin/bash
# Guest instructions per event, counted, not timed: a QEMU TCG plugin
# (bench/insn/kstats_insn.c) counts what a 1-vCPU guest executes between
# two marker NOPs that test/progs/insn_getpid runs around N getpid()
# calls. Counts do not drift with host load as TCG timings do (they
# repeat within about 1 %), so they show small changes in kstats' own
# path that the ratios of bench/bench.sh cannot. Instructions are not
# cycles: atomics, cache misses and rdtsc cost more than one.
# One boot per kernel, ROUNDS windows of each configuration, side by side:
#   untraced     no hook
#   default      `trace b start __x64_sys_getpid` (fprobe where the
#                kernel has it, else kretprobe)
#   nogap        the default trace with "gap off" (no GAP-NAME)
#   keycomm      the default trace with "key comm" (rows by comm)
#   keycgroup    the default trace with "key cgroup" (rows by cgroup)
#   keykstack    the default trace with "key kstack" (the unwinder's cost)
#   keyustack    the default trace with "key ustack" (the user stack's:
#                insn_getpid is -O2 without frame pointers, so the walk is
#                the pc, the search for a frameless caller and what rbp
#                gives)
#   keyboth      the default trace with "key kstack,ustack"
#   commfilter   the default trace with "comm insn_getpid" (a task filter)
#   cgroupfilter the default trace with "cgroup /" (every task passes the
#                descendant test, the filter's whole cost)
#   kretprobe    the same with method kretprobe
#   kprobe       a pair: __x64_sys_getpid to __task_pid_nr_ns
#   tracepoint   a pair: raw_syscalls sys_enter to sys_exit
# and the empty-hook floor of each method (bench/floor/, the hooks
# without kstats). Per method: traced and floor as added instructions per
# event over untraced, and kstats' own share, traced - untraced - floor,
# each the median of the rounds with its min and max (own: per round,
# against the floor of the same round).
# Then bpftrace beside kstats, in a second boot (the Debian rootfs guest
# of test/lib/rootfs.sh, 1 vCPU): kstats' default, gap off, kretprobe and
# tracepoint pair traces and bpftrace's kfunc/kretfunc, kprobe/kretprobe
# and raw_syscalls sys_enter/sys_exit programs, each with a start map
# keyed by tid and hist(), as a bpftrace user writes them (and key ustack
# against kfunc/kretfunc with @[ustack] = hist(), key kstack,ustack
# against @[kstack, ustack]); per pair, what
# each adds over the untraced windows of that boot and kstats / bpftrace.
# KS_INSN_METHODS limits the configurations of the first boot (default:
# all of them); KS_INSN_PEERS=0 skips the second, KS_INSN_PEER_ONLY
# ("ks-keyustack bt-ustack") limits it; test/insn-guard.sh runs
# the default one alone.
# Kernels: the reference kernels, or the KVERs named, which may be a
# newer suite's (test/lib/suites.sh: built in its chroot, its stock
# image booted, the rootfs booted with bench/insn/initrd.sh's initramfs).
# Usage: bench/insn.sh [KVER...]   (default: every reference kernel)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
N=${KS_BENCH_N:-100000}
# Counts repeat closely: 4 windows give a median and a spread.
ROUNDS=${KS_BENCH_ROUNDS:-4}
METHODS=${KS_INSN_METHODS:-default nogap keycomm keycgroup keykstack keyustack keyboth commfilter cgroupfilter kretprobe kprobe tracepoint}
ks_bench_kernels "$@"
PLUGIN=$(bash bench/insn/build-plugin.sh)
ONLY=${KS_INSN_PEER_ONLY:-}
for k in "${KERNELS[@]}"; do
	ks_bench_floor_module "$k" || exit 1
	# run-guest.sh boots KS_KERNEL when set, else /boot/vmlinuz-KVER.
	windows=$TOP/out/bench-insn-$k.windows
	rm -f "$windows"
	# The default method is whatever kstats picks on this kernel: asked
	# in the guest, so the floor compared with it is the right one.
	img=$(ks_bench_image "$k")
	KS_KERNEL=$img KS_SMP=1 KS_QEMU_ARGS="-plugin $PLUGIN,out=$windows" \
		ks_bench_guest "$k" insn "out/$k/kstats.ko" "$FLOOR_KO" "out/$k/insn_getpid" <<GUEST
C=/sys/kernel/debug/kstats/_control
F=__x64_sys_getpid
E=__task_pid_nr_ns
insmod /modules/kstats.ko || exit 1
echo "trace probe start \$F" > \$C || exit 1
D=\$(awk '\$1 == "probe" {print \$3}' \$C)
echo "remove probe" > \$C
floors=""
for m in $METHODS; do
	case \$m in
	default|nogap|keycomm|keycgroup|keykstack|keyustack|keyboth|commfilter|cgroupfilter) f=\$D ;;
	*) f=\$m ;;
	esac
	case " \$floors " in *" \$f "*) ;; *) floors="\$floors \$f" ;; esac
done
echo "@@DEFAULT \$D"
# Each window's label after it, in the order of the plugin's windows: a
# window that did not run prints none.
w() { /modules/insn_getpid $N >/dev/null && echo "@@W \$1"; }
for r in \$(seq 1 $ROUNDS); do
	w untraced
	for m in $METHODS; do
		case \$m in
		default) tr="start \$F" ;;
		nogap) tr="start \$F gap off" ;;
		keycomm) tr="start \$F key comm" ;;
		keycgroup) tr="start \$F key cgroup" ;;
		keykstack) tr="start \$F key kstack" ;;
		keyustack) tr="start \$F key ustack" ;;
		keyboth) tr="start \$F key kstack,ustack" ;;
		commfilter) tr="start \$F comm insn_getpid" ;;
		cgroupfilter) tr="start \$F cgroup /" ;;
		kretprobe) tr="start \$F method kretprobe" ;;
		kprobe) tr="start \$F end \$E" ;;
		tracepoint) tr="start __tracepoint_sys_enter end __tracepoint_sys_exit" ;;
		esac
		echo "trace b \$tr" > \$C || { echo "@@FAIL trace \$m"; continue; }
		w \$m
		echo "@@SAMPLES \$m \$(awk '\$2 == "samples" {print \$3}' /sys/kernel/debug/kstats/b) method \$(awk '\$1 == "b" {print \$3}' \$C)"
		echo "remove b" > \$C
	done
	for f in \$floors; do
		insmod /modules/kstats_bench_floor.ko method=\$f sym=\$F end=\$E || { echo "@@FAIL floor \$f"; continue; }
		w floor-\$f
		rmmod kstats_bench_floor
	done
done
GUEST
	echo "== $k: guest instructions per getpid() event, N = $N per window, $ROUNDS windows (1 vCPU, TCG plugin)"
	# A failed guest leaves its figures out (test/insn-guard.sh fails on
	# that) and the next kernel still runs.
	python3 - "$k" "$LOG" "$windows" "$N" "$KS_BENCH_REPORT" <<'PY' || true
import re, statistics as st, sys
k, log, wfile, n, report = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
lines = open(log, errors="replace").read().splitlines()
labels = [l.split()[1] for l in lines if l.startswith("@@W ")]
try:
    counts = [int(m.group(1)) for m in re.finditer(r"^kstats-insn window \d+ insns (\d+)$",
                                                   open(wfile).read(), re.M)]
except OSError:
    counts = []
for l in lines:
    if l.startswith("@@FAIL"):
        print("# %s: %s (see %s)" % (k, l[7:], log))
if not labels or len(labels) != len(counts):
    # A window without its label (or the reverse) would shift every
    # figure after it: none is given.
    print("# %s: %d labelled windows, %d counted: no figures (see %s, %s)"
          % (k, len(labels), len(counts), log, wfile))
    sys.exit(1)
default = next((l.split()[1] for l in lines if l.startswith("@@DEFAULT ")), "?")
w = {}
for label, c in zip(labels, counts):
    w.setdefault(label, []).append(c / n)
for l in lines:
    m = re.match(r"@@SAMPLES (\S+) (\d*) ", l)
    if m and int(m.group(2) or 0) < n:
        print("# %s: the %s trace recorded %s samples, fewer than the window's %d calls"
              % (k, m.group(1), m.group(2) or "no", n))
out = open(report, "a")

def figure(name, v, unit="insn/event"):
    med = st.median(v)
    for suffix, x in (("", med), (".min", min(v)), (".max", max(v))):
        print("%s:insn.%s%s %.1f %s" % (k, name, suffix, x, unit), file=out)
    return med

un = w.get("untraced")
if not un:
    print("# %s: no untraced window" % k)
    sys.exit(1)
base = st.median(un)
figure("untraced", un)
print("untraced: %.1f insn/event (windows: %s)" % (base, " ".join("%.1f" % x for x in un)))
print("| %s | method | traced | floor | kstats' own | own, windows min..max |" % k)
print("|---|---|---|---|---|---|")
for m in ("default", "nogap", "keycomm", "keycgroup", "keykstack", "keyustack", "keyboth",
          "commfilter", "cgroupfilter", "kretprobe", "kprobe", "tracepoint"):
    if m not in w:
        continue
    fm = default if m in ("default", "nogap", "keycomm", "keycgroup", "keykstack", "keyustack",
                          "keyboth", "commfilter", "cgroupfilter") else m
    traced = [x - base for x in w[m]]
    fl = w.get("floor-" + fm)
    t = figure(m + ".traced", traced)
    if not fl:
        print("| %s | %s | %.1f | - | - | no floor |" % (m, fm, t))
        continue
    floor = [x - base for x in fl]
    # per round: the trace against the empty hook of the same round
    own = [a - b for a, b in zip(w[m], fl)]
    f = figure(m + ".floor", floor)
    o = figure(m + ".own", own)
    print("| %s | %s | %.1f | %.1f | %.1f | %.1f..%.1f |" % (m, fm, t, f, o, min(own), max(own)))
spread = max((max(v) - min(v)) / st.median(v) for v in w.values())
print("(traced, floor: added instructions per event over untraced; own = traced - floor;"
      " largest spread of a configuration's windows: %.2f %% of its median)" % (100 * spread))
print("%s:insn.window_spread %.3f %%" % (k, 100 * spread), file=out)
PY
	[[ ${KS_INSN_PEERS:-1} == 1 ]] || continue
	# bpftrace beside kstats: the Debian rootfs guest (test/lib/rootfs.sh),
	# 1 vCPU, one boot. Untraced windows, kstats' traces, then bpftrace's
	# programs for the same hooks, each the usual start map keyed by tid
	# and hist(): started, ROUNDS windows once its "Attaching" line is out
	# (and 2 s more: it prints that line before attaching), stopped. Its
	# hist's count must hold every call of its windows (the warm-up's
	# included), or the windows began before its probes ran. A kernel the
	# host has no initrd for (a newer suite's) boots with
	# bench/insn/initrd.sh's.
	windows=$TOP/out/bench-insn-peers-$k.windows
	rm -f "$windows"
	script=$(mktemp)
	cat >"$script" <<GUEST
C=/sys/kernel/debug/kstats/_control
F=__x64_sys_getpid
KF=\$F
grep -qw __do_sys_getpid /proc/kallsyms && KF=__do_sys_getpid
insmod /ks/kstats.ko || exit 1
echo "@@INFO bpftrace \$(bpftrace --version 2>&1)"
w() { /ks/insn_getpid $N >/dev/null && echo "@@W \$1"; }
# KS_INSN_PEER_ONLY: these configurations alone (e.g. "ks-keyustack bt-ustack").
only() { [ -z "$ONLY" ] || case " $ONLY " in *" \$1 "*) ;; *) return 1 ;; esac; }
ks() { # NAME TRACE
	only \$1 || return 0
	w untraced
	echo "trace b \$2" > \$C || { echo "@@FAIL kstats \$1"; return; }
	for r in \$(seq 1 $ROUNDS); do w \$1; done
	echo "@@SAMPLES \$1 \$(awk '\$2 == "samples" {print \$3}' /sys/kernel/debug/kstats/b) method \$(awk '\$1 == "b" {print \$3}' \$C)"
	echo "remove b" > \$C
}
bt() { # NAME PROGRAM
	only \$1 || return 0
	w untraced
	bpftrace -e "\$2" >/tmp/bt.out 2>&1 &
	pid=\$!
	for i in \$(seq 1 1500); do
		grep -q Attaching /tmp/bt.out && break
		kill -0 \$pid 2>/dev/null || break
		sleep 0.2
	done
	sleep 2
	if kill -0 \$pid 2>/dev/null; then
		for r in \$(seq 1 $ROUNDS); do w \$1; done
		case "\$2" in *"@n = count"*)
			# Its stacks would be named as it exits (minutes under
			# TCG): it prints its count as btdone exits, and is killed.
			/tmp/btdone
			for i in \$(seq 1 150); do
				grep -q '^@n: ' /tmp/bt.out && break
				sleep 0.2
			done
			kill -KILL \$pid; wait \$pid 2>/dev/null
			echo "@@BT \$1 hist_count \$(sed -n 's/^@n: //p' /tmp/bt.out | tail -n1)"
			return ;;
		esac
		kill -INT \$pid
		# bpftrace 0.17 may never exit after SIGINT (issue 38): bounded.
		for i in \$(seq 1 300); do
			kill -0 \$pid 2>/dev/null || break
			sleep 0.2
		done
		if kill -0 \$pid 2>/dev/null; then
			kill -KILL \$pid; wait \$pid 2>/dev/null
			echo "@@FAIL bpftrace \$1: still running 60 s after SIGINT, killed"
			echo "@@BT \$1 hist_count 0"
			return
		fi
		wait \$pid
		echo "@@BT \$1 hist_count \$(grep -E '^\[' /tmp/bt.out | sed 's/.*)//' | awk '{s += \$1} END {print s + 0}')"
	else
		echo "@@FAIL bpftrace \$1: \$(head -c 600 /tmp/bt.out | tr '\n' ' ')"
	fi
}
ks ks-default "start \$F"
ks ks-nogap "start \$F gap off"
ks ks-kretprobe "start \$F method kretprobe"
ks ks-tracepoint "start __tracepoint_sys_enter end __tracepoint_sys_exit"
ks ks-keyustack "start \$F key ustack"
ks ks-keyboth "start \$F key kstack,ustack"
bt bt-kfunc "kfunc:\$KF { @s[tid] = nsecs; } kretfunc:\$KF /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }"
bt bt-kretprobe "kprobe:\$F { @s[tid] = nsecs; } kretprobe:\$F /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }"
# @n: its events, counted so that its probes can be checked without
# printing the stacks (a per-CPU count: tens of instructions of its
# thousands; the other programs' hist count is read from @h). bpftrace
# 0.17's kretfunc keyed by ustack alone never runs (6.12: no event
# counted, the map empty at exit): the stack is taken at the entry, as
# kstats takes it, and kept for the return.
cp /bin/true /tmp/btdone
bt bt-ustack "kfunc:\$KF { @s[tid] = nsecs; @u[tid] = ustack; } kretfunc:\$KF /@s[tid]/ { @h[@u[tid]] = hist(nsecs - @s[tid]); @n = count(); delete(@s[tid]); delete(@u[tid]); } tracepoint:sched:sched_process_exit /comm == \"btdone\"/ { print(@n); }"
bt bt-both "kfunc:\$KF { @s[tid] = nsecs; } kretfunc:\$KF /@s[tid]/ { @h[kstack, ustack] = hist(nsecs - @s[tid]); @n = count(); delete(@s[tid]); } tracepoint:sched:sched_process_exit /comm == \"btdone\"/ { print(@n); }"
bt bt-tracepoint "tracepoint:raw_syscalls:sys_enter /args->id == 39/ { @s[tid] = nsecs; } tracepoint:raw_syscalls:sys_exit /args->id == 39 && @s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }"
w untraced
exit 0
GUEST
	initrd=""
	suite=$(ks_bench_suite "$k")
	[[ -n $suite ]] && initrd=$(bash bench/insn/initrd.sh "$suite" "$k")
	LOG=$TOP/out/bench-insn-peers-$k.console
	# bpftrace starts in a minute or more under TCG.
	KS_KERNEL=$img KS_INITRD=$initrd KS_SMP=1 KS_TIMEOUT=${KS_TIMEOUT:-1800} \
		KS_QEMU_ARGS="-plugin $PLUGIN,out=$windows" \
		bash test/lib/rootfs.sh "$k" "$script" "$LOG" "out/$k/kstats.ko" "out/$k/insn_getpid" >&2 || true
	rm -f "$script"
	echo "== $k: kstats and bpftrace, added guest instructions per getpid() event in one rootfs boot"
	python3 - "$k" "$LOG" "$windows" "$N" "$KS_BENCH_REPORT" "$ROUNDS" <<'PY' || true
import re, statistics as st, sys
k, log, wfile, n, report, rounds = sys.argv[1:7]
n, rounds = int(n), int(rounds)
lines = open(log, errors="replace").read().splitlines()
labels = [l.split()[1] for l in lines if l.startswith("@@W ")]
try:
    counts = [int(m.group(1)) for m in re.finditer(r"^kstats-insn window \d+ insns (\d+)$",
                                                   open(wfile).read(), re.M)]
except OSError:
    counts = []
for l in lines:
    if l.startswith("@@INFO"):
        print("#", l[7:])
    if l.startswith("@@FAIL"):
        print("# %s: %s" % (k, l[7:]))
if not labels or len(labels) != len(counts):
    print("# %s: %d labelled windows, %d counted: no figures (see %s, %s)"
          % (k, len(labels), len(counts), log, wfile))
    sys.exit(1)
w = {}
for label, c in zip(labels, counts):
    w.setdefault(label, []).append(c / n)
# A bpftrace program whose hist missed calls of its windows (the warm-up
# of 1,000 calls each included) was not attached all along: no figure.
for l in lines:
    m = re.match(r"@@BT (\S+) hist_count ?(\d*)$", l)
    if m and int(m.group(2) or 0) < rounds * (n + 1000):
        print("# %s: %s's hist counted %s calls, fewer than its windows' %d: no figure"
              % (k, m.group(1), m.group(2), rounds * (n + 1000)))
        w.pop(m.group(1), None)
    m = re.match(r"@@SAMPLES (\S+) (\d*) ", l)
    if m and int(m.group(2) or 0) < rounds * n:
        print("# %s: %s recorded %s samples, fewer than its windows' %d calls: no figure"
              % (k, m.group(1), m.group(2) or "no", rounds * n))
        w.pop(m.group(1), None)
figs = {}
for l in open(report):
    f = l.split()
    if len(f) >= 2 and f[0].startswith(k + ":insn."):
        figs[f[0][len(k) + 6:]] = float(f[1])
out = open(report, "a")
base = st.median(w["untraced"])
print("untraced: %.1f insn/event (windows: %s)" % (base, " ".join("%.1f" % x for x in w["untraced"])))
print("| %s | kstats | bpftrace | kstats traced | floor | kstats' own | bpftrace added | kstats / bpftrace |" % k)
print("|---|---|---|---|---|---|---|---|")
method = next((l.split()[4] for l in lines if l.startswith("@@SAMPLES ks-default ")), "?")
for ks, bt, name, bname in (("default", "kfunc", "default (%s)" % method, "kfunc + hist()"),
                            ("nogap", "kfunc", "default, gap off", "kfunc + hist()"),
                            ("kretprobe", "kretprobe", "kretprobe", "kprobe/kretprobe + hist()"),
                            ("tracepoint", "tracepoint", "tracepoint pair", "tracepoint pair + hist()"),
                            ("keyustack", "ustack", "key ustack (%s)" % method,
                             "kfunc (ustack) + kretfunc @[ustack] = hist()"),
                            ("keyboth", "both", "key kstack,ustack (%s)" % method,
                             "kfunc + @[kstack, ustack] = hist()")):
    kv, bv = w.get("ks-" + ks), w.get("bt-" + bt)
    kt = st.median(kv) - base if kv else None
    bta = st.median(bv) - base if bv else None
    fl, own = figs.get(ks + ".floor"), figs.get(ks + ".own")
    if kt is not None:
        print("%s:insn.peers.%s.kstats %.1f insn/event" % (k, ks, kt), file=out)
    if bta is not None:
        print("%s:insn.peers.%s.bpftrace %.1f insn/event" % (k, bt, bta), file=out)
    if kt is not None and bta:
        print("%s:insn.peers.%s.ratio %.3f ratio" % (k, ks, kt / bta), file=out)
    fmt = lambda x, f="%.1f": "-" if x is None else f % x
    print("| %s | %s | %s | %s | %s | %s | %s |" % (name, bname, fmt(kt), fmt(fl), fmt(own), fmt(bta),
          fmt(kt / bta if kt is not None and bta else None, "%.2f")))
spread = max((max(v) - min(v)) / st.median(v) for v in w.values())
print("(kstats traced and bpftrace added: over untraced in this boot; floor and own: the busybox"
      " boot above; largest spread of a configuration's windows: %.2f %% of its median)" % (100 * spread))
PY
done
