"""Extraction: what each message says, read by the extractors.

- :mod:`~lkmlkb.extract.prefilter`: whether a text can hold a report at all;
- :mod:`~lkmlkb.extract.views`: the text the extractors read, line for line with the body;
- :mod:`~lkmlkb.extract.messages`: every extractor over a message or a thread, within the CPU
  budget of :mod:`~lkmlkb.extract.budget`;
- the extractors, each returning records with their evidence: ``kernels``, ``commits``,
  ``results`` (with ``fio_output``, ``tables``, ``pairs``, ``timing``), ``setup``, ``claims``;
  fio jobs are found by :mod:`lkmlkb.fio`;
- what they share: ``kernel_versions``, ``metric_units``, ``lines``, and :mod:`~lkmlkb.extract.nlp`
  for their cue phrases.
"""

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
