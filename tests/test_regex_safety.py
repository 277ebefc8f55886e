"""Every regular expression in lkmlkb against inputs built to make it backtrack.

The patterns are found, not listed: each lkmlkb module is imported and its
compiled patterns collected (module level, inside module-level lists, tuples
and dicts, and as class attributes), and the source is read for patterns
written inline in ``re.search(r"...")``-style calls.  Each is run with
``.search`` over long runs of the characters quantifiers accept, ended by a
character that forces the match to fail — the shape that turns a nested or
overlapping quantifier into minutes.  Found by this test, then fixed:
``sources.html._common._MSGID_RE`` (12 s on ``"a." * 30_000``),
``sources.textdump.ADDR`` (56 s on 100,000 spaces),
``repro.setup_script.TUNABLE_RE`` (4 s on 50,000 letters) and
``sources.mail.BARE_ID`` (20 s inside ``normalize_msgid`` on a 1 MB header).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import time
from pathlib import Path

import pytest

import lkmlkb

#: a pattern slower than this on one input is a backtracking bug (the fixed
#: ones took 2-56 s; the slowest safe ones take ~0.5 s on a loaded machine)
LIMIT_S = 1.0

# Long runs of what the patterns' quantifiers accept, each with a failing tail.
ADVERSARIAL = {
    "digits": "1" * 50_000 + "!",  # \d{1,n} and number patterns
    "letter-dot": "a." * 30_000,  # dotted words, versions, hosts
    "spaces": " " * 100_000 + "x",  # \s* between tokens
    "dashes": "-" * 50_000,  # separators, options, ranges
    "equals": "=" * 50_000,  # fio "bw=", key=value, rulers
    "pipes": "|" * 50_000,  # table columns
    "quotes": ">" * 20_000 + "x",  # quote prefixes
    "hex-prefix": "0x" * 30_000,  # hex numbers
    "brackets": "[" * 20_000,  # fio job sections, [PATCH]
    "closing-brackets": "]" * 20_000,
    "letters": "a" * 50_000 + "!",  # words, names
    "digit-dot": "1." * 30_000 + "!",  # versions, decimals
    "digit-space": "1 " * 30_000,  # table rows
    "tabs": "\t" * 50_000 + "x",
    "newlines": "\n" * 50_000 + "x",
    "hex": "0123456789abcdef" * 4_000 + "g",  # SHAs
    "colons": ":" * 50_000,  # headers, "key: value"
    "slashes": "/" * 50_000,  # paths, units (MiB/s)
    "letter-space": "a " * 30_000,  # prose
    "word-lines": "word\n" * 20_000,  # multi-line patterns
    "percent": "1%" * 30_000,  # %change columns
    "versions": "v6." * 20_000,  # kernel versions
    "at-signs": "a@" * 30_000,  # addresses, ids
    "angles": "<" * 30_000 + "a",  # addresses, ids
}

_RE_FUNCS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


def _collect_objects(obj, prefix: str, out: dict, depth: int = 0) -> None:
    """Compiled patterns held by a module or class, in containers one level deep."""
    for name, v in list(vars(obj).items()):
        if isinstance(v, re.Pattern):
            out.setdefault(f"{prefix}.{name}", v)
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                items = x if isinstance(x, tuple) else (x,)
                for j, y in enumerate(items):
                    if isinstance(y, re.Pattern):
                        out.setdefault(f"{prefix}.{name}[{i}][{j}]", y)
        elif isinstance(v, dict):
            for k, x in v.items():
                if isinstance(x, re.Pattern):
                    out.setdefault(f"{prefix}.{name}[{k!r}]", x)
        elif inspect.isclass(v) and v.__module__ == getattr(obj, "__name__", None) and depth == 0:
            _collect_objects(v, f"{prefix}.{name}", out, 1)


def _flags(node: ast.expr | None) -> int:
    """``re.I | re.X`` and the like as written in a call; 0 when not a plain flag expression."""
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        return int(getattr(re, node.attr, 0))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    return 0


def _inline_patterns(path: Path, module: str, out: dict) -> None:
    """Literal patterns passed straight to ``re.<func>(...)`` in a module's source."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_FUNCS
            and node.args
        ):
            continue
        arg = node.args[0]
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, (str, bytes))):
            continue
        flag_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
        if flag_node is None:
            pos = {
                "compile": 1,
                "search": 2,
                "match": 2,
                "fullmatch": 2,
                "findall": 2,
                "finditer": 2,
                "split": 3,
                "sub": 4,
                "subn": 4,
            }[node.func.attr]
            flag_node = node.args[pos] if len(node.args) > pos else None
        try:
            pat = re.compile(arg.value, _flags(flag_node))
        except re.error:
            continue
        out.setdefault(f"{module}:{node.lineno} (inline re.{node.func.attr})", pat)


def all_patterns() -> dict[str, re.Pattern]:
    """Every pattern lkmlkb compiles, by where it lives."""
    out: dict[str, re.Pattern] = {}
    root = Path(lkmlkb.__file__).resolve().parent
    for info in pkgutil.walk_packages(lkmlkb.__path__, "lkmlkb."):
        mod = importlib.import_module(info.name)
        _collect_objects(mod, info.name, out)
        src = getattr(mod, "__file__", None)
        if src and src.endswith(".py"):
            _inline_patterns(Path(src), info.name, out)
    assert root.exists()
    return _distinct(out)


def _distinct(found: dict[str, re.Pattern]) -> dict[str, re.Pattern]:
    """One entry per (pattern, flags): a module-level compile is found both ways."""
    seen: set = set()
    out = {}
    for name, pat in sorted(found.items(), key=lambda kv: (":" in kv[0], kv[0])):
        key = (pat.pattern, pat.flags)
        if key not in seen:
            seen.add(key)
            out[name] = pat
    return out


PATTERNS = all_patterns()


def search_time(pat: re.Pattern, text: str) -> float:
    """CPU seconds one ``.search`` takes (bytes patterns get the text as Latin-1): a loaded machine
    does not add to them."""
    subject = text.encode("latin-1") if isinstance(pat.pattern, bytes) else text
    t0 = time.thread_time()
    pat.search(subject)
    return time.thread_time() - t0


def test_the_enumeration_finds_the_patterns_that_read_mail():
    # the extractors and sources are where hostile text arrives; the
    # enumeration must reach into each of them (and find inline patterns)
    names = " ".join(PATTERNS)
    assert len(PATTERNS) > 200
    for module in (
        "lkmlkb.extract.results",
        "lkmlkb.extract.kernels",
        "lkmlkb.extract.commits",
        "lkmlkb.extract.setup",
        "lkmlkb.extract.claims",
        "lkmlkb.fio.jobfile",
        "lkmlkb.threads.segments",
        "lkmlkb.sources.mail",
        "lkmlkb.sources.textdump",
        "lkmlkb.sources.html._common",
        "lkmlkb.extract.views",
    ):
        assert module + "." in names or module + ":" in names, module
    assert any("(inline re." in n for n in PATTERNS)


def test_a_backtracking_pattern_is_caught():
    # the harness itself: a textbook nested quantifier is flagged on these inputs
    bad = re.compile(r"^(\d+)+$")
    fine = re.compile(r"^\d{1,100}$")
    assert search_time(bad, "1" * 21 + "!") > 50 * search_time(fine, "1" * 21 + "!")
    assert search_time(bad, "1" * 21 + "!") > 0.02


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_is_fast_on_adversarial_input(name):
    pat = PATTERNS[name]
    slow = {
        label: round(dt, 2) for label, text in ADVERSARIAL.items() if (dt := search_time(pat, text)) > LIMIT_S
    }
    assert not slow, f"{name} = {pat.pattern!r} backtracks: {slow}"
