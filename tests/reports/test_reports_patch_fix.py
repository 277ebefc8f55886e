"""A patch that says it fixes a regression is the fix proposed; a maintainer taking it fixes it.

Fixture texts, trimmed, from lore.kernel.org:
- Jan Kara, "[PATCH] block: do not reverse request order when flushing plug list", linux-block,
  2023-03-13, <20230313093002.11756-1-jack@suse.cz>, and Jens Axboe's reply "Applied, thanks!",
  2023-03-14, <167880758083.151876.6376887177678438378.b4-ty@kernel.dk>
- Goldwyn Rodrigues, "[PATCH 07/16] btrfs: Lock extents before folio for read()s", linux-btrfs,
  2022-11-15, <5c7c77d0735c18cea82c347eef2ce2eb169681e6.1668530684.git.rgoldwyn@suse.com>, and the
  kernel test robot's reply, 2022-11-21, <202211212140.7f9c0a76-oliver.sang@intel.com>
- Gabriel Krisman Bertazi, "[PATCH v4 00/16] File system wide monitoring", linux-ext4, 2021-07-20,
  <20210720155944.1447086-1-krisman@collabora.com>, and the kernel test robot's reply to its 8th
  patch, 2021-07-31, <20210731063818.GB18773@xsang-OptiPlex-9020>
- Nitesh Shetty, "[PATCH v5 00/10] Implement copy offload support", linux-block, 2022-11-23,
  <20221123055827.26996-1-nj.shetty@samsung.com>
- Petr Vorel, "[RFC] Slow down of LTP tests aiodio_sparse.c and dio_sparse.c in kernel 6.6",
  linux-block, 2024-07-19, <20240719174325.GA775414@pevik>, and his reply, 2024-07-24,
  <20240724131816.GA950793@pevik>
- Maxim Mikityanskiy, "[PATCH] Revert "block: simplify set_init_blocksize" to regain lost
  performance", linux-block, 2021-01-26, <20210126195907.2273494-1-maxtram95@gmail.com>, Bart
  Van Assche's question, 2021-01-27, <d3effbdc-12c2-c6aa-98ba-7bde006fc4e1@acm.org>, and Jens
  Axboe's reply, 2021-01-27, <eac57824-f2eb-9a81-aa5f-3fd62f8e531d@kernel.dk>
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report
from lkmlkb.reports.status import FIX_OFFERED, PATCH_TAKEN

PLUG_ORDER = """\
Commit 26fed4ac4eab ("block: flush plug based on hardware and software
queue order") changed flushing of plug list to submit requests one
device at a time. However while doing that it also started using
list_add_tail() instead of list_add() used previously thus effectively
submitting requests in reverse order. Submitting requests in reverse order has negative impact on
performance for rotational disks (when BFQ is not in use). We observe
10-25% regression in random 4k write throughput, as well as ~20%
regression in MariaDB OLTP benchmark on rotational storage on btrfs
filesystem.

Fix the problem by preserving ordering of the plug list when inserting
requests into the queuelist as well as by appending to requeue_list
instead of prepending to it.

Fixes: 26fed4ac4eab ("block: flush plug based on hardware and software queue order")
Signed-off-by: Jan Kara <jack@suse.cz>
---
 block/blk-mq.c         | 5 +++--
 1 file changed, 3 insertions(+), 2 deletions(-)
"""

APPLIED = """\
On Mon, 13 Mar 2023 10:30:02 +0100, Jan Kara wrote:
> Commit 26fed4ac4eab ("block: flush plug based on hardware and software
> queue order") changed flushing of plug list to submit requests one
> [...]

Applied, thanks!

[1/1] block: do not reverse request order when flushing plug list
      commit: 34e0a279a993debaff03158fc2fbf6a00c093643

Best regards,
--
Jens Axboe
"""

LOCK_EXTENTS = """\
Perform extent locking around buffered reads as opposed to while
performing folio reads.

Signed-off-by: Goldwyn Rodrigues <rgoldwyn@suse.com>
---
 fs/btrfs/file.c        | 17 ++++++++++++++---
 1 file changed, 14 insertions(+), 3 deletions(-)
"""

ROBOT_ON_PATCH = """\
Greeting,

FYI, we noticed a -99.7% regression of fxmark.ssd_btrfs_DRBM_72_bufferedio.works/sec due to commit:


commit: 94d3d147892ad202ecbd0a373b63469f2d12667a ("[PATCH 07/16] btrfs: Lock extents before folio for read()s")
url: https://github.com/intel-lab-lkp/linux/commits/Goldwyn-Rodrigues/btrfs-check-for-range-correctness-while-locking-or-setting-extent-bits/20221116-030112

in testcase: fxmark

commit:
  440e8ad2af ("btrfs: Lock extents before pages in writepages")
  94d3d14789 ("btrfs: Lock extents before folio for read()s")

440e8ad2afce1fc9 94d3d147892ad202ecbd0a373b6
---------------- ---------------------------
         %stddev     %change         %stddev
             \\          |                \\
  80965674           -98.4%    1284665 ±  2%  fxmark.ssd_btrfs_DRBM_18_bufferedio.works/sec
   4648529           -44.4%    2584226        fxmark.ssd_btrfs_DRBM_1_bufferedio.works/sec
"""

FS_MONITORING = """\
This was tested with LTP for regressions, and also using the sample on
the last patch, with a corrupted image.  I can publish the bad image
upon request.
"""

ROBOT_UNIXBENCH = """\
Greeting,

FYI, we noticed a -3.3% regression of unixbench.score due to commit:


commit: 4c40d6efc8b22b88a45c335ffd6d25b55d769f5b ("[PATCH v4 08/16] fsnotify: pass arguments of fsnotify() in struct fsnotify_event_info")
url: https://github.com/0day-ci/linux/commits/Gabriel-Krisman-Bertazi/File-system-wide-monitoring/20210721-001444

in testcase: unixbench
"""

COPY_OFFLOAD = """\
		block-size 8k, range 1:
			6.5% improvement in IO BW (791 MiB/s to 843 MiB/s).
		block-size 8k, 8 ranges:
			18% drop in IO BW (from 798 MiB/s to 647 MiB/s)

		At present we see drop in performance for bs 8k,16k and
		higher ranges (8, 16), so something more to check there.
"""

LTP_SLOWDOWN = """\
LTP AIO DIO tests aiodio_sparse.c [1] and dio_sparse.c [2] (using [3]) slowed
down on kernel 6.6 on Btrfs and XFS, when run with default parameters.

Runtime of this particular setup (i.e. 100 MB file) on Btrfs and XFS on the
same system slowed down 9x (6.5: ~1 min 6.6: ~9 min). Ext4 is not affected.

Because the slowdown has been here for few kernel releases I suppose nobody
complained and the test is somehow artificial (nobody uses this in a real world).
But still it'd be good to double check the problem. I can bisect a particular
commit.
"""

LTP_BISECTED = """\
> But still it's kind of curious what caused the 9x slow down. So I'd be
> curious to know the result of the bisection :). Thanks for report!

It looks to be the slowdown was introduced by commit 63304558ba5d
("sched/eevdf: Curb wakeup-preemption") [1] from v6.6-rc1.

I also compiled current next (next-20240724), it's also slow  and reverting
commit from it returns the original speed on both Btrfs and XFS.
"""

PLUG_SUBJECT = "[PATCH] block: do not reverse request order when flushing plug list"


def _report(*messages: Message):
    ((tid, (msgs, findings)),) = extract_messages(list(messages)).items()
    return build_report(tid, msgs, findings)


def _patch() -> Message:
    return Message(
        "20230313093002.11756-1-jack@suse.cz",
        subject=PLUG_SUBJECT,
        body=PLUG_ORDER,
        date_utc="2023-03-13T09:30:02+00:00",
    )


def test_a_patch_that_fixes_a_regression_is_the_fix_proposed():
    r = _report(_patch())
    assert r.is_regression_report
    assert any(c.sha.startswith("26fed4ac4eab") and c.role == "culprit" for c in r.commits)
    assert r.status == "fix proposed"  # was "bisected": the thread is the fix, not a hunt for the cause


def test_the_patch_taken_by_its_maintainer_is_fixed():
    reply = Message(
        "167880758083.151876.6376887177678438378.b4-ty@kernel.dk",
        subject="Re: " + PLUG_SUBJECT,
        body=APPLIED,
        in_reply_to="20230313093002.11756-1-jack@suse.cz",
        references=["20230313093002.11756-1-jack@suse.cz"],
        date_utc="2023-03-14T15:26:20+00:00",
    )
    assert _report(_patch(), reply).status == "fixed"


def test_a_regression_the_robot_finds_in_a_patch_is_the_patchs_own():
    root = Message(
        "5c7c77d0735c18cea82c347eef2ce2eb169681e6.1668530684.git.rgoldwyn@suse.com",
        subject="[PATCH 07/16] btrfs: Lock extents before folio for read()s",
        body=LOCK_EXTENTS,
        date_utc="2022-11-15T18:00:25+00:00",
    )
    robot = Message(
        "202211212140.7f9c0a76-oliver.sang@intel.com",
        subject="Re: [PATCH 07/16] btrfs: Lock extents before folio for read()s",
        body=ROBOT_ON_PATCH,
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2022-11-21T13:31:26+00:00",
    )
    r = _report(root, robot)
    assert r.is_regression_report and r.regression_pct == 99.7
    assert r.status == "bisected"  # the patch is the culprit, not a fix


def test_a_series_tested_for_regressions_is_no_fix_of_the_one_the_robot_finds_in_it():
    r = _report(*_series_and_robot(with_patch=False))
    assert r.is_regression_report and r.regression_pct == 3.3
    assert r.status == "bisected"


# the series' 8th patch as posted (its diff trimmed to one hunk), before the robot measured it
FSNOTIFY_PATCH_8 = """\
There are a lot of arguments to fsnotify(), and some of them are only
used by a few callers.  Pass them in a struct.

---
 fs/notify/fsnotify.c | 10 +++++-----
 1 file changed, 5 insertions(+), 5 deletions(-)

diff --git a/fs/notify/fsnotify.c b/fs/notify/fsnotify.c
--- a/fs/notify/fsnotify.c
+++ b/fs/notify/fsnotify.c
@@ -400,7 +400,7 @@ int fsnotify(__u32 mask, const void *data, int data_type, struct inode *dir,
-	struct super_block *sb = fsnotify_data_sb(data, data_type);
+	struct super_block *sb = fsnotify_data_sb(event_info);
"""


def _series_and_robot(with_patch: bool = True) -> list[Message]:
    """The File system wide monitoring series' cover letter, its 8th patch (``with_patch``) and the
    robot's report on that patch."""
    root = Message(
        "20210720155944.1447086-1-krisman@collabora.com",
        subject="[PATCH v4 00/16] File system wide monitoring",
        body=FS_MONITORING,
        date_utc="2021-07-20T15:59:28+00:00",
    )
    patch = Message(
        "20210720155944.1447086-9-krisman@collabora.com",
        subject="[PATCH v4 08/16] fsnotify: pass arguments of fsnotify() in struct fsnotify_event_info",
        body=FSNOTIFY_PATCH_8,
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2021-07-20T15:59:36+00:00",
    )
    above = patch if with_patch else root
    robot = Message(
        "20210731063818.GB18773@xsang-OptiPlex-9020",
        body=ROBOT_UNIXBENCH,
        subject="[fsnotify]  4c40d6efc8:  unixbench.score -3.3% regression",
        in_reply_to=above.message_id,
        references=list(dict.fromkeys([root.message_id, above.message_id])),
        date_utc="2021-07-31T06:38:18+00:00",
    )
    for m in (root, patch):
        m.from_name, m.from_addr = "Gabriel Krisman Bertazi", "krisman@collabora.com"
    robot.from_name, robot.from_addr = "kernel test robot", "oliver.sang@intel.com"
    return [root, patch, robot] if with_patch else [root, robot]


def test_the_series_patch_the_robot_blames_is_no_fix_of_its_regression():
    r = _report(*_series_and_robot())
    assert r.is_regression_report
    assert r.status == "bisected"  # the diff posted before the report is what regressed


def test_a_patch_posted_after_the_robots_report_is_a_fix_proposed():
    root, patch, robot = _series_and_robot()
    later = Message(
        "fix-after-report@x",
        subject="Re: [PATCH v4 08/16] fsnotify: pass arguments of fsnotify() in struct fsnotify_event_info",
        body="Does this bring the score back?\n\n" + FSNOTIFY_PATCH_8,
        in_reply_to=robot.message_id,
        references=[root.message_id, patch.message_id, robot.message_id],
        date_utc="2021-08-02T10:00:00+00:00",
    )
    assert _report(root, patch, robot, later).status == "fix proposed"


def _copy_offload() -> Message:
    return Message(
        "20221123055827.26996-1-nj.shetty@samsung.com",
        subject="[PATCH v5 00/10] Implement copy offload support",
        from_addr="nj.shetty@samsung.com",
        body=COPY_OFFLOAD,
        date_utc="2022-11-23T05:58:17+00:00",
    )


def test_a_series_measuring_its_own_drop_fixes_nothing():
    from lkmlkb.reports.classify import ThreadFacts, fix_of_slowdown
    from lkmlkb.reports.status import derive_status

    root = _copy_offload()
    ((tid, (msgs, findings)),) = extract_messages([root]).items()
    claims = [c for f in findings for c in f.claims]
    assert any(c.kind == "regression" and c.stated_pct == 18.0 for c in claims)  # what the rule reads
    facts = ThreadFacts(
        messages=[root], claims=claims, subject_claims=[], commits=[], own_commits=[], kernels=[], results=[]
    )
    assert fix_of_slowdown(facts) is None
    assert derive_status([root], [], claims, fix_thread=False)[0] == "reported"


def test_a_report_titled_rfc_proposes_no_fix():
    subject = "[RFC] Slow down of LTP tests aiodio_sparse.c and dio_sparse.c in kernel 6.6"
    root = Message(
        "20240719174325.GA775414@pevik",
        body=LTP_SLOWDOWN,
        date_utc="2024-07-19T17:43:25+00:00",
        subject=subject,
    )
    reply = Message(
        "20240724131816.GA950793@pevik",
        subject="Re: " + subject,
        body=LTP_BISECTED,
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2024-07-24T13:18:16+00:00",
    )
    r = _report(root, reply)
    assert r.is_regression_report
    assert r.status == "bisected"  # a question put to the list, then bisected: no patch in it


def test_what_says_a_maintainer_took_a_patch():
    for said in (
        "Applied, thanks!",
        "Applied to for-6.8/block, thanks.",
        "Thanks, applied.",
        "Applied",
        "Queued for 6.9.",
        # Jens Axboe on "[PATCH v2] blk-wbt: fix performance regression in wbt scale_up/scale_down"
        # (linux-block, 2019-10) and on 'Revert "block: simplify set_init_blocksize"' (2021-01)
        "Nice catch, thanks, applied.",
        "fixed up instead, let's leave that for future kernels. I'll apply this\nfor 5.11, thanks.",
        # David Sterba in linux-btrfs (2023-07): the tree's own branches
        "Yeah that's useful, thanks. Patch added to misc-next.",
        "forward so I've added the series to misc-next.",
        "Added to misc-next, thanks.",
        # md's maintainer (linux-raid, 2023-08 and 2023-12), on a set and in the middle of a line
        "Applied the set to md-next. Thanks!",
        "Thanks for the fix! I added a comment and applied it to md-fixes.",
        # the patchwork bot's mail (linux-f2fs-devel: 594 of them), netdev's form
        "Hello:\n\nThis patch was applied to jaegeuk/f2fs.git (dev)\nby Jaegeuk Kim <jaegeuk@kernel.org>:",
        "This series was applied to netdev/net.git (main):",
        # linux-f2fs-devel's and linux-btrfs's maintainers
        "Merged, thanks!",
        "Merged.",
        "Merged to misc-next with some minor fixups.",
        "a bit confusing so I'll update it, otherwise\npatch added to devel queue, thanks.",
        "e to priorities fixes vs features. I'll add it to misc-next\nand queue for 5.4. Thanks.",
        # stable's queue holds what mainline took (linux-block 2025, linux-xfs 2024)
        "Thanks, the patch has been queued to 6.15 & 6.12 stable.",
        "It's in the 6.10.y queue now.",
        # the fix sent on upstream by its tree's maintainer (Jens Axboe, linux-block and
        # linux-ide; David Sterba, linux-btrfs)
        "The pull including this fix has been sent off to Linus.",
        "I'm going to send another rc3 pull request with this patch.",
        "I pushed the fix and sent it out as an rc2 fix.",
        "Thanks, I sent it to Linus today.",
    ):
        assert PATCH_TAKEN.search(said), said
    for said in (
        "Whenever bfq queue has a request queued we add now",
        "requests queued for dispatch",
        "this applied on top of for-next",
        "Not applied yet.",
        # real replies that take nothing (linux-block): a wrapped line of Rafael J. Wysocki's,
        # the robot's boilerplate, Ming Lei on a series
        "applied at full swing?",
        "[If your patch is applied to the wrong git tree, kindly drop us a note.",
        "  can be merged to v6.17, and be backport easily for stable & downstream",
        # the review's finds in linux-block and linux-xfs replies
        "Applied and trying; fingers crossed!",
        "Can this be picked up?",
        "I've queued up a revert",
        " Applied to the queue (a diff's context line)",
        # a tester's plan, and a request
        "I'll apply this and test it tomorrow.",
        "I will apply it to test on my box.",
        "Could you add it to for-next?",
        # a tester's tree, a folded changelog, a question
        "I applied it to my tree and ran fio again.",
        "I applied it to 6.1.30 and the numbers are the same.",
        # J. Bruce Fields, dm-devel, 2021-01-27, <20210127201613.GB1339677@pick.fieldses.org>: a
        # tester's kernel with dots in its release, then what was measured on it
        "I applied this to Fedora's 5.10.7-200.fc33.x86_64 and timed an untar of",
        "I applied the patch to the distro's 6.8.4-200.fc39 kernel and measured fsync latency.",
        "Merged patches 8 and 11 of v4 to this patch",
        "Merged with patch from v2 that contained the image.",
        "Will you add it to the 6.10.y queue?",
        # a request, and a pull that carries something else
        "Could you send a pull request with this fix before rc3?",
        "The pull request with the other patches went out; this one needs a v2.",
        "I sent it as an RFC to the list.",
    ):
        assert not PATCH_TAKEN.search(said), said


# Fengnan Chang, "[PATCH v2] ext4: improve discard efficiency", linux-ext4, 2023-07-19,
# <20230719093633.34141-1-changfengnan@bytedance.com>
DISCARD = """\
In commit a015434480dc("ext4: send parallel discards on commit
completions"), issue all discard commands in parallel make all
bios could merged into one request, so lowlevel drive can issue
multi segments in one time which is more efficiency, but commit
55cdd0af2bc5 ("ext4: get discard out of jbd2 commit kthread contex")
seems broke this way, let's fix it.
In my test, the time of fstrim fs with multi big sparse file
reduce from 6.7s to 1.3s.

Reported-by: kernel test robot <oliver.sang@intel.com>
Closes: https://lore.kernel.org/oe-lkp/202307171455.ee68ef8b-oliver.sang@intel.com
Signed-off-by: Fengnan Chang <changfengnan@bytedance.com>
"""


def test_a_fix_measuring_before_and_after_itself_sizes_the_regression_from_the_fixed_state():
    r = _report(
        Message(
            "20230719093633.34141-1-changfengnan@bytedance.com",
            body=DISCARD,
            subject="[PATCH v2] ext4: improve discard efficiency",
            date_utc="2023-07-19T09:36:33+00:00",
        )
    )
    assert r.is_regression_report  # bisected ("seems broke"), with figures
    # before the fix is the regression, after it the fix: 6.7 s against 1.3 s is 415% longer
    assert [(x.value, x.label) for x in r.results] == [(6.7, "regressed"), (1.3, "fixed")]
    assert r.regression_pct == r.computed_pct == 415.38


# linux-block, Amir Goldstein's review of "[PATCH v5 00/10] Implement copy offload support"
# (2022-11-23, <CAOQ4uxhMX9MF0+6DD7NO5QzqDRwESkhiY5f9CB7DXFVa22Za+w@mail.gmail.com>), trimmed: a
# reviewer recalling an old commit that was reverted names no culprit of the series' own numbers
COPY_REVIEW = """\
But more importantly, why do you want to fall back to
do_splice_direct() in zonefs copy_file_range?

The reason I am asking is because commit 5dae222a5ff0
("vfs: allow copy_file_range to copy across devices")
turned out to be an API mistake that was later reverted by
868f9f2f8e00 ("vfs: fix copy_file_range() regression in cross-fs copies")
"""


def _review(body: str) -> Message:
    return Message(
        "CAOQ4uxhMX9MF0+6DD7NO5QzqDRwESkhiY5f9CB7DXFVa22Za+w@mail.gmail.com",
        subject="Re: [PATCH v5 00/10] Implement copy offload support",
        from_addr="amir73il@gmail.com",
        body=body,
        in_reply_to="20221123055827.26996-1-nj.shetty@samsung.com",
        references=["20221123055827.26996-1-nj.shetty@samsung.com"],
        date_utc="2022-11-23T06:53:14+00:00",
    )


def test_a_reviewer_recalling_a_reverted_commit_makes_no_series_a_report():
    r = _report(_copy_offload(), _review(COPY_REVIEW))
    assert not r.is_regression_report
    assert "patch-own-numbers" in [x.rule for x in r.reasons]


def test_a_reviewer_blaming_a_commit_for_the_series_drop_names_its_culprit():
    # the same review, blaming a commit for what the series measured instead of recalling a revert
    blame = COPY_REVIEW.replace(
        "turned out to be an API mistake that was later reverted by\n868f9f2f8e00",
        "is what caused that drop in IO BW, as I bisected it; see also\n868f9f2f8e00",
    )
    r = _report(_copy_offload(), _review(blame))
    assert "patch-own-numbers" not in [x.rule for x in r.reasons]


# linux-block, "[PATCH BUGFIX IMPROVEMENT V3 0/1] block, bfq: eliminate latency regression with
# fast drives" (Paolo Valente, 2019-07-18, <20190718070852.34568-1-paolo.valente@linaro.org>),
# trimmed: the author reports the regression his patch fixes in words, not as a fix's log
BFQ_COVER = """\
Hi Jens,
I've spotted a regression on a fast SSD: a loss of I/O-latency control
with interactive tasks (such as the application start up I usually
test). Details in the commit.
"""
BFQ_PATCH = """\
For this reason,
commit 1de0c4cd9ea6 ("block, bfq: reduce idling only in symmetric
scenarios") does plug I/O in such an asymmetric scenario.

As a practical example of the resulting recover of control, under
write load on a Samsung SSD 970 PRO, gnome-terminal starts in 1.5
seconds after this fix, against 15 seconds before the fix (as a
reference, gnome-terminal takes about 35 seconds to start with any of
the other I/O schedulers).

Fixes: commit 1de0c4cd9ea6 ("block, bfq: reduce idling only in symmetric scenarios")
Signed-off-by: Paolo Valente <paolo.valente@linaro.org>
---
 block/bfq-iosched.c | 67 +++++++++++++++++++++++++++++++++-------------
 1 file changed, 43 insertions(+), 24 deletions(-)
"""


def _bfq(*replies: tuple[str, str]) -> list[Message]:
    cover = "20190718070852.34568-1-paolo.valente@linaro.org"
    subject = "[PATCH BUGFIX IMPROVEMENT V3 {}] block, bfq: {}"
    out = [
        Message(
            cover,
            subject=subject.format("0/1", "eliminate latency regression with fast drives"),
            from_addr="paolo.valente@linaro.org",
            body=BFQ_COVER,
            date_utc="2019-07-18T07:08:51+00:00",
        ),
        Message(
            "20190718070852.34568-2-paolo.valente@linaro.org",
            subject=subject.format("1/1", "check also in-flight I/O in dispatch plugging"),
            from_addr="paolo.valente@linaro.org",
            body=BFQ_PATCH,
            date_utc="2019-07-18T07:08:52+00:00",
            in_reply_to=cover,
            references=[cover],
        ),
    ]
    for i, (who, body) in enumerate(replies):
        out.append(
            Message(
                f"r{i}@x",
                subject="Re: " + out[1].subject,
                from_addr=who,
                body=body,
                date_utc=f"2019-07-18T13:2{i}:07+00:00",
                in_reply_to=out[1].message_id,
                references=[cover, out[1].message_id],
            )
        )
    return out


def test_a_patch_whose_author_reports_the_regression_is_fixed_when_taken():
    r = _report(*_bfq())
    assert r.is_regression_report and r.status == "fix proposed"
    r = _report(*_bfq(("axboe@kernel.dk", "Applied, but fixed up this line. The format is:\n")))
    assert r.status == "fixed"
    # someone else's regression report in the patch's thread: the patch taken fixes nothing of it
    late = "I found the write speed of my board dropped from 330MB/s to 130MB/s, caused by this patch.\n"
    r = _report(*_bfq(("axboe@kernel.dk", "Applied, thanks.\n"), ("xu@x", late)))
    assert r.status != "fixed"


# linux-btrfs, "[PATCH] btrfs: shrink delalloc pages instead of full inodes" (Josef Bacik,
# 2021-01-04, <270ea622955d197137bf510ba82ec7f7fa0e425c.1609791839.git.josef@toxicpanda.com>),
# trimmed: a fix's table of the kernels it was measured on, then the patch's own run
DELALLOC = """\
Commit 38d715f494f2 ("btrfs: use btrfs_start_delalloc_roots in
shrink_delalloc") cleaned up how we do delalloc shrinking by utilizing
some infrastructure we have in place to flush inodes that we use for
device replace and snapshot.  However this introduced a pretty serious
performance regression.

The
user reported reproducer was a simple untarring of a large tarball of
the source code for Firefox.  The results are as follows

5.9	0m54.258s
5.10	1m26.212s
Patch	0m38.800s

Fixes: 38d715f494f2 ("btrfs: use btrfs_start_delalloc_roots in shrink_delalloc")
Signed-off-by: Josef Bacik <josef@toxicpanda.com>
"""


def test_a_fixs_table_of_two_releases_sizes_the_regression():
    r = _report(
        Message(
            "270ea622955d197137bf510ba82ec7f7fa0e425c.1609791839.git.josef@toxicpanda.com",
            subject="[PATCH] btrfs: shrink delalloc pages instead of full inodes",
            from_addr="josef@toxicpanda.com",
            body=DELALLOC,
            date_utc="2021-01-04T20:24:11+00:00",
        )
    )
    assert r.is_regression_report and r.status == "fix proposed"
    assert r.regression_pct == 58.89  # 54.258 s on 5.9, 86.212 s on 5.10


# the v2 of the same patch (2021-01-04, <34d0a7e07cf75ca4b44cf54693cd74477649fb88.1609792754.git.
# josef@toxicpanda.com>) and David Sterba's reply (2021-01-07, <20210107180038.GV6430@twin.jikos.cz>),
# trimmed: a reply naming two more kernels does not unmake the patch's own two releases
DELALLOC_REPLY = """\
On Mon, Jan 04, 2021 at 03:39:50PM -0500, Josef Bacik wrote:
> device replace and snapshot.  However this introduced a pretty serious
> performance regression.  To reproduce the user untarred the source
> tarball of Firefox, and would see it take anywhere from 5 to 20 times as
> long to untar in 5.10 compared to 5.9.
[...]
> redid the users original test and got the following results
>
> 5.9	0m54.258s
> 5.10	1m26.212s
> Patched	0m38.800s

Patched is on which base? Also the hardware type seems to be a
significant factor. I've been testing that on some old SSD, the time
difference was about 5 minutes vs 1, both on 5.11-rc2 and 5.10.5. I'll
add my results to the final version of the patch.
"""


def test_a_reply_naming_more_kernels_leaves_the_fixs_two_releases_sizing_it():
    subject = "[PATCH v2] btrfs: shrink delalloc pages instead of full inodes"
    r = _report(
        Message(
            "34d0a7e07cf75ca4b44cf54693cd74477649fb88.1609792754.git.josef@toxicpanda.com",
            subject=subject,
            from_addr="josef@toxicpanda.com",
            body=DELALLOC.replace(
                "simple untarring of a large tarball of\nthe source code for Firefox.",
                "simple untarring of a large tarball of\nthe source code for Firefox, which took anywhere from 5 to 20 times\n"
                "as long to untar in 5.10 compared to 5.9.",
            ),
            date_utc="2021-01-04T20:39:50+00:00",
        ),
        Message(
            "20210107180038.GV6430@twin.jikos.cz",
            subject="Re: " + subject,
            from_addr="dsterba@suse.cz",
            body=DELALLOC_REPLY,
            date_utc="2021-01-07T18:00:38+00:00",
            in_reply_to="34d0a7e07cf75ca4b44cf54693cd74477649fb88.1609792754.git.josef@toxicpanda.com",
        ),
    )
    assert r.regression_pct == 58.89  # the patch's 5.9 and 5.10 rows, not the reply's kernels
    assert {(x.kernel, x.label) for x in r.results if x.value in (54.258, 86.212)} == {
        ("5.9", "baseline"),
        ("5.10", "regressed"),
    }
    assert all(x.label is None for x in r.results if x.kernel == "5.11-rc2")


def test_what_offers_a_fix_in_words():
    for said in (
        # Tejun Heo (linux-block, 2023-12), Song Liu (linux-raid, 2022-01), Jeff Layton
        # (linux-xfs, 2024-09), the kernel test robot (linux-block, 2024-06), a tester
        "Can you please test the following branch?",
        "I think I have found the fix for it, you can find it at",
        "I have a fix for this that I'll post soon.",
        "we applied the patch and found the performance restored.",
        "The patch seems to fix the issue on my box.",
        "Could you try the attached patch?",
    ):
        assert FIX_OFFERED.search(said), said
    for said in (
        "please test the following configuration",
        "the performance is not restored with it",
        "I have a fixed version of the script",
        "this patch fixes a typo",
    ):
        assert not FIX_OFFERED.search(said), said


def test_a_fix_offered_in_words_is_a_fix_proposed():
    """linux-raid, "Raid6 check performance regression 5.15 -> 5.16" (2022-01): the maintainer
    offers his fix as a link; then a user confirms it."""
    report = Message(
        "r@x",
        subject="Raid6 check performance regression 5.15 -> 5.16",
        from_addr="a@x",
        body="One host with a 20 drive array went from 170MB/s to 11MB/s with 5.16.\n",
        date_utc="2022-01-20T00:00:00+00:00",
    )
    offer = Message(
        "o@x",
        subject="Re: " + report.subject,
        from_addr="song@kernel.org",
        body="I think I have found the fix for it, you can find it at https://git.kernel.org/x\n",
        date_utc="2022-01-21T00:00:00+00:00",
        in_reply_to="r@x",
        references=["r@x"],
    )
    assert _report(report).status == "reported"
    assert _report(report, offer).status == "fix proposed"


def test_the_regression_trackers_commands_say_a_fix_is_known_or_it_is_resolved():
    """linux-btrfs, "Scrub of my nvme SSD has slowed by about 2/3" (2023-07): the tracker told
    "#regzbot resolve: various changes merged for 6.6 improve things"; "#regzbot fix:" names a fix."""
    report = Message(
        "r@x",
        subject="Scrub of my nvme SSD has slowed by about 2/3",
        from_addr="a@x",
        body="Scrub of my nvme SSD went from 2.9 GB/s on 6.3 to about 949 MB/s on 6.4.\n",
        date_utc="2023-07-01T00:00:00+00:00",
    )

    def reply(body: str) -> Message:
        return Message(
            "t@x",
            subject="Re: " + report.subject,
            from_addr="regressions@leemhuis.info",
            body=body,
            date_utc="2023-09-01T00:00:00+00:00",
            in_reply_to="r@x",
            references=["r@x"],
        )

    assert _report(report).status == "reported"
    resolved = reply(
        "#regzbot resolve: various changes merged for 6.6 improve things\n#regzbot ignore-activity\n"
    )
    assert _report(report, resolved).status == "fixed"
    fix = reply("#regzbot fix: btrfs: scrub: fix the scrub performance regression\n")
    assert _report(report, fix).status == "fix proposed"
    # the command quoted or spoken of is none
    assert _report(report, reply("> #regzbot resolve: done\nNo, it is not resolved.\n")).status == "reported"


# dm-devel, Mikulas Patocka, "[PATCH] dm writecache: fix performance degradation in ssd mode"
# (2021-01-23, <alpine.LRH.2.02.2101230917360.5678@file01.intranet.prod.int.rdu2.redhat.com>),
# trimmed: a fix whose Fixes: tag names the commit that brought the slowdown it says it fixes,
# in words other than "regression"
WRITECACHE_FIX = """\
Fix a thinko in ssd_commit_superblock. region.count is in sectors, not
bytes. This bug doesn't corrupt data, but it causes performance
degradation.

Signed-off-by: Mikulas Patocka <mpatocka@redhat.com>
Fixes: dc8a01ae1dbd ("dm writecache: optimize superblock write")
Cc: stable@vger.kernel.org	# v5.7
Reported-by: J. Bruce Fields <bfields@redhat.com>
"""
# linux-ext4, Baokun Li, "[PATCH v2] ext4: fix race condition between buffer write and
# page_mkwrite" (2023-05-30, <20230530134405.322194-1-libaokun1@huawei.com>), trimmed: a fix whose
# subject names no slowdown, speaking of one a lock would bring
MKWRITE_FIX = """\
To solve the above issue, we can not add inode_lock directly to
ext4_page_mkwrite(), which would not only cause performance degradation but
also ABBA deadlock (see Link).

Fixes: 7b4cc9787fe3 ("ext4: evict inline data when writing to memory map")
CC: stable@vger.kernel.org # 4.12+
Signed-off-by: Baokun Li <libaokun1@huawei.com>
"""


@pytest.mark.parametrize(
    "subject,body,is_report",
    [
        ("[PATCH] dm writecache: fix performance degradation in ssd mode", WRITECACHE_FIX, True),
        # the same fix without its Fixes: tag: a slowness it improves, no regression named
        (
            "[PATCH] dm writecache: fix performance degradation in ssd mode",
            WRITECACHE_FIX.replace('Fixes: dc8a01ae1dbd ("dm writecache: optimize superblock write")\n', ""),
            False,
        ),
        ("[PATCH v2] ext4: fix race condition between buffer write and page_mkwrite", MKWRITE_FIX, False),
    ],
)
def test_a_fix_tagged_with_the_commit_that_slowed_things_reports_a_regression(subject, body, is_report):
    r = _report(Message("fix@example.org", subject=subject, body=body, date_utc="2021-01-23T14:19:56+00:00"))
    assert r.is_regression_report is is_report
    if is_report:
        assert r.status == "fix proposed"
        assert {c.sha[:12]: c.role for c in r.commits}["dc8a01ae1dbd"] == "culprit"


@pytest.mark.parametrize(
    "subject,body",
    [
        # written: the robot's report of a failed test in the series, not of a metric
        (
            "[fsnotify]  4c40d6efc8:  xfstests.generic.475.fail",
            'FYI, we noticed the following commit:\n\ncommit: 4c40d6efc8b22b88a45c335ffd6d25b55d769f5b ("x")\n',
        ),
        # and of a gain
        (
            "[fsnotify]  4c40d6efc8:  unixbench.score 3.3% improvement",
            ROBOT_UNIXBENCH.replace("a -3.3% regression", "a 3.3% improvement"),
        ),
    ],
)
def test_a_robot_reply_of_no_slowdown_leaves_a_failures_thread_functional(subject, body):
    root, patch, robot = _series_and_robot()
    robot.subject, robot.body = subject, body
    r = _report(root, patch, robot)
    assert not r.is_regression_report


# "allow building a kernel without buffer_heads v3" (Christoph Hellwig, linux-xfs and linux-block,
# 2023-08): two of its six patches, each with its diffstat and a hunk, trimmed; and Xu Yang's reply
# to the fifth, nine months later, <20240426103727.hzzv4hv54an5jzab@hippo>, trimmed
BH_COVER = """\
This series allows to build a kernel without buffer_heads, which I
think is useful to show where the dependencies are.
"""
BH_PATCH = """\
Use iomap in buffer_head compat mode to write to block devices.

Signed-off-by: Christoph Hellwig <hch@lst.de>
---
 block/Kconfig |  1 +
 block/fops.c  | 31 +++++++++++++++++++++++++++++--
 2 files changed, 30 insertions(+), 2 deletions(-)

diff --git a/block/Kconfig b/block/Kconfig
--- a/block/Kconfig
+++ b/block/Kconfig
@@ -5,6 +5,7 @@
 menuconfig BLOCK
+       select FS_IOMAP
"""
BH_REPORT = """\
Hi Christoph,

I'm testing SSD block device write performance recently. I found the write
speed descrased greatly on my board (330MB/s -> 130MB/s). Then I spent some
time to find cause, finally find that it's caused by this patch and if I
revert this patch, write speed can recover to 330MB/s.

I'm using below command to test write performance:
dd if=/dev/zero of=/dev/sda bs=4M count=1024
"""


def _buffer_heads(*later: Message) -> list[Message]:
    root = Message(
        "20230801172201.1923299-1-hch@lst.de",
        subject="[PATCH 0/6] allow building a kernel without buffer_heads v3",
        body=BH_COVER,
        date_utc="2023-08-01T17:21:55+00:00",
    )
    parts = [
        Message(
            f"20230801172201.1923299-{n + 1}-hch@lst.de",
            subject=f"[PATCH {n}/6] {title}",
            body=BH_PATCH,
            in_reply_to=root.message_id,
            references=[root.message_id],
            date_utc=f"2023-08-01T17:2{n}:00+00:00",
        )
        for n, title in (
            (3, "block: open code __generic_file_write_iter"),
            (5, "block: use iomap for writes"),
        )
    ]
    report = Message(
        "20240426103727.hzzv4hv54an5jzab@hippo",
        subject="Re: [PATCH 5/6] block: use iomap for writes to block devices",
        body=BH_REPORT,
        in_reply_to=parts[1].message_id,
        references=[root.message_id, parts[1].message_id],
        date_utc="2024-04-26T10:37:27+00:00",
    )
    for m in (root, *parts):
        m.from_name, m.from_addr = "Christoph Hellwig", "hch@lst.de"
    report.from_name, report.from_addr = "Xu Yang", "xu.yang_2@nxp.com"
    return [root, *parts, report, *later]


def test_a_series_own_patches_before_a_reply_reporting_its_regression_fix_nothing():
    r = _report(*_buffer_heads())
    assert r.is_regression_report
    assert r.status == "reported"  # the series' diffs posted before the report are what regressed


def test_a_patch_its_author_posts_after_the_report_is_a_fix_proposed():
    fix = Message(
        "ZiuX7pYRFa3Qzxyz@infradead.org",
        subject="Re: [PATCH 5/6] block: use iomap for writes to block devices",
        body="Can you try this?\n\n" + BH_PATCH,
        in_reply_to="20240426103727.hzzv4hv54an5jzab@hippo",
        references=["20230801172201.1923299-1-hch@lst.de", "20240426103727.hzzv4hv54an5jzab@hippo"],
        date_utc="2024-04-27T08:00:00+00:00",
    )
    fix.from_name, fix.from_addr = "Christoph Hellwig", "hch@lst.de"
    assert _report(*_buffer_heads(fix)).status == "fix proposed"


def test_a_patch_by_another_before_the_report_still_counts_as_offered():
    """Only the series' own parts are read as what regressed: a reviewer's patch in between is a
    patch offered like any other."""
    msgs = _buffer_heads()
    other = Message(
        "reviewer-patch@x",
        subject="Re: [PATCH 5/6] block: use iomap for writes",
        body="Maybe fold this in:\n\n" + BH_PATCH,
        in_reply_to=msgs[2].message_id,
        references=[msgs[0].message_id, msgs[2].message_id],
        date_utc="2023-08-02T09:00:00+00:00",
    )
    other.from_name, other.from_addr = "Luis Chamberlain", "mcgrof@kernel.org"
    assert _report(*msgs[:3], other, msgs[3]).status == "fix proposed"


def test_a_series_whose_cover_tells_the_regression_it_answers_is_the_fix_proposed():
    """ "[PATCH 0/9] Improve preemptive ENOSPC flushing" (Josef Bacik, linux-btrfs, 2020-09): its
    cover opens with the regression it answers; a reply's measurement does not make its parts the
    regression."""
    msgs = _buffer_heads()
    msgs[0].body = (
        "A while ago Nikolay started digging into a problem where they were seeing an\n"
        "around 20% regression on random writes, and he bisected it down to\n\n"
        "  btrfs: don't end the transaction for delayed refs in throttle\n\n" + BH_COVER
    )
    assert _report(*msgs).status == "fix proposed"


REVERT_SUBJECT = '[PATCH] Revert "block: simplify set_init_blocksize" to regain lost performance'
REVERT_LOG = """\
The cited commit introduced a serious regression with SATA write speed,
as found by bisecting. This patch reverts this commit, which restores
write speed back to the values observed before this commit.

Applying this patch doesn't hurt read performance, while improves the
write speed by 1.5x - 3.5x (more impact on RAID tests).

Signed-off-by: Maxim Mikityanskiy <maxtram95@gmail.com>
Fixes: 5ff9f19231a0 ("block: simplify set_init_blocksize")
"""


def _revert_thread(*replies: tuple[str, str, str]) -> list[Message]:
    root = Message(
        "20210126195907.2273494-1-maxtram95@gmail.com",
        subject=REVERT_SUBJECT,
        body=REVERT_LOG,
        from_name="Maxim Mikityanskiy",
        from_addr="maxtram95@gmail.com",
        date_utc="2021-01-26T19:59:07+00:00",
    )
    out = [root]
    for k, (mid, who, body) in enumerate(replies):
        out.append(
            Message(
                mid,
                subject="Re: " + REVERT_SUBJECT,
                body=body,
                from_name=who,
                from_addr=who.split()[0].lower() + "@example.org",
                in_reply_to=root.message_id,
                references=[root.message_id],
                date_utc=f"2021-01-27T0{k + 4}:00:00+00:00",
            )
        )
    return out


QUESTION = (
    "d3effbdc-12c2-c6aa-98ba-7bde006fc4e1@acm.org",
    "Bart Van Assche",
    "How can this patch affect write speed? I haven't found any calls of\n"
    "set_init_blocksize() in the I/O path. Did I perhaps overlook something?\n",
)
TAKEN = (
    "eac57824-f2eb-9a81-aa5f-3fd62f8e531d@kernel.dk",
    "Jens Axboe",
    "Can't argue with these numbers, and while this should probably get\n"
    "fixed up instead, let's leave that for future kernels. I'll apply this\n"
    "for 5.11, thanks.\n",
)


def test_a_revert_taken_by_its_maintainer_is_reverted():
    r = _report(*_revert_thread(QUESTION, TAKEN))
    assert r.is_regression_report
    assert r.status == "reverted"
    said = next(x for x in r.reasons if x.rule == "status-reverted")
    assert said.message_id == TAKEN[0]


def test_a_revert_nobody_took_yet_is_the_fix_proposed():
    assert _report(*_revert_thread(QUESTION)).status == "fix proposed"


# linux-rdma (and iommu), "performance regression noted in v5.11-rc after c062db039f40" (Chuck Lever,
# 2021-01-08, <D81314ED-5673-44A6-B597-090E3CB83EB0@oracle.com>; trimmed) and Lu Baolu's reply
# <dfd84bd8-37b3-0f7c-6f38-68f68e8f5b0f@linux.intel.com>: the commit reverted is another one the
# report named (the good one), not the culprit (the report's last line, naming it, is added: the
# thread names it in a later reply)
IOMMU_REPORT = """\
Recently I've noticed a significant (25-30%) loss in NFS throughput.
I was able to bisect on my client to the following commits.

Here's 65f746e8285f ("iommu: Add quirk for Intel graphic devices in
map_sg"). This is about normal for this test.

\tChildren see throughput for 12 initial writers \t= 4732581.09 kB/sec

Here's c062db039f40 ("iommu/vt-d: Update domain geometry in
iommu_ops.at(de)tach_dev"). It's losing some steam here.

\tChildren see throughput for 12 initial writers \t= 4342419.12 kB/sec

So c062db039f40 is the first bad commit.
"""
OTHER_REVERTED = """\
The commit 65f746e8285f ("iommu: Add quirk for Intel graphic devices in
map_sg") is a temporary workaround. We have reverted it recently (5.11-
rc3). Can you please try the a kernel version after -rc3?
"""


def _iommu(reply: str) -> list[Message]:
    subject = "performance regression noted in v5.11-rc after c062db039f40"
    root = Message(
        "iommu@x",
        subject=subject,
        from_addr="chuck@x",
        body=IOMMU_REPORT,
        date_utc="2021-01-08T21:18:36+00:00",
    )
    answer = Message(
        "baolu@x",
        subject="Re: " + subject,
        from_addr="baolu@x",
        body=reply,
        in_reply_to=root.message_id,
        references=[root.message_id],
        date_utc="2021-01-13T01:00:00+00:00",
    )
    return [root, answer]


@pytest.mark.parametrize(
    "reply, status",
    [
        (OTHER_REVERTED, "bisected"),
        # the same words of another commit, written otherwise
        ("Commit 65f746e8285f was only a stopgap,\nit has been reverted since.\n", "bisected"),
        # the culprit reverted, named before the words or after them as the revert's own id
        ("Commit c062db039f40 has been reverted in 5.11-rc4.\n", "reverted"),
        ("Thanks for the report; this commit was reverted in 8f2a1b9c77d0.\n", "reverted"),
        ("It has been reverted now.\n", "reverted"),
    ],
)
def test_a_revert_of_another_commit_named_is_no_revert_of_the_culprit(reply, status):
    r = _report(*_iommu(reply))
    assert r.is_regression_report
    assert r.status == status


# bugzilla's mail of a field changed: linux-xfs, "[Bug 204223] ..." (2019-07-19,
# <bug-204223-201763-pRNcYMjPnx@https.bugzilla.kernel.org/> and, reopened,
# <bug-204223-201763-sg1Gc6zQFK@https.bugzilla.kernel.org/>); the report above them is written for
# the pattern
BUG_REPORT = """\
After upgrading from 6.4 to 6.5, fio randread on my NVMe dropped from
410k IOPS to 240k IOPS. Bisected to commit 0123456789ab.
"""
BUG_RESOLVED = """\
https://bugzilla.kernel.org/show_bug.cgi?id=204223

Luis Chamberlain (mcgrof@kernel.org) changed:

           What    |Removed                     |Added
----------------------------------------------------------------------------
             Status|NEW                         |RESOLVED
         Resolution|---                         |{resolution}

--
You are receiving this mail because:
You are watching someone on the CC list of the bug.
"""
BUG_REOPENED = """\
https://bugzilla.kernel.org/show_bug.cgi?id=204223

Luis Chamberlain (mcgrof@kernel.org) changed:

           What    |Removed                     |Added
----------------------------------------------------------------------------
             Status|RESOLVED                    |REOPENED
         Resolution|CODE_FIX                    |---

--- Comment #7 from Luis Chamberlain (mcgrof@kernel.org) ---
Not fixed yet, it just takes longer with this commit to trigger.
"""


def _bug(*changes: str) -> list[Message]:
    subject = "[Bug 204223] New: fio randread 40% slower since 6.5"
    root = Message("bug-204223@x", subject=subject, from_addr="bugzilla-daemon@x", body=BUG_REPORT)
    root.date_utc = "2019-07-01T00:00:00+00:00"
    out = [root]
    for i, body in enumerate(changes, 1):
        out.append(
            Message(
                f"bug-204223-{i}@x",
                subject="[Bug 204223] fio randread 40% slower since 6.5",
                from_addr="bugzilla-daemon@x",
                body=body,
                in_reply_to=root.message_id,
                references=[root.message_id],
                date_utc=f"2019-07-1{i}T00:00:00+00:00",
            )
        )
    return out


@pytest.mark.parametrize(
    "changes, status",
    [
        ((), "bisected"),
        ((BUG_RESOLVED.format(resolution="CODE_FIX"),), "fixed"),
        ((BUG_RESOLVED.format(resolution="PATCH_ALREADY_AVAILABLE"),), "fixed"),
        ((BUG_RESOLVED.format(resolution="FIXED"),), "fixed"),  # the samba project's bugzilla
        ((BUG_RESOLVED.format(resolution="UNREPRODUCIBLE"),), "cannot reproduce"),
        ((BUG_RESOLVED.format(resolution="WORKSFORME"),), "cannot reproduce"),
        # a resolution that says nothing of a fix leaves the status to the mail
        ((BUG_RESOLVED.format(resolution="INVALID"),), "bisected"),
        ((BUG_RESOLVED.format(resolution="OBSOLETE"),), "bisected"),
        # reopened: the last change stands
        ((BUG_RESOLVED.format(resolution="CODE_FIX"), BUG_REOPENED), "bisected"),
    ],
)
def test_a_bugs_resolution_is_its_status(changes, status):
    r = _report(*_bug(*changes))
    assert r.is_regression_report
    assert r.status == status
