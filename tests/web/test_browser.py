"""The knowledge base as a person uses it: headless Chromium against `lkmlkb serve`.

Needs the Debian packages ``chromium`` (and ``chromium-driver``) and the
Python package ``playwright`` -- its browser download is never used; the
test drives /usr/bin/chromium.  The knowledge base is the corpus build of
conftest.py (seed 000: the mq-deadline multipath write regression).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_playwright is None, reason="the playwright Python package is not installed"),
    pytest.mark.skipif(
        not os.access(CHROMIUM, os.X_OK), reason=f"{CHROMIUM} is missing (apt-get install chromium)"
    ),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def server(kb):
    """`python -m lkmlkb.web.serve --db KB --port N` on 127.0.0.1; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lkmlkb.web.serve", "--db", str(kb[0]), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"lkmlkb serve exited: {proc.stderr.read()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("lkmlkb serve did not start listening within 30 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert f"Serving {kb[0]} at {url}/" in proc.stdout.read()


@pytest.mark.fio
@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_search_open_report_download_job(server, kb, tmp_path):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(accept_downloads=True, viewport={"width": 1280, "height": 900})
            page.goto(server + "/")
            assert "What this knowledge base holds" in page.content()
            page.fill("#lkmlkb-q", "mq-deadline")
            page.press("#lkmlkb-q", "Enter")
            page.wait_for_url("**/-/lkmlkb/search?q=mq-deadline")
            first = page.locator("#hits-reports .lkmlkb-hit-title").first
            assert "sequential-write on a multipath" in first.inner_text()
            assert page.locator("#hits-reports mark").first.inner_text() == "mq-deadline"
            first.click()
            page.wait_for_selector("h1.lkmlkb-title")
            commits = page.locator("#commits").inner_text()
            assert "d47f9717e5cf" in commits and "culprit" in commits.lower()
            assert (
                page.locator("#commits a[href*='git.kernel.org']")
                .first.get_attribute("href")
                .endswith("?id=d47f9717e5cf")
            )
            chart = page.locator("#kernels svg.lkmlkb-chart").first
            assert chart.is_visible()
            drawn = chart.text_content()  # the first chart: write bandwidth, bad vs good
            assert "6.8-rc7 (regressed)" in drawn and "236 MiB/s" in drawn
            assert "(baseline)" in drawn and "315 MiB/s" in drawn
            table = page.locator("#kernels table.lkmlkb-results").first.inner_text()
            assert "236.0" in table and "315.0" in table
            shot = tmp_path / "report-page.png"
            page.screenshot(path=str(shot), full_page=True)
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(shot, ARTIFACTS / "report-page.png")
            assert shot.stat().st_size > 10_000
            with page.expect_download() as got:
                page.locator("#jobs a.lkmlkb-download[href$='/job/1.fio']").click()
            job = tmp_path / got.value.suggested_filename
            got.value.save_as(job)
        finally:
            browser.close()
    text = job.read_text()
    assert job.suffix == ".fio" and "rw=write" in text and "ioengine=libaio" in text
    done = subprocess.run(
        ["fio", "--parse-only", str(job)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "LKMLKB_TARGET": str(tmp_path / "scratch")},
    )
    assert done.returncode == 0, done.stderr
