"""The shared scorer over tests/eval_cases: real linux-block 2024q1 threads (corpus/1NN_*.mbox,
labelled by hand in gold.json: a kernel test robot report, the raw multipath report thread, and
negatives: patch mail with gains, test-harness mail, a discussion without numbers, a functional
bisection). The extract contract must score >= 0.9 overall on them."""

from __future__ import annotations

from pathlib import Path

from eval_score import assert_scores_at_least

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "eval_cases"


def test_every_case_is_a_corpus_thread_byte_for_byte():
    """Each case's source.mbox is the corpus file of the same stem, unchanged."""
    cases = sorted(p for p in CASES.iterdir() if (p / "gold.json").exists())
    assert len(cases) >= 7
    for case in cases:
        assert (case / "source.mbox").read_bytes() == (ROOT / "corpus" / f"{case.name}.mbox").read_bytes()


def test_real_cases_score_at_least_090():
    assert_scores_at_least(CASES, 0.9)


def test_robot_table_columns_are_the_base_and_tested_commits():
    """corpus/101 (kernel test robot, linux-block 2024-01-31): the table's two columns were measured
    on 8f764b91fd (base) and 574e7779cf (the commit under test): each number is attributed to its
    commit and labelled baseline / regressed by the commit's role."""
    from lkmlkb.reports.from_mail import extract_paths

    (path,) = (ROOT / "corpus").glob("101_*.mbox")
    _, reports = extract_paths([str(path)])
    (report,) = [r for r in reports if r.is_regression_report]
    iops = {
        (r.kernel, r.label): r.value
        for r in report.results
        if r.metric == "iops" and r.direction == "write" and r.evidence.message_id.startswith("202401312320")
    }
    assert iops == {
        ("8f764b91fdf29659", "baseline"): 23454.0,
        ("574e7779cf583171acb5bf63650", "regressed"): 6361.0,
    }
    assert report.computed_pct is not None and abs(report.computed_pct - 72.9) < 0.1


# Trimmed from corpus/101 (Oliver Sang's reply, linux-block 2024-02-01): prose naming the commit the
# run was on, then fio output that names no kernel.
TESTED_ON = """I attached a dmesg and 2 outputs while running tests on 574e7779cf. not sure if
they are helpful?

Run status group 0 (all jobs):
  WRITE: bw=24.8MiB/s (26.0MB/s), 24.8MiB/s-24.8MiB/s (26.0MB/s-26.0MB/s), io=7450MiB (7812MB), run=300289-300289msec
"""


def test_numbers_without_kernel_take_the_commit_the_prose_ran_on():
    from lkmlkb.extract.results import find_results

    res = [r for r in find_results(TESTED_ON) if r.metric == "bw"]
    assert res and {r.kernel for r in res} == {"574e7779cf"}
    # two different commits named: no guess
    two = TESTED_ON.replace("not sure if", "and results on 8f764b91fd; not sure if")
    assert {r.kernel for r in find_results(two) if r.metric == "bw"} == {None}
    # the commit only in quoted text (another writer's words): no guess
    quoted = "> " + TESTED_ON.splitlines()[0] + "\n" + "\n".join(TESTED_ON.splitlines()[1:]) + "\n"
    assert {r.kernel for r in find_results(quoted) if r.metric == "bw"} == {None}
