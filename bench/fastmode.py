#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fast-mode figures from the consoles of bench/floor.sh and
bench/table.sh: the lowest p50 over the rounds of each configuration.

Under TCG here the guest runs each round at one of two speeds about 2x
apart (untraced getpid() p50 about 600 or 1100 ns), at -smp 1 as at
-smp 2, for a cause not found; a median over rounds then mixes the modes
and can even put a traced figure below its empty-hook floor. The lowest
p50 of each configuration is its fast-mode figure, comparable across
configurations of one run when each has at least one fast round. Each
figure is followed by its fast rounds: how many of the configuration's
rounds lie within 15% of its lowest p50 ([k/n]). A configuration with
k = n may never have left the slow mode; read such a figure as an upper
bound.

  bench/fastmode.py [--report KVER] CONSOLE...

With --report, the figures are printed as bench/bench.sh's report lines,
"KVER:fast.NAME VALUE UNIT", instead.
"""
import re
import sys


def fast(v):
    """The rounds within 15% of the lowest p50 and the boots they came
    from, as "[k/n]" or, over several boots, "[k/n in b/B boots]"."""
    low = min(x for x, _ in v) * 1.15
    boots = set(b for _, b in v)
    text = "%d/%d" % (sum(x <= low for x, _ in v), len(v))
    if len(boots) > 1:
        text += " in %d/%d boots" % (len(set(b for x, b in v if x <= low)), len(boots))
    return "[%s]" % text


def low(v):
    return min(x for x, _ in v)


def main(paths, kver=None):
    def out(text, name=None, value=None, unit="ratio"):
        if kver is None:
            if text:
                print(text)
        elif name:
            print("%s:fast.%s %.3g %s" % (kver, name, value, unit))

    for path in paths:
        t, boot = {}, 0
        for line in open(path, errors="replace"):
            m = re.search(r"^@@BOOT (\d+)", line)
            if m:
                boot = int(m.group(1))
                continue
            m = re.search(r"^@@F (\S+)-(\S+) getpid_p90 (\d+) p50 (\d+)", line)
            if m:
                t.setdefault(m.group(2), {}).setdefault(m.group(1), []).append((int(m.group(4)), boot))
                continue
            m = re.search(r"^@@T (\S+) (\S+) \S+ \d+ p50 (\d+) p90 (\d+)", line)
            if m:
                t.setdefault(m.group(1), {}).setdefault(m.group(2), []).append((int(m.group(3)), boot))
        out("== " + path.split("/")[-1])
        # The floors' base rounds, of every method, time the same untraced call.
        floor_bases = [y for d in t.values() if "floor" in d for y in d.get("base", [])]
        for what, d in t.items():
            if "floor" in d:
                b, f = low(floor_bases), low(d["floor"])
                s = low(d["kstats"]) if "kstats" in d else 0
                out("  floor %-10s base %5d %s floor %5d %s kstats %5d %s  floor %.2fx kstats %.2fx"
                    " kstats_share_of_hook %.2f" % (
                        what, b, fast(floor_bases), f, fast(d["floor"]), s,
                        fast(d.get("kstats", [(0, 0)])), f / b, s / b, (s - f) / (f - b)))
                out("", "floor.%s.floor_vs_base" % what, f / b)
                out("", "floor.%s.kstats_vs_base" % what, s / b)
                out("", "floor.%s.kstats_share_of_hook" % what, (s - f) / (f - b), "share")
            else:
                b = min(low(v) for n, v in d.items() if n.startswith("base-"))
                bases = [x for n, v in d.items() if n.startswith("base-") for x in v]
                out("  %-8s fast base p50 %d ns %s: " % (what, b, fast(bases)) + ", ".join(
                    "%s %.2fx %s" % (n, low(v) / b, fast(v))
                    for n, v in d.items() if not n.startswith("base-")))
                for n, v in d.items():
                    if not n.startswith("base-"):
                        out("", "table.%s-%s.p50_vs_base" % (what, n), low(v) / b)


if __name__ == "__main__":
    args = sys.argv[1:]
    kver = None
    if args[:1] == ["--report"] and len(args) > 1:
        kver, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    main(args, kver)
