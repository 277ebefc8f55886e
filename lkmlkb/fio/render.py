"""FioJob records -> fio job-file text and fio command lines (for reproductions).

``render_jobfile`` writes options shared by every job into ``[global]`` (or a
single job's own ``global_options``), then one section per job; ``to_cmdline``
writes the ``fio --opt=val --name=job ...`` form that ``fio --showcmd``
prints.  Values are written as they were found; options without a value
(``group_reporting``) are written bare.
"""

from __future__ import annotations

import re
import shlex

from lkmlkb.model import FioJob

SECTION_NAME_RE = re.compile(r"[\[\]\n\r]")  # characters a section header cannot hold


def _section_name(name: str, index: int) -> str:
    """A usable section name: ``[job]`` stays, ``]`` and newlines are replaced, empty -> job<N>."""
    clean = SECTION_NAME_RE.sub("_", (name or "").strip())
    if not clean or clean.lower() == "global":
        clean = "job%d" % index
    return clean


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


OPTION_NAME_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
LINE_BREAKS_RE = re.compile(r"[\r\n\x00\x0b\x0c\x85\u2028\u2029]+")


def _option_line(key: str, value: str) -> str | None:
    """One ``key=value`` line; a name that is no option name, or a line break in a
    value, can never add lines of its own (``exec_prerun=`` smuggled in a value)."""
    if not OPTION_NAME_RE.match(key or ""):
        return None
    value = LINE_BREAKS_RE.sub(" ", str(value))
    return key if value == "" else "%s=%s" % (key, value)


def render_jobfile(jobs: list[FioJob]) -> str:
    """Job-file text: ``[global]`` for what the jobs share, then one section per job."""
    shared = shared_options(jobs)
    out: list[str] = []
    if shared:
        out.append("[global]")
        out.extend(line for line in (_option_line(k, v) for k, v in shared.items()) if line)
        out.append("")
    for i, job in enumerate(jobs, 1):
        out.append("[%s]" % _section_name(job.name, i))
        out.extend(line for line in (_option_line(k, v) for k, v in _own_options(job).items() if k not in shared)
                   if line)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n" if out else ""


def _arg(key: str, value: str) -> str:
    return "--" + key if value == "" else shlex.quote("--%s=%s" % (key, value))


def to_cmdline(jobs: list[FioJob]) -> str:
    """``fio --shared=opts --name=job1 --own=opts --name=job2 ...`` (shell-quoted)."""
    shared = shared_options(jobs)
    args = ["fio"] + [_arg(k, v) for k, v in shared.items()]
    for i, job in enumerate(jobs, 1):
        args.append(_arg("name", _section_name(job.name, i)))
        args.extend(_arg(k, v) for k, v in _own_options(job).items() if k not in shared)
    return " ".join(args)


to_showcmd = to_cmdline
