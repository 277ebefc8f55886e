"""The spaCy pipeline the cue extractors share, and the matcher of their cue patterns.

The pipeline is ``spacy.blank("en")`` with a sentencizer and a component that
also starts a sentence after a blank line or at a list item (mail has few
full stops); it is built once per process, lazily.  The cue patterns of a set
of cue files go into a sparse token matcher (validated as spaCy token
patterns) and a ``PhraseMatcher`` on LOWER (strings), keyed by pattern id.
Unlike an EntityRuler, overlapping cues are all kept ("is broken" and
"broken since").

Mail is wrapped at about 72 columns, so a cue of several words is often cut
by a line break ("a performance regression caused\nby commit ab23a77687"),
which spaCy reads as a token of its own: every pattern of more than one word
is matched with an optional whitespace token between its words
(:func:`across_line_breaks`).
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
from functools import cache, cached_property, lru_cache

from lkmlkb.extract.lines import trie_pattern
from lkmlkb.extract.nlp.cue_files import CueFileError, load_patterns

log = logging.getLogger(__name__)

_lock = threading.Lock()


def _mark_mail_breaks(doc, text: str) -> None:
    """Start sentences after a blank line and at "1)"/"2." list items or "Tag:" lines on a new line.

    Mail has few full stops: a blank line ends a sentence, and so does the
    line before a list item or a trailer.  Only tokens holding a line break
    can start such a sentence, so the scan visits those (one per line, found
    from ``text``'s newlines), not every token.
    """
    from spacy.attrs import IDX

    n = len(doc)
    if n < 2:
        return
    starts = doc.to_array([IDX]).tolist()
    seen = -1
    pos = text.find("\n")
    while pos != -1:
        i = bisect.bisect_right(starts, pos) - 1
        if seen < i < n - 1:
            seen = i
            tok, nxt = doc[i], doc[i + 1]
            if "\n\n" in tok.text or (tok.is_space and tok.text.count("\n") >= 2):
                nxt.is_sent_start = True
            elif "\n" in tok.whitespace_ or (tok.is_space and "\n" in tok.text):
                after = doc[i + 2].text if i + 2 < n else None
                if (
                    (nxt.like_num and after in (")", "."))
                    or nxt.text.endswith(":")
                    or (after == ":" and nxt.text[:1].isupper() and "-" in nxt.text)
                ):
                    nxt.is_sent_start = True
        pos = text.find("\n", pos + 1)


@lru_cache(maxsize=1)
def base_nlp():
    """The blank English pipeline with a sentencizer, built once per process.

    Mail's own sentence breaks are added by :func:`_mark_mail_breaks` after
    the sentencizer (see :func:`make_doc`).
    """
    import spacy  # lazy: importing spaCy costs about a second

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    tok = nlp.tokenizer
    # setting an affix function reloads the tokenizer's special cases (1,347 in English, tens of
    # milliseconds each time): they are taken out while the two are set and loaded once after
    # them, the order spaCy's own Tokenizer.from_bytes sets them in (the same cases, the same
    # tokens)
    rules = tok.rules
    tok.rules = {}
    tok.suffix_search = _tail_search(tok.suffix_search)
    tok.infix_finditer = _infix_finditer(tok.infix_finditer)
    tok.rules = rules
    return nlp


def _infix_finditer(finditer):
    """``finditer`` (spaCy's English infix regex), skipped on ASCII words that cannot hold an infix.

    Every English infix consumes one of ``. + - * ^ , ~ : < > = /`` or a
    non-ASCII character (ellipses, dashes, symbols); a word of ASCII letters
    and digits alone has none, and the regex scan of it (most words of an LKP
    table) is skipped.  A test compares both on every corpus word.
    """

    def quick_finditer(text: str):
        if text.isascii() and not _INFIX_CHAR_RE.search(text):
            return ()
        return finditer(text)

    return quick_finditer


_INFIX_CHAR_RE = re.compile(r"[.+\-*^,~:<>=/]")


def _tail_search(search):
    """``search`` (spaCy's end-anchored English suffix regex), skipped where it cannot match.

    spaCy tries the suffix regex (83 alternatives) on every word it splits,
    and Python's ``re`` tries it at every position of the word: much of a
    long message's tokenizing.  No English
    suffix ends in an ASCII digit, and the ones ending in an ASCII letter are
    a unit after a digit ("10ms", "4KB", "km/h": at most four letters) or
    "'s"; any other word ending in a letter or a digit has no suffix.  The
    rest are searched as before (a test compares both on every word of the
    corpus).
    """

    def tail_search(text: str):
        last = text[-1:]
        if last.isascii() and last.isalnum():
            if last.isdigit():
                return None
            if text[-2:-1] not in ("'", "\u2019") and not _DIGIT_RE.search(text, max(0, len(text) - 6)):
                return None
        return search(text)

    return tail_search


_DIGIT_RE = re.compile(r"[0-9]")


def make_doc(nlp, text: str):
    """The Doc of ``text`` (already :func:`_prepare`-d): tokens, sentences, mail's sentence breaks."""
    doc = nlp(text)
    _mark_mail_breaks(doc, text)
    return doc


class TokenPatterns:
    """Cue token patterns matched only where a cue can start (spaCy's Matcher, made sparse).

    spaCy's ``Matcher`` tests every pattern's first token at every token of
    the text: on a long report, most of the extraction time per cue set.
    Every cue pattern starts with (or
    within a few optional tokens of) a literal word, so the positions where a
    match can begin are found by one vectorized lookup of the lower-cased
    tokens, and the pattern is run from those positions only.  Supported:
    ``LOWER``/``TEXT`` (a string or ``{"IN": [...]}``), ``IS_ALPHA``,
    ``IS_SPACE``, and ``OP`` ``?``/``*``; the same matches as spaCy's Matcher
    (all of them, overlaps included; a test compares both on real mail).
    """

    SUPPORTED_KEYS = frozenset({"LOWER", "TEXT", "IS_ALPHA", "IS_SPACE", "OP"})

    def __init__(self, strings):
        self.strings = strings
        #: per pattern: (pid hash, [(column, values | bool, op)])
        self.patterns: list[tuple[int, list[tuple[int, object, str]]]] = []
        #: (column, hash) -> indexes of the patterns a match can start with there
        self.starts: dict[tuple[int, int], list[int]] = {}
        #: per column: the sorted hashes of ``starts`` (built at the first call after an add)
        self._keys: dict[int, object] | None = None

    @classmethod
    def supports(cls, pattern: list[dict]) -> bool:
        """Whether ``pattern`` is in the subset this matcher runs (else spaCy's Matcher does)."""
        for tok in pattern:
            if not set(tok) <= cls.SUPPORTED_KEYS or tok.get("OP", "") not in ("", "?", "*"):
                return False
            for key in ("LOWER", "TEXT"):
                v = tok.get(key)
                if v is not None and not (isinstance(v, str) or (isinstance(v, dict) and set(v) == {"IN"})):
                    return False
            for key in ("IS_ALPHA", "IS_SPACE"):
                if key in tok and not isinstance(tok[key], bool):
                    return False
            if not any(k in tok for k in ("LOWER", "TEXT", "IS_ALPHA", "IS_SPACE")):
                return False
        # a match must be able to begin at a literal word
        return any(("LOWER" in t or "TEXT" in t) and t.get("OP", "") == "" for t in pattern) and all(
            "LOWER" in t or "TEXT" in t for t in pattern[: _first_required(pattern) + 1]
        )

    def add(self, pid: str, pattern: list[dict]) -> None:
        specs = []
        for tok in pattern:
            if "LOWER" in tok or "TEXT" in tok:
                col = _LOWER if "LOWER" in tok else _ORTH
                v = tok.get("LOWER", tok.get("TEXT"))
                words = [v] if isinstance(v, str) else list(v["IN"])  # as written, as spaCy compares them
                specs.append((col, frozenset(self.strings.add(w) for w in words), tok.get("OP", "")))
            else:
                col = _ALPHA if "IS_ALPHA" in tok else _SPACE
                specs.append((col, int(tok.get("IS_ALPHA", tok.get("IS_SPACE"))), tok.get("OP", "")))
        n = len(self.patterns)
        self.patterns.append((self.strings.add(pid), specs))
        self._keys = None
        for col, values, _ in specs[: _first_required(pattern) + 1]:
            for h in values:
                self.starts.setdefault((col, h), []).append(n)

    def __call__(self, doc) -> list[tuple[int, int, int]]:
        """(pattern id hash, start, end) of every match in ``doc``."""
        if not self.patterns or not len(doc):
            return []
        import numpy
        from spacy.attrs import IS_ALPHA, IS_SPACE, LOWER, ORTH

        arr = doc.to_array([LOWER, ORTH, IS_ALPHA, IS_SPACE])
        if self._keys is None:
            self._keys = {
                col: numpy.unique(numpy.fromiter((h for c, h in self.starts if c == col), dtype=arr.dtype))
                for col in (_LOWER, _ORTH)
            }
        candidates: dict[int, set[int]] = {}
        for col in (_LOWER, _ORTH):
            keys = self._keys[col]
            if not len(keys):
                continue
            # membership by binary search in the sorted keys (numpy.isin would sort them and the
            # tokens again at every call)
            values = arr[:, col]
            at = numpy.searchsorted(keys, values)
            at[at == len(keys)] = 0
            for pos in numpy.flatnonzero(keys[at] == values).tolist():
                for n in self.starts[(col, int(arr[pos, col]))]:
                    candidates.setdefault(n, set()).add(pos)
        if not candidates:
            return []
        cols = [arr[:, c].tolist() for c in range(4)]
        out = []
        for n in sorted(candidates):
            pid, specs = self.patterns[n]
            for start in sorted(candidates[n]):
                for end in sorted(_ends(specs, cols, start)):
                    if end > start:
                        out.append((pid, start, end))
        return out


_LOWER, _ORTH, _ALPHA, _SPACE = range(4)


def _first_required(pattern: list[dict]) -> int:
    """Index of the first token of ``pattern`` without an optional OP (len - 1 if none)."""
    for i, tok in enumerate(pattern):
        if tok.get("OP", "") == "":
            return i
    return len(pattern) - 1


def _ends(specs: list, cols: list[list[int]], start: int) -> set[int]:
    """Every token index where ``specs`` can end when matched from token ``start``.

    A walk over (pattern position, token) states, each visited once, so a
    long run of words a ``*`` accepts costs time in its length, not more.
    """
    n = len(cols[0])
    ends: set[int] = set()
    seen: set[tuple[int, int]] = set()
    todo = [(0, start)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        si, pos = state
        if si == len(specs):
            ends.add(pos)
            continue
        col, want, op = specs[si]
        if op in ("?", "*"):
            todo.append((si + 1, pos))  # the token left out
        if pos < n:
            have = cols[col][pos]
            if (have in want) if col <= _ORTH else (have == want):
                todo.append((si if op == "*" else si + 1, pos + 1))
    return ends


def across_line_breaks(words: list[dict]) -> list[dict]:
    """``words`` (a token pattern) with an optional whitespace token between each two of its tokens
    that are not whitespace themselves: "caused by" also matches "caused\nby" (a wrapped line) and
    "caused  by"; a blank line ends the paragraph a cue is read in, so no cue spans one.

    Not after optional words that begin a pattern: a match would begin at the whitespace."""
    out: list[dict] = []
    required = False
    for tok in words:
        if required and "IS_SPACE" not in tok and "IS_SPACE" not in out[-1]:
            out.append({"IS_SPACE": True, "OP": "?"})
        out.append(tok)
        required = required or tok.get("OP", "") in ("", "+")
    return out


class CuePipeline:
    """A blank pipeline plus sparse token patterns and a PhraseMatcher holding cue patterns by id."""

    def __init__(self, names: tuple[str, ...]):
        from spacy.matcher import Matcher, PhraseMatcher
        from spacy.schemas import validate_token_pattern

        # one tokenizer and vocabulary for every cue set, so one parse of a text serves them all
        self.nlp = base_nlp()
        self.matcher = Matcher(self.nlp.vocab, validate=True)
        self.tokens = TokenPatterns(self.nlp.vocab.strings)
        self.phrases = PhraseMatcher(self.nlp.vocab, attr="LOWER")
        self.labels: dict[str, str] = {}
        self.patterns: dict[str, object] = {}
        #: per pattern id: the token pattern matched (a phrase of several words made one, each
        #: with line breaks allowed between its words); single words stay the PhraseMatcher's
        self.token_patterns: dict[str, list[dict]] = {}
        self._anchor_res: dict[frozenset[str], object] = {}
        for name in names:
            for pat in load_patterns(name):
                if pat["id"] in self.labels:
                    raise CueFileError(name, f"id {pat['id']!r} also used in another cue file")
                self.labels[pat["id"]] = pat["label"]
                self.patterns[pat["id"]] = pat["pattern"]
                words = pat["pattern"]
                if isinstance(words, str):
                    phrase = [t.lower_ for t in self.nlp.make_doc(words) if not t.is_space]
                    if len(phrase) == 1:
                        self.phrases.add(pat["id"], [self.nlp.make_doc(words)])
                        continue
                    # the phrase's words, as the PhraseMatcher compares them
                    words = [{"LOWER": w} for w in phrase]
                errors = validate_token_pattern(words)  # spaCy's check, also for those it will not run
                if errors:
                    raise CueFileError(f"{name}.jsonl", f"pattern {pat['id']!r}: {'; '.join(errors)}")
                words = self.token_patterns[pat["id"]] = across_line_breaks(words)
                if TokenPatterns.supports(words):
                    self.tokens.add(pat["id"], words)
                    continue
                try:
                    self.matcher.add(pat["id"], [words])
                except (ValueError, KeyError) as exc:
                    raise CueFileError(f"{name}.jsonl", f"pattern {pat['id']!r}: {exc}") from exc
        log.debug("built spaCy cue pipeline %s with %d patterns", names, len(self.labels))

    def matches(self, doc, keep=None) -> list[tuple[str, str, int, int]]:
        """(label, id, start token, end token): the longest match per (label, start).

        ``keep(start, end)`` drops matches before the longest is chosen (a cue
        across two paragraphs of a :class:`Reading` is no cue).
        """
        best: dict[tuple[str, int], tuple[str, str, int, int]] = {}
        found = (
            self.tokens(doc)
            + (list(self.matcher(doc)) if len(self.matcher) else [])
            + list(self.phrases(doc))
        )
        for match_id, start, end in found:
            if keep is not None and not keep(start, end):
                continue
            pid = self.nlp.vocab.strings[match_id]
            label = self.labels[pid]
            key = (label, start)
            if key not in best or end > best[key][3]:
                best[key] = (label, pid, start, end)
        return sorted(best.values(), key=lambda m: (m[2], m[3]))

    @cached_property
    def anchor_words(self) -> dict[str, frozenset[str]]:
        """Per pattern id: lower-cased words one of which every match holds as a token.

        One required token of the pattern: the one with the fewest words, then
        the one whose shortest word is longest (rarer in mail); a match of the pattern has a token whose
        lower case is one of them, so a paragraph whose lower-cased text holds
        none of them cannot match.
        """
        out = {}
        for pid in self.labels:
            pattern = self.patterns[pid]
            if isinstance(pattern, str):
                options = [frozenset([t.lower_]) for t in self.nlp.make_doc(pattern) if not t.is_space]
            else:
                options = []
                for tok in pattern:
                    v = tok.get("LOWER", tok.get("TEXT"))
                    if v is None or tok.get("OP", "") not in ("", "+"):
                        continue
                    words = [v] if isinstance(v, str) else v.get("IN", []) if isinstance(v, dict) else []
                    if words and all(isinstance(w, str) and w for w in words):
                        options.append(frozenset(w.lower() for w in words))
            out[pid] = min(options, key=lambda ws: (len(ws), -min(map(len, ws)))) if options else frozenset()
        return out

    def anchor_re(self, labels: frozenset[str]):
        """A regex finding, in lower-cased text, a word every cue of ``labels`` needs (None: any text can match)."""
        if labels not in self._anchor_res:
            self._anchor_res[labels] = self._anchor_re(labels)
        return self._anchor_res[labels]

    def _anchor_re(self, labels: frozenset[str]):
        words: set[str] = set()
        for pid, label in self.labels.items():
            if label in labels:
                if not self.anchor_words[pid]:
                    return None
                words |= self.anchor_words[pid]
        if not words:
            return re.compile(r"(?!)")
        # a word is a token of its own: not the "down" of "down_read", the "hit" of "perf-c2c.HITM"
        # (spaCy splits no run of letters, digits and "_"); a contraction's "n't" follows its verb
        whole = {w for w in words if w[0].isalnum() and w[-1].isalnum() and "'" not in w}
        parts = [rf"(?<![a-z0-9_])(?:{trie_pattern(whole)})(?![a-z0-9_])"] if whole else []
        if words - whole:
            parts.append(trie_pattern(words - whole))
        return re.compile("|".join(parts))  # the longest word at a place, as finditer needs


@cache
def _build(names: tuple[str, ...]) -> CuePipeline:
    """The cue pipeline for the named cue files (cached: built once per process)."""
    return CuePipeline(names)


def get_pipeline(*names: str):
    """The cached pipeline holding the cue files ``names`` (thread-safe build)."""
    key = tuple(sorted(set(names)))
    with _lock:
        return _build(key)


#: spaCy's vocabulary keeps every word it has read (SHAs, numbers, paths: hundreds of bytes each,
#: a few new words for every message read); past this many the pipelines are rebuilt, so a
#: worker's memory stays flat over a whole archive (a rebuild is a fraction of a second)
MAX_LEXEMES = 100_000


def vocab_over_limit() -> bool:
    """Whether the pipelines built in this process hold more than MAX_LEXEMES words."""
    return base_nlp.cache_info().currsize > 0 and len(base_nlp().vocab) > MAX_LEXEMES


def drop_pipelines() -> None:
    """Drop the pipelines built in this process; the next use builds them afresh."""
    with _lock:
        _build.cache_clear()
        base_nlp.cache_clear()
