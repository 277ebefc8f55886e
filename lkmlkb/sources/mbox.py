"""mbox files: mboxrd (lore's ``/raw``, ``t.mbox.gz``, ``b4 mbox``) and mboxo.

Split on the strict separator public-inbox uses (``From <addr> <asctime>``),
so a body line "From what I've seen" never starts a message, and read the
file in large blocks rather than line by line (the floor in PERF-NOTES.md is
one bytes regex over the stream).  mboxrd's ``>From`` escaping is undone;
Python's ``mailbox`` module does not do that.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

from . import base
from .base import Oversized, RawMail, SourceFailure, open_archive_file, oversized

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
BLOCK = 8 << 20
#: no separator line is longer (the pattern bounds each field)
MAX_SEPARATOR = 1024


def looks_like_mbox(head: bytes) -> bool:
    return bool(SEPARATOR.match(head.lstrip(b"\r\n")))


def unescape(body: bytes, mboxrd: bool) -> bytes:
    if b">From " not in body:
        return body
    return (MBOXRD_ESCAPE if mboxrd else MBOXO_ESCAPE).sub(rb"\1", body)


def split_mbox(stream, mboxrd: bool | None = None, max_message: int | None = None) -> Iterator[bytes | Oversized]:
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
    read = getattr(stream, "read1", None) or stream.read
    buf = b""
    first = True
    start = None  # offset in buf of the current message's first byte
    dropped = 0  # bytes of the current message already dropped (it is over max_message)
    scan_from = 0

    def finish(msg: bytes) -> bytes | Oversized:
        nonlocal dropped
        size = dropped + len(msg) - (1 if msg.endswith(b"\n\n") else 0)  # as _trim leaves it, still escaped
        dropped = 0
        if max_message is not None and size > max_message:
            return Oversized(size)
        return unescape(_trim(msg), bool(mboxrd))

    while True:
        chunk = read(BLOCK)
        buf += chunk
        for m in _separators(buf, scan_from):
            if first:
                first = False
                if mboxrd is None:
                    mboxrd = m.group(0).startswith(b"From mboxrd@z")
            if start is not None:
                yield finish(buf[start:m.start()])
            start = m.end()
        if not chunk:
            break
        if start is None:
            # no separator yet: keep only a tail in case one straddles the block edge
            if len(buf) > 2 * BLOCK:
                buf = buf[-BLOCK:]
        else:
            # keep the unfinished message (from start) for the next round
            buf = buf[start:]
            start = 0
            if max_message is not None and dropped + len(buf) > max_message + 2 * MAX_SEPARATOR:
                # over the limit: drop what was read of it, but a tail a separator may straddle
                # (the scan below starts at its second half, so never at a line's middle)
                dropped += len(buf) - 2 * MAX_SEPARATOR
                buf = buf[-2 * MAX_SEPARATOR:]
        scan_from = max(0, len(buf) - MAX_SEPARATOR)
    if start is not None and start < len(buf):
        yield finish(buf[start:])


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


def iter_mbox_file(path: Path, lists: list[str] | None = None) -> Iterator[RawMail | SourceFailure]:
    """Every message of an mbox file (plain or .gz) as RawMail; one over the size limit as a failure."""
    with open_archive_file(path) as fh:
        for n, raw in enumerate(split_mbox(fh, max_message=base.MAX_MESSAGE_BYTES)):
            if isinstance(raw, Oversized):
                yield SourceFailure(oversized(str(path), raw.size, f"entry {n + 1}"), f"entry {n + 1}")
                continue
            yield RawMail(raw, str(path), list(lists or []), f"entry {n + 1}")


def iter_mbox_bytes(data: bytes, source: str, lists: list[str] | None = None):
    """Messages of an mbox held in memory (an HTTP response), parsed."""
    import io

    from .mail import parse_message

    for raw in split_mbox(io.BytesIO(data), max_message=base.MAX_MESSAGE_BYTES):
        if isinstance(raw, Oversized):
            log.warning("%s", oversized(source, raw.size, "a message"))
            continue
        yield parse_message(raw, source, lists)
