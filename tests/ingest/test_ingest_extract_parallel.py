"""Ingest with extraction: two workers give the serial database, and a run killed with
extraction jobs out is completed by the next (issue 7: "the parallel path gives exactly
the same database as the serial one"; issue 8: "Nothing lost").

With extraction the workers get each batch twice: parse, segment and prefilter, then,
after the writer attributed the batch's quotes, extraction of the messages that may hold
a report (``extraction.BatchExtraction``).  Small batches put many jobs out at once, with
report flushes in between.  Input: ../shared/archives/linux-block-2024q1.mboxrd.gz.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lkmlkb.db.schema import FINDING_TABLES, REPORT_TABLES
from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"

pytestmark = pytest.mark.slow


def knowledge_rows(db: Path) -> dict[str, list]:
    """Every extraction, report and regression table, without row ids or timestamps, sorted."""
    con = sqlite3.connect(db)
    out = {}
    for t in (
        "segments",
        "extracted_messages",
        "extraction_errors",
        *FINDING_TABLES,
        "reports",
        *REPORT_TABLES,
        "regression_keys",  # the workers read them beside the reports they build
        "regressions",
        "regression_threads",
    ):
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})") if r[1] not in ("id", "built", "at")]
        out[t] = sorted(map(repr, con.execute(f"SELECT {','.join(repr(c) for c in cols)} FROM {t}")))
    con.close()
    return out


@pytest.fixture(scope="module")
def serial(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("serial-extract") / "kb.db"
    ingest([str(ARCHIVE)], str(db), workers=1, extract=True)
    return db


def test_two_workers_give_the_serial_findings_and_reports(serial, tmp_path):
    db = tmp_path / "kb.db"
    # 50 messages a batch: 80 batches, up to 4 of them with extraction jobs out, 4 report flushes
    s = ingest([str(ARCHIVE)], str(db), workers=2, extract=True, batch_size=50)
    assert s.new == 3938
    a, b = knowledge_rows(serial), knowledge_rows(db)
    for table in a:
        assert a[table] == b[table], table
    # the comparison saw what extraction makes, not empty tables
    assert len(a["results"]) > 500 and len(a["reports"]) > 50 and len(a["commit_citations"]) > 100
    con = sqlite3.connect(serial)
    attributed = con.execute(
        "SELECT count(*) FROM segments WHERE kind='quoted' AND quotes_message_id IS NOT NULL"
    )
    assert attributed.fetchone()[0] > 100  # quotes of known origin, left out of what was extracted
    con.close()


def test_killed_with_extraction_jobs_out_then_rerun_completes(serial, tmp_path):
    db = tmp_path / "killed.db"
    cmd = [
        sys.executable,
        "-m",
        "lkmlkb.cli",
        "ingest",
        str(ARCHIVE),
        "--db",
        str(db),
        "--no-progress",
        "-j",
        "2",
    ]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and p.poll() is None and _count(db, "extracted_messages") < 1500:
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)  # the ingest and its workers, jobs out or not
    p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL, "ingest ended before the kill"
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored, extracted = _count(db, "messages"), _count(db, "extracted_messages")
    con.close()
    assert 0 < extracted < 3938 and extracted <= stored
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    a, b = knowledge_rows(serial), knowledge_rows(db)
    for table in a:
        assert a[table] == b[table], table


def _count(db: Path, table: str) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(db, timeout=30)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name=?", (table,)).fetchone():
            return 0
        return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        con.close()


def test_a_worker_killed_mid_run_stops_the_ingest_with_a_clear_error(tmp_path):
    """A worker killed (the OOM killer, a signal) loses its batch: the ingest says so instead of waiting
    for ever, keeps what it stored, and the next run completes it."""
    db = tmp_path / "kb.db"
    script = f"""
import os, sys
from lkmlkb.errors import WorkerLost
from lkmlkb.ingest import prepare
from lkmlkb.ingest.run import ingest
real = prepare.prepare_batch
def dies_on_its_third_batch(batch, screen=False):
    prepare.calls = getattr(prepare, "calls", 0) + 1
    if prepare.calls == 3 and os.getpid() != {os.getpid()}:  # a worker's third batch
        os.kill(os.getpid(), 9)
    return real(batch, screen)
prepare.prepare_batch = dies_on_its_third_batch
try:
    ingest([{str(ARCHIVE)!r}], {str(db)!r}, workers=2, extract=True, batch_size=200)
except WorkerLost as exc:
    print("LOST", exc)
    sys.exit(3)
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert p.returncode == 3, (p.returncode, p.stderr[-2000:])
    assert "LOST ingest: a worker process died" in p.stdout and "run the ingest again" in p.stdout
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert 0 < con.execute("SELECT count(*) FROM messages").fetchone()[0] < 3938
    con.close()
    s = ingest([str(ARCHIVE)], str(db), workers=2, extract=True)
    assert s.new > 0 and _count(db, "messages") == 3938 == _count(db, "extracted_messages")


def test_batches_cut_by_their_bytes_give_the_serial_findings_and_reports(serial, tmp_path, monkeypatch):
    """A batch ends at BATCH_BYTES of raw mail as well as at its count (memory stays bounded
    whatever the messages' sizes): cut that way, the knowledge is the same."""
    from lkmlkb.ingest import run

    monkeypatch.setattr(run, "BATCH_BYTES", 256 * 1024)
    sizes = []
    real = run._batches

    def counted(items, size, max_bytes=None):
        for batch in real(items, size, max_bytes):
            sizes.append(len(batch))
            yield batch

    monkeypatch.setattr(run, "_batches", counted)
    db = tmp_path / "kb.db"
    ingest([str(ARCHIVE)], str(db), workers=2, extract=True)
    assert len(sizes) > 3 * (3995 // 500) and max(sizes) < 500  # the bytes cut them, not the count
    a, b = knowledge_rows(serial), knowledge_rows(db)
    for table in a:
        assert a[table] == b[table], table


def test_with_workers_the_writer_builds_no_spacy_pipeline(tmp_path):
    """With workers, each builds its spaCy pipelines on its first extraction job; the writer, which
    extracts nothing itself, never loads them (they held up the start and its memory).  Reports
    are flushed after every batch of three, so threads span flushes: a report read while a later
    message's extraction job is out waits for the next flush instead of the writer extracting
    that message itself."""
    script = f"""
from lkmlkb.extract.nlp import matcher
from lkmlkb.ingest import extraction
from lkmlkb.ingest.run import ingest
extraction.REPORT_EVERY_BATCHES = 1
s = ingest([{str(ROOT / "corpus")!r}], {str(tmp_path / "kb.db")!r}, workers=2, extract=True, batch_size=3)
print(s.new, matcher.base_nlp.cache_info().currsize)
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-2000:]
    new, pipelines = map(int, p.stdout.split())
    assert new > 50 and pipelines == 0
    con = sqlite3.connect(tmp_path / "kb.db")
    assert con.execute("SELECT count(*) FROM reports WHERE is_regression_report = 1").fetchone()[0] >= 5
    con.close()
