#!/usr/bin/env python3
"""Checks of test/bio-peer.sh's guest console: kstats' biolatency (a
matched tracepoint pair) against the device's own count and against
bpftrace's (test/bio_peer.bt) over the same 400 writes.
Usage: bio_peer.py CONSOLE RC; prints "bio: N passed, M failed"."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from kstats._node import parse  # noqa: E402

WRITES = 400
DELAY_NS = 1500000
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def node_between(lines, begin, end):
    if begin not in lines or end not in lines:
        return None
    try:
        return parse("\n".join(lines[lines.index(begin) + 1:lines.index(end)]) + "\n")
    except Exception:  # noqa: BLE001 - any parse failure is a failed check
        return None


def key_rows(lines):
    """KEY-bio's rows: count, min and end-kstack frames."""
    rows, row = [], None
    for l in lines:
        if l.startswith("@@KEY row "):
            f = l.split()
            row = {"count": int(f[f.index("count") + 1]),
                   "min": int(f[f.index("min") + 1]), "frames": []}
            rows.append(row)
        elif l.startswith("@@KEY \t\t") and row:
            row["frames"].append(l[len("@@KEY "):].split()[0])
        elif l.startswith("@@KEY ") and not l.startswith("@@KEY \t"):
            row = None
    return rows


def main():
    console, rc = sys.argv[1], sys.argv[2]
    with open(console, errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f]
    passed = failed = 0

    def check(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: %s" % (what, detail))

    check(rc == "0", "rootfs guest runs, clean console", "exit status %s (see %s)" % (rc, console))
    fails = [l for l in lines if l.startswith("@@FAIL")]
    # bpftrace 0.17 that never exits after SIGINT is killed (bt_stop):
    # its figures were printed before.
    hung = any(l.startswith("@@BT hung") for l in lines)
    check(not fails and ("@@BT rc=0" in lines or hung),
          "null_blk loads, bpftrace attaches, sees the marker, prints its figures and exits "
          "0 (or hangs after SIGINT and is killed)",
          str(fails + [l for l in lines if l.startswith(("@@BT rc", "@@BT hung"))]))
    dev = [int(l.split()[2]) for l in lines if l.startswith("@@DEV writes ")]
    check(dev == [WRITES], "the device completed the %d writes (sysfs stat)" % WRITES, str(dev))

    # The README's trace: every disk's requests.
    bio = node_between(lines, "@@KS-BEGIN", "@@KS-END")
    check(bio is not None and bio.summary.samples >= WRITES and bio.summary.missed == 0,
          "kstats bio: the writes and the other disks' requests, none missed",
          str(bio and bio.summary))
    null = [r for r in key_rows(lines)
            if any(fr.startswith("null_cmd_timer_expired") for fr in r["frames"])]
    check(len(null) == 1 and null[0]["count"] == WRITES and null[0]["min"] >= DELAY_NS,
          "kstats bio: null_blk's completion row holds one sample per write the device "
          "completed, each at least %d ns" % DELAY_NS, str(null))
    listed = [l for l in lines if l.startswith("@@LIST ")]
    check(listed and " match arg0,arg0 " in listed[0] and " method tracepoint " in listed[0],
          "the listing shows the matched tracepoint pair", str(listed))

    # nullb0's requests, by bpftrace: its count, p50 and p99 buckets.
    bt_ios = [int(l.split()[2]) for l in lines if l.startswith("@@BTOUT @ios: ")]
    bt = {}
    for l in lines:
        m = re.match(r"@@BTOUT \[(\d+)([KMG]?), *(\d+)([KMG]?)\) +(\d+) ", l)
        if m:
            bt[int(m.group(1)) * UNITS[m.group(2)]] = int(m.group(5))
    # A BPF program is skipped, uncounted, when it fires while another
    # runs on the CPU (bpf_prog_active): bpftrace may lose a few.
    check(bt_ios and WRITES * 99 // 100 <= bt_ios[-1] <= WRITES,
          "bpftrace counts nullb0's writes, but for at most 1 %% it lost", str(bt_ios))

    def bucket_of(q):
        """The low end of bpftrace's power-of-two bucket holding quantile q."""
        n, seen = sum(bt.values()), 0
        for lo in sorted(bt):
            seen += bt[lo]
            if seen * 100 >= q * n:
                return lo
        return None

    def in_bucket(value, lo, spread=0):
        """value lies in [lo, 2 lo), widened by spread buckets each way.
        kstats' slots nest inside power-of-two buckets, and its quantile
        is its slot's top or the row's max, whichever is lower: either
        way inside the bucket that holds the quantile."""
        return (value is not None and lo is not None and
                lo >> spread <= value < (2 * lo) << spread)

    key = {}
    if null:
        row = [l for l in lines if l.startswith("@@KEY row ") and
               " count %d " % null[0]["count"] in l]
        f = row[0].split() if row else []
        key = {q: int(f[f.index(q) + 1]) for q in ("p50", "p99") if q in f}
    check(bt and in_bucket(key.get("p50"), bucket_of(50)),
          "kstats' p50 of nullb0's writes lies in bpftrace's p50 bucket",
          "kstats %s bpftrace %s" % (key, sorted(bt.items())))
    check(bt and in_bucket(key.get("p99"), bucket_of(99), 1),
          "kstats' p99 of nullb0's writes lies in bpftrace's p99 bucket, or next to it",
          "kstats %s bpftrace %s" % (key, sorted(bt.items())))
    # key end-kstack:6,rq->__data_len: null_blk's completions by size.
    sizes, cur = {}, None
    for l in lines:
        if l.startswith("@@BSZ row "):
            f = l.split()
            cur = {"count": int(f[f.index("count") + 1]), "null": False}
        elif l.startswith("@@BSZ \t\t") and cur is not None:
            cur["null"] |= l[len("@@BSZ "):].strip().startswith("null_cmd_timer_expired")
        elif l.startswith("@@BSZ \trq->__data_len ") and cur is not None:
            if cur["null"]:
                n = int(l.split()[-1])
                sizes[n] = sizes.get(n, 0) + cur["count"]
            cur = None
    check(sizes == {4096: 30, 65536: 20},
          "key rq->__data_len (block_rq_issue's rq, a field by BTF): null_blk's rows of "
          "30 writes of 4096 bytes and 20 of 65536", str(sizes))
    listed = [l for l in lines if l.startswith("@@BSZLIST ")]
    check(listed and " types rq->__data_len:u32(btf)" in listed[0] and
          " missed 0 " in listed[0],
          "the listing types rq->__data_len by BTF (unsigned int), nothing missed", str(listed))
    # A module's function by its module's BTF: null_queue_rq(hctx, bd).
    bq = {}
    for l in lines:
        if l.startswith("@@BQ row "):
            f = l.split()
            n = int(f[f.index("count") + 1])
        elif l.startswith("@@BQ \tbd->rq->__data_len "):
            bq[int(l.split()[-1])] = bq.get(int(l.split()[-1]), 0) + n
    check(bq == {4096: 30, 65536: 20},
          "key bd->rq->__data_len on null_blk's null_queue_rq (the module's BTF): "
          "30 requests of 4096 bytes and 20 of 65536", str(bq))
    listed = [l for l in lines if l.startswith("@@BQLIST ")]
    check(listed and " types bd->rq->__data_len:u32(btf)" in listed[0],
          "the listing types the module's field by BTF", str(listed))
    print("@@FIGURES kstats row %s bpftrace %s" % (key, sorted(bt.items())))
    print("bio: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
