"""Ways mail states a slowdown's size and direction that claims must read (lkmlkb.extract.claims).

Each case names the pattern; the sentences are written for it after the real mail that showed
it (the lists and threads are named), not copied from a labelled case.
"""

import pytest

from lkmlkb.extract.claims import find_claims


def _regressions(text):
    return [
        (c.kind, c.stated_pct, c.metric) for c in find_claims(text) if c.kind in ("regression", "improvement")
    ]


@pytest.mark.parametrize(
    "text,pct",
    [
        # a share lost as a fraction (linux-btrfs 2023-07, a scrub that "slowed by about 2/3")
        ("Checking the array has slowed by about 2/3 since the update.", 66.67),
        ("Throughput dropped by 1/3 with the new kernel.", 33.33),
    ],
)
def test_a_fraction_sizes_a_slowdown(text, pct):
    assert _regressions(text) == [("regression", pct, _regressions(text)[0][2])]
    assert _regressions(text)[0][1] == pct


def test_a_fraction_that_is_no_share_sizes_nothing():
    assert all(c.stated_pct is None for c in find_claims("Reads slowed by 3/2 of a second per file."))


@pytest.mark.parametrize(
    "text,pct",
    [
        # two values of one measure in two units (linux-btrfs 2023-07: "from about 2.9 gb/sec to about
        # 949 mb/sec"; lower case, "about" before each value)
        ("The copy slowed from about 1.5 gb/sec to about 500 mb/sec after the upgrade.", 66.67),
        ("Resync slowed from 2 GB/s to 1500 MB/s on the new kernel.", 25.0),
        # a time that rose is a slowdown of the same size in percent of the first
        ("The scan got slower, from 10 s to 15 s.", 50.0),
    ],
)
def test_a_slowdown_sized_by_its_two_values(text, pct):
    ((kind, got, _metric),) = _regressions(text)
    assert kind == "regression" and abs(got - pct) < 0.01


def test_unable_to_do_something_without_a_regression_is_a_regression():
    # linux-ext4 2022-07 (a Raspberry Pi report): "since Linux 5.18 I'm unable to run X without
    # massive performance regression" -- two negations, one claim that it regresses
    text = "Since 6.1 I am unable to copy the image without a massive performance regression."
    assert [c.kind for c in find_claims(text)] == ["regression"]
    assert [c.kind for c in find_claims("Copying the image runs without a performance regression.")] == [
        "no-regression"
    ]


def test_a_regression_a_revert_clears_existed():
    # "If I revert this commit ... the performance regression disappears" (linux-ext4 2022-07): the
    # regression was there; a tester saying it is gone after a fix says it is gone
    said = "With the revert on top of 6.1 the performance regression is gone, 2 minutes again."
    assert [c.kind for c in find_claims(said)] == ["regression"]
    assert [c.kind for c in find_claims("On 6.2-rc1 the performance regression is gone.")] == [
        "no-regression"
    ]


@pytest.mark.parametrize(
    "text,metric",
    [
        # linux-raid 2019-08: "Kernel 4.14 + has 3 times higher write IO latency than Kernel 4.4"
        ("6.1 has 3 times higher random read latency than 5.15", "lat"),
        ("and the mount shows a 40% higher wall clock time", "time"),
    ],
)
def test_a_rise_of_a_latency_or_a_time_is_a_regression(text, metric):
    ((kind, _pct, got),) = _regressions(text)
    assert (kind, got) == ("regression", metric)


@pytest.mark.parametrize(
    "text,kind",
    [
        # linux-ext4 / linux-xfs, Dave Chinner on FUA (2023-06): the latency the comparative
        # heads is on the next line, past a write named before it
        (
            "flush, then we end up providing O_DSYNC writes with about 40% lower\ncompletion latency than a write + cache flush pair.",
            "improvement",
        ),
        # written for the pattern: a quoted reply's wrap, a rise
        ("> random reads see about 30% higher\n> tail latency since the update", "regression"),
        ("the fsync calls show 5 times higher\nlatency on 6.1 than on 5.15", "regression"),
    ],
)
def test_the_latency_a_comparative_heads_may_be_on_the_next_line(text, kind):
    ((got, _pct, metric),) = [(c.kind, c.stated_pct, c.metric) for c in find_claims(text)]
    assert (got, metric) in ((kind, "lat"), (kind, "time"))


def test_a_rise_of_a_throughput_is_still_a_gain():
    ((kind, _pct, _metric),) = _regressions("6.1 has 3 times higher write throughput than 5.15")
    assert kind == "improvement"


def test_dropping_is_a_fall():
    # linux-ext4 2024-03 (bugzilla comment): "activity on the array dropping, from about 160MB/s
    # to ..." -- the -ing form of the verb
    ((kind, pct, _metric),) = _regressions("iostat shows the writes dropping from 200MB/s to 50MB/s.")
    assert kind == "regression" and pct == 75.0


def test_a_range_is_sized_by_the_measured_change_that_falls_in_it():
    from lkmlkb.extract.claims import stated_regression_pct

    # "On average we see 10-15% slower speeds" beside dd's 788 -> 689 MB/s (linux-btrfs 2024-01)
    (claim,) = find_claims("On average we see 10-15% slower speeds after the upgrade.")
    assert (claim.stated_pct, claim.stated_low) == (15.0, 10.0)
    assert stated_regression_pct([claim], computed=12.56) == 12.56
    assert stated_regression_pct([claim], computed=30.0) == 15.0  # outside it: the upper end
    # a point figure said anywhere beats a range ("[REGRESSION] 5-10% increase in IO latencies" then
    # "still around 6% regression", linux-btrfs 2021-12)
    point = find_claims("It's better but still around 6% regression.")
    assert stated_regression_pct([claim, *point]) == 6.0


def test_a_deterioration_is_a_slowdown():
    assert [c.kind for c in find_claims("Post that we see a deterioration in the disk write speeds.")] == [
        "regression"
    ]


# a knob turned is no change measured: linux-pm, "[PATCH v3 0/7] Improve s0ix flows for systems
# i219LM" (2020-12): Intel's recommendation was read as a time that rose 233 %; the others are
# written for the pattern, with what was measured beside them
@pytest.mark.parametrize(
    "text,want",
    [
        (
            "1. The relevant timeout should be increased from 300ms to 1000ms regardless of anything else.\n",
            [],
        ),
        ("The writeback interval was reduced from 30 s to 5 s.\n", []),
        ("The latency threshold needs to be increased from 8 ms to 32 ms to avoid the warning.\n", []),
        ("The fsync latency increased from 300 ms to 1000 ms after the update.\n", [("regression", 233.33)]),
        (
            "Since the timeout was raised, the copy time increased from 10 s to 30 s.\n",
            [("regression", 200.0)],
        ),
    ],
)
def test_a_setting_turned_is_no_claim(text, want):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == want


# a slowdown asked about in a yes/no question is none found: linux-crypto, "[PATCH RFC] Frequent
# connection loss using krb5[ip] NFS mounts" (2020-05, a fix's own log: "II. Does the fix cause a
# performance regression?" over its fio runs), linux-rdma ("Did you notice any performance
# degradation?"), linux-btrfs ("Are there any known regressions in 5.15 that cause more inode
# evictions?"); a question taking the slowdown as found keeps it (linux-cifs, linux-ext4)
@pytest.mark.parametrize(
    "text,want",
    [
        ("II. Does the fix cause a performance regression?\n\nI ran fio before and after.\n", []),
        ("Did you notice any performance degradation?\n", []),
        ("Are there any known regressions in 5.15 that cause more inode evictions?\n", []),
        ("Was the change in behavior in v4.8 a regression?\n", []),
        ("Has anyone else noticed this perf regression?\n", [("regression", None)]),
        (
            "Can you help look into why this commit introduces this IOPS regression? Also any suggestions?\n",
            [("regression", None)],
        ),
        # written for the pattern: a statement, then a question; a question then its answer
        ("We see a performance regression with 6.8. Does anyone know why?\n", [("regression", None)]),
        ("Is there a regression? Yes: a 30% drop in IOPS.\n", [("regression", 30.0)]),
    ],
)
def test_a_slowdown_asked_about_is_none_found(text, want):
    assert [(c.kind, c.stated_pct) for c in find_claims(text)] == want
