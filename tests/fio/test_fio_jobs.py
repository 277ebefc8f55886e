"""find_fio_jobs (all finders, deduplicated) and fio_version."""

from __future__ import annotations

import time

import pytest
from fio_helpers import dequote, fixture, gold_jobs, seed

from lkmlkb.fio.find import find_fio_jobs, fio_version


def by_items(d):
    return sorted(d.items())


@pytest.mark.parametrize("case", ["000", "001", "003"])
def test_seed_jobs_match_gold(case):
    jobs = find_fio_jobs(dequote(seed(case)))
    gold = gold_jobs(case)
    assert gold is not None
    got = [{k: v for k, v in j.options.items() if "$" not in v} for j in jobs]
    assert sorted(got, key=by_items) == sorted(gold, key=by_items)


@pytest.mark.parametrize("case", ["002", "004"])
def test_seeds_without_jobs(case):
    assert find_fio_jobs(dequote(seed(case))) == []


def test_job_pasted_twice_is_one_job():
    text = dequote(seed("000"))
    block = "\n".join(text.split("\n")[122:137])
    jobs = find_fio_jobs(block + "\n\nquoted again:\n\n" + block)
    assert len(jobs) == 2


def test_lkp_report_and_attachment_together():
    text = fixture("lkp_fio_basic_write_report.txt") + "\n\n" + fixture("lkp_fio_job_attachment.txt")
    jobs = find_fio_jobs(text)
    assert sorted(j.form for j in jobs) == ["jobfile", "lkp-params"]


@pytest.mark.parametrize(
    ("text", "version"),
    [
        (dequote(seed("000")), "fio-3.19"),  # "fio-3.19 -- fio version"
        (fixture("lkp_fio_job_attachment.txt"), "fio-3.33"),  # '"fio version" : "fio-3.33",'
        ("fio version 3.35 on both", "fio-3.35"),
        (dequote(seed("003")), None),
        ("testcase: fio-basic", None),
        ("see fio-3.36.tar.gz", None),
    ],
)
def test_fio_version(text, version):
    assert fio_version(text) == version


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\0" * 1000,
        "x" * 1_000_000,
        "> " * 300000 + "fio --bs=4k --name=a",
        ("> " * 40 + "[global]\n") * 2000,
        "fio " * 250000,
    ],
)
def test_never_raises_and_is_fast(text):
    start = time.thread_time()
    find_fio_jobs(text)
    fio_version(text)
    assert time.thread_time() - start < 5.0


def test_non_string_input():
    assert find_fio_jobs(None) == []  # type: ignore[arg-type]
    assert fio_version(None) is None  # type: ignore[arg-type]
