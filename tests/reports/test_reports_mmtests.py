"""An mmtests compare table sizes its regression by its own largest significant drop.

mmtests prints, beside each value, the change against the first column with the sign of a
gain, and stars the changes it finds significant. A table of many rows (client counts,
thread counts) states no one size; the regression is the column with the most significant
drops, sized by the largest of them, against the first column of that row.
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.extract.tables import mmtests_cells
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report
from lkmlkb.reports.labels import significant_drop


def _report(body: str, subject: str):
    msg = Message("mmtests@example.org", subject=subject, body=body, date_utc="2021-10-04T10:06:53+00:00")
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    return build_report(tid, msgs, findings)


# Jan Kara, "Performance regression with async inode inactivation" (linux-xfs, 2021-10-04,
# <20211004100653.GD2255@quack2.suse.cz>), trimmed: two columns no header names, rows of reaim
# client counts, the drops past 49 clients starred
ASYNC_INACTIVATION = """\
our performance testing grid has detected a performance regression caused
by commit ab23a77687 ("xfs: per-cpu deferred inode inactivation queues")
with reaim benchmark running 'disk' and 'disk-large' workloads.

reaim-io-disk-xfs
Hmean     disk-1       3597.12 (   0.00%)     3636.37 (   1.09%)
Hmean     disk-25    125000.00 (   0.00%)   121753.25 (  -2.60%)
Hmean     disk-49    218424.96 (   0.00%)   193421.05 * -11.45%*
Hmean     disk-73    286649.22 (   0.00%)   240131.58 * -16.23%*
Hmean     disk-97    349339.74 (   0.00%)   285854.62 * -18.17%*
Hmean     disk-193   458795.56 (   0.00%)   375243.03 * -18.21%*
Stddev    disk-1        102.32 (   0.00%)      117.93 ( -15.25%)
Stddev    disk-121     5730.56 (   0.00%)    11714.34 (-104.42%)
"""


def test_columns_without_names_take_the_first_as_baseline_and_the_largest_significant_drop():
    r = _report(ASYNC_INACTIVATION, "Performance regression with async inode inactivation")
    assert r.is_regression_report
    assert r.regression_pct == pytest.approx(18.21, abs=0.01)
    assert sorted((x.label, x.value) for x in r.results if x.label) == [
        ("baseline", 458795.56),
        ("regressed", 375243.03),
    ]
    # the culprit's cue is wrapped over two lines ("caused\nby commit")
    assert [(c.sha, c.role) for c in r.commits] == [("ab23a77687", "culprit")]


# a written variant: a fix's column beside the regressed one (the shape of Jan Kara's "[PATCH 0/2]
# ext4: Fix performance regression with mballoc", linux-ext4, 2022-08), the fix's own drop starred
# once and larger than any of the regression's
WITH_A_FIX_COLUMN = """\
Reverting the allocator change brings the numbers back, the regression
is bisected to commit 0123456789ab ("ext4: spread allocations").

                     before                 after               fixed
Hmean     disk-1       2076.12 (   0.00%)     2099.37 (   1.12%)     1787.12 * -13.92%*
Hmean     disk-41     92481.20 (   0.00%)    83787.47 *  -9.40%*    90308.37 (  -2.35%)
Hmean     disk-81    155073.39 (   0.00%)   135527.05 * -12.60%*   154285.71 (  -0.51%)
Hmean     disk-121   185109.64 (   0.00%)   166284.93 * -10.17%*   185298.62 (   0.10%)
"""


def test_the_column_with_the_most_significant_drops_is_the_regression():
    r = _report(WITH_A_FIX_COLUMN, "mballoc performance regression")
    assert r.is_regression_report
    assert r.regression_pct == pytest.approx(12.60, abs=0.01)


# written: the drops within noise (no star) size nothing
WITHIN_NOISE = """\
Since commit 0123456789ab ("xfs: defer inactivation") dbench is slower here.

Hmean     1        321.41 (   0.00%)      300.82 (  -6.41%)
Hmean     2        622.87 (   0.00%)      580.80 (  -6.75%)
"""


def test_drops_mmtests_does_not_mark_significant_size_nothing_of_their_own():
    r = _report(WITHIN_NOISE, "dbench regression since inactivation")
    assert all(x.label is None for x in r.results)
    assert r.regression_pct is None


@pytest.mark.parametrize(
    "row,cells",
    [
        (
            "Hmean     disk-81    155073.39 (   0.00%)   135527.05 * -12.60%*   154285.71 (  -0.51%)",
            [(155073.39, 0.0, False), (135527.05, -12.6, True), (154285.71, -0.51, False)],
        ),
        (
            "Amean     1        22.63 (   0.00%)       20.54 *   9.23%*",
            [(22.63, 0.0, False), (20.54, 9.23, True)],
        ),
        (
            "Stddev    disk-121     5730.56 (   0.00%)    11714.34 (-104.42%)",
            [(5730.56, 0.0, False), (11714.34, -104.42, False)],
        ),
    ],
)
def test_mmtests_cells_read_value_change_and_significance(row, cells):
    assert mmtests_cells(row) == cells


# Jan Kara, "[PATCH 2/2] blk-mq: Improve performance of non-mq IO schedulers with multiple HW
# queues" (linux-block, 2021-01-11, <20210111164717.21937-3-jack@suse.cz>), trimmed: the first
# column (MQ) is the slow one, the others gain; SQ's one significant drop is no regression's size
FIRST_COLUMN_IS_THE_SLOW_ONE = """\
Below is a comparison of dbench runs on XFS filesystem where the storage
is a raid card with 64 HW queues and to it attached a single rotating
disk. BFQ is used as IO scheduler:

      clients           MQ                     SQ             MQ-Patched
Amean 1      39.12 (0.00%)       43.29 * -10.67%*       36.09 *   7.74%*
Amean 2     128.58 (0.00%)      101.30 *  21.22%*       96.14 *  25.23%*
Amean 4     577.42 (0.00%)      494.47 *  14.37%*      508.49 *  11.94%*
Amean 8     610.95 (0.00%)      363.86 *  40.44%*      362.12 *  40.73%*
Amean 512 10281.61 (0.00%)    10211.16 *   0.69%*    10447.53 *  -1.61%*

Numbers are times so lower is better. MQ is stock 5.10-rc6 kernel.
You can see multiple hardware queues heavily hurt performance in
combination with BFQ. The patch restores the performance.
"""


def test_a_column_that_mostly_gains_sizes_nothing_by_its_odd_drop():
    msg = Message(
        "mq@example.org", subject="[PATCH 2/2] blk-mq: Improve performance", body=FIRST_COLUMN_IS_THE_SLOW_ONE
    )
    ((_, (_, findings)),) = extract_messages([msg]).items()
    results = [r for f in findings for r in f.results]
    assert len(results) == 15
    assert significant_drop(results) is None
    # the same table with SQ's column mostly dropping sizes by its largest drop
    slower = FIRST_COLUMN_IS_THE_SLOW_ONE.replace("*  21.22%*", "* -21.22%*").replace(
        "*  14.37%*", "* -14.37%*"
    )
    msg = Message("mq@example.org", subject="[PATCH 2/2] blk-mq: Improve performance", body=slower)
    ((_, (_, findings)),) = extract_messages([msg]).items()
    base, bad = significant_drop([r for f in findings for r in f.results])
    assert (base.value, bad.value) == (128.58, 101.30)
