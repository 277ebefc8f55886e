"""The whole-text tests and one-pass word searches in front of the fio finders and find_setup/find_tools.

Each fast path may only skip work that finds nothing, so each is compared with
the plain way (the test disabled, or the loop it replaced) over the real mail
of corpus/ and tests/fuzz/corpus/ and over random text built from the pieces
those finders look for.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from extract_oracles import setup_every_line, tools_every_line
from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.extract import setup
from lkmlkb.fio import cmdline, inline, jobfile
from lkmlkb.fio import find as fio
from lkmlkb.fio.common import split_lines

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted(
    p for d in (ROOT / "corpus", ROOT / "tests" / "fuzz" / "corpus") for p in d.iterdir() if p.is_file()
)
#: a pattern that matches every text: a whole-text test replaced by it skips nothing
EVERYWHERE = re.compile("")

SHELL_PIECES = [
    "fio",
    "fio ",
    " ",
    "  ",
    "\t",
    "\\",
    "\\\n",
    "\n",
    "\n",
    "\n",
    "> ",
    ">",
    "--bs=4k",
    "-rw",
    "read",
    "--name=a",
    "-name",
    "b",
    "job.fio",
    "a/b",
    "/dev/sda",
    "-ioengine",
    "sync",
    "--",
    "-",
    ";",
    "&&",
    "||",
    "do ",
    "done",
    "for bs in 4k 8k",
    "then ",
    "run() {",
    "}",
    "function f",
    "f 4k",
    "$1",
    "${BS:-4k}",
    "BS=4k",
    "'",
    '"',
    "\0",
    "\r",
    "\u00a0",
    "#",
    "$ ",
    "sudo ",
    "| tee",
    "x",
    "=",
    "(",
    ")",
    "[global]",
    "[job]",
    "rw=randread",
    "bs=4k",
    "iodepth=32",
    ";c",
    "include x.fio",
    "parameters:",
    "\truntime: 300s",
    "rw: read",
    "bs/rw/testcase:",
    "4k/read/fio-basic",
    "testcase: fio-basic",
    "numjobs=4,",
    "ioengine=sync",
    "IODEPTH=64",
    "(g=0)",
    "fio-3.19",
    "FIO version 3.35",
    "\u0130",
    "\u017f",
    "\u03a3",
]


def _real_texts() -> list[str]:
    return [p.read_text(errors="replace") for p in REAL]


def _random_texts(seed: int, n: int, pieces: list[str] = SHELL_PIECES, width: int = 60) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, width))) for _ in range(n)]


def _jobs(found) -> list:
    return [repr(j) for j in found]


# --- fio command lines ---------------------------------------------------------------------------


def test_fio_command_cue_skips_no_command(monkeypatch):
    texts = _real_texts() + _random_texts(1, 3000)
    texts += [
        "fio \\\n  --bs=4k --name=x",
        "fio\u00a0\\\n--rw=read --name=y",
        "> fio\\\n> --bs=4k",
        "fi\0o --bs=4k",
        "f() {\nfio --bs=$1\n}\nf 4k",
        "for bs in 4k 8k; do fio --bs=$bs; done",
    ]
    got = [_jobs(cmdline.find_cmdlines(t)) for t in texts]
    assert sum(map(bool, got)) > 50
    monkeypatch.setattr(cmdline, "FIO_CMD_CUE_RE", EVERYWHERE)
    assert got == [_jobs(cmdline.find_cmdlines(t)) for t in texts]


@settings(max_examples=400, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("ab =-$/.#;|&\t\r\n\x0b\x0c\u00a0\u2028\0\u00e9'\"\\")), max_size=40
    )
)
def test_words_are_shlex_words(text):
    assert cmdline.words(text) == cmdline.shell_words(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("fuctionr() {}=abx_1 \t\"'$-")), max_size=30))
def test_run_block_tests_are_what_the_patterns_spell(text):
    # run_block tries FUNC_DEF_RE, FOR_RE and ASSIGN_RE only on commands holding "(" or "function", "for", "="
    if cmdline.FUNC_DEF_RE.match(text):
        assert "(" in text or text.startswith("function")
    if cmdline.FOR_RE.match(text):
        assert text.startswith("for")
    if cmdline.ASSIGN_RE.match(text):
        assert "=" in text


def _split_commands_plain(lines):
    """split_commands as it was: every logical line through _split_unquoted."""
    out = []
    for cmd in lines:
        for part in cmdline._split_unquoted(cmd.text):
            part = part.strip()
            while part.startswith(("do", "then", "else")):
                m = re.match(r"^(do|then|else)\s+(\S.*)$", part)
                if not m:
                    break
                out.append(cmdline.Command(m.group(1), cmd.start, cmd.end))
                part = m.group(2).strip()
            if part:
                out.append(cmdline.Command(part, cmd.start, cmd.end))
    return out


def test_split_commands_keeps_single_commands_as_the_loop_cut_them():
    for text in _real_texts() + _random_texts(2, 2000):
        logical = cmdline.logical_lines(split_lines(text))
        assert cmdline.split_commands(logical) == _split_commands_plain(logical), text[:200]


# --- job files and inline parameters --------------------------------------------------------------

JOBFILE_LINES = [
    "[global]",
    "[job1]",
    "  [rand-read 4k]  ; c",
    "[job2]\r",
    "> [job]",
    "> > [global]\t#x",
    "rw=read",
    "bs=4k",
    "iodepth=32",
    "ioengine=libaio",
    "group_reporting",
    "",
    "",
    "; comment",
    "# c",
    "Thanks",
    "include x.fio",
    "filename=/dev/a:",
    "/dev/b",
    "echo '[global]",
    "numjobs=4' | fio -",
    "[1] x",
    "[PATCH]",
    "a[b]",
    "]",
    "[x]\0",
    "size=${SIZE:-1G}",
    "directory=/mnt  ; d",
    "  runtime=60",
]


def _random_line_texts(seed: int, n: int, lines: list[str]) -> list[str]:
    rng = random.Random(seed)
    return ["\n".join(rng.choice(lines) for _ in range(rng.randint(0, 25))) for _ in range(n)]


def test_section_end_cue_skips_no_job_file(monkeypatch):
    texts = _real_texts() + _random_texts(3, 1000) + _random_line_texts(3, 2000, JOBFILE_LINES)
    texts += [
        "[global]\r\nrw=read\r\nbs=4k\r\n",
        "> [job1]   ; first disk\n> rw=write\n> bs=4k\n",
        "[glo\0bal]\nrw=read\nbs=4k",
    ]
    got = [_jobs(jobfile.find_jobfiles(t)) for t in texts]
    assert sum(map(bool, got)) > 20
    monkeypatch.setattr(jobfile, "SECTION_END_CUE_RE", EVERYWHERE)
    assert got == [_jobs(jobfile.find_jobfiles(t)) for t in texts]


def _inline_plain(text: str) -> list:
    """find_inline as it was: every finder on every text."""
    if "=" not in text and ":" not in text:
        return []
    lines = split_lines(text)
    mentions_fio = "fio" in text.lower()
    lkp = inline.merge_lkp(
        inline.find_lkp_parameters(lines, mentions_fio) + inline.find_lkp_axes(lines, mentions_fio)
    )
    return lkp + inline.find_inline_params(lines)


INLINE_LINES = [
    "parameters:",
    "\truntime: 300s",
    "\trw: randread",
    "\tbs: 4k",
    "\tioengine: sync",
    "testcase: fio-basic",
    "bs/rw/testcase:",
    "  bs/rw/nr_task/testcase: \r",
    "4k/read/fio-basic",
    "4k/read/8/fio-basic",
    "",
    "(4 hw queues, ioengine=sync, iodepth=64, numjobs=4, bs=4K)",
    "fio with iodepth=32",
    "bs=4k",
    "job: (g=0): rw=write, bs=(R) 128KiB-128KiB, ioengine=libaio",
    "--rw=read --iodepth=4",
    "polled=1, fixedbufs=1, register_files=1, QD=128",
    "  WRITE: bw=2683MiB/s",
    "x",
    "> \truntime: 1s",
]


def test_inline_whole_text_tests_skip_no_job():
    texts = _real_texts() + _random_texts(4, 1000) + _random_line_texts(4, 2000, INLINE_LINES)
    texts += [
        "bs/rw/testcase:\r\n4k/read/fio-basic\r\n",
        "bs/rw/test\0case:\n4k/read/fio-basic\n",
        "ran with io\0engine=sync, iodepth=64",
        "\u212aernel: ioengine=libaio, iodepth=64, bs=4k",
    ]
    got = [_jobs(inline.find_inline(t)) for t in texts]
    assert sum(map(bool, got)) > 20
    assert got == [_jobs(_inline_plain(t)) for t in texts]


def test_reversed_strong_cue_finds_what_the_forward_one_finds():
    names = inline._strong_names()
    pieces = names + ["=", " ", "x", "\n", "_", "-"] + [n[:-1] for n in names[:20]]
    for text in _random_texts(6, 2000, pieces, 12):
        low = text.lower()
        assert bool(inline._strong_cue().search(low)) == bool(
            inline._strong_cue_reversed().search(low[::-1])
        ), text


def _fio_version_plain(text: str) -> str | None:
    for line in text[:5_000_000].split("\n"):
        if "fio" not in line.lower() or len(line) > 4000:
            continue
        m = fio.FIO_VERSION_RE.search(line)
        if m:
            return "fio-" + (m.group("v") or m.group("v2"))
    return None


def test_fio_version_reads_the_lines_naming_fio_in_order():
    texts = (
        _real_texts()
        + _random_texts(7, 2000)
        + ["x" * 5000 + "fio-3.1\nfio-3.2", "FIO\nfio version 3.35 fio-2.1"]
    )
    # case twins: IGNORECASE takes "\u0131" for "i" and "\u017f" for "s", lowercasing does not
    texts += [
        "fio f\u0131o-3.1",
        "fio ver\u017fion 3.35",
        "f\u0130o-3.1 fio",
        "fio\nf\u0131o-3.1",
        "in fio\n" * 50,
    ]
    assert sum(1 for t in texts if fio.fio_version(t)) > 20
    assert all(fio.fio_version(t) == _fio_version_plain(t) for t in texts)


# --- setup facts and tools --------------------------------------------------------------------------

SETUP_PIECES = [
    "deadline",
    "mq-deadline",
    "none",
    "bfq",
    "ext4",
    "xfs",
    "fs",
    "fat",
    "data=ordered",
    "noatime",
    "low_latency=0",
    "queue_depth: 64",
    "vm.dirty_ratio=5",
    "echo 128 > /sys/block/sda/queue/nr_requests",
    "modprobe null_blk nr_devices=2",
    "nvme0n1",
    "NVMe SSD",
    "sdb:",
    "dm-1",
    "multipath",
    "LVM",
    "raid5",
    "nvme-tcp",
    "loop0 device",
    "test machine: 8 cores Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz with 64G memory",
    "Intel Xeon",
    "<lkp@intel.com>",
    "AMD EPYC 7763",
    "32 cores",
    "2 numa nodes",
    "2 GB RAM",
    "fio",
    "dd if=/dev/zero",
    "iostat -x",
    "kernel test robot",
    "t/io_uring",
    "blktrace",
    "perf record",
    "ram0",
    "zram",
    "zram1",
    "brd",
    "hard disk",
    "hard\tdisks",
    "SAS disk",
    "SAS",
    "nullb0",
    "null_blk",
    "pmem1",
    "rotational disk",
    "2SSDs",
    "1HDD",
    "/dev/sdc",
    "param",
    "hardware",
    "text",
    "next",
    "EXT3",
    "ext2",
    "multiple",
    "multi-path",
    "dm-multipath",
    "MPATHA",
    "dm-",
    "sd",
    "ram",
    "\u017f",
    "\u212a",
    "\u0130",
    "\u03a3",
    " ",
    " ",
    "\t",
    "\n",
    "\n",
    "x",
    "_",
    "-",
    "=",
    ":",
    "/",
    "1",
]


def test_one_pass_word_lines_are_each_words_lines():
    words = sorted({w for _, ws in setup._SETUP_RULES if isinstance(ws, tuple) for w in ws})
    pieces = words + [w[:-1] for w in words] + [w[1:] for w in words] + ["\n", " ", "x", "\u0130", "\u03a3"]
    for word_set, texts in (
        (setup._SETUP_WORDS, _real_texts() + _random_texts(8, 1500, pieces, 30)),
        (setup._TOOL_WORD_SET, _random_texts(9, 1500, SETUP_PIECES, 30)),
    ):
        for text in texts:
            lines = setup._WordLines(text)
            found = lines.word_lines(word_set)
            assert found == {w: at for w in word_set.words if (at := lines._word_lines((w,)))}, text[:200]


def test_find_setup_and_tools_are_the_every_line_loops():
    texts = _real_texts() + _random_texts(10, 3000, SETUP_PIECES, 40)
    assert sum(1 for t in texts if setup.find_setup(t)) > 100
    for text in texts:
        assert setup.find_setup(text) == setup_every_line(text), text[:200]
        assert setup.find_tools(text) == tools_every_line(text), text[:200]


def test_cpu_words_pass_over_robot_addresses():
    # trimmed from a kernel test robot report: its trailer names "intel" but no CPU
    text = "Reported-by: kernel test robot <lkp@intel.com>\ntest machine: 64 threads Intel(R) Xeon(R) Gold 6346 CPU\n"
    lines = setup._WordLines(text)
    assert lines.lines_of(
        lines.word_lines(setup._SETUP_WORDS), dict(setup._SETUP_RULES)[setup._cpu_facts]
    ) == {1}
    assert [f.key for f in setup.find_setup(text)] == ["cpu"]


def test_device_search_from_the_first_cue_finds_every_device():
    # _device_facts searches a line from _DEVICE_LEAD characters before its first _DEVICE_CUE hit
    lines = [line for text in _real_texts() for line in text.split("\n")]
    pieces = [
        "nvme0n1p2",
        "NVMe SSD",
        "PCIe3 NVMe SSD",
        "SATA drive",
        "SAS  disk",
        "123HDD",
        "hard disk",
        "2SSDs",
        "rotational\tdisks",
        "dm-12",
        "scsi_debug",
        "null_blk",
        "nullb0",
        "brd",
        "ram0",
        "zram",
        "pmem1",
        "/dev/sdab12",
        "sdad:",
        "/dev/",
        "/sdb",
        "_sda",
        "x",
        "1",
        " ",
        "\t",
        "/",
        "-",
        "S",
        "n",
        "d",
    ]
    rng = random.Random(11)
    lines += ["".join(rng.choice(pieces) for _ in range(rng.randrange(10))) for _ in range(5000)]
    for line in lines:
        whole = [(m.span(), m.group()) for m in setup._DEVICE_RE.finditer(line)]
        cue = setup._DEVICE_CUE.search(line)
        if cue is None:
            assert whole == [], line
        else:
            start = max(cue.start() - setup._DEVICE_LEAD, 0)
            assert [(m.span(), m.group()) for m in setup._DEVICE_RE.finditer(line, start)] == whole, line


def test_cached_catalog_lookups_are_the_lookups():
    from lkmlkb.fio import catalog

    class Word(str):
        pass

    names = [
        "bs",
        "--BS",
        " blocksize ",
        "readwrite",
        "-output-format",
        "eta",
        "",
        "-",
        "x" * 101,
        "--" + "b" * 200,
        Word("iodepth"),
        "nosuch",
        "\u212a",
    ] + list(catalog.name_index())[:300]
    for _ in range(2):  # the second round is answered from the caches
        for name in names:
            assert catalog.canonical_name(name) == catalog._canonical_name(name), name
            assert catalog.cli_option(name) == catalog._cli_option(name), name
