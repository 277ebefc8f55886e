"""The writer's WAL checkpointed from a thread of its own, for a long run of writes (the ingest)."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

import sqlite_utils

from lkmlkb.db.connection import WAL_CHECKPOINT_PAGES

log = logging.getLogger(__name__)

#: with a :class:`Checkpointer`, the WAL is checkpointed once about this many bytes of messages
#: (raw and body) were stored since it started over: their rows, index entries and FTS terms
#: fill about twice as many bytes of WAL pages
CHECKPOINT_EVERY_BYTES = 64 * 1024 * 1024


class Checkpointer:
    """Checkpoints the writer's WAL from a thread of its own, for a long run of writes (the ingest).

    A checkpoint copies the WAL into the database and syncs both files.  SQLite's automatic
    checkpoints run in the writing thread, at a commit: the ingest's writer would stop there
    for the syncs, and the workers, whose next batches it hands out, would run dry meanwhile.  Here, once CHECKPOINT_EVERY_BYTES of
    messages were stored, a cycle runs, driven by the writer's calls to :meth:`wrote` between
    its transactions:

    1. a thread with its own connection copies and syncs what the WAL holds, in ROUNDS rounds
       (PASSIVE: the writer goes on writing; each round has less to copy than the one before);
    2. the writer copies the little written meanwhile itself (:meth:`_copy_rest`), so that the
       WAL starts over at its next write: a WAL always written while it is copied never does,
       and grows for as long as the writes go on;
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
