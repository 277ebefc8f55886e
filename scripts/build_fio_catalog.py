#!/usr/bin/env python3
"""Build lkmlkb/data/fio_options.json from the installed fio's own help.

Sources, in order of authority:

* ``fio --cmdhelp=all``: every job option fio knows, indented under the
  option it depends on ("  bs : Block size unit" sits under "rw").
* ``fio --cmdhelp=NAME``: for each option its ``alias:`` line(s), ``type:``,
  ``default:`` and ``valid values:``.
* ``fio --enghelp`` / ``fio --enghelp=ENGINE`` / ``--enghelp=ENGINE,OPT``:
  ioengine-specific options (``hipri``, ``userspace_reap``, ...), which
  ``--cmdhelp=all`` does not list.
* fio's HOWTO (``/usr/share/doc/fio/HOWTO.rst.gz`` when installed): the
  section each option is documented in becomes its category.

fio's help types do not tell a byte count from a plain integer (``bs`` is an
"integer value", ``filesize`` a "string"), so the options whose value is a
byte quantity are listed in ``SIZE_OPTIONS`` below, taken from the HOWTO's
descriptions ("in bytes", "block size", "amount of data").

Usage: scripts/build_fio_catalog.py [--fio PATH] [--output FILE] [--check]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import gzip
import json
import logging
import re
import subprocess
import sys
from pathlib import Path

log = logging.getLogger("build_fio_catalog")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "lkmlkb" / "data" / "fio_options.json"
HOWTO_CANDIDATES = [
    Path("/usr/share/doc/fio/HOWTO.rst.gz"),
    Path("/usr/share/doc/fio/HOWTO.gz"),
    Path("/usr/share/doc/fio/HOWTO.rst"),
    Path("/usr/share/doc/fio/HOWTO"),
]

#: options whose value is an amount of bytes (HOWTO: "block size", "in bytes",
#: "amount of data", "size of"), although fio's help calls them int or string
SIZE_OPTIONS = frozenset(
    {
        "bs",
        "ba",
        "size",
        "io_size",
        "filesize",
        "offset",
        "offset_increment",
        "offset_align",
        "zonesize",
        "zonerange",
        "zoneskip",
        "zonecapacity",
        "lockmem",
        "hugepage-size",
        "verify_interval",
        "verify_offset",
        "buffer_compress_chunk",
        "log_compression",
        "rate",
        "rate_min",
    }
)
#: options fio spells two ways where mail, fio's HOWTO and the scorer's labels
#: use the other one as the name: fio calls the option ``iodepth_batch`` with
#: alias ``iodepth_batch_submit``; the HOWTO heads it ``iodepth_batch_submit``.
PREFERRED_NAME = {"iodepth_batch": "iodepth_batch_submit"}

ALL_LINE = re.compile(
    r"""
    ^(?P<indent>[ ]{0,12})        # "  bs   : Block size unit" - indent = depends on the line above
    (?P<name>[A-Za-z0-9_-]{1,80})
    \s{0,80}:\s?
    (?P<desc>.{0,2000})$
    """,
    re.VERBOSE,
)
DETAIL_LINE = re.compile(
    r"""
    ^\s{0,40}(?P<key>[A-Za-z0-9_ -]{0,80}?)   # "               alias: blocksize"; "  : write  Sequential write"
    \s{0,40}:\s?(?P<value>.{0,2000})$
    """,
    re.VERBOSE,
)
HOWTO_OPTION = re.compile(
    r"""
    ^\.\.\ option::\ (?P<spec>.{1,300})$      # ".. option:: blocksize=int[,int][,int], bs=int[,int][,int]"
    """,
    re.VERBOSE,
)
HELP_LINE = re.compile(
    r"""
    ^[ ]{2}--(?P<name>[a-z][a-z0-9-]{0,40})   # "  --output-format=type	Output format ..."
    (?P<arg>=\S{0,40})?\s                     # "=type": the option takes a value
    """,
    re.VERBOSE,
)
#: fio's own command-line options that take a value although ``fio --help``
#: shows none ("--output		Write output to file")
CLI_VALUE_WITHOUT_EQUALS = frozenset({"output"})
HOWTO_HEADING_RULE = re.compile(r"^(~{3,}|-{3,}|={3,})$")

TYPE_MAP = [  # (fragment of fio's help type, catalog type)
    ("time postfix", "time"),
    ("k/m/g postfix", "size"),
    ("one to three ranges", "range"),
    ("empty or boolean", "flag"),
    ("boolean value", "bool"),
    ("integer value", "int"),
    ("floating point", "float_list"),
    ("no argument", "deprecated"),
    ("string", "str"),
]


def run_fio(fio: str, arg: str) -> str:
    """Run ``fio ARG`` and return stdout (fio prints help on stdout, exit 0)."""
    out = subprocess.run([fio, arg], capture_output=True, text=True, timeout=60, check=False)
    return out.stdout


def parse_all(text: str) -> list[tuple[str, str, str | None]]:
    """``--cmdhelp=all`` / ``--enghelp=ENGINE`` lines -> (name, description, parent)."""
    rows: list[tuple[str, str, str | None]] = []
    stack: list[tuple[int, str]] = []
    for line in text.splitlines():
        m = ALL_LINE.match(line)
        if not m:
            continue
        indent = len(m.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else None
        rows.append((m.group("name"), m.group("desc").strip(), parent))
        stack.append((indent, m.group("name")))
    return rows


def parse_detail(text: str) -> dict:
    """``--cmdhelp=bs`` -> {aliases, fio_type, default, valid_values, minimum, maximum}."""
    info: dict = {
        "aliases": [],
        "fio_type": None,
        "default": None,
        "valid_values": [],
        "minimum": None,
        "maximum": None,
    }
    last = None
    for line in text.splitlines():
        m = DETAIL_LINE.match(line)
        if not m:
            continue
        key, value = m.group("key").strip(), m.group("value").strip()
        if key == "alias":
            info["aliases"].extend(a for a in value.split() if a)
        elif key == "type":
            info["fio_type"] = value
        elif key == "default":
            info["default"] = None if value == "no default" else value
        elif key == "range":
            info["minimum"], info["maximum"] = parse_range(value)
        elif key == "valid values" or (key == "" and last == "valid values"):
            word = value.split(None, 1)[0] if value else ""
            if word:
                info["valid_values"].append(word)
            key = "valid values"
        last = key
    return info


RANGE_VALUE = re.compile(r"min=(?P<min>-?\d{1,20})(?:,\s{0,4}max=(?P<max>-?\d{1,20}))?")


def parse_range(text: str) -> tuple[int | None, int | None]:
    """``min=1, max=-1`` -> (1, None): fio prints -1 (or nothing) for "no maximum"."""
    m = RANGE_VALUE.search(text)
    if not m:
        return None, None
    low, high = int(m.group("min")), int(m.group("max") or -1)
    return low, (None if high == -1 else high)


def catalog_type(name: str, fio_type: str | None) -> str:
    """fio's help type text -> str | int | bool | flag | size | time | range | ..."""
    if name in SIZE_OPTIONS:
        return "size"
    if not fio_type or fio_type == "(null)":
        return "str"
    for fragment, kind in TYPE_MAP:
        if fragment in fio_type:
            return kind
    return "str"


def howto_categories(paths: list[Path] = HOWTO_CANDIDATES) -> dict[str, str]:
    """Option name -> the HOWTO section it is documented under ("Block size")."""
    path = next((p for p in paths if p.exists()), None)
    if path is None:
        log.info("no fio HOWTO found; categories left empty")
        return {}
    raw = gzip.open(path, "rt", errors="replace") if path.suffix == ".gz" else open(path, errors="replace")
    with raw as fh:
        lines = fh.read().splitlines()
    cats: dict[str, str] = {}
    heading = ""
    for i, line in enumerate(lines):
        if HOWTO_HEADING_RULE.match(line) and i > 0 and lines[i - 1].strip():
            heading = lines[i - 1].strip()
            continue
        m = HOWTO_OPTION.match(line)
        if not m or m.group("spec").startswith("-"):
            continue
        for part in m.group("spec").split(", "):
            name = re.split(r"[=\s\[]", part.strip(), maxsplit=1)[0]
            if name and heading:
                cats.setdefault(name, heading)
    return cats


def cli_options(fio: str) -> dict[str, bool]:
    """``fio --help`` -> fio's own (non-job) command-line options -> whether each takes a value."""
    opts: dict[str, bool] = {}
    for line in run_fio(fio, "--help").splitlines():
        m = HELP_LINE.match(line)
        if m:
            name = m.group("name")
            opts[name] = opts.get(name, False) or bool(m.group("arg")) or name in CLI_VALUE_WITHOUT_EQUALS
    return dict(sorted(opts.items()))


def engines(fio: str) -> list[str]:
    """``fio --enghelp`` -> engine names (tab-indented list)."""
    return [ln.strip() for ln in run_fio(fio, "--enghelp").splitlines()[1:] if ln.strip()]


def build(fio: str = "fio") -> dict:
    """The whole catalog as a JSON-ready dict."""
    version = run_fio(fio, "--version").strip()
    base = parse_all(run_fio(fio, "--cmdhelp=all"))
    cats = howto_categories()
    entries: dict[str, dict] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        details = dict(
            zip(
                [n for n, _, _ in base],
                pool.map(lambda n: parse_detail(run_fio(fio, "--cmdhelp=" + n)), [n for n, _, _ in base]),
                strict=True,
            )
        )
        for name, desc, parent in base:
            entries[name] = make_entry(name, desc, parent, details[name], cats, None)
        eng_rows: list[tuple[str, str, str]] = []
        for eng in engines(fio):
            for name, desc, _parent in parse_all(run_fio(fio, "--enghelp=" + eng)):
                eng_rows.append((eng, name, desc))
        todo = sorted({(eng, name) for eng, name, _ in eng_rows})
        edetails = dict(
            zip(
                todo,
                pool.map(lambda en: parse_detail(run_fio(fio, "--enghelp=%s,%s" % en)), todo),
                strict=True,
            )
        )
    for eng, name, desc in eng_rows:
        if name in entries and entries[name]["engines"] is None:
            continue  # a general option an engine re-lists
        if name in entries:
            entries[name]["engines"] = sorted(set(entries[name]["engines"]) | {eng})
            continue
        entries[name] = make_entry(name, desc, None, edetails[(eng, name)], cats, [eng])
    apply_preferred_names(entries)
    return {
        "fio_version": version,
        "generated_by": "scripts/build_fio_catalog.py",
        "cli_options": cli_options(fio),
        "options": dict(sorted(entries.items())),
    }


def make_entry(
    name: str, desc: str, parent: str | None, detail: dict, cats: dict[str, str], engs: list[str] | None
) -> dict:
    """One catalog row from the help lines fio printed for ``name``."""
    category = cats.get(name) or next((cats[a] for a in detail["aliases"] if a in cats), None)
    if category is None and engs:
        category = "I/O engine specific"
    return {
        "name": name,
        "aliases": detail["aliases"],
        "type": catalog_type(name, detail["fio_type"]),
        "fio_type": detail["fio_type"],
        "default": detail["default"],
        "valid_values": detail["valid_values"],
        "minimum": detail["minimum"],
        "maximum": detail["maximum"],
        "description": desc,
        "parent": parent,
        "category": category,
        "engines": engs,
    }


def apply_preferred_names(entries: dict[str, dict]) -> None:
    """Swap name and alias for the options in PREFERRED_NAME."""
    for fio_name, preferred in PREFERRED_NAME.items():
        entry = entries.pop(fio_name, None)
        if entry is None:
            continue
        aliases = [a for a in entry["aliases"] if a != preferred] + [fio_name]
        entry.update(name=preferred, aliases=aliases, fio_name=fio_name)
        if preferred in SIZE_OPTIONS:
            entry["type"] = "size"
        entries[preferred] = entry


def dumps(catalog: dict) -> str:
    """Stable JSON text: sorted keys, UTF-8, trailing newline."""
    return json.dumps(catalog, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is not current")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    text = dumps(build(a.fio))
    if a.check:
        current = a.output.read_text(encoding="utf-8") if a.output.exists() else ""
        if current != text:
            log.error("%s is not current; run %s", a.output, Path(__file__).name)
            return 1
        return 0
    a.output.parent.mkdir(parents=True, exist_ok=True)
    a.output.write_text(text, encoding="utf-8")
    log.info("wrote %d options to %s", len(json.loads(text)["options"]), a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
