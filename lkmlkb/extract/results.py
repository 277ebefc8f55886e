"""All measured numbers in a text, each attributed to a kernel where the text does.

``find_results(text)`` runs the fio-output and table extractors, then for each
result without a kernel looks for the kernel the writer meant:

1. a kernel opening the result's own line (``5.17.0  WRITE: bw=4988MiB/s``);
2. the nearest kernel heading above, in the same quote level, within 60
   lines (``6.8-rc7: 2 block devices with multi-path:``, ``5.15.y result``,
   ``6.8-rc7+ Revert : 2 block devices``), or a kernel in prose a few lines
   above when that is nearer (``I applied c8ed1b359312 on 6.1.36.``), skipping
   sentences that say a kernel was *not* tested (``6.5-rc1 is yet not ready``);
3. a ``kernel: ...`` line anywhere in the same quote level block
   (``- kernel: latest linus tree(v5.12-rc7, ...)`` below a table, corpus/001).

The same figure read twice from identical lines (a quoted repeat) is kept
once.  Labels (baseline/regressed) are left None: the report builder decides.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Iterator

from lkmlkb.extract.commits import looks_like_sha
from lkmlkb.extract.fio_output import Line, filled_lines, find_fio_output, prepare_lines
from lkmlkb.extract.headed_tables import find_headed_tables
from lkmlkb.extract.kernel_versions import find_versions, normalize_version, opens_with_version, qualifier
from lkmlkb.extract.measurements import CONDITION_LINE, condition_label, find_measurements
from lkmlkb.extract.pairs import find_pairs
from lkmlkb.extract.tables import find_tables
from lkmlkb.extract.timing import find_timings
from lkmlkb.model import Result

log = logging.getLogger(__name__)

#: how far up from a result its heading (a kernel naming the block) may be: a fio run's output
HEADING_WINDOW = 60
#: ... and the prose naming its kernel: the sentence introducing it
PROSE_WINDOW = 6

_NEGATED = re.compile(
    r"""
    \b(?: not\ (?:yet\ )?(?:ready|done|tested|finished|available|run)   # "6.5-rc1 is yet not ready"
        | yet\ to | (?:is|are|was|were)n't | will\ (?:test|try|run)       # "will test 6.9 next"
        | haven't | have\ not | didn't | did\ not
    )\b
    """,
    re.VERBOSE | re.IGNORECASE,
)
_HEAD_LEAD = (
    "", "on", "kernel", "linux", "-", "*", "with", "for", "test on", "tested on", "results on",
    # a block of a tool's output per kernel: "result of 6.6.15(rc1)" over dbench's table (linux-btrfs)
    "result of", "results of", "result on", "result for", "results for",
)  # fmt: skip
_KERNEL_KV = re.compile(
    r"""
    ^\W{0,6}(?:kernel|kernel\ version|linux|uname\ -r)\s{0,3}:   # "- kernel: latest linus tree(v5.12-rc7, ...)"
    """,
    re.VERBOSE | re.IGNORECASE,
)


def _heading_kernel(text: str) -> tuple[str, str] | None:
    """(version, raw) when a short line opens with a kernel version (a heading)."""
    t = text.strip()
    if not t or len(t) > 80 or not opens_with_version(t, _HEAD_LEAD):  # most lines: no version read
        return None
    for start, _end, raw, norm in find_versions(t):
        lead = t[:start].strip().lower().rstrip(":")
        if lead in _HEAD_LEAD:
            return norm, raw
        return None
    return None


def _prose_kernel(text: str) -> tuple[str, str] | None:
    """(version, raw) of the first kernel in a prose line that does not deny testing it."""
    if not text.strip() or _NEGATED.search(text[:400]):
        return None
    found = find_versions(text[:400])
    if not found:
        return None
    _, _, raw, norm = found[0]
    return norm, raw


class _LineKernels:
    """Per-line kernel lookups, computed once per line (results share windows).

    ``result_lines`` are the lines holding a result, which the walk up from a
    result passes over; they are fixed for one text, so what is found above a
    line can be kept for the next result that walks past it (``event``).
    """

    def __init__(self, lines: list[Line], result_lines: set[int] | frozenset[int] = frozenset()) -> None:
        self.lines = lines
        self.result_lines = result_lines
        self._heading: dict[int, tuple[str, str] | None] = {}
        self._prose: dict[int, tuple[str, str] | None] = {}
        self._sentence: dict[int, bool] = {}
        self._runs: _DepthRuns | None = None  # made when a result first needs it
        self._block: dict[int, tuple[str, str] | None] = {}
        #: per quote depth: line k -> (line, bottom): ``line`` is the last line of ``bottom..k`` that is
        #: an event (see ``event``) at that depth, None when none of them is
        self._events: dict[int, dict[int, tuple[int | None, int]]] = {}

    def heading(self, j: int) -> tuple[str, str] | None:
        if j not in self._heading:
            self._heading[j] = _heading_kernel(self.lines[j].text)
        return self._heading[j]

    def prose(self, j: int) -> tuple[str, str] | None:
        if j not in self._prose:
            self._prose[j] = _prose_kernel(self.lines[j].text)
        return self._prose[j]

    def sentence(self, j: int) -> bool:
        """Whether line ``j`` is prose (:data:`_PROSE_LINE`), not a tool's output."""
        if j not in self._sentence:
            self._sentence[j] = _PROSE_LINE.search(self.lines[j].text) is not None
        return self._sentence[j]

    def block(self, i: int) -> tuple[str, str] | None:
        if self._runs is None:
            self._runs = _DepthRuns(self.lines)
        start, end, depth = self._runs.run(i)
        if start not in self._block:
            self._block[start] = _block_kernel(self.lines, start, end, depth)
        return self._block[start]

    def event(self, k: int, lo: int, depth: int) -> int | None:
        """The last line of ``lo..k`` that ends the walk of a result at quote depth ``depth`` above
        its prose window, else None: a line of another depth that is not blank (the end of the
        quote level), or a kernel heading not on a result line.

        These are the only lines that walk stops at, so the answer for ``k`` holds for every
        result whose walk passes ``k``: it is kept (with how far down it was looked for) and a
        later walk that reaches ``k`` takes it instead of reading the lines below again.  The
        lines whose heading is read are the ones the line-by-line walk read, or fewer.
        """
        memo = self._events.setdefault(depth, {})
        lines, result_lines = self.lines, self.result_lines
        start = k
        found: int | None = None
        bottom = k + 1  # lines bottom..start hold no event
        while k >= lo:
            known = memo.get(k)
            if known is not None:
                line, floor = known
                if line is not None:
                    found, bottom = line, floor
                    break
                bottom = floor
                k = floor - 1
                continue
            ln = lines[k]
            if (ln.depth != depth and ln.text.strip()) or (k not in result_lines and self.heading(k)):
                found = bottom = k
                break
            bottom = k
            k -= 1
        if bottom <= start:
            memo[start] = (found, bottom)
        return found if found is not None and found >= lo else None


class _DepthRuns:
    """The runs of one quote depth of ``lines`` (blank lines join any run; the first starts at
    line 0 with that line's depth): ``run(i)`` is (first, last, depth) of line ``i``'s run.

    Only a line with text can start a run, so only those are read (a focused kernel log is
    nine tenths blank lines).
    """

    def __init__(self, lines: list[Line]) -> None:
        self.starts = [0]
        self.depths = [lines[0].depth if lines else 0]
        self.last = len(lines) - 1
        for j in filled_lines(lines):
            ln = lines[j]
            if ln.depth != self.depths[-1] and ln.text.strip():
                self.starts.append(j)
                self.depths.append(ln.depth)

    def run(self, i: int) -> tuple[int, int, int]:
        k = bisect.bisect_right(self.starts, i) - 1
        return (
            self.starts[k],
            self.starts[k + 1] - 1 if k + 1 < len(self.starts) else self.last,
            self.depths[k],
        )


def _attribute(r: Result, lk: _LineKernels) -> tuple[str, str] | None:
    """The kernel (version, raw) a result belongs to, by the rules in the module doc.

    Walking up from the result's line, within HEADING_WINDOW lines and its
    quote level, result lines passed over: the first kernel heading, or within
    PROSE_WINDOW lines the first kernel in prose; else a ``kernel:`` line of
    its quote level block.  Above the prose window only headings and the end
    of the quote level can stop the walk: ``lk.event`` finds the first of them
    without reading again the lines an earlier result's walk read.
    """
    lines = lk.lines
    i = r.evidence.line_start
    if i >= len(lines):
        return None
    own = lk.heading(i)
    if own:
        return own
    depth = lines[i].depth
    lo = max(0, i - HEADING_WINDOW + 1)  # the last line the walk reads
    j = i - 1
    while j >= lo and i - j <= PROSE_WINDOW:
        ln = lines[j]
        if ln.depth != depth and ln.text.strip():
            return lk.block(i)
        if j not in lk.result_lines:
            h = lk.heading(j)
            if h:
                return h
            p = lk.prose(j)
            if p:
                return p
        j -= 1
    if j >= lo:
        k = lk.event(j, lo, depth)
        if k is not None and lines[k].depth == depth:
            return lk.heading(k)
    return lk.block(i)


def _block_kernel(lines: list[Line], a: int, b: int, depth: int) -> tuple[str, str] | None:
    """A ``kernel: X`` line among lines ``a..b`` at quote depth ``depth``."""
    for j in range(a, min(b, a + 2000) + 1):
        if lines[j].depth == depth and _KERNEL_KV.match(lines[j].text):
            found = find_versions(lines[j].text[:400])
            if found:
                return found[0][3], found[0][2]
    return None


_TESTED_ON_COMMIT = re.compile(
    r"""
    \b(?:test(?:s|ed|ing)?|run(?:s|ning)?|ran|measured|outputs?|results?)   # "while running tests on 574e7779cf"
    [^\n]{0,60}?\bon\s{1,3}(?:commit\s{1,3})?                            # "... results on commit 1a2b3c4d"
    (?P<sha>[0-9a-f]{7,40})\b
    """,
    re.VERBOSE | re.IGNORECASE,
)
#: the part of every _TESTED_ON_COMMIT match from "on" on ("on 574e777", "on commit 1a2b3c4"), searched first:
#: few lines hold it, while the pattern's verbs are tried at every word of every line
_ON_SHA_CUE = re.compile(r"on\s{1,3}(?:commit\s{1,3})?[0-9a-f]{7}", re.IGNORECASE)


def _tested_commit(lines: list[Line]) -> str | None:
    """The one commit the writer's own prose says the numbers were measured on, else None.

    Real text: "I attached a dmesg and 2 outputs while running tests on
    574e7779cf" (the robot's reply, linux-block 2024-01-31) above a fio JSON
    output that names no kernel.  Quoted lines are the other writers' words and
    are skipped; two different commits leave the numbers unattributed.
    """
    found: set[str] = set()
    for i in filled_lines(lines):  # an empty line holds no commit
        ln = lines[i]
        if ln.depth or len(ln.text) > 400 or not _ON_SHA_CUE.search(ln.text):
            continue
        for m in _TESTED_ON_COMMIT.finditer(ln.text):
            sha = m["sha"].lower()
            if re.search(r"[a-f]", sha) and re.search(r"\d", sha):
                found.add(sha)
    return found.pop() if len(found) == 1 else None


def _dedupe(results: list[Result], lines: list[Line]) -> list[Result]:
    """Drop a result read again from an identical line (quoted repeats)."""
    seen = set()
    out = []
    for r in results:
        a, b = r.evidence.line_start, r.evidence.line_end
        if a == b and 0 <= a < len(lines):  # most results hold one line: its text is the joined text
            body = lines[a].text.strip()
        else:
            body = " ".join(ln.text.strip() for ln in lines[a : b + 1])
        key = (r.metric, r.direction, round(r.value, 9), r.unit, r.kernel, r.config, r.tool, body)
        if key in seen:
            continue
        seen.add(key)
        out.append(r)
    return out


_COLUMN_SHA = re.compile(r"[0-9a-f]{7,40}")
#: how many lines may part two outputs of one run of a tool (time(1)'s real/user/sys and a blank)
RUN_GAP_LINES = 6


#: a change of kernel the writer states: "from 4.15.0-36 linux kernel to\n5.4.0-137", "5.4 vs 5.10"
_CHANGE_OF_KERNELS = re.compile(
    r"\bfrom[ \t\n]{1,3}(?:kernel[ \t]{1,3}|linux[ \t]{1,3}|v)?(?P<a>\S{3,60})"
    r"(?:[ \t\n]{1,3}(?:linux[ \t]{1,3})?kernel)?[ \t\n]{1,3}to[ \t\n]{1,3}(?:v|kernel[ \t]{1,3})?"
    r"(?P<b>\S{3,60})",
    re.IGNORECASE,
)


def _changes_of_kernels(text: str) -> Iterator[re.Match[str]]:
    """_CHANGE_OF_KERNELS' matches, as its ``finditer`` gives them, tried only where a "from"
    stands: every match opens with one, and re.I takes no other character for these four
    letters.  The case-insensitive pattern has no literal prefix: its scan tries it at every
    character."""
    low = text.lower()
    if len(low) != len(text):  # a character lower-cased to two: offsets in ``low`` are not the text's
        yield from _CHANGE_OF_KERNELS.finditer(text)
        return
    pos = low.find("from")
    while pos >= 0:
        m = _CHANGE_OF_KERNELS.match(text, pos)
        if m is None:
            pos = low.find("from", pos + 1)
        else:
            yield m
            pos = low.find("from", m.end())


#: how many lines after the sentence naming the change of kernel its two runs may start
PAIR_AFTER_CHANGE_LINES = 30


def _pair_with_a_kernel_change(results: list[Result], text: str, lines: list[Line]) -> None:
    """Two outputs of one tool after a sentence moving from kernel A to kernel B ("we upgraded
    from 4.15.0-36 linux kernel to 5.4.0-137", then dd's summary twice, "vs" between: linux-btrfs
    reports of distro upgrades) were measured on A, then on B, whatever kernel is nearest."""
    for m in _changes_of_kernels(text):
        a, b = normalize_version(m["a"].rstrip(".,;:)")), normalize_version(m["b"].rstrip(".,;:)"))
        if not a or not b or a == b:
            continue
        after = text.count("\n", 0, m.end())
        by_tool: dict[tuple, list[Result]] = {}
        for r in results:
            if r.tool and r.tool != "prose" and r.evidence.line_start > after and not r.config:
                by_tool.setdefault((r.tool, r.metric), []).append(r)
        for pair in by_tool.values():
            if len(pair) == 2 and {r.kernel for r in pair} <= {None, a, b}:
                first, second = sorted(pair, key=lambda r: r.evidence.line_start)
                if first.evidence.line_start - after > PAIR_AFTER_CHANGE_LINES:
                    continue
                # nothing between names another kernel ("observed in v5.4.190 as well" makes the runs that one's)
                between = range(after + 1, second.evidence.line_start)
                if not any(find_versions(lines[i].text) for i in between if i < len(lines)):
                    first.kernel, second.kernel = a, b
        return


def _share_kernel_along_runs(results: list[Result], lines: list[Line]) -> None:
    """Outputs of one tool run again and again under one kernel (ten `time` outputs after one
    `uname -a`, linux-ext4 2020-08) are that kernel's: a result with no kernel takes the one of
    the result of its tool and metric just before it, when no line between names a kernel.

    So does a run under a label of its own that names no kernel or commit ("Without the
    series:", then "With it applied:" below a kernel named once): the label is the run's
    condition on that kernel, kept as its config."""
    ordered = sorted(results, key=lambda r: r.evidence.line_start)
    for prev, r in zip(ordered, ordered[1:]):
        if (
            r.kernel is not None
            or prev.kernel is None
            or (r.config and not _condition_only(r.config))
            or (r.tool, r.metric) != (prev.tool, prev.metric)
        ):
            continue
        a, b = prev.evidence.line_end + 1, r.evidence.line_start
        if not 0 <= b - a <= RUN_GAP_LINES:
            continue
        if any(find_versions(lines[i].text) for i in range(a, min(b, len(lines)))):
            continue
        r.kernel = prev.kernel


def _share_condition_down_a_block(results: list[Result]) -> None:
    """A label line heads the block of a tool's output below it, not its first line only: five
    runs of fio under "584b0180f0:" (io-uring, 2023-03) are all that commit's.  A result with no
    condition takes the one of the result of its tool, metric and direction on the line right
    above (no blank line between); prose is left to its sentences."""
    last: dict[tuple, Result] = {}  # per tool, metric and direction, the result read last
    for r in sorted(results, key=lambda r: r.evidence.line_start):
        if r.tool in (None, "", "prose"):
            continue
        key = (r.tool, r.metric, r.direction)
        prev = last.get(key)
        last[key] = r
        if (
            not r.config
            and prev is not None
            and prev.config
            and r.evidence.line_start == prev.evidence.line_end + 1
        ):
            r.config = prev.config


def _condition_only(config: str) -> bool:
    """Whether a run's label names neither a kernel nor a commit ("With the series applied")."""
    return not find_versions(config) and not any(looks_like_sha(w) for w in _HEX_WORD.findall(config.lower()))


#: a word of hex digits that may be a commit id (:func:`~lkmlkb.extract.commits.looks_like_sha` decides)
_HEX_WORD = re.compile(r"\b[0-9a-f]{7,40}\b")


#: a shell command printing the running kernel, the last thing on its prompt's line ("$ uname -r",
#: "`linux@linux`:~$ uname -r", "[root@box ~]# uname -r")
_UNAME = re.compile(r"\buname[ \t]{1,3}-r\W{0,3}$")


def _asks_uname(text: str) -> bool:
    """Whether a line is a prompt running ``uname -r`` (the substring test first: most lines are not)."""
    return "uname" in text and bool(_UNAME.search(text.rstrip()))


def _label_above(lines: list[Line], lk: _LineKernels, i: int) -> tuple[str, str] | None:
    """The kernel of a label line ("With 6.7:", "6.8-rc1:") at most PROSE_WINDOW lines above line
    ``i``, or of what ``uname -r`` printed at most HEADING_WINDOW lines above (a pasted shell
    transcript's "$ uname -r" / "4.10.0-041000rc1-generic" over the tool it ran next), in its
    quote level (blank lines between)."""
    if i >= len(lines):
        return None
    depth = lines[i].depth
    prose_between = False
    for j in range(i - 1, max(-1, i - HEADING_WINDOW - 1), -1):
        ln = lines[j]
        if not ln.text.strip():
            continue
        if ln.depth != depth:
            return None
        h = lk.heading(j)
        if h:
            if i - j <= PROSE_WINDOW and ln.text.rstrip().endswith(":"):
                return h
            if j > 0 and _asks_uname(lines[j - 1].text):
                return h
            # a heading over a tool's output, no sentence in it or between ("result of 6.6.15(rc1)",
            # dbench's table, its "Throughput 225.11 MB/sec" summary; "kernel 5.15.46" and "6.0.15"
            # over pv's lines): a bare version only within a sentence's reach
            bare = _BARE_HEADING.match(ln.text) is not None
            if prose_between or lk.sentence(j) or (bare and i - j > PROSE_WINDOW):
                return None
            return h
        if _asks_uname(ln.text):
            return None  # a kernel asked for and not printed
        if not prose_between and lk.sentence(j):
            prose_between = True
    return None


#: a heading that is a version alone, no word before it ("6.0.15", "v6.8-rc1")
_BARE_HEADING = re.compile(r"[ \t]{0,8}v?\d")
#: a line of prose, not a tool's output: five words running ("it used to be much closer than"), or
#: a sentence's end after a word
_PROSE_LINE = re.compile(
    r"(?:[A-Za-z][a-z']{1,20}[ \t]{1,3}){4}[A-Za-z][a-z']{1,20}|[a-z]{2}[.?!](?:[ \t]|$)"
)


def _condition_above(lines: list[Line], i: int) -> str | None:
    """The condition a label line right above line ``i`` gives the output on it ("Without patch:"
    over fio's "write: IOPS=1570, ...", "Vanilla:" over its "READ: bw=4560KiB/s"), one blank line
    between at most, in its quote level."""
    if i >= len(lines):
        return None
    j = i - 1
    if j >= 0 and not lines[j].text.strip():
        j -= 1
    if j < 0 or lines[j].depth != lines[i].depth:
        return None
    m = CONDITION_LINE.fullmatch(lines[j].text)
    return condition_label(m["label"]) if m else None


def find_results(text: str) -> list[Result]:
    """Every measured number in ``text`` with kernel attribution; never raises."""
    try:
        lines = prepare_lines(text)
        results = find_fio_output(text, lines) + find_tables(text, lines) + find_timings(text)
        taken_lines = {i for r in results for i in range(r.evidence.line_start, r.evidence.line_end + 1)}
        results += [r for r in find_headed_tables(lines) if r.evidence.line_start not in taken_lines]
        lk = _LineKernels(lines, {r.evidence.line_start for r in results})
        by_line: dict[int, tuple[str, str] | None] = {}  # what _attribute reads of a result is its line
        for r in results:
            # a robot table's column is a commit: that build, not a release named nearby, ran it
            if r.kernel is None and not (r.config and _COLUMN_SHA.fullmatch(r.config)):
                i = r.evidence.line_start
                if i not in by_line:
                    by_line[i] = _attribute(r, lk)
                k = by_line[i]
                if k:
                    r.kernel = k[0]
                    q = qualifier(k[1])
                    if q and q != "+" and not r.config:  # a bare "+" is a local build, part of the version
                        r.config = q
        for r in results:
            if not r.config and (above := _condition_above(lines, r.evidence.line_start)):
                r.config = above
        _share_condition_down_a_block(results)
        _share_kernel_along_runs(results, lines)
        _pair_with_a_kernel_change(results, text, lines)
        if any(r.kernel is None for r in results):
            sha = _tested_commit(lines)
            for r in results:
                if r.kernel is None and sha:
                    r.kernel = sha
        # before/after pairs carry no kernel of their own: the report maps them onto its good/bad kernels
        results.extend(find_pairs(text))
        # figures in prose, each with the condition its sentence gives it, on lines no other reader read
        taken = {i for r in results for i in range(r.evidence.line_start, r.evidence.line_end + 1)}
        prose = [r for r in find_measurements(text)[0] if r.evidence.line_start not in taken]
        for r in prose:
            # a figure its sentence gives no condition is under the label line above it ("With 6.7:",
            # "Without the series:")
            h = _label_above(lines, lk, r.evidence.line_start) if not (r.kernel or r.config) else None
            if h:
                r.kernel = r.config = h[0]  # the label names the run's condition, as a sentence does
            elif not (r.kernel or r.config) and (above := _condition_above(lines, r.evidence.line_start)):
                r.config = above
        results.extend(prose)
        results.sort(key=lambda r: (r.evidence.line_start, r.evidence.line_end))
        return _dedupe(results, lines)
    except Exception:
        log.exception("find_results failed")
        return []
