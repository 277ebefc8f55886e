"""Helpers of the web tests: a knowledge base served by the plugin, fetched through Datasette's client."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

from lkmlkb.web.serve import make_datasette


def served(db_path: Path) -> Callable:
    """GET through Datasette's own test client on the knowledge base at ``db_path``, configured and
    started as ``lkmlkb serve`` does it (its WAL checkpointed first, as the served file is)."""
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    ds = make_datasette(db_path)
    asyncio.run(ds.invoke_startup())

    def get(path: str, **kw):
        return asyncio.run(ds.client.get(path, **kw))

    return get
