"""A regression as text: its threads and its timeline (what `lkmlkb show` prints)."""

from __future__ import annotations

#: how a fix was found in the tree, as the timeline says it
VIA = {
    "Link": "Link: trailer",
    "Closes": "Closes: trailer",
    "cited": "cited as the fix",
    "subject": "same subject",
}


def landing_text(event: dict) -> str | None:
    """Where a "fixed" or "reverted" event's fix is in the kernel tree `lkmlkb link --git` read
    (``event['commits']``) and its first release; None when no tree showed it."""
    commits = event.get("commits") or []
    if not commits:
        return None
    release = f"first in {event['first_tag']}" if event.get("first_tag") else "in no release yet"
    named = "; ".join(
        f"{c['sha'][:12]} {c.get('subject') or ''} ({VIA.get(c['via'], c['via'])}"
        + (f", {c.get('first_tag') or 'no release yet'})" if len(commits) > 1 else ")")
        for c in commits
    )
    return f"{release}: {named}"


def render_regression(data: dict) -> str:
    """``data`` as :func:`lkmlkb.db.regressions.regression_data` gives it."""
    lines = [
        f"{data['regression_id']}  [{data['status']}]  {data['title']}",
        f"threads: {data['thread_count']}   first: {(data.get('first_date') or '?')[:10]}   "
        f"last: {(data.get('last_date') or '?')[:10]}",
        "",
        "timeline:",
    ]
    for e in data["timeline"]:
        lines.append(f"  {(e.get('date') or '?')[:10]:<10}  {e['event']:<13} {e['text']}  ({e['thread_id']})")
        if landed := landing_text(e):
            lines.append(f"  {'':<10}  {'':<13} {landed}")
    lines += ["", "threads:"]
    for t in data["threads"]:
        lines.append(f"  {t['part']:<16} {t['thread_id']}  {t.get('title') or ''}")
        lines.append(f"  {'':<16} why: {t['reason']}")
    lines.append("")
    earlier = data.get("earlier") or []
    if not earlier:
        known = (data.get("workload") or {}).get("fingerprints")
        lines.append(
            "this workload regressed before: none" + ("" if known else " (no workload and metric known)")
        )
    else:
        lines.append("this workload regressed before:")
        for r in earlier:
            lines.append(
                f"  {r['regression_id']}  {(r.get('first_date') or '?')[:10]}  {r.get('status') or ''}"
            )
            lines.append(f"    {r.get('title') or ''}")
            lines.append(f"    same workload: {r['workload']}; metric: {r['metric']}")
    return "\n".join(lines)
