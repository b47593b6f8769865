#!/usr/bin/env python3
"""src/ points down: each file includes and calls only files below it in
the README's "Tree" section (issue 25).

Usage: test/layers.py README BUILT_TREE
BUILT_TREE is a tree test/build.sh built (out/KVER/tree): the calls are
read from its objects' symbols (nm: what each object defines and what it
uses), the includes from its sources. Prints one line per violation and
"layers: N passed, M failed".
"""
import re
import subprocess
import sys
from pathlib import Path

readme, tree = Path(sys.argv[1]), Path(sys.argv[2])
text = readme.read_text()
block = text[text.index("\nTree\n----\n") + len("\nTree\n----\n"):].lstrip("\n")
rank = {}
entries = 0
for line in block.splitlines():
    if not line.startswith("    "):
        break
    m = re.match(r"    src/(\S+)\s", line)
    if not m:
        continue
    entry = m.group(1)
    # Both files of one entry ("names.[ch]") share its rank.
    for name in ([entry[:-5] + ".c", entry[:-5] + ".h"] if entry.endswith(".[ch]") else [entry]):
        rank.setdefault(name, entries)
    entries += 1

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


# Below everything: the force-included compat header and the tests.
sources = sorted(p.name for p in (tree / "src").glob("*.[ch]"))
for name in sources:
    if name.startswith("kunit") or name == "compat.h":
        continue
    check(name in rank, "%s: not in the README's Tree" % name)

edges = 0
for name in sources:
    if name not in rank:
        continue
    for inc in re.findall(r'^#include "([^"]+)"', (tree / "src" / name).read_text(), re.M):
        if inc not in rank:
            continue
        edges += 1
        check(rank[inc] >= rank[name],
              "%s includes %s, which the Tree puts above it" % (name, inc))

defined, used = {}, {}
for obj in sorted((tree / "src").glob("*.o")):
    src = obj.stem + ".c"
    if src not in rank:
        continue
    out = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRB" and not parts[2].startswith("__"):
            defined[parts[2]] = src
        elif len(parts) == 2 and parts[0] == "U":
            used.setdefault(src, set()).add(parts[1])
for src, syms in sorted(used.items()):
    for sym in sorted(syms):
        if sym in defined and defined[sym] != src:
            edges += 1
            check(rank[defined[sym]] >= rank[src],
                  "%s uses %s of %s, which the Tree puts above it" % (src, sym, defined[sym]))
# Not vacuous: the tree has dozens of includes and calls between its files.
check(edges >= 50, "only %d includes and calls read: wrong tree?" % edges)
print("layers: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
