"""Decode one RFC 822 message into a :class:`~lkmlkb.model.Message`.

This is the hot path of every mail source (mbox, Maildir, .eml, public-inbox
git, lore HTTP), so it parses with the ``compat32`` policy and decodes the
few headers it needs itself: the ``policy.default`` path costs several times
more per message on real mail and raises on charsets real archives
hold (``unknown-8bit``, ``x-unknown``, ``none``).

Tolerated, each because real list mail has it: RFC 2047 words split across
charsets (gb2312 + Q), raw 8-bit UTF-8 or latin-1 header bytes, unknown or
missing charsets, base64 that does not decode, HTML-only mail,
format=flowed, NULs and lone surrogates (never reach SQLite), Outlook's
``References: <a>,<b>``, missing Message-ID (a content hash stands in).
"""

from __future__ import annotations

import codecs
import email
import email.errors
import email.header
import email.utils
import functools
import hashlib
import html
import logging
import quopri
import re
import warnings
from dataclasses import dataclass
from datetime import UTC
from email.message import Message as EmailMessage
from email.policy import compat32
from urllib.parse import quote

from lkmlkb.errors import ParseError
from lkmlkb.model import Message
from lkmlkb.sources.obfuscation import is_obfuscated

log = logging.getLogger(__name__)

LORE_R = "https://lore.kernel.org/r/"
SYNTHETIC_DOMAIN = "lkmlkb.invalid"
#: a header value is cut at this length (a hostile 1 MB To: header; real ones are far shorter)
MAX_HEADER_CHARS = 16_384
#: a Message-ID is cut at this length: RFC 5322's longest line
MAX_ID_CHARS = 998
#: header values longer than this are not kept in a cache (a hostile 1 MB Content-Type
#: or From would otherwise stay in memory with hundreds of others)
CACHED_VALUE_CHARS = 256

CHARSET_ALIASES = {
    # GBK-only characters are routinely sent declared as gb2312
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "ks_c_5601-1987": "cp949",
    "iso-8859-8-i": "iso-8859-8",
    "unicode-1-1-utf-7": "utf-7",
    "ansi_x3.4-1968": "ascii",
}

ANGLE_ID = re.compile(r"<([^<>\s]{1,998})>")
# ids written without angle brackets (some mailers, HTML archives)
# an id starts after a delimiter (lookbehind): unanchored, a long Message-ID header
# without "@" is rescanned 500 characters deep at every offset
BARE_ID = re.compile(r"(?<![^<>\s@])([^<>\s@]{1,500}@[^<>\s]{1,500})")
LIST_ID = re.compile(r"<([^<>\s]{1,300})>")
# "addr (Name)": old mailers and pipermail ("jack at suse.cz (Jan Kara)"); the
# comment must hold a name, so MARC's "a () b ! com" is not read as one
COMMENT_FROM = re.compile(
    r"""^(?P<addr>[^()<>"]{1,300}?)[ \t]{0,3}   # the address as shown
        \((?P<name>[^()]{1,200})\)[ \t]{0,3}$    # the name in a comment
    """,
    re.X,
)
# a folded header line break, as the email package leaves it in a value
FOLD = re.compile(r"\r?\n[ \t]+")
# raw 8-bit header bytes, as compat32 hands them back (surrogate escapes)
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")
#: the headers that decide how a body is decoded; the fast path keeps only these on its part
BODY_HEADERS = ("content-type", "content-transfer-encoding", "content-disposition")
#: every header :func:`parse_message` reads (the fast path finds only these)
HEADERS_READ = frozenset(
    {
        "message-id",
        "from",
        "x-original-from",
        "references",
        "in-reply-to",
        "date",
        "subject",
        "to",
        "cc",
        "list-id",
        *BODY_HEADERS,
    }
)
# a line of a header block that is neither the start of a field as the email feedparser reads
# one (a name of printable ASCII other than ":", no space (RFC 5322 2.2), then ":") nor a fold:
# the feedparser would end the header block there.  Searched in "\n" + the block.
NOT_A_FIELD = re.compile(r"\n(?![ \t]|[\x21-\x39\x3b-\x7e]{1,998}:)")
# a field parse_message reads, at a line's start (of "\n" + the block): its name, and its value
# as compat32 reads it (after ":" and leading blanks, folds kept, the last line end dropped)
FIELD_READ = re.compile(
    r"\n(%s):[ \t]*(.*(?:\n[ \t].*)*)" % "|".join(sorted(map(re.escape, HEADERS_READ))), re.I | re.A
)
#: the types :func:`extract_body` reads of a lone part as text (``text/html`` aside)
TEXT_TYPES = frozenset({"text/plain", "text/x-patch", "text/x-diff", "text/x-log", "application/x-patch"})
#: Content-Transfer-Encodings compat32 decodes; any other leaves the body's bytes as they are
DECODED_CTES = frozenset({"quoted-printable", "base64", "x-uuencode", "uuencode", "uue", "x-uue"})
ANGLE_ADDR = re.compile(r"^(?P<name>[^<>]{0,300}?)[ \t]{0,3}<(?P<addr>[^<>]{0,300})>[ \t]{0,3}$")


#: what lore_url leaves as it is (``quote``'s letters, digits and ``_.-~``, and its ``safe``)
_URL_SAFE = "@!$&'()*+,;=:~-._"
#: an id of those characters only: ``quote`` would give it back unchanged (most ids)
_PLAIN_ID = re.compile("[A-Za-z0-9_.~" + re.escape(_URL_SAFE) + "]*")


def lore_url(msgid: str) -> str:
    """``https://lore.kernel.org/r/<msgid>`` with the id percent-escaped as lore does (``/``, ``#``, ``?``, ``%``)."""
    if _PLAIN_ID.fullmatch(msgid):
        return LORE_R + msgid
    return LORE_R + quote(msgid, safe=_URL_SAFE)


def clean_text(s: str) -> str:
    """Remove what SQLite or a terminal must never see: NULs and lone surrogates."""
    if "\x00" in s:
        s = s.replace("\x00", "")
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        s = s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            s = s.encode("utf-8", "replace").decode("utf-8")
    return s


def cached_if_short(maxsize: int):
    """An LRU cache for a function of one header value that keeps only values of
    at most CACHED_VALUE_CHARS: an archive repeats a few short values (charsets,
    Content-Types, authors' From) thousands of times, while a hostile megabyte
    value must not stay in memory.  The wrapper has the cache's ``cache_info``."""

    def wrap(fn):
        cached = functools.lru_cache(maxsize=maxsize)(fn)

        @functools.wraps(fn)
        def call(value: str):
            return cached(value) if len(value) <= CACHED_VALUE_CHARS else fn(value)

        call.cache_info = cached.cache_info
        return call

    return wrap


def lookup_charset(name: str | None) -> str | None:
    """A Python codec name for a declared charset, or None for unknown ones."""
    if not name:
        return None
    return _lookup_charset(name)


@cached_if_short(256)
def _lookup_charset(name: str) -> str | None:
    name = name.strip().strip('"').lower()
    name = CHARSET_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except (LookupError, ValueError):
        return None


def decode_bytes(data: bytes, declared: str | None = None) -> str:
    """Declared charset, then utf-8, then cp1252, then latin-1 (never fails)."""
    for enc in (lookup_charset(declared), "utf-8", "cp1252"):
        if not enc:
            continue
        try:
            return data.decode(enc)
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode("latin-1")


def _header_str(value, keep_tail: bool = False) -> str:
    """compat32 hands back str (8-bit bytes as surrogates) or Header objects.

    Values past MAX_HEADER_CHARS are cut (a 1 MB To: header); ``keep_tail``
    keeps the end instead, for References, whose last ids are the nearest.
    """
    if value is None:
        return ""
    if isinstance(value, email.header.Header):
        value = _header_object_text(value)
    value = str(value)
    if len(value) > MAX_HEADER_CHARS:
        value = value[-MAX_HEADER_CHARS:] if keep_tail else value[:MAX_HEADER_CHARS]
    return value


def _header_object_text(value: email.header.Header) -> str:
    """The raw bytes of a compat32 ``Header`` as a surrogate-escaped str.

    compat32 hands back a ``Header`` (charset ``unknown-8bit``) for a header
    holding raw 8-bit bytes, e.g. ``From: 牛志国 ...`` sent unencoded in
    UTF-8; ``str()`` of it turns every such byte into U+FFFD.  Recovering the
    bytes lets :func:`decode_header` try UTF-8, then cp1252, like a body.
    """
    try:
        parts = email.header.decode_header(value)
        data = b"".join(p if isinstance(p, bytes) else p.encode("utf-8", "surrogateescape") for p, _ in parts)
        return data.decode("ascii", "surrogateescape")
    except (ValueError, LookupError, TypeError, AttributeError):
        return str(value)


def decode_header(value, keep_tail: bool = False) -> str:
    """Decode RFC 2047 encoded words and raw 8-bit bytes; unfold."""
    raw = _header_str(value, keep_tail)
    if not raw:
        return ""
    # raw 8-bit bytes arrive as surrogate escapes: recover and decode them
    if not raw.isascii() and ESCAPED_BYTE.search(raw):
        raw = decode_bytes(raw.encode("ascii", "surrogateescape"))
    if "=?" in raw:
        try:
            parts = email.header.decode_header(raw)
            out = []
            for chunk, charset in parts:
                if isinstance(chunk, bytes):
                    out.append(decode_bytes(chunk, charset))
                else:
                    out.append(chunk)
            raw = "".join(out)
        except (
            ValueError,
            AssertionError,
            LookupError,
            IndexError,
            TypeError,
            email.errors.MessageError,
        ) as exc:
            # HeaderParseError: an encoded word whose base64 does not decode (=?UTF-8?B?7a\x00?=)
            log.info("undecodable encoded word kept as written: %s", exc)
    if "\n" in raw or "\r" in raw:
        raw = FOLD.sub(" ", raw).replace("\r", "").replace("\n", " ")
    return clean_text(raw).strip()


def normalize_msgid(value: str) -> str | None:
    """The Message-ID without angle brackets or whitespace, or None."""
    if not value:
        return None
    m = ANGLE_ID.search(value)
    if m:
        mid = m.group(1)
    else:
        m = BARE_ID.search(value)
        if not m:
            return None
        mid = m.group(1)
    mid = clean_text(mid.strip())[:MAX_ID_CHARS]
    return mid or None


def find_msgids(value: str) -> list[str]:
    """Every id in a References / In-Reply-To header, in order, once each."""
    seen: dict[str, None] = {}
    for m in ANGLE_ID.finditer(value or ""):
        mid = clean_text(m.group(1))[:MAX_ID_CHARS]
        # old git-send-email prompt answers landed in In-Reply-To (public-inbox drops them)
        if mid and mid not in ("y", "n"):
            seen.setdefault(mid, None)
    return list(seen)


def parse_date(value: str) -> str | None:
    """ISO 8601 UTC for a Date header, or None when it cannot be read."""
    if not value:
        return None
    try:
        dt = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if dt is None:
        return None
    try:
        if dt.tzinfo is None:  # "-0000": unknown zone, taken as UTC like regzbot
            dt = dt.replace(tzinfo=UTC)
        return dt.astimezone(UTC).isoformat()
    except (OverflowError, ValueError):
        return None


def synthetic_id(raw: bytes) -> str:
    """A stable id for a message that has none: a hash of its content."""
    return hashlib.sha256(raw).hexdigest()[:32] + "@" + SYNTHETIC_DOMAIN


def _part_text(part: EmailMessage) -> str:
    """Decoded text of one leaf part, whatever its declared charset."""
    payload: bytes | None
    try:
        decoded = part.get_payload(decode=True)  # bytes, or None for a multipart
        payload = decoded if isinstance(decoded, bytes) else None
    except (ValueError, TypeError, AssertionError) as exc:  # broken base64 / QP
        log.info("undecodable transfer encoding: %s", exc)
        payload = None
    if payload is None:
        p = part.get_payload()
        if isinstance(p, str):
            payload = p.encode("ascii", "surrogateescape")
        else:
            return ""
    charset, flowed, delsp = content_params(part)
    text = decode_bytes(payload, charset)
    if flowed:
        text = unflow(text, delsp=delsp)
    return text


def content_params(part: EmailMessage) -> tuple[str | None, bool, bool]:
    """The declared charset of a part, and whether it is format=flowed (with delsp=yes).

    A few Content-Type values cover most of an archive, so their parameters
    are read once each (:func:`_params_of_value`).
    """
    value = part.get("Content-Type")
    if isinstance(value, str):
        return _params_of_value(value)
    return _params_of_part(part)  # absent, or a Header of raw 8-bit bytes


@cached_if_short(512)
def _params_of_value(value: str) -> tuple[str | None, bool, bool]:
    part = EmailMessage(policy=compat32)
    part.set_raw("Content-Type", value)
    return _params_of_part(part)


def _params_of_part(part: EmailMessage) -> tuple[str | None, bool, bool]:
    charset = part.get_param("charset")
    if isinstance(charset, tuple):  # RFC 2231
        charset = email.utils.collapse_rfc2231_value(charset)
    params = {k.lower(): (v or "").lower() for k, v in (part.get_params() or [])[1:] if isinstance(v, str)}
    return (
        (charset if isinstance(charset, str) else None),
        params.get("format") == "flowed",
        params.get("delsp") == "yes",
    )


def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 format=flowed, keeping each paragraph's quote depth."""
    out: list[str] = []
    pending: str | None = None
    pending_depth = -1
    for line in text.split("\n"):
        line = line.rstrip("\r")
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):  # space-stuffing
            content = content[1:]
        flowed = content.endswith(" ") and content != "-- "
        if pending is not None and depth == pending_depth:
            content = pending + content
        elif pending is not None:
            out.append(">" * pending_depth + (" " if pending_depth else "") + pending)
        pending = None
        if flowed:
            pending = content[:-1] if delsp else content
            pending_depth = depth
            continue
        out.append(">" * depth + (" " if depth and content else "") + content)
    if pending is not None:
        out.append(">" * pending_depth + (" " if pending_depth else "") + pending)
    return "\n".join(out)


def parse_html(text: str):
    """BeautifulSoup's tree of ``text`` by the stdlib parser, which tolerates unclosed and stray
    tags but gives up on the whole document at a ``<![`` section it does not know
    (``<![Download message RAW]``: "unknown status keyword"); such sections are then read as
    text, and a document it still rejects is read as text whole.  Never raises on what a page
    or an HTML mail holds."""
    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning
    from bs4.exceptions import ParserRejectedMarkup

    with warnings.catch_warnings():
        # a part or a page opening with "<?xml" is read as HTML on purpose: bs4's advice to use an
        # XML parser would only be noise on the ingest's output
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        for attempt in (text, text.replace("<![", "&lt;![")):
            try:
                return BeautifulSoup(attempt, "html.parser")
            except ParserRejectedMarkup as exc:
                log.info("HTML the parser rejects (%s); read again", str(exc).strip().splitlines()[-1][:200])
        return BeautifulSoup(html.escape(text), "html.parser")


def html_to_text(html: str) -> str:
    """HTML-only mail turned into text; block elements become line breaks."""
    soup = parse_html(html)
    for tag in soup(["script", "style", "head"]):
        tag.decompose()
    for br in soup.find_all("br"):
        br.replace_with("\n")
    return soup.get_text("\n" if soup.find(["p", "div"]) else "")


def _is_attachment(part: EmailMessage) -> bool:
    disp = _header_str(part.get("Content-Disposition")).lower()  # 8-bit bytes: a Header, not a str
    return disp.startswith("attachment")


def extract_body(msg: EmailMessage) -> str:
    """The readable text of a message: text/plain parts (inline first), else HTML.

    Patches sent as ``text/x-patch`` attachments are kept (appended), since a
    report's reproducer or fix often travels that way.
    """
    plain: list[str] = []
    extra: list[str] = []
    html: list[str] = []
    depth_guard = 0
    for part in msg.walk():
        depth_guard += 1
        if depth_guard > 500:  # nested multiparts 100 deep and more
            break
        if part.is_multipart():
            continue
        ctype = (part.get_content_type() or "text/plain").lower()
        if ctype == "text/plain":
            (extra if _is_attachment(part) else plain).append(_part_text(part))
        elif ctype in ("text/x-patch", "text/x-diff", "text/x-log", "application/x-patch"):
            extra.append(_part_text(part))
        elif ctype == "text/html":
            html.append(_part_text(part))
    if plain:
        text = "\n".join(plain + extra)
    elif html:
        text = "\n".join([html_to_text(h) for h in html] + extra)
    else:
        text = "\n".join(extra)
    return _body_text(text)


def _body_text(text: str) -> str:
    """A body's text with its line ends normalized and what SQLite must not see removed."""
    return clean_text(text.replace("\r\n", "\n").replace("\r", "\n"))


def list_ids(msg: EmailMessage | FirstHeaders, extra: list[str] | None = None) -> list[str]:
    """The lists a message belongs to: List-Id, then what the source says."""
    out: dict[str, None] = {}
    lid = decode_header(msg.get("List-Id"))
    if lid:
        m = LIST_ID.search(lid)
        out[(m.group(1) if m else lid).strip().lower()] = None
    for name in extra or []:
        if name:
            out[name.lower()] = None
    return list(out)


def split_from(value: str) -> tuple[str, str]:
    """Author name and address of a From header, the address as shown.

    ``email.utils.parseaddr`` mangles obfuscated forms (``jack at suse.cz
    (Jan Kara)`` -> ``jack``; ``a () b ! com`` -> ``a``); those are kept as
    the archive showed them, since is_obfuscated() flags them later.
    """
    value = (value or "")[:2000]
    m = COMMENT_FROM.match(value)
    if m:
        return m.group("name").strip().strip('"'), m.group("addr").strip()
    try:
        name, addr = email.utils.parseaddr(value)
    except (TypeError, ValueError, IndexError):
        name, addr = "", ""
    if is_obfuscated(value) and not is_obfuscated(addr):
        m = ANGLE_ADDR.match(value)
        if m:
            name, addr = m.group("name").strip().strip('"'), m.group("addr").strip()
        else:
            name, addr = "", value.strip()
    if not addr and not name:
        name = value
    return name, addr


class FirstHeaders(dict):
    """Lower-cased header name -> the first such header's value, looked up in
    any case: what compat32's ``Message.get`` returns (a str, or a ``Header``
    for a value holding raw 8-bit bytes), without its scan over every header."""

    def get(self, name, default=None):
        return dict.get(self, name.lower(), default)

    @classmethod
    def of(cls, msg: EmailMessage) -> FirstHeaders:
        first = cls()
        for name, value in msg.items():
            first.setdefault(name.lower(), value)
        return first


class ReadHeaders(FirstHeaders):
    """The fields :func:`read_simple` found: only those in HEADERS_READ (asking for another is a bug)."""

    def get(self, name, default=None):
        key = name.lower()
        if key not in HEADERS_READ:
            raise LookupError(f"{name}: not read by read_simple (add it to HEADERS_READ)")
        return dict.get(self, key, default)


@cached_if_short(512)
def _content_type(value: str) -> str:
    """compat32's ``get_content_type`` for a Content-Type value (str)."""
    ctype = value.partition(";")[0].strip().lower()
    return ctype if ctype.count("/") == 1 else "text/plain"


@dataclass(frozen=True, slots=True)
class LonePart:
    """The body of a message that is one text part, sent as it is or quoted-printable."""

    payload: bytes
    content_type: str | None  # the Content-Type value, or None without one
    quoted_printable: bool

    def text(self) -> str:
        """:func:`extract_body`'s text of it, before line ends are normalized (as :func:`_part_text`)."""
        payload = quopri.decodestring(self.payload) if self.quoted_printable else self.payload
        charset, flowed, delsp = (
            _params_of_value(self.content_type) if self.content_type is not None else (None, False, False)
        )
        text = decode_bytes(payload, charset)
        return unflow(text, delsp=delsp) if flowed else text


def read_simple(raw: bytes) -> tuple[FirstHeaders, EmailMessage | LonePart] | None:
    """Headers and body of a message, read without the email feedparser.

    The feedparser is pure Python and goes line by line; most list mail is a
    header block of ``Name: value`` lines (folded with leading whitespace),
    a blank line, and a single-part body.  For exactly that, this returns the
    headers parse_message reads (HEADERS_READ) as compat32 would read them
    (the first field of each name: the value after ``:`` without leading
    blanks, folds kept, line end dropped) and the body: for a lone text part
    sent as it is or quoted-printable (most list mail), a :class:`LonePart`
    that decodes it as :func:`extract_body` would; else a bare compat32
    part holding only the Content-* headers and the body, for
    :func:`extract_body`.  Anything else -- CR in the header block, a line
    that is neither a header nor a fold, no blank line, a multipart or
    message/* body -- gives None, and the email package reads the message.
    """
    end = raw.find(b"\n\n")
    if end <= 0:
        return None
    head = "\n" + raw[:end].decode("ascii", "surrogateescape")
    if "\r" in head or head[1] in " \t" or NOT_A_FIELD.search(head):
        return None
    first = ReadHeaders()
    body_fields = []
    for m in FIELD_READ.finditer(head):
        name, value = m.groups()
        key = name.lower()
        if key in BODY_HEADERS:
            body_fields.append((name, value))
        if key not in first:
            first[key] = value if value.isascii() else compat32.header_fetch_parse(name, value)
    ctype_value = first.get("Content-Type")
    cte = first.get("Content-Transfer-Encoding", "")
    if isinstance(ctype_value, str) and isinstance(cte, str):
        ctype = _content_type(ctype_value)
        cte = cte.lower()
    elif ctype_value is None and isinstance(cte, str):
        ctype, cte = "text/plain", cte.lower()
    else:  # a Header of raw 8-bit bytes: compat32 reads it
        ctype = cte = None
    if ctype in TEXT_TYPES and (cte == "quoted-printable" or cte not in DECODED_CTES):
        return first, LonePart(raw[end + 2 :], ctype_value, cte == "quoted-printable")
    part = EmailMessage(policy=compat32)
    for name, value in body_fields:
        part.set_raw(name, value)
    if part.get_content_maintype() in ("multipart", "message"):
        return None
    part.set_payload(raw[end + 2 :].decode("ascii", "surrogateescape"))
    return first, part


# authors write many messages: their From values (and addresses) are read once each
_split_from = cached_if_short(4096)(split_from)
_is_obfuscated = cached_if_short(8192)(is_obfuscated)


def parse_message(raw: bytes, source: str = "", lists: list[str] | None = None) -> Message:
    """Parse one raw message; ParseError only for input that is no mail at all."""
    if not isinstance(raw, (bytes, bytearray)):
        raise ParseError(source or "<message>", "not bytes")
    raw = bytes(raw)
    if raw.startswith(b"From ") and b"\n" in raw[:1000]:
        raw = raw.split(b"\n", 1)[1]  # mbox separator line
    simple = read_simple(raw)
    if simple:
        headers, msg = simple
    else:
        try:
            msg = email.message_from_bytes(raw, policy=compat32)
        except Exception as exc:  # the stdlib parser is tolerant; this is a last guard
            raise ParseError(source or "<message>", f"unparseable message: {exc.__class__.__name__}") from exc
        if not msg.keys():
            raise ParseError(source or "<message>", "no mail headers found")
        headers = FirstHeaders.of(msg)

    mid = normalize_msgid(decode_header(headers.get("Message-ID")))
    synthetic = mid is None
    if mid is None:
        mid = synthetic_id(raw)

    from_h = decode_header(headers.get("From"))
    name, addr = _split_from(from_h)
    # DMARC munging by Google Groups: "'X' via list" <list@googlegroups.com>
    orig = decode_header(headers.get("X-Original-From"))
    if orig and " via " in name:
        name, addr = email.utils.parseaddr(orig)

    refs = find_msgids(decode_header(headers.get("References"), keep_tail=True))
    irt_all = find_msgids(decode_header(headers.get("In-Reply-To")))
    irt = irt_all[0] if irt_all else (refs[-1] if refs else None)
    refs = [r for r in refs if r != mid]
    if irt == mid:
        irt = None

    date_raw = decode_header(headers.get("Date"))
    try:
        body = _body_text(msg.text()) if isinstance(msg, LonePart) else extract_body(msg)
    except Exception as exc:
        log.info("%s: body not decodable (%s); kept raw", source, exc)
        body = clean_text(decode_bytes(raw.split(b"\n\n", 1)[-1]))

    real_id = not synthetic and "@" in mid
    return Message(
        message_id=mid,
        subject=decode_header(headers.get("Subject")),
        from_name=clean_text(name.strip().strip('"')),
        from_addr=clean_text(addr.strip()),
        from_obfuscated=_is_obfuscated(addr) or _is_obfuscated(from_h),
        date_raw=date_raw,
        date_utc=parse_date(date_raw),
        in_reply_to=irt,
        references=refs,
        to=decode_header(headers.get("To")),
        cc=decode_header(headers.get("Cc")),
        body=body,
        raw=raw,
        lists=list_ids(headers, lists),
        archive_url=lore_url(mid) if real_id else None,
        source=source,
        synthetic_id=synthetic,
    )
