"""The knowledge base (lkmlkb.store) written with real messages: schema and
pragmas, idempotent batches, second deliveries, lists, ghosts, errors kept
raw, full-text search, and what a broken database file gives.

Messages: tests/fixtures/mail (real linux-block mail, origin in its README.md).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lkmlkb.db.connection import CACHE_KIB, JOURNAL_LIMIT, WAL_CHECKPOINT_PAGES, connect
from lkmlkb.db.store import Store, content_hash
from lkmlkb.errors import DatabaseError
from lkmlkb.ingest.prepare import prepare_message
from lkmlkb.sources.mail import parse_message

MAIL = Path(__file__).resolve().parents[1] / "fixtures" / "mail"
ORIGINAL = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
DAFU = "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com"
RE_DAFU = "be93c772-d400-4105-b05a-735ed7365730@oracle.com"


def rows(*names: str, raw_edit=None):
    out = []
    for n in names:
        data = (MAIL / n).read_bytes()
        if raw_edit:
            data = raw_edit(data)
        p = prepare_message(parse_message(data, n))
        out.append((p.message, p.segments, p.new_text))
    return out


@pytest.fixture
def store(tmp_path):
    s = Store(connect(tmp_path / "kb.db"))
    s.start_run(["test"])
    return s


def test_fresh_database_has_the_schema_wal_and_foreign_keys(tmp_path):
    db = connect(tmp_path / "kb.db")
    tables = set(db.table_names())
    assert {
        "lists",
        "messages",
        "raw_messages",
        "message_lists",
        "message_copies",
        "thread_members",
        "threads",
        "segments",
        "ingest_runs",
        "ingest_errors",
        "source_state",
        "kb_info",
        "messages_fts",
    } <= tables
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    # a page cache of CACHE_KIB and fewer, larger checkpoints, on every connection (per-connection settings)
    for conn in (db, connect(tmp_path / "kb.db", create=False)):
        assert conn.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WAL_CHECKPOINT_PAGES
        assert conn.execute("PRAGMA journal_size_limit").fetchone()[0] == JOURNAL_LIMIT
    # migrations run once: opening again changes nothing
    connect(tmp_path / "kb.db")
    assert (
        connect(tmp_path / "kb.db", create=False)
        .execute("SELECT value FROM kb_info WHERE key='schema'")
        .fetchone()
    )


def test_new_database_has_large_pages_and_an_older_one_keeps_its_own(tmp_path):
    db = connect(tmp_path / "kb.db")
    assert db.execute("PRAGMA page_size").fetchone()[0] == 16384
    # a knowledge base made with SQLite's default 4 KiB pages opens, takes messages and keeps its pages
    old = sqlite3.connect(tmp_path / "old.db")
    old.execute("PRAGMA page_size=4096")
    old.execute("CREATE TABLE t(x)")
    old.close()
    s = Store(connect(tmp_path / "old.db"))
    s.start_run(["test"])
    assert [m.message_id for m in s.write_batch(rows("bug_report_original.eml"))] == [ORIGINAL]
    assert s.conn.execute("PRAGMA page_size").fetchone()[0] == 4096
    assert s.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_batch_write_then_same_batch_again(store):
    batch = rows("bug_report_original.eml", "utf8_split_subject_dafu.eml", "re_dafu_reply.eml")
    new = store.write_batch(batch)
    assert [m.message_id for m in new] == [ORIGINAL, DAFU, RE_DAFU]
    assert store.write_batch(batch) == []
    assert (store.outcome.new, store.outcome.unchanged, store.outcome.copies) == (3, 3, 0)
    c = store.conn
    assert c.execute(
        "SELECT thread_id, parent_id FROM messages WHERE message_id=?", (RE_DAFU,)
    ).fetchone() == (ORIGINAL, DAFU)
    assert c.execute("SELECT message_count, root_message_id FROM threads").fetchall() == [(3, ORIGINAL)]
    raw = c.execute("SELECT raw FROM raw_messages WHERE message_id=?", (DAFU,)).fetchone()[0]
    assert raw == (MAIL / "utf8_split_subject_dafu.eml").read_bytes()
    segs = c.execute("SELECT kind, depth FROM segments WHERE message_id=? ORDER BY seq", (DAFU,)).fetchall()
    assert segs[:3] == [("new", 0), ("quoted_header", 1), ("quoted", 1)]
    # new text excludes the quoted report
    nt = c.execute("SELECT new_text FROM messages WHERE message_id=?", (DAFU,)).fetchone()[0]
    assert "queue_depth" in nt and "ioengine=libaio" not in nt


def test_second_delivery_with_other_bytes_is_a_copy(store):
    store.write_batch(rows("nested_quotes.eml"))
    other = rows("nested_quotes.eml", raw_edit=lambda d: b"X-Delivered-Twice: yes\n" + d)
    store.write_batch(other)
    assert store.outcome.copies == 1
    copies = store.conn.execute(
        "SELECT content_hash, locator FROM message_copies ORDER BY locator"
    ).fetchall()
    assert len(copies) == 2 and copies[1][1] == "first"
    assert copies[0][0] == content_hash(other[0][0])
    # the first delivery stays the message
    assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 1


def test_duplicate_inside_one_batch(store):
    a = rows("format_flowed.eml")
    b = rows("format_flowed.eml", raw_edit=lambda d: d.replace(b"Thanks,", b"Thanks!"))
    store.write_batch(a + b)
    assert (store.outcome.new, store.outcome.copies) == (1, 1)


def test_ghost_parents_are_thread_members_not_messages(store):
    store.write_batch(rows("nested_quotes.eml"))
    c = store.conn
    ghosts = {
        r[0]
        for r in c.execute(
            "SELECT message_id FROM thread_members WHERE message_id NOT IN (SELECT message_id FROM messages)"
        )
    }
    assert ghosts == {
        "20240116232728.3392996-1-alan.adamson@oracle.com",
        "20240118072419.GA21315@lst.de",
        "6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com",
    }
    assert (
        c.execute("SELECT thread_id FROM messages").fetchone()[0]
        == "20240116232728.3392996-1-alan.adamson@oracle.com"
    )


def test_errors_keep_the_raw_bytes_and_reason(store):
    store.record_error("x.mbox", "entry 7", "parse", "no mail headers found", b"\x00garbage\xff")
    row = store.conn.execute(
        "SELECT source, locator, stage, reason, raw, run_id FROM ingest_errors"
    ).fetchone()
    assert row == ("x.mbox", "entry 7", "parse", "no mail headers found", b"\x00garbage\xff", store.run_id)


def test_cursor_round_trip(store):
    assert store.get_cursor("public-inbox:/x/0.git") is None
    store.set_cursor("public-inbox:/x/0.git", "abc")
    store.set_cursor("public-inbox:/x/0.git", "def")
    assert store.get_cursor("public-inbox:/x/0.git") == "def"


def test_full_text_search_finds_new_text_not_quotes(store):
    store.write_batch(rows("bug_report_original.eml", "utf8_split_subject_dafu.eml"))
    hits = [
        r[0]
        for r in store.conn.execute(
            "SELECT m.message_id FROM messages_fts f JOIN messages m ON m.rowid = f.rowid WHERE messages_fts MATCH ?",
            ("queue_depth",),
        )
    ]
    assert hits == [DAFU]
    hits = {
        r[0]
        for r in store.conn.execute(
            "SELECT m.message_id FROM messages_fts f JOIN messages m ON m.rowid = f.rowid WHERE messages_fts MATCH ?",
            ("libaio",),
        )
    }
    assert hits == {ORIGINAL}  # the report's job, quoted in the 答复, counts for the report only


def test_a_file_that_is_no_database(tmp_path):
    bad = tmp_path / "kb.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatabaseError) as err:
        connect(bad)
    assert str(bad) in str(err.value)
    with pytest.raises(DatabaseError):
        connect(tmp_path / "missing.db", create=False)


def test_failed_batch_rolls_back(store):
    batch = rows("nested_quotes.eml")
    batch[0][1][0].kind = None  # NOT NULL violated half way through the batch
    with pytest.raises(sqlite3.IntegrityError):
        store.write_batch(rows("format_flowed.eml") + batch)
    assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM thread_members").fetchone()[0] == 0


def test_a_message_is_never_its_own_parent_and_lore_links_are_escaped(tmp_path):
    """HTML archives can show a message's own id as In-Reply-To; ids may hold '/' or '#'."""
    from lkmlkb.db.connection import connect
    from lkmlkb.db.store import Store
    from lkmlkb.model import Message
    from lkmlkb.sources.mail import parse_message

    db = connect(tmp_path / "kb.db")
    own = Message(
        "a/b#c@example.org",
        subject="x",
        in_reply_to="a/b#c@example.org",
        body="hi\n",
        raw=b"x",
        archive_url=None,
    )
    Store(db).write_batch([(own, [], "hi")])
    assert db.execute("SELECT parent_id FROM messages").fetchone() == (None,)
    msg = parse_message(b"Message-ID: <a/b#c@example.org>\nFrom: A <a@example.org>\nSubject: s\n\nbody\n")
    assert msg.archive_url == "https://lore.kernel.org/r/a%2Fb%23c@example.org"


# linux-block, Chris Bainbridge, "[REGRESSION] ioprio performance hangs, bisected" (2024-11-25,
# <CAP-bSRbCo7=wfUBZ8H7c3Q-7XSG+SB=R4MHHNNGPvBoinsVSZg@mail.gmail.com>), trimmed
IOPRIO_MAIL = b"""\
From: Chris Bainbridge <chris.bainbridge@gmail.com>
To: linux-block@vger.kernel.org
Subject: [REGRESSION] ioprio performance hangs, bisected
Date: Mon, 25 Nov 2024 15:44:49 +0000
Message-ID: <ioprio-root@example>

The commit 6975c1a486a4 ("block: remove the ioprio field from struct
request") appears to have introduced a performance regression.
This locate script will usually complete in about 1m20s on my machine.
But, following commit 6975c1a486a4, the script doesn't seem to
complete in a reasonable time (I waited 20 minutes).
"""


def test_a_reports_two_values_are_stored_in_one_unit(tmp_path):
    """The report row has one unit: the regressed value is given in the baseline's (20 minutes
    after 1m20s is 1200 s), so the row reads as the size it gives (1400 %)."""
    from lkmlkb.ingest.run import ingest

    eml = tmp_path / "ioprio.eml"
    eml.write_bytes(IOPRIO_MAIL)
    db_path = tmp_path / "kb.db"
    ingest([str(eml)], str(db_path), workers=1, extract=True)
    conn = sqlite3.connect(db_path)
    row = conn.execute(
        "SELECT baseline_value, regressed_value, unit, regression_pct FROM reports WHERE is_regression_report=1"
    ).fetchone()
    assert row == (80.0, 1200.0, "s", 1400.0)
