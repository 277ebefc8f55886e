"""Downloads: a report's fio job as a job file (as posted, or rewritten for a safe run) and its
reproduction bundle as a zip."""

from __future__ import annotations

import asyncio
import io
import logging
import re
import sqlite3
import tempfile
import urllib.parse
import zipfile
from pathlib import Path

import sqlite_utils
from datasette.utils.asgi import Response

from lkmlkb.db.queries import dict_rows
from lkmlkb.db.reports import load_report
from lkmlkb.errors import LkmlkbError, ReproError
from lkmlkb.fio.render import one_line, render_stored_job, section_name
from lkmlkb.model import FioJob
from lkmlkb.repro.bundle import write_bundle
from lkmlkb.repro.safety import make_safe
from lkmlkb.web.common import (
    json_dict,
    kb_database,
    url_var,
    valid_job_index,
    valid_report_id,
    with_conn,
)

log = logging.getLogger(__name__)

#: the first line of a job served as posted: the reporter's text, which the safety pass did not touch
POSTED_WARNING = (
    "; AS POSTED: the reporter's text, NOT made safe (it may write to devices or run programs); "
    "do not run it as is. The safe job is this address without ?as=posted."
)


def safe_job(name: str, options: dict, global_options: dict) -> tuple[str, dict, dict, list[str]] | None:
    """The job rewritten for a safe run by :mod:`lkmlkb.repro.safety`, or None when that fails."""
    try:
        job, notes = make_safe(
            FioJob(name=name, form="jobfile", options=dict(options), global_options=dict(global_options))
        )
    except Exception:
        log.info("safety pass failed for job %r", name, exc_info=True)
        return None
    return job.name, dict(job.options), dict(job.global_options), list(notes)


def job_download_text(report: dict, job: dict, index: int, as_posted: bool = False) -> str:
    """The text of ``/-/lkmlkb/report/<id>/job/<n>.fio``: provenance comments, then the job.

    By default the job goes through the reproduction safety pass (device
    targets become ``${LKMLKB_TARGET}``, program-running options go); with
    ``as_posted`` (or when the safety pass fails) it is the job exactly as the
    report gave it, headed by :data:`POSTED_WARNING` and a warning naming a
    device it uses.
    """
    options = json_dict(job.get("options"))
    glob = json_dict(job.get("global_options"))
    name = job.get("name") or f"job{index}"
    head = [
        f"; lkmlkb: job {index} of report {report['report_id']}",
        f"; {one_line(report.get('title'))[:200]}",
        f"; posted in <{one_line(job.get('message_id'))}> lines "
        f"{(job.get('line_start') or 0) + 1}-{(job.get('line_end') or 0) + 1} ({one_line(job.get('form'))})",
    ]
    safe = None if as_posted else safe_job(name, options, glob)
    if safe is not None:
        name, options, glob, notes = safe
        head.append("; rewritten for a safe run; the job as posted: ?as=posted")
        head += [f";   - {one_line(n)[:300]}" for n in notes]
        head.append("; run: LKMLKB_TARGET=/path/to/scratch/file fio THIS.fio")
    else:
        head.insert(0, POSTED_WARNING)
        target = options.get("filename") or options.get("directory") or ""
        if str(target).startswith("/dev/"):
            head.append(
                f"; WARNING: as posted; this job uses the device {one_line(target)} of the reporter's "
                "machine. Point filename= at a scratch file or device before running it."
            )
    return "\n".join(head) + "\n\n" + render_stored_job(name, options, glob)


def job_row(conn, report_id: str, index: int) -> tuple[dict, dict] | None:
    """(report, job) for job ``index`` (1-based, in id order) of a report, or None."""
    rep = dict_rows(conn, "SELECT report_id, title FROM reports WHERE report_id = ?", (report_id,))
    if not rep:
        return None
    jobs = dict_rows(
        conn,
        "SELECT * FROM fio_jobs WHERE report_id = ? ORDER BY id LIMIT 1 OFFSET ?",
        (report_id, index - 1),
    )
    return (rep[0], jobs[0]) if jobs else None


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
    conn = sqlite3.connect(
        f"file:{urllib.parse.quote(str(db_path))}?mode=ro", uri=True, check_same_thread=False
    )
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


async def job_view(datasette, request):
    report_id = valid_report_id(url_var(request, "report_id"))
    index = valid_job_index(url_var(request, "n"))
    if report_id is None or index is None:
        return Response.text("bad report id or job number\n", status=400)
    db = await kb_database(datasette)
    if db is None:
        return Response.text("no knowledge base attached\n", status=404)
    found = await with_conn(db, job_row, report_id, index)
    if found is None:
        return Response.text(f"report {report_id} has no job {index}\n", status=404)
    as_posted = request.args.get("as") == "posted"
    text = job_download_text(found[0], found[1], index, as_posted=as_posted)
    filename = f"{section_name(found[1].get('name') or 'job')}-{index}{'-posted' if as_posted else ''}.fio"
    return Response(
        text,
        status=200,
        content_type="text/plain; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{filename}"'},
    )


async def repro_view(datasette, request):
    report_id = valid_report_id(url_var(request, "report_id"))
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
    return Response(
        data,
        status=200,
        content_type="application/zip",
        headers={"content-disposition": f'attachment; filename="{zip_name(report_id)}"'},
    )
