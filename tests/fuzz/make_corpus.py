"""Write the hostile inputs of tests/fuzz/corpus/ from real trimmed mail.

Usage: python tests/fuzz/make_corpus.py

Every file starts from a real linux-block message in tests/fixtures/mail
(format_flowed.eml, Message-ID 34ea6da8-9ac6-4449-abb9-5be02df08869@acm.org,
or the others named below) with one hostile change, so a parser meets the
breakage inside otherwise ordinary mail.  The two large inputs (a 1 MB
header, nested multiparts 100 deep) are built by test_fuzz_sources.py at
test time with the same functions, so the repository stays small.
"""

from __future__ import annotations

import base64
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAIL = HERE.parent / "fixtures" / "mail"
OUT = HERE / "corpus"


def base() -> bytes:
    return (MAIL / "format_flowed.eml").read_bytes()


def head_body(data: bytes) -> tuple[bytes, bytes]:
    head, body = data.split(b"\n\n", 1)
    return head, body


def replace_header(data: bytes, name: bytes, value: bytes) -> bytes:
    head, body = head_body(data)
    lines = head.split(b"\n")
    out, skip = [], False
    for line in lines:
        if line.lower().startswith(name.lower() + b":"):
            out.append(name + b": " + value)
            skip = True
            continue
        if skip and line[:1] in (b" ", b"\t"):
            continue
        skip = False
        out.append(line)
    return b"\n".join(out) + b"\n\n" + body


def huge_header(size: int = 1 << 20) -> bytes:
    """A 1 MB To: header folded over many lines (a mass mailing gone wrong)."""
    addr = b" Shin'ichiro Kawasaki <shinichiro.kawasaki@wdc.com>,\n"
    return replace_header(base(), b"To", addr * (size // len(addr)) + b" linux-block@vger.kernel.org")


def nested_multipart(depth: int = 100) -> bytes:
    """The real text/plain body wrapped in ``depth`` multipart/mixed levels."""
    head, body = head_body(base())
    head = head.replace(
        b"Content-Type: text/plain; charset=UTF-8; format=flowed",
        b'Content-Type: multipart/mixed; boundary="b0"',
    )
    inner = b"Content-Type: text/plain; charset=UTF-8\n\n" + body
    for level in range(depth - 1, 0, -1):
        inner = (
            b'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (level, level)
            + inner
            + b"\n--b%d--\n" % level
        )
    return head + b"\n\n--b0\n" + inner + b"\n--b0--\n"


CASES = {
    # charset names that no codec knows, in headers and body, plus bytes invalid in any UTF
    "broken_charsets.eml": lambda: replace_header(
        base(), b"Content-Type", b'text/plain; charset="utf-8\\"; x=\xff"; format=flowed'
    ).replace(
        b"Subject: Re: [PATCH",
        b"Subject: =?x-no-such-charset?B?"
        + base64.b64encode(b"\xff\xfe\x00abc")
        + b"?= =?utf-8?Q?=E2=82?= =?gb2312?B?u9i4tDog?= Re: [PATCH",
    ),
    "date_overflow.eml": lambda: replace_header(base(), b"Date", b"Wed, 3 Jan 99999999999 07:55:20 +9999999"),
    "date_garbage.eml": lambda: replace_header(base(), b"Date", b"\xff\xfe 32 Foo 2024 99:99:99 -0800 (PST)"),
    "message_id_10000.eml": lambda: replace_header(base(), b"Message-ID", b"<" + b"a" * 9990 + b"@acm.org>"),
    "references_flood.eml": lambda: replace_header(
        base(), b"References", b" ".join(b"<%d.%d@lst.de>" % (i, i) for i in range(3000))
    ),
    "bad_base64.eml": lambda: replace_header(base(), b"Content-Transfer-Encoding", b"base64").replace(
        b"\n\nOn 1/3/24", b"\n\n=== not base64 at all \xff\x00 ===\nOn 1/3/24", 1
    ),
    "bad_quoted_printable.eml": lambda: replace_header(
        base(), b"Content-Transfer-Encoding", b"quoted-printable"
    ).replace(b"Thanks,", b"=ZZ=\n=F=", 1),
    "nuls_everywhere.eml": lambda: base().replace(b"Bart", b"Ba\x00rt").replace(b"null_blk", b"null\x00blk"),
    "lone_surrogates.eml": lambda: (
        base()
        .replace(b"Thanks,", b"Thanks \xed\xa0\x80\xed\xbf\xbf,")
        .replace(b"Subject: Re:", b"Subject: =?UTF-8?B?7aCA?= Re:")
    ),
    "invalid_utf8_everywhere.eml": lambda: (
        bytes(
            b if b < 0x80 or i % 3 else 0xC3
            for i, b in enumerate(base().replace(b"Bart", "Bärt Ünïcödé 牛志国".encode()))
        )
        + b"\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x90\x28\xbc"
    ),
    "no_headers.eml": lambda: b"\n\n" + head_body(base())[1],
    "header_without_colon.eml": lambda: b"this line is no header\n" + base(),
    "empty_multipart.eml": lambda: replace_header(
        base(), b"Content-Type", b'multipart/mixed; boundary="never-appears"'
    ),
    "html_hostile.eml": lambda: replace_header(base(), b"Content-Type", b"text/html; charset=utf-8").replace(
        b"\n\nOn 1/3/24",
        b"\n\n" + b"<div>" * 10000 + b"<script>x</script><p title='" + b"x" * 20000 + b"'>On 1/3/24",
        1,
    ),
    "crlf_and_cr_only.eml": lambda: base().replace(b"\n", b"\r\n")[:600] + base().replace(b"\n", b"\r")[600:],
    "mbox_from_lines_in_bodies.mbox": lambda: b"".join(
        b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + (MAIL / n).read_bytes() + b"\nFrom what I've seen\n"
        b"From 38b43539d64b2fa020b3b9a752a986769f87f7a6 Mon Sep 17 00:00:00 2001\n"
        b">From x\n>>From y\nFrom \n"
        for n in ("stable_patch_from_line.eml", "from_what_body.eml")
    ),
    "mbox_only_separators.mbox": lambda: b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" * 500,
    "mbox_garbage_after_separator.mbox": lambda: (
        b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + bytes(range(256)) * 4 + b"\n"
    ),
}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, make in CASES.items():
        (OUT / name).write_bytes(make())


if __name__ == "__main__":
    main()
