"""Readers open the knowledge base read-only; one writer at a time.

The knowledge base is seed 000 (the linux-block mq-deadline multipath write regression) ingested
into ``lkmlkb.db``.  A read-only folder or file is made real for the commands by running them as
an unprivileged user: as root (where permissions do not stop writes) through ``setpriv`` as
``nobody``, otherwise as the user running the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from lkmlkb.db.connection import writer_lock
from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[2]
CULPRIT = "d47f9717e5cf"
NOBODY = 65534


def unprivileged() -> list[str]:
    """The prefix that runs a command as a user file permissions apply to."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv, "running as root, these tests need setpriv (util-linux) to drop privileges"
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def test_the_unprivileged_user_runs_this_lkmlkb():
    # what makes the tests below mean something: their commands run the code under test
    import lkmlkb as package

    r = subprocess.run(
        [*unprivileged(), sys.executable, "-c", "import lkmlkb; print(lkmlkb.__file__)"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert r.stdout.strip() == package.__file__, r.stderr


def lkmlkb(*args: str, user: bool = True) -> subprocess.CompletedProcess:
    prefix = unprivileged() if user else []
    return subprocess.run(
        [*prefix, sys.executable, "-m", "lkmlkb.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )


@pytest.fixture(scope="module")
def built() -> Iterator[Path]:
    """A knowledge base built once, in a folder every user can read."""
    top = Path(tempfile.mkdtemp(prefix="lkmlkb-ro-"))
    top.chmod(0o755)
    (seed,) = sorted((ROOT / "corpus").glob("000_*.txt"))
    db = top / "lkmlkb.db"
    ingest([str(seed)], str(db), extract=True)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    yield db
    shutil.rmtree(top)


@pytest.fixture()
def kb(built) -> Iterator[Path]:
    """A private copy of the knowledge base in its own folder (chmod-ed by the tests)."""
    folder = Path(tempfile.mkdtemp(prefix="lkmlkb-ro-", dir=built.parent))
    db = folder / "lkmlkb.db"
    shutil.copy(built, db)
    folder.chmod(0o755)
    db.chmod(0o644)
    yield db
    folder.chmod(0o755)
    shutil.rmtree(folder)


def read_only(db: Path, folder_too: bool = True) -> None:
    db.chmod(0o444)
    db.parent.chmod(0o555 if folder_too else 0o777)
    # what makes the tests mean something: the user the commands run as cannot write there
    probe = subprocess.run([*unprivileged(), "touch", str(db)], capture_output=True)
    assert probe.returncode != 0


def test_readers_work_on_a_database_in_a_read_only_folder(kb):
    read_only(kb)
    before = sorted(os.listdir(kb.parent))
    r = lkmlkb("reports", "--db", str(kb))
    assert r.returncode == 0, r.stderr
    assert "bisected" in r.stdout and "multipath setup" in r.stdout
    rid = r.stdout.split()[3]
    r = lkmlkb("search", "multipath", "--db", str(kb))
    assert r.returncode == 0 and "multipath" in r.stdout, r.stderr
    r = lkmlkb("show", rid, "--db", str(kb), "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["thread_id"] == rid
    r = lkmlkb("commit", CULPRIT, "--db", str(kb))
    assert r.returncode == 0 and "culprit" in r.stdout, r.stderr
    assert sorted(os.listdir(kb.parent)) == before  # nothing written beside it


@pytest.mark.parametrize("folder_too", [True, False], ids=["folder", "file-only"])
@pytest.mark.parametrize("command", ["link", "reprocess"])
def test_a_writer_on_a_read_only_database_says_so_in_one_line(kb, folder_too, command):
    read_only(kb, folder_too)
    r = lkmlkb(command, "--db", str(kb))
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert (
        r.stderr.strip()
        == f"lkmlkb: {kb}: is read-only (the file or its folder), and this command writes to it"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def served_json(db: Path, path: str, *options: str, user: bool = True) -> dict:
    """GET ``path`` (JSON) from ``lkmlkb serve`` on ``db``, run as the unprivileged user (``user``)
    or as the user running the tests."""
    port = free_port()
    proc = subprocess.Popen(
        [
            *(unprivileged() if user else []),
            sys.executable,
            "-m",
            "lkmlkb.cli",
            "serve",
            "--db",
            str(db),
            "--port",
            str(port),
        ]
        + list(options),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd="/",
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
                    return json.loads(resp.read())
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"serve did not answer: {proc.communicate()[1][-500:]}") from None
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_serves_a_database_in_a_read_only_folder(kb):
    read_only(kb)
    rows = served_json(kb, "/lkmlkb/reports.json?_shape=array&_col=status")
    assert [r["status"] for r in rows] == ["bisected"]
    (db,) = served_json(kb, "/-/databases.json")
    assert db["is_mutable"] is False  # SQLite cannot keep a WAL index in the folder: served as it is


def test_serve_immutable_serves_an_unchanging_copy(kb):
    # served by the file's owner, so that SQLite can keep its WAL index beside it
    (db,) = served_json(kb, "/-/databases.json", "--immutable", user=False)
    assert db["name"] == "lkmlkb" and db["is_mutable"] is False
    (db,) = served_json(kb, "/-/databases.json", user=False)
    assert db["is_mutable"] is True


def test_a_second_writer_is_refused_in_one_line_and_nothing_is_lost(kb):
    (mail,) = sorted((ROOT / "corpus").glob("003_*.txt"))
    count = "SELECT count(*) FROM messages"
    before = sqlite3.connect(kb).execute(count).fetchone()[0]
    with writer_lock(kb):  # a run writing
        r = lkmlkb("ingest", str(mail), "--db", str(kb), user=False)
        assert r.returncode != 0
        assert r.stderr.strip() == (
            f"lkmlkb: {kb}: another lkmlkb run is writing to it; run this again once it has finished"
        )
        assert sqlite3.connect(kb).execute(count).fetchone()[0] == before
    r = lkmlkb("ingest", str(mail), "--db", str(kb), user=False)
    assert r.returncode == 0, r.stderr
    assert sqlite3.connect(kb).execute(count).fetchone()[0] > before
    assert stat.S_ISREG(os.stat(str(kb) + ".lock").st_mode)
