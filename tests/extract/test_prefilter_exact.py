"""The prefilter tries its regex only where a match can start; it must answer exactly as
one search over the whole text (the test that every later stage relies on)."""

from __future__ import annotations

import gzip
from itertools import islice
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.extract import prefilter as prefilter_module
from lkmlkb.extract.prefilter import (
    MAX_VIEW_CHARS,
    PREFILTER,
    PREFILTER_WORDS,
    SPEED_NOUNS,
    WORSE_BEFORE,
    prefilter,
)
from lkmlkb.extract.views import build_view
from lkmlkb.sources.mail import parse_message
from lkmlkb.sources.mbox import split_mbox
from lkmlkb.threads.segments import segment_body

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
ARCHIVE = ROOT.parent / "shared" / "archives" / "linux-block-2024q1.mboxrd.gz"


def whole_search(text: str) -> bool:
    """The prefilter as it was: substrings, then the regex over the whole text."""
    text = text[:MAX_VIEW_CHARS]
    low = text.lower()
    return (any(w in low for w in PREFILTER_WORDS) and bool(PREFILTER.search(text))) or (
        any(n in low for n in SPEED_NOUNS) and bool(WORSE_BEFORE.search(text))
    )


# the words and near misses: word characters glued on either side break a \b, "KiB/s" starts
# two characters before its word, "ſ" and the Kelvin sign fold under re.I but not in lower()
FRAGMENTS = [
    *PREFILTER_WORDS,
    "FIO",
    "Fio",
    "fio-",
    "xfio",
    "fiox",
    "_fio",
    "KiB/s",
    "kb/s",
    "GB/s",
    "Tib/s",
    "zb/s",
    "b/sx",
    "MB/sec",
    "mb/secs",
    "IOPS",
    "iopsy",
    "bw=",
    "abw=",
    "LKP",
    "lkpx",
    "regreſs",
    "\u212aiB/s",
    # a speed said worse before its noun (WORSE_BEFORE), and near misses
    "degraded ",
    "bad ",
    "badness ",
    "lower ",
    "losses of ",
    "I/O ",
    "latency/",
    "performances",
    "\n",
    "İ",
    "ß",
    " ",
    "\n",
    "-",
    "_",
    "=",
    "%",
    "a",
    "9",
    "run status  group",
    "Test Robot",
    "\u0131ops",
    "\u00e9",
    "\u2014",
    "\u00b5s",
    "\u4e2d\u6587",
    "\u00c9t\u00e9",
]  # non-ASCII, no twin: anchored too


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
def test_same_answer_as_one_search_over_the_text(parts):
    text = "".join(parts)
    assert prefilter(text) == whole_search(text)


def _count_whole_searches(monkeypatch) -> list[int]:
    """The prefilter's regex, with its whole-text searches recorded (their texts' lengths)."""
    searched: list[int] = []

    class Counting:
        def match(self, text, pos):
            return PREFILTER.match(text, pos)

        def search(self, text):
            searched.append(len(text))
            return PREFILTER.search(text)

    monkeypatch.setattr(prefilter_module, "PREFILTER", Counting())
    return searched


def test_many_occurrences_fall_back_to_one_search(monkeypatch):
    """Past MAX_ANCHORED occurrences of the words the regex searches the text once, and answers the same."""
    searched = _count_whole_searches(monkeypatch)
    monkeypatch.setattr(prefilter_module, "MAX_ANCHORED", 3)
    # "fiord" holds the word "fio" but no match of the regex
    assert prefilter("fiord " * 10 + "fio") and searched == [63]
    assert not prefilter("fiord " * 10) and searched == [63, 60]
    searched.clear()
    assert prefilter("fiord fio") and not prefilter("fiord fiords") and not searched  # under the bound


def _views(raws):
    for raw in raws:
        msg = parse_message(raw)
        yield build_view(msg.body, segment_body(msg.body), keep_attributed=True).text
        yield msg.subject


def test_same_answer_on_real_mail():
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.iterdir()) if p.is_file()]
    with gzip.open(ARCHIVE) as fh:
        texts += _views(islice(split_mbox(fh), 1500))
    answers = [prefilter(t) for t in texts]
    assert answers == [whole_search(t) for t in texts]
    assert 0 < sum(answers) < len(answers)


def test_attribution_does_not_change_what_the_prefilter_sees():
    """The workers screen a message before its quotes are attributed, and its extraction job
    trusts that answer (``Job.screened_pass``): the prefilter must read the same either way."""
    from lkmlkb.extract.views import may_hold_report
    from lkmlkb.sources import read_messages
    from lkmlkb.threads.quotes import attribute_quotes
    from lkmlkb.threads.threader import thread_messages

    msgs = list(read_messages([str(CORPUS)]))
    attributed = 0
    for thread in thread_messages(msgs).values():
        items = [(m, segment_body(m.body)) for m in sorted(thread, key=lambda m: m.date_utc or "")]
        before = [may_hold_report(m, segs) for m, segs in items]
        attribute_quotes(items)
        attributed += sum(1 for _, segs in items for s in segs if s.quotes_message_id)
        assert [may_hold_report(m, segs) for m, segs in items] == before
    assert attributed > 20


def test_non_ascii_text_without_case_twins_is_searched_where_words_occur(monkeypatch):
    """Text with an accent or a dash but no case twin keeps lower() positions: the regex runs
    only near the words (a 558 KB mail with one "—" took 175 ms in one whole-text search)."""
    searched = _count_whole_searches(monkeypatch)
    assert prefilter("caf\u00e9 \u2014 fio") and not prefilter("caf\u00e9 \u2014 fiord") and not searched
    assert prefilter("\u017ftatus: 10 IOPS") and searched  # a case twin: one whole-text search
    searched.clear()
    assert not prefilter("\u0130stanbul fiord") and searched  # lower() makes "\u0130" two characters


def _screened_by_view(msg, segs) -> bool:
    """The screen as it was: the prefilter on the view laid out line for line, or on the subject."""
    return prefilter(build_view(msg.body, segs, keep_attributed=True).text) or prefilter(msg.subject)


def test_the_screen_reads_the_views_lines_without_laying_out_the_view():
    # may_hold_report reads the new and quoted lines joined (views.screen_text), not the view
    # with a blank line for every patch, signature and header line: the same answer for every
    # message of linux-block's 2024 Q1 mail and the corpus, for a passing word past a line's cut,
    # and for a body longer than a view holds (read as the view is cut)
    from lkmlkb.extract.views import MAX_VIEW_LINE, may_hold_report
    from lkmlkb.sources import read_messages

    msgs = list(read_messages([str(CORPUS)]))
    with gzip.open(ARCHIVE) as fh:
        msgs += [parse_message(raw) for raw in split_mbox(fh)]
    answers = []
    for msg in msgs:
        segs = segment_body(msg.body)
        answers.append(may_hold_report(msg, segs))
        assert answers[-1] == _screened_by_view(msg, segs), msg.message_id
    assert 300 < sum(answers) < len(answers) - 3000
    long_line = "x" * (MAX_VIEW_LINE - 2) + " fio regression"
    for body in (
        long_line,
        "> " + long_line,
        "hello\n" + long_line + "\n\n> " + "y" * 10 + " fio",
        # a million patch lines, blank in the view, then 1.2 MB of text: the view's cut falls
        # before the word, which the new lines alone would hold
        "diff --git a/x b/x\n" + "+x\n" * 1_000_000 + "\n" + "\n".join(["y" * 2999] * 400) + "\nfio",
    ):
        msg = parse_message(b"Message-ID: <a@b>\nSubject: hi\n\n" + body.encode())
        segs = segment_body(msg.body)
        assert may_hold_report(msg, segs) == _screened_by_view(msg, segs), body[:40]
