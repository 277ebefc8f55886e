"""Kernel versions in mail text, with the good/bad role the text gives them.

Versions are found by ``lkmlkb.extract.kernel_versions.find_versions`` (regex + context);
roles come from the sentence around each version:

* a cue right before it (``lkmlkb/data/cues/kernels.jsonl``): "regression on
  6.4-rc3" / "observed on recent kernels(6.6)" -> bad, "compared with 5.15.y" /
  "works fine on 5.15" -> good;
* a cue right after it: "6.1 is fine" -> good, "6.6 regressed" -> bad;
* "between A and B" in a sentence about a regression -> A good, B bad;
  "from A to B" (moving from 4.19.x to 5.4.x ... a performance drop) likewise, and a move
  written "to B from A" ("after upgrading to linux-5.9 from linux-5.8");
* a list "in v5.4.190 and in v5.15.35" shares the role of its first member;
* "6.8-rc7 + revert" is good when the text says the revert fixes or improves it.

A version with no such wording keeps role None.  One ``KernelMention`` per
distinct version (and revert qualifier) is returned, in order of first
appearance, with the first decided role and that mention's evidence.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract import kernel_versions as kv
from lkmlkb.extract.lines import line_of, line_text
from lkmlkb.extract.measurements import find_measurements
from lkmlkb.extract.nlp import cue_files, reading
from lkmlkb.model import Evidence, KernelMention

log = logging.getLogger(__name__)

#: a cue counts for a version only when at most this many chars separate them
CUE_REACH = 60
#: a cue after a version ("v6.8 is fine") counts when it starts at most this far past it
POST_CUE_REACH = 25
#: what is read around a version's start and end in a long paragraph (reading.parse's ``reach``):
#: CUE_REACH before it and POST_CUE_REACH after it, plus a cue's own words (cue_files.CUE_WORDS_CHARS)
READ_REACH = 150

_REGRESSION_WORDS_RE = re.compile(
    r"\b(?:regress\w{0,6}|drop\w{0,3}|slow\w{0,4}|degrad\w{0,6}|deteriorat\w{0,4}|worse|broke\w{0,2}|bad|lower"
    r"|decreas\w{0,3}|bisect\w{0,4})\b",  # "I bisected between v6.5 and v6.6": a good and a bad end
    re.IGNORECASE,
)
#: two kernels compared by "than" within one clause: "Lower SSD-performance in 4.10 than in 4.9
#: kernel", "Kernel 4.14 + has 3 times higher write IO latency than Kernel 4.4"; the gap up to
#: "than" (no sentence or clause break in it) and what follows it up to the second kernel
_THAN_GAP_RE = re.compile(
    r"^(?P<between>[^.;:!?\n]{0,80}?)\bthan\s{1,3}(?:(?:in|on|with|for|using|under)\s{1,3})?"
    r"(?:(?:the\s{1,3})?(?:kernels?|linux|versions?|v)\s{0,3})?$",
    re.IGNORECASE,
)
#: the clause before the first kernel, back to a sentence or clause break
_CLAUSE_HEAD_RE = re.compile(r"[^.;:!?\n]{0,80}$")
#: a comparative saying the first kernel of a "than" pair is the worse one ("slower", "lower
#: performance", "higher latency", "takes longer") or the better one ("faster", "lower latency")
_WORSE_RE = re.compile(
    r"\b(?:slower|worse|poorer|longer|less\s{1,3}(?:throughput|bandwidth|iops|performance|speed)"
    r"|lower(?!(?:\s{1,3}[\w-]{1,20}){0,3}?\s{1,3}(?:latenc\w{1,3}|cpu|overhead|time))"
    r"|(?:higher|more|bigger|larger)(?:\s{1,3}[\w-]{1,20}){0,3}?\s{1,3}(?:latenc\w{1,3}|cpu|overhead|load|time|iowait))\b",
    re.IGNORECASE,
)
_BETTER_RE = re.compile(
    r"\b(?:faster|better|quicker|shorter|lower(?:\s{1,3}[\w-]{1,20}){0,3}?\s{1,3}(?:latenc\w{1,3}|cpu|overhead|time)"
    r"|(?:higher|more)(?:\s{1,3}[\w-]{1,20}){0,3}?\s{1,3}(?:throughput|bandwidth|iops|performance|speed))\b",
    re.IGNORECASE,
)
#: a comparison made with a patch, a fix or a revert applied judges that, not the kernels
_PATCHED_RE = re.compile(r"\b(?:patch\w{0,4}|fix\w{0,3}|revert\w{0,3}|workaround)\b", re.IGNORECASE)
#: list continuation: "in v5.4.190 and in v5.15.35", "6.0, 6.1 and 6.2"
_LIST_GAP_RE = re.compile(
    r"\s{0,3}(?:,|and|or|&|/)\s{0,3}(?:(?:in|on|with)\s{1,3})?(?:also\s{1,3})?$", re.IGNORECASE
)
#: the revert made it good: "a revert on top of that fixes the regression"
_REVERT_HELPS_RE = re.compile(
    r"""revert\w{0,4}\b[^.\n]{0,120}?\b(?:fix\w{0,3}|improv\w{0,4}|restor\w{0,4}|recover\w{0,4}|solv\w{0,3}
        |resolv\w{0,4}|helps?|back\ to\ normal|goes\ away)""",
    re.IGNORECASE | re.VERBOSE,
)


def _negated(doc, cue) -> bool:
    """A negation in the 2 tokens before a cue ("not observed on 5.15")."""
    return any(t.lower_ in ("not", "n't", "never") for t in reading.tokens_before(doc, cue.start, 2))


def _role_from_cues(text: str, doc, cues, start: int, end: int, prev_end: int) -> tuple[str | None, str]:
    """Role of the version at ``start``..``end`` from the nearest cue in its sentence."""
    s0, s1 = reading.sentence_bounds(doc, start, end)
    lo = max(s0, prev_end, start - CUE_REACH)
    before = [c for c in cues if lo <= c.start and c.end <= start and not c.label.endswith("_POST")]
    if before:
        c = max(before, key=lambda c: (c.end, c.end - c.start))  # nearest, then longest
        neg = _negated(doc, c)
        role = {"GOOD": "good", "BAD": "bad"}.get(c.label)
        if role and neg:
            role = "good" if role == "bad" else None
        return role, c.text
    # in its sentence: a sentence without a full stop ends where the next paragraph starts
    after = [
        c
        for c in cues
        if end <= c.start < s1 and c.start <= end + POST_CUE_REACH and c.label.endswith("_POST")
    ]
    if after:
        c = after[0]
        role = {"GOOD_POST": "good", "BAD_POST": "bad"}.get(c.label)
        if role and _negated(doc, c):
            role = None
        return role, c.text
    return None, ""


def _pair_roles(text: str, found: list, roles: list) -> None:
    """ "between A and B" / "from A to B" in a regression sentence: A good, B bad; "upgrading to
    B from A" the same."""
    for i in range(len(found) - 1):
        (a0, a1, _, _), (b0, _, _, _) = found[i], found[i + 1]
        head = text[max(0, a0 - 30) : a0]
        gap = text[a1:b0]
        move = kv.kernel_move(head, gap)
        pair, back = move == 1, move == -1
        if not (pair or back):
            _than_roles(text, found, roles, i)
            continue
        sent = text[max(0, a0 - 200) : min(len(text), b0 + 200)]
        if not _REGRESSION_WORDS_RE.search(sent):
            continue
        if _REMEDY_RE.search(_sentence_around(text, a0, b0)):
            # "upgraded from 5.4 to 6.5.0-14 hoping it would alleviate the drops, but it did not":
            # neither side is judged, whatever the move's own words ("upgraded from") would say
            roles[i] = roles[i + 1] = (None, "")
            continue
        # a bisection's two ends, whichever is written first ("bisect between v6.17.7 and
        # v6.17.6"): the older is the good one
        ends = (kv.sort_key(found[i][3]), kv.sort_key(found[i + 1][3]))
        newer_first = bool(_BISECT_BETWEEN_RE.search(head)) and ends[0] > ends[1]
        if back or newer_first:  # "upgrading to B from A": the first named is the new, bad one
            roles[i] = ("bad", "to/from")
            roles[i + 1] = ("good", "to/from")
        else:
            roles[i] = ("good", "between/from")
            roles[i + 1] = ("bad", "between/to")


#: "bisected between", "bisect this between" right before a pair's first version
_BISECT_BETWEEN_RE = re.compile(
    r"\bbisect\w{0,4}(?:\s{1,3}\w{1,12}){0,2}?\s{1,3}between\s{1,3}(?:v|linux[- ])?$", re.I
)


#: a move made as a remedy, or that changed nothing: "upgraded ... hoping it would alleviate the
#: throughput drops, but it did not", "to see if it helps", "the slowdown is still there"
_REMEDY_RE = re.compile(
    r"""\bhop(?:e|ed|ing)\b|\bin\s{1,3}the\s{1,3}hope\b|\bto\s{1,3}see\s{1,3}(?:if|whether)\b
      |\b(?:did(?:n't|\s{1,3}not)|does(?:n't|\s{1,3}not))\s{1,3}(?:help|change|fix|alleviate|improve|solve)\b
      |\bbut\s{1,3}it\s{1,3}did\s{1,3}not\b|\bno\s{1,3}(?:change|difference|improvement)\b
      |\bsame\s{1,3}(?:results?|behaviou?r|numbers|problem|issue)\b
      |\bstill\s{1,3}(?:there|present|happens|happening|slow|the\s{1,3}same|see)\b""",
    re.IGNORECASE | re.VERBOSE,
)


def _sentence_around(text: str, a: int, b: int) -> str:
    """The sentence holding ``text[a:b]``: back to the last full stop (or blank line) before
    ``a``, on to the next after ``b``."""
    lo = max(text.rfind(". ", 0, a), text.rfind(".\n", 0, a), text.rfind("\n\n", 0, a))
    ends = [e for e in (text.find(". ", b), text.find(".\n", b), text.find("\n\n", b)) if e != -1]
    return text[lo + 1 if lo != -1 else 0 : min(ends) + 1 if ends else len(text)]


def _than_roles(text: str, found: list, roles: list, i: int) -> None:
    """ "slower in A than in B": A bad, B good; "faster on A than on B": A good, B bad (the
    comparative in A's clause before it, or between A and "than")."""
    (a0, a1, _, _), (b0, _, _, _) = found[i], found[i + 1]
    gap = _THAN_GAP_RE.match(text[a1:b0]) if b0 - a1 <= 120 else None
    if gap is None:
        return
    said = _CLAUSE_HEAD_RE.search(text[max(0, a0 - 80) : a0]).group(0) + " " + gap.group("between")
    if _PATCHED_RE.search(said):
        return  # "With the attached patch, I see significantly better performance in 5.10 than 4.15"
    worse, better = _WORSE_RE.search(said), _BETTER_RE.search(said)
    if bool(worse) == bool(better):
        return  # no comparative, or both ("faster writes but higher latency")
    first, second = ("bad", "good") if worse else ("good", "bad")
    cue = (worse or better).group(0) + " ... than"
    if roles[i][0] is None:
        roles[i] = (first, cue)
    if roles[i + 1][0] is None:
        roles[i + 1] = (second, cue)


def _revert_role(text: str, raw: str) -> str | None:
    """ "6.8-rc7 + revert" is good when the text says the revert helps."""
    if kv.qualifier(raw) == "+revert" and _REVERT_HELPS_RE.search(text):
        return "good"
    return None


def _versions_and_roles(text: str) -> list[tuple[int, int, str, str, str | None]]:
    """(start, end, raw, version, role) of every version occurrence in ``text``."""
    if not isinstance(text, str) or not text:
        return []
    found = kv.find_versions(text)
    if not found:
        return []
    roles: list[tuple[str | None, str]] = [(None, "")] * len(found)
    try:
        doc = reading.parse(
            text,
            "kernels",
            near=[a for a, _, _, _ in found],
            also_near=[b - 1 for _, b, _, _ in found],
            reach=READ_REACH,
        )
        cues = reading.cues(doc)
        prev_end = 0
        parsed_chars = len(reading.doc_text(doc))
        for i, (a, b, _, _) in enumerate(found):
            if b <= parsed_chars:
                roles[i] = _role_from_cues(text, doc, cues, a, b, prev_end)
            prev_end = b
    except cue_files.CueFileError:
        raise
    except Exception as exc:  # the cue pipeline must not lose the versions
        log.info("kernel role cues failed, roles left empty: %s", exc)
    _pair_roles(text, found, roles)
    for i in range(1, len(found)):
        if roles[i][0] is None and roles[i - 1][0] is not None:
            gap = text[found[i - 1][1] : found[i][0]]
            if len(gap) <= 12 and _LIST_GAP_RE.fullmatch(gap) and not kv.TO_GAP_RE.search(gap):
                roles[i] = (roles[i - 1][0], roles[i - 1][1] + " (list)")
    return [
        (a, b, raw, norm, _revert_role(text, raw) or role)
        for (a, b, raw, norm), (role, _) in zip(found, roles)
    ]


def _mention(text: str, a: int, b: int, raw: str, norm: str, role: str | None) -> KernelMention:
    line_a, line_b = line_of(text, a), line_of(text, max(a, b - 1))
    text_of_line = line_text(text, line_a) if line_a == line_b else raw
    return KernelMention(
        raw=raw,
        version=norm,
        sort_key=kv.sort_key(norm),
        role=role,
        evidence=Evidence(line_start=line_a, line_end=line_b, text=text_of_line[:500]),
    )


def find_kernel_mentions(text: str) -> list[KernelMention]:
    """Every kernel version occurrence in ``text`` with its role (or None)."""
    return [_mention(text, a, b, raw, norm, role) for a, b, raw, norm, role in _versions_and_roles(text)]


def find_kernels(text: str) -> list[KernelMention]:
    """Distinct kernel versions of ``text`` (a version written with ``+ revert``
    is kept apart from the plain one), first decided role, first evidence.
    Never raises."""
    try:
        out: dict[tuple[str, str | None], KernelMention] = {}
        for a, b, raw, norm, role in _versions_and_roles(text):
            key = (norm, "+revert" if kv.qualifier(raw) == "+revert" else None)
            if key not in out:
                out[key] = _mention(text, a, b, raw, norm, role)  # a repeat's line is never read
            elif out[key].role is None and role is not None:
                out[key].role = role
    except cue_files.CueFileError:
        raise  # a broken rule file is our bug, not bad input
    except Exception as exc:  # never let one message stop a run
        log.warning("find_kernels failed: %s", exc)
        return []
    # a bare number a change statement gives as a kernel ("from ~15 seconds w/ 5.9 to ... in 5.10")
    for k in find_measurements(text)[1]:
        out.setdefault((k.version, None), k)
    return list(out.values())
