"""schemas/kb.sql is what the migrations build: regenerate with scripts/dump_schema.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_schema_sql_is_current():
    spec = importlib.util.spec_from_file_location("dump_schema", ROOT / "scripts" / "dump_schema.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    current = (ROOT / "schemas" / "kb.sql").read_text(encoding="utf-8")
    assert mod.schema_sql() == current, "schemas/kb.sql is stale: run python scripts/dump_schema.py"
