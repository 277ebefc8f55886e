"""Measurements written in prose: a quantity and the condition it was measured under.

A quantity is a number and its unit as written (``949 mb/sec``, ``~34 seconds``, ``1m20s``,
``1050K IOPS``); its condition is the kernel or the side of a change the sentence gives it:

* change statements: "went from ~15 seconds w/ 5.9 to nearly 5 minutes in 5.10", "slowed
  from about 2.9 gb/sec to about 949 mb/sec", "788 MB/s vs 689 MB/s", "20 minutes instead of
  one", "used to run in about 12 seconds, now it is taking 51 seconds": the first value is
  the state before (``config`` "before"), the second the state after, each with the kernel
  written beside it where there is one;
* labelled values: "(6.5: ~1 min 6.6: ~9 min)", "v5.4: 1050K IOPS";
* a value beside its kernel: "it was already 35 seconds slow with 5.9".

A bare number is a kernel where the message says so: a version found as one elsewhere in the
message ("w/ Linux kernel 5.10"), or one written where a kernel stands in a change statement
whose other side is a kernel ("from ... w/ 5.9 to ... in 5.10").  Such kernels are also
returned as mentions, so the report lists them.

Which side is the baseline is not decided here: the report does that for the whole thread.
What other readers find (fio output, tables, time(1)) is theirs; ``find_results`` keeps one
result per line and value.
"""

from __future__ import annotations

import bisect
import copy
import logging
import re
from collections.abc import Iterator

from lkmlkb.extract.commits import looks_like_sha
from lkmlkb.extract.kernel_versions import LABEL_LINE_END, find_versions, kernel_move, normalize_version
from lkmlkb.extract.lines import field_listing, quoted_titles, setting_before
from lkmlkb.extract.metric_units import normalize
from lkmlkb.model import Evidence, KernelMention, Result

log = logging.getLogger(__name__)

#: a paragraph longer than this is no prose (a pasted log): not read
MAX_PARAGRAPH = 4_000
#: how far a kernel written beside a quantity may stand from it ("35 seconds slow with 5.9")
BESIDE_REACH = 32

# ------------------------------------------------------------------ quantities

_RATE_UNIT = r"(?:[KMGTkmgt]i?[Bb](?:ytes)?/[sS](?:ec)?|[Bb]ytes/s(?:ec)?|[KMGkmg]i?B[Pp]s)"
_IOPS_UNIT = r"(?:[KkMm][ ]?IOPS|IOPS|iops|IOPs|kiops)"
_OPS_UNIT = r"(?:(?:ops|operations|files|jobs|requests|reqs|transactions|txns)[ ]?(?:/|per[ ])[ ]?(?:s|sec|second|min|minute)s?)"
_TIME_UNIT = (
    r"(?:nsecs?|nanoseconds?|usecs?|microseconds?|\u00b5s|msecs?|milliseconds?|ms|us|ns"
    r"|seconds?|secs?|s|minutes?|mins?|min|hours?|hrs?|days?)"
)
#: "~949 mb/sec", "nearly 5 minutes", "1050K IOPS", "1m20s", "12,345 IOPS"; a spread written
#: between a mean and its unit ("51724.6+/-2.4e+04 files/sec", fs_mark's) is the mean's, no value
QUANTITY = re.compile(
    rf"""
    (?<![\w.,/:=-])
    (?:
        (?P<mins>\d{{1,4}})m[ ]?(?P<secs>\d{{1,2}}(?:\.\d{{1,6}})?)s                  # "1m20s", "3m28.093s"
      | (?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d{{1,6}})?(?!\d|[.,]\d)                # "12,345", "98,765,431.20",
        |\d{{1,12}}(?:\.\d{{1,6}})?)                                              #   "949", "2.9"
        (?P<mult>[kKM](?=[ ]?(?:IOPS|iops|IOPs)))?                             # "94k IOPS"
        (?:[ ]{{0,2}}(?:\+/-|\+-|\u00b1)[ ]{{0,2}}\d{{1,12}}(?:\.\d{{1,6}})?(?:e[+-]?\d{{1,3}})?)?  # "+/- 2.4e+04"
        [ ]?(?P<unit>{_RATE_UNIT}|{_IOPS_UNIT}|{_OPS_UNIT}|{_TIME_UNIT})
    )
    (?![\w/%])
    """,
    re.VERBOSE,
)
#: a latency written as a key's value (dbench's "max_latency=86.861 ms"): QUANTITY refuses a value
#: after "=" (fio's "runtime=60s" is a setting), this key's value is measured
LATENCY_KEY = "latency="
_LATENCY_VALUE = re.compile(
    rf"(?<={LATENCY_KEY})(?P<num>\d{{1,12}}(?:\.\d{{1,6}})?)[ ]?(?P<unit>{_TIME_UNIT})(?![\w/%])"
)
_KINDS = [
    (re.compile(_RATE_UNIT + "$"), "bw"),
    (re.compile(_IOPS_UNIT + "$"), "iops"),
    (re.compile(_OPS_UNIT + "$"), "ops"),
    (re.compile(_TIME_UNIT + "$"), "elapsed"),
]
#: time units metric_units does not know, in seconds
_LONG_TIMES = {
    "minute": 60.0,
    "minutes": 60.0,
    "min": 60.0,
    "mins": 60.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "hr": 3600.0,
    "hrs": 3600.0,
    "day": 86400.0,
    "days": 86400.0,
    "second": 1.0,
}


def metric_of(unit: str) -> str:
    """What a unit as written measures: bw, iops, ops, elapsed."""
    return next((kind for rx, kind in _KINDS if rx.match(unit)), "value")


def normalized(value: float, unit: str) -> tuple[float | None, str | None]:
    """The value in lkmlkb's normalized units (B/s, IOPS, us), minutes and hours included."""
    seconds = _LONG_TIMES.get(unit.lower())
    if seconds is not None:
        return value * seconds * 1e6, "us"
    return normalize(value, unit)


#: a line of time(1)'s output: its real time is timing's reader's; user and sys time are CPU
_TIME_LINE = re.compile(r"^[ \t>]{0,8}(?:real|user|sys)[ \t]{1,8}\d{1,6}m[\d.]{1,12}s[ \t]*$", re.MULTILINE)


#: a line of the kernel's log, as dmesg, syslog or journalctl print it ("[  242.560881] INFO: task
#: mount.smb3:3219 blocked for more than 120 seconds", "Aug  3 10:01:02 host kernel: ..."): its
#: times are timeouts and the durations of the kernel's own steps, and its rates settings
#: ("minimum _guaranteed_ speed: 1000 KB/sec"), not what the reporter measured
_LOG_LINE = re.compile(
    r"^[ \t>]{0,8}(?:<\d>)?\[[ \t]{0,12}\d{1,9}\.\d{3,9}\].*$"
    r"|^[ \t>]{0,8}[A-Z][a-z]{2}[ \t]{1,2}\d{1,2}[ \t]\d\d:\d\d:\d\d[ \t]\S{1,64}[ \t]kernel:.*$",
    re.MULTILINE,
)
#: a hung task's warning copied without its stamp (searched only where its words are)
_HUNG_TASK_LINE = re.compile(
    r"^.*\bblocked[ \t]for[ \t]more[ \t]than[ \t]\d{1,6}[ \t]seconds.*$", re.MULTILINE
)


#: a test harness's line timing one test, its last run "..." this run: blktests' "    runtime
#: 37.624s  ...  42.272s" under "nvme/012 (...) [passed]", fstests' "generic/475 29s ...  31s"
#: (linux-block, linux-xfs): how long a functional test took, not a measurement a report compares
_HARNESS_LINE = re.compile(
    r"^[ \t>]{0,8}(?:runtime|[\w-]{1,20}/\d{3,4}\b[^\n]{0,120}?)[ \t]+(?:\d[\d.]{0,12}m?s)?[ \t]*\.\.\..*$",
    re.MULTILINE,
)


#: a failure waited for: "5.15.1 fails on me after ~10min" (linux-mmc), "Triggered the hang in 10
#: seconds" (linux-raid), "It crashes a 32GB VM in 2hrs" (ceph-devel): the time it takes to come
#: is no measurement of speed; a stall's own length is ("hangs for 30 seconds")
_FAILS_WITHIN = re.compile(
    r"\b(?:fail|hang|hung|crash|freez|froze|lock(?:s|ed)?[ \t-]?up|stuck|panic|oops|die[sd]?|dying|reboot)\w{0,4}\b"
    r"[^.;\n]{0,40}?\b(?:after|within|in)[ \t]{1,3}(?:about[ \t]{1,3}|around[ \t]{1,3}|only[ \t]{1,3}|~[ \t]?)?$",
    re.IGNORECASE,
)
#: how far before a time its failure is looked for
FAILURE_BEFORE_CHARS = 80


def _a_failure_waited_for(text: str, m: re.Match) -> bool:
    """Whether the time ``m`` is how long a failure took to come."""
    unit = m.group("unit")
    if unit is not None and metric_of(unit) != "elapsed":
        return False
    lo = max(text.rfind("\n", 0, m.start()) + 1, m.start() - FAILURE_BEFORE_CHARS)
    return _FAILS_WITHIN.search(text, lo, m.start()) is not None


#: a spread's sign right before a quantity ("1min (\u00b15s)", "60.415 usec (+- 3.986 usec)", "812 MB/s
#: \u00b1 12 MB/s"): how far the runs strayed from the value before it, no value measured
_SPREAD_BEFORE = re.compile(r"(?:\u00b1|\+/-|\+-|\+/\u2212)[ \t]{0,2}\Z")


def quantities(text: str) -> Iterator[tuple[int, int, float, str]]:
    """(start, end, value, unit as written) of every quantity of speed or time in ``text``, but
    those of time(1)'s output lines, of the kernel's log, of a test harness's timings, of a
    patch's title quoted and the time a failure took to come."""
    skip = [m.span() for m in _TIME_LINE.finditer(text)] if "m" in text else []
    if "]" in text or "kernel:" in text:
        skip += [m.span() for m in _LOG_LINE.finditer(text)]
    if "blocked for more than" in text:
        skip += [m.span() for m in _HUNG_TASK_LINE.finditer(text)]
    if "..." in text:
        skip += [m.span() for m in _HARNESS_LINE.finditer(text)]
    skip += quoted_titles(text)  # a patch's title: "... train links in 100 ms"
    found = list(QUANTITY.finditer(text))
    if LATENCY_KEY in text:  # in the order written
        found = sorted(found + list(_LATENCY_VALUE.finditer(text)), key=lambda m: m.start())
    out: list[tuple[int, int, float, str]] = []
    for m in found:
        if skip and any(a <= m.start() < b for a, b in skip):
            continue
        if _a_failure_waited_for(text, m) or _SPREAD_BEFORE.search(text, max(0, m.start() - 6), m.start()):
            continue
        g = m.groupdict()
        if g.get("mins") is not None:
            out.append((m.start(), m.end(), int(g["mins"]) * 60 + float(g["secs"]), "s"))
            continue
        value = float(g["num"].replace(",", ""))
        if g.get("mult"):
            value *= 1e6 if g["mult"] == "M" else 1e3
        out.append((m.start(), m.end(), value, g["unit"]))
    if "core" in text or "CORE" in text:  # in "score", "Score" and "SCORE": a cheap test first
        taken = {q[0] for q in out}
        out += [q for q in scores(text) if q[0] not in taken and not any(a <= q[0] < b for a, b in skip)]
        out.sort()
    yield from out


#: the word of a benchmark's score ("Geekbench single core score", "System Benchmarks Index Score")
_SCORE_WORD = re.compile(r"\bscores?\b", re.IGNORECASE)
#: scores that measure no speed, named before the word on its line: the OOM killer's badness (its
#: log's "Kill process 2746 (leaker) score 998"), a fragmentation score, a spam filter's
_OTHER_SCORE = re.compile(r"oom|badness|kill|out[ \t]of[ \t]memory|fragment|spam|adj", re.IGNORECASE)
#: a number without a unit (nor a percentage, a factor or a version's dot after it)
_SCORE_NUMBER = re.compile(
    r"(?<![\w.,/:=+-])(?P<num>\d[\d,]*(?:\.\d{1,6})?)(?![\w.,%/]|[ \t]?(?:[KMGTkmgt]i?[Bb]\b|[KMG]?Hz|IOPS|iops|x\b|times\b))"
)
#: what may stand between a score's word and its value ("score is approx", "score =", "Score (Partial
#: Only)    1186.6", "score went from"), or between two values ("2265 vs 2538", "to", "while it is")
_SCORE_LEAD = re.compile(
    r"(?:\b(?:is|was|were|are|of|to|from|vs\.?|versus|and|becomes?|became|went|goes|drops?|dropped|fell|rose)"
    r"|[=:(~]|\bscores?(?:[ \t]{0,3}\([^()\n]{0,30}\))?)"
    r"(?:[ \t]{1,40}(?:~|about|around|approx\.?|approximately|only|just|roughly))?[ \t]{0,40}[=:(~]?[ \t]{0,3}\Z",
    re.IGNORECASE,
)
#: how far past the word a sentence's values are read
SCORE_REACH = 160


def scores(text: str) -> list[tuple[int, int, float, str]]:
    """(start, end, value, "") of each benchmark score ``text`` gives in words: a number without a
    unit after "score" in its sentence, led by a verb or a comparison ("Geekbench single core score
    is approx 15% lower (2265 vs 2538)", linux-pm; "The score is 2870 before applying the patch,
    while it is 1780 after", linux-unionfs), or the number a score's label heads ("Multi-Core Score
    7279").  Not the OOM killer's, a fragmentation's or a spam filter's score."""
    out: list[tuple[int, int, float, str]] = []
    for w in _SCORE_WORD.finditer(text):
        line_start = text.rfind("\n", 0, w.start()) + 1
        if _OTHER_SCORE.search(text, line_start, w.start()):
            continue
        stop = min(len(text), w.end() + SCORE_REACH)
        end = _SENTENCE_END.search(text, w.end(), stop)  # the clauses' sentence end, below
        stop = end.start() if end else stop
        for m in _SCORE_NUMBER.finditer(text, w.end(), stop):
            if _SCORE_LEAD.search(text, max(w.start(), m.start() - 60), m.start()) is None:
                continue
            value = float(m["num"].replace(",", ""))
            if value:
                out.append((m.start(), m.end(), value, ""))
    return out


# ------------------------------------------------------------------ kernels in sentences

#: a bare release number ("5.9", "6.10.3"): a kernel only where the message says so; not a
#: measure ("6.4 Gbps", "2.5 GB", "3.5x", "1.5 seconds")
_BARE_VERSION = re.compile(
    r"""(?<![\w.:/-])v?(?P<v>[2-7]\.\d{1,2}(?:\.\d{1,3})?)(?![\w%]|\.\w)  # a sentence's full stop may follow
        (?![ ]?(?:[KMGTkmgt]i?[Bb]\b|[KMGTkmgt]i?[Bb](?:ps|/s)|[KMG]?Hz|x\b|times\b|[mun\u00b5]?s\b|sec|min|hours?
                 |IOPS|iops|GT/s|V\b|W\b|C\b))""",
    re.VERBOSE,
)
#: a statistic's word between a label and its value ("6.1: avg 120 usec")
_STAT_WORD = r"(?:avg|average|mean|median)[ \t]{1,3}"
#: a number labelling a value after it ("- 6.4: 966.84MiB/s", "(6.5: ~1 min")
_LABEL_AFTER = re.compile(rf"[ \t]{{0,2}}:[ \t]{{0,3}}(?:~|{_STAT_WORD})?\d", re.IGNORECASE)
#: the words before a number that make it a condition ("w/ 5.9", "in 5.10", "on 6.3.9", "(6.5:")
_LEAD = re.compile(
    r"(?:\bw/|\bwith|\bon|\bin|\bunder|\busing|\bfrom|\bto|\bvs\.?|\bversus|\bthan|\bkernel"
    r"|\blinux|[(,;])[ \t]{0,3}$",
    re.IGNORECASE,
)


def _line_lead(text: str, pos: int) -> str:
    """What stands before ``pos`` on its line (blank or a bullet: ``pos`` opens the line)."""
    return text[text.rfind("\n", 0, pos) + 1 : pos]


#: a table's row after the number opening its line: blanks, then its first figure ("5.10  1m26.212s")
_ROW_AFTER = re.compile(r"[ \t]{1,12}\d")


def _kernels(text: str, known: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, version) of the kernels of ``text``: what find_versions accepts, and bare
    numbers the message elsewhere names as kernels, or that stand after a kernel's lead word
    beside a known kernel of the same major ("w/ 5.9" where "5.10" is one)."""
    found = {(a, norm) for a, _b, _raw, norm in find_versions(text)}
    out = [(a, b, norm) for a, b, _raw, norm in find_versions(text)]
    majors = {k.split(".", 1)[0] for k in known}
    for m in _BARE_VERSION.finditer(text):
        v = m.group("v")
        if any(a == m.start() for a, _ in found):
            continue
        lead = (
            _LEAD.search(text, max(0, m.start() - 12), m.start())
            or _LABEL_AFTER.match(text, m.end())
            or (_ROW_AFTER.match(text, m.end()) and not _line_lead(text, m.start()).strip())
        )
        if v in known or (lead and v.split(".", 1)[0] in majors) or _a_labels_sibling(text, m, out):
            out.append((m.start(), m.end(), v))
    return sorted(out)


def _a_labels_sibling(text: str, m: re.Match, kernels: list[tuple[int, int, str]]) -> bool:
    """A bare number labelling a value on a line where a kernel labels another: a row of runs
    ("4.18: 288k IOPS    5.10: 234k IOPS", linux-ext4 and linux-xfs, 2024-02)."""
    if not _LABEL_AFTER.match(text, m.end()):
        return False
    ls = text.rfind("\n", 0, m.start()) + 1
    le = text.find("\n", m.end())
    le = len(text) if le < 0 else le
    return any(ls <= a and b <= le and _LABEL_AFTER.match(text, b) for a, b, _k in kernels)


def _beside(kernels: list[tuple[int, int, str]], lo: int, hi: int, text: str = "") -> str | None:
    """The first kernel written in ``[lo, hi)`` that heads no lines of its own (in ``text``, a
    label line "With 6.8:" opens the figures below it, not those above)."""
    return next((k for a, b, k in kernels if lo <= a and b <= hi and not LABEL_LINE_END.match(text, b)), None)


# ------------------------------------------------------------------ statements

_FROM = re.compile(r"\bfrom[ \t\n]{1,3}(?:about[ \t]|around[ \t]|roughly[ \t]|~)?$", re.IGNORECASE)
_TO = re.compile(r"[ \t\n]{1,3}(?:to|->|=>|\u2192)[ \t\n]{1,3}", re.IGNORECASE)
_VERSUS = re.compile(r"[ \t\n]{1,3}(?:vs\.?|versus|compared[ \t]to|against)[ \t\n]{1,3}", re.IGNORECASE)
_USED_TO = re.compile(r"\bused[ \t]{1,3}to\b", re.IGNORECASE)
#: the second value's verb of a change, ending the gap: "~30.6k iops from a baseline 5.7.0-rc1
#: kernel and that drops to ~25.7k iops", "3800 MB/sec with the old kernel; this falls to 2500 MB/sec"
_MOVES_TO = re.compile(
    r"\b(?:falls?|fell|drops?|dropped|decreas(?:es|ed)|declin(?:es|ed)|sinks?|sank|goes|went|comes|came"
    r"|rises?|rose|increas(?:es|ed)|jumps?|jumped|grows?|grew|climbs?|climbed)"
    r"(?:[ \t\n]{1,3}(?:down|up|back))?[ \t\n]{1,3}to[ \t\n]{1,3}(?:only[ \t]|about[ \t]|around[ \t]|roughly[ \t]|~)?$",
    re.IGNORECASE,
)
_NOW = re.compile(r"\b(?:now|today|currently|these[ \t]days|nowadays)\b", re.IGNORECASE)
_INSTEAD = re.compile(
    r"[ \t\n]{1,3}instead[ \t]of[ \t\n]{1,3}(?:(?P<word>one|two|three|five|ten|a|an)\b"
    r"|(?P<num>\d{1,9}(?:\.\d{1,6})?)(?![\w.]))",
    re.IGNORECASE,
)
_NUMBER_WORDS = {"one": 1.0, "two": 2.0, "three": 3.0, "five": 5.0, "ten": 10.0, "a": 1.0, "an": 1.0}
#: a label ending just before a value: "6.5: ~1 min", "v5.4 : 1050K IOPS"
_LABEL_GAP = re.compile(rf"[ \t]{{0,2}}:[ \t]{{0,3}}(?:~|about[ \t]|{_STAT_WORD})?$", re.IGNORECASE)
#: words of a run measured, near a value that stands alone ("the script usually completes in about
#: 1m20s", "I waited 20 minutes", "over 5 hours to copy", "reads ran at 160MB/s")
_MEASURED = re.compile(
    r"""\b(?:slow\w{0,6}|fast\w{0,3}|took|takes?|taking|run|runs|ran|running|complet\w{1,3}|finish\w{0,3}|wait\w{0,3}
          |speed|throughput|performance|regress\w{0,4}|drop\w{0,4}|reads?|reading|writes?|writing|copy\w{0,3}
          |copied|rate|latency|iops|bandwidth|elapsed|duration|scrub\w{0,4}|rsync|tar|extract\w{0,3}|boot\w{0,3}
          |mount\w{0,3}|resync\w{0,3}|rebuild\w{0,3}|format\w{0,3})\b""",
    re.IGNORECASE | re.VERBOSE,
)
#: pv's line before its average rate: the bytes moved, the time taken ("13.5GiB 0:00:28 [ 487MiB/s]")
_PV_RATE = re.compile(r"\d[\d.]{0,8}[ \t]?[KMGT]i?B[ \t]{1,3}\d{1,3}:\d\d:\d\d[ \t]{1,3}\[[ \t]{0,3}$")
#: how far from a lone value its words of a run may stand
CONTEXT_REACH = 60
#: the longest gap between the two values of one statement
STATEMENT_GAP = 90


def _line_at(text: str, pos: int) -> str:
    end = text.find("\n", pos)
    return text[text.rfind("\n", 0, pos) + 1 : end if end >= 0 else len(text)]


class _Para:
    """One paragraph being read: its text, where it starts, its quantities and kernels."""

    def __init__(self, text: str, offset: int, known: set[str]):
        self.text = text
        self.offset = offset
        # a tool's listing of a device's fields is no run measured ("Completion Timeout: 65ms to 210ms")
        self.qs = [q for q in quantities(text) if ":" not in text or not field_listing(_line_at(text, q[0]))]
        if "from" in text:
            self.qs = _with_unit_written_once(text, self.qs)
        self.kernels = _kernels(text, known) if self.qs else []
        if len(self.qs) > 1:
            self.kernels = _with_a_column_of_kernels(text, self.qs, self.kernels)
        self._breaks: list[int] | None = None

    @property
    def breaks(self) -> list[int]:
        """Where each clause of the paragraph ends (see _CLAUSE_BREAK), read once when asked."""
        if self._breaks is None:
            self._breaks = [m.end() for m in _CLAUSE_BREAK.finditer(self.text)]
        return self._breaks

    def clause_start(self, pos: int) -> int:
        """Where the clause holding ``pos`` starts."""
        i = bisect.bisect_right(self.breaks, pos) - 1
        return self.breaks[i] if i >= 0 else 0

    def value_within(self, lo: int, hi: int) -> tuple[int, int, float, str] | None:
        """The first quantity starting in ``[lo, hi)`` (the quantities are in text order)."""
        i = bisect.bisect_left(self.qs, (lo,))
        return self.qs[i] if i < len(self.qs) and self.qs[i][0] < hi else None


#: a row of a table opening with a release before its first figure ("5.10\t1m26.212s")
_RELEASE_ROW = re.compile(r"[ \t>*-]{0,6}v?(?P<v>[2-7]\.\d{1,2}(?:\.\d{1,3})?)[ \t]{1,12}$")


def _with_a_column_of_kernels(
    text: str, qs: list[tuple[int, int, float, str]], kernels: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """``kernels`` and the releases opening two or more rows of a table right before their first
    figures, a column of kernels (linux-btrfs, 2021-01: "5.9\t0m54.258s" over "5.10\t1m26.212s",
    in a message naming no kernel otherwise)."""
    rows: dict[int, tuple[int, int, str]] = {}
    for q in qs:
        ls = text.rfind("\n", 0, q[0]) + 1
        m = _RELEASE_ROW.fullmatch(text, ls, q[0])
        if m and ls not in rows:
            rows[ls] = (m.start("v"), m.end("v"), m["v"])
    if len({v for _a, _b, v in rows.values()}) < 2:
        return kernels
    have = {a for a, _b, _k in kernels}
    return sorted(kernels + [r for r in rows.values() if r[0] not in have])


#: "from A to B" with the unit written once: after B ("from 40K to 2K IOPS", "from 400 to 90 MB/s")
#: or, of IOPS, before the verb ("random read IOPS fell from 40K to under 2K")
_UNIT_ONCE = re.compile(
    rf"""\bfrom[ \t\n]{{1,3}}(?:about[ \t]|around[ \t]|roughly[ \t]|~)?(?P<a>\d{{1,6}}(?:\.\d{{1,3}})?)(?P<am>[kKM])?
    [ \t\n]{{1,3}}(?:to|->|=>)[ \t\n]{{1,3}}(?:under[ \t]|below[ \t]|about[ \t]|around[ \t]|roughly[ \t]|only[ \t]|just[ \t]
      |less[ \t]than[ \t]|~)?
    (?P<b>\d{{1,6}}(?:\.\d{{1,3}})?)(?P<bm>[kKM])?
    (?:[ ]?(?P<unit>{_RATE_UNIT}|{_IOPS_UNIT}|{_OPS_UNIT}|{_TIME_UNIT}))?(?![\w/%]|\.\d)""",
    re.VERBOSE,
)
#: a range, not a change: "ranging from 4 to 30 minutes", "varies from 200 to 900 MB/s"
_RANGE_FROM = re.compile(
    r"\b(?:rang\w{0,3}|var(?:y|ies|ied|ying)|anywhere|fluctuat\w{0,5})[ \t\n]{1,3}from[ \t\n]{1,3}\S{0,8}$",
    re.I,
)
#: IOPS named before the change's verb, in its sentence, the line wrapped between them or not
#: ("random write IOPS on the\nmegaraid_sas RAID5 volume dropped from 95K to 61K")
_IOPS_BEFORE = re.compile(r"\b(?:IOPS|iops)\b(?:[^.;\n]|\n(?![ \t]*\n)){0,60}$")


def _with_unit_written_once(text: str, qs: list) -> list:
    """``qs`` and the values of a "from A to B" whose unit is written once (see _UNIT_ONCE)."""
    have = {q[0] for q in qs}
    added = []
    for m in _UNIT_ONCE.finditer(text):
        if _RANGE_FROM.search(text, max(0, m.start() - 30), m.start("a")):
            continue
        unit = m["unit"]
        if unit is None and not ("." in m["a"] + m["b"] and not (m["am"] and m["bm"])):
            # IOPS named before the verb count whole numbers ("from 6.6 to 6.7" are releases)
            unit = "IOPS" if _IOPS_BEFORE.search(text, max(0, m.start() - 80), m.start()) else None
        if unit is None or ((m["am"] or m["bm"]) and metric_of(unit) not in ("iops", "ops")):
            continue  # no unit, or a K of what is no count ("from 40K to 2K MB/s")
        for g, mult in (("a", "am"), ("b", "bm")):
            if m.start(g) in have:
                continue
            value = float(m[g]) * {"k": 1e3, "K": 1e3, "M": 1e6}.get(m[mult] or "", 1.0)
            added.append((m.start(g), m.end(mult) if m[mult] else m.end(g), value, unit))
    return sorted(qs + added) if added else qs


#: the last text read and what was found in it: the results and the kernels extractors both ask
_LAST: list = [None, ([], [])]


def find_measurements(text: str) -> tuple[list[Result], list[KernelMention]]:
    """The prose measurements of ``text`` and the kernels their conditions name; never raises.
    The records are new for each call (a caller may change them)."""
    if _LAST[0] is not text:
        try:
            found = _find(text)
        except Exception:
            log.exception("find_measurements failed")
            found = ([], [])
        _LAST[0], _LAST[1] = text, found
    results, mentions = _LAST[1]
    return [copy.deepcopy(r) for r in results], [copy.deepcopy(k) for k in mentions]


def _find(text: str) -> tuple[list[Result], list[KernelMention]]:
    starts: list[int] = []  # where each line starts: made at the first result (most texts have none)
    known = {norm for _a, _b, _raw, norm in find_versions(text)}
    results: list[Result] = []
    mentions: list[KernelMention] = []

    where: list[int] = []  # per result: where its value stands in the paragraph

    def emit(para: _Para, q: tuple[int, int, float, str], kernel: str | None, config: str | None) -> None:
        where.append(q[0])
        if not starts:
            starts.extend([0] + [m.end() for m in re.finditer("\n", text)])
        pos = para.offset + q[0]
        line = bisect.bisect_right(starts, pos) - 1
        end = text.find("\n", starts[line])
        line_text = text[starts[line] : end if end >= 0 else len(text)]
        nv, nu = normalized(q[2], q[3])
        metric = metric_of(q[3]) if q[3] else "score"  # a score has no unit (see scores)
        if metric == "elapsed" and text.endswith(LATENCY_KEY, 0, pos):
            metric = "lat"  # a latency written as a key's value ("max_latency=536.777 ms")
        results.append(
            Result(
                metric=metric,
                value=q[2],
                unit=q[3],
                kernel=kernel,
                config=config,
                tool="prose",
                normalized_value=nv,
                normalized_unit=nu,
                evidence=Evidence(line_start=line, line_end=line, text=line_text[:500]),
            )
        )
        if kernel is not None and kernel not in known:
            mentions.append(
                KernelMention(
                    raw=kernel,
                    version=normalize_version(kernel) or kernel,
                    evidence=Evidence(line_start=line, line_end=line, text=line_text[:500]),
                )
            )
            known.add(kernel)

    for lo, hi in _paragraphs(text):
        if hi - lo > MAX_PARAGRAPH or not _may_measure(text, lo, hi):
            continue
        para = _Para(text[lo:hi], lo, known)
        first = len(results)
        used: set[int] = set()
        for i in range(len(para.qs) - 1):
            if i not in used:
                used.update(_statement(para, i, emit))
        for i, q in enumerate(para.qs):
            if i not in used:
                _alone(para, q, emit)
        if len(results) > first:
            _on_either_side_of_a_commit(para, results[first:], where[first:], text, lo)
    return results, mentions


#: a sentence naming the commit after which it measured: "following commit 6975c1a486a4, the
#: script doesn't complete in a reasonable time", "since commit 1a2b3c4d5e6f, reads run at"
_AFTER_COMMIT = re.compile(
    r"\b(?i:after|since|following|with)[ \t\n]{1,3}(?i:the[ \t\n]{1,3})?(?i:commit[ \t\n]{1,3})?"
    r"(?P<sha>[0-9a-f]{7,40})\b"
)


def _commits_after(text: str) -> list[re.Match]:
    """The "after/since/following commit <sha>" of a paragraph whose hex word can be a commit."""
    return [m for m in _AFTER_COMMIT.finditer(text) if looks_like_sha(m["sha"])]


def _on_either_side_of_a_commit(
    para: _Para, found: list[Result], at: list[int], text: str = "", lo: int = 0
) -> None:
    """Values of a paragraph that names the commit after which it measured, none with a condition
    of its own, each on the side its sentence says: "before the commit it takes 335 seconds. But,
    after that patch, it never finishes after 4 hours" (linux-btrfs, 2022-06); a sentence saying
    neither is on the side of the one before it, and those before the commit is first named were
    measured without it ("usually completes in about 1m20s. But, following commit X, ... (I
    waited 20 minutes)").  One commit only.  ``at``: where each value stands.  A paragraph that
    names no commit but measures on both sides of "the commit" is on the sides of the one commit
    the ``text`` names in the COMMIT_LOOKBACK chars before it (it starts at ``lo``): "found that
    the commit 01e99aeca397 ... triggers it. // Before the commit, block/004 took around 130
    seconds. After the commit, it takes around 300"."""
    shas = {m["sha"] for m in _commits_after(para.text)}
    if not shas and _AFTER_CHANGE.search(para.text) and _BEFORE_CHANGE.search(para.text):
        named = _COMMIT_NAMED.finditer(text, max(0, lo - COMMIT_LOOKBACK), lo)
        shas = {m["sha"] for m in named if looks_like_sha(m["sha"])}
    if len(shas) != 1 or any(r.kernel or r.config for r in found):
        return
    (sha,) = shas
    sides: list[tuple[int, bool]] = []  # (sentence start, measured with the commit)
    for a, b in _sentences(para.text):
        piece = para.text[a:b]
        if _BEFORE_CHANGE.search(piece):
            sides.append((a, False))
        elif _commits_after(piece) or _AFTER_CHANGE.search(piece):
            sides.append((a, True))
        else:
            sides.append((a, sides[-1][1] if sides else False))
    for r, pos in zip(found, at):
        with_it = next((w for a, w in reversed(sides) if a <= pos), False)
        if with_it:
            r.kernel = sha
        else:
            r.config = "before " + sha


#: how far before a paragraph the commit its "before/after the commit" means may be named
COMMIT_LOOKBACK = 2_000
#: a commit named by its SHA: "the commit 01e99aeca397", "commit 1a2b3c4d5e6f7"
_COMMIT_NAMED = re.compile(r"\b(?i:commit)[ \t\n]{1,3}(?P<sha>[0-9a-f]{7,40})\b")
#: a sentence measuring without the change, or with it, named in words
_BEFORE_CHANGE = re.compile(
    r"\b(?:before|without)[ \t\n]{1,3}(?:the|this|that|it)\b|\brevert\w{0,3}\b", re.IGNORECASE
)
_AFTER_CHANGE = re.compile(
    r"\b(?:after|with|since)[ \t\n]{1,3}(?:the|this|that)[ \t\n]{1,3}(?:commit|patch|change|series)\b",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of the sentences of a paragraph: cut after ". ", "! ", "? " and at line ends after
    a full stop."""
    out, a = [], 0
    for m in re.finditer(r"[.!?](?=[ \t\n])", text):
        out.append((a, m.end()))
        a = m.end()
    if a < len(text):
        out.append((a, len(text)))
    return out


#: the first value's side said after it, the second's after the second: "450 MB/s before the
#: update and barely 120 MB/s after", "30 seconds before the upgrade, 90 seconds afterwards"
_BEFORE_IN_GAP = re.compile(r"^[ \t\n]{1,3}(?:before|prior[ \t]to)\b[^.;\d]{0,60}$", re.IGNORECASE)
_AFTER_NEXT = re.compile(
    r"[ \t\n]{1,3}(?:after(?:wards)?|since|now)\b(?![ \t\n]{1,3}(?:that|which))", re.IGNORECASE
)


def _kernel_move(para: _Para, a: int, b: int) -> tuple[str, str] | None:
    """The (old, new) kernels of a move (:func:`~lkmlkb.extract.kernel_versions.kernel_move`:
    "upgrading from 6.1.55 to 6.6.8", "between v6.5-rc5 and v6.5-rc6", "upgraded to 6.6 from
    6.1") stated in the sentence holding text ``a``..``b`` or in the one before it, in its
    paragraph: the two sides of a change measured across it."""
    t = para.text
    sents = _sentences(t)
    k = next((j for j, (_s, e) in enumerate(sents) if a < e), len(sents) - 1)
    lo = sents[max(0, k - 1)][0]
    hi = next((e for _s, e in sents if b <= e), len(t))
    ks = [x for x in para.kernels if lo <= x[0] and x[1] <= hi]
    for (a0, b0, k0), (a1, _b1, k1) in zip(ks, ks[1:]):
        move = kernel_move(t[max(lo, a0 - 30) : a0], t[b0:a1]) if k0 != k1 else 0
        if move:
            return (k0, k1) if move == 1 else (k1, k0)
    return None


def _statement(para: _Para, i: int, emit) -> set[int]:
    """A change statement starting at quantity ``i``: the indices it used (none: no statement)."""
    t = para.text
    a, b = para.qs[i], para.qs[i + 1]
    gap = t[a[1] : b[0]]
    if len(gap) > STATEMENT_GAP or "\n\n" in gap or metric_of(a[3]) != metric_of(b[3]):
        return set()
    if setting_before(t, a[0]):
        return set()  # a knob turned, not a change measured
    joined = (
        _TO.search(gap)
        if _FROM.search(t, max(0, a[0] - 16), a[0]) and not _RANGE_FROM.search(t, max(0, a[0] - 40), a[0])
        else None
    )
    if joined is None and "to" in gap:
        joined = _MOVES_TO.search(gap)
    versus = _VERSUS.search(gap)
    used_to = _USED_TO.search(t, max(0, a[0] - 60), a[0]) and _NOW.search(gap)
    if _BEFORE_IN_GAP.search(gap) and _AFTER_NEXT.match(t, b[1]):
        # "ran at 450 MB/s before the update and barely 120 MB/s after"
        ka, kb = _kernel_move(para, a[0], b[1]) or (None, None)
        emit(para, a, ka, "before")
        emit(para, b, kb, "after")
        return {i, i + 1}
    if re.fullmatch(r"[ \t\n]{1,3}instead[ \t]of[ \t\n]{1,3}", gap, re.IGNORECASE):
        emit(para, b, None, "before")  # "finished after 10s instead of 20s": the second is what it was
        emit(para, a, None, "after")
        return {i, i + 1}
    if not (joined or versus or used_to):
        return set()
    cut = (joined or versus or used_to).start() if (joined or versus) else len(gap)
    ka = _beside(para.kernels, a[1], a[1] + cut)
    kb = _beside(para.kernels, b[1], min(len(t), b[1] + BESIDE_REACH))
    if ka is None and not versus and (move := _kernel_move(para, a[0], b[1])):
        # "fell from 40K to under 2K IOPS when moving from v6.7 to v6.8-rc3": the move's sides
        ka, kb = move
    first, second = ("first", "second") if versus else ("before", "after")
    emit(para, a, ka, first)  # the side of the change, the kernel beside it apart
    emit(para, b, kb, second)
    return {i, i + 1}


#: the words a label of a run's condition opens with: "Before:", "Without the series:", "With
#: patch:", "Baseline:", "Vanilla:", "old:" (a label naming a kernel is a kernel's, see _LABEL_GAP)
#: or the commit a run was built from, as such a label names it ("Before 0ff67f990bd4:", "With commit
#: 0123456789ab:", "584b0180f0 with my debugging patch:"): a hex word of 7 to 40 characters with a
#: digit and a letter in it (not a number)
_LABEL_SHA = r"(?:commit[ \t]{1,3})?(?=[0-9a-f]{0,39}[a-f])(?=[a-f]{0,39}[0-9])[0-9a-f]{7,40}\b"
CONDITION_WORDS = (
    r"(?:(?:before|after|without|with|w/o|baseline|base|patched|unpatched|vanilla|stock|original|old|new"
    rf"|good|bad|fixed|revert|reverted)\b[^:\n\d]{{0,30}}?(?:{_LABEL_SHA}[^:\n\d]{{0,30}}?)?"
    rf"|{_LABEL_SHA}[^:\n\d]{{0,40}}?)"
)
#: a line's label naming the condition of the value right after it: "Before: 970k IOPs", "without
#: patch: 3.64 MIOPS", "- Baseline: 1.2 GB/s", "With it applied:  520K IOPS"
_CONDITION_LABEL = re.compile(
    rf"(?:^|\n)[ \t>*-]{{0,6}}(?P<label>{CONDITION_WORDS})[ \t]{{0,8}}:[ \t]{{0,8}}"
    r"(?:~|about[ \t]|around[ \t]|approx\.?[ \t])?$",
    re.IGNORECASE,
)
#: a line that is a condition's label alone, heading the output below it ("Without patch:")
CONDITION_LINE = re.compile(rf"[ \t>*-]{{0,6}}(?P<label>{CONDITION_WORDS})[ \t]{{0,8}}:[ \t]*", re.IGNORECASE)


def condition_label(label: str) -> str:
    """A label as a result's condition: as written, one space a gap."""
    return " ".join(label.split())


def _condition_label(t: str, at: int) -> str | None:
    """The condition a line's label gives the value at ``at``."""
    m = _CONDITION_LABEL.search(t, max(0, t.rfind("\n", 0, at)), at)
    return condition_label(m["label"]) if m else None


def _alone(para: _Para, q: tuple[int, int, float, str], emit) -> None:
    """A quantity outside a change statement: its label ("6.5: ~1 min", "Before: 970k IOPs"), the
    kernel beside it ("35 seconds slow with 5.9"), or "B instead of one" (a value and the one it
    replaced)."""
    t = para.text
    label = next(
        (k for a, b, k in para.kernels if 0 <= q[0] - b <= 16 and _LABEL_GAP.match(t, b, q[0])), None
    )
    if label is None:
        label = _line_label(para, q)
    if label is not None:
        emit(para, q, label, label)
        return
    condition = _condition_label(t, q[0])
    if condition is not None:
        emit(para, q, None, condition)
        return
    inst = _INSTEAD.match(t, q[1])
    if inst:
        # "20 minutes instead of one", "takes 40 instead of 4": the other is what it was, in its unit
        was = _NUMBER_WORDS[inst.group("word").lower()] if inst.group("word") else float(inst.group("num"))
        emit(para, (q[0], q[1], was, q[3]), None, "before")
        emit(para, q, None, "after")
        return
    kernel = _after_in_clause(para, q) or _before_in_clause(para, q)
    if (
        kernel is None
        and not t.endswith(LATENCY_KEY, 0, q[0])  # a tool's measured latency ("max_latency=86.861 ms")
        and not _PV_RATE.search(t, max(0, q[0] - 40), q[0])
        and not _MEASURED.search(t, max(0, q[0] - CONTEXT_REACH), min(len(t), q[1] + CONTEXT_REACH))
    ):
        return  # "devices with 8ms seek time", "a 10ms timeout": a number of the discussion, not a run
    emit(para, q, kernel, kernel)


#: what ends a sentence, and a clause: a comma or semicolon too
_SENTENCE_END = re.compile(r"[.!?](?=\s)")
_CLAUSE_BREAK = re.compile(rf"[,;]|{_SENTENCE_END.pattern}")
#: a kernel labelling what follows it ("6.6: avg 180 usec", "6.12 -> Read 6600MB/s")
_LABELS_NEXT = re.compile(r"[ \t]{0,2}(?::|->|=>|\u2192)")
#: the rest of a line's label after its first kernel: more releases, then the separator
#: ("6.18 and 6.19 -> ...", "6.1, 6.6: ...")
_LABEL_REST = re.compile(
    r"(?:[ \t]{0,2}(?:,|/|&|and|or)[ \t]{0,2}v?\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:-rc\d{1,2})?){0,4}"
    r"[ \t]{0,2}(?::|->|=>|\u2192)",
    re.IGNORECASE,
)


def _line_label(para: _Para, q: tuple[int, int, float, str]) -> str | None:
    """The kernel a line opens with as the label of its values: "6.12 -> Read 6600MB/s, write
    4500MB/s", "6.18 and 6.19 -> Read 6900MB/s" (the first of the label's releases), and the
    kernel heading a table's row right before its value."""
    t = para.text
    ls = t.rfind("\n", 0, q[0]) + 1
    for a, b, k in para.kernels:
        if ls <= a and b <= q[0] and not _line_lead(t, a).strip(" \t-*>"):
            # or a table's row: the kernel, blanks, the value ("5.10  1m26.212s", "linux-5.8.18 77.7 MB/s")
            return k if _LABEL_REST.match(t, b) or not t[b : q[0]].strip(" \t") else None
    return None


def _heads_a_row(para: _Para, a: int, b: int) -> bool:
    """Whether the kernel at ``[a, b)`` opens its line and a value follows it there after blanks
    (or its label's colon): a table's row, "5.10  1m26.212s", "linux-5.8.18 77.7 MB/s"."""
    t = para.text
    if _line_lead(t, a).strip(" \t-*>"):
        return False
    nxt = para.value_within(b, len(t))
    return nxt is not None and not t[b : nxt[0]].strip(" \t:")


def _after_in_clause(para: _Para, q: tuple[int, int, float, str]) -> str | None:
    """The kernel written after a value ("35 seconds slow with 5.9"), within BESIDE_REACH, unless
    it labels what follows it ("6.6: avg 180 usec") or opens the clause of the next value ("300
    MB/s, on 6.1.39 it gave 600 MB/s")."""
    t = para.text
    hi = min(len(t), q[1] + BESIDE_REACH)
    for a, b, k in para.kernels:
        if not (q[1] <= a and b <= hi) or LABEL_LINE_END.match(t, b) or _LABELS_NEXT.match(t, b):
            continue
        if "\n" in t[q[1] : a] and _heads_a_row(para, a, b):
            continue  # the next line's own label ("linux-5.8.18 77.7 MB/s" under a row of its own)
        if _SENTENCE_END.search(t, q[1], a) or para.value_within(q[1], a):
            continue  # another sentence's, or the value's between ("90 seconds, it took 30 seconds on 6.5")
        nxt = para.value_within(b, len(t))
        if _CLAUSE_BREAK.search(t, q[1], a) and nxt and para.clause_start(nxt[0]) <= b:
            continue  # the kernel heads the next value's clause
        return k
    return None


def _before_in_clause(para: _Para, q: tuple[int, int, float, str]) -> str | None:
    """The last kernel before a value in its clause, after a lead word ("On 6.1.40-rc2 dd gives
    300 MB/s", "With Linux 6.6 the copy takes 9 minutes"), with no other value between."""
    t = para.text
    start = para.clause_start(q[0])
    found = None
    for a, b, k in para.kernels:
        if start <= a and b <= q[0] and _LEAD.search(t, max(0, a - 12), a) and not _LABELS_NEXT.match(t, b):
            if not para.value_within(b, q[0]):
                found = k
    return found


def _may_measure(text: str, lo: int, hi: int) -> bool:
    """Whether the paragraph ``text[lo:hi]`` can hold a value :class:`_Para` reads: a QUANTITY,
    or a "from" whose "from A to B" writes the unit once (:func:`_with_unit_written_once`), or a
    latency written as a key's value.

    Searched in ``text`` itself, without the paragraph's copy: a paragraph starts after a line
    break (or at the text's start) and ends before one (or at its end), and QUANTITY matches
    no line break, so its lookbehind and lookaheads answer at the paragraph's ends as at the
    ends of a copy (the search's end is the copy's end).

    The cheap tests first: "from", then a digit, without which QUANTITY (opening with one) cannot
    match; QUANTITY's scan, trying its lookbehind at every character, runs last.  Most paragraphs
    hold no digit.  A paragraph saying "score" may hold a benchmark's score (:func:`scores`,
    which :class:`_Para` reads)."""
    return (
        text.find("from", lo, hi) >= 0
        or (_A_DIGIT.search(text, lo, hi) is not None and QUANTITY.search(text, lo, hi) is not None)
        or (text.find(LATENCY_KEY, lo, hi) >= 0 and _LATENCY_VALUE.search(text, lo, hi) is not None)
        or (
            (text.find("core", lo, hi) >= 0 or text.find("CORE", lo, hi) >= 0)
            and _SCORE_WORD.search(text, lo, hi) is not None
        )
    )


#: any digit, as QUANTITY's ``\d`` takes one
_A_DIGIT = re.compile(r"\d")


def _paragraphs(text: str) -> Iterator[tuple[int, int]]:
    lo = 0
    for m in re.finditer(r"\n[ \t>]*\n", text):
        yield lo, m.start()
        lo = m.end()
    yield lo, len(text)
