"""Report -> reproduction bundle: jobs/*.fio, setup.sh, run.sh, expected.json, README.md.

One job file per reported workload (the jobs of one pasted job file or fio
command line stay together, with their ``[global]`` section), each headed by
comments naming the message and body lines it came from and what the safety
pass changed.  ``smoke=True`` scales every job down so a bundle can be
checked end to end in seconds.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from lkmlkb.errors import ReproError
from lkmlkb.fio import catalog
from lkmlkb.fio.render import render_jobfile
from lkmlkb.fio.units import kb_base_of, parse_size
from lkmlkb.model import FioJob, Report
from lkmlkb.repro import derive, safety
from lkmlkb.repro.setup_script import render_setup

log = logging.getLogger(__name__)

#: what a smoke run scales a job down to, so that a bundle is checked end to end in seconds: its
#: file size, its runtime (seconds) and its number of jobs
SMOKE_SIZE = 64 * 1024 * 1024
SMOKE_RUNTIME = "1"
SMOKE_NUMJOBS = 2
#: options a smoke run drops: they pin CPUs/NUMA nodes of the reporter's machine or slow the run
SMOKE_DROP = (
    "cpus_allowed",
    "cpus_allowed_policy",
    "cpumask",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "lockmem",
    "ramp_time",
    "startdelay",
    "thinktime",
    "thinktime_blocks",
    "thinktime_spin",
    "offset",
    "offset_increment",
    "loops",
    "number_ios",
    "rate",
    "rate_iops",
    "rate_min",
    "rate_iops_min",
    "steadystate",
    "steadystate_duration",
    "steadystate_ramp_time",
)
#: engines that run on an ordinary file (a smoke run's scratch target)
FILE_ENGINES = frozenset(
    {
        "sync",
        "psync",
        "vsync",
        "pvsync",
        "pvsync2",
        "libaio",
        "io_uring",
        "posixaio",
        "mmap",
        "splice",
        "null",
        "falloc",
        "ftruncate",
    }
)

COMMENT_UNSAFE_RE = re.compile(
    r"""
    [\x00-\x1f\x7f-\x9f\u2028\u2029]    # control characters and Unicode line breaks (NEL, LS, PS) (a newline would end the comment line)
""",
    re.VERBOSE,
)

#: what a bundle folder may hold: what write_bundle writes and what its run.sh adds
BUNDLE_ENTRIES = frozenset(
    {"jobs", "setup.sh", "run.sh", "expected.json", "README.md", "results", "lkmlkb-scratch.img"}
)

FILE_STEM_RE = re.compile(
    r"""
    [^a-z0-9]+    # anything but plain lowercase words and digits ("128k", "randread")
""",
    re.VERBOSE,
)


@dataclass
class Workload:
    """The jobs that ran together (one job file or fio command line) and where they came from."""

    jobs: list[FioJob]
    notes: list[str] = field(default_factory=list)
    derived: bool = False


@dataclass
class BundleInfo:
    """What :func:`write_bundle` wrote."""

    out_dir: Path
    job_files: list[Path] = field(default_factory=list)
    #: job file name -> what the safety pass (and derivation, smoke scaling) changed
    notes: dict[str, list[str]] = field(default_factory=dict)
    #: job file names whose jobs write or trim
    writing_jobs: list[str] = field(default_factory=list)
    #: job file name -> bytes its files take on the target (see :func:`space_needed`)
    space: dict[str, int] = field(default_factory=dict)
    derived: bool = False
    smoke: bool = False
    setup_script: Path | None = None
    expected: Path | None = None
    readme: Path | None = None
    run_script: Path | None = None


def write_bundle(
    report: Report,
    out_dir: str | Path,
    target: str | None = None,
    allow_device_writes: bool = False,
    smoke: bool = False,
    texts: list[str] | None = None,
) -> BundleInfo:
    """Write the reproduction of ``report`` into ``out_dir`` and say what was written.

    Raises :class:`ReproError` when the report has no workload that can be
    turned into a fio job (no fio job, no LKP parameters, no dd or tiobench
    run in its text).
    """
    final = Path(out_dir)
    check_out_dir(final)
    workloads = collect_workloads(report, texts or [])
    if not workloads:
        raise ReproError(
            report.thread_id or "report", "no fio job, LKP parameters, dd or tiobench run to reproduce"
        )
    place = final.absolute()  # "-o ." stages beside the folder, not in it
    try:
        place.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{place.name or 'bundle'}-", dir=place.parent))
    except OSError as exc:
        raise ReproError(str(final), f"cannot create the bundle folder: {exc.strerror or exc}") from exc
    try:
        info = _write_files(report, staging, workloads, target, allow_device_writes, smoke)
        _install(staging, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return _moved(info, staging, final)


def _write_files(
    report: Report,
    out: Path,
    workloads: list[Workload],
    target: str | None,
    allow_device_writes: bool,
    smoke: bool,
) -> BundleInfo:
    """Every file of the bundle, written into the empty folder ``out``."""
    (out / "jobs").mkdir()
    info = BundleInfo(out_dir=out, smoke=smoke, derived=any(w.derived for w in workloads))
    engines = available_engines() if smoke else frozenset()
    for index, wl in enumerate(workloads, 1):
        safe_jobs, notes = _safe_workload(wl, target, allow_device_writes)
        if smoke:
            for job in safe_jobs:
                notes.extend(n for n in smoke_scale(job, engines) if n not in notes)
        name = f"{index:02d}-{workload_stem(safe_jobs)}.fio"
        path = out / "jobs" / name
        path.write_text(jobfile_text(report, wl, safe_jobs, notes), encoding="utf-8")
        info.job_files.append(path)
        info.notes[name] = notes
        info.space[name] = space_needed(safe_jobs)
        if any(safety.job_writes(j.options) for j in safe_jobs):
            info.writing_jobs.append(name)
    info.setup_script = out / "setup.sh"
    info.setup_script.write_text(render_setup(report), encoding="utf-8")
    info.setup_script.chmod(0o644)
    info.run_script = out / "run.sh"
    info.run_script.write_text(render_run_script(info), encoding="utf-8")
    info.expected = out / "expected.json"
    info.expected.write_text(
        json.dumps(expected_data(report, info), indent=2, sort_keys=True, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    info.readme = out / "README.md"
    info.readme.write_text(render_readme(report, info), encoding="utf-8")
    return info


# ---------------------------------------------------------------- the bundle folder


def bundle_problem(folder: Path) -> str | None:
    """Why ``folder`` (existing, not empty) is not an lkmlkb bundle, or None when it is one.

    A bundle holds only what :func:`write_bundle` and its ``run.sh`` write:
    ``jobs/*.fio``, ``results/*.json``, the scratch file and the four files,
    with an ``expected.json`` that names its jobs.
    """
    names = {p.name for p in folder.iterdir()}
    extra = sorted(names - BUNDLE_ENTRIES)
    if extra:
        return f"it holds {', '.join(extra[:3])}{' ...' if len(extra) > 3 else ''}"
    for sub, suffix in (("jobs", ".fio"), ("results", ".json")):
        path = folder / sub
        if path.exists() and (
            path.is_symlink()
            or not path.is_dir()
            or any(p.suffix != suffix or not p.is_file() for p in path.iterdir())
        ):
            return f"its {sub}/ holds more than *{suffix} files"
    try:
        data = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "it has no readable expected.json"
    if not isinstance(data, dict) or not {"results_by_kernel", "jobs"} <= data.keys():
        return "its expected.json is not a bundle's"
    return None


def check_out_dir(folder: Path) -> None:
    """Raise :class:`ReproError` unless ``folder`` is new, empty, or an lkmlkb bundle."""
    try:
        if not folder.exists() and not folder.is_symlink():
            return
        if folder.is_symlink() or not folder.is_dir():
            raise ReproError(str(folder), "exists and is not a folder")
        if not any(folder.iterdir()):
            return
        problem = bundle_problem(folder)
    except OSError as exc:
        raise ReproError(str(folder), f"cannot read the folder: {exc.strerror or exc}") from exc
    if problem:
        raise ReproError(str(folder), f"not empty and not an lkmlkb bundle ({problem}); choose a new folder")


def _install(staging: Path, final: Path) -> None:
    """Put the bundle written in ``staging`` at ``final``, replacing an older bundle whole."""
    check_out_dir(final)
    try:
        final.mkdir(exist_ok=True)
        for old in list(final.iterdir()):
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            else:
                old.unlink()
        for new in list(staging.iterdir()):
            new.rename(final / new.name)
    except OSError as exc:
        raise ReproError(str(final), f"cannot write the bundle: {exc.strerror or exc}") from exc


def _moved(info: BundleInfo, staging: Path, final: Path) -> BundleInfo:
    """``info`` with its paths under ``final`` instead of ``staging``."""

    def move(path: Path | None) -> Path | None:
        return None if path is None else final / path.relative_to(staging)

    info.out_dir = final
    info.job_files = [final / p.relative_to(staging) for p in info.job_files]
    info.setup_script = move(info.setup_script)
    info.expected = move(info.expected)
    info.readme = move(info.readme)
    info.run_script = move(info.run_script)
    return info


# ---------------------------------------------------------------- workloads


def collect_workloads(report: Report, texts: list[str]) -> list[Workload]:
    """The report's fio jobs grouped by the paste they came from, plus derived jobs.

    Jobs of one job file or command line share their message and their
    ``[global]`` options; the same job posted twice (``bs=8K`` and ``bs=8k``
    in two runs of one script) is kept once.
    """
    groups: dict[tuple, Workload] = {}
    seen: set[tuple] = set()
    for job in report.fio_jobs or []:
        if job.form not in derive.RUNNABLE_FORMS:
            continue
        key = _job_key(job)
        if key in seen:
            continue
        seen.add(key)
        gkey = (
            job.evidence.message_id,
            job.form,
            tuple(sorted((str(k), str(v)) for k, v in (job.global_options or {}).items())),
        )
        groups.setdefault(gkey, Workload(jobs=[])).jobs.append(job)
    workloads = list(groups.values())
    for job in derive.derive_jobs(report, texts):
        workloads.append(Workload(jobs=[job], derived=True))
    return workloads


def _job_key(job: FioJob) -> tuple:
    """The job's name and options, values compared without case ("8K" is "8k")."""
    opts = tuple(
        sorted(
            ((catalog.canonical_name(str(k)) or str(k)), str(v).strip().lower())
            for k, v in (job.options or {}).items()
        )
    )
    return (job.name, opts)


def _safe_workload(wl: Workload, target: str | None, allow: bool) -> tuple[list[FioJob], list[str]]:
    """Every job of the workload through the safety pass; notes merged without repeats."""
    notes: list[str] = []
    safe_jobs = []
    for job in wl.jobs:
        safe, job_notes = safety.make_safe(job, target, allow)
        if wl.derived:
            notes.extend(n for n in job.notes if n not in notes)
        notes.extend(n for n in job_notes if n not in notes)
        safe_jobs.append(safe)
    names = {j.name for j in safe_jobs}
    for safe in safe_jobs:
        waited = safe.options.get("wait_for")
        if waited is not None and waited not in names:
            del safe.options["wait_for"]
            safe.global_options.pop("wait_for", None)
            notes.append(f"dropped wait_for={waited}: no job of this file is named so (fio refuses the job)")
    if len(wl.jobs) > 1 and len({j.options.get("filename") for j in safe_jobs}) == 1:
        originals = sorted(
            {
                str(v)
                for j in wl.jobs
                for k, v in (j.options or {}).items()
                if k.lstrip("-").lower() == "filename"
            }
        )
        if len(originals) > 1:
            notes.append(
                f"the jobs used {len(originals)} targets ({', '.join(originals)[:200]}); "
                "here they share one; give each its own target to match the report"
            )
    return safe_jobs, notes


def workload_stem(jobs: list[FioJob]) -> str:
    """A file name stem from the first job's direction and block size: ``write-128k``."""
    opts = jobs[0].options if jobs else {}
    words = [opts.get("rw", "read").split(":", 1)[0], opts.get("bs", "")]
    stem = FILE_STEM_RE.sub("-", " ".join(w for w in words if w).lower()).strip("-")
    return stem[:40] or "job"


# ---------------------------------------------------------------- smoke


@cache
def available_engines() -> frozenset[str]:
    """Engines the installed fio lists in ``fio --enghelp`` (empty when fio is missing)."""
    fio = shutil.which("fio")
    if not fio:
        return frozenset()
    try:
        out = subprocess.run([fio, "--enghelp"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("fio --enghelp failed: %s", exc)
        return frozenset()
    return frozenset(ln.strip() for ln in out.splitlines()[1:] if ln.strip())


def smoke_scale(job: FioJob, engines: frozenset[str]) -> list[str]:
    """Scale ``job`` (in place) to finish in seconds; notes of what was scaled.

    size/io_size/filesize <= 64M, runtime 1 s with time_based, numjobs <= 2,
    iodepth kept, ioengine kept when this fio has it and it runs on a file,
    else psync.
    """
    o = job.options
    notes: list[str] = []
    for key in ("size", "io_size", "filesize"):
        if key in o:
            n = parse_size(o[key]) if "$" not in o[key] else None
            if n is None or n > SMOKE_SIZE:
                notes.append(f"smoke: {key}={o[key]} scaled to 64M")
                o[key] = "64M"
    if "size" not in o:
        o["size"] = "64M"
    o["runtime"] = SMOKE_RUNTIME
    o["time_based"] = ""
    notes.append(f"smoke: runtime={SMOKE_RUNTIME} with time_based")
    nj = o.get("numjobs", "1").strip()
    if not nj.isdigit() or int(nj) > SMOKE_NUMJOBS:
        o["numjobs"] = str(SMOKE_NUMJOBS)
        notes.append(f"smoke: numjobs={nj} scaled to {SMOKE_NUMJOBS}")
    engine = o.get("ioengine", "psync")
    if engine not in FILE_ENGINES or (engines and engine not in engines):
        o["ioengine"] = "psync"
        notes.append(f"smoke: ioengine={engine} replaced by psync (not available for a scratch file)")
        notes.extend(safety.drop_foreign_engine_options(o))
    for key in SMOKE_DROP:
        if key in o:
            notes.append(f"smoke: dropped {key}={o.pop(key)}")
    job.global_options = {k: v for k, v in job.global_options.items() if o.get(k) == v}
    return notes


# ---------------------------------------------------------------- job files


def _comment(text: str) -> str:
    """One job-file comment line; control characters cannot end it early."""
    return "; " + COMMENT_UNSAFE_RE.sub(" ", str(text))[:300]


def render_jobs(jobs: list[FioJob]) -> str:
    """The job-file body: :func:`lkmlkb.fio.render.render_jobfile`, except when the jobs use
    different engines and share an engine-specific option (fio would reject that option in
    ``[global]`` before any engine is loaded); then :func:`render_jobs_own_globals`."""
    engines = {j.options.get("ioengine", "psync") for j in jobs}
    engine_opts = any((catalog.entry(k) or {}).get("engines") for j in jobs for k in j.options)
    if len(engines) > 1 and engine_opts:
        return render_jobs_own_globals(jobs)
    return render_jobfile(jobs)


def render_jobs_own_globals(jobs: list[FioJob]) -> str:
    """``[global]`` (options every job shares and took from [global]) then one section per job.

    An engine-specific option goes to ``[global]`` only with ``ioengine``:
    fio rejects an engine's options before the engine is loaded.
    """
    shared: dict[str, str] = {}
    if jobs:
        first = jobs[0]
        for k, v in first.global_options.items():
            if all(j.global_options.get(k) == v and j.options.get(k) == v for j in jobs):
                shared[k] = v
        if "ioengine" not in shared:
            shared = {k: v for k, v in shared.items() if not (catalog.entry(k) or {}).get("engines")}
    return render_jobfile(jobs, safety._ordered(shared))


def jobfile_text(report: Report, wl: Workload, jobs: list[FioJob], notes: list[str]) -> str:
    """The job file: provenance and safety comments, then the jobs."""
    head = [_comment(f"lkmlkb reproduction of: {report.title}")]
    for job in wl.jobs:
        ev = job.evidence
        where = f"<{ev.message_id}>" if ev.message_id else "(message id unknown)"
        span = (
            f"body lines {ev.line_start + 1}-{ev.line_end + 1}" if ev.text or ev.line_end else "lines unknown"
        )
        head.append(_comment(f"job [{job.name}] ({job.form}) from {where}, {span}"))
    if report.fio_version:
        head.append(_comment(f"the report ran {report.fio_version}"))
    if notes:
        head.append(_comment("changes made for a safe run (see README.md):"))
        head.extend(_comment(f"  - {n}") for n in notes)
    head.append(
        _comment("run: LKMLKB_TARGET=/path/to/scratch fio THIS.fio --output-format=json --output=result.json")
    )
    return "\n".join(head) + "\n\n" + render_jobs(jobs)


# ---------------------------------------------------------------- run.sh, expected.json, README


def space_needed(jobs: list[FioJob]) -> int:
    """Bytes the jobs' files take: a file named by ``filename`` counts once (its largest
    ``size``) however many jobs and clones share it; a job without one lays out a file per
    clone, ``size`` x ``numjobs``.  A size fio reads from the device or a variable counts 0."""
    shared: dict[str, int] = {}
    own = 0
    for job in jobs:
        o = job.options
        raw = str(o.get("filesize") or o.get("size") or "")
        size = parse_size(raw, kb_base_of(o)) if "$" not in raw and "%" not in raw else None
        if not size:
            continue
        name = o.get("filename")
        if name:
            shared[name] = max(shared.get(name, 0), size)
            continue
        numjobs = str(o.get("numjobs", "1")).strip()
        own += size * (int(numjobs) if numjobs.isdigit() and int(numjobs) > 0 else 1)
    return own + sum(shared.values())


def render_run_script(info: BundleInfo) -> str:
    """A bash script running every job file with JSON output into results/."""
    writing = " ".join(info.writing_jobs)
    sizes = "\n".join(f"        {Path(name).stem}) echo {n};;" for name, n in info.space.items())
    return f"""#!/usr/bin/env bash
# Runs every job of this bundle with JSON output into results/.
# LKMLKB_TARGET names the file or device the jobs use; without it a scratch
# file in this directory is used.  Writing jobs refuse a block device unless
# LKMLKB_ALLOW_DEVICE_WRITES=1 (it destroys the data on that device).
# A job whose files need more space than the target's file system has free
# is refused unless run.sh is given --force.
set -eu
cd "$(dirname "$0")"
force=0
for arg in "$@"; do
    case "$arg" in
        --force) force=1;;
        *) echo "usage: $0 [--force]" >&2; exit 2;;
    esac
done
# bytes each job file's files take on the target
space_needed() {{
    case "$1" in
{sizes}
        *) echo 0;;
    esac
}}
check_space() {{
    [ -b "$LKMLKB_TARGET" ] && return 0
    need=$(space_needed "$1")
    have=0
    [ -f "$LKMLKB_TARGET" ] && have=$(stat -c %s "$LKMLKB_TARGET")
    [ "$need" -gt "$have" ] || return 0
    dir=$(dirname "$LKMLKB_TARGET")
    free_kib=$(df -Pk "$dir" 2>/dev/null | awk 'NR == 2 {{ print $4 }}')
    [ -n "$free_kib" ] || return 0
    free=$((free_kib * 1024))
    if [ $((need - have)) -gt "$free" ] && [ "$force" != 1 ]; then
        echo "refusing: jobs/$1.fio needs $need bytes at $LKMLKB_TARGET, $dir has $free free (run.sh --force to run anyway)" >&2
        exit 1
    fi
}}
if [ -z "${{LKMLKB_TARGET:-}}" ]; then
    LKMLKB_TARGET="$PWD/lkmlkb-scratch.img"
    echo "LKMLKB_TARGET not set: using scratch file $LKMLKB_TARGET" >&2
fi
export LKMLKB_TARGET
writing_jobs="{writing}"
mkdir -p results
for job in jobs/*.fio; do
    name=$(basename "$job" .fio)
    case " $writing_jobs " in
        *" $name.fio "*)
            if [ -b "$LKMLKB_TARGET" ] && [ "${{LKMLKB_ALLOW_DEVICE_WRITES:-0}}" != 1 ]; then
                echo "refusing: $job writes to block device $LKMLKB_TARGET (set LKMLKB_ALLOW_DEVICE_WRITES=1)" >&2
                exit 1
            fi;;
    esac
    check_space "$name"
    fio "$job" --output-format=json --output="results/$name.json"
    echo "wrote results/$name.json; compare with: lkmlkb compare expected.json results/$name.json" >&2
done
"""


def _result_row(r) -> dict:
    return {
        "metric": r.metric,
        "direction": r.direction,
        "value": r.value,
        "unit": r.unit,
        "label": r.label,
        "config": r.config,
        "tool": r.tool,
        "normalized_value": r.normalized_value,
        "normalized_unit": r.normalized_unit,
        "message_id": r.evidence.message_id,
        "line": r.evidence.line_start + 1 if r.evidence.text else None,
    }


def expected_data(report: Report, info: BundleInfo) -> dict:
    """What the report measured, per kernel, and what it claims."""
    by_kernel: dict[str, list[dict]] = {}
    for r in report.results or []:
        by_kernel.setdefault(r.kernel or "unknown", []).append(_result_row(r))
    return {
        "thread_id": report.thread_id,
        "title": report.title,
        "message_ids": list(report.message_ids or []),
        "claim": {
            "kind": report.kind,
            "status": report.status,
            "is_regression_report": report.is_regression_report,
            "stated_pct": report.stated_pct,
            "computed_pct": report.computed_pct,
            "regression_pct": report.regression_pct,
            "pct_disagrees": report.pct_disagrees,
        },
        "kernels": {
            "good": report.good_kernel,
            "bad": report.bad_kernel,
            "mentioned": [k.version for k in report.kernel_versions or []],
        },
        "commits": [{"sha": c.sha, "subject": c.subject, "role": c.role} for c in report.commits or []],
        "results_by_kernel": by_kernel,
        "fio_version": report.fio_version,
        "tools": list(report.tools or []),
        "setup": [{"key": s.key, "value": s.value} for s in report.setup or []],
        "jobs": [p.name for p in info.job_files],
        "smoke": info.smoke,
        "derived": info.derived,
    }


def render_readme(report: Report, info: BundleInfo) -> str:
    """What was reported, how to run it, and what the safety pass changed."""
    lines = [f"# Reproduction: {report.title}", ""]
    if report.message_ids:
        lines.append(f"Thread: <{report.message_ids[0]}> ({len(report.message_ids)} messages)")
    if report.good_kernel or report.bad_kernel:
        lines.append(f"Kernels: good {report.good_kernel or '?'}, bad {report.bad_kernel or '?'}")
    pct = report.regression_pct if report.regression_pct is not None else report.stated_pct
    if pct is not None:
        lines.append(f"Reported change: {pct:g}% ({report.kind or 'claim'})")
    for c in report.commits or []:
        lines.append(f"Commit ({c.role}): {c.sha} {c.subject or ''}".rstrip())
    if report.fio_version:
        lines.append(f"The report ran {report.fio_version}.")
    lines += ["", "## Reported numbers", ""]
    for r in report.results or []:
        lines.append(
            f"- {r.kernel or 'kernel?'} {r.label or ''} {r.direction or ''} {r.metric}: "
            f"{r.value:g} {r.unit}".replace("  ", " ")
        )
    lines += [
        "",
        "## How to run",
        "",
        "Review `setup.sh` first (it changes nothing without asking), then either run all jobs:",
        "",
        "    LKMLKB_TARGET=/path/to/scratch-file ./run.sh",
        "",
        "or one job by hand:",
        "",
    ]
    for p in info.job_files:
        lines.append(f"    LKMLKB_TARGET=/path fio jobs/{p.name} --output-format=json --output=result.json")
    lines += [
        "",
        "then hold your numbers against the report's:",
        "",
        "    lkmlkb compare expected.json result.json",
        "",
        "fio expands `${LKMLKB_TARGET}` from the environment; unset, it expands to nothing and fio "
        "rejects the job, so always set it (run.sh uses a scratch file in this directory). "
        "A block device as target destroys its data when the job writes; run.sh refuses that "
        "unless `LKMLKB_ALLOW_DEVICE_WRITES=1`.",
        "",
    ]
    if info.smoke:
        lines += [
            "This is a **smoke** bundle: every job is scaled down (size <= 64M, 1 s, "
            "numjobs <= 2) to check that it runs, not to measure.",
            "",
        ]
    lines += ["## What was changed and why", ""]
    for name, notes in info.notes.items():
        lines.append(f"### jobs/{name}")
        lines.extend(f"- {n}" for n in notes)
        lines.append("")
    return "\n".join(lines)


def check_jobfile(path: str | Path, env: dict[str, str] | None = None) -> tuple[bool, str]:
    """``fio --parse-only PATH``: (accepted, fio's messages).  (False, reason) without fio."""
    fio = shutil.which("fio")
    if not fio:
        return False, "fio is not installed"
    try:
        proc = subprocess.run(
            [fio, "--parse-only", str(path)], capture_output=True, text=True, timeout=60, env=env
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return False, str(exc)
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip()
