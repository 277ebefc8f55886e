"""The knowledge base's schema, defined by migrations (sqlite-utils ``Migrations``).

``schemas/kb.sql`` is generated from a fresh database (scripts/dump_schema.py)
and a test keeps it current.  The views are in :mod:`lkmlkb.db.views`.
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils.migrations import Migrations

SCHEMA_VERSION = "lkmlkb-1"

#: statuses of a ``commits`` row, as ``lkmlkb link`` judges the SHA as written:
RESOLVED = "resolved"  # one commit of the tree
RESOLVED_BY_SUBJECT = "resolved-by-subject"  # several; the subject quoted in mail names one of them
AMBIGUOUS = "ambiguous"  # several (the candidates listed)
SUBJECT_MATCH = "subject-match"  # none, but the quoted subject names one commit of the tree
UNKNOWN = "unknown"  # none: a commit of another tree, or mistyped
UNRESOLVED = "unresolved"  # no tree asked: SHAs of one commit joined by their prefix
#: statuses that name one commit of the tree
IN_TREE = (RESOLVED, RESOLVED_BY_SUBJECT, SUBJECT_MATCH)
migrations = Migrations("lkmlkb")


@migrations()
def m001_messages(db: sqlite_utils.Database) -> None:
    db.execute("""
    CREATE TABLE lists (
        name TEXT PRIMARY KEY,
        message_count INTEGER NOT NULL DEFAULT 0
    )""")
    db.execute("""
    CREATE TABLE threads (
        thread_id TEXT PRIMARY KEY,
        subject TEXT,
        topic TEXT,
        root_message_id TEXT,
        message_count INTEGER NOT NULL DEFAULT 0,
        first_date TEXT,
        last_date TEXT
    )""")
    db.execute("""
    CREATE TABLE messages (
        message_id TEXT PRIMARY KEY,
        thread_id TEXT,
        parent_id TEXT,
        subject TEXT,
        from_name TEXT,
        from_addr TEXT,
        from_obfuscated INTEGER NOT NULL DEFAULT 0,
        date_raw TEXT,
        date_utc TEXT,
        in_reply_to TEXT,
        "references" TEXT,
        to_addrs TEXT,
        cc_addrs TEXT,
        body TEXT,
        new_text TEXT,
        archive_url TEXT,
        source TEXT,
        synthetic_id INTEGER NOT NULL DEFAULT 0,
        content_hash TEXT,
        lists TEXT
    )""")
    db.execute("CREATE INDEX idx_messages_thread ON messages(thread_id, date_utc)")
    db.execute("CREATE INDEX idx_messages_date ON messages(date_utc)")
    db.execute("""
    CREATE TABLE raw_messages (
        message_id TEXT PRIMARY KEY REFERENCES messages(message_id) ON DELETE CASCADE,
        raw BLOB
    )""")
    db.execute("""
    CREATE TABLE message_lists (
        message_id TEXT NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
        list TEXT NOT NULL REFERENCES lists(name),
        PRIMARY KEY (message_id, list)
    )""")
    db.execute("""
    CREATE TABLE message_copies (
        message_id TEXT NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
        content_hash TEXT NOT NULL,
        source TEXT,
        locator TEXT,
        first_seen TEXT,
        PRIMARY KEY (message_id, content_hash)
    )""")
    # every id the threader has seen, ghosts (referenced, never received) included
    db.execute("""
    CREATE TABLE thread_members (
        message_id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL
    )""")
    db.execute("CREATE INDEX idx_thread_members_thread ON thread_members(thread_id)")
    db.execute("""
    CREATE TABLE thread_topics (
        topic TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL
    )""")
    db.execute("""
    CREATE TABLE segments (
        message_id TEXT NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        depth INTEGER NOT NULL DEFAULT 0,
        quotes_message_id TEXT,
        PRIMARY KEY (message_id, seq)
    )""")
    db.execute("""
    CREATE TABLE ingest_runs (
        id INTEGER PRIMARY KEY,
        started TEXT NOT NULL,
        finished TEXT,
        sources TEXT,
        new INTEGER NOT NULL DEFAULT 0,
        unchanged INTEGER NOT NULL DEFAULT 0,
        copies INTEGER NOT NULL DEFAULT 0,
        errors INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'running',
        lkmlkb_version TEXT
    )""")
    db.execute("""
    CREATE TABLE ingest_errors (
        id INTEGER PRIMARY KEY,
        run_id INTEGER REFERENCES ingest_runs(id),
        source TEXT,
        locator TEXT,
        stage TEXT NOT NULL,
        reason TEXT NOT NULL,
        message_id TEXT,
        raw BLOB,
        resolved INTEGER NOT NULL DEFAULT 0
    )""")
    db.execute("""
    CREATE TABLE source_state (
        source TEXT PRIMARY KEY,
        cursor TEXT NOT NULL,
        updated TEXT
    )""")
    db.execute("""
    CREATE TABLE kb_info (
        key TEXT PRIMARY KEY,
        value TEXT
    )""")
    db.table("messages").enable_fts(
        ["subject", "new_text"], tokenize="porter unicode61 tokenchars '-_'", create_triggers=True
    )


@migrations()
def m002_findings_and_reports(db: sqlite_utils.Database) -> None:
    """What extraction and report building produce; replaced wholesale on reprocess."""
    prov = """
        message_id TEXT NOT NULL,
        thread_id TEXT,
        line_start INTEGER,
        line_end INTEGER,
        evidence TEXT,
        quoted INTEGER NOT NULL DEFAULT 0"""
    db.execute(f"""
    CREATE TABLE fio_jobs (
        id INTEGER PRIMARY KEY,
        report_id TEXT,
        name TEXT,
        form TEXT NOT NULL,
        options TEXT NOT NULL,
        global_options TEXT,
        normalized TEXT,
        unknown_options TEXT,
        notes TEXT,
        rw TEXT, bs TEXT, ioengine TEXT, iodepth TEXT, numjobs TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE results (
        id INTEGER PRIMARY KEY,
        report_id TEXT,
        kernel TEXT,
        kernel_sort TEXT,
        label TEXT,
        config TEXT,
        tool TEXT,
        metric TEXT NOT NULL,
        direction TEXT,
        value REAL NOT NULL,
        unit TEXT,
        normalized_value REAL,
        normalized_unit TEXT,
        stddev REAL,
        samples TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE kernel_mentions (
        id INTEGER PRIMARY KEY,
        version TEXT NOT NULL,
        raw TEXT,
        sort_key TEXT,
        role TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE commit_citations (
        id INTEGER PRIMARY KEY,
        sha TEXT NOT NULL,
        subject TEXT,
        role TEXT NOT NULL,
        cue TEXT,
        form TEXT,
        range_end TEXT,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE setup_facts (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        {prov}
    )""")
    db.execute(f"""
    CREATE TABLE claims (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        stated_pct REAL,
        metric TEXT,
        cue TEXT,
        {prov}
    )""")
    db.execute("""
    CREATE TABLE extraction_errors (
        message_id TEXT NOT NULL,
        extractor TEXT NOT NULL,
        reason TEXT NOT NULL,
        at TEXT,
        PRIMARY KEY (message_id, extractor)
    )""")
    db.execute("""
    CREATE TABLE extracted_messages (
        message_id TEXT PRIMARY KEY,
        extractor_version TEXT NOT NULL,
        prefilter_passed INTEGER NOT NULL,
        extra TEXT
    )""")
    for t in ("fio_jobs", "results", "kernel_mentions", "commit_citations", "setup_facts", "claims"):
        db.execute(f"CREATE INDEX idx_{t}_message ON {t}(message_id)")
        db.execute(f"CREATE INDEX idx_{t}_thread ON {t}(thread_id)")
    db.execute("CREATE INDEX idx_commit_citations_sha ON commit_citations(sha)")
    db.execute("""
    CREATE TABLE reports (
        report_id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        title TEXT,
        is_regression_report INTEGER NOT NULL DEFAULT 0,
        kind TEXT,
        status TEXT,
        workload TEXT,
        tools TEXT,
        good_kernel TEXT,
        bad_kernel TEXT,
        stated_pct REAL,
        computed_pct REAL,
        regression_pct REAL,
        pct_disagrees INTEGER NOT NULL DEFAULT 0,
        headline_metric TEXT,
        baseline_value REAL,
        regressed_value REAL,
        unit TEXT,
        culprits TEXT,
        fixes TEXT,
        fio_version TEXT,
        scheduler TEXT,
        filesystem TEXT,
        device_class TEXT,
        people TEXT,
        lists TEXT,
        first_date TEXT,
        last_date TEXT,
        message_count INTEGER,
        first_message_id TEXT,
        summary TEXT,
        built TEXT
    )""")
    db.execute("CREATE INDEX idx_reports_date ON reports(last_date)")
    db.execute("""
    CREATE TABLE report_kernels (
        report_id TEXT NOT NULL REFERENCES reports(report_id) ON DELETE CASCADE,
        version TEXT NOT NULL,
        sort_key TEXT,
        role TEXT,
        PRIMARY KEY (report_id, version)
    )""")
    db.execute("""
    CREATE TABLE report_commits (
        report_id TEXT NOT NULL REFERENCES reports(report_id) ON DELETE CASCADE,
        sha TEXT NOT NULL,
        subject TEXT,
        role TEXT NOT NULL,
        message_id TEXT,
        line_start INTEGER,
        line_end INTEGER,
        cue TEXT,
        PRIMARY KEY (report_id, sha, role)
    )""")
    db.execute("CREATE INDEX idx_report_commits_sha ON report_commits(sha)")
    db.execute("""
    CREATE TABLE setups (
        report_id TEXT NOT NULL REFERENCES reports(report_id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        message_id TEXT,
        PRIMARY KEY (report_id, key, value)
    )""")
    db.execute("""
    CREATE TABLE commits (
        sha TEXT PRIMARY KEY,
        full_sha TEXT,
        status TEXT,
        subject TEXT,
        subject_in_mail TEXT,
        subject_matches INTEGER,
        author TEXT,
        date TEXT,
        first_tag TEXT,
        candidates TEXT,
        fixed_by TEXT,
        linked_by TEXT,
        tree TEXT,
        checked TEXT
    )""")
    db.table("reports").enable_fts(
        ["title", "summary", "workload"], tokenize="porter unicode61 tokenchars '-_'", create_triggers=True
    )


@migrations()
def m003_report_reasons(db: sqlite_utils.Database) -> None:
    """Why each report is what it is: the named rules of its classification and status."""
    db.execute("""
    CREATE TABLE report_reasons (
        report_id TEXT NOT NULL REFERENCES reports(report_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        rule TEXT NOT NULL,
        verdict TEXT NOT NULL,
        message_id TEXT,
        line INTEGER,
        text TEXT,
        PRIMARY KEY (report_id, seq)
    )""")


@migrations()
def m004_claim_ranges(db: sqlite_utils.Database) -> None:
    """A claim's size stated as a range keeps its low end ("10-15% slower")."""
    db.execute("ALTER TABLE claims ADD COLUMN stated_low REAL")


@migrations()
def m005_regressions(db: sqlite_utils.Database) -> None:
    """Report threads grouped into regressions, and the keys of each thread they are grouped by.

    The view of regression reports that had the name ``regressions`` is ``regression_reports``
    (views hold no data; :mod:`lkmlkb.db.views` creates it)."""
    db.execute("DROP VIEW IF EXISTS regressions")
    db.execute("""
    CREATE TABLE regressions (
        regression_id TEXT PRIMARY KEY,
        title TEXT,
        status TEXT,
        thread_count INTEGER NOT NULL DEFAULT 0,
        anchor_thread_id TEXT,
        first_date TEXT,
        last_date TEXT,
        timeline TEXT
    )""")
    db.execute("CREATE INDEX idx_regressions_date ON regressions(last_date)")
    db.execute("""
    CREATE TABLE regression_threads (
        thread_id TEXT PRIMARY KEY,
        regression_id TEXT NOT NULL REFERENCES regressions(regression_id) ON DELETE CASCADE,
        part TEXT NOT NULL,
        reason TEXT NOT NULL
    )""")
    db.execute("CREATE INDEX idx_regression_threads_regression ON regression_threads(regression_id)")
    db.execute("""
    CREATE TABLE regression_keys (
        thread_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        value TEXT NOT NULL,
        message_id TEXT,
        date TEXT,
        detail TEXT
    )""")
    db.execute("CREATE INDEX idx_regression_keys_thread ON regression_keys(thread_id)")


@migrations()
def m006_regression_keys_by_value(db: sqlite_utils.Database) -> None:
    """Regression keys found by their value: the regressions of one workload and metric."""
    db.execute("CREATE INDEX idx_regression_keys_value ON regression_keys(kind, value)")


@migrations()
def m007_fix_commits(db: sqlite_utils.Database) -> None:
    """The commits of a kernel tree that land a regression thread's fix or revert, each with the
    first release tag that contains it (``lkmlkb link --git`` writes them: the page of a
    regression reads them, and runs no git)."""
    db.execute("""
    CREATE TABLE fix_commits (
        thread_id TEXT NOT NULL,
        sha TEXT NOT NULL,
        via TEXT NOT NULL,
        message_id TEXT,
        subject TEXT,
        author TEXT,
        date TEXT,
        first_tag TEXT,
        tree TEXT,
        PRIMARY KEY (thread_id, sha)
    )""")


#: tables of what the extractors found per message (each row names its message and thread)
FINDING_TABLES = ("fio_jobs", "results", "kernel_mentions", "commit_citations", "setup_facts", "claims")
#: tables of a report's rows besides ``reports`` itself (keyed by report_id)
REPORT_TABLES = ("report_kernels", "report_commits", "setups", "report_reasons")
