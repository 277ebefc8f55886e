"""Shared helpers for tests/fio: corpus/fixture reading, gold option sets."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GOLD_CANDIDATES = [ROOT.parent / "shared" / "eval" / "seeds", ROOT / ".." / "shared" / "eval" / "seeds"]


def fixture(name: str) -> str:
    """A fixture without its leading '# Source: ...' note lines."""
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    while lines and lines[0].startswith("# "):
        lines.pop(0)
    return "\n".join(lines)


def seed(prefix: str) -> str:
    (path,) = sorted((ROOT / "corpus").glob(prefix + "_*.txt"))
    return path.read_text(encoding="utf-8")


def dequote(text: str) -> str:
    """Strip one leading '> ' (or '>') per line, as the caller's quote segmentation does."""
    out = []
    for line in text.split("\n"):
        while line.startswith(">"):
            line = line[2:] if line.startswith("> ") else line[1:]
        out.append(line)
    return "\n".join(out)


def gold_jobs(case: str) -> list[dict[str, str]] | None:
    """The labelled fio_jobs option sets of a seed, or None when the labels are not laid out here."""
    for cand in GOLD_CANDIDATES:
        path = cand / case / "gold.json"
        if path.exists():
            return [j["options"] for j in json.loads(path.read_text())["fio_jobs"]]
    return None


def option_sets(jobs) -> list[dict[str, str]]:
    return sorted((dict(j.options) for j in jobs), key=lambda d: sorted(d.items()))
