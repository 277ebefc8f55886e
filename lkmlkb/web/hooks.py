"""lkmlkb's Datasette plugin: search, report and commit pages, job downloads, Atom feeds.

Registered through the ``datasette`` entry point, so any Datasette that has
lkmlkb installed and opens a knowledge base gets:

``/-/lkmlkb/search?q=``                  one search box over every FTS table
``/-/lkmlkb/report/<report_id>``         a report at a glance
``/-/lkmlkb/report/<id>/job/<n>.fio``    job ``n`` of a report as a job file
``/-/lkmlkb/report/<id>/repro.zip``      the reproduction bundle
``/-/lkmlkb/commit/<sha>``               every report that cites a commit
``/-/lkmlkb/reports.atom[?list=]``       new reports as an Atom feed

Every route parameter is validated before it reaches SQL or the file
system; a bad one is a 400/404 page, never a traceback.  The page data is
read by plain functions of a SQLite connection (``report_data``,
``commit_data``, ``search_kb`` ...) so they are tested without a web server.
"""

from __future__ import annotations

import asyncio
import html
import io
import json
import logging
import re
import sqlite3
import tempfile
import urllib.parse
import zipfile
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path
from xml.etree import ElementTree as ET

import sqlite_utils
from datasette import hookimpl
from datasette.utils import tilde_encode
from datasette.utils.asgi import Response
from jinja2 import ChoiceLoader, FileSystemLoader
from markupsafe import Markup

from lkmlkb.db.queries import fts_queries, fts_query, matching_shas, window_floor
from lkmlkb.db.reports import load_report
from lkmlkb.errors import LkmlkbError, ReproError
from lkmlkb.extract.kernel_versions import compare
from lkmlkb.fio.render import render_jobfile
from lkmlkb.model import FioJob
from lkmlkb.repro.bundle import write_bundle
from lkmlkb.repro.safety import make_safe

log = logging.getLogger(__name__)

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
STATIC_DIR = Path(__file__).resolve().parent / "static"
COMMIT_URL = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id={sha}"
LORE_URL = "https://lore.kernel.org/r/{msgid}"
LORE_SEARCH_URL = "https://lore.kernel.org/all/?q={query}"
FEED_LIMIT = 50
SEARCH_LIMIT = 20
#: snippet markers: control characters that cannot occur in stored mail text after html-escaping
MARK_OPEN, MARK_CLOSE = "\x02", "\x03"

# ---------------------------------------------------------------- validation

REPORT_ID_RE = re.compile(r"""
    ^[A-Za-z0-9]                 # starts plainly: no ".", "/", "~" (no "..", no hidden names)
    [A-Za-z0-9._@+=~-]{0,250}$   # thread ids are Message-IDs ("bea9c5f6...@lkmlkb.invalid",
                                 # "20240307.1a2b+x=y@host"); a report id may be a hash too
""", re.VERBOSE)

SHA_RE = re.compile(r"""
    ^[0-9a-f]{4,40}$    # a commit id or prefix as cited ("d47f9717e5cf"), lowercase hex only
""", re.VERBOSE)

JOB_INDEX_RE = re.compile(r"""
    ^[1-9][0-9]{0,3}$    # "1".."9999": job n of a report, 1-based
""", re.VERBOSE)

LIST_NAME_RE = re.compile(r"""
    ^[A-Za-z0-9][A-Za-z0-9._@+-]{0,120}$    # "linux-block", "linux-block@vger.kernel.org"
""", re.VERBOSE)

OPTION_NAME_RE = re.compile(r"""
    ^[A-Za-z][A-Za-z0-9_-]{0,60}$    # fio option names ("iodepth_batch_complete", "hugepage-size")
""", re.VERBOSE)

CONTROL_RE = re.compile(r"""
    [\x00-\x08\x0b\x0c\x0e-\x1f\x7f]    # control characters: invalid in XML, unsafe in job files
""", re.VERBOSE)


def valid_report_id(value: str) -> str | None:
    """The report id from a (percent-decoded) URL segment, or None when it is not one.

    Tolerates any string: too long, with slashes, dots-only, NULs -> None.
    """
    if not isinstance(value, str) or ".." in value or not REPORT_ID_RE.match(value):
        return None
    return value


def valid_sha(value: str) -> str | None:
    """A lowercased hex SHA (prefix of 4..40 digits) or None."""
    if not isinstance(value, str):
        return None
    value = value.strip().lower()
    return value if SHA_RE.match(value) else None


def valid_job_index(value: str) -> int | None:
    """1-based job index from the URL, or None for anything but a plain positive integer."""
    if not isinstance(value, str) or not JOB_INDEX_RE.match(value):
        return None
    return int(value)


def valid_list_name(value: str | None) -> str | None:
    if not value or not LIST_NAME_RE.match(value):
        return None
    return value


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
            "SELECT name, sql FROM sqlite_master WHERE type='table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"):
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
    sql = (f'SELECT c.*, snippet("{fts}", -1, ?, ?, \'…\', 16) AS _snippet, bm25("{fts}") AS _rank '
           f'FROM "{fts}" JOIN "{table}" c ON c.rowid = "{fts}".rowid '
           f'WHERE "{fts}" MATCH ? AND "{fts}".rowid >= ? ORDER BY {first}_rank LIMIT ?')
    # relevance among the newest RANK_WINDOW matches: bounded cost whatever the archive size
    cur = conn.execute(sql, (MARK_OPEN, MARK_CLOSE, query, window_floor(conn, fts, query), limit))
    cols = [d[0] for d in cur.description]
    out = []
    for values in cur.fetchall():
        row = dict(zip(cols, values, strict=True))
        row["snippet_html"] = highlight(row.pop("_snippet"))
        out.append(row)
    return out


# ---------------------------------------------------------------- links


def commit_url(sha: str) -> str:
    return COMMIT_URL.format(sha=urllib.parse.quote(sha, safe=""))


def message_url(message_id: str | None, synthetic: bool = False, archive_url: str | None = None,
                subject: str | None = None) -> str | None:
    """Where a person reads a message: lore by Message-ID, else its archive page, else a lore search.

    Synthetic ids (made up from a hash for text dumps) are not on lore; the
    subject search finds the thread there instead.
    """
    if message_id and not synthetic:
        return LORE_URL.format(msgid=urllib.parse.quote(message_id, safe="@+=._-~"))
    if archive_url and archive_url.startswith(("https://", "http://")):
        return archive_url
    if subject:
        return LORE_SEARCH_URL.format(query=urllib.parse.quote_plus(f's:"{subject[:200]}"'))
    return None


def report_path(report_id: str, suffix: str = "") -> str:
    return "/-/lkmlkb/report/" + urllib.parse.quote(report_id, safe="") + suffix


def json_list(value) -> list:
    """A JSON array column as a list; a plain string becomes a one-item list, junk an empty one."""
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return value
    try:
        got = json.loads(value)
    except (TypeError, ValueError):
        return [value] if isinstance(value, str) else []
    if isinstance(got, list):
        return got
    return [got] if got not in (None, "") else []


def json_dict(value) -> dict:
    if isinstance(value, dict):
        return value
    try:
        got = json.loads(value or "{}")
    except (TypeError, ValueError):
        return {}
    return got if isinstance(got, dict) else {}


# ---------------------------------------------------------------- job files


def _job_value(value) -> str:
    """An option value on one job-file line (fio reads one line per option)."""
    text = "" if value is None else str(value)
    return CONTROL_RE.sub(" ", text.replace("\r", " ").replace("\n", " ")).strip()[:4000]


def _section(name) -> str:
    clean = re.sub(r"[^A-Za-z0-9_.-]", "_", str(name or "job"))[:60].strip("_.") or "job"
    return "job" if clean.lower() == "global" else clean


def _clean_options(options: dict) -> dict[str, str]:
    """Options that can be written as job-file lines: plain names, one-line values."""
    return {str(k): _job_value(v) for k, v in (options or {}).items() if OPTION_NAME_RE.match(str(k))}


def render_job(name: str, options: dict, global_options: dict | None = None) -> str:
    """One job as a fio job file: ``[global]`` with the options it took from there, then ``[name]``.

    ``options`` is the merged option set as stored (``[global]`` already folded
    in).  Option names that are not plain words are dropped and values lose
    newlines and control characters *before* rendering, so a value from mail
    can never start a new option line (``exec_prerun=...``) or section.
    Uses :func:`lkmlkb.fio.render.render_jobfile`.
    """
    options = _clean_options(options)
    glob = {k: v for k, v in _clean_options(global_options or {}).items() if options.get(k, v) == v}
    name = _section(name)
    try:
        return render_jobfile([FioJob(name=name, form="jobfile", options=options, global_options=glob)])
    except Exception:
        log.debug("lkmlkb.fio.render.render_jobfile failed; using the plain renderer", exc_info=True)
    lines = []
    if glob:
        lines.append("[global]")
        lines += [k if v == "" else f"{k}={v}" for k, v in glob.items()]
        lines.append("")
    lines.append(f"[{name}]")
    lines += [k if v == "" else f"{k}={v}" for k, v in options.items() if k not in glob]
    return "\n".join(lines) + "\n"


def safe_job(name: str, options: dict, global_options: dict) -> tuple[str, dict, dict, list[str]] | None:
    """The job rewritten for a safe run by :mod:`lkmlkb.repro.safety`, or None when that fails."""
    try:
        job, notes = make_safe(FioJob(name=name, form="jobfile", options=dict(options),
                                      global_options=dict(global_options)))
    except Exception:
        log.info("safety pass failed for job %r", name, exc_info=True)
        return None
    return job.name, dict(job.options), dict(job.global_options), list(notes)


def job_download_text(report: dict, job: dict, index: int, as_posted: bool = False) -> str:
    """The text of ``/-/lkmlkb/report/<id>/job/<n>.fio``: provenance comments, then the job.

    By default the job goes through the reproduction safety pass (device
    targets become ``${LKMLKB_TARGET}``, program-running options go); with
    ``as_posted`` it is the job exactly as the report gave it, headed by a
    warning when it writes to a device.
    """
    options = json_dict(job.get("options"))
    glob = json_dict(job.get("global_options"))
    name = job.get("name") or f"job{index}"
    head = [f"; lkmlkb: job {index} of report {report['report_id']}",
            f"; {_job_value(report.get('title'))[:200]}",
            f"; posted in <{_job_value(job.get('message_id'))}> lines "
            f"{(job.get('line_start') or 0) + 1}-{(job.get('line_end') or 0) + 1} ({_job_value(job.get('form'))})"]
    safe = None if as_posted else safe_job(name, options, glob)
    if safe is not None:
        name, options, glob, notes = safe
        head.append("; rewritten for a safe run; the job as posted: ?as=posted")
        head += [f";   - {_job_value(n)[:300]}" for n in notes]
        head.append("; run: LKMLKB_TARGET=/path/to/scratch/file fio THIS.fio")
    else:
        target = options.get("filename") or options.get("directory") or ""
        if str(target).startswith("/dev/"):
            head.append(f"; WARNING: as posted; this job uses the device {_job_value(target)} of the reporter's "
                        "machine. Point filename= at a scratch file or device before running it.")
    return "\n".join(head) + "\n\n" + render_job(name, options, glob)


# ---------------------------------------------------------------- charts


BAR_COLORS = {"baseline": "#2e7d32", "regressed": "#c62828", "fixed": "#1565c0"}
OTHER_COLOR = "#757575"


#: metrics drawn first, in this order; the rest after them, percentiles and per-sync figures never
CHART_METRICS = ("bw", "throughput", "iops", "lat", "clat", "slat", "util")
CHART_SKIP_RE = re.compile(r"""
    _p\d        # fio latency percentiles ("clat_p99.9", "sync_p50"): dozens per fio run
  | _mean$      # "bw_mean", "iops_mean": per-job averages beside the group totals
  | ^sync       # fio's fsync/fdatasync latency block
  | ^cpu        # "cpu_usr", "cpu_sys"
""", re.VERBOSE)


def chart_groups(results: list[dict], max_groups: int = 4, max_bars: int = 8) -> list[dict]:
    """Results grouped per (metric, direction, unit) for the good-vs-bad chart.

    Only labelled results (baseline / regressed / fixed) are drawn when there
    are any; one bar per (kernel, label, config), repeated measurements
    averaged.  Only groups that compare two or more bars are drawn, headline
    metrics (bandwidth, IOPS, latency) first.
    """
    labelled = [r for r in results if r.get("label")]
    pool = labelled or results
    groups: OrderedDict = OrderedDict()
    for r in pool:
        metric = r.get("metric") or ""
        if r.get("value") is None or CHART_SKIP_RE.search(metric):
            continue
        key = (metric, r.get("direction") or "", r.get("unit") or "")
        bars = groups.setdefault(key, OrderedDict())
        bar_key = (r.get("kernel") or "?", r.get("label") or "", r.get("config") or "")
        bars.setdefault(bar_key, []).append(float(r["value"]))
    rank = {m: i for i, m in enumerate(CHART_METRICS)}
    ordered = sorted((k for k in groups if len(groups[k]) >= 2),
                     key=lambda k: rank.get(k[0], len(CHART_METRICS)))
    out = []
    for metric, direction, unit in ordered[:max_groups]:
        bars = groups[(metric, direction, unit)]
        items = [{"kernel": k, "label": lab, "config": cfg, "value": sum(v) / len(v), "n": len(v)}
                 for (k, lab, cfg), v in list(bars.items())[:max_bars]]
        out.append({"metric": metric, "direction": direction, "unit": unit, "bars": items})
    return out


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.3g}"


def chart_svg(group: dict, width: int = 560) -> str:
    """A small horizontal bar chart (inline SVG, no script) of one metric across kernels."""
    bars = group["bars"]
    top = max((b["value"] for b in bars), default=0) or 1
    row_h, label_w, pad = 22, 210, 4
    plot_w = width - label_w - 90
    height = row_h * len(bars) + pad * 2
    title = " ".join(x for x in (group["direction"], group["metric"]) if x) + (f" ({group['unit']})" if group["unit"] else "")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="lkmlkb-chart" role="img" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}"><title>{html.escape(title)}</title>']
    for i, b in enumerate(bars):
        y = pad + i * row_h
        w = max(1, round(plot_w * max(b["value"], 0) / top))
        color = BAR_COLORS.get(b["label"], OTHER_COLOR)
        label = b["kernel"] + (f" [{b['config']}]" if b["config"] else "") + (f" ({b['label']})" if b["label"] else "")
        parts.append(f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end" font-size="12">'
                     f'{html.escape(label[:40])}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{row_h - 6}" fill="{color}">'
                     f'<title>{html.escape(label)}: {_fmt(b["value"])} {html.escape(group["unit"])}</title></rect>')
        parts.append(f'<text x="{label_w + w + 4}" y="{y + 15}" font-size="12">'
                     f'{_fmt(b["value"])} {html.escape(group["unit"])}</text>')
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------- page data (plain SQL on a connection)


def _rows(conn, sql: str, params=()) -> list[dict]:
    cur = conn.execute(sql, params)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _has_table(conn, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name=?",
                        (name,)).fetchone() is not None


def report_data(conn, report_id: str) -> dict | None:
    """Everything the report page shows, or None when there is no such report."""
    found = _rows(conn, "SELECT * FROM reports WHERE report_id = ?", (report_id,))
    if not found:
        return None
    report = found[0]
    rid, thread = report["report_id"], report["thread_id"]
    for key in ("culprits", "fixes", "lists", "tools", "people"):
        report[key + "_list"] = [str(x) for x in json_list(report.get(key))]
    kernels = _rows(conn, "SELECT * FROM report_kernels WHERE report_id = ? ORDER BY sort_key, version", (rid,))
    results = _rows(conn, "SELECT * FROM results WHERE report_id = ? ORDER BY kernel_sort, id", (rid,))
    commits = _rows(conn, """
        SELECT rc.*, c.full_sha, c.status AS commit_status, c.subject AS known_subject, c.first_tag
        FROM report_commits rc LEFT JOIN commits c ON c.sha = rc.sha
        WHERE rc.report_id = ? ORDER BY CASE rc.role WHEN 'culprit' THEN 0 WHEN 'fix' THEN 1
          WHEN 'revert' THEN 2 WHEN 'tested' THEN 3 ELSE 4 END, rc.sha""", (rid,))
    for c in commits:
        c["url"] = commit_url(c.get("full_sha") or c["sha"])
        c["page"] = "/-/lkmlkb/commit/" + urllib.parse.quote(c["sha"], safe="")
    jobs = _rows(conn, "SELECT * FROM fio_jobs WHERE report_id = ? ORDER BY id", (rid,))
    for n, job in enumerate(jobs, 1):
        job["index"] = n
        job["jobfile"] = render_job(job.get("name") or f"job{n}", json_dict(job.get("options")),
                                    json_dict(job.get("global_options")))
        job["download"] = report_path(rid, f"/job/{n}.fio")
    setup = _rows(conn, "SELECT * FROM setups WHERE report_id = ? ORDER BY key, value", (rid,))
    messages = _rows(conn, """
        SELECT message_id, subject, from_name, from_addr, date_utc, date_raw, new_text, synthetic_id,
               archive_url, parent_id
        FROM messages WHERE thread_id = ? ORDER BY date_utc IS NULL, date_utc, rowid""", (thread,))
    for m in messages:
        m["url"] = message_url(m["message_id"], bool(m["synthetic_id"]), m["archive_url"], m["subject"])
    main = [x for x in results if not CHART_SKIP_RE.search(x.get("metric") or "")]
    detail = [x for x in results if CHART_SKIP_RE.search(x.get("metric") or "")]
    groups = chart_groups(results)
    for g in groups:
        g["svg"] = chart_svg(g)
    return {"report": report, "kernels": kernels, "results": results, "main_results": main,
            "detail_results": detail, "commits": commits, "jobs": jobs,
            "setup": setup, "messages": messages, "charts": groups,
            "repro_url": report_path(rid, "/repro.zip")}


def commit_data(conn, sha: str) -> dict:
    """Reports that cite a commit, matched as ``lkmlkb commit`` matches it.

    ``sha`` may be a prefix; a cited prefix of it matches too, unless ``lkmlkb
    link`` resolved that prefix to another commit; every SHA written for the
    same linked commit joins (:func:`lkmlkb.db.queries.matching_shas`).
    """
    shas, rows = matching_shas(conn, sha)
    marks = ",".join("?" * len(shas))
    cited = _rows(conn, f"""
        SELECT rc.report_id, rc.sha, rc.role, rc.subject, rc.cue, rc.message_id,
               r.title, r.status, r.regression_pct, r.good_kernel, r.bad_kernel, r.last_date
        FROM report_commits rc JOIN reports r ON r.report_id = rc.report_id
        WHERE rc.sha IN ({marks})
        ORDER BY r.last_date DESC, rc.report_id""", sorted(shas)) if shas else []
    for row in cited:
        row["page"] = report_path(row["report_id"])
    known = [rows[s] for s in sorted(rows)]  # the commits rows of the SHAs matched
    by_role: OrderedDict = OrderedDict((r, []) for r in ("culprit", "fix", "revert", "tested", "base", "mentioned"))
    for row in cited:
        by_role.setdefault(row["role"], []).append(row)
    subject = next((c["subject"] for c in known if c.get("subject")), None) or \
        next((r["subject"] for r in cited if r.get("subject")), None)
    full = next((c["full_sha"] for c in known if c.get("full_sha")), None)
    return {"sha": sha, "subject": subject, "url": commit_url(full or sha), "known": known,
            "by_role": [(role, rows) for role, rows in by_role.items() if rows], "count": len(cited)}


def job_row(conn, report_id: str, index: int) -> tuple[dict, dict] | None:
    """(report, job) for job ``index`` (1-based, in id order) of a report, or None."""
    rep = _rows(conn, "SELECT report_id, title FROM reports WHERE report_id = ?", (report_id,))
    if not rep:
        return None
    jobs = _rows(conn, "SELECT * FROM fio_jobs WHERE report_id = ? ORDER BY id LIMIT 1 OFFSET ?",
                 (report_id, index - 1))
    return (rep[0], jobs[0]) if jobs else None


def kb_summary(conn) -> dict:
    """What the knowledge base holds, for the home page: counts, lists, archives, build time."""
    def count(sql: str) -> int:
        try:
            return conn.execute(sql).fetchone()[0] or 0
        except Exception:
            return 0
    counts = OrderedDict([
        ("reports", count("SELECT count(*) FROM reports")),
        ("regressions", count("SELECT count(*) FROM reports WHERE is_regression_report = 1")),
        ("open regressions", count(f"SELECT count(*) FROM reports WHERE {OPEN_REGRESSION_SQL}")),
        ("results", count("SELECT count(*) FROM results")),
        ("fio jobs", count("SELECT count(*) FROM fio_jobs")),
        ("commits cited", count("SELECT count(DISTINCT sha) FROM report_commits")),
        ("threads", count("SELECT count(*) FROM threads")),
        ("messages", count("SELECT count(*) FROM messages")),
    ])
    lists = _rows(conn, "SELECT name, message_count FROM lists ORDER BY message_count DESC, name") \
        if _has_table(conn, "lists") else []
    runs = _rows(conn, "SELECT id, started, finished, sources, new, errors, status, lkmlkb_version "
                       "FROM ingest_runs ORDER BY id") if _has_table(conn, "ingest_runs") else []
    archives = list(dict.fromkeys(str(s) for r in runs for s in json_list(r.get("sources"))))
    info = dict(conn.execute("SELECT key, value FROM kb_info").fetchall()) if _has_table(conn, "kb_info") else {}
    finished = [r["finished"] for r in runs if r.get("finished")]
    dates = conn.execute("SELECT min(date_utc), max(date_utc) FROM messages").fetchone() \
        if _has_table(conn, "messages") else (None, None)
    return {"counts": counts, "lists": lists, "archives": archives, "runs": len(runs),
            "built": info.get("built") or (max(finished) if finished else None),
            "schema": info.get("schema"), "version": runs[-1]["lkmlkb_version"] if runs else None,
            "first_date": dates[0], "last_date": dates[1]}


#: a regression nobody has closed: not fixed, reverted or unreproducible
OPEN_REGRESSION_SQL = ("is_regression_report = 1 AND coalesce(status, '') NOT IN "
                       "('fixed', 'reverted', 'cannot reproduce')")


def feed_entries(conn, list_name: str | None, limit: int = FEED_LIMIT) -> list[dict]:
    """Newest reports first (by when built, then last message), optionally those on one list."""
    where, params = "", []
    if list_name:
        where = ("WHERE EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(reports.lists) "
                 "THEN reports.lists ELSE '[]' END) j WHERE j.value = ? OR j.value LIKE ? || '@%')")
        params = [list_name, list_name]
    return _rows(conn, f"""
        SELECT report_id, title, status, summary, workload, good_kernel, bad_kernel, regression_pct,
               lists, culprits, first_date, last_date, built
        FROM reports {where}
        ORDER BY coalesce(built, last_date) DESC, last_date DESC, report_id LIMIT ?""", [*params, limit])


def _xml_text(value) -> str:
    return CONTROL_RE.sub(" ", "" if value is None else str(value))


def atom_feed(entries: list[dict], base_url: str, list_name: str | None, now: str | None = None) -> bytes:
    """An Atom 1.0 document (RFC 4287) of report entries; text is escaped by ElementTree."""
    ns = "http://www.w3.org/2005/Atom"
    ET.register_namespace("", ns)

    def sub(parent, tag, text=None, **attrs):
        el = ET.SubElement(parent, f"{{{ns}}}{tag}", attrs)
        if text is not None:
            el.text = _xml_text(text)
        return el
    feed = ET.Element(f"{{{ns}}}feed")
    title = "lkmlkb: new performance regression reports" + (f" on {list_name}" if list_name else "")
    self_url = base_url + "/-/lkmlkb/reports.atom" + (f"?list={urllib.parse.quote(list_name)}" if list_name else "")
    sub(feed, "title", title)
    sub(feed, "id", self_url)
    sub(feed, "link", href=self_url, rel="self", type="application/atom+xml")
    sub(feed, "link", href=base_url + "/", rel="alternate", type="text/html")
    stamps = [e.get("built") or e.get("last_date") for e in entries if e.get("built") or e.get("last_date")]
    sub(feed, "updated", max(stamps) if stamps else (now or datetime.now(UTC).isoformat(timespec="seconds")))
    author = sub(feed, "author")
    sub(author, "name", "lkmlkb")
    sub(feed, "generator", "lkmlkb")
    for e in entries:
        entry = sub(feed, "entry")
        url = base_url + report_path(e["report_id"])
        sub(entry, "title", e.get("title") or e["report_id"])
        sub(entry, "id", "tag:lkmlkb,2024:report/" + urllib.parse.quote(e["report_id"], safe="@"))
        sub(entry, "link", href=url, rel="alternate", type="text/html")
        sub(entry, "updated", e.get("built") or e.get("last_date") or e.get("first_date") or "1970-01-01T00:00:00Z")
        if e.get("first_date"):
            sub(entry, "published", e["first_date"])
        for name in json_list(e.get("lists")):
            sub(entry, "category", term=_xml_text(name))
        bits = [f"Status: {e.get('status') or 'unknown'}."]
        if e.get("good_kernel") or e.get("bad_kernel"):
            bits.append(f"Kernels: {e.get('good_kernel') or '?'} (good) vs {e.get('bad_kernel') or '?'} (bad).")
        if e.get("regression_pct") is not None:
            bits.append(f"Change: {e['regression_pct']:.1f}%.")
        culprits = json_list(e.get("culprits"))
        if culprits:
            bits.append("Culprit: " + ", ".join(str(c) for c in culprits) + ".")
        if e.get("workload"):
            bits.append(f"Workload: {e['workload']}.")
        if e.get("summary"):
            bits.append(str(e["summary"]))
        sub(entry, "summary", " ".join(bits))
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8")


# ---------------------------------------------------------------- reproduction bundle


def build_repro_zip(db_path: str | Path, report_id: str) -> bytes:
    """The reproduction bundle of a report as zip bytes.

    The two integration points with the rest of lkmlkb are here and only
    here: :func:`lkmlkb.db.reports.load_report` (database ->
    :class:`lkmlkb.model.Report`) and :func:`lkmlkb.repro.bundle.write_bundle`
    (Report -> files).  Raises :class:`lkmlkb.errors.ReproError` when there
    is no such report or it has nothing to reproduce.  Reads through its own read-only connection: the
    loader may change connection settings (row factories) that Datasette's
    pooled connections must keep.
    """
    conn = sqlite3.connect(f"file:{urllib.parse.quote(str(db_path))}?mode=ro", uri=True, check_same_thread=False)
    try:
        report = load_report(sqlite_utils.Database(conn), report_id)
    finally:
        conn.close()
    if report is None:
        raise ReproError(report_id, "no such report")
    with tempfile.TemporaryDirectory(prefix="lkmlkb-repro-") as tmp:
        out = Path(tmp) / "repro"
        write_bundle(report, out)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(out.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    zf.write(path, "repro/" + path.relative_to(out).as_posix())
        return buf.getvalue()


def zip_name(report_id: str) -> str:
    return "lkmlkb-repro-" + re.sub(r"[^A-Za-z0-9._-]", "_", report_id)[:80] + ".zip"


# ---------------------------------------------------------------- Datasette glue


async def kb_database(datasette):
    """The first attached database that is an lkmlkb knowledge base (has kb_info and reports)."""
    for name, db in datasette.databases.items():
        if name.startswith("_"):
            continue
        try:
            if await db.table_exists("kb_info") and await db.table_exists("reports"):
                return db
        except Exception:
            log.info("database %s could not be inspected", name, exc_info=True)
    return None


async def _with_conn(db, fn, *args):
    """Run ``fn(conn, *args)`` on one of Datasette's read connections."""
    return await db.execute_fn(lambda conn: fn(conn, *args))


async def _page(datasette, request, template: str, context: dict, status: int = 200) -> Response:
    body = await datasette.render_template([template], context, request=request)
    return Response.html(body, status=status)


async def _error(datasette, request, status: int, title: str, message: str) -> Response:
    return await _page(datasette, request, "lkmlkb_error.html",
                       {"title": title, "message": message, "status": status}, status=status)


async def _no_kb(datasette, request) -> Response:
    return await _error(datasette, request, 404, "No knowledge base",
                        "No lkmlkb knowledge base is attached to this Datasette (run `lkmlkb ingest`).")


def _url_var(request, name: str) -> str:
    return urllib.parse.unquote(request.url_vars.get(name, ""), errors="replace")


async def search_view(datasette, request):
    q = request.args.get("q", "") or ""
    db = await kb_database(datasette)
    if db is None:
        return await _no_kb(datasette, request)
    sections = await _with_conn(db, search_kb, q) if q.strip() else []
    for s in sections:
        for row in s["rows"]:
            row["_link"], row["_label"] = _search_link(datasette, db.name, s["table"], row)
    total = sum(len(s["rows"]) for s in sections)
    return await _page(datasette, request, "lkmlkb_search.html",
                       {"q": q, "sections": sections, "total": total, "fts": fts_query(q) or "",
                        "database": db.name})


def _search_link(datasette, database: str, table: str, row: dict) -> tuple[str, str]:
    """Where a search hit links to and the text of the link."""
    if table == "reports":
        return report_path(row["report_id"]), row.get("title") or row["report_id"]
    if table == "messages":
        return (message_url(row.get("message_id"), bool(row.get("synthetic_id")), row.get("archive_url"),
                            row.get("subject")) or "#"), row.get("subject") or row.get("message_id") or ""
    pk = row.get("rowid")
    return datasette.urls.table(database, table) + f"?rowid={pk}", f"{table} row {pk}"


async def report_view(datasette, request):
    report_id = valid_report_id(_url_var(request, "report_id"))
    if report_id is None:
        return await _error(datasette, request, 400, "Bad report id", "That is not a report id.")
    db = await kb_database(datasette)
    if db is None:
        return await _no_kb(datasette, request)
    data = await _with_conn(db, report_data, report_id)
    if data is None:
        return await _error(datasette, request, 404, "No such report", f"There is no report {report_id!r}.")
    data["database"] = db.name
    data["row_url"] = datasette.urls.row(db.name, "reports", tilde_encode(report_id))
    data["row_json_url"] = datasette.urls.row(db.name, "reports", tilde_encode(report_id), format="json")
    return await _page(datasette, request, "lkmlkb_report.html", data)


async def commit_view(datasette, request):
    sha = valid_sha(_url_var(request, "sha"))
    if sha is None:
        return await _error(datasette, request, 400, "Bad commit id",
                            "A commit id is 4 to 40 hexadecimal digits (a prefix is fine).")
    db = await kb_database(datasette)
    if db is None:
        return await _no_kb(datasette, request)
    data = await _with_conn(db, commit_data, sha)
    data["database"] = db.name
    return await _page(datasette, request, "lkmlkb_commit.html", data, status=200 if data["count"] else 404)


async def job_view(datasette, request):
    report_id = valid_report_id(_url_var(request, "report_id"))
    index = valid_job_index(_url_var(request, "n"))
    if report_id is None or index is None:
        return Response.text("bad report id or job number\n", status=400)
    db = await kb_database(datasette)
    if db is None:
        return Response.text("no knowledge base attached\n", status=404)
    found = await _with_conn(db, job_row, report_id, index)
    if found is None:
        return Response.text(f"report {report_id} has no job {index}\n", status=404)
    as_posted = request.args.get("as") == "posted"
    text = job_download_text(found[0], found[1], index, as_posted=as_posted)
    filename = f"{_section(found[1].get('name') or 'job')}-{index}{'-posted' if as_posted else ''}.fio"
    return Response(text, status=200, content_type="text/plain; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{filename}"'})


async def repro_view(datasette, request):
    report_id = valid_report_id(_url_var(request, "report_id"))
    if report_id is None:
        return Response.text("bad report id\n", status=400)
    db = await kb_database(datasette)
    if db is None:
        return Response.text("no knowledge base attached\n", status=404)
    exists = await db.execute("SELECT 1 FROM reports WHERE report_id = ?", [report_id])
    if not exists.rows:
        return Response.text(f"no report {report_id}\n", status=404)
    try:
        data = await asyncio.to_thread(build_repro_zip, db.path, report_id)
    except LkmlkbError as exc:
        return Response.text(f"no reproduction for this report: {exc.reason}\n", status=404)
    return Response(data, status=200, content_type="application/zip",
                    headers={"content-disposition": f'attachment; filename="{zip_name(report_id)}"'})


async def atom_view(datasette, request):
    raw_list = request.args.get("list")
    list_name = valid_list_name(raw_list)
    if raw_list and list_name is None:
        return Response.text("bad list name\n", status=400)
    db = await kb_database(datasette)
    if db is None:
        return Response.text("no knowledge base attached\n", status=404)
    entries = await _with_conn(db, feed_entries, list_name)
    base = f"{request.scheme}://{request.host}"
    return Response(atom_feed(entries, base, list_name), status=200,
                    content_type="application/atom+xml; charset=utf-8")


async def not_found_view(datasette, request):
    return await _error(datasette, request, 404, "Not found", "There is no lkmlkb page at this address.")


async def css_view(datasette, request):
    return Response((STATIC_DIR / "lkmlkb.css").read_text(encoding="utf-8"), status=200,
                    content_type="text/css; charset=utf-8")


@hookimpl
def register_routes(datasette):
    return [
        (r"^/-/lkmlkb/search$", search_view),
        (r"^/-/lkmlkb/report/(?P<report_id>[^/]{1,400})/job/(?P<n>[^/]{1,20})\.fio$", job_view),
        (r"^/-/lkmlkb/report/(?P<report_id>[^/]{1,400})/repro\.zip$", repro_view),
        (r"^/-/lkmlkb/report/(?P<report_id>[^/]{1,400})$", report_view),
        (r"^/-/lkmlkb/commit/(?P<sha>[^/]{1,100})$", commit_view),
        (r"^/-/lkmlkb/reports\.atom$", atom_view),
        (r"^/-/lkmlkb/static/lkmlkb\.css$", css_view),
        # last: any other address under /-/lkmlkb/ is a plain 404 page.  (Datasette 0.65 turns an
        # unrouted URL into a 500 when `rich` is installed: its error handler prints a traceback
        # of an exception that was never raised.)
        (r"^/-/lkmlkb/", not_found_view),
    ]


@hookimpl
def prepare_jinja2_environment(env, datasette):
    """Put lkmlkb's templates after the user's --template-dir and before Datasette's own.

    (Datasette finds plugin templates only for plugin *packages*; this plugin
    is a module, so it adds its folder itself.)
    """
    loaders = [FileSystemLoader(str(TEMPLATES_DIR)), env.loader]
    if datasette.template_dir:
        loaders.insert(0, FileSystemLoader(datasette.template_dir))
    env.loader = ChoiceLoader(loaders)


@hookimpl
def prepare_connection(conn):
    """SQL functions the canned queries use: kernel version comparison, safe FTS queries."""
    def safe_fts(text):
        # every token a quoted phrase; a query of nothing matches nothing instead of failing
        return fts_query(str(text or "")) or '""'

    def kernel_compare(a, b):
        if a is None or b is None:
            return None
        try:
            return compare(str(a), str(b))
        except Exception:
            return None
    conn.create_function("lkmlkb_kernel_compare", 2, kernel_compare, deterministic=True)
    conn.create_function("lkmlkb_fts_query", 1, safe_fts, deterministic=True)


@hookimpl
def extra_css_urls():
    return ["/-/lkmlkb/static/lkmlkb.css"]


@hookimpl
def extra_template_vars(view_name, datasette):
    """The home page's summary of the knowledge base."""
    if view_name != "index":
        return {}

    async def inner():
        db = await kb_database(datasette)
        if db is None:
            return {"lkmlkb": None}
        return {"lkmlkb": await _with_conn(db, kb_summary)}
    return inner


@hookimpl
def render_cell(value, column, table, datasette):
    """Report ids link to their report page, commit ids to their commit page."""
    if not isinstance(value, str) or not value:
        return None
    if column == "report_id" and table in ("reports", "results", "fio_jobs", "report_kernels",
                                           "report_commits", "setups"):
        if valid_report_id(value):
            return Markup(f'<a href="{html.escape(report_path(value))}">{html.escape(value)}</a>')
    if column in ("sha", "culprit", "fix") and table in ("report_commits", "commits", "commit_citations"):
        sha = valid_sha(value)
        if sha:
            return Markup(f'<a href="/-/lkmlkb/commit/{sha}">{html.escape(value)}</a>')
    return None


@hookimpl
def menu_links(datasette):
    return [{"href": "/-/lkmlkb/search", "label": "Search regressions"},
            {"href": "/-/lkmlkb/reports.atom", "label": "Atom feed of new reports"}]


__all__ = ["atom_feed", "build_repro_zip", "chart_svg", "commit_data", "fts_query", "job_download_text",
           "kb_summary", "render_job", "report_data", "search_kb", "valid_job_index", "valid_report_id",
           "valid_sha"]
