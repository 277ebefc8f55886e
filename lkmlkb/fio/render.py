"""FioJob records -> fio job-file text and fio command lines (reproductions, the web's downloads).

``render_jobfile`` writes options shared by every job into ``[global]`` (or a
single job's own ``global_options``), then one section per job; ``to_cmdline``
writes the ``fio --opt=val --name=job ...`` form that ``fio --showcmd``
prints.  Values are written as they were found, made one line; options
without a value (``group_reporting``) are written bare.  A name that is no
option name is dropped and a section name made plain, so text from mail can
never start an option line (``exec_prerun=...``) or a section of its own.
"""

from __future__ import annotations

import re
import shlex

from lkmlkb.fio.catalog import OPTION_NAME_RE
from lkmlkb.model import FioJob

#: control characters: a job file has no use for them (and XML, the Atom feed's, forbids them)
CONTROL_RE = re.compile(
    r"""
    [\x00-\x08\x0b\x0c\x0e-\x1f\x7f]
""",
    re.VERBOSE,
)
#: what some reader takes for the end of a line: fio reads "\n", the rest break lines elsewhere
LINE_BREAKS_RE = re.compile(r"[\r\n\x00\x0b\x0c\x85\u2028\u2029]+")
#: anything but a plain job name ("write-bandwidth-1", "task_0")
SECTION_NAME_RE = re.compile(r"[^A-Za-z0-9_.-]")
#: the longest value (or comment) a line is given; no fio option takes more
MAX_LINE_CHARS = 4000


def one_line(value: object) -> str:
    """``value`` as text on one line: line breaks and control characters become spaces, the
    ends are stripped, and it is cut at MAX_LINE_CHARS."""
    text = "" if value is None else str(value)
    return CONTROL_RE.sub(" ", text.replace("\r", " ").replace("\n", " ")).strip()[:MAX_LINE_CHARS]


def section_name(name: object, index: int | None = None) -> str:
    """A section name fio accepts: what is no plain name character made ``_``, cut at 60
    characters, ``_`` and ``.`` stripped from the ends; one left empty, or ``global``, is
    ``job`` (``job<index>`` among several jobs, where ``index`` is given)."""
    clean = SECTION_NAME_RE.sub("_", str(name or ""))[:60].strip("_.")
    if not clean or clean.lower() == "global":
        clean = "job" if index is None else "job%d" % index
    return clean


def clean_options(options: dict | None) -> dict[str, str]:
    """The options that can be job-file lines: names that are option names, values on one line."""
    return {str(k): one_line(v) for k, v in (options or {}).items() if OPTION_NAME_RE.match(str(k))}


def _own_options(job: FioJob) -> dict[str, str]:
    return {k: v for k, v in job.options.items() if k != "name"}


def shared_options(jobs: list[FioJob]) -> dict[str, str]:
    """Options every job has with the same value (in the first job's order); a lone job: its globals."""
    if not jobs:
        return {}
    if len(jobs) == 1:
        own = _own_options(jobs[0])
        return {k: v for k, v in jobs[0].global_options.items() if k != "name" and own.get(k) == v}
    first = _own_options(jobs[0])
    return {k: v for k, v in first.items() if all(_own_options(j).get(k) == v for j in jobs[1:])}


def _option_line(key: str, value: object) -> str | None:
    """One ``key=value`` line; a name that is no option name, or a line break in a
    value, can never add lines of its own (``exec_prerun=`` smuggled in a value)."""
    if not OPTION_NAME_RE.match(key or ""):
        return None
    value = LINE_BREAKS_RE.sub(" ", one_line(value))
    return key if value == "" else "%s=%s" % (key, value)


def _index(jobs: list[FioJob], i: int) -> int | None:
    """The number a nameless job's section gets: none for a lone job."""
    return i if len(jobs) > 1 else None


def render_jobfile(jobs: list[FioJob], shared: dict[str, str] | None = None) -> str:
    """Job-file text: ``[global]`` for what the jobs share (``shared``, by default
    :func:`shared_options`), then one section per job."""
    shared = shared_options(jobs) if shared is None else shared
    out: list[str] = []
    if shared:
        out.append("[global]")
        out.extend(line for line in (_option_line(k, v) for k, v in shared.items()) if line)
        out.append("")
    for i, job in enumerate(jobs, 1):
        out.append("[%s]" % section_name(job.name, _index(jobs, i)))
        out.extend(
            line
            for line in (_option_line(k, v) for k, v in _own_options(job).items() if k not in shared)
            if line
        )
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n" if out else ""


def _arg(key: str, value: str) -> str:
    return "--" + key if value == "" else shlex.quote("--%s=%s" % (key, value))


def to_cmdline(jobs: list[FioJob]) -> str:
    """``fio --shared=opts --name=job1 --own=opts --name=job2 ...`` (shell-quoted)."""
    shared = shared_options(jobs)
    args = ["fio"] + [_arg(k, v) for k, v in shared.items()]
    for i, job in enumerate(jobs, 1):
        args.append(_arg("name", section_name(job.name, _index(jobs, i))))
        args.extend(_arg(k, v) for k, v in _own_options(job).items() if k not in shared)
    return " ".join(args)


to_showcmd = to_cmdline


def render_stored_job(name: object, options: dict | None, global_options: dict | None = None) -> str:
    """One job as the knowledge base holds it (its options with ``[global]`` folded in, as
    written in mail) as a job file: ``[global]`` with the options it took from there, then the
    job.  Names and values are cleaned (:func:`clean_options`) before they are compared."""
    options = clean_options(options)
    glob = {k: v for k, v in clean_options(global_options).items() if options.get(k, v) == v}
    return render_jobfile(
        [FioJob(name=section_name(name), form="jobfile", options=options, global_options=glob)]
    )
