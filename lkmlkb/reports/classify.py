"""What kind of thread it is: a patch or a series, a kernel test robot's report of a failure, a
patch that fixes a regression, a slowdown traced to a commit; and what its subject says.

The report builder (:mod:`lkmlkb.reports.build`) decides from these whether
the thread reports a performance regression.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract.claims import find_claims
from lkmlkb.extract.kernels import find_kernels
from lkmlkb.extract.lines import line_text
from lkmlkb.model import Claim, CommitCitation, Evidence, KernelMention, Message

log = logging.getLogger(__name__)

#: a patch saying what it does to a regression ("Fix performance regression", "The two patches fix
#: one performance regression", "Revert ...", "restore")
FIX_WORD = re.compile(r"\b(?:fix(?:es|ed|ing)?|revert(?:s|ed|ing)?|restor(?:e|es|ed|ing))\b", re.I)
FIXES_TRAILER = re.compile(r"^Fixes:[ \t]{0,4}[0-9a-f]{7,40}\b", re.M)
#: a patch or a series by its subject ("[PATCH v2 0/7]", "[RFT RFC PATCH 0/8]"; not a bare "[RFC]":
#: a question or a report)
PATCH_WORD = re.compile(r"\[[^\]]{0,80}\bPATCH", re.I)


PATCH_SUBJECT = re.compile(r"^\s{0,5}(?:\w{1,6}\s{0,2}[:：]\s{0,3}){0,3}\[[^\]]{0,80}\b(?:PATCH|PATCHSET|PATCHv\d{1,3}|RFC|PULL|TOPIC)\b", re.I)
#: the kernel test robot's subject, "[tree:branch] [subsystem]  <commit>: <what it found>": a
#: metric's change ("fio.write_iops -72.9% regression") or a failure ("ltp.statx06.fail",
#: "Assertion_failed", "BUG:kernel_NULL_pointer_dereference")
ROBOT_SUBJECT = re.compile(
    r"^(?:(?:Re|RE|Fwd|FW|AW)\s{0,2}:\s{0,3}){0,4}(?:\[[^\]\n]{1,80}\]\s{0,3}){1,4}[0-9a-f]{10,12}:\s{1,4}(?P<found>\S[^\n]{0,300})$")
DIFF_IN_BODY = re.compile(
    r"""^(?:diff[ ]--git[ ]a/ | ---[ ]a/\S | \+\+\+[ ]b/\S          # a diff
         | [ ]\d{1,5}[ ]files?[ ]changed,[ ]\d{1,7}[ ]insertion      # a cover letter's diffstat
         | The[ ]following[ ]changes[ ]since[ ]commit)                # a pull request
    """, re.M | re.X)


PERF_WORD = re.compile(r"perf|regress|iops|throughput|bandwidth|latenc|slow|fast|speed|\d%|\bbw\b|\bMB/s", re.I)
#: a regression in words ("regression", "slowdown", "degraded", "drop")
SLOWDOWN = re.compile(r"regress|slow|degrad|\bdrops?\b", re.I)
#: a measure of speed named in words (not "regression" itself: a crash is a regression too)
PERF_NAMED = re.compile(r"\bperformance\b|\biops\b|throughput|bandwidth|latenc"
                        r"|\bslow(?:s|ed|ing|er|est|ly|ness|downs?)?\b|(?<!-)\bspeed(?:s|ed)?\b", re.I)


#: how many lines apart a slowdown and the commit it is traced to may be said
TRACED_WITHIN_LINES = 3


def traced_slowdown(root: Message | None, claims: list[Claim], commits: list[CommitCitation],
                    messages: list[Message] = ()) -> bool:
    """Someone traced a performance regression to a commit: a regression claim naming a
    measure of speed ("performance regression", "the slowdown"; on its line or at the end of
    the line before: "a performance\nregression") within a few lines of a culprit
    a bisection or prose named (not a Fixes: tag), in the same message and not quoted, or
    the thread's subject saying so of a culprit its first message names.  ``commits``:
    every message's own citations (merged ones keep one message's evidence)."""
    culprits = [c.evidence for c in commits
                if c.role == "culprit" and c.form != "fixes" and c.evidence and not c.evidence.quoted]
    if not culprits:
        return False
    subject = root.subject if root is not None else ""
    if subject and PERF_NAMED.search(subject) and SLOWDOWN.search(subject) \
            and any(e.message_id == root.message_id for e in culprits):
        return True
    bodies = {m.message_id: m.body for m in messages}
    for c in claims:
        e = c.evidence
        if c.kind != "regression" or e is None or e.quoted:
            continue
        if not any(u.message_id == e.message_id and abs(u.line_start - e.line_start) <= TRACED_WITHIN_LINES
                   for u in culprits):
            continue
        if PERF_NAMED.search(e.text) or PERF_NAMED.search(_line_end_before(bodies, e)):
            return True
    return False


#: how much of the line before a claim's line may hold the words its cue ends ("a performance\nregression")
WRAPPED_WORDS_CHARS = 40


def _line_end_before(bodies: dict[str, str], e) -> str:
    """The end of the body line before evidence ``e``'s first line ("" if none)."""
    return line_text(bodies.get(e.message_id, ""), e.line_start - 1)[-WRAPPED_WORDS_CHARS:]


def is_patch_thread(root: Message | None) -> bool:
    """A thread that starts with a patch, a series cover letter, a pull request or a topic proposal."""
    if root is None:
        return False
    if PATCH_SUBJECT.match(root.subject or ""):
        return True
    return bool(DIFF_IN_BODY.search(root.body[:200_000]))


def patch_fix_of(root: Message | None, claims: list[Claim], patch_thread: bool) -> bool:
    """A patch thread whose first message itself says there is a regression of speed (in its
    subject or its own text: "fix performance regression with shared tags", "We observe 10-25%
    regression in random 4k write throughput"): the patch is the fix.  A regression only replies
    report (the test robot's "-99.7% regression ... due to commit ... [PATCH 07/16]") is the
    patch's own."""
    if not patch_thread or root is None:
        return False
    if not PATCH_WORD.search(root.subject or ""):
        return False  # a report holding a diff tried ("I tried checking if the request queue is busy
                      # [3]", corpus/004) asks about it; a patch proposes
    # ... to fix it: its subject or its claim says so, or it names what it fixes (a series
    # measuring its own "18% drop in IO BW" fixes nothing)
    fixes = FIX_WORD.search(root.subject or "") or FIXES_TRAILER.search(root.body[:200_000])
    # of speed: "tested with LTP for regressions" in a cover letter (linux-ext4) says none
    return any(c.kind == "regression" and c.evidence is not None and c.evidence.message_id == root.message_id
               and not c.evidence.quoted and (c.stated_pct is not None or PERF_NAMED.search(c.evidence.text or ""))
               and (fixes or FIX_WORD.search(c.evidence.text or "")) for c in claims)


def robot_failure(root: Message | None) -> bool:
    """A kernel test robot report of a failure: its subject names what failed, not a metric's change."""
    m = ROBOT_SUBJECT.match(root.subject or "") if root is not None else None
    # what speaks of speed is none: the robot's "-72.9% regression", a person's subject of that
    # shape ("[REGRESSION] 0123456789: 30% slowdown in randwrite")
    return m is not None and not PERF_WORD.search(m.group("found"))


def subject_kernel_roles(root: Message | None, kernels: list[KernelMention]) -> None:
    """The subject says which kernel regressed ("regression on linux-next (6.19.0-rc1-...) vs RHEL9 5.14").

    Fills roles the body left open; never overrides one the body gave.
    """
    if root is None or not root.subject or not kernels:
        return
    try:
        said = {k.version: k.role for k in find_kernels(root.subject) if k.role}
    except Exception:
        return
    for k in kernels:
        if k.role is None and said.get(k.version):
            k.role = said[k.version]


def subject_claims(root: Message | None) -> list[Claim]:
    """What the thread's subject claims ("... performance drop", "fio.write_iops -72.9% regression")."""
    if root is None or not root.subject:
        return []
    if not PERF_WORD.search(root.subject):
        return []  # "drop bio mode ..." names no measure: no claim about performance
    try:
        claims = find_claims(root.subject)
    except Exception:
        log.info("claims on subject failed: %r", root.subject[:80], exc_info=True)
        return []
    for c in claims:
        c.evidence = Evidence(root.message_id, 0, 0, "Subject: " + root.subject)
        c.cue = c.cue or "subject"
    return claims
