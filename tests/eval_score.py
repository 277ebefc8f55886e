"""Run the shared scorer (../shared/eval/score.py, beside the checkout) over a folder of labelled
cases; shared by test_eval_seeds.py and test_eval_cases.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_EVAL = ROOT.parent / "shared" / "eval"


def assert_scores_at_least(cases: Path, floor: float) -> None:
    """Score ``cases`` with the extract contract; skip when score.py is not beside this checkout."""
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
