#!/bin/bash
# User stacks of off-CPU waits named by kstats and by bpftrace's ustack
# over the same workload, in one Debian rootfs guest (test/lib/rootfs.sh,
# Debian's bpftrace). bcc's offcputime would be the natural peer (issue
# 40), but it compiles its program against kernel headers, which the
# rootfs guest has not; bpftrace's ustack walks user stacks the same way
# (the task's frame pointers, the BPF stack map's BPF_F_USER_STACK) and
# names them itself, so it stands in for bcc here.
#
# test/progs/ustack_prog (static, -O0, frame pointers) runs "pipe 8":
# main -> wait_outer -> wait_inner blocks 8 times in read() on a pipe.
# kstats: "trace up offcpu comm ustack_prog state S key ustack", named by
# the static tool (`kstats flame up --count`) while the program lives;
# bpftrace: test/ustack_peer.bt, @waits[ustack(perf)] = count() on
# sched_switch for prev_comm ustack_prog with prev_state 1 (S), printed
# when a marker task switches out, before the program is killed. Checks,
# for the reader's waits (the stacks with wait_outer):
#   - the counts are equal, 8 each;
#   - every user frame bpftrace names (offsets dropped; and their
#     addresses) is in kstats' stack of the same waits, in the same order;
#   - kstats' stack has wait_inner directly above the read wrapper: the
#     frame bcc and bpftrace lose (the wrapper keeps no frame record, so
#     a frame-pointer walk goes from read to wait_outer). A note says
#     whether bpftrace lost it on this kernel; the check holds either way.
# And for the writer thread's 8 nanosleep() waits (bpftrace's stacks
# through start_thread, by the program's symbol table, since bpftrace may
# leave them unnamed): the same count, bpftrace's addresses in kstats'.
# bpftrace's frames past the last it names (its walk reading on past
# glibc's start code, built without frame pointers) are not compared: a
# note says what they are.
# Each wait on bpftrace is bounded: one that never exits is killed and
# fails its check, the stacks compared still.
# Prints "upeer: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/rootfs-guest.sh
. "$TOP/test/lib/rootfs-guest.sh"
k=$1 logs=${2:-$TOP/out/logs}
mkdir -p "$logs"
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
. /ks/bt-guest.sh
D=/sys/kernel/debug/kstats
C=$D/_control
insmod /ks/kstats.ko || echo "@@FAIL insmod kstats"
echo "trace up offcpu comm ustack_prog state S key ustack" > $C || echo "@@FAIL trace up"
bpftrace -B none /ks/ustack_peer.bt > /tmp/bt.out 2>&1 &
bt=$!
# Until its probe runs: a task of comm kstready blocks.
for i in $(seq 1 300); do
	grep -q '^ready' /tmp/bt.out && break
	/ks/kstask kstready sleep 1 1000 > /dev/null
	sleep 0.2
done
grep -q '^ready' /tmp/bt.out || echo "@@FAIL bpftrace never attached"
# 8 reads, then "ready PID", then pause() until killed.
/ks/ustack_prog pipe 8 > /tmp/prog.out &
prog=$!
for i in $(seq 1 300); do
	grep -q '^ready' /tmp/prog.out && break
	sleep 0.1
done
grep -q "^ready $prog\$" /tmp/prog.out || echo "@@FAIL ustack_prog never said ready"
echo "@@PROG $prog $(cat /tmp/prog.out)"
echo "stop up" > $C || echo "@@FAIL stop up"
echo "@@BEGIN KEY-up"
cat $D/KEY-up
echo "@@END KEY-up rc=$?"
echo "@@FLAME-BEGIN"
/ks/kstats flame up --count || echo "@@FAIL kstats flame up"
echo "@@FLAME-END"
kv() { awk -v k="$2" '$2 == k {print $3}' $D/$1; }
echo "@@KS samples $(kv up samples) missed $(kv up missed)"
# bpftrace's map: printed when a task of comm kstdone switches out, while
# ustack_prog lives (bpftrace names its frames from /proc/PID).
bt_dump /tmp/bt.out || echo "@@FAIL bpftrace printed no stacks"
# The first map printed (kstdone may switch out more than once).
sed -n '/^final/,/^end/{p;/^end/q}' /tmp/bt.out | sed 's/^/@@BTMAP /'
kill $prog
wait $prog
bt_stop $bt
echo "remove up" > $C
# A thread of a dynamically linked program: its stack lies just below
# the shared libraries. sleeper()'s call into glibc's frameless
# nanosleep() is kept there as in the main thread.
echo "trace ut offcpu comm ustack_thr state S key ustack" > $C || echo "@@FAIL trace ut"
/ks/ustack_thr > /tmp/thr.out &
thr=$!
for i in $(seq 1 300); do
	grep -q '^ready' /tmp/thr.out && break
	sleep 0.1
done
grep -q "^ready $thr\$" /tmp/thr.out || echo "@@FAIL ustack_thr never said ready"
echo "@@THR-BEGIN"
/ks/kstats flame ut --count || echo "@@FAIL kstats flame ut"
echo "@@THR-END"
kill $thr
wait $thr
echo "remove ut" > $C
GUEST
console=$logs/guest-ustack-peer-$k.console
ks_rootfs "$k" "$script" "$console" "$TOP/out/$k/kstats.ko" \
	"$TOP/out/$k/ustack_prog" "$TOP/out/$k/kstask" "$TOP/out/tools/kstats" \
	"$TOP/test/ustack_peer.bt" "$TOP/test/lib/bt-guest.sh" "$TOP/out/$k/ustack_thr"
rc=$?
KS_TEST=$TOP/test python3 - "$console" "$rc" "$TOP/out/$k/ustack_prog" <<'PY'
import os
import re
import subprocess
import sys

sys.path.insert(0, os.environ["KS_TEST"])
from keys_test import key_nodes  # noqa: E402

WAITS = 8
console, rc, prog = sys.argv[1:4]
lines = [l.rstrip("\n") for l in open(console, errors="replace")]
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s" % (what, detail))


def section(begin, end):
    out, on = [], False
    for l in lines:
        if l.startswith(begin):
            on = True
        elif l.startswith(end):
            on = False
        elif on:
            out.append(l)
    return out


def name(frame):
    """A symbol without its offset: read+22 -> read, f+0x1c/0x40 -> f."""
    return re.sub(r"\+0x[0-9a-f]+(/0x[0-9a-f]+)?$|\+[0-9]+$", "", frame)


# glibc's aliases (read, __read, __libc_read): one function, one address
# in the program's symbol table; each tool picks one of the names.
try:
    nm = subprocess.run(["nm", prog], capture_output=True, text=True).stdout
except OSError:
    nm = ""
sym = {w[2]: w[0] for w in (l.split() for l in nm.splitlines())
       if len(w) == 3 and w[1] in "TtWw"}


starts = sorted((int(a, 16), n) for n, a in sym.items())


def func_of(addr, ret=True):
    """The program's function that holds @addr (a return address: the
    byte before it, in the call), from its symbol table; it is static and
    not PIE, so its addresses are those it was linked at."""
    at = addr - 1 if ret else addr
    best = None
    for a, n in starts:
        if a > at:
            break
        best = n
    return best


def same(a, b):
    return a == b or (a in sym and sym.get(b) == sym[a])


def subseq(small, big, eq=lambda a, b: a == b):
    i = 0
    for x in small:
        while i < len(big) and not eq(x, big[i]):
            i += 1
        if i == len(big):
            return False
        i += 1
    return True


def what(addr):
    """What the program's symbol table says an address is."""
    at = [n for a, n in starts if a == addr]
    if at:
        return "%#x, the first instruction of %s: no return address" % (addr, at[0])
    if not starts or addr > 0x7fffffffffff:
        return "%#x, no user address" % addr
    return "%#x" % addr


def hexname(n):
    return re.fullmatch(r"0x[0-9a-f]+", n) is not None


fails = [l for l in lines if l.startswith("@@FAIL")]
check(rc == "0", "rootfs guest runs, clean console", "exit status %s (see %s)" % (rc, console))
check(not [l for l in fails if not l.startswith("@@FAIL bpftrace")],
      "kstats loaded, the trace made, ustack_prog ran, kstats flame named it", str(fails))

# bpftrace's first map printed: "@waits[" then a frame a line ("ADDR
# SYM+OFF (MODULE)", leaf first; SYM is 0xADDR when it has no name), then
# "]: N".
bt, cur = [], None
for l in lines:
    if not l.startswith("@@BTMAP "):
        continue
    l = l[len("@@BTMAP "):]
    if l == "end":
        break
    if l.startswith("@waits["):
        cur = []
    elif cur is not None and re.match(r"^\]: \d+$", l):
        bt.append((cur, int(l[3:])))
        cur = None
    elif cur is not None and l.strip():
        m = re.match(r"^\s*([0-9a-f]+) (\S+)", l)
        cur.append((int(m.group(1), 16), name(m.group(2))) if m else (None, l.strip()))
hung = any(l.startswith("@@BT hung") for l in lines)
check(("@@BT rc=0" in lines or hung) and
      not any(l.startswith("@@FAIL bpftrace") for l in lines),
      "bpftrace attached, ran and printed its stacks (the peer's failure if not)",
      str([l for l in lines if l.startswith(("@@BT rc", "@@BT hung", "@@FAIL bpftrace"))]))
if hung:
    print("note: the peer's failure, not kstats': bpftrace did not exit 10 s after "
          "SIGINT (after printing its stacks) and was killed")

# kstats: folded user stacks, main first, leaf (the wrapper) last, one
# name a frame; KEY-up's rows, addresses leaf first.
ks = {}
for l in section("@@FLAME-BEGIN", "@@FLAME-END"):
    m = re.match(r"^(\S.*) (\d+)$", l)
    if m:
        ks[m.group(1)] = ks.get(m.group(1), 0) + int(m.group(2))
node = (key_nodes(lines).get("up") or [None])[0]
rows = [([int(a, 16) for a in r["parts"].get("ustack", [])], r["count"])
        for r in (node["rows"] if node else [])]
ksl = [l for l in lines if l.startswith("@@KS ")]
w = ksl[-1].split() if ksl else []
check(len(w) == 5 and w[4] == "0" and node and node["other"]["count"] == 0,
      "kstats missed no wait, none in other", "%s other %s" % (ksl, node and node["other"]))


def shown(s):
    """bpftrace's frames up to its last named one, and the unnamed rest."""
    last = max([i for i, f in enumerate(s) if not hexname(f[1])], default=-1)
    return s[:last + 1], s[last + 1:]


def in_rows(addrs, n):
    """Waits of KEY-up's rows that have @addrs in that order, == @n."""
    return sum(c for a, c in rows if subseq(addrs, a)) == n


# The reader's waits: bpftrace's stacks through wait_outer.
reader = [(s, n) for s, n in bt if any(f[1] == "wait_outer" for f in s)]
kreader = {s: n for s, n in ks.items() if "wait_outer" in s.split(";")}
check(sum(n for _, n in reader) == WAITS,
      "bpftrace: %d waits of the reader (stacks with wait_outer)" % WAITS, str(bt))
check(sum(kreader.values()) == WAITS,
      "kstats: %d waits of the reader (stacks with wait_outer)" % WAITS, str(ks))
check(reader and sum(n for _, n in reader) == sum(kreader.values()),
      "the reader's waits: the same count in kstats and bpftrace",
      "bpftrace %s, kstats %s" % (reader, kreader))
ok_names = ok_addrs = bool(reader)
for s, n in reader:
    named, rest = shown(s)
    names = [f[1] for f in reversed(named)]
    got = sum(c for ls, c in kreader.items() if subseq(names, ls.split(";"), same))
    if got != n or any(hexname(x) for x in names):
        ok_names = False
        print("bpftrace's %s (%d waits): %d such waits in kstats' %s" % (names, n, got, kreader))
    if not in_rows([f[0] for f in named], n):
        ok_addrs = False
        print("bpftrace's %s (%d waits): not as many in kstats' KEY-up %s" %
              ([hex(f[0]) for f in named], n, rows))
    if rest:
        inks = [f for f in rest if any(f[0] in a for a, _ in rows)]
        print("note: bpftrace's reader stack goes on past %s with %d frames it cannot "
              "name (%s), %s kstats: the frame-pointer register glibc's start code "
              "(built without frame pointers) left is no frame record, and the kernel's "
              "walk read on; kstats stops where frame records stop going up the stack" %
              (named[-1][1] if named else "?", len(rest),
               ", ".join(what(f[0]) for f in rest),
               "some of them also in" if inks else "none of them in"))
check(ok_names, "every user frame bpftrace names for the reader's waits is in kstats' "
      "stack of the same waits, in the same order (offsets dropped; glibc's aliases "
      "are one function)")
check(ok_addrs, "and each of those frames' addresses is in KEY-up's rows of the same "
      "waits, in the same order")
read = r"(__libc_|__)?read"
check(kreader and all(re.search(r"(^|;)main;wait_outer;wait_inner;%s$" % read, s)
                      for s in kreader),
      "kstats: main;wait_outer;wait_inner;read, wait_inner directly above the read "
      "wrapper (the frame bcc loses)", str(kreader))

# The writer thread's nanosleep() waits: bpftrace's stacks through
# start_thread, by the program's symbol table (bpftrace may leave them
# unnamed). Main's pause(), where ustack_prog still sleeps, and a
# pthread_join() that waited are not compared: kstats counts a wait when
# it ends, bpftrace when it starts.
writer = [(s, n) for s, n in bt if any(func_of(f[0]) == "start_thread" for f in s[1:])]
kwriter = {s: n for s, n in ks.items() if "writer" in s.split(";")}
check(sum(n for _, n in writer) == WAITS and sum(kwriter.values()) == WAITS,
      "the writer's %d nanosleep() waits, in kstats and bpftrace" % WAITS,
      "bpftrace %s, kstats %s" % (writer, kwriter))
check(writer and all(in_rows([f[0] for f in s], n) for s, n in writer),
      "each of bpftrace's frames of the writer's waits (by address) is in kstats' stack "
      "of the same waits, in the same order", "bpftrace %s, kstats %s" % (writer, rows))

def bframe(i, f):
    """bpftrace's frame: NAME(ADDR); if it named none, ADDR[in FUNC] by
    the symbol table, or ADDR[start of FUNC], which no call returns to."""
    if not hexname(f[1]):
        return "%s(%x)" % (f[1], f[0])
    start = [n for a, n in starts if a == f[0]]
    if i > 0 and start:
        return "%s[start of %s]" % (f[1], start[0])
    fn = func_of(f[0], i > 0) if f[0] < 0x800000000000 else None
    return "%s[in %s]" % (f[1], fn) if fn else f[1]


def bnames(s):
    return ";".join(bframe(i, f) for i, f in reversed(list(enumerate(s))))


def kline(pick, folded):
    """kstats' folded stacks of @folded, and KEY-up's rows (main first)."""
    return "%s, KEY-up %s" % (" + ".join("%s (%d)" % (l, n) for l, n in folded.items()),
                              " + ".join("%s (%d)" % (" ".join(hex(x) for x in reversed(a)), n)
                                         for a, n in rows if pick(a)))


lost = reader and all(not any(f[1] == "wait_inner" for f in s) for s, _ in reader)
print("note: reader: bpftrace %s; kstats %s: %s" % (
    " + ".join("%s (%d)" % (bnames(s), n) for s, n in reader),
    kline(lambda a: any(a[:1] == [f[0] for f in s][:1] for s, _ in reader), kreader),
    "bpftrace lost wait_inner (read, then wait_outer), kstats keeps it" if lost else
    "bpftrace kept wait_inner on this kernel, kstats shows it too"))
print("note: writer: bpftrace %s; kstats %s%s" % (
    " + ".join("%s (%d)" % (bnames(s), n) for s, n in writer),
    kline(lambda a: any(a[:1] == [f[0] for f in s][:1] for s, _ in writer), kwriter),
    ": bpftrace named none of its frames (that thread had exited when bpftrace printed "
    "them; the reader's, in the same process, it named)"
    if writer and all(hexname(f[1]) for s, _ in writer for f in s) else ""))
# The dynamically linked program's thread and main: 3 sleeps each, from
# sleeper(), through glibc's nanosleep (its names vary: __nanosleep,
# clock_nanosleep), named by the tool from libc.so's symbols.
thr = {}
for l in section("@@THR-BEGIN", "@@THR-END"):
    m = re.match(r"^(\S.*) (\d+)$", l)
    if m:
        thr[m.group(1)] = thr.get(m.group(1), 0) + int(m.group(2))
for who in ("thr_body", "main"):
    n = sum(c for f, c in thr.items() if re.search(r"(^|;)%s;sleeper;\w*nanosleep(;|$)" % who, f))
    check(n == 3, "dynamic program: %s's 3 sleeps keep sleeper, the caller of glibc's frameless "
          "nanosleep (%s)" % (who, "a thread: its stack just below the libraries" if who != "main"
                              else "the main thread"), str(thr))
print("upeer: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
