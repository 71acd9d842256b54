"""Helpers the tests share: run the unit on a virtual clock and read what it did; run a command.

Imported by name (``from helpers import simulate_records``); conftest.py keeps only
pytest's own setup (environment, hypothesis profiles, fixtures).
"""

from __future__ import annotations

import io
import json

from unit.app import config as configuration
from unit.app import scenario as scenarios
from unit.app.simulate import simulate
from unit.app.trace import TraceWriter


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


def cli_json(capsys, *argv):
    """Run a ``monopoly-city`` command with --json: its status, its parsed output and its stderr."""
    from unit.cli import main

    status = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else None), err
