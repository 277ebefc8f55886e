"""What a report thread's mail says that can tie it to another thread: its keys.

Each key is a (kind, value) pair with the message and date it was read from and the text that
says it (the evidence a link keeps as its reason).  Keys are read once, when a thread's report
is written, and stored; grouping (:mod:`lkmlkb.regressions.group`) reads only the stored keys.
"""

from __future__ import annotations

import hashlib
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field

from lkmlkb.threads.threader import BRACKET_TAG, PATCH_TAG, is_reply_subject, own_subject, patch_version

#: kinds of key
CULPRIT = "culprit"  # a commit the thread blames (the report's culprit, `#regzbot introduced`)
FIXES = "fixes"  # a `Fixes:` tag's commit
FIX_COMMIT = "fix-commit"  # a commit the thread cites as fixing or reverting (`#regzbot fix:` with a SHA)
FIX_SUBJECT = "fix-subject"  # `#regzbot fix:` naming a patch by its subject (normalized)
LINK = "link"  # a Message-ID a `Link:`/`Closes:` tag or `#regzbot dup-of:` points at
DUP_OF = "dup-of"  # a Message-ID `#regzbot dup-of:` points at
SERIES = "series"  # a patch's subject without `[PATCH vN m/n]` (detail: the version)
PATCH = "patch"  # the subject of a patch its series posts (the first message's and each numbered patch's)
#: a patch posted inside a thread that is no patch's own (a fix sent in reply to a report); value:
#: who posted it and its subject, a line each
POSTED_IN = "posted-in"
SUBJECT = "subject"  # the thread's normalized subject (for replies that lost their References)
COPY = "copy"  # a message's author, minute and first words (the same mail from another source)
PERSON = "person"  # someone who wrote in the thread
AUTHOR = "author"  # who wrote the thread's first message
TRAILER = "trailer"  # someone a patch's trailers name (Reported-by, Tested-by, Cc, ...)
CREDITED = "credited"  # someone a patch credits with finding or testing its problem (Reported-by, ...)
CARRIED = "carried"  # a patch's own subject beside the Link: it carries (value: the Message-ID linked)
REVERTS = "reverts"  # a commit `This reverts commit <sha>` names
APPLIED_SAID = "applied"  # a reply saying the patch was applied
WORKLOAD = "workload"  # a normalized workload fingerprint
METRIC = "metric"  # the headline metric
DIFFERENT = "says-different"  # the mail says this is another regression than one it resembles
PART = "part"  # what the thread is in a regression's story (report, revert, stable backport, ...)
POSTING = "posting"  # the git send-email or b4 run a patch thread's first message was sent by
REFERS = "refers"  # a message an archive link in the thread's own words points at (not a trailer)
BUG = "bug"  # the bugzilla.kernel.org bug a thread's mail is (its Message-IDs are the bug's)
BUG_CITED = "bug-cited"  # a bugzilla.kernel.org bug a patch's first message links

#: the kernel test robot's workload keys: its test and each of its parameters, one key each
#: (``robot test=fio``, ``robot ioengine=falloc``)
ROBOT_WORKLOAD = "robot "

#: the parts, in the order a story tells them
REPORT = "report"
ROBOT = "robot report"
BISECTION = "bisection"
FIX_PROPOSED = "fix proposed"
APPLIED = "applied"
REVERT = "revert"
STABLE = "stable backport"
DUPLICATE = "duplicate copy"


@dataclass(frozen=True)
class Key:
    kind: str
    value: str
    message_id: str | None = None
    date: str | None = None
    detail: str | None = None  # the evidence, as written


@dataclass
class Mail:
    """One message of a thread, as the keys are read from it."""

    message_id: str
    subject: str = ""
    from_name: str = ""
    from_addr: str = ""
    date: str | None = None
    text: str = ""  # the message's own words (quotes of the thread left out)


@dataclass
class ThreadInput:
    """A report thread: its report's columns that grouping reads, and its messages."""

    thread_id: str
    title: str = ""
    is_regression_report: bool = False
    has_report: bool = True  # False: a patch or revert thread keyed for its link lines (no copy keys)
    status: str | None = None
    culprits: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    reverts: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)  # titles of commits cited as fixing or tested
    people: list[str] = field(default_factory=list)
    first_date: str | None = None
    headline_metric: str | None = None
    fio_jobs: list[dict] = field(default_factory=list)  # normalized options (rw, bs, ...)
    mails: list[Mail] = field(default_factory=list)


HEX_RE = re.compile(r"^[0-9a-f]{7,40}$")
_FIXES_RE = re.compile(r"^\s{0,4}Fixes:\s{0,4}([0-9a-fA-F]{7,40})\b(.{0,200})$", re.M)
_REVERTS_RE = re.compile(r"^\s{0,4}This reverts commit ([0-9a-fA-F]{12,40})\b.{0,20}$", re.M)
_LINK_RE = re.compile(
    r"^\s{0,4}(Link|Closes|Reported-and-tested-by|Reported-by):\s{0,4}<?https?://"
    r"(?:lore\.kernel\.org|lkml\.kernel\.org|patch\.msgid\.link)/(?:[A-Za-z0-9._-]{1,80}/)?(?:r/)?"
    r"([^/\s>]{3,200}@[^/\s>]{1,200}?)/?>?\s*$",
    re.M,
)
_REGZBOT_RE = re.compile(
    r"^\s{0,4}#regzbot\s{1,4}(\^?introduced|fix|dup-of|dup|duplicate)\s{0,4}:?\s{0,4}(\S.{0,300})$",
    re.M | re.I,
)
_MSGID_IN_URL_RE = re.compile(r"/(?:r/)?([^/\s>]{1,200}@[^/\s>]{1,200}?)/?>?\s*$")
_SHA_START_RE = re.compile(r"^([0-9a-fA-F]{7,40})\b")
_STABLE_TAG_RE = re.compile(r"\[PATCH\s{1,3}(?:AUTOSEL\s{1,3})?(?:\d+\.\d+|[0-9.]+-stable)(?:\.y)?\b", re.I)
_PREFIX_RE = re.compile(r"^\s*(?:(?:re|fwd?|aw|sv|答复|回复)\s{0,2}:\s*|\[[^\]]{0,80}\]\s*)", re.I)
_APPLIED_RE = re.compile(
    r"^\s{0,4}(?:applied|queued|merged|pushed)\b[^\n]{0,80}(?:thanks|to|into|,)|^\s{0,4}applied[.!]?\s*$",
    re.I | re.M,
)
_ROBOT_RE = re.compile(r"kernel test robot|lkp@intel\.com|oliver\.sang@intel\.com", re.I)
_DIFFERENT_RE = re.compile(
    r"\b(?:(?:a|another)\s(?:different|separate|second|new)\s(?:regression|issue|problem|bug)"
    r"|not\sthe\ssame\s(?:regression|issue|problem|bug)"
    r"|(?:different|separate|unrelated)\s(?:regression|issue|problem)\sthan"
    r"|is\s(?:a\s)?different\s(?:regression|issue|problem)"
    r"|unrelated\sto\s(?:the|this|that)\s(?:regression|report|issue))\b",
    re.I,
)
#: the robot naming the regression it reports by its metric
_ROBOT_NOTICED_RE = re.compile(
    r"noticed an?\s{1,3}[-+]?\d{1,4}(?:\.\d{1,3})?%\s{1,3}(?:regression|improvement)\s{1,3}of\s{1,3}([A-Za-z0-9_.:/-]{2,80}?):?\s{1,3}on\b",
    re.I | re.M,
)
#: bugzilla.kernel.org's mail: ``bug-217965-13602@https.bugzilla.kernel.org/`` is of bug 217965
_BUG_MESSAGE_ID_RE = re.compile(r"^bug-(\d{4,7})-\d{1,8}(?:-[\w.]{1,40})?@https?\.bugzilla\.kernel\.org/?$")
#: a link to a bug of bugzilla.kernel.org ("Link: https://bugzilla.kernel.org/show_bug.cgi?id=217965")
_BUG_URL_RE = re.compile(r"https?://bugzilla\.kernel\.org/show_bug\.cgi\?id=(\d{4,7})\b")


def bug_of(message_id: str | None) -> str | None:
    """The bugzilla.kernel.org bug a Message-ID is a mail of, or None."""
    m = _BUG_MESSAGE_ID_RE.match((message_id or "").strip().strip("<>"))
    return m.group(1) if m else None


#: a link to a message of an archive, anywhere in a message's words: "continuation of the discussion
#: in https://lore.kernel.org/all/<id>/t/", "(Link: https://lore.kernel.org/linux-mm/<id>/)"
_ARCHIVE_URL_RE = re.compile(
    r"https?://(?:lore|lkml)\.kernel\.org/(?:[\w.-]{1,80}/)?(?:r/)?([^/\s<>]{3,200}@[^/\s<>]{1,200})"
)
#: the robot naming an earlier report of its own: 'we reported "[linus:master] [btrfs] c87c299776:
#: iozone.average_KBps 18.5% regression" in https://lore.kernel.org/all/202411302252.67284087-lkp@intel.com/'
_ROBOT_REPORTED_RE = re.compile(
    r"\bwe\s(?:have\s)?reported\s{1,3}\"[^\"\n]{1,300}\"\s{1,3}in\s{1,3}https?://lore\.kernel\.org/"
    r"(?:[\w.-]{1,80}/)?(?:r/)?([^/\s>]{3,200}@[^/\s>]{1,200}?)/?(?=[\s>]|$)",
    re.I,
)
_TRAILER_RE = re.compile(
    r"^\s{0,4}(?:[A-Za-z]{2,12}(?:-and-[A-Za-z]{2,12})?-by|Reported by|Cc):\s{0,4}([^<\n]{1,80}?)\s{0,4}(?:<([^>\s]{1,120})>)?\s*$",
    re.M,
)
#: the trailers crediting someone with the problem a patch fixes: who found, bisected or tested it
_CREDIT_TRAILER_RE = re.compile(
    r"\s{0,4}(?:Reported(?:-and-tested)?-by|Reported by|Tested-by|Bisected-by|Debugged-by|Suggested-by):",
    re.I,
)
_SPACE_RE = re.compile(r"\s+")
_QUOTE_LINE_RE = re.compile(r"^\s{0,3}>.*$", re.M)
#: how much of a message's own words keys are read from (trailers and replies are near the top)
KEY_CHARS = 16384
#: how many characters of a message's own words identify it among copies
COPY_CHARS = 160
#: fio options of the workload fingerprint
FIO_KEYS = ("rw", "bs", "iodepth", "numjobs", "ioengine", "direct", "size")
#: robot parameters of the workload fingerprint
_ROBOT_PARAM_RE = re.compile(
    r"^\s{1,8}(rw|bs|ioengine|direct|nr_task|test_size|fs|disk|test|mode)\s?:\s?(\S{1,40})\s*$", re.M
)
_ROBOT_TEST_RE = re.compile(
    r"\]\s*(?:[0-9a-f]{7,40}:\s*)?([A-Za-z0-9_-]{2,40})\.([A-Za-z0-9_.-]{2,60})\s+-?\d", re.I
)

#: Message-IDs that name the run of git send-email or b4 that sent them, and the patch's place in
#: it: every patch of one posting shares what is left without the place
_POSTING_RES = (
    # git send-email: <YYYYMMDDhhmmss>.<pid>-<n>-<sender>
    re.compile(r"^(\d{14}\.\d{1,10})-\d{1,4}-(\S{1,200}@\S{1,200})$"),
    # git send-email before 2.x: <epoch>-<pid>-<n>-git-send-email-<sender>
    re.compile(r"^(\d{9,11}-\d{1,10})-\d{1,4}-(git-send-email-\S{1,200}@\S{1,200})$"),
    # b4: <YYYYMMDD>-<branch>-v<n>-<n>-<hash>@<domain>
    re.compile(r"^(\d{8}-\S{1,120}-v\d{1,3})-\d{1,4}-([0-9a-f]{8,16}@\S{1,200})$"),
)


def posting_of(message_id: str | None) -> str | None:
    """The posting a patch's Message-ID names (``20251116032044.118664-6-yukuai@fnnas.com`` ->
    ``20251116032044.118664 yukuai@fnnas.com``), or None for an ID of another form."""
    mid = (message_id or "").strip().strip("<>")
    for rx in _POSTING_RES:
        if m := rx.match(mid):
            return f"{m.group(1)} {m.group(2)}".lower()
    return None


def sender_of(message_id: str | None) -> str | None:
    """The address git send-email wrote into a Message-ID it made
    (``20191107001941.30991-1-dmitry.fomichev@wdc.com`` -> ``dmitry.fomichev@wdc.com``), or None
    (b4's IDs and a mailer's name no one)."""
    mid = (message_id or "").strip().strip("<>")
    for rx in _POSTING_RES[:2]:
        if m := rx.match(mid):
            return address("", m.group(2).removeprefix("git-send-email-"))
    return None


#: the Message-ID of a kernel test robot report: ``202305230837.db2c233f-yujie.liu@intel.com``
_ROBOT_MESSAGE_ID_RE = re.compile(r"^\d{12}\.[0-9a-f]{8}-[\w.]{2,40}@intel\.com$")


def is_robot(who: str) -> bool:
    """Whether a person (as :func:`person` writes one) or a Message-ID is the kernel test robot's."""
    return bool(_ROBOT_RE.search(who) or _ROBOT_MESSAGE_ID_RE.match(who)) or who.startswith("lkp")


def strip_subject(subject: str) -> str:
    """The subject without `Re:`/`Fwd:` and bracketed tags (`[PATCH v2 1/3]`), lower-cased, one space a gap."""
    s = subject or ""
    for _ in range(12):
        t = _PREFIX_RE.sub("", s, count=1)
        if t == s:
            break
        s = t
    return _SPACE_RE.sub(" ", s).strip().lower()


def normalize_sha(sha: str) -> str | None:
    s = (sha or "").strip().lower()
    return s if HEX_RE.match(s) else None


def sha_match(a: str, b: str) -> bool:
    """One commit by its SHAs as written: one a prefix of the other, the shorter 12 hex digits or more."""
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 12 and long_.startswith(short)


#: a list that rewrites its senders' From: (DMARC) names them "Chao Yu via Linux-f2fs-devel"
_VIA_LIST_RE = re.compile(r" via [\w.+-]{1,80}$", re.IGNORECASE)  # on a name of single spaces
#: a company or team written after a name: "Ionut Nechita (WindRiver)"
_AFFILIATION_RE = re.compile(r"(?<=\w)\s{1,3}\([^()@]{1,60}\)$")
#: a name written surname first, as company directories do: "Nechita, Ionut", "Huang, Ying"
_LAST_FIRST_RE = re.compile(
    r"^(?P<last>[^\W\d_][\w'-]{0,40}(?: [^\W\d_][\w'-]{0,40})?), (?P<first>[^\W\d_][\w'.-]{0,40}(?: [^\W\d_][\w'.-]{0,40})?)$"
)


def person(name: str, addr: str) -> str:
    """Who wrote, comparable across archives that hide addresses: the name (without the "via
    <list>" a list that rewrites From: adds), else the address's local part."""
    n = _VIA_LIST_RE.sub("", _SPACE_RE.sub(" ", (name or "").strip().strip('"'))).lower()
    n = _AFFILIATION_RE.sub("", n)  # "Ionut Nechita (WindRiver)"
    if m := _LAST_FIRST_RE.match(n):
        n = f"{m['first']} {m['last']}"  # a directory's "Nechita, Ionut" is Ionut Nechita
    if n and "@" not in n:
        return n
    return (addr or n).split("@")[0].lower()


#: addresses many people send from or none reads: a bug tracker's, a robot's relay, a list's own
_SHARED_ADDRESS_RE = re.compile(
    r"^(?:[\w.+-]*(?:daemon|no-?reply|bounces?|notifications?|mailer)[\w.+-]*@|[^@]+@(?:vger\.kernel\.org|lists?\.))",
    re.IGNORECASE,
)


def address(name: str, addr: str) -> str | None:
    """Who wrote, by the address: one person writes "Jack Wang" in a trailer and "Jinpu Wang" in
    From: with one address.  None for an address a list put in From: (its name says "via <list>"),
    one many people send from (a bug tracker's, a list's) or the kernel test robot's (its reports
    are told apart by their Message-IDs, not by who sent them)."""
    a = (addr or "").strip().strip("<>").lower()
    if "@" not in a or " " in a or _SHARED_ADDRESS_RE.match(a) or is_robot(person(name, addr)):
        return None
    return None if _VIA_LIST_RE.search(_SPACE_RE.sub(" ", name or "")) else a


def copy_fingerprint(m: Mail) -> str | None:
    """The author, the minute and the first words of a message: the same mail read from two sources."""
    words = _SPACE_RE.sub(" ", _QUOTE_LINE_RE.sub(" ", (m.text or "")[: COPY_CHARS * 8])).strip()
    if not m.date or len(words) < 40:
        return None
    who = person(m.from_name, m.from_addr)
    digest = hashlib.sha1(f"{who}\n{m.date[:16]}\n{words[:COPY_CHARS]}".encode()).hexdigest()[:20]
    return digest


def workload_fingerprint(job: dict) -> str | None:
    """`rw=write bs=4k ...` over :data:`FIO_KEYS` present in a normalized fio job; None without rw."""
    if not job.get("rw"):
        return None
    return " ".join(f"{k}={job[k]}" for k in FIO_KEYS if job.get(k) not in (None, ""))


def _msgid_of(text: str) -> str | None:
    m = _MSGID_IN_URL_RE.search(text.strip())
    if m:
        return m.group(1)
    t = text.strip().strip("<>")
    return t if "@" in t and " " not in t else None


def link_targets(text: str) -> list[tuple[str, str]]:
    """(kind, value) of what a message's lines point at: `Fixes:` and reverted commits
    (:data:`FIXES`), `Link:`/`Closes:` tags and regzbot `dup-of:` (:data:`LINK`), regzbot
    `introduced`/`fix:` commits (:data:`FIX_COMMIT`)."""
    out = [(FIXES, h.group(1).lower()) for h in _FIXES_RE.finditer(text)]
    out += [(FIXES, h.group(1).lower()) for h in _REVERTS_RE.finditer(text)]
    out += [(LINK, h.group(2)) for h in _LINK_RE.finditer(text)]
    for h in _REGZBOT_RE.finditer(text):
        arg = h.group(2).strip()
        if named := _SHA_START_RE.match(arg):
            out.append((FIX_COMMIT, named.group(1).lower()))
        elif target := _msgid_of(arg):
            out.append((LINK, target))
    return out


def _is_reply(subject: str) -> bool:
    """A reply's subject, also behind a list's tag ("[dm-devel] Re: [PATCH 2/4] ...")."""
    return is_reply_subject(subject) or is_reply_subject(BRACKET_TAG.sub("", subject, count=1))


def _patches(t: ThreadInput) -> Iterator[tuple[Mail, str]]:
    """Each patch the thread posts, with its title: a mail of its own (no reply: "Re: [PATCH 2/4]
    ...", a thread's first the archive kept) tagged as a patch, the title three words or more."""
    for m in t.mails:
        if _is_reply(m.subject or "") or PATCH_TAG.search(own_subject(m.subject or "")) is None:
            continue
        title = strip_subject(m.subject or "")
        if len(title.split()) >= 3:
            yield m, title


def _posted_patches(t: ThreadInput, first: Mail | None) -> list[Key]:
    """:data:`PATCH` keys: the subjects of the patches the thread's first message's author posts
    in it (the first message's own, and each later patch's), of three words or more: a series and
    its next version under another cover ("[PATCH 0/4] btrfs: shrink delalloc fixes", then
    "[PATCH 0/6] ENOSPC delalloc flushing fixes" with the same four patches) share them."""
    if first is None:
        return []
    author = person(first.from_name, first.from_addr)
    return [
        Key(PATCH, title, m.message_id, m.date, m.subject)
        for m, title in _patches(t)
        if m is first or person(m.from_name, m.from_addr) == author  # not another's patch
    ]


def _patches_posted_in(t: ThreadInput) -> list[Key]:
    """:data:`POSTED_IN` keys: the patches posted inside a thread that is no patch's own, each with
    who posted it ("[PATCH 2/3] block: use lcm_not_zero() when stacking chunk_sectors", sent by
    Mike Snitzer into the thread of a slowdown he brought to linux-block, 2020-09; its next
    version came as a series of its own)."""
    return [
        Key(POSTED_IN, f"{person(m.from_name, m.from_addr)}\n{title}", m.message_id, m.date, m.subject)
        for m, title in _patches(t)
    ]


def _posts_revert(first: Mail | None, keys: list[Key]) -> bool:
    """Whether a thread titled 'Revert "..."' posts the revert: its first mail is no reply, or
    carries a patch's tag, or a mail says "This reverts commit" (its :data:`REVERTS` key).  A
    thread whose first mail the archive has is a reply without a tag talks about a revert made
    already (linux-block and dm-devel, 2020-09: 'Re: Revert "dm: always call blk_queue_split() in
    dm_process_bio()"', a slowdown reported to the revert's author, who brought it to the lists)."""
    if first is None or not _is_reply(first.subject or ""):
        return True
    if PATCH_TAG.search(own_subject(first.subject or "")):
        return True
    return any(k.kind == REVERTS for k in keys)


def thread_keys(t: ThreadInput) -> list[Key]:
    """Every key of a report thread (see the kinds above), each with its message and evidence."""
    keys: list[Key] = []
    first = t.mails[0] if t.mails else None
    first_id = first.message_id if first else None
    for sha in t.culprits:
        if s := normalize_sha(sha):
            keys.append(Key(CULPRIT, s, first_id, t.first_date, f"culprit {sha}"))
    for sha in t.fixes + t.reverts:
        if s := normalize_sha(sha):
            keys.append(Key(FIX_COMMIT, s, first_id, t.first_date, f"fixing commit {sha}"))
    if first is not None:
        keys.append(Key(AUTHOR, person(first.from_name, first.from_addr), first_id, first.date))
        if at := address(first.from_name, first.from_addr):
            keys.append(Key(AUTHOR, at, first_id, first.date))
        # a thread whose first message the archive lacks (replies to a patch the list never got):
        # the patch's Message-ID, as git send-email makes it, names who sent it
        if first_id != t.thread_id and (at := sender_of(t.thread_id)):
            keys.append(Key(AUTHOR, at, t.thread_id, t.first_date, f"the Message-ID {t.thread_id}"))
    for p in t.people:
        keys.append(Key(PERSON, person(p, p)))
    title = strip_subject(t.title)
    if len(title.split()) >= 3:
        keys.append(Key(SUBJECT, title, first_id, t.first_date, t.title))
    if t.headline_metric:
        keys.append(Key(METRIC, t.headline_metric.lower()))
    for job in t.fio_jobs:
        if fp := workload_fingerprint(job):
            keys.append(Key(WORKLOAD, fp))
    applied = robot = revert = stable = False
    versions: set[int] = set()
    is_patch = patch_version(first.subject if first else t.title) is not None
    for m in t.mails:
        text = (m.text or "")[:KEY_CHARS]
        for hit in _FIXES_RE.finditer(text) if "Fixes:" in text else ():
            keys.append(Key(FIXES, hit.group(1).lower(), m.message_id, m.date, hit.group(0).strip()))
        for hit in _REVERTS_RE.finditer(text) if "This reverts commit" in text else ():
            keys.append(Key(REVERTS, hit.group(1).lower(), m.message_id, m.date, hit.group(0).strip()))
        for hit in _LINK_RE.finditer(text) if "://" in text else ():
            keys.append(Key(LINK, hit.group(2), m.message_id, m.date, hit.group(0).strip()))
            if hit.group(1) == "Link" and patch_version(m.subject) is not None:
                # a patch and the Link: it carries: where that patch was posted, when it is the
                # same patch (another author's, taken into this series)
                keys.append(Key(CARRIED, hit.group(2), m.message_id, m.date, strip_subject(m.subject)))
        for hit in _ARCHIVE_URL_RE.finditer(text) if "kernel.org/" in text else ():
            linked = urllib.parse.unquote(hit.group(1)).rstrip(".,;:)]>'\"")
            if "@" in linked and linked != m.message_id:
                keys.append(Key(REFERS, linked, m.message_id, m.date, hit.group(0).strip()[:300]))
        for hit in _REGZBOT_RE.finditer(text) if "#regzbot" in text.lower() else ():
            cmd, arg = hit.group(1).lower(), hit.group(2).strip()
            said = hit.group(0).strip()
            named = _SHA_START_RE.match(arg)
            if cmd.endswith("introduced") and named:
                keys.append(Key(CULPRIT, named.group(1).lower(), m.message_id, m.date, said))
            elif cmd == "fix" and named:
                keys.append(Key(FIX_COMMIT, named.group(1).lower(), m.message_id, m.date, said))
            elif cmd == "fix" and len(strip_subject(arg).split()) >= 3:
                keys.append(Key(FIX_SUBJECT, strip_subject(arg), m.message_id, m.date, said))
            elif cmd.startswith("dup") and (target := _msgid_of(arg)):
                keys.append(Key(DUP_OF, target, m.message_id, m.date, said))
        if t.is_regression_report and (different := _DIFFERENT_RE.search(text)):
            keys.append(Key(DIFFERENT, "1", m.message_id, m.date, different.group(0)))
        if t.has_report and (fp := copy_fingerprint(m)) is not None:
            keys.append(Key(COPY, fp, m.message_id, m.date))
        for hit in _TRAILER_RE.finditer(text) if is_patch and ("-by:" in text or "Cc:" in text) else ():
            who = [person(hit.group(1), hit.group(2) or ""), address(hit.group(1), hit.group(2) or "")]
            keys.extend(Key(TRAILER, w) for w in who if w)
            if _CREDIT_TRAILER_RE.match(hit.group(0)):
                keys.extend(Key(CREDITED, w) for w in who if w)
        if is_patch and m is not first and (said_applied := _APPLIED_RE.search(text)):
            applied = True
            keys.append(Key(APPLIED_SAID, "1", m.message_id, m.date, said_applied.group(0).strip()))
        if _ROBOT_RE.search(f"{m.from_name} {m.from_addr}"):
            robot = robot or m is first
        for hit in _ROBOT_PARAM_RE.finditer(text) if m is first and robot else ():
            keys.append(Key(WORKLOAD, f"{ROBOT_WORKLOAD}{hit.group(1)}={hit.group(2)}"))
        for hit in _ROBOT_REPORTED_RE.finditer(text) if m is first and robot and "reported" in text else ():
            # the robot names its own earlier report of this regression (the commit under another id)
            keys.append(Key(LINK, hit.group(1), m.message_id, m.date, " ".join(hit.group(0).split())[:300]))
        if m is first and robot and (noticed := _ROBOT_NOTICED_RE.search(text)):
            # the robot says which regression this is: the one of this metric
            keys.append(Key(METRIC, noticed.group(1).lower()))
            keys.append(
                Key(DIFFERENT, noticed.group(1).lower(), m.message_id, m.date, noticed.group(0).strip())
            )
    subject = first.subject if first else t.title
    v = patch_version(subject or "")
    if t.is_regression_report and not robot and v is None:
        for title in dict.fromkeys(t.tried):
            if len(strip_subject(title).split()) >= 3:
                # the patch a report (no patch, no robot's list of a build's commits) applied and
                # found to fix it, by its title (a commit's subject is the patch's subject):
                # "10825410b956 (\"blk-mq: Fix wrong wakeup batch configuration ...\")"
                keys.append(
                    Key(FIX_SUBJECT, strip_subject(title), first_id, t.first_date, f"cites {title!r}")
                )
    low = strip_subject(subject or "")
    if _STABLE_TAG_RE.search(subject or "") or re.search(r"\bstable\b.{0,40}\btree\b", low):
        stable = True
    if (low.startswith("revert") or re.match(r"^\s*\[[^\]]{0,40}\]\s*revert", subject or "", re.I)) and (
        _posts_revert(first, keys)
    ):
        revert = True
    if v is not None and not stable:
        versions.add(v)
        keys.append(Key(SERIES, low, first_id, t.first_date, subject))
        keys.extend(_posted_patches(t, first))
        if posting := posting_of(first_id):
            keys.append(Key(POSTING, posting, first_id, t.first_date, subject))
        for bug in dict.fromkeys(_BUG_URL_RE.findall((first.text if first else "")[:KEY_CHARS])):
            keys.append(Key(BUG_CITED, bug, first_id, t.first_date, f"bugzilla.kernel.org bug {bug}"))
    elif not stable:  # no patch's thread: the patches posted inside it
        keys.extend(_patches_posted_in(t))
    for bug in dict.fromkeys(b for m in t.mails if (b := bug_of(m.message_id))):
        keys.append(Key(BUG, bug))
    if robot and (test := _ROBOT_TEST_RE.search(subject or "")):
        keys.append(Key(WORKLOAD, f"{ROBOT_WORKLOAD}test={test.group(1)}"))
        keys.append(Key(METRIC, f"{test.group(1)}.{test.group(2)}".lower()))
    if stable:
        part = STABLE
    elif revert:
        part = REVERT
    elif v is not None:
        part = f"{APPLIED} v{v}" if applied else f"{FIX_PROPOSED} v{v}"
    elif robot:
        part = ROBOT
    elif "bisect" in low:
        part = BISECTION
    else:
        part = REPORT
    keys.append(Key(PART, part, first_id, t.first_date))
    return keys
