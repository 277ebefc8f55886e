"""One regression report per thread, built from the findings of its messages.

Later messages refine the report: a bisection in a reply names the culprit, a
"fixed by" names the fix, a tested patch adds results without changing the
claim.  The good and bad kernels come from the kernel mentions' roles and the
claims; results are labelled baseline / regressed / fixed from them; the
magnitude is taken as stated and also computed from the labelled headline
results, with a flag when the two disagree.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract.claims import find_claims, stated_regression_pct
from lkmlkb.extract.commits import find_commits
from lkmlkb.extract.kernels import find_kernels
from lkmlkb.model import Claim, Evidence, Findings, KernelMention, Message, Report, Result
from lkmlkb.reports.classify import (
    MIN_SLOWDOWN_PCT,
    PATCH_WORD,
    PERF_WORD,
    ROBOT_SUBJECT,
    ThreadFacts,
    before_after,
    classify,
    is_patch_thread,
    series_changelog_lines,
    slowdown_pct,
)
from lkmlkb.reports.labels import (
    attribute_commit_results,
    computed_change,
    decide_kernels,
    fix_restores,
    headline,
    label_by_headings,
    label_results,
    label_with_without,
    older_and_newer,
    other_of_two,
    restated_figures,
    results_on_the_one_kernel,
    roles_from_statements,
    significant_drop,
    unlabel_unaffected,
)
from lkmlkb.reports.merge import dedupe_jobs, dedupe_results, merge_commits, merge_kernels
from lkmlkb.reports.status import derive_status, fixes_its_regression
from lkmlkb.threads.threader import is_reply_subject

log = logging.getLogger(__name__)

#: stated and computed magnitudes that differ by more than this many points disagree
DISAGREE_POINTS = 5.0


def subject_kernel_roles(said: list[KernelMention], kernels: list[KernelMention]) -> None:
    """The subject (its kernels ``said``) says which kernel regressed ("regression on linux-next
    (6.19.0-rc1-...) vs RHEL9 5.14").  Fills roles the body left open; never overrides one the
    body gave."""
    roles = {k.version: k.role for k in said if k.role}
    for k in kernels:
        if k.role is None and roles.get(k.version):
            k.role = roles[k.version]


def subject_findings(root: Message, said: list[KernelMention]) -> Findings:
    """The commits a thread's subject cites ("Slow I/O on USB media after commit f664a3cc17b7",
    "12aceb89b0bc eventfd: ... causes 6.7% performance regression"), and the kernels a subject
    about speed names ("Kernel 4.14 + has 3 times higher write IO latency than Kernel 4.4",
    "[Regression, v5.0] ...", "... degradation on Linux 6.10.3"; not a stable review's "[PATCH
    6.1 000/100] 6.1.40-rc1 review"; ``said``: the subject's kernels), with the subject as
    evidence."""
    found = Findings(root.message_id)
    if root.subject and _SUBJECT_SHA.search(root.subject):
        robot = ROBOT_SUBJECT.match(root.subject)
        for c in find_commits(root.subject):
            c.evidence = Evidence(root.message_id, 0, 0, "Subject: " + root.subject)
            if robot and root.subject[: robot.start("found")].rstrip().rstrip(":").endswith(c.sha):
                # "[linus:master] [xfs] 2edf06a50f: fsmark.files_per_sec -5.7% regression": the
                # commit the robot's report is about, in its replies too
                c.role, c.cue, c.form = "culprit", "the robot's subject", "lkp"
            found.commits.append(c)
    if root.subject and PERF_WORD.search(root.subject):
        for k in said:
            k.evidence = Evidence(root.message_id, 0, 0, "Subject: " + root.subject)
            found.kernels.append(k)
    return found


#: a SHA-shaped word in a subject: the cheap test before the commit reader runs on it
_SUBJECT_SHA = re.compile(r"\b[0-9a-f]{7,40}\b")


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


def _outside_changelogs(messages: list[Message], claims: list[Claim]) -> list[Claim]:
    """The claims not made in a posted patch's changelog of its series' versions
    (:func:`~lkmlkb.reports.classify.series_changelog_lines`)."""
    logs = {
        m.message_id: series_changelog_lines(m.body)
        for m in messages
        if PATCH_WORD.search(m.subject or "") and not is_reply_subject(m.subject or "")
    }
    if not any(logs.values()):
        return claims
    return [
        c
        for c in claims
        if c.evidence is None or c.evidence.line_start not in logs.get(c.evidence.message_id, ())
    ]


def _own_fall(
    results: list[Result], claims: list[Claim], root: Message | None
) -> tuple[Result, Result] | None:
    """The pair of a change the report's first message states in its own lines ("maximum IOPS had
    fallen from ~10000 to ~100"), the second worse, where neither its subject nor its text (what it
    quotes too: a reply that is the first message read quotes the report) states a size: or None."""
    if root is None:
        return None
    if any(
        c.kind == "regression"
        and c.stated_pct is not None
        and (c.evidence is None or c.evidence.message_id == root.message_id)
        for c in claims
    ):
        return None
    pair = before_after(results, root.message_id)
    if pair is None or any(r.evidence.quoted for r in pair):
        return None
    fall = slowdown_pct(*pair)
    return pair if fall is not None and fall >= MIN_SLOWDOWN_PCT else None


def build_report(thread_id: str, messages: list[Message], findings: list[Findings]) -> Report:
    """The report of one thread (messages in date order, findings aligned with them)."""
    root = messages[0] if messages else None
    said_in_subject = subject_claims(root)
    own_claims = _outside_changelogs(messages, [c for f in findings for c in f.claims])
    claims = said_in_subject + own_claims
    said_kernels = find_kernels(root.subject) if root is not None and root.subject else []
    findings = list(findings) + [subject_findings(root, said_kernels)] if root is not None else list(findings)
    commits = merge_commits(findings)
    kernels = merge_kernels(findings)
    subject_kernel_roles(said_kernels, kernels)
    patch_thread = is_patch_thread(root)
    if any(c.kind == "regression" for c in claims) and not patch_thread:
        other_of_two(kernels)  # a series names the tree it is based on: not a kernel compared
    releases = older_and_newer(kernels)
    if releases is None and root is not None and not any(k.role for k in kernels):
        # replies name more kernels ("5 minutes vs 1, both on 5.11-rc2 and 5.10.5"): the two
        # releases the report itself names are still the two sides of its change
        releases = older_and_newer([k for k in kernels if k.evidence.message_id == root.message_id])
    results = dedupe_results(findings)
    if releases is None and not any(k.role for k in kernels):
        # the report names more kernels than it measured ("with kernel 5.19 or 6.0 ... slower than
        # before" over pv's runs on 5.15.46 and 6.0.15): the two it measured on are the change's sides
        measured_on = {r.kernel for r in results if r.kernel}
        named = [k for k in kernels if k.version in measured_on]
        if len({k.version for k in named}) == len(measured_on):  # no run on a commit (its row is read so)
            releases = older_and_newer(named)
    ordered = None if patch_thread else releases
    jobs = dedupe_jobs(findings)
    roles_from_statements(results, kernels)
    if not patch_thread:  # a series names the tree it is based on, not what it measured on
        results_on_the_one_kernel(results, [k for f in findings for k in f.kernels])
    good, bad = decide_kernels(kernels, claims)
    attribute_commit_results(results, commits)
    label_results(results, kernels, commits, ordered, releases)
    label_with_without(results, commits, root)
    label_by_headings(results, commits)
    unlabel_unaffected(results, claims)
    restated_figures(results)
    tools = list(dict.fromkeys(t for f in findings for t in f.tools))
    setup = []
    seen_setup = set()
    for f in findings:
        for s in f.setup:
            if (s.key, s.value) not in seen_setup:
                seen_setup.add((s.key, s.value))
                setup.append(s)
    pair = headline(results, root.subject if root is not None else "")
    computed = computed_change(*pair) if pair else None
    stated = stated_regression_pct(claims, computed, root.message_id if root is not None else None)
    facts = ThreadFacts(
        messages=messages,
        claims=own_claims,
        subject_claims=said_in_subject,
        commits=commits,
        own_commits=[c for f in findings for c in f.commits],
        kernels=kernels,
        results=results,
        own_kernels=[k for f in findings for k in f.kernels],
        stated_pct=stated,
        computed_pct=computed,
    )
    decided = classify(facts)
    is_regression = decided.is_regression
    is_improvement = decided.kind == "improvement"
    status, why = "no conclusion", None
    if is_regression or commits:
        status, why = derive_status(
            messages,
            commits,
            claims,
            fix_restores(results),
            fix_thread=is_regression and fixes_its_regression(root, messages, decided.reasons),
            reported_in=decided.reasons[0].message_id if is_regression and decided.reasons else None,
        )
        if is_regression and status == "no conclusion":
            status = "reported"  # measured, not said in words ("330MB/s -> 130MB/s ... caused by this patch")
    if (
        is_regression
        and stated is None
        and computed is not None
        and computed < 0
        and pair
        and root is not None
        and any(r.rule == "fix-of-slowdown" for r in decided.reasons)
        and all(r.evidence.message_id == root.message_id and not r.evidence.quoted for r in pair)
    ):
        # the fix's own log measures before and after it ("the time of fstrim ... reduce from 6.7s
        # to 1.3s"): before is the regression, after its fix, and the regression's size is what
        # the fix wins back, from the fixed state (6.7s against 1.3s: 415% longer)
        before, after = pair
        before.label, after.label = "regressed", "fixed"
        computed = computed_change(after, before)
    if is_regression and stated is None and pair is None:
        # an mmtests table whose columns no kernel or good/bad names: its baseline is the first
        # column, and its regression the largest drop mmtests marks significant
        pair = significant_drop(results)
        if pair is not None:
            pair[0].label, pair[1].label = "baseline", "regressed"
            computed = computed_change(*pair)
    own = _own_fall(results, claims, root) if is_regression else None
    if own is not None:
        # the report's own "from ~10000 to ~100" sizes it where its first message and subject state
        # no size: a later message's figure (a quoted robot line on another benchmark) does not
        own[0].label, own[1].label = "baseline", "regressed"
        stated, computed = None, computed_change(*own)
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
        status=status,
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
        pct_disagrees=bool(
            stated is not None and computed is not None and abs(abs(stated) - abs(computed)) > DISAGREE_POINTS
        ),
        fio_version=next((f.fio_version for f in findings if f.fio_version), None),
        people=people,
        first_date=min(dates) if dates else None,
        last_date=max(dates) if dates else None,
        message_ids=[m.message_id for m in messages],
        lists=sorted({name for m in messages for name in m.lists}),
        reasons=decided.reasons + ([why] if why is not None else []),
    )
