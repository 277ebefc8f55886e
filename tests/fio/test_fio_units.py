"""fio value normalization, checked against tables and against the fio binary itself."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from lkmlkb.fio import units


@pytest.mark.parametrize(
    ("written", "kb_base", "expected"),
    [
        ("128k", 1024, 131072),  # corpus/000 [global] bs=128k
        ("1024Ki", 1024, 1048576),  # corpus/003 -bs=1024Ki
        ("32Gi", 1024, 32 * 1024**3),  # corpus/003 -size=32Gi
        ("8K", 1024, 8192),  # corpus/001 run_fio ... 8K
        ("4m", 1024, 4 * 1024**2),
        ("4096", 1024, 4096),
        ("4k", 1000, 4000),  # kb_base=1000 makes k decimal
        ("4KiB", 1000, 4096),
        ("4KiB", 1024, 4000),  # fio 3.33 swaps full IEC suffixes under the default base
        ("128G", 1024, 128 * 1024**3),  # LKP test_size: 128G
        ("0x1000", 1024, 4096),
        ("garbage", 1024, None),
        ("", 1024, None),
    ],
)
def test_parse_size(written, kb_base, expected):
    assert units.parse_size(written, kb_base) == expected


@pytest.mark.parametrize(
    ("written", "seconds"),
    [
        ("600", 600),
        ("30s", 30),
        ("20m", 1200),
        ("300s", 300),
        ("1h", 3600),
        ("500ms", 0.5),
        ("10sec", 10),
        ("abc", None),
        ("$RTIME", None),
    ],
)
def test_parse_time(written, seconds):
    assert units.parse_time(written) == seconds


def test_normalize_options_uses_catalog_types_and_kb_base():
    norm = units.normalize_options(
        {
            "blocksize": "128k",
            "runtime": "600",
            "group_reporting": "",
            "iodepth": "64",
            "rw": "write",
            "filename": "/dev/dm-0",
            "bs_unknown_thing": "4k",
            "direct": "1",
        }
    )
    assert norm == {"bs": 131072, "runtime": 600, "group_reporting": True, "iodepth": 64, "direct": True}
    assert units.normalize_options({"kb_base": "1000", "bs": "4k"})["bs"] == 4000
    assert units.normalize_options({"bs": "4k,8k"})["bs"] == [4096, 8192]
    assert units.normalize_options({"bs": "$BS"}) == {}


HEADER_BS = re.compile(r"bs=\(R\) (\d+)(B|KiB|MiB|GiB)-")
MULT = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


@pytest.mark.fio
@pytest.mark.skipif(shutil.which("fio") is None, reason="no fio binary installed")
@pytest.mark.parametrize(
    ("kb_base", "bs"),
    [
        (1024, "4k"),
        (1024, "1024Ki"),
        (1024, "4KiB"),
        (1024, "1m"),
        (1024, "4kb"),
        (1000, "4k"),
        (1000, "4KiB"),
        (1000, "4Ki"),
    ],
)
def test_sizes_agree_with_fio_binary(kb_base, bs, tmp_path):
    out = subprocess.run(
        [
            "fio",
            "--name=t",
            "--ioengine=null",
            "--size=8m",
            "--kb_base=%d" % kb_base,
            "--bs=" + bs,
            "--runtime=1",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    m = HEADER_BS.search(out.stdout)
    assert m, out.stdout + out.stderr
    assert units.parse_size(bs, kb_base) == int(m.group(1)) * MULT[m.group(2)]
