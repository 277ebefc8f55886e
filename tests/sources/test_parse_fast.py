"""The fast paths of parsing and segmentation give what the slow ones give.

``mail.read_simple`` reads single-part mail without the email feedparser;
``parse_message`` must return the same Message whether it takes that path or
the email package's (forced here by making ``read_simple`` decline).  The
segmentation prefilters (first-character tests before each regex) must
agree with the regexes they guard.  Messages are real ones from the
linux-block 2024Q1 archive, trimmed to the headers parse_message reads and a
few body lines.
"""

from __future__ import annotations

from dataclasses import asdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mbox_helpers import archive_entries

from lkmlkb.sources import mail
from lkmlkb.sources.mail import LonePart, parse_message, read_simple
from lkmlkb.threads import segments
from lkmlkb.threads.quotes import line_key
from lkmlkb.threads.segments import (
    ATTRIBUTION,
    FOOTER_START,
    OUTLOOK_HEADER,
    QUOTE,
    _is_attribution,
    _is_footer,
    _is_outlook_header,
    quote_depth,
)

# the header lines both of David Laight's replies below start with
LAIGHT_TO_PU = (
    b"From: David Laight <David.Laight@ACULAB.COM>\n"
    b"To: 'Guoxin Pu' <pugokushin@gmail.com>, \"axboe@kernel.dk\" <axboe@kernel.dk>\n"
    b'CC: "linux-block@vger.kernel.org" <linux-block@vger.kernel.org>,\n'
    b'\t"linux-kernel@vger.kernel.org" <linux-kernel@vger.kernel.org>,\n'
    b'\t"stable@vger.kernel.org" <stable@vger.kernel.org>\n'
    b"Subject: RE: [PATCH] block: fix length of strscpy()\n"
)

# linux-block 2024Q1 (../shared/archives/linux-block-2024q1.mboxrd.gz) message 2, trimmed:
# quoted-printable, Outlook From:/Sent: quoting (David Laight, 2024-01-01)
PLAIN_QP = (
    LAIGHT_TO_PU + b"Date: Mon, 1 Jan 2024 21:47:23 +0000\n"
    b"Message-ID: <ed0b9dd45fca4f6e910a9e1ffa756180@AcuMS.aculab.com>\n"
    b"References: <20240101175051.38479-2-pugokushin@gmail.com>\n"
    b"In-Reply-To: <20240101175051.38479-2-pugokushin@gmail.com>\n"
    b"List-Id: <linux-block.vger.kernel.org>\n"
    b"MIME-Version: 1.0\n"
    b"Content-Type: text/plain; charset=UTF-8\n"
    b"Content-Transfer-Encoding: quoted-printable\n"
    b"\n"
    b"From: Guoxin Pu\n"
    b"> Sent: 01 January 2024 17:51\n"
    b">=20\n"
    b'> In commit 146afeb235ccec10c17ad8ea26327c0c79dbd968 ("block: use strscpy()\n'
    b'> to instead of strncpy()") , the length that should now represent the leng=\n'
    b"th\n"
    b"> of the string with the terminating NULL was not updated alongside the\n"
    b"> change.\n"
    b">=20\n"
    b"> This has caused blkdevparts=3D definition on kernel cmdline to be not\n"
    b"> correctly recognized and partitions not correctly initialized, breaking a=\n"
    b"ny\n"
)

# linux-block 2024Q1 (../shared/archives/linux-block-2024q1.mboxrd.gz) message 7, trimmed:
# base64 body with CRLF line ends inside (David Laight, 2024-01-02)
BASE64_UTF8 = (
    LAIGHT_TO_PU + b"Date: Tue, 2 Jan 2024 09:14:15 +0000\n"
    b"Message-ID: <25655037ca3e404e9111341ea423f5ce@AcuMS.aculab.com>\n"
    b"References: <20240101175051.38479-2-pugokushin@gmail.com>\n"
    b" <ed0b9dd45fca4f6e910a9e1ffa756180@AcuMS.aculab.com>\n"
    b" <c7e29d85-277d-46ae-87ae-bb77dd423652@gmail.com>\n"
    b"In-Reply-To: <c7e29d85-277d-46ae-87ae-bb77dd423652@gmail.com>\n"
    b"List-Id: <linux-block.vger.kernel.org>\n"
    b"MIME-Version: 1.0\n"
    b"Content-Type: text/plain; charset=UTF-8\n"
    b"Content-Transfer-Encoding: base64\n"
    b"\n"
    b"RnJvbTogR3VveGluIFB1IA0KPiBTZW50OiAwMiBKYW51YXJ5IDIwMjQgMDI6MzENCj4gDQo+IFRo\n"
    b"YW5rIHlvdSBmb3IgdGhlIHJldmlldy4gU29ycnkgaWYgdGhpcyBpcyB0aGUgZHVwbGljYXRlZCBy\n"
    b"ZXBseSwgYXMgSQ0KPiBkaWRuJ3QgY29uZmlndXJlIG15IG1haWwgY2xpZW50IHRvIHNlbmQgdGV4\n"
    b"dC1vbmx5IG1lc3NhZ2UgYW5kIHRoZQ0KPiBwcmV2aW91cyBtYWlsIHdhcyByZWplY3RlZCBieSB0\n"
    b"aGUgbGlzdC4NCj4gDQo+IE9uIDAyLzAxLzIwMjQgMDU6NDcsIERhdmlkIExhaWdodCB3cm90ZToN\n"
    b"Cj4gPj4gQEAgLTc5LDggKzc5LDggQEAgc3RhdGljIGludCBwYXJzZV9zdWJwYXJ0KHN0cnVjdCBj\n"
)

# linux-block 2024Q1 (../shared/archives/linux-block-2024q1.mboxrd.gz) message 2717, trimmed:
# RFC 2047 From/Cc/Subject split across B and Q words, base64 body (Zhiguo Niu, 2024-03-07)
RFC2047_BASE64 = (
    b"From: =?utf-8?B?54mb5b+X5Zu9IChaaGlndW8gTml1KQ==?= <Zhiguo.Niu@unisoc.com>\n"
    b"To: Harshit Mogalapalli <harshit.m.mogalapalli@oracle.com>,\n"
    b'        "bvanassche@acm.org" <bvanassche@acm.org>,\n'
    b"        Jens Axboe <axboe@kernel.dk>,\n"
    b'        "linux-block@vger.kernel.org" <linux-block@vger.kernel.org>\n'
    b"CC: LKML <linux-kernel@vger.kernel.org>,\n"
    b"        Ramanan Govindarajan\n"
    b"\t<ramanan.govindarajan@oracle.com>,\n"
    b"        Paul Webb <paul.x.webb@oracle.com>,\n"
    b'        "nicky.veitch@oracle.com" <nicky.veitch@oracle.com>,\n'
    b"        =?utf-8?B?6YKi5LqR6b6ZIChZdW5sb25nIFhpbmcp?= <Yunlong.Xing@unisoc.com>,\n"
    b"        =?utf-8?B?6YeR57qi5a6HIChIb25neXUgSmluKQ==?= <hongyu.jin@unisoc.com>\n"
    b"Subject: =?utf-8?B?562U5aSNOiBbYnVnLXJlcG9ydF0gUGVyZm9ybWFuY2UgcmVncmVzc2lvbiB3?=\n"
    b" =?utf-8?Q?ith_fio_sequential-write_on_a_multipath_setup.?=\n"
    b"Date: Thu, 7 Mar 2024 02:55:36 +0000\n"
    b"Message-ID: <d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com>\n"
    b"References: <5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com>\n"
    b"In-Reply-To: <5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com>\n"
    b'Content-Type: text/plain; charset="utf-8"\n'
    b"Content-Transfer-Encoding: base64\n"
    b"List-Id: <linux-block.vger.kernel.org>\n"
    b"MIME-Version: 1.0\n"
    b"\n"
    b"SGkgSGFyc2hpdCBNb2dhbGFwYWxsaQ0KDQpXaGF0IGlzIHRoZSBxdWV1ZV9kZXB0aCBvZiBxdWV1\n"
    b"ZSBvZiB5b3VyIHN0b3JhZ2UgZGV2aWNlPw0KSW4gdGhlIHNhbWUgdGVzdCBjb25kaXRpb25zLCB3\n"
    b"aGF0IGFyZSB0aGUgdGhlIHJlc3VsdHMgb2Ygc2VxdWVudGlhbCByZWFkaW5nPyANCg0KVGhhbmtz\n"
    b"IQ0KLS0tLS3pgq7ku7bljp/ku7YtLS0tLQ0K5Y+R5Lu25Lq6OiBIYXJzaGl0IE1vZ2FsYXBhbGxp\n"
    b"IDxoYXJzaGl0Lm0ubW9nYWxhcGFsbGlAb3JhY2xlLmNvbT4gDQrlj5HpgIHml7bpl7Q6IDIwMjTl\n"
    b"ubQz5pyIN+aXpSAyOjQ2DQrmlLbku7bkuro6IOeJm+W/l+WbvSAoWmhpZ3VvIE5pdSkgPFpoaWd1\n"
    b"by5OaXVAdW5pc29jLmNvbT47IGJ2YW5hc3NjaGVAYWNtLm9yZzsgSmVucyBBeGJvZSA8YXhib2VA\n"
    b"a2VybmVsLmRrPjsgbGludXgtYmxvY2tAdmdlci5rZXJuZWwub3JnDQrmioTpgIE6IExLTUwgPGxp\n"
)

# linux-block 2024Q1 (../shared/archives/linux-block-2024q1.mboxrd.gz) message 8, trimmed:
# multipart/signed around multipart/mixed (Juergen Gross, 2024-01-02)
MULTIPART_SIGNED = (
    b"Message-ID: <9761fc8c-f8f2-4944-a194-ba4160880ca1@suse.com>\n"
    b"Date: Tue, 2 Jan 2024 10:37:04 +0100\n"
    b"List-Id: <linux-block.vger.kernel.org>\n"
    b"MIME-Version: 1.0\n"
    b"Subject: Re: [PATCH v2] drivers/block/xen-blkback/common.h: Fix spelling typo\n"
    b" in comment\n"
    b"To: YouHong Li <liyouhong@kylinos.cn>\n"
    b"Cc: linux-block@vger.kernel.org, linux-kernel@vger.kernel.org,\n"
    b" k2ci <kernel-bot@kylinos.cn>\n"
    b"References: <20231226095701.172080-1-liyouhong@kylinos.cn>\n"
    b"From: Juergen Gross <jgross@suse.com>\n"
    b"In-Reply-To: <20231226095701.172080-1-liyouhong@kylinos.cn>\n"
    b"Content-Type: multipart/signed; micalg=pgp-sha256;\n"
    b' protocol="application/pgp-signature";\n'
    b' boundary="------------UjZczpNnHxGY70FodicF98Hj"\n'
    b"\n"
    b"This is an OpenPGP/MIME signed message (RFC 4880 and 3156)\n"
    b"--------------UjZczpNnHxGY70FodicF98Hj\n"
    b'Content-Type: multipart/mixed; boundary="------------qwB50RFLw0bVoc5pECbuPqJi";\n'
    b' protected-headers="v1"\n'
    b"From: Juergen Gross <jgross@suse.com>\n"
    b"To: YouHong Li <liyouhong@kylinos.cn>\n"
    b"Cc: linux-block@vger.kernel.org, linux-kernel@vger.kernel.org,\n"
    b" k2ci <kernel-bot@kylinos.cn>\n"
    b"Message-ID: <9761fc8c-f8f2-4944-a194-ba4160880ca1@suse.com>\n"
    b"Subject: Re: [PATCH v2] drivers/block/xen-blkback/common.h: Fix spelling typo\n"
    b" in comment\n"
    b"References: <20231226095701.172080-1-liyouhong@kylinos.cn>\n"
    b"In-Reply-To: <20231226095701.172080-1-liyouhong@kylinos.cn>\n"
    b"\n"
    b"--------------qwB50RFLw0bVoc5pECbuPqJi\n"
    b'Content-Type: multipart/mixed; boundary="------------xnZl1G6fVAEBKY00Pu8BRl0y"\n'
    b"\n"
    b"--------------xnZl1G6fVAEBKY00Pu8BRl0y\n"
    b"Content-Type: text/plain; charset=UTF-8; format=flowed\n"
    b"Content-Transfer-Encoding: base64\n"
    b"\n"
    b"T24gMjYuMTIuMjMgMTA6NTcsIFlvdUhvbmcgTGkgd3JvdGU6DQo+IEZyb206IGxpeW91aG9u\n"
    b"ZyA8bGl5b3Vob25nQGt5bGlub3MuY24+DQo+IA0KPiBGaXggc3BlbGxpbmcgdHlwbyBpbiBj\n"
    b"b21tZW50Lg0KPiANCj4gUmVwb3J0ZWQtYnk6IGsyY2kgPGtlcm5lbC1ib3RAa3lsaW5vcy5j\n"
    b"bj4NCj4gU2lnbmVkLW9mZi1ieTogbGl5b3Vob25nIDxsaXlvdWhvbmdAa3lsaW5vcy5jbj4N\n"
    b"Cg0KUmV2aWV3ZWQtYnk6IEp1ZXJnZW4gR3Jvc3MgPGpncm9zc0BzdXNlLmNvbT4NCg0KDQpK\n"
    b"dWVyZ2VuDQoNCg==\n"
    b"--------------xnZl1G6fVAEBKY00Pu8BRl0y\n"
    b'Content-Type: application/pgp-keys; name="OpenPGP_0xB0DE9DD628BF132F.asc"\n'
    b'Content-Disposition: attachment; filename="OpenPGP_0xB0DE9DD628BF132F.asc"\n'
)

# linux-block 2024Q1 (../shared/archives/linux-block-2024q1.mboxrd.gz) message 4, trimmed:
# format=flowed 7bit (Guoxin Pu, 2024-01-02)
FLOWED_7BIT = (
    b"Message-ID: <c7e29d85-277d-46ae-87ae-bb77dd423652@gmail.com>\n"
    b"Date: Tue, 2 Jan 2024 10:31:27 +0800\n"
    b"List-Id: <linux-block.vger.kernel.org>\n"
    b"MIME-Version: 1.0\n"
    b"Subject: Re: [PATCH] block: fix length of strscpy()\n"
    b'To: David Laight <David.Laight@ACULAB.COM>, "axboe@kernel.dk"\n'
    b" <axboe@kernel.dk>\n"
    b'Cc: "linux-block@vger.kernel.org" <linux-block@vger.kernel.org>,\n'
    b' "linux-kernel@vger.kernel.org" <linux-kernel@vger.kernel.org>,\n'
    b' "stable@vger.kernel.org" <stable@vger.kernel.org>\n'
    b"References: <20240101175051.38479-2-pugokushin@gmail.com>\n"
    b" <ed0b9dd45fca4f6e910a9e1ffa756180@AcuMS.aculab.com>\n"
    b"From: Guoxin Pu <pugokushin@gmail.com>\n"
    b"In-Reply-To: <ed0b9dd45fca4f6e910a9e1ffa756180@AcuMS.aculab.com>\n"
    b"Content-Type: text/plain; charset=UTF-8; format=flowed\n"
    b"Content-Transfer-Encoding: 7bit\n"
    b"\n"
    b"Thank you for the review. Sorry if this is the duplicated reply, as I \n"
    b"didn't configure my mail client to send text-only message and the \n"
    b"previous mail was rejected by the list.\n"
    b"\n"
    b"On 02/01/2024 05:47, David Laight wrote:\n"
    b">> @@ -79,8 +79,8 @@ static int parse_subpart(struct cmdline_subpart **subpart, char *partdef)\n"
    b">>   \t\t\tgoto fail;\n"
    b">>   \t\t}\n"
    b">>\n"
    b">> -\t\tlength = min_t(int, next - partdef,\n"
    b">> -\t\t\t       sizeof(new_subpart->name) - 1);\n"
    b">> +\t\tlength = min_t(int, next - partdef + 1,\n"
    b">> +\t\t\t       sizeof(new_subpart->name));\n"
    b">>   \t\tstrscpy(new_subpart->name, partdef, length);\n"
)

# linux-block 2024Q1 (../shared/archives/linux-block-2024q1.mboxrd.gz) message 9, trimmed:
# 8bit gbk body, format=flowed (Yu Kuai, 2024-01-02)
GBK_8BIT_FLOWED = (
    b"Subject: Re: [PATCH] blk-cgroup: fix rcu lockdep warning in blkg_lookup()\n"
    b"To: Ming Lei <ming.lei@redhat.com>, Jens Axboe <axboe@kernel.dk>\n"
    b"Cc: linux-block@vger.kernel.org, Changhui Zhong <czhong@redhat.com>,\n"
    b' "yukuai (C)" <yukuai3@huawei.com>\n'
    b"References: <20231219012833.2129540-1-ming.lei@redhat.com>\n"
    b"From: Yu Kuai <yukuai1@huaweicloud.com>\n"
    b"Message-ID: <d067baba-e718-76c1-807f-feb169bd0e71@huaweicloud.com>\n"
    b"Date: Tue, 2 Jan 2024 18:32:13 +0800\n"
    b"List-Id: <linux-block.vger.kernel.org>\n"
    b"MIME-Version: 1.0\n"
    b"In-Reply-To: <20231219012833.2129540-1-ming.lei@redhat.com>\n"
    b"Content-Type: text/plain; charset=gbk; format=flowed\n"
    b"Content-Transfer-Encoding: 8bit\n"
    b"\n"
    b"Hi,\n"
    b"\n"
    b"\xd4\xda 2023/12/19 9:28, Ming Lei \xd0\xb4\xb5\xc0:\n"
    b"> blkg_lookup() is called with either queue_lock or rcu read lock, so\n"
    b"> use rcu_dereference_check(lockdep_is_held(&q->queue_lock)) for\n"
    b"> retrieving 'blkg', which way models the check exactly for covering\n"
    b"> queue lock or rcu read lock.\n"
    b"> \n"
    b'> Fix lockdep warning of "block/blk-cgroup.h:254 suspicious rcu_dereference_check() usage!"\n'
    b"> from blkg_lookup().\n"
    b"> \n"
    b"> Tested-by: Changhui Zhong <czhong@redhat.com>\n"
    b"> Signed-off-by: Ming Lei <ming.lei@redhat.com>\n"
    b"> ---\n"
)

# the RFC 2047 From above written as raw UTF-8, as some mailers send it
# (compat32 hands such a value back as a Header of unknown-8bit bytes)
RAW_UTF8_FROM = RFC2047_BASE64.replace(
    b"From: =?utf-8?B?54mb5b+X5Zu9IChaaGlndW8gTml1KQ==?=", "From: 牛志国 (Zhiguo Niu)".encode()
)
# the same message as it sits in an mbox: "From " separator line first
WITH_SEPARATOR = b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + PLAIN_QP

FAST = {
    "quoted-printable": PLAIN_QP,
    "base64": BASE64_UTF8,
    "rfc2047-headers": RFC2047_BASE64,
    "8bit-header": RAW_UTF8_FROM,
    "format-flowed": FLOWED_7BIT,
    "8bit-gbk-body": GBK_8BIT_FLOWED,
    "mbox-separator": WITH_SEPARATOR,
    # variations of the real messages above on what decides how a body is decoded
    "no-content-type": FLOWED_7BIT.replace(
        b"Content-Type: text/plain; charset=UTF-8; format=flowed\n", b""
    ).replace(b"Content-Transfer-Encoding: 7bit\n", b""),
    "patch-part": PLAIN_QP.replace(b"Content-Type: text/plain;", b"Content-Type: text/x-patch;"),
    "cte-case-and-fold": PLAIN_QP.replace(
        b"Content-Transfer-Encoding: quoted-printable", b"Content-Transfer-Encoding:\n Quoted-Printable"
    ),
    "cte-trailing-blank": PLAIN_QP.replace(b"quoted-printable\n", b"quoted-printable \n"),
    "two-content-types": FLOWED_7BIT.replace(
        b"MIME-Version: 1.0\n", b"Content-type: text/plain; charset=gbk\nMIME-Version: 1.0\n"
    ),
    "html-part": PLAIN_QP.replace(b"Content-Type: text/plain;", b"Content-Type: TEXT/HTML;"),
    "bad-type": PLAIN_QP.replace(b"Content-Type: text/plain;", b"Content-Type: text;"),
    "image-part": BASE64_UTF8.replace(b"Content-Type: text/plain;", b"Content-Type: image/png;"),
    "8bit-content-type": GBK_8BIT_FLOWED.replace(b"charset=gbk", "charset=\u00e9".encode()),
    # compat32 hands an 8-bit Content-Disposition back as a Header, not a str (found in review)
    "8bit-disposition": PLAIN_QP.replace(
        b"MIME-Version: 1.0\n",
        "MIME-Version: 1.0\nContent-Disposition: inline; filename=\u00e9\n".encode("latin-1"),
    ),
}
#: the kinds read as a LonePart: one text part, sent as it is or quoted-printable
LONE = {
    "quoted-printable",
    "format-flowed",
    "8bit-gbk-body",
    "mbox-separator",
    "no-content-type",
    "patch-part",
    "cte-case-and-fold",
    "cte-trailing-blank",
    "two-content-types",
    "bad-type",
    "8bit-disposition",
}
SLOW = {
    "multipart": MULTIPART_SIGNED,
    "crlf": PLAIN_QP.replace(b"\n", b"\r\n"),
    # a header line with a space before the colon ends the feedparser's header block
    "not-a-header-line": PLAIN_QP.replace(b"MIME-Version: 1.0\n", b"MIME Version: 1.0\n"),
    "fold-first": b" " + PLAIN_QP,
    "headers-only": PLAIN_QP.split(b"\n\n")[0] + b"\n",
}


def _email_package_only(monkeypatch, raw: bytes) -> dict:
    monkeypatch.setattr(mail, "read_simple", lambda raw: None)
    return asdict(parse_message(raw, "x.mbox", ["linux-block.vger.kernel.org"]))


@pytest.mark.parametrize("kind", sorted(FAST))
def test_fast_path_reads_the_message_and_agrees_with_the_email_package(kind, monkeypatch):
    raw = FAST[kind]
    stripped = raw.split(b"\n", 1)[1] if raw.startswith(b"From ") else raw
    read = read_simple(stripped)
    assert read is not None
    assert isinstance(read[1], LonePart) == (kind in LONE)
    fast = asdict(parse_message(raw, "x.mbox", ["linux-block.vger.kernel.org"]))
    assert fast == _email_package_only(monkeypatch, raw)
    assert fast["body"].strip() or kind == "image-part"


@pytest.mark.parametrize("kind", sorted(SLOW))
def test_unusual_messages_go_to_the_email_package(kind, monkeypatch):
    raw = SLOW[kind]
    assert read_simple(raw) is None
    assert asdict(parse_message(raw, "x.mbox", ["linux-block.vger.kernel.org"])) == _email_package_only(
        monkeypatch, raw
    )


def test_every_message_of_the_archive_sample_reads_the_same_by_either_path(monkeypatch):
    """All 3,995 linux-block messages of 2024 Q1: the fast path's Message is the email
    package's, and most mail takes it (a lone text part)."""
    entries = archive_entries(10_000)
    assert len(entries) == 3995
    fast = [asdict(parse_message(raw, "x.mbox")) for raw in entries]
    reads = [read_simple(raw) for raw in entries]
    lone = sum(1 for r in reads if r and isinstance(r[1], LonePart))
    assert lone > 0.9 * len(entries)
    monkeypatch.setattr(mail, "read_simple", lambda raw: None)
    slow = [asdict(parse_message(raw, "x.mbox")) for raw in entries]
    assert [f for f, s in zip(fast, slow) if f != s] == []


def test_the_fast_path_holds_only_the_headers_parse_message_reads():
    headers, _ = read_simple(PLAIN_QP)
    assert headers.get("message-id") == "<ed0b9dd45fca4f6e910a9e1ffa756180@AcuMS.aculab.com>"
    assert headers.get("CC").startswith('"linux-block@vger.kernel.org"')
    assert headers.get("X-Original-From") is None  # read, absent
    with pytest.raises(LookupError, match="MIME-Version: not read by read_simple"):
        headers.get("MIME-Version")


def test_fast_path_decodes_what_the_trimmed_messages_say():
    qp = parse_message(PLAIN_QP)
    assert "> Sent: 01 January 2024 17:51" in qp.body and "length\n> of the string" in qp.body
    assert (
        parse_message(RFC2047_BASE64).subject
        == "答复: [bug-report] Performance regression with fio sequential-write on a multipath setup."
    )
    assert parse_message(RAW_UTF8_FROM).from_name == "牛志国 (Zhiguo Niu)"
    assert "在 2023/12/19 9:28, Ming Lei 写道:" in parse_message(GBK_8BIT_FLOWED).body
    flowed = parse_message(FLOWED_7BIT).body
    assert "duplicated reply, as I didn't configure" in flowed  # format=flowed lines joined
    assert parse_message(MULTIPART_SIGNED).body.startswith("On 26.12.23 10:57, YouHong Li wrote:")


# quote markers as real mail writes them, and lines the regex must refuse
# (">=2000=8.42%" is fio's wrapped percentile line, seed 000)
QUOTE_LINES = [
    "> blkg_lookup() is called with either queue_lock",
    ">> @@ -79,8 +79,8 @@",
    "> > nested",
    ">",
    "> ",
    ">=20",
    ">=2000=8.42%",
    "  > indented",
    ">\tTab",
    ">>> ",
    "text > not a quote",
    "    > four blanks",
    ">  two spaces",
    "> >> mixed",
    "-> arrow",
]


@pytest.mark.parametrize("line", QUOTE_LINES)
def test_quote_depth_fast_answers_match_the_regex(line):
    m = QUOTE.match(line)
    assert quote_depth(line) == ((m.group(1).count(">"), line[m.end() :]) if m else (0, line))


# stripped lines from the sample: attributions, Outlook headers, footers, and prose around them
PREFILTERED_LINES = [
    "On 02/01/2024 05:47, David Laight wrote:",
    "Jan Kara <jack@suse.cz> writes:",
    "在 2023/12/19 9:28, Ming Lei 写道:",
    "on tue, Jan 2 Ming Lei said",
    "From: Guoxin Pu",
    "Sent: 01 January 2024 17:51",
    "-----Original Message-----",
    "ſubject: long s folds to s under re.I",
    "发件人: Harshit Mogalapalli",
    "________________________________",
    "Linux-nvme mailing list",
    "linux-nvme MAILING LIST",
    "To unsubscribe from this list: send the line",
    "Thank you for the review. Sorry if this is the duplicated reply, as I",
    "Reviewed-by: Juergen Gross <jgross@suse.com>",
    "Fix lockdep warning of:",
    "",
]


@pytest.mark.parametrize("line", PREFILTERED_LINES)
def test_prefilters_agree_with_their_regexes(line):
    assert _is_attribution(line) == bool(ATTRIBUTION.match(line))
    assert _is_outlook_header(line) == bool(OUTLOOK_HEADER.match(line))
    assert _is_footer(line) == bool(FOOTER_START.match(line))


# what an Outlook block's first line is made of: its words, separators and blanks
OUTLOOK_PIECES = [
    "From",
    "Von",
    "发件人",
    "Sent",
    ":",
    "：",
    "Original Message",
    "Ursprüngliche Nachricht",
    "原始邮件",
    "-",
    "---",
    "_",
    "_" * 9,
    " ",
    "\t",
    "x",
]


@given(
    st.lists(st.sampled_from(OUTLOOK_PIECES), max_size=8).map("".join).filter(lambda t: not t.startswith("-"))
)
@settings(max_examples=500, deadline=None)
def test_a_patch_minus_line_not_starting_two_dashes_starts_no_outlook_block(rest):
    """The segmenter reads a patch's "-x" lines as patch lines without asking whether an
    Outlook block starts there: neither its separator nor its "From:" can start so."""
    line = "-" + rest
    assert not segments._outlook_block_start([line, "Sent: 01 January 2024 17:51", "From: X"], 0)


def test_a_body_with_a_minus_line_in_a_patch_segments_it_as_patch():
    body = (
        "A fix.\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old line\n+new line\n context\n-\n"
    )
    kinds = [(s.kind, s.line_start, s.line_end) for s in segments.segment_body(body)]
    assert kinds == [("new", 0, 1), ("patch", 2, 9)]


def test_line_key_normalizes_whitespace_and_case_like_the_regex_did():
    # a quoted line of the multipath thread, re-wrapped by a reply
    a = line_key("In the same test conditions,  what are the the results\tof sequential reading?")
    assert a == line_key("  in the same test conditions, what are the the results of sequential reading? ")
    assert line_key("Thanks!") is None


def test_outlook_reply_quoted_with_markers_segments_as_before():
    # David Laight's "From: X" above "> Sent: ...": attribution, quoted header, then the quote
    segs = segments.segment_body(parse_message(PLAIN_QP).body)
    assert [(s.kind, s.depth) for s in segs] == [("attribution", 0), ("quoted_header", 1), ("quoted", 1)]


def test_long_header_values_are_not_kept_in_the_caches():
    """Hostile mail with huge Content-Type/From values must not pin memory in the lookup caches."""
    from lkmlkb.sources import mail

    before = (
        mail._params_of_value.cache_info().currsize,
        mail._split_from.cache_info().currsize,
        mail._is_obfuscated.cache_info().currsize,
    )
    for i in range(5):
        raw = (
            b"From: "
            + b"x" * 16_000
            + b" %d <a@b.c>\nMessage-ID: <m%d@x>\n" % (i, i)
            + b'Content-Type: text/plain; charset=utf-8; x-pad="%06d%s"\n\nbody\n' % (i, b"a" * 40_000)
        )
        msg = mail.parse_message(raw)
        assert msg.body.strip() == "body"
    after = (
        mail._params_of_value.cache_info().currsize,
        mail._split_from.cache_info().currsize,
        mail._is_obfuscated.cache_info().currsize,
    )
    assert after[0] == before[0] and after[1] == before[1]
    assert after[2] <= before[2] + 5  # the short address may be cached, the 16 KB From is not


def test_lore_url_of_a_plain_id_is_what_quote_gives():
    # an id of quote's safe characters is put in the address as it is, without quote: the same
    # address for every id of linux-block's 2024 Q1 mail and for ids holding what lore escapes
    import gzip
    import re
    from pathlib import Path
    from urllib.parse import quote

    archive = Path(__file__).resolve().parents[3] / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
    with gzip.open(archive) as fh:
        ids = [
            m.decode("latin-1") for m in re.findall(rb"\nMessage-I[Dd]:[ \t]*<([^>\n]{1,300})>", fh.read())
        ]
    ids += [
        "a/b@c",
        "x#y@z",
        "q?r@s",
        "100%@x",
        "s p@x",
        "\u017f@x",
        "\u00e9t\u00e9@x",
        'a"b@x',
        "[x]@y",
        "a^b`c|d@e",
        "{}<>\\@x",
        "",
        "~-._!$&'()*+,;=:@AZaz09",
    ]
    assert len(ids) > 3900
    for mid in ids:
        assert mail.lore_url(mid) == mail.LORE_R + quote(mid, safe="@!$&'()*+,;=:~-._"), mid
