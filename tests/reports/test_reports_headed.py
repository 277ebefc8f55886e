"""Tables under headings naming the side of a change (reports/labels.py label_by_headings).

Fixture text, trimmed from real mail:
- JBD2: "[PATCH 1/3] jbd2: fix checkpoint cleanup performance regression" (linux-ext4, 2023-07-14,
  <20230714025528.564988-2-yi.zhang@huaweicloud.com>): before and after the culprit was merged,
  then after the mail's own fix.
- BTRFS: "[PATCH 17/18] btrfs: track delayed ref heads in an xarray" (linux-btrfs, 2024-10-24,
  <529e3a34a057b4389dd779bc6cddfb075d9c5c34.1729784713.git.fdmanana@suse.com>): an improvement,
  before and after the mail's own patch.
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report

JBD2 = """\
We catch a performance regression when doing fs_mark tests below.

Test cmd:
 ./fs_mark  -d  scratch  -s  1024  -n  10000  -t  1  -D  100  -N  100

Before merging checkpoint buffer cleanup:
 FSUse%        Count         Size    Files/sec     App Overhead
     95        10000         1024       8304.9            49033

After merging checkpoint buffer cleanup:
 FSUse%        Count         Size    Files/sec     App Overhead
     95        10000         1024       7649.0            50012

After this fix:
 FSUse%        Count         Size    Files/sec     App Overhead
     95        10000         1024       8558.4            49109

Fixes: b98dba273a0e ("jbd2: remove journal_clean_one_cp_list()")
Signed-off-by: Zhang Yi <yi.zhang@huawei.com>
"""

BTRFS = """\
    fs_mark $OPTS

Before this patch:

   FSUse%        Count         Size    Files/sec     App Overhead
       10      1200000            0     171845.7         12253839

After this patch:

   FSUse%        Count         Size    Files/sec     App Overhead
       10      1200000            0     173835.0         12246131

Signed-off-by: Filipe Manana <fdmanana@suse.com>
"""


def _report(body: str, subject: str):
    msg = Message(
        "20230714025528.564988-2-yi.zhang@huaweicloud.com",
        subject=subject,
        body=body,
        date_utc="2023-07-14T02:55:28+00:00",
    )
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    return build_report(tid, msgs, findings)


def _labels(r, metric="files/sec"):
    return {x.config: x.label for x in r.results if x.metric == metric}


def test_before_and_after_the_culprit_and_after_the_fix():
    r = _report(JBD2, "[PATCH 1/3] jbd2: fix checkpoint cleanup performance regression")
    assert _labels(r) == {
        "Before merging checkpoint buffer cleanup": "baseline",
        "After merging checkpoint buffer cleanup": "regressed",
        "After this fix": "fixed",
    }
    # the headline is the measure that moved, not a column the same on both sides (FSUse%, Count)
    assert r.computed_pct == pytest.approx((8304.9 - 7649.0) / 8304.9 * 100, abs=0.01)


def test_after_measured_better_is_no_regression():
    body = JBD2.replace("7649.0", "9999.9")
    r = _report(body, "[PATCH 1/3] jbd2: fix checkpoint cleanup performance regression")
    assert set(_labels(r).values()) == {None}
    assert r.computed_pct is None


def test_without_a_culprit_the_headings_name_no_side():
    body = JBD2.replace('Fixes: b98dba273a0e ("jbd2: remove journal_clean_one_cp_list()")\n', "")
    r = _report(body, "[PATCH 1/3] jbd2: checkpoint cleanup")
    assert set(_labels(r).values()) == {None}


def test_before_and_after_the_mails_own_patch_are_no_sides_of_a_culprit():
    # even with a culprit cited elsewhere, "before this patch" is the state the patch changes
    body = BTRFS + 'Fixes: b98dba273a0e ("jbd2: remove journal_clean_one_cp_list()")\n'
    r = _report(body, "[PATCH 17/18] btrfs: track delayed ref heads in an xarray")
    assert _labels(r) == {"Before this patch": None, "After this patch": None}
    assert len([x for x in r.results if x.metric == "files/sec"]) == 2
    assert not r.is_regression_report
