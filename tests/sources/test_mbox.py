"""mbox files: mboxrd / mboxo escaping, strict separators, .gz, truncated gzip.

The messages are trimmed real linux-block mail (tests/fixtures/mail, origin
in its README.md); the mbox files are written here the way lore (mboxrd) and
classic mail tools (mboxo) write them.
"""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

import pytest
from mbox_helpers import LORE_SEP
from mbox_helpers import mboxrd_bytes as mboxrd  # what lore's t.mbox.gz holds

from lkmlkb.errors import LkmlkbError, SourceError
from lkmlkb.sources import iter_source, sniff
from lkmlkb.sources.mail import parse_message
from lkmlkb.sources.mbox import looks_like_mbox, split_mbox, unescape

MAIL = Path(__file__).resolve().parent.parent / "fixtures" / "mail"
MBOXO_SEP = b"From harshit.m.mogalapalli@oracle.com Tue Mar 12 10:17:44 2024\n"
NAMES = [
    "bug_report_original.eml",
    "utf8_split_subject_dafu.eml",
    "re_dafu_reply.eml",
    "from_what_body.eml",
    "stable_patch_from_line.eml",
    "nested_quotes.eml",
]


def fixture(name: str) -> bytes:
    return (MAIL / name).read_bytes()


def mboxo(messages: list[bytes]) -> bytes:
    """Classic mbox: only ``From `` itself is escaped."""
    out = b""
    for m in messages:
        out += MBOXO_SEP + re.sub(rb"(?m)^(From )", rb">\1", m)
        out += b"\n" if out.endswith(b"\n") else b"\n\n"
    return out


def ids(items) -> list[str]:
    return [parse_message(i.raw).message_id for i in items]


def test_mboxrd_round_trip_restores_from_lines_exactly():
    originals = [fixture(n) for n in NAMES]
    data = mboxrd(originals)
    assert b"\n>From what I can see" in data
    assert b"\n>From 38b43539d64b2fa020b3b9a752a986769f87f7a6 Mon Sep 17" in data
    got = list(split_mbox(io.BytesIO(data)))
    assert got == originals


def test_mboxrd_unescapes_one_level_of_deeper_from_lines():
    # a reply quoting the "From what I can see" paragraph: "> From" is no escape,
    # ">From" written in the body becomes ">>From" in mboxrd and comes back
    body = fixture("from_what_body.eml").replace(b"\nFrom what I can see", b"\n>From what I can see")
    data = mboxrd([body])
    assert b"\n>>From what I can see" in data
    (got,) = split_mbox(io.BytesIO(data))
    assert got == body
    assert unescape(b"x\n>>>From y\n", mboxrd=True) == b"x\n>>From y\n"


def test_mboxo_unescapes_from_but_not_deeper():
    body = fixture("from_what_body.eml").replace(
        b"the ring buffer size", b"the ring buffer size\n>From quoted"
    )
    data = mboxo([body])
    # mboxo escapes only ^From: the written ">From quoted" stays as it was
    assert b"\n>From what I can see" in data and b"\n>From quoted" in data
    (got,) = split_mbox(io.BytesIO(data))
    assert b"\nFrom what I can see" in got
    # ... so mboxo cannot tell it from an escape: it loses its ">" (irreversible, ARCHIVES.md 3)
    assert b"\nFrom quoted" in got
    assert unescape(b">>From x\n", mboxrd=False) == b">>From x\n"


def test_body_line_from_what_does_not_split_even_unescaped():
    # a writer that forgot to escape: the strict separator still holds the message together
    data = LORE_SEP + fixture("from_what_body.eml") + b"\n" + LORE_SEP + fixture("nested_quotes.eml")
    assert b"\nFrom what I can see" in data
    msgs = list(split_mbox(io.BytesIO(data)))
    assert len(msgs) == 2
    assert parse_message(msgs[0]).message_id == "8896bcc5-09b1-4886-9081-c8ce0afc1c40@app.fastmail.com"
    assert b"From what I can see, the number of 4KB elements" in msgs[0]


def test_separator_forms_of_lore_patchwork_format_patch_and_mboxo():
    for sep in (
        LORE_SEP,
        b"From patchwork Mon Sep 17 00:00:00 2001\n",
        b"From 38b43539d64b2fa020b3b9a752a986769f87f7a6 Mon Sep 17 00:00:00 2001\n",
        MBOXO_SEP,
        b"From user@host Thu Mar  7 02:55:36 2024\n",
    ):
        assert looks_like_mbox(sep + b"From: x\n"), sep
    assert not looks_like_mbox(b"From what I've seen, this is not an mbox\n")
    assert not looks_like_mbox(b"From: Jens Axboe <axboe@kernel.dk>\n")


def test_crlf_mbox_is_split():
    data = mboxrd([fixture("nested_quotes.eml"), fixture("format_flowed.eml")]).replace(b"\n", b"\r\n")
    data = data.replace(b"1970\r\n", b"1970\n")  # separator lines end in \n (public-inbox's rule)
    msgs = list(split_mbox(io.BytesIO(data)))
    assert [parse_message(m).message_id for m in msgs] == [
        "20240123090506.GA31535@lst.de",
        "34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org",
    ]


def test_messages_straddling_read_blocks(monkeypatch):
    from lkmlkb.sources import mbox

    monkeypatch.setattr(mbox, "BLOCK", 97)  # every separator lands across a block edge somewhere
    originals = [fixture(n) for n in NAMES]
    assert list(split_mbox(io.BytesIO(mboxrd(originals)))) == originals


def test_gzip_mbox_file(tmp_path):
    originals = [fixture(n) for n in NAMES]
    path = tmp_path / "t.mbox.gz"
    path.write_bytes(gzip.compress(mboxrd(originals)))
    assert sniff(path) == "mbox"
    items = list(iter_source(str(path)))
    assert [i.raw for i in items] == originals
    assert [i.locator for i in items] == [f"entry {n}" for n in range(1, 7)]
    assert all(i.source == str(path) for i in items)


def test_truncated_gzip_names_the_file_and_keeps_what_was_read(tmp_path):
    originals = [fixture(n) for n in NAMES] * 20
    whole = gzip.compress(mboxrd(originals), compresslevel=1)
    path = tmp_path / "cut.mbox.gz"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    got = []
    with pytest.raises(SourceError) as err:
        for item in iter_source(str(path)):
            got.append(item)
    assert str(path) in str(err.value)
    assert "truncated" in err.value.reason
    assert "\n" not in str(err.value)
    assert 10 < len(got) < len(originals)
    assert [i.raw for i in got] == originals[: len(got)]


def test_corrupt_gzip_is_a_source_error(tmp_path):
    whole = bytearray(gzip.compress(mboxrd([fixture("nested_quotes.eml")] * 50)))
    whole[200:260] = b"\x00" * 60
    path = tmp_path / "bad.mbox.gz"
    path.write_bytes(bytes(whole))
    with pytest.raises(LkmlkbError) as err:
        list(iter_source(str(path)))
    assert str(path) in str(err.value)


def test_gzip_bomb_stops_at_the_ratio_limit(tmp_path):
    from lkmlkb.errors import LimitExceeded
    from lkmlkb.sources.base import BoundedReader

    path = tmp_path / "bomb.mbox.gz"
    path.write_bytes(gzip.compress(LORE_SEP + b"From: x\n\n" + b"\n" * (3 << 20)))
    reader = BoundedReader(gzip.GzipFile(path), str(path), path.stat().st_size, limit=1 << 20)
    with pytest.raises(LimitExceeded) as err:
        while reader.read(1 << 16):
            pass
    assert str(path) in str(err.value)


def test_empty_and_binary_files_are_source_errors(tmp_path):
    empty = tmp_path / "empty.mbox"
    empty.write_bytes(b"")
    with pytest.raises(SourceError, match="empty"):
        list(iter_source(str(empty)))
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(SourceError) as err:
        list(iter_source(str(blob)))
    assert str(blob) in str(err.value) and "binary" in err.value.reason


def test_missing_path_is_a_source_error(tmp_path):
    with pytest.raises(SourceError) as err:
        list(iter_source(str(tmp_path / "nope.mbox")))
    assert "no such file" in err.value.reason


@pytest.mark.parametrize(
    "line",
    [
        b"From " + b"x" * 1_000_000,  # one 1 MB "From " line
        b"From " + b"a " * 500_000,  # separator-like fields, never a time
        b"From a b c d " + b"1:" * 300_000,  # colons where the time goes
        (b"From mboxrd@z Thu Jan  1 00:00:00 1970 " * 20_000).replace(b"1970 ", b"1970", 1),
    ],
    ids=["1MB-from-line", "spaced-fields", "colons", "repeated-separators-one-line"],
)
def test_adversarial_separator_lines_are_linear(line):
    import time

    data = (
        LORE_SEP
        + fixture("format_flowed.eml")
        + b"\n"
        + line
        + b"\n"
        + LORE_SEP
        + fixture("nested_quotes.eml")
    )
    t0 = time.perf_counter()
    msgs = list(split_mbox(io.BytesIO(data)))
    assert time.perf_counter() - t0 < 2.0
    assert len(msgs) >= 2


def _finditer(buf: bytes, pos: int) -> list[tuple[int, int]]:
    from lkmlkb.sources.mbox import SEPARATOR

    return [(m.start(), m.end()) for m in SEPARATOR.finditer(buf, pos)]


def _found(buf: bytes, pos: int) -> list[tuple[int, int]]:
    from lkmlkb.sources.mbox import _separators

    return [(m.start(), m.end()) for m in _separators(buf, pos)]


def test_separators_are_found_where_the_regex_finds_them():
    """Candidates by bytes.find, then the regex at each: the same matches as one regex scan, from any
    position (split_mbox rescans a block's tail), in real mbox bytes and in mixes of near misses."""
    import random

    rnd = random.Random(7)
    real = b"".join(sep + fixture(n) + b"\n" for n in NAMES for sep in (LORE_SEP, MBOXO_SEP))
    real += b">From " + LORE_SEP + b"From what I've seen\n"
    assert _found(real, 0) == _finditer(real, 0) and len(_finditer(real, 0)) >= 2 * len(NAMES)
    for _ in range(500):
        a = rnd.randrange(len(real))
        buf = real[a : a + rnd.randrange(1, 6000)]
        pos = rnd.choice([0, rnd.randrange(len(buf) + 1)])
        assert _found(buf, pos) == _finditer(buf, pos)
    pieces = [b"From ", b"\n", LORE_SEP, MBOXO_SEP, b"x", b">From ", b"\r\n", b"From  a b c 1:2:3 4\n"]
    for _ in range(5000):
        buf = b"".join(rnd.choice(pieces) for _ in range(rnd.randrange(10)))
        pos = rnd.randrange(len(buf) + 1)
        assert _found(buf, pos) == _finditer(buf, pos), (buf, pos)


def _split_limited(data: bytes, limit: int, block: int, monkeypatch) -> list:
    from lkmlkb.sources import mbox

    monkeypatch.setattr(mbox, "BLOCK", block)
    return list(split_mbox(io.BytesIO(data), max_message=limit))


@pytest.mark.parametrize("block", [97, 1000, 8 << 20])
def test_a_message_over_the_limit_is_skipped_with_its_size(monkeypatch, block):
    """A message larger than ``max_message`` is not held in memory: the split yields an
    ``Oversized`` with its exact size in its place and goes on with the next message."""
    from lkmlkb.sources.mbox import Oversized

    originals = [fixture(n) for n in NAMES]
    big = b"From: a@b\nSubject: big\n\n" + b"From here on it is long.\n" * 5_000  # body "From " lines too
    data = mboxrd(originals[:2] + [big] + originals[2:])
    whole = list(split_mbox(io.BytesIO(data)))
    limit = max(map(len, originals)) + 100  # the limit counts bytes as stored, escaped: a little more
    got = _split_limited(data, limit, block, monkeypatch)
    assert got[:2] + got[3:] == originals and whole[2] == big
    assert isinstance(got[2], Oversized) and got[2].size == len(mboxrd([big])) - len(LORE_SEP) - 1


def test_the_limit_splits_as_without_it_on_random_mboxes(monkeypatch):
    """Random mixes of real messages and long ones, in small blocks: every message under the
    limit is what the unlimited split gives, every one over it an Oversized of its size."""
    import random

    from lkmlkb.sources.mbox import Oversized

    rnd = random.Random(11)
    pool = [fixture(n) for n in NAMES] + [
        b"Subject: x\n\n" + b"y" * rnd.randrange(2_000, 9_000) for _ in range(4)
    ]
    for _ in range(60):
        msgs = [rnd.choice(pool) for _ in range(rnd.randrange(1, 8))]
        data = mboxrd(msgs)
        whole = list(split_mbox(io.BytesIO(data)))
        limit = rnd.choice([1_500, 3_000, 6_000])
        got = _split_limited(data, limit, rnd.choice([97, 500, 4096]), monkeypatch)
        assert len(got) == len(whole)
        for g, w, m in zip(got, whole, msgs):
            stored = len(mboxrd([m])) - len(LORE_SEP) - 1  # the entry as read: escaped, one blank line
            if stored > limit:
                assert isinstance(g, Oversized) and g.size == stored
            else:
                assert g == w


def test_ingest_records_an_oversized_message_and_stores_the_rest(tmp_path, monkeypatch):
    import sqlite3

    from lkmlkb.ingest.run import ingest
    from lkmlkb.sources import base

    monkeypatch.setattr(base, "MAX_MESSAGE_BYTES", 20_000)
    originals = [fixture(n) for n in NAMES]
    big = b"From: a@b\nSubject: big\nMessage-ID: <big@x>\n\n" + b"0123456789\n" * 3_000
    path = tmp_path / "x.mbox"
    path.write_bytes(mboxrd(originals[:3] + [big] + originals[3:]))
    db = tmp_path / "kb.db"
    s = ingest([str(path)], str(db))
    assert s.errors == 1 and s.new + s.copies == len(originals)
    con = sqlite3.connect(db)
    ((source, locator, stage, reason, raw),) = con.execute(
        "SELECT source, locator, stage, reason, raw FROM ingest_errors"
    )
    assert (source, locator, stage, raw) == (str(path), "entry 4", "read", None)
    assert "33,0" in reason and "20,000" in reason and "\n" not in reason
    assert con.execute("SELECT count(*) FROM messages WHERE message_id='big@x'").fetchone() == (0,)


def test_an_eml_a_page_or_a_maildir_file_over_the_limit_is_a_failure_for_that_file(tmp_path, monkeypatch):
    from lkmlkb.sources import base
    from lkmlkb.sources.base import RawMail, SourceFailure

    monkeypatch.setattr(base, "MAX_MESSAGE_BYTES", 2_000)
    small, big = fixture("bug_report_original.eml"), fixture("utf8_split_subject_dafu.eml")
    assert len(big) > 2_000
    (tmp_path / "a.eml").write_bytes(small)
    (tmp_path / "b.eml").write_bytes(big)
    (tmp_path / "c.eml.gz").write_bytes(gzip.compress(big))
    items = list(iter_source(str(tmp_path)))
    assert [type(i) for i in items] == [RawMail, SourceFailure, SourceFailure]
    assert "b.eml" in str(items[1].exc) and f"{len(big):,} bytes" in str(items[1].exc)
    maildir = tmp_path / "md"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    (maildir / "new" / "1").write_bytes(small)
    (maildir / "new" / "2").write_bytes(big)
    kinds = [type(i) for i in iter_source(str(maildir))]
    assert kinds == [RawMail, SourceFailure]
