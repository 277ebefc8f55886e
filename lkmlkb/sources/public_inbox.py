"""public-inbox v2 git archives (lore's layout): epochs ``N.git``, one commit per message.

Each commit's tree holds one file: ``m`` (the raw message) or ``d`` (a
deletion).  Reading streams two git processes for a whole epoch, never one
per message: ``git log --raw`` names each commit's blob, and one
``git cat-file --batch`` hands the blobs back, asked for many at a time.  The last commit read per
epoch is remembered by the store, so the next run reads only newer commits;
if history was rewritten (a purge), the whole epoch is read again, which is
harmless because every write is keyed by Message-ID.
"""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO, AnyStr

from lkmlkb.errors import GitError
from lkmlkb.sources import base
from lkmlkb.sources.base import Oversized, RawMail, SourceFailure, oversized

log = logging.getLogger(__name__)

EPOCH_DIR = re.compile(r"^(\d{1,4})\.git$")
RAW_LINE = re.compile(
    r"^:\d{6} \d{6} [0-9a-f]{7,64} (?P<blob>[0-9a-f]{7,64}) (?P<status>[A-Z])\d{0,3}\t(?P<path>.+)$"
)


def is_git_repo(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() or (path / ".git").exists()


def find_epochs(path: Path) -> list[Path]:
    """The epoch repositories of an inbox, oldest first, or [path] for one epoch."""
    if is_git_repo(path):
        return [path]
    git_dir = path / "git" if (path / "git").is_dir() else path
    epochs = []
    for child in git_dir.iterdir() if git_dir.is_dir() else []:
        m = EPOCH_DIR.match(child.name)
        if m and child.is_dir() and is_git_repo(child):
            epochs.append((int(m.group(1)), child))
    return [p for _, p in sorted(epochs)]


def holds_messages(repo: Path) -> bool:
    """True when the head commit of ``repo`` holds a public-inbox message file (``m``, or ``d``
    for a deletion): a repository of code or anything else does not."""
    try:
        names = _git(repo, "ls-tree", "--name-only", "HEAD")
    except GitError:
        return False
    return "m" in names or "d" in names


def looks_like_public_inbox(path: Path) -> bool:
    return path.is_dir() and bool(find_epochs(path))


def _git(repo: Path, *args: str) -> list[str]:
    try:
        out = subprocess.run(
            ["git", "--git-dir", str(_git_dir(repo)), *args], capture_output=True, text=True, check=False
        )
    except FileNotFoundError as exc:
        raise GitError(str(repo), "git is not installed") from exc
    if out.returncode != 0:
        raise GitError(str(repo), (out.stderr.strip().splitlines() or ["git failed"])[-1])
    return out.stdout.splitlines()


def _git_dir(repo: Path) -> Path:
    return repo / ".git" if (repo / ".git").exists() else repo


def head_commit(repo: Path) -> str | None:
    try:
        lines = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD")
    except GitError:
        return None
    return lines[0] if lines else None


def is_ancestor(repo: Path, commit: str) -> bool:
    r = subprocess.run(
        ["git", "--git-dir", str(_git_dir(repo)), "merge-base", "--is-ancestor", commit, "HEAD"],
        capture_output=True,
        check=False,
    )
    return r.returncode == 0


def iter_epoch(
    repo: Path, since: str | None = None, lists: list[str] | None = None
) -> Iterator[RawMail | SourceFailure]:
    """Messages of one epoch in commit order, after commit ``since`` if given.

    ``RawMail.locator`` is the commit id, which the store keeps as the
    epoch's cursor.
    """
    head = head_commit(repo)
    if head is None:
        return
    rng = "HEAD"
    if since:
        if since == head:
            return
        if is_ancestor(repo, since):
            rng = f"{since}..HEAD"
        else:
            log.info("%s: history rewritten since %s; reading the whole epoch", repo, since[:12])
    log_proc = subprocess.Popen(
        [
            "git",
            "--git-dir",
            str(_git_dir(repo)),
            "log",
            "--reverse",
            "--format=C %H",
            "--raw",
            "--no-abbrev",
            "--no-renames",
            rng,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cat = subprocess.Popen(
        ["git", "--git-dir", str(_git_dir(repo)), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=CAT_BUFFER,
    )
    source = str(repo)
    try:
        for commit, blob, raw in _cat_blobs(cat, _message_blobs(_pipe(log_proc.stdout), repo), repo):
            where = f"{source}@{commit[:12]}"
            if isinstance(raw, Oversized):
                yield SourceFailure(oversized(where, raw.size, f"commit {commit[:12]}"), commit, commit)
            elif raw is None:  # a partial or damaged clone: that message is an error, the epoch goes on
                yield SourceFailure(
                    GitError(where, f"message blob {blob[:12]} of commit {commit[:12]} is missing"),
                    commit,
                    commit,
                )
            else:
                yield RawMail(raw, where, list(lists or []), commit, cursor=commit)
    finally:
        if cat.stdin:
            try:
                cat.stdin.close()
            except OSError:  # git is gone; what it was sent is moot
                pass
        _pipe(cat.stdout).close()  # objects asked for and not read: git stops on the closed pipe
        cat.wait()
        _pipe(log_proc.stdout).close()
        log_proc.wait()
        failed = log_proc.returncode not in (0, None, -13)
        err = _pipe(log_proc.stderr).read().strip() if failed else ""
        _pipe(log_proc.stderr).close()
    if failed:
        raise GitError(source, err.splitlines()[-1] if err else f"git log failed ({log_proc.returncode})")


def read_message_at(source: str, commit: str) -> bytes:
    """The raw message that ``commit`` added, ``source`` being what :func:`iter_epoch` recorded
    (``EPOCH@COMMIT``): how ``lkmlkb reprocess`` reads again a message whose object was missing."""
    repo = Path(source.rsplit("@", 1)[0])
    if (
        not re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", commit or "") or not repo.is_dir()
    ):  # SHA-1 or SHA-256
        raise GitError(source, "not a message of a public-inbox epoch")
    git = ["git", "--git-dir", str(_git_dir(repo)), "cat-file"]
    r = subprocess.run([*git, "-s", f"{commit}:m"], capture_output=True, check=False)
    if r.returncode == 0 and int(r.stdout or 0) > base.MAX_MESSAGE_BYTES:
        raise oversized(source, int(r.stdout), f"commit {commit[:12]}")
    r = subprocess.run([*git, "blob", f"{commit}:m"], capture_output=True, check=False)
    if r.returncode != 0:
        err = r.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(
            source, f"message of commit {commit[:12]} still unreadable ({err[-1] if err else 'git failed'})"
        )
    return r.stdout


#: blobs asked of ``git cat-file --batch`` at once, in one write; git streams the objects back
#: while they are read, instead of a round trip per message (which doubles the time an epoch
#: takes to read)
CAT_AHEAD = 128
#: ... and at most this many bytes of ids: what a pipe holds whatever its size (one page,
#: as Linux gives a user past its pipe-buffer quota), so the write never waits on git, which
#: may be waiting for its answers to be read (99 SHA-1 ids, 63 SHA-256 ones)
CAT_WRITE_BYTES = 4096
#: the buffer of the pipes to and from ``git cat-file``
CAT_BUFFER = 1 << 20


def _message_blobs(log_lines, repo: Path) -> Iterator[tuple[str, str]]:
    """(commit, blob) of each message ``git log --raw --format='C %H'`` names, in its order."""
    commit = None
    for line in log_lines:
        line = line.rstrip("\n")
        if line.startswith("C "):
            commit = line[2:]
            continue
        m = RAW_LINE.match(line)
        if not m or commit is None:
            continue
        if m.group("status") == "D":
            continue
        name = m.group("path")
        if name == "d":
            log.info("%s: commit %s deletes a message; deletions are not applied", repo, commit[:12])
        elif name == "m":
            yield commit, m.group("blob")


def _pipe(stream: IO[AnyStr] | None) -> IO[AnyStr]:
    """A pipe of a git process this module started with it (``subprocess`` types allow none)."""
    if stream is None:
        raise TypeError("a git process started without the pipe asked for")
    return stream


def _cat_blobs(
    cat: subprocess.Popen, blobs: Iterator[tuple[str, str]], repo: Path
) -> Iterator[tuple[str, str, bytes | Oversized | None]]:
    """(commit, blob, :func:`_cat_blob` answer) of each of ``blobs``, in order, asking git for
    CAT_AHEAD of them at a time, their ids (a line each) at most CAT_WRITE_BYTES."""
    blobs = iter(blobs)
    nxt = next(blobs, None)
    while nxt is not None:
        batch: list[tuple[str, str]] = []
        size = 0
        while (
            nxt is not None and len(batch) < CAT_AHEAD and (not batch or size + len(nxt[1]) < CAT_WRITE_BYTES)
        ):
            batch.append(nxt)
            size += len(nxt[1]) + 1
            nxt = next(blobs, None)
        try:
            stdin = _pipe(cat.stdin)
            stdin.write(b"".join(blob.encode() + b"\n" for _, blob in batch))
            stdin.flush()
        except OSError as exc:  # a broken pipe: git is gone
            raise GitError(str(repo), f"git cat-file stopped ({exc.strerror or exc})") from exc
        for commit, blob in batch:
            yield commit, blob, _cat_blob(cat, blob, repo)


def _cat_blob(cat: subprocess.Popen, blob: str, repo: Path) -> bytes | Oversized | None:
    """The next object ``git cat-file --batch`` sends, asked for as ``blob``; None if the
    repository lacks it, an :class:`Oversized` if it is larger than MAX_MESSAGE_BYTES."""
    out = _pipe(cat.stdout)
    try:
        line = out.readline()
    except OSError as exc:
        raise GitError(str(repo), f"git cat-file stopped ({exc.strerror or exc})") from exc
    if not line:
        raise GitError(str(repo), f"git cat-file stopped answering (at object {blob[:12]})")
    header = line.split()
    if header[1:2] == [b"missing"]:
        return None
    if len(header) < 3 or header[1] != b"blob":
        raise GitError(
            str(repo), f"object {blob[:12]} is not a blob ({line[:80].decode('ascii', 'replace').strip()})"
        )
    size = int(header[2])
    if size > base.MAX_MESSAGE_BYTES:  # read past it in pieces, never whole
        left = size + 1  # and the newline after it
        while left > 0:
            piece = out.read(min(left, 1 << 20))
            if not piece:
                raise GitError(str(repo), f"git cat-file stopped answering (in object {blob[:12]})")
            left -= len(piece)
        return Oversized(size)
    data = out.read(size)
    if len(data) < size:
        raise GitError(str(repo), f"git cat-file stopped answering (in object {blob[:12]})")
    out.read(1)  # the newline after each object
    return data


def list_name_of(path: Path) -> list[str]:
    """A list name from the inbox folder (``linux-block.vger.kernel.org.0`` -> that list)."""
    name = path.resolve().name
    name = re.sub(r"\.git$", "", name)
    m = re.match(r"^(.+?\.[a-z]{2,})\.\d{1,4}$", name)
    if m:
        return [m.group(1)]
    return []
