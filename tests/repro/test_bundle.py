"""Bundles from seed reports: every job file passes the real fio, smoke runs finish and compare."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lkmlkb.errors import ReproError
from lkmlkb.model import FioJob
from lkmlkb.repro import report_from_dict
from lkmlkb.repro.bundle import check_jobfile, write_bundle
from lkmlkb.repro.compare import compare, format_comparison, load_fio_json, report_from_expected

FIXTURES = Path(__file__).parent / "fixtures"
FIO = shutil.which("fio")
needs_fio = pytest.mark.skipif(
    FIO is None, reason="fio is not installed (needed to check job files for real)"
)
SEEDS = [
    "seed000_multipath_write",
    "seed001_scsi_debug_hosttags",
    "seed002_tiobench_cfq",
    "seed003_gfs2_write",
    "seed004_dd_disk_util",
    "lkp_fio_basic_write_iops",
]


def load_report(name: str):
    return report_from_dict(json.loads((FIXTURES / f"report_{name}.json").read_text(encoding="utf-8")))


def fio_env(target: Path) -> dict[str, str]:
    return {**os.environ, "LKMLKB_TARGET": str(target)}


def parse_sections(text: str) -> dict[str, list[dict[str, str]]]:
    """Job file text -> section name -> list of option dicts (sections may repeat)."""
    out: dict[str, list[dict[str, str]]] = {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("["):
            current = {}
            out.setdefault(line.strip("[]"), []).append(current)
        else:
            k, _, v = line.partition("=")
            current[k] = v
    return out


def test_seed000_bundle_layout(tmp_path):
    info = write_bundle(load_report("seed000_multipath_write"), tmp_path)
    assert [p.name for p in info.job_files] == ["01-write-128k.fio"]
    text = info.job_files[0].read_text()
    sections = parse_sections(text)
    # [global] kept, two [job] sections, the devices replaced
    assert {
        "ioengine": "libaio",
        "bs": "128k",
        "direct": "1",
        "fsync": "1",
        "group_reporting": "",
        "iodepth": "64",
        "numjobs": "24",
        "runtime": "600",
        "rw": "write",
    }.items() <= sections["global"][0].items()
    assert len(sections["job"]) == 2
    assert [{**sections["global"][0], **j}["filename"] for j in sections["job"]] == ["${LKMLKB_TARGET}"] * 2
    assert "/dev/dm-0" not in "\n".join(ln for ln in text.splitlines() if not ln.startswith(";"))
    assert "<a3585e8f2465c212>, body lines 123-135" in text
    expected = json.loads(info.expected.read_text())
    assert expected["claim"]["regression_pct"] == 33.65
    assert expected["fio_version"] == "fio-3.19"
    assert {r["value"] for r in expected["results_by_kernel"]["6.8-rc7"]} == {236, 1884, 448}
    assert {r["value"] for r in expected["results_by_kernel"]["6.8-rc7+ Revert"]} == {315, 2518, 462}
    readme = info.readme.read_text()
    assert (
        "LKMLKB_TARGET=/path fio jobs/01-write-128k.fio --output-format=json --output=result.json" in readme
    )
    assert "lkmlkb compare" in readme
    assert "filename /dev/dm-0 (a device) replaced by ${LKMLKB_TARGET}" in readme
    assert info.writing_jobs == ["01-write-128k.fio"]


def test_same_job_posted_twice_is_one_workload(tmp_path):
    # seed 001: the script runs the same fio line twice (bs=8K then bs=8k)
    info = write_bundle(load_report("seed001_scsi_debug_hosttags"), tmp_path)
    sections = parse_sections(info.job_files[0].read_text())
    assert len(info.job_files) == 1 and len(sections["test"]) == 1
    assert any("filename $DEVS" in n for n in info.notes["01-randread-8k.fio"])


def test_report_without_workload_is_an_error(tmp_path):
    report = load_report("seed004_dd_disk_util")
    report.tools = ["iostat"]
    for r in report.results:
        r.evidence.text = "no command here"
    with pytest.raises(ReproError, match="no fio job"):
        write_bundle(report, tmp_path)


@pytest.mark.fio
@needs_fio
@pytest.mark.parametrize("name", SEEDS)
def test_every_job_file_passes_fio_parse_only(name, tmp_path):
    info = write_bundle(load_report(name), tmp_path / "b")
    assert info.job_files
    for path in info.job_files:
        ok, msg = check_jobfile(path, fio_env(tmp_path / "scratch"))
        assert ok, f"{path.name}: {msg}\n{path.read_text()}"


@pytest.mark.fio
@needs_fio
def test_explicit_target_parses_without_environment(tmp_path):
    info = write_bundle(load_report("seed003_gfs2_write"), tmp_path / "b", target=str(tmp_path / "f"))
    env = {k: v for k, v in os.environ.items() if k != "LKMLKB_TARGET"}
    ok, msg = check_jobfile(info.job_files[0], env)
    assert ok, msg
    assert "${LKMLKB_TARGET}" not in info.job_files[0].read_text()


def run_smoke(report_name: str, tmp_path: Path) -> tuple[dict, object]:
    report = load_report(report_name)
    info = write_bundle(report, tmp_path / "b", smoke=True)
    (path,) = info.job_files
    out = tmp_path / "result.json"
    proc = subprocess.run(
        [FIO, str(path), "--output-format=json", f"--output={out}"],
        env=fio_env(tmp_path / "scratch.img"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr + path.read_text()
    return load_fio_json(out), report


@pytest.mark.fio
@needs_fio
def test_seed000_smoke_run_and_compare(tmp_path):
    fio_json, report = run_smoke("seed000_multipath_write", tmp_path)
    # two jobs x numjobs<=2, group_reporting kept: one reported group doing writes
    assert fio_json["jobs"][0]["write"]["io_bytes"] > 0
    opts = {**fio_json.get("global options", {}), **fio_json["jobs"][0].get("job options", {})}
    assert opts["numjobs"] == "2" and opts["runtime"] == "1" and opts["size"] == "64M"
    rows = compare(report, fio_json)
    bw = [r for r in rows if r.metric == "bw" and r.direction == "write"]
    assert {r.label for r in bw} == {"regressed", "baseline"}
    assert all(r.yours and r.yours > 0 and r.ratio for r in bw)
    assert bw[0].verdict in ("closer to baseline", "closer to regressed")
    read_rows = [r for r in rows if r.direction == "read"]
    assert all(r.yours is None for r in read_rows)  # the write job says nothing about reads
    table = format_comparison(rows)
    assert "236 MiB/s" in table and "315 MiB/s" in table
    # the bundle's expected.json alone gives the same comparison (lkmlkb compare expected.json result.json)
    again = compare(report_from_expected(tmp_path / "b" / "expected.json"), fio_json)

    def key(r):
        return (r.kernel, r.label or "", r.metric, r.direction, r.reported, r.yours or 0.0)

    assert sorted(map(key, again)) == sorted(map(key, rows))


@pytest.mark.fio
@needs_fio
@pytest.mark.parametrize(
    "name", ["seed001_scsi_debug_hosttags", "seed002_tiobench_cfq", "seed003_gfs2_write"]
)
def test_smoke_runs_move_data_in_the_reported_direction(name, tmp_path):
    fio_json, report = run_smoke(name, tmp_path)
    side = "read" if report.results[0].direction in ("read", "randread") else "write"
    assert sum(j[side]["io_bytes"] for j in fio_json["jobs"]) > 0
    rows = compare(report, fio_json)
    assert rows and all(r.yours and r.match == "exact" for r in rows)


@pytest.mark.fio
@needs_fio
def test_dd_smoke_run_reads(tmp_path):
    fio_json, report = run_smoke("seed004_dd_disk_util", tmp_path)
    job = fio_json["jobs"][0]
    opts = {**fio_json.get("global options", {}), **job.get("job options", {})}
    assert opts["rw"] == "read" and opts["bs"] == "1M"
    assert job["read"]["io_bytes"] > 0
    rows = compare(report, fio_json)
    tput = next(r for r in rows if r.metric == "throughput")
    assert tput.yours == job["read"]["bw_bytes"]


@pytest.mark.fio
@needs_fio
def test_lkp_smoke_run(tmp_path):
    fio_json, report = run_smoke("lkp_fio_basic_write_iops", tmp_path)
    rows = compare(report, fio_json)
    iops = [r for r in rows if r.metric == "iops"]
    assert {r.kernel for r in iops} == {"8f764b91fd", "574e7779cf"}
    assert iops[0].yours == pytest.approx(sum(j["write"]["iops"] for j in fio_json["jobs"]))


@pytest.mark.fio
@needs_fio
def test_neutralized_mail_job_runs_on_scratch_file(tmp_path):
    """A pasted job with exec_prerun and a raw-device write: the bundle runs it on a scratch file."""
    report = load_report("seed000_multipath_write")
    marker = tmp_path / "prerun-ran"
    report.fio_jobs = [
        FioJob(
            name="job",
            form="jobfile",
            options={
                "rw": "write",
                "bs": "128k",
                "filename": "/dev/sda",
                "exec_prerun": f"touch {marker}",
                "ioengine": "exec",
            },
            global_options={},
        )
    ]
    info = write_bundle(report, tmp_path / "b", smoke=True)
    text = info.job_files[0].read_text()
    body = [ln for ln in text.splitlines() if not ln.startswith(";")]
    assert not any(ln.startswith(("exec_prerun", "ioengine=exec")) for ln in body)
    scratch = tmp_path / "scratch.img"
    proc = subprocess.run(
        [FIO, str(info.job_files[0]), "--output-format=json"],
        env=fio_env(scratch),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert scratch.stat().st_size > 0


@needs_fio
def test_run_script_refuses_block_device_for_writing_jobs(tmp_path):
    info = write_bundle(load_report("seed000_multipath_write"), tmp_path)
    assert subprocess.run(["bash", "-n", str(info.run_script)]).returncode == 0
    block = next(
        (f"/dev/{d}" for d in ("loop0", "vda", "sda", "nvme0n1") if Path(f"/dev/{d}").is_block_device()), None
    )
    if block is None:
        pytest.skip("no block device node to point LKMLKB_TARGET at")
    # a stand-in fio first on PATH: should the refusal ever break, nothing touches the device
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "fio").write_text(f"#!/bin/sh\necho called > {tmp_path}/fio-called\n")
    (fake / "fio").chmod(0o755)
    env = {**os.environ, "LKMLKB_TARGET": block, "PATH": f"{fake}:{os.environ['PATH']}"}
    proc = subprocess.run(["bash", str(info.run_script)], env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and "refusing" in proc.stderr
    assert not (tmp_path / "fio-called").exists()
    proc = subprocess.run(
        ["bash", str(info.run_script)],
        env={**env, "LKMLKB_TARGET": str(tmp_path / "f")},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0 and (tmp_path / "fio-called").exists()


@pytest.mark.fio
@needs_fio
def test_engine_option_shared_by_jobs_with_different_engines_parses(tmp_path):
    """hipri is taken by io_uring and pvsync2: in [global] fio would reject it before any engine loads."""
    report = load_report("seed000_multipath_write")
    report.fio_jobs = [
        FioJob(name="a", form="jobfile", options={"ioengine": "io_uring", "hipri": "1", "rw": "randread"}),
        FioJob(name="b", form="jobfile", options={"ioengine": "pvsync2", "hipri": "1", "rw": "randread"}),
    ]
    info = write_bundle(report, tmp_path / "b")
    sections = parse_sections(info.job_files[0].read_text())
    assert "hipri" not in sections.get("global", [{}])[0]
    ok, msg = check_jobfile(info.job_files[0], fio_env(tmp_path / "scratch"))
    assert ok, msg
