"""One regression report per thread, built from the findings of its messages.

Later messages refine the report: a bisection in a reply names the culprit, a
"fixed by" names the fix, a tested patch adds results without changing the
claim.  The good and bad kernels come from the kernel mentions' roles and the
claims; results are labelled baseline / regressed / fixed from them; the
magnitude is taken as stated and also computed from the labelled headline
results, with a flag when the two disagree.
"""

from __future__ import annotations

from lkmlkb.extract.claims import stated_regression_pct
from lkmlkb.model import Findings, Message, Report
from lkmlkb.reports.classify import (
    is_patch_thread,
    patch_fix_of,
    robot_failure,
    subject_claims,
    subject_kernel_roles,
    traced_slowdown,
)
from lkmlkb.reports.labels import (
    attribute_commit_results,
    computed_change,
    decide_kernels,
    fix_restores,
    headline,
    label_results,
    label_with_without,
    other_of_two,
    unlabel_unaffected,
)
from lkmlkb.reports.merge import dedupe_jobs, dedupe_results, merge_commits, merge_kernels
from lkmlkb.reports.status import derive_status

#: stated and computed magnitudes that differ by more than this many points disagree
DISAGREE_POINTS = 5.0


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
    results = dedupe_results(findings)
    jobs = dedupe_jobs(findings)
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
