"""The design, kept by tests: which part may import which, a pure core, one catalog of words.

The import rules are read from the source (an AST walk of every module), not
trusted to convention:
- ``unit.core`` imports only the standard library and ``unit.core``;
- no backend imports another backend (``base`` and ``oled`` are parts they share);
- the calculator and the unit's side (core, app, backends) never import each other;
- the shared modules import neither side; nothing imports the CLI.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from unit import i18n

PACKAGE = Path(__file__).resolve().parent.parent / "unit"
SHARED = {"unit", "unit.errors", "unit.i18n", "unit.yamlfile", "unit.fields", "unit.files", "unit.locales"}
BACKEND_PARTS = {"unit.backends", "unit.backends.base", "unit.backends.oled"}
UNIT_SIDE = ("unit.core", "unit.app", "unit.backends")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in it (lazy imports inside functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            # `from unit.core import views` imports the module unit.core.views
            found |= {f"{node.module}.{alias.name}" for alias in node.names if node.module.startswith("unit")}
    return found


MODULES = {module_name(p): imports(p) for p in sorted(PACKAGE.rglob("*.py"))}
STDLIB = sys.stdlib_module_names


def project(names: set[str]) -> set[str]:
    """The project's own modules among ``names`` (only those that exist as modules or packages)."""
    return {n for n in names if n.split(".")[0] == "unit" and n in MODULES}


def within(name: str, *parts: str) -> bool:
    return any(name == part or name.startswith(part + ".") for part in parts)


def test_every_module_is_in_one_part():
    for name in MODULES:
        assert (
            name in SHARED
            or name == "unit.cli"
            or name == "unit.__main__"
            or within(name, *UNIT_SIDE, "unit.calculator", "unit.web")
        ), name


@pytest.mark.parametrize("name", sorted(n for n in MODULES if within(n, "unit.core")))
def test_core_imports_only_the_standard_library_and_itself(name):
    for imported in MODULES[name]:
        top = imported.split(".")[0]
        assert top in STDLIB or top == "__future__" or within(imported, "unit.core"), f"{name} imports {imported}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if within(n, "unit.web")))
def test_the_web_service_imports_only_the_shared_modules_and_the_pure_core(name):
    for imported in project(MODULES[name]):
        assert within(imported, "unit.web", "unit.core", "unit.calculator") or imported in (
            "unit",
            "unit.i18n",
            "unit.errors",
            "unit.fields",
            "unit.yamlfile",
            "unit.files",
        ), imported


@pytest.mark.parametrize("name", sorted(n for n in MODULES if within(n, "unit.backends") and n not in BACKEND_PARTS))
def test_no_backend_imports_another_backend(name):
    others = {n for n in project(MODULES[name]) if within(n, "unit.backends") and n not in BACKEND_PARTS}
    assert others <= {name}, f"{name} imports {others - {name}}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if within(n, "unit.calculator")))
def test_the_calculator_does_not_import_the_unit_side(name):
    assert not {n for n in project(MODULES[name]) if within(n, *UNIT_SIDE)}, name


@pytest.mark.parametrize("name", sorted(n for n in MODULES if within(n, *UNIT_SIDE)))
def test_the_unit_side_does_not_import_the_calculator(name):
    assert not {n for n in project(MODULES[name]) if within(n, "unit.calculator")}, name


@pytest.mark.parametrize("name", sorted(SHARED & set(MODULES)))
def test_shared_modules_import_neither_side(name):
    sides = {n for n in project(MODULES[name]) if within(n, *UNIT_SIDE, "unit.calculator")}
    assert not sides, f"{name} imports {sides}"


def test_nothing_imports_the_cli():
    assert [name for name, found in MODULES.items() if "unit.cli" in found and name != "unit.__main__"] == []


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
