"""Numbers headed "without" and "with" a named culprit are the baseline and the regressed state.

Fixture text, trimmed: "block: significant performance regression in iSCSI rescan" (linux-block,
2023-05-26, <CAHZQxyKsym0E-GaV0cLQKH8GgO8X_4QR8WjiGghdjswhObLG0g@mail.gmail.com>; its `time -v`
lines without the "Command being timed" lines, which tests/extract/test_timing.py keeps).
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report

ISCSI_RESCAN = """\
One of our customers reported a significant regression in the
performance of their iSCSI rescan when they upgraded their initiator
Linux kernel.
The issue comes down to a patch:
commit 508aebb805277c541e94ee14daba4191ff02347e
Author: Damien Le Moal <damien.lemoal@wdc.com>
Date:   Wed Jan 27 20:47:32 2021

    block: introduce blk_queue_clear_zone_settings()

When I connect 255 volumes with 2 paths to each and run an iSCSI
rescan there is a significant difference in the time it takes.

Without this patch:
Elapsed (wall clock) time (h:mm:ss or m:ss): 0:02.04

Just adding this patch on the previous:
Elapsed (wall clock) time (h:mm:ss or m:ss): 0:13.45
"""


def _report(body: str, subject: str):
    msg = Message(
        "CAHZQxyKsym0E-GaV0cLQKH8GgO8X_4QR8WjiGghdjswhObLG0g@mail.gmail.com",
        subject=subject,
        body=body,
        date_utc="2023-05-26T15:48:29+00:00",
    )
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    return build_report(tid, msgs, findings)


def test_without_and_with_the_culprit_are_the_baseline_and_the_regressed_state():
    r = _report(ISCSI_RESCAN, "block: significant performance regression in iSCSI rescan")
    assert r.is_regression_report
    assert {x.config: x.label for x in r.results} == {
        "Without this patch": "baseline",
        "Just adding this patch on the previous": "regressed",
    }
    assert r.computed_pct == pytest.approx((13.45 - 2.04) / 2.04 * 100, abs=0.01)


def test_with_a_patch_that_measures_better_is_a_fix_tried_not_the_culprit():
    # the same headings, the numbers the other way round: "with" is better, so the labels would
    # say the regression made it faster; nothing is labelled
    body = (
        ISCSI_RESCAN.replace("0:02.04", "0:99.99").replace("0:13.45", "0:02.04").replace("0:99.99", "0:13.45")
    )
    r = _report(body, "block: significant performance regression in iSCSI rescan")
    assert {x.config: x.label for x in r.results} == {
        "Without this patch": None,
        "Just adding this patch on the previous": None,
    }
    assert r.computed_pct is None


def test_in_a_patch_thread_this_patch_is_the_mails_own():
    r = _report(ISCSI_RESCAN, "[PATCH] block: fix iSCSI rescan time")
    assert {x.config: x.label for x in r.results} == {
        "Without this patch": None,
        "Just adding this patch on the previous": None,
    }


# a report written for the pattern of the label lines of the lists ("Before: 970k IOPs" /
# "After: 1750k IOPs", io-uring 2023-12; "Without patch:" over fio's line, linux-raid 2023-02)
LABELLED_AFTER_AN_UPGRADE = """\
After upgrading from 6.7 to 6.8 random reads on our NVMe drives dropped a lot.

Before: 970k IOPS
After:  480k IOPS
"""

LABELLED_BY_THE_CULPRIT = """\
Since commit 1a2b3c4d5e6f ("md: defer the flush") writes to our raid5 are much slower.

Without the commit:
  write: IOPS=59.7k, BW=233MiB/s (245MB/s)(13.7GiB/60001msec)
With the commit:
  write: IOPS=1570, BW=6283KiB/s (6434kB/s)(368MiB/60001msec)
"""


def test_values_labelled_before_and_after_are_on_the_good_and_the_bad_kernel():
    r = _report(LABELLED_AFTER_AN_UPGRADE, "random read regression in 6.8")
    assert r.is_regression_report
    assert {(x.value, x.kernel, x.label) for x in r.results} == {
        (970000.0, "6.7", "baseline"),
        (480000.0, "6.8", "regressed"),
    }
    assert r.computed_pct == pytest.approx(50.52, abs=0.01)


def test_output_under_labels_without_and_with_the_culprit_sizes_the_regression():
    r = _report(LABELLED_BY_THE_CULPRIT, "md raid5 write regression")
    assert {(x.metric, x.config, x.label) for x in r.results if x.metric == "iops"} == {
        ("iops", "Without the commit", "baseline"),
        ("iops", "With the commit", "regressed"),
    }
    assert r.computed_pct == pytest.approx((59700 - 1570) / 59700 * 100, abs=0.01)


# linux-pm, "stable: commit 'cpuidle: menu: Avoid discarding useful information' causes
# regressions" (2025-10, <nd64xabhbb53bbqoxsjkfvkmlpn5tkdlu3nb5ofwdhyauko35b@qv6in7biupgi>),
# trimmed: each run a release with its build's name, one of them the culprit reverted
STABLE_REVERT = """\
OK, got some data for you.  The terminology being used here is as follows:

- 6.1-base
  is 6.1 stable with a9edb700846 "cpuidle: menu: Avoid discarding useful information"

- 6.1-revert
  is 6.1 stable with a9edb700846 reverted (and no fixup commit, obviously)

Just to show the scale of regression, results of some of the benchmarks:

  6.1-base:\t\t84.5
  6.1-revert:\t\t59.5

  (lower is better, 6.1-revert has the same results as previous stable
  kernels).
"""


def test_a_release_run_beside_its_revert_is_the_side_with_the_culprit():
    r = _report(
        STABLE_REVERT,
        'Re: stable: commit "cpuidle: menu: Avoid discarding useful information" causes regressions',
    )
    got = {(x.kernel, x.config, x.value): x.label for x in r.results}
    assert got == {("6.1", "base", 84.5): "regressed", ("6.1", "revert", 59.5): "baseline"}


# linux-block, '[PATCH] Revert "block: don't reorder requests in blk_add_rq_to_plug"' (2025-06,
# <20250611121626.7252-1-abuehaze@amazon.com>), trimmed: a release and the release with the
# culprit reverted, each cell of the speed with the change written after it, beside a size
REVERT_TABLE = """\
This reverts commit e70c301faece15b618e54b613b1fd6ece3dd05b4.

Commit <e70c301faece> ("block: don't reorder requests in blk_add_rq_to_plug")
reversed how requests are stored in the blk_plug list, this had significant
impact on bio merging.

Kernel        |  fio (B.W MiB/sec)  | I/O size (iostat)
--------------+---------------------+--------------------
6.15.1        |   362               |  2KiB
6.15.1+revert |   660 (+82%)        |  4KiB
--------------+---------------------+--------------------
"""


def test_a_revert_measured_in_a_table_is_sized_by_the_speed_not_the_size():
    r = _report(REVERT_TABLE, 'Revert "block: don\'t reorder requests in blk_add_rq_to_plug"')
    sides = {(x.config, x.value): x.label for x in r.results if x.metric != "i/o"}
    assert sides == {(None, 362.0): "regressed", ("+revert", 660.0): "baseline"}
    # the gain of the revert over the release, as the seeds size a revert (corpus/000)
    assert r.computed_pct == pytest.approx((660 - 362) / 362 * 100, abs=0.01)


def test_a_size_alone_sizes_no_regression():
    sizes_only = "\n".join(
        line.rsplit("|", 2)[0] + "|" + line.rsplit("|", 1)[1] if line.count("|") == 2 else line
        for line in REVERT_TABLE.splitlines()
    )
    assert "362" not in sizes_only and "4KiB" in sizes_only
    r = _report(sizes_only, 'Revert "block: don\'t reorder requests in blk_add_rq_to_plug"')
    assert r.computed_pct is None
