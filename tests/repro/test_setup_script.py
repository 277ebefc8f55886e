"""setup.sh: bash accepts it, every change asks first, nothing runs unattended."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from lkmlkb.model import Evidence, SetupFact
from lkmlkb.repro import report_from_dict
from lkmlkb.repro.setup_script import find_module_loads, find_tunables, render_setup

FIXTURES = Path(__file__).parent / "fixtures"
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


@pytest.mark.parametrize("name", SEEDS)
def test_bash_accepts_the_script(name, tmp_path):
    path = tmp_path / "setup.sh"
    path.write_text(render_setup(load_report(name)))
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_seed001_scsi_debug_and_scheduler_steps():
    script = render_setup(load_report("seed001_scsi_debug_hosttags"))
    assert "set -eu" in script
    assert 'echo deadline > "/sys/block/$DEV/queue/scheduler"' in script
    assert 'echo 128 > "/sys/block/$DEV/device/queue_depth"' in script
    assert "    modprobe scsi_debug host_max_queue=128 virtual_gb=256\n" in script
    assert "#   submit_queues=$NRQS was not a plain value in the report" in script


def test_seed002_low_latency_tunable():
    script = render_setup(load_report("seed002_tiobench_cfq"))
    assert 'echo 0 > "/sys/block/$DEV/queue/iosched/low_latency"' in script


def test_seed000_reported_queue_depth():
    assert find_tunables(load_report("seed000_multipath_write").setup) == [("queue_depth", "254")]


def test_every_system_change_is_behind_a_confirmation():
    for name in SEEDS:
        lines = render_setup(load_report(name)).splitlines()
        depth = 0
        for line in lines:
            s = line.strip()
            if s.startswith("if ") and "confirm" in s:
                depth += 1
            elif s == "fi" and depth:
                depth -= 1
            elif depth == 0 and (re.search(r'>\s*"?/', s) or s.startswith(("modprobe", "sysctl", "rmmod"))):
                pytest.fail(f"{name}: unconfirmed change: {line}")


def test_running_without_answers_changes_nothing(tmp_path):
    """stdin closed: every confirm fails, so no stand-in modprobe/sysctl is ever called."""
    report = load_report("seed001_scsi_debug_hosttags")
    report.setup.append(SetupFact("tunable", "dirty_ratio=5", Evidence()))
    path = tmp_path / "setup.sh"
    path.write_text(render_setup(report))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("modprobe", "sysctl", "rmmod"):
        (bin_dir / tool).write_text(f"#!/bin/sh\necho {tool} >> {tmp_path}/called\n")
        (bin_dir / tool).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "LKMLKB_DEV": "loop0"}
    proc = subprocess.run(
        ["bash", str(path)], stdin=subprocess.DEVNULL, env=env, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "called").exists()
    # answering "y" to the module step only does run the stand-in modprobe
    proc = subprocess.run(
        ["bash", str(path)], input="n\nn\nn\ny\nn\n", env=env, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr


def test_values_from_mail_never_become_commands():
    report = load_report("seed000_multipath_write")
    report.title = "x\nrm -rf / #"
    report.setup = [
        SetupFact("scheduler", "mq-deadline; rm -rf /", Evidence()),
        SetupFact("tunable", "low_latency=$(reboot)", Evidence()),
        SetupFact("stack", "modprobe null_blk nr_devices=1 `reboot`=1 queue_mode=2;reboot", Evidence()),
    ]
    script = render_setup(report)
    code = [ln for ln in script.splitlines() if not ln.lstrip().startswith("#")]
    assert not any("rm -rf" in ln or "reboot" in ln for ln in code), script
    # the scan stops at the first token that is not a plain key=value
    assert "    modprobe null_blk nr_devices=1\n" in script


def test_module_loads_from_setup_evidence():
    loads = find_module_loads(load_report("seed001_scsi_debug_hosttags"))
    assert loads == [("scsi_debug", ["host_max_queue=128", "virtual_gb=256"], ["submit_queues=$NRQS"])]
