"""SQL views and other idempotent schema objects, applied after the migrations.

Views are named constants so that they can be dropped and recreated when
their definition changes, without a migration (they hold no data).
"""

from __future__ import annotations

import sqlite_utils

VIEWS: dict[str, str] = {
    # one row per regression report with its headline numbers and the commits that explain it
    "regression_reports": """
        SELECT r.report_id, r.title, r.status, r.regression_pct, r.stated_pct, r.computed_pct,
               r.headline_metric, r.baseline_value, r.regressed_value, r.unit, r.good_kernel, r.bad_kernel,
               r.culprits, r.fixes, r.tools, r.lists, r.first_date, r.last_date, r.message_count
        FROM reports r WHERE r.is_regression_report = 1
    """,
    # every result with the report it belongs to and the message it was read from
    "report_results": """
        SELECT x.report_id, r.title AS report_title, r.status, x.kernel, x.kernel_sort, x.label, x.config,
               x.tool, x.metric, x.direction, x.value, x.unit, x.normalized_value, x.normalized_unit,
               x.message_id, x.line_start, x.line_end, x.evidence
        FROM results x JOIN reports r ON r.report_id = x.report_id
    """,
    # each commit a report cites, its role there, and what a kernel tree said of it (after `lkmlkb link`)
    "report_commit_roles": """
        SELECT rc.report_id, r.title AS report_title, r.status, rc.sha, rc.role, rc.subject AS subject_in_mail,
               c.full_sha, c.status AS link_status, c.subject AS subject_in_tree, c.first_tag, c.fixed_by,
               rc.message_id, rc.cue
        FROM report_commits rc JOIN reports r ON r.report_id = rc.report_id
        LEFT JOIN commits c ON c.sha = rc.sha
    """,
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
