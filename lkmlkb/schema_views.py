"""SQL views and other idempotent schema objects, applied after the migrations.

Views are named constants so that they can be dropped and recreated when
their definition changes, without a migration (they hold no data).
"""

from __future__ import annotations

import sqlite_utils

VIEWS: dict[str, str] = {
    "thread_messages": """
        SELECT m.thread_id, t.subject AS thread_subject, m.message_id, m.date_utc, m.from_name,
               m.from_addr, m.subject, m.archive_url
        FROM messages m JOIN threads t ON t.thread_id = m.thread_id
    """,
}


def apply(db: sqlite_utils.Database) -> None:
    """(Re)create every view; cheap and idempotent."""
    existing = {r[0]: r[1] for r in db.execute("SELECT name, sql FROM sqlite_master WHERE type='view'")}
    for name, body in VIEWS.items():
        sql = f"CREATE VIEW {name} AS {body.strip()}"
        if existing.get(name) == sql:
            continue
        db.execute(f"DROP VIEW IF EXISTS {name}")
        db.execute(sql)
