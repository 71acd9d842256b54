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
