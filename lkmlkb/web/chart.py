"""The good-vs-bad chart of a report page: results grouped per metric, drawn as inline SVG."""

from __future__ import annotations

import html
import re
from collections import OrderedDict

BAR_COLORS = {"baseline": "#2e7d32", "regressed": "#c62828", "fixed": "#1565c0"}
OTHER_COLOR = "#757575"


#: metrics drawn first, in this order; the rest after them, percentiles and per-sync figures never
CHART_METRICS = ("bw", "throughput", "iops", "lat", "clat", "slat", "util")
CHART_SKIP_RE = re.compile(
    r"""
    _p\d        # fio latency percentiles ("clat_p99.9", "sync_p50"): dozens per fio run
  | _mean$      # "bw_mean", "iops_mean": per-job averages beside the group totals
  | ^sync       # fio's fsync/fdatasync latency block
  | ^cpu        # "cpu_usr", "cpu_sys"
""",
    re.VERBOSE,
)


def chart_groups(results: list[dict], max_groups: int = 4, max_bars: int = 8) -> list[dict]:
    """Results grouped per (metric, direction, unit) for the good-vs-bad chart.

    Only labelled results (baseline / regressed / fixed) are drawn when there
    are any; one bar per (kernel, label, config), repeated measurements
    averaged.  Only groups that compare two or more bars are drawn, headline
    metrics (bandwidth, IOPS, latency) first.
    """
    labelled = [r for r in results if r.get("label")]
    pool = labelled or results
    groups: OrderedDict = OrderedDict()
    for r in pool:
        metric = r.get("metric") or ""
        if r.get("value") is None or CHART_SKIP_RE.search(metric):
            continue
        key = (metric, r.get("direction") or "", r.get("unit") or "")
        bars = groups.setdefault(key, OrderedDict())
        bar_key = (r.get("kernel") or "?", r.get("label") or "", r.get("config") or "")
        bars.setdefault(bar_key, []).append(float(r["value"]))
    rank = {m: i for i, m in enumerate(CHART_METRICS)}
    ordered = sorted(
        (k for k in groups if len(groups[k]) >= 2), key=lambda k: rank.get(k[0], len(CHART_METRICS))
    )
    out = []
    for metric, direction, unit in ordered[:max_groups]:
        bars = groups[(metric, direction, unit)]
        items = [
            {"kernel": k, "label": lab, "config": cfg, "value": sum(v) / len(v), "n": len(v)}
            for (k, lab, cfg), v in list(bars.items())[:max_bars]
        ]
        out.append({"metric": metric, "direction": direction, "unit": unit, "bars": items})
    return out


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.3g}"


def chart_svg(group: dict, width: int = 560) -> str:
    """A small horizontal bar chart (inline SVG, no script) of one metric across kernels."""
    bars = group["bars"]
    top = max((b["value"] for b in bars), default=0) or 1
    row_h, label_w, pad = 22, 210, 4
    plot_w = width - label_w - 90
    height = row_h * len(bars) + pad * 2
    title = " ".join(x for x in (group["direction"], group["metric"]) if x) + (
        f" ({group['unit']})" if group["unit"] else ""
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="lkmlkb-chart" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}"><title>{html.escape(title)}</title>'
    ]
    for i, b in enumerate(bars):
        y = pad + i * row_h
        w = max(1, round(plot_w * max(b["value"], 0) / top))
        color = BAR_COLORS.get(b["label"], OTHER_COLOR)
        label = (
            b["kernel"]
            + (f" [{b['config']}]" if b["config"] else "")
            + (f" ({b['label']})" if b["label"] else "")
        )
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end" font-size="12">'
            f"{html.escape(label[:40])}</text>"
        )
        parts.append(
            f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{row_h - 6}" fill="{color}">'
            f"<title>{html.escape(label)}: {_fmt(b['value'])} {html.escape(group['unit'])}</title></rect>"
        )
        parts.append(
            f'<text x="{label_w + w + 4}" y="{y + 15}" font-size="12">'
            f"{_fmt(b['value'])} {html.escape(group['unit'])}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
