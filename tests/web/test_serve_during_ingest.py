"""`lkmlkb serve` answers while `lkmlkb ingest` writes the same knowledge base (WAL), both real processes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.read()


@pytest.mark.slow
def test_queries_answer_while_an_ingest_runs(tmp_path):
    if not ARCHIVE.exists():
        pytest.skip("the shared archive sample is not beside this checkout")
    db = tmp_path / "kb.db"
    seeds = [str(p) for p in sorted((ROOT / "corpus").glob("00[0-4]_*.txt"))]
    subprocess.run(
        [sys.executable, "-m", "lkmlkb.cli", "ingest", *seeds, "--db", str(db)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "lkmlkb.web.serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    ingest = None
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(200):  # wait for the server, bounded
            try:
                get(base + "/-/versions.json")
                break
            except OSError:
                time.sleep(0.1)
        ingest = subprocess.Popen(
            [sys.executable, "-m", "lkmlkb.cli", "ingest", str(ARCHIVE), "--db", str(db), "-j", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        counts, answered = [], 0
        deadline = time.monotonic() + 240
        while ingest.poll() is None and time.monotonic() < deadline and answered < 400:
            status, body = get(base + "/kb/messages.json?_shape=array&_size=1&sql=")
            assert status == 200
            status, body = get(base + "/kb.json?sql=select+count(*)+as+n+from+messages&_shape=array")
            assert status == 200
            counts.append(json.loads(body)[0]["n"])
            status, _ = get(base + "/-/lkmlkb/search?q=fio+regression")
            assert status == 200
            answered += 1
            time.sleep(0.2)
        assert ingest.wait(timeout=600) == 0, ingest.stderr.read().decode()
        assert answered >= 3, "the ingest finished before any query ran alongside it"
        assert counts[-1] > counts[0], counts  # the reader saw the writer's batches as they committed
        status, body = get(base + "/kb.json?sql=select+count(*)+as+n+from+messages&_shape=array")
        assert json.loads(body)[0]["n"] == 26 + 3938
    finally:
        for p in (ingest, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
