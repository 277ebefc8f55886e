"""The whole archive sample through the library ingest: counts, second deliveries,
the seed-000 thread, serial == parallel, and a real ``lkmlkb ingest`` killed
with SIGKILL at several points then completed (issue 8, "Nothing lost").

Input: ../shared/archives/linux-block-2024q1.mboxrd.gz (3,995 mbox entries of
linux-block, 2024 Q1; see its README.md).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lkmlkb.ingest.run import IngestSummary, ingest

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
ORIGINAL = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
DAFU = "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com"
RE_DAFU = "be93c772-d400-4105-b05a-735ed7365730@oracle.com"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def serial(tmp_path_factory) -> tuple[Path, IngestSummary]:
    db = tmp_path_factory.mktemp("serial") / "kb.db"
    return db, ingest([str(ARCHIVE)], str(db), workers=1)


@pytest.fixture(scope="module")
def parallel(tmp_path_factory) -> tuple[Path, IngestSummary]:
    db = tmp_path_factory.mktemp("parallel") / "kb.db"
    return db, ingest([str(ARCHIVE)], str(db), workers=2)


def test_archive_ingests_completely(serial):
    db, s = serial
    assert (s.read, s.new, s.copies, s.errors, s.unchanged) == (3995, 3938, 57, 0, 0)
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM messages").fetchone()[0] == 3938
    assert con.execute("SELECT count(*) FROM raw_messages").fetchone()[0] == 3938
    assert con.execute("SELECT count(*) FROM message_copies WHERE locator != 'first'").fetchone()[0] == 57
    assert con.execute("SELECT count(*) FROM message_copies").fetchone()[0] == 3938 + 57
    assert con.execute("SELECT count(*) FROM ingest_errors").fetchone()[0] == 0
    assert (
        con.execute("SELECT count(*) FROM message_lists WHERE list='linux-block.vger.kernel.org'").fetchone()[
            0
        ]
        == 3938
    )
    run = con.execute("SELECT new, unchanged, copies, errors, status FROM ingest_runs").fetchall()
    assert run == [(3938, 0, 57, 0, "done")]
    # nothing that SQLite or a terminal must not see
    assert (
        con.execute(
            "SELECT count(*) FROM messages WHERE instr(body, char(0)) OR instr(subject, char(0))"
        ).fetchone()[0]
        == 0
    )
    # every message of a thread points at the thread's row
    assert (
        con.execute(
            "SELECT count(*) FROM messages WHERE thread_id NOT IN (SELECT thread_id FROM threads)"
        ).fetchone()[0]
        == 0
    )
    assert con.execute("SELECT sum(message_count) FROM threads").fetchone()[0] == 3938


def test_seed_000_messages_are_one_thread(serial):
    con = sqlite3.connect(serial[0])
    rows = con.execute(
        "SELECT message_id, thread_id, parent_id, subject FROM messages WHERE message_id IN (?,?,?) "
        "ORDER BY date_utc",
        (ORIGINAL, DAFU, RE_DAFU),
    ).fetchall()
    assert [r[0] for r in rows] == [ORIGINAL, DAFU, RE_DAFU]
    assert {r[1] for r in rows} == {ORIGINAL}
    assert [r[2] for r in rows] == [None, ORIGINAL, DAFU]
    assert rows[1][3].startswith("答复: [bug-report]") and rows[2][3].startswith("Re: 答复: [bug-report]")
    subject, root = con.execute(
        "SELECT subject, root_message_id FROM threads WHERE thread_id=?", (ORIGINAL,)
    ).fetchone()
    assert (subject, root) == (
        "[bug-report] Performance regression with fio sequential-write on a multipath setup.",
        ORIGINAL,
    )


def test_full_text_search_on_subject_and_new_text(serial):
    con = sqlite3.connect(serial[0])
    hits = [
        r[0]
        for r in con.execute(
            "SELECT message_id FROM messages WHERE rowid IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)",
            ('"sequential-write" multipath',),
        )
    ]
    assert ORIGINAL in hits


def table_rows(db: Path) -> dict[str, list]:
    """messages, threads, segments, copies, lists without rowids or timestamps."""
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(messages)")]
    return {
        "messages": con.execute(
            f"SELECT {','.join(repr(c) for c in cols)} FROM messages ORDER BY message_id"
        ).fetchall(),
        "threads": con.execute("SELECT * FROM threads ORDER BY thread_id").fetchall(),
        "segments": con.execute("SELECT * FROM segments ORDER BY message_id, seq").fetchall(),
        "copies": con.execute(
            "SELECT message_id, content_hash, source, locator FROM message_copies "
            "ORDER BY message_id, content_hash"
        ).fetchall(),
        "members": con.execute("SELECT * FROM thread_members ORDER BY message_id").fetchall(),
        "lists": con.execute("SELECT * FROM message_lists ORDER BY message_id, list").fetchall(),
    }


def test_parallel_path_equals_serial_path(serial, parallel):
    assert parallel[1].new == serial[1].new == 3938
    a, b = table_rows(serial[0]), table_rows(parallel[0])
    for table in a:
        assert len(a[table]) == len(b[table]), table
        assert a[table] == b[table], table


def test_each_delivery_is_keyed_by_the_hash_of_its_stored_bytes(serial, parallel):
    """The workers hash each message beside parsing it; the key must still be SHA-256 of
    exactly the bytes stored (what a re-run and ``delivery_key`` compare against)."""
    for db in (serial[0], parallel[0]):
        con = sqlite3.connect(db)
        rows = con.execute(
            "SELECT m.content_hash, r.raw, c.content_hash FROM messages m "
            "JOIN raw_messages r USING (message_id) "
            "JOIN message_copies c ON c.message_id = m.message_id AND c.locator = 'first'"
        ).fetchall()
        con.close()
        assert len(rows) == 3938
        assert all(h == hashlib.sha256(raw).hexdigest() == first for h, raw, first in rows)


def test_workers_send_no_raw_bytes_back_and_the_ingest_puts_them_back():
    """What a worker returns for a batch holds no raw message (the ingest sent them and keeps
    them); put back, every message holds exactly the bytes it was parsed from."""
    import pickle
    from itertools import islice

    from lkmlkb.ingest import pool, prepare
    from lkmlkb.sources import iter_source

    batch = list(islice(iter_source(str(ARCHIVE)), 200))
    back = pool._without_raw(prepare.prepare_and_screen, batch)
    assert all(p.message.raw is None for p in back if isinstance(p, prepare.Prepared))
    shipped = pickle.loads(pickle.dumps(back))  # as the pool carries it
    kept = pool._raw_put_back(batch, shipped)
    assert [p.message.raw for p in kept] == [item.raw for item in batch]
    assert all(p.content_hash == hashlib.sha256(p.message.raw).hexdigest() for p in kept)


def test_the_parallel_ingest_takes_raw_bytes_back_from_no_worker(tmp_path, monkeypatch):
    from lkmlkb.ingest import pool, prepare

    stripped = []
    real = pool._raw_put_back

    def put_back(batch, prepared):
        stripped.extend(p.message.raw is None for p in prepared if isinstance(p, prepare.Prepared))
        return real(batch, prepared)

    monkeypatch.setattr(pool, "_raw_put_back", put_back)
    s = ingest([str(ARCHIVE)], str(tmp_path / "kb.db"), workers=2, extract=False, batch_size=500)
    assert s.read == len(stripped) == 3995 and all(
        stripped
    )  # every message read, none of its bytes sent back


def _integrity(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def test_sigkill_at_several_points_then_rerun_completes(serial, tmp_path):
    db = tmp_path / "killed.db"
    cmd = [
        sys.executable,
        "-m",
        "lkmlkb.cli",
        "ingest",
        str(ARCHIVE),
        "--db",
        str(db),
        "--no-extract",
        "--no-progress",
        "-j",
        "2",
    ]
    progress = []
    # kill points: during start-up/migration (0.5 s), right after the first
    # committed batch, and half way through (polled, so a loaded machine
    # still hits them)
    for until in (
        lambda: time.sleep(0.5) or True,
        lambda: _messages_so_far(db) > 0,
        lambda: _messages_so_far(db) >= 1500,
    ):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 120
        while not until() and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.1)
        os.killpg(p.pid, signal.SIGKILL)  # the ingest and its worker processes
        p.wait(timeout=30)
        assert p.returncode == -signal.SIGKILL, "ingest ended before the kill"
        if db.exists():
            assert _integrity(db) == "ok"
        progress.append(_messages_so_far(db))
    # the kills landed mid-ingest, after some batches were committed
    assert 0 < progress[1] < 3938 and 1500 <= progress[2] < 3938
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert _integrity(db) == "ok"
    con = sqlite3.connect(db)
    counts = [
        con.execute(q).fetchone()[0]
        for q in (
            "SELECT count(*) FROM messages",
            "SELECT count(*) FROM threads",
            "SELECT count(*) FROM message_copies WHERE locator != 'first'",
            "SELECT count(*) FROM ingest_errors",
        )
    ]
    assert counts == [3938, serial_count(serial[0], "threads"), 57, 0]
    # and the same database as the uninterrupted ingest (timestamps aside)
    a, b = table_rows(serial[0]), table_rows(db)
    for table in ("messages", "threads", "segments", "members", "lists"):
        assert a[table] == b[table], table
    statuses = [r[0] for r in con.execute("SELECT status FROM ingest_runs ORDER BY id")]
    assert statuses[-1] == "done" and set(statuses[:-1]) <= {"running"}


def _messages_so_far(db: Path) -> int:
    """Messages committed so far; 0 while the schema's first migration had not committed."""
    if not db.exists():
        return 0
    con = sqlite3.connect(db)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name='messages'").fetchone():
            return 0
        return con.execute("SELECT count(*) FROM messages").fetchone()[0]
    finally:
        con.close()


def serial_count(db: Path, table: str) -> int:
    return sqlite3.connect(db).execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_an_ingest_collects_garbage_rarely_and_gives_the_callers_thresholds_back(tmp_path):
    """While an ingest runs (in this process and the workers it forks) the cyclic collector
    waits for 50,000 new objects, not 700; the caller's setting comes back after it,
    also when the ingest fails."""
    import gc

    from lkmlkb.ingest.pool import BULK_GC_THRESHOLDS

    corpus = ROOT / "corpus"
    before = gc.get_threshold()
    seen = []
    try:
        gc.set_threshold(700, 10, 10)
        ingest(
            [str(corpus)],
            str(tmp_path / "a.db"),
            on_batch=lambda store, batch: seen.append(gc.get_threshold()),
        )
        assert seen and set(seen) == {BULK_GC_THRESHOLDS} and BULK_GC_THRESHOLDS[0] >= 10_000
        assert gc.get_threshold() == (700, 10, 10)

        def fail(store, batch):
            raise RuntimeError("on_batch failed")

        with pytest.raises(RuntimeError, match="on_batch failed"):
            ingest([str(corpus)], str(tmp_path / "b.db"), on_batch=fail)
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def _megabytes(n: int) -> bytes:
    return b"x" * (n << 20)


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_the_worker_pool_wakes_its_handler_when_a_worker_ends_not_for_each_result(monkeypatch):
    """multiprocessing's process pool wakes its worker handler whenever a result waits in the
    pipe, and the handler spins until the result is read: thousands of rounds for a few large
    results.  The ingest's pool wakes it when a worker ends (then it starts another)."""
    import multiprocessing
    import multiprocessing.pool as mpp

    from lkmlkb.ingest.pool import WorkerPool

    rounds = [0]
    real = mpp.Pool._maintain_pool

    def counted(*args, **kwargs):
        rounds[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(mpp.Pool, "_maintain_pool", staticmethod(counted))
    pool = WorkerPool(2, context=multiprocessing.get_context("fork"))
    try:
        results = [pool.apply_async(_megabytes, (8,)) for _ in range(20)]
        assert all(len(r.get(60)) == 8 << 20 for r in results)
        assert rounds[0] < 5
        started = {p.pid for p in pool._pool}
        pool.apply_async(_die)  # a worker killed in the middle of a task (never idle: see wait_for)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len({p.pid for p in pool._pool} - started) < 1:
            time.sleep(0.05)
        assert len(pool._pool) == 2 and len({p.pid for p in pool._pool} - started) == 1
        assert pool.apply_async(_megabytes, (1,)).get(60) == b"x" * (1 << 20)
    finally:
        pool.terminate()
        pool.join()


def _dies_holding_the_result_pipes_lock() -> None:
    """A worker killed while it writes its result: it dies holding the result pipe's lock."""
    frame = sys._getframe()
    while frame.f_code.co_name != "worker":  # multiprocessing.pool.worker(inqueue, outqueue, ...)
        frame = frame.f_back
    frame.f_locals["outqueue"]._wlock.acquire()
    os.kill(os.getpid(), signal.SIGKILL)


def _ended_within(pool, seconds: float) -> bool:
    """Whether pool.terminate() and pool.join() return within ``seconds``."""
    ender = threading.Thread(target=lambda: (pool.terminate(), pool.join()), daemon=True)
    ender.start()
    ender.join(seconds)
    return not ender.is_alive()


@pytest.mark.parametrize("how", ["waiting for a task", "writing its result"])
def test_a_worker_that_died_holding_a_pipes_lock_does_not_hang_the_pools_end(how, monkeypatch):
    """multiprocessing's terminate takes the task pipe's read lock and writes to the result
    pipe: a worker killed while it waited for a task (the OOM killer picks the largest
    process, busy or not) or wrote a result dies holding one of them, and the pool's own
    terminate waited for it for ever, so the ingest hung instead of saying a worker died.
    The pool kills its workers when its terminate takes more than TERMINATE_SECONDS."""
    import multiprocessing

    from lkmlkb.ingest import pool
    from lkmlkb.ingest.pool import WorkerPool

    monkeypatch.setattr(pool, "TERMINATE_SECONDS", 1.0)
    pool = WorkerPool(1, context=multiprocessing.get_context("fork"))
    assert pool.apply_async(_megabytes, (0,)).get(60) == b""
    if how == "waiting for a task":
        time.sleep(0.3)  # the one worker waits for a task, holding the task pipe's lock
        os.kill(pool._pool[0].pid, signal.SIGKILL)
    else:
        pool.apply_async(_dies_holding_the_result_pipes_lock)
    workers = list(pool._pool)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and all(p.exitcode is None for p in workers):
        time.sleep(0.05)
    assert any(p.exitcode == -signal.SIGKILL for p in workers)
    time.sleep(0.3)  # the pool has started the dead worker's replacement
    assert _ended_within(pool, 30)
    assert pool.abandoned and all(p.exitcode is not None for p in pool._pool)


def test_a_pool_of_live_workers_ends_by_its_own_terminate(monkeypatch):
    import multiprocessing

    from lkmlkb.ingest import pool
    from lkmlkb.ingest.pool import WorkerPool

    monkeypatch.setattr(pool, "TERMINATE_SECONDS", 1.0)
    pool = WorkerPool(2, context=multiprocessing.get_context("fork"))
    assert pool.apply_async(_megabytes, (1,)).get(60) == b"x" * (1 << 20)
    time.sleep(0.3)
    assert _ended_within(pool, 30)
    assert not pool.abandoned and all(p.exitcode is not None for p in pool._pool)
    assert not pool._worker_handler.is_alive() and not pool._result_handler.is_alive()


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
def test_the_pipes_to_and_from_the_workers_hold_a_mebibyte(tmp_path):
    """A batch or its result is megabytes: through Linux's default 64 KiB pipe its writer and
    reader woke for every 64 KiB.  The pool's task and result pipes hold PIPE_BYTES, and a
    result larger than that still arrives whole."""
    import fcntl
    import multiprocessing

    from lkmlkb.ingest.pool import PIPE_BYTES, WorkerPool, _widen_pipe

    pool = WorkerPool(2, context=multiprocessing.get_context("fork"))
    try:
        for q in (pool._inqueue, pool._outqueue):
            assert fcntl.fcntl(q._reader.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_BYTES == 1 << 20
        assert pool.apply_async(_megabytes, (3,)).get(60) == b"x" * (3 << 20)
    finally:
        pool.terminate()
        pool.join()
    with open(tmp_path / "f", "w") as f:  # not a pipe: left as it is
        _widen_pipe(f)
