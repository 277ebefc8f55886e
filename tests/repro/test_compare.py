"""compare: fio JSON (with fio's chatter around it) against the numbers reports give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lkmlkb.errors import ReproError
from lkmlkb.model import Evidence, Report, Result
from lkmlkb.repro import report_from_dict
from lkmlkb.repro.compare import compare, format_comparison, load_fio_json, normalize_reported

FIXTURES = Path(__file__).parent / "fixtures"
# Real output of fio 3.33 for fixtures/fio333_write_then_randread.fio, stdout and stderr together:
# three "note: both iodepth >= 1 and synchronous I/O engine ..." lines before the JSON, and
# fio's "fio: file hash not empty on exit" warning appended after it.
NOISY = FIXTURES / "fio333_write_then_randread_with_notes.txt"


def load_report(name: str) -> Report:
    return report_from_dict(json.loads((FIXTURES / f"report_{name}.json").read_text(encoding="utf-8")))


def test_load_tolerates_notes_before_and_warnings_after():
    data = load_fio_json(NOISY)
    assert data["fio version"] == "fio-3.33"
    assert [j["jobname"] for j in data["jobs"]] == ["job", "readjob"]
    assert load_fio_json(NOISY.read_text()) == data
    assert load_fio_json(str(NOISY)) == data


@pytest.mark.parametrize(
    "text",
    [
        "",
        "fio: pid=123, err=5/file:io_u.c:1889, func=io_u error\n",
        "{not json",
        "\x00" * 50,
        '{"jobs": "no"}',
    ],
)
def test_load_rejects_text_without_fio_json(text):
    with pytest.raises(ReproError, match="no fio JSON"):
        load_fio_json(text)


def test_seed000_against_real_output_write_side():
    rows = compare(load_report("seed000_multipath_write"), load_fio_json(NOISY))
    bw = {r.label: r for r in rows if r.metric == "bw" and r.direction == "write"}
    # rw=write comes from [global]; the randread job does not count for writes
    assert bw["regressed"].yours == 1398101333 and bw["regressed"].jobs == ["job"]
    assert bw["regressed"].reported == 236 * 1024**2
    assert bw["regressed"].ratio == pytest.approx(1398101333 / (236 * 1024**2))
    # 1333 MiB/s is nearer 315 than 236 MiB/s
    assert bw["baseline"].verdict == bw["regressed"].verdict == "closer to baseline"
    iops = {r.label: r for r in rows if r.metric == "iops"}
    assert iops["baseline"].yours == pytest.approx(10666.666667)
    # "read" bw rows: only a randread job ran, which is the read side but not sequential
    reads = [r for r in rows if r.direction == "read"]
    assert all(r.jobs == ["readjob"] and r.match == "same side" for r in reads)
    assert bw["regressed"].match == "exact"


def test_randread_matches_randread_job_exactly():
    rows = compare(load_report("seed001_scsi_debug_hosttags"), load_fio_json(NOISY))
    assert {r.config: r.yours for r in rows} == {
        "hosttags": pytest.approx(186181.818182),
        "non hosttags": pytest.approx(186181.818182),
    }
    assert all(r.verdict is None for r in rows)  # configs, not baseline/regressed


def test_latency_and_units():
    report = Report(
        thread_id="t",
        title="t",
        results=[
            Result(
                metric="clat",
                value=4.5,
                unit="msec",
                direction="randread",
                label="regressed",
                evidence=Evidence(),
            ),
            Result(
                metric="clat",
                value=4000,
                unit="usec",
                direction="randread",
                label="baseline",
                evidence=Evidence(),
            ),
        ],
    )
    rows = compare(report, load_fio_json(NOISY))
    assert rows[0].reported == 4500 and rows[1].reported == 4000
    assert rows[0].yours == pytest.approx(4.610148193)  # fio's clat_ns mean / 1000
    assert rows[0].verdict == "closer to baseline"


@pytest.mark.parametrize(
    ("value", "unit", "expect"),
    [
        (236, "MiB/s", 236 * 1048576),
        (3.0, "GB/s", 3e9),
        (38.606667, "MB/s", 38.606667e6),
        (1884, "IOPS", 1884),
        (72.2, "%", 72.2),
        (240, "KiB/s", 245760),
    ],
)
def test_normalize_reported(value, unit, expect):
    metric = {"IOPS": "iops", "%": "util"}.get(unit, "bw")
    assert normalize_reported(Result(metric=metric, value=value, unit=unit))[0] == pytest.approx(expect)


def test_format_comparison_table():
    text = format_comparison(compare(load_report("seed000_multipath_write"), load_fio_json(NOISY)))
    lines = text.splitlines()
    assert lines[0].split() == [
        "metric",
        "direction",
        "kernel",
        "label",
        "reported",
        "yours",
        "ratio",
        "verdict",
        "matched",
    ]
    row = next(ln for ln in lines if "236 MiB/s" in ln)
    assert "1333.3 MiB/s" in row and "5.65" in row and "closer to baseline" in row
    assert "same side: readjob" in next(ln for ln in lines if "448 MiB/s" in ln)
    assert format_comparison([]) == "no reported numbers to compare\n"
