"""Threading: JWZ over References/In-Reply-To, with ghosts, and the subject fallback.

Threading is incremental so that a whole archive never has to sit in memory:
:class:`Threader` keeps an id -> thread map behind a small backend interface
(a dict for ``lkmlkb extract``, SQLite for the store) and merges threads
whenever a reference links two of them, as public-inbox does.  Messages that
carry no references at all fall back to their normalized subject, when the
subject says they are replies (``Re:``, ``答复:``, ``AW:``, ``Re[2]:`` ...).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable

from lkmlkb.model import Message

log = logging.getLogger(__name__)

# ---------------------------------------------------------------- subjects

REPLY_PREFIX = re.compile(
    r"""^\s{0,5}(?:
        (?:re|aw|sv|antw|vs|odp|r|fwd?|tr|wg|rif)   # Re: AW: SV: Antw: Fwd: Fw: (EN/DE/Nordic/NL/PL/IT)
        (?:\[\d{1,4}\]|\(\d{1,4}\))?                # Re[2]: Re(2):
      | 回复 | 答复 | 回覆 | 转发 | 轉寄                 # Chinese mailers: 回复: 答复:
    )\s{0,3}[:：]\s{0,5}""",
    re.I | re.X,
)
BRACKET_TAG = re.compile(r"^\s{0,5}\[[^\[\]]{1,80}\]\s{0,5}")
# list tags and patch markers that do not change the topic: [Cluster-devel], [PATCH v2 1/3]
TOPIC_NEUTRAL_TAG = re.compile(
    r"""^\[(?:
        (?:RFC|RESEND|PATCH|PATCHv?\d{1,3}|GIT\s+PULL|v\d{1,3}|\d{1,4}/\d{1,4}|[\w.-]{1,40}(?:-devel|-next)?)
        (?:[\s,]{1,3}(?:RFC|RESEND|PATCH|PATCHv?\d{1,3}|v\d{1,3}|\d{1,4}/\d{1,4}|[\w.:/-]{1,40})){0,6}
    )\]$""",
    re.I | re.X,
)


#: the old subject a renamed thread keeps after its new one: "Regression in 5.17-rc1 on
#: pata-falcon (was: Re: [PATCH] m68k: ...)" (linux-block, 2022-01)
WAS_SUBJECT = re.compile(r"[(\[]\s{0,3}was\s{0,3}:.{0,300}$|\s\bwas\s{0,3}:\s.{0,300}$", re.I)


def own_subject(subject: str) -> str:
    """A subject without the old subject a renamed thread keeps ("(was: ...)"): what the thread
    is about now."""
    return WAS_SUBJECT.sub("", subject or "").rstrip() if "was" in (subject or "").lower() else subject or ""


#: a patch's bracketed tag: "[PATCH v3 2/5]", "[RFC PATCH]", "[PATCHSET v2 0/5]"
PATCH_TAG = re.compile(r"\[(?:[^\]]{0,40}\s)?(?:PATCH|RFC|PATCHSET)(?P<rest>[^\]]{0,60})\]", re.I)
_SERIES_VERSION = re.compile(r"\bv(\d{1,2})\b", re.I)


def patch_version(subject: str) -> int | None:
    """The series version of a patch subject (`[PATCH v3 2/5]` is 3, `[PATCH]` 1); None if no
    patch (a renamed thread's "(was: Re: [PATCH] ...)" names the thread it came from)."""
    m = PATCH_TAG.search(own_subject(subject))
    if not m:
        return None
    v = _SERIES_VERSION.search(m.group(0))
    return int(v.group(1)) if v else 1


def is_reply_subject(subject: str) -> bool:
    return bool(REPLY_PREFIX.match(subject or ""))


@functools.lru_cache(maxsize=4096)  # a thread's replies and every refresh of it ask again
def normalize_subject(subject: str) -> str:
    """The topic of a subject: reply prefixes, list tags and patch brackets removed."""
    s = (subject or "").strip()
    for _ in range(20):
        m = REPLY_PREFIX.match(s)
        if m:
            s = s[m.end() :]
            continue
        m = BRACKET_TAG.match(s)
        if m and TOPIC_NEUTRAL_TAG.match(m.group(0).strip()):
            s = s[m.end() :]
            continue
        break
    s = re.sub(r"\s+", " ", s).strip().rstrip(".").strip().lower()
    return s


# ---------------------------------------------------------------- threading


def references_of(msg: Message) -> list[str]:
    """Ancestors, oldest first: References, then In-Reply-To (trusted as last)."""
    refs = [r for r in msg.references if r != msg.message_id]
    if msg.in_reply_to and msg.in_reply_to != msg.message_id:
        if msg.in_reply_to in refs:
            refs.remove(msg.in_reply_to)
        refs.append(msg.in_reply_to)
    if msg.quoted_parent and msg.quoted_parent not in refs:
        refs.append(msg.quoted_parent)
    return refs


def parent_of(msg: Message) -> str | None:
    refs = references_of(msg)
    return refs[-1] if refs else None


class DictBackend:
    """In-memory id -> thread map, for extraction without a database."""

    def __init__(self):
        self.thread_of: dict[str, str] = {}
        self.members: dict[str, set[str]] = {}
        self.by_subject: dict[str, str] = {}

    def lookup(self, ids: Iterable[str]) -> dict[str, str]:
        return {i: self.thread_of[i] for i in ids if i in self.thread_of}

    def assign(self, ids: Iterable[str], thread: str) -> None:
        for i in ids:
            self.thread_of[i] = thread
            self.members.setdefault(thread, set()).add(i)

    def merge(self, old: str, new: str) -> None:
        for i in self.members.pop(old, set()):
            self.thread_of[i] = new
            self.members.setdefault(new, set()).add(i)
        for k, v in list(self.by_subject.items()):
            if v == old:
                self.by_subject[k] = new

    def subject_thread(self, key: str) -> str | None:
        return self.by_subject.get(key)

    def remember_subject(self, key: str, thread: str) -> None:
        self.by_subject.setdefault(key, thread)


#: a message whose references name messages of more threads than this merges none of them: no
#: real message of whole lists joins more than two, and one that names the roots of a hundred
#: threads would fold a hundred reports into one
MAX_THREADS_JOINED = 3


class Threader:
    """Assigns each message a thread id, merging threads that references join.

    The thread id is the id of the oldest known ancestor when the thread is
    created (a ghost if the root was never seen); merges keep the older id.
    A message linking more than MAX_THREADS_JOINED threads joins only the
    thread it is known in, else its nearest known ancestor's.
    """

    def __init__(self, backend=None):
        self.backend = backend or DictBackend()

    def add(self, msg: Message) -> str:
        refs = references_of(msg)
        ids = [*refs, msg.message_id]
        known = self.backend.lookup(ids)
        threads = list(dict.fromkeys(known[i] for i in ids if i in known))
        key = normalize_subject(msg.subject)
        if not threads and not refs and key and is_reply_subject(msg.subject):
            t = self.backend.subject_thread(key)
            if t:
                threads = [t]
        if len(threads) > MAX_THREADS_JOINED:
            log.warning(
                "%s: references name messages of %d threads; it joins its parent's only",
                msg.message_id,
                len(threads),
            )
            thread = known.get(msg.message_id) or next(known[i] for i in reversed(refs) if i in known)
            self.backend.assign([i for i in ids if i not in known], thread)  # itself, and ghosts
        else:
            if threads:
                thread = threads[0]
                for other in threads[1:]:
                    self.backend.merge(other, thread)
            else:
                thread = refs[0] if refs else msg.message_id
            self.backend.assign([i for i in ids if known.get(i) != thread], thread)
        if key and not is_reply_subject(msg.subject):
            self.backend.remember_subject(key, thread)
        return thread


def thread_messages(messages: list[Message]) -> dict[str, list[Message]]:
    """Group messages (any order) into threads, each sorted by date then order."""
    threader = Threader()
    # link in date order so subject fallback sees the root first
    order = sorted(range(len(messages)), key=lambda i: (messages[i].date_utc or "", i))
    for i in order:
        threader.add(messages[i])
    groups: dict[str, list[Message]] = {}
    for i in order:
        t = threader.backend.thread_of[messages[i].message_id]
        groups.setdefault(t, []).append(messages[i])
    return groups
