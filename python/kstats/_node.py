# SPDX-License-Identifier: GPL-2.0
"""Parse a kstats node's text: summary lines and slot lines (README:
"Summary lines (a stable format)", "Reading the histograms"). The same
rules as the C tool's tools/ksnode.c, kept figure for figure in step with
it by test/python-parity.sh. Pure functions, no I/O."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

PCT_KEYS: tuple[str, ...] = ("p50", "p90", "p99", "p99.9", "p99.99")
_REQUIRED = ("name", "frac_bits", "state", "samples", "missed", "nmi_dropped",
             "min", "max", "mean", "unit")
_SLOT_RE = re.compile(
    r"^slot\s+(\d+)\s+CPU(S| )\s*(\d+)\s+count\s+(\d+)\s+avg\s+(\d+)\s+p\s+(\S+)")
_TRACE_RE = re.compile(r"^# trace (\S+) method (\S+) missed (\d+)(.*)$")


class ParseError(ValueError):
    """A text that is not a kstats node; the message names the line."""


def n_slots(frac_bits: int) -> int:
    """Number of slots of a histogram with @frac_bits (0..5)."""
    return ((64 - frac_bits + 1) << frac_bits) + 1


def slot_of(value: int, frac_bits: int) -> int:
    """The slot that holds @value (ns, 0 .. 2^64 - 1) at @frac_bits."""
    if not 0 <= value < 1 << 64:
        raise ValueError(f"{value}: not a u64")
    msb = value.bit_length() - 1
    if msb <= frac_bits:
        return value
    return ((msb - frac_bits + 1) << frac_bits) | ((value >> (msb - frac_bits)) & ((1 << frac_bits) - 1))


def slot_base(slot: int, frac_bits: int) -> int:
    """Smallest value (ns) that falls in @slot."""
    bucket = slot >> frac_bits
    lead = (1 << frac_bits) | (slot & ((1 << frac_bits) - 1))
    return lead << (bucket - 1) if bucket else slot


def slot_top(slot: int, frac_bits: int) -> int:
    """Largest value (ns) that falls in @slot."""
    bucket = slot >> frac_bits
    shift = bucket - 1 if bucket else 0
    return slot_base(slot, frac_bits) + (1 << shift) - 1


@dataclass(frozen=True)
class Percentile:
    """One percentile, all figures in ns: the estimate @value, the @slot
    holding the rank, @err = H - L (|value - truth| <= err) and @relerr,
    err / L rounded up to 6 digits, also as printed in @relerr_text."""
    key: str
    value: int
    slot: int
    err: int
    relerr: float
    relerr_text: str


@dataclass(frozen=True)
class Slot:
    """One slot line: values in [low, high] ns, @count samples of average
    @avg ns, @p the cumulative fraction (also as printed in @p_text).
    @cpu is the CPU, or None on a CPUS (all CPUs) line."""
    slot: int
    low: int
    high: int
    count: int
    avg: int
    p: float
    p_text: str
    cpu: int | None


@dataclass(frozen=True)
class Summary:
    """The summary lines. min, max and mean (ns) are None without samples;
    @percentiles maps "p50" .. "p99.99" to a Percentile, or None."""
    name: str
    frac_bits: int
    state: str
    samples: int
    missed: int
    nmi_dropped: int
    min: int | None
    max: int | None
    mean: int | None
    percentiles: dict[str, Percentile | None]
    unit: str

    def __call__(self) -> "Summary":
        """Itself: node.summary() reads as Metric.summary() does, so a
        snapshot()'s summary is taken alike either way (node.summary, the
        attribute, stays as it was)."""
        return self


@dataclass(frozen=True)
class TraceInfo:
    """A trace's "# trace" line: its @method, @missed count, @gone."""
    method: str
    missed: int
    gone: bool


@dataclass
class Node:
    """A parsed node: summary, trace line (or None) and slot lines."""
    summary: Summary
    trace: TraceInfo | None
    lines: list[Slot] = field(default_factory=list)
    nr_cpu_ids: int | None = None

    def histogram(self, cpu: int | None = None) -> list[Slot]:
        """The slot lines of all CPUs (CPUS lines), or of CPU @cpu."""
        if cpu is None:
            return [s for s in self.lines if s.cpu is None]
        return [s for s in self.lines if s.cpu == cpu]

    def rows(self, cpu: int | None = None, slots: bool = False) -> list[tuple[int, int, int]]:
        """(low, high, count) rows, ns, of all CPUs or CPU @cpu: one per
        non-empty power of two (slots merged by bucket), or per slot when
        @slots; ascending, as the C tool's histogram rows."""
        fb = self.summary.frac_bits
        out: list[list[int]] = []
        last = -1
        for sl in self.histogram(cpu):
            if not sl.count:
                continue
            key = sl.slot if slots else sl.slot >> fb
            if out and key == last:
                out[-1][2] += sl.count
                continue
            if slots:
                out.append([sl.low, sl.high, sl.count])
            else:
                out.append([slot_base(key << fb, fb),
                            slot_top(((key + 1) << fb) - 1, fb), sl.count])
            last = key
        return [(a, b, c) for a, b, c in out]

    def percentile(self, q: float | str) -> Percentile | None:
        """The percentile @q (0 < q <= 100): the kernel's figure where the
        node prints one, else computed from the CPUS slot lines with the
        kernel's definition (see compute_percentile). None without samples.
        Raises ValueError for q outside (0, 100]."""
        key = "p" + _qtext(q)
        if key in self.summary.percentiles:
            return self.summary.percentiles[key]
        return compute_percentile(self, q)


def _qtext(q: float | str) -> str:
    f = Fraction(str(q))
    if not 0 < f <= 100:
        raise ValueError(f"percentile {q}: not in (0, 100]")
    s = str(q)
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def _opt(val: str) -> int | None:
    if val == "-":
        return None
    if not val.isdigit():
        raise ValueError(val)
    return int(val)


def relerr_text(err: int, low: int) -> str:
    """err / low rounded up to 6 decimals, as the kernel prints it."""
    if err == 0 or low == 0:
        return "0.000000"
    micro = -(-err * 1000000 // low)
    return f"{micro // 1000000}.{micro % 1000000:06d}"


def compute_percentile(node: Node, q: float | str) -> Percentile | None:
    """Nearest-rank percentile @q from @node's CPUS slot lines (README,
    "Summary lines"): rank r = ceil(samples * q / 100), at least 1; its
    slot is where the cumulative count reaches r; the estimate places the
    slot's c samples evenly over [L, H], L = max(base, min), H = min(top,
    max). Values in ns. None when the node has no samples."""
    s = node.summary
    if not s.samples or s.min is None or s.max is None:
        return None
    fq = Fraction(str(q))
    if not 0 < fq <= 100:
        raise ValueError(f"percentile {q}: not in (0, 100]")
    r = max(1, -(-(s.samples * fq) // 100))
    cum = 0
    for sl in node.histogram():
        if cum + sl.count >= r:
            low = max(sl.low, s.min)
            high = min(sl.high, s.max)
            k, c = r - cum, sl.count
            if c == 1:
                v = high if high == s.max else low
            else:
                v = low + (high - low) * (k - 1) // (c - 1)
            text = relerr_text(high - low, low)
            return Percentile("p" + _qtext(q), v, sl.slot, high - low,
                              float(text), text)
        cum += sl.count
    raise ValueError(f"{s.name}: slot counts sum to {cum}, below samples {s.samples}")


def parse(text: str) -> Node:
    """Parse a node's whole text. Raises ParseError (a ValueError) naming
    the line when it is not a kstats node."""
    vals: dict[str, str] = {}
    pct: dict[str, dict[str, str]] = {k: {} for k in PCT_KEYS}
    trace: TraceInfo | None = None
    raw: list[tuple[int, str, int, int, int, str]] = []
    for no, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        if line.startswith("# trace "):
            m = _TRACE_RE.match(line)
            if not m:
                raise ParseError(f"line {no}: bad trace line")
            trace = TraceInfo(m.group(2), int(m.group(3)), " gone" in m.group(4))
        elif line.startswith("#"):
            w = line.split()
            if len(w) < 3 or w[0] != "#":
                continue            # other '#' lines may follow
            key, val = w[1], w[2]
            if key in _REQUIRED:
                vals[key] = val
                continue
            for pk in PCT_KEYS:
                if key == pk:
                    pct[pk]["value"] = val
                elif key.startswith(pk + "_") and key[len(pk) + 1:] in ("slot", "err", "relerr"):
                    pct[pk][key[len(pk) + 1:]] = val
            # Keys added later are skipped, as the format allows.
        elif line.startswith("slot "):
            m = _SLOT_RE.match(line)
            if not m or "frac_bits" not in vals:
                raise ParseError(f"line {no}: bad slot line")
            raw.append((int(m.group(1)), m.group(2), int(m.group(3)),
                        int(m.group(4)), int(m.group(5)), m.group(6)))
        else:
            raise ParseError(f"line {no}: not a kstats line")
    for k in _REQUIRED:
        if k not in vals:
            raise ParseError(f"not a kstats node: summary key {k} missing")
    try:
        fb = int(vals["frac_bits"])
        if not 0 <= fb <= 5 or not vals["frac_bits"].isdigit():
            raise ValueError
        if vals["state"] not in ("active", "stopped"):
            raise ValueError
        pcts: dict[str, Percentile | None] = {}
        for pk in PCT_KEYS:
            d = pct[pk]
            v = _opt(d.get("value", "-"))
            if v is None:
                pcts[pk] = None
                continue
            pcts[pk] = Percentile(pk, v, int(d["slot"]), int(d["err"]),
                                  float(d["relerr"]), d["relerr"])
        summary = Summary(vals["name"], fb, vals["state"], int(vals["samples"]),
                          int(vals["missed"]), int(vals["nmi_dropped"]),
                          _opt(vals["min"]), _opt(vals["max"]), _opt(vals["mean"]),
                          pcts, vals["unit"])
    except (ValueError, KeyError) as e:
        raise ParseError(f"bad summary value: {e}") from None
    node = Node(summary, trace)
    for slot, c, cpu, count, avg, p in raw:
        if slot >= n_slots(fb):
            raise ParseError(f"slot {slot}: beyond the {n_slots(fb)} slots")
        if c == "S":
            node.nr_cpu_ids = cpu
        node.lines.append(Slot(slot, slot_base(slot, fb), slot_top(slot, fb),
                               count, avg, float(p), p, None if c == "S" else cpu))
    return node


#: The parts a KEY-NAME row's key can have (README, "KEY-NAME").
KEY_PARTS: tuple[str, ...] = ("kstack", "end-kstack", "comm", "pid", "tgid", "cpu",
                               "cgroup", "waker-kstack", "waker-comm", "waker-pid",
                               "waker-cgroup", "ustack", "waker-ustack", "waker-chain")
_STACK_PARTS = ("kstack", "end-kstack", "waker-kstack")
_USER_PARTS = ("ustack", "waker-ustack")
_USER_HEAD_RE = re.compile(r"tgid ([0-9]+)(?: start ([0-9]+))?|(\[[a-z0-9 -]+\])|")
# Key parts on a value: "ret", "argN", a parameter's name ("flags") or a
# field through one ("file->f_flags"), and any of them with ":log2".
_VALUE_PART_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*((->|\.)[A-Za-z_][A-Za-z0-9_]*)*(:log2)?")
_LOG2_RE = re.compile(r"\[(-?[0-9]+), (-?[0-9]+)\)")
# A level of key waker-chain, after "waker-chain ": "L comm C pid P
# [blocked-ns N]", or "L [marker]" ("[not captured]" may come without L).
_LEVEL_RE = re.compile(r"(?:([1-4]) )?(?:comm (\S*) pid (-?[0-9]+)(?: blocked-ns ([0-9]+))?"
                       r"|(\[[a-z ]+\]))")


def _key_part_name(spec_part: str) -> str:
    """The name rows give a part of the header's key: "kstack:6" ->
    "kstack", "ret:s32" -> "ret", "arg2:log2" stays, "ret:s32:log2" ->
    "ret:log2"."""
    words = spec_part.split(":")
    return words[0] + (":log2" if "log2" in words[1:] else "")


def _known_part(part: str) -> bool:
    return part in KEY_PARTS or (part.split(":")[0] not in KEY_PARTS and
                                 bool(_VALUE_PART_RE.fullmatch(part)))
_ROW_FIELDS = ("total", "count", "avg", "p50", "p99", "min", "max")
_OCTAL_RE = re.compile(rb"\\([0-3][0-7][0-7])")
_UINT_RE = re.compile(r"[0-9]+")
_INT_RE = re.compile(r"-?[0-9]+")


def _unescape(raw: str) -> str:
    """A comm as KEY-NAME writes it (seq_escape: \\040 space, \\011 tab,
    \\012 newline, \\134 backslash); @raw holds the bytes as latin-1."""
    b = _OCTAL_RE.sub(lambda m: bytes([int(m.group(1), 8)]) if int(m.group(1), 8)
                      else m.group(0), raw.encode("latin-1"))
    return b.decode("utf-8", "replace")


def parse_keys(text: str | bytes) -> list[dict]:
    """The rows of a KEY-NAME node's text, largest total first: one dict
    per row with total, count, avg, p50, p99, min, max (ints; ns but
    count) and the key's parts: "kstack", "end-kstack" and "waker-kstack"
    (lists of frames as %pS prints them, leaf first), "comm" and
    "waker-comm" (unescaped), "cgroup" and "waker-cgroup" (the path from
    the cgroup2 root, unescaped; a removed cgroup's ends in " (gone)"),
    "pid", "tgid", "cpu" and "waker-pid" (ints), "ret" and "argN" (ints), "argN:log2" (a pair (lo, hi): lo <= value < hi);
    a value part by a parameter's name or a field ("file->f_flags") as "argN".
    "ustack" and "waker-ustack": the user frames' addresses (ints, leaf
    first), with "ustack-tgid" (the process they are in; None when there
    are none), "ustack-start" (that process's start, ns since boot, as
    /proc/PID/stat's starttime in ns: a later process of the same pid is
    not it) and "ustack-note" ("[kernel thread]", "[interrupt]",
    "[32-bit task]", else None); likewise "waker-ustack-tgid" and
    "waker-ustack-note". Naming them needs the process's ELF files and
    debug information (elfutils' libdwfl): `kstats rows` does.
    "waker-chain": the levels of a wakeup chain, a list, level 1 (the
    waker) first: each a dict {"comm", "pid", "blocked_ns" (the row's
    mean of that task's own blocked time; None where it is not known),
    "kstack" (frames, leaf first)},
    or {"marker": "[running]", "blocked_ns": 0, "kstack": []} for a level
    that is no waker ("[running]", "[kernel thread]", "[not captured]";
    "[interrupt]" with the interrupt's frames), whose time is 0. Levels
    are numbered 1, 2, ... in order and end at a marker or an interrupt,
    or a ParseError is raised.
    [] for a trace without key ("# key -"). The other row and
    the slowest samples are not rows. Raises ParseError naming the line
    for a text off the format, or cut short (fewer rows than the header's)."""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogateescape")
    lines = text.decode("latin-1").split("\n")
    if lines[-1] == "":
        lines.pop()
    head = lines[0].split()[1:] if lines else []
    if not lines or not lines[0].startswith("# key ") or len(head) % 2:
        raise ParseError("line 1: not a KEY- header (# key K keys N rows N ...)")
    hd = dict(zip(head[::2], head[1::2]))
    spec = hd.get("key", "")
    key = [_key_part_name(p) for p in spec.split(",")] if spec != "-" else []
    if any(not _known_part(p) for p in key) or len(set(key)) != len(key) \
            or not _UINT_RE.fullmatch(hd.get("rows", "")):
        raise ParseError(f"line 1: bad key {spec!r} or rows")
    rows: list[dict] = []
    order: list[str] = []               # the parts of the last row, as read
    stack: list[str] | None = None
    for no, line in enumerate(lines[1:], 2):
        if line.startswith("\t\t"):
            if stack is None:
                raise ParseError(f"line {no}: a frame outside a stack")
            frame = line[2:].encode("latin-1").decode("utf-8", "replace")
            if order and order[-1] in _USER_PARTS and frame != "[not captured]":
                if not re.fullmatch(r"0x[0-9a-f]+", frame):
                    raise ParseError(f"line {no}: bad user frame {frame!r}")
                stack.append(int(frame, 16))
            elif not (order and order[-1] in _USER_PARTS):
                stack.append(frame)
            continue
        if line.startswith("\twaker-chain ") and rows:
            m = _LEVEL_RE.fullmatch(line[len("\twaker-chain "):])
            going = bool(order and order[-1] == "waker-chain")
            before = rows[-1]["waker-chain"] if going else []
            # Levels 1, 2, ... in order, none after a marker or an
            # interrupt (the chain's end); no L only for a chain not
            # captured as a whole, its one line.
            if not m or (not going and "waker-chain" in rows[-1]) or len(before) >= 4 or \
                    (before and "marker" in before[-1]) or \
                    (m.group(1) is None and (before or m.group(5) != "[not captured]")) or \
                    (m.group(1) is not None and int(m.group(1)) != len(before) + 1):
                raise ParseError(f"line {no}: bad waker-chain level {line[1:]!r}")
            if m.group(5):
                level: dict = {"marker": m.group(5), "blocked_ns": 0, "kstack": []}
            else:
                level = {"comm": _unescape(m.group(2)), "pid": int(m.group(3)),
                         "blocked_ns": int(m.group(4)) if m.group(4) else None,
                         "kstack": []}
            if not (order and order[-1] == "waker-chain"):
                rows[-1]["waker-chain"] = []
                order.append("waker-chain")
            rows[-1]["waker-chain"].append(level)
            stack = level["kstack"]
            continue
        if line.startswith("\t"):
            part, _, val = line[1:].partition(" ")
            if not _known_part(part) or not rows or part in rows[-1]:
                raise ParseError(f"line {no}: bad key part {line[1:]!r}")
            stack = None
            if part in _STACK_PARTS:
                stack = rows[-1][part] = []
            elif part in _USER_PARTS:
                m = _USER_HEAD_RE.fullmatch(val)
                if not m:
                    raise ParseError(f"line {no}: bad {part} {val!r}")
                stack = rows[-1][part] = []
                rows[-1][part + "-tgid"] = int(m.group(1)) if m.group(1) else None
                rows[-1][part + "-start"] = int(m.group(2)) if m.group(2) else None
                rows[-1][part + "-note"] = m.group(3)
            elif part in ("comm", "waker-comm"):
                rows[-1][part] = _unescape(val)
            elif part in ("cgroup", "waker-cgroup"):
                # "/a/b", or a removed cgroup's "/a/b (gone)" or "[id:N] (gone)".
                if not val:
                    raise ParseError(f"line {no}: bad {part} {val!r}")
                rows[-1][part] = _unescape(val)
            elif part.endswith(":log2"):
                m = _LOG2_RE.fullmatch(val)
                if not m:
                    raise ParseError(f"line {no}: bad {part} {val!r}")
                rows[-1][part] = (int(m.group(1)), int(m.group(2)))
            elif _INT_RE.fullmatch(val):
                rows[-1][part] = int(val)
            else:
                raise ParseError(f"line {no}: bad {part} {val!r}")
            order.append(part)
            continue
        if rows and order != key:
            raise ParseError(f"line {no}: the row before has parts {order}, not {key}")
        if not line.startswith("row "):
            break                       # other, then the slowest: no rows
        w = line.split()[1:]
        st = dict(zip(w[::2], w[1::2]))
        if any(not _UINT_RE.fullmatch(st.get(k, "")) for k in _ROW_FIELDS):
            raise ParseError(f"line {no}: bad row line")
        rows.append({k: int(st[k]) for k in _ROW_FIELDS})
        order, stack = [], None
    else:
        if rows and order != key:
            raise ParseError(f"the last row has parts {order}, not {key}")
    if len(rows) != int(hd["rows"]) or (key and not any(
            ln.startswith("other ") for ln in lines)):
        raise ParseError(f"cut short: {len(rows)} row lines for rows {hd['rows']}")
    return rows
