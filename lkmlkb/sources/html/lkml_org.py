"""lkml.org message pages: ``/lkml/YYYY/M/D/N``.

Markup as third-party parsers and text captures of its pages show it:
schema.org ``itemprop`` attributes ``name`` (subject), ``author``,
``datePublished`` and ``articleBody`` (lines separated by ``<br>``).  The
From has its address stripped (``Name <>``), so every message is flagged
obfuscated; no Message-ID is shown, so ids are content hashes.
"""

from __future__ import annotations

import re

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html._common import build_message, render_text, soup_of, split_from

HOSTS = ("lkml.org", "www.lkml.org")


def looks_like(text: str) -> bool:
    """True for a page with schema.org ``articleBody`` and ``author`` props."""
    head = text[:2000000]
    return bool(re.search(r"itemprop=[\"']?articleBody", head)) and bool(
        re.search(r"itemprop=[\"']?author", head)
    )


def _prop_text(soup, name: str, skip_inside: str | None = None) -> str:
    """Text (or ``content`` attribute) of the first element with ``itemprop=name``."""
    for el in soup.find_all(attrs={"itemprop": name}, limit=50):
        if skip_inside and el.find_parent(attrs={"itemprop": skip_inside}) is not None:
            continue
        return el.get("content") or el.get("datetime") or el.get_text(" ")
    return ""


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse one lkml.org message page."""
    soup = soup_of(text)
    body_el = soup.find(attrs={"itemprop": "articleBody"})
    if body_el is None:
        raise ParseError(url, "lkml.org page without itemprop=articleBody")
    author = _prop_text(soup, "author")
    name, addr, _obf = split_from(author)
    return [
        build_message(
            url=url,
            raw=data,
            subject=_prop_text(soup, "name", skip_inside="author"),
            from_value=author,
            from_name=name,
            from_addr=addr,
            # lkml.org never shows the real address: "Name <>" or nothing at all
            from_obfuscated=True,
            date_raw=_prop_text(soup, "datePublished"),
            body=render_text(body_el, preformatted=body_el.name == "pre"),
            lists=["linux-kernel"],
        )
    ]
