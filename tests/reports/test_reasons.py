"""Every report says why it is what it is: the rule, the verdict, the message and line it read,
in the knowledge base, in `lkmlkb show` and in `lkmlkb extract --format json`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from lkmlkb.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
# the kernel test robot's report on linux-block (2024-01-31) and the raw multipath report thread
ROBOT = CORPUS / "101_lkp_574e7779cf_write_iops.mbox"
MULTIPATH = CORPUS / "102_multipath_seqwrite_raw.mbox"


def _run(*args: str) -> str:
    r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_the_knowledge_base_keeps_the_reasons_and_show_prints_them(tmp_path):
    db = str(tmp_path / "kb.db")
    _run("ingest", str(ROBOT), str(MULTIPATH), "--db", db)
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT r.report_id, x.rule, x.verdict, x.message_id, x.line FROM reports r "
        "JOIN report_reasons x ON x.report_id = r.report_id WHERE r.is_regression_report = 1 "
        "ORDER BY r.report_id, x.seq"
    ).fetchall()
    rules = {(rid, rule) for rid, rule, *_ in rows}
    assert any(rule == "robot-report" for _, rule in rules)
    assert all(mid for *_, mid, _line in rows)  # every reason names the message it read
    robot_id = next(rid for rid, rule in rules if rule == "robot-report")
    shown = _run("show", robot_id, "--db", db)
    assert "why:" in shown
    assert "robot-report: regression" in shown and "fio.write_iops -72.9% regression" in shown


def test_extract_json_carries_the_reasons(tmp_path):
    doc = json.loads(_run("extract", "--format", "json", str(MULTIPATH)))
    (report,) = [r for r in doc["reports"] if r["is_regression_report"]]
    assert report["reasons"], report["title"]
    first = report["reasons"][0]
    assert first["rule"] and first["verdict"] == "regression" and first["message_id"] in report["message_ids"]
