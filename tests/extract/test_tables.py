"""find_tables on real tables: the seed threads (corpus/000-004) and a kernel test robot report
from the linux-block 2024q1 archive sample (fixture names its Message-ID)."""

import time
from pathlib import Path

import pytest

from lkmlkb.extract.results import find_results
from lkmlkb.extract.tables import find_tables

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pick(results, metric, value=None, **kw):
    return [
        r
        for r in results
        if r.metric == metric
        and (value is None or r.value == pytest.approx(value))
        and all(getattr(r, k) == v for k, v in kw.items())
    ]


def test_lkp_comparison_table_two_columns():
    res = find_tables((FIXTURES / "results_lkp_fio_write_iops.txt").read_text())
    base, head = pick(res, "iops", direction="write")
    assert (base.value, head.value) == (23454, 6361)
    assert base.config == "8f764b91fdf29659" and head.config == "574e7779cf583171acb5bf63650"
    assert base.tool == "fio" and base.unit == "IOPS"
    (bw,) = pick(res, "bw", 24.85)
    assert bw.unit == "MBps" and bw.normalized_value == pytest.approx(24.85 * 2**20)
    # "3139 ±  3%" keeps the relative stddev as an absolute one
    (ctx,) = pick(res, "fio.time.involuntary_context_switches", 3139)
    assert ctx.stddev == pytest.approx(3139 * 0.03)
    assert pick(res, "clat_p95", 6.082e8)
    # monitor rows are not results of the benchmark
    assert not [r for r in res if r.metric.startswith(("uptime.", "iostat.", "numa-"))]


def test_seed_001_pipe_table_and_whitespace_table(seed_text):
    res = find_tables(seed_text("001"))
    (hosttags,) = pick(res, "iops", 94000)
    assert hosttags.config == "hosttags" and hosttags.direction == "randread"
    assert pick(res, "iops", 124000, config="non hosttags")
    assert pick(res, "cpu_sys", 14.75, config="hosttags")
    (mq,) = pick(res, "iops", 423000)
    assert mq.config == "mq-deadline" and mq.normalized_unit == "IOPS"
    assert pick(res, "cpu_usr", 23.15, config="none")


def test_seed_002_tiobench_table_kernel_column_and_continuations(seed_text):
    res = find_tables(seed_text("002"))
    (r29,) = pick(res, "throughput", 278.85, kernel="2.6.29")
    assert r29.direction == "write" and r29.config == "thr=16" and r29.tool == "tiobench"
    assert r29.unit == "MB/s"
    (low,) = pick(res, "throughput", 302.48)
    assert low.kernel == "2.6.32-rc5" and low.config == "low_lat=0 thr=16"
    # the row above the "low_lat=0" continuation belongs to the same configuration
    (above,) = pick(res, "throughput", 298.27)
    assert above.config.startswith("low_lat=0")
    # "avg, max" latency cells: the average, under the rlat header
    assert pick(res, "lat", 6.625, kernel="2.6.29", direction="read")


def test_seed_002_summary_lines(seed_text):
    res = find_tables(seed_text("002"))
    first = pick(res, "throughput", 38.606667)[0]
    assert first.kernel == "2.6.29" and first.samples == [37.80, 38.54, 39.48]
    assert first.stddev == pytest.approx(0.687475) and first.direction == "write"
    assert pick(res, "throughput", 36.776667)[0].config == "low_latency = 0"
    (avg,) = pick(res, "throughput", 34.4475)[:1]
    assert avg.kernel == "2.6.32-rc6" and avg.config == "low_latency=0" and avg.stddev == 0.21981
    (t16,) = pick(res, "throughput", 37.966667)
    assert t16.kernel == "2.6.32-rc7" and t16.config == "threads=16"


def test_seed_000_kernel_pair_lines(seed_text):
    res = find_tables(seed_text("000"))
    (a,) = pick(res, "value", 3571)
    (b,) = pick(res, "value", 3634)
    assert a.kernel == b.kernel == "6.8-rc7"
    assert a.config is None and b.config == "+revert"


def test_seed_004_iostat_and_dd(seed_text):
    res = find_tables(seed_text("004"))
    (u,) = pick(res, "util", 72.20)
    assert u.tool == "iostat" and u.config == "nvme3n1" and u.direction == "read"
    assert pick(res, "util", 64.20)
    (dd,) = pick(res, "throughput", 3.0)
    assert dd.unit == "GB/s" and dd.tool == "dd" and dd.direction == "read"
    assert dd.normalized_value == pytest.approx(3e9)
    # nothing from the diff that follows ("@@ -1754,14 +1754,17 @@")
    diff_at = seed_text("004").split("\n").index("diff --git a/block/bio.c b/block/bio.c")
    assert all(r.evidence.line_start < diff_at for r in res)


def test_mmtests_compare_rows():
    # shape of mmtests compare-kernels output as posted to linux-mm
    text = (
        "                         6.8.0-rc1              6.8.0-rc2\n"
        "Amean     1        123.45 (   0.00%)      130.00 *  -5.31%*\n"
    )
    res = find_tables(text)
    assert [(r.value, r.kernel) for r in res] == [(123.45, "6.8.0-rc1"), (130.0, "6.8.0-rc2")]


@pytest.mark.parametrize(
    "text",
    [
        "| | |\n" * 10000,
        "x" * 1_000_000,
        "|" * 1_000_000,
        "1 " * 500000 + "-> 3",
        "\x00|\x00|\x00\n" * 100,
        "%stddev     %change         %stddev\n" + "  1 ± 2% +3% 4 ± 5% a.b\n" * 5000,
    ],
    ids=[
        "pipes-10000-lines",
        "megabyte-line",
        "megabyte-of-pipes",
        "half-million-numbers-arrow",
        "nuls-in-cells",
        "5000-lkp-rows",
    ],
)
def test_pathological_input_is_fast(text):
    t0 = time.thread_time()
    res = find_tables(text)
    assert (
        time.thread_time() - t0 < 10.0
    )  # a hang guard (catastrophic backtracking), not a speed test: speed is in benchmarks/
    assert isinstance(res, list)


def test_lkp_functional_table_holds_no_results():
    """The kernel test robot's table of boot results and oopses per commit (a functional
    report, linux-xfs <202510201610.40b1a654-lkp@intel.com>, "kernel_BUG_at_fs/open.c") counts
    crashes, not performance: no result from it; a table of figures beside it still reads."""
    functional = (
        "+------------------------------------------+------------+------------+\n"
        "|                                          | 04e655aedc | dc62b71eff |\n"
        "+------------------------------------------+------------+------------+\n"
        "| boot_successes                           | 9          | 0          |\n"
        "| boot_failures                            | 0          | 9          |\n"
        "| kernel_BUG_at_fs/open.c                  | 0          | 9          |\n"
        "| Oops:invalid_opcode:#[##]                | 0          | 9          |\n"
        "+------------------------------------------+------------+------------+\n"
    )
    assert find_tables(functional) == []
    # io-uring <202409161632.cbeeca0d-lkp@intel.com>: a table of KASAN reports alone
    kasan = (
        "+-------------------------------------------------------+------------+------------+\n"
        "|                                                       | 0e0bcf07ec | f011c9cf04 |\n"
        "+-------------------------------------------------------+------------+------------+\n"
        "| BUG:KASAN:slab-use-after-free_in_io_sq_offload_create | 0          | 3          |\n"
        "| BUG:KASAN:slab-out-of-bounds_in_io_sq_offload_create  | 0          | 2          |\n"
        "+-------------------------------------------------------+------------+------------+\n"
    )
    assert find_tables(kasan) == []
    # linux-block <202503041413.872983bd-lkp@intel.com>: any row, in a report of what the robot "noticed"
    sysfs = (
        'kernel test robot noticed "sysfs:cannot_create_duplicate_filename" on:\n\n'
        "+----------------------------------------+------------+------------+\n"
        "|                                        | 96ec4f2440 | 2951441c42 |\n"
        "+----------------------------------------+------------+------------+\n"
        "| sysfs:cannot_create_duplicate_filename | 0          | 12         |\n"
        "+----------------------------------------+------------+------------+\n"
    )
    assert find_tables(sysfs) == []
    assert find_tables(sysfs.replace('noticed "sysfs:cannot_create_duplicate_filename" on', "ran")) != []
    # found by review: the older robot reports' rows ("xfstests.xfs.076.fail", "dmesg.BUG:..."),
    # and a notice quoted in a reply does not silence the replier's own table of figures
    older = sysfs.replace('noticed "sysfs:cannot_create_duplicate_filename" on', "ran").replace(
        "| sysfs:cannot_create_duplicate_filename |", "| xfstests.xfs.076.fail                  |"
    )
    assert find_tables(older) == []
    reply = (
        '> kernel test robot noticed "BUG:KASAN:slab-out-of-bounds" on:\n\nMy numbers:\n\n'
        "|       | 96ec4f2440 | 2951441c42 |\n|-------|------------|------------|\n"
        "| IOPS  | 1200       | 900        |\n"
    )
    assert sorted(r.value for r in find_tables(reply)) == [900, 1200]
    figures = "| kernel | IOPS |\n|--------|------|\n| v6.7   | 1200 |\n| v6.8   | 900  |\n"
    res = find_tables(functional + "\n\n" + figures)
    assert sorted(r.value for r in res) == [900, 1200] and {r.metric for r in res} == {"iops"}


# A column of figures under a name that measures nothing is a listing, not results.
# LVM's pvdisplay in Michael Laß, "Re: Massive filesystem corruption after balance + fstrim on
# Linux 5.1.2", linux-btrfs, 2019-05-18, <AD966642-1043-468D-BABF-8FC9AF514D36@bi-co.net>; a test
# program's output in Joan Bruguera, "Repression on lseek (holes) on 1-byte files since Linux
# 6.1-rc1", linux-btrfs, 2022-12-23, <20221223020509.457113-1-joanbrugueram@gmail.com>
PVDISPLAY = """\
  VG Name               vg_system
  PV Size               119.24 GiB / not usable <22.34 MiB
  Allocatable           yes (but full)
  PE Size               32.00 MiB
  Total PE              3815
  Free PE               0
  Allocated PE          3815
"""

LSEEK_OUTPUT = """\
    -----BEFORE SYNC-----
    Whence  Result
    DATA    0
    HOLE    1
"""


@pytest.mark.parametrize("text", [PVDISPLAY, LSEEK_OUTPUT], ids=["pvdisplay", "lseek"])
def test_a_listing_of_settings_or_states_holds_no_results(text):
    assert find_tables(text) == []


LANGLOIS_TIMINGS = """\
reissue\tcompletion
average\t7882.67567567568
min\t2316
max\t28811
stddev\t1982.79172973284
"""


def test_statistics_of_samples_are_read_under_any_column_name():
    # Olivier Langlois, "[PATCH v4] io_uring: reduce latency by reissueing the operation", io-uring,
    # 2021-06-22, <9e8441419bb1b8f3c3fcc607b2713efecdef2136.1624364038.git.olivier@trillion01.com>
    got = [(r.config, round(r.value, 2)) for r in find_tables(LANGLOIS_TIMINGS)]
    assert got == [("average", 7882.68), ("min", 2316.0), ("max", 28811.0), ("stddev", 1982.79)]


def test_a_column_under_a_unit_of_speed_is_read():
    # Jinjie Ruan, "Re: [PATCH net-next v5 00/27] io_uring zerocopy send", io-uring, 2025-02-18,
    # <30ac5cb5-ee1f-66fc-641f-5f42140f0045@huawei.com>
    text = "               MB/s\nNONZC         8379\nZC            5910\nZC_FIXED      6294\n"
    assert [(r.value, r.config) for r in find_tables(text)] == [
        (8379.0, "NONZC"),
        (5910.0, "ZC"),
        (6294.0, "ZC_FIXED"),
    ]


def test_a_single_column_of_speeds_is_read_whatever_its_name():
    # constructed: the same shape, a figure of speed under a name that says nothing of it
    text = "    Config        Result\n    mq-deadline   512 MB/s\n    none          640 MB/s\n"
    got = [(r.value, r.unit, r.config) for r in find_tables(text)]
    assert got == [(512.0, "MB/s", "mq-deadline"), (640.0, "MB/s", "none")]


def test_metric_rows_under_a_header_of_conditions():
    res = find_tables((FIXTURES / "results_fsperf_metric_rows.txt").read_text())
    got = {(r.metric, r.config): (r.value, r.unit) for r in res}
    # each condition column's figure, with the unit its metric's name holds
    assert got[("write_clat_ns_p99", "baseline")] == (72576, "ns")
    assert got[("write_clat_ns_p99", "current")] == (74240, "ns")
    assert got[("write_bw_bytes", "baseline")] == (1.83e08, "B/s")
    assert got[("write_iops", "current")] == (43162.98, "IOPS")
    assert got[("throughput", "current")] == (628.99, "")
    assert got[("elapsed", "baseline")] == (46.89, "")  # a table of one row, after a shorter rule
    # statistics are no condition, and a row of zeros measured nothing
    assert not any(c in ("stdev", "diff") for _m, c in got)
    assert not any(m in ("read_clat_ns_p99", "read_iops") for m, _c in got)


@pytest.mark.parametrize(
    "table,want",
    [
        # kernels as the condition columns, no rule line
        (
            "test        6.1       6.2     diff\nseqread   1520.4    1012.9   -33.38%\n",
            [("seqread", "6.1", "6.1", 1520.4), ("seqread", "6.2", "6.2", 1012.9)],
        ),
        # a header of prose words is no header; a row of words is no row
        ("The test ran twice and the results differ\nseqread   1520.4    1012.9   -33.38%\n", []),
    ],
)
def test_metric_rows_variants(table, want):
    got = [(r.metric, r.config, r.kernel, r.value) for r in find_tables(table) if r.metric == "seqread"]
    assert got == want


# a table of kernels and commits as rows between rules, in the form of a linux-xfs report
# (<87czjb9haq.fsf@debian-BULLSEYE-live-builder-AMD64>, 2022-02), written anew
KERNEL_ROWS = """\
The following results are produced

----------------------------------------------------
 Kernel                                  Read IOPS
----------------------------------------------------
 v6.1                                    812K
 8e05d3a1c7b94f2e6a0d1c5b3f7e9a2d4c6b8e10  806k
 b7d21c9e04f6a3158e2d7c0b9a4f61e8d3c25a70  511k
 6.3-rc2                                 530k
----------------------------------------------------
"""


def test_kernels_and_commits_as_rows_between_rules():
    got = [(r.kernel, r.config, r.value, r.unit) for r in find_tables(KERNEL_ROWS)]
    assert got == [
        ("6.1", None, 812000.0, "IOPS"),
        (None, "8e05d3a1c7b94f2e6a0d1c5b3f7e9a2d4c6b8e10", 806000.0, "IOPS"),
        (None, "b7d21c9e04f6a3158e2d7c0b9a4f61e8d3c25a70", 511000.0, "IOPS"),
        ("6.3-rc2", None, 530000.0, "IOPS"),
    ]


def test_a_number_of_digits_alone_is_no_commit_row():
    # iozone's rows open with a file size in KB (linux-raid, 2023): a number, not a commit
    text = "              KB  reclen   write rewrite    read\n       131072000       4  493670  525964   524575\n"
    assert not [r for r in find_tables(text) if r.config == "131072000" or r.kernel == "131072000"]


# the robot's comparison table copied into a reply without its "%stddev %change" line, with a
# third column for a debug patch (the form of a linux-xfs reply to the robot, 2023-05), anew
LKP_WITHOUT_STDDEV = """\
With the debug patch below, the performance is restored.


5b1e6a9c0d37f2a8 9c4d2e81a7f3b05d6e1c2a9b8f4 3a7f91c2d6e04b8a5c1f7e3d2b9
---------------- --------------------------- ---------------------------

     20211            -5.6%      19073            +5.9%      20190        fsmark.files_per_sec
    312.40           +6.2%     331.90           -6.1%     311.80        fsmark.time.elapsed_time
"""


def test_a_robot_table_without_its_stddev_line():
    got = [(r.metric, r.config, r.value) for r in find_tables(LKP_WITHOUT_STDDEV)]
    cols = ("5b1e6a9c0d37f2a8", "9c4d2e81a7f3b05d6e1c2a9b8f4", "3a7f91c2d6e04b8a5c1f7e3d2b9")
    values = [20211, 19073, 20190, 312.4, 331.9, 311.8]
    assert [(c, v) for _m, c, v in got] == list(zip(cols * 2, values, strict=True))


def test_a_rule_of_dashes_under_words_is_no_robot_table():
    text = "name value other\n---------- ---------- ----------\n  12  +5%  13  fsmark.files_per_sec\n"
    assert not [r for r in find_tables(text) if r.metric.startswith("fsmark")]


# linux-block and io-uring, Jens Axboe, <20211006231330.20268-1-axboe@kernel.dk> (2021-10-06):
# fio's t/io_uring before and after a change, a line a second (trimmed to two and three lines)
T_IO_URING = """\
Engine=io_uring, sq_ring=128, cq_ring=256
submitter=0, tid=1206
IOPS=5806400, BW=2835MiB/s, IOS/call=32/32, inflight=(77 32)
IOPS=5860352, BW=2861MiB/s, IOS/call=32/31, inflight=(102 128)
IOPS=5844800, BW=2853MiB/s, IOS/call=32/32, inflight=(102 32)

to:

IOPS=6061248, BW=2959MiB/s, IOS/call=32/31, inflight=(114 82)
IOPS=6100672, BW=2978MiB/s, IOS/call=32/31, inflight=(128 128)
"""


def test_t_io_uring_runs_are_measured_by_their_best_second():
    got = [
        (r.tool, r.metric, r.value, r.unit, r.evidence.line_start, r.evidence.line_end)
        for r in find_tables(T_IO_URING)
    ]
    assert got == [
        ("t/io_uring", "iops", 5860352.0, "IOPS", 2, 4),
        ("t/io_uring", "bw", 2861.0, "MiB/s", 2, 4),
        ("t/io_uring", "iops", 6100672.0, "IOPS", 8, 9),
        ("t/io_uring", "bw", 2978.0, "MiB/s", 8, 9),
    ]


def test_a_t_io_uring_run_under_its_kernel_is_that_kernels():
    # a report's form written for the pattern: a kernel heading each run
    text = (
        "6.6:\n" + T_IO_URING.split("\n\nto:\n\n")[0] + "\n\n6.7-rc1:\n" + T_IO_URING.split("\n\nto:\n\n")[1]
    )
    got = [(r.metric, r.value, r.kernel) for r in find_results(text) if r.tool == "t/io_uring"]
    assert got == [
        ("iops", 5860352.0, "6.6"),
        ("bw", 2861.0, "6.6"),
        ("iops", 6100672.0, "6.7-rc1"),
        ("bw", 2978.0, "6.7-rc1"),
    ]


def test_fios_own_iops_lines_are_not_t_io_uring():
    assert find_tables("  read: IOPS=412k, BW=1609MiB/s (1687MB/s)(94.3GiB/60001msec)\n") == []


#: the kernel test robot's layout of 2019-2022: a "fail:runs" block between the rule under the
#: columns' commits and the "%stddev %change %stddev" header (linux-ext4, 2022-10-27,
#: 202210271720.1af1ecc3-yujie.liu@intel.com, "[linus:master] [ext4] 613c5a8589: fxmark...")
LKP_WITH_FAIL_RUNS = """\
commit:
  1940265ede ("ext4: avoid unnecessary spreading of allocations among groups")
  613c5a8589 ("ext4: make directory inode spreading reflect flexbg size")

1940265ede6683f6 613c5a85898d1cd44e68f28d65e
---------------- ---------------------------
       fail:runs  %reproduction    fail:runs
           |             |             |
           :6          100%           6:6     stderr.Couldn't_synthesize_bpf_events
         %stddev     %change         %stddev
             \\          |                \\
    323.96 ± 12%     +28.7%     417.02 ±  7%  fxmark.ssd_ext4_no_jnl_dbench_client_72_directio.idle_sec
      1583 ±  3%     +30.8%       2072 ±  2%  fxmark.ssd_ext4_no_jnl_dbench_client_72_directio.iowait_sec
"""


@pytest.mark.parametrize("between", [3, 1, 0])
def test_an_lkp_table_with_a_fail_runs_block_under_its_commits_is_read(between):
    """The rule under the commits opens no table of its own when the header stands further down."""
    lines = LKP_WITH_FAIL_RUNS.splitlines(keepends=True)
    # the block's lines may be fewer, or none (the layout people copy without it)
    text = "".join(lines[:6] + lines[6 : 6 + between] + lines[9:])
    res = find_tables(text)
    idle = [(r.value, r.config) for r in res if r.metric.endswith(".idle_sec")]
    assert idle == [(323.96, "1940265ede6683f6"), (417.02, "613c5a85898d1cd44e68f28d65e")]
    assert [r.value for r in res if r.metric.endswith(".iowait_sec")] == [1583, 2072]


# Jens Axboe, "Re: [PATCH v4 0/8] implement async block discards and other ops via io_uring",
# linux-block, 2024-09, <14a6ec2f-dbb8-4372-bccd-8e91c9527ea3@kernel.dk>
NULL_BLK_TRIMS = (
    "Type\tTrim size\tIOPS\tLat avg (usec)\tLat Max (usec)\n"
    "==============================================================\n"
    "sync\t4k\t\t 144K\t    444\t\t   20314\n"
    "async\t4k\t\t1353K\t     47\t\t     595\n"
)
# Pradeep P V K, "[PATCH v1] block, bfq: set default slice_idle to zero for SSDs", linux-block,
# 2019-11-13, <1573656800-14815-1-git-send-email-ppvk@codeaurora.org>
BFQ_IDLING = (
    " Idling   iops    avg-lat(us)    stddev       bw\n"
    " ----------------------------------------------------\n"
    " On       4136    1189.07        17221.65    16.9MB/s\n"
    " Off      7246     670.11        1054.76     29.7MB/s\n"
)


def test_a_latency_column_is_named_by_its_statistic():
    got = {(r.config, r.metric): (r.value, r.unit) for r in find_tables(NULL_BLK_TRIMS)}
    assert got[("sync", "lat")] == (444.0, "usec")  # the mean is the latency
    assert got[("sync", "lat_max")] == (20314.0, "usec")  # the maximum is a metric of its own
    assert got[("async", "iops")] == (1353000.0, "IOPS")
    got = {(r.config, r.metric): r.value for r in find_tables(BFQ_IDLING)}
    assert got[("On", "lat")] == 1189.07 and got[("Off", "lat")] == 670.11


def test_a_column_of_the_runs_parameter_is_no_measurement():
    # the size of each trim is what the run was given ("4k" read as 4,000 otherwise)
    assert not [r for r in find_tables(NULL_BLK_TRIMS) if r.value == 4000.0]
    text = "Sched        QD    IOPS\nnone         32    512K\nmq-deadline  32    401K\n"
    assert [(r.config, r.metric, r.value) for r in find_tables(text)] == [
        ("none", "iops", 512000.0),
        ("mq-deadline", "iops", 401000.0),
    ]


@pytest.mark.parametrize(
    "header,metric,unit",
    [
        # the same two rows under headers written as real reports write them
        ("kernel    avg lat (us)   p99 lat (us)", "lat_p99", "us"),  # a percentile's digits
        ("kernel    avg_lat(us)    p99_lat(us)", "lat_p99", "us"),
        ("kernel    Lat avg (usec)   Lat Max (usec)", "lat_max", "usec"),
        ("kernel    time (s)       wall time (s)", "wall", "s"),  # seconds apart from the name
    ],
)
def test_release_rows_under_headers_with_their_units(header, metric, unit):
    text = f"{header}\n6.1.80    120            410\n6.6.20    185            902\n"
    got = [(r.kernel or r.config, r.metric, r.value, r.unit) for r in find_tables(text)]
    assert ("6.1.80", metric, 410.0, unit) in got and ("6.6.20", metric, 902.0, unit) in got


def test_a_plural_in_parentheses_is_no_unit_of_seconds():
    text = "Config       thread(s)   IOPS\nnone         4           512K\nbfq          4           401K\n"
    got = [(r.config, r.metric, r.value, r.unit) for r in find_tables(text)]
    assert ("none", "thread", 4.0, "") in got and ("bfq", "iops", 401000.0, "IOPS") in got
    assert not [g for g in got if g[3] == "s"]


# Paul Menzel, "[regression 5.4.97 → 5.10.24]: raid6 avx2x4 speed drops from 18429 MB/s to 6155
# MB/s", linux-raid, 2021-03-29, <6a1b0110-07f1-8c2e-fc7f-379758dbd8ca@molgen.mpg.de>
RAID6_SPEEDS = (
    "On an two socket AMD EPYC 7601, we noticed a decrease in raid6 avx2x4\n"
    "speed shown at the beginning of the boot.\n\n"
    "                        5.4.95        5.10.24\n"
    "----------------------------------------------\n"
    "raid6: avx2x4 gen()   18429 MB/s     6155 MB/s\n"
    "raid6: avx2x4 xor()    6644 MB/s     4274 MB/s\n"
)


def test_kernels_as_columns_over_rows_of_measures():
    got = [(r.metric, r.value, r.unit, r.kernel) for r in find_tables(RAID6_SPEEDS)]
    assert got == [
        ("raid6: avx2x4 gen()", 18429.0, "MB/s", "5.4.95"),
        ("raid6: avx2x4 gen()", 6155.0, "MB/s", "5.10.24"),
        ("raid6: avx2x4 xor()", 6644.0, "MB/s", "5.4.95"),
        ("raid6: avx2x4 xor()", 4274.0, "MB/s", "5.10.24"),
    ]


def test_kernel_columns_rows_named_by_a_measure_and_a_direction():
    text = (
        "                 v6.1       v6.6-rc1\n"
        "read IOPS        512k       401k\n"
        "random write IOPS  300k     250k\n"
        "BW (MiB/s)       2000       1566\n"
    )
    got = [(r.metric, r.direction, r.value, r.unit, r.kernel) for r in find_tables(text)]
    assert got == [
        ("iops", "read", 512000.0, "IOPS", "6.1"),
        ("iops", "read", 401000.0, "IOPS", "6.6-rc1"),
        ("iops", "randwrite", 300000.0, "IOPS", "6.1"),
        ("iops", "randwrite", 250000.0, "IOPS", "6.6-rc1"),
        ("bw", None, 2000.0, "MiB/s", "6.1"),
        ("bw", None, 1566.0, "MiB/s", "6.6-rc1"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        # block sizes or factors, not kernels, as columns
        "                 4k         128k\nread IOPS        512k       401k\n",
        "                 0.5        2.0\nspeedup          6.1        6.6\n",
        "                 9.1        9.6\nread IOPS        6.1        6.6\n",
        # a row short of a figure under a kernel is no row of the table
        "                 6.1        6.6\nread IOPS        512k\n",
        # the header has a name in its first cell: a table of another shape
        "fio job          6.1        6.6\n",
    ],
)
def test_no_kernel_columns_where_the_shape_is_another(text):
    assert not [r for r in find_tables(text) if r.kernel]


def _rows(text):
    return [(r.metric, r.value, r.kernel, r.config) for r in find_results(text)]


@pytest.mark.parametrize(
    "text,want",
    [
        # linux-pm, "Performance regressions introduced via Revert 'cpuidle: menu: ...'" (2026-02):
        # a benchmark's figures, one per run labelled by its condition, no unit
        (
            "and re-ran the test:\n\nrevert: 72.5\nbase:   82.5\n\n"
            '// as before "revert" means revert of the commit\n',
            [("value", 72.5, None, "revert"), ("value", 82.5, None, "base")],
        ),
        # linux-erofs, "[PATCH] erofs: support to readahead dirent blocks" (2025-07): the metric's
        # name on the line above the runs
        (
            "readdir test in a large directory which contains 12000 sub-files.\n\n"
            "\t\tfiles_per_second\nBefore:\t\t926385.54\nAfter:\t\t2380435.562\n",
            [
                ("files_per_second", 926385.54, None, "Before"),
                ("files_per_second", 2380435.562, None, "After"),
            ],
        ),
        # variants: "(lower is better)" under the runs, a dash between label and figure
        (
            "Numbers:\n\n  Without the series - 1200\n  With the series - 1450\n\n(lower is better)\n",
            [("value", 1200.0, None, "Without the series"), ("value", 1450.0, None, "With the series")],
        ),
        (
            "pgbench, tps:\n  vanilla: 15872\n  patched: 14210\n",
            [("value", 15872.0, None, "vanilla"), ("value", 14210.0, None, "patched")],
        ),
    ],
)
def test_runs_labelled_by_their_condition_give_unitless_figures(text, want):
    assert _rows(text) == want


@pytest.mark.parametrize(
    "text",
    [
        # gdb's watchpoint (linux-ext4, 2019): "Old value = 0" is no run
        "    Hardware watchpoint 16: -location $177->dotdot\n\n    Old value = 0\n    New value = 1581603653\n",
        # xfstests' golden output in a robot's functional report (linux-xfs, 2023-05)
        "QA output created by 018\nzero-length file:\nBefore: 0\nAfter: 0\n",
        # a size, not a speed: instruction counts of a build (linux-ext4, 2023-04)
        "Instruction estimates use `wc -l` on `objdump`\nBefore: 8539271\nAfter : 8539248\n",
        # one labelled figure alone is no comparison
        "Results:\n\nBefore: 120\n\nThat is all I have.\n",
    ],
)
def test_labels_of_no_run_give_no_figures(text):
    assert _rows(text) == []


@pytest.mark.parametrize(
    "text,want",
    [
        # linux-ide, "[ata] 0568e61225: stress-ng.copy-file.ops_per_sec -15.0% regression" (2022-08):
        # a kernel per line, a dash before its figure, the metric's name above
        (
            "yeah, our test confirmed your expectation:\n\nstress-ng.copy-file.ops_per_sec\n"
            "v5.19                 - 26.85\nv6.0-rc1              - 23.03\nv6.0-rc1 + your patch - 26.94\n",
            [
                ("stress-ng.copy-file.ops_per_sec", 26.85, "5.19", None),
                ("stress-ng.copy-file.ops_per_sec", 23.03, "6.0-rc1", None),
                ("stress-ng.copy-file.ops_per_sec", 26.94, "6.0-rc1", "your patch"),
            ],
        ),
        # linux-pm, "stable: commit 'cpuidle: menu: ...' causes regressions" (2025-10): a release
        # with its build's name glued to it
        (
            "results of some of the benchmarks:\n\n  6.1-base:\t\t84.5\n  6.1-base-fixup:\t76.5\n"
            "  6.1-revert:\t\t59.5\n\n  (lower is better)\n",
            [
                ("value", 84.5, "6.1", "base"),
                ("value", 76.5, "6.1", "base-fixup"),
                ("value", 59.5, "6.1", "revert"),
            ],
        ),
    ],
)
def test_runs_labelled_by_a_kernel_and_its_build(text, want):
    assert _rows(text) == want


def test_a_range_of_kernels_is_no_figure():
    # "5.10 - 5.15" names the releases a bug spans, not a run's figure
    assert _rows("Affected:\n5.10 - 5.15\n6.1 - 6.6\n") == []


@pytest.mark.parametrize(
    "text,want",
    [
        # linux-raid, "Re: extremely slow writes to array [now not degraded]" (2023-10)
        (
            "sent 284,848,197 bytes  received 430,683 bytes  38,037,184.00 bytes/sec\n",
            [("rsync", "bw", 38037184.0, "bytes/sec")],
        ),
        # ceph-devel, "Ceph Kernel client bad performance for 5.4" (2020): rsync -h, no-break spaces
        (
            "sent 1.05G bytes\u00a0 received 35 bytes\u00a0 299.67M bytes/sec\n",
            [("rsync", "bw", 299.67, "MB/s")],
        ),
        # dm-devel, 'Re: Revert "dm: always call blk_queue_split() in dm_process_bio()"' (2020-09):
        # pgbench prints a run's tps with and without connecting: the run's figure is the second
        (
            "latency average = 20.135 ms\ntps = 5562.323947 (including connections establishing)\n"
            "tps = 5562.649168 (excluding connections establishing)\n",
            [("pgbench", "tps", 5562.649168, "tps")],
        ),
        # pgbench 14 and later print it once
        ("tps = 12345.678901 (without initial connection time)\n", [("pgbench", "tps", 12345.678901, "tps")]),
        # the words alone, in prose, are no summary
        ("the tps = 5562 figure (including retries) looks off\n", []),
    ],
)
def test_rsync_and_pgbench_summaries(text, want):
    got = [(r.tool, r.metric, r.value, r.unit) for r in find_tables(text) if r.tool in ("rsync", "pgbench")]
    assert got == want
