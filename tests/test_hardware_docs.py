"""The hardware documentation agrees with the configuration the unit ships."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
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


# --- every command in the maker's two documents is run here, or marked as needing a Pi -------------

DOCS = (ROOT / "docs/raspberry-pi.md", ROOT / "hardware/README.md")
NEEDS_A_PI = "<!-- needs a Pi -->"
COMMAND_WORDS = ("sudo ", "make ", "git ", "$PY ", ".venv/", "monopoly-city ", "journalctl ", "systemctl ", "python")


def shell_blocks(path: Path) -> list[tuple[bool, str]]:
    """Each ```sh block of a Markdown file: (marked as needing a Pi, its text). Indented blocks too."""
    blocks, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            marked = i > 0 and lines[i - 1].strip() == NEEDS_A_PI
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            blocks.append((marked, "\n".join(line.strip() for line in lines[i + 1 : end])))
            i = end
        i += 1
    return blocks


def test_every_command_is_in_a_block_and_the_blocks_paste_whole():
    in_blocks = "\n".join(block for path in DOCS for _, block in shell_blocks(path))
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        blocks = shell_blocks(path)
        assert blocks, path
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for span in re.findall(r"`([^`\n]+)`", prose):
            if span.startswith(COMMAND_WORDS) and " " in span:
                # A command in the prose is only a reminder of one in a block (run or marked).
                assert span in in_blocks, f"{path.name}: `{span}` is a command outside any block"
        for _, block in blocks:
            for line in block.splitlines():
                assert not line.endswith("\\"), f"{path.name}: a command split across lines: {line}"
                if '-c "' in line:  # a Python one-liner: valid Python as pasted
                    compile(line.split('-c "', 1)[1].rsplit('"', 1)[0], path.name, "exec")


@pytest.mark.slow
@pytest.mark.install
def test_the_raspberry_pi_guide_followed_literally_against_a_temporary_root(tmp_path):
    """Every block not marked as needing a Pi, in order, as one shell session: clone, install, update, remove.

    Stand-ins: `sudo` runs its command as is; `git clone` copies this working tree (without .venv and
    .git); `git pull` has nothing to fetch; make install-pi gets --root through INSTALL_ARGS.
    """
    root = tmp_path / "root"
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text("dtparam=i2c_arm=on\n")
    home = tmp_path / "home"
    home.mkdir()
    blocks = [block for marked, block in shell_blocks(ROOT / "docs/raspberry-pi.md") if not marked]
    prelude = f"""set -eu
sudo() {{ "$@"; }}
git() {{
    case "$1" in
        clone) mkdir "$3" && tar -C {ROOT} --exclude=./.venv --exclude=./.git -cf - . | tar -C "$3" -xf - ;;
        pull) echo "Already up to date." ;;
        *) command git "$@" ;;
    esac
}}
REPO={ROOT}  # the guide asks the reader to set it
export INSTALL_ARGS="--root {root} --pip-args --no-deps"
export PIP_DISABLE_PIP_VERSION_CHECK=1
"""
    script = prelude + "\n".join(f"echo '>>> block {i}'\n{block}" for i, block in enumerate(blocks)) + "\n"
    result = subprocess.run(["sh", "-c", script], cwd=home, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stdout.count("monopoly-city: installed into") == 2  # installed, then updated
    assert "removed; the configuration" in result.stdout
    assert (root / "etc/monopoly-city/config.yaml").exists() and not (root / "opt/monopoly-city").exists()
    assert (home / "monopoly-city-unit/Makefile").exists()


MOCK_PI = """
import atexit, sys, threading, time
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

Device.pin_factory = factory = MockFactory(pin_class=MockPWMPin)

def person():  # presses and releases every button, again and again, for a few seconds
    for _ in range(50):
        for number in (17, 27, 22):
            factory.pin(number).drive_high()
        time.sleep(0.05)
        for number in (17, 27, 22):
            factory.pin(number).drive_low()
        time.sleep(0.05)

threading.Thread(target=person, daemon=True).start()

@atexit.register
def report():  # registered after gpiozero's own: runs before it closes the devices
    for number in (18, 23):
        print(f"GPIO{number}: {len(factory.pin(number).states) - 1} changes", file=sys.stderr)

code = sys.argv[2]
sys.argv = ["-c"]
exec(compile(code, "<-c>", "exec"), {"__name__": "__main__"})
"""


@pytest.mark.slow
def test_the_part_by_part_commands_run_as_written_on_mock_pins(tmp_path):
    wrapper = tmp_path / "mock_pi.py"
    wrapper.write_text(MOCK_PI, encoding="utf-8")
    runnable = [block for marked, block in shell_blocks(ROOT / "hardware/README.md") if not marked]
    one_liners = [block for block in runnable if block.startswith("$PY -c")]
    assert len(one_liners) == 4
    env = dict(os.environ, PY=f"{sys.executable} {wrapper}")
    seen = {}
    for block in one_liners:
        result = subprocess.run(
            ["sh", "-c", block], input="\n", capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path
        )
        assert result.returncode == 0, block + "\n" + result.stderr
        changes = dict(re.findall(r"(GPIO\d+): (\d+) changes", result.stderr))
        seen[block.split("import ")[1].split(";")[0]] = (result.stdout, {k: int(v) for k, v in changes.items()})
    assert seen["Button"][0].strip() == "ok"
    assert seen["LED"][1]["GPIO23"] >= 1
    assert seen["TonalBuzzer"][1]["GPIO18"] >= 1
    # The active buzzer's three beeps all happen before the script ends.
    assert seen["Buzzer"][1]["GPIO18"] == 6 and "three beeps?" in seen["Buzzer"][0]


@pytest.mark.slow
def test_the_mock_pin_command_prints_the_pin_changes():
    runnable = [block for marked, block in shell_blocks(ROOT / "hardware/README.md") if not marked]
    [block] = [block for block in runnable if "--pins mock" in block]
    command = block.replace(".venv/bin/monopoly-city", f"{sys.executable} -m unit")
    result = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    pins = [json.loads(line) for line in result.stdout.splitlines() if '"kind": "pin"' in line]
    assert {p["pin"] for p in pins} == {"led", "buzzer"}


def test_the_buzzer_section_tells_the_whole_truth():
    section = README.split("## The buzzer")[1].split("\n## ")[0]
    for fact in ("software PWM", "magnetic", "transistor", "flyback diode", "5 V active buzzer draws"):
        assert fact in section, fact
    assert "hardware PWM0" not in README


def test_the_diagram_command_draws_the_shipped_diagram(tmp_path):
    runnable = [block for marked, block in shell_blocks(ROOT / "hardware/README.md") if not marked]
    [block] = [block for block in runnable if "make_diagram.py" in block]
    (tmp_path / "hardware").mkdir()
    for name in ("make_diagram.py", "pins.yaml"):
        (tmp_path / "hardware" / name).write_bytes((ROOT / "hardware" / name).read_bytes())
    command = block.replace(".venv/bin/python", sys.executable)
    result = subprocess.run(["sh", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "hardware/wiring.svg").read_text() == (ROOT / "hardware/wiring.svg").read_text()


def test_the_bill_of_materials_is_honest_about_soldering():
    assert "No soldering on the Pi itself" not in README
    top = README.split("## Wiring")[0]
    assert "Zero 2 WH" in top and "soldered" in top
    bom = README.split("## Bill of materials")[1].split("\n## ")[0]
    assert "Zero 2 WH" in bom and "not a magnetic one" in bom


def test_waking_the_pi_and_the_unplug_sign_are_explained():
    guide = (ROOT / "docs/raspberry-pi.md").read_text(encoding="utf-8")
    wake = guide.split("## 6. Switching it back on")[1].split("\n## ")[0]
    for fact in ("GPIO3", "SCL", "electrically safe", "open drain", "Pi 5", "power button"):
        assert fact in wake, fact
    assert "green LED" not in guide  # inside the box: the sign is the unit's own screen
    assert "VOUS POUVEZ DÉBRANCHER" in guide
