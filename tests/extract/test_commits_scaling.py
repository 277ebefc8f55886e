"""Commit extraction's faster span and trailer lookups give the same answers: the excluded-span
test answers as the pairwise test it replaced (the oracle here), and a flood of trailers keeps
every role the trailers give.  These tests check answers, not time: the speed is measured by
the adversarial floods of benchmarks/worst_case.py (trailer-flood, sha-flood)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.extract.commits import _Spans, find_commits, looks_like_sha

_SPAN = st.tuples(st.integers(0, 60), st.integers(0, 30)).map(lambda t: (t[0], t[0] + t[1]))


@settings(max_examples=1500, deadline=None)
@given(st.lists(_SPAN, max_size=12), st.lists(_SPAN, min_size=1, max_size=12))
def test_spans_hold_what_some_span_holds(spans, queries):
    got = _Spans(spans)
    for a, b in queries:
        assert got.holds(a, b) == any(s <= a and b <= e for s, e in spans)


def test_trailers_and_addresses_in_a_flood_keep_their_roles():
    """3,000 Fixes: trailers, each followed by an address with hex digits (5 s of pairwise tests
    before): every SHA a culprit by its trailer, none read out of an address or a message id."""
    shas = [f"{(i * 2654435761) % 16**12:012x}" for i in range(3_000)]
    text = "".join(
        f'Fixes: {sha} ("block: fix {i}")\nReported-by: robot <{sha[::-1]}@intel.com>\n'
        f"Link: https://lore.kernel.org/r/{sha[:7]}beef.{i}@x/\n"
        for i, sha in enumerate(shas)
    )
    found = [
        c for c in find_commits(text) if c.form != "link"
    ]  # the Link: lines are links, as they should be
    # every SHA, once: those of decimal digits too, each cited with a title
    cited = [s for s in shas if looks_like_sha(s) or (s.isdigit() and "0000" not in s)]
    assert sorted(c.sha for c in found) == sorted(cited)
    assert {c.role for c in found} == {"culprit"} and {c.cue for c in found} == {"Fixes:"}
