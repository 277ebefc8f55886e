"""Commit citations in mail text: SHAs, their subjects, and the role the text gives them.

Forms seen in real reports:

* prose: ``the bisection points to commit d47f9717e5cf ("block/mq-deadline: ...")``,
  the subject sometimes wrapped over two lines, or written bare after the SHA
  (``5b18b5a73760 block: delete part_round_stats and ...``);
* ranges: ``(80a787ba3809 to 6f75723190d8)``, ``A..B``;
* trailers: ``Fixes: X ("...")`` (X is the culprit the patch fixes),
  ``Link:``/``Closes:`` lore URLs (cited as form ``link`` with the message-id
  in ``sha``), ``base-commit:``;
* regzbot commands: ``#regzbot introduced: X``, ``#regzbot fix: X``;
* kernel test robot (LKP): ``commit: 574e7779cf... ("subject")`` after
  "noticed a ... regression ... on:" (the tested head, i.e. the culprit), and
  the two-line ``commit:`` block (base, then head);
* git output: ``X is the first bad commit``, ``# first bad commit: [X] subj``,
  ``git bisect good X``, ``commit X`` + ``Author:`` header block.

Hex numbers that are not commits are skipped: diff ``index a..b`` lines, stack
traces and register dumps, hexdumps, addresses (``ffff888...``, ``0x...``),
UUIDs, message-ids and e-mail addresses, URLs, decimal-only numbers.

Roles come from cue phrases (``lkmlkb/data/cues/commits.jsonl``) in the same
sentence, found with the shared spaCy pipeline; the nearest cue before the SHA
wins, then a cue after it ("... inadvertently caused").
"""

from __future__ import annotations

import bisect
import logging
import re
from dataclasses import dataclass, field

from lkmlkb.extract.lines import line_of, line_text, lines_holding
from lkmlkb.extract.nlp import cue_files, reading
from lkmlkb.model import ROLE_RANK, CommitCitation, Evidence

log = logging.getLogger(__name__)

#: lines are read for SHAs up to this many characters (a longer one is base64 or binary junk)
MAX_LINE = 4000

_SHA_RE = re.compile(
    r"""
    (?:(?<=[^.]\.\.)|(?<=[^.]\.\.\.)  # the far end of a range "A..B", "A...B"
      |(?<![\w/.:=+\-#@%&?~$]))   # not inside a path, URL, option value, address "0x.."
    (?P<sha>[0-9a-f]{7,40})
    (?![\w@\-/%&=~]|\.[\w])     # not a UUID part, e-mail, message-id, file name
    """,
    re.VERBOSE,
)
#: lines whose hex numbers are never commits
_SKIP_LINE_RE = re.compile(
    r"""
    ^[ \t>]{0,20}index\ [0-9a-f]{7,40}\.\.[0-9a-f]{7,40}  # diff: "index cb38d6f3acce..8275b10a1c9a 100644"
    | ^\s{0,8}(?:Message-I[dD]|In-Reply-To|References|X-[\w-]{1,40}|Received|DKIM-[\w-]{1,30}):
                                                         # mail headers pasted into the body
    | ^[ \t>]{0,20}(?![\w.\-\ ]{0,40}?(?ai:commit)[\ _\-]?(?ai:id)[ \t]{0,20}[:=])
      [\w.\-\ ]{0,40}?(?<![A-Za-z])(?ai:id)[ \t]{0,20}[:=]
                                                         # an identifier's key: the robot's job file
                                                         # "submit_id:", "id:", git's
                                                         # "prerequisite-patch-id:", "Build ID:"; not
                                                         # "Commit-ID:" / "commit id:"
    | ^[ \t>]{0,20}(?:export[ \t]{1,3})?(?:head_commit|base_commit|monitor_sha)[ \t]{0,3}[:=]
                                                         # the robot's job file and job script: the
                                                         # branch it ran on, its monitors' id, not
                                                         # what the report is about
    | \b(?:RIP|RSP|RAX|RBX|RCX|RDX|RSI|RDI|RBP|R\d\d|CR[0234]|FS|GS|PC|LR|SP|pc|lr|sp|x\d{1,2}|Code)\s?:\s
                                                         # register dumps "RIP: 0010:..", "x29: ffff..", "Code: 48 8b"
    | \+0x[0-9a-f]{1,8}/0x[0-9a-f]{1,8}                  # stack frames "blk_mq_run_hw_queue+0x1a/0x30"
    | ^\s{0,8}(?:\[\s{0,6}\d{1,8}\.\d{1,8}\]\s)?\s{0,4}(?:Call\ Trace|<TASK>|</TASK>|\?\ )
                                                         # "Call Trace:", "? __schedule+0x.."
    | ^[ \t>]{0,20}\[\s{0,6}\d{1,8}\.\d{6}\]           # dmesg lines "[58563.146439] [c00000007960f500] .."
    | \b(?:GPR\d\d|REGS|MSR|CFAR|XER|NIP|DAR|DSISR|IRQMASK)\b  # powerpc register dumps
    | ^\s{0,8}[0-9a-f]{4,16}:(?:\s{1,3}[0-9a-f]{2,8}){4}   # hexdump "00000010: 4142 4344 ..."
    """,
    re.VERBOSE,
)
_URL_RE = re.compile(r"""(?:https?|ftp|git)://[^\s<>"')\]]{1,500}""")
_ANGLE_RE = re.compile(r"<[^<>\s]{1,300}@[^<>\s]{1,300}>")
_EMAIL_RE = re.compile(r"[\w.+\-]{1,100}@[\w\-]{1,100}(?:\.[\w\-]{1,100}){0,10}")

#: ``("subject")`` after a SHA, allowing one wrapped line
_QUOTED_SUBJ_RE = re.compile(
    r"""
    [ \t]{0,3}\n?[ \t>]{0,20}              # "commit c8ed1b359312\n ("..." rare; mostly same line
    \(\s{0,3}["\u201c\u201e]                 # ("gfs2: Fix duplicate   (“...” from mailers that curl quotes)
    (?P<subj>[^\n]{1,300}?(?:\n[ \t>]{0,20}[^\n]{1,300}?)?)
    ["\u201d\u201c]\s{0,3}\)                 #  should_fault_in_pages() call")
    """,
    re.VERBOSE,
)
#: subject without quotes: "5b18b5a73760 block: delete part_round_stats and switch to ..."
#: the subsystem prefix a commit title opens with after its first letter ("blk-mq: ",
#: "io_uring/msg_ring: ", "scsi: scsi_debug: "); claims read the word after it as the patch's verb
TITLE_PREFIX_AFTER_FIRST = r"[\w.\-]{0,30}(?:/[\w.\-]{1,30}){0,3}(?:\ ?:\ ?[\w.\-/]{1,30}){0,2}:\ "
_BARE_SUBJ_RE = re.compile(
    r"""
    [ \t]{1,3}
    (?P<subj>
        (?:Revert\ |Merge\ )?
        [A-Za-z]"""
    + TITLE_PREFIX_AFTER_FIRST
    + r"""[^\n]{3,200}
    )
    """,
    re.VERBOSE,
)
#: "[sha] subject" in git bisect logs: "# first bad commit: [eca2040972b4...] scsi: block: ioprio:"
_BRACKET_SUBJ_RE = re.compile(r"\][ \t]{1,3}(?P<subj>[^\n]{3,200})")
#: range between two SHAs: "80a787ba3809 to 6f75723190d8", "A..B", "A...B", "A - B"
_RANGE_SEP_RE = re.compile(
    r"""\s{0,2}(?:\.\.\.?|\s(?:to|through|thru|until|-|–)\s)\s{0,2}(?=[0-9a-f]{7,40}\b)"""
)
_RANGE_BETWEEN_RE = re.compile(r"between\s{1,3}(?:commits?\s{1,3})?$", re.IGNORECASE)
_TRAILER_RE = re.compile(
    r"""
    ^[ \t>|]{0,20}
    (?P<key>Fixes|Link|Closes|base-commit|Reported-by|Tested-by|Bisected-by)
    :[ \t]{0,4}(?P<val>[^\n]{1,600})
    """,
    re.VERBOSE | re.IGNORECASE | re.MULTILINE,
)
#: regzbot commands: "#regzbot introduced: 3ea3354cb9f0", "#regzbot ^introduced aa511ff8218b"
_REGZBOT_RE = re.compile(
    r"""
    ^[ \t>]{0,20}\#regzbot[ \t]{1,4}
    (?P<cmd>\^?[a-z][a-z\-]{1,30}):?[ \t]{0,4}(?P<arg>[^\n]{0,300})
    """,
    re.VERBOSE | re.MULTILINE,
)
#: kernel test robot: "commit: 574e7779cf583171acb5bf6365047bb0941b387c ("block/...")"
_LKP_COMMIT_RE = re.compile(r"^[ \t>]{0,20}commit:[ \t]{0,4}(?P<rest>[^\n]{0,400})$", re.MULTILINE)
#: the kernel test robot's report, in its forms since 2019: "kernel test robot noticed a -5.2%
#: regression", "FYI, we noticed a -98.3% regression of fio.write_iops due to commit:" (2019-2022),
#: "Greeting, FYI, we noticed ..."
_LKP_NOTICED_RE = re.compile(r"kernel\s+test\s+robot\s+noticed|\bFYI,\s+we\s+noticed\b", re.IGNORECASE)
#: git log header block: "commit 8f03cfa117e0..." then "Author:" then "Date:"
_GITLOG_RE = re.compile(
    r"""^[ \t>]{0,20}commit[ \t]{1,3}(?P<sha>[0-9a-f]{7,40})[^\n]{0,80}\n
        (?:[ \t>]{0,20}(?:Merge|Author|AuthorDate|Commit|CommitDate|Date):[^\n]{0,300}\n){1,5}
        [ \t>]{0,20}\n
        [ \t>]{0,20}(?P<subj>[^\n]{1,300})""",
    re.VERBOSE | re.MULTILINE,
)
#: a `git blame` line as the kernel test robot quotes source around a warning: SHA ("^" before a
#: boundary commit, "^1da177e4c3f41"), the file's path when the lines come from more than one,
#: the author (a letter first, no digit), date and line number ("@" marks the warning's) before
#: the code ("71e330b593905e Dave Chinner      2010-05-21  @836  \tstruct xfs_log_vec"); the SHA is
#: who last touched the line, and no word of the code after it is a cue.  A table of SHAs, dates
#: and numbers ("9f8e7d6c5b4a  2024-01-21  800  bad, the first bad commit") is none.
_BLAME_LINE_RE = re.compile(
    r"""^[ \t>]{0,20}\^?(?P<sha>[0-9a-f]{8,40})[ \t]{1,4}
        (?:[\w.+-]{0,200}/[\w./+-]{1,200}[ \t]{1,40})?     # the path: "fs/xfs/xfs_ondisk.h"
        [^\W\d_][^\d\n]{0,60}?[ \t]                      # the author
        \d{4}-\d\d-\d\d[ \t]{1,8}@?\d{1,7}(?:[ \t]|$)""",
    re.MULTILINE | re.VERBOSE,
)
#: a step of a bisection: the commit was built and run, and judged good or bad
_BISECT_STEP_RE = re.compile(
    r"""git\s+bisect\s+(?:good|bad|skip|start)                    # git bisect log: "git bisect good 7907ad748bdb"
      | ^[ \t>]{0,20}\#\s(?:good|bad|skip):                       # its comments: "# good: [7907ad748bdb...] Merge"
      | ^[ \t>]{0,20}(?=[0-9a-f]{7,40}[ \t]{1,4}(?:is[ \t]{1,3})?   # a list written by hand: "4e2f62e566b5 is good",
         (?P<verdict>good|bad)\b[ \t.]{0,3}$)                      # "ff042f4a9b050895a42cae893cc01fa2ca81b95c bad"
    """,
    re.MULTILINE | re.VERBOSE,
)
#: how many lines after the last step of a bisection a ``commit X`` block may name its result
BISECT_RESULT_LINES = 4
_LORE_MSGID_RE = re.compile(
    r"""
    (?:lore\.kernel\.org|lkml\.kernel\.org|patch\.msgid\.link|marc\.info|spinics\.net)
    (?:/[\w.\-]{1,60})?/(?:r/)?            # "lore.kernel.org/oe-lkp/", "lkml.kernel.org/r/"
    (?P<mid>[^/\s<>"]{1,250}@[^/\s<>"]{1,250})
    """,
    re.VERBOSE,
)


@dataclass
class _Hit:
    sha: str
    start: int
    end: int
    subject: str | None = None
    role: str = "mentioned"
    cue: str = ""
    form: str = "prose"
    range_end: str | None = None
    extra: dict = field(default_factory=dict)


def _excluded_spans(text: str) -> list[tuple[int, int]]:
    """Char spans of URLs, <message-ids> and e-mail addresses (no commits inside)."""
    spans = []
    for rx in (_URL_RE, _ANGLE_RE):
        spans.extend(m.span() for m in rx.finditer(text))
    spans.extend(_email_spans(text))
    return spans


#: the longest local part and domain _EMAIL_RE reads
_EMAIL_LOCAL, _EMAIL_DOMAIN = 100, 100 + 10 * 101


#: the characters _EMAIL_RE reads on either side of its "@": the last of the local part, the first
#: of the domain
_EMAIL_LOCAL_CHAR = re.compile(r"[\w.+\-]")
_EMAIL_DOMAIN_CHAR = re.compile(r"[\w\-]")


def _email_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``_EMAIL_RE.finditer(text)`` gives, searched only around each "@".

    Every match holds one "@" with at most 100 characters before it, so the
    next match after an "@" with no match before it starts at most 100
    characters before the next "@": the regex runs from there, within reach
    of that "@", instead of being tried at every word character of the text.
    """
    spans: list[tuple[int, int]] = []
    end = 0
    at = text.find("@")
    while at != -1:
        if not (at and _EMAIL_LOCAL_CHAR.match(text, at - 1) and _EMAIL_DOMAIN_CHAR.match(text, at + 1)):
            # no match holds this "@" ("@@ -98,6 +98,7 @@" of a diff): the search from it finds
            # nothing, or the match of a later "@", which the search from that "@" finds as well
            # (it starts at most 100 characters before its own "@", past ``end``)
            at = text.find("@", at + 1)
            continue
        hi = at + 1 + _EMAIL_DOMAIN
        m = _EMAIL_RE.search(text, max(end, at - _EMAIL_LOCAL), hi)
        if m is not None and m.end() >= hi - 1:
            m = _EMAIL_RE.search(
                text, m.start()
            )  # may be cut by the window (before a final "."): read it whole
        if m is None:
            at = text.find("@", at + 1)
            continue
        spans.append(m.span())
        end = m.end()  # past the match's own "@" (one at or after ``at``): never empty, never behind
        at = text.find("@", end)
    return spans


class _Spans:
    """The excluded spans, asked whether one holds ``a..b``: the largest end among the spans
    starting at or before ``a`` (a prefix maximum over the sorted starts) answers it in one
    bisection.  Asking every span for every SHA would cost a flood of ``Reported-by:`` lines
    with addresses time in the square of its length."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans = sorted(spans)
        self.starts = [s for s, _ in spans]
        self.reach: list[int] = []
        for _, e in spans:
            self.reach.append(max(e, self.reach[-1]) if self.reach else e)

    def holds(self, a: int, b: int) -> bool:
        """Whether some span has start <= a and b <= end."""
        i = bisect.bisect_right(self.starts, a) - 1
        return i >= 0 and self.reach[i] >= b


def _cites_title(line: str, m: re.Match) -> bool:
    """A word of decimal digits followed by a title in parentheses and quotes ("3430818739 (\"btrfs:
    add extra device item checks\")") is a commit cited, though most such words are numbers."""
    b = m.end("sha")
    sha = m.group("sha")
    return sha.isdigit() and "0000" not in sha and line[b : b + 3].lstrip(" ")[:2] in ('("', "(\u201c")


def looks_like_sha(sha: str) -> bool:
    """A commit id has letters and digits, and is not a kernel address (ffff8881...)."""
    if not any(c.isdigit() for c in sha) or not any(c in "abcdef" for c in sha):
        return False
    if "0000" in sha or "6b6b6b" in sha or "ffff" in sha:
        return False  # addresses, poison and padding: "c00000007960f500", "6b6b6b6b"; a SHA has
        # a run of four zeros with odds of about 1 in 5000
    if len(sha) == 16 and sha.startswith(("c00", "800", "fff")):
        return False  # a 64-bit kernel address "c0001000a878be80"; LKP's "8f764b91fdf29659" is a SHA
    return True


def _hexdump_line(line: str) -> bool:
    """Lines of several same-length hex words (hexdumps, LKP raw data, register lists)."""
    return len(_HEX_WORD_RE.findall(line, 0, MAX_LINE)) >= 4


_HEX_WORD_RE = re.compile(r"(?<![\w.])[0-9a-f]{8,16}(?![\w.])")


_HEX_RUN_RE = re.compile(r"[0-9a-f]{7}")


def _quoted_string(line: str, m: re.Match) -> bool:
    """A hex word that is a whole string in double quotes: a file name in strace output
    (``rename(".272629ef.22gv2x", "272629ef")``), a key in JSON; mail cites a commit bare."""
    a, b = m.span("sha")
    return line[a - 1 : a] == '"' and line[b : b + 1] == '"'


def _prompt_host(line: str, m: re.Match) -> bool:
    """A hex word that is a shell prompt's host before its working directory ("0f70583cd12cac:/pandata/0 #
    time rm test1", a container's id in "root@3f4e5a6b7c8d:~#"): no commit."""
    b = m.end("sha")
    return line[b : b + 2] in (":/", ":~")


def find_sha_hits(text: str) -> list[_Hit]:
    """Every SHA-shaped token in ``text`` that can be a commit id, with its span."""
    hits: list[_Hit] = []
    excluded = None  # URLs, <ids> and addresses: looked for once a line holds a SHA-shaped word
    # every SHA is a run of 7 hex digits: the lines holding one, as cut, found in the whole text
    for pos, cut in lines_holding(text, _HEX_RUN_RE, MAX_LINE):
        # the SHA-shaped words first: most lines have none, and then what kind of line it is
        # does not matter (the line tests are the costlier regexes)
        shas = [
            m
            for m in _SHA_RE.finditer(cut)
            if (looks_like_sha(m.group("sha")) or _cites_title(cut, m))
            and not _quoted_string(cut, m)
            and not _prompt_host(cut, m)
        ]
        if shas and not _SKIP_LINE_RE.search(cut) and not _hexdump_line(cut):
            if excluded is None:
                excluded = _Spans(_excluded_spans(text))
            for m in shas:
                a, b = pos + m.start(), pos + m.end()
                if not excluded.holds(a, b):
                    hits.append(_Hit(m.group("sha").lower(), a, b))
    return hits


def _clean_subject(s: str) -> str:
    """Join a wrapped subject and drop quote markers: "gfs2: Fix duplicate\\n> should_..."."""
    s = re.sub(r"\s{0,20}\n[ \t>]{0,20}", " ", s)
    return re.sub(r"[ \t]{2,}", " ", s).strip()


#: what may stand before a SHA that opens a list line: blanks, bullets, quote marks
_LIST_MARKS = " \t-*+>\u2022"


def _attach_subject(text: str, hit: _Hit) -> None:
    """Fill ``hit.subject`` from ("..."), [sha] subj, or a bare "subsys: words" after it."""
    tail = text[hit.end : hit.end + 700]
    m = _QUOTED_SUBJ_RE.match(tail)
    if m:
        hit.subject = _clean_subject(m.group("subj"))
        hit.extra["subj_end"] = hit.extra["title_end"] = hit.end + m.end()
        return
    m = _BRACKET_SUBJ_RE.match(tail)
    if m and text[hit.start - 1 : hit.start] == "[":
        hit.subject = _clean_subject(m.group("subj"))
        return
    m = _BARE_SUBJ_RE.match(tail)
    if m:
        subj = m.group("subj").strip()
        # a bare subject ends at the sentence end written on that line
        subj = re.split(r"(?<=[a-z0-9)])\.(?:\s|$)", subj, maxsplit=1)[0]
        hit.subject = subj.rstrip(" .,;")
        hit.extra["subj_end"] = hit.end + m.start("subj") + len(subj)
        if not text[text.rfind("\n", 0, hit.start) + 1 : hit.start].strip(_LIST_MARKS):
            # a list of "sha subject" lines (git log --oneline): the rest of the line is the title;
            # in a sentence ("the culprit is 0123456789ab block: rework plugging and it is fixed by
            # ...") where the subject ends is a guess, and the writer's words may follow
            hit.extra["title_end"] = hit.extra["subj_end"]


def _mark_ranges(text: str, hits: list[_Hit]) -> None:
    """Pair SHAs joined by "..", "to", "-" (or "between A and B") as range ends."""
    for a, b in zip(hits, hits[1:]):
        gap = text[a.end : b.start]
        sep = _RANGE_SEP_RE.match(text, a.end, b.start + 7)
        joined = sep is not None and sep.end() == b.start
        between = _RANGE_BETWEEN_RE.search(text[max(0, a.start - 30) : a.start]) and re.fullmatch(
            r"\s{1,3}and\s{1,3}(?:commit\s{1,3})?", gap
        )
        if joined or between:
            a.form = b.form = "range"
            a.range_end, b.range_end = b.sha, a.sha


def _apply_trailers(text: str, hits: list[_Hit], out_links: list[_Hit]) -> None:
    """Roles fixed by trailers: Fixes: -> culprit, base-commit: -> base; Link/Closes -> link.

    Each trailer's value looks only at the hits starting inside it (hits are in
    text order: a bisection finds them), not at every hit of the message.
    """
    starts = [h.start for h in hits]
    for m in _TRAILER_RE.finditer(text):
        key = m.group("key").lower()
        vs, ve = m.start("val"), m.end("val")
        if key in ("link", "closes"):
            mm = _LORE_MSGID_RE.search(m.group("val"))
            if mm:
                out_links.append(
                    _Hit(
                        mm.group("mid").rstrip(".>"),
                        vs,
                        ve,
                        role="mentioned",
                        cue=m.group("key") + ":",
                        form="link",
                    )
                )
            continue
        for h in hits[bisect.bisect_left(starts, vs) : bisect.bisect_left(starts, ve)]:  # vs <= h.start < ve
            if key == "fixes":
                h.role, h.cue, h.form = "culprit", "Fixes:", "fixes"
            elif key == "base-commit":
                h.role, h.cue, h.form = "base", "base-commit:", "base"
            h.extra["decided"] = True


def _apply_regzbot(text: str, hits: list[_Hit]) -> None:
    """#regzbot introduced/^introduced -> culprit, fix/fixed-by -> fix, others mentioned."""
    for m in _REGZBOT_RE.finditer(text):
        cmd = m.group("cmd").lstrip("^").lower()
        role = {"introduced": "culprit", "fix": "fix", "fixed-by": "fix", "fixed": "fix"}.get(
            cmd, "mentioned"
        )
        a, b = m.start("arg"), m.end("arg")
        for h in hits:
            if a <= h.start < b:
                h.role, h.cue, h.form = role, "#regzbot " + m.group("cmd"), "regzbot"
                h.extra["decided"] = True


def _apply_lkp(text: str, hits: list[_Hit]) -> None:
    """Kernel test robot reports: the commit after "noticed ... on:" is the culprit;
    in the two-line "commit:" block the first is the base and the second the head."""
    # both forms spell "noticed": an ASCII text without it (nearly all) is not scanned by the
    # case-insensitive regex, which tries its two alternatives at every character (under re.I
    # "\u0131" and "\u0130" are an "i" that lower() does not make one: other texts are scanned)
    if (text.isascii() and "noticed" not in text.lower()) or not _LKP_NOTICED_RE.search(text):
        return
    for m in _LKP_COMMIT_RE.finditer(text):
        rest = m.group("rest").strip()
        if rest:
            for h in hits:
                if m.start("rest") <= h.start < m.end("rest") and not h.extra.get("decided"):
                    h.role, h.cue, h.form = "culprit", "kernel test robot noticed ... commit:", "lkp"
                    h.extra["decided"] = True
            continue
        # empty "commit:" then one SHA opening each line up to a blank one: base, then the tested
        # head (a third is a commit tried after them); the table's header below is no part of it
        block = _line_openers(text, m.end(), hits)[:2]
        if len(block) == 2:
            for h, role in zip(block, ("base", "culprit")):
                if not h.extra.get("decided"):
                    h.role, h.form = role, "lkp"
                    h.cue = "kernel test robot commit: block"
                    h.extra["decided"] = True


def _line_openers(text: str, at: int, hits: list[_Hit]) -> list[_Hit]:
    """The hits that open the lines after the one ending at ``at`` (after a quote's "> " and
    indentation), up to the first line that a hit does not open (a blank one)."""
    starts = {h.start: h for h in hits}
    out: list[_Hit] = []
    pos = at + 1
    while pos < len(text) and len(out) < 8:
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        opener = starts.get(pos + len(line) - len(line.lstrip(" \t>")))
        if opener is None:
            break
        out.append(opener)
        pos = end + 1
    return out


def _apply_git_output(text: str, hits: list[_Hit]) -> None:
    """git bisect logs, git log headers and git blame lines: "X is the first bad commit", "# first
    bad commit: [X]", "git bisect good X" (a step: tested), "commit X\\nAuthor:" (subject from
    the body), "X Dave Chinner 2010-05-21  949  <code>" (blame: mentioned)."""
    for m in _GITLOG_RE.finditer(text):
        for h in hits:
            if h.start == m.start("sha") and not h.subject:
                h.subject = m.group("subj").strip()
    for h in hits:  # a blame line starts with its SHA: only the lines of the hits are tried
        if not h.extra.get("decided"):
            m = _BLAME_LINE_RE.match(text, text.rfind("\n", 0, h.start) + 1)
            if m and m.start("sha") == h.start:
                h.form, h.cue = "blame", ""
                h.extra["decided"] = True
    last_step_end = -1
    for m in _BISECT_STEP_RE.finditer(text):
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        for h in hits:
            if m.start() <= h.start < line_end and not h.extra.get("decided"):
                # a commit built and run in the bisection: tested (the first bad one is also named
                # the culprit by "is the first bad commit" or the block after the steps)
                h.role, h.form, h.cue = "tested", "bisect-step", (m.group("verdict") or m.group(0)).strip()
                h.extra["decided"] = True
        last_step_end = line_end
    if last_step_end >= 0:
        _bisect_result(text, hits, last_step_end)


def _bisect_result(text: str, hits: list[_Hit], steps_end: int) -> None:
    """A ``commit X`` block (git log or git show) right after the steps of a bisection is what
    it found: "ff04... good / 077d... bad / ... \n\ncommit 077d0c2c78df\nAuthor: ..." (a list
    written by hand, linux-ext4 2022-07)."""
    for m in _GITLOG_RE.finditer(text, steps_end):
        if text.count("\n", steps_end, m.start()) > BISECT_RESULT_LINES:
            return
        for h in hits:
            if h.start == m.start("sha") and not h.extra.get("decided"):
                h.role, h.form, h.cue = "culprit", "bisect-result", "commit after the bisection's steps"
                h.extra["decided"] = True
        return


def _role_from_cue(label: str) -> str | None:
    """The role a cue label gives (None: the cue needs more context)."""
    base = label.removesuffix("_POST")
    return {
        "CULPRIT": "culprit",
        "CULPRIT_NEXT": "culprit",
        "FIX": "fix",
        "REVERT": "revert",
        "TESTED": "tested",
        "BASE": "base",
    }.get(base)


_HELPS_RE = re.compile(
    r"""\b(?:fix(?:es|ed)?|improv\w{0,5}|restor\w{0,4}|recover\w{0,4}|solv\w{0,3}|resolv\w{0,4}
          |helps?|goes\ away|gone|back\ to|brings?\ (?:(?:it|them|the\ \w{1,20}|performance|speed)\ )?back
          |no\ (?:more\ )?regression)""",
    re.VERBOSE | re.IGNORECASE,
)


def _negated(doc, cue_start_char: int) -> bool:
    """True when one of the 3 tokens before the cue is a negation ("not caused by")."""
    return any(
        t.lower_ in ("not", "n't", "never", "no", "nor", "neither")
        for t in reading.tokens_before(doc, cue_start_char, 3)
    )


def _live_cues(doc, titles: list[tuple[int, int]] = ()) -> tuple[list, list[int], int]:
    """The cues of ``doc`` not negated ("not caused by") and not inside a cited commit's title
    (``titles``: sorted spans; a title's "fix performance regression with" is the commit's
    words, not a cue for the SHAs listed after it), their starts (they are in text order, so a
    SHA's cues are found by bisection) and the longest cue's length (how far before a point a
    cue ending there can start)."""
    title_starts = [a for a, _ in titles]

    def in_title(pos: int) -> bool:
        k = bisect.bisect_right(title_starts, pos) - 1
        return k >= 0 and pos < titles[k][1]

    cues = [c for c in reading.cues(doc) if not _negated(doc, c.start) and not (titles and in_title(c.start))]
    return cues, [c.start for c in cues], max((c.end - c.start for c in cues), default=0)


def _assign_roles_by_cues(text: str, hits: list[_Hit]) -> None:
    """Give each undecided SHA the role of the nearest cue in its sentence.

    Before-cues ("bisection points to X", "fixed by X") are preferred between the
    previous SHA and this one, then anywhere earlier in the sentence; then a
    post-cue after it ("X inadvertently caused"); then the cues of the previous
    sentence when it ends with ":" ("The issue was bisected to:\\n\\ncommit X").
    """
    undecided = [h for h in hits if not h.extra.get("decided")]
    if not undecided:
        return
    near = [h.start for h in undecided]
    doc = reading.parse(text, "commits", near=near)  # the paragraphs of the SHAs to decide
    titles = sorted((h.end, h.extra["title_end"]) for h in hits if "title_end" in h.extra)
    cues, cue_starts, longest = _live_cues(doc, titles)
    runs: dict[int, list] = {}  # per sentence start: what _nearest_before has seen
    lead_ins = False
    prev_end_in_sent: dict[tuple[int, int], int] = {}
    doc_text = reading.doc_text(doc)
    hit_starts = sorted(x.start for x in hits)
    for h in sorted(undecided, key=lambda x: x.start):
        if h.start >= len(doc_text):
            continue
        s0, s1 = reading.sentence_bounds(doc, h.start, h.end)
        prev_end = prev_end_in_sent.get((s0, s1), s0)
        prev_end_in_sent[(s0, s1)] = h.extra.get("subj_end", h.end)
        upto = bisect.bisect_left(cue_starts, h.start)
        pool = [
            c
            for c in cues[bisect.bisect_left(cue_starts, max(s0, prev_end)) : upto]
            if c.end <= h.start and not c.label.endswith("_POST")
        ]  # between the previous SHA and this
        if not pool:  # anywhere before it in the sentence
            pool = _nearest_before(cues, cue_starts, s0, upto, h.start, runs)
        after_limit = h.extra.get("subj_end", h.end)
        k = bisect.bisect_right(hit_starts, h.end)  # the next SHA after this one ends the post-cue's reach
        after_stop = min(s1, hit_starts[k]) if k < len(hit_starts) else s1
        after = [
            c
            for c in cues[
                bisect.bisect_left(cue_starts, after_limit) : bisect.bisect_left(cue_starts, after_stop)
            ]
            if c.label.endswith("_POST")
            and not _INTRODUCES_A_FEATURE.match(doc_text, c.end)
            # "changed" names the culprit only right after it: 'commit 636b927eba5b ("...") changed
            # WQ_UNBOUND workqueue's behavior', not "... is in 6.8 and nothing changed since"
            and not (c.label == "CULPRIT_NEXT_POST" and doc_text[after_limit : c.start].strip())
        ]
        chosen = [max(pool, key=_nearness)] if pool else after[:1]
        if not chosen and not lead_ins and (_after_lead_in(doc_text, s0) or _below_before(text, s0)):
            # a lead-in may end a paragraph before ("bisected to:\n\ncommit X"): read those too
            doc = reading.parse(text, "commits", near=near, lookback=LEAD_IN_CHARS)
            cues, cue_starts, longest = _live_cues(doc, titles)
            runs.clear()
            lead_ins = True
        if not chosen:
            chosen = _cues_of_colon_sentence(doc_text, cues, cue_starts, longest, s0)
        if not chosen:
            continue
        cue = chosen[0]  # each way of choosing above gives one cue
        role = _role_from_cue(cue.label)
        if role is None and cue.label.startswith("CULPRIT_IF_HELPS"):
            sent_text = text[s0:s1]
            role = "culprit" if _HELPS_RE.search(sent_text) else "revert"
        if (
            role == "culprit"
            and cue.text[:10].lower() == "introduced"
            and _FEATURE_INTRODUCED_BY.search(doc_text, max(s0, cue.start - FEATURE_BEFORE_CHARS), cue.start)
            and not _FAULT_NAMED.search(doc_text, s0, s1)
        ):
            continue  # "iowait boost in schedutil was introduced by commit X": a feature's history
        if role:
            h.role, h.cue = role, cue.text


#: the things a commit introduces that are features, not faults: "introduces the sysfs control
#: interface", "the logic of linear search was introduced by"
_FEATURE_NOUNS = (
    "interfaces?|options?|features?|support|helpers?|functions?|flags?|knobs?|parameters?|fields?|ioctls?"
    "|tunables?|settings?|modes?|macros?"
)
#: a feature, not a fault, said to be "introduced by" the commit after, its sentence naming no fault:
#: "iowait boost in schedutil was introduced by\ncommit (\"21ca6d2c52f8 cpufreq: ...\")" (io-uring,
#: 2024-09), "The logic of linear search was introduced by Commit 91b587ba79e1" (linux-ext4); not "the
#: slowdown was introduced by commit 63304558ba5d", "This is introduced by commit b330e6a49d", nor a
#: feature's line that names a fault too ("... introduced by commit X and it regressed fio")
_FEATURE_INTRODUCED_BY = re.compile(
    r"""\b(?i:FEATURES|values?|logic|idea|rules?|code|boost(?:ing)?|mechanisms?|heuristics?)\b""".replace(
        "FEATURES", _FEATURE_NOUNS
    ),
    re.VERBOSE,
)
#: how far before "introduced by" the feature it introduced is looked for
FEATURE_BEFORE_CHARS = 120
#: a fault named in the sentence: then what was introduced is one
_FAULT_NAMED = re.compile(
    r"""(?i:regress|bug|issue|problem|slow|drop|degrad|fail|warn|break|broke|race|leak|deadlock|hang|crash
          |inversion|mistake|corrupt|overhead|error|oops|wrong|incorrect|lockdep|latenc|stall)""",
    re.VERBOSE,
)


#: what a commit "introduces" when that is no culprit's deed: a feature ("Commit 196e402adf2e (...)
#: introduces the sysfs control interface "mb_max_linear_groups" to address the problem", linux-ext4)
_INTRODUCES_A_FEATURE = re.compile(
    r"""(?<=[Ii]ntroduced|[Ii]ntroduces)[ \t\n]{1,3}(?:(?:the|a|an|new|this|that)[ \t\n]{1,3})?(?:[\w"'/.-]{1,40}[ \t\n]{1,3}){0,3}?
        (?:FEATURES|apis?|sysfs|structs?)\b""".replace("FEATURES", _FEATURE_NOUNS),
    re.VERBOSE,
)


def _nearness(c) -> tuple[int, int]:
    """How a before-cue is chosen: the one ending last, then the longest."""
    return c.end, c.end - c.start


def _nearest_before(cues: list, cue_starts: list[int], s0: int, upto: int, at: int, runs: dict) -> list:
    """[the before-cue nearest to a SHA at ``at``] of the cues starting in ``s0``..``at`` (``upto``
    indexes past them), as ``max`` over them all would choose it; [] if none.

    The SHAs of a sentence come in text order, so what the previous one saw
    is kept in ``runs`` (the best so far, and cues that overlapped it) and
    only the cues since are read: a sentence of 3,000 SHAs reads each cue
    once, not once per SHA.  Ties cannot reorder: a cue that was set aside
    for overlapping an earlier SHA ends after every cue chosen then.
    """
    state = runs.get(s0)
    if state is None or state[0] > upto:
        state = [bisect.bisect_left(cue_starts, s0), None, []]
    nxt, best, overlapping = state
    waiting = []
    for c in overlapping + cues[nxt:upto]:
        if c.label.endswith("_POST"):
            continue
        if c.end > at:
            waiting.append(c)
        elif best is None or _nearness(c) > _nearness(best):
            best = c
    runs[s0] = [max(nxt, upto), best, waiting]
    return [best] if best is not None else []


#: how far before a SHA's sentence a lead-in ending in ":" is looked for
LEAD_IN_CHARS = 300


def _after_lead_in(doc_text: str, s0: int) -> bool:
    """Whether the text before the sentence at ``s0`` ends with ":" (a lead-in such as "bisected to:")."""
    return doc_text[max(0, s0 - LEAD_IN_CHARS) : s0].rstrip().endswith(":")


#: a cue pointing at the citation that follows it, whatever ends its sentence: "a significant
#: performance regression with the following commit in my Intel P3600 NVMe SSD." (linux-ext4),
#: "a performance regression after the commit below on phoronix pts/fio test ...:", a Link: line
#: and then the `commit <sha>` block (io-uring)
_POINTS_BELOW = re.compile(r"\bfollowing\b|[ \t]{1,3}below\b")


def _below_before(text: str, s0: int) -> bool:
    """Whether the text before the sentence at ``s0`` points below ("the commit below", "the
    following commit"): its cues are read though the sentence ends otherwise than with ":"."""
    return _POINTS_BELOW.search(text, max(0, s0 - LEAD_IN_CHARS), s0) is not None


def _cues_of_colon_sentence(doc_text: str, cues, cue_starts: list[int], longest: int, s0: int):
    """Cues of the sentence before ``s0`` when it ends with ":" (a lead-in), or a cue before it
    that points at the citation below ("the commit below").  Only the cues that can end in reach
    are read (``cue_starts`` and ``longest``: see :func:`_live_cues`): a flood of SHAs asks
    for every one of them."""
    lo = bisect.bisect_left(cue_starts, s0 - LEAD_IN_CHARS - longest)
    cues = cues[lo : bisect.bisect_right(cue_starts, s0)]
    near = [c for c in cues if s0 - LEAD_IN_CHARS <= c.end <= s0 and not c.label.endswith("_POST")]
    if _after_lead_in(doc_text, s0):
        return near[-1:]
    return [
        c for c in near if _POINTS_BELOW.search(c.text) or _POINTS_BELOW.match(doc_text, c.end, c.end + 12)
    ][-1:]


def _to_citation(text: str, h: _Hit) -> CommitCitation:
    line_a = line_of(text, h.start)
    line_b = line_of(text, max(h.start, h.extra.get("subj_end", h.end) - 1))
    lines = (
        [line_text(text, i) for i in range(line_a, line_b + 1)]
        if line_b - line_a < 5
        else [text[h.start : h.end]]
    )
    return CommitCitation(
        sha=h.sha,
        subject=h.subject,
        role=h.role,
        cue=h.cue,
        form=h.form,
        range_end=h.range_end,
        evidence=Evidence(line_start=line_a, line_end=line_b, text="\n".join(lines)[:500]),
    )


def find_commit_mentions(text: str) -> list[CommitCitation]:
    """Every commit citation in ``text``, one per occurrence, in text order.

    Tolerates any string (NULs, megabyte lines, binary junk): never raises on
    input; a failure inside the cue pipeline leaves roles as "mentioned".
    """
    if not isinstance(text, str) or not text:
        return []
    text = text.replace("\r\n", "\n")
    hits = find_sha_hits(text)
    links: list[_Hit] = []
    for h in hits:
        _attach_subject(text, h)
    _mark_ranges(text, hits)
    _apply_trailers(text, hits, links)  # Link:/Closes: trailers are citations without a SHA
    if hits:  # the rest only give the SHAs found their roles and subjects
        _apply_regzbot(text, hits)
        _apply_lkp(text, hits)
        _apply_git_output(text, hits)
    try:
        _assign_roles_by_cues(text, hits)
    except cue_files.CueFileError:
        raise
    except Exception as exc:  # spaCy on pathological text: keep the SHAs, log the reason
        log.info("commit cue analysis failed, roles left as mentioned: %s", exc)
    _dated_from(text, hits)
    _share_range_roles(hits)
    allhits = sorted(hits + links, key=lambda x: x.start)
    return [_to_citation(text, h) for h in allhits]


#: "since" or "after" right before a SHA (a line break between at most): the commit something
#: dates from
_SINCE_BEFORE = re.compile(r"\b(?:since|after)[ \t]{0,3}\n?[ \t]{0,3}\Z", re.I)
#: a regression, a breakage or a slowdown said on the SHA's line before it: "Performance regression
#: since 96cb9d055445", "drive broken since 7627a0edef54", "umount fails since 14302ee33", "30%
#: slower since"; not its end ("gone after", "fixed since") nor both sides measured ("before/after")
_DATED_WORDS = re.compile(
    r"\bregress|\bbroken\b|\bbreaks?\b|\bfail(?:s|ed|ing|ure)?\b|\bslow(?:er|s|ed|down)?\b|\bdrops?\b"
    r"|\bdegrad|\bworse\b",
    re.I,
)
_DATED_END = re.compile(
    r"\b(?:gone|away|fix\w{0,3}|resolv\w{0,3}|recover\w{0,4}|restor\w{0,4}|no[ \t]longer)\b|/\Z", re.I
)
#: how far before the SHA the words are read (on the line "since" or "after" stands on)
DATED_REACH = 120
#: the most "since" or "after" and the blanks after it hold: where it is looked for
SINCE_CHARS = 13


def _dated_from(text: str, hits: list[_Hit]) -> None:
    """A SHA still mentioned only, right after "since" or "after" in a line telling of a
    regression, a breakage or a slowdown ("bcm2835-rng: Performance regression since
    96cb9d055445", linux-crypto; "performance regression noted in v5.11-rc after c062db039f40",
    linux-rdma): the commit it dates from, its culprit."""
    for h in hits:
        if h.role != "mentioned" or h.extra.get("decided") or h.form != "prose":
            continue
        since = _SINCE_BEFORE.search(text, max(0, h.start - SINCE_CHARS), h.start)
        if since is None:
            continue
        before = text[max(0, h.start - DATED_REACH) : since.start()]
        before = before[before.rfind("\n", 0, max(0, len(before) - 1)) + 1 :]  # the line "since" stands on
        if _DATED_WORDS.search(before) and not _DATED_END.search(before):
            h.role, h.cue = "culprit", text[since.start() : since.end()].strip()


def _share_range_roles(hits: list[_Hit]) -> None:
    """Both ends of a range take the stronger role of the two ("(A to B)" after "root cause")."""
    by_sha = {h.sha: h for h in hits}
    for h in hits:
        if h.form == "range" and h.range_end in by_sha:
            o = by_sha[h.range_end]
            if ROLE_RANK[o.role] < ROLE_RANK[h.role]:
                h.role, h.cue = o.role, o.cue


def find_commits(text: str) -> list[CommitCitation]:
    """Commit citations of ``text``, one per commit (prefix-equal SHAs merged),
    with the strongest role the text gives it; links (Link:/Closes:) kept apart.
    The evidence is that of the mention that decided the role."""
    try:
        mentions = find_commit_mentions(text)
    except cue_files.CueFileError:
        raise  # a broken rule file is our bug, not bad input
    except Exception as exc:  # never let one message stop a run
        log.warning("find_commits failed: %s", exc)
        return []
    out: list[CommitCitation] = []
    # prefix-equal SHAs share their first 7 digits (the shortest SHA read): the candidates
    # for a merge are looked up there, not in every commit so far (else a flood of SHAs costs time in the square of its length)
    by_head: dict[str, list[CommitCitation]] = {}
    for c in mentions:
        same = None
        if c.form != "link":
            same = next(
                (o for o in by_head.get(c.sha[:7], ()) if o.sha.startswith(c.sha) or c.sha.startswith(o.sha)),
                None,
            )
        if same is None:
            new = CommitCitation(c.sha, c.subject, c.role, c.cue, c.form, c.range_end, c.evidence)
            out.append(new)
            if new.form != "link":
                by_head.setdefault(new.sha[:7], []).append(new)
            continue
        if len(c.sha) > len(same.sha):
            same.sha = c.sha
        same.subject = same.subject or c.subject
        same.range_end = same.range_end or c.range_end
        if ROLE_RANK[c.role] < ROLE_RANK[same.role]:
            same.role, same.cue, same.evidence = c.role, c.cue, c.evidence
            if c.form != "prose":
                same.form = c.form
    return out
