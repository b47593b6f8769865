# SPDX-License-Identifier: GPL-2.0
"""python3 -m kstats [--unit ns|us|ms|s|auto]: the C tool's `list` view."""
from __future__ import annotations

import argparse
import errno
import sys

from . import KstatsError, ParseError, _grouped, metrics
from ._fmt import list_view


def main(argv: list[str] | None = None) -> int:
    """Print the list view (its footnote on stderr, as the tool does);
    exit 0, or 1 with the error on stderr."""
    ap = argparse.ArgumentParser(prog="python3 -m kstats",
                                 description="List kstats metrics (as `kstats list`).")
    ap.add_argument("--unit", default="auto", choices=("ns", "us", "ms", "s", "auto"))
    a = ap.parse_args(argv)
    try:
        nodes = []
        for m in _grouped(metrics()):
            try:
                nodes.append(m.read())
            except KstatsError as e:
                if e.errno != errno.ENOENT:     # removed since the listing
                    raise
    except (KstatsError, ParseError) as e:
        print(f"kstats: {e}", file=sys.stderr)
        return 1
    table, notes = list_view(nodes, a.unit)
    sys.stdout.write(table)
    sys.stdout.flush()
    sys.stderr.write(notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
