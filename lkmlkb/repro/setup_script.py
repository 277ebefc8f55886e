"""A reviewable bash script recreating a report's setup: scheduler, tunables, test devices.

Everything that changes the system sits behind an explicit ``read -p``
confirmation (``set -eu`` at the top; stdin closed or any answer but ``y``
skips the step), and every value that came from the mail is checked against
a strict pattern before it is written into the script: a value that is not a
plain word or number becomes a comment, never a command.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.model import Report, SetupFact

log = logging.getLogger(__name__)

#: lines are read up to this many characters (a longer one is base64 or junk)
MAX_LINE = 4000
SCHEDULERS = ("mq-deadline", "deadline", "bfq", "kyber", "cfq", "noop", "none", "anticipatory")
#: legacy (single-queue) schedulers, removed in 5.0, and their closest blk-mq successor
LEGACY_SCHEDULERS = {"deadline": "mq-deadline", "cfq": "bfq", "noop": "none", "anticipatory": "mq-deadline"}
#: tunables of the I/O scheduler (``/sys/block/DEV/queue/iosched/NAME``)
IOSCHED_TUNABLES = frozenset(
    {
        "low_latency",
        "slice_idle",
        "slice_sync",
        "slice_async",
        "slice_async_rq",
        "quantum",
        "back_seek_max",
        "back_seek_penalty",
        "fifo_expire_sync",
        "fifo_expire_async",
        "group_idle",
        "fifo_batch",
        "read_expire",
        "write_expire",
        "writes_starved",
        "front_merges",
        "async_depth",
        "prio_aging_expire",
        "timeout_sync",
        "max_budget",
        "strict_guarantees",
        "read_lat_nsec",
        "write_lat_nsec",
        "slice_idle_us",
        "target_latency",
    }
)
#: attributes of the request queue (``/sys/block/DEV/queue/NAME``)
QUEUE_TUNABLES = frozenset(
    {
        "nr_requests",
        "read_ahead_kb",
        "rotational",
        "nomerges",
        "rq_affinity",
        "max_sectors_kb",
        "wbt_lat_usec",
        "iostats",
        "add_random",
        "io_poll",
        "io_poll_delay",
        "write_cache",
        "scheduler",
    }
)
#: attributes of the SCSI device (``/sys/block/DEV/device/NAME``)
DEVICE_TUNABLES = frozenset({"queue_depth", "timeout"})
#: vm sysctls (``sysctl vm.NAME``)
VM_TUNABLES = frozenset(
    {
        "dirty_ratio",
        "dirty_background_ratio",
        "dirty_bytes",
        "dirty_background_bytes",
        "dirty_expire_centisecs",
        "dirty_writeback_centisecs",
        "swappiness",
        "vfs_cache_pressure",
        "drop_caches",
    }
)

TUNABLE_RE = re.compile(
    r"""
    \b                                          # names start a word: without it a long run of letters
                                                # is retried at every offset
    (?P<name>[a-z][a-z0-9_]{1,39})              # "low_latency", "queue_depth", "nr_requests"
    \s{0,3}
    (?:=|:|\bset\s{1,3}to\b|\bis\b|\bof\b)?      # "low_latency=0", "low_latency set to 0", "queue_depth is 254"
    \s{0,3}
    (?P<value>-?\d{1,12}|[a-z][a-z0-9_-]{0,19})\b   # "0", "254", "mq-deadline"
""",
    re.VERBOSE | re.IGNORECASE,
)

DEPTH_RE = re.compile(
    r"""
    queue\s{0,2}_?\s{0,2}depth\D{0,40}?(?P<value>\d{1,6})   # "Queue depth of the storage device is 254"
""",
    re.VERBOSE | re.IGNORECASE,
)

MODPROBE_RE = re.compile(
    r"""
    \bmodprobe\s{1,4}(?:-[a-z]\s{1,4}){0,3}
    (?P<module>[a-z][a-z0-9_]{1,39})                   # "modprobe scsi_debug", "modprobe null_blk"
    (?P<params>(?:\s{1,4}[a-z][a-z0-9_]{0,39}=[^\s;&|]{1,80}){0,20})   # "host_max_queue=128 submit_queues=$NRQS"
""",
    re.VERBOSE,
)

PARAM_VALUE_RE = re.compile(
    r"""
    ^[A-Za-z0-9_.,:-]{1,40}$    # "128", "256", "on", "0,1": plain values only (no "$NRQS", no quotes)
""",
    re.VERBOSE,
)

WORD_RE = re.compile(
    r"""
    ^[A-Za-z0-9_.-]{1,40}$      # a value safe to write unquoted into a sysfs echo
""",
    re.VERBOSE,
)

COMMENT_UNSAFE_RE = re.compile(
    r"""
    [\x00-\x1f\x7f-\x9f\u2028\u2029]             # control characters and Unicode line breaks (NEL, LS, PS): a newline would end the comment
""",
    re.VERBOSE,
)


def _comment(text: str) -> str:
    return "# " + COMMENT_UNSAFE_RE.sub(" ", str(text))[:300]


def _fact_texts(fact: SetupFact) -> list[str]:
    """The fact's value and the text it was found in (lines trimmed to 4,000 chars)."""
    texts = [str(fact.value or "")[:MAX_LINE]]
    if fact.evidence and fact.evidence.text:
        texts.extend(ln[:MAX_LINE] for ln in fact.evidence.text.splitlines()[:200])
    return texts


def find_schedulers(facts: list[SetupFact]) -> list[str]:
    """Scheduler names from ``scheduler`` facts ("mq-deadline", "deadline", "none")."""
    found: list[str] = []
    for fact in facts:
        if fact.key.lower() not in ("scheduler", "iosched", "io_scheduler", "elevator"):
            continue
        words = re.findall(r"[a-z][a-z-]{1,20}", str(fact.value).lower()[:MAX_LINE])
        for w in words:
            if w in SCHEDULERS and w not in found:
                found.append(w)
    return found


def find_tunables(facts: list[SetupFact]) -> list[tuple[str, str]]:
    """(name, value) of tunables the facts set: ``low_latency=0``, queue depth 254."""
    found: list[tuple[str, str]] = []
    for fact in facts:
        key = fact.key.lower()
        if key in ("queue_depth", "qd", "depth"):
            m = re.search(r"\d{1,6}", str(fact.value)[:MAX_LINE])
            pair = ("queue_depth", m.group(0)) if m else None
            if pair and pair not in found:
                found.append(pair)
            continue
        if key not in ("tunable", "tunables", "sysfs", "sysctl", "queue"):
            continue
        value = str(fact.value)[:MAX_LINE]
        m = DEPTH_RE.search(value)
        if m:
            pair = ("queue_depth", m.group("value"))
        else:
            t = TUNABLE_RE.search(value)
            pair = (t.group("name").lower(), t.group("value")) if t else None
        if pair and pair not in found and known_tunable(pair[0]):
            found.append(pair)
    return found


def known_tunable(name: str) -> bool:
    return name in IOSCHED_TUNABLES | QUEUE_TUNABLES | DEVICE_TUNABLES | VM_TUNABLES


def find_module_loads(
    report: Report, texts: list[str] | None = None
) -> list[tuple[str, list[str], list[str]]]:
    """(module, plain params, params left to the user) for each ``modprobe MOD k=v ...``."""
    found = []
    seen = set()
    sources: list[str] = list(texts or [])
    for fact in report.setup or []:
        sources.extend(_fact_texts(fact))
    for text in sources:
        for line in str(text).splitlines():
            for m in MODPROBE_RE.finditer(line[:MAX_LINE]):
                params = m.group("params").split()
                plain = [p for p in params if PARAM_VALUE_RE.match(p.split("=", 1)[1])]
                other = [p for p in params if p not in plain]
                key = (m.group("module"), tuple(params))
                if key not in seen:
                    seen.add(key)
                    found.append((m.group("module"), plain, other))
    return found


def render_setup(report: Report, texts: list[str] | None = None) -> str:
    """The setup script for ``report``: reference comments, then confirmed steps.

    Tolerates any setup facts: unknown keys and values that are not plain
    words become comments.  ``bash -n`` accepts the result.
    """
    facts = list(report.setup or [])
    out = [
        "#!/usr/bin/env bash",
        _comment(f"setup.sh for: {report.title}"),
        "# Generated by lkmlkb from what the report says about its setup.",
        "# READ IT BEFORE RUNNING.  Every step that changes the system asks first;",
        "# any answer but 'y' (or no terminal) skips it.  Nothing is changed unattended.",
        "set -eu",
        "",
        'DEV="${LKMLKB_DEV:-}"   # device under test, a name under /sys/block (sdb, nvme0n1, dm-0)',
        "",
        "confirm() {",
        "    local answer=''",
        '    read -r -p "$1 [y/N] " answer || return 1',
        '    [ "$answer" = y ] || [ "$answer" = Y ]',
        "}",
        "",
        "need_dev() {",
        '    if [ -z "$DEV" ] || [ ! -d "/sys/block/$DEV" ]; then',
        '        echo "skipped: set LKMLKB_DEV to a name under /sys/block" >&2',
        "        return 1",
        "    fi",
        "}",
        "",
        "# What the report says about its setup:",
    ]
    for fact in facts:
        where = (
            f" (<{fact.evidence.message_id}> line {fact.evidence.line_start + 1})"
            if fact.evidence.message_id
            else ""
        )
        out.append(_comment(f"  {fact.key}: {fact.value}{where}"))
    if not facts:
        out.append("#   nothing")
    out.append("")
    steps = 0
    for sched in find_schedulers(facts):
        steps += 1
        out.append(_comment(f"step {steps}: I/O scheduler {sched} (reported)"))
        if sched in LEGACY_SCHEDULERS:
            out.append(
                _comment(f"  kernels since 5.0 have no {sched}; the closest is {LEGACY_SCHEDULERS[sched]}")
            )
        out += [
            f'if need_dev && confirm "Set the I/O scheduler of $DEV to {sched}?"; then',
            f'    echo {sched} > "/sys/block/$DEV/queue/scheduler"',
            "fi",
            "",
        ]
    for name, value in find_tunables(facts):
        steps += 1
        out += _tunable_step(steps, name, value)
    for module, plain, other in find_module_loads(report, texts):
        steps += 1
        out += _module_step(steps, module, plain, other)
    if not steps:
        out.append("# No setup step could be derived from the report.")
    out.append('echo "setup.sh: done" >&2')
    return "\n".join(out) + "\n"


def _tunable_step(n: int, name: str, value: str) -> list[str]:
    """A confirmed echo into sysfs (or sysctl) for one tunable."""
    if not WORD_RE.match(value):
        return [_comment(f"step {n}: {name}={value} reported; not a plain value, set it yourself"), ""]
    head = _comment(f"step {n}: {name}={value} (reported)")
    if name in VM_TUNABLES:
        return [
            head,
            f'if confirm "Set vm.{name}={value}?"; then',
            f"    sysctl -w vm.{name}={value}",
            "fi",
            "",
        ]
    if name in DEVICE_TUNABLES:
        path = f'"/sys/block/$DEV/device/{name}"'
    elif name in QUEUE_TUNABLES:
        path = f'"/sys/block/$DEV/queue/{name}"'
    else:
        path = f'"/sys/block/$DEV/queue/iosched/{name}"'
    return [
        head,
        f'if need_dev && confirm "Set {name}={value} on $DEV?"; then',
        f"    echo {value} > {path}",
        "fi",
        "",
    ]


def _module_step(n: int, module: str, plain: list[str], other: list[str]) -> list[str]:
    """A confirmed reload of a test-device module (scsi_debug, null_blk) with reported params."""
    lines = [_comment(f"step {n}: load {module} as reported: {' '.join(plain + other)}")]
    for p in other:
        lines.append(_comment(f"  {p} was not a plain value in the report: add it yourself"))
    args = " ".join(plain)
    lines += [
        f'if confirm "Unload and reload {module} with {args}? (removes its existing devices)"; then',
        f"    modprobe -r {module} || true",
        f"    modprobe {module} {args}".rstrip(),
        "fi",
        "",
    ]
    return lines
