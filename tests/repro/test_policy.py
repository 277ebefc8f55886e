"""The allow-list over fio's whole catalog: no generated job can write outside its target.

Every option fio knows (and every alias) is fed hostile values; what survives the safety pass
must be an option the policy lists as reviewed, with a value of the shape fio gives it, and
no path but the target.  The real fio then runs every such job in a scratch directory beside a
canary directory that every hostile value points into: nothing may appear or change there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lkmlkb.fio import catalog
from lkmlkb.model import Evidence, FioJob, Report
from lkmlkb.repro import policy, safety
from lkmlkb.repro.bundle import SMOKE_DROP, render_jobs, write_bundle
from lkmlkb.repro.safety import TARGET_PLACEHOLDER, make_safe

FIO = shutil.which("fio")
OPTIONS = catalog.load()["options"]
ALL_NAMES = sorted(set(OPTIONS) | {a for row in OPTIONS.values() for a in row.get("aliases") or []})
KEPT_ACTIONS = {"keep", "target", "log", "engine", "memory", "job"}
#: values a hostile job gives an option, CANARY standing for a directory the job must not touch
HOSTILE = [
    "CANARY/x",
    "mmap:CANARY/x",
    "mmaphuge:CANARY/x",
    "mmapshared:CANARY/x",
    "{CANARY/x}",
    "'{CANARY/x}'",
    "0x1,{CANARY/x}",
    "../../CANARY/x",
    "~/x",
    "/dev/sda",
    "external:CANARY/x.so",
    "exec",
    "e4defrag",
    "net",
    "touch CANARY/pwned",
    "`touch CANARY/pwned`",
    "$(touch CANARY/pwned)",
    "${HOME}/x",
    "1\nexec_prerun=touch CANARY/pwned",
    "x;touch CANARY/pwned",
    "1",
    "0",
    "write",
]


def assert_confined(options: dict[str, str], target: str = TARGET_PLACEHOLDER) -> None:
    """What a generated job may hold: reviewed options, checked values, no path but the target."""
    table = safety.rules()
    for name, value in options.items():
        rule = table.get(name)
        assert rule is not None and rule.action in KEPT_ACTIONS, f"{name}={value!r} kept without review"
        assert not re.search(r"[\x00-\x1f\x7f`]|\$\(", value), f"{name}={value!r}"
        if name == "filename":
            assert value == target
            continue
        assert not re.search(r"/[A-Za-z_.~]|^[.~]|\{|\\", value), f"{name}={value!r} holds a path"
        for var in re.findall(r"\$\{([^}]*)\}", value):
            assert var == safety.TARGET_VAR
        if rule.action == "engine":
            assert value in policy.ENGINES, value
        elif rule.action == "memory":
            assert ":" not in value and value in OPTIONS["mem"]["valid_values"], value
        elif rule.check is not None:
            assert rule.check(value), f"{name}={value!r}"
    assert options.get("filename") == target


# ------------------------------------------------------------------ the table


def test_every_catalog_option_is_reviewed_exactly_once():
    groups = [set(policy.KEEP), set(policy.DROP), set(policy.SPECIAL_CHECKS), set(policy.SPECIAL_ACTIONS)]
    listed = [name for group in groups for name in group]
    assert len(listed) == len(set(listed)), "an option listed twice"
    assert set(listed) == set(OPTIONS), (
        f"unreviewed: {sorted(set(OPTIONS) - set(listed))}; not in fio's catalog: {sorted(set(listed) - set(OPTIONS))}"
    )
    table = safety.rules()
    assert set(table) == set(OPTIONS)


@pytest.mark.parametrize("name", sorted(n for n, row in OPTIONS.items() if row["type"] == "str"))
def test_every_free_text_option_has_a_rule_of_its_own(name):
    # fio reads a "str" option's value as text: only a listed shape or fio's own choices may pass
    rule = safety.rules()[name]
    assert rule.action != "keep" or name in policy.SPECIAL_CHECKS or OPTIONS[name]["valid_values"], name


def test_an_option_the_table_does_not_list_is_dropped(monkeypatch):
    table = dict(safety.rules())
    del table["iodepth"]
    monkeypatch.setattr(safety, "rules", lambda: table)
    safe, notes = make_safe(FioJob(name="j", form="jobfile", options={"rw": "read", "iodepth": "32"}))
    assert "iodepth" not in safe.options
    assert any("iodepth" in n and "not an option reviewed" in n for n in notes)


@pytest.mark.parametrize("value", [v for v in OPTIONS["rw"]["valid_values"]])
def test_every_writing_direction_counts_as_a_write(value):
    # from fio's own list: whatever writes or trims (trimwrite, randtrimwrite, rw, randrw ...) writes
    writes = "write" in value or "trim" in value or value in ("rw", "randrw", "readwrite")
    assert safety.job_writes({"rw": value}) is writes
    assert safety.job_writes({"rw": value + ":8"}) is writes


# ------------------------------------------------------------------ the two holes, by name


@pytest.mark.parametrize(
    "value", ["mmap:/home/user/thesis.tex", "mmaphuge:/hugetlbfs/x", "mmapshared:/x", "MMAP:/x", "shm:/x"]
)
@pytest.mark.parametrize("name", ["mem", "iomem", "--iomem", "MEM"])
def test_a_memory_file_is_removed(name, value):
    safe, notes = make_safe(FioJob(name="j", form="jobfile", options={"rw": "read", name: value}))
    assert safe.options["mem"] == value.split(":", 1)[0].lower()
    assert any("/" in n and "truncate" in n for n in notes)
    assert_confined(safe.options)


def test_the_e4defrag_donor_cannot_be_named():
    raw = {"ioengine": "e4defrag", "donorname": "/home/user/thesis.tex", "inplace": "1", "rw": "write"}
    safe, notes = make_safe(FioJob(name="j", form="jobfile", options=raw))
    assert safe.options["ioengine"] == "psync"
    assert "donorname" not in safe.options and "inplace" not in safe.options
    assert any("donor" in n for n in notes)


@pytest.mark.parametrize("name", ["buffer_pattern", "verify_pattern"])
def test_a_pattern_cannot_read_a_file(name):
    # fio fills buffers from a file named in braces
    safe, _ = make_safe(FioJob(name="j", form="jobfile", options={"rw": "write", name: "{/etc/shadow}"}))
    assert name not in safe.options
    safe, _ = make_safe(FioJob(name="j", form="jobfile", options={"rw": "write", name: "0xdeadbeef"}))
    assert safe.options[name] == "0xdeadbeef"


@pytest.mark.parametrize(
    ("name", "value", "kept"),
    [
        # the shapes fio's HOWTO gives (bssplit, cmdprio_bssplit, buffer_pattern)
        ("bssplit", "4k/10:64k/50:32k/40", True),
        ("bssplit", "2k/50:4k/50,4k/90:8k/10", True),
        ("bssplit", "4k/:8k/", True),
        ("cmdprio_bssplit", "4k/50/1/7:64k/50", True),
        ("buffer_pattern", "0xdeadface", True),
        ("buffer_pattern", "-12", True),
        ("buffer_pattern", "'abcd', 0x1f", True),
        ("bssplit", "4k/10;touch x", False),
        ("buffer_pattern", "1{/etc/shadow}", False),
    ],
)
def test_split_and_pattern_values_keep_their_documented_shapes(name, value, kept):
    options = {"rw": "write", "ioengine": "libaio", name: value}
    safe, _ = make_safe(FioJob(name="j", form="jobfile", options=options))
    assert (safe.options.get(name) == value) is kept


# ------------------------------------------------------------------ the whole catalog


def engines_of(name: str) -> list[dict[str, str]]:
    """No engine, common ones, and the engines the option belongs to (``donorname``: e4defrag)."""
    own = (catalog.entry(name) or {}).get("engines") or []
    return [{}] + [{"ioengine": e} for e in dict.fromkeys(["libaio", "io_uring", "sg", *own])]


@pytest.mark.parametrize("name", ALL_NAMES)
def test_no_option_of_the_catalog_escapes_with_a_hostile_value(name):
    for value in HOSTILE:
        value = value.replace("CANARY", "/srv/canary")
        for extra in engines_of(name):
            safe, _ = make_safe(
                FioJob(name="j", form="jobfile", options={"rw": "write", **extra, name: value})
            )
            assert_confined(safe.options)


#: options whose hostile values ("1", "write") are valid but make fio refuse or fail the job (a 1-byte
#: file, a 1 us latency bound, zones without a zone mode, a job waiting for a job that is not there) or
#: end the other jobs of the run before they start (exitall) or report them as one (group_reporting)
UNRUNNABLE_ALONE = (
    "filesize",
    "latency_target",
    "max_latency",
    "zonesize",
    "zonerange",
    "zoneskip",
    "wait_for",
    "exitall",
    "exitall_on_error",
    "exit_what",
    "group_reporting",
    "new_group",
    "stonewall",
)


def bounded(job: FioJob) -> FioJob:
    """The job cut short (a few IOs, a second at most) and free of the reporter's CPU and NUMA layout, as
    a smoke bundle's: what it touches is the point."""
    o = {k: v for k, v in job.options.items() if k not in SMOKE_DROP + UNRUNNABLE_ALONE}
    if o.get("ioengine") in ("sg", "io_uring_cmd"):  # devices only: the run's target is a file
        o["ioengine"] = "psync"
        safety.drop_foreign_engine_options(o)
    if o.get("mem") == "mmaphuge":
        o["mem"] = "mmap"  # without huge pages the job's I/O fails (EFAULT) and fio 3.33 can crash the run
    if o.get("ioengine") == "cpuio":
        o.setdefault("cpuload", "10")  # the engine refuses to start without it
    o.update(size="256k", runtime="1", numjobs="1", iodepth="1")
    o.pop("time_based", None)
    return FioJob(name=job.name, form=job.form, options=safety._ordered(o))


def snapshot(root: Path) -> dict[str, tuple[int, float]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime) for p in root.rglob("*")}


@pytest.mark.fio
@pytest.mark.skipif(FIO is None, reason="needs the real fio (scripts/test installs it)")
def test_the_real_fio_touches_nothing_outside_the_target(tmp_path):
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "x").write_text("the reporter's data\n")
    (canary / "x.so").write_text("not a library\n")
    run_dir, target_dir = tmp_path / "run", tmp_path / "target"
    run_dir.mkdir()
    target_dir.mkdir()
    before = snapshot(canary)
    jobs: dict[tuple, FioJob] = {}  # one run of each distinct job the safety pass let through
    for name in ALL_NAMES:
        for value in HOSTILE:
            if "\n" in value:
                continue  # a job file line cannot hold one; the unit test above covers it
            for extra in engines_of(name):
                raw = FioJob(
                    name="j",
                    form="jobfile",
                    options={"rw": "randrw", **extra, name: value.replace("CANARY", str(canary))},
                )
                safe, _ = make_safe(raw)
                assert_confined(safe.options)
                job = bounded(safe)
                jobs.setdefault(tuple(job.options.items()), job)
    assert len(jobs) > 150  # most options keep a value of their own ("1", "0", "write")
    env = {**os.environ, "LKMLKB_TARGET": str(target_dir / "scratch"), "HOME": str(canary)}
    batch = list(jobs.values())
    for start in range(0, len(batch), 200):
        chunk = [
            FioJob(name=f"j{start + i}", form="jobfile", options=j.options)
            for i, j in enumerate(batch[start : start + 200])
        ]
        job_file = run_dir / f"all{start}.fio"
        job_file.write_text("[global]\nthread\n\n" + render_jobs(chunk), encoding="utf-8")
        proc = subprocess.run(
            [FIO, str(job_file), "--output-format=json", f"--output=out{start}.json"],
            cwd=run_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        # every job ran (one may end in an I/O error of this machine: mem=mmaphuge without huge pages)
        assert "failed parsing" not in proc.stderr and "dropped" not in proc.stderr, proc.stderr[-2000:]
        out = (run_dir / f"out{start}.json").read_text()  # fio's warnings come first ("exitall": signal 15)
        assert len(json.loads(out[out.index("{\n") :])["jobs"]) == len(chunk), proc.stderr[-2000:]
    assert snapshot(canary) == before, "fio touched the canary directory"
    assert sorted(p.name for p in target_dir.iterdir()) == ["scratch"]
    assert not list(tmp_path.glob("pwned*")) and not (canary / "pwned").exists()


# ------------------------------------------------------------------ hostile mail through repro

option_names = st.sampled_from(ALL_NAMES) | st.sampled_from(["include", "exec_prerun", "mem", "donorname"])
hostile_values = (
    st.sampled_from([v.replace("CANARY", "/home/user") for v in HOSTILE])
    | st.text(max_size=40)
    | st.builds(
        lambda k, p: f"{k}:{p}",
        st.sampled_from(["mmap", "mmaphuge", "shm"]),
        st.text(min_size=1, max_size=20),
    )
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(jobs=st.lists(st.dictionaries(option_names, hostile_values, max_size=10), min_size=1, max_size=3))
def test_hostile_jobs_through_repro_write_only_confined_job_files(tmp_path_factory, jobs):
    out = tmp_path_factory.mktemp("bundle")
    report = Report(
        thread_id="t@x",
        title="hostile",
        is_regression_report=True,
        fio_jobs=[
            FioJob(
                name=f"job{i}",
                form="jobfile",
                options={"rw": "write", **o},
                evidence=Evidence("t@x", 0, 0, "x"),
            )
            for i, o in enumerate(jobs)
        ],
    )
    info = write_bundle(report, out)
    for path in info.job_files:
        options: dict[str, str] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith(";"):
                continue
            if line.startswith("["):
                assert re.fullmatch(r"\[[A-Za-z0-9_.-]{1,60}\]", line), line
                continue
            name, _, value = line.partition("=")
            options[name] = value
        assert_confined(options)


def test_wait_for_names_a_job_of_the_same_file_or_goes(tmp_path):
    def job(name: str, **extra: str) -> FioJob:
        return FioJob(
            name=name,
            form="jobfile",
            options={"rw": "read", "size": "1M", **extra},
            evidence=Evidence("t@x", 0, 0, "x"),
        )

    report = Report(
        thread_id="t@x",
        title="t",
        fio_jobs=[job("first"), job("second", wait_for="first"), job("third", wait_for="elsewhere")],
    )
    info = write_bundle(report, tmp_path)
    text = info.job_files[0].read_text()
    assert "\nwait_for=first\n" in text and "\nwait_for=elsewhere" not in text
    assert any("wait_for=elsewhere" in n for n in info.notes[info.job_files[0].name])


@pytest.mark.parametrize("value", ["(4k*2)", "$mb_memory/4", "4k*2", "(1M + 4k)", "4k,8k", "512"])
def test_fios_expressions_of_numbers_and_keywords_are_sizes(value):
    assert safety.rules()["bs"].check(value)


@pytest.mark.parametrize("value", ["0/A", "(0/A)", "1/home", "4k/etc", "(4k*x)", "/etc/passwd"])
def test_a_letter_after_a_slash_is_no_expression(value):
    # found by the hostile-jobs property test: an expression's shape let "ba=0/A" through, and a
    # value shaped like a path is never kept
    assert not safety.rules()["bs"].check(value)
    assert not safety.rules()["ba"].check(value)
