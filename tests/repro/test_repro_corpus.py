"""Every regression report of the corpus becomes a bundle that the real fio accepts.

Reports come from the corpus files through extraction (not hand-built), the
bundle through ``lkmlkb repro``; each job file passes ``fio --parse-only``,
and its ``--smoke`` version runs for real against a scratch file and goes
through ``lkmlkb compare``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main
from lkmlkb.reports.from_mail import extract_paths

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".txt", ".mbox"))
needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (CI installs it)")


def regression_files():
    out = []
    for path in FILES:
        _, reports = extract_paths([str(path)])
        if any(r.is_regression_report for r in reports):
            out.append(path)
    return out


REPORT_FILES = regression_files()


def test_every_seed_reports_a_regression():
    assert {p.name[:3] for p in REPORT_FILES} >= {"000", "001", "002", "003", "004"}


def _fio_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LKMLKB_TARGET": str(tmp_path / "scratch.dat")}


@needs_fio
@pytest.mark.fio
@pytest.mark.parametrize("path", REPORT_FILES, ids=lambda p: p.stem)
def test_bundle_of_each_corpus_report_parses_with_fio(path, tmp_path):
    out = tmp_path / "bundle"
    r = CliRunner().invoke(main, ["repro", str(path), "-o", str(out)])
    assert r.exit_code == 0, r.output
    jobs = sorted((out / "jobs").glob("*.fio"))
    assert jobs, r.output
    for job in jobs:
        options = [
            ln for ln in job.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith((";", "#"))
        ]
        assert not any("/dev/" in ln for ln in options), options
        for banned in ("exec_prerun", "exec_postrun", "ioengine=exec"):
            assert not any(ln.startswith(banned) for ln in options), options
        proc = subprocess.run(
            ["fio", "--parse-only", str(job)],
            capture_output=True,
            text=True,
            env=_fio_env(tmp_path),
            timeout=60,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = json.loads((out / "expected.json").read_text())
    assert expected
    assert (out / "README.md").read_text().strip()
    assert subprocess.run(["bash", "-n", str(out / "setup.sh")]).returncode == 0


@needs_fio
@pytest.mark.fio
def test_smoke_bundle_of_seed_000_runs_and_compares(tmp_path):
    (seed,) = CORPUS.glob("000_*.txt")
    out = tmp_path / "bundle"
    r = CliRunner().invoke(main, ["repro", str(seed), "-o", str(out), "--smoke"])
    assert r.exit_code == 0, r.output
    (job,) = sorted((out / "jobs").glob("*.fio"))
    result = tmp_path / "result.json"
    proc = subprocess.run(
        ["fio", str(job), "--output-format=json", f"--output={result}"],
        capture_output=True,
        text=True,
        env=_fio_env(tmp_path),
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r = CliRunner().invoke(main, ["compare", str(seed), str(result)])
    assert r.exit_code == 0, r.output
    # the reported write bandwidths stand beside the user's figure
    assert "236" in r.output and "315" in r.output, r.output
