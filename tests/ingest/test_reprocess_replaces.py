"""``lkmlkb reprocess`` replaces what an earlier extraction stored: no stale finding survives it.

The knowledge base is seed 000 (the linux-block mq-deadline multipath write regression, two
messages) ingested with extraction.  Findings as an older extractor might have left them are
written over it (every result's value off by ten, one result stored twice, a job with other
options, a claim the thread never made), then ``lkmlkb reprocess``, over every thread or over
the thread by ``--thread``, must leave exactly what a fresh ingest stores.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main
from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[2]

#: what a finding or report is, without row ids and timestamps
SNAPSHOT = {
    "results": "SELECT message_id, metric, direction, value, unit, kernel, label, config FROM results",
    "fio_jobs": "SELECT message_id, name, form, options FROM fio_jobs",
    "claims": "SELECT message_id, kind, line_start, line_end FROM claims",
    "commit_citations": "SELECT message_id, sha, role FROM commit_citations",
    "kernel_mentions": "SELECT message_id, version, role FROM kernel_mentions",
    "reports": "SELECT report_id, status, kind, computed_pct, stated_pct, good_kernel, bad_kernel FROM reports",
}


def snapshot(db: Path) -> dict[str, list]:
    conn = sqlite3.connect(db)
    try:
        return {t: sorted(map(repr, conn.execute(q).fetchall())) for t, q in SNAPSHOT.items()}
    finally:
        conn.close()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    (seed,) = sorted((ROOT / "corpus").glob("000_*.txt"))
    db = tmp_path_factory.mktemp("fresh") / "kb.db"
    ingest([str(seed)], str(db), extract=True)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return db


def stale_copy(fresh: Path, tmp_path: Path) -> tuple[Path, str]:
    """A copy of the knowledge base with stale findings written over it; (path, thread id)."""
    db = tmp_path / "kb.db"
    shutil.copy(fresh, db)
    conn = sqlite3.connect(db)
    (tid,) = conn.execute("SELECT thread_id FROM reports").fetchone()
    cols = [r[1] for r in conn.execute("PRAGMA table_info(results)") if r[1] != "id"]
    conn.execute("UPDATE results SET value = value * 10")
    conn.execute(
        f"INSERT INTO results ({','.join(cols)}) SELECT {','.join(cols)} FROM results ORDER BY id LIMIT 1"
    )
    conn.execute("""UPDATE fio_jobs SET options = '{"rw": "randread", "bs": "4k"}'""")
    cols = [r[1] for r in conn.execute("PRAGMA table_info(claims)") if r[1] != "id"]
    picked = ",".join("'improvement'" if c == "kind" else c for c in cols)
    conn.execute(f"INSERT INTO claims ({','.join(cols)}) SELECT {picked} FROM claims ORDER BY id LIMIT 1")
    conn.execute("UPDATE reports SET status = 'fixed', computed_pct = 99.0")
    conn.commit()
    conn.close()
    return db, tid


def test_the_stale_copy_differs_from_a_fresh_ingest(fresh, tmp_path):
    # what makes the tests below mean something
    db, _ = stale_copy(fresh, tmp_path)
    before, after = snapshot(fresh), snapshot(db)
    assert all(before[t] != after[t] for t in ("results", "fio_jobs", "claims", "reports"))


@pytest.mark.parametrize("by_thread", [False, True], ids=["all", "thread"])
def test_reprocess_leaves_what_a_fresh_ingest_stores(fresh, tmp_path, by_thread):
    db, tid = stale_copy(fresh, tmp_path)
    args = ["reprocess", "--db", str(db), *(["--thread", tid] if by_thread else [])]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert "1 report(s) rebuilt" in r.output
    assert snapshot(db) == snapshot(fresh)
