"""Who sent a message, comparable across the forms mail arrives in.

An mbox or lore gives the sender's address; some archive pages hide it (lkml.org prints
"Name <>") or mangle it (marc.info's "name () host ! org", spinics' "x@xxxxxxxx"). Two
messages are by one sender when their addresses agree, or, where either address is missing
or mangled, when their names do.
"""

from __future__ import annotations

import re

from lkmlkb.model import Message

_SPACE_RE = re.compile(r"\s+")


def _address(m: Message) -> str:
    a = (m.from_addr or "").strip().strip("<>").lower()
    return a if "@" in a and " " not in a and not m.from_obfuscated else ""


def _name(m: Message) -> str:
    return _SPACE_RE.sub(" ", (m.from_name or "").strip().strip('"')).lower()


def same_sender(a: Message, b: Message) -> bool:
    """Whether ``a`` and ``b`` were sent by one person (see the module's docstring)."""
    addr_a, addr_b = _address(a), _address(b)
    if addr_a and addr_b:
        return addr_a == addr_b
    name_a = _name(a)
    return bool(name_a) and name_a == _name(b)
