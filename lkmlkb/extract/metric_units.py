"""Numbers with units as they appear in benchmark output pasted into mail.

Everything here is a pure function of a string or a (value, unit) pair.  The
normalized units are:

* rates: ``B/s``  (``MB/s`` in fio output is 10^6, ``MiB/s`` is 2^20; LKP's
  ``MBps`` (``fio.write_bw_MBps``) is computed from fio's MiB/s, so it counts
  as 2^20)
* operation counts per second: ``IOPS`` (``94.0k`` is 94,000: fio's IOPS
  suffixes are decimal)
* times and latencies: ``us``
* percentages: ``%``
* sizes: ``B`` (``KiB`` 1024, ``KB`` 1000, a bare ``k`` 1024 as in job files)
"""

from __future__ import annotations

import logging
import math
import re

log = logging.getLogger(__name__)

#: rate units, lower-cased, to bytes per second
_RATE = {
    "b/s": 1.0,
    "bytes/s": 1.0,
    "byte/s": 1.0,
    "bps": 1.0,
    "kb/s": 1e3,
    "mb/s": 1e6,
    "gb/s": 1e9,
    "tb/s": 1e12,
    "kib/s": 1024.0,
    "mib/s": 1024.0**2,
    "gib/s": 1024.0**3,
    "tib/s": 1024.0**4,
    "kb/sec": 1e3,
    "mb/sec": 1e6,
    "gb/sec": 1e9,
    "kib/sec": 1024.0,
    "mib/sec": 1024.0**2,
    "gib/sec": 1024.0**3,
    "kbytes/s": 1e3,
    "mbytes/s": 1e6,
    "gbytes/s": 1e9,
    "kbytes/sec": 1e3,
    "mbytes/sec": 1e6,
    "gbytes/sec": 1e9,
    # LKP metric names: fio.write_bw_MBps is fio's bw in MiB/s
    "kbps": 1024.0,
    "mbps": 1024.0**2,
    "gbps": 1024.0**3,
}
#: time units, lower-cased, to microseconds
_TIME = {
    "ns": 1e-3,
    "nsec": 1e-3,
    "nsecs": 1e-3,
    "us": 1.0,
    "usec": 1.0,
    "usecs": 1.0,
    "\u00b5s": 1.0,
    "\u03bcs": 1.0,
    "ms": 1e3,
    "msec": 1e3,
    "msecs": 1e3,
    "s": 1e6,
    "sec": 1e6,
    "secs": 1e6,
    "seconds": 1e6,
}
#: size units, lower-cased, to bytes
_SIZE = {
    "b": 1.0,
    "bytes": 1.0,
    "k": 1024.0,
    "m": 1024.0**2,
    "g": 1024.0**3,
    "t": 1024.0**4,
    "p": 1024.0**5,
    "kib": 1024.0,
    "mib": 1024.0**2,
    "gib": 1024.0**3,
    "tib": 1024.0**4,
    "pib": 1024.0**5,
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "tb": 1e12,
    "pb": 1e15,
}
#: multipliers fio prints after counts (``IOPS=94.0k``, ``423K``); decimal
_COUNT_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}

_IOPS_UNITS = {"iops", "io/s", "ops/s", "op/s"}


def normalize(value: float, unit: str | None) -> tuple[float | None, str | None]:
    """Return ``(value, unit)`` in the normalized unit, or ``(None, None)``.

    ``unit`` is the unit as written (``MiB/s``, ``MBps``, ``KiB/s``, ``usec``,
    ``IOPS``, ``k IOPS``, ``%``, ``GiB``).  Unknown units (``""``, ``MB`` used
    as a count) give ``(None, None)`` rather than a guess.
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None, None
    if math.isnan(v) or math.isinf(v) or unit is None:
        return None, None
    u = unit.strip().lower().replace(" ", "")
    if u in _RATE:
        return v * _RATE[u], "B/s"
    if u in _IOPS_UNITS:
        return v, "IOPS"
    if u.endswith("iops") and u[:-4] in _COUNT_SUFFIX:
        return v * _COUNT_SUFFIX[u[:-4]], "IOPS"
    if u in _TIME:
        return v * _TIME[u], "us"
    if u in ("%", "percent", "pct"):
        return v, "%"
    if u in _SIZE:
        return v * _SIZE[u], "B"
    return None, None


_QUANTITY = re.compile(
    r"""
    ^\s{0,40}
    (?P<num>[-+]?\d{1,20}(?:\.\d{1,20})?(?:[eE][-+]?\d{1,3})?)   # 236, 94.0, 2.045e+08
    \s{0,3}
    (?P<unit>
        [KkMmGgTtPp]i?[Bb](?:ytes)?/s(?:ec)?   # 236MiB/s, 247MB/s, 3.0 GB/s, 4 KiB/s, 40 MB/sec
      | [Bb](?:ytes)?/s(?:ec)?                 # 512B/s
      | [KkMmGg]?[Bb]ps                        # LKP: fio.write_bw_MBps
      | [KkMm]?\s?IOPS | [Ii][Oo][Pp][Ss]      # 5168 IOPS, 94k IOPS, iops
      | [num\u00b5\u03bc]?secs?|[num\u00b5\u03bc]s|s|seconds     # usec, msec, nsec, us, ms, s
      | %                                      # 14.75%
      | [KkMmGgTtPp]i?[Bb]|[KkMmGgTtPp]|[Bb](?:ytes)?  # 138GiB, 128k, 600G, 2147483648 bytes
    )?
    \s{0,3}$
    """,
    re.VERBOSE,
)


def parse_quantity(text: str, default_unit: str | None = None) -> tuple[float, str] | None:
    """Parse one number with an optional unit: ``"236MiB/s"``, ``"94.0k"``.

    A bare count suffix (``94k``, ``423K``, ``1.2M``) multiplies the number and
    leaves ``default_unit`` (``"IOPS"`` where the caller knows it is a count);
    a unit written out is returned as written.  Returns None for anything else
    (including text longer than 80 characters).
    """
    if not text or len(text) > 80:
        return None
    m = _QUANTITY.match(text)
    if not m:
        return None
    try:
        num = float(m.group("num"))
    except ValueError:
        return None
    unit = m.group("unit") or ""
    if unit and unit.lower() in ("k", "m", "g", "t", "p") and default_unit is not None:
        mult = _COUNT_SUFFIX.get(unit.lower())
        if mult is None:
            return None
        return num * mult, default_unit
    if not unit:
        return num, default_unit or ""
    return num, unit


def parse_count(text: str) -> float | None:
    """Parse fio's abbreviated counts: ``1884``, ``94.0k``, ``423K``, ``1.2M``."""
    q = parse_quantity(text, default_unit="IOPS")
    if q is None or q[1] not in ("IOPS", ""):
        return None
    return q[0]


def to_float(text: str) -> float | None:
    """A plain number as written in tables (``72.95``, ``2.045e+08``, ``-18.67``)."""
    if not text or len(text) > 40:
        return None
    try:
        v = float(text.strip().rstrip("*"))
    except ValueError:
        return None
    if math.isnan(v) or math.isinf(v):
        return None
    return v


# which way is better

#: metrics of which less is better: a latency, CPU use, a time, a device's utilisation
LOWER_IS_BETTER = frozenset(("lat", "clat", "slat", "latency", "util", "cpu", "runtime", "time"))
#: mmtests' arithmetic and geometric means are of times and latencies (its rates are harmonic
#: means, "Hmean"): its compare tables print a time's rise as a negative change ("-13.70%")
MMTESTS_TIME_MEANS = frozenset(("amean", "gmean"))
#: ... and in an LKP metric's last part, as a whole part of it ("fio.write_clat_mean_us",
#: "fio.time.elapsed_time", "fsmark.app_overhead"; not "stress-ng.timerfd.ops_per_sec")
_LOWER_IS_BETTER_PART = re.compile(r"(?:^|[._-])(?:c?lat(?:ency)?|time|overhead|elapsed|duration)(?:[._-]|$)")


def lower_is_better(metric: str, normalized_unit: str | None = None) -> bool:
    """Whether less of ``metric`` is better: a latency or its percentiles ("clat_p99"), CPU use
    ("cpu_sys"), anything measured in a time unit (``normalized_unit`` "us": a mount's
    "elapsed" 0m0.835s -> 15m36.508s is a regression); an LKP metric by its last part
    (not the rest of /usr/bin/time's "time." group, "fio.time.file_system_outputs", nor a
    latency bucket's share, "fio.latency_2ms%")."""
    if "." in metric:
        last = metric.rsplit(".", 1)[-1]
        return not last.endswith("%") and bool(_LOWER_IS_BETTER_PART.search(last))
    if metric in MMTESTS_TIME_MEANS or metric.startswith("bamean-"):
        return True
    return metric in LOWER_IS_BETTER or metric.split("_", 1)[0] in LOWER_IS_BETTER or normalized_unit == "us"
