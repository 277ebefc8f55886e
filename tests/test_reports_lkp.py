"""Kernel test robot reports as reports: tested commit, base column, parameters, still-regressed trees.

Fixture: tests/extract/fixtures/results_lkp_release_base.txt, trimmed from the robot's
"[linus:master] [block] 9b8b84879d: fio.read_iops 59.4% regression" (a release tag as the base).
"""

from __future__ import annotations

from pathlib import Path

from lkmlkb.model import Message
from lkmlkb.pipeline import extract_messages
from lkmlkb.reports import build_report

FIXTURE = Path(__file__).resolve().parent / "extract" / "fixtures" / "results_lkp_release_base.txt"
SUBJECT = "[linus:master] [block]  9b8b84879d:  fio.read_iops 59.4% regression"


def robot_report():
    body = "\n".join(ln for ln in FIXTURE.read_text().splitlines() if not ln.startswith("# "))
    msg = Message("202508110626.949b00b5-lkp@intel.com", subject=SUBJECT, body=body,
                  date_utc="2025-08-11T00:00:00+00:00")
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    return build_report(tid, msgs, findings)


def test_robot_report_columns_are_base_and_culprit():
    r = robot_report()
    assert r.is_regression_report and r.status == "bisected"
    roles = {c.sha[:12]: c.role for c in r.commits}
    assert roles == {"9b8b84879d4a": "culprit", "89748acdf226": "tested", "b9ddaa95fd28": "tested"}
    iops = {(x.kernel, x.label, x.value) for x in r.results if x.metric == "iops"}
    assert iops == {("6.16-rc4", "baseline", 265.59), ("9b8b84879d", "regressed", 107.9)}
    assert r.stated_pct == 59.4
    assert abs(r.computed_pct - 59.37) < 0.01


def test_robot_parameters_become_a_job():
    (job,) = [j for j in robot_report().fio_jobs if j.form == "lkp-params"]
    assert {k: job.options[k] for k in ("rw", "bs", "ioengine", "runtime")} == {
        "rw": "randread", "bs": "2M", "ioengine": "libaio", "runtime": "300s"}
