"""A patch's thread that reports a regression: a reply once the patch is in a tree, the author
telling the bisected regression the patch answers, a patch log telling a regression reported.

Real mail, trimmed: each text says where it came from.
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report


def _report(*messages: Message):
    ((tid, (msgs, findings)),) = extract_messages(list(messages)).items()
    return build_report(tid, msgs, findings)


def _root_report(head: tuple, body: str):
    """The report of a thread of one message: ``head`` its id, subject, date and sender."""
    mid, subject, date, who = head
    return _report(_msg(mid, subject, body, date, who))


def _msg(mid, subject, body, date, who, parent=None):
    m = Message(mid, subject=subject, body=body, date_utc=date)
    m.from_name, m.from_addr = who
    if parent is not None:
        m.in_reply_to, m.references = parent.message_id, [parent.message_id]
    return m


# "[PATCH] btrfs: wait between incomplete batch allocations" (linux-btrfs, 2022-04), taken by its
# tree's maintainer, and Naohiro Aota's reply four days later <20220411071124.zwtcarqngqqkdd6q@naota-xeon>
TEA = ("Sweet Tea Dorminy", "sweettea-kernel@dorminy.me")
SUBJECT = "[PATCH] btrfs: wait between incomplete batch allocations"
PATCH = """\
When allocating memory in a loop, each iteration should call
memalloc_retry_wait() in order to prevent starving memory-freeing
processes (and to mark where allcoation loops are).

Signed-off-by: Sweet Tea Dorminy <sweettea-kernel@dorminy.me>
"""
SLOW = """\
The fstests btrfs/187 becomes incredibly slow with this patch applied.

For example, on a nvme ZNS SSD (zoned) device, it takes over 10 hours to
finish the test case. It only takes 765 seconds if I revert this commit
from the misc-next branch.

I also confirmed the same slowdown occurs on regular btrfs. For the
baseline, with this commit reverted, it takes 335 seconds on 8GB ZRAM
device running on QEMU (8GB RAM), and takes 768 seconds on a (non-zoned)
HDD running on a real machine (128GB RAM).
"""


def _batch_allocations(taken: bool, reply: str = SLOW, who=("Naohiro Aota", "naohiro.aota@wdc.com")):
    root = _msg(
        "07d6dbf34243.1649268923.git.sweettea-kernel@dorminy.me",
        SUBJECT,
        PATCH,
        "2022-04-06T18:24:18+00:00",
        TEA,
    )
    msgs = [root]
    if taken:
        msgs.append(
            _msg(
                "20220407145221.GF15609@twin.jikos.cz",
                "Re: " + SUBJECT,
                "Added to misc-next, thanks.\n",
                "2022-04-07T14:52:21+00:00",
                ("David Sterba", "dsterba@suse.cz"),
                root,
            )
        )
    msgs.append(
        _msg(
            "20220411071124.zwtcarqngqqkdd6q@naota-xeon",
            "Re: " + SUBJECT,
            reply,
            "2022-04-11T07:11:24+00:00",
            who,
            msgs[-1],
        )
    )
    return msgs


def test_a_reply_slowed_by_a_patch_its_maintainer_took_reports_a_regression():
    r = _report(*_batch_allocations(taken=True))
    assert r.is_regression_report
    assert r.reasons[0].rule == "reply-reports-slowdown"
    assert r.reasons[0].message_id == "20220411071124.zwtcarqngqqkdd6q@naota-xeon"


def test_the_same_reply_in_review_of_a_patch_not_taken_reports_none():
    """Four days after posting, the patch in no tree the reply names: a reviewer's measurement."""
    reply = SLOW.replace("\nfrom the misc-next branch.", ".")
    assert "misc-next" not in reply
    assert not _report(*_batch_allocations(taken=False, reply=reply)).is_regression_report


def test_a_reply_naming_the_tree_the_patch_is_in_reports_it_too():
    assert _report(*_batch_allocations(taken=False)).is_regression_report  # "from the misc-next branch"


def test_the_patch_authors_own_slowdown_after_it_was_taken_is_no_reply_report():
    r = _report(*_batch_allocations(taken=True, who=TEA))
    assert all(x.rule != "reply-reports-slowdown" for x in r.reasons)


# "[PATCH RFC] xfs: Don't hold XFS_ILOCK_SHARED over log force during fsync" (Jan Kara, linux-xfs,
# 2025-09) and his reply a week later <vpsyvzbupclvb76axyzytms5rh5yzubcyj5l5h2iwpk3d7xf6a@dw6pemmdfcka>
JAN = ("Jan Kara", "jack@suse.cz")
ILOCK_SUBJECT = "[PATCH RFC] xfs: Don't hold XFS_ILOCK_SHARED over log force during fsync"
ILOCK = """\
Holding XFS_ILOCK_SHARED over log force in xfs_fsync_flush_log()
significantly increases contention on ILOCK for O_DSYNC | O_DIRECT
writes to file preallocated with fallocate.

With this patch DB2 database restore operation speeds up by a factor of
about 2.5x in a VM with 4 CPUs, 16GB of RAM and NVME SSD as a backing
store.

Signed-off-by: Jan Kara <jack@suse.cz>
"""
BISECTED = """\
BTW I don't have customer setup with DB2 available where the huge
difference is visible but I have written a tool that replays the
same set of pwrites from same set of threads I've captured from syscall
trace. It reproduces only about 20% difference between good & bad kernels
on my test machine but it was good enough for the bisection and analysis
and the customer confirmed that the revert of what I've bisected to
actually fixes their issue (rwsem reader lockstealing logic).

BTW, your patch seems to be about 2% slower on average than what I have
written and somewhat more variable.
"""


def _ilock(reply: str, who=JAN):
    root = _msg("20250908151248.1290-2-jack@suse.cz", ILOCK_SUBJECT, ILOCK, "2025-09-08T15:12:49+00:00", JAN)
    dave = _msg(
        "aL9yc4WJLdqtCFOK@dread.disaster.area",
        "Re: " + ILOCK_SUBJECT,
        "Racy read - the new field is protected by ili_lock.\n",
        "2025-09-09T00:18:59+00:00",
        ("Dave Chinner", "david@fromorbit.com"),
        root,
    )
    jan = _msg(
        "vpsyvzbupclvb76axyzytms5rh5yzubcyj5l5h2iwpk3d7xf6a@dw6pemmdfcka",
        "Re: " + ILOCK_SUBJECT,
        reply,
        "2025-09-16T13:32:42+00:00",
        who,
        dave,
    )
    return [root, dave, jan]


def test_a_patch_whose_author_tells_the_bisected_regression_it_answers_is_a_report():
    r = _report(*_ilock(BISECTED))
    assert r.is_regression_report
    assert r.regression_pct == 20.0


@pytest.mark.parametrize(
    "reply",
    [
        # the same figure with no bisection: the patch's own measurement
        BISECTED.replace(
            "good enough for the bisection and analysis", "good enough for the analysis"
        ).replace("the revert of what I've bisected to", "the patch"),
    ],
)
def test_the_authors_figure_without_a_bisection_stays_the_patchs_own(reply):
    assert not _report(*_ilock(reply)).is_regression_report


# "[PATCH] ext4: allow concurrent unaligned dio overwrites" (Brian Foster, linux-ext4, 2023-02),
# <20230223191626.263331-1-bfoster@redhat.com>, trimmed
UNALIGNED = """\
We've had reports of significant performance regression of sub-block
(unaligned) direct writes due to the added exclusivity restrictions
in ext4. The purpose of the exclusivity requirement for unaligned
direct writes is to avoid data corruption caused by unserialized
partial block zeroing in the iomap dio layer across overlapping
writes.

Update the dio write submission path to allow concurrent submission
of unaligned direct writes that are purely overwrite.

Signed-off-by: Brian Foster <bfoster@redhat.com>
"""
UNALIGNED_HEAD = (
    "20230223191626.263331-1-bfoster@redhat.com",
    "[PATCH] ext4: allow concurrent unaligned dio overwrites",
    "2023-02-23T19:16:26+00:00",
    ("Brian Foster", "bfoster@redhat.com"),
)


@pytest.mark.parametrize(
    "first, listed",
    [
        ("We've had reports of significant performance regression of sub-block", True),
        ("Users reported a significant performance regression of sub-block", True),
        ("There was a report about a performance regression of sub-block", True),
        # a regression feared, not reported
        ("People could complain about a significant performance regression of sub-block", False),
        ("This avoids a significant performance regression of sub-block", False),
    ],
)
def test_a_patch_telling_of_a_regression_reported_answers_it(first, listed):
    body = UNALIGNED.replace("We've had reports of significant performance regression of sub-block", first)
    r = _root_report(UNALIGNED_HEAD, body)
    assert r.is_regression_report is listed
    if listed:
        assert r.reasons[0].rule == "fix-of-slowdown" and r.status == "fix proposed"


def test_a_reply_after_the_patch_was_taken_needs_no_tree_named():
    reply = SLOW.replace("\nfrom the misc-next branch.", ".")
    r = _report(*_batch_allocations(taken=True, reply=reply))
    assert r.is_regression_report and r.reasons[0].rule == "reply-reports-slowdown"


# "[PATCH 00/29] use refcount+RCU method to implement lockless slab shrink" (Qi Zheng, linux-xfs,
# 2023-06), <20230622082454.4090236-1-qi.zheng@linux.dev>, trimmed: a regression reported and
# reverted before this series, which does the work again another way
SHRINK = """\
We used to implement the lockless slab shrink with SRCU [1], but then kernel
test robot reported -88.8% regression in stress-ng.ramfs.ops_per_sec test
case [2], so we reverted it [3].

This patch series aims to re-implement the lockless slab shrink using the
refcount+RCU method proposed by Dave Chinner [4].
"""
SHRINK_HEAD = (
    "20230622082454.4090236-1-qi.zheng@linux.dev",
    "[PATCH 00/29] use refcount+RCU method to implement lockless slab shrink",
    "2023-06-22T08:24:25+00:00",
    ("Qi Zheng", "qi.zheng@linux.dev"),
)


@pytest.mark.parametrize(
    "said, listed",
    [
        ("case [2], so we reverted it [3].", False),
        ("case [2], and it was reverted [3].", False),
        ("case [2] caused by it, which this series fixes [3].", True),
        ("case [2] since then, that we still see [3].", True),
    ],
)
def test_a_regression_reported_and_reverted_before_the_series_is_its_history(said, listed):
    body = SHRINK.replace("case [2], so we reverted it [3].", said)
    assert _root_report(SHRINK_HEAD, body).is_regression_report is listed


# "[PATCH v5 00/14] blk-mq: Reduce static requests memory footprint for shared sbitmap" (John
# Garry, linux-block, 2021-10), queued, then Kashyap Desai's test report, trimmed
SBITMAP_SUBJECT = "[PATCH v5 00/14] blk-mq: Reduce static requests memory footprint for shared sbitmap"
SBITMAP_TEST = """\
John -

I tested on 5.15-rc4 (master) -

#1 I noticed some performance regression @mq-deadline scheduler which is not
related to this series. I will bisect and get more detail about this issue
separately.

Test #1 : Total 24 SAS SSDs in JBOD mode.
With mq-deadline I get 1.1M IOPS, with none 3.1M IOPS.
"""


@pytest.mark.parametrize(
    "cleared, listed",
    [
        ("which is not\nrelated to this series.", False),
        ("which is\nunrelated to this series.", False),
        ("which is\ncaused by this series.", True),
    ],
)
def test_a_slowdown_a_reply_says_the_series_did_not_cause_is_no_report_of_it(cleared, listed):
    root = _msg(
        "1633429419-228500-1-git-send-email-john.garry@huawei.com",
        SBITMAP_SUBJECT,
        "Currently a full set of static requests are allocated per hw queue.\n",
        "2021-10-05T10:23:25+00:00",
        ("John Garry", "john.garry@huawei.com"),
    )
    queued = _msg(
        "ae33dde8-96e8-2978-5f32-c7e0a6136e8e@kernel.dk",
        "Re: " + SBITMAP_SUBJECT,
        "Applied, thanks.\n",
        "2021-10-05T12:35:52+00:00",
        ("Jens Axboe", "axboe@kernel.dk"),
        root,
    )
    body = SBITMAP_TEST.replace("which is not\nrelated to this series.", cleared)
    test = _msg(
        "e4e92abbe9d52bcba6b8cc6c91c442cc@mail.gmail.com",
        "RE: " + SBITMAP_SUBJECT,
        body,
        "2021-10-07T20:31:52+00:00",
        ("Kashyap Desai", "kashyap.desai@broadcom.com"),
        queued,
    )
    r = _report(root, queued, test)
    assert any(x.rule == "reply-reports-slowdown" for x in r.reasons) is listed


def test_a_regression_reported_with_no_change_it_is_put_on_is_background():
    """No cause and no kernel in its lines ("on some setups"): what a series tells of its field."""
    body = UNALIGNED.replace("due to the added exclusivity restrictions", "on some setups")
    assert "due to" not in body
    assert not _root_report(UNALIGNED_HEAD, body).is_regression_report


# "[PATCH 3/3] btrfs: make fast fsyncs wait only for writeback" (Filipe Manana, linux-btrfs,
# 2020-08), <20200811114358.693993-1-fdmanana@kernel.org>, trimmed: the slowdown reported is a
# "performance drop", not named a regression
FSYNC = """\
After that, for fast fsyncs, we started to wait for
ordered extents to complete before starting to log, which adds some
latency to fsyncs and we even got at least one report about a performance
drop which bisected to that particular change:

https://lore.kernel.org/linux-btrfs/20181109215148.GF23260@techsingularity.net/

Signed-off-by: Filipe Manana <fdmanana@suse.com>
"""
FSYNC_HEAD = (
    "20200811114358.693993-1-fdmanana@kernel.org",
    "[PATCH 3/3] btrfs: make fast fsyncs wait only for writeback",
    "2020-08-11T11:43:58+00:00",
    ("Filipe Manana", "fdmanana@kernel.org"),
)


@pytest.mark.parametrize(
    "said, listed",
    [
        ("drop which bisected to that particular change:", True),
        ("drop on some machines:", False),  # no change it is put on
        ("drop which bisected to that change, and it was reverted:", False),
    ],
)
def test_a_performance_drop_reported_and_put_on_a_change_is_a_regression_fixed(said, listed):
    r = _root_report(FSYNC_HEAD, FSYNC.replace("drop which bisected to that particular change:", said))
    assert r.is_regression_report is listed
    if listed:
        assert r.reasons[0].rule == "fix-of-slowdown"


# "[PATCH v7 00/11] fs: multigrain timestamp redux" (Jeff Layton, linux-xfs, linux-ext4 and linux-btrfs,
# 2024-09-13, <20240913-mgtime-v7-0-92d4020e3b00@kernel.org>): the regression the cover answers was
# the series' own v6, measured against the tree it is based on
MGTIME_HEAD = (
    "mgtime-v7@example.org",
    "[PATCH v7 00/11] fs: multigrain timestamp redux",
    "2024-09-13T13:54:09+00:00",
    ("Jeff Layton", "jlayton@kernel.org"),
)
MGTIME = """\
This is a replacement for the v6 series sitting in Christian's
vfs.mgtime branch.

The kernel test robot reported a performance regression in v6 due to the
changes to current_time(). This patchset addresses that by moving the
ctime floor handling into the timekeeper code.

The pipe1_threads test shows these averages on my test rig:

    v6.11-rc7\t\t\t\t103561295 (baseline)
    v6.11-rc7 + v6 series\t\t95995565  (~7% slower)
    v6.11-rc7 + v7 series\t\t101357203 (~2% slower)

...so the performance difference here is significant.

Jeff Layton (11):
      timekeeping: move multigrain timestamp floor handling into timekeeper

 fs/inode.c | 85 +++++++++++++++++
 2 files changed, 85 insertions(+)
"""


@pytest.mark.parametrize(
    "said",
    [
        "reported a performance regression in v6 due to the",
        # the same said of the previous version in words
        "reported a performance regression in the previous version due to the",
    ],
)
def test_a_series_answering_its_own_earlier_versions_regression_reports_none(said):
    r = _root_report(MGTIME_HEAD, MGTIME.replace("reported a performance regression in v6 due to the", said))
    assert not r.is_regression_report
    assert [x.rule for x in r.reasons][:2] == ["measured-slowdown", "patch-own-numbers"]


@pytest.mark.parametrize(
    "said",
    [
        # a kernel release is no version of the series
        "reported a performance regression in v6.10 due to the",
        # a later version than this one is no earlier version
        "reported a performance regression in v8 due to the",
    ],
)
def test_a_regression_of_a_kernel_or_a_later_version_is_still_answered(said):
    r = _root_report(MGTIME_HEAD, MGTIME.replace("reported a performance regression in v6 due to the", said))
    assert r.is_regression_report
    assert r.reasons[0].rule == "fix-of-slowdown"


# "[PATCH RFC v7 00/12] blk-mq/scsi: Provide hostwide shared tags for SCSI HBAs" (John Garry,
# linux-block, 2020-06-10), Ming Lei's reply <20200728084511.GA1326626@T590> and Kashyap Desai's
# <afe5eb1be7f416a48d7b5d473f3053d0@mail.gmail.com>, trimmed: a tester measures the unmerged series'
# cost; a reviewer's "since commit" blames nothing for it (his quote's last line is written anew, so
# that the prefilter reads his reply, as it read the whole of it)
HOSTWIDE = (
    "hostwide@example.org",
    "[PATCH RFC v7 00/12] blk-mq/scsi: Provide hostwide shared tags for SCSI HBAs",
)
GARRY = ("John Garry", "john.garry@huawei.com")
MING_SINCE = """\
On Tue, Jul 28, 2020 at 08:54:27AM +0100, John Garry wrote:
> OK, so dynamically allocating the sbitmap could be good. I was thinking
> previously that we still allocate for nr_cpus size, and search a limited
> range - but this would have a bigger performance hit.

Another update is that V4 of 'scsi: core: only re-run queue in scsi_end_request()
if device queue is busy' is quite hard to implement since commit b4fd63f42647110c9
("Revert "scsi: core: run queue if SCSI device queue isn't ready and queue is idle").
"""
KASHYAP = """\
I have completed testing and this particular latest performance issue on
Volume is outstanding.
Currently it is 20-25% performance drop in IOPs and we want that to be
closed before shared host tag is enabled for <megaraid_sas> driver.
"""


def _hostwide(ming_says: str):
    root = _msg(
        HOSTWIDE[0],
        HOSTWIDE[1],
        "Hi all,\n\nHere is v7 of the hostwide tags series.\n",
        "2020-06-10T00:00:00+00:00",
        GARRY,
    )
    ming = _msg(
        "ming@example.org",
        "Re: " + HOSTWIDE[1],
        ming_says,
        "2020-07-28T00:00:00+00:00",
        ("Ming Lei", "ming.lei@redhat.com"),
        root,
    )
    kashyap = _msg(
        "kashyap@example.org",
        "RE: " + HOSTWIDE[1],
        KASHYAP,
        "2020-08-04T00:00:00+00:00",
        ("Kashyap Desai", "kashyap.desai@broadcom.com"),
        ming,
    )
    return _report(root, ming, kashyap)


def test_a_reviewers_since_commit_blames_no_slowdown_of_the_series():
    r = _hostwide(MING_SINCE)
    assert not r.is_regression_report
    assert [x.rule for x in r.reasons][:2] == ["measured-slowdown", "patch-own-numbers"]


def test_a_reviewer_blaming_a_commit_for_the_drop_names_its_culprit():
    r = _hostwide(
        "The IOPS drop is a regression of mainline, not of this series.\n\nThe volume case was fine\n"
        "in 5.7 and the series does not touch that path.\n\nI looked at the history of the\n"
        "dispatch path: the drop is caused by commit b4fd63f42647110c9.\n"
    )
    assert "patch-own-numbers" not in [x.rule for x in r.reasons]


# "[PATCH v8 00/14] zswap IAA compress batching" (Kanchana P Sridhar, linux-crypto, 2025-03-03,
# <20250303084724.6490-1-kanchana.p.sridhar@intel.com>, trimmed): the changelog of later versions
# names a regression of the series' own v5, the version number ending the sentence
ZSWAP_HEAD = (
    "zswap-v8@example.org",
    "[PATCH v8 00/14] zswap IAA compress batching",
    "2025-03-03T08:47:10+00:00",
    ("Kanchana P Sridhar", "kanchana.p.sridhar@intel.com"),
)
ZSWAP = """\
Changes since v5:
=================
1) Rebased to mm-unstable as of 2-1-2025.
2) Fix for zstd performance regression in {said}
3) Addressed Yosry's comments about the batching interface.

Kanchana P Sridhar (14):
  crypto: acomp - Add synchronous/asynchronous acomp request chaining.

 mm/zswap.c | 85 +++++++++++++++++
 2 files changed, 85 insertions(+)
"""


@pytest.mark.parametrize(
    "said,report",
    [
        ("v5.", True),
        ("v5.\n", True),
        ("v5, reported by Yosry.", True),
        # a kernel release is no version of the series: the fix is a kernel's
        ("v5.10.", False),
    ],
)
def test_a_changelog_fixing_its_own_earlier_versions_regression_fixes_none(said, report):
    r = _root_report(ZSWAP_HEAD, ZSWAP.format(said=said))
    assert ("fix-of-slowdown" not in [x.rule for x in r.reasons]) is report
