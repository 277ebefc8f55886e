"""Findings and reports in the knowledge base: write, load, rebuild, reprocess.

The store's second half (``store.py`` holds messages and threads).  Findings
are kept per message, marked with the extractor version that produced them,
so a new message in a thread costs only its own extraction; the thread's
report is rebuilt from the stored findings.  ``reprocess`` drops what the
extractors produced and builds it again from the stored messages, leaving
messages, threads and copies untouched.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import sqlite3
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import sqlite_utils

from lkmlkb.db.store import FINDING_TABLES, REPORT_TABLES, connect, now
from lkmlkb.extract.kernel_versions import sort_key
from lkmlkb.extract.views import EXTRACTOR_VERSION, extract_message
from lkmlkb.model import (
    Claim,
    CommitCitation,
    Evidence,
    Findings,
    FioJob,
    KernelMention,
    Message,
    Report,
    Result,
    Segment,
    SetupFact,
)
from lkmlkb.reports.build import build_report
from lkmlkb.threads.segments import (
    MIN_QUOTE_CHARS,
    QuoteIndex,
    attribute_message,
    attribute_quotes,
    segment_body,
)

log = logging.getLogger(__name__)



def _sort_text(version: str | None) -> str | None:
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
    return Evidence(row["message_id"], row["line_start"] or 0, row["line_end"] or 0, row["evidence"] or "",
                    bool(row["quoted"]))


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
        chunk = mids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for t in (*FINDING_TABLES, "extraction_errors"):
            conn.execute(f"DELETE FROM {t} WHERE message_id IN ({marks})", chunk)
    P = "message_id, line_start, line_end, evidence, quoted, thread_id"
    jobs, results, kernels, commits, setup, claims, errors, extracted = [], [], [], [], [], [], [], []
    stamp = now()
    for thread_id, f, passed in items:
        for j in f.fio_jobs:
            o = {k.lower(): v for k, v in j.options.items()}
            jobs.append((j.name, j.form, json.dumps(j.options), json.dumps(j.global_options),
                         json.dumps(j.normalized, default=str), json.dumps(j.unknown_options), json.dumps(j.notes),
                         o.get("rw", o.get("readwrite")), o.get("bs", o.get("blocksize")), o.get("ioengine"),
                         o.get("iodepth"), o.get("numjobs"), *_ev_cols(j.evidence), thread_id))
        for r in f.results:
            results.append((r.kernel, _sort_text(r.kernel), r.label, r.config, r.tool, r.metric, r.direction, r.value,
                            r.unit, r.normalized_value, r.normalized_unit, r.stddev, json.dumps(r.samples),
                            *_ev_cols(r.evidence), thread_id))
        for k in f.kernels:
            kernels.append((k.version, k.raw, _sort_text(k.version), k.role, *_ev_cols(k.evidence), thread_id))
        for c in f.commits:
            commits.append((c.sha, c.subject, c.role, c.cue, c.form, c.range_end, *_ev_cols(c.evidence), thread_id))
        for x in f.setup:
            setup.append((x.key, x.value, *_ev_cols(x.evidence), thread_id))
        for c in f.claims:
            claims.append((c.kind, c.stated_pct, c.metric, c.cue, *_ev_cols(c.evidence), thread_id))
        for name, reason in f.errors.items():
            errors.append((f.message_id, name, reason, stamp))
        extracted.append((f.message_id, EXTRACTOR_VERSION, int(passed),
                          json.dumps({"tools": f.tools, "fio_version": f.fio_version})))
    if jobs:
        conn.executemany(
            f"INSERT INTO fio_jobs(name, form, options, global_options, normalized, unknown_options, notes, "
            f"rw, bs, ioengine, iodepth, numjobs, {P}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", jobs)
    if results:
        conn.executemany(
            f"INSERT INTO results(kernel, kernel_sort, label, config, tool, metric, direction, value, unit, "
            f"normalized_value, normalized_unit, stddev, samples, {P}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            results)
    if kernels:
        conn.executemany(f"INSERT INTO kernel_mentions(version, raw, sort_key, role, {P}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                         kernels)
    if commits:
        conn.executemany(f"INSERT INTO commit_citations(sha, subject, role, cue, form, range_end, {P}) "
                         f"VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", commits)
    if setup:
        conn.executemany(f"INSERT INTO setup_facts(key, value, {P}) VALUES (?,?,?,?,?,?,?,?)", setup)
    if claims:
        conn.executemany(f"INSERT INTO claims(kind, stated_pct, metric, cue, {P}) VALUES (?,?,?,?,?,?,?,?,?,?)", claims)
    if errors:
        conn.executemany("INSERT OR REPLACE INTO extraction_errors(message_id, extractor, reason, at) VALUES (?,?,?,?)",
                         errors)
    conn.executemany("INSERT OR REPLACE INTO extracted_messages(message_id, extractor_version, prefilter_passed, extra) "
                     "VALUES (?,?,?,?)", extracted)


_MESSAGE_FIELDS = ("message_id, subject, from_name, from_addr, from_obfuscated, date_raw, date_utc, in_reply_to, "
                   "\"references\", body, archive_url, lists, source, synthetic_id, parent_id")


def _message_of(r: tuple) -> Message:
    m = Message(message_id=r[0], subject=r[1] or "", from_name=r[2] or "", from_addr=r[3] or "",
                from_obfuscated=bool(r[4]), date_raw=r[5] or "", date_utc=r[6], in_reply_to=r[7],
                references=json.loads(r[8] or "[]"), body=r[9] or "", archive_url=r[10],
                lists=json.loads(r[11] or "[]"), source=r[12] or "", synthetic_id=bool(r[13]))
    if not m.in_reply_to and r[14]:
        m.quoted_parent = r[14]
    return m


def load_messages(db: sqlite_utils.Database, thread_id: str) -> list[Message]:
    rows = db.execute(
        f"SELECT {_MESSAGE_FIELDS} FROM messages "
        "WHERE thread_id=? ORDER BY date_utc IS NULL, date_utc, rowid", (thread_id,)).fetchall()
    return [_message_of(r) for r in rows]


def _rows_in(conn: sqlite3.Connection, sql: str, ids: list) -> Iterator[tuple]:
    """The rows of ``sql``, whose one ``IN ({marks})`` takes ``ids``: 500 a statement (old
    SQLite builds allow 999 variables)."""
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        yield from conn.execute(sql.replace("{marks}", ",".join("?" * len(chunk))), chunk)


def _load_by_ids(conn: sqlite3.Connection, ids: list[str]) -> dict[str, Message]:
    return {r[0]: _message_of(r)
            for r in _rows_in(conn, f"SELECT {_MESSAGE_FIELDS} FROM messages WHERE message_id IN ({{marks}})", ids)}


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
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))

            def rows(table, marks=marks, chunk=chunk):
                return conn.execute(f"SELECT * FROM {table} WHERE message_id IN ({marks}) ORDER BY id", chunk)

            for r in rows("fio_jobs"):
                by_id[r["message_id"]].fio_jobs.append(
                    FioJob(r["name"], r["form"], json.loads(r["options"]), json.loads(r["global_options"] or "{}"),
                           json.loads(r["normalized"] or "{}"), json.loads(r["unknown_options"] or "[]"),
                           json.loads(r["notes"] or "[]"), _ev(r)))
            for r in rows("results"):
                by_id[r["message_id"]].results.append(
                    Result(r["metric"], r["value"], r["unit"], r["kernel"], r["label"], r["config"], r["tool"],
                           r["direction"], r["stddev"], json.loads(r["samples"] or "[]"), r["normalized_value"],
                           r["normalized_unit"], _ev(r)))
            for r in rows("kernel_mentions"):
                by_id[r["message_id"]].kernels.append(
                    KernelMention(r["raw"], r["version"], sort_key(r["version"]), r["role"], _ev(r)))
            for r in rows("commit_citations"):
                by_id[r["message_id"]].commits.append(
                    CommitCitation(r["sha"], r["subject"], r["role"], r["cue"] or "", r["form"] or "prose",
                                   r["range_end"], _ev(r)))
            for r in rows("setup_facts"):
                by_id[r["message_id"]].setup.append(SetupFact(r["key"], r["value"], _ev(r)))
            for r in rows("claims"):
                by_id[r["message_id"]].claims.append(
                    Claim(r["kind"], r["stated_pct"], r["metric"], r["cue"] or "", _ev(r)))
            for r in conn.execute(f"SELECT message_id, extra FROM extracted_messages WHERE message_id IN ({marks})",
                                  chunk):
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


def extract_new_in_thread(db: sqlite_utils.Database, thread_id: str, messages: list[Message]) -> bool:
    """Store findings for the thread's messages that have none yet; True if any passed the prefilter.

    The whole thread is segmented and attributed here: this is the path of
    ``reprocess`` and of a killed run's leftovers (:func:`flush_reports`);
    an ingest's batches take :func:`_extract_new_with_index`.
    """
    conn = db.conn
    done = _extracted_in(conn, thread_id)
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
    _store_quote_origins(conn, [(msg.message_id, segs) for msg, segs in todo])
    return any_passed


def _extracted_in(conn: sqlite3.Connection, thread_id: str) -> dict[str, int]:
    """message id -> prefilter_passed of the thread's messages with current findings."""
    return dict(conn.execute(
        "SELECT e.message_id, e.prefilter_passed FROM extracted_messages e JOIN messages m "
        "ON m.message_id = e.message_id WHERE m.thread_id=? AND e.extractor_version=?",
        (thread_id, EXTRACTOR_VERSION)).fetchall())


def _store_quote_origins(conn: sqlite3.Connection, attributed: list[tuple[str, list[Segment]]]) -> None:
    """Record the origin attribution found for each quoted segment of (message id, segments)."""
    conn.executemany("UPDATE segments SET quotes_message_id=? WHERE message_id=? AND seq=?",
                     [(s.quotes_message_id, mid, n) for mid, segs in attributed
                      for n, s in enumerate(segs) if s.quotes_message_id])


def write_report(conn: sqlite3.Connection, r: Report) -> str:
    rid = r.thread_id
    conn.execute("DELETE FROM reports WHERE report_id=?", (rid,))
    for t in REPORT_TABLES:
        conn.execute(f"DELETE FROM {t} WHERE report_id=?", (rid,))
    if not (r.results or r.fio_jobs or r.commits or r.is_regression_report or r.kind):
        return rid
    setup = {s.key: s.value for s in r.setup}
    from lkmlkb.reports.build import headline

    pair = headline(r.results)
    culprits = [c.sha for c in r.commits if c.role == "culprit"]
    fixes = [c.sha for c in r.commits if c.role in ("fix", "revert")]
    workload = "; ".join(" ".join(f"{k}={v}" if v != "" else k for k, v in j.options.items()) for j in r.fio_jobs[:4])
    summary = " ".join([r.title or "", ", ".join(k.version for k in r.kernel_versions),
                        " ".join(f'{c.sha} {c.subject or ""}' for c in r.commits), " ".join(r.tools)])
    conn.execute(
        "INSERT INTO reports(report_id, thread_id, title, is_regression_report, kind, status, workload, tools, "
        "good_kernel, bad_kernel, stated_pct, computed_pct, regression_pct, pct_disagrees, headline_metric, "
        "baseline_value, regressed_value, unit, culprits, fixes, fio_version, scheduler, filesystem, device_class, "
        "people, lists, first_date, last_date, message_count, first_message_id, summary, built) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (rid, r.thread_id, r.title, int(r.is_regression_report), r.kind, r.status, workload,
         json.dumps(r.tools), r.good_kernel, r.bad_kernel, r.stated_pct, r.computed_pct, r.regression_pct,
         int(r.pct_disagrees), pair[0].metric if pair else None, pair[0].value if pair else None,
         pair[1].value if pair else None, pair[0].unit if pair else None, json.dumps(culprits), json.dumps(fixes),
         r.fio_version, setup.get("scheduler"), setup.get("filesystem"), setup.get("device_class", setup.get("device")),
         json.dumps(r.people), json.dumps(r.lists), r.first_date, r.last_date, len(r.message_ids),
         r.message_ids[0] if r.message_ids else None, summary, now()))
    conn.executemany("INSERT OR IGNORE INTO report_kernels(report_id, version, sort_key, role) VALUES (?,?,?,?)",
                     [(rid, k.version, _sort_text(k.version), k.role) for k in r.kernel_versions])
    conn.executemany("INSERT OR IGNORE INTO report_commits(report_id, sha, subject, role, message_id, line_start, "
                     "line_end, cue) VALUES (?,?,?,?,?,?,?,?)",
                     [(rid, c.sha, c.subject, c.role, c.evidence.message_id, c.evidence.line_start,
                       c.evidence.line_end, c.cue) for c in r.commits])
    conn.executemany("INSERT OR IGNORE INTO setups(report_id, key, value, message_id) VALUES (?,?,?,?)",
                     [(rid, s.key, s.value, s.evidence.message_id) for s in r.setup])
    # results carry the report id and their final labels
    conn.execute("UPDATE results SET report_id=NULL WHERE thread_id=?", (rid,))
    conn.executemany("UPDATE results SET report_id=?, label=? WHERE rowid=?", _result_rows(conn, rid, r.results))
    conn.execute("UPDATE fio_jobs SET report_id=? WHERE thread_id=?", (rid, rid))
    return rid


def _result_rows(conn: sqlite3.Connection, rid: str, results: list) -> list[tuple]:
    """(report id, label, rowid) for every stored result row each of ``results`` stands for:
    the rows of its message on its line with its metric, value and kernel, later results
    relabelling a row after earlier ones.  The rows are read once and matched in a dict (an
    UPDATE per result scanned all of its message's results: a message with 6,000 took 6 s)."""
    ids = sorted({x.evidence.message_id for x in results})
    rows: dict[tuple, list[int]] = {}
    for rowid, *key in _rows_in(conn, "SELECT rowid, message_id, line_start, metric, value, coalesce(kernel, '') "
                                      "FROM results WHERE message_id IN ({marks})", ids):
        if None not in key[:4]:
            rows.setdefault(tuple(key), []).append(rowid)
    out = []
    for x in results:
        key = (x.evidence.message_id, x.evidence.line_start, x.metric, x.value)
        if None not in key:  # SQL's "= NULL" matches nothing
            out.extend((rid, x.label, rowid) for rowid in rows.get((*key, x.kernel or ""), ()))
    return out


def rebuild_threads(db: sqlite_utils.Database, thread_ids: Iterable[str], only_if_candidate: bool = True) -> int:
    """Extract what is new in each thread and rebuild its report; returns reports written."""
    n = 0
    conn = db.conn
    for tid in thread_ids:
        messages = load_messages(db, tid)
        if not messages:
            continue
        with _writing(conn):
            passed = extract_new_in_thread(db, tid, messages)
            if passed or not only_if_candidate:
                findings = load_findings(db, [m.message_id for m in messages])
                report = build_report(tid, messages, findings)
                write_report(conn, report)
                n += 1
    return n


@contextlib.contextmanager
def _writing(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction: committed at the end of the block, rolled back if it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _threads_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, str]:
    return dict(_rows_in(conn, "SELECT message_id, thread_id FROM messages WHERE message_id IN ({marks})", ids))


@dataclass
class Job:
    """A message of a batch whose findings are written after its thread's quotes are attributed.

    ``extract``: the extractors must read it (it passed the prefilter, or was
    not screened); else it is recorded as not passing.  The quoted segments
    of ``segments`` carry their origins, so the extractors read only what the
    message says itself (:func:`pipeline.build_view`).
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


def store_batch_findings(db: sqlite_utils.Database, prepared: list, pending: set[str]) -> list[Job]:
    """Record a batch of new messages for extraction (one transaction); returns the jobs left to do.

    Messages that cannot hold a report (the workers screened them with
    :func:`pipeline.may_hold_report`) are written in bulk as not passing.  A
    thread with a new message that may hold one is attributed (quotes of its
    earlier messages marked) as :func:`extract_new_in_thread` does, and its
    new messages become jobs: extracted (in the workers, or by
    :func:`run_jobs`) and written by :func:`write_jobs`, in job order.
    ``pending`` holds ids of messages whose jobs are not written yet (they
    count as extracted).  Reports are built by :func:`flush_reports`.
    """
    new = {p.message.message_id: p for p in prepared}
    if not new:
        return []
    conn = db.conn
    thread_of = _threads_of(conn, list(new))
    attribute = {thread_of[mid] for mid, p in new.items() if mid in thread_of and p.may_pass}
    empty = [(mid, EXTRACTOR_VERSION, 0, _NO_EXTRA) for mid in new
             if mid in thread_of and thread_of[mid] not in attribute]
    jobs: list[Job] = []
    cache = _said_cache(db)
    conn.execute("BEGIN IMMEDIATE")
    try:
        for mid, p in new.items():
            if getattr(p, "segments", None) is not None:
                cache.put(mid, p.segments, squeeze=False)
        # new messages: nothing stored for them yet, so no old findings to delete
        conn.executemany("INSERT OR REPLACE INTO extracted_messages(message_id, extractor_version, prefilter_passed, "
                         "extra) VALUES (?,?,?,?)", empty)
        for tid in sorted(attribute):
            jobs.extend(_extract_new_with_index(conn, tid, new, cache, pending))
        conn.execute("COMMIT")
    except BaseException:
        cache.clear()  # it may hold messages of the rolled-back transaction
        conn.execute("ROLLBACK")
        raise
    return jobs


_NO_EXTRA = json.dumps({"tools": [], "fio_version": None})


def run_jobs(jobs: list[Job], extracted: list[tuple[Findings, bool]] | None = None) -> None:
    """Give each job that needs extraction its findings and prefilter outcome: ``extracted``,
    what a worker's :func:`pipeline.extract_payloads` returned for their payloads, or else
    extracted in this process."""
    from lkmlkb.extract.views import extract_payloads

    todo = [j for j in jobs if j.extract]
    if extracted is None:
        extracted = extract_payloads([j.payload() for j in todo])
    for j, (f, passed) in zip(todo, extracted):
        j.findings, j.passed = f, passed


def write_jobs(db: sqlite_utils.Database, jobs: list[Job]) -> None:
    """Write the findings of extracted jobs (one transaction); jobs not extracted are recorded
    as not passing.  Nothing quoted from a known message is among them: the extractors saw
    those quotes blank (:func:`pipeline.build_view`)."""
    if not jobs:
        return
    conn = db.conn
    with _writing(conn):
        # a later batch may have merged the thread into another while the job was out
        thread_of = _threads_of(conn, [j.message.message_id for j in jobs])
        write_findings_many(conn, [(thread_of.get(j.message.message_id, j.thread_id),
                                    j.findings or Findings(j.message.message_id),
                                    j.passed) for j in jobs])


#: lines of earlier messages kept between batches (per database connection) for quote attribution
SAID_CACHE_LINES = 400_000
_said_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _SaidCache:
    """message id -> the lines of its new and patch segments, each with its :func:`_squeeze`.

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
            said = _said_lines(said)
            self.said[mid] = (size, said)
        return said

    def put(self, mid: str, segments: list[Segment], squeeze: bool = True) -> list:
        said = _said_lines(segments) if squeeze else [s for s in segments if s.kind in ("new", "patch")]
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


def _said_lines(segments: list[Segment]) -> list[tuple[str, str]]:
    """(squeeze, line) of the lines of the new and patch segments that can have a
    ``threads.line_key`` (what ``QuoteIndex.add`` indexes; see :func:`_may_have_key`)."""
    return [(_squeeze(line), line) for s in segments if s.kind in ("new", "patch")
            for line in s.text.split("\n") if _may_have_key(line)]


def _may_have_key(line: str) -> bool:
    """False only for lines ``threads.line_key`` gives no key: whitespace runs made one
    space never lengthen a line, and lower-casing lengthens only non-ASCII ones ("İ")."""
    return len(line) >= MIN_QUOTE_CHARS or not line.isascii()


def _said_cache(db: sqlite_utils.Database) -> _SaidCache:
    cache = _said_caches.get(db)
    if cache is None:
        cache = _said_caches[db] = _SaidCache()
    return cache


def _squeeze(line: str) -> str:
    """The text ``threads.line_key`` hashes (whitespace runs made one space, stripped,
    lower-cased) without its spaces: equal for two lines whenever their keys are, so
    lines whose squeeze no quoted line has can never be the origin of a quote.  It is
    lower-cased with the spaces in, as the key is: the lower case of some letters
    depends on what follows (Greek "Σ" ends a word as "ς"); an ASCII letter's does not."""
    if line.isascii():  # its whitespace deleted as bytes: a third faster than joining its words
        return line.encode().translate(None, _ASCII_SPACE).lower().decode()
    return " ".join(line.split()).lower().replace(" ", "")


#: what ``str.split`` splits an ASCII line at (\x1c-\x1f too)
_ASCII_SPACE = bytes(c for c in range(128) if chr(c).isspace())


def _extract_new_with_index(conn: sqlite3.Connection, thread_id: str, new: dict, cache: _SaidCache,
                            pending: set[str]) -> list[Job]:
    """:func:`extract_new_in_thread` for a thread that got messages from the workers (``new``),
    up to the extraction: the quotes are attributed (and stored) and the messages
    without findings returned as jobs, in thread order.

    Same findings, attributions and writes, once the jobs are done.  The quote index is built only
    from the lines of earlier messages that can be the origin of a line
    quoted in a message being attributed (same :func:`_squeeze`): the origin
    ``QuoteIndex.source_of`` finds for those quotes is the same as with the
    whole thread indexed, at a fraction of the line hashing.  What earlier
    messages said is kept in ``cache``, so they are not read and segmented
    again for every batch.  The workers' segments of a new message are
    ``segment_body`` of the body stored from it.
    """
    order = conn.execute(
        "SELECT m.message_id, e.prefilter_passed FROM messages m LEFT JOIN extracted_messages e "
        "ON e.message_id = m.message_id AND e.extractor_version = ? WHERE m.thread_id = ? "
        "ORDER BY m.date_utc IS NULL, m.date_utc, m.rowid", (EXTRACTOR_VERSION, thread_id)).fetchall()
    ids = [mid for mid, _ in order]
    done = {mid for mid, passed in order if passed is not None or mid in pending}
    if len(done) == len(ids):
        return []
    todo = [mid for mid in ids if mid not in done]

    def worker_segments(mid):
        p = new.get(mid)
        return getattr(p, "segments", None) if p is not None else None

    # todo messages first: their quoted lines decide which lines of earlier messages matter
    loaded = _load_by_ids(conn, [mid for mid in todo if mid not in new])
    segments: dict[str, list[Segment]] = {}
    for mid in todo:
        segs = worker_segments(mid)
        segments[mid] = segs if segs is not None else segment_body(loaded[mid].body)
    quoted = {_squeeze(line) for mid in todo for s in segments[mid] if s.kind == "quoted"
              for line in s.text.split("\n") if _may_have_key(line)}
    # messages after the last todo one are no one's origin here; without quoted lines, nothing is
    last = ids.index(todo[-1]) if quoted else -1
    said_before = {mid: cache.get(mid) for mid in ids[:last] if mid in done}
    # stored messages are read only where neither the workers' output nor the cache does
    loaded.update(_load_by_ids(conn, [mid for mid, said in said_before.items()
                                      if said is None and worker_segments(mid) is None]))
    for mid, said in said_before.items():
        if said is None:
            segs = worker_segments(mid)
            said_before[mid] = cache.put(mid, segs if segs is not None else segment_body(loaded[mid].body))
    index = QuoteIndex()
    indexed: set[str] = set()  # squeezes of the lines in the index

    def indexed_lines(text: str) -> str:
        """The lines of a quote that can have an indexed key (their order kept: same winner)."""
        return "\n".join(line for line in text.split("\n") if _may_have_key(line) and _squeeze(line) in indexed)

    # threads.attribute_quotes, step by step, up to the last message attributed (empty when nothing
    # is quoted); done messages' attributions are not stored
    for n, mid in enumerate(ids[:last + 1]):
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
    _store_quote_origins(conn, [(mid, segments[mid]) for mid in todo])
    return [Job(thread_id, new[mid].message if mid in new else loaded[mid], segments[mid],
                mid not in new or new[mid].may_pass, screened_pass=mid in new and new[mid].screened_pass)
            for mid in todo]


#: kb_info key: messages with a larger rowid may lack findings or a current report
PENDING_KEY = "reports_pending_after"


def begin_reports(db: sqlite_utils.Database) -> None:
    """Mark where an extracting ingest's messages start (an interrupted run's mark is kept)."""
    db.conn.execute("INSERT OR IGNORE INTO kb_info(key, value) "
                    "VALUES (?, (SELECT coalesce(max(rowid), 0) FROM messages))", (PENDING_KEY,))


def _report_candidates(conn: sqlite3.Connection, after: int, upto: int) -> list[str]:
    """Threads with a message in (after, upto] that have a message that passed the prefilter
    or a message without current findings (an interrupted run)."""
    touched = [r[0] for r in conn.execute(
        "SELECT DISTINCT thread_id FROM messages WHERE rowid > ? AND rowid <= ?", (after, upto))]
    out = {r[0] for r in _rows_in(
        conn, "SELECT DISTINCT m.thread_id FROM messages m JOIN extracted_messages e ON e.message_id = m.message_id "
        "WHERE m.thread_id IN ({marks}) AND e.prefilter_passed = 1", touched)}
    out.update(r[0] for r in conn.execute(
        "SELECT DISTINCT m.thread_id FROM messages m LEFT JOIN extracted_messages e ON e.message_id = m.message_id "
        "AND e.extractor_version = ? WHERE m.rowid > ? AND m.rowid <= ? AND e.message_id IS NULL",
        (EXTRACTOR_VERSION, after, upto)))
    return sorted(out)


def flush_reports(db: sqlite_utils.Database, final: bool = False) -> int:
    """Rebuild the report of every thread that got messages since the mark; returns reports written.

    Messages without findings there (a run killed between storing a batch
    and its findings) are extracted here.  ``final`` clears the mark.
    """
    plan = report_plan(db)
    if plan is None:
        return 0
    upto, thread_ids = plan
    n = rebuild_threads(db, thread_ids)
    _move_mark(db.conn, upto, final)
    return n


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
    return upto, (_report_candidates(conn, after, upto) if upto > after else [])


def _move_mark(conn: sqlite3.Connection, upto: int, final: bool) -> None:
    if final:
        conn.execute("DELETE FROM kb_info WHERE key=?", (PENDING_KEY,))
    else:
        conn.execute("UPDATE kb_info SET value=? WHERE key=?", (str(upto), PENDING_KEY))


#: what :func:`build_reports` answers for a thread with a message without findings
NEEDS_EXTRACTION = "extract"
#: page cache of a worker's connection reading threads for their reports, KiB
READER_CACHE_KIB = 8192


def build_reports(db_path: str, thread_ids: list[str], upto: int) -> list[tuple[str, Report | str | None]]:
    """The reports of ``thread_ids`` as the stored messages and findings make them, read from
    ``db_path`` (in an ingest's worker process, while the writer goes on): for each thread
    its :class:`Report`; None when there is nothing to write: no message of it passed the
    prefilter (as :func:`rebuild_threads` writes nothing then), or one stored after ``upto``
    has no findings yet (its job is out; the next flush covers the thread); or
    :data:`NEEDS_EXTRACTION` when a message up to ``upto`` has none (a killed run's: the
    writer extracts it).  Each thread is read in one transaction, so its messages and
    findings are of one moment."""
    db = connect(db_path, create=False)
    conn = db.conn
    out: list[tuple[str, Report | str | None]] = []
    try:
        db.execute(f"PRAGMA cache_size=-{READER_CACHE_KIB}")  # it reads a thread at a time
        for tid in thread_ids:
            conn.execute("BEGIN")
            try:
                messages = load_messages(db, tid)
                done = _extracted_in(conn, tid)
                if not all(m.message_id in done for m in messages):
                    waiting = conn.execute(
                        "SELECT 1 FROM messages m LEFT JOIN extracted_messages e ON e.message_id = m.message_id "
                        "AND e.extractor_version = ? WHERE m.thread_id = ? AND m.rowid <= ? AND e.message_id IS NULL "
                        "LIMIT 1", (EXTRACTOR_VERSION, tid, upto)).fetchone()
                    out.append((tid, NEEDS_EXTRACTION if waiting else None))
                elif not any(done.values()):
                    out.append((tid, None))
                else:
                    out.append((tid, build_report(tid, messages, load_findings(db, [m.message_id for m in messages]))))
            finally:
                conn.execute("COMMIT")
    finally:
        conn.close()
    return out


def write_reports(db: sqlite_utils.Database, built: list[tuple[str, Report | str | None]], upto: int,
                  final: bool = False) -> int:
    """Write what :func:`build_reports` answered, then move the mark to ``upto`` (``final``:
    clear it); returns reports written.  A thread merged into another since it was read
    has no report any more; one that needs extraction is rebuilt here."""
    conn = db.conn
    n = 0
    with _writing(conn):
        live = {r[0] for r in _rows_in(conn, "SELECT DISTINCT thread_id FROM messages WHERE thread_id IN ({marks})",
                                       [tid for tid, r in built if isinstance(r, Report)])}
        for tid, r in built:
            if isinstance(r, Report) and tid in live:
                write_report(conn, r)
                n += 1
    n += rebuild_threads(db, [tid for tid, r in built if r == NEEDS_EXTRACTION])
    _move_mark(conn, upto, final)
    return n


def reprocess(db: sqlite_utils.Database, thread_ids: list[str] | None = None) -> int:
    """Re-run extraction and report building over stored messages."""
    conn = db.conn
    if thread_ids is None:
        thread_ids = [r[0] for r in conn.execute("SELECT thread_id FROM threads ORDER BY first_date")]
        conn.execute("BEGIN IMMEDIATE")
        for t in (*FINDING_TABLES, "extraction_errors", "extracted_messages", *REPORT_TABLES, "reports"):
            conn.execute(f"DELETE FROM {t}")
        conn.execute("COMMIT")
    else:
        conn.execute("BEGIN IMMEDIATE")
        for tid in thread_ids:
            mids = [r[0] for r in conn.execute("SELECT message_id FROM messages WHERE thread_id=?", (tid,))]
            for mid in mids:
                conn.execute("DELETE FROM extracted_messages WHERE message_id=?", (mid,))
        conn.execute("COMMIT")
    return rebuild_threads(db, thread_ids)


def load_report(db: sqlite_utils.Database, report_id: str) -> Report | None:
    """The report of a thread, rebuilt from stored messages and findings."""
    row = db.execute("SELECT thread_id FROM reports WHERE report_id=?", (report_id,)).fetchone()
    if not row:
        return None
    messages = load_messages(db, row[0])
    findings = load_findings(db, [m.message_id for m in messages])
    return build_report(row[0], messages, findings)
