#!/bin/bash
# The main job: install what is needed, build kstats.ko, boot a stock Debian
# kernel in QEMU, load kstats, trace real kernel code through _control while
# a workload runs (vfs_read, run-queue latency from sched_wakeup to
# sched_switch, and why dd waits off CPU in a pipe between two dd), and
# show the answers first: kstats show, the top rows by comm and kernel
# stack (and the waker's stack), folded stacks, and dd's off-CPU flame
# graph as an SVG (out/demo-KVER.off.svg); a wakeup chain (dd reading a
# null_blk disk into the pipe: why the reader's waker was late) and its
# chain graph (out/demo-KVER.chain.svg); then the kstats_demo client
# module (how late a 1 ms hrtimer fires), kstats list, and last the raw
# node as scripts read it. Recording stops before the demo reads the nodes,
# so its own readers are not in its figures.
# Usage: test/demo.sh [KVER]   (default: the newest reference kernel)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# shellcheck source=lib/kernels.sh
. test/lib/kernels.sh

bash test/lib/deps.sh
KVER=${1:-$(ks_kernels | tail -1)}
if [[ ! -d /lib/modules/$KVER/build || ! -e /boot/vmlinuz-$KVER ]]; then
	echo "demo: no kernel $KVER with its headers here; these are: $(ks_kernels | tr '\n' ' ')" >&2
	echo "demo: add one with apt-get install linux-image-$KVER linux-headers-$KVER" >&2
	exit 2
fi
echo "== building kstats for $KVER (only what changed since the last run)"
KS_INCREMENTAL=1 bash test/build.sh "$KVER"
echo "== building the kstats tool (static, for the guest)"
bash test/tool-build.sh >/dev/null

script=$(mktemp)
log=$TOP/out/demo-$KVER.console
# dd's off-CPU flame graph, drawn in the guest (kstats flame off --svg).
svg=out/demo-$KVER.off.svg
# Its chain graph (kstats flame ch --svg), on ttyS2.
chsvg=out/demo-$KVER.chain.svg
rm -f "$svg" "$svg.ttyS1" "$chsvg" "$chsvg.ttyS2"
# null_blk and configfs, which it needs, as busybox's insmod loads them.
mods=out/$KVER/demo-modules
mkdir -p "$mods"
for m in configfs null_blk; do
	f=$(modinfo -k "$KVER" -n "$m")
	case $f in
	*.xz) xz -dc "$f" >"$mods/$m.ko" ;;
	*) cp "$f" "$mods/$m.ko" ;;
	esac
done
trap 'rm -f "$script"' EXIT
cat >"$script" <<'GUEST'
D=/sys/kernel/debug/kstats
ln -s /modules/kstats /bin/kstats
# Each part's output is kept in /tmp/part, and "in words" states, in one
# line computed from it, what the figures above it mean. The parts come
# after recording stops: before that, no copy (its reads would count).
run() {
	echo "# $*"
	if [ -e /tmp/part ]; then
		eval "$@" >/tmp/out 2>&1
		cat /tmp/out
		cat /tmp/out >>/tmp/part
	else
		eval "$@"
	fi
}
part() { echo "== $*"; : >/tmp/part; }
words() { awk -v what="$1" -f /tmp/words.awk /tmp/part; }
cat >/tmp/words.awk <<'AWK'
function ns(v, n) {
	n = v + 0
	if (v ~ /ns$/) return n
	if (v ~ /us$/) return n * 1000
	if (v ~ /ms$/) return n * 1000000
	if (v ~ /s$/) return n * 1000000000
	return n
}
# A stack frame's function, and the first frame that is not the
# scheduler's or the wakeup's own.
function fname(l) { sub(/^[ \t]+/, "", l); sub(/\+.*/, "", l); return l }
function own(a, r, n,  i) {
	for (i = 1; i <= n; i++)
		if (a[r, i] !~ /schedule|wake/) return a[r, i]
	return "?"
}
# A level's own frame; an interrupt's, past the block layer's completion.
function lown(r, l,  i, skip) {
	skip = lv[r, l] == "[interrupt]" ? "schedule|wake|complete|^blk_|^bio_|end_?io" : "schedule|wake"
	for (i = 1; i <= cn[r, "c" l]; i++)
		if (cf[r, "c" l, i] !~ skip) return cf[r, "c" l, i]
	return "?"
}
function who(r, l) { return lv[r, l] == "[interrupt]" ? "an interrupt" : lv[r, l] }
/^[^ #=][^ ]*: [0-9]+ samples?,/ && name == "" { name = $1; sub(/:$/, "", name); samples = $2 }
$1 == "min" && $3 == "mean" { mean = $4; max = $6 }
$1 == "p50" { p50 = $2; for (i = 1; i < NF; i++) if ($i == "p99") p99 = $(i + 1) }
/^row total / { r = ++nr; tot[r] = $3; cnt[r] = $5; avg[r] = $7; sect = ""; next }
/^slowest value / { sv = $3; spid = $5; scomm = $7; r = 0; sect = ""; next }
/^\tcomm / { comm[r] = $2 }
/^\twaker-comm / { wcomm[r] = $2 }
/^\tkstack/ { sect = "k"; next }
/^\twaker-kstack/ { sect = "w"; next }
# A chain's level: "waker-chain L comm C pid P blocked-ns MEAN", or
# "waker-chain L [interrupt]" or a marker; its frames follow.
/^\twaker-chain / { sect = "c" $2; lv[r, $2] = ($3 == "comm") ? $4 : $3; lns[r, $2] = $NF; next }
/^\t\t/ {
	if (sect == "k") kf[r, ++kn[r]] = fname($0)
	else if (sect == "w") wf[r, ++wn[r]] = fname($0)
	else if (sect ~ /^c/) cf[r, sect, ++cn[r, sect]] = fname($0)
}
/^# name / { cur = $3 }
/^# samples / { S[cur] = $3 }
/^# mean / { M[cur] = $3 }
/^# p50 / { P50[cur] = $3 }
/^# p50_err / { E50[cur] = $3 }
/^# p50_slot / { L50[cur] = $3 }
/^NAME +SAMPLES/ { inlist = 1; next }
# The table ends at the blank line before its footnote.
inlist && NF == 0 { inlist = 0 }
inlist && NF >= 6 {
	nm++
	if ($6 == "-") client++
	else if ($1 !~ /^(GAP|BLOCKED|RUNQ|KEY)-/) { traces++; tn = tn " " $1 }
}
END {
	if (what == "show")
		printf "in words: half of the %s calls took at most %s and 99 %% at most %s; the slowest, %s, took %d times as long as the median\n",
			samples, p50, p99, max, int(ns(max) / ns(p50) + 0.5)
	if (what == "keys") {
		for (i = 1; i <= nr; i++) all += tot[i]
		printf "in words: the top row, %s's calls from %s, holds %d %% of the time of the %d rows shown (%s calls, avg %s ns); the slowest call, %s ns, was %s's (pid %s)\n",
			comm[1], kf[1, 2], int(100 * tot[1] / all + 0.5), nr, cnt[1], avg[1], sv, scomm, spid
	}
	if (what == "runq")
		printf "in words: woken tasks waited for a CPU %s on average over %s waits (p99 %s); %s waited longest in all: %s waits, %.1f ms\n",
			mean, samples, p99, comm[1], cnt[1], tot[1] / 1000000
	if (what == "off") {
		b = S["BLOCKED-off"] * M["BLOCKED-off"]
		q = S["RUNQ-off"] * M["RUNQ-off"]
		pq = int(100 * q / (b + q) + 0.5)
		printf "in words: dd's %s waits off CPU: %d %% of the time waiting for a CPU (run queue), %d %% blocked; the top row blocked in %s, woken by %s's %s\n",
			S["off"], pq, 100 - pq, own(kf, 1, kn[1]), wcomm[1], own(wf, 1, wn[1])
	}
	if (what == "chain")
		printf "in words: the top two-level chain, %s waits of dd (%.1f ms): dd blocked in %s, woken by %s in %s, which had itself been blocked %.1f ms (mean), woken by %s in %s\n",
			cnt[1], tot[1] / 1000000, own(kf, 1, kn[1]), who(1, 1), lown(1, 1), lns[1, 1] / 1000000, who(1, 2), lown(1, 2)
	if (what == "client")
		printf "in words: the 1 ms hrtimer fired a median %s late (%d %% of its period), and 1 in 100 times over %s late\n",
			p50, int(ns(p50) / 10000 + 0.5), p99
	if (what == "list")
		printf "in words: %d metrics: %d of %d traces (%s) with their GAP-, BLOCKED- and RUNQ- parts, %d of a client module (TRACE -)\n",
			nm, nm - client, traces, substr(tn, 2), client
	if (what == "node")
		printf "in words: p50 %s ns: half of %s's %s samples are at most that, give or take %s ns (p50_err), in slot %s\n",
			P50[cur], cur, S[cur], E50[cur], L50[cur]
}
AWK
insmod /modules/kstats.ko
run "echo trace read start vfs_read key comm,kstack:5 > $D/_control"
run "echo trace runq start sched:sched_wakeup end sched:sched_switch key comm > $D/_control"
run "echo trace off offcpu comm dd key kstack:7,waker-kstack:7,waker-comm > $D/_control"
run "cat $D/_control"
echo "== workload: dd of the busybox binary and /proc files, 4 KiB reads"
for f in /bin/busybox /proc/cpuinfo /proc/meminfo /proc/stat /proc/interrupts; do
	dd if=$f of=/dev/null bs=4k 2>/dev/null
done
echo "== workload: dd into a pipe, read by another dd in 512-byte blocks"
dd if=/bin/busybox bs=64k 2>/dev/null | dd of=/dev/null bs=512 2>/dev/null
# What follows reads the nodes, with vfs_read: stop recording first, so
# that the demo's own readers are not in its figures.
run "kstats stop read; kstats stop runq"
part "the answer: how long vfs_read took (kstats show)"
run "kstats show read"
words show
part "who called it: the top rows by total time, then the slowest sample"
run "awk '/^row/ {r++} /^other/ {r = 99} /^slowest/ {s++} NR == 1 || (r >= 1 && r <= 3) || s == 1' $D/KEY-read"
run "kstats flame read | head -5"
words keys
part "run-queue latency, sched_wakeup to sched_switch, and who waited"
run "kstats show runq"
run "grep -A1 '^row' $D/KEY-runq | head -6"
words runq
part "why dd waited: off CPU, split at the wakeup; the top row, its stack and its waker's"
run "grep -h -e '^# name' -e '^# samples' -e '^# mean' $D/off $D/BLOCKED-off $D/RUNQ-off"
run "awk '/^row/ {n++} n == 1' $D/KEY-off"
run "kstats flame off | head -2"
run "kstats flame off --svg > /tmp/off.svg"
words off
# The SVG leaves the guest on its second serial port (ttyS1), a file on
# the host of its own: the console (ttyS0) interleaves the kernel's lines.
cat /tmp/off.svg > /dev/ttyS1
# A wakeup chain: dd reads a disk (null_blk, whose timer completes each
# 64 KiB read 1 ms after it was queued) into the pipe, and the other dd
# waits for it: why was the reader's waker late?
kstats stop off
insmod /modules/configfs.ko
insmod /modules/null_blk.ko queue_mode=2 irqmode=2 completion_nsec=1000000 nr_devices=1
part "why the waker was late: a wakeup chain; dd reads a disk (null_blk) into the pipe"
run "echo trace ch offcpu comm dd key kstack:7,waker-chain:2 > $D/_control"
dd if=/dev/nullb0 iflag=direct bs=64k count=64 2>/dev/null | dd of=/dev/null bs=64k 2>/dev/null
run "kstats stop ch"
# The top row whose chain has two levels (a wait that an interrupt
# ended has one level: the interrupt).
cat >/tmp/chainrow.awk <<'AWK'
/^row/ { if (keep) exit; buf = ""; on = 1 }
/^(other|slowest)/ { if (keep) exit; on = 0 }
on { buf = buf $0 "\n" }
on && /^\twaker-chain 2 / { keep = 1 }
END { printf "%s", keep ? buf : "" }
AWK
run "awk -f /tmp/chainrow.awk $D/KEY-ch"
run "kstats flame ch | awk -F ';--;' 'NF == 3' | head -2"
run "kstats flame ch --svg > /tmp/ch.svg"
words chain
cat /tmp/ch.svg > /dev/ttyS2
kstats remove ch
rmmod null_blk
rmmod configfs
part "a client module, kstats_demo.ko: how late a 1 ms hrtimer fires (demo_hrtimer_late), how long usleep_range(1 ms) takes (demo_usleep_1ms)"
insmod /modules/kstats_demo.ko
sleep 2
run "kstats show demo_hrtimer_late"
words client
: >/tmp/part
run "kstats list"
words list
part "what scripts read: the node itself, its summary lines and its first slot lines (slot, CPU, count, avg, cumulative p)"
run "awk '!/^slot/ || n++ < 4' $D/read"
words node
kstats remove read
kstats remove runq
kstats remove off
rmmod kstats_demo
rmmod kstats
echo "== unloaded"
GUEST
echo "== booting $KVER in QEMU (TCG, 2 CPUs)"
status=0
KS_QEMU_ARGS="${KS_QEMU_ARGS:+$KS_QEMU_ARGS }-serial file:$svg.ttyS1 -serial file:$chsvg.ttyS2" \
	bash test/lib/run-guest.sh "$KVER" "$script" "$log" \
	"out/$KVER/kstats.ko" "out/$KVER/kstats_demo.ko" out/tools/kstats \
	"$mods/configfs.ko" "$mods/null_blk.ko" || status=$?
# The guest's own output, without the kernel's console messages.
sed -n '/KSTATS-GUEST-START/,/KSTATS-GUEST-END/p' "$log" | grep -v '^\[ *[0-9.]*\]'
# Each SVG left the guest on a serial port of its own: WHAT TTY-FILE SVG.
keep_svg() {
	# The tty wrote each newline as CRLF; the SVG itself holds no CR.
	if [[ -s $2 ]]; then
		tr -d '\r' <"$2" >"$3"
		echo "== $1: $TOP/$3 (open it in a browser)"
	else
		echo "== no ${1%% (*} came out of the guest ($2 is empty)"
	fi
	rm -f "$2"
}
keep_svg "dd's off-CPU flame graph (kstats flame off --svg)" "$svg.ttyS1" "$svg"
keep_svg "dd's chain graph (kstats flame ch --svg)" "$chsvg.ttyS2" "$chsvg"
echo "== full console log: $log"
exit "$status"
