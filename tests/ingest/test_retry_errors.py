"""A message that failed to parse is kept raw and recovered by ``lkmlkb reprocess`` once parsing works."""

from __future__ import annotations

from click.testing import CliRunner

from lkmlkb.cli import main
from lkmlkb.db.connection import connect
from lkmlkb.ingest import prepare, run

RAW = (
    b"From: Jens Axboe <axboe@kernel.dk>\nSubject: Re: fio regression\nMessage-ID: <retry-1@example.invalid>\n"
    b"Date: Tue, 12 Mar 2024 15:47:44 +0530\n\nWRITE: bw=236MiB/s (247MB/s)\n"
)


def test_failed_message_is_kept_then_recovered_by_reprocess(tmp_path, monkeypatch):
    mbox = tmp_path / "one.mbox"
    mbox.write_bytes(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + RAW + b"\n")
    db_path = tmp_path / "kb.db"

    def broken(raw, source="", lists=None):  # a parser bug, as an earlier release might have had
        raise ValueError("simulated parser bug")

    monkeypatch.setattr(prepare, "parse_message", broken)
    summary = run.ingest([str(mbox)], str(db_path))
    assert (summary.new, summary.errors) == (0, 1)
    db = connect(db_path)
    ((reason, raw),) = db.execute("SELECT reason, raw FROM ingest_errors").fetchall()
    assert "simulated parser bug" in reason and raw.startswith(b"From: Jens Axboe")

    monkeypatch.undo()
    r = CliRunner().invoke(main, ["reprocess", "--db", str(db_path)])
    assert r.exit_code == 0, r.output
    assert "1 message(s) recovered" in r.output
    assert db.execute("SELECT subject FROM messages").fetchall() == [("Re: fio regression",)]
    assert db.execute("SELECT resolved, message_id FROM ingest_errors").fetchall() == [
        (1, "retry-1@example.invalid")
    ]
    # and a second reprocess has nothing left to recover
    r = CliRunner().invoke(main, ["reprocess", "--db", str(db_path)])
    assert r.exit_code == 0, r.output
    assert "recovered" not in r.output and "report(s) rebuilt" in r.output
    assert db.execute("SELECT count(*) FROM messages").fetchone()[0] == 1
