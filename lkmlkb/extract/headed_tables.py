"""Tables of a tool's figures under a heading that names what they were measured on.

Fix patches and reports paste a benchmark's own table once per condition, each under a line
saying which ("before 7e55c60acfbb:", "After merging checkpoint buffer cleanup:", "After this
fix:", "This improves the performance to:"): a header of column names, then rows of figures
only (iozone -R, fs_mark)::

    before 7e55c60acfbb:
                  KB  reclen   write rewrite    read    reread
           131072000       4  493670  525964   524575   513384

Each figure becomes a result of its column (``metric`` the column's name, the unit where the
name is one: ``Files/sec``), with the heading as its ``config`` (and its ``kernel`` when the
heading names one).  Columns are matched to figures by where they end: tools right-align their
numbers under their names.  Which heading is the baseline is the report's to decide.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract.fio_output import Line
from lkmlkb.extract.kernel_versions import find_versions
from lkmlkb.extract.metric_units import normalize
from lkmlkb.model import Evidence, Result

log = logging.getLogger(__name__)

#: a heading: a short line of words ending in ":" ("before 7e55c60acfbb:", "After this fix:")
HEADING = re.compile(r"^[ \t]{0,8}(?P<label>[A-Za-z][^:|=]{0,78}?)[ \t]{0,3}:[ \t]*$")
#: a header of column names: words only (no figure), at least three
_NAME = re.compile(r"[A-Za-z%][\w%/.()-]{0,30}")
#: a row of figures only: "131072000       4  493670  525964"
_ROW = re.compile(
    r"^[ \t]{0,16}(?:[-+]?\d{1,20}(?:\.\d{1,12})?[ \t]{1,30}){1,30}[-+]?\d{1,20}(?:\.\d{1,12})?[ \t]*$"
)
_CELL = re.compile(r"[-+]?\d{1,20}(?:\.\d{1,12})?")
#: how many lines may stand between a heading and the header it names
HEADING_REACH = 3
#: the fewest columns a header has (two would be any "key value" pair)
MIN_COLUMNS = 3


def _header(text: str) -> list[tuple[int, str]] | None:
    """(end column, name) of each column name of a header line; None when it is no header (a
    figure in it, fewer than three names, or more than names on it)."""
    if any(ch.isdigit() for ch in text):
        return None
    names = [(m.end(), m.group(0)) for m in _NAME.finditer(text)]
    if len(names) < MIN_COLUMNS:
        return None
    if len("".join(text.split())) != sum(len(n) for _e, n in names):
        return None  # punctuation between the words: prose, not a header
    return names


def _unit_of(name: str) -> str:
    """A column name that is itself a unit ("Files/sec", "MB/s", "IOPS") is the figures' unit."""
    if "/" in name or name.lower() == "iops":
        return name
    return ""


def _columns(cells: list[re.Match[str]], names: list[tuple[int, str]]) -> list[tuple[re.Match[str], str]]:
    """Each figure of a row with its column's name: in order when there are as many figures as
    names; else each to the name ending nearest it (tools right-align figures under their
    names), and none of the row when two figures fall under one name or one is far from all."""
    if len(cells) == len(names):
        return [(m, name) for m, (_end, name) in zip(cells, names)]
    out = []
    for m in cells:
        end, name = min(names, key=lambda n: abs(n[0] - m.end()))
        if abs(end - m.end()) > len(name) + 2:
            return []
        out.append((m, name))
    if len({name for _m, name in out}) != len(out):
        return []
    return out


def find_headed_tables(lines: list[Line]) -> list[Result]:
    """Every figure of a table under a heading naming its condition; never raises."""
    try:
        return _find(lines)
    except Exception:
        log.exception("find_headed_tables failed")
        return []


def _find(lines: list[Line]) -> list[Result]:
    out: list[Result] = []
    heading: tuple[int, str] | None = None  # (line, label) of the heading in force
    i = 0
    while i < len(lines):
        text = lines[i].text
        # HEADING needs a ":"; a line without one (most lines, blank ones too) is not matched
        h = HEADING.match(text) if ":" in text else None
        if h and not _ROW.match(text):
            heading = (i, h.group("label").strip())
            i += 1
            continue
        names = _header(text) if heading is not None and i - heading[0] <= HEADING_REACH + 1 else None
        if names is None or i + 1 >= len(lines) or not _ROW.match(lines[i + 1].text):
            i += 1
            continue
        label = heading[1]
        found = find_versions(label)
        kernel = found[0][3] if found else None
        j = i + 1
        while j < len(lines) and _ROW.match(lines[j].text):
            for m, name in _columns(list(_CELL.finditer(lines[j].text)), names):
                value = float(m.group(0))
                unit = _unit_of(name)
                nv, nu = normalize(value, unit) if unit else (None, None)
                out.append(
                    Result(
                        metric=name.lower(),
                        value=value,
                        unit=unit,
                        kernel=kernel,
                        config=label,
                        tool="table",
                        normalized_value=nv,
                        normalized_unit=nu,
                        evidence=Evidence(line_start=j, line_end=j, text=lines[j].text[:500]),
                    )
                )
            j += 1
        # a second header right after (another run under the same heading) keeps the heading in force
        heading = (j - 1, label)
        i = j
    return out
