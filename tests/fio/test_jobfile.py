"""fio job files pasted into mail (lkmlkb.fio.jobfile)."""

from __future__ import annotations

import time

import pytest
from fio_helpers import dequote, fixture, gold_jobs, option_sets, seed

from lkmlkb.fio.jobfile import find_jobfiles

# --- corpus -----------------------------------------------------------------------------------


def test_seed_000_quoted_jobfile_matches_gold():
    """corpus/000: [global] + two [job] sections inside '> ' quotes."""
    text = dequote(seed("000"))
    jobs = find_jobfiles(text)
    gold = gold_jobs("000")
    assert gold is not None, "shared/eval/seeds/000/gold.json not found"
    assert option_sets(jobs) == sorted(gold, key=lambda d: sorted(d.items()))
    assert [j.form for j in jobs] == ["jobfile", "jobfile"]
    assert jobs[0].global_options["bs"] == "128k"
    assert jobs[0].normalized["bs"] == 131072 and jobs[0].normalized["runtime"] == 600
    lines = text.split("\n")
    ev = jobs[0].evidence
    assert lines[ev.line_start] == "[global]"
    assert lines[ev.line_end] == "filename=/dev/dm-1"
    assert ev.text == "\n".join(lines[ev.line_start : ev.line_end + 1])


def test_seed_000_with_leftover_quote_markers():
    """The same text still quoted: leftover '> ' prefixes are tolerated, offsets unchanged."""
    raw = seed("000")
    jobs = find_jobfiles(raw)
    assert option_sets(jobs) == option_sets(find_jobfiles(dequote(raw)))
    assert raw.split("\n")[jobs[0].evidence.line_start] == "> [global]"


# --- real archive mail ---------------------------------------------------------------------------


def test_lkp_echo_jobfile_attachment():
    """LKP's 'fio' attachment: echo '[global] ... numjobs=64' | fio --output-format=json -"""
    jobs = find_jobfiles(fixture("lkp_fio_job_attachment.txt"))
    assert len(jobs) == 1
    job = jobs[0]
    assert job.name == "task_0"
    assert job.options["numjobs"] == "64"  # the closing quote and pipe are cut off
    assert job.options["rw"] == "write" and job.options["ioengine"] == "io_uring"
    assert job.options["group_reporting"] == ""
    assert job.global_options["iodepth"] == "32"
    assert job.unknown_options == []
    assert job.normalized["size"] == 2147483648


# --- constructed forms the HOWTO documents --------------------------------------------------------


def test_later_global_applies_only_to_jobs_after_it():
    text = "\n".join(
        [
            "[global]",
            "rw=randread",
            "bs=4k",
            "",
            "[a]",
            "filename=/dev/sdb",
            "",
            "[global]",
            "bs=64k ; bigger blocks from here on",
            "",
            "[b]",
            "filename=/dev/sdc",
            "iodepth=8",
        ]
    )
    a, b = find_jobfiles(text)
    assert a.options == {"rw": "randread", "bs": "4k", "filename": "/dev/sdb"}
    assert b.options == {"rw": "randread", "bs": "64k", "filename": "/dev/sdc", "iodepth": "8"}
    assert b.global_options == {"rw": "randread", "bs": "64k"}


def test_comments_env_vars_include_and_unknown_options():
    text = "\n".join(
        [
            "Here is the job file:",
            "",
            "  ; -- start job file --",
            "  [global]",
            "  ioengine=${ENGINE}",
            "  # the device under test",
            "  filename=${DEV}",
            "  include common.fio",
            "  frobnicate=3",
            "",
            "  [seq-write]",
            "  rw=write",
            "  bs = 1m",
            "",
            "Thanks,",
        ]
    )
    (job,) = find_jobfiles(text)
    assert job.options == {
        "ioengine": "${ENGINE}",
        "filename": "${DEV}",
        "frobnicate": "3",
        "rw": "write",
        "bs": "1m",
    }
    assert job.unknown_options == ["frobnicate"]
    assert any("include common.fio" in n for n in job.notes)
    assert any("${DEV}" in n for n in job.notes)
    assert (job.evidence.line_start, job.evidence.line_end) == (3, 12)


def test_wrapped_value_is_joined():
    text = "[global]\nrw=randread\nfilename=/dev/nvme0n1:/dev/nvme1n1:\n/dev/nvme2n1\n[job]\nbs=4k\n"
    (job,) = find_jobfiles(text)
    assert job.options["filename"] == "/dev/nvme0n1:/dev/nvme1n1:/dev/nvme2n1"


# --- negatives ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "not_fio_letter_sections.txt",  # [a] over dd/costmem commands
        "not_fio_systemd_unit.txt",  # [Unit] Description=... (Description is a fio option name)
        "patch_adding_fio_jobfiles.txt",  # '+[global]' lines of a diff are patch content, not a run
    ],
)
def test_not_jobfiles(name):
    assert find_jobfiles(fixture(name)) == []


def test_footnote_references_are_not_jobs():
    """corpus/003 cites '[1] https://lore...' and '[2] ...' and 'patches[2]'."""
    assert find_jobfiles(dequote(seed("003"))) == []


def test_pip_conf_global_section_is_not_fio():
    # the [global] section of a pip.conf as quoted in a package README
    assert find_jobfiles("[global]\nindex-url = https://example.invalid/simple/\ntimeout = 60\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[",
        "]",
        "[PATCH]",
        "\0" * 100,
        "[global]" * 100000,
        "[global]\n" + "bs=" + "4" * 1_000_000,
        "> " * 50000 + "[job]\nrw=read",
    ],
)
def test_pathological_input_is_fast_and_safe(text):
    start = time.thread_time()
    find_jobfiles(text)
    assert time.thread_time() - start < 2.0


def test_many_sections_are_linear():
    text = "[global]\nrw=read\n" + "".join("[j%d]\nfilename=/dev/sd%d\n" % (i, i) for i in range(5000))
    start = time.perf_counter()
    jobs = find_jobfiles(text)
    assert len(jobs) == 5000
    assert time.perf_counter() - start < 3.0
