#!/usr/bin/env python3
"""Score labelled cases with the shared scorer, extracting in this process (spaCy loads once).

    scripts/eval_dev.py ../shared/eval/dev [--detail] [--case 012]

The figures are the shared scorer's own (``../shared/eval/score.py`` is imported and only its
extract call is replaced by an in-process call of ``lkmlkb extract --format json``).  With
``--detail`` every case that differs from its labels is shown field by field: is it a report,
kernels, commits with their roles, results (value, unit, kernel) and the regression's size.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from click.testing import CliRunner

from lkmlkb.cli import main as lkmlkb_main

ROOT = Path(__file__).resolve().parent.parent
SCORER = ROOT.parent / "shared" / "eval" / "score.py"


def load_scorer(path: Path = SCORER):
    spec = importlib.util.spec_from_file_location("score", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: the shared scorer is not there")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def extract(path: Path) -> tuple[dict | None, str | None]:
    """``lkmlkb extract --format json PATH`` in this process: (document, error)."""
    result = CliRunner().invoke(lkmlkb_main, ["extract", "--format", "json", str(path)])
    if result.exit_code != 0:
        return None, (result.output.strip().splitlines() or [f"exit {result.exit_code}"])[-1]
    try:
        return json.loads(result.stdout), None
    except json.JSONDecodeError as exc:
        return None, f"bad json: {exc}"


def detail(score, case: Path, doc: dict) -> list[str]:
    """What differs from the case's labels, field by field."""
    gold = json.loads((case / "gold.json").read_text())
    pred = score.union(doc)
    lines = []
    if bool(gold["is_regression_report"]) != pred["is_regression_report"]:
        lines.append(f"  is_report: want {gold['is_regression_report']} got {pred['is_regression_report']}")
        for rep in doc.get("reports", []):
            for r in rep.get("reasons", []):
                lines.append(f"    [{r['rule']}] {r['verdict']}: {r['text'][:100]!r}")
    if not gold["is_regression_report"]:
        return lines
    gk = {score.norm_kernel(v) for v in gold.get("kernel_versions", [])}
    if gk != pred["kernel_versions"]:
        lines.append(
            f"  kernels: missed {sorted(gk - pred['kernel_versions'])} extra {sorted(pred['kernel_versions'] - gk)}"
        )
    for c in gold.get("commits", []):
        hit = next((s for s in pred["commits"] if score.sha_match(s, c["sha"].lower())), None)
        got = pred["commits"].get(hit) if hit else "MISSING"
        if got != c.get("role"):
            lines.append(f"  commit {c['sha'][:12]}: want {c.get('role')} got {got}")
    extra = [
        s
        for s in pred["commits"]
        if not any(score.sha_match(s, c["sha"].lower()) for c in gold.get("commits", []))
    ]
    if extra:
        lines.append(f"  commits extra: {[(s[:12], pred['commits'][s]) for s in extra]}")
    gjobs = [
        dict(score.norm_opt(k, v) for k, v in j.get("options", {}).items()) for j in gold.get("fio_jobs", [])
    ]
    if gjobs or pred["fio_jobs"]:
        extra_opts = sum(len(j) for j in pred["fio_jobs"]) - sum(len(j) for j in gjobs)
        if extra_opts or len(gjobs) != len(pred["fio_jobs"]):
            lines.append(
                f"  fio jobs: want {len(gjobs)} {gjobs[:2]} got {len(pred['fio_jobs'])} {pred['fio_jobs'][:2]}"
            )
    pres = [(r.get("value"), r.get("unit"), r.get("kernel"), r.get("label")) for r in pred["results"]]
    for g in gold.get("results", []):
        gv = score.norm_value(g)
        found = None
        for r in pred["results"]:
            pv = score.norm_value(r)
            if (
                gv
                and pv
                and (
                    abs(pv[1] - gv[1]) <= 0.01 * abs(gv[1]) + 1e-9
                    or abs(float(r.get("value") or 0) - float(g["value"]))
                    <= 0.005 * abs(float(g["value"])) + 1e-9
                )
            ):
                found = r
                break
        if found is None:
            lines.append(
                f"  result missed: {g.get('value')} {g.get('unit')} kernel={g.get('kernel')} ({g.get('label')})"
            )
        elif g.get("kernel") and not (
            found.get("kernel")
            and (
                score.norm_kernel(found["kernel"]).startswith(score.norm_kernel(g["kernel"]))
                or score.norm_kernel(g["kernel"]).startswith(score.norm_kernel(found["kernel"]))
            )
        ):
            lines.append(
                f"  result kernel: {g.get('value')} {g.get('unit')} want {g.get('kernel')} got {found.get('kernel')}"
            )
    if pres and any(ln.startswith("  result") for ln in lines):
        lines.append(f"  results predicted: {pres[:12]}{' ...' if len(pres) > 12 else ''}")
    if gold.get("regression_pct") is not None:
        want = abs(float(gold["regression_pct"]))
        if not any(abs(x - want) <= max(1.0, 0.05 * want) for x in pred["regression_pct"]):
            lines.append(f"  regression_pct: want {want} got {pred['regression_pct']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", type=Path)
    ap.add_argument("--detail", action="store_true", help="every difference from the labels, case by case")
    ap.add_argument("--case", action="append", default=[], help="only these case folder names")
    ap.add_argument("--scorer", type=Path, default=SCORER)
    args = ap.parse_args(argv)
    score = load_scorer(args.scorer)
    docs: dict[str, dict] = {}

    def in_process(_cmd, path):
        doc, err = extract(Path(path))
        if doc is not None:
            docs[str(Path(path).parent)] = doc
        return doc, err

    score.run_extract = in_process
    folders = []
    for d in args.cases:
        for case in sorted(p for p in d.iterdir() if (p / "gold.json").exists()):
            if not args.case or case.name in args.case:
                folders.append(case)
    if args.case:  # score just those: a temporary folder of links
        import tempfile

        tmp = Path(tempfile.mkdtemp(prefix="eval-"))
        for case in folders:
            (tmp / f"{case.parent.name}-{case.name}").symlink_to(case.resolve())
        roots = [str(tmp)]
    else:
        roots = [str(d) for d in args.cases]
    sys.argv = ["score.py", *roots]
    try:
        score.main()
    except SystemExit:
        pass
    if args.detail:
        for case in folders:
            doc = next((v for k, v in docs.items() if Path(k).resolve() == case.resolve()), None)
            lines = detail(score, case, doc or {})
            if lines:
                print(f"{case.parent.name}/{case.name}:")
                print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
