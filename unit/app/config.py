"""The unit's configuration: shipped defaults, overridden by files, validated once.

The defaults live in ``defaults.yaml`` beside this module. Each override layer
(a scenario's ``config:`` block, a ``--config`` file) may set any subset of the
keys; layers are merged in order and the result is checked once, with the
shared validation vocabulary (:mod:`unit.fields`). A problem is reported as a
:class:`~unit.errors.UserError` naming the layer (file), the key and what was
expected. What comes out is a frozen :class:`~unit.core.settings.Config`: no
YAML mapping goes further than this module.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from functools import partial
from types import MappingProxyType
from typing import Any

from unit import fields, i18n, yamlfile
from unit.core.settings import (
    BUILD_RESULTS,
    AuctionSettings,
    Brightness,
    BuildResult,
    BuildSettings,
    ButtonSettings,
    BuzzerSettings,
    BuzzerType,
    Config,
    DisplayDriver,
    DisplaySettings,
    GameSettings,
    MenuSettings,
    PinSettings,
    PowerControl,
    PowerSettings,
    PressedLevel,
    Volume,
)
from unit.core.sounds import SOUNDS
from unit.errors import Text, UserError

__all__ = ["Config", "DEFAULTS_NAME", "Layers", "defaults", "load", "load_file"]

DEFAULTS_NAME = "unit/app/defaults.yaml"
MINUTES_IN_A_WEEK = 7 * 24 * 60.0

# --- the schema: one checker per key, from the shared vocabulary -----------------------------

Checker = Callable[[Any, str], Any]


def _weights(value: Any, where: str) -> dict[BuildResult, float]:
    """Build odds: a mapping from 1, 2, 3, station to non-negative numbers."""
    if not isinstance(value, dict):
        raise UserError(where, Text("errors.expected_weights", got=fields.got(value)))
    out: dict[BuildResult, float] = {}
    for name, weight in value.items():
        result = _build_result(name)
        if result is None:
            raise UserError(f"{where}.{name}", Text("errors.unknown_build_result"))
        checked = fields.number(weight, f"{where}.{name}", maximum=1e6)
        assert checked is not None  # not nullable
        out[result] = checked
    return out


def _build_result(name: Any) -> BuildResult | None:
    if isinstance(name, bool):
        return None
    for result in BUILD_RESULTS:
        if name == result or name == str(result):
            return result
    return None


def _integer(minimum: int, maximum: int) -> Checker:
    return partial(fields.integer, minimum=minimum, maximum=maximum)


def _number(**limits: Any) -> Checker:
    return partial(fields.number, **limits)


def _choice(options: Any) -> Checker:
    return partial(fields.choice, options=[str(o) for o in options])


SCHEMA: dict[str, Any] = {
    "language": _choice(i18n.languages()),
    "game": {
        "minutes": _number(positive=True, maximum=MINUTES_IN_A_WEEK, nullable=True),
        "final_warning_minutes": _number(maximum=MINUTES_IN_A_WEEK),
    },
    "auction": {
        "seconds": _number(positive=True, maximum=3600),
        "warning_seconds": _number(maximum=3600),
        "cancel_hold_seconds": _number(positive=True, maximum=60),
    },
    "build": {
        "weights": _weights,
        "spin_seconds": _number(maximum=60),
        "show_seconds": _number(positive=True, maximum=3600),
    },
    "power": {
        "control": _choice(PowerControl),
        "shutdown_hold_seconds": _number(positive=True, maximum=60),
        "shutdown_command": partial(fields.text, what="text", strip=False, one_line=True),
        "confirm_off": fields.boolean,
        "confirm_seconds": _number(positive=True, maximum=60),
        "resume_within_minutes": _number(maximum=MINUTES_IN_A_WEEK),
    },
    "pins": {name: _integer(0, 27) for name in ("power", "auction", "build", "led", "buzzer")},
    "buttons": {"bounce_seconds": _number(maximum=0.5), "pressed": _choice(PressedLevel)},
    "buzzer": {
        "type": _choice(BuzzerType),
        "mid_tone_hz": _number(positive=True, maximum=10_000),
        "octaves": _integer(1, 3),
        "volume": _choice(Volume),
    },
    "display": {
        "driver": _choice(DisplayDriver),
        "i2c_port": _integer(0, 99),
        "i2c_address": _integer(0x03, 0x77),
        "rotate": _integer(0, 3),
        "retry_seconds": _number(positive=True, minimum=0.05, maximum=3600),  # 1e-9 would spin a core
        "brightness": _choice(Brightness),
        "dim_after_minutes": _number(positive=True, maximum=MINUTES_IN_A_WEEK),
        "shift_minutes": _number(positive=True, minimum=0.1, maximum=MINUTES_IN_A_WEEK),  # idem
    },
    "menu": {
        "hold_seconds": _number(positive=True, maximum=60),
        "leave_after_seconds": _number(positive=True, maximum=3600),
    },
}


def buzzer_problem(buzzer: dict[str, Any]) -> Text | None:
    """Why a passive buzzer with these settings could not play every tone of the unit, or None.

    gpiozero's TonalBuzzer plays from ``octaves`` below to ``octaves`` above ``mid_tone_hz``, rounded to
    MIDI notes whose names stay within A0..G9; a tone outside would raise in the buzzer's thread.
    """
    if buzzer["type"] != BuzzerType.PASSIVE:
        return None
    middle = round(12 * math.log2(buzzer["mid_tone_hz"] / 440) + 69)
    low, high = middle - 12 * buzzer["octaves"], middle + 12 * buzzer["octaves"]
    needed = [hz for tones in SOUNDS.values() for hz, _ in tones if hz > 0]
    hz = f"{buzzer['mid_tone_hz']:g}"
    octaves = Text("errors.octave" if buzzer["octaves"] == 1 else "errors.octaves", n=buzzer["octaves"])
    if low < 12 or high > 127:
        return Text("errors.buzzer_beyond_notes", hz=hz, octaves=octaves)
    lowest, highest = (440 * 2 ** ((note - 69) / 12) for note in (low, high))
    if lowest <= min(needed) and max(needed) <= highest:
        return None
    return Text(
        "errors.buzzer_range",
        hz=hz,
        octaves=octaves,
        lowest=f"{lowest:.0f}",
        highest=f"{highest:.0f}",
        low=min(needed),
        high=max(needed),
    )


# --- loading -------------------------------------------------------------------------------


def defaults() -> dict[str, Any]:
    # A plain path beside this module: importlib.resources costs about 2 ms of CPU (20 ms on a tenth of a core).
    with open(os.path.join(os.path.dirname(__file__), "defaults.yaml"), encoding="utf-8") as file:
        text = file.read()
    data = yamlfile.parse(text, DEFAULTS_NAME, what="configuration")
    assert isinstance(data, dict), DEFAULTS_NAME
    return data


class Layers:
    """Override layers merged over the defaults, remembering who set each key."""

    def __init__(self) -> None:
        self.merged: dict[str, Any] = {}
        self.origin: dict[str, str] = {}
        self.add(defaults(), DEFAULTS_NAME)

    def add(self, overrides: Any, source: str) -> None:
        """Check ``overrides`` against the schema and merge it in; ``source`` names it in errors."""
        self._merge(self.merged, overrides, SCHEMA, "", source)

    def _merge(self, into: dict[str, Any], overrides: Any, schema: dict[str, Any], prefix: str, source: str) -> None:
        if not isinstance(overrides, dict):
            where = f"{source}: {prefix.rstrip('.')}" if prefix else source
            raise UserError(where, Text("errors.expected_settings", got=fields.got(overrides)))
        for key, value in overrides.items():
            path = f"{prefix}{key}"
            if key not in schema:
                raise fields.unknown_key(f"{source}: {path}", key, schema)
            rule = schema[key]
            if isinstance(rule, dict):
                self._merge(into.setdefault(key, {}), value, rule, path + ".", source)
            else:
                checked = rule(value, f"{source}: {path}")
                if isinstance(checked, dict):  # weights: a partial mapping keeps the other odds
                    checked = {**into.get(key, {}), **checked}
                into[key] = checked
                self.origin[path] = source

    def blame(self, *keys: str) -> str:
        """The last layer that set any of ``keys`` (layers are added in order of precedence)."""
        sources = [self.origin[k] for k in keys if k in self.origin]
        order = list(dict.fromkeys(self.origin.values()))
        return max(sources, key=order.index) if sources else DEFAULTS_NAME

    def build(self) -> Config:
        m = self.merged
        game, auction, build, power = m["game"], m["auction"], m["build"], m["power"]
        # Cross-key rules, blamed on the layer that set the keys involved.
        if game["minutes"] is not None and game["final_warning_minutes"] > game["minutes"]:
            keys = ("game.final_warning_minutes", "game.minutes")
            raise UserError(
                f"{self.blame(*keys)}: game.final_warning_minutes",
                Text("errors.final_warning_too_long", minutes=game["minutes"], value=game["final_warning_minutes"]),
            )
        if auction["warning_seconds"] >= auction["seconds"]:
            keys = ("auction.warning_seconds", "auction.seconds")
            raise UserError(
                f"{self.blame(*keys)}: auction.warning_seconds",
                Text("errors.warning_too_long", seconds=auction["seconds"], value=auction["warning_seconds"]),
            )
        by_pin: dict[int, str] = {}
        for name, pin in m["pins"].items():
            if pin in by_pin:
                keys = (f"pins.{name}", f"pins.{by_pin[pin]}")
                raise UserError(
                    f"{self.blame(*keys)}: pins.{name}", Text("errors.pin_twice", pin=pin, other=by_pin[pin])
                )
            by_pin[pin] = name
        problem = buzzer_problem(m["buzzer"])
        if problem:
            raise UserError(f"{self.blame('buzzer.mid_tone_hz', 'buzzer.octaves')}: buzzer", problem)
        odds = {result: build["weights"].get(result, 0) for result in BUILD_RESULTS}
        if not any(odds.values()):
            raise UserError(f"{self.blame('build.weights')}: build.weights", Text("errors.weights_all_zero"))
        buzzer, display = m["buzzer"], m["display"]
        return Config(
            language=m["language"],
            game=GameSettings(**game),
            auction=AuctionSettings(**auction),
            build=BuildSettings(MappingProxyType(odds), build["spin_seconds"], build["show_seconds"]),
            power=PowerSettings(
                PowerControl(power["control"]),
                power["shutdown_hold_seconds"],
                power["shutdown_command"],
                power["confirm_off"],
                power["confirm_seconds"],
                power["resume_within_minutes"],
            ),
            pins=PinSettings(**m["pins"]),
            buttons=ButtonSettings(m["buttons"]["bounce_seconds"], PressedLevel(m["buttons"]["pressed"])),
            buzzer=BuzzerSettings(
                BuzzerType(buzzer["type"]), buzzer["mid_tone_hz"], buzzer["octaves"], Volume(buzzer["volume"])
            ),
            display=DisplaySettings(
                DisplayDriver(display["driver"]),
                **{k: display[k] for k in DISPLAY_KEYS},
                brightness=Brightness(display["brightness"]),
                dim_after_minutes=display["dim_after_minutes"],
                shift_minutes=display["shift_minutes"],
            ),
            menu=MenuSettings(**m["menu"]),
        )


DISPLAY_KEYS = ("i2c_port", "i2c_address", "rotate", "retry_seconds")


def load(*layers: tuple[Any, str]) -> Config:
    """Merge ``(mapping, source name)`` layers over the defaults and check the result."""
    merged = Layers()
    for overrides, source in layers:
        merged.add(overrides, source)
    return merged.build()


def load_file(path: str) -> tuple[Any, str]:
    """Read a configuration file as one layer for :func:`load`."""
    return yamlfile.load(path, what="configuration file"), str(path)
