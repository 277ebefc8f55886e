"""Prose fio parameters and kernel test robot records (lkmlkb.fio.inline)."""

from __future__ import annotations

import time

import pytest
from fio_helpers import dequote, fixture, seed

from lkmlkb.fio.inline import find_inline

# the machine's disk and file system ("disk: 1HDD", "fs: xfs") are the run's setup, not the job's
LKP_PARAMS = {
    "runtime": "300s",
    "nr_task": "100%",
    "test_size": "128G",
    "rw": "write",
    "bs": "4k",
    "ioengine": "io_uring",
    "direct": "direct",
}


def test_lkp_report_parameters_and_axes_are_one_job():
    """<202401312320.a335db14-oliver.sang@intel.com>: parameters: block + bs/compiler/... axes."""
    text = fixture("lkp_fio_basic_write_report.txt")
    (job,) = find_inline(text)
    assert job.form == "lkp-params"
    assert job.options == LKP_PARAMS  # cpufreq_governor is not about fio
    assert job.name == "fio-basic"
    assert job.normalized["runtime"] == 300
    assert set(job.unknown_options) == {"nr_task", "test_size"}
    lines = text.split("\n")
    assert lines[job.evidence.line_start].strip() == "parameters:"
    assert lines[job.evidence.line_end].strip() == "cpufreq_governor: performance"  # the whole block
    assert any("also stated on lines" in n for n in job.notes)


def test_lkp_axes_record_alone():
    lines = fixture("lkp_fio_basic_write_report.txt").split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith("bs/compiler/"))
    (job,) = find_inline("\n".join(lines[start : start + 2]))
    assert job.options == LKP_PARAMS
    assert (job.evidence.line_start, job.evidence.line_end) == (0, 1)


def test_lkp_parameters_in_a_quoted_reply():
    """The report quoted '> >> ' deep in a reply (leftover markers, 4-space indent)."""
    text = fixture("lkp_params_quoted_reply.txt")
    for candidate in (text, dequote(text)):
        (job,) = find_inline(candidate)
        assert job.form == "lkp-params"
        assert job.options == {"runtime": "300s", "nr_task": "100%", "test_size": "128G", "rw": "write"}


def test_prose_parameters():
    text = "Test: null_blk (4 hw queues, ioengine=sync, iodepth=64, numjobs=4, bs=4K), randread"
    (job,) = find_inline(text)
    assert job.form == "inline"
    assert job.options == {"ioengine": "sync", "iodepth": "64", "numjobs": "4", "bs": "4K"}


def test_one_option_in_a_line_that_mentions_fio():
    (job,) = find_inline("I ran fio with iodepth=32 on both kernels.")
    assert job.options == {"iodepth": "32"}


@pytest.mark.parametrize(
    "text",
    [
        "So buffered I/O was used? I recommend size=4k.",  # one x=y in prose
        fixture("not_fio_t_io_uring_output.txt"),  # t/io_uring's own vocabulary
        "uid=0(root) gid=0(root) groups=0(root)",  # id(1)
        "modprobe null_blk nr_devices=1 completion_nsec=0 blocksize=4096 size=1",
        "dd if=/dev/zero of=/dev/sdb bs=1M count=1000 oflag=direct",
        'TP_printk("program=%sv%u proto=%s port=%u", ...)',
        "job: (g=0): rw=write, bs=(R) 128KiB-128KiB, (W) 128KiB-128KiB, (T) 128KiB-128KiB, ioengine=libaio, iodepth=64",
        "  WRITE: bw=2683MiB/s (2813MB/s), 2683MiB/s-2683MiB/s (2813MB/s-2813MB/s), io=80.0GiB",
    ],
)
def test_not_inline_jobs(text):
    assert find_inline(text) == []


def test_seeds_without_prose_parameters():
    for case in ("000", "001", "002", "003", "004"):
        assert [j for j in find_inline(dequote(seed(case))) if j.form == "inline"] == [], case


@pytest.mark.parametrize(
    "text",
    [
        "a=b " * 300000,
        "parameters:\n" + "\tx: y\n" * 100000,
        "/".join(["a"] * 100000) + ":\n" + "/".join(["1"] * 100000),
    ],
)
def test_pathological_input(text):
    start = time.thread_time()
    find_inline(text)
    assert time.thread_time() - start < 3.0
