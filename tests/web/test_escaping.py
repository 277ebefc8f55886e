"""Mail is shown, never run: a thread whose subject, body and numbers carry HTML, served by the real plugin.

The thread is seed 000 (the mq-deadline multipath write regression) with markup written into its
subject and its first message's text, ingested as ``lkmlkb ingest`` does; one of its results then
carries markup in its configuration, which the report page's chart draws as a bar label.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path

import pytest
from web_helpers import served

from lkmlkb.ingest.run import ingest

ROOT = Path(__file__).resolve().parents[2]
SUBJECT = "Performance regression with fio sequential-write on a multipath setup"
SUBJECT_MARKUP = "<script>alert('subject')</script>"
BODY_MARKUP = "<img src=x onerror=alert('body')>"
CONFIG_MARKUP = "<svg onload=alert('label')>"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """(GET through Datasette's test client, report id) on a knowledge base of the hostile thread."""
    tmp = tmp_path_factory.mktemp("hostile")
    (seed,) = sorted((ROOT / "corpus").glob("000_*.txt"))
    text = seed.read_text(encoding="utf-8")
    text = text.replace(SUBJECT, f"Performance regression {SUBJECT_MARKUP} with fio on a multipath setup")
    assert "Thanks for the response." in text
    text = text.replace("Thanks for the response.", f"Thanks for the response. {BODY_MARKUP}", 1)
    mail = tmp / "000_hostile.txt"
    mail.write_text(text, encoding="utf-8")
    db = tmp / "hostile.db"
    ingest([str(mail)], str(db), extract=True)
    conn = sqlite3.connect(db)
    (rid,) = conn.execute("SELECT report_id FROM reports").fetchone()
    # the chart draws labelled results: give one of them a configuration holding markup
    changed = conn.execute(
        "UPDATE results SET config = ? WHERE thread_id = (SELECT thread_id FROM reports) "
        "AND label = 'regressed'",
        (CONFIG_MARKUP,),
    ).rowcount
    assert changed
    conn.commit()
    conn.close()
    return served(db), rid


def _page(hostile) -> str:
    get, rid = hostile
    r = get("/-/lkmlkb/report/" + urllib.parse.quote(rid, safe=""))
    assert r.status_code == 200
    return r.text


def test_report_page_shows_the_subject_escaped(hostile):
    t = _page(hostile)
    assert SUBJECT_MARKUP not in t
    title = t[t.index('<h1 class="lkmlkb-title">') :].split("</h1>")[0]
    assert "&lt;script&gt;alert(" in title


def test_report_page_shows_the_mail_body_escaped(hostile):
    t = _page(hostile)
    assert BODY_MARKUP not in t
    bodies = [x.split("</pre>")[0] for x in t.split('<pre class="lkmlkb-body">')[1:]]
    assert any("Thanks for the response. &lt;img src=x onerror=alert(" in b for b in bodies)


def test_report_chart_labels_are_escaped(hostile):
    t = _page(hostile)
    svg = t[t.index('<svg xmlns="http://www.w3.org/2000/svg" class="lkmlkb-chart"') :]
    svg = svg[: svg.index("</svg>")]
    assert CONFIG_MARKUP not in t
    labels = [x.split(">", 1)[1].split("</text>")[0] for x in svg.split("<text ")[1:]]
    assert any("[&lt;svg onload=alert(" in x for x in labels), labels


def test_search_results_show_the_subject_escaped(hostile):
    get, _ = hostile
    r = get("/-/lkmlkb/search?q=multipath")
    assert r.status_code == 200
    assert "alert(&#39;subject&#39;)" in r.text or "alert(&#x27;subject&#x27;)" in r.text
    assert SUBJECT_MARKUP not in r.text
