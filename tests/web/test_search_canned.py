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


@pytest.mark.parametrize("typed", ['"', "*", "NEAR(", "((", ")", "", "\x00"])
def test_fts_syntax_alone_finds_nothing_and_never_errors(get, typed):
    assert rows(get, typed) == []


@pytest.mark.parametrize("typed", ["mq-deadline AND", '"mq-deadline', "mq-deadline*", "(mq-deadline)"])
def test_fts_syntax_around_a_word_is_taken_as_text(get, kb, typed):
    assert kb[1] in {row["report_id"] for row in rows(get, typed)}


def test_every_word_must_match(get, kb):
    import sqlite3

    both = rows(get, "sequential regression")
    assert both
    conn = sqlite3.connect(kb[0])
    for row in both:
        subject, text = conn.execute(
            "SELECT subject, new_text FROM messages WHERE message_id = ?", (row["message_id"],)
        ).fetchone()
        found = (subject + " " + text).lower()
        assert "sequential" in found and "regress" in found, row["message_id"]
    assert rows(get, "sequential zzzznotaword") == []
