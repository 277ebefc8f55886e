"""Kernel version normalization and ordering (lkmlkb.kernels)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lkmlkb.extract.kernel_versions import (
    compare,
    find_versions,
    is_stable_series,
    normalize_version,
    qualifier,
    series,
    sort_key,
)

# Each pair: older, newer — release history as it happened.
ORDERED_PAIRS = [
    ("2.6.32-rc5", "2.6.32"),  # corpus/002: rc before the release
    ("2.6.32", "2.6.33"),
    ("2.6.29", "2.6.32-rc5"),  # corpus/002: baseline vs regressed
    ("2.6.32", "2.6.32.5"),  # 2.6-era stable point release
    ("6.8-rc7", "6.8"),  # corpus/000
    ("6.8", "6.8.1"),
    ("5.15", "5.15.y"),  # stable series after its .0
    ("5.15.35", "5.15.y"),  # ... and after every point release of it
    ("5.15.y", "5.16-rc1"),
    ("4.19.x", "5.4.x"),  # corpus/004: moving from 4.19.x to 5.4.x
    ("5.4.190", "5.15.35"),  # corpus/004
    ("5.19.0", "6.0.5"),  # corpus/003
    ("6.1.30", "6.1.36"),
    ("6.9", "6.10"),  # numeric, not string, order
    ("6.19-rc1", "6.19.0-rc1-next-20251219"),
    ("6.19.0-rc1-next-20251219", "6.19-rc2"),
    ("next-20240101", "next-20251219"),  # linux-next tags by date
    ("6.1.0", "6.1.0-13-amd64"),  # Debian package build after plain .0
    ("6.8.0-rc3-00012-gabcdef", "6.8.0-rc3-00013-g123456"),
]


@pytest.mark.parametrize("older,newer", ORDERED_PAIRS)
def test_pairs_in_release_order(older, newer):
    assert compare(older, newer) == -1
    assert compare(newer, older) == 1
    assert sort_key(older) < sort_key(newer)


@pytest.mark.parametrize(
    "a,b",
    [
        ("v5.12-rc7", "5.12-rc7"),
        ("6.8-rc7+ Revert", "6.8-rc7"),
        ("5.17.0", "5.17"),  # corpus/003 table label "5.17.0" is release 5.17
    ],
)
def test_same_version_written_differently(a, b):
    assert compare(a, b) == 0


def test_sorted_list_matches_history():
    shuffled = ["6.8", "2.6.33", "next-20251219", "5.15.y", "6.8-rc7", "2.6.32-rc5", "4.19.x", "2.6.32"]
    assert sorted(shuffled, key=sort_key) == [
        "2.6.32-rc5",
        "2.6.32",
        "2.6.33",
        "4.19.x",
        "5.15.y",
        "6.8-rc7",
        "6.8",
        "next-20251219",
    ]


@pytest.mark.parametrize(
    "raw,norm",
    [
        ("v5.12-rc7", "5.12-rc7"),  # corpus/001 "latest linus tree(v5.12-rc7"
        ("6.8-rc7+ Revert", "6.8-rc7"),  # corpus/000 result heading
        ("6.8-rc7 + revert", "6.8-rc7"),  # corpus/000 "on 6.8-rc7 + revert : 3634"
        ("4.19.x", "4.19.x"),  # corpus/004, kept as written
        ("5.15.y", "5.15.y"),
        ("6.1.36.", "6.1.36"),  # corpus/003 sentence end
        ("Linux 6.8", "6.8"),
        ("linux-6.8", "6.8"),
        ("6.1.0-13-amd64", "6.1.0-13-amd64"),
        ("next-20251219", "next-20251219"),
        ("6.19.0-rc1-next-20251219", "6.19.0-rc1-next-20251219"),
        ("5.14.0-362.el9", "5.14.0-362.el9"),
        # a tree built with local changes, as `uname -r` and iostat's banner write it (linux-block:
        # "Linux 5.1.0+ (localhost.localdomain)", "Not tainted 5.1.0-rc3+ #4")
        ("5.1.0+", "5.1.0+"),
        ("5.1.0-rc3+", "5.1.0-rc3+"),
        ("v6.4.0-rc3+", "6.4.0-rc3+"),
        ("LTS", None),
        ("fio-3.19", None),
        ("", None),
    ],
)
def test_normalize_version(raw, norm):
    assert normalize_version(raw) == norm


def test_a_local_build_sorts_with_its_release():
    assert compare("5.1.0-rc3+", "5.1.0-rc3") == 0 and compare("5.1.0-rc3+", "5.1.0") < 0


@pytest.mark.parametrize(
    "raw,qual",
    [
        ("6.8-rc7+ Revert", "+revert"),
        ("6.8-rc7 + revert", "+revert"),
        ("6.1.36 + patch", "+patch"),
        ("6.8.0-rc3+", "+"),
        ("6.8-rc7", None),
    ],
)
def test_qualifier(raw, qual):
    assert qualifier(raw) == qual


@pytest.mark.parametrize(
    "v,s",
    [
        ("5.15.y", "5.15"),
        ("5.15.35", "5.15"),
        ("6.8-rc7", "6.8"),
        ("2.6.32.5", "2.6.32"),
        ("2.6.32-rc5", "2.6.32"),
        ("next-20251219", "next"),
        ("LTS", ""),
    ],
)
def test_series(v, s):
    assert series(v) == s


def test_stable_series_flag():
    assert is_stable_series("4.19.x") and is_stable_series("5.15.y")
    assert not is_stable_series("5.15.35")


# --- properties -------------------------------------------------------------

versions = st.one_of(
    st.builds(lambda a, b: f"{a}.{b}", st.integers(3, 7), st.integers(0, 19)),
    st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.integers(3, 7), st.integers(0, 19), st.integers(0, 300)),
    st.builds(lambda a, b, r: f"{a}.{b}-rc{r}", st.integers(3, 7), st.integers(0, 19), st.integers(1, 9)),
    st.builds(lambda a, b, s: f"{a}.{b}.{s}", st.integers(3, 7), st.integers(0, 19), st.sampled_from("xy")),
    st.builds(lambda c, r: f"2.6.{c}-rc{r}", st.integers(0, 39), st.integers(1, 9)),
    st.builds(lambda c: f"2.6.{c}", st.integers(0, 39)),
    st.builds(lambda d: f"next-2{d:07d}", st.integers(200101, 9991231)),
    st.builds(lambda b, d: f"6.{b}.0-rc1-next-2025{d:04d}", st.integers(0, 19), st.integers(101, 1231)),
    st.text(max_size=12),  # garbage must still get a comparable key
)


#: orders known from the kernel's release history, each oldest first
KNOWN_ORDERS = [
    [
        "2.6.32-rc5",
        "2.6.32",
        "2.6.32.5",
        "2.6.32.60",
        "2.6.33-rc1",
        "2.6.33",
        "2.6.39",
        "3.0-rc1",
        "3.0",
        "3.0.1",
    ],
    ["4.19-rc8", "4.19", "4.19.1", "4.19.300", "4.19.y", "4.20", "5.0-rc1", "5.0", "5.4.190", "5.15.y"],
    ["6.1-rc2", "6.1", "6.1.40", "6.1.41", "6.1.y", "6.2-rc1", "6.2", "6.9", "6.10-rc1", "6.10"],
    ["6.19-rc1", "6.19.0-rc1-next-20251219", "6.19-rc2", "6.19", "next-20240101", "next-20250101"],
]


@pytest.mark.parametrize("chain", KNOWN_ORDERS, ids=lambda c: f"{c[0]}..{c[-1]}")
def test_known_kernel_orders(chain):
    assert sorted(reversed(chain), key=sort_key) == chain
    for older, newer in zip(chain, chain[1:]):
        assert compare(older, newer) == -1 and compare(newer, older) == 1, (older, newer)
        assert compare(newer, newer) == 0


def test_a_stable_release_candidate_sorts_between_the_base_and_its_point_release():
    chain = ["6.1-rc2", "6.1", "6.1.40-rc2", "6.1.40", "6.2"]
    assert sorted(reversed(chain), key=sort_key) == chain


#: a version written from its parts, and where it stands as the kernel's history has it: a
#: release candidate before its release, a point release after the base, never by text
releases = st.tuples(st.integers(3, 7), st.integers(0, 19), st.integers(0, 300), st.integers(0, 9))


def written(v: tuple[int, int, int, int]) -> str:
    major, minor, point, rc = v
    return f"{major}.{minor}" + (f".{point}" if point else "") + (f"-rc{rc}" if rc else "")


def history(v: tuple[int, int, int, int]) -> tuple[int, int, int, float]:
    major, minor, point, rc = v
    return (major, minor, point, rc or float("inf"))


@settings(max_examples=300, deadline=None)
@given(releases, releases)
def test_compare_orders_versions_as_their_history_does(a, b):
    expected = (history(a) > history(b)) - (history(a) < history(b))
    assert compare(written(a), written(b)) == expected


@settings(max_examples=200, deadline=None)
@given(versions, versions)
def test_any_two_strings_compare(a, b):
    # garbage included: every key compares with every other (no TypeError), antisymmetric
    assert compare(a, b) == -compare(b, a)
    assert compare(a, a) == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 7), st.integers(0, 19), st.integers(1, 9), st.integers(1, 300))
def test_rc_before_release_before_point_before_series(major, minor, rc, point):
    base = f"{major}.{minor}"
    chain = [f"{base}-rc{rc}", base, f"{base}.{point}", f"{base}.y"]
    assert sorted(chain, key=sort_key) == chain


def test_versions_of_the_text_read_last_are_each_callers_own():
    """The kernels and results extractors both ask for the versions of a message's view: the
    second is answered from the first's reading, as read afresh, in a list of its own
    (corpus/000: "6.8-rc7" against "6.6")."""
    from pathlib import Path

    from lkmlkb.extract import kernel_versions as kv

    text = (Path(__file__).resolve().parents[2] / "corpus" / "000_a3585e8f2465c212.txt").read_text()
    first = kv.find_versions(text)
    assert {"6.8-rc7", "6.6"} <= {norm for *_, norm in first}
    first.clear()  # what a caller does with its list is its own
    assert kv.find_versions(text) == kv._find_versions(text) != []
    assert [norm for *_, norm in kv.find_versions("then on 5.10.1")] == ["5.10.1"]  # another text


@pytest.mark.parametrize(
    "line,versions",
    [
        # an upgrade between two bare releases names both (variants of "Performance degradation of DM
        # devices after upgrading to linux-5.9 from linux-5.8", dm-devel, 2020-12)
        ("After upgrading from 6.6 to 6.7, 4k random read IOPS fell", ["6.6", "6.7"]),
        ("We upgraded from 5.15 to 6.1 last week", ["5.15", "6.1"]),
        # another program's upgrade, or a single version after "upgrade to": no kernel
        ("after upgrading fio from 3.1 to 3.2", []),
        ("upgrade to 2.5 of the firmware", []),
        # a label line with a word before its kernel heads what follows
        ("With 6.7:", ["6.7"]),
        ("With 6.7 the reads slow down", []),
    ],
)
def test_bare_releases_in_an_upgrade_or_a_label_line(line, versions):
    from lkmlkb.extract.kernel_versions import find_versions

    assert [norm for _a, _b, _raw, norm in find_versions(line)] == versions


@pytest.mark.parametrize(
    "text,version",
    [
        # the 2.6 era's patch-set snapshots, as reports of the time named them (variants written
        # for the form: Andrew Morton's -mm trees, the -bk nightly snapshots, -git, -rt)
        ("tiobench is 30% slower on 2.6.12-rc2-mm3 than on 2.6.12-rc2.", "2.6.12-rc2-mm3"),
        ("Also seen on 2.6.11-bk7.", "2.6.11-bk7"),
        ("Booting linux-2.6.23-rc4-mm1 gives", "2.6.23-rc4-mm1"),
        ("Latency on 6.6.15-rt22 is worse.", "6.6.15-rt22"),
        ("First seen on 2.6.20-git3.", "2.6.20-git3"),
    ],
)
def test_a_patch_sets_snapshot_is_a_version_of_its_own(text, version):
    from lkmlkb.extract.kernel_versions import find_versions

    assert [norm for *_, norm in find_versions(text)][:1] == [version]
    assert normalize_version(version) == version


def test_a_snapshot_sorts_after_its_base_and_before_the_next():
    assert sorted(["2.6.12", "2.6.12-rc2-mm3", "2.6.11-bk7", "2.6.12-rc2", "2.6.11"], key=sort_key) == [
        "2.6.11",
        "2.6.11-bk7",
        "2.6.12-rc2",
        "2.6.12-rc2-mm3",
        "2.6.12",
    ]


@pytest.mark.parametrize(
    "text,found",
    [
        ("fio-3.19-mm1 was used", []),  # a tool's version
        ("a 1.2-mm3 thing", []),  # no kernel's number
        ("2.6.12-mmap is", ["2.6.12"]),  # a word after the release, no snapshot number
    ],
)
def test_a_tools_version_or_a_word_is_no_snapshot(text, found):
    from lkmlkb.extract.kernel_versions import find_versions

    assert [norm for *_, norm in find_versions(text)] == found


@pytest.mark.parametrize(
    "line,kernels",
    [
        # written for the pattern (the NFS protocol's versions beside kernels; linux-cifs has
        # "supported by btrfs, ocfs2, xfs, nfs (v4.2), cifs and overlayfs", Christoph Hellwig)
        ("with NFS v4.2 on 6.1 and v4.1 on 5.15 the copy takes twice as long", ["6.1", "5.15"]),
        ("the v4.2 client is slow over NFS since the upgrade", []),
        ("pNFS layouts with v4.1 are fine on 6.8-rc3", ["6.8-rc3"]),
        # kernels of a shape only kernels have stay kernels; a line without NFS keeps 4.1
        ("NFS writes were fast on v4.1.12 and slow on v4.2-rc3", ["4.1.12", "4.2-rc3"]),
        ("Linux v4.1 was fast, v4.2 slow on ext4", ["4.1", "4.2"]),
    ],
)
def test_the_nfs_protocols_versions_are_no_kernels(line, kernels):
    assert [n for *_, n in find_versions(line)] == kernels


@pytest.mark.parametrize(
    "line,kernels",
    [
        # written for the pattern: kernels tried, each with its verdict
        ("Tested: 6.6 is fine and 6.7 is much slower", ["6.6", "6.7"]),
        ("the latency went up from 120 usec to 310 usec, 6.7 is fine.", ["6.7"]),
        ("6.8 regressed badly for us", ["6.8"]),
        ("5.15 works fine, so does 5.10", ["5.15"]),
        # a figure judged is no kernel
        ("the ratio 2.5 is fine", []),
        ("a load of 3.5 is bad", []),
        ("the score 4.5 was good", []),
    ],
)
def test_a_release_with_its_verdict_is_a_kernel(line, kernels):
    assert [n for *_, n in find_versions(line)] == kernels
