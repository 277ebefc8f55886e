"""LKMLKB_REQUIRE_TOOLS=1 (set by scripts/test, so by CI) turns a skip for a missing tool into a failure.

A copy of the suite's conftest.py runs a small test file in a fresh pytest process whose PATH
holds no fio: the skips the suite takes when fio is missing must fail with the switch, skip
without it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

TESTS = """
import shutil

import pytest


@pytest.mark.skipif(shutil.which("fio") is None, reason="no fio binary installed")
def test_marked():
    pass


def test_skips_inside():
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")


def test_runs():
    pass
"""


@pytest.fixture()
def no_fio_suite(tmp_path) -> tuple[Path, dict[str, str]]:
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_tools.py").write_text(TESTS)
    bare = tmp_path / "bin"  # a PATH with this Python and nothing else
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k != "LKMLKB_REQUIRE_TOOLS"}
    env["PATH"] = str(bare)
    return tmp_path, env


def run(where: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "test_tools.py"],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_the_switch_a_missing_tool_skips(no_fio_suite):
    where, env = no_fio_suite
    r = run(where, env)
    assert r.returncode == 0, r.stdout
    assert "1 passed, 2 skipped" in r.stdout


def test_with_the_switch_a_missing_tool_fails(no_fio_suite):
    where, env = no_fio_suite
    r = run(where, {**env, "LKMLKB_REQUIRE_TOOLS": "1"})
    assert r.returncode == 1, r.stdout
    assert "1 passed" in r.stdout and "skipped" not in r.stdout.splitlines()[-1]
    assert "test_marked would skip (no fio binary installed), and LKMLKB_REQUIRE_TOOLS=1" in r.stdout
    assert "test_skips_inside would skip (fio is not installed)" in r.stdout
