#!/usr/bin/env python3
"""guest-steps.py LOGS [N]: where the guests' own time went.

Each guest script's step() prints "@@STEP NAME UPTIME" (the guest's
/proc/uptime); a step lasts until the next one, the last until the
script's end marker. Prints the N longest steps of all the busybox
guests' consoles (LOGS/guest-SUITE-KVER.console), and per kernel the
time from power-on to the first step (the boot), so that the time table
shows what to cut inside a guest as well as which guest. Guests that
share a boot (test/lib/run-batch.sh) count that boot once.
"""
import glob
import os
import re
import sys

STEP = re.compile(r"@@STEP (\S+) ([0-9]+\.[0-9]+)\s*$")
STAMP = re.compile(r"^\[\s*([0-9]+\.[0-9]+)\]")


def steps_of(path):
    """[(step, seconds)] of one console, and its boot time (or None)."""
    marks, last = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = STEP.search(line)
            if m:
                marks.append((m.group(1), float(m.group(2))))
                continue
            m = STAMP.match(line)
            if m:
                last = float(m.group(1))
    if not marks:
        return [], None
    ends = [t for _, t in marks[1:]] + [max(last or 0.0, marks[-1][1])]
    return [(name, end - t) for (name, t), end in zip(marks, ends)], marks[0][1]


def main():
    logs = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    rows, boots = [], {}
    for path in sorted(glob.glob(os.path.join(logs, "guest-*.console"))):
        m = re.match(r"guest-(.+?)-(\d.*)\.console$", os.path.basename(path))
        if not m:
            continue
        suite, kver = m.groups()
        steps, boot = steps_of(path)
        # test/lib/run-batch.sh: the boot's console (guest-batch-NAMES-
        # KVER) counts one boot and no steps, each script's part (marked)
        # its steps and no boot.
        if suite.startswith("batch-"):
            steps = []
        else:
            with open(path, errors="replace") as f:
                if "@@BATCH-START " in f.read():
                    boot = None
        rows += [(secs, kver, suite + "/" + name) for name, secs in steps]
        if boot is not None:
            boots.setdefault(kver, []).append(boot)
    if not rows:
        return
    print("   guest steps, longest first (guest time, from each step's uptime):")
    for secs, kver, what in sorted(rows, reverse=True)[:top]:
        print("   %7.1f s  %-28s %s" % (secs, kver, what))
    print("   guest boots (uptime at the first step; guests, mean, sum):")
    for kver, b in sorted(boots.items()):
        print("   %-28s %3d  %5.1f s  %6.1f s" % (kver, len(b), sum(b) / len(b), sum(b)))


if __name__ == "__main__":
    main()
