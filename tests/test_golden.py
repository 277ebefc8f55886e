"""Golden extraction output for every corpus thread (the extract contract, reviewed JSON).

Regenerate with ``pytest tests/test_golden.py --regen-golden`` and review the diff.
A missing golden file fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from lkmlkb.reports.contract import document
from lkmlkb.reports.from_mail import extract_paths

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(p for p in (ROOT / "corpus").iterdir() if p.suffix in (".txt", ".mbox"))
GOLDEN = ROOT / "tests" / "golden"
SCHEMA = json.loads((ROOT / "schemas" / "extract.schema.json").read_text())


def _extract(path: Path) -> dict:
    messages, reports = extract_paths([str(path)])
    doc = document(messages, reports)
    # sources are absolute paths on this machine: keep goldens portable
    for m in doc["messages"]:
        m["source"] = Path(m["source"]).name
    return json.loads(json.dumps(doc, sort_keys=True, ensure_ascii=False))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_thread_matches_golden(path, regen_golden):
    got = _extract(path)
    jsonschema.validate(got, SCHEMA)
    golden = GOLDEN / (path.stem + ".json")
    if regen_golden:
        golden.write_text(
            json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    assert golden.exists(), f"missing golden file {golden.name}: run pytest --regen-golden and review it"
    want = json.loads(golden.read_text(encoding="utf-8"))
    assert got == want
