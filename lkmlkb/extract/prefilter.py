"""The prefilter: whether a text can hold a performance report at all.

Real reports are well under 1% of list traffic; spaCy and the full
extractors must not read the rest.
"""

from __future__ import annotations

import re

from lkmlkb.extract import has_case_twin
from lkmlkb.extract.lines import word_lines

#: benchmarks a report names, whose name makes a regression one of speed ("the AIM7 regression");
#: test suites (fstests, blktests) measure no speed.  fio, dbench, fs_mark and tiobench have their
#: own, older alternatives below too
BENCHMARK_NAMES = (
    "fio",
    "aim7",
    "reaim",
    "dbench",
    "tbench",
    "fs_mark",
    "fsmark",
    "sysbench",
    "pgbench",
    "hackbench",
    "will-it-scale",
    "iozone",
    "bonnie",
    "filebench",
    "netperf",
    "mmtests",
    "tiobench",
    "kernbench",
)
#: a rise said in words ("the latency went up", "rose", "jumped"): the claims read a latency's or a
#: time's rise as a regression, and the prefilter lets a latency said to rise through
RISE_WORDS = (
    "went up",
    "goes up",
    "go up",
    "gone up",
    "going up",
    "rose",
    "risen",
    "rises",
    "jumped",
    "jumps",
    "grew",
    "grows",
    "climbed",
    "climbs",
)
#: a benchmark named as a word of its own
BENCHMARK_NAMED = re.compile(r"\b(?:" + "|".join(map(re.escape, BENCHMARK_NAMES)) + r")\b", re.I)

# Words without which a message cannot hold a performance report (real reports
# are well under 1% of list traffic; spaCy and the full extractors must not see
# the rest).  A plain substring test over the lower-cased text runs first (much
# cheaper than a regex); the regex confirms.  A tool's name glued to a kernel
# symbol is none of it ("blk_iostat_count" in a dmesg paste, "CONFIG_F2FS_IOSTAT",
# "potentiostats"): messages that pass for such names alone hold no report.
PREFILTER_WORDS = tuple(
    dict.fromkeys(  # each word once: BENCHMARK_NAMES repeats fio, dbench, fs_mark, tiobench
        (
            "fio",
            "iops",
            "b/s",
            "mbps",
            "b/sec",
            "regress",
            "bisect",
            "bw=",
            "run status group",
            "tiobench",
            "iostat",
            "fs_mark",
            "dbench",
            "%change",
            "test robot",
            "lkp",
            "%stddev",
            "slow",
            "degrad",
            "performance",
            "real",
            "elapsed",
            *BENCHMARK_NAMES,
            "take",  # takes, took: a run's time ("Before the commit, block/004 took around 130 seconds")
            "took",
            "taking",
            "order of magnitude",
            "latenc",
            "throughput",  # a speed said worse after its noun (WORSE_AFTER), or before it (WORSE_BEFORE)
            "bandwidth",
        )
    )
)
#: the nouns of a speed that WORSE_BEFORE and WORSE_AFTER say got worse
SPEED_NOUNS = ("performance", "throughput", "bandwidth")
#: a speed said to have got worse, in the words of a fix's log that names no unit, after its noun:
#: "write performance is degraded a lot", "throughput drops significantly", "bandwidth was roughly
#: halved" (an adverb or two between); not "performance due to reduced overhead"
WORSE_AFTER = r"""
      \b(?:performance|throughput|bandwidth)[ \t\n](?:(?:is|was|were|gets|got|has[ \t]been)[ \t\n])?
        (?:(?:[a-z]{1,15}ly|also|then|now|even|further|much)[ \t\n]){0,2}?(?:degrad(?:ed|es)|drops|dropped
        |suffer(?:s|ed)?|reduced|worse|tank(?:s|ed)|plummet(?:s|ed)|halved|collaps(?:es|ed))\b
"""
#: ... and before it: "grossly degraded performance", "bad I/O performance", "hurts SD card read
#: performance", "losses of throughput"; not a latency reduced, which is a gain, nor "lower
#: latency/higher throughput".  Searched only in a window before each noun (see _worse_before):
#: its first words are common words of other things in kernel mail ("bad", "lower", "reduced")
WORSE_BEFORE = re.compile(
    r"""\b(?:degrad(?:ed|ing)|reduc(?:ed|es|ing)|lower(?:ed|s)?|poor(?:er|ly)?|bad|worse|hurt(?:s|ing)?
        |loss(?:es)?[ \t]of)[ \t\n](?:(?!latenc|overhead|cpu)[\w/-]{1,15}[ \t\n]){0,3}?
        (?:performance|throughput|bandwidth)\b""",
    re.I | re.X,
)
#: how far before its noun a WORSE_BEFORE match can start (its words and three more of 15 letters)
WORSE_BEFORE_REACH = 72
PREFILTER = re.compile(
    r"""
      \bfio\b | fio- | \biops\b | [kmgt]i?b/s\b | \b[kmgt]i?b/sec\b | \bmbps\b   # fio and throughput units
    | regress | bisect                                                 # report vocabulary
    | \bslow(?:er|down|downs|ness)\b | \bslowed[ ]down\b               # "Massive slowdown in kernels as of 6.x"
    | \bdegradations?\b | \bperformance[ ]degrad                          # "we are seeing performance degradation(s)",
                                                                     # "Following performance degrade is found out"
    | BENCHMARKS                                                       # a benchmark a report names (BENCHMARK_NAMES)
    | \b(?:takes?|taking|took)[ \t](?:[\w~<>.]{1,12}[ \t]){0,3}?~?\d{1,5}(?:\.\d{1,3})?[ \t]?
      (?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)\b                 # "it takes around 300 seconds"
    | \border[ ]of[ ]magnitude\b                                        # "an order of magnitude slower"
    | \blatenc(?:y|ies)[ \t](?:[\w-]{1,12}[ \t]){0,3}?(?:RISES|increased|doubled|tripled|spiked
      |skyrocketed)\b                                                    # "the p99 latency went up from 2 to 9 ms"
    | \bperformance[ ](?:drop|hit|loss|issue|problem|penalty|decrease)  # "a noticeable performance drop"
    | WORSE_AFTER
    | \bbw= | run[ ]status[ ]group | tiobench | \biostat | fs_mark | dbench # tools and their output
    | (?<![^\s>])real[ \t]{1,8}\d{1,6}m\d | elapsed[ ]\(wall[ ]clock\)  # time(1) output, indented or quoted
    | %change | test[ ]robot | \blkp\b | %stddev                          # kernel test robot reports
    """.replace("BENCHMARKS", BENCHMARK_NAMED.pattern)
    .replace("RISES", "|".join(w.replace(" ", "[ ]") for w in RISE_WORDS))
    .replace("WORSE_AFTER", WORSE_AFTER),
    re.I | re.X | re.M,
)
#: the header of the kernel test robot's comparison table ("%stddev     %change         %stddev"):
#: the tables read under it, a long view keeps the table whole
LKP_HEADER = re.compile(r"%stddev\s{1,20}%change\s{1,20}%stddev")
#: the prefilter reads at most this much of a text (a report says what it is about long before)
MAX_VIEW_CHARS = 2_000_000


#: every PREFILTER alternative holds one of PREFILTER_WORDS and starts at most this many
#: characters before it ("KiB/s": "Ki" before "b/s"; every other alternative starts with its word)
_WORD_LEAD = 2
#: past this many occurrences of the words, one search over the text costs less than a match at each
MAX_ANCHORED = 1000


def prefilter(text: str) -> bool:
    """Can this text hold a report?  Cheap substrings first, then the one regex.

    The regex is tried only where a match can start: a few characters
    before each occurrence of a word (what ``PREFILTER.search`` over the
    whole text answers, at a fraction of its cost on long views).  That
    holds where lower-casing keeps every character's position (the lower
    text as long as the text) and no character folds to an ASCII letter
    under ``re.I`` that ``lower()`` leaves alone (``CASE_TWINS``); such
    rare text is searched whole.
    """
    text = text[:MAX_VIEW_CHARS]
    low = text.lower()
    if not text.isascii() and (len(low) != len(text) or has_case_twin(text)):
        return (any(w in low for w in PREFILTER_WORDS) and bool(PREFILTER.search(text))) or (
            any(n in low for n in SPEED_NOUNS) and bool(WORSE_BEFORE.search(text))
        )
    tried = 0  # the loop below finds every occurrence of every word (none: False)
    for w in PREFILTER_WORDS:
        pos = low.find(w)
        while pos != -1:
            for start in range(max(0, pos - _WORD_LEAD), pos + 1):
                if PREFILTER.match(text, start):
                    return True
            tried += 1
            if tried > MAX_ANCHORED:
                return bool(PREFILTER.search(text)) or _worse_before(text, low)
            pos = low.find(w, pos + 1)
    return _worse_before(text, low)


def _worse_before(text: str, low: str) -> bool:
    """WORSE_BEFORE in ``text``, tried in the reach before each of its nouns (``low``: the text
    lower-cased, each character where it is in ``text``)."""
    for noun in SPEED_NOUNS:
        pos = low.find(noun)
        while pos != -1:
            # one character past the noun: a "\b" after it sees what follows ("performances")
            if WORSE_BEFORE.search(text, max(0, pos - WORSE_BEFORE_REACH), pos + len(noun) + 1):
                return True
            pos = low.find(noun, pos + 1)
    return False


def prefilter_lines(text: str, lines: list[str]) -> list[int]:
    """Numbers of the lines of ``text`` (split into ``lines``) that pass :func:`prefilter`.

    The prefilter's words are found in the lower-cased text with ``str.find``
    (lower-casing keeps the line breaks, so a hit's line number is the count
    of breaks before it), then the regex runs on those lines only: the same
    lines as testing each one, without a Python loop over every line of a
    pasted kernel log.
    """
    candidates = word_lines(text.lower(), PREFILTER_WORDS)  # lower() keeps every line break
    return [i for i in candidates if i < len(lines) and lines[i] and prefilter(lines[i])]
