"""A worker's spaCy vocabulary stays bounded over a whole archive, and findings do not change.

spaCy keeps every word it has read; over the linux-block epoch a worker's vocabulary grew by
about 7,000 words per 1,000 messages extracted (SHAs, numbers, paths), ~400 bytes each.  Past
``matcher.MAX_LEXEMES`` the pipelines are rebuilt between two messages.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lkmlkb.extract import messages, views
from lkmlkb.extract.nlp import matcher, reading

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _findings(texts):
    out = []
    for n, text in enumerate(texts):
        f = messages.extract_view(f"{n}@corpus", views.View(text, {}))
        out.append(dataclasses.asdict(f))
    return out


def test_the_pipelines_are_rebuilt_past_the_word_limit_with_the_same_findings(monkeypatch):
    texts = [
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(CORPUS.iterdir())
        if p.suffix in (".txt", ".mbox")
    ]
    messages.warm_up()
    unbounded = _findings(texts)  # as read until now: the limit is far
    assert len(matcher.base_nlp().vocab) < matcher.MAX_LEXEMES

    reading.rebuild_pipelines()  # a fresh vocabulary, as a worker starts with
    messages._run_warm_up_text()
    limit = len(matcher.base_nlp().vocab) + 300
    monkeypatch.setattr(matcher, "MAX_LEXEMES", limit)
    rebuilt, sizes = 0, []
    for n, text in enumerate(texts):
        f = messages.extract_view(f"{n}@corpus", views.View(text, {}))
        assert dataclasses.asdict(f) == unbounded[n]
        sizes.append(len(matcher.base_nlp().vocab))
        rebuilt += len(sizes) > 1 and sizes[-1] < sizes[-2]
    # rebuilt more than once: the vocabulary came back down, below the limit
    assert rebuilt > 1, sizes
    assert min(sizes) < limit < max(sizes)
    # what one text adds is all it can be over the limit by
    assert max(sizes) < limit + max(len(t.split()) for t in texts)


def test_no_rebuild_below_the_limit():
    messages.warm_up()
    before = matcher.base_nlp()
    messages.extract_view("x@corpus", views.View("fio regression of 10% on v6.8 vs v6.7", {}))
    assert matcher.base_nlp() is before
