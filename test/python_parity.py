#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parity: every node file captured under test/data/ is parsed by the C
tool (tools/kstats show --json, of all CPUs, of each CPU, per slot, and
list --json and the list text) and by the Python package (python/kstats);
every figure must agree. Keeps the two parsers from drifting apart.
Prints "parity: N passed, M failed"; exits non-zero on any failure.

    python3 test/python_parity.py [TOOL [DATA]]
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
import kstats  # noqa: E402
from kstats._fmt import list_view  # noqa: E402

passed = failed = 0


def check(what, c, p):
    global passed, failed
    if c == p:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}:\n  C:      {c}\n  Python: {p}")


def py_summary(n):
    s = n.summary
    pct = {}
    for k in kstats.PCT_KEYS:
        p = s.percentiles[k]
        pct[k] = None if p is None else {"value": p.value, "slot": p.slot,
                                          "err": p.err, "relerr": p.relerr_text}
    return {"name": s.name, "frac_bits": s.frac_bits, "state": s.state,
            "samples": s.samples, "missed": s.missed, "nmi_dropped": s.nmi_dropped,
            "min": s.min, "max": s.max, "mean": s.mean, "percentiles": pct,
            "unit": s.unit,
            "trace": None if n.trace is None else {
                "method": n.trace.method, "missed": n.trace.missed, "gone": n.trace.gone}}


def py_show(n, cpu, slots):
    d = py_summary(n)
    d["cpu"] = cpu
    d["slots"] = [{"slot": s.slot, "low": s.low, "high": s.high, "count": s.count,
                   "avg": s.avg, "p": s.p_text} for s in n.histogram(cpu)]
    d["rows"] = [{"low": a, "high": b, "count": c} for a, b, c in n.rows(cpu, slots)]
    return d


def c_json(tool, root, *args):
    out = subprocess.run([tool, "--root", root, *args], check=True,
                         capture_output=True, text=True).stdout
    # relerr and p are printed as the kernel wrote them: compare the text.
    return json.loads(out, parse_float=str)


def main():
    tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "tools/kstats")
    data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(TOP, "test/data")
    files = [f for f in sorted(glob.glob(f"{data}/*/kstats/*") +
                               glob.glob(f"{data}/*/kstats/_interval/*") +
                               glob.glob(f"{data}/*/*.stopped"))
             if os.path.isfile(f) and os.path.basename(f) != "_control"]
    if len(files) < 20:
        print(f"FAIL only {len(files)} captured files under {data}")
        print("parity: 0 passed, 1 failed")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for i, f in enumerate(files):
            root = os.path.join(tmp, str(i))
            os.mkdir(root)
            name = "node"
            shutil.copy(f, os.path.join(root, name))
            rel = os.path.relpath(f, data)
            with open(f, encoding="ascii") as fh:
                n = kstats.parse(fh.read())
            check(f"{rel} show", c_json(tool, root, "show", "--json", name),
                  py_show(n, None, False))
            check(f"{rel} show --slots", c_json(tool, root, "show", "--json", "--slots", name),
                  py_show(n, None, True))
            for cpu in sorted({s.cpu for s in n.lines if s.cpu is not None}):
                check(f"{rel} show --cpu {cpu}",
                      c_json(tool, root, "show", "--json", "--cpu", str(cpu), name),
                      py_show(n, cpu, False))
        # Whole directories: list --json and the list text (python3 -m kstats).
        for d in sorted(glob.glob(f"{data}/*/kstats")):
            rel = os.path.relpath(d, data)
            os.environ["KSTATS_ROOT"] = d
            nodes = [m.read() for m in kstats._grouped(kstats.metrics())]
            check(f"{rel} list --json", c_json(tool, d, "list", "--json"),
                  [py_summary(n) for n in nodes])
            for unit in ("auto", "ns", "us", "ms", "s"):
                c = subprocess.run([tool, "--root", d, "list", "--unit", unit],
                                   check=True, capture_output=True, text=True)
                env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "python"))
                p = subprocess.run([sys.executable, "-m", "kstats", "--unit", unit],
                                   check=True, capture_output=True, text=True,
                                   env=env)
                check(f"{rel} list --unit {unit}", c.stdout, p.stdout)
                check(f"{rel} list --unit {unit}: the footnote (stderr)", c.stderr, p.stderr)
    print(f"parity: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
