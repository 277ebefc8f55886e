"""``lkmlkb serve``: Datasette on a knowledge base, with lkmlkb's metadata and plugin.

The database is checked first (:func:`lkmlkb.db.connection.connect` with
``create=False``), so a missing file or one built by another version of
lkmlkb is a one-line :class:`lkmlkb.errors.DatabaseError`, never a stack
trace in the browser.  Datasette opens the file read-only (``mode=ro``, not
``immutable``): the knowledge base is in WAL mode and may be written by an
``lkmlkb ingest`` while it is served, and a reader must see the live file.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import ipaddress
import json
import logging
import sys
import webbrowser
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import uvicorn
from datasette.app import Datasette
from datasette.plugins import pm

from lkmlkb.db.connection import connect_readonly, read_mode
from lkmlkb.errors import DatabaseError, LkmlkbError
from lkmlkb.web import hooks

log = logging.getLogger(__name__)

#: the packaged copy of the top-level datasette-metadata.json (a test keeps them identical)
METADATA_RESOURCE = ("lkmlkb", "data/datasette-metadata.json")
#: the database name the metadata file is written for
METADATA_DB_NAME = "kb"
SETTINGS = {
    "suggest_facets": False,  # facet suggestions cost a query per column on every table page
    "sql_time_limit_ms": 3000,
    "facet_time_limit_ms": 500,
    "default_page_size": 50,
    "allow_download": False,  # the raw SQLite file holds raw mail; serve the JSON/CSV instead
}


def load_metadata(db_name: str = METADATA_DB_NAME) -> dict:
    """The packaged Datasette metadata, its database section keyed by ``db_name``.

    Datasette names a database after its file's stem (``kb.db`` -> ``kb``);
    the metadata is written for ``kb`` and re-keyed here for any other name.
    """
    text = resources.files(METADATA_RESOURCE[0]).joinpath(METADATA_RESOURCE[1]).read_text(encoding="utf-8")
    meta = json.loads(text)
    if db_name != METADATA_DB_NAME:
        meta = copy.deepcopy(meta)
        dbs = meta.get("databases", {})
        if METADATA_DB_NAME in dbs:
            dbs[db_name] = dbs.pop(METADATA_DB_NAME)
        if "description_html" in meta:
            meta["description_html"] = meta["description_html"].replace(
                f'href="/{METADATA_DB_NAME}/', f'href="/{db_name}/'
            )
    return meta


def check_database(db_path: str | Path) -> Path:
    """The path of a usable knowledge base, or DatabaseError saying why it is not one."""
    path = Path(db_path)
    if path.is_dir():
        raise DatabaseError(str(path), "is a directory, not a knowledge base file")
    db = connect_readonly(path)
    db.conn.close()
    return path.resolve()


def make_datasette(db_path: str | Path, settings: dict | None = None, immutable: bool = False):
    """A configured (not yet started) Datasette for the knowledge base at ``db_path``, opened
    read-only; ``immutable`` (or a file SQLite cannot keep a WAL index beside, in a read-only
    folder): served as an unchanging file, as one publishes a knowledge base."""
    path = check_database(db_path)
    if not pm.is_registered(hooks):
        pm.register(hooks, name="lkmlkb")  # e.g. running from a checkout without the entry point
    _quiet_client_errors()
    immutable = immutable or read_mode(path) == "immutable"
    return Datasette(
        [] if immutable else [str(path)],
        immutables=[str(path)] if immutable else [],
        metadata=load_metadata(path.stem),
        settings={**SETTINGS, **(settings or {})},
    )


def _quiet_client_errors() -> None:
    """Datasette 0.65's default exception handler prints every exception it answers, each 404
    included, as a traceback with its local variables (~170 lines) whenever ``rich`` can be
    imported, and every handler's result is awaited, so a plugin's own handler cannot stop it.
    Without ``rich`` it prints a traceback for server errors only: that is what a served
    knowledge base wants from its console.  (The handler's module is reached through the plugin
    manager: imported before ``datasette.plugins``, it would register itself half-initialized,
    without its hook.)"""
    default_handler = pm.get_plugin("datasette.handle_exception")
    if getattr(default_handler, "rich", None) is not None:
        default_handler.rich = None


def exposure(db_path: str | Path, host: str, port: int) -> str | None:
    """What serving on ``host`` exposes, when it is not the loopback interface only."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:
        return None
    where = "every interface of this machine" if host in ("0.0.0.0", "::") else host
    return (
        f"lkmlkb serve: {db_path} is served on {where}, port {port}, to anyone who can reach it, "
        "without a password: every message, report, job and bundle in it (read-only)"
    )


def url_for(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(
    db_path: str | Path,
    host: str = "127.0.0.1",
    port: int = 8001,
    open_browser: bool = False,
    on_ready: Callable[[str], None] | None = None,
    immutable: bool = False,
) -> None:
    """Serve the knowledge base until interrupted.

    Raises DatabaseError before anything starts when ``db_path`` is missing,
    not SQLite, not a knowledge base, or built by another schema version.
    ``on_ready`` is called with the URL just before the server starts (the CLI
    prints it).
    """
    ds = make_datasette(db_path, immutable=immutable)
    asyncio.run(ds.invoke_startup())
    url = url_for(host, port)
    log.info("serving %s at %s", db_path, url)
    note = exposure(db_path, host, port)
    if note is not None:
        print(note, file=sys.stderr, flush=True)
    if on_ready is not None:
        on_ready(url)
    if open_browser:
        webbrowser.open(url)
    uvicorn.run(ds.app(), host=host, port=port, log_level="warning", lifespan="on")


def main(argv: list[str] | None = None) -> int:
    """``python -m lkmlkb.web.serve --db kb.db --port 8001`` (what ``lkmlkb serve`` does)."""
    parser = argparse.ArgumentParser(prog="python -m lkmlkb.web.serve", description=main.__doc__)
    parser.add_argument("--db", default="kb.db", help="the knowledge base (default kb.db)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--open", action="store_true", help="open a browser")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    try:
        serve(
            args.db,
            host=args.host,
            port=args.port,
            open_browser=args.open,
            on_ready=lambda url: print(f"Serving {args.db} at {url}", flush=True),
        )
    except LkmlkbError as exc:
        print(f"lkmlkb serve: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
