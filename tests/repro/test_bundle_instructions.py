"""A bundle's own instructions, followed as written: run.sh, the README's fio line, then the
compare command they name, with the real fio and the real ``lkmlkb``."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIO = shutil.which("fio")
MAIL = Path(__file__).resolve().parents[2] / "corpus" / "000_a3585e8f2465c212.txt"
LKMLKB = [sys.executable, "-m", "lkmlkb.cli"]


def lkmlkb(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*LKMLKB, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def command(line: str) -> list[str]:
    """A command line of the bundle with ``lkmlkb`` run from this checkout."""
    words = shlex.split(line)
    assert words[0] == "lkmlkb", line
    return words[1:]


def compared_rows(output: str) -> dict[str, list[list[str]]]:
    """metric -> its rows' columns, for the rows that give your number."""
    lines = output.strip().splitlines()
    assert lines[0].split()[:2] == ["metric", "direction"], output
    rows: dict[str, list[list[str]]] = {}
    for line in lines[1:]:
        cols = re.split(r"\s{2,}", line)
        if len(cols) > 5 and cols[5] != "-":
            rows.setdefault(cols[0], []).append(cols)
    return rows


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "b"
    proc = lkmlkb(["repro", str(MAIL), "-o", str(out), "--smoke"], cwd=out.parent)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.fio
@pytest.mark.skipif(FIO is None, reason="fio is not installed")
def test_run_sh_then_its_compare_command(bundle, tmp_path):
    env = {**os.environ, "LKMLKB_TARGET": str(tmp_path / "scratch.img")}
    proc = subprocess.run(
        ["bash", str(bundle / "run.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    (said,) = re.findall(r"compare with: (lkmlkb compare .*)", proc.stderr)
    result = lkmlkb(command(said), cwd=bundle)
    assert result.returncode == 0, result.stderr
    rows = compared_rows(result.stdout)
    # metric by metric: the reported write bandwidth and IOPS beside this run's
    assert {"bw", "iops", "lat"} <= rows.keys(), result.stdout
    assert {(r[1], r[3], r[4].split(" (")[0]) for r in rows["bw"]} == {
        ("write", "baseline", "315 MiB/s"),
        ("write", "regressed", "236 MiB/s"),
    }
    assert all(float(r[6]) > 0 and r[7].startswith("closer to") for r in rows["iops"])


@pytest.mark.fio
@pytest.mark.skipif(FIO is None, reason="fio is not installed")
def test_readme_fio_line_then_its_compare_command(bundle, tmp_path):
    readme = (bundle / "README.md").read_text(encoding="utf-8")
    fio_line = next(ln.strip() for ln in readme.splitlines() if " fio jobs/" in ln)
    compare_line = next(ln.strip() for ln in readme.splitlines() if ln.strip().startswith("lkmlkb compare"))
    words = shlex.split(fio_line)
    assert words[0].startswith("LKMLKB_TARGET=") and words[1] == "fio"
    env = {**os.environ, "LKMLKB_TARGET": str(tmp_path / "scratch.img")}
    proc = subprocess.run(words[1:], cwd=bundle, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    result = lkmlkb(command(compare_line), cwd=bundle)
    assert result.returncode == 0, result.stderr
    assert {"bw", "iops"} <= compared_rows(result.stdout).keys(), result.stdout


def test_compare_without_numbers_is_an_error(bundle, tmp_path):
    empty = tmp_path / "expected.json"
    empty.write_text('{"results_by_kernel": {}, "jobs": []}')
    fio_json = tmp_path / "r.json"
    fio_json.write_text('{"fio version": "fio-3.33", "jobs": []}')
    result = lkmlkb(["compare", str(empty), str(fio_json)], cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [f"Error: {empty}: no reported numbers to compare"]
