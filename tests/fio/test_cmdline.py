"""fio command lines and the shell around them (lkmlkb.fio.cmdline)."""

from __future__ import annotations

import time

import pytest
from fio_helpers import dequote, fixture, gold_jobs, option_sets, seed

from lkmlkb.fio.cmdline import find_cmdlines


def resolved(options: dict[str, str]) -> dict[str, str]:
    """Options whose value no longer holds an unresolved shell variable."""
    return {k: v for k, v in options.items() if "$" not in v}


def by_items(d):
    return sorted(d.items())


# --- corpus -----------------------------------------------------------------------------------


def test_seed_001_function_called_twice():
    """corpus/001: run_fio() { RTIME=$1 ... fio --bs=$BS ... }; run_fio 20 16 $DEV 8K; ... 8k"""
    text = dequote(seed("001"))
    jobs = find_cmdlines(text)
    gold = gold_jobs("001")
    assert gold is not None, "shared/eval/seeds/001/gold.json not found"
    assert sorted((resolved(j.options) for j in jobs), key=by_items) == sorted(gold, key=by_items)
    # $DEV comes from `lsscsi | ...`: it stays as written, with a note
    assert all(j.options["filename"] == "$DEVS" for j in jobs)
    assert all(any("$DEVS" in n for n in j.notes) for j in jobs)
    assert [j.options["bs"] for j in jobs] == ["8K", "8k"]
    assert any("run_fio 20 16 $DEV 8K" in n for n in jobs[0].notes)
    lines = text.split("\n")
    assert lines[jobs[0].evidence.line_start].strip().startswith("fio --bs=$BS")
    assert lines[jobs[0].evidence.line_end].strip() == "--name=test --group_reporting"
    assert jobs[0].normalized["bs"] == 8192 and jobs[0].normalized["runtime"] == 20


def test_seed_003_wrapped_multi_name_command():
    """corpus/003: a command wrapped without a backslash, --name=global, four -name jobs."""
    text = dequote(seed("003"))
    jobs = find_cmdlines(text)
    gold = gold_jobs("003")
    assert gold is not None, "shared/eval/seeds/003/gold.json not found"
    assert option_sets(jobs) == sorted(gold, key=by_items)
    assert [j.name for j in jobs] == ["write-bandwidth-%d" % i for i in range(1, 5)]
    assert "name" not in jobs[0].global_options
    assert jobs[0].global_options["ioengine"] == "sync"
    assert jobs[0].normalized["bs"] == 1048576


def test_seed_003_still_quoted():
    """Leftover '> > > > ' markers do not hide the command or its wrapped line."""
    assert option_sets(find_cmdlines(seed("003"))) == option_sets(find_cmdlines(dequote(seed("003"))))


# --- real archive mail ---------------------------------------------------------------------------


def test_backtick_variable_stays_as_written():
    (job,) = find_cmdlines(fixture("cmdline_scsi_debug_randrw.txt"))
    assert job.options == {
        "filename": "/dev/$dev",
        "direct": "1",
        "rw": "randrw",
        "bs": "4k",
        "iodepth": "1",
        "runtime": "100",
        "numjobs": "40",
        "time_based": "",
        "name": "test",
        "ioengine": "libaio",
    }
    assert any("$dev" in n for n in job.notes)


def test_wrapped_option_and_positional_jobfile():
    (job,) = find_cmdlines(fixture("cmdline_wrapped_option_and_jobfile.txt"))
    assert job.options == {"ioengine": "io_uring", "filename": "/dev/nvme0n1", "loops": "10"}
    assert job.name == "fio/verify.fio"
    assert any("fio/verify.fio" in n for n in job.notes)
    assert (job.evidence.line_start, job.evidence.line_end) == (4, 5)  # the "$ fio" line and "--loops=10"


def test_command_after_loop_and_before_pipe():
    (job,) = find_cmdlines(fixture("cmdline_after_shell_loop_with_pipe.txt"))
    assert job.options["group_reporting"] == "" and job.options["numjobs"] == "6"
    assert "minimal" not in job.options  # fio's own option, not a job option
    assert "cut" not in job.options
    assert any("--minimal" in n for n in job.notes)


def test_single_dash_options_after_prompts():
    (job,) = find_cmdlines(fixture("cmdline_single_dash_options.txt"))
    assert job.name == "ten-1g-per-thread"
    assert job.options["bs"] == "512" and job.options["blockalign"] == "512"
    assert job.options["numjobs"] == "$(nproc)"
    assert job.options["directory"] == "/mnt"
    assert "alloc-size" not in job.options


# --- shell forms ---------------------------------------------------------------------------------


def test_for_loop_gives_one_job_per_value():
    text = "QD=32\nfor bs in 4k 8k 16k; do\n    fio --name=seq --rw=read --bs=$bs --iodepth=$QD --direct=1\ndone\n"
    jobs = find_cmdlines(text)
    assert [j.options["bs"] for j in jobs] == ["4k", "8k", "16k"]
    assert all(j.options["iodepth"] == "32" for j in jobs)
    assert all(any("for bs in" in n for n in j.notes) for j in jobs)


def test_one_line_loop_and_braced_variables():
    text = "for d in sdb sdc; do sudo fio --name=$d --filename=/dev/${d} -rw randwrite -group_reporting; done"
    jobs = find_cmdlines(text)
    assert [j.options for j in jobs] == [
        {"name": "sdb", "filename": "/dev/sdb", "rw": "randwrite", "group_reporting": ""},
        {"name": "sdc", "filename": "/dev/sdc", "rw": "randwrite", "group_reporting": ""},
    ]


def test_options_before_first_name_are_global():
    (a, b) = find_cmdlines("# fio --rw=randread --bs=4k --name=a --filename=/dev/sda --name=b --bs=8k")
    assert a.options == {"rw": "randread", "bs": "4k", "name": "a", "filename": "/dev/sda"}
    assert b.options == {"rw": "randread", "bs": "8k", "name": "b"}
    assert a.global_options == {"rw": "randread", "bs": "4k"}


# --- negatives -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "fio WRITE: bw=5139MiB/s (5389MB/s),",  # corpus/003 result lines
        "fio-3.19",
        "the performance of fio 'Laying out IO file' is improved.",
        "I ran fio on both kernels.",
        "$ fio --version",
        "fio --showcmd",
    ],
)
def test_not_fio_jobs(text):
    assert find_cmdlines(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "fio " + "--bs=4k " * 200000,
        "fio --name=x " + "-" * 1_000_000,
        "\0fio --name=\0 --bs=\0",
        "f() {\n f\n}\nf\n" + "fio --name=a --bs=4k\n",
        "for a in 1 2 3 4 5 6 7 8; do for b in 1 2 3 4 5 6 7 8; do for c in 1 2 3 4 5 6 7 8; do "
        "fio --name=x --bs=$a$b$c; done; done; done",
        "fio --name='unterminated --bs=4k",
    ],
)
def test_pathological_input_is_fast_and_safe(text):
    start = time.thread_time()
    jobs = find_cmdlines(text)
    assert time.thread_time() - start < 3.0
    assert len(jobs) <= 500


@pytest.mark.parametrize(
    ("assignment", "option", "expected"),
    [
        ('QD="32"', "iodepth", "32"),
        ("QD='32'", "iodepth", "32"),
        ('export QD="32"', "iodepth", "32"),
        ('local BS="4k"', "bs", "4k"),
        ("BS='128k'", "bs", "128k"),
    ],
)
def test_a_quoted_shell_assignment_gives_its_value_without_quotes(assignment, option, expected):
    name = assignment.split("=")[0].split()[-1]
    text = f"{assignment}\nfio --name=seq --rw=read --{option}=${name} --direct=1 --size=1G\n"
    (job,) = find_cmdlines(text)
    assert job.options[option] == expected
