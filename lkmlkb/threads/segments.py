"""Body segmentation: each body split into runs of new text, quoted text (with its depth),
attribution lines, Outlook quote headers, signatures, patches and list footers, with 0-based
line spans.  Quote attribution (:mod:`lkmlkb.threads.quotes`) later sets, on quoted runs, the
message that first said them.
"""

from __future__ import annotations

import re
from itertools import groupby

from lkmlkb.model import Segment

# "> " / ">>" / "> >" quote markers; a ">" followed by "=" is no marker: fio's
# wrapped percentile lines start ">=2000=8.42%" / ">=64=199.5%" (seed 000)
QUOTE = re.compile(r"^((?:[ \t]{0,3}>(?!=)){1,100})[ \t]?")
ATTRIBUTION = re.compile(
    r"""(?:
        ^On\b.{0,200}\b(?:wrote|writes|said)\s?:?\s*$      # On Thu, Apr 15, 2021 at 11:41AM +0100, John Garry wrote:
      | ^.{1,120}\b(?:wrote|writes)\s?:\s*$                 # Jan Kara <ja...@suse.cz> writes:
      | ^Quoting\s.{1,200}:\s*$                            # Quoting Name (date):
      | ^Am\s.{1,200}schrieb.{0,120}:\s*$                  # Am ... schrieb X:
      | ^Le\s.{1,200}a\s[ée]crit\s?:\s*$                   # Le ... a écrit :
      | ^.{1,160}(?:于|於).{0,80}(?:写道|寫道)\s?[:：]\s*$    # X 于 2024年3月7日 写道：
    )""",
    re.X | re.I,
)
OUTLOOK_HEADER = re.compile(
    r"""^(?:-{3,}\s*(?:Original\s+Message|邮件原件|原始邮件)\s*-{3,}
       | (?:From|Sent|To|Cc|Subject|Date|发件人|发送时间|收件人|抄送|主题)\s*[:：].{0,2000}
       | _{10,})\s*$""",
    re.X | re.I,
)
DIFF_START = re.compile(r"^(?:diff[ ]--git[ ]|diff[ ]-[a-zA-Z]|Index:[ ]\S|---[ ]a/|\+\+\+[ ]b/|@@[ ]-\d)")
DIFF_LINE = re.compile(
    r"^(?:[ +\-]|\s\d{1,6}\sfiles?\schanged|@@[ ]|diff[ ]|index[ ][0-9a-f]|new[ ]file|deleted[ ]file|similarity|rename|\\[ ]No[ ]newline|old[ ]mode|new[ ]mode|Binary[ ]files|$)"
)
# " 4 files changed, 134 insertions(+), 405 deletions(-)" ends a diffstat (cover letters)
DIFFSTAT_SUM = re.compile(
    r"^\s\d{1,6}\sfiles?\schanged(?:,\s\d{1,9}\s(?:insertions?|deletions?)\([+-]\)){0,2}\s*$"
)
DIFFSTAT = re.compile(r"^\s\S{1,200}\s+\|\s+(?:\d{1,6}\s?[+\-]*|Bin\b.{0,60})$")
FOOTER_START = re.compile(
    r"""^(?:To[ ]unsubscribe[ ]from[ ]this[ ]list                 # vger majordomo trailer
      | More[ ]majordomo[ ]info[ ]at
      | Please[ ]read[ ]the[ ]FAQ[ ]at
      | You[ ]received[ ]this[ ]message[ ]because[ ]you[ ]are[ ]subscribed   # Google Groups
      | _{20,}\s*$                                          # Mailman footer rule
      | [\w.-]{1,60}[ ]mailing[ ]list\s*$                   # "Linux-nvme mailing list"
      | Powered[ ]by[ ]blists)""",
    re.X | re.I,
)
# a top-posted Outlook reply: below this line the older message is quoted unmarked
OUTLOOK_SEPARATOR = re.compile(
    r"""^[ \t]{0,3}(?:
        -{3,}[ \t]{0,3}(?:Original[ ]Message|邮件原件|原始邮件|Ursprüngliche[ ]Nachricht)[ \t]{0,3}-{3,}  # Outlook EN/CN/DE
      | _{10,}                                                 # Outlook web: "________________" then From:/Sent:
    )[ \t]{0,3}$""",
    re.X | re.I,
)
OUTLOOK_FROM = re.compile(r"^[ \t]{0,3}(?:From|发件人|Von)[ \t]{0,2}[:：]")  # "From: X" / "发件人: X"
OUTLOOK_SENT = re.compile(
    r"^[ \t]{0,3}(?:Sent|发送时间|Gesendet)[ \t]{0,2}[:：]"
)  # "Sent: ..." / "发送时间: ..."
# the git version format-patch writes under "-- " at the end of a patch: "2.43.0", "2.39.3 (Apple Git-145)"
GIT_VERSION = re.compile(r"^\d{1,3}\.\d{1,3}(?:\.\d{1,4}){0,2}(?:[ .-][\w.() -]{0,40})?$")
#: a signature under "-- " holds at most this many lines; a longer run is text
MAX_SIG_LINES = 15


# Cheap necessary conditions for the patterns above, tested before them: most
# lines of a body are prose or patch lines that no pattern but DIFF_LINE can
# match, and a first-character test costs a tenth of a regex call.  Each set
# lists every character the pattern can start with: for re.I patterns both
# cases, and "ſ", which re.I matches to "s" (the other letters here have no
# such extra folds).
DIFF_START_LEAD = frozenset("dI-+@")  # diff / Index: / --- a/ / +++ b/ / @@ -
OUTLOOK_LEAD = frozenset("-_F发V")  # OUTLOOK_SEPARATOR, OUTLOOK_FROM (after <= 3 blanks)
OUTLOOK_HEADER_LEAD = frozenset("-_FfSsſTtCcDd发收抄主")  # OUTLOOK_HEADER (re.I: "ſ" folds to "s")
FOOTER_LEAD = frozenset("TtMmPpYy_")  # FOOTER_START's fixed-text alternatives
ATTRIBUTION_END = (":", "：")  # every ATTRIBUTION alternative but "On ..." ends so
ATTRIBUTION_ON = ("On", "on", "ON", "oN")  # how ATTRIBUTION's "On ..." alternative starts


def quote_depth(line: str) -> tuple[int, str]:
    """Depth of ``>`` quoting (``> >`` and ``>>`` alike) and the unquoted text."""
    if ">" not in line[:4]:  # QUOTE needs a ">" after at most three blanks
        return 0, line
    if line[0] == ">":  # the common "> text" and ">text", answered as QUOTE would
        after = line[1:2]
        if after == " ":
            if line[2:3] not in (" ", "\t", ">"):
                return 1, line[2:]
        elif after not in ("\t", ">", "="):  # "" too: a bare ">"
            return 1, line[1:]
    m = QUOTE.match(line)
    if not m:
        return 0, line
    return m.group(1).count(">"), line[m.end() :]


def _is_attribution(c: str) -> bool:
    """ATTRIBUTION on a stripped line: ``On ... wrote:``, ``X writes:``, ``X 于 ... 写道：``."""
    return (c[-1:] in ATTRIBUTION_END or c[:2] in ATTRIBUTION_ON) and bool(ATTRIBUTION.match(c))


def _is_outlook_header(c: str) -> bool:
    """OUTLOOK_HEADER on a stripped line: ``From: X`` / ``-----Original Message-----`` / ``主题: Y``."""
    return c[:1] in OUTLOOK_HEADER_LEAD and bool(OUTLOOK_HEADER.match(c))


def _is_footer(line: str) -> bool:
    """FOOTER_START: a list trailer; ``X mailing list`` needs a ``g l`` (any case) somewhere."""
    return (line[:1] in FOOTER_LEAD or "g l" in line.lower()) and bool(FOOTER_START.match(line))


def _is_diff_line(line: str) -> bool:
    """DIFF_LINE: context, ``+`` and ``-`` lines and blank lines answered without the regex."""
    return line == "" or line[0] in " +-" or bool(DIFF_LINE.match(line))


def _is_diffstat(line: str) -> bool:
    """DIFFSTAT: `` block/blk-mq.c | 12 ++--`` (a leading blank and a ``|``)."""
    return "|" in line and line[:1].isspace() and bool(DIFFSTAT.match(line))


def _patch_starts(lines: list[str], i: int) -> bool:
    """A diff header, ``---`` above a diffstat, or two diffstat lines in a row."""
    line = lines[i]
    n = len(lines)
    if line[:1] in DIFF_START_LEAD and DIFF_START.match(line):
        return True
    if "---" in line and line.strip() == "---" and i + 1 < n and _is_diffstat(lines[i + 1]):
        return True
    return (
        _is_diffstat(line)
        and i + 1 < n
        and (_is_diffstat(lines[i + 1]) or bool(DIFFSTAT_SUM.match(lines[i + 1])))
    )


def _classify(lines: list[str], depths: list[int], contents: list[str]) -> list[tuple[str, int]]:
    """The kind and quote depth of every line (``depths`` and ``contents``: :func:`quote_depth` of each)."""
    kinds: list[tuple[str, int]] = []
    in_patch = False
    in_footer = False
    sig_until = -1
    n = len(lines)
    in_outlook = False  # inside the unmarked quote of a top-posted Outlook reply
    outlook_headers = False
    for i, line in enumerate(lines):
        depth = depths[i]
        if depth and not in_outlook:
            in_patch = False
            c = contents[i].strip()
            if _is_attribution(c):
                kinds.append(("attribution", depth))
            elif (
                _is_outlook_header(c)
                and (c.startswith(("-", "_")) or ":" in c or "：" in c)
                and _near_outlook(contents, i)
            ):
                kinds.append(("quoted_header", depth))
            else:
                kinds.append(("quoted", depth))
            continue
        if not depth:
            first = line[:1]
            # a patch's "+" lines and "-" lines other than "--...": what the checks below decide
            # (neither can start an Outlook block: its separator starts "---" or "___")
            if in_patch and (first == "+" or (first == "-" and line[1:2] != "-")):
                kinds.append(("patch", 0))
                continue
            # the first character after at most three blanks: only a few can start an Outlook block
            lead = first if first != " " and first != "\t" else line[:4].lstrip(" \t")[:1]
            if (
                not in_outlook
                and not in_footer
                and i > sig_until
                and lead in OUTLOOK_LEAD
                and _outlook_block_start(lines, i)
            ):
                in_outlook = outlook_headers = True
                in_patch = False
            if in_patch and first == " " and lead not in OUTLOOK_LEAD:
                kinds.append(("patch", 0))  # as for "+" lines
                continue
        if in_outlook:
            c = contents[i].strip()
            if outlook_headers and (OUTLOOK_SEPARATOR.match(line) or OUTLOOK_HEADER.match(c)):
                kinds.append(("quoted_header", depth + 1))
                continue
            outlook_headers = False
            kinds.append(("attribution" if _is_attribution(c) else "quoted", depth + 1))
            continue
        if in_footer:
            kinds.append(("footer", 0))
            continue
        if i <= sig_until:
            kinds.append(("signature", 0))
            continue
        if in_patch and line == "-- " and i + 1 < n and GIT_VERSION.match(lines[i + 1]):
            in_patch = False  # format-patch's "-- " / "2.43.0" trailer: a signature, below
        if in_patch:
            if _is_diff_line(line) and not (line == "" and _next_is_prose(lines, i)):
                kinds.append(("patch", 0))
                continue
            in_patch = False
        if (line[:1] in DIFF_START_LEAD or "|" in line or "---" in line) and _patch_starts(lines, i):
            in_patch = True
            kinds.append(("patch", 0))
            continue
        if _is_footer(line):
            in_footer = True
            kinds.append(("footer", 0))
            continue
        if line == "--" or line == "-- ":  # the signature separator, with or without its space
            end = i
            # no further than one line past what a signature may hold: a longer run is none, and
            # walking it to the end at every "-- " made a flood of them quadratic
            while (
                end + 1 < n
                and end - i <= MAX_SIG_LINES
                and not depths[end + 1]
                and not _is_footer(lines[end + 1])
            ):
                end += 1
            if end - i <= MAX_SIG_LINES:
                sig_until = end
                kinds.append(("signature", 0))
                continue
        if (_is_attribution(line.strip()) and _next_is_quoted(lines, i, depths)) or (
            lead in OUTLOOK_LEAD and _from_sent_attribution(lines, i, depths, contents)
        ):
            kinds.append(("attribution", 0))
            continue
        kinds.append(("new", 0))
    return kinds


def _outlook_block_start(lines: list[str], i: int) -> bool:
    """``-----Original Message-----`` / ``-----邮件原件-----`` (then, for a bare
    rule of underscores, a ``From:`` within two lines), or ``From:`` directly
    followed by ``Sent:`` / ``发件人:`` by ``发送时间:``: Outlook's top-posting."""
    line = lines[i][:4000]
    if OUTLOOK_SEPARATOR.match(line):
        if line.strip().startswith("_"):
            return any(OUTLOOK_FROM.match(lines[j][:4000]) for j in range(i + 1, min(i + 3, len(lines))))
        return True
    return bool(OUTLOOK_FROM.match(line) and i + 1 < len(lines) and OUTLOOK_SENT.match(lines[i + 1][:4000]))


def _from_sent_attribution(lines: list[str], i: int, depths: list[int], contents: list[str]) -> bool:
    """``From: Dongsoo Lee`` above ``> Sent: 12 January 2024 02:29`` (Outlook
    users who quote with ``>``, e.g. David Laight on linux-block)."""
    if not OUTLOOK_FROM.match(lines[i][:4000]) or i + 1 >= len(lines):
        return False
    # quote marks end within 401 characters: as of lines[i + 1][:4000]
    return depths[i + 1] > 0 and bool(OUTLOOK_SENT.match(contents[i + 1]))


def _near_outlook(contents: list[str], i: int) -> bool:
    """An Outlook header line is one of at least two such lines in a row."""

    def is_h(j):
        return 0 <= j < len(contents) and OUTLOOK_HEADER.match(contents[j].strip() or "x")

    return bool(is_h(i - 1) or is_h(i + 1))


def _next_is_quoted(lines: list[str], i: int, depths: list[int]) -> bool:
    for j in range(i + 1, min(i + 4, len(lines))):
        if lines[j].strip():
            return depths[j] > 0
    return False


def _next_is_prose(lines: list[str], i: int) -> bool:
    for j in range(i + 1, min(i + 3, len(lines))):
        if lines[j].strip():
            return not DIFF_LINE.match(lines[j]) or lines[j][:1].isalpha()
    return True


def _quotes(lines: list[str]) -> tuple[list[int], list[str]]:
    """:func:`quote_depth` of every line, as two lists (depths, texts); a line without ">" in
    its first four characters is answered as quote_depth answers it, without the call."""
    depths = [0] * len(lines)
    contents = lines.copy()
    for i in [i for i, line in enumerate(lines) if ">" in line[:4]]:
        depths[i], contents[i] = quote_depth(lines[i])
    return depths, contents


def segment_body(body: str) -> list[Segment]:
    """Split a body into segments with 0-based inclusive line spans."""
    lines = body.split("\n")
    depths, contents = _quotes(lines)
    segments: list[Segment] = []
    start = 0
    for (kind, depth), run in groupby(_classify(lines, depths, contents)):
        end = start + len(list(run))
        segments.append(
            Segment(kind, start, end - 1, "\n".join((contents if depth else lines)[start:end]), depth)
        )
        start = end
    # blank-only "new" runs between quoted runs are not text anyone wrote
    return [s for s in segments if not (s.kind == "new" and not s.text.strip())]


def new_text(segments: list[Segment]) -> str:
    return "\n".join(s.text for s in segments if s.kind == "new")
