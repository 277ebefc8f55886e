"""Quote attribution of a batch's threads, with what earlier messages said kept between batches;
the batch's new messages become :class:`ExtractionJob` s."""

from __future__ import annotations

import sqlite3
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import sqlite_utils

from lkmlkb.db.connection import writing
from lkmlkb.db.findings import extraction_state, record_unextracted, store_quote_origins
from lkmlkb.db.store import load_by_ids, threads_of
from lkmlkb.model import Findings, Message, Segment
from lkmlkb.threads.quotes import QuoteIndex, attribute_message, squeezed_lines
from lkmlkb.threads.segments import segment_body


@dataclass
class ExtractionJob:
    """A message of a batch whose findings are written after its thread's quotes are attributed.

    ``extract``: the extractors must read it (it passed the prefilter, or was
    not screened); else it is recorded as not passing.  The quoted segments
    of ``segments`` carry their origins, so the extractors read only what the
    message says itself (:func:`lkmlkb.extract.views.build_view`).
    """

    thread_id: str
    message: Message
    segments: list[Segment]
    extract: bool
    findings: Findings | None = None
    passed: bool = False
    #: the workers' screening passed it: the extraction need not run the prefilter again
    screened_pass: bool = False

    def payload(self) -> tuple:
        """What a worker process needs to extract it (not the raw bytes)."""
        m = self.message
        return m.message_id, m.subject, m.body, self.segments, self.screened_pass


def store_batch_findings(db: sqlite_utils.Database, prepared: list, pending: set[str]) -> list[ExtractionJob]:
    """Record a batch of new messages for extraction (one transaction); returns the jobs left to do.

    Messages that cannot hold a report (the workers screened them with
    :func:`lkmlkb.extract.views.may_hold_report`) are written in bulk as not
    passing.  A thread with a new message that may hold one is attributed
    (quotes of its earlier messages marked) as
    :func:`lkmlkb.ingest.reprocess.extract_new_in_thread` does, and its new
    messages become jobs: extracted (in the workers, or by
    :func:`lkmlkb.ingest.extraction.run_jobs`) and written by
    :func:`lkmlkb.ingest.extraction.write_jobs`, in job order.  ``pending``
    holds ids of messages whose jobs are not written yet (they count as
    extracted).  Reports are built by :func:`lkmlkb.ingest.reprocess.flush_reports`.
    """
    new = {p.message.message_id: p for p in prepared}
    if not new:
        return []
    conn = db.conn
    thread_of = threads_of(conn, list(new))
    attribute = {thread_of[mid] for mid, p in new.items() if mid in thread_of and p.may_pass}
    empty = [mid for mid in new if mid in thread_of and thread_of[mid] not in attribute]
    jobs: list[ExtractionJob] = []
    cache = said_cache(db)
    try:
        with writing(conn):
            for mid, p in new.items():
                if getattr(p, "segments", None) is not None:
                    cache.put(mid, p.segments, squeeze=False)
            record_unextracted(conn, empty)
            for tid in sorted(attribute):
                jobs.extend(_extract_new_with_index(conn, tid, new, cache, pending))
    except BaseException:
        cache.clear()  # it may hold messages of the rolled-back transaction
        raise
    return jobs


#: lines of earlier messages kept between batches (per database connection) for quote attribution
SAID_CACHE_LINES = 400_000
_said_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class SaidCache:
    """message id -> the lines of its new and patch segments, each with its :func:`squeeze`.

    What quote attribution needs of an earlier message of a thread; a
    function of the body, which never changes under a Message-ID.  A new
    message's segments are kept as the workers made them and squeezed when
    first needed (most threads never need attribution).  Oldest entries are
    dropped past ``SAID_CACHE_LINES`` body lines.
    """

    def __init__(self, limit: int | None = None):
        self.limit = SAID_CACHE_LINES if limit is None else limit
        self.lines = 0
        self.said: OrderedDict[str, tuple[int, list]] = OrderedDict()

    def get(self, mid: str) -> list[tuple[str, str]] | None:
        got = self.said.get(mid)
        if got is None:
            return None
        self.said.move_to_end(mid)
        size, said = got
        if said and not isinstance(said[0], tuple):  # segments, not squeezed yet
            said = said_lines(said)
            self.said[mid] = (size, said)
        return said

    def put(self, mid: str, segments: list[Segment], squeeze: bool = True) -> list:
        said = said_lines(segments) if squeeze else [s for s in segments if s.kind in ("new", "patch")]
        size = sum(s.line_end - s.line_start + 1 for s in segments if s.kind in ("new", "patch"))
        old = self.said.pop(mid, None)
        self.lines += size - (old[0] if old is not None else 0)
        self.said[mid] = (size, said)
        while self.lines > self.limit and len(self.said) > 1:
            _, (dropped, _) = self.said.popitem(last=False)
            self.lines -= dropped
        return said

    def clear(self) -> None:
        self.said.clear()
        self.lines = 0


def said_lines(segments: list[Segment]) -> list[tuple[str, str]]:
    """(squeeze, line) of the lines of the new and patch segments that can have a
    ``lkmlkb.threads.quotes.line_key`` (what ``QuoteIndex.add`` indexes; see :func:`may_have_key`)."""
    return [pair for s in segments if s.kind in ("new", "patch") for pair in squeezed_lines(s.text)]


def said_cache(db: sqlite_utils.Database) -> SaidCache:
    cache = _said_caches.get(db)
    if cache is None:
        cache = _said_caches[db] = SaidCache()
    return cache


def _extract_new_with_index(
    conn: sqlite3.Connection, thread_id: str, new: dict, cache: SaidCache, pending: set[str]
) -> list[ExtractionJob]:
    """:func:`lkmlkb.ingest.reprocess.extract_new_in_thread` for a thread that got messages from the workers (``new``),
    up to the extraction: the quotes are attributed (and stored) and the messages
    without findings returned as jobs, in thread order.

    Same findings, attributions and writes, once the jobs are done.  The quote index is built only
    from the lines of earlier messages that can be the origin of a line
    quoted in a message being attributed (same :func:`squeeze`): the origin
    ``QuoteIndex.source_of`` finds for those quotes is the same as with the
    whole thread indexed, at a fraction of the line hashing.  What earlier
    messages said is kept in ``cache``, so they are not read and segmented
    again for every batch.  The workers' segments of a new message are
    ``segment_body`` of the body stored from it.
    """
    order = extraction_state(conn, thread_id)
    ids = [mid for mid, _ in order]
    done = {mid for mid, passed in order if passed is not None or mid in pending}
    if len(done) == len(ids):
        return []
    todo = [mid for mid in ids if mid not in done]

    def worker_segments(mid):
        p = new.get(mid)
        return getattr(p, "segments", None) if p is not None else None

    # todo messages first: their quoted lines decide which lines of earlier messages matter
    loaded = load_by_ids(conn, [mid for mid in todo if mid not in new])
    segments: dict[str, list[Segment]] = {}
    for mid in todo:
        segs = worker_segments(mid)
        segments[mid] = segs if segs is not None else segment_body(loaded[mid].body)
    # (squeeze, line) of the keyable lines of each quoted text, by text: asked again below
    quoted_lines = {
        s.text: squeezed_lines(s.text) for mid in todo for s in segments[mid] if s.kind == "quoted"
    }
    quoted = {sq for pairs in quoted_lines.values() for sq, _ in pairs}
    # messages after the last todo one are no one's origin here; without quoted lines, nothing is
    last = ids.index(todo[-1]) if quoted else -1
    said_before = {mid: cache.get(mid) for mid in ids[:last] if mid in done}
    # stored messages are read only where neither the workers' output nor the cache does
    loaded.update(
        load_by_ids(
            conn, [mid for mid, said in said_before.items() if said is None and worker_segments(mid) is None]
        )
    )
    for mid, said in said_before.items():
        if said is None:
            segs = worker_segments(mid)
            said_before[mid] = cache.put(mid, segs if segs is not None else segment_body(loaded[mid].body))
    index = QuoteIndex()
    indexed: set[str] = set()  # squeezes of the lines in the index

    def indexed_lines(text: str) -> str:
        """The lines of a quote that can have an indexed key (their order kept: same winner)."""
        return "\n".join(line for sq, line in quoted_lines[text] if sq in indexed)

    # lkmlkb.threads.quotes.attribute_quotes, step by step, up to the last message attributed (empty when nothing
    # is quoted); done messages' attributions are not stored
    for n, mid in enumerate(ids[: last + 1]):
        if mid in done:
            said = said_before[mid]
        else:
            attribute_message(index, mid, loaded.get(mid), segments[mid], indexed_lines)
            if n == last:
                break
            said = cache.put(mid, segments[mid])
        origins = [line for sq, line in said if sq in quoted]
        if origins:
            indexed.update(sq for sq, _ in said if sq in quoted)
            index.add(mid, [Segment("new", 0, len(origins) - 1, "\n".join(origins))])
    for mid in todo if last < 0 else todo[-1:]:  # the ones not squeezed above: squeezed if ever needed
        cache.put(mid, segments[mid], squeeze=False)
    store_quote_origins(conn, [(mid, segments[mid]) for mid in todo])
    return [
        ExtractionJob(
            thread_id,
            new[mid].message if mid in new else loaded[mid],
            segments[mid],
            mid not in new or new[mid].may_pass,
            screened_pass=mid in new and new[mid].screened_pass,
        )
        for mid in todo
    ]
