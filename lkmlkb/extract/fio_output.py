"""Measured numbers in fio's own output, pasted into mail.

``find_fio_output(text)`` reads every form fio prints (normal output of fio
2.x and 3.x, terse lines, JSON) plus the summaries people paste beside it
(progress lines) and returns one
``Result`` per figure, with evidence line offsets within ``text``.

The module also holds the line preparation shared with ``tables``: quote
markers removed per line (so raw bodies and quote-stripped segments read the
same), over-long lines cut, and lines inside diffs, hexdumps and kernel stack
traces blanked so no number is ever taken from them.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from lkmlkb.extract.lines import word_lines
from lkmlkb.extract.metric_units import normalize, parse_count
from lkmlkb.model import Evidence, Result

log = logging.getLogger(__name__)

#: lines longer than this are cut before any pattern sees them
MAX_LINE = 4000
#: a JSON block longer than this many lines is not parsed
MAX_JSON_LINES = 20000


# --------------------------------------------------------------------------
# line preparation (shared with tables.py)

_QUOTE = re.compile(
    r"""
    ^(?:[ ]{0,2}>(?!=)[ ]?){1,30}   # "> ", "> > ", ">>"; never ">=64=0.0%" (fio's IO depths)
    """,
    re.VERBOSE,
)

_DIFF_START = re.compile(
    r"""
    ^(?: diff[ ]--git[ ]            # git diff header
       | Index:[ ]\S                # quilt / svn style
       | @@[ ]-\d{1,9}(?:,\d{1,9})?[ ]\+\d  # a hunk header standing alone
       | ---[ ](?:a/|\S{1,200}\.[ch]\b)     # "--- a/block/bio.c"
       | \+\+\+[ ](?:b/|\S)                 # "+++ b/block/bio.c"
    )
    """,
    re.VERBOSE,
)

_DIFF_BODY = re.compile(
    r"""
    ^(?: [ +\-\\]          # context, added, removed, "\ No newline"
       | @@[ ]             # hunk header
       | diff[ ] | index[ ]  # next file in the same patch
       | $                 # mailers strip the blank of an empty context line
    )
    """,
    re.VERBOSE,
)

_NOISE = re.compile(
    r"""
      ^\s{0,8}(?:[0-9a-fA-F]{6,16}:?|[0-9a-fA-F]{4,5}:)(?:\s{1,2}[0-9a-fA-F]{2,8}){4,40}   # hexdump -C / xxd rows "00000010: 7f45 4c46 ..."
    | ^\s{0,8}\[\s{0,8}\d{1,10}\.\d{3,9}\]                   # dmesg timestamp "[  123.456789]"
    | ^\s{0,8}(?:RIP|RSP|RAX|RDX|RBP|R10|R13|FS|CS|CR2|Code):\s   # x86 register dump / oops code line
    | ^\s{0,8}(?:Call[ ]Trace|Hardware[ ]name):                 # oops framing lines
    | ^\s{0,8}CPU:\s{1,3}\d{1,5}\s{1,3}PID:                     # "CPU: 3 PID: 1234 Comm: fio"
    """,
    re.VERBOSE,
)
#: a stack frame anywhere in a line, "blk_mq_run_hw_queue+0x1c/0x40"; tried only on lines holding "+0x"
_STACK_FRAME = re.compile(r"\b\w{1,80}\+0x[0-9a-f]{1,8}/0x[0-9a-f]{1,8}\b")


#: what a _NOISE match holds after its leading spaces: a hex digit (hexdump rows), "[" (dmesg), or the
#: first letter of a register, "Call Trace", "Code:", "CPU:" or "Hardware name" (C and F are hex digits)
_NOISE_FIRST = frozenset("0123456789abcdefABCDEF[RH")


def _is_noise(line: str) -> bool:
    """Whether a line is a hexdump row, a dmesg line, a register dump or a stack frame.

    _NOISE is tried only on a line that opens with a space or a character that may open a
    match (_NOISE_FIRST): most lines of prose open with another letter.
    """
    first = line[:1]
    return ((first in _NOISE_FIRST or first.isspace()) and bool(_NOISE.match(line))) or (
        "+0x" in line and bool(_STACK_FRAME.search(line))
    )


@dataclass(slots=True)  # slots: made for every line of every text, read by every finder
class Line:
    """One line of the input: the text to parse, and the text as written."""

    text: str
    raw: str
    depth: int = 0


#: the first character of every _DIFF_START match ("" lets an empty line be tried, as before)
_DIFF_FIRST = "dI@-+"

#: characters that open no _QUOTE, _DIFF_START, _DIFF_BODY or _NOISE match (whose first characters
#: are a space, ">", "d", "I", "@", "-", "+", "\\", "i", a hex digit, "[", "R", "H" and, after
#: spaces, the same): a line opening with one (most lines of prose) is noise only if it holds a
#: stack frame, and it ends a diff
_PLAIN_FIRST = frozenset("ghjklmnopqrstuvwxyzGJKLMNOPQSTUVWXYZ(*#/<'\"_=|&$%!?.,;:`~^{}]")

#: every empty input line is this one Line (a focused dmesg view is mostly empty lines); no finder changes a Line
_EMPTY = Line("", "", 0)


class Lines(list):
    """``prepare_lines``' result: a list of ``Line``, and ``filled``, the numbers of the lines
    whose ``text`` is not empty (a focused dmesg paste is mostly empty lines)."""

    filled: list[int]
    #: every line's ``text`` joined by newlines, made by ``joined_text`` when a finder first asks
    joined: str | None = None


def filled_lines(lines: list[Line]) -> list[int]:
    """Numbers of the lines whose ``text`` is not empty, in order: the only lines a pattern
    can match.  Taken from ``prepare_lines`` when it made ``lines``, else counted here."""
    got = getattr(lines, "filled", None)
    return got if got is not None else [i for i, ln in enumerate(lines) if ln.text]


def joined_text(lines: list[Line]) -> str:
    """The ``text`` of every line joined by newlines: line ``j`` of it is ``lines[j].text`` (no
    text holds a newline).  Made once per ``prepare_lines`` result, which keeps it."""
    got = getattr(lines, "joined", None)
    if got is None:
        got = "\n".join([ln.text for ln in lines])
        if isinstance(lines, Lines):
            lines.joined = got
    return got


def cue_lines(lines: list[Line], words: tuple[str, ...]) -> list[int]:
    """``word_lines`` of the lines' texts: the lines whose ``text`` holds one of ``words``."""
    return word_lines(joined_text(lines), words)


def prepare_lines(text: str) -> Lines:
    """Split ``text`` on newlines; strip quote markers; blank noise lines.

    Tolerates NULs, CRLF, lines of a megabyte (cut to ``MAX_LINE``), and the
    quoted text of raw bodies.  Lines inside a diff, a hexdump or a kernel
    stack trace come back with empty ``text`` so nothing is read from them.
    """
    out = Lines()
    filled: list[int] = []
    out.filled = filled
    if not text:
        return out
    raws = text.split("\n")
    out.extend([_EMPTY] * len(raws))
    in_diff = False
    nul = "\x00" in text  # else no line needs its NULs replaced
    quoted = ">" in text  # else no line opens with a quote marker
    # a blank line has no quote, keeps a diff open and is never noise: only the others are read
    for i in [i for i, raw in enumerate(raws) if raw]:
        raw = raws[i].rstrip("\r")
        cut = raw[:MAX_LINE].replace("\x00", " ") if nul else raw[:MAX_LINE]
        if cut[:1] in _PLAIN_FIRST:  # no quote marker, diff line or noise row: the next tests, shortened
            in_diff = False  # (not a _DIFF_BODY line)
            if "+0x" in cut and _STACK_FRAME.search(cut):
                out[i] = Line("", raw, 0)
            else:
                filled.append(i)
                out[i] = Line(cut, raw, 0)
            continue
        depth = 0
        if quoted and ">" in cut[:3]:  # every _QUOTE match holds ">" within its first three characters
            m = _QUOTE.match(cut)
            if m:
                depth = m.group(0).count(">")
                cut = cut[m.end() :]
        if in_diff and not _DIFF_BODY.match(cut):
            in_diff = False
        if not in_diff and cut[:1] in _DIFF_FIRST and _DIFF_START.match(cut):
            in_diff = True
        if in_diff or _is_noise(cut):
            out[i] = Line("", raw, depth)
            continue
        if cut:
            filled.append(i)
        out[i] = Line(cut, raw, depth)
    return out


def evidence(lines: list[Line], start: int, end: int) -> Evidence:
    """Evidence for lines ``start..end`` (inclusive), text as written."""
    end = max(start, min(end, len(lines) - 1))
    if start == end and 0 <= start < len(lines):  # most evidence is one line: its text as written
        return Evidence(line_start=start, line_end=end, text=lines[start].raw)
    return Evidence(line_start=start, line_end=end, text="\n".join(ln.raw for ln in lines[start : end + 1]))


_CONTINUATION = re.compile(
    r"""
    ^\s{0,16}(?: [A-Za-z_][\w]{0,30}=      # wrapped "io=263GiB", "samples=57259", "util=86.72%"
               | >=\d                      # wrapped IO depths ">=64=0.0%"
               | \(T\)                     # wrapped job header "(T) 8192B-8192B"
               | \d{1,3}\.\d{2}th=         # wrapped percentiles
             )
    """,
    re.VERBOSE,
)


def logical_lines(lines: list[Line], starts: list[int] | None = None) -> list[tuple[int, int, str]]:
    """Join lines a mailer or quoting wrapped: ``(first, last, joined text)``.

    A line ending in a comma continues on the next line when that line starts
    with a ``key=`` pair, ``>=N``, or ``(T)`` (corpus/000:
    ``READ: bw=448MiB/s ..., `` then ``io=263GiB (282GB), run=...``).  At most
    8 lines are joined.  With ``starts`` (ascending line numbers), only logical
    lines starting there are made: ``filled_lines(lines)`` leaves out the empty
    lines, each of which would be a logical line of its own.
    """
    out: list[tuple[int, int, str]] = []
    n = len(lines)
    after = 0  # the first line not yet in a logical line
    for i in range(n) if starts is None else starts:
        if i < after:
            continue
        start = i
        text = lines[i].text
        while (
            i + 1 < n
            and i - start < 8
            and text.rstrip().endswith(",")
            and lines[i + 1].text
            and _CONTINUATION.match(lines[i + 1].text)
        ):
            i += 1
            text = text.rstrip() + " " + lines[i].text.strip()
        out.append((start, i, text))
        after = i + 1
    return out


# --------------------------------------------------------------------------
# fio normal output

_NUM = r"\d{1,20}(?:\.\d{1,20})?"

_JOB_HEADER = re.compile(
    r"""
    ^\s{0,8}(?P<name>[^\s:]{1,100}):\s{0,2}\(g=(?P<g>\d{1,4})\):\s{0,4}rw=(?P<rw>[a-z]{1,12})
    # "job: (g=0): rw=write, bs=(R) 128KiB-128KiB, ..."
    """,
    re.VERBOSE,
)
_JOB_RESULT = re.compile(
    r"""
    ^\s{0,8}(?P<name>[^\s:]{1,100}):\s{0,2}\(groupid=(?P<g>\d{1,4}),\s{0,3}jobs=\d{1,6}\):\s{0,3}err=
    # "job: (groupid=0, jobs=48): err= 0: pid=6164: ..."
    """,
    re.VERBOSE,
)
_DIR_LINE = re.compile(
    r"""
    ^\s{0,16}(?P<dir>read|write|trim|mixed)\s{0,4}:\s{0,4}
    (?: IOPS=(?P<iops>"""
    + _NUM
    + r"""[kKmM]?),\s{0,3}BW=(?P<bw>"""
    + _NUM
    + r""")(?P<bwu>[KMGTP]?i?B/s)
        # fio 3: "write: IOPS=1884, BW=236MiB/s (247MB/s)(138GiB/600319msec)"
      | io=\S{1,30},\s{0,3}bw=(?P<bw2>"""
    + _NUM
    + r""")(?P<bwu2>[KMGTP]?i?B/s),\s{0,3}iops=(?P<iops2>"""
    + _NUM
    + r"""[kKmM]?)
        # fio 2: "write: io=138GB, bw=236MB/s, iops=1884, runt=600319msec"
    )
    """,
    re.VERBOSE,
)
_LAT_STATS = re.compile(
    r"""
    ^\s{0,16}(?P<kind>slat|clat|lat|sync)\s{0,3}\((?P<unit>nsec|usec|msec)\)\s{0,4}:\s{0,4}
    min=\s{0,8}"""
    + _NUM
    + r"""[kKmM]?,\s{0,3}max=\s{0,8}"""
    + _NUM
    + r"""[kKmM]?,\s{0,3}
    avg=\s{0,8}(?P<avg>"""
    + _NUM
    + r"""),\s{0,3}stdev=\s{0,8}(?P<stdev>"""
    + _NUM
    + r""")
    # "clat (msec): min=9, max=4941, avg=1602.56, stdev=339.05"; "clat (nsec): min=1593, max=23376k, ..."
    """,
    re.VERBOSE,
)
_PCT_HEADER = re.compile(
    r"""
    ^\s{0,16}(?P<kind>clat|lat|slat|sync)\s{1,3}percentiles\s{0,3}\((?P<unit>nsec|usec|msec)\):
    # "clat percentiles (msec):"
    """,
    re.VERBOSE,
)
_PCT_ENTRY = re.compile(
    r"""
    (?P<p>\d{1,3}\.\d{1,4})th=\[\s{0,12}(?P<v>\d{1,20})\]   # "99.00th=[ 2869]"
    """,
    re.VERBOSE,
)
_BW_SAMPLES = re.compile(
    r"""
    ^\s{0,16}bw\s{0,3}\(\s{0,3}(?P<unit>[KMGT]?i?B)\s{0,3}/s\):\s{0,3}
    min=\s{0,12}\d{1,20},\s{0,3}max=\s{0,12}\d{1,20},\s{0,3}per=[\d.]{1,10}%,\s{0,3}
    avg=\s{0,12}(?P<avg>"""
    + _NUM
    + r"""),\s{0,3}stdev=\s{0,12}(?P<stdev>"""
    + _NUM
    + r""")
    (?:,\s{0,3}samples=\s{0,12}(?P<n>\d{1,12}))?
    # fio 3 "bw (  KiB/s): min=47229, max=516492, per=100.00%, avg=241546.47, stdev=1326.92, samples=57259"
    # fio 2 "bw (KB  /s): min= 1024, max= 2048, per=100.00%, avg=1536.00, stdev=12.00"
    """,
    re.VERBOSE,
)
_IOPS_SAMPLES = re.compile(
    r"""
    ^\s{0,16}iops\s{0,12}:\s{0,3}min=\s{0,12}\d{1,20},\s{0,3}max=\s{0,12}\d{1,20},\s{0,3}
    avg=\s{0,12}(?P<avg>"""
    + _NUM
    + r"""),\s{0,3}stdev=\s{0,12}(?P<stdev>"""
    + _NUM
    + r""")
    # "iops        : min=  322, max= 3996, avg=1843.17, stdev=10.39, samples=57259"
    """,
    re.VERBOSE,
)
_CPU = re.compile(
    r"""
    ^\s{0,16}cpu\s{0,12}:\s{0,3}usr=(?P<usr>"""
    + _NUM
    + r""")%,\s{0,3}sys=(?P<sys>"""
    + _NUM
    + r""")%
    # "cpu          : usr=0.08%, sys=0.16%, ctx=1096948, majf=0, minf=1995"
    """,
    re.VERBOSE,
)
_GROUP_HEADER = re.compile(
    r"""
    ^\s{0,16}Run\ status\ group\ (?P<g>\d{1,4})\ \(all\ jobs\):   # "Run status group 0 (all jobs):"
    """,
    re.VERBOSE,
)
_GROUP_LINE = re.compile(
    r"""
    (?<![\w])(?P<dir>READ|WRITE|TRIM|MIXED):\s{1,4}
    (?: bw=(?P<bw>"""
    + _NUM
    + r""")(?P<bwu>[KMGTP]?i?B/s)
        # fio 3 "WRITE: bw=236MiB/s (247MB/s), ..."; also found inline: "5.17.0  WRITE: bw=4988MiB/s"
      | io=\S{1,30},\s{0,3}aggrb=(?P<bw2>"""
    + _NUM
    + r""")(?P<bwu2>[KMGTP]?i?B/s)
        # fio 2 "WRITE: io=138GB, aggrb=236MB/s, minb=..., maxb=..."
    )
    """,
    re.VERBOSE,
)
_DISK_HEADER = re.compile(r"^\s{0,16}Disk\ stats\ \(read/write\):", re.VERBOSE)  # "Disk stats (read/write):"
_DISK_LINE = re.compile(
    r"""
    ^\s{0,24}(?P<dev>[A-Za-z][\w.\-/]{0,60}):\s{1,3}ios=\d   # "dm-1: ios=418480/0, merge=..."
    """,
    re.VERBOSE,
)
_UTIL = re.compile(r"(?<![\w])util=(?P<u>" + _NUM + r")%", re.VERBOSE)  # "util=98.28%", not "aggrutil="
_PROGRESS = re.compile(
    r"""
    ^\s{0,16}Jobs:\s{1,3}\d{1,6}\s{0,3}\(f=\d{1,6}\)   # "Jobs: 4 (f=4): [F(4)][100.0%][w=5168MiB/s][w=5168 IOPS][eta 00m:00s]"
    """,
    re.VERBOSE,
)
_PROGRESS_ITEM = re.compile(
    r"""
    (?P<d>[rwt])=(?: (?P<v>"""
    + _NUM
    + r""")(?P<u>[KMGTP]?i?B/s)     # "w=5168MiB/s"
                   | (?P<c>"""
    + _NUM
    + r"""[kKmM]?)\ IOPS           # "r=1559 IOPS", "w=94.0k IOPS"
                 )
    """,
    re.VERBOSE,
)


def _refine(direction: str, rw: str | None) -> str:
    """``write`` + job ``rw=randwrite`` -> ``randwrite``; ``read`` + ``randrw`` -> ``randread``."""
    if rw and rw.startswith("rand") and direction in ("read", "write", "trim"):
        return "rand" + direction
    return direction


def _result(
    metric: str,
    value: float,
    unit: str,
    ev: Evidence,
    direction: str | None = None,
    stddev: float | None = None,
    config: str | None = None,
    samples=None,
) -> Result:
    nv, nu = normalize(value, unit)
    return Result(
        metric=metric,
        value=value,
        unit=unit,
        tool="fio",
        direction=direction,
        stddev=stddev,
        config=config,
        samples=list(samples or []),
        normalized_value=nv,
        normalized_unit=nu,
        evidence=ev,
    )


class _FioState:
    """What the normal-output reader knows at the current line."""

    def __init__(self) -> None:
        self.rw_by_job: dict[str, str] = {}
        self.rw_by_group: dict[str, set[str]] = {}
        self.job_rw: str | None = None
        self.direction: str | None = None
        self.group_rw: str | None = None
        self.section: str | None = None  # disk | pct
        self.pct: tuple[str, str] | None = None


#: (pattern, a literal each of its matches holds): a pattern is tried only on a line holding its
#: literal, which costs less than the match (a pasted run's lines are each tried against most of them)
NORMAL_LITERALS = [
    (_JOB_HEADER, "(g="),
    (_JOB_RESULT, "(groupid="),
    (_DIR_LINE, ("IOPS=", "io=")),
    (_LAT_STATS, "min="),
    (_PCT_HEADER, "percentiles"),
    (_BW_SAMPLES, "per="),
    (_IOPS_SAMPLES, "min="),
    (_CPU, "usr="),
    (_GROUP_HEADER, "Run status group "),
    (_GROUP_LINE, ("READ:", "WRITE:", "TRIM:", "MIXED:")),
    (_DISK_HEADER, "Disk stats"),
    (_PROGRESS, "Jobs:"),
]
_LITERALS = {rx: (lit,) if isinstance(lit, str) else lit for rx, lit in NORMAL_LITERALS}
#: every literal of NORMAL_LITERALS in one pattern: a line holding none of them matches no pattern, so
#: outside a percentile or disk-stats section (whose lines need no literal) it is passed over with one
#: search instead of twelve tests (a flood of Outlook header lines, "From: A", holds no literal)
_ANY_LITERAL = re.compile(
    "|".join(re.escape(w) for w in sorted({w for ws in _LITERALS.values() for w in ws}))
)
#: the sections whose lines are read without a literal (see _read_normal_line)
_LITERAL_FREE_SECTIONS = ("pct", "disk")


def _holds(rx: re.Pattern, text: str) -> bool:
    """Whether ``text`` holds ``rx``'s literal (NORMAL_LITERALS): else ``rx`` cannot match it."""
    for w in _LITERALS[rx]:  # noqa: SIM110 - cheaper than any() over a generator; asked a dozen times a fio line
        if w in text:
            return True
    return False


def _read_normal_line(st: _FioState, lines: list[Line], a: int, b: int, text: str) -> list[Result]:
    """Results from one logical line of fio's normal output, given the state.

    Each pattern is tried only where the line holds its literal (NORMAL_LITERALS).
    """
    ev = None

    def _ev() -> Evidence:  # made once a figure is found (most lines hold none), shared by its results
        nonlocal ev
        if ev is None:
            ev = evidence(lines, a, b)
        return ev

    out: list[Result] = []
    m = _JOB_HEADER.match(text) if _holds(_JOB_HEADER, text) else None
    if m:
        st.rw_by_job[m["name"]] = m["rw"]
        st.rw_by_group.setdefault(m["g"], set()).add(m["rw"])
        st.section = None
        return out
    m = _JOB_RESULT.match(text) if _holds(_JOB_RESULT, text) else None
    if m:
        st.job_rw = st.rw_by_job.get(m["name"])
        if st.job_rw is None and len(st.rw_by_group.get(m["g"], ())) == 1:
            st.job_rw = next(iter(st.rw_by_group[m["g"]]))
        st.section = None
        return out
    m = _DIR_LINE.match(text) if _holds(_DIR_LINE, text) else None
    if m:
        st.direction = _refine(m["dir"], st.job_rw)
        bw, bwu, iops = (m["bw"], m["bwu"], m["iops"]) if m["bw"] else (m["bw2"], m["bwu2"], m["iops2"])
        out.append(_result("bw", float(bw), bwu, _ev(), st.direction))
        count = parse_count(iops)
        if count is not None:
            out.append(_result("iops", count, "IOPS", _ev(), st.direction))
        st.section = None
        return out
    m = _LAT_STATS.match(text) if _holds(_LAT_STATS, text) else None
    if m:
        out.append(_result(m["kind"], float(m["avg"]), m["unit"], _ev(), st.direction, float(m["stdev"])))
        return out
    m = _PCT_HEADER.match(text) if _holds(_PCT_HEADER, text) else None
    if m:
        st.section, st.pct = "pct", (m["kind"], m["unit"])
        return out
    if st.section == "pct" and text.lstrip().startswith("|") and st.pct:
        for pm in _PCT_ENTRY.finditer(text):
            pct = pm["p"].rstrip("0").rstrip(".")
            out.append(_result("%s_p%s" % (st.pct[0], pct), float(pm["v"]), st.pct[1], _ev(), st.direction))
        return out
    m = _BW_SAMPLES.match(text) if _holds(_BW_SAMPLES, text) else None
    if m:
        out.append(
            _result("bw_mean", float(m["avg"]), m["unit"] + "/s", _ev(), st.direction, float(m["stdev"]))
        )
        return out
    m = _IOPS_SAMPLES.match(text) if _holds(_IOPS_SAMPLES, text) else None
    if m:
        out.append(_result("iops_mean", float(m["avg"]), "IOPS", _ev(), st.direction, float(m["stdev"])))
        return out
    m = _CPU.match(text) if _holds(_CPU, text) else None
    if m:
        out.append(_result("cpu_usr", float(m["usr"]), "%", _ev(), st.direction))
        out.append(_result("cpu_sys", float(m["sys"]), "%", _ev(), st.direction))
        return out
    m = _GROUP_HEADER.match(text) if _holds(_GROUP_HEADER, text) else None
    if m:
        rws = st.rw_by_group.get(m["g"], set())
        st.group_rw = next(iter(rws)) if len(rws) == 1 else None
        st.section = "group"
        return out
    if _holds(_GROUP_LINE, text) and _GROUP_LINE.search(text):
        for gm in _GROUP_LINE.finditer(text):
            rw = st.group_rw if st.section == "group" else None
            bw, bwu = (gm["bw"], gm["bwu"]) if gm["bw"] else (gm["bw2"], gm["bwu2"])
            out.append(_result("bw", float(bw), bwu, _ev(), _refine(gm["dir"].lower(), rw)))
        return out
    if _holds(_DISK_HEADER, text) and _DISK_HEADER.match(text):
        st.section = "disk"
        return out
    if st.section == "disk":
        m = _DISK_LINE.match(text)
        if m:
            um = _UTIL.search(text)
            if um:
                out.append(_result("util", float(um["u"]), "%", _ev(), None, config=m["dev"]))
            return out
        if text.strip():
            st.section = None
    if _holds(_PROGRESS, text) and _PROGRESS.match(text):
        for pm in _PROGRESS_ITEM.finditer(text):
            d = {"r": "read", "w": "write", "t": "trim"}[pm["d"]]
            if pm["c"]:
                count = parse_count(pm["c"])
                if count is not None:
                    out.append(_result("iops_progress", count, "IOPS", _ev(), d))
            else:
                out.append(_result("bw_progress", float(pm["v"]), pm["u"], _ev(), d))
        return out
    return out


def find_normal_output(lines: list[Line]) -> list[Result]:
    """Results from fio's normal (human) output, fio 2.x and 3.x."""
    if not _ANY_LITERAL.search(joined_text(lines)):
        # no line holds a literal, and a logical line holds one only where one of its lines does
        # (lines are joined at ", ", which no literal spells): no pattern matches, no section opens
        return []
    st = _FioState()
    out: list[Result] = []
    after = 0
    for a, b, text in logical_lines(lines, filled_lines(lines)):
        if a > after and st.section == "pct":  # empty lines in between end a percentile section
            st.section = None
        after = b + 1
        if not text.strip():
            if st.section == "pct":
                st.section = None
            continue
        if st.section != "disk" and "=" not in text and ":" not in text:
            continue  # every pattern spells "=" or ":"; only a disk-stats section ends on such a line
        if st.section not in _LITERAL_FREE_SECTIONS and not _ANY_LITERAL.search(text):
            continue  # no pattern can match and no state changes: _read_normal_line would find nothing
        out.extend(_read_normal_line(st, lines, a, b, text))
    return out


# --------------------------------------------------------------------------
# terse output

_TERSE = re.compile(
    r"""
    ^\s{0,4}(?P<ver>[2-5]);(?:fio-[\w.\-+]{1,40};)?[^;]{0,200};\d{1,4};\d{1,6};   # "3;fio-3.19;job;0;0;..."
    """,
    re.VERBOSE,
)

#: what every _TERSE match holds: the lines holding it are found by one search over the text
_TERSE_CUE = (";",)

#: terse version -> (index of the read block's io_kb, block stride, directions)
_TERSE_LAYOUT = {
    "2": (4, 41, ("read", "write")),
    "3": (5, 41, ("read", "write")),
    "4": (5, 41, ("read", "write", "trim")),
    "5": (5, 47, ("read", "write", "trim")),
}


def find_terse_output(lines: list[Line]) -> list[Result]:
    """Results from ``--output-format=terse`` lines (terse versions 2 to 5).

    Per direction: bw (KiB/s), iops, and clat mean (usec) where the I/O total
    is not zero.  Lines with too few fields are skipped.
    """
    out: list[Result] = []
    for i in cue_lines(lines, _TERSE_CUE):
        ln = lines[i]
        m = _TERSE.match(ln.text)
        if not m:
            continue
        fields = ln.text.strip().split(";")
        start, stride, dirs = _TERSE_LAYOUT[m["ver"]]
        if len(fields) < start + stride * len(dirs):
            continue
        ev = evidence(lines, i, i)
        name = fields[start - 3]
        for k, d in enumerate(dirs):
            base = start + k * stride
            try:
                io_kb, bw, iops = float(fields[base]), float(fields[base + 1]), float(fields[base + 2])
                clat_mean, clat_dev = float(fields[base + 10]), float(fields[base + 11])
            except ValueError:
                continue
            if io_kb <= 0:
                continue
            out.append(_result("bw", bw, "KiB/s", ev, d, config=name))
            out.append(_result("iops", iops, "IOPS", ev, d, config=name))
            out.append(_result("clat", clat_mean, "usec", ev, d, clat_dev, config=name))
    return out


# --------------------------------------------------------------------------
# JSON output

_JSON_OPEN = re.compile(r"^\s{0,8}\{\s{0,8}$")  # the "{" fio prints first
_JSON_VERSION = re.compile(r'^\s{0,16}"fio version"\s{0,4}:')  # '"fio version" : "fio-3.33",'
_JSON_OPEN_CUE = ("{",)  # what every _JSON_OPEN match holds


def _json_block(lines: list[Line], start: int) -> tuple[int, object] | None:
    """The JSON document starting at ``lines[start]``: (last line, parsed) or None."""
    depth = 0
    parts: list[str] = []
    for j in range(start, min(len(lines), start + MAX_JSON_LINES)):
        t = lines[j].text
        parts.append(t)
        depth += t.count("{") + t.count("[") - t.count("}") - t.count("]")
        if depth <= 0:
            try:
                return j, json.loads("\n".join(parts))
            except ValueError as e:
                log.info("fio JSON block at line %d not parseable: %s", start, e)
                return None
    return None


def _json_line_of(lines: list[Line], start: int, end: int, needle: str) -> int:
    """First line in start..end containing ``needle`` (for evidence), else start."""
    for j in range(start, end + 1):
        if needle in lines[j].text:
            return j
    return start


def find_json_output(lines: list[Line]) -> list[Result]:
    """Results from ``--output-format=json``: per job and direction, bw (KiB/s), iops, clat mean (ns)."""
    out: list[Result] = []
    after = 0  # the first line past the last JSON document read
    for i in cue_lines(lines, _JSON_OPEN_CUE):
        if i < after:
            continue
        if not (
            _JSON_OPEN.match(lines[i].text)
            and any(_JSON_VERSION.match(lines[k].text) for k in range(i + 1, min(i + 4, len(lines))))
        ):
            continue
        block = _json_block(lines, i)
        if block is None:
            continue
        end, doc = block
        jobs = doc.get("jobs") if isinstance(doc, dict) else None
        cursor = i
        for job in jobs if isinstance(jobs, list) else []:
            if not isinstance(job, dict):
                continue
            name = str(job.get("jobname", ""))
            cursor = _json_line_of(lines, cursor, end, '"%s"' % name) if name else cursor
            rw = (
                (job.get("job options") or {}).get("rw") if isinstance(job.get("job options"), dict) else None
            )
            for d in ("read", "write", "trim"):
                st = job.get(d)
                if not isinstance(st, dict) or not st.get("io_bytes"):
                    continue
                at = _json_line_of(lines, cursor, end, '"%s" : {' % d)
                ev = evidence(lines, at, _json_line_of(lines, at, end, '"iops"'))
                dd = _refine(d, rw)
                try:
                    out.append(_result("bw", float(st["bw"]), "KiB/s", ev, dd, config=name or None))
                    out.append(_result("iops", float(st["iops"]), "IOPS", ev, dd, config=name or None))
                    clat = st.get("clat_ns") or {}
                    if isinstance(clat, dict) and clat.get("N"):
                        out.append(
                            _result(
                                "clat",
                                float(clat["mean"]),
                                "nsec",
                                ev,
                                dd,
                                float(clat.get("stddev") or 0.0),
                                config=name or None,
                            )
                        )
                except (KeyError, TypeError, ValueError):
                    log.info("fio JSON job %r: direction %s has no usable bw/iops", name, d)
        after = end + 1
    return out


# --------------------------------------------------------------------------


def find_fio_output(text: str, lines: list[Line] | None = None) -> list[Result]:
    """Every figure in fio output found in ``text`` (normal, terse, JSON).

    ``lines`` is ``prepare_lines(text)`` when the caller has it already.
    Never raises: any input (garbage, NULs, a megabyte on one line) yields a
    list, possibly empty.
    """
    try:
        if lines is None:
            lines = prepare_lines(text)
        out = find_normal_output(lines)
        out.extend(find_terse_output(lines))
        out.extend(find_json_output(lines))
        return out
    except Exception:
        log.exception("find_fio_output failed")
        return []
