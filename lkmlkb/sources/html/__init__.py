"""HTML archive pages -> ``Message`` records, one module per site.

``parse_html_page`` decides the site from the URL's host (or, for a saved
file, from the generator's markers in the page) and hands the page to that
site's parser.  Every failure is a ``ParseError`` with a one-line reason;
hostile markup never escapes as another exception.

HTML archives lose headers, zones and addresses: use them to
find a Message-ID, then prefer lore's raw message.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from urllib.parse import urlsplit

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html import (
    hypermail,
    lkml_org,
    lore,
    mail_archive,
    marc,
    mhonarc,
    openwall,
    pipermail,
    spinics,
)
from lkmlkb.sources.html._common import decode_page

log = logging.getLogger(__name__)

__all__ = ["parse_html_page", "detect_site"]

Parser = Callable[[bytes, str, str], list[Message]]

_BY_HOST: list[tuple[tuple[str, ...], str]] = [
    (lore.HOSTS, "lore"),
    (lkml_org.HOSTS, "lkml_org"),
    (hypermail.HOSTS, "hypermail"),
    (marc.HOSTS, "marc"),
    (openwall.HOSTS, "openwall"),
    (spinics.HOSTS, "spinics"),
    (mail_archive.HOSTS, "mail_archive"),
]

_PARSERS: dict[str, Parser] = {
    "lore": lore.parse,
    "lkml_org": lkml_org.parse,
    "hypermail": hypermail.parse,
    "mhonarc": mhonarc.parse,
    "marc": marc.parse,
    "openwall": openwall.parse,
    "pipermail": pipermail.parse,
    "spinics": spinics.parse,
    "mail_archive": mail_archive.parse,
}


#: (site by host, generator by markup) pairs that the site's parser handles itself
_SAME_GENERATOR = {
    ("hypermail", "mhonarc"),
    ("spinics", "mhonarc"),
    ("mail_archive", "mhonarc"),
}


def site_from_url(url_or_path: str) -> str | None:
    """The site a URL belongs to (``lore``, ``marc``, ...), None for paths and unknown hosts."""
    if "://" not in url_or_path:
        return None
    try:
        parts = urlsplit(url_or_path[:4000])
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    for hosts, site in _BY_HOST:
        if host in hosts:
            return site
    if "/pipermail/" in parts.path:
        return "pipermail"
    return None


# script and style bodies are no markup of the page: "<script>document.write('<pre id=b>')" must not
# make an openwall page look like lore (bounded, non-greedy, so a missing end tag cannot run away)
_SCRIPT_RE = re.compile(r"<(script|style)\b[^>]{0,2000}>.{0,200000}?</\1\s{0,10}>", re.I | re.S)


def site_from_content(text: str) -> str | None:
    """The generator a page's markup shows (scripts and styles aside), None when nothing matches."""
    text = _SCRIPT_RE.sub(" ", text)
    checks: list[tuple[str, Callable[[str], bool]]] = [
        ("mhonarc", mhonarc.looks_like),
        ("hypermail", hypermail.looks_like_hypermail),
        ("pipermail", pipermail.looks_like),
        ("lore", lore.looks_like),
        ("marc", marc.looks_like),
        ("openwall", openwall.looks_like),
        ("lkml_org", lkml_org.looks_like),
    ]
    for site, test in checks:
        if test(text):
            return site
    return None


def detect_site(data: bytes, url_or_path: str) -> str | None:
    """Site name for a page: by URL host first, else by markup."""
    return site_from_url(url_or_path) or site_from_content(decode_page(data, url_or_path))


def parse_html_page(data: bytes, url_or_path: str) -> list[Message]:
    """Parse one archive page into Messages (one per message page).

    Raises ``ParseError`` (one-line reason naming ``url_or_path``) for pages
    that are not recognized or carry no message; never another exception.
    """
    where = url_or_path or "<html page>"
    text = decode_page(data, where)
    site = site_from_url(where)
    content_site = site_from_content(text)
    if site is None:
        site = content_site  # a saved page: trust the markup
    elif content_site is not None and content_site != site and (site, content_site) not in _SAME_GENERATOR:
        # a host serving another generator than expected (listman.redhat.com runs MHonArc)
        log.info("%s: host suggests %s but the markup is %s", where, site, content_site)
        site = content_site
    if site is None:
        raise ParseError(where, "not a recognized mail archive page")
    log.debug("%s: parsing as %s", where, site)
    try:
        messages = _PARSERS[site](bytes(data), text, where)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError(where, f"{site} page nests too deeply to parse") from None
    except (ValueError, TypeError, AttributeError, IndexError, KeyError, AssertionError) as exc:
        # bs4/html.parser on hostile markup; keep the reason to one line
        reason = " ".join(str(exc).split())[:200]
        raise ParseError(where, f"{site} page could not be parsed: {type(exc).__name__}: {reason}") from None
    for msg in messages:
        msg.source = where
    return messages
