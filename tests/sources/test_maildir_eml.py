"""Maildir folders, single .eml files, .patch files and folders of mixed files.

Messages are trimmed real linux-block mail (tests/fixtures/mail, origin in
its README.md), laid out on disk here the way mail clients and b4 do.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from lkmlkb.db.connection import connect
from lkmlkb.errors import SourceError
from lkmlkb.ingest.run import ingest
from lkmlkb.sources import RawMail, iter_source, sniff
from lkmlkb.sources.mail import parse_message

MAIL = Path(__file__).resolve().parent.parent / "fixtures" / "mail"


def fixture(name: str) -> bytes:
    return (MAIL / name).read_bytes()


def test_single_eml_file():
    path = MAIL / "nested_quotes.eml"
    assert sniff(path) == "eml"
    (item,) = list(iter_source(str(path)))
    assert isinstance(item, RawMail)
    assert item.raw == fixture("nested_quotes.eml")
    assert parse_message(item.raw).message_id == "20240123090506.GA31535@lst.de"


def test_eml_starting_with_received_header(tmp_path):
    path = tmp_path / "saved.eml"
    path.write_bytes(
        b"Received: from smtp.subspace.kernel.org by sy.mirrors.kernel.org\n" + fixture("format_flowed.eml")
    )
    assert sniff(path) == "eml"


def test_format_patch_file_with_from_sha_line(tmp_path):
    # git format-patch output: "From <sha> Mon Sep 17 00:00:00 2001" then headers (an mbox of one)
    body = fixture("stable_patch_from_line.eml")
    patch = body[body.index(b"From 38b43539d64b2fa020b3b9a752a986769f87f7a6") :]
    path = tmp_path / "0001-block-Fix-page-refcounts.patch"
    path.write_bytes(patch)
    (item,) = list(iter_source(str(path)))
    m = parse_message(item.raw)
    assert m.from_name == "Tony Battersby"
    assert m.subject == "[PATCH] block: Fix page refcounts for unaligned buffers in __bio_release_pages()"
    assert m.date_utc == "2024-02-29T18:08:09+00:00"


def make_maildir(root: Path) -> Path:
    md = root / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (md / sub).mkdir(parents=True)
    (md / "new" / "1709780169.M1P1.host").write_bytes(fixture("utf8_split_subject_dafu.eml"))
    (md / "cur" / "1709665567.M2P2.host:2,S").write_bytes(fixture("bug_report_original.eml"))
    (md / "cur" / "1710238664.M3P3.host:2,RS").write_bytes(fixture("re_dafu_reply.eml"))
    (md / "tmp" / "1710238665.M4P4.host").write_bytes(b"half-written delivery")
    (md / "cur" / ".hidden").write_bytes(b"not mail")
    return md


def test_maildir_reads_new_and_cur_not_tmp(tmp_path):
    md = make_maildir(tmp_path)
    items = list(iter_source(str(md)))
    assert sorted(parse_message(i.raw).message_id for i in items) == [
        "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com",
        "be93c772-d400-4105-b05a-735ed7365730@oracle.com",
        "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com",
    ]


def test_maildir_ingest_threads_the_seed_000_conversation(tmp_path):
    md = make_maildir(tmp_path)
    db = tmp_path / "kb.db"
    s = ingest([str(md)], str(db))
    assert (s.new, s.errors) == (3, 0)
    con = connect(db)
    (threads,) = con.execute("SELECT count(DISTINCT thread_id) FROM messages").fetchone()
    assert threads == 1
    root = con.execute("SELECT root_message_id, message_count, subject FROM threads").fetchone()
    assert root == (
        "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com",
        3,
        "[bug-report] Performance regression with fio sequential-write on a multipath setup.",
    )


def test_gzipped_eml(tmp_path):
    path = tmp_path / "msg.eml.gz"
    path.write_bytes(gzip.compress(fixture("quoted_printable.eml")))
    assert sniff(path) == "eml"
    (item,) = list(iter_source(str(path)))
    assert item.raw == fixture("quoted_printable.eml")


def test_folder_of_mixed_files_with_one_bad_file(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.eml").write_bytes(fixture("nested_quotes.eml"))
    (folder / "b.mbox").write_bytes(
        b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + fixture("format_flowed.eml")
    )
    (folder / "c.mbox.gz").write_bytes(
        gzip.compress(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + fixture("base64_body.eml"))
    )
    (folder / "d.bin").write_bytes(bytes(range(256)) * 32)  # no archive at all
    (folder / "e.mbox.gz").write_bytes(gzip.compress(fixture("quoted_printable.eml"))[:40])  # cut short
    (folder / "notes.md").write_text("not read")
    db = tmp_path / "kb.db"
    s = ingest([str(folder)], str(db))
    assert s.new == 3
    assert len(s.source_errors) == 2
    assert any("d.bin" in e and "binary" in e for e in s.source_errors)
    assert any("e.mbox.gz" in e for e in s.source_errors)
    con = connect(db)
    rows = con.execute("SELECT source, stage, reason FROM ingest_errors ORDER BY source").fetchall()
    assert [Path(r[0]).name for r in rows] == ["d.bin", "e.mbox.gz"]
    assert all(r[1] == "read" and r[2] for r in rows)


def test_empty_folder_is_a_source_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no mail"):
        list(iter_source(str(tmp_path / "empty")))
