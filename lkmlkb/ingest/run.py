"""Ingest: sources -> parsed, segmented messages -> the store, in batches.

Parsing and segmentation are pure functions of the raw bytes, so they run in
worker processes fed in batches (``workers`` > 1); the store writes each
batch in one transaction from this process.  With extraction the workers
also prefilter each message, and those that may hold a report come back to
them for extraction once this process has attributed their quotes
(:class:`lkmlkb.ingest.extraction.BatchExtraction`).  The serial and parallel paths give the
same database (tests check it, with and without extraction).
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.pool
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from lkmlkb.db.checkpoint import Checkpointer
from lkmlkb.db.connection import connect, writer_lock
from lkmlkb.db.store import Store, has_messages
from lkmlkb.errors import LkmlkbError
from lkmlkb.extract.messages import warm_up
from lkmlkb.ingest.extraction import BatchExtraction
from lkmlkb.ingest.known import Known, skip_known
from lkmlkb.ingest.pool import IN_FLIGHT_PER_WORKER, WorkerPool, bulk_gc, freeze_once, in_order, read_ahead
from lkmlkb.ingest.prepare import Failure, Prepared, prepare_and_screen, prepare_batch
from lkmlkb.sources import iter_source
from lkmlkb.sources.base import SourceFailure

log = logging.getLogger(__name__)

#: messages per batch: a worker's task and the writer's transaction
BATCH = 500


@dataclass
class IngestSummary:
    new: int = 0
    unchanged: int = 0
    copies: int = 0
    errors: int = 0
    read: int = 0
    seconds: float = 0.0
    source_errors: list[str] = field(default_factory=list)
    new_ids: list[str] = field(default_factory=list)

    def line(self) -> str:
        rate = self.read / self.seconds if self.seconds else 0.0
        return (
            f"{self.new} new, {self.unchanged} unchanged, {self.copies} second deliveries, "
            f"{self.errors} errors ({self.read} read in {self.seconds:.1f}s, {rate:.0f} msg/s)"
        )


#: a batch also ends once its messages hold this many raw bytes: batches in flight (read ahead,
#: in the workers, being written) stay small in memory whatever the messages' sizes
BATCH_BYTES = 32 * 1024 * 1024


def _batches(items: Iterable, size: int, max_bytes: int | None = None) -> Iterator[list]:
    """Lists of ``size`` items, or fewer holding ``max_bytes`` (BATCH_BYTES) of raw mail."""
    max_bytes = BATCH_BYTES if max_bytes is None else max_bytes
    batch: list = []
    held = 0
    for item in items:
        batch.append(item)
        held += len(getattr(item, "raw", None) or b"")
        if len(batch) >= size or held >= max_bytes:
            yield batch
            batch = []
            held = 0
    if batch:
        yield batch


def _source_items(sources: list[str], store: Store, summary: IngestSummary) -> Iterator:
    for spec in sources:
        try:
            for item in iter_source(spec, cursors=store):
                if isinstance(item, SourceFailure):
                    summary.source_errors.append(str(item.exc))
                    yield Failure(
                        item.exc.source,
                        item.locator,
                        "read",
                        item.exc.reason,
                        cursor_key=item.cursor_key,
                        cursor=item.cursor,
                    )
                    continue
                yield item
        except LkmlkbError as exc:
            summary.source_errors.append(str(exc))
            yield Failure(exc.source, "", "read", exc.reason)


def ingest(
    sources: list[str],
    db_path: str,
    workers: int = 1,
    batch_size: int = BATCH,
    extract: bool = False,
    on_batch: Callable[[Store, list[Prepared]], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> IngestSummary:
    """Read every source into the knowledge base at ``db_path``.

    With ``extract``, the workers also screen each message with the prefilter,
    and those that may hold a report go back to them for extraction once
    their thread's quotes are attributed (:class:`lkmlkb.ingest.extraction.BatchExtraction`);
    the findings are stored and turned into reports batch by batch.
    """
    with writer_lock(db_path), bulk_gc():
        return _ingest(sources, db_path, workers, batch_size, extract, on_batch, progress)


def _ingest(
    sources: list[str],
    db_path: str,
    workers: int,
    batch_size: int,
    extract: bool,
    on_batch: Callable[[Store, list[Prepared]], None] | None,
    progress: Callable[[int, int], None] | None,
) -> IngestSummary:
    extraction = None
    work = prepare_and_screen if extract else prepare_batch
    if extract and workers <= 1:
        warm_up()  # outside the first message's budget
    # with workers, each builds its pipelines on its first extraction job (extraction.extract_payloads),
    # beside the others' first batches: built here they would hold up the start
    freeze_once(extract and workers <= 1)
    db = connect(db_path)
    store = Store(db)
    if extract and on_batch is None:
        extraction = on_batch = BatchExtraction(store)
    store.start_run(sources)
    if extraction is not None:
        extraction.begin()
    summary = IngestSummary()
    t0 = time.perf_counter()
    pool = None
    probe = None
    reader = None
    checkpoints = None
    status = "interrupted"
    try:
        items = _source_items(sources, store, summary)
        batches = _batches(items, batch_size)
        if has_messages(db.conn):
            # a re-run: messages whose bytes are stored are not parsed again.  Its own
            # connection: with workers, the reader thread runs this generator.
            probe = sqlite3.connect(db_path, timeout=60, check_same_thread=False)
            batches = (skip_known(probe, b) for b in batches)
        if workers > 1:
            ctx = multiprocessing.get_context("fork")
            pool = WorkerPool(workers, context=ctx)
            pool.lkmlkb_workers = {p.pid for p in pool._pool}  # see wait_for
            if extraction is not None:
                extraction.pool, extraction.workers = pool, workers
            # at most IN_FLIGHT_PER_WORKER batches per worker are read and not yet stored
            reader = read_ahead(batches)
            prepared_batches = in_order(pool, work, reader, IN_FLIGHT_PER_WORKER * workers)
        else:
            prepared_batches = map(work, batches)
        # its thread starts once the workers are forked: none holds a copy of SQLite's locks taken
        # by a thread it lacks (a worker forked later, to replace one that died, ends the run: WorkerLost)
        checkpoints = Checkpointer(db, db_path)
        for prepared in prepared_batches:
            rows = []
            by_id: dict[str, Prepared] = {}
            cursors: dict[str, str] = {}
            for p in prepared:
                summary.read += 1
                if isinstance(p, Failure):
                    if p.stage == "read":
                        summary.read -= 1
                    store.record_error(p.source, p.locator, p.stage, p.reason, p.raw)
                    if p.cursor_key:
                        cursors[p.cursor_key] = p.cursor
                    continue
                if isinstance(p, Known):
                    store.outcome.unchanged += 1
                    if p.cursor_key:
                        cursors[p.cursor_key] = p.cursor
                    continue
                rows.append((p.message, p.segments, p.new_text, p.content_hash))
                by_id.setdefault(p.message.message_id, p)
                if p.cursor_key:
                    cursors[p.cursor_key] = p.cursor
            new_msgs = store.write_batch(rows)
            if cursors:
                # after the batch committed: a kill in between only means re-reading it
                for k, v in cursors.items():
                    store.set_cursor(k, v)
            summary.new_ids.extend(m.message_id for m in new_msgs)
            if on_batch is not None and new_msgs:
                on_batch(store, [by_id[m.message_id] for m in new_msgs])
            checkpoints.wrote(sum(len(m.raw or b"") + len(m.body) for m in new_msgs))
            if progress:
                progress(len(prepared), sum(len(p.message.raw) for p in prepared if isinstance(p, Prepared)))
        checkpoints.close()  # the last reports are written with SQLite's own checkpoints
        if extraction is not None:
            extraction.finish()
        status = "done"
    finally:
        if pool is not None:
            if status == "done":
                pool.close()
            else:  # batches and extraction jobs no one will read
                pool.terminate()
            pool.join()
        if reader is not None:
            reader.close()  # stops the reader thread before the probe connection closes
        if checkpoints is not None:
            checkpoints.close()
        if probe is not None:
            probe.close()
        o = store.outcome
        summary.new, summary.unchanged, summary.copies, summary.errors = (
            o.new,
            o.unchanged,
            o.copies,
            o.errors,
        )
        summary.seconds = time.perf_counter() - t0
        try:
            store.finish_run(status)
        except Exception:
            log.debug("could not close the run row", exc_info=True)
    return summary


def estimate_bytes(sources: list[str]) -> int | None:
    """Expected raw bytes of mbox-like sources, for a progress ETA; None when unknown.

    Plain files count their size; a single-member gzip records its expanded
    size (mod 4 GiB) in its last four bytes.  Folders, repositories and URLs
    have no cheap estimate.
    """
    total = 0
    for spec in sources:
        if not os.path.isfile(spec):
            return None
        size = os.path.getsize(spec)
        with open(spec, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b" and size >= 18:
                fh.seek(-4, os.SEEK_END)
                isize = int.from_bytes(fh.read(4), "little")
                size = isize if isize >= size else size * 4  # past 4 GiB: a rough guess
        total += size
    return total or None
