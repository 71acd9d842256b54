"""The documentation says what the code does: its examples are run here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from unit import sounds

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
