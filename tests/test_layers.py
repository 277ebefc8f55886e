"""The packages form a stack: every import of an lkmlkb module points down it or across a layer,
never up, no modules import each other in a circle, and an import inside a function is there
only to keep a heavy library out of a process that does not need it.

Each module is parsed with ``ast`` (nothing is imported), so the test sees the imports as written,
those inside functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import lkmlkb

PACKAGE = Path(lkmlkb.__file__).resolve().parent

#: lowest first: a module may import its own layer and the layers below it
LAYERS: list[tuple[str, ...]] = [
    ("lkmlkb", "lkmlkb.model", "lkmlkb.errors"),  # the records every stage passes on; lkmlkb's errors
    ("lkmlkb.threads",),  # threading, segmentation, quote attribution: functions of Message records
    ("lkmlkb.sources",),  # mail in (a text dump is rebuilt into a thread by its quotes)
    ("lkmlkb.extract", "lkmlkb.fio"),  # per-message extraction; fio jobs, kernel versions, units
    ("lkmlkb.reports", "lkmlkb.repro"),  # thread findings -> reports; reports -> reproductions
    ("lkmlkb.regressions",),  # report threads -> regressions: keys, links with reasons, timelines
    ("lkmlkb.db",),  # the knowledge base
    ("lkmlkb.ingest", "lkmlkb.link"),  # what fills the knowledge base: mail, a kernel tree's verdicts
    ("lkmlkb.web", "lkmlkb.cli"),  # what people use
]

#: (importing module, imported module) prefixes an import inside a function may have: each
#: keeps a library that costs start-up time out of the processes that do not use it
LAZY_IMPORTS: dict[tuple[str, str], str] = {
    ("lkmlkb.extract.nlp", "spacy"): "spaCy takes about a second to import; it is needed only once a "
    "message passes the prefilter",
    ("lkmlkb.extract.nlp", "numpy"): "comes with spaCy (the matcher reads its token arrays)",
    ("lkmlkb.sources.mail", "bs4"): "BeautifulSoup (0.15 s) only for HTML mail parts",
    ("lkmlkb.sources", "lkmlkb.sources.html"): "the HTML page readers import BeautifulSoup",
    ("lkmlkb.cli", "lkmlkb"): "a command imports only the stack it runs (`lkmlkb --help` none of it)",
    ("lkmlkb.cli", "rich"): "the progress bar only on a terminal",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = PACKAGE.parent.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of(module: str, source: str, is_package: bool = False) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function) of every import in ``source``.  ``from x import
    y`` names module ``x.y`` when that is a module of lkmlkb, else ``x``."""
    tree = ast.parse(source)
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(
                id(sub) for sub in ast.walk(node) if isinstance(sub, (ast.Import, ast.ImportFrom))
            )
    out = []
    for node in ast.walk(tree):
        lazy = id(node) in in_function
        if isinstance(node, ast.Import):
            out.extend((a.name, node.lineno, lazy) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                up = here[: len(here) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                out.append(
                    (full if full.startswith("lkmlkb") and _is_module(full) else base, node.lineno, lazy)
                )
    return out


def layer_of(module: str) -> int | None:
    best = None
    for n, prefixes in enumerate(LAYERS):
        for p in prefixes:
            within = module == p or (p != "lkmlkb" and module.startswith(p + "."))  # the package itself only
            if within and (best is None or len(p) > len(best[1])):
                best = (n, p)
    return None if best is None else best[0]


def _allowed_lazy(module: str, imported: str) -> bool:
    return any(
        (module == m or module.startswith(m + ".")) and (imported == i or imported.startswith(i + "."))
        for m, i in LAZY_IMPORTS
    )


def problems(module: str, source: str, is_package: bool = False) -> list[str]:
    """What is wrong with the imports of one module."""
    out = []
    here = layer_of(module)
    if here is None:
        return [f"{module}: in no layer (add its package to LAYERS)"]
    for imported, line, lazy in imports_of(module, source, is_package):
        if lazy and not _allowed_lazy(module, imported):
            out.append(f"{module}:{line}: imports {imported} inside a function")
        if imported.startswith("lkmlkb"):
            there = layer_of(imported)
            if there is None or there > here:
                out.append(
                    f"{module}:{line}: imports {imported}, a layer above it "
                    f"({LAYERS[there][0] if there is not None else '?'} over {LAYERS[here][0]})"
                )
    return out


def _modules() -> dict[str, tuple[str, bool]]:
    return {
        _module_name(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_every_import_points_down_the_stack():
    found = [p for name, (src, pkg) in _modules().items() for p in problems(name, src, pkg)]
    assert not found, "\n".join(found)


def test_no_modules_import_each_other_in_a_circle():
    graph = {
        name: {i for i, _, _ in imports_of(name, src, pkg) if i.startswith("lkmlkb") and i != name}
        for name, (src, pkg) in _modules().items()
    }
    cycles = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_the_checks_catch_an_upward_import_and_a_dodge():
    """The checks themselves: an upward import, at module level or inside a function, is caught."""
    assert problems("lkmlkb.extract.views", "from lkmlkb.ingest.pool import wait_for\n")
    assert problems("lkmlkb.db.store", "def f():\n    from lkmlkb.ingest import run\n")
    assert problems("lkmlkb.threads.segments", "import lkmlkb.sources.mail\n")
    assert problems("lkmlkb.extract.views", "def f():\n    from lkmlkb.extract.lines import word_lines\n")
    assert not problems("lkmlkb.db.store", "from lkmlkb.threads.threader import Threader\n")
    assert not problems("lkmlkb.extract.nlp.matcher", "def f():\n    import spacy\n")
    assert problems("lkmlkb.newpackage", "import os\n")
