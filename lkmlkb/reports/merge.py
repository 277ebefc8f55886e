"""The findings of a thread's messages merged: one citation per commit with its strongest role,
one mention per kernel, each fio job and result once."""

from __future__ import annotations

import bisect
import json

from lkmlkb.extract.kernel_versions import sort_key
from lkmlkb.model import ROLE_RANK, CommitCitation, Findings, KernelMention, Result


def merge_commits(findings: list[Findings]) -> list[CommitCitation]:
    """One citation per commit (SHA prefixes of different lengths joined), strongest role.

    A citation joins the earliest-kept one whose SHA is a prefix of its SHA or
    has it as a prefix.  Those are found through the kept SHAs' prefixes (a
    dict) and their sorted order (the ones its SHA begins), not by comparing
    with every kept SHA: a thread citing thousands of commits (a stable
    review series, a flood) cost time in the square of their number.
    """
    by_sha: dict[str, tuple[int, CommitCitation]] = {}  # kept SHA -> (when kept, citation)
    ordered: list[str] = []  # the kept SHAs, sorted
    kept = 0
    for f in findings:
        for c in f.commits:
            if c.form == "link":
                continue
            sha = c.sha
            found = [k for k in (sha[:n] for n in range(len(sha) + 1)) if k in by_sha]  # prefixes of sha
            i = bisect.bisect_left(ordered, sha)
            while i < len(ordered) and ordered[i].startswith(sha):  # those sha is a prefix of
                found.append(ordered[i])
                i += 1
            kept += 1
            if not found:
                by_sha[sha] = (kept, c)
                bisect.insort(ordered, sha)
                continue
            key = min(found, key=lambda k: by_sha[k][0])
            cur = by_sha.pop(key)[1]
            del ordered[bisect.bisect_left(ordered, key)]
            keep = c if ROLE_RANK.get(c.role, 9) < ROLE_RANK.get(cur.role, 9) else cur
            keep.subject = keep.subject or cur.subject or c.subject
            keep.sha = max(cur.sha, c.sha, key=len)  # the longest SHA any message wrote
            by_sha[keep.sha] = (kept, keep)
            bisect.insort(ordered, keep.sha)
    return sorted((c for _, c in by_sha.values()), key=lambda c: (ROLE_RANK.get(c.role, 9), c.sha))


def merge_kernels(findings: list[Findings]) -> list[KernelMention]:
    seen: dict[str, KernelMention] = {}
    for f in findings:
        for k in f.kernels:
            cur = seen.get(k.version)
            if cur is None:
                seen[k.version] = k
            elif cur.role is None and k.role:
                cur.role = k.role
    return sorted(seen.values(), key=lambda k: sort_key(k.version))


def dedupe_jobs(findings: list[Findings]):
    out, seen = [], set()
    for f in findings:
        for j in f.fio_jobs:
            key = (j.form, json.dumps(j.options, sort_keys=True))
            if key not in seen:
                seen.add(key)
                out.append(j)
    return out


def dedupe_results(findings: list[Findings]) -> list[Result]:
    out, seen = [], set()
    for f in findings:
        for r in f.results:
            key = (r.kernel, r.config, r.metric, r.direction, round(r.value, 6), r.unit)
            if key not in seen:
                seen.add(key)
                out.append(r)
    return out
