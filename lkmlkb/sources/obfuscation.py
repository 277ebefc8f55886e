"""Recognize and undo the address obfuscation of web mail archives.

The patterns are the ones archives use, each seen on a real archive.  Some are reversible (``name at domain``, MARC's ``a () b ! com``,
public-inbox's ``kernel&#8226;org``, MHonArc's ROT13 ``X-From-R13`` comment);
the rest only tell us that the address shown is not the real one
(``ja...@suse.cz``, ``user@xxxxxxxxxx``, ``@...cle.com``, ``Name <>``,
``[EMAIL PROTECTED]``).

Every function here takes arbitrary text and never raises; inputs longer than
``MAX_ADDR_CHARS`` are cut before matching.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable

log = logging.getLogger(__name__)

#: an address (or a "Name <addr>" string) longer than this is cut before matching
MAX_ADDR_CHARS = 1000

_OBFUSCATED_RE = re.compile(
    r"""
      [^\s@<>]{1,64}\.\.\.@              # Google Groups web: ja...@suse.cz, gre...@linuxfoundation.org
    | @x{2,255}(?![\w.-])                # MHonArc SPAMMODE (lkml.iu.edu, spinics): davem@xxxxxxxxxxxxx
    | @\.{3,4}[\w-]                      # openwall blists: @...cle.com, @....com, @...r.kernel.org
    | \s\(\)\s                           # MARC: britton.kerin () gmail ! com
    | \[\s?email\s?protected\s?\]        # mail-archive.com: [EMAIL PROTECTED]; Cloudflare: [email protected]
    | [\w-]\s?(?:&\#8226;|\u2022)\s?\w   # public-inbox obfuscate=1: kernel&#8226;org / kernel\u2022org
    | <\s?>                              # lkml.org From: "Harshit Mogalapalli <>"
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: pipermail: "user at domain.org" (no "@" anywhere in the string)
_AT_WORD_RE = re.compile(
    r"""
    ^ ([\w.+=-]{1,64})           # local part: harshit.m.mogalapalli
    \s{1,3} at \s{1,3}           # the word that replaced "@"
    ([\w-]{1,63} (?:\.[\w-]{1,63}){1,8})  # domain: oracle.com
    $
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: MARC: "britton.kerin () gmail ! com"
_MARC_RE = re.compile(
    r"""
    ^ ([^\s()]{1,64})            # local part (its dots are also "!": "randal ! schwartz")
    \s{0,2} \(\) \s{0,2}         # "()" replaced "@"
    ([\w-]{1,63} (?:\s{0,2}!\s{0,2}[\w-]{1,63}){1,8})   # "gmail ! com"
    $
    """,
    re.VERBOSE,
)

_BULLET_RE = re.compile(r"\s?(?:&\#8226;|\u2022)\s?", re.VERBOSE)  # kernel&#8226;org -> kernel.org
_ANGLE_RE = re.compile(r"<([^<>]{0,400})>")  # the addr-spec inside "Name <addr>"
_PLAIN_ADDR_RE = re.compile(
    r"""
    ^ [\w.+=/'!#$%&*?^`{|}~-]{1,64}        # local part as in real mail: jens.axboe, linux-block+help
      @ [\w-]{1,63} (?:\.[\w-]{1,63}){0,8} # host: kernel.dk, BJMBX02.spreadtrum.com
    $
    """,
    re.VERBOSE,
)

# MHonArc's mrot13 is tr/@A-Z[a-z/N-Z[@A-Mn-za-m/ (lib/ewhutil.pl); it is its own inverse.
_R13_TABLE = str.maketrans(
    "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[abcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZ[@ABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)


def _cut(addr: str | None) -> str:
    """Return ``addr`` as a bounded string ('' for None or non-strings)."""
    if not isinstance(addr, str):
        return ""
    return addr[:MAX_ADDR_CHARS]


def addr_spec(addr: str) -> str:
    """The address part of ``Name <addr>``, or the whole stripped string."""
    s = _cut(addr).strip()
    m = _ANGLE_RE.search(s)
    return m.group(1).strip() if m else s


def is_obfuscated(addr: str) -> bool:
    """True when an archive has hidden or mangled the address shown.

    Accepts a bare address or a ``Name <addr>`` string.  An empty string is
    not obfuscated (there is nothing to judge); ``Name <>`` is.
    """
    s = _cut(addr)
    if not s.strip():
        return False
    if _OBFUSCATED_RE.search(s):
        return True
    spec = addr_spec(s)
    return bool(_AT_WORD_RE.match(spec))


def deobfuscate(addr: str, known_domains: Iterable[str] = ()) -> str | None:
    """The real address behind an archive's rendering, or None if it is lost.

    Plain addresses come back unchanged (``Name <addr>`` gives ``addr``).
    Reversible forms are undone: ``name at domain`` (pipermail), ``a () b ! com``
    (MARC), ``kernel&#8226;org`` (public-inbox obfuscate=1).  Truncated forms
    (``@...cle.com``, ``user@xxxxxx``) are resolved only when exactly one of
    ``known_domains`` fits the visible suffix or length; otherwise None.
    """
    spec = html.unescape(addr_spec(addr)) if "&" in _cut(addr) else addr_spec(addr)
    if not spec:
        return None
    if "\u2022" in spec:
        spec = _BULLET_RE.sub(".", spec)
    m = _AT_WORD_RE.match(spec)
    if m:
        return f"{m.group(1)}@{m.group(2)}"
    m = _MARC_RE.match(spec)
    if m:
        local = re.sub(r"\s{0,2}!\s{0,2}", ".", m.group(1))
        domain = re.sub(r"\s{0,2}!\s{0,2}", ".", m.group(2))
        return f"{local}@{domain}"
    if "@" in spec:
        local, _, domain = spec.rpartition("@")
        if local.endswith("..."):
            return None  # Google Groups truncated the local part: not recoverable
        if domain.startswith("...") or re.fullmatch(r"x{2,255}", domain):
            return _match_known_domain(local, domain, known_domains)
    if _PLAIN_ADDR_RE.match(spec):
        return spec
    return None


def _match_known_domain(local: str, domain: str, known_domains: Iterable[str]) -> str | None:
    """Resolve ``@...cle.com`` / ``@xxxxxxxxxx`` against a list of known domains.

    blists drops the first three characters, so the real domain is the
    visible suffix plus three characters; MHonArc writes one ``x`` per
    character.  Only a unique fit counts.
    """
    fits: list[str] = []
    for known in known_domains:
        if not isinstance(known, str):
            continue
        if domain.startswith("..."):
            suffix = domain.lstrip(".")
            dots = len(domain) - len(suffix)
            # "@....com" is three dropped characters followed by ".com"
            visible = ("." + suffix) if dots == 4 else suffix
            if known.endswith(visible) and len(known) == len(visible) + 3:
                fits.append(known)
        elif len(known) == len(domain):
            fits.append(known)
    if len(set(fits)) == 1:
        return f"{local}@{fits[0]}"
    log.debug("obfuscated domain %r: %d known domains fit", domain, len(set(fits)))
    return None


def decode_rot13_from(value: str) -> str:
    """Decode MHonArc's ``<!--X-From-R13: ... -->`` value.

    ``Rnivq [vyyre <qnirzNqnirzybsg.arg>`` is ``David Miller
    <davem@davemloft.net>``.  The comment escapes ``-&<`` as ``&#45;&#38;&#60;``;
    those are unescaped first.
    """
    return html.unescape(_cut(value)).translate(_R13_TABLE)
