"""Measured numbers in tables and per-kernel summary lines written into mail.

``find_tables(text)`` reads the table shapes regression reports use:

* kernel test robot (LKP) comparison tables (``base ±%stddev %change head``);
* ``|``-separated ad-hoc tables, with several header rows and continuation
  rows whose first cell is empty (tiobench tables, corpus/002; corpus/001);
* whitespace tables of a label and figures under a header (corpus/001);
* sample lines ``37.80 38.54 39.48 -> 38.606667 0.687475`` under a kernel
  heading, ``Threads Avg Stddev`` tables, ``Average:`` rows under a header
  naming kernels (corpus/002);
* ``on 6.8-rc7 : 3571`` lines pairing a kernel with a figure (corpus/000);
* ``iostat -x`` device rows and ``dd`` summaries (corpus/004);
* mmtests compare output (``Amean  1  123.45 (  0.00%)  130.00 *-5.31%*``).

Kernels are set where the table itself names them (a kernel column, a kernel
heading right above, a header of kernels); ``results`` attributes the rest.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from lkmlkb.extract.fio_output import Line, cue_lines, evidence, filled_lines, joined_text, prepare_lines
from lkmlkb.extract.kernel_versions import (
    find_versions,
    normalize_version,
    opens_with_version,
    plausible_release,
    qualifier,
)
from lkmlkb.extract.lines import word_lines
from lkmlkb.extract.measurements import CONDITION_WORDS, condition_label
from lkmlkb.extract.metric_units import normalize, parse_count, parse_quantity, to_float
from lkmlkb.extract.prefilter import LKP_HEADER
from lkmlkb.extract.setup import main_benchmark
from lkmlkb.model import Result

log = logging.getLogger(__name__)

_NUM = r"[-+]?\d{1,20}(?:\.\d{1,20})?(?:[eE][-+]?\d{1,3})?"


def _result(
    metric: str, value: float, unit: str, ln: int | tuple[int, int], lines: list[Line], **kw
) -> Result:
    a, b = (ln, ln) if isinstance(ln, int) else ln
    nv, nu = normalize(value, unit)
    return Result(
        metric=metric,
        value=value,
        unit=unit,
        normalized_value=nv,
        normalized_unit=nu,
        evidence=evidence(lines, a, b),
        **kw,
    )


#: what may stand before a kernel opening a line or cell
_START_LEAD = ("", "on", "kernel", "linux", "-", "*", "with", "for")


def _kernel_at_start(text: str, max_offset: int = 12) -> tuple[str, str, int] | None:
    """(normalized version, raw, end) of a kernel version opening ``text``.

    Tolerates a leading ``on``/``kernel``/``linux``/``-`` (``on 6.8-rc7 : 3571``).
    """
    if not opens_with_version(text, _START_LEAD):  # most lines: no version read
        return None
    for start, end, raw, norm in find_versions(text[:300]):
        lead = text[:start].strip().lower().rstrip(":")
        if start <= max_offset and lead in _START_LEAD:
            return norm, raw, end
        break
    return None


def _kernel_and_config(cell: str) -> tuple[str | None, str | None]:
    """A kernel in a label cell and what else the label says (``+revert``, ``low_latency=0``)."""
    found = find_versions(cell[:300])
    if not found:
        return None, None
    start, end, raw, norm = found[0]
    rest = (cell[:start] + " " + cell[end:]).strip(" ,:;|")
    q = qualifier(raw)
    config = " ".join(x for x in (q, rest) if x) or None
    return norm, config


_TEXT_TOOL: list = [None, None]  # (the lines last asked about, their benchmark): two finders ask in turn


def _text_tool(lines: list[Line]) -> str | None:
    """The benchmark a text names most, where its tables do not say (tiobench tables, corpus/002).

    Counted once per ``lines`` (kept by identity, not by hashing the whole text).
    """
    if _TEXT_TOOL[0] is not lines:
        _TEXT_TOOL[0], _TEXT_TOOL[1] = lines, main_benchmark(joined_text(lines))
    return _TEXT_TOOL[1]


_DIRECTION_CUE = re.compile(
    r"""
    \b(?: (?P<rr>randread|random[ ]reads?|rand[ ]reads?)           # "randread test on ibm-x3850x6"
        | (?P<rw>randwrite|random[ ]writes?|rand[ ]writes?)        # "random write latency"
        | (?P<sr>seq(?:uential)?[ ]reads?|read[ ](?:test|bandwidth|throughput|performance))   # "sequential read"
        | (?P<sw>seq(?:uential)?[ ]writes?|write[ ](?:test|bandwidth|throughput|performance))  # "sequential write performance numbers"
    )\b
    """,
    re.VERBOSE | re.IGNORECASE,
)


def _context_direction(lines: list[Line], start: int, back: int = 4) -> str | None:
    """Direction named in the few non-blank lines above ``start`` (``1) randread test on ...``)."""
    seen = 0
    for j in range(start - 1, max(-1, start - 12), -1):
        t = lines[j].text
        if not t.strip():
            continue
        seen += 1
        m = _DIRECTION_CUE.search(t[:400])
        if m:
            return {"rr": "randread", "rw": "randwrite", "sr": "read", "sw": "write"}[m.lastgroup]
        if seen >= back:
            break
    return None


# --------------------------------------------------------------------------
# kernel test robot comparison tables

_LKP_HEADER_CUE = ("%change",)  # in every LKP_HEADER match: the lines holding it are found at once
#: the rule under a table's commits: "---------------- ---------------------------"
_LKP_DASHES = re.compile(r"^\s{0,8}-{8,40}(?:\s{1,8}-{8,40}){1,8}\s{0,8}$")
_LKP_COLS = re.compile(
    r"^\s{0,8}(?P<cols>[0-9a-f]{7,40}(?:\s{1,8}[0-9a-zA-Z.\-+_]{3,40}){1,8})\s{0,8}$"
)  # "8f764b91fdf29659 574e7779cf583171acb5bf63650"
_LKP_COMMIT = re.compile(
    r"^\s{1,8}(?P<c>[0-9a-f]{7,40}|v\d[\w.\-]{1,30})(?:\s|$)"
)  # '  574e7779cf ("block/mq-deadline: ...")', '  v6.8-rc1'
_PLUSMINUS = re.compile(r"(?:\u00b1|\ufffd|\u00c2\u00b1|\+-)\s{0,6}(?=\d)")  # "± 7%", mis-decoded "�  7%"
_LETTER = re.compile(r"[A-Za-z]")  # a metric name spells a letter: "fio.write_iops"
_CHANGE = re.compile(r"^[-+]\d{1,12}(?:\.\d{1,6})?(?:e[-+]?\d{1,3})?%?$")  # "-72.9%", "+0.1", "+1e+05%"
_LKP_MONITORS = (
    "uptime.",
    "iostat.",
    "vmstat.",
    "mpstat.",
    "meminfo.",
    "numa-",
    "proc-vmstat.",
    "perf-stat.",
    "perf-sched.",
    "perf-profile.",
    "perf-c2c.",
    "sched_debug.",
    "turbostat.",
    "slabinfo.",
    "interrupts.",
    "softirqs.",
    "lock_stat.",
    "latency_stats.",
    "cpuidle.",
    "pmeter.",
    "boot-time.",
    "time.",
    "numa-meminfo.",
    "numa-vmstat.",
    "buddyinfo.",
    "kmsg.",
    "dmesg.",
)
_LKP_FIO = re.compile(
    r"""
    ^fio\.(?P<dir>read|write|trim)_(?:(?P<iops>iops)|(?P<bw>bw_MBps)|clat_(?P<clat>mean|\d{1,2}(?:\.\d{1,3})?%)_us)$
    # fio.write_iops, fio.write_bw_MBps, fio.write_clat_mean_us, fio.write_clat_99%_us
    """,
    re.VERBOSE,
)


def _lkp_metric(name: str) -> tuple[str, str, str | None, str]:
    """(metric, unit, direction, tool) for an LKP metric name."""
    m = _LKP_FIO.match(name)
    if m:
        if m["iops"]:
            return "iops", "IOPS", m["dir"], "fio"
        if m["bw"]:
            return "bw", "MBps", m["dir"], "fio"
        stat = m["clat"]
        return ("clat" if stat == "mean" else "clat_p" + stat.rstrip("%")), "us", m["dir"], "fio"
    tool = name.split(".", 1)[0] if "." in name else "lkp"
    return name, ("%" if name.endswith("%") else ""), None, tool


def _lkp_row(text: str) -> tuple[list[tuple[float, float | None]], str] | None:
    """Parse ``  161.00 ±  2%  -72.9%  43.67 ± 3%  fio.write_iops`` into values and a name."""
    t = text.strip()
    if "\u00b1" in t or "\ufffd" in t or "+-" in t:  # every _PLUSMINUS spelling holds one of these
        t = _PLUSMINUS.sub("\u00b1", t)
    toks = t.split()
    if len(toks) < 3 or len(toks) > 40:
        return None
    name = toks[-1]
    if to_float(name) is not None or not _LETTER.search(name):
        return None
    body = toks[:-1]
    vals: list[tuple[float, float | None]] = []
    i = 0
    while i < len(body):
        if vals:
            if not _CHANGE.match(body[i]):
                return None
            i += 1
            if i >= len(body):
                return None
        v = to_float(body[i])
        if v is None:
            return None
        i += 1
        sd = None
        if i < len(body) and body[i].startswith("\u00b1"):
            pct = to_float(body[i][1:].rstrip("%"))
            sd = abs(v) * pct / 100.0 if pct is not None else None
            i += 1
        vals.append((v, sd))
    if len(vals) < 2:
        return None
    return vals, name


def _lkp_columns(lines: list[Line], header: int) -> list[str]:
    """Column labels of an LKP table: the SHA line above the dashes (a "fail:runs" block of three
    lines may stand between them and the header), else the ``commit:`` list."""
    for j in range(header - 1, max(-1, header - 8), -1):
        m = _LKP_COLS.match(lines[j].text)
        if m:
            return m["cols"].split()
    for j in range(header - 1, max(-1, header - 30), -1):
        if lines[j].text.strip().startswith("commit:"):
            cols = []
            for k in range(j + 1, min(len(lines), j + 10)):
                m = _LKP_COMMIT.match(lines[k].text)
                if not m:
                    break
                cols.append(m["c"])
            return cols
    return []


def find_lkp_tables(lines: list[Line]) -> list[Result]:
    """Rows of kernel test robot comparison tables, one Result per column.

    Monitor rows (perf-stat, vmstat, sched_debug ...) are skipped; the
    benchmark's own rows (``fio.write_iops``, ``will-it-scale.per_process_ops``)
    are kept, with the column's commit as ``config`` (or its ``kernel`` when the
    column is a release like ``v6.8-rc1``).
    """
    out: list[Result] = []
    after = 0  # the first line past the last table read
    heads = [i for i in cue_lines(lines, _LKP_HEADER_CUE) if LKP_HEADER.search(lines[i].text)]
    # the layout copied by people into their replies without the "%stddev %change" line: the
    # columns' commits over a rule of dashes ("ecd788a92460eef4 2edf06a50f5b...", "------ ------")
    heads += [
        i
        for i in cue_lines(lines, ("--------",))
        if _LKP_DASHES.match(lines[i].text)
        and i > 0
        and _LKP_COLS.match(lines[i - 1].text)
        and not any(LKP_HEADER.search(lines[k].text) for k in range(i + 1, min(len(lines), i + 3)))
    ]
    for i in sorted(heads):
        if i < after:
            continue
        cols = _lkp_columns(lines, i)
        j = i + 1
        rows = 0
        while j < len(lines):
            t = lines[j].text
            if not t.strip():
                if rows:
                    break
                j += 1
                continue
            parsed = _lkp_row(t)
            if parsed is None:
                if rows or j - i > 4:
                    break
                j += 1
                continue
            rows += 1
            vals, name = parsed
            if not name.startswith(_LKP_MONITORS):
                metric, unit, direction, tool = _lkp_metric(name)
                for k, (v, sd) in enumerate(vals):
                    col = cols[k] if k < len(cols) else None
                    kernel, _ = _kernel_and_config(col) if col and col.startswith("v") else (None, None)
                    out.append(
                        _result(
                            metric,
                            v,
                            unit,
                            j,
                            lines,
                            direction=direction,
                            tool=tool,
                            stddev=sd,
                            kernel=kernel,
                            config=None if kernel else col,
                        )
                    )
            j += 1
        # the line that ended the table may open the next one; a head that read no row consumed
        # nothing (the rule under the commits of the robot's 2019 layout, whose "fail:runs" block
        # stands between it and the "%stddev %change %stddev" header)
        after = j if rows else i + 1
    return out


# --------------------------------------------------------------------------
# "|" tables

_SEPARATOR = re.compile(r"^[\s\-=+|:*~_]{3,}$")  # "-----+-----", "|----|----|"
_PIPE = ("|",)  # a block starts at a line holding one: those lines are found at once
_PARAM_HEADERS = {
    "thr",
    "threads",
    "thread",
    "jobs",
    "numjobs",
    "nr_task",
    "qd",
    "iodepth",
    "depth",
    "bs",
    "blocksize",
    "size",
    "clients",
    "procs",
    "cpus",
    "nr",
    "t",
    "tasks",
    "queues",
}
_CPU_CELL = re.compile(
    r"usr=\s{0,3}(?P<usr>\d{1,3}(?:\.\d{1,4})?)%,?\s{0,3}sys=\s{0,3}(?P<sys>\d{1,3}(?:\.\d{1,4})?)%"
)  # "usr=1.13%, sys=14.75%"
_UNIT_IN_HEADER = re.compile(
    r"\(\s{0,3}(?P<u>[KMGT]?i?B/s|MBps|[KMG]?IOPS|[um]?sec|[mun]s|%)\s{0,3}\)"
    # seconds or minutes written short only apart from the name: "time (s)", not "thread(s)"
    r"|(?<=\s)\(\s{0,3}(?P<t>s|secs|seconds?|mins?|minutes?)\s{0,3}\)",
    re.I,
)  # "bw (MB/s)", "Lat avg (usec)", "time (s)"
#: a latency column named with its statistic: "Lat avg (usec)", "Lat Max (usec)", "avg-lat(us)",
#: "p99 lat": the mean is the latency, any other statistic a metric of its own ("lat_max")
_LATENCY_WORD = frozenset({"lat", "latency", "clat"})
_MEAN_WORD = frozenset({"avg", "average", "mean"})
_STATISTIC_WORD = re.compile(r"max|min|median|stddev|stdev|p\d{1,2}(?:\.\d{1,2})?|\d{1,2}(?:\.\d{1,2})?th")
#: a percentile in a header ("p99 lat", "99.9th"): its digits are a name, not a figure
_PERCENTILE_NAME = re.compile(
    r"(?<![A-Za-z0-9])(?:p\d{1,2}(?:\.\d{1,2})?|\d{1,2}(?:\.\d{1,2})?th)(?![0-9])", re.I
)
_TWO_NUMS = re.compile(
    r"^\s{0,4}(?P<a>" + _NUM + r")\s{0,4},\s{0,4}(?P<b>" + _NUM + r")\s{0,4}$"
)  # "6.625, 1683.66"


def _header_meaning(name: str, tool: str | None) -> tuple[str, str | None, str]:
    """(metric, direction, unit) a column header stands for."""
    low = name.lower().strip()
    um = _UNIT_IN_HEADER.search(name)
    unit = (um["u"] or um["t"]) if um else ""
    words = re.sub(r"\([^)]{0,20}\)", " ", low).split()
    w = words[0] if words else low
    parts = [x for x in re.split(r"[\s_-]+", " ".join(words)) if x]
    if len(parts) > 1 and any(x in _LATENCY_WORD for x in parts):
        stats = [x for x in parts if x not in _LATENCY_WORD]
        if all(x in _MEAN_WORD or _STATISTIC_WORD.fullmatch(x) for x in stats):
            named = [x for x in stats if x not in _MEAN_WORD]
            return ("lat" if not named else f"lat_{named[0]}"), None, unit
    if "iops" in low:
        return "iops", None, "IOPS"
    lat_dirs = {"rlat": "read", "rrlat": "randread", "wlat": "write", "rwlat": "randwrite"}
    if w in lat_dirs:
        return "lat", lat_dirs[w], unit or ("ms" if tool == "tiobench" else "")
    tput_dirs = {
        "read": "read",
        "write": "write",
        "randr": "randread",
        "randw": "randwrite",
        "randread": "randread",
        "randwrite": "randwrite",
        "seqread": "read",
        "seqwrite": "write",
        "rread": "randread",
        "rwrite": "randwrite",
    }
    if w in tput_dirs:
        return "throughput", tput_dirs[w], unit or ("MB/s" if tool == "tiobench" else "")
    if w in ("bw", "bandwidth", "throughput", "tput"):
        return "bw" if w in ("bw", "bandwidth") else "throughput", None, unit
    if w in ("lat", "latency", "clat"):
        return "lat", None, unit
    if "cpu" in low or "util" in low:
        return "cpu", None, unit or "%"
    return (w or "value"), None, unit


def _split_cells(text: str) -> list[str]:
    return [c.strip() for c in text[:2000].split("|")[:60]]


def _pipe_blocks(lines: list[Line]) -> list[tuple[int, int]]:
    """Runs of lines holding ``|`` cells (separator lines allowed inside)."""
    blocks = []
    after = 0  # the first line past the last block
    for i in cue_lines(lines, _PIPE):
        if i < after:
            continue
        j = i
        while j + 1 < len(lines) and (
            "|" in lines[j + 1].text or (_SEPARATOR.match(lines[j + 1].text) and lines[j + 1].text.strip())
        ):
            j += 1
        blocks.append((i, j))
        after = j + 1
    return blocks


#: a change written after a cell's figure: "660 (+82%)" (linux-block, 2025-06): the figure's own
_CHANGE_AFTER = re.compile(r"[ \t]{0,3}\([ \t]{0,2}[-+~]?\d{1,6}(?:\.\d{1,3})?[ \t]{0,2}%[ \t]{0,2}\)$")


def _cell_figure(cell: str) -> str:
    """A data cell's text without a star's mark or a change written after its figure."""
    c = cell.strip().rstrip("*").strip()
    return _CHANGE_AFTER.sub("", c) if c.endswith("%)") else c


def _is_numeric_cell(cell: str) -> bool:
    c = _cell_figure(cell)
    return bool(c) and (
        to_float(c) is not None
        or parse_quantity(c, "IOPS") is not None
        or bool(_TWO_NUMS.match(c))
        or bool(_CPU_CELL.search(c))
    )


def _cell_results(
    cell: str, meaning: tuple[str, str | None, str], j: int, lines: list[Line], **kw
) -> list[Result]:
    """Results from one data cell, read by its content first and its header second."""
    metric, direction, unit = meaning
    c = _cell_figure(cell)
    cm = _CPU_CELL.search(c)
    if cm:
        return [
            _result("cpu_usr", float(cm["usr"]), "%", j, lines, direction=direction, **kw),
            _result("cpu_sys", float(cm["sys"]), "%", j, lines, direction=direction, **kw),
        ]
    tm = _TWO_NUMS.match(c)
    if tm:  # tiobench "avg, max"
        return [_result(metric, float(tm["a"]), unit, j, lines, direction=direction, **kw)]
    if metric == "iops":
        v = parse_count(c)
        return [_result("iops", v, "IOPS", j, lines, direction=direction, **kw)] if v is not None else []
    q = parse_quantity(c, unit)
    if q is None:
        return []
    return [_result(metric, q[0], q[1] or unit, j, lines, direction=direction, **kw)]


def _header_names(header_rows: list[list[str]], width: int) -> list[str]:
    """Column names: the last header row, earlier rows right-aligned over it (tiobench)."""
    names = [""] * width
    for row in header_rows:
        cells = row[:width]
        offset = width - len(cells) if len(cells) < width else 0
        for k, c in enumerate(cells):
            if c:
                names[offset + k] = (names[offset + k] + " " + c).strip()
    return names


def _parse_pipe_block(lines: list[Line], a: int, b: int) -> list[Result]:
    rows = [(j, _split_cells(lines[j].text)) for j in range(a, b + 1) if not _SEPARATOR.match(lines[j].text)]
    if not rows:
        return []
    if all(lines[j].text.strip().startswith("|") for j, _ in rows):
        rows = [(j, c[1:]) for j, c in rows]
    if all(lines[j].text.strip().endswith("|") for j, _ in rows):
        rows = [(j, c[:-1] if c and not c[-1] else c) for j, c in rows]
    width = max(len(c) for _, c in rows)
    first_data = next((k for k, (_, c) in enumerate(rows) if any(_is_numeric_cell(x) for x in c[1:])), None)
    if first_data is None or first_data == 0:
        return []
    tool = _text_tool(lines)  # only a block with figures needs it (most blocks of "|" lines hold none)
    names = _header_names([c for _, c in rows[:first_data]], width)
    direction_ctx = _context_direction(lines, a)
    out: list[Result] = []
    label = kernel = None
    group: list[Result] = []
    for j, cells in rows[first_data:]:
        if len(cells) < 2:
            continue
        head = cells[0]
        if _is_numeric_cell(head) and not find_versions(head):
            continue
        params = []
        if head:
            k, cfg = _kernel_and_config(head)
            if k:
                kernel, label, group = k, cfg, []
            elif kernel and "=" in head:
                label = head  # "low_lat=0": a configuration of the kernel row above
                for r in group:
                    r.config = " ".join(x for x in (head, r.config) if x)
            else:
                kernel, label, group = None, head, []
        for k, cell in enumerate(cells[1:], start=1):
            name = names[k] if k < len(names) else ""
            if name.lower().strip() in _PARAM_HEADERS and to_float(cell) is not None:
                params.append("%s=%s" % (name.strip().lower(), cell.strip()))
        config = " ".join(x for x in [label] + params if x) or None
        for k, cell in enumerate(cells[1:], start=1):
            name = names[k] if k < len(names) else ""
            if name.lower().strip() in _PARAM_HEADERS or not _is_numeric_cell(cell):
                continue
            metric, direction, unit = _header_meaning(name, tool)
            res = _cell_results(
                cell,
                (metric, direction or direction_ctx, unit),
                j,
                lines,
                kernel=kernel,
                config=config,
                tool=tool,
            )
            out.extend(res)
            group.extend(res)
    return out


#: the first row of the kernel test robot's functional table: boot results or the first crash
#: signature it counts per commit ("| boot_failures |", "| BUG:KASAN:slab-out-of-bounds_in_x |")
_LKP_FUNCTIONAL_ROW = re.compile(
    r"""^\s{0,8}\|\s{0,8}
        (?:boot_(?:successes|failures)|BUG[:_]|WARNING[:_]|kernel_BUG|Oops[:_]|RIP:|Kernel_panic
          |general_protection|KASAN[:_]|UBSAN[:_]|INFO:|EIP:|calltrace
          |(?:xfstests|dmesg|kmsg|last_state|stderr)\.)   # the older reports' stat names""",
    re.VERBOSE,
)
#: the kernel test robot's functional report says what it saw in quotes ('kernel test robot
#: noticed "sysfs:cannot_create_duplicate_filename" on:'); its performance report names a change
_LKP_FUNCTIONAL_NOTICE = re.compile(r'test robot noticed\s{1,3}"')
#: a header row naming commits: "|   | 96ec4f2440 | 2951441c42 |"
_COMMIT_HEADER = re.compile(r"^\s{0,8}\|\s{0,80}\|\s{0,8}[0-9a-f]{7,40}\s{0,8}\|")

#: a table row's first cell, when it holds a label
_FIRST_CELL = re.compile(r"^\s{0,8}\|\s{0,8}[^|\s]")


def _is_lkp_functional(lines: list[Line], a: int, b: int, noticed: set[int]) -> bool:
    """Whether lines ``a..b`` are the kernel test robot's table of boot results and crashes per
    commit ("| boot_failures | 0 | 9 |"): counts of failures, no performance figure.  Its first
    labelled row decides (a header row has no label), or, in a functional report, a header
    naming commits at the quote depth of the report's notice (``noticed``: those depths)."""
    for j in range(a, min(b + 1, a + 8)):
        t = lines[j].text
        if lines[j].depth in noticed and _COMMIT_HEADER.match(t):
            return True
        if _FIRST_CELL.match(t):
            return bool(_LKP_FUNCTIONAL_ROW.match(t))
    return False


def find_pipe_tables(lines: list[Line]) -> list[Result]:
    """Results from ``|``-separated tables (corpus/001 IOPS tables, corpus/002 tiobench).

    The kernel test robot's functional table (``boot_successes``, ``boot_failures``,
    the oopses each commit showed) is not read."""
    blocks = _pipe_blocks(lines)
    if not blocks:
        return []
    noticed = {
        lines[i].depth for i in filled_lines(lines)[:40] if _LKP_FUNCTIONAL_NOTICE.search(lines[i].text)
    }
    blocks = [(a, b) for a, b in blocks if b - a <= 2000 and not _is_lkp_functional(lines, a, b, noticed)]
    if not blocks:
        return []
    out: list[Result] = []
    for a, b in blocks:
        out.extend(_parse_pipe_block(lines, a, b))
    return out


# --------------------------------------------------------------------------
# whitespace tables: a header, then "label  figures" rows

_DIGIT = re.compile(r"\d")  # a header names columns, it holds no figure
_WS_HEADER_WORD = re.compile(
    r"iops|bw|mb/s|throughput|lat", re.I
)  # a one-column header: "\t\tIOPs" (corpus/001)
_WS_SPLIT = re.compile(r"\t{1,8}\s{0,8}|\s{2,40}")  # cells apart by tabs or two spaces
_WS_ROW = re.compile(
    r"""
    ^\s{0,8}(?P<label>[A-Za-z][\w\-.]{0,30}(?:\ [A-Za-z][\w\-.]{0,20}){0,2}   # "mq-deadline", "non hosttags"
      |(?=[0-9]{0,39}[a-f])[0-9a-f]{7,40}(?![\w.])                        # a commit: "0e7ab7efe774..."
      |\d\.\d{1,2}(?:[.\-+][\w.\-+]{1,30})?)                                # a release: "5.17-rc4"
    (?:\t|\ {2})\s{0,40}(?P<rest>\S.{0,300})$
    """,
    re.VERBOSE,
)
#: a rule under a header: "======" or "------"
_RULE = re.compile(r"^[ \t]{0,12}(?:={6,}|-{6,})[ \t]*$")
_WS_ROW_CUE = ("\t", "  ")  # in every _WS_ROW match: what ends its label
#: what a column header names when it names a measure (see _header_meaning)
_MEASURES = frozenset({"iops", "lat", "throughput", "bw", "cpu"})
#: normalized units of speed: a rate, a count per second, a time
_SPEED_UNITS = frozenset({"B/s", "IOPS", "us"})
#: a row label naming a statistic of samples ("average  7882.67", "stddev  1982.79", "p99  412"): a
#: measurement whatever the column's name (Olivier Langlois's "reissue  completion" timings, io-uring)
_STATISTIC_LABEL = re.compile(
    r"(?:avg|average|mean|median|min|max|stddev|stdev|std|p\d{1,2}(?:\.\d{1,2})?)$", re.IGNORECASE
)


def find_whitespace_tables(lines: list[Line]) -> list[Result]:
    """Label rows under a one-line header, cells apart by tabs or 2+ spaces.

    ``\t\tIOPs`` / ``mq-deadline\tusr=21.72%, sys=44.18%,\t\t423K`` (corpus/001):
    a cell is read by its content (cpu, a quantity with a unit) and plain
    numbers by the header names aligned from the right.
    """
    out: list[Result] = []
    for row in cue_lines(lines, _WS_ROW_CUE):  # the lines that may be a row: each may have a header above
        i = row - 1
        if i > 0 and _RULE.match(lines[i].text):
            i -= 1  # a rule between the header and the rows ("------" under "Kernel   Write IOPS")
        if i < 0 or not lines[i].text or not _WS_ROW.match(lines[row].text):
            continue  # no row under it: nothing is read whatever the line is (a pasted .config's lines)
        h = lines[i].text.strip()
        if not h or len(h) > 200 or _DIGIT.search(_PERCENTILE_NAME.sub("", h)) or "|" in h:
            continue
        if h.lower().startswith("device"):
            continue
        if _ROW_HEAD.match(lines[i].text):
            continue  # metric rows under conditions: find_metric_rows reads them
        names = [x for x in _WS_SPLIT.split(h) if x]
        if not names or len(names) > 12 or any(len(x) > 30 for x in names):
            continue
        if len(names) == 1 and not _WS_HEADER_WORD.search(h):
            continue
        # one column of figures under a name that measures nothing ("Allocatable  yes (but full)" over
        # LVM's "PE Size  32.00 MiB", "Whence  Result" over "DATA  0"; a unit of speed such as
        # "MB/s" measures): a listing of settings or states, whose figures count only as a rate or a time
        last, _, last_unit = _header_meaning(names[-1], None)  # last_unit: one in parentheses, "bw (MB/s)"
        listing = (
            len(names) <= 2
            and last not in _MEASURES
            and not last_unit
            and normalize(1.0, names[-1].strip())[1] not in _SPEED_UNITS
        )
        j = row
        found: list[Result] = []
        while j < len(lines):
            m = _WS_ROW.match(lines[j].text)
            if not m:
                break
            cells = [c.strip(" ,") for c in _WS_SPLIT.split(m["rest"].strip()) if c.strip(" ,")]
            # "usr=21.72%, sys=44.18%," is one cell even if spaced once
            if not cells or not all(_is_numeric_cell(c) for c in cells):
                break
            label = m["label"].strip()
            kernel, cfg = _kernel_and_config(label)
            plain = [c for c in cells if not _CPU_CELL.search(c)]
            for c in cells:
                if _CPU_CELL.search(c):
                    found.extend(_cell_results(c, ("cpu", None, "%"), j, lines, config=label))
            for k, c in enumerate(plain):
                idx = len(names) - len(plain) + k
                name = names[idx] if 0 <= idx < len(names) else ""
                if name.split() and name.split()[-1].lower() in _PARAM_HEADERS:
                    continue  # a parameter of the run ("Trim size  4k", "QD  32"), not a measurement
                meaning = _header_meaning(name, None)
                got = _cell_results(c, meaning, j, lines, kernel=kernel, config=cfg if kernel else label)
                if listing and len(plain) == 1 and not _STATISTIC_LABEL.match(label):
                    got = [r for r in got if r.normalized_unit in _SPEED_UNITS]
                found.extend(got)
            j += 1
        out.extend(found)
    return out


# --------------------------------------------------------------------------
# summary lines under kernel headings (corpus/002)

_ARROW = re.compile(
    r"""
    ^\s{0,8}(?P<samples>(?:\d{1,12}(?:\.\d{1,12})?[ \t]{1,8}){1,64})->[ \t]{0,8}
    (?P<avg>\d{1,12}(?:\.\d{1,12})?)(?:[ \t]{1,8}(?P<sd>\d{1,12}(?:\.\d{1,12})?))?\s{0,8}$
    # "37.80 38.54 39.48 -> 38.606667 0.687475"
    """,
    re.VERBOSE,
)
_THREADS_HEADER = re.compile(
    r"""
    ^\s{0,8}(?P<p>[A-Za-z_]{1,20})\s{1,20}(?:Avg|Average|Mean)\s{1,20}(?:Stddev|StdDev|Std\.?Dev\.?|Stderr|SD)\s{0,8}$
    # "Threads Avg Stddev"
    """,
    re.VERBOSE | re.IGNORECASE,
)
_THREADS_ROW = re.compile(
    r"^\s{0,8}(?P<p>\d{1,8})\s{1,20}(?P<avg>" + _NUM + r")\s{1,20}(?P<sd>" + _NUM + r")\s{0,8}$"
)  # "16 39.950000 0.403072"
_STAT_ROW = re.compile(
    r"""
    ^\s{0,8}(?P<label>Average|Avg|Mean|Median|Pop\.Std\.Dev\.|Std\.?\s?Dev\.?|Stddev|Stderr):?
    (?P<vals>(?:[ \t]{1,20}"""
    + _NUM
    + r"""){1,12})\s{0,8}$
    # "Average: 34.6648 34.4475", "Pop.Std.Dev.: 0.55523 0.21981"
    """,
    re.VERBOSE | re.IGNORECASE,
)


#: in every line find_summary_lines reads, lowercased: the arrow of _ARROW, or the word _THREADS_HEADER's
#: average or a read _STAT_ROW's label spells.  Both patterns ignore case, where "i" also matches
#: "\u0130" and "\u0131", which lowercase to "i\u0307" and "\u0131" (no other letter here has a twin)
_SUMMARY_CUE = ("->", "avg", "average", "mean", "median", "medi\u0307an", "med\u0131an")


def _kernel_heading(lines: list[Line], start: int, back: int = 3) -> tuple[str, str | None] | None:
    """A kernel heading (``2.6.29: AVG STDERR``, ``2.6.32-rc5 low_latency = 0:``) just above."""
    seen = 0
    for j in range(start - 1, max(-1, start - 8), -1):
        t = lines[j].text.strip()
        if not t:
            continue
        seen += 1
        if len(t) <= 80:
            k = _kernel_at_start(t, 0)
            if k:
                norm, raw, end = k
                rest = t[end:].strip(" :")
                cfg = " ".join(x for x in (qualifier(raw), rest if "=" in rest else "") if x) or None
                return norm, cfg
        if seen >= back:
            break
    return None


def _summary_kind(lines: list[Line]) -> tuple[str | None, str, str]:
    """(benchmark, unit, metric) of a text's summary lines: tiobench's are MB/s throughputs.

    Asked only once a line is a summary (``_text_tool`` counts once per text).
    """
    tool = _text_tool(lines)
    return (tool, "MB/s", "throughput") if tool == "tiobench" else (tool, "", "value")


def find_summary_lines(lines: list[Line]) -> list[Result]:
    """Sample lines with ``->`` averages, ``Threads Avg Stddev`` tables, ``Average:`` rows."""
    out: list[Result] = []
    for i in word_lines(joined_text(lines).lower(), _SUMMARY_CUE):  # lower() keeps every newline
        t = lines[i].text
        m = _ARROW.match(t)
        if m:
            tool, unit, metric = _summary_kind(lines)
            kh = _kernel_heading(lines, i)
            samples = [float(x) for x in m["samples"].split()]
            out.append(
                _result(
                    metric,
                    float(m["avg"]),
                    unit,
                    i,
                    lines,
                    tool=tool,
                    kernel=kh[0] if kh else None,
                    config=kh[1] if kh else None,
                    direction=_context_direction(lines, i, 6),
                    stddev=float(m["sd"]) if m["sd"] else None,
                    samples=samples,
                )
            )
            continue
        m = _THREADS_HEADER.match(t)
        if m:
            tool, unit, metric = _summary_kind(lines)
            kh = _kernel_heading(lines, i, 1)
            j = i + 1
            while j < len(lines):
                rm = _THREADS_ROW.match(lines[j].text)
                if not rm:
                    break
                out.append(
                    _result(
                        metric,
                        float(rm["avg"]),
                        unit,
                        j,
                        lines,
                        tool=tool,
                        kernel=kh[0] if kh else None,
                        config="%s=%s" % (m["p"].lower(), rm["p"]),
                        stddev=float(rm["sd"]),
                    )
                )
                j += 1
            continue
        m = _STAT_ROW.match(t)
        if m and m["label"].lower() in ("average", "avg", "mean", "median"):
            tool, unit, metric = _summary_kind(lines)
            out.extend(_stat_rows(lines, i, m, metric, unit, tool))
    return out


def _stat_rows(
    lines: list[Line], i: int, m: re.Match, metric: str, unit: str, tool: str | None
) -> list[Result]:
    """``Average:`` values under a header line naming one kernel (or config) per column."""
    vals = [float(x) for x in m["vals"].split()]
    header = None
    for j in range(i - 1, max(-1, i - 4), -1):
        t = lines[j].text.strip()
        if not t or _SEPARATOR.match(t):
            continue
        header = t
        break
    if header is None:
        return []
    cols = header.split()
    if len(cols) != len(vals):
        return []
    sds: list[float | None] = [None] * len(vals)
    if i + 1 < len(lines):
        sm = _STAT_ROW.match(lines[i + 1].text)
        if sm and "dev" in sm["label"].lower():
            s = [float(x) for x in sm["vals"].split()]
            if len(s) == len(vals):
                sds = s
    out = []
    for col, v, sd in zip(cols, vals, sds):
        kernel, cfg = _kernel_and_config(col)
        out.append(
            _result(
                metric, v, unit, i, lines, tool=tool, kernel=kernel, config=cfg if kernel else col, stddev=sd
            )
        )
    return out


# --------------------------------------------------------------------------
# "on 6.8-rc7 : 3571"

_PAIR_TAIL = re.compile(
    r"""
    ^(?P<rest>[^:=\d]{0,30}?)(?:\s{0,8}[:=]|[ \t]-)\s{0,8}(?P<v>"""
    + _NUM
    + r"""[kKmM]?)\s{0,3}(?P<u>[KMGT]?i?B/s|MBps|IOPS|[um]?sec|[mun]s|%)?\s{0,8}$
    # " : 3571", " + revert : 3634", ": 236MiB/s", "-base:\t\t84.5", " + your patch - 26.94"
    """,
    re.VERBOSE,
)
#: a figure that is a release itself: "5.10 - 5.15" names a range of kernels, no run
_RELEASE_FIGURE = re.compile(r"v?[2-7]\.\d{1,2}(?:\.\d{1,3})?")


def find_kernel_pairs(lines: list[Line]) -> list[Result]:
    """Lines that are a kernel and one figure: ``on 6.8-rc7 : 3571`` (corpus/000)."""
    out: list[Result] = []
    for i in filled_lines(lines):
        t = lines[i].text
        if len(t) > 120 or ":" not in t and "=" not in t and " - " not in t or not _DIGIT.search(t):
            continue  # _PAIR_TAIL spells a sign and a figure (an Outlook header "From: A" holds no digit)
        k = _kernel_at_start(t.strip(), 4)
        if not k:
            continue
        norm, raw, end = k
        m = _PAIR_TAIL.match(t.strip()[end:])
        if not m or (_RELEASE_FIGURE.fullmatch(m["v"]) and ":" not in t and "=" not in t):
            continue
        unit = m["u"] or ""
        if unit == "IOPS" or (not unit and m["v"][-1] in "kKmM"):
            v, unit = parse_count(m["v"]), "IOPS"
        else:
            v = to_float(m["v"])
        if v is None:
            continue
        nv, nu = normalize(v, unit)
        metric = {"B/s": "bw", "IOPS": "iops", "us": "lat", "%": "util"}.get(nu or "", "value")
        if metric == "value":
            metric = _metric_named_above(lines, i) or metric
        # what the label says beside the release: its build ("6.1-base:"), a patch ("+ your patch")
        config = qualifier(raw) or m["rest"].strip(" \t-+(),;") or None
        out.append(_result(metric, v, unit, i, lines, kernel=norm, config=config))
    return out


# --------------------------------------------------------------------------
# "Before:  926385.54" / "revert: 72.5": runs labelled by their condition, figures with no unit

#: a line labelling one figure with no unit by its run's condition ("Base:\t\t52.5", "Before:
#: 926385.54", "With the series - 1450"): a colon, or a dash between blanks, after the label
_CONDITION_PAIR = re.compile(
    rf"^[ \t>*-]{{0,6}}(?P<label>{CONDITION_WORDS})(?:[ \t]{{0,8}}:|[ \t]-)[ \t]{{0,12}}(?P<v>{_NUM})[ \t]*$",
    re.IGNORECASE,
)
#: a metric's name alone on a line over the runs: "files_per_second", "stress-ng.copy-file.ops_per_sec"
_METRIC_NAME = re.compile(r"^[ \t]{0,16}(?P<m>[A-Za-z][\w.\-/]{2,60})[ \t]{0,4}$")
#: what the line leading into the runs says when they are a benchmark's: "re-ran the test:",
#: "results of some of the benchmarks:", "pgbench, tps:"
_RUNS_LEAD = re.compile(
    r"\b(?:results?|benchmarks?|tests?|runs?|scores?|numbers|performance|throughput|latency|tps|iops"
    r"|ops|bandwidth|measure\w{0,5})\b",
    re.IGNORECASE,
)
#: a note on which way the figures are better, right below them: "(lower is better)"
_BETTER_NOTE = re.compile(r"\b(?:lower|higher|less|more|smaller|bigger)[ \t]{1,3}is[ \t]{1,3}better\b", re.I)


def _metric_named_above(lines: list[Line], i: int) -> str | None:
    """The metric's name on the line right above a block of runs ending at or after ``i``."""
    j = i - 1
    while j >= 0 and (_CONDITION_PAIR.match(lines[j].text) or _kernel_at_start(lines[j].text.strip(), 4)):
        j -= 1
    if j < 0:
        return None
    m = _METRIC_NAME.match(lines[j].text)
    name = m["m"] if m else None
    # a name, not a word: a metric's name is written with "_", ".", "-" or "/" in it
    return name if name and any(c in name for c in "_.-/") else None


def find_condition_pairs(lines: list[Line]) -> list[Result]:
    """Two or more lines in a row, each a run's condition and one figure with no unit ("Base:
    52.5" over "Revert: 45.5"), where they are a benchmark's runs: under the metric's name,
    after a line saying they are results, or over a note on which way is better."""
    out: list[Result] = []
    # every such line ends with its figure's last digit: the pattern is tried on those lines only
    pairs = {
        i: m
        for i in filled_lines(lines)
        if lines[i].text.rstrip()[-1:].isdigit() and (m := _CONDITION_PAIR.match(lines[i].text))
    }
    n = len(lines)
    for i in sorted(pairs):
        if i - 1 in pairs:
            continue  # inside a block read from its first line
        j = i
        while j in pairs:
            j += 1
        block = [(k, pairs[k]) for k in range(i, j)]
        labels = {condition_label(m["label"]).lower() for _k, m in block}
        if len(block) < 2 or len(labels) < len(block):
            continue
        metric = _metric_named_above(lines, block[0][0])
        lead = any(_RUNS_LEAD.search(lines[k].text) for k in range(max(0, block[0][0] - 3), block[0][0]))
        note = any(_BETTER_NOTE.search(lines[k].text) for k in range(j, min(n, j + 3)))
        if not (metric or lead or note):
            continue
        for k, m in block:
            v = to_float(m["v"])
            if v is None:
                continue
            label = condition_label(m["label"])
            out.append(_result(metric or "value", v, "", k, lines, config=label))
    return out


# --------------------------------------------------------------------------
# iostat -x and dd

_IOSTAT_HEADER = re.compile(
    r"^\s{0,8}Device:?(?P<cols>(?:\s{1,40}[\w%/\-]{1,20}){3,40})\s{0,8}$"
)  # "Device  r/s  rMB/s ... %util"
_IOSTAT_CUE = ("Device",)  # in every _IOSTAT_HEADER match
_DD = re.compile(
    r"""
    (?P<bytes>\d{1,20})\ bytes\ (?:\([^)]{0,60}\)\ )?(?:copied|transferred),\ (?P<secs>"""
    + _NUM
    + r""")\ s(?:ecs?)?,\s
    (?P<rate>"""
    + _NUM
    + r""")\ ?(?P<unit>[kKMGT]?i?B/s)
    # "2147483648 bytes (2.1 GB, 2.0 GiB) copied, 0.721532 s, 3.0 GB/s"
    """,
    re.VERBOSE,
)
_DD_CUE = (" bytes ",)  # in every _DD match: "2147483648 bytes (2.1 GB, 2.0 GiB) copied"
_DD_CMD = re.compile(
    r"\bdd\s.{0,300}?\b(?P<k>if|of)=(?P<v>/dev/(?:zero|null|u?random))\b"
)  # "dd if=/dev/$DISK of=/dev/null"


def find_iostat(lines: list[Line]) -> list[Result]:
    """``iostat -x`` device rows: %util (config = device), and r/s, w/s, r/w MB/s."""
    out: list[Result] = []
    for i in cue_lines(lines, _IOSTAT_CUE):
        m = _IOSTAT_HEADER.match(lines[i].text)
        if not m:
            continue
        cols = m["cols"].split()
        for j in range(i + 1, min(len(lines), i + 200)):
            cells = lines[j].text.split()
            if len(cells) != len(cols) + 1 or to_float(cells[0]) is not None:
                break
            vals = [to_float(c) for c in cells[1:]]
            if any(v is None for v in vals):
                break
            row = dict(zip(cols, vals))
            rs, ws = row.get("r/s", 0.0), row.get("w/s", 0.0)
            direction = "read" if rs and not ws else "write" if ws and not rs else None
            if "%util" in row:
                out.append(
                    _result(
                        "util",
                        row["%util"],
                        "%",
                        j,
                        lines,
                        tool="iostat",
                        config=cells[0],
                        direction=direction,
                    )
                )
            for col, unit, d in (
                ("rMB/s", "MB/s", "read"),
                ("wMB/s", "MB/s", "write"),
                ("rkB/s", "kB/s", "read"),
                ("wkB/s", "kB/s", "write"),
            ):
                if row.get(col):
                    out.append(
                        _result("bw", row[col], unit, j, lines, tool="iostat", config=cells[0], direction=d)
                    )
    return out


def find_dd(lines: list[Line]) -> list[Result]:
    """``dd`` summaries; direction from a ``dd`` command a few lines above (of=/dev/null: read)."""
    out: list[Result] = []
    for i in cue_lines(lines, _DD_CUE):
        m = _DD.search(lines[i].text)
        if not m:
            continue
        direction = None
        for j in range(i, max(-1, i - 6), -1):
            cm = _DD_CMD.search(lines[j].text)
            if cm:
                direction = (
                    "read"
                    if cm["k"] == "of" and cm["v"] == "/dev/null"
                    else ("write" if cm["k"] == "if" else None)
                )
                break
        out.append(
            _result("throughput", float(m["rate"]), m["unit"], i, lines, tool="dd", direction=direction)
        )
        # and how long it took ("copied, 2.72458 s"): the same run measured as a time
        out.append(_result("elapsed", float(m["secs"]), "s", i, lines, tool="dd", direction=direction))
    return out


# --------------------------------------------------------------------------
# rsync's and pgbench's summaries

#: a count as rsync prints it: grouped by commas ("284,848,197"), or with -h a suffix ("1.05G")
_RSYNC_COUNT = r"\d{1,3}(?:,\d{3}){0,6}(?:\.\d{1,3})?[KMGT]?"
#: rsync's summary: "sent 284,848,197 bytes  received 430,683 bytes  38,037,184.00 bytes/sec"
#: (linux-raid, 2023-10), "sent 1.05G bytes  received 35 bytes  299.67M bytes/sec" (ceph-devel, 2020)
_RSYNC = re.compile(
    rf"^\s{{0,8}}sent[ ]{_RSYNC_COUNT}[ ]bytes\s{{1,4}}received[ ]{_RSYNC_COUNT}[ ]bytes\s{{1,4}}"
    r"(?P<rate>\d{1,3}(?:,\d{3}){0,6}(?:\.\d{1,3})?)(?P<suffix>[KMGT]?)[ ]bytes/sec\s{0,8}$"
)
#: pgbench's transactions per second, once or twice a run: "tps = 5562.649168 (excluding
#: connections establishing)" (dm-devel, 2020-09), "tps = 1234.5 (without initial connection time)"
_PGBENCH_TPS = re.compile(
    rf"^\s{{0,8}}tps[ ]=[ ](?P<v>{_NUM})[ ]\((?P<how>including|excluding|without)[ ][a-z ]{{1,40}}\)\s{{0,8}}$"
)


def find_tool_summaries(lines: list[Line]) -> list[Result]:
    """rsync's rate ("38,037,184.00 bytes/sec", or "299.67M bytes/sec": the unit its suffix
    says) and pgbench's tps (of a run printing it twice, the one without connecting)."""
    out: list[Result] = []
    for i in cue_lines(lines, ("bytes/sec", "tps = ")):  # one scan of the text for both
        m = _RSYNC.match(lines[i].text)
        if m:
            unit = f"{m['suffix']}B/s" if m["suffix"] else "bytes/sec"
            out.append(_result("bw", float(m["rate"].replace(",", "")), unit, i, lines, tool="rsync"))
            continue
        m = _PGBENCH_TPS.match(lines[i].text)
        if not m:
            continue
        nxt = _PGBENCH_TPS.match(lines[i + 1].text) if i + 1 < len(lines) else None
        if m["how"] == "including" and nxt is not None and nxt["how"] != "including":
            continue  # the next line is the same run's figure without the connecting
        out.append(_result("tps", float(m["v"]), "tps", i, lines, tool="pgbench"))
    return out


# --------------------------------------------------------------------------
# fio's t/io_uring: a line a second, "IOPS=5806400, BW=2835MiB/s, IOS/call=32/32, inflight=(77 32)"

_T_IO_URING = re.compile(
    r"^\s{0,8}IOPS=(?P<iops>\d{1,12}(?:\.\d{1,3})?)(?P<k>[KM])?,\s{1,3}BW=(?P<bw>"
    + _NUM
    + r")(?P<unit>[KMG]i?B/s),\s{1,3}IOS/call="
)
_T_IO_URING_CUE = ("IOS/call=",)  # in every _T_IO_URING match


def find_t_io_uring(lines: list[Line]) -> list[Result]:
    """fio's ``t/io_uring`` runs: one line a second; a run (its lines in a row) is measured by its
    best second, IOPS and bandwidth, as its users quote its peak."""
    out: list[Result] = []
    run: list[tuple[int, re.Match]] = []

    def close() -> None:
        if run:
            _, m = max(run, key=lambda x: _t_iops(x[1]))
            span = (run[0][0], run[-1][0])
            out.append(_result("iops", _t_iops(m), "IOPS", span, lines, tool="t/io_uring"))
            out.append(_result("bw", float(m["bw"]), m["unit"], span, lines, tool="t/io_uring"))
            run.clear()

    last = -2
    for i in cue_lines(lines, _T_IO_URING_CUE):
        m = _T_IO_URING.match(lines[i].text)
        if not m:
            continue
        if i != last + 1:
            close()
        run.append((i, m))
        last = i
    close()
    return out


def _t_iops(m: re.Match) -> float:
    return float(m["iops"]) * {"K": 1e3, "M": 1e6}.get(m["k"] or "", 1.0)


# --------------------------------------------------------------------------
# mmtests compare

_MMTESTS_ROW = re.compile(
    r"""
    ^\s{0,8}(?P<stat>Amean|Hmean|Gmean|BAmean-\d{1,3})\s{1,12}(?P<param>[\w\-.]{1,40})
    (?P<cells>(?:\s{1,30}"""
    + _NUM
    + r"""\s{0,4}[(*]\s{0,4}[-+]?\d{1,8}(?:\.\d{1,4})?%\s{0,4}[)*]){1,12})\s{0,8}$
    # "Amean  1  123.45 (  0.00%)  130.00 *-5.31%*"
    """,
    re.VERBOSE,
)
_MMTESTS_WORD_ROW = re.compile(r"^[A-Z][a-z]{1,10}\s")  # "Stddev  1 ...": a row, not the header of kernels
_MMTESTS_CELL = re.compile(
    r"(?P<v>" + _NUM + r")\s{0,4}(?P<mark>[(*])\s{0,4}(?P<pct>[-+]?\d{1,8}(?:\.\d{1,4})?)%\s{0,4}[)*]"
)


def mmtests_cells(row: str) -> list[tuple[float, float, bool]]:
    """(value, change, significant) of each cell of an mmtests compare row, left to right.

    mmtests prints each column's change against the first column with the sign of a gain
    (a lower time and a higher rate are both positive), and stars the changes it finds
    significant: ``135527.05 * -12.60%*`` is a significant drop of 12.60 %."""
    return [(float(c["v"]), float(c["pct"]), c["mark"] == "*") for c in _MMTESTS_CELL.finditer(row)]


def find_mmtests(lines: list[Line]) -> list[Result]:
    """mmtests ``compare-kernels`` rows (Amean/Hmean/Gmean), columns named by the header above."""
    out: list[Result] = []
    if "mean" not in joined_text(lines):
        return out  # a row spells "mean": without one, the headers read are never used
    header: list[str] = []
    for i in filled_lines(lines):  # an empty line leaves the header as it is
        ln = lines[i]
        m = _MMTESTS_ROW.match(ln.text) if "mean" in ln.text else None  # Amean, Hmean, Gmean, BAmean-N
        if not m:
            t = ln.text.strip()
            if t and len(t) < 400 and not _MMTESTS_WORD_ROW.match(t):
                header = t.split()
            continue
        vals = [float(c["v"]) for c in _MMTESTS_CELL.finditer(m["cells"])]
        cols = header[-len(vals) :] if len(header) >= len(vals) else [None] * len(vals)
        for col, v in zip(cols, vals):
            kernel, cfg = _kernel_and_config(col) if col else (None, None)
            out.append(
                _result(
                    m["stat"].lower(),
                    v,
                    "",
                    i,
                    lines,
                    tool="mmtests",
                    kernel=kernel,
                    config=" ".join(x for x in (cfg if kernel else col, m["param"]) if x),
                )
            )
    return out


# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# metric rows under a header of conditions (fsperf's "metric  baseline  current  stdev  diff")

#: a header whose first name heads the rows' labels and whose others are conditions or statistics:
#: "  metric     baseline   current     stdev           diff"
_ROW_HEAD = re.compile(
    r"^[ \t]{0,12}(?i:metric|metrics|test|benchmark|workload|operation)"
    r"(?P<names>(?:[ \t]{2,40}[A-Za-z0-9][\w.+-]{0,30}){2,8})[ \t]*$"
)
#: a metric row: its name, then figures (the last may be a percentage)
_METRIC_ROW = re.compile(
    r"^[ \t]{0,12}(?P<label>[A-Za-z][\w.-]{0,40})(?P<cells>(?:[ \t]{1,40}" + _NUM + r"%?){2,8})[ \t]*$"
)
#: columns of a statistic of the conditions, not a condition
_STAT_COLUMN = re.compile(
    r"(?i:std\.?dev|stddev|stdev|sd|stderr|diff|delta|change|%change|%diff|pct|p-?value|signif\w*|ratio)$"
)
#: a condition column named by a release alone ("6.1", "v6.2-rc3"): in such a header, a kernel
_VERSION_COLUMN = re.compile(r"^v?[2-9]\.\d{1,2}(?:\.\d{1,3})?(?:-rc\d{1,2})?$")
#: a metric's unit from its name's parts: fsperf's "write_clat_ns_p99", "write_bw_bytes", "write_iops"
_NAME_UNITS = (("ns", "ns"), ("us", "usec"), ("usec", "usec"), ("ms", "msec"), ("iops", "IOPS"))


def _unit_from_name(name: str) -> str:
    parts = name.lower().split("_")
    if "bw" in parts and "bytes" in parts:
        return "B/s"
    for part, unit in _NAME_UNITS:
        if part in parts:
            return unit
    return ""


def _rows_under(lines: list[Line], h: int, row_re: re.Pattern[str]) -> Iterator[tuple[int, re.Match[str]]]:
    """(line number, match) of each row ``row_re`` matches under the header on line ``h`` (a rule
    line between skipped), up to the first line that is no row."""
    j = h + 1
    if j < len(lines) and _RULE.match(lines[j].text):
        j += 1
    while j < len(lines):
        row = row_re.match(lines[j].text)
        if not row:
            return
        yield j, row
        j += 1


def find_metric_rows(lines: list[Line]) -> list[Result]:
    """Rows of metrics under a header naming the conditions they were measured under (fsperf)::

             metric         baseline   current      stdev           diff
        ======================================================================
        write_bw_bytes      1.73e+08   1.74e+08   5370366.50    0.69%
        write_clat_ns_p99   84684.80   90316.80      6607.94    6.65%

    Each figure of a condition column becomes a result of its row's metric, the column's name its
    ``config`` (its ``kernel`` too where the name is a kernel); statistic columns (stdev, diff) and
    rows of zeros only are left out.  The unit is the metric name's where it holds one (ns, IOPS)."""
    out: list[Result] = []
    for h in cue_lines(lines, ("metric", "test", "benchmark", "workload", "operation")):
        m = _ROW_HEAD.match(lines[h].text)
        if not m:
            continue
        names = m["names"].split()
        for j, row in _rows_under(lines, h, _METRIC_ROW):
            cells = row["cells"].split()
            if len(cells) == len(names):
                label = row["label"]
                unit = _unit_from_name(label)
                kept = [
                    (name, to_float(cell))
                    for name, cell in zip(names, cells)
                    if not cell.endswith("%") and not _STAT_COLUMN.match(name)
                ]
                if any(v for _n, v in kept):
                    for name, value in kept:
                        if value is None:
                            continue
                        kernel = _kernel_and_config(name)[0] or (
                            normalize_version(name) if _VERSION_COLUMN.match(name) else None
                        )
                        out.append(_result(label, value, unit, j, lines, kernel=kernel, config=name))
    return out


#: a header of kernels as columns over a blank corner ("                        5.4.95        5.10.24",
#: Paul Menzel's raid6 report, linux-raid 2021-03): two to six releases, nothing before them
_KERNEL_COLUMNS = re.compile(
    r"^[ \t]{4,80}(?P<names>v?\d\.\d{1,2}[\w.+-]{0,40}(?:[ \t]{2,40}v?\d\.\d{1,2}[\w.+-]{0,40}){1,5})[ \t]*$"
)
#: a row under it: what was measured ("raid6: avx2x4 gen()", "read IOPS", "BW (MiB/s)"), then its
#: figures, apart by two spaces or a tab
_MEASURE_ROW = re.compile(
    r"^[ \t]{0,12}(?P<label>[A-Za-z][^\t]{0,60}?)(?:\t|[ ]{2})[ \t]{0,40}(?P<cells>[-+~]?\d.{0,300})$"
)
_CELL_SPLIT = re.compile(r"\t[ \t]{0,40}|[ ]{2,40}")


_ROW_DIRECTION = re.compile(
    r"\b(?:(?P<rand>rand(?:om)?[ _-]?)|seq(?:uential)?[ _-]?)?(?P<dir>read|write)s?\b", re.I
)


def _row_direction(label: str) -> str | None:
    """The I/O direction a row's name says: "read IOPS" read, "random write bw" randwrite."""
    m = _ROW_DIRECTION.search(label)
    if m is None:
        return None
    return ("rand" if m["rand"] else "") + m["dir"].lower()


def find_kernel_columns(lines: list[Line]) -> list[Result]:
    """Rows of measures under a header of kernels, its first cell blank::

                                5.4.95        5.10.24
        ----------------------------------------------
        raid6: avx2x4 gen()   18429 MB/s     6155 MB/s

    Each figure is its row's measure on its column's kernel (``kernel`` and ``config``); the row's
    name is the metric where it names no measure the headers know ("read IOPS" is iops, "BW
    (MiB/s)" bw in MiB/s).  A row counts only with a figure under every kernel."""
    out: list[Result] = []
    for h in filled_lines(lines):
        text = lines[h].text
        if text[0] not in " \t":
            continue
        m = _KERNEL_COLUMNS.match(text)
        if not m:
            continue
        names = m["names"].split()
        kernels = [normalize_version(n) for n in names]
        if not all(k and plausible_release(k) for k in kernels):
            continue  # not releases: block sizes, factors ("0.5  1.0  2.0"), a clock's "3.10GHz"
        for j, row in _rows_under(lines, h, _MEASURE_ROW):
            cells = [c for c in _CELL_SPLIT.split(row["cells"].strip()) if c]
            label = " ".join(row["label"].split())
            metric, direction, unit = _header_meaning(label, None)
            if metric not in _MEASURES:
                metric = label
            elif direction is None:  # "read IOPS" and "write IOPS" are two measures
                direction = _row_direction(label)
            quantities = [parse_quantity(c, "IOPS" if metric == "iops" else unit) for c in cells]
            if len(cells) != len(names) or not all(quantities):
                break
            for name, kernel, q in zip(names, kernels, quantities):
                assert q is not None
                out.append(
                    _result(
                        metric, q[0], q[1] or unit, j, lines, direction=direction, kernel=kernel, config=name
                    )
                )
    return out


def find_tables(text: str, lines: list[Line] | None = None) -> list[Result]:
    """Every figure in tables and per-kernel summary lines in ``text``.  Never raises.

    ``lines`` is ``prepare_lines(text)`` when the caller has it already.
    """
    try:
        if lines is None:
            lines = prepare_lines(text)
    except Exception:
        log.exception("find_tables: cannot split input")
        return []
    out: list[Result] = []
    for finder in (
        find_lkp_tables,
        find_pipe_tables,
        find_whitespace_tables,
        find_summary_lines,
        find_kernel_pairs,
        find_condition_pairs,
        find_iostat,
        find_dd,
        find_tool_summaries,
        find_t_io_uring,
        find_mmtests,
        find_metric_rows,
        find_kernel_columns,
    ):
        try:
            out.extend(finder(lines))
        except Exception:
            log.exception("find_tables: %s failed", finder.__name__)
    return out
