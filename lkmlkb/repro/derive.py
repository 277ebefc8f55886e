"""fio jobs derived from workloads that reports describe in other forms.

Not every report pastes a fio job.  The kernel test robot gives LKP
``parameters:`` (form ``lkp-params``) that lkp-tests' ``fio-setup-basic``
turns into a job file; people time ``dd if=/dev/nvme3n1 of=/dev/null
bs=1048576 iflag=direct count=2048``; older threads run tiobench ("tiobench
sequential write performance numbers with 16 threads", "using 4 GB
filesize").  Each function here builds the closest fio job, with
``form="derived-<source>"`` and one note per assumption, so a reader sees
what the mail said and what was filled in.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import TypedDict

from lkmlkb.fio.units import parse_size
from lkmlkb.model import Evidence, FioJob, Report

log = logging.getLogger(__name__)

#: lines are read up to this many characters (a longer one is base64 or junk)
MAX_LINE = 4000
#: forms that already are fio jobs
RUNNABLE_FORMS = frozenset({"jobfile", "cmdline", "inline"})

# ---------------------------------------------------------------- LKP


#: fio-setup-basic's defaults (``: "${iodepth:=32}"`` ...)
LKP_DEFAULTS = {
    "bs": "4k",
    "ioengine": "sync",
    "runtime": "300",
    "rw": "write",
    "iodepth": "32",
    "direct": "0",
    "fallocate": "posix",
    "invalidate": "1",
    "nr_files": "1",
    "file_service_type": "roundrobin",
    "random_distribution": "random",
    "pre_read": "0",
}
#: LKP parameters that describe the machine or kernel build, not the job
LKP_SETUP_KEYS = ("disk", "fs", "fs2", "cpufreq_governor", "raw_disk", "mount_option", "iosched")
LKP_FALSE = frozenset({"", "0", "false", "no", "off", "n"})

NR_THREADS_RE = re.compile(
    r"""
    (?P<n>\d{1,5})\s{1,3}threads\b       # "test machine: 64 threads 2 sockets Intel(R) Xeon(R)"
  | (?P<cpus>\d{1,5})\s{1,3}(?:CPUs|cores)\b   # "The machine has 4 CPUs", "2 cores"
""",
    re.VERBOSE | re.IGNORECASE,
)

PERCENT_RE = re.compile(
    r"""
    ^\s{0,4}(?P<pct>\d{1,4}(?:\.\d{1,3})?)\s{0,2}%\s{0,4}$    # "nr_task: 100%", "50%"
""",
    re.VERBOSE,
)

TIME_VALUE_RE = re.compile(
    r"""
    ^\s{0,4}(?P<num>\d{1,9})\s{0,2}(?P<unit>s|sec|m|min|h)?\s{0,4}$   # "runtime: 300s", "200"
""",
    re.VERBOSE | re.IGNORECASE,
)


def lkp_bool(value: str) -> str:
    """lkp's ``parse_bool``: empty, 0, no, false -> "0"; a word such as ``direct`` -> "1"."""
    v = str(value).strip().lower()
    return "0" if v in LKP_FALSE or v.startswith("no") else "1"


def cpu_count_from(texts: Iterable[str]) -> int | None:
    """The machine's CPU count from "64 threads 2 sockets", "4 CPUs", "2 cores"."""
    for text in texts:
        for line in str(text).splitlines():
            m = NR_THREADS_RE.search(line[:MAX_LINE])
            if m:
                return int(m.group("n") or m.group("cpus"))
    return None


def _lkp_seconds(value: str) -> str | None:
    """``300s`` -> ``300``; ``5m`` -> ``300``; None when unreadable."""
    m = TIME_VALUE_RE.match(str(value))
    if not m:
        return None
    mult = {"m": 60, "min": 60, "h": 3600}.get((m.group("unit") or "s").lower(), 1)
    return str(int(m.group("num")) * mult)


def _lkp_numjobs(nr_task: str, ncpus: int | None, notes: list[str]) -> tuple[str, int | None]:
    """numjobs text and its integer (None when it stays an fio ``$ncpus`` expression)."""
    m = PERCENT_RE.match(nr_task)
    if not m:
        n = int(nr_task) if nr_task.strip().isdigit() else 1
        if not nr_task.strip().isdigit():
            notes.append(f"nr_task={nr_task!r} unreadable: 1 task assumed")
        return str(max(n, 1)), max(n, 1)
    pct = float(m.group("pct"))
    if ncpus:
        n = max(int(ncpus * pct / 100), 1)
        notes.append(f"nr_task={nr_task} of the reported machine's {ncpus} CPUs: numjobs={n}")
        return str(n), n
    notes.append(f"nr_task={nr_task}: the CPU count was not reported, numjobs follows this machine's $ncpus")
    if pct == 100:
        return "$ncpus", None
    return f"($ncpus*{int(pct)}/100)", None


def lkp_params_job(
    params: dict[str, str], ncpus: int | None = None, evidence: Evidence | None = None, name: str = "task_0"
) -> FioJob:
    """The job lkp-tests' ``fio-setup-basic`` writes for these ``parameters:``.

    Tolerates values with units (``runtime: 300s``), words for booleans
    (``direct: direct``), percentages of CPUs (``nr_task: 100%``) and missing
    keys (fio-setup-basic's defaults are used and noted).
    """
    p = {str(k).strip().lower(): str(v).strip() for k, v in (params or {}).items()}
    notes: list[str] = ["derived from LKP parameters the way lkp-tests' fio-setup-basic builds its job"]
    opts: dict[str, str] = {}
    for key in ("bs", "ioengine", "iodepth", "rw"):
        opts[key] = p.get(key) or LKP_DEFAULTS[key]
        if key not in p:
            notes.append(f"{key}={LKP_DEFAULTS[key]} assumed (fio-setup-basic default)")
    opts["direct"] = lkp_bool(p["direct"]) if "direct" in p else LKP_DEFAULTS["direct"]
    runtime = _lkp_seconds(p.get("runtime", "")) if "runtime" in p else LKP_DEFAULTS["runtime"]
    opts["runtime"] = runtime or LKP_DEFAULTS["runtime"]
    if "time_based" in p and lkp_bool(p["time_based"]) == "1":
        opts["time_based"] = ""
    numjobs, n = _lkp_numjobs(p.get("nr_task", "1"), ncpus, notes)
    test_size = parse_size(p["test_size"]) if p.get("test_size") else None
    if test_size:
        size = fio_size_text(test_size // n) if n else f"({test_size}/{numjobs})"
        opts["size"] = size
        notes.append(f"size per job = test_size {p['test_size']} / nr_task")
        for key in ("io_size", "filesize"):
            opts[key] = p.get(key) or size
    else:
        notes.append("test_size missing: the job's size is left to the safety pass")
    for key in ("nr_files", "fallocate", "invalidate", "file_service_type", "random_distribution"):
        opts[key] = p.get(key) or LKP_DEFAULTS[key]
    opts["pre_read"] = lkp_bool(p["pre_read"]) if "pre_read" in p else LKP_DEFAULTS["pre_read"]
    for key in ("rwmixread", "cpuload", "numa_mem_policy"):
        if p.get(key):
            opts[key] = p[key]
    opts["group_reporting"] = ""
    opts["numjobs"] = numjobs
    for key in LKP_SETUP_KEYS:
        if p.get(key):
            notes.append(f"reported {key}: {p[key]} (see setup.sh/README)")
    return FioJob(
        name=name,
        form="derived-lkp",
        options=opts,
        global_options={},
        notes=notes,
        evidence=evidence or Evidence(),
    )


# ---------------------------------------------------------------- dd

DD_RE = re.compile(
    r"""
    (?:^|[\s;&|(`])dd                  # "root@xxx:~# DISK=nvme3n1; dd if=/dev/$DISK ..."
    (?P<args>(?:\s{1,4}[a-z]{2,6}=[^\s;&|]{1,200}){1,12})    # "if=... of=/dev/null bs=1048576"
""",
    re.VERBOSE,
)

DD_SIZE_RE = re.compile(
    r"""
    ^(?P<num>\d{1,15})
    (?P<suffix>c|w|b|kB|KB|K|k|MB|M|GB|G|TB|T|KiB|MiB|GiB)?$    # "bs=1048576", "bs=1M", "bs=4k"
""",
    re.VERBOSE,
)

DD_MULT = {
    None: 1,
    "c": 1,
    "w": 2,
    "b": 512,
    "kB": 1000,
    "KB": 1024,
    "K": 1024,
    "k": 1024,
    "MB": 1000**2,
    "M": 1024**2,
    "GB": 1000**3,
    "G": 1024**3,
    "TB": 1000**4,
    "T": 1024**4,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
}


def dd_bytes(value: str) -> int | None:
    """dd's number syntax: ``1048576``, ``1M`` (1024^2), ``1MB`` (10^6), ``2048``."""
    m = DD_SIZE_RE.match(value.strip())
    if not m:
        return None
    return int(m.group("num")) * DD_MULT[m.group("suffix")]


def fio_size_text(n: int) -> str:
    """Bytes as fio writes them in a job file: 2147483648 -> ``2G``, 1048576 -> ``1M``."""
    for suffix, mult in (("T", 1024**4), ("G", 1024**3), ("M", 1024**2), ("k", 1024)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{suffix}"
    return str(n)


def find_dd_commands(text: str) -> list[tuple[int, str]]:
    """(line index, ``dd ...`` arguments) for every dd command line in ``text``."""
    found = []
    for i, line in enumerate(str(text).splitlines()):
        if "dd " not in line:
            continue
        m = DD_RE.search(line[:MAX_LINE])
        if m and ("if=" in m.group("args") or "of=" in m.group("args")):
            found.append((i, "dd" + m.group("args")))
    return found


def dd_job(command: str, evidence: Evidence | None = None, name: str = "dd") -> FioJob | None:
    """The fio job doing what ``dd if=X of=Y bs=B count=N [iflag|oflag=direct]`` does.

    Reading a device into /dev/null becomes ``rw=read`` on the device; writing
    /dev/zero (or another file) to a file or device becomes ``rw=write`` on it.
    Returns None when neither end is an input or output fio can model.
    """
    args: dict[str, str] = {}
    for tok in str(command).split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            args[k] = v
    src, dst = args.get("if", ""), args.get("of", "")
    notes = [f"derived from `{command[:200]}`"]
    if dst in ("/dev/null", "") and src and src not in ("/dev/zero", "/dev/urandom"):
        rw, target, flag = "read", src, "iflag"
    elif dst and dst != "/dev/null":
        rw, target, flag = "write", dst, "oflag"
    else:
        return None
    bs = dd_bytes(args.get("bs") or args.get("ibs" if rw == "read" else "obs") or "512") or 512
    opts = {"rw": rw, "bs": fio_size_text(bs), "ioengine": "psync", "iodepth": "1", "numjobs": "1"}
    notes.append("ioengine=psync, iodepth=1, numjobs=1 assumed: dd issues one synchronous request at a time")
    opts["direct"] = "1" if "direct" in args.get(flag, "").split(",") else "0"
    count = dd_bytes(args.get("count", "")) if args.get("count") else None
    if count:
        opts["size"] = fio_size_text(bs * count)
    else:
        notes.append("no count=: dd ran to the end of the input; size left to the safety pass")
    if args.get("skip" if rw == "read" else "seek"):
        off = dd_bytes(args["skip" if rw == "read" else "seek"])
        if off:
            opts["offset"] = fio_size_text(off * bs)
    opts["filename"] = target
    return FioJob(
        name=name,
        form="derived-dd",
        options=opts,
        notes=notes,
        evidence=evidence or Evidence(text=command[:500]),
    )


# ---------------------------------------------------------------- tiobench

TIOBENCH_RUN_RE = re.compile(
    r"""
    tiobench\s{1,3}(?P<kind>sequential|random)\s{1,3}(?P<op>read|write)s?   # "tiobench sequential write performance"
    (?:[^.:]{0,80}?\bwith\s{1,3}(?P<n>\d{1,4})\s{1,3}threads)?    # "... numbers with 16 threads:"
""",
    re.VERBOSE | re.IGNORECASE,
)

TIOBENCH_THREADS_RE = re.compile(
    r"""
    (?P<n>\d{1,4})\s{1,3}tiobench\s{1,3}threads    # "I'm using 16 tiobench threads"
""",
    re.VERBOSE | re.IGNORECASE,
)

FILE_SIZE_RE = re.compile(
    r"""
    (?P<num>\d{1,6}(?:\.\d{1,3})?)\s{0,2}(?P<unit>[KMGT]i?B)\s{1,3}file\s?size   # "using 4 GB filesize", "an 8GB file size"
  | file\s?size\s{1,3}(?:of\s{1,3}|=\s{0,2})?(?P<num2>\d{1,6}(?:\.\d{1,3})?)\s{0,2}(?P<unit2>[KMGT]i?B)\b  # "file size of 4GB"
""",
    re.VERBOSE | re.IGNORECASE,
)

TIOBENCH_RW = {
    ("sequential", "read"): "read",
    ("sequential", "write"): "write",
    ("random", "read"): "randread",
    ("random", "write"): "randwrite",
}


def _flat(text: str) -> str:
    """Lines joined by spaces (quote markers dropped), long lines trimmed."""
    lines = [ln[:MAX_LINE].lstrip("> \t") for ln in str(text).splitlines()]
    return " ".join(lines)


class TiobenchRun(TypedDict):
    """One tiobench run a text describes."""

    rw: str
    threads: int | None
    file_size: str | None  # as written
    text: str  # the sentence


def find_tiobench_runs(text: str) -> list[TiobenchRun]:
    """Each described tiobench run: rw, threads, file size (as written), the sentence."""
    flat = _flat(text)
    size_m = FILE_SIZE_RE.search(flat)
    size = None
    if size_m:
        num = size_m.group("num") or size_m.group("num2")
        unit = size_m.group("unit") or size_m.group("unit2")
        size = f"{num} {unit}"
    threads_m = TIOBENCH_THREADS_RE.search(flat)
    runs: list[TiobenchRun] = []
    seen = set()
    for m in TIOBENCH_RUN_RE.finditer(flat):
        rw = TIOBENCH_RW[(m.group("kind").lower(), m.group("op").lower())]
        n = m.group("n") or (threads_m.group("n") if threads_m else None)
        key = (rw, n)
        if key in seen:
            continue
        seen.add(key)
        runs.append({"rw": rw, "threads": int(n) if n else None, "file_size": size, "text": m.group(0)})
    return runs


def tiobench_job(
    rw: str, threads: int | None, file_size: str | None, evidence: Evidence | None = None
) -> FioJob:
    """The fio job closest to a tiobench run: N threads sharing the file size.

    tiobench divides its total ``--size`` among the threads, uses 4 KiB
    blocks, buffered I/O and 4000 random operations per thread by default;
    each of those is noted as assumed.
    """
    notes = [f"derived from a tiobench run ({rw}, {threads or '?'} threads, file size {file_size or '?'})"]
    n = threads or 1
    if not threads:
        notes.append("thread count not reported: 1 assumed")
    opts = {
        "rw": rw,
        "bs": "4k",
        "ioengine": "sync",
        "direct": "0",
        "thread": "",
        "numjobs": str(n),
        "group_reporting": "",
    }
    notes.append("bs=4k, buffered sync I/O assumed (tiobench defaults)")
    total = parse_size(file_size.replace(" ", "").replace("B", "").replace("i", "")) if file_size else None
    if total:
        opts["size"] = fio_size_text(max(total // n, 4096))
        notes.append(f"size per thread = file size {file_size} / {n} threads (tiobench splits its --size)")
    else:
        notes.append("file size not reported: size left to the safety pass")
    if rw.startswith("rand"):
        opts["number_ios"] = "4000"
        notes.append("number_ios=4000 per thread assumed (tiobench's default --random)")
    return FioJob(
        name=f"tiobench-{rw}",
        form="derived-tiobench",
        options=opts,
        notes=notes,
        evidence=evidence or Evidence(),
    )


# ---------------------------------------------------------------- report


def report_texts(report: Report) -> list[str]:
    """The text a report carries: its title and every evidence span it kept."""
    texts = [report.title or ""]
    for group in (report.setup, report.results, report.fio_jobs, report.kernel_versions):
        for item in group or []:
            ev = getattr(item, "evidence", None)
            if ev is not None and ev.text:
                texts.append(ev.text)
    for fact in report.setup or []:
        texts.append(f"{fact.key}: {fact.value}")
    return texts


def derive_jobs(report: Report, texts: Iterable[str] = ()) -> list[FioJob]:
    """Runnable fio jobs for the report's workloads that are not fio jobs.

    LKP parameter jobs are always converted.  dd and tiobench runs are looked
    for (in ``texts`` and the report's evidence) only when the report has no
    fio job of its own.  Never raises: a form that cannot be read is logged
    and skipped.
    """
    all_texts = list(texts) + report_texts(report)
    derived: list[FioJob] = []
    ncpus = cpu_count_from(all_texts)
    for job in report.fio_jobs or []:
        if job.form == "lkp-params":
            try:
                derived.append(lkp_params_job(job.options, ncpus, job.evidence, name=job.name or "task_0"))
            except (ValueError, TypeError, ZeroDivisionError) as exc:
                log.info("LKP parameters of %s not usable: %s", report.thread_id, exc)
    if any(j.form in RUNNABLE_FORMS for j in report.fio_jobs or []) or derived:
        return derived
    tools = {t.lower() for t in report.tools or []}
    seen: set[str] = set()
    for text in all_texts:
        if "dd" in tools or not tools:
            for line_no, cmd in find_dd_commands(text):
                dd = dd_job(cmd, Evidence(text=cmd, line_start=line_no, line_end=line_no))
                if dd and cmd not in seen:
                    seen.add(cmd)
                    derived.append(dd)
    if "tiobench" in tools or any("tiobench" in t for t in all_texts):
        for run in find_tiobench_runs("\n".join(all_texts)):
            if run["rw"] in seen:
                continue
            seen.add(run["rw"])
            derived.append(
                tiobench_job(run["rw"], run["threads"], run["file_size"], Evidence(text=run["text"]))
            )
    return derived
