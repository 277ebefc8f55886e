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

import html
import urllib.parse
from pathlib import Path

from datasette import hookimpl
from datasette.utils.asgi import Response
from jinja2 import ChoiceLoader, FileSystemLoader
from markupsafe import Markup

from lkmlkb.db.queries import MAX_QUERY_CHARS, fts_query
from lkmlkb.extract.kernel_versions import compare
from lkmlkb.web.common import kb_database, report_path, valid_report_id, valid_sha, with_conn
from lkmlkb.web.downloads import job_view, repro_view
from lkmlkb.web.feed import atom_view
from lkmlkb.web.pages import commit_view, kb_summary, not_found_view, report_view, search_view
from lkmlkb.web.regression import atom_view as regressions_atom_view
from lkmlkb.web.regression import regression_view

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
STATIC_DIR = Path(__file__).resolve().parent / "static"


async def css_view(datasette, request):
    return Response(
        (STATIC_DIR / "lkmlkb.css").read_text(encoding="utf-8"),
        status=200,
        content_type="text/css; charset=utf-8",
    )


def too_long_search(query_string: bytes) -> str | None:
    """The answer to a query string whose ``_search`` (or ``_search_<column>``) text is longer
    than a search reads (MAX_QUERY_CHARS): FTS over 20-80 KB of typed text takes seconds."""
    for name, value in urllib.parse.parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if name.startswith("_search") and name != "_searchmode" and len(value) > MAX_QUERY_CHARS:
            return f"Search text too long: {len(value):,} characters in {name}, at most {MAX_QUERY_CHARS:,}."
    return None


@hookimpl
def asgi_wrapper(datasette):
    """Datasette's own table search (``?_search=``) refuses text longer than a search reads."""

    def wrap(app):
        async def capped(scope, receive, send):
            if scope.get("type") == "http" and b"_search" in scope.get("query_string", b""):
                message = too_long_search(scope["query_string"])
                if message is not None:
                    body = f"<!DOCTYPE html><title>Search too long</title><h1>400</h1><p>{html.escape(message)}</p>"
                    await Response.html(body, status=400).asgi_send(send)
                    return
            await app(scope, receive, send)

        return capped

    return wrap


@hookimpl
def register_routes(datasette):
    return [
        (r"^/-/lkmlkb/search$", search_view),
        (r"^/-/lkmlkb/report/(?P<report_id>[^/]{1,1200})/job/(?P<n>[^/]{1,20})\.fio$", job_view),
        (r"^/-/lkmlkb/report/(?P<report_id>[^/]{1,1200})/repro\.zip$", repro_view),
        (r"^/-/lkmlkb/report/(?P<report_id>[^/]{1,1200})$", report_view),
        (r"^/-/lkmlkb/commit/(?P<sha>[^/]{1,100})$", commit_view),
        (r"^/-/lkmlkb/reports\.atom$", atom_view),
        (r"^/-/lkmlkb/regression/(?P<regression_id>[^/]{1,100})$", regression_view),
        (r"^/-/lkmlkb/regressions\.atom$", regressions_atom_view),
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
        return {"lkmlkb": await with_conn(db, kb_summary)}

    return inner


@hookimpl
def render_cell(value, column, table, datasette):
    """Report ids link to their report page, commit ids to their commit page."""
    if not isinstance(value, str) or not value:
        return None
    if column == "report_id" and table in (
        "reports",
        "results",
        "fio_jobs",
        "report_kernels",
        "report_commits",
        "setups",
    ):
        if valid_report_id(value):
            return Markup(f'<a href="{html.escape(report_path(value))}">{html.escape(value)}</a>')
    if column in ("sha", "culprit", "fix") and table in ("report_commits", "commits", "commit_citations"):
        sha = valid_sha(value)
        if sha:
            return Markup(f'<a href="/-/lkmlkb/commit/{sha}">{html.escape(value)}</a>')
    return None


@hookimpl
def menu_links(datasette):
    return [
        {"href": "/-/lkmlkb/search", "label": "Search regressions"},
        {"href": "/-/lkmlkb/reports.atom", "label": "Atom feed of new reports"},
    ]
