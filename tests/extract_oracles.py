"""The setup extractor read the plain way: the oracles its fast paths are tested against.

Shared by tests/extract/test_extract_speed.py and tests/extract/test_setup_fio_speed_paths.py
(tests/ is on the import path: its conftest.py is loaded first).
"""

from __future__ import annotations

from lkmlkb.extract import setup


def setup_every_line(text: str) -> list:
    """find_setup as plain as it gets: every rule on every non-blank line."""
    out: dict = {}
    for i, line in enumerate(text.split("\n")):
        line = line[: setup.MAX_LINE]
        if line.strip():
            for rule, _ in setup._SETUP_RULES:
                rule(out, i, line)
    return list(out.values())


def tools_every_line(text: str) -> list[str]:
    """find_tools as plain as it gets: every tool pattern on every line."""
    lines = [line[: setup.MAX_LINE] for line in text.split("\n")]
    return sorted(name for name, rx in setup._TOOL_RES if any(rx.search(line) for line in lines))
