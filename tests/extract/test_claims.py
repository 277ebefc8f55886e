"""Claims about a performance change (lkmlkb.extract.claims)."""

import time
from pathlib import Path

import pytest

from lkmlkb.extract.claims import find_claims, stated_regression_pct

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _kinds(text):
    return [(c.kind, c.stated_pct, c.metric) for c in find_claims(text)]


@pytest.mark.parametrize(
    "text,expected",
    [
        # corpus/002 (Jan Kara, tiobench)
        ("So about 5% regression.", [("regression", 5.0, None)]),
        # corpus/000
        (
            "That is roughly a 33.65% performance change, this is reproducible on higher number of block devices "
            "as well. We have noticed a performance regression in kernel with fio sequential write job.",
            [("regression", 33.65, None), ("regression", None, "write")],
        ),
        (
            "Almost there is no regression on sequential-read while there is a \nsignificant regression in "
            "sequential write",
            [("no-regression", None, "read"), ("regression", None, "write")],
        ),
        # corpus/001, wrapped over a quoted line
        (
            "> > \t- also run same test on another 32cores machine, IOPS drop isn't\n> > \t  observed, but CPU",
            [("no-regression", None, "iops")],
        ),
        # archive <202401312320.a335db14-oliver.sang@intel.com>
        (
            "kernel test robot noticed a -72.9% regression of fio.write_iops on:",
            [("regression", 72.9, "fio.write_iops")],
        ),
        # archive sample: "shows 12%-24% improvement." and "I cannot reproduce this issue"
        ("shows 12%-24% improvement.", [("improvement", 24.0, None)]),
        (
            "in the background, and I did, but I cannot reproduce this issue.",
            [("cannot-reproduce", None, None)],
        ),
        ("We saw a drop of 25% in write throughput.", [("regression", 25.0, "write")]),
        # corpus/002: a disputed number is not a regression claim
        (
            "Sorry, I don't see a 10% regression in random read from your numbers.",
            [("no-regression", None, "randread")],
        ),
        # corpus/003
        (
            "so the performance result on 6.5-rc1 is the same level as\n6.1.36 with c8ed1b359312.",
            [("no-regression", None, None)],
        ),
        # a rate of occurrence is no magnitude: io-uring <8bb091fb5fd00072842fe92b03abac9b@matoro.tk> made
        # "the problem change from 100% reproducible, to intermittent" a 100% regression
        ("The bug is 100% reproducible and the throughput dropped.", [("regression", None, "bw")]),
        ("It happens 100% of the time; throughput dropped by 8%.", [("regression", 8.0, "bw")]),
        # the rate after the verb: linux-usb <CAHp75VeHUyMt75MC9tQVXiZ7yDwar78oakoheHz8m6bDL9BvdA@mail.gmail.com>
        # (Andy Shevchenko, 2021-03), a functional breakage listed as a 100% slowdown
        (
            "I got a clear regression that I may reproduce 100%. It's the commit.",
            [("regression", None, None)],
        ),
        ("The throughput regression is reproducible ~90% on my board.", [("regression", None, "bw")]),
        ("I can reproduce it 100%: the throughput dropped by 8%.", [("regression", 8.0, "bw")]),
        # a numbered source listing the robot quotes with its build warning: linux-acpi
        # <202309140915.2J9OzWIZ-lkp@intel.com> (2023-09), cgroups <201906141234.kvi24UfY%lkp@intel.com>
        ("   150\t\t/* Reduce the CPUFREQ Thermal reduction percentage to 5% */\n", []),
        ("   255\t\t * If usage% * 1.25 + 2% is lower than hweight% by more than 3%,\n", []),
        (" > 151\t\tcpufreq_thermal_pctg = 5; /* a 5% drop */\n", []),
        # a table's row opening with a number and a tab is no listing when it says a change
        ("4k randread:\tdropped by 12% on 6.1\n", [("regression", 12.0, "randread")]),
        ("I reproduced 30% slower writes on 6.1.", [("regression", 30.0, "write")]),
        # a patch's title quoted without its SHA holds its words, not the writer's claim
        ('I tested "blk-mq: fix performance regression with shared tags" and it works.', []),
        ('Revert "block: improve the performance of plugging" is queued.', []),
        # a subject cut short inside the title: linux-pci <20190429185611.121751-1-helgaas@kernel.org>
        ('[PATCH] Revert "PCI/LINK: Report degraded links via link bandwidth', []),
        (
            'The patch "blk-mq: fix tags" causes a performance regression of 10%.',
            [("regression", 10.0, None)],
        ),
        # a failure to reproduce on a kernel says where it does not happen: linux-ext4
        # <ZRytn6CxFK2oECUt@debian-BULLSEYE-live-builder-AMD64> (2023-10), "This does not reproduce
        # on 6.5.  Bisection leads to this patch" made a bisected report "cannot reproduce"
        ("This does not reproduce on 6.5.  Bisection leads to this patch:", []),
        ("I can't reproduce it with v6.1 or older kernels.", []),
        ("I could not reproduce this on my machine.", [("cannot-reproduce", None, None)]),
        # "change" setting a value is no change measured: linux-btrfs, "A trial to improve btrfs b-tree
        # node balancing for higher fill rates" (2025-10-06, <cb97e0f4-b382-4e0c-9f0c-12c78b51e715@gmail.com>)
        (
            "The old code is a regression for this tree.\n"
            "So keep c1 as 50% or change it to 25% to keep the current behavior, right?",
            [("regression", None, None)],
        ),
        ("We see a 20% change in IOPS after the update, a regression.", [("regression", 20.0, "iops")]),
        # a comparative of speed naming the kernel it is worse than is a claim without a figure:
        # linux-block <C06B8EF0-BF3B-4F14-994F-F80B5102D538@michaelmarod.com> (2022-03); a rate or a
        # time after "than" is no kernel, and a comparative of anything else claims nothing
        (
            "the IO performance on an Ubuntu Bionic 18.04 i3 instance with Linux 5.4.0 is significantly"
            " worse than that of an Ubuntu Xenial 16.04 i3 instance with Linux 4.4.0.",
            [("regression", None, None)],
        ),
        ("Random read speed is much lower on 6.8 than on 6.7.", [("regression", None, "randread")]),
        ("the performance is lower than 4.5 GB/s as expected", []),
        ("This approach is worse than the one in v2 of the series.", []),
        # a share of something that is no speed is no magnitude: linux-xfs, Re: "[PATCH v1 0/2] xfs:
        # remove quota warning limits" (2022-04) "stopped being maintainer and dropped 30% of my
        # workload" listed a series as a 30% regression; a share of a speed is one
        ("*After* I stopped being maintainer and dropped 30% of\nmy workload, I thought I'd feel better", []),
        ("Random reads dropped 25% of their throughput on 6.8.", [("regression", 25.0, "randread")]),
        ("dd speed dropped by 40% of the original.", [("regression", 40.0, None)]),
        # a cue as a heading keeps its number
        ("Regression: 10% drop in randread iops.", [("regression", 10.0, "randread")]),
        # less of what costs (latency, CPU, time) is better: linux-xfs <20190909053236.GP2254@rh> (Dave
        # Chinner on an LKP report) "the amount of time spent in userspace by the fsmark app dropped
        # by 70%" made an improvement report a regression report
        (
            "the amount of time spent in userspace by the fsmark app dropped by 70%.",
            [("improvement", 70.0, "time")],
        ),
        ("p99 latency dropped by 30%.", [("improvement", 30.0, "lat")]),
        ("completion latency is 25% lower", [("improvement", 25.0, "lat")]),
        ("CPU usage decreased by 12%.", [("improvement", 12.0, "cpu")]),
        ("sys time is 40% higher.", [("regression", 40.0, "cpu")]),
        ("Latency increased by 20% with the patch.", [("regression", 20.0, "lat")]),
        ("IOPS increased by 10%.", [("improvement", 10.0, "iops")]),
        ("IOPS dropped by 30%.", [("regression", 30.0, "iops")]),
        (
            "a 10% latency regression",
            [("regression", 10.0, "lat")],
        ),  # a regression is one whatever the metric
        ("throughput dropped a lot, about 15%", [("regression", 15.0, "bw")]),  # "a lot" is no object
        # found by review: a metric as the object is the quantity that fell; fio's runtime option is
        # no measured time; "Label: N %" is a claim; "reproducibly" is no rate
        ("This commit drops the throughput by 30% on nvme.", [("regression", 30.0, "bw")]),
        (
            "Since 6.8, the new merge path drops the IOPS of 4k randread by 25%.",
            [("regression", 25.0, "iops")],
        ),
        ("With fio --runtime=60 --bs=4k we see a 20% drop compared to v6.7.", [("regression", 20.0, None)]),
        ("Running fio for a 60s runtime, we see a 20% drop compared to v6.7.", [("regression", 20.0, None)]),
        ("Performance drop: 20 % on randwrite after the patch.", [("regression", 20.0, "randwrite")]),
        ("Improvement: 12 percent on randread with the series applied.", [("improvement", 12.0, "randread")]),
        ("IOPS dropped by 25% reproducibly on every boot.", [("regression", 25.0, "iops")]),
        # second review: a field is "cue: <count>" that ends there (or a ratio), and "dropped this
        # time by 15%" / "drops it by 20%" / "dropped that much" are falls, not the verb with an object
        ("Performance drop: 300 MB/s (25%) on randread.", [("regression", 25.0, "bw")]),
        ("IOPS drop: 12 (20%)", [("regression", 20.0, "iops")]),
        ("Throughput regression:\n2 jobs lose 15% each.", [("regression", 15.0, "bw")]),
        ("Throughput dropped this time by 15%.", [("regression", 15.0, "bw")]),
        ("Bandwidth dropped that much, about 20%.", [("regression", 20.0, "bw")]),
        ("The patch drops it by 20%.", [("regression", 20.0, None)]),
        # a regression that a test found is one; only the name of the testing is not
        ("The regression test caught a 12% regression in randread.", [("regression", 12.0, "randread")]),
        # a yes/no field is a line of its own ("        Regression: No"); in prose the word claims
        (
            "It is a regression: no tuning brings back the 20% of IOPS we lost.",
            [("regression", 20.0, "iops")],
        ),
        ("xfstests found regressions: 8% slower writes.", [("regression", 8.0, "write")]),
        # "N% more IOPS" (corpus/104, Bart Van Assche's fairness patch; quoted-printable wrapped it)
        (
            "On my test setup (x86 VM with 72 CPU cores) this patch results in 2.9% more\nIOPS.",
            [("improvement", 2.9, "iops")],
        ),
        ("We measured about 10% less throughput with the series.", [("regression", 10.0, "bw")]),
        ("It gives 7% higher bandwidth on nvme.", [("improvement", 7.0, "bw")]),
        ("We need more IOPS from this device, 30% of the time it idles.", []),
        # the time to do a job is a time spent (linux-xfs, "[PATCH] sched, fair: Allow a per-cpu
        # kthread waking a task to stack on the same CPU", Mel Gorman's numbers)
        (
            "Patch shows a 9.23% and 48.53% reduction in the time to process a load",
            [("improvement", 48.53, "time")],
        ),
        ("The time to mount went up, 30% higher than on 6.1.", [("regression", 30.0, "time")]),
        # "the above change decreases 50%+ CPU consumption" (linux-block, Coly Li's bcache
        # "[PATCH 0/6] fix for a race in btree_flush_write()"): "change" names the patch, the fall is
        # of a quantity of which less is better
        (
            "In my testing, the above change decreases 50%+ CPU consumption when\njournal space is full.",
            [("improvement", 50.0, "cpu")],
        ),
        ("The series reduces latency by 30% on nvme.", [("improvement", 30.0, "lat")]),
        ("It reduced throughput by 12% in our runs.", [("regression", 12.0, "bw")]),
        ("This patch reduces lock contention in the submission path.", []),
        # Jens Axboe, linux-block: less of a bad thing, no metric named: no claim either way
        ("reducing the > 70% of locking contention down to ~14%.", []),
        # found by review: a quantity named only by a part of an LKP metric's name ("timerfd" holds
        # "time"), a rise or fall of something unnamed, a measured regression before "tested"
        (
            "stress-ng.timerfd.ops_per_sec dropped by 30% with the series.",
            [("regression", 30.0, "stress-ng.timerfd.ops_per_sec")],
        ),
        (
            "fio.write_clat_mean_us increased by 25% on the robot's box.",
            [("regression", 25.0, "fio.write_clat_mean_us")],
        ),
        ("Memory usage increased by 30% after the update.", []),
        ("IOPS increased by 20% with the patch.", [("improvement", 20.0, "iops")]),
        ("We see a 15% regression tested with fio randread.", [("regression", 15.0, "randread")]),
    ],
)
def test_claim_examples(text, expected):
    assert _kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "util=98.28%, aggrios=287904/0, aggrutil=86.71%",  # fio disk stats, corpus/000
        "There may be a better way, though.",  # corpus/002: no number, weak word
        "I don't see the improvement you can see :(.",  # negated improvement: no claim
        "cpu          : usr=0.08%, sys=0.16%, ctx=1096948",
        # perf top's header (io-uring <CAN633e=OkHW-hYNhCgQLakRu4SjUXD5Ut8UYsrvTzwH54U4mzA@mail.gmail.com>):
        # "drop:" is a field, 99.8% the "exact:" one's value
        "PerfTop:   16481 irqs/sec  kernel:98.5%  exact: 99.8% lost: 0/0 drop:\n0/0 [4000Hz cycles],  (all, 24 CPUs)",
        "packets: 100% sent, drops: 12, 3% retransmitted",
        # a C declaration quoted in a reply (io-uring <ZBMHphP4qaaKqJqL@FVFF77S0Q05N>), 10% on the next line
        "struct io_sqring_offsets {\n| \tuint32_t dropped;\n| \tu32 slower;\nwith 10% of the ring\n",
        "the problem change from 100% reproducible, to intermittent.",
        # "drop" as a verb with an object: the kernel test robot's footer (linux-xfs, every LKP report
        # of 2021) and code comments it quotes
        "[If your patch is applied to the wrong git tree, kindly drop us a note.\nAnd when submitting "
        "patch, we suggest to use '--base' as documented in\nhttps://git-scm.com/docs/git-format-patch] 10%",
        " * Switch the contexts so we can drop the context lock and move out 5% of it",
        "Please drop this patch, it is 20% of the series.",
        # "regression" naming a kind of testing, not a change: the kernel test robot's functional
        # reports (linux-xfs <Ys0gqOUcLr+2dle5@xsang-OptiPlex-9020>, "[xfs] 47a6df7cd3:
        # Assertion_failed") describe xfstests so; regzbot's footer names its tracking
        "test-description: xfstests is a regression test suite for xfs and other filesystems. 11.2 MB/s 6%",
        "We ran the regression tests and the regression-test suite; 5% of them are new.",
        "I'm adding it to regzbot, the Linux kernel regression tracking bot; 10% of reports",
        # the regressions mailing list (linux-xfs, "temporary hung tasks on XFS since updating to
        # 6.6.92"), an fstests run, kernel bugzilla's "Regression:" field (linux-xfs, "[Bug 208827]")
        "In case that anyone considers that I've escalated this to the regressions list to early: 5%",
        "Cc'ing the regressions mailing list. 5% of the runs hang.",
        "Found by an fstests regression run on v6.8; it took 20% of the night.",
        "           Summary: io_uring write data crc32c verify failed\n        Regression: No\n 10%",
    ],
)
def test_not_claims(text):
    assert find_claims(text) == []


def test_seed_stated_magnitudes():
    assert stated_regression_pct(find_claims((CORPUS / "002_05ded6ff64fd7ec3.txt").read_text())) == 5.0
    assert any(
        c.stated_pct == 33.65 and c.kind == "regression"
        for c in find_claims((CORPUS / "000_a3585e8f2465c212.txt").read_text())
    )


@pytest.mark.parametrize(
    "text",
    ["", "\x00" * 5000, "regression " * 50000, "5% " * 100000],
    ids=["empty", "nuls", "cue-flood", "pct-flood"],
)
def test_pathological_input_is_fast_and_safe(text):
    t0 = time.thread_time()
    find_claims(text)
    assert time.thread_time() - t0 < 20


def test_dedupe_keeps_what_the_pairwise_comparison_kept():
    """_dedupe groups claims by (kind, line, metric) instead of comparing each with all kept
    (316 claims of a flood took 18 ms): the same claims, in the same order, on random runs."""
    import random

    from lkmlkb.extract.claims import _dedupe
    from lkmlkb.model import Claim, Evidence

    def pairwise(claims):  # the former implementation
        out = []
        for c in claims:
            same = [
                o
                for o in out
                if o.kind == c.kind
                and o.evidence.line_start == c.evidence.line_start
                and o.metric == c.metric
            ]
            if any(o.stated_pct == c.stated_pct or c.stated_pct is None for o in same):
                continue
            out = [o for o in out if not (o in same and o.stated_pct is None)]
            out.append(c)
        return out

    rng = random.Random(8)
    for _ in range(300):
        claims = [
            Claim(
                kind=rng.choice(["regression", "improvement"]),
                stated_pct=rng.choice([None, 5.0, 12.0]),
                metric=rng.choice([None, "iops"]),
                cue="x",
                evidence=Evidence(line_start=rng.randrange(3), line_end=0, text=""),
            )
            for _ in range(rng.randrange(12))
        ]
        assert [id(c) for c in _dedupe(claims)] == [id(c) for c in pairwise(claims)]


def test_metric_pattern_finds_what_it_found_without_its_leading_letter_test():
    """_METRIC_RE starts with a lookbehind for no word character and a lookahead for a letter (every
    alternative starts a word with one; the engine then skips other places fast): the same
    matches as the pattern without them, on the corpus, on
    near misses around the letters re.I folds ("ſ", the Kelvin sign, dotted and dotless i), from
    any start position."""
    import random
    import re

    from lkmlkb.extract.claims import _METRIC_RE

    lead = "(?<!\\w)(?=[^\\W\\d_])  # every alternative starts a word with a letter: lets the engine skip other places fast\n"
    assert lead in _METRIC_RE.pattern
    without = re.compile(_METRIC_RE.pattern.replace(lead, ""), _METRIC_RE.flags)
    corpus = Path(__file__).resolve().parents[2] / "corpus"
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.iterdir()) if p.is_file()]
    rng = random.Random(5)
    words = [
        "fio.write_iops",
        "IOPS",
        "iops",
        "ſys time",
        "\u212aiB",
        "MB/s",
        "bw",
        "_bw",
        "2bw",
        "lat",
        "İops",
        "ıops",
        "random-reads",
        "seq write",
        "x.y",
        "CPU usage",
        " ",
        "\n",
        ".",
        "-",
        "é",
    ]
    texts += ["".join(rng.choice(words) for _ in range(rng.randrange(15))) for _ in range(3000)]
    for t in texts:
        pos = rng.randrange(len(t) + 1)
        for start in (0, pos):
            assert [(m.span(), m.lastgroup) for m in _METRIC_RE.finditer(t, start)] == [
                (m.span(), m.lastgroup) for m in without.finditer(t, start)
            ]


def test_the_metric_a_change_is_in_is_its_metric_not_the_nearest_one_named():
    # Mikos on dm-kcopyd (linux-block, <23895da7-bcec-d092-373a-c3d961ab5c48@arrikto.com>): the
    # ~80% is a fall in latency, an improvement, though "throughput" stands nearer the cue
    text = (
        "My measurements had shown that scaling kcopyd, in combination with\n"
        "scaling dm-snapshot itself [1] [2], can lead to an eventual performance\n"
        "improvement of ~300% increase in sustained throughput and ~80% decrease\n"
        "in I/O latency for transient snapshots, over the null_blk device.\n"
    )
    got = {(c.kind, c.metric, c.stated_pct) for c in find_claims(text)}
    assert got == {("improvement", "bw", 300.0), ("improvement", "lat", 80.0)}
    # no metric word right after "in"/"of": the nearest one named, as before
    assert [(c.kind, c.metric) for c in find_claims("Write IOPS: a 20% regression of the new code.\n")] == [
        ("regression", "iops")
    ]
    assert [
        (c.kind, c.metric) for c in find_claims("We saw a 15% drop in 4k random read IOPS on v6.8.\n")
    ] == [("regression", "randread")]
    assert [
        (c.kind, c.metric) for c in find_claims("Latency is fine, but a 15% drop in the bandwidth.\n")
    ] == [("regression", "bw")]


@pytest.mark.parametrize(
    "text,expected",
    [
        # Nitesh Shetty, copy offload cover letter (linux-block, <20230112115908.23662-1-nj.shetty@samsung.com>):
        # a share of the network moved between two levels; neither a 14% fall nor good or bad as such
        # (a named one's change is the levels': 37% -> 14% sys time is 62.16% less)
        (
            "\t\tblock-size 8k, 8 ranges:\n\t\t\t18% drop in IO BW (from 798 MiB/s to 647 MiB/s)\n"
            "\t\t\tNetwork utilisation drops from  97% to 14%.\n",
            [("regression", 18.0, "bw")],
        ),
        # Jens Axboe (linux-block, <20240123174021.1967461-8-axboe@kernel.dk>): sys time is a named metric
        ("At the same time, sys time drops from 37% to 14%.\n", [("improvement", 62.16, "cpu")]),
        # Fengnan Chang (<20251114092149.40116-3-changfengnan@bytedance.com>): the subject ends the line above
        (
            "base IOPS is 562K, patch IOPS is 574K. The CPU usage of bio_alloc_bioset\ndecrease from 1.42% to 1.22%.\n",
            [("improvement", 14.08, "cpu")],
        ),
        # Jens Axboe (io-uring, <20240320225750.1769647-16-axboe@kernel.dk>): a profile's share
        ("where the prep side drops from 10.60% to ~2%, which is more expected.\n", []),
    ],
)
def test_two_levels_after_a_direction_word_are_no_change_of_the_second_level(text, expected):
    assert _kinds(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # Jens Axboe (linux-block, <20240123174021.1967461-8-axboe@kernel.dk>): the 87% nearby is the
        # lock contention's level; the drop is of IOPS, from 1630K to 1050K
        (
            "where we almost tripple the lock contention (~32% -> ~87%) by attempting\n"
            "these expensive merges, and performance drops from 1630K to 1050K IOPS.\n",
            [("regression", 35.58, "iops")],
        ),
        # Paolo Valente (linux-block, <20190624194042.38747-7-paolo.valente@linaro.org>): a unit written once
        (
            "SSD, the maximum latency reported by fio drops from 15.1 to 3.2 ms for\n",
            [("improvement", 78.81, "lat")],
        ),
        (" - Throughput drops from 640 MB/s to 153 MB/s\n", [("regression", 76.09, "bw")]),
        # a unit ending the sentence, or a capital From/To
        (
            "With 10% of the cache, throughput drops from 640 MB/s to 153 MB/s.\n",
            [("regression", 76.09, "bw")],
        ),
        ("Throughput Drops From 640 MB/s To 153 MB/s, sadly.\n", [("regression", 76.09, "bw")]),
        # values that contradict the word, or units that differ, give no figure of their own
        ("Throughput drops from 153 MB/s to 640 MB/s, about 5%.\n", [("regression", 5.0, "bw")]),
        # one measure in two units: compared in one
        ("Throughput drops from 1 GB/s to 640 MB/s\n", [("regression", 36.0, "bw")]),
        # counts of something that is no measure, and a percentage stated right after the values
        # (the review's cases: each gave 50, 75 or 300 %)
        ("Write bandwidth decreased from 16 to 8 cores by 12% here.\n", [("regression", 12.0, "bw")]),
        ("IOPS drops from 4 to 1 queues in this setup, a 10% regression.\n", [("regression", 10.0, "iops")]),
        ("With the patch, throughput increased from 1 to 4 jobs by 20%.\n", [("improvement", 20.0, "bw")]),
        ("Throughput drops from 640 MB/s to 153 MB/s, or 76%.\n", [("regression", 76.0, "bw")]),
        # ... stated right after values that are too far from a weak word for its reach
        (
            "the runtime of the whole suite increased from 15 seconds to 5 minutes, or 1900%\n",
            [("regression", 1900.0, "time")],
        ),
        # the values of a time say what went up, whatever the sentence calls it ("runtime", "test
        # time", "fsync time"), and a time in two units is compared in one
        ("the runtime increased from 15 seconds to 5 minutes\n", [("regression", 1900.0, "time")]),
        ("fsync time increased from 2 ms to 9 ms with the series\n", [("regression", 350.0, "time")]),
        ("the test time decreased from 60s to 15s\n", [("improvement", 75.0, "time")]),
        ("memory use increased from 10 MB to 20 MB\n", []),  # a size: no time, no measure of speed
        # "to B", from the "from A" after it or from the same measure before the word: a linux-block
        # review (2023, "read BW is dropped to 3709MB/s from 20GB/s") and a linux-btrfs report's
        # form (2024, "starts reading at 800MiB/s then ... the read speed drops to as low as 6MiB/s")
        (
            "In my VM, read BW is dropped to 3709MB/s from 20GB/s in the above\n",
            [("regression", 81.45, "bw")],
        ),
        (
            "it starts reading at 800MiB/s then, once the cache fills up, the read speed drops to as low\n"
            "as 6MiB/s but returns to 800MiB/s later.\n",
            [("regression", 99.25, "read")],
        ),
        ("latency increased to 50 ms from 10 ms\n", [("regression", 400.0, "lat")]),
        # the value before is the last of the same measure, past one of another
        (
            "it reads at 800MiB/s doing 4000 IOPS, then the read speed drops to 6MiB/s\n",
            [("regression", 99.25, "read")],
        ),
        ("we ran 800 IOPS jobs, and the read speed drops to 6MiB/s\n", [("regression", None, "read")]),
    ],
)
def test_the_values_a_direction_word_goes_from_and_to_give_its_size(text, expected):
    assert _kinds(text) == expected


def test_a_size_going_from_one_value_to_another_gives_no_figure():
    # Kanchan Joshi (linux-block, <c9b1325e-e986-4b85-ae6b-32686cd66888@samsung.com>): fewer extra
    # writes is good, less data as often bad: the values of a size size nothing; those of IOPS do
    text = "For direct IO: IOPS increase from 144K to 172K, and extra-writes\nreduction from 66GB to 9GB.\n"
    assert [(c.kind, c.metric, c.stated_pct) for c in find_claims(text)] == [
        ("improvement", "iops", 19.44),
        ("regression", "write", None),
    ]


@pytest.mark.parametrize(
    "text,expected",
    [
        # Murphy Zhou, linux-xfs, <20190724094317.4yjm4smk2z47cwmv@XZHOUW.usersys.redhat.com>
        ("Testing on older kernels are going on to see if it's a regression.", []),
        # a question or a supposition opening the clause (the review's case: the colon of a title is no break)
        (
            'We checked whether commit 0123456789ab ("blk-mq: rework dispatch") caused a performance regression '
            "and found none.",
            [],
        ),
        ("If there's a big drop in throughput we will know.", []),
        # a finding under a condition stays
        (
            "If it is created through sysfs, however, there is a regression in corner cases.",
            [("regression", None, None)],
        ),
        # a new list item or labelled line is a new clause
        (
            "Changes since v1 if you want them\n- Fix for a regression in when user memory is accounted freed",
            [("regression", None, None)],
        ),
        (
            "Tested it twice to see if it helps\n   Result: also meet performance degradation",
            [("regression", None, None)],
        ),
        # a figure said under a condition is still found
        ("If you run fio with iodepth=32, there is a 20% regression.", [("regression", 20.0, None)]),
        # an "if" of the sentence before is not this one's
        (
            "I hope I'm not wrong! The problem thus still qualifies as a kernel regression.",
            [("regression", None, None)],
        ),
    ],
)
def test_a_regression_asked_about_or_supposed_is_no_claim(text, expected):
    assert _kinds(text) == expected


def test_only_the_clause_an_if_opens_is_supposed():
    # Jens Axboe, linux-block, <6867cf11-d7f8-cadf-b9ec-85549bb86af3@kernel.dk>: the first use is
    # supposed; the second, past the comma, is read (a clause rule, not a sentence rule)
    text = (
        "If it's a regression, it should have a Fixes: line telling us which\n"
        "commit originally introduced the regression. This is important for\nfolks doing backports."
    )
    assert [(c.kind, c.evidence.line_start) for c in find_claims(text)] == [("regression", 1)]


@pytest.mark.parametrize(
    "text",
    [
        # kernel test robot, <202202281457.NLF9dxdF-lkp@intel.com> (io-uring): a sparse warning
        "   fs/io_uring.c:5642:71: sparse: sparse: restricted __poll_t degrades to integer\n",
        # kernel test robot, <62ab89f2.Pko7sI08RAKdF8R6%lkp@intel.com> (linux-xfs): its tree of warning ids
        "|-- i386-randconfig-s001\n"
        "|   |-- drivers-vfio-pci-vfio_pci_config.c:sparse:sparse:restricted-pci_power_t-degrades-to-integer\n",
        ">> block/blk-mq.h:169:32: sparse: sparse: restricted req_flags_t degrades to integer\n",
    ],
)
def test_a_build_checkers_warning_is_no_claim(text):
    assert find_claims(text) == []


def test_a_claim_on_a_line_that_names_a_file_first_stays():
    (c,) = find_claims("fs/io_uring.c: the change gives a 5% regression in IOPS\n")
    assert (c.kind, c.metric, c.stated_pct) == ("regression", "iops", 5.0)


@pytest.mark.parametrize(
    "text,expected",
    [
        # <aTtHJm_qcQIYkXcy@fedora> (linux-block): a script, not a metric; "drop it" is the verb
        ("Yeah, it is fine to drop it in test_stress_05.sh.\n", []),
        # regzbot commands, <562a2442-d098-4972-baa1-5a843e06b180@gmail.com> (linux-block)
        (
            "#regzbot introduced: 3ea3354cb9f03e https://bugzilla.kernel.org/show_bug.cgi?id=218184\n"
            "#regzbot title: badblocks_check regression (md error handling) on bcachefs volume\n",
            [("regression", None)],
        ),
        ("fio.write_iops dropped by 12% in fs/io_uring.c\n", [("regression", "fio.write_iops")]),
    ],
)
def test_a_file_name_is_no_metric(text, expected):
    assert [(c.kind, c.metric) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a pull request's shortlog, <linux-block>: "blk-mq: Drop ..." is what the patch does
        (
            "      blk-mq: Drop 'reserved' arg of busy_tag_iter_fn\n      blk-mq: Drop local variable for reserved tag\n",
            [],
        ),
        ("151f0ec9ddb5 (HEAD) scsi: scsi_debug: Drop sdebug_dev_info.num_in_q\n", []),
        ("  io_uring/msg_ring: Drop custom destructor\n", []),
        # a figure makes it a finding, whatever the line looks like
        ("      blk-mq: Drop of 20% in IOPS with the new tag code\n", [("regression", 20.0)]),
        # a capitalized cue after a label is still read
        ("Result: Drop in IOPS after the merge, see below\n", [("regression", None)]),
    ],
)
def test_the_verb_of_a_commit_title_is_no_claim(text, expected):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # <20250708220710.3897958-1-bvanassche@acm.org> (linux-block): a cover letter's changelog
        (' - Dropped patch 2/11 "block: Support allocating from a specific software queue"\n', []),
        # <1614957294-188540-3-git-send-email-john.garry@huawei.com> (linux-block)
        ("IO scheduler until all refs are dropped. This ensures no stale references\n", []),
        # <YtiSKY1OcPAg+p52@magnolia> (linux-xfs)
        ("problem -- if we enable it now, the minimum log size will decrease.  If\n", []),
        # a word of speed near it: <20200127143608.GX3466@techsingularity.net> (linux-xfs)
        ("that the dbench performance dropped quite a lot and CPU migrations were\n", [("regression", None)]),
        # <53e29125-025c-2fc1-f9b3-fccdea3060e6@oracle.com> (io-uring)
        (
            "I'm seeing a sizeable drop in perf with polled fio tests for block sizes > 128k:\n",
            [("regression", None)],
        ),
        # <20240901-b4-fuse-uring-rfcv3-without-mmap-v3-0-9207f7391444@ddn.com> (io-uring)
        ("  removing it means a significant performance drop)\n", [("regression", None)]),
        # a drop given a size: <20191120220313.GC18056@pauld.bos.csb>, <YG2F9ed33XbY6vZe@T590> (linux-block)
        ("With the lb patches it's 3500 and 3000, a slight drop.\n", [("regression", None)]),
        ("Same drop is observed on virtio-blk too.\n", [("regression", None)]),
        ("a big reduction in memory use\n", []),
        # a metric or a figure is enough
        ("the IOPS dropped after the merge\n", [("regression", "iops")]),
        ("it dropped by 12% with the patch applied\n", [("regression", None)]),
        # "degraded" is a state of arrays and devices as often as of speed: mdadm --detail's
        # <eb9a7323-f955-4b1c-b1c4-7f0723...> and a question on linux-raid
        # <87273fc6-9531-4072-ae6c-06306e...>, virtio on linux-block <CY8PR12MB71953EFA4BD60651BFD66...>
        ("             State : clean, degraded\n", []),
        (
            "I have done this before and all looked well. The array is now degraded until I get the new disk.\n",
            [],
        ),
        ("Otherwise, it is in degraded state as virtio never supported surprise removal.\n", []),
        # of speed, measured or sized: it claims
        ("the write performance degraded after the upgrade\n", [("regression", "write")]),
        ("we noticed that performance degraded after the upgrade\n", [("regression", None)]),
        ("random read IOPS degraded a lot on 6.1\n", [("regression", "iops")]),
        ("it degraded by 30% with the patch\n", [("regression", None)]),
    ],
)
def test_a_direction_word_claims_only_of_speed(text, expected):
    assert [(c.kind, c.metric) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # <CACzhbgTFesCa-tpyCqunUoTw-1P2EJ83zDzrcB4fbMi6nNNwng@mail.gmail.com> (linux-block, "read
        # regression for dm-snapshot with loopback"): a time in minutes, the values on the next line
        (
            "I have been investigating a read performance regression of dm-snapshot\n"
            "on top of loopback in which the read time for a dd command increased\n"
            'from 2min to 40min. I bisected the issue to dc5fc361d89 ("block:\n',
            [("regression", "read", None), ("regression", "time", 1900.0)],
        ),
        ("mount time increased from 2 minutes to 3 minutes\n", [("regression", "time", 50.0)]),
        ("the read throughput increased from 2 GB/s to 3 GB/s\n", [("improvement", "bw", 50.0)]),
        # values of no measure, or of something that is no metric, size nothing
        ("the number of cores increased from 16 to 32\n", []),
        ("memory use increased from 2 GB to 3 GB\n", []),
    ],
)
def test_a_weak_direction_word_is_sized_by_the_values_it_goes_from_and_to(text, expected):
    assert [(c.kind, c.metric, c.stated_pct) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # Anders Blomdell, "XFS mount timeout in linux-6.9.11" (linux-xfs,
        # <71864473-f0f7-41c3-95f2-c78f6edcfab9@gmail.com>): a time that skyrockets is a regression
        ("the time to mount the filesystem skyrockets to around 15 minutes\n", [("regression", "time")]),
        ("the IOPS skyrocketed with the patch\n", [("improvement", "iops")]),
        ("memory use ballooned\n", []),  # of what is no metric, no claim
    ],
)
def test_a_sharp_rise_is_good_or_bad_by_its_metric(text, expected):
    assert [(c.kind, c.metric) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # Dave Chinner, <20211012212339.GQ2361455@dread.disaster.area> (linux-xfs): a runtime that drops
        # is a gain, and "IPC goes up" negates nothing
        (
            "Runtime of the fsync-less, 5,000 iteration version drops from 1.29s\n"
            "to 0.89s, IPC goes up, branches and branch-misses go down, context\n",
            [("improvement", "time", 31.01)],
        ),
        ("a 30% reduction in runtime because the transaction rate is now\n", [("improvement", "time", 30.0)]),
        # fio's option is the test's length, not what it measured
        ("fio --runtime=60 shows a 10% drop\n", [("regression", None, 10.0)]),
        # gone with a revert or a patch tried: the regression was there, and its size is said
        ("The 10% regression goes away with the revert.\n", [("regression", None, 10.0)]),
        ("The 10% regression goes away on 6.2-rc1.\n", [("no-regression", None, None)]),
        # <12d1420a4a3fe6be0918a8a13a1960db47032330.1609848797.git.riteshh@linux.ibm.com> (linux-xfs)
        (
            "There were some regressions which went unnoticed due to this in ext4\n",
            [("regression", None, None)],
        ),
        (
            "Does the regression go away if the chunk size matches the IO size,\n",
            [("regression", None, None)],
        ),
    ],
)
def test_a_runtime_is_a_time_and_only_going_away_negates(text, expected):
    assert [(c.kind, c.metric, c.stated_pct) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # "Re: Sequential read from NVMe/XFS twice slower on Fedora 42 than on Rocky 9.5" (linux-block)
        ("Sequential read from NVMe/XFS twice slower on Fedora 42\n", [("regression", "read", 50.0)]),
        # Jens Axboe's and others' replies (linux-block): the share of the speed lost, of a throughput
        ("performance differences. Nearly a 7x slowdown in some cases.\n", [("regression", None, 85.71)]),
        (
            "test I noticed that I/O is about 10x slower for queue depth 1 and the\n",
            [("regression", None, 90.0)],
        ),
        # Bart Van Assche's zoned write series (linux-block): the share gained
        (
            "- With the mq-deadline scheduler: 2.0x more IOPS for small writes.\n",
            [("improvement", "iops", 100.0)],
        ),
        (
            "\tiops is improved by 4X-5X in `fio/t/io_uring -p0 /dev/ublkbN` between:\n",
            [("improvement", "iops", 400.0)],
        ),
        # linux-xfs: a throughput halved; a latency tripled is a regression of 200%
        ("throughput has dropped by half...\n", [("regression", "bw", 50.0)]),
        ("latency is 3x higher with the patch\n", [("regression", "lat", 200.0)]),
        ("it is slower by a factor of 3 on ext4\n", [("regression", None, 66.67)]),
        # a factor of a sentence whose figures are times is of a time: 9x the runtime is 800% more.
        # Petr Vorel, "[RFC] Slow down of LTP tests aiodio_sparse.c and dio_sparse.c in kernel 6.6"
        # (linux-block, <20240719174325.GA775414@pevik>), and variants of the pattern
        (
            "same system slowed down 9x (6.5: ~1 min 6.6: ~9 min). Ext4 is not affected.\n",
            [("regression", "time", 800.0)],
        ),
        (
            "the job now runs about 4x slower: 2 minutes instead of 30 seconds\n",
            [("regression", "time", 300.0)],
        ),
        ("the build got 3 times slower (1m20s before, 4m after)\n", [("regression", "time", 200.0)]),
        # ... and of a sentence whose figures are speeds, of the speed
        ("the copy is 5 times slower, 300 MB/s instead of 1500 MB/s\n", [("regression", "bw", 80.0)]),
        ("the copy got 2x slower (90 MB/s) and took 40 s\n", [("regression", "bw", 50.0)]),
        ("the boot slowed down a lot\n", []),  # weak: no size, no claim
        # a count of devices is no factor, nor a rise of what is no metric
        ("with 4x NVMe drives it is slower\n", []),
        ("IO pressure is 10x higher than with mq-deadline\n", []),
        ("IOPS dropped by 20 with the patch\n", [("regression", "iops", None)]),
        # factors in words and orders of magnitude (Paolo Valente, linux-block, 2019: "an order of
        # magnitude slower"), and variants of the pattern
        ("Random reads are about five times slower since v6.9.\n", [("regression", "randread", 80.0)]),
        ("Writes are an order of magnitude slower on 6.6 than on 6.5.\n", [("regression", "write", 90.0)]),
        ("Writes are two orders of magnitude slower on 6.6.\n", [("regression", "write", 99.0)]),
        ("throughput dropped by a factor of four\n", [("regression", "bw", 75.0)]),
        # a fall named so, sized ("fell", "plummeted"); a fall back is none
        ("Sequential write throughput fell by 40% on 6.8.\n", [("regression", "bw", 40.0)]),
        ("IOPS plummeted 3x after the update\n", [("regression", "iops", 66.67)]),
        ("the code fell back to buffered IO\n", []),
        # "orders of magnitude" with no count says no size
        ("device removal got orders of magnitude slower suddenly.\n", []),
        # the measure named between the factor and the fall (linux-ext4, 2022-12: "I'm observing
        # ~10x performance degradation"); a fall of a count is none
        ("The commit causes a ~10x performance drop for us.\n", [("regression", None, 90.0)]),
        ("after the change we saw a 3x throughput drop\n", [("regression", "bw", 66.67)]),
        ("a 10x drop in the number of calls\n", []),
        # a factor wrapped away from its fall at the end of a mail's line: Dmytro Maluka, "Re: [PATCH
        # 1/1] ext4: Don't show commit interval if it is zero" (linux-ext4, 2023-02-24,
        # <bdefbbd3-c652-2d6f-bd38-b7de6b1b9155@semihalf.com>), and variants of the pattern
        (
            "setups, for instance I'm observing ~10x\nperformance drop in direct I/O write tests\n",
            [("regression", "write", 90.0)],
        ),
        ("Random reads are about five times\nslower since v6.9.\n", [("regression", "randread", 80.0)]),
        ("Writes are an order of\nmagnitude slower on 6.6 than on 6.5.\n", [("regression", "write", 90.0)]),
        ("throughput dropped by a factor\nof four\n", [("regression", "bw", 75.0)]),
        ("the reads slowed down\n3x after the update\n", [("regression", "read", 66.67)]),
        # a paragraph's break is no wrapped line
        ("with 4x\n\nNVMe drives it is slower\n", []),
    ],
)
def test_a_change_stated_as_a_factor_is_sized(text, expected):
    assert [(c.kind, c.metric, c.stated_pct) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a hit taken, sized or of speed, is one: <7a69eba2-42e4-4c67-8a54-37b5b41675f9@kernel.dk> (linux-block)
        ("would be MORE\nthan a 2.9% hit.\n", [("regression", 2.9)]),
        ("this is a 10% performance hit we cannot take\n", [("regression", 10.0)]),
        # <YecGC06UrGrfonS0@bfoster> (linux-xfs): ~34k against ~29k create/unlink cycles
        ("that looks like about a ~15% or so hit from baseline\n", [("regression", 15.0)]),
        ("the write performance is hit by 20% on 6.1\n", [("regression", 20.0)]),
        ("this hit 100% CPU on every core\n", []),
        # the verb, with a level near it: <20210203062019.GD14354@localhost.localdomain> (linux-ext4),
        # a bugzilla report's steps <bug-217965-13602-YEM8MziGb7@https.bugzilla.kernel.org/> (linux-ext4),
        # <CAAMCDef9TDLAiKqyHHub6gaXp+ar0ABEgzamtjTcAvw6hS1jOw@mail.gmail.com> (linux-raid)
        (
            "renameat2 hit ENOSPC 100%, but can't trigger that ext4 bug. I think it might\n",
            [("cannot-reproduce", None)],
        ),
        ("2. Once the 100% util is hit, in another terminal run the following command:\n", []),
        ("internal issues %util will hit close to 100% on lowish reads/writes.\n", []),
        # a certainty is no size: <a4ed8496-60f6-4036-b1f9-75e3448510ec@ans.pl> (linux-ext4), asked, no claim
        ("However, I cannot be 100% sure if this is a relatively recent regression or not, as I think\n", []),
        ("we can't 100% make sure that the slowdown comes from it\n", [("regression", None)]),
        # how right something is: a btrfs raid56 fix's log (linux-btrfs, 2023-06,
        # <9874fb351e4374c925d00f9cc1b56730f5d64067.1688086590.git.wqu@suse.com>), and variants
        (
            "The situation is more complex than the regression, in fact the initial\nbehavior is not 100% correct either.\n",
            [("regression", None)],
        ),
        ("the regression numbers are not 100% accurate, the box was busy\n", [("regression", None)]),
        ("I am not 100% right about this regression, but\n", [("regression", None)]),
        # a level, not the size of the drop; a new sentence after a size keeps it
        ("the disk shows 100% util after the IOPS drop\n", [("regression", None)]),
        (
            "fio randread IOPS regressed 15%\nSure enough, reverting the commit restores it.\n",
            [("regression", 15.0)],
        ),
    ],
)
def test_a_hit_is_a_noun_and_a_certainty_no_size(text, expected):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == expected


# "loss" of something that is not speed: the subject of a dm-devel thread,
# "[dm-devel] lvmcache volume gets 100% dirty blocks after power loss regardless of previous
# state", 2019-07-12, <20190712182203.7c1e3591@seagull>; Paolo Valente's BFQ figures on linux-block
# ("in return for this 12% loss of throughput", "this residual 12% throughput loss")
@pytest.mark.parametrize(
    "text,want",
    [
        ("lvmcache volume gets 100% dirty blocks after power loss regardless of previous state", []),
        # constructed with a figure (the dm-devel subject <297da4cbe20235080205719805b08810@bi-co.net> has none)
        ("fstrim discarding too many or wrong blocks on Linux 5.1, leading to 100% data loss", []),
        ("that BFQ gives in return for this ~10% loss of throughput, in a", [("regression", 10.0)]),
        ("imagined, this residual 12% throughput loss is due to a couple of", [("regression", 12.0)]),
        # constructed: a loss on a code path is one of speed (the review's case)
        ("there is a 5% fast-path loss with the new locking", [("regression", 5.0)]),
    ],
)
def test_a_loss_of_power_or_data_is_no_loss_of_speed(text, want):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == want


# an improvement asked or hoped for measures nothing: linux-btrfs, "slow performance due to frequent
# memalloc_retry_wait in btrfs_alloc_page_array" (2024-03, a report of a slowdown since 5.10 ->
# 6.1 whose reply asks "Any suggestion for improvement?"); linux-xfs (2019-08,
# <20190826144712.14614-1-cmaiolino@redhat.com>) "there might be room for improvement in the XFS
# allocator"; linux-block (2022-03) "the libata change has the largest scope for improvement"
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Any suggestion for improvement?\n", []),
        ("I think there might be room for improvement in the XFS allocator code\n", []),
        ("I think that the libata change has the largest scope for improvement.\n", []),
        ("we'd all be open to feedback for improvements for next time.\n", []),
        ("There is still room for further improvement here, the IOPS are 12% below.\n", []),
        # measured gains keep their claim
        ("With the patch there is a 12% improvement in IOPS.\n", [("improvement", 12.0)]),
        ("This gives 12% improvement for random reads.\n", [("improvement", 12.0)]),
    ],
)
def test_an_improvement_asked_for_is_no_claim(text, want):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # linux-raid, "[RFC V6] md/raid5: optimize Scattered Address Space and Thread-Level
        # Parallelism" (2024): a nearer throughput and percentage belong to the first verb
        (
            "Achieve increased overall storage throughput by\n"
            "89.4% and decrease the 99.99th percentile I/O latency by 85.4% on a\n"
            "system with four PCIe 4.0 SSDs.\n",
            [("improvement", 89.4, "bw"), ("improvement", 85.4, "lat")],
        ),
        # linux-xfs, "[PATCH 1/3] xfs: reduce the rate of cond_resched calls inside scrub"
        # (Darrick J. Wong, 2024-04, <171392785674.1907196.7779572889993967696.stgit@frogsfrogsfrogs>)
        (
            "used the bmapinflate xfs_db command to produce a billion-extent file and\n"
            "this stupid gadget reduced the scrub runtime by about 4%.\n",
            [("improvement", 4.0, "time")],
        ),
    ],
)
def test_a_verbs_object_sized_by_a_percentage_is_what_moved(text, want):
    got = [(c.kind, c.stated_pct, c.metric) for c in find_claims(text)]
    assert got == want


@pytest.mark.parametrize(
    "text,expected",
    [
        # a percentage spelled out: linux-raid 2021 ("a thirty percent drop in performance"), anew
        ("we saw a thirty percent drop in performance on the array\n", [("regression", 30.0)]),
        ("throughput is twenty-five percent lower than on 6.1\n", [("regression", 25.0)]),
        ("Reads got Forty percent slower after the update\n", [("regression", 40.0)]),
        # a share of the time is no size
        ("reads regressed fifty percent of the runs\n", [("regression", None)]),
    ],
)
def test_a_percentage_in_words_sizes_a_claim(text, expected):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a slowdown someone may meet is none met: a linux-block brd/null_blk series' letter (2023,
        # "In case someone shows up with performance regression on the arch that ..."), anew
        ("In case someone shows up with a performance regression on the arch, we revert it.\n", []),
        ("We should watch out for a performance regression here.\n", []),
        ("This is done to avoid any performance regression on slow disks.\n", []),
        ("we saw a big regression in case of random reads\n", [("regression", None)]),
        # "any" before the cue waits for its negation a little further back: a linux-block review
        # (2020, "I do not see that causing any performance regression"), anew
        (
            "With or without the series it runs at 2.3M IOPS. I\ndo not see that causing any performance regression.\n",
            [("no-regression", None)],
        ),
        ("I don't think it causes any regression at all.\n", [("no-regression", None)]),
        # "any" alone negates nothing; a yes/no question asks, it finds nothing
        # (test_claims_forms.py: a slowdown asked about is none found)
        ("Is there any performance regression with this?\n", []),
    ],
)
def test_a_regression_supposed_or_denied_from_afar_is_no_claim_of_one(text, expected):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == expected


# fio's progress line gives how far a job ran, no size: linux-bcache, Christian Balzer, "Several
# bugs/flaws in the current(?) bcache implementation", 2019-11-11,
# <20191111104219.6d12c4b6@batzmaru.gol.ad.jp> (trimmed)
FIO_PROGRESS = """\
Jobs: 1 (f=1), 0-1000 IOPS: [w(1)][2.4%][w=4000KiB/s][w=1000 IOPS][eta
04m:39s (repeats nicely for a while then we get the first slowdown)
...
Jobs: 1 (f=1), 0-1000 IOPS: [w(1)][14.9%][w=2192KiB/s][w=548 IOPS][eta
"""


def test_fio_progress_is_no_size_of_a_slowdown():
    assert [(c.kind, c.stated_pct) for c in find_claims(FIO_PROGRESS)] == [("regression", None)]
    # a size written beside the slowdown still is one
    said = FIO_PROGRESS.replace("we get the first slowdown", "we get the first 40% slowdown")
    assert [(c.kind, c.stated_pct) for c in find_claims(said)] == [("regression", 40.0)]


# how full a cache or disk is, no size of a fall: linux-bcache (2022, "once the cache gets about
# 50% full" the write rate drops); the others written for the pattern
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Write performance drops badly once the cache gets about 50% full.\n", [("regression", None)]),
        ("performance drops once the disk is 90% used\n", [("regression", None)]),
        ("IOPS drop by 30% once the cache is full\n", [("regression", 30.0)]),
        ("a 20% drop with the disk 90% full\n", [("regression", 20.0)]),
        # a level fallen under (the same thread's reply): "the cache_availability_percent can drop
        # under 30 percent which"
        (
            "the reason is that the cache_availability_percent can drop under 30 percent which\n",
            [],
        ),
        ("hit rates drop below 50% after a day\n", []),
        ("hit rates drop by 50% after a day\n", [("regression", 50.0)]),
    ],
)
def test_how_full_something_is_is_no_size(text, want):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == want


@pytest.mark.parametrize(
    "text,expected",
    [
        # a measure of speed gone down, sized: Naohiro Aota, "Performance drop due to alloc_workqueue()
        # misuse and recent change" (linux-block and five more lists, 2023-12-04,
        # <dbu6wiwu3sdhmhikb2w6lns7b27gbobfavhjj57kwi2quafgwl@htjcc5oikcr3>); David Howells
        # (linux-cifs, 2022-06, <928536.1654072840@warthog.procyon.org.uk>); Dave Chinner (linux-xfs,
        # 2019-10, <20191001231433.GU16973@dread.disaster.area>); and variants of the pattern
        ("So, it is -31.8% performance down with the commit.\n", [("regression", None, 31.8)]),
        ("the performance was unexpectedly down by 80%\n", [("regression", None, 80.0)]),
        ("with the patch performance goes down by 50%, and all that CPU\n", [("regression", None, 50.0)]),
        ("Sequential write throughput is down 20% on 6.8.\n", [("regression", "bw", 20.0)]),
        ("IOPS went down by 30% after the update\n", [("regression", "iops", 30.0)]),
        # down without a size, and what going down is no slowdown of
        ("the performance is down on this box\n", []),
        ("we shut down 20% of the nodes\n", []),
        ("the load is down 30% since the fix\n", []),
        ("it all boils down to 20% of the code\n", []),
        ("perf-profile.calltrace.cycles-pp.down_read.xfs_ilock 12.5%\n", []),
    ],
)
def test_a_measure_of_speed_gone_down_is_a_regression(text, expected):
    assert [(c.kind, c.metric, c.stated_pct) for c in find_claims(text)] == expected


# the same thread's report, trimmed: a setting compared sized first, the commit measured after
WORKQUEUE = """\
The current performance is slower than the previous limit (max_active=16)
by 27%, or it is 50% slower than the intended limit.

More specifically, I tested the same workload on the commit.

So, it is -31.8% performance down with the commit.
"""


def test_the_size_said_of_the_change_comes_before_one_said_of_a_setting():
    assert stated_regression_pct(find_claims(WORKQUEUE)) == 31.8
    # with no figure said of a change, the first stands
    assert stated_regression_pct(find_claims(WORKQUEUE.replace(" with the commit", ""))) == 50.0


def test_the_size_the_subject_states_comes_first():
    # linux-btrfs, "Scrub of my nvme SSD has slowed by about 2/3" (2023-07): the subject's size, then
    # a body's figure beside a kernel
    from lkmlkb.model import Evidence

    subject = "Scrub of my nvme SSD has slowed by about 2/3"
    said = find_claims(subject)
    for c in said:
        c.evidence = Evidence("root@x", 0, 0, "Subject: " + subject)
    body = find_claims("On 6.4 the scrub runs 70% slower than before.\n")
    assert [c.stated_pct for c in body] == [70.0]
    assert stated_regression_pct(said + body) == 66.67


@pytest.mark.parametrize(
    "sentence,want",
    [
        # linux-raid, "[PATCH v5 00/14] dm-raid/md/raid: fix v6.7 regressions" (2024-02), a reviewer
        ("For such a change, I don't\nreject it 100%. I just want to say we need to be more careful.", None),
        # written for the pattern: a percentage after the clause of "change" / "difference" ends
        ("This change, as far as I can tell, covers 90% of the users.", None),
        ("There is no way around the difference; we are 100% sure of that.", None),
        # a percentage of the clause sizes it, before or after the word
        ("That is roughly a 33.65% performance change, this is reproducible.", 33.65),
        ("We see a throughput difference of about 12% between the two kernels.", 12.0),
        ("The delta: -7.1% in write bandwidth after the upgrade.", 7.1),
        ("There is a big performance gap (30%) between the runs.", 30.0),
    ],
)
def test_a_change_is_sized_by_a_percentage_of_its_own_clause(sentence, want):
    """A bare "change" or "difference" takes the direction the text states elsewhere (here the
    regression the series fixes) and the size its own clause gives it."""
    text = "This patch set fixes the performance regression of the raid.\n\n" + sentence
    sized = [c.stated_pct for c in find_claims(text) if c.cue != "regression"]
    assert sized == ([] if want is None else [want])


@pytest.mark.parametrize(
    "text,want",
    [
        # the fix tried, the problem gone: linux-btrfs, "slow performance due to frequent
        # memalloc_retry_wait in btrfs_alloc_page_array" (2024-03), linux-xfs and linux-block replies
        (
            "I have applied the patch to the running 6.1 kernel (just needed extra_gfp removed) and the problem is not reproducible anymore.",
            [],
        ),
        ("After applying this patch, the possible deadlock issue cannot be reproduced.", []),
        ("BTW, just tried 3), then the lockup issue can't be reproduced any more:", []),
        (
            "Thanks for the information. Indeed, I can't reproduce it anymore after\nupdating the firmware.",
            [],
        ),
        ("you double check, please?  I can't reproduce it either with that patch applied.", []),
        # written for the pattern: a wrapped line, the patch named after the cue
        ("With your fix on top of\nrc3 I cannot reproduce the slowdown.", [("no-regression", None)]),
        # a report doubted stays so
        ("I could not reproduce this on my machine.", [("cannot-reproduce", None)]),
        (
            "I cannot reproduce the slowdown here, with or without fio's --direct.",
            [("cannot-reproduce", None), ("no-regression", None)],
        ),
    ],
)
def test_a_problem_gone_with_a_fix_is_no_report_doubted(text, want):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == want


def test_cited_titles_in_a_long_text_are_found_near_their_quotes_as_in_a_whole_scan():
    """A robot's report of 700 KB is searched for cited titles only near each '("' and "Fixes:";
    the spans are those of a scan of the whole text, titles wrapped, quoted, or cited with the
    longest SHA included."""
    from lkmlkb.extract import claims as C

    filler = "fsmark.files_per_sec  12345 +- 2%  -5.6%  11234 +- 1%\n" * 400
    cited = [
        '8e8320c9315c ("blk-mq: fix performance regression with shared tags")',
        '> commit 5ccc944dce3df5fd2fd683a7df4fd49d1068eba2 ("block: fix a\n> performance regression of 30% in writes")',
        'Fixes: 39823b47bbd4 ("block/mq-deadline: Fix the tag reservation code")',
        'c87c299776e4\n  ("btrfs: make buffered write to copy one page a time")',
    ]
    text = filler + ("\n" + filler).join(cited) + "\n" + filler
    assert len(text) > C._WINDOWED_ABOVE
    whole = [m.span() for m in C.CITED_TITLE.finditer(text)]
    assert len(whole) == 4
    assert C._cited_titles(text) == whole + C.quoted_titles(text)
    # no claim is read inside them
    assert [c for c in C.find_claims(text) if "regression" in (c.cue or "")] == []
