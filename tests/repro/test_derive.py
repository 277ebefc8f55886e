"""Jobs derived from LKP parameters, dd commands and tiobench descriptions in real reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lkmlkb.model import Report
from lkmlkb.repro import derive, report_from_dict

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def load_report(name: str) -> Report:
    return report_from_dict(json.loads((FIXTURES / f"report_{name}.json").read_text(encoding="utf-8")))


# the parameters: block of <202401312320.a335db14-oliver.sang@intel.com> (linux-block 2024q1)
LKP_PARAMS = {
    "runtime": "300s",
    "disk": "1HDD",
    "fs": "xfs",
    "nr_task": "100%",
    "test_size": "128G",
    "rw": "write",
    "bs": "4k",
    "ioengine": "io_uring",
    "direct": "direct",
    "cpufreq_governor": "performance",
}


def test_lkp_params_with_reported_cpu_count():
    job = derive.lkp_params_job(LKP_PARAMS, ncpus=64)
    o = job.options
    assert job.form == "derived-lkp"
    assert (o["rw"], o["bs"], o["ioengine"], o["direct"], o["runtime"]) == (
        "write",
        "4k",
        "io_uring",
        "1",
        "300",
    )
    assert o["numjobs"] == "64"
    assert o["size"] == "2G"  # 128G / 64 tasks
    assert o["iodepth"] == "32"
    assert "time_based" not in o  # fio-setup-basic adds it only when asked
    assert any("iodepth=32 assumed" in n for n in job.notes)
    assert any("fs: xfs" in n for n in job.notes)


def test_lkp_params_without_cpu_count_use_fio_ncpus():
    job = derive.lkp_params_job({**LKP_PARAMS, "nr_task": "50%"})
    assert job.options["numjobs"] == "($ncpus*50/100)"
    assert job.options["size"] == "(137438953472/($ncpus*50/100))"
    assert any("$ncpus" in n for n in job.notes)


def test_lkp_params_defaults_when_keys_missing():
    job = derive.lkp_params_job({"test_size": "1G"})
    assert (job.options["rw"], job.options["ioengine"], job.options["bs"]) == ("write", "sync", "4k")
    assert job.options["numjobs"] == "1" and job.options["size"] == "1G"


def test_lkp_report_cpu_count_from_test_machine_line():
    jobs = derive.derive_jobs(load_report("lkp_fio_basic_write_iops"))
    assert [j.options["numjobs"] for j in jobs] == ["64"]


def test_dd_from_corpus_004():
    text = (CORPUS / "004_9a4b42bbfbf4e570.txt").read_text(encoding="utf-8")
    cmds = derive.find_dd_commands(text)
    assert [line for line, _ in cmds] == [36, 48]
    job = derive.dd_job(cmds[0][1])
    assert job.options == {
        "rw": "read",
        "bs": "1M",
        "ioengine": "psync",
        "iodepth": "1",
        "numjobs": "1",
        "direct": "1",
        "size": "2G",
        "filename": "/dev/$DISK",
    }
    assert any("dd issues one synchronous request" in n for n in job.notes)


@pytest.mark.parametrize(
    ("cmd", "expect"),
    [
        (
            "dd if=/dev/zero of=/mnt/test/f bs=1M count=1024 oflag=direct",
            {"rw": "write", "bs": "1M", "size": "1G", "direct": "1", "filename": "/mnt/test/f"},
        ),
        (
            "dd if=/dev/sdb of=/dev/null bs=4k count=1000",
            {"rw": "read", "bs": "4k", "size": "4000k", "direct": "0", "filename": "/dev/sdb"},
        ),
        (
            "dd if=/dev/sdb of=/dev/null bs=1MB count=10 skip=5",
            {"rw": "read", "bs": "1000000", "size": "10000000", "offset": "5000000"},
        ),
    ],
)
def test_dd_forms(cmd, expect):
    job = derive.dd_job(cmd)
    assert {k: job.options.get(k) for k in expect} == expect


def test_dd_without_file_ends_is_not_a_job():
    assert derive.dd_job("dd bs=1M count=1") is None


def test_tiobench_from_corpus_002():
    text = (CORPUS / "002_05ded6ff64fd7ec3.txt").read_text(encoding="utf-8")
    runs = derive.find_tiobench_runs(text)
    assert [(r["rw"], r["threads"], r["file_size"]) for r in runs] == [("write", 16, "4 GB")]
    job = derive.tiobench_job("write", 16, "4 GB")
    assert job.options["numjobs"] == "16" and job.options["rw"] == "write"
    assert job.options["size"] == "256M"  # tiobench splits its size among the threads
    assert any("tiobench splits" in n for n in job.notes)


def test_tiobench_random_read_gets_number_ios():
    job = derive.tiobench_job("randread", None, None)
    assert job.options["number_ios"] == "4000" and job.options["numjobs"] == "1"
    assert any("thread count not reported" in n for n in job.notes)


def test_derive_from_seed_reports():
    tio = derive.derive_jobs(load_report("seed002_tiobench_cfq"))
    assert [(j.form, j.options["rw"], j.options["numjobs"], j.options.get("size")) for j in tio] == [
        ("derived-tiobench", "write", "16", "256M")
    ]
    dd = derive.derive_jobs(load_report("seed004_dd_disk_util"))
    assert [(j.form, j.options["rw"], j.options["size"]) for j in dd] == [("derived-dd", "read", "2G")]
    # a report with its own fio jobs gets nothing derived
    assert derive.derive_jobs(load_report("seed000_multipath_write")) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00" * 100,
        "dd " * 100000,
        "x" * 1_000_000,
        "tiobench sequential write " * 10000,
        "modprobe " + "a=b " * 50000,
    ],
)
def test_finders_never_raise(text):
    derive.find_dd_commands(text)
    derive.find_tiobench_runs(text)
    derive.cpu_count_from([text])
