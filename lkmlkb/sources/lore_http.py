"""lore.kernel.org (public-inbox) over HTTP: threads, raw messages, Atom discovery.

lore's URLs: ``/<list>/<msgid>/t.mbox.gz`` (gzipped mboxrd of the
whole thread), ``/<list>/<msgid>/raw`` (one mboxrd message),
``/<list>/new.atom`` (newest 25) and ``/<list>/?q=...&x=A`` (search as Atom).
Atom is used for discovery only; content always comes from ``/raw``.

The client is polite and bounded: an on-disk cache keyed by URL (a hit makes
no request), a minimum interval between requests, a User-Agent naming the
project, retries with backoff on 5xx/429/timeouts, redirects followed only to
allowed hosts, capped response size and capped gzip expansion.  Every
networked call has an offline twin: ``parse_saved(path)`` reads a saved
response (``--load FILE``).  Only the stdlib is used (urllib, xml.etree).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from urllib.parse import quote, quote_plus, unquote, urljoin, urlsplit

from lkmlkb.errors import FetchError, LimitExceeded, ParseError, SourceError
from lkmlkb.model import Message
from lkmlkb.sources.mail import parse_message
from lkmlkb.sources.mbox import iter_mbox_bytes

log = logging.getLogger(__name__)

DEFAULT_BASE = "https://lore.kernel.org"
DEFAULT_HOSTS = ("lore.kernel.org", "lore-kernel.gnuweeb.org", "lore.kerneltesting.org")
USER_AGENT = "lkmlkb/0.1 (+https://github.com/lkmlkb/lkmlkb)"
#: one response (a t.mbox.gz of a very long thread is a few MB)
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: a t.mbox.gz may not expand past this
DEFAULT_MAX_EXPANDED = 512 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
ATOM_NS = "{http://www.w3.org/2005/Atom}"
THR_NS = "{http://purl.org/syndication/thread/1.0}"

_LORE_PREFIX_RE = re.compile(
    r"""
    ^ lore: \s{0,3} <? (?P<id>[^\s<>]{1,998}?) >? $     # lore:<5ce2ae5d-...@oracle.com>, lore:5ce2...@oracle.com
    """,
    re.VERBOSE | re.IGNORECASE,
)
_BRACKETED_ID_RE = re.compile(
    r"""
    ^ < (?P<id>[^\s<>@]{1,500} @ [^\s<>@]{1,400}) > $   # <5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com>
    """,
    re.VERBOSE,
)
_BARE_ID_RE = re.compile(
    r"""
    ^ (?P<id>[^\s<>@/]{1,500} @ [^\s<>@/]{1,400}) $     # 5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com
    """,
    re.VERBOSE,
)
_ENDPOINTS = ("t.mbox.gz", "raw", "T", "t", "t.atom", "")


def is_lore_source(s: str, hosts: tuple[str, ...] = DEFAULT_HOSTS) -> bool:
    """True for lore URLs (``https://lore.kernel.org/...`` and mirrors), ``lore:<msgid>``,
    ``<msgid>`` and a bare ``id@host`` without slashes or spaces."""
    if not isinstance(s, str) or not s or len(s) > 2000:
        return False
    s = s.strip()
    if "://" in s:
        try:
            parts = urlsplit(s)
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and (parts.hostname or "").lower() in hosts
    return bool(_LORE_PREFIX_RE.match(s) or _BRACKETED_ID_RE.match(s) or _BARE_ID_RE.match(s))


def split_lore_ref(s: str) -> tuple[str | None, str]:
    """(list or None, msgid) from a lore URL, ``lore:<id>``, ``<id>`` or a bare id.

    ``https://lore.kernel.org/linux-block/<id>/T/#u`` gives
    ``("linux-block", id)``; ``/r/<id>`` and ``/all/<id>`` give ``(None, id)``.
    Raises SourceError for strings that carry no Message-ID.
    """
    s = (s or "").strip()[:2000]
    if "://" in s:
        try:
            path = urlsplit(s).path
        except ValueError:
            raise SourceError(s, "not a URL") from None
        segs = [seg for seg in path.split("/") if seg]
        while segs and segs[-1] in _ENDPOINTS:
            segs.pop()
        if len(segs) >= 2:
            lst, mid = segs[0], unquote(segs[1])
            return (None if lst in ("r", "all") else lst), mid.strip("<>")
        if len(segs) == 1 and "@" in unquote(segs[0]):
            return None, unquote(segs[0]).strip("<>")
        raise SourceError(s, "lore URL without a Message-ID")
    for rx in (_LORE_PREFIX_RE, _BRACKETED_ID_RE, _BARE_ID_RE):
        m = rx.match(s)
        if m:
            return None, m.group("id")
    raise SourceError(s or "<empty>", "not a Message-ID or lore URL")


def quote_msgid(msgid: str) -> str:
    """Escape a Message-ID for a lore path (``/`` becomes ``%2F``, as public-inbox does)."""
    return quote(msgid, safe="@!$&'()*+,;=:~-._")


# --- gzip and Atom -----------------------------------------------------------


def gunzip_capped(data: bytes, limit: int, where: str) -> bytes:
    """Expand a gzip body, refusing more than ``limit`` bytes of output.

    Tolerates concatenated gzip members; a body without the gzip magic is
    returned as is (a server that already decoded it).
    """
    if not data.startswith(GZIP_MAGIC):
        return data
    out = bytearray()
    rest = data
    while rest.startswith(GZIP_MAGIC):
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            chunk = d.decompress(rest, limit + 1 - len(out))
            out += chunk
            while d.unconsumed_tail and len(out) <= limit:
                out += d.decompress(d.unconsumed_tail, limit + 1 - len(out))
        except zlib.error as exc:
            raise SourceError(where, f"corrupt gzip ({exc})") from None
        if len(out) > limit:
            raise LimitExceeded(where, f"gzip expands past {limit} bytes (limit)")
        if not d.eof:
            raise SourceError(where, "truncated gzip (compressed stream ends early)")
        rest = d.unused_data
    return bytes(out)


@dataclass
class AtomEntry:
    """One ``<entry>`` of a public-inbox Atom feed."""

    message_id: str
    link: str
    title: str = ""
    author_name: str = ""
    author_email: str = ""
    updated: str = ""
    in_reply_to: str | None = None
    content: str = ""


def msgid_from_link(href: str) -> str | None:
    """Message-ID from a public-inbox link ``https://lore.kernel.org/<list>/<msgid>/``."""
    try:
        _lst, mid = split_lore_ref(href)
    except SourceError:
        return None
    return mid or None


def parse_atom(data: bytes, where: str = "<atom>") -> list[AtomEntry]:
    """Entries of a public-inbox Atom feed, in feed order.

    Refuses documents with a DOCTYPE or entity declarations (no entity
    expansion ever); entries whose link carries no Message-ID are skipped.
    """
    head = data[:4096].lower()
    if b"<!doctype" in head or b"<!entity" in data.lower():
        raise ParseError(where, "Atom feed with a DOCTYPE/ENTITY declaration refused")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ParseError(where, f"not a well-formed Atom feed ({exc})") from None
    if root.tag != ATOM_NS + "feed":
        raise ParseError(where, f"not an Atom feed (root element {root.tag[:80]})")
    entries = []
    for entry in root.findall(ATOM_NS + "entry"):
        link_el = entry.find(ATOM_NS + "link")
        href = (link_el.get("href") or "") if link_el is not None else ""
        mid = msgid_from_link(href)
        if not mid:
            log.info("%s: Atom entry without a message link (%r)", where, href[:200])
            continue
        irt_el = entry.find(THR_NS + "in-reply-to")
        irt = msgid_from_link(irt_el.get("href") or irt_el.get("ref") or "") if irt_el is not None else None
        content_el = entry.find(ATOM_NS + "content")
        entries.append(
            AtomEntry(
                message_id=mid,
                link=href,
                title=_el_text(entry.find(ATOM_NS + "title")),
                author_name=_el_text(entry.find(f"{ATOM_NS}author/{ATOM_NS}name")),
                author_email=_el_text(entry.find(f"{ATOM_NS}author/{ATOM_NS}email")),
                updated=_el_text(entry.find(ATOM_NS + "updated")),
                in_reply_to=irt,
                content="".join(content_el.itertext()) if content_el is not None else "",
            )
        )
    return entries


def _el_text(el) -> str:
    """All text of an element, '' for None."""
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def atom_entry_to_message(entry: AtomEntry, where: str) -> Message:
    """A Message from an Atom entry alone (for saved feeds; prefer ``/raw``)."""
    return Message(
        message_id=entry.message_id,
        subject=entry.title,
        from_name=entry.author_name,
        from_addr=entry.author_email,
        date_raw=entry.updated,
        date_utc=_atom_date(entry.updated),
        in_reply_to=entry.in_reply_to,
        references=[entry.in_reply_to] if entry.in_reply_to else [],
        body=entry.content.strip("\n") + "\n" if entry.content.strip() else "",
        archive_url=entry.link or None,
        source=where,
    )


def _atom_date(value: str) -> str | None:
    """``2024-03-12T10:17:44Z`` -> ``2024-03-12T10:17:44+00:00``."""
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC).isoformat()
    except (ValueError, TypeError):
        return None


def messages_from_mbox(data: bytes, where: str, max_expanded: int = DEFAULT_MAX_EXPANDED) -> list[Message]:
    """Messages of a (possibly gzipped) mboxrd response, first copy of each id kept.

    ``t.mbox.gz`` repeats a Message-ID for cross-posts; the first is kept.
    A body that is one message without a ``From `` line is parsed as such.
    """
    plain = gunzip_capped(data, max_expanded, where)
    if not plain.strip():
        return []
    if not plain.startswith(b"From "):
        return [parse_message(plain, where)]
    seen: set[str] = set()
    out = []
    for msg in iter_mbox_bytes(plain, where):
        if msg.message_id in seen:
            log.debug("%s: duplicate %s dropped", where, msg.message_id)
            continue
        seen.add(msg.message_id)
        out.append(msg)
    return out


def parse_saved(path: str | Path, max_expanded: int = DEFAULT_MAX_EXPANDED) -> list[Message]:
    """Messages from a saved lore response: ``t.mbox.gz``, ``/raw``, or an Atom feed.

    Atom entries become Messages built from the feed alone.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SourceError(str(p), f"cannot read saved response ({exc.strerror or exc})") from None
    head = gunzip_capped(data, max_expanded, str(p))
    if head.lstrip()[:5] == b"<?xml" or b"<feed" in head[:2000]:
        return [atom_entry_to_message(e, str(p)) for e in parse_atom(head, str(p))]
    return messages_from_mbox(head, str(p), max_expanded)


# --- the client --------------------------------------------------------------


class _RefuseRedirect(Exception):
    """Raised inside the opener when a redirect leaves the allowed hosts."""

    def __init__(self, target: str):
        super().__init__(target)
        self.target = target


class _AllowListRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to http(s) URLs on the allowed hosts."""

    max_redirections = 5

    def __init__(self, allowed: tuple[str, ...]):
        super().__init__()
        self.allowed = allowed

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        target = urljoin(req.full_url, newurl)
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or (parts.hostname or "").lower() not in self.allowed:
            raise _RefuseRedirect(target)
        return super().redirect_request(req, fp, code, msg, headers, target)


class LoreClient:
    """A bounded, polite, caching client for a public-inbox server.

    ``base_url`` may be any mirror; its host must be in ``allowed_hosts``.
    ``cache_dir=None`` uses ``$XDG_CACHE_HOME/lkmlkb/lore``; ``cache_dir=False``
    disables the cache.  Feeds (``new.atom``, searches) are never served from
    the cache; messages and threads are.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE,
        cache_dir: str | Path | Literal[False] | None = None,
        allowed_hosts: tuple[str, ...] = DEFAULT_HOSTS,
        min_interval: float = 0.1,
        retries: int = 3,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_expanded: int = DEFAULT_MAX_EXPANDED,
        timeout: float = 30.0,
        backoff: float = 1.0,
        user_agent: str = USER_AGENT,
    ):
        self.base_url = base_url.rstrip("/")
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts)
        host = (urlsplit(self.base_url).hostname or "").lower()
        if urlsplit(self.base_url).scheme not in ("http", "https") or host not in self.allowed_hosts:
            raise FetchError(self.base_url, f"host {host or '?'} is not in the allowed hosts")
        if cache_dir is None:
            root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
            cache_dir = Path(root) / "lkmlkb" / "lore"
        self.cache_dir = None if cache_dir is False or cache_dir == "" else Path(cache_dir)
        self.min_interval = max(0.0, float(min_interval))
        self.retries = max(0, int(retries))
        self.max_bytes = int(max_bytes)
        self.max_expanded = int(max_expanded)
        self.timeout = float(timeout)
        self.backoff = max(0.0, float(backoff))
        self.user_agent = user_agent
        self.requests_made = 0
        self._last_request = 0.0
        self._opener = urllib.request.build_opener(_AllowListRedirects(self.allowed_hosts))

    # -- URLs

    def _msg_url(self, msgid_or_url: str, endpoint: str, list_name: str | None = None) -> tuple[str, str]:
        """(url, msgid) for ``/<list or all>/<msgid>/<endpoint>``."""
        lst, mid = split_lore_ref(msgid_or_url)
        lst = list_name or lst or "all"
        return f"{self.base_url}/{quote(lst, safe='')}/{quote_msgid(mid)}/{endpoint}", mid

    # -- public API

    def thread(self, msgid_or_url: str, list_name: str | None = None) -> list[Message]:
        """Every message of the thread holding ``msgid_or_url`` (``t.mbox.gz``)."""
        url, _mid = self._msg_url(msgid_or_url, "t.mbox.gz", list_name)
        return messages_from_mbox(self.get(url), url, self.max_expanded)

    def message(self, msgid: str, list_name: str | None = None) -> Message:
        """One message by id (``/raw``)."""
        url, mid = self._msg_url(msgid, "raw", list_name)
        msgs = messages_from_mbox(self.get(url), url, self.max_expanded)
        if not msgs:
            raise FetchError(url, "empty response for a raw message")
        for msg in msgs:
            if msg.message_id == mid:
                return msg
        return msgs[0]

    def feed(self, list_name: str) -> list[AtomEntry]:
        """Entries of ``/<list>/new.atom`` (newest messages; never cached)."""
        url = f"{self.base_url}/{quote(list_name, safe='')}/new.atom"
        return parse_atom(self.get(url, use_cache=False), url)

    def new_messages(self, list_name: str) -> list[Message]:
        """The newest messages of a list: Atom for discovery, ``/raw`` for content.

        A message whose ``/raw`` fails is logged and skipped, so one bad
        entry does not lose the others.
        """
        out = []
        for entry in self.feed(list_name):
            try:
                out.append(self.message(entry.message_id, list_name))
            except (FetchError, ParseError) as exc:
                log.warning("%s", exc)
        return out

    def search(self, list_name: str, query: str) -> list[str]:
        """Message-IDs matching a public-inbox query (``?q=...&x=A``), newest first."""
        url = f"{self.base_url}/{quote(list_name or 'all', safe='')}/?q={quote_plus(query)}&x=A"
        return [e.message_id for e in parse_atom(self.get(url, use_cache=False), url)]

    # -- transport

    def cache_path(self, url: str) -> Path | None:
        """Where the response for ``url`` is cached (None without a cache)."""
        if self.cache_dir is None:
            return None
        return self.cache_dir / (hashlib.sha256(url.encode("utf-8")).hexdigest() + ".body")

    def get(self, url: str, use_cache: bool = True) -> bytes:
        """The body of ``url``: from the cache, or fetched with retries and caps."""
        self._check_host(url)
        path = self.cache_path(url) if use_cache else None
        if path is not None and path.is_file():
            log.debug("cache hit %s", url)
            return path.read_bytes()
        data = self._fetch_with_retries(url)
        if path is not None:
            self._store(path, data)
        return data

    def _check_host(self, url: str) -> None:
        """Refuse URLs outside the allowed hosts or not http(s)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or (parts.hostname or "").lower() not in self.allowed_hosts:
            raise FetchError(url, f"host {parts.hostname or '?'} is not in the allowed hosts")

    def _store(self, path: Path, data: bytes) -> None:
        """Write a cache entry atomically; a cache failure is logged, not fatal."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError as exc:
            log.warning("cannot write cache %s: %s", path, exc)

    def _wait_turn(self) -> None:
        """Sleep so requests are at least ``min_interval`` apart."""
        gap = time.monotonic() - self._last_request
        if gap < self.min_interval:
            time.sleep(self.min_interval - gap)
        self._last_request = time.monotonic()

    def _fetch_with_retries(self, url: str) -> bytes:
        """GET with backoff on 5xx/429/timeouts/connection errors; 4xx fail at once."""
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                delay = self.backoff * (2 ** (attempt - 1))
                log.info("retrying %s in %.1fs (%s)", url, delay, last)
                time.sleep(delay)
            try:
                return self._fetch_once(url)
            except urllib.error.HTTPError as exc:
                if exc.code in (429,) or 500 <= exc.code < 600:
                    last = f"HTTP {exc.code}"
                    continue
                raise FetchError(url, f"HTTP {exc.code} {exc.reason}") from None
            except _RefuseRedirect as exc:
                raise FetchError(url, f"redirect to a host that is not allowed: {exc.target[:200]}") from None
            except TimeoutError as exc:
                last = f"timeout ({exc})"
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, _RefuseRedirect):
                    raise FetchError(
                        url, f"redirect to a host that is not allowed: {exc.reason.target[:200]}"
                    ) from None
                last = f"connection failed ({exc.reason})"
            except (ConnectionError, OSError) as exc:
                last = f"connection failed ({exc})"
        raise FetchError(url, f"gave up after {self.retries + 1} attempts: {last}")

    def _fetch_once(self, url: str) -> bytes:
        """One GET, reading at most ``max_bytes`` (LimitExceeded past it)."""
        self._wait_turn()
        self.requests_made += 1
        req = urllib.request.Request(
            url, headers={"User-Agent": self.user_agent, "Accept-Encoding": "identity"}
        )
        with self._opener.open(req, timeout=self.timeout) as resp:
            length = resp.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > self.max_bytes:
                raise LimitExceeded(
                    url, f"response of {length} bytes is over the {self.max_bytes} byte limit"
                )
            data = resp.read(self.max_bytes + 1)
            if len(data) > self.max_bytes:
                raise LimitExceeded(url, f"response is over the {self.max_bytes} byte limit")
            return data
