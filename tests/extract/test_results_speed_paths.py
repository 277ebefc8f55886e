"""The results extractor's fast paths find what the plain line-by-line reading finds.

Each finder of fio output, tables and before/after pairs reads only the lines holding a word
its patterns all spell, found by a few searches of the whole text (``word_lines``,
``match_lines``), and prepare_lines tries its patterns only on lines whose first characters
may open a match.  These tests check each such claim against the plain reading, on real mail
(the corpus and the fuzz corpus) and on random lines built from the pieces the patterns read.
"""

import random
import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lkmlkb.extract import fio_output, pairs, tables, timing
from lkmlkb.extract.fio_output import prepare_lines
from lkmlkb.extract.lines import OpensALine, match_lines, word_lines

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted(
    p for d in (ROOT / "corpus", ROOT / "tests" / "fuzz" / "corpus") for p in d.iterdir() if p.is_file()
)
FIXTURES = sorted(p for p in (ROOT / "tests" / "extract" / "fixtures").rglob("*") if p.is_file())

#: pieces the patterns of fio output, tables and pairs read, and the characters that trip up a
#: line reader: the other spaces (which str.strip and \s take, and a newline search does not),
#: case twins of "i", NULs, quote markers, diff and noise openings
PIECES = [
    "\n",
    "\r",
    "\t",
    " ",
    "  ",
    "\x0b",
    "\x1c",
    "\x85",
    "\u2028",
    "\u3000",
    "\x00",
    ">",
    "> ",
    ">=",
    ":",
    "=",
    ",",
    "|",
    ";",
    "{",
    "}",
    "->",
    "=>",
    "\u2192",
    "to",
    " to ",
    "%",
    "5",
    "1.5",
    "42k",
    "MB/s",
    "IOPS",
    "ms",
    "usec",
    "avg",
    "Avg",
    "AVERAGE",
    "Mean",
    "mean",
    "Median",
    "MED\u0130AN",
    "med\u0131an",
    "Stddev",
    "Threads",
    "Device",
    " bytes ",
    "copied",
    "%change",
    "%stddev",
    "Amean",
    "READ:",
    "WRITE: ",
    "bw=",
    "io=",
    "IOPS=",
    "min=",
    "per=",
    "usr=",
    "(g=",
    "(groupid=",
    "Jobs:",
    "percentiles",
    "Run status group ",
    "Disk stats",
    "diff --git ",
    "@@ -1 +1 @@",
    "--- a/x.c",
    "+++ b/x",
    "Index: x",
    "[  1.234567]",
    "RIP: ",
    "Call Trace:",
    "CPU: 3 PID:",
    "0000: 7f45 4c46 0201 0100 0000",
    "blk_mq_run+0x1c/0x40",
    "6.8-rc7",
    "v6.1",
    "a",
    "x",
    "z",
]


#: before/after pairs as users write them (the regression report of linux-block, January 2026, that
#: tests/extract/test_pairs.py reads), under headings, beside lines that are no pair
PAIR_TEXT = """\
Results:
- iodepth=32:
    old: 554 IOPS \u2192 new: 535 IOPS  (~-3.4%)
    avg clat: 57.7 ms \u2192 59.8 ms
  iodepth=128 :\t
    old: 648 IOPS -> new: 640 IOPS (~-1.2%)
randread: 94 kIOPS -> 80 kIOPS
we tried 2 to 4 jobs
latency went from 2 ms to 4 ms at times
bw: 1.5 GB/s => 1.2 GB/s\r
Without this patch:
real\t0m13.450s
  Elapsed (wall clock) time (h:mm:ss or m:ss): 0:13.45
"""


def _real_texts() -> list[str]:
    return [p.read_text(errors="replace") for p in REAL + FIXTURES] + [PAIR_TEXT, "> " + PAIR_TEXT]


def _random_texts(seed: int, n: int = 300, lines: int = 30) -> list[str]:
    rng = random.Random(seed)
    return [
        "\n".join("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8))) for _ in range(lines))
        for _ in range(n)
    ]


def _texts(seed: int) -> list[str]:
    return _real_texts() + _random_texts(seed)


texts_st = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


# --------------------------------------------------------------------------
# the line finders


def _plain_word_lines(text, words):
    return [i for i, line in enumerate(text.split("\n")) if any(w in line for w in words)]


def _plain_match_lines(text, rx):
    return [i for i, line in enumerate(text.split("\n")) if rx.search(line)]


@settings(max_examples=400, deadline=None)
@given(
    texts_st,
    st.lists(
        st.sampled_from(["|", ";", "{", "to", "->", "  ", "\t", " bytes ", "a", "Device"]),
        min_size=1,
        max_size=4,
    ).map(tuple),
)
def test_word_lines_are_the_lines_holding_a_word(text, words):
    assert word_lines(text, words) == _plain_word_lines(text, words)


@settings(max_examples=400, deadline=None)
@given(texts_st)
def test_match_lines_are_the_lines_the_pattern_matches(text):
    for rx in (pairs.HEADING_END, re.compile(r"\d[^\S\n]?x"), re.compile("to")):
        assert match_lines(text, rx) == _plain_match_lines(text, rx), rx.pattern


def test_line_finders_on_real_text():
    rx = re.compile(r"[0-9]{2}[^\S\n]{0,2}[:=]")
    for text in _texts(1):
        assert word_lines(text, ("|", "  ", "mean")) == _plain_word_lines(text, ("|", "  ", "mean"))
        assert match_lines(text, rx) == _plain_match_lines(text, rx)


def test_heading_end_is_a_line_ending_in_a_colon():
    # find_pairs reads as a possible heading each line whose rstrip() ends in ":"
    for text in _texts(2):
        want = [i for i, line in enumerate(text.split("\n")) if line.rstrip().endswith(":")]
        assert match_lines(text, pairs.HEADING_END) == want


def test_joined_text_is_the_lines_texts():
    for text in _texts(3)[:200]:
        lines = prepare_lines(text)
        joined = fio_output.joined_text(lines)
        assert joined.split("\n") == [ln.text for ln in lines] or (not lines and joined == "")
        assert fio_output.joined_text(lines) is joined  # kept on the Lines


# --------------------------------------------------------------------------
# the words each finder reads lines by: every line a pattern matches holds one


def test_every_finder_pattern_match_holds_its_word():
    checks = [
        (tables.LKP_HEADER.search, tables._LKP_HEADER_CUE),
        (fio_output._TERSE.match, fio_output._TERSE_CUE),
        (fio_output._JSON_OPEN.match, fio_output._JSON_OPEN_CUE),
        (tables._IOSTAT_HEADER.match, tables._IOSTAT_CUE),
        (tables._DD.search, tables._DD_CUE),
        (tables._WS_ROW.match, tables._WS_ROW_CUE),
    ]
    matched = 0
    for text in _texts(4):
        for ln in prepare_lines(text):
            for find, words in checks:
                if find(ln.text):
                    matched += 1
                    assert any(w in ln.text for w in words), (words, ln.text)
    assert matched > 50


def test_every_line_holding_a_pipe_is_in_a_block():
    # a block of "|" cells starts at every line holding "|" that no block above took in
    for text in _texts(10):
        lines = prepare_lines(text)
        blocks = tables._pipe_blocks(lines)
        inside = {j for a, b in blocks for j in range(a, b + 1)}
        assert all("|" in lines[a].text for a, _ in blocks)
        assert all(j in inside for j, ln in enumerate(lines) if "|" in ln.text), text[:200]


def _summary_read(t: str) -> bool:
    """Whether find_summary_lines does anything with line ``t``."""
    m = tables._STAT_ROW.match(t)
    return bool(
        tables._ARROW.match(t)
        or tables._THREADS_HEADER.match(t)
        or (m and m["label"].lower() in ("average", "avg", "mean", "median"))
    )


_LABELS = [
    "Average",
    "AVG",
    "avg",
    "aVeRaGe",
    "Mean",
    "MEAN",
    "Median",
    "MED\u0130AN",
    "med\u0131an",
    "Stddev",
    "Threads",
    "Avg Stddev",
    "Mean  SD",
    "Average\tStderr",
    "37.80 38.54",
    "1 2 3 ",
    "x",
    "\u212a",
]


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from(["", " ", "\t", "  "]),
    st.sampled_from(_LABELS),
    st.sampled_from(["", ":", " :", " ->", "->"]),
    st.lists(st.sampled_from([" 1.5", "\t2", " 34.6648", " -> 38.6", " x"]), max_size=4).map("".join),
    st.sampled_from(["", " ", "\r"]),
)
def test_summary_lines_read_hold_a_summary_word_once_lowercased(lead, label, sep, vals, tail):
    t = lead + label + sep + vals + tail
    if _summary_read(t):
        assert word_lines(t.lower(), tables._SUMMARY_CUE), t


def test_summary_words_on_real_text():
    for text in _texts(5):
        for ln in prepare_lines(text):
            if _summary_read(ln.text):
                assert word_lines(ln.text.lower(), tables._SUMMARY_CUE), ln.text


def test_kernel_pair_tail_holds_a_digit():
    for text in _texts(6):
        for ln in prepare_lines(text):
            for start in range(0, min(len(ln.text), 12)):
                if tables._PAIR_TAIL.match(ln.text[start:]):
                    assert tables._DIGIT.search(ln.text), ln.text


def test_normal_output_literal_pattern_finds_each_literal():
    for words in fio_output._LITERALS.values():
        for w in words:
            assert fio_output._ANY_LITERAL.search("x" + w + "y")
    # no literal spells the ", " logical_lines joins lines with
    assert not any("," in w for ws in fio_output._LITERALS.values() for w in ws)


# --------------------------------------------------------------------------
# the finders, fast against plain: the word searches replaced by a plain line loop


def _finders_output(texts):
    out = []
    for text in texts:
        lines = prepare_lines(text)
        for finder in (
            tables.find_lkp_tables,
            tables.find_pipe_tables,
            tables.find_whitespace_tables,
            tables.find_summary_lines,
            tables.find_kernel_pairs,
            tables.find_iostat,
            tables.find_dd,
            tables.find_mmtests,
            fio_output.find_normal_output,
            fio_output.find_terse_output,
            fio_output.find_json_output,
        ):
            out.append(
                [
                    (
                        r.metric,
                        r.value,
                        r.unit,
                        r.kernel,
                        r.config,
                        r.direction,
                        r.tool,
                        r.stddev,
                        r.evidence.line_start,
                        r.evidence.line_end,
                        r.evidence.text,
                    )
                    for r in finder(lines)
                ]
            )
        out.append(
            [
                (r.metric, r.value, r.unit, r.config, r.evidence.line_start, r.evidence.text)
                for r in pairs.find_pairs(text) + timing.find_timings(text)
            ]
        )
    return out


def test_finders_read_as_the_plain_line_loop(monkeypatch):
    texts = _texts(7)
    got = _finders_output(texts)
    assert sum(map(len, got)) > 100

    def plain_cue_lines(lines, words):
        return [i for i, ln in enumerate(lines) if any(w in ln.text for w in words)]

    def plain_word_lines(text, words):
        return _plain_word_lines(text, words)

    monkeypatch.setattr(tables, "cue_lines", plain_cue_lines)
    monkeypatch.setattr(fio_output, "cue_lines", plain_cue_lines)
    monkeypatch.setattr(tables, "word_lines", plain_word_lines)
    monkeypatch.setattr(pairs, "word_lines", plain_word_lines)
    monkeypatch.setattr(timing, "word_lines", plain_word_lines)
    monkeypatch.setattr(pairs, "match_lines", _plain_match_lines)
    # every line of fio's normal output read, as when no literal was looked for first
    monkeypatch.setattr(fio_output, "_ANY_LITERAL", re.compile(""))
    assert _finders_output(texts) == got


def test_pairs_read_every_line_as_before(monkeypatch):
    # find_pairs reading every line (all are candidates) finds the same pairs under the same headings
    texts = _texts(8)
    got = [[(r.value, r.config, r.evidence.line_start) for r in pairs.find_pairs(t)] for t in texts]
    monkeypatch.setattr(pairs, "_candidate_lines", lambda text: range(text.count("\n") + 1))
    assert [[(r.value, r.config, r.evidence.line_start) for r in pairs.find_pairs(t)] for t in texts] == got
    assert sum(map(len, got)) > 20


# --------------------------------------------------------------------------
# prepare_lines' first-character tests


@settings(max_examples=600, deadline=None)
@given(texts_st)
def test_prepare_lines_opening_tests_hold_for_every_match(text):
    for line in text.split("\n"):
        m = fio_output._QUOTE.match(line)
        if m:
            assert ">" in line[:3], line
        if fio_output._DIFF_START.match(line):
            assert line[:1] in fio_output._DIFF_FIRST, line
        noise = bool(fio_output._NOISE.match(line)) or (
            "+0x" in line and bool(fio_output._STACK_FRAME.search(line))
        )
        assert fio_output._is_noise(line) == noise, line


def test_noise_on_real_text():
    for text in _texts(9):
        for line in text.split("\n"):
            cut = line[: fio_output.MAX_LINE]
            noise = bool(fio_output._NOISE.match(cut)) or (
                "+0x" in cut and bool(fio_output._STACK_FRAME.search(cut))
            )
            assert fio_output._is_noise(cut) == noise, cut


def test_plain_first_characters_open_no_prepared_pattern():
    # a line opening with one of _PLAIN_FIRST is no quote, diff or noise line, and ends a diff
    pieces = [p for p in PIECES if "\n" not in p] + [
        "index 1a2b..3c4d 100644",
        "diff x",
        "\\ No newline",
        "Hardware name: QEMU",
        "Code: 48 89",
        "FS:  0000",
    ]
    tails = [""] + pieces + [p[1:] for p in pieces]  # the rest of each piece: c + it spells the piece
    for c in fio_output._PLAIN_FIRST:
        for tail in tails:
            for line in (c + tail, c + " " + tail, c * 3 + tail):
                for rx in (
                    fio_output._QUOTE,
                    fio_output._DIFF_START,
                    fio_output._DIFF_BODY,
                    fio_output._NOISE,
                ):
                    assert not rx.match(line), (rx.pattern[:30], line)


def _prepared(text):
    lines = prepare_lines(text)
    return [(ln.text, ln.raw, ln.depth) for ln in lines], lines.filled


#: whole lines of the kinds prepare_lines tells apart: diffs (their bodies, and what ends one), quotes, noise
_LINE_KINDS = [
    "diff --git a/x b/x",
    "index 1a2b..3c4d 100644",
    "--- a/x.c",
    "+++ b/x.c",
    "@@ -1,2 +1,2 @@",
    "-a",
    "+b",
    " c",
    "\\ No newline at end of file",
    "",
    "\r",
    "The end",
    "x = 1",
    "(see above)",
    "# comment",
    "Jobs: 1",
    "index",
    "i",
    "> quoted",
    ">> > deep",
    " > x",
    "> diff --git a/y b/y",
    "[  1.234567] x",
    "RIP: 0010:x",
    "Hardware name: QEMU",
    "  blk_mq_run+0x1c/0x40",
    "0000: 7f45 4c46 0201 0100 0000",
    "ab12cd: 00 11 22 33 44",
    "zz\x00yy",
    "G\x00>x",
    "  read: IOPS=1884, BW=236MiB/s",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LINE_KINDS), max_size=30).map("\n".join))
@example(
    "diff --git a/x b/x\nindex 1a2b..3c4d 100644\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n c\n\nThe end"
)
def test_prepare_lines_as_without_the_plain_path(text):
    got = _prepared(text)
    plain = fio_output._PLAIN_FIRST
    try:
        fio_output._PLAIN_FIRST = frozenset()
        assert _prepared(text) == got
    finally:
        fio_output._PLAIN_FIRST = plain


def test_prepare_lines_on_real_text_as_without_the_plain_path(monkeypatch):
    texts = _real_texts()
    got = [_prepared(t) for t in texts]
    monkeypatch.setattr(fio_output, "_PLAIN_FIRST", frozenset())
    assert [_prepared(t) for t in texts] == got


#: patterns of the shapes the report and reading code ask OpensALine about: a quoted line, a quote
#: marker, a changelog heading ending its line
_OPENERS = [
    (r"[ \t]{0,3}>(?!=)", 0),
    (r"[ \t]{0,4}>", 0),
    (r"[ \t]{0,3}(?:changes?[ \t]{1,3}since[ \t]{1,3}v\d{1,3}:?[ \t]*$|v\d{1,3}:(?:[ \t]|$))", re.I | re.M),
]


@given(
    st.lists(
        st.sampled_from(["> quoted", "  >= 5", ">", "v2:", "Changes since v1:", "text", " x > y", ""]),
        max_size=8,
    )
)
@example(["> first line quoted"])
@example(["text", "v3: rebased"])
@example(["a >= b", "x > y"])
def test_a_pattern_opening_a_line_is_found_as_a_line_anchored_search_finds_it(lines):
    text = "\n".join(lines)
    for pattern, flags in _OPENERS:
        assert OpensALine(pattern, flags).search(text) == bool(re.search("^" + pattern, text, flags | re.M))
