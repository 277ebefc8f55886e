"""Is a thread a performance regression report?  Named rules, each saying why.

A performance regression report is a thread where someone measures or traces a **slowdown
caused by a kernel change**: a newer kernel, a commit, a patch, a series.  The rules below
read a thread's findings (claims, commits, kernels, labelled results) and its mail, and each
one that applies gives a :class:`~lkmlkb.model.Reason`: its name, what it decided, and the
message and line it read.  :func:`classify` runs them in a fixed order:

1. **What rules a thread out**, whatever else it holds: a pull request; a userspace project's
   patch or a test added to a test suite (btrfs-progs, fstests, ...); a stable backport
   bundle (its patches carry a fix's log); a report taken back by the robot or its reporter
   ("false positive", "so not a regression"); a failure with no slowdown measured (a hang, an
   oops, corruption, a failed test), even when bisected.
2. **What makes it a report**:
   * ``robot-report``: the kernel test robot measured a regression of a metric;
   * ``fix-of-slowdown``: a patch or a revert whose own log says it fixes a performance
     regression (its resends and cover letter too): the report is in the state "fix proposed";
   * ``traced-slowdown``: a slowdown named and traced to a commit (a bisection, "caused by",
     a revert that brings the speed back), with or without figures;
   * ``measured-slowdown``: a slowdown measured (a claim with its size, a baseline and a worse
     value) where the thread changes the kernel (two kernels, a commit, a patch, an upgrade);
   * ``reply-reports-slowdown``: a reply in a patch's thread that measures the patch slowing
     something down once it is in a tree ("reverting it brings the numbers back", months later);
   * ``named-slowdown``: a person's subject naming a regression of speed, stalls or delays, the
     first message naming the kernels it began on, without a figure.
3. **Look-alikes among those**: the change measured is a gain (``improvement``); a patch
   measuring its own change (``patch-own-numbers``); two configurations compared on one kernel
   (``config-comparison``: a measured slowdown with no kernel change in the thread).

The report page and ``lkmlkb show`` list the reasons, so a user sees which rule decided and
where; a rule that misfires is found there.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, lru_cache

from lkmlkb.extract.kernel_versions import find_versions, normalize_version, sort_key
from lkmlkb.extract.lines import OpensALine, line_text, word_spans
from lkmlkb.extract.metric_units import lower_is_better
from lkmlkb.extract.prefilter import BENCHMARK_NAMED
from lkmlkb.model import Claim, CommitCitation, KernelMention, Message, Reason, Result
from lkmlkb.threads.people import same_sender
from lkmlkb.threads.threader import PATCH_TAG, is_reply_subject, own_subject, patch_version

# ------------------------------------------------------------------ vocabulary


def folded(text: str) -> str:
    """``text`` in lower case as ``re.I`` folds it (the long s and the dotless and dotted I
    match s and i), one character for one."""
    low = text.lower()
    if not low.isascii():
        low = low.replace("\u017f", "s").replace("\u0131", "i").replace("i\u0307", "i")
    return low


#: :func:`folded`, made once for the many tests of one message
lowered = lru_cache(maxsize=1024)(folded)


class Gated:
    """A pattern behind a cheap test: every text it can match holds one of ``needles`` (lower
    case, looked for in the lowered text; ``exact``: as written, in the text itself).  Most of
    a thread's text (patches, logs, long replies) holds none, and there the pattern, whose
    alternatives open with ``\\b`` and scan every position, is not run at all.  A pattern that
    never crosses a line end (``lines``) is run on the lines holding a needle only.  A test
    runs each gated pattern with and without its gate over the bundled mail and the dev set."""

    def __init__(
        self,
        pattern: re.Pattern[str],
        needles: tuple[str, ...],
        exact: bool = False,
        lines: bool = False,
        once: bool = False,
    ):
        self.pattern = pattern
        self.needles = needles
        self.exact = exact
        self.lines = lines
        #: read on texts made for one test (a message's first lines): their lower case is not kept
        self.fold = folded if once else lowered

    def search(self, text: str) -> re.Match[str] | None:
        hay = text if self.exact else self.fold(text)
        if not any(n in hay for n in self.needles):
            return None
        if not self.lines or len(hay) != len(text):  # lower() may change a length: no line map
            return self.pattern.search(text)
        for lo, hi in word_spans(hay, self.needles):
            m = self.pattern.search(text, lo, hi)
            if m:
                return m
        return None


#: a patch, a series' cover letter, a pull request or a topic proposal by its subject
PATCH_SUBJECT = re.compile(
    r"^\s{0,5}(?:\w{1,6}\s{0,2}[:：]\s{0,3}){0,3}\[[^\]]{0,80}\b(?:PATCH|PATCHSET|PATCHv\d{1,3}|RFC|PULL|TOPIC)\b",
    re.I,
)
#: a patch or a series by its subject ("[PATCH v2 0/7]", "[RFT RFC PATCH 0/8]"; not a bare "[RFC]":
#: a question or a report)
PATCH_WORD = re.compile(r"\[[^\]]{0,80}\bPATCH", re.I)
#: the kernel test robot's subject, "[tree:branch] [subsystem]  <commit>: <what it found>": a
#: metric's change ("fio.write_iops -72.9% regression") or a failure ("ltp.statx06.fail",
#: "Assertion_failed", "BUG:kernel_NULL_pointer_dereference")
ROBOT_SUBJECT = re.compile(
    r"^(?:(?:Re|RE|Fwd|FW|AW)\s{0,2}:\s{0,3}){0,4}(?:\[[^\]\n]{1,80}\]\s{0,3}){0,4}[0-9a-f]{10,12}:\s{1,4}"
    r"(?P<found>\S[^\n]{0,300})$"
)
#: what the robot found, in its subject or its first lines: "fio.write_iops -72.9% regression",
#: "noticed a -5.2% regression of sysbench-fileio.write_operations/s", "74.3% regression"
ROBOT_CHANGE = re.compile(
    r"(?P<pct>[-+]?\d{1,4}(?:\.\d{1,2})?)%\s{1,3}(?P<kind>regression|improvement)\b", re.I
)
ROBOT_BODY = Gated(
    re.compile(r"kernel\s+test\s+robot\s+noticed|FYI,\s+we\s+noticed|Greeting,\s+FYI", re.I),
    ("noticed", "fyi"),
    once=True,
)
#: a diff, a cover letter's diffstat or a pull request in the first message
DIFF_IN_BODY = re.compile(
    r"""^(?:diff[ ]--git[ ]a/ | ---[ ]a/\S | \+\+\+[ ]b/\S          # a diff
         | [ ]\d{1,5}[ ]files?[ ]changed,[ ]\d{1,7}[ ]insertion      # a cover letter's diffstat
         | The[ ]following[ ]changes[ ]since[ ]commit)                # a pull request
    """,
    re.M | re.X,
)
#: a word of performance in a subject ("perf", "regression", "iops", "slow", "5%", "MB/s")
PERF_WORD = re.compile(
    r"perf|regress|iops|throughput|bandwidth|latenc|slow|fast|speed|\d%|\bbw\b|\bMB/s", re.I
)
#: a regression in words ("regression", "slowdown", "degraded", "drop")
SLOWDOWN = re.compile(r"regress|slow|degrad|\bdrops?\b", re.I)
#: a measure of speed named in words (not "regression" itself: a crash is a regression too)
PERF_NAMED = Gated(
    re.compile(
        r"\bperformance\b|\biops\b|throughput|latenc"
        # a share a scheduler or a limit hands out is no speed measured: "sched/deadline: fix cpusets
        # bandwidth accounting", "Fix SCHED_DEADLINE bandwidth accounting during suspend" (cgroups,
        # 2019-06 and 2025-03), "per-device bandwidth control", "PCIe bandwidth controller"
        r"|bandwidth(?![ \t](?:accounting|restoration|reservation|control\w{0,3}|enforcement|quota"
        r"|throttl(?:e|es|ing)\b|limit(?:s|ing)?\b|allocation))"  # not "bandwidth limited to 1 GB/s"
        r"|\bslow(?:s|ed|ing|er|est|ly|ness|downs?)?\b|(?<!-)\bspeed(?:s|ed)?\b"
        # the short form before a fall: "Perf regression in 6.16-rc1", "6.10-rc vs. 6.9 perf
        # degradation" (not the tool: "perf record", "perf top")
        r"|\bperf[ \t]{1,3}(?:regress|degrad|drop|hit\b|loss\b|penalt)",
        re.I,
    ),
    ("performance", "iops", "throughput", "bandwidth", "latenc", "slow", "speed", "perf"),
    lines=True,
)
#: a patch saying what it does to a regression ("Fix performance regression", "Revert ...", "restore")
FIX_WORD = re.compile(r"\b(?:fix(?:es|ed|ing)?|revert(?:s|ed|ing)?|restor(?:e|es|ed|ing))\b", re.I)
FIXES_TRAILER = re.compile(r"^Fixes:[ \t]{0,4}[0-9a-f]{7,40}\b", re.M)
#: a revert by its subject: 'Revert "md: ..."', '[PATCH] Revert "..."', 'Re: [PATCH 6.1] Revert ...'
REVERT_SUBJECT = re.compile(
    r"^(?:(?:Re|RE|Fwd)\s{0,2}:\s{0,3})*(?:\[[^\]]{0,80}\]\s{0,3})*(?:[\w/.-]{1,40}:\s{0,3})?Revert\s", re.I
)
THIS_REVERTS = re.compile(r"^This reverts commit [0-9a-f]{7,40}", re.M)
#: a pull request: "[GIT PULL] md-fixes 20230524", "[PULL] ...", or a request-pull body
PULL_SUBJECT = re.compile(r"\[(?:GIT\s{1,3})?PULL\b", re.I)
PULL_BODY = re.compile(r"^The following changes since commit [0-9a-f]{7,40}", re.M)
#: a stable backport bundle: "[PATCH AUTOSEL 5.10 12/30]", "[PATCH 5.15 012/200]",
#: "[PATCH 6.1.y]", "[PATCH stable 5.10]", 'Patch "x" has been added to the 6.1-stable tree',
#: 'FAILED: patch "[PATCH] x" failed to apply to 5.15-stable tree'
BACKPORT_SUBJECT = re.compile(
    r"""\[PATCH[^\]]{0,30}\bAUTOSEL\b
      | \[PATCH\s{1,3}(?:stable\s{1,3})?\d\.\d{1,2}(?:\.\d{1,3}|\.y)?(?:-stable)?(?:\s{1,3}v\d{1,2})?(?:\s{1,3}CANDIDATE)?(?:\s{1,3}\d{1,4}/\d{1,4})?\]
      | \bstable\s{1,3}candidates?\b
      | \[PATCH\s{1,3}stable\b
      | ^(?:Re:\s{0,3})?Patch\s"[^"]{1,200}"\shas\sbeen\sadded\sto\sthe
      | ^(?:Re:\s{0,3})?FAILED:\spatch\s"
      | ^(?:Re:\s{0,3})?\[?(?:\d\.\d{1,2}|\d\.\d{1,2}\.\d{1,3})(?:-stable)?\]?\s{1,3}review\b""",
    re.I | re.X,
)
#: a report taken back: "Sorry this is a false positive report", "please ignore this report",
#: "so not a regression", "this is not a regression after all", "we cannot reproduce ... false alarm",
#: "thankfully it's not a kernel regression"
RETRACTION = Gated(
    re.compile(
        r"""\bfalse[ \t]{1,3}(?:positive|alarm)\b
      | \bplease[ \t]{1,3}(?:ignore|disregard)[ \t]{1,3}(?:this|the|my)[ \t]{1,3}(?:report|mail|regression)
      | \b(?:so|thus|therefore|hence|thankfully|luckily|fortunately)[ \t,]{1,3}(?:it(?:['’]s|[ \t]is)|this[ \t]is|that['’]s)?
        [ \t]{0,3}not[ \t]{1,3}a[ \t]{1,3}(?:kernel[ \t]{1,3})?regression
      | \bnot[ \t]{1,3}a[ \t]{1,3}(?:kernel[ \t]{1,3})?regression[ \t]{1,3}(?:after[ \t]{1,3}all|then)\b
      | \b(?:it(?:['’]s|[ \t]is|[ \t]was)|this[ \t](?:is|was)|that['’]s)[ \t]{1,3}not[ \t]{1,3}a[ \t]{1,3}(?:kernel[ \t]{1,3})?regression
        [ \t]{0,3}(?:at[ \t]{1,3}all)?[.,;!]""",
        re.I | re.X,
    ),
    ("false", "please", "regression"),
    lines=True,
)
#: the regression tracker's verdict that there is no regression, a command in its own line of new
#: text whose reason doubts the slowdown itself ("#regzbot invalid: test too noisy and the results
#: aren't clear cut.", linux-btrfs 2022-02; "it's not a regression and the bisection is invalid"),
#: whoever sends it; not one that keeps the slowdown and drops its tracking ("#regzbot invalid:
#: caused by a change of defaults", linux-ext4 2022-09: a measured slowdown, intended), nor the
#: command quoted as an example inside a sentence.  "#regzbot resolve: <why>" ends the tracking
#: the same way when the why doubts the slowdown ("#regzbot resolve: turned out it's not a
#: regression, see ...", linux-hyperv 2023-06; "Nothing is broken due to the patch, a fix is
#: needed on the KernelCI side", linux-pm 2023-10); a resolve saying the fix came ("various
#: changes merged for 6.6 improve things again") is the status's, not this
REGZBOT_INVALID = Gated(
    re.compile(
        r"""^[ \t]{0,3}\#regzbot[ \t]{1,3}(?:invalid|resolved?)\b[^\n]{0,120}?
            (?:nois[ey]|not[ \t]{1,3}(?:a|the[ \t]{1,3}kernel'?s?)[ \t]{1,3}regression|not[ \t]{1,3}reproduc
              |(?:can'?t|cannot|could[ \t]{1,3}not|couldn'?t)[ \t]{1,3}reproduce|user[ \t-]?space|hardware
              |nothing[ \t]{1,3}(?:is|was)[ \t]{1,3}broken|misconfigur
              |false[ \t]{1,3}(?:alarm|positive)|bisect\w{0,3}[ \t]{1,3}(?:is|was)[ \t]{1,3}(?:invalid|wrong|bogus))""",
        re.I | re.M | re.X,
    ),
    ("#regzbot",),
)
#: the kernel test robot's team, who may take its report back
ROBOT_TEAM = re.compile(r"@intel\.com>?$|lkp@|oliver\.sang|kernel test robot", re.I)
#: a failure: what a functional regression is about (not a commit's purpose, "an intentional bug fix",
#: nor a report of one, "this bug report"); a device or a function gone ("HC dies under high I/O
#: load", "adapter stopped working", "webcam no longer found": linux-usb), memory run out ("MGLRU OOM
#: problem", cgroups 2024-06: a dd's rates beside the OOM kills it causes); not "broke", said of a
#: behaviour a commit changed as often ("seems broke this way, let's fix it", of a trim's speed)
FAILURE = re.compile(
    r"""\b(?:hang|hangs|hung|stuck|deadlock\w{0,2}|lockup|livelock|oops|panic\w{0,2}|crash\w{0,2}|BUG:|KASAN|UBSAN
          |use-after-free|null[ \t-]pointer|corrupt\w{0,5}|data[ \t]loss|warning|WARN(?:_ON)?|splat|fail\w{0,4}
          |error|errors|broken|breaks|leak\w{0,2}|unresponsive|D[ \t]state|EIO|ENOSPC|reboot\w{0,3}|freez\w{0,3}
          |dies|died|stop(?:s|ped)[ \t]working|OOM|oom[ \t-]?kill\w{0,4}|out[ \t]of[ \t]memory
          |no[ \t]longer[ \t](?:found|detected|recogni[sz]ed|works?|working|functional|boots?|available|enumerat\w{1,4}
            |probes?|probed|loads?|loaded|mounts?|mounted|responds?|responding)
          |not[ \t]work\w{0,3}|doesn't[ \t]work|won't[ \t]boot|missing|inaccura\w{2,5}|incorrect\w{0,2}
          |lost[ \t](?:writes?|requests?|data|I/?Os?|updates?|files?|wake-?ups?|interrupts?|completions?)
          |(?<![\[\w-])bug(?![\]\w-]|[ \t]{0,3}\d|[ \t](?:fix|report)))\b""",
    re.I | re.X,
)
#: "broke" in a subject: what a commit broke ("resume with a Thunderbolt dock broke with commit
#: e8b908146d44", linux-pci 2023-08; "The fix e5f4ca3fce90 broke Intel Edison host mode",
#: linux-usb); in a message's words it says as often that a behaviour changed
BROKE = re.compile(r"\bbroke\b", re.I)
#: a thread changing the kernel, in words: "since 6.5", "after upgrading to", "newer kernels",
#: "kernel update", "used to take 12 s, now 51 s", "between 5.15 and 5.16", "before the series"
KERNEL_CHANGE_WORDS = re.compile(
    r"""\b(?:since|after|before)[ \t]{1,3}(?:the[ \t]{1,3})?(?:v|linux[ \t-]{0,2}|kernel[ \t]{1,3})?\d\.\d{1,2}
      | \b(?:upgrad\w{1,4}|updat\w{1,4}|mov\w{1,4}|switch\w{1,4}|migrat\w{1,4})[ \t]{1,3}(?:\w{1,12}[ \t]{1,3}){0,3}
        (?:to|from)[ \t]{1,3}(?:the[ \t]{1,3})?(?:v|linux[ \t-]{0,2}|kernel[ \t]{1,3}|new\w{0,3}|latest|\d\.\d)
      # not advice: "try a new kernel and see if that helps" (linux-bcache, 2022) changes nothing yet
      | (?<!try[ ])(?<!try[ ]a[ ])(?<!trying[ ]a[ ])(?<!use[ ]a[ ])(?<!test[ ]a[ ])(?<!testing[ ]a[ ])
        \b(?:newer|older|new|old|previous)[ \t]{1,3}kernels?\b
      | \bkernel[ \t]{1,3}(?:upgrade|update|version[ \t]{1,3}change)
      | \bused[ \t]{1,3}to[ \t]{1,3}(?:\w{1,12}[ \t]{1,3}){0,8}?(?:now|today|currently|nowadays)\b
      | \bbetween[ \t]{1,3}(?:v|linux[ \t-]{0,2}|kernels?[ \t]{1,3})?[2-7]\.\d{1,2}\S{0,20}[ \t]{1,3}and[ \t]{1,3}v?[2-7]\.\d
      # not a tree as it is: "on the nvme-5.7-rc1 branch, with no other patches applied"
      | \b(?:with(?:out)?|before|after)[ \t]{1,3}(?!(?:no|any)[ \t])(?:the|this|that|your|his|her|my)?[ \t]{0,3}
        (?:[\w-]{1,20}[ \t]{1,3}){0,3}(?:patch\w{0,2}|series|change|revert
          # a commit of the kernel's history, not a file system's ("after each commit is
          # finished, the log tree is discarded", "before the transaction commit")
          |(?<!each[ ])(?<!every[ ])(?<!next[ ])(?<!transaction[ ])(?<!log[ ])(?<!journal[ ])(?<!jbd2[ ])commit(?![=\w]))  # not a mount option ("-o commit=999")
        \b
      | \brevert\w{0,3}[ \t]{1,3}(?:the[ \t]{1,3}|this[ \t]{1,3}|that[ \t]{1,3})?(?:commit|patch|change)""",
    re.I | re.X,
)
#: "regression", "regressed": a change over time (a slowdown is one only when something was faster)
REGRESS_WORD = re.compile(r"regress", re.I)
#: a result's condition that is a change of the kernel: a patch, a commit, a revert (not "before" and
#: "after" alone: the two sides of any change statement, "from 85K to 20K IOPS during the scrub")
CHANGE_CONDITION = re.compile(
    r"\b(?:patch\w{0,3}|series|commit|revert\w{0,2}|unpatched|vanilla|"
    r"baseline|base|fixed?|[0-9a-f]{7,40})\b",
    re.I,
)


#: a maintainer taking a patch, in a reply of its own, at the start of a line (not a diff's context
#: line): "Applied, thanks!" (b4's thank-you opens so), "Applied to for-6.8/block", "Queued for
#: 6.9", "Thanks, applied"; not a tester's "Applied and trying", a wrapped line of prose ("applied
#: at full swing?"), the robot's "If your patch is applied to the wrong git tree", nor "Can this
#: be picked up?" or "queued up a revert" (of 25 "queued/picked ... up" in linux-block and
#: linux-xfs replies, 14 took nothing)
PATCH_TAKEN = Gated(
    re.compile(
        r"^(?:Applied|Queued)(?:[,.!]|[ \t]{1,3}(?:to|into|for|in)\b|[ \t]*$)"
        r"|^(?i:thanks,?[ \t]{1,3}(?:applied|queued))\b"
        # not a tester's "I applied it to my tree and ran fio", "I applied it to 6.1.30 and ..."
        r"|^(?i:(?:I've|I[ \t]have|I)[ \t]{1,3}(?:applied|queued)[ \t]{1,3}(?:this|it|the[ \t]{1,3}patch))\b"
        r"(?![ \t]{1,3}(?i:to|on)[ \t]{1,3}(?i:my|our|a|v?\d))"
        # ... nor "I applied this to Fedora's 5.10.7-200.fc33.x86_64 and timed an untar"
        r"(?!(?:[^\n.]|\.(?=\w)){0,60}\b(?i:ran|run|test(?:ed|ing)?|tried|try|timed|measured|benchmarked)\b)"
        # after a word of thanks on the same line: "Nice catch, thanks, applied."
        r"|^(?i:[\w ,!]{1,30}?[,.!][ \t]{1,3}thanks,?[ \t]{1,3}(?:applied|queued))\b"
        # a set, or a tree named in the middle of a line: "Applied the set to md-next", "I added a
        # comment and applied it to md-fixes"; not a tester's "applied it to my tree"
        r"|^Applied[ \t]{1,3}(?:the[ \t]{1,3}(?:set|series|patch(?:es|set)?|fix(?:es)?)|it|this|them|both|all)"
        r"[ \t]{1,3}(?:to|into)\b"
        r"|\b(?i:applied[ \t]{1,3}(?:it|this|them|the[ \t]{1,3}(?:set|series|patch(?:es)?|fix))[ \t]{1,3}(?:to|into))"
        r"[ \t]{1,3}(?:[\w.]{1,20}-(?:next|fixes|current|linus|stable)|for-[\w./-]{1,30}|[\w-]{1,30}/[\w.-]{1,30}\.git)\b"
        # the patchwork bot: "This patch was applied to jaegeuk/f2fs.git (dev)", "This series was
        # applied to netdev/net.git (main)"
        r"|^This[ \t](?:patch|series|pull[ \t]request)[ \t](?:was|has[ \t]been)[ \t]applied[ \t]to\b"
        # "Merged, thanks!", "Merged to misc-next"; not a changelog's "Merged patches 8 and 11 of v4"
        r"|^Merged(?:[,.!]|[ \t]{1,3}(?:to|into)\b|[ \t]*$)"
        # a tree's maintainer: "Added to misc-next, thanks", "I've added the series to for-next",
        # "Patch added to misc-next", "Moved from for-next to misc-next", "I'll add it to
        # misc-next", "patch added to devel queue"
        r"|(?i:\b(?:added|pushed|moved|(?:I'll|I[ \t]will)[ \t]{1,3}add)\b[^\n.?]{0,30}?\bto[ \t]{1,3}"
        r"(?:misc-next|for-next|for-[\w.]{1,20}|[\w.]{1,20}-next|devel[ \t]queue))\b"
        # stable's queue holds only what mainline took: "the patch has been queued to 6.15 & 6.12
        # stable", "It's in the 6.10.y queue now"
        r"|(?i:\b(?:queued|added)[ \t]{1,3}(?:to|for|in)[ \t]{1,3}(?:the[ \t]{1,3})?\d[\d.]{2,8}[\d., &y]{0,30}?[ \t]stable)\b"
        r"|(?i:\bin[ \t]{1,3}the[ \t]{1,3}\d[\d.]{2,8}(?:\.y)?[ \t]{1,3}(?:stable[ \t]{1,3})?queue)\b"
        # the fix sent on upstream by its tree's maintainer: "The pull including this fix has been
        # sent off to Linus", "I'm going to send another rc3 pull request with this patch", "I
        # pushed the fix and sent it out as an rc2 fix"; not a request ("Could you send a pull
        # request with this fix?")
        r"|(?i:\bpull(?:[ \t]{1,3}request)?[ \t]{1,3}(?:with|including|containing|carrying)[ \t]{1,3}"
        r"(?:this|the|that|your)[ \t]{1,3}(?:fix|patch)\b)(?![^\n]{0,80}\?)"
        r"|(?i:\bsent[ \t]{1,3}(?:it|this|the[ \t]{1,3}fix)[ \t]{1,3}(?:out[ \t]{1,3})?(?:to[ \t]{1,3}Linus\b"
        r"|as[ \t]{1,3}an?[ \t]{1,3}(?:v?\d[\d.]{0,6})?-?rc\d{1,2}[ \t]{1,3}fix\b))"
        # the maintainer's promise: "I'll apply this for 5.11, thanks"; not a tester's "I'll apply it
        # and test"
        r"|(?:^|[.!][ \t]{1,3})(?i:I'll|I[ \t]will)[ \t]{1,3}(?i:apply|queue)[ \t]{1,3}(?i:this|it|the[ \t]{1,3}patch)\b"
        r"(?![^\n.]{0,40}\b(?i:and|to[ \t]test|test|try|run|see|report|check)\b)",
        re.M,
    ),
    ("appl", "queue", "add", "pushed", "moved", "merged", "pull", "sent"),
    lines=True,
)

#: a commit's title quoted in a subject: '"dm: delay registering the gendisk"', '("blk-mq: foo")'
#: a commit's title quoted in a subject; a subject cut short ends inside it ('[PATCH] Revert
#: "PCI/LINK: Report degraded links via link bandwidth', linux-pci 2019-04)
QUOTED_TITLE = re.compile(r'"[\w./+-]{1,40}:[^"\n]{1,200}(?:"|$)')


# ------------------------------------------------------------------ the thread, as the rules read it


@dataclass
class ThreadFacts:
    """What the rules read: the thread's mail and what extraction found in it."""

    messages: list[Message]
    claims: list[Claim]
    subject_claims: list[Claim]
    commits: list[CommitCitation]
    own_commits: list[CommitCitation]  # every message's own citations, unmerged
    kernels: list[KernelMention]
    results: list[Result]
    own_kernels: list[KernelMention] = field(default_factory=list)  # every message's own mentions
    stated_pct: float | None = None
    computed_pct: float | None = None
    reasons: list[Reason] = field(default_factory=list)

    @property
    def root(self) -> Message | None:
        return self.messages[0] if self.messages else None

    @property
    def subject(self) -> str:
        """The first message's subject, without the old one a renamed thread keeps ("(was: ...)")."""
        return own_subject(self.root.subject) if self.root is not None else ""

    @cached_property
    def subject_words(self) -> str:
        """The subject's own words: a commit's title quoted in it ('after "dm: delay registering
        the gendisk" applied', 'with commit 4bc31edebde5 ("mmc: core: Set HS clock speed ...")',
        'Revert "..."') says what that commit does, not what the thread reports or fixes."""
        return QUOTED_TITLE.sub(" ", self.subject)

    def new_text(self, m: Message) -> str:
        return own_lines(m)

    @property
    def starter_ids(self) -> set[str]:
        """The ids of the first message and of every message its author sent in the thread."""
        if self.root is None:
            return set()
        root = self.root
        return {m.message_id for m in self.messages if same_sender(m, root)} | {root.message_id}


#: how much of a message the rules that read wording read
OWN_TEXT_CHARS = 200_000


def own_lines(m: Message) -> str:
    """A message's own lines (quoted lines dropped), for the rules that read wording."""
    return _own_lines(m.body)


#: a quoted line, as :func:`lkmlkb.threads.segments.quote_depth` finds one (``>`` after at most
#: three blanks, not ``>=``), with its line end
QUOTED_LINE = re.compile(r"^[ \t]{0,3}>(?!=)[^\n]*\n?", re.M)
#: whether a body has a QUOTED_LINE
QUOTED_LINE_OPENS = OpensALine(r"[ \t]{0,3}>(?!=)")


@lru_cache(maxsize=512)
def _own_lines(body: str) -> str:
    # many rules and the status read the same message: its own lines are made once (a body
    # string hashes once, and a repeated call with the same string is found by identity)
    return _without_signature(unquoted_lines(body))


def unquoted_lines(body: str) -> str:
    """A body's lines that are not quoted: one substitution drops the quoted lines, as joining the
    lines quote_depth leaves would."""
    body = body[:OWN_TEXT_CHARS]
    if not QUOTED_LINE_OPENS.search(body):
        return body  # no quoted line: nothing to drop (the substitution scans every character)
    own = QUOTED_LINE.sub("", body)
    last = body[body.rfind("\n") + 1 :]
    if last and own.endswith("\n") and QUOTED_LINE.match(last):
        own = own[:-1]  # the last line was quoted: no line end is left after the one before it
    return own


#: a signature is at most this many lines after its "-- " line (a "--" above a long text is a rule)
SIGNATURE_LINES = 10


def _without_signature(text: str) -> str:
    """``text`` without the signature that ends it: the lines after a last "-- " (or "--") line, if
    few ("You are watching the assignee of the bug." under bugzilla's, a list's footer)."""
    cut = max(text.rfind("\n-- \n"), text.rfind("\n--\n"))
    if cut < 0 or text.count("\n", cut + 3) > SIGNATURE_LINES + 1:
        return text
    return text[: cut + 1]


def _subject_reason(t: ThreadFacts, rule: str, verdict: str) -> Reason:
    return Reason(rule, verdict, t.root.message_id if t.root is not None else "", -1, "Subject: " + t.subject)


def _claim_reason(rule: str, verdict: str, c: Claim) -> Reason:
    e = c.evidence
    return Reason(rule, verdict, e.message_id, e.line_start, e.text[:300])


def _line_reason(rule: str, verdict: str, m: Message, text: str, pos: int) -> Reason:
    line = text.count("\n", 0, pos)
    lo = text.rfind("\n", 0, pos) + 1
    hi = text.find("\n", pos)
    return Reason(rule, verdict, m.message_id, line, text[lo : hi if hi >= 0 else len(text)][:300])


# ------------------------------------------------------------------ what rules a thread out


def pull_request(t: ThreadFacts) -> Reason | None:
    """A pull request: its summary may say "fixes a performance regression"; it reports none."""
    if PULL_SUBJECT.search(t.subject):
        return _subject_reason(t, "pull-request", "not a regression")
    if t.root is not None and PULL_BODY.search(t.root.body[:20_000]):
        return Reason(
            "pull-request", "not a regression", t.root.message_id, 0, "The following changes since commit"
        )
    return None


#: userspace projects posted to kernel lists: named ones, and any named as a kind of its own
#: ("erofs-utils", "multipath-tools", "f2fs-tools", "cifs-utils", "nfs-utils", "sg3_utils"); not a
#: kernel library ("libata", "libnvdimm") nor the kernel's own tools ("tools/testing", "perf tools")
_PROJECTS = (
    r"(?:btrfs-progs|xfsprogs|xfsdump|e2fsprogs|fstests|xfstests|blktests|mdadm|nvme-cli|libnvme|nvmetcli"
    r"|liburing|kdevops|ndctl|man-pages|lvm2|targetcli|util-linux|[a-z][a-z0-9]{1,20}[-_](?:utils|tools|progs))"
)
#: a userspace project's patch or release posted to a kernel list: "[PATCH] btrfs-progs: mkfs: ...",
#: "[PATCH fstests] ...", "[PATCHSET V2] xfsprogs: ...", "[PATCH blktests v2] ...", "[ndctl PATCH]
#: test/fwctl: ...", "[PATCH 0/1][cifs-utils] Regression: ..."
USERSPACE_PROJECT = re.compile(
    r"^(?:(?:re|fwd?|aw)\s{0,2}:\s{0,3})*(?:\[[^\]\n]{0,80}\]\s{0,3})*"
    # the project as the subject's prefix: "btrfs-progs: mkfs: ...", "xfsprogs: ...", "[ANNOUNCE] btrfs-progs v6.8"
    rf"{_PROJECTS}(?::|\s{{1,3}}v?\d)"
    # in a patch's brackets, before or after the word: "[PATCH fstests]", "[ndctl PATCH]"
    rf"|\[[^\]\n]{{0,40}}\b(?:PATCH|RFC|PATCHSET)\b[^\]\n]{{0,40}}\b{_PROJECTS}\b"
    rf"|\[{_PROJECTS}\s{{1,3}}(?:PATCH|RFC|PATCHSET)\b"
    # a bracket of its own beside the patch's: "[PATCH 0/1][cifs-utils] ..."
    rf"|\]\s{{0,3}}\[{_PROJECTS}\]",
    re.I,
)
#: a patch adding a test to a test suite: "[PATCH] btrfs: add a test case to verify ...",
#: "[PATCH] generic/751: ...", "[PATCH] xfs: test a regression in dquot type checking"
TEST_PATCH = re.compile(
    r"\[[^\]\n]{0,40}\bPATCH[^\]\n]{0,40}\][^\n]{0,40}?(?:\b(?:generic|shared|btrfs|xfs|ext4|f2fs|nfs|overlay|block|nvme|scsi|md|loop|zbd)/\d{3}\b"
    r"|:\s{0,3}(?:add|new)\b[^:\n]{0,20}\btest(?:s|[ ]cases?)?\b|:\s{0,3}test\s{1,3}(?:a|the|for)\b)",
    re.I,
)


def userspace_project(t: ThreadFacts) -> Reason | None:
    """A userspace project's patch or release (btrfs-progs, xfsprogs, fstests, blktests, mdadm,
    liburing, ...) or a test added to a test suite, posted to a kernel list: what it says of a
    slowdown ("mkfs.btrfs inside my VM is much slower after commit 4b861c186592") is no kernel's."""
    if USERSPACE_PROJECT.search(t.subject) or TEST_PATCH.search(t.subject):
        return _subject_reason(t, "userspace-project", "not a kernel regression")
    return None


def backport_bundle(t: ThreadFacts) -> Reason | None:
    """A stable backport (AUTOSEL, a stable review series, "added to the stable tree"): it carries
    the fix's log, not a report of its own."""
    if BACKPORT_SUBJECT.search(t.subject):
        return _subject_reason(t, "backport", "not a regression")
    return None


def is_robot_report(root: Message) -> bool:
    """Whether a thread's first message is a kernel test robot report: its subject's shape, or
    the robot's first lines ("kernel test robot noticed ...")."""
    return (
        ROBOT_SUBJECT.match(root.subject or "") is not None or ROBOT_BODY.search(root.body[:4000]) is not None
    )


def retracted(t: ThreadFacts) -> Reason | None:
    """The robot's team or the reporter takes the report back ("Sorry this is a false positive
    report", "present in 4.19/5.4 too, so not a regression"), or a person's report is marked
    invalid for the regression tracker ("#regzbot invalid: ...")."""
    if t.root is None:
        return None
    robot = is_robot_report(t.root)
    for m in t.messages:
        by_reporter = same_sender(m, t.root)
        by_robot_team = robot and ROBOT_TEAM.search(m.from_addr or "")
        if not (by_reporter or by_robot_team):
            continue
        text = t.new_text(m)
        hit = RETRACTION.search(text)
        if hit:
            return _line_reason("retracted", "not a regression", m, text, hit.start())
    if robot:
        return None  # the robot's measurement stands: the tracker drops a report nobody took up too
    for m in t.messages[1:]:
        text = t.new_text(m)
        hit = REGZBOT_INVALID.search(text)
        if hit:
            return _line_reason("retracted", "not a regression", m, text, hit.start())
    return None


def functional(t: ThreadFacts) -> Reason | None:
    """The thread is about a failure and no slowdown: a hang, an oops, corruption, a failed test
    (even bisected, even with "REGRESSION" in the subject).  Read in the subject, or in the
    first message's own text when the thread never speaks of speed."""
    # the reporter's own sized slowdown makes it one; a reply's ("we see a 5-10% degradation when
    # using ImmediateData=No", the cost of a workaround in a corruption thread) does not
    by_starter = t.starter_ids
    if (
        robot_change(t) is not None
        or any(_robot_slowdown(m) for m in t.messages[1:])
        or any(
            _speed_regression(c)
            and c.stated_pct is not None
            and c.evidence.message_id in by_starter
            and not c.evidence.quoted
            for c in t.claims
        )
    ):
        return None
    if (FAILURE.search(t.subject) or BROKE.search(t.subject)) and not PERF_NAMED.search(t.subject):
        # a reply's "performance" does not make a hang a slowdown; the reporter's own words would
        root_id = t.root.message_id if t.root is not None else ""
        if not any(_speed_regression(c) and c.evidence.message_id == root_id for c in t.claims):
            return _subject_reason(t, "functional", "not a regression")
        return None
    said = t.subject_words
    if t.root is None or PERF_NAMED.search(said) or stall_named(said):
        return None
    texts = [(m, t.new_text(m)) for m in t.messages]
    if any(PERF_NAMED.search(text) for _, text in texts):
        return None
    hit = FAILURE.search(texts[0][1])
    if hit:
        return _line_reason("functional", "not a regression", t.root, texts[0][1], hit.start())
    return None


#: a subject naming a slowness in time rather than in rate: "transient stalls during write
#: intensive workloads", "Weird delay introduced in v6.16-rc", "stalling IO regression"
STALL_WORD = re.compile(
    r"\b(?:stall(?:s|ed|ing)?|delay(?:s|ed)?|laggy|lags|sluggish\w{0,4}|takes?[ \t]forever)\b", re.I
)
#: stalls that are the kernel's warnings of a stuck CPU, not slowness: "rcu_sched self-detected stall"
_WARNING_STALL = re.compile(r"\brcu\w{0,8}\b|\bcpu[ \t]stall|soft[ \t]lockup|hung[ \t]task", re.I)


def stall_named(subject: str) -> bool:
    """Whether a subject names stalls or delays (not an RCU or CPU stall warning)."""
    return bool(STALL_WORD.search(subject)) and not _WARNING_STALL.search(subject)


def named_slowdown(t: ThreadFacts) -> Reason | None:
    """A report whose subject names a regression of speed or a stall ("6.2 series regression,
    transient stalls during write intensive workloads", "Weird delay introduced in v6.16-rc only,
    possible regression"), without a figure, where its first message changes the kernel ("The
    problem does not occur with kernel 6.1.18"): a person's report names a slowdown so as often
    as it measures one.  Not a patch (a patch naming a regression is read by fix-of-slowdown)."""
    if t.root is None or is_patch_thread(t.root):
        return None
    # "regression" said by the reporter: a subject only saying "slow" asks about a slowness as
    # often as it reports one ("Slow deduplication", "very slow btrfs dev delete"), unless it names
    # the kernels too and the first message says the kernel changed ("Memory CG and 5.1 to 5.6
    # uprade slows backup": "Upgrading from 5.1 kernel to 5.6 kernel ... sees backup being highly
    # throttled", cgroups 2020-04)
    said = t.subject_words  # 'a potential issue for bow_target after "dm: delay registering ..."'
    if not REGRESS_WORD.search(t.subject):
        if _slowdown_of_kernels_named(t, said):
            return _subject_reason(t, "named-slowdown", "regression")
        return None
    if not (PERF_NAMED.search(said) or stall_named(said) or OPERATION_TIME_GROWN.search(said)):
        return None
    change = kernel_change(t, t.root.message_id)
    if change is None:
        return None
    return _subject_reason(t, "named-slowdown", "regression")


#: an operation's time said to grow, a measure of speed in other words: "100 ms boot time increase
#: regression in acpi_init()/acpi_scan_bus()" (linux-acpi and linux-pci, 2022-01), "fix boot time
#: regression for scsi drives" (linux-block), "longer mount time"; not "at boot time" (when)
OPERATION_TIME_GROWN = re.compile(
    r"""\b(?:boot|mount|resume|suspend|startup|shutdown)[ \t-]?times?[ \t]{1,3}
          (?:increase\w{0,2}|regress\w{0,4}|grew|doubled|tripled)\b
      | \b(?:longer|slower|increased)[ \t]{1,3}(?:boot|mount|resume|suspend|startup|shutdown)[ \t-]?times?\b""",
    re.I | re.X,
)


#: a subject naming the kernel a slowdown came with: a release ("5.6", "v6.1-rc3") or an upgrade
KERNEL_NAMED = re.compile(r"\b(?:v?[2-9]\.\d{1,2}(?:\.\d{1,3})?(?:-rc\d{1,2})?\b|upgrad\w{0,4})", re.I)


def _slowdown_of_kernels_named(t: ThreadFacts, said: str) -> bool:
    """A subject naming a slowdown ("slows", "much slower", "performance degradation") and a kernel,
    whose first message or subject says in words that the kernel changed ("Upgrading from 5.1
    kernel to 5.6", "since 6.6"), or whose reporter calls it a regression in a later message of
    their own ("5.6, slow send/receive, < 1MB/s", then "... but it's a regression", linux-btrfs
    2020-05); a kernel named beside another is not enough (a bug tracker's "Kernel Version: 5.5.0"
    above a slowness seen on it, linux-f2fs-devel 2020-01)."""
    root = t.root
    if root is None or not SLOWDOWN.search(said) or not KERNEL_NAMED.search(said):
        return False
    if not (PERF_NAMED.search(said) or stall_named(said)):
        return False
    if KERNEL_CHANGE_WORDS.search(said) or KERNEL_CHANGE_WORDS.search(t.new_text(root)[:4000]):
        return True
    by_reporter = t.starter_ids
    return any(
        c.kind == "regression"
        and REGRESS_WORD.search(c.cue or "")
        and c.evidence.message_id in by_reporter
        and not c.evidence.quoted
        for c in t.claims
    )


# ------------------------------------------------------------------ what makes a report


def _robot_change_said(subject: str, body: str) -> tuple[str, re.Match[str] | None] | None:
    """(regression | improvement, where the body says it: None when the subject does) of a kernel
    test robot's report of a metric's change, read in its subject or its first lines."""
    m = ROBOT_SUBJECT.match(subject)
    if m and PERF_WORD.search(m.group("found")):
        change = ROBOT_CHANGE.search(m.group("found"))
        if change:
            return change.group("kind").lower(), None
    if m:
        # the subject names a failure: a change in its first lines is the robot's earlier report,
        # cited ('we reported "[rhashtable] e1d3422c95: stress-ng.syscall.ops_per_sec 98.9%
        # regression" in ... now we observed below WARNING', linux-crypto 2024-12)
        return None
    head = body[:4000]
    if ROBOT_BODY.search(head):
        change = ROBOT_CHANGE.search(head)
        if change:
            return change.group("kind").lower(), change
    return None


def robot_change(t: ThreadFacts) -> Reason | None:
    """The kernel test robot's report of a metric's change (in its subject or its first lines)."""
    said = _robot_change_said(t.subject, t.root.body if t.root is not None else "")
    if said is None:
        return None
    kind, change = said
    verdict = "regression" if kind == "regression" else "improvement"
    if change is None or t.root is None:
        return _subject_reason(t, "robot-report", verdict)
    return Reason(
        "robot-report", verdict, t.root.message_id, t.root.body[: change.start()].count("\n"), change.group(0)
    )


def _robot_slowdown(m: Message) -> bool:
    """A message of the kernel test robot's reporting a regression of a metric (its subject or its
    first lines): a reply in a patch's thread ("[fsnotify] 4c40d6efc8: unixbench.score -3.3%
    regression" below the series' cover) measures a slowdown whatever failures the thread names."""
    said = _robot_change_said(m.subject or "", m.body)
    return said is not None and said[0] == "regression"


def robot_failure(root: Message | None) -> bool:
    """A kernel test robot report of a failure: its subject names what failed, not a metric's change."""
    m = ROBOT_SUBJECT.match(root.subject or "") if root is not None else None
    # what speaks of speed is none: the robot's "-72.9% regression", a person's subject of that
    # shape ("[REGRESSION] 0123456789: 30% slowdown in randwrite")
    return m is not None and not PERF_WORD.search(m.group("found"))


def is_patch_thread(root: Message | None) -> bool:
    """A thread that starts with a patch, a series cover letter, a pull request or a topic proposal."""
    if root is None:
        return False
    if PATCH_SUBJECT.match(root.subject or ""):
        return True
    return bool(DIFF_IN_BODY.search(root.body[:200_000]))


def _speed_regression(c: Claim, wrapped: str = "") -> bool:
    """A regression claim about speed: sized, or naming a measure of speed or a benchmark (on its
    line, or in ``wrapped``: the words of the lines around it its sentence runs over): "The
    regression was discovered in AIM7", "the dbench regression"."""
    text = c.evidence.text or ""
    return c.kind == "regression" and (
        c.stated_pct is not None
        or bool(PERF_NAMED.search(text))
        or bool(BENCHMARK_NAMED.search(text))
        or bool(wrapped and BENCHMARK_NAMED.search(wrapped))
    )


#: a patch's log telling of a regression someone reported, which it answers: "We've had reports of
#: significant performance regression of sub-block (unaligned) direct writes due to ..." (linux-ext4,
#: 2023-02), "The kernel test robot reported a performance regression in v6"; not "people could
#: complain about a performance regression"
REPORTED_SAID = re.compile(r"\b(?:reported|reports?[ \t]{1,3}of|reports?[ \t]{1,3}about)\b", re.I)


#: the change a reported regression is put on, in its lines: "due to the added exclusivity
#: restrictions", "caused by", "since"; without it or a kernel named, a report "on some setups" is
#: background a series gives
CAUSE_SAID = re.compile(
    r"\b(?:due[ \t\n]{1,3}to|caused[ \t\n]{1,3}by|because[ \t\n]{1,3}of|since|after|introduced|bisected)\b",
    re.I,
)
#: a regression reported and taken back already, the history a new version of the work tells: "then
#: kernel test robot reported -88.8% regression in stress-ng.ramfs.ops_per_sec test case [2], so we
#: reverted it [3]. This patch series aims to re-implement ..." (linux-xfs, 2023-06)
REVERTED_SINCE = re.compile(
    r"\b(?:we|I|it|they|was|were|been|got)[ \t\n]{1,3}(?:\w{1,10}[ \t\n]{1,3})?reverted\b", re.I
)


#: an earlier version of the series itself named as what regressed: "The kernel test robot reported a
#: performance regression in v6 due to the changes to current_time()" under "[PATCH v7 00/11]"
#: (linux-xfs, linux-ext4, linux-btrfs, 2024-09), "the regression of the previous version", a
#: changelog's "2) Fix for zstd performance regression in v5." (linux-crypto, 2025); "in v5.10" is
#: a kernel
EARLIER_VERSION = re.compile(
    r"""\b(?:in|of|with|from|by)[ \t\n]{1,3}(?:the[ \t\n]{1,3})?
        (?:v(?P<n>\d{1,2})\b(?!\.?\d)
          |(?:previous|last|earlier|prior|first)[ \t\n]{1,3}(?:version|posting|revision|iteration|spin))""",
    re.I | re.X,
)


def _of_an_earlier_version(subject: str, text: str) -> bool:
    """Whether ``text`` puts a regression on an earlier version of the series ``subject`` posts."""
    version = patch_version(subject)
    if version is None:
        return False
    return any(m.group("n") is None or int(m.group("n")) < version for m in EARLIER_VERSION.finditer(text))


#: a patch's place in its series, in its tag's words after PATCH: "3/3" of "[PATCH v2 3/3]"
SERIES_PLACE = re.compile(r"\b\d{1,3}/\d{1,3}\b")


def _numbered_patch(subject: str) -> bool:
    """Whether ``subject`` is a series' numbered patch ("[f2fs-dev] [PATCH 3/3] ..."), not a reply."""
    tag = PATCH_TAG.search(subject)
    return tag is not None and not is_reply_subject(subject) and SERIES_PLACE.search(tag["rest"]) is not None


#: the sign-off above the diff a message posts: a patch whatever its subject's tag says
_SIGNED_OFF = re.compile(r"^Signed-off-by:[ \t]", re.M)


def posts_a_diff(m: Message) -> bool:
    """Whether message ``m`` posts a patch under a tag that does not say PATCH ("[RFC net] tcp:
    Fix performance regression for request-response workloads", linux-s390 2022-09; "[v2]",
    "[RESEND v2 1/1]"): its own text signs off a change and carries its diff.  Not a reply (a
    reviewer's diff)."""
    if is_reply_subject(m.subject or ""):
        return False
    body = m.body[:200_000]
    sign = _SIGNED_OFF.search(body)
    return sign is not None and DIFF_IN_BODY.search(body, sign.end()) is not None


def _untagged_cover(t: ThreadFacts) -> bool:
    """Whether the thread's first message is a series' cover letter whose subject lost its
    "[PATCH 0/N]" ("Fix inode sem regression for nowait", linux-f2fs-devel 2019-09; many of
    Christoph Hellwig's covers): its author's numbered patches answer it."""
    root = t.root
    if root is None:
        return False
    return any(
        m.in_reply_to == root.message_id and same_sender(m, root) and _numbered_patch(m.subject or "")
        for m in t.messages[1:]
    )


def fix_of_slowdown(t: ThreadFacts) -> Reason | None:
    """A patch or a revert whose own log says it fixes a performance regression: "jbd2: fix
    checkpoint cleanup performance regression", a Fixes: tag beside "we catch a performance
    regression when doing fs_mark tests", 'Revert "..."' saying the commit slowed things down."""
    root = t.root
    if root is None or not (
        PATCH_WORD.search(t.subject)
        or REVERT_SUBJECT.match(t.subject)
        or _untagged_cover(t)
        or posts_a_diff(root)
    ):
        return None
    body = root.body[:200_000]
    bodies = {root.message_id: body}
    fixes = (
        FIX_WORD.search(t.subject)
        or FIXES_TRAILER.search(body)
        or THIS_REVERTS.search(body)
        or REVERT_SUBJECT.match(t.subject)
    )
    revert = REVERT_SUBJECT.match(t.subject) or THIS_REVERTS.search(body)
    said = t.subject_words  # not a reverted commit's title ('Revert "block: improve the performance ..."')
    # the log measures the speed its fix brings back: "This improves the check/repair speed of a
    # 20-HDD raid6 from 19 MB/s to 103 MB/s" under "significant regression is observed for RAID
    # check and repair" (linux-block, 2022-03): a gain as large as a slowdown a report would size
    pair = before_after(t.results, root.message_id) if fixes else None
    restored = pair is not None and -(slowdown_pct(*pair) or 0.0) >= MIN_SLOWDOWN_PCT
    for c in t.claims:
        e = c.evidence
        if e.message_id != root.message_id or e.quoted:
            continue
        # of speed: sized or named so, or in a patch whose subject is about speed ("blk-mq: Improve
        # performance of non-mq IO schedulers", then "This patch series aims to fix a regression")
        # or whose log measures the speed it restores
        before, after = _line_end_before(bodies, e), _line_start_after(bodies, e)
        wrapped = before + " " + after
        around = before + " " + (e.text or "") + " " + after
        reported = (
            c.kind == "regression"
            and REPORTED_SAID.search(around)
            and (CAUSE_SAID.search(around) or find_versions(around))
            and not REVERTED_SINCE.search(around)
        )
        if _of_an_earlier_version(t.subject, around):
            continue  # the series' own earlier cost, answered by this version: no kernel regressed
        if not (
            _speed_regression(c, wrapped)
            or (c.kind == "regression" and (PERF_NAMED.search(said) or restored))
            or (reported and PERF_NAMED.search(around))  # "a report about a performance\ndrop"
        ):
            continue
        # a regression it fixes, named so, or what a revert takes back: "fix performance regression",
        # not "fix performance degradation for large IO" (a slowness the patch improves); a fix
        # naming in its subject the slowdown it fixes, whose Fixes: tag names the commit that
        # brought it ("dm writecache: fix performance degradation in ssd mode" ... "it causes
        # performance degradation" ... "Fixes: dc8a01ae1dbd"), says a regression in other words
        tagged = (
            FIX_WORD.search(t.subject)
            and any(sc.kind == "regression" for sc in t.subject_claims)  # the fix names the slowdown
            and FIXES_TRAILER.search(body)
        )
        # a slowdown reported and put on a change is a regression in other words: "at least one
        # report about a performance drop which bisected to that particular change" (linux-btrfs)
        if not (
            REGRESS_WORD.search(c.cue or "") or REGRESS_WORD.search(t.subject) or revert or tagged or reported
        ):
            continue
        if fixes or FIX_WORD.search(e.text or "") or reported:
            return _claim_reason("fix-of-slowdown", "regression", c)
    # the subject says so: "block: fix revalidate performance regression", "Fix raid rebuild
    # performance regression" (a fix, a regression, and a measure of speed named in one subject)
    if FIX_WORD.search(said) and REGRESS_WORD.search(said) and PERF_NAMED.search(said):
        return _subject_reason(t, "fix-of-slowdown", "regression")
    # a patch blaming a commit in its own words ("commit 55cdd0af2bc5 seems broke this way, let's
    # fix it") and measuring what the fix does to a speed ("fstrim ... reduce from 6.7s to 1.3s")
    blamed = [
        c
        for c in t.own_commits
        if c.role == "culprit"
        and c.form == "prose"
        and c.evidence.message_id == root.message_id
        and not c.evidence.quoted
    ]
    # measured before and after, not one time of a failure ("sit idle for up to 30s")
    timed = _compared_speeds([r for r in t.results if r.evidence.message_id == root.message_id])
    if blamed and timed:
        e = blamed[0].evidence
        return Reason("fix-of-slowdown", "regression", root.message_id, e.line_start, (e.text or "")[:300])
    return None


#: how many lines apart a slowdown and the commit it is traced to may be said
TRACED_WITHIN_LINES = 3
#: a regression referred back to, named before in the same message
THE_REGRESSION = re.compile(r"\b(?:the|this|that)[ \t]{1,3}regression\b", re.I)
#: how much of the line before a claim's line may hold the words its cue ends ("a performance\nregression")
WRAPPED_WORDS_CHARS = 40


def traced_slowdown(t: ThreadFacts) -> Reason | None:
    """A slowdown named and traced to a commit: a regression claim naming a measure of speed
    ("performance regression", "the slowdown"; on its line or at the end of the line before)
    within a few lines of a culprit prose named ("caused by", "introduced by"), or anywhere in
    the message of a bisection's result; or "the regression" so traced where the message named
    a slowdown before it; or the subject saying so of a culprit the thread names.
    A Fixes: tag traces nothing (a patch names what it fixes).  Quoted text counts: its origin
    is not in the thread (what it says is the thread's only copy)."""
    culprits = [c for c in t.own_commits if c.role == "culprit" and c.form != "fixes" and c.evidence]
    if not culprits:
        return None
    said = t.subject_words
    if PERF_NAMED.search(said) and SLOWDOWN.search(said):
        return _subject_reason(t, "traced-slowdown", "regression")
    bodies = {m.message_id: m.body for m in t.messages}
    bisected = {c.evidence.message_id for c in culprits if found_by_bisection(c)}
    #: per message, the first line where a regression claim names a measure of speed: "the
    #: regression" traced further down refers back to it
    speed_named: dict[str, int] = {}
    for c in t.claims:
        e = c.evidence
        if c.kind == "regression" and e is not None and e.message_id not in speed_named:
            if PERF_NAMED.search(e.text) or PERF_NAMED.search(_line_end_before(bodies, e)):
                speed_named[e.message_id] = e.line_start
    for c in t.claims:
        e = c.evidence
        if c.kind != "regression" or e is None:
            continue
        near = any(
            u.evidence.message_id == e.message_id
            and abs(u.evidence.line_start - e.line_start) <= TRACED_WITHIN_LINES
            for u in culprits
        )
        if not near and e.message_id not in bisected:
            continue
        if PERF_NAMED.search(e.text) or PERF_NAMED.search(_line_end_before(bodies, e)):
            return _claim_reason("traced-slowdown", "regression", c)
        # "We're working on a severe performance regression ... The regression seems to be
        # introduced in v4.7 with: <sha>": the slowdown named above, traced here
        if THE_REGRESSION.search(e.text) and speed_named.get(e.message_id, e.line_start) < e.line_start:
            return _claim_reason("traced-slowdown", "regression", c)
    return None


#: the cue of a culprit a bisection found ("first bad commit", "bisected to", "tracked it down to")
BISECTED_CUE = re.compile(r"bisect|first bad|first faulty|track\w{0,3} down|narrow", re.I)


def found_by_bisection(c: CommitCitation) -> bool:
    """A culprit a bisection found: after its steps, by "first bad commit" or "bisected to", by
    the robot, or as regzbot records it ("#regzbot introduced")."""
    return c.role == "culprit" and (
        c.form in ("bisect-result", "lkp", "regzbot")
        or (c.form == "prose" and BISECTED_CUE.search(c.cue or "") is not None)
    )


def _line_end_before(bodies: dict[str, str], e) -> str:
    """The end of the body line before evidence ``e``'s first line ("" if none)."""
    return line_text(bodies.get(e.message_id, ""), e.line_start - 1)[-WRAPPED_WORDS_CHARS:]


def _line_start_after(bodies: dict[str, str], e) -> str:
    """The start of the body line after evidence ``e``'s last line ("" if none)."""
    return line_text(bodies.get(e.message_id, ""), e.line_end + 1)[:WRAPPED_WORDS_CHARS]


#: a result's unit that measures speed or time: a rate, IOPS, operations per second, a latency
SPEED_UNIT = re.compile(
    r"/s(?:ec)?\b|\bps\b|iops|ops|per_sec|^(?:[mun\u00b5]?s|secs?|seconds?|msec|usec|nsec|mins?|minutes?|h|hours?)$",
    re.I,
)


def robot_failure_message(m: Message) -> bool:
    """A kernel test robot message reporting a failure, not a metric's change: its subject names
    what failed ("[xfs]  141cfc276a: xfstests.xfs.296.fail"), or its first lines say what it
    noticed with no change of a metric ('kernel test robot noticed "Assertion_failed" on:', "FYI,
    we noticed the following commit (built with gcc-7):").  The times of the tests it ran are no
    measurement of a slowdown, and the commit it names was bisected for the failure."""
    if robot_failure(m):
        return True
    head = m.body[:4000]
    return ROBOT_BODY.search(head) is not None and ROBOT_CHANGE.search(head) is None


def _robot_gain(t: ThreadFacts, mid: str) -> bool:
    """Whether message ``mid`` is the kernel test robot reporting an improvement."""
    m = next((m for m in t.messages if m.message_id == mid), None)
    head = m.body[:4000] if m is not None else ""
    change = ROBOT_CHANGE.search(head) if ROBOT_BODY.search(head) else None
    return change is not None and change.group("kind").lower() != "regression"


def bisected_measurement(t: ThreadFacts) -> Reason | None:
    """A bisection's result in a message that measures speed ("I bisected it to this: X is the
    first bad commit", then fio's "read: IOPS=412k"): a regression found by measuring, even when
    the mail never says the word."""
    found = [c for c in t.own_commits if found_by_bisection(c)]
    by_id = {m.message_id: m for m in t.messages}
    for c in found:
        mid = c.evidence.message_id
        if _robot_gain(t, mid):
            continue  # the robot bisects gains too: "noticed a 676.3% improvement of ..."
        m = by_id.get(mid)
        if m is not None and robot_failure_message(m):
            continue  # and failures: "noticed "xfstests.xfs.296.fail"", its tests' times beside
        for r in t.results:
            if r.evidence.message_id == mid and SPEED_UNIT.search(r.unit or ""):
                e = c.evidence
                return Reason("bisected-measurement", "regression", mid, e.line_start, (e.text or "")[:300])
    return None


#: the heading of a series' changelog: "v8:", "Changes in v7:", "Changes since v2:", "v2 -> v3:",
#: "Changelog:", "RFC v2 -> v1:"
_CHANGELOG_HEADING = (
    r"[ \t]{0,3}(?:changes?[ \t]{1,3}(?:in|since|from|for)[ \t]{1,3}(?:rfc[ \t]?)?v\d{1,3}[^\n]{0,30}?:?[ \t]*$"
    # "v8:", "v6: https://lore...", "v2: rebase on 5.5-rc6", "v2 -> v3:"
    r"|(?:rfc[ \t]?)?v\d{1,3}(?:[ \t]{0,3}(?:->|=>|\u2192|-|to|vs\.?)[ \t]{0,3}(?:rfc[ \t]?)?v\d{1,3})?[ \t]{0,3}:(?:[ \t]|$)"
    r"|change[ \t]?log[ \t]{0,3}:?[ \t]*$|changes[ \t]{0,3}:[ \t]*$)"
)
CHANGELOG_HEADING = re.compile("^" + _CHANGELOG_HEADING, re.I | re.M)
#: whether a body has a CHANGELOG_HEADING line
CHANGELOG_HEADING_OPENS = OpensALine(_CHANGELOG_HEADING, re.I | re.M)
#: a line going on with a changelog: blank, indented, or an item ("- ", "* ", "o ", "1) ")
_CHANGELOG_ITEM = re.compile(r"^(?:[ \t]*$|[ \t]|[-*+o\u2022][ \t]|\d{1,2}[.)][ \t])")


def series_changelog_lines(body: str) -> set[int]:
    """The lines of a patch's changelog of its series' versions ("v8:\n * Rebased to v6.15-rc1\n
    * ... were in RFC stage because block iterator caused a performance regression ..."): what a
    series says there of its own earlier versions is its history, not a regression of a kernel.
    A changelog runs from its heading over items, indented lines and blank lines to the first
    other line ("---" before the diffstat, a sign-off, prose)."""
    text = body[:200_000]
    if not CHANGELOG_HEADING_OPENS.search(text):
        return set()
    out: set[int] = set()
    inside = False
    for n, line in enumerate(body[:200_000].split("\n")):
        if CHANGELOG_HEADING.match(line):
            inside = True
        elif inside and not _CHANGELOG_ITEM.match(line):
            inside = False
        if inside:
            out.add(n)
    return out


#: a line naming the tree a patch series is based on, in its changelog ("* Rebased to v6.15-rc1",
#: "v7: rebase on 5.5-rc6", "based on next-20230525", "applies on top of 6.8-rc1"): a kernel
#: there is where the series goes, not one a slowdown was measured on
SERIES_BASE_LINE = re.compile(
    r"\b(?:re-?based?|based|applies|on[ \t]top[ \t]of)\b[^\n]{0,40}?(?:v|linux[ \t-]?|kernel[ \t])?\d\.\d"
    r"|\b(?:re-?based?|based)\b[^\n]{0,40}?\bnext-\d{8}",
    re.IGNORECASE,
)


def kernel_change(t: ThreadFacts, mid: str) -> Reason | None:
    """Where the thread changes the kernel the slowdown (said in message ``mid``) is measured on:
    a commit blamed, fixed or reverted anywhere in the thread, or built and run in that message;
    two kernels in that message (or a kernel the thread calls good or bad); a result measured
    with and without a patch or a commit; words of a change in the subject or that message
    ("since 6.5", "after upgrading to", "newer kernels", "used to ... now", "with the patch").
    A version named in passing elsewhere in the thread ("tested on 5.10 too") is none."""
    for c in t.own_commits:
        if c.role in ("culprit", "fix", "revert") or (
            c.evidence.message_id == mid
            and (c.role == "tested" or c.form in ("bisect-step", "bisect-result"))
        ):
            e = c.evidence
            return Reason(
                "kernel-change",
                f"commit {c.sha[:12]} ({c.role})",
                e.message_id,
                e.line_start,
                (e.text or "")[:300],
            )
    kernels = kernels_changed(t, mid)
    if kernels is not None:
        return kernels
    for r in t.results:
        cond = " ".join(x for x in (r.kernel, r.config) if x)
        if cond and CHANGE_CONDITION.search(cond):
            e = r.evidence
            return Reason(
                "kernel-change", f"measured {cond!r}", e.message_id, e.line_start, (e.text or "")[:300]
            )
    hit = KERNEL_CHANGE_WORDS.search(t.subject)
    if hit:
        return _subject_reason(t, "kernel-change", "words of a change")
    if any(c.kind == "regression" and REGRESS_WORD.search(c.cue or "") for c in t.subject_claims):
        return _subject_reason(t, "kernel-change", "the subject calls it a regression")
    # the thread's starter calls it a regression of a kernel named on the line ("There was a report
    # of write performance regression on 6.5-rc4 on RAID0", linux-btrfs 2024-01)
    for c in t.claims:
        e = c.evidence
        if (
            c.kind == "regression"
            and REGRESS_WORD.search(c.cue or "")
            and e.message_id in t.starter_ids
            and not e.quoted
            and find_versions((e.text or "")[:500])
        ):
            return Reason(
                "kernel-change", "a regression of a kernel", e.message_id, e.line_start, (e.text or "")[:300]
            )
    for m in t.messages:
        if m.message_id != mid:
            continue
        text = t.new_text(m)
        hit = KERNEL_CHANGE_WORDS.search(text)
        if hit:
            return _line_reason("kernel-change", "words of a change", m, text, hit.start())
        # a bisection finds the change that brought it: "he bisected it down to <a commit's title>"
        hit = BISECTION_SAID.search(text)
        if hit:
            return _line_reason("kernel-change", "a bisection", m, text, hit.start())
    return None


#: a subject comparing two things: "Huge reduction in write bandwidth with filesystem vs direct block
#: device" (linux-xfs, 2020-03), "fiemap on btrfs versus ext4"
SUBJECT_VERSUS = re.compile(
    r"(?P<a>[^,:;()\[\]]{2,80}?)[ \t]{1,3}(?:vs\.?|versus)[ \t]{1,3}(?P<b>[^,:;()\[\]]{2,80})", re.I
)
#: a side of a comparison that is a kernel or a state of one ("5.4", "old kernel", "with the patch")
_KERNEL_SIDE = re.compile(
    r"\d\.\d|\b(?:kernels?|linux|v\d|rc\d|releases?|upgrade|update|before|after|old|older|new|newer|patch\w{0,2}"
    r"|commits?|reverts?|revert\w{1,3}|series|next|mainline|stable|distro|rhel|sles|ubuntu|fedora|debian)\b",
    re.I,
)


def configurations_compared(t: ThreadFacts) -> Reason | None:
    """A subject comparing two configurations, neither a kernel (a file system and the raw block
    device under it), in a thread that blames no commit and tells no bisection: what it measures is
    the difference between two set-ups, not a change of the kernel."""
    m = SUBJECT_VERSUS.search(t.subject) if not PATCH_WORD.search(t.subject) else None
    if m is None or _KERNEL_SIDE.search(m.group("a")) or _KERNEL_SIDE.search(m.group("b")):
        return None
    if any(c.role in ("culprit", "revert") for c in t.own_commits):
        return None
    if any(BISECTION_SAID.search(t.new_text(x)) for x in t.messages if x.message_id in t.starter_ids):
        return None
    return _subject_reason(t, "config-comparison", "not a regression")


def kernels_changed(t: ThreadFacts, mid: str) -> Reason | None:
    """The kernel part of :func:`kernel_change`: a kernel the thread calls good, or one it calls
    bad beside another (one kernel said to be slow is where the slowdown was seen, not a change);
    or two releases message ``mid`` names, not as a series' base."""
    judged = next((k for k in t.kernels if k.role == "good"), None)
    if judged is None:
        # a bad kernel beside another its own message names ("slow on 4.19, fine on 4.14"); others
        # named in other messages (a patch's base, the kernels replies tried) change nothing of it,
        # nor does another kernel the message also calls bad ("reproduced on kernel v4.19 ... also
        # seen ... in kernel v5.1": one slowness seen twice)
        releases: dict[str, set[str]] = defaultdict(set)
        for k in t.kernels:
            if k.role != "bad":
                releases[k.evidence.message_id].add(_release(k.version))
        judged = next(
            (
                k
                for k in t.kernels
                if k.role == "bad" and releases[k.evidence.message_id] - {_release(k.version)}
            ),
            None,
        )
    if judged is not None:
        e = judged.evidence
        return Reason(
            "kernel-change",
            f"kernel {judged.version} ({judged.role})",
            e.message_id,
            e.line_start,
            (e.text or "")[:300],
        )
    versions: dict[str, KernelMention] = {}
    unjudged: set[str] = set()  # releases named once at least not as a bad kernel
    for k in t.own_kernels:
        if k.evidence.message_id == mid and not SERIES_BASE_LINE.search(k.evidence.text or ""):
            versions.setdefault(_release(k.version), k)
            if k.role != "bad":
                unjudged.add(_release(k.version))
    if len(versions) >= 2 and unjudged:
        a, b = list(versions.values())[:2]
        return Reason(
            "kernel-change",
            f"kernels {a.version} and {b.version}",
            a.evidence.message_id,
            a.evidence.line_start,
            (a.evidence.text or "")[:300],
        )
    return None


#: a bisection said in words ("bisected it down to", "the first bad commit is")
BISECTION_SAID = re.compile(r"\bbisect(?:ed|ing)?\b|\bfirst[ \t]bad[ \t]commit\b", re.I)


def _release(version: str) -> str:
    """A kernel's release for telling two kernels apart ("6.8.0-rc3+" and "6.8-rc3" are one)."""
    v = normalize_version(version) or version
    v = re.sub(r"^(\d\.\d{1,2})\.0(?=-rc|$)", r"\1", v)
    return v


#: the smallest slowdown a person's measurement reports on its own: "0.6% slower", "a 1% slowdown in
#: QPS" are a patch's cost within noise, said to be acceptable (the robot reports its own sizes)
MIN_SLOWDOWN_PCT = 2.0


def measured_slowdown(t: ThreadFacts) -> Reason | None:
    """A slowdown measured in the thread's own text: a regression claim with its size ("a 30%
    drop in throughput", "9x slower"), a regression claim beside figures, or a baseline and a
    regressed value of one metric, the latter worse."""
    for c in t.subject_claims + t.claims:
        if c.kind == "regression" and c.stated_pct is not None and c.stated_pct >= MIN_SLOWDOWN_PCT:
            return _claim_reason("measured-slowdown", "regression", c)
    if t.computed_pct is not None and t.computed_pct >= MIN_SLOWDOWN_PCT:
        base = next((r for r in t.results if r.label == "baseline"), None)
        if base is not None:
            e = base.evidence
            return Reason(
                "measured-slowdown",
                f"regression ({t.computed_pct:g}% computed)",
                e.message_id,
                e.line_start,
                (e.text or "")[:300],
            )
    measured_in = {r.evidence.message_id for r in t.results}
    for c in t.subject_claims + t.claims:  # the subject's word first: a reply's "may degrade" is no report
        if (
            _speed_regression(c)
            and c.evidence.message_id in measured_in
            and (c.stated_pct is None or c.stated_pct >= MIN_SLOWDOWN_PCT)
        ):
            return _claim_reason("measured-slowdown", "regression", c)
    compared = _compared_speeds(t.results)
    for c in t.subject_claims:
        if (_speed_regression(c) or (REGRESS_WORD.search(c.cue or "") and compared)) and t.results:
            return _claim_reason("measured-slowdown", "regression", c)
    # a slowdown said between two kernels in one line, without a figure ("the IO performance ...
    # with Linux 5.4.0 is significantly worse than ... with Linux 4.4.0")
    for c in t.claims:
        if _speed_regression(c) and len(_releases_in(c.evidence.text or "")) >= 2:
            return _claim_reason("measured-slowdown", "regression (kernels compared)", c)
    # a regression named in words beside a figure per kernel, the newer one worse: "takes between
    # 6 and 10 seconds to run with v5.9-rc5, compared to 200ms on v5.7. That's a fairly bad
    # regression" (linux-pm, "Slow booting on x15", 2020-10)
    worse_in = _newer_kernel_worse(t.results)
    for c in t.claims:
        if c.kind == "regression" and c.metric is not None and c.evidence.message_id in worse_in:
            return _claim_reason("measured-slowdown", "regression (kernels measured)", c)
    return None


def _newer_kernel_worse(results: list[Result]) -> set[str]:
    """Messages measuring one speed or time on two releases, the newer one worse (a commit's
    SHA or a configuration in place of a kernel is no release)."""
    by_message: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for r in results:
        if (
            r.kernel
            and r.normalized_value
            and SPEED_UNIT.search(r.unit or "")
            and not r.evidence.quoted
            and normalize_version(r.kernel)
        ):
            by_message[(r.evidence.message_id, r.normalized_unit or "")].append(r)
    out = set()
    for (mid, _), rs in by_message.items():
        ordered = sorted(rs, key=lambda r: sort_key(_release(r.kernel or "")))
        old, new = ordered[0], ordered[-1]
        if _release(old.kernel or "") == _release(new.kernel or ""):
            continue
        a, b = old.normalized_value or 0.0, new.normalized_value or 0.0
        if (b > a) if lower_is_better(new.metric, new.normalized_unit) else (b < a):
            out.add(mid)
    return out


def _releases_in(text: str) -> set[str]:
    """The kernel releases a line names."""
    return {_release(norm) for _a, _b, _raw, norm in find_versions(text[:1000])}


#: a speed figure said to have fallen: the change is in the words around one figure
FELL_WORD = re.compile(
    r"\b(?:drop(?:s|ped|ping)?|fall(?:s|ing)?|fell|decreas(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|degrad(?:e|es|ed|ing))\b",
    re.I,
)


def _compared_speeds(results: list[Result]) -> bool:
    """Some message measures one speed twice or more (two kernels, before and after), or a speed
    is measured on a kernel called good or bad: what a subject's bare "regression" needs to be a
    slowdown (one figure beside "uring regression - lost write request" is a detail of a failure)."""
    seen: set[tuple[str, str]] = set()
    for r in results:
        if not SPEED_UNIT.search(r.unit or ""):
            continue
        if r.label is not None:  # measured on a kernel the thread calls good or bad
            return True
        if FELL_WORD.search(r.evidence.text or ""):  # "throughput dropping, from about 160MB/s"
            return True
        key = (r.evidence.message_id, r.metric)
        if key in seen:
            return True
        seen.add(key)
    return False


#: a reply blaming the patch of the thread for what it measured ("with this patch applied",
#: "your series costs", "after applying", "reverting it brings the numbers back")
BLAMES_THE_PATCH = re.compile(
    r"""\b(?:this|the|your|that|these)[ \t]{1,3}(?:patch\w{0,2}|series|commit|change)\b
      | \bafter[ \t]{1,3}applying\b | \brevert\w{0,3}\b""",
    re.I | re.X,
)
#: words before a mention of the patch that clear it: "some performance regression @mq-deadline
#: scheduler which is not related to this series" (linux-block, 2021-10)
CLEARS_THE_PATCH = re.compile(
    r"(?:\bnot|n't)[ \t\n]{1,3}(?:\w{1,12}[ \t\n]{1,3})?(?:related|due|caused|connected|specific)[ \t\n]{1,3}(?:to|by)"
    r"[ \t\n]{1,3}$|\bunrelated[ \t\n]{1,3}to[ \t\n]{1,3}$|\bnothing[ \t\n]{1,3}to[ \t\n]{1,3}do[ \t\n]{1,3}with[ \t\n]{1,3}$",
    re.I,
)


def blames_the_patch(text: str) -> bool:
    """Whether a reply puts a slowdown on the patch or the series it answers ("caused by this
    patch", "if I revert it"), not clearing it ("not related to this series")."""
    for m in BLAMES_THE_PATCH.finditer(text):
        if not CLEARS_THE_PATCH.search(text[max(0, m.start() - 40) : m.start()]):
            return True
    return False


#: the smallest slowdown a reply's own measurement of a patch reports ("slower only by about 0.66%"
#: is a reviewer finding the cost negligible)
REPLY_MIN_PCT = 3.0
#: how long after a patch was posted a reply measuring it slower reports a regression: by then
#: the patch is in a kernel; before, the measurement is review of a proposal
LATE_REPLY_DAYS = 30


def _days_between(first: Message, later: Message) -> float | None:
    try:
        a = datetime.fromisoformat(first.date_utc or "")
        b = datetime.fromisoformat(later.date_utc or "")
        return (b - a).total_seconds() / 86400.0
    except (ValueError, TypeError):
        return None


#: a reply saying the patch is in a tree already ("in linux-next", "next-20240115", "since this
#: was merged", "bisected to this commit", "now in mainline", "our nightly CI"): a regression of a
#: kernel, however soon.  Not mainline named as what the patch is measured against ("sugov-HWP.min
#: : mainline", "comparing to mainline 6.19", linux-pm), nor another series merged one day ("once
#: p3 is merged"), nor "upstream acceptance"
IN_A_TREE = re.compile(
    r"\blinux-next\b|\bnext-20\d{6}\b|\b(?:was|got|been)[ \t]{1,3}(?:merged|applied|queued)\b"
    r"|\bbisect\w{0,4}\b|\b(?:in|into|hit|hits|reached|landed[ \t]{1,3}in)[ \t]{1,3}(?:the[ \t]{1,3})?"
    r"(?:mainline|upstream)\b|\bnightly\b|\bour[ \t]{1,3}CI\b"
    # a tree's branch: "if I revert this commit from the misc-next branch", "in for-next"
    r"|\b(?:misc|for|md|dev)-next\b",
    re.I,
)


def late_reply(root: Message, m: Message) -> bool:
    """Whether reply ``m`` came LATE_REPLY_DAYS or more after the patch ``root`` (unknown dates:
    it may have)."""
    days = _days_between(root, m)
    return days is None or days >= LATE_REPLY_DAYS


def reply_reports_slowdown(t: ThreadFacts) -> Reason | None:
    """A reply in a patch's thread, by someone other than the patch's author, measuring the patch
    slowing something down, once the patch is in a kernel: "I'm testing SSD write performance
    recently ... it's caused by this patch, if I revert it write speed recovers" (months after
    the patch was posted; the robot's report on a posted patch is read by the other rules).  A
    reviewer measuring a proposal's cost while it is reviewed ("I see about a 20% drop in peak
    IOPS with this", the same week) reviews it; a resend's cover letter citing an old
    regression as background, or a reviewer finding a cost negligible, reports none."""
    root = t.root
    if root is None or not is_patch_thread(root):
        return None
    by_author = t.starter_ids
    # the replies that count: not the author's, once the patch is in a tree, putting a slowdown on it
    blaming: list[str] = []
    taken = False  # a maintainer took the patch in an earlier reply: it is in a tree since
    read_upto = 1  # the replies before this one were read for a taking (only once one blames)
    for k, m in enumerate(t.messages[1:], 1):
        text = t.new_text(m)
        if m.message_id in by_author or not blames_the_patch(text):
            continue
        if not (late_reply(root, m) or IN_A_TREE.search(text)):
            while not taken and read_upto < k:
                taken = bool(PATCH_TAKEN.search(t.new_text(t.messages[read_upto])))
                read_upto += 1
            if not taken:
                continue
        blaming.append(m.message_id)
    for c in t.claims:
        e = c.evidence
        if e.message_id not in blaming or e.quoted or c.kind != "regression":
            continue
        if c.stated_pct is not None and c.stated_pct >= REPLY_MIN_PCT:
            return _claim_reason("reply-reports-slowdown", "regression", c)
    # the figures say it where the words do not ("write speed descrased greatly (330MB/s -> 130MB/s)
    # ... caused by this patch", linux-block 2024-04)
    for mid in blaming:
        pair = before_after(t.results, mid)
        change = slowdown_pct(*pair) if pair is not None else None
        if pair is not None and change is not None and change >= REPLY_MIN_PCT:
            e = pair[1].evidence
            return Reason(
                "reply-reports-slowdown",
                f"regression ({change:g}% measured)",
                mid,
                e.line_start,
                (e.text or "")[:300],
            )
    # a slowdown said beside the reply's own figures, unsized ("btrfs/187 becomes incredibly slow
    # with this patch applied ... It only takes 765 seconds if I revert this commit", linux-btrfs
    # 2022-04, after "Added to misc-next")
    measured_in = {r.evidence.message_id for r in t.results}
    for c in t.claims:
        e = c.evidence
        if e.message_id in blaming and e.message_id in measured_in and not e.quoted:
            if _speed_regression(c) and c.stated_pct is None:
                return _claim_reason("reply-reports-slowdown", "regression", c)
    return None


def before_after(results: list[Result], mid: str) -> tuple[Result, Result] | None:
    """The first "before" and "after" values of one metric a message measured ("330MB/s -> 130MB/s")."""
    before = [r for r in results if r.evidence.message_id == mid and (r.config or "").startswith("before")]
    for b in before:
        after = next(
            (
                r
                for r in results
                if r.evidence.message_id == mid
                and (r.config or "").startswith("after")
                and r.metric == b.metric
                and r.evidence.line_start >= b.evidence.line_start
            ),
            None,
        )
        if after is not None:
            return b, after
    return None


def slowdown_pct(before: Result, after: Result) -> float | None:
    """How much slower ``after`` is than ``before``, in percent of ``before`` (negative: faster)."""
    a = before.normalized_value if before.normalized_value is not None else before.value
    b = after.normalized_value if after.normalized_value is not None else after.value
    if not a:
        return None
    lower_better = lower_is_better(before.metric, before.normalized_unit)
    return round(((b - a) if lower_better else (a - b)) / a * 100.0, 2)


# ------------------------------------------------------------------ look-alikes


def improvement(t: ThreadFacts) -> Reason | None:
    """The change measured is a gain: a subject stating a gain with its size, or gains claimed and
    measured with no regression claimed."""
    gains = [c for c in t.subject_claims if c.kind == "improvement" and c.stated_pct is not None]
    if gains and not any(c.kind == "regression" for c in t.subject_claims):
        return _claim_reason("improvement", "improvement", gains[0])
    # a thread whose subject or mail says it regressed is no gain for a reply's "5.17 was
    # significantly better at multiple threads"
    if any(c.kind == "regression" for c in t.claims) or any(
        c.kind == "regression" and REGRESS_WORD.search(c.cue or "") for c in t.subject_claims
    ):
        return None
    for c in t.claims:
        if c.kind == "improvement" and (t.results or c.stated_pct is not None):
            return _claim_reason("improvement", "improvement", c)
    return None


def patch_own_numbers(t: ThreadFacts) -> Reason | None:
    """Patch mail measuring its own change (its gains, the cost of an old design it replaces, "no
    regression"): no report of a regression unless the thread says one, in its subject or as its
    author's claim ("regression"), or names a culprit otherwise than by a Fixes: tag (a patch
    fixing a long-standing slowness cites the 2007 commit that wrote it) and not as a reviewer
    recalling a commit long reverted."""
    if not PATCH_WORD.search(t.subject):
        return None  # "[RFC] Slow down of LTP tests ... in kernel 6.6" asks, a patch proposes
    # a culprit named otherwise than by a Fixes: tag; but a reviewer recalling an old commit that
    # was reverted ("commit 5dae222a5ff0 ... was reverted by 868f9f2f8e00") names none of this thread
    by_author = t.starter_ids
    # a reviewer's culprit counts in a reply telling of a regression; "V4 ... is quite hard to
    # implement since commit b4fd63f42647" (linux-block, 2020-07) blames no slowdown
    claiming = {c.evidence.message_id for c in t.claims if c.kind == "regression"}
    if any(
        c.role == "culprit"
        and c.form != "fixes"
        and not (
            c.form == "prose" and c.evidence.message_id not in by_author and "revert" in (c.cue or "").lower()
        )
        and (c.evidence.message_id in by_author or c.evidence.message_id in claiming)
        for c in t.own_commits
    ):
        return None
    if any(c.kind == "regression" and REGRESS_WORD.search(c.cue or "") for c in t.subject_claims):
        return None
    root_id = t.root.message_id if t.root is not None else ""
    # the author's "regression" is a kernel's where kernels are compared ("since 6.5-rc4 write
    # bandwidth regressed"), where its line names the kernel it appeared in ("There was a report of
    # write performance regression on 6.5-rc4 on RAID0", linux-btrfs 2024-01) or a bisection found
    # it; beside its own baseline and current only, it is the series' own cost ("massive
    # regressions to wait_current_trans in qgroup mode")
    said = [
        c
        for c in t.claims
        if c.kind == "regression"
        and REGRESS_WORD.search(c.cue or "")
        and c.evidence.message_id == root_id
        and not _of_an_earlier_version(t.subject, c.evidence.text or "")
    ]
    if said and (
        kernels_changed(t, root_id) is not None
        or any(find_versions((c.evidence.text or "")[:500]) for c in said)
        or (t.root is not None and BISECTION_SAID.search(t.new_text(t.root)))
    ):
        return None  # or a bisection found its cause ("he bisected it down to <a commit's title>")
    # the author telling in a later reply the regression the patch answers, bisected ("It
    # reproduces only about 20% difference between good & bad kernels ... the revert of what I've
    # bisected to actually fixes their issue", linux-xfs 2025-09)
    for m in t.messages[1:]:
        if m.message_id not in by_author:
            continue
        mine = any(
            c.kind == "regression" and c.evidence.message_id == m.message_id and not c.evidence.quoted
            for c in t.claims
        )
        if mine and BISECTION_SAID.search(t.new_text(m)):
            return None
    return _subject_reason(t, "patch-own-numbers", "not a regression")


# ------------------------------------------------------------------ the decision


@dataclass
class Classification:
    """What :func:`classify` decided, and every reason for it."""

    is_regression: bool
    kind: str | None  # regression | improvement | None
    reasons: list[Reason]


def classify(t: ThreadFacts) -> Classification:
    """Run the rules in order (see the module's docstring); the reasons say which decided."""
    for rule in (pull_request, userspace_project, backport_bundle, retracted, functional):
        r = rule(t)
        if r is not None:
            gain = improvement(t)  # a gain measured in it is still said ("with the patch it runs 12% faster")
            return Classification(
                False, "improvement" if gain is not None else None, [r] + ([gain] if gain is not None else [])
            )
    robot = robot_change(t)
    if robot is not None:
        return Classification(robot.verdict == "regression", robot.verdict, [robot])
    if robot_failure(t.root):
        return Classification(False, None, [_subject_reason(t, "robot-failure", "not a regression")])
    for rule in (fix_of_slowdown, traced_slowdown, bisected_measurement):
        r = rule(t)
        if r is not None:
            return Classification(True, "regression", [r])
    gain = improvement(t)
    if gain is not None:
        return Classification(False, "improvement", [gain])
    reply = reply_reports_slowdown(t)
    if reply is not None:
        return Classification(True, "regression", [reply])
    measured = measured_slowdown(t)
    if measured is None:
        named = named_slowdown(t)
        if named is not None:
            return Classification(True, "regression", [named])
        return Classification(False, None, [])
    own = patch_own_numbers(t)
    if own is not None:
        return Classification(False, None, [measured, own])
    compared = configurations_compared(t)
    if compared is not None:
        return Classification(False, None, [measured, compared])
    change = kernel_change(t, measured.message_id)
    if change is None:
        return Classification(
            False,
            None,
            [
                measured,
                Reason(
                    "config-comparison",
                    "not a regression",
                    measured.message_id,
                    measured.line,
                    "no kernel change in the thread",
                ),
            ],
        )
    return Classification(True, "regression", [measured, change])
