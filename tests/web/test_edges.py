"""Edges of the web face: an overlong table search, and ``serve`` on an address other machines reach."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from web_helpers import free_port, wait_listening


def test_an_overlong_table_search_is_refused_with_a_clear_page(get):
    long = "mq-deadline " * 2000  # 24,000 characters, pasted by mistake
    r = get("/kb/messages?_search=" + long)
    assert r.status_code == 400
    assert "Search text too long: 24,000 characters in _search, at most 1,000." in r.text
    r = get("/kb/reports?_search_title=" + "x" * 1001)
    assert r.status_code == 400 and "1,001 characters in _search_title" in r.text


def test_a_table_search_of_usual_length_answers(get):
    r = get("/kb/messages.json?_search=multipath&_shape=array&_col=subject")
    assert r.status_code == 200
    assert any("multipath" in row["subject"] for row in r.json())
    assert get("/kb/messages?_search=" + "x" * 1000).status_code == 200


def serve_stderr(db: Path, host: str) -> str:
    """What ``lkmlkb serve --host HOST`` says on stderr once it listens (then it is stopped)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lkmlkb.cli", "serve", "--db", str(db), "--host", host, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_listening(proc, port, 60)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return proc.stderr.read()


def test_serve_on_every_interface_says_what_it_exposes(kb):
    said = serve_stderr(kb[0], "0.0.0.0")
    assert (
        f"lkmlkb serve: {kb[0]} is served on every interface of this machine, port" in said
        and "to anyone who can reach it, without a password: every message, report, job and bundle" in said
    )


def test_serve_on_loopback_says_nothing_more(kb):
    assert "is served on" not in serve_stderr(kb[0], "127.0.0.1")


def test_serve_on_a_port_out_of_range_is_one_line(kb):
    proc = subprocess.run(
        [sys.executable, "-m", "lkmlkb.cli", "serve", "--db", str(kb[0]), "--port", "99999"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "'--port': 99999 is not in the range 1<=x<=65535" in proc.stderr
