"""scripts/eval_threads.py: thread labels read by hand against a knowledge base's reports."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "docs" / "reads" / "eight-lists-thread-labels.jsonl"


def _script():
    spec = importlib.util.spec_from_file_location("eval_threads", ROOT / "scripts" / "eval_threads.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["eval_threads"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_labels_of_one_list_are_read_from_a_file_of_several(tmp_path):
    et = _script()
    rows = [
        {"list": "linux-raid", "thread_id": "a@x", "is_perf_regression": True, "subject": "a"},
        {"list": "linux-xfs", "thread_id": "b@x", "is_perf_regression": False, "subject": "b"},
        {"thread_id": "c@x", "is_perf_regression": True, "subject": "c"},  # a file of one list
    ]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert set(et.load_labels(path)) == {"a@x", "b@x", "c@x"}
    assert set(et.load_labels(path, "linux-raid")) == {"a@x", "c@x"}


def test_the_kept_labels_score_a_list():
    et = _script()
    labels = et.load_labels(LABELS, "linux-raid")
    assert labels and all(row["list"] == "linux-raid" for row in labels.values())
    true = [t for t, row in labels.items() if row["is_perf_regression"]]
    reports = {
        t: {
            "is_regression_report": 1,
            "status": labels[t]["status"],
            "regression_pct": labels[t]["size_pct"],
            "culprits": json.dumps([labels[t]["culprit"]] if labels[t]["culprit"] else []),
        }
        for t in true
    }
    f = et.score(reports, labels)
    assert f["precision"] == 1.0 and f["recall"] == 1.0 and f["status"] == 1.0 and f["size"] == 1.0
    reports[true[0]]["status"] = "no such status"
    assert et.score(reports, labels)["status"] < 1.0
