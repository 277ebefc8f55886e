"""Helpers shared by the per-site HTML parsers.

Decoding page bytes, turning an HTML fragment into the plain text of a mail
body (without recursion, so 10,000-deep nesting is fine), parsing the date
forms the archives show, splitting ``Name <addr>``, and building the
``Message`` record with a synthetic id when a page shows none.
"""

from __future__ import annotations

import codecs
import hashlib
import html
import logging
import re
from datetime import UTC, datetime, timedelta, timezone
from email.utils import parsedate_tz

from bs4 import BeautifulSoup, Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag
from bs4.element import CData

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.mail import lore_url
from lkmlkb.sources.mail import parse_html as soup_of  # the stdlib parser, kept from giving up on a page
from lkmlkb.sources.obfuscation import deobfuscate, is_obfuscated

log = logging.getLogger(__name__)

#: pages larger than this are refused (a real message page is well under 1 MB)
MAX_PAGE_BYTES = 20 * 1024 * 1024
#: header-ish lines longer than this are cut before any regex sees them
MAX_LINE_CHARS = 4000
SYNTHETIC_DOMAIN = "lkmlkb.invalid"

_META_CHARSET_RE = re.compile(
    rb"""
    <meta [^>]{0,300}? charset \s{0,3} = \s{0,3} ["']? ([A-Za-z0-9_.:-]{1,40})
    # <meta charset="utf-8"> and <meta http-equiv=... content="text/html; charset=iso-8859-2">
    """,
    re.VERBOSE | re.IGNORECASE,
)
# Declared charsets that MHonArc and friends write regardless of the real bytes
# (lkml.iu.edu says iso-8859-2 on UTF-8 pages): never trusted over valid UTF-8.
_UNTRUSTED_CHARSETS = {"iso8859-1", "iso8859-2", "latin-1", "ascii", "iso8859-15"}


def decode_page(data: bytes, where: str) -> str:
    """Decode page bytes: UTF-8 if valid, else the declared charset, else cp1252.

    Tolerates a wrong or bogus declared charset, NUL bytes (dropped) and
    non-bytes input (ParseError).  Refuses pages over ``MAX_PAGE_BYTES``.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ParseError(where, f"page is {type(data).__name__}, not bytes")
    data = bytes(data)
    if len(data) > MAX_PAGE_BYTES:
        raise ParseError(where, f"page is {len(data)} bytes, over the {MAX_PAGE_BYTES} byte limit")
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = _META_CHARSET_RE.search(data[:4096])
    if m:
        name = m.group(1).decode("ascii", "replace")
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            codec = ""
        if codec and codec not in _UNTRUSTED_CHARSETS:
            try:
                return data.decode(codec)
            except (UnicodeDecodeError, LookupError):
                log.info("%s: declared charset %s does not fit the bytes", where, name)
    return data.decode("cp1252", errors="replace")


_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "ul",
        "ol",
        "li",
        "tr",
        "table",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "blockquote",
        "dl",
        "dt",
        "dd",
        "center",
        "form",
    ]
)
_SKIP_TAGS = frozenset(
    ["script", "style", "head", "title", "noscript", "iframe", "object", "template", "select"]
)
_PRE_TAGS = frozenset(["pre", "xmp", "listing", "plaintext"])


class _End:
    """Marker pushed after a tag's children: the tag closes here."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


def render_text(node: Tag | BeautifulSoup, preformatted: bool = False) -> str:
    """The plain text a reader sees in an HTML fragment, as mail body lines.

    ``<br>`` is a newline (a source newline right after it is dropped, so both
    lkml.org's ``<br />``-only ``<pre>`` and MHonArc's ``<br>\\n`` work);
    ``<p>`` is a blank line, other blocks start a new line; scripts and
    styles are skipped; entities are unescaped by the parser, ``&nbsp;``
    becomes a space.  Outside ``<pre>`` source newlines at the edges of a
    text node are layout and vanish, inner ones are spaces.  Iterative, so
    nesting depth does not matter.
    """
    out: list[str] = []
    after_br = False
    stack: list[tuple[object, bool]] = [(node, preformatted)]
    while stack:
        item, pre = stack.pop()
        if isinstance(item, _End):
            if item.name in _BLOCK_TAGS:
                _ensure_newline(out)
            continue
        if isinstance(item, Comment | Declaration | Doctype | ProcessingInstruction | CData):
            continue
        if isinstance(item, NavigableString):
            text = str(item)
            if not pre:
                text = text.strip("\r\n").replace("\r", "").replace("\n", " ")
            elif after_br and text.startswith(("\n", "\r\n")):
                text = text[2:] if text.startswith("\r\n") else text[1:]
            if text:
                out.append(text)
                after_br = False
            continue
        if not isinstance(item, Tag):
            continue
        name = (item.name or "").lower()
        if name in _SKIP_TAGS:
            continue
        if name == "br":
            out.append("\n")
            after_br = True
            continue
        if name == "p":
            _ensure_blank_line(out)
        elif name in _BLOCK_TAGS:
            _ensure_newline(out)
        child_pre = pre or name in _PRE_TAGS
        stack.append((_End(name), pre))
        stack.extend((child, child_pre) for child in reversed(item.contents))
    return _tidy_body("".join(out))


def _ensure_newline(out: list[str]) -> None:
    """End the current line unless the output already sits at a line start."""
    if out and not out[-1].endswith("\n"):
        out.append("\n")


def _ensure_blank_line(out: list[str]) -> None:
    """Put one blank line (hypermail writes ``<P>`` for an empty mail line)."""
    if not out:
        return
    tail = "".join(out[-2:])
    if tail.endswith("\n\n"):
        return
    out.append("\n" if tail.endswith("\n") else "\n\n")


def _tidy_body(text: str) -> str:
    """Normalize newlines and spaces, drop leading/trailing blank lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ")
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + ("\n" if lines else "")


def fragment_text(fragment_html: str, preformatted: bool = False) -> str:
    """Plain text of an HTML fragment string (see ``render_text``)."""
    return render_text(soup_of(fragment_html), preformatted)


def unescape_comment(value: str) -> str:
    """Unescape a value from an HTML comment (``&#45;`` ``&#38;`` ``&#60;`` ``&quot;``)."""
    return html.unescape(value[:MAX_LINE_CHARS]).strip()


# --- dates -------------------------------------------------------------------

_TZ_ABBREV = {
    "UT": 0,
    "UTC": 0,
    "GMT": 0,
    "Z": 0,
    "EST": -5,
    "EDT": -4,
    "CST": -6,
    "CDT": -5,
    "MST": -7,
    "MDT": -6,
    "PST": -8,
    "PDT": -7,
    "CET": 1,
    "CEST": 2,
    "BST": 1,
    "IST": 5.5,
    "JST": 9,
}

_DATE_FORMS_RE = re.compile(
    r"""
    ^ (?:[A-Za-z]{3},?\s{1,3})?                      # optional weekday
    (?:
        (?P<iso_y>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2})      # MARC: 2016-07-31 20:18:42
        [T\s]{1,3}
        (?P<iso_t>\d{1,2}:\d{2}(?::\d{2})?)
        \s{0,3}(?P<iso_z>[+-]\d{2}:?\d{2}|Z|[A-Z]{2,5})?
      |
        (?P<hm_mon>[A-Za-z]{3})\s{1,3}(?P<hm_d>\d{1,2})\s{1,3}(?P<hm_y>\d{4})   # lkml.iu.edu:
        \s{1,3}-\s{1,3}(?P<hm_t>\d{1,2}:\d{2}(?::\d{2})?)                       # Mon Jun 25 2001 - 11:52:59 EST
        \s{0,3}(?P<hm_z>[A-Z]{2,5})?
    ) \s{0,5} $
    """,
    re.VERBOSE,
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}


def parse_date(raw: str) -> str | None:
    """ISO 8601 UTC for the date forms archives show, or None.

    RFC 2822 (``Thu, 7 Mar 2024 00:16:07 +0530``), ctime with a zone name
    (pipermail ``Thu Feb 11 20:15:18 CST 2016``), MARC's zone-less
    ``2016-07-31 20:18:42`` (taken as UTC) and lkml.iu.edu's
    ``Mon Jun 25 2001 - 11:52:59 EST``.
    """
    s = (raw or "")[:200].strip()
    if not s:
        return None
    try:
        tup = parsedate_tz(s)
    except (TypeError, ValueError, IndexError, OverflowError):
        tup = None
    if tup is not None:
        try:
            dt = datetime(*tup[:6], tzinfo=timezone(timedelta(seconds=tup[9] or 0)))
            return dt.astimezone(UTC).isoformat()
        except (ValueError, OverflowError):
            return None
    m = _DATE_FORMS_RE.match(s)
    if not m:
        log.debug("unparseable archive date %r", s)
        return None
    try:
        if m.group("iso_y"):
            y, mo, d = int(m.group("iso_y")), int(m.group("iso_m")), int(m.group("iso_d"))
            hms, zone = m.group("iso_t"), m.group("iso_z")
        else:
            mo = _MONTHS.get(m.group("hm_mon").lower(), 0)
            y, d = int(m.group("hm_y")), int(m.group("hm_d"))
            hms, zone = m.group("hm_t"), m.group("hm_z")
        parts = [int(p) for p in hms.split(":")] + [0]
        offset = _zone_offset(zone)
        dt = datetime(y, mo, d, parts[0], parts[1], parts[2], tzinfo=timezone(offset))
        return dt.astimezone(UTC).isoformat()
    except (ValueError, OverflowError, AttributeError):
        return None


def _zone_offset(zone: str | None) -> timedelta:
    """Offset of ``+0530``/``-04:00``/``EST``; unknown or missing zones count as UTC."""
    if not zone:
        return timedelta(0)
    if zone[0] in "+-":
        digits = zone[1:].replace(":", "")
        sign = -1 if zone[0] == "-" else 1
        return sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    return timedelta(hours=_TZ_ABBREV.get(zone.upper(), 0))


# --- names, ids, records -----------------------------------------------------

_NAME_ADDR_RE = re.compile(
    r"""
    ^ \s{0,5} "? (?P<name>[^<>"]{0,300}?) "? \s{0,5} < (?P<addr>[^<>]{0,300}) > \s{0,5} $   # Name <addr>, Name <>
    """,
    re.VERBOSE,
)
_PAREN_ADDR_RE = re.compile(
    r"""
    ^ \s{0,5} (?P<addr>[^\s()]{1,300}) \s{1,5} \( (?P<name>[^()]{0,300}) \) \s{0,5} $   # addr (Name), 1990s mail
    """,
    re.VERBOSE,
)


def split_from(value: str) -> tuple[str, str, bool]:
    """Split a shown From into (name, address, obfuscated).

    Tolerates ``Name <addr>``, ``"Name" <addr>``, ``Name <>`` (lkml.org),
    ``addr (Name)``, a bare address, a bare name, and obfuscated addresses,
    which are recovered where ``deobfuscate`` can and flagged otherwise.
    """
    s = " ".join((value or "")[:MAX_LINE_CHARS].split())
    name, addr = s, ""
    m = _NAME_ADDR_RE.match(s)
    if m:
        name, addr = m.group("name").strip(), m.group("addr").strip()
        if not addr:
            return name, "", True
    else:
        m = _PAREN_ADDR_RE.match(s)
        if m and ("@" in m.group("addr") or "()" in s):
            name, addr = m.group("name").strip(), m.group("addr").strip()
        elif "@" in s and " " not in s.strip() or is_obfuscated(s) and " at " in s:
            name, addr = "", s.strip()
    if addr and is_obfuscated(addr):
        # shown obfuscated: keep the recovered address where it can be undone
        return name, (deobfuscate(addr) or addr), True
    if not addr and is_obfuscated(s):
        return _PROTECTED_RE.sub("", name).strip(), "", True
    return name, addr, False


_PROTECTED_RE = re.compile(
    r"""\[\s?email\s?protected\s?\]   # mail-archive.com "Name [EMAIL PROTECTED]", Cloudflare "[email protected]"
    """,
    re.VERBOSE | re.IGNORECASE,
)
# anchored at the start (\A): it reads one whitespace-free token; unanchored, a
# search over a long run of id characters tried 998 lengths at every offset
_MSGID_RE = re.compile(r"\A<?\s{0,3}([^\s<>]{1,998}?)\s{0,3}>?\s{0,3}$")


def clean_msgid(value: str | None) -> str | None:
    """A Message-ID without ``<>`` and whitespace, or None when there is none."""
    s = html.unescape((value or "")[:MAX_LINE_CHARS]).strip()
    if not s:
        return None
    m = re.search(r"<([^<>\s]{1,998})>", s)
    if m:
        return m.group(1)
    m = _MSGID_RE.match(s.split()[0] if s.split() else "")
    return m.group(1) if m else None


def synthetic_id(*parts: str) -> str:
    """A stable id from page content: ``sha256(...)[:32]@lkmlkb.invalid``."""
    h = hashlib.sha256()
    for p in parts:
        h.update((p or "").encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return f"{h.hexdigest()[:32]}@{SYNTHETIC_DOMAIN}"


def build_message(
    *,
    url: str,
    raw: bytes,
    subject: str = "",
    from_value: str = "",
    from_name: str | None = None,
    from_addr: str | None = None,
    from_obfuscated: bool | None = None,
    date_raw: str = "",
    message_id: str | None = None,
    in_reply_to: str | None = None,
    references: list[str] | None = None,
    to: str = "",
    cc: str = "",
    body: str = "",
    lists: list[str] | None = None,
) -> Message:
    """Assemble a Message from what a page shows, filling the derived fields.

    ``from_value`` is split with ``split_from`` unless name/addr are given.
    An id that is missing or itself obfuscated becomes a content hash
    (``synthetic_id=True``); a real id also gets its lore ``/r/`` link.
    """
    name, addr, obf = split_from(from_value)
    if from_name is not None:
        name = from_name
    if from_addr is not None:
        addr = from_addr
    if from_obfuscated is not None:
        obf = from_obfuscated
    subject = " ".join(subject.split())
    msgid = clean_msgid(message_id)
    if msgid and is_obfuscated(msgid.replace("()", " () ") if "()" in msgid else msgid):
        log.info("%s: Message-ID %r is obfuscated by the archive; using a content hash", url, msgid)
        msgid = None
    synthetic = msgid is None
    if msgid is None:
        msgid = synthetic_id(subject, name, addr, date_raw.strip(), body)
    # the page it was read from; else, for a real Message-ID, its lore link
    # (a saved file's path is not an archive URL)
    archive_url = url if "://" in (url or "") else (None if synthetic else lore_url(msgid))
    refs = [r for r in (clean_msgid(x) for x in (references or [])) if r]
    irt = clean_msgid(in_reply_to)
    if irt and refs and refs[-1] != irt:
        refs.append(irt)
    elif irt and not refs:
        refs = [irt]
    return Message(
        message_id=msgid,
        subject=subject,
        from_name=name,
        from_addr=addr,
        from_obfuscated=obf,
        date_raw=date_raw.strip(),
        date_utc=parse_date(date_raw),
        in_reply_to=irt,
        references=refs,
        to=" ".join(to.split()),
        cc=" ".join(cc.split()),
        body=body,
        raw=raw,
        lists=list(lists or []),
        archive_url=archive_url,
        source=url,
        synthetic_id=synthetic,
    )


def message_from_headers(
    url: str, raw: bytes, headers: dict[str, str], body: str, lists: list[str], **fields
) -> Message:
    """:func:`build_message` of a page that shows the message's header block (names lower-cased,
    as :func:`split_header_block` gives them) above its body; ``fields`` adds or overrides."""
    return build_message(
        url=url,
        raw=raw,
        subject=headers.get("subject", ""),
        from_value=headers.get("from", ""),
        date_raw=headers.get("date", ""),
        message_id=headers.get("message-id"),
        in_reply_to=headers.get("in-reply-to"),
        to=headers.get("to", ""),
        cc=headers.get("cc", ""),
        body=body.strip("\n") + "\n" if body.strip() else "",
        lists=lists,
        **fields,
    )


_HEADER_LINE_RE = re.compile(
    r"""
    ^ (?P<name>[A-Za-z][A-Za-z0-9-]{0,40}) : [ \t]{0,40} (?P<value>.*) $   # "Subject: ...", "Message-ID:\t<..>"
    """,
    re.VERBOSE,
)


def split_header_block(text: str, known: frozenset[str]) -> tuple[dict[str, str], str]:
    """Split ``Name: value`` lines (with folded continuations) from the body.

    The header block ends at the first blank line or at the first line that
    is neither a known header nor a continuation.  Returns lower-cased names
    mapped to values, and the rest of the text.  Lines over
    ``MAX_LINE_CHARS`` are cut before matching.
    """
    lines = text.split("\n")
    headers: dict[str, str] = {}
    last: str | None = None
    i = 0
    for i, line in enumerate(lines):
        if not line.strip():
            i += 1
            break
        short = line[:MAX_LINE_CHARS]
        m = _HEADER_LINE_RE.match(short)
        if m and m.group("name").lower() in known:
            last = m.group("name").lower()
            headers.setdefault(last, m.group("value").strip())
            continue
        if last is not None and short[:1] in (" ", "\t"):
            headers[last] = (headers[last] + " " + short.strip()).strip()
            continue
        break
    else:
        i = len(lines)
    return headers, "\n".join(lines[i:])
