"""Hold a user's fio JSON output against the numbers a report gives per kernel.

``load_fio_json`` tolerates what fio writes around its JSON (``fio: ...``
warnings, "note: both iodepth >= 1 and synchronous I/O engine are selected",
progress lines) and takes the first JSON object with a ``jobs`` list.
``compare`` matches the user's jobs to the report's results by direction
(``rw=write`` to WRITE, ``randread`` to randread) and metric (bandwidth,
IOPS, latency, utilization), and says per metric whether the user's number
sits closer to the baseline or the regressed kernel.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from lkmlkb.errors import ReproError
from lkmlkb.model import Report, Result

log = logging.getLogger(__name__)

#: bytes per second in one unit as written in mail and fio output
RATE_UNITS = {
    "b/s": 1,
    "kb/s": 1e3,
    "mb/s": 1e6,
    "gb/s": 1e9,
    "kib/s": 1024,
    "mib/s": 1024**2,
    "gib/s": 1024**3,
    "kbps": 1e3,
    "mbps": 1e6,
    "mbyte/s": 1e6,
    "mbytes/s": 1e6,
    "b": 1,
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "kib": 1024,
    "mib": 1024**2,
}
#: microseconds in one unit
TIME_UNITS = {
    "nsec": 1e-3,
    "ns": 1e-3,
    "usec": 1,
    "us": 1,
    "µs": 1,
    "msec": 1e3,
    "ms": 1e3,
    "sec": 1e6,
    "s": 1e6,
}
IOPS_UNITS = {"iops": 1, "kiops": 1e3, "k": 1e3, "": 1}
BW_METRICS = frozenset({"bw", "throughput", "bandwidth"})
LAT_METRICS = {"lat": "lat_ns", "clat": "clat_ns", "slat": "slat_ns"}
READ_DIRS = {
    "read": ("read",),
    "randread": ("read",),
    "write": ("write",),
    "randwrite": ("write",),
    "trim": ("trim",),
    "randtrim": ("trim",),
    "mixed": ("read", "write"),
}
#: fio rw values by the data direction they move
RW_OF_DIRECTION = {
    "read": {"read"},
    "randread": {"randread"},
    "write": {"write"},
    "randwrite": {"randwrite"},
    "trim": {"trim"},
    "randtrim": {"randtrim"},
    "mixed": {"rw", "readwrite", "randrw"},
}
SIDES = {
    "read": ("read", "rw", "readwrite", "randrw", "randread"),
    "write": ("write", "randwrite", "rw", "readwrite", "randrw", "trimwrite"),
    "trim": ("trim", "randtrim", "trimwrite"),
}

JSON_START_RE = re.compile(
    r"""
    ^\{\s*$                  # fio's pretty JSON opens with "{" alone on a line
  | ^\{\s*"fio\ version"     # or on one line: {"fio version": "fio-3.33", ...
""",
    re.VERBOSE | re.MULTILINE,
)


@dataclass
class ComparisonRow:
    """One reported number beside the user's matching number."""

    metric: str
    direction: str | None
    kernel: str | None
    label: str | None
    config: str | None
    reported: float | None  # normalized (B/s, IOPS, us, %)
    reported_text: str
    unit: str  # normalized unit
    yours: float | None
    ratio: float | None  # yours / reported
    #: "closer to baseline" | "closer to regressed" | None
    verdict: str | None = None
    jobs: list[str] = field(default_factory=list)
    #: "exact" (same rw), "same side" (randread job for a reported read), "any" (no direction reported)
    match: str | None = None


def load_fio_json(path_or_text: str | Path) -> dict:
    """fio's JSON output from a file or text, with fio's chatter around it ignored.

    Raises :class:`ReproError` naming the input when no fio JSON is in it.
    """
    source = "fio output"
    text = str(path_or_text)
    if isinstance(path_or_text, Path) or _is_file(text):
        source = str(path_or_text)
        try:
            text = Path(path_or_text).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ReproError(source, f"cannot read: {exc}") from exc
    decoder = json.JSONDecoder()
    for m in JSON_START_RE.finditer(text):
        try:
            obj, _end = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("jobs"), list):
            return obj
    raise ReproError(source, "no fio JSON output (run fio with --output-format=json)")


def report_from_expected(path_or_data: str | Path | dict) -> Report:
    """The Report a bundle's ``expected.json`` describes (its results per kernel and claim),
    so ``lkmlkb compare expected.json result.json`` needs no knowledge base."""
    if isinstance(path_or_data, dict):
        data = path_or_data
    else:
        try:
            data = json.loads(Path(path_or_data).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ReproError(str(path_or_data), f"not a bundle's expected.json: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("results_by_kernel"), dict):
        raise ReproError(str(path_or_data)[:200], "not a bundle's expected.json (no results_by_kernel)")
    results = []
    for kernel, rows in data["results_by_kernel"].items():
        for row in rows if isinstance(rows, list) else []:
            try:
                results.append(
                    Result(
                        metric=str(row["metric"]),
                        value=float(row["value"]),
                        unit=str(row.get("unit") or ""),
                        kernel=None if kernel == "unknown" else kernel,
                        label=row.get("label"),
                        config=row.get("config"),
                        tool=row.get("tool"),
                        direction=row.get("direction"),
                        normalized_value=row.get("normalized_value"),
                        normalized_unit=row.get("normalized_unit"),
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                log.info("expected.json row skipped (%s): %r", exc, row)
    claim = data.get("claim") or {}
    return Report(
        thread_id=str(data.get("thread_id") or ""),
        title=str(data.get("title") or ""),
        results=results,
        regression_pct=claim.get("regression_pct"),
        stated_pct=claim.get("stated_pct"),
        kind=claim.get("kind"),
        fio_version=data.get("fio_version"),
    )


def _is_file(text: str) -> bool:
    """True when ``text`` is a short single line naming an existing file."""
    if "\n" in text or "\0" in text or len(text) > 4096:
        return False
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def normalize_reported(r: Result) -> tuple[float | None, str]:
    """The reported value in B/s, IOPS, microseconds or percent, and that unit."""
    if r.normalized_value is not None and r.normalized_unit:
        return r.normalized_value, r.normalized_unit
    unit = (r.unit or "").strip().lower().replace(" ", "")
    metric = (r.metric or "").lower()
    if metric in BW_METRICS or unit in RATE_UNITS:
        mult = RATE_UNITS.get(unit)
        return (r.value * mult if mult else None), "B/s"
    if metric == "iops" or unit in IOPS_UNITS:
        return r.value * IOPS_UNITS.get(unit, 1), "IOPS"
    if metric in LAT_METRICS or unit in TIME_UNITS:
        mult = TIME_UNITS.get(unit)
        return (r.value * mult if mult else None), "us"
    if unit == "%":
        return r.value, "%"
    return None, unit


def _obj(value) -> dict:
    """``value`` when it is a JSON object, else an empty one (fio JSON edited or cut short)."""
    return value if isinstance(value, dict) else {}


def _num(value) -> float | None:
    """``value`` when it is a finite JSON number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _job_rw(job: dict, global_opts: dict) -> str:
    opts = _obj(job.get("job options"))
    rw = (
        opts.get("rw")
        or opts.get("readwrite")
        or global_opts.get("rw")
        or global_opts.get("readwrite")
        or "read"
    )
    return str(rw).split(":", 1)[0].lower()


def _matching_jobs(fio: dict, direction: str | None) -> tuple[list[dict], str, str]:
    """The user's jobs doing ``direction``, the side (read/write/trim) to read, and how they matched."""
    jobs = [j for j in fio.get("jobs") or [] if isinstance(j, dict)]
    glob = _obj(fio.get("global options"))
    d = (direction or "").lower()
    side = READ_DIRS.get(d, ("read",))[0] if d else None
    exact = [j for j in jobs if _job_rw(j, glob) in RW_OF_DIRECTION.get(d, set())]
    if exact:
        return exact, side or "read", "exact"
    if side:
        loose = [j for j in jobs if _job_rw(j, glob) in SIDES.get(side, ())]
        return loose, side, "same side"
    # no direction reported: the side with the most I/O
    totals = {s: sum(_io_bytes(j, s) for j in jobs) for s in ("read", "write", "trim")}
    best = max(totals, key=lambda s: totals[s])
    return [j for j in jobs if _io_bytes(j, best) > 0], best, "any"


def _io_bytes(job: dict, side: str) -> float:
    return _num(_obj(job.get(side)).get("io_bytes")) or 0.0


def user_value(fio: dict, metric: str, direction: str | None) -> tuple[float | None, list[str], str | None]:
    """The user's number for ``metric`` in ``direction`` (summed over jobs for rates, mean for
    latency), the jobs it came from, and how they matched."""
    jobs, side, how = _matching_jobs(fio, direction)
    if not jobs:
        return None, [], None
    value, names = _side_value(fio, jobs, side, metric)
    return value, names, how


def _side_value(fio: dict, jobs: list[dict], side: str, metric: str) -> tuple[float | None, list[str]]:
    names = [str(j.get("jobname", "")) for j in jobs]
    m = (metric or "").lower()
    sides = [_obj(j.get(side)) for j in jobs]
    if m in BW_METRICS:
        return sum(_bw_bytes(s) for s in sides), names
    if m == "iops":
        return sum(_num(s.get("iops")) or 0.0 for s in sides), names
    if m in LAT_METRICS:
        means = [_num(_obj(s.get(LAT_METRICS[m])).get("mean")) for s in sides]
        vals = [v / 1000.0 for v in means if v is not None]
        return (sum(vals) / len(vals) if vals else None), names
    if m == "util":
        disks = fio.get("disk_util")
        utils = (
            [u for d in disks if (u := _num(_obj(d).get("util"))) is not None]
            if isinstance(disks, list)
            else []
        )
        return (max(utils) if utils else None), names
    return None, names


def _bw_bytes(side: dict) -> float:
    """Bytes/s of one side of a job: ``bw_bytes``, else ``bw`` (KiB/s)."""
    exact = _num(side.get("bw_bytes"))
    return exact if exact is not None else (_num(side.get("bw")) or 0.0) * 1024


def compare(report: Report, fio_json: dict) -> list[ComparisonRow]:
    """One row per reported number with the user's matching number and the ratio.

    Rows of one metric and direction get a verdict when the report labels a
    baseline and a regressed value: whichever the user's number is nearer to
    (on a log scale, so 2x faster and 2x slower are equally far).
    """
    rows: list[ComparisonRow] = []
    for r in report.results or []:
        reported, unit = normalize_reported(r)
        yours, names, how = user_value(fio_json, r.metric, r.direction)
        ratio = yours / reported if yours is not None and reported else None
        rows.append(
            ComparisonRow(
                metric=r.metric,
                direction=r.direction,
                kernel=r.kernel,
                label=r.label,
                config=r.config,
                reported=reported,
                reported_text=f"{r.value:g} {r.unit}",
                unit=unit,
                yours=yours,
                ratio=ratio,
                jobs=names,
                match=how,
            )
        )
    _add_verdicts(rows)
    return rows


def _add_verdicts(rows: list[ComparisonRow]) -> None:
    groups: dict[tuple, list[ComparisonRow]] = {}
    for row in rows:
        groups.setdefault((row.metric, row.direction), []).append(row)
    for group in groups.values():
        base = [r.reported for r in group if r.label == "baseline" and r.reported]
        bad = [r.reported for r in group if r.label == "regressed" and r.reported]
        yours = next((r.yours for r in group if r.yours), None)
        if not (base and bad and yours):
            continue
        d_base = abs(math.log(yours / base[0]))
        d_bad = abs(math.log(yours / bad[0]))
        verdict = "closer to baseline" if d_base <= d_bad else "closer to regressed"
        for r in group:
            r.verdict = verdict


def _human(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "B/s":
        return f"{value / 1024**2:.1f} MiB/s"
    if unit == "us":
        return f"{value:.1f} us"
    return f"{value:.0f} {unit}".strip()


def format_comparison(rows: list[ComparisonRow]) -> str:
    """A plain-text table: metric, kernel, label, reported, yours, ratio, verdict."""
    if not rows:
        return "no reported numbers to compare\n"
    header = ("metric", "direction", "kernel", "label", "reported", "yours", "ratio", "verdict", "matched")
    table = [header]
    for r in rows:
        table.append(
            (
                r.metric,
                r.direction or "-",
                r.kernel or "-",
                r.label or r.config or "-",
                f"{r.reported_text} ({_human(r.reported, r.unit)})"
                if r.reported is not None
                else r.reported_text,
                _human(r.yours, r.unit),
                f"{r.ratio:.2f}" if r.ratio is not None else "-",
                r.verdict or "",
                "" if r.match in ("exact", None) else f"{r.match}: {','.join(r.jobs)[:40]}",
            )
        )
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table]
    return "\n".join(lines) + "\n"
