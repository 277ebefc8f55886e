"""Commit citations and their roles (lkmlkb.extract.commits)."""

import time
from pathlib import Path

import pytest

from lkmlkb.extract.commits import find_commit_mentions, find_commits

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _roles(text):
    return {c.sha: c.role for c in find_commits(text) if c.form != "link"}


# --- corpus seeds: labelled commits and roles (shared/eval/seeds/*/gold.json) ---

SEED_GOLD = [
    ("000_a3585e8f2465c212.txt", {"d47f9717e5cf": "culprit"}),
    ("001_09f4ed74915a608d.txt", {"7f75285ca57": "tested"}),
    ("002_05ded6ff64fd7ec3.txt", {}),
    ("003_f5869eda4829fcf2.txt", {"e1fa9ea85ce8": "culprit", "c8ed1b359312": "fix"}),
    (
        "004_9a4b42bbfbf4e570.txt",
        {"80a787ba3809": "culprit", "6f75723190d8": "culprit", "5b18b5a73760": "culprit"},
    ),
]


@pytest.mark.parametrize("name,gold", SEED_GOLD)
def test_seed_commits_and_roles(name, gold):
    got = _roles((CORPUS / name).read_text())
    assert got == gold  # no extra SHAs: 004's diff "index cb38d6f3acce..8275b10a1c9a" is not a commit


def test_seed_003_subjects_including_wrapped_one():
    cits = {c.sha: c for c in find_commits((CORPUS / "003_f5869eda4829fcf2.txt").read_text())}
    assert cits["e1fa9ea85ce8"].subject == "gfs2: Stop using glock holder auto-demotion for now"
    # wrapped over two quoted lines in the mail
    assert cits["c8ed1b359312"].subject == "gfs2: Fix duplicate should_fault_in_pages() call"


def test_seed_004_range_and_bare_subject():
    cits = {c.sha: c for c in find_commits((CORPUS / "004_9a4b42bbfbf4e570.txt").read_text())}
    assert cits["80a787ba3809"].form == "range" and cits["80a787ba3809"].range_end == "6f75723190d8"
    assert cits["6f75723190d8"].range_end == "80a787ba3809"
    assert (
        cits["5b18b5a73760"].subject == "block: delete part_round_stats and switch to less precise counting"
    )


def test_seed_003_roles_per_mention():
    """c8ed1b359312 is named three times: fix, then applied (tested), then fix."""
    ms = [
        c
        for c in find_commit_mentions((CORPUS / "003_f5869eda4829fcf2.txt").read_text())
        if c.sha == "c8ed1b359312"
    ]
    assert [m.role for m in ms] == ["fix", "tested", "fix", "mentioned"]
    assert ms[1].evidence.text.strip().endswith("I applied c8ed1b359312 on 6.1.36.")


# --- archive sample: linux-block-2024q1.mboxrd, trimmed real text ---

ARCHIVE_CASES = [
    pytest.param(
        # <202401312320.a335db14-oliver.sang@intel.com> kernel test robot report
        "kernel test robot noticed a -72.9% regression of fio.write_iops on:\n\n\n"
        'commit: 574e7779cf583171acb5bf6365047bb0941b387c ("block/mq-deadline: use separate insertion lists")\n'
        "https://git.kernel.org/cgit/linux/kernel/git/next/linux-next.git master\n\n"
        "| Closes: https://lore.kernel.org/oe-lkp/202401312320.a335db14-oliver.sang@intel.com\n\n"
        "commit: \n"
        '  8f764b91fd ("block/mq-deadline: skip expensive merge lookups if contended")\n'
        '  574e7779cf ("block/mq-deadline: use separate insertion lists")\n\n'
        "8f764b91fdf29659 574e7779cf583171acb5bf63650 \n",
        {"574e7779cf583171acb5bf6365047bb0941b387c": "culprit", "8f764b91fdf29659": "base"},
        id="lkp-report",
    ),
    pytest.param(
        # <9a2884bf-8ab4-4f42-8ebc-bfc92aafdfb5@leemhuis.info> regzbot commands
        ">> I bisected\n>> the problem to the following commit.\n>>\n"
        '>> aa511ff8218b ("badblocks: switch to the improved badblock handling code") \n>>\n'
        ">> Reverting this patch fixed our tests.\n>\n> #regzbot ^introduced aa511ff8218b\n\n"
        "#regzbot introduced 3ea3354cb9f0\n#regzbot fix: 146e843f6b0927\n#regzbot ignore-activity\n",
        {"aa511ff8218b": "culprit", "3ea3354cb9f0": "culprit", "146e843f6b0927": "fix"},
        id="regzbot",
    ),
    pytest.param(
        # <CA+G9fYu1hB2OMf0EFrt_86OE=0Ug3y6nQd3=OZeEeM1jp3P92g@mail.gmail.com> LKFT bisect log
        "Bisecting this test between kernel v6.4 and v6.5 shows patch\n"
        'eca2040972b4 ("scsi: block: ioprio: Clean up interface definition")\n'
        "as the first faulty commit.\n\n"
        "# good: [7907ad748bdba8ac9ca47f0a650cc2e5d2ad6e24] Merge patch series\n"
        "git bisect good 7907ad748bdba8ac9ca47f0a650cc2e5d2ad6e24\n"
        "# first bad commit: [eca2040972b411ec27483bf75dc8b84e730e88ff] scsi:\n",
        {
            "eca2040972b411ec27483bf75dc8b84e730e88ff": "culprit",
            "7907ad748bdba8ac9ca47f0a650cc2e5d2ad6e24": "tested",
        },  # a step: built, run and judged
        id="bisect-log",
    ),
    pytest.param(
        # <20200809142522.GI17456@casper.infradead.org> (linux-block, "Very slow qemu device access"):
        # the two commits a developer asked to try, each judged by hand
        "> So please test either 4e2f62e566b5 or 568f27006577 and see if there is\n> such issue.\n\n"
        "4e2f62e566b5 is good\n568f27006577 is bad\n\nAs before, the stack points to the tag code:\n",
        {"4e2f62e566b5": "tested", "568f27006577": "tested"},
        id="steps-judged-by-hand",
    ),
    pytest.param(
        # the shape of a bisection written by hand, a SHA and its verdict per line, then the commit
        # it ended at as `git show` prints it (the pattern of linux-ext4 reports; SHAs made up)
        "I bisected it on my board:\n\n"
        "a4c123b1612dd272d1371c17149d439536b3216f good\ndaeeb975729fae923d5a4fd12aabfe228f219e9c bad\n"
        "b0eb53f16947ccf25ec84d8dbc74254770f58904 good\ndba41ecccc3fc1626e53a13043b026c48bbf33fe bad\n\n"
        "commit dba41ecccc3fc1626e53a13043b026c48bbf33fe\nAuthor: A Developer <dev@example.org>\n"
        "Date:   Tue Mar 8 15:22:01 2022 +0530\n\n    ext4: change the allocator's scan order\n\n"
        "Reverting it on top of the release makes the slowdown go away.\n",
        {
            "a4c123b1612dd272d1371c17149d439536b3216f": "tested",
            "daeeb975729fae923d5a4fd12aabfe228f219e9c": "tested",
            "b0eb53f16947ccf25ec84d8dbc74254770f58904": "tested",
            "dba41ecccc3fc1626e53a13043b026c48bbf33fe": "culprit",
        },
        id="hand-bisection-then-git-show",
    ),
    pytest.param(
        # <CA+G9fYvKfeRHfY3d_Df+9V+4tE_ZcvMGVJ-acewmgfjxb1qtpg@mail.gmail.com>
        "As per Anders bisection results the first bad commit pointing to\n"
        '   ba858e55b205 ("bdev: open block device as files")\n',
        {"ba858e55b205": "culprit"},
        id="first-bad-commit-pointing-to",
    ),
    pytest.param(
        # <7a3b35dd-7365-4427-95a0-929b28c64e73@linux.ibm.com> git bisect output
        "Git bisect reveals the following commit as bad commit:\n\n"
        "8f03cfa117e06bd2d3ba7ed8bba70a3dda310cae is the first bad commit\n"
        "commit 8f03cfa117e06bd2d3ba7ed8bba70a3dda310cae\nAuthor: Christoph Hellwig <hch@lst.de>\n"
        "Date:   Mon Mar 4 07:04:51 2024 -0700\n\n"
        "    nvme: don't use nvme_update_disk_info for the multipath disk\n",
        {"8f03cfa117e06bd2d3ba7ed8bba70a3dda310cae": "culprit"},
        id="git-first-bad-commit",
    ),
    pytest.param(
        # <0000000000002b1fc7060fca3adf@google.com> syzbot: lead-in sentence ends with ":"
        "The issue was bisected to:\n\ncommit 0d345996e4cb573f8cc81d49b3ee9a7fd2035bef\n"
        "Author: Pengfei Xu <pengfei.xu@intel.com>\nDate:   Mon Jul 31 03:04:18 2023 +0000\n\n"
        "    x86/kernel: increase kcov coverage under arch/x86/kernel folder\n\n"
        "dashboard link: https://syzkaller.appspot.com/bug?extid=2373f6be3e6de4f92562\n",
        {"0d345996e4cb573f8cc81d49b3ee9a7fd2035bef": "culprit"},
        id="syzbot-bisected-to",
    ),
    pytest.param(
        # a patch's trailers: Fixes names the culprit; base-commit is the base
        'Fixes: d47f9717e5cf ("block/mq-deadline: use correct way to throttling write requests")\n'
        "Signed-off-by: Bart Van Assche <bvanassche@acm.org>\n---\n"
        "base-commit: 0bd1bf95a554f5f877724c27dbe33d4db0af4d0c\n",
        {"d47f9717e5cf": "culprit", "0bd1bf95a554f5f877724c27dbe33d4db0af4d0c": "base"},
        id="trailers",
    ),
    pytest.param(
        # the commit a revert takes out is the culprit; the mail is the revert
        "This reverts commit d47f9717e5cfd0dd8c0ba2ecfa47c38d140f1bb6.\n",
        {"d47f9717e5cfd0dd8c0ba2ecfa47c38d140f1bb6": "culprit"},
        id="this-reverts",
    ),
    pytest.param(
        'Reverting commit 8e0ef4128694 ("dm: use queue_limits_set") fixes the problem for me.\n',
        {"8e0ef4128694": "culprit"},
        id="revert-that-fixes-means-culprit",
    ),
    pytest.param(
        # <20220315124943.wtgwrrkuthnwto7w@quack3.lan> linux-xfs, "Regression in XFS for fsync heavy workload"
        "Note that the numbers are actually times to complete workload, not\n"
        "traditional dbench throughput numbers so lower is better. Eventually I have\n"
        'tracked down the problem to commit bad77c375e8d ("xfs: CIL checkpoint\n'
        'flushes caches unconditionally").\n',
        {"bad77c375e8d": "culprit"},
        id="tracked-down-the-problem-to",
    ),
    pytest.param(
        # <Y+pdHFFTk1TTEBsO@makrotopia.org> linux-block, 'regression in next-20230213: "splice: ..."'
        "I've traced it down to commit d9722a47571104f7fa1eeb5ec59044d3607c6070\n"
        '("splice: Do splice read from a buffered file without using ITER_PIPE") and\n',
        {"d9722a47571104f7fa1eeb5ec59044d3607c6070": "culprit"},
        id="traced-it-down-to",
    ),
    pytest.param(
        "The regression is not caused by 1234abcd5678, the bisect was wrong.\n",
        {"1234abcd5678": "mentioned"},
        id="negated-cue",
    ),
    pytest.param(
        "The following changes since commit 41bccc98fb7931d63d03f326a746ac4d429c1dd3:\n\n"
        "  Linux 6.8-rc2 (2024-01-28 17:01:12 -0800)\n",
        {"41bccc98fb7931d63d03f326a746ac4d429c1dd3": "base"},
        id="pull-request-base",
    ),
    pytest.param(
        "between commit 80a787ba3809 and 6f75723190d8 the accounting changed\n",
        {"80a787ba3809": "mentioned", "6f75723190d8": "mentioned"},
        id="between-range",
    ),
    pytest.param(
        "cb38d6f3acce..8275b10a1c9a looks like the culprit range\n",
        {"cb38d6f3acce": "culprit", "8275b10a1c9a": "culprit"},
        id="dotdot-range",
    ),
]


@pytest.mark.parametrize("text,expected", ARCHIVE_CASES)
def test_archive_examples(text, expected):
    assert _roles(text) == expected


def test_link_trailer_cites_message_id():
    text = (
        "Reported-by: kernel test robot <oliver.sang@intel.com>\n"
        "Closes: https://lore.kernel.org/oe-lkp/202401312320.a335db14-oliver.sang@intel.com\n"
        "Link: https://lore.kernel.org/r/20240131123456.1234-1-foo@bar.com\n"
    )
    links = [c for c in find_commits(text) if c.form == "link"]
    assert [c.sha for c in links] == [
        "202401312320.a335db14-oliver.sang@intel.com",
        "20240131123456.1234-1-foo@bar.com",
    ]
    assert [c.cue for c in links] == ["Closes:", "Link:"]
    assert not [c for c in find_commits(text) if c.form != "link"]


def test_range_ranges_in_ranges_form():
    ranges = find_commits("cb38d6f3acce..8275b10a1c9a looks like the culprit range\n")
    assert {c.form for c in ranges} == {"range"}


# --- negatives: hex that is not a commit ---

NEGATIVES = [
    pytest.param("index cb38d6f3acce..8275b10a1c9a 100644\n", id="diff-index"),
    pytest.param("> index fd482439afbc..b927a4a0ad03 100644\n", id="quoted-diff-index"),
    pytest.param(
        "RIP: 0010:blk_mq_run_hw_queue+0x1a/0x30\nRSP: 0018:ffffc90000a7bd48 EFLAGS: 00010246\n",
        id="stack-trace",
    ),
    pytest.param(
        "[58563.146439] [c00000007960f500] [c00000007960f560] 0xc00000007960f560\nc0000000009c1584\n",
        id="powerpc-trace",
    ),  # archive <...@linux.vnet.ibm.com>
    pytest.param(
        "GPR08: c000000002bac020 6b6b6b6b6b6b6b6b 6b6b6b6b6b6b6b6b 0000000000000220\n", id="registers"
    ),
    pytest.param("00000010: 4142 4344 4546 4748 494a 4b4c\n", id="hexdump"),
    pytest.param("UUID=3b2e1f4a-9c7d-4e8f-a1b2-c3d4e5f6a7b8 / ext4 defaults 0 1\n", id="uuid"),
    pytest.param("Message-ID: <202401312320.a335db14-oliver.sang@intel.com>\n", id="message-id"),
    pytest.param("see https://syzkaller.appspot.com/x/.config?x=4059ab9bf06b6ceb for the config\n", id="url"),
    pytest.param("the run on 20240312 and 20240313 finished\n", id="decimal-dates"),
    pytest.param("disk image: disk-7a396820.raw.xz\n", id="file-name"),
    pytest.param("we saw a deadbeef value and addr 0xffff888103c5e000\n", id="words-and-addresses"),
    pytest.param("ffff888103c5e000 is the address\n", id="bare-kernel-address"),
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_not_commits(text):
    assert find_commits(text) == []


# --- robustness ---


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00" * 1000,
        "a" * 1_000_000,
        ("d47f9717e5cf " * 20000),
        '("' * 50000,
        "commit: " + "0123456789abcdef" * 5000,
        "\n".join(["> " * 40 + "bisected to"] * 2000),
    ],
    ids=["empty", "nuls", "one-mb-line", "repeated-shas", "open-subjects", "hex-run", "deep-quotes"],
)
def test_pathological_input_is_fast_and_safe(text):
    t0 = time.thread_time()
    find_commits(text)
    assert time.thread_time() - t0 < 15


def test_non_string_input():
    assert find_commits(None) == []  # type: ignore[arg-type]


# Real text, linux-block public-inbox epoch 0: "pgbench buffer readwrite mode showing around 24% perf
# regression" (2025) and "block: significant performance regression in iSCSI rescan" (2023).
def test_curly_quoted_subject_and_narrowed_down_culprit():
    text = (
        "After bisecting we were able to narrow it down to the commit\n"
        "9a42891c35d50a8472b42c61256867b4dfcc1941 (\u201cblock: fix lost bio for plug enabled bio based device\u201d)\n"
    )
    (c,) = find_commits(text)
    assert (c.sha[:12], c.role, c.subject) == (
        "9a42891c35d5",
        "culprit",
        "block: fix lost bio for plug enabled bio based device",
    )


def test_comes_down_to_a_patch_in_git_log_form_is_the_culprit():
    text = (
        "This was determined not to be an array side issue, but I chased the\n"
        "problem for him. The issue comes down to a patch:\n\n"
        "commit 508aebb805277c541e94ee14daba4191ff02347e\n"
        "Author: Damien Le Moal <damien.lemoal@wdc.com>\n"
        "Date:   Wed Jan 27 20:47:32 2021\n\n"
        "    block: introduce blk_queue_clear_zone_settings()\n"
    )
    (c,) = find_commits(text)
    assert (c.sha[:12], c.role) == ("508aebb80527", "culprit")


def test_email_spans_are_the_email_regexs_spans():
    """_email_spans searches only around each "@": the same spans as scanning the whole text."""
    import random

    from lkmlkb.extract.commits import _EMAIL_RE, _email_spans

    rng = random.Random(7)
    texts = ["".join(rng.choice("ab.-+_@ @x1\n") for _ in range(rng.randint(0, 300))) for _ in range(3000)]
    texts += [
        "a" * 150 + "@" + "b" * 50,
        "x@" + "a" * 99 + "@b",
        ("a" * 99 + "@" + "b" * 100 + ".") * 30 + "@@@c.d@e",
        "Reported-by: kernel test robot <oliver.sang@intel.com>\nCc: linux-block@vger.kernel.org",
        # an address found in the window of an earlier "@", its domain cut before a final "." (review)
        "@" + " " * 199 + "a@" + "b" * 100 + ("." + "b" * 100) * 8 + ".bbbb",
    ]
    for text in texts:
        assert _email_spans(text) == [m.span() for m in _EMAIL_RE.finditer(text)], text


def test_nearest_before_is_max_over_the_sentence_before_each_sha():
    """The running choice of before-cues equals max() over every cue of the sentence before each SHA."""
    import bisect
    import random

    from lkmlkb.extract.commits import _nearest_before, _nearness
    from lkmlkb.extract.nlp.reading import Cue

    rng = random.Random(3)
    for _ in range(300):
        cues = sorted(
            (
                Cue(rng.choice(["CULPRIT", "FIX", "BAD_POST"]), "x", a, a + rng.randint(1, 30), "", 0, 0)
                for a in (rng.randint(0, 400) for _ in range(rng.randint(0, 40)))
            ),
            key=lambda c: (c.start, c.end),
        )
        starts = [c.start for c in cues]
        runs: dict = {}
        s0 = rng.randint(0, 50)
        for at in sorted(rng.sample(range(s0, 450), 12)):
            upto = bisect.bisect_left(starts, at)
            pool = [c for c in cues if s0 <= c.start and c.end <= at and not c.label.endswith("_POST")]
            expected = [max(pool, key=_nearness)] if pool else []
            assert _nearest_before(cues, starts, s0, upto, at, runs) == expected


def test_email_spans_skip_an_at_sign_no_address_can_hold():
    """An "@" with no local-part character before it or no domain character after it ("@@ -98,6 +98,7 @@"
    of a diff, "a @ b") is passed over: the spans stay those of scanning the whole text."""
    import random

    from lkmlkb.extract.commits import _EMAIL_RE, _email_spans

    rng = random.Random(8)
    pieces = [
        "@",
        "@@",
        "@@ -98,6 +98,7 @@",
        " ",
        "\n",
        "a",
        "b.",
        "-",
        "+",
        "_",
        "\u00e9",
        "\u0663",
        "x@y",
        ".c",
        "<",
        ">",
    ]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 120))) for _ in range(4000)]
    texts += ["@@ -1 +1 @@\n" * 300 + "hch@lst.de", "a" * 100 + "@@b", "@" + "b" * 1200 + "@c.d"]
    for text in texts:
        assert _email_spans(text) == [m.span() for m in _EMAIL_RE.finditer(text)], text


def _sha_hits_line_by_line(text):
    """find_sha_hits as it read every line (the oracle of the whole-text search of the runs)."""
    from lkmlkb.extract import commits as cm

    hits, pos = [], 0
    excluded = cm._Spans(cm._excluded_spans(text))
    for line in text.split("\n"):
        cut = line[: cm.MAX_LINE]
        if len(line) >= 7 and cm._HEX_RUN_RE.search(cut):
            shas = [
                m
                for m in cm._SHA_RE.finditer(cut)
                if (cm.looks_like_sha(m.group("sha")) or cm._cites_title(cut, m))
                and not cm._quoted_string(cut, m)
                and not cm._prompt_host(cut, m)
            ]
            if shas and not cm._SKIP_LINE_RE.search(cut) and not cm._hexdump_line(cut):
                hits += [
                    (m.group("sha").lower(), pos + m.start(), pos + m.end())
                    for m in shas
                    if not excluded.holds(pos + m.start(), pos + m.end())
                ]
        pos += len(line) + 1
    return hits


def test_sha_hits_found_through_the_whole_text_are_those_of_every_line():
    import random

    from lkmlkb.extract import commits as cm

    rng = random.Random(7)
    words = [
        "0123abc",
        "deadbee",
        "3430818739",
        "1f2e3d4c5b6a",
        "a1b2c3d4e5f60718293a",
        "commit",
        "Fixes:",
        "see",
        "https://git.kernel.org/x/0123abcdef",
        "<0123abcd@x.org>",
        "a0123abc@b.org",
        " ",
        " ",
        "\n",
        "\n\n",
        "0" * 8,
        "ffff8881deadbeef",
        "x" * 3990,
        "fio",
        '("block: fix")',
        ">",
    ]
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.iterdir()) if p.is_file()]
    texts += ["".join(rng.choice(words) for _ in range(rng.randrange(40))) for _ in range(2000)]
    for t in texts:
        assert [(h.sha, h.start, h.end) for h in cm.find_sha_hits(t)] == _sha_hits_line_by_line(t)


# Juhyung Park, "Possible io_uring regression with QEMU on Ubuntu's kernel" (io-uring, 2021-06-30,
# <CAD14+f2Nmu_XNjE8SM+jzfaNZfzyFowN3Cf8Lgw36FT+gqqPAg@mail.gmail.com>), trimmed
GIT_LOG_LIST = """\
I guess one of these commits following the backported commit from
v5.12 fixes the issue, but that's just a guess. It might be another
earlier commit:
c7d95613c7d6 io_uring: fix early sqd_list removal sqpoll hangs
07204f21577a io_uring: fix EIOCBQUEUED iter revert
696ee88a7c50 io_uring/io-wq: protect against sprintf overflow
"""


def test_a_commit_titles_words_are_no_cue_for_the_shas_after_it():
    # "revert" closing 07204f21577a's title made 696ee88a7c50 a culprit ("CULPRIT_IF_HELPS" read
    # "fixes the issue" in the sentence); a title says what its own commit does, nothing more
    roles = _roles(GIT_LOG_LIST)
    assert set(roles) == {"c7d95613c7d6", "07204f21577a", "696ee88a7c50"}
    assert roles["696ee88a7c50"] == "mentioned"


# The kernel test robot's build reports quote the source around a warning as `git blame` lines:
# the SHA heading each line is who last touched it, and the code comment after it is no cue
# ("due to" made 71e330b593905e a culprit, "can be applied" 3993baeb3c52f4 a tested commit,
# "parent" 233f4e12bbb2c5 a base).  Lines of its reports: to linux-xfs, Message-IDs
# 202106031844.nHvax4Cf-lkp@intel.com (2021-06-03; "@836" marks the warning's line),
# 202112031316.y6txW39w-lkp@intel.com (2021-12-03) and Zw+ANpfFdGD5fqtv@rli9-mobl (with the
# file's path); to linux-block, 202008240800.8PxefkXY%lkp@intel.com (a boundary commit, "^").
BLAME_LISTING = """vim +836 fs/xfs/xfs_log_cil.c

08a813aea7434e Dave Chinner      2021-06-03   806
71e330b593905e Dave Chinner      2010-05-21   948  	 * For example, if we get an EFI in one checkpoint and the EFD in the
71e330b593905e Dave Chinner      2010-05-21   949  	 * next (e.g. due to log forces), we do not want the checkpoint with
71e330b593905e Dave Chinner      2010-05-21  @836  	struct xfs_log_vec	lvhdr = { NULL };

^1da177e4c3f41 Linus Torvalds         2005-04-16  865  	adpt_hba* pHba = NULL;

3993baeb3c52f4 Darrick J. Wong 2016-10-03  112   * Since the remapping operation can be applied to an arbitrary file
3993baeb3c52f4 Darrick J. Wong 2016-10-03  113   * range, we record the need for the remap step as a flag in the ioend

670105de15cd98 fs/xfs/xfs_ondisk.h        Brian Foster      2019-02-08  162
233f4e12bbb2c5 fs/xfs/libxfs/xfs_ondisk.h Darrick J. Wong   2024-04-22  163  	/* parent pointer ioctls */
"""


def test_git_blame_lines_cite_their_commits_without_a_role():
    commits = {c.sha: c for c in find_commits(BLAME_LISTING)}
    assert set(commits) == {
        "08a813aea7434e",
        "71e330b593905e",
        "1da177e4c3f41",
        "3993baeb3c52f4",
        "670105de15cd98",
        "233f4e12bbb2c5",
    }
    assert {(c.role, c.form, c.cue) for c in commits.values()} == {("mentioned", "blame", "")}


def test_the_warning_line_of_a_blame_listing_takes_no_role_from_its_code():
    # the "@" line alone, its code a cue ("caused by") for the boundary commit's SHA before it
    text = (
        "^1da177e4c3f41 Linus Torvalds         2005-04-16  @864  \t/* hang caused by this */\n"
        "71e330b593905e Dave Chinner      2010-05-21  @836  \t * (e.g. due to log forces)\n"
    )
    assert {(c.sha, c.role, c.form) for c in find_commits(text)} == {
        ("1da177e4c3f41", "mentioned", "blame"),
        ("71e330b593905e", "mentioned", "blame"),
    }


def test_a_blame_line_is_no_blame_line_without_its_author_or_line_number():
    # "<sha> <name> <date>" alone is a log line, whose words can give the SHA its role
    roles = _roles("71e330b593905e Dave Chinner 2010-05-21 introduced the regression, bisected.\n")
    assert roles == {"71e330b593905e": "culprit"}
    # a table of SHAs, dates and numbers (made up: the near miss of review) names no author
    table = "9f8e7d6c5b4a    2024-01-21    800     bad, this is the first bad commit\n"
    assert {(c.role, c.form) for c in find_commits(table)} == {("culprit", "prose")}
    assert _roles("deadbeef1234   v6.8-rc1   2024-01-21   1234   5678 regressed\n") == {
        "deadbeef1234": "culprit"
    }


# --- identifiers in key: value lines are not commits ---

# The kernel test robot's job file attached to a functional report (linux-btrfs,
# 202210232124.c0b1783d-oliver.sang@intel.com): "queue: bisect" then LKP's job ids
LKP_JOB_FILE = """\
#! queue options
queue_cmdline_keys:
- branch
- commit
queue: bisect
testbox: lkp-skl-d07
tbox_group: lkp-skl-d07
submit_id: 6351d3ca7ebdde7e6116a638
job_file: "/lkp/jobs/scheduled/lkp-skl-d07/xfstests-4HDD-ext4-smbv2-generic-group-12.yaml"
id: 8bd0f5047bb2ec26ff5779fb165b4c2c52e7e6c3
queuer_version: "/zday/lkp"
_id: 5fa9777a5888eb1a468d2b7b
"""


def test_job_ids_of_a_robot_job_file_are_no_commits():
    assert _roles(LKP_JOB_FILE) == {}


def test_a_prerequisite_patch_id_is_no_commit_but_the_base_commit_is():
    # git format-patch's trailer of a series cover letter (cover.1689564024.git.sweettea-kernel@dorminy.me)
    text = (
        "base-commit: 3610b041a635597e99095eb293b7008a7e454a06\n"
        "prerequisite-patch-id: ab342a72cf967dadfb8bec1320c5906fd3c6800f\n"
        "prerequisite-patch-id: ced2a9dab36539f55c14cd74a28950087c475ff2\n"
    )
    assert _roles(text) == {"3610b041a635597e99095eb293b7008a7e454a06": "base"}


@pytest.mark.parametrize(
    "line",
    [
        "Commit-ID:  8b9e2a1c6f5d0e4b3a2f1e0d9c8b7a6f5e4d3c2b",  # tip-bot's header
        "commit id: 8b9e2a1c6f5d",
        "commit_id: 8b9e2a1c6f5d",
    ],
)
def test_a_commit_id_key_still_cites_its_commit(line):
    assert [c.sha for c in find_commits(line + "\n")] == [line.split()[-1]]


def test_a_hex_name_in_quotes_is_no_commit():
    # strace -T output pasted into a slowdown report (linux-raid, "Massive slowdown in kernels as of
    # 6.x", 2024-05): the file names renamed are hex, and whole strings in quotes
    text = (
        '   rename(".272629ef.22gv2x", "272629ef")  = 0 <18.325222>\n'
        '   rename(".275fbacf.UBj6J5", "275fbacf")  = 0 <18.317571>\n'
        'The commit 6975c1a486a4 ("block: remove the ioprio field") is not it.\n'
    )
    assert {c.sha for c in find_commits(text)} == {"6975c1a486a4"}


def test_a_hex_host_of_a_shell_prompt_is_no_commit():
    # linux-btrfs, "Re: BTRFS File Delete Speed Scales With File Size?" (2020-11): the host of the
    # prompt before each timed command is hex, and "tested" a commit that never was
    text = (
        "0f70583cd12cac:/pandata/0 # time (for i in {1..10}; do time (rm test$i; sync); done)\n"
        "real    0m0.636s\n"
        "root@3f4e5a6b7c8d:~# fio job.fio\n"
        'It got slow after 0f70583cd12c ("btrfs: foo"), 9a3b4c5d6e7f: block: bar too.\n'
    )
    assert [c.sha for c in find_commits(text)] == ["0f70583cd12c", "9a3b4c5d6e7f"]


# the kernel test robot's report as it was written from 2019 to 2022 ("FYI, we noticed ... due to
# commit:"), in the form of <20201207131037.GA3826@xsang-OptiPlex-9020> (linux-block, 2020-12):
# the report's own commit, then a "commit:" block of base, head and a commit tried after them
OLD_ROBOT = """\
Greeting,

FYI, we noticed a -4.8% regression of will-it-scale.per_process_ops due to commit:


commit: 9bd0e337c633aed3e8ec3c7397b7ae0b8436f163 ("[PATCH 01/29] iov_iter: Switch to using a table of operations")

=========================================================================================
compiler/cpufreq_governor/kconfig/mode/nr_task/rootfs/tbox_group/test/testcase/ucode:
  gcc-9/performance/x86_64-rhel-8.3/process/50%/debian-10.4-x86_64-20200603.cgz/lkp-ivb-2ep1/pwrite1/will-it-scale/0x42e

commit:{blank}
  27bba9c532a8d21050b94224ffd310ad0058c353
  9bd0e337c633aed3e8ec3c7397b7ae0b8436f163

27bba9c532a8d210 9bd0e337c633aed3e8ec3c7397b{blank}
---------------- ---------------------------{blank}
""".replace("{blank}", " ")


@pytest.mark.parametrize("quote", ["", "> "])
def test_the_robots_older_form_names_its_base_and_its_commit(quote):
    text = "".join(quote + line + "\n" for line in OLD_ROBOT.split("\n"))
    roles = {c.sha[:12]: c.role for c in find_commits(text)}
    assert roles == {"9bd0e337c633": "culprit", "27bba9c532a8": "base"}


# the robot's job file and job script, attached to its reports (the forms of 2020-2023 reports on
# linux-btrfs, linux-ext4 and linux-xfs): the branch it ran on, its monitors' id and its paths are
# no commits the report cites
ROBOT_JOB_LINES = [
    "head_commit: c3a8e1f07b2d95c4e6a1f3b8d0c2e7a9f5b1d4c6",
    "base_commit: a1d7f3c9e5b20486d1f7e3a9c5b2d8e0f4a6c1b3",
    "\texport head_commit='d4b2a9e6c1f8305a7e2d9c4b1f6a8e3d0c5b7a92'",
    "\texport base_commit='f0c6e2a8d4b17953e1a7c3f9d5b2e8a0c6d4f1e7'",
    "\texport monitor_sha='7c3e91ab'",
    "monitor_sha: 7c3e91ab",
    "\texport job_file='/lkp/jobs/scheduled/lkp-ivb-2ep1/fio-basic-4k-ucode=0x42e-monitor=7c3e91ab-debian-10.4.yaml'",
    'result_root: "/result/fio-basic/4k-performance-1HDD-ext4/gcc-12/b7d21c9e04f6a3158e2d7c0b9a4f61e8d3c25a70"',
    "- RESULT_ROOT=/result/fio-basic/4k-monitor=7c3e91ab/lkp-ivb-2ep1/gcc-9/b5e0c9d3a17f42e6d8c1a",
]


@pytest.mark.parametrize("line", ROBOT_JOB_LINES)
def test_the_robots_job_file_cites_no_commit(line):
    assert _roles(line + "\n") == {}


@pytest.mark.parametrize(
    "after,role",
    [
        # linux-ext4, Zizhi Wo, "[PATCH] ext4: Modify the comment about mb_optimize_scan" (2025-02-24,
        # <20250224012005.689549-1-wozizhi@huawei.com>): a commit introducing a feature is no culprit
        (
            'introduces\nthe sysfs control interface "mb_max_linear_groups" to address the problem',
            "mentioned",
        ),
        ("introduced the mb_optimize_scan mount option.", "mentioned"),
        ("introduced a new helper for it.", "mentioned"),
        # what a culprit introduces
        ("introduced a 20% regression in fs_mark.", "culprit"),
        ("introduced it.", "culprit"),
        ("introduces a lock contention in the submission path.", "culprit"),
    ],
)
def test_a_commit_introducing_a_feature_is_no_culprit(after, role):
    text = 'Commit 196e402adf2e ("ext4: improve cr 0 / cr 1 group scanning") ' + after + "\n"
    assert [(c.sha, c.role) for c in find_commits(text)] == [("196e402adf2e", role)]


@pytest.mark.parametrize(
    "text",
    [
        # linux-xfs and linux-ext4 bisections: "found the bad commit:", "The bad commit is"
        "I bisected between 6.10 and 6.11 and found the bad commit:\n\n"
        "commit 0123456789abcdef0123456789abcdef01234567\n"
        "Author: Some One <one@example.com>\n\n    block: change plugging\n",
        'The bad commit is 0123456789ab ("block: change plugging").\n',
        'The bad commit turned out to be 0123456789ab ("block: change plugging").\n',
        # linux-btrfs and linux-block: "This comes from commit X", "it came from commit X"
        'I think that it came from commit 0123456789ab ("block: change plugging"), where we\n'
        "started to split every bio.\n",
        "Random writes got slower. It seems to come from this commit:\n\n"
        "commit 0123456789abcdef0123456789abcdef01234567\n"
        "Author: Some One <one@example.com>\n",
    ],
)
def test_the_bad_commit_and_where_a_slowdown_comes_from_are_culprits(text):
    assert {sha[:12]: role for sha, role in _roles(text).items()} == {"0123456789ab": "culprit"}


def test_a_bad_commit_merge_or_a_fix_that_comes_later_names_no_culprit():
    # "Fix a bad commit merge" names no commit; a SHA in another sentence takes no role from it
    assert _roles("- Fix a bad commit merge\n\nSee 0123456789ab for the series.\n") == {
        "0123456789ab": "mentioned"
    }


@pytest.mark.parametrize(
    "text,sha,role",
    [
        # the change a report or a fix traces its trouble to, named first: Naohiro Aota, "Performance
        # drop due to alloc_workqueue() misuse and recent change" (linux-block, 2023-12-04); Jan Kara,
        # "[PATCH] block: do not reverse request order when flushing plug list" (linux-block,
        # 2023-03-13); Mel Gorman (linux-xfs, 2020-01-27, <20200127143608.GX3466@techsingularity.net>)
        (
            'Recently, commit 636b927eba5b ("workqueue: Make unbound workqueues to use\n'
            "per-cpu pool_workqueues\") changed WQ_UNBOUND workqueue's behavior.\n",
            "636b927eba5b",
            "culprit",
        ),
        (
            'Commit 26fed4ac4eab ("block: flush plug based on hardware and software queue\n'
            'order") changed flushing of plug list to submit requests one device at a time.\n',
            "26fed4ac4eab",
            "culprit",
        ),
        (
            'Commit 8ab39f11d974 ("xfs: prevent CIL push holdoff in log recovery")\n'
            "changed from using bound workqueues to using unbound workqueues.\n",
            "8ab39f11d974",
            "culprit",
        ),
        ("Commit 0123456789ab has changed the default queue depth.\n", "0123456789ab", "culprit"),
        # a change of the commit's own, or a commit merely named
        ("I changed commit 0123456789ab to use the new helper.\n", "0123456789ab", "mentioned"),
        ("Commit 0123456789ab is in 6.8 and nothing changed since.\n", "0123456789ab", "mentioned"),
    ],
)
def test_a_commit_said_to_have_changed_the_behaviour_is_the_culprit(text, sha, role):
    assert {c.sha[:12]: c.role for c in find_commits(text)}[sha] == role


@pytest.mark.parametrize(
    "text,role",
    [
        # linux-block, "Regression in 5.17-rc1 on pata-falcon" (Michael Schmitz, 2022-01)
        (
            "commit 180dccb0dba4f5e84a4a70c1be1d34cbb6528b32 (blk-mq: fix tag_get wait task can't be awakened) "
            "does cause a regression on my m68k hardware test rig\n",
            "culprit",
        ),
        # written for the pattern: other auxiliaries and adverbs before the verb
        ("commit 180dccb0dba4 did introduce the slowdown, reverting it helps.\n", "culprit"),
        ("commit 180dccb0dba4 indeed causes the drop on my box.\n", "culprit"),
        # denied or about something else: no culprit
        ("commit 180dccb0dba4 does not cause a regression on my rig.\n", "mentioned"),
        ("commit 180dccb0dba4 did not help at all.\n", "mentioned"),
    ],
)
def test_a_commit_said_to_do_cause_the_slowdown_is_the_culprit(text, role):
    assert {c.sha[:12]: c.role for c in find_commits(text)}["180dccb0dba4"] == role


@pytest.mark.parametrize(
    "text,sha,role",
    [
        # linux-ext4, "[RFC] performance regression with "ext4: Allow parallel DIO reads"" (Joseph
        # Qi, 2019-08): the sentence ends with a full stop, the citation is on the next line
        (
            "Hi Ted & Jan,\n\nI've observed an significant performance regression with the following commit "
            "in my Intel P3600 NVMe SSD.\n16c54688592c ext4: Allow parallel DIO reads\n",
            "16c54688592c",
            "culprit",
        ),
        # io-uring, "Phoronix pts fio io_uring test regression report on upstream v6.1 and v5.15"
        # (2023-01): a Link: line between the lead-in and the `commit <sha>` block
        (
            "I'm reporting a performance regression after the commit below on phoronix pts/fio test and with "
            "the config that is added in the end of this email:\n\nLink: https://lore.kernel.org/all/"
            "20210913131123.597544850@linuxfoundation.org/\n\ncommit 7b3188e7ed54102a5dcc73d07727f41fb528f7c8\n"
            "Author: Jens Axboe axboe@kernel.dk\nDate:   Mon Aug 30 19:37:41 2021 -0600\n\n"
            "    io_uring: IORING_OP_WRITE needs hash_reg_file set\n",
            "7b3188e7ed54",
            "culprit",
        ),
        # written for the pattern: a slowdown "since the following change", then a list
        (
            "We see a 20% slowdown since the following change, on every box.\n\n  0123456789ab block: foo\n",
            "0123456789ab",
            "culprit",
        ),
        # linux-cifs / linux-xfs (2019-10): "the commit below regressed" a test
        (
            "I noticed that the commit below regressed cifs/smb3 xfstest 258 on 5.4-rc1 and later.\n\n"
            "commit 7b3188e7ed54102a5dcc73d07727f41fb528f7c8\nAuthor: X\n",
            "7b3188e7ed54",
            "culprit",
        ),
        # pointing below without blaming: a backport proposed, commits tested
        (
            "I think we should backport the commit below. It'll somewhat degrade perf.\n\ncommit 91f245d5d5de0802428a478802ec051f7e2f5ae5\nAuthor: X\n",
            "91f245d5d5de",
            "mentioned",
        ),
        (
            "We tested the following commits. All fine.\n\n91f245d5d5de block: foo\n",
            "91f245d5d5de",
            "mentioned",
        ),
    ],
)
def test_a_slowdown_said_of_the_commit_below_names_it_the_culprit(text, sha, role):
    assert {c.sha[:12]: c.role for c in find_commits(text)}[sha] == role


@pytest.mark.parametrize(
    "text,roles",
    [
        # linux-block, "[PATCH] block: ... QUEUE_FLAG_SAME_COMP" thread (2024): a reply names the
        # commit the report's lore link points at
        (
            "So the issue for you with commit af550e4c9682 seems to be that those\ncompletions don't happen on big CPUs.\n",
            {"af550e4c9682": "culprit"},
        ),
        # written for the pattern: the problem of one commit, fixed by another; none denied
        ("The problem with commit af550e4c9682 is that it skips the IPI.\n", {"af550e4c9682": "culprit"}),
        (
            "The problem with commit af550e4c9682 was fixed by 0123456789ab.\n",
            {"af550e4c9682": "culprit", "0123456789ab": "fix"},
        ),
        ("There is no problem with commit af550e4c9682 here.\n", {"af550e4c9682": "mentioned"}),
    ],
)
def test_the_problem_with_a_commit_names_the_culprit(text, roles):
    assert {c.sha[:12]: c.role for c in find_commits(text)} == roles


# the robot's report of <202602122319.d71b793c-lkp@intel.com> (linux-btrfs, 2026-02), trimmed: its
# base's short id "3430818739" has no letter; the table's header repeats both ids below a blank line
ROBOT_DECIMAL_BASE = """\
kernel test robot noticed a 6.5% regression of fio.write_iops on:


commit: 4e159150a9a56d66d247f4b5510bed46fe58aa1c ("btrfs: do not strictly require dirty metadata threshold for metadata writepages")
https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git master

commit:{blank}
  3430818739 ("btrfs: add extra device item checks at mount")
  4e159150a9 ("btrfs: do not strictly require dirty metadata threshold for metadata writepages")

34308187395ff01f 4e159150a9a56d66d247f4b5510{blank}
---------------- ---------------------------{blank}
         %stddev     %change         %stddev
     80085            -6.5%      74897        vmstat.io.bo
""".replace("{blank}", " ")


@pytest.mark.parametrize("quote", ["", "> ", ">> "])
def test_a_robot_base_of_decimal_digits_is_the_base_and_the_header_no_culprit(quote):
    text = "".join(quote + line + "\n" for line in ROBOT_DECIMAL_BASE.split("\n"))
    roles = {c.sha[:10]: c.role for c in find_commits(text)}
    assert roles == {"4e159150a9": "culprit", "3430818739": "base"}


@pytest.mark.parametrize(
    "text, cited",
    [
        ('This reverts commit 1234567890 ("block: drop the plug").\n', ["1234567890"]),
        ("commit 2023110812 (\u201cext4: fix a race\u201d) made it slower\n", ["2023110812"]),
        ("Throughput: 1234567890 bytes in 60 s\n", []),
        ('"1234567890" ("not a title")\n', []),
    ],
)
def test_decimal_words_are_commits_only_before_a_quoted_title(text, cited):
    assert [c.sha for c in find_commits(text)] == cited


def test_a_commit_block_without_its_base_line_names_no_base():
    """Only the lines right after "commit:" are its block: when the first of them names no commit
    (a version, a word), the block is not read at all, and the table header is not taken for it."""
    text = ROBOT_DECIMAL_BASE.replace("  3430818739 (", "  v6.19-rc3 (")
    roles = {c.sha[:10]: c.role for c in find_commits(text)}
    assert roles["4e159150a9"] == "culprit"
    assert "base" not in roles.values()
    assert roles.get("34308187395ff01f"[:10]) in (None, "mentioned")


@pytest.mark.parametrize(
    "text, role",
    [
        # io-uring, "[RFT RFC PATCH 0/8] cpufreq: cpuidle: Remove iowait behaviour" (2024-09): history
        (
            "iowait boost in schedutil was introduced by\n"
            'commit ("21ca6d2c52f8 cpufreq: schedutil: Add iowait boosting")\n'
            "with it more or less following intel_pstate's approach.\n",
            "mentioned",
        ),
        # linux-ext4 (2023): the code a fix changes, and when it came
        ("The logic of linear search was introduced by Commit 21ca6d2c52f8.\n", "mentioned"),
        ("The new sysfs knob was introduced by commit 21ca6d2c52f8 for that.\n", "mentioned"),
        # a fault introduced: the culprit
        ("It looks to be the slowdown was introduced by commit 21ca6d2c52f8\n", "culprit"),
        ("This is introduced by commit 21ca6d2c52f8 (md: convert to kvmalloc)\n", "culprit"),
        ("The regression in the flush code was introduced by commit 21ca6d2c52f8.\n", "culprit"),
        (
            "The logic of linear search was introduced by commit 21ca6d2c52f8 and it regressed fio.\n",
            "culprit",
        ),
        # the feature word far before the cue, in another clause
        (
            "We tuned the writeback code for weeks and weeks and weeks and weeks and weeks and weeks and "
            "weeks and weeks and weeks and weeks and then saw this was introduced by commit 21ca6d2c52f8.\n",
            "culprit",
        ),
    ],
)
def test_a_feature_introduced_by_a_commit_is_its_history_not_a_culprit(text, role):
    assert [(c.sha, c.role) for c in find_commits(text)] == [("21ca6d2c52f8", role)]


# --- a SHA a regression is said to date from: "regression since <sha>", "broken after <sha>" ---


@pytest.mark.parametrize(
    "text,sha",
    [
        # linux-crypto, "bcm2835-rng: Performance regression since 96cb9d055445" (2023-08)
        ("bcm2835-rng: Performance regression since 96cb9d055445", "96cb9d055445"),
        # linux-rdma and iommu, "performance regression noted in v5.11-rc after c062db039f40" (2021-01)
        ("performance regression noted in v5.11-rc after c062db039f40", "c062db039f40"),
        # linux-btrfs (2024-07): the slowdown named after the SHA, the word of regression before it
        ("6.10/regression/bisected - after f1d97e769152 I spotted increased execution time", "f1d97e769152"),
        # linux-ide and linux-cifs: a failure dated so is as much the commit's
        ("[REGRESSION][BISECTED] BU40N Blu-Ray drive broken since 7627a0edef54", "7627a0edef54"),
        ("Regression: CIFS umount fails since 14302ee33 with some servers (exit code 32)", "14302ee33"),
        # variants: a slowdown's own words, a wrapped line
        ("Sequential reads are 30% slower since 0123456789ab on my box.", "0123456789ab"),
        ('We see a big throughput drop on 6.9 after\n0123456789ab ("blk-mq: do a thing").', "0123456789ab"),
    ],
)
def test_a_sha_a_regression_dates_from_is_the_culprit(text, sha):
    assert _roles(text)[sha] == "culprit"


@pytest.mark.parametrize(
    "text,sha,role",
    [
        # linux-block (2024-02): both sides of a commit were measured
        (
            "I see a regression when comparing before/after e70c301faece with scheduler none",
            "e70c301faece",
            "mentioned",
        ),
        # the regression ends there: a fix, not its cause
        ("The regression is gone after 0123456789ab, thanks.", "0123456789ab", "mentioned"),
        ("The slowdown was fixed since 0123456789ab landed.", "0123456789ab", "fix"),
        # no word of a regression: history, not blame
        ("Since 8e141f9eb803, rq_qos_exit() is called from del_gendisk().", "8e141f9eb803", "mentioned"),
        ("I rebased the series after 0123456789ab.", "0123456789ab", "mentioned"),
    ],
)
def test_a_sha_after_since_or_after_without_a_regression_dated_from_it_is_no_culprit(text, sha, role):
    assert _roles(text)[sha] == role
