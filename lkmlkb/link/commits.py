"""A kernel git tree as the judge of the commits cited in mail.

``link(db, git_path)`` takes every distinct SHA cited in the knowledge base
(``commit_citations.sha`` and ``report_commits.sha``, as written: 7 to 40 hex
digits) and asks a local git tree (a clone of torvalds/linux or any tree)
what it is:

* the full SHA (``git cat-file --batch-check`` on ``<sha>^{commit}``, the
  batched form of ``git rev-parse --verify <sha>^{commit}``, one process for
  all SHAs);
* an ambiguous short SHA is reported as ``ambiguous`` with the candidates from
  ``git rev-parse --disambiguate`` -- never guessed.  When the mail quoted a
  subject and exactly one candidate carries it, that is no guess: the status
  is ``resolved-by-subject`` and the candidates stay listed;
* the subject, and whether it matches the subject quoted in the mail;
  the author and author date;
* the first release tag that contains it (``git name-rev --tags``, the engine
  of ``git describe --contains``, batched; ``git tag --contains`` sorted by
  kernel version when the name is no release tag);
* the commits of the tree whose ``Fixes:`` trailer names it (any prefix of
  7+ digits; a quoted subject that disagrees rules a same-prefix commit out),
  whose ``This reverts commit <sha>`` names it, and whose ``Link:`` /
  ``Closes:`` trailers name a message of a thread that cites it.  These come
  from ONE ``git log`` pass over the tree, indexed in memory;
* a SHA the tree does not hold is ``unknown`` (a commit of another tree, or
  mistyped) -- unless the quoted subject names exactly one commit of the
  tree, then it is ``subject-match`` with that commit.

Results go to the ``commits`` table, one row per SHA as written.  A row whose
content did not change is not rewritten, so linking twice changes nothing.

The same pass finds where the fix of a regression landed (the ``fix_commits``
table, which a regression's timeline reads): for a patch a reply says was
applied, a revert, or a report whose thread says it is fixed or reverted, the
commits of the tree that are its fix -- cited by the report as its fix or
revert, and named by a ``Link:``/``Closes:`` trailer pointing at one of the
thread's messages; when there are none, the one commit carrying the patch's
subject -- each with the lowest release tag ``git tag --contains`` lists, in
kernel version order (v6.9-rc1 before v6.9 before v6.10-rc1).
All git work happens before the first write: a path that is no git
repository raises :class:`~lkmlkb.errors.GitError` and leaves the database
as it was.

``link_without_tree(db)`` needs no tree: citations of one commit written with
SHAs of different lengths are joined by the prefix relation when their quoted
subjects agree, and get a canonical (longest) SHA with status ``unresolved``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import subprocess
import urllib.parse
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path

from lkmlkb.db.connection import writing
from lkmlkb.db.schema import (
    AMBIGUOUS,
    IN_TREE,
    RESOLVED,
    RESOLVED_BY_SUBJECT,
    SUBJECT_MATCH,
    UNKNOWN,
    UNRESOLVED,
)
from lkmlkb.errors import GitError
from lkmlkb.extract.kernel_versions import sort_key
from lkmlkb.regressions import keys as K

log = logging.getLogger(__name__)

#: bodies' lines longer than this are not read for trailers (base64, binary junk)
MAX_LINE = 4000
#: a SHA as cited: 7-40 hex digits (git itself accepts 4, mail never cites fewer than 7)
SHA_RE = re.compile(r"[0-9a-f]{7,40}")
#: seconds a git command may take: one ``git log`` of a whole kernel tree takes minutes
_GIT_TIMEOUT = 3600

_FIXES_RE = re.compile(
    r"""
    ^[ \t]{0,4}Fixes:[ \t]{0,8}
    (?:commit[ \t]{1,4})?                 # "Fixes: commit 1234567890ab (...)" (older form)
    (?P<sha>[0-9a-fA-F]{7,40})\b
    (?:[ \t]{0,4}\(\s{0,4}["“](?P<subj>.{1,300}?)["”]\s{0,4}\)
                                          # 'Fixes: e1fa9ea85ce8 ("gfs2: Stop using ...")'
    )?
    """,
    re.VERBOSE | re.IGNORECASE,
)
_REVERT_RE = re.compile(
    r"""
    ^[ \t]{0,4}This[ \t]reverts[ \t]commit[ \t]{1,4}
    (?P<sha>[0-9a-f]{7,40})\b             # "This reverts commit d47f9717e5cf...." (git revert's own text)
    """,
    re.VERBOSE | re.IGNORECASE,
)
_LINK_RE = re.compile(
    r"""
    ^[ \t]{0,4}(?P<key>Link|Closes):[ \t]{0,8}<?
    (?P<url>https?://[^\s<>]{1,600})      # "Closes: https://lore.kernel.org/r/<msgid>",
                                          # "Link: https://patch.msgid.link/<msgid>"
    """,
    re.VERBOSE | re.IGNORECASE,
)
#: a release tag: v6.1, v6.1-rc1, v2.6.32, v2.6.32-rc5 (not v6.1.5, not v2.6.11-tree)
_RELEASE_TAG_RE = re.compile(
    r"""
    ^v(?:
        2\.6\.\d{1,2}                     # "v2.6.32": the 2.6 era had three-part releases
      | [3-9]\.\d{1,2}                    # "v3.0" .. "v6.19"
      | [1-9]\d\.\d{1,2}                  # "v10.0", should it come
    )(?:-rc\d{1,2})?$                     # "v6.1-rc1"
    """,
    re.VERBOSE,
)


# ---------------------------------------------------------------- data


@dataclass
class CommitRow:
    """One row of the ``commits`` table (keyed by the SHA as written)."""

    sha: str
    full_sha: str | None = None
    status: str = UNKNOWN
    subject: str | None = None
    subject_in_mail: str | None = None
    subject_matches: int | None = None
    author: str | None = None
    date: str | None = None
    first_tag: str | None = None
    candidates: list[dict] | None = None
    fixed_by: list[dict] | None = None
    linked_by: list[dict] | None = None
    tree: str | None = None

    def columns(self) -> dict:
        """The row as stored: lists as JSON text (``None`` stays NULL)."""

        def js(v):
            return None if v is None else json.dumps(v, sort_keys=True, ensure_ascii=False)

        return {
            "sha": self.sha,
            "full_sha": self.full_sha,
            "status": self.status,
            "subject": self.subject,
            "subject_in_mail": self.subject_in_mail,
            "subject_matches": self.subject_matches,
            "author": self.author,
            "date": self.date,
            "first_tag": self.first_tag,
            "candidates": js(self.candidates),
            "fixed_by": js(self.fixed_by),
            "linked_by": js(self.linked_by),
            "tree": self.tree,
        }


@dataclass
class FixCommitRow:
    """One row of the ``fix_commits`` table: a commit of the tree that lands a thread's fix."""

    thread_id: str
    sha: str
    via: str  # CITED, "Link", "Closes" or SUBJECT
    message_id: str | None = None  # the thread's message the trailer names, or that cites it
    subject: str | None = None
    author: str | None = None
    date: str | None = None
    first_tag: str | None = None  # None: no release tag contains it yet
    tree: str | None = None

    def columns(self) -> tuple:
        """The row's values, in the order of :data:`_FIX_COLS` (the fields')."""
        return astuple(self)


@dataclass
class LinkSummary:
    """What one ``link`` / ``link_without_tree`` run found and wrote."""

    tree: str | None = None
    head: str | None = None
    cited: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    subject_mismatches: int = 0
    with_fixes: int = 0
    with_links: int = 0
    written: int = 0
    unchanged: int = 0
    notes: list[str] = field(default_factory=list)
    rows: list[CommitRow] = field(default_factory=list)
    #: report_id -> commits whose Link:/Closes: name a message of the report's thread
    report_links: dict[str, list[dict]] = field(default_factory=dict)
    #: the fixes and reverts of regression threads found in the tree (``fix_commits`` rows)
    fixes: list[FixCommitRow] = field(default_factory=list)

    def line(self) -> str:
        """A one-line account for the CLI."""
        parts = ", ".join(f"{n} {s}" for s, n in sorted(self.by_status.items()))
        return (
            f"{self.cited} cited SHAs: {parts or 'none'}; {self.subject_mismatches} subject mismatches; "
            f"{self.with_fixes} with fixes in the tree, {self.with_links} with Link/Closes commits; "
            f"{self.written} rows written, {self.unchanged} unchanged; "
            f"{len({f.thread_id for f in self.fixes})} regression threads' fixes found in the tree"
        )


@dataclass
class _Cited:
    """A SHA as written, with what the mail said about it."""

    sha: str
    subjects: list[str] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)

    def subject(self) -> str | None:
        """The quoted subject most citations agree on (longest on ties)."""
        counts: dict[str, tuple[int, str]] = {}
        for s in self.subjects:
            k = normalize_commit_subject(s)
            if not k:
                continue
            n, best = counts.get(k, (0, s))
            counts[k] = (n + 1, best if len(best) >= len(s) else s)
        if not counts:
            return None
        return max(counts.values(), key=lambda v: (v[0], len(v[1])))[1]


@dataclass
class _Commit:
    sha: str
    subject: str = ""
    author: str = ""
    date: str = ""


# ---------------------------------------------------------------- subjects


def normalize_commit_subject(subject: str | None) -> str:
    """A subject for comparing: quote marks unified, wrapped lines and quote
    markers joined ("gfs2: Fix duplicate\\n> > should_fault_in_pages() call"),
    spaces collapsed, lower case, trailing period dropped."""
    s = (subject or "")[:1000]
    s = s.replace("“", '"').replace("”", '"').replace("‘", "'").replace("’", "'")
    s = re.sub(r"\n[ \t>|]{0,40}", " ", s)
    s = re.sub(r"\s{1,100}", " ", s).strip().strip('"').strip()
    return s.rstrip(".").strip().lower()


def subjects_match(in_mail: str | None, in_tree: str | None) -> bool | None:
    """True when the mail quoted the tree's subject (an ellipsis-truncated
    quote "block: foo bar..." matches as a prefix); None when either is missing."""
    a, b = normalize_commit_subject(in_mail), normalize_commit_subject(in_tree)
    if not a or not b:
        return None
    if a == b:
        return True
    raw = (in_mail or "").strip().strip('"”').rstrip()
    # a quote cut short: "gfs2: Fix duplicate should_fault...", "fio: add fdp support .." (fio's own
    # Fixes: trailer for a7e8aae0), "…"
    if raw.endswith(("..", "…")):
        return len(a) >= 10 and b.startswith(a.rstrip("…").strip())
    return False


# ---------------------------------------------------------------- git plumbing


class Git:
    """A git tree asked questions through the git command line (no shell)."""

    def __init__(self, path: str | Path):
        p = Path(path).expanduser()
        self.path = str(p)
        if not p.exists():
            raise GitError(self.path, "no such directory")
        if not p.is_dir():
            raise GitError(self.path, "not a directory (give the path of a git tree)")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        # never walk up into an enclosing repository: the path itself must be the tree
        env["GIT_CEILING_DIRECTORIES"] = str(p.resolve().parent)
        env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
        self.env = env
        try:
            git_dir = self.run("rev-parse", "--absolute-git-dir", what="not a git repository").strip()
        except FileNotFoundError as exc:  # git itself missing
            raise GitError(self.path, "the git program was not found") from exc
        top = self.run("rev-parse", "--show-toplevel", check=False).strip()
        self.bare = not top
        #: how the tree is named in the commits table: its work tree, else its git directory
        self.top = str(Path(top or git_dir).resolve())
        head = self.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).strip()
        if not head:
            raise GitError(self.path, "git repository without commits (HEAD names no commit)")
        self.head = head

    def run(self, *args: str, input: str | None = None, check: bool = True, what: str = "") -> str:
        """Run ``git -C path args...`` and return stdout; a failure is a one-line GitError."""
        cmd = ["git", "-C", self.path, "-c", "log.showSignature=false", "-c", "color.ui=never", *args]
        try:
            proc = subprocess.run(
                cmd,
                input=input,
                capture_output=True,
                text=True,
                env=self.env,
                errors="replace",
                timeout=_GIT_TIMEOUT,
            )
        except subprocess.TimeoutExpired as exc:
            raise GitError(self.path, f"git {args[0]} took longer than {_GIT_TIMEOUT}s") from exc
        if check and proc.returncode != 0:
            reason = _first_line(proc.stderr) or f"git {args[0]} exited with {proc.returncode}"
            if what and not reason.lower().startswith(what.lower()):
                reason = f"{what}: {reason}"
            raise GitError(self.path, reason)
        return proc.stdout

    def batch_check(self, revs: list[str]) -> dict[str, str]:
        """rev -> full SHA, "missing" or "ambiguous" (``git cat-file --batch-check``)."""
        if not revs:
            return {}
        out = self.run(
            "cat-file", "--batch-check=%(objectname) %(objecttype)", input="".join(r + "\n" for r in revs)
        ).splitlines()
        result: dict[str, str] = {}
        for rev, line in zip(revs, out, strict=False):
            parts = line.split()
            if len(parts) == 2 and parts[1] in ("missing", "ambiguous") and parts[0] == rev:
                result[rev] = parts[1]
            elif len(parts) == 2 and parts[1] == "commit" and re.fullmatch(r"[0-9a-f]{40,64}", parts[0]):
                result[rev] = parts[0]
            else:
                result[rev] = "missing"  # a tree, blob or tag object is no commit
        return result

    def disambiguate(self, prefix: str) -> list[str]:
        """Every commit whose SHA starts with ``prefix`` (``git rev-parse --disambiguate``)."""
        objs = self.run("rev-parse", f"--disambiguate={prefix}", check=False).split()
        if not objs:
            return []
        kinds = self.batch_check([o + "^{commit}" for o in objs])
        return sorted({kinds[o + "^{commit}"] for o in objs if kinds.get(o + "^{commit}") == o})

    def details(self, shas: Iterable[str]) -> dict[str, _Commit]:
        """Subject, author and author date of full SHAs, in one ``git log --no-walk``."""
        shas = sorted(set(shas))
        out: dict[str, _Commit] = {}
        for i in range(0, len(shas), 500):
            text = self.run(
                "log",
                "--no-walk=unsorted",
                "-z",
                "--format=%H%x1f%s%x1f%an <%ae>%x1f%aI",
                *shas[i : i + 500],
                "--",
            )
            for rec in text.split("\0"):
                f = rec.strip("\n").split("\x1f")
                if len(f) == 4:
                    out[f[0]] = _Commit(f[0], f[1], f[2], f[3])
        return out

    def first_tags(self, shas: Iterable[str]) -> dict[str, str | None]:
        """The first release tag containing each SHA: ``git name-rev --tags``
        (what ``describe --contains`` uses), batched; ``git tag --contains``
        sorted by kernel version when the name found is no release tag."""
        shas = sorted(set(shas))
        wanted = set(shas)
        out: dict[str, str | None] = {}
        for i in range(0, len(shas), 500):
            text = self.run("name-rev", "--tags", "--refs=v[0-9]*", *shas[i : i + 500], check=False)
            for line in text.splitlines():
                parts = line.split(None, 1)
                if len(parts) == 2 and parts[0] in wanted:
                    name = parts[1].strip().removeprefix("tags/")
                    tag = re.split(r"[~^]", name, maxsplit=1)[0]
                    out[parts[0]] = tag if _RELEASE_TAG_RE.match(tag) else None
        for sha in shas:
            if out.get(sha) is None:
                out[sha] = self.lowest_release_tag(sha)
        return out

    def lowest_release_tag(self, sha: str) -> str | None:
        """The lowest release tag containing ``sha`` in kernel version order (v6.9-rc1 before
        v6.9 before v6.10-rc1): ``git tag --contains``, filtered to release tags.  Exact where
        ``git name-rev`` is a guess (it names the nearest tag, which can be a later release
        when another branch reaches the commit in fewer steps); one git process a commit."""
        tags = [
            t.strip()
            for t in self.run("tag", "--contains", sha, "--list", "v[0-9]*", check=False).splitlines()
        ]
        tags = [t for t in tags if _RELEASE_TAG_RE.match(t)]
        return min(tags, key=lambda t: sort_key(t)) if tags else None

    def log_records(self, rev: str) -> Iterator[tuple[str, str, str, str, str]]:
        """(sha, subject, author, date, body) for every commit reachable from
        ``rev``, streamed from ONE ``git log -z`` process."""
        cmd = [
            "git",
            "-C",
            self.path,
            "-c",
            "log.showSignature=false",
            "log",
            "-z",
            "--no-color",
            "--format=%H%x1f%s%x1f%an <%ae>%x1f%aI%x1f%B",
            rev,
            "--",
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
        assert proc.stdout is not None
        buf = b""
        try:
            while True:
                chunk = proc.stdout.read(1 << 20)
                if not chunk:
                    break
                buf += chunk
                *records, buf = buf.split(b"\0")
                for rec in records:
                    parsed = _parse_log_record(rec)
                    if parsed:
                        yield parsed
            if buf.strip():
                parsed = _parse_log_record(buf)
                if parsed:
                    yield parsed
        finally:
            proc.stdout.close()
            err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
            code = proc.wait()
            if proc.stderr:
                proc.stderr.close()
        if code != 0:
            raise GitError(self.path, f"git log {rev}: {_first_line(err) or f'exited with {code}'}")


def _first_line(text: str) -> str:
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("fatal: ").removeprefix("error: ")[:300]
    return ""


def _parse_log_record(rec: bytes) -> tuple[str, str, str, str, str] | None:
    """Split one ``-z`` record; a body holding \\x1f only lengthens the body."""
    f = rec.decode("utf-8", "replace").lstrip("\n").split("\x1f", 4)
    if len(f) != 5 or not re.fullmatch(r"[0-9a-f]{40,64}", f[0]):
        return None
    return f[0], f[1], f[2], f[3], f[4]


# ---------------------------------------------------------------- trailers


def message_id_from_url(url: str) -> str | None:
    """The Message-ID a lore-style URL names: the first path segment holding
    an ``@`` once percent-decoded.  Tolerates https://lore.kernel.org/<list>/<id>/,
    /<list>/<id>/T/#u, /r/<id>, https://patch.msgid.link/<id>,
    https://lkml.kernel.org/r/<id>; ids in angle brackets; a trailing dot."""
    try:
        parts = urllib.parse.urlsplit(url.strip().rstrip(".,;)>"))
    except ValueError:
        return None
    for seg in parts.path.split("/"):
        mid = urllib.parse.unquote(seg).strip("<>")
        if "@" in mid and 3 <= len(mid) <= 998:
            return mid
    return None


@dataclass
class TrailerIndex:
    """What one pass over the tree's history found, indexed in memory.

    ``fixes``: a prefix as written in ``Fixes:`` (lower case) -> [(fixing commit,
    quoted subject)]; ``reverts``: reverted SHA -> [reverting commit];
    ``links``: Message-ID -> [(commit, trailer key)] for the ids asked for;
    ``by_subject``: normalized subject -> [commit] for the subjects asked for.
    """

    fixes: dict[str, list[tuple[_Commit, str | None]]] = field(default_factory=lambda: defaultdict(list))
    reverts: dict[str, list[_Commit]] = field(default_factory=lambda: defaultdict(list))
    links: dict[str, list[tuple[_Commit, str]]] = field(default_factory=lambda: defaultdict(list))
    by_subject: dict[str, list[_Commit]] = field(default_factory=lambda: defaultdict(list))
    commits_seen: int = 0

    def fixes_of(self, full_sha: str, subject: str | None) -> list[tuple[_Commit, str]]:
        """Commits whose Fixes: names ``full_sha`` by any 7+ prefix (a quoted
        subject that disagrees with ``subject`` rules the trailer out), and
        commits that revert it."""
        found: dict[str, tuple[_Commit, str]] = {}
        for n in range(7, len(full_sha) + 1):
            for c, quoted in self.fixes.get(full_sha[:n], ()):
                if quoted and subject and subjects_match(quoted, subject) is False:
                    log.debug("Fixes: %s in %s names another commit (%r)", full_sha[:n], c.sha, quoted)
                    continue
                found.setdefault(c.sha, (c, "Fixes"))
        for n in range(7, len(full_sha) + 1):
            for c in self.reverts.get(full_sha[:n], ()):
                found.setdefault(c.sha, (c, "revert"))
        return sorted(found.values(), key=lambda v: (v[0].date, v[0].sha))


def index_history(git: Git, rev: str, message_ids: set[str], subjects: set[str]) -> TrailerIndex:
    """ONE ``git log`` pass over ``rev``: index every Fixes:/revert, the
    Link:/Closes: trailers naming one of ``message_ids``, and the commits
    whose normalized subject is in ``subjects``."""
    idx = TrailerIndex()
    for sha, subj, author, date, body in git.log_records(rev):
        idx.commits_seen += 1
        c = _Commit(sha, subj, author, date)
        if subjects:
            ns = normalize_commit_subject(subj)
            if ns in subjects:
                idx.by_subject[ns].append(c)
        if (
            "ixes:" not in body
            and "IXES:" not in body
            and "reverts commit" not in body
            and "Link:" not in body
            and "Closes:" not in body
        ):
            continue
        for line in body.splitlines():
            if len(line) > MAX_LINE:
                continue
            _index_line(idx, c, line, message_ids)
    return idx


def _index_line(idx: TrailerIndex, c: _Commit, line: str, message_ids: set[str]) -> None:
    """Index one body line of commit ``c`` if it is a Fixes/revert/Link/Closes line."""
    m = _FIXES_RE.match(line)
    if m:
        idx.fixes[m.group("sha").lower()].append((c, m.group("subj")))
        return
    m = _REVERT_RE.match(line)
    if m:
        idx.reverts[m.group("sha").lower()].append(c)
        return
    if message_ids:
        m = _LINK_RE.match(line)
        if m:
            mid = message_id_from_url(m.group("url"))
            if mid and mid in message_ids:
                idx.links[mid].append((c, m.group("key").capitalize()))


# ---------------------------------------------------------------- reading the KB


def _conn(db) -> sqlite3.Connection:
    """A sqlite3 connection from a sqlite_utils.Database or a connection."""
    return getattr(db, "conn", db)


def cited_shas(db) -> dict[str, _Cited]:
    """Every distinct SHA cited (lower case, 7-40 hex), with quoted subjects and threads.

    ``commit_citations`` rows of form ``link`` hold Message-IDs, not SHAs, and
    are left out; so is anything that is not hex."""
    conn = _conn(db)
    out: dict[str, _Cited] = {}

    def add(sha, subject, thread):
        s = (sha or "").strip().lower()
        if not SHA_RE.fullmatch(s):
            return
        c = out.setdefault(s, _Cited(s))
        if subject:
            c.subjects.append(subject)
        if thread:
            c.threads.add(thread)

    for sha, subject, thread in conn.execute(
        "SELECT sha, subject, thread_id FROM commit_citations WHERE coalesce(form, '') != 'link'"
    ):
        add(sha, subject, thread)
    for sha, subject, thread in conn.execute(
        "SELECT rc.sha, rc.subject, r.thread_id FROM report_commits rc "
        "LEFT JOIN reports r ON r.report_id = rc.report_id"
    ):
        add(sha, subject, thread)
    return out


def thread_message_ids(db, threads: Iterable[str]) -> dict[str, set[str]]:
    """thread_id -> every Message-ID of it (ghosts the threader saw included)."""
    conn = _conn(db)
    out: dict[str, set[str]] = {}
    for t in set(threads):
        ids = {r[0] for r in conn.execute("SELECT message_id FROM thread_members WHERE thread_id=?", (t,))}
        ids |= {r[0] for r in conn.execute("SELECT message_id FROM messages WHERE thread_id=?", (t,))}
        ids.add(t)  # a thread is named by its root's id
        out[t] = ids
    return out


# ---------------------------------------------------------------- resolving


def _commit_ref(c: _Commit, tags: dict[str, str | None], **extra) -> dict:
    return {
        "sha": c.sha,
        "subject": c.subject,
        "author": c.author,
        "date": c.date,
        "first_tag": tags.get(c.sha),
        **extra,
    }


def _judge_shas(
    git: Git, cited: dict[str, _Cited], notes: list[str]
) -> tuple[dict[str, CommitRow], dict[str, _Commit], dict[str, list[str]]]:
    """Step 1: every cited SHA looked up in the object database.

    Returns the rows (resolved / resolved-by-subject / ambiguous / unknown),
    the details of every commit named so far, and normalized quoted subject ->
    unknown SHAs, for the history pass to look for."""
    shas = sorted(cited)
    # "<sha>^{commit}" resolves a prefix that only one commit has (even when a
    # blob shares it); git answers "missing" for it when commits tie, so the
    # bare prefix is asked as well, for "ambiguous"
    found = git.batch_check([r for s in shas for r in (s + "^{commit}", s)])
    full: dict[str, str] = {}
    candidates: dict[str, list[str]] = {}
    for s in shas:
        r = found.get(s + "^{commit}", "missing")
        if r not in ("missing", "ambiguous"):
            full[s] = r
        elif found.get(s) == "ambiguous":
            candidates[s] = git.disambiguate(s)
    info = git.details(list(full.values()) + [c for cs in candidates.values() for c in cs])
    rows: dict[str, CommitRow] = {}
    wanted: dict[str, list[str]] = defaultdict(list)
    for s in shas:
        quoted = cited[s].subject()
        row = rows[s] = CommitRow(sha=s, subject_in_mail=quoted, tree=git.top)
        if s in full:
            row.status, row.full_sha = RESOLVED, full[s]
        elif s in candidates:
            _judge_ambiguous(row, candidates[s], info, notes)
        else:
            row.status = UNKNOWN
            if normalize_commit_subject(quoted):
                wanted[normalize_commit_subject(quoted)].append(s)
    return rows, info, wanted


def _judge_ambiguous(row: CommitRow, cands: list[str], info: dict[str, _Commit], notes: list[str]) -> None:
    """An ambiguous prefix: resolved only when git's commit rule or the quoted
    subject names exactly one candidate; otherwise ``ambiguous``, candidates listed."""
    row.candidates = [{"sha": c, "subject": info[c].subject if c in info else None} for c in cands]
    matching = [c for c in cands if c in info and subjects_match(row.subject_in_mail, info[c].subject)]
    if len(cands) == 1:  # ambiguous only among non-commits: git's commit rule decides
        row.status, row.full_sha = RESOLVED, cands[0]
    elif len(matching) == 1:
        row.status, row.full_sha = RESOLVED_BY_SUBJECT, matching[0]
        notes.append(
            f"{row.sha}: ambiguous in the tree ({len(cands)} commits); the subject quoted in "
            f"the mail names {matching[0][:12]}"
        )
    else:
        row.status = AMBIGUOUS
        notes.append(
            f"{row.sha}: ambiguous in the tree ({len(cands)} commits: "
            f"{', '.join(c[:12] for c in cands)}); not guessed"
        )


def _judge_by_subject(
    rows: dict[str, CommitRow],
    wanted: dict[str, list[str]],
    idx: TrailerIndex,
    info: dict[str, _Commit],
    notes: list[str],
    top: str,
) -> None:
    """Step 2: a SHA the tree lacks whose quoted subject exactly one commit of
    the history carries becomes ``subject-match``; several: candidates, unknown."""
    for subj, written in wanted.items():
        hits = {c.sha: c for c in idx.by_subject.get(subj, [])}
        for s in written:
            row = rows[s]
            if len(hits) == 1:
                (c,) = hits.values()
                row.status, row.full_sha = SUBJECT_MATCH, c.sha
                info.setdefault(c.sha, c)
                notes.append(
                    f"{s}: not in the tree, but the quoted subject names {c.sha[:12]} "
                    f"({c.subject!r}); the SHA in the mail is of another tree or mistyped"
                )
            elif hits:
                row.candidates = [
                    {"sha": c.sha, "subject": c.subject} for c in sorted(hits.values(), key=lambda c: c.sha)
                ]
                notes.append(
                    f"{s}: not in the tree; {len(hits)} commits carry the quoted subject; not guessed"
                )
    for s, row in rows.items():
        if row.status == UNKNOWN and not row.candidates:
            notes.append(
                f"{s}: not in the tree at {top} (a commit of another tree, or mistyped); kept as cited"
            )


def _attach_history(
    git: Git,
    rows: dict[str, CommitRow],
    cited: dict[str, _Cited],
    ids_by_thread: dict[str, set[str]],
    idx: TrailerIndex,
    info: dict[str, _Commit],
) -> None:
    """Step 3: for rows naming a commit of the tree, its subject, author, date,
    subject match, first release tag, Fixes:/revert commits and the
    Link:/Closes: commits naming a message of a thread that cites it."""
    involved: set[str] = set()
    fixes: dict[str, list[tuple[_Commit, str]]] = {}
    links: dict[str, list[tuple[_Commit, str, str, str]]] = {}
    for s, row in rows.items():
        if row.status not in IN_TREE:
            continue
        c = info.get(row.full_sha)
        if c:
            row.subject, row.author, row.date = c.subject, c.author, c.date
        m = subjects_match(row.subject_in_mail, row.subject)
        row.subject_matches = None if m is None else int(m)
        fixes[s] = idx.fixes_of(row.full_sha, row.subject)
        links[s] = [
            (c, key, mid, t)
            for t in sorted(cited[s].threads)
            for mid in sorted(ids_by_thread.get(t, ()))
            for c, key in idx.links.get(mid, ())
        ]
        involved |= {row.full_sha} | {c.sha for c, _ in fixes[s]} | {c.sha for c, *_ in links[s]}
    tags = git.first_tags(involved) if involved else {}
    for s in fixes:
        row = rows[s]
        row.first_tag = tags.get(row.full_sha)
        row.fixed_by = [_commit_ref(c, tags, via=via) for c, via in fixes[s]]
        seen: set[tuple[str, str]] = set()
        row.linked_by = []
        for c, key, mid, t in links[s]:
            if (c.sha, mid) not in seen:
                seen.add((c.sha, mid))
                row.linked_by.append(_commit_ref(c, tags, trailer=key, message_id=mid, thread_id=t))


def resolve(
    git: Git,
    cited: dict[str, _Cited],
    ids_by_thread: dict[str, set[str]],
    rev: str = "HEAD",
    subjects: Iterable[str] = (),
) -> tuple[list[CommitRow], list[str], TrailerIndex]:
    """Every cited SHA as a CommitRow judged by ``git`` (no database access):
    object lookup, then ONE history pass, then subject matches and history facts.
    The pass also indexes the commits carrying one of ``subjects`` (normalized).
    Returns (rows sorted by SHA, notes for the user, the trailer index)."""
    notes: list[str] = []
    rows, info, wanted = _judge_shas(git, cited, notes)
    ids = set().union(*ids_by_thread.values()) if ids_by_thread else set()
    idx = index_history(git, rev, ids, set(wanted) | set(subjects))
    _judge_by_subject(rows, wanted, idx, info, notes, git.top)
    _attach_history(git, rows, cited, ids_by_thread, idx, info)
    return [rows[s] for s in sorted(rows)], notes, idx


# ---------------------------------------------------------------- writing


_COLS = (
    "sha",
    "full_sha",
    "status",
    "subject",
    "subject_in_mail",
    "subject_matches",
    "author",
    "date",
    "first_tag",
    "candidates",
    "fixed_by",
    "linked_by",
    "tree",
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_rows(
    conn: sqlite3.Connection, rows: list[CommitRow], keep_tree_rows: bool = False
) -> tuple[int, int]:
    """Upsert rows keyed by SHA as written, in one transaction; a row equal to
    the stored one is not touched (``checked`` is when the row last changed).
    With ``keep_tree_rows`` a row already judged by a tree is left alone.
    Returns (written, unchanged)."""
    written = unchanged = 0
    own_tx = not conn.in_transaction
    if own_tx:
        conn.execute("BEGIN IMMEDIATE")
    try:
        for row in rows:
            new = row.columns()
            cur = conn.execute(f"SELECT {', '.join(_COLS)} FROM commits WHERE sha=?", (row.sha,)).fetchone()
            if cur is not None:
                old = dict(zip(_COLS, cur, strict=True))
                if keep_tree_rows and old["status"] not in (None, UNRESOLVED):
                    unchanged += 1
                    continue
                if old == new:
                    unchanged += 1
                    continue
            conn.execute(
                f"INSERT INTO commits({', '.join(_COLS)}, checked) VALUES ({', '.join('?' * (len(_COLS) + 1))}) "
                f"ON CONFLICT(sha) DO UPDATE SET {', '.join(f'{c}=excluded.{c}' for c in _COLS[1:])}, "
                "checked=excluded.checked",
                (*[new[c] for c in _COLS], _now()),
            )
            written += 1
        if own_tx:
            conn.execute("COMMIT")
    except BaseException:
        if own_tx:
            conn.execute("ROLLBACK")
        raise
    return written, unchanged


def _summarize(summary: LinkSummary, rows: list[CommitRow]) -> None:
    summary.cited = len(rows)
    summary.rows = rows
    for r in rows:
        summary.by_status[r.status] = summary.by_status.get(r.status, 0) + 1
        summary.subject_mismatches += int(r.subject_matches == 0)
        summary.with_fixes += int(bool(r.fixed_by))
        summary.with_links += int(bool(r.linked_by))


def link(db, git_path: str | Path, rev: str = "HEAD") -> LinkSummary:
    """Resolve every cited SHA against the git tree at ``git_path`` and write
    the ``commits`` table.  ``rev`` is the history searched for Fixes:,
    reverts, Link:/Closes: and quoted subjects (``--all`` for every ref).

    Raises GitError (one-line reason, database untouched) when ``git_path`` is
    no git repository or git fails."""
    git = Git(git_path)
    if rev.startswith("-") and rev != "--all":
        raise GitError(git.path, f"{rev!r} is an option, not a revision")
    if (
        rev != "--all"
        and not git.run("rev-parse", "--verify", "--quiet", rev + "^{commit}", check=False).strip()
    ):
        raise GitError(git.path, f"no commit named {rev!r} in the tree")
    cited = cited_shas(db)
    report_threads = dict(_conn(db).execute("SELECT report_id, thread_id FROM reports"))
    fixing = fix_threads(db)
    threads = {t for c in cited.values() for t in c.threads} | set(report_threads.values()) | set(fixing)
    ids_by_thread = thread_message_ids(db, threads)
    summary = LinkSummary(tree=git.top, head=git.head)
    if not cited and not report_threads:
        return summary
    subjects = {f.subject for f in fixing.values() if f.subject}
    rows, notes, idx = resolve(git, cited, ids_by_thread, rev, subjects)
    log.info("%s: %d commits read from %s", git.top, idx.commits_seen, rev)
    for n in notes:
        log.info("%s", n)
    summary.notes = notes
    summary.report_links = report_links(git, report_threads, ids_by_thread, idx)
    summary.fixes = landed_fixes(git, fixing, ids_by_thread, idx, rows)
    _summarize(summary, rows)
    conn = _conn(db)
    with writing(conn):
        summary.written, summary.unchanged = write_rows(conn, rows)
        write_fix_commits(conn, summary.fixes)
    return summary


def report_links(
    git: Git, report_threads: dict[str, str], ids_by_thread: dict[str, set[str]], idx: TrailerIndex
) -> dict[str, list[dict]]:
    """report_id -> the commits whose Link:/Closes: names a message of its
    thread -- how a fix lands for a report that never named a culprit.
    (Kept in the summary: the schema has no table for it yet.)"""
    found: dict[str, list[tuple[_Commit, str, str]]] = {}
    for rid, thread in sorted(report_threads.items()):
        hits = [
            (c, key, mid)
            for mid in sorted(ids_by_thread.get(thread, ()))
            for c, key in idx.links.get(mid, ())
        ]
        if hits:
            found[rid] = hits
    tags = git.first_tags({c.sha for hits in found.values() for c, _, _ in hits}) if found else {}
    return {
        rid: [_commit_ref(c, tags, trailer=key, message_id=mid) for c, key, mid in hits]
        for rid, hits in found.items()
    }


# ---------------------------------------------------------------- fixes that landed

#: how a thread's fix is found in the tree (besides the ``Link``/``Closes`` trailers): its report
#: cites the commit as its fix or revert; exactly one commit carries the patch's subject
CITED = "cited"
SUBJECT = "subject"
#: parts of a thread in its regression whose fix may be in a tree: a patch a reply says was
#: applied ("applied v2"), a revert
LANDING_PARTS = (K.APPLIED, K.REVERT)
#: statuses of a report whose thread says its fix landed
LANDED_STATUSES = ("fixed", "reverted")


@dataclass
class FixThread:
    """A regression thread whose fix may be in the tree: its patch's subject (normalized as
    commit subjects are), the SHAs its report cites as its fix or revert."""

    thread_id: str
    subject: str | None = None
    cited: list[tuple[str, str | None]] = field(default_factory=list)  # (SHA as written, message)


def fix_threads(db) -> dict[str, FixThread]:
    """thread_id -> the regression threads whose fix or revert may have landed: a patch a reply
    says was applied, a revert, a report whose thread says it is fixed or reverted (what the
    timeline of a regression tells as "fixed" or "reverted").  Read from the stored keys."""
    conn = _conn(db)
    out: dict[str, FixThread] = {}
    for tid, part, status in conn.execute(
        "SELECT k.thread_id, k.value, r.status FROM regression_keys k "
        "LEFT JOIN reports r ON r.report_id = k.thread_id WHERE k.kind = ?",
        (K.PART,),
    ):
        if (part or "").startswith(LANDING_PARTS) or status in LANDED_STATUSES:
            out.setdefault(tid, FixThread(tid))
    if not out:
        return out
    for tid, value in conn.execute(
        "SELECT thread_id, value FROM regression_keys WHERE kind = ?", (K.SERIES,)
    ):
        if tid in out:
            out[tid].subject = normalize_commit_subject(value) or None
    for tid, sha, mid in conn.execute(
        "SELECT report_id, sha, message_id FROM report_commits WHERE role IN ('fix', 'revert') "
        "ORDER BY report_id, sha"
    ):
        if tid in out and SHA_RE.fullmatch((sha or "").lower()):
            out[tid].cited.append((sha.lower(), mid))
    return out


def landed_fixes(
    git: Git,
    threads: dict[str, FixThread],
    ids_by_thread: dict[str, set[str]],
    idx: TrailerIndex,
    rows: list[CommitRow],
) -> list[FixCommitRow]:
    """The commits of the tree that land each thread's fix: those its report cites as its fix
    or revert (resolved in the tree) and those whose ``Link:``/``Closes:`` names one of its
    messages; when there are none, the one commit carrying its patch's subject (several: none,
    not guessed).  Each gets the lowest release tag containing it."""
    judged = {r.sha: r for r in rows if r.status in IN_TREE and r.full_sha}
    found: list[FixCommitRow] = []
    for tid in sorted(threads):
        t = threads[tid]
        mine: dict[str, FixCommitRow] = {}
        for sha, said in t.cited:
            if (r := judged.get(sha)) is not None and r.full_sha:
                mine.setdefault(
                    r.full_sha, FixCommitRow(tid, r.full_sha, CITED, said, r.subject, r.author, r.date)
                )
        for mid in sorted(ids_by_thread.get(tid, ())):
            for c, key in idx.links.get(mid, ()):
                mine.setdefault(c.sha, FixCommitRow(tid, c.sha, key, mid, c.subject, c.author, c.date))
        if not mine and t.subject and len(hits := {c.sha: c for c in idx.by_subject.get(t.subject, ())}) == 1:
            (c,) = hits.values()
            mine[c.sha] = FixCommitRow(tid, c.sha, SUBJECT, None, c.subject, c.author, c.date)
        found.extend(mine.values())
    tags = {sha: git.lowest_release_tag(sha) for sha in sorted({f.sha for f in found})}
    for f in found:
        f.first_tag, f.tree = tags[f.sha], git.top
    return found


_FIX_COLS = tuple(f.name for f in fields(FixCommitRow))


def write_fix_commits(conn: sqlite3.Connection, fixes: list[FixCommitRow]) -> bool:
    """Replace the ``fix_commits`` table with ``fixes`` (what one tree says), in the caller's
    transaction; nothing is written when it holds them already.  True when it changed."""
    new = sorted(f.columns() for f in fixes)
    old = sorted(tuple(r) for r in conn.execute(f"SELECT {', '.join(_FIX_COLS)} FROM fix_commits"))
    if new == old:
        return False
    conn.execute("DELETE FROM fix_commits")
    conn.executemany(
        f"INSERT INTO fix_commits({', '.join(_FIX_COLS)}) VALUES ({', '.join('?' * len(_FIX_COLS))})", new
    )
    return True


# ---------------------------------------------------------------- without a tree


def group_without_tree(cited: dict[str, _Cited]) -> list[list[str]]:
    """Groups of SHAs as written that name one commit: a SHA joins a longer
    one it is a prefix of when their quoted subjects do not disagree, and only
    when it is the prefix of exactly one group (else it stays alone)."""
    groups: list[list[str]] = []
    subject_of: list[str | None] = []
    for s in sorted(cited, key=lambda x: (-len(x), x)):
        quoted = cited[s].subject()
        homes = [
            i
            for i, g in enumerate(groups)
            if g[0].startswith(s) and subjects_match(quoted, subject_of[i]) is not False
        ]
        clash = [i for i, g in enumerate(groups) if g[0].startswith(s)]
        if len(homes) == 1 and len(clash) == 1:
            i = homes[0]
            groups[i].append(s)
            if not subject_of[i] and quoted:
                subject_of[i] = quoted
            continue
        groups.append([s])
        subject_of.append(quoted)
    return groups


def link_without_tree(db) -> LinkSummary:
    """Join citations of the same commit written with SHAs of different
    lengths (prefix relation + agreeing quoted subjects); each gets a
    ``commits`` row with status ``unresolved`` and the canonical longest SHA
    in ``full_sha``.  Rows a tree already judged are left as they are."""
    cited = cited_shas(db)
    rows: list[CommitRow] = []
    for group in group_without_tree(cited):
        canonical = group[0]
        subject = next((cited[s].subject() for s in group if cited[s].subject()), None)
        for s in group:
            others = [g for g in group if g != s]
            rows.append(
                CommitRow(
                    sha=s,
                    full_sha=canonical,
                    status=UNRESOLVED,
                    subject_in_mail=cited[s].subject() or subject,
                    candidates=[{"sha": o} for o in others] or None,
                )
            )
    summary = LinkSummary()
    _summarize(summary, rows)
    summary.written, summary.unchanged = write_rows(_conn(db), rows, keep_tree_rows=True)
    return summary


__all__ = [
    "CommitRow",
    "FixCommitRow",
    "Git",
    "LinkSummary",
    "link",
    "link_without_tree",
    "message_id_from_url",
    "normalize_commit_subject",
    "subjects_match",
]
