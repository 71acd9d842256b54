"""``monopoly-city simulate``: its contract, its options and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from unit.cli import main

ROOT = Path(__file__).resolve().parent.parent
AUCTION = "until: 100\nevents:\n  - {at: 0, press: power}\n  - {at: 10, press: auction}\n"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_simulate_prints_json_lines_in_time_order(capsys, write_yaml):
    status, out, err = run_cli(capsys, "simulate", write_yaml("s.yaml", AUCTION))
    assert status == 0 and err == ""
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["kind"] == "screen" and records[0]["text"].startswith("MONOPOLY CITY")  # the welcome screen
    assert [r for r in records if r["kind"] == "state"][0] == {"t": 0.0, "kind": "state", "state": "ready"}
    assert [r["t"] for r in records] == sorted(r["t"] for r in records)
    assert '{"t": 10.0, "kind": "screen", "text": "ENCHÈRES 50"}' in out.splitlines()
    assert '{"t": 10.0, "kind": "led", "mode": "blink", "hz": 1.0}' in out.splitlines()
    assert '{"t": 60.0, "kind": "led", "mode": "off"}' in out.splitlines()


def test_seed_option_wins_over_the_scenario_seed(capsys, write_yaml):
    text = "until: 400\nseed: 1\nevents:\n  - {at: 0, press: power}\n" + "".join(
        f"  - {{at: {20 * i}, press: build}}\n" for i in range(1, 15)
    )
    path = write_yaml("s.yaml", text)
    _, from_file, _ = run_cli(capsys, "simulate", path)
    _, seed_1, _ = run_cli(capsys, "simulate", path, "--seed", "1")
    _, seed_2, _ = run_cli(capsys, "simulate", path, "--seed", "2")
    assert from_file == seed_1 != seed_2


def test_config_file_wins_over_the_scenario_config(capsys, write_yaml):
    scenario = write_yaml("s.yaml", "until: 100\nconfig:\n  auction: {seconds: 30}\n" + AUCTION.split("\n", 1)[1])
    config = write_yaml("c.yaml", "auction:\n  seconds: 20\nlanguage: en\n")
    _, out, _ = run_cli(capsys, "simulate", scenario, "--config", config)
    assert '{"t": 30.0, "kind": "state", "state": "ready"}' in out.splitlines()
    assert "AUCTION 20" in out


BAD_SCENARIOS = {
    "unknown button": ("until: 10\nevents:\n  - {at: 1, press: bank}\n", "events[0].press: unknown button"),
    "out of order": (
        "until: 10\nevents:\n  - {at: 5, press: power}\n  - {at: 2, press: build}\n",
        "events[1]: out of order",
    ),
    "switch with a push button": ("until: 10\nevents:\n  - {at: 1, switch: on}\n", "events[0]: `switch` needs"),
    "missing until": ("events:\n  - {at: 1, press: power}\n", "missing `until`"),
    "hold without seconds": ("until: 10\nevents:\n  - {at: 1, hold: build}\n", "a hold needs `seconds`"),
    "negative time": ("until: 10\nevents:\n  - {at: -1, press: build}\n", "events[0].at: expected a non-negative"),
    "after until": ("until: 10\nevents:\n  - {at: 11, press: build}\n", "is after until"),
    "overlapping holds": (
        "until: 10\nevents:\n  - {at: 1, hold: build, seconds: 3}\n  - {at: 2, press: build}\n",
        "build is still held until 4",
    ),
    "unknown key": ("until: 10\nevent: []\n", "event: unknown key"),
    "not a mapping": ("- 1\n- 2\n", "expected a mapping"),
    "yaml syntax": ("until: [10\n", "YAML syntax error"),
    "empty": ("", "empty scenario"),
    "bad config in scenario": ("until: 10\nconfig:\n  auction: {seconds: -5}\n", "config: auction.seconds"),
}


@pytest.mark.parametrize("name", BAD_SCENARIOS)
def test_bad_scenario_exits_2_with_one_line(capsys, write_yaml, name):
    text, expected = BAD_SCENARIOS[name]
    path = write_yaml("bad.yaml", text)
    status, out, err = run_cli(capsys, "simulate", path, "--lang", "en")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and path in err and expected in err, err


def test_press_power_with_a_switch_is_refused(capsys, write_yaml):
    path = write_yaml("s.yaml", "until: 10\nconfig: {power: {control: switch}}\nevents:\n  - {at: 1, press: power}\n")
    status, _, err = run_cli(capsys, "simulate", path)
    assert status == 2 and "utilisez `switch: on` ou `switch: off`" in err  # French by default
    status, _, err = run_cli(capsys, "simulate", path, "--lang", "en")
    assert status == 2 and "use `switch: on` or `switch: off`" in err


BAD_CONFIGS = {
    "unknown key": ("auction:\n  secs: 5\n", "auction.secs: unknown key"),
    "unknown section": ("sound: loud\n", "sound: unknown key"),
    "wrong type": ("auction:\n  seconds: fifty\n", "auction.seconds: expected a number"),
    "boolean is not a number": ("game:\n  minutes: yes\n", "game.minutes: expected a number or null"),
    "negative time": ("build:\n  spin_seconds: -1\n", "build.spin_seconds: expected a number of at least 0"),
    "zero auction": ("auction:\n  seconds: 0\n", "auction.seconds: expected a number greater than 0"),
    "all weights zero": ("build:\n  weights: {1: 0, 2: 0, 3: 0, station: 0}\n", "build.weights: expected at least one"),
    "unknown weight": ("build:\n  weights: {4: 10}\n", "build.weights.4: unknown build result"),
    "warning longer than the auction": ("auction:\n  seconds: 10\n  warning_seconds: 12\n", "auction.warning_seconds"),
    "final warning longer than the game": (
        "game:\n  minutes: 3\n  final_warning_minutes: 5\n",
        "final_warning_minutes",
    ),
    "bad language": ("language: de\n", "language: expected one of fr, en"),
    "bad control": ("power:\n  control: toggle\n", "power.control: expected one of button, switch"),
    "huge number": ("game:\n  minutes: 99999999999\n", "game.minutes: expected at most"),
    "section not a mapping": ("auction: 50\n", "auction: expected a mapping"),
    "binary garbage": (b"\x00\x01\xff\xfe", "binary data"),
}


@pytest.mark.parametrize("name", BAD_CONFIGS)
def test_bad_config_exits_2_naming_file_and_key(capsys, write_yaml, tmp_path, name):
    text, expected = BAD_CONFIGS[name]
    if isinstance(text, bytes):
        config = tmp_path / "bad-config.yaml"
        config.write_bytes(text)
        config = str(config)
    else:
        config = write_yaml("bad-config.yaml", text)
    status, out, err = run_cli(capsys, "simulate", write_yaml("s.yaml", AUCTION), "--config", config, "--lang", "en")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and config in err and expected in err, err


def test_missing_config_file(capsys, write_yaml, tmp_path):
    missing = str(tmp_path / "nope.yaml")
    status, _, err = run_cli(capsys, "simulate", write_yaml("s.yaml", AUCTION), "--config", missing, "--lang", "en")
    assert status == 2 and err == f"monopoly-city: {missing}: no such configuration file\n"


def test_partial_weights_keep_the_other_defaults(capsys, write_yaml):
    config = write_yaml("c.yaml", "build:\n  weights: {station: 0}\n")
    status, _, err = run_cli(capsys, "simulate", write_yaml("s.yaml", AUCTION), "--config", config)
    assert status == 0 and err == ""


def test_python_dash_m_and_the_demo_scenario():
    """The module entry point runs the demo of `make run` and prints no traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "unit", "simulate", str(ROOT / "docs/examples/demo-game.yaml")],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[-1]["t"] <= 240 and [line["state"] for line in lines if line["kind"] == "state"][-1] == "time_up"
    assert result.stderr == ""
