"""A bundle's run.sh holds the target's free space against what each job lays out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from lkmlkb.model import FioJob
from lkmlkb.repro import report_from_dict
from lkmlkb.repro.bundle import space_needed, write_bundle

FIXTURES = Path(__file__).parent / "fixtures"
TiB = 1024**4


def huge_bundle(tmp_path: Path, numjobs: str = "4", size: str = "1000T") -> Path:
    report = report_from_dict(
        json.loads((FIXTURES / "report_seed000_multipath_write.json").read_text(encoding="utf-8"))
    )
    report.fio_jobs = [
        FioJob(
            name="big",
            form="jobfile",
            options={"rw": "write", "bs": "1M", "size": size, "numjobs": numjobs, "filename": "/dev/sdb"},
            global_options={},
        )
    ]
    info = write_bundle(report, tmp_path / "b")
    assert info.run_script is not None
    return info.run_script


def run(script: Path, target: Path, *args: str, path: str | None = None):
    env = {**os.environ, "LKMLKB_TARGET": str(target)}
    if path:
        env["PATH"] = f"{path}:{env['PATH']}"
    return subprocess.run(["bash", str(script), *args], env=env, capture_output=True, text=True, timeout=60)


def stand_in_fio(tmp_path: Path) -> str:
    """A folder with a ``fio`` that records its arguments: should a check ever break,
    no 1000T file is laid out."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "fio").write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/fio-called\n')
    (bin_dir / "fio").chmod(0o755)
    return str(bin_dir)


def test_run_sh_refuses_a_job_larger_than_the_free_space(tmp_path):
    script = huge_bundle(tmp_path)
    target = tmp_path / "scratch.img"
    proc = run(script, target, path=stand_in_fio(tmp_path))
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    # four clones share the one target file: it counts once, not four times
    assert line.startswith(f"refusing: jobs/01-write-1m.fio needs {1000 * TiB} bytes at {target}")
    assert "--force" in line
    assert not (tmp_path / "fio-called").exists() and not target.exists()


def test_run_sh_force_passes_the_space_check(tmp_path):
    script = huge_bundle(tmp_path)
    proc = run(script, tmp_path / "scratch.img", "--force", path=stand_in_fio(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "jobs/01-write-1m.fio" in (tmp_path / "fio-called").read_text()
    assert run(script, tmp_path / "scratch.img", "--bogus").returncode == 2


def test_an_existing_target_counts_toward_the_space(tmp_path):
    """A target file already as large as the job needs no more space."""
    gib = shutil.disk_usage(tmp_path).free // 1024**3 + 2
    script = huge_bundle(tmp_path, numjobs="1", size=f"{gib}G")
    target = tmp_path / "sparse.img"
    bin_dir = stand_in_fio(tmp_path)
    assert run(script, target, path=bin_dir).returncode == 1
    with open(target, "wb") as f:
        f.truncate(gib * 1024**3)  # sparse: takes no blocks
    proc = run(script, target, path=bin_dir)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "fio-called").exists()


def test_space_needed_counts_clones_only_with_their_own_files():
    shared = FioJob(name="a", form="jobfile", options={"size": "1G", "numjobs": "8", "filename": "/t"})
    same = FioJob(name="b", form="jobfile", options={"size": "2G", "filename": "/t"})
    own = FioJob(name="c", form="jobfile", options={"size": "1G", "numjobs": "3", "directory": "/d"})
    device = FioJob(name="d", form="jobfile", options={"size": "50%", "filename": "/u"})
    assert space_needed([shared]) == 1024**3
    assert space_needed([shared, same]) == 2 * 1024**3
    assert space_needed([own]) == 3 * 1024**3
    assert space_needed([shared, own, device]) == 4 * 1024**3
