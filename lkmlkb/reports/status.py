"""Where a regression stands, read over the thread's life: named rules, each saying why.

In order, the first that applies decides:

* ``cannot reproduce``: the thread says the slowdown could not be reproduced and nobody
  confirmed it;
* ``not a regression``: a developer answers the kernel test robot that the cost it measured
  is expected, intended or acceptable (the report stays listed: the robot measured it);
* ``reverted``: the culprit was reverted for good: a revert a maintainer applied, or mail
  saying it "has been reverted" (not a revert tried to test: "if I revert it, the speed is
  back");
* ``fixed``: a fix was taken: a maintainer applied or queued the fix patch the thread is or
  carries ("Applied, thanks!", "Queued for 6.9"), or mail says the fix landed ("fixed by
  <commit>", "merged", "ended up in") and the numbers, where measured, came back, or the
  regression tracker was told it is resolved ("#regzbot resolve: ..."), or the bug tracker's
  last resolution says so ("Resolution|--- |CODE_FIX"; "UNREPRODUCIBLE": cannot reproduce);
* ``fix proposed``: a fix or a revert was posted (the thread is the fix patch, a reply after
  the report carries a patch to try or offers one in words, or a fix commit is named);
* ``bisected``: a culprit is named;
* ``reported``: only the slowdown is.
"""

from __future__ import annotations

import re

from lkmlkb.model import Claim, CommitCitation, Message, Reason
from lkmlkb.reports.classify import (
    PATCH_SUBJECT,
    PATCH_TAKEN,
    PATCH_WORD,
    REVERT_SUBJECT,
    ROBOT_TEAM,
    THIS_REVERTS,
    Gated,
    is_patch_thread,
    is_robot_report,
    lowered,
    own_lines,
)
from lkmlkb.reports.labels import commit_named
from lkmlkb.threads.people import same_sender
from lkmlkb.threads.threader import normalize_subject, own_subject

#: a developer's verdict on a cost the kernel test robot measured: it is what the change meant to
#: do, or small enough to keep ("would indeed be the intent of this change", linux-block 2025-08;
#: "So this is expected, -4% is within acceptable range", linux-btrfs; "I don't think there's
#: anything to fix in the kernel", linux-ext4 2023-07; "#regzbot invalid: kinda expected"); not
#: a cost expected to go ("expected to be fixed"), a question, or "not expected"
EXPECTED_COST = Gated(
    re.compile(
        r"""\b(?:this|that|it|which)(?:['’]s|[ \t]{1,3}is|[ \t]{1,3}was|[ \t]{1,3}seems)[ \t]{1,3}
            (?:(?:kinda|somewhat|kind[ \t]{1,3}of|quite|entirely|totally|fully|actually|indeed|to[ \t]{1,3}be)[ \t]{1,3})?
            (?:expected|intended|by[ \t]{1,3}design)\b(?![ \t]{0,3}(?:to\b|\?))
          | \bwithin[ \t]{1,3}(?:the[ \t]{1,3}|an[ \t]{1,3})?acceptable[ \t]{1,3}range\b
          | \bthe[ \t\n]{1,3}intent[ \t\n]{1,3}of[ \t\n]{1,3}(?:this|the)[ \t\n]{1,3}(?:change|patch|commit)\b
          | \b(?:nothing|don['’]t[ \t]{1,3}think[ \t]{1,3}there(?:['’]s|[ \t]{1,3}is)[ \t]{1,3}anything)
            [ \t\n]{1,3}to[ \t\n]{1,3}fix\b
          | ^[ \t]{0,3}\#regzbot[ \t]{1,3}invalid:[^\n]{0,60}\bexpected\b""",
        re.I | re.X | re.M,
    ),
    ("expected", "intended", "design", "acceptable", "intent", "fix"),
)


def expected_cost(texts: list[tuple[Message, str]]) -> tuple[Message, str, int] | None:
    """The reply calling the cost a kernel test robot report measured expected (EXPECTED_COST), by
    someone outside the robot's team, in its own lines (``texts``: each message of the thread
    with them): (message, text, where)."""
    if not texts or not is_robot_report(texts[0][0]):
        return None
    for m, text in texts[1:]:
        if ROBOT_TEAM.search(m.from_addr or ""):
            continue
        hit = EXPECTED_COST.search(text)
        if hit:
            return m, text, hit.start()
    return None


#: words saying a fix went in
LANDED_WORDS = ("merged", "applied to", "queued", "fixed by", "is fixed", "ended up in", "landed in")
#: a revert that stays: "has been reverted", "was reverted upstream", "the revert is queued"; not
#: "if I revert it" or "reverting it restores the speed" (a revert tried to find the culprit)
REVERTED = Gated(
    re.compile(
        r"""\b(?:has|have|had|was|were|got|been|is[ \t]{1,3}now|now)[ \t]{1,3}(?:been[ \t]{1,3})?reverted\b
      | \brevert(?:[ \t]{1,3}(?:patch|commit))?[ \t]{1,3}(?:is|was|has[ \t]{1,3}been)[ \t]{1,3}(?:queued|applied|merged|in)\b
      | \b(?:I've|I[ \t]have|we've|we[ \t]have)[ \t]{1,3}(?:queued|applied|merged)[ \t]{1,3}(?:the[ \t]{1,3})?revert""",
        re.I | re.X,
    ),
    ("revert",),
    lines=True,
)
#: the tree's maintainer queueing a revert, in words a line may wrap: "I queued up a revert", "I'm
#: going to queue\nup a revert for -rc6 just in case" (Jens Axboe, linux-block); not a question
#: ("Should I queue a revert?")
REVERT_QUEUED = Gated(
    re.compile(
        r"""\b(?:I|we)(?:'ve|\s{1,3}have|'ll|\s{1,3}will|'m\s{1,3}going\s{1,3}to|\s{1,3}am\s{1,3}going\s{1,3}to)?\s{1,3}
        (?:queued|queue)(?:\s{1,3}up)?\s{1,3}(?:a|the)\s{1,3}revert\b(?![^\n?]{0,60}\?)""",
        re.I | re.X,
    ),
    ("revert",),
)
#: a fix offered or tested in words, its patch a link or a branch: "Can you please test the following
#: branch?", "I have a fix", "I think I have found the fix for it", the kernel test robot's "we
#: applied the patch ... and found the performance restored", "The patch seems to fix the issue"
FIX_OFFERED = Gated(
    re.compile(
        r"""\b(?:test|try)[ \t]{1,3}(?:the[ \t]{1,3})?(?:following|attached|below)[ \t]{1,3}(?:patch|branch|fix)
          | \bI[ \t]{1,3}(?:have|'ve[ \t]{1,3}got|think[ \t]{1,3}I[ \t]{1,3}(?:have[ \t]{1,3})?found)[ \t]{1,3}(?:a|the)[ \t]{1,3}fix\b
          | \bperformance[ \t]{1,3}(?:is[ \t]{1,3}|was[ \t]{1,3})?restored\b
          | \bpatch[ \t]{1,3}(?:seems[ \t]{1,3}to[ \t]{1,3})?fix(?:es|ed)?[ \t]{1,3}(?:the|this|my)[ \t]{1,3}(?:issue|problem|regression)\b""",
        re.I | re.X,
    ),
    ("following", "attached", "below", "fix", "restored"),
    lines=True,
)
#: the regression tracker's commands a person types into the thread: "#regzbot resolve: various
#: changes merged for 6.6 improve things" (resolved), "#regzbot fix: <commit or patch>" (a fix known)
REGZBOT_RESOLVED = re.compile(r"^[ \t]{0,3}#regzbot[ \t]{1,3}resolve[ \t]{0,3}:", re.M | re.I)
REGZBOT_FIX = re.compile(r"^[ \t]{0,3}#regzbot[ \t]{1,3}fix[ \t]{0,3}:", re.M | re.I)
#: a reply saying a patch tried did not help: "it doesn't help at all", "no fio write bandwidth
#: improvement", "made no difference"
NOT_HELPED = Gated(
    re.compile(
        r"\b(?:does|did|do)(?:n't|[ \t]{1,3}not)[ \t]{1,3}(?:seem[ \t]{1,3}to[ \t]{1,3})?help\b"
        r"|\bno[ \t]{1,3}(?:[\w-]{1,20}[ \t]{1,3}){0,3}improvement\b|\bmade[ \t]{1,3}no[ \t]{1,3}difference\b",
        re.I,
    ),
    ("help", "improvement", "difference"),
    lines=True,
)
#: a patch in the mail's own lines: a diff, or git format-patch's separator and diffstat
PATCH_IN_TEXT = Gated(
    re.compile(r"^diff --git a/|^--- a/\S.*\n\+\+\+ b/|^ \d{1,5} files? changed, ", re.M),
    ("diff --git a/", "--- a/", " changed, "),
    exact=True,
)


def fixes_its_regression(root: Message | None, messages: list[Message], reasons: list[Reason]) -> bool:
    """Whether the thread is itself the fix of the regression it reports: a fix's log says so
    (the rule ``fix-of-slowdown``), or the thread is a patch whose own author reports the
    slowdown in its mail ("[PATCH 0/1] block, bfq: eliminate latency regression with fast
    drives", a revert in a series: "were seeing a 2x-3x regression"); a maintainer taking it
    fixes the regression."""
    if any(r.rule == "fix-of-slowdown" for r in reasons):
        return True
    # a patch by its subject: not a report put as a question ("[RFC] Slow down of LTP tests ...")
    if root is None or not reasons or not PATCH_WORD.search(own_subject(root.subject)):
        return False
    by = next((m for m in messages if m.message_id == reasons[0].message_id), None)
    return by is not None and same_sender(by, root)


def _first_possible_fix(
    messages: list[Message], commits: list[CommitCitation], reported_in: str | None, claims: list[Claim] = ()
) -> int:
    """The index of the first message whose patch can be a fix: any reply, but where the culprit is
    one of the thread's own patches (the kernel test robot measuring a posted series: "commit:
    <sha> ("[PATCH v8 08/14] fs: add __remove_file_privs() ...")"), only those after the report:
    the series posted before it is what regressed.  Where the report is a reply in a series' own
    thread, the series' parts its author posted before the report are no fix of it either (a
    reply to "[PATCH 5/6] block: use iomap for writes to block devices" finding writes at 130
    MB/s, not 330: the six patches regressed, none of them fixes)."""
    ids = [m.message_id for m in messages]
    if reported_in not in ids:
        return 1
    reported_at = ids.index(reported_in)
    posted = {normalize_subject(m.subject or "").lower() for m in messages[:reported_at]}
    own = any(
        c.role == "culprit" and c.subject and normalize_subject(c.subject).lower() in posted for c in commits
    )
    if own:
        return reported_at + 1
    root, after = messages[0], 1
    # a series whose cover tells a regression it answers ("an around 20% regression on random writes
    # ... Enter this patchset") is a fix: its parts are the fix proposed
    answers = any(
        c.kind == "regression" and c.evidence.message_id == root.message_id and not c.evidence.quoted
        for c in claims
    )
    while (
        not answers
        and after < reported_at
        and PATCH_SUBJECT.match(messages[after].subject or "")
        and same_sender(messages[after], root)
    ):
        after += 1
    return after


#: a bug's resolution as bugzilla's mail of a changed field prints it ("         Resolution|---
#: |CODE_FIX"; reopened: "Resolution|CODE_FIX  |---")
BUG_RESOLUTION = re.compile(
    r"^[ \t]{0,20}Resolution\|[^|\n]{0,40}\|[ \t]{0,3}(?P<added>[A-Z_-]{2,30}|---)[ \t]*$", re.M
)
#: resolutions saying the bug was fixed (bugzilla.kernel.org's, the samba project's) or not seen
FIXED_RESOLUTIONS = frozenset({"CODE_FIX", "PATCH_ALREADY_AVAILABLE", "FIXED"})
UNREPRODUCED_RESOLUTIONS = frozenset({"UNREPRODUCIBLE", "WORKSFORME"})


def bug_resolution(texts: list[tuple[Message, str]]) -> tuple[str, Reason] | None:
    """The status a bug tracker's last resolution of the thread says: fixed ("CODE_FIX") or
    cannot reproduce ("UNREPRODUCIBLE"); None where the last one says neither (a bug reopened,
    closed as "INVALID" or "OBSOLETE": the mail tells the rest)."""
    last = None
    for m, text in texts:
        if "Resolution|" in text:
            for hit in BUG_RESOLUTION.finditer(text):
                last = (m, text, hit)
    if last is None:
        return None
    m, text, hit = last
    added = hit.group("added")
    if added in FIXED_RESOLUTIONS:
        return "fixed", _at("status-fixed", "fixed", m, text, hit.start("added"))
    if added in UNREPRODUCED_RESOLUTIONS:
        return "cannot reproduce", _at(
            "status-cannot-reproduce", "cannot reproduce", m, text, hit.start("added")
        )
    return None


#: a word that may be a commit's id
_HEX_WORD = re.compile(r"\b[0-9a-f]{7,40}\b")


def _reverts_another(text: str, pos: int, commits: list[CommitCitation]) -> bool:
    """Whether the revert said at ``pos`` is of another commit than the culprit: its paragraph
    names, before the words, commits the thread cites and none of them a culprit ("The commit
    65f746e8285f (...) is a temporary workaround. We have reverted it recently", of the good commit
    of a report blaming c062db039f40).  Ids after the words are the revert's own ("this commit
    was reverted in 231825b2e1ff"); a thread with no culprit keeps any revert said."""
    if not any(c.role == "culprit" for c in commits):
        return False
    start = text.rfind("\n\n", 0, pos)
    named = [c for w in _HEX_WORD.findall(text, max(0, start), pos) if (c := commit_named(w, commits))]
    return bool(named) and not any(c.role == "culprit" for c in named)


def _at(rule: str, verdict: str, m: Message, text: str, pos: int) -> Reason:
    lo = text.rfind("\n", 0, pos) + 1
    hi = text.find("\n", pos)
    return Reason(
        rule, verdict, m.message_id, text.count("\n", 0, pos), text[lo : hi if hi >= 0 else len(text)][:300]
    )


def derive_status(
    messages: list[Message],
    commits: list[CommitCitation],
    claims: list[Claim],
    restored: bool | None = None,
    fix_thread: bool = False,
    reported_in: str | None = None,
) -> tuple[str, Reason | None]:
    """The thread's status and the reason for it.  ``fix_thread``: the thread is itself a patch
    (or a revert) that fixes the regression; ``restored``: whether a measured fix brought the
    numbers back (None: not measured); ``reported_in``: the message that reports the regression
    (a patch posted before it, as the series the kernel test robot then measured, is what
    regressed, not a fix)."""
    kinds = {c.kind for c in claims}
    if "cannot-reproduce" in kinds and "regression" not in kinds:
        c = next(c for c in claims if c.kind == "cannot-reproduce")
        return "cannot reproduce", Reason(
            "status-cannot-reproduce",
            "cannot reproduce",
            c.evidence.message_id,
            c.evidence.line_start,
            c.evidence.text[:300],
        )
    root = messages[0] if messages else None
    texts = [(m, own_lines(m)) for m in messages]
    accepted = expected_cost(texts)
    if accepted is not None:
        return "not a regression", _at("status-not-a-regression", "not a regression", *accepted)
    revert_thread = root is not None and (
        REVERT_SUBJECT.match(root.subject or "") or THIS_REVERTS.search(root.body[:50_000])
    )
    for m, text in texts[1:] if revert_thread else ():
        taken = PATCH_TAKEN.search(text)
        if taken:
            return "reverted", _at("status-reverted", "reverted", m, text, taken.start())
    # a patch's own log telling its culprit's history ("The commit was reverted in the end for other
    # reasons", a series fixing what that commit left) reverts nothing; its replies may
    history = root is not None and not revert_thread and (fix_thread or is_patch_thread(root))
    for m, text in texts[1:] if history else texts:
        hit = REVERTED.search(text) or REVERT_QUEUED.search(text)
        if hit and not _reverts_another(text, hit.start(), commits):
            return "reverted", _at("status-reverted", "reverted", m, text, hit.start())
    for m, text in texts:
        said = REGZBOT_RESOLVED.search(text) if "#regzbot" in text else None
        if said:
            return "fixed", _at("status-fixed", "fixed", m, text, said.start())
    resolved = bug_resolution(texts)
    if resolved is not None:
        return resolved
    if fix_thread and restored is not False:
        for m, text in texts[1:]:
            taken = PATCH_TAKEN.search(text)
            if taken:
                return "fixed", _at("status-fixed", "fixed", m, text, taken.start())
    fixes = [c for c in commits if c.role == "fix"]
    if fixes and restored is not False:
        for m, text in texts:
            low = lowered(text)
            for word in LANDED_WORDS:
                pos = low.find(word)
                if pos >= 0:
                    return "fixed", _at("status-fixed", "fixed", m, text, pos)
    if fix_thread or revert_thread:
        return "fix proposed", Reason(
            "status-fix-proposed", "fix proposed", root.message_id, -1, "Subject: " + (root.subject or "")
        )
    if fixes:
        e = fixes[0].evidence
        return "fix proposed", Reason(
            "status-fix-proposed", "fix proposed", e.message_id, e.line_start, e.text[:300]
        )
    after = _first_possible_fix(messages, commits, reported_in, claims)
    ids = [m.message_id for m in messages]
    reported_at = ids.index(reported_in) if reported_in in ids else 0
    # the last reply saying a patch tried did not help, read once for the patches before it
    not_helped = next((j for j in range(len(texts) - 1, after, -1) if NOT_HELPED.search(texts[j][1])), -1)
    for i, (m, text) in enumerate(texts[after:], after):
        hit = PATCH_IN_TEXT.search(text)
        if hit and i < not_helped:
            continue  # a patch to try that a later reply says did not help ("it doesn't help at all")
        if hit:
            # the patch a reply after a report carries, taken by its maintainer in a later reply;
            # not a series' own patches (a series taken whole is fixed only as the fix it is)
            reply_fix = i > reported_at and not PATCH_WORD.search(own_subject(messages[0].subject))
            taken_later = texts[i + 1 :] if reply_fix and restored is not False else []
            for later, later_text in taken_later:
                taken = PATCH_TAKEN.search(later_text)
                if taken:
                    return "fixed", _at("status-fixed", "fixed", later, later_text, taken.start())
            return "fix proposed", _at("status-fix-proposed", "fix proposed", m, text, hit.start())
    for m, text in texts[after:]:
        offered = FIX_OFFERED.search(text) or (REGZBOT_FIX.search(text) if "#regzbot" in text else None)
        if offered:
            return "fix proposed", _at("status-fix-proposed", "fix proposed", m, text, offered.start())
    culprit = next((c for c in commits if c.role == "culprit"), None)
    if culprit is not None:
        e = culprit.evidence
        return "bisected", Reason("status-bisected", "bisected", e.message_id, e.line_start, e.text[:300])
    if "regression" in kinds:
        return "reported", None
    return "no conclusion", None
