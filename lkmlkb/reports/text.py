"""Reports as a person reads them in a terminal (``extract --format text``, ``show``)."""

from __future__ import annotations

from lkmlkb.model import Report


def _fmt_value(v: float) -> str:
    return f"{v:g}"


def _one_line(text: str, limit: int = 100) -> str:
    """Evidence on one line of the terminal: whitespace runs folded, cut at ``limit``."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def render_report(r: Report, report_id: str | None = None) -> str:
    out: list[str] = []
    head = r.title or r.thread_id
    out.append(head)
    out.append("=" * min(len(head), 100))
    kind = "regression report" if r.is_regression_report else (r.kind or "no regression reported")
    out.append(f"{kind} · status: {r.status}" + (f" · id: {report_id}" if report_id else ""))
    if r.first_date:
        out.append(
            f"dates: {r.first_date[:10]} .. {(r.last_date or r.first_date)[:10]}"
            f" · {len(r.message_ids)} message(s)"
        )
    if r.people:
        out.append("people: " + ", ".join(r.people[:8]))
    if r.regression_pct is not None or r.computed_pct is not None:
        mag = []
        if r.stated_pct is not None:
            mag.append(f"stated {r.stated_pct:g}%")
        if r.computed_pct is not None:
            mag.append(f"computed {r.computed_pct:g}%")
        out.append("magnitude: " + ", ".join(mag) + ("  (they disagree)" if r.pct_disagrees else ""))
    if r.kernel_versions:
        ks = []
        for k in r.kernel_versions:
            ks.append(k.version + (f" ({k.role})" if k.role else ""))
        out.append("kernels: " + ", ".join(ks))
    if r.reasons:
        out.append("why:")
        for x in r.reasons:
            where = "subject" if x.line < 0 else f"line {x.line + 1}"
            out.append(f"  {x.rule}: {x.verdict} <{x.message_id}> {where}: {_one_line(x.text)}")
    if r.commits:
        out.append("commits:")
        for c in r.commits:
            subj = f' ("{c.subject}")' if c.subject else ""
            why = f"  [{c.form}" + (f', "{_one_line(c.cue, 40)}"' if c.cue else "") + "]"
            out.append(f"  {c.role:<9} {c.sha}{subj}{why}")
    if r.tools:
        out.append("tools: " + ", ".join(r.tools) + (f" ({r.fio_version})" if r.fio_version else ""))
    if r.fio_jobs:
        out.append("fio jobs:")
        for j in r.fio_jobs:
            opts = " ".join(f"{k}={v}" if v != "" else k for k, v in j.options.items())
            out.append(f"  [{j.name or 'job'}] ({j.form}) {opts}")
    if r.results:
        out.append("results:")
        for x in r.results:
            who = x.kernel or x.config or "-"
            label = f" [{x.label}]" if x.label else ""
            d = f" {x.direction}" if x.direction else ""
            out.append(f"  {who:<22} {x.metric}{d} = {_fmt_value(x.value)} {x.unit}{label}")
    if r.setup:
        out.append("setup: " + "; ".join(f"{s.key}={s.value}" for s in r.setup[:20]))
    return "\n".join(out) + "\n"
