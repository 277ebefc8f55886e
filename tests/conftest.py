"""Shared fixtures: the corpus, the shared archive sample, helpers to build real inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# CI lays shared/ beside the clone; a developer checkout has it one level up too.
SHARED_CANDIDATES = [ROOT.parent / "shared", ROOT / ".." / "shared"]


#: set by scripts/test (and so by CI): a test that skips, for want of fio, git, Chromium, the
#: playwright package, ../shared or anything else, fails instead
REQUIRE_TOOLS_VAR = "LKMLKB_REQUIRE_TOOLS"


def shared_dir() -> Path | None:
    for cand in SHARED_CANDIDATES:
        if (cand / "archives").is_dir():
            return cand.resolve()
    return None


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return CORPUS


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def seed_text():
    def read(prefix: str) -> str:
        (path,) = sorted(CORPUS.glob(prefix + "_*.txt"))
        return path.read_text(encoding="utf-8")

    return read


def pytest_addoption(parser):
    parser.addoption(
        "--regen-golden",
        action="store_true",
        default=False,
        help="Rewrite tests/golden/*.json from the current extractors (review the diff).",
    )


@pytest.fixture(scope="session")
def regen_golden(request) -> bool:
    return bool(request.config.getoption("--regen-golden"))


@pytest.fixture()
def count_parses(monkeypatch):
    """``start()`` counts the ingest's parses of raw messages from then on, in the one-item
    list it returns (the workers' too when the pool forks after it)."""

    def start() -> list[int]:
        from lkmlkb.ingest import prepare

        calls = [0]
        real = prepare.parse_message

        def counting(*a, **kw):
            calls[0] += 1
            return real(*a, **kw)

        monkeypatch.setattr(prepare, "parse_message", counting)
        return calls

    return start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With LKMLKB_REQUIRE_TOOLS=1 a skipped test is reported failed, naming why it skipped."""
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and not hasattr(rep, "wasxfail") and os.environ.get(REQUIRE_TOOLS_VAR) == "1":
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        reason = reason.removeprefix("Skipped: ")
        rep.outcome = "failed"
        rep.longrepr = f"{item.nodeid} would skip ({reason}), and {REQUIRE_TOOLS_VAR}=1 makes that a failure"
