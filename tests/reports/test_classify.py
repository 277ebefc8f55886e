"""The named rules that decide whether a thread is a performance regression report
(lkmlkb.reports.classify), each on real mail of the lists (trimmed; the source beside each)."""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.extract.prefilter import RISE_WORDS
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report


def _report(*messages: Message):
    ((tid, (msgs, findings)),) = extract_messages(list(messages)).items()
    return build_report(tid, msgs, findings)


def _thread(
    subject: str, root_from: str, root_body: str, *replies: tuple[str, str], months_later: bool = False
):
    """A patch (or report) and its replies, a day apart; ``months_later``: the replies come in
    the spring after the patch (it is in a kernel by then)."""
    root = Message(
        "root@x", subject=subject, from_addr=root_from, body=root_body, date_utc="2024-01-01T00:00:00+00:00"
    )
    out = [root]
    for i, (who, body) in enumerate(replies, 1):
        out.append(
            Message(
                f"r{i}@x",
                subject="Re: " + subject,
                from_addr=who,
                body=body,
                in_reply_to=root.message_id,
                references=[root.message_id],
                date_utc=f"2024-0{4 if months_later else 1}-0{i + 1}T00:00:00+00:00",
            )
        )
    return out


def _rules(r) -> list[str]:
    return [x.rule for x in r.reasons]


PATCH = "This patch makes io stats accounting use a percpu counter.\n\n---\n drivers/md/md.c | 4 +++-\n"

# linux-block, "Re: [PATCH 5/6] block: use iomap for writes to block devices" (2024-04): a user
# measures the merged patch months later; the typo leaves no word of a regression, the figures say it
IOMAP_LATE = """\
I'm testing SSD block device write performance recently. I found the write
speed descrased greatly on my board (330MB/s -> 130MB/s). Then I spent some
time to find cause, finally find that it's caused by this patch and if I
revert this patch, write speed can recover to 330MB/s.
"""


def test_a_reply_measuring_the_patch_slowing_things_down_is_a_report():
    r = _report(
        *_thread(
            "[PATCH 5/6] block: use iomap for writes to block devices",
            "hch@lst.de",
            PATCH,
            ("xu.yang_2@nxp.com", IOMAP_LATE),
            months_later=True,
        )
    )
    assert r.is_regression_report and _rules(r)[0] == "reply-reports-slowdown"
    assert r.status == "reported"  # measured, never said in words: still where it stands


# linux-block, "Re: [PATCH] iosched: Add i10 I/O Scheduler" (Jens Axboe, 2020-11-12, the day the
# patch was posted, <5a954c4e-aa84-834d-7d04-0ce3545d45c9@kernel.dk>), trimmed: a reviewer
# measuring a proposal's cost reviews it; no kernel regressed
I10_REVIEW = """\
I haven't taken a close look at the code yet so far, but one quick note
that patches like this should be against the branches for 5.11.

In any case, I did run this through some quick peak testing as I was
curious, and I'm seeing about 20% drop in peak IOPS over none running
this. Perf diff:
"""


def _i10_review(text: str = I10_REVIEW, months_later: bool = False):
    return _report(
        *_thread(
            "[PATCH] iosched: Add i10 I/O Scheduler",
            "rach4x0r@gmail.com",
            PATCH,
            ("axboe@kernel.dk", text),
            months_later=months_later,
        )
    )


@pytest.mark.parametrize(
    "text",
    [
        I10_REVIEW,
        # mainline named as what the proposal is measured against, or its acceptance upstream: no
        # tree holds the patch (linux-pm, "[PATCH v1 0/4] cpufreq: Allow drivers to receive more
        # information from the governor", 2020-12: "sugov-HWP.min : mainline;"; "[PATCH v3 00/20]
        # Virtual Swap Space", 2026-02: "comparing to mainline 6.19"; "[RFC PATCH 00/22] KVM: x86:
        # Virtualize IA32_APERF and IA32_MPERF MSRs": "any chance of upstream acceptance")
        I10_REVIEW.replace("In any case, I did run", "Comparing to mainline 6.19, I did run"),
        I10_REVIEW.replace("In any case, I did run", "baseline : mainline;\nIn any case, I did run"),
        I10_REVIEW.replace("In any case, I did run", "Before upstream accepts it, I did run"),
        # another series merged one day
        I10_REVIEW.replace("In any case, I did run", "Once p3 is merged I'll rebase. I did run"),
    ],
)
def test_a_reviewer_measuring_a_proposals_cost_reports_no_regression(text):
    r = _i10_review(text)
    assert not any(x.rule == "reply-reports-slowdown" for x in r.reasons)
    assert not r.is_regression_report


@pytest.mark.parametrize(
    "text,months_later",
    [
        (I10_REVIEW, True),  # months after the patch: it is in a kernel by then
        # the same week, but the patch is in a tree: a regression of a kernel, not a review
        (I10_REVIEW.replace("In any case, I did run", "In today's linux-next I did run"), False),
        (I10_REVIEW.replace("In any case, I did run", "In any case, our nightly CI run"), False),
        (I10_REVIEW.replace("In any case, I did run", "Now that it landed in mainline, I did run"), False),
        (I10_REVIEW.replace("In any case, I did run", "Since this was merged, I did run"), False),
    ],
)
def test_the_same_measurement_of_a_patch_in_a_kernel_reports_a_regression(text, months_later):
    r = _i10_review(text, months_later)
    assert r.is_regression_report and _rules(r)[0] == "reply-reports-slowdown"


def test_the_authors_own_figures_in_a_reply_are_no_late_report():
    # the same words from the patch's author: a resend measuring its own version
    r = _report(
        *_thread(
            "[PATCH 5/6] block: use iomap for writes to block devices",
            "hch@lst.de",
            PATCH,
            ("hch@lst.de", IOMAP_LATE),
        )
    )
    assert not any(x.rule == "reply-reports-slowdown" for x in r.reasons)


def test_a_reviewer_finding_a_cost_negligible_reports_nothing():
    # linux-raid, "[PATCH] md: improve io stats accounting" (2020-06): "slower only by about 0.66%"
    reply = (
        "With this patch:\n  read: IOPS=2567k, BW=10.0GiB/s\n\n2567k IOPS, that's slower only by about 0.66%:\n"
        "  read: IOPS=2584k, BW=10.1GiB/s\n"
    )
    r = _report(
        *_thread(
            "[PATCH] md: improve io stats accounting", "artur@intel.com", PATCH, ("song@kernel.org", reply)
        )
    )
    assert not r.is_regression_report


# linux-mm/linux-xfs, "[PATCH v4 00/48] use refcount+RCU method to implement lockless slab shrink"
# (2023-08): a cover letter citing the regression its earlier version met, as background
SHRINK_COVER = """\
We used to implement the lockless slab shrink with SRCU [1], but then kernel
test robot reported -88.8% regression in stress-ng.ramfs.ops_per_sec test
case [2], so we reverted it [3].

This patch series aims to re-implement the lockless slab shrink using the
refcount+RCU method proposed by Dave Chinner [4].
"""


def test_a_series_citing_a_regression_as_its_background_is_not_its_report():
    r = _report(
        *_thread(
            "[PATCH v4 00/48] use refcount+RCU method to implement lockless slab shrink",
            "zhengqi.arch@bytedance.com",
            SHRINK_COVER,
        )
    )
    assert not r.is_regression_report


def test_a_patch_improving_a_slowness_it_dates_with_a_fixes_tag_is_no_regression_fix():
    # linux-block, "[PATCH ... 00/16] block: fix reordered IO in the case recursive split" (2025-09):
    # its Fixes: tag names the 2007 commit that wrote the code; it speaks of a degradation it improves
    body = (
        "Currently, split bio will be chained to original bio, and original bio\n"
        "will be resubmitted to the tail of current->bio_list, which can cause\n"
        "performance degradation, especially for mdraid with large IO size; on my\n"
        "test: 18% drop in IO BW (from 798 MiB/s to 647 MiB/s).\n\n"
        'Fixes: d89d87965dcb ("When stacked block devices are in-use (e.g. md or dm)")\n'
    )
    r = _report(
        *_thread(
            "[PATCH v2 for-6.18/block 00/16] block: fix ordering of recursive split IO",
            "yukuai@huaweicloud.com",
            body,
        )
    )
    assert not r.is_regression_report and "patch-own-numbers" in _rules(r)


def test_a_fix_naming_the_regression_it_fixes_is_a_report_in_the_state_fix_proposed():
    # the same shape, when the patch says it fixes a regression (linux-ext4, "[PATCH 1/3] jbd2: fix
    # checkpoint cleanup performance regression", 2023-07, a form of it)
    body = (
        "We catch a performance regression when doing fs_mark tests below: 8304.9 files/sec\n"
        'before merging, 2107.1 files/sec after.\n\nFixes: b98dba273a0e ("jbd2: remove journal_clean_one_cp_list()")\n'
    )
    r = _report(
        *_thread(
            "[PATCH 1/3] jbd2: fix checkpoint cleanup performance regression", "yi.zhang@huawei.com", body
        )
    )
    assert r.is_regression_report and _rules(r)[0] == "fix-of-slowdown" and r.status == "fix proposed"


# linux-s390 and netdev, "[RFC net] tcp: Fix performance regression for request-response
# workloads" (2022-09): a fix posted with its diff under a tag that does not say PATCH; variants
# of the tags such postings carry ("[RFC]", "[v2]", "[RESEND v2 1/1]")
UNTAGGED_FIX = (
    "When running uperf with a request-response pattern with 1k payload and 250\n"
    "connections parallel, we measure 13% difference in throughput since 472c2e07eef0.\n\n"
    "tcp: allow linear skb payload for first in queue\n\n"
    'Fixes: 472c2e07eef0 ("tcp: add one skb cache for tx")\n'
    "Signed-off-by: A Developer <dev@example.org>\n"
    "---\n net/ipv4/tcp.c | 4 +++-\n 1 file changed, 3 insertions(+), 1 deletion(-)\n\n"
    "diff --git a/net/ipv4/tcp.c b/net/ipv4/tcp.c\nindex e5011c136fdb..f7cbccd41d85 100644\n"
    "--- a/net/ipv4/tcp.c\n+++ b/net/ipv4/tcp.c\n@@ -1154,6 +1154,7 @@\n }\n+/* first skb */\n"
)


@pytest.mark.parametrize(
    "subject",
    [
        "[RFC net] tcp: Fix performance regression for request-response workloads",
        "[RFC] tcp: Fix performance regression for request-response workloads",
        "[v2] tcp: fix throughput regression for request-response workloads",
        "[RESEND v2 1/1] tcp: Fix performance regression for request-response workloads",
    ],
)
def test_a_fix_posted_with_its_diff_under_another_tag_is_a_report(subject):
    r = _report(*_thread(subject, "dev@example.org", UNTAGGED_FIX))
    assert r.is_regression_report and _rules(r)[0] == "fix-of-slowdown" and r.status == "fix proposed"


def test_a_message_without_a_diff_under_the_same_subject_is_no_fix_posted():
    # the same words without the diff: a question about a fix, not its posting
    body = UNTAGGED_FIX.split("---")[0].replace("Signed-off-by: A Developer <dev@example.org>\n", "")
    r = _report(
        *_thread(
            "[RFC] tcp: Fix performance regression for request-response workloads", "dev@example.org", body
        )
    )
    assert "fix-of-slowdown" not in _rules(r)


@pytest.mark.parametrize(
    "subject",
    [
        'Patch "tcp: Fix performance regression for request-response workloads" has been added to the 6.1-stable tree',
        'FAILED: Patch "tcp: Fix performance regression for request-response workloads" failed to apply to 6.1-stable tree',
    ],
)
def test_a_stable_trees_notice_of_a_fix_is_no_fix_posted(subject):
    # linux-xfs (2022-2025): the stable maintainers' notices carry the patch they took or could not
    # apply, diff and all; the backport is no posting of a fix
    r = _report(*_thread(subject, "gregkh@linuxfoundation.org", UNTAGGED_FIX))
    assert "fix-of-slowdown" not in _rules(r)


def test_two_sides_of_a_change_statement_are_no_kernel_change():
    # linux-raid (2020): the scrub's speed fell during the scrub itself; no kernel was changed
    body = (
        "I/O on the array has dropped from ~speed=85166K/sec during scrub to\n"
        "nothing; reads went from 120MB/s to 2MB/s while the check runs.\n"
    )
    r = _report(*_thread("raid1 I/O stalls during a check", "user@example.org", body))
    assert not r.is_regression_report and "config-comparison" in _rules(r)


def test_a_slowdown_within_noise_is_no_report_on_its_own():
    # linux-ext4, "[RFC] merge extent blocks when possible" (2023): "With the patch applied (0.6% slower)"
    body = "With the patch applied the index and lead blocks are properly merged (0.6% slower):\n  0m12.3s\n"
    r = _report(*_thread("merge extent blocks when possible", "someone@example.org", body))
    assert not r.is_regression_report


def test_one_kernel_said_to_be_slow_is_where_it_was_seen_not_a_change():
    # linux-ext4, "CFQ idling kills I/O performance on ext4 with blkio cgroup controller" (2019):
    # two schedulers on one kernel
    body = (
        "One of my colleagues noticed upto 10x - 30x drop in I/O throughput running\n"
        "the workload with CFQ compared to deadline. These results were reproduced on a\n"
        "Linux VM (kernel v4.19) on ESXi.\n"
    )
    r = _report(
        *_thread("CFQ idling kills I/O performance on ext4 with blkio cgroup controller", "a@b.c", body)
    )
    assert not r.is_regression_report


# io-uring, "uring regression - lost write request" (Jens Axboe, 2021-11-11,
# <1bd48c9b-c462-115c-d077-1b724d7e4d10@kernel.dk>): lost writes and hangs; one figure of the test
# box's load is a detail of the failure, no speed that changed
LOST_WRITE_ROOT = """\
Sometime after 5.11 and is fixed in 5.15-rcX (rc6 extensively tested
over last few days) is a kernel regression we are tracing in
https://jira.mariadb.org/browse/MDEV-26674
5.10 and early across many distros and hardware appear not to have a problem.
"""
LOST_WRITE_REPLY = """\
The podman approach seemed to work, and I was able to run all three
steps. Didn't see any hangs. I'm going to try again dropping down
the innodb pool size (box only has 32G of RAM).

The storage can do a lot more than 5k IOPS, I'm going to try ramping
that up.
"""


def test_a_subjects_regression_beside_one_figure_is_no_slowdown():
    r = _report(
        *_thread(
            "uring regression - lost write request",
            "daniel@mariadb.org",
            LOST_WRITE_ROOT,
            ("axboe@kernel.dk", LOST_WRITE_REPLY),
        )
    )
    assert not r.is_regression_report


# linux-block, "[PATCH -next] blk-mq: fix boot time regression for scsi drives with multiple hctx"
# (Yu Kuai, 2022-06-14, <20220614071410.3571204-1-yukuai3@huawei.com>): the subject names the
# regression, the log measures the same latency before and after the change
BOOT_TIME_FIX = """\
We found that boot time is increased for about 8s after upgrading kernel
from v4.19 to v5.10(megaraid-sas is used in the environment).

Following is where the extra time is spent:

scsi_probe_and_add_lun
 __scsi_remove_device
  blk_cleanup_queue
   blk_mq_exit_queue
    blk_mq_exit_hw_queues
     blk_mq_exit_hctx
      blk_mq_clear_flush_rq_mapping -> function latency is 0.1ms
       cmpxchg

Since that blk_mq_clear_flush_rq_mapping() will only be called while the
queue is freezed already, which means there is no inflight request,
it's safe to set NULL for 'tags->rqs[]' directly instead of using
cmpxchg(). Tests show that with this change, function latency of
blk_mq_clear_flush_rq_mapping() is about 1us, and boot time is not
increased.

Fixes: 364b61818f65 ("blk-mq: clearing flush request reference in tags->rqs[]")
Signed-off-by: Yu Kuai <yukuai3@huawei.com>
---
 block/blk-mq-tag.c | 2 +-
"""


def test_a_subjects_regression_with_a_speed_measured_twice_is_a_slowdown():
    r = _report(
        *_thread(
            "[PATCH -next] blk-mq: fix boot time regression for scsi drives with multiple hctx",
            "yukuai3@huawei.com",
            BOOT_TIME_FIX,
        )
    )
    assert r.is_regression_report


# linux-ext4, "[Bug 217965] ext4(?) regression since 6.5.0 on sata hdd" (bugzilla, 2024-03-18,
# <bug-217965-13602-0pfvbRXyV2@https.bugzilla.kernel.org/>): one figure, said to be falling
FALLING_FIGURE = """\
What I see is that once meminfo shows the limit (4GB) was reached, the kworker
kicks in at 100% CPU.
At that point iostat shows activity on the array dropping, from about 160MB/s
to very little (with an occasional burst of a few MB/s).
"""


def test_a_subjects_regression_with_one_speed_said_to_fall_is_a_slowdown():
    r = _report(
        *_thread(
            "[Bug 217965] ext4(?) regression since 6.5.0 on sata hdd",
            "bugzilla-daemon@kernel.org",
            FALLING_FIGURE,
        )
    )
    assert r.is_regression_report


# linux-xfs, "[PATCH 0/5] xfs: fix log cache flush regressions" (Dave Chinner, 2021-07-22,
# <20210722015335.3063274-1-david@fromorbit.com>): a fix blaming a commit for failures; the one
# time in it is how long a test sat idle, not a speed measured before and after
FLUSH_FIXES = """\
The first four patches in this series fix regressions introduced by
commit eef983ffeae7 ("xfs: journal IO cache flush reductions") and
exposed by generic/482. I have one test machine that reproduces
the failures, and in general a failure occurs 1 in every 30 test
iterations.

The last patch is not a regression, but a fix for another log force
iclog related flush problem I noticed and found while triaging the
above problems. Occasionally the tests would sit idle doing nothing
for up to 30s waiting on a xfs_log_force_seq() call to complete.

I'm still not sure that I've caught all the cases where we don't
issue cache flushes correctly - debugging this has been a slow
process of whack-a-mole, and there are still questionable failures
occurring where an fsync is not appearing to issue an iclog with a
cache flush correctly after hundreds of test cycles.
"""


def test_a_fix_blaming_a_commit_for_failures_with_one_time_in_it_is_no_slowdown_fix():
    r = _report(
        *_thread("[PATCH 0/5] xfs: fix log cache flush regressions", "david@fromorbit.com", FLUSH_FIXES)
    )
    assert not r.is_regression_report


# linux-block, "[PATCH] block: fix revalidate performance regression" (Damien Le Moal,
# 2023-05-29, <20230529023836.1209558-1-dlemoal@kernel.org>): no figure in the log, the subject
# names the slowdown it fixes and the Fixes: tag its culprit
REVALIDATE_FIX = """\
This behavior significantly impact the time it takes to revalidate disks
on a large system as the call to disk_clear_zone_settings() done from
disk_set_zoned() for the BLK_ZONED_NONE case results in the device
request queued to be quiesced, even if there is no zone resource to
free.

Reported by: Brian Bunker <brian@purestorage.com>
Fixes: 508aebb80527 ("block: introduce blk_queue_clear_zone_settings()")
Cc: stable@vger.kernel.org
Signed-off-by: Damien Le Moal <dlemoal@kernel.org>
---
 block/blk-settings.c | 3 ++-
"""


def test_a_patch_whose_subject_fixes_a_performance_regression_is_a_report_with_its_fix():
    r = _report(
        *_thread("[PATCH] block: fix revalidate performance regression", "dlemoal@kernel.org", REVALIDATE_FIX)
    )
    assert r.is_regression_report and _rules(r)[0] == "fix-of-slowdown"
    assert r.status == "fix proposed"
    assert [c.sha for c in r.commits if c.role == "culprit"] == ["508aebb80527"]


def test_a_patchs_log_telling_of_an_old_revert_reverts_nothing():
    """The letter's "The commit was reverted in the end for other reasons" tells the culprit's
    history: the series is a fix proposed, and fixed when its maintainer applies it; a reply
    saying the culprit has been reverted still reverts it."""
    subject = "[PATCH 0/2 v3] blk-mq: Improve performance of non-mq IO schedulers with multiple HW queues"
    r = _report(*_thread(subject, "jack@suse.cz", SCHED_FIX))
    assert r.status == "fix proposed"
    r = _report(*_thread(subject, "jack@suse.cz", SCHED_FIX, ("axboe@kernel.dk", "Applied, thanks.\n")))
    assert r.status == "fixed"
    reply = ("axboe@kernel.dk", "The megaraid_sas change has been reverted upstream meanwhile.\n")
    assert _report(*_thread(subject, "jack@suse.cz", SCHED_FIX, reply)).status == "reverted"


@pytest.mark.parametrize(
    "said,status",
    [
        # Jens Axboe, linux-block: <12f43a71-713b-a74f-a169-b6ac3d804e50@kernel.dk> (2021-12) and
        # <ae882282-7a15-5746-0c54-ff3f5435c022@kernel.dk>
        (
            "Dexuan, can you test this for your test case too? I'm going to queue\nup a revert for -rc6 just in case.\n",
            "reverted",
        ),
        (
            "To be a bit proactive, I queued up a revert. Messing with it at this point is making me nervous.\n",
            "reverted",
        ),
        ("We'll queue the revert for the next rc.\n", "reverted"),
        # a question, and a revert tried
        ("Should I queue up a revert for -rc6, or do you have a fix?\n", "fix proposed"),
        ("I queued up the patch and a test run, the revert was not needed.\n", "fix proposed"),
    ],
)
def test_a_revert_the_maintainer_queues_reverts_the_culprit(said, status):
    subject = "[PATCH 0/2 v3] blk-mq: Improve performance of non-mq IO schedulers with multiple HW queues"
    assert _report(*_thread(subject, "jack@suse.cz", SCHED_FIX, ("axboe@kernel.dk", said))).status == status


# linux-xfs, "XFS mount timeout in linux-6.9.11" (Anders Blomdell, 2024-08-09,
# <71864473-f0f7-41c3-95f2-c78f6edcfab9@gmail.com>), trimmed: a report, then (written for the
# pattern) a patch in a developer's reply and word that it was taken, as stable's maintainer said
# it in that thread: "It's in the 6.10.y queue now"
MOUNT_SLOW = """\
With a filesystem that contains a very large amount of hardlinks
the time to mount the filesystem skyrockets to around 15 minutes
on 6.9.11-200.fc40.x86_64 as compared to around 1 second on
6.8.10-300.fc40.x86_64, this of course makes booting drop
into emergency mode if the filesystem is in /etc/fstab.

  6.8.10-300.fc40.x86_64:

    # time mount /dev/vg1/test /test
    real	0m0.835s
"""
MOUNT_FIX = """\
Does this fix it?

diff --git a/fs/xfs/xfs_log_recover.c b/fs/xfs/xfs_log_recover.c
--- a/fs/xfs/xfs_log_recover.c
+++ b/fs/xfs/xfs_log_recover.c
@@ -1,3 +1,3 @@
-	old
+	new
"""


def test_a_fix_posted_in_a_reply_and_taken_later_is_fixed():
    subject = "XFS mount timeout in linux-6.9.11"
    fix = ("david@fromorbit.com", MOUNT_FIX)
    assert _report(*_thread(subject, "a@x", MOUNT_SLOW, fix)).status == "fix proposed"
    taken = ("gregkh@linuxfoundation.org", "It's in the 6.10.y queue now.\n")
    assert _report(*_thread(subject, "a@x", MOUNT_SLOW, fix, taken)).status == "fixed"
    # taken before any patch was posted: not this fix
    assert _report(*_thread(subject, "a@x", MOUNT_SLOW, taken, fix)).status == "fix proposed"


# linux-block, "disk removal slowdown due to rcu_barrier" (Mikulas Patocka, 2024-06-06,
# <b3c96411-dea-16ed-85fc-a33f842594@redhat.com>), trimmed: a run on each of two releases
RCU_BARRIER = """\
The patch dd291d77cc90eb6a86e9860ba8e6e38eebd57d12 (block: Introduce zone
write plugging) causes a performance regression when removing block
devices.

The kernel 6.9 removes a DM block device in 73ms. The kernel 6.10-rc in
103ms.
"""


def test_runs_on_the_older_and_newer_of_two_releases_size_the_regression():
    r = _report(*_thread("disk removal slowdown due to rcu_barrier", "mpatocka@redhat.com", RCU_BARRIER))
    assert r.is_regression_report and r.regression_pct == 41.1
    # the newer the faster: the size of no regression
    faster = RCU_BARRIER.replace("73ms", "1073ms")
    assert (
        _report(*_thread("disk removal and rcu_barrier", "mpatocka@redhat.com", faster)).regression_pct
        is None
    )


def test_a_patch_to_try_that_did_not_help_proposes_no_fix():
    """linux-xfs, "performance regression between 6.1.x and 5.15.x" (2023-05): a developer's
    experimental patch, then the reporter: "no fio write bandwidth improvement"."""
    subject = "XFS mount timeout in linux-6.9.11"
    fix = ("willy@infradead.org", MOUNT_FIX)
    assert _report(*_thread(subject, "a@x", MOUNT_SLOW, fix)).status == "fix proposed"
    for said in ("With the patch, no fio write bandwidth improvement.\n", "Sorry, it doesn't help at all.\n"):
        r = _report(*_thread(subject, "a@x", MOUNT_SLOW, fix, ("a@x", said)))
        assert r.status == "reported", said


# linux-ext4, "Re: [PATCH] ext4/jbd2: drop jbd2_transaction_committed()" (kernel test robot,
# 2024-05-27, <202405271406.9b9763f6-oliver.sang@intel.com>): the robot bisects gains too
ROBOT_GAIN = """\
Hello,

kernel test robot noticed a 674.0% improvement of stress-ng.fiemap.ops_per_sec on:


commit: 8a7952dd64b38f3ac2754ca550b52ac3ca921c1a ("[PATCH] ext4/jbd2: drop jbd2_transaction_committed()")
url: https://github.com/intel-lab-lkp/linux/commits/Zhang-Yi/ext4-jbd2-drop-jbd2_transaction_committed/20240513-153311
base: https://git.kernel.org/cgit/linux/kernel/git/tytso/ext4.git dev
patch link: https://lore.kernel.org/all/20240513072119.2335346-1-yi.zhang@huaweicloud.com/
patch subject: [PATCH] ext4/jbd2: drop jbd2_transaction_committed()

testcase: stress-ng
test machine: 64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz (Ice Lake) with 256G memory
parameters:

\tnr_threads: 100%
\tdisk: 1HDD
\ttesttime: 60s
\tfs: ext4
\ttest: fiemap
\tcpufreq_governor: performance

commit:
  26770a717c ("jbd2: add prefix 'jbd2' for 'shrink_type'")
  8a7952dd64 ("ext4/jbd2: drop jbd2_transaction_committed()")

26770a717cac5704 8a7952dd64b38f3ac2754ca550b
---------------- ---------------------------
         %stddev     %change         %stddev
   7612782 \u00b1  7%    +676.3%   59099460 \u00b1  6%  stress-ng.fiemap.ops
    124734 \u00b1  8%    +674.0%     965466 \u00b1  6%  stress-ng.fiemap.ops_per_sec
"""


def test_a_robot_bisecting_a_gain_in_a_patch_thread_reports_no_regression():
    r = _report(
        *_thread(
            "[PATCH] ext4/jbd2: drop jbd2_transaction_committed()",
            "yi.zhang@huaweicloud.com",
            "jbd2_transaction_committed() is used to check whether a transaction\\nis committed.\\n",
            ("oliver.sang@intel.com", ROBOT_GAIN),
        )
    )
    assert not r.is_regression_report


# linux-xfs, "[PATCH 5.15 v2 0/4] xfs stable candidates for 5.15.y (part 2)" (Leah Rumancik,
# 2022-07-14, <20220714222342.4013916-1-leah.rumancik@gmail.com>) and its patch 4/4
# (<20220714222342.4013916-5-leah.rumancik@gmail.com>): a stable backport carries the fix's log
STABLE_COVER = "Hello again,\n\nThis is a 5.15.y only set of xfs fixes. They have been tested and Ack'd.\n"
STABLE_PATCH = """\
From: Dave Chinner <dchinner@redhat.com>

[ Upstream commit 919edbadebe17a67193533f531c2920c03e40fa4 ]

Jan Kara reported a performance regression in dbench that he
bisected down to commit bad77c375e8d ("xfs: CIL checkpoint
flushes caches unconditionally").

Whilst developing the journal flush/fua optimisations this cache was
part of, it appeared to made a significant difference to
performance.
---
 fs/xfs/xfs_log_cil.c | 42 +++++++++--------------------
"""


def test_a_stable_candidate_series_carries_a_fix_and_reports_nothing():
    for subject in (
        "[PATCH 5.15 v2 0/4] xfs stable candidates for 5.15.y (part 2)",
        "[PATCH 5.15 CANDIDATE 0/4] xfs stable candidates for 5.15.y (part 2)",
    ):
        r = _report(
            *_thread(
                subject, "leah.rumancik@gmail.com", STABLE_COVER, ("leah.rumancik@gmail.com", STABLE_PATCH)
            )
        )
        assert not r.is_regression_report and _rules(r)[0] == "backport", subject


# linux-block, "[PATCH 0/2 v2] blk-mq: Improve performance of non-mq IO schedulers with multiple
# HW queues" (Jan Kara, 2021-01-06, <20210106102428.551-1-jack@suse.cz>): the subject names the
# speed, the letter the regression it fixes
SCHED_FIX = """\
Hello!

This patch series aims to fix a regression we've noticed on our test grid when
support for multiple HW queues in megaraid_sas driver was added during the 5.10
cycle (103fbf8e4020 scsi: megaraid_sas: Added support for shared host tagset
for cpuhotplug). The commit was reverted in the end for other reasons but I
believe the fundamental problem still exists for any other similar setup.
"""


def test_a_series_about_speed_fixing_a_regression_is_a_report():
    r = _report(
        *_thread(
            "[PATCH 0/2 v2] blk-mq: Improve performance of non-mq IO schedulers with multiple HW queues",
            "jack@suse.cz",
            SCHED_FIX,
        )
    )
    assert r.is_regression_report and _rules(r)[0] == "fix-of-slowdown"


# linux-block, "[PATCH] block: move iostat check into blk_acount_io_start()" (Jens Axboe,
# 2024-10-02, <550fc8a0-3461-49ac-879e-32908870f007@kernel.dk>) and the kernel test robot's reply
# (2024-10-06, <202410062110.512391df-oliver.sang@intel.com>), trimmed: a test that failed, with
# the time it ran; the commit the robot names was found by its failure, not by a slowdown
IOSTAT_PATCH = """\
Rather than have blk_do_io_stat() check for both RQF_IO_STAT and whether
the request is a passthrough requests every time, move both of those
checks into blk_account_io_start().

Signed-off-by: Jens Axboe <axboe@kernel.dk>

---
diff --git a/block/blk-mq.c b/block/blk-mq.c
--- a/block/blk-mq.c
+++ b/block/blk-mq.c
@@ -359,8 +359,6 @@ static struct request *blk_mq_rq_ctx_init(struct blk_mq_alloc_data *data,
-	if (blk_queue_io_stat(q))
-		data->rq_flags |= RQF_IO_STAT;
"""
ROBOT_BLKTESTS_FAIL = """\
Hello,

kernel test robot noticed "blktests.block/024.fail" on:

commit: 5b0b8be85f1ca1c11566890f5d4564ee97cf2d41 ("[PATCH] block: move iostat check into blk_acount_io_start()")
url: https://github.com/intel-lab-lkp/linux/commits/Jens-Axboe/block-move-iostat-check-into-blk_acount_io_start/20241003-032648
base: https://git.kernel.org/cgit/linux/kernel/git/axboe/linux-block.git for-next

in testcase: blktests
with following parameters:

	disk: 1HDD
	test: block-024

If you fix the issue in a separate patch/commit (i.e. not just a new version of
the same patch/commit), kindly add following tags
| Reported-by: kernel test robot <oliver.sang@intel.com>

block/024 (do I/O faster than a jiffy and check iostats times) [failed]
    runtime    ...  2.673s
    --- tests/block/024.out	2024-09-10 23:15:59.000000000 +0000
    -read 1 s
    +read 70000 s
"""


def test_a_robot_reporting_a_failed_test_in_a_patch_thread_reports_no_regression():
    r = _report(
        *_thread(
            "[PATCH] block: move iostat check into blk_acount_io_start()",
            "axboe@kernel.dk",
            IOSTAT_PATCH,
            ("oliver.sang@intel.com", ROBOT_BLKTESTS_FAIL),
        )
    )
    assert not r.is_regression_report
    assert "bisected-measurement" not in _rules(r)


def test_the_robots_older_failure_form_names_no_change_of_a_metric():
    # linux-xfs, "[xfs]  141cfc276a: xfstests.xfs.296.fail" (2021-03): "FYI, we noticed the
    # following commit" and no metric's change
    older = ROBOT_BLKTESTS_FAIL.replace(
        'kernel test robot noticed "blktests.block/024.fail" on:',
        "FYI, we noticed the following commit (built with gcc-9):",
    )
    r = _report(
        *_thread(
            "[PATCH] block: move iostat check", "axboe@kernel.dk", IOSTAT_PATCH, ("lkp@intel.com", older)
        )
    )
    assert not r.is_regression_report


def test_a_robot_reporting_a_metrics_change_in_a_patch_thread_still_reports_it():
    perf = ROBOT_BLKTESTS_FAIL.replace(
        'kernel test robot noticed "blktests.block/024.fail" on:',
        "kernel test robot noticed a -21.4% regression of fio.read_iops on:",
    ).replace(
        "block/024 (do I/O", "    410k           -21.4%     322k        fio.read_iops\nblock/024 (do I/O"
    )
    r = _report(
        *_thread("[PATCH] block: move iostat check", "axboe@kernel.dk", IOSTAT_PATCH, ("lkp@intel.com", perf))
    )
    assert r.is_regression_report
    assert _rules(r)[0] == "bisected-measurement"


# linux-xfs, the kernel test robot's reply to "[PATCH] xfs: account extra freespace btree splits for
# multiple allocations" (2022-11-22, <202211220854.48dad6fd-oliver.sang@intel.com>), trimmed (no
# comparison table): the robot's report of a metric's change on a posted patch is one, the week
# it is posted or later
ROBOT_FXMARK = """\
please be noted we noticed Gao Xiang and Dave Chinner have already had lots of
discussion around this patch, which seems there is maybe new version later.
we just sent out this report FYI the possible performance impact of this patch.

Greeting,

FYI, we noticed a -15.1% regression of fxmark.ssd_xfs_MWCM_72_directio.works/sec due to commit:

commit: ada76f94c5b32c1828955d70f692b111a9ec2d33 ("[PATCH] xfs: account extra freespace btree splits for multiple allocations")
url: https://github.com/intel-lab-lkp/linux/commits/Gao-Xiang/xfs-account-extra-freespace-btree-splits-for-multiple-allocations/20221109-114953
"""


def test_the_robots_change_of_a_metric_on_a_posted_patch_reports_it_the_same_week():
    r = _report(
        *_thread(
            "[PATCH] xfs: account extra freespace btree splits for multiple allocations",
            "hsiangkao@linux.alibaba.com",
            PATCH,
            ("oliver.sang@intel.com", ROBOT_FXMARK),
        )
    )
    assert r.is_regression_report


# linux-block, "Data corruption in kernel 5.1+ with iSER attached ramdisk" (Stephen Rust,
# 2019-11-27, as Ming Lei's reply <20191128015748.GA3277@ming.t460p> quotes it) and Sagi
# Grimberg's reply (2020-03-25, <d2f633f1-57ef-4618-c3a6-c5ff0afead5b@grimberg.me>), trimmed: the
# cost of a workaround, said in a reply, makes no corruption a slowdown
ISER_CORRUPTION = """\
We recently began testing 5.4 in preparation for migration from 4.14. One
of our tests found reproducible data corruption in 5.x kernels. The test
consists of a few basic single-issue writes to an iSER attached ramdisk.
The writes are subsequently verified with single-issue reads. We tracked
the corruption down using git bisect. The issue appears to have started in
5.1 with the following commit:

3d75ca0adef4280650c6690a0c4702a74a6f3c95 block: introduce multi-page bvec
helpers
"""
ISER_WORKAROUND_COST = """\
Sorry for the late reply, lost track of this.

> We have a couple of followups as well:
>
> - We are seeing a 5-10% performance degradation when using ImmediateData=No for our workloads. That is to say, having this issue fixed is important to us.

Can you try attached patch and see if it solves your issue?
"""


def test_a_workarounds_cost_in_a_reply_makes_no_corruption_a_slowdown():
    r = _report(
        *_thread(
            "Data corruption in kernel 5.1+ with iSER attached ramdisk",
            "srust@blockbridge.com",
            ISER_CORRUPTION,
            ("sagi@grimberg.me", ISER_WORKAROUND_COST),
        )
    )
    assert not r.is_regression_report
    assert _rules(r)[0] == "functional"


def test_the_reporters_own_sized_slowdown_is_no_functional_failure():
    own = ISER_CORRUPTION.replace(
        "found reproducible data corruption in 5.x kernels.",
        "found a reproducible 10% slowdown of writes in 5.x kernels, and the\nwrites fail.",
    )
    r = _report(*_thread("Writes fail and slow down in kernel 5.1+", "srust@blockbridge.com", own))
    assert "functional" not in _rules(r)


# linux-block, "uring regression - lost write request" (Daniel Black, 2021-11): a request lost is a failure
def test_a_lost_request_is_a_failure():
    from lkmlkb.reports.classify import FAILURE

    assert FAILURE.search("uring regression - lost write request")
    assert not FAILURE.search("we lost 20% of our write throughput")


# linux-block, "[PATCH v8 00/24] Provide a new two step DMA mapping API" (Leon Romanovsky,
# 2025-04-18, <cover.1744825142.git.leon@kernel.org>), trimmed: the series' changelog says why an
# earlier version of it was held back; the series is no report of a kernel's regression
DMA_COVER = """\
Following recent on site LSF/MM 2025 [1] discussion, the overall
response was extremely positive with many people expressed their
desire to see this series merged, so they can base their work on it.

The whole series together with two extra patches (to fix broken -rc1) is
here https://git.kernel.org/pub/scm/linux/kernel/git/leon/linux-rdma.git dma-split-Apr-8
-----------------------------------------------------------------------
Changelog:
v8:
 * Rebased to v6.15-rc1
 * Added NVMe patches which are now patches and not RFC. They were in
   RFC stage because block iterator caused to performance regression
   for very extreme case scenario (~100M IOPS), but after Kanchan fixed
   it, the code started to be ready for merging.
v7:
 * Rebased to v6.14-rc1
v6: https://lore.kernel.org/all/cover.1737106761.git.leon@kernel.org
 * Changed internal __size variable to u64 to properly set private flag
   in most significant bit.

Thanks
"""


def test_a_series_changelog_holds_the_lines_under_its_version_headings():
    from lkmlkb.reports.classify import series_changelog_lines

    lines = DMA_COVER.split("\n")
    got = series_changelog_lines(DMA_COVER)
    assert {lines[n] for n in got} >= {
        "Changelog:",
        "v8:",
        "   RFC stage because block iterator caused to performance regression",
        "v6: https://lore.kernel.org/all/cover.1737106761.git.leon@kernel.org",
        "   in most significant bit.",
    }
    assert not {lines[n] for n in got} & {
        "Thanks",
        "desire to see this series merged, so they can base their work on it.",
    }


def test_what_a_series_changelog_says_of_its_earlier_versions_is_no_report():
    r = _report(
        *_thread("[PATCH v8 00/24] Provide a new two step DMA mapping API", "leon@kernel.org", DMA_COVER)
    )
    assert not r.is_regression_report


def test_the_same_words_in_a_reports_prose_are_one():
    prose = "Since 6.15-rc1 the block iterator caused a 12% performance regression\nfor 4k random reads on our box.\n"
    r = _report(*_thread("block iterator slows 4k reads", "someone@example.com", prose))
    assert r.is_regression_report


# linux-btrfs, "[PATCH 00/18] btrfs: simple quotas" (Boris Burkov, 2023-07-05,
# <cover.1688597211.git.boris@bur.io>), trimmed: a feature series measured against its baseline
# calls its own costs regressions; no kernel regressed
SQUOTA_COVER = """\
qgroup test results
unshare results
          metric              baseline       current        stdev            diff
========================================================================================
avg_commit_ms                     162.13        285.75          3.14     76.24%
write_bw_bytes                 653008.80     486344.40       4209.91    -25.52%
write_iops                        159.43        118.74          1.03    -25.52%

Particularly noteworthy are the massive regressions to
wait_current_trans in qgroup mode as well as the solid regressions to
bandwidth, iops and write latency. The regressions/improvements in
squotas are modest in comparison in line with the expectation.
"""
# linux-btrfs, "[PATCH 0/9] Improve preemptive ENOSPC flushing" (Josef Bacik, 2020-09-30,
# <cover.1601495426.git.josef@toxicpanda.com>), trimmed: a regression a bisection found, fixed
ENOSPC_COVER = """\
A while ago Nikolay started digging into a problem where they were seeing an
around 20% regression on random writes, and he bisected it down to

  btrfs: don't end the transaction for delayed refs in throttle

However this wasn't actually the cause of the problem.
"""


def test_a_series_calling_its_own_costs_regressions_reports_none():
    r = _report(*_thread("[PATCH 00/18] btrfs: simple quotas", "boris@bur.io", SQUOTA_COVER))
    assert not r.is_regression_report
    assert "patch-own-numbers" in _rules(r)


def test_a_series_fixing_a_bisected_regression_reports_it():
    r = _report(
        *_thread("[PATCH 0/9] Improve preemptive ENOSPC flushing", "josef@toxicpanda.com", ENOSPC_COVER)
    )
    assert r.is_regression_report


def test_a_series_fixing_a_regression_between_releases_reports_it():
    text = SQUOTA_COVER.replace("in qgroup mode", "since 6.4 compared to 6.3")
    r = _report(*_thread("[PATCH 00/18] btrfs: faster quotas", "boris@bur.io", text))
    assert r.is_regression_report


# linux-btrfs, "[PATCH 0/2] btrfs-progs: mkfs: optimize the discard behavior so it won't drive me
# crazy" (Qu Wenruo, 2026-01-09, <cover.1767936141.git.wqu@suse.com>), trimmed: a userspace
# tool's slowdown, fixed in the tool, is no kernel's regression
MKFS_COVER = """\
After commit 4b861c186592 ("btrfs-progs: mkfs: discard free space"),
mkfs.btrfs inside my VM is much slower.

Previously it takes only around 0.015s, now it takes over 0.750s, which
is around 50x regression, and that's already when that virtio-blk device
is already ignoring discard commands.
"""


def test_a_userspace_projects_slowdown_is_no_kernel_regression():
    subject = "[PATCH 0/2] btrfs-progs: mkfs: optimize the discard behavior so it won't drive me crazy"
    r = _report(*_thread(subject, "wqu@suse.com", MKFS_COVER))
    assert not r.is_regression_report
    assert _rules(r)[0] == "userspace-project"


def test_the_same_slowdown_in_a_kernel_patch_is_one():
    subject = "[PATCH 0/2] btrfs: discard: optimize the discard behavior"
    text = MKFS_COVER.replace("btrfs-progs: mkfs: discard free space", "btrfs: discard free space at mount")
    r = _report(*_thread(subject, "wqu@suse.com", text))
    assert r.is_regression_report


@pytest.mark.parametrize(
    "subject,out_of_the_kernel",
    [
        # linux-btrfs, "[PATCH] btrfs: add a test case to verify scrub speed throttle works" (2023-03)
        ("[PATCH] btrfs: add a test case to verify scrub speed throttle works", True),
        ("[PATCH v2] generic/751: fix the flaky run", True),
        ("Re: [PATCH blktests v2] nvme: test the queue depth", True),
        ("[PATCH] btrfs: fix a scrub performance regression", False),
        # userspace projects named as their own kind: "-utils", "-tools", "-progs"
        # linux-erofs, "[PATCH] erofs-utils: mkfs: fix `-Efragments` performance regression" (2026-02)
        ("[PATCH] erofs-utils: mkfs: fix `-Efragments` performance regression", True),
        # dm-devel, "[PATCH] multipath-tools: ..."; linux-cifs, "[PATCH 0/1][cifs-utils] Regression: ..."
        ("[PATCH 3/7] multipath-tools: speed up path checking", True),
        ("[PATCH 0/1][cifs-utils] Regression: cifs.upcall can't find credential caches", True),
        ("Re: [PATCH v2] f2fs-tools: fsck: fix a slowdown", True),
        ("[PATCH nfs-utils] mountd: fix a performance regression", True),
        ("[PATCH] sg3_utils: sg_dd: faster", True),
        # nvdimm, "[ndctl PATCH] test/fwctl: Add Get Feature OOB rejection regression test" (2026-06)
        ("[ndctl PATCH] test/fwctl: Add Get Feature OOB rejection regression test", True),
        ("[PATCH man-pages] io_uring_setup.2: document a flag", True),
        # a kernel regression seen with a tool, or a kernel library, stays in the kernel
        ("[regression] ndctl destroy-namespace operation hang from 5.15.0-rc6", False),
        ("[PATCH] libata: fix a performance regression of NCQ", False),
        ("[PATCH] tools/testing: speed up a selftest", False),
        ("[PATCH] perf tools: fix a slowdown", False),
    ],
)
def test_a_test_added_to_a_test_suite_or_a_userspace_patch_is_no_kernel_regression(
    subject, out_of_the_kernel
):
    from lkmlkb.reports.classify import ThreadFacts, userspace_project

    t = ThreadFacts(
        messages=_thread(subject, "x@y", "text\n"),
        claims=[],
        subject_claims=[],
        commits=[],
        own_commits=[],
        kernels=[],
        results=[],
    )
    assert (userspace_project(t) is not None) is out_of_the_kernel


# linux-btrfs, "[BUG] 500-2000% performance regression w/ 5.10" (René Rebe, 2020-12-14,
# <B4BB2DCB-C438-4871-9DDD-D6FB0E6E4F1B@exactcode.de>) and a reply in the thread (2020-12), trimmed:
# the report sizes its regression; a reply's figure about a fix's test does not
TARBALL_REPORT = """\
as a long time btrfs user I noticed some some things became very slow
w/ Linux kernel 5.10. I found a very simple test case, namely extracting
a huge tarball like:

To rule out USB, I also tested a brand new PCIe 4.0 SSD, with
a similar, albeit not as shocking regression from 5.2 seconds
to ~34 seconds or~650%.

# first bad commit: [38d715f494f2f1dddbf3d0c6e50aefff49519232]
  btrfs: use btrfs_start_delalloc_roots in shrink_delalloc
"""
TARBALL_REPLY = "Sorry for any confusion, I meant 50% better than the bisected regression as found.\n"


def test_the_reports_own_size_beats_a_replys_figure():
    r = _report(
        *_thread(
            "[BUG] 500-2000% performance regression w/ 5.10",
            "rene@exactcode.de",
            TARBALL_REPORT,
            ("rene@exactcode.de", TARBALL_REPLY),
        )
    )
    assert r.is_regression_report
    assert r.regression_pct is not None and 500 <= r.regression_pct <= 2000


# linux-block, "Re: NVME performance regression in Linux 5.x due to lack of block level IO
# queueing" (Michael Marod, 2022-03-31, <C06B8EF0-BF3B-4F14-994F-F80B5102D538@michaelmarod.com>,
# quoting his first mail) and his reply (<4034AD9F-2A6A-4AE6-B5FC-58FC2BC238F5@michaelmarod.com>),
# trimmed: a newer kernel better in one respect is no gain of a thread that reports a regression
NVME_QUEUEING = """\
>> It has been noticed in an AWS Cloud environment that the IO performance on an Ubuntu Bionic 18.04 i3 instance with Linux 5.4.0 is significantly worse than that of an Ubuntu Xenial 16.04 i3 instance with Linux 4.4.0.
"""
NVME_BETTER_LATER = """\
With regards to the performance between 4.4.0 and 5.17, for a single thread, 4.4.0 still had better performance over 5.17. However, the 5.17 kernel was significantly better at multiple threads. In fact, it is so much better I don't believe the results (10x improvement!).
"""


def test_a_later_kernels_gain_in_a_reply_makes_no_regression_report_a_gain():
    subject = "NVME performance regression in Linux 5.x due to lack of block level IO queueing"
    r = _report(
        *_thread(
            subject,
            "michael@michaelmarod.com",
            NVME_QUEUEING,
            ("michael@michaelmarod.com", NVME_BETTER_LATER),
        )
    )
    assert "improvement" not in _rules(r)
    # the slowdown is said between two kernels in one line, without a figure
    assert r.is_regression_report and _rules(r)[:2] == ["measured-slowdown", "kernel-change"]


# linux-btrfs and linux-block, "6.2 series regression, transient stalls during write intensive
# workloads" (Chris Murphy, 2023-05-11, <715c18c5-ee46-41e1-a115-203c88335e50@app.fastmail.com>),
# trimmed: a regression of stalls named, with no figure, and the kernel it does not happen on
STALLS_REPORT = """\
kernel 6.2.14-300.fc38.x86_64

Summary: User with LSI MegaRAID SAS 2108 in raid5 with Btrfs is reporting transient (but reproducible) stalls about 10s at a time, during which time the system UI is unresponsive both CLI and GUI. PSI reports no memory or CPU pressure, but light IO pressure ~10%. The problem does not occur with kernel 6.1.18.
"""


def test_a_regression_of_stalls_named_with_the_kernel_it_began_on_is_a_report():
    subject = "6.2 series regression, transient stalls during write intensive workloads"
    r = _report(*_thread(subject, "lists@colorremedies.com", STALLS_REPORT))
    assert r.is_regression_report
    assert _rules(r) == ["named-slowdown"]


def test_a_slowness_asked_about_is_no_named_regression():
    # the subject says "slow", not "regression": a question about a slowness as often as a report
    text = STALLS_REPORT + "The slowdowns are the worst part of it.\n"  # read: its words pass the prefilter
    r = _report(*_thread("6.2 series, transient stalls during write intensive workloads", "x@y", text))
    assert not r.is_regression_report


def test_an_rcu_stall_is_a_failure():
    text = STALLS_REPORT.replace("transient (but reproducible) stalls about 10s at a time", "an rcu stall")
    r = _report(*_thread("6.2 regression: rcu_sched self-detected stall on CPU", "x@y", text))
    assert not r.is_regression_report


# linux-ext4, "probable quota bug introduced in 6.6-rc1" (Eric Whitney, 2023-10-04,
# <ZRytn6CxFK2oECUt@debian-BULLSEYE-live-builder-AMD64>), trimmed: a bug the subject names, its
# test's run time and hung tasks the symptoms, is a failure even bisected
QUOTA_BUG = """\
When run on my test hardware, generic/270 triggers hung task timeouts when
run on a 6.6-rc1 (or -rc2, -rc3, -rc4) kernel with kvm-xfstests using the
nojournal test scenario.  The test always passes, but about 60% of the time
the running time of the test increases by an order of magnitude or more and
one or more of the hung task timeout warnings included below can be found in
the log.

This does not reproduce on 6.5.  Bisection leads to this patch:

dabc8b207566 ("quota: fix dqput() to follow the guarantees dquot_srcu should
provide")

generic/270 306s ...  [20:08:45][  311.322318] run fstests generic/270 at 2023-10-03 20:08:45
"""


def test_a_bug_the_subject_names_is_a_failure():
    r = _report(*_thread("probable quota bug introduced in 6.6-rc1", "enwlinux@gmail.com", QUOTA_BUG))
    assert not r.is_regression_report and _rules(r)[0] == "functional"
    assert r.reasons[0].text.startswith("Subject: ")  # the subject says it, whatever the body holds


# linux-block, "[regression] very inaccurate %util of iostat" (Ming Lei, 2020-03-24,
# <20200324031942.GA3060@ming.t460p>), trimmed: iostat's figures, a wrong statistic, no slowdown
IOSTAT_UTIL = """\
Since commit 5b18b5a73760 ("block: delete part_round_stats and switch to less
precise counting"), %util reported by iostat has become very inaccurate.

Device            r/s     w/s     rkB/s     wkB/s   rrqm/s   wrqm/s  %util
nvme0n1        100.00    0.00    400.00      0.00     0.00     0.00  20.60
"""


def test_a_statistic_gone_inaccurate_is_a_failure_not_a_slowdown():
    r = _report(*_thread("[regression] very inaccurate %util of iostat", "ming.lei@redhat.com", IOSTAT_UTIL))
    assert not r.is_regression_report and _rules(r)[0] == "functional"
    # a speed named in the subject keeps a slowdown one
    slow = "[regression] inaccurate queue depth halves write throughput"
    assert _rules(_report(*_thread(slow, "ming.lei@redhat.com", IOSTAT_UTIL)))[0] != "functional"


def test_a_bugzilla_number_or_a_bug_tag_names_no_failure():
    from lkmlkb.reports.classify import FAILURE

    for subject in (
        "[Bug 217965] New: ext4(?) regression since 6.5.0",
        "[bug-report] Performance regression",
    ):
        assert not FAILURE.search(subject)


@pytest.mark.parametrize(
    "line,failure",
    [
        # dm-devel, "Re: [REGRESSION] dm_crypt essiv ciphers do not use async driver mv-aes-cbc anymore"
        # (Eric Biggers, 2023-09-29, <20230929224327.GA11839@google.com>): a slowdown's culprit
        # explained; what the commit is for says nothing of a failure
        ("I understand that the dm-crypt developers did this as an intentional bug fix in", False),
        ("Commit abc was a bug fix, but it costs us 20% on random reads", False),
        # a report of a bug is said of any report, a slowdown's too
        ("I filed a bug report with the numbers above.", False),
        ("There are two other bug reports about this slowdown.", False),
        ("I hit a bug when mounting the image", True),
        ("This bug shows up only with mq-deadline", True),
    ],
)
def test_a_bug_fix_is_no_failure(line, failure):
    from lkmlkb.reports.classify import FAILURE

    assert bool(FAILURE.search(line)) is failure


@pytest.mark.parametrize(
    "line,changes",
    [
        # linux-btrfs, Zygo Blaxell, "Re: Unexpected reflink/subvol snapshot behaviour" (2021-01-29,
        # <20210129232550.GA32440@hungrycats.org>): a file system's commits and a mount option
        ("is achieved.  After each commit is finished, the log tree is discarded.", False),
        ("If you mount with -o commit=999999999 (or some sufficiently large value)", False),
        ("The slowdown appears before the transaction commit.", False),
        # the kernel's commits and patches
        ("After this commit the random write speed dropped.", True),
        ("It is fast again after reverting the offending commit.", True),
        ("with the patch applied reads take twice as long", True),
        # advice to try a kernel changes none (linux-bcache, "Bcache in writes direct with fsync.
        # Are IOPS limited?", 2022: "try a new kernel and see if that helps"); a kernel moved to does
        ("Since you are on 4.19, try a new kernel and see if that helps.", False),
        ("You could try newer kernels, the code changed a lot.", False),
        ("The same fio job is much slower on newer kernels.", True),
        ("Older kernels were fine with this workload.", True),
        # a tree as it is (linux-block, "Sighting:  io_uring requests on unexpected core", 2020-04)
        (
            "I can replicate this on the baseline of nvme-5.5-rc or nvme-5.7-rc1 branches of the infradead repository, with no other patches applied.",
            False,
        ),
        ("The numbers are from a kernel without any patches on top.", False),
        ("Without this patch the numbers come back.", True),
    ],
)
def test_a_change_of_the_kernel_in_words_is_no_file_systems_commit(line, changes):
    from lkmlkb.reports.classify import KERNEL_CHANGE_WORDS

    assert bool(KERNEL_CHANGE_WORDS.search(line)) is changes


def test_the_reports_range_beats_a_replys_point_figure():
    # the same pattern in a report's body: its range, not a reply's point figure, sizes it
    report = "Since 6.7, untarring the kernel tree is 20-40% slower on our build hosts.\n"
    r = _report(
        *_thread(
            "untar regression in 6.7", "someone@example.com", report, ("other@example.com", TARBALL_REPLY)
        )
    )
    assert r.is_regression_report and r.regression_pct == 40.0


def test_a_delay_named_as_a_regression_with_the_release_it_began_on_is_a_report():
    # linux-block, "Weird delay introduced in v6.16-rc only, possible regression" (2025-06-29): a
    # boot delay between two devices, the release before it fine; trimmed and reworded
    text = (
        "The dmesg shows a delay of 10+ seconds between virtio blk and device-mapper when booting.\n"
        "The v6.15 kernel is totally fine without any delay, v6.16-rc3 has it every boot.\n"
    )
    r = _report(*_thread("Weird delay introduced in v6.16-rc only, possible regression", "x@y", text))
    assert r.is_regression_report and _rules(r)[0] == "named-slowdown"


def test_a_changelog_under_changes_since_is_the_series_history_too():
    from lkmlkb.reports.classify import series_changelog_lines

    cover = (
        "This series speeds up the allocator.\n\n"
        "Changes since v2:\n"
        "- fixed a 12% regression in randwrite that v2 had\n"
        "- rebased\n\n"
        "Signed-off-by: A Developer <a@example.com>\n"
    )
    lines = cover.split("\n")
    assert {lines[n] for n in series_changelog_lines(cover)} == {
        "Changes since v2:",
        "- fixed a 12% regression in randwrite that v2 had",
        "- rebased",
        "",
    }
    r = _report(*_thread("[PATCH v3 0/4] mm: faster allocator", "a@example.com", cover))
    assert not r.is_regression_report


# dm-devel and linux-block, 'Re: Revert "dm: always call blk_queue_split() in dm_process_bio()"'
# (Mike Snitzer, 2020-09-10, <20200910142438.GA21919@redhat.com>), trimmed: the report reaches the
# lists only quoted, in pgbench's own words and output, with no unit word the prefilter knew
PGBENCH_QUOTED = """\
On Wed, Sep 09 2020 at  1:00pm -0400,
Vijayendra Suman <vijayendra.suman@oracle.com> wrote:

>    While Running pgbench tool with  5.4.17 kernel build
>
>    Following performance degrade is found out
>
>    buffer read/write metric : -17.2%
>
>    buffer
>    number of transactions actually processed: 840972
>    latency average = 24.013 ms
>
>    After revert of Commit
>    2892100bc85ae446088cebe0c00ba9b194c0ac9d ( Revert "dm: always call
>    blk_queue_split() in dm_process_bio()")
>
>    Performance is Counter measurement
>
>    buffer ->
>    number of transactions actually processed: 1135735
>    latency average = 17.799 ms

So I think we need to identify _why_ reverting this commit is causing
such a performance improvement.
"""


def test_a_benchmarks_slowdown_quoted_in_the_first_mail_is_a_report():
    r = _report(
        *_thread(
            'Re: [dm-devel] Revert "dm: always call blk_queue_split() in dm_process_bio()"',
            "s@r",
            PGBENCH_QUOTED,
        )
    )
    assert r.is_regression_report and _rules(r)[:2] == ["measured-slowdown", "kernel-change"]
    assert r.reasons[0].text.strip() == "Following performance degrade is found out"


# linux-f2fs-devel (cross-posted to linux-btrfs and linux-ext4), "Fix inode sem regression for
# nowait" (Goldwyn Rodrigues, 2019-09-11, <20190911164517.16130-1-rgoldwyn@suse.de>), trimmed: the
# regression is AIM7's, a benchmark, so one of speed; the series' patches carry Fixes: tags
AIM7_FIX = """\
This changes the way we acquire the inode semaphore when
the I/O is marked with IOCB_NOWAIT. The regression was discovered
in AIM7 and later by Andres in ext4.

Fixes: 728fbc0e10b7 ("ext4: nowait aio support")
Signed-off-by: Goldwyn Rodrigues <rgoldwyn@suse.com>
---
 fs/ext4/file.c | 17 +++++++++++------
"""


@pytest.mark.parametrize(
    "benchmark,report", [("AIM7", True), ("dbench", True), ("xfstests", False), ("testing", False)]
)
def test_a_fix_of_a_benchmarks_regression_is_a_report(benchmark, report):
    text = AIM7_FIX.replace("AIM7", benchmark)
    r = _report(*_thread("[PATCH 2/3] ext4: fix inode rwsem regression", "rgoldwyn@suse.de", text))
    assert r.is_regression_report is report
    if report:
        assert _rules(r)[0] == "fix-of-slowdown" and r.status == "fix proposed"


# linux-block, "commit 01e99aeca397 causes longer runtime of block/004" (Shinichiro Kawasaki,
# 2020-03-04, <20200304023842.gu37d4mzfbseiscw@shindev.dhcp.fujisawa.hgst.com>), trimmed: a test's
# run time before and after a commit, in words the prefilter knew none of
BLOCK004 = """\
I noticed that blktests block/004 takes longer runtime with 5.6-rc4 than
5.6-rc3, and found that the commit 01e99aeca397 ("blk-mq: insert passthrough
request into hctx->dispatch directly") triggers it.

Before the commit, block/004 took around 130 seconds. After the commit, it takes
around 300 seconds. I need to dig in further details to understand why the
commit makes the test case longer.
"""


def test_a_runs_time_before_and_after_a_commit_is_a_report():
    r = _report(
        *_thread(
            "commit 01e99aeca397 causes longer runtime of block/004", "shinichiro.kawasaki@wdc.com", BLOCK004
        )
    )
    assert r.is_regression_report
    assert [c.sha for c in r.commits if c.role == "culprit"] == ["01e99aeca397"]
    assert sorted((x.value, x.label) for x in r.results) == [(130.0, "baseline"), (300.0, "regressed")]


# dm-devel, "dm-zoned performance degradation after apply 75d66ffb48efb3 (...)" (Zhang Xiaoxu,
# 2019-10-26, <203cc4c8-b380-5b2f-c9e7-766b3f031c8c@huawei.com>) and Dmitry Fomichev's reply
# (<38d2a401ad8111ec0e6806f3e165916b18769d6d.camel@wdc.com>), trimmed: the subject says the
# degradation the first mail measures; a reply's guess that something "may degrade performance",
# beside its own timings, is not where the report is
DMZ_ROOT = """\
Hi all, when I 'mkfs.ext4' on the dmz device based on 10T smr disk,
it takes more than 10 hours after apply 75d66ffb48efb3 ("dm zoned:
properly handle backing device failure").

After delete the 'check_events' in 'dmz_bdev_is_dying', it just
take less than 12 mins.
"""
DMZ_REPLY = """\
The log below is a run in QEMU with 8 CPUs and it took 18.5 minutes to create the FS on a
14TB ATA drive. Doing the same thing on bare metal with 32 CPUs takes 10.5 minutes in my
environment.

My current guess is that sd driver may generate some TEST UNIT READY commands to check if
the drive is really online as a part of check_events() processing. But, in SCSI case, these
blocking TURs are issued to the drive and certainly may degrade performance.
"""


def test_the_subjects_degradation_is_read_before_a_replys_guess():
    r = _report(
        *_thread(
            '[dm-devel] dm-zoned performance degradation after apply 75d66ffb48efb3 ("dm zoned:, properly handle'
            ' backing device failure")',
            "zhangxiaoxu5@huawei.com",
            DMZ_ROOT,
            ("Dmitry.Fomichev@wdc.com", DMZ_REPLY),
        )
    )
    assert r.is_regression_report and _rules(r)[:2] == ["measured-slowdown", "kernel-change"]
    assert r.reasons[0].message_id == "root@x"


# linux-ext4, "[Bug 217965] New: ext4(?) regression since 6.5.0 on sata hdd" (bugzilla, 2023-10-02,
# <bug-217965-13602@https.bugzilla.kernel.org/>), trimmed: bugzilla's footer says "bug" of every mail
BUGZILLA_217965 = """\
Since kernel 6.5.x and 6.6-rc* I'm getting weird kworker flush activity when
building openwrt from sources.
kworker/u16:4+flush-8:16 uses 100% of one core for a while(5-15 minutes) even
after I canceling openwrt build. Also I have no such behavior with 6.4.x and
older kernels so it looks like regression to me.

--\x20
You may reply to this email to add a comment.

You are receiving this mail because:
You are watching the assignee of the bug.
"""


def test_a_signature_says_nothing_of_the_thread():
    from lkmlkb.reports.classify import _own_lines

    r = _report(
        *_thread("[Bug 217965] New: ext4(?) regression since 6.5.0 on sata hdd", "b@k", BUGZILLA_217965)
    )
    assert "functional" not in _rules(r)
    assert "assignee" not in _own_lines(BUGZILLA_217965)
    # a "--" over a long text is a rule, not a signature (linux-raid, "Raid0 performance regression")
    ruled = "we noticed a thirty percent drop\n--\n" + "".join(
        f"line {i} of the analysis\n" for i in range(20)
    )
    assert _own_lines(ruled) == ruled


# dm-devel, Faqiang Zhu, '[regression] a potential issue for bow_target after "dm: delay registering
# the gendisk" applied' (2022-02-21, <AM9PR04MB811322427E328C435FE9489FED3A9@AM9PR04MB8113.eurprd04.
# prod.outlook.com>), trimmed: the "delay" is the quoted commit's title, the issue a failed kobject_add
BOW_TARGET = """\
Recently when I use kernel5.15 with android, an issue related to bow_target
is found with below log:
[    8.935429][    T1] kobject_add_internal failed for bow (error: -2
parent: (null))
Compared to kernel5.10, then I found it's related to below patch.
"""


def test_a_quoted_commit_title_names_no_stall_of_the_thread():
    subject = '[dm-devel] [regression] a potential issue for bow_target after "dm: delay registering the gendisk" applied'
    r = _report(*_thread(subject, "faqiang.zhu@nxp.com", BOW_TARGET))
    assert not r.is_regression_report and _rules(r)[0] == "functional"


# linux-block / linux-btrfs, "Weird delay introduced in v6.16-rc only, possible regression"
# (2025-06, Qu Wenruo): the reporter finds his trimmed config to blame
DELAY = """\
Recently I'm hitting a weird delay when booting my VM with v6.16-rc kernels:
udevadm settle waits 120 seconds before the rootfs gets mounted, while
v6.15 boots in 5 seconds on the same VM.
"""


@pytest.mark.parametrize(
    "taken_back,retracted",
    [
        ("Sorry for the noise, and thankfully it's not a kernel regression.\n", True),
        # written for the pattern: other words of relief, a curly apostrophe, a bare statement
        ("Luckily, this is not a regression: my config lost CONFIG_FOO.\n", True),
        ("Found it: an old udev rule. So it\u2019s not a regression.\n", True),
        ("It was not a regression at all, v6.15 with the same config waits too.\n", True),
        # still a report: a guess about another's cause, and a regression named in another way
        ("I don't think it's not a regression of the block layer, but of udev\n", False),
        ("It's not a regression I can bisect quickly, the VM takes ages.\n", False),
    ],
)
def test_a_reporter_taking_the_report_back_retracts_it(taken_back, retracted):
    msgs = _thread(
        "Weird delay introduced in v6.16-rc only, possible regression",
        "wqu@suse.com",
        DELAY,
        ("wqu@suse.com", taken_back),
    )
    r = _report(*msgs)
    assert ("retracted" in _rules(r)) is retracted
    if retracted:
        assert not r.is_regression_report


def test_a_reporter_taking_the_report_back_on_a_page_without_addresses_retracts_it():
    """lkml.org prints "Name <>": the reporter is known by name."""
    msgs = _thread(
        "Weird delay introduced in v6.16-rc only, possible regression",
        "",
        DELAY,
        ("", "Sorry for the noise, and thankfully it's not a kernel regression.\n"),
    )
    for m in msgs:
        m.from_name = "Qu Wenruo"
    assert "retracted" in _rules(_report(*msgs))
    msgs[1].from_name = "Someone Else"  # another reader's opinion takes nothing back
    assert "retracted" not in _rules(_report(*msgs))


# linux-xfs, Rick Warner, "Huge reduction in write bandwidth with filesystem vs direct block device"
# (2021-01-25, <fdc3fca3-f6e9-d484-b0c5-9e7c8b71dfc4@microway.com>) and Dave Chinner's reply
# <20210125205856.GG4662@dread.disaster.area>, trimmed: a file system against the raw device under it
FS_VS_DEVICE = """\
We're working with NVME storage systems and are seeing a significant reduction in write speed
with an XFS filesystem vs direct access to the block device.

Using a 5 disk software RAID5, we're able to get ~16GB/s write speed direct to the device.  If
we put an XFS filesystem on the software RAID and run the same fio command we only get ~2.5GB/s
write speed.
"""
FS_VS_DEVICE_REPLY = """\
No evidence that there's a bug yet. You're not testing apples to apples.

What kernel? If it's older than 5.11, you may be hitting the problem fixed by
52262ee567ad ("sched/fair: Allow a per-CPU kthread waking a task to
stack on the same CPU, to fix XFS performance regression").
"""


@pytest.mark.parametrize(
    "subject",
    [
        "Huge reduction in write bandwidth with filesystem vs direct block device",
        # written for the pattern: two set-ups compared in the subject
        "RAID-10N2 vs RAID-1 - much slower writes",
        "io_uring versus libaio: 40% lower IOPS",
    ],
)
def test_a_subject_comparing_two_setups_reports_no_regression(subject):
    r = _report(
        *_thread(subject, "rick@microway.com", FS_VS_DEVICE, ("david@fromorbit.com", FS_VS_DEVICE_REPLY))
    )
    assert not r.is_regression_report
    assert _rules(r)[:2] == ["measured-slowdown", "config-comparison"]


@pytest.mark.parametrize(
    "subject,body",
    [
        # a side is a kernel, or a state of one
        ("write bandwidth on 5.10 vs 5.15", FS_VS_DEVICE),
        ("write bandwidth, old kernel vs new kernel", FS_VS_DEVICE),
        # the thread bisects the difference to a commit
        (
            "Huge reduction in write bandwidth with filesystem vs direct block device",
            FS_VS_DEVICE + "\nI bisected the drop on the filesystem to the writeback rework.\n",
        ),
    ],
)
def test_a_comparison_of_kernels_or_a_bisected_one_is_no_setup_comparison(subject, body):
    r = _report(*_thread(subject, "rick@microway.com", body, ("david@fromorbit.com", FS_VS_DEVICE_REPLY)))
    assert "config-comparison" not in _rules(r)


# linux-btrfs, Josef Bacik, "[REGRESSION] 5-10% increase in IO latencies with nohz balance patch"
# (2021-11-29, <YaUH5GFFoLiS4/3/@localhost.localdomain>) and his reply of 2022-02-18
# <Yg+8lsJw00qEWEza@localhost.localdomain>, trimmed: the regression tracker's command ends it
NOHZ = """\
I've been running fsperf on our overnight tests and the p99 write completion
latency on 5.16-rc1 is 5-10% worse than on 5.15, I bisected it to
2127d22509aec3a83dffb2a3c736df7ba747a7ce.
"""
NOHZ_INVALID = """\
Given this test is relatively bursty anyways and the fact that we can't
reproduce it internally, it's simply too noisy to get a handle on to
actually call it a problem.

#regzbot invalid: test too noisy and the results aren't clear cut.
"""
# Thorsten Leemhuis's reminder in the same thread: the command quoted as an example
REGZBOT_HOWTO = """\
If you think there are valid reasons to drop this regressions from the
tracking, let me know; you can do this directly or simply tell my
regression tracking bot yourself by sending a reply to this mail with a
paragraph containing a regzbot command like "#regzbot invalid: Some
explanation" (without the quotes).

#regzbot backburner: Culprit is hard to track down
"""


@pytest.mark.parametrize(
    "who,reply,retracted",
    [
        ("josef@toxicpanda.com", NOHZ_INVALID, True),
        # the tracker's keeper or a maintainer sends the command for the reporter
        (
            "regressions@leemhuis.info",
            "#regzbot invalid: it's not a regression and the bisection is invalid\n",
            True,
        ),
        (
            "regressions@leemhuis.info",
            "#regzbot invalid: not a regression, the old kernel was misconfigured\n",
            True,
        ),
        # the tracking dropped, the slowdown kept: a default changed on purpose (linux-ext4, 2022-09,
        # "significant drop  fio IOPS performance on v5.10"), a reporter content with it
        (
            "tytso@mit.edu",
            "#regzbot invalid: caused by a change of defaults that (among others) was\nmade to improve other workloads\n",
            False,
        ),
        (
            "regressions@leemhuis.info",
            "#regzbot invalid: seems reporter is okay with the changed behavior\n",
            False,
        ),
        # the tracking resolved for the same reasons: Thorsten Leemhuis on linux-hyperv (2023-06,
        # "nvsp_rndis_pkt_complete error status ... on 6.4.0rc4") and on linux-pm (2023-10,
        # a KernelCI report), Bjorn Helgaas on linux-pm (2023-02)
        (
            "regressions@leemhuis.info",
            "#regzbot resolve: turned out it's not a regression, see\n"
            "https://bugzilla.kernel.org/show_bug.cgi?id=217503#c10\n#regzbot ignore-activity\n",
            True,
        ),
        (
            "regressions@leemhuis.info",
            "#regzbot resolve: Nothing is broken due to the patch, a fix is needed on the KernelCI side.\n",
            True,
        ),
        (
            "bhelgaas@google.com",
            "#regzbot resolve: [patch 1/2] will fix bz216884, but it is not a regression\n",
            True,
        ),
        # written for the pattern: "resolved", a setup at fault
        (
            "regressions@leemhuis.info",
            "#regzbot resolved: the reporter's misconfigured BIOS, not the kernel\n",
            True,
        ),
        # resolved because fixed (linux-btrfs 2023-08, linux-cifs): the slowdown stands
        (
            "regressions@leemhuis.info",
            "#regzbot resolve: various changes merged for 6.6 improve things again;\nmore planned\n",
            False,
        ),
        (
            "regressions@leemhuis.info",
            "#regzbot resolve: apparently fixed in all affected stable/longterm\nbranches with various commits\n",
            False,
        ),
        # the command quoted as an example, another command
        ("regressions@leemhuis.info", REGZBOT_HOWTO, False),
        # the command quoted from another's mail is not this mail's
        ("someone@example.org", "> #regzbot invalid: test too noisy\n\nI still see it.\n", False),
    ],
)
def test_a_report_marked_invalid_for_the_regression_tracker_is_retracted(who, reply, retracted):
    subject = "[REGRESSION] 5-10% increase in IO latencies with nohz balance patch"
    r = _report(*_thread(subject, "josef@toxicpanda.com", NOHZ, (who, reply)))
    assert ("retracted" in _rules(r)) is retracted
    assert r.is_regression_report is not retracted


def test_the_robots_report_marked_invalid_stays_a_measured_regression():
    # "#regzbot invalid: 0-day report that didn't get traction" (the tracker's keeper, linux-xfs):
    # the robot measured it; nobody took it up
    subject = "[linux-next:master] [xfs]  1aa91d9c99:  fio.write_iops -12.5% regression"
    body = "Greeting,\n\nFYI, we noticed a -12.5% regression of fio.write_iops due to commit:\n"
    reply = "#regzbot invalid: 0-day report that didn't get traction; likely of no relevance\n"
    r = _report(*_thread(subject, "oliver.sang@intel.com", body, ("regressions@leemhuis.info", reply)))
    assert r.is_regression_report


# linux-block, "[PATCH] block: check more requests for multiple_queues in blk_attempt_plug_merge"
# (Song Liu, 2022-03-09): the regression is named without a measure of speed; the log measures
# the speed the fix brings back
PLUG_MERGE = """\
RAID arrays check/repair operations benefit a lot from merging requests.
If we only check the previous entry for merge attempt, many merge will be
missed. As a result, significant regression is observed for RAID check
and repair.

Fix this by checking more than just the previous entry when
plug->multiple_queues == true.

This improves the check/repair speed of a 20-HDD raid6 from {before} to
{after}.

Fixes: d38a9c04c0d5 ("block: only check previous entry for plug merge attempt")
Cc: stable@vger.kernel.org # v5.16
Reported-by: Larkin Lowrey <llowrey@nuclearwinter.com>
Signed-off-by: Song Liu <song@kernel.org>
---
 block/blk-merge.c | 20 ++++++++++++++------
"""


@pytest.mark.parametrize(
    "before,after,tagged,report",
    [
        ("19 MB/s", "103 MB/s", True, True),
        # written for the pattern: a time that falls, as a fix's log measures it
        ("52 seconds", "9 seconds", True, True),
        # no gain measured (the same speed before and after), or no Fixes: tag: the patch's own
        ("100 MB/s", "100 MB/s", True, False),
        ("19 MB/s", "103 MB/s", False, False),
    ],
)
def test_a_fix_measuring_the_speed_it_restores_reports_its_regression(before, after, tagged, report):
    body = PLUG_MERGE.format(before=before, after=after)
    if not tagged:
        body = body.replace("Fixes: d38a9c04c0d5", "Link: d38a9c04c0d5")
    msgs = _thread(
        "[PATCH] block: check more requests for multiple_queues in blk_attempt_plug_merge",
        "song@kernel.org",
        body,
    )
    r = _report(*msgs)
    assert r.is_regression_report is report
    assert ("fix-of-slowdown" in _rules(r)) is report


# linux-block / linux-ext4, "CFQ idling kills I/O performance on ext4 with blkio cgroup
# controller" (2019-05-17): two schedulers compared on one kernel; replies name other kernels
# (a patch's base, where BFQ was tried) as bad too
CFQ = """\
One of my colleagues noticed upto 10x - 30x drop in I/O throughput
running the following command, with the CFQ I/O scheduler:

dd if=/dev/zero of=/root/test.img bs=512 count=10000 oflags=dsync

Throughput with CFQ: 60 KB/s
Throughput with noop or deadline: 1.5 MB/s - 2 MB/s

These results were reproduced on a Linux VM (kernel v4.19) on ESXi,
{more}
"""


@pytest.mark.parametrize(
    "more,reply,report",
    [
        # one kernel in the report, another said to show it too in a reply: no change of kernel
        ("with ext4 on a virtual disk.", "Tested with v5.2-rc4, CFQ still drops to 60 KB/s.\n", False),
        ("with ext4 on a virtual disk.", "On 5.1.0+ with BFQ the throughput is still 60 KB/s.\n", False),
        # the report's own message naming a second kernel where it is seen too: one slowness, twice
        (
            "backed by a rotational hard disk. The same problem was\nalso seen with the BFQ I/O scheduler in kernel v5.1.",
            "Thanks, looking into it.\n",
            False,
        ),
        # the report's own message names the kernel that was good (a change)
        (
            "while v4.14 on the same VM gets 1.5 MB/s with CFQ too.",
            "Tested with v5.2-rc4, still slow.\n",
            True,
        ),
    ],
)
def test_a_bad_kernel_is_a_change_beside_another_of_its_own_message(more, reply, report):
    msgs = _thread(
        "CFQ idling kills I/O performance on ext4 with blkio cgroup controller",
        "srivatsa@csail.mit.edu",
        CFQ.format(more=more),
        ("paolo.valente@linaro.org", reply),
    )
    r = _report(*msgs)
    assert r.is_regression_report is report


def test_a_renamed_threads_old_patch_subject_makes_it_no_patch():
    """linux-block, "Regression in 5.17-rc1 on pata-falcon (was: Re: [PATCH] m68k: mm: Remove check
    for VM_IO to fix deferred I/O)" (2022-01): a report split off a patch's thread; the old
    subject after "was:" names where it came from, so the report is no fix of a slowdown."""
    body = (
        "commit 180dccb0dba4f5e84a4a70c1be1d34cbb6528b32 (blk-mq: fix tag_get wait task can't be awakened) "
        "does cause a regression on my m68k hardware test rig.\n\n"
        "While it usually takes 8 minutes for my system to boot, the boot takes a few hours to\n"
        "complete since v5.17-rc1.\n"
    )
    subject = "Regression in 5.17-rc1 on pata-falcon (was: Re: [PATCH] m68k: mm: Remove check for VM_IO to fix deferred I/O)"
    r = _report(*_thread(subject, "schmitzmic@gmail.com", body))
    assert r.is_regression_report
    assert "fix-of-slowdown" not in _rules(r) and r.status == "bisected"
    assert {c.sha[:12]: c.role for c in r.commits}["180dccb0dba4"] == "culprit"


# linux-btrfs, "[PATCH 0/2] btrfs: disable inline checksum for multi-dev striped FS" (Naohiro
# Aota, 2024-01-18) and Roman Mamedov's reply measuring the slowdown the series answers
INLINE_CSUM = """\
There was a report of write performance regression on {where} on RAID0
(4 devices) btrfs [1]. Then, I reported that BTRFS_FS_CSUM_IMPL_FAST
and doing the checksum inline can be bad for performance on RAID0
setup [2].

While inlining the fast checksum is good for single (or two) device,
but it is not fast enough for multi-device striped writing.

Naohiro Aota (2):
  btrfs: introduce inline_csum_mode to tweak inline checksum behavior
  btrfs: detect multi-dev stripe and disable automatic inline checksum
"""
INLINE_REPLY = """\
Personal opinion, it is a very awkward criteria to enable or disable the
inline mode. In [1] the inline mode slashes the performance from
4 GB/sec to 1.5 GB/sec. A single modern SSD is capable of up to 6 GB/sec.
"""


@pytest.mark.parametrize("where,report", [("6.5-rc4", True), ("some setups", False)])
def test_a_series_naming_the_kernel_a_regression_appeared_in_answers_it(where, report):
    r = _report(
        *_thread(
            "[PATCH 0/2] btrfs: disable inline checksum for multi-dev striped FS",
            "naohiro.aota@wdc.com",
            INLINE_CSUM.format(where=where),
            ("rm@romanrm.net", INLINE_REPLY),
        )
    )
    assert r.is_regression_report is report
    assert ("patch-own-numbers" in _rules(r)) is not report


@pytest.mark.parametrize(
    "body,size",
    [
        # written for the pattern: a change statement whose "after" names the kernel it ran on
        ("Server-side copy of a 10G file used to take 4 seconds, now it takes 40 seconds on 6.3.\n", 900.0),
        ("The nightly rsync went from 12 minutes to 51 minutes with 6.1.\n", 325.0),
        ("Reads dropped from 900 MB/s to 300 MB/s on 6.6-rc1.\n", 66.67),
    ],
)
def test_the_sides_of_a_change_statement_that_names_its_kernel_size_it(body, size):
    r = _report(*_thread("[REGRESSION] slow copies since the last upgrade", "a@b.c", body))
    assert r.is_regression_report and r.regression_pct == pytest.approx(size, abs=0.01)
    assert [x.label for x in r.results] == ["baseline", "regressed"]


@pytest.mark.parametrize(
    "said,role",
    [
        ("Reverting 0123456789ab brings it back.\n", "culprit"),
        ("Reverting 0123456789ab brings the speed back.\n", "culprit"),
        ("Reverting 0123456789ab does nothing here.\n", "revert"),
    ],
)
def test_a_revert_bringing_the_speed_back_names_the_culprit(said, role):
    from lkmlkb.extract.commits import find_commits

    assert [c.role for c in find_commits(said)] == [role]


@pytest.mark.parametrize(
    "subject,body,size,bad",
    [
        # written for the pattern (a latency said to rise in words, kernels compared in words)
        (
            "iSCSI: completion latency went up on 6.8",
            "On kernel 6.8 the average completion latency on the initiator went up from 120 usec to\n310 usec; kernel 6.7 is fine.\n",
            158.33,
            "6.8",
        ),
        (
            "p99 latency regression",
            "After the upgrade to 6.1 the p99 latency rose from 2 ms to 9 ms.\n",
            350.0,
            None,
        ),
        (
            "nvme-pci: lower IOPS on 6.5",
            "We see 20% lower IOPS on 6.5 compared to 6.4 with io_uring polled queues (t/io_uring -p1).\n",
            20.0,
            "6.5",
        ),
    ],
)
def test_a_rise_of_a_latency_and_releases_compared_in_words_are_a_report(subject, body, size, bad):
    r = _report(*_thread(subject, "a@b.c", body))
    assert r.is_regression_report
    assert r.regression_pct == pytest.approx(size, abs=0.01) and r.bad_kernel == bad


@pytest.mark.parametrize(
    "text,passes",
    [
        ("the average completion latency on the initiator went up from 120 usec to 310 usec", True),
        ("the p99 latency rose from 2 ms to 9 ms", True),
        ("latency numbers look fine", False),
        ("This patch reduces latency.", False),
    ],
)
def test_the_prefilter_lets_a_latency_said_to_rise_through(text, passes):
    from lkmlkb.extract.prefilter import prefilter

    assert prefilter(text) is passes


@pytest.mark.parametrize(
    "line,kernels",
    [
        ("We see 20% lower IOPS on 6.5 compared to 6.4 with io_uring polled queues", ["6.5", "6.4"]),
        ("kernel 6.6 is 10% slower compared with 6.1", ["6.6", "6.1"]),
        # a ratio compared with a ratio names no release
        ("throughput is 3.5 compared to 2.1 before", []),
        ("the ratio went to 2.5 compared with 1.5 GB/s", []),
    ],
)
def test_a_release_compared_to_a_release_is_a_kernel(line, kernels):
    from lkmlkb.extract.kernel_versions import find_versions

    assert [n for *_, n in find_versions(line)] == kernels


@pytest.mark.parametrize("word", RISE_WORDS)
def test_every_word_of_a_rise_is_let_through_and_read_as_a_latencys_regression(word):
    """The prefilter and the claims read one list of rise words: none can be added to one alone."""
    from lkmlkb.extract.claims import find_claims
    from lkmlkb.extract.prefilter import prefilter

    sentence = f"the p99 latency {word} from 2 ms to 9 ms"
    assert prefilter(sentence)
    assert [(c.kind, c.metric) for c in find_claims(sentence)] == [("regression", "lat")]


# linux-rdma, "sysfs: cannot create duplicate filename" (Robin Peiremans, 2022-02-13,
# <CAJt3DjCM1uKkutB0srAiofuLUunX8hJZ+h+xkkTKmN3p_r+OLg@mail.gmail.com>; trimmed): a driver that stops
# showing its ports, bisected, with the card's lspci -vv pasted (the mail lost its tabs)
PORTS_GONE = """\
I ran into this error when upgrading to kernel 5.14 (it works
pre-5.14). The driver gets loaded (verified via lsmod), but the ib
utils don't show any ports.

I've bisected the kernel and commit
4a7aaf88c89f12f8048137e274ce0d40fe1056b2 seems to be the culprit.

$ sudo lspci -s 04:00.0 -vv
04:00.0 InfiniBand: QLogic Corp. IBA7322 QDR InfiniBand HCA (rev 02)
Capabilities: [70] Express (v2) Endpoint, MSI 00
DevCap: MaxPayload 512 bytes, PhantFunc 0, Latency L0s <64ns, L1 <1us
ExtTag- AttnBtn- AttnInd- PwrInd- RBE+ FLReset- SlotPowerLimit 0.000W
DevCtl: CorrErr+ NonFatalErr+ FatalErr+ UnsupReq+
LnkCap: Port #0, Speed 5GT/s, Width x8, ASPM L0s, Exit Latency L0s <4us
LnkSta: Speed 5GT/s (ok), Width x4 (downgraded)
"""


def test_a_bisected_failure_with_a_devices_listing_is_no_slowdown():
    r = _report(*_thread("sysfs: cannot create duplicate filename", "robin@x", PORTS_GONE))
    assert not r.is_regression_report
    assert "bisected-measurement" not in _rules(r)
    # the same bisection over a time measured is one
    timed = PORTS_GONE.replace(
        "$ sudo lspci", "Probing now takes 4000 ms, it took 64 ms on 5.13.\n\n$ sudo lspci"
    )
    r = _report(*_thread("slow probe of the HCA since 5.14", "robin@x", timed))
    assert r.is_regression_report


# linux-mmc, 'Odroid-C1 regression with commit 4bc31edebde5 ("mmc: core: Set HS clock speed before
# sending HS CMD13")' (Martin Blumenstingl, 2023-04-10,
# <CAFBinCD0RT0p-jk86W0JuMT3ufohRh1RqWCcM35DKZJpuc10HQ@mail.gmail.com>; trimmed): the commit's title
# in the subject says "speed"; the mail says the eMMC is no longer found
EMMC_GONE = """\
today I found that upstream commit 4bc31edebde5 ("mmc: core: Set HS
clock speed before sending HS CMD13") breaks eMMC support on my
Odroid-C1.

The problem I'm seeing is that the eMMC module is simply not detected.
There are no errors in the kernel log.

After reverting the mentioned commit I get:
[    2.970944] mmc1: new HS200 MMC card at address 0001
"""
# linux-mmc, "eMMC performance regression caused by 427b6514d0953bf" (Jisheng Zhang, 2020-10-13,
# <20201013190851.715df9ad@xhacker.debian>; trimmed)
EMMC_SLOWER = """\
I found an emmc performance regression with below simple benchmark cmd:

dd if=/dev/mmcblk0 of=/dev/null bs=8192 count=100000

This regression has been bisected to commit
427b6514d0953bf ("mmc: sdhci: Add Auto CMD Auto Select support")

If I revert this commit, the performance is good now.
"""


@pytest.mark.parametrize(
    "subject, body, listed",
    [
        (
            'Odroid-C1 regression with commit 4bc31edebde5 ("mmc: core: Set HS clock speed before sending HS CMD13")',
            EMMC_GONE,
            False,
        ),
        # a title saying "performance" is the commit's words too
        (
            'Data loss regression with commit 4bc31edebde5 ("mmc: core: improve the performance of CMD13")',
            EMMC_GONE,
            False,
        ),
        # the reporter's own words name the slowdown: the title changes nothing
        (
            'eMMC performance regression caused by 427b6514d0953bf ("mmc: sdhci: Add Auto CMD")',
            EMMC_SLOWER,
            True,
        ),
        ("eMMC performance regression caused by 427b6514d0953bf", EMMC_SLOWER, True),
    ],
)
def test_a_commits_title_in_the_subject_names_no_slowdown(subject, body, listed):
    r = _report(*_thread(subject, "martin@x", body))
    assert r.is_regression_report is listed


# linux-pm, "Re: Slow booting on x15" (2020-10-01, Laurent Pinchart
# <20201001223848.GE3722@pendragon.ideasonboard.com>, trimmed): a regression named in words beside
# one time per kernel, no word of speed on the claim's line; the kernels of the mail it quotes are
# the thread's too, so the reply's two are not its good and bad ones
SLOW_BOOT_QUOTED = """\
On Thu, Oct 01, 2020 at 11:17:48AM +0300, Tony Lindgren wrote:
> Fwiw on my beagle x15
>
> v5.8
> [    9.908787] Run /sbin/init as init process
>
> v5.9-rc7
> [   15.085373] Run /sbin/init as init process
>
> It appears to be 'fixed' in next-20200928: the board does not even boot.

"""
SLOW_BOOT = """\
I'd be happy to test a patch. On my device, the initial
of_platform_populate() call from machine_desc->init_machine() takes
between 6 and 10 seconds to run with v5.9-rc5, compared to 200ms on
v5.7. That's a fairly bad regression, all the people who have worked
hard so reduce boot time would really hate this :-)
"""


@pytest.mark.parametrize(
    "body,report",
    [
        (SLOW_BOOT, True),
        # written for the pattern: a rate on two releases, the newer lower
        (
            "Copying the image runs at 410 MB/s on 6.1 and at 120 MB/s on 6.6.\n"
            "That is quite a regression for us.\n",
            True,
        ),
        # the newer kernel faster: no slowdown, whatever the word
        (SLOW_BOOT.replace("between 6 and 10 seconds", "100ms"), False),
        # one kernel measured: nothing compared
        (
            "Copying the image runs at 120 MB/s on 6.6.\nThat is quite a regression for us.\n",
            False,
        ),
    ],
)
def test_a_regression_named_beside_a_figure_per_kernel_is_measured(body, report):
    reply = ("laurent@x.org", SLOW_BOOT_QUOTED + body)
    r = _report(*_thread("Slow booting on x15", "tony@atomide.com", "Booting got slow.\n", reply))
    assert ("measured-slowdown" in _rules(r)) is report
    assert r.is_regression_report is report


# linux-crypto, "[herbert-cryptodev-2.6:master] [rhashtable] e1d3422c95:
# WARNING:at_mm/util.c:#__kvmalloc_node_noprof" (2024-12-31, <202412311213.4e69877e-lkp@intel.com>,
# trimmed): the robot's failure report cites its earlier report of a regression
ROBOT_FOLLOW_UP = """\
Hello,

we reported
"[herbert-cryptodev-2.6:master] [rhashtable]  e1d3422c95: stress-ng.syscall.ops_per_sec 98.9% regression"
in
https://lore.kernel.org/all/202412271017.cad7675-lkp@intel.com/

now we observed below WARNING in another tests. it doesn't always happen.
11 out of 20 runs as below. but keeps clean on parent.

kernel test robot noticed "WARNING:at_mm/util.c:#__kvmalloc_node_noprof" on:

commit: e1d3422c95f003eba241c176adfe593c33e8a8f6 ("rhashtable: Fix potential deadlock by moving schedule_work outside lock")
"""


@pytest.mark.parametrize(
    "subject,report",
    [
        (
            "[herbert-cryptodev-2.6:master] [rhashtable] e1d3422c95: WARNING:at_mm/util.c:#__kvmalloc_node_noprof",
            False,
        ),
        # written for the pattern: the robot's follow-up on a failed test (linux-ext4, linux-xfs 2022)
        ("[ext4]  1ff2030739: xfstests.ext4.053.fail", False),
        # the robot's own report of a metric's change still is one
        (
            "[herbert-cryptodev-2.6:master] [rhashtable] e1d3422c95: stress-ng.syscall.ops_per_sec 98.9% regression",
            True,
        ),
    ],
)
def test_the_robots_failure_report_citing_its_regression_report_is_none(subject, report):
    r = _report(*_thread(subject, "oliver.sang@intel.com", ROBOT_FOLLOW_UP))
    assert r.is_regression_report is report


# linux-f2fs-devel, Goldwyn Rodrigues, "[f2fs-dev] Fix inode sem regression for nowait" (2019-09-11,
# <20190911093926.pfkkx25mffzeuo32@alap3.anarazel.de>, trimmed): a series' cover letter whose subject
# lost its "[PATCH 0/3]", answered by its author's numbered patches
NOWAIT_COVER = """\
This changes the way we acquire the inode semaphore when
the I/O is marked with IOCB_NOWAIT. The regression was discovered
in AIM7 and later by Andres in ext4. This has been fixed in
XFS by 942491c9e6d6 ("xfs: fix AIM7 regression")

I realized f2fs and btrfs also have the same code and need to
be updated.
"""
NOWAIT_PATCH = """\
This is similar to 942491c9e6d6 ("xfs: fix AIM7 regression")
Apparently our current rwsem code doesn't like doing the trylock, then
lock for real scheme.  So change our read/write methods to just do the
trylock for the RWF_NOWAIT case.

Fixes: b91050a80cec ("f2fs: add nowait aio support")
Signed-off-by: Goldwyn Rodrigues <rgoldwyn@suse.com>
"""


@pytest.mark.parametrize(
    "patch_subject,patch_from,report",
    [
        ("[f2fs-dev] [PATCH 3/3] f2fs: fix inode rwsem regression", "rgoldwyn@suse.com", True),
        # written for the pattern: a reply by someone else, or an unnumbered one, makes no series
        ("[f2fs-dev] [PATCH 3/3] f2fs: fix inode rwsem regression", "chao@kernel.org", False),
        ("Re: [f2fs-dev] Fix inode sem regression for nowait", "rgoldwyn@suse.com", False),
    ],
)
def test_a_cover_letter_without_its_patch_tag_is_a_fix(patch_subject, patch_from, report):
    root = Message(
        "cover@x",
        subject="[f2fs-dev] Fix inode sem regression for nowait",
        from_addr="rgoldwyn@suse.com",
        body=NOWAIT_COVER,
        date_utc="2019-09-11T16:45:14+00:00",
    )
    patch = Message(
        "p3@x",
        subject=patch_subject,
        from_addr=patch_from,
        body=NOWAIT_PATCH,
        in_reply_to="cover@x",
        references=["cover@x"],
        date_utc="2019-09-11T16:45:17+00:00",
    )
    r = _report(root, patch)
    assert ("fix-of-slowdown" in _rules(r)) is report
    assert r.is_regression_report is report


# linux-usb: a device or a function gone is a failure, whatever the subject's other words
@pytest.mark.parametrize(
    "line,failure",
    [
        # "usb: dwc3: HC dies under high I/O load on Exynos5422" (2023-06)
        ("usb: dwc3: HC dies under high I/O load on Exynos5422", True),
        # "broke" says as often that a behaviour changed: linux-ext4, "[PATCH v3] ext4: improve trim
        # efficiency" (2023-07): "commit 55cdd0af2bc5 ... seems broke this way, let's fix it", and
        # the fix measures the time it brings back
        ("commit 55cdd0af2bc5 seems broke this way, let's fix it.", False),
        # "[Bug 207219] New: [BISECTED] Sony Vaio laptop built-in ricoh webcam no longer found ..." (2020-04)
        ("[BISECTED] Sony Vaio laptop built-in ricoh webcam no longer found on Fedora 31", True),
        # "Regression with commit e532a096be0e" (Jarkko Nikula, 2021-08)
        ("Our ASIX USB ethernet adapter stopped working after v5.14-rc1.", True),
        ("The NVMe drive is no longer detected after resume on 6.2", True),
        ("The array no longer mounts since 5.10", True),
        ("the controller died after the update", True),
        # cgroups, "MGLRU OOM problem" (Waiman Long, 2024-06-24)
        ("MGLRU OOM problem", True),
        ("OOM kills are rather frequently encountered when we try to write a large data file", True),
        ("the box runs out of memory since 6.9", True),
        ("zoom in on the bloom filter", False),
        # gone from a measure of speed, or from the numbers: no failure
        ("throughput no longer scales with the number of jobs", False),
        ("with the fix the slowdown no longer shows up", False),
        ("the deadline scheduler studies of 2019", False),
    ],
)
def test_a_device_or_function_gone_is_a_failure(line, failure):
    from lkmlkb.reports.classify import FAILURE

    assert bool(FAILURE.search(line)) is failure


# linux-usb, "Regression with commit e532a096be0e ("net: usb: asix: ax88772: add phylib support")"
# (Jarkko Nikula, 2021-08-18), trimmed: the link speed in the working kernel's dmesg is no measure
# of a slowdown
ASIX_STOPPED = """\
Our ASIX USB ethernet adapter stopped working after v5.14-rc1. It doesn't get an IP from DHCP.

v5.13 works ok. v5.14-rc1 and today's head 761c6d7ec820 show the regression.

I bisected regression into e532a096be0e ("net: usb: asix: ax88772: add phylib support").

Here's the dmesg snippet from working and non-working cases:

OK:
[    8.595202] asix 1-8:1.0 eth0: link up, 100Mbps, full-duplex, lpa 0xC1E1

NOK:
[    8.518219] asix 1-8:1.0 eth0: Link is Down
"""


def test_an_adapter_that_stopped_working_is_no_slowdown():
    subject = 'Regression with commit e532a096be0e ("net: usb: asix: ax88772: add phylib support")'
    r = _report(*_thread(subject, "jarkko.nikula@linux.intel.com", ASIX_STOPPED))
    assert not r.is_regression_report
    assert _rules(r)[0] == "functional"


# cgroups, "[PATCH 0/5] Fix SCHED_DEADLINE bandwidth accounting during suspend" (Juri Lelli,
# 2025-03-04, <20250304084045.62554-1-juri.lelli@redhat.com>), trimmed: the bandwidth a scheduler
# accounts for is a share of CPU time handed out, and the regression a suspend that fails
DL_SUSPEND = """\
Hello!

Jon reported [1] a suspend regression on a Tegra board configured to
boot with isolcpus and bisected it to commit 53916d5fd3c0
("sched/deadline: Check bandwidth overflow earlier for hotplug").

Root cause analysis pointed out that we are currently failing to
correctly clear and restore bandwidth accounting on root domains after
changes that initiate from partition_sched_domains(), as it is the case
for suspend operations on that board.

---
 kernel/sched/deadline.c | 40 +++++++++++++-----
"""


@pytest.mark.parametrize(
    ("subject", "listed"),
    [
        ("[PATCH 0/5] Fix SCHED_DEADLINE bandwidth accounting during suspend", False),
        ("[PATCH v8 0/8] sched/deadline: fix cpusets bandwidth accounting", False),
        ("[PATCH] blk-throttle: fix bandwidth limit during suspend", False),
        # bandwidth as a speed: the subject makes the reported regression one of speed
        ("[PATCH] nvme: fix write bandwidth during suspend", True),
        ("[PATCH] nvme: fix write bandwidth limited to 1 GB/s after suspend", True),
    ],
)
def test_a_bandwidth_a_scheduler_accounts_is_no_speed(subject, listed):
    r = _report(*_thread(subject, "juri.lelli@redhat.com", DL_SUSPEND))
    assert r.is_regression_report is listed


# cgroups, "MGLRU OOM problem" (Waiman Long, 2024-06-24,
# <6c3fbc2d-85d9-4502-b43c-0950ccdd6f7e@redhat.com>), trimmed: bisected, and a dd's rates beside
# the OOM kills it causes; the failure is the report
MGLRU_OOM = """\
We are hitting an OOM issue with our OpenShift middleware which is
based on Kubernetes. OOM kills are rather frequently encountered when we
try to write a large data file that exceeds memory.max to a NFS mount
filesystem. I have bisected the problem down to commit 14aa8b2d5c2e
("mm/mglru: don't sync disk for each aging cycle").

 # dd if=/dev/urandom of=/disk/2G.bin bs=32K count=65536 status=progress iflag=fullblock

In the first successful run, the reported data rate was:

  2147483648 bytes (2.1 GB, 2.0 GiB) copied, 57.5474 s, 37.3 MB/s

After reverting commit 14aa8b2d5c2e, the data rate was:

  2147483648 bytes (2.1 GB, 2.0 GiB) copied, 55.2910 s, 38.8 MB/s
"""


def test_an_oom_bisected_beside_a_dds_rates_is_a_failure():
    r = _report(*_thread("MGLRU OOM problem", "longman@redhat.com", MGLRU_OOM))
    assert not r.is_regression_report
    assert _rules(r)[0] == "functional"


# cgroups, "Memory CG and 5.1 to 5.6 uprade slows backup" (Bruno Prémont, 2020-04-09,
# <20200409112505.2e1fc150@hemera.lan.sysophe.eu>), trimmed: a slowdown and the kernels it came
# between named in the subject, the upgrade in the first lines; no figure, no "regression"
CG_UPGRADE = """\
Upgrading from 5.1 kernel to 5.6 kernel on a production system using
cgroups (v2) and having backup process in a memory.high=2G cgroup
sees backup being highly throttled (there are about 1.5T to be
backuped).

Regularly the backup process seems to be blocked for about 2s, but not
within a syscall according to strace.
"""


@pytest.mark.parametrize(
    ("subject", "body", "listed"),
    [
        ("Memory CG and 5.1 to 5.6 uprade slows backup", CG_UPGRADE, True),
        ("NFS reads much slower after upgrade to 6.1", CG_UPGRADE, True),
        (
            "Write performance degradation on 6.6",
            CG_UPGRADE.replace("Upgrading from 5.1 kernel to 5.6", "Since 6.6 on"),
            True,
        ),
        # a slowness with one kernel, no change said: a question about it
        (
            "Memory CG slows backup on 5.6",
            CG_UPGRADE.replace("Upgrading from 5.1 kernel to 5.6 kernel", "With 5.6"),
            False,
        ),
        # a kernel change said, but no version or upgrade in the subject: asks as often as it reports
        ("Memory CG slows backup", CG_UPGRADE, False),
        # linux-f2fs-devel, "[Bug 206057] New: 5.5.0: f2fs is extremely slow, with ext4 system works
        # well" (2020-01): the kernel it runs, and a file system against another; no change
        (
            "[Bug 206057] New: 5.5.0: f2fs is extremely slow, with ext4 system works well",
            "    Kernel Version: 5.5.0\n\nIt seems that f2fs doing something extremely slow? After I flashed data onto\n"
            "f2fs, tablet started behave slow and even didn't run Phoc UI. With 5.4.0 I never tried f2fs.\n",
            False,
        ),
    ],
)
def test_a_subject_naming_a_slowdown_and_its_kernels_is_a_report(subject, body, listed):
    r = _report(*_thread(subject, "bonbons@linux-vserver.org", body))
    assert r.is_regression_report is listed
    if listed:
        assert _rules(r)[0] == "named-slowdown"


# linux-pci, "[REGRESSION] resume with a Thunderbolt dock broke with commit e8b908146d44 "PCI/PM:
# Increase wait time after resume"" (Kamil Paral, 2023-08-21), trimmed: bisected, and the failure
# a resume (the wait times its replies measure are the commit's)
DOCK_RESUME = """\
= Summary =
A Thinkpad T480s laptop with a Thinkpad Thunderbolt 3 Dock connected
can no longer resume from suspend. The problem was introduced in
e8b908146d44 "PCI/PM: Increase wait time after resume".

4. Resume the laptop. This is successful before the identified commit
(the last tested good commit was cc8a983d0fce), and unsuccessful
(black screen, frozen system) after the identified commit
(e8b908146d44).
"""


@pytest.mark.parametrize(
    ("subject", "functional"),
    [
        (
            '[REGRESSION] resume with a Thunderbolt dock broke with commit e8b908146d44 "PCI/PM: Increase wait time after resume"',
            True,
        ),
        ("The fix e5f4ca3fce90 broke Intel Edison host mode", True),
        # a speed named beside it: what broke is the speed
        ("commit e8b908146d44 broke resume performance", False),
    ],
)
def test_a_subject_saying_a_commit_broke_something_is_a_failure(subject, functional):
    r = _report(*_thread(subject, "kparal@redhat.com", DOCK_RESUME))
    assert (_rules(r)[0] == "functional") is functional


# linux-pci, "[PATCH] Revert "PCI/LINK: Report degraded links via link bandwidth" (Bjorn Helgaas,
# 2019-04-29, <20190429185611.121751-1-helgaas@kernel.org>), trimmed: the subject cut short inside
# the reverted commit's title; a log line's bandwidths, and the log's noise the reason
LINK_BW_REVERT = """\
Alex W. reported a case where the new link bandwidth notification logging,
e.g.:

  vfio-pci 0000:07:00.0: 32.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s x16 link at 0000:00:02.0 (capable of 64.000 Gb/s with 5 GT/s x16 link)

is somewhat surprising.  The message is great if link bandwidth was reduced
because of a hardware problem, but in this case it's caused by a GPU doing
link state management to conserve power, so the message is to be expected
and is likely to confuse the user.

This reverts commit e8303bb7a75c113388badcc49b2a84b4121c1b3e.
---
 drivers/pci/pcie/bw_notification.c | 110 -----------------
"""


@pytest.mark.parametrize(
    "subject",
    [
        '[PATCH] Revert "PCI/LINK: Report degraded links via link bandwidth',
        '[PATCH] Revert "PCI/LINK: Report degraded links via link bandwidth notification"',
    ],
)
def test_a_reverted_titles_words_cut_short_report_nothing(subject):
    r = _report(*_thread(subject, "helgaas@kernel.org", LINK_BW_REVERT))
    assert not r.is_regression_report


# linux-btrfs, "5.6, slow send/receive, < 1MB/s" (Chris Murphy, 2020-05-05), trimmed: the subject
# names the slowness and the kernel; the reporter calls it a regression in a later message
SEND_SLOW = """\
btrfs-progs-5.6-1.fc32.x86_64
kernel-5.6.8-300.fc32.x86_64

I have one snapshot of a subvolume being sent from one Btrfs
filesystem to another. Both are single device. The HDD scrub
performance is ~90MB/s. The send/receive is averaging less than 2MB/s.
"""
SEND_SLOW_LATER = """\
This used to go at device speeds. Today it's running
~100M/s. I'm not sure what's going on or how to get more information but it's a regression.
"""


@pytest.mark.parametrize(
    ("later_from", "later", "listed"),
    [
        ("lists@colorremedies.com", SEND_SLOW_LATER, True),
        # said by someone else, or not at all: the reporter has not called it one
        ("nborisov@suse.com", SEND_SLOW_LATER, False),
        (
            "lists@colorremedies.com",
            SEND_SLOW_LATER.replace(" but it's a regression.", "."),
            False,
        ),
    ],
)
def test_a_slowness_and_its_kernel_in_the_subject_the_reporter_calls_a_regression(later_from, later, listed):
    r = _report(
        *_thread("5.6, slow send/receive, < 1MB/s", "lists@colorremedies.com", SEND_SLOW, (later_from, later))
    )
    assert r.is_regression_report is listed


# linux-acpi and linux-pci, "100 ms boot time increase regression in acpi_init()/acpi_scan_bus()"
# (Paul Menzel, 2022-01-10, <b177cb21-aa01-2408-9b26-164c028b6593@molgen.mpg.de>), trimmed
BOOT_TIME = """\
#regzbot introduced: v5.13..v5.14-rc1

On the Intel T4500 laptop Acer TravelMate 5735Z with Debian sid/unstable, there is a 100 ms
introduced between Linux 5.10.46 and 5.13.9, and is still present in Linux 5.15.5.

    [    0.262243] calling  acpi_init+0x0/0x487 @ 1
    [    0.570908] initcall acpi_init+0x0/0x487 returned 0 after 300781 usecs
"""


@pytest.mark.parametrize(
    ("subject", "listed"),
    [
        ("100 ms boot time increase regression in acpi_init()/acpi_scan_bus()", True),
        ("Regression: longer boot time with 5.13", True),
        ("mount time regression since 5.13", True),
        # when, not how long: no speed named
        ("Regression: ACPI error at boot time since 5.13", False),
    ],
)
def test_an_operations_time_grown_names_a_slowdown(subject, listed):
    r = _report(*_thread(subject, "pmenzel@molgen.mpg.de", BOOT_TIME))
    assert r.is_regression_report is listed


# linux-s390, "SMC-R throughput drops for specific message sizes" (2023-09), trimmed: a drop seen
# on two kernels alike, then measured in a reply; no kernel changed anything
SMC_ROOT = """\
I would like to bring to your attention some observations made during recent
experiments conducted with the SMC-R on the following system:

- Kernel: both v5.4 and v5.15
- Benchmarking tool: 'qperf'

Based on the attached plot, you may notice that the SMC-R throughput drops
substantially according to a periodic regular pattern.
"""
SMC_REPLY = """\
Attached you may find the client log of the qperf output. For the majority of
message sizes the bandwidth is around 3.2GB/s; at a message size of 473616 the
throughput drops to 0.4GB/s.
"""


@pytest.mark.parametrize(
    "root,listed",
    [
        (SMC_ROOT, False),
        # variant: the words around the two releases say the same of both
        (SMC_ROOT.replace("- Kernel: both v5.4 and v5.15", "It happens on both kernel 5.4 and 5.15."), False),
        # the two releases told apart: a change
        (SMC_ROOT.replace("- Kernel: both v5.4 and v5.15", "- Kernel: fine on v5.4, slow on v5.15"), True),
    ],
)
def test_two_kernels_the_report_names_alike_are_no_kernel_change_for_a_replys_drop(root, listed):
    r = _report(
        *_thread("SMC-R throughput drops for specific message sizes", "a@x", root, ("a@x", SMC_REPLY))
    )
    assert r.is_regression_report is listed


#: the same thread's later update: the kernel moved in the hope of a remedy
SMC_UPGRADE = """\
Our main issue so far has been SMC-R halves the throughput for some specific message sizes.

Since our last post the kernel was upgraded from 5.4 to 6.5.0-14 hoping it would alleviate
the throughput drops, but it did not, so we bit the bullet and delved into the SMC-R code.
"""


def test_a_kernel_moved_to_as_a_remedy_that_did_not_help_is_no_kernel_change():
    messages = _thread(
        "SMC-R throughput drops for specific message sizes",
        "a@x",
        SMC_ROOT,
        ("a@x", SMC_REPLY),
        ("b@x", SMC_UPGRADE),
    )
    assert not _report(*messages).is_regression_report
