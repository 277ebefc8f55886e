"""public-inbox v2 git archives built with real git from the real archive sample.

The repositories are written with ``git fast-import`` in lore's layout
(public-inbox-v2-format): one commit per message whose tree holds only ``m``
(the raw message), author and date from the message, the subject as commit
message, and a ``d`` commit for a deletion.  The messages are the first
entries of ../shared/archives/linux-block-2024q1.mboxrd.gz.
"""

from __future__ import annotations

import email.utils
import gzip
import shutil
import sqlite3
import subprocess
from itertools import islice
from pathlib import Path

import pytest

from lkmlkb.errors import GitError, LkmlkbError
from lkmlkb.ingest.run import ingest
from lkmlkb.sources import iter_source
from lkmlkb.sources.public_inbox import find_epochs, iter_epoch, list_name_of

ROOT = Path(__file__).resolve().parent.parent.parent
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(scope="module")
def entries() -> list[bytes]:
    from lkmlkb.sources.mbox import split_mbox

    with gzip.open(ARCHIVE) as fh:
        return list(islice(split_mbox(fh), 220))


def _ident(raw: bytes) -> tuple[str, str]:
    """``Name <addr> <epoch> <zone>`` of the message's From and Date, as public-inbox writes authors."""
    head = raw.split(b"\n\n", 1)[0].decode("utf-8", "replace")
    msg = email.message_from_string(head)
    name, addr = email.utils.parseaddr(str(msg.get("From", "")))
    name = (name or addr or "unknown").replace("<", "").replace(">", "").replace("\n", " ")
    dt = email.utils.parsedate_to_datetime(str(msg.get("Date"))) if msg.get("Date") else None
    when = f"{int(dt.timestamp())} +0000" if dt else "0 +0000"
    subject = " ".join(str(msg.get("Subject", "")).split()) or "(no subject)"
    return f"{name} <{addr or 'unknown@unknown'}> {when}", subject


def _data(b: bytes) -> bytes:
    return b"data %d\n" % len(b) + b + b"\n"


def fast_import(
    repo: Path, messages: list[bytes], delete_after: int | None = None, object_format: str = "sha1"
) -> None:
    """Append one commit per message to ``repo`` (created bare if new, with ``object_format``'s
    ids); optionally a ``d`` commit."""
    new = not repo.exists()
    if new:
        subprocess.run(
            ["git", "init", "-q", "--bare", f"--object-format={object_format}", str(repo)], check=True
        )
    stream = b""
    # within one stream a branch's commits chain by themselves; only the first
    # commit appended to an existing repository names its parent
    continue_from = not new
    for n, raw in enumerate(messages):
        author, subject = _ident(raw)
        stream += b"commit refs/heads/master\n"
        stream += f"author {author}\n".encode()
        stream += b"committer linux-block <linux-block@vger.kernel.org> 1711929600 +0000\n"
        stream += _data(subject.encode("utf-8"))
        if continue_from:
            stream += b"from refs/heads/master^0\n"
            continue_from = False
        stream += b"D d\n" + b"M 100644 inline m\n" + _data(raw)
        if delete_after is not None and n == delete_after:
            # public-inbox's purge/rm: the tree holds "d" (the removed message), no "m"
            stream += b"commit refs/heads/master\n"
            stream += b"author linux-block <linux-block@vger.kernel.org> 1711929600 +0000\n"
            stream += b"committer linux-block <linux-block@vger.kernel.org> 1711929600 +0000\n"
            stream += _data(b"rm")
            stream += b"D m\n" + b"M 100644 inline d\n" + _data(raw)
    subprocess.run(["git", "--git-dir", str(repo), "fast-import", "--quiet"], input=stream, check=True)
    subprocess.run(["git", "--git-dir", str(repo), "symbolic-ref", "HEAD", "refs/heads/master"], check=True)


def mbox_file(path: Path, messages: list[bytes]) -> Path:
    import re

    path.write_bytes(b"".join(SEP + re.sub(rb"(?m)^(>*From )", rb">\1", m) + b"\n" for m in messages))
    return path


def message_rows(db: Path) -> list[tuple]:
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(messages)") if r[1] != "source"]
    return con.execute(
        f"SELECT {','.join(repr(c) for c in cols)} FROM messages ORDER BY message_id"
    ).fetchall()


def test_repository_layout_is_public_inbox_v2(tmp_path, entries):
    repo = tmp_path / "0.git"
    fast_import(repo, entries[:5], delete_after=2)
    log = subprocess.run(
        [
            "git",
            "--git-dir",
            str(repo),
            "log",
            "--reverse",
            "--format=%an|%s",
            "--name-status",
            "--no-renames",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert log.count("\nA\tm") + log.count("\nM\tm") >= 4
    assert "A\td" in log and "D\tm" in log  # the deletion commit
    (tree,) = {
        subprocess.run(
            ["git", "--git-dir", str(repo), "ls-tree", "--name-only", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    }
    assert tree == "m"


def test_git_ingest_equals_mbox_ingest_then_reads_only_new_commits(tmp_path, entries):
    first, more = entries[:200], entries[200:220]
    repo = tmp_path / "0.git"
    fast_import(repo, first, delete_after=100)
    pi_db, mbox_db = tmp_path / "pi.db", tmp_path / "mbox.db"
    s = ingest([str(repo)], str(pi_db))
    m = ingest([str(mbox_file(tmp_path / "same.mbox", first))], str(mbox_db))
    assert s.read == m.read == 200  # the "d" commit is no message
    assert (s.new, s.copies, s.errors) == (m.new, m.copies, 0)
    assert s.errors == 0 and s.new > 190
    assert message_rows(pi_db) == message_rows(mbox_db)
    sources = {r[0] for r in sqlite3.connect(pi_db).execute("SELECT source FROM messages")}
    assert all(src.startswith(f"{repo}@") for src in sources)
    # the cursor is the last commit read
    head = subprocess.run(
        ["git", "--git-dir", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (cursor,) = sqlite3.connect(pi_db).execute("SELECT cursor FROM source_state").fetchone()
    assert cursor == head

    # 20 more commits: the second run reads those and nothing else
    fast_import(repo, more)
    s2 = ingest([str(repo)], str(pi_db))
    assert (s2.read, s2.unchanged, s2.errors) == (20, 0, 0)
    assert s2.new + s2.copies == 20
    ingest([str(mbox_file(tmp_path / "grown.mbox", first + more))], str(mbox_db))
    assert message_rows(pi_db) == message_rows(mbox_db)

    # an unchanged repository: nothing is read
    s3 = ingest([str(repo)], str(pi_db))
    assert (s3.read, s3.new, s3.unchanged, s3.errors) == (0, 0, 0, 0)


def test_iter_epoch_since_reads_only_later_commits(tmp_path, entries):
    repo = tmp_path / "0.git"
    fast_import(repo, entries[:10])
    all_items = list(iter_epoch(repo))
    assert [i.raw for i in all_items] == entries[:10]
    later = list(iter_epoch(repo, since=all_items[6].locator))
    assert [i.raw for i in later] == entries[7:10]
    assert list(iter_epoch(repo, since=all_items[-1].locator)) == []


def test_rewritten_history_reads_the_whole_epoch_again(tmp_path, entries):
    repo = tmp_path / "0.git"
    fast_import(repo, entries[:5])
    old_head = list(iter_epoch(repo))[-1].locator
    shutil.rmtree(repo)
    fast_import(repo, entries[1:6])  # a purge rewrote history: the old cursor is no ancestor
    again = list(iter_epoch(repo, since=old_head))
    assert [i.raw for i in again] == entries[1:6]


def test_inbox_folder_with_two_epochs(tmp_path, entries):
    inbox = tmp_path / "linux-block.vger.kernel.org"
    (inbox / "git").mkdir(parents=True)
    fast_import(inbox / "git" / "0.git", entries[:30])
    fast_import(inbox / "git" / "1.git", entries[30:50])
    (inbox / "git" / "notes").mkdir()  # not an epoch
    assert [p.name for p in find_epochs(inbox)] == ["0.git", "1.git"]
    items = list(iter_source(str(inbox)))
    assert [i.raw for i in items] == entries[:50]
    db = tmp_path / "kb.db"
    s = ingest([str(inbox)], str(db))
    assert s.read == 50 and s.errors == 0
    cursors = sqlite3.connect(db).execute("SELECT source FROM source_state ORDER BY source").fetchall()
    assert [Path(c[0].split(":", 1)[1]).name for c in cursors] == ["0.git", "1.git"]
    fast_import(inbox / "git" / "1.git", entries[50:53])
    s2 = ingest([str(inbox)], str(db))
    assert s2.read == 3


def test_list_name_from_grokmirror_folder_name():
    assert list_name_of(Path("/srv/linux-block.vger.kernel.org.0")) == ["linux-block.vger.kernel.org"]
    assert list_name_of(Path("/srv/0.git")) == []


def test_empty_and_broken_repositories(tmp_path):
    empty = tmp_path / "0.git"
    subprocess.run(["git", "init", "-q", "--bare", str(empty)], check=True)
    assert list(iter_epoch(empty)) == []
    broken = tmp_path / "broken" / "0.git"
    broken.mkdir(parents=True)
    (broken / "HEAD").write_text("ref: refs/heads/master\n")
    (broken / "objects").mkdir()
    try:
        items = list(iter_source(str(broken)))
    except LkmlkbError as exc:
        assert isinstance(exc, GitError | LkmlkbError) and "\n" not in str(exc)
    else:
        assert items == []


def _drop_object(repo: Path, sha: str) -> None:
    """Remove object ``sha`` from ``repo``: what a partial or damaged clone looks like."""
    git = ["git", "--git-dir", str(repo)]
    loose = repo / "objects" / sha[:2] / sha[2:]
    if loose.exists():
        loose.unlink()
    else:  # packed: write the pack again without it
        listed = subprocess.run(
            git + ["rev-list", "--objects", "--all"], capture_output=True, text=True, check=True
        ).stdout.split("\n")
        keep = "".join(line.split(" ")[0] + "\n" for line in listed if line and not line.startswith(sha))
        packs = repo / "objects" / "pack"
        old = list(packs.iterdir())
        subprocess.run(
            git + ["pack-objects", "-q", str(packs / "pack")],
            input=keep.encode(),
            check=True,
            capture_output=True,
        )
        for f in old:
            f.unlink()
    assert subprocess.run(git + ["cat-file", "-e", sha], capture_output=True).returncode != 0


def _drop_message(repo: Path, k: int) -> tuple[list[str], str]:
    """Remove the blob of the ``k``th message of ``repo``: (every commit, in order; that blob)."""
    commits = subprocess.run(
        ["git", "--git-dir", str(repo), "rev-list", "--reverse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    blob = subprocess.run(
        ["git", "--git-dir", str(repo), "rev-parse", f"{commits[k]}:m"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    _drop_object(repo, blob)
    return commits, blob


def test_a_missing_message_blob_is_an_error_for_that_message_not_the_epoch(tmp_path, entries):
    """A clone without one message's blob (the mirror of io-uring this project reads has one):
    every other message of the epoch is read, the missing one is recorded with its commit, and
    once the object is back ``retry_errors`` (``lkmlkb reprocess``) reads it."""
    from lkmlkb.ingest.reprocess import retry_errors
    from lkmlkb.sources.base import RawMail, SourceFailure

    msgs = entries[:30]
    repo = tmp_path / "0.git"
    fast_import(repo, msgs)
    commits, blob = _drop_message(repo, 10)

    items = list(iter_epoch(repo))
    assert [i.raw for i in items if isinstance(i, RawMail)] == msgs[:10] + msgs[11:]
    (failure,) = [i for i in items if isinstance(i, SourceFailure)]
    assert items.index(failure) == 10 and failure.locator == commits[10]
    assert (
        blob[:12] in failure.exc.reason
        and commits[10][:12] in str(failure.exc)
        and "\n" not in str(failure.exc)
    )

    db = tmp_path / "kb.db"
    s = ingest([str(repo)], str(db))
    assert (s.read, s.errors) == (29, 1)
    without = tmp_path / "without.db"
    ingest([str(mbox_file(tmp_path / "without.mbox", msgs[:10] + msgs[11:]))], str(without))
    assert message_rows(db) == message_rows(without)
    con = sqlite3.connect(db)
    assert con.execute("SELECT stage, locator FROM ingest_errors").fetchall() == [("read", commits[10])]
    assert con.execute("SELECT cursor FROM source_state").fetchone() == (commits[-1],)

    # the object comes back (the clone repaired): reprocess reads the message from its commit
    assert retry_errors(str(db)) == (0, 1)  # still missing: kept, still failing
    subprocess.run(
        ["git", "--git-dir", str(repo), "hash-object", "-w", "--stdin"],
        input=msgs[10],
        check=True,
        capture_output=True,
    )
    assert retry_errors(str(db)) == (1, 0)
    whole = tmp_path / "whole.db"
    ingest([str(mbox_file(tmp_path / "whole.mbox", msgs))], str(whole))
    assert message_rows(db) == message_rows(whole)
    assert con.execute("SELECT resolved FROM ingest_errors").fetchall() == [(1,)]
    assert retry_errors(str(db)) == (0, 0)


def test_a_cat_file_that_dies_stops_the_epoch_with_one_error(tmp_path, entries, monkeypatch):
    """Not a missing object but git itself gone: one clear error, not one per remaining message."""
    import lkmlkb.sources.public_inbox as pi

    repo = tmp_path / "0.git"
    fast_import(repo, entries[:5])
    real_popen = subprocess.Popen

    def popen(args, **kw):
        if "cat-file" in args:
            args = ["sh", "-c", "read line; exit 0"]  # answers nothing and exits
        return real_popen(args, **kw)

    monkeypatch.setattr(pi.subprocess, "Popen", popen)
    with pytest.raises(GitError) as err:
        list(iter_epoch(repo))
    assert "cat-file" in str(err.value) and "\n" not in str(err.value)


def test_a_message_blob_over_the_size_limit_is_an_error_and_the_epoch_goes_on(tmp_path, entries, monkeypatch):
    from lkmlkb.ingest.reprocess import retry_errors
    from lkmlkb.sources import base
    from lkmlkb.sources.base import RawMail, SourceFailure

    msgs = entries[:30]
    repo = tmp_path / "0.git"
    fast_import(repo, msgs)
    limit = sorted(map(len, msgs))[-3]  # the two largest are over it
    monkeypatch.setattr(base, "MAX_MESSAGE_BYTES", limit)
    items = list(iter_epoch(repo))
    assert [i.raw for i in items if isinstance(i, RawMail)] == [m for m in msgs if len(m) <= limit]
    failures = [i for i in items if isinstance(i, SourceFailure)]
    assert len(failures) == 2 and all("limit (not stored)" in f.exc.reason for f in failures)
    db = tmp_path / "kb.db"
    s = ingest([str(repo)], str(db))
    assert (s.read, s.errors) == (28, 2)
    assert retry_errors(str(db)) == (0, 2)  # still over the limit: still failing
    monkeypatch.setattr(base, "MAX_MESSAGE_BYTES", 10 * limit)  # the limit raised: reprocess reads them
    assert retry_errors(str(db)) == (2, 0)
    whole = tmp_path / "whole.db"
    ingest([str(mbox_file(tmp_path / "whole.mbox", msgs))], str(whole))
    assert message_rows(db) == message_rows(whole)


def test_a_message_that_fails_at_the_epochs_end_is_not_read_again(tmp_path, entries):
    """The epoch's cursor moves past a message recorded as an error (its blob missing; once the
    clone is repaired ``lkmlkb reprocess`` reads it): a re-run reads nothing and records
    nothing again."""
    msgs = entries[:12]
    repo = tmp_path / "0.git"
    fast_import(repo, msgs)
    commits, _ = _drop_message(repo, 11)
    db = tmp_path / "kb.db"
    first = ingest([str(repo)], str(db))
    assert (first.read, first.new, first.errors) == (11, 11, 1)
    again = ingest([str(repo)], str(db))
    assert (again.read, again.new, again.errors) == (0, 0, 0)
    con = sqlite3.connect(db)
    assert con.execute("SELECT locator FROM ingest_errors").fetchall() == [(commits[11],)]
    assert con.execute("SELECT cursor FROM source_state").fetchall() == [(commits[11],)]


@pytest.mark.parametrize("ahead", [1, 7, 128])
def test_blobs_asked_for_in_batches_come_back_in_commit_order(tmp_path, entries, monkeypatch, ahead):
    """``git cat-file`` is asked for CAT_AHEAD blobs at a time; whatever the batch, every message
    comes back in commit order, a missing blob and one over the size limit in their places."""
    import lkmlkb.sources.public_inbox as pi
    from lkmlkb.sources import base
    from lkmlkb.sources.base import RawMail, SourceFailure

    msgs = entries[:40]
    repo = tmp_path / "0.git"
    fast_import(repo, msgs)
    commits, _ = _drop_message(repo, 8)
    big = max(range(len(msgs)), key=lambda k: len(msgs[k]) if k != 8 else -1)
    monkeypatch.setattr(base, "MAX_MESSAGE_BYTES", len(msgs[big]) - 1)
    monkeypatch.setattr(pi, "CAT_AHEAD", ahead)
    items = list(iter_epoch(repo))
    assert [i.locator for i in items] == commits
    assert [type(i) for i in items] == [SourceFailure if k in (8, big) else RawMail for k in range(len(msgs))]
    assert [i.raw for i in items if isinstance(i, RawMail)] == [
        m for k, m in enumerate(msgs) if k not in (8, big)
    ]
    assert "missing" in items[8].exc.reason and "limit" in items[big].exc.reason


def test_a_reader_that_stops_early_leaves_no_git_waiting(tmp_path, entries):
    """Stopping after the first message, with the rest of a batch still on its way (more than a
    pipe holds), ends git at once: closing the generator does not wait on a blocked writer."""
    import threading

    repo = tmp_path / "0.git"
    fast_import(repo, entries[:200])
    gen = iter_epoch(repo)
    next(gen)
    closer = threading.Thread(target=gen.close, daemon=True)
    closer.start()
    closer.join(20)
    assert not closer.is_alive()


def test_blob_ids_asked_at_once_fit_a_one_page_pipe(tmp_path, entries, monkeypatch):
    """Linux gives a user past its pipe-buffer quota pipes of one page: a batch of 128 SHA-256 ids
    (8,320 bytes) would wait on git, which waits for its answers to be read.  The ids of one
    write stay within CAT_WRITE_BYTES, so a SHA-256 epoch reads through one-page pipes."""
    import threading

    import lkmlkb.sources.public_inbox as pi
    from lkmlkb.sources.base import RawMail

    repo = tmp_path / "0.git"
    fast_import(repo, entries[:150], object_format="sha256")
    real_popen = subprocess.Popen

    def popen(args, **kw):
        if "cat-file" in args:
            kw["pipesize"] = 4096
        return real_popen(args, **kw)

    monkeypatch.setattr(pi.subprocess, "Popen", popen)
    got = []
    reader = threading.Thread(target=lambda: got.extend(iter_epoch(repo)), daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive()
    assert [i.raw for i in got if isinstance(i, RawMail)] == entries[:150]
    assert len(got[7].locator) == 64 and pi.read_message_at(got[7].source, got[7].locator) == entries[7]


def test_an_object_git_cuts_short_is_an_error_not_a_short_message(tmp_path):
    """git answering with fewer bytes than the object's size (it died mid-object): one clear
    error, not a message cut short."""
    import io

    from lkmlkb.sources.public_inbox import _cat_blob

    class Cat:
        stdout = io.BytesIO(b"%s blob 100\n" % (b"a" * 40) + b"x" * 50)

    with pytest.raises(GitError) as err:
        _cat_blob(Cat(), "a" * 40, tmp_path)
    assert "stopped answering" in str(err.value) and "\n" not in str(err.value)
