"""lists.openwall.net (blists) message pages: ``/<list>/YYYY/MM/DD/N``.

Markup as text captures of its pages show it: a nav line ``[<prev] [next>]
[<thread-prev] [thread-next>] [day] [month] [year] [list]``, then one
``<pre>`` with ``Message-ID:`` (missing on some old pages), ``Date:``,
``From:``, ``To:``, ``Cc:``, ``Subject:`` lines (tab- or space-aligned), a
blank line and the body; footer "Powered by blists".  No In-Reply-To.
Addresses lose the first three domain characters (``@...cle.com``), which
also spoils Message-IDs: those become content hashes.
"""

from __future__ import annotations

import re

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html._common import message_from_headers, render_text, soup_of, split_header_block

HOSTS = ("lists.openwall.net", "www.openwall.com")
_HEADERS = frozenset(["message-id", "date", "from", "to", "cc", "subject", "in-reply-to", "references"])
_LIST_RE = re.compile(
    r"openwall\.(?:net|com)/(?:lists/)?([A-Za-z0-9._+-]{1,100})/\d{4}/"
)  # /linux-block/2024/03/07/1


def looks_like(text: str) -> bool:
    """True for a blists page."""
    return "Powered by blists" in text[-20000:] or "Powered by blists" in text[:2000000]


def list_from_url(url: str) -> list[str]:
    """``https://lists.openwall.net/linux-block/2024/03/07/1`` -> ``["linux-block"]``."""
    m = _LIST_RE.search(url[:2000])
    return [m.group(1)] if m else []


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse one blists message page."""
    soup = soup_of(text)
    for pre in soup.find_all("pre", limit=20):
        content = render_text(pre, preformatted=True)
        headers, body = split_header_block(content, _HEADERS)
        if "from" in headers or "subject" in headers:
            break
    else:
        raise ParseError(url, "blists page without a header <pre>")
    return [message_from_headers(url, data, headers, body, list_from_url(url))]
