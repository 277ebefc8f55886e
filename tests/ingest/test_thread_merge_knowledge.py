"""A late message that joins two stored threads moves their findings and leaves one report.

Shape of linux-block threads where a report was first sent on its own and a
later reply (References naming both the patch and the report) ties it to
the patch thread.  The report body is a fio summary of seed 000
(corpus/000_a3585e8f2465c212.txt).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lkmlkb.ingest.run import ingest

PATCH = """From a@example.com Mon Jan  1 00:00:00 2024
From: Dev <dev@example.com>
To: linux-block@vger.kernel.org
Subject: [PATCH] block/mq-deadline: throttle write requests
Date: Mon, 1 Jan 2024 10:00:00 +0000
Message-ID: <patch-1@example.com>

Throttle writes in mq-deadline.

"""
REPORT = """From b@example.com Tue Jan  2 00:00:00 2024
From: Tester <tester@example.com>
To: linux-block@vger.kernel.org
Subject: fio write regression on v6.8-rc1 with mq-deadline
Date: Tue, 2 Jan 2024 10:00:00 +0000
Message-ID: <report-1@example.com>

Hi,

fio sequential writes regressed from v6.7 to v6.8-rc1:

v6.7:
  WRITE: bw=355MiB/s (372MB/s), 355MiB/s-355MiB/s (372MB/s-372MB/s), io=20.8GiB (22.3GB), run=60001-60001msec
v6.8-rc1:
  WRITE: bw=236MiB/s (247MB/s), 236MiB/s-236MiB/s (247MB/s-247MB/s), io=13.8GiB (14.8GB), run=60001-60001msec

"""
JOIN = """From c@example.com Wed Jan  3 00:00:00 2024
From: Dev <dev@example.com>
To: linux-block@vger.kernel.org
Subject: Re: fio write regression on v6.8-rc1 with mq-deadline
Date: Wed, 3 Jan 2024 10:00:00 +0000
Message-ID: <join-1@example.com>
In-Reply-To: <report-1@example.com>
References: <patch-1@example.com> <report-1@example.com>

Thanks, this is caused by my patch; looking.

"""


def _rows(db: Path, sql: str, *args) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def test_merged_thread_keeps_the_reports_findings_and_one_report(tmp_path):
    db = tmp_path / "kb.db"
    first = tmp_path / "first.mbox"
    first.write_text(PATCH + REPORT)
    ingest([str(first)], str(db), extract=True)
    (report_thread,) = _rows(db, "SELECT thread_id FROM messages WHERE message_id='report-1@example.com'")[0]
    assert _rows(db, "SELECT count(*) FROM results WHERE thread_id=?", report_thread)[0][0] >= 2
    assert _rows(db, "SELECT report_id FROM reports") == [(report_thread,)]

    second = tmp_path / "second.mbox"
    second.write_text(JOIN)
    ingest([str(second)], str(db), extract=True)
    threads = _rows(db, "SELECT DISTINCT thread_id FROM messages")
    assert len(threads) == 1  # the reply tied the report to the patch
    (merged,) = threads[0]
    for table in ("results", "kernel_mentions", "claims"):
        stale = _rows(db, f"SELECT count(*) FROM {table} WHERE thread_id != ?", merged)[0][0]
        assert stale == 0, table
    # one report, the merged thread's, and the report's results point at it
    assert _rows(db, "SELECT report_id FROM reports") == [(merged,)]
    labelled = _rows(
        db,
        "SELECT DISTINCT report_id FROM results WHERE message_id='report-1@example.com' "
        "AND label IS NOT NULL",
    )
    assert labelled == [(merged,)]


class _SlowPool:
    """A pool whose jobs come back only when waited for: they stay out while later batches are stored."""

    def apply_async(self, fn, args):
        class Result:
            def ready(self):
                return False

            def get(self, timeout=None):
                return fn(*args)

        return Result()


def test_a_thread_merged_while_its_report_is_being_extracted(tmp_path, monkeypatch):
    """The report's findings come back after the late reply merged its thread: they go to the merged thread."""
    from lkmlkb.ingest import extraction

    made = []
    real = extraction.BatchExtraction.__init__

    def with_slow_pool(self, store, pool=None):
        real(self, store, _SlowPool())
        made.append(self)

    monkeypatch.setattr(extraction.BatchExtraction, "__init__", with_slow_pool)
    db = tmp_path / "kb.db"
    archive = tmp_path / "all.mbox"
    archive.write_text(PATCH + REPORT + JOIN)
    ingest([str(archive)], str(db), extract=True, batch_size=1)  # one message per batch
    assert made and made[0].pool is not None
    [(merged,)] = _rows(db, "SELECT DISTINCT thread_id FROM messages")  # one thread: the merge happened
    assert _rows(db, "SELECT count(*) FROM results WHERE message_id='report-1@example.com'")[0][0] >= 2
    for table in ("results", "kernel_mentions", "claims"):
        assert _rows(db, f"SELECT count(*) FROM {table} WHERE thread_id != ?", merged)[0][0] == 0, table
    assert _rows(db, "SELECT count(*) FROM extracted_messages")[0][0] == 3
    assert _rows(db, "SELECT report_id FROM reports") == [(merged,)]


class _EagerPool:
    """A pool that runs each job when it is handed over, but says it is done only when waited
    for: a report is read from the database at once and written later."""

    def apply_async(self, fn, args):
        out = fn(*args)

        class Result:
            def ready(self):
                return False

            def get(self, timeout=None):
                return out

        return Result()


def test_a_report_built_before_its_thread_was_merged_is_not_written(tmp_path, monkeypatch):
    """With a pool the workers build reports from the database while the writer goes on: the
    report thread's report, read before the late reply merged it into the patch thread and
    written after, no longer has a thread and is dropped; the merged thread's is written."""
    from lkmlkb.ingest import extraction

    monkeypatch.setattr(extraction, "REPORT_EVERY_BATCHES", 1)
    built = []
    real_build = extraction.build_reports

    def recorded(path, thread_ids, upto):
        out = real_build(path, thread_ids, upto)
        built.extend((tid, type(r).__name__) for tid, r, _ in out)
        return out

    monkeypatch.setattr(extraction, "build_reports", recorded)
    real = extraction.BatchExtraction.__init__
    monkeypatch.setattr(
        extraction.BatchExtraction, "__init__", lambda self, store, pool=None: real(self, store, _EagerPool())
    )
    db = tmp_path / "kb.db"
    archive = tmp_path / "all.mbox"
    archive.write_text(PATCH + REPORT + JOIN)
    ingest(
        [str(archive)], str(db), extract=True, batch_size=1
    )  # one message per batch, a report flush after each
    [(merged,)] = _rows(db, "SELECT DISTINCT thread_id FROM messages")
    stale = [tid for tid, kind in built if kind == "Report" and tid != merged]
    assert stale, built  # a report of the report thread was built before the merge ...
    assert _rows(db, "SELECT report_id FROM reports") == [(merged,)]  # ... and not written after it
    assert _rows(db, "SELECT DISTINCT report_id FROM results WHERE label IS NOT NULL") == [(merged,)]
