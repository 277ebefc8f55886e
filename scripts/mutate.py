#!/usr/bin/env python3
"""A mutation check: put small plausible bugs into a copy of the tree and see the tests catch them.

Each mutant names a file, an exact text that must occur there once, its replacement, and the
tests that must fail with it.  Every mutant is applied to its own temporary copy of the tracked
files (the working tree is never written), the named tests run there with that copy first on the
import path, and the mutant is *caught* when they fail.  First the named tests run on an unmutated
copy and must pass.  Prints one line per mutant and the score; exits 1 when a mutant is not caught
or no longer applies (its text is gone from its file), 2 when the tests fail without a mutant.

    .venv/bin/python scripts/mutate.py            # every mutant
    .venv/bin/python scripts/mutate.py -k budget  # those whose name holds "budget"
    .venv/bin/python scripts/mutate.py --list

Not part of the pytest suite: a habit, run after changing the code or tests a mutant names.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTANTS = [
    Mutant(
        "report-body-safe",
        "lkmlkb/web/templates/lkmlkb_report.html",
        '{{ (m.new_text or "")[:20000] }}',
        '{{ (m.new_text or "")[:20000]|safe }}',
        ("tests/web/test_escaping.py", "tests/web/test_plugin.py"),
    ),
    Mutant(
        "report-subject-safe",
        "lkmlkb/web/templates/lkmlkb_report.html",
        '<h1 class="lkmlkb-title">{{ r.title or r.report_id }}</h1>',
        '<h1 class="lkmlkb-title">{{ (r.title or r.report_id)|safe }}</h1>',
        ("tests/web/test_escaping.py", "tests/web/test_plugin.py"),
    ),
    Mutant(
        "chart-label-unescaped",
        "lkmlkb/web/chart.py",
        'f"{html.escape(label[:40])}</text>"',
        'f"{label[:40]}</text>"',
        ("tests/web/test_escaping.py", "tests/web/test_plugin.py"),
    ),
    Mutant(
        "report-id-plain-characters-only",
        "lkmlkb/web/common.py",
        "    [^\\s\\x00-\\x1f\\x7f]{1,251}$",
        "    [A-Za-z0-9._@+=~-]{1,251}$",
        ("tests/web/test_report_ids.py",),
    ),
    Mutant(
        "report-route-short",
        "lkmlkb/web/hooks.py",
        '(r"^/-/lkmlkb/report/(?P<report_id>[^/]{1,1200})$", report_view)',
        '(r"^/-/lkmlkb/report/(?P<report_id>[^/%]{1,400})$", report_view)',
        ("tests/web/test_report_ids.py",),
    ),
    Mutant(
        "require-tools-lets-skips-pass",
        "tests/conftest.py",
        '        rep.outcome = "failed"\n',
        '        rep.outcome = "skipped"\n',
        ("tests/test_require_tools.py",),
    ),
    Mutant(
        "readers-without-immutable-fallback",
        "lkmlkb/db/connection.py",
        '    for mode in ("ro", "immutable"):\n',
        '    for mode in ("ro",):\n',
        ("tests/db/test_readonly.py",),
    ),
    Mutant(
        "writer-not-checked-for-read-only",
        "lkmlkb/db/connection.py",
        '                db.execute("INSERT OR REPLACE INTO kb_info(key, value) SELECT key, value FROM kb_info")\n',
        '                db.execute("SELECT 1")\n',
        ("tests/db/test_readonly.py",),
    ),
    Mutant(
        "writer-lock-shared",
        "lkmlkb/db/connection.py",
        "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)",
        "fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)",
        ("tests/db/test_readonly.py",),
    ),
    Mutant(
        "serve-immutable-ignored",
        "lkmlkb/web/serve.py",
        '    immutable = immutable or read_mode(path) == "immutable"\n',
        '    immutable = read_mode(path) == "immutable"\n',
        ("tests/db/test_readonly.py",),
    ),
    Mutant(
        "table-search-uncapped",
        "lkmlkb/web/hooks.py",
        "                if message is not None:\n",
        "                if message is None and message:\n",
        ("tests/web/test_edges.py",),
    ),
    Mutant(
        "serve-exposure-unsaid",
        "lkmlkb/web/serve.py",
        "    if loopback:\n        return None\n",
        "    return None\n",
        ("tests/web/test_edges.py",),
    ),
    Mutant(
        "commit-page-in-capitals",
        "lkmlkb/web/templates/lkmlkb_commit.html",
        '<section class="lkmlkb-citations"',
        '<section class="lkmlkb-role"',
        ("tests/web/test_browser.py",),
    ),
    Mutant(
        "column-descriptions-unfolded",
        "lkmlkb/web/static/lkmlkb.css",
        "dl.column-descriptions { display: none; }",
        "dl.column-descriptions { }",
        ("tests/web/test_browser.py",),
    ),
    Mutant(
        "kernel-point-releases-reversed",
        "lkmlkb/extract/kernel_versions.py",
        "        stable = rest[0] if rest else 0\n",
        "        stable = -rest[0] if rest else 0\n",
        ("tests/extract/test_kernel_versions.py",),
    ),
    Mutant(
        "kernel-rc-after-release",
        "lkmlkb/extract/kernel_versions.py",
        "    phase, rcnum = (0, int(rc)) if rc else (1, 0)\n",
        "    phase, rcnum = (2, int(rc)) if rc else (1, 0)\n",
        ("tests/extract/test_kernel_versions.py",),
    ),
    Mutant(
        "unlink-each-loop-kept",
        "lkmlkb/repro/policy.py",
        '    "unlink_each_loop": "would delete the target file after each loop",\n',
        "",
        ("tests/repro/test_safety.py", "tests/repro/test_policy.py"),
    ),
    Mutant(
        "boot-accepted-as-target",
        "lkmlkb/repro/safety.py",
        '    "/boot",\n',
        "",
        ("tests/repro/test_safety.py", "tests/repro/test_policy.py"),
    ),
    Mutant(
        "trimwrite-not-a-write",
        "lkmlkb/repro/safety.py",
        '"randtrim", "trimwrite", "randtrimwrite"',
        '"randtrim", "randtrimwrite"',
        ("tests/repro/test_safety.py", "tests/repro/test_policy.py"),
    ),
    Mutant(
        "shell-quotes-kept",
        "lkmlkb/fio/cmdline.py",
        "        raw = raw[1:-1]\n",
        "        pass\n",
        ("tests/fio/test_cmdline.py",),
    ),
    Mutant(
        "fts-quoted-text-raw",
        "lkmlkb/db/queries.py",
        "            toks = fts_tokens(chunk)\n",
        "            toks = chunk.split()\n",
        ("tests/db/test_queries.py",),
    ),
    Mutant(
        "budget-20s",
        "lkmlkb/extract/budget.py",
        "BUDGET_SECONDS = 2.0\n",
        "BUDGET_SECONDS = 20.0\n",
        ("tests/extract/test_budget.py",),
    ),
    Mutant(
        "reprocess-keeps-extraction",
        "lkmlkb/ingest/reprocess.py",
        "        drop_all_extraction(conn)\n",
        "        pass\n",
        ("tests/ingest/test_reprocess_replaces.py", "tests/ingest/test_retry_errors.py"),
    ),
    Mutant(
        "reprocess-thread-keeps-marks",
        "lkmlkb/ingest/reprocess.py",
        "        drop_extraction_marks(conn, thread_ids)\n",
        "        pass\n",
        ("tests/ingest/test_reprocess_replaces.py", "tests/ingest/test_retry_errors.py"),
    ),
    Mutant(
        "findings-not-replaced",
        "lkmlkb/db/findings.py",
        '            conn.execute(f"DELETE FROM {t} WHERE message_id IN ({marks})", chunk)\n',
        "            pass\n",
        ("tests/ingest/test_reprocess_replaces.py", "tests/ingest/test_retry_errors.py"),
    ),
    Mutant(
        "same-workload-any-robot-parameter",
        "lkmlkb/db/regressions.py",
        '    if robot:\n        return {ROBOT_WORKLOAD + " ".join(robot)}\n',
        "    if robot:\n        return values\n",
        ("tests/regressions/test_same_workload.py",),
    ),
    Mutant(
        "same-workload-robot-fio-job-too",
        "lkmlkb/db/regressions.py",
        '    if robot:\n        return {ROBOT_WORKLOAD + " ".join(robot)}\n',
        '    if robot:\n        return {ROBOT_WORKLOAD + " ".join(robot)} | {v for v in values if not v.startswith(ROBOT_WORKLOAD)}\n',
        ("tests/regressions/test_same_workload.py",),
    ),
    Mutant(
        "same-workload-later-too",
        "lkmlkb/db/regressions.py",
        "AND g.first_date < ? AND",
        "AND g.first_date != ? AND",
        ("tests/regressions/test_same_workload.py",),
    ),
    Mutant(
        "same-workload-none-listed",
        "lkmlkb/db/regressions.py",
        '    return {"workload": workload, "earlier": earlier[:limit]}\n',
        '    return {"workload": workload, "earlier": earlier[:0]}\n',
        ("tests/regressions/test_same_workload.py", "tests/web/test_regression_page.py"),
    ),
    Mutant(
        "first-release-highest",
        "lkmlkb/link/commits.py",
        "        return min(tags, key=lambda t: sort_key(t)) if tags else None\n",
        "        return max(tags, key=lambda t: sort_key(t)) if tags else None\n",
        ("tests/regressions/test_fix_release.py",),
    ),
    Mutant(
        "first-release-by-name",
        "lkmlkb/link/commits.py",
        "        return min(tags, key=lambda t: sort_key(t)) if tags else None\n",
        "        return min(tags) if tags else None\n",
        ("tests/regressions/test_fix_release.py",),
    ),
    Mutant(
        "first-release-by-name-rev",
        "lkmlkb/link/commits.py",
        "    tags = {sha: git.lowest_release_tag(sha) for sha in sorted({f.sha for f in found})}\n",
        "    tags = git.first_tags({f.sha for f in found}) if found else {}\n",
        ("tests/regressions/test_fix_release.py",),
    ),
    Mutant(
        "fix-commits-not-stored",
        "lkmlkb/link/commits.py",
        "        write_fix_commits(conn, summary.fixes)\n",
        "        pass\n",
        ("tests/regressions/test_fix_release.py", "tests/web/test_regression_page.py"),
    ),
    Mutant(
        "fix-commits-cited-ignored",
        "lkmlkb/link/commits.py",
        "        for sha, said in t.cited:\n",
        "        for sha, said in []:\n",
        ("tests/regressions/test_fix_release.py",),
    ),
    Mutant(
        "fix-commits-not-by-subject",
        "lkmlkb/link/commits.py",
        "        if not mine and t.subject and len(",
        "        if False and t.subject and len(",
        ("tests/regressions/test_fix_release.py",),
    ),
    Mutant(
        "fix-commits-of-proposed-patches",
        "lkmlkb/link/commits.py",
        "LANDING_PARTS = (K.APPLIED, K.REVERT)\n",
        "LANDING_PARTS = (K.APPLIED, K.REVERT, K.FIX_PROPOSED)\n",
        ("tests/regressions/test_fix_release.py",),
    ),
    Mutant(
        "release-on-every-event",
        "lkmlkb/db/regressions.py",
        'LANDING_EVENTS = ("fixed", "reverted")\n',
        'LANDING_EVENTS = ("fixed", "reverted", "fix proposed")\n',
        ("tests/regressions/test_fix_release.py", "tests/web/test_regression_page.py"),
    ),
    Mutant(
        "regression-page-threads-unlinked",
        "lkmlkb/web/templates/lkmlkb_regression.html",
        '{% if t.page %}<a href="{{ t.page }}">',
        '{% if false %}<a href="{{ t.page }}">',
        ("tests/web/test_browser.py", "tests/web/test_regression_page.py"),
    ),
    Mutant(
        "regression-page-timeline-undated",
        "lkmlkb/web/templates/lkmlkb_regression.html",
        '<span class="lkmlkb-date">{{ (e.date or "?")[:10] }}</span>',
        '<span class="lkmlkb-date">{{ e.date }}</span>',
        ("tests/web/test_browser.py",),
    ),
    Mutant(
        "report-page-regression-unlinked",
        "lkmlkb/web/templates/lkmlkb_report.html",
        'Part of the regression <a href="{{ regression.page }}">',
        'Part of the regression <a href="/-/lkmlkb/regressions.atom">',
        ("tests/web/test_browser.py", "tests/web/test_regression_page.py"),
    ),
]


def tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


def copy_tree(dest: Path, files: list[str]) -> None:
    for rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)


def run_tests(tree: Path, tmp: str, tests: tuple[str, ...], python: str, timeout: int) -> tuple[int, str]:
    """pytest's exit status and last line for ``tests`` run in ``tree``, which the tests import."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    # the copy must be what the tests import, or a mutant would look caught or not by accident
    where = subprocess.run(
        [python, "-c", "import lkmlkb; print(lkmlkb.__file__)"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not where.startswith(str(tree)):
        return -1, f"the tests would import {where or 'nothing'}, not the copy"
    argv = [python, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", "--no-header"]
    argv.append(f"--basetemp={Path(tmp) / 'pytest'}")  # removed with the copy
    try:
        proc = subprocess.run(
            [*argv, *tests], cwd=tree, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return -2, f"ran past {timeout}s"
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    failed = [x for x in lines if x.startswith(("FAILED ", "ERROR "))]
    return proc.returncode, "; ".join([*failed[:1], *lines[-1:]])


def in_copy(files: list[str], python: str, timeout: int, tests: tuple[str, ...], m: Mutant | None) -> str:
    """The verdict on ``m`` applied to a fresh copy of the tree (None: the unmutated copy)."""
    with tempfile.TemporaryDirectory(prefix="lkmlkb-mutant-") as tmp:
        Path(tmp).chmod(0o755)  # tests run commands as an unprivileged user, who must import the copy
        copy = Path(tmp) / "tree"
        try:
            copy_tree(copy, files)
        except OSError as e:
            return f"STALE: could not copy the tree: {e}"
        if (ROOT.parent / "shared").is_dir():  # the shared archive and scorer, beside the copy too
            (Path(tmp) / "shared").symlink_to((ROOT.parent / "shared").resolve())
        if m is not None:
            text = (ROOT / m.path).read_text(encoding="utf-8")
            if text.count(m.old) != 1:
                return f"STALE: the text to replace occurs {text.count(m.old)} times in {m.path}"
            (copy / m.path).write_text(text.replace(m.old, m.new), encoding="utf-8")
        rc, last = run_tests(copy, tmp, tests, python, timeout)
    if rc == 0:
        return "passed" if m is None else "NOT CAUGHT"
    if m is not None and (rc == 1 or rc == -2):
        return f"caught ({last})"
    return f"STALE: pytest exited {rc}: {last}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only mutants whose name holds this text")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--no-control", action="store_true", help="skip the run of the tests without a mutant")
    ap.add_argument("--timeout", type=int, default=900, help="seconds for one mutant's tests")
    args = ap.parse_args()
    chosen = [m for m in MUTANTS if args.k in m.name]
    if args.list:
        for m in chosen:
            print(f"{m.name:34} {m.path}  ->  {' '.join(m.tests)}")
        return 0
    venv_python = ROOT / ".venv" / "bin" / "python"
    python = str(venv_python) if venv_python.exists() else sys.executable
    files = tracked_files()
    if not args.no_control:
        # the named tests must pass on the unmutated tree, or a failure would prove nothing
        tests = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
        control = in_copy(files, python, args.timeout * 2, tests, None)
        print(f"{'(no mutant)':34} {control}", flush=True)
        if control != "passed":
            print("the named tests fail without a mutant: fix them first")
            return 2
    caught = 0
    for m in chosen:
        t0 = time.monotonic()
        verdict = in_copy(files, python, args.timeout, m.tests, m)
        caught += verdict.startswith("caught")
        print(f"{m.name:34} {verdict}  ({time.monotonic() - t0:.0f}s)", flush=True)
    print(f"score: {caught}/{len(chosen)} mutants caught")
    return 0 if caught == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
