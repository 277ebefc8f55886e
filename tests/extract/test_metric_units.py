"""lkmlkb.units on numbers as fio, LKP, dd and iostat print them (seen in corpus/000, 003, 004
and the kernel test robot reports in the linux-block 2024q1 archive sample)."""

import pytest

from lkmlkb.extract.metric_units import normalize, parse_count, parse_quantity, to_float


@pytest.mark.parametrize(
    "value,unit,want",
    [
        (236, "MiB/s", (236 * 2**20, "B/s")),  # corpus/000 fio group line
        (247, "MB/s", (247e6, "B/s")),  # fio's decimal twin of the same figure
        (3.0, "GB/s", (3e9, "B/s")),  # corpus/004 dd summary
        (24.85, "MBps", (24.85 * 2**20, "B/s")),  # LKP fio.write_bw_MBps
        (241546.47, "KiB/s", (241546.47 * 1024, "B/s")),
        (12, "kB/s", (12e3, "B/s")),
        (1884, "IOPS", (1884, "IOPS")),
        (94, "k IOPS", (94000, "IOPS")),
        (25445.35, "usec", (25445.35, "us")),
        (1602.56, "msec", (1602560.0, "us")),
        (104.23, "nsec", (0.10423, "us")),
        (98.28, "%", (98.28, "%")),
        (138, "GiB", (138 * 2**30, "B")),
        (128, "k", (128 * 1024, "B")),
    ],
)
def test_normalize_known_units(value, unit, want):
    got = normalize(value, unit)
    assert got[1] == want[1]
    assert got[0] == pytest.approx(want[0])


@pytest.mark.parametrize("unit", ["", "widgets", None, "MB/h"])
def test_normalize_unknown_unit_gives_none(unit):
    assert normalize(1.0, unit) == (None, None)


def test_normalize_rejects_non_numbers():
    assert normalize("abc", "MiB/s") == (None, None)
    assert normalize(float("nan"), "MiB/s") == (None, None)


@pytest.mark.parametrize(
    "text,default,want",
    [
        ("236MiB/s", None, (236.0, "MiB/s")),
        ("3.0 GB/s", None, (3.0, "GB/s")),
        ("5168 IOPS", None, (5168.0, "IOPS")),
        ("94.0k", "IOPS", (94000.0, "IOPS")),
        ("423K", "IOPS", (423000.0, "IOPS")),
        ("14.75%", None, (14.75, "%")),
        ("600319msec", None, (600319.0, "msec")),
        ("2.045e+08", None, (2.045e8, "")),
    ],
)
def test_parse_quantity(text, default, want):
    assert parse_quantity(text, default) == want


@pytest.mark.parametrize("text", ["abc", "", "12 apples", "1" * 200, "MiB/s"])
def test_parse_quantity_rejects(text):
    assert parse_quantity(text) is None


def test_parse_count_and_float():
    assert parse_count("94k") == 94000
    assert parse_count("1884") == 1884
    assert parse_count("236MiB/s") is None
    assert to_float("119.95*") == 119.95
    assert to_float("x") is None
