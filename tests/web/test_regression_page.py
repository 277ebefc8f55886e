"""The regression faces in a real Datasette: from a search to a report, from the report to its
regression's timeline, and back to every thread's report page; the commit page and the feed;
the earlier regressions of a regression's workload, and the first release of its fix.

The first knowledge base is the seed threads' (tests/web/conftest.py); seed 000 is "[bug-report]
Performance regression with fio sequential-write on a multipath setup" (linux-block, March
2024, <5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com>), bisected to d47f9717e5cf.  The second
is the regression fixtures' (tests/regression_helpers.py, the threads described in
tests/regressions/test_regressions.py), linked to a small kernel tree."""

from __future__ import annotations

import re
import shutil
import urllib.parse
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner
from regression_helpers import ISCSI_REPORT, SEED000, build_kernel_tree, build_regression_kb
from web_helpers import served

from lkmlkb.cli import main
from lkmlkb.db.connection import connect_readonly
from lkmlkb.db.regressions import regression_of
from lkmlkb.web.common import commit_url

ROBOT_NEXT = "202312022313.a9606b59-oliver.sang@intel.com"  # fio.write_iops on btrfs, 2023-12-03
ROBOT_MAINLINE = "202401292150.40c83338-oliver.sang@intel.com"  # the same workload, 2024-01-29


def test_search_to_report_to_regression_timeline_and_back(get, kb):
    search = get("/-/lkmlkb/search?q=multipath+sequential-write")
    assert search.status_code == 200
    report_url = re.search(r'href="(/-/lkmlkb/report/[^"]+)"', search.text).group(1)
    report = get(report_url)
    assert report.status_code == 200
    reg_url = re.search(
        r'class="lkmlkb-regression">Part of the regression <a href="([^"]+)"', report.text
    ).group(1)
    page = get(reg_url)
    assert page.status_code == 200
    assert 'id="timeline"' in page.text and "reported" in page.text and "bisected" in page.text
    assert "culprit d47f9717e5cf" in page.text
    thread_links = re.findall(r'<a href="(/-/lkmlkb/report/[^"]+)">', page.text)
    assert urllib.parse.unquote(report_url) in [urllib.parse.unquote(u) for u in thread_links]
    assert "Why: first report" in page.text


def test_commit_page_links_to_its_regression(get):
    page = get("/-/lkmlkb/commit/d47f9717e5cf")
    assert page.status_code == 200
    assert re.search(r'id="regressions".*?href="/-/lkmlkb/regression/reg-[0-9a-f]{12}"', page.text, re.S)


def test_regressions_feed_lists_each_regression_once(get):
    feed = get("/-/lkmlkb/regressions.atom")
    assert feed.status_code == 200 and feed.headers["content-type"].startswith("application/atom+xml")
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = ET.fromstring(feed.content).findall("a:entry", ns)
    titles = [e.find("a:title", ns).text for e in entries]
    assert sum("multipath setup" in t for t in titles) == 1
    assert all("/-/lkmlkb/regression/reg-" in e.find("a:link", ns).get("href") for e in entries)


def test_bad_and_unknown_regression_ids(get):
    assert get("/-/lkmlkb/regression/reg-000000000000").status_code == 404
    assert get("/-/lkmlkb/regression/<script>").status_code == 400


# ---------------------------------------------------------------- the regression fixtures, linked


@pytest.fixture(scope="module")
def linked_get(tmp_path_factory):
    """GET on a knowledge base of the regression fixtures (tests/regression_helpers.py) after
    `lkmlkb link --git` of the small kernel tree there: the iSCSI rescan fix first in v6.8, the
    revert of seed 000's culprit first in v6.9-rc1."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("linked")
    db = build_regression_kb(root / "regressions.db")
    tree = build_kernel_tree(root / "linux")
    out = CliRunner().invoke(main, ["link", "--db", str(db), "--git", str(root / "linux")])
    assert out.exit_code == 0, out.output
    return served(db), tree, connect_readonly(db).conn


def _page_of(get, conn, thread_id: str):
    rid = regression_of(conn, thread_id)["regression_id"]
    page = get(f"/-/lkmlkb/regression/{rid}")
    assert page.status_code == 200
    return page.text


def _section(html: str, section_id: str) -> str:
    return re.search(rf'<section [^>]*id="{section_id}">(.*?)</section>', html, re.S).group(1)


def test_the_page_lists_the_earlier_regression_of_its_workload_and_links_to_it(linked_get):
    get, _, conn = linked_get
    earlier = _section(_page_of(get, conn, ROBOT_MAINLINE), "earlier")
    assert "This workload regressed before" in earlier
    nxt = regression_of(conn, ROBOT_NEXT)["regression_id"]
    (link,) = re.findall(r'<a href="(/-/lkmlkb/regression/[^"]+)">([^<]+)</a>', earlier)
    assert link[0] == f"/-/lkmlkb/regression/{nxt}"
    assert "40b77b3e82:  fio.write_iops -40.2% regression" in link[1]
    assert "first reported 2023-12-03 · bisected" in earlier and f"<code>{nxt}</code>" in earlier
    # the earlier one's own page: none before it
    there = _section(get(link[0]).text, "earlier")
    assert "None: no regression reported before this one has this workload and metric." in there
    assert "<a href" not in there


def test_the_page_of_a_regression_without_a_workload_says_none(linked_get):
    get, _, conn = linked_get
    earlier = _section(_page_of(get, conn, ISCSI_REPORT), "earlier")
    assert "None: no regression reported before this one (this one names no workload and metric)." in earlier


def test_the_timeline_names_the_first_release_of_the_revert_and_the_fix(linked_get):
    get, tree, conn = linked_get
    timeline = _section(_page_of(get, conn, SEED000), "timeline")
    (entry,) = [li for li in re.findall(r"<li>(.*?)</li>", timeline, re.S) if "reverted" in li]
    assert 'First in <strong class="lkmlkb-tag">v6.9-rc1</strong>' in entry
    assert f'href="{commit_url(tree["revert"])}"' in entry and f"<code>{tree['revert'][:12]}</code>" in entry
    assert "(Link: trailer)" in entry
    timeline = _section(_page_of(get, conn, ISCSI_REPORT), "timeline")
    (entry,) = [li for li in re.findall(r"<li>(.*?)</li>", timeline, re.S) if "fixed" in li]
    assert 'First in <strong class="lkmlkb-tag">v6.8</strong>' in entry
    assert timeline.count("lkmlkb-release") == 1  # the fixes proposed name no release
