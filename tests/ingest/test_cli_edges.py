"""Edges of ``lkmlkb ingest`` and ``--db``: each is one line naming the input, with no
traceback, and nothing is created or changed that was not asked for."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main

ROOT = Path(__file__).resolve().parents[2]
MBOX = ROOT / "corpus" / "102_multipath_seqwrite_raw.mbox"


def invoke(args: list[str]):
    return CliRunner().invoke(main, args)


def one_error_line(output: str) -> str:
    lines = [ln for ln in output.splitlines() if ln.startswith("lkmlkb:")]
    assert len(lines) == 1 and "Traceback" not in output, output
    return lines[0]


def lkmlkb(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lkmlkb.cli", *args], capture_output=True, timeout=120, **kw)


def message_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as con:
        return sorted(r[0] for r in con.execute("SELECT message_id FROM messages"))


@pytest.mark.parametrize("source", ["-", "/dev/stdin"])
def test_ingest_reads_a_pipe_as_an_mbox_stream(tmp_path, source):
    db = tmp_path / "kb.db"
    with MBOX.open("rb") as fh:
        piped = subprocess.Popen(["cat"], stdin=fh, stdout=subprocess.PIPE)
        p = lkmlkb(["ingest", source, "--db", str(db), "--no-extract", "--no-progress"], stdin=piped.stdout)
        piped.wait()
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().startswith("4 new,")
    direct = tmp_path / "direct.db"
    assert invoke(["ingest", str(MBOX), "--db", str(direct), "--no-extract", "--no-progress"]).exit_code == 0
    assert message_ids(db) == message_ids(direct)
    with sqlite3.connect(db) as con:  # a stream keeps no cursor
        assert con.execute("SELECT count(*) FROM source_state").fetchone()[0] == 0


def test_an_empty_stream_is_named_in_its_error(tmp_path):
    db = tmp_path / "kb.db"
    p = lkmlkb(["ingest", "-", "--db", str(db), "--no-progress"], stdin=subprocess.DEVNULL)
    assert p.returncode == 1
    assert p.stderr.decode().splitlines() == ["lkmlkb: -: empty file"]
    assert not db.exists()


@pytest.mark.parametrize("j", ["0", "-3", "100000"])
def test_workers_out_of_range_are_one_line(tmp_path, j):
    db = tmp_path / "kb.db"
    r = invoke(["ingest", str(MBOX), "--db", str(db), "-j", j, "--no-progress"])
    assert r.exit_code == 2
    line = one_error_line(r.output)
    assert line.startswith(f"lkmlkb: -j {j}: give 1 to {4 * (os.cpu_count() or 1)} worker processes")
    assert not db.exists()


def test_foreign_sqlite_database_is_refused_and_left_as_it_was(tmp_path):
    db = tmp_path / "app.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE accounts(name TEXT)")
        con.execute("INSERT INTO accounts VALUES ('alice')")
    before = db.read_bytes()
    for args in (
        ["ingest", str(MBOX), "--db", str(db), "--no-extract", "--no-progress"],
        ["reports", "--db", str(db)],
        ["search", "write", "--db", str(db)],
        ["reprocess", "--db", str(db)],
    ):
        r = invoke(args)
        assert r.exit_code == 2, args
        assert one_error_line(r.output) == (
            f"lkmlkb: {db}: a SQLite database that is not an lkmlkb knowledge base (tables accounts)"
        )
    assert db.read_bytes() == before
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["accounts"]


def test_missing_source_leaves_no_database(tmp_path):
    db = tmp_path / "kb.db"
    missing = tmp_path / "no-such.mbox"
    r = invoke(["ingest", str(missing), str(MBOX), "--db", str(db), "--no-progress"])
    assert r.exit_code == 2
    assert one_error_line(r.output) == f"lkmlkb: {missing}: no such file or directory"
    assert list(tmp_path.iterdir()) == []


def test_bare_message_id_is_no_lore_fetch(tmp_path):
    db = tmp_path / "kb.db"
    r = invoke(["ingest", "foo@bar", "--db", str(db), "--no-progress"])
    assert r.exit_code == 2
    assert one_error_line(r.output) == (
        "lkmlkb: foo@bar: no such file or directory (to fetch a message from lore, write lore:foo@bar)"
    )
    assert not db.exists()


def test_git_repository_that_is_no_public_inbox_is_an_error(tmp_path):
    repo = tmp_path / "code"
    repo.mkdir()
    (repo / "main.c").write_text("int main(void) { return 0; }\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
    }
    for cmd in (["init", "-q"], ["add", "main.c"], ["commit", "-qm", "code"]):
        subprocess.run(["git", "-C", str(repo), *cmd], check=True, env=env)
    db = tmp_path / "kb.db"
    r = invoke(["ingest", str(repo), "--db", str(db), "--no-progress"])
    assert r.exit_code == 1
    assert one_error_line(r.output) == (
        f"lkmlkb: {repo}: a git repository, but not a public-inbox archive (no message file m)"
    )
    assert not db.exists()


def test_folder_without_mail_is_an_error_and_leaves_no_database(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "README.md").write_text("# notes\n")
    (folder / ".hidden").write_text("x\n")
    db = tmp_path / "kb.db"
    r = invoke(["ingest", str(folder), "--db", str(db), "--no-progress"])
    assert r.exit_code == 1
    assert one_error_line(r.output).startswith(f"lkmlkb: {folder}: folder holds no mail")
    assert not db.exists()


def test_a_run_that_reads_nothing_keeps_an_existing_database(tmp_path):
    db = tmp_path / "kb.db"
    assert invoke(["ingest", str(MBOX), "--db", str(db), "--no-extract", "--no-progress"]).exit_code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    r = invoke(["ingest", str(empty), "--db", str(db), "--no-progress"])
    assert r.exit_code == 1
    assert len(message_ids(db)) == 4
