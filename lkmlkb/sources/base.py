"""What every source yields, and the bounded readers they share."""

from __future__ import annotations

import gzip
import io
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from lkmlkb.errors import LimitExceeded, LkmlkbError, SourceError
from lkmlkb.model import pickled_as_fields

#: a message larger than this is recorded as an error and not read into memory (real mail stays
#: far below: the largest messages of whole lists are a megabyte or two): a hostile archive of
#: one 4 GB "message" must not take the ingest's memory with it
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
#: a gzip that expands past this stops with a clear error
DEFAULT_MAX_EXPANDED = 4 * 1024**3
#: ... and so does one whose expansion ratio says it is a bomb
MAX_RATIO = 1000
GZIP_MAGIC = b"\x1f\x8b"


class Oversized:
    """Stands for a message larger than MAX_MESSAGE_BYTES, which a source did not keep: its size."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __repr__(self) -> str:
        return f"Oversized({self.size})"


def oversized(source: str, size: int | None, what: str) -> SourceError:
    """The error for a message over MAX_MESSAGE_BYTES (``what``: "entry 4", "commit 1a2b3c";
    ``size`` None when unknown, e.g. compressed).  The limit is read at call time, so that it
    can be lowered for a run (or a test)."""
    of = f"of {size:,} bytes" if size is not None else f"of more than {MAX_MESSAGE_BYTES:,} bytes"
    return SourceError(
        source, f"{what}: a message {of}, over the {MAX_MESSAGE_BYTES:,}-byte limit (not stored)"
    )


def read_one_message_file(path: Path, what: str, locator: str = "") -> bytes | SourceFailure:
    """A file holding one message or page (an .eml, a Maildir file, an archive page), gzip
    expanded; a failure at ``locator`` if it holds more than MAX_MESSAGE_BYTES (no more than
    that is ever read)."""
    with open_archive_file(path) as fh:
        data = fh.read(MAX_MESSAGE_BYTES + 1)
    if len(data) <= MAX_MESSAGE_BYTES:
        return data
    with open(path, "rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
    return SourceFailure(oversized(str(path), None if compressed else path.stat().st_size, what), locator)


class SourceFailure:
    """One item a source could not read (a file of a folder, a message whose git object is
    missing); the ingest records it as an error and goes on with the next."""

    def __init__(self, exc: LkmlkbError, locator: str = "", cursor: str | None = None) -> None:
        self.exc = exc
        #: where in the source (a commit id for a public-inbox epoch)
        self.locator = locator
        #: as a RawMail's: where a re-run may resume once the failure is recorded
        self.cursor_key: str | None = None
        self.cursor = cursor


@pickled_as_fields
@dataclass
class RawMail:
    """One raw message as a source found it, not yet parsed.

    Parsing happens later (in worker processes on the fast path), so sources
    stay cheap and a failure to parse is recorded against ``source``.
    """

    raw: bytes
    source: str
    lists: list[str] = field(default_factory=list)
    #: position within the source (mbox entry number, git commit) for errors
    locator: str = ""
    #: the source's cursor (public-inbox epoch, mbox file) and where a re-run may resume once this
    #: message is stored (an epoch's commit; an mbox's :func:`mbox.cursor_after`)
    cursor_key: str | None = None
    cursor: str | None = None


class BoundedReader(io.RawIOBase):
    """Wraps a decompressing stream and stops past ``limit`` bytes or ``ratio``."""

    def __init__(
        self,
        inner,
        name: str,
        compressed_size: int,
        limit: int = DEFAULT_MAX_EXPANDED,
        ratio: int = MAX_RATIO,
    ):
        self.inner = inner
        self.name = name
        self.count = 0
        self.limit = limit
        # small inputs may legitimately expand a lot (a few KB of zeros); the
        # ratio only applies past 64 MB of output
        self.ratio_limit = max(64 * 1024**2, compressed_size * ratio)

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        """One read of the inner stream (``read1``): a truncated gzip raises
        only on the call after the last bytes it could decode, never losing them."""
        try:
            if hasattr(self.inner, "read1"):
                data = self.inner.read1(len(b))
                n = len(data)
                b[:n] = data
            else:
                n = self.inner.readinto(b)
        except EOFError as exc:
            raise SourceError(self.name, "truncated gzip (compressed stream ends early)") from exc
        except (OSError, zlib.error) as exc:
            raise SourceError(self.name, f"corrupt gzip ({exc})") from exc
        self.count += n or 0
        if self.count > self.limit:
            raise LimitExceeded(self.name, f"gzip expands past {self.limit} bytes (limit)")
        if self.count > self.ratio_limit:
            raise LimitExceeded(self.name, f"gzip expansion ratio over {MAX_RATIO}:1")
        return n


def open_archive_file(path: Path, limit: int = DEFAULT_MAX_EXPANDED):
    """A binary stream of a file's content, gunzipped (bounded) where it is gzip."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - returned to the caller
    except FileNotFoundError as exc:
        raise SourceError(str(path), "no such file") from exc
    except IsADirectoryError as exc:
        raise SourceError(str(path), "is a directory") from exc
    except PermissionError as exc:
        raise SourceError(str(path), "permission denied") from exc
    except OSError as exc:
        raise SourceError(str(path), exc.strerror or str(exc)) from exc
    head = fh.read(2)
    fh.seek(0)
    if head == GZIP_MAGIC:
        size = path.stat().st_size
        return io.BufferedReader(
            BoundedReader(gzip.GzipFile(fileobj=fh), str(path), size, limit), buffer_size=1 << 20
        )
    return fh


def read_head(path: Path, n: int = 4096) -> bytes:
    """The first ``n`` bytes of a file's (gunzipped) content, for sniffing.

    A gzip cut short within its first ``n`` bytes still yields what it holds;
    the reader that follows reports the truncation with what it kept.
    """
    head = b""
    with open_archive_file(path) as fh:
        read = getattr(fh, "read1", None) or fh.read
        while len(head) < n:
            try:
                chunk = read(n - len(head))
            except SourceError:
                if head:
                    break
                raise
            if not chunk:
                break
            head += chunk
    return head
