#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fast-mode figures from the consoles of test/bench-floor.sh and
test/bench-table.sh: the lowest p50 over the rounds of each configuration.

Under TCG here the guest runs each round at one of two speeds about 2x
apart (untraced getpid() p50 about 600 or 1100 ns), at -smp 1 as at
-smp 2, for a cause not found; a median over rounds then mixes the modes
and can even put a traced figure below its empty-hook floor. The lowest
p50 of each configuration is its fast-mode figure, comparable across
configurations of one run when each has at least one fast round.

  bench-fastmode.py out/bench-floor-KVER.console out/bench-table-KVER.console ...
"""
import re
import sys


def main(paths):
    for path in paths:
        t = {}
        for line in open(path, errors="replace"):
            m = re.search(r"^@@F (\S+)-(\S+) getpid_p90 (\d+) p50 (\d+)", line)
            if m:
                t.setdefault(m.group(2), {}).setdefault(m.group(1), []).append(int(m.group(4)))
                continue
            m = re.search(r"^@@T (\S+) (\S+) \S+ \d+ p50 (\d+) p90 (\d+)", line)
            if m:
                t.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(int(m.group(3)))
        print("==", path.split("/")[-1])
        for what, d in t.items():
            if "floor" in d:
                b, f = min(d["base"]), min(d["floor"])
                s = min(d["kstats"]) if "kstats" in d else 0
                print("  floor %-10s base %5d floor %5d kstats %5d  floor %.2fx kstats %.2fx"
                      " kstats_share_of_hook %.2f" % (what, b, f, s, f / b, s / b, (s - f) / (f - b)))
            else:
                b = min(min(v) for n, v in d.items() if n.startswith("base-"))
                print("  %-8s fast base p50 %d ns: " % (what, b) + ", ".join(
                    "%s %.2fx" % (n, min(v) / b) for n, v in d.items() if not n.startswith("base-")))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
