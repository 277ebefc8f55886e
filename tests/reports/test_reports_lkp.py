"""Kernel test robot reports as reports: tested commit, base column, parameters, still-regressed trees.

Fixture: tests/extract/fixtures/results_lkp_release_base.txt, trimmed from the robot's
"[linus:master] [block] 9b8b84879d: fio.read_iops 59.4% regression" (a release tag as the base).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lkmlkb.extract.claims import find_claims
from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Findings, Message
from lkmlkb.reports.build import build_report

FIXTURE = Path(__file__).resolve().parents[1] / "extract" / "fixtures" / "results_lkp_release_base.txt"
SUBJECT = "[linus:master] [block]  9b8b84879d:  fio.read_iops 59.4% regression"


def robot_message() -> Message:
    body = "\n".join(ln for ln in FIXTURE.read_text().splitlines() if not ln.startswith("# "))
    return Message(
        "202508110626.949b00b5-lkp@intel.com",
        subject=SUBJECT,
        body=body,
        date_utc="2025-08-11T00:00:00+00:00",
    )


def robot_report():
    ((tid, (msgs, findings)),) = extract_messages([robot_message()]).items()
    return build_report(tid, msgs, findings)


def test_robot_report_columns_are_base_and_culprit():
    r = robot_report()
    assert r.is_regression_report and r.status == "bisected"
    roles = {c.sha[:12]: c.role for c in r.commits}
    assert roles == {"9b8b84879d4a": "culprit", "89748acdf226": "tested", "b9ddaa95fd28": "tested"}
    iops = {(x.kernel, x.label, x.value) for x in r.results if x.metric == "iops"}
    assert iops == {("6.16-rc4", "baseline", 265.59), ("9b8b84879d", "regressed", 107.9)}
    assert r.stated_pct == 59.4
    assert abs(r.computed_pct - 59.37) < 0.01


def test_robot_parameters_become_a_job():
    (job,) = [j for j in robot_report().fio_jobs if j.form == "lkp-params"]
    assert {k: job.options[k] for k in ("rw", "bs", "ioengine", "runtime")} == {
        "rw": "randread",
        "bs": "2M",
        "ioengine": "libaio",
        "runtime": "300s",
    }


def test_a_robot_improvement_stays_one_when_replies_speak_of_a_drop():
    """linux-xfs, "[xfs] 016a23388c: stress-ng.xattr.ops_per_sec 58.4% improvement" (July 2022,
    excerpts; the robot's own mail is not in the list's archive, so a reply is the root): the
    replies explain the gain and say when it would go away ("the performance will drop to the
    same level as ...", "... and report it as regression").  The subject states the change with
    its figure; the report is an improvement, not a regression."""
    subject = "Re: [xfs]  016a23388c:  stress-ng.xattr.ops_per_sec 58.4% improvement"
    root = Message(
        "20220721220142.GW3861211@dread.disaster.area",
        subject=subject,
        date_utc="2022-07-21T22:01:42+00:00",
        body=(
            "On Thu, Jul 21, 2022 at 10:30:21AM +0800, kernel test robot wrote:\n"
            "> FYI, we noticed a 58.4% improvement of stress-ng.xattr.ops_per_sec due to commit:\n"
            '>\n> commit: 016a23388cdcb2740deb1379dc408f21c84efb11 ("xfs: Add order IDs to log items in CIL")\n'
            "\nThat's a cacheline miss avoided by luck.\n"
        ),
    )
    reply = Message(
        "9d4e37e2-417e-7a2f-a187-5c7b680c6777@intel.com",
        subject="Re: [LKP] " + subject,
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2022-08-02T00:00:00+00:00",
        body=(
            "With this change, the performance will drop to the same level as commit df7a4a2134b0a\n"
            ' ("xfs: convert CIL busy extents to per-cpu"):\n'
        ),
    )
    last = Message(
        "8b9a5712-fbb1-afdf-6c5b-fa261832665f@intel.com",
        subject="Re: [LKP] " + subject,
        in_reply_to=reply.message_id,
        references=[root.message_id, reply.message_id],
        date_utc="2022-08-03T00:00:00+00:00",
        body=(
            "Agree. We did see some strange performance boost which can't be connected\n"
            "to the code change. And worried later unrelated change reduce the\n"
            "mysterious performance gain (and report it as regression).\n"
        ),
    )
    ((tid, (msgs, findings)),) = extract_messages([root, reply, last]).items()
    assert any(c.kind == "regression" for f in findings for c in f.claims)  # what made it one before
    r = build_report(tid, msgs, findings)
    assert (r.kind, r.is_regression_report) == ("improvement", False)


def test_a_bug_report_that_could_be_improved_is_no_improvement():
    """linux-xfs, "[Bug 208805] New: XFS: iozone possible memory allocation deadlock" (Brian
    Foster's reply <20200826151958.GB355692@bfoster>, an excerpt): "improved" with nothing
    measured is no report of an improvement, as "regression" with nothing measured is none of
    a regression."""
    root = Message(
        "bug-208805-201763@https.bugzilla.kernel.org/",
        subject="[Bug 208805] New: XFS: iozone possible memory allocation deadlock",
        date_utc="2020-08-06T00:00:00+00:00",
        body="On a 4.19 kernel iozone hangs with\nXFS: iozone(19765) possible memory allocation deadlock\n",
    )
    reply = Message(
        "20200826151958.GB355692@bfoster",
        subject="Re: [Bug 208805] New: XFS: iozone possible memory allocation deadlock",
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2020-08-26T15:19:58+00:00",
        body=(
            "Then perhaps we can analyze\nthe cause and determine whether it's something that "
            "can be addressed or\nimproved, or if you just need more memory. ;)\n"
        ),
    )

    def report():
        findings = [Findings(m.message_id) for m in (root, reply)]
        findings[1].claims = find_claims(reply.body)
        return findings, build_report(root.message_id, [root, reply], findings)

    findings, r = report()
    assert [c.kind for c in findings[1].claims] == ["improvement"]
    assert (r.kind, r.is_regression_report) == (None, False)
    # with a figure it is one
    reply.body += "With the patch iozone runs 12% faster.\n"
    assert report()[1].kind == "improvement"


def test_a_patch_fixing_a_commit_is_no_regression_report_for_the_numbers_it_shows():
    """linux-block, "[PATCH -next v2 0/2] bugfix for blk-throttle" (an excerpt): a patch whose
    Fixes: tag names the commit it repairs, with dd's output as its test.  A Fixes: tag in a
    patch is no bisection of a measured regression; with a regression claim it is one."""
    body = (
        "Fix a bug that bios throttled by iops limit are charged twice.\n\n"
        "Test: dd if=/dev/zero of=/dev/sda bs=10k count=1 oflag=direct\n"
        "10240 bytes (10 kB, 10 KiB) copied, 10.0038 s, 1.0 kB/s\n\n"
        'Fixes: 9f5ede3c01f9 ("block: throttle split bio in case of iops limit")\n'
        "Signed-off-by: Yu Kuai <yukuai3@huawei.com>\n"
    )
    root = Message(
        "20220528064330.3471000-1-yukuai3@huawei.com",
        subject="[PATCH -next v2 0/2] bugfix for blk-throttle",
        date_utc="2022-05-28T06:43:30+00:00",
        body=body,
    )

    def report(msg):
        ((tid, (msgs, findings)),) = extract_messages([msg]).items()
        return findings, build_report(tid, msgs, findings)

    findings, r = report(root)
    assert any(c.role == "culprit" for c in r.commits) and r.results  # what made it one before
    assert (r.is_regression_report, r.kind) == (False, None)
    root.body = body.replace("Fix a bug", "It fixes a 30% regression: fix a bug")
    assert report(root)[1].is_regression_report
    # a bisection in a patch thread is one: the rule asks how the culprit was found, not where
    bisect = Message(
        "bisect@x",
        subject="Re: [PATCH -next v2 0/2] bugfix for blk-throttle",
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2022-05-30T00:00:00+00:00",
        body=(
            "I bisected it to this:\n\n"
            "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d is the first bad commit\n\n"
            "  read: IOPS=412k, BW=1609MiB/s (1688MB/s)(94.3GiB/60001msec)\n"
        ),
    )
    root.body = body
    ((tid, (msgs, findings)),) = extract_messages([root, bisect]).items()
    assert build_report(tid, msgs, findings).is_regression_report


# the heads of two of the robot's failure reports, with the numbers their attachments gave:
# linux-ext4 <202305012130.cc1e2351-oliver.sang@intel.com> (2023-05; a ver_linux listing read as
# a table) and linux-xfs <Ys0gqOUcLr+2dle5@xsang-OptiPlex-9020> (2022-07; dd in the xfstests log),
# with Dave Chinner's reply naming the culprit (<20220714012421.GO3861211@dread.disaster.area>)
ROBOT_FAILURES = [
    (
        "202305012130.cc1e2351-oliver.sang@intel.com",
        "[jlayton:ctime] [ext4]  ff9aaf58e8: ltp.statx06.fail",
        'Hello,\n\nkernel test robot noticed "ltp.statx06.fail" on:\n\n'
        'commit: ff9aaf58e816635c454fbe9e9ece94b0eee6f0b1 ("ext4: convert to multigrain timestamps")\n'
        "https://git.kernel.org/cgit/linux/kernel/git/jlayton/linux.git ctime\n\n"
        "in testcase: ltp\n\n(please refer to attached dmesg/kmsg for entire log/backtrace)\n\n"
        "e2fsprogs              1.46.6-rc1\nKbd                    loadkeys:\nSh-utils               9.1\n",
        None,
    ),
    (
        "Ys0gqOUcLr+2dle5@xsang-OptiPlex-9020",
        "[xfs]  47a6df7cd3: Assertion_failed",
        "Greeting,\n\nFYI, we noticed the following commit (built with gcc-11):\n\n"
        'commit: 47a6df7cd3174b91c6c862eae0b8d4e13591df52 ("xfs: shut down filesystem if we xfs_trans_cancel '
        'with deferred work items")\n\nin testcase: xfstests\n\n'
        "caused below changes (please refer to attached dmesg/kmsg for entire log/backtrace):\n\n"
        "run fstests xfs/070 at 2022-07-09 06:33:21\n"
        "262144 bytes (262 kB, 256 KiB) copied, 0.0234063 s, 11.2 MB/s\n\n512+0 records in\n\n512+0 records out\n\n"
        "262144 bytes (262 kB, 256 KiB) copied, 0.0145739 s, 18.0 MB/s\n",
        "On Wed, Jul 13, 2022 at 02:25:25PM +0800, Oliver Sang wrote:\n"
        "> > > Reported-by: kernel test robot <oliver.sang@intel.com>\n\n"
        "Of course, 47a6df7cd3 introduced the ASSERT that is firing. You'll\n"
        "never see the failure on kernels before this, even if the issue is\noccurring.\n",
    ),
]


def _robot_thread(mid: str, subject: str, body: str, reply: str | None):
    msgs = [Message(mid, subject=subject, body=body, date_utc="2022-07-12T07:20:08+00:00")]
    if reply:
        msgs.append(
            Message(
                "reply@x",
                subject="Re: " + subject,
                body=reply,
                in_reply_to=mid,
                references=[mid],
                date_utc="2022-07-14T01:24:21+00:00",
            )
        )
    ((tid, (msgs, findings)),) = extract_messages(msgs).items()
    return build_report(tid, msgs, findings)


def test_a_robot_report_of_a_failure_is_no_performance_regression():
    """The robot's subject says what it found: a metric's change ("fio.read_iops 59.4% regression")
    or a failure ("ltp.statx06.fail", "Assertion_failed").  A bisected failure with a number in
    its logs is no report of a performance regression; the same mail titled with a change is."""
    for mid, subject, body, reply in ROBOT_FAILURES:
        r = _robot_thread(mid, subject, body, reply)
        assert any(c.role == "culprit" for c in r.commits), subject  # bisected, as a regression report is
        if "xfs" in subject:
            assert r.results, subject  # dd's rates in the xfstests log
        else:
            assert not r.results, subject  # the ext4 report's ver_linux listing measures nothing (tables'
            # listing rule)
        assert (r.is_regression_report, r.kind) == (False, None), subject
        changed = subject.split(": ")[0] + ": fio.write_iops -5.7% regression"
        assert _robot_thread(mid, changed, body, reply).is_regression_report, subject


def test_a_persons_subject_shaped_like_the_robots_is_no_robot_failure():
    from lkmlkb.reports.classify import robot_failure

    assert robot_failure(Message("a@x", subject="[xfs]  47a6df7cd3: Assertion_failed"))
    assert robot_failure(
        Message("b@x", subject="Re: [nvme] f9c499bbbf: nvme nvme0: Identify Controller failed (16641)")
    )
    for subject in (
        "[REGRESSION][6.8] 0123456789: blk-mq: 30% slowdown in 4k randwrite",
        "[regression] abcdef0123: xfs: large performance regression in fsync",
        "[linux-next:master] [block/mq]  574e7779cf:  fio.write_iops -72.9% regression",
    ):
        assert not robot_failure(Message("c@x", subject=subject)), subject


# --- a developer answering the robot that the cost is expected: a report, not a regression ---


def _robot_with_reply(reply: str, sender: str = "dev@kernel.org"):
    root = robot_message()
    answer = Message(
        "reply@x",
        subject="Re: " + SUBJECT,
        from_addr=sender,
        body=reply,
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2025-08-12T00:00:00+00:00",
    )
    ((tid, (msgs, findings)),) = extract_messages([root, answer]).items()
    return build_report(tid, msgs, findings)


@pytest.mark.parametrize(
    "reply",
    [
        # linux-block, the reply to this report (2025-08): the change's intent
        "The drop is in disk IOPS.  Reducing them for the same large I/O size workload would\n"
        "indeed by the intent of this change.\n",
        # linux-btrfs, David Sterba to the robot (filebench -4.0%, 2023)
        "It depends on actual layout of extents and block groups. So this is expected, -4% is\nwithin acceptable range.\n",
        # linux-btrfs, Filipe Manana (stress-ng fallocate, 2023)
        "This is expected. Before an fsync of a file with 0 links we did nothing.\n",
        # linux-ext4, Jan Kara (fio write_iops -2.5%, 2023-07)
        "It is background lazyinit interfering with the test. I don't think there's anything to fix\n"
        "in the kernel.\n",
        # linux-btrfs, the regression tracker (fxmark -8.4%, 2022-09)
        "#regzbot invalid: kinda expected, as explained in the thread\n",
        # variants: a cost by design, a contraction, nothing to fix said outright
        "That's intended: the change trades some throughput for fairness.\n",
        "It is by design, the old code skipped the flush.\n",
        "Nothing to fix here; the benchmark measured the new default.\n",
    ],
)
def test_a_robot_report_the_developers_call_expected_is_listed_as_not_a_regression(reply):
    r = _robot_with_reply(reply)
    assert r.is_regression_report and r.status == "not a regression"
    assert any(x.rule == "status-not-a-regression" for x in r.reasons)


@pytest.mark.parametrize(
    "reply,sender",
    [
        # a cost said expected to go, a question, an expectation that it is not
        ("This is expected to be fixed by the next series.\n", "dev@kernel.org"),
        ("Is this expected? The series should not touch that path.\n", "dev@kernel.org"),
        ("This is not expected, I'll look into it.\n", "dev@kernel.org"),
        # the robot's own team explaining its setup is not the developers' verdict
        ("This is expected for this machine's setup, sorry.\n", "oliver.sang@intel.com"),
        # quoted by the reply, not said in it
        ("> This is expected.\n\nI disagree, 59% is too much.\n", "dev@kernel.org"),
    ],
)
def test_other_words_of_expectation_leave_the_robot_report_bisected(reply, sender):
    r = _robot_with_reply(reply, sender)
    assert r.is_regression_report and r.status != "not a regression"
