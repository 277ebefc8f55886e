"""Quote attribution: which earlier message of a thread first said the lines a message quotes.

A line is matched by its key (:func:`line_key`): whitespace runs made one
space, ends stripped, lower-cased, hashed; :func:`squeeze` is that text
without its spaces, a cheap test of which lines can share a key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from lkmlkb.model import Message, Segment

#: lines shorter than this ("Thanks,", "Hi Jens,") recur in many messages: they get no key
MIN_QUOTE_CHARS = 24


def _key_text(line: str) -> str:
    """What a line's key is made of: whitespace runs made one space (``str.split`` and ``\\s``
    agree on what whitespace is), ends stripped, lower-cased."""
    return " ".join(line.split()).lower()


def line_key(line: str) -> str | None:
    """A normalized key for matching a quoted line against where it was said: a hash of
    :func:`_key_text`; lines shorter than MIN_QUOTE_CHARS get no key.
    """
    if len(line) < MIN_QUOTE_CHARS and line.isascii():  # ASCII never grows when lower-cased
        return None
    s = _key_text(line)
    if len(s) < MIN_QUOTE_CHARS:
        return None
    return hashlib.blake2b(s.encode("utf-8", "replace"), digest_size=8).hexdigest()


class QuoteIndex:
    """Which message first said a line: built in date order, queried per segment.

    A thread quotes the same lines again and again, so each distinct line is
    keyed once (``_key``).
    """

    def __init__(self):
        self.first: dict[str, str] = {}
        self._keys: dict[str, str | None] = {}

    def _keys_of(self, text: str) -> list[str | None]:
        """:func:`line_key` of each line of ``text``, remembered per distinct line."""
        keys = self._keys
        out = []
        for line in text.split("\n"):
            k = keys.get(line, "")
            if k == "":
                k = keys[line] = line_key(line)
            out.append(k)
        return out

    def add(self, message_id: str, segments: list[Segment]) -> None:
        first = self.first
        for s in segments:
            if s.kind in ("new", "patch"):
                for k in self._keys_of(s.text):
                    if k and k not in first:
                        first[k] = message_id

    def source_of(self, text: str) -> str | None:
        votes: dict[str, int] = {}
        first = self.first
        for k in self._keys_of(text):
            if k and k in first:
                votes[first[k]] = votes.get(first[k], 0) + 1
        if not votes:
            return None
        return max(votes.items(), key=lambda kv: kv[1])[0]


def attribute_quotes(ordered: list[tuple[Message, list[Segment]]]) -> None:
    """Set ``quotes_message_id`` on quoted segments of a thread (date order).

    Text dumps carry no In-Reply-To: a message whose quotes come from an
    earlier message gets that message as ``quoted_parent``.
    """
    index = QuoteIndex()
    # the index answers quoted segments only: what is said after the last one is never asked about
    last = max(
        (n for n, (_, segs) in enumerate(ordered) if any(s.kind == "quoted" for s in segs)), default=-1
    )
    for n, (msg, segs) in enumerate(ordered):
        attribute_message(index, msg.message_id, msg, segs)
        if n < last:
            index.add(msg.message_id, segs)


def attribute_message(
    index: QuoteIndex,
    message_id: str,
    msg: Message | None,
    segs: list[Segment],
    text_of: Callable[[str], str] | None = None,
) -> None:
    """One step of :func:`attribute_quotes`: set ``quotes_message_id`` on the quoted
    segments of ``segs`` from what ``index`` holds of earlier messages, and
    ``msg.quoted_parent`` (``msg`` may be None: not loaded) from the depth-1 votes.
    ``text_of`` maps a quoted segment's text to what is asked of the index
    (default: the text itself)."""
    votes: dict[str, int] = {}
    for s in segs:
        if s.kind == "quoted":
            src = index.source_of(s.text if text_of is None else text_of(s.text))
            if src and src != message_id:
                s.quotes_message_id = src
                if s.depth == 1:
                    votes[src] = votes.get(src, 0) + s.line_end - s.line_start + 1
    if votes and msg is not None and not msg.in_reply_to and not msg.references and not msg.quoted_parent:
        msg.quoted_parent = max(votes.items(), key=lambda kv: kv[1])[0]


def may_have_key(line: str) -> bool:
    """False only for lines :func:`line_key` gives no key: whitespace runs made one
    space never lengthen a line, and lower-casing lengthens only non-ASCII ones ("İ")."""
    return len(line) >= MIN_QUOTE_CHARS or not line.isascii()


def squeeze(line: str) -> str:
    """The text :func:`line_key` hashes (:func:`_key_text`) without its spaces: equal for two lines whenever their keys are, so
    lines whose squeeze no quoted line has can never be the origin of a quote.  It is
    lower-cased with the spaces in, as the key is: the lower case of some letters
    depends on what follows (Greek "Σ" ends a word as "ς"); an ASCII letter's does not."""
    if line.isascii():  # its whitespace deleted as bytes: faster than joining its words
        return line.encode().translate(None, _ASCII_SPACE).lower().decode()
    return _key_text(line).replace(" ", "")


def squeezed_lines(text: str) -> list[tuple[str, str]]:
    """(:func:`squeeze`, line) of each line of ``text`` that :func:`may_have_key`, in order.

    An ASCII text is squeezed whole, its line breaks kept: the lines' squeezes are its pieces
    between them, as :func:`squeeze` gives them one by one (the same bytes deleted and
    lower-cased), without a call per line."""
    lines = text.split("\n")
    if text.isascii():
        squeezes = text.encode().translate(None, _ASCII_SPACE_IN_LINE).lower().decode().split("\n")
        return [(sq, line) for sq, line in zip(squeezes, lines) if len(line) >= MIN_QUOTE_CHARS]
    return [(squeeze(line), line) for line in lines if may_have_key(line)]


#: what ``str.split`` splits an ASCII line at (\x1c-\x1f too)
_ASCII_SPACE = bytes(c for c in range(128) if chr(c).isspace())
#: the same without the line break, which ends a line before any of them is deleted
_ASCII_SPACE_IN_LINE = _ASCII_SPACE.replace(b"\n", b"")
