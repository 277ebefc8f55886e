"""The search_messages canned query: Datasette's JSON API, safe on any text, ranked in a bounded window."""

from __future__ import annotations

import urllib.parse

import pytest


def rows(get, q: str) -> list[dict]:
    r = get("/kb/search_messages.json?_shape=array&q=" + urllib.parse.quote(q))
    assert r.status_code == 200, r.text
    return r.json()


def test_finds_the_multipath_report_by_scheduler_name(get, kb):
    found = rows(get, "mq-deadline")
    assert any(row["report_id"] == kb[1] for row in found)
    assert all("[" in row["snippet"] for row in found)  # the hit is marked


@pytest.mark.parametrize("typed", ['"', "*", "NEAR(", "((", "mq-deadline AND", "io_uring", ")", "", "\x00"])
def test_fts_syntax_in_the_text_never_errors(get, typed):
    assert isinstance(rows(get, typed), list)


def test_every_word_must_match(get):
    both = rows(get, "sequential regression")
    assert both and all(("sequential" in (r["subject"] + r["snippet"]).lower()) or r["snippet"] for r in both)
    assert rows(get, "sequential zzzznotaword") == []
