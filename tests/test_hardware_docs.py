"""The hardware documentation agrees with the configuration the unit ships."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import yaml

from unit.app import config as configuration

ROOT = Path(__file__).resolve().parent.parent
PINS = yaml.safe_load((ROOT / "hardware/pins.yaml").read_text(encoding="utf-8"))
README = (ROOT / "hardware/README.md").read_text(encoding="utf-8")
# BCM -> physical pin on the 40-pin header.
BCM_TO_PHYSICAL = {2: 3, 3: 5, 17: 11, 18: 12, 22: 15, 23: 16, 27: 13}
GROUNDS = {6, 9, 14, 20, 25, 30, 34, 39}


def test_pins_yaml_is_the_default_configuration():
    defaults = dataclasses.asdict(configuration.load().pins)
    assert {name: PINS[name]["gpio"] for name in defaults} == defaults


def test_physical_pins_and_grounds_are_right():
    for name, spec in PINS.items():
        if name == "oled":
            continue
        assert BCM_TO_PHYSICAL[spec["gpio"]] == spec["physical"], name
        assert spec["ground"] in GROUNDS, name
    assert PINS["oled"]["sda"]["physical"] == 3 and PINS["oled"]["scl"]["physical"] == 5


def test_readme_table_lists_the_same_pins():
    for name in ("power", "auction", "build", "led", "buzzer"):
        spec = PINS[name]
        row = f"| {spec['gpio']} | {spec['physical']} | {spec['ground']} |"
        assert row in README, row


def test_wiring_diagram_is_up_to_date():
    spec = importlib.util.spec_from_file_location("make_diagram", ROOT / "hardware/make_diagram.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.draw(PINS) == (ROOT / "hardware/wiring.svg").read_text(encoding="utf-8")


def test_bill_of_materials_has_prices():
    bom = README.split("## Bill of materials")[1].split("##")[0]
    assert len(re.findall(r"\| [\d.]+ € \|", bom)) >= 8
