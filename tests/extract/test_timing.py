"""Elapsed wall-clock times from GNU ``time -v`` and the shell's ``time``.

Real text: "block: significant performance regression in iSCSI rescan", linux-block, 2023 (trimmed).
"""

from __future__ import annotations

from lkmlkb.extract.timing import find_timings

RESCAN = """\
(As 5.11.0-rc5+)
Without this patch:
Command being timed: "iscsiadm --mode session --rescan"
Elapsed (wall clock) time (h:mm:ss or m:ss): 0:02.04

Just adding this patch on the previous:
Command being timed: "iscsiadm --mode session --rescan"
Elapsed (wall clock) time (h:mm:ss or m:ss): 0:13.45
"""


def test_gnu_time_elapsed_with_its_heading():
    got = [(r.metric, r.value, r.unit, r.config, r.evidence.line_start) for r in find_timings(RESCAN)]
    assert got == [
        ("elapsed", 2.04, "s", "Without this patch", 3),
        ("elapsed", 13.45, "s", "Just adding this patch on the previous", 7),
    ]


def test_shell_time_real_line_and_hours():
    got = [
        r.value
        for r in find_timings(
            "real\t1m2.500s\nuser\t0m0.1s\nElapsed (wall clock) time (h:mm:ss or m:ss): 1:00:01.5\n"
        )
    ]
    assert got == [62.5, 3601.5]


def test_prose_is_not_a_timing():
    assert find_timings("the real problem took 2s to show\nElapsed: 3\n") == []
