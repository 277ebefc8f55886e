"""Plain-text thread dumps: threads pasted or saved as text, like the seeds.

Forms seen in real dumps, each handled here:

* a header block at the top (``Date:``/``From:``/``Subject:`` lines, seed 000);
* a subject line, then ``[Name <addr>]`` on a line of its own (seeds 001, 003, 004);
* Google-Groups style: a subject line, then each message starts with the
  author's name on a line of its own (seed 002) — a name counts as an author
  line only where the dump also shows that person with an address
  (``Jeff Moyer <jmo...@redhat.com> writes:``), or on the second line;
* Outlook blocks that start another (older) message, quoted or not:
  ``-----Original Message-----``, ``-----邮件原件-----`` followed by
  ``发件人:``/``发送时间:``/``主题:``, and ``________________`` followed by
  ``From:``/``Sent:``/``Subject:`` (seeds 000, 004).

Messages get stable content-hash ids; threading by quoted text is done by
:func:`_link_by_quotes` (quote attribution) after splitting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from lkmlkb.model import Message
from lkmlkb.sources.mail import clean_text, lore_url, parse_date, synthetic_id
from lkmlkb.sources.obfuscation import is_obfuscated
from lkmlkb.threads.quotes import attribute_quotes
from lkmlkb.threads.segments import (  # as the segmenter reads quotes: ">=64=" of fio's IO depths is none
    quote_depth,
    segment_body,
)

HEADER_LINE = re.compile(
    r"^(Date|From|To|Cc|Subject|Message-I[Dd]|In-Reply-To|References):[ \t]?(.{0,2000})$"
)
BRACKET_AUTHOR = re.compile(r"^\[(?P<name>[^\[\]<>]{0,200}?)\s*<(?P<addr>[^<>\s]{1,200})>\]\s*$")
NAME_LINE = re.compile(r"^[A-Z][a-z]{1,20}(?:[ ][A-Z][a-zA-Z'\-]{1,25}){1,3}$")
# "Jeff Moyer <jmo...@redhat.com> writes:" / "Jan Kara <ja...@suse.cz>"
NAME_WITH_ADDR = re.compile(
    r"(?:^|[\s>])([A-Z][a-z]{1,20}(?:[ ][A-Z][a-zA-Z'\-]{1,25}){1,3})[ ]<([^<>\s]{1,200})>"
)
OUTLOOK_START = re.compile(
    r"""^(?:
        -{3,}\s*(?:Original\s+Message|邮件原件|原始邮件|Ursprüngliche\s+Nachricht)\s*-{3,}  # Outlook separators
      | _{10,}                                   # "________________" before From:/Sent:
    )\s*$""",
    re.X | re.I,
)
OUTLOOK_FIELD = re.compile(
    r"^(?P<key>From|Sent|Date|To|Cc|Subject|发件人|发送时间|收件人|抄送|主题|Von|Gesendet|An|Betreff)\s*[:：]\s?(?P<val>.{0,2000})$"
)
FIELD_MAP = {
    "发件人": "From",
    "发送时间": "Date",
    "收件人": "To",
    "抄送": "Cc",
    "主题": "Subject",
    "Sent": "Date",
    "Von": "From",
    "Gesendet": "Date",
    "An": "To",
    "Betreff": "Subject",
}
# "Jan Kara <jack@suse.cz>" header values; name and gaps bounded: with ".*?\s*" a
# value of spaces costs time in the square of its length (each name length rescans them)
ADDR = re.compile(r"^(?P<name>.{0,300}?)\s{0,20}<(?P<addr>[^<>\s]{1,200})>\s{0,20}$")


@dataclass
class _Draft:
    headers: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    depth: int = 0  # quote depth the message's own text sits at in the dump


def _author_names(lines: list[str]) -> dict[str, str]:
    """Name -> address as the dump shows it (``Jeff Moyer <jmo...@redhat.com> writes:``).

    The first address seen for a name wins; seed 002 shows each author this
    way in attribution lines and signatures, Google-Groups-obfuscated.
    """
    names: dict[str, str] = {}
    for line in lines:
        for m in NAME_WITH_ADDR.finditer(line[:500]):
            names.setdefault(m.group(1), m.group(2))
    return names


def _split_name_lines(lines: list[str]) -> list[tuple[int, str]]:
    """Starts of messages in a Google-Groups style dump: (line index, author)."""
    known = _author_names(lines)
    starts = []
    for i, line in enumerate(lines):
        s = line.strip()
        if s != line or not NAME_LINE.match(s):
            continue
        if i > 0 and lines[i - 1].strip() == "--":  # signature block
            continue
        if i == 1 or s in known:
            starts.append((i, s))
    return starts


def _parse_addr(value: str) -> tuple[str, str]:
    value = value.strip()
    m = ADDR.match(value)
    if m:
        return m.group("name").strip().strip('"'), m.group("addr")
    if "@" in value and " " not in value:
        return "", value
    return value, ""


def _outlook_blocks(draft: _Draft) -> list[_Draft]:
    """Split a draft at Outlook header blocks (at the draft's own depth or deeper)."""
    out = [draft]
    cur = draft
    lines = draft.lines
    i = 0
    body: list[str] = []
    while i < len(lines):
        depth, content = quote_depth(lines[i])
        if OUTLOOK_START.match(content.strip()) or (
            OUTLOOK_FIELD.match(content.strip())
            and content.strip().startswith(("发件人", "From:"))
            and i + 1 < len(lines)
            and OUTLOOK_FIELD.match(quote_depth(lines[i + 1])[1].strip())
            and quote_depth(lines[i + 1])[1].strip().split(":")[0].split("：")[0]
            in ("Sent", "发送时间", "Date", "Gesendet")
        ):
            j = i + 1 if OUTLOOK_START.match(content.strip()) else i
            headers: dict[str, str] = {}
            while j < len(lines):
                d2, c2 = quote_depth(lines[j])
                m = OUTLOOK_FIELD.match(c2.strip())
                if not m or d2 != depth:
                    break
                key = FIELD_MAP.get(m.group("key"), m.group("key"))
                headers.setdefault(key, m.group("val").strip())
                j += 1
            if "From" in headers and len(headers) >= 2:
                cur.lines = body
                body = []
                cur = _Draft(headers=headers, depth=depth)
                out.append(cur)
                i = j
                continue
        if depth >= cur.depth:
            body.append(lines[i])
        else:
            body.append(lines[i])
        i += 1
    cur.lines = body
    # a quoted block's text is that message's own: remove its quote depth
    for d in out[1:]:
        d.lines = [_dequote(line, d.depth) for line in d.lines]
    return out


def _dequote(line: str, depth: int) -> str:
    if depth <= 0:
        return line
    d, content = quote_depth(line)
    if d == 0:
        return line
    keep = max(0, d - depth)
    return ("> " * keep).rstrip() + (" " if keep and content else "") + content if keep else content


def split_textdump(text: str, source: str) -> list[Message]:
    """Split a text dump into messages, oldest quoted block last, in dump order."""
    text = clean_text(text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    drafts: list[_Draft] = []
    subject = ""
    i = 0
    # 1. a header block at the very top
    top_headers: dict[str, str] = {}
    while i < len(lines) and (header := HEADER_LINE.match(lines[i])):
        key = header.group(1).capitalize() if header.group(1) != "Message-ID" else "Message-ID"
        val = header.group(2)
        i += 1
        while i < len(lines) and lines[i][:1] in (" ", "\t") and lines[i].strip():
            val += " " + lines[i].strip()
            i += 1
        top_headers[key] = val.strip()
    if top_headers:
        drafts.append(_Draft(headers=top_headers, lines=lines[i:]))
    else:
        # 2. subject line, then "[Name <addr>]" or author-name lines
        first = next((k for k, line in enumerate(lines) if line.strip()), None)
        if first is not None:
            subject = lines[first].strip()
            rest = lines[first + 1 :]
            k = next((k for k, line in enumerate(rest) if line.strip()), None)
            if k is not None and (bracketed := BRACKET_AUTHOR.match(rest[k].strip())):
                drafts.append(
                    _Draft(
                        headers={
                            "From": f"{bracketed.group('name').strip()} <{bracketed.group('addr')}>",
                            "Subject": subject,
                        },
                        lines=rest[k + 1 :],
                    )
                )
            else:
                starts = _split_name_lines(lines[first:])
                if starts and starts[0][0] == 1:
                    shown = _author_names(lines[first:])
                    for n, (idx, name) in enumerate(starts):
                        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines) - first
                        body = lines[first + idx + 1 : first + end]
                        subj = subject if n == 0 else "Re: " + subject
                        author = f"{name} <{shown[name]}>" if name in shown else name
                        drafts.append(_Draft(headers={"From": author, "Subject": subj}, lines=body))
                else:
                    drafts.append(_Draft(headers={"Subject": subject}, lines=rest))
    # 3. Outlook blocks inside each message start older messages
    expanded: list[_Draft] = []
    parent_of: dict[int, int] = {}
    for d in drafts:
        blocks = _outlook_blocks(d)
        for k in range(1, len(blocks)):  # each Outlook block is what the text above it answers
            parent_of[len(expanded) + k - 1] = len(expanded) + k
        expanded.extend(blocks)
    messages = [_to_message(d, n, source, expanded) for n, d in enumerate(expanded)]
    for child, parent in parent_of.items():
        messages[child].quoted_parent = messages[parent].message_id
    _link_by_quotes(messages)
    return messages


def _link_by_quotes(messages: list[Message]) -> None:
    """Dumps carry no In-Reply-To: find each message's parent by what it quotes."""
    attribute_quotes([(m, segment_body(m.body)) for m in messages])


CJK_DATE = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日\s*(\d{1,2}):(\d{2})")
OUTLOOK_DATE_FORMATS = ("%A, %B %d, %Y %I:%M %p", "%A, %B %d, %Y %H:%M", "%d %B %Y %H:%M")


def parse_loose_date(value: str) -> str | None:
    """RFC 2822 dates, and the local forms Outlook quote blocks write.

    ``Friday, April 22, 2022 5:02 PM`` (seed 004) and ``2024年3月7日 2:46``
    (seed 000) carry no zone: they are stored as written and read as UTC.
    """
    value = value.strip()
    m = CJK_DATE.search(value)
    if m:
        y, mo, d, hh, mm = map(int, m.groups())
        try:
            return datetime(y, mo, d, hh, mm, tzinfo=UTC).isoformat()
        except ValueError:
            return None
    for fmt in OUTLOOK_DATE_FORMATS:
        try:
            return datetime.strptime(value, fmt).replace(tzinfo=UTC).isoformat()
        except ValueError:
            continue
    return parse_date(value)


def _to_message(d: _Draft, n: int, source: str, all_drafts: list[_Draft]) -> Message:
    h = d.headers
    name, addr = _parse_addr(h.get("From", ""))
    body = "\n".join(d.lines).strip("\n")
    subject = h.get("Subject", "")
    if not subject and n > 0:
        subject = all_drafts[0].headers.get("Subject", "")
    date_raw = h.get("Date", "")
    raw = ("\n".join(f"{k}: {v}" for k, v in h.items()) + "\n\n" + body).encode("utf-8", "replace")
    mid = h.get("Message-ID", "").strip().strip("<>")
    synthetic = not mid
    if synthetic:
        mid = synthetic_id(raw)
    return Message(
        message_id=mid,
        subject=subject,
        from_name=name,
        from_addr=addr,
        from_obfuscated=is_obfuscated(addr) if addr else False,
        date_raw=date_raw,
        date_utc=parse_loose_date(date_raw) if date_raw else None,
        to=h.get("To", ""),
        cc=h.get("Cc", ""),
        body=body,
        raw=raw,
        source=f"{source}#{n + 1}",
        synthetic_id=synthetic,
        archive_url=None if synthetic else lore_url(mid),
    )
