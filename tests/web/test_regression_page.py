"""The regression faces in a real Datasette: from a search to a report, from the report to its
regression's timeline, and back to every thread's report page; the commit page and the feed.

The knowledge base is the seed threads' (tests/web/conftest.py); seed 000 is "[bug-report]
Performance regression with fio sequential-write on a multipath setup" (linux-block, March
2024, <5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com>), bisected to d47f9717e5cf."""

from __future__ import annotations

import re
import urllib.parse
from xml.etree import ElementTree as ET


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
