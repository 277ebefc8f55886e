"""The fio option catalog: current against the installed fio, aliases resolve."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from lkmlkb.fio import catalog

ROOT = Path(__file__).resolve().parents[2]


def load_builder():
    spec = importlib.util.spec_from_file_location(
        "build_fio_catalog", ROOT / "scripts" / "build_fio_catalog.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.fio
@pytest.mark.skipif(shutil.which("fio") is None, reason="no fio binary installed")
def test_data_file_is_current_against_installed_fio():
    builder = load_builder()
    fresh = builder.dumps(builder.build("fio"))
    current = (ROOT / "lkmlkb" / "data" / "fio_options.json").read_text(encoding="utf-8")
    assert json.loads(current) == json.loads(fresh), "run scripts/build_fio_catalog.py"
    assert current == fresh


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("blocksize", "bs"),  # HOWTO: blocksize=int, bs=int
        ("readwrite", "rw"),
        ("iodepth_batch", "iodepth_batch_submit"),
        ("iodepth_batch_submit", "iodepth_batch_submit"),
        ("BS", "bs"),  # case-insensitive
        ("--numjobs", "numjobs"),  # command-line spelling
        ("timeout", "runtime"),
        ("io_limit", "io_size"),
        ("blockalign", "ba"),
        ("hipri", "hipri"),  # io_uring engine option (from --enghelp)
        ("group_reporting", "group_reporting"),
    ],
)
def test_aliases_resolve(written, canonical):
    assert catalog.canonical_name(written) == canonical
    assert catalog.is_known(written)


@pytest.mark.parametrize("name", ["nr_task", "test_size", "scheduler", "host_max_queue", "", "x" * 5000])
def test_unknown_names(name):
    assert catalog.canonical_name(name) is None
    assert not catalog.is_known(name)
    assert catalog.option_type(name) is None


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("bs", "size"),
        ("size", "size"),
        ("runtime", "time"),
        ("ramp_time", "time"),
        ("direct", "bool"),
        ("group_reporting", "flag"),
        ("iodepth", "int"),
        ("rw", "str"),
        ("bsrange", "range"),
    ],
)
def test_option_types(name, kind):
    assert catalog.option_type(name) == kind


def test_catalog_records_defaults_and_categories():
    bs = catalog.entry("blocksize")
    assert bs["default"] == "4096"
    assert bs["category"] == "Block size"
    assert "randread" in catalog.entry("rw")["valid_values"]
    assert catalog.catalog_fio_version().startswith("fio-")
