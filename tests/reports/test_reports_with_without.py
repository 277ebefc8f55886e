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
