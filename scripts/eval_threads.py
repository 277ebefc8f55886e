#!/usr/bin/env python3
"""Score a knowledge base's reports against thread labels read by hand.

    scripts/eval_threads.py --db linux-raid.db --labels labels/linux-raid.jsonl [--show errors]
    scripts/eval_threads.py --db linux-raid.db --labels docs/reads/eight-lists-thread-labels.jsonl --list linux-raid

A label file holds one JSON object per thread (``thread_id``, ``is_perf_regression``,
``family``, ``culprit``, ``size_pct``, ``status``; see the thread labelling guide).  Printed:

* precision: of the threads the knowledge base lists as regression reports and that were
  read, how many are regressions (a listed thread nobody read is counted apart);
* recall: of the labelled regression threads, how many are listed;
* on the listed true ones: culprit (SHA prefix match), size (within 1 point or 5 %), status.

``--show errors`` prints every disagreement with its thread id, for reading.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path


def load_labels(path: Path, list_name: str | None = None) -> dict[str, dict]:
    """The labels of ``path``; with ``list_name``, only the rows whose ``list`` is that list (a
    file may hold the labels of several lists)."""
    labels: dict[str, dict] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path}:{n}: not JSON ({exc})") from None
            if list_name is None or row.get("list", list_name) == list_name:
                labels[row["thread_id"]] = row
    return labels


def load_reports(db: Path) -> dict[str, dict]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    rows = con.execute(
        "SELECT thread_id, title, is_regression_report, status, regression_pct, culprits FROM reports"
    ).fetchall()
    con.close()
    out = {}
    for r in rows:
        out[r["thread_id"]] = dict(r)
    return out


def culprits_of(value: str | None) -> list[str]:
    if not value:
        return []
    try:
        parsed = json.loads(value)
    except (TypeError, json.JSONDecodeError):
        parsed = [p for p in str(value).replace(",", " ").split() if p]
    return [str(p).lower() for p in parsed if p]


def size_ok(want: float | None, got: float | None) -> bool:
    if want is None:
        return got is None
    return got is not None and abs(abs(got) - abs(want)) <= max(1.0, 0.05 * abs(want))


def score(reports: dict[str, dict], labels: dict[str, dict], show: bool = False) -> dict[str, float]:
    listed = {t for t, r in reports.items() if r["is_regression_report"]}
    read_listed = [t for t in listed if t in labels]
    true_listed = [t for t in read_listed if labels[t]["is_perf_regression"]]
    true_all = [t for t, lab in labels.items() if lab["is_perf_regression"]]
    found = [t for t in true_all if t in listed]
    culprit_ok = size_right = status_right = 0
    errors = []
    for t in sorted(read_listed):
        if not labels[t]["is_perf_regression"]:
            errors.append(f"false alarm  {t}  [{labels[t].get('family')}] {labels[t]['subject'][:90]}")
    for t in sorted(true_all):
        if t not in listed:
            where = "not built" if t not in reports else "not listed"
            errors.append(f"missed ({where})  {t}  {labels[t]['subject'][:90]}")
    for t in sorted(found):
        lab, rep = labels[t], reports[t]
        want = (lab.get("culprit") or "").lower()
        got = culprits_of(rep.get("culprits"))
        if (not want and not got) or (
            want and any(g.startswith(want[:7]) or want.startswith(g[:7]) for g in got)
        ):
            culprit_ok += 1
        else:
            errors.append(f"culprit  {t}  want {want or None} got {got or None}")
        if size_ok(lab.get("size_pct"), rep.get("regression_pct")):
            size_right += 1
        else:
            errors.append(f"size  {t}  want {lab.get('size_pct')} got {rep.get('regression_pct')}")
        if (lab.get("status") or "") == (rep.get("status") or ""):
            status_right += 1
        else:
            errors.append(f"status  {t}  want {lab.get('status')} got {rep.get('status')}")
    n = len(found) or 1
    figures = {
        "listed": len(listed),
        "listed_read": len(read_listed),
        "listed_true": len(true_listed),
        "precision": len(true_listed) / len(read_listed) if read_listed else 1.0,
        "labelled_true": len(true_all),
        "recall": len(found) / len(true_all) if true_all else 1.0,
        "culprit": culprit_ok / n,
        "size": size_right / n,
        "status": status_right / n,
    }
    if show:
        print("\n".join(errors))
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--labels", type=Path, required=True)
    ap.add_argument("--list", dest="list_name", default=None, help="only the labels of this list")
    ap.add_argument("--show", choices=["errors"], default=None)
    args = ap.parse_args(argv)
    for p in (args.db, args.labels):
        if not p.exists():
            print(f"{p}: no such file", file=sys.stderr)
            return 2
    f = score(load_reports(args.db), load_labels(args.labels, args.list_name), show=args.show == "errors")
    print(
        f"listed {f['listed']} (read {f['listed_read']}, true {f['listed_true']}): precision {f['precision']:.2f}; "
        f"labelled true {f['labelled_true']}: recall {f['recall']:.2f}; on found: culprit {f['culprit']:.2f} "
        f"size {f['size']:.2f} status {f['status']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
