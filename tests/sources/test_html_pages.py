"""HTML archive pages -> Message, one fixture per site.

The fixture pages in tests/fixtures/html/ render real linux-block mail (the
multipath fio regression thread, March 2024) through each generator's
documented template; build_fixtures.py there says which message and which
template.  Expected values below are the real messages' headers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lkmlkb.errors import ParseError
from lkmlkb.sources.html import detect_site, parse_html_page

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "html"
REPORT = "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
ZHIGUO1 = "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com"
HARSHIT2 = "be93c772-d400-4105-b05a-735ed7365730@oracle.com"
ZHIGUO2 = "29f6145427be4d5b81f34cc0a9f747a2@BJMBX02.spreadtrum.com"
SUBJECT = "[bug-report] Performance regression with fio sequential-write on a multipath setup."


def page(name: str, url: str):
    (msg,) = parse_html_page((FIX / name).read_bytes(), url)
    return msg


def test_lore_message_page():
    url = f"https://lore.kernel.org/linux-block/{HARSHIT2}/"
    m = page("lore_reply.html", url)
    assert m.message_id == HARSHIT2 and not m.synthetic_id
    assert m.subject == "Re: 答复: " + SUBJECT  # &#31572;&#22797; unescaped
    assert (m.from_name, m.from_addr, m.from_obfuscated) == (
        "Harshit Mogalapalli",
        "harshit.m.mogalapalli@oracle.com",
        False,
    )
    assert m.date_utc == "2024-03-12T10:17:44+00:00"
    assert m.date_raw == "Tue, 12 Mar 2024 15:47:44 +0530"  # "[thread overview]" dropped
    assert m.in_reply_to == ZHIGUO1
    assert m.references == [ZHIGUO1]
    assert m.lists == ["linux-block"]
    assert "Paul Webb <paul.x.webb@oracle.com>" in m.cc  # folded Cc line joined
    lines = m.body.split("\n")
    assert lines[0] == "Hi Zhiguo,"
    assert "On 07/03/24 08:25, 牛志国 (Zhiguo Niu) wrote:" in lines
    assert "> What is the queue_depth of queue of your storage device?" in lines
    assert "    READ: bw=448MiB/s (470MB/s), 448MiB/s-448MiB/s (470MB/s-470MB/s)," in lines
    assert "thread overview" not in m.body and "not part of the message" not in m.body
    assert m.archive_url == url
    assert m.raw == (FIX / "lore_reply.html").read_bytes()


def test_lkml_org_page_has_no_address_and_no_id():
    m = page("lkml_org_report.html", "https://lkml.org/lkml/2024/3/6/1230")
    assert (
        m.synthetic_id and m.message_id.endswith("@lkmlkb.invalid") and len(m.message_id.split("@")[0]) == 32
    )
    assert (m.from_name, m.from_addr, m.from_obfuscated) == ("Harshit Mogalapalli", "", True)
    assert m.subject == SUBJECT
    assert m.date_utc == "2024-03-06T18:46:07+00:00"
    lines = m.body.split("\n")
    assert lines[:3] == ["Hi,", "", "We have noticed a performance regression in kernel with fio sequential"]
    assert "[global]" in lines and "rw=write" in lines and "filename=/dev/dm-0" in lines
    assert "First message in thread" not in m.body and "Views:" not in m.body
    assert m.archive_url == "https://lkml.org/lkml/2024/3/6/1230"
    # the hash is stable: same page, same id
    assert page("lkml_org_report.html", "https://lkml.org/lkml/2024/3/6/1230").message_id == m.message_id


def test_lkml_iu_edu_old_hypermail_page():
    m = page("lkml_iu_hypermail_reply.html", "https://lkml.iu.edu/hypermail/linux/kernel/2403.1/04567.html")
    assert m.message_id == HARSHIT2 and m.in_reply_to == ZHIGUO1
    assert m.from_addr == "harshit.m.mogalapalli@oracle.com" and not m.from_obfuscated
    assert m.date_utc == "2024-03-12T10:17:44+00:00"  # from sent=, not the visible "EST" date
    lines = m.body.split("\n")
    assert lines[0] == "Hi Zhiguo,"
    assert "> Hi Harshit Mogalapalli" in lines  # <EM>&gt; ...</EM><BR>
    assert "Queue depth of the storage device is 254." in lines
    assert "Next message" not in m.body and "hypermail 2b29" not in m.body


def test_lkml_iu_edu_mhonarc_page_reads_rot13_from_and_wrong_charset():
    m = page("lkml_iu_mhonarc_reply.html", "https://lkml.iu.edu/hypermail/linux/kernel/2403.0/03505.html")
    assert m.message_id == ZHIGUO1 and m.references == [REPORT] and m.in_reply_to == REPORT
    # X-From-R13 gives the real address although the page shows Zhiguo.Niu@xxxxxxxxxx
    assert (m.from_name, m.from_addr, m.from_obfuscated) == (
        "牛志国 (Zhiguo Niu)",
        "Zhiguo.Niu@unisoc.com",
        False,
    )
    assert m.subject == "答复: " + SUBJECT  # UTF-8 bytes under a declared iso-8859-2
    assert m.date_utc == "2024-03-07T02:55:36+00:00"
    lines = m.body.split("\n")
    assert lines[0] == "Hi Harshit Mogalapalli"
    assert "发件人: Harshit Mogalapalli <harshit.m.mogalapalli@xxxxxxxxxx>" in lines  # body stays as shown
    assert "Date Prev" not in m.body


def test_spinics_mhonarc_pre_body():
    m = page("spinics_mhonarc_reply.html", "https://www.spinics.net/lists/linux-block/msg100123.html")
    assert m.message_id == ZHIGUO2 and m.lists == ["linux-block"]
    assert m.references == [REPORT, ZHIGUO1, HARSHIT2] and m.in_reply_to == HARSHIT2
    assert m.body.startswith("Hi  Harshit\nThis patch did not modify some important limit mechanisms")
    assert "-----邮件原件-----" in m.body.split("\n")


def test_marc_page_undoes_address_and_id_obfuscation():
    m = page("marc_report.html", "https://marc.info/?l=linux-block&m=170976462000002&w=2")
    assert m.message_id == REPORT and not m.synthetic_id
    assert m.from_addr == "harshit.m.mogalapalli@oracle.com" and m.from_obfuscated
    assert m.subject == SUBJECT and m.lists == ["linux-block"]
    assert m.date_raw == "2024-03-06 18:46:07" and m.date_utc == "2024-03-06T18:46:07+00:00"
    lines = m.body.split("\n")
    assert lines[0] == "Hi," and "bs=128k" in lines
    assert not any("prev in list" in line for line in lines)


def test_openwall_page_obfuscated_id_becomes_hash():
    m = page("openwall_reply.html", "https://lists.openwall.net/linux-block/2024/03/12/2")
    assert m.synthetic_id  # <be93c772-...@...cle.com> is not the real id
    assert m.from_addr == "harshit.m.mogalapalli@...cle.com" and m.from_obfuscated
    assert m.subject == "Re: 答复: " + SUBJECT
    assert m.date_utc == "2024-03-12T10:17:44+00:00" and m.lists == ["linux-block"]
    assert "Jens Axboe <axboe@...nel.dk>" in m.to  # continuation line joined
    assert m.body.startswith("Hi Zhiguo,\n")
    assert "Powered by blists" not in m.body


def test_pipermail_page_own_id_from_mailto_and_at_address():
    m = page(
        "pipermail_reply.html", "https://listman.redhat.com/pipermail/cluster-devel/2024-March/000124.html"
    )
    assert m.message_id == ZHIGUO2 and m.in_reply_to is None
    assert (m.from_name, m.from_addr, m.from_obfuscated) == ("Zhiguo Niu", "Zhiguo.Niu@unisoc.com", True)
    assert m.date_utc == "2024-03-13T10:30:02+00:00"  # CDT is UTC-5
    assert m.lists == ["cluster-devel"]
    assert "发件人: Harshit Mogalapalli <harshit.m.mogalapalli at oracle.com>" in m.body.split("\n")


def test_saved_pages_are_detected_by_markup():
    sites = {
        name: detect_site((FIX / name).read_bytes(), f"/tmp/saved/{name}")
        for name in (
            "lore_reply.html",
            "lkml_org_report.html",
            "lkml_iu_hypermail_reply.html",
            "lkml_iu_mhonarc_reply.html",
            "marc_report.html",
            "openwall_reply.html",
            "pipermail_reply.html",
        )
    }
    assert sites == {
        "lore_reply.html": "lore",
        "lkml_org_report.html": "lkml_org",
        "lkml_iu_hypermail_reply.html": "hypermail",
        "lkml_iu_mhonarc_reply.html": "mhonarc",
        "marc_report.html": "marc",
        "openwall_reply.html": "openwall",
        "pipermail_reply.html": "pipermail",
    }
    m = page("lore_reply.html", "/tmp/saved/lore_reply.html")
    assert m.message_id == HARSHIT2 and m.archive_url == f"https://lore.kernel.org/r/{HARSHIT2}"


def test_mail_archive_microdata_page_with_email_protected():
    # mail-archive.com markup is [inferred] in ARCHIVES.md 2.6; body text from the real report
    html = (
        b'<html><body><h1><span itemprop="name">' + SUBJECT.encode() + b"</span></h1>"
        b'<span itemprop="author">Harshit Mogalapalli [EMAIL PROTECTED]</span>'
        b'<span itemprop="datePublished" content="2024-03-06T18:46:07+00:00">Wed, 06 Mar 2024</span>'
        b'<div itemprop="articleBody"><pre>Hi,\n\nWe have noticed a performance regression in kernel'
        b" with fio sequential\nwrite job.\n</pre></div></body></html>"
    )
    (m,) = parse_html_page(html, "https://www.mail-archive.com/linux-kernel@vger.kernel.org/msg2400001.html")
    assert (m.from_name, m.from_addr, m.from_obfuscated) == ("Harshit Mogalapalli", "", True)
    assert m.lists == ["linux-kernel"] and m.synthetic_id
    assert m.date_utc == "2024-03-06T18:46:07+00:00"
    assert (
        m.body
        == "Hi,\n\nWe have noticed a performance regression in kernel with fio sequential\nwrite job.\n"
    )


def test_unknown_page_is_a_parse_error():
    with pytest.raises(ParseError, match=r"^/tmp/x.html: not a recognized mail archive page$"):
        parse_html_page(b"<html><body><p>hello</p></body></html>", "/tmp/x.html")
