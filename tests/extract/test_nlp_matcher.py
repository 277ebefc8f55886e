"""The sparse cue matcher finds exactly what spaCy's Matcher finds, on real mail."""

from pathlib import Path

import pytest
from spacy.matcher import Matcher

from lkmlkb.extract.nlp import cue_files, matcher, reading

CORPUS = sorted(
    p for p in (Path(__file__).resolve().parents[2] / "corpus").iterdir() if p.suffix in (".txt", ".mbox")
)
CUE_FILES = ("claims", "commits", "kernels")


@pytest.fixture(scope="module")
def matchers():
    pipe = matcher.get_pipeline(*CUE_FILES)
    reference = Matcher(pipe.nlp.vocab)
    for pid, words in pipe.token_patterns.items():
        reference.add(pid, [words])
    return pipe, reference


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_same_matches_as_spacy_matcher_on_corpus_threads(matchers, path):
    pipe, reference = matchers
    doc = pipe.nlp(path.read_text(encoding="utf-8", errors="replace")[: reading.MAX_DOC_CHARS])
    expected = set(reference(doc))
    assert expected, "every corpus thread holds some cue"
    assert set(pipe.tokens(doc)) == expected


def test_every_cue_pattern_runs_sparse():
    """The cue files stay inside the subset the sparse matcher runs (else spaCy's runs them, slowly)."""
    pipe = matcher.get_pipeline(*CUE_FILES)
    assert len(pipe.matcher) == 0
    assert (
        len(pipe.tokens.patterns)
        == len(pipe.token_patterns)
        == sum(
            isinstance(p["pattern"], list) or len(p["pattern"].split()) > 1
            for name in CUE_FILES
            for p in cue_files.load_patterns(name)
        )
    )


def test_unsupported_pattern_is_left_to_spacy():
    assert not matcher.TokenPatterns.supports([{"LOWER": "fixed"}, {"LOWER": "by", "OP": "+"}])
    assert not matcher.TokenPatterns.supports([{"IS_ALPHA": True}, {"LOWER": "by"}])  # may start anywhere
    assert matcher.TokenPatterns.supports(
        [{"LOWER": "bisected"}, {"IS_ALPHA": True, "OP": "?"}, {"LOWER": "to"}]
    )


def test_list_items_and_blank_lines_start_sentences():
    # shape of seed 002's numbered findings (corpus/002-*.txt): "1) ... 2) ..." on new lines
    text = "Findings below\n1) fio shows a drop\n2) bisected to abc\n\nThanks, it helps"
    doc = reading.parse(text, "commits")
    assert [text[a:b] for a, b in reading.sentences(doc)] == [
        "Findings below\n",
        "1) fio shows a drop\n",
        "2) bisected to abc\n\n",
        "Thanks, it helps",
    ]


def test_suffix_shortcut_finds_what_spacys_suffix_regex_finds_on_corpus_words():
    import spacy

    reference = spacy.blank("en").tokenizer.suffix_search
    fast = matcher.base_nlp().tokenizer.suffix_search
    words = {w for path in CORPUS for w in path.read_text(encoding="utf-8", errors="replace").split()}
    # every tail a word can have while spaCy strips its affixes, plus units and possessives
    tails = {w[:k] for w in words for k in range(1, min(len(w), 30) + 1)}
    tails |= {"10ms", "4KB", "5km/h", "it's", "IT'S", "it\u2019s", "12%", "v6.8.", "ABC.", "x..", "5mbar"}
    skipped = 0
    for t in tails:
        a, b = reference(t), fast(t)
        assert (a is None) == (b is None), t
        if a is not None:
            assert a.end() - a.start() == b.end() - b.start(), t
        skipped += a is None
    assert skipped > len(tails) // 2  # the shortcut is what most words take


def test_infix_shortcut_finds_what_spacys_infix_regex_finds_on_corpus_words():
    import spacy

    reference = spacy.blank("en").tokenizer.infix_finditer
    fast = matcher.base_nlp().tokenizer.infix_finditer
    words = {w for path in CORPUS for w in path.read_text(encoding="utf-8", errors="replace").split()}
    pieces = {w[:k] for w in words for k in range(1, min(len(w), 30) + 1)} | words
    pieces |= {"fio.write_bw_MBps", "a,b", "x-y", "5-6", "io=13.8GiB", "3^2", "r/w", "a~b", "ümlaut-x", "a…b"}
    for p in pieces:
        assert [m.span() for m in reference(p)] == [m.span() for m in fast(p)], p
    assert sum(fast(p) == () for p in pieces) > len(pieces) // 4  # the shortcut is taken often


def test_tokens_are_spacys_on_real_mail():
    import spacy

    reference = spacy.blank("en")
    for path in CORPUS:
        text = reading._prepare(path.read_text(encoding="utf-8", errors="replace"))
        ours = [(t.text, t.whitespace_) for t in matcher.base_nlp().make_doc(text)]
        assert ours == [(t.text, t.whitespace_) for t in reference.make_doc(text)], path.name


def test_long_star_runs_match_as_spacys_matcher(matchers):
    """A '*' cue run ("bisected the the ... to") of any length, as spaCy finds it (found by review at 66)."""
    pipe, reference = matchers
    for text in [
        "I bisected " + "the " * 66 + 'to commit 0123456789ab ("block: change plugging").',
        "Reverting " + "the " * 70 + "patch fixes it",
        "bisected " + "the " * 2000 + "to x",
    ]:
        doc = pipe.nlp(text)
        expected = set(reference(doc))
        assert max(end - start for _, start, end in expected) > 60  # the long run itself is a match
        assert set(pipe.tokens(doc)) == expected


def test_an_anchor_word_is_found_as_a_token_of_its_own():
    """The paragraphs read for a cue are those holding its anchor word as spaCy would cut it: not
    inside a run of letters, digits and "_" (a perf profile's "down_read", "perf-c2c.HITM"), but
    beside punctuation, and a contraction's "n't" after its verb."""
    from lkmlkb.extract.nlp.matcher import get_pipeline

    rx = get_pipeline("claims").anchor_re(frozenset({"REGRESSION_WEAK", "REGRESSION", "NEG_POST"}))
    for text in ("throughput is down 20%", "(down 20%)", "a perf-regression", "it didn't", "hit: 20%"):
        assert rx.search(text.lower()), text
    for text in ("cycles-pp.down_read.xfs_ilock", "perf-c2c.hitm", "slowdown_work", "dropbox2"):
        assert not rx.search(text.lower()), text


@pytest.mark.parametrize(
    "text,label,cue",
    [
        # Jan Kara, linux-xfs, 2021-10-04: "a performance regression caused\nby commit ab23a77687"
        ('a performance regression caused\nby commit ab23a77687 ("xfs: ...")', "CULPRIT", "caused by"),
        ("The slowdown was introduced\n  by commit 0123456789ab.", "CULPRIT", "introduced by"),
        ("I bisected\nthe problem to commit 0123456789ab.", "CULPRIT", "bisected the problem to"),
        ("This is fixed\nby commit 0123456789ab.", "FIX", "fixed by"),
        ("> the regression was caused\n> by commit 0123456789ab", "CULPRIT", "caused by"),
    ],
)
def test_a_cue_of_several_words_is_found_across_a_line_break(text, label, cue):
    """Mail is wrapped at about 72 columns: a cue's words on two lines are still the cue, and it
    reads as one would say it."""
    doc = reading.parse(text, "commits")
    assert (label, cue) in {(c.label, c.text) for c in reading.cues(doc)}


def test_a_cue_is_not_found_across_a_blank_line():
    doc = reading.parse("the regression was caused\n\nby commit 0123456789ab", "commits")
    assert "caused by" not in {c.text for c in reading.cues(doc)}
