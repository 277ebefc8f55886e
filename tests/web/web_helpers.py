"""Helpers of the web tests: a knowledge base served by the plugin, fetched through Datasette's client."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(proc: subprocess.Popen, port: int, seconds: float = 30) -> None:
    """Return once ``lkmlkb serve`` (``proc``) accepts connections on ``port``; fail the test if it
    exits or does not listen within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"lkmlkb serve exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"lkmlkb serve did not start listening within {seconds:g} s")
