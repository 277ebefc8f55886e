"""Helpers shared by the fio finders: line splitting, leftover quote markers, FioJob building."""

from __future__ import annotations

import re

from lkmlkb.fio import catalog, units
from lkmlkb.model import Evidence, FioJob

#: lines longer than this are not looked at (a 1 MB base64 line is never a fio option)
MAX_LINE = 4000

QUOTE_PREFIX_RE = re.compile(
    r"""
    ^(?:[ \t]{0,4}>[ \t]?){1,40}     # leftover "> > > " quote markers (corpus/003 is quoted 4 deep)
    """,
    re.VERBOSE,
)


def split_lines(text: str) -> list[str]:
    """Split on newlines only (not on form feeds or U+2028), so line offsets match the caller's."""
    lines = text.replace("\0", "").split("\n")
    if "\r" not in text:  # no line can end in CR: skip the per-line pass
        return lines
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def clean_line(line: str) -> str:
    """A line without leftover ``> `` quote markers; over-long lines are cut to MAX_LINE."""
    if len(line) > MAX_LINE:
        line = line[:MAX_LINE]
    if line.lstrip(" \t").startswith(">"):
        line = QUOTE_PREFIX_RE.sub("", line, count=1)
    return line


def make_job(
    name: str,
    form: str,
    options: dict[str, str],
    global_options: dict[str, str],
    notes: list[str],
    line_start: int,
    line_end: int,
    evidence_text: str,
) -> FioJob:
    """A FioJob with unknown option names listed and values normalized beside the raw ones."""
    unknown = [k for k in options if not catalog.is_known(k)]
    return FioJob(
        name=name,
        form=form,
        options=dict(options),
        global_options=dict(global_options),
        normalized=units.normalize_options(options),
        unknown_options=unknown,
        notes=list(dict.fromkeys(notes)),
        evidence=Evidence(line_start=line_start, line_end=line_end, text=evidence_text),
    )
