"""Address obfuscation as the archives show it (ARCHIVES.md 2.11).

Examples are the forms quoted there from real pages: lkml.iu.edu/spinics
(``davem@xxxxxxxxxxxxx``), openwall (``@...cle.com``), Google Groups
(``ja...@suse.cz``), MARC (``britton.kerin () gmail ! com``), pipermail,
lkml.org, mail-archive.com and public-inbox ``obfuscate=1``.
"""

from __future__ import annotations

import pytest

from lkmlkb.sources.obfuscation import decode_rot13_from, deobfuscate, is_obfuscated


@pytest.mark.parametrize(
    "shown, recovered",
    [
        ("ja...@suse.cz", None),  # Google Groups web
        ("gre...@linuxfoundation.org", None),
        ("davem@xxxxxxxxxxxxx", None),  # MHonArc SPAMMODE
        ("Greg KH <gregkh@xxxxxxxxxxxxxxxxxxx>", None),
        ("harshit.m.mogalapalli@...cle.com", None),  # openwall blists
        ("linux-kernel@...r.kernel.org", None),
        ("Zhiguo.Niu at unisoc.com", "Zhiguo.Niu@unisoc.com"),  # pipermail
        ("britton.kerin () gmail ! com", "britton.kerin@gmail.com"),  # MARC
        ("Britton Kerin <britton.kerin () gmail ! com>", "britton.kerin@gmail.com"),
        ("Harshit Mogalapalli <>", None),  # lkml.org
        ("[EMAIL PROTECTED]", None),  # old mail-archive.com
        ("axboe@kernel&#8226;dk", "axboe@kernel.dk"),  # public-inbox obfuscate=1
        ("axboe@kernel\u2022dk", "axboe@kernel.dk"),
    ],
)
def test_obfuscated_forms(shown, recovered):
    assert is_obfuscated(shown)
    assert deobfuscate(shown) == recovered


@pytest.mark.parametrize(
    "addr",
    [
        "harshit.m.mogalapalli@oracle.com",
        "Jens Axboe <axboe@kernel.dk>",
        "Zhiguo.Niu@unisoc.com",
        "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com",
        "xen-devel@lists.xenproject.org",
        "Andrew Morton <akpm@linux-foundation.org>",
        "",
    ],
)
def test_real_addresses_are_not_obfuscated(addr):
    assert not is_obfuscated(addr)
    if addr:
        assert deobfuscate(addr) == addr.split("<")[-1].rstrip(">")


def test_known_domains_resolve_truncations_only_when_unique():
    known = ["oracle.com", "kernel.org", "vger.kernel.org", "suse.cz", "acm.org"]
    assert deobfuscate("harshit.m.mogalapalli@...cle.com", known) == "harshit.m.mogalapalli@oracle.com"
    assert deobfuscate("linux-kernel@...r.kernel.org", known) == "linux-kernel@vger.kernel.org"
    assert deobfuscate("bvanassche@....org", known) == "bvanassche@acm.org"
    # 10 x's: oracle.com and kernel.org both have 10 characters
    assert deobfuscate("harshit.m.mogalapalli@xxxxxxxxxx", known) is None
    # 7 x's: suse.cz and acm.org both fit; without acm.org only suse.cz does
    assert deobfuscate("jack@xxxxxxx", known) is None
    assert deobfuscate("jack@xxxxxxx", ["suse.cz", "oracle.com"]) == "jack@suse.cz"


def test_mhonarc_rot13_from_comment():
    # the X-From-R13 comment of a real 2016 lkml.iu.edu page (ARCHIVES.md 2.2)
    assert decode_rot13_from("Rnivq [vyyre <qnirzNqnirzybsg.arg>") == "David Miller <davem@davemloft.net>"
    assert (
        decode_rot13_from("Fvzhe Fnov &#60;gvzhe.gnovNvagreanyf.pbz>")
        == "Timur Tabi <timur.tabi@internals.com>"
    )


@pytest.mark.parametrize("junk", ["x" * 1_000_000, "\0" * 1000, "@" * 5000, " () " * 3000, None, 42])
def test_never_raises(junk):
    assert is_obfuscated(junk) in (True, False)
    deobfuscate(junk)
    decode_rot13_from(junk)
