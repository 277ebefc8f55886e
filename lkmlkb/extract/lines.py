"""The lines of a text that can hold something, found by searching the whole text.

Every extractor reads lines, and most lines of a message (and nearly all of a
focused kernel log, whose far lines are blank) hold nothing it looks for.  A
word or pattern that never spans a line break is searched in the whole text
instead, with ``str.find`` or one ``re`` search, and only the lines holding it
are read: the same lines as testing each one, without a Python step per line.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator


def _word_line_ends(text: str, words: tuple[str, ...]) -> list[int]:
    """Where each line of ``text`` holding one of ``words`` ends (its newline, or the text's
    end), ascending.  Each word is sought with ``str.find``, and past a hit from the next line
    on.  No word may hold a newline."""
    ends: set[int] = set()
    find = text.find
    for w in words:
        at = find(w)
        while at >= 0:
            nl = find("\n", at)
            if nl < 0:
                ends.add(len(text))
                break
            ends.add(nl)
            at = find(w, nl + 1)  # the rest of this line is known to hold it
    return sorted(ends)


def word_spans(text: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, end) of each line of ``text`` holding one of ``words``, in order."""
    rfind = text.rfind
    return [(rfind("\n", 0, end) + 1, end) for end in _word_line_ends(text, words)]


def word_lines(text: str, words: tuple[str, ...]) -> list[int]:
    """Numbers of the lines of ``text`` (split on newlines) holding one of ``words``, ascending."""
    out: list[int] = []
    count = text.count
    line = counted = 0  # ``line`` is the number of the line holding offset ``counted``
    for end in _word_line_ends(text, words):
        line += count("\n", counted, end)
        counted = end
        out.append(line)
    return out


def trie_pattern(words) -> str:
    """A regex matching, at a place, the longest of ``words`` (literals) that starts there: their
    trie (``a(?:dd_random|md|...)|b(?:...)``), longer words tried before a word they extend.

    The same matches as the alternation of the words longest first, for ``re`` tries the
    branches in order; but at a place where no word starts, the trie is left at its first
    character, where the alternation tried each word in turn (``_anchor_re``'s claim words:
    a search of a message a fifth as long).
    """
    trie: dict = {}
    for w in sorted(set(words)):
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}  # a word ends here

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return "(?:" + body + ")?" if "" in node else body  # the longer words first, then this one

    return emit(trie)


def match_starts(text: str, rx: re.Pattern) -> Iterator[tuple[int, int]]:
    """(number, offset of its first match) of each line of ``text`` where ``rx`` matches, in order.

    ``rx`` must never match a newline: then no match spans two lines, and resuming the search
    at the next line after a hit finds every line holding one (a line naming its word forty
    times costs one search).
    """
    search, count, find = rx.search, text.count, text.find
    line = counted = 0  # ``line`` is the number of the line holding offset ``counted``
    m = search(text)
    while m is not None:
        at = m.start()
        line += count("\n", counted, at)
        counted = at
        yield line, at
        nl = find("\n", at)
        if nl < 0:
            return
        m = search(text, nl + 1)


def match_lines(text: str, rx: re.Pattern) -> list[int]:
    """Numbers of the lines of ``text`` where ``rx`` (never matching a newline) matches, ascending."""
    return [line for line, _ in match_starts(text, rx)]


def lines_holding(text: str, rx: re.Pattern, max_line: int) -> Iterator[tuple[int, str]]:
    """(offset, line cut to ``max_line``) of each line of ``text`` where ``rx`` (never matching
    a newline) matches within the cut, in order: what a loop testing ``rx`` on every line as
    cut gives, without the loop."""
    search, rfind, find = rx.search, text.rfind, text.find
    pos = 0
    while True:
        m = search(text, pos)
        if m is None:
            return
        start = rfind("\n", 0, m.start()) + 1
        end = find("\n", m.start())
        line = text[start : len(text) if end == -1 else end][:max_line]
        if search(line):
            yield start, line
        if end == -1:
            return
        pos = end + 1


#: [(the text last indexed, its line start offsets)]: one pair, replaced whole, so that an
#: extraction stopped half way (the budget's hard stop) cannot leave a text with another's offsets
_LINES: list[tuple[str | None, list[int]]] = [(None, [])]


def _line_starts(text: str) -> list[int]:
    """Offsets where each line starts; computed once per text, not once per hit."""
    indexed, starts = _LINES[0]
    if indexed is not text:
        lines = text.split("\n")
        starts = [0]
        starts.extend(itertools.accumulate(len(line) + 1 for line in lines[:-1]))
        _LINES[0] = (text, starts)
    return starts


def line_of(text: str, pos: int) -> int:
    """0-based line number of char ``pos`` in ``text`` (binary search over line starts)."""
    return bisect.bisect_right(_line_starts(text), max(0, min(pos, len(text)))) - 1


def line_text(text: str, line: int) -> str:
    """The text of 0-based line ``line`` ("" past the end)."""
    starts = _line_starts(text)
    if not 0 <= line < len(starts):
        return ""
    end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
    return text[starts[line] : end]


#: a patch's title quoted in prose without its SHA: 'an updated version of "PCI/PM: Assume ports
#: without DLL Link Active\ntrain links in 100 ms"' (linux-pci, 2020-07), 'Revert "block: ..."':
#: a subsystem's prefix as titles write it (lower case, or capitals, perhaps with "/": "mm/vmscan:",
#: "PCI/PM:", "USB:"), not a capitalized label ("Result: 12 MB/s"); the title may wrap once, and a
#: subject cut short ends inside it ('[PATCH] Revert "PCI/LINK: Report degraded links via link
#: bandwidth', linux-pci 2019-04)
_QUOTED_TITLE = re.compile(
    r"""["\u201c](?:Revert[ ]["\u201c])?
        (?:[a-z0-9][\w.-]{0,30}|[A-Z0-9][A-Z0-9_.-]{1,30})(?:/[\w.-]{1,30}){0,3}:[ ]
        [^"\u201d\n]{3,200}(?:\n[ \t>]{0,20}[^"\u201d\n]{1,200})?(?:["\u201d]|\Z)""",
    re.VERBOSE,
)


def quoted_titles(text: str) -> list[tuple[int, int]]:
    """The spans of patch titles quoted in ``text`` without a SHA (read only where a quote is)."""
    if '"' not in text and "\u201c" not in text:
        return []
    return [m.span() for m in _QUOTED_TITLE.finditer(text)]


#: a device's capability flag in a tool's listing: "TimeoutDis+", "LTR-" (lspci -vv)
_FLAG = re.compile(r"(?<![\w+-])[A-Za-z][A-Za-z0-9]{1,15}[+-](?=[,\s]|$)")
_FIELD_NAME = re.compile(r"(?:^|[\s,;])[A-Z][\w ]{0,24}?[ \t]?:[ \t]")
#: a PCI Express register as lspci -vv names it, opening its line ("LnkCap:\tPort #0, Speed 8GT/s,
#: ..., Exit Latency L0s <2us", "DevCap: ... Latency L0s <64ns, L1 <1us", "LnkSta2: ..."): what
#: follows is what the device can do or is set to, never a time or a speed measured
_PCI_REGISTER = re.compile(r"[ \t]{0,40}(?:Dev|Lnk|Slt|Root)(?:Cap|Ctl|Sta)2?:[ \t]")
#: three "Name: value" fields parted by " - " (nvme id-ns: "Metadata Size: 8 bytes - Data Size: 512
#: bytes - Relative Performance: 0x3 Degraded")
_DASHED_FIELDS = re.compile(r"(?:[A-Z][\w ]{0,24}:[ \t][^:\n]{1,40}?[ \t]-[ \t]){2}[A-Z][\w ]{0,24}:[ \t]")


def field_listing(line: str) -> bool:
    """Whether ``line`` is a tool's listing of a device's fields, not prose or a measurement:
    lspci's "DevCtl2: Completion Timeout: 65ms to 210ms, TimeoutDis-, LTR-, OBFF Disabled" (a
    capability's range, two flags), nvme id-ns's "LBA Format 3 : Metadata Size: 8 bytes - Data
    Size: 512 bytes - Relative Performance: 0x3 Degraded" (a rating), a PCI Express register's
    line ("LnkCap: Port #0, Speed 5GT/s, Width x8, ASPM L0s, Exit Latency L0s <4us")."""
    if ":" not in line:
        return False
    if _PCI_REGISTER.match(line):
        return True
    if ("+" in line or "-" in line) and len(_FLAG.findall(line)) >= 2 and _FIELD_NAME.search(line):
        return True
    return " - " in line and _DASHED_FIELDS.search(line) is not None


class OpensALine:
    """Whether ``pattern`` matches at the start of some line of a text, as ``^`` under re.M would
    find it, searched from the line breaks: a pattern opening with ``^`` is tried at every
    character of the text, one opening with a line break only where one stands (the first line
    is matched on its own).  Most texts hold no such line and are passed over in one scan."""

    def __init__(self, pattern: str, flags: int = 0):
        self._first = re.compile(pattern, flags)
        self._later = re.compile("\n" + pattern, flags)

    def search(self, text: str) -> bool:
        return self._first.match(text) is not None or self._later.search(text) is not None


#: a setting named just before a change's first value: what moved is a knob someone turned, not a
#: measurement ("After raising the timeout 30s to 180s I still had resets", linux-ide 2025-11;
#: "bumping nr_requests from 64 to 256")
_SETTING_NAME = (
    r"\b(?:time-?outs?|limits?|intervals?|thresholds?|settings?|parameters?|knobs?|sysctls?|nr_requests"
    r"|queue[ _]depth|iodepth|read_?ahead\w{0,8}|max_sectors\w{0,4}|slice_idle|group_idle)"
    r"(?:[ \t]{1,3}(?:value|setting))?"
)
#: what may stand between a setting and the verb that moves it: "should be", "has been", "was"
_SETTING_AUX = (
    r"(?:[ \t]{1,3}(?:should|must|will|would|could|can|may|might|has|have|had|is|are|was|were|gets?|got"
    r"|needs?[ \t]{1,3}to|to)){0,2}(?:[ \t]{1,3}be(?:en)?)?"
)
_SETTING_BEFORE = re.compile(
    _SETTING_NAME
    + r"(?:"
    + _SETTING_AUX
    + r"[ \t]{1,3}(?:increased|raised|bumped(?:[ \t]up)?|lowered|reduced|decreased|changed|set|moved"
    r"|extended|shortened))?[ \t]{1,3}(?:from[ \t]{1,3})?(?:~|about[ \t]{1,3})?$",
    re.IGNORECASE,
)
#: a setting named as what a change verb moves, the verb next: "The relevant timeout should be
#: increased from 300ms to 1000ms" (linux-pm 2020-12, a recommendation for the e1000e driver),
#: "the threshold was lowered to 8": a knob turned, not a measurement that rose or fell
_SETTING_SUBJECT = re.compile(_SETTING_NAME + _SETTING_AUX + r"[ \t]{1,3}$", re.IGNORECASE)


def setting_before(text: str, pos: int) -> bool:
    """Whether a setting's name ends just before ``pos`` (a change's first value there is a knob
    turned: "raising the timeout 30s to 180s")."""
    return _SETTING_BEFORE.search(text, max(0, pos - 80), pos) is not None


def setting_turned_before(text: str, pos: int) -> bool:
    """Whether the change verb at ``pos`` has a setting for its subject ("the timeout should be
    increased from 300ms to 1000ms", "the threshold was lowered to 8")."""
    return _SETTING_SUBJECT.search(text, max(0, pos - 60), pos) is not None
