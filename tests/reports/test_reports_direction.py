"""Which way a computed change counts: less of a time, a latency or an overhead is better.

Fixture texts, trimmed: Anders Blomdell, "XFS mount timeout in linux-6.9.11" (linux-xfs, 2024-08-09,
<71864473-f0f7-41c3-95f2-c78f6edcfab9@gmail.com>); Qi Zheng, "[PATCH 0/8] make unregistration of
super_block shrinker more faster" (linux-xfs, 2023-05-31, <20230531095742.2480623-1-qi.zheng@linux.dev>)
and Dave Chinner's reply <ZHkkWjt0R1ptV7RZ@dread.disaster.area> (2023-06-01); Luca Coelho,
"Regression in 6.11-rc1 in scsi/sd?" (linux-block, 2024-07-31,
<b123b699569f3a85bcfa521b2511e9e2698f31b7.camel@intel.com>).
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.extract.metric_units import lower_is_better
from lkmlkb.model import Message, Result
from lkmlkb.reports.build import build_report
from lkmlkb.reports.labels import computed_change


def _report(*messages: Message):
    """The report of one thread's messages, extracted and built as the ingest does."""
    ((tid, (msgs, findings)),) = extract_messages(list(messages)).items()
    return build_report(tid, msgs, findings)


MOUNT_TIMEOUT = """\
With a filesystem that contains a very large amount of hardlinks
the time to mount the filesystem skyrockets to around 15 minutes
on 6.9.11-200.fc40.x86_64 as compared to around 1 second on
6.8.10-300.fc40.x86_64, this of course makes booting drop
into emergency mode if the filesystem is in /etc/fstab. A git bisect
nails the offending commit as 14dd46cf31f4aaffcf26b00de9af39d01ec8d547.

  Timing between the systems are:

  6.8.10-300.fc40.x86_64:

    # time mount /dev/vg1/test /test
    real	0m0.835s
    user	0m0.002s
    sys	        0m0.014s

  6.9.11-200.fc40.x86_64:

    # time mount /dev/vg1/test /test
    real	15m36.508s
    user	0m0.000s
    sys	        0m27.628s
"""


def test_a_mount_that_takes_15_minutes_instead_of_a_second_is_a_regression_of_that_size():
    msg = Message(
        "71864473-f0f7-41c3-95f2-c78f6edcfab9@gmail.com",
        subject="XFS mount timeout in linux-6.9.11",
        body=MOUNT_TIMEOUT,
        date_utc="2024-08-09T17:08:41+00:00",
    )
    r = _report(msg)
    assert r.kind == "regression"
    elapsed = {x.kernel: x for x in r.results if x.metric == "elapsed"}
    before, after = elapsed["6.8.10-300.fc40.x86_64"], elapsed["6.9.11-200.fc40.x86_64"]
    assert (before.value, after.value) == (0.835, 936.508)
    # the time grew by 112,056.65 % of what it was (the thread's report said -112,056.65: a gain)
    assert computed_change(before, after) == pytest.approx((936.508 - 0.835) / 0.835 * 100, abs=0.01)


def _result(metric, value, unit=None, normalized_unit=None):
    return Result(
        metric=metric, value=value, unit=unit or "", normalized_value=value, normalized_unit=normalized_unit
    )


@pytest.mark.parametrize(
    "metric,unit,lower",
    [
        ("lat", "us", True),
        ("clat_p99", "us", True),
        ("cpu_sys", "%", True),
        ("util", "%", True),
        ("elapsed", "us", True),
        ("fsmark.app_overhead", None, True),
        ("fio.write_clat_mean_us", None, True),
        ("bw", "B/s", False),
        ("iops", "IOPS", False),
        ("bw_mean", "B/s", False),
        ("fio.write_iops", None, False),
        ("stress-ng.timerfd.ops_per_sec", None, False),
        ("aim7.jobs-per-min", None, False),
        # LKP's "time." group is /usr/bin/time's: its elapsed time, not every counter it prints
        ("fio.time.elapsed_time", None, True),
        ("swapin.free_time", None, True),
        ("fio.time.file_system_outputs", None, False),
        ("fio.time.percent_of_cpu_this_job_got", None, False),
        ("fio.latency_2ms%", None, False),
    ],
)
def test_which_metrics_are_better_lower(metric, unit, lower):
    assert lower_is_better(metric, unit) is lower
    # and the computed change of a doubling has the matching sign (positive: a regression)
    change = computed_change(
        _result(metric, 10.0, normalized_unit=unit), _result(metric, 20.0, normalized_unit=unit)
    )
    assert change == (100.0 if lower else -100.0)


def test_the_other_of_two_kernels_in_a_regression_report_is_the_bad_one():
    # "15 minutes on 6.9.11-200.fc40.x86_64 as compared to around 1 second on 6.8.10-300.fc40.x86_64":
    # the second is said to be good; the message alone named no bad kernel
    msg = Message(
        "71864473-f0f7-41c3-95f2-c78f6edcfab9@gmail.com",
        subject="XFS mount timeout in linux-6.9.11",
        body=MOUNT_TIMEOUT,
        date_utc="2024-08-09T17:08:41+00:00",
    )
    r = _report(msg)
    assert (r.good_kernel, r.bad_kernel) == ("6.8.10-300.fc40.x86_64", "6.9.11-200.fc40.x86_64")
    # and what was measured on each is labelled by it: the report is sized by its own numbers
    assert {x.kernel: x.label for x in r.results} == {
        "6.8.10-300.fc40.x86_64": "baseline",
        "6.9.11-200.fc40.x86_64": "regressed",
    }
    assert r.computed_pct == pytest.approx(112056.65, abs=0.01)


SHRINKER_SERIES = """\
The kernel test robot noticed a -88.8% regression of stress-ng.ramfs.ops_per_sec
on commit f95bdb700bc6 ("mm: vmscan: make global slab shrink lockless").

This series is based on next-20230525. Any comments and suggestions are welcome.
"""
SHRINKER_REPLY = """\
I;ve just read through that thread, and I've looked at the original
patch that caused the regression.

Given this appears to be a change introduced in 6.4-rc1, I think the
right thing to do is to revert the change rather than make things
worse by trying to shove some "quick fix" into the kernel to address
it.
"""


def test_the_tree_a_series_is_based_on_is_not_the_good_kernel():
    root = Message(
        "20230531095742.2480623-1-qi.zheng@linux.dev",
        subject="[PATCH 0/8] make unregistration of super_block shrinker more faster",
        body=SHRINKER_SERIES,
        date_utc="2023-05-31T09:57:34+00:00",
    )
    reply = Message(
        "ZHkkWjt0R1ptV7RZ@dread.disaster.area",
        subject="Re: [PATCH 6/8] xfs: introduce xfs_fs_destroy_super()",
        body=SHRINKER_REPLY,
        date_utc="2023-06-01T23:06:02+00:00",
        in_reply_to=root.message_id,
        references=[root.message_id],
    )
    r = _report(root, reply)
    assert r.kind == "regression" and r.bad_kernel == "6.4-rc1"
    assert r.good_kernel is None  # next-20230525 holds the regression the series fixes


LOCKDEP_SPLATS = """\
We're getting some lockdep splats with 6.11-rc1 in some of our older CI
machines:

<4>[   25.358383] WARNING: possible circular locking dependency detected
<4>[   25.359636] 6.11.0-rc1-CI_DRM_15151-gb6f9528c7fff+ #1 Not tainted
"""


def test_one_release_written_two_ways_is_not_two_kernels():
    # the subject makes 6.11-rc1 the bad kernel; the splat's "6.11.0-rc1" is the same release
    msg = Message(
        "b123b699569f3a85bcfa521b2511e9e2698f31b7.camel@intel.com",
        subject="Regression in 6.11-rc1 in scsi/sd?",
        body=LOCKDEP_SPLATS,
        date_utc="2024-07-31T13:22:40+00:00",
    )
    r = _report(msg)
    assert r.bad_kernel == "6.11-rc1" and r.good_kernel is None


def test_a_later_kernel_that_still_regresses_is_not_made_the_good_one():
    # constructed: the regression is said of 6.9; 6.10-rc1 is later, so it is no baseline
    msg = Message(
        "still-there@example.org",
        subject="randread regression on 6.9",
        body="We see a 30% randread IOPS regression on 6.9 with fio.\nIt is still there on 6.10-rc1.\n",
        date_utc="2024-06-01T00:00:00+00:00",
    )
    r = _report(msg)
    assert r.bad_kernel == "6.9" and r.good_kernel is None


# Jan Kara, "Regression in XFS for fsync heavy workload" (linux-xfs, 2022-03-15,
# <20220315124943.wtgwrrkuthnwto7w@quack3.lan>): mmtests' compare table, columns named good and bad
MMTESTS_GOOD_BAD = """\
I was tracking down a regression in dbench workload on XFS we have
identified during our performance testing. These are results from one of
our test machine (server with 64GB of RAM, 48 CPUs, SATA SSD for the test
disk):

\t\t\t       good\t\t       bad
Amean     1        64.29 (   0.00%)       73.11 * -13.70%*
Amean     2        84.71 (   0.00%)       98.05 * -15.75%*

Note that the numbers are actually times to complete workload, not
traditional dbench throughput numbers so lower is better. Eventually I have
tracked down the problem to commit bad77c375e8d ("xfs: CIL checkpoint
flushes caches unconditionally").
"""


def test_mmtests_columns_named_good_and_bad_are_the_two_sides():
    msg = Message(
        "20220315124943.wtgwrrkuthnwto7w@quack3.lan",
        subject="Regression in XFS for fsync heavy workload",
        body=MMTESTS_GOOD_BAD,
        date_utc="2022-03-15T12:49:43+00:00",
    )
    r = _report(msg)
    assert {(x.config, x.label) for x in r.results} == {
        ("good 1", "baseline"),
        ("bad 1", "regressed"),
        ("good 2", "baseline"),
        ("bad 2", "regressed"),
    }
    # mmtests' Amean is a time: 84.71 -> 98.05 is 15.75% worse, as its own "-15.75%" says, and
    # the largest of the table's significant drops (the first row's is 13.70%)
    assert r.is_regression_report
    assert r.computed_pct == pytest.approx(15.75, abs=0.01)
    assert [c.role for c in r.commits if c.sha.startswith("bad77c375e8d")] == ["culprit"]


@pytest.mark.parametrize(
    "metric,lower", [("amean", True), ("gmean", True), ("bamean-99", True), ("hmean", False)]
)
def test_mmtests_means_of_times_and_of_rates(metric, lower):
    assert lower_is_better(metric) is lower


@pytest.mark.parametrize(
    "body,good,bad",
    [
        # a distro upgrade named on one line, other versions (tools, packages) elsewhere in the mail
        (
            "Since moving to kernel 6.4.1 on Arch Linux, upgrading from 6.3.9, my scrub\n"
            "slowed from 2.9 GB/s to 949 MB/s.\n\nbtrfs-progs v6.3.2-1, inxi 3.3.27\n",
            "6.3.9",
            "6.4.1",
        ),
        (
            "I run 6.1.8 now, after upgrading from 5.15.90, and the copy throughput\n"
            "dropped from 480 MB/s to 120 MB/s.\n\n  Shell: Bash inxi: 3.3.24\n",
            "5.15.90",
            "6.1.8",
        ),
    ],
)
def test_the_other_kernel_of_the_line_that_names_the_good_one_is_the_bad_one(body, good, bad):
    msg = Message("upgrade@example.org", subject="scrub slow after kernel upgrade", body=body)
    r = _report(msg)
    assert (r.good_kernel, r.bad_kernel) == (good, bad)


def _report_of(body: str, subject: str = "slow untar"):
    return _report(Message("statement@example.org", subject=subject, body=body))


def test_a_change_statement_with_a_kernel_on_each_side_names_the_good_and_the_bad_kernel():
    # the pattern of linux-btrfs 2020-12 ("went from ~15 seconds w/ 5.9 to nearly 5 minutes in
    # 5.10"), written anew: the side that got worse is the bad kernel, and a second statement of
    # the same mail without kernels is measured on the same two
    r = _report_of(
        "Untarring a kernel tree went from ~20 seconds w/ 6.1 to nearly 3 minutes in 6.2.\n\n"
        "On the NVMe box it is a smaller regression, from 8 seconds to 50 seconds.\n"
    )
    assert (r.good_kernel, r.bad_kernel) == ("6.1", "6.2")
    assert [(x.value, x.kernel, x.label) for x in r.results] == [
        (20.0, "6.1", "baseline"),
        (3.0, "6.2", "regressed"),
        (8.0, "6.1", "baseline"),
        (50.0, "6.2", "regressed"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        # the values got better: no kernel is the bad one
        "The boot went from 40 seconds on 6.1 to 20 seconds on 6.2, a nice regression fix.\n",
        # two statements that disagree on the pair
        "Reads went from 900 MB/s on 6.1 to 300 MB/s on 6.2.\nWrites went from 200 MB/s on 6.2 to 50 MB/s on 6.1.\n",
    ],
)
def test_statements_that_name_no_worse_kernel_give_no_roles(body):
    r = _report_of(body)
    assert (r.good_kernel, r.bad_kernel) == (None, None)


@pytest.mark.parametrize(
    "subject,want",
    [
        # subjects of real reports' forms (linux-raid 2019, linux-btrfs 2024, linux-xfs 2019,
        # linux-ext4's bugzilla 2024), written anew: the kernels they name are the thread's
        ("Kernel 5.15 has 2 times higher read latency than kernel 5.10 on raid10", {"5.10", "5.15"}),
        ("Re: Throughput drop on Linux 6.8.2 after the update", {"6.8.2"}),
        ("[PATCH] [Regression, v6.2] mm: readahead slows sequential reads", {"6.2"}),
        ("[Bug 218000] xfs(?) performance regression since 6.7.0 on nvme", {"6.7.0"}),
        # a subject that speaks of no speed names no kernel compared: a stable review, a fix
        ("[PATCH 6.1 000/100] 6.1.40-rc1 review", set()),
        ("[PATCH 5.10] block: fix a use-after-free in 5.10 backports", set()),
    ],
)
def test_the_kernels_a_subject_about_speed_names_are_the_threads(subject, want):
    msg = Message("subject@example.org", subject=subject, body="Numbers in the next mail.\n")
    r = _report(msg)
    assert {k.version for k in r.kernel_versions} == want


TABLE_OF_COMMITS = (
    "----------------------------------------------------\n"
    " Kernel                                  Read IOPS\n"
    "----------------------------------------------------\n"
    " v6.1                                    812K\n"
    " 8e05d3a1c7b94f2e6a0d1c5b3f7e9a2d4c6b8e10  806k\n"
    " b7d21c9e04f6a3158e2d7c0b9a4f61e8d3c25a70  511k\n"
    " v6.3-rc2                                530k\n"
    "----------------------------------------------------\n\n"
    "The commit b7d21c9e04f6a3158e2d7c0b9a4f61e8d3c25a70 (xfs: throttle commits) causes\n"
    "the tasks to block.\n"
)


@pytest.mark.parametrize(
    "lead,baseline,pct",
    [
        # no kernel is said to be good: the row above the culprit's is its parent, the baseline
        ("Random reads got slower, see the table.\n\n", 806000.0, 36.6),
        # a good kernel said in words is the baseline
        ("Random reads regressed between v6.1 and v6.3-rc2.\n\n", 812000.0, 37.07),
    ],
)
def test_a_table_of_commits_as_rows_gives_a_baseline_and_tested_commits(lead, baseline, pct):
    # the culprit named in prose under a table of kernels and commits as rows (the form of a
    # linux-xfs report, 2022-02, written anew)
    r = _report_of(
        lead + TABLE_OF_COMMITS, subject="Performance regression with many tasks doing random reads"
    )
    roles = {c.sha[:12]: c.role for c in r.commits}
    assert roles == {"b7d21c9e04f6": "culprit", "8e05d3a1c7b9": "tested"}  # a row measured on it
    labels = {x.value: x.label for x in r.results}
    assert (labels[baseline], labels[511000.0]) == ("baseline", "regressed")
    assert r.regression_pct == pytest.approx(pct, abs=0.1)


@pytest.mark.parametrize(
    "body,want",
    [
        # the one release a message names, in two forms (the form of a linux-ext4 bugzilla comment,
        # 2024, written anew): its figures were measured on it, in its most specific form
        (
            "After updating to kernel 6.8.4 the copy starts at about 150MB/s, then drops to\n"
            "very little; the rsync took over 4 hours.\n\n"
            "    Linux box 6.8.4-200.fc39.x86_64 #1 SMP PREEMPT_DYNAMIC\n",
            {150.0: "6.8.4-200.fc39.x86_64", 4.0: "6.8.4-200.fc39.x86_64"},
        ),
        # two releases named: which one a figure is of is not said
        (
            "Both 6.8.4 and 6.7.2 are affected.\n\nThe copy runs at about 150MB/s and the rsync took 4 hours.\n",
            {150.0: None, 4.0: None},
        ),
        # a release and a patch set's snapshot of it, or its release candidate, are two kernels
        # (the form of linux-kernel's -mm reports of 2007, written anew): each run keeps its own
        (
            "2.6.20-mm1 is much slower than 2.6.20 here:\n\n2.6.20:     real    0m41.2s\n"
            "2.6.20-mm1: real    2m13.9s\n",
            {41.2: "2.6.20", 133.9: "2.6.20-mm1"},
        ),
        (
            "The untar takes 90 seconds on 6.8-rc7.\n\nIt took 30 seconds before, with 6.8.\n",
            {90.0: "6.8-rc7", 30.0: "6.8"},
        ),
    ],
)
def test_the_figures_of_a_message_naming_one_kernel_are_measured_on_it(body, want):
    r = _report_of(body, subject="[Bug 218100] ext4 write regression since 6.7.0 on raid")
    assert {x.value: x.kernel for x in r.results if x.value in want} == want


# a series' cover letter whose changelog names the trees it was rebased on, in the form of
# linux-block's "[PATCH v8 00/24] Provide a new two step DMA mapping API" (2025) and the RTRS
# series (2020), written anew: those kernels are where the series goes, no kernel change
SERIES_COVER = """\
This series adds a two step mapping API.

The first version stayed at the RFC stage because the block iterator caused a
performance regression of about 10%, which the current code avoids.

Changelog:
v8:
 * Rebased to v6.15-rc1
v7:
 * Rebased to v6.14-rc1
"""


def test_the_trees_a_series_was_rebased_on_are_no_kernel_change():
    r = _report_of(SERIES_COVER, subject="[PATCH v8 00/24] Provide a new two step mapping API")
    assert not r.is_regression_report
    assert not any(x.rule == "kernel-change" for x in r.reasons)


def test_two_kernels_measured_are_still_a_kernel_change():
    body = "On 6.14 reads ran at 900 MB/s; on 6.15-rc1 they run at 600 MB/s, a 33% drop.\n"
    r = _report_of(body, subject="Read throughput regression in 6.15-rc1")
    assert r.is_regression_report
    assert any(x.rule == "kernel-change" for x in r.reasons)


def test_a_reply_in_a_robot_thread_names_its_base_and_culprit():
    # a person's reply under the robot's subject, copying its table with a column of a debug patch
    # (the form of a linux-xfs reply, 2023-05, written anew): the subject's commit is the culprit,
    # the table's first column the base, the debug patch's commit measured (tested)
    body = (
        "With the debug patch below the performance is restored.\n\n"
        "5b1e6a9c0d37f2a8 9c4d2e81a7f3b05d6e1c2a9b8f4 3a7f91c2d6e04b8a5c1f7e3d2b9\n"
        "---------------- --------------------------- ---------------------------\n\n"
        "     20211            -5.6%      19073            +5.9%      20190        fsmark.files_per_sec\n"
    )
    r = _report_of(body, subject="Re: [linus:master] [xfs] 9c4d2e81a7: fsmark.files_per_sec -5.6% regression")
    roles = {c.sha[:12]: c.role for c in r.commits}
    assert roles == {"9c4d2e81a7f3": "culprit", "5b1e6a9c0d37": "base", "3a7f91c2d6e0": "tested"}


def test_a_table_of_commits_as_rows_has_no_first_column():
    r = _report_of(
        "Random reads got slower, see the table.\n\n" + TABLE_OF_COMMITS,
        subject="Performance regression with many tasks doing random reads",
    )
    assert {c.sha[:12]: c.role for c in r.commits}["8e05d3a1c7b9"] == "tested"


# a report naming two releases and measuring "with the old kernel" and "with the newer one"
# without saying which is good (the form of "Raid0 performance regression", linux-block and
# dm-devel 2019-01: 2.6.32 and 4.18.0 named, then "... 3800 MB/sec with the (very) old kernel
# ... falls to 2500 MB/sec with the relatively newer kernel"); written for the pattern
TWO_RELEASES = """\
Our file servers run 5.4.0 and 5.15.0 on identical hardware.

Reading the raid0 array with dd, we get 3200 MB/s with the old kernel; this
drops to 2100 MB/s with the newer one.
"""


def test_a_change_between_the_two_releases_a_report_names_runs_from_the_older():
    r = _report_of(TWO_RELEASES, "sequential read regression on raid0")
    assert r.is_regression_report
    assert {(x.value, x.kernel, x.label) for x in r.results if x.unit == "MB/s"} == {
        (3200.0, "5.4.0", "baseline"),
        (2100.0, "5.15.0", "regressed"),
    }


def test_a_reply_naming_a_third_kernel_leaves_the_reports_two_releases_in_place():
    root = Message(
        "raid0@example.org",
        subject="sequential read regression on raid0",
        body=TWO_RELEASES,
        date_utc="2030-01-01T00:00:00+00:00",
    )
    reply = Message(
        "reply@example.org",
        subject="Re: sequential read regression on raid0",
        body="Could you try 6.1.0 as well, and a dd on the member disks?\n",
        in_reply_to="raid0@example.org",
        date_utc="2030-01-02T00:00:00+00:00",
    )
    r = _report(root, reply)
    assert {(x.value, x.kernel, x.label) for x in r.results if x.unit == "MB/s"} == {
        (3200.0, "5.4.0", "baseline"),
        (2100.0, "5.15.0", "regressed"),
    }
    assert r.regression_pct == pytest.approx(34.38, abs=0.01)


def test_the_sides_of_an_update_named_in_words_are_the_older_and_the_newer_release():
    # the form: no claim of a regression in words, the update's two releases named
    r = _report_of(
        "Sequential reads ran at 450 MB/s before the update and barely 120 MB/s after.\n"
        "Kernels: 6.6.8 before, 6.7.1 after.\n",
        "slow reads after the kernel update",
    )
    assert {(x.value, x.kernel, x.label) for x in r.results} == {
        (450.0, "6.6.8", "baseline"),
        (120.0, "6.7.1", "regressed"),
    }
    assert r.is_regression_report and r.regression_pct == pytest.approx(73.33, abs=0.01)


@pytest.mark.parametrize(
    "body,subject",
    [
        # three releases: which two the change is between is not known
        (
            TWO_RELEASES.replace("5.4.0 and 5.15.0", "5.4.0, 5.10.0 and 5.15.0"),
            "sequential read regression on raid0",
        ),
        # a build on top of a release is no second release
        (TWO_RELEASES.replace("5.15.0", "5.4.0-00004-g107ed33204f7"), "sequential read regression on raid0"),
        # a patch's thread: its kernels are the tree it is based on and the one it measured
        (TWO_RELEASES, "[PATCH] md/raid0: speed up sequential reads"),
    ],
)
def test_the_two_sides_stay_without_a_kernel_unless_two_releases_are_named(body, subject):
    r = _report_of(body, subject)
    assert {x.kernel for x in r.results if x.unit == "MB/s"} <= {None}


def test_the_headline_is_the_pair_that_got_worse_of_a_metric_measured_twice():
    # the same report: the read got a little faster, the write five times slower; the pairs are
    # read with read and write with write, and the regression is the write's
    r = _report_of(
        "My write speeds are very slow with Kernel 6.18 and 6.19 compared to 6.12 LTS.\n\n"
        "SEQ1M Q8T1 with cow\n"
        "6.18 and 6.19 -> Read 6900MB/s, write 900MB/s\n"
        "6.12 -> Read 6600MB/s, write 4500MB/s\n",
        "Kernel 6.18, 6.19 very slow write speed compared to 6.12",
    )
    assert r.is_regression_report
    assert r.regression_pct == pytest.approx(80.0)


def test_runs_of_two_messages_are_not_paired_by_their_order():
    # the shape of linux-btrfs 2023-07 ("btrfs write-bandwidth performance regression of
    # 6.5-rc4/rc3"), whose kernels' roles were read the wrong way round: two runs labelled
    # baseline in the report, two labelled regressed in a reply; pairing the report's second
    # run with the reply's second by their order would measure nothing the thread compared
    from lkmlkb.model import Evidence, Result
    from lkmlkb.reports.labels import headline

    def run(value, label, mid):
        return Result(
            metric="bw", value=value, unit="MiB/s", label=label, tool="fio", evidence=Evidence(mid, 0, 0, "")
        )

    results = [
        run(1512.0, "baseline", "r"),
        run(4147.0, "baseline", "r"),
        run(3858.0, "regressed", "s"),
        run(3781.0, "regressed", "s"),
    ]
    assert [x.value for x in headline(results)] == [1512.0, 3858.0]
    # in one message, the pair that got worse heads
    for x in results:
        x.evidence = Evidence("r", 0, 0, "")
    assert [x.value for x in headline(results)] == [4147.0, 3781.0]


# linux-ext4, hazem ahmed mohamed, "Ext4: Buffered random writes performance regression with
# dioread_nolock enabled", 2022-09-19, <CACX6voDfcTQzQJj=5Q-SLi0in1hXpo=Ri28rX73Og3GTObPBWA@mail.gmail.com>
# (trimmed): the good and bad kernels named by their series, the runs by uname's full release
DIOREAD_NOLOCK = """\
I am sending this e-mail to report a performance regression that's
caused by commit 244adf6426(ext4: make dioread_nolock the default).

The regression has been seen after upgrading from kernel 4.14 to 5.10
as shown below.

Kernel 4.14.287-215.504.amzn2.x86_64

start test 1

  write: io=56335MB, bw=320416KB/s, iops=20026, runt=180038msec

Kernel 5.10.130-118.517.amzn2.x86_64

start test 1

  write: io=911744KB, bw=5055.5KB/s, iops=315, runt=180350msec
"""


def _dioread(body: str):
    return _report(
        Message(
            "CACX6voDfcTQzQJj=5Q-SLi0in1hXpo=Ri28rX73Og3GTObPBWA@mail.gmail.com",
            subject="Ext4: Buffered random writes performance regression with dioread_nolock enabled",
            body=body,
            date_utc="2022-09-19T15:18:32+00:00",
        )
    )


def test_runs_on_a_stable_release_of_the_good_series_are_the_baseline():
    r = _dioread(DIOREAD_NOLOCK)
    assert {(x.kernel, x.metric, x.label) for x in r.results if x.metric == "iops"} == {
        ("4.14.287-215.504.amzn2.x86_64", "iops", "baseline"),
        ("5.10.130-118.517.amzn2.x86_64", "iops", "regressed"),
    }
    assert r.regression_pct == pytest.approx(98.4, abs=0.05)  # 20026 -> 315 IOPS


@pytest.mark.parametrize(
    "body",
    [
        # the regression entered within the series, after 4.14.287 or before it: no side known
        DIOREAD_NOLOCK.replace(
            "upgrading from kernel 4.14 to 5.10", "upgrading from kernel 4.14 to 4.14.300"
        ),
        # the good kernel is a stable release, not a series: another release of it is not it
        DIOREAD_NOLOCK.replace(
            "upgrading from kernel 4.14 to 5.10", "upgrading from kernel 4.14.100 to 5.10"
        ),
    ],
)
def test_a_release_of_the_series_is_no_baseline_where_the_series_is_not_the_good_one(body):
    r = _dioread(body)
    assert not any(x.label == "baseline" and x.kernel.startswith("4.14.287") for x in r.results)


# linux-ext4, James Scriven, "Performance issue with recently_deleted() /no_journal with huge
# directories", 2020-08-27, <MN2PR11MB45667C6E534F7944BFA77684DB550@MN2PR11MB4566.namprd11.prod.outlook.com>
# (trimmed): the good kernel named by its line ("kernel 2.6"), whose releases' series are three
# numbers long, the runs by uname's full release
RECENTLY_DELETED = """\
Hi, I'm working on migrating a workload from kernel 2.6 to 4.18 (REHL6 to RHEL8).

When migrating to this newer kernel, we are seeing performance degradation when we expand the tar.

$ uname -a
Linux sjc-asr-bm-470 4.18.0-147.3.1.el8_1.x86_64 #1 SMP Wed Nov 27 01:11:44 UTC 2019 x86_64 x86_64 x86_64 GNU/Linux
$ for x in {1..10}; do rm -rf dirtree; mkdir dirtree; time mkdir dirtree/{1..50000}; done

real    0m1.796s
user    0m0.041s
sys     0m1.528s

$ uname -a
Linux sjc-asr-bm-100 2.6.32-754.17.1.el6.x86_64 #1 SMP Thu Jun 20 11:47:12 EDT 2019 x86_64 x86_64 x86_64 GNU/Linux
$ for x in {1..10}; do rm -rf dirtree; mkdir dirtree; time mkdir dirtree/{1..50000}; done

real    0m0.724s
user    0m0.041s
sys     0m0.680s
"""


def _recently_deleted(body: str):
    mid = "MN2PR11MB45667C6E534F7944BFA77684DB550@MN2PR11MB4566.namprd11.prod.outlook.com"
    subject = "Performance issue with recently_deleted() /no_journal with huge directories"
    return _report(Message(mid, subject=subject, body=body, date_utc="2020-08-27T12:09:21+00:00"))


def test_runs_on_a_release_of_the_good_line_are_the_baseline():
    r = _recently_deleted(RECENTLY_DELETED)
    assert {(x.kernel, x.value, x.label) for x in r.results if x.value in (1.796, 0.724)} == {
        ("4.18.0-147.3.1.el8_1.x86_64", 1.796, "regressed"),
        ("2.6.32-754.17.1.el6.x86_64", 0.724, "baseline"),
    }
    assert r.regression_pct == pytest.approx(148.07, abs=0.01)


def test_a_release_of_the_good_line_is_no_baseline_where_a_bad_kernel_is_of_it_too():
    r = _recently_deleted(RECENTLY_DELETED.replace("from kernel 2.6 to 4.18", "from kernel 2.6 to 2.6.39"))
    assert not any(x.label == "baseline" for x in r.results)


def test_a_release_candidate_of_the_good_series_is_no_baseline():
    # 4.14-rc3 came before 4.14, whose series is the good one: not the release found good
    r = _dioread(DIOREAD_NOLOCK.replace("Kernel 4.14.287-215.504.amzn2.x86_64", "Kernel 4.14.0-rc3"))
    assert [(x.kernel, x.label) for x in r.results if x.metric == "iops"][0] == ("4.14.0-rc3", None)


# dm-devel, Dennis Yang, "Performance degradation of DM devices after upgrading to linux-5.9 from
# linux-5.8", 2020-12-08, <CAKTMprPoUB90wL3U5yJrPYiNrZNg_eiJqVRUNDuYberM1ogF5g@mail.gmail.com>
# (trimmed): rows labelled by their kernel's release, under the bad and good kernels' series
DM_THIN = """\
Hi, I have observed a severe performance degradation of DM devices with a
simple dd test in linux-5.9 comparing to linux-5.8.

--- Thin Volume ---
linux-5.9.11         10.5 MB/s
linux-5.8.18         77.7 MB/s

--- Linear device over HDD ---
linux-5.9.11         77.0 MB/s
linux-5.8.18       136.0 MB/s
"""


def test_rows_named_by_a_later_release_of_the_bad_kernel_are_the_regressed_runs():
    msg = Message(
        "CAKTMprPoUB90wL3U5yJrPYiNrZNg_eiJqVRUNDuYberM1ogF5g@mail.gmail.com",
        subject="[dm-devel] Performance degradation of DM devices after upgrading to linux-5.9 from linux-5.8",
        body=DM_THIN,
        date_utc="2020-12-08T09:00:00+00:00",
    )
    r = _report(msg)
    assert [(x.value, x.label) for x in r.results] == [
        (10.5, "regressed"),
        (77.7, "baseline"),
        (77.0, "regressed"),
        (136.0, "baseline"),
    ]
    assert r.regression_pct == pytest.approx(86.49, abs=0.01)  # 77.7 -> 10.5 MB/s


@pytest.mark.parametrize(
    "table",
    [
        # Josef Bacik's untar timings as his patch wrote them (linux-btrfs, 2021-01-04,
        # <270ea622955d197137bf510ba82ec7f7fa0e425c.1609791839.git.josef@toxicpanda.com>)
        "5.9\t0m54.258s\n5.10\t1m26.212s\n",
        # the same figures as a report might write them: each line labelled by its release, and
        # rows under a header with its unit
        "5.9: 54.258 s\n5.10: 86.212 s\n",
        "kernel    time (s)\n5.9.0     54.258\n5.10.0    86.212\n",
    ],
)
def test_runs_on_two_releases_without_roles_take_the_older_as_the_baseline(table):
    r = _report_of(
        "The user reported reproducer was a simple untarring of a large tarball of\n"
        "the source code for Firefox.  The results are as follows\n\n" + table,
        subject="untarring the firefox sources got slower",
    )
    labels = sorted((x.label, x.value) for x in r.results)
    assert labels == [("baseline", 54.258), ("regressed", 86.212)]
    assert r.regression_pct == pytest.approx(58.9, abs=0.1)


# an NFS client's slowdown in the form of a Fedora user's report, written anew: the runs on two
# distribution builds, the bisection between the two series they belong to
FEDORA_BUILDS = """\
$ uname -r
6.6.8-200.fc39.x86_64

Writes to the NFS export run at 110 MB/s here; with 6.5.12-300.fc39.x86_64
they ran at 480 MB/s. I bisected between v6.5 and v6.6 and landed on
a1b2c3d4e5f6 ("nfs: rework writeback").
"""


def test_runs_on_builds_of_a_bisections_two_ends_are_its_two_sides():
    r = _report_of(FEDORA_BUILDS, subject="[REGRESSION] 6.6.8 nfs write slowdown")
    assert {x.kernel: x.label for x in r.results} == {
        "6.6.8-200.fc39.x86_64": "regressed",
        "6.5.12-300.fc39.x86_64": "baseline",
    }
    assert r.regression_pct == pytest.approx((480 - 110) / 480 * 100, abs=0.01)
