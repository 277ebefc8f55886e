"""``lkmlkb ingest`` through click's CliRunner (lkmlkb.cli:main) and as a real process.

Inputs: the seed threads in corpus/ and trimmed real linux-block mail in
tests/fixtures/mail (origin in its README.md).
"""

from __future__ import annotations

import gzip
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lkmlkb.cli import main

ROOT = Path(__file__).resolve().parents[2]
MAIL = ROOT / "tests" / "fixtures" / "mail"
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
SUBJECT_000 = "[bug-report] Performance regression with fio sequential-write on a multipath setup."
SUBJECT_002 = "Performance regression in IO scheduler still there"

#: per seed: messages (author, address as shown, date_raw, subject) in dump order
SEEDS = {
    "000": [
        (
            "Harshit Mogalapalli",
            "harshit.m.mogalapalli@...cle.com",
            "Tue, 12 Mar 2024 15:47:44 +0530",
            "Re: 答复: " + SUBJECT_000,
        ),
        ("Harshit Mogalapalli", "harshit.m.mogalapalli@...cle.com", "2024年3月7日 2:46", SUBJECT_000),
    ],
    "001": [
        (
            "Ming Lei",
            "ming.lei@redhat.com",
            "",
            "Re: [bug report] shared tags causes IO hang and performance drop",
        )
    ],
    "002": [
        (n, a, "", SUBJECT_002 if i == 0 else "Re: " + SUBJECT_002)
        for i, (n, a) in enumerate(
            [
                ("Jan Kara", "ja...@suse.cz"),
                ("Jeff Moyer", "jmo...@redhat.com"),
                ("Jeff Moyer", "jmo...@redhat.com"),
                ("Corrado Zoccolo", "czoc...@gmail.com"),
                ("Jeff Moyer", "jmo...@redhat.com"),
                ("Corrado Zoccolo", "czoc...@gmail.com"),
                ("Jeff Moyer", "jmo...@redhat.com"),
                ("Corrado Zoccolo", "czoc...@gmail.com"),
                ("Jan Kara", "ja...@suse.cz"),
                ("Jan Kara", "ja...@suse.cz"),
                ("Jeff Moyer", "jmo...@redhat.com"),
                ("Jan Kara", "ja...@suse.cz"),
                ("Jeff Moyer", "jmo...@redhat.com"),
                ("Jens Axboe", "jens....@oracle.com"),
                ("Jens Axboe", "jens....@oracle.com"),
                ("Jan Kara", "ja...@suse.cz"),
                ("Jan Kara", "ja...@suse.cz"),
                ("Jeff Moyer", "jmo...@redhat.com"),
                ("Corrado Zoccolo", "czoc...@gmail.com"),
                ("Jan Kara", "ja...@suse.cz"),
            ]
        )
    ],
    "003": [
        (
            "Wang Yugui",
            "wangyugui@e16-tech.com",
            "",
            "[Cluster-devel] gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y",
        )
    ],
    "004": [
        ("Jayaramappa, Srilakshmi", "sjayaram@xxxxxxxxxx", "", "Re: Precise disk statistics"),
        ("Jayaramappa, Srilakshmi", "", "Friday, April 22, 2022 5:02 PM", "Precise disk statistics"),
    ],
}
#: the root each seed's thread is named by (its oldest message)
ROOT_SUBJECT = {
    "000": SUBJECT_000,
    "001": SEEDS["001"][0][3],
    "002": SUBJECT_002,
    "003": SEEDS["003"][0][3],
    "004": "Precise disk statistics",
}


def run(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def seed_rows(con: sqlite3.Connection, seed: str):
    return con.execute(
        "SELECT from_name, from_addr, date_raw, subject, thread_id FROM messages WHERE source LIKE ? "
        "ORDER BY CAST(substr(source, instr(source, '#') + 1) AS INTEGER)",
        (f"%/{seed}_%",),
    ).fetchall()


def check_seeds(db: Path) -> None:
    """The five seed dumps (corpus/ also holds raw mbox threads added later): 26 messages, 5 threads."""
    con = sqlite3.connect(db)
    seed_like = " OR ".join(f"source LIKE '%/{s}_%.txt#%'" for s in SEEDS)
    assert con.execute(f"SELECT count(*) FROM messages WHERE {seed_like}").fetchone()[0] == 26
    assert con.execute(f"SELECT count(DISTINCT thread_id) FROM messages WHERE {seed_like}").fetchone()[0] == 5
    for seed, expected in SEEDS.items():
        rows = seed_rows(con, seed)
        assert [r[:4] for r in rows] == expected, seed
        threads = {r[4] for r in rows}
        assert len(threads) == 1, seed
        count, subject = con.execute(
            "SELECT message_count, subject FROM threads WHERE thread_id=?", (threads.pop(),)
        ).fetchone()
        assert (count, subject) == (len(expected), ROOT_SUBJECT[seed]), seed
    dates = dict(
        con.execute(
            f"SELECT date_raw, date_utc FROM messages WHERE date_raw != '' AND ({seed_like})"
        ).fetchall()
    )
    assert dates == {
        "Tue, 12 Mar 2024 15:47:44 +0530": "2024-03-12T10:17:44+00:00",
        "2024年3月7日 2:46": "2024-03-07T02:46:00+00:00",
        "Friday, April 22, 2022 5:02 PM": "2022-04-22T17:02:00+00:00",
    }


def test_cli_ingest_corpus_one_thread_per_seed(tmp_path):
    db = tmp_path / "kb.db"
    r = run(["ingest", str(ROOT / "corpus"), "--db", str(db), "--no-extract", "--no-progress"])
    assert r.exit_code == 0, r.output
    con = sqlite3.connect(db)
    total = con.execute("SELECT count(*) FROM messages").fetchone()[0]
    copies = con.execute("SELECT count(*) FROM message_copies WHERE locator != 'first'").fetchone()[0]
    assert (
        r.output.strip()
        .splitlines()[-1]
        .startswith(f"{total} new, 0 unchanged, {copies} second deliveries, 0 errors")
    )
    check_seeds(db)
    before = con.execute("SELECT * FROM messages ORDER BY message_id").fetchall()
    # the same source again changes nothing; its mbox files are not read again (their cursors)
    in_mbox = con.execute("SELECT count(*) FROM message_copies WHERE source LIKE '%.mbox'").fetchone()[0]
    assert in_mbox > 0 and con.execute(
        "SELECT count(*) FROM source_state WHERE source LIKE 'mbox:%'"
    ).fetchone()[0] == len(list((ROOT / "corpus").glob("*.mbox")))
    r = run(["ingest", str(ROOT / "corpus"), "--db", str(db), "--no-extract", "--no-progress"])
    assert r.exit_code == 0
    assert (
        r.output.strip()
        .splitlines()[-1]
        .startswith(f"0 new, {total + copies - in_mbox} unchanged, 0 second deliveries, 0 errors")
    )
    assert con.execute("SELECT * FROM messages ORDER BY message_id").fetchall() == before
    check_seeds(db)


def test_cli_missing_path_exits_non_zero_with_one_line(tmp_path):
    missing = tmp_path / "no-such-archive.mbox"
    r = CliRunner().invoke(
        main, ["ingest", str(missing), "--db", str(tmp_path / "kb.db"), "--no-extract", "--no-progress"]
    )
    assert r.exit_code != 0
    err_lines = [ln for ln in r.output.splitlines() if ln.startswith("lkmlkb:")]
    assert err_lines == [f"lkmlkb: {missing}: no such file or directory"]
    assert "Traceback" not in r.output


def test_real_process_missing_path_prints_no_traceback(tmp_path):
    missing = tmp_path / "gone"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "lkmlkb.cli",
            "ingest",
            str(missing),
            "--db",
            str(tmp_path / "k.db"),
            "--no-extract",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode != 0
    assert "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines()[0] == f"lkmlkb: {missing}: no such file or directory"


def test_cli_binary_file_is_no_archive(tmp_path):
    blob = tmp_path / "disk.img"
    blob.write_bytes(bytes(range(256)) * 64)
    r = run(["ingest", str(blob), "--db", str(tmp_path / "kb.db"), "--no-extract", "--no-progress"])
    assert r.exit_code != 0
    assert f"lkmlkb: {blob}: binary file, not a mail archive" in r.output


def test_cli_folder_with_one_bad_file_exits_zero(tmp_path):
    folder = tmp_path / "mail"
    folder.mkdir()
    for name in ("nested_quotes.eml", "format_flowed.eml", "bug_report_original.eml"):
        (folder / name).write_bytes((MAIL / name).read_bytes())
    (folder / "broken.mbox.gz").write_bytes(gzip.compress((MAIL / "base64_body.eml").read_bytes())[:30])
    db = tmp_path / "kb.db"
    r = run(["ingest", str(folder), "--db", str(db), "--no-extract", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert r.output.strip().splitlines()[-1].startswith("3 new, 0 unchanged, 0 second deliveries, 1 errors")
    assert any(ln.startswith(f"lkmlkb: {folder / 'broken.mbox.gz'}:") for ln in r.output.splitlines())
    con = sqlite3.connect(db)
    assert (
        con.execute("SELECT count(*) FROM ingest_errors WHERE source LIKE '%broken.mbox.gz'").fetchone()[0]
        == 1
    )


def test_cli_truncated_gzip_keeps_what_was_read(tmp_path):
    # the first 300 entries of the real archive sample, gzipped, cut in half
    from itertools import islice

    from lkmlkb.sources.mbox import split_mbox

    with gzip.open(ARCHIVE) as fh:
        entries = list(islice(split_mbox(fh), 300))
    data = b"".join(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + e + b"\n" for e in entries)
    whole = gzip.compress(data, compresslevel=6)
    path = tmp_path / "cut.mbox.gz"
    path.write_bytes(whole[: len(whole) // 2])
    db = tmp_path / "kb.db"
    r = run(["ingest", str(path), "--db", str(db), "--no-extract", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert f"lkmlkb: {path}: truncated gzip (compressed stream ends early)" in r.output.splitlines()
    n = sqlite3.connect(db).execute("SELECT count(*) FROM messages").fetchone()[0]
    assert 100 < n < 300


def test_cli_newer_export_adds_only_what_is_new(tmp_path):
    names = ["bug_report_original.eml", "utf8_split_subject_dafu.eml", "re_dafu_reply.eml"]
    sep = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
    old = tmp_path / "old.mbox"
    old.write_bytes(b"".join(sep + (MAIL / n).read_bytes() + b"\n" for n in names[:2]))
    new = tmp_path / "new.mbox"
    new.write_bytes(b"".join(sep + (MAIL / n).read_bytes() + b"\n" for n in names))
    db = tmp_path / "kb.db"
    r = run(["ingest", str(old), "--db", str(db), "--no-extract", "--no-progress"])
    assert r.output.strip().splitlines()[-1].startswith("2 new, 0 unchanged")
    r = run(["ingest", str(new), "--db", str(db), "--no-extract", "--no-progress"])
    assert r.output.strip().splitlines()[-1].startswith("1 new, 2 unchanged, 0 second deliveries, 0 errors")
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*), count(DISTINCT thread_id) FROM messages").fetchone() == (3, 1)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_cli_workers_option(tmp_path, workers):
    db = tmp_path / "kb.db"
    r = run(["ingest", str(ROOT / "corpus"), "--db", str(db), "--no-extract", "--no-progress", "-j", workers])
    assert r.exit_code == 0
    check_seeds(db)
