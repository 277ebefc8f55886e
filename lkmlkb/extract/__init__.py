"""The extractors: each reads a message's view and returns records with their evidence."""

import re

#: the characters other than ASCII letters that re.IGNORECASE matches to an ASCII letter ("\u0130" and
#: "\u0131" to i, "\u017f" to s, the Kelvin sign to k): where a text holds none, finding a lower-case
#: word in ``text.lower()`` finds every place a case-ignoring pattern of it can match (the prefilter,
#: the setup extractor); tests/test_extract_speed.py checks the list against every character
CASE_TWINS = re.compile("[\u0130\u0131\u017f\u212a]")
