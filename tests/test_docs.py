"""The documentation says what the code does: its examples are run here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from unit.core import sounds

ROOT = Path(__file__).resolve().parent.parent
SIMULATE_MD = (ROOT / "docs/simulate.md").read_text(encoding="utf-8")


def test_worked_example_lines_are_what_simulate_prints():
    demo = ROOT / "docs/examples/demo-game.yaml"
    printed = subprocess.run(
        [sys.executable, "-m", "unit", "simulate", str(demo)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    documented = [line for line in SIMULATE_MD.splitlines() if line.startswith('{"t"')]
    example = documented[documented.index('{"t": 0.0, "kind": "state", "state": "ready"}') :]
    assert len(example) > 20
    missing = [line for line in example if line not in printed]
    assert missing == []


def test_worked_example_scenario_is_the_shipped_file():
    demo = (ROOT / "docs/examples/demo-game.yaml").read_text(encoding="utf-8")
    block = SIMULATE_MD.split("`docs/examples/demo-game.yaml` is the game")[1].split("```yaml\n")[1].split("```")[0]
    assert block in demo


def test_every_sound_is_documented():
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", SIMULATE_MD, flags=re.MULTILINE))
    assert set(sounds.SOUNDS) <= documented


def _make_images_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_images", ROOT / "docs/make_images.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_image_the_guides_show_exists():
    for guide in ("docs/user-guide.md", "docs/user-guide.en.md", "README.md"):
        text = (ROOT / guide).read_text(encoding="utf-8")
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
            assert (ROOT / guide).parent.joinpath(target).exists(), f"{guide}: {target}"


def test_screen_images_in_the_docs_are_what_the_code_draws(tmp_path):
    """docs/images must be regenerated (docs/make_images.py) when a screen changes."""
    from PIL import Image, ImageChops

    from unit.core import views

    make_images = _make_images_module()
    for language in ("fr", "en"):
        for name, view in views.SAMPLES.items():
            fresh = tmp_path / f"{language}-{name}.png"
            make_images.save_screen(view, language, fresh)
            shipped = ROOT / "docs/images" / language / f"{name}.png"
            with Image.open(fresh) as a, Image.open(shipped) as b:
                diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox()
            assert diff is None, f"{shipped} is out of date: run docs/make_images.py"


CALCULATOR_EXAMPLES = [
    ["rent", "docs/examples/city-game.yaml", "Docks"],
    ["fortune", "docs/examples/city-game.yaml"],
    [
        "rent",
        "--card",
        "100k 200k 300k 400k 500k 600k 800k 1M 1.2M",
        "--residential",
        "3",
        "--industrial",
        "2",
        "--hazard",
        "--tower",
    ],
    ["rent", "--edition", "classic-fr", "paix", "--houses", "3"],
    ["salary", "docs/examples/city-game.yaml", "bruno"],
    ["tax", "docs/examples/city-game.yaml", "alice"],
    ["mortgage", "docs/examples/city-game.yaml", "docks"],
    ["sell", "docs/examples/classic-game.yaml", "champs"],
    ["mortgage", "docs/examples/classic-game.yaml", "henri"],
    ["game", "new", "classic-fr", "--players", "Alice,Bob,Chloé"],
]


@pytest.mark.slow
def test_calculator_walk_through_shows_what_the_commands_print():
    text = (ROOT / "docs/calculator.md").read_text(encoding="utf-8")
    for argv in CALCULATOR_EXAMPLES:
        printed = subprocess.run(
            [sys.executable, "-m", "unit", *argv], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
        assert printed in text, f"docs/calculator.md does not show the output of {' '.join(argv)}"


def test_every_module_of_the_package_is_drawn_in_the_architecture():
    """docs/dev/architecture.md draws every module of unit/: its path under unit/ (``app/halt.py``, ``cli.py``,
    ``unit/`` before it or not) in one of the document's drawings. A package's ``__init__.py`` is drawn as its
    folder."""
    text = (ROOT / "docs/dev/architecture.md").read_text(encoding="utf-8")
    drawings = "\n".join(re.findall(r"^```\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL))
    assert drawings
    modules = sorted(
        path.relative_to(ROOT / "unit").as_posix()
        for path in (ROOT / "unit").rglob("*.py")
        if path.name != "__init__.py"
    )
    assert "app/halt.py" in modules and "cli.py" in modules
    missing = [name for name in modules if not re.search(rf"(?<![\w/.]){re.escape(name)}(?!\w)", _unprefixed(drawings))]
    assert missing == [], f"modules of unit/ not drawn in docs/dev/architecture.md: {missing}"


def _unprefixed(text: str) -> str:
    """``unit/app/halt.py`` read as ``app/halt.py``: the drawings name a module with or without the package."""
    return re.sub(r"(?<![\w/.])unit/(?=[\w/]+\.py)", "", text)


#: Names of the libraries the walks mention (gpiozero's, luma's, PIL's, the standard library's): not ours to check.
LIBRARY_NAMES = {"LED", "TonalBuzzer", "DigitalInputDevice", "device", "ImageDraw", "time"}
FILE_TYPES = {"py", "md", "sock", "toml", "yaml", "json"}  # unit/app/link.py, unit.sock: a file, not a name


def _defined_names() -> tuple[set[str], dict[str, set[str]]]:
    """Every name defined at the top of a module of unit/, and the members of every class and module."""
    import ast

    names: set[str] = set()
    members: dict[str, set[str]] = {}
    for path in (ROOT / "unit").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = members.setdefault(path.stem, set())
        for node in tree.body:
            for name in _names_bound(node):
                names.add(name)
                top.add(name)
            if isinstance(node, ast.ClassDef):
                inside = members.setdefault(node.name, set())
                for child in node.body:
                    inside.update(_names_bound(child))
    return names, members


def _names_bound(node) -> list[str]:
    import ast

    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


@pytest.mark.parametrize("section", ["## One button press", "## The link"])
def test_the_walks_of_the_architecture_name_what_the_code_has(section):
    """The walk of one button press and of one phone request name functions, classes and methods that exist:
    ``Runtime.post`` is a method of a class ``Runtime`` of unit/, ``live.press`` a function of a module ``live``,
    ``read_message`` and ``DisplayWorker`` names defined in unit/."""
    text = (ROOT / "docs/dev/architecture.md").read_text(encoding="utf-8")
    walk = text[text.index(section) :]
    walk = walk[: walk.index("\n## ", 3)]
    names, members = _defined_names()
    wrong = []
    for span in re.findall(r"`([^`]+)`", walk):
        for owner, member, after in re.findall(r"\b([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(\(?)", span):
            if member in FILE_TYPES:
                continue
            if member and owner not in LIBRARY_NAMES:
                if member not in members.get(owner, ()):
                    wrong.append(f"{owner}.{member}")
            elif not member and (re.fullmatch(r"[A-Z]\w*[a-z]\w*", owner) or "_" in owner.strip("_") or after):
                if owner not in names and owner not in LIBRARY_NAMES:
                    wrong.append(owner)
    assert wrong == [], f"{section}: names the code does not have: {wrong}"
