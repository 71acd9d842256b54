"""Shared helpers: run the unit on a virtual clock and read what it did."""

from __future__ import annotations

import io
import json
import os

import pytest
from hypothesis import settings

# Random play: 1000 sequences in `make test`, 10,000 in `make soak` (HYPOTHESIS_PROFILE=soak).
settings.register_profile("default", max_examples=1000, deadline=None)
settings.register_profile("soak", max_examples=10_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# No display and no sound card here: SDL and gpiozero must never look for real ones.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

from unit.app import config as configuration  # noqa: E402
from unit.app import scenario as scenarios  # noqa: E402
from unit.app.simulate import simulate  # noqa: E402
from unit.app.trace import TraceWriter  # noqa: E402


def simulate_lines(until: float, events: list[dict], config: dict | None = None, seed: int = 0) -> str:
    """The exact text ``monopoly-city simulate`` prints for this scenario."""
    data = {"until": until, "events": events, "seed": seed}
    if config:
        data["config"] = config
    scenario = scenarios.parse(data, "test-scenario")
    cfg = configuration.load((scenario.config, "test-scenario: config")) if config else configuration.load()
    out = io.StringIO()
    simulate(cfg, scenario.steps(cfg), scenario.until, scenario.seed, TraceWriter(out, cfg.language).write)
    return out.getvalue()


def simulate_records(until: float, events: list[dict], config: dict | None = None, seed: int = 0) -> list[dict]:
    return [json.loads(line) for line in simulate_lines(until, events, config, seed).splitlines()]


def kinds(records: list[dict], kind: str, **match) -> list[dict]:
    """The records of one kind, optionally with some fields equal to given values."""
    return [r for r in records if r["kind"] == kind and all(r.get(k) == v for k, v in match.items())]


def times(records: list[dict], kind: str, **match) -> list[float]:
    return [r["t"] for r in kinds(records, kind, **match)]


@pytest.fixture
def write_yaml(tmp_path):
    """Write a text file under tmp_path and return its path as a string."""

    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def cli_json(capsys, *argv):
    """Run a ``monopoly-city`` command with --json: its status, its parsed output and its stderr."""
    from unit.cli import main

    status = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else None), err
