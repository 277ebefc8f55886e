"""Tables of a tool's figures under a heading naming their condition (extract/headed_tables.py).

Fixture text, trimmed from real mail:
- FS_MARK: "[PATCH 17/18] btrfs: track delayed ref heads in an xarray" (linux-btrfs, 2024-10-24,
  <529e3a34a057b4389dd779bc6cddfb075d9c5c34.1729784713.git.fdmanana@suse.com>), two rows a table.
- BINARY_SIZE: "[PATCH] xfs: gut error handling in xfs_trans_unreserve_and_mod_sb()" (linux-xfs,
  2019-11-21, <20191121004437.9633-1-david@fromorbit.com>): size(1) tables, no measure of speed.
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.fio_output import prepare_lines
from lkmlkb.extract.headed_tables import find_headed_tables
from lkmlkb.extract.results import find_results

FS_MARK = """\
    fs_mark $OPTS

Before this patch:

   FSUse%        Count         Size    Files/sec     App Overhead
       10      1200000            0     171845.7         12253839
       16      2400000            0     230898.7         12308254

After this patch:

   FSUse%        Count         Size    Files/sec     App Overhead
       10      1200000            0     173835.0         12246131
       16      2400000            0     233537.8         12271746

Signed-off-by: Filipe Manana <fdmanana@suse.com>
"""

BINARY_SIZE = """\
Difference in binary size for a production kernel:

Before:
   text    data     bss     dec     hex filename
   9486     184       8    9678    25ce fs/xfs/xfs_trans.o

After:
   text    data     bss     dec     hex filename
   8462     184       8    8654    21ce fs/xfs/xfs_trans.o
"""


def _headed(text: str):
    return find_headed_tables(prepare_lines(text))


def test_each_figure_is_a_result_of_its_column_under_its_heading():
    res = _headed(FS_MARK)
    rate = [(r.config, r.value) for r in res if r.metric == "files/sec"]
    assert rate == [
        ("Before this patch", 171845.7),
        ("Before this patch", 230898.7),
        ("After this patch", 173835.0),
        ("After this patch", 233537.8),
    ]
    (first,) = [r for r in res if r.metric == "files/sec" and r.value == 171845.7]
    assert first.unit == "Files/sec" and first.tool == "table"
    # columns are matched by where they end: the right-aligned count is under "Count"
    assert [r.value for r in res if r.metric == "count"] == [1200000, 2400000, 1200000, 2400000]
    assert [r.value for r in res if r.metric == "fsuse%"] == [10, 16, 10, 16]
    # the row's own text is the evidence
    assert "171845.7" in first.evidence.text


def test_rows_with_words_in_them_are_no_table_of_figures():
    # size(1)'s rows end in a file name and a hex column: not figures of a run
    assert _headed(BINARY_SIZE) == []


def test_a_header_needs_a_heading_close_above_it():
    far = FS_MARK.replace("Before this patch:\n\n", "Before this patch:\n\n\n\n\n\n")
    configs = {r.config for r in _headed(far)}
    assert configs == {"After this patch"}


def test_prose_ending_in_a_colon_is_no_header():
    text = "Results:\nthe numbers are, as before, below\n  1  2  3\n"
    assert _headed(text) == []


def test_find_results_reads_headed_tables():
    res = find_results(FS_MARK)
    assert {(r.config, r.value) for r in res if r.metric == "files/sec"} >= {
        ("Before this patch", 171845.7),
        ("After this patch", 233537.8),
    }


def test_a_row_of_fewer_figures_goes_to_the_columns_it_stands_under():
    text = (
        "Results:\n  jobs      read_iops    write_iops    trim_iops\n"
        "  1         100000      200000    300000\n"
        "  2         110000\n"
        "   7     8\n"
    )
    got = [(r.metric, r.value) for r in _headed(text)]
    # as many figures as names: in order, however aligned; fewer: the columns they end under;
    # two figures under one name: not read
    assert got == [
        ("jobs", 1),
        ("read_iops", 100000),
        ("write_iops", 200000),
        ("trim_iops", 300000),
        ("jobs", 2),
        ("read_iops", 110000),
    ]


@pytest.mark.parametrize(
    "heading", ["before 7e55c60acfbb:", "After merging checkpoint buffer cleanup:", "With the revert:"]
)
def test_headings_of_many_forms(heading):
    text = f"{heading}\n              KB  reclen   write rewrite\n       131072000       4  493670  525964\n"
    res = _headed(text)
    assert {r.config for r in res} == {heading[:-1]}
    assert {r.metric: r.value for r in res} == {
        "kb": 131072000,
        "reclen": 4,
        "write": 493670,
        "rewrite": 525964,
    }
