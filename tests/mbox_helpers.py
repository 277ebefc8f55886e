"""Real mail for the mbox and incremental-ingest tests: the entries of the shared archive
sample (../shared/archives/linux-block-2024q1.mboxrd.gz: every linux-block message of 2024
Q1) and mbox files written from them as lore writes them."""

from __future__ import annotations

import functools
import gzip
import re
from pathlib import Path

from lkmlkb.sources.mbox import split_mbox

ARCHIVE = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
)
LORE_SEP = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"


@functools.cache
def archive_entries(n: int) -> tuple[bytes, ...]:
    """The first ``n`` messages of the archive sample, unescaped."""
    out = []
    with gzip.open(ARCHIVE, "rb") as f:
        for raw in split_mbox(f, mboxrd=True):
            out.append(raw)
            if len(out) == n:
                break
    return tuple(out)


def mboxrd_bytes(messages, sep: bytes = LORE_SEP) -> bytes:
    """An mboxrd file as lore writes it: ``>`` added before every ``^>*From ``, a blank line
    after each message."""
    out = []
    for raw in messages:
        out.append(sep + re.sub(rb"(?m)^(>*From )", rb">\1", raw))
        if not raw.endswith(b"\n"):
            out.append(b"\n")
        out.append(b"\n")
    return b"".join(out)
