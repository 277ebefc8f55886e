"""mail-archive.com pages: ``/<list-address>/msgNNNNN.html``.

The markup is inferred, not checked on a saved page: the site is said to be
MHonArc-derived, so the MHonArc comments are used when present; otherwise
the schema.org microdata the site's templates carry (``itemprop="name"``
subject, ``itemprop="author"``, ``itemprop="datePublished"``,
``itemprop="articleBody"``) is read.  Old pages replace addresses with
``[EMAIL PROTECTED]``, which is flagged as obfuscated.
"""

from __future__ import annotations

import re

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html import mhonarc
from lkmlkb.sources.html._common import build_message, render_text, soup_of

HOSTS = ("www.mail-archive.com", "mail-archive.com")

_LIST_RE = re.compile(
    r"""mail-archive\.com/ ([^/@\s]{1,100}) @ [^/\s]{1,200} /   # /linux-kernel@vger.kernel.org/msg1.html
    """,
    re.VERBOSE,
)


def list_from_url(url: str) -> list[str]:
    """``.../linux-kernel@vger.kernel.org/msg1.html`` -> ``["linux-kernel"]``."""
    m = _LIST_RE.search(url[:2000])
    return [m.group(1)] if m else []


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse a mail-archive.com message page (MHonArc comments or microdata)."""
    lists = list_from_url(url)
    if mhonarc.looks_like(text):
        return mhonarc.parse(data, text, url, lists=lists)
    soup = soup_of(text)
    body_el = soup.find(attrs={"itemprop": "articleBody"})
    if body_el is None:
        raise ParseError(url, "mail-archive.com page without MHonArc markers or articleBody")

    def prop(name: str) -> str:
        el = soup.find(attrs={"itemprop": name})
        if el is None:
            return ""
        return el.get("content") or el.get("datetime") or el.get_text(" ")

    return [
        build_message(
            url=url,
            raw=data,
            subject=prop("name"),
            from_value=prop("author"),
            date_raw=prop("datePublished"),
            body=render_text(body_el, preformatted=body_el.name == "pre"),
            lists=lists,
        )
    ]
