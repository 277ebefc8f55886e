"""A report whose id holds ``/``, ``$`` and ``"`` is reachable from every page that links to it.

The thread is corpus/102 (the linux-block multipath write regression as raw mail) with its first
message's Message-ID, and every reference to it, rewritten as ``<a/b$c"d@x>``: Message-IDs of real
archives hold such characters.  The report's id is that Message-ID; the search page, the reports
table and the Atom feed link to it, and the report page, its job download and its bundle answer.
"""

from __future__ import annotations

import html
import re
import sqlite3
import urllib.parse
from pathlib import Path

import pytest
from web_helpers import served

from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
ODD_ID = 'a/b$c"d@x'


@pytest.fixture(scope="module")
def odd(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("odd-id")
    raw = (ROOT / "corpus" / "102_multipath_seqwrite_raw.mbox").read_bytes()
    assert raw.count(ORIGINAL.encode()) >= 2
    mbox = tmp / "odd.mbox"
    mbox.write_bytes(raw.replace(ORIGINAL.encode(), ODD_ID.encode()))
    db = tmp / "odd.db"
    ingest([str(mbox)], str(db), extract=True)
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT report_id FROM reports").fetchall() == [(ODD_ID,)]
    conn.close()
    return served(db)


def report_links(page: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="(/-/lkmlkb/report/[^"]*)"', page)]


def test_the_report_page_of_an_id_with_slash_dollar_and_quote(odd):
    r = odd("/-/lkmlkb/report/" + urllib.parse.quote(ODD_ID, safe=""))
    assert r.status_code == 200, r.text[:300]
    assert "fio sequential-write on a multipath setup" in r.text


@pytest.mark.parametrize(
    "page", ["/-/lkmlkb/search?q=multipath", "/odd/fio_jobs", "/odd/results", "/-/lkmlkb/reports.atom"]
)
def test_every_link_to_it_answers(odd, page):
    r = odd(page)
    assert r.status_code == 200
    text = r.text.replace("http://localhost", "")
    links = {x for x in report_links(text) if "/job/" not in x and "/repro.zip" not in x}
    assert links == {"/-/lkmlkb/report/" + urllib.parse.quote(ODD_ID, safe="")}
    for link in links:
        assert odd(link).status_code == 200


def test_its_job_download_and_bundle_answer(odd):
    page = odd("/-/lkmlkb/report/" + urllib.parse.quote(ODD_ID, safe="")).text
    downloads = [x for x in report_links(page) if "/job/" in x or x.endswith("/repro.zip")]
    assert any("/job/1.fio" in x for x in downloads) and any(x.endswith("/repro.zip") for x in downloads)
    for link in downloads:
        r = odd(link)
        assert r.status_code == 200, link
    job = odd(next(x for x in downloads if "/job/1.fio" in x)).text
    assert "[" in job and "rw=" in job
