"""fio's option catalog: names, aliases and value types of every job option.

The data file ``lkmlkb/data/fio_options.json`` is generated from the installed
fio's own help by ``scripts/build_fio_catalog.py`` (a test keeps it current).
Lookups are case-insensitive and go through fio's aliases, so ``blocksize``,
``BS`` and ``bs`` all resolve to ``bs`` and ``readwrite`` to ``rw``.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from importlib import resources
from typing import Any

log = logging.getLogger(__name__)

#: the JSON file under lkmlkb/data/
DATA_FILE = "fio_options.json"

#: what an option name looks like: every name and alias the catalog holds
#: ("iodepth_batch_complete_min", "hugepage-size") is one
OPTION_NAME_RE = re.compile(
    r"""
    ^[A-Za-z][A-Za-z0-9_-]{0,60}$
""",
    re.VERBOSE,
)


@functools.cache
def load() -> dict[str, Any]:
    """The parsed catalog (read once per process)."""
    text = resources.files("lkmlkb").joinpath("data", DATA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


@functools.cache
def _index() -> dict[str, str]:
    """Lower-cased name or alias -> canonical name."""
    index: dict[str, str] = {}
    for name in load()["options"]:
        index.setdefault(name.lower(), name)
    for name, entry in load()["options"].items():
        for alias in entry.get("aliases") or []:
            index.setdefault(alias.lower(), name)
    return index


def name_index() -> dict[str, str]:
    """Every lower-cased option name and alias -> its canonical name (shared: not to be changed)."""
    return _index()


#: names looked up recently are remembered (a pasted fio run spells the same few dozen options on
#: every line; the catalog never changes once loaded): this many, each at most CACHED_NAME_LEN long
LOOKUP_CACHE_SIZE = 4096
CACHED_NAME_LEN = 128


def canonical_name(name: str) -> str | None:
    """``blocksize`` -> ``bs``; ``--BS`` -> ``bs``; None when fio does not know it."""
    if not isinstance(name, str):
        return None
    return _canonical_name_cached(name) if len(name) <= CACHED_NAME_LEN else _canonical_name(name)


def _canonical_name(name: str) -> str | None:
    key = name.strip().lstrip("-").lower()
    if not key or len(key) > 100:
        return None
    return _index().get(key)


_canonical_name_cached = functools.lru_cache(maxsize=LOOKUP_CACHE_SIZE)(_canonical_name)


def is_known(name: str) -> bool:
    """True when fio (3.33's catalog) accepts ``name`` as a job option or alias."""
    return canonical_name(name) is not None


def entry(name: str) -> dict[str, Any] | None:
    """The catalog row of ``name`` (through aliases), or None."""
    canon = canonical_name(name)
    return load()["options"][canon] if canon else None


def option_type(name: str) -> str | None:
    """Value type: str, int, bool, flag, size, time, range, float_list, deprecated."""
    row = entry(name)
    return row["type"] if row else None


def catalog_fio_version() -> str:
    """The fio version the catalog was generated from ("fio-3.33")."""
    return load().get("fio_version", "")


def cli_option(name: str) -> bool | None:
    """fio's own command-line options (``--output-format``, ``--eta``): whether it takes a value;
    None when ``name`` is not one of them (it may still be a job option)."""
    if not isinstance(name, str):
        return None
    return _cli_option_cached(name) if len(name) <= CACHED_NAME_LEN else _cli_option(name)


def _cli_option(name: str) -> bool | None:
    return load().get("cli_options", {}).get(name.strip().lstrip("-").lower())


_cli_option_cached = functools.lru_cache(maxsize=LOOKUP_CACHE_SIZE)(_cli_option)
