"""Before/after pairs written on one line: ``old: 554 IOPS → new: 535 IOPS (~-3.4%)``.

Users who summarize a regression in prose write the two figures with an
arrow or "to" between them, often under a heading naming the configuration
(``- iodepth=32:``).  Each pair gives two results: the left one is the state
before (``config`` "before"), the right one after (``config`` "after"); the
report builder turns those into baseline and regressed when the thread is a
regression report, and attributes them to its good and bad kernels.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract.lines import field_listing, match_lines, quoted_titles, setting_before, word_lines
from lkmlkb.extract.metric_units import normalize
from lkmlkb.model import Evidence, Result

log = logging.getLogger(__name__)

UNIT = r"""(?:[KMGT]i?B/s|[kKMG]B/s|B/s|MBps|IOPS|iops|[kK]\s?IOPS|usec|msec|nsec|us|ms|ns|s|%)"""
NUM = r"\d{1,12}(?:\.\d{1,6})?[kKM]?"
PAIR = re.compile(
    rf"""^(?P<lead>.{{0,80}}?)                                  # "avg clat:", "old:", "read bw"
        (?P<a>{NUM})\s{{0,3}}(?P<ua>{UNIT})?                    # 554 IOPS / 57.7 ms / 94k
        \s{{0,4}}(?:→|->|=>|-->|\bto\b)\s{{0,4}}                # the arrow
        (?:(?:new|after|now|with[ ]the[ ]patch|patched)\s{{0,2}}:?\s{{0,3}})?
        (?P<b>{NUM})\s{{0,3}}(?P<ub>{UNIT})?                    # 535 IOPS / 59.8 ms
        (?P<tail>.{{0,80}})$""",
    re.X,
)
HEADING = re.compile(r"^\s{0,8}[-*•]?\s{0,3}(?P<label>[\w=.,/ -]{1,60}?)\s{0,2}:\s*$")
METRIC_WORDS = (
    ("clat", "clat"),
    ("slat", "slat"),
    ("lat", "lat"),
    ("iops", "iops"),
    ("bandwidth", "bw"),
    ("bw", "bw"),
    ("throughput", "throughput"),
    ("util", "util"),
    ("cpu", "cpu"),
)
#: a before/after pair is a short line; longer ones are prose or logs, not read
MAX_LINE = 400


def _count(text: str) -> float:
    mult = {"k": 1e3, "K": 1e3, "M": 1e6}.get(text[-1], 1)
    return float(text.rstrip("kKM")) * mult


def _metric(lead: str, unit: str) -> str | None:
    low = lead.lower()
    for word, metric in METRIC_WORDS:
        if word in low:
            return metric
    u = unit.lower()
    if "iops" in u:
        return "iops"
    if u.endswith("/s") or u == "mbps":
        return "bw"
    if u in ("us", "usec", "ms", "msec", "ns", "nsec", "s"):
        return "lat"
    return None


def _has_arrow(line: str) -> bool:
    """Whether ``line`` can hold a pair: the cheap test before the PAIR pattern, whose every
    arrow holds one of these ("-->" holds "->", the word "to" holds "to")."""
    return "->" in line or "=>" in line or "→" in line or "to" in line


#: the part of every PAIR match from the last digit of the first figure to the arrow ("554 IOPS →",
#: "57.7 ms ->", "94k to"): searched before PAIR, whose 80-character lead is tried at every offset of a
#: line like "EXT4-fs (nbd0): unable to read superblock" (a dmesg paste can hold hundreds)
PAIR_CUE = re.compile(rf"\d[kKM]?\s{{0,3}}(?:{UNIT})?\s{{0,4}}(?:→|->|=>|-->|\bto\b)")
#: what _has_arrow looks for, searched in the whole text: the lines holding none are passed over
ARROW_WORDS = ("->", "=>", "→", "to")
#: a line that ends in ":" once stripped on the right (only such a line can match HEADING), found in
#: the whole text: no newline among the spaces, and "$" ends each line (str.rstrip and \s strip the same)
HEADING_END = re.compile(r":[^\S\n]*$", re.MULTILINE)


def _candidate_lines(text: str) -> list[int]:
    """The lines ``find_pairs`` reads, ascending: those that may be a heading or hold an arrow.

    Every other line is passed over by the loop's first tests without changing its state, so
    reading only these finds the same pairs under the same headings.
    """
    heads = match_lines(text, HEADING_END)
    arrows = word_lines(text, ARROW_WORDS)
    if not heads:
        return arrows
    return sorted(set(heads).union(arrows))


def find_pairs(text: str) -> list[Result]:
    """Every before/after pair with a unit on either side; never raises."""
    out: list[Result] = []
    try:
        lines = text.split("\n")
        heading: str | None = None
        for i in _candidate_lines(text):
            line = lines[i]
            if not line or len(line) > MAX_LINE:  # empty: most lines of a focused view
                continue
            h = HEADING.match(line) if line.rstrip().endswith(":") else None  # HEADING ends in ":\s*$"
            if h:
                heading = h.group("label").strip()
                continue
            if not line.strip() or not _has_arrow(line) or not PAIR_CUE.search(line):
                continue
            if field_listing(line):
                continue  # a device's capability range: "Completion Timeout: 65ms to 210ms, TimeoutDis-"
            m = PAIR.match(line.strip())
            if not m:
                continue
            if setting_before(m.group("lead"), len(m.group("lead"))):
                continue  # a knob turned: "After raising the timeout 30s to 180s"
            at = len(line) - len(line.lstrip()) + m.start("a")
            if any(a <= at < b for a, b in quoted_titles(line)):
                continue  # a patch's title quoted: 'Revert "block: cut the latency from 10 ms to 1 ms"'
            if (
                re.search(r"\bto\b", line)
                and not re.search(r"→|->|=>", line)
                and not (m.group("ua") and m.group("ub"))
            ):
                continue  # "2 to 4 ms" is a range, "2 ms to 4 ms" a change
            unit = m.group("ua") or m.group("ub")
            if not unit or (
                m.group("ua") and m.group("ub") and m.group("ua").lower() != m.group("ub").lower()
            ):
                continue  # "2 to 4" or mixed units: not a measured pair
            metric = _metric(m.group("lead"), unit)
            if metric is None:
                continue
            compact = unit.lower().replace(" ", "")
            scale = 1000 if compact == "kiops" else 1  # "94 kIOPS -> 80 kIOPS"
            unit = "IOPS" if compact in ("iops", "kiops") else unit
            for side, raw in (("before", m.group("a")), ("after", m.group("b"))):
                value = _count(raw) * scale
                nv, nu = normalize(value, unit)
                out.append(
                    Result(
                        metric=metric,
                        value=value,
                        unit=unit,
                        config=f"{side} ({heading})" if heading else side,
                        normalized_value=nv,
                        normalized_unit=nu,
                        evidence=Evidence(line_start=i, line_end=i, text=line),
                    )
                )
    except Exception:
        log.exception("find_pairs failed")
        return []
    return out
