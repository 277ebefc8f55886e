"""The README documents every command with an example, and its set-up commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

from lkmlkb.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_command_has_an_example():
    examples = set(re.findall(r"^\s{4}(?:\.venv/bin/)?lkmlkb (\w+)", README, re.M))
    missing = sorted(set(main.commands) - examples)
    assert not missing, f"commands without an example in README.md: {missing}"


def test_ci_runs_the_readme_test_command():
    assert "\n    scripts/test\n" in README
    assert "scripts/test" in (ROOT / ".ci" / "run").read_text()


def test_main_command_builds_the_corpus_and_serves():
    line = next(ln for ln in README.splitlines() if "pip install -e ." in ln and "ingest corpus/" in ln)
    assert line.strip().endswith("lkmlkb serve")
