"""find_fio_output on real fio output: the seed threads, a patch mail from the linux-block
2024q1 archive sample, and terse/JSON output written by fio 3.33 (fixtures name their source)."""

import time
from pathlib import Path

import pytest

from lkmlkb.extract.fio_output import find_fio_output, logical_lines, prepare_lines

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pick(results, metric, direction=None, value=None):
    return [
        r
        for r in results
        if r.metric == metric
        and (direction is None or r.direction == direction)
        and (value is None or r.value == pytest.approx(value))
    ]


def test_seed_000_quoted_write_job_block(seed_text):
    text = seed_text("000")
    res = find_fio_output(text)
    (bw,) = [r for r in pick(res, "bw", "write", 236) if "IOPS=" in r.evidence.text]
    assert bw.unit == "MiB/s" and bw.tool == "fio"
    assert bw.normalized_unit == "B/s" and bw.normalized_value == pytest.approx(236 * 2**20)
    assert text.split("\n")[bw.evidence.line_start] == bw.evidence.text
    assert pick(res, "iops", "write", 1884)
    (clat,) = pick(res, "clat", "write", 1602.56)
    assert clat.unit == "msec" and clat.stddev == pytest.approx(339.05)
    assert clat.normalized_value == pytest.approx(1602560.0)
    assert pick(res, "clat_p99", "write", 2869)
    assert pick(res, "cpu_sys", "write", 0.16)
    assert pick(res, "bw", "write", 315) and pick(res, "iops", "write", 2518)


def test_seed_000_wrapped_run_status_line_is_joined(seed_text):
    text = seed_text("000")
    res = find_fio_output(text)
    (read448,) = pick(res, "bw", "read", 448)
    assert read448.evidence.line_end == read448.evidence.line_start + 1
    assert "io=263GiB" in read448.evidence.text


def test_seed_000_disk_stats_and_no_guessing_at_a_site_local_summary(seed_text):
    res = find_fio_output(seed_text("000"))
    utils = {(r.config, r.value) for r in res if r.metric == "util"}
    assert ("dm-1", 98.28) in utils and ("sdf", 86.71) in utils  # wrapped "util=86.71%" line
    assert pick(res, "iops", "write", 1884)  # from fio's own "write: IOPS=1884" line
    # "Throughput Results: READ:470:3582:0" is the reporter's own harness, whose columns no text
    # names: no figure is read from it (one seed's format is no rule for mail in general)
    assert not pick(res, "bw", "read", 470) and not pick(res, "iops", "read", 3582)


def test_seed_003_inline_group_lines_and_progress(seed_text):
    res = find_fio_output(seed_text("003"))
    bws = sorted(r.value for r in pick(res, "bw", "write"))
    assert bws == [2579, 2599, 2643, 2683, 3055, 3225, 4988, 5139, 5165, 5511]
    assert pick(res, "bw_progress", "write", 5168)[0].unit == "MiB/s"
    assert pick(res, "iops_progress", "write", 4884)


def test_patch_mail_commit_message_output_but_not_the_diff():
    text = (FIXTURES / "results_fio_verify_patch.txt").read_text()
    res = find_fio_output(text)
    # job header (wrapped with a tab) says rw=randwrite: directions are refined
    assert pick(res, "bw", "randread", 21.8) and pick(res, "iops", "randwrite", 2608)
    (clat,) = pick(res, "clat", "randread")
    assert clat.unit == "nsec" and clat.normalized_value == pytest.approx(5377.07699)
    (util,) = pick(res, "util")
    assert util.config == "nvme0n1" and util.value == 99.30
    diff_start = text.split("\n").index("diff --git a/drivers/nvme/host/pci.c b/drivers/nvme/host/pci.c")
    assert all(r.evidence.line_start < diff_start for r in res)


def test_terse_v3():
    res = find_fio_output((FIXTURES / "results_fio_terse_v3.txt").read_text())
    (rbw,) = pick(res, "bw", "read")
    assert rbw.value == 3984000 and rbw.unit == "KiB/s" and rbw.config == "rr"
    assert pick(res, "iops", "write", 1052000)
    assert pick(res, "clat", "write", 0.042414)[0].unit == "usec"


def test_json_output_bw_is_kib():
    text = (FIXTURES / "results_fio_json.txt").read_text()
    res = find_fio_output(text)
    (bw,) = pick(res, "bw")
    assert bw.direction == "write" and bw.value == 8192000
    assert bw.normalized_value == pytest.approx(8388608000)  # matches fio's bw_bytes
    assert '"write" : {' in bw.evidence.text.split("\n")[0]
    assert not pick(res, "bw", "read")  # the read side moved no bytes


def test_logical_lines_do_not_swallow_a_kernel_heading(seed_text):
    # corpus/003: "fio WRITE: bw=5139MiB/s (5389MB/s)," is followed by "6.4-rc3 result"
    lines = prepare_lines(seed_text("003"))
    joined = [t for a, b, t in logical_lines(lines) if "5139MiB/s" in t]
    assert joined and "6.4-rc3" not in joined[0]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x00 READ: bw=\x00",
        "WRITE: bw=" + "9" * 1_000_000,
        "| | |\n" * 10000,
        "Run status group 0 (all jobs):\n" + "  WRITE: bw=1MiB/s, " * 50000,
        '{\n"fio version" : 1,\n' + "[" * 5000,
        "Disk stats (read/write):\n" + "  sda: ios=1/1, util=" + "1" * 5000,
    ],
    ids=[
        "empty",
        "nuls",
        "megabyte-number",
        "pipes-10000-lines",
        "50000-group-items",
        "unclosed-json",
        "megabyte-util",
    ],
)
def test_garbage_is_fast_and_harmless(text):
    t0 = time.thread_time()
    res = find_fio_output(text)
    assert (
        time.thread_time() - t0 < 10.0
    )  # a hang guard (catastrophic backtracking), not a speed test: speed is in benchmarks/
    assert isinstance(res, list)


def test_stack_trace_and_hexdump_give_nothing():
    # shapes from oops reports on linux-block: stack frames, registers, a hexdump
    text = """[  123.456789] CPU: 3 PID: 1234 Comm: fio Not tainted 6.8.0-rc7 #1
[  123.456790] Call Trace:
 blk_mq_run_hw_queue+0x1c/0x40
 write: IOPS=1884, BW=236MiB/s+0x1c/0x40
RIP: 0010:dd_dispatch_request+0x2c/0x240
00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF............
"""
    assert find_fio_output(text) == []
