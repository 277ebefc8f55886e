"""What extractors are shown of a message: long lines cut, line numbers kept."""

import pytest

from lkmlkb.extract.messages import extract_message
from lkmlkb.extract.views import MAX_VIEW_LINE, build_view
from lkmlkb.model import Message
from lkmlkb.threads.segments import segment_body

# a fio summary line of seed 000 (corpus/000_a3585e8f2465c212.txt)
REPORT_LINE = "  WRITE: bw=236MiB/s (247MB/s), 236MiB/s-236MiB/s (247MB/s-247MB/s), io=13.8GiB (14.8GB), run=60001-60001msec"


def test_long_line_is_cut_and_later_lines_keep_their_numbers():
    flood = "WRITE: bw=1MiB/s \x00" * 60_000
    body = f"fio regression on v6.8\n{flood}\n{REPORT_LINE}\n"
    view = build_view(body, segment_body(body))
    lines = view.text.split("\n")
    assert len(lines[1]) == MAX_VIEW_LINE
    assert lines[2] == REPORT_LINE
    f, passed = extract_message(
        Message("flood@example.invalid", subject="fio", body=body), segment_body(body)
    )
    assert passed
    assert any(r.evidence.line_start == 2 and r.value == 236 for r in f.results)


def test_real_report_lines_are_not_cut():
    body = f"Hi,\n\n{REPORT_LINE}\n"
    assert build_view(body, segment_body(body)).text.split("\n")[2] == REPORT_LINE


def test_focus_keeps_the_lines_prefilter_passes_in_a_long_message():
    """A long log with a report line inside: the report line and its neighbourhood stay, far lines go."""
    from lkmlkb.extract.prefilter import prefilter, prefilter_lines
    from lkmlkb.extract.views import FOCUS_RADIUS, View, focus_view

    # dmesg lines of the shape of the 1 MB linux-block report (CAGS2=YpgcBdW..., 2024-01)
    log_line = "[ 1095.583057] nvme nvme0: invalid id 49408 completed on queue 4"
    lines = [log_line] * 3000
    lines[1500] = REPORT_LINE
    lines[10] = (
        "\u0130\u0130 Run status group 0 (all jobs):"  # lower() lengthens the line, not the line count
    )
    text = "\n".join(lines)
    assert (
        prefilter_lines(text, lines) == [i for i, line in enumerate(lines) if prefilter(line)] == [10, 1500]
    )
    focused = focus_view(View(text, {})).text.split("\n")
    assert len(focused) == len(lines)
    assert focused[1500] == REPORT_LINE and focused[1500 + FOCUS_RADIUS] == log_line
    assert focused[1500 + FOCUS_RADIUS + 1] == "" and focused[2999] == ""


def test_a_kernel_log_line_naming_a_tool_heads_no_report_in_a_long_message():
    """The lines around a dmesg line that names fio or a rate are more log, not a report."""
    from lkmlkb.extract.prefilter import prefilter
    from lkmlkb.extract.views import FOCUS_RADIUS, View, focus_view

    # lines of the 1 MB linux-block report <CAGS2=YpgcBdW==T=jWXNWePYg2y0c-XsyMxvi5x5hU-cWGXuRw@mail.gmail.com>
    # (2024-01), whose 14,738 lines name fio or Mbps on 11; the far log lines here are filler
    head = [
        "Found a error while  run fio nvme_pi testing,  please have a look.",
        "",
        "./fio/t/nvmept_pi.py --dut /dev/ng0n1",
    ]
    log = "[ 1095.583057] nvme nvme0: invalid id 49408 completed on queue 4"
    lines = head + [log] * 3000
    lines[1500] = (
        "[ 1516.396298] CPU: 3 PID: 4152 Comm: fio Kdump: loaded Tainted: G             L     6.7.0+ #1"
    )
    lines[2500] = "[ 1614.725626] tg3 0000:02:00.0 eno1: Link is up at 1000 Mbps, full duplex"
    assert prefilter(lines[1500]) and prefilter(lines[2500])
    focused = focus_view(View("\n".join(lines), {})).text.split("\n")
    assert len(focused) == len(lines)
    assert focused[:3] == head and focused[2 + FOCUS_RADIUS] == log and focused[3 + FOCUS_RADIUS] == ""
    assert focused[1500] == focused[2500] == focused[1500 - FOCUS_RADIUS] == ""


def test_a_kernel_log_naming_a_tool_on_every_line_is_not_cut():
    """Kernel log lines are not counted toward the FOCUS_MAX_LINES cut, in a short view too."""
    from lkmlkb.extract.prefilter import prefilter
    from lkmlkb.extract.views import FOCUS_MAX_LINES, View, focus_view

    # a line of the same linux-block report: a soft lockup logged 600 times for the fio process
    line = "[ 1516.396298] CPU: 3 PID: 4152 Comm: fio Kdump: loaded Tainted: G             L     6.7.0+ #1"
    assert prefilter(line)
    text = "\n".join([line] * (FOCUS_MAX_LINES + 100) + ["the end"])
    assert len(text) < 64_000  # not long: only the cut could change it
    view = focus_view(View(text, {}))
    assert view.report_lines == 0 and view.text == text


def test_a_kernel_name_holding_a_tools_name_is_no_report_line():
    """iostat the tool passes; a kernel symbol, config option or word that holds its name does not.

    A 1.4 MB dmesg paste on linux-ext4 (<CANubcdV32L71ARCznZgKdrt0BmSyOYwW50L17zP=TG4PO2MH4Q@mail.gmail.com>,
    2024-08-07) holds "blk_iostat_count" on 19 of its 9,120 lines: each kept 81 lines of the log
    for the extractors.  The test robot's config attachments hold CONFIG_..._IOSTAT options.
    """
    from lkmlkb.extract.prefilter import prefilter, prefilter_lines

    assert not prefilter("[140120.613653] blk_iostat_count: 1 callbacks suppressed")
    assert not prefilter("CONFIG_F2FS_IOSTAT=y")
    # a kernel config pasted on linux-ext4 (<2101963.Mh6RI2rZIc@falcon9>, 2022-03)
    assert not prefilter("# end of Digital potentiostats")
    # Konstantin Khlebnikov's stgit series (<158314549775.1788.6529015932237292177.stgit@buzz>, 2020-03)
    assert prefilter("iostat -x 10 sdb")
    assert prefilter('Note changes of iostat\'s "%util" before/after')
    lines = ["[140120.613653] blk_iostat_count: 1 callbacks suppressed", "$ iostat -tmd /dev/sda 3"]
    assert prefilter_lines("\n".join(lines), lines) == [1]


def test_prefilter_lines_are_the_lines_prefilter_passes_on_random_text():
    # the regex is first tried where a found word's match can start in the text itself: a line
    # passes exactly when prefilter passes it (words that fail where first found, "fios fio",
    # units glued to a word, run status spelled across a case twin, lines lower() lengthens)
    import random

    from lkmlkb.extract.prefilter import prefilter, prefilter_lines

    rng = random.Random(21)
    pieces = [
        "fio",
        "fios",
        "xfio",
        "fio-3.35",
        " ",
        " ",
        "KiB/s",
        "ab/s",
        "MB/s",
        "mb/sec",
        "iops",
        "IOPS",
        "Run status group",
        "run",
        " status ",
        "group",
        "regress",
        "bisect",
        "test robot",
        "lkp",
        "%change",
        "\u0130",
        "\u212a",
        "x",
        "=",
        "bw=",
        "\t",
        "iostat",
        "dbench",
        "lkp@intel.com",
    ]
    for _ in range(1500):
        lines = [
            "".join(rng.choice(pieces) for _ in range(rng.randrange(8))) for _ in range(rng.randrange(1, 12))
        ]
        text = "\n".join(lines)
        assert prefilter_lines(text, lines) == [i for i, ln in enumerate(lines) if prefilter(ln)], lines


# a fio output line of seed 000 (corpus/000_a3585e8f2465c212.txt), quote marker removed
IOPS_LINE = "    write: IOPS=1884, BW=236MiB/s (247MB/s)(138GiB/600319msec); 0 zone resets"


def _numbered_report(n: int) -> str:
    """``n`` fio output lines, each with its own IOPS figure (1000 + its number)."""
    return "\n".join(IOPS_LINE.replace("1884", str(1000 + i)) for i in range(n))


def test_a_view_is_read_up_to_its_500th_line_that_can_hold_a_report():
    from lkmlkb.extract.views import FOCUS_MAX_LINES, FOCUS_RADIUS, View, focus_view

    assert FOCUS_MAX_LINES == 500
    text = _numbered_report(FOCUS_MAX_LINES + 100) + "\nthe end"
    assert len(text) < 64_000  # cut although short: the limit counts lines, not characters
    view = focus_view(View(text, {}))
    assert view.report_lines == FOCUS_MAX_LINES + 100
    lines = view.text.split("\n")
    assert len(lines) == FOCUS_MAX_LINES + 101
    last_read = FOCUS_MAX_LINES - 1 + FOCUS_RADIUS
    assert lines[: last_read + 1] == text.split("\n")[: last_read + 1]
    assert lines[last_read + 1 :] == [""] * (len(lines) - last_read - 1)


def test_a_view_with_500_such_lines_is_read_whole():
    from lkmlkb.extract.views import FOCUS_MAX_LINES, View, focus_view

    view = View(_numbered_report(FOCUS_MAX_LINES) + "\nthe end", {})
    assert focus_view(view) is view


def test_a_cut_message_keeps_what_it_read_and_is_recorded_as_cut():
    from lkmlkb.extract.views import FOCUS_MAX_LINES, FOCUS_RADIUS

    body = "fio regression on v6.8\n" + _numbered_report(3 * FOCUS_MAX_LINES)
    f, passed = extract_message(Message("cut@example.invalid", subject="fio", body=body), segment_body(body))
    assert passed
    iops = {r.evidence.line_start: r.value for r in f.results if r.metric == "iops"}
    # line k + 1 of the body holds IOPS=1000+k; line 0 passes the prefilter too, so body line 499
    # is the 500th report line, and the 40 lines after it are read as its neighbours
    assert iops[1] == 1000 and iops[FOCUS_MAX_LINES - 1] == 1000 + FOCUS_MAX_LINES - 2
    assert max(iops) == FOCUS_MAX_LINES - 1 + FOCUS_RADIUS
    assert f.errors == {
        "focus": "cut: 1,501 lines can hold a report, over the limit of 500; "
        "read up to the 500th and the 40 lines after it"
    }


def test_a_view_whose_report_lines_past_the_500th_lie_near_it_is_read_whole():
    # 501 such lines, the last within the neighbourhood of the 500th: nothing is left unread
    from lkmlkb.extract.views import FOCUS_MAX_LINES, View, focus_view

    view = View(_numbered_report(FOCUS_MAX_LINES + 1) + "\nthe end", {})
    assert focus_view(view) is view


def test_a_long_view_is_cut_at_its_500th_report_line_too():
    """A 60,000-line log (3.9 MB) with a report line every 100 lines: the first 500 are read with
    their neighbourhoods, the ones after are blank as is the log far from any."""
    from lkmlkb.extract.views import FOCUS_MAX_LINES, FOCUS_RADIUS, View, focus_view

    log_line = "[ 1095.583057] nvme nvme0: invalid id 49408 completed on queue 4"
    lines = [log_line] * 60_000
    for i in range(0, 60_000, 100):
        lines[i] = IOPS_LINE
    view = focus_view(View("\n".join(lines), {}))
    assert view.report_lines == 600
    out = view.text.split("\n")
    last = (FOCUS_MAX_LINES - 1) * 100
    assert out[last] == IOPS_LINE and out[last + FOCUS_RADIUS] == log_line
    assert out[last + FOCUS_RADIUS + 1] == "" and out[last + 100] == "" and out[-100] == ""
    assert out[50] == "" and out[40] == log_line


@pytest.mark.parametrize(
    "line,passes",
    [
        # dm-devel and linux-block, "Re: Revert "dm: always call blk_queue_split() in dm_process_bio()""
        # (Mike Snitzer quoting Vijayendra Suman's report, 2020-09-10,
        # <20200910142438.GA21919@redhat.com>): a report with pgbench's output and no unit word
        ("   Following performance degrade is found out", True),
        ("   While Running pgbench tool with  5.4.17 kernel build", True),
        # linux-btrfs and linux-block: other benchmarks a report names, and the plural
        ("The regression was discovered in AIM7 and later by Andres in ext4.", True),
        ("sysbench oltp_read_write drops by a third", True),
        ("we saw performance degradations on the hackbench runs", True),
        ("Here are the will-it-scale numbers", True),
        # a degraded array, an aim, a bench of the kitchen kind: no report vocabulary
        ("The array is degraded and resyncing", False),
        ("We aim to merge this for 6.9", False),
        ("a test bench for the new controller", False),
        # time(1)'s output indented under the command (linux-xfs, "XFS mount timeout in
        # linux-6.9.11", 2024-08), quoted, and a word that only ends in "real"
        ("    # time mount /dev/vg1/test /test\n    real\t0m0.835s", True),
        ("> real    0m12.337s", True),
        ("surreal 0m1s", False),
        # a speed said to have got worse, its noun after the word or before it, in the logs of
        # fixes (Fixes: tags) that name no unit: ceph-devel, "[PATCH 5/5] ceph: Fix write storm
        # on fscrypted files" (2025-12); linux-hyperv, iommu, linux-mmc and linux-btrfs fixes
        ("many, with 4MiB objects) and grossly degraded performance.", True),
        ("This results in bad I/O performance since IOMMU AVIC always generate GA Log", True),
        ("This mistake evidently causes losses of throughput in scenarios with", True),
        ("Yanhui found that write performance is degraded a lot after applying", True),
        ("timed out) this hurts SD card read performance a bit (in my tests", True),
        ("Without the metadata over-commit, it suffers from lower performance because", True),
        ("throughput drops significantly when the queue is shared", True),
        # variants
        ("the poor write throughput we see on the array", True),
        ("bandwidth was roughly halved", True),
        # what gets better, or a word of a drop that is no speed
        ("This change reduces latency if the queue is idle", False),
        ("and improved performance due to reduced overhead", False),
        ("to either drop performance or bandwidth votes or to disable", False),
        ("a bad block on the disk", False),
        ("It gives lower latency/higher throughput on NVMe", False),
    ],
)
def test_a_reports_benchmark_or_degrade_passes_the_prefilter(line, passes):
    from lkmlkb.extract.prefilter import prefilter

    assert prefilter(line) is passes


#: rows of the kernel test robot's "[linux-next:master] [btrfs] 28270e25c6:
#: fxmark.ssd_btrfs_MWUM_72_bufferedio.works/sec -90.4% regression" (linux-btrfs, 2023-10-25,
#: 202310251607.fb6746aa-oliver.sang@intel.com): a 175 KB report whose table holds hundreds of
#: monitor rows before the benchmark's own, sorted by name
LKP_HEADER_LINES = [
    "28270e25c6 (robot's columns)",
    "         %stddev     %change         %stddev",
    "             \\          |                \\  ",
]
LKP_MONITOR_ROW = (
    "      4.25 ± 12%    -100.0%       0.00        perf-sched.wait_time.avg.ms.wait_current_trans.n{}"
)
LKP_HEADLINE_ROW = (
    "      1911 ± 48%     -90.4%     182.60 ±  5%  fxmark.ssd_btrfs_MWUM_72_bufferedio.works/sec"
)


@pytest.mark.parametrize("monitors", [60, 900])
def test_a_robot_table_stays_whole_in_a_long_view(monitors):
    """The header passes the prefilter, the rows do not: in a view over 64 KB (or past its
    500th line that can hold a report) the rows far below the header are the benchmark's own."""
    from lkmlkb.extract.results import find_results
    from lkmlkb.extract.views import View, focus_view

    prose = [
        "kernel test robot noticed a -90.4% regression of fxmark.ssd_btrfs_MWUM_72_bufferedio.works/sec on:"
    ]
    rows = [LKP_MONITOR_ROW.format(k) for k in range(monitors)] + [LKP_HEADLINE_ROW]
    # a long report: a perf profile past the table, far from anything the prefilter passes
    profile = [
        f"      0.{k % 97:02d} ±  9%      +0.1        0.{k % 89:02d}        perf-profile.self.cycles-pp.f{k}"
        for k in range(1500)
    ]
    text = "\n".join(prose + [""] * 3 + LKP_HEADER_LINES + rows + [""] + profile) + "\n"
    assert len(text) > 64_000
    focused = focus_view(View(text, {})).text
    headline = [r.value for r in find_results(focused) if r.metric.endswith("MWUM_72_bufferedio.works/sec")]
    assert headline == [1911, 182.6]
    # the profile below the table's blank line is still blanked
    assert "perf-profile.self.cycles-pp.f1400" not in focused


def test_a_robot_tables_monitors_past_the_benchmarks_rows_are_not_read_in_a_long_view():
    """The layout of 2021 puts the benchmark's rows first, then thousands of monitor rows
    ("[fsnotify] 4c40d6efc8: unixbench.score -3.3% regression", linux-ext4, 2021-08-03,
    <20210803142225.GA28609@xsang-OptiPlex-9020>: 3,500 rows): the table is read to the last
    benchmark row, the monitors past it are left to the view's radius."""
    from lkmlkb.extract.results import find_results
    from lkmlkb.extract.views import FOCUS_RADIUS, View, focus_view

    prose = [
        "FYI, we noticed a -3.3% regression of unixbench.score due to commit:",
        "",
        "in testcase: unixbench",
    ]
    rows = [
        "      1562            +8.0%       1688        unixbench.score",
        "    390.37            +0.0%     390.37        unixbench.time.elapsed_time",
    ] + [
        f"      4.25 ± 12%    -100.0%       0.00        perf-sched.wait_time.avg.ms.n{k}" for k in range(3000)
    ]
    text = "\n".join(prose + [""] * 3 + LKP_HEADER_LINES + rows) + "\n"
    assert len(text) > 64_000
    focused = focus_view(View(text, {})).text
    assert [r.value for r in find_results(focused) if r.metric == "unixbench.score"] == [1562, 1688]
    assert "perf-sched.wait_time.avg.ms.n5\n" in focused  # within the header's radius
    assert f"perf-sched.wait_time.avg.ms.n{FOCUS_RADIUS * 2}\n" not in focused
    assert "perf-sched.wait_time.avg.ms.n2999" not in focused
