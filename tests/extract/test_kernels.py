"""Kernel versions in text and their good/bad roles (lkmlkb.kernels, lkmlkb.extract.kernels)."""

import time
from pathlib import Path

import pytest

from lkmlkb.extract.kernel_versions import find_versions
from lkmlkb.extract.kernels import find_kernel_mentions, find_kernels

CORPUS = Path(__file__).resolve().parents[2] / "corpus"

# labelled kernel lists of the seeds (shared/eval/seeds/*/gold.json)
SEED_GOLD = [
    ("000_a3585e8f2465c212.txt", {"6.8-rc7", "6.6", "5.15.y"}),
    ("001_09f4ed74915a608d.txt", {"5.12-rc7"}),
    ("002_05ded6ff64fd7ec3.txt", {"2.6.29", "2.6.30", "2.6.32-rc5", "2.6.32-rc6", "2.6.32-rc7"}),
    (
        "003_f5869eda4829fcf2.txt",
        {"6.4-rc3", "5.15.y", "5.17.0", "5.18.0", "5.19.0", "6.0.5", "6.1.30", "6.1.36", "6.5-rc1"},
    ),
    ("004_9a4b42bbfbf4e570.txt", {"4.19.x", "5.4.x", "5.4.190", "5.15.35"}),
]
# kernels the text names that the labels leave out (a planned release, a series named in
# passing); they are kernels, so they are allowed — anything else found is a bug
SEED_ALSO_KERNELS = {
    "002_05ded6ff64fd7ec3.txt": {"2.6.33"},  # "the patches queued for 2.6.33"
    "003_f5869eda4829fcf2.txt": {"6.1.y", "6.0", "6.1", "5.18"},  # "introduced in 6.0", "added in v5.18"
}


@pytest.mark.parametrize("name,gold", SEED_GOLD)
def test_seed_kernels_recall_and_nothing_else(name, gold):
    got = {k.version for k in find_kernels((CORPUS / name).read_text())}
    assert gold <= got
    assert got - gold <= SEED_ALSO_KERNELS.get(name, set())


SEED_ROLES = [
    # 000: "observed on recent kernels(6.6) when compared with 5.15.y"; "seen on 6.8-rc7 and a revert
    # on top of that fixes the regression"
    (
        "000_a3585e8f2465c212.txt",
        {
            ("6.6", None): "bad",
            ("5.15.y", None): "good",
            ("6.8-rc7", None): "bad",
            ("6.8-rc7", "+revert"): "good",
        },
    ),
    # 002: "The regression happened sometime between 2.6.29 and 2.6.30"
    ("002_05ded6ff64fd7ec3.txt", {("2.6.29", None): "good", ("2.6.30", None): "bad"}),
    # 003: subject "gfs2 write bandwidth regression on 6.4-rc3 compareto 5.15.y"
    ("003_f5869eda4829fcf2.txt", {("6.4-rc3", None): "bad", ("5.15.y", None): "good"}),
    # 004: "While moving from 4.19.x to 5.4.x we noticed a performance drop";
    # "The over-reporting is observed in v5.4.190 and in v5.15.35 as well."
    (
        "004_9a4b42bbfbf4e570.txt",
        {
            ("4.19.x", None): "good",
            ("5.4.x", None): "bad",
            ("5.4.190", None): "bad",
            ("5.15.35", None): "bad",
        },
    ),
]


@pytest.mark.parametrize("name,roles", SEED_ROLES)
def test_seed_roles(name, roles):
    got = {}
    for k in find_kernels((CORPUS / name).read_text()):
        qual = "+revert" if "revert" in k.raw.lower() else None
        got[(k.version, qual)] = k.role
    for key, role in roles.items():
        assert got.get(key) == role, key


def test_revert_qualified_version_keeps_raw_and_normalizes():
    ks = [k for k in find_kernels((CORPUS / "000_a3585e8f2465c212.txt").read_text()) if "evert" in k.raw]
    assert ks[0].raw == "6.8-rc7+ Revert" and ks[0].version == "6.8-rc7"


def test_evidence_points_at_the_line():
    text = (CORPUS / "001_09f4ed74915a608d.txt").read_text()
    k = find_kernels(text)[0]
    assert k.raw == "v5.12-rc7"
    assert "latest linus tree(v5.12-rc7" in text.split("\n")[k.evidence.line_start]


# --- sentences: roles from wording ---


@pytest.mark.parametrize(
    "text,expected",
    [
        ("It works fine on 5.10 but is broken since 6.1.", [("5.10", "good"), ("6.1", "bad")]),
        ("drop of 25% between v6.7 and v6.8-rc1", [("6.7", "good"), ("6.8-rc1", "bad")]),
        ("There is no regression on 6.6 with this setup.", [("6.6", "good")]),
        ("We tested kernels 6.9 and 6.10 on the same box.", [("6.9", None), ("6.10", None)]),
        ("kernel: latest linus tree(v5.12-rc7, commit: 7f75285ca57)", [("5.12-rc7", None)]),
    ],
)
def test_roles_from_wording(text, expected):
    assert [(k.version, k.role) for k in find_kernel_mentions(text)] == expected


# --- shapes ---


@pytest.mark.parametrize(
    "text,versions",
    [
        ("Linux 6.8-rc7 and next-20251219", ["6.8-rc7", "next-20251219"]),
        ("6.19.0-rc1-next-20251219 boots", ["6.19.0-rc1-next-20251219"]),
        ("uname -r: 6.1.0-13-amd64", ["6.1.0-13-amd64"]),
        ("built 6.8.0-rc3-00012-gabcdef today", ["6.8.0-rc3-00012-gabcdef"]),
        ("RHEL9 5.14 and 5.14.0-362.el9.", ["5.14", "5.14.0-362.el9"]),
        ("stable 4.19.x and 5.15.y", ["4.19.x", "5.15.y"]),
        ("on 6.8-rc7 : 3571\non 6.8-rc7 + revert : 3634", ["6.8-rc7", "6.8-rc7"]),  # corpus/000
        ("2.6.32-rc6,low_latency=0", ["2.6.32-rc6"]),  # corpus/002
    ],
)
def test_version_shapes(text, versions):
    assert [v[3] for v in find_versions(text)] == versions


@pytest.mark.parametrize(
    "text,versions",
    [
        # a distribution's build of a release, as `uname -r` writes it (linux-btrfs, 2025-06 and
        # 2025-05: "6.15.4-arch2-1", "Not tainted 6.12.21-gentoo #1")
        ("6.15.4-arch2-1", ["6.15.4-arch2-1"]),
        ("map_0x178e45670 Not tainted 6.12.21-gentoo #1", ["6.12.21-gentoo"]),
        ("On 6.9.1-zen1-1-zen it is slow, 6.8.9-arch1-2 is fine", ["6.9.1-zen1-1-zen", "6.8.9-arch1-2"]),
        ("6.7.5-x64v3-xanmod1 and 6.1.0-rpi7-rpi-v8", ["6.7.5-x64v3-xanmod1", "6.1.0-rpi7-rpi-v8"]),
        # ... but no word glued to a release: a name, not a build
        ("v6.8-archive and v6.8-zenith", ["6.8", "6.8"]),
    ],
)
def test_a_distributions_build_is_read_whole(text, versions):
    assert [v[3] for v in find_versions(text)] == versions


@pytest.mark.parametrize(
    "text,versions",
    [
        # `uname -a` (linux-btrfs, 2025-05 and 2025-06): the host name before the release
        ("Linux vch01 6.12.21-gentoo #2 SMP Thu May 15 18:02:52 CEST 2025 x86_64", ["6.12.21-gentoo"]),
        ("Linux host 6.14.6-300.fc42.x86_64 #1 SMP PREEMPT_DYNAMIC Fri May 9", ["6.14.6-300.fc42.x86_64"]),
        ("Linux version 5.2.0 #1 PREEMPT Tue Jul 9", ["5.2.0"]),
        # the boot banner (and /proc/version): "version" before it, the builder and compiler after
        (
            "[    0.000000] Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org) "
            "(gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP",
            ["6.1.0-13-amd64"],
        ),
    ],
)
def test_the_running_kernel_as_the_kernel_prints_it(text, versions):
    assert [v[3] for v in find_versions(text)] == versions


@pytest.mark.parametrize(
    "text",
    [
        "mdadm version 4.2 #1 SMP",  # two parts: no release of its own shape
        "fedora 39 (debian-kernel@lists.debian.org) (gcc",
        "xfsprogs version 6.1.0 (user@host) is installed",  # no compiler's parenthesis after it
        "Python 3.11.4 #1 on linux",
    ],
)
def test_other_software_stays_out_with_a_tail_of_its_own(text):
    assert find_versions(text) == []


def test_a_source_trees_name_is_a_kernel_outside_a_file_command():
    assert [v[3] for v in find_versions("linux-5.10 is slower than linux-5.4")] == ["5.10", "5.4"]
    assert [v[3] for v in find_versions("git checkout linux-5.10")] == ["5.10"]
    assert [v[3] for v in find_versions("booted linux-6.1, then rm -rf linux-6.1-rc1 took 9s")] == ["6.1"]


def test_spans_are_the_raw_text():
    text = "regression on v6.8-rc7+ Revert and 5.15.y"
    for a, b, raw, _ in find_versions(text):
        assert text[a:b] == raw


# --- negatives: version-shaped numbers that are not kernels ---


@pytest.mark.parametrize(
    "text",
    [
        "Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz",  # LKP test machine line
        "cpu usage went up 2.6% here",
        "2147483648 bytes (2.1 GB, 2.0 GiB) copied, 0.721532 s, 3.0 GB/s",  # corpus/004 dd output
        "fio-3.19",
        "fio 3.33 is installed",
        "Python 3.11",
        "gcc-14",
        "GCC 4.8.5 was used",
        "host 192.168.1.2 and 10.0.0.1",
        "date 2024.03.12",
        "37.80 38.54 39.48 -> 38.606667 0.687475",  # corpus/002 tiobench table
        "section 2.1 describes",
        "link at 1.5 Gbps",
        "SATA ATA-8 UDMA/133",
        "|  1.00th=[  986],  5.00th=[ 1167], 10.00th=[ 1250]",  # fio percentiles, corpus/000
        "Average: 34.6648 34.4475",  # corpus/002
        "in for-2.6.33) should allow",  # a branch name, corpus/002
        "ratio 4.817, 2.764, 3.064",
        # a kernel's source tree as a benchmark's files (linux-ext4, "discard and data=writeback",
        # 2020-12: "$ time rm -rf linux-5.10"), and the same in other commands
        "$ time rm -rf linux-5.10",
        "cd linux-6.1 && make -j8",
        "time cp -a linux-5.15 /mnt/test",
        # a diff's file headers name the tree it was made in (dm-devel, 2021-01)
        "--- linux-2.6.orig/drivers/md/dm-writecache.c\t2021-01-23 10:51:31.000000000 +0100",
        "+++ linux-2.6/drivers/md/dm-writecache.c\t2021-01-23 15:16:53.000000000 +0100",
    ],
)
def test_not_kernels(text):
    assert find_versions(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00" * 10000,
        "6." * 500000,
        "v" * 1_000_000,
        "5.15.y " * 100000,
        ("1.2.3.4.5.6.7.8.9" * 20000),
    ],
    ids=["empty", "nuls", "dots", "one-mb-line", "repeated-versions", "dotted-run"],
)
def test_pathological_input_is_fast_and_safe(text):
    t0 = time.thread_time()
    find_kernels(text)
    assert time.thread_time() - t0 < 20


# a move written "to B from A": dm-devel, Dennis Yang, "Performance degradation of DM devices after
# upgrading to linux-5.9 from linux-5.8", 2020-12-08; linux-raid (2023-03), "performance
# regression after upgrading to kernel 6.1.12 from 5.15"; linux-btrfs (2021-05), "after the update
# to kernel 5.12 from 5.11"
@pytest.mark.parametrize(
    "text,want",
    [
        # dm-devel, "Re: [PATCH v5 5/7] block: Delay default elevator initialization" (2019-10)
        ("So I\nbisected between 5.3 and 5.4-rc1, and got here.\n", {"5.3": "good", "5.4-rc1": "bad"}),
        # linux-acpi, "Re: crash during resume of PCIe bridge in v5.17" (2022)
        (
            "I'm currently bisecting this between v5.16 and v5.17, but getting a result\n",
            {"5.16": "good", "5.17": "bad"},
        ),
        # linux-acpi, "Re: Regression: SYNA3602 I2C touchpad broken" (2025-11): the newer written first
        ("Can you do a bisect between v6.17.7 and v6.17.6?\n", {"6.17.7": "bad", "6.17.6": "good"}),
        # no bisection, no word of a regression: no judgement
        ("The numbers are similar between v6.1 and v6.6 on this box.\n", {"6.1": None, "6.6": None}),
    ],
)
def test_a_bisection_between_two_kernels_names_the_good_and_the_bad(text, want):
    assert {k.version: k.role for k in find_kernels(text)} == want


@pytest.mark.parametrize(
    "text,want",
    [
        # linux-s390, "SMC-R throughput drops for specific message sizes" (2023-12): the kernel
        # moved to in the hope of a remedy, which did not come, is no bad one
        (
            "Since our last post the kernel was upgraded from 5.4 to 6.5.0-14 hoping it would\n"
            "alleviate the throughput drops, but it did not, so we bit the bullet.\n",
            {"5.4": None, "6.5.0-14": None},
        ),
        # variants
        (
            "We upgraded from 6.1 to 6.6 to see if it helps with the slowdown; same results.\n",
            {"6.1": None, "6.6": None},
        ),
        (
            "The slowdown is still there after upgrading from 6.1 to 6.6.\n",
            {"6.1": None, "6.6": None},
        ),
        # the move that brought the slowdown
        ("Throughput dropped after upgrading from 6.1 to 6.6.\n", {"6.1": "good", "6.6": "bad"}),
    ],
)
def test_a_move_tried_as_a_remedy_judges_no_kernel(text, want):
    assert {k.version: k.role for k in find_kernels(text)} == want


@pytest.mark.parametrize(
    "text,want",
    [
        (
            "Performance degradation of DM devices after upgrading to linux-5.9 from linux-5.8\n",
            {"5.9": "bad", "5.8": "good"},
        ),
        (
            "We see a write performance regression after upgrading to kernel 6.1.12 from 5.15.\n",
            {"6.1.12": "bad", "5.15": "good"},
        ),
        (
            "Scrub got much slower after the update to kernel 5.12 from 5.11.\n",
            {"5.12": "bad", "5.11": "good"},
        ),
        # no regression said: a move is no judgement
        ("We are upgrading to kernel 6.1.12 from 5.15 next week.\n", {"6.1.12": None, "5.15": None}),
        # a backport is no move: "ported to 5.10 from 5.15"
        ("The fix for the regression was ported to 5.10 from 5.15.\n", {"5.10": None, "5.15": None}),
    ],
)
def test_a_move_written_to_then_from_names_the_bad_kernel_first(text, want):
    assert {k.version: k.role for k in find_kernels(text)} == want


@pytest.mark.parametrize(
    "text,want",
    [
        # linux-ide, 2021-02 (a report no reply answered): the subject of hdparm runs per kernel
        ("Lower SSD-performance in 4.10 than in 4.9 kernel\n", {"4.10": "bad", "4.9": "good"}),
        # linux-raid, 2018-06: the comparative between the kernels
        (
            "Bisected: Kernel 4.14 + has 3 times higher write IO latency than Kernel 4.4 with raid1\n",
            {"4.14": "bad", "4.4": "good"},
        ),
        ("Writes are much slower on v6.1 than on v5.15.\n", {"6.1": "bad", "5.15": "good"}),
        ("The test takes longer on 6.8-rc1 than on 6.7.\n", {"6.8-rc1": "bad", "6.7": "good"}),
        (
            "Sequential reads get less bandwidth with 6.6.3 than with 6.1.64.\n",
            {"6.6.3": "bad", "6.1.64": "good"},
        ),
        # the better kernel first
        ("Writes are faster on v6.1 than on v5.15.\n", {"6.1": "good", "5.15": "bad"}),
        ("We get higher throughput with kernel 5.10 than with kernel 5.4.\n", {"5.10": "good", "5.4": "bad"}),
        ("fsync has lower latency on v6.6 than on v6.1.\n", {"6.6": "good", "6.1": "bad"}),
        # no comparative of speed, both kinds, or a sentence between: no roles
        ("Kernel 6.1 was released later than kernel 5.15.\n", {"6.1": None, "5.15": None}),
        ("Kernel 6.1 has faster writes but higher latency than kernel 5.15.\n", {"6.1": None, "5.15": None}),
        ("Our servers run kernel 6.1. Slower than kernel 5.15 it is not.\n", {"6.1": None, "5.15": None}),
        # a comparison with a patch applied (linux-xfs, 2023-06, "iomap regression for aio dio 4k
        # writes": the regression is 4.15's 1056 MiB/s against 5.10's 1004)
        (
            "I tested on kernel 5.10 and kernel 4.15.\n"
            "With the attached patch, I see significantly better performance in 5.10 than 4.15.\n",
            {"5.10": None, "4.15": None},
        ),
        (
            "With the patch applied, kernel 6.1 gives higher throughput than kernel 5.15.\n",
            {"6.1": None, "5.15": None},
        ),
        (
            "After the revert, kernel 6.1 gives higher throughput than kernel 5.15.\n",
            {"6.1": None, "5.15": None},
        ),
    ],
)
def test_two_kernels_compared_by_than_name_the_worse_one(text, want):
    assert {k.version: k.role for k in find_kernels(text)} == want


@pytest.mark.parametrize(
    "text,want",
    [
        # linux-btrfs, 2023-07-31 (Wang Yugui): fio's WRITE lines under "6.5-rc4/rc3" and "6.4.0"
        (
            "I noticed a btrfs write-bandwidth performance regression of 6.5-rc4/rc3\n"
            "with the compare to btrfs 6.4.0\n",
            {"6.5-rc4": "bad", "6.4.0": "good"},
        ),
        ("We see a performance regression of kernel 5.10 against 4.19.\n", {"5.10": "bad", "4.19": None}),
        ("There is a 30% slowdown of linux 6.8-rc1 here.\n", {"6.8-rc1": "bad"}),
        # a size is no kernel
        ("We see a regression of 5.4% in IOPS on 6.1.\n", {"6.1": "bad"}),
    ],
)
def test_a_regression_of_a_kernel_names_it_bad(text, want):
    assert {k.version: k.role for k in find_kernels(text)} == want
