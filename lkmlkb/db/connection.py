"""Opening the knowledge base: SQLite's settings for it, its migrations, its version check;
and the helpers every writer and reader of it shares (transactions, statements over many ids).

Writes happen in large transactions from one process, so a killed ingest
leaves the database as it was after the last committed batch, and the next
run completes it (every write is keyed by Message-ID and therefore idempotent).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from lkmlkb.db import views
from lkmlkb.db.schema import SCHEMA_VERSION, migrations
from lkmlkb.errors import DatabaseError


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


#: page size of a new knowledge base: most rows are whole messages (raw bytes, body), which at
#: SQLite's default 4 KiB spill into chains of overflow pages the writer walks (a database's page
#: size is fixed when it is created)
PAGE_SIZE = 16384

#: the writer's page cache, KiB (SQLite's default is 2 MiB: 128 of these pages).  Every new
#: message inserts into eight indexes keyed by random Message-IDs; once those outgrow the
#: cache, each insert re-reads leaf pages and spills dirty ones to the WAL mid-transaction,
#: to write them again (beyond 32 MiB a whole epoch of a list is stored no faster)
CACHE_KIB = 65536
#: pages written to the WAL before it is checkpointed into the database (SQLite: 1,000); a
#: page changed again before then is copied once; after a checkpoint the WAL file is cut
#: back to JOURNAL_LIMIT bytes
WAL_CHECKPOINT_PAGES = 10000
JOURNAL_LIMIT = 64 * 1024 * 1024


def connect(path: str | Path, create: bool = True, migrate: bool = False) -> sqlite_utils.Database:
    """Open (and migrate) the knowledge base at ``path``.  ``create=False``: it must exist and be
    one; ``migrate``: an existing knowledge base of an older schema is brought up to date (what
    ``lkmlkb reprocess`` does before it rebuilds)."""
    path = Path(path)
    if not create and not path.exists():
        raise DatabaseError(str(path), "no such knowledge base (run `lkmlkb ingest` first)")
    try:
        conn = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
        db = sqlite_utils.Database(conn)
        if create:
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # no effect on an existing database
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        db.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")
        db.execute(f"PRAGMA journal_size_limit={JOURNAL_LIMIT}")
        if not create:
            check_version(db, path, allow_pending=migrate)
            # a write undone: a read-only file fails here, not midway through the command
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("INSERT OR REPLACE INTO kb_info(key, value) SELECT key, value FROM kb_info")
            finally:
                db.execute("ROLLBACK")
            if not migrate:
                return db
        migrations.apply(db)
        views.apply(db)
        db.execute("INSERT OR REPLACE INTO kb_info(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
    except sqlite3.OperationalError as exc:
        if "readonly" in str(exc) or "read-only" in str(exc):
            raise DatabaseError(
                str(path), "is read-only (the file or its folder), and this command writes to it"
            ) from exc
        raise DatabaseError(str(path), f"not a usable SQLite database ({exc})") from exc
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(str(path), f"not a usable SQLite database ({exc})") from exc
    return db


def read_mode(path: str | Path) -> str:
    """How a reader opens the knowledge base at ``path``: ``"ro"`` (read-only, seeing what a writer
    commits) or, when SQLite cannot keep the WAL index beside it (a read-only folder),
    ``"immutable"`` (the file as it is, its WAL ignored).  DatabaseError when it is none."""
    path = Path(path)
    if path.is_dir():
        raise DatabaseError(str(path), "is a directory, not a knowledge base file")
    if not path.exists():
        raise DatabaseError(str(path), "no such knowledge base (run `lkmlkb ingest` first)")
    last: Exception | None = None
    for mode in ("ro", "immutable"):
        conn = _open_reader(path, mode)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return mode
        except sqlite3.OperationalError as exc:
            last = exc
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(str(path), f"not a usable SQLite database ({exc})") from exc
        finally:
            conn.close()
    raise DatabaseError(str(path), f"cannot be read ({last})")


def _open_reader(path: Path, mode: str) -> sqlite3.Connection:
    query = "mode=ro" if mode == "ro" else "immutable=1"
    return sqlite3.connect(
        f"{path.resolve().as_uri()}?{query}",
        uri=True,
        timeout=60,
        isolation_level=None,
        check_same_thread=False,
    )


def connect_readonly(path: str | Path) -> sqlite_utils.Database:
    """Open the knowledge base at ``path`` for reading: nothing is written to it or beside it
    (what ``reports``, ``search``, ``show``, ``commit``, ``repro`` and ``serve`` use), so it may
    sit in a read-only folder or be served while an ingest writes."""
    path = Path(path)
    db = sqlite_utils.Database(_open_reader(path, read_mode(path)))
    db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    check_version(db, path)
    return db


#: beside the knowledge base ``kb.db``: ``kb.db.lock``, held by the one writing run
LOCK_SUFFIX = ".lock"


@contextlib.contextmanager
def writer_lock(path: str | Path) -> Iterator[None]:
    """Hold the knowledge base's writer lock for the block; DatabaseError at once when another run
    holds it (two runs writing one base would interleave their report flushes).  The lock is an
    ``flock`` on ``<path>.lock``, released by the system when the run ends, however it ends."""
    lock_path = Path(str(path) + LOCK_SUFFIX)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise DatabaseError(str(path), f"cannot take its writer lock {lock_path} ({exc.strerror})") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatabaseError(
                str(path), "another lkmlkb run is writing to it; run this again once it has finished"
            ) from None
        yield
    finally:
        os.close(fd)


def database_path(db: sqlite_utils.Database) -> str:
    """The file of an open knowledge base (for another process to open it)."""
    return db.execute("PRAGMA database_list").fetchone()[2]


def check_version(db: sqlite_utils.Database, path, allow_pending: bool = False) -> None:
    try:
        row = db.execute("SELECT value FROM kb_info WHERE key='schema'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(str(path), "not an lkmlkb knowledge base (no kb_info table)") from exc
    if not row:
        raise DatabaseError(str(path), "not an lkmlkb knowledge base")
    if row[0] != SCHEMA_VERSION:
        raise DatabaseError(
            str(path),
            f"built by another version of lkmlkb (schema {row[0]}, "
            f"this is {SCHEMA_VERSION}); rebuild it with `lkmlkb ingest`",
        )
    pending = migrations.pending(db)
    if pending and not allow_pending:
        raise DatabaseError(
            str(path), "needs migrations; run `lkmlkb ingest` or `lkmlkb reprocess` to upgrade it"
        )


def max_variables(conn: sqlite3.Connection) -> int:
    """How many ``?`` one statement may hold (999 in old SQLite builds)."""
    try:
        return min(conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER), 32766)
    except (AttributeError, sqlite3.Error):
        return 999


def rows_in(conn: sqlite3.Connection, sql: str, ids: list, params: tuple = ()) -> Iterator[tuple]:
    """The rows of ``sql``, whose one ``IN ({marks})`` takes ``ids`` after the parameters
    ``params`` of the placeholders before it: 500 ids a statement (old SQLite builds allow
    999 variables)."""
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        yield from conn.execute(sql.replace("{marks}", ",".join("?" * len(chunk))), (*params, *chunk))


def has_table(conn, name: str) -> bool:
    """Whether the database holds a table or view ``name`` (an older knowledge base may not)."""
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name=?", (name,)
        ).fetchone()
        is not None
    )


@contextlib.contextmanager
def writing(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction: committed at the end of the block, rolled back if it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
