"""Extraction over messages and threads: every extractor over a message's view, within its
CPU budget (:mod:`lkmlkb.extract.budget`).

A message is read by the extractors only if the prefilter says it can hold
a report.  A failing extractor is recorded against the message and the
others go on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from lkmlkb.extract import budget
from lkmlkb.extract.budget import Stopped, hard_stop
from lkmlkb.extract.claims import find_claims
from lkmlkb.extract.commits import find_commits
from lkmlkb.extract.kernels import find_kernels
from lkmlkb.extract.nlp import matcher, reading
from lkmlkb.extract.results import find_results
from lkmlkb.extract.setup import find_setup, find_tools
from lkmlkb.extract.views import FOCUS_MAX_LINES, FOCUS_RADIUS, View, build_view, focus_view, screened_view
from lkmlkb.fio import catalog
from lkmlkb.fio.find import find_fio_jobs, fio_version
from lkmlkb.model import Findings, Message, Segment
from lkmlkb.threads.quotes import attribute_quotes
from lkmlkb.threads.segments import segment_body
from lkmlkb.threads.threader import thread_messages

log = logging.getLogger(__name__)

EXTRACTOR_VERSION = "1"


def _extractors() -> list[tuple[str, Callable]]:
    """(name, extractor) in the order they run; each reads a view's text and returns records."""
    return [
        ("fio_jobs", find_fio_jobs),
        ("results", find_results),
        ("kernels", find_kernels),
        ("commits", find_commits),
        ("setup", find_setup),
        ("claims", find_claims),
    ]


_WARM: list[bool] = []
WARMUP_TEXT = (
    "We see a 10% fio regression on v6.8-rc7 vs 6.7, bisected to commit 0123456789ab "
    '("block: x"); mq-deadline on nvme, ext4.\n  WRITE: bw=236MiB/s (247MB/s)\n'
)


def warm_up() -> None:
    """Build the spaCy pipelines and compile the rules once, outside any time budget."""
    if _WARM:
        return
    catalog.canonical_name("bs")  # fio's option catalog: a JSON file, read once
    _run_warm_up_text()
    _WARM.append(True)


def _run_warm_up_text() -> None:
    """Every extractor once over WARMUP_TEXT: what they build on first use is built."""
    for _, fn in _extractors():
        try:
            fn(WARMUP_TEXT)
        except Exception:
            log.debug("warm-up of an extractor failed", exc_info=True)


def warmed_up() -> bool:
    """Whether :func:`warm_up` ran in this process."""
    return bool(_WARM)


def bound_vocabulary() -> None:
    """Rebuild the spaCy pipelines once they hold too many words (``matcher.MAX_LEXEMES``), here,
    between messages: outside any message's budget."""
    if matcher.vocab_over_limit():
        log.info("rebuilding the spaCy pipelines (vocabulary over %d words)", matcher.MAX_LEXEMES)
        reading.rebuild_pipelines()
        _run_warm_up_text()


def extract_view(message_id: str, view: View) -> Findings:
    """Run every extractor over one message's view; failures are recorded.

    Past BUDGET_SECONDS of CPU the extractors not yet run are skipped; one
    still running HARD_STOP_AFTER later is stopped (its findings lost, the
    message recorded).  What the others found is kept.
    """
    warm_up()
    bound_vocabulary()
    f = Findings(message_id)
    if view.report_lines:  # recorded first: a message also stopped past its budget was cut too
        f.errors["focus"] = (
            f"cut: {view.report_lines:,} lines can hold a report, over the limit of "
            f"{FOCUS_MAX_LINES:,}; read up to the {FOCUS_MAX_LINES:,}th and the "
            f"{FOCUS_RADIUS} lines after it"
        )
    t0 = time.thread_time()
    extractors = _extractors()
    names = [name for name, _ in extractors]
    skipped = f"skipped: message over its {budget.BUDGET_SECONDS:g}s extraction budget"
    running = "tools"
    try:
        with hard_stop(budget.BUDGET_SECONDS + budget.HARD_STOP_AFTER):
            for name, fn in extractors:
                running = name
                if time.thread_time() - t0 > budget.BUDGET_SECONDS:
                    f.errors[name] = skipped
                    continue
                try:
                    records = fn(view.text)
                except Exception as exc:
                    log.info("%s: extractor %s failed: %s", message_id, name, exc)
                    f.errors[name] = f"{exc.__class__.__name__}: {exc}"[:500]
                    continue
                for r in records:
                    ev = r.evidence
                    ev.message_id = message_id
                    depth = max(
                        (view.quoted_lines.get(i, 0) for i in range(ev.line_start, ev.line_end + 1)),
                        default=0,
                    )
                    ev.quoted = depth > 0
                    ev.depth = depth
                setattr(f, name, records)
            running = "tools"
            try:
                f.tools = find_tools(view.text)
                f.fio_version = fio_version(view.text)
            except Exception as exc:
                f.errors["tools"] = f"{exc.__class__.__name__}: {exc}"[:500]
    except Stopped:
        log.info("%s: extractor %s stopped past the budget", message_id, running)
        f.errors[running] = (
            f"stopped: message over its {budget.BUDGET_SECONDS:g}s extraction budget "
            f"({budget.HARD_STOP_AFTER:g}s more of CPU spent in this extractor)"
        )
        for name in [*names[names.index(running) + 1 :], "tools"] if running in names else ():
            f.errors[name] = skipped
        return f
    spent = time.thread_time() - t0
    if spent > budget.BUDGET_SECONDS and not any(r.startswith("skipped: ") for r in f.errors.values()):
        # the last extractor ran past the budget: nothing was skipped, but the message is recorded
        log.info(
            "%s: extraction took %.1fs of CPU, over its %gs budget", message_id, spent, budget.BUDGET_SECONDS
        )
        f.errors["budget"] = (
            f"over budget: extraction took {spent:.1f}s of CPU (budget {budget.BUDGET_SECONDS:g}s)"
        )
    return f


def extract_message(
    msg: Message, segments: list[Segment], screened_pass: bool = False
) -> tuple[Findings, bool]:
    """Findings of one message and whether it passed the prefilter.

    Quoted segments whose origin attribution found are not read
    (:func:`~lkmlkb.extract.views.build_view`), though the prefilter sees them
    (:func:`~lkmlkb.extract.views.may_hold_report`; ``screened_pass``: it was screened and passed,
    and attribution does not change what the prefilter sees).  Pure: the
    ingest workers run it (:func:`lkmlkb.ingest.extraction.extract_payloads`).
    """
    view = None
    if not screened_pass:
        view = screened_view(msg, segments)
        if view is None:
            return Findings(msg.message_id), False
    if view is None or any(s.quotes_message_id for s in segments if s.kind == "quoted"):
        view = build_view(msg.body, segments)  # else the screened view is this one
    return extract_view(msg.message_id, focus_view(view)), True


def extract_thread(items: list[tuple[Message, list[Segment]]]) -> list[Findings]:
    """Findings for every message of one thread (messages in date order), each read
    without what it quotes from an earlier message (quote attribution runs first)."""
    attribute_quotes(items)
    return [extract_message(msg, segs)[0] for msg, segs in items]


def extract_messages(messages: list[Message]) -> dict[str, tuple[list[Message], list[Findings]]]:
    """Thread a set of messages (no database) and extract each thread."""
    out = {}
    for thread_id, msgs in thread_messages(messages).items():
        # the order the knowledge base reads a thread in: dated messages by date, then undated ones
        order = {id(m): n for n, m in enumerate(msgs)}
        msgs = sorted(msgs, key=lambda m: (m.date_utc is None, m.date_utc or "", order[id(m)]))
        items = [(m, segment_body(m.body)) for m in msgs]
        out[thread_id] = (msgs, extract_thread(items))
    return out
