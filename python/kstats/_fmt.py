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
    """As fmt(), "-" for None, with the unit's name appended for auto."""
    if v is None:
        return "-"
    s = fmt(v, unit)
    return s + unit_auto(v) if unit == "auto" else s


def list_view(nodes: list[Node], unit: str = "auto") -> str:
    """One line per node: name, samples, p50, p99, max, trace."""
    out = ["%-28s %10s %12s %12s %12s  %s" % ("NAME", "SAMPLES", "P50", "P99",
                                               "MAX", "TRACE")]
    for n in nodes:
        s = n.summary
        p50, p99 = s.percentiles["p50"], s.percentiles["p99"]
        tr = "-"
        if n.trace:
            tr = f"{n.trace.method} missed {n.trace.missed}" + (" gone" if n.trace.gone else "")
        out.append("%-28s %10d %12s %12s %12s  %s" % (
            s.name, s.samples, fmtv(p50.value if p50 else None, unit),
            fmtv(p99.value if p99 else None, unit), fmtv(s.max, unit), tr))
    return "\n".join(out) + "\n"
