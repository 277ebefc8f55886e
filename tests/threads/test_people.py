"""One sender across the forms mail arrives in: by address, else by name."""

from __future__ import annotations

import pytest

from lkmlkb.model import Message
from lkmlkb.threads.people import same_sender


def _m(name: str, addr: str, obfuscated: bool = False) -> Message:
    return Message("x@y", from_name=name, from_addr=addr, from_obfuscated=obfuscated)


@pytest.mark.parametrize(
    "a,b,same",
    [
        (_m("Qu Wenruo", "wqu@suse.com"), _m("Qu Wenruo", "WQU@suse.com"), True),
        # one address, two spellings of the name: the address decides
        (_m("Jack Wang", "jinpu.wang@ionos.com"), _m("Jinpu Wang", "jinpu.wang@ionos.com"), True),
        # two people of one name, both addresses known
        (_m("John Smith", "john@a.org"), _m("John Smith", "jsmith@b.org"), False),
        # lkml.org prints "Name <>": the names decide
        (_m("Qu Wenruo", ""), _m("Qu Wenruo", "wqu@suse.com"), True),
        (_m("Qu  Wenruo", ""), _m("qu wenruo", ""), True),
        (_m("Qu Wenruo", ""), _m("Josef Bacik", ""), False),
        # marc.info's and spinics' mangled addresses are no addresses
        (_m("Jan Kara", "jack () suse ! cz", True), _m("Jan Kara", "jack@suse.cz"), True),
        (_m("Jan Kara", "jack@xxxxxxx", True), _m("Christoph Hellwig", "hch@xxxxxx", True), False),
        # spinics hides every domain: two Davids' hidden addresses agree, their names do not
        (
            _m("Dave Chinner", "david@xxxxxxxxxxxxx", True),
            _m("David Sterba", "david@xxxxxxxxxxxxx", True),
            False,
        ),
        # nothing to compare
        (_m("", ""), _m("", ""), False),
    ],
)
def test_same_sender_by_address_else_by_name(a, b, same):
    assert same_sender(a, b) is same
