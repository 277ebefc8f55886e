"""The wording rules' patterns run behind a gate (a needle test, then the lines holding a
needle): each must answer exactly as its pattern searched over the whole text."""

from __future__ import annotations

import gzip
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.reports import classify, status
from lkmlkb.reports.classify import Gated, lowered
from lkmlkb.sources.mail import parse_message
from lkmlkb.sources.mbox import split_mbox
from lkmlkb.threads.segments import quote_depth

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"
DEV = ROOT.parent / "shared" / "eval" / "dev"

GATED = {
    f"{mod.__name__}.{name}": obj
    for mod in (classify, status)
    for name, obj in vars(mod).items()
    if isinstance(obj, Gated)
}


def span(m):
    return m.span() if m else None


# what each gated pattern is written to find, one phrase per alternative, and near misses: if a
# needle goes missing from a gate, the phrase it guards is no longer found
PHRASES = [
    "Performance dropped",
    "IOPS",
    "throughput",
    "Bandwidth",
    "latency",
    "slowdowns",
    "Slower",
    "speed",
    "re-speed",
    "false positive",
    "please ignore this report",
    "so it's not a regression",
    "not a kernel regression after all",
    "it is not a regression at all.",
    "Applied, thanks!",
    "Queued for 6.9",
    "Thanks, applied",
    "I've applied this",
    "Nice catch, thanks, applied.",
    "Added to misc-next, thanks",
    "Pushed to for-next",
    "Moved from for-next to misc-next",
    "I'll apply this for 5.11, thanks",
    "I'll apply it and test",
    "Applied the set to md-next. Thanks!",
    "I added a comment and applied it to md-fixes.",
    "This patch was applied to jaegeuk/f2fs.git (dev)",
    "Merged, thanks!",
    "I'll add it to misc-next",
    "patch added to devel queue, thanks.",
    "the patch has been queued to 6.15 & 6.12 stable",
    "It's in the 6.10.y queue now.",
    "Can you please test the following branch?",
    "I think I have found the fix for it",
    "we applied the patch and found the performance restored",
    "The patch seems to fix the issue",
    "Sorry, it doesn't help at all.",
    "With the patch, no fio write bandwidth improvement.",
    "It made no difference here.",
    "has been reverted",
    "the revert is queued",
    "#regzbot invalid: test too noisy",
    'a regzbot command like "#regzbot invalid: Some explanation"',
    "#regzbot invalid: caused by a change of defaults",
    "we have merged the revert",
    "I'm going to queue up a revert for -rc6 just in case.",
    "Should I queue up a revert?",
    "kernel test robot noticed a -12.5% regression of fio.write_iops on:",
    "FYI, we noticed a 3.1% improvement of will-it-scale.per_process_ops",
    "Greeting,\nFYI, the following commit",
    "kernel test robot reported a failure",
    "diff --git a/x b/x",
    "--- a/block/blk.c\n+++ b/block/blk.c",
    " 3 files changed, 10 insertions(+)",
    "So this is expected, -4% is within acceptable range.",
    "would indeed by the intent of this\nchange.",
    "I don't think there's anything to fix in the kernel.",
    "#regzbot invalid: kinda expected, as explained in",
    "This is expected to be fixed by the next series.",
]
FRAGMENTS = [
    *PHRASES,
    *(n for g in GATED.values() for n in g.needles),
    *(n.upper() for g in GATED.values() for n in g.needles),
    "regre\u017fsion",  # the long s: re.I finds "regression" in it
    "perf\u0131rmance",
    "\u0130OPS",  # the dotted capital I lowers to two characters
    "\u212aiB",
    "\n",
    " ",
    "\t",
    ">",
    ".",
    "x",
    "\u00e9",
]


@pytest.mark.parametrize("name", sorted(GATED))
def test_every_phrase_is_found_as_the_pattern_finds_it(name):
    g = GATED[name]
    found = 0
    for phrase in PHRASES:
        for text in (phrase, f"Hi,\n\n{phrase}\n\nThanks", f"first line\n> quoted\n{phrase} and more"):
            assert span(g.search(text)) == span(g.pattern.search(text)), (name, text)
            found += g.search(text) is not None
    assert found  # each pattern has phrases of its own here


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(GATED)), st.lists(st.sampled_from(FRAGMENTS), max_size=10))
def test_same_answer_as_the_pattern_over_the_whole_text(name, parts):
    g = GATED[name]
    text = "".join(parts)
    assert span(g.search(text)) == span(g.pattern.search(text))


def _real_texts() -> list[str]:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.iterdir()) if p.is_file()]
    texts += [
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(DEV.glob("*/*"))
        if p.name != "gold.json"
    ]
    with gzip.open(ARCHIVE) as fh:
        texts += [classify.own_lines(parse_message(raw)) for raw in islice(split_mbox(fh), 2000)]
    return texts


def test_same_answer_on_real_mail():
    texts = _real_texts()
    assert len(texts) > 2000
    hits = 0
    for name, g in GATED.items():
        answers = [span(g.search(t)) for t in texts]
        assert answers == [span(g.pattern.search(t)) for t in texts], name
        hits += sum(a is not None for a in answers)
    assert hits > 100


def test_lowered_keeps_every_character_in_its_place():
    text = "Regre\u017fsion \u0130OPS \u212a \u0131ops"
    low = lowered(text)
    assert low == "regression iops k iops"


def by_lines(body: str) -> str:
    """A message's own lines as the segmenter reads quoting: every line quote_depth finds unquoted."""
    body = body[: classify.OWN_TEXT_CHARS]
    return "\n".join(line for line in body.split("\n") if not quote_depth(line)[0])


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from([">", "> ", ">>", ">=", " ", "\t", "   >", "    >", "=", "a", "\n", "\n\n"]),
        max_size=14,
    )
)
def test_unquoted_lines_drop_the_lines_quote_depth_finds_quoted(parts):
    body = "".join(parts)
    assert classify.unquoted_lines(body) == by_lines(body)


def test_unquoted_lines_on_real_mail():
    with gzip.open(ARCHIVE) as fh:
        bodies = [parse_message(raw).body for raw in islice(split_mbox(fh), 1500)]
    assert sum(">" in b for b in bodies) > 500
    for body in bodies:
        assert classify.unquoted_lines(body) == by_lines(body)
