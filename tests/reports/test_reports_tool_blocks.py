"""A tool's output per kernel, each block under a heading naming its kernel, sizes the regression.

Fixture texts, trimmed: Jorge Bastos, (no subject) (linux-btrfs, 2023-01-27,
<CAHzMYBRfK+-cxzuw1-JyNQ+kH22d9YQLxi2YDXr10oXErgH6eQ@mail.gmail.com>): pv's lines under "kernel
5.15.46" and "6.0.15"; Wang Yugui, "dbench (sync open) max_latency regression in btrfs 6.7.0"
(linux-btrfs, 2024-01-31, <20240131150632.A647.409509F4@e16-tech.com>): dbench's table and summary
under "result of 6.6.15(rc1)" and "result of  6.7.0".  The variants are written for the pattern.
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report


def _report(body: str, subject: str):
    ((tid, (msgs, findings)),) = extract_messages(
        [Message("blocks@example.org", subject=subject, body=body)]
    ).items()
    return build_report(tid, msgs, findings)


PV_RUNS = """\
Hi,

Don't know if this is a known issue but I recently noticed that with
kernel 5.19 or 6.0 sequential writes to a raid1 pool are slower than
before, it used to be much closer than writing to a single device, now
it's much slower, example transferring a single file from one NMVe
device to SATA SSDs using pv:

kernel 5.15.46

single
13.5GiB 0:00:28 [ 487MiB/s]
raid1
13.5GiB 0:00:29 [ 467MiB/s]

6.0.15
single
13.5GiB 0:00:27 [ 495MiB/s]
raid1
13.5GiB 0:00:38 [ 359MiB/s]

This test was done with 4GB of RAM, so no (or very little) RAM cache
involved.
"""


def test_pv_runs_under_kernel_headings_report_the_slower_raid1():
    # the mail names two more kernels than it measured on ("with kernel 5.19 or 6.0"): the two it
    # measured on are the sides of the change; raid1 got slower, single did not
    r = _report(PV_RUNS, subject="")
    assert r.is_regression_report
    assert [(x.value, x.kernel, x.label) for x in r.results] == [
        (487.0, "5.15.46", "baseline"),
        (467.0, "5.15.46", "baseline"),
        (495.0, "6.0.15", "regressed"),
        (359.0, "6.0.15", "regressed"),
    ]
    assert r.regression_pct == pytest.approx(23.13, abs=0.01)


def test_pv_runs_that_got_faster_report_nothing():
    faster = PV_RUNS.replace("[ 359MiB/s]", "[ 519MiB/s]").replace(
        "slower than\nbefore", "as fast as\nbefore"
    )
    r = _report(faster.replace("it's much slower", "it's the same"), subject="")
    assert not r.is_regression_report


DBENCH_RUNS = """\
Hi,

I noticed a dbench max_latency regression in btrfs 6.7.0.

command:
\tdbench -s -t 60 -D /mnt/test 4

result of 6.6.15(rc1)
 Operation      Count    AvgLat    MaxLat
 ----------------------------------------
 NTCreateX     430533     0.014    63.764
 WriteX        214235     0.978    86.843
 Flush          30182     0.013     3.074

Throughput 225.11 MB/sec (sync open)  4 clients  4 procs  max_latency=86.861 ms

result of  6.7.0
 Operation      Count    AvgLat    MaxLat
 ----------------------------------------
 NTCreateX     419186     0.013     0.266
 WriteX        208546     1.007   536.773
 Flush          29357     0.018     3.076

Throughput 218.935 MB/sec (sync open)  4 clients  4 procs  max_latency=536.777 ms

This regession  is firstly found on 6.8.0-rc2,
Now  bisect-ed to 6.6.15(rc1) ~ 6.7.0.  and more bisect work to do.
"""
DBENCH_SUBJECT = "dbench (sync open) max_latency regression in btrfs 6.7.0"


def test_the_metric_the_subject_names_sizes_the_regression():
    # the bad kernel is named (6.7.0), the one older release measured is the baseline; the subject
    # names the latency, so the latency (86.861 -> 536.777 ms), not the throughput, is the size
    r = _report(DBENCH_RUNS, DBENCH_SUBJECT)
    assert r.is_regression_report and r.bad_kernel == "6.7.0"
    assert [(x.metric, x.value, x.kernel, x.label) for x in r.results] == [
        ("bw", 225.11, "6.6.15", "baseline"),
        ("lat", 86.861, "6.6.15", "baseline"),
        ("bw", 218.935, "6.7.0", "regressed"),
        ("lat", 536.777, "6.7.0", "regressed"),
    ]
    assert r.regression_pct == pytest.approx(517.97, abs=0.01)


def test_a_subject_naming_no_metric_sizes_by_the_throughput():
    r = _report(DBENCH_RUNS, "dbench (sync open) regression in btrfs 6.7.0")
    assert r.regression_pct == pytest.approx(2.74, abs=0.01)


def test_two_older_releases_measured_leave_the_baseline_unsaid():
    # which of two older releases was the last good one the mail does not say
    third = DBENCH_RUNS.replace(
        "result of  6.7.0",
        "result of 6.5.13\nThroughput 226.10 MB/sec (sync open)  4 clients  4 procs  max_latency=80.1 ms\n\n"
        "result of  6.7.0",
    )
    r = _report(third, DBENCH_SUBJECT)
    # each run read on its own kernel, the bad kernel's runs regressed, neither older one the baseline
    assert {(x.metric, x.kernel) for x in r.results if x.kernel == "6.5.13"} == {
        ("bw", "6.5.13"),
        ("lat", "6.5.13"),
    }
    assert {x.kernel for x in r.results if x.label == "regressed"} == {"6.7.0"}
    assert not any(x.label == "baseline" for x in r.results)
    assert r.regression_pct is None


# the same pattern in prose and in dd's output: the bad kernel named in the subject only, runs on
# its release and on one older release
DD_RUNS = """\
dd if=/dev/zero of=/mnt/test bs=1M count=4096 oflag=direct

6.7.0:
4294967296 bytes (4.3 GB, 4.0 GiB) copied, 4.1 s, 1.0 GB/s

6.8.0:
4294967296 bytes (4.3 GB, 4.0 GiB) copied, 9.8 s, 438 MB/s
"""


def test_dd_runs_on_the_bad_release_and_an_older_one():
    # dd's command gives its direction to the first output only: the second is of the same run
    r = _report(DD_RUNS, "dd performance regression in 6.8")
    assert r.is_regression_report and r.bad_kernel == "6.8"
    assert r.regression_pct == pytest.approx(56.2, abs=0.01)


def test_the_two_releases_measured_on_are_the_sides_whatever_else_is_named():
    # "slow writes on 6.6" names the series of the 6.6.3 measured: two releases measured, no more
    body = "Hello,\n\nWith 6.1.55 copying a 10G file takes 25 seconds, with 6.6.3 it takes\nover 2 minutes. Same disk.\n"
    r = _report(body, "slow writes on 6.6")
    assert r.is_regression_report
    assert [(x.kernel, x.label) for x in r.results] == [("6.1.55", "baseline"), ("6.6.3", "regressed")]
    assert r.regression_pct == pytest.approx(380.0)


def test_three_releases_measured_are_no_two_sides():
    body = (
        "Hello,\n\nWith 6.1.55 copying a 10G file takes 25 seconds, with 6.6.3 it takes\n"
        "over 2 minutes, with 6.5.9 it takes 70 seconds. Same disk.\n"
    )
    r = _report(body, "slow writes on 6.6")
    assert [(x.value, x.kernel, x.label) for x in r.results] == [
        (25.0, "6.1.55", None),
        (2.0, "6.6.3", None),
        (70.0, "6.5.9", None),
    ]
    assert r.regression_pct is None
