"""No import cycle inside the web package (unit/web/): the composition root imports the pages, the pages
import what they share (unit/web/common.py), and nothing imports back up.

The imports are read from the source (every ``import`` and ``from ... import``, relative ones resolved,
those inside functions too), so a cycle hidden behind a lazy import fails as well. No web extra needed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "unit.web"


def module_of(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_by(path: Path, known: Iterable[str], root: Path = ROOT) -> set[str]:
    """The modules among ``known`` that the file at ``path`` (under ``root``) imports, anywhere in it."""
    known = set(known)
    here = module_of(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}  # `from unit.web import game`
    return {name for name in found if name in known and name != here}


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


def import_graph(package: str) -> dict[str, set[str]]:
    folder = ROOT.joinpath(*package.split("."))
    paths = sorted(folder.rglob("*.py"))
    names = [module_of(p) for p in paths]
    return {module_of(p): imported_by(p, names) for p in paths}


def test_the_web_package_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert "unit.web.common" in graph["unit.web.game"]  # the graph is read (a guard against an empty one)
    assert cycles(graph) == []


def test_the_cycle_finder_finds_loops_of_any_length_and_only_those() -> None:
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}) == [["a", "b", "c"], ["d"]]
    assert cycles({"app": {"game", "common"}, "game": {"common"}, "common": set()}) == []


def test_relative_imports_are_resolved(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\nfrom .c import thing\n")
    (pkg / "sub").mkdir()
    (pkg / "sub" / "d.py").write_text("from .. import c\nfrom ..b import x\n")
    names = ["pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.sub", "pkg.sub.d"]
    assert imported_by(pkg / "a.py", names, tmp_path) == {"pkg", "pkg.b", "pkg.c"}
    assert imported_by(pkg / "sub" / "d.py", names, tmp_path) == {"pkg", "pkg.b", "pkg.c"}
