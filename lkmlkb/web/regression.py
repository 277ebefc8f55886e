"""The regression page (``/-/lkmlkb/regression/<id>``: the timeline, every thread with its part and
why it was linked, each linked to its report page), the regression a report or a commit belongs
to, and the Atom feed of regressions (``/-/lkmlkb/regressions.atom``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from xml.etree import ElementTree as ET

from datasette.utils.asgi import Response

from lkmlkb.db.connection import has_table
from lkmlkb.db.queries import dict_rows
from lkmlkb.db.regressions import regression_data, regression_of, regression_page
from lkmlkb.fio.render import CONTROL_RE
from lkmlkb.regressions.text import VIA
from lkmlkb.web.common import (
    commit_url,
    error_page,
    kb_database,
    no_kb_page,
    page,
    report_path,
    url_var,
    with_conn,
)

#: a regression id as :mod:`lkmlkb.db.regressions` makes them
REGRESSION_ID_RE = re.compile(r"^reg-[0-9a-f]{12}$")
#: entries of the feed: newest regressions first
FEED_LIMIT = 50


def regression_path(regression_id: str) -> str:
    return regression_page(regression_id)


def regression_page_data(conn, regression_id: str) -> dict | None:
    """What the regression page shows, or None when there is no such regression."""
    if not has_table(conn, "regressions"):
        return None
    data = regression_data(conn, regression_id)
    if data is None:
        return None
    for t in data["threads"]:
        t["page"] = report_path(t["thread_id"]) if t.get("title") is not None else None
    titles = {t["thread_id"]: t.get("title") for t in data["threads"]}
    for e in data["timeline"]:
        e["page"] = report_path(e["thread_id"]) if titles.get(e["thread_id"]) is not None else None
        for c in e.get("commits") or []:
            c["url"] = commit_url(c["sha"])
            c["how"] = VIA.get(c["via"], c["via"])
    return data


def regression_of_report(conn, report_id: str) -> dict | None:
    """The regression a report's thread belongs to, with the page's address."""
    if not has_table(conn, "regression_threads"):
        return None
    found = regression_of(conn, report_id)
    if found:
        found["page"] = regression_path(found["regression_id"])
    return found


def regressions_of_reports(conn, report_ids: list[str]) -> list[dict]:
    """The regressions those reports belong to (each once), newest first."""
    if not report_ids or not has_table(conn, "regression_threads"):
        return []
    marks = ",".join("?" * len(report_ids))
    rows = dict_rows(
        conn,
        f"SELECT DISTINCT g.regression_id, g.title, g.status, g.thread_count, g.last_date FROM regressions g "
        f"JOIN regression_threads t ON t.regression_id = g.regression_id WHERE t.thread_id IN ({marks}) "
        "ORDER BY g.last_date DESC, g.regression_id",
        report_ids,
    )
    for r in rows:
        r["page"] = regression_path(r["regression_id"])
    return rows


async def regression_view(datasette, request):
    regression_id = url_var(request, "regression_id")
    if not REGRESSION_ID_RE.match(regression_id or ""):
        return await error_page(datasette, request, 400, "Bad regression id", "That is not a regression id.")
    db = await kb_database(datasette)
    if db is None:
        return await no_kb_page(datasette, request)
    data = await with_conn(db, regression_page_data, regression_id)
    if data is None:
        return await error_page(
            datasette, request, 404, "No such regression", f"There is no regression {regression_id!r}."
        )
    data["database"] = db.name
    return await page(datasette, request, "lkmlkb_regression.html", data)


def feed_entries(conn, limit: int = FEED_LIMIT) -> list[dict]:
    """Newest regressions first (by their last event or message)."""
    if not has_table(conn, "regressions"):
        return []
    return dict_rows(
        conn,
        "SELECT regression_id, title, status, thread_count, first_date, last_date FROM regressions "
        "ORDER BY coalesce(last_date, first_date, '') DESC, regression_id LIMIT ?",
        (limit,),
    )


def _text(value) -> str:
    return CONTROL_RE.sub(" ", "" if value is None else str(value))


def atom_feed(entries: list[dict], base_url: str, now: str | None = None) -> bytes:
    """An Atom 1.0 document of regressions; text is escaped by ElementTree."""
    ns = "http://www.w3.org/2005/Atom"
    ET.register_namespace("", ns)

    def sub(parent, tag, text=None, **attrs):
        el = ET.SubElement(parent, f"{{{ns}}}{tag}", attrs)
        if text is not None:
            el.text = _text(text)
        return el

    feed = ET.Element(f"{{{ns}}}feed")
    self_url = base_url + "/-/lkmlkb/regressions.atom"
    sub(feed, "title", "lkmlkb: regressions")
    sub(feed, "id", self_url)
    sub(feed, "link", href=self_url, rel="self", type="application/atom+xml")
    sub(feed, "link", href=base_url + "/", rel="alternate", type="text/html")
    stamps = [e["last_date"] for e in entries if e.get("last_date")]
    sub(feed, "updated", max(stamps) if stamps else (now or datetime.now(UTC).isoformat(timespec="seconds")))
    sub(sub(feed, "author"), "name", "lkmlkb")
    sub(feed, "generator", "lkmlkb")
    for e in entries:
        entry = sub(feed, "entry")
        sub(entry, "title", e.get("title") or e["regression_id"])
        sub(entry, "id", "tag:lkmlkb,2024:regression/" + e["regression_id"])
        sub(
            entry,
            "link",
            href=base_url + regression_path(e["regression_id"]),
            rel="alternate",
            type="text/html",
        )
        sub(entry, "updated", e.get("last_date") or e.get("first_date") or "1970-01-01T00:00:00Z")
        if e.get("first_date"):
            sub(entry, "published", e["first_date"])
        sub(
            entry,
            "summary",
            f"Status: {e.get('status') or 'reported'}. Threads: {e.get('thread_count') or 0}.",
        )
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8")


async def atom_view(datasette, request):
    db = await kb_database(datasette)
    if db is None:
        return Response.text("no knowledge base attached\n", status=404)
    entries = await with_conn(db, feed_entries)
    base = f"{request.scheme}://{request.host}"
    return Response(atom_feed(entries, base), status=200, content_type="application/atom+xml; charset=utf-8")
