"""The design, kept by tests: which part may import which, no import cycle, a pure core, one catalog of words.

The imports are read from the source (an AST walk of every module: imports inside functions count, relative
ones are resolved, those under ``if TYPE_CHECKING:`` count too: a reader takes the layers in one direction only if
the types do as well; issue 27 opened the calculator's circle, closed only by such imports), not trusted to
convention. One table, :data:`MAY_IMPORT`, says which part may import which,
and :data:`LIBRARIES` which installed libraries each part may use; the whole package is checked against
both at once, and the checker is itself shown to fail on a graph that breaks them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from unit import i18n

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "unit"

#: The parts of the package, the first matching prefix wins (a module is in exactly one part).
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("unit.core",)),
    ("app", ("unit.app",)),
    ("backend parts", ("unit.backends.base", "unit.backends.oled")),
    ("backends", ("unit.backends",)),
    ("calculator", ("unit.calculator",)),
    ("web", ("unit.web",)),
    ("cli", ("unit.cli", "unit.__main__")),
    ("shared", ("unit",)),  # errors, i18n, yamlfile, fields, files, locales, the package itself
)
#: Which parts each part may import (its own always). The calculator and the unit's side never meet; the
#: web service is a shell over the shared modules, the pure core and the calculator (it talks to the unit
#: over its socket, never imports it); only the CLI knows every side, and nothing imports the CLI.
MAY_IMPORT: dict[str, set[str]] = {
    "core": set(),
    "shared": set(),
    "calculator": {"shared"},
    "backend parts": {"core", "shared"},
    "backends": {"backend parts", "core", "shared"},
    "app": {"backends", "backend parts", "core", "shared"},
    "web": {"core", "calculator", "shared"},
    "cli": {"app", "backends", "backend parts", "core", "calculator", "web", "shared"},
}
#: The installed libraries (not the standard library) each part may import; the core none at all.
LIBRARIES: dict[str, set[str]] = {
    "core": set(),
    "shared": {"yaml"},
    "calculator": {"yaml"},
    "backend parts": {"PIL", "luma"},
    "backends": {"PIL", "luma", "gpiozero", "pygame"},
    "app": {"gpiozero", "luma", "PIL", "yaml"},
    "web": {"starlette", "uvicorn", "h11", "jinja2", "segno"},
    "cli": {"yaml"},
}
#: The registry picks a backend by name: the one module that may import every backend (each lazily).
REGISTRY = "unit.backends"


def module_of(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (read by type checkers, never run)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found |= {id(n) for child in node.body for n in ast.walk(child)}
    return found


def imports_of(path: Path, known: Iterable[str], root: Path = ROOT) -> tuple[set[str], set[str], set[str]]:
    """What the file at ``path`` imports: (the project's modules among ``known`` that run, those imported for
    type checking only, the top-level names of everything else). ``from pkg import sub`` imports ``pkg.sub``."""
    known = set(known)
    here = module_of(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = _type_checking_only(tree)
    running: set[str] = set()
    typed: set[str] = set()
    outside: set[str] = set()
    for node in ast.walk(tree):
        names: set[str] = set()
        if isinstance(node, ast.Import):
            names = {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            subs = {f"{module}.{alias.name}" for alias in node.names} & known
            names = subs | ({module} if len(subs) < len(node.names) else set())
        else:
            continue
        for name in names:
            found = (
                name
                if name in known
                else next((k for k in sorted(known, key=len, reverse=True) if name.startswith(k + ".")), None)
            )
            if found is None:
                outside.add(name.split(".")[0])
            elif found != here:
                (typed if id(node) in typing_only else running).add(found)
    return running, typed, outside


def _longest_known(name: str, known: set[str]) -> str | None:
    """The innermost known module ``name`` is inside (``unit.core.views.Countdown`` is in ``unit.core.views``)."""
    while "." in name:
        name = name.rpartition(".")[0]
        if name in known:
            return name
    return None


def read_package(root: Path = ROOT, package: str = "unit") -> dict[str, tuple[set[str], set[str], set[str]]]:
    paths = sorted(root.joinpath(*package.split(".")).rglob("*.py"))
    names = [module_of(p, root) for p in paths]
    return {module_of(p, root): imports_of(p, names, root) for p in paths}


def part_of(module: str) -> str:
    return next(name for name, prefixes in PARTS if any(module == p or module.startswith(p + ".") for p in prefixes))


def broken_rules(graph: Mapping[str, tuple[set[str], set[str], set[str]]]) -> list[str]:
    """Every import the tables do not allow, one line each (empty: the package keeps its design)."""
    broken = []
    for module, (running, typed, outside) in sorted(graph.items()):
        part = part_of(module)
        for other in sorted(running | typed):
            theirs = part_of(other)
            if other in ("unit.cli", "unit.__main__") and module != "unit.__main__":
                broken.append(f"{module} imports the CLI {other}")
            elif theirs != part and theirs not in MAY_IMPORT[part]:
                broken.append(f"{module} ({part}) imports {other} ({theirs})")
            elif part == theirs == "backends" and module != REGISTRY and other != REGISTRY:
                broken.append(f"{module} imports another backend, {other}")
        for library in sorted(outside - set(sys.stdlib_module_names) - {"__future__"} - LIBRARIES[part]):
            broken.append(f"{module} ({part}) imports the library {library}")
    return broken


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import each other, directly or around a loop (Tarjan's strongly connected
    components of more than one module, or one that imports itself), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def running_graph(graph: Mapping[str, tuple[set[str], set[str], set[str]]]) -> dict[str, set[str]]:
    """The imports that run, a module's own packages aside (``unit.core.views`` importing ``unit.core`` is how
    Python loads a package, not a loop)."""
    return {m: {o for o in running if not m.startswith(o + ".")} for m, (running, _t, _o) in graph.items()}


def import_graph(graph: Mapping[str, tuple[set[str], set[str], set[str]]]) -> dict[str, set[str]]:
    """Every import, those for type checking too, a module's own packages aside: the layers as a reader takes them."""
    return {m: {o for o in running | typed if not m.startswith(o + ".")} for m, (running, typed, _o) in graph.items()}


GRAPH = read_package()


def test_the_package_is_read_whole():
    assert "unit.web.common" in GRAPH["unit.web.game"][0] and "unit.core.views" in GRAPH["unit.core.machine"][0]
    assert {part_of(m) for m in GRAPH} == set(MAY_IMPORT) == set(LIBRARIES)


def test_every_import_keeps_the_table():
    assert broken_rules(GRAPH) == []


def test_no_import_cycle_anywhere():
    assert cycles(running_graph(GRAPH)) == []


def test_no_import_cycle_even_counting_type_checking_imports():
    """The calculator reads in layers (docs/dev/architecture.md): words, actions; money, names; editions, entries;
    game files; the ledger; the rules; the bank; the one write path; the commands. Not one arrow runs back up, not
    even a type checker's."""
    assert cycles(import_graph(GRAPH)) == []


def test_the_cycle_test_counts_type_checking_imports():
    graph = {"unit.a": (set(), {"unit.b"}, set()), "unit.b": ({"unit.a"}, set(), set())}
    assert cycles(running_graph(graph)) == [] and cycles(import_graph(graph)) == [["unit.a", "unit.b"]]


def test_the_checker_fails_on_a_broken_design():
    graph = {
        "unit.core.machine": ({"unit.app.runtime"}, set(), {"yaml"}),
        "unit.calculator.city": (set(), {"unit.core.views"}, set()),
        "unit.backends.gpio": ({"unit.backends.emulator"}, set(), set()),
        "unit.web.game": ({"unit.cli"}, set(), set()),
    }
    assert broken_rules(graph) == [
        "unit.backends.gpio imports another backend, unit.backends.emulator",
        "unit.calculator.city (calculator) imports unit.core.views (core)",
        "unit.core.machine (core) imports unit.app.runtime (app)",
        "unit.core.machine (core) imports the library yaml",
        "unit.web.game imports the CLI unit.cli",
    ]


def test_the_cycle_finder_finds_loops_of_any_length_and_only_those():
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}) == [["a", "b", "c"], ["d"]]
    assert cycles({"app": {"game", "common"}, "game": {"common"}, "common": set()}) == []


def test_relative_and_type_checking_imports_are_read(tmp_path: Path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\nfrom .c import thing\nimport yaml.constructor\n")
    (pkg / "sub" / "d.py").write_text(
        "from typing import TYPE_CHECKING\nfrom .. import c\nif TYPE_CHECKING:\n    from ..b import x\n"
    )
    names = ["pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.sub", "pkg.sub.d"]
    assert imports_of(pkg / "a.py", names, tmp_path) == ({"pkg.b", "pkg.c"}, set(), {"yaml"})
    assert imports_of(pkg / "sub" / "d.py", names, tmp_path) == ({"pkg.c"}, {"pkg.b"}, {"typing"})


def test_importing_the_core_loads_nothing_heavy():
    code = (
        "import sys, unit.core, unit.core.views, unit.core.clock, unit.core.sounds, unit.core.settings;"
        "print(' '.join(m for m in ('yaml', 'PIL', 'gpiozero', 'pygame', 'luma') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == ""


# --- one catalog of words -------------------------------------------------------------------


def test_french_is_the_reference_and_every_language_matches_it():
    assert i18n.languages()[0] == "fr" and "en" in i18n.languages()
    reference = i18n.words("fr").entries
    for language in i18n.languages():
        entries = i18n.words(language).entries  # checked on load: same keys, same placeholders
        assert set(entries) == set(reference), language


def test_a_language_out_of_step_is_refused(monkeypatch):
    monkeypatch.setattr(i18n, "_read", lambda language: {"screen.sold": "VENDU {n}"} if language == "xx" else {})
    i18n.words.cache_clear()
    try:
        with pytest.raises(i18n.CatalogError, match="xx.toml"):
            i18n.words("xx")
    finally:
        i18n.words.cache_clear()


def test_every_word_the_core_names_is_in_the_catalog():
    from unit.core import views

    for language in i18n.languages():
        words = i18n.words(language)
        for view in views.SAMPLES.values():
            views.describe(view, words)  # a missing key raises KeyError
