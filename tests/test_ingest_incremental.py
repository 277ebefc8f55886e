"""Re-runs cost only what is new (issue 7): a raw message whose exact bytes are
stored is not parsed again, while a second delivery with different bytes is
still recorded in message_copies and a new source list is still merged.

Input: the first 120 entries of ../shared/archives/linux-block-2024q1.mboxrd.gz
(real linux-block mail, 2024 Q1), written to a plain mbox in tmp_path.
"""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest

from lkmlkb import ingest as ingest_mod
from lkmlkb.ingest import delivery_key, ingest
from lkmlkb.sources.mbox import split_mbox
from lkmlkb.store import content_hash

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
N = 120


def _entries(n: int) -> list[bytes]:
    with gzip.open(ARCHIVE, "rb") as f:
        out = []
        for raw in split_mbox(f, mboxrd=True):
            out.append(raw)
            if len(out) == n:
                return out
    return out


def _write_mbox(path: Path, entries: list[bytes]) -> None:
    with open(path, "wb") as f:
        for raw in entries:
            f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n")
            f.write(raw.replace(b"\nFrom ", b"\n>From "))
            if not raw.endswith(b"\n"):
                f.write(b"\n")
            f.write(b"\n")


@pytest.fixture()
def sample(tmp_path) -> Path:
    path = tmp_path / "sample.mbox"
    _write_mbox(path, _entries(N))
    return path


def _count_parses(monkeypatch) -> list[int]:
    calls = [0]
    real = ingest_mod.parse_message

    def counting(*a, **kw):
        calls[0] += 1
        return real(*a, **kw)

    monkeypatch.setattr(ingest_mod, "parse_message", counting)
    return calls


def test_delivery_key_matches_what_the_parser_stores(sample):
    from lkmlkb.sources.mail import parse_message

    for raw in _entries(40):
        mid, h = delivery_key(raw)
        msg = parse_message(raw, "x")
        assert mid == msg.message_id
        assert h == content_hash(msg)


def test_delivery_key_never_raises_on_garbage():
    for raw in (b"", b"\x00" * 100, b"From x\n", b"Message-ID: <" + b"a" * 2000 + b">\n\nbody",
                b"no headers at all\n" * 10000, b"Message-ID:\n <folded@x>\n\nbody"):
        mid, h = delivery_key(raw)
        assert len(h) == 64
    assert delivery_key(b"Message-ID:\n <folded@x>\n\nbody")[0] == "folded@x"


def test_unchanged_rerun_parses_nothing(sample, tmp_path, monkeypatch):
    db = tmp_path / "kb.db"
    first = ingest([str(sample)], str(db), workers=1)
    assert first.new > 100 and first.errors == 0
    calls = _count_parses(monkeypatch)
    again = ingest([str(sample)], str(db), workers=1)
    assert calls[0] == 0
    assert (again.new, again.copies, again.errors, again.unchanged) == (0, 0, 0, first.read)
    con = sqlite3.connect(db)
    assert con.execute("SELECT new, unchanged FROM ingest_runs ORDER BY id DESC LIMIT 1").fetchone() == (0, first.read)


def test_changed_bytes_are_still_a_second_delivery(sample, tmp_path, monkeypatch):
    db = tmp_path / "kb.db"
    entries = _entries(N)
    ingest([str(sample)], str(db), workers=1)
    # the same message delivered again with one more Received: header (a real list hop)
    changed = b"Received: from relay.example.org by mx.example.org; Mon, 1 Jan 2024 00:00:00 +0000\n" + entries[5]
    other = tmp_path / "other.mbox"
    _write_mbox(other, [changed, entries[6]])
    calls = _count_parses(monkeypatch)
    s = ingest([str(other)], str(db), workers=1)
    assert (s.new, s.copies, s.unchanged) == (0, 1, 1)
    assert calls[0] == 1  # only the changed bytes were parsed
    mid = delivery_key(entries[5])[0]
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM message_copies WHERE message_id=?", (mid,)).fetchone()[0] == 2


def test_a_new_source_list_is_still_merged(sample, tmp_path, monkeypatch):
    db = tmp_path / "kb.db"
    ingest([str(sample)], str(db), workers=1)
    # the same bytes, from a Maildir folder whose name files them under another list
    from lkmlkb.sources import iter_source

    items = list(iter_source(str(sample)))[:3]
    for it in items:
        it.lists = ["linux-kernel.vger.kernel.org"]
    monkeypatch.setattr(ingest_mod, "iter_source", lambda spec, cursors=None: iter(items))
    s = ingest(["elsewhere"], str(db), workers=1)
    assert (s.new, s.copies, s.unchanged) == (0, 0, 3)
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM message_lists WHERE list='linux-kernel.vger.kernel.org'"
                       ).fetchone()[0] == 3
