"""Reading a text paragraph by paragraph gives the whole text's sentences and cues.

The cue extractors tokenize only the paragraphs they need (``reading.Reading``);
what they read there must be what one spaCy Doc of the whole text says: the
same sentence bounds for every token, the same cues — except, by design, a
cue that would span a blank line.  Checked on the corpus threads, each read
whole, one paragraph at a time in a shuffled order, and in two halves.
"""

import bisect
import dataclasses
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.extract import claims as claims_mod
from lkmlkb.extract import kernels as kernels_mod
from lkmlkb.extract.claims import find_claims
from lkmlkb.extract.commits import find_commits
from lkmlkb.extract.kernels import find_kernel_mentions, find_kernels
from lkmlkb.extract.nlp import cue_files, matcher, reading

CORPUS = sorted(
    p for p in (Path(__file__).resolve().parents[2] / "corpus").iterdir() if p.suffix in (".txt", ".mbox")
)
CUE_SETS = ("claims", "commits", "kernels")


def whole_doc(text: str, name: str):
    """Of one Doc of ``text``: each token's sentence (start, end) by its offset, and the cues
    (label, id, start, end, sentence)."""
    pipe = matcher.get_pipeline(name)
    prepared = reading._prepare(text)
    doc = matcher.make_doc(pipe.nlp, prepared)
    sents = [(s.start_char, s.end_char) for s in doc.sents]
    starts = [s.start for s in doc.sents]

    def sent(tok):
        return sents[bisect.bisect_right(starts, tok) - 1]

    def one_paragraph(a, b):  # no blank line inside the match: a cue never spans one, by design
        return not any(doc[t].is_space and doc[t].text.count("\n") >= 2 for t in range(a + 1, b - 1))

    cues = []
    for label, pid, a, b in pipe.matches(doc, keep=one_paragraph):
        span = doc[a:b]
        cues.append((label, pid, span.start_char, span.end_char, sent(a)))
    token_sents = {t.idx: sent(t.i) for t in doc if not t.is_space}
    return token_sents, cues


def read_cues(text: str, name: str, order: list[list[int]] | None = None):
    reading._LAST_READING[0] = None
    r = reading.reading_of(text)
    doc = reading.parse(text, name)
    for group in order or []:
        r.read(set(group))
    return r, doc, [(c.label, c.id, c.start, c.end, (c.sent_start, c.sent_end)) for c in reading.cues(doc)]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_paragraphs_read_as_the_whole_doc(path):
    text = path.read_text(encoding="utf-8", errors="replace")[: reading.MAX_DOC_CHARS]
    rng = random.Random(path.name)
    found = 0
    for name in CUE_SETS:
        token_sents, expected = whole_doc(text, name)
        n = len(reading.reading_of(text).starts)
        shuffled = list(range(n))
        rng.shuffle(shuffled)
        for order in (None, [[i] for i in shuffled], [list(range(0, n, 2)), list(range(1, n, 2))]):
            r, doc, got = read_cues(text, name, order)
            assert got == expected[: reading.MAX_CUES], (path.name, name, order and len(order))
            for pos, bounds in token_sents.items():
                assert reading.sentence_bounds(doc, pos, pos + 1) == bounds, (
                    path.name,
                    pos,
                    text[pos : pos + 30],
                )
        found += len(expected)
    assert n > 3 and found


def test_a_cue_does_not_span_a_blank_line_and_negation_stays_in_its_paragraph():
    text = 'IOPS drop is not\n\nobserved on 6.8.\n\nNot\n\nbisected to 0123456789ab ("block: x")'
    doc = reading.parse(text, "claims")
    assert [c.id for c in reading.cues(doc)] == ["reg-drop"]  # not "is not <blank line> observed"
    doc = reading.parse(text, "commits")
    cue = next(c for c in reading.cues(doc) if c.text == "bisected to")
    assert reading.tokens_before(doc, cue.start, 3) == []
    assert find_commits(text)[0].role == "culprit"


def test_only_paragraphs_that_can_matter_are_tokenized():
    """A long log with one report paragraph: the log is never tokenized, the findings are those of the whole text."""
    log_lines = "\n".join(
        f"[{i:5d}.000000] nvme0n1: I/O {i} QID 3 timeout, completion polled" for i in range(400)
    )
    report = (
        "We see a 12% regression of randread IOPS on v6.8-rc1 compared to v6.7,\n"
        'bisected to commit 0123456789ab ("block: change plugging").'
    )
    text = log_lines + "\n\n" + report + "\n\n" + log_lines
    reading._LAST_READING[0] = None
    kernels, commits, claims = find_kernels(text), find_commits(text), find_claims(text)
    r = reading._LAST_READING[1]
    assert sum(len(rec.doc.text) for rec in r.records) < len(report) + 10
    # the same findings as the report read on its own
    assert [(k.version, k.role) for k in kernels] == [(k.version, k.role) for k in find_kernels(report)]
    assert [(c.sha, c.role) for c in commits] == [("0123456789ab", "culprit")]
    assert [(c.kind, c.stated_pct) for c in claims] == [("regression", 12.0)]
    assert [(k.version, k.role) for k in kernels] == [
        ("6.8-rc1", "bad"),
        ("6.7", "good"),
    ]  # "a regression of"


def test_weak_claim_words_need_a_percentage_in_their_paragraph():
    text = "The numbers look better now.\n\nWith the patch throughput is 9% higher."
    reading._LAST_READING[0] = None
    claims = find_claims(text)
    r = reading._LAST_READING[1]
    assert [(c.kind, c.stated_pct) for c in claims] == [("improvement", 9.0)]
    assert [rec.paragraphs for rec in r.records] == [[1]]


# Edge cases found in review (each failed before its fix).


def test_a_cue_in_the_next_paragraph_is_not_in_the_versions_sentence():
    """Whatever else the text holds: a post-cue after the blank line does not give v6.1 a role."""
    a = "We ran the same job on v6.1\n\nworks fine here, nothing to report."
    b = "We ran the same job on v6.1\n\nworks fine here, unlike v6.8."
    assert [k.role for k in find_kernels(a)] == [None]
    assert find_kernels(b)[0].role is None


def test_claims_do_not_depend_on_what_another_extractor_read_first():
    # a version every 25 words: kernels reads the paragraph whole (its windows would cover it),
    # in one Doc with the next paragraph
    text = (
        " ".join(("v6.1 " if k % 25 == 0 else "") + "better" for k in range(400))
        + "\n\nWe see a 12% regression on v6.2."
    )
    reading._LAST_READING[0] = None
    alone = [(c.kind, c.stated_pct) for c in find_claims(text)]
    reading._LAST_READING[0] = None
    find_kernels(text)  # reads the flood's paragraph first, as the pipeline does
    after = [(c.kind, c.stated_pct) for c in find_claims(text)]
    assert alone == after == [("regression", 12.0)]
    # what makes it mean something: claims read paragraph 1 from the Doc kernels made, which holds
    # the 400 "better" cues of paragraph 0 that claims itself does not read (no "%" there)
    assert reading._LAST_READING[1].record_of[1].paragraphs == [0, 1]


def test_the_percentage_a_weak_claim_needs_is_looked_for_in_the_text_as_written():
    # a run of 16+ punctuation is blanked for spaCy; the "%" in it is still the claim's
    assert [
        (c.kind, c.stated_pct)
        for c in find_claims("With the patch reads are faster by 12%!!!!!!!!!!!!!!!!!!\n\nThanks.")
    ] == [("improvement", 12.0)]


def test_a_lead_in_ending_up_to_300_characters_before_the_sha_is_read():
    lead = "The regression was bisected to"  # the cue ends at 30
    for middle, role in ((294, "culprit"), (295, "culprit"), (296, "mentioned")):  # the SHA at 329, 330, 331
        text = lead + "\n\n" + ("x " * 200)[: middle - 1] + 'y:\n\n0123456789ab ("block: change plugging")'
        assert text.index("0123456789ab") == middle + 35
        assert find_commits(text)[0].role == role, middle


def test_a_sha_glued_to_a_blanked_long_word_keeps_its_sentence():
    text = "The regression was bisected to 0123456789ab,cc" + "x" * 420 + "\n\nThanks."
    assert find_commits(text)[0].role == "culprit"


def test_a_text_ending_in_a_space_ends_its_last_sentence_where_the_whole_doc_does():
    text = "We see it on v6.1 works fine "
    token_sents, _ = whole_doc(text, "kernels")
    reading._LAST_READING[0] = None
    doc = reading.parse(text, "kernels")
    assert reading.sentence_bounds(doc, 13, 17) == token_sents[13]


# Windows: a long paragraph (an LKP comparison table, a pasted trace) is read only
# around what an extractor looks for, when the extractor looks no farther than a
# reach.  Inside a window, tokens, cues and sentences are the whole Doc's; a
# sentence running past the window's edge is cut there.


def _windows_of(doc):
    return [(i, a, b) for i, spans in sorted(doc.windows.items()) for a, b in spans]


def _corpus_text(path, long_lines):
    """A corpus thread; with ``long_lines``, each paragraph's lines joined into one (a window
    then starts and ends between two words of a line)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return re.sub(r"(?<=\S)\n(?=[^\S\n]*\S)", " ", text) if long_lines else text


@pytest.mark.parametrize("long_lines", [False, True], ids=["lines", "long-lines"])
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_a_window_reads_the_whole_docs_cues_and_sentences_up_to_its_edges(path, long_lines, monkeypatch):
    monkeypatch.setattr(reading, "WINDOW_ABOVE", 0)  # every paragraph read in windows
    monkeypatch.setattr(reading, "WINDOW_SHARE", 1.0)
    text = _corpus_text(path, long_lines)[: reading.MAX_DOC_CHARS]
    rng = random.Random(path.name)
    margin = 100  # longer than any cue of the corpus: a cue ending this far inside the window is whole
    checked = 0
    for name in CUE_SETS:
        token_sents, expected = whole_doc(text, name)
        positions = rng.sample(sorted(token_sents), k=min(15, len(token_sents)))
        positions += [
            e[2] + rng.choice((-120, -60, 0, 60)) for e in rng.sample(expected, k=min(8, len(expected)))
        ]
        positions = sorted(p for p in set(positions) if p in token_sents)
        reading._LAST_READING[0] = None
        doc = reading.parse(text, name, near=positions, reach=150)
        windows = _windows_of(doc)
        assert windows and not doc.paragraphs
        got = [(c.label, c.id, c.start, c.end, (c.sent_start, c.sent_end)) for c in reading.cues(doc)]
        r = reading.reading_of(text)

        def cut(i, a, b, s0, s1, r=r):  # a window's edge cuts a sentence, a paragraph's does not
            return (max(s0, a) if a > r.starts[i] else s0), (min(s1, b) if b < r.ends[i] else s1)

        for i, a, b in windows:
            assert a <= b
            want = [
                (lab, pid, s, e, cut(i, a, b, *sent))
                for lab, pid, s, e, sent in expected
                if a <= s and e <= b - margin
            ]
            assert [g for g in got if a <= g[2] and g[3] <= b - margin] == want, (path.name, name, a, b)
            checked += len(want)
        for pos in positions:
            i, a, b = next(w for w in windows if w[1] <= pos < w[2])
            assert a <= pos - 150 or a == r.starts[i]
            assert b >= pos + 150 or b == r.ends[i]
            assert reading.sentence_bounds(doc, pos, pos + 1) == cut(i, a, b, *token_sents[pos]), (
                path.name,
                pos,
            )
    assert checked


@pytest.mark.parametrize("long_lines", [False, True], ids=["lines", "long-lines"])
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_tokens_before_a_cue_in_a_window_are_those_of_its_paragraph(path, long_lines, monkeypatch):
    """Near a window's start, the tokens before a position are read from the whole paragraph."""
    text = _corpus_text(path, long_lines)[: reading.MAX_DOC_CHARS]
    for name in CUE_SETS:
        reading._LAST_READING[0] = None
        whole = reading.parse(text, name)
        cues = reading.cues(whole)
        want = [[t.text for t in reading.tokens_before(whole, c.start, 8)] for c in cues]
        monkeypatch.setattr(reading, "WINDOW_ABOVE", 0)
        monkeypatch.setattr(reading, "WINDOW_SHARE", 1.0)
        reading._LAST_READING[0] = None
        doc = reading.parse(text, name, near=[c.start for c in cues], reach=10)
        got = [[t.text for t in reading.tokens_before(doc, c.start, 8)] for c in cues]
        monkeypatch.setattr(reading, "WINDOW_ABOVE", 10**9)
        assert got == want, (path.name, name)


def _findings(text):
    reading._LAST_READING[0] = None
    return [
        repr([dataclasses.asdict(r) for r in fn(text)]) for fn in (find_kernels, find_commits, find_claims)
    ]


@pytest.mark.parametrize("long_lines", [False, True], ids=["lines", "long-lines"])
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_reading_windows_gives_the_findings_of_reading_whole_paragraphs(path, long_lines, monkeypatch):
    text = _corpus_text(path, long_lines)
    monkeypatch.setattr(reading, "WINDOW_ABOVE", 10**9)
    whole = _findings(text)
    monkeypatch.setattr(reading, "WINDOW_ABOVE", 0)
    monkeypatch.setattr(reading, "WINDOW_SHARE", 1.0)
    assert _findings(text) == whole
    alone = []  # each extractor on a fresh reading: what another read first does not matter
    for fn in (find_kernels, find_commits, find_claims):
        reading._LAST_READING[0] = None
        alone.append(repr([dataclasses.asdict(r) for r in fn(text)]))
    assert alone == whole


def test_an_lkp_comparison_table_is_read_only_around_its_claim_words():
    """The LKP report's 58 KB table is one paragraph holding "%change" and "perf-c2c.HITM"
    ("change", "hit": claim words): the claims are the same, and a few KB are tokenized."""
    path = next(p for p in CORPUS if p.name.startswith("101_lkp"))
    text = path.read_text(encoding="utf-8", errors="replace")
    r = reading.Reading(None, text)
    assert max(b - a for a, b in zip(r.starts, r.ends)) > 50_000
    table = max(range(len(r.starts)), key=lambda i: r.ends[i] - r.starts[i])
    reading._LAST_READING[0] = None
    claims = [(c.kind, c.stated_pct, c.metric, c.evidence.line_start) for c in find_claims(text)]
    read = sum(len(rec.doc.text) for rec in reading._LAST_READING[1].records)
    assert table not in reading._LAST_READING[1].record_of
    assert sum(b - a for a, b, _ in reading._LAST_READING[1].window_records[table]) < 4_000
    assert ("regression", 72.9, "fio.write_iops", 169) in claims  # what the report says
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reading, "WINDOW_ABOVE", 10**9)
        reading._LAST_READING[0] = None
        assert [(c.kind, c.stated_pct, c.metric, c.evidence.line_start) for c in find_claims(text)] == claims
        whole = sum(len(rec.doc.text) for rec in reading._LAST_READING[1].records)
    assert whole > 90_000 and read < 40_000


@pytest.mark.parametrize("name", ["kernels", "claims"])
def test_the_reach_read_around_a_hit_holds_the_longest_cue(name):
    """READ_REACH counts on cue words of at most cue_files.CUE_WORDS_CHARS: a cue file growing a longer
    pattern must raise it."""
    module = {"kernels": kernels_mod, "claims": claims_mod}[name]
    longest = 0
    for pat in cue_files.load_patterns(name):
        if isinstance(pat["pattern"], str):
            longest = max(longest, len(pat["pattern"]))
            continue
        chars = 0
        for tok in pat["pattern"]:
            assert tok.get("OP", "") in ("", "?"), pat["id"]  # no run of words of any length
            v = tok.get("LOWER", tok.get("TEXT"))
            if v is not None:
                chars += max(map(len, [v] if isinstance(v, str) else v["IN"])) + 1
            else:
                assert tok.get("IS_SPACE"), pat["id"]  # a line break; any other token kind is unbounded
        longest = max(longest, chars)
    assert longest <= cue_files.CUE_WORDS_CHARS
    if name == "kernels":  # read around a version's start and its end
        assert max(module.CUE_REACH, module.POST_CUE_REACH + cue_files.CUE_WORDS_CHARS) <= module.READ_REACH
    else:
        assert (
            module.READ_REACH >= module.SENTENCE_REACH + module.NEG_POST_REACH + 2 * cue_files.CUE_WORDS_CHARS
        )


def test_a_flood_paragraph_is_tokenized_up_to_the_budget_and_its_first_lines_still_read():
    """3,000 report lines in one 190 KB paragraph (the fuzz test's sha-flood): the three cue
    extractors tokenize at most MAX_PARAGRAPH_READ of it; the lines read still give their findings."""
    text = "".join(
        f"bisected to {(i * 2654435761) % 16**12:012x} on v6.{i % 20}-rc{i % 8}, "
        f"regression of {i % 50}% in fio\n"
        for i in range(3_000)
    )
    assert len(text) > 180_000
    reading._LAST_READING[0] = None
    kernels, commits, claims = find_kernels(text), find_commits(text), find_claims(text)
    r = reading._LAST_READING[1]
    read = sum(len(rec.doc.text.strip()) for rec in r.records)
    assert reading.MAX_PARAGRAPH_READ - 100 <= read <= reading.MAX_PARAGRAPH_READ
    assert r.unread > 85_000 and {i for _, i in r.floods} == {0}  # of the 100,000 chars read (MAX_DOC_CHARS)
    roles = {c.sha: c.role for c in commits}
    read_lines = [roles.get(f"{(i * 2654435761) % 16**12:012x}") for i in range(150)]  # 9,450 chars
    assert read_lines.count("culprit") > 125 and set(read_lines) == {"culprit", None}  # "bisected to" X
    assert len(kernels) == 40 and kernels[0].version == "6.0-rc0"
    assert (claims[0].kind, claims[0].stated_pct) == ("regression", 0.0)
    assert len(claims) > 100


# ---- found in review: edges of the windows and floods (each failed before its fix)


def _fresh(fn, text):
    reading._LAST_READING[0] = None  # a new Reading: nothing another extractor read is reused
    return fn(text)


def test_a_window_ending_at_the_texts_last_space_reads_as_the_whole_text():
    """A long last line ending in "word " asked _word_end for the char after the text's last."""
    text = "We see a 12% regression on v6.8, good on v6.7 with this job" + "  word" * 300 + " "
    reading._LAST_READING[0] = None
    reading.parse(text, "kernels", near=[text.index("v6.8")], reach=150)
    assert [(k.raw, k.role) for k in _fresh(find_kernels, text)] == [("v6.8", "bad"), ("v6.7", "good")]
    assert [(c.kind, c.stated_pct) for c in _fresh(find_claims, text)] == [("regression", 12.0)]


def _kernels_flood(filler_lines: int, versions: int) -> str:
    """A long paragraph of versions with a claim at its end: with no filler, 250 versions in 20,331
    chars (a flood of the kernels extractor's, read whole); with filler, read in windows."""
    if filler_lines == 0:  # 20,331 chars, read whole
        lines = [
            f"job {n:03d}: kernel v6.{n % 10} gave {1000 + n} MB/s on the nvme0n1 device with filler words here"
            for n in range(250)
        ]
        return (
            "Hello,\n\n"
            + "\n".join(lines)
            + "\nWe see a 12% regression of randread IOPS with the new scheduler.\n\nThanks."
        )
    filler = "the numbers of this run are within the noise of the machine as usual"
    lines = []
    for n in range(versions):
        lines.append(f"run {n:03d} on kernel 6.{n % 10}.{n} gave {1000 + n} MB/s")
        lines += [filler] * filler_lines
    return "\n".join(lines) + "\nWe see a 12% regression of randread IOPS with the new scheduler."


@pytest.mark.parametrize("filler", [0, 12], ids=["read-whole", "read-in-windows"])
def test_a_flood_of_one_extractor_does_not_cut_what_another_reads(filler):
    """What the kernels extractor read first does not change what claims find: its flood cut is its
    own (it was shared), and its windows are only reused where they hold what claims ask for (a
    window cut to nothing by the shared flood budget raised)."""
    text = _kernels_flood(filler, 250 if filler == 0 else 110)
    alone = [(c.kind, c.stated_pct) for c in _fresh(find_claims, text)]
    _fresh(find_kernels, text)
    r = reading._LAST_READING[1]
    if filler == 0:
        assert {i for _, i in r.floods} == {1} and r.cuts[1] < r.ends[1]  # kernels read it cut
    else:
        assert r.window_records and not r.floods  # kernels read it in windows
    assert alone == [("regression", 12.0)]
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == alone


def test_a_paragraph_of_150_versions_is_no_flood():
    """A version's end widens its window but is not a second hit: 150 versions are under FLOOD_HITS
    (counted twice they were a flood, and a role past the cut was lost)."""
    lines = [
        f"run {n:03d} on kernel 6.{n % 10}.{n}: {1000 + n} MB/s, nothing unusual seen in this particular run of "
        f"the job, the numbers are within noise as usual for this machine"
        for n in range(149)
    ]
    text = "\n".join(lines) + "\nThe regression is seen on v6.9-rc1 only.\n"
    m = _fresh(find_kernel_mentions, text)[-1]
    assert (m.raw, m.role) == ("v6.9-rc1", "bad")


def _prepare_with_both_patterns(text: str) -> str:
    """What ``reading._prepare`` gave before its fast path: both alternatives on every text."""
    text = reading._CONTROL_RE.sub(" ", text[: reading.MAX_DOC_CHARS])
    text = reading._QUOTE_PREFIX_RE.sub(reading._blank, text)
    return reading._PUNCT_RUN_RE.sub(reading._blank, text)


_PUNCT_PIECES = [
    "=",
    "-",
    ">",
    "|",
    "[",
    ".",
    ",",
    "a",
    "7",
    " ",
    "\n",
    "\t",
    "é",
    "_",
    "+0x1c/0x40",
    "=" * 15,
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PUNCT_PIECES), max_size=300), st.sampled_from([0, 390, 399, 400, 401, 800]))
def test_prepare_without_a_long_line_blanks_what_both_patterns_blank(pieces, long_word):
    # rulers, punctuation runs glued to words, runs just under and over 16 and a word just
    # under, at and over 400 characters: the punctuation-only pattern is used only where no
    # line could hold a 400-character word, and it blanks exactly what both did
    text = "".join(pieces)
    if long_word:
        cut = len(text) // 2
        text = text[:cut] + ("x=" * long_word)[:long_word] + text[cut:]
    assert reading._prepare(text) == _prepare_with_both_patterns(text)


def test_prepare_blanks_punctuation_runs_and_long_words_as_before_on_real_mail():
    for path in CORPUS:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert reading._prepare(text) == _prepare_with_both_patterns(text), path.name
    ruler = "Results:\n" + "=" * 40 + "\nfio " + "Q" * 500 + " bw\n=============== x\n"
    assert (
        reading._prepare(ruler) == "Results:\n" + " " * 40 + "\nfio " + " " * 500 + " bw\n=============== x\n"
    )
