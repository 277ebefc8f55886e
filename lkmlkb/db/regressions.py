"""Regressions in the knowledge base: each report thread's keys written with its report, the
grouping rewritten from the stored keys, and the read-only questions the CLI and the web ask."""

from __future__ import annotations

import json
import sqlite3
import urllib.parse
from collections.abc import Iterable
from dataclasses import asdict

from lkmlkb.db.connection import has_table, rows_in
from lkmlkb.db.schema import IN_TREE
from lkmlkb.extract.kernel_versions import sort_key
from lkmlkb.model import Report
from lkmlkb.regressions.group import ThreadRow, group
from lkmlkb.regressions.keys import (
    DUP_OF,
    LINK,
    METRIC,
    REFERS,
    ROBOT_WORKLOAD,
    WORKLOAD,
    Key,
    Mail,
    ThreadInput,
    link_targets,
    thread_keys,
)
from lkmlkb.reports.labels import headline

#: the prefix of a regression's id (a report's id is a Message-ID: it has an @)
ID_PREFIX = "reg-"
#: where `lkmlkb serve` shows a regression
PAGE_PREFIX = "/-/lkmlkb/regression/"
#: at most this many earlier regressions of the same workload are listed with a regression
EARLIER_LIMIT = 10
#: timeline events that tell a fix or revert landed: they name where, once a tree was linked
LANDING_EVENTS = ("fixed", "reverted")


def is_regression_id(text: str) -> bool:
    return text.startswith(ID_PREFIX) and "@" not in text


def regression_page(regression_id: str) -> str:
    """The path of a regression's page on `lkmlkb serve`."""
    return PAGE_PREFIX + urllib.parse.quote(regression_id, safe="")


#: kb_info key: messages with a larger rowid have not been looked at for link lines yet
MARK_KEY = "regression_keys_after"
#: what a message of a thread without a report must say for the thread to get keys: a patch
#: that fixes or reverts a commit, a tag pointing at a report, a regzbot command
#: key kind: the thread's messages have no Message-ID of their own (a pasted copy)
SYNTHETIC = "synthetic"
#: kb_info key: the state of the keys the stored grouping was made from (nothing changed: no regroup)
BUILT_KEY = "regressions_built_from"


def _kb_info(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM kb_info WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


LINK_MARKERS = ("Fixes:", "This reverts commit", "#regzbot", "Closes:", "Link:")


def _thread_without_report(conn: sqlite3.Connection, thread_id: str) -> tuple | None:
    """A thread without a report as a ``reports`` row would give it (title, no regression report,
    no status, no commits, its people, first date, no metric)."""
    row = conn.execute("SELECT subject, first_date FROM threads WHERE thread_id=?", (thread_id,)).fetchone()
    if row is None:
        return None
    people = [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT coalesce(nullif(from_name, ''), from_addr) FROM messages WHERE thread_id=?",
            (thread_id,),
        )
        if r[0]
    ]
    return (row[0], 0, None, "[]", "[]", json.dumps(people), row[1], None)


def report_columns(r: Report) -> tuple:
    """The columns of a ``reports`` row the grouping reads (title, regression report, status,
    culprits, fixes, people, first date, headline metric), as :func:`write_report` stores them."""
    pair = headline(r.results, r.title)
    return (
        r.title,
        int(r.is_regression_report),
        r.status,
        json.dumps([c.sha for c in r.commits if c.role == "culprit"]),
        json.dumps([c.sha for c in r.commits if c.role in ("fix", "revert")]),
        json.dumps(r.people),
        r.first_date,
        pair[0].metric if pair else None,
    )


def is_listed(r: Report) -> bool:
    """A report gets a ``reports`` row: it has numbers, a job, a commit or a verdict."""
    return bool(r.results or r.fio_jobs or r.commits or r.is_regression_report or r.kind)


#: the roles of a commit a report applied or found to fix it: its title names the patch tried
TRIED = ("fix", "tested")


def thread_keys_of(conn: sqlite3.Connection, thread_id: str, report: Report | None = None) -> list[Key]:
    """The keys of a thread: from ``report`` (as it is about to be written; an ingest's worker
    reads them so, beside the report it built) or else from its stored report, or, without one,
    from its thread row; and from its messages."""
    if report is not None:
        row = report_columns(report) if is_listed(report) else None
        has_report = row is not None
        reverts = [c.sha for c in report.commits if c.role == "revert"] if has_report else []
        tried = [c.subject for c in report.commits if c.role in TRIED and c.subject] if has_report else []
    else:
        row = conn.execute(
            "SELECT title, is_regression_report, status, culprits, fixes, people, first_date, headline_metric "
            "FROM reports WHERE report_id=?",
            (thread_id,),
        ).fetchone()
        has_report = row is not None
        reverts = [
            r[0]
            for r in conn.execute(
                "SELECT sha FROM report_commits WHERE report_id=? AND role='revert'", (thread_id,)
            )
        ]
        tried = [
            r[0]
            for r in conn.execute(
                f"SELECT subject FROM report_commits WHERE report_id=? AND role IN ({','.join('?' * len(TRIED))}) "
                "AND subject IS NOT NULL",
                (thread_id, *TRIED),
            )
        ]
    row = row or _thread_without_report(conn, thread_id)
    if row is None:
        return []
    jobs = [
        {"rw": rw, "bs": bs, "ioengine": eng, "iodepth": depth, "numjobs": nj, **_direct_size(norm)}
        for rw, bs, eng, depth, nj, norm in conn.execute(
            "SELECT rw, bs, ioengine, iodepth, numjobs, normalized FROM fio_jobs WHERE thread_id=?",
            (thread_id,),
        )
    ]
    synthetic_ids = False
    mails = []
    for mid, subj, name, addr, date, text, synthetic in conn.execute(
        "SELECT message_id, subject, from_name, from_addr, date_utc, new_text, synthetic_id FROM messages "
        "WHERE thread_id=? ORDER BY date_utc IS NULL, date_utc, rowid",
        (thread_id,),
    ):
        mails.append(Mail(mid, subj or "", name or "", addr or "", date, text or ""))
        synthetic_ids = synthetic_ids or bool(synthetic)
    t = ThreadInput(
        thread_id,
        title=row[0] or "",
        is_regression_report=bool(row[1]),
        status=row[2],
        culprits=json.loads(row[3] or "[]"),
        fixes=json.loads(row[4] or "[]"),
        reverts=reverts,
        tried=tried,
        people=json.loads(row[5] or "[]"),
        first_date=row[6],
        headline_metric=row[7],
        fio_jobs=jobs,
        mails=mails,
        has_report=has_report,
    )
    found = list(dict.fromkeys(thread_keys(t)))
    if synthetic_ids:
        found.append(Key(SYNTHETIC, "1"))
    return found


def store_thread_keys(conn: sqlite3.Connection, thread_id: str, keys: list[Key]) -> int:
    """Replace the stored keys of a thread with ``keys``."""
    conn.execute("DELETE FROM regression_keys WHERE thread_id=?", (thread_id,))
    conn.executemany(
        "INSERT INTO regression_keys(thread_id, kind, value, message_id, date, detail) VALUES (?,?,?,?,?,?)",
        [(thread_id, k.kind, k.value, k.message_id, k.date, k.detail) for k in keys],
    )
    return len(keys)


def write_thread_keys(conn: sqlite3.Connection, thread_id: str) -> int:
    """Read and store the keys of a thread from its stored report (or thread row) and messages."""
    return store_thread_keys(conn, thread_id, thread_keys_of(conn, thread_id))


def _direct_size(normalized: str | None) -> dict:
    try:
        n = json.loads(normalized or "{}")
    except ValueError:
        return {}
    return {k: n[k] for k in ("direct", "size") if k in n} if isinstance(n, dict) else {}


def _numbers(metric, base, bad, unit, pct) -> str | None:
    if metric is None or base is None or bad is None:
        return f"{pct:g}%" if pct is not None else None
    out = f"{metric} {base:g} -> {bad:g}{' ' + unit if unit else ''}"
    return out + (f" ({pct:g}%)" if pct is not None else "")


def key_new_link_threads(conn: sqlite3.Connection) -> int:
    """Store the keys of threads without a report whose messages stored since the last call say
    one of :data:`LINK_MARKERS` pointing at a regression report already known: a `Fixes:` or
    reverted commit one blames, a `Link:`/`Closes:` to one of its messages (a fix or revert patch
    without numbers, a regzbot command).  Returns the threads read."""
    row = conn.execute("SELECT value FROM kb_info WHERE key=?", (MARK_KEY,)).fetchone()
    after = int(row[0]) if row else 0
    upto = conn.execute("SELECT coalesce(max(rowid), 0) FROM messages").fetchone()[0]
    said = " OR ".join("instr(m.new_text, ?) > 0" for _ in LINK_MARKERS)
    found: dict[str, list[tuple[str, str]]] = {}
    for tid, text in conn.execute(
        f"SELECT m.thread_id, m.new_text FROM messages m WHERE m.rowid > ? AND m.rowid <= ? AND ({said}) "
        "AND NOT EXISTS (SELECT 1 FROM reports r WHERE r.report_id = m.thread_id)",
        (after, upto, *LINK_MARKERS),
    ):
        if targets := link_targets(text or ""):
            found.setdefault(tid, []).extend(targets)
    conn.execute("INSERT OR REPLACE INTO kb_info(key, value) VALUES (?, ?)", (MARK_KEY, str(upto)))
    if not found:
        return 0
    blamed = {
        r[0][:12]
        for r in conn.execute(
            "SELECT k.value FROM regression_keys k JOIN reports r ON r.report_id = k.thread_id "
            "WHERE k.kind = 'culprit' AND r.is_regression_report = 1"
        )
        if len(r[0]) >= 12
    }
    links = sorted({v for ts in found.values() for kind, v in ts if kind == LINK})
    reported = {
        r[0]
        for r in rows_in(
            conn,
            "SELECT tm.message_id FROM thread_members tm JOIN reports r ON r.report_id = tm.thread_id "
            "WHERE r.is_regression_report = 1 AND tm.message_id IN ({marks})",
            links,
        )
    }
    n = 0
    for tid, targets in found.items():
        if any(
            (v in reported) if kind == LINK else (len(v) >= 12 and v[:12] in blamed) for kind, v in targets
        ):
            write_thread_keys(conn, tid)
            n += 1
    return n


def thread_rows(conn: sqlite3.Connection) -> list[ThreadRow]:
    """The report threads with keys as grouping sees them: each report's row (a regression report's
    with the message its classification read the regression in), then the threads with keys and no
    report."""
    rows = []
    for (
        tid,
        title,
        is_reg,
        status,
        first,
        last,
        lists,
        people,
        metric,
        base,
        bad,
        unit,
        pct,
        count,
    ) in conn.execute(
        "SELECT r.report_id, r.title, r.is_regression_report, r.status, r.first_date, r.last_date, r.lists, r.people, "
        "r.headline_metric, r.baseline_value, r.regressed_value, r.unit, r.regression_pct, r.message_count "
        "FROM reports r WHERE EXISTS (SELECT 1 FROM regression_keys k WHERE k.thread_id = r.report_id)"
    ):
        rows.append(
            ThreadRow(
                tid,
                title or "",
                bool(is_reg),
                status,
                first,
                last,
                json.loads(lists or "[]"),
                json.loads(people or "[]"),
                _numbers(metric, base, bad, unit, pct),
                synthetic=False,
                message_count=count or 0,
            )
        )
    # where each regression report's classification read its regression (its first reason's message)
    # and who wrote that message
    reported = {
        tid: (mid, f"{name or ''} {addr or ''}".strip())
        for tid, mid, name, addr in conn.execute(
            "SELECT rr.report_id, rr.message_id, m.from_name, m.from_addr FROM report_reasons rr "
            "LEFT JOIN messages m ON m.message_id = rr.message_id WHERE rr.seq = 0 AND rr.report_id IN "
            "(SELECT report_id FROM reports WHERE is_regression_report = 1)"
        )
    }
    for r in rows:
        r.reported_in, r.reported_by = reported.get(r.thread_id, (None, None))
    for tid, title, first, last, count in conn.execute(
        "SELECT t.thread_id, t.subject, t.first_date, t.last_date, t.message_count FROM threads t "
        "WHERE t.thread_id IN (SELECT DISTINCT thread_id FROM regression_keys) "
        "AND NOT EXISTS (SELECT 1 FROM reports r WHERE r.report_id = t.thread_id)"
    ):
        rows.append(ThreadRow(tid, title or "", first_date=first, last_date=last, message_count=count or 0))
    return rows


def regroup(conn: sqlite3.Connection) -> int:
    """Group every thread with keys into regressions and rewrite ``regressions`` and
    ``regression_threads`` (in the caller's transaction); returns the regressions written.
    Threads without a report that say a link line since the last call get their keys first."""
    key_new_link_threads(conn)
    state = "{} {} {}".format(
        *conn.execute(
            "SELECT coalesce(max(rowid), 0), count(*), (SELECT count(*) FROM commits) FROM regression_keys"
        ).fetchone()
    )
    if state == _kb_info(conn, BUILT_KEY):
        return conn.execute("SELECT count(*) FROM regressions").fetchone()[0]
    conn.execute("INSERT OR REPLACE INTO kb_info(key, value) VALUES (?, ?)", (BUILT_KEY, state))
    rows = thread_rows(conn)
    keys: dict[str, list[Key]] = {}
    targets: list[str] = []
    synthetic: set[str] = set()
    for tid, kind, value, mid, date, detail in conn.execute(
        "SELECT thread_id, kind, value, message_id, date, detail FROM regression_keys ORDER BY rowid"
    ):
        keys.setdefault(tid, []).append(Key(kind, value, mid, date, detail))
        if kind == SYNTHETIC:
            synthetic.add(tid)
        if kind in (LINK, DUP_OF, REFERS):
            targets.append(value)
    for r in rows:
        r.synthetic = r.thread_id in synthetic
    locate = dict(
        rows_in(
            conn, "SELECT message_id, thread_id FROM thread_members WHERE message_id IN ({marks})", targets
        )
    )
    resolved = {
        sha: full
        for sha, full, status in conn.execute(
            "SELECT sha, full_sha, status FROM commits WHERE full_sha IS NOT NULL"
        )
        if status in IN_TREE
    }
    found = group(rows, keys, locate, resolved)
    conn.execute("DELETE FROM regression_threads")
    conn.execute("DELETE FROM regressions")
    conn.executemany(
        "INSERT INTO regressions(regression_id, title, status, thread_count, anchor_thread_id, first_date, "
        "last_date, timeline) VALUES (?,?,?,?,?,?,?,?)",
        [
            (
                g.regression_id,
                g.title,
                g.status,
                len(g.members),
                g.timeline[0].thread_id if g.timeline else None,
                g.first_date,
                g.last_date,
                json.dumps([asdict(e) for e in g.timeline], ensure_ascii=False),
            )
            for g in found
        ],
    )
    conn.executemany(
        "INSERT INTO regression_threads(thread_id, regression_id, part, reason) VALUES (?,?,?,?)",
        [(m.thread_id, g.regression_id, m.part, m.reason) for g in found for m in g.members],
    )
    return len(found)


def list_regressions(conn: sqlite3.Connection, limit: int = 50) -> list[dict]:
    """Regressions newest first: id, status, thread count, title, dates."""
    cur = conn.execute(
        "SELECT regression_id, status, thread_count, title, first_date, last_date FROM regressions "
        "ORDER BY coalesce(last_date, first_date, '') DESC, regression_id LIMIT ?",
        (limit,),
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur]


def regression_data(conn: sqlite3.Connection, regression_id: str) -> dict | None:
    """A regression with its timeline and threads (part, reason, title, date, whether a regression report)."""
    row = conn.execute(
        "SELECT regression_id, title, status, thread_count, first_date, last_date, timeline FROM regressions "
        "WHERE regression_id=?",
        (regression_id,),
    ).fetchone()
    if row is None:
        return None
    out = dict(
        zip(
            ("regression_id", "title", "status", "thread_count", "first_date", "last_date"),
            row[:6],
            strict=True,
        )
    )
    out["timeline"] = _with_landings(conn, json.loads(row[6] or "[]"))
    out["threads"] = [
        dict(
            zip(
                ("thread_id", "part", "reason", "title", "first_date", "is_regression_report"), r, strict=True
            )
        )
        for r in conn.execute(
            "SELECT t.thread_id, t.part, t.reason, r.title, r.first_date, r.is_regression_report "
            "FROM regression_threads t LEFT JOIN reports r ON r.report_id = t.thread_id "
            "WHERE t.regression_id=? ORDER BY r.first_date IS NULL, r.first_date, t.thread_id",
            (regression_id,),
        )
    ]
    out.update(earlier_same_workload(conn, regression_id, out["first_date"]))
    return out


def workload_fingerprints(values: Iterable[str]) -> set[str]:
    """A thread's workload fingerprints from its ``workload`` keys: the robot's test and
    parameters as one (``robot bs=4k disk=1HDD fs=btrfs ...``, all of them, sorted), when it
    names them; else each fio job's as stored (``rw=randread bs=4k iodepth=32 ...``).  The fio
    job read from the robot's parameters leaves its file system and disk out: two robot reports
    of one job on btrfs and on xfs are two workloads."""
    values = set(values)
    robot = sorted(v.removeprefix(ROBOT_WORKLOAD) for v in values if v.startswith(ROBOT_WORKLOAD))
    if robot:
        return {ROBOT_WORKLOAD + " ".join(robot)}
    return values


def _workloads_of(conn: sqlite3.Connection, thread_ids: list[str]) -> dict[str, tuple[set[str], set[str]]]:
    """thread_id -> (its workload fingerprints, its metrics), for threads that have both."""
    workloads: dict[str, set[str]] = {}
    metrics: dict[str, set[str]] = {}
    for tid, kind, value in rows_in(
        conn,
        "SELECT thread_id, kind, value FROM regression_keys WHERE thread_id IN ({marks})",
        thread_ids,
    ):
        if kind == WORKLOAD:
            workloads.setdefault(tid, set()).add(value)
        elif kind == METRIC:
            metrics.setdefault(tid, set()).add(value)
    return {t: (workload_fingerprints(w), metrics[t]) for t, w in workloads.items() if t in metrics}


def earlier_same_workload(
    conn: sqlite3.Connection, regression_id: str, first_date: str | None, limit: int = EARLIER_LIMIT
) -> dict:
    """This regression's workloads and metrics (``workload``: fingerprints and metrics of its
    threads) and the regressions first reported before ``first_date`` (its own first date) in
    which a thread shares, with one of its threads, a workload fingerprint (as
    :func:`workload_fingerprints` makes them, compared exactly) and a metric (``earlier``:
    newest first, at most ``limit``, each with its id, first date, title, status, page and the
    workload and metric it shares)."""
    members = [
        r[0]
        for r in conn.execute(
            "SELECT thread_id FROM regression_threads WHERE regression_id=?", (regression_id,)
        )
    ]
    mine = _workloads_of(conn, members)
    workload = {
        "fingerprints": sorted({f for fps, _ in mine.values() for f in fps}),
        "metrics": sorted({m for _, ms in mine.values() for m in ms}),
    }
    if not mine or not first_date:
        return {"workload": workload, "earlier": []}
    # the threads of earlier regressions that name one of its metrics; then their workloads
    candidates: dict[str, str] = dict(
        rows_in(
            conn,
            "SELECT DISTINCT k.thread_id, t.regression_id FROM regression_keys k "
            "JOIN regression_threads t ON t.thread_id = k.thread_id "
            "JOIN regressions g ON g.regression_id = t.regression_id "
            "WHERE k.kind = ? AND g.first_date < ? AND k.value IN ({marks})",
            workload["metrics"],
            (METRIC, first_date),
        )
    )
    shared: dict[str, tuple[str, str]] = {}
    for tid, (their_fps, their_metrics) in sorted(_workloads_of(conn, sorted(candidates)).items()):
        for my_fps, my_metrics in mine.values():
            both_fp = sorted(their_fps & my_fps)
            both_metric = sorted(their_metrics & my_metrics, key=lambda m: (-len(m), m))  # specific first
            if both_fp and both_metric:
                shared.setdefault(candidates[tid], (both_fp[0], both_metric[0]))
    earlier = [
        dict(zip(("regression_id", "first_date", "title", "status"), r, strict=True))
        for r in rows_in(
            conn,
            "SELECT regression_id, first_date, title, status FROM regressions WHERE regression_id IN ({marks})",
            sorted(shared),
        )
    ]
    earlier.sort(key=lambda r: (r["first_date"] or "", r["regression_id"]), reverse=True)
    for r in earlier:
        r["page"] = regression_page(r["regression_id"])
        r["workload"], r["metric"] = shared[r["regression_id"]]
    return {"workload": workload, "earlier": earlier[:limit]}


def _with_landings(conn: sqlite3.Connection, timeline: list[dict]) -> list[dict]:
    """The timeline with each "fixed" or "reverted" event's commits in the kernel tree
    ``lkmlkb link --git`` read (``commits``: SHA, subject, how found, first release tag) and
    ``first_tag``: the release that holds the whole fix (the highest of its commits' first
    tags), None while one of them is in no release yet.  An event without commits in the
    tree (no tree linked, or the fix not found) is left as it is."""
    threads = sorted({e["thread_id"] for e in timeline if e.get("event") in LANDING_EVENTS})
    if not threads or not has_table(conn, "fix_commits"):
        return timeline
    landed: dict[str, list[dict]] = {}
    for tid, sha, via, mid, subject, date, tag in rows_in(
        conn,
        "SELECT thread_id, sha, via, message_id, subject, date, first_tag FROM fix_commits "
        "WHERE thread_id IN ({marks}) ORDER BY thread_id, date, sha",
        threads,
    ):
        landed.setdefault(tid, []).append(
            {"sha": sha, "subject": subject, "via": via, "message_id": mid, "date": date, "first_tag": tag}
        )
    for e in timeline:
        if e.get("event") in LANDING_EVENTS and (commits := landed.get(e["thread_id"])):
            tags = [c["first_tag"] for c in commits]
            e["commits"] = commits
            e["first_tag"] = max(tags, key=sort_key) if all(tags) else None
    return timeline


def regression_of(conn: sqlite3.Connection, thread_id: str) -> dict | None:
    """The regression a report thread belongs to: id, title, status, its part and why."""
    row = conn.execute(
        "SELECT g.regression_id, g.title, g.status, t.part, t.reason FROM regression_threads t "
        "JOIN regressions g ON g.regression_id = t.regression_id WHERE t.thread_id=?",
        (thread_id,),
    ).fetchone()
    return (
        dict(zip(("regression_id", "title", "status", "part", "reason"), row, strict=True)) if row else None
    )
