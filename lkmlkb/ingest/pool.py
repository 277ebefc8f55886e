"""The ingest's worker processes: the pool, batches handed to it in order with a bounded number
out, a worker's death noticed, and the garbage collector settings of a bulk run."""

from __future__ import annotations

import collections
import contextlib
import fcntl
import gc
import logging
import multiprocessing
import multiprocessing.pool
import queue
import threading
from collections.abc import Callable, Iterable, Iterator

from lkmlkb.errors import WorkerLost
from lkmlkb.ingest.prepare import Prepared
from lkmlkb.sources.base import RawMail

log = logging.getLogger(__name__)

#: batches read ahead per worker process (memory stays flat: the rest waits in the source)
IN_FLIGHT_PER_WORKER = 2
_DONE = object()


def read_ahead(batches: Iterable[list]) -> Iterator[list]:
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


def in_order(pool, work: Callable, batches: Iterable[list], ahead: int) -> Iterator[list]:
    """``work`` of each batch, run by ``pool``, in order, with at most ``ahead`` batches out.

    Batches are handed to the pool from this thread (``apply_async``), not by
    the pool's feeder: the extraction jobs the store sends back to the same
    workers (``lkmlkb.ingest.extraction.BatchExtraction``) queue behind them instead of
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
    bytes: the ingest has them (they are about half of what the workers would return, and of
    the pickling)."""
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
    batch's result is megabytes, read in pipe-sized pieces, so the handler would spin
    thousands of rounds per result and take the GIL from the writer meanwhile.  A worker
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
#: batch or its result is megabytes: through the default pipe, its reader and writer each wake
#: for every 64 KiB, and the context switches cost the ingest CPU time
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
                raise WorkerLost(
                    "ingest",
                    f"a worker process died{how}, probably out of memory or killed; "
                    "what was stored is kept: run the ingest again to go on",
                ) from None


#: [whether the spaCy pipelines were loaded] when this process last froze what it holds
_FROZEN: list[bool] = []


def freeze_once(extract: bool) -> None:
    """Move what the process holds so far (modules; with ``extract`` the spaCy pipelines) out
    of the cyclic garbage collector's sight, once per process (again if the pipelines came
    since): else every collection walks them again, and forked workers touch (and so copy)
    their pages by collecting them."""
    if _FROZEN and (_FROZEN[0] or not extract):
        return
    gc.collect()
    gc.freeze()
    _FROZEN[:] = [extract]


#: the cyclic collector's thresholds while an ingest runs (the workers inherit them).  An ingest
#: frees almost everything it allocates by reference counting, yet with Python's default
#: (700, 10, 10) the collector runs dozens of times per thousand messages, walking every batch in
#: flight each time.  At 50,000 a cycle of garbage still goes within a few batches.
BULK_GC_THRESHOLDS = (50_000, 20, 100)


@contextlib.contextmanager
def bulk_gc() -> Iterator[None]:
    """Run the block with :data:`BULK_GC_THRESHOLDS`; the caller's thresholds come back after."""
    before = gc.get_threshold()
    gc.set_threshold(*BULK_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
