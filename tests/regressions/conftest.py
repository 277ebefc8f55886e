"""One knowledge base of the regression fixtures for the tests of this folder (see
tests/regression_helpers.py and tests/regressions/test_regressions.py for the threads)."""

from __future__ import annotations

from pathlib import Path

import pytest
from regression_helpers import build_regression_kb

from lkmlkb.db.connection import connect


@pytest.fixture(scope="session")
def kb(tmp_path_factory) -> Path:
    """Every regression fixture and both copies of seed 000 ingested; the revert comes in a
    second ingest, after its regression was grouped (grouping is incremental)."""
    return build_regression_kb(tmp_path_factory.mktemp("regressions") / "kb.db")


@pytest.fixture(scope="session")
def conn(kb):
    db = connect(kb, create=False)
    yield db.conn
    db.conn.close()
