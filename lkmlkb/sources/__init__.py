"""Archive sources.  ``iter_source`` recognizes what a SOURCE argument is.

A source yields :class:`~lkmlkb.sources.base.RawMail` (raw RFC 822 bytes,
parsed later, possibly in worker processes) or ready
:class:`~lkmlkb.model.Message` records (text dumps and HTML pages, which
are no RFC 822 to begin with).
"""

from __future__ import annotations

import logging
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from lkmlkb.errors import ParseError, SourceError
from lkmlkb.model import Message
from lkmlkb.sources import base
from lkmlkb.sources.base import RawMail, SourceFailure, read_head
from lkmlkb.sources.lore_http import LoreClient, is_lore_source
from lkmlkb.sources.mail import decode_bytes, parse_message
from lkmlkb.sources.mbox import iter_mbox_file, looks_like_mbox
from lkmlkb.sources.public_inbox import (
    find_epochs,
    holds_messages,
    is_git_repo,
    iter_epoch,
    list_name_of,
    looks_like_public_inbox,
)
from lkmlkb.sources.textdump import split_textdump

log = logging.getLogger(__name__)

HEADER_START = (
    b"Received:",
    b"Return-Path:",
    b"From:",
    b"Date:",
    b"Message-ID:",
    b"Message-Id:",
    b"Subject:",
    b"To:",
    b"MIME-Version:",
    b"Delivered-To:",
    b"X-",
    b"Content-Type:",
    b"In-Reply-To:",
    b"References:",
    b"Sender:",
    b"List-Id:",
    b"DKIM-Signature:",
    b"ARC-",
)
SKIP_NAMES = {".git", "__pycache__", ".DS_Store"}
#: the SOURCE that names standard input
STDIN = "-"


def sniff(path: Path) -> str:
    """The kind of a file: mbox | eml | html | text | binary."""
    head = read_head(path, 8192)
    if not head.strip():
        raise SourceError(str(path), "empty file")
    if looks_like_mbox(head):
        return "mbox"
    stripped = head.lstrip()
    if stripped.startswith(HEADER_START) and b"\n" in stripped:
        if _many_headers(stripped) or stripped.startswith((b"Received:", b"Return-Path:", b"Delivered-To:")):
            return "eml"
    low = stripped[:2048].lower()
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in low[:512] or b"<body" in low:
        return "html"
    if b"\x00" in head[:4096] and head[:4096].count(b"\x00") > 8:
        raise SourceError(str(path), "binary file, not a mail archive")
    return "text"


def _many_headers(head: bytes) -> bool:
    """An RFC 822 header block: several ``Name: value`` lines, then a blank line."""
    block = head.split(b"\n\n", 1)[0].split(b"\n")
    names = [ln.split(b":", 1)[0] for ln in block if b":" in ln and not ln[:1].isspace()]
    joined = b" ".join(names).lower()
    return len(names) >= 3 and b"message-id" in joined


def iter_source(spec: str, cursors=None) -> Iterator[RawMail | Message | SourceFailure]:
    """Everything a SOURCE argument holds: file, folder, public-inbox repo or URL.

    ``cursors`` (the store) supplies the cursors of incremental reads: per
    public-inbox epoch (the last commit stored) and per mbox file (the offset
    after the last message stored, with the hash of what comes before it).
    """
    path = Path(spec)
    if ("://" in spec or spec.startswith("lore:")) and is_lore_source(spec):
        yield from _iter_lore(spec)
        return
    if spec == STDIN or is_stream(path):
        yield from _iter_stream(spec)
        return
    if not path.exists():
        raise SourceError(spec, missing_reason(spec))
    if path.is_dir():
        yield from _iter_dir(path, cursors)
    else:
        yield from iter_file(path, cursors)


def missing_reason(spec: str) -> str:
    """Why a SOURCE that names nothing cannot be read (a Message-ID needs ``lore:``)."""
    if "@" in spec and "/" not in spec:
        return f"no such file or directory (to fetch a message from lore, write lore:{spec.strip('<>')})"
    return "no such file or directory"


def is_stream(path: Path) -> bool:
    """True for a pipe, a FIFO or a character device (``/dev/stdin`` fed by a pipe)."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def _iter_stream(spec: str) -> Iterator[RawMail | Message | SourceFailure]:
    """The messages of standard input (``-``) or a pipe, read once into a temporary file and
    then read as any file; a stream keeps no cursor."""
    with tempfile.TemporaryFile(prefix="lkmlkb-stdin-") as spool:
        try:
            if spec == STDIN:
                shutil.copyfileobj(sys.stdin.buffer, spool)
            else:
                with open(spec, "rb") as fh:
                    shutil.copyfileobj(fh, spool)
        except OSError as exc:
            raise SourceError(spec, f"cannot read: {exc.strerror or exc}") from exc
        spool.flush()
        try:
            for item in iter_file(Path(f"/proc/self/fd/{spool.fileno()}")):
                if isinstance(item, RawMail):
                    item.source = spec
                if isinstance(item, SourceFailure):
                    item.exc = type(item.exc)(spec, item.exc.reason)
                if isinstance(item, (RawMail, SourceFailure)):
                    item.cursor_key = None
                yield item
        except SourceError as exc:
            raise SourceError(spec, exc.reason) from exc


def _iter_lore(spec: str):
    client = LoreClient()
    yield from client.thread(spec)


def _iter_dir(path: Path, cursors) -> Iterator[RawMail | Message | SourceFailure]:
    if looks_like_public_inbox(path) or is_git_repo(path):
        epochs = find_epochs(path)
        if not epochs:
            raise SourceError(str(path), "git repository with no public-inbox epochs")
        if epochs == [path] and not holds_messages(path):
            raise SourceError(
                str(path), "a git repository, but not a public-inbox archive (no message file m)"
            )
        lists = list_name_of(path)
        for epoch in epochs:
            key = f"public-inbox:{epoch.resolve()}"
            since = cursors.get_cursor(key) if cursors is not None else None
            for item in iter_epoch(epoch, since, lists):
                item.cursor_key = key
                yield item
        return
    if all((path / d).is_dir() for d in ("cur", "new")):
        yield from _iter_maildir(path)
        return
    files = sorted(
        p
        for p in path.rglob("*")
        if p.is_file()
        and not (set(p.parts) & SKIP_NAMES)
        and not p.name.startswith(".")
        and not p.name.lower().endswith((".md", ".json", ".py"))
    )
    if not files:
        raise SourceError(str(path), "folder holds no mail (no mbox, Maildir, .eml, HTML page or text)")
    for f in files:
        try:
            yield from iter_file(f, cursors)
        except SourceError as exc:
            # one bad file in a folder is an error for that file, not the run
            yield SourceFailure(exc)


def _iter_maildir(path: Path) -> Iterator[RawMail | SourceFailure]:
    for sub in ("new", "cur"):
        for f in sorted((path / sub).iterdir()):
            if f.is_file() and not f.name.startswith("."):
                data = base.read_one_message_file(f, "the file", f.name)
                yield RawMail(data, str(f), [], f.name) if isinstance(data, bytes) else data


def iter_file(path: Path, cursors=None) -> Iterator[RawMail | Message | SourceFailure]:
    """The messages of one file; an mbox file resumes at its cursor in ``cursors`` (the store)."""
    kind = sniff(path)
    if kind == "mbox":
        key = f"mbox:{path.resolve()}"
        since = cursors.get_cursor(key) if cursors is not None else None
        for item in iter_mbox_file(path, since=since):
            if isinstance(item, (RawMail, SourceFailure)):
                item.cursor_key = key
            yield item
    elif kind == "eml":
        data = base.read_one_message_file(path, "the file")
        yield RawMail(data, str(path), [], "") if isinstance(data, bytes) else data
    elif kind == "html":
        from lkmlkb.sources.html import parse_html_page

        data = base.read_one_message_file(path, "the page")
        if isinstance(data, bytes):
            yield from parse_html_page(data, str(path))
        else:
            yield data
    else:
        with base.open_archive_file(path) as fh:
            data = fh.read()
        yield from split_textdump(decode_bytes(data), str(path))


def read_messages(paths: list[str]) -> Iterator[Message]:
    """Every message of the given sources, parsed, without a database (``extract``)."""
    for spec in paths:
        for item in iter_source(spec):
            if isinstance(item, RawMail):
                try:
                    yield parse_message(item.raw, item.source, item.lists)
                except ParseError as exc:
                    log.info("%s", exc)
            elif isinstance(item, Message):
                yield item
            else:
                raise SourceError(spec, item.exc.reason)


__all__ = ["RawMail", "iter_file", "iter_source", "read_messages", "sniff"]
