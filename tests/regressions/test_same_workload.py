"""This workload regressed before: a regression lists the earlier regressions of its workload and
metric, in ``lkmlkb show`` (text and JSON) and in :func:`regression_data`.

The kernel test robot's fio-basic reports of linux-btrfs (``robot_fio_write_iops_btrfs.mbox``,
see test_regressions.py) are four regressions of fio.write_iops on btrfs, one HDD, 4k writes:

- 2023-04-14, 4ae2edf12d: ioengine io_uring, direct, nr_task 100%;
- 2023-12-03, 40b77b3e82 in linux-next: ioengine falloc, nr_task 1;
- 2024-01-29, ad21f15b0f in mainline (the same commit, "btrfs: switch to the new mount API"):
  ioengine falloc, nr_task 1 -- the same workload as 2023-12-03;
- 2026-02-12, 4e159150a9: ioengine pvsync2, nr_task 1;

and one on xfs (``robot_fio_write_iops_xfs.mbox``), 2024-06-14, 4edee232ed: the fio job of
2023-12-03 and 2024-01-29 (falloc, nr_task 1) on another file system.

Beside them the knowledge base holds the robot's stress-ng reports on btrfs on one HDD (another
test and metric) and fio reports of people (seed 000).
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from lkmlkb.cli import main
from lkmlkb.db.regressions import regression_data, regression_of

IO_URING = "202304140917.9e9f5c1-yujie.liu@intel.com"
NEXT = "202312022313.a9606b59-oliver.sang@intel.com"
MAINLINE = "202401292150.40c83338-oliver.sang@intel.com"
PVSYNC2 = "202602122319.d71b793c-lkp@intel.com"
XFS = "202406141453.7a44f956-oliver.sang@intel.com"
ROBOT_FSIZE = "202409291630.6349557c-oliver.sang@intel.com"
SEED000 = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"


def _rid(conn, thread_id: str) -> str:
    found = regression_of(conn, thread_id)
    assert found, f"{thread_id} is in no regression"
    return found["regression_id"]


def test_the_mainline_report_lists_the_linux_next_report_of_its_workload(conn):
    data = regression_data(conn, _rid(conn, MAINLINE))
    assert [e["regression_id"] for e in data["earlier"]] == [_rid(conn, NEXT)]
    (earlier,) = data["earlier"]
    assert earlier["first_date"].startswith("2023-12-03")
    assert earlier["title"].startswith("[linux-next:master] [btrfs]  40b77b3e82:  fio.write_iops -40.2%")
    assert earlier["status"] == "bisected"
    assert earlier["page"] == f"/-/lkmlkb/regression/{earlier['regression_id']}"
    # what the two share, as the keys hold it
    assert (
        "fs=btrfs ioengine=falloc nr_task=1" in earlier["workload"] and earlier["metric"] == "fio.write_iops"
    )
    assert "fio.write_iops" in data["workload"]["metrics"]
    assert data["workload"]["fingerprints"] == [
        "robot bs=4k disk=1HDD fs=btrfs ioengine=falloc nr_task=1 rw=write test=fio test_size=128G"
    ]


def test_the_same_metric_with_other_parameters_is_another_workload(conn):
    # 2023-04 is earlier and names fio.write_iops on btrfs and one HDD, like 2023-12, but with
    # io_uring, direct I/O and every CPU: not the workload of 2023-12 (nor of 2024-01)
    assert regression_data(conn, _rid(conn, NEXT))["earlier"] == []
    assert _rid(conn, IO_URING) not in {
        e["regression_id"] for e in regression_data(conn, _rid(conn, MAINLINE))["earlier"]
    }
    # 2026 (pvsync2) follows all three and shares its disk, fs, rw, bs and metric with them
    assert regression_data(conn, _rid(conn, PVSYNC2))["earlier"] == []


def test_the_same_fio_job_on_another_file_system_is_another_workload(conn):
    # the robot's parameters say rw, bs and ioengine as the btrfs reports of 2023-12 and 2024-01
    # do (their fio job fingerprints are one), and fs=xfs: the parameters are compared whole
    data = regression_data(conn, _rid(conn, XFS))
    assert data["earlier"] == []
    assert data["workload"]["fingerprints"] == [
        "robot bs=4k disk=1HDD fs=xfs ioengine=falloc nr_task=1 rw=write test=fio test_size=128G"
    ]


def test_only_earlier_regressions_are_listed(conn):
    # 2023-12 is the workload of 2024-01, but 2024-01 came after it
    later = regression_data(conn, _rid(conn, NEXT))
    assert _rid(conn, MAINLINE) not in {e["regression_id"] for e in later["earlier"]}


def test_another_test_on_the_same_disk_and_file_system_is_not_the_workload(conn):
    # stress-ng fsize on btrfs and one HDD (2024-09) is earlier than 2026 and shares "disk=1HDD"
    # and "fs=btrfs" with the fio reports; its test and metric are others
    data = regression_data(conn, _rid(conn, ROBOT_FSIZE))
    assert data["earlier"] == []
    assert _rid(conn, ROBOT_FSIZE) not in {
        e["regression_id"] for e in regression_data(conn, _rid(conn, PVSYNC2))["earlier"]
    }


def test_show_prints_the_earlier_regressions_or_none(kb, conn):
    mainline, nxt = _rid(conn, MAINLINE), _rid(conn, NEXT)
    out = CliRunner().invoke(main, ["show", mainline, "--db", str(kb)])
    assert out.exit_code == 0, out.output
    listed = out.output.split("this workload regressed before:", 1)[1].strip().splitlines()
    assert listed[0].split() == [nxt, "2023-12-03", "bisected"]
    assert "40b77b3e82:  fio.write_iops -40.2%" in listed[1]
    assert "ioengine=falloc" in listed[2]
    assert len(listed) == 3
    none = CliRunner().invoke(main, ["show", nxt, "--db", str(kb)])
    assert none.exit_code == 0, none.output
    assert "this workload regressed before: none" in none.output


def test_show_json_lists_them_with_their_pages(kb, conn):
    mainline, nxt = _rid(conn, MAINLINE), _rid(conn, NEXT)
    out = CliRunner().invoke(main, ["show", mainline, "--db", str(kb), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [(e["regression_id"], e["first_date"][:10], e["status"], e["page"]) for e in data["earlier"]] == [
        (nxt, "2023-12-03", "bisected", f"/-/lkmlkb/regression/{nxt}")
    ]
    assert data["earlier"][0]["title"].startswith("[linux-next:master] [btrfs]")
    assert (
        json.loads(CliRunner().invoke(main, ["show", nxt, "--db", str(kb), "--format", "json"]).output)[
            "earlier"
        ]
        == []
    )


def test_a_regression_without_a_known_workload_says_so(conn):
    # the iSCSI rescan report measured a rescan's time: no fio job, no robot parameters
    data = regression_data(
        conn, _rid(conn, "CAHZQxyKsym0E-GaV0cLQKH8GgO8X_4QR8WjiGghdjswhObLG0g@mail.gmail.com")
    )
    assert data["workload"]["fingerprints"] == [] and data["earlier"] == []
    # seed 000's two copies are one regression: its own copy is never "earlier"
    seed = regression_data(conn, _rid(conn, SEED000))
    assert seed["workload"]["fingerprints"] and seed["earlier"] == []
