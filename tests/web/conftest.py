"""A knowledge base for the Datasette tests: ``lkmlkb ingest corpus/`` of the five real seed threads.

Seed 000 (linux-block, March 2024, "[bug-report] Performance regression with
fio sequential-write on a multipath setup") is the report most tests look
at: its fio job file on /dev/dm-0 and /dev/dm-1, "WRITE: bw=236MiB/s" on
6.8-rc7 against "bw=315MiB/s" with the revert, and the bisection to
d47f9717e5cf ("block/mq-deadline: use correct way to throttling write
requests").  Build time: ~10 s, once per session.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from repo_helpers import copy_kb

from lkmlkb.db.connection import connect
from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
SEED000_SUBJECT = "%fio sequential-write on a multipath setup%"


def build_kb(path: Path) -> tuple[Path, str]:
    """``lkmlkb ingest`` of the five seed threads (extraction and reports included); returns (path, seed 000's report id).

    The seeds, not all of corpus/: corpus/102 is the same multipath thread as raw mail, and the page checks
    below count seed 000's two messages.
    """
    ingest([str(p) for p in sorted(CORPUS.glob("00[0-4]_*.txt"))], str(path), extract=True)
    db = connect(path)
    found = db.execute(
        "SELECT r.report_id FROM reports r JOIN threads t ON t.thread_id = r.thread_id "
        "WHERE t.subject LIKE ?",
        (SEED000_SUBJECT,),
    ).fetchone()
    assert found, "ingest built no report for seed 000"
    rid = found[0]
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.close()
    return path, rid


@pytest.fixture(scope="session")
def kb(tmp_path_factory) -> tuple[Path, str]:
    """(path of a knowledge base built from the corpus, report id of seed 000)."""
    return build_kb(tmp_path_factory.mktemp("kb") / "kb.db")


@pytest.fixture()
def kb_copy(kb, tmp_path) -> tuple[Path, str]:
    """A private copy of the knowledge base, for tests that change it."""
    dst = (
        tmp_path / "kbcopy.db"
    )  # another name: Datasette instances in one process share their _internal catalog
    return copy_kb(kb[0], dst), kb[1]


@pytest.fixture(scope="session")
def ds(kb):
    """A started Datasette on the knowledge base, configured as ``lkmlkb serve`` does it."""
    from lkmlkb.web.serve import make_datasette

    datasette = make_datasette(kb[0])
    asyncio.run(datasette.invoke_startup())
    return datasette


@pytest.fixture(scope="session")
def get(ds):
    """GET a path through Datasette's own test client."""

    def fetch(path: str, **kw):
        return asyncio.run(ds.client.get(path, **kw))

    return fetch
