"""Report threads grouped into regressions, on real threads (trimmed: the headers threading needs,
patch diffs and long robot tables cut), in ``tests/fixtures/regressions/``:

- ``iscsi_rescan_report_v1_v2.mbox`` (linux-block, May 2023): the report "block: significant
  performance regression in iSCSI rescan" (2023-05-26,
  <CAHZQxyKsym0E-GaV0cLQKH8GgO8X_4QR8WjiGghdjswhObLG0g@mail.gmail.com>, Brian Bunker: rescan
  slow since commit 508aebb80527) with two replies; "[PATCH] block: fix revalidate performance
  regression" (2023-05-29, <20230529023836.1209558-1-dlemoal@kernel.org>) and a review;
  "[PATCH v2] ..." (2023-05-29, <20230529073237.1339862-1-dlemoal@kernel.org>) and Jens Axboe's
  "Applied, thanks!" (2023-05-29, <168537127713.974829.9443681036221072157.b4-ty@kernel.dk>).
- ``mq_deadline_revert.mbox`` (linux-block, March 2024): "[PATCH] Revert "block/mq-deadline: use
  correct way to throttling write requests"" (2024-03-13, <20240313214218.1736147-1-bvanassche@acm.org>,
  `Fixes: d47f9717e5cf`) and a reply (2024-03-14): the revert of seed 000's culprit.
  Seed 000 is ``corpus/000_*.txt`` (the pasted text) and ``corpus/102_*.mbox`` (its archive copy,
  <5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com>).
- ``crosspost_e70c301fae_linux-block.mbox`` and ``..._linux-btrfs.mbox``: the kernel test robot's
  "[linus:master] [block] e70c301fae: stress-ng.aiol.ops_per_sec 49.6% regression" (2024-12-12,
  <202412122112.ca47bcec-lkp@intel.com>) and Christoph Hellwig's reply from linux-block; three
  replies of January 2025 (<20250103064925.GB27984@lst.de>, <Z3epOlVGDBqj72xC@ryzen>,
  <20250106072116.GD16723@lst.de>) from the linux-btrfs archive, which the thread reached later.
- ``robot_060406c61c_two_metrics.mbox`` (linux-block): two robot reports of commit 060406c61c,
  "sysbench-fileio.write_operations/s -1.7% regression" (2024-06-25,
  <202406252157.348c160f-oliver.sang@intel.com>) and "stress-ng.fsize.ops_per_sec -35.5%
  regression" (2024-09-29, <202409291630.6349557c-oliver.sang@intel.com>), each saying which
  regression it reports ("noticed a ... regression of <metric>").
- ``robot_fio_write_iops_btrfs.mbox`` (linux-btrfs): four of the kernel test robot's fio-basic
  reports of "fio.write_iops" on btrfs, each from its own commit: "[linus:master] [btrfs]
  4ae2edf12d: fio.write_iops -11.9% regression" (2023-04-14,
  <202304140917.9e9f5c1-yujie.liu@intel.com>; io_uring, direct, nr_task 100%), "[linux-next:master]
  [btrfs] 40b77b3e82: fio.write_iops -40.2% regression" (2023-12-03,
  <202312022313.a9606b59-oliver.sang@intel.com>) and "[linus:master] [btrfs] ad21f15b0f:
  fio.write_iops -40.1% regression" (2024-01-29, <202401292150.40c83338-oliver.sang@intel.com>),
  the one commit "btrfs: switch to the new mount API" in linux-next and in mainline, both with
  ioengine falloc and nr_task 1, and "[linus:master] [btrfs] 4e159150a9: fio.write_iops 6.5%
  regression" (2026-02-12, <202602122319.d71b793c-lkp@intel.com>; pvsync2).
- ``robot_fio_write_iops_xfs.mbox`` (linux-xfs): the robot's "[jlayton:mgtime] [xfs] 4edee232ed:
  fio.write_iops -34.9% regression" (2024-06-14, <202406141453.7a44f956-oliver.sang@intel.com>):
  the fio job of the btrfs reports of 40b77b3e82 and ad21f15b0f (falloc, nr_task 1) on xfs.

- ``loop_nomerges_fixed.mbox`` (linux-block, October 2024): "read regression for dm-snapshot with
  loopback" (2024-10-03, <CACzhbgTFesCa-tpyCqunUoTw-1P2EJ83zDzrcB4fbMi6nNNwng@mail.gmail.com>,
  Leah Rumancik: a dd read from 2 to 40 minutes, bisected to dc5fc361d89 and fixed in mainline by
  667ea36378cf ("loop: don't set QUEUE_FLAG_NOMERGES")), the replies and the stable backport
  request in its thread, whole.

The robot reports are trimmed: only the root messages, their first text part, the headers
threading needs, and the fio rows of the comparison tables.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from regression_helpers import FIXTURES as HERE
from regression_helpers import ISCSI_REPORT, ISCSI_V1, ISCSI_V2, REVERT, SEED000
from repo_helpers import copy_kb

from lkmlkb.cli import main
from lkmlkb.db.connection import connect
from lkmlkb.db.regressions import list_regressions, regression_data, regression_of, thread_rows
from lkmlkb.ingest.run import ingest

ROBOT_AIOL = "202412122112.ca47bcec-lkp@intel.com"
ROBOT_SYSBENCH = "202406252157.348c160f-oliver.sang@intel.com"
ROBOT_FSIZE = "202409291630.6349557c-oliver.sang@intel.com"


def _copy(kb: Path, tmp_path: Path) -> Path:
    return copy_kb(kb, tmp_path / "kb.db")


def _parts(conn, thread_id: str) -> dict[str, str]:
    found = regression_of(conn, thread_id)
    assert found, f"{thread_id} is in no regression"
    data = regression_data(conn, found["regression_id"])
    assert data
    return {t["thread_id"]: t["part"] for t in data["threads"]}


def test_report_and_fix_v1_v2_are_one_regression_with_their_parts(conn):
    assert _parts(conn, ISCSI_REPORT) == {
        ISCSI_REPORT: "report",
        ISCSI_V1: "fix proposed v1",
        ISCSI_V2: "applied v2",
    }
    data = regression_data(conn, regression_of(conn, ISCSI_REPORT)["regression_id"])
    assert data["status"] == "fixed"
    v1 = next(t for t in data["threads"] if t["thread_id"] == ISCSI_V1)
    assert "Fixes: 508aebb80527" in v1["reason"] and "names the culprit" in v1["reason"]
    events = [e["event"] for e in data["timeline"]]
    assert events == ["reported", "bisected", "fix proposed", "fix proposed", "fixed"]
    assert "Brian Bunker" in data["timeline"][0]["text"]


def test_a_revert_without_numbers_joins_the_regression_of_its_culprit(conn):
    parts = _parts(conn, SEED000)
    assert parts[SEED000] == "report" and parts[REVERT] == "revert"
    data = regression_data(conn, regression_of(conn, SEED000)["regression_id"])
    assert data["status"] == "reverted"
    revert = next(t for t in data["threads"] if t["thread_id"] == REVERT)
    assert "Fixes: d47f9717e5cf" in revert["reason"]


def test_the_pasted_copy_is_a_duplicate_of_its_archive_copy(conn):
    pasted = conn.execute(
        "SELECT DISTINCT thread_id FROM messages WHERE synthetic_id = 1 AND subject LIKE '%multipath setup%'"
    ).fetchone()[0]
    assert regression_of(conn, pasted)["regression_id"] == regression_of(conn, SEED000)["regression_id"]
    found = regression_of(conn, pasted)
    assert found["part"] == "duplicate copy"
    assert "duplicate copy:" in found["reason"] and "one author, date and first lines" in found["reason"]
    titles = [r["title"] for r in list_regressions(conn) if "multipath setup" in (r["title"] or "")]
    assert len(titles) == 1


def test_a_cross_posted_conversation_is_one_regression_on_both_lists(conn):
    found = regression_of(conn, ROBOT_AIOL)
    assert found and found["part"] == "robot report"
    data = regression_data(conn, found["regression_id"])
    assert [t["thread_id"] for t in data["threads"]] == [ROBOT_AIOL]
    first = data["timeline"][0]
    assert first["event"] == "reported"
    assert "linux-block.vger.kernel.org" in first["text"] and "linux-btrfs.vger.kernel.org" in first["text"]


def test_two_regressions_of_one_commit_stay_apart_when_the_mail_says_so(conn):
    a, b = regression_of(conn, ROBOT_SYSBENCH), regression_of(conn, ROBOT_FSIZE)
    assert a["regression_id"] != b["regression_id"]
    assert (
        "kept apart from" in a["reason"] and "regression of sysbench-fileio.write_operations/s" in a["reason"]
    )


def test_every_regression_report_belongs_to_exactly_one_regression(conn):
    reports = {r[0] for r in conn.execute("SELECT report_id FROM reports WHERE is_regression_report = 1")}
    grouped = [r[0] for r in conn.execute("SELECT thread_id FROM regression_threads")]
    assert len(grouped) == len(set(grouped))
    assert reports <= set(grouped)
    counts = dict(conn.execute("SELECT regression_id, thread_count FROM regressions").fetchall())
    for rid, n in counts.items():
        assert (
            conn.execute("SELECT count(*) FROM regression_threads WHERE regression_id=?", (rid,)).fetchone()[
                0
            ]
            == n
        )


def test_reprocess_gives_the_same_regressions(kb, tmp_path):
    copy = _copy(kb, tmp_path)
    before = (
        connect(copy, create=False)
        .execute("SELECT thread_id, regression_id, part FROM regression_threads ORDER BY thread_id")
        .fetchall()
    )
    result = CliRunner().invoke(main, ["reprocess", "--db", str(copy)])
    assert result.exit_code == 0, result.output
    after = (
        connect(copy, create=False)
        .execute("SELECT thread_id, regression_id, part FROM regression_threads ORDER BY thread_id")
        .fetchall()
    )
    assert after == before


def test_cli_lists_regressions_newest_first_and_shows_a_timeline(kb):
    out = CliRunner().invoke(main, ["regressions", "--db", str(kb)]).output.splitlines()
    assert sum("multipath setup" in line for line in out) == 1
    rid = regression_of(connect(kb, create=False).conn, ISCSI_REPORT)["regression_id"]
    line = next(line for line in out if line.startswith(rid))
    assert " fixed " in line and " 3  block: significant performance regression in iSCSI rescan" in line
    dates = [line.split()[1] for line in out]
    assert dates == sorted(dates, reverse=True)
    shown = CliRunner().invoke(main, ["show", rid, "--db", str(kb)])
    assert shown.exit_code == 0, shown.output
    assert "timeline:" in shown.output and "fix proposed  v2: [PATCH v2]" in shown.output
    report = CliRunner().invoke(main, ["show", ISCSI_REPORT, "--db", str(kb)]).output
    assert f"regression: {rid} (report, fixed)" in report


def test_an_ingest_with_worker_processes_groups_too(tmp_path):
    """Workers build the reports and the writer writes them (another path than a serial run)."""
    path = tmp_path / "kb.db"
    ingest([str(HERE / "iscsi_rescan_report_v1_v2.mbox")], str(path), extract=True, workers=2)
    conn = connect(path, create=False).conn
    assert set(_parts(conn, ISCSI_REPORT)) == {ISCSI_REPORT, ISCSI_V1, ISCSI_V2}


def test_link_without_a_tree_keeps_the_regressions(kb, tmp_path):
    copy = _copy(kb, tmp_path)
    before = (
        connect(copy, create=False).execute("SELECT * FROM regression_threads ORDER BY thread_id").fetchall()
    )
    result = CliRunner().invoke(main, ["link", "--db", str(copy)])
    assert result.exit_code == 0, result.output
    after = (
        connect(copy, create=False).execute("SELECT * FROM regression_threads ORDER BY thread_id").fetchall()
    )
    assert after == before


def test_a_regression_reports_row_says_where_its_regression_was_read(conn):
    # the grouping reads a Closes: to a reply of a patch's thread by whether that reply is where
    # the thread's regression was reported: the first reason's message of each regression report
    rows = {r.thread_id: r for r in thread_rows(conn)}
    first_reason = dict(conn.execute("SELECT report_id, message_id FROM report_reasons WHERE seq = 0"))
    regressions = [r for r in rows.values() if r.is_regression_report]
    assert regressions
    writer = {
        mid: f"{name or ''} {addr or ''}".strip()
        for mid, name, addr in conn.execute("SELECT message_id, from_name, from_addr FROM messages")
    }
    for r in regressions:
        assert r.reported_in == first_reason[r.thread_id] and r.reported_in
        assert r.reported_by == writer[r.reported_in] and r.reported_by  # who, for the robot's replies
    assert all(r.reported_in is None for r in rows.values() if not r.is_regression_report)
