"""The shared scorer over the labelled seeds: the extract contract must score >= 0.98."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path | None:
    """CI lays shared/ beside the clone; a developer checkout has it beside the repo too."""
    cand = ROOT.parent / "shared"
    return cand if (cand / "eval").is_dir() else None


def test_seed_labels_score_at_least_098():
    shared = shared_dir()
    if shared is None or not (shared / "eval" / "score.py").exists():
        pytest.skip("../shared/eval is not beside this checkout")
    out = subprocess.run(
        [sys.executable, str(shared / "eval" / "score.py"), str(shared / "eval" / "seeds"), "--verbose",
         "--lkmlkb", f"{sys.executable} -m lkmlkb.cli"],
        capture_output=True, text=True, timeout=600)
    print(out.stdout, out.stderr)
    m = re.search(r"overall=([0-9.]+)", out.stdout)
    assert m, out.stdout + out.stderr
    assert "extract_failures=0" in out.stdout
    assert float(m.group(1)) >= 0.98, out.stdout
