"""Ingest: sources -> parsed, segmented messages -> the store, in batches.

Parsing and segmentation are pure functions of the raw bytes, so they run in
worker processes fed in batches (``workers`` > 1); the store writes each
batch in one transaction from this process.  With extraction the workers
also prefilter each message, and those that may hold a report come back to
them for extraction once this process has attributed their quotes
(:class:`pipeline.BatchExtraction`).  The serial and parallel paths give the
same database (tests check it, with and without extraction).
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import gc
import hashlib
import logging
import multiprocessing
import multiprocessing.pool
import queue
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lkmlkb.db.store import Checkpointer, Store, connect, content_hash, has_messages, known_copies
from lkmlkb.errors import LkmlkbError, ParseError, SourceError, WorkerLost
from lkmlkb.model import Message, Segment, pickled_as_fields
from lkmlkb.sources import iter_source
from lkmlkb.sources.base import RawMail
from lkmlkb.sources.mail import parse_message
from lkmlkb.threads.segments import new_text, segment_body

log = logging.getLogger(__name__)

BATCH = 500


@pickled_as_fields
@dataclass
class Prepared:
    message: Message
    segments: list[Segment]
    new_text: str
    cursor_key: str | None = None
    cursor: str | None = None
    #: screened by the workers: ``passed`` says whether it may hold a report
    screened: bool = False
    passed: bool = False
    #: the store's ``content_hash`` of the message, computed where it was parsed
    content_hash: str | None = None

    @property
    def may_pass(self) -> bool:
        """Whether it may hold a report (an unscreened message may)."""
        return self.passed or not self.screened

    @property
    def screened_pass(self) -> bool:
        """Whether the workers screened it and it passed (its extraction need not screen it again)."""
        return self.screened and self.passed


@pickled_as_fields
@dataclass
class Known:
    """A raw message whose exact bytes are already stored (an unchanged re-run)."""

    source: str
    locator: str
    cursor_key: str | None = None
    cursor: str | None = None


@pickled_as_fields
@dataclass
class Failure:
    source: str
    locator: str
    stage: str
    reason: str
    raw: bytes | None = None
    #: the source's cursor after the failed message: once the failure is recorded (raw, for
    #: ``lkmlkb reprocess``), a re-run need not read it again
    cursor_key: str | None = None
    cursor: str | None = None


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
        return (f"{self.new} new, {self.unchanged} unchanged, {self.copies} second deliveries, "
                f"{self.errors} errors ({self.read} read in {self.seconds:.1f}s, {rate:.0f} msg/s)")


def prepare_message(msg: Message) -> Prepared:
    segs = segment_body(msg.body)
    return Prepared(msg, segs, new_text(segs), content_hash=content_hash(msg))


def prepare_raw(item: RawMail) -> Prepared | Failure:
    """Parse and segment one raw message; a failure is returned, never raised."""
    try:
        msg = parse_message(item.raw, item.source, item.lists)
        p = prepare_message(msg)
    except ParseError as exc:
        reason = exc.reason
    except Exception as exc:
        reason = f"{exc.__class__.__name__}: {exc}"
    else:
        p.cursor_key, p.cursor = item.cursor_key, item.cursor
        return p
    return Failure(item.source, item.locator, "parse", reason, item.raw, item.cursor_key, item.cursor)


def _prepare_batch(batch: list, screen: bool = False) -> list[Prepared | Failure]:
    out = []
    for item in batch:
        if isinstance(item, RawMail):
            p = prepare_raw(item)
        elif isinstance(item, Message):
            p = prepare_message(item)
        else:
            p = item
        if screen and isinstance(p, Prepared):
            _screen(p)
        out.append(p)
    return out


def _prepare_and_screen(batch: list) -> list[Prepared | Failure]:
    return _prepare_batch(batch, screen=True)


def _screen(p: Prepared) -> None:
    """Whether the message may hold a report (the prefilter), in the worker; a failure leaves
    it unscreened (it is then extracted, and what fails there is recorded)."""
    from lkmlkb.extract.views import may_hold_report

    try:
        p.passed = may_hold_report(p.message, p.segments)
        p.screened = True
    except Exception:
        log.debug("screening %s failed", p.message.message_id, exc_info=True)


#: the Message-ID header line of a raw message (a cheap key for the known-bytes check;
#: correctness rests on the content hash, so a miss only means a full parse)
_MSGID_LINE = re.compile(
    rb"""^message-id:[ \t]{0,20}                    # "Message-ID:" / "Message-Id:" (any case)
         (?:\r?\n[ \t]{1,20})?                     # an id folded onto the next line
         <([^<>\s]{1,995})>                         # the id in angle brackets
    """,
    re.I | re.M | re.X,
)
#: only the header block is searched, and at most this much of it
HEADER_SCAN = 64 * 1024


def delivery_key(raw: bytes) -> tuple[str | None, str]:
    """(Message-ID as the header says it, content hash) of one raw message, without parsing it.

    The hash is the store's ``content_hash``: SHA-256 of the bytes after an
    mbox "From " separator line.  Tolerates anything: no headers, no id, NULs.
    """
    if raw.startswith(b"From ") and b"\n" in raw[:1000]:
        raw = raw.split(b"\n", 1)[1]
    end = raw.find(b"\n\n", 0, HEADER_SCAN)
    head = raw[:end if end >= 0 else HEADER_SCAN]
    m = _MSGID_LINE.search(head)
    mid = None
    if m:
        mid = m.group(1).decode("utf-8", "replace")
    return mid, hashlib.sha256(raw).hexdigest()


def _skip_known(conn, chunk: list) -> list:
    """Replace raw messages whose exact bytes (and source lists) are stored by ``Known``.

    Same outcome as parsing them: write_batch would count them unchanged.  A
    message whose source names a list it is not yet filed under is parsed,
    so the list is merged as before.
    """
    keys = {}
    for n, item in enumerate(chunk):
        if isinstance(item, RawMail):
            mid, h = delivery_key(item.raw)
            if mid:
                keys[n] = (mid, h)
    if not keys:
        return chunk
    stored = known_copies(conn, sorted({k[0] for k in keys.values()}))
    out = list(chunk)
    for n, (mid, h) in keys.items():
        have = stored.get(mid)
        if have is None or h not in have[0]:
            continue
        item = chunk[n]
        if any(name not in have[1] for name in item.lists):
            continue
        out[n] = Known(item.source, item.locator, item.cursor_key, item.cursor)
    return out


#: batches read ahead per worker process (memory stays flat: the rest waits in the source)
IN_FLIGHT_PER_WORKER = 2
_DONE = object()


def _read_ahead(batches: Iterable[list]) -> Iterator[list]:
    """``batches``, read by a thread one batch ahead of the consumer.

    Reading the source (a ``git cat-file`` stream, gzip) then overlaps with
    storing; an error in the source is raised here, in the consumer.
    """
    q: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def put(item) -> bool:
        """Hand ``item`` over unless the consumer stopped (then the reader ends)."""
        while not stop.is_set():
            try:
                q.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def read():
        try:
            for b in batches:
                if not put(b):
                    return
            put(_DONE)
        except BaseException as exc:  # handed to the consumer
            put(exc)

    t = threading.Thread(target=read, name="lkmlkb-reader", daemon=True)
    t.start()
    try:
        while True:
            b = q.get()
            if b is _DONE:
                return
            if isinstance(b, BaseException):
                raise b
            yield b
    finally:
        stop.set()


def _in_order(pool, work: Callable, batches: Iterable[list], ahead: int) -> Iterator[list]:
    """``work`` of each batch, run by ``pool``, in order, with at most ``ahead`` batches out.

    Batches are handed to the pool from this thread (``apply_async``), not by
    the pool's feeder: the extraction jobs the store sends back to the same
    workers (``pipeline.BatchExtraction``) queue behind them instead of
    waiting on a feeder that waits on the store.  The raw bytes this process
    sent are not sent back (:func:`_without_raw`): they are put back here.
    """
    out: collections.deque = collections.deque()
    for b in batches:
        out.append((b, pool.apply_async(_without_raw, (work, b))))
        if len(out) >= ahead:
            sent, result = out.popleft()
            yield _raw_put_back(sent, wait_for(pool, result))
    while out:
        sent, result = out.popleft()
        yield _raw_put_back(sent, wait_for(pool, result))


def _without_raw(work: Callable, batch: list) -> list:
    """``work(batch)`` in a worker, each message parsed from a raw one sent back without its
    bytes: the ingest has them (half of what the workers returned, measured: 14 of
    30.5 MB per 2,000 messages of linux-block, and half of the pickling)."""
    out = work(batch)
    for item, p in zip(batch, out):
        if isinstance(item, RawMail) and isinstance(p, Prepared) and p.message.raw is item.raw:
            p.message.raw = None
    return out


def _raw_put_back(batch: list, prepared: list) -> list:
    """The raw bytes :func:`_without_raw` left out, from the batch they were parsed from."""
    for item, p in zip(batch, prepared):
        if isinstance(p, Prepared) and p.message.raw is None and isinstance(item, RawMail):
            p.message.raw = item.raw
    return prepared


class WorkerPool(multiprocessing.pool.Pool):
    """``multiprocessing``'s process pool, its worker handler woken only when a worker
    process ends or the pool changes state (what its thread pool does).

    The process pool also wakes it whenever a result waits in the pipe from the
    workers, and it then loops until the result thread has read it all: a
    batch's result is megabytes, read in pipe-sized pieces, so the handler spun
    (15,000-24,000 rounds for 40 results of 8 MB; 2.2 CPU-s of an ingest of
    linux-block's epoch) and took the GIL from the writer meanwhile.  A worker
    that dies still wakes it (its process sentinel), and it starts another.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for queue_ in (self._inqueue, self._outqueue):
            _widen_pipe(queue_._reader)

    def _get_sentinels(self):
        return [self._change_notifier._reader]

    #: set when terminate() gave up on the pool's own protocol and killed the workers
    abandoned = False

    def terminate(self):
        """The pool's terminate, or its workers killed when that hangs.

        A worker killed while it held one of the pipes' locks (waiting for a task, it holds
        the task pipe's; writing a result, the result pipe's) never releases it, and the
        pool's own terminate waits for that lock for ever.  After TERMINATE_SECONDS the
        workers are killed and the pool is left as it is: its handler threads, daemons
        blocked on the dead locks, die with the process.
        """
        ender = threading.Thread(target=super().terminate, name="pool-terminate", daemon=True)
        ender.start()
        ender.join(TERMINATE_SECONDS)
        if ender.is_alive():
            self.abandoned = True
            log.debug("the pool's terminate is stuck on a dead worker's lock: killing the workers")
            for proc in self._pool:
                if proc.exitcode is None:
                    proc.kill()

    def join(self):
        if not self.abandoned:
            return super().join()
        for proc in self._pool:  # the handler threads wait for ever; the processes are reaped
            proc.join(TERMINATE_SECONDS)
        return None


#: how long the pool's terminate may take before its workers are killed (it takes well under a
#: second unless a worker died holding a pipe's lock)
TERMINATE_SECONDS = 10.0


#: the pipes between the ingest and its workers hold this much (Linux: 64 KiB by default).  A
#: batch or its result is megabytes: through the default pipe, its reader and writer each woke
#: for every 64 KiB (8 MB results, 1.6 GB in all: 25,000 context switches in the workers,
#: 10,000-14,000 in the parent, 3.7-4.8 CPU-s; with 1 MiB: 1,700 and 150-250, 2.8-3.2 CPU-s)
PIPE_BYTES = 1 << 20


def _widen_pipe(conn) -> None:
    """Give the pipe of ``conn`` PIPE_BYTES where the system lets it (Linux; the limit for
    an unprivileged process is /proc/sys/fs/pipe-max-size, 1 MiB by default)."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None:  # not Linux
        return
    try:
        fcntl.fcntl(conn.fileno(), setsize, PIPE_BYTES)
    except OSError as exc:  # over the system's limit, or not a pipe: the default stays
        log.debug("pipe not widened: %s", exc)


#: how often a wait for a worker's result checks that the workers are alive
WORKER_CHECK_SECONDS = 2.0


def wait_for(pool, result):
    """``result.get()``, or :class:`WorkerLost` if a worker of ``pool`` dies meanwhile.

    A pool replaces a worker that dies, but the task it held never returns:
    waiting on it would hang the ingest for ever.  What was committed stays
    (each batch is one transaction); the next run goes on from there.
    """
    # the workers the pool started with (multiprocessing keeps no public list): any other
    # pid means one died and was replaced, and a task it held is lost
    started = getattr(pool, "lkmlkb_workers", None)
    while True:
        try:
            return result.get(timeout=WORKER_CHECK_SECONDS)
        except multiprocessing.TimeoutError:
            procs = list(getattr(pool, "_pool", ()))
            codes = [p.exitcode for p in procs if p.exitcode is not None]
            if codes or (started is not None and {p.pid for p in procs} - started):
                how = f" (exit code {codes[0]})" if codes else ""
                raise WorkerLost("ingest", f"a worker process died{how}, probably out of memory or killed; "
                                           "what was stored is kept: run the ingest again to go on") from None


#: [whether the spaCy pipelines were loaded] when this process last froze what it holds
_FROZEN: list[bool] = []


def _freeze_once(extract: bool) -> None:
    """Move what the process holds so far (modules; with ``extract`` the spaCy pipelines) out
    of the cyclic garbage collector's sight, once per process (again if the pipelines came
    since): every collection walked them again (3 % of an ingest's CPU), and forked workers
    no longer touch their pages by collecting them."""
    if _FROZEN and (_FROZEN[0] or not extract):
        return
    gc.collect()
    gc.freeze()
    _FROZEN[:] = [extract]


#: the cyclic collector's thresholds while an ingest runs (the workers inherit them).  An ingest
#: frees almost everything it allocates by reference counting, yet with Python's default
#: (700, 10, 10) the collector ran about 80 times per thousand messages, walking every batch in
#: flight each time: 7 % of the writer's CPU.  At 50,000 a cycle of garbage still goes within a
#: few batches.
BULK_GC_THRESHOLDS = (50_000, 20, 100)


@contextlib.contextmanager
def _bulk_gc() -> Iterator[None]:
    """Run the block with :data:`BULK_GC_THRESHOLDS`; the caller's thresholds come back after."""
    before = gc.get_threshold()
    gc.set_threshold(*BULK_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


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
    from lkmlkb.sources.base import SourceFailure

    for spec in sources:
        try:
            for item in iter_source(spec, cursors=store):
                if isinstance(item, SourceFailure):
                    summary.source_errors.append(str(item.exc))
                    yield Failure(item.exc.source, item.locator, "read", item.exc.reason,
                                  cursor_key=item.cursor_key, cursor=item.cursor)
                    continue
                yield item
        except LkmlkbError as exc:
            summary.source_errors.append(str(exc))
            yield Failure(exc.source, "", "read", exc.reason)


def ingest(sources: list[str], db_path: str, workers: int = 1, batch_size: int = BATCH,
           extract: bool = False,
           on_batch: Callable[[Store, list[Prepared]], None] | None = None,
           progress: Callable[[int, int], None] | None = None) -> IngestSummary:
    """Read every source into the knowledge base at ``db_path``.

    With ``extract``, the workers also screen each message with the prefilter,
    and those that may hold a report go back to them for extraction once
    their thread's quotes are attributed (:class:`pipeline.BatchExtraction`);
    the findings are stored and turned into reports batch by batch.
    """
    with _bulk_gc():
        return _ingest(sources, db_path, workers, batch_size, extract, on_batch, progress)


def _ingest(sources: list[str], db_path: str, workers: int, batch_size: int, extract: bool,
            on_batch: Callable[[Store, list[Prepared]], None] | None,
            progress: Callable[[int, int], None] | None) -> IngestSummary:
    extraction = None
    work = _prepare_and_screen if extract else _prepare_batch
    if extract and workers <= 1:
        from lkmlkb.extract.views import warm_up

        warm_up()  # outside the first message's budget
    # with workers, each builds its pipelines on its first extraction job (pipeline.extract_payloads),
    # beside the others' first batches: built here they held up the start by a second and more
    _freeze_once(extract and workers <= 1)
    db = connect(db_path)
    store = Store(db)
    if extract and on_batch is None:
        from lkmlkb.extract.views import BatchExtraction

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
            batches = (_skip_known(probe, b) for b in batches)
        if workers > 1:
            ctx = multiprocessing.get_context("fork")
            pool = WorkerPool(workers, context=ctx)
            pool.lkmlkb_workers = {p.pid for p in pool._pool}  # see wait_for
            if extraction is not None:
                extraction.pool, extraction.workers = pool, workers
            # at most IN_FLIGHT_PER_WORKER batches per worker are read and not yet stored
            reader = _read_ahead(batches)
            prepared_batches = _in_order(pool, work, reader, IN_FLIGHT_PER_WORKER * workers)
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
        summary.new, summary.unchanged, summary.copies, summary.errors = o.new, o.unchanged, o.copies, o.errors
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
    import os

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


def read_messages(paths: list[str]) -> Iterator[Message]:
    """Every message of the given sources, parsed, without a database (``extract``)."""
    for spec in paths:
        for item in iter_source(spec):
            if isinstance(item, RawMail):
                try:
                    yield parse_message(item.raw, item.source, item.lists)
                except ParseError as exc:
                    log.info("%s", exc)
            elif isinstance(item, Message):
                yield item
            else:
                raise SourceError(spec, getattr(item, "exc", item).reason)


def retry_errors(db_path: str) -> tuple[int, int]:
    """Parse again the messages an earlier run kept raw in ``ingest_errors`` (after a parser fix),
    and read again those of a public-inbox epoch whose git object was missing (after a repair).

    Returns (recovered, still failing).  A recovered message is stored like any
    new one and its error row marked resolved; one that still fails keeps its
    row, with the new reason.
    """
    db = connect(db_path)
    store = Store(db)
    from lkmlkb.sources.public_inbox import is_git_repo, list_name_of, read_message_at

    rows = db.execute("SELECT id, stage, source, locator, raw FROM ingest_errors WHERE resolved = 0 AND "
                      "((stage = 'parse' AND raw IS NOT NULL) OR (stage = 'read' AND raw IS NULL AND "
                      "length(locator) = 40 AND source LIKE '%@%')) ORDER BY id").fetchall()
    recovered = failing = 0
    for err_id, stage, source, locator, raw in rows:
        lists: list[str] = []
        if stage == "read":  # a message of a public-inbox epoch whose git object was missing
            repo = Path(source.rsplit("@", 1)[0])
            if not is_git_repo(repo):
                continue  # a file's read error whose name looks like a commit: nothing to read again
            try:
                raw = read_message_at(source, locator)
            except LkmlkbError as exc:  # still missing, or over the size limit
                failing += 1
                db.execute("UPDATE ingest_errors SET reason = ? WHERE id = ?", (exc.reason[:2000], err_id))
                continue
            lists = list_name_of(repo)  # as the epoch's reader gave them
        p = prepare_raw(RawMail(raw, source or "", lists, locator or ""))
        if isinstance(p, Failure):
            failing += 1
            db.execute("UPDATE ingest_errors SET reason = ? WHERE id = ?", (p.reason[:2000], err_id))
            continue
        store.write_batch([(p.message, p.segments, p.new_text, p.content_hash)])
        db.execute("UPDATE ingest_errors SET resolved = 1, message_id = ? WHERE id = ?", (p.message.message_id, err_id))
        recovered += 1
    return recovered, failing
