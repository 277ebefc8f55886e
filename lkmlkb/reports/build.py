"""One regression report per thread, built from the findings of its messages.

Later messages refine the report: a bisection in a reply names the culprit, a
"fixed by" names the fix, a tested patch adds results without changing the
claim.  The good and bad kernels come from the kernel mentions' roles and the
claims; results are labelled baseline / regressed / fixed from them; the
magnitude is taken as stated and also computed from the labelled headline
results, with a flag when the two disagree.
"""

from __future__ import annotations

import bisect
import json
import logging
import re

from lkmlkb.extract.claims import find_claims, stated_regression_pct
from lkmlkb.extract.kernel_versions import compare, normalize_version, qualifier, sort_key
from lkmlkb.extract.kernels import find_kernels
from lkmlkb.extract.metric_units import lower_is_better
from lkmlkb.extract.nlp import line_text
from lkmlkb.model import Claim, CommitCitation, Evidence, Findings, KernelMention, Message, Report, Result
from lkmlkb.threads.segments import quote_depth

log = logging.getLogger(__name__)

ROLE_RANK = {"culprit": 0, "fix": 1, "revert": 2, "tested": 3, "base": 4, "mentioned": 5}
HEADLINE_METRICS = ("bw", "throughput", "iops", "util", "lat", "clat")
#: stated and computed magnitudes that differ by more than this many points disagree
DISAGREE_POINTS = 5.0


def _kernel_base(version: str | None) -> str:
    if not version:
        return ""
    return normalize_version(version) or version


def merge_commits(findings: list[Findings]) -> list[CommitCitation]:
    """One citation per commit (SHA prefixes of different lengths joined), strongest role.

    A citation joins the earliest-kept one whose SHA is a prefix of its SHA or
    has it as a prefix.  Those are found through the kept SHAs' prefixes (a
    dict) and their sorted order (the ones its SHA begins), not by comparing
    with every kept SHA: a thread citing thousands of commits (a stable
    review series, a flood) cost time in the square of their number.
    """
    by_sha: dict[str, tuple[int, CommitCitation]] = {}  # kept SHA -> (when kept, citation)
    ordered: list[str] = []  # the kept SHAs, sorted
    kept = 0
    for f in findings:
        for c in f.commits:
            if c.form == "link":
                continue
            sha = c.sha
            found = [k for k in (sha[:n] for n in range(len(sha) + 1)) if k in by_sha]  # prefixes of sha
            i = bisect.bisect_left(ordered, sha)
            while i < len(ordered) and ordered[i].startswith(sha):  # those sha is a prefix of
                found.append(ordered[i])
                i += 1
            kept += 1
            if not found:
                by_sha[sha] = (kept, c)
                bisect.insort(ordered, sha)
                continue
            key = min(found, key=lambda k: by_sha[k][0])
            cur = by_sha.pop(key)[1]
            del ordered[bisect.bisect_left(ordered, key)]
            keep = c if ROLE_RANK.get(c.role, 9) < ROLE_RANK.get(cur.role, 9) else cur
            keep.subject = keep.subject or cur.subject or c.subject
            keep.sha = max(cur.sha, c.sha, key=len)  # the longest SHA any message wrote
            by_sha[keep.sha] = (kept, keep)
            bisect.insort(ordered, keep.sha)
    return sorted((c for _, c in by_sha.values()), key=lambda c: (ROLE_RANK.get(c.role, 9), c.sha))


def merge_kernels(findings: list[Findings]) -> list[KernelMention]:
    seen: dict[str, KernelMention] = {}
    for f in findings:
        for k in f.kernels:
            cur = seen.get(k.version)
            if cur is None:
                seen[k.version] = k
            elif cur.role is None and k.role:
                cur.role = k.role
    return sorted(seen.values(), key=lambda k: sort_key(k.version))


def _dedupe_jobs(findings: list[Findings]):
    out, seen = [], set()
    for f in findings:
        for j in f.fio_jobs:
            key = (j.form, json.dumps(j.options, sort_keys=True))
            if key not in seen:
                seen.add(key)
                out.append(j)
    return out


def _dedupe_results(findings: list[Findings]) -> list[Result]:
    out, seen = [], set()
    for f in findings:
        for r in f.results:
            key = (r.kernel, r.config, r.metric, r.direction, round(r.value, 6), r.unit)
            if key not in seen:
                seen.add(key)
                out.append(r)
    return out


def _qual(raw: str | None) -> str:
    q = (qualifier(raw) or "") if raw else ""
    return "revert" if "revert" in q else ("patch" if q else "")


def kernel_roles(kernels: list[KernelMention]) -> dict[tuple[str, str], str]:
    """(version, qualifier) -> good | bad; "6.8-rc7" and "6.8-rc7+ Revert" are two keys."""
    roles: dict[tuple[str, str], str] = {}
    for k in kernels:
        if k.role in ("good", "bad"):
            roles.setdefault((k.version, _qual(k.raw)), k.role)
    return roles


def decide_kernels(kernels: list[KernelMention], claims: list[Claim]) -> tuple[str | None, str | None]:
    """The good and the bad kernel, where the thread says so (first said wins)."""
    good = next((k.raw if _qual(k.raw) else k.version for k in kernels if k.role == "good"), None)
    bad = next((k.version for k in kernels if k.role == "bad"), None)
    return good, bad


def other_of_two(kernels: list[KernelMention]) -> None:
    """Of two kernels a regression thread names, one said to be good (or bad), the other is the
    bad (or good) one when it is the later (earlier) release: "15 minutes on
    6.9.11-200.fc40.x86_64 as compared to around 1 second on 6.8.10-300.fc40.x86_64".  Fills
    the roles the text left open (so the results measured on it are labelled); a good kernel
    with a revert or a patch on top is another kernel than its release, and is left alone."""
    versions = list(dict.fromkeys(k.version for k in kernels))
    roles = {k.role for k in kernels if k.role}
    if len(versions) != 2 or len(roles) != 1 or not roles <= {"good", "bad"}:
        return
    role = roles.pop()
    known = {k.version for k in kernels if k.role}
    if len(known) != 1 or any(_qual(k.raw) for k in kernels):
        return
    (said,) = known
    (other,) = [v for v in versions if v != said]
    if sort_key(other) == sort_key(said):
        return  # one release written two ways: "6.11-rc1", "6.11.0-rc1"
    later = sort_key(other) > sort_key(said)
    if later != (role == "good"):
        return  # "a regression on 6.9 ... still there on 6.10-rc1": the later one is not the good one
    for k in kernels:
        if k.version == other:
            k.role = "bad" if role == "good" else "good"


def _result_key(r: Result) -> tuple[str, str]:
    version = _kernel_base(r.kernel)
    q = _qual(r.kernel) or _qual(f"{version}{r.config or ''}" if r.config and r.config.startswith("+") else None)
    if not q and r.config and "revert" in r.config.lower():
        q = "revert"
    return version, q


def patched_kernels(kernels: list[KernelMention], commits: list[CommitCitation]) -> set[str]:
    """Kernels a fix or tested commit was applied on ("applied c8ed1b359312 on 6.1.36")."""
    out = set()
    for c in commits:
        if c.role not in ("fix", "tested"):
            continue
        for k in kernels:
            line = k.evidence.text.lower()
            if "appl" in line and c.sha[:7] in line:
                out.add(k.version)
    return out


_SHA_CONFIG = re.compile(r"[0-9a-f]{7,40}")  # an LKP table column "8f764b91fdf29659", "574e7779cf583171acb5bf63650"
#: the state a commit's role says its measurements show
_COMMIT_ROLE_LABEL = {"base": "baseline", "culprit": "regressed", "fix": "fixed"}


def attribute_commit_results(results: list[Result], commits: list[CommitCitation]) -> None:
    """A number measured on a cited commit was measured on the kernel built from it.

    Kernel test robot tables head their columns with the base and the tested
    commit (``8f764b91fdf29659  574e7779cf583171acb5bf63650``): such a result
    has no release but the commit as its configuration.  Its kernel becomes
    that commit, and the commit's role says which side it is: the robot's
    base is the baseline, the commit under test (the culprit) the regressed
    state, a fix the fixed one.  Results of other configurations are left alone.
    """
    for r in results:
        if r.kernel or not r.config or not _SHA_CONFIG.fullmatch(r.config):
            continue
        c = next((c for c in commits if c.sha.startswith(r.config) or r.config.startswith(c.sha)), None)
        if c is None:
            continue
        r.kernel = r.config
        if not r.label:
            r.label = _COMMIT_ROLE_LABEL.get(c.role)
    # the other column of a row whose tested column regressed is the robot's base (a commit or a release)
    regressed_rows = {(r.evidence.message_id, r.evidence.line_start, r.metric) for r in results
                      if r.label == "regressed" and r.config and _SHA_CONFIG.fullmatch(r.config)}
    for r in results:
        if r.label is None and r.kernel and (r.evidence.message_id, r.evidence.line_start, r.metric) in regressed_rows:
            r.label = "baseline"


def label_pairs(results: list[Result], kernels: list[KernelMention]) -> None:
    """Before/after pairs ("old: 554 IOPS → new: 535 IOPS"): baseline and regressed, on the good and bad kernels."""
    good = next((k.version for k in kernels if k.role == "good"), None)
    bad = next((k.version for k in kernels if k.role == "bad"), None)
    for r in results:
        side = (r.config or "").split(" ", 1)[0]
        if r.kernel or side not in ("before", "after"):
            continue
        r.label = "baseline" if side == "before" else "regressed"
        r.kernel = good if side == "before" else bad


#: a result's heading naming the culprit's absence or presence ("Without this patch:", "With:", "Just
#: adding this patch on the previous:"; "with the commit reverted" is its absence)
_WITHOUT_CULPRIT = re.compile(r"(?:without|before)\b|with\b.{0,40}\brevert", re.IGNORECASE)
_WITH_CULPRIT = re.compile(r"(?:with|after|(?:just\s{1,3})?(?:adding|applying))\b", re.IGNORECASE)


def _culprit_side(heading: str) -> str | None:
    """"baseline" for a heading without the culprit, "regressed" for one with it, else None."""
    if _WITHOUT_CULPRIT.match(heading):
        return "baseline"
    return "regressed" if _WITH_CULPRIT.match(heading) else None


def label_with_without(results: list[Result], commits: list[CommitCitation], root: Message | None) -> None:
    """In a regression report whose culprit a bisection or the reporter names (not a patch
    thread's Fixes: tag), numbers headed "without" and "with" (the patch, the commit) are the
    baseline and the regressed state: the iSCSI rescan report's "Without this patch: 0:02.04",
    "Just adding this patch on the previous: 0:13.45".  Only where no result is labelled yet,
    no fix is cited, the subject is no patch's (there "this patch" is the mail's own) and both
    sides are measured, and only if the side with the culprit measured worse."""
    if any(r.label for r in results) or (root is not None and PATCH_SUBJECT.match(root.subject or "")) \
            or not any(c.role == "culprit" and c.form != "fixes" for c in commits) \
            or any(c.role == "fix" for c in commits):
        return
    sides = [_culprit_side((r.config or "").strip()) for r in results]
    if not {"baseline", "regressed"} <= set(sides):
        return
    for r, side in zip(results, sides):
        r.label = side  # none was labelled before
    pair = headline(results)
    change = computed_change(*pair) if pair else None
    if change is None or change <= 0:  # "with" was the better side: a fix tried, not the culprit
        for r in results:
            r.label = None


def label_results(results: list[Result], kernels: list[KernelMention], commits: list[CommitCitation]) -> None:
    """baseline / regressed / fixed, from the kernels' roles and qualifiers."""
    label_pairs(results, kernels)
    roles = kernel_roles(kernels)
    patched = patched_kernels(kernels, commits)
    has_fix = any(c.role == "fix" for c in commits)
    for r in results:
        if r.label or not r.kernel:
            continue
        version, q = _result_key(r)
        role = roles.get((version, q))
        if role is None and q == "revert":
            role = "good"  # a revert on top of a kernel is the thread's candidate baseline
        if version in patched and not q:
            r.label = "fixed" if has_fix else None
        elif q == "patch" and has_fix:
            r.label = "fixed"
        elif role == "good":
            r.label = "baseline"
        elif role == "bad":
            r.label = "regressed"
    if not any(r.label == "regressed" for r in results):
        _label_later_kernels(results, kernels)


def _label_later_kernels(results: list[Result], kernels: list[KernelMention]) -> None:
    """The regression entered between a good and a bad kernel: later kernels still have it.

    Seed 002: "happened sometime between 2.6.29 and 2.6.30 and stays the same
    since then" — the 2.6.32-rc5 numbers are the regressed ones.
    """
    goods = [k.version for k in kernels if k.role == "good" and not _qual(k.raw)]
    bads = [k.version for k in kernels if k.role == "bad" and not _qual(k.raw)]
    if not goods or not bads:
        return
    first_bad = min(bads, key=sort_key)
    for r in results:
        if r.label or not r.kernel or r.config:
            continue
        version, q = _result_key(r)
        if q:
            continue
        try:
            if compare(version, first_bad) >= 0:
                r.label = "regressed"
        except (ValueError, TypeError):
            continue


DIRECTIONS = {"read", "write", "randread", "randwrite", "trim", "randtrim", "rw", "randrw"}


def unlabel_unaffected(results: list[Result], claims: list[Claim]) -> None:
    """Results of a direction the thread says is not regressed are no baseline/regressed pair.

    "Almost there is no regression on sequential-read" (seed 000): the read
    figures are reported beside the write regression, not as part of it.
    """
    clear = {c.metric for c in claims if c.kind == "no-regression" and c.metric in DIRECTIONS}
    if not clear:
        return
    regressed = {c.metric for c in claims if c.kind == "regression" and c.metric in DIRECTIONS}
    for r in results:
        if r.direction in clear and r.direction not in regressed and r.label in ("baseline", "regressed"):
            r.label = None


def headline(results: list[Result]) -> tuple[Result, Result] | None:
    """The first metric with a baseline and a regressed value, in headline order."""
    by_metric: dict[tuple[str, str | None], dict[str, Result]] = {}
    for r in results:
        if r.label in ("baseline", "regressed"):
            by_metric.setdefault((r.metric, r.direction), {}).setdefault(r.label, r)
    order = sorted(by_metric, key=lambda md: HEADLINE_METRICS.index(md[0]) if md[0] in HEADLINE_METRICS else 99)
    for md in order:
        pair = by_metric[md]
        if "baseline" in pair and "regressed" in pair:
            return pair["baseline"], pair["regressed"]
    return None


def computed_change(base: Result, bad: Result) -> float | None:
    """The size of the change, in percent of the state it was measured from.

    The reference is the kernel as it was before the change under test: the
    older kernel when two releases are compared (5.15.y -> 6.4-rc3: 49.4%),
    but the regressed kernel itself when the baseline is that kernel with the
    culprit reverted (6.8-rc7 -> 6.8-rc7 + revert: 1884 -> 2518 IOPS, 33.65%).
    """
    b = base.normalized_value if base.normalized_value is not None else base.value
    x = bad.normalized_value if bad.normalized_value is not None else bad.value
    revert_of_bad = _result_key(base)[1] == "revert" and _result_key(base)[0] == _result_key(bad)[0]
    ref = x if revert_of_bad else b
    if not ref:
        return None
    lower_better = lower_is_better(base.metric, base.normalized_unit)
    delta = (x - b) if lower_better else (b - x)
    return round(delta / ref * 100.0, 2)


def fix_restores(results: list[Result]) -> bool | None:
    """Did a tested fix bring the headline metric back to the baseline?  None when unmeasured."""
    pair = headline(results)
    if not pair:
        return None
    base, bad = pair
    fixed = [r for r in results if r.label == "fixed" and r.metric == base.metric and r.direction == base.direction]
    if not fixed:
        return None
    v = fixed[-1].value
    return abs(v - base.value) < abs(v - bad.value)


#: words saying a fix went in
LANDED_WORDS = ("merged", "applied to", "queued", "fixed by", "is fixed", "ended up in", "landed in")
#: a maintainer taking a patch, in a reply of its own, at the start of a line (not a diff's context
#: line): "Applied, thanks!" (b4's thank-you opens so), "Applied to for-6.8/block", "Queued for
#: 6.9", "Thanks, applied"; not a tester's "Applied and trying", a wrapped line of prose ("applied
#: at full swing?"), the robot's "If your patch is applied to the wrong git tree", nor "Can this
#: be picked up?" or "queued up a revert" (of 25 "queued/picked ... up" in linux-block and
#: linux-xfs replies, 14 took nothing)
PATCH_TAKEN = re.compile(r"^(?:Applied|Queued)(?:[,.!]|[ \t]{1,3}(?:to|into|for|in)\b|[ \t]*$)"
                         r"|^(?i:thanks,?[ \t]{1,3}(?:applied|queued))\b", re.M)
#: a patch saying what it does to a regression ("Fix performance regression", "The two patches fix
#: one performance regression", "Revert ...", "restore")
FIX_WORD = re.compile(r"\b(?:fix(?:es|ed|ing)?|revert(?:s|ed|ing)?|restor(?:e|es|ed|ing))\b", re.I)
FIXES_TRAILER = re.compile(r"^Fixes:[ \t]{0,4}[0-9a-f]{7,40}\b", re.M)
#: a patch or a series by its subject ("[PATCH v2 0/7]", "[RFT RFC PATCH 0/8]"; not a bare "[RFC]":
#: a question or a report)
PATCH_WORD = re.compile(r"\[[^\]]{0,80}\bPATCH", re.I)


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


def build_report(thread_id: str, messages: list[Message], findings: list[Findings]) -> Report:
    """The report of one thread (messages in date order, findings aligned with them)."""
    root = messages[0] if messages else None
    said_in_subject = subject_claims(root)
    claims = said_in_subject + [c for f in findings for c in f.claims]
    commits = merge_commits(findings)
    kernels = merge_kernels(findings)
    subject_kernel_roles(root, kernels)
    patch_thread = is_patch_thread(root)
    if any(c.kind == "regression" for c in claims) and not patch_thread:
        other_of_two(kernels)  # a series names the tree it is based on: not a kernel compared
    results = _dedupe_results(findings)
    jobs = _dedupe_jobs(findings)
    good, bad = decide_kernels(kernels, claims)
    attribute_commit_results(results, commits)
    label_results(results, kernels, commits)
    label_with_without(results, commits, root)
    unlabel_unaffected(results, claims)
    tools = list(dict.fromkeys(t for f in findings for t in f.tools))
    setup = []
    seen_setup = set()
    for f in findings:
        for s in f.setup:
            if (s.key, s.value) not in seen_setup:
                seen_setup.add((s.key, s.value))
                setup.append(s)
    regress_claims = [c for c in claims if c.kind == "regression"]
    stated = stated_regression_pct(claims)
    pair = headline(results)
    computed = computed_change(*pair) if pair else None
    has_numbers = bool(results) or stated is not None
    # a subject stating one direction with its figure ("...: fio.read_iops 58.4% improvement",
    # "5% regression in randread") says what the thread is about, whatever the replies discuss
    subject_says = {c.kind for c in said_in_subject if c.kind in ("regression", "improvement")}
    subject_gain = subject_says == {"improvement"} and any(c.stated_pct is not None for c in said_in_subject)
    # like a regression, an improvement is measured: "could be improved" in a bug report is none
    is_improvement = subject_gain or (
        any(c.kind == "improvement" for c in claims) and not regress_claims
        and (bool(results) or any(c.kind == "improvement" and c.stated_pct is not None for c in claims)))
    is_regression = bool(regress_claims) and has_numbers and not is_improvement
    has_culprit = any(c.role == "culprit" for c in commits)
    # a culprit found otherwise than by a patch's Fixes: tag (a bisection, a robot's report)
    bisected = any(c.role == "culprit" and c.form != "fixes" for c in commits)
    if not is_regression and has_numbers and bisected and not is_improvement:
        # a bisection with numbers is a regression report even without the word; a Fixes: tag
        # beside the test a patch shows ("bugfix for blk-throttle" and its dd run) is not
        is_regression = True
    if not is_regression and not has_numbers and not is_improvement and traced_slowdown(
            root, claims, [c for f in findings for c in f.commits], messages):
        # a performance regression traced to a commit is reported even before it is measured in
        # mail ("we found a performance regression after commit 39823b47bbd4 with following test")
        is_regression = True
    if is_regression and patch_thread and not has_culprit \
            and not any(c.kind == "regression" for c in said_in_subject):
        # patch mail measuring its own change (gains, "no regression") is no report of a regression
        is_regression = False
    if is_regression and robot_failure(root):
        # the robot titles a performance report with the change it measured: a failure it bisected
        # is none, whatever numbers its logs hold (dd in an xfstests log, a ver_linux listing)
        is_regression = False
    pct = stated if stated is not None else computed
    if is_regression and stated is None and computed is not None and computed < 0:
        # the pair read shows a gain (a fix's own "reduce from 6.7s to 1.3s", or kernels labelled the
        # wrong way round): a regression has no negative size, and none is made up (computed_pct keeps it)
        pct = None
    dates = [m.date_utc for m in messages if m.date_utc]
    people = list(dict.fromkeys(m.from_name or m.from_addr for m in messages if (m.from_name or m.from_addr)))
    return Report(
        thread_id=thread_id,
        title=root.subject if root else thread_id,
        is_regression_report=is_regression,
        kind="regression" if is_regression else ("improvement" if is_improvement else None),
        status=(derive_status(commits, claims, [m.body for m in messages], fix_restores(results),
                              patch_fix=is_regression and patch_fix_of(root, claims, patch_thread))
                if (is_regression or commits) else "no conclusion"),
        kernel_versions=kernels,
        good_kernel=good,
        bad_kernel=bad,
        commits=commits,
        fio_jobs=jobs,
        results=results,
        setup=setup,
        tools=tools,
        stated_pct=stated,
        computed_pct=computed,
        regression_pct=pct,
        pct_disagrees=bool(stated is not None and computed is not None and abs(abs(stated) - abs(computed)) > DISAGREE_POINTS),
        fio_version=next((f.fio_version for f in findings if f.fio_version), None),
        people=people,
        first_date=min(dates) if dates else None,
        last_date=max(dates) if dates else None,
        message_ids=[m.message_id for m in messages],
        lists=sorted({name for m in messages for name in m.lists}),
    )
