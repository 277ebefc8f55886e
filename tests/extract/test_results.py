"""find_results on the seed threads: every headline result in ../shared/eval/seeds/*/gold.json
comes out (value within 1% after normalization, the gold's kernel where it names one); negatives:
a patch's diff, a stack trace and a hexdump give nothing; pathological input stays fast."""

import json
import time
from pathlib import Path

import pytest

from lkmlkb.extract.metric_units import normalize
from lkmlkb.extract.results import find_results

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "eval" / "seeds"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _gold_cases():
    for gold in sorted(SEEDS.glob("*/gold.json")):
        for g in json.loads(gold.read_text())["results"]:
            yield pytest.param(
                gold.parent.name,
                g,
                id="%s-%s%s-%s" % (gold.parent.name, g["value"], g["unit"], g.get("kernel")),
            )


def _close(r, g):
    gv, gu = normalize(g["value"], g["unit"])
    if gu is not None and r.normalized_unit == gu:
        return abs(r.normalized_value - gv) <= 0.01 * abs(gv)
    return abs(r.value - g["value"]) <= 0.005 * abs(g["value"])


def _kernel_ok(r, want):
    return want is None or (r.kernel is not None and (r.kernel.startswith(want) or want.startswith(r.kernel)))


@pytest.fixture(scope="module")
def seed_results():
    cache = {}

    def get(case):
        if case not in cache:
            cache[case] = find_results((SEEDS / case / "source.txt").read_text(encoding="utf-8"))
        return cache[case]

    return get


@pytest.mark.parametrize("case,gold", list(_gold_cases()))
def test_gold_result_found_with_its_kernel(seed_results, case, gold):
    found = [r for r in seed_results(case) if _close(r, gold)]
    assert found, "no result near %s %s" % (gold["value"], gold["unit"])
    assert any(_kernel_ok(r, gold.get("kernel")) for r in found), [(r.value, r.kernel) for r in found]


def test_gold_files_are_present():
    assert len(list(SEEDS.glob("*/gold.json"))) >= 5


def test_heading_attribution_and_revert_qualifier(seed_text):
    res = find_results(seed_text("000"))
    (revert,) = [r for r in res if r.metric == "bw" and r.value == 315 and "IOPS=" in r.evidence.text]
    assert revert.kernel == "6.8-rc7" and revert.config == "+revert"
    (plain,) = [r for r in res if r.metric == "bw" and r.value == 236 and "IOPS=" in r.evidence.text]
    assert plain.kernel == "6.8-rc7" and plain.config is None
    assert all(r.label is None for r in res)


def test_prose_kernel_skips_a_kernel_said_not_tested(seed_text):
    # corpus/003: "I applied c8ed1b359312 on 6.1.36." / "# the build/test of 6.5-rc1 is yet not ready."
    res = find_results(seed_text("003"))
    (r,) = [r for r in res if r.metric == "bw" and r.value == 2683]
    assert r.kernel == "6.1.36"
    (r,) = [r for r in res if r.metric == "bw" and r.value == 5139]
    assert r.kernel == "5.15.y"


def test_kernel_line_below_a_table_same_quote_level(seed_text):
    res = find_results(seed_text("001"))
    assert {r.kernel for r in res if r.metric == "iops" and r.value in (94000, 124000)} == {"5.12-rc7"}
    # the deeper-quoted scheduler table is not attributed to it
    assert {r.kernel for r in res if r.metric == "iops" and r.value in (423000, 450000)} == {None}


def test_quoted_repeats_are_one_result(seed_text):
    res = find_results(seed_text("002"))
    same = [r for r in res if r.value == pytest.approx(38.606667)]
    assert len(same) == 1
    # two different lines of one run stay apart: the job's "BW=236MiB/s" and the group's "bw=236MiB/s"
    res0 = find_results(seed_text("000"))
    lines = {
        r.evidence.line_start for r in res0 if r.direction == "write" and r.metric == "bw" and r.value == 236
    }
    assert len(lines) == 2


def test_patch_diff_numbers_are_not_results():
    text = (FIXTURES / "results_fio_verify_patch.txt").read_text()
    res = find_results(text)
    diff_at = text.split("\n").index("diff --git a/drivers/nvme/host/pci.c b/drivers/nvme/host/pci.c")
    assert res and all(r.evidence.line_end < diff_at for r in res)
    only_diff = "\n".join(text.split("\n")[diff_at:])
    assert find_results(only_diff) == []


def test_stack_trace_and_hexdump_are_not_results():
    text = """[  312.118271] WARNING: CPU: 2 PID: 4411 at block/blk-mq.c:1234 blk_mq_run_hw_queue+0x1c/0x40
[  312.118280] CPU: 2 PID: 4411 Comm: fio Not tainted 6.8.0-rc7 #1
[  312.118290] RIP: 0010:blk_mq_run_hw_queue+0x1c/0x40
Call Trace:
 <TASK>
 dd_insert_requests+0x1a4/0x2f0
 blk_mq_flush_plug_list+0x12c/0x5e0
00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF............
00000010  03 00 3e 00 01 00 00 00  40 10 00 00 00 00 00 00  |..>.....@.......|
"""
    assert find_results(text) == []


def test_evidence_is_the_text_as_written(seed_text):
    text = seed_text("003")
    lines = text.split("\n")
    for r in find_results(text):
        assert r.evidence.text == "\n".join(lines[r.evidence.line_start : r.evidence.line_end + 1])


@pytest.mark.parametrize(
    "text",
    [
        "| | |\n" * 10000,
        "5.17.0  WRITE: bw=" + "1" * 1_000_000,
        "6.8-rc7:\n" * 5000 + "  WRITE: bw=1MiB/s\n" * 2000,
        "\x00" * 100000,
    ],
    ids=["pipes", "megabyte-line", "many-headings-and-results", "nuls"],
)
def test_pathological_input_is_fast(text):
    t0 = time.thread_time()
    res = find_results(text)
    assert (
        time.thread_time() - t0 < 10.0
    )  # a hang guard (catastrophic backtracking), not a speed test: speed is in benchmarks/
    assert isinstance(res, list)


# the shape of a report timing a command again and again on two kernels (linux-ext4 reports
# paste `uname -a`, then time(1)'s output per run); written for the test
RUNS_UNDER_UNAME = """\
$ uname -a
Linux host1 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 x86_64 GNU/Linux
$ for i in 1 2 3; do time ./create-files; done

real    0m1.500s
user    0m0.041s
sys     0m1.420s

real    0m2.900s
user    0m0.035s
sys     0m2.800s

real    0m4.100s
user    0m0.035s
sys     0m4.000s

$ uname -a
Linux host2 5.10.0-26-amd64 #1 SMP Debian 5.10.197-1 x86_64 GNU/Linux
$ for i in 1 2 3; do time ./create-files; done

real    0m0.700s
user    0m0.031s
sys     0m0.650s

real    0m0.710s
user    0m0.031s
sys     0m0.660s
"""


def test_a_run_of_outputs_of_one_tool_shares_the_kernel_above_it():
    got = [(r.value, r.kernel) for r in find_results(RUNS_UNDER_UNAME) if r.tool == "time"]
    assert got == [
        (1.5, "6.1.0-13-amd64"),
        (2.9, "6.1.0-13-amd64"),
        (4.1, "6.1.0-13-amd64"),
        (0.7, "5.10.0-26-amd64"),
        (0.71, "5.10.0-26-amd64"),
    ]


# the shape of distro-upgrade reports (linux-btrfs 2024-01: "upgraded ... (from 4.15.0-36 linux
# kernel to 5.4.0-137)", then dd's summary twice with "vs" between); written for the test
UPGRADE_DD = """\
We moved our hosts from Debian 11 to 12 (from 5.10.0-26 kernel to
6.1.0-13). Since then writes are slower:

# dd if=/dev/zero of=/data/t.img bs=1G count=2 oflag=dsync
2147483648 bytes (2.1 GB, 2.0 GiB) copied, 2.5 s, 859 MB/s

vs

# dd if=/dev/zero of=/data/t.img bs=1G count=2 oflag=dsync
2147483648 bytes (2.1 GB, 2.0 GiB) copied, 3.2 s, 671 MB/s
"""


def test_two_outputs_after_a_change_of_kernel_were_measured_on_each_in_turn():
    got = [(r.metric, r.value, r.kernel) for r in find_results(UPGRADE_DD) if r.tool == "dd"]
    assert got == [
        ("throughput", 859.0, "5.10.0-26"),
        ("elapsed", 2.5, "5.10.0-26"),
        ("throughput", 671.0, "6.1.0-13"),
        ("elapsed", 3.2, "6.1.0-13"),
    ]


# the shape of a report timing one command under labelled conditions after naming its kernel
# once (GNU time -v output under "Baseline:" and "With the series ...:"); written for the test
LABELLED_RUNS_ON_ONE_KERNEL = """\
Everything below ran on a 6.2.0-rc3 build of our tree.
Baseline:
        Command being timed: "mkfs.xfs -f /dev/md0"
        Elapsed (wall clock) time (h:mm:ss or m:ss): 0:03.10
        Maximum resident set size (kbytes): 52136

With the series applied on top:
        Command being timed: "mkfs.xfs -f /dev/md0"
        Elapsed (wall clock) time (h:mm:ss or m:ss): 0:11.80
        Maximum resident set size (kbytes): 52140
"""


def test_a_labelled_run_keeps_its_label_and_takes_the_kernel_of_the_run_before():
    got = [
        (r.value, r.kernel, r.config) for r in find_results(LABELLED_RUNS_ON_ONE_KERNEL) if r.tool == "time"
    ]
    assert got == [(3.1, "6.2.0-rc3", "Baseline"), (11.8, "6.2.0-rc3", "With the series applied on top")]


def test_a_run_labelled_by_a_commit_or_kernel_does_not_take_the_kernel_before():
    text = LABELLED_RUNS_ON_ONE_KERNEL.replace("With the series applied on top", "With 3f1c2e9a7b44 reverted")
    got = [(r.value, r.kernel, r.config) for r in find_results(text) if r.tool == "time"]
    assert got == [(3.1, "6.2.0-rc3", "Baseline"), (11.8, None, "With 3f1c2e9a7b44 reverted")]


# hdparm's own summary under label lines that name a kernel after a word ("With 6.7:"): a variant
# of the label lines of the lists ("on 6.8-rc7 :", linux-block; "Linux 6.4.x:", linux-ext4 bug
# 217965) written for the pattern; the figure above a label is not its kernel
HDPARM_LABELS = """\
With 6.7:
 # hdparm -t /dev/sda
 Timing buffered disk reads: 1540 MB in  3.00 seconds = 513.21 MB/sec

With 6.8:
 # hdparm -t /dev/sda
 Timing buffered disk reads: 620 MB in  3.00 seconds = 206.55 MB/sec
"""


@pytest.mark.parametrize("gap", ["\n\n", "\n"])
def test_a_figure_takes_the_kernel_of_the_label_line_above_it(gap):
    text = HDPARM_LABELS.replace("MB/sec\n\n", "MB/sec" + gap)
    got = {(r.value, r.kernel) for r in find_results(text) if r.unit == "MB/sec"}
    assert got == {(513.21, "6.7"), (206.55, "6.8")}


def test_a_line_naming_kernels_without_a_colon_heads_no_figure():
    # a sentence that opens with releases is no label ("With 6.7:" is); the figure under it is the
    # sentence's own
    text = "6.7-rc1 and 6.8-rc1 were both tested on this box\nreads ran at 160MB/s\n"
    assert [(r.value, r.kernel) for r in find_results(text)] == [(160.0, None)]


# linux-ide, "Lower SSD-performance in 4.10 than in 4.9 kernel" (2021-02-12,
# <BbfdEUMvJf0RuP-kIWT8k4p1F9q1ZyFsmlmSgl4OJNTpDOCkbFJDU5wu8pzXRjEweu4oALYN7viS3fD1okrsD1mzuTU6_MHIYghPNDMjvMY=@protonmail.com>),
# trimmed: a shell session where `uname -r` prints the kernel each tool's output after it ran on
UNAME_SESSION = """\
`linux@linux`:~$ uname -r
4.9.255-0409255-generic
`linux@linux`:~$ hdparm -Ttv /dev/sda
[...]
Timing buffered disk reads: 1432 MB in  3.00 seconds = 476.88 MB/sec

`linux@linux:`~$ uname -r
4.10.0-041000rc1-generic
`linux@linux`:~$ hdparm -Ttv /dev/sda
[...]
Timing buffered disk reads: 1140 MB in  3.00 seconds = 379.78 MB/sec
"""


@pytest.mark.parametrize(
    "text",
    [
        UNAME_SESSION,
        # another prompt, and more of the tool's output between the kernel and the figure
        UNAME_SESSION.replace("`linux@linux`:~$ ", "[root@box ~]# ")
        .replace("`linux@linux:`~$ ", "[root@box ~]# ")
        .replace(
            "[...]\n",
            "\n/dev/sda:\n"
            + " multcount     = 16 (on)\n" * 8
            + " Timing cached reads:   12000 MB in  2.00 seconds\n",
        ),
    ],
)
def test_a_tools_output_was_measured_on_the_kernel_uname_printed_above_it(text):
    got = {(r.value, r.kernel) for r in find_results(text) if r.unit == "MB/sec"}
    assert got == {(476.88, "4.9.255-0409255-generic"), (379.78, "4.10.0-041000rc1-generic")}


def test_a_kernel_line_far_above_without_uname_heads_nothing():
    # a version line that is no label and no uname output, more lines up than a sentence's reach
    text = (
        "4.10.0-041000rc1-generic\n"
        + "dmesg line\n" * 8
        + "Timing buffered disk reads: 1140 MB in  3.00 seconds = 379.78 MB/sec\n"
    )
    assert {r.kernel for r in find_results(text) if r.unit == "MB/sec"} == {None}


@pytest.mark.parametrize(
    "text,want",
    [
        # linux-raid, "Re: [PATCH] md: Use optimal I/O size for last bitmap page" (2023-02): fio's
        # line under each label
        (
            "Without patch:\n  write: IOPS=1570, BW=6283KiB/s (6434kB/s)(368MiB/60001msec); 0 zone resets\n"
            "With patch:\n  write: IOPS=59.7k, BW=233MiB/s (245MB/s)(13.7GiB/60001msec); 0 zone resets\n",
            {(1570.0, "Without patch"), (59700.0, "With patch")},
        ),
        # linux-xfs, "[PATCH 6/6] xfs: reduce exclusive locking on unaligned dio" (2021-01): fio's
        # group summary under "Vanilla:" and "Patched:", a blank line between
        (
            "Vanilla:\n\n   READ: bw=4560KiB/s (4670kB/s), 4560KiB/s-4560KiB/s (4670kB/s-4670kB/s), io=267MiB (280MB), run=60001-60001msec\n\n"
            "Patched:\n\n   READ: bw=37.6MiB/s (39.4MB/s), 37.6MiB/s-37.6MiB/s (39.4MB/s-39.4MB/s), io=2256MiB (2365MB), run=60001-60001msec\n",
            {(4560.0, "Vanilla"), (37.6, "Patched")},
        ),
        # linux-block, "Re: CFQ idling kills I/O performance on ext4 with blkio cgroup" (2019-06):
        # dd's summary under a configuration's label
        (
            "With mq-deadline, I get:\n5120000 bytes (5.1 MB, 4.9 MiB) copied, 3.90981 s, 1.3 MB/s\n\n"
            "With bfq, I get:\n5120000 bytes (5.1 MB, 4.9 MiB) copied, 84.8216 s, 60.4 kB/s\n",
            {(1.3, "With mq-deadline, I get"), (60.4, "With bfq, I get")},
        ),
    ],
)
def test_output_under_a_label_line_has_its_condition(text, want):
    got = {(r.value, r.config) for r in find_results(text) if r.metric in ("bw", "iops", "throughput")}
    assert {(v, c) for v, c in got if v in {w[0] for w in want}} == want


@pytest.mark.parametrize(
    "text,want",
    [
        # io-uring (2023-03): fio's line under the commit it ran on, and under that commit with a
        # debugging patch
        (
            "584b0180f0:\n  write: IOPS=1004, BW=1008MiB/s (1057MB/s)(19.7GiB/20020msec); 0 zone resets\n\n"
            "584b0180f0 with my debugging patch:\n  write: IOPS=850, BW=853MiB/s (895MB/s)(17.1GiB/20474msec)\n",
            {(1008.0, "584b0180f0"), (853.0, "584b0180f0 with my debugging patch")},
        ),
        # variants: the side of a commit, and a commit named as such
        (
            "Before 0123456789ab:\n  write: IOPS=1004, BW=1008MiB/s (1057MB/s)(19.7GiB/20020msec)\n"
            "With commit 0123456789ab:\n  write: IOPS=850, BW=853MiB/s (895MB/s)(17.1GiB/20474msec)\n",
            {(1008.0, "Before 0123456789ab"), (853.0, "With commit 0123456789ab")},
        ),
    ],
)
def test_output_under_a_label_naming_a_commit_has_its_condition(text, want):
    got = {(r.value, r.config) for r in find_results(text) if r.metric in ("bw", "iops", "throughput")}
    assert {(v, c) for v, c in got if v in {w[0] for w in want}} == want


def test_a_label_naming_a_commit_alone_makes_it_the_results_kernel():
    # a run on a commit is a run on the kernel built from it (lkmlkb.reports.labels), and the
    # commit cited only so was tested
    from lkmlkb.extract.messages import extract_messages
    from lkmlkb.model import Message
    from lkmlkb.reports.build import build_report

    text = (
        "The regression reproduces on both devices.\n\n"
        "584b0180f0:\n  write: IOPS=1004, BW=1008MiB/s (1057MB/s)(19.7GiB/20020msec); 0 zone resets\n"
        "  write: IOPS=968, BW=971MiB/s (1018MB/s)(19.4GiB/20468msec); 0 zone resets\n"
    )
    assert {r.config for r in find_results(text)} == {"584b0180f0"}
    msg = Message(
        "m@x", subject="write regression on zoned devices", body=text, date_utc="2023-03-01T00:00:00+00:00"
    )
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    r = build_report(tid, msgs, findings)
    assert {(x.value, x.kernel) for x in r.results if x.metric == "bw"} == {
        (1008.0, "584b0180f0"),
        (971.0, "584b0180f0"),
    }
    assert {c.sha: c.role for c in r.commits} == {"584b0180f0": "tested"}


def test_every_line_of_a_block_under_a_label_has_its_condition():
    # io-uring (2023-03): five runs of fio under each label, one line each
    text = (
        "  584b0180f0:\n"
        "    write: IOPS=1004, BW=1008MiB/s (1057MB/s)(19.7GiB/20020msec); 0 zone resets\n"
        "    write: IOPS=968, BW=971MiB/s (1018MB/s)(19.4GiB/20468msec); 0 zone resets\n"
        "    write: IOPS=982, BW=986MiB/s (1033MB/s)(19.3GiB/20020msec); 0 zone resets\n"
        "\n"
        "  584b0180f0 with my debugging patch:\n"
        "    write: IOPS=850, BW=853MiB/s (895MB/s)(17.1GiB/20474msec); 0 zone resets\n"
        "    write: IOPS=738, BW=742MiB/s (778MB/s)(15.1GiB/20787msec); 0 zone resets\n"
    )
    got = {(r.value, r.config) for r in find_results(text) if r.metric == "bw"}
    assert got == {
        (1008.0, "584b0180f0"),
        (971.0, "584b0180f0"),
        (986.0, "584b0180f0"),
        (853.0, "584b0180f0 with my debugging patch"),
        (742.0, "584b0180f0 with my debugging patch"),
    }


def test_a_block_ends_at_a_blank_line():
    # the runs after a blank line are no longer the label's: another run, said in words below
    text = (
        "Without patch:\n  write: IOPS=1570, BW=6283KiB/s (6434kB/s)(368MiB/60001msec)\n\n"
        "  write: IOPS=1580, BW=6320KiB/s (6472kB/s)(370MiB/60001msec)\n"
    )
    assert {(r.value, r.config) for r in find_results(text) if r.metric == "bw"} == {
        (6283.0, "Without patch"),
        (6320.0, None),
    }


def test_a_label_two_lines_up_or_in_another_quote_level_heads_nothing():
    far = "Without patch:\nthe box was idle.\n  write: IOPS=1570, BW=6283KiB/s (6434kB/s)(368MiB/60001msec)\n"
    assert all(r.config is None for r in find_results(far))
    quoted = "> Without patch:\n  write: IOPS=1570, BW=6283KiB/s (6434kB/s)(368MiB/60001msec)\n"
    assert all(r.config is None for r in find_results(quoted))


# a heading naming the kernel over a block of a tool's output, no sentence between: dbench's table and
# summary under "result of 6.6.15(rc1)" (linux-btrfs, 2024-01-31, Wang Yugui), pv's lines under "kernel
# 5.15.46" and a bare "6.0.15" (linux-btrfs, 2023-01-27, Jorge Bastos); trimmed, and variants
DBENCH_BLOCK = """\
result of 6.6.15(rc1)
 Operation      Count    AvgLat    MaxLat
 ----------------------------------------
 NTCreateX     430533     0.014    63.764
 WriteX        214235     0.978    86.843

Throughput 225.11 MB/sec (sync open)  4 clients  4 procs  max_latency=86.861 ms
"""
PV_BLOCK = """\
kernel 5.15.46

single
13.5GiB 0:00:28 [ 487MiB/s]

6.0.15
raid1
13.5GiB 0:00:38 [ 359MiB/s]
"""


@pytest.mark.parametrize(
    "text,want",
    [
        (DBENCH_BLOCK, {(225.11, "6.6.15"), (86.861, "6.6.15")}),
        (DBENCH_BLOCK.replace("result of", "results for"), {(225.11, "6.6.15"), (86.861, "6.6.15")}),
        (PV_BLOCK, {(487.0, "5.15.46"), (359.0, "6.0.15")}),
    ],
)
def test_a_heading_over_a_tools_output_names_its_kernel(text, want):
    assert {(r.value, r.kernel) for r in find_results(text)} == want


@pytest.mark.parametrize(
    "text",
    [
        # a sentence between the heading and the figure: the figure is the sentence's
        DBENCH_BLOCK.replace(
            "\nThroughput", "\nThe box was rebooted and the test run again after that.\nThroughput"
        ),
        # a heading that is itself a sentence
        DBENCH_BLOCK.replace(
            "result of 6.6.15(rc1)", "result of 6.6.15 was not what I expected here at all."
        ),
    ],
)
def test_a_heading_with_prose_between_names_no_kernel(text):
    assert {r.kernel for r in find_results(text)} == {None}
