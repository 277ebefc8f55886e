"""A knowledge base built before a schema change is brought up to date by `lkmlkb reprocess`;
until then readers say what to run, in one line, and change nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner

from lkmlkb.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def test_reprocess_upgrades_an_older_knowledge_base(tmp_path):
    db = str(tmp_path / "kb.db")
    r = CliRunner().invoke(main, ["ingest", str(CORPUS / "101_lkp_574e7779cf_write_iops.mbox"), "--db", db])
    assert r.exit_code == 0, r.output
    con = sqlite3.connect(db)  # as a knowledge base of the schema before report_reasons was
    con.execute("DROP TABLE report_reasons")
    con.execute("DELETE FROM _sqlite_migrations WHERE name = 'm003_report_reasons'")
    con.commit()
    con.close()
    reader = CliRunner().invoke(main, ["reports", "--db", db])
    assert reader.exit_code != 0 and "needs migrations" in reader.output and "Traceback" not in reader.output
    r = CliRunner().invoke(main, ["reprocess", "--db", db])
    assert r.exit_code == 0, r.output
    rows = sqlite3.connect(db).execute("SELECT count(*) FROM report_reasons").fetchone()[0]
    assert rows > 0
    assert CliRunner().invoke(main, ["reports", "--db", db]).exit_code == 0
