"""fio value normalization: sizes and times as fio reads them in job files.

Sizes follow what fio 3.33 actually does (checked against the binary in
tests/fio/test_fio_units.py), which differs from its HOWTO table:

* a bare or one-letter-plus-B prefix (``4k``, ``8K``, ``4m``, ``32G``,
  ``4kb``, ``1024Ki`` - fio only looks at ``k`` when no ``ib`` follows) is
  multiplied by ``kb_base`` (1024 unless the job sets ``kb_base=1000``);
* a full three-letter IEC/SI-swapped suffix (``KiB``, ``MiB``) means the
  *other* base: 4KiB is 4000 bytes with the default kb_base=1024, 4096 with
  kb_base=1000.

Times default to seconds; ``d``, ``h``, ``m`` (minutes), ``s``/``sec``,
``ms``/``msec``, ``us``/``usec`` suffixes, case-insensitive.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from lkmlkb.fio import catalog

log = logging.getLogger(__name__)

SIZE_RE = re.compile(
    r"""
    ^\s{0,8}
    (?P<num>0x[0-9a-f]{1,16}            # hex, fio's int prefix: "offset=0x1000"
      |\d{1,20}(?:\.\d{1,12})?)         # "128k", "1.5g"
    \s{0,4}
    (?P<prefix>[kmgtpe]?)               # "k" in 128k, "G" in 32Gi
    (?P<iec>i?)                         # the "i" of "1024Ki", "32Gi", "4KiB"
    (?P<b>b?)                           # the "B" of "4KB", "4KiB", "4096B"
    \s{0,8}$
    """,
    re.VERBOSE | re.IGNORECASE,
)
TIME_RE = re.compile(
    r"""
    ^\s{0,8}
    (?P<num>\d{1,15}(?:\.\d{1,9})?)     # "600", "30s", "1.5h"
    \s{0,4}
    (?P<unit>usec|us|msec|ms|sec|s|min|m|h|d|)   # fio's time suffixes ("20m" = 20 minutes)
    \s{0,8}$
    """,
    re.VERBOSE | re.IGNORECASE,
)
PREFIX_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}
TIME_SECONDS = {
    "": 1,
    "s": 1,
    "sec": 1,
    "m": 60,
    "min": 60,
    "h": 3600,
    "d": 86400,
    "ms": 1e-3,
    "msec": 1e-3,
    "us": 1e-6,
    "usec": 1e-6,
}
TRUE_WORDS = {"", "1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off"}


def _whole(x: float) -> int | float:
    """1200.0 -> 1200; 0.5 stays 0.5."""
    return int(x) if float(x).is_integer() else x


def parse_size(value: str, kb_base: int = 1024) -> int | None:
    """``128k`` -> 131072; ``1024Ki`` -> 1048576; ``4KiB`` -> 4000 (fio's quirk); None if not a size."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    m = SIZE_RE.match(value)
    if not m:
        return None
    num_text = m.group("num").lower()
    num = int(num_text, 16) if num_text.startswith("0x") else float(num_text)
    prefix = m.group("prefix").lower()
    base = kb_base if kb_base in (1000, 1024) else 1024
    if prefix and m.group("iec") and m.group("b"):
        base = 1000 if base == 1024 else 1024
    return int(num * base ** PREFIX_POWER[prefix])


def parse_time(value: str, default_unit: str = "s") -> int | float | None:
    """``600`` -> 600; ``30s`` -> 30; ``20m`` -> 1200; ``500ms`` -> 0.5 (seconds)."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    m = TIME_RE.match(value)
    if not m:
        return None
    unit = m.group("unit").lower() or default_unit
    return _whole(round(float(m.group("num")) * TIME_SECONDS[unit], 9))


def parse_bool(value: str) -> bool | None:
    """``group_reporting`` (empty) / ``1`` -> True, ``0`` -> False."""
    v = (value or "").strip().lower()
    if v in TRUE_WORDS:
        return True
    if v in FALSE_WORDS:
        return False
    return None


def parse_size_list(value: str, kb_base: int = 1024) -> int | list[int] | None:
    """``4k`` -> 4096; ``4k,8k`` (read,write) -> [4096, 8192]; ``4k-16k`` -> [4096, 16384]."""
    if not isinstance(value, str) or len(value) > 200:
        return None
    one = parse_size(value, kb_base)
    if one is not None:
        return one
    parts = [p for p in re.split(r"[,:/]|(?<=[\dkKmMgGbBiI])-(?=\d)", value) if p != ""]
    if not 1 < len(parts) <= 6:
        return None
    sizes = [s for s in (parse_size(p, kb_base) for p in parts) if s is not None]
    return sizes if len(sizes) == len(parts) else None


def normalize_value(name: str, value: str, kb_base: int = 1024) -> Any:
    """One option value as fio reads it, by the option's catalog type; None when not numeric."""
    kind = catalog.option_type(name)
    if value is None or "$" in str(value):
        return None
    value = str(value)
    if kind in ("size", "range"):
        return parse_size_list(value, kb_base)
    if kind == "time":
        return parse_time(value)
    if kind in ("bool", "flag"):
        return parse_bool(value)
    if kind == "int":
        size = parse_size(value, kb_base)
        return size
    return None


def kb_base_of(options: dict[str, str]) -> int:
    """The job's kb_base (1024 unless it says 1000)."""
    for name, value in options.items():
        if catalog.canonical_name(name) == "kb_base" and str(value).strip() == "1000":
            return 1000
    return 1024


def normalize_options(options: dict[str, str]) -> dict[str, Any]:
    """Canonical option name -> normalized value, for the options that have one."""
    kb = kb_base_of(options)
    out: dict[str, Any] = {}
    for name, value in options.items():
        canon = catalog.canonical_name(name)
        if canon is None:
            continue
        try:
            norm = normalize_value(canon, value, kb)
        except (ValueError, OverflowError):  # e.g. "1e999": never raise on mail text
            log.debug("cannot normalize %s=%r", name, value)
            norm = None
        if norm is not None:
            out[canon] = norm
    return out
