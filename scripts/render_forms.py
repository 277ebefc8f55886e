#!/usr/bin/env python3
"""Render labelled cases' raw mail as archive pages, to score the same mail in other forms.

    scripts/render_forms.py ../shared/eval/dev /tmp/forms
    scripts/eval_dev.py /tmp/forms/lkml_org

Each case's ``source.eml`` is written as a page of three archives (``lore``: public-inbox's
message page, addresses kept; ``lkml_org``: the body in a schema.org article, the address
dropped as lkml.org prints "Name <>"; ``marc``: marc.info's page, addresses mangled to
"name () host ! org"), beside a copy of its ``gold.json``.  The templates follow the archives'
markup as ARCHIVES.md describes it; only the parts lkmlkb's readers look at are written.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import html
import re
import shutil
from email.message import EmailMessage
from pathlib import Path


def _text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    if part is None:
        return ""
    try:
        return part.get_content()
    except (LookupError, ValueError):  # an unknown or broken charset: as bytes, replaced
        return (part.get_payload(decode=True) or b"").decode("utf-8", "replace")


def _ascii(s: str) -> str:
    """public-inbox writes non-ASCII as character references."""
    return html.escape(s, quote=False).encode("ascii", "xmlcharrefreplace").decode("ascii")


def _h(msg: EmailMessage, name: str) -> str:
    return str(msg[name] or "")


def lore(msg: EmailMessage) -> str:
    body = "\n".join(
        f'<span class="q">{_ascii(line)}</span>' if line.startswith(">") else _ascii(line)
        for line in _text(msg).split("\n")
    )
    mid = _h(msg, "Message-ID").strip().strip("<>")
    parent = _h(msg, "In-Reply-To").strip().strip("<>")
    head = f"From: {_ascii(_h(msg, 'From'))}\nTo: {_ascii(_h(msg, 'To'))}\n"
    if msg["Cc"]:
        head += f"Cc: {_ascii(_h(msg, 'Cc'))}\n"
    head += (
        f'Subject: <a href="#r" id=t>{_ascii(_h(msg, "Subject"))}</a>\n'
        f'Date: {_ascii(_h(msg, "Date"))}\t[<a href="#r">thread overview</a>]\n'
        f'Message-ID: &lt;{_ascii(mid)}&gt; (<a href="raw">raw</a>)\n'
    )
    if parent:
        head += f'In-Reply-To: &lt;<a href="../{_ascii(parent)}/">{_ascii(parent)}</a>&gt;\n'
    return (
        f"<html><head><title>{_ascii(_h(msg, 'Subject'))}</title></head><body>"
        '<form action="../"><pre><a href="../"><b>archive mirror</b></a>\n</pre></form>'
        f'<pre id=b>{head}\n{body}\n</pre><hr><pre><a href="#R" id=R>reply</a></pre></body></html>\n'
    )


def lkml_org(msg: EmailMessage) -> str:
    body = "<br />".join(html.escape(line, quote=False) for line in _text(msg).split("\n")) + "<br />"
    name = html.escape(re.sub(r"\s*<[^>]*>\s*$", "", _h(msg, "From")).strip().strip('"'))
    subject = html.escape(_h(msg, "Subject"))
    return (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN">\n'
        f"<html><head><title>LKML: {name}: {subject}</title></head><body>\n"
        '<table><tr><td itemscope itemtype="http://schema.org/Article"><table>'
        f'<tr><td class="lp">Date</td><td class="rp" itemprop="datePublished">{html.escape(_h(msg, "Date"))}</td></tr>\n'
        f'<tr><td class="lp">From</td><td class="rp" itemprop="author">{name} &lt;&gt;</td></tr>\n'
        f'<tr><td class="lp">Subject</td><td class="rp" itemprop="name">{subject}</td></tr></table>\n'
        f'<pre itemprop="articleBody">{body}</pre></td></tr></table></body></html>\n'
    )


def _marcify(s: str) -> str:
    return re.sub(r"([\w.+-]+)@([\w.-]+)", lambda m: m.group(1) + " () " + m.group(2).replace(".", " ! "), s)


def marc(msg: EmailMessage) -> str:
    body = "\n".join(html.escape(_marcify(line), quote=False) for line in _text(msg).split("\n"))
    mid = html.escape(_marcify(_h(msg, "Message-ID").strip().strip("<>")))
    return (
        f"<head>\n <title>'{html.escape(_h(msg, 'Subject'))}' - MARC</title>\n</head>\n<body>\n"
        '<pre><b>[<a href="?l=list&m=1&w=2">prev in list</a>] [<a href="?l=list&m=3&w=2">next in list</a>] </b>\n'
        "<b><font size=+1>\n"
        'List:       <a href="?l=list&r=1&w=2">list</a>\n'
        f"Subject:    {html.escape(_h(msg, 'Subject'))}\n"
        f'From:       <a href="?a=1&r=1&w=2">{html.escape(_marcify(_h(msg, "From")))}</a>\n'
        f'Date:       <a href="?l=list&r=1&b=1&w=2">{html.escape(_h(msg, "Date"))}</a>\n'
        f'Message-ID: <a href="?i=1">{mid}</a></font>\n'
        '[<a href="?l=list&m=2&q=raw">Download message RAW</a>]</b>\n\n'
        f"{body}\n</pre>\n</body>\n</html>\n"
    )


FORMS = {"lore": lore, "lkml_org": lkml_org, "marc": marc}


def render(raw: bytes) -> dict[str, str]:
    """Every form's page of one raw message."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    return {name: page(msg) for name, page in FORMS.items()}  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", type=Path, help="a folder of cases, each with source.eml and gold.json")
    ap.add_argument("out", type=Path, help="where each form's cases are written")
    a = ap.parse_args()
    for case in sorted(p for p in a.cases.iterdir() if (p / "source.eml").is_file()):
        for name, page in render((case / "source.eml").read_bytes()).items():
            dest = a.out / name / case.name
            dest.mkdir(parents=True, exist_ok=True)
            (dest / "source.html").write_text(page, encoding="utf-8")
            if (case / "gold.json").is_file():
                shutil.copy(case / "gold.json", dest / "gold.json")


if __name__ == "__main__":
    main()
