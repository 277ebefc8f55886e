"""What the plugin's pages and downloads share: route parameters checked, links to lore and
git.kernel.org, JSON columns read leniently, the knowledge base among Datasette's databases,
pages rendered.

Every route parameter is validated before it reaches SQL or the file
system; a bad one is a 400/404 page, never a traceback.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.parse

from datasette.utils.asgi import Response

log = logging.getLogger(__name__)

COMMIT_URL = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id={sha}"
LORE_URL = "https://lore.kernel.org/r/{msgid}"
LORE_SEARCH_URL = "https://lore.kernel.org/all/?q={query}"


# ---------------------------------------------------------------- validation

REPORT_ID_RE = re.compile(
    r"""
    ^(?![./~])                 # not ".", "/" or "~" first: no hidden names, no absolute or home paths
    [^\s\x00-\x1f\x7f]{1,251}$   # a thread id is a Message-ID, which may hold any printable character
                               # ("a/b$c\"d@x", "20240307.1a2b+x=y@host"); a report id may be a hash too
""",
    re.VERBOSE,
)

SHA_RE = re.compile(
    r"""
    ^[0-9a-f]{4,40}$    # a commit id or prefix as cited ("d47f9717e5cf"), lowercase hex only
""",
    re.VERBOSE,
)

JOB_INDEX_RE = re.compile(
    r"""
    ^[1-9][0-9]{0,3}$    # "1".."9999": job n of a report, 1-based
""",
    re.VERBOSE,
)

LIST_NAME_RE = re.compile(
    r"""
    ^[A-Za-z0-9][A-Za-z0-9._@+-]{0,120}$    # "linux-block", "linux-block@vger.kernel.org"
""",
    re.VERBOSE,
)


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


# ---------------------------------------------------------------- links


def commit_url(sha: str) -> str:
    return COMMIT_URL.format(sha=urllib.parse.quote(sha, safe=""))


def message_url(
    message_id: str | None,
    synthetic: bool = False,
    archive_url: str | None = None,
    subject: str | None = None,
) -> str | None:
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


async def with_conn(db, fn, *args):
    """Run ``fn(conn, *args)`` on one of Datasette's read connections."""
    return await db.execute_fn(lambda conn: fn(conn, *args))


async def page(datasette, request, template: str, context: dict, status: int = 200) -> Response:
    body = await datasette.render_template([template], context, request=request)
    return Response.html(body, status=status)


async def error_page(datasette, request, status: int, title: str, message: str) -> Response:
    return await page(
        datasette,
        request,
        "lkmlkb_error.html",
        {"title": title, "message": message, "status": status},
        status=status,
    )


async def no_kb_page(datasette, request) -> Response:
    return await error_page(
        datasette,
        request,
        404,
        "No knowledge base",
        "No lkmlkb knowledge base is attached to this Datasette (run `lkmlkb ingest`).",
    )


def url_var(request, name: str) -> str:
    return urllib.parse.unquote(request.url_vars.get(name, ""), errors="replace")
