"""Wall-clock timings: GNU ``time -v`` output and ``real 0m2.04s`` lines.

Reports of slow operations (a rescan, a mount, a boot) measure them with
``/usr/bin/time -v`` (``Elapsed (wall clock) time (h:mm:ss or m:ss): 0:13.45``)
or the shell's ``time`` (``real	0m13.450s``).  Each becomes an ``elapsed``
result in seconds; the configuration is the heading the writer put above it
("Without this patch:", "With:").
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract.lines import word_lines
from lkmlkb.model import Evidence, Result

log = logging.getLogger(__name__)

ELAPSED = re.compile(
    r"""^\s{0,8}Elapsed\s\(wall\sclock\)\stime\s\(h:mm:ss\sor\sm:ss\):\s{0,4}   # GNU time -v
        (?:(?P<h>\d{1,4}):)?(?P<m>\d{1,4}):(?P<s>\d{1,2}(?:\.\d{1,6})?)\s*$""",
    re.X,
)
REAL = re.compile(r"^\s{0,8}real\s{1,10}(?:(?P<m>\d{1,6})m)?(?P<s>\d{1,6}(?:\.\d{1,6})?)s\s*$")  # bash `time`
HEADING = re.compile(r"^\s{0,8}(?P<label>[^\s:][^:]{0,60}?)\s{0,2}:\s*$")
SKIP_HEADINGS = ("command being timed",)
#: a timing line is short; longer ones are not read
MAX_LINE = 300
#: what every ELAPSED or REAL match spells
CUES = ("lapsed", "real")


def _heading(lines: list[str], i: int) -> str | None:
    for j in range(i - 1, max(-1, i - 6), -1):
        t = lines[j].strip()
        if not t or t.lower().startswith(SKIP_HEADINGS):
            continue
        m = HEADING.match(t)
        return m.group("label").strip() if m else None
    return None


def find_timings(text: str) -> list[Result]:
    """Every elapsed time in ``text``; never raises."""
    out: list[Result] = []
    if not isinstance(text, str) or ("lapsed" not in text and "real" not in text):
        return out  # no line can match
    try:
        lines = text.split("\n")
        for i in word_lines(text, CUES):  # the lines holding a cue, found by searching the whole text
            line = lines[i]
            if len(line) > MAX_LINE:
                continue
            m = ELAPSED.match(line) or REAL.match(line)
            if not m:
                continue
            gd = m.groupdict()
            seconds = float(gd.get("h") or 0) * 3600 + float(gd.get("m") or 0) * 60 + float(gd["s"])
            out.append(
                Result(
                    metric="elapsed",
                    value=round(seconds, 6),
                    unit="s",
                    config=_heading(lines, i),
                    tool="time",
                    normalized_value=round(seconds * 1e6, 3),
                    normalized_unit="us",
                    evidence=Evidence(line_start=i, line_end=i, text=line),
                )
            )
    except Exception:
        log.exception("find_timings failed")
        return []
    return out
