"""How the cue extractors read a text: paragraph by paragraph, only where they ask.

An extractor asks :func:`parse` for the paragraphs near its regex hits (SHAs,
versions) or holding a word its cues need, and only those are tokenized;
:func:`cues`, :func:`sentence_bounds` and :func:`tokens_before` answer in the
text's character offsets.  An extractor that looks no farther than a reach
from its hits (kernels, claims) has a long paragraph read only in windows
around them (a 58 KB LKP table holding "%change" is read in 3 KB), and a
flood (a long paragraph with over FLOOD_HITS hits) is read up to
MAX_PARAGRAPH_READ chars.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property

from lkmlkb.extract.lines import OpensALine
from lkmlkb.extract.nlp.matcher import CuePipeline, base_nlp, drop_pipelines, get_pipeline, make_doc

#: texts longer than this are cut before spaCy sees them (a thread dump is far below)
MAX_DOC_CHARS = 100_000
#: the cue extractors tokenize at most this many chars of a flood (a paragraph holding more
#: than FLOOD_HITS of what one of them looks for); lines past it are not read (no cues, no
#: sentences).  Floods are rare and hold no report past their start (the test robot's build
#: reports: compiler warnings, git-blame listings): what a cue finds deeper in one is taken
#: from a code comment ("due to", "parent"), a false role
MAX_PARAGRAPH_READ = 10_000


@dataclass(frozen=True)
class Cue:
    """One cue phrase found in a text: its label, pattern id and char span."""

    label: str
    id: str
    start: int
    end: int
    text: str
    sent_start: int
    sent_end: int


def rebuild_pipelines() -> None:
    """Drop the pipelines and what was read with them; the next parse builds them afresh
    (same rules, same findings: nothing read depends on what an earlier text added)."""
    _LAST_READING[0] = _LAST_READING[1] = None
    drop_pipelines()


class Reading:
    """One text as the cue extractors read it: paragraph by paragraph, only where asked.

    spaCy's tokenizer costs most of extraction's time, per character, and a
    cue only matters near what an extractor found (a version, a SHA, a word a
    claim needs).  A sentence never spans a blank line (see
    :func:`_mark_mail_breaks`), so the text is cut into *paragraphs* at blank
    lines and each extractor asks for the ones it needs; those not yet read
    are joined by a blank line and tokenized as one Doc.  Tokens, sentences
    and cues are those of the whole text's Doc (character offsets are of the
    text), with two differences by design: a cue never spans a blank line,
    and the tokens before a cue (for negations) stop at its paragraph's start.
    A test compares them with the whole Doc on real mail.
    """

    def __init__(self, nlp, text: str):
        self.nlp = nlp
        self.text = _prepare(text)
        self.raw = text[:MAX_DOC_CHARS]  # as long as ``text``: what the extractors' own regexes read
        self.starts, self.ends = _paragraphs(self.text)
        #: paragraph -> its Doc's record
        self.record_of: dict[int, _Record] = {}
        #: paragraph -> (start, end, record) of each window of it read (see :meth:`read_windows`)
        self.window_records: dict[int, list[tuple[int, int, _Record]]] = {}
        #: (cue pipeline, paragraph) of each flood (see FLOOD_HITS): that extractor reads the
        #: paragraph only up to its cut (:meth:`cut_point`, a function of the paragraph alone),
        #: in records kept apart from the uncut ones, so no extractor's findings depend on which
        #: one read the text first
        self.floods: set[tuple[object, int]] = set()
        self.cuts: dict[int, int] = {}
        #: paragraph -> its cut record / its cut windows, shared by the extractors it floods
        self.flood_record_of: dict[int, _Record] = {}
        self.flood_window_records: dict[int, list[tuple[int, int, _Record]]] = {}
        self.unread = 0  # chars of flood paragraphs past their cuts

    def paragraph_at(self, pos: int) -> int | None:
        """The paragraph holding char ``pos`` (None: in a blank-line gap or past the end)."""
        i = bisect.bisect_right(self.starts, pos) - 1
        if i < 0 or pos >= self.ends[i]:
            return None
        return i

    def paragraph_before(self, pos: int) -> int | None:
        """The paragraph holding ``pos`` or, in a blank-line gap, the one before it (its last
        sentence runs on over the gap in the whole text unless it ends in a full stop)."""
        i = bisect.bisect_right(self.starts, pos) - 1
        return i if i >= 0 and pos < len(self.text) else None

    def near(self, positions, lookback: int = 0) -> set[int]:
        """Paragraphs holding ``positions`` (see :meth:`paragraph_before`), and those ending
        within ``lookback`` chars before each of them."""
        held = {i for i in map(self.paragraph_before, positions) if i is not None}
        out = set(held)
        for i in held:
            j = i - 1
            while lookback and j >= 0 and self.ends[j] >= self.starts[i] - lookback:
                out.add(j)
                j -= 1
        return out

    @cached_property
    def low(self) -> str:
        """The text lower-cased (what the anchor regexes search)."""
        return self.text.lower()

    def holding(self, rx) -> set[int]:
        """Paragraphs whose lower-cased text ``rx`` finds something in (all of them when ``rx`` is None)."""
        if rx is None:
            return set(range(len(self.starts)))
        low = self.low
        if len(low) != len(self.text):  # a character that lower-cases to two: paragraph by paragraph
            return {
                i for i, (a, b) in enumerate(zip(self.starts, self.ends)) if rx.search(self.text[a:b].lower())
            }
        out: set[int] = set()
        pos = 0
        while True:
            m = rx.search(low, pos)
            if m is None:
                return out
            i = self.paragraph_at(m.start())
            if i is None:
                pos = m.start() + 1
                continue
            out.add(i)
            pos = self.ends[i]

    def holding_raw(self, rx, among: set[int]) -> set[int]:
        """Those of ``among`` whose text as given (not as spaCy is shown it) ``rx`` (a regex
        that ignores case) finds something in, up to the next paragraph: what spaCy was not
        shown at a paragraph's end is in its gap."""
        nxt = self.starts[1:] + [len(self.raw)]
        return {i for i in among if rx.search(self.raw, self.starts[i], nxt[i])}

    def hits(self, rx, i: int) -> list[int] | None:
        """Where ``rx`` finds something in paragraph ``i``'s lower-cased text (None: lower-casing
        moved offsets, so positions are not the text's)."""
        if len(self.low) != len(self.text):
            return None
        return [m.start() for m in rx.finditer(self.low, self.starts[i], self.ends[i])]

    def window(self, i: int, lo: int, hi: int) -> tuple[int, int]:
        """The span of paragraph ``i`` read for ``lo``..``hi``: whole lines, from the first
        non-blank character of a line starting at or before ``lo`` to the last of a line
        ending at or after ``hi`` (clipped to the paragraph)."""
        text, first, last = self.text, self.starts[i], self.ends[i]
        a = first
        if lo > first:
            ls = text.rfind("\n", first, lo) + 1
            while ls > first:
                a = _WS_RUN_RE.match(text, ls).end()
                if a <= lo:
                    break
                ls = text.rfind("\n", first, ls - 1) + 1
            else:
                a = first
        b = last
        if hi < last:
            le = text.find("\n", hi, last)
            while le != -1:
                b = le
                while text[b - 1].isspace():  # a line in a paragraph is not blank
                    b -= 1
                if b >= hi:
                    break
                le = text.find("\n", le + 1, last)
            else:
                b = last
        if lo - a > LONG_LINE_SLACK:
            a = self._word_start(a, lo)
        if b - hi > LONG_LINE_SLACK:
            b = self._word_end(hi, b)
        return a, b

    def _word_start(self, a: int, lo: int) -> int:
        """The last place in ``a``..``lo`` where a window can start inside a line: a word after
        a single space after a letter or digit (the word before ends no sentence and is no
        punctuation, so the sentencizer is where a new text would start it); else ``a``."""
        text = self.text
        pos = text.rfind(" ", a + 1, lo)
        while pos != -1:
            if (
                text[pos - 1].isascii()
                and text[pos - 1].isalnum()
                and pos + 1 < lo
                and not text[pos + 1].isspace()
            ):
                return pos + 1
            pos = text.rfind(" ", a + 1, pos)
        return a

    def _word_end(self, hi: int, b: int) -> int:
        """The first place in ``hi``..``b`` where a window can end inside a line: before a
        single space after a letter or digit, past the line's first two words (what a line
        break's sentence mark looks at, see :func:`_mark_mail_breaks`); else ``b``."""
        text = self.text
        pos = text.find(" ", hi, b)
        while pos != -1:
            if (
                text[pos - 1].isascii()
                and text[pos - 1].isalnum()
                and pos + 1 < b
                and not text[pos + 1].isspace()
            ):
                j = pos - 1
                while j >= 0 and not text[j].isspace():  # to the start of the word ending here
                    j -= 1
                while j >= 0 and text[j] in " \t":
                    j -= 1
                if j >= 0 and text[j] != "\n":  # a word before it on its line
                    return pos
            pos = text.find(" ", pos + 1, b)
        return b

    def windows_for(self, i: int, positions, reach: int) -> list[tuple[int, int]]:
        """The windows of paragraph ``i`` holding every char within ``reach`` of ``positions``, merged."""
        out: list[tuple[int, int]] = []
        for pos in sorted(positions):
            if out and pos + reach <= out[-1][1]:
                continue
            a, b = self.window(i, pos - reach, pos + reach)
            if out and (
                a <= out[-1][1] or self.text[out[-1][1] : a].isspace()
            ):  # overlapping, or the next line
                out[-1] = (out[-1][0], max(b, out[-1][1]))
            else:
                out.append((a, b))
        return out

    @property
    def records(self) -> list[_Record]:
        """The Docs made so far, in the order they were made."""
        recs = [
            *self.record_of.values(),
            *self.flood_record_of.values(),
            *(
                rec
                for ws in (*self.window_records.values(), *self.flood_window_records.values())
                for _, _, rec in ws
            ),
        ]
        return list({id(rec): rec for rec in recs}.values())

    def read_windows(
        self, windows: dict[int, list[tuple[int, int]]], pipe=None
    ) -> list[tuple[int, int, int, _Record]]:
        """(paragraph, start, end, record) of each window asked for: the paragraph's record
        when it was read whole, else a window read before that holds it, else a new one
        (those not read yet are tokenized as one Doc, joined by blank lines).  Of a flood of
        ``pipe``'s, the records are that pipeline's own, cut (:meth:`clip`)."""
        out, todo = [], []
        for i in sorted(windows):
            whole, made = self._stores(pipe, i)
            for a, b in windows[i]:
                rec = whole.get(i)
                if rec is None:
                    rec = next((r for a2, b2, r in made.get(i, ()) if a2 <= a and b <= b2), None)
                if rec is None:
                    todo.append((i, a, b))
                out.append([i, a, b, rec])
        if todo:
            pieces = [(i, self.clip(i, a, b, pipe)) for i, a, b in todo]
            rec = _Record(
                self,
                [i for i, (a, b) in pieces if b > a],
                [s for _, s in pieces if s[1] > s[0]],
                first=todo[0][0],
            )
            for i, a, b in todo:
                self._stores(pipe, i)[1].setdefault(i, []).append((a, b, rec))
            for row in out:
                if row[3] is None:
                    row[3] = rec
        return [tuple(row) for row in out]

    def _stores(self, pipe, i: int) -> tuple[dict, dict]:
        """Where paragraph ``i``'s whole record and windows are kept for ``pipe``: with the
        uncut ones, or, if it floods ``pipe``, with the cut ones."""
        if (pipe, i) in self.floods:
            return self.flood_record_of, self.flood_window_records
        return self.record_of, self.window_records

    def read(self, paragraphs: set[int], pipe=None) -> list[_Record]:
        """The records holding ``paragraphs``, tokenizing those not read yet (as one Doc); a
        paragraph that floods ``pipe`` is read up to its cut."""

        def stored(i):
            return self._stores(pipe, i)[0].get(i)

        todo = sorted(i for i in paragraphs if stored(i) is None)
        if todo:
            pieces = [(i, self.clip(i, self.starts[i], self.ends[i], pipe)) for i in todo]
            rec = _Record(
                self,
                [i for i, (a, b) in pieces if b > a],
                [s for _, s in pieces if s[1] > s[0]],
                first=todo[0],
            )
            for i in todo:
                self._stores(pipe, i)[0][i] = rec
        out = {id(rec): rec for rec in map(stored, paragraphs)}
        return sorted(out.values(), key=lambda r: r.first)

    def clip(self, i: int, a: int, b: int, pipe=None) -> tuple[int, int]:
        """``a``..``b`` of paragraph ``i``, ended at the paragraph's cut if it floods ``pipe``
        (``a``..``a``: nothing left)."""
        if (pipe, i) not in self.floods:
            return a, b
        b = min(b, self.cut_point(i))
        return min(a, b), b

    def cut_point(self, i: int) -> int:
        """Where a flood paragraph is read up to: after the last line (else word) ending within
        MAX_PARAGRAPH_READ chars of its start."""
        cut = self.cuts.get(i)
        if cut is None:
            a, b = self.starts[i], self.ends[i]
            cut = b
            if b - a > MAX_PARAGRAPH_READ:
                cut = self.text.rfind("\n", a, a + MAX_PARAGRAPH_READ + 1)
                cut = max(a, cut if cut != -1 else self.text.rfind(" ", a, a + MAX_PARAGRAPH_READ + 1))
            self.cuts[i] = cut
            self.unread += b - cut
        return cut


#: a blank line: two line breaks with only spaces or tabs between (widened to the whole
#: whitespace run around it by :func:`_paragraphs`)
_BLANK_LINE_RE = re.compile(r"\n[^\S\n]*\n")
_WS_RUN_RE = re.compile(r"\s*")
_SEPARATOR = "\n\n"


def _paragraphs(text: str) -> tuple[list[int], list[int]]:
    """Start and end offsets of the paragraphs of ``text``: what lies between whitespace
    runs holding two line breaks (the first starts at 0 unless the text starts with a
    blank line, the last ends at the end unless it ends with one; empty ones are left out)."""
    starts, ends = [], []
    begin, pos = 0, 0
    while True:
        m = _BLANK_LINE_RE.search(text, pos)
        if m is None:
            break
        a = m.start()
        while a > begin and text[a - 1].isspace():
            a -= 1
        b = _WS_RUN_RE.match(text, m.end()).end()
        if a > begin:
            starts.append(begin)
            ends.append(a)
        begin = pos = b
    if len(text) > begin:
        starts.append(begin)
        ends.append(len(text))
    return starts, ends


class _Record:
    """One Doc of a :class:`Reading`: some of its paragraphs joined by blank lines."""

    def __init__(self, reading: Reading, paragraphs: list[int], spans: list[tuple[int, int]], first: int):
        self.reading = reading
        self.paragraphs = paragraphs  # per piece: its paragraph (a paragraph's windows are pieces too)
        self.first = first  # the first paragraph asked for (a piece may be cut to nothing)
        text = reading.text
        #: per piece: where the whole text's sentence runs on past its end (a window's end: cut there)
        self.cut_ends = [b if b < reading.ends[i] else None for i, (_, b) in zip(paragraphs, spans)]
        parts, self.cstarts, self.ostarts, self.lengths = [], [], [], []
        pos = 0
        for a, b in spans:
            parts.append(text[a:b])
            self.cstarts.append(pos)
            self.ostarts.append(a)
            self.lengths.append(b - a)
            pos += b - a + len(_SEPARATOR)
        # a separator after the last one too, unless it ends the text: every paragraph's last
        # sentence runs on over a blank line as in the whole text (or ends where the text does)
        tail = "" if spans and spans[-1][1] == len(text) else _SEPARATOR
        self.doc = make_doc(reading.nlp, _SEPARATOR.join(parts) + tail)
        self.cues: dict[int, list[Cue]] = {}  # per cue pipeline
        self._sents = None

    def piece_of(self, cpos: int) -> int:
        return bisect.bisect_right(self.cstarts, cpos) - 1

    def covers(self, i: int, pos: int) -> bool:
        """Whether char ``pos`` of paragraph ``i`` was read into this Doc (not past a flood's cut)."""
        k = bisect.bisect_right(self.ostarts, pos) - 1
        return k >= 0 and self.paragraphs[k] == i and pos < self.ostarts[k] + self.lengths[k]

    def to_doc(self, pos: int) -> int:
        """Doc offset of text offset ``pos`` (a paragraph of this record holds it)."""
        k = bisect.bisect_right(self.ostarts, pos) - 1
        return self.cstarts[k] + pos - self.ostarts[k]

    def to_text(self, cpos: int, end: bool = False) -> int:
        """Text offset of Doc offset ``cpos``; an end inside a separator is where the
        whole text's blank-line run ends (the next paragraph's start)."""
        k = self.piece_of(cpos - 1 if end and cpos > 0 else cpos)  # an end belongs with the char before it
        off = cpos - self.cstarts[k]
        if off < self.lengths[k] or (end and off == self.lengths[k]):
            return self.ostarts[k] + off
        if self.cut_ends[k] is not None:
            return self.cut_ends[k]
        i = self.paragraphs[k]
        r = self.reading
        return r.starts[i + 1] if i + 1 < len(r.starts) else len(r.text)

    def sentences(self) -> tuple[list[int], list[tuple[int, int]]]:
        """(first token, (start, end) text offsets) of each sentence holding paragraph text.

        Each paragraph is followed by a blank line here as in the whole text,
        so the sentencizer ends its last sentence as there: at a full stop,
        or else over the blank line (its end is then the next paragraph's start).
        """
        if self._sents is None:
            firsts, bounds = [], []
            for s in self.doc.sents:
                k = self.piece_of(s.start_char)
                if s.start_char - self.cstarts[k] >= self.lengths[k]:
                    continue  # a separator on its own
                firsts.append(s.start)
                bounds.append(
                    (self.ostarts[k] + s.start_char - self.cstarts[k], self.to_text(s.end_char, end=True))
                )
            self._sents = (firsts, bounds)
        return self._sents

    def sentence_of(self, token: int) -> tuple[int, int]:
        firsts, bounds = self.sentences()
        return bounds[max(0, bisect.bisect_right(firsts, token) - 1)]

    def crosses(self, start: int, end: int) -> bool:
        """Whether tokens ``start``..``end`` of the Doc span two paragraphs."""
        doc = self.doc
        return self.piece_of(doc[start].idx) != self.piece_of(doc[end - 1].idx)

    def cues_of(self, pipe) -> list[tuple[int, Cue]]:
        """(paragraph, cue) of every match of ``pipe``'s patterns in this Doc."""
        got = self.cues.get(id(pipe))
        if got is None:
            doc = self.doc
            got = []
            for label, pid, start, end in pipe.matches(doc, keep=lambda a, b: not self.crosses(a, b)):
                span = doc[start:end]
                s0, s1 = self.sentence_of(start)
                got.append(
                    (
                        self.paragraphs[self.piece_of(span.start_char)],
                        Cue(
                            label,
                            pid,
                            self.to_text(span.start_char),
                            self.to_text(span.end_char, end=True),
                            " ".join(span.text.split()),  # a cue wrapped over two lines, on one
                            s0,
                            s1,
                        ),
                    )
                )
            self.cues[id(pipe)] = got
        return got


_LAST_READING: list = [
    None,
    None,
]  # (input text, Reading): kernels, commits and claims read one message in turn


def reading_of(text: str) -> Reading:
    """The :class:`Reading` of ``text`` (the last one is kept for the next extractor)."""
    if not isinstance(text, str):
        text = ""
    if _LAST_READING[0] is not None and _LAST_READING[0] == text:
        return _LAST_READING[1]
    r = Reading(base_nlp(), text)
    _LAST_READING[0], _LAST_READING[1] = text, r
    return r


@dataclass
class CueDoc:
    """What :func:`parse` returns: a :class:`Reading`, a cue pipeline, the paragraphs asked
    for and, of long paragraphs, the windows asked for (paragraph -> sorted disjoint spans)."""

    reading: Reading
    pipe: CuePipeline
    paragraphs: set[int]
    windows: dict[int, list[tuple[int, int]]] = field(default_factory=dict)


#: a window's edge falls inside a line (between two words) when the line runs on this far past it
LONG_LINE_SLACK = 100
#: a paragraph longer than this is read in windows by an extractor that gives its reach...
WINDOW_ABOVE = 1_000
#: ... unless they would cover more than this share of it
WINDOW_SHARE = 0.5


def parse(
    text: str,
    *names: str,
    near=None,
    lookback: int = 0,
    anchors=None,
    weak_anchors=None,
    weak_needs=None,
    reach: int | None = None,
    also_near=None,
) -> CueDoc:
    """Read ``text`` (cut to MAX_DOC_CHARS) for the cue files ``names``.

    Which paragraphs are read: all of them by default; with ``near``
    (character offsets), those holding them and those ending within
    ``lookback`` characters before; with ``anchors`` (cue labels), those
    holding a word a cue of those labels needs, and with ``weak_anchors``
    (more labels) also those holding a word one of those needs and a match
    of ``weak_needs`` (a regex that ignores case, on the paragraph as given).  Offsets are of
    ``text``; see :func:`_prepare` for what spaCy is not shown.

    With ``reach`` (chars), a paragraph over WINDOW_ABOVE chars holding those
    offsets or words is read only in windows: whole lines around each offset
    or word (any of the labels'), ``reach`` chars on either side at least.  For
    an extractor that looks no farther than ``reach`` from them: in a window,
    tokens and cues are the whole text's (but for a cue running over its edge),
    and so is a sentence, cut at the window's edges (:func:`sentence_bounds`
    gives ``(max(start, window start), min(end, window end))``);
    :func:`tokens_before` reads the whole paragraph when the window is too short.
    ``also_near`` (offsets, with ``near``) widen the windows of the paragraphs ``near``
    chose but count toward no flood (the end of a version whose start is in ``near``).
    """
    pipe = get_pipeline(*names)
    r = reading_of(text)
    if near is not None:
        paragraphs = r.near(near, lookback)
    elif anchors is not None:
        paragraphs = r.holding(pipe.anchor_re(frozenset(anchors)))
        if weak_anchors:
            weak = r.holding(pipe.anchor_re(frozenset(weak_anchors))) - paragraphs
            paragraphs |= r.holding_raw(weak_needs, weak) if weak_needs is not None else weak
    else:
        paragraphs = set(range(len(r.starts)))
    windows: dict[int, list[tuple[int, int]]] = {}
    big = [i for i in sorted(paragraphs) if r.ends[i] - r.starts[i] > WINDOW_ABOVE]
    if big and (near is not None or anchors is not None):
        at: dict[int, list[int]] = {}
        counted: dict[int, int] = {}
        if near is not None:
            for p in near:
                i = r.paragraph_before(p)
                if i is not None:
                    at.setdefault(i, []).append(min(p, r.ends[i] - 1))
            counted = {i: len(ps) for i, ps in at.items()}
            for p in also_near or ():
                i = r.paragraph_before(p)
                if i in at:
                    at[i].append(min(p, r.ends[i] - 1))
        rxs = (
            []
            if near is not None
            else [pipe.anchor_re(frozenset(anchors))]
            + ([pipe.anchor_re(frozenset(weak_anchors))] if weak_anchors else [])
        )
        for i in big:
            if near is not None:
                hits = at.get(i)  # none: a paragraph ending within ``lookback``, read whole
            else:
                hits = []
                for rx in rxs:
                    found = r.hits(rx, i) if rx is not None else None
                    if found is None:  # any text can match, or offsets moved: the whole paragraph
                        hits = None
                        break
                    hits += found
            if (
                hits
                and (counted.get(i, 0) if near is not None else len(hits)) > FLOOD_HITS
                and r.ends[i] - r.starts[i] > MAX_PARAGRAPH_READ
            ):  # a shorter one has nothing to cut
                r.floods.add((pipe, i))
            if hits and reach is not None:
                spans = r.windows_for(i, hits, reach)
                if sum(b - a for a, b in spans) <= WINDOW_SHARE * (r.ends[i] - r.starts[i]):
                    windows[i] = spans  # else the paragraph is read whole, a Doc other extractors share
        paragraphs -= set(windows)
    return CueDoc(r, pipe, paragraphs, windows)


#: a long paragraph holding more than this many of what one extractor looks for (versions,
#: SHAs, claim words) is a flood: at most MAX_PARAGRAPH_READ chars of it are read
FLOOD_HITS = 200


def doc_text(doc: CueDoc) -> str:
    """The text the cue pipeline read (prepared and cut; offsets are the input's)."""
    return doc.reading.text


def _prepare(text: str) -> str:
    """What spaCy reads of ``text``: same length, so character offsets still point into it.

    NULs and other control characters become spaces.  Quote markers become
    spaces: a quoted blank line ("> > >") separates sentences like a blank
    line does.  Long punctuation runs (rulers, ">>>>", "[[[[") and 400+
    character words hold no cue, and spaCy's tokenizer strips them one affix
    at a time, rescanning the rest each time (time in the square of the
    run's length): blanked.
    """
    text = text[:MAX_DOC_CHARS]
    text = _CONTROL_RE.sub(" ", text)
    if _QUOTE_PREFIX_OPENS.search(text):  # most views hold no marker: their quotes come stripped
        text = _QUOTE_PREFIX_RE.sub(_blank, text)
    # a 400+ character word lies within one line: without such a line only the punctuation
    # runs can match, and their pattern alone costs less than the two (tests: same output)
    if max(map(len, text.split("\n"))) >= LONG_WORD:
        rx = _PUNCT_RUN_RE
    else:
        rx = _PUNCT_ASCII_RE if text.isascii() else _PUNCT_ONLY_RE
    return rx.sub(_blank, text)


def _blank(m: re.Match) -> str:
    """As many spaces as the match has characters (offsets stay the input's)."""
    return " " * len(m.group(0))


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
#: "> > > " at the start of a line (quoted mail that reached an extractor unstripped)
_QUOTE_PREFIX_RE = re.compile(r"^[ \t]{0,4}>(?:[ \t]{0,2}>){0,30}[ \t]?", re.MULTILINE)
#: whether _QUOTE_PREFIX_RE has a line to blank
_QUOTE_PREFIX_OPENS = OpensALine(r"[ \t]{0,4}>")
#: what spaCy is not shown (blanked, same length); each alternative starts only
#: where its run starts (lookbehind), so the scan is linear
_PUNCT_RUN_RE = re.compile(
    r"""
      (?<![^\w\s])[^\w\s]{16,}   # 16+ punctuation in a row: "=====" rulers, ">>>>" floods
    | (?<!\S)\S{400,}             # a 400+ character word: uuencode, base64, a run with no space
    """,
    re.VERBOSE,
)
#: the length of a word :func:`_prepare` blanks (the second alternative above)
LONG_WORD = 400
#: the first alternative alone: the same matches where no word is LONG_WORD long (a scan
#: from the left reaches a punctuation run at its first character, so the lookbehind, which
#: only spares retries inside a run, changes nothing)
_PUNCT_ONLY_RE = re.compile(r"[^\w\s]{16,}")
#: _PUNCT_ONLY_RE on an ASCII text with its control characters blanked (_CONTROL_RE): there
#: ``[^\w\s]`` is the printable characters but letters, digits, "_" and the space, and this
#: class of ranges is tested faster than the Unicode categories of ``\w`` and ``\s``
_PUNCT_ASCII_RE = re.compile(r"[!-/:-@\[-^`{-~]{16,}")


#: a message with more cue matches than this is flooded, not a report: the rest are ignored
MAX_CUES = 400


def cues(doc: CueDoc) -> list[Cue]:
    """Cue matches in the paragraphs and windows read (overlaps allowed), with their sentence
    bounds (cut at a window's edges)."""
    out: list[Cue] = []
    r = doc.reading
    records = r.read(doc.paragraphs, doc.pipe)
    for rec in records:
        # a Doc made for another extractor may hold more paragraphs: only those asked for count
        out.extend(c for i, c in rec.cues_of(doc.pipe) if i in doc.paragraphs)
    sources = len(records)
    if doc.windows:
        starts: dict[int, list[int]] = {}
        for i, a, b, rec in r.read_windows(doc.windows, doc.pipe):
            got = rec.cues_of(doc.pipe)  # in text order
            if id(rec) not in starts:
                starts[id(rec)] = [c.start for _, c in got]
            k = bisect.bisect_left(starts[id(rec)], a)
            lo, hi = _cut(r, i, a, b)
            for j, c in itertools.islice(got, k, None):
                if c.start >= b:
                    break
                if j == i and c.end <= b:
                    out.append(
                        c
                        if lo is None and hi is None
                        else dataclasses.replace(
                            c,
                            sent_start=max(c.sent_start, lo or 0),
                            sent_end=min(c.sent_end, hi or c.sent_end),
                        )
                    )
            sources += 1
    if sources > 1:
        out.sort(key=lambda c: (c.start, c.end))
    return out[:MAX_CUES]


def _cut(r: Reading, i: int, a: int, b: int) -> tuple[int | None, int | None]:
    """Where a window ``a``..``b`` of paragraph ``i`` cuts a sentence: its start unless that
    is the paragraph's, its end unless that is the paragraph's (None: not cut)."""
    return (a if a > r.starts[i] else None), (b if b < r.ends[i] else None)


def _record_for(doc: CueDoc, i: int, pos: int) -> tuple[_Record, int | None, int | None]:
    """The record answering for char ``pos`` of paragraph ``i``, and where it cuts sentences:
    the window of ``doc`` holding ``pos``, else the whole paragraph (read if need be)."""
    r = doc.reading
    spans = doc.windows.get(i)
    if spans:
        k = bisect.bisect_right(spans, (pos, len(r.text) + 1)) - 1
        if k >= 0 and spans[k][0] <= pos <= spans[k][1]:
            a, b = spans[k]
            return (r.read_windows({i: [(a, b)]}, doc.pipe)[0][3], *_cut(r, i, a, b))
    return r.read({i}, doc.pipe)[0], None, None


def sentence_bounds(doc: CueDoc, start: int, end: int) -> tuple[int, int]:
    """Char bounds of the sentence holding chars ``start``..``end`` of the text (its paragraph is read)."""
    r = doc.reading
    i = r.paragraph_at(start)
    if i is None:
        # in a blank-line gap (blanked text, see _prepare): the paragraph before's last
        # sentence, if it runs on over the gap as in the whole text
        j = r.paragraph_before(start)
        if j is None:
            return start, end
        rec, lo, _ = _record_for(doc, j, r.ends[j] - 1)
        if not rec.covers(j, r.ends[j] - 1):
            return start, end
        s0, s1 = rec.sentence_of(
            rec.doc.char_span(rec.to_doc(r.ends[j] - 1), rec.to_doc(r.ends[j]), alignment_mode="expand").start
        )
        s0 = s0 if lo is None else max(s0, lo)
        return (s0, max(s1, end)) if s1 > start else (start, end)
    rec, lo, hi = _record_for(doc, i, start)
    if not rec.covers(i, start):
        return start, end  # past a flood's cut
    cs = rec.to_doc(start)
    ce = rec.to_doc(min(end, r.ends[i] if hi is None else hi))
    span = rec.doc.char_span(cs, max(ce, cs), alignment_mode="expand")
    if span is None or len(span) == 0:
        return start, end
    s0, s1 = rec.sentence_of(span.start)
    s1 = max(s1, rec.to_text(span.end_char, end=True))
    return (s0 if lo is None else max(s0, lo)), (s1 if hi is None else min(s1, hi))


def sentences(doc: CueDoc) -> list[tuple[int, int]]:
    """(start, end) of every sentence in the paragraphs read, in text order."""
    out = []
    r = doc.reading
    for rec in r.read(doc.paragraphs, doc.pipe):
        firsts, bounds = rec.sentences()
        out.extend(
            b
            for first, b in zip(firsts, bounds)
            if rec.paragraphs[rec.piece_of(rec.doc[first].idx)] in doc.paragraphs
        )
    for i, a, b, rec in r.read_windows(doc.windows, doc.pipe):
        lo, hi = _cut(r, i, a, b)
        firsts, bounds = rec.sentences()
        out.extend(
            (s0 if lo is None else max(s0, lo), s1 if hi is None else min(s1, hi))
            for first, (s0, s1) in zip(firsts, bounds)
            if rec.paragraphs[rec.piece_of(rec.doc[first].idx)] == i and s1 > a and s0 < b
        )
    return sorted(set(out))


def tokens_before(doc: CueDoc, pos: int, n: int) -> list:
    """The up to ``n`` tokens before the token at char ``pos``, within its paragraph."""
    r = doc.reading
    i = r.paragraph_at(pos)
    if i is None:
        return []
    rec, lo, _ = _record_for(doc, i, pos)
    while True:
        if not rec.covers(i, pos):
            return []
        cpos = rec.to_doc(pos)
        span = rec.doc.char_span(cpos, cpos + 1, alignment_mode="expand")
        if span is None:
            return []
        first = rec.cstarts[rec.piece_of(cpos)]
        out = [t for t in rec.doc[max(0, span.start - n) : span.start] if t.idx >= first]
        if len(out) == n or lo is None:
            return out
        rec, lo = r.read({i}, doc.pipe)[0], None  # the window starts too close: its whole paragraph
