"""Report building's linear-time merging and labelling give the same reports as the quadratic
code they replaced (kept here as the oracle), on generated input that exercises its corners.
These tests check answers, not time (speed is measured by benchmarks, not timed tests).

A hostile message (tests/fuzz ADVERSARIAL) or a stable review thread cites thousands of
commits or carries thousands of results; merging the commits compared each with every kept
one, and labelling the stored results ran one UPDATE per result over its message's rows.
"""

from __future__ import annotations

import copy
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.db.reports import _result_rows
from lkmlkb.model import ROLE_RANK, CommitCitation, Evidence, Findings, Result
from lkmlkb.reports.merge import merge_commits


def merge_commits_oracle(findings: list[Findings]) -> list[CommitCitation]:
    """merge_commits as it was: each citation compared with every kept SHA, the first joined."""
    by_sha: dict[str, CommitCitation] = {}
    for f in findings:
        for c in f.commits:
            if c.form == "link":
                continue
            key = next((k for k in by_sha if k.startswith(c.sha) or c.sha.startswith(k)), None)
            if key is None:
                by_sha[c.sha] = c
                continue
            cur = by_sha.pop(key)
            keep = c if ROLE_RANK.get(c.role, 9) < ROLE_RANK.get(cur.role, 9) else cur
            keep.subject = keep.subject or cur.subject or c.subject
            keep.sha = max(cur.sha, c.sha, key=len)
            by_sha[keep.sha] = keep
    return sorted(by_sha.values(), key=lambda c: (ROLE_RANK.get(c.role, 9), c.sha))


# SHAs that share prefixes a lot: cuts of a few long ones, and some that branch off them
_BASES = ["d47f9717e5cf1a2b3c4d", "d47f9717e5cfffee0011", "d47f0000aaaa", "0123456789abcdef0123", "01234567"]
_SHAS = st.builds(lambda base, cut: base[:cut], st.sampled_from(_BASES), st.integers(0, 20))
_CITATIONS = st.builds(
    CommitCitation,
    sha=_SHAS,
    subject=st.one_of(st.none(), st.sampled_from(["s1", "s2"])),
    role=st.sampled_from(["culprit", "fix", "revert", "tested", "base", "mentioned", "odd"]),
    form=st.sampled_from(["prose", "prose", "fixes", "link"]),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.lists(_CITATIONS, max_size=8), max_size=6))
def test_merge_commits_equals_the_pairwise_merge(groups):
    findings = [Findings(f"m{i}", commits=g) for i, g in enumerate(groups)]
    got = merge_commits(copy.deepcopy(findings))
    want = merge_commits_oracle(copy.deepcopy(findings))
    key = lambda c: (c.sha, c.role, c.subject, c.form)  # noqa: E731
    assert [key(c) for c in got] == [key(c) for c in want]


def _results_db(rows) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE TABLE results (message_id TEXT, line_start INTEGER, metric TEXT, value REAL, "
        "kernel TEXT, report_id TEXT, label TEXT, thread_id TEXT)"
    )
    conn.executemany(
        "INSERT INTO results(message_id, line_start, metric, value, kernel, thread_id) "
        "VALUES (?,?,?,?,?,'t')",
        rows,
    )
    return conn


def _label_oracle(conn, rid, results):
    conn.executemany(
        "UPDATE results SET report_id=?, label=? WHERE message_id=? AND line_start=? AND metric=? "
        "AND value=? AND coalesce(kernel,'')=coalesce(?, '')",
        [
            (rid, x.label, x.evidence.message_id, x.evidence.line_start, x.metric, x.value, x.kernel)
            for x in results
        ],
    )


_MIDS = st.sampled_from(["a@x", "b@x"])
_LINES = st.one_of(st.none(), st.integers(0, 3))
_METRICS = st.one_of(st.none(), st.sampled_from(["bw", "iops"]))
_VALUES = st.sampled_from([1, 1.0, 2.5, -0.0, 0.0, 3])
_KERNELS = st.sampled_from([None, "", "6.8", "6.9"])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(_MIDS, _LINES, _METRICS, _VALUES, _KERNELS), max_size=12),
    st.lists(
        st.tuples(
            _MIDS, _LINES, _METRICS, _VALUES, _KERNELS, st.sampled_from(["baseline", "regressed", None])
        ),
        max_size=12,
    ),
)
def test_result_labels_equal_one_update_per_result(stored, reported):
    """Duplicate rows on one line, NULL lines and metrics, 1 and 1.0, kernel None and "":
    every row gets what the UPDATE per result gave it, later results winning."""
    results = [
        Result(metric=m, value=v, unit="", kernel=k, label=label, evidence=Evidence(mid, line, line))
        for mid, line, m, v, k, label in reported
    ]
    rows = [(mid, line, m, v, k) for mid, line, m, v, k in stored]
    want, got = _results_db(rows), _results_db(rows)
    _label_oracle(want, "t", results)
    got.executemany("UPDATE results SET report_id=?, label=? WHERE rowid=?", _result_rows(got, "t", results))
    q = "SELECT rowid, report_id, label FROM results ORDER BY rowid"
    assert got.execute(q).fetchall() == want.execute(q).fetchall()


def _restated_oracle(results: list[Result]) -> list[set]:
    """Per result, the kernels restated_figures may give it, by comparing every pair."""
    from lkmlkb.reports.labels import _decimals, _significant_digits

    out = []
    for r in results:
        if r.kernel or r.config or r.label:
            out.append({r.kernel})
            continue
        found = {
            n.kernel
            for n in results
            if n.kernel
            and _significant_digits(n.value) >= 2
            and n.evidence.message_id == r.evidence.message_id
            and n.metric == r.metric
            and round(r.value, _decimals(n.value)) == n.value
        }
        out.append(found or {None})
    return out


_FIGURES = st.builds(
    Result,
    metric=st.sampled_from(["bw", "elapsed"]),
    value=st.sampled_from([949.0, 948.61, 948.6, 12.0, 12.3, 1.0, 1.2, 51.0, 50.9, 2.9, 2.93]),
    unit=st.just("MB/s"),
    kernel=st.sampled_from([None, None, "6.3.9", "6.4.1"]),
    evidence=st.builds(Evidence, message_id=st.sampled_from(["m1", "m2"])),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_FIGURES, max_size=12))
def test_restated_figures_gives_what_comparing_every_pair_allows(results):
    from lkmlkb.reports.labels import restated_figures

    allowed = _restated_oracle(results)
    restated_figures(results)
    assert all(r.kernel in ok for r, ok in zip(results, allowed))
