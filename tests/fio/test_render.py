"""FioJob -> job file / command line (lkmlkb.fio.render)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from fio_helpers import dequote, seed

from lkmlkb.fio.cmdline import find_cmdlines
from lkmlkb.fio.find import find_fio_jobs
from lkmlkb.fio.jobfile import find_jobfiles
from lkmlkb.fio.render import render_jobfile, to_cmdline


def opts(jobs):
    return [{k: v for k, v in j.options.items() if k != "name"} for j in jobs]


@pytest.mark.parametrize("case", ["000", "003"])
def test_jobfile_roundtrip(case):
    jobs = find_fio_jobs(dequote(seed(case)))
    text = render_jobfile(jobs)
    assert text.startswith("[global]\n")
    again = find_jobfiles(text)
    assert opts(again) == opts(jobs)
    assert [j.global_options for j in again] == [
        {k: v for k, v in j.global_options.items() if k != "name"} for j in jobs
    ]


@pytest.mark.parametrize("case", ["000", "003"])
def test_cmdline_roundtrip(case):
    jobs = find_fio_jobs(dequote(seed(case)))
    again = find_cmdlines(to_cmdline(jobs))
    assert opts(again) == opts(jobs)


def test_single_job_without_globals_has_no_global_section():
    jobs = find_cmdlines("fio --name=solo --rw=read --bs=4k")
    assert render_jobfile(jobs) == "[solo]\nrw=read\nbs=4k\n"
    assert to_cmdline(jobs) == "fio --name=solo --rw=read --bs=4k"


def test_odd_names_and_values_are_made_safe():
    jobs = find_cmdlines("fio --name=global --bs=4k --name='a]b' --filename='/tmp/x y'")
    text = render_jobfile(jobs)
    assert "[a_b]" in text
    assert "'--filename=/tmp/x y'" in to_cmdline(jobs)


@pytest.mark.fio
@pytest.mark.skipif(shutil.which("fio") is None, reason="no fio binary installed")
@pytest.mark.parametrize("case", ["000", "001", "003"])
def test_rendered_jobfile_parses_in_fio(case, tmp_path):
    jobs = find_fio_jobs(dequote(seed(case)))
    for job in jobs:  # unresolved shell variables cannot be parsed; give them a value
        for k, v in job.options.items():
            if "$" in v:
                job.options[k] = "/dev/null"
    path = tmp_path / "job.fio"
    path.write_text(render_jobfile(jobs))
    out = subprocess.run(["fio", "--parse-only", str(path)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


def test_values_and_names_cannot_add_lines():
    """A value with a line break (mail is hostile) must not smuggle in an option of its own."""
    from lkmlkb.fio.render import render_jobfile
    from lkmlkb.model import FioJob

    job = FioJob("job", "jobfile", {"rw": "write\nexec_prerun=rm -rf /", "bad name\n[x]": "1", "bs": "4k"})
    text = render_jobfile([job])
    assert "\nexec_prerun" not in text
    assert "[x]" not in text
    assert text.splitlines() == ["[job]", "rw=write exec_prerun=rm -rf /", "bs=4k"]
