"""Where a thread stands: reported, bisected, fix proposed, fixed, reverted, cannot reproduce."""

from __future__ import annotations

import re

from lkmlkb.model import Claim, CommitCitation
from lkmlkb.threads.segments import quote_depth

#: words saying a fix went in
LANDED_WORDS = ("merged", "applied to", "queued", "fixed by", "is fixed", "ended up in", "landed in")
#: a maintainer taking a patch, in a reply of its own, at the start of a line (not a diff's context
#: line): "Applied, thanks!" (b4's thank-you opens so), "Applied to for-6.8/block", "Queued for
#: 6.9", "Thanks, applied"; not a tester's "Applied and trying", a wrapped line of prose ("applied
#: at full swing?"), the robot's "If your patch is applied to the wrong git tree", nor "Can this
#: be picked up?" or "queued up a revert" (a reply's "queued/picked ... up" as often takes
#: nothing)
PATCH_TAKEN = re.compile(r"^(?:Applied|Queued)(?:[,.!]|[ \t]{1,3}(?:to|into|for|in)\b|[ \t]*$)"
                         r"|^(?i:thanks,?[ \t]{1,3}(?:applied|queued))\b", re.M)


def derive_status(commits: list[CommitCitation], claims: list[Claim], texts: list[str],
                  restored: bool | None = None, patch_fix: bool = False) -> str:
    """Where a thread stands.  ``patch_fix``: the thread is a patch whose own message says it
    fixes the regression (the patch is the fix proposed; ``texts[1:]``, the replies, say
    whether it was applied)."""
    kinds = {c.kind for c in claims}
    roles = {c.role for c in commits}
    low = "\n".join(texts).lower()
    if "cannot-reproduce" in kinds and "regression" not in kinds:
        return "cannot reproduce"
    if "revert" in roles and ("reverted" in low or "revert" in low):
        return "reverted"
    if "fix" in roles and restored is not False and any(w in low for w in LANDED_WORDS):
        return "fixed"
    if "fix" in roles:
        return "fix proposed"
    if patch_fix:
        replies = "\n".join(line for t in texts[1:] for line in t.split("\n") if not quote_depth(line)[0])
        return "fixed" if restored is not False and PATCH_TAKEN.search(replies) else "fix proposed"
    if "culprit" in roles:
        return "bisected"
    if "regression" in kinds:
        return "reported"
    return "no conclusion"
