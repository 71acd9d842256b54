"""Scenario files: scripted button presses on a timeline (see docs/simulate.md).

A scenario is read in two steps: :func:`load` checks its own shape, and
:meth:`Scenario.steps` turns its events into timed inputs once the
configuration is known (whether ``power`` is a push button or a switch decides
which events are allowed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from unit import fields, yamlfile
from unit.core import BUTTONS, Button, Config, Event, Pressed, Released, Switched
from unit.core.settings import PowerControl
from unit.errors import Text, UserError

PRESS_SECONDS = 0.1  # a `press` is released this long after it starts
MAX_SECONDS = 10_000_000.0  # about 115 days of virtual time
KEYS = ("until", "seed", "config", "events")


@dataclass(frozen=True)
class Action:
    """One scripted event as written: ``press``, ``hold`` (for ``seconds``) or ``switch``."""

    at: float
    kind: str
    target: str  # a button, or "on"/"off" for a switch
    seconds: float = 0.0


@dataclass(frozen=True)
class Step:
    """One input event at a virtual time."""

    at: float
    event: Event


@dataclass(frozen=True)
class Scenario:
    source: str
    until: float
    seed: int | None
    config: dict[str, Any] | None
    actions: tuple[Action, ...]

    def steps(self, config: Config) -> list[Step]:
        """The inputs in time order; checks each action against ``config``."""
        steps: list[tuple[float, int, Event]] = []
        held_until: dict[str, float] = {}
        for i, action in enumerate(self.actions):
            where = f"{self.source}: events[{i}]"
            if action.kind == "switch":
                if config.power.control != PowerControl.SWITCH:
                    raise UserError(where, Text("errors.switch_needs_switch"))
                steps.append((action.at, len(steps), Switched(action.target == "on")))
                continue
            if action.target == "power" and config.power.control == PowerControl.SWITCH:
                raise UserError(where, Text("errors.power_is_a_switch"))
            if action.at < held_until.get(action.target, -1.0):
                raise UserError(
                    where, Text("errors.still_held", button=action.target, until=f"{held_until[action.target]:g}")
                )
            length = PRESS_SECONDS if action.kind == "press" else action.seconds
            held_until[action.target] = action.at + length
            steps.append((action.at, len(steps), Pressed(Button(action.target))))
            steps.append((action.at + length, len(steps), Released(Button(action.target))))
        steps.sort(key=lambda s: (s[0], s[1]))
        return [Step(at, event) for at, _, event in steps]


def load(path: str) -> Scenario:
    return parse(yamlfile.load(path, what="scenario"), str(path))


def parse(data: Any, source: str) -> Scenario:
    if not isinstance(data, dict):
        raise UserError(source, Text("errors.expected_scenario", got=fields.got(data)))
    for key in data:
        if key not in KEYS:
            raise fields.unknown_key(f"{source}: {key}", key, KEYS)
    if "until" not in data:
        raise UserError(source, Text("errors.missing_until"))
    until = _seconds(data["until"], f"{source}: until", positive=True)
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise UserError(f"{source}: seed", Text("errors.expected_whole_number", got=fields.got(seed)))
    config = data.get("config")
    if config is not None and not isinstance(config, dict):
        raise UserError(f"{source}: config", Text("errors.expected_settings", got=fields.got(config)))
    events = data.get("events", [])
    if events is None:
        events = []
    if not isinstance(events, list):
        raise UserError(f"{source}: events", Text("errors.expected_events", got=fields.got(events)))
    actions: list[Action] = []
    for i, raw in enumerate(events):
        action = _action(raw, f"{source}: events[{i}]")
        if actions and action.at < actions[-1].at:
            raise UserError(
                f"{source}: events[{i}]", Text("errors.out_of_order", at=f"{action.at:g}", before=f"{actions[-1].at:g}")
            )
        if action.at > until:
            raise UserError(
                f"{source}: events[{i}]", Text("errors.after_until", at=f"{action.at:g}", until=f"{until:g}")
            )
        actions.append(action)
    return Scenario(source, until, seed, config, tuple(actions))


def _action(raw: Any, where: str) -> Action:
    if not isinstance(raw, dict):
        raise UserError(where, Text("errors.expected_event", got=fields.got(raw)))
    for key in raw:
        if key not in ("at", "press", "hold", "switch", "seconds"):
            raise UserError(f"{where}.{key}", Text("errors.unknown_event_key"))
    kinds = [k for k in ("press", "hold", "switch") if k in raw]
    if len(kinds) != 1:
        raise UserError(where, Text("errors.one_action"))
    if "at" not in raw:
        raise UserError(where, Text("errors.missing_at"))
    at = _seconds(raw["at"], f"{where}.at")
    kind = kinds[0]
    value = raw[kind]
    if kind != "hold" and "seconds" in raw:
        raise UserError(f"{where}.seconds", Text("errors.seconds_only_hold"))
    if kind == "switch":
        # YAML 1.1 reads a bare on/off as a boolean.
        position = (
            {True: "on", False: "off", "on": "on", "off": "off"}.get(value) if isinstance(value, (bool, str)) else None
        )
        if position is None:
            raise UserError(f"{where}.switch", Text("errors.expected_on_off", got=fields.got(value)))
        return Action(at, kind, position)
    if value not in BUTTONS:
        raise UserError(f"{where}.{kind}", Text("errors.unknown_button", got=fields.got(value)))
    if kind == "press":
        return Action(at, kind, value)
    if "seconds" not in raw:
        raise UserError(where, Text("errors.hold_needs_seconds"))
    return Action(at, kind, value, _seconds(raw["seconds"], f"{where}.seconds", positive=True))


def _seconds(value: Any, where: str, *, positive: bool = False) -> float:
    return fields.seconds(value, where, maximum=MAX_SECONDS, positive=positive)
