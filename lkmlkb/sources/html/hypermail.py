"""lkml.iu.edu ``/hypermail/linux/kernel/YYMM.W/NNNN.html`` pages, both eras.

Up to about 2003 the pages come from hypermail (checked on a real 2001 page):
``<!-- name="value" -->`` comments (``sent``, ``name``,
``email``, ``subject``, ``id``, ``inreplyto``), a visible
``<STRONG>From:</STRONG> Name (<A HREF="mailto:...">addr</A>)`` line, and
the body between ``<!-- body="start" -->`` and ``<!-- body="end" -->`` as
``<BR>`` lines with ``<P>`` for blank lines and quotes in ``<EM>``.  Later
pages are MHonArc (see ``mhonarc``).
"""

from __future__ import annotations

import logging
import re

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html import mhonarc
from lkmlkb.sources.html._common import build_message, fragment_text, unescape_comment

log = logging.getLogger(__name__)

HOSTS = ("lkml.iu.edu",)

_HM_COMMENT_RE = re.compile(
    r"""
    <!--\s{0,3} (?P<name>[a-z]{2,20}) = " (?P<value>[^"\n]{0,4000}) " \s{0,3}-->   # <!-- sent="Mon, 25 Jun 2001 ..." -->
    """,
    re.VERBOSE,
)
_BODY_START_RE = re.compile(r"<!--\s{0,3}body=\"start\"\s{0,3}-->")
_BODY_END_RE = re.compile(r"<!--\s{0,3}body=\"end\"\s{0,3}-->")


def looks_like_hypermail(text: str) -> bool:
    """True for an old-hypermail page (``<!-- body="start" -->`` marker)."""
    return bool(_BODY_START_RE.search(text[:2000000]))


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse a lkml.iu.edu page of either era."""
    if mhonarc.looks_like(text):
        return mhonarc.parse(data, text, url, lists=["linux-kernel"])
    if looks_like_hypermail(text):
        return parse_hypermail(data, text, url, lists=["linux-kernel"] if "lkml.iu.edu" in url else [])
    raise ParseError(url, "neither a hypermail nor an MHonArc page")


def read_comments(text: str) -> dict[str, str]:
    """The ``<!-- name="value" -->`` comments before the body (first of each)."""
    m = _BODY_START_RE.search(text)
    head = text[: m.start() if m else 60000][:200000]
    found: dict[str, str] = {}
    for cm in _HM_COMMENT_RE.finditer(head):
        found.setdefault(cm.group("name"), unescape_comment(cm.group("value")))
    return found


def parse_hypermail(data: bytes, text: str, url: str, lists: list[str] | None = None) -> list[Message]:
    """Parse an old hypermail page: comments for headers, marked body."""
    comments = read_comments(text)
    start = _BODY_START_RE.search(text)
    if start is None:
        raise ParseError(url, 'hypermail page without a body="start" marker')
    end = _BODY_END_RE.search(text, start.end())
    body = fragment_text(text[start.end() : end.start() if end else len(text)])
    name, email = comments.get("name", ""), comments.get("email", "")
    from_value = f"{name} <{email}>" if email else name
    return [
        build_message(
            url=url,
            raw=data,
            subject=comments.get("subject", ""),
            from_value=from_value,
            date_raw=comments.get("sent", ""),
            message_id=comments.get("id") or None,
            in_reply_to=comments.get("inreplyto") or None,
            body=body,
            lists=lists,
        )
    ]
