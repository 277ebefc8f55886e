"""Make a fio job taken from mail safe to run on someone else's machine.

A job pasted into a regression report names the reporter's devices
(``filename=/dev/dm-0``), may run programs (``exec_prerun``, ``ioengine=exec``),
load shared objects (``ioengine=external:/x.so``), map or truncate files
(``mem=mmap:/path``, ``donorname=``), write logs or replay traces at arbitrary
paths, and change system state (``ioscheduler``, ``cgroup``).  :func:`make_safe`
returns a sanitized copy and one human-readable note per change.

It keeps only what :mod:`lkmlkb.repro.policy` lists as reviewed, option by
option over fio's whole catalog, each value checked against the shape fio
gives it; everything else is dropped with its reason.  It works on fio's
canonical option names (``readwrite`` is ``rw``, ``iomem`` is ``mem``), so an
option is judged the same however the mail spells it.

Every job's data I/O goes to ``${LKMLKB_TARGET}``, which fio expands from the
environment when it reads the job file (an unset variable expands to
nothing and fio rejects the job, so the bundle's ``run.sh`` sets a scratch
file by default), or to an explicit target path given by the user.
"""

from __future__ import annotations

import copy
import functools
import logging
import re

from lkmlkb.fio import catalog
from lkmlkb.model import FioJob
from lkmlkb.repro import policy

log = logging.getLogger(__name__)

TARGET_VAR = "LKMLKB_TARGET"
TARGET_PLACEHOLDER = "${" + TARGET_VAR + "}"
#: environment variables a produced job may still reference
SAFE_ENV_VARS = frozenset({TARGET_VAR})
#: fio's own ``$keyword`` substitutions (HOWTO "Job file parameters")
FIO_KEYWORDS = frozenset({"jobname", "jobnum", "filenum", "ncpus", "pagesize", "mb_memory"})
#: size given to a job that used a whole device (and so had no size)
DEFAULT_SCRATCH_SIZE = "1G"
MAX_VALUE_LEN = 4000

#: options naming a log file: kept with a bare file name in the run directory
LOG_WRITERS = tuple(sorted(policy.LOGS))
REPLACEMENT_ENGINE = "psync"
#: rw values that write or discard data
WRITING_RW = frozenset(
    {"write", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite", "randtrimwrite"}
)
#: directories a user-given target may never be inside
SYSTEM_TREES = (
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/boot",
    "/lib",
    "/lib32",
    "/lib64",
    "/proc",
    "/sys",
    "/run",
    "/var/lib",
    "/var/log",
    "/root",
)
#: paths a user-given target may never be (directories and memory devices)
SYSTEM_PATHS = frozenset(
    {
        "/",
        "/home",
        "/var",
        "/tmp",
        "/mnt",
        "/media",
        "/opt",
        "/srv",
        "/dev",
        "/dev/mem",
        "/dev/kmem",
        "/dev/port",
        "/dev/null",
        "/dev/zero",
    }
)

OPTION_NAME_RE = re.compile(
    r"""
    ^[A-Za-z][A-Za-z0-9_-]{0,60}$     # "iodepth_batch_complete_min", "hugepage-size"
""",
    re.VERBOSE,
)

ENV_VAR_RE = re.compile(
    r"""
    \$\{ (?P<braced>[^}\n]{0,100}) \}   # "${DEV}": fio expands it from the environment
  | \$ (?P<bare>[A-Za-z_][A-Za-z0-9_]{0,100})   # "$BS" from a shell script, or fio's "$ncpus"
""",
    re.VERBOSE,
)

COMMAND_SUBST_RE = re.compile(
    r"""
    `          # "`getconf _NPROCESSORS_ONLN`" pasted from a script
  | \$\(       # "$(nproc)"
""",
    re.VERBOSE,
)

SAFE_LOG_NAME_RE = re.compile(
    r"""
    ^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$    # "job1", "randread_bw": a name in the run directory
""",
    re.VERBOSE,
)

CONTROL_RE = re.compile(
    r"""
    [\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]   # NUL, newlines, NEL and other breaks: a value ends at one
""",
    re.VERBOSE,
)

SECTION_NAME_RE = re.compile(
    r"""
    [^A-Za-z0-9_.-]    # anything but a plain job name ("write-bandwidth-1", "task_0")
""",
    re.VERBOSE,
)


class _Pass:
    """The state of one sanitizing pass: the options kept so far and the notes."""

    def __init__(self) -> None:
        self.options: dict[str, str] = {}
        self.notes: list[str] = []
        self.original_targets: list[str] = []

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def make_safe(
    job: FioJob, target: str | None = None, allow_device_writes: bool = False
) -> tuple[FioJob, list[str]]:
    """A sanitized copy of ``job`` and notes saying what changed and why.

    Tolerates any option names and values (spelled with dashes, in odd case,
    aliases, unknown names, multi-line or NUL-laden values): each is kept
    under its canonical name, rewritten, or dropped with a note.  Never
    raises.
    """
    st = _Pass()
    global_keys: set[str] = set()
    for raw_name in job.global_options or {}:
        canon = catalog.canonical_name(str(raw_name)) if isinstance(raw_name, str) else None
        if canon:
            global_keys.add(canon)
    for raw_name, raw_value in list((job.options or {}).items()):
        _take_option(st, raw_name, raw_value)
    _settle_engine(st)
    for note in drop_foreign_engine_options(st.options):
        st.note(note)
    writes = job_writes(st.options)
    _set_target(st, target, allow_device_writes, writes)
    safe = copy.deepcopy(job)
    safe.name = safe_section_name(job.name)
    if safe.name != job.name:
        st.note(f"job name {job.name!r} written as [{safe.name}]")
    safe.options = _ordered(st.options)
    safe.global_options = {k: v for k, v in safe.options.items() if k in global_keys}
    safe.notes = list(job.notes or []) + st.notes
    safe.unknown_options = []
    return safe, st.notes


def safe_section_name(name: object) -> str:
    """A job section name fio accepts and that is not ``global``."""
    text = SECTION_NAME_RE.sub("_", str(name or "")[:60]).strip("_.-")
    if not text or text.lower() == "global":
        text = "job"
    return text


def job_writes(options: dict[str, str]) -> bool:
    """True when the job writes or trims data (``rw``, verify trims, zone resets)."""
    rw = (options.get("rw") or "read").split(":", 1)[0].strip().lower()
    if rw in WRITING_RW:
        return True
    trim = options.get("trim_percentage", "0").strip()
    return trim not in ("", "0")


def is_device_path(path: str) -> bool:
    """``/dev/sdb``, ``/dev/mapper/x``, ``/dev/nvme0n1``: a block or char device node."""
    return path.strip().startswith("/dev/")


def is_system_path(path: str) -> bool:
    """A target that must never be written: ``/``, ``/etc/...``, ``/usr``, memory devices."""
    p = "/".join(part for part in path.strip().split("/") if part not in ("", "."))
    p = "/" + p if path.strip().startswith("/") else p
    if p in SYSTEM_PATHS or ".." in p.split("/"):
        return True
    return any(p == tree or p.startswith(tree + "/") for tree in SYSTEM_TREES)


@functools.cache
def rules() -> dict[str, policy.Rule]:
    """The policy of every option of fio's catalog, by canonical name."""
    return policy.build_table(catalog.load()["options"])


def _take_option(st: _Pass, raw_name: object, raw_value: object) -> None:
    """Canonicalize one option and keep, rewrite or drop it as its policy says."""
    name = str(raw_name).strip().lstrip("-") if raw_name is not None else ""
    value = "" if raw_value is None else str(raw_value)
    if not OPTION_NAME_RE.match(name):
        st.note(f"dropped option {name[:40]!r}: not an option name")
        return
    if name.lower() == "include":
        st.note(f"dropped include={value[:80]}: pulls in another job file from the reporter's machine")
        return
    canon = catalog.canonical_name(name)
    if canon is None:
        st.note(
            f"dropped {name}: fio {catalog.catalog_fio_version() or ''} does not know this option".replace(
                "  ", " "
            )
        )
        return
    rule = rules().get(canon)
    if rule is None:
        st.note(f"dropped {name}={value[:80]}: not an option reviewed as safe")
        return
    if rule.action == "target":
        st.original_targets.append(value)
        return
    if rule.action == "section":
        return  # the section header names the job
    if rule.action == "drop":
        st.note(f"dropped {name}={value[:80]}: {rule.reason}")
        if canon in ("directory", "opendir"):
            st.original_targets.append(value)
        return
    if len(value) > MAX_VALUE_LEN or CONTROL_RE.search(value):
        st.note(f"dropped {name}: its value spans lines or is too long")
        return
    if COMMAND_SUBST_RE.search(value):
        st.note(f"dropped {name}={value[:80]}: the value runs a shell command")
        return
    value = value.strip()
    if rule.action == "log":
        _take_log_writer(st, canon, name, value)
        return
    bad = unsafe_variables(value)
    if bad:
        st.note(f"dropped {name}={value[:80]}: unresolved variable {bad[0]} (fio default used)")
        return
    if rule.action == "memory":
        memory = _memory_type(st, name, value)
        if memory is None:
            return
        value = memory
    elif rule.check is not None and not rule.check(value):
        st.note(f"dropped {name}={value[:80]}: not a value fio takes for {canon}")
        return
    if canon in st.options and st.options[canon] != value:
        log.debug("option %s given twice; last value %r wins as in fio", canon, value)
    st.options.pop(canon, None)
    st.options[canon] = value


def _memory_type(st: _Pass, name: str, value: str) -> str | None:
    """``mem=mmap:/path`` -> ``mmap``: the buffers stay anonymous memory; None when unknown."""
    kind, _, path = value.partition(":")
    choices = {str(v).lower() for v in (catalog.entry("mem") or {}).get("valid_values") or []}
    if kind.strip().lower() not in choices:
        st.note(f"dropped {name}={value[:80]}: not a buffer type fio knows")
        return None
    if path:
        st.note(
            f"{name}={value[:80]} written as {name}={kind.strip()}: fio would map, resize or truncate "
            f"the file {path[:80]}"
        )
    return kind.strip().lower()


def unsafe_variables(value: str) -> list[str]:
    """``${VAR}``/``$VAR`` references that are neither LKMLKB_TARGET nor fio keywords."""
    found = []
    for m in ENV_VAR_RE.finditer(value[:MAX_VALUE_LEN]):
        if m.group("braced") is not None:
            if m.group("braced") not in SAFE_ENV_VARS:
                found.append(m.group(0))
        elif m.group("bare").lower() not in FIO_KEYWORDS:
            found.append(m.group(0))
    return found


def _take_log_writer(st: _Pass, canon: str, name: str, value: str) -> None:
    """Keep a ``write_*_log`` only as a bare name in the run directory."""
    base = value.rsplit("/", 1)[-1]
    if not value or value in ("1", "0"):
        st.options[canon] = value
        return
    if SAFE_LOG_NAME_RE.match(base) and not unsafe_variables(base):
        if base != value:
            st.note(f"{name}={value[:80]} written as {canon}={base}: logs stay in the run directory")
        st.options[canon] = base
        return
    st.note(f"dropped {name}={value[:80]}: log path outside the run directory")


def _settle_engine(st: _Pass) -> None:
    """Keep an engine reviewed as safe (:data:`policy.ENGINES`); replace any other by psync."""
    engine = st.options.get("ioengine")
    if engine is None:
        return
    low = engine.strip().lower()
    head = low.split(":", 1)[0]
    if head in policy.ENGINES and head == low:
        st.options["ioengine"] = head
        return
    if "/" in low or low.endswith(".so") or head == "external":
        reason = "loads a shared object"
    elif head in policy.ENGINE_REFUSALS:
        reason = policy.ENGINE_REFUSALS[head]
    else:
        reason = "is not an engine reviewed as safe"
    st.options["ioengine"] = REPLACEMENT_ENGINE
    st.note(f"ioengine={engine[:80]} replaced by {REPLACEMENT_ENGINE}: it {reason}")


def drop_foreign_engine_options(options: dict[str, str]) -> list[str]:
    """Drop (in place) engine-specific options the job's engine does not take; fio rejects them."""
    engine = options.get("ioengine", "psync")
    notes = []
    for canon in list(options):
        row = catalog.entry(canon) or {}
        engines = row.get("engines")
        if engines and engine not in engines:
            value = options.pop(canon)
            notes.append(
                f"dropped {canon}={value[:80]}: only the {', '.join(engines)} engine(s) take it, "
                f"the job uses {engine}"
            )
    return notes


def _set_target(st: _Pass, target: str | None, allow_device_writes: bool, writes: bool) -> None:
    """Point all data I/O at the target (or ``${LKMLKB_TARGET}``) and size it."""
    chosen = TARGET_PLACEHOLDER
    if target is not None:
        chosen = _checked_target(st, target, allow_device_writes, writes)
    originals = [t for t in st.original_targets if t.strip()]
    for orig in dict.fromkeys(originals):
        if orig.strip() != chosen:
            what = "a device" if is_device_path(orig) else "a path on the reporter's machine"
            st.note(f"filename {orig[:120]} ({what}) replaced by {chosen}")
    if not originals:
        st.note(f"filename={chosen} added so the job runs on the chosen target")
    st.options["filename"] = chosen
    used_device = any(is_device_path(t) for t in originals)
    has_size = any(k in st.options for k in ("size", "io_size", "filesize"))
    target_is_device = target is not None and chosen != TARGET_PLACEHOLDER and is_device_path(chosen)
    if not has_size and not target_is_device:
        st.options["size"] = DEFAULT_SCRATCH_SIZE
        if used_device:
            st.note(
                f"size={DEFAULT_SCRATCH_SIZE} assumed: the report ran on a whole device; "
                "raise it for a realistic run"
            )
        else:
            st.note(f"size={DEFAULT_SCRATCH_SIZE} assumed: the report gave no size")
    if writes and st.options.get("zonemode", "").lower() == "zbd" and not target_is_device:
        st.options.pop("zonemode")
        st.note("dropped zonemode=zbd: zone resets need a zoned device target")


def _checked_target(st: _Pass, target: str, allow_device_writes: bool, writes: bool) -> str:
    """The user's target written for fio, or the placeholder when it is refused."""
    t = target.strip()
    if not t or any(c in t for c in "\n\r\0$`") or len(t) > 1000:
        st.note(f"target {t[:80]!r} refused: not a plain path; {TARGET_PLACEHOLDER} used")
        return TARGET_PLACEHOLDER
    if is_system_path(t):
        st.note(f"target {t[:80]} refused: a system path; {TARGET_PLACEHOLDER} used")
        return TARGET_PLACEHOLDER
    if is_device_path(t) and writes and not allow_device_writes:
        st.note(
            f"target {t[:80]} refused: the job writes or trims and {t[:80]} is a device "
            f"(pass allow_device_writes / --allow-device-writes); {TARGET_PLACEHOLDER} used"
        )
        return TARGET_PLACEHOLDER
    return t.replace(":", "\\:")  # fio splits filename on ':'


def _ordered(options: dict[str, str]) -> dict[str, str]:
    """``ioengine`` first: fio loads the engine before it accepts the engine's options."""
    out: dict[str, str] = {}
    if "ioengine" in options:
        out["ioengine"] = options["ioengine"]
    for k, v in options.items():
        out.setdefault(k, v)
    return out
