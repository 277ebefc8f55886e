"""The knowledge base: schema as migrations, idempotent writes, threading in SQL.

Only this module writes SQLite.  The schema is defined by the migrations
below (sqlite-utils ``Migrations``); ``schemas/kb.sql`` is generated from a
fresh database and a test keeps it current.  Writes happen in large
transactions from one process, so a killed ingest leaves the database as it
was after the last committed batch, and the next run completes it (every
write is keyed by Message-ID and therefore idempotent).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils
from sqlite_utils.migrations import Migrations

from lkmlkb.errors import DatabaseError
from lkmlkb.model import Message, Segment
from lkmlkb.threads.segments import Threader, normalize_subject, parent_of, references_of

log = logging.getLogger(__name__)

SCHEMA_VERSION = "lkmlkb-1"
migrations = Migrations("lkmlkb")


@migrations()
def m001_messages(db: sqlite_utils.Database) -> None:
    db.execute("""
    CREATE TABLE lists (
        name TEXT PRIMARY KEY,
        message_count INTEGER NOT NULL DEFAULT 0
    )""")
    db.execute("""
    CREATE TABLE threads (
        thread_id TEXT PRIMARY KEY,
        subject TEXT,
        topic TEXT,
        root_message_id TEXT,
        message_count INTEGER NOT NULL DEFAULT 0,
        first_date TEXT,
        last_date TEXT
    )""")
    db.execute("""
    CREATE TABLE messages (
        message_id TEXT PRIMARY KEY,
        thread_id TEXT,
        parent_id TEXT,
        subject TEXT,
        from_name TEXT,
        from_addr TEXT,
        from_obfuscated INTEGER NOT NULL DEFAULT 0,
        date_raw TEXT,
        date_utc TEXT,
        in_reply_to TEXT,
        "references" TEXT,
        to_addrs TEXT,
        cc_addrs TEXT,
        body TEXT,
        new_text TEXT,
        archive_url TEXT,
        source TEXT,
        synthetic_id INTEGER NOT NULL DEFAULT 0,
        content_hash TEXT,
        lists TEXT
    )""")
    db.execute("CREATE INDEX idx_messages_thread ON messages(thread_id, date_utc)")
    db.execute("CREATE INDEX idx_messages_date ON messages(date_utc)")
    db.execute("""
    CREATE TABLE raw_messages (
        message_id TEXT PRIMARY KEY REFERENCES messages(message_id) ON DELETE CASCADE,
        raw BLOB
    )""")
    db.execute("""
    CREATE TABLE message_lists (
        message_id TEXT NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
        list TEXT NOT NULL REFERENCES lists(name),
        PRIMARY KEY (message_id, list)
    )""")
    db.execute("""
    CREATE TABLE message_copies (
        message_id TEXT NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
        content_hash TEXT NOT NULL,
        source TEXT,
        locator TEXT,
        first_seen TEXT,
        PRIMARY KEY (message_id, content_hash)
    )""")
    # every id the threader has seen, ghosts (referenced, never received) included
    db.execute("""
    CREATE TABLE thread_members (
        message_id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL
    )""")
    db.execute("CREATE INDEX idx_thread_members_thread ON thread_members(thread_id)")
    db.execute("""
    CREATE TABLE thread_topics (
        topic TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL
    )""")
    db.execute("""
    CREATE TABLE segments (
        message_id TEXT NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        depth INTEGER NOT NULL DEFAULT 0,
        quotes_message_id TEXT,
        PRIMARY KEY (message_id, seq)
    )""")
    db.execute("""
    CREATE TABLE ingest_runs (
        id INTEGER PRIMARY KEY,
        started TEXT NOT NULL,
        finished TEXT,
        sources TEXT,
        new INTEGER NOT NULL DEFAULT 0,
        unchanged INTEGER NOT NULL DEFAULT 0,
        copies INTEGER NOT NULL DEFAULT 0,
        errors INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'running',
        lkmlkb_version TEXT
    )""")
    db.execute("""
    CREATE TABLE ingest_errors (
        id INTEGER PRIMARY KEY,
        run_id INTEGER REFERENCES ingest_runs(id),
        source TEXT,
        locator TEXT,
        stage TEXT NOT NULL,
        reason TEXT NOT NULL,
        message_id TEXT,
        raw BLOB,
        resolved INTEGER NOT NULL DEFAULT 0
    )""")
    db.execute("""
    CREATE TABLE source_state (
        source TEXT PRIMARY KEY,
        cursor TEXT NOT NULL,
        updated TEXT
    )""")
    db.execute("""
    CREATE TABLE kb_info (
        key TEXT PRIMARY KEY,
        value TEXT
    )""")
    db["messages"].enable_fts(["subject", "new_text"], tokenize="porter unicode61 tokenchars '-_'",
                              create_triggers=True)


@migrations()
def m002_findings_and_reports(db: sqlite_utils.Database) -> None:
    """What extraction and report building produce; replaced wholesale on reprocess."""
    prov = """
        message_id TEXT NOT NULL,
        thread_id TEXT,
        line_start INTEGER,
        line_end INTEGER,
        evidence TEXT,
        quoted INTEGER NOT NULL DEFAULT 0"""
    db.execute(f"""
    CREATE TABLE fio_jobs (
        id INTEGER PRIMARY KEY,
        report_id TEXT,
        name TEXT,
        form TEXT NOT NULL,
        options TEXT NOT NULL,
        global_options TEXT,
        normalized TEXT,
        unknown_options TEXT,
        notes TEXT,
        rw TEXT, bs TEXT, ioengine TEXT, iodepth TEXT, numjobs TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE results (
        id INTEGER PRIMARY KEY,
        report_id TEXT,
        kernel TEXT,
        kernel_sort TEXT,
        label TEXT,
        config TEXT,
        tool TEXT,
        metric TEXT NOT NULL,
        direction TEXT,
        value REAL NOT NULL,
        unit TEXT,
        normalized_value REAL,
        normalized_unit TEXT,
        stddev REAL,
        samples TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE kernel_mentions (
        id INTEGER PRIMARY KEY,
        version TEXT NOT NULL,
        raw TEXT,
        sort_key TEXT,
        role TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE commit_citations (
        id INTEGER PRIMARY KEY,
        sha TEXT NOT NULL,
        subject TEXT,
        role TEXT NOT NULL,
        cue TEXT,
        form TEXT,
        range_end TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE setup_facts (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE claims (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        stated_pct REAL,
        metric TEXT,
        cue TEXT,
        {prov}
    )""")
    db.execute("""
    CREATE TABLE extraction_errors (
        message_id TEXT NOT NULL,
        extractor TEXT NOT NULL,
        reason TEXT NOT NULL,
        at TEXT,
        PRIMARY KEY (message_id, extractor)
    )""")
    db.execute("""
    CREATE TABLE extracted_messages (
        message_id TEXT PRIMARY KEY,
        extractor_version TEXT NOT NULL,
        prefilter_passed INTEGER NOT NULL,
        extra TEXT
    )""")
    for t in ("fio_jobs", "results", "kernel_mentions", "commit_citations", "setup_facts", "claims"):
        db.execute(f"CREATE INDEX idx_{t}_message ON {t}(message_id)")
        db.execute(f"CREATE INDEX idx_{t}_thread ON {t}(thread_id)")
    db.execute("CREATE INDEX idx_commit_citations_sha ON commit_citations(sha)")
    db.execute("""
    CREATE TABLE reports (
        report_id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        title TEXT,
        is_regression_report INTEGER NOT NULL DEFAULT 0,
        kind TEXT,
        status TEXT,
        workload TEXT,
        tools TEXT,
        good_kernel TEXT,
        bad_kernel TEXT,
        stated_pct REAL,
        computed_pct REAL,
        regression_pct REAL,
        pct_disagrees INTEGER NOT NULL DEFAULT 0,
        headline_metric TEXT,
        baseline_value REAL,
        regressed_value REAL,
        unit TEXT,
        culprits TEXT,
        fixes TEXT,
        fio_version TEXT,
        scheduler TEXT,
        filesystem TEXT,
        device_class TEXT,
        people TEXT,
        lists TEXT,
        first_date TEXT,
        last_date TEXT,
        message_count INTEGER,
        first_message_id TEXT,
        summary TEXT,
        built TEXT
    )""")
    db.execute("CREATE INDEX idx_reports_date ON reports(last_date)")
    db.execute("""
    CREATE TABLE report_kernels (
        report_id TEXT NOT NULL REFERENCES reports(report_id) ON DELETE CASCADE,
        version TEXT NOT NULL,
        sort_key TEXT,
        role TEXT,
        PRIMARY KEY (report_id, version)
    )""")
    db.execute("""
    CREATE TABLE report_commits (
        report_id TEXT NOT NULL REFERENCES reports(report_id) ON DELETE CASCADE,
        sha TEXT NOT NULL,
        subject TEXT,
        role TEXT NOT NULL,
        message_id TEXT,
        line_start INTEGER,
        line_end INTEGER,
        cue TEXT,
        PRIMARY KEY (report_id, sha, role)
    )""")
    db.execute("CREATE INDEX idx_report_commits_sha ON report_commits(sha)")
    db.execute("""
    CREATE TABLE setups (
        report_id TEXT NOT NULL REFERENCES reports(report_id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        message_id TEXT,
        PRIMARY KEY (report_id, key, value)
    )""")
    db.execute("""
    CREATE TABLE commits (
        sha TEXT PRIMARY KEY,
        full_sha TEXT,
        status TEXT,
        subject TEXT,
        subject_in_mail TEXT,
        subject_matches INTEGER,
        author TEXT,
        date TEXT,
        first_tag TEXT,
        candidates TEXT,
        fixed_by TEXT,
        linked_by TEXT,
        tree TEXT,
        checked TEXT
    )""")
    db["reports"].enable_fts(["title", "summary", "workload"], tokenize="porter unicode61 tokenchars '-_'",
                             create_triggers=True)


MESSAGE_COLUMNS = (
    "message_id", "thread_id", "parent_id", "subject", "from_name", "from_addr", "from_obfuscated",
    "date_raw", "date_utc", "in_reply_to", "references", "to_addrs", "cc_addrs", "body", "new_text",
    "archive_url", "source", "synthetic_id", "content_hash", "lists",
)


#: tables of what the extractors found per message (each row names its message and thread)
FINDING_TABLES = ("fio_jobs", "results", "kernel_mentions", "commit_citations", "setup_facts", "claims")
#: tables of a report's rows besides ``reports`` itself (keyed by report_id)
REPORT_TABLES = ("report_kernels", "report_commits", "setups")


def content_hash(msg: Message) -> str:
    """Identity of a delivery: the raw bytes (public-inbox hashes headers + body)."""
    return hashlib.sha256(msg.raw or msg.body.encode("utf-8", "replace")).hexdigest()


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SqlBackend:
    """Threader backend over ``thread_members`` / ``thread_topics``.

    Within a batch (:meth:`prefetch` .. :meth:`forget`) the thread of every id
    the batch names is read in one query and kept up to date by ``assign`` and
    ``merge``; the rows ``assign`` gives are written together by :meth:`flush`
    (one statement per batch instead of one per message: a tenth of the
    writer's SQL time on the linux-block epoch), before anything reads or
    updates ``thread_members``.
    """

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.known: dict[str, str] | None = None
        self.absent: set[str] = set()
        self.unwritten: dict[str, str] = {}  # id -> thread: assigned in the batch, not yet written
        self.unwritten_topics: dict[str, str] = {}  # topic -> thread: remembered in the batch, not yet written

    def _select(self, ids: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            q = "SELECT message_id, thread_id FROM thread_members WHERE message_id IN (%s)" % ",".join("?" * len(chunk))
            out.update(self.conn.execute(q, chunk).fetchall())
        return out

    def prefetch(self, ids: Iterable[str]) -> None:
        ids = list(dict.fromkeys(ids))
        self.known = self._select(ids)
        self.absent = set(ids) - self.known.keys()

    def forget(self) -> None:
        """End of a batch: after its transaction (``flush`` ran) or its rollback (nothing to write)."""
        self.known = None
        self.absent = set()
        self.unwritten = {}
        self.unwritten_topics = {}

    def flush(self) -> None:
        """Write the rows assigned and the topics remembered in this batch (each id with its
        latest thread; a topic already stored keeps its thread)."""
        if self.unwritten:
            self.conn.executemany("INSERT OR REPLACE INTO thread_members(message_id, thread_id) VALUES (?, ?)",
                                  list(self.unwritten.items()))
            self.unwritten = {}
        if self.unwritten_topics:
            self.conn.executemany("INSERT OR IGNORE INTO thread_topics(topic, thread_id) VALUES (?, ?)",
                                  list(self.unwritten_topics.items()))
            self.unwritten_topics = {}

    def lookup(self, ids: Iterable[str]) -> dict[str, str]:
        if self.known is None:
            return self._select(list(ids))
        out: dict[str, str] = {}
        miss = []
        for i in ids:
            t = self.known.get(i)
            if t is not None:
                out[i] = t
            elif i not in self.absent:
                miss.append(i)
        if miss:
            got = self._select(miss)
            self.known.update(got)
            self.absent.update(i for i in miss if i not in got)
            out.update(got)
        return out

    def assign(self, ids: Iterable[str], thread: str) -> None:
        for i in ids:
            self.unwritten[i] = thread
            if self.known is not None:
                self.known[i] = thread  # what lookup answers; every unwritten id is known
                self.absent.discard(i)
        if self.known is None:  # outside a batch: written at once
            self.flush()

    def merge(self, old: str, new: str) -> None:
        """Thread ``old`` joins ``new``: its members, findings and topics move; its report goes.

        The merged thread's report is rebuilt at the end of the batch's
        report flush (the message that joined the threads is new in it).
        """
        c = self.conn
        self.flush()
        c.execute("UPDATE thread_members SET thread_id=? WHERE thread_id=?", (new, old))
        c.execute("UPDATE messages SET thread_id=? WHERE thread_id=?", (new, old))
        c.execute("UPDATE thread_topics SET thread_id=? WHERE thread_id=?", (new, old))
        c.execute("DELETE FROM threads WHERE thread_id=?", (old,))
        for t in FINDING_TABLES:
            c.execute(f"UPDATE {t} SET thread_id=? WHERE thread_id=?", (new, old))
        for t in ("results", "fio_jobs"):
            c.execute(f"UPDATE {t} SET report_id=NULL WHERE report_id=?", (old,))
        for t in (*REPORT_TABLES, "reports"):
            c.execute(f"DELETE FROM {t} WHERE report_id=?", (old,))
        if self.known is not None:
            for i, t in self.known.items():
                if t == old:
                    self.known[i] = new

    def subject_thread(self, key: str) -> str | None:
        row = self.conn.execute("SELECT thread_id FROM thread_topics WHERE topic=?", (key,)).fetchone()
        return row[0] if row else self.unwritten_topics.get(key)

    def remember_subject(self, key: str, thread: str) -> None:
        self.unwritten_topics.setdefault(key, thread)  # the first thread named stays, as INSERT OR IGNORE keeps it
        if self.known is None:  # outside a batch: written at once
            self.flush()


@dataclass
class StoreOutcome:
    new: int = 0
    unchanged: int = 0
    copies: int = 0
    errors: int = 0


#: page size of a new knowledge base: most rows are whole messages (raw bytes, body), which at
#: SQLite's default 4 KiB spill into chains of overflow pages; 16 KiB pages cut the writer's CPU
#: by about a tenth (a database's page size is fixed when it is created)
PAGE_SIZE = 16384

#: the writer's page cache, KiB (SQLite's default is 2 MiB: 128 of these pages).  Every new
#: message inserts into eight indexes keyed by random Message-IDs; once those outgrow the
#: cache, each insert re-reads leaf pages and spills dirty ones to the WAL mid-transaction,
#: to write them again.  Measured: the store of linux-block's epoch (100,815 messages,
#: 1.8 GB) took 34-37 CPU-s with the default and 26-27 with 32 or 64 MiB
CACHE_KIB = 65536
#: pages written to the WAL before it is checkpointed into the database (SQLite: 1,000); a
#: page changed again before then is copied once; after a checkpoint the WAL file is cut
#: back to JOURNAL_LIMIT bytes
WAL_CHECKPOINT_PAGES = 10000
JOURNAL_LIMIT = 64 * 1024 * 1024


def connect(path: str | Path, create: bool = True) -> sqlite_utils.Database:
    """Open (and migrate) the knowledge base at ``path``."""
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
            check_version(db, path)
            return db
        migrations.apply(db)
        from lkmlkb.db import views as schema_views

        schema_views.apply(db)
        db.execute("INSERT OR REPLACE INTO kb_info(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(str(path), f"not a usable SQLite database ({exc})") from exc
    return db


#: with a :class:`Checkpointer`, the WAL is checkpointed once about this many bytes of messages
#: (raw and body) were stored since it started over: their rows, index entries and FTS terms
#: fill about twice as many bytes of WAL pages
CHECKPOINT_EVERY_BYTES = 64 * 1024 * 1024


class Checkpointer:
    """Checkpoints the writer's WAL from a thread of its own, for a long run of writes (the ingest).

    A checkpoint copies the WAL into the database and syncs both files.  SQLite's automatic
    checkpoints run in the writing thread, at a commit: the ingest's writer stopped there for
    the syncs (4.7-5.4 s over linux-block's epoch, in bursts of 0.2-0.5 s), and the workers,
    whose next batches it hands out, ran dry meanwhile.  Here, once CHECKPOINT_EVERY_BYTES of
    messages were stored, a cycle runs, driven by the writer's calls to :meth:`wrote` between
    its transactions:

    1. a thread with its own connection copies and syncs what the WAL holds, in ROUNDS rounds
       (PASSIVE: the writer goes on writing; each round has less to copy than the one before);
    2. the writer copies the little written meanwhile itself (:meth:`_copy_rest`), so that the
       WAL starts over at its next write: a WAL always written while it is copied never does
       (checkpoints from a thread alone let it grow to 4.1 GB);
    3. at its next calls the writer checks that the WAL did start over (its header's
       checkpoint counter and salts, ``WAL_GENERATION``, changed); a reader holding an older
       snapshot can keep it from doing so, and then the writer copies again.
    """

    #: rounds the thread runs before the writer copies the rest
    ROUNDS = 2
    #: where a WAL file's header holds its checkpoint sequence number and salts, which change
    #: whenever the WAL starts over (SQLite's file format, "WAL File Format")
    WAL_GENERATION = slice(12, 24)

    def __init__(self, db: sqlite_utils.Database, path: str | Path):
        self.conn = db.conn
        self.db_path = Path(path)
        self.own = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
        self.own.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA wal_autocheckpoint=0")
        self.pending = 0  # bytes of messages stored since the last cycle
        self.rounds = 0  # rounds the thread ran
        self._out = 0  # rounds of the cycle out with the thread, this one included
        self._settling: bytes | None = None  # after the writer's copy: the WAL's generation then
        self._closed = False
        self._wake = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lkmlkb-checkpoint", daemon=True)
        self._thread.start()

    def wrote(self, nbytes: int) -> None:
        """Called by the writer between transactions, ``nbytes`` of messages later."""
        self.pending += nbytes
        if self._out:
            if not self._done.is_set():
                return
            self._out -= 1
            if self._out:
                self._start()
            else:
                self._copy_rest()
        elif self._settling is not None:
            if self._generation() == self._settling:  # it did not start over: copy again
                self._copy_rest()
            else:
                self._settling = None
        if not self._out and self.pending >= CHECKPOINT_EVERY_BYTES:
            self.pending = 0
            self._settling = None
            self._out = self.ROUNDS
            self._start()

    def _start(self) -> None:
        self._done.clear()
        self._wake.set()

    def _copy_rest(self) -> None:
        try:
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:  # as SQLite's own checkpoints, a failure stops no write
            log.info("%s: checkpoint failed: %s", self.db_path, exc)
        self._settling = self._generation()

    def _generation(self) -> bytes:
        try:
            with open(f"{self.db_path}-wal", "rb") as f:
                return f.read(24)[self.WAL_GENERATION]
        except OSError:
            return b""

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            try:
                self._checkpoint()
            except Exception as exc:  # the thread must live on: the writer waits for its rounds
                log.info("%s: checkpoint failed: %s", self.db_path, exc)
            finally:
                self._done.set()

    def _checkpoint(self) -> tuple[int, int, int]:
        """One round: (busy, frames in the WAL, frames copied), as SQLite answers."""
        row = self.own.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.rounds += 1
        return row

    def close(self) -> None:
        """Stop the thread (after a round it runs) and give checkpoints back to SQLite; once."""
        if self._closed:
            return
        self._closed = True
        self._wake.set()
        self._thread.join()
        self.own.close()
        self.conn.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")


def check_version(db: sqlite_utils.Database, path) -> None:
    try:
        row = db.execute("SELECT value FROM kb_info WHERE key='schema'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(str(path), "not an lkmlkb knowledge base (no kb_info table)") from exc
    if not row:
        raise DatabaseError(str(path), "not an lkmlkb knowledge base")
    if row[0] != SCHEMA_VERSION:
        raise DatabaseError(str(path), f"built by another version of lkmlkb (schema {row[0]}, "
                                       f"this is {SCHEMA_VERSION}); rebuild it with `lkmlkb ingest`")
    pending = migrations.pending(db)
    if pending:
        raise DatabaseError(str(path), "needs migrations; run `lkmlkb ingest` or `lkmlkb reprocess` to upgrade it")


def _max_variables(conn: sqlite3.Connection) -> int:
    """How many ``?`` one statement may hold (999 in old SQLite builds)."""
    try:
        return min(conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER), 32766)
    except (AttributeError, sqlite3.Error):
        return 999


class Store:
    """Writes messages in batches; one instance per ingest run."""

    def __init__(self, db: sqlite_utils.Database):
        self.db = db
        self.conn: sqlite3.Connection = db.conn
        self.backend = SqlBackend(self.conn)
        self.threader = Threader(self.backend)
        self.run_id: int | None = None
        self.outcome = StoreOutcome()

    # -- runs
    def start_run(self, sources: list[str]) -> int:
        from lkmlkb import __version__

        cur = self.conn.execute(
            "INSERT INTO ingest_runs(started, sources, lkmlkb_version) VALUES (?, ?, ?)",
            (now(), json.dumps(sources), __version__))
        self.run_id = cur.lastrowid
        return self.run_id

    def finish_run(self, status: str = "done") -> None:
        o = self.outcome
        self.conn.execute(
            "UPDATE ingest_runs SET finished=?, new=?, unchanged=?, copies=?, errors=?, status=? WHERE id=?",
            (now(), o.new, o.unchanged, o.copies, o.errors, status, self.run_id))

    # -- errors
    def record_error(self, source: str, locator: str, stage: str, reason: str,
                     raw: bytes | None = None, message_id: str | None = None) -> None:
        self.outcome.errors += 1
        self.conn.execute(
            "INSERT INTO ingest_errors(run_id, source, locator, stage, reason, message_id, raw) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.run_id, source, locator, stage, reason[:2000], message_id, raw))

    # -- cursors for incremental sources
    def get_cursor(self, source: str) -> str | None:
        row = self.conn.execute("SELECT cursor FROM source_state WHERE source=?", (source,)).fetchone()
        return row[0] if row else None

    def set_cursor(self, source: str, cursor: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO source_state(source, cursor, updated) VALUES (?, ?, ?)",
                          (source, cursor, now()))

    # -- messages
    def known(self, ids: list[str]) -> dict[str, str]:
        """message_id -> content_hash for ids already stored."""
        out: dict[str, str] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            q = "SELECT message_id, content_hash FROM messages WHERE message_id IN (%s)" % ",".join("?" * len(chunk))
            out.update(self.conn.execute(q, chunk).fetchall())
        return out

    def write_batch(self, items: list[tuple]) -> list[Message]:
        """Store a batch of (message, segments, new_text[, content_hash]) in one transaction.

        The content hash, when given, is :func:`content_hash` of the message
        (the ingest's workers compute it beside parsing).

        Returns the messages that were new.  A Message-ID seen before is a
        second delivery: its lists are merged and, if its bytes differ, the
        copy is recorded in ``message_copies``.

        New messages are threaded one by one but written together
        (:meth:`_write_new`), in batch order, so every table gets its rows in
        the same order (and rowids) as row-by-row writes would give.
        """
        if not items:
            return []
        c = self.conn
        new_msgs: list[Message] = []
        touched_threads: set[str] = set()
        before = StoreOutcome(**vars(self.outcome))
        stamp = now()
        c.execute("BEGIN IMMEDIATE")
        try:
            known = self.known([m.message_id for m, *_ in items])
            self.backend.prefetch(i for m, *_ in items if m.message_id not in known
                                  for i in (*references_of(m), m.message_id))
            seen_here: set[str] = set()
            pending: list[tuple[Message, list[Segment], str, str]] = []
            for msg, segs, text, *given in items:
                h = given[0] if given and given[0] else content_hash(msg)
                if msg.message_id in known or msg.message_id in seen_here:
                    # a second delivery: its first must be stored before its lists and copy
                    self._write_new(pending, stamp)
                    pending = []
                    self._add_lists(msg.message_id, msg.lists)
                    first = known.get(msg.message_id)
                    if first is not None and first == h:
                        self.outcome.unchanged += 1
                    else:
                        cur = c.execute(
                            "INSERT OR IGNORE INTO message_copies(message_id, content_hash, source, locator, first_seen) "
                            "VALUES (?, ?, ?, ?, ?)", (msg.message_id, h, msg.source, "", stamp))
                        if cur.rowcount:
                            self.outcome.copies += 1
                        else:
                            self.outcome.unchanged += 1
                    continue
                seen_here.add(msg.message_id)
                touched_threads.add(self.threader.add(msg))
                pending.append((msg, segs, text, h))
                new_msgs.append(msg)
                self.outcome.new += 1
            self._write_new(pending, stamp)
            self.backend.flush()
            self._refresh_threads(touched_threads)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            self.outcome = before  # nothing of the batch was stored: neither are its counts
            raise
        finally:
            self.backend.forget()
        return new_msgs

    def _write_new(self, pending: list[tuple[Message, list[Segment], str, str]], stamp: str) -> None:
        """Insert threaded new messages (message, segments, new_text, content hash), in order.

        A message's thread is read back from the threader (``thread_members``):
        a merge later in the batch has moved it there, as it moves stored
        messages.  The rows go in as multi-row INSERTs: FTS5 flushes its
        pending terms at every statement its trigger runs in, so one row per
        statement made a segment per message (measured: 3,995 messages, 1.3 s
        against 0.55 s).
        """
        if not pending:
            return
        c = self.conn
        ids = [m.message_id for m, _, _, _ in pending]
        thread_of = self.backend.lookup(ids)
        rows = []
        for msg, _, text, h in pending:
            refs = [*msg.references]
            if msg.in_reply_to and msg.in_reply_to not in refs:
                refs.append(msg.in_reply_to)
            rows.append((msg.message_id, thread_of[msg.message_id], parent_of(msg), msg.subject, msg.from_name,
                         msg.from_addr, int(msg.from_obfuscated), msg.date_raw, msg.date_utc, msg.in_reply_to,
                         json.dumps(refs), msg.to, msg.cc, msg.body, text, msg.archive_url, msg.source,
                         int(msg.synthetic_id), h, json.dumps(msg.lists)))
        per = max(1, min(len(rows), _max_variables(c) // len(MESSAGE_COLUMNS)))
        cols = ",".join(f'"{k}"' for k in MESSAGE_COLUMNS)
        one = "(%s)" % ",".join("?" * len(MESSAGE_COLUMNS))
        for i in range(0, len(rows), per):
            part = rows[i:i + per]
            c.execute(f"INSERT INTO messages({cols}) VALUES " + ",".join([one] * len(part)),
                      [v for r in part for v in r])
        c.executemany("INSERT INTO raw_messages(message_id, raw) VALUES (?, ?)",
                      [(m.message_id, m.raw) for m, _, _, _ in pending])
        c.executemany("INSERT OR IGNORE INTO message_copies(message_id, content_hash, source, locator, first_seen) "
                      "VALUES (?, ?, ?, ?, ?)", [(m.message_id, h, m.source, "first", stamp) for m, _, _, h in pending])
        self._add_lists_new([(m.message_id, m.lists) for m, _, _, _ in pending])
        c.executemany(
            "INSERT INTO segments(message_id, seq, kind, line_start, line_end, depth, quotes_message_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(m.message_id, n, s.kind, s.line_start, s.line_end, s.depth, s.quotes_message_id)
             for m, segs, _, _ in pending for n, s in enumerate(segs)])

    def _add_lists(self, mid: str, lists: list[str]) -> None:
        for name in lists:
            self.conn.execute("INSERT OR IGNORE INTO lists(name) VALUES (?)", (name,))
            cur = self.conn.execute("INSERT OR IGNORE INTO message_lists(message_id, list) VALUES (?, ?)", (mid, name))
            if cur.rowcount:
                self.conn.execute("UPDATE lists SET message_count = message_count + 1 WHERE name=?", (name,))

    def _add_lists_new(self, filed: list[tuple[str, list[str]]]) -> None:
        """:meth:`_add_lists` for many messages at once: same rows, same order, same counts."""
        c = self.conn
        pairs = [(mid, name) for mid, names in filed for name in names]
        if not pairs:
            return
        have: set[tuple[str, str]] = set()
        ids = list(dict.fromkeys(mid for mid, _ in pairs))
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            have.update(c.execute("SELECT message_id, list FROM message_lists WHERE message_id IN (%s)"
                                  % ",".join("?" * len(chunk)), chunk).fetchall())
        added: dict[str, int] = {}
        for pair in pairs:
            if pair not in have:
                have.add(pair)
                added[pair[1]] = added.get(pair[1], 0) + 1
        c.executemany("INSERT OR IGNORE INTO lists(name) VALUES (?)", [(name,) for _, name in pairs])
        c.executemany("INSERT OR IGNORE INTO message_lists(message_id, list) VALUES (?, ?)", pairs)
        c.executemany("UPDATE lists SET message_count = message_count + ? WHERE name=?",
                      [(n, name) for name, n in added.items()])

    def _refresh_threads(self, threads: set[str]) -> None:
        """Count, dates, root and subject of each thread, read for all of them at once (per 500).

        The root: a message whose parent is not in the thread, oldest first
        (undated last, then in storage order).
        """
        c = self.conn
        order = list(threads)
        for i in range(0, len(order), 500):
            chunk = order[i:i + 500]
            marks = ",".join("?" * len(chunk))
            # a thread merged into another during the batch has no members left
            live = {r[0] for r in c.execute(
                f"SELECT DISTINCT thread_id FROM thread_members WHERE thread_id IN ({marks})", chunk)}
            stats = {r[0]: r[1:] for r in c.execute(
                f"SELECT thread_id, count(*), min(date_utc), max(date_utc) FROM messages WHERE thread_id IN ({marks}) "
                "GROUP BY thread_id", chunk)}
            roots: dict[str, tuple] = {}
            for t, mid, subject, *key in c.execute(
                    "SELECT thread_id, message_id, subject, EXISTS(SELECT 1 FROM messages p WHERE p.message_id = "
                    "m.parent_id AND p.thread_id = m.thread_id), date_utc IS NULL, date_utc, rowid "
                    f"FROM messages m WHERE thread_id IN ({marks})", chunk):
                if t not in roots or key < roots[t][0]:
                    roots[t] = (key, mid, subject)
            rows = []
            for t in chunk:
                if t not in live:
                    continue
                count, first, last = stats.get(t, (0, None, None))
                _, root, subject = roots.get(t, (None, None, None))
                rows.append((t, subject, normalize_subject(subject or ""), root, count, first, last))
            c.executemany(
                "INSERT INTO threads(thread_id, subject, topic, root_message_id, message_count, first_date, last_date) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET subject=excluded.subject, "
                "topic=excluded.topic, root_message_id=excluded.root_message_id, "
                "message_count=excluded.message_count, first_date=excluded.first_date, last_date=excluded.last_date",
                rows)


def has_messages(conn: sqlite3.Connection) -> bool:
    """Does the knowledge base hold any message yet?"""
    return conn.execute("SELECT 1 FROM messages LIMIT 1").fetchone() is not None


def known_copies(conn: sqlite3.Connection, ids: list[str]) -> dict[str, tuple[set[str], set[str]]]:
    """message_id -> (content hashes of every stored delivery, lists it is filed under), for stored ids."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for mid, h in conn.execute(f"SELECT message_id, content_hash FROM message_copies WHERE message_id IN ({marks})",
                                   chunk):
            out.setdefault(mid, (set(), set()))[0].add(h)
        for mid, name in conn.execute(f"SELECT message_id, list FROM message_lists WHERE message_id IN ({marks})",
                                      chunk):
            if mid in out:
                out[mid][1].add(name)
    return out


__all__ = ["Store", "connect", "content_hash", "migrations"]
