"""Must-not-crash: the repro library on garbage reports, facts and fio output."""

from __future__ import annotations

import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lkmlkb.errors import ReproError
from lkmlkb.model import Evidence, FioJob, Report, Result, SetupFact
from lkmlkb.repro.bundle import write_bundle
from lkmlkb.repro.compare import compare, format_comparison, load_fio_json
from lkmlkb.repro.setup_script import render_setup

TEXT = st.text(max_size=60) | st.sampled_from(["\x00", "a\nb", "x" * 5000, "$(reboot)", "`id`", "]"])
JSONISH = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | TEXT,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(TEXT, kids, max_size=4),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(jobs=st.lists(JSONISH, max_size=4), extra=st.dictionaries(TEXT, JSONISH, max_size=3))
def test_compare_on_odd_fio_json(jobs, extra):
    fio = {**extra, "jobs": jobs}
    report = Report(
        thread_id="t",
        title="t",
        results=[
            Result(
                metric="bw", value=1.0, unit="MiB/s", direction="write", label="baseline", evidence=Evidence()
            ),
            Result(metric="iops", value=0.0, unit="IOPS", label="regressed", evidence=Evidence()),
        ],
    )
    try:
        rows = compare(report, fio)
    except (TypeError, AttributeError) as exc:  # pragma: no cover - reported as a failure below
        raise AssertionError(f"compare raised {exc!r}") from exc
    format_comparison(rows)


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=300))
def test_load_fio_json_raises_only_repro_error(text):
    try:
        load_fio_json(text)
    except ReproError:
        pass


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    facts=st.lists(
        st.tuples(st.sampled_from(["scheduler", "tunable", "stack", "queue_depth", "cpu", ""]) | TEXT, TEXT),
        max_size=6,
    ),
    title=TEXT,
)
def test_setup_script_always_parses(facts, title, tmp_path):
    report = Report(thread_id="t", title=title, setup=[SetupFact(k, v, Evidence(text=v)) for k, v in facts])
    path = tmp_path / "setup.sh"
    path.write_text(render_setup(report))
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    opts=st.dictionaries(TEXT, TEXT, max_size=6),
    name=TEXT,
    form=st.sampled_from(["jobfile", "cmdline", "lkp-params"]),
)
def test_write_bundle_on_odd_jobs(opts, name, form, tmp_path):
    report = Report(thread_id="t", title="t", fio_jobs=[FioJob(name=name, form=form, options=opts)])
    try:
        info = write_bundle(report, tmp_path / "b", smoke=True)
    except ReproError:
        return
    for path in info.job_files:
        body = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith(";")]
        assert all(ln.startswith("[") or "=" in ln or ln.replace("_", "").isalnum() for ln in body), body
