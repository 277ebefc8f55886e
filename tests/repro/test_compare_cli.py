"""``lkmlkb compare`` on fio JSON that is cut short, edited or of odd types: a table or one
line naming the file, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main
from lkmlkb.repro import report_from_dict
from lkmlkb.repro.bundle import BundleInfo, expected_data

FIXTURES = Path(__file__).parent / "fixtures"
JOB = {"jobname": "j", "job options": {"rw": "write"}}
ODD = {
    "rate as text": {"jobs": [{**JOB, "write": {"bw_bytes": "fast", "iops": None, "io_bytes": "x"}}]},
    "options as text": {"jobs": [{**JOB, "job options": "rw=write", "write": [1, 2]}], "disk_util": [1]},
    "global options as list": {"global options": ["rw"], "jobs": [{**JOB, "write": {"bw": "1"}}]},
    "rw as list": {"jobs": [{**JOB, "job options": {"rw": ["write"]}, "write": {"iops": True}}]},
    "latency as list": {"jobs": [{**JOB, "write": {"lat_ns": [1], "clat_ns": {"mean": "1"}}}]},
    "disk_util as object": {"jobs": [{**JOB, "write": {"bw_bytes": 1e400}}], "disk_util": {"util": 1}},
    "jobs of numbers": {"jobs": [1, "two", None]},
}


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> Path:
    report = report_from_dict(
        json.loads((FIXTURES / "report_seed000_multipath_write.json").read_text(encoding="utf-8"))
    )
    path = tmp_path_factory.mktemp("bundle") / "expected.json"
    path.write_text(json.dumps(expected_data(report, BundleInfo(out_dir=path.parent))))
    return path


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_fio_json_gives_a_table(expected, tmp_path, name):
    fio_json = tmp_path / "result.json"
    fio_json.write_text(json.dumps({"fio version": "fio-3.33", **ODD[name]}))
    r = CliRunner().invoke(main, ["compare", str(expected), str(fio_json)])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("metric") and r.exception is None


@pytest.mark.parametrize("text", ['{ "jobs": [ {', "", "not json at all\n", '{"fio version": "x"}'])
def test_no_fio_json_is_one_line(expected, tmp_path, text):
    fio_json = tmp_path / "result.json"
    fio_json.write_text(text)
    r = CliRunner().invoke(main, ["compare", str(expected), str(fio_json)])
    assert r.exit_code == 2
    assert r.output == f"lkmlkb: {fio_json}: no fio JSON output (run fio with --output-format=json)\n"
