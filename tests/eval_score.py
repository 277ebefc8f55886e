"""Run the shared scorer (../shared/eval/score.py, beside the checkout) over a folder of labelled
cases; shared by test_eval_seeds.py, test_eval_dev.py and test_eval_cases.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_EVAL = ROOT.parent / "shared" / "eval"


#: a field's line of the scorer's output: "kernels         P=0.983 R=1.000 F1=0.991  (...)",
#: "results         recall=0.938  (...)", "commit_roles    accuracy=0.977  (84/86)"
_FIELD_LINE = re.compile(
    r"^(?P<field>[a-z_]+)[ \t]+(?:.*\bF1=(?P<f1>[0-9.]+)|(?:accuracy|recall)=(?P<score>[0-9.]+))", re.M
)


def field_scores(output: str) -> dict[str, float]:
    """Each field's score in the scorer's output: its F1 where it gives precision and recall, else
    its accuracy or recall (the figures the overall score is the mean of)."""
    return {m["field"]: float(m["f1"] or m["score"]) for m in _FIELD_LINE.finditer(output)}


def assert_scores_at_least(cases: Path, floor: float) -> str:
    """Score ``cases`` with the extract contract and return the scorer's output; skip when
    score.py is not beside this checkout."""
    score = SHARED_EVAL / "score.py"
    if not score.exists():
        pytest.skip("../shared/eval/score.py is not beside this checkout")
    out = subprocess.run(
        [sys.executable, str(score), str(cases), "--verbose", "--lkmlkb", f"{sys.executable} -m lkmlkb.cli"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(out.stdout, out.stderr)
    m = re.search(r"overall=([0-9.]+)", out.stdout)
    assert m, out.stdout + out.stderr
    assert "extract_failures=0" in out.stdout
    assert float(m.group(1)) >= floor, out.stdout
    return out.stdout
