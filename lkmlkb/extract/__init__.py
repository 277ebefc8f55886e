"""The extractors: each reads a message's view and returns records with their evidence."""

import re

#: the characters other than ASCII letters that re.IGNORECASE matches to an ASCII letter ("\u0130" and
#: "\u0131" to i, "\u017f" to s, the Kelvin sign to k): where a text holds none, finding a lower-case
#: word in ``text.lower()`` finds every place a case-ignoring pattern of it can match (the prefilter,
#: the setup extractor); tests/extract/test_extract_speed.py checks the list against every character
_TWIN_CHARS = "\u0130\u0131\u017f\u212a"
CASE_TWINS = re.compile(f"[{_TWIN_CHARS}]")


def has_case_twin(text: str) -> bool:
    """Whether ``text`` holds a character of ``CASE_TWINS``: four ``str`` scans, a quarter of what
    the class costs ``re`` over a megabyte of non-ASCII text."""
    return any(c in text for c in _TWIN_CHARS)
