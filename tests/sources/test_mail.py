"""Decoding one RFC 822 message (lkmlkb.sources.mail) on trimmed real linux-block mail.

Fixtures: tests/fixtures/mail/*.eml, each a real message from
../shared/archives/linux-block-2024q1.mboxrd.gz (Message-IDs in
tests/fixtures/mail/README.md).  Variants (another charset label, a header
dropped, the body re-wrapped as HTML) are derived in the test that needs them.
"""

from __future__ import annotations

import email.header
import sqlite3
from pathlib import Path

import pytest

from lkmlkb.errors import ParseError
from lkmlkb.sources.mail import decode_header, find_msgids, parse_date, parse_message, unflow

MAIL = Path(__file__).resolve().parent.parent / "fixtures" / "mail"
DAFU_SUBJECT = "答复: [bug-report] Performance regression with fio sequential-write on a multipath setup."


def fixture(name: str) -> bytes:
    return (MAIL / name).read_bytes()


# ------------------------------------------------------------------ RFC 2047 headers


def test_split_utf8_encoded_words_dafu_subject_and_cjk_author():
    # d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com: B word + Q word
    m = parse_message(fixture("utf8_split_subject_dafu.eml"), "dafu")
    assert m.subject == DAFU_SUBJECT
    assert m.from_name == "牛志国 (Zhiguo Niu)"
    assert m.from_addr == "Zhiguo.Niu@unisoc.com"
    assert m.message_id == "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com"
    assert m.in_reply_to == "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com"
    assert m.date_raw == "Thu, 7 Mar 2024 02:55:36 +0000"
    assert m.date_utc == "2024-03-07T02:55:36+00:00"
    assert (
        m.archive_url == "https://lore.kernel.org/r/d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com"
    )
    assert m.lists == ["linux-block.vger.kernel.org"]


def test_re_dafu_subject_three_words_and_cc_names():
    # be93c772-d400-4105-b05a-735ed7365730@oracle.com
    m = parse_message(fixture("re_dafu_reply.eml"))
    assert m.subject == "Re: " + DAFU_SUBJECT
    assert "牛志国 (Zhiguo Niu) <Zhiguo.Niu@unisoc.com>" in m.to
    assert "邢云龙 (Yunlong Xing)" in m.cc and "金红宇 (Hongyu Jin)" in m.cc
    assert m.references == [
        "5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com",
        "d8f391eab8d64d9b9d2d3349b438dfb6@BJMBX02.spreadtrum.com",
    ]
    assert m.date_utc == "2024-03-12T10:17:44+00:00"  # +0530 read as written


def _gb2312_split_subject(text: str) -> bytes:
    """The real 答复 subject re-encoded as a gb2312 B word followed by a gb2312 Q word.

    This is how Chinese Outlook/Coremail write it (ARCHIVES.md 3, blob
    05397773b1de of the linux-block git archive); the sample itself has the
    UTF-8 form only, so the gb2312 form is derived here from the real subject.
    """
    head, tail = text[:20], text[20:]
    b = email.header.Header(head, "gb2312").encode()  # =?gb2312?b?...?=
    q = (
        "=?gb2312?Q?"
        + "".join(c if c.isalnum() else "_" if c == " " else "=%02X" % ord(c) for c in tail)
        + "?="
    )
    return ("Subject: " + b + "\n " + q).encode("ascii")


def test_split_gb2312_encoded_words_join_into_one_subject():
    raw = fixture("utf8_split_subject_dafu.eml")
    start = raw.index(b"Subject:")
    end = raw.index(b"\nDate:")
    raw = raw[:start] + _gb2312_split_subject(DAFU_SUBJECT) + raw[end:]
    assert b"=?gb2312?" in raw
    m = parse_message(raw)
    assert m.subject == DAFU_SUBJECT


def test_raw_8bit_utf8_and_latin1_header_bytes():
    raw = fixture("bug_report_original.eml").replace(
        b"From: Harshit Mogalapalli", "From: 牛志国 Harshit".encode()
    )
    assert parse_message(raw).from_name == "牛志国 Harshit"
    raw = fixture("bug_report_original.eml").replace(
        b"From: Harshit Mogalapalli", "From: Harshit Mogalapallié".encode("latin-1")
    )
    assert parse_message(raw).from_name == "Harshit Mogalapallié"


def test_undecodable_bytes_in_encoded_word_leave_no_surrogate():
    # patchwork fuzz case (ARCHIVES.md 3): =FF inside a UTF-8 Q word
    raw = fixture("format_flowed.eml").replace(
        b"From: Bart Van Assche", b"From: =?UTF-8?q?Bart_Van_Assche=FF=FF?="
    )
    m = parse_message(raw)
    assert m.from_name.startswith("Bart Van Assche")
    m.from_name.encode("utf-8")  # raises on a lone surrogate


# ------------------------------------------------------------------ bodies


def test_base64_body_decodes():
    # da8f0dc3475746da8f612de6f7c72ad6@AcuMS.aculab.com
    raw = fixture("base64_body.eml")
    assert b"Content-Transfer-Encoding: base64" in raw
    m = parse_message(raw)
    assert m.body.startswith("Can someone add a : after block?")
    assert "Registration No: 1397386 (Wales)" in m.body
    assert "\r" not in m.body


def test_base64_utf8_body_with_outlook_chinese_quote_block():
    m = parse_message(fixture("utf8_split_subject_dafu.eml"))
    lines = m.body.split("\n")
    assert lines[0] == "Hi Harshit Mogalapalli"
    assert "-----邮件原件-----" in lines
    assert any(line.startswith("发件人: Harshit Mogalapalli") for line in lines)
    assert any(line.startswith("发送时间: 2024年3月7日 2:46") for line in lines)


def test_quoted_printable_soft_breaks_and_escapes():
    # cbd8de6ff70849a98faf2fd25b065a94@AcuMS.aculab.com
    m = parse_message(fixture("quoted_printable.eml"))
    assert (
        "The LEA algorithm is a lightweight block cipher that processes data blocks of 128-bits "
        "and has three different key lengths, each with a different number of rounds:"
    ) in m.body.split("\n")
    assert "\tDavid" in m.body.split("\n")  # =09
    assert "=20" not in m.body and "=\n" not in m.body


def test_format_flowed_paragraphs_are_joined_and_quote_depth_kept():
    # 5ce2ae5d-61e2-4ede-ad55-551112602401@oracle.com: lines end in a space (soft break)
    m = parse_message(fixture("bug_report_original.eml"))
    lines = m.body.split("\n")
    assert "We have noticed a performance regression in kernel with fio sequential write job." in lines
    assert (
        "3. This regression can also be seen on 6.8-rc7 and a revert on top of that fixes the regression."
        in lines
    )
    assert "[global]" in lines and "ioengine=libaio" in lines  # hard breaks stay


def test_unflow_keeps_depth_and_delsp():
    assert unflow("> a \n> b\nc") == "> a b\nc"
    assert unflow(">> one \n>> two\n> three") == ">> one two\n> three"
    assert unflow("ab \ncd", delsp=True) == "abcd"
    assert unflow("-- \nsig") == "-- \nsig"  # the signature separator is no soft break


def test_multipart_signed_keeps_text_drops_signature():
    m = parse_message(fixture("multipart_signed.eml"))
    assert m.body.startswith("On 24/01/12 08:37AM, Damien Le Moal wrote:")
    assert "Cheers,\nChris" in m.body
    assert "BEGIN PGP" not in m.body
    assert m.subject == "Re: Re: [PATCH] block: print symbolic error name instead of error code"


@pytest.mark.parametrize("label", [b"unknown-8bit", b"x-unknown", b"none", b'"x-bogus-charset"'])
def test_unknown_charset_labels_fall_back_to_utf8(label):
    # re_dafu_reply.eml is 8-bit UTF-8; relabel its charset as real archives do
    raw = fixture("re_dafu_reply.eml").replace(b"charset=UTF-8; format=flowed", b"charset=" + label)
    m = parse_message(raw)
    assert "On 07/03/24 08:25, 牛志国 (Zhiguo Niu) wrote:" in m.body.split("\n")


def test_unknown_charset_with_latin1_bytes_falls_back_to_cp1252():
    raw = fixture("re_dafu_reply.eml").replace(b"charset=UTF-8; format=flowed", b"charset=unknown-8bit")
    raw = raw.replace("牛志国".encode(), "café €".encode("cp1252"))
    m = parse_message(raw)
    assert "On 07/03/24 08:25, café € (Zhiguo Niu) wrote:" in m.body


def test_gb2312_declared_body_with_gbk_only_characters():
    # GBK-only characters sent declared as gb2312 (ARCHIVES.md 3): read as gb18030
    raw = fixture("re_dafu_reply.eml").replace(b"charset=UTF-8; format=flowed", b"charset=gb2312")
    raw = raw.replace("牛志国".encode(), "牛志國".encode("gbk"))  # 國 is not in gb2312
    m = parse_message(raw)
    assert "牛志國 (Zhiguo Niu) wrote:" in m.body


def test_html_only_mail_becomes_text():
    # the original report's text re-sent as text/html only
    raw = fixture("bug_report_original.eml")
    head = raw.split(b"\n\n", 1)[0].replace(
        b"text/plain; charset=UTF-8; format=flowed", b"text/html; charset=UTF-8"
    )
    html = (
        b"<html><head><style>p {margin:0}</style></head><body>"
        b"<p>Hi,</p><p>We have noticed a performance regression in kernel with fio sequential write job.</p>"
        b"<pre>[global]\nioengine=libaio\nrw=write\nbs=128k</pre><script>alert(1)</script></body></html>"
    )
    m = parse_message(head + b"\n\n" + html)
    lines = m.body.split("\n")
    assert "We have noticed a performance regression in kernel with fio sequential write job." in lines
    assert lines[lines.index("[global]") :][:4] == ["[global]", "ioengine=libaio", "rw=write", "bs=128k"]
    assert "<p>" not in m.body and "alert" not in m.body and "margin" not in m.body


def test_html_only_mail_with_a_marked_section_the_parser_rejects_still_becomes_text():
    """``<![Download ...`` made html.parser reject the whole body (bs4's ParserRejectedMarkup,
    a parse failure of the message); the section is now read as text and the rest as HTML."""
    raw = fixture("bug_report_original.eml")
    head = raw.split(b"\n\n", 1)[0].replace(
        b"text/plain; charset=UTF-8; format=flowed", b"text/html; charset=UTF-8"
    )
    for junk in (b"<![Download message RAW]>", b"<![", b"<![ if"):
        html = (
            b"<p>Hi,</p>"
            + junk
            + b"<p>We have noticed a performance regression.</p><script>alert(1)</script>"
        )
        m = parse_message(head + b"\n\n" + html)
        assert "We have noticed a performance regression." in m.body.split("\n")
        assert "<p>" not in m.body and "alert" not in m.body


def test_multipart_alternative_prefers_plain_and_keeps_patch_attachment():
    base = fixture("format_flowed.eml")
    head, body = base.split(b"\n\n", 1)
    head = head.replace(
        b"Content-Type: text/plain; charset=UTF-8; format=flowed",
        b'Content-Type: multipart/mixed; boundary="XX"',
    )
    raw = (
        head + b'\n\n--XX\nContent-Type: multipart/alternative; boundary="YY"\n\n'
        b"--YY\nContent-Type: text/plain; charset=UTF-8\n\n"
        + body
        + b"\n--YY\nContent-Type: text/html\n\n<p>HTML copy</p>\n--YY--\n"
        b'--XX\nContent-Type: text/x-patch; name="fix.patch"\nContent-Disposition: attachment\n\n'
        b"diff --git a/common/null_blk b/common/null_blk\n--XX--\n"
    )
    m = parse_message(raw)
    assert "The above test can only work if the null_blk driver is already" in m.body
    assert "HTML copy" not in m.body
    assert "diff --git a/common/null_blk b/common/null_blk" in m.body


# ------------------------------------------------------------------ ids, references, dates


def test_outlook_comma_separated_references():
    raw = fixture("nested_quotes.eml")
    raw = raw.replace(
        b"References: <20240116232728.3392996-1-alan.adamson@oracle.com> <20240118072419.GA21315@lst.de> "
        b"<6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com>",
        b"References: <20240116232728.3392996-1-alan.adamson@oracle.com>,<20240118072419.GA21315@lst.de>,"
        b"<6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com>",
    )
    assert b">,<" in raw
    m = parse_message(raw)
    assert m.references == [
        "20240116232728.3392996-1-alan.adamson@oracle.com",
        "20240118072419.GA21315@lst.de",
        "6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com",
    ]
    assert m.in_reply_to == "6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com"


def test_in_reply_to_falls_back_to_last_reference_and_drops_git_send_email_answers():
    raw = fixture("nested_quotes.eml").replace(
        b"In-Reply-To: <6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com>", b"In-Reply-To: <y>"
    )
    m = parse_message(raw)
    assert m.in_reply_to == "6874a81c-3f4f-428a-8a95-19898ca004a2@oracle.com"
    assert find_msgids("<y> <n> <a@b> <a@b>") == ["a@b"]


def test_missing_message_id_gets_stable_content_hash():
    raw = fixture("format_flowed.eml").replace(
        b"Message-ID: <34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org>\n", b""
    )
    a, b = parse_message(raw), parse_message(raw)
    assert a.synthetic_id and a.message_id == b.message_id
    assert a.message_id.endswith("@lkmlkb.invalid") and len(a.message_id.split("@")[0]) == 32
    assert a.archive_url is None
    other = parse_message(raw.replace(b"Thanks,", b"Thanks!"))
    assert other.message_id != a.message_id


def test_message_id_with_no_angle_brackets_and_padding():
    raw = fixture("format_flowed.eml").replace(
        b"Message-ID: <34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org>",
        b"Message-ID:    34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org  ",
    )
    assert parse_message(raw).message_id == "34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org"


@pytest.mark.parametrize(
    "value, expected",
    [
        ("Thu, 7 Mar 2024 00:16:07 +0530", "2024-03-06T18:46:07+00:00"),
        ("Wed, 03 Jan 2024 07:55:23 -0800 (PST)", "2024-01-03T15:55:23+00:00"),
        ("Tue, 12 Mar 2024 15:47:44 -0000", "2024-03-12T15:47:44+00:00"),  # unknown zone: UTC
        ("Thu, 7 Mar 99999 00:16:07 +0530", None),  # year overflows
        ("not a date", None),
        ("", None),
    ],
)
def test_parse_date(value, expected):
    assert parse_date(value) == expected


# ------------------------------------------------------------------ addresses


@pytest.mark.parametrize(
    "shown",
    [
        "Jan Kara <ja...@suse.cz>",  # Google Groups (seed 002)
        "Harshit Mogalapalli <harshit.m.mogalapalli@...cle.com>",  # openwall (seed 000)
        '"Jayaramappa, Srilakshmi" <sjayaram@xxxxxxxxxx>',  # MHonArc (seed 004)
        "jack at suse.cz (Jan Kara)",  # pipermail
    ],
)
def test_obfuscated_from_is_kept_as_shown_and_flagged(shown):
    raw = fixture("format_flowed.eml").replace(
        b"From: Bart Van Assche <bvanassche@acm.org>", b"From: " + shown.encode()
    )
    m = parse_message(raw)
    assert m.from_obfuscated
    kept = m.from_addr or m.from_name
    assert kept and kept in shown


def test_plain_address_is_not_flagged():
    assert not parse_message(fixture("format_flowed.eml")).from_obfuscated


def test_google_groups_via_munging_uses_x_original_from():
    raw = fixture("format_flowed.eml").replace(
        b"From: Bart Van Assche <bvanassche@acm.org>",
        b"From: \"'Bart Van Assche' via kasan-dev\" <kasan-dev@googlegroups.com>\n"
        b"X-Original-From: Bart Van Assche <bvanassche@acm.org>",
    )
    m = parse_message(raw)
    assert (m.from_name, m.from_addr) == ("Bart Van Assche", "bvanassche@acm.org")


# ------------------------------------------------------------------ what never reaches SQLite


def test_nul_and_lone_surrogates_never_reach_sqlite(tmp_path):
    raw = fixture("format_flowed.eml")
    raw = raw.replace(b"Subject: Re: [PATCH", b"Subject: =?UTF-8?q?Re=00=FF?= [PATCH")
    raw = raw.replace(b"Thanks,", b"Tha\x00nks, \xed\xa0\x80 \xff\xfe")
    m = parse_message(raw)
    fields = [m.subject, m.from_name, m.body, m.message_id, m.to, m.cc, m.date_raw]
    for f in fields:
        assert "\x00" not in f
        f.encode("utf-8")  # strict: no lone surrogate
    con = sqlite3.connect(tmp_path / "x.db")
    con.execute("CREATE TABLE t (v TEXT)")
    con.executemany("INSERT INTO t VALUES (?)", [(f,) for f in fields])
    assert con.execute("SELECT count(*) FROM t WHERE instr(v, char(0)) > 0").fetchone()[0] == 0


def test_decode_header_unfolds():
    assert (
        decode_header("Re: [PATCH] block: print symbolic error name instead of error\n code")
        == "Re: [PATCH] block: print symbolic error name instead of error code"
    )


@pytest.mark.parametrize("raw", [b"", b"\n\n\n", b"just some words without any header\n"])
def test_no_mail_at_all_is_a_parse_error(raw):
    with pytest.raises(ParseError):
        parse_message(raw, "junk")


def test_not_bytes_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_message("From: x\n\nbody", "str")  # type: ignore[arg-type]
