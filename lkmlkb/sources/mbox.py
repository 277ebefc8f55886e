"""mbox files: mboxrd (lore's ``/raw``, ``t.mbox.gz``, ``b4 mbox``) and mboxo.

Split on the strict separator public-inbox uses (``From <addr> <asctime>``),
so a body line "From what I've seen" never starts a message, and read the
file in large blocks rather than line by line (one bytes regex over the
stream, near the speed of reading it).  mboxrd's ``>From`` escaping is undone;
Python's ``mailbox`` module does not do that.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path

from lkmlkb.errors import LkmlkbError
from lkmlkb.sources import base
from lkmlkb.sources.base import Oversized, RawMail, SourceFailure, open_archive_file, oversized
from lkmlkb.sources.mail import parse_message

log = logging.getLogger(__name__)

# "From mboxrd@z Thu Jan  1 00:00:00 1970" (lore), "From patchwork Mon Sep 17 ...",
# "From 1a2b... Mon Sep 17 00:00:00 2001" (format-patch), "From user@host Tue Mar 12 10:17:44 2024"
SEPARATOR = re.compile(
    rb"""^From[ ]\S{1,500}[ ]{1,4}         # "From " and the envelope sender
        \S{1,10}[ ]\S{1,10}[ ]{1,3}\S{1,4}  # weekday, month, day (padded)
        [ ][^\n:]{1,10}:[^\n:]{1,4}:[^\n:]{1,20}[ ][^\n:]{1,20}\n  # time and year / zone
    """,
    re.M | re.X,
)
# mboxrd: any number of '>' before "From " gained one more
MBOXRD_ESCAPE = re.compile(rb"^>(>*From )", re.M)
# mboxo: only "From " itself was escaped (irreversible for ">From")
MBOXO_ESCAPE = re.compile(rb"^>(From )", re.M)
#: the file is read this many bytes at a time: few reads, and a block stays small in memory
BLOCK = 8 << 20
#: no separator line is longer (the pattern bounds each field)
MAX_SEPARATOR = 1024


def looks_like_mbox(head: bytes) -> bool:
    return bool(SEPARATOR.match(head.lstrip(b"\r\n")))


def unescape(body: bytes, mboxrd: bool) -> bytes:
    if b">From " not in body:
        return body
    return (MBOXRD_ESCAPE if mboxrd else MBOXO_ESCAPE).sub(rb"\1", body)


def split_mbox(
    stream, mboxrd: bool | None = None, max_message: int | None = None
) -> Iterator[bytes | Oversized]:
    """Yield each message of an mbox stream, separator line removed, unescaped.

    A message of more than ``max_message`` bytes is yielded as an
    :class:`Oversized` with its size; its bytes are dropped as they are read
    (all but a separator's length, in case the next one straddles the block).

    ``mboxrd`` None decides from the first separator: lore writes
    ``From mboxrd@z``; anything else is read as mboxo, which unescapes the
    same ``>From `` lines and leaves deeper ones alone.

    The stream is read with ``read1`` where it has one, so a stream that
    breaks part way (a truncated gzip raises on the read after the last
    bytes it could decode) has already yielded every message it completed.
    Each block is scanned once (plus a separator's length of overlap).
    """
    for msg, _, _ in _split(stream, mboxrd, max_message):
        yield msg


def _split(
    stream, mboxrd: bool | None, max_message: int | None, hasher=None, at: int = 0, head: bytes = b""
) -> Iterator[tuple[bytes | Oversized, int, bool]]:
    """:func:`split_mbox`'s messages, each with where it ends in the stream (the next
    separator's first byte, or the end) and whether it was read as mboxrd.

    ``at`` is the stream's offset of ``head`` (bytes already read from it) and
    of what ``stream`` reads after them.  ``hasher`` (a hashlib object that has
    seen the stream before ``at``), when given, has seen every byte before a
    message's end when the message is yielded: the cursor of an mbox file
    (:func:`iter_mbox_file`).
    """
    read = getattr(stream, "read1", None) or stream.read
    buf = head
    base = at  # the stream's offset of buf[0]
    hashed = at  # the hasher has seen the stream up to here
    first = True
    sep = 0  # offset in buf of the current message's separator line
    start = None  # offset in buf of the current message's first byte
    dropped = 0  # bytes of the current message already dropped (it is over max_message)
    scan_from = 0

    def hash_to(end: int) -> None:
        """Give the hasher the bytes of buf up to ``end`` it has not seen (before they are dropped)."""
        nonlocal hashed
        if hasher is not None and base + end > hashed:
            hasher.update(memoryview(buf)[hashed - base : end])
            hashed = base + end

    def finish(end: int) -> tuple[bytes | Oversized, int, bool]:
        nonlocal dropped
        msg = buf[start:end]
        size = dropped + len(msg) - (1 if msg.endswith(b"\n\n") else 0)  # as _trim leaves it, still escaped
        dropped = 0
        hash_to(end)
        if max_message is not None and size > max_message:
            return Oversized(size), base + end, bool(mboxrd)
        return unescape(_trim(msg), bool(mboxrd)), base + end, bool(mboxrd)

    while True:
        chunk = read(BLOCK)
        buf += chunk
        for m in _separators(buf, scan_from):
            if first:
                first = False
                if mboxrd is None:
                    mboxrd = m.group(0).startswith(b"From mboxrd@z")
            if start is not None:
                yield finish(m.start())
            sep, start = m.start(), m.end()
        if not chunk:
            break
        if start is None:
            # no separator yet: keep only a tail in case one straddles the block edge
            if len(buf) > 2 * BLOCK:
                cut = len(buf) - BLOCK
                hash_to(cut)
                buf, base = buf[cut:], base + cut
        else:
            # keep the unfinished message (from its separator) for the next round
            hash_to(sep)
            buf, base, start, sep = buf[sep:], base + sep, start - sep, 0
            if max_message is not None and dropped + len(buf) - start > max_message + 2 * MAX_SEPARATOR:
                # over the limit: drop what was read of it, but a tail a separator may straddle
                # (the scan below starts at its second half, so never at a line's middle)
                cut = len(buf) - 2 * MAX_SEPARATOR
                dropped += cut - start
                hash_to(cut)
                buf, base, start = buf[cut:], base + cut, 0
        # the next separator starts after the current one (a line of at most MAX_SEPARATOR bytes)
        scan_from = max(start or 0, len(buf) - MAX_SEPARATOR)
    if start is not None and start < len(buf):
        yield finish(len(buf))


def _separators(buf: bytes, pos: int) -> Iterator[re.Match]:
    """``SEPARATOR.finditer(buf, pos)``, tried only at lines that start with "From ".

    A separator is one whole line, so the matches are the same; finding the
    candidates with ``bytes.find`` skips the regex over every other byte
    (the split cost a quarter of what reading an epoch costs the writer).
    """
    at_top = pos == 0 and buf.startswith(b"From ")
    start = 0 if at_top else buf.find(b"\nFrom ", max(0, pos - 1)) + 1
    if start == 0 and not at_top:
        return
    while True:
        m = SEPARATOR.match(buf, start)
        if m:
            yield m
        start = buf.find(b"\nFrom ", start) + 1
        if start == 0:
            return


def _trim(msg: bytes) -> bytes:
    # the blank line that ends each mbox entry belongs to the file, not the message
    if msg.endswith(b"\n\n"):
        return msg[:-1]
    return msg


def iter_mbox_file(
    path: Path, lists: list[str] | None = None, since: str | None = None
) -> Iterator[RawMail | SourceFailure]:
    """Every message of an mbox file (plain or .gz) as RawMail; one over the size limit as a failure.

    Each message carries the file's cursor after it (:func:`cursor_after`):
    given back as ``since``, the reading resumes there when the file up to
    that point is byte for byte what was read (appended mail is all that is
    read); else the whole file is read again, as it is when ``since`` is None.
    """
    if since:
        with open_archive_file(path) as fh:
            hasher = hashlib.sha256()
            resumed = _resume(fh, since, hasher)
            if resumed is not None:
                at, entries, mboxrd, head = resumed
                if head:  # else nothing came after the cursor
                    split = _split(fh, mboxrd, base.MAX_MESSAGE_BYTES, hasher, at, head)
                    yield from _items(path, lists, split, hasher, entries)
                return
        log.info("%s: not what it was up to its cursor; reading the whole file", path)
    with open_archive_file(path) as fh:
        hasher = hashlib.sha256()
        yield from _items(path, lists, _split(fh, None, base.MAX_MESSAGE_BYTES, hasher), hasher, 0)


def _items(
    path: Path, lists: list[str] | None, split: Iterator, hasher, n: int
) -> Iterator[RawMail | SourceFailure]:
    """The RawMail (or failure) of each message ``split`` (:func:`_split` feeding ``hasher``)
    gives, the entries counted on from ``n``."""
    for msg, end, rd in split:
        n += 1
        cursor = cursor_after(end, n, rd, hasher)
        if isinstance(msg, Oversized):
            yield SourceFailure(oversized(str(path), msg.size, f"entry {n}"), f"entry {n}", cursor)
            continue
        yield RawMail(msg, str(path), list(lists or []), f"entry {n}", cursor=cursor)


def cursor_after(end: int, entries: int, mboxrd: bool, hasher) -> str:
    """An mbox file's cursor after a message (:data:`CURSOR`): the offset of its end in the
    (gunzipped) file, the entries up to it, whether the file reads as mboxrd, and the SHA-256
    of every byte before that offset (``hasher`` has seen them)."""
    return f"mbox1 {end} {entries} {int(mboxrd)} {hasher.hexdigest()}"


#: what :func:`cursor_after` writes ("mbox1": the format's version)
CURSOR = re.compile(r"mbox1 (\d+) (\d+) ([01]) ([0-9a-f]{64})", re.ASCII)


def _resume(fh, cursor: str, hasher) -> tuple[int, int, bool, bytes] | None:
    """(offset, entries before it, mboxrd, the bytes read after the offset) when the file's
    bytes before the cursor's offset are those it was taken after and a separator (or the
    end) follows; None when they are not, or the cursor is not one of :func:`cursor_after`'s.
    ``hasher`` has seen the bytes before the offset."""
    m = CURSOR.fullmatch(cursor)
    if not m:
        return None
    end, digest = int(m.group(1)), m.group(4)
    read = getattr(fh, "read1", None) or fh.read
    left, last = end, b"\n"
    try:
        while left:
            block = read(min(left, BLOCK))
            if not block:
                return None  # the file is shorter now
            hasher.update(block)
            left -= len(block)
            last = block[-1:]
        if hasher.hexdigest() != digest:
            return None
        head = b""
        while len(head) < MAX_SEPARATOR:
            block = read(BLOCK)
            if not block:
                break
            head += block
    except LkmlkbError:  # a broken gzip: the whole read reports it with every message before it
        return None
    # what follows must be a separator where a whole read sees one: at a line's start (a last
    # message without its newline, then mail appended, is one message to a whole read)
    if head and not (last == b"\n" and SEPARATOR.match(head)):
        return None
    return end, int(m.group(2)), m.group(3) == "1", head


def iter_mbox_bytes(data: bytes, source: str, lists: list[str] | None = None):
    """Messages of an mbox held in memory (an HTTP response), parsed."""
    for raw in split_mbox(io.BytesIO(data), max_message=base.MAX_MESSAGE_BYTES):
        if isinstance(raw, Oversized):
            log.warning("%s", oversized(source, raw.size, "a message"))
            continue
        yield parse_message(raw, source, lists)
