"""Skipping known mail: a raw message whose exact bytes are stored is not parsed again."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from lkmlkb.db.store import known_copies
from lkmlkb.model import pickled_as_fields
from lkmlkb.sources.base import RawMail


@pickled_as_fields
@dataclass
class Known:
    """A raw message whose exact bytes are already stored (an unchanged re-run)."""

    source: str
    locator: str
    cursor_key: str | None = None
    cursor: str | None = None


#: the Message-ID header line of a raw message (a cheap key for the known-bytes check;
#: correctness rests on the content hash, so a miss only means a full parse)
_MSGID_LINE = re.compile(
    rb"""^message-id:[ \t]{0,20}                    # "Message-ID:" / "Message-Id:" (any case)
         (?:\r?\n[ \t]{1,20})?                     # an id folded onto the next line
         <([^<>\s]{1,995})>                         # the id in angle brackets
    """,
    re.I | re.M | re.X,
)
#: only the header block is searched, and at most this much of it
HEADER_SCAN = 64 * 1024


def delivery_key(raw: bytes) -> tuple[str | None, str]:
    """(Message-ID as the header says it, content hash) of one raw message, without parsing it.

    The hash is the store's ``content_hash``: SHA-256 of the bytes after an
    mbox "From " separator line.  Tolerates anything: no headers, no id, NULs.
    """
    if raw.startswith(b"From ") and b"\n" in raw[:1000]:
        raw = raw.split(b"\n", 1)[1]
    end = raw.find(b"\n\n", 0, HEADER_SCAN)
    head = raw[: end if end >= 0 else HEADER_SCAN]
    m = _MSGID_LINE.search(head)
    mid = None
    if m:
        mid = m.group(1).decode("utf-8", "replace")
    return mid, hashlib.sha256(raw).hexdigest()


def skip_known(conn, chunk: list) -> list:
    """Replace raw messages whose exact bytes (and source lists) are stored by ``Known``.

    Same outcome as parsing them: write_batch would count them unchanged.  A
    message whose source names a list it is not yet filed under is parsed,
    so the list is merged as before.
    """
    keys = {}
    for n, item in enumerate(chunk):
        if isinstance(item, RawMail):
            mid, h = delivery_key(item.raw)
            if mid:
                keys[n] = (mid, h)
    if not keys:
        return chunk
    stored = known_copies(conn, sorted({k[0] for k in keys.values()}))
    out = list(chunk)
    for n, (mid, h) in keys.items():
        have = stored.get(mid)
        if have is None or h not in have[0]:
            continue
        item = chunk[n]
        if any(name not in have[1] for name in item.lists):
            continue
        out[n] = Known(item.source, item.locator, item.cursor_key, item.cursor)
    return out
