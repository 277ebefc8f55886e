"""The plugin's pages: search, a report at a glance, every report citing a commit, and the
summary on Datasette's home page.

The page data is read by plain functions of a SQLite connection
(``report_data``, ``commit_data``, ``search_kb`` ...) so they are tested
without a web server.
"""

from __future__ import annotations

import html
import logging
import re
import urllib.parse
from collections import OrderedDict

from datasette.utils import tilde_encode

from lkmlkb.db.connection import has_table
from lkmlkb.db.queries import dict_rows, fts_queries, fts_query, matching_shas, window_floor
from lkmlkb.fio.render import CONTROL_RE, render_stored_job
from lkmlkb.web.chart import CHART_SKIP_RE, chart_groups, chart_svg
from lkmlkb.web.common import (
    commit_url,
    error_page,
    json_dict,
    json_list,
    kb_database,
    message_url,
    no_kb_page,
    page,
    report_path,
    url_var,
    valid_report_id,
    valid_sha,
    with_conn,
)
from lkmlkb.web.regression import regression_of_report, regressions_of_reports

log = logging.getLogger(__name__)

#: hits shown per searched table
SEARCH_LIMIT = 20
#: snippet markers: control characters that cannot occur in stored mail text after html-escaping
MARK_OPEN, MARK_CLOSE = "\x02", "\x03"


def highlight(snippet: str | None) -> str:
    """HTML for an FTS snippet: text escaped, the matches (between the markers) in ``<mark>``."""
    if not snippet:
        return ""
    out = html.escape(snippet.replace(MARK_OPEN, "\x10").replace(MARK_CLOSE, "\x11"), quote=False)
    out = CONTROL_RE.sub(" ", out.replace("\x10", "<mark>").replace("\x11", "</mark>"))
    # a snippet cut inside a match leaves an open <mark>
    if out.count("<mark>") > out.count("</mark>"):
        out += "</mark>"
    return out


def fts_tables(conn) -> list[tuple[str, str]]:
    """(fts_table, content_table) for every FTS4/5 table with an external content table."""
    found = []
    for name, sql in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
    ):
        m = re.search(r"USING\s+fts[45]\s*\((?P<args>.{0,2000})\)\s*$", sql or "", re.I | re.S)
        if not m:
            continue
        cm = re.search(r"""content\s*=\s*\[?['"]?(?P<t>[A-Za-z0-9_]{1,100})""", m.group("args"))
        if cm:
            found.append((name, cm.group("t")))
    return found


def search_kb(conn, text: str, limit: int = SEARCH_LIMIT) -> list[dict]:
    """Relevance-ranked matches per searchable table: [{table, fts, rows: [...]}].

    Reports come first, then messages, then any other FTS table, each ranked
    by bm25 with a highlighted snippet.  When no row holds every word, rows
    holding any of them are shown (as ``lkmlkb search`` does).  An FTS error
    (should not happen with :func:`fts_query`) yields no rows for that table,
    not an exception.
    """
    sections: list[dict] = []
    for query in fts_queries(text):
        sections = _search_sections(conn, query, limit)
        if any(s["rows"] for s in sections):
            break
    return sections


def _search_sections(conn, query: str, limit: int) -> list[dict]:
    order = {"reports": 0, "messages": 1}
    sections = []
    for fts, table in sorted(fts_tables(conn), key=lambda t: (order.get(t[1], 9), t[1])):
        try:
            rows = _search_table(conn, fts, table, query, limit)
        except Exception as exc:
            log.info("search in %s failed for %r: %s", fts, query, exc)
            rows = []
        sections.append({"table": table, "fts": fts, "rows": rows})
    return sections


def _search_table(conn, fts: str, table: str, query: str, limit: int) -> list[dict]:
    """Rows of one FTS table matching ``query``, best first, with ``snippet_html``."""
    # people search past *regressions*: among reports, those come before threads that only carry numbers
    first = "c.is_regression_report DESC, " if table == "reports" else ""
    sql = (
        f'SELECT c.*, snippet("{fts}", -1, ?, ?, \'…\', 16) AS _snippet, bm25("{fts}") AS _rank '
        f'FROM "{fts}" JOIN "{table}" c ON c.rowid = "{fts}".rowid '
        f'WHERE "{fts}" MATCH ? AND "{fts}".rowid >= ? ORDER BY {first}_rank LIMIT ?'
    )
    # relevance among the newest RANK_WINDOW matches: bounded cost whatever the archive size
    cur = conn.execute(sql, (MARK_OPEN, MARK_CLOSE, query, window_floor(conn, fts, query), limit))
    cols = [d[0] for d in cur.description]
    out = []
    for values in cur.fetchall():
        row = dict(zip(cols, values, strict=True))
        row["snippet_html"] = highlight(row.pop("_snippet"))
        out.append(row)
    return out


def report_data(conn, report_id: str) -> dict | None:
    """Everything the report page shows, or None when there is no such report."""
    found = dict_rows(conn, "SELECT * FROM reports WHERE report_id = ?", (report_id,))
    if not found:
        return None
    report = found[0]
    rid, thread = report["report_id"], report["thread_id"]
    for key in ("culprits", "fixes", "lists", "tools", "people"):
        report[key + "_list"] = [str(x) for x in json_list(report.get(key))]
    kernels = dict_rows(
        conn, "SELECT * FROM report_kernels WHERE report_id = ? ORDER BY sort_key, version", (rid,)
    )
    results = dict_rows(conn, "SELECT * FROM results WHERE report_id = ? ORDER BY kernel_sort, id", (rid,))
    commits = dict_rows(
        conn,
        """
        SELECT rc.*, c.full_sha, c.status AS commit_status, c.subject AS known_subject, c.first_tag
        FROM report_commits rc LEFT JOIN commits c ON c.sha = rc.sha
        WHERE rc.report_id = ? ORDER BY CASE rc.role WHEN 'culprit' THEN 0 WHEN 'fix' THEN 1
          WHEN 'revert' THEN 2 WHEN 'tested' THEN 3 ELSE 4 END, rc.sha""",
        (rid,),
    )
    for c in commits:
        c["url"] = commit_url(c.get("full_sha") or c["sha"])
        c["page"] = "/-/lkmlkb/commit/" + urllib.parse.quote(c["sha"], safe="")
    jobs = dict_rows(conn, "SELECT * FROM fio_jobs WHERE report_id = ? ORDER BY id", (rid,))
    for n, job in enumerate(jobs, 1):
        job["index"] = n
        job["jobfile"] = render_stored_job(
            job.get("name") or f"job{n}", json_dict(job.get("options")), json_dict(job.get("global_options"))
        )
        job["download"] = report_path(rid, f"/job/{n}.fio")
    setup = dict_rows(conn, "SELECT * FROM setups WHERE report_id = ? ORDER BY key, value", (rid,))
    messages = dict_rows(
        conn,
        """
        SELECT message_id, subject, from_name, from_addr, date_utc, date_raw, new_text, synthetic_id,
               archive_url, parent_id
        FROM messages WHERE thread_id = ? ORDER BY date_utc IS NULL, date_utc, rowid""",
        (thread,),
    )
    for m in messages:
        m["url"] = message_url(m["message_id"], bool(m["synthetic_id"]), m["archive_url"], m["subject"])
    main = [x for x in results if not CHART_SKIP_RE.search(x.get("metric") or "")]
    detail = [x for x in results if CHART_SKIP_RE.search(x.get("metric") or "")]
    groups = chart_groups(results)
    for g in groups:
        g["svg"] = chart_svg(g)
    return {
        "report": report,
        "kernels": kernels,
        "results": results,
        "main_results": main,
        "detail_results": detail,
        "commits": commits,
        "jobs": jobs,
        "setup": setup,
        "messages": messages,
        "charts": groups,
        "repro_url": report_path(rid, "/repro.zip"),
    }


def commit_data(conn, sha: str) -> dict:
    """Reports that cite a commit, matched as ``lkmlkb commit`` matches it.

    ``sha`` may be a prefix; a cited prefix of it matches too, unless ``lkmlkb
    link`` resolved that prefix to another commit; every SHA written for the
    same linked commit joins (:func:`lkmlkb.db.queries.matching_shas`).
    """
    shas, rows = matching_shas(conn, sha)
    marks = ",".join("?" * len(shas))
    cited = (
        dict_rows(
            conn,
            f"""
        SELECT rc.report_id, rc.sha, rc.role, rc.subject, rc.cue, rc.message_id,
               r.title, r.status, r.regression_pct, r.good_kernel, r.bad_kernel, r.last_date
        FROM report_commits rc JOIN reports r ON r.report_id = rc.report_id
        WHERE rc.sha IN ({marks})
        ORDER BY r.last_date DESC, rc.report_id""",
            sorted(shas),
        )
        if shas
        else []
    )
    for row in cited:
        row["page"] = report_path(row["report_id"])
    known = [rows[s] for s in sorted(rows)]  # the commits rows of the SHAs matched
    by_role: OrderedDict = OrderedDict(
        (r, []) for r in ("culprit", "fix", "revert", "tested", "base", "mentioned")
    )
    for row in cited:
        by_role.setdefault(row["role"], []).append(row)
    subject = next((c["subject"] for c in known if c.get("subject")), None) or next(
        (r["subject"] for r in cited if r.get("subject")), None
    )
    full = next((c["full_sha"] for c in known if c.get("full_sha")), None)
    return {
        "sha": sha,
        "subject": subject,
        "url": commit_url(full or sha),
        "known": known,
        "by_role": [(role, rows) for role, rows in by_role.items() if rows],
        "count": len(cited),
    }


def kb_summary(conn) -> dict:
    """What the knowledge base holds, for the home page: counts, lists, archives, build time."""

    def count(sql: str) -> int:
        try:
            return conn.execute(sql).fetchone()[0] or 0
        except Exception:
            return 0

    counts = OrderedDict(
        [
            ("reports", count("SELECT count(*) FROM reports")),
            ("regressions", count("SELECT count(*) FROM reports WHERE is_regression_report = 1")),
            ("open regressions", count(f"SELECT count(*) FROM reports WHERE {OPEN_REGRESSION_SQL}")),
            ("results", count("SELECT count(*) FROM results")),
            ("fio jobs", count("SELECT count(*) FROM fio_jobs")),
            ("commits cited", count("SELECT count(DISTINCT sha) FROM report_commits")),
            ("threads", count("SELECT count(*) FROM threads")),
            ("messages", count("SELECT count(*) FROM messages")),
        ]
    )
    lists = (
        dict_rows(conn, "SELECT name, message_count FROM lists ORDER BY message_count DESC, name")
        if has_table(conn, "lists")
        else []
    )
    runs = (
        dict_rows(
            conn,
            "SELECT id, started, finished, sources, new, errors, status, lkmlkb_version "
            "FROM ingest_runs ORDER BY id",
        )
        if has_table(conn, "ingest_runs")
        else []
    )
    archives = list(dict.fromkeys(str(s) for r in runs for s in json_list(r.get("sources"))))
    info = (
        dict(conn.execute("SELECT key, value FROM kb_info").fetchall()) if has_table(conn, "kb_info") else {}
    )
    finished = [r["finished"] for r in runs if r.get("finished")]
    dates = (
        conn.execute("SELECT min(date_utc), max(date_utc) FROM messages").fetchone()
        if has_table(conn, "messages")
        else (None, None)
    )
    return {
        "counts": counts,
        "lists": lists,
        "archives": archives,
        "runs": len(runs),
        "built": info.get("built") or (max(finished) if finished else None),
        "schema": info.get("schema"),
        "version": runs[-1]["lkmlkb_version"] if runs else None,
        "first_date": dates[0],
        "last_date": dates[1],
    }


#: a regression nobody has closed: not fixed, reverted, unreproducible or called expected
OPEN_REGRESSION_SQL = "is_regression_report = 1 AND coalesce(status, '') NOT IN ('fixed', 'reverted', 'cannot reproduce', 'not a regression')"


async def search_view(datasette, request):
    q = request.args.get("q", "") or ""
    db = await kb_database(datasette)
    if db is None:
        return await no_kb_page(datasette, request)
    sections = await with_conn(db, search_kb, q) if q.strip() else []
    for s in sections:
        for row in s["rows"]:
            row["_link"], row["_label"] = _search_link(datasette, db.name, s["table"], row)
    total = sum(len(s["rows"]) for s in sections)
    return await page(
        datasette,
        request,
        "lkmlkb_search.html",
        {"q": q, "sections": sections, "total": total, "fts": fts_query(q) or "", "database": db.name},
    )


def _search_link(datasette, database: str, table: str, row: dict) -> tuple[str, str]:
    """Where a search hit links to and the text of the link."""
    if table == "reports":
        return report_path(row["report_id"]), row.get("title") or row["report_id"]
    if table == "messages":
        return (
            message_url(
                row.get("message_id"),
                bool(row.get("synthetic_id")),
                row.get("archive_url"),
                row.get("subject"),
            )
            or "#"
        ), row.get("subject") or row.get("message_id") or ""
    pk = row.get("rowid")
    return datasette.urls.table(database, table) + f"?rowid={pk}", f"{table} row {pk}"


async def report_view(datasette, request):
    report_id = valid_report_id(url_var(request, "report_id"))
    if report_id is None:
        return await error_page(datasette, request, 400, "Bad report id", "That is not a report id.")
    db = await kb_database(datasette)
    if db is None:
        return await no_kb_page(datasette, request)
    data = await with_conn(db, report_data, report_id)
    if data is None:
        return await error_page(
            datasette, request, 404, "No such report", f"There is no report {report_id!r}."
        )
    data["database"] = db.name
    data["row_url"] = datasette.urls.row(db.name, "reports", tilde_encode(report_id))
    data["row_json_url"] = datasette.urls.row(db.name, "reports", tilde_encode(report_id), format="json")
    data["regression"] = await with_conn(db, regression_of_report, report_id)
    return await page(datasette, request, "lkmlkb_report.html", data)


async def commit_view(datasette, request):
    sha = valid_sha(url_var(request, "sha"))
    if sha is None:
        return await error_page(
            datasette,
            request,
            400,
            "Bad commit id",
            "A commit id is 4 to 40 hexadecimal digits (a prefix is fine).",
        )
    db = await kb_database(datasette)
    if db is None:
        return await no_kb_page(datasette, request)
    data = await with_conn(db, commit_data, sha)
    data["database"] = db.name
    cited = sorted({r["report_id"] for _, rows in data["by_role"] for r in rows})
    data["regressions"] = await with_conn(db, regressions_of_reports, cited)
    return await page(datasette, request, "lkmlkb_commit.html", data, status=200 if data["count"] else 404)


async def not_found_view(datasette, request):
    return await error_page(datasette, request, 404, "Not found", "There is no lkmlkb page at this address.")
