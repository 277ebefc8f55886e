"""The message store: messages written in batches, threaded as they are written, and read back.

Only the db package writes SQLite.  Every write is keyed by Message-ID: a
second delivery of a message merges its lists and records its copy.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

import sqlite_utils

from lkmlkb import __version__
from lkmlkb.db.connection import max_variables, now, rows_in
from lkmlkb.db.schema import FINDING_TABLES, REPORT_TABLES
from lkmlkb.model import (
    Message,
    Segment,
)
from lkmlkb.threads.threader import Threader, normalize_subject, parent_of, references_of

MESSAGE_COLUMNS = (
    "message_id",
    "thread_id",
    "parent_id",
    "subject",
    "from_name",
    "from_addr",
    "from_obfuscated",
    "date_raw",
    "date_utc",
    "in_reply_to",
    "references",
    "to_addrs",
    "cc_addrs",
    "body",
    "new_text",
    "archive_url",
    "source",
    "synthetic_id",
    "content_hash",
    "lists",
)


def content_hash(msg: Message) -> str:
    """Identity of a delivery: the raw bytes (public-inbox hashes headers + body)."""
    return hashlib.sha256(msg.raw or msg.body.encode("utf-8", "replace")).hexdigest()


class SqlBackend:
    """Threader backend over ``thread_members`` / ``thread_topics``.

    Within a batch (:meth:`prefetch` .. :meth:`forget`) the thread of every id
    the batch names is read in one query and kept up to date by ``assign`` and
    ``merge``; the rows ``assign`` gives are written together by :meth:`flush`
    (one statement per batch instead of one per message), before anything
    reads or updates ``thread_members``.
    """

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.known: dict[str, str] | None = None
        self.absent: set[str] = set()
        self.unwritten: dict[str, str] = {}  # id -> thread: assigned in the batch, not yet written
        self.unwritten_topics: dict[
            str, str
        ] = {}  # topic -> thread: remembered in the batch, not yet written

    def _select(self, ids: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            q = "SELECT message_id, thread_id FROM thread_members WHERE message_id IN (%s)" % ",".join(
                "?" * len(chunk)
            )
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
            self.conn.executemany(
                "INSERT OR REPLACE INTO thread_members(message_id, thread_id) VALUES (?, ?)",
                list(self.unwritten.items()),
            )
            self.unwritten = {}
        if self.unwritten_topics:
            self.conn.executemany(
                "INSERT OR IGNORE INTO thread_topics(topic, thread_id) VALUES (?, ?)",
                list(self.unwritten_topics.items()),
            )
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
        self.unwritten_topics.setdefault(
            key, thread
        )  # the first thread named stays, as INSERT OR IGNORE keeps it
        if self.known is None:  # outside a batch: written at once
            self.flush()


@dataclass
class StoreOutcome:
    new: int = 0
    unchanged: int = 0
    copies: int = 0
    errors: int = 0


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
    def start_run(self, sources: list[str]) -> int | None:
        cur = self.conn.execute(
            "INSERT INTO ingest_runs(started, sources, lkmlkb_version) VALUES (?, ?, ?)",
            (now(), json.dumps(sources), __version__),
        )
        self.run_id = cur.lastrowid
        return self.run_id

    def finish_run(self, status: str = "done") -> None:
        o = self.outcome
        self.conn.execute(
            "UPDATE ingest_runs SET finished=?, new=?, unchanged=?, copies=?, errors=?, status=? WHERE id=?",
            (now(), o.new, o.unchanged, o.copies, o.errors, status, self.run_id),
        )

    # -- errors
    def record_error(
        self,
        source: str,
        locator: str,
        stage: str,
        reason: str,
        raw: bytes | None = None,
        message_id: str | None = None,
    ) -> None:
        self.outcome.errors += 1
        self.conn.execute(
            "INSERT INTO ingest_errors(run_id, source, locator, stage, reason, message_id, raw) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.run_id, source, locator, stage, reason[:2000], message_id, raw),
        )

    def retryable_errors(self) -> list[tuple[int, str, str, str, bytes | None]]:
        """(id, stage, source, locator, raw) of the unresolved errors worth another try: messages
        kept raw that failed to parse, and messages of a public-inbox epoch (``repo.git@commit``,
        the blob's 40-digit id) whose git object was missing."""
        return self.conn.execute(
            "SELECT id, stage, source, locator, raw FROM ingest_errors WHERE resolved = 0 AND "
            "((stage = 'parse' AND raw IS NOT NULL) OR (stage = 'read' AND raw IS NULL AND "
            "length(locator) = 40 AND source LIKE '%@%')) ORDER BY id"
        ).fetchall()

    def still_failing(self, error_id: int, reason: str) -> None:
        """An error tried again that failed again, with its new reason."""
        self.conn.execute("UPDATE ingest_errors SET reason = ? WHERE id = ?", (reason[:2000], error_id))

    def resolved(self, error_id: int, message_id: str) -> None:
        """An error tried again whose message is now stored."""
        self.conn.execute(
            "UPDATE ingest_errors SET resolved = 1, message_id = ? WHERE id = ?", (message_id, error_id)
        )

    # -- cursors for incremental sources
    def get_cursor(self, source: str) -> str | None:
        row = self.conn.execute("SELECT cursor FROM source_state WHERE source=?", (source,)).fetchone()
        return row[0] if row else None

    def set_cursor(self, source: str, cursor: str) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO source_state(source, cursor, updated) VALUES (?, ?, ?)",
            (source, cursor, now()),
        )

    # -- messages
    def known(self, ids: list[str]) -> dict[str, str]:
        """message_id -> content_hash for ids already stored."""
        out: dict[str, str] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            q = "SELECT message_id, content_hash FROM messages WHERE message_id IN (%s)" % ",".join(
                "?" * len(chunk)
            )
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
            self.backend.prefetch(
                i for m, *_ in items if m.message_id not in known for i in (*references_of(m), m.message_id)
            )
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
                            "VALUES (?, ?, ?, ?, ?)",
                            (msg.message_id, h, msg.source, "", stamp),
                        )
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
        statement would make an index segment per message.
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
            rows.append(
                (
                    msg.message_id,
                    thread_of[msg.message_id],
                    parent_of(msg),
                    msg.subject,
                    msg.from_name,
                    msg.from_addr,
                    int(msg.from_obfuscated),
                    msg.date_raw,
                    msg.date_utc,
                    msg.in_reply_to,
                    json.dumps(refs),
                    msg.to,
                    msg.cc,
                    msg.body,
                    text,
                    msg.archive_url,
                    msg.source,
                    int(msg.synthetic_id),
                    h,
                    json.dumps(msg.lists),
                )
            )
        per = max(1, min(len(rows), max_variables(c) // len(MESSAGE_COLUMNS)))
        cols = ",".join(f'"{k}"' for k in MESSAGE_COLUMNS)
        one = "(%s)" % ",".join("?" * len(MESSAGE_COLUMNS))
        for i in range(0, len(rows), per):
            part = rows[i : i + per]
            c.execute(
                f"INSERT INTO messages({cols}) VALUES " + ",".join([one] * len(part)),
                [v for r in part for v in r],
            )
        c.executemany(
            "INSERT INTO raw_messages(message_id, raw) VALUES (?, ?)",
            [(m.message_id, m.raw) for m, _, _, _ in pending],
        )
        c.executemany(
            "INSERT OR IGNORE INTO message_copies(message_id, content_hash, source, locator, first_seen) "
            "VALUES (?, ?, ?, ?, ?)",
            [(m.message_id, h, m.source, "first", stamp) for m, _, _, h in pending],
        )
        self._add_lists_new([(m.message_id, m.lists) for m, _, _, _ in pending])
        c.executemany(
            "INSERT INTO segments(message_id, seq, kind, line_start, line_end, depth, quotes_message_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (m.message_id, n, s.kind, s.line_start, s.line_end, s.depth, s.quotes_message_id)
                for m, segs, _, _ in pending
                for n, s in enumerate(segs)
            ],
        )

    def _add_lists(self, mid: str, lists: list[str]) -> None:
        for name in lists:
            self.conn.execute("INSERT OR IGNORE INTO lists(name) VALUES (?)", (name,))
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO message_lists(message_id, list) VALUES (?, ?)", (mid, name)
            )
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
            chunk = ids[i : i + 500]
            have.update(
                c.execute(
                    "SELECT message_id, list FROM message_lists WHERE message_id IN (%s)"
                    % ",".join("?" * len(chunk)),
                    chunk,
                ).fetchall()
            )
        added: dict[str, int] = {}
        for pair in pairs:
            if pair not in have:
                have.add(pair)
                added[pair[1]] = added.get(pair[1], 0) + 1
        c.executemany("INSERT OR IGNORE INTO lists(name) VALUES (?)", [(name,) for _, name in pairs])
        c.executemany("INSERT OR IGNORE INTO message_lists(message_id, list) VALUES (?, ?)", pairs)
        c.executemany(
            "UPDATE lists SET message_count = message_count + ? WHERE name=?",
            [(n, name) for name, n in added.items()],
        )

    def _refresh_threads(self, threads: set[str]) -> None:
        """Count, dates, root and subject of each thread, read for all of them at once (per 500).

        The root: a message whose parent is not in the thread, oldest first
        (undated last, then in storage order).
        """
        c = self.conn
        order = list(threads)
        for i in range(0, len(order), 500):
            chunk = order[i : i + 500]
            marks = ",".join("?" * len(chunk))
            # a thread merged into another during the batch has no members left
            live = {
                r[0]
                for r in c.execute(
                    f"SELECT DISTINCT thread_id FROM thread_members WHERE thread_id IN ({marks})", chunk
                )
            }
            stats = {
                r[0]: r[1:]
                for r in c.execute(
                    f"SELECT thread_id, count(*), min(date_utc), max(date_utc) FROM messages WHERE thread_id IN ({marks}) "
                    "GROUP BY thread_id",
                    chunk,
                )
            }
            roots: dict[str, tuple] = {}
            for t, mid, subject, *key in c.execute(
                "SELECT thread_id, message_id, subject, EXISTS(SELECT 1 FROM messages p WHERE p.message_id = "
                "m.parent_id AND p.thread_id = m.thread_id), date_utc IS NULL, date_utc, rowid "
                f"FROM messages m WHERE thread_id IN ({marks})",
                chunk,
            ):
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
                rows,
            )


def has_messages(conn: sqlite3.Connection) -> bool:
    """Does the knowledge base hold any message yet?"""
    return conn.execute("SELECT 1 FROM messages LIMIT 1").fetchone() is not None


def known_copies(conn: sqlite3.Connection, ids: list[str]) -> dict[str, tuple[set[str], set[str]]]:
    """message_id -> (content hashes of every stored delivery, lists it is filed under), for stored ids."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for mid, h in conn.execute(
            f"SELECT message_id, content_hash FROM message_copies WHERE message_id IN ({marks})", chunk
        ):
            out.setdefault(mid, (set(), set()))[0].add(h)
        for mid, name in conn.execute(
            f"SELECT message_id, list FROM message_lists WHERE message_id IN ({marks})", chunk
        ):
            if mid in out:
                out[mid][1].add(name)
    return out


_MESSAGE_FIELDS = (
    "message_id, subject, from_name, from_addr, from_obfuscated, date_raw, date_utc, in_reply_to, "
    '"references", body, archive_url, lists, source, synthetic_id, parent_id'
)


def _message_of(r: tuple) -> Message:
    m = Message(
        message_id=r[0],
        subject=r[1] or "",
        from_name=r[2] or "",
        from_addr=r[3] or "",
        from_obfuscated=bool(r[4]),
        date_raw=r[5] or "",
        date_utc=r[6],
        in_reply_to=r[7],
        references=json.loads(r[8] or "[]"),
        body=r[9] or "",
        archive_url=r[10],
        lists=json.loads(r[11] or "[]"),
        source=r[12] or "",
        synthetic_id=bool(r[13]),
    )
    if not m.in_reply_to and r[14]:
        m.quoted_parent = r[14]
    return m


def load_messages(db: sqlite_utils.Database, thread_id: str) -> list[Message]:
    rows = db.execute(
        f"SELECT {_MESSAGE_FIELDS} FROM messages "
        "WHERE thread_id=? ORDER BY date_utc IS NULL, date_utc, rowid",
        (thread_id,),
    ).fetchall()
    return [_message_of(r) for r in rows]


def load_by_ids(conn: sqlite3.Connection, ids: list[str]) -> dict[str, Message]:
    return {
        r[0]: _message_of(r)
        for r in rows_in(conn, f"SELECT {_MESSAGE_FIELDS} FROM messages WHERE message_id IN ({{marks}})", ids)
    }


def threads_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, str]:
    return dict(
        rows_in(conn, "SELECT message_id, thread_id FROM messages WHERE message_id IN ({marks})", ids)
    )


def live_threads(conn: sqlite3.Connection, thread_ids: list[str]) -> set[str]:
    """Those of ``thread_ids`` that still have messages (not merged into another thread)."""
    return {
        r[0]
        for r in rows_in(
            conn, "SELECT DISTINCT thread_id FROM messages WHERE thread_id IN ({marks})", thread_ids
        )
    }


def all_threads(conn: sqlite3.Connection) -> list[str]:
    """Every thread id, oldest thread first."""
    return [r[0] for r in conn.execute("SELECT thread_id FROM threads ORDER BY first_date")]
