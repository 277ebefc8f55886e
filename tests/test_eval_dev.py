"""The shared scorer over the labelled dev set (../shared/eval/dev: 46 real messages in many forms,
14 of them look-alikes): the extract contract must score >= 0.95 overall and no field below 0.90."""

from __future__ import annotations

from eval_score import SHARED_EVAL, assert_scores_at_least, field_scores

FIELDS = {
    "is_report",
    "kernels",
    "commits",
    "commit_roles",
    "fio_options",
    "results",
    "result_kernels",
    "regression_pct",
}


def test_dev_set_scores_at_least_095_with_no_field_below_090():
    output = assert_scores_at_least(SHARED_EVAL / "dev", 0.95)
    scores = field_scores(output)
    assert set(scores) == FIELDS, output
    low = {field: score for field, score in scores.items() if score < 0.90}
    assert not low, output


def test_a_fields_score_is_its_f1_or_its_accuracy():
    output = """\
is_report       accuracy=0.978  (45/46)
kernels         P=0.983 R=1.000 F1=0.991  (tp=44 pred=59 gold=44)
results         recall=0.938  (137/146 headline results)
overall=0.964 (mean over 8 fields; bar 0.00)
"""
    assert field_scores(output) == {"is_report": 0.978, "kernels": 0.991, "results": 0.938}
