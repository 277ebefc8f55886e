"""Threads extracted again and their reports rebuilt: after an ingest's batches (the report
flush), for ``lkmlkb reprocess``, and for messages an earlier run could not parse."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import sqlite_utils

from lkmlkb.db.connection import connect, writing
from lkmlkb.db.findings import (
    drop_all_extraction,
    drop_extraction_marks,
    extracted_in,
    load_findings,
    store_quote_origins,
    write_findings,
)
from lkmlkb.db.regressions import MARK_KEY as REGROUP_MARK
from lkmlkb.db.regressions import regroup
from lkmlkb.db.reports import NEEDS_EXTRACTION, Built, move_mark, report_plan, write_report
from lkmlkb.db.store import Store, all_threads, live_threads, load_messages
from lkmlkb.errors import LkmlkbError
from lkmlkb.extract.messages import extract_message
from lkmlkb.ingest.prepare import Failure, prepare_raw
from lkmlkb.model import Message, Report
from lkmlkb.reports.build import build_report
from lkmlkb.sources.base import RawMail
from lkmlkb.sources.public_inbox import is_git_repo, list_name_of, read_message_at
from lkmlkb.threads.quotes import attribute_quotes
from lkmlkb.threads.segments import segment_body


def extract_new_in_thread(db: sqlite_utils.Database, thread_id: str, messages: list[Message]) -> bool:
    """Store findings for the thread's messages that have none yet; True if any passed the prefilter.

    The whole thread is segmented and attributed here: this is the path of
    ``reprocess`` and of a killed run's leftovers (:func:`flush_reports`);
    an ingest's batches take :func:`lkmlkb.ingest.attribution.store_batch_findings`.
    """
    conn = db.conn
    done = extracted_in(conn, thread_id)
    if all(m.message_id in done for m in messages):
        return any(done.values())
    items = [(m, segment_body(m.body)) for m in messages]
    attribute_quotes(items)
    todo = [(msg, segs) for msg, segs in items if msg.message_id not in done]
    any_passed = any(done.values())
    for msg, segs in todo:
        f, passed = extract_message(msg, segs)
        write_findings(conn, thread_id, f, passed)
        any_passed = any_passed or passed
    store_quote_origins(conn, [(msg.message_id, segs) for msg, segs in todo])
    return any_passed


def rebuild_threads(
    db: sqlite_utils.Database, thread_ids: Iterable[str], only_if_candidate: bool = True
) -> int:
    """Extract what is new in each thread and rebuild its report, each thread in a transaction
    of its own (a long reprocess keeps what it rebuilt); returns reports written."""
    n = 0
    for tid in thread_ids:
        with writing(db.conn):
            n += _rebuild_thread(db, tid, only_if_candidate)
    return n


def _rebuild_thread(db: sqlite_utils.Database, tid: str, only_if_candidate: bool = True) -> int:
    """:func:`rebuild_threads` of one thread, in the caller's transaction; 1 if a report was written."""
    messages = load_messages(db, tid)
    if not messages:
        return 0
    passed = extract_new_in_thread(db, tid, messages)
    if not (passed or not only_if_candidate):
        return 0
    findings = load_findings(db, [m.message_id for m in messages])
    write_report(db.conn, build_report(tid, messages, findings))
    return 1


def flush_reports(db: sqlite_utils.Database, final: bool = False) -> int:
    """Rebuild the report of every thread that got messages since the mark; returns reports written.

    Messages without findings there (a run killed between storing a batch
    and its findings) are extracted here.  ``final`` clears the mark.  The
    flush is one transaction, as :func:`write_reports` is: a commit per thread
    would write the pages the reports share (their tables' indexes, the
    full-text index, the regression keys) to the WAL once per thread.
    """
    plan = report_plan(db)
    if plan is None:
        return 0
    upto, thread_ids = plan
    with writing(db.conn):
        n = sum(_rebuild_thread(db, tid) for tid in thread_ids)
        move_mark(db.conn, upto, final)
    return n


def write_reports(db: sqlite_utils.Database, built: list[Built], upto: int, final: bool = False) -> int:
    """Write what :func:`lkmlkb.db.reports.build_reports` answered, then move the mark to ``upto`` (``final``:
    clear it); returns reports written.  A thread merged into another since it was read
    has no report any more; one that needs extraction is rebuilt here."""
    conn = db.conn
    n = 0
    with writing(conn):
        live = live_threads(conn, [tid for tid, r, _ in built if isinstance(r, Report)])
        for tid, r, keys in built:
            if isinstance(r, Report) and tid in live:
                write_report(conn, r, keys)
                n += 1
    n += rebuild_threads(db, [tid for tid, r, _ in built if r == NEEDS_EXTRACTION])
    move_mark(conn, upto, final)
    return n


def reprocess(db: sqlite_utils.Database, thread_ids: list[str] | None = None) -> int:
    """Re-run extraction and report building over stored messages."""
    conn = db.conn
    if thread_ids is None:
        thread_ids = all_threads(conn)
        drop_all_extraction(conn)
        conn.execute("DELETE FROM kb_info WHERE key=?", (REGROUP_MARK,))  # every thread looked at again
    else:
        drop_extraction_marks(conn, thread_ids)
    n = rebuild_threads(db, thread_ids)
    with writing(conn):
        regroup(conn)
    return n


def retry_errors(db_path: str) -> tuple[int, int]:
    """Parse again the messages an earlier run kept raw in ``ingest_errors`` (after a parser fix),
    and read again those of a public-inbox epoch whose git object was missing (after a repair).

    Returns (recovered, still failing).  A recovered message is stored like any
    new one and its error row marked resolved; one that still fails keeps its
    row, with the new reason.
    """
    store = Store(connect(db_path))
    recovered = failing = 0
    for err_id, stage, source, locator, raw in store.retryable_errors():
        lists: list[str] = []
        if stage == "read":  # a message of a public-inbox epoch whose git object was missing
            repo = Path(source.rsplit("@", 1)[0])
            if not is_git_repo(repo):
                continue  # a file's read error whose name looks like a commit: nothing to read again
            try:
                raw = read_message_at(source, locator)
            except LkmlkbError as exc:  # still missing, or over the size limit
                failing += 1
                store.still_failing(err_id, exc.reason)
                continue
            lists = list_name_of(repo)  # as the epoch's reader gave them
        p = prepare_raw(RawMail(raw, source or "", lists, locator or ""))
        if isinstance(p, Failure):
            failing += 1
            store.still_failing(err_id, p.reason)
            continue
        store.write_batch([(p.message, p.segments, p.new_text, p.content_hash)])
        store.resolved(err_id, p.message.message_id)
        recovered += 1
    return recovered, failing
