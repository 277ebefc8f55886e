"""CPU cost of the regular-expression extractors on real mail, per extractor and per view.

Builds the views ingest hands to the extractors — ``parse_message``,
``segment_body``, the prefilter of ``may_hold_report``, then ``build_view``
and ``focus_view`` (all from lkmlkb) — and runs on each view the extractors
named below, timing each with ``time.process_time()`` (the machine may be
shared: wall time is not reported).  On linux-block 2024 Q1 359 views pass the
prefilter.

Usage::

    python benchmarks/extractors.py                       # linux-block 2024 Q1
    python benchmarks/extractors.py --input /tmp/lb.mbox --worst 10
    python benchmarks/extractors.py --save-views /tmp/views.pkl   # the views, for comparing outputs
"""

from __future__ import annotations

import argparse
import collections
import pickle
import time
from pathlib import Path

DEFAULT_INPUT = Path(__file__).resolve().parents[2] / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"


def extractors() -> list[tuple[str, object]]:
    """(name, function of a view's text) for each extractor timed."""
    from lkmlkb.extract.results import find_results
    from lkmlkb.extract.setup import find_setup, find_tools
    from lkmlkb.fio.find import find_fio_jobs, fio_version

    return [
        ("fio_jobs", find_fio_jobs),
        ("results", find_results),
        ("setup", find_setup),
        ("tools", find_tools),
        ("fio_version", fio_version),
    ]


def load_views(source: str) -> list[tuple[str, str]]:
    """(message id, focused view text) of every message of ``source`` that passes the prefilter."""
    from lkmlkb.extract.views import build_view, focus_view, may_hold_report
    from lkmlkb.sources import iter_source
    from lkmlkb.sources.mail import parse_message
    from lkmlkb.threads.segments import segment_body

    views = []
    for item in iter_source(source):
        try:
            msg = parse_message(item.raw, item.source, item.lists)
        except Exception:  # a message lkmlkb cannot parse is not extracted from either
            continue
        segments = segment_body(msg.body)
        if may_hold_report(msg, segments):  # as pipeline.extract_message decides
            views.append((msg.message_id, focus_view(build_view(msg.body, segments)).text))
    return views


def run(views: list[tuple[str, str]]) -> tuple[dict[str, float], list[tuple[float, str, dict[str, float]]]]:
    """CPU seconds per extractor over all views, and (total, message id, per extractor) per view."""
    named = extractors()
    for _, fn in named:  # lazy imports and compiled patterns are not the views' cost
        fn("fio --name=warm-up")
    totals: dict[str, float] = collections.Counter()
    per_view = []
    for mid, text in views:
        spent = {}
        for name, fn in named:
            t0 = time.process_time()
            fn(text)
            spent[name] = time.process_time() - t0
            totals[name] += spent[name]
        per_view.append((sum(spent.values()), mid, spent))
    return dict(totals), per_view


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--input", default=str(DEFAULT_INPUT), help="mbox (optionally .gz) or other lkmlkb source"
    )
    ap.add_argument("--worst", type=int, default=5, help="how many of the costliest views to list")
    ap.add_argument("--save-views", help="also pickle the list of (message id, view text) here")
    args = ap.parse_args(argv)
    t0 = time.process_time()
    views = load_views(args.input)
    print(
        f"{len(views)} views ({sum(len(t) for _, t in views):,} chars) built in "
        f"{time.process_time() - t0:.1f} CPU-s from {args.input}"
    )
    if args.save_views:
        with open(args.save_views, "wb") as f:
            pickle.dump(views, f)
    totals, per_view = run(views)
    print(
        "CPU-s per extractor: "
        + ", ".join(f"{k} {v:.2f}" for k, v in totals.items())
        + f"; total {sum(totals.values()):.2f}"
    )
    print(f"{args.worst} costliest views (ms):")
    for total, mid, spent in sorted(per_view, key=lambda x: x[0], reverse=True)[: args.worst]:
        print(
            f"  {total * 1000:7.1f}  {mid[:64]}  " + " ".join(f"{k}={v * 1000:.1f}" for k, v in spent.items())
        )


if __name__ == "__main__":
    main()
