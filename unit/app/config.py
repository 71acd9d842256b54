"""The unit's configuration: shipped defaults, overridden by files, validated once.

The defaults live in ``defaults.yaml`` inside the package. Each override layer
(a scenario's ``config:`` block, a ``--config`` file) may set any subset of the
keys; layers are merged in order and the result is checked once. A problem is
reported as a :class:`~unit.errors.UserError` naming the layer (file), the key
and what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from unit import yamlfile
from unit.errors import UserError

BUILD_RESULTS = (1, 2, 3, "station")
DEFAULTS_NAME = "unit/app/defaults.yaml"


# --- the checked configuration ---------------------------------------------------------


@dataclass(frozen=True)
class GameConfig:
    minutes: float | None
    final_warning_minutes: float

    @property
    def seconds(self) -> float | None:
        return None if self.minutes is None else self.minutes * 60


@dataclass(frozen=True)
class AuctionConfig:
    seconds: float
    warning_seconds: float
    cancel_hold_seconds: float


@dataclass(frozen=True)
class BuildConfig:
    weights: dict[int | str, float]
    spin_seconds: float
    show_seconds: float


@dataclass(frozen=True)
class PowerConfig:
    control: str
    shutdown_hold_seconds: float
    shutdown_command: str


@dataclass(frozen=True)
class Config:
    language: str
    game: GameConfig
    auction: AuctionConfig
    build: BuildConfig
    power: PowerConfig
    raw: dict  # the merged mapping, for sections other modules read themselves


# --- the schema: one checker per key ------------------------------------------------------

Checker = Callable[[Any, str], Any]


def number(*, minimum: float = 0, positive: bool = False, maximum: float, nullable: bool = False) -> Checker:
    """A real number in a range (booleans are not numbers here, though YAML's are ints)."""

    def check(value: Any, key: str) -> Any:
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            expected = "a number" + (" or null" if nullable else "")
            raise _Bad(key, f"expected {expected}, got {yamlfile.type_name(value)}")
        if positive and value <= 0:
            raise _Bad(key, f"expected a number greater than 0, got {value!r}")
        if value < minimum:
            raise _Bad(key, f"expected a number of at least {minimum}, got {value!r}")
        if value > maximum:
            raise _Bad(key, f"expected at most {maximum}, got {value!r}")
        return value

    return check


def integer(*, minimum: int, maximum: int) -> Checker:
    def check(value: Any, key: str) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(key, f"expected a whole number, got {yamlfile.type_name(value)}")
        if not minimum <= value <= maximum:
            raise _Bad(key, f"expected a whole number from {minimum} to {maximum}, got {value}")
        return value

    return check


def text(value: Any, key: str) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(key, f"expected a non-empty text, got {yamlfile.type_name(value)}")
    if not value.isprintable():  # a newline or an escape code in a shell command is never meant
        raise _Bad(key, f"expected one line without control characters, got {yamlfile.type_name(value)}")
    return value


def choice(*options: str) -> Checker:
    def check(value: Any, key: str) -> Any:
        if value not in options:
            raise _Bad(key, f"expected one of {', '.join(options)}, got {yamlfile.type_name(value)}")
        return value

    return check


def weights(value: Any, key: str) -> dict:
    """Build odds: a mapping from 1, 2, 3, station to non-negative numbers."""
    if not isinstance(value, dict):
        raise _Bad(
            key, f"expected a mapping like {{1: 25, 2: 25, 3: 25, station: 25}}, got {yamlfile.type_name(value)}"
        )
    out: dict[int | str, float] = {}
    for name, weight in value.items():
        result = _build_result(name)
        if result is None:
            raise _Bad(f"{key}.{name}", "unknown build result (expected 1, 2, 3 or station)")
        out[result] = number(maximum=1e6)(weight, f"{key}.{name}")
    return out


def _build_result(name: Any) -> int | str | None:
    if isinstance(name, bool):
        return None
    if name in (1, 2, 3, "station"):
        return name
    if name in ("1", "2", "3"):
        return int(name)
    return None


HOUR = 60.0
SCHEMA: dict[str, Any] = {
    "language": choice("fr", "en"),
    "game": {
        "minutes": number(positive=True, maximum=7 * 24 * HOUR, nullable=True),
        "final_warning_minutes": number(maximum=7 * 24 * HOUR),
    },
    "auction": {
        "seconds": number(positive=True, maximum=3600),
        "warning_seconds": number(maximum=3600),
        "cancel_hold_seconds": number(positive=True, maximum=60),
    },
    "build": {
        "weights": weights,
        "spin_seconds": number(maximum=60),
        "show_seconds": number(positive=True, maximum=3600),
    },
    "power": {
        "control": choice("button", "switch"),
        "shutdown_hold_seconds": number(positive=True, maximum=60),
        "shutdown_command": text,
    },
    "pins": {name: integer(minimum=0, maximum=27) for name in ("power", "auction", "build", "led", "buzzer")},
    "buttons": {"bounce_seconds": number(maximum=0.5)},
    "buzzer": {
        "type": choice("passive", "active"),
        "mid_tone_hz": number(positive=True, maximum=10_000),
        "octaves": integer(minimum=1, maximum=3),
    },
    "display": {
        "driver": choice("ssd1306", "sh1106"),
        "i2c_port": integer(minimum=0, maximum=99),
        "i2c_address": integer(minimum=0x03, maximum=0x77),
        "rotate": integer(minimum=0, maximum=3),
        "retry_seconds": number(positive=True, maximum=3600),
    },
}


def buzzer_problem(buzzer: dict) -> str | None:
    """Why a passive buzzer with these settings could not play every tone of the unit, or None.

    gpiozero's TonalBuzzer plays from ``octaves`` below to ``octaves`` above ``mid_tone_hz``, rounded to
    MIDI notes whose names stay within A0..G9; a tone outside would raise in the buzzer's thread.
    """
    from unit.core.sounds import SOUNDS  # here: unit.core imports this module

    if buzzer["type"] != "passive":
        return None
    middle = round(12 * math.log2(buzzer["mid_tone_hz"] / 440) + 69)
    low, high = middle - 12 * buzzer["octaves"], middle + 12 * buzzer["octaves"]
    needed = [hz for tones in SOUNDS.values() for hz, _ in tones if hz > 0]
    octaves = f"{buzzer['octaves']} octave{'s' if buzzer['octaves'] > 1 else ''}"
    if low < 12 or high > 127:
        return f"mid_tone_hz {buzzer['mid_tone_hz']:g} with {octaves} reaches beyond the notes gpiozero plays (A0-G9)"
    lowest, highest = (440 * 2 ** ((note - 69) / 12) for note in (low, high))
    if lowest <= min(needed) and max(needed) <= highest:
        return None
    return (
        f"mid_tone_hz {buzzer['mid_tone_hz']:g} with {octaves} plays {lowest:.0f} to "
        f"{highest:.0f} Hz; the unit's sounds need {min(needed)} to {max(needed)} Hz"
    )


class _Bad(Exception):
    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key
        self.message = message


# --- loading -------------------------------------------------------------------------------


def defaults() -> dict:
    text = resources.files("unit.app").joinpath("defaults.yaml").read_text(encoding="utf-8")
    return yamlfile.parse(text, DEFAULTS_NAME, what="configuration")


class Layers:
    """Override layers merged over the defaults, remembering who set each key."""

    def __init__(self) -> None:
        self.merged: dict = {}
        self.origin: dict[str, str] = {}
        self.add(defaults(), DEFAULTS_NAME)

    def add(self, overrides: Any, source: str) -> None:
        """Check ``overrides`` against the schema and merge it in; ``source`` names it in errors."""
        try:
            self._merge(self.merged, overrides, SCHEMA, "", source)
        except _Bad as bad:
            raise UserError(f"{source}: {bad.key}" if bad.key else source, bad.message) from None

    def _merge(self, into: dict, overrides: Any, schema: dict, prefix: str, source: str) -> None:
        if not isinstance(overrides, dict):
            raise _Bad(prefix.rstrip("."), f"expected a mapping of settings, got {yamlfile.type_name(overrides)}")
        for key, value in overrides.items():
            path = f"{prefix}{key}"
            if key not in schema:
                known = ", ".join(schema)
                raise _Bad(path, f"unknown key (expected one of: {known})")
            rule = schema[key]
            if isinstance(rule, dict):
                self._merge(into.setdefault(key, {}), value, rule, path + ".", source)
            else:
                checked = rule(value, path)
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
                f"expected at most game.minutes ({game['minutes']}), got {game['final_warning_minutes']}",
            )
        if auction["warning_seconds"] >= auction["seconds"]:
            keys = ("auction.warning_seconds", "auction.seconds")
            raise UserError(
                f"{self.blame(*keys)}: auction.warning_seconds",
                f"expected less than auction.seconds ({auction['seconds']}), got {auction['warning_seconds']}",
            )
        by_pin: dict[int, str] = {}
        for name, pin in m["pins"].items():
            if pin in by_pin:
                keys = (f"pins.{name}", f"pins.{by_pin[pin]}")
                raise UserError(f"{self.blame(*keys)}: pins.{name}", f"GPIO{pin} is already pins.{by_pin[pin]}")
            by_pin[pin] = name
        problem = buzzer_problem(m["buzzer"])
        if problem:
            raise UserError(f"{self.blame('buzzer.mid_tone_hz', 'buzzer.octaves')}: buzzer", problem)
        odds = {result: build["weights"].get(result, 0) for result in BUILD_RESULTS}
        if not any(odds.values()):
            raise UserError(
                f"{self.blame('build.weights')}: build.weights", "expected at least one weight above 0, all are 0"
            )
        return Config(
            language=m["language"],
            game=GameConfig(**game),
            auction=AuctionConfig(**auction),
            build=BuildConfig(weights=odds, spin_seconds=build["spin_seconds"], show_seconds=build["show_seconds"]),
            power=PowerConfig(**power),
            raw=m,
        )


def load(*layers: tuple[Any, str]) -> Config:
    """Merge ``(mapping, source name)`` layers over the defaults and check the result."""
    merged = Layers()
    for overrides, source in layers:
        merged.add(overrides, source)
    return merged.build()


def load_file(path: str) -> tuple[Any, str]:
    """Read a configuration file as one layer for :func:`load`."""
    return yamlfile.load(path, what="configuration file"), str(path)
