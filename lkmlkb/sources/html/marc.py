"""marc.info message pages: ``?l=<list>&m=<id>&w=2``.

Markup checked on a real 2016 page: title
``'<subject>' - MARC``; one ``<pre>`` holding the nav line, a
``<b><font size=+1>`` block with ``List:``, ``Subject:``, ``From:``,
``Date:`` (``2016-07-31 20:18:42``, no zone) and ``Message-ID:``, then
``[Download message RAW]``, the body, and the nav line again.  Addresses
and Message-IDs are written ``a () b ! com``, which is undone.
"""

from __future__ import annotations

import re

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.html._common import MAX_LINE_CHARS, build_message, render_text, soup_of
from lkmlkb.sources.obfuscation import deobfuscate

HOSTS = ("marc.info", "www.marc.info")

_HEADER_RE = re.compile(
    r"""
    ^ (?P<name>List|Subject|From|Date|Message-ID) : [ \t]{1,40} (?P<value>[^\n]{0,4000}) $   # "From:       Britton Kerin <...>"
    """,
    re.VERBOSE | re.MULTILINE,
)
_NAV_RE = re.compile(
    r"^\[\s{0,3}(?:prev|next) in (?:list|thread)\s{0,3}\]"
)  # "[prev in list] [next in list] ..."
_RAW_LINK = "[Download message RAW]"


def looks_like(text: str) -> bool:
    """True for a MARC page (title ends in ``- MARC`` and the RAW link is there)."""
    head = text[:200000]
    return "- MARC</title>" in head and "Download message RAW" in head


def parse(data: bytes, text: str, url: str) -> list[Message]:
    """Parse one MARC message page."""
    soup = soup_of(text)
    pre = None
    for cand in soup.find_all("pre", limit=20):
        if _RAW_LINK in cand.get_text():
            pre = cand
            break
    if pre is None:
        raise ParseError(url, "MARC page without the message <pre>")
    content = render_text(pre, preformatted=True)
    headers: dict[str, str] = {}
    for m in _HEADER_RE.finditer(content.split(_RAW_LINK, 1)[0][:200000]):
        headers.setdefault(m.group("name").lower(), m.group("value").strip()[:MAX_LINE_CHARS])
    body = _body_lines(content)
    msgid = headers.get("message-id", "")
    real_id = deobfuscate(msgid) if "()" in msgid else (msgid or None)
    return [
        build_message(
            url=url,
            raw=data,
            subject=headers.get("subject", ""),
            from_value=headers.get("from", ""),
            date_raw=headers.get("date", ""),
            message_id=real_id,
            body=body,
            lists=[headers["list"]] if headers.get("list") else [],
        )
    ]


def _body_lines(content: str) -> str:
    """Lines after ``[Download message RAW]`` up to the closing nav line."""
    _, _, rest = content.partition(_RAW_LINK)
    lines = rest.split("\n")[1:]
    while lines and _NAV_RE.match(lines[-1].strip()[:200]) is None and not lines[-1].strip():
        lines.pop()
    if lines and _NAV_RE.match(lines[-1].strip()[:200]):
        lines.pop()
    text = "\n".join(lines).strip("\n")
    return text + "\n" if text else ""
