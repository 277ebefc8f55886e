"""What a message says about a performance change: regression, improvement,
no regression, cannot reproduce, and the magnitude as stated.

Real sentences this reads:

* "So about 5% regression." (regression, 5)
* "kernel test robot noticed a -72.9% regression of fio.write_iops on:"
  (regression, 72.9, metric fio.write_iops)
* "That is roughly a 33.65% performance change" (a change, taken as the
  direction the rest of the text states; regression when it speaks of one)
* "drop of 25%" (regression, 25); "shows 12%-24% improvement" (improvement, 24)
* "IOPS drop isn't observed" (no-regression, metric iops)
* "Almost there is no regression on sequential-read" (no-regression, read)
* "I cannot reproduce this issue" (cannot-reproduce)

Cue words are spaCy patterns in ``lkmlkb/data/cues/claims.jsonl``; negation
("no", "not", "n't" before the cue, "isn't observed" after it) turns a
regression into no-regression and drops a negated improvement.  Percentages
are taken in the cue's sentence, nearest to the cue, never from ``key=NN%``
fio/LKP fields (``util=98.28%``, ``usr=1.13%``) and never a rate of
occurrence ("100% reproducible").  A cue that names a field of a tool's
output ("drop: 0/0" in perf top) or sits in a line of C ("uint32_t dropped;")
is no claim.  Where a cue says only which way a quantity went ("dropped",
"higher") and the quantity is one of which less is better (latency, CPU use,
time spent, overhead), a drop is an improvement and a rise a regression.
``stated_pct`` is the magnitude; the direction is in ``kind``.
"""

from __future__ import annotations

import logging
import re

from lkmlkb.extract.commits import TITLE_PREFIX_AFTER_FIRST
from lkmlkb.extract.lines import field_listing, line_of, line_text, quoted_titles, setting_turned_before
from lkmlkb.extract.measurements import metric_of, normalized, quantities
from lkmlkb.extract.metric_units import lower_is_better
from lkmlkb.extract.nlp import cue_files, reading
from lkmlkb.extract.prefilter import RISE_WORDS
from lkmlkb.model import Claim, Evidence

log = logging.getLogger(__name__)

#: a percentage in prose: "-72.9%", "5%", "33.65%", "12%-24%", "25 %"
_PCT_RE = re.compile(
    r"""
    (?<![\w=:.%/])                        # not "util=98.28%", "sys:10%"
    (?P<sign>[-+~]?)
    (?P<num>\d{1,4}(?:\.\d{1,3})?)
    (?:\s{0,2}%?\s{0,2}(?:-|to|~)\s{0,2}(?P<num2>\d{1,4}(?:\.\d{1,3})?))?   # "12%-24%", "5 to 10%"
    \s{0,2}(?:%|\ ?percent\b)
    """,
    re.VERBOSE | re.IGNORECASE,
)
#: what makes a percentage a rate of occurrence or a share, not a magnitude: "100% reproducible",
#: "90% of the time", "dropped 30% of my workload" (a share of something that is no speed; "lost
#: 30% of its throughput" is a magnitude)
_RATE_AFTER_PCT = re.compile(
    r"\s{0,3}(?:reproducib(?:le|ility)\b|repro\b|of\s(?:the\s)?(?:time|runs|boots|attempts|cases|tries)"
    r"|of\s{1,3}(?>(?:(?:the|my|our|your|its|their|his|her|all)\s{1,3})?)"  # atomic: "our" is not the share
    r"(?!(?:perf|throughput|bandwidth|bw\b|speed|iops|latenc|rate|read|write|ops\b|op/s|transactions|requests"
    r"|jobs|files|operations|original|baseline|previous|peak|max|normal|usual|expected|what))[a-z]"
    r"|(?:make\s{1,3})?(?-i:sure|certain|confident)\b"  # a certainty: "I cannot be 100% sure" (not "Sure enough")
    r"|(?:correct|accurate|precise|right|true|wrong)\b"  # how right: "the initial behavior is not 100% correct"
    r"|util(?:i[sz]ation)?\b"  # a level: "once the 100% util is hit"
    # how full or used something is: "once the cache gets about 50% full" (linux-bcache, 2022)
    r"|(?:full|empty|dirty|used|free|busy|idle|occupied|fragmented)\b)",
    re.IGNORECASE,
)
#: a percentage that is a level something falls under, not the size of the fall
_LEVEL_BEFORE_PCT = re.compile(r"\b(?:under|below|beneath)[ \t]{1,3}(?:about[ \t]{1,3}|~)?$", re.IGNORECASE)
#: a change's word right after a percentage: the percentage is its size ("reproduced 30% slower")
_SIZE_AFTER_PCT = re.compile(
    r"[ \t]{0,3}(?:slower|faster|regress\w{0,4}|drop\w{0,3}|degrad\w{0,6}|lower|higher|less|more|worse|better"
    r"|improv\w{0,6}|loss|increase\w{0,2}|decrease\w{0,2}|gain)\b",
    re.IGNORECASE,
)
#: a percentage that says how often a problem comes back, after the verb: "I got a clear regression
#: that I may reproduce 100%." (linux-usb, 2021-03), "reproducible 100%", "reproduce it ~90%"
_RATE_BEFORE_PCT = re.compile(
    r"\breproduc\w{0,7}(?:[ \t]{1,3}(?:it|this|that|them))?[ \t]{1,3}(?:about[ \t]{1,3}|almost[ \t]{1,3}|~)?$",
    re.IGNORECASE,
)
#: a cue used as a field name with a count for its value: perf top's "drop: 0/0", "drops: 12"
_FIELD_COUNT_AFTER_CUE = re.compile(
    r"[ \t]{0,3}:(?:[ \t]{0,3}\n?[ \t]{0,3}\d+/\d+"  # a ratio, perhaps on the next line ("drop:\n0/0")
    r"|[ \t]{0,3}\d+[ \t]*(?=[,;\[\n]|$))"  # or a count that ends the field ("drops: 12,")
)
#: a C declaration on a line: "uint32_t dropped;", "| \tu32 slower;" (quoted code in a reply)
_C_DECLARATION = re.compile(
    r"""^[\s|>]*(?:(?:const|static|volatile|unsigned|signed)\s+)*
    (?:u?int(?:8|16|32|64)_t|_{0,2}[us](?:8|16|32|64)|__(?:le|be)(?:16|32|64)|[a-z_]\w*_t
      |bool|char|short|int|long(?:\s+long)?|unsigned|void|float|double|(?:struct|enum|union)\s+\w+)
    [\s*]+\w+(?:\[[^\]\n]{0,20}\])?\s*(?:=[^;\n]{0,80})?;\s*$""",
    re.VERBOSE,
)
#: a line of a numbered source listing, as the kernel test robot quotes the code its warning is
#: about ("   150\t\t/* Reduce the CPUFREQ Thermal reduction percentage to 5% */", " > 141\tvoid
#: ...": linux-acpi 2023-09, cgroups 2019-06): the code's words
_SOURCE_LISTING_LINE = re.compile(r"[ \t]{0,8}(?:>[ \t]{0,2})?\d{1,6}\t")
#: "regression" naming a kind of testing or the work on regressions ("xfstests is a regression
#: test suite", "an fstests regression run", regzbot's "regression tracking bot", "the regressions
#: list"), or a bug tracker's yes/no field ("Regression: No" ending its line): no change is claimed
_REGRESSION_NOUNS = frozenset(("regression", "regressions"))
_NAMES_TESTING = re.compile(
    r"""(?:[ \t]{1,2}|-)(?:test(?:s|ing|ed)?|suites?|runs?|tracking|tracker|bots?|(?:mailing[ \t]{1,2})?list)\b
      | [ \t]{0,3}:[ \t]{0,3}(?:no|yes)[ \t]{0,20}(?:\n|$)""",  # a field: the answer ends its line
    re.IGNORECASE | re.VERBOSE,
)
#: a build checker's diagnostic: a source file and its line ("fs/io_uring.c:5642:71: sparse: sparse:
#: restricted __poll_t degrades to integer"), or the kernel test robot's tree of warning ids
#: ("|   |-- drivers-vfio-pci-vfio_pci_config.c:sparse:sparse:restricted-pci_power_t-degrades-to-integer")
_DIAGNOSTIC_LINE = re.compile(
    r"^[\s|>`+-]{0,40}\w[\w./+-]{0,200}\.[A-Za-z]{1,3}:(?:\d+(?::\d+)?:[ \t]|[a-z]{1,20}:)"
)
#: metric words near a cue, to the metric name stored
#: the lead's lookbehind is implied by each alternative's \b; said once, it makes the pattern's scan
#: of real mail cheaper (a place inside a word fails before any alternative is tried)
_METRIC_RE = re.compile(
    r"""
    (?<!\w)(?=[^\W\d_])  # every alternative starts a word with a letter: lets the engine skip other places fast
    (?:(?P<lkp>\b[a-z][\w\-]{0,30}\.[a-z_][\w.\-]{0,60}\b)    # LKP "fio.write_iops", "fsmark.files_per_sec"
    | (?P<iops>\bIOPS\b|\biops\b|\bIOPs\b)
    | (?P<bw>\bbandwidth\b|\bbw\b|\bthroughput\b|\bMB/s\b|\bMiB/s\b)
    | (?P<lat>\blatenc(?:y|ies)\b|\bclat\b|\blat\b)
    | (?P<cpu>\bCPU\s(?:util\w{0,8}|usage|time|consumption)\b|\bsys\stime\b)
    | (?P<time>\b(?:elapsed|wall|completion|response|wait(?:ing)?|boot|read|write|copy|mount|execution|total)[\s\-]?time\b|\btime\s(?:spent|taken)\b
      |\btime\sto\s(?:process|complete|finish|boot|mount|run|build|compile|sync|fsync|flush|create|delete
                      |unlink|copy|start|open|allocate|recover)\b
      |\boverhead\b|\brun[\s\-]?time\b(?![ \t]{0,2}[=:]))  # not fio's "runtime=60": the test's length
    | (?P<randread>\brandom[\s\-]reads?\b|\brandread\b)
    | (?P<randwrite>\brandom[\s\-]writes?\b|\brandwrite\b)
    | (?P<read>\bsequential[\s\-]reads?\b|\bseq[\s\-]?reads?\b|\breads?\b)
    | (?P<write>\bsequential[\s\-]writes?\b|\bseq[\s\-]?writes?\b|\bwrites?\b))
    """,
    re.VERBOSE | re.IGNORECASE,
)
#: "drop" as a verb with an object ("kindly drop us a note", "drop the lock", "drop this patch"):
#: no claim, unless the object is a metric or the fall is measured right after it ("drops the
#: IOPS of 4k randread", "dropped this time by 15%", "drops it by 20%", "dropped that much")
_DROP_WORDS = frozenset(("drop", "drops", "dropped", "dropping"))
#: "hit" as a verb claims nothing ("once the 100% util is hit", "%util will hit close to 100%",
#: "renameat2 hit ENOSPC 100%", "this hit 100% CPU"): a subject or an auxiliary just before it, or an
#: object or a level just after it; the noun of a cost is a claim ("than a 2.9% hit", "about a ~15%
#: or so hit from baseline"), and so is a passive hit given a size ("performance is hit by 20%")
_HIT_VERB_BEFORE = re.compile(
    r"\b(?:is|was|were|are|be|been|being|will|would|can|could|may|might|should|must|to|did|does|do"
    r"|i|we|it|they|you|he|she|once|which|who|never|always|just|also|then)[ \t]{1,3}$",
    re.IGNORECASE,
)
_HIT_OBJECT_AFTER = re.compile(
    r"[ \t]{1,3}(?:(?:close|near|about|around|the|this|that|it|an?)\b|~?\d|[A-Z]{3,})"
)
_HIT_BY_SIZE = re.compile(r"[ \t]{1,3}by[ \t]{1,3}(?:about[ \t]{1,3}|~)?\d")
#: an improvement asked for or hoped for, not measured: "Any suggestion for improvement?", "room for
#: improvement in the XFS allocator", "feedback for improvements for next time"
_FOR_IMPROVEMENT = re.compile(
    r"\bfor[ \t]{1,3}(?:(?:any|further|more|possible|potential|future|some)[ \t]{1,3})?$", re.IGNORECASE
)
#: "loss" of something that is not speed ("gets 100% dirty blocks after power loss", "leading to data
#: loss", ping's "0% packet loss"): no claim; "a 12% loss", "throughput loss", "the worst-case loss",
#: "a 5% fast-path loss" are
_LOSS_OF_OTHER = re.compile(
    r"\b(?:power|data|packet|frame|signal|carrier|link|quorum|connection|heartbeat"
    r"|information)[ \t]{1,3}$",
    re.IGNORECASE,
)
#: a state of arrays and devices as often as of speed ("State : clean, degraded", "the array is now
#: degraded", "in degraded state as virtio never supported surprise removal"): an unsized
#: "degraded" on linux-raid nearly never has a word of speed near it, or a measure
_STATE_WORDS = frozenset(("degraded",))
#: "change" as a verb setting a value: "change it to 25%", "change the ratio to 50%"
_SET_TO = re.compile(
    r"[ \t\n]{1,3}(?:it|this|that|them|(?:the|its|our|a)[ \t]{1,3}[\w-]{1,20})[ \t\n]{1,3}to[ \t\n]{1,3}~?\d",
    re.IGNORECASE,
)
#: how far after the drop word its object and "by N" / "much" are looked for
DROP_OBJECT_REACH = 25
_OBJECT_AFTER_DROP = re.compile(
    r"[ \t]{1,3}(?:us|me|him|her|them|it|this|that|these|those|the|your|my|our|their|his|its|support)\b",
    re.IGNORECASE,
)
#: a regression asked about or supposed, not one found: "if"/"whether" opening the clause that
#: holds the cue, and no figure ("Testing on older kernels to see if it's a regression", "We
#: checked whether commit X caused a performance regression and found none", "If there's a big
#: drop in ..."); a finding under a condition stays ("if it is created through sysfs, however,
#: there is a regression in corner cases", "if you run it with iodepth=32 there is a 20% regression")
_ASKED_BEFORE = re.compile(r"\b(?:if|whether)\b", re.IGNORECASE)
#: what ends a clause (the one an "if" opens, the one a "change" is sized in): punctuation (not ":", a commit title's), "then", a new list
#: item or labelled line ("- Fix for a regression ...", "Result: also meet performance degradation")
_CLAUSE_BREAK = re.compile(r"[,;!?]|\.\s|\bthen\b|\n[ \t]*(?:[-*+\u2022][ \t]|\w[\w ]{0,20}:)", re.IGNORECASE)
#: a modal before a cue: a slowdown supposed, not measured ("this would be (at worst) a 2x slowdown",
#: "it could be a 10% regression"); not "would see" or "could measure" (those report what was seen)
_SUPPOSED = re.compile(
    r"\b(?:would|could|might|may)[ \t]{1,3}(?:be|cause|mean|result[ \t]in|introduce|lead[ \t]to)\b[^.;\n]{0,40}$"
    # a slowdown someone may meet, not one met: "In case someone shows up with performance
    # regression on ...", "watch out for a regression", "to avoid any regression"
    r"|\b(?:in[ \t]case|in[ \t]the[ \t]event|watch(?:ing)?[ \t]out[ \t]for|to[ \t](?:avoid|prevent)"
    r"|guard[ \t]against)\b[^.;\n]{0,50}$",
    re.IGNORECASE,
)
#: how far before its cue a modal may stand
SUPPOSED_REACH = 60
#: how far before its cue the "if" of an asking clause may stand
ASKED_REACH = 100


#: a yes/no question's opening: an auxiliary first in its sentence, after a list's number at most
#: ("II. Does the fix cause a performance regression?", "Did you notice any performance degradation?")
_YES_NO_OPENS = re.compile(
    r"[ \t>*-]{0,6}(?:(?:[IVX]{1,5}|\d{1,2}|[a-z])[.)][ \t]{1,3})?"
    r"(?:does|did|do|is|was|are|were|has|have|had|will|would|could|can|should|may|might)\b",
    re.IGNORECASE,
)
#: an indefinite article or "any" just before a cue (a few words between): the slowdown asked about
#: ("a performance regression", "any known regressions"), not one presupposed ("this regression")
_INDEFINITE_BEFORE = re.compile(
    r"\b(?:a|an|any)(?:[ \t\n]{1,3}[\w-]{1,20}){0,2}?[ \t\n]{1,3}$", re.IGNORECASE
)
#: the question mark ending the cue's line, and a full stop between (a version's "." is none)
_QUESTION_AFTER = re.compile(r"[^!?\n]{0,120}\?")
_FULL_STOP = re.compile(r"\.(?!\d)")


def _asked_yes_or_no(text: str, s0: int, c) -> bool:
    """Whether the cue ``c`` is asked about in a yes/no question of the sentence opening at
    ``s0``, as a slowdown that may or may not be ("Does the fix cause a performance regression?",
    linux-crypto 2020-05; "Did you notice any performance degradation?"), not one the question
    takes as found ("Has anyone else noticed this perf regression?")."""
    return (
        _YES_NO_OPENS.match(text, s0, c.start) is not None
        and _INDEFINITE_BEFORE.search(text, max(s0, c.start - 40), c.start) is not None
        and (q := _QUESTION_AFTER.match(text, c.end)) is not None
        and _FULL_STOP.search(text, c.end, q.end()) is None
    )


def _asked(text: str, lo: int, at: int) -> bool:
    """Whether the clause ending at ``at`` (its cue) opens with "if"/"whether" after ``lo``."""
    opened = -1
    for m in _ASKED_BEFORE.finditer(text, lo, at):
        opened = m.end()
    return opened >= 0 and not _CLAUSE_BREAK.search(text, opened, at)


#: a commit's title on a line of its own, perhaps after its SHA ("blk-mq: Drop 'reserved' arg of
#: busy_tag_iter_fn", "151f0ec9ddb5 (HEAD) scsi: scsi_debug: Drop sdebug_dev_info.num_in_q"): the
#: capitalized word after the subsystem's prefix is the patch's verb, not a finding
_TITLE_VERB = re.compile(
    r"(?m)^[ \t|>*-]{0,40}(?:[0-9a-f]{7,40}[ \t]{1,3}(?:\([^)\n]{0,80}\)[ \t]{1,3})?)?"
    r"[a-z]" + TITLE_PREFIX_AFTER_FIRST
)  # lower case first: "Result: Drop in IOPS" is a label


def _opens_commit_title(text: str, at: int) -> bool:
    """Whether the cue at ``at`` is the first word of a commit title on its line."""
    if not (text[at : at + 1].isupper() and text[at + 1 : at + 2].islower()):
        return False
    lo = text.rfind("\n", 0, at) + 1
    m = _TITLE_VERB.match(text, lo, at)
    return m is not None and m.end() == at


_FALL_MEASURED = re.compile(r"\bby[ \t]{1,3}[~-]?\d|\bmuch\b", re.IGNORECASE)
#: cue words that say which way the quantity went, not whether that is good ("dropped", "higher")
_WENT_DOWN = frozenset(
    (
        "drop",
        "drops",
        "dropped",
        "dropping",
        "decrease",
        "decreased",
        "decreases",
        "reduction",
        "lower",
        "reduce",
        "reduces",
        "reduced",
        "reducing",
    )
)
_SHARPLY_UP = frozenset(
    ("skyrocket", "skyrockets", "skyrocketed", "skyrocketing", "soars", "soared", "balloons", "ballooned")
)
#: a rise in other words: "went up", "rose", "jumped", "grew", "climbed" (the prefilter's list)
_ROSE = frozenset(RISE_WORDS)
_WENT_UP = frozenset(("increase", "increased", "increases", "higher")) | _SHARPLY_UP | _ROSE
_WENT = _WENT_DOWN | _WENT_UP
#: words that say only which way something went, of which mail says it of anything ("memory
#: usage increased", "reduces lock contention"): a claim needs a metric named
_NEEDS_METRIC = (
    frozenset(("increased", "increases", "decreases", "reduce", "reduces", "reduced", "reducing"))
    | _SHARPLY_UP
    | _ROSE
)
#: a word of speed near a direction word with neither a metric nor a figure ("the performance drops
#: if ...", "a sizeable drop in perf", "such performance drop can be very obvious"): without one,
#: mail says "drop" of patches, locks, tags and counters ("- Dropped patch 2/11", "until all refs
#: are dropped", "the minimum log size will decrease")
_SPEED_WORD = re.compile(
    r"\b(?:perf(?:ormance)?|speed|slow\w{0,6}|fast\w{0,6}|tput|scores?|numbers)\b", re.IGNORECASE
)
#: what says a failure to reproduce is a kernel's: "does not reproduce on 6.5", "can't reproduce it
#: with v6.1 or older", "not reproducible on older kernels"
#: a problem gone that was there: "not reproducible anymore", "can't be reproduced any more"
_NO_MORE = re.compile(r"[^.;!?]{0,40}?\bany[ \t\n]?(?:more|longer)\b", re.IGNORECASE)
#: a fix tried in the sentence: "After applying this patch, the deadlock cannot be reproduced",
#: "I can't reproduce it either with that patch applied"
_WITH_THE_FIX = re.compile(
    r"\b(?:with|after|applying|applied)\b[^.;!?]{0,30}?\b(?:patch(?:es|set)?|fix(?:es)?|series)\b",
    re.IGNORECASE,
)
#: how far before a cue "cannot reproduce" the fix it was tried with may be named
FIX_NAMED_REACH = 80
_ON_A_KERNEL = re.compile(
    r"(?:[ \t\n]{1,3}(?:it|this|the[ \t]issue|the[ \t]problem|that))?[ \t\n]{1,3}(?:on|with|in|under|using|before|after)"
    r"[ \t\n]{1,3}(?:(?:linux|kernel|the|an?|v)[ \t\n]{0,3}){0,2}(?:[2-7]\.\d|(?:older|newer|earlier|later|previous|old)"
    r"[ \t\n]{1,3}(?:kernels?|releases?|versions?))",
    re.IGNORECASE,
)
#: how far from the direction word the word of speed may stand, within its sentence
SPEED_WORD_REACH = 40
#: "than" and a kernel release after a comparative: "... with Linux 5.4.0 is significantly worse
#: than that of an instance with Linux 4.4.0", "writes are slower on 6.8 than on 6.7"
_THAN_KERNEL = re.compile(
    r"\bthan\b(?:[^.;!?\n]|\.(?=\d)){0,80}?(?<![\w.])v?[2-7]\.\d{1,2}(?:\.\d{1,3})?(?:-rc\d{1,2})?"
    r"(?![\w.]*%|[ \t]?(?:[KMGTkmgt]i?[Bb]|[KMG]?Hz|x\b|times\b|[mun\u00b5]?s\b|sec|min|hours?|IOPS|iops))",
    re.IGNORECASE,
)


def _kernels_compared_after(text: str, start: int, end: int, s0: int, s1: int) -> bool:
    """A comparative of speed naming a kernel it is worse than: "performance ... with Linux 5.4.0
    is significantly worse than ... with Linux 4.4.0" (no figure, and still a regression said)."""
    return bool(
        _THAN_KERNEL.search(text, end, min(s1, end + 120))
        and _SPEED_WORD.search(text, max(s0, start - 120), min(s1, end + SPEED_WORD_REACH))
    )


#: a drop given a size ("it's 3500 and 3000, a slight drop", "Same drop is observed on virtio-blk"):
#: a fall of what was measured, not of a patch or a lock
_SIZED_BEFORE = re.compile(
    r"\b(?:slight|small|little|big|huge|large|significant|sizeable|noticeable|massive"
    r"|visible|measurable|major|minor|severe|same)[ \t]{1,3}$",
    re.IGNORECASE,
)
#: "drops from 97% to 14%", "decreased from 8% to 0.8%": levels of a share after a direction word
_LEVELS_AFTER = re.compile(
    r"""[ \t]{1,3}from[ \t]{1,3}~?(?P<a>\d{1,6}(?:\.\d{1,6})?)[ \t]?%
        [ \t]{1,3}(?:to|->)[ \t]{1,3}~?(?P<b>\d{1,6}(?:\.\d{1,6})?)[ \t]?%""",
    re.IGNORECASE | re.VERBOSE,
)
#: "drops from 1630K to 1050K IOPS", "from 15.1 to 3.2 ms", "from 640 MB/s to 153 MB/s": the two
#: values a direction word names, the second with a unit of a rate, a count or a time (a unit
#: written once, at the end, is the first value's too; "from 16 to 8 cores" names no measure, and
#: of a size, "extra-writes reduction from 66GB to 9GB", less is as often good as bad)
_MEASURE_UNIT = r"""(?:[KMGT]i?B/s(?:ec)?|[kmgt]i?b/s(?:ec)?|[KMG]?IOPS|[km]?iops|[KMGkmg](?![\w/])
                    |[mun\u00b5]s(?:ec)?|s(?:ec)?|seconds?|minutes?|mins?|hours?|hrs?|h)"""
_VALUES_AFTER = re.compile(
    r"""[,:]?[ \t\n]{1,3}(?i:from)[ \t\n]{1,3}(?:(?i:about|around|roughly|approx\.?|nearly|almost)[ \t]{1,2})?~?
        (?P<a>\d{1,9}(?:\.\d{1,6})?)[ \t]?(?P<ua>%s)?
        [ \t\n]{1,3}(?i:to|->)[ \t\n]{1,3}(?:(?i:about|around|roughly|approx\.?|nearly|almost|only|just|barely|under)
        [ \t]{1,2})?~?(?P<b>\d{1,9}(?:\.\d{1,6})?)[ \t]?(?P<ub>%s)(?![\w/%%])"""
    % (_MEASURE_UNIT, _MEASURE_UNIT),
    re.VERBOSE,
)
#: a factor in words ("about five times slower", "a factor of four"), an order of magnitude a tenfold
_WORD_FACTORS = {
    "two": 2.0,
    "three": 3.0,
    "four": 4.0,
    "five": 5.0,
    "six": 6.0,
    "seven": 7.0,
    "eight": 8.0,
    "nine": 9.0,
    "ten": 10.0,
    "twenty": 20.0,
    "fifty": 50.0,
    "hundred": 100.0,
}
_MAGNITUDES = {"an": 10.0, "one": 10.0, "two": 100.0, "three": 1000.0}
#: the factors in words, as a regex alternation
_WORD_FACTOR = "|".join(_WORD_FACTORS)
_MAGNITUDE = "|".join(_MAGNITUDES)
#: a change stated as a factor just before its cue ("a 7x slowdown", "10x slower", "2.0x more IOPS",
#: "twice slower", "2-4x slower"): only an article or "as", and a measure's name, between
_FACTOR_BEFORE = re.compile(
    r"(?:(?<![\w.])(?P<f>\d{1,4}(?:\.\d{1,3})?)(?:[ \t]?[-~][ \t]?(?P<f2>\d{1,4}(?:\.\d{1,3})?))?[ \t]?(?:[xX\u00d7]|times)"
    rf"|\b(?P<word>(?i:{_WORD_FACTOR}))[ \t\n]{{1,3}}times"
    rf"|\b(?P<magnitude>(?i:{_MAGNITUDE}))[ \t\n]{{1,3}}orders?[ \t\n]{{1,3}}of[ \t\n]{{1,3}}magnitude"
    r"|\b(?P<twice>twice))[ \t\n]{1,3}(?:(?:a|an|as)[ \t\n]{1,3})?"
    # the measure between ("a ~10x performance drop", "5x throughput degradation")
    r"(?:(?i:performance|perf|throughput|bandwidth|speed)[ \t\n]{1,3})?$"
)
#: ... or just after it ("improved by 4X-5X", "dropped by half", "slower by a factor of 3", "slowed
#: down 9x")
_FACTOR_AFTER = re.compile(
    r"[ \t\n]{1,3}(?:(?:down|up)[ \t\n]{1,3})?(?:by[ \t\n]{1,3}(?:(?P<half>half)\b"
    r"|a[ \t\n]{1,3}factor[ \t\n]{1,3}of[ \t\n]{1,3}(?:(?P<of>\d{1,4}(?:\.\d{1,3})?)\b(?![.%])"
    rf"|(?P<word>(?i:{_WORD_FACTOR}))\b))"
    r"|(?:by[ \t\n]{1,3})?(?P<f>\d{1,4}(?:\.\d{1,3})?)[ \t]?(?:[xX\u00d7]|times)?(?:[ \t]?-[ \t]?(?P<f2>\d{1,4}(?:\.\d{1,3})?))?"
    r"[ \t]?(?:[xX\u00d7]|times)\b)"
)
#: a share lost, written as a fraction after the cue ("has slowed by about 2/3", "dropped by 1/3")
_FRACTION_AFTER = re.compile(
    r"[ \t]{1,3}(?:down[ \t]{1,3})?by[ \t]{1,3}(?:(?:about|around|roughly|almost|nearly|over)[ \t]{1,2})?~?"
    r"(?P<a>\d)[ \t]?/[ \t]?(?P<b>\d{1,2})(?![\d/])",
    re.IGNORECASE,
)
#: a speed named right before a direction word a factor sizes ("a ~10x performance drop")
_SPEED_NAMED_BEFORE = re.compile(r"(?i:performance|perf|throughput|bandwidth|speed)[ \t\n]{1,3}$")
#: how far before its cue a factor may start ("nearly a 7x ")
FACTOR_BEFORE_REACH = 24


def _factor_of(text: str, start: int, end: int, lo: int) -> float | None:
    """The factor a change is stated by, right before or after its cue (the upper end of a
    range; "by half" is 2), or None."""
    m = _FACTOR_BEFORE.search(text, max(lo, start - FACTOR_BEFORE_REACH), start) or _FACTOR_AFTER.match(
        text, end
    )
    if m is None:
        return None
    g = m.groupdict()
    if g.get("twice") or g.get("half"):
        return 2.0
    if g.get("word"):
        return _WORD_FACTORS[g["word"].lower()]
    if g.get("magnitude"):
        return _MAGNITUDES[g["magnitude"].lower()]
    f = float(g.get("f2") or g.get("f") or g.get("of"))
    return f if 1.0 < f <= 10_000 else None


def _fraction_pct(text: str, end: int) -> float | None:
    """The share a fraction right after a cue gives ("slowed by about 2/3": 66.67), or None."""
    m = _FRACTION_AFTER.match(text, end)
    if m is None or not 0 < int(m["a"]) < int(m["b"]):
        return None
    return round(int(m["a"]) / int(m["b"]) * 100, 2)


def _timed(text: str, lo: int, hi: int) -> str | None:
    """ "time" when the quantities a sentence gives are all times ("(6.5: ~1 min 6.6: ~9 min)"):
    a factor it states is of a time, not of a speed; else None."""
    kinds = [metric_of(u) for _a, _b, _v, u in quantities(text[lo:hi])]
    return "time" if kinds and all(k == "elapsed" for k in kinds) else None


def _timed_values(text: str, at: int, hi: int) -> str | None:
    """The metric "time" when a direction word is followed by two values of a time ("increased from 15
    seconds to 5 minutes"): what went up is a time, whatever the sentence calls it."""
    m = _VALUES_AFTER.match(text, at, hi)
    return "time" if m and metric_of(m["ub"]) == "elapsed" else None


def _factor_pct(factor: float, kind: str, metric: str | None) -> float:
    """A factor as the percentage a change's size is given in: the measure went down by it (a
    slowdown of a throughput, a gain in a latency) -> the share lost, else the share gained."""
    down = (kind == "regression") != bool(metric and lower_is_better(metric))
    return round((1 - 1 / factor) * 100 if down else (factor - 1) * 100, 2)


#: a percentage the sentence states right after the two values ("from 640 to 153 MB/s, or 76%"):
#: that one is the size
STATED_AFTER_VALUES = 25


def _from_to_change(text: str, at: int, hi: int, down: bool) -> float | None:
    """The change, in percent of the first value, of "from A to B" right after a direction word
    (a nearer percentage elsewhere in the sentence is not its size: "(~32% -> ~87%) ... performance
    drops from 1630K to 1050K IOPS" is a 35.58% drop); None unless the values say the word's way,
    and the percentage the sentence states right after them where it does ("from ~15 seconds
    to nearly 5 minutes, or 2000%")."""
    m = _VALUES_AFTER.match(text, at, hi)
    if not m:
        return None
    stated = _PCT_RE.search(text, m.end(), min(hi, m.end() + STATED_AFTER_VALUES))
    # a unit written once, at the end, is the first value's too
    values = _in_one_unit(float(m["a"]), m["ua"] or m["ub"], float(m["b"]), m["ub"])
    if values is None:
        return None
    change = _relative_change(*values, down)
    if change is not None and stated is not None:
        return float(stated["num2"] or stated["num"])
    return change


#: "... drops to as low as 6MiB/s", "is dropped to 3709MB/s from 20GB/s": the value a direction
#: word goes to, and where it came from when said after it
_TO_VALUE_AFTER = re.compile(
    r"""[ \t\n]{1,3}(?i:to)[ \t\n]{1,3}(?:(?i:about|around|roughly|nearly|almost|only|just|barely|under|as[ \t\n]low[ \t\n]as)
        [ \t]{1,2})?~?(?P<b>\d{1,9}(?:\.\d{1,6})?)[ \t]?(?P<ub>%s)(?![\w/%%])
        (?:[ \t\n]{1,3}(?i:from)[ \t\n]{1,3}~?(?P<a>\d{1,9}(?:\.\d{1,6})?)[ \t]?(?P<ua>%s)(?![\w/%%]))?"""
    % (_MEASURE_UNIT, _MEASURE_UNIT),
    re.VERBOSE,
)


def _to_change(text: str, at: int, lo: int, hi: int, down: bool) -> float | None:
    """The change of "to B" right after a direction word, from the "from A" after it or else from
    the last value of the same measure before the word in its sentence ("starts reading at
    800MiB/s then ... the read speed drops to as low as 6MiB/s": 99.25%); None unless the
    values say the word's way."""
    m = _TO_VALUE_AFTER.match(text, at, hi)
    if not m:
        return None
    b, ub = float(m["b"]), m["ub"]
    if m["a"]:
        a, ua = float(m["a"]), m["ua"]
    else:
        kind = metric_of(ub)
        before = [q for q in quantities(text[lo:at]) if metric_of(q[3]) == kind]
        if not before:
            return None
        a, ua = before[-1][2], before[-1][3]
    values = _in_one_unit(a, ua, b, ub)
    return None if values is None else _relative_change(*values, down)


def _in_one_unit(a: float, ua: str, b: float, ub: str) -> tuple[float, float] | None:
    """Two values of one measure in one unit ("from about 2.9 gb/sec to about 949 mb/sec"):
    as written when their units are one, else both normalized; None when they measure two
    things."""
    if ua == ub:
        return a, b
    (na, nua), (nb, nub) = normalized(a, ua), normalized(b, ub)
    if na is None or nb is None or nua != nub:
        return None
    return na, nb


def _relative_change(a: float, b: float, down: bool) -> float | None:
    """From ``a`` to ``b``, in percent of ``a``; None unless it went the way ``down`` says."""
    if a <= 0 or a == b or (b < a) != down:
        return None
    return round(abs(a - b) / a * 100.0, 2)


#: where the name of what moved between two levels is looked for, before the direction word
#: and on its line (or the line above, when the word starts its line)
LEVELS_SUBJECT_REACH = 40
#: a percentage just before the cue: "a 15% regression tested with fio" is measured, not a name
_PCT_JUST_BEFORE = re.compile(r"(?:%|\bpercent)[ \t]{0,2}$", re.IGNORECASE)
_FILLER = frozenset(("a", "an", "the", "any", "such", "real", "big", "significant", "noticeable"))
_NEG_WORDS = frozenset(("no", "not", "n't", "never", "without", "nor", "neither", "hardly", "barely"))
_KIND = {
    "REGRESSION": "regression",
    "IMPROVEMENT": "improvement",
    "REGRESSION_WEAK": "regression",
    "IMPROVEMENT_WEAK": "improvement",
    "CANNOT_REPRODUCE": "cannot-reproduce",
    "NO_CHANGE": "no-regression",
}


#: the cue labels a claim starts from on their own (those of _KIND); the weak ones and a bare
#: CHANGE need a percentage in reach (see _sentence_claims), and NEG_POST only negates one of them.
#: Derived from _KIND: a claim label added there also picks the paragraphs find_claims reads
CLAIM_LABELS = frozenset(label for label in _KIND if not label.endswith("_WEAK"))
WEAK_CLAIM_LABELS = frozenset(_KIND) - CLAIM_LABELS | {"CHANGE"}
#: what a paragraph with only weak cues must hold to be read: a percentage, or the values a change
#: went from and to ("increased from 2min to 40min")
_PCT_HINT_RE = re.compile(
    r"%|percent|\bfrom[ \t\n]{1,3}(?:about[ \t])?~?\d|\d[ \t]?(?:x|\u00d7|times)\b|\btwice\b"
    r"|\bby[ \t\n]half\b|\bfactor[ \t\n]of\b|\bby[ \t](?:about[ \t])?~?\d[ \t]?/[ \t]?\d"
    rf"|\b(?:{_WORD_FACTOR})[ \t\n]times\b|\borders?[ \t\n]of[ \t\n]magnitude\b"
    r"|\bthan\b(?:[^.;!?\n]|\.(?=\d)){0,80}?[2-7]\.\d",  # a comparative naming a kernel (_THAN_KERNEL)
    re.I,
)
#: how far from a cue a claim looks (its sentence is cut to this on either side)
SENTENCE_REACH = 200
#: a metric word counts for a claim this near its cue
METRIC_REACH = 60
#: a "change" this near before a directed cue is the patch that made it ("the change decreases ...")
CHANGE_NAMES_PATCH_REACH = 12
#: a negation after a cue ("regression, not really") counts this near its end
NEG_POST_REACH = 40

#: what is read around a cue word in a long paragraph (reading.parse's ``reach``): SENTENCE_REACH,
#: a negation after the cue (NEG_POST_REACH and its own words), and the cue's own words (each at
#: most cue_files.CUE_WORDS_CHARS, and the line breaks a negation may hold)
READ_REACH = 400


#: a change that clears a regression said gone: a revert or a patch tried ("If i revert this commit
#: with Linux 5.19-rc6 the performance regression disappears", "the drop goes away with the revert")
_CLEARED_BY_CHANGE = re.compile(
    r"\brevert\w{0,3}\b|\bwith(?:out)?[ \t]{1,3}(?:the|this|that|your)[ \t]{1,3}(?:patch|fix|commit)",
    re.IGNORECASE,
)
#: an inability before "without" makes the two negations an affirmation ("I'm unable to run it
#: without a massive performance regression", "can't copy anything without the slowdown")
_UNABLE_BEFORE = re.compile(
    r"\b(?:unable|cannot|can't|can not|couldn't|could not|impossible)\b[^.\n]*$", re.IGNORECASE
)
#: how far before "without" the inability may stand
UNABLE_REACH = 80


def _negated_before(doc, cue) -> bool:
    """A negation word in the 4 tokens before the cue ("no regression", "don't see a 10% regression")."""
    content = 0
    reach = 3
    for t in reversed(reading.tokens_before(doc, cue.start, 8)):
        if t.is_punct and t.text not in ("%", "'"):
            return False  # "drop, no" / "fine. Not": the negation belongs elsewhere
        if t.lower_ == "any" and content <= 1:
            # "any" before the cue waits for its negation: "I do not see that causing any regression"
            reach = 5
        if t.lower_ in _NEG_WORDS:
            if t.lower_ == "without" and _UNABLE_BEFORE.search(
                reading.doc_text(doc), max(0, t.idx - UNABLE_REACH), t.idx
            ):
                return (
                    False  # "unable to run rpi-update without massive performance regression": it regresses
                )
            return True
        if t.is_space or t.like_num or t.text == "%" or t.lower_ in _FILLER:
            continue
        content += 1
        if content >= reach:  # "doesn't perfectly align with the regression": too far
            return False
    return False


def _clause(text: str, lo: int, hi: int, start: int, end: int) -> tuple[int, int]:
    """The bounds, within ``text[lo:hi]``, of the clause holding ``text[start:end]``: a "change"
    is sized by a percentage of its own clause ("a 33.65% performance change", "a difference of
    12%"), not one after a comma ("For such a change, I don't reject it 100%", linux-raid)."""
    for m in _CLAUSE_BREAK.finditer(text, lo, start):
        lo = m.end()
    after = _CLAUSE_BREAK.search(text, end, hi)
    return lo, after.start() if after else hi


def _nearest_pct(text: str, lo: int, hi: int, at: int, reach: int = 80) -> tuple[float | None, float | None]:
    """The percentage in ``text[lo:hi]`` nearest to ``at`` (within 80 chars), as a magnitude, and
    the low end when it is a range ("12%-24%": (24, 12); "5%": (5, None))."""
    best = None
    for m in _PCT_RE.finditer(text, lo, hi):
        if m.start() > at + reach:
            break  # the ones after start farther still
        dist = min(abs(m.start() - at), abs(m.end() - at))
        if dist > reach or _RATE_AFTER_PCT.match(text, m.end()):
            continue
        if text[m.start() - 1 : m.start()] == "[" and text[m.end() : m.end() + 1] == "]":
            continue  # fio's progress line, "Jobs: 1 (f=1): [w(1)][14.9%][w=2192KiB/s]": how far it ran
        if _LEVEL_BEFORE_PCT.search(text, max(0, m.start() - 16), m.start()):
            continue  # a level reached: "cache_availability_percent can drop under 30 percent"
        if _RATE_BEFORE_PCT.search(text, max(0, m.start() - 40), m.start()) and not _SIZE_AFTER_PCT.match(
            text, m.end()
        ):
            continue  # how often it comes back: "that I may reproduce 100%" (not "reproduced 30% slower")
        val = float(m.group("num2") or m.group("num"))
        low = float(m.group("num")) if m.group("num2") else None
        if best is None or dist < best[0]:
            best = (dist, val, low)
    if best is None and "percent" in text[max(lo, at - reach) : min(hi, at + reach)].lower():
        # spelled out: "a thirty percent drop in performance"
        for m in _WORD_PCT.finditer(text, max(lo, at - reach), min(hi, at + reach)):
            if not _RATE_AFTER_PCT.match(text, m.end()):
                return float(_TENS[m["w"].lower().replace("-", " ")]), None
    return (best[1], best[2]) if best else (None, None)


#: a percentage in words ("thirty percent", "twenty-five percent")
_TENS = {
    "five": 5,
    "ten": 10,
    "fifteen": 15,
    "twenty": 20,
    "twenty five": 25,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_WORD_PCT = re.compile(
    r"\b(?P<w>five|ten|fifteen|twenty(?:[ -]five)?|thirty|forty|fifty|sixty|seventy|eighty|ninety)[ \t-]percent\b",
    re.IGNORECASE,
)


def _metric_value(m: re.Match) -> str | None:
    """The metric name stored for a match of _METRIC_RE (None: an LKP-looking word that names none)."""
    kind = m.lastgroup
    if (
        kind == "time"
        and m.group(0)[:3].lower() == "run"
        and _LENGTH_BEFORE.search(m.string, max(0, m.start() - 16), m.start())
    ):
        return None  # "for a 60s runtime", "a 5 minute run time": the test's length, not a measure
    if kind != "lkp":
        return kind
    value = m.group(0).lower()
    if _FILE_NAME.search(value):
        return None  # "io_uring.c", "test_stress_05.sh", "show_bug.cgi": a file, not a metric
    return value if _LKP_METRIC_WORD.search(value) else None  # else "e.g", "i.e"


#: a length given just before "runtime" ("60s ", "5 minute ")
_LENGTH_BEFORE = re.compile(
    r"\d[ \t]?(?:s|secs?|seconds?|m|mins?|minutes?|h|hours?)?[ \t-]{1,2}$", re.IGNORECASE
)
_LKP_METRIC_WORD = re.compile(r"[a-z]_|_[a-z]|iops|bw|lat|throughput|per_sec")
#: what ends a file's name, not an LKP metric's ("fio.write_iops", "fsmark.app_overhead" end in words)
_FILE_NAME = re.compile(
    r"\.(?:[chsoS]|txt|sh|cgi|py|pl|rs|log|patch|diff|json|ya?ml|html?|rst|md|ko|cfg|conf|ini)$"
)


def _metric_near(text: str, lo: int, hi: int, at: int) -> str | None:
    """The metric named nearest the cue in its sentence ("fio.write_iops", "iops", "read")."""
    best = None
    for m in _METRIC_RE.finditer(text, lo, hi):
        if m.start() > at + METRIC_REACH:
            break  # the ones after start farther still
        dist = min(abs(m.start() - at), abs(m.end() - at))
        if dist > METRIC_REACH:
            continue
        value = _metric_value(m)
        if value is None:
            continue
        if best is None or dist < best[0]:
            best = (dist, value)
    return best[1] if best else None


#: "a ~80% decrease in I/O latency", "an increase of the write throughput": what the cue is "in"
#: or "of" is what changed, whatever metric stands nearer before it ("~300% increase in throughput
#: and ~80% decrease\nin I/O latency")
_IN_OR_OF = re.compile(r"[ \t]{0,2}\n?[ \t]{0,2}(?:in|of)[ \t\n]{1,3}(?:the[ \t]{1,3})?", re.IGNORECASE)
#: a word before the metric word ("sustained", "I/O", "4k"): at most two are passed over
_WORD_BEFORE_METRIC = re.compile(r"[\w/\-]{1,20}[ \t]{1,3}")


#: a comparative's head noun of which less is better, a few words after it ("3 times higher write
#: IO latency", "longer wall clock time"): what rose is the latency, whatever stands nearer
_LOWER_BETTER_HEAD = re.compile(
    r"{sep}(?:[\w/-]{{1,20}}{sep}){{0,3}}?(?P<m>latenc(?:y|ies)|(?:wall[ \t-]?clock[ \t]{{1,3}})?(?:run[ \t-]?)?time|overhead)\b".format(
        sep=r"(?:[ \t]{1,3}|[ \t]{0,2}\n[ \t>]{0,6})"  # a space, or a line break ("40% lower\ncompletion latency")
    ),
    re.IGNORECASE,
)


#: comparatives that stand before the noun they size ("higher write IO latency")
_COMPARATIVES = frozenset(("higher", "lower", "longer", "more", "bigger", "larger", "greater", "worse"))


#: a direction verb's object sized after it: "decrease the 99.99th percentile I/O latency by
#: 85.4%", "reduces run time by 50%": the object is what moved and "by" gives how much, whatever
#: other metric or percentage stands nearer ("increased throughput by 89.4% and decrease ...")
_OBJECT_SIZED = re.compile(
    r"(?:[ \t]{1,3}|[ \t]{0,3}\n[ \t>]{0,8})(?:(?:the|its|our|their|overall|average|total)[ \t\n]{1,3})?"
    r"(?P<words>(?:[\w/.\-]{1,25}[ \t\n]{1,3}){0,4}?)"
    r"(?P<m>latenc(?:y|ies)|run[ \t-]?time|IOPS|throughput|bandwidth)"
    r"[ \t\n]{1,3}by[ \t\n]{1,3}(?:~|about[ \t]|around[ \t]|up[ \t]to[ \t]|nearly[ \t]|almost[ \t])?"
    r"(?P<pct>\d{1,3}(?:\.\d{1,2})?)[ \t]?%",
    re.IGNORECASE,
)
#: the object's metric word as stored
_OBJECT_METRIC = {"latenc": "lat", "run": "time", "iops": "iops", "throu": "bw", "bandw": "bw"}


def _object_sized(text: str, cue_end: int, hi: int) -> tuple[str, float] | None:
    """A verb's object and its size ("decrease the I/O latency by 85.4%"), or None."""
    m = _OBJECT_SIZED.match(text, cue_end, hi)
    if m is None or re.search(r"%|\bby\b", m["words"]):
        return None  # the figure belongs to the words in between, not to the object
    word = m["m"].lower()
    metric = next(v for k, v in _OBJECT_METRIC.items() if word.startswith(k))
    return metric, float(m["pct"])


def _metric_of(text: str, lo: int, hi: int, cue) -> str | None:
    """The metric a claim is about: the one its cue is "in" or "of", the latency or time a
    comparative heads, else the nearest one named."""
    head = _LOWER_BETTER_HEAD.match(text, cue.end, hi) if cue.text.lower() in _COMPARATIVES else None
    if head:
        return "lat" if head["m"].lower().startswith("latenc") else "time"
    m = _IN_OR_OF.match(text, cue.end, hi)
    if m:
        pos = m.end()
        for _ in range(3):
            metric = _METRIC_RE.match(text, pos, hi)
            value = _metric_value(metric) if metric else None
            if value:
                return value
            word = _WORD_BEFORE_METRIC.match(text, pos, hi)
            if not word:
                break
            pos = word.end()
    return _metric_near(text, lo, hi, cue.start)


#: a commit's title where mail cites it: after its SHA in quotes ('8e8320c9315c ("blk-mq: fix
#: performance regression with shared tags")', wrapped onto a second line), or a Fixes: trailer:
#: the words are the commit's, not the writer's claim (a stable bot's list of dependencies)
CITED_TITLE = re.compile(
    r"""[0-9a-f]{7,40}[ \t]{0,3}\n?[ \t>]{0,20}\([ \t]{0,3}["\u201c][^\n]{1,300}?(?:\n[ \t>]{0,20}[^\n]{1,300}?)?["\u201d][ \t]{0,3}\)
      | ^[ \t>]{0,20}Fixes:[^\n]{0,400}""",
    re.VERBOSE | re.MULTILINE,
)
#: what CITED_TITLE's first alternative holds after its SHA: an opening parenthesis and quote.  A
#: text holding neither this nor "Fixes:" (most texts) is not scanned: the scan tries both
#: alternatives at every character, this one jumps from one "(" to the next
_TITLE_OPENS = re.compile(r'\([ \t]{0,3}["\u201c]')


#: how far before its "(" a cited title's SHA may start (40 hex digits, three blanks, a line break
#: and twenty quote marks or blanks), and how far after it the title may end
_SHA_BEFORE_TITLE = 70
_TITLE_AFTER_OPEN = 700
#: a text longer than this is searched for cited titles near their "(" and "Fixes:" only
_WINDOWED_ABOVE = 20_000


def _cited_titles(text: str) -> list[tuple[int, int]]:
    """The spans of commit titles cited in ``text`` (read only where a SHA or "Fixes:" is): in a
    long text (a robot's report of 700 KB) only near each opening quote and "Fixes:", where a
    match can be; the spans are the whole text's but where a run of hex digits longer than a SHA
    ends at a title (the match then starts within the run)."""
    quoted = quoted_titles(text)  # and without one: 'Revert "block: improve the performance ..."'
    if "Fixes:" not in text and not _TITLE_OPENS.search(text):
        return quoted
    if len(text) <= _WINDOWED_ABOVE:
        return [m.span() for m in CITED_TITLE.finditer(text)] + quoted
    starts = [max(0, m.start() - _SHA_BEFORE_TITLE) for m in _TITLE_OPENS.finditer(text)]
    pos = text.find("Fixes:")
    while pos != -1:
        starts.append(text.rfind("\n", 0, pos) + 1)
        pos = text.find("Fixes:", pos + 1)
    windows: list[list[int]] = []  # overlapping windows merged: each title lies whole in one
    for lo in sorted(starts):
        hi = min(len(text), lo + _SHA_BEFORE_TITLE + _TITLE_AFTER_OPEN)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    return [m.span() for lo, hi in windows for m in CITED_TITLE.finditer(text, lo, hi)] + quoted


def _sentence_claims(text: str, doc, cues) -> list[Claim]:
    """One claim per kind-cue, negation and magnitude resolved within its sentence."""
    out = []
    titles = _cited_titles(text)
    posts = [c for c in cues if c.label == "NEG_POST"]
    #: where a cue that says which way starts: a "change" just before one names the patch ("the
    #: above change decreases 50%+ CPU consumption"), the other cue makes the claim
    directed = [c.start for c in cues if c.label in _KIND]
    for c in cues:
        if c.label not in _KIND and c.label != "CHANGE":
            continue
        if c.label == "CHANGE" and any(c.end <= d <= c.end + CHANGE_NAMES_PATCH_REACH for d in directed):
            continue
        if any(a <= c.start < b for a, b in titles):
            continue  # a cited commit's title: the commit's words
        kind = _KIND.get(c.label)
        word = c.text.lower()
        line = line_of(text, c.start)
        text_of_line = line_text(text, line)
        if (
            _FIELD_COUNT_AFTER_CUE.match(text, c.end)
            or _C_DECLARATION.match(text_of_line)
            or _SOURCE_LISTING_LINE.match(text_of_line)
            or _DIAGNOSTIC_LINE.match(text_of_line)
            or field_listing(text_of_line)
        ):
            continue  # a tool's field ("drop: 0/0", "Relative Performance: 0x3 Degraded"), code, a checker's warning
        if (
            word in _REGRESSION_NOUNS
            and _NAMES_TESTING.match(text, c.end)
            and not _PCT_JUST_BEFORE.search(text, max(0, c.start - 12), c.start)
        ):
            continue  # "a regression test suite": the name of the testing
        if (
            word in _DROP_WORDS
            and _OBJECT_AFTER_DROP.match(text, c.end)
            and not any(map(_metric_value, _METRIC_RE.finditer(text, c.end, c.end + DROP_OBJECT_REACH)))
            and not _FALL_MEASURED.search(text, c.end, c.end + DROP_OBJECT_REACH)
        ):
            continue  # "drop us a note": the verb, not a fall
        if c.label == "CHANGE" and _SET_TO.match(text, c.end):
            continue  # "change it to 25% to keep the current behavior": a value set, not a change measured
        if (
            word == "hit"
            and not _HIT_BY_SIZE.match(text, c.end)
            and (
                _HIT_VERB_BEFORE.search(text, max(0, c.start - 12), c.start)
                or _HIT_OBJECT_AFTER.match(text, c.end)
            )
        ):
            continue  # the verb: "once the 100% util is hit"
        if word in _WENT and setting_turned_before(text, c.start):
            continue  # "the timeout should be increased from 300ms to 1000ms": a knob turned
        if word == "loss" and _LOSS_OF_OTHER.search(text, max(0, c.start - 16), c.start):
            continue  # "power loss", "data loss": not a loss of speed
        if word.startswith("improvement") and _FOR_IMPROVEMENT.search(text, max(0, c.start - 20), c.start):
            continue  # "room for improvement": a gain asked for, none measured
        # look only near the cue: a sentence in mail can run for pages (fio output has no full stops)
        s0, s1 = max(c.sent_start, c.start - SENTENCE_REACH), min(c.sent_end, c.end + SENTENCE_REACH)
        gone = [p for p in posts if c.end <= p.start <= c.end + NEG_POST_REACH and p.start < s1]
        if gone and _CLEARED_BY_CHANGE.search(text, s0, s1):
            gone = []  # "if i revert this commit ... the performance regression disappears": it existed
        negated = _negated_before(doc, c) or bool(gone)
        if c.label == "CANNOT_REPRODUCE" and _ON_A_KERNEL.match(text, c.end):
            continue  # "This does not reproduce on 6.5": a kernel without it, found, not a report doubted
        if c.label == "CANNOT_REPRODUCE" and (
            _NO_MORE.match(text, c.end) or _WITH_THE_FIX.search(text, max(s0, c.start - FIX_NAMED_REACH), s1)
        ):
            continue  # "the problem is not reproducible anymore" with a patch applied: the fix works
        if c.label == "CANNOT_REPRODUCE" or c.label == "NO_CHANGE":
            negated = False  # the negation is part of the cue
        if negated:
            if kind == "regression":
                kind = "no-regression"
            else:
                continue  # "I don't see the improvement": no claim
        reach = 30 if c.label.endswith("_WEAK") else 80
        # a cue opening with the measure it names is sized from its verb: "performance was
        # substantially down by 80%" is as near its size as "down by 80%"
        at = c.start + word.rfind(" down") + 1 if word.endswith(" down") else c.start
        p0, p1 = _clause(text, s0, s1, c.start, c.end) if c.label == "CHANGE" else (s0, s1)
        pct, low = (
            _nearest_pct(text, p0, p1, at, reach)
            if kind in ("regression", "improvement", None)
            else (None, None)
        )
        sized = _object_sized(text, c.end, s1) if word in _WENT or word in _NEEDS_METRIC else None
        if sized is not None:
            pct, low = sized[1], None
        near = pct  # the range's low end holds only while the size is this percentage
        # the values a direction word goes from and to: its size, before any percentage near it
        if word in _WENT:
            went = _from_to_change(text, c.end, s1, word in _WENT_DOWN) or _to_change(
                text, c.end, s0, s1, word in _WENT_DOWN
            )
        elif kind == "regression":
            # "slowed from about 2.9 gb/sec to about 949 mb/sec": a fall of a rate, a rise of a time
            went = _from_to_change(text, c.end, s1, True) or _from_to_change(text, c.end, s1, False)
        else:
            went = None
        if pct is None and went is None and kind == "regression":
            went = _fraction_pct(text, c.end)
        if pct is None and kind in ("regression", "improvement", None):
            pct = went  # "increased from 2min to 40min": a weak word sized so is a claim
        factor = (
            _factor_of(text, c.start, c.end, s0)
            if pct is None and kind in ("regression", "improvement")
            else None
        )
        if (
            (kind is None or c.label.endswith("_WEAK"))
            and pct is None
            and factor is None
            and not (kind == "regression" and _kernels_compared_after(text, c.start, c.end, s0, s1))
        ):
            continue  # a bare "difference" / "better" says nothing
        levels = _LEVELS_AFTER.match(text, c.end, s1) if word in _WENT else None
        if levels:
            # "Network utilisation drops from 97% to 14%": two levels of a share, not a 14% change;
            # what moved is what is named just before the word, and a share of nothing named
            # (utilisation, a profile's "prep side") is neither good nor bad; of a named one the
            # change is the levels' ("sys time drops from 37% to 14%": 62.16% less)
            lo = text.rfind("\n", 0, c.start) + 1
            if not text[lo : c.start].strip():  # the word starts its line: the subject ended the one above
                lo = text.rfind("\n", 0, max(0, lo - 1)) + 1
            metric = _metric_near(text, max(s0, lo, c.start - LEVELS_SUBJECT_REACH), c.start, c.start)
            if metric is None:
                continue
            pct = _relative_change(float(levels["a"]), float(levels["b"]), word in _WENT_DOWN)
        else:
            metric = sized[0] if sized is not None else _metric_of(text, s0, s1, c)
            if metric is None and word in _WENT:
                # "the runtime increased from 15 seconds to 5 minutes"
                metric = _timed_values(text, c.end, s1)
            pct = went or pct
        if word in _NEEDS_METRIC and metric is None:
            continue  # "reduces lock contention by 70%": less of what? a bad thing, as often as not
        if (
            metric is None
            and pct is None
            and (word in _WENT or word in _DROP_WORDS or word in _STATE_WORDS)
            and not _SPEED_WORD.search(
                text, max(s0, c.start - SPEED_WORD_REACH), min(s1, c.end + SPEED_WORD_REACH)
            )
            and not (word in _DROP_WORDS and _SIZED_BEFORE.search(text, max(s0, c.start - 20), c.start))
        ):
            continue  # "- Drop already merged patch", "the memory pressure has decreased": not of speed
        if metric and kind in ("regression", "improvement") and word in _WENT and lower_is_better(metric):
            # "latency dropped by 30%", "sys time is 40% higher": the good direction is down
            kind = "improvement" if word in _WENT_DOWN else "regression"
        if pct is None and factor is not None and metric is None:
            metric = _timed(text, s0, s1)  # "slowed down 9x (6.5: ~1 min 6.6: ~9 min)": a time, 800% more
        if pct is None and factor is not None:
            if (
                word not in _WENT
                or metric is not None
                or _SPEED_NAMED_BEFORE.search(text, max(s0, c.start - 16), c.start)
            ):
                pct = _factor_pct(factor, kind, metric)  # "a 7x slowdown": 85.71% of the speed lost
            elif c.label.endswith("_WEAK"):
                continue  # "IO pressure is 10x higher": higher of what, and is that bad?
        if kind == "regression" and pct is None and _asked(text, max(s0, c.start - ASKED_REACH), c.start):
            continue  # asked or supposed, not found: "to see if it's a regression", "whether X caused a regression"
        if kind == "regression" and pct is None and _asked_yes_or_no(text, c.sent_start, c):
            continue  # "Does the fix cause a performance regression?": asked, not found
        if kind == "regression" and _SUPPOSED.search(text, max(s0, c.start - SUPPOSED_REACH), c.start):
            continue  # "then this would be (at worst) a 2x slowdown": what might happen, not what did
        if pct is None and _opens_commit_title(text, c.start):
            continue  # "block: Drop spurious might_sleep() from blk_put_queue()": the patch's verb
        out.append(
            Claim(
                kind=kind or "",
                stated_pct=pct,
                metric=metric,
                cue=" ".join(c.text.split()),
                evidence=Evidence(line_start=line, line_end=line, text=text_of_line[:500] or c.text),
                stated_low=low if pct is not None and pct == near else None,
            )
        )
    return out


def _resolve_changes(claims: list[Claim]) -> list[Claim]:
    """A bare "33.65% performance change" takes the direction the text states elsewhere."""
    kinds = {c.kind for c in claims if c.kind in ("regression", "improvement")}
    out = []
    for c in claims:
        if c.kind == "":
            if kinds == {"improvement"}:
                c.kind = "improvement"
            elif "regression" in kinds:
                c.kind = "regression"
            else:
                continue
        out.append(c)
    return out


def _dedupe(claims: list[Claim]) -> list[Claim]:
    """Drop repeats on one line: the same (kind, pct, metric) once, and a claim
    without a number when the same kind and metric on that line has one."""
    out: list[Claim] = []
    kept: dict[tuple, list[Claim]] = {}  # per (kind, line, metric): the claims of ``out`` not dropped
    dropped: set[int] = set()
    for c in claims:
        key = (c.kind, c.evidence.line_start, c.metric)
        same = kept.get(key, [])
        if any(o.stated_pct == c.stated_pct or c.stated_pct is None for o in same):
            continue
        dropped.update(id(o) for o in same if o.stated_pct is None)
        kept[key] = [o for o in same if o.stated_pct is not None] + [c]
        out.append(c)
    return [o for o in out if id(o) not in dropped]


def find_claims(text: str) -> list[Claim]:
    """Claims about a performance change in ``text``, in text order. Never raises."""
    if not isinstance(text, str) or not text.strip():
        return []
    try:
        # only paragraphs holding a word some claim cue needs ("regression", "faster", ...)
        doc = reading.parse(
            text,
            "claims",
            anchors=CLAIM_LABELS,
            weak_anchors=WEAK_CLAIM_LABELS,
            weak_needs=_PCT_HINT_RE,
            reach=READ_REACH,
        )
        cues = reading.cues(doc)
        claims = _sentence_claims(text[: reading.MAX_DOC_CHARS], doc, cues)
        return _dedupe(_resolve_changes(claims))
    except cue_files.CueFileError:
        raise  # a broken rule file is our bug, not bad input
    except Exception as exc:  # never let one message stop a run
        log.warning("find_claims failed: %s", exc)
        return []


#: a claim's line naming the kernel change it measures (a commit, a kernel, a patch, a revert), or
#: the subject's
_NAMES_A_CHANGE = re.compile(
    r"^Subject:|\b(?:commit|kernels?|patch(?:es|ed)?|revert\w{0,3}|bisect\w{0,3}|upgrad\w{1,4}|[0-9a-f]{8,40}"
    r"|v?[2-7]\.\d{1,2}(?:\.\d{1,3})?(?:-rc\d{1,2})?)\b",
    re.I,
)


def stated_regression_pct(
    claims: list[Claim], computed: float | None = None, first_message: str | None = None
) -> float | None:
    """The size a thread states for its regression: the first point figure of a regression claim
    ("about 6% regression"), else the first range's, which is the computed size where that falls
    in it ("10-15% slower" beside dd's 788 -> 689 MB/s: 12.56) and its upper end otherwise.
    With ``first_message``, what the subject and that message (the report) state come first:
    a reply's figure ("I meant 50% better than the bisected regression") sizes nothing the
    report sized ("[BUG] 500-2000% performance regression w/ 5.10").

    A rise in CPU use is a symptom a report mentions ("cpu utilization increased by 20%"),
    not the regression's magnitude: it is not taken."""
    sized = [c for c in claims if c.kind == "regression" and c.stated_pct is not None and c.metric != "cpu"]
    if first_message is not None:
        own = [c for c in sized if c.evidence is not None and c.evidence.message_id == first_message]
        sized = own or sized
    points = [c for c in sized if c.stated_low is None]
    # the figure the subject states, or one said of the change ("-31.8% performance down with the
    # commit"), before one said of a setting compared ("it is 50% slower than the intended limit")
    point = next(
        (c for c in points if _NAMES_A_CHANGE.search(c.evidence.text or "")), points[0] if points else None
    )
    if point is not None:
        return point.stated_pct
    if not sized:
        return None
    first = sized[0]
    if (
        computed is not None
        and first.stated_low is not None
        and first.stated_low <= computed <= first.stated_pct
    ):
        return computed
    return first.stated_pct
