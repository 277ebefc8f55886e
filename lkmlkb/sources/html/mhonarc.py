"""MHonArc message pages: lkml.iu.edu (2003-), spinics.net, oss.sgi.com, mail-archive.com.

Markup per MHonArc's defaults (checked on a real 2016 lkml.iu.edu page):
leading comments ``<!--X-Subject: -->``,
``<!--X-From-R13: -->`` (ROT13 of the real From), ``<!--X-Date: -->``,
``<!--X-Message-Id: -->``, ``<!--X-Reference: -->`` (one per id, oldest
first) and ``<!--X-Head-End-->``, with ``-&<`` written ``&#45;&#38;&#60;``;
the body between ``<!--X-Body-of-Message-->`` and
``<!--X-Body-of-Message-End-->`` as ``<br>`` lines (quotes
``&gt;<i> ...</i><br>``) or a ``<pre>``.  Addresses in the body are
SPAMMODE-obfuscated (``davem@xxxxxxxxxxxxx``) and stay as shown.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html._common import (
    MAX_LINE_CHARS,
    build_message,
    fragment_text,
    soup_of,
    unescape_comment,
)
from lkmlkb.sources.obfuscation import decode_rot13_from

log = logging.getLogger(__name__)

_X_COMMENT_RE = re.compile(
    r"""
    <!--X-(?P<name>[A-Za-z][A-Za-z0-9-]{0,40}) : [ ]? (?P<value>[^\n]{0,4000}?) [ ]? -->   # <!--X-Date: Fri, 30 Sep ... -->
    """,
    re.VERBOSE,
)
_BODY_START = "<!--X-Body-of-Message-->"
_BODY_END = "<!--X-Body-of-Message-End-->"
_HEAD_END = "<!--X-Head-End-->"
_VISIBLE_FROM_RE = re.compile(
    r"""
    <(?:strong|b)> \s{0,3} From: \s{0,3} </(?:strong|b)> \s{0,3} (?P<v>[^<\n]{1,400})   # <strong>From: </strong>David Miller
    """,
    re.VERBOSE | re.IGNORECASE,
)


def looks_like(text: str) -> bool:
    """True for a page with MHonArc's comment markers."""
    head = text[:20000]
    return "<!-- MHonArc" in head or "<!--X-Message-Id:" in head or _BODY_START in text[:2000000]


def read_comments(text: str) -> dict[str, list[str]]:
    """The ``<!--X-Name: value -->`` comments before ``X-Head-End`` (all of them, in order)."""
    end = text.find(_HEAD_END)
    head = text[: end if end >= 0 else 60000][:200000]
    found: dict[str, list[str]] = {}
    for m in _X_COMMENT_RE.finditer(head):
        found.setdefault(m.group("name").lower(), []).append(unescape_comment(m.group("value")))
    return found


def body_fragment(text: str) -> str | None:
    """The HTML between the body markers, or None when the page has none."""
    start = text.find(_BODY_START)
    if start < 0:
        return None
    start += len(_BODY_START)
    end = text.find(_BODY_END, start)
    return text[start : end if end >= 0 else len(text)]


def parse(data: bytes, text: str, url: str, lists: list[str] | None = None) -> list[Message]:
    """Parse one MHonArc message page.

    The true From comes from ``X-From-R13`` when present (decoded ROT13),
    else from the visible ``<strong>From: </strong>`` or ``<meta
    name="Author">``, flagged obfuscated when MHonArc hid it.  The parent is
    the last ``X-Reference``.
    """
    comments = read_comments(text)
    fragment = body_fragment(text)
    if fragment is None and not comments:
        raise ParseError(url, "MHonArc page without X- comments or body markers")
    body = fragment_text(fragment) if fragment is not None else ""
    subject = _first(comments, "subject")
    if not subject:
        soup_head = soup_of(text[:20000])
        meta = soup_head.find("meta", attrs={"name": re.compile("^subject$", re.I)})
        subject = (meta.get("content") or "") if meta else ""
        if not subject and soup_head.title:
            subject = soup_head.title.get_text()
    from_value = decode_rot13_from(_first(comments, "from-r13")) if "from-r13" in comments else ""
    if not from_value:
        from_value = _visible_from(text)
    refs = comments.get("reference", [])
    return [
        build_message(
            url=url,
            raw=data,
            subject=subject,
            from_value=from_value,
            date_raw=_first(comments, "date"),
            message_id=_first(comments, "message-id") or None,
            in_reply_to=refs[-1] if refs else None,
            references=refs,
            body=body,
            lists=lists,
        )
    ]


def _first(comments: dict[str, list[str]], name: str) -> str:
    """First value of a comment, '' when absent."""
    values = comments.get(name) or [""]
    return values[0][:MAX_LINE_CHARS]


def _visible_from(text: str) -> str:
    """From as shown (name only on lkml.iu.edu), or the Author meta tag."""
    m = _VISIBLE_FROM_RE.search(text[:200000])
    if m:
        return unescape_comment(m.group("v"))
    soup_head = soup_of(text[:20000])
    meta = soup_head.find("meta", attrs={"name": re.compile("^author$", re.I)})
    return (meta.get("content") or "") if meta else ""
