# SPDX-License-Identifier: GPL-2.0
"""Text of the C tool's `kstats list` view (tools/list.c, cmd_list)."""
from __future__ import annotations

from ._node import Node

_DIV = {"ns": (1, 0), "us": (1000, 3), "ms": (1000000, 6), "s": (1000000000, 9)}


def unit_auto(ns: int) -> str:
    """The largest unit in which @ns (ns) is at least 1."""
    for u in ("s", "ms", "us"):
        if ns >= _DIV[u][0]:
            return u
    return "ns"


def fmt(ns: int, unit: str) -> str:
    """@ns in @unit (ns, us, ms, s, auto) as an exact decimal, trailing
    zeros of the fraction dropped."""
    if unit == "auto":
        unit = unit_auto(ns)
    div, digits = _DIV[unit]
    whole, frac = divmod(ns, div)
    if not frac:
        return str(whole)
    return f"{whole}.{frac:0{digits}d}".rstrip("0")


def fmtv(v: int | None, unit: str) -> str:
    """As fmt(), "-" for None, with the unit's name appended ("0.5ms"
    with unit ms, as "500us" with auto)."""
    if v is None:
        return "-"
    return fmt(v, unit) + (unit_auto(v) if unit == "auto" else unit)


_PARTS = ("GAP-", "BLOCKED-", "RUNQ-")
_PART_OF = ("gap of", "blocked of", "runq of")
_PART_NOTE = (
    "GAP-NAME: the time from the end of one call of trace NAME to the start of\n"
    "  the next on the same CPU (kstats trace NAME ... gap off leaves it out).\n",
    "BLOCKED-NAME, RUNQ-NAME: the two parts of off-CPU trace NAME's waits:\n"
    "  blocked until woken, then waiting for a CPU.\n",
)
_MIN_W = (28, 10, 12, 12, 12)


def list_view(nodes: list[Node], unit: str = "auto") -> tuple[str, str]:
    """The table, one line per node: name, samples, p50, p99, max, trace;
    a trace's GAP-, BLOCKED- and RUNQ-NAME say whose part they are.
    Columns as wide as their widest cell. And the footnote that explains
    each kind once, which the tool prints on stderr."""
    have = {n.summary.name for n in nodes}
    rows = [("NAME", "SAMPLES", "P50", "P99", "MAX", "TRACE")]
    noted = [False, False]
    for n in nodes:
        s = n.summary
        p50, p99 = s.percentiles["p50"], s.percentiles["p99"]
        tr = "-"
        if n.trace:
            tr = f"{n.trace.method} missed {n.trace.missed}" + (" gone" if n.trace.gone else "")
        for i, p in enumerate(_PARTS):
            if s.name.startswith(p) and s.name[len(p):] in have:
                tr = f"{_PART_OF[i]} {s.name[len(p):]}"
                noted[0 if i == 0 else 1] = True
                break
        rows.append((s.name, str(s.samples), fmtv(p50.value if p50 else None, unit),
                     fmtv(p99.value if p99 else None, unit), fmtv(s.max, unit), tr))
    w = [max([m] + [len(r[c]) for r in rows]) for c, m in enumerate(_MIN_W)]
    out = ["%-*s %*s %*s %*s %*s  %s" % (w[0], r[0], w[1], r[1], w[2], r[2], w[3], r[3],
                                         w[4], r[4], r[5]) for r in rows]
    notes = ""
    for i in (0, 1):
        if noted[i]:
            notes += ("" if i and noted[0] else "\n") + _PART_NOTE[i]
    return "\n".join(out) + "\n", notes
