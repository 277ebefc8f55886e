"""An mbox file's cursor (issue 7: incremental runs cost only what is new).

Each message read from an mbox carries the file's cursor after it: the offset
of its end, the entries up to it, the file's escaping and the SHA-256 of every
byte before the offset.  A re-run resumes there when the file is what it was
up to that point (mail appended is all it reads) and reads the whole file
otherwise, so nothing changed above the cursor is missed.

Input: the first entries of ../shared/archives/linux-block-2024q1.mboxrd.gz
(real linux-block mail, 2024 Q1), written to plain and gzipped mbox files in
tmp_path.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import sqlite3
from pathlib import Path

import pytest
from mbox_helpers import archive_entries, mboxrd_bytes

from lkmlkb.errors import SourceError
from lkmlkb.ingest.run import ingest
from lkmlkb.sources import base, mbox
from lkmlkb.sources.base import RawMail, SourceFailure
from lkmlkb.sources.mbox import cursor_after, iter_mbox_file


@pytest.fixture(scope="module")
def entries() -> list[bytes]:
    return list(archive_entries(120))


def stored_cursor(db: Path, path: Path) -> str:
    (cursor,) = (
        sqlite3.connect(db)
        .execute("SELECT cursor FROM source_state WHERE source=?", (f"mbox:{path.resolve()}",))
        .fetchone()
    )
    return cursor


def test_each_message_carries_the_hash_of_the_file_up_to_its_end(entries, tmp_path):
    data = mboxrd_bytes(entries[:40])
    path = tmp_path / "a.mbox"
    path.write_bytes(data)
    items = list(iter_mbox_file(path))
    assert [i.locator for i in items] == [f"entry {n}" for n in range(1, 41)]
    ends = [m.start() for m in re.finditer(rb"(?m)^From mboxrd@z ", data)][1:] + [len(data)]
    for n, (item, end) in enumerate(zip(items, ends), 1):
        assert item.cursor == f"mbox1 {end} {n} 1 {hashlib.sha256(data[:end]).hexdigest()}"


@pytest.mark.parametrize("block", [mbox.BLOCK, 4096, 777])
def test_resuming_at_any_cursor_gives_what_the_whole_file_gives_after_it(
    entries, tmp_path, monkeypatch, block
):
    """Blocks smaller than a message, bytes before the first separator and a message over the
    size limit (its bytes dropped as they are read) leave every cursor the hash of the file up to
    it, and the messages after a cursor as the whole read has them."""
    monkeypatch.setattr(mbox, "BLOCK", block)
    biggest = max(range(60), key=lambda n: len(entries[n]))
    monkeypatch.setattr(base, "MAX_MESSAGE_BYTES", len(entries[biggest]) - 1)
    path = tmp_path / "a.mbox"
    # what some tools leave before the first separator: not a message, but part of the hashed prefix
    data = b"\n" + b"x" * 3000 + b"\n" + mboxrd_bytes(entries[:60])
    path.write_bytes(data)
    whole = list(iter_mbox_file(path))
    assert isinstance(whole[biggest], SourceFailure)
    assert whole[biggest].locator == f"entry {biggest + 1}"
    for item in whole:
        if isinstance(item, RawMail):
            end = int(item.cursor.split()[1])
            assert item.cursor.split()[4] == hashlib.sha256(data[:end]).hexdigest()

    def seen(items):
        return [(i.raw, i.locator, i.cursor) if isinstance(i, RawMail) else i.locator for i in items]

    for k in (0, 1, biggest - 1, biggest + 1, 30, 58):
        since = whole[k].cursor
        assert seen(iter_mbox_file(path, since=since)) == seen(whole[k + 1 :])
    assert list(iter_mbox_file(path, since=whole[-1].cursor)) == []


def test_a_gzipped_file_resumes_in_its_expanded_bytes(entries, tmp_path):
    """Appending to a .gz rewrites it (here: compressed again, at another level): the cursor
    counts expanded bytes, so the mail that was there is not read again."""
    path = tmp_path / "a.mbox.gz"
    path.write_bytes(gzip.compress(mboxrd_bytes(entries[:50]), compresslevel=9))
    last = list(iter_mbox_file(path))[-1]
    path.write_bytes(gzip.compress(mboxrd_bytes(entries[:70]), compresslevel=1))
    again = list(iter_mbox_file(path, since=last.cursor))
    assert [i.locator for i in again] == [f"entry {n}" for n in range(51, 71)]
    assert [i.raw for i in again] == [i.raw for i in list(iter_mbox_file(path))[50:]]


def test_the_escaping_of_the_file_is_kept_across_a_resume(entries, tmp_path):
    """A file that began as mboxrd reads on as mboxrd though the mail appended has other
    separators: ``>>From `` in an appended body loses one ``>`` as in the whole read."""
    path = tmp_path / "a.mbox"
    path.write_bytes(mboxrd_bytes(entries[:3]))
    last = list(iter_mbox_file(path))[-1]
    body = entries[3].replace(b"\n\n", b"\n\n>From the quoted mbox line\n", 1)
    with open(path, "ab") as f:
        f.write(mboxrd_bytes([body], sep=b"From someone@example.org Tue Mar 12 10:17:44 2024\n"))
    (resumed,) = iter_mbox_file(path, since=last.cursor)
    assert b"\n>From the quoted mbox line\n" in resumed.raw
    assert resumed.raw == list(iter_mbox_file(path))[-1].raw
    assert resumed.cursor.split()[3] == "1"


def test_mail_appended_to_a_last_message_without_its_newline_is_read_as_a_whole_read_reads_it(
    entries, tmp_path
):
    """Found in review: a cursor at the end of a file whose last message lacks its newline, then
    an mbox appended (``cat b.mbox >> a.mbox``): the whole read sees no separator there (not at a
    line's start) and reads one message; the resumed read must not split it."""
    path = tmp_path / "a.mbox"
    data = mboxrd_bytes(entries[:3]).rstrip(b"\n")
    path.write_bytes(data)
    since = list(iter_mbox_file(path))[-1].cursor
    assert since.split()[1] == str(len(data))
    path.write_bytes(data + mboxrd_bytes(entries[3:5]))
    got = list(iter_mbox_file(path, since=since))
    assert [(i.locator, i.raw) for i in got] == [(i.locator, i.raw) for i in iter_mbox_file(path)]
    # the third message ran on into the first appended one; the second appended one follows
    assert len(got) == 4 and b"\nFrom mboxrd@z " not in got[2].raw and b"From mboxrd@z " in got[2].raw


def test_a_gzip_broken_before_the_cursor_is_read_whole_up_to_the_break(entries, tmp_path):
    """Found in review: a .gz replaced by a truncated one raised while the prefix was hashed, and
    the messages the whole read yields before the break were never read."""
    path = tmp_path / "a.mbox.gz"
    path.write_bytes(gzip.compress(mboxrd_bytes(entries[:60])))
    since = list(iter_mbox_file(path))[-1].cursor
    other = gzip.compress(mboxrd_bytes(entries[60:100]))
    path.write_bytes(other[: len(other) * 2 // 3])
    whole, resumed = [], []
    for out in (whole, resumed):
        with pytest.raises(SourceError, match="truncated gzip"):
            for item in iter_mbox_file(path, since=since if out is resumed else None):
                out.append(item.raw)
    assert len(whole) > 10 and resumed == whole


@pytest.mark.parametrize("change", ["edited", "truncated", "continued", "garbage cursor"])
def test_a_file_that_is_not_what_it_was_up_to_its_cursor_is_read_whole(entries, tmp_path, change):
    path = tmp_path / "a.mbox"
    data = mboxrd_bytes(entries[:30])
    path.write_bytes(data)
    since = list(iter_mbox_file(path))[-1].cursor
    if change == "edited":  # one byte of an early message, the length kept
        at = data.index(b"Subject: ") + 9
        path.write_bytes(data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1 :] + mboxrd_bytes(entries[30:32]))
    elif change == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif change == "continued":  # the last message went on: no separator at the cursor
        path.write_bytes(data + b"more of the last message\n")
    else:
        since = "mbox1 12 not-a-number 1 00"
        digest = hashlib.sha256(data).hexdigest()
        # near misses of the format: each is no cursor (the whole file is read)
        for bad in (
            f"mbox1 {len(data)} 30 01 {digest}",
            f"mbox1 {len(data)} ³0 1 {digest}",
            f"mbox2 {len(data)} 30 1 {digest}",
            f"mbox1 {len(data)} 30 1 {digest[:-1]}",
        ):
            assert [i.locator for i in iter_mbox_file(path, since=bad)][:1] == ["entry 1"]
        assert list(iter_mbox_file(path, since=f"mbox1 {len(data)} 30 1 {digest}")) == []
    got = list(iter_mbox_file(path, since=since))
    assert got[0].locator == "entry 1"
    assert [i.raw for i in got] == [i.raw for i in iter_mbox_file(path)]


def test_a_rerun_reads_only_the_mail_appended_to_an_mbox(entries, tmp_path, count_parses):
    path = tmp_path / "linux-block.mbox"
    path.write_bytes(mboxrd_bytes(entries[:80]))
    db = tmp_path / "kb.db"
    first = ingest([str(path)], str(db), workers=1)
    assert (first.new, first.errors) == (80, 0)
    data = path.read_bytes()
    assert stored_cursor(db, path) == f"mbox1 {len(data)} 80 1 {hashlib.sha256(data).hexdigest()}"

    calls = count_parses()
    again = ingest([str(path)], str(db), workers=1)
    assert (again.read, again.new, again.unchanged, calls[0]) == (0, 0, 0, 0)

    with open(path, "ab") as f:
        f.write(mboxrd_bytes(entries[80:]))
    more = ingest([str(path)], str(db), workers=1)
    assert (more.read, more.new, more.unchanged, calls[0]) == (40, 40, 0, 40)
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM messages").fetchone()[0] == 120
    data = path.read_bytes()
    assert stored_cursor(db, path) == f"mbox1 {len(data)} 120 1 {hashlib.sha256(data).hexdigest()}"


def test_a_changed_file_is_read_whole_and_its_changed_message_is_a_second_delivery(
    entries, tmp_path, count_parses
):
    path = tmp_path / "linux-block.mbox"
    path.write_bytes(mboxrd_bytes(entries[:40]))
    db = tmp_path / "kb.db"
    ingest([str(path)], str(db), workers=1)
    # the same mail with one more Received: header on entry 6 (a real list hop), and two more
    hop = b"Received: from relay.example.org by mx.example.org; Mon, 1 Jan 2024 00:00:00 +0000\n"
    path.write_bytes(mboxrd_bytes([*entries[:5], hop + entries[5], *entries[6:42]]))
    calls = count_parses()
    s = ingest([str(path)], str(db), workers=1)
    assert (s.read, s.new, s.copies, s.unchanged) == (42, 2, 1, 39)
    assert calls[0] == 3  # the known bytes are still not parsed


def test_each_mbox_of_a_folder_keeps_its_own_cursor(entries, tmp_path, count_parses):
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "2024-01.mbox").write_bytes(mboxrd_bytes(entries[:30]))
    (folder / "2024-02.mbox").write_bytes(mboxrd_bytes(entries[30:60]))
    db = tmp_path / "kb.db"
    assert ingest([str(folder)], str(db), workers=1).new == 60
    with open(folder / "2024-02.mbox", "ab") as f:
        f.write(mboxrd_bytes(entries[60:65]))
    calls = count_parses()
    s = ingest([str(folder)], str(db), workers=1)
    assert (s.read, s.new, calls[0]) == (5, 5, 5)
    sources = [r[0] for r in sqlite3.connect(db).execute("SELECT source FROM source_state ORDER BY source")]
    assert [Path(s.split(":", 1)[1]).name for s in sources] == ["2024-01.mbox", "2024-02.mbox"]


def test_the_cursor_format(entries):
    h = hashlib.sha256(b"abc")
    assert cursor_after(3, 1, True, h) == "mbox1 3 1 1 " + hashlib.sha256(b"abc").hexdigest()
    # what the stream had already read is all the hasher saw: a resume hashes the same bytes
    data = mboxrd_bytes(entries[:2])
    h2 = hashlib.sha256()
    got = list(mbox._split(io.BytesIO(data), None, None, h2))
    assert got[-1][1] == len(data) and h2.hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_message_that_fails_at_the_files_end_is_not_read_again(entries, tmp_path, monkeypatch):
    """A failed message is recorded in ingest_errors (kept for ``lkmlkb reprocess``), so the
    cursor moves past it as past a stored one: a file whose last message is over the size limit
    is not read, and that failure not recorded again, on every re-run."""
    msgs = sorted(entries[:20], key=len)  # the last is the largest
    monkeypatch.setattr(base, "MAX_MESSAGE_BYTES", len(msgs[-1]) - 1)
    path = tmp_path / "a.mbox"
    data = mboxrd_bytes(msgs)
    path.write_bytes(data)
    whole = list(iter_mbox_file(path))
    assert isinstance(whole[-1], SourceFailure)
    assert whole[-1].cursor == f"mbox1 {len(data)} 20 1 {hashlib.sha256(data).hexdigest()}"
    db = tmp_path / "kb.db"
    first = ingest([str(path)], str(db))
    assert (first.read, first.new, first.errors) == (19, 19, 1)
    assert stored_cursor(db, path) == whole[-1].cursor
    again = ingest([str(path)], str(db))
    assert (again.read, again.new, again.errors) == (0, 0, 0)
    path.write_bytes(data + mboxrd_bytes(entries[20:23]))
    appended = ingest([str(path)], str(db))
    assert (appended.read, appended.new, appended.errors) == (3, 3, 0)
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM ingest_errors").fetchone()[0] == 1


def test_a_last_message_that_fails_to_parse_is_not_parsed_again(entries, tmp_path):
    """The same for a message that fails in the workers' parsing (no mail headers), whose raw
    bytes ingest_errors keeps for ``lkmlkb reprocess``."""
    path = tmp_path / "a.mbox"
    path.write_bytes(mboxrd_bytes(entries[:5]) + b"From mboxrd@z Thu Jan  1 00:00:00 1970\n\nonly a body\n")
    db = tmp_path / "kb.db"
    first = ingest([str(path)], str(db), workers=2)
    assert (first.read, first.new, first.errors) == (6, 5, 1)
    again = ingest([str(path)], str(db), workers=2)
    assert (again.read, again.new, again.errors) == (0, 0, 0)
    con = sqlite3.connect(db)
    assert con.execute("SELECT stage, locator, raw FROM ingest_errors").fetchall() == [
        ("parse", "entry 6", b"\nonly a body\n")
    ]
