"""Read-only questions to the knowledge base, for the CLI and the Datasette plugin.

Every function takes a ``sqlite_utils.Database`` or a plain ``sqlite3``
connection (what Datasette's ``execute_fn`` hands out), never writes, and
returns plain dicts (JSON lists in the reports table already decoded).

* :func:`reports_citing` -- "what do we know about this commit?": every
  report that blames, fixes, reverts or tests it, with the numbers and the
  fix commits ``lkmlkb link`` found in a git tree;
* :func:`list_reports` -- reports filtered by status, list, kernel, tool,
  commit, newest first;
* :func:`search` -- full-text search over reports and messages (FTS5, bm25,
  highlighted snippets); the user's text is turned into a safe FTS5 query;
* :func:`kernels_between` -- reports whose bad kernel lies between two
  versions.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import unicodedata
from collections.abc import Iterable

from lkmlkb.errors import LkmlkbError
from lkmlkb.extract.kernel_versions import normalize_version, sort_key
from lkmlkb.model import ROLE_RANK

log = logging.getLogger(__name__)

REPORT_COLUMNS = (
    "report_id",
    "thread_id",
    "title",
    "kind",
    "status",
    "is_regression_report",
    "good_kernel",
    "bad_kernel",
    "headline_metric",
    "baseline_value",
    "regressed_value",
    "unit",
    "regression_pct",
    "stated_pct",
    "computed_pct",
    "pct_disagrees",
    "culprits",
    "fixes",
    "lists",
    "tools",
    "first_date",
    "last_date",
    "message_count",
)
JSON_COLUMNS = ("culprits", "fixes", "lists", "tools", "people", "candidates", "fixed_by", "linked_by")
#: the most rows a listing returns, whatever limit it is asked for
MAX_LIMIT = 100_000
#: a commit as the user types it: 4 to 40 hex digits (git's own minimum is 4)
_SHA_QUERY_RE = re.compile(r"[0-9a-f]{4,40}")
#: the longest user text turned into a search query, and its most tokens
MAX_QUERY_CHARS = 1000
MAX_QUERY_TOKENS = 32


# ---------------------------------------------------------------- helpers


def _conn(db) -> sqlite3.Connection:
    return getattr(db, "conn", db)


def dict_rows(db, sql: str, params: Iterable = ()) -> list[dict]:
    cur = _conn(db).execute(sql, tuple(params))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _decode(row: dict) -> dict:
    """JSON list columns decoded in place; text that is no JSON list becomes [text]."""
    for k in JSON_COLUMNS:
        if k in row and isinstance(row[k], str):
            try:
                v = json.loads(row[k])
            except ValueError:
                v = [row[k]]
            row[k] = v if isinstance(v, list) else [v]
        elif k in row and row[k] is None and k in ("culprits", "fixes", "lists", "tools", "people"):
            row[k] = []
    return row


def _limit(limit) -> int:
    try:
        n = int(limit)
    except (TypeError, ValueError):
        n = 50
    return max(1, min(n, MAX_LIMIT))


def normalize_sha(text: str) -> str:
    """A commit as typed ("D47F9717E5CF", " d47f9717e5cf\\n", "commit d47f971")
    -> lower-case hex; LkmlkbError when it is no SHA (4-40 hex digits)."""
    s = (text or "").strip().lower().removeprefix("commit").strip()
    if not _SHA_QUERY_RE.fullmatch(s):
        raise LkmlkbError(repr((text or "")[:60]), "not a commit SHA (4 to 40 hex digits)")
    return s


# ---------------------------------------------------------------- commits


def _known_commits(db, shas: Iterable[str]) -> dict[str, dict]:
    """sha as written -> its ``commits`` row (JSON decoded)."""
    out: dict[str, dict] = {}
    shas = sorted(set(shas))
    for i in range(0, len(shas), 500):
        chunk = shas[i : i + 500]
        for r in dict_rows(db, "SELECT * FROM commits WHERE sha IN (%s)" % ",".join("?" * len(chunk)), chunk):
            out[r["sha"]] = _decode(r)
    return out


def matching_shas(db, sha_prefix: str) -> tuple[set[str], dict[str, dict]]:
    """The SHAs as written in the knowledge base that name the commit the user means.

    A written SHA matches when it starts with the query, or (7+ digits) is a
    prefix of it -- unless ``lkmlkb link`` resolved it to another commit.
    Once a match is resolved to a full SHA, every written SHA resolved to the
    same commit joins (a mistyped SHA found by its subject, a 7-digit form).
    Returns (written SHAs, their ``commits`` rows)."""
    q = normalize_sha(sha_prefix)
    cand = {
        r[0]
        for r in _conn(db).execute(
            "SELECT sha FROM report_commits WHERE sha LIKE ? OR (length(sha) >= 7 AND ? LIKE sha || '%') "
            "UNION SELECT sha FROM commit_citations WHERE coalesce(form, '') != 'link' AND "
            "(sha LIKE ? OR (length(sha) >= 7 AND ? LIKE sha || '%'))",
            (q + "%", q, q + "%", q),
        )
    }
    cand |= {r[0] for r in _conn(db).execute("SELECT sha FROM commits WHERE full_sha LIKE ?", (q + "%",))}
    known = _known_commits(db, cand)

    def compatible(w: str) -> bool:
        """w starts with q, or resolves to a commit that does; a shorter w
        (a prefix of q) only when no tree said it is another commit."""
        full = (known.get(w) or {}).get("full_sha")
        if w.startswith(q) or (full and full.startswith(q)):
            return True
        return not full or q.startswith(full)

    matched = {w for w in cand if compatible(w)}
    fulls = {known[w]["full_sha"] for w in matched if w in known and known[w].get("full_sha")}
    if fulls:
        more = {
            r[0] for f in fulls for r in _conn(db).execute("SELECT sha FROM commits WHERE full_sha = ?", (f,))
        }
        known.update(_known_commits(db, more - set(known)))
        matched |= more
    return matched, {w: known[w] for w in matched if w in known}


def _commit_summary(known: dict[str, dict]) -> dict | None:
    """The best-known facts about one commit from its rows (tree-judged first)."""
    if not known:
        return None
    rank: dict[str | None, int] = {
        "resolved": 0,
        "resolved-by-subject": 1,
        "subject-match": 2,
        "unresolved": 3,
        "ambiguous": 4,
        "unknown": 5,
    }
    best = min(known.values(), key=lambda r: (rank.get(r.get("status"), 9), -len(r["sha"]), r["sha"]))
    return {
        k: best.get(k)
        for k in (
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
            "tree",
            "checked",
        )
    }


def _merge_refs(rows: Iterable[dict], key: str, thread: str | None = None) -> list[dict]:
    """fixed_by / linked_by lists of several rows of one commit, deduplicated;
    Link/Closes commits limited to those naming a message of ``thread``."""
    out: dict[tuple, dict] = {}
    for r in rows:
        for ref in r.get(key) or []:
            if not isinstance(ref, dict):
                continue
            if thread is not None and key == "linked_by" and ref.get("thread_id") not in (None, thread):
                continue
            out.setdefault((ref.get("sha"), ref.get("message_id")), ref)
    return sorted(out.values(), key=lambda x: (x.get("date") or "", x.get("sha") or ""))


def reports_citing(db, sha_prefix: str) -> list[dict]:
    """Every report that blames, fixes, reverts, tests (or mentions) a commit.

    One dict per report: its title, status, dates, kernels, the roles the
    commit plays in it (strongest first) with the evidence (message, lines,
    cue), the numbers (baseline / regressed value, unit, metric, regression,
    stated and computed %), the report's results, the commit as a git tree
    knows it (``commit``), the commits that fix it (``fixed_by``: Fixes:
    trailers and reverts) and the Link:/Closes: commits naming a message of
    this report (``linked_by``), and the fixes the mail names (``fixes_in_mail``).
    Culprit reports first, then newer before older."""
    shas, known = matching_shas(db, sha_prefix)
    if not shas:
        return []
    marks = ",".join("?" * len(shas))
    cites = dict_rows(
        db,
        f"""
        SELECT rc.report_id, rc.sha, rc.subject, rc.role, rc.message_id, rc.line_start, rc.line_end, rc.cue
        FROM report_commits rc WHERE rc.sha IN ({marks})
        UNION
        SELECT r.report_id, cc.sha, cc.subject, cc.role, cc.message_id, cc.line_start, cc.line_end, cc.cue
        FROM commit_citations cc JOIN reports r ON r.thread_id = cc.thread_id
        WHERE cc.sha IN ({marks}) AND coalesce(cc.form, '') != 'link'""",
        [*sorted(shas), *sorted(shas)],
    )
    by_report: dict[str, list[dict]] = {}
    for c in cites:
        by_report.setdefault(c["report_id"], []).append(c)
    if not by_report:
        return []
    ids = sorted(by_report)
    reports = {
        r["report_id"]: _decode(r)
        for r in dict_rows(
            db,
            "SELECT %s FROM reports WHERE report_id IN (%s)"
            % (", ".join(REPORT_COLUMNS), ",".join("?" * len(ids))),
            ids,
        )
    }
    commit = _commit_summary(known)
    out = []
    for rid, evidence in by_report.items():
        rep = reports.get(rid)
        if rep is None:
            continue
        evidence.sort(
            key=lambda e: (ROLE_RANK.get(e["role"], 9), e["message_id"] or "", e["line_start"] or 0)
        )
        roles = sorted({e["role"] for e in evidence}, key=lambda r: (ROLE_RANK.get(r, 9), r))
        mine = [known[e["sha"]] for e in evidence if e["sha"] in known]
        rep.update(
            role=roles[0],
            roles=roles,
            shas=sorted({e["sha"] for e in evidence}),
            subject=(commit or {}).get("subject")
            or next((e["subject"] for e in evidence if e["subject"]), None),
            evidence=evidence,
            commit=commit,
            fixed_by=_merge_refs(mine or known.values(), "fixed_by"),
            linked_by=_merge_refs(mine or known.values(), "linked_by", rep["thread_id"]),
            fixes_in_mail=_fixes_in_mail(db, rep.get("fixes") or []),
            results=_report_results(db, rid),
        )
        out.append(rep)
    out.sort(key=lambda r: r.get("last_date") or "", reverse=True)
    out.sort(key=lambda r: ROLE_RANK.get(r["role"], 9))
    return out


def _fixes_in_mail(db, shas: list) -> list[dict]:
    """The report's fix SHAs (from the mail), with what a tree said about them."""
    shas = [s for s in shas if isinstance(s, str)]
    known = _known_commits(db, shas)
    return [
        {"sha": s, **{k: (known.get(s) or {}).get(k) for k in ("full_sha", "status", "subject", "first_tag")}}
        for s in shas
    ]


def _report_results(db, report_id: str, limit: int = 50) -> list[dict]:
    return dict_rows(
        db,
        """
        SELECT kernel, label, metric, direction, value, unit, config, message_id, line_start
        FROM results WHERE report_id = ? ORDER BY kernel_sort IS NULL, kernel_sort, id LIMIT ?""",
        (report_id, limit),
    )


# ---------------------------------------------------------------- listing


def list_reports(
    db,
    status: str | None = None,
    list_name: str | None = None,
    kernel: str | None = None,
    tool: str | None = None,
    commit: str | None = None,
    limit: int = 50,
    regressions_only: bool = False,
) -> list[dict]:
    """Reports, newest (``last_date``) first, filtered by any of: status
    (case-insensitive), mailing list ("linux-block" or its address), a kernel
    version the report names (normalized: "v6.8-rc7" = "6.8-rc7"), a tool
    ("fio", "lkp"), a commit SHA (prefix) it cites.  ``commit`` that is no
    SHA raises LkmlkbError.  ``regressions_only`` keeps reports of a
    regression (``is_regression_report``), leaving threads that only hold numbers."""
    where, params = [], []
    if regressions_only:
        where.append("r.is_regression_report = 1")
    if status:
        where.append("lower(r.status) = lower(?)")
        params.append(status.strip())
    if list_name:
        name = list_name.strip().lower()
        where.append(
            "EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(r.lists) THEN r.lists ELSE '[]' END) j "
            "WHERE lower(j.value) = ? OR lower(j.value) LIKE ? || '@%' OR ? LIKE lower(j.value) || '@%')"
        )
        params += [name, name, name]
    if kernel:
        v = normalize_version(kernel.strip()) or kernel.strip().lower()
        where.append(
            "(EXISTS (SELECT 1 FROM report_kernels k WHERE k.report_id = r.report_id AND k.version = ?) "
            "OR r.good_kernel = ? OR r.bad_kernel = ?)"
        )
        params += [v, v, v]
    if tool:
        where.append(
            "EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(r.tools) THEN r.tools ELSE '[]' END) j "
            "WHERE lower(j.value) = lower(?))"
        )
        params.append(tool.strip())
    if commit:
        ids = sorted({r["report_id"] for r in reports_citing(db, commit)})
        where.append("r.report_id IN (%s)" % ",".join("?" * len(ids)) if ids else "0")
        params += ids
    sql = (
        "SELECT %s FROM reports r %s ORDER BY r.last_date IS NULL, r.last_date DESC, r.report_id LIMIT ?"
        % (", ".join("r." + c for c in REPORT_COLUMNS), ("WHERE " + " AND ".join(where)) if where else "")
    )
    return [_decode(r) for r in dict_rows(db, sql, [*params, _limit(limit)])]


def kernels_between(db, a: str, b: str, limit: int = 200) -> list[dict]:
    """Reports whose bad kernel (``reports.bad_kernel`` or a kernel the report
    names with role "bad") lies between versions ``a`` and ``b`` (either
    order, both included), by kernel order (6.8-rc7 < 6.8 < 6.8.1 < 6.8.y).
    Each dict is a report (as :func:`list_reports`) with ``bad_kernels``: its
    bad kernels in the range.  Sorted by the oldest such kernel, then date."""
    lo, hi = sorted((sort_key(a), sort_key(b)))
    if lo[0] not in (0, 1) or hi[0] not in (0, 1):  # 9: no version at all
        raise LkmlkbError(f"{a!r}..{b!r}", "not kernel versions (e.g. 6.1 and 6.8-rc7)")
    bad: dict[str, set[str]] = {}
    for rid, version in _conn(db).execute(
        "SELECT report_id, bad_kernel FROM reports WHERE bad_kernel IS NOT NULL "
        "UNION SELECT report_id, version FROM report_kernels WHERE role = 'bad'"
    ):
        if version and lo <= sort_key(version) <= hi:
            bad.setdefault(rid, set()).add(version)
    if not bad:
        return []
    ids = sorted(bad)
    out = []
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        out += dict_rows(
            db,
            "SELECT %s FROM reports WHERE report_id IN (%s)"
            % (", ".join(REPORT_COLUMNS), ",".join("?" * len(chunk))),
            chunk,
        )
    for r in out:
        _decode(r)
        r["bad_kernels"] = sorted(bad[r["report_id"]], key=sort_key)
    out.sort(key=lambda r: r.get("last_date") or "", reverse=True)
    out.sort(key=lambda r: sort_key(r["bad_kernels"][0]))
    return out[: _limit(limit)]


# ---------------------------------------------------------------- search


def fts_tokens(text: str) -> list[str]:
    """The words of the user's text: split at whitespace and double quotes (the
    FTS5 tokenizer separates at ``"`` too), control characters dropped, tokens
    without a letter or digit dropped (``((``, ``*``, ``-``), at most
    MAX_QUERY_TOKENS of them."""
    text = "".join(
        ch if unicodedata.category(ch)[0] != "C" and ch != '"' else " "
        for ch in (text or "")[:MAX_QUERY_CHARS]
    )
    return [t for t in text.split() if any(ch.isalnum() for ch in t)][:MAX_QUERY_TOKENS]


def fts_query(text: str, operator: str = "AND") -> str | None:
    """A safe FTS5 query for what a user typed into a search box.

    Text in double quotes is a phrase (``"run status group"``); the words
    ``AND``, ``OR`` and ``NOT`` in capitals between two terms are operators
    (``fio AND regression``, ``bfq NOT kyber``), with FTS5's precedence (NOT,
    then AND, then OR); ``NOT`` before the first term excludes that term
    (``NOT kyber fio`` is ``fio NOT kyber``; with nothing left to find, no
    query); of two operators in a row the last counts, and one at the end
    is dropped.  Every other word is a term in double quotes, so NEAR,
    ``*``, ``(``, ``)``, ``-``, ``:`` and ``^`` are text (``mq-deadline``,
    ``io_uring``).  Terms with no operator between them are joined by AND,
    or by OR with ``operator="OR"`` (the "any word" fallback) when the text
    holds no operator of its own.  Never an FTS5 syntax error.  None when
    no term is left.
    """
    items: list[str] = []  # terms ('"..."') and operators ("AND"/"OR"/"NOT")
    chunks = (text or "")[:MAX_QUERY_CHARS].split('"')
    for n, chunk in enumerate(chunks):
        if n % 2:  # inside quotes (an unclosed quote runs to the end)
            toks = fts_tokens(chunk)
            if toks:
                items.append('"' + " ".join(toks) + '"')
            continue
        for word in chunk.split():
            if word in ("AND", "OR", "NOT"):
                items.append(word)
            else:
                items.extend('"' + t + '"' for t in fts_tokens(word))
    typed_operator = any(not i.startswith('"') for i in items)
    implicit = " OR " if operator == "OR" and not typed_operator else " "
    parts: list[str] = []
    excluded: list[str] = []  # terms after a NOT that had no term before it
    pending = None
    terms = 0
    for item in items:
        if not item.startswith('"'):
            pending = item  # the last operator between two terms wins
            continue
        if terms >= MAX_QUERY_TOKENS:
            break
        terms += 1
        if not parts:
            if pending == "NOT":
                excluded.append(item)
            else:
                parts.append(item)
        else:
            parts.append(f" {pending} " if pending else implicit)
            parts.append(item)
        pending = None
    if not parts:
        return None
    return "".join(parts) + "".join(f" NOT {e}" for e in excluded)


def fts_queries(text: str) -> list[str]:
    """The queries a search tries in turn: every word of ``text``, then any
    word when that is another query (not for one term, a phrase, or typed
    operators, which the fallback keeps).  Empty when no term is left."""
    every = fts_query(text)
    if every is None:
        return []
    anyword = fts_query(text, "OR")  # the same terms: a query whenever ``every`` is one
    return [every] if anyword is None or anyword == every else [every, anyword]


#: relevance is ranked among the newest this many matches of a query: bm25 over every match of a
#: common term grows with the archive, this stays bounded
RANK_WINDOW = 2000


def window_floor(db, fts: str, q: str, window: int = RANK_WINDOW) -> int:
    """The smallest rowid among the ``window`` newest matches of ``q`` (0 when there are fewer).

    FTS5 returns matches by rowid without ranking them, so this costs
    about the same at 1,000 or 1,000,000 messages.
    """
    row = (
        _conn(db)
        .execute(
            f'SELECT rowid FROM "{fts}" WHERE "{fts}" MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?',
            (q, max(0, window - 1)),
        )
        .fetchone()
    )
    return row[0] if row else 0


def _search_reports(db, q: str, limit: int, mark: tuple[str, str]) -> list[dict]:
    rows = dict_rows(
        db,
        """
        SELECT r.report_id, r.thread_id, r.title, r.status, r.last_date, r.regression_pct, r.bad_kernel,
               r.is_regression_report,
               snippet(reports_fts, -1, ?, ?, '…', 16) AS snippet, bm25(reports_fts) AS rank
        FROM reports_fts JOIN reports r ON r.rowid = reports_fts.rowid
        WHERE reports_fts MATCH ? AND reports_fts.rowid >= ? ORDER BY r.is_regression_report DESC, rank LIMIT ?""",
        (mark[0], mark[1], q, window_floor(db, "reports_fts", q), limit),
    )
    for r in rows:
        r["kind"] = "report"
    return rows


def _search_messages(db, q: str, limit: int, mark: tuple[str, str]) -> list[dict]:
    rows = dict_rows(
        db,
        """
        SELECT m.message_id, m.thread_id, m.subject AS title, m.from_name, m.date_utc AS last_date,
               (SELECT rp.report_id FROM reports rp WHERE rp.thread_id = m.thread_id) AS report_id,
               snippet(messages_fts, -1, ?, ?, '…', 16) AS snippet, bm25(messages_fts) AS rank
        FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid
        WHERE messages_fts MATCH ? AND messages_fts.rowid >= ? ORDER BY rank LIMIT ?""",
        (mark[0], mark[1], q, window_floor(db, "messages_fts", q), limit),
    )
    for r in rows:
        r["kind"] = "message"
    return rows


def search(db, text: str, limit: int = 20, mark: tuple[str, str] = ("«", "»")) -> list[dict]:
    """Reports and messages matching every word of ``text`` (any word, when
    no row holds them all), best bm25 rank first; each with ``kind``
    ("report"/"message"), ids, title, date and a ``snippet`` whose hits are
    wrapped in ``mark``.  Any text is safe: quotes, ``*``, ``NEAR(``,
    ``mq-deadline``, ``io_uring``, ``((`` give results or [], never an error."""
    n = _limit(limit)
    found: list[dict] = []
    for q in fts_queries(text):
        found = _search_reports(db, q, n, mark) + _search_messages(db, q, n, mark)
        if found:
            break
    # reports before messages (bm25 ranks of two tables do not compare), regression reports first
    found.sort(key=lambda r: (r["kind"] != "report", -(r.get("is_regression_report") or 0), r["rank"]))
    for r in found:
        r["date"] = r["last_date"]
    return found[:n]


__all__ = [
    "fts_query",
    "fts_queries",
    "window_floor",
    "kernels_between",
    "list_reports",
    "matching_shas",
    "normalize_sha",
    "reports_citing",
    "search",
]
