"""fio jobs written in mail, found.

``find_fio_jobs(text)`` runs every finder over one dequoted text (job files,
command lines and shell scripts, prose parameters, kernel test robot records)
and drops a job found twice.  ``fio_version(text)`` finds "fio-3.19".
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract.lines import word_lines
from lkmlkb.fio.cmdline import find_cmdlines
from lkmlkb.fio.inline import find_inline
from lkmlkb.fio.jobfile import find_jobfiles
from lkmlkb.model import FioJob

log = logging.getLogger(__name__)

FIO_VERSION_RE = re.compile(
    r"""
    (?<![\w/.-])fio-(?P<v>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?![\w.]*\.(?:tar|gz|rpm|deb)\b)(?!\d)   # "fio-3.19", "fio-3.33" in JSON
    |\bfio\ version\ (?P<v2>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)\b                                      # "fio version 3.35"
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: how LKP's job-script writes the fio task it runs: "echo '[global]" then the options
ROBOT_RENDERING = re.compile(r"[ \t]{0,8}echo[ \t]{1,3}['\"]\[global\]")

#: the characters FIO_VERSION_RE (case-insensitive) takes for "i" or "s" that lowercase to something else
_TWINS = "\u0130\u0131\u017f"


def _finders():
    return [("jobfile", find_jobfiles), ("cmdline", find_cmdlines), ("inline", find_inline)]


def _key(job: FioJob) -> tuple:
    return (job.name if job.form != "inline" else "", tuple(sorted(job.options.items())))


def _overlaps(a: FioJob, b: FioJob) -> bool:
    return a.evidence.line_start <= b.evidence.line_end and b.evidence.line_start <= a.evidence.line_end


def find_fio_jobs(text: str) -> list[FioJob]:
    """Every fio job in ``text`` (quote markers removed; leftovers tolerated), in text order.

    A job is dropped when an earlier one has the same name and options (the
    same job pasted twice), or when an inline/LKP record's options are all
    contained in a job whose evidence overlaps it.  A failing finder is logged
    and skipped; this never raises.
    """
    if not isinstance(text, str) or not text:
        return []
    found: list[FioJob] = []
    for name, finder in _finders():
        try:
            found.extend(finder(text))
        except Exception:  # a finder bug must not lose the other finders' jobs
            log.exception("fio %s finder failed on a text of %d chars", name, len(text))
    found.sort(key=lambda j: (j.evidence.line_start, j.evidence.line_end))
    kept: list[FioJob] = []
    seen: set[tuple] = set()
    for job in found:
        key = _key(job)
        if key in seen:
            continue
        if job.form in ("inline", "lkp-params") and any(
            _overlaps(job, k) and job.options.items() <= k.options.items() for k in kept
        ):
            continue
        seen.add(key)
        kept.append(job)
    if any(j.form == "lkp-params" for j in kept):
        # the kernel test robot's job-script renders its parameters block as a fio task (echo
        # '[global] ...' | fio): one workload, described once, by the parameters the report gives
        kept = [j for j in kept if not (j.form == "jobfile" and ROBOT_RENDERING.match(j.evidence.text or ""))]
    return kept


def fio_version(text: str) -> str | None:
    """The first fio version the text names: "fio-3.19" (also from ``fio version 3.35``)."""
    if not isinstance(text, str):
        return None
    head = text[:5_000_000]
    low = head.lower()
    if "fio" not in low:
        return None
    if (
        "fio-" not in low
        and "fio version" not in low
        and (head.isascii() or not any(c in head for c in _TWINS))
    ):
        return None  # a match, lowercased, spells one of them unless a case twin stands in for a letter
    # only the lines whose lowercased text holds "fio" are searched, in order: found by str.find in the
    # text lowercased at once (the same characters, line by line: a line break is no cased letter)
    lines = head.split("\n")
    for i in word_lines(low, ("fio",)):
        if len(lines[i]) <= 4000:
            m = FIO_VERSION_RE.search(lines[i])
            if m:
                return "fio-" + (m.group("v") or m.group("v2"))
    return None


__all__ = ["find_fio_jobs", "fio_version"]
