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
from mbox_helpers import ARCHIVE, archive_entries, mboxrd_bytes

from lkmlkb.db.store import content_hash
from lkmlkb.ingest import pool, run
from lkmlkb.ingest.known import delivery_key
from lkmlkb.ingest.run import ingest
from lkmlkb.sources.mbox import split_mbox

ROOT = Path(__file__).resolve().parents[2]
N = 120


def _entries(n: int) -> list[bytes]:
    return list(archive_entries(n))


def _write_mbox(path: Path, entries: list[bytes]) -> None:
    path.write_bytes(mboxrd_bytes(entries))


@pytest.fixture()
def sample(tmp_path) -> Path:
    path = tmp_path / "sample.mbox"
    _write_mbox(path, _entries(N))
    return path


def test_delivery_key_matches_what_the_parser_stores(sample):
    from lkmlkb.sources.mail import parse_message

    for raw in _entries(40):
        mid, h = delivery_key(raw)
        msg = parse_message(raw, "x")
        assert mid == msg.message_id
        assert h == content_hash(msg)


def test_delivery_key_never_raises_on_garbage():
    for raw in (
        b"",
        b"\x00" * 100,
        b"From x\n",
        b"Message-ID: <" + b"a" * 2000 + b">\n\nbody",
        b"no headers at all\n" * 10000,
        b"Message-ID:\n <folded@x>\n\nbody",
    ):
        mid, h = delivery_key(raw)
        assert len(h) == 64
    assert delivery_key(b"Message-ID:\n <folded@x>\n\nbody")[0] == "folded@x"


def test_unchanged_rerun_parses_nothing(sample, tmp_path, count_parses):
    """The same bytes read again (here from a copy of the file, which has no cursor yet: the
    file itself is not read again, tests/sources/test_mbox_cursor.py) are not parsed."""
    db = tmp_path / "kb.db"
    first = ingest([str(sample)], str(db), workers=1)
    assert first.new > 100 and first.errors == 0
    copy = tmp_path / "copy.mbox"
    copy.write_bytes(sample.read_bytes())
    calls = count_parses()
    again = ingest([str(copy)], str(db), workers=1)
    assert calls[0] == 0
    assert (again.new, again.copies, again.errors, again.unchanged) == (0, 0, 0, first.read)
    con = sqlite3.connect(db)
    assert con.execute("SELECT new, unchanged FROM ingest_runs ORDER BY id DESC LIMIT 1").fetchone() == (
        0,
        first.read,
    )


def test_changed_bytes_are_still_a_second_delivery(sample, tmp_path, count_parses):
    db = tmp_path / "kb.db"
    entries = _entries(N)
    ingest([str(sample)], str(db), workers=1)
    # the same message delivered again with one more Received: header (a real list hop)
    changed = (
        b"Received: from relay.example.org by mx.example.org; Mon, 1 Jan 2024 00:00:00 +0000\n" + entries[5]
    )
    other = tmp_path / "other.mbox"
    _write_mbox(other, [changed, entries[6]])
    calls = count_parses()
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
    monkeypatch.setattr(run, "iter_source", lambda spec, cursors=None: iter(items))
    s = ingest(["elsewhere"], str(db), workers=1)
    assert (s.new, s.copies, s.unchanged) == (0, 0, 3)
    con = sqlite3.connect(db)
    assert (
        con.execute(
            "SELECT count(*) FROM message_lists WHERE list='linux-kernel.vger.kernel.org'"
        ).fetchone()[0]
        == 3
    )


# ---------------------------------------------------------------- reports built once, and after a kill

#: two real report threads of the archive sample: the kernel test robot's fio.write_iops
#: regression (9 messages) and seed 000's multipath fio sequential-write report (4 messages)
LKP = "202401312320.a335db14-oliver.sang@intel.com"
SEED0 = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
THREAD_IDS = (
    LKP,
    "da4c78c1-a9d4-4a57-9765-2e6c35fa1062@acm.org",
    "9d2f99d8-ecd2-413e-b910-18e05239a2b8@kernel.dk",
    "ZbtFqxCMkItFr6/5@xsang-OptiPlex-9020",
    "d15a1759-1abf-47aa-8766-88c531023164@kernel.dk",
    "ZbukvbmE3K8y+JdJ@xsang-OptiPlex-9020",
    "cf5236e6-a79b-455a-9afe-b5dbf27d33e9@kernel.dk",
    "Zbuulhixmu7rEheP@xsang-OptiPlex-9020",
    "35989f82-3c6b-4c91-ae9b-db8791895b19@kernel.dk",
    SEED0,
    "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com",
    "be93c772-d400-4105-b05a-735ed7365730@oracle.com",
    "29f6145427be4d5b81f34cc0a9f747a2@BJMBX02.spreadtrum.com",
)


@pytest.fixture(scope="module")
def report_sample(tmp_path_factory) -> Path:
    """The two report threads spread among 160 other real messages of the archive."""
    wanted = set(THREAD_IDS)
    picked, others = [], []
    with gzip.open(ARCHIVE, "rb") as f:
        for raw in split_mbox(f, mboxrd=True):
            if delivery_key(raw)[0] in wanted:
                picked.append(raw)
            elif len(others) < 160:
                others.append(raw)
    assert len(picked) >= len(THREAD_IDS)
    mixed = []
    step = len(others) // len(picked)
    for n, raw in enumerate(picked):
        mixed.extend(others[n * step : (n + 1) * step])
        mixed.append(raw)
    mixed.extend(others[len(picked) * step :])
    path = tmp_path_factory.mktemp("reports") / "sample.mbox"
    _write_mbox(path, mixed)
    return path


def _derived(db: Path) -> dict[str, list]:
    """Findings and reports, without row ids and timestamps."""
    con = sqlite3.connect(db)
    out = {}
    for t in (
        "extracted_messages",
        "results",
        "fio_jobs",
        "kernel_mentions",
        "commit_citations",
        "claims",
        "setup_facts",
        "reports",
        "report_kernels",
        "report_commits",
        "setups",
    ):
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})") if r[1] not in ("id", "built")]
        sel = ",".join(f'"{c}"' for c in cols)
        out[t] = sorted(map(repr, con.execute(f"SELECT {sel} FROM {t}").fetchall()))
    return out


@pytest.fixture(scope="module")
def whole(report_sample, tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("whole") / "kb.db"
    ingest([str(report_sample)], str(db), workers=1, extract=True, batch_size=40)
    return db


def test_reports_are_built_at_the_end_of_the_run(whole):
    con = sqlite3.connect(whole)
    rows = dict(
        con.execute("SELECT report_id, message_count FROM reports WHERE report_id IN (?, ?)", (LKP, SEED0))
    )
    assert rows == {LKP: 9, SEED0: 4}
    assert con.execute("SELECT count(*) FROM kb_info WHERE key='reports_pending_after'").fetchone()[0] == 0


def test_run_killed_between_messages_and_findings_is_completed_by_the_next(
    report_sample, whole, tmp_path, monkeypatch
):
    from lkmlkb.ingest import extraction

    db = tmp_path / "kb.db"
    real = extraction.store_batch_findings
    calls = [0]

    def dies_on_third_batch(*a, **kw):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt("killed after the batch's messages committed")
        return real(*a, **kw)

    monkeypatch.setattr(extraction, "store_batch_findings", dies_on_third_batch)
    with pytest.raises(KeyboardInterrupt):
        ingest([str(report_sample)], str(db), workers=1, extract=True, batch_size=40)
    monkeypatch.setattr(extraction, "store_batch_findings", real)
    con = sqlite3.connect(db)
    missing = con.execute(
        "SELECT count(*) FROM messages m LEFT JOIN extracted_messages e USING (message_id) "
        "WHERE e.message_id IS NULL"
    ).fetchone()[0]
    assert missing > 0  # the interrupted batch's messages are stored without findings
    s = ingest([str(report_sample)], str(db), workers=1, extract=True, batch_size=40)
    assert s.new > 0
    assert _derived(db) == _derived(whole)


def test_parallel_ingest_reads_only_a_few_batches_ahead(sample, tmp_path, monkeypatch):
    """A slow store must not let the pool's feeder read the whole archive into memory."""
    import time

    from lkmlkb.sources import iter_source

    items = list(iter_source(str(sample)))
    pulled = [0]

    def counting(spec, cursors=None):
        for it in items:
            pulled[0] += 1
            yield it

    ahead = []

    def slow_store(store, prepared):
        ahead.append(pulled[0] - store.outcome.new - store.outcome.unchanged - store.outcome.copies)
        time.sleep(0.05)

    monkeypatch.setattr(run, "iter_source", counting)
    s = ingest(["sample"], str(tmp_path / "kb.db"), workers=2, batch_size=5, on_batch=slow_store)
    assert s.read == len(items) and len(ahead) > 10
    # read but not stored: 2 batches in flight per worker, the one being stored and the one being
    # gathered (unbounded, the feeder had read all 120 before the first batch was stored)
    assert max(ahead) <= (2 * 2 + 2) * 5


def test_the_reader_thread_stops_when_the_ingest_stops_reading():
    """An ingest that fails mid-run closes its read-ahead: the source is not read on (review)."""
    import threading
    import time

    pulled = [0]

    def endless():
        while True:
            pulled[0] += 1
            yield [pulled[0]]

    reader = pool.read_ahead(endless())
    assert next(reader) == [1] and next(reader) == [2]
    reader.close()
    time.sleep(0.5)
    stopped_at = pulled[0]
    time.sleep(0.5)
    assert pulled[0] == stopped_at <= 4
    assert not any(t.name == "lkmlkb-reader" and t.is_alive() for t in threading.enumerate())


def test_a_source_error_reaches_the_ingest_through_the_reader_thread():
    def broken():
        yield [1]
        raise OSError("disk went away")

    reader = pool.read_ahead(broken())
    assert next(reader) == [1]
    with pytest.raises(OSError, match="disk went away"):
        next(reader)
