"""Views: the text of a message the extractors read, line for line with its body.

A view holds the text of new segments and of quoted segments whose origin is
not in the thread (a number quoted in five replies is one fact, attributed
to the message that first said it), and blank lines elsewhere (patches,
signatures, footers, attribution lines, quotes of known messages): line
offsets in the view are body line numbers.  Very long views are focused on
the neighbourhoods of the lines that can hold a report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lkmlkb.extract.prefilter import LKP_HEADER, MAX_VIEW_CHARS, prefilter, prefilter_lines
from lkmlkb.model import Message, Segment

#: extractors read at most this much of a line: no line of a real report comes near (they
#: hold under a thousand characters), and a line of 100,000 (base64, a minified log, a flood)
#: costs every extractor time for nothing
MAX_VIEW_LINE = 4_000


@dataclass
class View:
    text: str
    quoted_lines: dict[int, int]  # body line -> quote depth, for lines from quoted text
    #: set by :func:`focus_view` when it cut the view: the lines that could hold a report
    report_lines: int = 0


def build_view(body: str, segments: list[Segment], keep_attributed: bool = False) -> View:
    """The text extractors read, aligned line for line with the body.

    New text and quoted text, quote markers removed, each line cut at
    MAX_VIEW_LINE characters; patches, signatures, footers, attribution
    lines and quoted Outlook headers are blank, and so is quoted text whose
    origin in the thread is known (``quotes_message_id``, set by quote
    attribution), unless ``keep_attributed`` is true: a number quoted in five
    replies is read once, in the message that said it.
    """
    n = body.count("\n") + 1
    lines = [""] * n
    quoted: dict[int, int] = {}
    for s in segments:
        if in_view(s, keep_attributed):
            for k, line in enumerate(s.text.split("\n")):
                if s.line_start + k < n:
                    lines[s.line_start + k] = line[:MAX_VIEW_LINE]
                    if s.kind == "quoted":
                        quoted[s.line_start + k] = s.depth
    return View(_plain_spaces("\n".join(lines)), quoted)


def _plain_spaces(text: str) -> str:
    """``text`` with each no-break space a space: a mailer that turns HTML into text indents with
    them (an lspci listing's "LnkCap:" lines, linux-pci 2020-10), and a line's patterns look for
    spaces and tabs.  One character for one: every offset stays."""
    return text.replace("\xa0", " ") if "\xa0" in text else text


def in_view(s: Segment, keep_attributed: bool = False) -> bool:
    """Whether a view holds segment ``s``'s lines (:func:`build_view`, :func:`screen_text`)."""
    return s.kind == "new" or (s.kind == "quoted" and (keep_attributed or not s.quotes_message_id))


def may_hold_report(msg: Message, segments: list[Segment]) -> bool:
    """The prefilter on a message: its subject, or its view with the quotes of known origin kept.

    A reply that only says "Applied, thanks" with the commit it was applied
    as, under a quoted report, is read (for the commit); what the
    extractors then read of it is its own text.
    """
    if len(msg.body) > MAX_VIEW_CHARS:  # the view is cut: read as it is cut
        return screened_view(msg, segments) is not None
    return prefilter(screen_text(segments)) or prefilter(msg.subject)


def screen_text(segments: list[Segment]) -> str:
    """The lines a view holds (new and quoted text, quotes of known origin kept, each line cut at
    MAX_VIEW_LINE), without the blank lines between: what :func:`prefilter` reads of the view
    of a body of at most MAX_VIEW_CHARS, built without laying out the body's every line.  No
    PREFILTER alternative spans a line break, so the blank lines change no answer.  The
    segments are :func:`build_view`'s with ``keep_attributed`` (:func:`in_view`), cut as it
    cuts them (a test compares the two on real mail)."""
    parts = []
    for s in segments:
        if in_view(s, keep_attributed=True):
            text = s.text
            if len(text) > MAX_VIEW_LINE:
                text = "\n".join([line[:MAX_VIEW_LINE] for line in text.split("\n")])
            parts.append(text)
    return _plain_spaces("\n".join(parts))


def screened_view(msg: Message, segments: list[Segment]) -> View | None:
    """The view the prefilter reads (quotes of known origin kept) if the message may hold a
    report (:func:`may_hold_report`), else None."""
    view = build_view(msg.body, segments, keep_attributed=True)
    return view if prefilter(view.text) or prefilter(msg.subject) else None


#: a view longer than this is cut down to the neighbourhoods of lines that can hold a report
FOCUS_ABOVE_CHARS = 64_000
#: lines kept on either side of a line that passes the prefilter and is no kernel log line
FOCUS_RADIUS = 40
#: a kernel log line ("[   94.641946] ...", dmesg's timestamp) is an event among others: one
#: naming a tool ("Comm: fio", "in process dbench", "gen() 17777 MB/s") heads no report, and its
#: neighbourhood is more log (what a long view loses for it are setup facts and kernels of crash
#: logs)
_KERNEL_LOG_LINE = re.compile(r"[ \t]{0,8}\[[ \t]{0,12}\d{1,12}\.\d{1,9}\]")
#: a view is read up to its this-many-th line that can hold a report (and that line's
#: neighbourhood).  The extractors' work grows with such lines (a SHA, a version, a result or a
#: claim on each): a flood of them costs a message its budget.  Kernel log lines are not counted.
#: Real reports hold far fewer, the longest test robot reports included; a view with more is a
#: dump (a stress-ng iostat log) that yields nothing past its first lines.
FOCUS_MAX_LINES = 500
#: a robot's table is kept whole up to this many rows (its longest on the lists hold about 1,700)
LKP_TABLE_MAX_LINES = 5_000


#: the benchmark a robot report ran, after its cue: "in testcase: unixbench", "| testcase: fxmark",
#: "a -90.4% regression of fxmark.ssd_btrfs_MWUM_72_bufferedio.works/sec"
_TESTCASE_AFTER = {
    "testcase:": re.compile(r"[ \t]{0,4}([\w-]{2,40})[ \t|]*(?:\n|$)"),
    "regression of ": re.compile(r"([\w-]{2,40})\.\w"),
    "improvement of ": re.compile(r"([\w-]{2,40})\.\w"),
}


def _testcases(text: str) -> tuple[str, ...]:
    """The benchmarks a robot report names, each as its rows' prefix ("unixbench."); found from
    literal cues (a regular expression scanning a 400 KB report for them costs 40 ms)."""
    found: dict[str, None] = {}
    for cue, after in _TESTCASE_AFTER.items():
        k = text.find(cue)
        while k != -1 and len(found) < 20:
            m = after.match(text, k + len(cue))
            if m:
                found[m.group(1) + "."] = None
            k = text.find(cue, k + len(cue))
    return tuple(found)


def focus_view(view: View) -> View:
    """Blank what lies far from any line that can hold a report, in very long messages, and
    what lies past the FOCUS_MAX_LINES-th such line in any message.

    A 1 MB kernel log or a pasted trace mentions fio once; the extractors'
    cost grows with the text, their findings do not.  Lines within
    FOCUS_RADIUS of a line that passes the prefilter and is no kernel log line
    stay (a fio output block or a results table passes on nearly every line,
    so it stays whole); the rest become empty lines, so line numbers still
    point into the body.  A view cut at FOCUS_MAX_LINES says how many such
    lines it had (``report_lines``), and its extraction is recorded as cut.
    """
    text = view.text
    long = len(text) > FOCUS_ABOVE_CHARS
    if not long and text.count("\n") < FOCUS_MAX_LINES:
        return view
    lines = text.split("\n")
    passing = [i for i in prefilter_lines(text, lines) if not _KERNEL_LOG_LINE.match(lines[i])]
    # cut only if a line that can hold a report lies past the last one read and its neighbourhood
    cut = len(passing) > FOCUS_MAX_LINES and passing[-1] > passing[FOCUS_MAX_LINES - 1] + FOCUS_RADIUS
    if not long and not cut:
        return view
    keep = bytearray(len(lines))
    if long:
        for i in passing[:FOCUS_MAX_LINES] if cut else passing:
            lo, hi = max(0, i - FOCUS_RADIUS), min(len(lines), i + FOCUS_RADIUS + 1)
            keep[lo:hi] = b"\x01" * (hi - lo)
    else:  # a short view stays whole up to the neighbourhood of its last line read
        end = min(len(lines), passing[FOCUS_MAX_LINES - 1] + FOCUS_RADIUS + 1)
        keep[:end] = b"\x01" * end
    testcases: tuple[str, ...] | None = None
    for i in passing:
        if keep[i] and LKP_HEADER.search(lines[i]):
            # the kernel test robot's comparison table is read from its header down to the last
            # row of the benchmark's own ("fxmark.", "unixbench."): the header passes the
            # prefilter, the rows need not, and the benchmark's may stand below hundreds of
            # monitor rows (sorted by name); the monitors past them (3,500 rows in some reports)
            # hold nothing a report needs and would cost ten times a message's budget target
            if testcases is None:
                testcases = _testcases(text)
            end = last = i
            while end + 1 < len(lines) and lines[end + 1].strip() and end - i < LKP_TABLE_MAX_LINES:
                end += 1
                if not testcases or lines[end].rsplit(None, 1)[-1].startswith(testcases):
                    last = end
            keep[i : last + 1] = b"\x01" * (last + 1 - i)
    focused = "\n".join(line if keep[i] else "" for i, line in enumerate(lines))
    return View(focused, view.quoted_lines, report_lines=len(passing) if cut else 0)
