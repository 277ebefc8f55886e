"""``lkmlkb repro -o DIR``: a new, empty or bundle folder only; a bundle is replaced whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main
from lkmlkb.errors import ReproError
from lkmlkb.repro import report_from_dict
from lkmlkb.repro.bundle import write_bundle

MAIL = Path(__file__).resolve().parents[2] / "corpus" / "000_a3585e8f2465c212.txt"
FIXTURES = Path(__file__).parent / "fixtures"


def load_report(name: str):
    return report_from_dict(json.loads((FIXTURES / f"report_{name}.json").read_text(encoding="utf-8")))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def repro(out: Path, *extra: str):
    return CliRunner().invoke(main, ["repro", str(MAIL), "-o", str(out), *extra])


def test_folder_that_is_not_a_bundle_is_refused_and_left_alone(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("my project\n")
    (project / "src").mkdir()
    (project / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    before = snapshot(project)
    result = repro(project)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "not an lkmlkb bundle" in lines[0] and str(project) in lines[0]
    assert "Traceback" not in result.output
    assert snapshot(project) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]  # no staging folder left


def test_folder_with_a_stray_file_in_jobs_is_refused(tmp_path):
    out = tmp_path / "b"
    assert repro(out, "--smoke").exit_code == 0
    (out / "jobs" / "notes.txt").write_text("mine\n")
    result = repro(out)
    assert result.exit_code == 2 and "jobs/" in result.output
    assert (out / "jobs" / "notes.txt").read_text() == "mine\n"


def test_file_given_as_folder_is_refused(tmp_path):
    target = tmp_path / "f"
    target.write_text("x")
    assert repro(target).exit_code == 2
    with pytest.raises(ReproError, match="not a folder"):
        write_bundle(load_report("seed000_multipath_write"), target)
    assert target.read_text() == "x"


def test_empty_and_new_folders_take_a_bundle(tmp_path):
    (tmp_path / "empty").mkdir()
    assert repro(tmp_path / "empty").exit_code == 0
    assert repro(tmp_path / "new" / "deeper").exit_code == 0
    for out in (tmp_path / "empty", tmp_path / "new" / "deeper"):
        assert (out / "run.sh").is_file() and list((out / "jobs").glob("*.fio"))


def test_a_bundle_is_replaced_whole(tmp_path):
    out = tmp_path / "b"
    report = load_report("seed000_multipath_write")
    write_bundle(report, out)
    # the old bundle's results and scratch file, and a job the new bundle does not have
    (out / "results").mkdir()
    (out / "results" / "07-old.json").write_text("{}")
    (out / "jobs" / "07-old-job.fio").write_text("[old]\nrw=write\n")
    (out / "lkmlkb-scratch.img").write_bytes(b"\0" * 16)
    info = write_bundle(load_report("seed004_dd_disk_util"), out)
    assert sorted(p.name for p in (out / "jobs").iterdir()) == sorted(p.name for p in info.job_files)
    assert not (out / "results").exists() and not (out / "lkmlkb-scratch.img").exists()
    expected = json.loads((out / "expected.json").read_text())
    assert expected["thread_id"] == load_report("seed004_dd_disk_util").thread_id
    assert all(p.parent == out / "jobs" and p.is_file() for p in info.job_files)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]


def test_cli_replaces_its_own_bundle(tmp_path):
    out = tmp_path / "b"
    assert repro(out).exit_code == 0
    (out / "jobs" / "99-stale.fio").write_text("[stale]\n")
    result = repro(out, "--smoke")
    assert result.exit_code == 0, result.output
    assert not (out / "jobs" / "99-stale.fio").exists()
    assert json.loads((out / "expected.json").read_text())["smoke"] is True


def test_unwritable_place_is_one_line(tmp_path):
    result = repro(Path("/dev/null/x"))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("lkmlkb: /dev/null/x")
    assert "Traceback" not in result.output


def test_report_without_workload_writes_nothing(tmp_path):
    """The bundle is written aside and moved in: a failure leaves no half bundle."""
    out = tmp_path / "b"
    report = load_report("seed000_multipath_write")
    report.fio_jobs = []
    report.results = []
    report.tools = []
    with pytest.raises(ReproError, match="no fio job"):
        write_bundle(report, out, texts=[])
    assert list(tmp_path.iterdir()) == []


def test_dot_as_the_folder(tmp_path, monkeypatch):
    """``-o .`` in an empty folder, then again over the bundle it holds."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert repro(Path(".")).exit_code == 0
    assert repro(Path("."), "--smoke").exit_code == 0
    assert sorted(p.name for p in here.iterdir()) == [
        "README.md",
        "expected.json",
        "jobs",
        "run.sh",
        "setup.sh",
    ]
    assert json.loads((here / "expected.json").read_text())["smoke"] is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here"]
