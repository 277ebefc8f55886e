"""Reports in the knowledge base: written, rebuilt from stored findings, and the mark of the
messages an extracting ingest has yet to report on."""

from __future__ import annotations

import json
import sqlite3

import sqlite_utils

from lkmlkb.db.connection import connect, now, rows_in
from lkmlkb.db.findings import extracted_in, load_findings, sort_text
from lkmlkb.db.regressions import is_listed, report_columns, store_thread_keys, thread_keys_of
from lkmlkb.db.schema import REPORT_TABLES
from lkmlkb.db.store import load_messages
from lkmlkb.extract.messages import EXTRACTOR_VERSION
from lkmlkb.model import (
    Report,
    Result,
)
from lkmlkb.regressions.keys import Key
from lkmlkb.reports.build import build_report
from lkmlkb.reports.labels import headline


def in_unit_of(base: Result, other: Result) -> float:
    """``other``'s value in ``base``'s unit, the one unit the report's row has ("about 1m20s" and
    "I waited 20 minutes": 1200 s); as written when the units are the same or either has no
    normalized value."""
    if other.unit == base.unit or not base.normalized_value or other.normalized_value is None:
        return other.value
    return round(other.normalized_value / base.normalized_value * base.value, 6)


def write_report(conn: sqlite3.Connection, r: Report, keys: list[Key] | None = None) -> str:
    """Write a thread's report (none when it is not :func:`is_listed`) and its regression keys:
    ``keys`` as a worker read them beside the report, or else read here."""
    rid = r.thread_id
    conn.execute("DELETE FROM reports WHERE report_id=?", (rid,))
    for t in REPORT_TABLES:
        conn.execute(f"DELETE FROM {t} WHERE report_id=?", (rid,))
    if not is_listed(r):
        store_thread_keys(conn, rid, thread_keys_of(conn, rid, r) if keys is None else keys)
        return rid
    setup = {s.key: s.value for s in r.setup}
    pair = headline(r.results, r.title)
    title, is_reg, status, culprits, fixes, people, first_date, metric = report_columns(r)
    workload = "; ".join(
        " ".join(f"{k}={v}" if v != "" else k for k, v in j.options.items()) for j in r.fio_jobs[:4]
    )
    summary = " ".join(
        [
            r.title or "",
            ", ".join(k.version for k in r.kernel_versions),
            " ".join(f"{c.sha} {c.subject or ''}" for c in r.commits),
            " ".join(r.tools),
        ]
    )
    conn.execute(
        "INSERT INTO reports(report_id, thread_id, title, is_regression_report, kind, status, workload, tools, "
        "good_kernel, bad_kernel, stated_pct, computed_pct, regression_pct, pct_disagrees, headline_metric, "
        "baseline_value, regressed_value, unit, culprits, fixes, fio_version, scheduler, filesystem, device_class, "
        "people, lists, first_date, last_date, message_count, first_message_id, summary, built) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            rid,
            r.thread_id,
            title,
            is_reg,
            r.kind,
            status,
            workload,
            json.dumps(r.tools),
            r.good_kernel,
            r.bad_kernel,
            r.stated_pct,
            r.computed_pct,
            r.regression_pct,
            int(r.pct_disagrees),
            metric,
            pair[0].value if pair else None,
            in_unit_of(pair[0], pair[1]) if pair else None,
            pair[0].unit if pair else None,
            culprits,
            fixes,
            r.fio_version,
            setup.get("scheduler"),
            setup.get("filesystem"),
            setup.get("device_class", setup.get("device")),
            people,
            json.dumps(r.lists),
            first_date,
            r.last_date,
            len(r.message_ids),
            r.message_ids[0] if r.message_ids else None,
            summary,
            now(),
        ),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO report_kernels(report_id, version, sort_key, role) VALUES (?,?,?,?)",
        [(rid, k.version, sort_text(k.version), k.role) for k in r.kernel_versions],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO report_commits(report_id, sha, subject, role, message_id, line_start, "
        "line_end, cue) VALUES (?,?,?,?,?,?,?,?)",
        [
            (
                rid,
                c.sha,
                c.subject,
                c.role,
                c.evidence.message_id,
                c.evidence.line_start,
                c.evidence.line_end,
                c.cue,
            )
            for c in r.commits
        ],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO setups(report_id, key, value, message_id) VALUES (?,?,?,?)",
        [(rid, s.key, s.value, s.evidence.message_id) for s in r.setup],
    )
    conn.executemany(
        "INSERT INTO report_reasons(report_id, seq, rule, verdict, message_id, line, text) "
        "VALUES (?,?,?,?,?,?,?)",
        [(rid, i, x.rule, x.verdict, x.message_id, x.line, x.text) for i, x in enumerate(r.reasons)],
    )
    # results carry the report id and their final labels
    conn.execute("UPDATE results SET report_id=NULL WHERE thread_id=?", (rid,))
    conn.executemany(
        "UPDATE results SET report_id=?, label=? WHERE rowid=?", _result_rows(conn, rid, r.results)
    )
    conn.execute("UPDATE fio_jobs SET report_id=? WHERE thread_id=?", (rid, rid))
    store_thread_keys(conn, rid, thread_keys_of(conn, rid, r) if keys is None else keys)
    return rid


def _result_rows(conn: sqlite3.Connection, rid: str, results: list) -> list[tuple]:
    """(report id, label, rowid) for every stored result row each of ``results`` stands for:
    the rows of its message on its line with its metric, value and kernel, later results
    relabelling a row after earlier ones.  The rows are read once and matched in a dict (an
    UPDATE per result would scan all of its message's results: quadratic in them)."""
    ids = sorted({x.evidence.message_id for x in results})
    rows: dict[tuple, list[int]] = {}
    for rowid, *key in rows_in(
        conn,
        "SELECT rowid, message_id, line_start, metric, value, coalesce(kernel, '') "
        "FROM results WHERE message_id IN ({marks})",
        ids,
    ):
        if None not in key[:4]:
            rows.setdefault(tuple(key), []).append(rowid)
    out: list[tuple] = []
    for x in results:
        found = (x.evidence.message_id, x.evidence.line_start, x.metric, x.value)
        if None not in found:  # SQL's "= NULL" matches nothing
            out.extend((rid, x.label, rowid) for rowid in rows.get((*found, x.kernel or ""), ()))
    return out


def load_report(db: sqlite_utils.Database, report_id: str) -> Report | None:
    """The report of a thread, rebuilt from stored messages and findings."""
    row = db.execute("SELECT thread_id FROM reports WHERE report_id=?", (report_id,)).fetchone()
    if not row:
        return None
    messages = load_messages(db, row[0])
    findings = load_findings(db, [m.message_id for m in messages])
    return build_report(row[0], messages, findings)


#: kb_info key: messages with a larger rowid may lack findings or a current report
PENDING_KEY = "reports_pending_after"


def begin_reports(db: sqlite_utils.Database) -> None:
    """Mark where an extracting ingest's messages start (an interrupted run's mark is kept)."""
    db.conn.execute(
        "INSERT OR IGNORE INTO kb_info(key, value) "
        "VALUES (?, (SELECT coalesce(max(rowid), 0) FROM messages))",
        (PENDING_KEY,),
    )


def report_candidates(conn: sqlite3.Connection, after: int, upto: int) -> list[str]:
    """Threads with a message in (after, upto] that have a message that passed the prefilter
    or a message without current findings (an interrupted run)."""
    touched = [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT thread_id FROM messages WHERE rowid > ? AND rowid <= ?", (after, upto)
        )
    ]
    out = {
        r[0]
        for r in rows_in(
            conn,
            "SELECT DISTINCT m.thread_id FROM messages m JOIN extracted_messages e ON e.message_id = m.message_id "
            "WHERE m.thread_id IN ({marks}) AND e.prefilter_passed = 1",
            touched,
        )
    }
    out.update(
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT m.thread_id FROM messages m LEFT JOIN extracted_messages e ON e.message_id = m.message_id "
            "AND e.extractor_version = ? WHERE m.rowid > ? AND m.rowid <= ? AND e.message_id IS NULL",
            (EXTRACTOR_VERSION, after, upto),
        )
    )
    return sorted(out)


def report_plan(db: sqlite_utils.Database, after: int | None = None) -> tuple[int, list[str]] | None:
    """What the next report flush covers: (the last message's rowid, the threads whose report
    may change) for the messages after ``after`` (by default the stored mark); None when no
    mark is stored (an ingest without extraction)."""
    conn = db.conn
    row = conn.execute("SELECT value FROM kb_info WHERE key=?", (PENDING_KEY,)).fetchone()
    if row is None:
        return None
    after = int(row[0]) if after is None else after
    upto = conn.execute("SELECT coalesce(max(rowid), 0) FROM messages").fetchone()[0]
    return upto, (report_candidates(conn, after, upto) if upto > after else [])


def move_mark(conn: sqlite3.Connection, upto: int, final: bool) -> None:
    if final:
        conn.execute("DELETE FROM kb_info WHERE key=?", (PENDING_KEY,))
    else:
        conn.execute("UPDATE kb_info SET value=? WHERE key=?", (str(upto), PENDING_KEY))


#: what :func:`build_reports` answers for a thread with a message without findings
NEEDS_EXTRACTION = "extract"
#: page cache of a worker's connection reading threads for their reports, KiB
READER_CACHE_KIB = 8192


#: what :func:`build_reports` answers for a thread: its id, its report (or None, or
#: :data:`NEEDS_EXTRACTION`) and, with a report, the thread's regression keys
Built = tuple[str, Report | str | None, list[Key] | None]


def build_reports(db_path: str, thread_ids: list[str], upto: int) -> list[Built]:
    """The reports of ``thread_ids`` as the stored messages and findings make them, read from
    ``db_path`` (in an ingest's worker process, while the writer goes on): for each thread
    its :class:`Report`; None when there is nothing to write: no message of it passed the
    prefilter (as :func:`rebuild_threads` writes nothing then), or one stored after ``upto``
    has no findings yet (its job is out; the next flush covers the thread); or
    :data:`NEEDS_EXTRACTION` when a message up to ``upto`` has none (a killed run's: the
    writer extracts it).  With a report come the thread's regression keys, read here and not
    by the writer, the ingest's one serial stage.  Each thread is read in one transaction, so
    its messages, findings and keys are of one moment."""
    db = connect(db_path, create=False)
    conn = db.conn
    out: list[Built] = []
    try:
        db.execute(f"PRAGMA cache_size=-{READER_CACHE_KIB}")  # it reads a thread at a time
        for tid in thread_ids:
            conn.execute("BEGIN")
            try:
                messages = load_messages(db, tid)
                done = extracted_in(conn, tid)
                if not all(m.message_id in done for m in messages):
                    waiting = conn.execute(
                        "SELECT 1 FROM messages m LEFT JOIN extracted_messages e ON e.message_id = m.message_id "
                        "AND e.extractor_version = ? WHERE m.thread_id = ? AND m.rowid <= ? AND e.message_id IS NULL "
                        "LIMIT 1",
                        (EXTRACTOR_VERSION, tid, upto),
                    ).fetchone()
                    out.append((tid, NEEDS_EXTRACTION if waiting else None, None))
                elif not any(done.values()):
                    out.append((tid, None, None))
                else:
                    report = build_report(tid, messages, load_findings(db, [m.message_id for m in messages]))
                    out.append((tid, report, thread_keys_of(conn, tid, report)))
            finally:
                conn.execute("COMMIT")
    finally:
        conn.close()
    return out
