"""The JSON contract of ``lkmlkb extract --format json`` (schemas/extract.schema.json).

One document: ``{"messages": [...], "reports": [...]}``, one report per
thread, each fact with its provenance (message, line span, quoted, text as
written).  Option values are as written; normalized forms go beside them.
"""

from __future__ import annotations

from typing import Any

from lkmlkb.model import Evidence, Message, Report

CONTRACT_VERSION = 1


def _prov(ev: Evidence) -> dict[str, Any]:
    return {
        "message_id": ev.message_id,
        "line_start": ev.line_start,
        "line_end": ev.line_end,
        "quoted": ev.quoted,
        "depth": ev.depth,
        "text": ev.text,
    }


def message_json(m: Message) -> dict[str, Any]:
    return {
        "message_id": m.message_id,
        "subject": m.subject,
        "from_name": m.from_name,
        "from_addr": m.from_addr,
        "from_obfuscated": m.from_obfuscated,
        "date": m.date_utc,
        "date_raw": m.date_raw,
        "in_reply_to": m.in_reply_to,
        "references": m.references,
        "lists": m.lists,
        "archive_url": m.archive_url,
        "synthetic_id": m.synthetic_id,
        "source": m.source,
    }


def report_json(r: Report) -> dict[str, Any]:
    return {
        "thread_id": r.thread_id,
        "title": r.title,
        "is_regression_report": r.is_regression_report,
        "kind": r.kind,
        "status": r.status,
        "kernel_versions": [k.version for k in r.kernel_versions],
        "kernels": [
            {"version": k.version, "raw": k.raw, "role": k.role, "provenance": _prov(k.evidence)}
            for k in r.kernel_versions
        ],
        "good_kernel": r.good_kernel,
        "bad_kernel": r.bad_kernel,
        "commits": [
            {
                "sha": c.sha,
                "subject": c.subject,
                "role": c.role,
                "cue": c.cue,
                "form": c.form,
                "range_end": c.range_end,
                "provenance": _prov(c.evidence),
            }
            for c in r.commits
        ],
        "fio_jobs": [
            {
                "name": j.name,
                "form": j.form,
                "options": j.options,
                "global_options": j.global_options,
                "normalized": j.normalized,
                "unknown_options": j.unknown_options,
                "notes": j.notes,
                "provenance": _prov(j.evidence),
            }
            for j in r.fio_jobs
        ],
        "results": [
            {
                "kernel": x.kernel or x.config,
                "label": x.label,
                "config": x.config,
                "tool": x.tool,
                "metric": x.metric,
                "direction": x.direction,
                "value": x.value,
                "unit": x.unit,
                "normalized": {"value": x.normalized_value, "unit": x.normalized_unit},
                "stddev": x.stddev,
                "samples": x.samples,
                "provenance": _prov(x.evidence),
            }
            for x in r.results
        ],
        "regression_pct": r.regression_pct,
        "stated_pct": r.stated_pct,
        "computed_pct": r.computed_pct,
        "pct_disagrees": r.pct_disagrees,
        "tools": r.tools,
        "fio_version": r.fio_version,
        "setup": _setup_json(r),
        "people": r.people,
        "first_date": r.first_date,
        "last_date": r.last_date,
        "message_ids": r.message_ids,
        "lists": r.lists,
        "reasons": [
            {"rule": x.rule, "verdict": x.verdict, "message_id": x.message_id, "line": x.line, "text": x.text}
            for x in r.reasons
        ],
    }


def _setup_json(r: Report) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for s in r.setup:
        out.setdefault(s.key, []).append({"value": s.value, "provenance": _prov(s.evidence)})
    return out


def document(messages: list[Message], reports: list[Report]) -> dict[str, Any]:
    return {
        "contract_version": CONTRACT_VERSION,
        "messages": [message_json(m) for m in messages],
        "reports": [report_json(r) for r in reports],
    }
