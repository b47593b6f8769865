# SPDX-License-Identifier: GPL-2.0
"""kstats: a Python API over kstats' debugfs files.

All durations are nanoseconds (ns), as the kernel records them. Metrics
live in /sys/kernel/debug/kstats (root only), or in the directory named by
the environment variable KSTATS_ROOT, as for the C tool. Traces are
"_control" lines, and metrics' reset, stop and start commands; they go to
the device /dev/kstats (or the one KSTATS_DEV names) whenever it exists,
which kernel lockdown (Secure Boot) lets through, else (older modules,
which have no device) to _control and the metrics' node files. Results
are node files. Errors are KstatsError, a subclass of OSError carrying
the errno, the failed command line and kstats' dmesg line where one
could be read; a refusal by lockdown says so.

    import kstats
    with kstats.trace("rd", start="vfs_read") as t:
        ...                       # the workload
        print(t.summary().percentiles["p99"].value, "ns")
"""
from __future__ import annotations

import atexit
import errno as _errno
import os
from typing import Any

from ._node import (KEY_PARTS, PCT_KEYS, Node, ParseError, Percentile, Slot,
                    Summary, TraceInfo, compute_percentile, n_slots, parse,
                    parse_keys, slot_base, slot_of, slot_top)
from ._node import _unescape

__all__ = ["KstatsError", "Metric", "Trace", "Summary", "Percentile", "Slot",
           "TraceInfo", "Node", "ParseError", "root", "device", "metrics", "metric",
           "trace", "traces", "parse", "parse_keys", "compute_percentile",
           "n_slots", "slot_base", "slot_of", "slot_top", "PCT_KEYS", "KEY_PARTS",
           "TRACE_KEYWORDS"]

DEBUGFS_ROOT = "/sys/kernel/debug/kstats"
#: Where newer modules take commands (older ones: _control and the nodes).
DEVICE = "/dev/kstats"
LOCKDOWN_FILE = "/sys/kernel/security/lockdown"
#: A trace's keyed rows are in KEY-NAME, which is not a histogram.
KEY_PREFIX = "KEY-"
#: The keywords of "trace NAME ..." that _control accepts (src/control.c).
TRACE_KEYWORDS = ("bits", "start", "end", "method", "maxactive", "key", "keys",
                  "slowest", "pid", "tgid", "comm", "cpu", "cgroup", "match", "expire",
                  "repeat", "if", "gap", "state", "min", "max", "tasks")
METHODS = ("kretprobe", "fprobe", "kprobe", "tracepoint")


class KstatsError(OSError):
    """A kstats operation failed. .errno is the kernel's errno (or EINVAL
    for words refused in Python before anything was written), .line the
    _control or node command that failed (or None), .reason kstats' own
    dmesg line for it (or None when none could be read)."""

    def __init__(self, err: int, msg: str, line: str | None = None,
                 reason: str | None = None, filename: str | None = None):
        text = msg
        if line is not None:
            text += f" [{line!r}]"
        if reason:
            text += f" (dmesg: {reason})"
        super().__init__(err, text, filename)
        self.line = line
        self.reason = reason


def root() -> str:
    """The kstats directory: $KSTATS_ROOT, else /sys/kernel/debug/kstats."""
    return os.environ.get("KSTATS_ROOT") or DEBUGFS_ROOT


def device() -> str:
    """The device commands go to when it exists: $KSTATS_DEV, else
    /dev/kstats (as for the C tool)."""
    return os.environ.get("KSTATS_DEV") or DEVICE


def _use_device() -> bool:
    # Whenever the module has one; its errors are reported, not retried
    # on debugfs, where lockdown would only refuse them again.
    return os.path.exists(device())


def _lockdown_parse(text: str) -> str | None:
    """The mode the lockdown file's @text ("none [integrity]
    confidentiality") selects; None for none or no selection."""
    start, end = text.find("["), text.find("]")
    if start < 0 or end < start:
        return None
    mode = text[start + 1:end]
    return None if mode == "none" else mode


def _lockdown_mode() -> str | None:
    try:
        with open(LOCKDOWN_FILE, encoding="ascii") as f:
            return _lockdown_parse(f.read())
    except (OSError, ValueError):
        return None


def _perm_hint(err: int, mode: str | None, to_dev: bool, verb: str) -> str:
    """What to add to strerror(@err) when lockdown (@mode) refused a
    command: on debugfs, that the module has no device; on the device,
    that confidentiality attaches no probes (a trace)."""
    if err != _errno.EPERM or not mode:
        return ""
    if not to_dev:
        return (f": the kernel is locked down ({mode}), which refuses writable debugfs "
                f"files; this kstats module has no {device()} (upgrade kstats-dkms)")
    if mode == "confidentiality" and verb == "trace":
        return ": the kernel is locked down (confidentiality), where kstats attaches no probes"
    return f": the kernel is locked down ({mode})"


def _check_name(name: str) -> None:
    if (not name or "/" in name or name.startswith(".") or name.startswith("_")
            or any(c.isspace() for c in name)):
        raise KstatsError(_errno.EINVAL, f"{name!r}: not a metric name")
    if name.startswith(KEY_PREFIX):
        raise KstatsError(_errno.EINVAL, f"{name!r}: not a metric but the keyed rows "
                          f"of trace {name[len(KEY_PREFIX):]} (its keys())")


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except OSError as e:
        raise KstatsError(e.errno or _errno.EIO, os.strerror(e.errno or _errno.EIO),
                          filename=path) from None


def _control(line: str, directory: str | None = None) -> None:
    """A "trace ..." or "remove ..." line: to the device, or to the
    _control of @directory (root())."""
    if _use_device():
        _write(device(), line, True)
    else:
        _write(os.path.join(directory or root(), "_control"), line)


def _kmsg_open() -> int | None:
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    os.lseek(fd, 0, os.SEEK_END)
    return fd


def _kmsg_reason(fd: int | None) -> str | None:
    """kstats' last dmesg line since @fd was opened, as the C tool finds it."""
    if fd is None:
        return None
    reason = None
    try:
        while True:
            try:
                rec = os.read(fd, 8192)
            except BlockingIOError:
                break
            except OSError as e:
                if e.errno == _errno.EPIPE:     # overwritten records: go on
                    continue
                break
            if not rec:
                break
            msg = rec.decode("utf-8", "replace").split(";", 1)
            if len(msg) == 2 and msg[1].startswith("kstats: "):
                reason = msg[1].split("\n", 1)[0]
    finally:
        os.close(fd)
    return reason


def _fstype(path: str) -> str:
    """The file system type of the mount holding @path (/proc/self/mountinfo)."""
    real = os.path.realpath(path)
    best, kind = "", ""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            for line in f:
                fields = line.split()
                point = fields[4]
                fstype = fields[fields.index("-") + 1]
                inside = real == point or real.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, kind = point, fstype
    except (OSError, ValueError, IndexError):
        return ""
    return kind


def _write(path: str, line: str, to_dev: bool = False) -> None:
    """Write @line to @path (the device when @to_dev) in one write();
    KstatsError with the errno and kstats' dmesg reason on failure. Only
    the device and files of debugfs are written: a KSTATS_ROOT of captured
    files is read, never overwritten (EROFS)."""
    if not to_dev and _fstype(path) != "debugfs":
        raise KstatsError(_errno.EROFS, "not in debugfs: kstats writes only to "
                          "kstats' own files", line.rstrip("\n"), None, path)
    kfd = _kmsg_open()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, line.encode("ascii"))
        finally:
            os.close(fd)
    except OSError as e:
        err = e.errno or _errno.EIO
        hint = _perm_hint(err, _lockdown_mode(), to_dev, line.split(" ", 1)[0].strip())
        raise KstatsError(err, os.strerror(err) + hint, line.rstrip("\n"),
                          _kmsg_reason(kfd), path) from None
    if kfd is not None:
        os.close(kfd)


class Metric:
    """A kstats metric, i.e. node @name under root(). Every call reads or
    writes the file anew; nothing is cached."""

    def __init__(self, name: str, directory: str | None = None):
        _check_name(name)
        self.name = name
        self._dir = directory or root()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    @property
    def path(self) -> str:
        """The node's file."""
        return os.path.join(self._dir, self.name)

    def read(self) -> Node:
        """One read of the node: summary, trace line and slot lines from
        the same copy of the counters. Raises KstatsError (ENOENT: no such
        metric; EIO: removed while read; EACCES/EPERM: not root or
        lockdown), ParseError on text that is not a node."""
        return parse(_read(self.path))

    def summary(self) -> Summary:
        """The kernel's summary figures (ns). Errors as read()."""
        return self.read().summary

    def histogram(self, cpu: int | None = None) -> list[Slot]:
        """Non-empty slots, of all CPUs or of CPU @cpu: ranges [low, high]
        in ns, counts, averages (ns) and cumulative fractions. Errors as
        read()."""
        return self.read().histogram(cpu)

    def percentile(self, q: float | str) -> Percentile | None:
        """Percentile @q in ns: the kernel's figure for 50, 90, 99, 99.9
        and 99.99, else computed from the slots with the same definition.
        None without samples. ValueError for q outside (0, 100]; errors
        as read()."""
        return self.read().percentile(q)

    def snapshot(self) -> Node:
        """The lossless interval read (_interval/NAME): the samples since
        the previous snapshot (or creation, or reset). Each sample is in
        exactly one snapshot; other readers of the same interval file share
        them. Errors as read()."""
        return parse(_read(os.path.join(self._dir, "_interval", self.name)))

    def _cmd(self, word: str) -> None:
        # The device takes "WORD NAME"; an older module's node takes WORD.
        if _use_device():
            _write(device(), f"{word} {self.name}\n", True)
        else:
            _write(self.path, word + "\n")

    def reset(self) -> None:
        """Clear all CPUs' counters (and the interval): "reset NAME" to
        the device, or "reset" to the node (older modules). KstatsError:
        EPERM or EACCES without root or under lockdown (without a device),
        ENOENT/EIO when gone."""
        self._cmd("reset")

    def stop(self) -> None:
        """Ignore new samples until start(). Errors as reset()."""
        self._cmd("stop")

    def start(self) -> None:
        """Record again after stop(). Errors as reset()."""
        self._cmd("start")

    def keys(self) -> list[dict[str, Any]]:
        """The rows of KEY-NAME, a trace's rows per key (README, "KEY-NAME"),
        largest total first: dicts with total, count, avg, p50, p99, min,
        max (ints, ns but count) and the key's parts, "kstack",
        "end-kstack" and "waker-kstack" (frames, leaf first), "comm" and
        "waker-comm" (unescaped), "cgroup", "waker-cgroup" (paths), "pid",
        "tgid", "cpu", "waker-pid", "ret",
        "argN" (ints), "waker-chain" (a list of levels, each a dict:
        comm, pid, blocked_ns, kstack; or marker, kstack), "argN:log2" ((lo, hi)) (see parse_keys()). [] when there is no KEY-NAME (a
        client metric, a trace without key or slowest) or the trace has no
        key. Errors as read() (ParseError for a text off the format)."""
        path = os.path.join(self._dir, KEY_PREFIX + self.name)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return []
        except OSError as e:
            raise KstatsError(e.errno or _errno.EIO, os.strerror(e.errno or _errno.EIO),
                              filename=path) from None
        return parse_keys(data)


def _names(directory: str) -> list[str]:
    try:
        ents = list(os.scandir(directory))
    except OSError as e:
        raise KstatsError(e.errno or _errno.EIO,
                          f"{os.strerror(e.errno or _errno.EIO)} (is kstats loaded, debugfs mounted?)",
                          filename=directory) from None
    # Not _control, _interval, nor KEY-NAME (keyed rows, not a histogram).
    return sorted(e.name for e in ents
                  if not e.name.startswith((".", "_", KEY_PREFIX)) and not e.is_dir())


def metrics() -> list[Metric]:
    """Every metric under root(), sorted by name. KstatsError when the
    directory cannot be read (kstats not loaded, not root)."""
    return [Metric(n) for n in _names(root())]


def metric(name: str) -> Metric:
    """The metric @name. KstatsError ENOENT when there is none, EINVAL for
    a bad name."""
    m = Metric(name)
    if not os.path.exists(m.path):
        raise KstatsError(_errno.ENOENT, f"no metric {name}", filename=m.path)
    return m


#: The listing's words whose values are counts: traces() gives them as ints.
_LISTING_INTS = ("bits", "functions", "skipped", "maxactive", "memory", "missed",
                 "keys", "other", "slowest", "pid", "tgid", "cpu", "min", "max",
                 "expire", "records_lost")


def traces() -> list[dict[str, Any]]:
    """The _control listing (read from device() when it exists, as the
    same text): one dict per trace, keyed by the listing's words (name,
    method, bits, start, end, functions, skipped, maxactive, memory in bytes, missed, key, keys, other, slowest, the filters, and
    for an off-CPU trace kind, state, tasks, min, max (and records_lost
    with key waker-chain); for a section pair,
    expire; for a matched pair, match and repeat too), "gone": True when its module unloaded. Counts are
    ints; "-" (no end, no key, no max) and the other words are strings;
    "if" is the list of a trace's if words ([] without); "types" the
    types its values are read with ("ret:s32(btf),arg2:u64(given)",
    absent when it reads none); "gap" is "off"
    for a trace made with gap off, else "on" (the listing says only
    "gap off"). "comm" is the task name plain ("my prog"), as keys() and
    trace(comm=) give it; "comm_escaped" is the listing's own word
    (my\\040prog, octal escapes as KEY-NAME prints a comm)."""
    out = []
    src = device() if _use_device() else os.path.join(root(), "_control")
    for line in _read(src).splitlines():
        w = line.split()
        if not w:
            continue
        d: dict[str, Any] = {"name": w[0], "gone": False}
        if w[-1] == "gone":
            d["gone"] = True
            w = w[:-1]
        pairs = list(zip(w[1::2], w[2::2]))
        d.update(pairs)
        d["if"] = [v for k, v in pairs if k == "if"]
        d.setdefault("gap", "on")
        if "comm" in d:
            d["comm_escaped"] = d["comm"]
            d["comm"] = _unescape(d["comm"])
        for k in _LISTING_INTS:
            if isinstance(d.get(k), str) and d[k].isdigit():
                d[k] = int(d[k])
        out.append(d)
    return out


#: Traces this process made and has not removed (held even when the
#: script keeps no reference): removed at its exit.
_LIVE: "list[Trace]" = []


@atexit.register
def _remove_live() -> None:
    for t in list(_LIVE):
        try:
            t.remove()
        except KstatsError:
            pass                        # removed meanwhile, or kstats unloaded


class Trace(Metric):
    """A trace set up through the device (or _control), also a context manager: leaving
    the `with` block removes it (and its GAP-NAME and KEY-NAME nodes), even on an
    exception. Its data goes with it: read what you need inside. A trace
    not removed when the script exits (normally, or on an exception) is
    removed then, unless it was made with keep=True."""

    def __init__(self, name: str, line: str, keep: bool = False):
        super().__init__(name)
        self.line = line
        self.removed = False
        if not keep:
            _LIVE.append(self)

    @property
    def gap(self) -> Metric:
        """GAP-NAME: the time from one call's end to the next's start (ns)."""
        return Metric("GAP-" + self.name, self._dir)

    @property
    def blocked(self) -> Metric:
        """BLOCKED-NAME, of an off-CPU trace: switch-out to wakeup (ns)."""
        return Metric("BLOCKED-" + self.name, self._dir)

    @property
    def runq(self) -> Metric:
        """RUNQ-NAME, of an off-CPU trace: wakeup to switch-in (ns)."""
        return Metric("RUNQ-" + self.name, self._dir)

    def remove(self) -> None:
        """Remove the trace ("remove NAME"). KstatsError ENOENT when it is
        no longer there. Idempotent on this object."""
        if self.removed:
            return
        _control(f"remove {self.name}\n", self._dir)
        self.removed = True
        _LIVE[:] = [t for t in _LIVE if t is not self]

    def __enter__(self) -> "Trace":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def trace(name: str, start: str | None = None, end: str | None = None,
          bits: int = 3, method: str | None = None,
          maxactive: int | None = None, key: str | list[str] | None = None,
          keys: int | None = None, slowest: int | None = None,
          pid: int | None = None, tgid: int | None = None,
          comm: str | None = None, cpu: int | None = None,
          cgroup: str | None = None, offcpu: bool = False, state: str | None = None,
          min_ns: int | None = None, max_ns: int | None = None,
          tasks: str | None = None, match: str | None = None,
          expire_ns: int | None = None, where: str | list[str] | None = None,
          repeat: str | None = None, gap: bool = True, keep: bool = False,
          **unknown: Any) -> Trace:
    """Set up trace @name: "trace NAME bits B start X [end Y] [method M]
    [maxactive N] [key K,...] [keys N] [slowest N] [pid P] [tgid P]
    [comm C] [cpu N] [cgroup PATH] [match A] [expire NS] [repeat R] [if V ...] [gap off]"
    written to device()
    (or _control, on older modules). @start defaults to @name; @end
    times from reaching @start to reaching @end; @bits is frac_bits
    (0..5); @method one of kretprobe, fprobe, kprobe, tracepoint.
    Durations are recorded in ns. @key (a string "kstack:8,comm" or a
    list of parts) keys rows of KEY-NAME, read with keys(); @keys bounds
    them; @slowest keeps that many slowest samples; @pid, @tgid, @comm,
    @cpu and @cgroup filter what is recorded (README: "Which callers and
    tasks are slow"); @cgroup is a cgroup v2 directory, "/system.slice" or
    "/sys/fs/cgroup/system.slice", and takes its descendants too (README:
    "Per cgroup").

    Unless @keep is True, the trace is removed when the script exits, if
    it has not been (a `with` block removes it on leaving): a script's
    trace does not outlive it. A script killed by a signal it does not
    handle (SIGKILL, a default SIGTERM) leaves it: remove it by name.

    @match ("arg0", or "arg2,arg0" for the start's and the end's) pairs a
    section's start and end on an object, not the task; @expire_ns bounds
    the age of a section pair's open start (matched or not; README:
    "Sections nest"); @repeat "keep" keeps an object's first
    start, not its last (for locks; README: "Sections matched on an
    object").
    @where is an "if" word or a list of them, ANDed: "ret<0",
    "arg2>=65536", "ret:s32<0" (README: "Filters on values"; "if" is a
    word Python keeps for itself).
    @gap=False ("gap off") makes no GAP-NAME, and spares each event its
    cost (README: "Performance"); .gap of such a trace raises ENOENT.

    @offcpu=True makes it "trace NAME offcpu ...", an off-CPU trace (README:
    "Off-CPU time"): no @start, @end or @method; @state "any", "all", "S" or
    "D"; @min_ns and @max_ns bound the waits (the words min and max);
    @tasks "all", "user" or "kernel"; and the key parts waker-kstack,
    waker-comm, waker-pid, waker-cgroup, waker-chain[:N]. Its halves are BLOCKED-NAME and RUNQ-NAME.

    Words _control does not know (any other keyword argument), or values
    with blanks, are refused with KstatsError EINVAL before anything is
    written; a @comm or @cgroup keeps its blanks, written as KEY-NAME prints them
    (\\040 for a space). The kernel's refusals raise KstatsError with its errno
    (ENOENT unknown function, EINVAL bad word, EEXIST name taken,
    ENAMETOOLONG, EOPNOTSUPP no fprobe; EPERM under lockdown, "confidentiality"
    on the device, any mode on _control), the line and its dmesg reason."""
    if unknown:
        bad = ", ".join(sorted(unknown))
        # _control's words that Python spells otherwise.
        renamed = {"if": "where", "expire": "expire_ns", "min": "min_ns", "max": "max_ns"}
        hint = "; ".join(f"for {w}, give {renamed[w]}=" for w in sorted(unknown) if w in renamed)
        raise KstatsError(_errno.EINVAL,
                          f"trace {name}: unknown keyword {bad}; "
                          + (hint or "_control knows " + ", ".join(TRACE_KEYWORDS)))
    _check_name(name)
    if not isinstance(offcpu, bool):
        raise KstatsError(_errno.EINVAL, f"trace {name}: offcpu {offcpu!r}: True or False")
    for kw, val in (("min_ns", min_ns), ("max_ns", max_ns), ("expire_ns", expire_ns)):
        if val is not None and (isinstance(val, bool) or not isinstance(val, int)):
            raise KstatsError(_errno.EINVAL, f"trace {name}: {kw} {val!r}: an int of ns")
    if not isinstance(gap, bool):
        raise KstatsError(_errno.EINVAL, f"trace {name}: gap {gap!r}: True or False")
    words = ["trace", name] + (["offcpu"] if offcpu else []) + ["bits", str(int(bits))]
    if not 0 <= int(bits) <= 5:
        raise KstatsError(_errno.EINVAL, f"trace {name}: bits {bits} not in 0..5")
    if isinstance(key, (list, tuple)):
        key = ",".join(str(k) for k in key)
    if isinstance(match, (list, tuple)):
        match = ",".join(str(m) for m in match)
    if where is not None and not isinstance(where, (str, list, tuple)):
        raise KstatsError(_errno.EINVAL, f"trace {name}: where {where!r}: an if word "
                          "such as 'ret<0', or a list of them")
    for kw, val in (("start", start), ("end", end), ("method", method),
                    ("maxactive", maxactive), ("key", key), ("keys", keys),
                    ("slowest", slowest), ("pid", pid), ("tgid", tgid),
                    ("comm", comm), ("cpu", cpu), ("cgroup", cgroup), ("match", match),
                    ("expire", expire_ns), ("repeat", repeat), ("state", state),
                    ("min", min_ns), ("max", max_ns), ("tasks", tasks),
                    ("gap", None if gap else "off")) + \
            tuple(("if", w) for w in ([where] if isinstance(where, str) else where or [])):
        if val is None:
            continue
        v = str(val)
        if kw in ("comm", "cgroup"):
            # As KEY-NAME prints a comm, and _control reads it: \040 for a space.
            v = "".join(f"\\{ord(c):03o}" if c.isspace() or c == "\\" else c for c in v)
        if not v or any(c.isspace() for c in v):
            raise KstatsError(_errno.EINVAL, f"trace {name}: {kw} {v!r}: one word expected")
        words += [kw, v]
    if method is not None and method not in METHODS:
        raise KstatsError(_errno.EINVAL, f"trace {name}: method {method}: use one of "
                          + ", ".join(METHODS))
    line = " ".join(words)
    _control(line + "\n")
    return Trace(name, line, keep)


def _grouped(ms: list[Metric]) -> list[Metric]:
    """@ms (by name) with a trace's GAP-, BLOCKED- and RUNQ-NAME right
    after NAME when NAME is there too, as the C tool's list orders them."""
    have = {m.name for m in ms}

    def key(m: Metric) -> tuple[str, int]:
        for rank, p in enumerate(("GAP-", "BLOCKED-", "RUNQ-"), 1):
            if m.name.startswith(p) and m.name[len(p):] in have:
                return (m.name[len(p):], rank)
        return (m.name, 0)
    return sorted(ms, key=key)


def list_text(unit: str = "auto") -> str:
    """The C tool's `kstats list` view of every metric under root(): its
    table, then the footnote it prints on stderr."""
    from ._fmt import list_view
    nodes = []
    for m in _grouped(metrics()):
        try:
            nodes.append(m.read())
        except KstatsError as e:
            if e.errno != _errno.ENOENT:     # removed since the listing
                raise
    table, notes = list_view(nodes, unit)
    return table + notes
