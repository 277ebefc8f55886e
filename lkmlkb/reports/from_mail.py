"""``lkmlkb extract``: reports from mail files, without a database."""

from __future__ import annotations

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message, Report
from lkmlkb.reports.build import build_report
from lkmlkb.sources import read_messages


def extract_paths(paths: list[str]) -> tuple[list[Message], list[Report]]:
    """Read sources, thread, extract, build reports — no database."""
    messages = list(read_messages(paths))
    reports = []
    for thread_id, (msgs, findings) in extract_messages(messages).items():
        reports.append(build_report(thread_id, msgs, findings))
    return messages, reports
