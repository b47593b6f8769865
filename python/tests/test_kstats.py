# SPDX-License-Identifier: GPL-2.0
"""Host unit tests of the kstats package on the node files captured in
guests under test/data/ (see test/data/README). Expected figures are read
off those files by hand, or derived by hand from the README's definitions
(the derivations are in the comments), never from the package's output.

    cd python && python3 -m unittest
"""
import errno
import glob
import io
import os
import stat
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

import kstats
from kstats import __main__ as kmain

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "data")


def node(rel):
    with open(os.path.join(DATA, rel), encoding="ascii") as f:
        return kstats.parse(f.read())


def all_node_files():
    return [f for f in sorted(glob.glob(f"{DATA}/*/kstats/*") +
                              glob.glob(f"{DATA}/*/kstats/_interval/*") +
                              glob.glob(f"{DATA}/*/*.stopped"))
            if os.path.isfile(f) and os.path.basename(f) != "_control"]


class Layout(unittest.TestCase):
    def test_readme_examples(self):
        # README "Histogram layout": slot 55 holds 480..511 at frac_bits 3.
        self.assertEqual((kstats.slot_base(55, 3), kstats.slot_top(55, 3)), (480, 511))
        # 497 slots at frac_bits 3; U64_MAX in slot 495.
        self.assertEqual(kstats.n_slots(3), 497)
        self.assertEqual(kstats.slot_top(495, 3), 2**64 - 1)
        self.assertEqual(kstats.slot_base(495, 3), 15 << 60)
        # Values below 2^(frac_bits+1) have a slot each.
        for fb in range(6):
            for v in range(2 << fb):
                self.assertEqual((kstats.slot_base(v, fb), kstats.slot_top(v, fb)), (v, v))

    def test_slot_of(self):
        self.assertEqual(kstats.slot_of(480, 3), 55)
        self.assertEqual(kstats.slot_of(511, 3), 55)
        self.assertEqual(kstats.slot_of(512, 3), 56)
        self.assertEqual(kstats.slot_of(2**64 - 1, 3), 495)
        for fb in range(6):
            for s in range(kstats.n_slots(fb) - 1):
                for v in (kstats.slot_base(s, fb), kstats.slot_top(s, fb)):
                    self.assertEqual(kstats.slot_of(v, fb), s, (fb, v))
        with self.assertRaises(ValueError):
            kstats.slot_of(2**64, 3)

    def test_slots_tile_u64(self):
        for fb in range(6):
            prev = -1
            for s in range(kstats.n_slots(fb) - 1):
                self.assertEqual(kstats.slot_base(s, fb), prev + 1, (fb, s))
                prev = kstats.slot_top(s, fb)
            self.assertEqual(prev, 2**64 - 1)


class Parse612Read(unittest.TestCase):
    """6.12/kstats/read: an fprobe trace of vfs_read, all samples on CPU 1."""

    def setUp(self):
        self.n = node("6.12/kstats/read")

    def test_summary(self):
        s = self.n.summary
        self.assertEqual((s.name, s.frac_bits, s.state, s.samples, s.missed, s.nmi_dropped),
                         ("read", 3, "active", 983, 0, 0))
        self.assertEqual((s.min, s.max, s.mean, s.unit), (2978, 6682961, 53114, "ns"))
        p = s.percentiles
        self.assertEqual(p["p50"], kstats.Percentile("p50", 21793, 98, 2047, 0.099952, "0.099952"))
        self.assertEqual(p["p90"], kstats.Percentile("p90", 27346, 101, 2047, 0.076886, "0.076886"))
        self.assertEqual(p["p99"], kstats.Percentile("p99", 720896, 139, 65535, 0.090908, "0.090908"))
        self.assertEqual(p["p99.9"], kstats.Percentile("p99.9", 6682961, 164, 391505, 0.062229, "0.062229"))
        self.assertEqual(p["p99.99"].value, 6682961)
        self.assertEqual(self.n.trace, kstats.TraceInfo("fprobe", 0, False))
        self.assertEqual(self.n.nr_cpu_ids, 2)

    def test_slots(self):
        h = self.n.histogram()
        self.assertEqual(h[0], kstats.Slot(75, 2816, 3071, 1, 2978, 0.001017, "0.001017", None))
        self.assertEqual(h[-1], kstats.Slot(164, 6291456, 6815743, 1, 6682961, 1.0, "1.000000", None))
        self.assertEqual(sum(s.count for s in h), 983)
        self.assertEqual([s.count for s in self.n.histogram(1)], [s.count for s in h])
        self.assertEqual(self.n.histogram(0), [])
        # slot 98: CPUS 425 samples, avg 21363; slot 164 is 12 << 19 .. + 2^19 - 1
        s98 = [s for s in h if s.slot == 98][0]
        self.assertEqual((s98.count, s98.avg, s98.low, s98.high), (425, 21363, 20480, 22527))

    def test_rows(self):
        rows = self.n.rows()
        self.assertEqual(rows[0], (2048, 4095, 1))     # slot 75: 2^11 .. 2^12-1
        self.assertEqual(rows[-1], (4194304, 8388607, 1))
        self.assertEqual(sum(r[2] for r in rows), 983)
        self.assertEqual(self.n.rows(slots=True)[0], (2816, 3071, 1))

    def test_percentile_kernel_figures(self):
        self.assertIs(self.n.percentile(99), self.n.summary.percentiles["p99"])
        self.assertIs(self.n.percentile("99.9"), self.n.summary.percentiles["p99.9"])

    def test_percentile_computed(self):
        # p75: rank ceil(983 * 0.75) = 738. Cumulative count is 644 after
        # slot 98 (p 0.655137) and 776 after slot 99 (132 samples), so the
        # rank is the 94th of slot 99 = [22528, 24575]; estimate
        # 22528 + floor(2047 * 93 / 131) = 23981; err 2047; relerr
        # ceil(2047e6 / 22528) / 1e6 = 0.090865.
        p = self.n.percentile(75)
        self.assertEqual(p, kstats.Percentile("p75", 23981, 99, 2047, 0.090865, "0.090865"))
        # p0.1: rank 1, the lone sample of slot 75 (2816..3071), not the
        # max: at L = max(2816, min 2978) = 2978; err 3071 - 2978 = 93;
        # relerr ceil(93e6 / 2978) = 31230.
        self.assertEqual(self.n.percentile(0.1),
                         kstats.Percentile("p0.1", 2978, 75, 93, 0.03123, "0.031230"))
        # p100 is the max, in slot 164 whose H is the max.
        p = self.n.percentile(100)
        self.assertEqual((p.value, p.slot, p.err), (6682961, 164, 6682961 - 6291456))
        for bad in (0, -1, 100.5):
            with self.assertRaises(ValueError):
                self.n.percentile(bad)


class ComputedMatchesKernel(unittest.TestCase):
    def test_every_captured_percentile(self):
        """The package's own percentile computation gives the kernel's five
        figures on every captured node (two independent implementations)."""
        files = all_node_files()
        self.assertGreaterEqual(len(files), 20)
        checked = 0
        for f in files:
            with open(f, encoding="ascii") as fh:
                n = kstats.parse(fh.read())
            for k in kstats.PCT_KEYS:
                with self.subTest(file=f, key=k):
                    self.assertEqual(kstats.compute_percentile(n, k[1:]),
                                     n.summary.percentiles[k])
                    checked += 1
        self.assertEqual(checked, 5 * len(files))

    def test_counts_add_up(self):
        for f in all_node_files():
            with open(f, encoding="ascii") as fh:
                n = kstats.parse(fh.read())
            with self.subTest(file=f):
                self.assertEqual(sum(s.count for s in n.histogram()), n.summary.samples)
                cpus = {s.cpu for s in n.lines if s.cpu is not None}
                for sl in n.histogram():
                    self.assertEqual(sl.count, sum(s.count for c in cpus for s in n.histogram(c)
                                                   if s.slot == sl.slot))


class OtherNodes(unittest.TestCase):
    def test_two_cpus(self):
        # 6.12 runq: CPU 0 has 984 samples, CPU 1 115 (grep 'CPU  ' | awk).
        n = node("6.12/kstats/runq")
        self.assertEqual(n.summary.samples, 1099)
        self.assertEqual(sum(s.count for s in n.histogram(0)), 984)
        self.assertEqual(sum(s.count for s in n.histogram(1)), 115)
        self.assertEqual(n.trace.method, "tracepoint")

    def test_no_samples(self):
        n = node("6.12/kstats/idle")
        s = n.summary
        self.assertEqual((s.frac_bits, s.samples, s.min, s.max, s.mean), (0, 0, None, None, None))
        self.assertEqual(s.percentiles, dict.fromkeys(kstats.PCT_KEYS))
        self.assertIsNone(n.percentile(75))
        self.assertEqual((n.lines, n.rows()), ([], []))

    def test_stopped_frac_bits_5(self):
        s = node("6.1/read5.stopped").summary
        self.assertEqual((s.state, s.frac_bits, s.samples, s.min, s.max, s.mean),
                         ("stopped", 5, 1010, 3006, 8218815, 51440))
        self.assertEqual((s.percentiles["p50"].value, s.percentiles["p50"].slot,
                          s.percentiles["p50"].err), (17139, 321, 511))

    def test_client_metric_has_no_trace(self):
        n = node("6.1/kstats/demo_hrtimer_late")
        self.assertIsNone(n.trace)
        self.assertEqual((n.summary.samples, n.summary.min, n.summary.max), (1180, 4884, 6792977))

    def test_refused_texts(self):
        with open(os.path.join(DATA, "6.12/kstats/read"), encoding="ascii") as f:
            good = f.read()
        for bad in ("", "hello\n", good.replace("# unit ns\n", ""),
                    good.replace("# frac_bits 3", "# frac_bits 6"),
                    good.replace("# min 2978", "# min x"),
                    good + "slot 497 CPUS 2 count 1 avg 1 p 1.000000\n",
                    good.replace("# state active", "# state on")):
            with self.assertRaises(kstats.ParseError):
                kstats.parse(bad)
        # Keys added later, and other '#' lines, are skipped.
        n = kstats.parse(good.replace("# unit ns\n", "# unit ns\n# newkey 5\n# a\n"))
        self.assertEqual(n.summary.samples, 983)


class Directory(unittest.TestCase):
    """KSTATS_ROOT pointing at a captured directory."""

    def setUp(self):
        self.env = mock.patch.dict(os.environ, {"KSTATS_ROOT": os.path.join(DATA, "6.1/kstats")})
        self.env.start()

    def tearDown(self):
        self.env.stop()

    def test_metrics(self):
        self.assertEqual([m.name for m in kstats.metrics()],
                         ["GAP-read", "GAP-runq", "demo_hrtimer_late", "idle", "read",
                          "read5", "runq"])
        self.assertEqual(kstats.metric("read5").summary().frac_bits, 5)
        self.assertEqual(kstats.metric("read").percentile(99).value,
                         node("6.1/kstats/read").summary.percentiles["p99"].value)

    def test_missing_and_bad_names(self):
        for name, err in (("nope", errno.ENOENT), ("_control", errno.EINVAL),
                          ("a/b", errno.EINVAL), ("", errno.EINVAL)):
            with self.assertRaises(kstats.KstatsError) as cm:
                kstats.metric(name)
            self.assertIsInstance(cm.exception, OSError)
            self.assertEqual(cm.exception.errno, err)

    def test_snapshot(self):
        # _interval/read of 6.1 holds 493 samples (489 + 4), unlike the node's 984.
        snap = kstats.metric("read").snapshot()
        self.assertEqual((snap.summary.name, snap.summary.samples), ("read", 493))
        # summary() as on a metric or trace, the attribute as before.
        self.assertIs(snap.summary(), snap.summary)
        m = kstats.metric("read")
        self.assertEqual(type(m.snapshot().summary()), type(m.summary()))

    def test_traces_comm_plain(self):
        # traces()'s comm as keys() gives one, the listing's word beside it.
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "_control"), "w", encoding="ascii") as f:
                f.write("cb method fprobe bits 3 start vfs_read end - comm my\\040prog\\134x\n"
                        "rd method fprobe bits 3 start vfs_read end -\n")
            with mock.patch.dict(os.environ, {"KSTATS_ROOT": d, "KSTATS_DEV": d + "/nodev"}):
                t = kstats.traces()
        self.assertEqual((t[0]["comm"], t[0]["comm_escaped"]), ("my prog\\x", "my\\040prog\\134x"))
        self.assertNotIn("comm", t[1])

    def test_traces(self):
        t = kstats.traces()
        self.assertEqual([d["name"] for d in t], ["read", "runq", "read5", "idle"])
        self.assertEqual((t[2]["method"], t[2]["bits"], t[2]["memory"], t[2]["gone"]),
                         ("kretprobe", 5, 130080, False))
        self.assertEqual(t[1]["end"], "__tracepoint_sched_switch")
        self.assertEqual(t[0]["end"], "-")

    def test_main_list(self):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            self.assertEqual(kmain.main(["--unit", "ns"]), 0)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "SAMPLES", "P50", "P99", "MAX", "TRACE"])
        # The table alone on stdout, for scripts; the footnote on stderr.
        table = lines
        names = [ln.split()[0] for ln in table[1:]]
        # A trace's GAP- node right after it, as kstats list orders them.
        self.assertEqual(names, ["demo_hrtimer_late", "idle", "read", "GAP-read", "read5",
                                 "runq", "GAP-runq"])
        runq = node("6.1/kstats/runq").summary
        # --unit ns keeps the unit on every figure.
        self.assertEqual(lines[6].split(), ["runq", "1044", f'{runq.percentiles["p50"].value}ns',
                                            f'{runq.percentiles["p99"].value}ns', f"{runq.max}ns",
                                            "tracepoint", "missed", "0"])
        # A GAP- node says whose it is; the footnote explains GAP once.
        self.assertEqual(lines[4].split()[-3:], ["gap", "of", "read"])
        self.assertEqual(err.getvalue().splitlines(), [
            "", "GAP-NAME: the time from the end of one call of trace NAME to the start of",
            "  the next on the same CPU (kstats trace NAME ... gap off leaves it out)."])

    def test_missing_root(self):
        with mock.patch.dict(os.environ, {"KSTATS_ROOT": "/nonexistent/kstats"}):
            with self.assertRaises(kstats.KstatsError) as cm:
                kstats.metrics()
            self.assertEqual(cm.exception.errno, errno.ENOENT)


def key_text(name):
    with open(os.path.join(DATA, "keys", name), "rb") as f:
        return f.read()


class Keys(unittest.TestCase):
    """KEY-NAME (test/data/keys, see its README): parse_keys() and
    Metric.keys(); the figures are read off the fixtures by hand."""

    STATS = ("total", "count", "avg", "p50", "p99", "min", "max")

    def test_kstack(self):
        rows = kstats.parse_keys(key_text("KEY-1"))
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows[0], {
            "total": 2572270, "count": 5, "avg": 514454, "p50": 32767, "p99": 2398376,
            "min": 19269, "max": 2398376,
            "kstack": ["kst_target_delay+0x9/0x40 [kstats_test_target]",
                       "kst_path_1+0xe/0x20 [kstats_test_target]",
                       "kst_write+0x500/0x970 [kstats_test_target]",
                       "full_proxy_write+0x57/0x80", "vfs_write+0xf8/0x450",
                       "ksys_write+0x6f/0xf0"]})
        self.assertEqual([r["total"] for r in rows], [2572270, 212011, 120694])
        self.assertEqual([r["count"] for r in rows], [5, 3, 1])
        self.assertEqual(rows[2]["kstack"][-1], "do_syscall_64+0x87/0x1b0")
        # A str parses as the bytes do.
        self.assertEqual(kstats.parse_keys(key_text("KEY-1").decode()), rows)

    def test_cgroup_parts(self):
        rows = kstats.parse_keys(key_text("KEY-cgroup"))
        self.assertEqual([(r["cgroup"], r["comm"], r["waker-cgroup"], r["count"]) for r in rows],
                         [("/system.slice/ssh.service", "sshd", "/", 2),
                          ("/a b;c (gone)", "kst", "/a b;c (gone)", 3),
                          ("[id:4242] (gone)", "kst", "[id:1]", 1)])

    def test_kstack_comm_and_pairs(self):
        rows = kstats.parse_keys(key_text("KEY-2"))
        # The other row (6 samples) and the slowest are not rows.
        self.assertEqual([(r["total"], r["count"], r["comm"]) for r in rows],
                         [(549897, 2, "sh"), (93118, 2, "sh")])
        self.assertEqual(rows[1]["kstack"][1], "kst_path_2+0xe/0x20 [kstats_test_target]")
        self.assertEqual(sorted(rows[1]), sorted(self.STATS + ("kstack", "comm")))
        rows = kstats.parse_keys(key_text("KEY-3"))
        self.assertEqual([(r["total"], r["count"]) for r in rows],
                         [(731287, 1), (282351, 2), (70019, 4), (65523, 3)])
        self.assertEqual(rows[3]["kstack"][1], "kst_begin_site_2+0xe/0x20 [kstats_test_target]")
        self.assertEqual(rows[3]["end-kstack"], [
            "kst_section_end+0x9/0x10 [kstats_test_target]",
            "kst_end_site_1+0xe/0x20 [kstats_test_target]",
            "kst_write+0x48c/0x970 [kstats_test_target]"])

    def test_user_stacks(self):
        rows = kstats.parse_keys(key_text("KEY-ustack"))
        self.assertEqual([r["count"] for r in rows], [8, 8])
        self.assertEqual(rows[0]["ustack"], [0x43c07c, 0x401722, 0x40173e, 0x40185e, 0x401c04])
        self.assertEqual((rows[0]["ustack-tgid"], rows[0]["ustack-start"], rows[0]["ustack-note"]),
                         (160, 4000000000, None))
        self.assertEqual(rows[0]["waker-ustack-start"], None)
        self.assertEqual(rows[0]["waker-ustack"], [0x43c11f, 0x40169d, 0x4016eb, 0x41852c])
        self.assertEqual((rows[1]["waker-ustack"], rows[1]["waker-ustack-tgid"],
                          rows[1]["waker-ustack-note"]), ([], None, "[interrupt]"))
        self.assertEqual(rows[1]["kstack"][2], "do_nanosleep+0x7a/0x130")
        bad = key_text("KEY-ustack").replace(b"\t\t0x43c07c", b"\t\tmain+0x1", 1)
        with self.assertRaises(kstats.ParseError):
            kstats.parse_keys(bad)

    def test_waker_chain(self):
        rows = kstats.parse_keys(key_text("KEY-chain"))
        self.assertEqual([r["count"] for r in rows], [2, 1, 1])
        self.assertEqual(rows[0]["waker-chain"], [
            {"comm": "dd", "pid": 77, "blocked_ns": 12000,
             "kstack": ["try_to_wake_up+0x4b/0x5a0", "pipe_write+0x1c2/0x6a0"]},
            {"comm": "kworker/u4:1", "pid": 12, "blocked_ns": 9000,
             "kstack": ["try_to_wake_up+0x4b/0x5a0", "blk_mq_end_request+0x10/0x20"]},
            {"marker": "[interrupt]", "blocked_ns": 0,
             "kstack": ["try_to_wake_up+0x4b/0x5a0", "hrtimer_wakeup+0x1e/0x30"]}])
        self.assertEqual(rows[1]["waker-chain"][0]["comm"], "my task;x")
        # A waker with no record: its time not known, no blocked-ns.
        self.assertIsNone(rows[1]["waker-chain"][0]["blocked_ns"])
        self.assertEqual(rows[1]["waker-chain"][1],
                         {"marker": "[running]", "blocked_ns": 0, "kstack": []})
        self.assertEqual(rows[2]["waker-chain"][1],
                         {"marker": "[kernel thread]", "blocked_ns": 0, "kstack": []})
        self.assertEqual(rows[0]["kstack"][2], "pipe_read+0x30f/0x430")
        text = key_text("KEY-chain")
        # Off the format: a bad marker, a level skipped or first not 1, a
        # level after the chain's end, no L on a row's level.
        for old, new in ((b"\twaker-chain 2 [running]", b"\twaker-chain 2 running"),
                         (b"\twaker-chain 2 comm kworker", b"\twaker-chain 3 comm kworker"),
                         (b"\twaker-chain 1 comm dd", b"\twaker-chain 2 comm dd"),
                         (b"\twaker-chain 2 [running]",
                          b"\twaker-chain 2 [running]\n\twaker-chain 3 [running]"),
                         (b"\twaker-chain 2 [kernel thread]", b"\twaker-chain [not captured]")):
            bad = text.replace(old, new, 1)
            self.assertNotEqual(bad, text)
            with self.assertRaises(kstats.ParseError, msg=new):
                kstats.parse_keys(bad)

    def test_parts_and_escapes(self):
        rows = kstats.parse_keys(key_text("KEY-parts"))
        self.assertEqual([{k: r[k] for k in ("cpu", "comm", "tgid", "pid")} for r in rows],
                         [{"cpu": 1, "comm": "my task;x", "tgid": 200, "pid": 201},
                          {"cpu": 0, "comm": "a\\b\tc", "tgid": 1, "pid": 1}])
        self.assertEqual(rows[1]["end-kstack"], ["__schedule+0x5bc/0xbf0",
                                                 "my_fn.cold+0x1a/0x2f [my_mod]"])
        self.assertNotIn("kstack", rows[0])

    def test_value_parts(self):
        rows = kstats.parse_keys(key_text("KEY-ret"))
        self.assertEqual([(r["comm"], r["ret"], r["count"]) for r in rows],
                         [("sh", -11, 25), ("sh", -2, 25)])
        rows = kstats.parse_keys(key_text("KEY-log2"))
        self.assertEqual(len(rows), 9)
        self.assertEqual((rows[0]["arg1:log2"], rows[1]["arg1:log2"]),
                         ((0, 1), (65536, 131072)))
        self.assertEqual(sum(r["count"] for r in rows), 100)
        # A typed log2 key: the header says ret:s32:log2, the rows ret:log2.
        typed = (b"# key ret:s32:log2 keys 256 rows 2 other 0 stacks 0 slowest 0 skipped 0 unit ns\n"
                 b"row total 30 count 2 avg 15 p50 15 p99 15 min 10 max 20\n"
                 b"\tret:log2 [-2147483648, 0)\n"
                 b"row total 5 count 1 avg 5 p50 5 p99 5 min 5 max 5\n"
                 b"\tret:log2 [4, 8)\n"
                 b"other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n")
        self.assertEqual([r["ret:log2"] for r in kstats.parse_keys(typed)],
                         [(-2147483648, 0), (4, 8)])
        # A parameter by name and a field through a pointer (BTF).
        named = (b"# key comm,fwnode->secondary->flags:log2 keys 256 rows 1 other 0 stacks 0"
                 b" slowest 0 skipped 0 unit ns\n"
                 b"row total 30 count 2 avg 15 p50 15 p99 15 min 10 max 20\n"
                 b"\tcomm sh\n\tfwnode->secondary->flags:log2 [4, 8)\n"
                 b"other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n")
        self.assertEqual([(r["comm"], r["fwnode->secondary->flags:log2"])
                          for r in kstats.parse_keys(named)], [("sh", (4, 8))])
        bad = key_text("KEY-ret").replace(b"ret -2", b"ret x")
        with self.assertRaises(kstats.ParseError):
            kstats.parse_keys(bad)

    def test_no_key_and_refusals(self):
        self.assertEqual(kstats.parse_keys(key_text("KEY-nokey")), [])
        for cut in ("KEY-4", "KEY-5"):         # cut by head
            with self.subTest(cut=cut), self.assertRaises(kstats.ParseError):
                kstats.parse_keys(key_text(cut))
        other = "other total 0 count 0 avg 0 p50 0 p99 0 min 0 max 0\n"
        row = "row total 1 count 1 avg 1 p50 1 p99 1 min 1 max 1\n"
        # "stack" would be a parameter's name (a value part): 9stack is no word.
        for bad in ("", "# name read\n", "# key 9stack keys 1 rows 0\n" + other,
                    "# key comm,comm keys 1 rows 0\n" + other,
                    "# key comm keys 1 rows 1\n" + row + other,
                    "# key comm,pid keys 1 rows 1\n" + row + "\tpid 1\n\tcomm sh\n" + other,
                    "# key comm keys 1 rows 1\n" + row + "\tcomm sh\n\t\tf+0x1/0x2\n" + other,
                    "# key pid keys 1 rows 1\n" + row + "\tpid x\n" + other,
                    "# key pid keys 1 rows 1\nrow total 1 avg 1 p50 1 p99 1 min 1 max 1\n"
                    "\tpid 1\n" + other,
                    "# key pid keys 1 rows 1\n" + row + "\tpid 1\n"):      # no other line
            with self.subTest(bad=bad), self.assertRaises(kstats.ParseError):
                kstats.parse_keys(bad)

    def test_metric_keys_and_listing(self):
        # A root of links to the captured nodes: read with its KEY-read,
        # idle (a trace without KEY-NAME), and KEY-nokey beside no node.
        with tempfile.TemporaryDirectory() as d:
            for name, target in (("read", "6.12/kstats/read"), ("idle", "6.12/kstats/idle"),
                                 ("KEY-read", "keys/KEY-2"), ("KEY-nokey", "keys/KEY-nokey")):
                os.symlink(os.path.abspath(os.path.join(DATA, target)), os.path.join(d, name))
            with mock.patch.dict(os.environ, {"KSTATS_ROOT": d}):
                self.assertEqual([m.name for m in kstats.metrics()], ["idle", "read"])
                self.assertEqual([r["total"] for r in kstats.metric("read").keys()],
                                 [549897, 93118])
                self.assertEqual(kstats.metric("idle").keys(), [])
                self.assertEqual(kstats.Metric("nokey").keys(), [])
                with self.assertRaises(kstats.KstatsError) as cm:
                    kstats.metric("KEY-read")
                self.assertEqual(cm.exception.errno, errno.EINVAL)
                out = io.StringIO()
                with redirect_stdout(out):
                    self.assertEqual(kmain.main([]), 0)
                self.assertNotIn("KEY", out.getvalue())
                self.assertEqual(len(out.getvalue().splitlines()), 3)


class Control(unittest.TestCase):
    """trace(): the _control lines written, refusals before writing."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        # No device: an older module's _control and nodes.
        self.env = mock.patch.dict(os.environ, {"KSTATS_ROOT": self.tmp.name,
                                                "KSTATS_DEV": self.tmp.name + "/nodev"})
        self.env.start()
        self.writes = []
        self.w = mock.patch("kstats._write", lambda p, line, to_dev=False: self.writes.append(
            (os.path.basename(p), line)))

    def tearDown(self):
        self.env.stop()
        self.tmp.cleanup()

    def test_with_removes_even_on_exception(self):
        with self.w:
            with self.assertRaises(RuntimeError):
                with kstats.trace("t1", start="kst_a", end="kst_b", bits=5,
                                  method="kprobe", maxactive=8) as t:
                    self.assertEqual(t.gap.name, "GAP-t1")
                    raise RuntimeError("inside")
        self.assertEqual(self.writes, [
            ("_control", "trace t1 bits 5 start kst_a end kst_b method kprobe maxactive 8\n"),
            ("_control", "remove t1\n")])

    def test_defaults_and_node_words(self):
        with self.w:
            with kstats.trace("rd", start="vfs_read") as t:
                t.reset()
                t.stop()
                t.start()
                self.assertEqual(t.keys(), [])
        self.assertEqual(self.writes, [("_control", "trace rd bits 3 start vfs_read\n"),
                                       ("rd", "reset\n"), ("rd", "stop\n"), ("rd", "start\n"),
                                       ("_control", "remove rd\n")])

    def test_refused_in_python(self):
        for kw in ({"filter": "pid==1"}, {"key": "kstack comm"}, {"bits": 6}, {"start": "a b"},
                   {"method": "uprobe"}, {"start": ""}, {"offcpu": "yes"},
                   {"offcpu": True, "min_ns": True}, {"offcpu": True, "max_ns": "5"}):
            with self.subTest(kw=kw), self.w:
                with self.assertRaises(kstats.KstatsError) as cm:
                    kstats.trace("x", **kw)
                self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertEqual(self.writes, [])
        with self.assertRaises(kstats.KstatsError) as cm:
            kstats.trace("x", start="f", color=1)
        self.assertIn("color", str(cm.exception))

    def test_keys_and_filters_words(self):
        with self.w:
            kstats.trace("rd", start="vfs_read", key=["kstack:8", "comm"], keys=64,
                         slowest=4, pid=7, tgid=7, comm="dd", cpu=1)
            kstats.trace("rq", start="sched:sched_wakeup", end="sched:sched_switch",
                         key="comm")
        self.assertEqual(self.writes, [
            ("_control", "trace rd bits 3 start vfs_read key kstack:8,comm keys 64 "
             "slowest 4 pid 7 tgid 7 comm dd cpu 1\n"),
            ("_control", "trace rq bits 3 start sched:sched_wakeup end sched:sched_switch "
             "key comm\n")])

    def test_cgroup_words(self):
        with self.w:
            kstats.trace("rq", start="sched:sched_wakeup", end="sched:sched_switch",
                         key="cgroup", cgroup="/sys/fs/cgroup/my slice")
            kstats.trace("off", offcpu=True, key="cgroup,waker-cgroup", cgroup="/a")
        self.assertEqual(self.writes, [
            ("_control", "trace rq bits 3 start sched:sched_wakeup end sched:sched_switch "
             "key cgroup cgroup /sys/fs/cgroup/my\\040slice\n"),
            ("_control", "trace off offcpu bits 3 key cgroup,waker-cgroup cgroup /a\n")])

    def test_offcpu_and_comm_words(self):
        with self.w:
            kstats.trace("off", offcpu=True, state="D", min_ns=1000, max_ns=2000,
                         tasks="user", key=["kstack", "waker-kstack"], comm="my prog\\")
        self.assertEqual(self.writes, [
            ("_control", "trace off offcpu bits 3 key kstack,waker-kstack comm my\\040prog\\134 "
             "state D min 1000 max 2000 tasks user\n")])

    def test_match_and_where_words(self):
        with self.w:
            kstats.trace("bio", start="block:block_rq_issue", end="block:block_rq_complete",
                         match="arg0", expire_ns=5000000000)
            kstats.trace("rdfail", start="vfs_read", where=["ret<0", "arg2>=65536"])
            kstats.trace("one", start="vfs_read", where="ret:s32<0")
        self.assertEqual(self.writes, [
            ("_control", "trace bio bits 3 start block:block_rq_issue end block:block_rq_complete "
             "match arg0 expire 5000000000\n"),
            ("_control", "trace rdfail bits 3 start vfs_read if ret<0 if arg2>=65536\n"),
            ("_control", "trace one bits 3 start vfs_read if ret:s32<0\n")])
        with self.assertRaises(kstats.KstatsError):
            kstats.trace("x", start="vfs_read", where="ret < 0")
        with self.assertRaises(kstats.KstatsError):
            kstats.trace("x", start="a", end="b", match="arg0", expire_ns="5")
        with self.assertRaises(kstats.KstatsError):
            kstats.trace("x", start="vfs_read", where=5)
        with self.w:
            kstats.trace("wq", start="a:b", end="c:d", match=["arg2", "arg0"])
        self.assertEqual(self.writes[-1],
                         ("_control", "trace wq bits 3 start a:b end c:d match arg2,arg0\n"))

    def test_captured_root_is_never_written(self):
        # KSTATS_ROOT of captured files (not debugfs): EROFS, file unchanged.
        c = os.path.join(self.tmp.name, "_control")
        with open(c, "w") as f:
            f.write("captured\n")
        with self.assertRaises(kstats.KstatsError) as cm:
            kstats.trace("rd", start="vfs_read")
        self.assertEqual(cm.exception.errno, errno.EROFS)
        with open(c) as f:
            self.assertEqual(f.read(), "captured\n")

    @mock.patch("kstats._fstype", lambda path: "debugfs")
    def test_kernel_refusal_carries_errno_and_line(self):
        # A _control that cannot be written: the OSError's errno comes through.
        os.mkdir(os.path.join(self.tmp.name, "_control"))
        with self.assertRaises(kstats.KstatsError) as cm:
            kstats.trace("rd", start="vfs_read")
        self.assertEqual(cm.exception.errno, errno.EISDIR)
        self.assertEqual(cm.exception.line, "trace rd bits 3 start vfs_read")

    @mock.patch("kstats._fstype", lambda path: "debugfs")
    def test_real_write(self):
        # A FIFO-free check of _write: a regular file receives the line in one write.
        c = os.path.join(self.tmp.name, "_control")
        open(c, "w").close()
        # keep: no remove at exit, when KSTATS_DEV no longer names a stand-in.
        t = kstats.trace("rd", start="vfs_read", keep=True)
        with open(c) as f:
            self.assertEqual(f.read(), "trace rd bits 3 start vfs_read\n")
        self.assertFalse(t.removed)
        self.assertEqual(stat.S_IFMT(os.stat(c).st_mode), stat.S_IFREG)


class Device(unittest.TestCase):
    """Commands go to the device whenever it exists (a regular file stands
    in for it here): the exact bytes of each one write; its listing."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dev = os.path.join(self.tmp.name, "dev")
        # The root is captured files, never written: everything goes to dev.
        self.env = mock.patch.dict(os.environ, {"KSTATS_ROOT": self.tmp.name,
                                                "KSTATS_DEV": self.dev})
        self.env.start()
        open(self.dev, "w").close()

    def tearDown(self):
        self.env.stop()
        self.tmp.cleanup()

    def written(self):
        with open(self.dev, encoding="ascii") as f:
            data = f.read()
        open(self.dev, "w").close()
        return data

    def test_default_and_override(self):
        self.assertEqual(kstats.device(), self.dev)
        with mock.patch.dict(os.environ, {"KSTATS_DEV": ""}):
            self.assertEqual(kstats.device(), "/dev/kstats")

    def test_commands_bytes(self):
        t = kstats.trace("rd", start="vfs_read", key="kstack:4,comm", comm="my prog", keep=True)
        self.assertEqual(self.written(),
                         "trace rd bits 3 start vfs_read key kstack:4,comm comm my\\040prog\n")
        # Each write lands at the file's start: one command at a time.
        for word, call in (("reset", t.reset), ("stop", t.stop), ("start", t.start)):
            call()
            self.assertEqual(self.written(), f"{word} rd\n")
        t.gap.reset()
        self.assertEqual(self.written(), "reset GAP-rd\n")
        kstats.Metric("client.m").stop()
        self.assertEqual(self.written(), "stop client.m\n")
        t.remove()
        self.assertEqual(self.written(), "remove rd\n")
        self.assertTrue(t.removed)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "_control")))

    def test_listing_from_device(self):
        with open(self.dev, "w") as f:
            f.write("rd method kretprobe bits 3 start vfs_read end - missed 2\n")
        with open(os.path.join(self.tmp.name, "_control"), "w") as f:
            f.write("other method kprobe\n")
        self.assertEqual([(d["name"], d["missed"]) for d in kstats.traces()], [("rd", 2)])

    def test_device_errors_are_not_retried(self):
        # A device that refuses (a directory here: EISDIR): its errno, no _control.
        os.unlink(self.dev)
        os.mkdir(self.dev)
        with self.assertRaises(kstats.KstatsError) as cm:
            kstats.trace("rd", start="vfs_read")
        self.assertEqual(cm.exception.errno, errno.EISDIR)
        self.assertEqual(cm.exception.filename, self.dev)
        self.assertEqual(cm.exception.line, "trace rd bits 3 start vfs_read")

    def test_without_device(self):
        # An older module: _control (refused here, as captured files: EROFS).
        os.unlink(self.dev)
        with self.assertRaises(kstats.KstatsError) as cm:
            kstats.trace("rd", start="vfs_read")
        self.assertEqual(cm.exception.errno, errno.EROFS)
        self.assertEqual(cm.exception.filename, os.path.join(self.tmp.name, "_control"))
        with self.assertRaises(kstats.KstatsError) as cm:
            kstats.Metric("rd").reset()
        self.assertEqual(cm.exception.filename, os.path.join(self.tmp.name, "rd"))


class Lockdown(unittest.TestCase):
    """A refusal by kernel lockdown says so."""

    def test_parse(self):
        self.assertIsNone(kstats._lockdown_parse("[none] integrity confidentiality\n"))
        self.assertIsNone(kstats._lockdown_parse(""))
        self.assertEqual(kstats._lockdown_parse("none [integrity] confidentiality\n"), "integrity")
        self.assertEqual(kstats._lockdown_parse("none integrity [confidentiality]\n"),
                         "confidentiality")

    def eperm_on(self, path, mode, func):
        def refuse(*args, **kw):
            raise PermissionError(errno.EPERM, "Operation not permitted")
        with mock.patch("kstats._fstype", lambda p: "debugfs"), \
                mock.patch("kstats._lockdown_mode", lambda: mode), \
                mock.patch("os.open", refuse):
            with self.assertRaises(kstats.KstatsError) as cm:
                func()
        self.assertEqual(cm.exception.errno, errno.EPERM)
        self.assertEqual(cm.exception.filename, path)
        return str(cm.exception)

    def test_messages(self):
        with tempfile.TemporaryDirectory() as d:
            dev = os.path.join(d, "dev")
            with mock.patch.dict(os.environ, {"KSTATS_ROOT": d, "KSTATS_DEV": dev}):
                # No device: debugfs refuses writable files under integrity.
                msg = self.eperm_on(os.path.join(d, "rd"), "integrity",
                                    lambda: kstats.Metric("rd").reset())
                self.assertIn("Operation not permitted: the kernel is locked down (integrity), "
                              "which refuses writable debugfs files; this kstats module has no "
                              f"{dev} (upgrade kstats-dkms)", msg)
                msg = self.eperm_on(os.path.join(d, "_control"), None,
                                    lambda: kstats.trace("rd", start="vfs_read", keep=True))
                self.assertNotIn("locked down", msg)
                # The device: confidentiality attaches no probes.
                open(dev, "w").close()
                msg = self.eperm_on(dev, "confidentiality",
                                    lambda: kstats.trace("rd", start="vfs_read", keep=True))
                self.assertIn("Operation not permitted: the kernel is locked down "
                              "(confidentiality), where kstats attaches no probes", msg)


if __name__ == "__main__":
    unittest.main()
