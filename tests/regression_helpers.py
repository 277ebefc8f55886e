"""Inputs of the regression tests: a knowledge base ingested from the real threads of
``tests/fixtures/regressions/`` (see tests/regressions/test_regressions.py for where each came
from)."""

from __future__ import annotations

from pathlib import Path

from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "regressions"
SEED000_TEXT = next((ROOT / "corpus").glob("000_*.txt"))
SEED000_MBOX = next((ROOT / "corpus").glob("102_*.mbox"))
#: the revert comes in a second ingest, after its regression was grouped (grouping is incremental)
LATE = "mq_deadline_revert.mbox"

ISCSI_REPORT = "CAHZQxyKsym0E-GaV0cLQKH8GgO8X_4QR8WjiGghdjswhObLG0g@mail.gmail.com"
ISCSI_V1 = "20230529023836.1209558-1-dlemoal@kernel.org"
ISCSI_V2 = "20230529073237.1339862-1-dlemoal@kernel.org"
SEED000 = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
REVERT = "20240313214218.1736147-1-bvanassche@acm.org"


def build_regression_kb(path: Path) -> Path:
    """``lkmlkb ingest`` of every regression fixture and both copies of seed 000, the revert last."""
    first = [p for p in sorted(FIXTURES.glob("*.mbox")) if p.name != LATE]
    ingest([str(p) for p in first] + [str(SEED000_TEXT), str(SEED000_MBOX)], str(path), extract=True)
    ingest([str(FIXTURES / LATE)], str(path), extract=True)
    return path
