"""The shared scorer over the labelled seeds: the extract contract must score >= 0.98."""

from __future__ import annotations

from eval_score import SHARED_EVAL, assert_scores_at_least


def test_seed_labels_score_at_least_098():
    assert_scores_at_least(SHARED_EVAL / "seeds", 0.98)
