"""Mailman 2 pipermail articles: ``/pipermail/<list>/YYYY-Month/NNNNNN.html``.

Markup per Mailman's HyperArch article template:
``<H1>[List] subject</H1>``, ``<B>Author</B>``, a ``mailto:`` link whose
``In-Reply-To=`` parameter carries *this* message's Message-ID and whose
text is ``user at domain``, ``<I>Thu Feb 11 20:15:18 CST 2016</I>``, and the
body in ``<PRE>`` between ``<!--beginarticle-->`` and ``<!--endarticle-->``.
The parent is not shown.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html._common import MAX_LINE_CHARS, build_message, fragment_text, soup_of

_BEGIN = "<!--beginarticle-->"
_END = "<!--endarticle-->"
_LIST_RE = re.compile(
    r"/pipermail/([A-Za-z0-9._+-]{1,100})/"
)  # /pipermail/cluster-devel/2016-February/000124.html


def looks_like(text: str) -> bool:
    """True for a pipermail article."""
    return _BEGIN in text[:4000000]


def list_from_url(url: str) -> list[str]:
    """``/pipermail/cluster-devel/2016-February/1.html`` -> ``["cluster-devel"]``."""
    m = _LIST_RE.search(url[:2000])
    return [m.group(1)] if m else []


def own_msgid_from_mailto(href: str) -> str | None:
    """The ``In-Reply-To=`` id of a reply ``mailto:`` link, which is the article's own id."""
    href = href[:MAX_LINE_CHARS]
    _, _, query = href.partition("?")
    if not query:
        return None
    try:
        params = parse_qs(query.replace("&amp;", "&"))
    except ValueError:
        return None
    for key, values in params.items():
        if key.lower() == "in-reply-to" and values:
            return unquote(values[0]).strip() or None
    return None


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse one pipermail article page."""
    start = text.find(_BEGIN)
    if start < 0:
        raise ParseError(url, "pipermail page without <!--beginarticle-->")
    end = text.find(_END, start)
    body = fragment_text(text[start + len(_BEGIN) : end if end >= 0 else len(text)])
    head = soup_of(text[:start])
    h1 = head.find("h1")
    subject = h1.get_text(" ") if h1 else ""
    author_el = head.find("b")
    author = author_el.get_text(" ").strip() if author_el else ""
    mailto = head.find("a", href=re.compile(r"^mailto:", re.I))
    addr_text = mailto.get_text(" ").strip() if mailto else ""
    msgid = own_msgid_from_mailto(mailto.get("href", "")) if mailto else None
    date_el = head.find("i")
    date_raw = date_el.get_text(" ").strip() if date_el else ""
    from_value = f"{author} <{addr_text}>" if addr_text else author
    return [
        build_message(
            url=url,
            raw=data,
            subject=subject,
            from_value=from_value,
            date_raw=date_raw,
            message_id=msgid,
            body=body,
            lists=list_from_url(url),
        )
    ]
