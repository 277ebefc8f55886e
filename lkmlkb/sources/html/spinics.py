"""spinics.net list archives: ``/lists/<list>/msgNNNNN.html`` (MHonArc).

spinics runs MHonArc with SPAMMODE (``tj@xxxxxxxxxx``), so
the shared MHonArc parser does the work; this module adds the list name
from the URL.
"""

from __future__ import annotations

import re

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html import mhonarc

HOSTS = ("www.spinics.net", "spinics.net", "mail.spinics.net")

_LIST_RE = re.compile(
    r"/lists/([A-Za-z0-9._+-]{1,100})/"
)  # https://www.spinics.net/lists/linux-block/msg12345.html


def list_from_url(url: str) -> list[str]:
    """``.../lists/linux-block/msg1.html`` -> ``["linux-block"]``."""
    m = _LIST_RE.search(url[:2000])
    return [m.group(1)] if m else []


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse a spinics.net message page."""
    if not mhonarc.looks_like(text):
        raise ParseError(url, "spinics page without MHonArc markers")
    return mhonarc.parse(data, text, url, lists=list_from_url(url))
