"""lkmlkb.queries: read-only questions over a knowledge base.

The knowledge base below holds the rows ``lkmlkb ingest`` writes for real
reports (values as the seeds' gold files and the real mail state them):

* seed 003 (corpus/003_f5869eda4829fcf2.txt, cluster-devel): gfs2 write
  bandwidth 5139 MiB/s on 5.15.y vs 2599 on 6.4-rc3, culprit e1fa9ea85ce8,
  fix c8ed1b359312, "I applied c8ed1b359312 on 6.1.36" -> 2683 MiB/s;
* seed 000 (corpus/000_a3585e8f2465c212.txt, linux-block): fio sequential
  write on multipath, 315 vs 236 MiB/s, culprit d47f9717e5cf, 33.65 %;
* the revert of d47f9717e5cf posted as a patch (a second thread);
* a kernel test robot report from linux-block 2024q1
  (<202401312320.a335db14-oliver.sang@intel.com>): "[linux-next:master]
  [block/mq]  574e7779cf:  fio.write_iops -72.9% regression", commit
  574e7779cf583171acb5bf6365047bb0941b387c ("block/mq-deadline: use separate
  insertion lists").
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.db import queries
from lkmlkb.db.connection import connect
from lkmlkb.errors import LkmlkbError

T003 = "20230528175345.C5D1.409509F4@e16-tech.com"
R003 = "20230705113428.D2BC.409509F4@e16-tech.com"
T000 = "5d4a0b1e-2b7c-4f5e-8a3d-oracle-harshit@oracle.com"
TREV = "20240314021520.1234-1-zhiguo.niu@unisoc.com"
TLKP = "202401312320.a335db14-oliver.sang@intel.com"
LKP_FULL = "574e7779cf583171acb5bf6365047bb0941b387c"


def message(db, mid, thread, subject, date, text, lists):
    db.execute(
        "INSERT INTO messages(message_id, thread_id, subject, date_utc, new_text, from_name, lists) "
        "VALUES (?,?,?,?,?,?,?)",
        (mid, thread, subject, date, text, "someone", json.dumps(lists)),
    )
    db.execute("INSERT INTO thread_members(message_id, thread_id) VALUES (?, ?)", (mid, thread))


def report(
    db,
    rid,
    title,
    status,
    last_date,
    lists,
    tools,
    good,
    bad,
    base=None,
    regr=None,
    unit=None,
    pct=None,
    culprits=(),
    fixes=(),
    summary="",
    workload="",
    kernels=(),
):
    db.execute(
        "INSERT INTO reports(report_id, thread_id, title, status, is_regression_report, kind, good_kernel, "
        "bad_kernel, headline_metric, baseline_value, regressed_value, unit, regression_pct, stated_pct, "
        "computed_pct, culprits, fixes, lists, tools, first_date, last_date, summary, workload) "
        "VALUES (?,?,?,?,1,'regression',?,?,'bw',?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            rid,
            rid,
            title,
            status,
            good,
            bad,
            base,
            regr,
            unit,
            pct,
            pct,
            pct,
            json.dumps(list(culprits)),
            json.dumps(list(fixes)),
            json.dumps(lists),
            json.dumps(tools),
            last_date,
            last_date,
            summary,
            workload,
        ),
    )
    for version, role in kernels:
        db.execute(
            "INSERT INTO report_kernels(report_id, version, role) VALUES (?,?,?)", (rid, version, role)
        )


def rc(db, rid, sha, subject, role, mid, line, cue):
    db.execute(
        "INSERT INTO report_commits(report_id, sha, subject, role, message_id, line_start, line_end, cue) "
        "VALUES (?,?,?,?,?,?,?,?)",
        (rid, sha, subject, role, mid, line, line, cue),
    )


def cc(db, thread, sha, subject, role, mid, line, cue, form="prose"):
    db.execute(
        "INSERT INTO commit_citations(sha, subject, role, cue, form, message_id, thread_id, line_start, "
        "line_end, evidence) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (sha, subject, role, cue, form, mid, thread, line, line, sha),
    )


def result(db, rid, kernel, label, value, mid, line, metric="bw", direction="write", unit="MiB/s"):
    db.execute(
        "INSERT INTO results(report_id, kernel, label, metric, direction, value, unit, message_id, "
        "thread_id, line_start, line_end) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (rid, kernel, label, metric, direction, value, unit, mid, rid, line, line),
    )


@pytest.fixture()
def kb(tmp_path):
    db = connect(tmp_path / "kb.db")
    # seed 003
    message(
        db,
        T003,
        T003,
        "[Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
        "2023-05-28T09:53:45+00:00",
        "gfs2 write bandwidth regression on 6.4-rc3 compare to 5.15.y.\n"
        "fio --name=global --rw=write -bs=1024Ki -size=32Gi",
        ["cluster-devel"],
    )
    message(
        db,
        R003,
        T003,
        "Re: [Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
        "2023-07-05T03:34:28+00:00",
        "I applied c8ed1b359312 on 6.1.36.\nfio WRITE: bw=2683MiB/s (2813MB/s)",
        ["cluster-devel"],
    )
    report(
        db,
        T003,
        "[Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
        "fixed",
        "2023-07-05T03:34:28+00:00",
        ["cluster-devel"],
        ["fio"],
        "5.15.y",
        "6.4-rc3",
        5139.0,
        2599.0,
        "MiB/s",
        49.43,
        ["e1fa9ea85ce8"],
        ["c8ed1b359312"],
        summary="gfs2 write bandwidth regression 6.4-rc3, 5.15.y e1fa9ea85ce8 gfs2: Stop using glock holder",
        workload="rw=write bs=1024Ki size=32Gi ioengine=sync",
        kernels=[("5.15.y", "good"), ("6.4-rc3", "bad"), ("6.1.36", None)],
    )
    rc(
        db,
        T003,
        "e1fa9ea85ce8",
        "gfs2: Stop using glock holder auto-demotion for now",
        "culprit",
        R003,
        56,
        "inadvertently caused",
    )
    rc(
        db,
        T003,
        "c8ed1b359312",
        "gfs2: Fix duplicate should_fault_in_pages() call",
        "fix",
        R003,
        64,
        "fixed by",
    )
    cc(db, T003, "c8ed1b359312", None, "tested", R003, 74, "I applied")
    result(db, T003, "5.15.y", "baseline", 5139, T003, 40)
    result(db, T003, "6.4-rc3", "regressed", 2599, T003, 41)
    result(db, T003, "6.1.36", "fixed", 2683, R003, 75)
    # seed 000
    message(
        db,
        T000,
        T000,
        "[bug-report] Performance regression with fio sequential-write on a multipath setup.",
        "2024-03-12T10:17:44+00:00",
        'bisection points to d47f9717e5cf ("block/mq-deadline: use correct '
        'way to throttling write requests")\nWRITE: bw=236MiB/s',
        ["linux-block"],
    )
    report(
        db,
        T000,
        "[bug-report] Performance regression with fio sequential-write on a multipath setup.",
        "bisected",
        "2024-03-12T10:17:44+00:00",
        ["linux-block"],
        ["fio"],
        "6.6",
        "6.8-rc7",
        315.0,
        236.0,
        "MiB/s",
        33.65,
        ["d47f9717e5cf"],
        [],
        summary="Performance regression fio sequential-write multipath 6.8-rc7 d47f9717e5cf mq-deadline",
        workload="rw=write bs=128k ioengine=libaio iodepth=32 filename=/dev/dm-0",
        kernels=[("6.6", "good"), ("6.8-rc7", "bad")],
    )
    rc(
        db,
        T000,
        "d47f9717e5cf",
        "block/mq-deadline: use correct way to throttling write requests",
        "culprit",
        T000,
        11,
        "bisection points",
    )
    result(db, T000, "6.8-rc7", "regressed", 236, T000, 30)
    result(db, T000, "6.8-rc7", "baseline", 315, T000, 31)
    # the revert, a later thread citing a 7-digit form
    message(
        db,
        TREV,
        TREV,
        '[PATCH] Revert "block/mq-deadline: use correct way to throttling write requests"',
        "2024-03-14T02:15:20+00:00",
        "This reverts commit d47f971.",
        ["linux-block"],
    )
    report(
        db,
        TREV,
        '[PATCH] Revert "block/mq-deadline: use correct way to throttling write requests"',
        "reverted",
        "2024-03-14T02:15:20+00:00",
        ["linux-block"],
        [],
        None,
        "6.8-rc7",
        fixes=["d47f971"],
        summary="Revert mq-deadline throttling write requests",
    )
    rc(db, TREV, "d47f971", None, "revert", TREV, 3, "This reverts commit")
    # an LKP report (io_uring mentioned in its text, as LKP mails list the fio ioengine)
    message(
        db,
        TLKP,
        TLKP,
        "[linux-next:master] [block/mq]  574e7779cf:  fio.write_iops -72.9% regression",
        "2024-01-31T15:23:20+00:00",
        "kernel test robot noticed a -72.9% regression of fio.write_iops on:\n"
        f'commit: {LKP_FULL} ("block/mq-deadline: use separate insertion lists")\n'
        "ioengine: io_uring\nrw: write",
        ["linux-block"],
    )
    report(
        db,
        TLKP,
        "[linux-next:master] [block/mq]  574e7779cf:  fio.write_iops -72.9% regression",
        "reported",
        "2024-01-31T15:23:20+00:00",
        ["linux-block"],
        ["fio", "lkp"],
        None,
        "next-20240130",
        pct=72.9,
        culprits=[LKP_FULL],
        summary="fio.write_iops -72.9% block/mq-deadline separate insertion lists",
        kernels=[("next-20240130", "bad")],
    )
    rc(db, TLKP, LKP_FULL, "block/mq-deadline: use separate insertion lists", "culprit", TLKP, 5, "commit:")
    return db


def test_reports_citing_blame_and_revert_with_numbers(kb):
    got = queries.reports_citing(kb, "d47f9717e5cf")
    assert [(r["report_id"], r["role"]) for r in got] == [(T000, "culprit"), (TREV, "revert")]
    blame = got[0]
    assert (blame["baseline_value"], blame["regressed_value"], blame["unit"], blame["regression_pct"]) == (
        315.0,
        236.0,
        "MiB/s",
        33.65,
    )
    assert blame["subject"] == "block/mq-deadline: use correct way to throttling write requests"
    assert blame["evidence"][0]["cue"] == "bisection points"
    assert {(x["label"], x["value"]) for x in blame["results"]} == {("regressed", 236), ("baseline", 315)}
    assert got[1]["shas"] == ["d47f971"]


def test_reports_citing_full_sha_finds_short_citations(kb):
    # a user pastes the full SHA; the mail wrote 12 and 7 digits
    got = queries.reports_citing(kb, "D47F9717E5CF0C7A4F0E1F3E5D0C2A1B3C4D5E6F")
    assert {r["report_id"] for r in got} == {T000, TREV}


def test_reports_citing_roles_fix_and_tested_in_one_report(kb):
    (rep,) = queries.reports_citing(kb, "c8ed1b3")
    assert rep["report_id"] == T003
    assert rep["roles"] == ["fix", "tested"]
    assert ("fixed", 2683) in {(x["label"], x["value"]) for x in rep["results"]}


def test_reports_citing_uses_the_git_tree_judgement(kb):
    # what `lkmlkb link` wrote: the culprit resolved, fixed by c8ed1b359312's full SHA,
    # a Closes: commit naming the report's first message
    full = "e1fa9ea85ce86f6c9b34d71ba36a2ee1b9b1bd5e"
    fix = {
        "sha": "c8ed1b35931282be3b4ba8d6b2b8f21e0b4d3b4a",
        "subject": "gfs2: Fix duplicate should_fault_in_pages() call",
        "first_tag": "v6.5-rc1",
        "via": "Fixes",
        "date": "2023-06-01",
    }
    link = {
        "sha": fix["sha"],
        "trailer": "Closes",
        "message_id": T003,
        "thread_id": T003,
        "date": "2023-06-01",
    }
    kb.execute(
        "INSERT INTO commits(sha, full_sha, status, subject, subject_matches, first_tag, fixed_by, "
        "linked_by) VALUES (?,?,?,?,?,?,?,?)",
        (
            "e1fa9ea85ce8",
            full,
            "resolved",
            "gfs2: Stop using glock holder auto-demotion for now",
            1,
            "v5.16-rc1",
            json.dumps([fix]),
            json.dumps([link]),
        ),
    )
    (rep,) = queries.reports_citing(kb, full)
    assert rep["commit"]["first_tag"] == "v5.16-rc1"
    assert [f["sha"] for f in rep["fixed_by"]] == [fix["sha"]]
    assert [x["trailer"] for x in rep["linked_by"]] == ["Closes"]
    assert rep["fixes_in_mail"][0]["sha"] == "c8ed1b359312"
    # the full SHA's prefix finds it too, through commits.full_sha
    assert [r["report_id"] for r in queries.reports_citing(kb, full[:9])] == [T003]


def test_reports_citing_excludes_a_prefix_the_tree_says_is_another_commit(kb):
    kb.execute(
        "INSERT INTO commits(sha, full_sha, status) VALUES (?,?,?)",
        ("d47f971", "d47f971aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "resolved"),
    )
    got = queries.reports_citing(kb, "d47f9717e5cf")
    assert [r["report_id"] for r in got] == [T000]


@pytest.mark.parametrize("bad", ["", "xyz", "12", "d47f9717e5cf' OR 1=1 --", "%", "_" * 8])
def test_reports_citing_rejects_what_is_no_sha(kb, bad):
    with pytest.raises(LkmlkbError):
        queries.reports_citing(kb, bad)


def test_reports_citing_unknown_commit_is_empty(kb):
    assert queries.reports_citing(kb, "0123456789ab") == []


def test_list_reports_sorted_newest_first(kb):
    got = queries.list_reports(kb)
    assert [r["report_id"] for r in got] == [TREV, T000, TLKP, T003]
    assert got[1]["culprits"] == ["d47f9717e5cf"] and got[1]["tools"] == ["fio"]


@pytest.mark.parametrize(
    "filters, expected",
    [
        ({"status": "Fixed"}, [T003]),
        ({"list_name": "linux-block"}, [TREV, T000, TLKP]),
        ({"list_name": "cluster-devel@redhat.com"}, [T003]),
        ({"kernel": "v6.4-rc3"}, [T003]),
        ({"kernel": "6.8-rc7"}, [TREV, T000]),
        ({"tool": "LKP"}, [TLKP]),
        ({"commit": "e1fa9ea85ce8"}, [T003]),
        ({"commit": "574e7779cf"}, [TLKP]),
        ({"list_name": "linux-block", "tool": "fio"}, [T000, TLKP]),
        ({"status": "no such status"}, []),
        ({"limit": 2}, [TREV, T000]),
        ({"regressions_only": True, "status": "fixed"}, [T003]),
    ],
)
def test_list_reports_filters(kb, filters, expected):
    assert [r["report_id"] for r in queries.list_reports(kb, **filters)] == expected


def test_kernels_between(kb):
    got = queries.kernels_between(kb, "6.8", "6.0")  # either order
    assert [r["report_id"] for r in got] == [T003, TREV, T000]
    assert got[0]["bad_kernels"] == ["6.4-rc3"]
    # 6.8-rc7 is older than 6.8: a range ending at 6.8-rc6 leaves the 000 report out
    assert [r["report_id"] for r in queries.kernels_between(kb, "6.0", "6.8-rc6")] == [T003]
    # next- tags sort after numbered versions
    assert [r["report_id"] for r in queries.kernels_between(kb, "next-20240101", "next-20240201")] == [TLKP]
    with pytest.raises(LkmlkbError):
        queries.kernels_between(kb, "fio-3.33", "6.8")


def test_search_reports_and_messages_ranked_with_snippets(kb):
    got = queries.search(kb, "gfs2 write bandwidth")
    assert got[0]["kind"] == "report" and got[0]["report_id"] == T003
    assert "«gfs2»" in got[0]["snippet"]
    assert got[0]["date"] == "2023-07-05T03:34:28+00:00"
    assert {r["message_id"] for r in got if r["kind"] == "message"} == {T003, R003}
    assert all(r["report_id"] == T003 for r in got)


def test_search_hyphen_and_underscore_words(kb):
    got = queries.search(kb, "mq-deadline")
    assert {r["report_id"] for r in got} >= {T000, TREV}
    assert [r["message_id"] for r in queries.search(kb, "io_uring") if r["kind"] == "message"] == [TLKP]


def test_search_falls_back_to_any_word(kb):
    got = queries.search(kb, "gfs2 nonexistentword")
    assert got and got[0]["report_id"] == T003


@pytest.mark.parametrize(
    "text",
    [
        '"',
        "*",
        "NEAR(",
        "((",
        "mq-deadline",
        "io_uring",
        'gfs2" OR "x',
        "NOT",
        "a AND",
        "-write",
        "col:gfs2",
        "^gfs2",
        "\x00\x01",
        "''",
        "x" * 5000,
        "NEAR(gfs2 write, 2)",
        ")",
        "{subject}: gfs2",
    ],
)
def test_search_never_raises(kb, text):
    got = queries.search(kb, text)
    assert isinstance(got, list)


@pytest.mark.parametrize(
    "text",
    [
        '"',
        "*",
        "NEAR(",
        "((",
        "mq-deadline",
        "io_uring",
        'a"b',
        "OR",
        "AND NOT",
        "subject:x",
        "x*",
        "-x",
        "+",
        "🙂",
    ],
)
def test_fts_query_is_valid_fts5(text):
    """Every query built parses in FTS5 (no try/except here to hide an error)."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(subject, new_text, tokenize=\"porter unicode61 tokenchars '-_'\")"
    )
    conn.execute("INSERT INTO t VALUES ('mq-deadline write', 'io_uring NEAR AND OR NOT a\"b')")
    q = queries.fts_query(text)
    if q is not None:
        conn.execute("SELECT * FROM t WHERE t MATCH ?", (q,)).fetchall()


def test_fts_query_quotes_tokens():
    assert queries.fts_query('NEAR( mq-deadline a"b') == '"NEAR(" "mq-deadline" "a" "b"'
    assert queries.fts_query("(( * -") is None
    assert queries.fts_query("gfs2 write", "OR") == '"gfs2" OR "write"'


def test_works_on_a_plain_sqlite3_connection(kb, tmp_path):
    # the Datasette plugin hands out sqlite3 connections
    conn = sqlite3.connect(tmp_path / "kb.db")
    assert [r["report_id"] for r in queries.list_reports(conn, status="bisected")] == [T000]
    assert queries.reports_citing(conn, "e1fa9ea85ce8")[0]["role"] == "culprit"


def test_regressions_only_leaves_threads_with_numbers_only(kb):
    kb.execute("UPDATE reports SET is_regression_report = 0 WHERE report_id = ?", (TREV,))
    assert [r["report_id"] for r in queries.list_reports(kb, regressions_only=True)] == [T000, TLKP, T003]


def test_rank_window_floor_bounds_ranking_to_the_newest_matches(tmp_path):
    """Ranking looks at the newest RANK_WINDOW matches only, so its cost does not grow with the archive."""
    import sqlite3

    from lkmlkb.db.queries import window_floor

    conn = sqlite3.connect(tmp_path / "w.db")
    conn.execute("CREATE VIRTUAL TABLE t_fts USING fts5(body)")
    conn.executemany(
        "INSERT INTO t_fts(rowid, body) VALUES (?, ?)",
        [(i, "fio regression" if i % 2 else "other words") for i in range(1, 21)],
    )
    assert window_floor(conn, "t_fts", '"fio"', window=3) == 15  # matches 19, 17, 15
    assert window_floor(conn, "t_fts", '"fio"', window=100) == 0  # fewer matches than the window
    assert window_floor(conn, "t_fts", '"absent"', window=3) == 0


def test_fts_query_phrases_and_operators_mean_what_a_user_typed():
    """Quoted text is a phrase; AND/OR/NOT in capitals between terms are operators (in real FTS5)."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize=\"porter unicode61 tokenchars '-_'\")")
    rows = {
        1: "Run status group 0 (all jobs): fio regression on mq-deadline",  # seed 000's fio output
        2: "group status run: bfq regression",
        3: "fio with kyber, no regression",
        4: "and or not",
    }
    conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", rows.items())

    def hits(typed):
        q = queries.fts_query(typed)
        return sorted(r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (q,)))

    assert hits('"run status group"') == [1]
    assert hits("run status group") == [1, 2]
    assert hits("fio AND regression") == [1, 3]
    assert hits("bfq OR kyber") == [2, 3]
    assert hits("regression NOT mq-deadline") == [2, 3]
    assert hits("regression AND NOT kyber") == [1, 2]  # the last operator between two terms wins
    assert hits("and or") == [4]  # operators only in capitals
    assert hits("NOT kyber regression") == [1, 2]  # a leading NOT excludes its term (found by review)
    assert queries.fts_query("NOT kyber") is None  # nothing left to find
    # typed operators keep their meaning in the any-word fallback (FTS5 binds NOT before OR)
    assert queries.fts_query("fio zzz NOT kyber", "OR") == queries.fts_query("fio zzz NOT kyber")
    assert hits('"mq-deadline') == [1]  # an unclosed quote is closed
    assert queries.fts_query("AND OR NOT") is None
    assert queries.fts_query("fio regression", "OR") == '"fio" OR "regression"'


def test_fts_queries_fall_back_to_any_word_only_when_that_is_another_query():
    assert queries.fts_queries("fio regression") == ['"fio" "regression"', '"fio" OR "regression"']
    assert queries.fts_queries("fio") == ['"fio"']
    assert queries.fts_queries('"run status group"') == ['"run status group"']  # one phrase
    assert queries.fts_queries("bfq NOT kyber") == ['"bfq" NOT "kyber"']  # typed operators are kept
    assert queries.fts_queries("AND ()") == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.sampled_from(['"{}"', '"{}', 'mq "{}" write', '{} "x']))
def test_fts_query_of_any_typed_text_is_valid_fts5(text, form):
    """Quoted or not, with NUL and control characters: every query built parses in FTS5."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(subject, new_text, tokenize=\"porter unicode61 tokenchars '-_'\")"
    )
    conn.execute("INSERT INTO t VALUES ('mq-deadline write', 'io_uring NEAR AND OR NOT a\"b')")
    q = queries.fts_query(form.format(text))
    if q is not None:
        conn.execute("SELECT * FROM t WHERE t MATCH ?", (q,)).fetchall()


@pytest.mark.parametrize("text", ['"mq\x00deadline"', '"\x00"', '"write \x1b[2J"', '"\x07\x08 x"'])
def test_search_of_quoted_control_characters_never_raises(kb, text):
    assert isinstance(queries.search(kb, text), list)
