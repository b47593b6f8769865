#!/bin/bash
# Prometheus end to end, on the host, with Debian's real servers:
#  1. kstats export --prometheus --textfile of nodes captured in a guest
#     (test/data/6.12/kstats); node_exporter's textfile collector serves it;
#  2. promtool check metrics passes on it;
#  3. a Prometheus server scrapes node_exporter, and
#     histogram_quantile(0.99, ...) from its HTTP API agrees with kstats'
#     own p99 within the bucket layout's bound; _count is the samples;
#  4. export --keys: a KEY-NAME's cgroup rows as labelled series pass
#     promtool, and a PromQL sum over cgroup="/a" is those rows' count;
#  5. both servers are stopped, and no process of theirs is left.
# Both listen on 127.0.0.1 only, on ports of their own (not 9090/9100).
# Ends with "prom: N passed, M failed".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
bash "$TOP/test/lib/need-pkgs.sh" prometheus prometheus-node-exporter python3 ||
	{ echo "prom: 0 passed, 1 failed"; exit 1; }
KSTATS=$TOP/tools/kstats
[[ -x $KSTATS ]] || make -C "$TOP/tools" kstats >/dev/null
DATA=$TOP/test/data/6.12/kstats
NE_PORT=${KS_NE_PORT:-19100}
PR_PORT=${KS_PROM_PORT:-19090}

T=$(mktemp -d /tmp/kstats-prom.XXXXXX)
PIDS=()
PASSED=0
FAILED=0
ok() {
	if "$@"; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); echo "FAIL: $*"; fi
}
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
}
trap 'cleanup; rm -rf "$T"' EXIT

# The query helper: GET a URL, print the body.
get() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"; }

mkdir -p "$T/textfile" "$T/tsdb"
ok env KSTATS_ROOT="$DATA" "$KSTATS" export --prometheus --textfile "$T/textfile"
ok test -s "$T/textfile/kstats.prom"
# Nothing else left in the directory: the temporary file was renamed.
ok test "$(ls -A "$T/textfile")" = kstats.prom
echo "== promtool check metrics"
promtool check metrics <"$T/textfile/kstats.prom"
ok test $? = 0

# A trace's GAP-NAME is left out by default (--gap adds it as part="gap").
ok test "$(grep -c '^kstats_GAP_' "$T/textfile/kstats.prom")" = 0

# The other bucket layouts, the cpu label and the part label pass promtool too.
for opts in "--buckets slots" "--per-cpu" "--per-cpu --buckets slots" "--gap" "--gap --per-cpu"; do
	# shellcheck disable=SC2086
	env KSTATS_ROOT="$DATA" "$KSTATS" export --prometheus $opts >"$T/other.prom" &&
		promtool check metrics <"$T/other.prom"
	ok test $? = 0
done

echo "== node_exporter on 127.0.0.1:$NE_PORT"
prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile" >"$T/ne.log" 2>&1 &
PIDS+=($!)
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: kstats
    static_configs:
      - targets: ['127.0.0.1:$NE_PORT']
EOF
echo "== prometheus on 127.0.0.1:$PR_PORT"
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PR_PORT" >"$T/prom.log" 2>&1 &
PIDS+=($!)

served=0
for _ in $(seq 60); do
	if get "http://127.0.0.1:$NE_PORT/metrics" 2>/dev/null |
		grep -q '^kstats_read_seconds_bucket{le="+Inf"} 983$'; then
		served=1
		break
	fi
	sleep 0.5
done
ok test $served = 1

# kstats' own p99 of "read", and its slot, from the tool's JSON.
read -r P99 SLOT FB SAMPLES < <(env KSTATS_ROOT="$DATA" "$KSTATS" show read --json |
	python3 -c 'import json,sys; j=json.load(sys.stdin); p=j["percentiles"]["p99"]; print(p["value"], p["slot"], j["frac_bits"], j["samples"])')
echo "kstats: p99 $P99 ns, slot $SLOT, frac_bits $FB, samples $SAMPLES"

Q='histogram_quantile(0.99, kstats_read_seconds_bucket)'
URL="http://127.0.0.1:$PR_PORT/api/v1/query?query=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$Q")"
CURL="http://127.0.0.1:$PR_PORT/api/v1/query?query=kstats_read_seconds_count"
val=""
for _ in $(seq 120); do
	val=$(get "$URL" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
	[[ -n $val ]] && break
	sleep 0.5
done
echo "prometheus: $Q = $val"
ok test -n "$val"
count=$(get "$CURL" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")')
ok test "$count" = "$SAMPLES"

# The bound: with one bucket per power of two, Prometheus interpolates
# inside the bucket that holds the rank, which is the power of two
# holding kstats' p99 slot: (2^k - 1, 2^(k+1) - 1], in seconds.
python3 - "$val" "$P99" "$SLOT" "$FB" <<'EOF'
import sys
prom, p99, slot, fb = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
b = slot >> fb
def base(s):
    bk = s >> fb
    lead = (1 << fb) | (s & ((1 << fb) - 1))
    return lead << (bk - 1) if bk else s
def top(s):
    bk = s >> fb
    return base(s) + ((1 << (bk - 1 if bk else 0)) - 1)
lo, hi = base(b << fb), top(((b + 1) << fb) - 1)
print(f"bucket of p99: [{lo}, {hi}] ns; prometheus {prom * 1e9:.0f} ns; kstats {p99} ns; "
      f"|diff| {abs(prom * 1e9 - p99):.0f} <= width {hi - lo + 1}")
ok = lo - 1 <= prom * 1e9 <= hi + 1e-3 and lo <= p99 <= hi and abs(prom * 1e9 - p99) <= hi - lo + 1
sys.exit(0 if ok else 1)
EOF
ok test $? = 0

# Full slot resolution: the same file rewritten with --buckets slots.
# Once Prometheus has scraped it (the 62 power-of-two series are marked
# stale, 496 slot series remain), its p99 lies in kstats' p99 slot.
ok env KSTATS_ROOT="$DATA" "$KSTATS" export --prometheus --buckets slots --textfile "$T/textfile"
NURL="http://127.0.0.1:$PR_PORT/api/v1/query?query=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' 'count(kstats_read_seconds_bucket)')"
n=""
for _ in $(seq 60); do
	n=$(get "$NURL" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
	[[ $n == 496 ]] && break
	sleep 0.5
done
ok test "$n" = 496
val=$(get "$URL" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")')
echo "prometheus, --buckets slots: $Q = $val"
python3 - "$val" "$P99" "$SLOT" "$FB" <<'EOF'
import sys
prom, p99, slot, fb = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
bk = slot >> fb
lo = ((1 << fb) | (slot & ((1 << fb) - 1))) << (bk - 1) if bk else slot
hi = lo + (1 << (bk - 1 if bk else 0)) - 1
print(f"p99 slot {slot}: [{lo}, {hi}] ns; prometheus {prom * 1e9:.0f} ns; kstats {p99} ns")
sys.exit(0 if lo - 1 <= prom * 1e9 <= hi + 1e-3 and lo <= p99 <= hi else 1)
EOF
ok test $? = 0

# Names that collide once reduced to [a-zA-Z0-9_] (io.lat, io_lat,
# io-lat) are one family with a node label each: the file stays valid
# (before, promtool: "second HELP line"), and node_exporter serves it.
COL=$T/collide
mkdir -p "$COL/root" "$COL/out"
find "$DATA" -maxdepth 1 -type f -exec cp {} "$COL/root/" \;
for n in io.lat io_lat io-lat; do
	sed "s/^# name read\$/# name $n/" "$DATA/read" >"$COL/root/$n"
done
ok env KSTATS_ROOT="$COL/root" "$KSTATS" export --prometheus --textfile "$COL/out"
promtool check metrics <"$COL/out/kstats.prom"
ok test $? = 0
env KSTATS_ROOT="$COL/root" "$KSTATS" export --prometheus --per-cpu >"$COL/cpu.prom" &&
	promtool check metrics <"$COL/cpu.prom"
ok test $? = 0
ok test "$(grep -c '^# HELP kstats_io_lat_seconds ' "$COL/out/kstats.prom")" = 1
ok env KSTATS_ROOT="$COL/root" "$KSTATS" export --prometheus --textfile "$T/textfile"
served=0
for _ in $(seq 60); do
	body=$(get "http://127.0.0.1:$NE_PORT/metrics" 2>/dev/null)
	if grep -q '^node_textfile_scrape_error 0$' <<<"$body" &&
		[[ $(grep -cE '^kstats_io_lat_seconds_count\{node="io[-._]lat"\} 983$' <<<"$body") == 3 ]]; then
		served=1
		break
	fi
	sleep 0.5
done
echo "node_exporter serves the three colliding nodes, no textfile error: $served"
ok test $served = 1

# --gap: GAP-read's series are part="gap" of kstats_read_seconds, read's
# own part="duration"; Prometheus tells them apart by the label.
ok env KSTATS_ROOT="$DATA" "$KSTATS" export --prometheus --gap --textfile "$T/textfile"
GURL="http://127.0.0.1:$PR_PORT/api/v1/query?query=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' 'kstats_read_seconds_count{part="gap"}')"
GAPN=$(sed -n 's/^# samples //p' "$DATA/GAP-read")
g=""
for _ in $(seq 60); do
	g=$(get "$GURL" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
	[[ $g == "$GAPN" ]] && break
	sleep 0.5
done
echo "prometheus: kstats_read_seconds_count{part=\"gap\"} = $g (GAP-read's samples: $GAPN)"
ok test "$g" = "$GAPN"

# --keys: a keyed trace's rows as kstats_NAME_by_key_seconds, labelled by
# the key's parts. A fake root: read's KEY-read keyed by cgroup,comm,
# two rows of /a (and a removed cgroup's "(gone)" row, a path with a
# blank and a quote); promtool passes it, Prometheus scrapes it, and a
# sum over cgroup="/a" is those rows' count.
KEYS=$T/keys
mkdir -p "$KEYS/root"
find "$DATA" -maxdepth 1 -type f -exec cp {} "$KEYS/root/" \;
cat >"$KEYS/root/KEY-read" <<'EOF'
# key cgroup,comm keys 8 rows 4 other 0 stacks 0 slowest 0 skipped 0 unit ns
row total 9000 count 7 avg 1285 p50 2047 p99 4095 min 100 max 4000
	cgroup /a
	comm kst
row total 5000 count 5 avg 1000 p50 1023 p99 2047 min 500 max 2000
	cgroup /a
	comm sh
row total 900 count 3 avg 300 p50 511 p99 511 min 100 max 500
	cgroup /b\040"c" (gone)
	comm kst
row total 50 count 1 avg 50 p50 50 p99 50 min 50 max 50
	cgroup /system.slice/x.service
	comm x
other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0
EOF
cp "$TOP/test/data/keys/KEY-cgroup" "$KEYS/root/KEY-idle"
env KSTATS_ROOT="$KEYS/root" "$KSTATS" export --prometheus --keys >"$KEYS/keys.prom" &&
	promtool check metrics <"$KEYS/keys.prom"
ok test $? = 0
ok grep -q '^kstats_read_by_key_seconds_count{cgroup="/b \\"c\\" (gone)",comm="kst"} 3$' "$KEYS/keys.prom"
ok grep -q '^kstats_idle_by_key_seconds_count{cgroup="/system.slice/ssh.service",comm="sshd",waker_cgroup="/"} 2$' "$KEYS/keys.prom"
# Without --keys, not a line of it.
ok test "$(env KSTATS_ROOT="$KEYS/root" "$KSTATS" export --prometheus | grep -c by_key)" = 0
ok env KSTATS_ROOT="$KEYS/root" "$KSTATS" export --prometheus --keys --textfile "$T/textfile"
KQ='sum by (cgroup) (kstats_read_by_key_seconds_count{cgroup="/a"})'
KURL="http://127.0.0.1:$PR_PORT/api/v1/query?query=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$KQ")"
kc=""
for _ in $(seq 60); do
	kc=$(get "$KURL" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["metric"].get("cgroup"), r[0]["value"][1] if r else "")' 2>/dev/null)
	[[ $kc == "/a 12" ]] && break
	sleep 0.5
done
echo "prometheus: $KQ = $kc (the rows of /a: 7 + 5)"
ok test "$kc" = "/a 12"
SQ='sum(kstats_read_by_key_seconds_sum{cgroup="/a"})'
SURL="http://127.0.0.1:$PR_PORT/api/v1/query?query=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$SQ")"
ks=$(get "$SURL" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")')
echo "prometheus: $SQ = $ks (14000 ns)"
ok python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - 14e-6) > 1e-12)' "${ks:-nan}"

echo "== stopping both servers"
cleanup
left=0
for p in "${PIDS[@]}"; do
	kill -0 "$p" 2>/dev/null && left=1
done
# No process of ours left, by PID and by the scratch directory's name.
pgrep -f "$T" >/dev/null && left=1
ok test $left = 0
PIDS=()
echo "prom: $PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
