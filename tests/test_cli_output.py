"""What ``reports``, ``show``, ``search`` and ``commit`` print to a terminal, on a knowledge
base built by the real CLI from a corpus thread whose subject and body carry escape sequences."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main

ROOT = Path(__file__).resolve().parent.parent
THREAD = ROOT / "corpus" / "000_a3585e8f2465c212.txt"
#: a title change, a screen clear, a bell, a C1 CSI and a DEL, as mail can carry them
HOSTILE = "\x1b]0;owned\x07\x1b[2J\x9b31m\x7f"
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture(scope="module")
def kb(tmp_path_factory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("hostile")
    text = THREAD.read_text(encoding="utf-8")
    text = text.replace("[bug-report] Performance", f"[bug-report] {HOSTILE}Performance")
    text = text.replace("the bisection points", f"the {HOSTILE}bisection points")
    mail = tmp / "thread.txt"
    mail.write_text(text, encoding="utf-8")
    db = tmp / "kb.db"
    r = CliRunner().invoke(main, ["ingest", str(mail), "--db", str(db), "-j", "1", "--no-progress"])
    assert r.exit_code == 0, r.output
    listed = CliRunner().invoke(main, ["reports", "--db", str(db)])
    (line,) = listed.output.splitlines()
    return db, line.split()[3]


def run(args: list[str]) -> str:
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    return r.output


def test_the_mail_really_holds_the_escapes(kb):
    db, rid = kb
    stored = json.loads(run(["show", rid, "--db", str(db), "--format", "json"]))
    assert HOSTILE in stored["title"]


@pytest.mark.parametrize(
    "args",
    [
        ["reports"],
        ["reports", "--all"],
        ["show", "{rid}"],
        ["show", "{rid}", "--format", "json"],
        ["search", "bisection"],
        ["search", "Performance regression"],
        ["commit", "d47f9717e5cf"],
    ],
)
def test_terminal_output_carries_no_control_characters(kb, args):
    db, rid = kb
    out = run([a.format(rid=rid) for a in args] + ["--db", str(db)])
    assert "owned" in out or "bisection" in out or "regression" in out.lower()
    assert not CONTROL_RE.search(out.replace("\n", "").replace("\t", "")), repr(out[:300])


def test_search_shows_the_id_show_takes(kb):
    db, rid = kb
    out = run(["search", "multipath", "--db", str(db)])
    ids = {line.split()[2] for line in out.splitlines() if line.startswith(("report ", "message "))}
    assert rid in ids
    assert "Performance regression" in run(["show", rid, "--db", str(db)])


def test_commit_shows_good_and_bad_kernels_beside_the_numbers(kb):
    db, rid = kb
    (line,) = run(["commit", "d47f9717e5cf", "--db", str(db)]).splitlines()
    assert rid in line
    assert re.search(r"315 -> 236 MiB/s +33\.65% +\(good 5\.15\.y, bad 6\.6\)", line), line


def test_show_folds_percentile_lists(kb):
    db, rid = kb
    out = run(["show", rid, "--db", str(db)])
    assert "clat_p" not in out and "sync_p" not in out
    folded = [ln for ln in out.splitlines() if "clat percentiles write [regressed] (msec): p1=986" in ln]
    assert len(folded) == 1 and len(folded[0]) <= 100
    assert "p99.99=4329" in out
    assert re.search(r"bw write = 236 MiB/s \[regressed\]", out)


def test_help_documents_exit_codes():
    out = run(["--help"])
    assert re.search(r"Exit codes:\n +0 +done\n +1 +ran, but found or read nothing", out), out
    assert re.search(r"\n +2 +bad input or usage", out)
