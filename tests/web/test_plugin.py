"""lkmlkb's Datasette plugin through Datasette's own test client, on a KB built from the corpus.

The knowledge base is ``lkmlkb ingest corpus/`` (the real seed threads) with
the report of seed 000 (the mq-deadline multipath write regression) -- see
conftest.py.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import urllib.parse
import zipfile
from xml.etree import ElementTree as ET

import pytest

from lkmlkb.db.queries import fts_query
from lkmlkb.fio.render import render_stored_job
from lkmlkb.web import chart, pages

CULPRIT = "d47f9717e5cf"
ATOM = "{http://www.w3.org/2005/Atom}"


def report_url(rid: str, suffix: str = "") -> str:
    return "/-/lkmlkb/report/" + urllib.parse.quote(rid, safe="") + suffix


# ---------------------------------------------------------------- search


def test_search_finds_seed000_report_first_with_highlight(get, kb):
    r = get("/-/lkmlkb/search?q=mq-deadline")
    assert r.status_code == 200
    reports = r.text.split('id="hits-reports"')[1].split("</section>")[0]
    first_link = re.search(r'class="lkmlkb-hit-title" href="([^"]+)"', reports).group(1)
    assert urllib.parse.unquote(first_link) == "/-/lkmlkb/report/" + kb[1]
    assert "<mark>mq-deadline</mark>" in reports


def test_search_covers_messages_ranked_with_snippets(get):
    r = get("/-/lkmlkb/search?q=" + urllib.parse.quote("sequential write regression"))
    assert r.status_code == 200
    messages = r.text.split('id="hits-messages"')[1].split("</section>")[0]
    assert messages.count('class="lkmlkb-hit"') >= 2
    assert "<mark>" in messages
    # links of synthetic-id messages search lore by subject instead of a made-up Message-ID
    assert "lore.kernel.org/all/?q=" in messages
    assert "@lkmlkb.invalid" not in messages.split("lore.kernel.org")[1][:200]


@pytest.mark.parametrize(
    "typed",
    [
        '"',
        '""',
        "*",
        "NEAR",
        "NEAR(",
        "(",
        ")",
        "mq-deadline",
        "io_uring",
        '"mq-deadline',
        "write*",
        "a OR",
        "AND",
        "-",
        "^",
        "title:mq",
        "NOT write",
        "{title}",
        "'",
        "\x00",
        "x" * 5000,
        "ümlaut 答复",
    ],
)
def test_search_never_errors_on_fts_syntax(get, typed):
    r = get("/-/lkmlkb/search?q=" + urllib.parse.quote(typed))
    assert r.status_code == 200
    assert "lkmlkb-search-page" in r.text
    assert "Traceback" not in r.text and "fts5: syntax error" not in r.text


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("mq-deadline", '"mq-deadline"'),
        ("io_uring NEAR(x", '"io_uring" "NEAR(x"'),
        ('"unbalanced', '"unbalanced"'),
        ("* ( ) -", None),
        ("", None),
    ],
)
def test_fts_query_quotes_every_token(typed, expected):
    assert fts_query(typed) == expected


def test_fts_query_results_match_in_sqlite(kb):
    import sqlite3

    conn = sqlite3.connect(kb[0])
    for typed in ("io_uring", "NEAR", '"mq-deadline', "fio*", "("):
        q = fts_query(typed)
        if q is not None:
            conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (q,)).fetchone()
    hits = pages.search_kb(conn, "mq-deadline")
    assert [s["table"] for s in hits][:2] == ["reports", "messages"]
    assert hits[0]["rows"][0]["report_id"] == kb[1]


def test_search_falls_back_to_any_word_when_no_row_holds_them_all(kb):
    import sqlite3

    conn = sqlite3.connect(kb[0])
    every = pages.search_kb(conn, "mq-deadline zzqxnotaword")
    assert every[0]["table"] == "reports" and every[0]["rows"][0]["report_id"] == kb[1]
    assert not any(s["rows"] for s in pages.search_kb(conn, "zzqxnotaword"))


def test_highlight_escapes_mail_html():
    out = pages.highlight("<script>x</script> \x02mq-deadline\x03 & more")
    assert out == "&lt;script&gt;x&lt;/script&gt; <mark>mq-deadline</mark> &amp; more"


# ---------------------------------------------------------------- report page


def _report_row(kb) -> dict:
    import sqlite3

    conn = sqlite3.connect(kb[0])
    conn.row_factory = sqlite3.Row
    return dict(conn.execute("SELECT * FROM reports WHERE report_id = ?", (kb[1],)).fetchone())


def test_report_page_shows_numbers_commits_jobs_setup_thread(get, kb):
    r = get(report_url(kb[1]))
    assert r.status_code == 200
    t = r.text
    row = _report_row(kb)
    assert "Performance regression with fio sequential-write on a multipath setup" in t
    assert f"lkmlkb-status-{row['status']}" in t
    # the culprit, linked to its git web page and to its commit page
    assert f"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id={CULPRIT}" in t
    assert f"/-/lkmlkb/commit/{CULPRIT}" in t
    # both kernels' numbers, in the chart: 236 MiB/s regressed, 315 MiB/s baseline
    svg = t[t.index('<svg xmlns="http://www.w3.org/2000/svg" class="lkmlkb-chart"') :]
    svg = svg[: svg.index("</svg>")]
    assert "(regressed)" in svg and "(baseline)" in svg
    assert "236 MiB/s" in svg and "315 MiB/s" in svg
    assert "6.8-rc7" in svg
    # magnitude stated and computed
    assert f"{row['computed_pct']:.1f}%" in t and f"{row['stated_pct']:.1f}%" in t
    # the job file, and its downloads
    assert "[global]" in t and "ioengine=libaio" in t and "filename=/dev/dm-0" in t
    assert report_url(kb[1], "/job/1.fio") in t and report_url(kb[1], "/repro.zip") in t
    # setup and the thread in order
    setup = t.split('id="setup"')[1].split("</section>")[0]
    assert "mq-deadline" in setup and "multipath" in setup
    assert t.count('class="lkmlkb-message"') == 2
    assert t.index("2024-03-07") < t.index("2024-03-12 10:17")


def test_report_chart_bars_are_proportional():
    results = [
        {
            "kernel": "6.8-rc7",
            "label": "regressed",
            "metric": "bw",
            "direction": "write",
            "unit": "MiB/s",
            "value": 236.0,
            "config": None,
        },
        {
            "kernel": "6.8-rc7+revert",
            "label": "baseline",
            "metric": "bw",
            "direction": "write",
            "unit": "MiB/s",
            "value": 315.0,
            "config": None,
        },
        {
            "kernel": "6.8-rc7",
            "label": None,
            "metric": "bw",
            "direction": "read",
            "unit": "MiB/s",
            "value": 448.0,
            "config": None,
        },
    ]
    (group,) = chart.chart_groups(results)  # only labelled results are drawn when there are some
    svg = chart.chart_svg(group)
    widths = [int(w) for w in re.findall(r'<rect x="\d+" y="\d+" width="(\d+)"', svg)]
    assert len(widths) == 2 and abs(widths[0] / widths[1] - 236 / 315) < 0.01
    ET.fromstring(svg)  # well-formed


@pytest.mark.parametrize(
    "bad", ["..", "..%2F..%2Fetc%2Fpasswd", "%2e%2e", ".hidden", "a%00b", "x" * 300, "a%20b", "%3Cscript%3E"]
)
def test_report_route_rejects_bad_ids(get, bad):
    r = get("/-/lkmlkb/report/" + bad)
    assert r.status_code in (400, 404)
    assert "Traceback" not in r.text


def test_unknown_report_is_404_page(get):
    r = get("/-/lkmlkb/report/no-such-report@example.com")
    assert r.status_code == 404 and "No such report" in r.text


# ---------------------------------------------------------------- commit page


@pytest.mark.parametrize(
    "sha", [CULPRIT, "d47f9717", "D47F9717E5CF", "d47f9717e5cf0123456789abcdef012345678901"]
)
def test_commit_page_lists_blaming_report(get, kb, sha):
    r = get(f"/-/lkmlkb/commit/{sha}")
    if len(sha) == 40:  # a full id whose first 12 digits were cited
        assert r.status_code == 200
    assert r.status_code == 200
    blamed = r.text.split('id="role-culprit"')[1].split("</section>")[0]
    assert urllib.parse.quote(kb[1], safe="") in blamed
    assert "block/mq-deadline: use correct way to throttling write requests" in r.text


def test_commit_page_matches_commits_as_lkmlkb_commit_does(kb, tmp_path):
    """A cited prefix that `lkmlkb link` resolved to another commit is not that commit's report."""
    import shutil
    import sqlite3

    db = tmp_path / "kb.db"
    shutil.copy(kb[0], db)
    conn = sqlite3.connect(db)
    # seed 000's culprit as if cited with 7 digits, which a git tree resolved to another commit
    conn.execute("UPDATE report_commits SET sha = 'd47f971' WHERE sha = ?", (CULPRIT,))
    conn.execute(
        "INSERT INTO commits(sha, full_sha, status) VALUES (?,?,?)",
        ("d47f971", "d47f971aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "resolved"),
    )
    conn.commit()
    assert pages.commit_data(conn, CULPRIT)["count"] == 0
    other = pages.commit_data(conn, "d47f971aaaaaaaa")
    assert [r["report_id"] for _, rows in other["by_role"] for r in rows] == [kb[1]]
    assert [c["full_sha"] for c in other["known"]] == ["d47f971aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]


@pytest.mark.parametrize(
    ("sha", "status"), [("0123abcd", 404), ("xyz123", 400), ("d47", 400), ("..", 404), ("d47f%2F..", 400)]
)
def test_commit_page_bad_or_unknown(get, sha, status):
    assert get(f"/-/lkmlkb/commit/{sha}").status_code == status


# ---------------------------------------------------------------- downloads


def _fio_parse_only(tmp_path, text: str, name: str) -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(text)
    return subprocess.run(
        ["fio", "--parse-only", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "LKMLKB_TARGET": str(tmp_path / "scratch")},
    )


@pytest.mark.fio
@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
@pytest.mark.parametrize("variant", ["", "?as=posted"])
def test_job_download_parses_with_fio(get, kb, tmp_path, variant):
    r = get(report_url(kb[1], "/job/1.fio" + variant))
    assert r.status_code == 200
    assert r.headers["content-disposition"].startswith("attachment;")
    assert "rw=write" in r.text and "bs=128k" in r.text and "iodepth=64" in r.text
    if variant:
        assert "filename=/dev/dm-0" in r.text and "WARNING" in r.text
    else:
        assert "/dev/dm-0" not in r.text.split("\n\n", 1)[1]  # the safe job does not touch the device
    done = _fio_parse_only(tmp_path, r.text, "job1.fio")
    assert done.returncode == 0, done.stderr


def test_second_job_is_the_dm1_job(get, kb):
    r = get(report_url(kb[1], "/job/2.fio?as=posted"))
    assert r.status_code == 200 and "filename=/dev/dm-1" in r.text


@pytest.mark.parametrize(
    ("n", "status"),
    [("3", 404), ("0", 400), ("-1", 400), ("1.5", 400), ("01", 400), ("99999", 400), ("%2e%2e", 400)],
)
def test_job_download_bad_index(get, kb, n, status):
    assert get(report_url(kb[1], f"/job/{n}.fio")).status_code == status


def test_job_download_path_traversal_in_report_id(get):
    assert get("/-/lkmlkb/report/..%2F..%2Fetc/job/1.fio").status_code == 400
    assert get("/-/lkmlkb/report/../job/1.fio").status_code in (400, 404)


def test_render_job_drops_unsafe_names_and_newlines():
    text = render_stored_job(
        "job\n[evil]",
        {"rw": "write", "bad name": "x", "filename": "/tmp/a\n[x]\nexec_prerun=rm"},
        {"rw": "write"},
    )
    assert text.splitlines() == [
        "[global]",
        "rw=write",
        "",
        "[job__evil]",
        "filename=/tmp/a [x] exec_prerun=rm",
    ]


def test_repro_zip(get, kb):
    r = get(report_url(kb[1], "/repro.zip"))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(r.content)).namelist()
    assert any(n.startswith("repro/jobs/") and n.endswith(".fio") for n in names)
    assert "repro/README.md" in names


def test_repro_zip_unknown_report(get):
    assert get("/-/lkmlkb/report/nothing-here/repro.zip").status_code == 404


# ---------------------------------------------------------------- feeds


def test_atom_feed_lists_report(get, kb):
    r = get("/-/lkmlkb/reports.atom")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/atom+xml")
    feed = ET.fromstring(r.content)
    entries = feed.findall(ATOM + "entry")
    assert len(entries) >= 1
    titles = [e.find(ATOM + "title").text for e in entries]
    assert any("sequential-write on a multipath" in t for t in titles)
    links = [e.find(ATOM + "link").get("href") for e in entries]
    assert any(urllib.parse.unquote(h).endswith("/-/lkmlkb/report/" + kb[1]) for h in links)
    assert any(CULPRIT in (e.find(ATOM + "summary").text or "") for e in entries)


@pytest.fixture()
def get_on_lists(kb_copy):
    """A client on a copy of the KB whose seed-000 report is on linux-block and linux-kernel.

    (The corpus is text dumps, which carry no list; seed 000 went to both lists.)
    """
    import asyncio
    import sqlite3

    from lkmlkb.web.serve import make_datasette

    conn = sqlite3.connect(kb_copy[0])
    conn.execute(
        "UPDATE reports SET lists = ? WHERE report_id = ?",
        (json.dumps(["linux-block", "linux-kernel"]), kb_copy[1]),
    )
    conn.commit()
    conn.close()
    ds = make_datasette(kb_copy[0])
    return lambda path: asyncio.run(ds.client.get(path))


def test_atom_feed_per_list(get_on_lists, kb):
    on = ET.fromstring(get_on_lists("/-/lkmlkb/reports.atom?list=linux-block").content)
    off = ET.fromstring(get_on_lists("/-/lkmlkb/reports.atom?list=linux-mm").content)
    assert [e.find(ATOM + "title").text for e in on.findall(ATOM + "entry")] == [_report_row(kb)["title"]]
    assert off.findall(ATOM + "entry") == []
    assert "linux-mm" in off.find(ATOM + "title").text
    assert get_on_lists("/-/lkmlkb/reports.atom?list=" + urllib.parse.quote("../x y")).status_code == 400


def test_open_regressions_by_list(get_on_lists, kb):
    rows = get_on_lists("/kbcopy/open_regressions_by_list.json?_shape=objects&list=linux-block").json()[
        "rows"
    ]
    assert [(r["list"], r["report_id"]) for r in rows] == [("linux-block", kb[1])]
    assert (
        get_on_lists("/kbcopy/open_regressions_by_list.json?_shape=objects&list=linux-mm").json()["rows"]
        == []
    )


# ---------------------------------------------------------------- home page, tables, canned queries


def test_home_page_says_what_the_kb_holds(get, kb):
    r = get("/")
    assert r.status_code == 200
    summary = r.text.split('class="lkmlkb-summary"')[1].split("</section>")[0]
    import sqlite3

    conn = sqlite3.connect(kb[0])
    n_messages = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    assert f"<strong>{n_messages}</strong> messages" in summary
    n_open = conn.execute(
        "SELECT count(*) FROM reports WHERE is_regression_report = 1 AND "
        "status NOT IN ('fixed', 'reverted', 'cannot reproduce')"
    ).fetchone()[0]
    assert n_open >= 1 and f"<strong>{n_open}</strong> open regressions" in summary
    assert "corpus" in summary  # the archive it was built from
    assert "Built " in summary and "schema lkmlkb-1" in summary
    assert 'action="/-/lkmlkb/search"' in r.text


def test_reports_table_facets_and_units(get, kb):
    r = get("/kb/reports.json?_extra=facet_results&_shape=objects")
    assert r.status_code == 200
    facets = r.json()["facet_results"]
    assert {
        "lists",
        "status",
        "tools",
        "good_kernel",
        "bad_kernel",
        "scheduler",
        "filesystem",
        "device_class",
        "culprits",
    } <= set(facets)
    assert CULPRIT in [v["value"] for v in facets["culprits"]["results"]]
    statuses = {row["status"] for row in r.json()["rows"]}
    assert {v["value"] for v in facets["status"]["results"]} == statuses
    html_page = get("/kb/reports")
    assert html_page.status_code == 200
    pct = _report_row(kb)["regression_pct"]
    assert f"{pct:g}&nbsp;%" in html_page.text  # regression_pct declared in percent
    # report ids in other tables link to their report page, commit ids to their commit page
    assert (
        'href="/-/lkmlkb/report/' + urllib.parse.quote(kb[1], safe="")
        in get("/kb/results?report_id=" + urllib.parse.quote(kb[1])).text
    )
    assert f'href="/-/lkmlkb/commit/{CULPRIT}"' in get("/kb/report_commits").text


def test_results_facets_and_filter_by_metric(get, kb):
    r = get(
        "/kb/results.json?_extra=facet_results&metric=bw&direction=write&unit=MiB/s&label__notblank=1"
        "&_shape=objects&report_id=" + urllib.parse.quote(kb[1])
    )
    assert r.status_code == 200
    body = r.json()
    assert sorted((row["label"], row["value"]) for row in body["rows"]) == [
        ("baseline", 315.0),
        ("regressed", 236.0),
    ]
    assert {"tool", "metric", "direction", "kernel", "label"} <= set(body["facet_results"])


def test_sort_reports_by_magnitude(get):
    assert get("/kb/reports?_sort=regression_pct").status_code == 200


@pytest.mark.parametrize(
    ("query", "params"),
    [
        ("reports_citing_commit", {"sha": "d47f97"}),
        ("regressions_between_kernels", {"from_kernel": "6.1", "to_kernel": "6.6"}),
        ("regressions_between_kernels", {"from_kernel": "5.15.y", "to_kernel": "v6.6"}),
        ("reports_by_fio_option", {"setting": "ioengine=libaio"}),
        ("reports_by_fio_option", {"setting": "FSYNC"}),
        ("workload_across_kernels", {"rw": "write", "bs": "128k", "metric": "bw"}),
        ("open_regressions_by_list", {"list": ""}),
    ],
)
def test_canned_queries_find_seed000(get, kb, query, params):
    r = get(f"/kb/{query}.json?_shape=objects&" + urllib.parse.urlencode(params))
    assert r.status_code == 200, r.text
    rows = r.json()["rows"]
    assert kb[1] in {row["report_id"] for row in rows}


@pytest.mark.parametrize(
    ("query", "params"),
    [
        ("regressions_between_kernels", {"from_kernel": "6.8", "to_kernel": "6.9"}),
        ("regressions_between_kernels", {"from_kernel": "6.1", "to_kernel": "6.6-rc7"}),
        ("reports_by_fio_option", {"setting": "ioengine=io_uring"}),
        ("reports_citing_commit", {"sha": "0123456789ab"}),
    ],
)
def test_canned_queries_exclude_nonmatching(get, kb, query, params):
    r = get(f"/kb/{query}.json?_shape=objects&" + urllib.parse.urlencode(params))
    assert r.status_code == 200, r.text  # an erroring query would also list no seed 000
    assert kb[1] not in {row["report_id"] for row in r.json()["rows"]}


def test_workload_across_kernels_in_kernel_order(get, kb):
    import sqlite3

    rows = get("/kb/workload_across_kernels.json?_shape=objects&rw=write&bs=128k&metric=bw").json()["rows"]
    assert {
        (r["label"], r["value"])
        for r in rows
        if r["report_id"] == kb[1] and r["unit"] == "MiB/s" and r["direction"] == "write"
    } >= {("baseline", 315.0), ("regressed", 236.0)}
    from lkmlkb.extract.kernel_versions import sort_key

    kernels = [r["kernel"] for r in rows if r["kernel"]]
    assert kernels == sorted(kernels, key=sort_key)
    assert (
        len({r["report_id"] for r in rows})
        == sqlite3.connect(kb[0])
        .execute(
            "SELECT count(DISTINCT f.report_id) FROM fio_jobs f JOIN results x ON x.report_id = f.report_id "
            "WHERE f.rw = 'write' AND f.bs = '128k' AND x.metric = 'bw'"
        )
        .fetchone()[0]
    )


def test_json_api_for_report_row(get, kb):
    r = get("/kb/reports.json?_shape=objects&report_id=" + urllib.parse.quote(kb[1]))
    assert r.json()["rows"][0]["culprits"] == json.dumps([CULPRIT])


@pytest.mark.parametrize(
    "path", ["/-/lkmlkb/job/1.fio", "/no/such/page", "/kb/no_such_table", "/kb/no_such.json"]
)
def test_unknown_urls_are_404_not_500(get, path):
    r = get(path)
    assert r.status_code == 404
    assert "Traceback" not in r.text


def test_a_page_that_is_not_there_is_a_404_without_a_traceback_on_the_servers_console(get, kb, capfd):
    # Datasette's own handler prints every exception, 404s included, as a traceback with its
    # local variables (about 170 lines each) when rich is installed, as it is here
    capfd.readouterr()
    page = get("/no-such-database")
    table = get(f"/{kb[1]}/no_such_table.json")
    assert page.status_code == 404 and "not found" in page.text.lower()
    assert table.status_code == 404 and table.json()["ok"] is False and table.json()["status"] == 404
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "locals" not in out + err
