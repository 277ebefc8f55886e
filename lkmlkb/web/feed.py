"""The Atom feed of new reports (``/-/lkmlkb/reports.atom[?list=]``)."""

from __future__ import annotations

import urllib.parse
from datetime import UTC, datetime
from xml.etree import ElementTree as ET

from datasette.utils.asgi import Response

from lkmlkb.db.queries import dict_rows
from lkmlkb.fio.render import CONTROL_RE
from lkmlkb.web.common import json_list, kb_database, report_path, valid_list_name, with_conn

#: entries of the feed: newest reports first
FEED_LIMIT = 50


def feed_entries(conn, list_name: str | None, limit: int = FEED_LIMIT) -> list[dict]:
    """Newest reports first (by when built, then last message), optionally those on one list."""
    where, params = "", []
    if list_name:
        where = (
            "WHERE EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(reports.lists) "
            "THEN reports.lists ELSE '[]' END) j WHERE j.value = ? OR j.value LIKE ? || '@%')"
        )
        params = [list_name, list_name]
    return dict_rows(
        conn,
        f"""
        SELECT report_id, title, status, summary, workload, good_kernel, bad_kernel, regression_pct,
               lists, culprits, first_date, last_date, built
        FROM reports {where}
        ORDER BY coalesce(built, last_date) DESC, last_date DESC, report_id LIMIT ?""",
        [*params, limit],
    )


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
    self_url = (
        base_url + "/-/lkmlkb/reports.atom" + (f"?list={urllib.parse.quote(list_name)}" if list_name else "")
    )
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
        sub(
            entry,
            "updated",
            e.get("built") or e.get("last_date") or e.get("first_date") or "1970-01-01T00:00:00Z",
        )
        if e.get("first_date"):
            sub(entry, "published", e["first_date"])
        for name in json_list(e.get("lists")):
            sub(entry, "category", term=_xml_text(name))
        bits = [f"Status: {e.get('status') or 'unknown'}."]
        if e.get("good_kernel") or e.get("bad_kernel"):
            bits.append(
                f"Kernels: {e.get('good_kernel') or '?'} (good) vs {e.get('bad_kernel') or '?'} (bad)."
            )
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


async def atom_view(datasette, request):
    raw_list = request.args.get("list")
    list_name = valid_list_name(raw_list)
    if raw_list and list_name is None:
        return Response.text("bad list name\n", status=400)
    db = await kb_database(datasette)
    if db is None:
        return Response.text("no knowledge base attached\n", status=404)
    entries = await with_conn(db, feed_entries, list_name)
    base = f"{request.scheme}://{request.host}"
    return Response(
        atom_feed(entries, base, list_name), status=200, content_type="application/atom+xml; charset=utf-8"
    )
