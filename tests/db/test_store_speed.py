"""The ingest's parent-side shortcuts give what the plain row-by-row path gives.

- write_batch writes new messages together: a thread merge later in the batch
  still moves a message written earlier in it;
- store_batch_findings attributes quotes from cached, squeezed lines of
  earlier messages: same findings, attributions and rows (ids included) as
  ``extract_new_in_thread`` over the whole thread;
- load_findings reads a thread's findings in one query per table.

Input: real linux-block mail (../shared/archives/linux-block-2024q1.mboxrd.gz).
"""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from lkmlkb.db import connection, findings
from lkmlkb.db import store as db_store
from lkmlkb.db.connection import connect
from lkmlkb.db.store import Store
from lkmlkb.ingest import attribution, reprocess
from lkmlkb.ingest.known import delivery_key
from lkmlkb.ingest.run import ingest
from lkmlkb.model import Message, Segment
from lkmlkb.sources.mbox import split_mbox
from lkmlkb.threads import quotes
from lkmlkb.threads.quotes import line_key
from lkmlkb.threads.segments import segment_body

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"

#: the kernel test robot's fio.write_iops regression thread (9 messages, replies quoting the
#: report) and seed 000's multipath fio report (4 messages), as in test_ingest_incremental
THREAD_IDS = (
    "202401312320.a335db14-oliver.sang@intel.com",
    "da4c78c1-a9d4-4a57-9765-2e6c35fa1062@acm.org",
    "9d2f99d8-ecd2-413e-b910-18e05239a2b8@kernel.dk",
    "ZbtFqxCMkItFr6/5@xsang-OptiPlex-9020",
    "d15a1759-1abf-47aa-8766-88c531023164@kernel.dk",
    "ZbukvbmE3K8y+JdJ@xsang-OptiPlex-9020",
    "cf5236e6-a79b-455a-9afe-b5dbf27d33e9@kernel.dk",
    "Zbuulhixmu7rEheP@xsang-OptiPlex-9020",
    "35989f82-3c6b-4c91-ae9b-db8791895b19@kernel.dk",
    "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com",
    "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com",
    "be93c772-d400-4105-b05a-735ed7365730@oracle.com",
    "29f6145427be4d5b81f34cc0a9f747a2@BJMBX02.spreadtrum.com",
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """The report threads' messages between 40 other real messages, in archive order."""
    wanted = set(THREAD_IDS)
    out, others = [], 0
    with gzip.open(ARCHIVE, "rb") as f:
        for raw in split_mbox(f, mboxrd=True):
            if delivery_key(raw)[0] in wanted:
                out.append(raw)
            elif others < 40:
                out.append(raw)
                others += 1
    path = tmp_path_factory.mktemp("speed") / "sample.mbox"
    with open(path, "wb") as f:
        for raw in out:
            f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n")
            f.write(raw.replace(b"\nFrom ", b"\n>From "))
            f.write(b"\n" if raw.endswith(b"\n") else b"\n\n")
    return path


def _tables(db: Path) -> dict[str, list]:
    """Everything extraction writes, row ids included; timestamps left out."""
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
        "extraction_errors",
        "segments",
        "reports",
        "report_kernels",
        "report_commits",
        "setups",
    ):
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})") if r[1] not in ("built", "at")]
        sel = ",".join(f'"{c}"' for c in cols)
        out[t] = sorted(map(repr, con.execute(f"SELECT rowid, {sel} FROM {t}").fetchall()))
    return out


@pytest.mark.parametrize("cache_lines", [attribution.SAID_CACHE_LINES, 60])  # 60: entries evicted mid-thread
def test_cached_attribution_equals_attribution_over_the_whole_thread(
    sample, tmp_path, monkeypatch, cache_lines
):
    monkeypatch.setattr(attribution, "SAID_CACHE_LINES", cache_lines)
    fast = tmp_path / "fast.db"
    # small batches: the report threads' messages arrive over several batches
    ingest([str(sample)], str(fast), workers=1, extract=True, batch_size=6)

    def whole_thread(conn, thread_id, new, cache, pending):
        db = sqlite_utils.Database(conn)
        reprocess.extract_new_in_thread(db, thread_id, db_store.load_messages(db, thread_id))
        return []  # written here: no jobs left

    monkeypatch.setattr(attribution, "_extract_new_with_index", whole_thread)
    plain = tmp_path / "plain.db"
    ingest([str(sample)], str(plain), workers=1, extract=True, batch_size=6)
    a, b = _tables(fast), _tables(plain)
    assert a == b
    # the comparison saw attributed quotes and findings, not empty tables
    assert any("oliver.sang@intel.com'" in r and "'quoted'" in r for r in a["segments"])
    assert len(a["results"]) > 10 and len(a["reports"]) >= 2


def test_load_findings_of_a_thread_equals_one_message_at_a_time(sample, tmp_path):
    path = tmp_path / "kb.db"
    ingest([str(sample)], str(path), workers=1, extract=True, batch_size=50)
    db = connect(path, create=False)
    messages = db_store.load_messages(db, THREAD_IDS[0])
    ids = [m.message_id for m in messages]
    together = findings.load_findings(db, ids)
    alone = [findings.load_findings(db, [mid])[0] for mid in ids]
    assert together == alone
    assert sum(len(f.results) for f in together) > 10
    twice = findings.load_findings(db, ids[:1] * 2)
    assert twice[0] == twice[1] and twice[0] is not twice[1]
    assert twice[0].results is not twice[1].results and twice[0].results[0] is not twice[1].results[0]


# Lines from the kernel test robot's report above (202401312320.a335db14-oliver.sang@intel.com)
# and a reply quoting it, with the whitespace a mailer or a quoter changes.
REPORT_LINE = "kernel test robot noticed a -21.0% regression of fio.write_iops on:"
TABLE_LINE = "     20.99 ±  3%     -21.0%      16.58 ±  2%  fio.write_iops"


@pytest.mark.parametrize(
    "said, quoted",
    [
        (REPORT_LINE, "kernel test robot  noticed a -21.0% regression of fio.write_iops on: "),
        (TABLE_LINE, "20.99 ±  3%\t-21.0%  16.58 ±  2%  fio.write_iops"),
        (TABLE_LINE, "20.99\u00a0± 3% -21.0% 16.58 ± 2% FIO.WRITE_IOPS"),  # no-break space, upper case
    ],
)
def test_squeeze_is_equal_wherever_line_key_is(said, quoted):
    assert line_key(said) == line_key(quoted)
    assert quotes.squeeze(said) == quotes.squeeze(quoted)


def test_squeeze_of_an_ascii_line_is_the_general_one():
    """``squeeze`` joins an ASCII line's words without the spaces it then took out (only a
    non-ASCII letter's lower case depends on its neighbour): same text for every line of
    linux-block's 2024 Q1 mail and for ASCII's other whitespace (\\x1c-\\x1f, \\x0b, \\x0c)."""

    def general(line: str) -> str:
        return " ".join(line.split()).lower().replace(" ", "")

    with gzip.open(ARCHIVE, "rb") as f:
        lines = set(f.read().decode("utf-8", "replace").split("\n"))
    lines.update(["A\x1cB\x1dC\x1eD\x1fE", "\x0bX  Y\x0cZ\t", "ΣΑΣ ΟΔΟΣ", "İd ID"])
    assert sum(line.isascii() for line in lines) > 100_000
    assert [line for line in lines if quotes.squeeze(line) != general(line)] == []


def test_said_lines_keep_every_line_that_has_a_line_key():
    body = "\n".join(
        [
            "Hello,",
            "",
            REPORT_LINE,
            TABLE_LINE,
            "> " + REPORT_LINE,
            "-- ",
            "0-DAY CI Kernel Test Service",
        ]
    )
    segments = segment_body(body)
    said = attribution.said_lines(segments)
    lines = {line for _, line in said}
    assert {REPORT_LINE, TABLE_LINE} <= lines
    # short lines have no key, quoted and signature lines are not said here
    assert "Hello," not in lines and len(said) == 2
    indexed = {line_key(x) for s in segments if s.kind in ("new", "patch") for x in s.text.split("\n")} - {
        None
    }
    assert {line_key(x) for x in lines} == indexed


def test_said_cache_drops_oldest_past_its_line_limit():
    cache = attribution.SaidCache(limit=3)
    two = [Segment("new", 0, 1, REPORT_LINE + "\n" + TABLE_LINE)]
    cache.put("a", two, squeeze=False)
    cache.put("b", two)
    assert cache.get("a") is None and cache.lines == 2
    assert cache.get("b") == [
        (quotes.squeeze(REPORT_LINE), REPORT_LINE),
        (quotes.squeeze(TABLE_LINE), TABLE_LINE),
    ]
    cache.put("c", [Segment("new", 5, 5, TABLE_LINE)], squeeze=False)
    assert cache.get("c") == [(quotes.squeeze(TABLE_LINE), TABLE_LINE)]  # squeezed when first read
    assert cache.lines == 3


def _msg(mid: str, refs: list[str], subject: str = "Re: [PATCH] block: fix") -> Message:
    return Message(
        message_id=mid,
        subject=subject,
        from_name="x",
        from_addr="x@example.org",
        date_raw="",
        date_utc="2024-01-31T15:20:00+00:00",
        in_reply_to=refs[-1] if refs else None,
        references=refs,
        body=REPORT_LINE,
        lists=["linux-block"],
        source="test",
        raw=mid.encode(),
    )


def test_a_merge_later_in_the_batch_moves_a_message_written_earlier_in_it(tmp_path):
    """b first joins the thread of its ghost parent x; c, replying to a and b, merges x into a."""
    msgs = [
        _msg("a@test", [], "[PATCH] block: fix"),
        _msg("b@test", ["x@test"]),
        _msg("c@test", ["a@test", "b@test"]),
    ]
    threads = {}
    for name, batches in (("one", [msgs]), ("each", [[m] for m in msgs])):
        store = Store(connect(tmp_path / f"{name}.db"))
        for batch in batches:
            store.write_batch([(m, segment_body(m.body), m.body) for m in batch])
        threads[name] = store.conn.execute(
            "SELECT message_id, thread_id FROM messages ORDER BY rowid"
        ).fetchall()
    assert (
        threads["one"]
        == threads["each"]
        == [("a@test", "a@test"), ("b@test", "a@test"), ("c@test", "a@test")]
    )


# two messages in the shape of a linux-block reply; the quoted line is short in
# characters but long once lower-cased ("İ" lower-cases to two characters), and
# the Greek capital sigma lower-cases by position ("ς" ending a word, "σ" inside)
GROWS_WHEN_LOWERED = "İİİİİİİ v6.8-rc1 İİİİ"
THREAD_OF_TWO = """From ann@example.com Mon Jan  1 00:00:00 2024
From: Ann Dev <ann@example.com>
Subject: fio regression on nvme
Date: Mon, 1 Jan 2024 10:00:00 +0000
Message-ID: <a@x>
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

Hi,

fio randread regression bisected.
{said}

Thanks

From bob@example.com Mon Jan  1 00:00:00 2024
From: Bob <bob@example.com>
Subject: Re: fio regression on nvme
Date: Mon, 1 Jan 2024 11:00:00 +0000
Message-ID: <b@x>
In-Reply-To: <a@x>
References: <a@x>
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

On Mon, Ann wrote:
> {quoted}

fio iops are fine here.
"""


@pytest.mark.parametrize(
    ("said", "quoted"),
    [
        (GROWS_WHEN_LOWERED, GROWS_WHEN_LOWERED),
        ("ΑΣ ΒΓΔ on v6.8-rc1 the iops dropped", "Ας ΒΓΔ on v6.8-rc1 the iops dropped"),  # same line_key
    ],
)
def test_ingest_attributes_quotes_as_attribute_quotes_does_beyond_ascii(tmp_path, said, quoted):
    from lkmlkb.threads.quotes import line_key

    assert line_key(said) == line_key(quoted) is not None
    mbox = tmp_path / "t.mbox"
    mbox.write_text(THREAD_OF_TWO.format(said=said, quoted=quoted), encoding="utf-8")
    db = tmp_path / "kb.db"
    ingest([str(mbox)], str(db), extract=True)
    conn = sqlite3.connect(db)
    got = conn.execute(
        "SELECT quotes_message_id FROM segments WHERE message_id='b@x' AND kind='quoted'"
    ).fetchall()
    assert got == [("a@x",)]
    # the version is a's finding only: b merely quotes it
    assert conn.execute("SELECT DISTINCT message_id FROM kernel_mentions").fetchall() == [("a@x",)]


def test_the_wal_starts_over_while_a_thread_checkpoints_it(tmp_path, monkeypatch):
    # the ingest's WAL is checkpointed from a thread of its own (store.Checkpointer), the writer
    # copying only what came meanwhile: the WAL must still start over (a WAL always written while
    # it is copied never does, and grew to 4.1 GB over linux-block's epoch), the writer's automatic
    # checkpoints must come back after the run, and the thread must be gone
    import os
    import threading

    from lkmlkb.db import checkpoint, connection
    from lkmlkb.ingest import run

    monkeypatch.setattr(checkpoint, "CHECKPOINT_EVERY_BYTES", 1 << 20)
    seen: list[int] = []
    automatic: list[int] = []
    copied: list[int] = []  # frames each of the thread's rounds copied
    made: list[checkpoint.Checkpointer] = []

    class Watched(checkpoint.Checkpointer):
        def __init__(self, db, path):
            super().__init__(db, path)
            made.append(self)

        def wrote(self, nbytes):
            super().wrote(nbytes)
            wal = str(self.db_path) + "-wal"
            seen.append(os.path.getsize(wal) if os.path.exists(wal) else 0)
            automatic.append(self.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])

        def _checkpoint(self):
            copied.append(super()._checkpoint()[2])
            return copied[-1]

        def close(self):
            super().close()
            self.autocheckpoint = self.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
            self.alive = self._thread.is_alive()

    monkeypatch.setattr(run, "Checkpointer", Watched)
    db_path = tmp_path / "kb.db"
    summary = ingest([str(ARCHIVE)], str(db_path), batch_size=100)
    assert summary.new > 3900 and len(seen) > 30
    cp = made[0]
    assert cp.rounds >= 2 * 3  # two rounds a checkpoint, a checkpoint every few batches
    # the WAL never held more than a few batches: ~3 MB of mail a batch, 90 MB of database in all
    assert max(seen) < os.path.getsize(db_path) / 3, (max(seen), os.path.getsize(db_path))
    # the thread did the copying, with SQLite's own checkpoints off until the end
    assert len(copied) == cp.rounds and sum(copied) > 1000
    assert set(automatic) == {0} and cp.autocheckpoint == connection.WAL_CHECKPOINT_PAGES
    assert not cp.alive and not [t for t in threading.enumerate() if t.name == "lkmlkb-checkpoint"]


def _write_in_step(db, cp, writes: int, after_write=None) -> list[bytes]:
    """``writes`` rows of 256 KB, each once the thread's round out (if any) is done or, for a
    checkpointer with a ``copied`` event, has copied: the writer never runs ahead of the copying,
    so what follows depends on the checkpointer's rules, not on the machine's load (a busy CI
    machine let a slow round see 16 MB written).  The WAL's generation after each write."""
    import os
    import time

    copied = getattr(cp, "copied", None)
    gens = []
    for _ in range(writes):
        deadline = time.monotonic() + 30
        while cp._out and not cp._done.is_set() and not (copied is not None and copied.is_set()):
            assert time.monotonic() < deadline, "the checkpoint thread's round never ended"
            time.sleep(0.001)
        db.execute("INSERT INTO blobs VALUES (?)", (os.urandom(256 * 1024),))
        if after_write:
            after_write()
        cp.wrote(256 * 1024)
        gens.append(cp._generation())
    return gens


def test_the_writer_copies_what_came_during_the_threads_checkpoint(tmp_path, monkeypatch):
    # each round of the thread's checkpoint ends only after the writer committed once more: frames
    # the copy did not see.  The WAL starts over at the writer's next write only if the writer
    # checkpoints them itself, between two transactions (else it grows until the next cycle)
    import threading

    from lkmlkb.db import checkpoint

    monkeypatch.setattr(checkpoint, "CHECKPOINT_EVERY_BYTES", 4 << 20)

    class Overtaken(checkpoint.Checkpointer):
        def __init__(self, db, path):
            self.copied, self.committed = threading.Event(), threading.Event()
            self.ends: list[int] = []  # writes done when the writer's copy ended a cycle
            self.writes = 0
            super().__init__(db, path)

        def _checkpoint(self):
            super()._checkpoint()
            self.copied.set()
            self.committed.wait()
            self.committed.clear()

        def _copy_rest(self):
            self.ends.append(self.writes)
            super()._copy_rest()

    db_path = tmp_path / "kb.db"
    db = connect(db_path)
    db.execute("CREATE TABLE blobs(b BLOB)")
    cp = Overtaken(db, db_path)

    def after_write():
        cp.writes += 1
        if cp.copied.is_set():  # a commit after the copy: the round may end
            cp.copied.clear()
            cp.committed.set()

    gens = _write_in_step(db, cp, 120, after_write)
    cp.committed.set()
    cp.close()
    ends = [k for k in cp.ends if k < len(gens)]
    assert cp.rounds >= 2 * 5 and len(ends) >= 5
    # the write after each cycle's end starts the WAL over
    assert all(gens[k] != gens[k - 1] for k in ends), (ends, [gens[k] == gens[k - 1] for k in ends])


def test_the_wal_starts_over_after_a_reader_kept_it_from_doing_so(tmp_path, monkeypatch):
    # a reader (a worker building reports, a Datasette page) holding its snapshot past the writer's
    # copy keeps the WAL from starting over at the next write; the writer sees that the WAL did
    # not start over and copies again once the reader is gone (else the WAL grows until the next
    # cycle)
    import sqlite3

    from lkmlkb.db import checkpoint

    monkeypatch.setattr(checkpoint, "CHECKPOINT_EVERY_BYTES", 4 << 20)

    class Read(checkpoint.Checkpointer):
        held = False
        writes = 0
        ends: list[int] = []

        def _copy_rest(self):
            if self._settling is None:  # the copy that ends a cycle, not one made again
                reader.execute("BEGIN")
                reader.execute("SELECT count(*) FROM blobs").fetchone()
                self.held = True
                self.ends.append(self.writes)
            super()._copy_rest()

    db_path = tmp_path / "kb.db"
    db = connect(db_path)
    db.execute("CREATE TABLE blobs(b BLOB)")
    reader = sqlite3.connect(db_path, isolation_level=None)
    cp = Read(db, db_path)

    def after_write():
        cp.writes += 1
        if cp.held:  # one write with the reader still there, then it goes
            reader.execute("COMMIT")
            cp.held = False

    gens = _write_in_step(db, cp, 120, after_write)
    cp.close()
    ends = [k for k in cp.ends if k + 1 < len(gens)]
    assert cp.rounds >= 2 * 5 and len(ends) >= 5
    # the write after the cycle's end could not start the WAL over (the reader); the next one did
    assert all(gens[k] == gens[k - 1] for k in ends)
    assert all(gens[k + 1] != gens[k] for k in ends), (ends, [gens[k + 1] == gens[k] for k in ends])


def test_closing_waits_for_the_round_out(tmp_path):
    # an ingest ending (or interrupted) while the thread copies: close() returns once the round
    # is done, and only then closes the thread's connection
    import threading
    import time

    from lkmlkb.db import checkpoint

    started = threading.Event()

    class Slow(checkpoint.Checkpointer):
        def _checkpoint(self):
            started.set()
            time.sleep(0.3)
            return super()._checkpoint()

    db = connect(tmp_path / "kb.db")
    db.execute("CREATE TABLE t(x)")
    db.execute("INSERT INTO t VALUES (1)")
    cp = Slow(db, tmp_path / "kb.db")
    cp.wrote(checkpoint.CHECKPOINT_EVERY_BYTES)  # a cycle starts: the thread's first round
    assert started.wait(5)
    cp.close()
    assert cp.rounds == 1 and not cp._thread.is_alive()
    cp.close()  # once


def test_rows_in_reads_every_id_500_a_statement():
    # connection.rows_in, behind the thread, message and report lookups of a batch: every id of a
    # list longer than one statement may hold is read, each once
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t(id)")
    conn.executemany("INSERT INTO t VALUES (?)", [(f"m{i}",) for i in range(1301)])
    statements = []
    conn.set_trace_callback(statements.append)
    ids = [f"m{i}" for i in range(1201)] + ["absent"]
    got = [r[0] for r in connection.rows_in(conn, "SELECT id FROM t WHERE id IN ({marks})", ids)]
    assert sorted(got) == sorted(ids[:-1])
    assert len(statements) == 3
