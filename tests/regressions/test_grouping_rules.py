"""The grouping rules on their own: what joins two threads and what never does.

The subjects are those of real threads: "block: significant performance regression in iSCSI
rescan" (linux-block, 2023-05-26) and "[PATCH] block: fix revalidate performance regression" /
"[PATCH v2] ..." (linux-block, 2023-05-29, Damien Le Moal)."""

from __future__ import annotations

import pytest

from lkmlkb.regressions import keys as K
from lkmlkb.regressions.group import ThreadRow, group, status_of
from lkmlkb.regressions.keys import Key, patch_version, sha_match, strip_subject

SUBJECT = "block: significant performance regression in iscsi rescan"


def _row(tid: str, date: str, report: bool = True) -> ThreadRow:
    return ThreadRow(tid, title=SUBJECT, is_regression_report=report, first_date=date)


def _subject_keys(who: str) -> list[Key]:
    return [Key(K.SUBJECT, SUBJECT), Key(K.PERSON, who), Key(K.PART, K.REPORT)]


def _fix_keys(tid: str, date: str, sha: str, author: str) -> list[Key]:
    """The keys of a thread posting one version of a fix of ``sha`` by ``author``."""
    return [
        Key(K.FIXES, sha, f"{tid}@x", date, f"Fixes: {sha}"),
        Key(K.AUTHOR, author),
        Key(K.PART, "fix proposed v1"),
    ]


def test_a_reply_that_lost_its_references_joins_within_days():
    rows = [_row("a", "2023-05-26T15:48:29+00:00"), _row("b", "2023-05-27T18:46:30+00:00")]
    found = group(rows, {"a": _subject_keys("brian bunker"), "b": _subject_keys("brian bunker")})
    assert len(found) == 1
    reason = next(m.reason for m in found[0].members if m.thread_id == "b")
    assert "lost References" in reason and "brian bunker" in reason


def test_one_subject_months_apart_or_by_other_people_never_joins():
    months = [_row("a", "2023-05-26T15:48:29+00:00"), _row("b", "2023-09-27T18:46:30+00:00")]
    assert len(group(months, {"a": _subject_keys("brian bunker"), "b": _subject_keys("brian bunker")})) == 2
    days = [_row("a", "2023-05-26T15:48:29+00:00"), _row("b", "2023-05-27T18:46:30+00:00")]
    assert len(group(days, {"a": _subject_keys("brian bunker"), "b": _subject_keys("jens axboe")})) == 2


def test_short_sha_prefixes_do_not_join():
    assert sha_match("508aebb80527", "508aebb805277c541e94ee14daba4191ff02347e")
    assert not sha_match("508aebb805", "508aebb805277c541e94ee14daba4191ff02347e")
    rows = [_row("a", "2023-05-26T00:00:00+00:00"), _row("b", "2023-05-29T00:00:00+00:00", report=False)]
    keys = {
        "a": [Key(K.CULPRIT, "508aebb805277c541e94ee14daba4191ff02347e")],
        "b": [Key(K.FIXES, "508aebb805")],
    }
    assert [len(r.members) for r in group(rows, keys)] == [1]


def test_a_thread_without_a_regression_report_makes_no_regression_alone():
    rows = [_row("p", "2023-05-29T00:00:00+00:00", report=False)]
    assert group(rows, {"p": [Key(K.PART, "fix proposed v1")]}) == []


def test_subjects_and_versions():
    assert strip_subject("Re: [PATCH v2] block: fix revalidate performance regression") == (
        "block: fix revalidate performance regression"
    )
    assert patch_version("[PATCH v2] block: fix revalidate performance regression") == 2
    assert patch_version("[PATCH] block: fix revalidate performance regression") == 1
    assert patch_version("block: significant performance regression in iSCSI rescan") is None


def test_the_status_is_the_latest_stage():
    from lkmlkb.regressions.group import Event

    ev = [Event("reported", None, "a", None, ""), Event("fix proposed", None, "b", None, "")]
    assert status_of(ev) == "fix proposed"
    assert status_of(ev + [Event("reverted", None, "c", None, "")]) == "reverted"


def test_a_patch_never_bridges_two_regressions():
    """A patch whose `Fixes:` names one report's culprit and whose `Link:` names another report
    joins one of them, not both."""
    rows = [
        _row("r1", "2023-05-26T00:00:00+00:00"),
        _row("r2", "2023-06-26T00:00:00+00:00"),
        _row("p", "2023-07-01T00:00:00+00:00", report=False),
    ]
    keys = {
        "r1": [Key(K.CULPRIT, "508aebb805277c541e94ee14daba4191ff02347e")],
        "r2": [],
        "p": [Key(K.FIXES, "508aebb80527", "p@x", None, "Fixes: 508aebb80527"), Key(K.LINK, "m2@x")],
    }
    found = group(rows, keys, locate={"m2@x": "r2"})
    assert sorted(len(g.members) for g in found) == [1, 2]


def test_a_fixes_tag_joins_a_patch_only_when_it_names_the_reporter_or_the_regression():
    """`Fixes:` says a patch fixes a bug of the commit, not the reported one (on linux-block the
    fixes of "block: Introduce zone write plugging" are many; one report blames it)."""
    culprit = "dd291d77cc90"
    report = ThreadRow("r", title="disk removal slowdown due to rcu_barrier", is_regression_report=True)
    patch = ThreadRow("p", title="[PATCH 0/2] Fixes for zone write plugging")
    keys = {
        "r": [Key(K.CULPRIT, culprit + "abcdef"), Key(K.AUTHOR, "keith busch")],
        "p": [Key(K.FIXES, culprit, "p@x", None, f"Fixes: {culprit}"), Key(K.PART, "fix proposed v1")],
    }
    assert [len(g.members) for g in group([report, patch], keys)] == [1]
    keys["p"].append(Key(K.TRAILER, "keith busch"))
    (g,) = group([report, patch], keys)
    assert len(g.members) == 2
    assert "trailers name the reporter keith busch" in next(m.reason for m in g.members if m.thread_id == "p")


def test_two_patches_of_one_commit_do_not_join_by_it():
    sha = "39823b47bbd4" + "0" * 28
    report = ThreadRow("r", title="[BUG] a slowdown", is_regression_report=True)
    p1 = ThreadRow("p1", title="[PATCH] blk-mq: fix elevator depth_updated method")
    p2 = ThreadRow("p2", title="[PATCH v2 0/2] blk-mq: fix update nr_requests regressions")
    keys = {
        "r": [Key(K.CULPRIT, "5" * 40), Key(K.AUTHOR, "someone")],
        "p1": [Key(K.CULPRIT, sha), Key(K.LINK, "m@x", "p1@x", None, "Closes: m@x")],
        "p2": [Key(K.CULPRIT, sha)],
    }
    (g,) = group([report, p1, p2], keys, locate={"m@x": "r"})
    assert sorted(m.thread_id for m in g.members) == ["p1", "r"]


def test_a_thread_neither_report_nor_patch_never_joins_by_a_culprit():
    """linux-block, 2020-09: "REGRESSION: 37f4a24c2469: blk-mq: ..." is a hang whose bisection
    was wrong; it names the culprit of a slowdown report and says regression in its subject, but
    it is no patch and reports no slowdown: it joins nothing."""
    sha = "37f4a24c2469" + "a" * 28
    report = ThreadRow("r", title="Very slow qemu device access", is_regression_report=True)
    hang = ThreadRow("h", title="REGRESSION: 37f4a24c2469: blk-mq: centralise related handling")
    fix = ThreadRow("p", title="[PATCH] block: fix double account of flush request's driver tag")
    keys = {
        "r": [Key(K.CULPRIT, sha), Key(K.AUTHOR, "matthew wilcox"), Key(K.PART, K.REPORT)],
        "h": [Key(K.CULPRIT, sha[:12], "h@x", None, "37f4a24c2469 is the first bad commit")],
        "p": [
            Key(K.FIXES, sha[:12], "p@x", None, f"Fixes: {sha[:12]}"),
            Key(K.TRAILER, "matthew wilcox"),
            Key(K.PART, "fix proposed v1"),
        ],
    }
    (g,) = group([report, hang, fix], keys)
    assert sorted(m.thread_id for m in g.members) == ["p", "r"]


def test_a_stable_backport_joins_through_a_link_to_a_threads_first_message_only():
    """A backport's Link: to one patch inside a series' thread says where the patch was posted
    (linux-block, 2025: a CVE fix's backport carrying a patch of the series a reply had found
    slow); one to a report, or to a fix posted alone, says what it fixes."""
    report = ThreadRow(
        "r", title="allow building a kernel without buffer_heads v3", is_regression_report=True
    )
    backport = ThreadRow("b", title="[PATCH 6.1 0/8] Backporting a CVE fix patch")
    keys = {
        "r": [Key(K.PART, K.REPORT)],
        "b": [
            Key(K.LINK, "r-6@x", "b@x", None, "Link: https://lore.kernel.org/r/r-6@x"),
            Key(K.PART, K.STABLE),
        ],
    }
    locate = {"r-6@x": "r", "r": "r"}
    assert [len(g.members) for g in group([report, backport], keys, locate=locate)] == [1]
    keys["b"].append(Key(K.LINK, "r", "b@x", None, "Link: https://lore.kernel.org/r/r"))
    (g,) = group([report, backport], keys, locate=locate)
    assert sorted(m.thread_id for m in g.members) == ["b", "r"]


def test_versions_of_one_regression_fix_under_new_subjects_join():
    """linux-block, 2025-12: "[PATCH 0/2] block/blk-mq: fix RT kernel performance regressions"
    and its v2 "... fix RT kernel issues and interrupt context warnings": one author, one Fixes:
    target, both fixing a slowdown; an author's fixes of other bugs of the commit stay apart."""
    sha = "679b1874eba7"
    v1 = ThreadRow(
        "v1",
        title="[PATCH 0/2] block/blk-mq: fix RT kernel performance regressions",
        is_regression_report=True,
    )
    v2 = ThreadRow("v2", title="[PATCH v2 0/2] block/blk-mq: fix RT kernel issues", is_regression_report=True)
    other = ThreadRow("o", title="[PATCH] blk-mq: fix a use after free")
    keys = {
        t: [*_fix_keys(t, d, sha, "ionut nechita"), Key(K.CULPRIT, sha)]
        for t, d in (
            ("v1", "2025-12-20T11:02:41+00:00"),
            ("v2", "2025-12-22T20:15:41+00:00"),
            ("o", "2025-12-23T10:00:00+00:00"),
        )
    }
    found = group([v1, v2, other], keys)
    assert sorted(sorted(m.thread_id for m in g.members) for g in found) == [["v1", "v2"]]
    reason = next(
        m.reason for g in found for m in g.members if m.thread_id in ("v1", "v2") and "one fix" in m.reason
    )
    assert sha in reason
    # two fixes of the commit, each of a slowdown, neither saying regression: not known to be one
    other.is_regression_report = True
    found = group([v2, other], keys)
    assert sorted(sorted(m.thread_id for m in g.members) for g in found) == [["o"], ["v2"]]


def test_the_posting_a_patch_was_sent_in_is_read_from_its_message_id():
    """Message-IDs of linux-block patches, one of each sender's form."""
    # git send-email: <date and time>.<pid>-<place>-<sender>
    assert K.posting_of("20251116032044.118664-6-yukuai@fnnas.com") == K.posting_of(
        "<20251116032044.118664-1-yukuai@fnnas.com>"
    )
    assert K.posting_of("20251116032044.118664-6-yukuai@fnnas.com") != K.posting_of(
        "20251116035228.119987-1-yukuai@fnnas.com"
    )
    # git send-email before 2.x, and b4
    assert K.posting_of("1634151995-16266-7-git-send-email-deven.desai@linux.microsoft.com") == K.posting_of(
        "1634151995-16266-1-git-send-email-deven.desai@linux.microsoft.com"
    )
    assert K.posting_of("20240806-isolcpus-io-queues-v3-3-da0eecfeaf8b@suse.de") == K.posting_of(
        "20240806-isolcpus-io-queues-v3-0-da0eecfeaf8b@suse.de"
    )
    assert K.posting_of("20240806-isolcpus-io-queues-v3-3-da0eecfeaf8b@suse.de") != K.posting_of(
        "20240806-isolcpus-io-queues-v2-3-da0eecfeaf8b@suse.de"
    )
    # IDs a mail client makes name no posting
    for mid in (
        "fb63b227-7f73-44a1-84a6-eecdd7496968@fnnas.com",
        "Zesxq81eJTnOGniB@kbusch-mbp",
        "202008171246.80287CDCA@keescook",
    ):
        assert K.posting_of(mid) is None


def _patch_thread(mid: str, subject: str, date: str, *, report: bool = True) -> K.ThreadInput:
    text = 'Fixes: 39823b47bbd4 ("block/mq-deadline: Fix the tag reservation code")\n'
    return K.ThreadInput(
        mid,
        title=subject,
        is_regression_report=report,
        first_date=date,
        mails=[K.Mail(mid, subject, "Yu Kuai", mid.split("-")[-1], date, text)],
    )


def test_a_patch_that_lost_its_in_reply_to_joins_the_thread_of_its_posting():
    """linux-block, 2025-11-16: patch 5/7 of "[PATCH RESEND v4 0/7] blk-mq: introduce new queue
    attribute async_depth" arrived without its In-Reply-To and became a thread of its own."""
    cover = _patch_thread(
        "20251116032044.118664-1-yukuai@fnnas.com",
        "[PATCH RESEND v4 0/7] blk-mq: introduce new queue attribute async_depth",
        "2025-11-16T03:20:44+00:00",
    )
    lost = _patch_thread(
        "20251116032044.118664-6-yukuai@fnnas.com",
        "[PATCH RESEND v4 5/7] mq-deadline: covert to use request_queue->async_depth",
        "2025-11-16T03:20:49+00:00",
    )
    other = _patch_thread(
        "20251116035228.119987-3-yukuai@fnnas.com",
        "[PATCH 2/2] mq-deadline: fix a race of the dispatch list",
        "2025-11-16T03:52:28+00:00",
    )
    threads = (cover, lost, other)
    keys = {t.thread_id: K.thread_keys(t) for t in threads}
    assert any(k.kind == K.POSTING for k in keys[lost.thread_id])
    rows = [
        ThreadRow(t.thread_id, title=t.title, is_regression_report=True, first_date=t.first_date)
        for t in threads
    ]
    groups = sorted(sorted(m.thread_id for m in g.members) for g in group(rows, keys))
    assert [cover.thread_id, lost.thread_id] in groups
    assert [other.thread_id] in groups
    joined = next(g for g in group(rows, keys) if len(g.members) == 2)
    assert any("one posting" in m.reason for m in joined.members)


def test_versions_of_one_fix_join_when_their_subjects_differ_by_a_typo():
    """linux-block, 2025-08 and 2025-09: "[PATCH 00/16] blk-mq: introduce new queue attribute
    asyc_dpeth" and "[PATCH 0/7] blk-mq: introduce new queue attribute async_depth", one author,
    one Fixes: target (the mq-deadline slowdown of 39823b47bbd4)."""
    sha = "39823b47bbd4"
    first = ThreadRow(
        "a", title="[PATCH 00/16] blk-mq: introduce new queue attribute asyc_dpeth", is_regression_report=True
    )
    later = ThreadRow(
        "b", title="[PATCH 0/7] blk-mq: introduce new queue attribute async_depth", is_regression_report=True
    )
    other = ThreadRow("o", title="[PATCH] mq-deadline: remove the tag reservation", is_regression_report=True)
    keys = {
        "a": _fix_keys("a", "2025-08-14T03:35:22+00:00", sha, "yu kuai"),
        "b": _fix_keys("b", "2025-09-30T07:11:11+00:00", sha, "yu kuai"),
        "o": _fix_keys("o", "2025-10-01T00:00:00+00:00", sha, "yu kuai"),
    }
    groups = sorted(sorted(m.thread_id for m in g.members) for g in group([first, later, other], keys))
    assert groups == [["a", "b"], ["o"]]
    # the same subjects a year apart are not one fix's versions
    keys["b"] = _fix_keys("b", "2026-09-30T07:11:11+00:00", sha, "yu kuai")
    groups = sorted(sorted(m.thread_id for m in g.members) for g in group([first, later, other], keys))
    assert groups == [["a"], ["b"], ["o"]]


def _robot_thread(mid: str, subject: str, date: str, text: str) -> K.ThreadInput:
    return K.ThreadInput(
        mid,
        title=subject,
        is_regression_report=True,
        culprits=["c87c299776a1b2c3d4e5f60718293a4b5c6d7e8f"],
        first_date=date,
        mails=[K.Mail(mid, subject, "kernel test robot", "oliver.sang@intel.com", date, text)],
    )


def test_a_robot_report_naming_its_earlier_report_joins_it_though_the_metrics_differ():
    """linux-btrfs, 2024-11-30 and 2025-01-31: the robot's second report of commit c87c299776
    (another metric) names its first: 'we reported "[linus:master] [btrfs] c87c299776:
    iozone.average_KBps 18.5% regression" in https://lore.kernel.org/all/2024...-lkp@intel.com/'."""
    first = _robot_thread(
        "202411302252.67284087-lkp@intel.com",
        "[linus:master] [btrfs] c87c299776: iozone.average_KBps 18.5% regression",
        "2024-11-30T14:52:00+00:00",
        "Hello,\n\nkernel test robot noticed a 18.5% regression of iozone.average_KBps on:\n",
    )
    earlier = (
        'hi,\n\nwe reported\n"[linus:master] [btrfs]  c87c299776:  iozone.average_KBps 18.5% regression"\nin\n'
        "https://lore.kernel.org/all/202411302252.67284087-lkp@intel.com/\n"
    )
    second = _robot_thread(
        "202501311641.4c5b6a89-lkp@intel.com",
        "[linus:master] [btrfs] c87c299776: fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec 8.0% regression",
        "2025-01-31T16:41:00+00:00",
        earlier
        + "\nnow we noticed a 8.0% regression of fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec on:\n",
    )
    threads = (first, second)
    keys = {t.thread_id: K.thread_keys(t) for t in threads}
    rows = [
        ThreadRow(t.thread_id, title=t.title, is_regression_report=True, first_date=t.first_date)
        for t in threads
    ]
    locate = {first.thread_id: first.thread_id, second.thread_id: second.thread_id}
    found = group(rows, keys, locate)
    assert [len(g.members) for g in found] == [2]
    assert any("we reported" in m.reason for m in found[0].members)
    # without the sentence naming the first report, the two metrics keep them apart
    second.mails[0].text = second.mails[0].text.replace(earlier, "")
    keys[second.thread_id] = K.thread_keys(second)
    assert [len(g.members) for g in group(rows, keys, locate)] == [1, 1]


def _fix_row(tid: str) -> ThreadRow:
    return ThreadRow(tid, title=f"[PATCH] {tid}", first_date="2024-12-28T00:00:00+00:00")


def test_a_patch_closing_another_robot_report_does_not_fix_this_one():
    """io-uring, 2024-12: the robot's fio.read_bw_MBps -51.1% report of 8cf0c459993e, and a fix of a
    sparse warning of that commit: "Reported-by: kernel test robot <lkp@intel.com>", "Closes:
    .../202412180253.YML3qN4d-lkp@intel.com/" (the robot's build report, another bug)."""
    sha = "8cf0c459993ee2911f4f01fba21b1987b102c887"
    report = ThreadRow(
        "r",
        title="[linus:master] [io_uring/rw] 8cf0c45999: fio.read_bw_MBps -51.1% regression",
        is_regression_report=True,
    )
    keys = {
        "r": [Key(K.CULPRIT, sha), Key(K.AUTHOR, "kernel test robot"), Key(K.PART, K.ROBOT)],
        "p": [
            Key(K.FIXES, sha[:12], "p@x", None, f"Fixes: {sha[:12]}"),
            Key(K.TRAILER, "kernel test robot"),
            Key(K.LINK, "202412180253.YML3qN4d-lkp@intel.com", "p@x", None, "Closes: ..."),
            Key(K.PART, "fix proposed v1"),
        ],
    }
    assert [sorted(m.thread_id for m in g.members) for g in group([report, _fix_row("p")], keys)] == [["r"]]
    # the same patch closing this report, or naming no report of the robot, is its fix
    keys["p"][2] = Key(K.LINK, "202412271132.a09c3500-lkp@intel.com", "p@x", None, "Closes: ...")
    locate = {"202412271132.a09c3500-lkp@intel.com": "r"}
    assert [sorted(m.thread_id for m in g.members) for g in group([report, _fix_row("p")], keys, locate)] == [
        ["p", "r"]
    ]
    del keys["p"][2]
    assert [sorted(m.thread_id for m in g.members) for g in group([report, _fix_row("p")], keys)] == [
        ["p", "r"]
    ]


def test_versions_closing_one_robot_report_join_though_their_subject_changed():
    """linux-ext4, 2023-07: "[PATCH v2] ext4: improve discard efficiency" and "[PATCH v3] ext4:
    improve trim efficiency" both say "Closes: .../oe-lkp/202307171455.ee68ef8b-oliver.sang@intel.com",
    a report the robot sent into the thread of v1."""
    target = "202307171455.ee68ef8b-oliver.sang@intel.com"
    rows = [
        ThreadRow("v1", title="[PATCH] ext4: improve discard efficiency"),
        ThreadRow("v2", title="[PATCH v2] ext4: improve discard efficiency", is_regression_report=True),
        ThreadRow("v3", title="[PATCH v3] ext4: improve trim efficiency", is_regression_report=True),
    ]

    def closes(t: str) -> list[Key]:
        return [Key(K.LINK, target, f"{t}@x", None, f"Closes: {target}"), Key(K.PART, "fix proposed v1")]

    keys = {"v1": [Key(K.PART, "fix proposed v1")], "v2": closes("v2"), "v3": closes("v3")}
    found = group(rows, keys, {target: "v1"})
    assert [sorted(m.thread_id for m in g.members) for g in found] == [["v1", "v2", "v3"]]
    # a crash report two patches name (syzbot's, in a thread that is no regression report) is not
    # known to be this regression
    other = "000000000000892280061a344581@google.com"
    keys = {
        t: [Key(K.LINK, other, f"{t}@x", None, f"Link: {other}"), Key(K.PART, "fix proposed v1")]
        for t in ("v2", "v3")
    }
    keys["v1"] = [Key(K.PART, "fix proposed v1")]
    assert len(group(rows, keys, {other: "v1"})) == 2


def test_a_report_linking_the_discussion_of_its_culprit_joins_it():
    """linux-ext4, 2022-09 ("significant drop  fio IOPS performance on v5.10"): a report of the
    dioread_nolock slowdown of 244adf6426ee says "This is
    continuation for the discussion I raised in https://lore.kernel.org/all/<id>/t/"; the earlier
    thread wrote the culprit as 244adf6426 (10 hex digits: too short to join by the SHA alone)."""
    earlier_reply = "CACX6voDhGxiyAxaEu0OL+hHFDD9kigso-YVrWTk4jcbvYZKVew@mail.gmail.com"
    text = (
        "This is continuation for the discussion I raised in "
        f"https://lore.kernel.org/all/{earlier_reply}/t/ so I am adding Theo to the thread.\n"
    )
    later = K.ThreadInput(
        "later",
        title="significant drop  fio IOPS performance on v5.10",
        is_regression_report=True,
        culprits=["244adf6426ee31a83f397b700d964cff12a247d3"],
        mails=[
            K.Mail(
                "later",
                "significant drop  fio IOPS performance on v5.10",
                "Davina Lu",
                "davinalu@amazon.com",
                None,
                text,
            )
        ],
    )
    keys = {
        "later": K.thread_keys(later),
        "earlier": [Key(K.CULPRIT, "244adf6426"), Key(K.PART, K.REPORT)],
    }
    assert Key(K.REFERS, earlier_reply) in [Key(k.kind, k.value) for k in keys["later"]]
    rows = [ThreadRow("earlier", is_regression_report=True), ThreadRow("later", is_regression_report=True)]
    locate = {earlier_reply: "earlier"}
    found = group(rows, keys, locate)
    assert [sorted(m.thread_id for m in g.members) for g in found] == [["earlier", "later"]]
    assert any("links" in m.reason and "244adf6426" in m.reason for m in found[0].members)
    # no commit both blame: a link for context only
    keys["earlier"][0] = Key(K.CULPRIT, "c8980e1980")
    assert len(group(rows, keys, locate)) == 2


def test_patches_linking_their_earlier_versions_or_backports_do_not_join_by_the_link():
    """Versions of one patch link each other and name one commit ("xfs: log recovery hang fixes"
    and its v3, linux-xfs 2022-03), and a stable backport links every patch it carries: the
    series and the backport rules decide those, not the link."""
    mid = "20220307053252.2534616-1-david@fromorbit.com"
    keys = {
        "v1": [Key(K.CULPRIT, "0020a190cf3e"), Key(K.FIXES, "0020a190cf3e"), Key(K.PART, "fix proposed v1")],
        "v3": [
            Key(K.CULPRIT, "0020a190cf3e"),
            Key(K.FIXES, "0020a190cf3e"),
            Key(K.REFERS, mid, "v3@x", None, f"https://lore.kernel.org/r/{mid}"),
            Key(K.PART, "fix proposed v3"),
        ],
    }
    rows = [ThreadRow("v1", is_regression_report=True), ThreadRow("v3", is_regression_report=True)]
    assert len(group(rows, keys, {mid: "v1"})) == 2
    # a report and a backport bundle carrying its fix
    keys["v1"] = [Key(K.CULPRIT, "0020a190cf3e"), Key(K.PART, K.REPORT)]
    keys["v3"][-1] = Key(K.PART, K.STABLE + " v1")
    rows[1].is_regression_report = False
    assert [len(g.members) for g in group(rows, keys, {mid: "v1"})] == [1]


def test_a_patch_linking_a_bugzilla_bug_joins_the_thread_of_that_bugs_mail():
    """linux-ext4, 2023-12: "[PATCH 0/1] Fix for recent bugzilla reports related to long halts
    during block allocation" links https://bugzilla.kernel.org/show_bug.cgi?id=217965, whose
    mail ("[Bug 217965] New: ext4(?) regression since 6.5.0 on sata hdd") is its own thread."""
    assert K.bug_of("bug-217965-13602@https.bugzilla.kernel.org/") == "217965"
    assert K.bug_of("<bug-217965-13602-abc123DEF@https.bugzilla.kernel.org/>") == "217965"
    assert K.bug_of("20231213.12345-1-someone@example.com") is None
    report = K.ThreadInput(
        "bug-217965-13602@https.bugzilla.kernel.org/",
        title="[Bug 217965] New: ext4(?) regression since 6.5.0 on sata hdd",
        is_regression_report=True,
        mails=[
            K.Mail(
                "bug-217965-13602@https.bugzilla.kernel.org/",
                "[Bug 217965] New: ...",
                "bugzilla-daemon",
                "bugzilla-daemon@kernel.org",
                None,
                "",
            )
        ],
    )
    cover = "cover.1702455010.git.ojaswin@linux.ibm.com"
    text = "This patch fixes the issues reported in [1] and [2].\n\n[1] https://bugzilla.kernel.org/show_bug.cgi?id=217965\n"
    fix = K.ThreadInput(
        cover,
        title="[PATCH 0/1] Fix for recent bugzilla reports related to long halts during block allocation",
        mails=[
            K.Mail(
                cover,
                "[PATCH 0/1] Fix for recent bugzilla reports",
                "Ojaswin Mujoo",
                "ojaswin@linux.ibm.com",
                None,
                text,
            )
        ],
    )
    keys = {t.thread_id: K.thread_keys(t) for t in (report, fix)}
    rows = [ThreadRow(report.thread_id, is_regression_report=True), ThreadRow(cover)]
    found = group(rows, keys)
    assert [sorted(m.thread_id for m in g.members) for g in found] == [sorted([report.thread_id, cover])]
    assert any("bug 217965" in m.reason for m in found[0].members)
    # another bug's number links nothing
    fix.mails[0].text = text.replace("217965", "219300")
    keys[cover] = K.thread_keys(fix)
    assert [len(g.members) for g in group(rows, keys)] == [1]


def _one_mail(tid: str, subject: str, who: str, addr: str, **kw) -> K.ThreadInput:
    """A thread of one mail, ``subject`` its title."""
    return K.ThreadInput(tid, title=subject, mails=[K.Mail(tid, subject, who, addr, None, "")], **kw)


def test_a_report_citing_the_patch_it_tried_by_its_title_joins_that_patchs_thread():
    """linux-block, 2022-01: the pata-falcon boot slowdown's thread cites 10825410b956 ("blk-mq: Fix
    wrong wakeup batch configuration which will cause hang") as tried and fixing it; that patch's
    own thread is "[PATCH] blk-mq: Fix wrong wakeup batch configuration which will cause hang"."""
    title = "blk-mq: Fix wrong wakeup batch configuration which will cause hang"
    report = K.ThreadInput(
        "r", title="Regression in 5.17-rc1 on pata-falcon", is_regression_report=True, tried=[title]
    )
    patch = _one_mail("p", f"[PATCH] {title}", "Laibin Qiu", "qiulaibin@huawei.com")
    keys = {t.thread_id: K.thread_keys(t) for t in (report, patch)}
    rows = [ThreadRow("r", is_regression_report=True), ThreadRow("p")]
    found = group(rows, keys)
    assert [sorted(m.thread_id for m in g.members) for g in found] == [["p", "r"]]
    # a title of two words names no patch
    report.tried = ["blk-mq: fixes"]
    patch.title = patch.mails[0].subject = "[PATCH] blk-mq: fixes"
    keys = {t.thread_id: K.thread_keys(t) for t in (report, patch)}
    assert [len(g.members) for g in group(rows, keys)] == [1]


def test_a_patch_or_the_robot_citing_a_commit_by_its_title_links_no_patch():
    """A patch citing the revert it follows ("[PATCH] block/mq-deadline: Fix WARN when set
    async_depth by sysfs", linux-block 2024-03) and the robot's build report listing the commits
    of a branch (linux-ext4 2025-02) name those patches as neither fix nor trial."""
    title = 'Revert "block/mq-deadline: use correct way to throttling write requests"'
    revert = _one_mail("v", f"[PATCH] {title}", "Bart", "b@x")
    patch = _one_mail(
        "p",
        "[PATCH] block/mq-deadline: Fix WARN when set async_depth by sysfs",
        "Zhiguo Niu",
        "z@x",
        is_regression_report=True,
        tried=[title],
    )
    robot = _one_mail(
        "b",
        "[tytso-ext4:dev] BUILD REGRESSION ab00acfcfc62",
        "kernel test robot",
        "lkp@intel.com",
        is_regression_report=True,
        tried=[title],
    )
    for t in (patch, robot):
        keys = {x.thread_id: K.thread_keys(x) for x in (revert, t)}
        assert not any(k.kind == K.FIX_SUBJECT for k in keys[t.thread_id])
        rows = [
            ThreadRow(t.thread_id, title=t.title, is_regression_report=True),
            ThreadRow("v", title=revert.title),
        ]
        assert [sorted(m.thread_id for m in g.members) for g in group(rows, keys)] == [[t.thread_id]]


def test_a_renamed_threads_old_patch_subject_makes_it_no_patch():
    # linux-block, 2022-01: a report renamed from a patch's thread
    assert (
        patch_version("Regression in 5.17-rc1 on pata-falcon (was: Re: [PATCH] m68k: mm: Remove check)")
        is None
    )
    assert patch_version("slow fsync [was: Re: [PATCH v2] ext4: foo]") is None
    assert patch_version("[PATCH v2] ext4: fix the was: label parsing") == 2


def test_a_list_that_rewrites_from_names_the_same_person():
    """linux-f2fs-devel rewrites its senders' names ("Chao Yu via Linux-f2fs-devel", 1,284
    messages of epoch 0); a version of a patch sent there and one sent elsewhere are one author's."""
    assert K.person("Chao Yu via Linux-f2fs-devel", "linux-f2fs-devel@lists.sourceforge.net") == "chao yu"
    assert K.person("Chao Yu", "chao@kernel.org") == "chao yu"
    assert K.person("Via Rail", "x@example.com") == "via rail"  # a name that holds the word


@pytest.mark.parametrize(
    "name,key",
    [
        # linux-block, 2025-12/2026-01: one author's versions of the RT fix, from two mailers
        ("Nechita, Ionut", "ionut nechita"),  # a company directory: surname first
        ("Ionut Nechita (WindRiver)", "ionut nechita"),  # the company after the name
        ("Huang, Ying", "ying huang"),
        # a comma that is no surname's: kept
        ("Enrico Weigelt, metux IT consult", "enrico weigelt, metux it consult"),
        ("(none)", "(none)"),
    ],
)
def test_a_name_written_by_a_directory_or_with_its_company_is_one_person(name, key):
    assert K.person(name, "x@example.com") == key
    t = K.ThreadInput(
        "a",
        title="[PATCH v2] f2fs: fix to avoid forcing direct write to use buffered IO",
        people=["Chao Yu via Linux-f2fs-devel", "Jaegeuk Kim"],
        mails=[
            K.Mail(
                "a",
                "[PATCH v2] f2fs: ...",
                "Chao Yu via Linux-f2fs-devel",
                "linux-f2fs-devel@lists.sourceforge.net",
                None,
                "",
            )
        ],
    )
    keys = K.thread_keys(t)
    assert Key(K.AUTHOR, "chao yu") in [Key(k.kind, k.value) for k in keys]
    assert {k.value for k in keys if k.kind == K.PERSON} == {"chao yu", "jaegeuk kim"}


def test_two_fix_series_linking_one_robot_report_in_their_words_join():
    """linux-xfs, 2023-05/06: Qi Zheng's "[PATCH 0/8] make unregistration of super_block shrinker
    more faster" and Kirill Tkhai's "[PATCH v2 0/3] mm: Make unregistration of super_block shrinker
    more faster", two authors' fixes of the robot's stress-ng.ramfs -88.8% report of f95bdb700bc6,
    each linking it in its cover letter's words (not a Link: tag)."""
    robot = "202305230837.db2c233f-yujie.liu@intel.com"
    rows = [
        ThreadRow(
            "qi",
            title="[PATCH 0/8] make unregistration of super_block shrinker more faster",
            is_regression_report=True,
        ),
        ThreadRow(
            "kt",
            title="[PATCH v2 0/3] mm: Make unregistration of super_block shrinker more faster",
            is_regression_report=True,
        ),
    ]

    def keys_of(t: str, author: str, part: str = "fix proposed v1") -> list[Key]:
        return [
            Key(
                K.REFERS,
                robot,
                f"{t}@x",
                "2023-06-01T00:00:00+00:00",
                f"https://lore.kernel.org/all/{robot}/",
            ),
            Key(K.AUTHOR, author),
            Key(K.PART, part),
        ]

    keys = {"qi": keys_of("qi", "qi zheng"), "kt": keys_of("kt", "kirill tkhai", "fix proposed v2")}
    found = group(rows, keys)
    assert [sorted(m.thread_id for m in g.members) for g in found] == [["kt", "qi"]]
    assert any("name one message" in m.reason for m in found[0].members)
    # a report of a person's linking the robot's report in passing is no fix of it
    keys["kt"][2] = Key(K.PART, K.REPORT)
    assert len(group(rows, keys)) == 2
    # nor a link to a person's message
    keys = {
        t: [Key(K.REFERS, "20230601.abc@example.org", f"{t}@x"), Key(K.PART, "fix proposed v1")]
        for t in ("qi", "kt")
    }
    assert len(group(rows, keys)) == 2


def test_a_regression_posted_as_rfc_and_its_revert_by_one_author_join():
    """linux-ext4, 2019-07 and 2019-08: Joseph Qi's '[RFC] performance regression with "ext4: Allow
    parallel DIO reads"' (a patch thread blaming 16c54688592c) and his "[PATCH 0/3] Revert parallel
    dio reads" (This reverts commit 16c54688592c...)."""
    sha = "16c54688592ce8eea85d2a26d37b64fa07e3e233"
    rows = [
        ThreadRow(
            "rfc",
            title='[RFC] performance regression with "ext4: Allow parallel DIO reads"',
            is_regression_report=True,
        ),
        ThreadRow("rev", title="[PATCH 0/3] Revert parallel dio reads", is_regression_report=True),
    ]
    keys = {
        "rfc": [
            Key(K.CULPRIT, sha[:12], "rfc@x", "2019-07-19T09:22:24+00:00", "16c54688592c"),
            Key(K.AUTHOR, "joseph qi"),
            Key(K.PART, "fix proposed v1"),
        ],
        "rev": [
            Key(K.REVERTS, sha, "rev@x", "2019-08-27T02:05:49+00:00", f"This reverts commit {sha}."),
            Key(K.AUTHOR, "joseph qi"),
            Key(K.PART, "revert"),
        ],
    }
    found = group(rows, keys)
    assert [sorted(m.thread_id for m in g.members) for g in found] == [["rev", "rfc"]]
    # another author's revert of the commit is not known to be this regression's
    keys["rev"][1] = Key(K.AUTHOR, "jan kara")
    assert len(group(rows, keys)) == 2


def _raid1_latency_threads(reporter_name: str, trailer: str) -> tuple[K.ThreadInput, K.ThreadInput]:
    """linux-raid, 2019-08: Jinpu Wang's "Kernel 4.14 + has 100 times higher IO latency than Kernel
    4.4 with raid1", bisected to 4ad23a976413, and Neil Brown's "[PATCH 0/2] Two md fixes suitable
    for -stable" whose patch 1/2 fixes it; its trailer names the reporter by another form of his
    name ("Reported-and-tested-by: Jack Wang <jinpu.wang@cloud.ionos.com>")."""
    report = K.ThreadInput(
        "CAMGffEkotpvVz8FA78v@mail.gmail.com",
        title="Kernel 4.14 + has 100 times higher IO latency than Kernel 4.4 with raid1",
        is_regression_report=True,
        culprits=["4ad23a976413aa57fe5ba7a25953dc35ccca5b71"],
        mails=[
            K.Mail(
                "CAMGffEkotpvVz8FA78v@mail.gmail.com",
                "Kernel 4.14 + has 100 times higher IO latency than Kernel 4.4 with raid1",
                reporter_name,
                "jinpu.wang@cloud.ionos.com",
                "2019-08-01T10:00:00+00:00",
                "Hi,\n\nWe found a problem regarding much higher IO latency when running kernel 4.4.131 compare to\n4.14.133",
            )
        ],
    )
    text = (
        'Fixes: 4ad23a976413 ("MD: use per-cpu counter for writes_pending")\n'
        "Cc: stable@vger.kernel.org (v4.12+)\n"
        f"Reported-and-tested-by: {trailer}\n"
        "Signed-off-by: NeilBrown <neilb@suse.de>\n"
    )
    pid = "156626036792.15343.14564114570071245486.stgit@noble.brown"
    patch = K.ThreadInput(
        pid,
        title="[PATCH 0/2] Two md fixes suitable for -stable",
        has_report=False,
        mails=[
            K.Mail(
                pid,
                "[PATCH 1/2] md: only call set_in_sync() when it is expected to be safe",
                "NeilBrown",
                "neilb@suse.de",
                "2019-08-20T00:19:28+00:00",
                text,
            )
        ],
    )
    return report, patch


@pytest.mark.parametrize(
    "reporter,trailer,joined",
    [
        ("Jinpu Wang", "Jack Wang <jinpu.wang@cloud.ionos.com>", True),  # one address, two names
        ("Jinpu Wang", "Jinpu Wang <jwang@example.com>", True),  # one name, two addresses
        ("Jinpu Wang", "Jack Wang <jack.wang.usish@gmail.com>", False),  # neither
        # an address a list puts in From: (DMARC) is the list's, not the reporter's
        ("Jinpu Wang via Linux-raid", "Jack Wang <jinpu.wang@cloud.ionos.com>", False),
    ],
)
def test_a_fix_names_the_reporter_by_name_or_by_address(reporter, trailer, joined):
    report, patch = _raid1_latency_threads(reporter, trailer)
    keys = {t.thread_id: K.thread_keys(t) for t in (report, patch)}
    rows = [
        ThreadRow(report.thread_id, report.title, is_regression_report=True),
        ThreadRow(patch.thread_id, patch.title),
    ]
    found = group(rows, keys)
    assert [len(g.members) for g in found] == ([2] if joined else [1])
    if joined:
        reason = next(m.reason for m in found[0].members if m.thread_id == patch.thread_id)
        assert "trailers name the reporter" in reason and "4ad23a976413" in reason


def test_an_address_many_people_send_from_names_nobody():
    assert K.address("Jack Wang", "<Jinpu.Wang@cloud.ionos.com>") == "jinpu.wang@cloud.ionos.com"
    for name, addr in [
        ("bugzilla-daemon", "bugzilla-daemon@kernel.org"),
        ("Chao Yu via Linux-f2fs-devel", "linux-f2fs-devel@lists.sourceforge.net"),
        ("Someone", "linux-raid@vger.kernel.org"),
        ("kernel test robot", "oliver.sang@intel.com"),
        ("GitHub", "notifications@github.com"),
        ("", "not an address"),
    ]:
        assert K.address(name, addr) is None, (name, addr)


def test_replies_to_a_repost_the_archive_lacks_join_the_series_of_its_sender():
    """dm-devel, 2019-11: Dmitry Fomichev posts "[PATCH] dm-zoned: reduce overhead of backing device
    checks" (20191106223435.30840-1-dmitry.fomichev@wdc.com) and reposts it the next day; the
    archive lacks the repost, so Damien Le Moal's review opens a thread of its own, rooted at the
    repost's Message-ID, which git send-email wrote with its sender's address."""
    subject = "[dm-devel] [PATCH] dm-zoned: reduce overhead of backing device checks"
    fix = 'Fixes: 75d66ffb48efb3 ("dm zoned: properly handle backing device failure")\n'
    first = K.ThreadInput(
        "20191106223435.30840-1-dmitry.fomichev@wdc.com",
        title=subject,
        first_date="2019-11-06T22:34:35+00:00",
        mails=[
            K.Mail(
                "20191106223435.30840-1-dmitry.fomichev@wdc.com",
                subject,
                "Dmitry Fomichev",
                "dmitry.fomichev@wdc.com",
                "2019-11-06T22:34:35+00:00",
                fix,
            )
        ],
    )

    def review(root: str) -> K.ThreadInput:
        return K.ThreadInput(
            root,
            title="Re: " + subject,
            first_date="2019-11-08T06:36:18+00:00",
            mails=[
                K.Mail(
                    "BYAPR04MB5816@BYAPR04MB5816.namprd04.prod.outlook.com",
                    "Re: " + subject,
                    "Damien Le Moal",
                    "Damien.LeMoal@wdc.com",
                    "2019-11-08T06:36:18+00:00",
                    "Looks good.\n\nReviewed-by: Damien Le Moal <damien.lemoal@wdc.com>\n",
                )
            ],
        )

    def joined(second: K.ThreadInput) -> bool:
        keys = {t.thread_id: K.thread_keys(t) for t in (first, second)}
        rows = [
            ThreadRow(first.thread_id, subject, is_regression_report=True),
            ThreadRow(second.thread_id, "Re: " + subject),
        ]
        return [len(g.members) for g in group(rows, keys)] == [2]

    assert K.sender_of("20191107001941.30991-1-dmitry.fomichev@wdc.com") == "dmitry.fomichev@wdc.com"
    assert (
        K.sender_of("1566871552-60946-1-git-send-email-joseph.qi@linux.alibaba.com")
        == "joseph.qi@linux.alibaba.com"
    )
    assert K.sender_of("20240806-isolcpus-io-queues-v3-0-da0eecfeaf8b@suse.de") is None  # b4's
    assert joined(review("20191107001941.30991-1-dmitry.fomichev@wdc.com"))
    # a repost by someone else, or a root whose ID names nobody, joins nothing
    assert not joined(review("20191107001941.30991-1-someone.else@wdc.com"))
    assert not joined(review("5dc4d2f1.1c69fb81.2ee3c.8bb1@mx.google.com"))


def _fix_thread(
    tid: str,
    subject: str,
    who: str,
    addr: str,
    trailers: str,
    report: bool,
    date: str = "2022-03-11T17:30:41+00:00",
) -> tuple:
    text = f'Fixes: d38a9c04c0d5 ("block: only check previous entry for plug merge attempt")\n{trailers}'
    t = K.ThreadInput(
        tid,
        title=subject,
        is_regression_report=report,
        culprits=["d38a9c04c0d5"] if report else [],
        first_date=date,
        mails=[K.Mail(tid, subject, who, addr, date, text)],
    )
    return t, ThreadRow(tid, subject, is_regression_report=report, first_date=date)


@pytest.mark.parametrize(
    "trailers,joined",
    [
        ("Reported-by: Song Liu <song@kernel.org>\nSigned-off-by: Jens Axboe <axboe@kernel.dk>\n", True),
        ("Tested-by: Song Liu <songliubraving@fb.com>\n", True),  # the name, at another address
        ("Tested-by: Song Liu <song@kernel.org>\n", True),
        # a Cc: credits nobody with the problem: two fixes of one commit stay apart
        ("Cc: Song Liu <song@kernel.org>\nSigned-off-by: Jens Axboe <axboe@kernel.dk>\n", False),
    ],
)
def test_two_fixes_of_one_commit_join_when_one_credits_the_others_author(trailers, joined):
    """linux-block, 2022-03: Jens Axboe's "[PATCHSET 0/2] Fix raid rebuild performance regression"
    (Reported-by: Song Liu) and Song Liu's own "[PATCH] block: check more requests for
    multiple_queues in blk_attempt_plug_merge", both `Fixes: d38a9c04c0d5`."""
    jens, jens_row = _fix_thread(
        "20220311173041.165948-1-axboe@kernel.dk",
        "[PATCHSET 0/2] Fix raid rebuild performance regression",
        "Jens Axboe",
        "axboe@kernel.dk",
        trailers,
        True,
    )
    song, song_row = _fix_thread(
        "20220309064209.4169303-1-song@kernel.org",
        "[PATCH] block: check more requests for multiple_queues in blk_attempt_plug_merge",
        "Song Liu",
        "song@kernel.org",
        "Reported-by: Larkin Lowrey <llowrey@nuclearwinter.com>\nSigned-off-by: Song Liu <song@kernel.org>\n",
        False,
    )
    keys = {t.thread_id: K.thread_keys(t) for t in (jens, song)}
    found = group([jens_row, song_row], keys)
    assert [len(g.members) for g in found] == ([2] if joined else [1])
    if joined:
        assert "a fix that credits" in next(
            m.reason for m in found[0].members if m.thread_id == song.thread_id
        )
    # Song's fix reports the regression too (its log measures the speed it restores): still one
    song_row.is_regression_report = True
    found = group([jens_row, song_row], keys)
    assert [len(g.members) for g in found] == ([2] if joined else [1, 1])


@pytest.mark.parametrize(
    "date, joined", [("2022-04-20T10:00:00+00:00", True), ("2025-07-14T13:03:27+00:00", False)]
)
def test_a_fix_crediting_another_fixs_author_years_later_fixes_another_bug(date, joined):
    """linux-ext4: Baokun Li's 2025 "better scalability" series carries "Fixes: 196e402adf2e" and
    credits Jan Kara, the author of the 2022 fix of the mb_optimize_scan regression, which names
    that commit too: a fix of another bug of it, years later, not a version of that fix."""
    jens, jens_row = _fix_thread(
        "20220311173041.165948-1-axboe@kernel.dk",
        "[PATCHSET 0/2] Fix raid rebuild performance regression",
        "Jens Axboe",
        "axboe@kernel.dk",
        "Signed-off-by: Jens Axboe <axboe@kernel.dk>\n",
        True,
    )
    later, later_row = _fix_thread(
        "20250714130327.1830534-1-someone@example.org",
        "[PATCH v3 00/17] block: better scalability of plug merging",
        "Some One",
        "someone@example.org",
        "Reported-by: Jens Axboe <axboe@kernel.dk>\nSigned-off-by: Some One <someone@example.org>\n",
        True,
        date,
    )
    keys = {t.thread_id: K.thread_keys(t) for t in (jens, later)}
    assert [len(g.members) for g in group([jens_row, later_row], keys)] == ([2] if joined else [1, 1])


def _carrying_series(patch_subject: str, link: str, sender: tuple[str, str]) -> K.ThreadInput:
    """io-uring, 2023-07: Jens Axboe's "[PATCHSET v2 0/5] Improve async iomap DIO performance", whose
    patch 1/5 is Andres Freund's "io_uring: Use io_schedule* in cqring wait" with its Link:."""
    root = "20230718194920.1472184-1-axboe@kernel.dk"
    text = f"Signed-off-by: Andres Freund <andres@anarazel.de>\nLink: https://lore.kernel.org/r/{link}\n"
    return K.ThreadInput(
        root,
        title="[PATCHSET v2 0/5] Improve async iomap DIO performance",
        first_date="2023-07-18T19:49:15+00:00",
        mails=[
            K.Mail(
                root,
                "[PATCHSET v2 0/5] Improve async iomap DIO performance",
                *sender,
                "2023-07-18T19:49:15+00:00",
                "Hi,\n",
            ),
            K.Mail(root.replace("-1-", "-2-"), patch_subject, *sender, "2023-07-18T19:49:16+00:00", text),
        ],
    )


@pytest.mark.parametrize(
    "patch_subject,sender,joined",
    [
        # another author's patch carried into the series: where it was posted, not this regression
        ("[PATCH 1/5] io_uring: Use io_schedule* in cqring wait", ("Jens Axboe", "axboe@kernel.dk"), False),
        # the author's own patch again (a version of it): one story
        (
            "[PATCH 1/5] io_uring: Use io_schedule* in cqring wait",
            ("Andres Freund", "andres@anarazel.de"),
            True,
        ),
        # a patch of its own whose Link: names the thread it answers
        (
            "[PATCH 1/5] io_uring: fix the iowait accounting of cqring waits",
            ("Jens Axboe", "axboe@kernel.dk"),
            True,
        ),
    ],
)
def test_a_series_carrying_anothers_patch_is_not_joined_by_its_link(patch_subject, sender, joined):
    andres = "20230707162007.194068-1-andres@anarazel.de"
    first = K.ThreadInput(
        andres,
        title="[PATCH v1] io_uring: Use io_schedule* in cqring wait",
        is_regression_report=True,
        first_date="2023-07-07T16:20:07+00:00",
        mails=[
            K.Mail(
                andres,
                "[PATCH v1] io_uring: Use io_schedule* in cqring wait",
                "Andres Freund",
                "andres@anarazel.de",
                "2023-07-07T16:20:07+00:00",
                "Hi,\n",
            )
        ],
    )
    series = _carrying_series(patch_subject, andres, sender)
    # stable's backport of the patch, its Link: naming the same posting: the patch's story
    backport_id = "20230716195007.731909670@linuxfoundation.org"
    backport = K.ThreadInput(
        backport_id,
        title="[PATCH 6.4 800/800] io_uring: Use io_schedule* in cqring wait",
        first_date="2023-07-16T19:50:07+00:00",
        mails=[
            K.Mail(
                backport_id,
                "[PATCH 6.4 800/800] io_uring: Use io_schedule* in cqring wait",
                "Greg Kroah-Hartman",
                "gregkh@linuxfoundation.org",
                "2023-07-16T19:50:07+00:00",
                f"commit 8a796565cec3601071cbbd27d6304e202019d014 upstream.\n\nLink: https://lore.kernel.org/r/{andres}\n",
            )
        ],
    )
    keys = {t.thread_id: K.thread_keys(t) for t in (first, series, backport)}
    rows = [
        ThreadRow(andres, first.title, is_regression_report=True),
        ThreadRow(series.thread_id, series.title),
        ThreadRow(backport_id, backport.title),
    ]
    found = group(rows, keys, locate={andres: andres})
    assert [len(g.members) for g in found] == ([3] if joined else [2])


JOSEF = ("Josef Bacik", "josef@toxicpanda.com")
#: the four patches of "[PATCH 0/4] btrfs: shrink delalloc fixes" (linux-btrfs, 2021-06-11), which
#: "[PATCH 0/6] ENOSPC delalloc flushing fixes" (2021-06-28) posts again under another cover
DELALLOC = [
    "btrfs: wait on async extents when flushing delalloc",
    "btrfs: wake up async_delalloc_pages waiters after submit",
    "fs: add a filemap_fdatawrite_wbc helper",
    "btrfs: use the filemap_fdatawrite_wbc helper for delalloc shrinking",
]


def _series(
    tid: str, cover: str, patches: list[str], date: str, who=JOSEF, tag: str = "PATCH"
) -> K.ThreadInput:
    """A posting: the cover letter, its numbered patches and a reviewer's reply to the first."""
    n = len(patches)
    mails = [K.Mail(tid, f"[{tag} 0/{n}] {cover}", *who, date, "cover letter")]
    mails += [
        K.Mail(f"{tid}-{i}", f"[{tag} {i}/{n}] {p}", *who, date, "patch") for i, p in enumerate(patches, 1)
    ]
    mails.append(
        K.Mail(f"{tid}-r", f"Re: [{tag} 1/{n}] {patches[0]}", "Nikolay Borisov", "nb@suse.com", date, "ok")
    )
    return K.ThreadInput(tid, title=mails[0].subject, first_date=date, mails=mails)


def _joined(*threads: K.ThreadInput) -> list[int]:
    """The sizes of the regressions the first thread (a regression report) and the others make."""
    keys = {t.thread_id: K.thread_keys(t) for t in threads}
    rows = [
        ThreadRow(t.thread_id, t.title, is_regression_report=i == 0, first_date=t.first_date)
        for i, t in enumerate(threads)
    ]
    return sorted(len(g.members) for g in group(rows, keys))


def test_a_series_posted_again_under_another_cover_joins_its_first_posting():
    """linux-btrfs, 2021-06: Josef Bacik's "shrink delalloc fixes" (a regression's fix) and, 17
    days later, "ENOSPC delalloc flushing fixes" carrying its four patches and two more."""
    first = _series("c1", "btrfs: shrink delalloc fixes", DELALLOC, "2021-06-11T13:53:56+00:00")
    more = [
        "btrfs: enable a tracepoint when we fail tickets",
        "btrfs: handle shrink_delalloc pages calculation differently",
    ]
    again = _series("c2", "ENOSPC delalloc flushing fixes", more + DELALLOC, "2021-06-28T15:37:05+00:00")
    assert _joined(first, again) == [2]
    rows = [ThreadRow("c1", first.title, True, first_date=first.first_date), ThreadRow("c2", again.title)]
    (found,) = group(rows, {t.thread_id: K.thread_keys(t) for t in (first, again)})
    assert any("one series:" in m.reason and "(4 patches alike)" in m.reason for m in found.members)
    keys = [k for k in K.thread_keys(again) if k.kind == K.PATCH]
    assert len(keys) == 7  # the cover and six patches; not the reply "Re: [PATCH 1/6] ..."
    # under an RFC tag, with a version, as a patchset
    assert _joined(
        first, _series("c2", "ENOSPC flushing", DELALLOC[:3], "2021-06-20T00:00:00+00:00", tag="RFC PATCH v2")
    ) == [2]
    # another author's series of the same patches, or one posted a year later, stays apart
    other = ("Qu Wenruo", "wqu@suse.com")
    assert _joined(
        first, _series("c2", "ENOSPC delalloc flushing fixes", DELALLOC, first.first_date, who=other)
    ) == [1]
    assert _joined(
        first, _series("c2", "ENOSPC delalloc flushing fixes", DELALLOC, "2022-09-01T00:00:00+00:00")
    ) == [1]
    # one patch alike is too few, unless a thread posts that one patch alone
    assert _joined(
        first, _series("c2", "ENOSPC delalloc flushing fixes", more + DELALLOC[:1], again.first_date)
    ) == [1]
    single = K.ThreadInput(
        "s",
        title=f"[PATCH] {DELALLOC[0]}",
        first_date="2021-06-01T00:00:00+00:00",
        mails=[K.Mail("s", f"[PATCH] {DELALLOC[0]}", *JOSEF, "2021-06-01T00:00:00+00:00", "patch")],
    )
    assert _joined(single, _series("c2", "x y z", DELALLOC[:1], again.first_date)) == [2]
    # a long series carrying two of the patches among many ("a patchbomb") bridges nothing
    bomb = [f"btrfs: cleanup number {i} of the bomb" for i in range(20)]
    assert _joined(first, _series("c2", "btrfs: the bomb", bomb + DELALLOC[:2], again.first_date)) == [1]
    # replies under the patches' subjects post nothing
    replies = _series("c2", "other work of the same days", ["btrfs: one", "btrfs: two"], again.first_date)
    replies.mails += [
        K.Mail(f"c2-re{i}", f"Re: [PATCH {i}/4] {p}", *JOSEF, again.first_date, "reply")
        for i, p in enumerate(DELALLOC, 1)
    ]
    assert _joined(first, replies) == [1]
    # also behind a tag a list put before "Re:" ("[OT] Re: [PATCH 86/87] fs: switch timespec64
    # fields in inode to discrete integers", linux-erofs and ceph-devel, 2023-10)
    for m in replies.mails[-4:]:
        m.subject = "[OT] " + m.subject
    assert _joined(first, replies) == [1]


def test_another_authors_fix_of_one_commit_citing_a_fix_joins_it():
    """linux-xfs (from linux-mm), 2019-08: Dave Chinner's "[PATCH] [Regression, v5.0] mm: boosted
    kswapd reclaim b0rks system cache balance" and Mel Gorman's "[PATCH] mm, vmscan: Do not
    special-case slab reclaim when watermarks are boosted", whose log says "Dave Chinner reported
    a problem pointing a finger at commit 1c30844d2dfe ... (see https://lore.kernel.org/linux-mm/
    20190807091858.2857-1-david@fromorbit.com/)"; both carry "Fixes: 1c30844d2dfe"."""
    dave = "20190807091858.2857-1-david@fromorbit.com"
    link = f"https://lore.kernel.org/linux-mm/{dave}/"

    def keys_of(author: str, fixes: str, refers: bool) -> list[Key]:
        out = [Key(K.AUTHOR, author), Key(K.FIXES, fixes), Key(K.PART, "fix proposed v1")]
        return out + ([Key(K.REFERS, dave, "mel@x", "2019-08-08T18:29:46+00:00", link)] if refers else [])

    rows = [ThreadRow("dave", is_regression_report=True), ThreadRow("mel", is_regression_report=True)]

    def sizes(keys: dict[str, list[Key]]) -> list[int]:
        return sorted(len(g.members) for g in group(rows, keys, {dave: "dave"}))

    keys = {
        "dave": keys_of("dave chinner", "1c30844d2dfe", False),
        "mel": keys_of("mel gorman", "1c30844d2dfe", True),
    }
    assert sizes(keys) == [2]
    found = group(rows, keys, {dave: "dave"})
    assert any("links" in m.reason and "1c30844d2dfe" in m.reason for m in found[0].members)
    # fixes of other commits, or a fix that is no regression's, stay apart
    keys["mel"] = keys_of("mel gorman", "5a1c84b404a7", True)
    assert sizes(keys) == [1, 1]
    keys["mel"] = keys_of("mel gorman", "1c30844d2dfe", True)
    rows[1].is_regression_report = False
    assert sizes(keys) == [1]
    rows[1].is_regression_report = True
    # one author's fixes (versions of one) are the series rules' to join, not the link's
    keys = {
        "dave": keys_of("dave chinner", "1c30844d2dfe", False),
        "mel": keys_of("dave chinner", "1c30844d2dfe", True),
    }
    assert sizes(keys) == [1, 1]
    # without the link, two authors' fixes of one commit are two fixes
    keys["mel"] = keys_of("mel gorman", "1c30844d2dfe", False)
    assert sizes(keys) == [1, 1]


# linux-ext4, Zhang Yi's "[PATCH v2 0/8] ext4: enable large folio for regular files" (2025-05-12,
# <20250512063319.3539411-1-yi.zhang@huaweicloud.com>, a tester's lmbench slowdown in a reply) and his
# "ext4: fix insufficient credits ..." series (2025-05-30, <20250530062858.458039-1-yi.zhang@huaweicloud.com>),
# whose patch closes Jan Kara's review of the first <nhxfuu53wyacsrq7xqgxvgzcggyscu2tbabginahcygvmc45hy@t4fvmyeky33e>
FOLIO = "20250512063319.3539411-1-yi.zhang@huaweicloud.com"
FOLIO_TITLE = "[PATCH v2 0/8] ext4: enable large folio for regular files"
JAN_REVIEW = "nhxfuu53wyacsrq7xqgxvgzcggyscu2tbabginahcygvmc45hy@t4fvmyeky33e"
TESTER_REPLY = "tester-lmbench@example.org"
CREDITS = "20250530062858.458039-1-yi.zhang@huaweicloud.com"


def _folio_and_credits(tag: str, target: str):
    rows = [
        ThreadRow(FOLIO, title=FOLIO_TITLE, is_regression_report=True, reported_in=TESTER_REPLY),
        ThreadRow(CREDITS, title="[PATCH 0/6] ext4: fix insufficient credits when writing back large folios"),
    ]
    keys = {
        FOLIO: [Key(K.SERIES, strip_subject(FOLIO_TITLE)), Key(K.PART, "fix proposed v2")],
        CREDITS: [
            Key(
                K.LINK,
                target,
                "20250530062858.458039-5-yi.zhang@huaweicloud.com",
                None,
                f"{tag}: https://lore.kernel.org/linux-ext4/{target}/",
            ),
            Key(K.PART, "fix proposed v1"),
        ],
    }
    locate = {JAN_REVIEW: FOLIO, TESTER_REPLY: FOLIO, FOLIO: FOLIO}
    return [sorted(m.thread_id for m in g.members) for g in group(rows, keys, locate)]


def test_a_patch_closing_a_review_reply_in_a_series_thread_does_not_join_its_regression():
    # the review's finding is the bug the patch closes, not the slowdown a tester reported there
    assert _folio_and_credits("Closes", JAN_REVIEW) == [[FOLIO]]


@pytest.mark.parametrize(
    "tag,target",
    [
        ("Closes", TESTER_REPLY),  # the reply that reported the regression
        ("Closes", FOLIO),  # the series' own first message
        ("Link", JAN_REVIEW),  # a Link: continues the discussion (a renamed series' next version)
    ],
)
def test_a_patch_closing_the_report_or_linking_the_discussion_joins(tag, target):
    assert _folio_and_credits(tag, target) == [sorted([FOLIO, CREDITS])]


# linux-xfs, Dave Chinner's "[PATCH 0/4] xfs: fix random format verification issues" (2022-05-02,
# <20220502082018.1076561-1-david@fromorbit.com>): the robot replies with aim7 -5.6% on its first
# patch as merged, dc04db2aa7c9 <20220506092250.GI23061@xsang-OptiPlex-9020>; his "[PATCH 0/3] xfs:
# small fixes for 5.19 cycle" (<20220524022158.1849458-1-david@fromorbit.com>) carries "Fixes:
# dc04db2aa7c9" and "Reported-by: kernel test robot"
ROBOT_SHA = "dc04db2aa7c9"
ROBOT_REPLY = "20220506092250.GI23061@xsang-OptiPlex-9020"


def _robot_reply_and_fix(reported_by: str, fix_trailer: str):
    rows = [
        ThreadRow(
            "series",
            title="[PATCH 0/4] xfs: fix random format verification issues",
            is_regression_report=True,
            reported_in=ROBOT_REPLY,
            reported_by=reported_by,
        ),
        ThreadRow(
            "fix",
            title="[PATCH 0/3] xfs: small fixes for 5.19 cycle",
            is_regression_report=True,
            reported_in="fix",
        ),
    ]
    keys = {
        "series": [Key(K.CULPRIT, ROBOT_SHA), Key(K.AUTHOR, "dave chinner"), Key(K.PART, "fix proposed v1")],
        "fix": [
            Key(K.CULPRIT, ROBOT_SHA),
            Key(K.FIXES, ROBOT_SHA, "fix-2@x", None, f"Fixes: {ROBOT_SHA}"),
            Key(K.TRAILER, fix_trailer),
            Key(K.AUTHOR, "dave chinner"),
            Key(K.PART, "fix proposed v1"),
        ],
    }
    return [sorted(m.thread_id for m in g.members) for g in group(rows, keys, {})]


def test_a_fix_of_the_robots_report_in_a_series_thread_joins_it():
    assert _robot_reply_and_fix("kernel test robot oliver.sang@intel.com", "kernel test robot") == [
        ["fix", "series"]
    ]


@pytest.mark.parametrize(
    "reported_by,fix_trailer",
    [
        # the series' regression reported by a person in review: the series measures itself
        ("carel si carel.si@example.org", "kernel test robot"),
        # the fix credits someone else: a fix of another bug of that commit
        ("kernel test robot oliver.sang@intel.com", "christoph hellwig"),
    ],
)
def test_a_fix_joins_a_series_thread_only_for_the_robots_report_it_credits(reported_by, fix_trailer):
    assert len(_robot_reply_and_fix(reported_by, fix_trailer)) == 2


#: linux-block and dm-devel, 2020-09: the archive lacks the mail Vijayendra Suman wrote to Mike
#: Snitzer about a merged revert; the thread starts with Snitzer's reply, which quotes the report,
#: and Snitzer posts three patches into it; their next version comes as a series of its own
_TALK_ID = "529c2394-1b58-b9d8-d462-1f3de1b78ac8@oracle.com"
_REVERT_TALK = 'Re: Revert "dm: always call blk_queue_split() in dm_process_bio()"'
_REVERT_TALK_TEXT = (
    "[cc'ing dm-devel and linux-block because this is upstream concern too]\n\n"
    "I assume 2892100bc85ae446088cebe0c00ba9b194c0ac9d is 5.4-stable's\n"
    "backport of upstream commit 120c9257f5f19e5d1e87efcbb5531b7cd81b7d74 ?\n"
)
_IN_TALK = [
    "[PATCH 0/3] block: a few chunk_sectors fixes/improvements",
    "[PATCH 1/3] block: fix blk_rq_get_max_sectors() to flow more carefully",
    "[PATCH 2/3] block: use lcm_not_zero() when stacking chunk_sectors",
    "[PATCH 3/3] block: allow 'chunk_sectors' to be non-power-of-2",
]
_V3_ID = "20200922023251.47712-1-snitzer@redhat.com"
_V3 = [
    "[PATCH v3 0/6] dm: fix then improve bio splitting",
    "[PATCH v3 1/6] dm: fix bio splitting and its bio completion order for regular IO",
    "[PATCH v3 2/6] dm: fix comment in dm_process_bio()",
    "[PATCH v3 3/6] block: use lcm_not_zero() when stacking chunk_sectors",
    "[PATCH v3 4/6] block: allow 'chunk_sectors' to be non-power-of-2",
    "[PATCH v3 5/6] dm table: stack 'chunk_sectors' limit to account for target-specific splitting",
    "[PATCH v3 6/6] dm: change max_io_len() to use blk_max_size_offset()",
]
_V3_FIX_TEXT = (
    "This fix has been verified to still fix the loss of performance, due\n"
    "to excess splitting, that commit 120c9257f5f1 provided.\n\n"
    'Fixes: 120c9257f5f1 ("Revert "dm: always call blk_queue_split() in dm_process_bio()"")\n'
    "Reported-by: Ming Lei <ming.lei@redhat.com>\n"
    "Signed-off-by: Mike Snitzer <snitzer@redhat.com>\n"
)


def _snitzer(mid: str, subject: str, date: str, text: str = "") -> K.Mail:
    return K.Mail(mid, subject, "Mike Snitzer", "snitzer@redhat.com", date, text)


def _revert_talk(
    subject: str = _REVERT_TALK, text: str = _REVERT_TALK_TEXT, posted=_IN_TALK
) -> K.ThreadInput:
    mails = [_snitzer("20200910142438.GA21919@redhat.com", subject, "2020-09-10T14:24:39+00:00", text)]
    mails += [
        _snitzer(f"20200911215338.44805-{i}-snitzer@redhat.com", s, "2020-09-11T21:53:35+00:00")
        for i, s in enumerate(posted)
    ]
    return K.ThreadInput(
        _TALK_ID,
        title=subject,
        is_regression_report=True,
        culprits=["120c9257f5f19e5d1e87efcbb5531b7cd81b7d74"],
        first_date="2020-09-10T14:24:39+00:00",
        mails=mails,
    )


def _v3_series(sender: str = "Mike Snitzer", subjects=_V3) -> K.ThreadInput:
    mails = [
        K.Mail(
            f"20200922023251.47712-{i + 1}-snitzer@redhat.com",
            s,
            sender,
            "snitzer@redhat.com" if sender == "Mike Snitzer" else "someone@example.com",
            "2020-09-22T02:32:46+00:00",
            _V3_FIX_TEXT if i == 1 else "",
        )
        for i, s in enumerate(subjects)
    ]
    return K.ThreadInput(
        _V3_ID, title=subjects[0], has_report=False, first_date="2020-09-22T02:32:45+00:00", mails=mails
    )


@pytest.mark.parametrize(
    ("subject", "extra", "part"),
    [
        # the talk of a merged revert, its first mail a reply: a report
        (_REVERT_TALK, "", K.REPORT),
        ('Re: [dm-devel] Revert "dm: always call blk_queue_split() in dm_process_bio()"', "", K.REPORT),
        # the revert posted as a patch, or saying what it reverts: the revert
        ('Re: [PATCH] Revert "dm: always call blk_queue_split() in dm_process_bio()"', "", K.REVERT),
        (_REVERT_TALK, "\nThis reverts commit 0123456789ab0123456789ab0123456789ab0123.\n", K.REVERT),
        ('Revert "dm: always call blk_queue_split() in dm_process_bio()"', "", K.REVERT),
    ],
)
def test_the_talk_of_a_merged_revert_is_a_report_not_the_revert(subject, extra, part):
    """A thread whose first mail is a reply to 'Revert "..."' without a patch's tag talks about a
    revert made already (the report came to its author privately), not the revert's posting."""
    keys = K.thread_keys(_revert_talk(subject, _REVERT_TALK_TEXT + extra))
    assert [k.value for k in keys if k.kind == K.PART] == [part]


@pytest.mark.parametrize(
    ("posted", "sender", "v3", "joined"),
    [
        (_IN_TALK, "Mike Snitzer", _V3, True),
        # one patch posted in the thread, and again alone: its next version
        (
            _IN_TALK[2:3],
            "Mike Snitzer",
            ["[PATCH v2] block: use lcm_not_zero() when stacking chunk_sectors"],
            True,
        ),
        # and as one of a series of seven: carried there, one of many
        (_IN_TALK[2:3], "Mike Snitzer", _V3, False),
        # posted again by someone else: another's series carrying it
        (_IN_TALK, "Jens Axboe", _V3, False),
        # one of the three posted again: not that posting's next version
        (_IN_TALK, "Mike Snitzer", _V3[:4], False),
        # the two carried into a series four times as long: one of many there
        (
            _IN_TALK,
            "Mike Snitzer",
            _V3 + [f"[PATCH v3 {i}/9] dm: another change number {i}" for i in range(7, 10)],
            False,
        ),
    ],
)
def test_patches_posted_in_a_report_thread_join_their_next_version(posted, sender, v3, joined):
    talk, series = _revert_talk(posted=posted), _v3_series(sender, v3)
    keys = {t.thread_id: K.thread_keys(t) for t in (talk, series)}
    rows = [
        ThreadRow(_TALK_ID, title=talk.title, is_regression_report=True, first_date=talk.first_date),
        ThreadRow(_V3_ID, title=series.title, first_date=series.first_date),
    ]
    (g,) = group(rows, keys)
    assert (len(g.members) == 2) is joined
    if joined:
        assert "mike snitzer posted '[PATCH" in next(m.reason for m in g.members if m.thread_id == _V3_ID)
