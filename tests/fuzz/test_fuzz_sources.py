"""Hostile input against every mail source, the text-dump splitter and the segmenter.

tests/fuzz/corpus/ holds real linux-block mail (tests/fixtures/mail) with one
hostile change each, written by tests/fuzz/make_corpus.py (which says which
change); the 1 MB header and the 100-deep multipart are built here by the
same functions.  Hypothesis then throws random bytes and text, and random
damage to the real fixtures, at parse_message, split_mbox, split_textdump
and segment_body.  Each input is parsed or rejected with LkmlkbError, no
other exception escapes, no NUL or lone surrogate comes out, and each
finishes in bounded time.
"""

from __future__ import annotations

import importlib.util
import io
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lkmlkb.errors import LkmlkbError
from lkmlkb.ingest.run import ingest
from lkmlkb.model import Message
from lkmlkb.sources import iter_file
from lkmlkb.sources.mail import parse_message
from lkmlkb.sources.mbox import split_mbox
from lkmlkb.sources.textdump import split_textdump
from lkmlkb.threads.segments import segment_body

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("lkmlkb_fuzz_make_corpus", HERE / "make_corpus.py")
make_corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_corpus)
huge_header, nested_multipart = make_corpus.huge_header, make_corpus.nested_multipart
CORPUS = HERE / "corpus"
MAIL = HERE.parent / "fixtures" / "mail"
FILES = sorted(CORPUS.iterdir())
REAL = [p.read_bytes() for p in sorted(MAIL.glob("*.eml"))]
#: per input; generous for a loaded CI machine, far below a backtracking blow-up
BOUND_S = 3.0
FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def clean(s: str) -> bool:
    """Text SQLite and a terminal can take: no NUL, no lone surrogate."""
    if "\x00" in s:
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_message(m: Message) -> None:
    for f in (
        m.message_id,
        m.subject,
        m.from_name,
        m.from_addr,
        m.date_raw,
        m.to,
        m.cc,
        m.body,
        *(m.references or []),
        m.in_reply_to or "",
        *m.lists,
    ):
        assert clean(f), repr(f[:80])
    assert m.date_utc is None or m.date_utc[:4].isdigit()
    assert len(m.message_id) <= 1000


def parse_or_reject(raw: bytes) -> Message | None:
    t0 = time.perf_counter()
    try:
        m = parse_message(raw, "fuzz")
    except LkmlkbError:
        return None
    finally:
        assert time.perf_counter() - t0 < BOUND_S
    check_message(m)
    segment_body(m.body)
    return m


def test_corpus_is_there():
    assert len(FILES) >= 18


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file_through_its_source(path):
    t0 = time.perf_counter()
    try:
        items = list(iter_file(path))
    except LkmlkbError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
        return
    assert time.perf_counter() - t0 < BOUND_S
    for item in items:
        if isinstance(item, Message):
            check_message(item)
        else:
            parse_or_reject(item.raw)


@pytest.mark.parametrize(
    "name, expect",
    [
        ("message_id_10000.eml", lambda m: len(m.message_id) <= 998),
        (
            "date_overflow.eml",
            lambda m: m.date_utc is None and m.date_raw.startswith("Wed, 3 Jan 99999999999"),
        ),
        ("bad_base64.eml", lambda m: m.body != ""),
        (
            "broken_charsets.eml",
            lambda m: m.subject.endswith(
                "[PATCH blktests 1/2] common/null_blk: introduce _have_null_blk_feature"
            ),
        ),
        ("nuls_everywhere.eml", lambda m: m.from_name == "Bart Van Assche" and "modprobe nullblk?" in m.body),
        ("lone_surrogates.eml", lambda m: "Thanks" in m.body),
        # cut to the header bound, keeping the nearest (last) ancestors
        (
            "references_flood.eml",
            lambda m: 500 < len(m.references) < 3000 and m.references[-1] == "2999.2999@lst.de",
        ),
        ("html_hostile.eml", lambda m: "On 1/3/24" in m.body),
    ],
)
def test_corpus_files_parse_to_something_sensible(name, expect):
    m = parse_or_reject((CORPUS / name).read_bytes())
    assert m is not None and expect(m)


def test_one_megabyte_header():
    raw = huge_header()
    assert len(raw) > 1 << 20
    m = parse_or_reject(raw)
    assert m is not None and m.message_id == "34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org"
    assert len(m.to) <= 16_384  # headers are cut, not carried whole


def test_multipart_nested_100_deep():
    m = parse_or_reject(nested_multipart(100))
    assert m is not None and "The above test can only work if the null_blk driver" in m.body
    m = parse_or_reject(nested_multipart(1000))  # deeper than Python's recursion limit allows naively
    assert m is None or clean(m.body)


def test_mbox_with_from_lines_in_bodies():
    msgs = list(split_mbox(io.BytesIO((CORPUS / "mbox_from_lines_in_bodies.mbox").read_bytes())))
    # the format-patch "From <sha> Mon Sep 17 ..." line is a valid separator left unescaped: it splits
    ids = [m.message_id for m in (parse_or_reject(r) for r in msgs) if m]
    assert "20240327121329.2830355-1-sashal@kernel.org" in ids
    assert "8896bcc5-09b1-4886-9081-c8ce0afc1c40@app.fastmail.com" in ids


def test_whole_corpus_folder_ingests_with_errors_recorded(tmp_path):
    db = tmp_path / "kb.db"
    s = ingest([str(CORPUS)], str(db))
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = con.execute("SELECT count(*) FROM messages").fetchone()[0]
    errors = con.execute("SELECT count(*) FROM ingest_errors").fetchone()[0]
    assert stored == s.new and errors == s.errors
    # most files are one real message with one change: one message, the rest second deliveries;
    # mbox_only_separators.mbox holds 500 empty entries, each an error kept with its reason
    assert s.new + s.copies >= 15 and s.errors >= 500
    # every error keeps its reason; a message that could not be parsed keeps its bytes
    for stage, reason, raw in con.execute("SELECT stage, reason, raw FROM ingest_errors"):
        assert reason and (stage == "read" or raw is not None)
    assert (
        con.execute(
            "SELECT count(*) FROM messages WHERE instr(body, char(0)) OR instr(subject, char(0)) "
            "OR instr(from_name, char(0))"
        ).fetchone()[0]
        == 0
    )


# ------------------------------------------------------------------ property tests


@FUZZ
@given(st.binary(max_size=4000))
def test_parse_message_random_bytes(data):
    parse_or_reject(data)


@FUZZ
@given(
    st.sampled_from(REAL),
    st.lists(st.tuples(st.integers(0, 1 << 16), st.binary(min_size=1, max_size=40)), max_size=8),
)
def test_parse_message_damaged_real_mail(raw, damage):
    data = bytearray(raw)
    for pos, junk in damage:
        pos %= len(data) + 1
        data[pos : pos + len(junk)] = junk
    parse_or_reject(bytes(data))


@FUZZ
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=300),
            st.sampled_from(
                [
                    b"From mboxrd@z Thu Jan  1 00:00:00 1970\n",
                    b"\n>From x\n",
                    b"\nFrom what\n",
                    b"From 38b43539d64b2fa020b3b9a752a986769f87f7a6 Mon Sep 17 00:00:00 2001\n",
                    b"From: a@b\n\n",
                    b"\r\n",
                    b"\x00",
                ]
            ),
        ),
        max_size=40,
    ),
    st.sampled_from([None, True, False]),
)
def test_split_mbox_random_streams(parts, mboxrd):
    data = b"".join(parts)
    t0 = time.perf_counter()
    out = list(split_mbox(io.BytesIO(data), mboxrd))
    assert time.perf_counter() - t0 < BOUND_S
    assert sum(len(m) for m in out) <= len(data)
    for m in out[:5]:
        parse_or_reject(m)


LINES = st.sampled_from(
    [
        "Subject: Re: 答复: [bug-report] Performance regression",
        "From: Jan Kara <ja...@suse.cz>",
        "Date: Tue, 12 Mar 2024 15:47:44 +0530",
        "[Ming Lei <ming.lei@redhat.com>]",
        "Jeff Moyer",
        "Jan Kara",
        "-----Original Message-----",
        "-----邮件原件-----",
        "发件人: Harshit <h@...cle.com>",
        "发送时间: 2024年3月7日 2:46",
        "________________________________________",
        "Sent: Friday, April 22, 2022 5:02 PM",
        "> quoted",
        ">> deeper",
        "  >=2000=8.42%",
        "--",
        "-- ",
        "diff --git a/x b/x",
        "@@ -1 +1 @@",
        "+added",
        " block/bio.c | 7 ++--",
        "To unsubscribe from this list: send the line",
        "On Thu, Apr 15, 2021, John Garry wrote:",
        "",
        " ",
    ]
)


@FUZZ
@given(st.lists(st.one_of(LINES, st.text(max_size=80)), max_size=60))
def test_split_textdump_random_dumps(lines):
    text = "\n".join(lines)
    t0 = time.perf_counter()
    msgs = split_textdump(text, "fuzz")
    assert time.perf_counter() - t0 < BOUND_S
    for m in msgs:
        check_message(m)


@FUZZ
@given(st.lists(st.one_of(LINES, st.text(max_size=200)), max_size=80))
def test_segment_body_random_bodies(lines):
    text = "\n".join(lines)
    t0 = time.perf_counter()
    segs = segment_body(text)
    assert time.perf_counter() - t0 < BOUND_S
    n = len(text.split("\n"))
    last = -1
    for s in segs:
        assert last < s.line_start <= s.line_end < n
        last = s.line_end


@FUZZ
@given(st.text(max_size=3000))
def test_split_textdump_and_segment_any_text(text):
    for m in split_textdump(text, "fuzz"):
        check_message(m)
    segment_body(text)
