"""lore.kernel.org (public-inbox) message pages: ``/<list>/<msgid>/``.

Markup per public-inbox's View.pm: one ``<pre id=b>`` holds
the decoded headers (From, To, Cc, Subject, Date ``[thread overview]``,
Message-ID ``(raw)``, In-Reply-To ``<<a href="../PARENT/">``) then a blank
line and the body, with quotes in ``<span class="q">`` and everything
non-ASCII as ``&#NNNN;``.  The mirrors (lore-kernel.gnuweeb.org,
lore.kerneltesting.org) serve the same pages.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote, urlsplit

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html._common import message_from_headers, render_text, soup_of, split_header_block

log = logging.getLogger(__name__)

HOSTS = ("lore.kernel.org", "lore-kernel.gnuweeb.org", "lore.kerneltesting.org", "lore.kernel.ime.usp.br")
_HEADERS = frozenset(["from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"])

_TRAILERS_RE = re.compile(
    r"""
      \s{0,5}\[thread\ overview\]\s{0,5}$   # Date: Thu, 7 Mar 2024 00:16:07 +0530  [thread overview]
    | \s{0,5}\(raw\)\s{0,5}$                # Message-ID: <...> (raw)
    """,
    re.VERBOSE,
)


def looks_like(text: str) -> bool:
    """True for a public-inbox message page (``<pre id=b>`` or ``id="b"``)."""
    head = text[:200000]
    return bool(re.search(r"<pre\s{1,5}id=[\"']?b\b", head, re.IGNORECASE)) and "Message-ID:" in head


def list_from_url(url: str) -> list[str]:
    """``https://lore.kernel.org/linux-block/<msgid>/`` -> ``["linux-block"]`` (not ``all``/``r``)."""
    try:
        path = urlsplit(url).path if "://" in url else ""
    except ValueError:
        return []
    first = unquote(path.strip("/").split("/")[0]) if path.strip("/") else ""
    return [first] if first and first not in ("all", "r") and "@" not in first else []


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse one lore message page into a Message.

    Tolerates a missing ``id=b`` (then the first ``<pre>`` starting with a
    header line), missing headers and a missing In-Reply-To.
    """
    soup = soup_of(text)
    pre = soup.find("pre", id="b")
    if pre is None:
        for cand in soup.find_all("pre", limit=20):
            if cand.get_text()[:200].lstrip().startswith(("From:", "Subject:")):
                pre = cand
                break
    if pre is None:
        raise ParseError(url, "lore page without a <pre id=b> message block")
    content = render_text(pre, preformatted=True)
    headers, body = split_header_block(content, _HEADERS)
    if not headers:
        raise ParseError(url, "lore page: no header lines in the message block")
    for key in ("date", "message-id"):
        if key in headers:
            headers[key] = _TRAILERS_RE.sub("", headers[key])
    refs = headers.get("references", "")
    return [
        message_from_headers(
            url,
            data,
            headers,
            body,
            list_from_url(url),
            references=re.findall(r"<([^<>\s]{1,998})>", refs[:20000]),
        )
    ]
