"""Before/after pairs in prose, and how the report builder labels them.

Real text: "[REGRESSION] fio 4k randread: ~1–3.5% IOPS regression on linux-next
(6.19.0-rc1-next-20251219) vs RHEL9 5.14 on PERC H740P", linux-block, January 2026
(Message-ID 20260117024413.484508-2-bojanalahithashri@gmail.com; trimmed).
"""

from __future__ import annotations

from lkmlkb.extract.messages import extract_messages
from lkmlkb.extract.pairs import find_pairs
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report

REPORT = """\
Kernels Tested
--------------
Baseline (downstream):
  5.14.0-427.13.1.el9_4.x86_64

Test (upstream integration tree):
  6.19.0-rc1-next-20251219

Example Data Points
-------------------
- iodepth=32:
    old: 554 IOPS → new: 535 IOPS  (~-3.4%)
    avg clat: 57.7 ms → 59.8 ms

- iodepth=128:
    old: 648 IOPS → new: 640 IOPS (~-1.2%)
"""
SUBJECT = (
    "[REGRESSION] fio 4k randread: ~1–3.5% IOPS regression on linux-next "
    "(6.19.0-rc1-next-20251219) vs RHEL9 5.14 on PERC H740P"
)


def test_pairs_found_with_metric_unit_and_heading():
    got = [(r.metric, r.value, r.unit, r.config, r.evidence.line_start) for r in find_pairs(REPORT)]
    assert got == [
        ("iops", 554, "IOPS", "before (iodepth=32)", 11),
        ("iops", 535, "IOPS", "after (iodepth=32)", 11),
        ("clat", 57.7, "ms", "before (iodepth=32)", 12),
        ("clat", 59.8, "ms", "after (iodepth=32)", 12),
        ("iops", 648, "IOPS", "before (iodepth=128)", 15),
        ("iops", 640, "IOPS", "after (iodepth=128)", 15),
    ]


def test_kiops_pairs_are_counted_in_iops():
    (a, b) = find_pairs("randread: 94 kIOPS -> 80 kIOPS\n")
    assert (a.value, a.unit, a.normalized_value, b.value) == (94000, "IOPS", 94000, 80000)


def test_ranges_counts_and_mixed_units_are_not_pairs():
    assert find_pairs("we tried 2 to 4 jobs\nlatency went from 2 to 4 ms at times\n1 MiB/s -> 3 IOPS\n") == []


def test_report_puts_pairs_on_the_baseline_and_the_subjects_regressed_kernel():
    msg = Message(
        "report@example.invalid", subject=SUBJECT, body=REPORT, date_utc="2026-01-17T00:00:00+00:00"
    )
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    r = build_report(tid, msgs, findings)
    assert r.is_regression_report
    labelled = {(x.kernel, x.label, x.value) for x in r.results if x.metric == "iops"}
    assert ("5.14.0-427.13.1.el9_4.x86_64", "baseline", 554) in labelled
    assert ("6.19.0-rc1-next-20251219", "regressed", 535) in labelled
    assert r.computed_pct == round((554 - 535) / 554 * 100, 2)
