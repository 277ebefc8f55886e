"""The knowledge base as a person uses it: headless Chromium against `lkmlkb serve`.

Needs the Debian packages ``chromium`` (and ``chromium-driver``) and the
Python package ``playwright`` -- its browser download is never used; the
test drives /usr/bin/chromium.  The knowledge base is the corpus build of
conftest.py (seed 000: the mq-deadline multipath write regression), and, for
the walk to a regression's timeline, the regression fixtures' linked to a
small kernel tree (tests/regression_helpers.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from regression_helpers import ISCSI_REPORT, ISCSI_V1, ISCSI_V2, build_kernel_tree, build_regression_kb
from repo_helpers import copy_kb
from web_helpers import free_port, wait_listening

from lkmlkb.cli import main

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


@pytest.fixture()
def server(kb, tmp_path):
    """The README's ``lkmlkb serve`` of the corpus build; yields its URL."""
    with serving(kb[0], tmp_path) as url:
        yield url


@pytest.fixture()
def regression_server(tmp_path):
    """``lkmlkb serve`` of the regression fixtures after ``lkmlkb link --git`` of the small
    kernel tree; yields its URL."""
    db = build_regression_kb(tmp_path / "regressions.db")
    build_kernel_tree(tmp_path / "linux")
    linked = CliRunner().invoke(main, ["link", "--db", str(db), "--git", str(tmp_path / "linux")])
    assert linked.exit_code == 0, linked.output
    with serving(db, tmp_path) as url:
        yield url


@contextlib.contextmanager
def serving(db: Path, tmp_path: Path) -> Iterator[str]:
    """The README's ``lkmlkb serve`` on 127.0.0.1, run in a folder holding the knowledge base
    ``db`` under its default name ``lkmlkb.db`` (no ``--db``); yields its URL."""
    lkmlkb = Path(sys.executable).parent / "lkmlkb"
    assert lkmlkb.exists(), f"no lkmlkb command beside {sys.executable} (pip install -e .)"
    folder = tmp_path / "served"
    folder.mkdir()
    copy_kb(db, folder / "lkmlkb.db")
    port = free_port()
    proc = subprocess.Popen(
        [str(lkmlkb), "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=folder,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_listening(proc, port)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert f"Serving lkmlkb.db at {url}/" in proc.stdout.read()


def keep_screenshot(page, name: str) -> None:
    """A full-page screenshot of what the test sees, kept as tests/artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


@pytest.mark.fio
@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_search_open_report_download_job(server, kb, tmp_path):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(accept_downloads=True, viewport={"width": 1280, "height": 900})
            page.goto(server + "/")
            assert "What this knowledge base holds" in page.content()
            keep_screenshot(page, "home-page")
            page.fill("#lkmlkb-q", "mq-deadline")
            page.press("#lkmlkb-q", "Enter")
            page.wait_for_url("**/-/lkmlkb/search?q=mq-deadline")
            keep_screenshot(page, "search-page")
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
            keep_screenshot(page, "report-page")
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


def test_commit_page_and_reports_table_read_as_a_person_sees_them(server):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(server + "/-/lkmlkb/commit/d47f9717e5cf")
            keep_screenshot(page, "commit-page")
            item = page.locator("#role-culprit li").first
            # the report's title and SHA as written, not in capitals
            assert "sequential-write on a multipath" in item.inner_text()
            assert "d47f9717e5cf" in item.inner_text()
            assert item.evaluate("e => getComputedStyle(e).textTransform") == "none"
            page.goto(server + "/lkmlkb/reports")
            keep_screenshot(page, "reports-table")
            assert not page.locator("dl.column-descriptions").is_visible()
            folded = page.locator("details.lkmlkb-column-descriptions")
            assert folded.is_visible() and folded.get_attribute("open") is None
            assert "report_id" in folded.locator("dl").text_content()
            # one line above the facets and rows, where Datasette lists 32 descriptions
            box = folded.bounding_box()
            assert box is not None and box["height"] < 60
        finally:
            browser.close()


#: the report pages' titles of the iSCSI rescan regression's threads
TITLES = {
    ISCSI_REPORT: "block: significant performance regression in iSCSI rescan",
    ISCSI_V1: "[PATCH] block: fix revalidate performance regression",
    ISCSI_V2: "[PATCH v2] block: fix revalidate performance regression",
}


def test_search_open_report_follow_to_its_regression_timeline(regression_server):
    """From the search box to a report, from the report to its regression, and back to the report
    of every thread: "block: significant performance regression in iSCSI rescan" (2023-05-26), the
    fix "[PATCH] block: fix revalidate performance regression" and its v2, applied (2023-05-29)."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(regression_server + "/")
            page.fill("#lkmlkb-q", "iSCSI rescan")
            page.press("#lkmlkb-q", "Enter")
            page.wait_for_url("**/-/lkmlkb/search?q=iSCSI+rescan")
            keep_screenshot(page, "regression-walk-search")
            hit = page.locator("#hits-reports .lkmlkb-hit-title").first
            assert hit.inner_text() == "block: significant performance regression in iSCSI rescan"
            hit.click()
            page.wait_for_selector("h1.lkmlkb-title")
            assert page.locator("h1.lkmlkb-title").inner_text() == TITLES[ISCSI_REPORT]
            keep_screenshot(page, "regression-walk-report")
            part_of = page.locator("p.lkmlkb-regression")
            assert (
                "Part of the regression" in part_of.inner_text() and "(report; fixed)" in part_of.inner_text()
            )
            part_of.locator("a").click()
            page.wait_for_url(re.compile(r".*/-/lkmlkb/regression/reg-[0-9a-f]{12}$"))
            page.wait_for_selector("#timeline")
            regression_path = urllib.parse.urlsplit(page.url).path
            keep_screenshot(page, "regression-walk-timeline")
            assert page.locator("h1.lkmlkb-title").inner_text() == (
                "block: significant performance regression in iSCSI rescan"
            )
            entries = page.locator("#timeline li")
            dated = [
                (
                    entries.nth(i).locator(".lkmlkb-date").inner_text(),
                    entries.nth(i).locator(".lkmlkb-event").inner_text(),
                )
                for i in range(entries.count())
            ]
            assert dated == [
                ("2023-05-26", "reported"),
                ("2023-05-26", "bisected"),
                ("2023-05-29", "fix proposed"),
                ("2023-05-29", "fix proposed"),
                ("2023-05-29", "fixed"),
            ]
            assert "First in v6.8" in entries.nth(4).inner_text()
            assert "None: no regression reported before this one" in page.locator("#earlier").inner_text()
            # every thread links back to its report, and each link opens that report
            threads = page.locator("#threads li")
            links = {
                threads.nth(i).locator(".lkmlkb-part").inner_text(): threads.nth(i)
                .locator("a")
                .get_attribute("href")
                for i in range(threads.count())
            }
            assert {part: urllib.parse.unquote(href.rsplit("/", 1)[1]) for part, href in links.items()} == {
                "report": ISCSI_REPORT,
                "fix proposed v1": ISCSI_V1,
                "applied v2": ISCSI_V2,
            }
            timeline_links = {
                entries.nth(i).locator("a", has_text="report").get_attribute("href")
                for i in range(entries.count())
            }
            assert timeline_links == set(links.values())
            for part, href in sorted(links.items()):
                page.goto(regression_server + regression_path)
                page.locator(f'#threads a[href="{href}"]').click()
                page.wait_for_url("**" + href)
                thread_id = urllib.parse.unquote(href.rsplit("/", 1)[1])
                assert page.locator("h1.lkmlkb-title").inner_text() == TITLES[thread_id], part
                back = page.locator("p.lkmlkb-regression")
                assert back.inner_text().endswith(f"({part}; fixed)")
                assert back.locator("a").get_attribute("href") == regression_path
            keep_screenshot(page, "regression-walk-thread")
        finally:
            browser.close()
