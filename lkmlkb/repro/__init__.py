"""Report -> reproduction bundle (jobs/*.fio, setup.sh, run.sh, expected.json, README.md),
the safety pass every emitted job goes through, and ``compare`` of a user's fio JSON
against the reported numbers."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from lkmlkb.model import (
    Claim,
    CommitCitation,
    Evidence,
    FioJob,
    KernelMention,
    Reason,
    Report,
    Result,
    SetupFact,
)

__all__ = ["report_from_dict"]

_LIST_TYPES = {
    "kernel_versions": KernelMention,
    "commits": CommitCitation,
    "fio_jobs": FioJob,
    "results": Result,
    "setup": SetupFact,
    "claims": Claim,
    "reasons": Reason,
}


def _build(cls, data: dict[str, Any]):
    """``cls(**data)`` with unknown keys ignored and nested evidence rebuilt."""
    names = {f.name for f in fields(cls)}
    kwargs = {k: v for k, v in (data or {}).items() if k in names}
    if isinstance(kwargs.get("evidence"), dict):
        kwargs["evidence"] = _build(Evidence, kwargs["evidence"])
    if "sort_key" in kwargs and isinstance(kwargs["sort_key"], list):
        kwargs["sort_key"] = tuple(kwargs["sort_key"])
    return cls(**kwargs)


def report_from_dict(data: dict[str, Any]) -> Report:
    """A Report from its ``dataclasses.asdict`` form (JSON, a stored row, a test fixture).

    Unknown keys (``_source`` notes in fixtures, newer fields) are ignored.
    """
    names = {f.name for f in fields(Report)}
    kwargs = {k: v for k, v in data.items() if k in names}
    for key, cls in _LIST_TYPES.items():
        if key in kwargs:
            kwargs[key] = [
                _build(cls, item) if isinstance(item, dict) else item for item in kwargs[key] or []
            ]
    return Report(**kwargs)
