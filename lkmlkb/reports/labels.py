"""Kernels and results labelled: which kernel is good and which bad, and which results are the
baseline, the regressed and the fixed state; the headline pair and the size of the change."""

from __future__ import annotations

import re

from lkmlkb.extract.kernel_versions import compare, normalize_version, qualifier, series, sort_key
from lkmlkb.extract.metric_units import lower_is_better
from lkmlkb.extract.tables import mmtests_cells
from lkmlkb.model import Claim, CommitCitation, KernelMention, Message, Result
from lkmlkb.reports.classify import PATCH_SUBJECT

HEADLINE_METRICS = ("bw", "throughput", "iops", "util", "lat", "clat")


def _kernel_base(version: str | None) -> str:
    if not version:
        return ""
    return normalize_version(version) or version


def _qual(raw: str | None) -> str:
    q = (qualifier(raw) or "") if raw else ""
    return "revert" if "revert" in q else ("patch" if q and q != "+" else "")  # a bare "+": a local build


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
    every = kernels
    versions = list(dict.fromkeys(k.version for k in kernels))
    roles = {k.role for k in kernels if k.role}
    if len(versions) > 2 and len(roles) == 1:
        # more kernels in the thread (a tool's version, a distro package): the two of the line that
        # gives one its role ("Linux kernel 6.4.1 on Arch Linux, upgrading from 6.3.9")
        said_on = {(k.evidence.message_id, k.evidence.line_start) for k in kernels if k.role}
        if len(said_on) == 1:
            kernels = [k for k in kernels if (k.evidence.message_id, k.evidence.line_start) in said_on]
            versions = list(dict.fromkeys(k.version for k in kernels))
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
    for k in every:
        if k.version == other:
            k.role = "bad" if role == "good" else "good"


def roles_from_statements(results: list[Result], kernels: list[KernelMention]) -> None:
    """A change statement with a kernel on each side ("went from ~15 seconds w/ 5.9 to nearly 5
    minutes in 5.10") in a thread whose text gives no kernel a role: the kernel the values got
    worse on is the bad one, the other the good one.  Fills roles only when the thread's
    statements agree on one pair."""
    if any(k.role for k in kernels):
        return
    said: set[tuple[str, str]] = set()
    for before, after in zip(results, results[1:]):
        if (
            before.config == "before"
            and after.config == "after"
            and before.kernel
            and after.kernel
            and before.evidence.message_id == after.evidence.message_id
            and before.metric == after.metric
        ):
            a, b = (
                normalize_version(before.kernel) or before.kernel,
                normalize_version(after.kernel) or after.kernel,
            )
            change = computed_change(before, after)
            if a != b and change is not None and change > 0:
                said.add((a, b))
    if len(said) != 1:
        return
    ((good, bad),) = said
    for k in kernels:
        if k.version == good:
            k.role = "good"
        elif k.version == bad:
            k.role = "bad"


#: a kernel's release and the tree it came from, when its name gives one: a release candidate, a
#: patch set's snapshot ("2.6.20-mm1", "2.6.11-bk7") or a linux-next build are other kernels than
#: the release, where a distribution's build ("6.7.9-100.fc38.x86_64") is a form of it
_RELEASE = re.compile(
    r"\d{1,2}\.\d{1,3}(?:\.\d{1,4})?(?:-(?:rc\d{1,2}|(?:mm|bk|git|rt|ck|mjb)\d{1,3}|next-\d{8}))?"
)


def results_on_the_one_kernel(results: list[Result], own_kernels: list[KernelMention]) -> None:
    """A message whose own words name one kernel release only (in one or more forms: "6.7.9" and
    its ``uname -r`` "6.7.9-100.fc38.x86_64") measured its figures on it: its results that name
    nothing they were measured on (no kernel, commit, side or configuration) get that kernel, in
    its most specific form.  Figures of quoted text, and of a message naming two releases, are
    left alone; the subject's kernels are the thread's, not what a message ran."""
    by_message: dict[str, set[str]] = {}
    forms: dict[str, list[str]] = {}
    for k in own_kernels:
        if k.evidence is None or k.evidence.quoted or not k.evidence.message_id:
            continue
        if k.evidence.text.startswith("Subject: "):
            continue  # "regression since 6.5.0": the kernel it began in, not the one measured
        m = _RELEASE.match(k.version)
        if m is None:
            continue
        by_message.setdefault(k.evidence.message_id, set()).add(m.group(0))
        forms.setdefault(k.evidence.message_id, []).append(k.version)
    for r in results:
        e = r.evidence
        if e is None or e.quoted:
            continue
        releases = by_message.get(e.message_id)
        if not releases or len(releases) != 1:
            continue
        longest = max(forms[e.message_id], key=len)
        if r.kernel and r.kernel in releases and _named_by_its_kernel(r):
            # its sentence names the release ("After updating to kernel 6.8.4 the copy starts at
            # about 150MB/s"): the most specific form of it the message gives
            if r.config:
                r.config = longest
            r.kernel = longest
        elif not (r.kernel or r.config):  # else measured on a named kernel, commit, side or configuration
            r.kernel = longest


def restated_figures(results: list[Result]) -> None:
    """A figure a message gives twice, once in a tool's output and once in its own words, was
    measured once: the copy that names no kernel, side or configuration takes the kernel and
    side of the copy that does ("Rate: 948.61MiB/s" in a pasted status, "slowed ... to about
    949 mb/sec" on the new kernel in the prose); the named copy stays the one a size is
    computed from.

    The same message and metric, the named copy's value the other's rounded to the digits the
    named copy was written with, and at least two significant digits of it (a "1 minute" says
    too little to be matched).  Each unnamed figure is looked up once per number of decimals
    the named ones are written with, so a message of thousands of figures costs linear time."""
    named: dict[tuple[str, str, float], Result] = {}
    decimals: dict[tuple[str, str], set[int]] = {}
    for r in results:
        if r.kernel and r.evidence is not None and _significant_digits(r.value) >= 2:
            key = (r.evidence.message_id, r.metric)
            named.setdefault((*key, r.value), r)
            decimals.setdefault(key, set()).add(_decimals(r.value))
    if not named:
        return
    for r in results:
        if r.kernel or r.config or r.label or r.evidence is None:
            continue
        key = (r.evidence.message_id, r.metric)
        for d in sorted(decimals.get(key, ())):
            n = named.get((*key, round(r.value, d)))
            if n is not None:
                r.kernel, r.config = n.kernel, n.config  # no label: the named copy is the pair's
                break


def _decimals(value: float) -> int:
    """The decimals ``value`` is written with (949.0: 0, 2.9: 1)."""
    text = repr(value)
    return 0 if text.endswith(".0") else len(text.partition(".")[2])


def _significant_digits(value: float) -> int:
    return len(repr(abs(value)).removesuffix(".0").replace(".", "").lstrip("0"))


def _result_key(r: Result) -> tuple[str, str]:
    version = _kernel_base(r.kernel)
    q = _qual(r.kernel) or _qual(
        f"{version}{r.config or ''}" if r.config and r.config.startswith("+") else None
    )
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


_SHA_CONFIG = re.compile(
    r"[0-9a-f]{7,40}"
)  # an LKP table column "8f764b91fdf29659", "574e7779cf583171acb5bf63650"
#: the state a commit's role says its measurements show
_COMMIT_ROLE_LABEL = {"base": "baseline", "culprit": "regressed", "fix": "fixed"}


def commit_named(sha: str, commits: list[CommitCitation]) -> CommitCitation | None:
    """The cited commit a SHA (a column's, a side's; either may be the shorter) names."""
    return next((c for c in commits if c.sha.startswith(sha) or sha.startswith(c.sha)), None)


def attribute_commit_results(results: list[Result], commits: list[CommitCitation]) -> None:
    """A number measured on a cited commit was measured on the kernel built from it.

    Kernel test robot tables head their columns with the base and the tested
    commit (``8f764b91fdf29659  574e7779cf583171acb5bf63650``): such a result
    has no release but the commit as its configuration.  Its kernel becomes
    that commit, and the commit's role says which side it is: the robot's
    base is the baseline, the commit under test (the culprit) the regressed
    state, a fix the fixed one; a commit cited only in passing was tested.
    Results of other configurations are left alone.
    """
    # a robot table's first column is its base ("ecd788a92460eef4 2edf06a50f5bbe664283f3c55c4"),
    # also where people copy the table into their replies: the first commit of a table row
    # that holds two or more
    columns: dict[tuple[str, int], list[str]] = {}
    for r in results:
        if r.tool not in (None, "", "prose") and r.config and _SHA_CONFIG.fullmatch(r.config):
            columns.setdefault((r.evidence.message_id, r.evidence.line_start), []).append(r.config)
    first_column = {cfgs[0] for cfgs in columns.values() if len(set(cfgs)) > 1}
    for r in results:
        # a figure prose puts on a commit's side ("After the commit, it takes around 300 seconds")
        # has the commit for its kernel already: a culprit's is the regressed state
        if r.kernel and not r.label and r.tool == "prose" and _SHA_CONFIG.fullmatch(r.kernel):
            c = commit_named(r.kernel, commits)
            if c is not None and c.role == "culprit":
                r.label = "regressed"
    for r in results:
        if r.kernel or not r.config or not _SHA_CONFIG.fullmatch(r.config):
            continue
        c = commit_named(r.config, commits)
        if c is None:
            continue
        r.kernel = r.config
        if c.role in ("mentioned", "tested") and r.config in first_column:
            c.role, c.cue = "base", "the first column of a comparison table"
        if c.role == "mentioned":
            # a kernel built from it was measured: the commit was tested ("<sha>  1040k" in a table)
            c.role, c.cue = "tested", "measured on it"
        if not r.label:
            r.label = _COMMIT_ROLE_LABEL.get(c.role)
    # the other column of a row whose tested column regressed is the robot's base (a commit or a release)
    regressed_rows = {
        (r.evidence.message_id, r.evidence.line_start, r.metric)
        for r in results
        if r.label == "regressed" and r.config and _SHA_CONFIG.fullmatch(r.config)
    }
    for r in results:
        if (
            r.label is None
            and r.kernel
            and (r.evidence.message_id, r.evidence.line_start, r.metric) in regressed_rows
        ):
            r.label = "baseline"
    if any(r.label == "baseline" for r in results):
        return
    # a table of kernels and commits as rows, in the order they were built ("v5.4  1050K", "<parent>
    # 1040k", "<culprit>  835k"): the row above the culprit's is its parent, the baseline
    by_line = {(r.evidence.message_id, r.evidence.line_start, r.metric): r for r in results}
    for r in results:
        if r.label == "regressed" and r.config and _SHA_CONFIG.fullmatch(r.config):
            above = by_line.get((r.evidence.message_id, r.evidence.line_start - 1, r.metric))
            if above is not None and above.label is None and (above.kernel or above.config):
                above.label = "baseline"


#: a release as a thread names one: "2.6.32", "4.18.0", "6.8-rc7" (no build on top of it, no tree)
_PLAIN_RELEASE = re.compile(r"\d{1,2}\.\d{1,3}(?:\.\d{1,4})?(?:-rc\d{1,2})?")


def older_and_newer(kernels: list[KernelMention]) -> tuple[str, str] | None:
    """The two releases a thread names, the older first, when it names exactly two, both plain
    releases, and gives neither a role: the state before a change was measured on the older
    ("3800 MB/sec with the old kernel ... falls to 2500 MB/sec with the newer kernel" where
    2.6.32 and 4.18.0 are named; "450 MB/s before the update and barely 120 MB/s after")."""
    if any(k.role for k in kernels):
        return None
    versions = list(dict.fromkeys(k.version for k in kernels))
    if len(versions) != 2 or not all(_PLAIN_RELEASE.fullmatch(v) for v in versions):
        return None
    older, newer = sorted(versions, key=sort_key)
    return (older, newer) if sort_key(older) != sort_key(newer) else None


def label_pairs(
    results: list[Result],
    kernels: list[KernelMention],
    ordered: tuple[str, str] | None = None,
    releases: tuple[str, str] | None = None,
) -> None:
    """Before/after pairs ("old: 554 IOPS → new: 535 IOPS"): baseline and regressed, on the good
    and bad kernels; where the thread gives no kernel a role, on ``ordered``'s older and newer
    release (see :func:`older_and_newer`).  A run written on one of the two ``releases`` a thread
    names without roles (a patch's thread too: its table's "5.9  0m54.258s" and "5.10  1m26.212s")
    is on the side of the change its release is."""
    good = next((k.version for k in kernels if k.role == "good"), None)
    bad = next((k.version for k in kernels if k.role == "bad"), None)
    if good is None and bad is None and ordered is not None:
        good, bad = ordered
    # rows measured on commits tell the change's sides themselves (a culprit's row and its
    # parent's): the releases above and below them are not its two sides
    on_commits = any(_SHA_CONFIG.fullmatch(r.config or "") for r in results)
    for r in results:
        config = r.config or ""
        if (
            releases is not None
            and r.label is None
            and r.kernel in releases
            and (config == r.kernel or (not config and not on_commits))
        ):
            # a run on one of the two releases ("The kernel 6.9 removes a DM block device in 73ms.
            # The kernel 6.10-rc in 103ms.", linux-block 2024-06; a row or a line labelled by
            # its release, "6.1.80: 120 us"): the older is before the change
            r.label = "baseline" if r.kernel == releases[0] else "regressed"
            continue
        # a statement's "before"/"after ..."; a label line's "Before"/"After" alone (a heading's
        # "After this fix" is the fix's side, read by label_by_headings)
        side = config.lower() if config.lower() in ("before", "after") else config.split(" ", 1)[0]
        if side not in ("before", "after"):
            continue
        if r.kernel:
            # the statement gave the run its kernel ("used to take 4 seconds, now it takes 40
            # seconds on 6.3"): the side still says which state it was
            if r.label is None:
                r.label = "baseline" if side == "before" else "regressed"
            continue
        r.label = "baseline" if side == "before" else "regressed"
        r.kernel = good if side == "before" else bad


#: a result's heading naming the culprit's absence or presence ("Without this patch:", "With:", "Just
#: adding this patch on the previous:"; "with the commit reverted" is its absence)
_WITHOUT_CULPRIT = re.compile(r"(?:without|before)\b|with\b.{0,40}\brevert", re.IGNORECASE)
_WITH_CULPRIT = re.compile(r"(?:with|after|(?:just\s{1,3})?(?:adding|applying))\b", re.IGNORECASE)


def _culprit_side(heading: str) -> str | None:
    """ "baseline" for a heading without the culprit, "regressed" for one with it, else None."""
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
    if (
        any(r.label for r in results)
        or (root is not None and PATCH_SUBJECT.match(root.subject or ""))
        or not any(c.role == "culprit" and c.form != "fixes" for c in commits)
        or any(c.role == "fix" for c in commits)
    ):
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


#: a heading about the mail's own patch or its effect: its figures are the fixed state ("After this
#: fix:", "with the patch", "This improves the performance to:")
_OWN_FIX_HEADING = re.compile(
    r"\b(?:this|the|my|our)[ \t]{1,3}(?:fix|patch\w{0,2}|series|change)\b|\bpatched\b"
    r"|\bimproves?\b|\bperformance[ \t]{1,3}to\b",
    re.IGNORECASE,
)
#: a heading saying which side of a change its figures were measured on
_BEFORE_HEADING = re.compile(r"(?:before|without)\b", re.IGNORECASE)
_AFTER_HEADING = re.compile(r"(?:after|with)\b", re.IGNORECASE)


def label_by_headings(results: list[Result], commits: list[CommitCitation]) -> None:
    """Tables under headings that say the side of a change ("before 7e55c60acfbb:", "After merging
    checkpoint buffer cleanup:", "After this fix:"): before or without the change is the baseline,
    after or with it the regressed state, and the figures of the mail's own fix the fixed one.  A
    heading naming a culprit by its SHA is read so in any thread; one in words (the change it
    merged) only where a culprit is named.  Only where no result is labelled yet, only tables
    (a tool's output under its heading), and only if after measured worse than before."""
    headed = [r for r in results if r.tool == "table" and r.config]
    if not headed or any(r.label for r in results):
        return
    culprits = [c.sha[:7] for c in commits if c.role == "culprit"]
    if not culprits:
        return
    sides: list[tuple[Result, str]] = []
    for r in headed:
        heading = r.config or ""
        own = _OWN_FIX_HEADING.search(heading)
        if _BEFORE_HEADING.match(heading):
            if not own:  # "before this patch" is the state the patch changes: no side of the culprit
                sides.append((r, "baseline"))
        elif own:
            sides.append((r, "fixed"))
        elif _AFTER_HEADING.match(heading):
            sides.append((r, "regressed"))
    if not {"baseline", "regressed"} <= {side for _r, side in sides}:
        return
    for r, side in sides:
        r.label = side
    pair = headline(results)
    change = computed_change(*pair) if pair else None
    if change is None or change <= 0:  # after measured better: a gain, not a regression's two sides
        for r, _side in sides:
            r.label = None


#: a column named for the good or the bad side of a bisection: "good", "bad", "good-kernel"
_GOOD_BAD_COLUMN = re.compile(r"(good|bad)(?:[-_ ](?:kernel|commit|run))?(?:\s|$)", re.IGNORECASE)


def label_results(
    results: list[Result],
    kernels: list[KernelMention],
    commits: list[CommitCitation],
    ordered: tuple[str, str] | None = None,
    releases: tuple[str, str] | None = None,
) -> None:
    """baseline / regressed / fixed, from the kernels' roles and qualifiers (``ordered`` and
    ``releases``: see :func:`label_pairs`)."""
    label_pairs(results, kernels, ordered, releases)
    roles = kernel_roles(kernels)
    patched = patched_kernels(kernels, commits)
    has_fix = any(c.role == "fix" for c in commits)
    # releases also run with a revert on top: there the release as it is holds the culprit
    reverted = {key[0] for key in map(_result_key, results) if key[1] == "revert"}
    for r in results:
        if r.label or not r.kernel:
            continue
        version, q = _result_key(r)
        role = roles.get((version, q))
        if role is None and q == "revert":
            role = "good"  # a revert on top of a kernel is the thread's candidate baseline
        elif not q and version in reverted:
            # "6.1-base: 84.5" beside "6.1-revert: 59.5": the release's own role is its revert's
            # ("6.1 with the commit reverted is fine"); the release itself is the other side
            role = "bad"
        if version in patched and not q:
            r.label = "fixed" if has_fix else None
        elif q == "patch" and has_fix:
            r.label = "fixed"
        elif role == "good":
            r.label = "baseline"
        elif role == "bad":
            r.label = "regressed"
    for r in results:
        # a table's columns named so ("good  bad" over mmtests' rows, "good-kernel bad-kernel")
        column = _GOOD_BAD_COLUMN.match(r.config or "") if not (r.label or r.kernel) else None
        if column:
            r.label = "baseline" if column.group(1).lower() == "good" else "regressed"
    if not any(r.label == "regressed" for r in results):
        _label_later_kernels(results, kernels)
    if not any(r.label == "baseline" for r in results):
        _label_beside_the_bad(results, kernels)
    _label_good_series(results, kernels)


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
        if r.label or not r.kernel or not _named_by_its_kernel(r):
            continue
        version, q = _result_key(r)
        if q:
            continue
        try:
            if compare(version, first_bad) >= 0:
                r.label = "regressed"
        except (ValueError, TypeError):
            continue


def _label_beside_the_bad(results: list[Result], kernels: list[KernelMention]) -> None:
    """A thread naming its bad kernel and no good one ("dd performance regression in 6.8", "slow
    writes on 6.6"), with runs on the bad kernel's releases and on one older release: the older
    release is the baseline, the bad kernel's runs ("6.8.0", "6.6.3") the regressed.

    With two older releases measured, which was the last good one is not said: nothing is labelled.
    """
    if any(k.role == "good" for k in kernels):
        return
    bads = {k.version for k in kernels if k.role == "bad" and not _qual(k.raw)}
    if not bads:
        return
    first_bad = min(bads, key=sort_key)
    on_bad: list[Result] = []
    older: dict[str, list[Result]] = {}
    for r in results:
        if r.label not in (None, "regressed") or not r.kernel or not _named_by_its_kernel(r):
            continue
        version, q = _result_key(r)
        if q:
            continue
        if any(version == b or (series(version) == b and series(b) == b) for b in bads):
            on_bad.append(r)
            continue
        try:
            if compare(version, first_bad) < 0:
                older.setdefault(version, []).append(r)
        except (ValueError, TypeError):
            continue
    if not on_bad or len(older) != 1:
        return
    for r in on_bad:
        r.label = "regressed"
    for r in next(iter(older.values())):
        r.label = "baseline"


def _label_good_series(results: list[Result], kernels: list[KernelMention]) -> None:
    """A run on a stable release of the good kernel's series is a baseline run.

    "after upgrading from kernel 4.14 to 5.10" then "Kernel 4.14.287-215.504.amzn2.x86_64"
    over fio's lines: the runs on 4.14.287 are the good side.  Not where the good kernel is
    itself a point release or a release candidate, where a bad kernel is of that series too
    (the regression entered within it), or where the run is on a patched or reverted build.
    """
    goods = {k.version for k in kernels if k.role == "good" and not _qual(k.raw)}  # a run's series is one
    if not goods:
        return
    bads = [k.version for k in kernels if k.role == "bad"]
    for r in results:
        if r.label or not r.kernel or not _named_by_its_kernel(r):
            continue
        version, q = _result_key(r)
        good = next((g for g in goods if _of_line(version, g)), None)
        if q or good is None or any(_of_line(b, good) for b in bads):
            continue
        try:
            if compare(version, good) > 0:  # 4.14.287, not 4.14-rc3
                r.label = "baseline"
        except (ValueError, TypeError):
            continue


def _of_line(version: str, line: str) -> bool:
    """Whether ``version`` is a release of the series ``line`` names: "4.14.287-215.amzn2" and
    "4.14-rc3" of "4.14"; "2.6.32-754.17.1.el6" of "2.6" too (a good kernel named by its line:
    "from kernel 2.6 to 4.18"; the 2.6 releases' series are three numbers long)."""
    return series(version) == line or version.startswith(line + ".")


def _named_by_its_kernel(r: Result) -> bool:
    """A run with no configuration of its own: none, or a row labelled by its kernel ("linux-5.9.11
    10.5 MB/s")."""
    return r.config in (None, "", r.kernel)


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


def significant_drop(results: list[Result]) -> tuple[Result, Result] | None:
    """The pair an mmtests compare table sizes its regression by: in the column with the most
    drops mmtests marks significant (``* -12.60%*``), the row where it dropped most, beside
    the first column's value of that row (mmtests' baseline).

    A table of many rows (clients, threads, file sizes) states no one size; its largest
    significant drop is what its reader is shown as the regression ("up to 12.6 %"), and the
    column holding the most of them is the regressed kernel (a fix's column beside it is
    mostly within noise)."""
    rows: dict[tuple[str, int], list[Result]] = {}
    for r in results:
        if r.tool == "mmtests" and r.evidence is not None:
            rows.setdefault((r.evidence.message_id, r.evidence.line_start), []).append(r)
    drops: dict[tuple[str, int], list[tuple[float, Result, Result]]] = {}
    gains: dict[tuple[str, int], int] = {}
    for (message_id, _), row in rows.items():
        cells = mmtests_cells(row[0].evidence.text or "")
        if len(cells) != len(row) or any(v != r.value for (v, _, _), r in zip(cells, row)):
            continue  # a row some of whose cells were dropped as repeats: its columns are unknown
        for col, ((_, change, significant), r) in enumerate(zip(cells, row)):
            if col and significant and change < 0:
                drops.setdefault((message_id, col), []).append((-change, row[0], r))
            elif col and significant and change > 0:
                gains[(message_id, col)] = gains.get((message_id, col), 0) + 1
    # a column that mostly gains is a fix or a better setting beside a first column that is
    # itself the slow one (MQ against SQ and MQ-patched): its odd drop sizes no regression
    drops = {col: ds for col, ds in drops.items() if len(ds) > gains.get(col, 0)}
    if not drops:
        return None
    column = max(drops.values(), key=lambda ds: (len(ds), max(d[0] for d in ds)))
    _, base, bad = max(column, key=lambda d: d[0])
    return base, bad


#: the metrics a subject names as what regressed: "dbench (sync open) max_latency regression",
#: "IOPS drop on 6.1", "write throughput regression"
_SUBJECT_METRICS = (
    (re.compile(r"latenc", re.I), ("lat", "clat")),
    (re.compile(r"\biops\b", re.I), ("iops",)),
    (re.compile(r"throughput|bandwidth", re.I), ("bw", "throughput")),
)


def subject_metrics(subject: str) -> tuple[str, ...]:
    """The metrics ``subject`` names (see _SUBJECT_METRICS); () for none."""
    return tuple(m for rx, metrics in _SUBJECT_METRICS if rx.search(subject) for m in metrics)


def headline(results: list[Result], subject: str = "") -> tuple[Result, Result] | None:
    """The first metric with a baseline and a regressed value, in headline order (a metric the
    thread's ``subject`` names first: dbench's latency, not its throughput, in "max_latency
    regression"); a tool's figures before what prose rounds ("around 15 minutes" beside time(1)'s
    "15m36.508s").

    A metric measured more than once on each side is paired in the order written (the read
    and the write of "6.12 -> Read 6600MB/s, write 4500MB/s" and "6.18 -> Read 6900MB/s,
    write 900MB/s"): the first pair of one message that got worse, else the first (runs of
    two messages are not paired by their order)."""
    drop = significant_drop(results)
    if drop is not None and (drop[0].label, drop[1].label) == ("baseline", "regressed"):
        return drop  # a table of many rows, sized by mmtests' own largest significant drop
    # a size (an I/O's, a buffer's: "2KiB" against "4KiB" in an iostat column) is no speed
    labelled = [r for r in results if r.label in ("baseline", "regressed") and r.normalized_unit != "B"]
    # a run whose direction was not read is of the metric's one direction where only one was read
    # (dd's command gives its write to the output under it, not to the same output further down)
    directions: dict[str, set[str]] = {}
    for r in labelled:
        if r.direction is not None:
            directions.setdefault(r.metric, set()).add(r.direction)
    by_metric: dict[tuple[str, str | None], dict[str, list[Result]]] = {}
    for r in sorted(labelled, key=lambda r: r.tool == "prose"):
        direction = r.direction
        if direction is None and len(directions.get(r.metric, ())) == 1:
            direction = next(iter(directions[r.metric]))
        by_metric.setdefault((r.metric, direction), {}).setdefault(r.label, []).append(r)
    named = subject_metrics(subject) if subject else ()
    order = sorted(
        by_metric,
        key=lambda md: (
            md[0] not in named,
            HEADLINE_METRICS.index(md[0]) if md[0] in HEADLINE_METRICS else 99,
        ),
    )
    for md in order:
        sides = by_metric[md]
        # a column the same on both sides is a parameter of the run (iozone's file size), not its measure
        pairs = [
            (b, r)
            for b, r in zip(sides.get("baseline", []), sides.get("regressed", []))
            if b.value != r.value
        ]
        if pairs:
            return next((p for p in pairs if _one_message(*p) and (computed_change(*p) or 0) > 0), pairs[0])
    return None


def _one_message(a: Result, b: Result) -> bool:
    return (
        a.evidence is not None and b.evidence is not None and a.evidence.message_id == b.evidence.message_id
    )


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
    fixed = [
        r for r in results if r.label == "fixed" and r.metric == base.metric and r.direction == base.direction
    ]
    if not fixed:
        return None
    v = fixed[-1].value
    return abs(v - base.value) < abs(v - bad.value)
