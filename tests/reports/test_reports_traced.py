"""A performance regression traced to a commit is a regression report before anyone measures it in mail.

Fixture texts, trimmed, from linux-block (lore.kernel.org/linux-block):
- Yu Kuai, "[PATCH 5/7] mq-deadline: covert to use request_queue->async_depth", 2025-09-30,
  <20250930071111.1218494-6-yukuai1@huaweicloud.com>
- Leah Rumancik, "read regression for dm-snapshot with loopback", 2024-10-03,
  <CACzhbgTFesCa-tpyCqunUoTw-1P2EJ83zDzrcB4fbMi6nNNwng@mail.gmail.com>
- Samuel Holland, "Re: [PATCH 07/17] nbd: call blk_mark_disk_dead in nbd_clear_sock_ioctl",
  2023-09-20, <79af9398-167f-440e-a493-390dc4ccbd85@sifive.com>, and David Sterba,
  "Re: [PATCH 12/17] btrfs: use the super_block as holder when mounting file systems", 2023-08-11,
  <20230811131131.GN2420@suse.cz> (the two put in one thread: a bisected breakage, and
  "performance regressions" said elsewhere of something else)
- Eric Biggers, "[PATCH] block: don't send uevent for empty disk when not invalidating", 2019-12-02,
  <20191202182134.4004-1-ebiggers@kernel.org>
- Sasha Levin's stable bot, "Re: [PATCH RESEND] blk-mq: order adding requests to hctx->dispatch
  and checking SCHED_RESTART", 2020-08-26, <20200826135354.3A3B022B43@mail.kernel.org>
"""

from __future__ import annotations

import pytest

from lkmlkb.extract.messages import extract_messages
from lkmlkb.model import Message
from lkmlkb.reports.build import build_report
from lkmlkb.reports.classify import PERF_NAMED

ASYNC_DEPTH = """\
In downstream kernel, we test with mq-deadline with many fio workloads, and
we found a performance regression after commit 39823b47bbd4
("block/mq-deadline: Fix the tag reservation code") with following test:

[global]
rw=randread
direct=1
ioengine=libaio
iodepth=1024
numjobs=24
bs=1024k

[job1]
filename=/dev/sda

Root cause is that mq-deadline now support configuring async_depth,
although the default value is nr_request, however the minimal value is
1, hence min_shallow_depth is set to 1, causing wake_batch to be 1.

Fixes: 39823b47bbd4 ("block/mq-deadline: Fix the tag reservation code")
Signed-off-by: Yu Kuai <yukuai3@huawei.com>
"""

DM_SNAPSHOT = """\
Hello,

I have been investigating a read performance regression of dm-snapshot
on top of loopback. I bisected the issue to dc5fc361d89 ("block:
attempt direct issue of plug list"). I blktraced before and after this
commit and the main difference I saw was that before this commit, when
the performance was good, there were a lot of IO unplugs on the loop
dev. After this commit, I saw 0 IO unplugs.
"""

NBD_DEAD = """\
This change breaks nbd-client, which calls the NBD_CLEAR_SOCK ioctl during
device setup and socket reconnection. After merging this series (bisected to
511fb5bafed1), all NBD devices are immediately dead on arrival:

[   14.630490]  nbd0: unable to read partition table
"""

BTRFS_LATER = """\
I'll take a look but there are some performance regressions to deal with
and pre-merge window freeze so it won't be soon.
"""

STABLE_BOT = """\
[This is an automated email]

v4.9.232: Failed to apply! Possible dependencies:
    8e8320c9315c ("blk-mq: fix performance regression with shared tags")
    97889f9ac24f ("blk-mq: remove synchronize_rcu() from blk_mq_del_queue_tag_set()")
    bd166ef183c2 ("blk-mq-sched: add framework for MQ capable IO schedulers")
    cf43e6be865a ("block: add scalable completion tracking of requests")
"""


def _report(*messages: Message):
    ((tid, (msgs, findings)),) = extract_messages(list(messages)).items()
    return build_report(tid, msgs, findings)


def test_a_performance_regression_bisected_to_a_commit_is_reported_without_a_figure():
    r = _report(
        Message(
            "20250930071111.1218494-6-yukuai1@huaweicloud.com",
            subject="[PATCH 5/7] mq-deadline: covert to use request_queue->async_depth",
            body=ASYNC_DEPTH,
            date_utc="2025-09-30T07:11:09+00:00",
        )
    )
    assert r.kind == "regression" and r.is_regression_report
    assert r.regression_pct is None  # nothing measured: no size is made up
    assert any(c.sha.startswith("39823b47bbd4") and c.role == "culprit" for c in r.commits)
    assert r.fio_jobs  # and the test that shows it comes with it


def test_a_read_slowdown_bisected_in_the_first_message_is_a_regression_report():
    r = _report(
        Message(
            "CACzhbgTFesCa-tpyCqunUoTw-1P2EJ83zDzrcB4fbMi6nNNwng@mail.gmail.com",
            subject="read regression for dm-snapshot with loopback",
            body=DM_SNAPSHOT,
            date_utc="2024-10-03T21:13:52+00:00",
        )
    )
    assert r.kind == "regression" and r.status == "bisected"


def test_a_bisected_breakage_is_no_performance_regression_because_someone_says_performance_elsewhere():
    root = Message(
        "79af9398-167f-440e-a493-390dc4ccbd85@sifive.com",
        subject="Re: [PATCH 07/17] nbd: call blk_mark_disk_dead in nbd_clear_sock_ioctl",
        body=NBD_DEAD,
        date_utc="2023-09-20T20:41:11+00:00",
    )
    reply = Message(
        "20230811131131.GN2420@suse.cz",
        subject="Re: [PATCH 07/17] nbd: call blk_mark_disk_dead",
        body=BTRFS_LATER,
        date_utc="2023-09-21T13:11:31+00:00",
        in_reply_to=root.message_id,
        references=[root.message_id],
    )
    r = _report(root, reply)
    assert any(c.role == "culprit" for c in r.commits)  # the bisection is read ...
    assert r.kind is None and not r.is_regression_report  # ... but it broke a device, it did not slow one


def test_a_commit_title_that_says_performance_regression_is_not_the_writer_saying_it():
    # the title's "regression with" made every SHA listed after it a culprit, and the list a
    # traced performance regression; a title's words are its commit's, cues for no other SHA
    r = _report(
        Message(
            "20200826135354.3A3B022B43@mail.kernel.org",
            subject="Re: [PATCH RESEND] blk-mq: order adding requests to hctx->dispatch and checking "
            "SCHED_RESTART",
            body=STABLE_BOT,
            date_utc="2020-08-26T13:53:53+00:00",
        )
    )
    assert {c.sha[:12] for c in r.commits} == {"8e8320c9315c", "97889f9ac24f", "bd166ef183c2", "cf43e6be865a"}
    assert all(c.role == "mentioned" for c in r.commits)
    assert not r.is_regression_report


@pytest.mark.parametrize(
    "words,speed",
    [
        ("a performance regression", True),
        ("the slowdown was introduced by", True),
        ("Slow down of LTP tests", True),
        ("writes got slower", True),
        ("Very slow qemu device access", True),
        ("IOPS dropped", True),
        ("the link speed", True),
        ("throughput", True),
        ("read latency", True),
        # the short form before a fall (linux-cifs 2025-06, linux-ext4 2020-04, linux-block 2020)
        ("Perf regression in 6.16-rc1 in generic/676 (readdir related)", True),
        ("ext4 perf regression on LTS kernels", True),
        ("6.10-rc vs. 6.9 perf degradation", True),
        ("a 24% perf drop with the new default", True),
        # a tool, a code path, a bus class: not how fast something ran
        ("perf record segfaults", False),
        ("the slowpath regression", False),
        ("USB high-speed devices", False),
        ("xfs: regression in perf counters", False),
        ("perf top shows a hot spot in blk_mq_run_hw_queue", False),
        ("perf report regressed output format", False),
    ],
)
def test_what_names_a_measure_of_speed(words, speed):
    assert bool(PERF_NAMED.search(words)) is speed


def test_a_later_message_that_traces_a_slowdown_to_a_commit_bisected_earlier_still_counts():
    # the merged citation keeps the first message's evidence: the reply's own citation is read
    # (the thread cut in two from the dm-snapshot report above)
    root = Message(
        "bisect@example.org",
        subject="dm-snapshot with loopback",
        date_utc="2024-10-03T20:00:00+00:00",
        body='I bisected the issue to dc5fc361d89 ("block:\nattempt direct issue of plug list").\n',
    )
    reply = Message(
        "CACzhbgTFesCa-tpyCqunUoTw-1P2EJ83zDzrcB4fbMi6nNNwng@mail.gmail.com",
        subject="Re: dm-snapshot with loopback",
        body=DM_SNAPSHOT,
        date_utc="2024-10-03T21:13:52+00:00",
        in_reply_to=root.message_id,
        references=[root.message_id],
    )
    assert _report(root, reply).kind == "regression"


# adapted from Petr Vorel's LTP report (linux-block, <20240719174325.GA775414@pevik>): the paragraph
# between the slowdown and the bisection is written for this test
LTP_FAR = """\
It looks to be the slowdown was introduced in the last few releases.

The tests run aiodio_sparse.c and dio_sparse.c with 8 children each, on a
small loop device, and print the time they took. Both take much longer
now on the machines we looked at, and the cause was found by bisecting
the kernel tree on one of them, which took a while.

I bisected it to commit 63304558ba5d ("sched/eevdf: Curb wakeup-preemption").
"""


def test_a_slowdown_bisected_in_the_same_message_is_traced_however_far_apart():
    # a message that names a slowdown and bisects it reports a regression, however many lines
    # stand between the two
    r = _report(
        Message(
            "20240719174325.GA775414@pevik",
            subject="LTP aiodio_sparse.c and dio_sparse.c in 6.6",
            body=LTP_FAR,
            date_utc="2024-07-19T17:43:25+00:00",
        )
    )
    assert r.is_regression_report and any(x.rule == "traced-slowdown" for x in r.reasons)


def test_a_commit_blamed_in_prose_far_from_a_slowdown_is_not_traced_to_it():
    # a culprit named in prose ("introduced") traces only what is said beside it: six lines away,
    # the leak it introduced is another story than the slowdown
    body = LTP_FAR.replace(
        'I bisected it to commit 63304558ba5d ("sched/eevdf: Curb wakeup-preemption").',
        "Unrelated: a memory leak in the loop driver was introduced by\n"
        'commit 63304558ba5d ("sched/eevdf: Curb wakeup-preemption").',
    )
    r = _report(
        Message(
            "20240719174325.GA775414@pevik",
            subject="LTP aiodio_sparse.c and dio_sparse.c in 6.6",
            body=body,
            date_utc="2024-07-19T17:43:25+00:00",
        )
    )
    assert any(c.role == "culprit" for c in r.commits)
    assert not any(x.rule == "traced-slowdown" for x in r.reasons)


UDEV_SPINS = """\
Commit 6917d0689993 ("block: merge invalidate_partitions into
rescan_partitions") caused a regression where systemd-udevd spins
forever using max CPU starting at boot time.

Restore the old behavior.

Fixes: 6917d0689993 ("block: merge invalidate_partitions into rescan_partitions")
"""


def test_a_regression_traced_to_a_commit_that_names_no_speed_is_not_a_performance_one():
    r = _report(
        Message(
            "20191202182134.4004-1-ebiggers@kernel.org",
            subject="[PATCH] block: don't send uevent for empty disk when not invalidating",
            body=UDEV_SPINS,
            date_utc="2019-12-02T18:21:34+00:00",
        )
    )
    assert any(c.role == "culprit" and c.form != "fixes" for c in r.commits)  # "Commit X caused a regression"
    assert not r.is_regression_report


def test_a_fixes_tag_beside_a_patchs_words_about_a_slowdown_is_no_bisection():
    # constructed (no message of the three archives read has one): a patch says what it repairs,
    # and its Fixes: tag names the commit it repairs; that is no report of a regression
    body = (
        "Restore batched wakeups in mq-deadline: a wake_batch of 1 is a performance\n"
        "regression with many jobs on HDDs.\n"
        'Fixes: 39823b47bbd4 ("block/mq-deadline: Fix the tag reservation code")\n'
    )
    msg = Message(
        "fixes-only@example.org",
        subject="[PATCH] mq-deadline: restore batched wakeups",
        body=body,
        date_utc="2025-09-30T07:11:09+00:00",
    )
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    assert any(
        c.kind == "regression" for c in findings[0].claims
    )  # "a performance" ending one line, "regression" the next
    r = build_report(tid, msgs, findings)
    assert [c.form for c in r.commits if c.role == "culprit"] == ["fixes"]
    assert not r.is_regression_report


def test_a_regression_asked_about_is_not_one_found():
    # constructed (the review's case; none of the 15 real traced threads asks): the commit
    # extractor reads "caused" as a culprit's cue; the claims extractor reads no claim in a
    # question (tests/extract/test_claims.py has the real sentences)
    body = 'We checked whether commit 0123456789ab ("blk-mq: rework dispatch") caused a performance regression and found none.\n'
    msg = Message(
        "asked@example.org",
        subject="blk-mq dispatch rework test results",
        body=body,
        date_utc="2024-01-01T00:00:00+00:00",
    )
    ((tid, (msgs, findings)),) = extract_messages([msg]).items()
    assert any(c.role == "culprit" for c in findings[0].commits) and not findings[0].claims
    assert build_report(tid, msgs, findings).kind is None


# linux-ext4, Sasha Levin, "ext4 perf regression on LTS kernels", 2020-04-30,
# <20200430223458.GY13035@sasha-vm> (trimmed): the slowdown is named in the first lines, "the
# regression" is traced to a commit further down
LTS_EXT4 = """\
We're working on trying to figure out a severe performance regression in
the 5.4 and older LTS trees. The regression seems to happen only on
physical spinning rust disks, which is why it was probably went
unnoticed.

The regression seems to be introduced in v4.7 with:

       1f60fbe72749 ("ext4: allow readdir()'s of large empty directories to be interrupted")

When run with the offending commit, it'll take 3-4x longer to complete.
"""


def _one(body: str, subject: str = "ext4 perf regression on LTS kernels"):
    return _report(
        Message(
            "20200430223458.GY13035@sasha-vm",
            subject=subject,
            body=body,
            date_utc="2020-04-30T22:34:58+00:00",
        )
    )


@pytest.mark.parametrize(
    "body",
    [
        LTS_EXT4,
        # written for the pattern: another speed word named first, "this regression" traced
        "Since last week our nightly runs show a throughput regression of the\n"
        "database load on XFS.\n\n"
        "The machines are two-socket servers with a RAID of spinning disks\n"
        "and 256G of memory, each running the same configuration.\n\n"
        "This regression is caused by commit 1f60fbe72749 (\"ext4: allow readdir()'s\n"
        'of large empty directories to be interrupted").\n',
    ],
)
def test_the_regression_traced_is_the_slowdown_named_before_it(body):
    r = _one(body)
    assert r.is_regression_report and any(x.rule == "traced-slowdown" for x in r.reasons)
    assert [c.sha for c in r.commits if c.role == "culprit"] == ["1f60fbe72749"]


@pytest.mark.parametrize(
    "body",
    [
        # no speed named anywhere: "the regression" traced is any regression
        LTS_EXT4.replace("severe performance regression", "severe regression").replace(
            "When run with the offending commit, it'll take 3-4x longer to complete.\n", ""
        ),
        # the speed named only after the traced regression, of something else
        "The regression seems to be introduced in v4.7 with:\n\n"
        '       1f60fbe72749 ("ext4: allow readdir()\'s of large empty directories to be interrupted")\n\n'
        "\n\n\n\nmounts fail with EIO since then. Unrelated, there is a performance regression\n"
        "in the 5.4 tree we are still looking at.\n",
    ],
)
def test_the_regression_traced_needs_a_slowdown_named_before_it(body):
    r = _one(body, subject="ext4 regression on LTS kernels")
    assert not any(x.rule == "traced-slowdown" for x in r.reasons)


# linux-cifs, Steve French, "Perf regression in 6.16-rc1 in generic/676 (readdir related)",
# 2025-06-09, <CAH2r5mu5SfBrdc2CFHwzft8=n9koPMk+Jzwpy-oUMx-wCRCesQ@mail.gmail.com> (trimmed): the
# subject names the slowdown in the short form, the mail names the commit
GENERIC_676 = """\
Instead of the usual 10 to 12 minutes to run generic/676 (on all
kernels up to 6.15), we are now seeing 23-30 minutes to run
generic/676, much more than twice as slow.   It looks like this is due
to unnecessary revalidates now being sent to the fs (starting with
6.16-rc1 kernels) on every file in a directory, and is caused by
readdir.   Bharath was trying to isolate the commit that caused this,
but this recently merged series could be related:

06c567403ae5 Use try_lookup_noperm() instead of d_hash_and_lookup()
outside of VFS
"""


@pytest.mark.parametrize(
    "subject,listed",
    [
        ("Perf regression in 6.16-rc1 in generic/676 (readdir related)", True),
        # a regression of the tool named perf is no slowdown
        ("perf report regression in 6.16-rc1 in generic/676", False),
    ],
)
def test_a_subject_saying_perf_regression_names_the_slowdown_traced(subject, listed):
    body = GENERIC_676 if listed else GENERIC_676.replace("much more than twice as slow", "all of them fail")
    r = _report(
        Message(
            "CAH2r5mu5SfBrdc2CFHwzft8=n9koPMk+Jzwpy-oUMx-wCRCesQ@mail.gmail.com",
            subject=subject,
            body=body,
            date_utc="2025-06-09T17:06:23+00:00",
        )
    )
    assert r.is_regression_report is listed
