"""The cheap per-line word tests in front of the extractors' regular expressions.

A word test may only skip a line that the patterns behind it cannot match, so
each finder is compared with the plain loop it replaced (every rule on every
line) over the real mail of corpus/ and tests/fuzz/corpus/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from extract_oracles import setup_every_line, tools_every_line

from lkmlkb.extract import CASE_TWINS, setup

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted(
    p for d in (ROOT / "corpus", ROOT / "tests" / "fuzz" / "corpus") for p in d.iterdir() if p.is_file()
)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_word_tests_skip_no_fact_of_real_mail(path):
    text = path.read_text(errors="replace")
    assert setup.find_setup(text) == setup_every_line(text)
    assert setup.find_tools(text) == tools_every_line(text)


@pytest.mark.parametrize(
    "line",
    [
        # one line per rule alternative, in every case the patterns accept
        "echo MQ-DEADLINE > /sys/block/sda/queue/scheduler",
        "Anticipatory",
        "elevator=NONE",
        "with None",
        "mounted EXFAT and VFAT and OCFS2 and nfs4",
        "relatime,nodiscard,dax=always,journal_async_commit,inode64",
        "vm.dirty_expire_centisecs=3000 io_poll_delay=-1 prio_aging_expire: 10 iodepth_batch=8",
        "echo 2 >> /sys/block/nvme0n1/queue/rq_affinity",
        "insmod null_blk nr_devices=2",
        "4 SAS disks, 2 hard disks, rotational disk, 1HDD, nullb0, ram0, zram1, pmem0, /dev/sdb1 here",
        "dm-multipath MPATHA LVM2 md-raid5 software RAID LUKS dm-cache NVMe-oF nvme-tcp iSCSI virtio_blk losetup",
        "loop0 device",
        "Test Machine: 8 cores AMD EPYC 7763 with 64G memory",
        "hw threads 2 NUMA nodes",
        "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz, 16 GiB DRAM, 512 MB mem",
        "nvme3n1p2 on NVMe SSD, PCIe3 NVMe SSD, 3 SSDs, SATA HDD, dm-1, scsi_debug, null_blk, brd",
        "sdad: ios=1",
    ],
)
def test_word_tests_keep_every_alternative(line):
    assert setup.find_setup(line) == setup_every_line(line)
    assert setup.find_setup(line)


@pytest.mark.parametrize(
    "name",
    [
        "low_latency",
        "slice_idle",
        "slice_sync",
        "slice_async",
        "quantum",
        "group_idle",
        "fifo_batch",
        "writes_starved",
        "read_expire",
        "write_expire",
        "back_seek_max",
        "queue_depth",
        "nr_requests",
        "read_ahead_kb",
        "max_sectors_kb",
        "rq_affinity",
        "nomerges",
        "wbt_lat_usec",
        "io_poll",
        "add_random",
        "rotational",
        "iostats",
        "strict_guarantees",
        "async_depth",
        "prio_aging_expire",
        "nr_hw_queues",
        "hctx",
        "dirty_ratio",
        "dirty_background_ratio",
        "vm.dirty_bytes",
        "nr_open",
        "iodepth_batch",
    ],
)
def test_every_tunable_name_passes_the_word_test(name):
    # the names of _TUNABLE_RE, as "2.6.32-rc6,low_latency=0" (corpus/002) writes one
    assert ("tunable", f"{name}=0") in {(f.key, f.value) for f in setup.find_setup(f"2.6.32-rc6,{name}=0")}


def _lines(words: setup._WordLines, which: tuple[str, ...]) -> set[int]:
    """The lines find_setup reads for ``which``: one pass for the words, then those lines."""
    return words.lines_of(words.word_lines(setup._WordSet(list(which))), which)


def test_word_lines_on_a_robot_report():
    # trimmed from <202401312320.a335db14-oliver.sang@intel.com> (linux-block 2024-01-31)
    text = (
        "kernel test robot noticed a -72.9% regression of fio.write_iops on:\n"
        "\n"
        "test machine: 64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz (Ice Lake)\n"
        "      fs: xfs\n"
    )
    words = setup._WordLines(text)
    assert _lines(words, ("fio",)) == {0}
    assert _lines(words, ("intel", "cpu")) == {2}
    assert _lines(words, ("fs",)) == {3}
    assert _lines(words, ("bfq",)) == set()


def test_word_lines_always_give_non_ascii_lines():
    # "\u017f" (long s) matches "s" case-insensitively but lowercases to itself: the line must be tried
    text = "plain line\n2 \u017fATA drives\n"
    assert _lines(setup._WordLines(text), ("sata",)) == {1}
    assert setup.find_setup(text) == setup_every_line(text)


def test_case_twins_are_every_non_ascii_character_ignorecase_takes_for_a_letter():
    every = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    twins = set(re.findall("[a-z]", every, re.IGNORECASE))
    assert twins == set(CASE_TWINS.pattern.strip("[]"))


def test_word_lines_rule_out_non_ascii_lines_without_the_word():
    # trimmed from the table of <202401312320.a335db14-oliver.sang@intel.com>: "±" makes the lines non-ASCII
    text = (
        "     21.21 \u00b1  5%     -72.9%       5.75 \u00b1  2%  fio.write_iops\n"
        "      0.02 \u00b1 10%      +0.1        0.12 \u00b1 12%  perf-profile.children.cycles-pp.xfs_file_write_iter\n"
    )
    words = setup._WordLines(text)
    assert _lines(words, ("fio",)) == {0}
    assert _lines(words, ("fs",)) == {1}
    assert _lines(words, ("bfq",)) == set()
    assert setup.find_setup(text) == setup_every_line(text)


@pytest.mark.parametrize(
    "line,arrow",
    [
        (
            "old: 554 IOPS \u2192 new: 535 IOPS (~-3.4%)",
            True,
        ),  # the pairs module's own example, from a user's summary
        ("read bw 2.5 GB/s -> 1.9 GB/s", True),
        ("went from 10 ms to 14 ms", True),
        ("READ: bw=448MiB/s (470MB/s), 448MiB/s-448MiB/s", False),  # corpus/000: fio output, no pair
    ],
)
def test_has_arrow_is_the_pair_patterns_cheap_test(line, arrow):
    from lkmlkb.extract import pairs

    assert pairs._has_arrow(line) is arrow
    if not arrow:
        assert not pairs.PAIR.match(line.strip())


# --- filled lines: the line finders of results/tables/fio_output skip lines whose text is empty ---


def test_filled_lines_of_a_dmesg_paste():
    # trimmed from <CAGS2=YpgcBdW==T=jWXNWePYg2y0c-XsyMxvi5x5hU-cWGXuRw@mail.gmail.com> (linux-block
    # 2024 Q1): dmesg lines are blanked as noise, the pipeline's focus leaves thousands of empty lines
    from lkmlkb.extract.fio_output import filled_lines, prepare_lines

    text = (
        "Found a error while  run fio nvme_pi testing,  please have a look.\n\n"
        "[ 1093.216195] DMAR: DRHD: handling fault status reg 2\n"
        "fault addr 0x5000 [fault reason 0x06] PTE Read access is not set\n"
        "> \n" + "\n" * 5 + "kernel parameter\n"
    )
    lines = prepare_lines(text)
    assert lines.filled == [0, 3, 10]
    assert filled_lines(list(lines)) == [0, 3, 10]  # a plain list (a test's own lines) is counted


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_logical_lines_from_filled_lines_are_the_non_empty_ones(path):
    from lkmlkb.extract.fio_output import filled_lines, logical_lines, prepare_lines

    lines = prepare_lines(path.read_text(errors="replace"))
    assert logical_lines(lines, filled_lines(lines)) == [x for x in logical_lines(lines) if lines[x[0]].text]


def test_empty_lines_still_end_a_percentile_section():
    # trimmed from corpus/000 (fio 3 normal output), an empty line put before the second row:
    # the "|" row after it is not read as percentiles any more
    from lkmlkb.extract.fio_output import find_normal_output, prepare_lines

    text = (
        "      clat percentiles (msec):\n"
        "       |  1.00th=[  986],  5.00th=[ 1167], 10.00th=[ 1250], 20.00th=[ 1368],\n"
        "\n"
        "       | 30.00th=[ 1435], 40.00th=[ 1502], 50.00th=[ 1569], 60.00th=[ 1636],\n"
    )
    got = [(r.metric, r.value) for r in find_normal_output(prepare_lines(text))]
    assert got == [("clat_p1", 986.0), ("clat_p5", 1167.0), ("clat_p10", 1250.0), ("clat_p20", 1368.0)]
    whole = text.replace("\n\n", "\n")
    assert len(find_normal_output(prepare_lines(whole))) == 8


def test_device_cue_passes_over_nvme_dmesg_lines():
    # trimmed from <CAGS2=YpgcBdW==T=jWXNWePYg2y0c-XsyMxvi5x5hU-cWGXuRw@mail.gmail.com> (linux-block 2024 Q1):
    # 200 lines like these named "nvme" and were all tried by the device and stack patterns
    text = (
        "[ 1095.581436] nvme nvme0: request 0x100 genctr mismatch (got 0xc expected 0xd)\n"
        "[ 1095.582370] nvme nvme0: invalid id 49408 completed on queue 4\n"
        "./fio/t/nvmept_pi.py --dut /dev/ng0n1 on nvme0n1\n"
    )
    words = setup._WordLines(text)
    assert set(words.cased_starts(setup._DEVICE_CUE)) == {2}
    assert _lines(words, dict(setup._SETUP_RULES)[setup._stack_facts]) == set()
    assert setup.find_setup(text) == setup_every_line(text)
    assert [f.value for f in setup.find_setup(text)] == ["nvme0n1"]


def test_iter_lines_gives_the_lines_in_order():
    # trimmed from <202401312320.a335db14-oliver.sang@intel.com>: find_tools stops at the first line that matches
    text = "kernel test robot noticed\n\u00b1 fio.write_iops \u017f\n  fio.write_bw_MBps\n"
    assert list(setup._WordLines(text).iter_lines(("fio",))) == [
        1,
        1,
        2,
    ]  # the case-twin line, then the lines in order
    assert setup.find_tools(text) == tools_every_line(text) == ["fio", "lkp"]


@pytest.mark.parametrize(
    "line,cue",
    [
        ("old: 554 IOPS \u2192 new: 535 IOPS (~-3.4%)", True),  # the pairs module's own example
        ("read bw 2.5 GB/s -> 1.9 GB/s", True),
        ("went from 10 ms to 14 ms", True),
        ("94k to 80k IOPS", True),
        # trimmed from <CAHj4cs8tbDwKRwfS1=DmooP73ysM__xAb2PQc6XsAmWR+VuYmg@mail.gmail.com> (blktests nbd/003 dmesg)
        ("[ 1960.192975] EXT4-fs (nbd0): unable to read superblock", False),
        ("[ 1960.194390] nbd0: detected capacity change from 0 to 20971520", True),
    ],
)
def test_pair_cue_is_the_pair_patterns_necessary_part(line, cue):
    from lkmlkb.extract import pairs

    assert bool(pairs.PAIR_CUE.search(line)) is cue
    if pairs.PAIR.match(line.strip()):
        assert cue


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_pair_cue_skips_no_pair_of_real_mail(path):
    from lkmlkb.extract import pairs

    for line in path.read_text(errors="replace").split("\n"):
        if len(line) <= pairs.MAX_LINE and pairs.PAIR.match(line.strip()):
            assert pairs._has_arrow(line) and pairs.PAIR_CUE.search(line), line
        if pairs.HEADING.match(line):
            assert line.rstrip().endswith(":")


@pytest.mark.parametrize(
    "line,cue",
    [
        # the robot's reply of linux-block 2024-01-31, quoted in results._tested_commit's docstring
        ("I attached a dmesg and 2 outputs while running tests on 574e7779cf", True),
        ("results on commit 1a2b3c4d", True),
        ("the test ran on the same machine", False),
    ],
)
def test_on_sha_cue_is_the_tested_commit_patterns_necessary_part(line, cue):
    from lkmlkb.extract import results

    assert bool(results._ON_SHA_CUE.search(line)) is cue
    assert bool(results._TESTED_ON_COMMIT.search(line)) is cue


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_on_sha_cue_skips_no_tested_commit_of_real_mail(path):
    from lkmlkb.extract import results

    for line in path.read_text(errors="replace").split("\n"):
        if results._TESTED_ON_COMMIT.search(line):
            assert results._ON_SHA_CUE.search(line), line


@pytest.mark.parametrize(
    "row",
    [
        # trimmed from <202401312320.a335db14-oliver.sang@intel.com>: "±", mis-decoded "\ufffd" and "Â±", and "+-"
        "     21.21 \u00b1  5%     -72.9%       5.75 \u00b1  2%  fio.write_iops",
        "     21.21 \ufffd  5%     -72.9%       5.75 \ufffd  2%  fio.write_iops",
        "     21.21 \u00c2\u00b1  5%     -72.9%       5.75 \u00c2\u00b1  2%  fio.write_iops",
        "     21.21 +-  5%     -72.9%       5.75 +-  2%  fio.write_iops",
    ],
)
def test_lkp_row_reads_every_plus_minus_spelling(row):
    from lkmlkb.extract import tables

    vals, name = tables._lkp_row(row)
    assert name == "fio.write_iops"
    assert [v for v, _ in vals] == [21.21, 5.75]
    assert [round(sd, 4) for _, sd in vals] == [1.0605, 0.115]


def test_job_file_blocks_keep_their_blank_lines():
    # trimmed from corpus/000 (the job file, quote markers removed), then the empty tail of a dmesg paste
    from lkmlkb.fio import jobfile
    from lkmlkb.fio.find import find_fio_jobs

    job = "[global]\nioengine=libaio\nrw=write\nbs=128k\n\n[job]\nfilename=/dev/dm-0\n"
    blocks = jobfile.find_blocks(job.split("\n"))
    assert [(ln.kind, ln.index) for ln in blocks[0].lines] == [
        ("section", 0),
        ("option", 1),
        ("option", 2),
        ("option", 3),
        ("blank", 4),
        ("section", 5),
        ("option", 6),
    ]
    assert (blocks[0].start, blocks[0].end) == (0, 6)
    tail = job + "\n" * 5000 + "[ 1150.848350] RAX: 0000000000000003\n"
    got = find_fio_jobs(tail)
    assert [(j.name, j.options, j.evidence.line_start, j.evidence.line_end) for j in got] == [
        ("job", {"ioengine": "libaio", "rw": "write", "bs": "128k", "filename": "/dev/dm-0"}, 0, 6)
    ]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_table_word_tests_on_real_mail(path):
    """The words tables tests before its mmtests and dd regexes are in every line those match
    (the arrow test before pairs' regex: test_pair_cue_skips_no_pair_of_real_mail)."""
    from lkmlkb.extract import tables

    for line in path.read_text(errors="replace").split("\n"):
        if tables._MMTESTS_ROW.match(line):
            assert "mean" in line
        if tables._DD.search(line):
            assert " bytes " in line


def test_dd_summary_found_behind_its_word_test():
    # corpus/004's dd summary, as tables._DD's comment quotes it
    from lkmlkb.extract.fio_output import prepare_lines
    from lkmlkb.extract.tables import find_dd

    got = find_dd(prepare_lines("2147483648 bytes (2.1 GB, 2.0 GiB) copied, 0.721532 s, 3.0 GB/s\n"))
    assert [(r.metric, r.value, r.unit) for r in got] == [
        ("throughput", 3.0, "GB/s"),
        ("elapsed", 0.721532, "s"),
    ]


def test_mmtests_row_needs_mean():
    # the module's own example of mmtests compare output: every stat it reads spells "mean"
    from lkmlkb.extract import tables
    from lkmlkb.extract.fio_output import prepare_lines

    stats = ("Amean", "Hmean", "Gmean", "BAmean-99")
    for stat in stats:
        assert tables._MMTESTS_ROW.match(f"{stat}  1  123.45 (  0.00%)  130.00 *-5.31%*")
    text = "  v6.7  v6.8-rc1\n" + "".join(f"{stat}  1  123.45 (  0.00%)  130.00 *-5.31%*\n" for stat in stats)
    got = tables.find_mmtests(prepare_lines(text))  # every row is read behind the "mean" test
    assert [(r.metric, r.value) for r in got] == [(s.lower(), v) for s in stats for v in (123.45, 130.0)]
    assert not tables._MMTESTS_ROW.match("Stddev  1  123.45 (  0.00%)  130.00 *-5.31%*")


# --- exact shortcuts of the results, tables, setup, commits and fio finders ---------------------------
# Each shortcut is compared with the plain computation it stands for, over the real mail of corpus/
# and tests/fuzz/corpus/ and over seeded random text built from the pieces the patterns read.


def _real_texts() -> list[str]:
    return [p.read_text(errors="replace") for p in REAL]


def _random_lines(rng, pieces: list[str], n: int, width: int = 8) -> list[str]:
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, width))) for _ in range(n)]


_VERSION_PIECES = [
    "6.8",
    "-rc7",
    "5.15.y",
    "v",
    "V",
    "2.6.32",
    "next-20251219",
    "linux-",
    "Linux ",
    "kernel_",
    "\u212aernel-",
    "l\u0131nux-",
    "l\u0130nux-",
    "\u017f",
    "on ",
    "On",
    "tested on ",
    "results ON ",
    "with ",
    "for ",
    "- ",
    "* ",
    ":",
    "::",
    " ",
    "\t",
    "a",
    "x",
    "3.10GHz",
    "\u0663.1",
    "\u03a3",
    "+ Revert",
    "fio ",
    "=",
    "|",
    "\u00b1",
]


def test_opens_with_version_only_skips_lines_without_a_lead_kernel():
    import random

    from lkmlkb.extract import results, tables
    from lkmlkb.extract.kernel_versions import find_versions

    def heading_plain(text):  # results._heading_kernel before the cheap test
        t = text.strip()
        if not t or len(t) > 80:
            return None
        for start, _end, raw, norm in find_versions(t):
            lead = t[:start].strip().lower().rstrip(":")
            return (norm, raw) if lead in results._HEAD_LEAD else None
        return None

    def at_start_plain(text, max_offset=12):  # tables._kernel_at_start before the cheap test
        for start, end, raw, norm in find_versions(text[:300]):
            lead = text[:start].strip().lower().rstrip(":")
            if start <= max_offset and lead in tables._START_LEAD:
                return norm, raw, end
            break
        return None

    rng = random.Random(11)
    lines = [ln for text in _real_texts() for ln in text.split("\n")]
    lines += _random_lines(rng, _VERSION_PIECES, 20000)
    for line in lines:
        assert results._heading_kernel(line) == heading_plain(line), line
        assert tables._kernel_at_start(line) == at_start_plain(line), line
        assert tables._kernel_at_start(line.strip(), 4) == at_start_plain(line.strip(), 4), line


def _attribute_walk(r, lk):
    """results._attribute as it was: every line of the window read, one by one."""
    from lkmlkb.extract.results import HEADING_WINDOW, PROSE_WINDOW

    lines = lk.lines
    i = r.evidence.line_start
    if i >= len(lines):
        return None
    own = lk.heading(i)
    if own:
        return own
    depth = lines[i].depth
    for j in range(i - 1, max(-1, i - HEADING_WINDOW), -1):
        ln = lines[j]
        if ln.depth != depth and ln.text.strip():
            break
        if j in lk.result_lines:
            continue
        h = lk.heading(j)
        if h:
            return h
        if i - j <= PROSE_WINDOW:
            p = lk.prose(j)
            if p:
                return p
    return lk.block(i)


def test_attribution_by_events_is_the_line_by_line_walk():
    # results in any order, quote levels, blank lines, headings and prose kernels within and beyond
    # the windows: every result's kernel as the walk over each line of its window finds it
    import random

    from lkmlkb.extract import results
    from lkmlkb.extract.fio_output import prepare_lines
    from lkmlkb.model import Evidence, Result

    rng = random.Random(5)
    pieces = [
        "6.8-rc7:",
        "on 6.1.36",
        "kernel: v5.12",
        "I applied c8ed1b359312 on 6.1.36.",
        "6.5-rc1 is yet not ready",
        "READ: bw=448MiB/s",
        "WRITE: bw=4988MiB/s",
        "> ",
        "> > ",
        "",
        "",
        "",
        "text",
        "  lat (usec): min=1",
        "5.17.0  WRITE: bw=4988MiB/s",
        "6.8-rc7+ Revert : 2 block devices",
    ]
    texts = _real_texts()
    texts += [
        "\n".join(rng.choice(pieces) + rng.choice(["", " x"]) for _ in range(rng.randint(1, 400)))
        for _ in range(150)
    ]
    for text in texts:
        lines = prepare_lines(text)
        found = results.find_fio_output(text, lines) + results.find_tables(text, lines)
        starts = sorted(
            {r.evidence.line_start for r in found} | set(rng.sample(range(len(lines)), min(40, len(lines))))
        )
        rng.shuffle(starts)
        probe = [
            Result(metric="x", value=1.0, unit="", evidence=Evidence(line_start=i, line_end=i, text=""))
            for i in starts + [len(lines) + 3]
        ]
        lk = results._LineKernels(lines, {r.evidence.line_start for r in probe})
        plain = results._LineKernels(lines, lk.result_lines)
        for r in probe:
            assert results._attribute(r, lk) == _attribute_walk(r, plain), (r.evidence.line_start, text[:200])


def _runs_line_by_line(lines) -> list[tuple[int, int, int]]:
    """Each line's run of one quote depth, read line by line: a blank line joins the run it is in."""
    spans: list[list[int]] = []
    for j, ln in enumerate(lines):
        if spans and (not ln.text.strip() or ln.depth == spans[-1][2]):
            spans[-1][1] = j
        else:
            spans.append([j, j, ln.depth])
    return [(a, b, d) for a, b, d in spans for _ in range(a, b + 1)]


def test_depth_runs_read_from_filled_lines_are_the_line_by_line_runs():
    # quote levels that open with blank or whitespace lines (a quoted ">" line has a depth and no
    # text), change without a blank between them, and texts of blank lines only
    import random

    from lkmlkb.extract import results
    from lkmlkb.extract.fio_output import prepare_lines

    rng = random.Random(8)
    pieces = ["", "", " ", ">", "> ", ">>", "> a", ">> b", "> > c", "text", "  x", "WRITE: bw=4988MiB/s"]
    texts = _real_texts() + [
        "\n".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))) for _ in range(3000)
    ]
    for text in texts:
        lines = prepare_lines(text)
        runs = results._DepthRuns(lines)
        assert [runs.run(i) for i in range(len(lines))] == _runs_line_by_line(lines), text[:200]


def test_main_benchmark_counts_line_by_line_as_over_the_whole_text():
    import random

    rng = random.Random(3)
    pieces = [
        "fio",
        "fio-3.1",
        "fio.x",
        "fio_",
        "-fio",
        "dd if=",
        "dd  of=",
        "/dd bs=",
        "dd test",
        "DD if=",
        "tiobench",
        "tiotest",
        "dbench",
        "sysbench",
        "fs_mark",
        "fsmark",
        "bonnie++",
        "t/io_uring",
        "stress-ng",
        "mmtests",
        "FIO",
        "\u017f",
        "\u212a",
        " ",
        "\n",
        "\n",
        "x",
        "_",
        "-",
        ".",
        "/",
        "1",
    ]
    texts = _real_texts() + [
        "".join(rng.choice(pieces) for _ in range(rng.randint(0, 200))) for _ in range(3000)
    ]
    texts.append("fio\n" * 1500 + "dd if=/dev/zero\n" * 1200)  # both over the cap of 1000
    for text in texts:
        head = text[:1_000_000]
        counts = {}
        for name, rx in setup._TOOL_RES:
            if name in setup._BENCHMARKS:
                n = sum(1 for _ in zip(rx.finditer(head), range(1000), strict=False))
                if n:
                    counts[name] = n
        plain = max(counts, key=lambda k: (counts[k], -setup._BENCHMARKS.index(k))) if counts else None
        assert setup.main_benchmark(text) == plain, text[:200]


def test_stack_groups_found_skip_no_stack_fact():
    # a loop device test log names "loop" on most lines; other groups come after the first loop fact
    import random

    rng = random.Random(9)
    pieces = [
        "loop0 device",
        "/mnt/loop1",
        "losetup -f",
        "loop",
        "md-raid5",
        "mdadm",
        "RAID",
        "LVM2",
        "lvcreate",
        "dm-multipath",
        "multipath",
        "mpathb",
        "dm-crypt",
        "LUKS",
        "bcache",
        "dm-cache",
        "NVMe-oF",
        "nvme-tcp",
        "nvmet",
        "iSCSI",
        "virtio_blk",
        "virtio-blk",
        "\u017foftware RAID",
        " ",
        " ",
        "x",
        "\n",
    ]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))) for _ in range(2000)]
    for text in texts:
        assert setup.find_setup(text) == setup_every_line(text), text
    assert set(setup._STACK_WORDS) == set(setup._STACK_RE.groupindex)
    assert dict(setup._SETUP_RULES)[setup._stack_facts] == tuple(
        w for words in setup._STACK_WORDS.values() for w in words
    )


def test_strong_option_cue_skips_no_inline_job(monkeypatch):
    import random
    import re as _re

    from lkmlkb.fio import inline
    from lkmlkb.fio.common import split_lines

    rng = random.Random(4)
    pieces = [
        "ioengine=sync",
        "IODEPTH=64",
        "numjobs=4",
        "bs=4K",
        "rw=randread",
        "READWRITE=write",
        "direct=1",
        "size=1G",
        "fio",
        "min=1",
        "max=2",
        "(g=0)",
        "--bs=4k",
        ", ",
        " ",
        "x=1",
        "blocksize_range=4k",
    ]
    texts = _real_texts() + [
        "\n".join(
            ", ".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 30))
        )
        for _ in range(500)
    ]
    got = [inline.find_inline_params(split_lines(t)) for t in texts]
    monkeypatch.setattr(inline, "_strong_cue", lambda: _re.compile(""))
    assert got == [inline.find_inline_params(split_lines(t)) for t in texts]


def test_hex_run_test_skips_no_sha(monkeypatch):
    import re as _re

    from lkmlkb.extract import commits

    texts = _real_texts()
    got = [commits.find_sha_hits(t) for t in texts]
    monkeypatch.setattr(commits, "_HEX_RUN_RE", _re.compile(""))
    assert got == [commits.find_sha_hits(t) for t in texts]


def test_version_cue_skips_no_version(monkeypatch):
    # every match of _VERSION_RE spells "digit.digit" (its one-digit major after no digit) or "next-":
    # the other lines are not searched
    import random
    import re as _re

    from lkmlkb.extract import kernel_versions as kernels

    rng = random.Random(12)
    texts = _real_texts() + [
        "\n".join(
            _random_lines(
                rng,
                _VERSION_PIECES
                + ["NEXT-20240101", "Next-2025", "6", ".", "\u0663", "12", "0", "123.12 \u00b1  5%"],
                30,
            )
        )
        for _ in range(300)
    ]
    got = [kernels.find_versions(t) for t in texts]
    assert any(got)
    monkeypatch.setattr(kernels, "_VERSION_CUE_RE", _re.compile(""))
    assert got == [kernels.find_versions(t) for t in texts]


def test_lines_holding_are_the_lines_whose_cut_holds_the_pattern():
    # the lines find_versions and find_sha_hits read are found by one search over the text, each
    # tested as cut to MAX_LINE: a match past the cut does not count, the next line's still does
    import random

    from lkmlkb.extract import commits
    from lkmlkb.extract import kernel_versions as kernels
    from lkmlkb.extract.lines import lines_holding

    rng = random.Random(13)
    texts = _real_texts() + [
        "",
        "\n",
        "6.8",
        "x\n6.8\n",
        "a" * 3998 + "6.8\n",
        "a" * 3999 + "6.8\n" + "n" * 3996 + "next-1",
        "x" * 3997 + "abcdef0\nabcdef0",
        "16.8\n6.8",
    ]
    texts += [
        "\n".join(
            _random_lines(rng, ["6.8", "\n", "", "x", "next-", "NEXT-", "1", ".", "a" * 1000, "deadbee"], 20)
        )
        for _ in range(300)
    ]
    for rx, max_line in (
        (kernels._VERSION_CUE_RE, kernels.MAX_LINE),
        (commits._HEX_RUN_RE, commits.MAX_LINE),
    ):
        for text in texts:
            want = [(o, ln) for o, ln in _every_line(text, max_line) if rx.search(ln)]
            assert list(lines_holding(text, rx, max_line)) == want, text[:100]


def test_normal_output_literals_are_in_every_match():
    # a pattern of fio's normal output is tried only on a line holding its literal (the code reads them from
    # NORMAL_LITERALS through _holds): over the logical
    # lines of real mail and the fio fixtures, every line a pattern matches holds its literal
    from lkmlkb.extract import fio_output

    texts = _real_texts() + [
        p.read_text(errors="replace")
        for p in sorted((ROOT / "tests" / "extract" / "fixtures").rglob("*"))
        if p.is_file()
    ]
    texts.append(
        "  WRITE: io=138GB, aggrb=236MB/s, minb=1\n  write: io=138GB, bw=236MB/s, iops=1884, runt=600319msec\n"
        "Jobs: 4 (f=4): [F(4)][100.0%][w=5168MiB/s][w=5168 IOPS][eta 00m:00s]\n"
    )
    matched = 0
    for text in texts:
        lines = fio_output.prepare_lines(text)
        for _, _, logical in fio_output.logical_lines(lines):
            for rx, literal in fio_output.NORMAL_LITERALS:
                hit = rx.search(logical) if rx is fio_output._GROUP_LINE else rx.match(logical)
                if hit:
                    matched += 1
                    words = literal if isinstance(literal, tuple) else (literal,)
                    assert any(w in logical for w in words), (rx.pattern[:40], logical)
    assert matched > 100


def test_device_pattern_lead_lookahead_finds_what_the_alternatives_find():
    """_DEVICE_RE starts with a lookahead for the first characters of its alternatives (2.4x
    faster on LKP reports); without it, the same matches, on real lines and on device words
    glued to noise."""
    import random

    plain = re.compile(
        setup._DEVICE_RE.pattern.replace("(?=[nNPSHhrdsbzp/0-9])", "", 1), setup._DEVICE_RE.flags
    )
    assert plain.pattern != setup._DEVICE_RE.pattern
    lines = [
        line
        for p in sorted((ROOT / "corpus").iterdir())
        if p.is_file()
        for line in p.read_text(encoding="utf-8", errors="replace").split("\n")
    ]
    words = [
        "nvme0n1",
        "NVMe SSD",
        "PCIe3 SSD",
        "SATA drive",
        "SAS disk",
        "1HDD",
        "hard disk",
        "rotational disks",
        "2SSDs",
        "dm-1",
        "scsi_debug",
        "null_blk",
        "nullb0",
        "brd",
        "ram0",
        "zram",
        "pmem1",
        "/dev/sda1",
        "sdad:",
        "xnvme",
        "_sda",
        "/sdb",
        "SSD",
        "HDD",
        " ",
        "-",
        "_",
        ":",
        "1",
        "a",
        "/dev/",
        "\t",
    ]
    rnd = random.Random(5)
    lines += ["".join(rnd.choice(words) for _ in range(rnd.randrange(8))) for _ in range(3000)]
    spans = lambda rx, s: [(m.span(), m.lastgroup) for m in rx.finditer(s)]  # noqa: E731
    assert all(spans(setup._DEVICE_RE, s) == spans(plain, s) for s in lines)


def _every_line(text: str, cut: int):
    """(offset, line cut to ``cut``) of every line, one by one: how find_versions read lines before."""
    pos = 0
    for line in text.split("\n"):
        yield pos, line[:cut]
        pos += len(line) + 1


def test_version_cue_holds_a_match_where_its_plain_spelling_does():
    # _VERSION_CUE_RE opens with the "." or "-" it holds (so ``re`` skips the rest of the text) and
    # reads the digits or "next" behind it; it must hold a match exactly where the plain spelling
    # with re.I does, one or four characters in: the same lines, whole or cut (lines_holding),
    # Unicode digits ("\u0663.1") and every case of "next-" included
    import random

    from lkmlkb.extract import kernel_versions as kernels
    from lkmlkb.extract.lines import lines_holding

    plain = re.compile(r"(?<!\d)\d\.\d|next-", re.IGNORECASE)
    rng = random.Random(14)
    texts = _real_texts() + [
        "\n".join(
            _random_lines(
                rng,
                _VERSION_PIECES
                + ["NeXt-", "nEXT-", "1next-", "n", "N", "9", "\u0663", ".", "\u00b2.1", "12.", "x1.2"],
                30,
            )
        )
        for _ in range(300)
    ]
    cue = kernels._VERSION_CUE_RE
    for text in texts:
        # every place a match opens (overlapping ones too): the cue's opens at the "." one character
        # past the digit, or at the "-" four past the "n"
        at = range(len(text))
        want = [pos for pos in at if plain.match(text, pos)]
        got = [pos - (1 if text[pos] == "." else 4) for pos in at if cue.match(text, pos)]
        assert got == want, text[:100]
        for cut in (kernels.MAX_LINE, 9, 4, 3):
            assert list(lines_holding(text, cue, cut)) == list(lines_holding(text, plain, cut)), text[:100]
    # no character but the ASCII letters of "next" is taken for one of them under re.I (as "\u212a" is for "k")
    letters = re.compile("[next]", re.IGNORECASE)
    assert re.fullmatch("[k]", "\u212a", re.IGNORECASE)  # the loop below would see such a twin
    assert [c for c in map(chr, range(0x110000)) if letters.fullmatch(c) and c not in "nextNEXT"] == []


def test_anchor_tries_find_what_the_longest_first_alternation_finds():
    # the cue pipelines' anchor regexes are the tries of their words (lkmlkb.extract.lines.trie_pattern):
    # every match, start and end, as the alternation of the words longest first gave, over real mail
    # and words that extend one another
    import random

    from lkmlkb.extract.lines import trie_pattern
    from lkmlkb.extract.nlp import matcher

    pipe = matcher.get_pipeline("claims")
    sets = [pipe.anchor_words[pid] for pid in pipe.labels]
    sets = [s for s in sets if s] + [set().union(*[s for s in sets if s])]
    sets.append({"increase", "increased", "increases", "inc", "in", "regress", "regression", "regressions"})
    rng = random.Random(15)
    texts = [t.lower() for t in _real_texts()]
    texts += [
        "".join(
            rng.choice(["in", "c", "rease", "d", "s", "regress", "ion", "s", " ", "\n", "x"])
            for _ in range(60)
        )
        for _ in range(300)
    ]
    for words in sets:
        trie = re.compile(trie_pattern(words))
        alternation = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
        for text in texts:
            assert [m.span() for m in trie.finditer(text)] == [m.span() for m in alternation.finditer(text)]
    assert [
        m.group() for m in re.finditer(trie_pattern(["increase", "increases", "in"]), "increases in")
    ] == ["increases", "in"]
