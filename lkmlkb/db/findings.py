"""Findings in the knowledge base: written per message, marked with the extractor version that
produced them, and read back.

A new message in a thread costs only its own extraction; the thread's report
is rebuilt from the stored findings.
"""

from __future__ import annotations

import copy
import json
import sqlite3

import sqlite_utils

from lkmlkb.db.connection import now
from lkmlkb.db.schema import FINDING_TABLES, REPORT_TABLES
from lkmlkb.extract.kernel_versions import sort_key
from lkmlkb.extract.messages import EXTRACTOR_VERSION
from lkmlkb.model import (
    Claim,
    CommitCitation,
    Evidence,
    Findings,
    FioJob,
    KernelMention,
    Result,
    Segment,
    SetupFact,
)


def sort_text(version: str | None) -> str | None:
    """A sort key as text that orders correctly in SQL (zero-padded fields)."""
    if not version:
        return None
    key = sort_key(version)

    def enc(x):
        if isinstance(x, (int, float)):
            return f"{int(x) + 10**9:012d}"
        if isinstance(x, tuple):
            return "(" + ",".join(enc(y) for y in x) + ")"
        return str(x)

    return enc(key)


def _ev_cols(ev: Evidence) -> tuple:
    return (ev.message_id, ev.line_start, ev.line_end, ev.text[:4000], int(ev.quoted))


def _ev(row: sqlite3.Row) -> Evidence:
    return Evidence(
        row["message_id"],
        row["line_start"] or 0,
        row["line_end"] or 0,
        row["evidence"] or "",
        bool(row["quoted"]),
    )


def write_findings(conn: sqlite3.Connection, thread_id: str, f: Findings, passed: bool) -> None:
    write_findings_many(conn, [(thread_id, f, passed)])


def write_findings_many(conn: sqlite3.Connection, items: list[tuple[str, Findings, bool]]) -> None:
    """Replace the findings of several messages (thread id, findings, passed the prefilter).

    The same rows, in the same order per table (so the same ids), as
    :func:`write_findings` one message after another; one statement per table.
    Each message id may appear once.
    """
    if not items:
        return
    mids = [f.message_id for _, f, _ in items]
    for i in range(0, len(mids), 500):
        chunk = mids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for t in (*FINDING_TABLES, "extraction_errors"):
            conn.execute(f"DELETE FROM {t} WHERE message_id IN ({marks})", chunk)
    P = "message_id, line_start, line_end, evidence, quoted, thread_id"
    jobs, results, kernels, commits, setup, claims, errors, extracted = [], [], [], [], [], [], [], []
    stamp = now()
    for thread_id, f, passed in items:
        for j in f.fio_jobs:
            o = {k.lower(): v for k, v in j.options.items()}
            jobs.append(
                (
                    j.name,
                    j.form,
                    json.dumps(j.options),
                    json.dumps(j.global_options),
                    json.dumps(j.normalized, default=str),
                    json.dumps(j.unknown_options),
                    json.dumps(j.notes),
                    o.get("rw", o.get("readwrite")),
                    o.get("bs", o.get("blocksize")),
                    o.get("ioengine"),
                    o.get("iodepth"),
                    o.get("numjobs"),
                    *_ev_cols(j.evidence),
                    thread_id,
                )
            )
        for r in f.results:
            results.append(
                (
                    r.kernel,
                    sort_text(r.kernel),
                    r.label,
                    r.config,
                    r.tool,
                    r.metric,
                    r.direction,
                    r.value,
                    r.unit,
                    r.normalized_value,
                    r.normalized_unit,
                    r.stddev,
                    json.dumps(r.samples),
                    *_ev_cols(r.evidence),
                    thread_id,
                )
            )
        for k in f.kernels:
            kernels.append((k.version, k.raw, sort_text(k.version), k.role, *_ev_cols(k.evidence), thread_id))
        for c in f.commits:
            commits.append(
                (c.sha, c.subject, c.role, c.cue, c.form, c.range_end, *_ev_cols(c.evidence), thread_id)
            )
        for x in f.setup:
            setup.append((x.key, x.value, *_ev_cols(x.evidence), thread_id))
        for claim in f.claims:
            claims.append(
                (
                    claim.kind,
                    claim.stated_pct,
                    claim.metric,
                    claim.cue,
                    *_ev_cols(claim.evidence),
                    thread_id,
                    claim.stated_low,
                )
            )
        for name, reason in f.errors.items():
            errors.append((f.message_id, name, reason, stamp))
        extracted.append(
            (
                f.message_id,
                EXTRACTOR_VERSION,
                int(passed),
                json.dumps({"tools": f.tools, "fio_version": f.fio_version}),
            )
        )
    if jobs:
        conn.executemany(
            f"INSERT INTO fio_jobs(name, form, options, global_options, normalized, unknown_options, notes, "
            f"rw, bs, ioengine, iodepth, numjobs, {P}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            jobs,
        )
    if results:
        conn.executemany(
            f"INSERT INTO results(kernel, kernel_sort, label, config, tool, metric, direction, value, unit, "
            f"normalized_value, normalized_unit, stddev, samples, {P}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            results,
        )
    if kernels:
        conn.executemany(
            f"INSERT INTO kernel_mentions(version, raw, sort_key, role, {P}) VALUES (?,?,?,?,?,?,?,?,?,?)",
            kernels,
        )
    if commits:
        conn.executemany(
            f"INSERT INTO commit_citations(sha, subject, role, cue, form, range_end, {P}) "
            f"VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            commits,
        )
    if setup:
        conn.executemany(f"INSERT INTO setup_facts(key, value, {P}) VALUES (?,?,?,?,?,?,?,?)", setup)
    if claims:
        conn.executemany(
            f"INSERT INTO claims(kind, stated_pct, metric, cue, {P}, stated_low) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            claims,
        )
    if errors:
        conn.executemany(
            "INSERT OR REPLACE INTO extraction_errors(message_id, extractor, reason, at) VALUES (?,?,?,?)",
            errors,
        )
    conn.executemany(
        "INSERT OR REPLACE INTO extracted_messages(message_id, extractor_version, prefilter_passed, extra) "
        "VALUES (?,?,?,?)",
        extracted,
    )


def load_findings(db: sqlite_utils.Database, message_ids: list[str]) -> list[Findings]:
    """The stored findings of each message (in the order given), records in stored order.

    One query per table for all the messages (per 500), not seven per message.
    """
    conn = db.conn
    previous = conn.row_factory
    conn.row_factory = sqlite3.Row
    try:
        by_id = {mid: Findings(mid) for mid in message_ids}
        ids = list(by_id)
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ",".join("?" * len(chunk))

            def rows(table, marks=marks, chunk=chunk):
                return conn.execute(f"SELECT * FROM {table} WHERE message_id IN ({marks}) ORDER BY id", chunk)

            for r in rows("fio_jobs"):
                by_id[r["message_id"]].fio_jobs.append(
                    FioJob(
                        r["name"],
                        r["form"],
                        json.loads(r["options"]),
                        json.loads(r["global_options"] or "{}"),
                        json.loads(r["normalized"] or "{}"),
                        json.loads(r["unknown_options"] or "[]"),
                        json.loads(r["notes"] or "[]"),
                        _ev(r),
                    )
                )
            for r in rows("results"):
                by_id[r["message_id"]].results.append(
                    Result(
                        r["metric"],
                        r["value"],
                        r["unit"],
                        r["kernel"],
                        r["label"],
                        r["config"],
                        r["tool"],
                        r["direction"],
                        r["stddev"],
                        json.loads(r["samples"] or "[]"),
                        r["normalized_value"],
                        r["normalized_unit"],
                        _ev(r),
                    )
                )
            for r in rows("kernel_mentions"):
                by_id[r["message_id"]].kernels.append(
                    KernelMention(r["raw"], r["version"], sort_key(r["version"]), r["role"], _ev(r))
                )
            for r in rows("commit_citations"):
                by_id[r["message_id"]].commits.append(
                    CommitCitation(
                        r["sha"],
                        r["subject"],
                        r["role"],
                        r["cue"] or "",
                        r["form"] or "prose",
                        r["range_end"],
                        _ev(r),
                    )
                )
            for r in rows("setup_facts"):
                by_id[r["message_id"]].setup.append(SetupFact(r["key"], r["value"], _ev(r)))
            for r in rows("claims"):
                by_id[r["message_id"]].claims.append(
                    Claim(r["kind"], r["stated_pct"], r["metric"], r["cue"] or "", _ev(r), r["stated_low"])
                )
            for r in conn.execute(
                f"SELECT message_id, extra FROM extracted_messages WHERE message_id IN ({marks})", chunk
            ):
                if r["extra"]:
                    extra = json.loads(r["extra"])
                    f = by_id[r["message_id"]]
                    f.tools = extra.get("tools") or []
                    f.fio_version = extra.get("fio_version")
        # a message id given twice gets its findings twice, each its own objects
        seen: set[str] = set()
        out = []
        for mid in message_ids:
            out.append(by_id[mid] if mid not in seen else copy.deepcopy(by_id[mid]))
            seen.add(mid)
        return out
    finally:
        conn.row_factory = previous


def extracted_in(conn: sqlite3.Connection, thread_id: str) -> dict[str, int]:
    """message id -> prefilter_passed of the thread's messages with current findings."""
    return dict(
        conn.execute(
            "SELECT e.message_id, e.prefilter_passed FROM extracted_messages e JOIN messages m "
            "ON m.message_id = e.message_id WHERE m.thread_id=? AND e.extractor_version=?",
            (thread_id, EXTRACTOR_VERSION),
        ).fetchall()
    )


def store_quote_origins(conn: sqlite3.Connection, attributed: list[tuple[str, list[Segment]]]) -> None:
    """Record the origin attribution found for each quoted segment of (message id, segments)."""
    conn.executemany(
        "UPDATE segments SET quotes_message_id=? WHERE message_id=? AND seq=?",
        [
            (s.quotes_message_id, mid, n)
            for mid, segs in attributed
            for n, s in enumerate(segs)
            if s.quotes_message_id
        ],
    )


def drop_all_extraction(conn: sqlite3.Connection) -> None:
    """Delete every finding, extraction record and report (one transaction): what reprocessing
    the whole knowledge base builds again; messages, threads and copies stay."""
    conn.execute("BEGIN IMMEDIATE")
    for t in (*FINDING_TABLES, "extraction_errors", "extracted_messages", *REPORT_TABLES, "reports"):
        conn.execute(f"DELETE FROM {t}")
    conn.execute("COMMIT")


def drop_extraction_marks(conn: sqlite3.Connection, thread_ids: list[str]) -> None:
    """Mark every message of ``thread_ids`` as not extracted (one transaction), so that the next
    rebuild of those threads extracts them again."""
    conn.execute("BEGIN IMMEDIATE")
    for tid in thread_ids:
        mids = [r[0] for r in conn.execute("SELECT message_id FROM messages WHERE thread_id=?", (tid,))]
        for mid in mids:
            conn.execute("DELETE FROM extracted_messages WHERE message_id=?", (mid,))
    conn.execute("COMMIT")


#: the extra column of a message recorded without being extracted
_NO_EXTRA = json.dumps({"tools": [], "fio_version": None})


def record_unextracted(conn: sqlite3.Connection, message_ids: list[str]) -> None:
    """Record new messages as extracted and not passing the prefilter (nothing stored for them yet,
    so no old findings to delete)."""
    conn.executemany(
        "INSERT OR REPLACE INTO extracted_messages(message_id, extractor_version, prefilter_passed, "
        "extra) VALUES (?,?,?,?)",
        [(mid, EXTRACTOR_VERSION, 0, _NO_EXTRA) for mid in message_ids],
    )


def extraction_state(conn: sqlite3.Connection, thread_id: str) -> list[tuple[str, int | None]]:
    """(message id, prefilter_passed, None where it has no current findings) of every message of
    a thread, in the order the thread is read (dated messages by date, then undated ones)."""
    return conn.execute(
        "SELECT m.message_id, e.prefilter_passed FROM messages m LEFT JOIN extracted_messages e "
        "ON e.message_id = m.message_id AND e.extractor_version = ? WHERE m.thread_id = ? "
        "ORDER BY m.date_utc IS NULL, m.date_utc, m.rowid",
        (EXTRACTOR_VERSION, thread_id),
    ).fetchall()
