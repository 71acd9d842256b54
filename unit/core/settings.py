"""The unit's settings as typed, frozen values: what the configuration loader produces.

Checked once when the configuration is loaded (unit/app/config.py); from then on
the core and every backend read these fields, never a YAML mapping.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Literal

#: What CONSTRUCTION can draw, in the order of the icons on the screen (written once, here).
BuildResult = Literal[1, 2, 3, "station"]
BUILD_RESULTS: tuple[BuildResult, ...] = (1, 2, 3, "station")


class PowerControl(StrEnum):
    BUTTON = "button"  # each press toggles
    SWITCH = "switch"  # a latching switch: its position is the state


class BuzzerType(StrEnum):
    PASSIVE = "passive"  # tones (gpiozero's TonalBuzzer)
    ACTIVE = "active"  # on and off only (gpiozero's Buzzer)


class DisplayDriver(StrEnum):
    SSD1306 = "ssd1306"
    SH1106 = "sh1106"


@dataclass(frozen=True)
class GameSettings:
    minutes: float | None  # None: untimed
    final_warning_minutes: float

    @property
    def seconds(self) -> float | None:
        return None if self.minutes is None else self.minutes * 60


@dataclass(frozen=True)
class AuctionSettings:
    seconds: float
    warning_seconds: float
    cancel_hold_seconds: float


@dataclass(frozen=True)
class BuildSettings:
    weights: MappingProxyType[BuildResult, float]  # every result, 0 for those never drawn
    spin_seconds: float
    show_seconds: float


@dataclass(frozen=True)
class PowerSettings:
    control: PowerControl
    shutdown_hold_seconds: float
    shutdown_command: str


@dataclass(frozen=True)
class PinSettings:
    """BCM numbers of the Raspberry Pi's wiring."""

    power: int
    auction: int
    build: int
    led: int
    buzzer: int


@dataclass(frozen=True)
class ButtonSettings:
    bounce_seconds: float


@dataclass(frozen=True)
class BuzzerSettings:
    type: BuzzerType
    mid_tone_hz: float
    octaves: int


@dataclass(frozen=True)
class DisplaySettings:
    driver: DisplayDriver
    i2c_port: int
    i2c_address: int
    rotate: int
    retry_seconds: float


@dataclass(frozen=True)
class Config:
    """Every setting of the unit, checked."""

    language: str
    game: GameSettings
    auction: AuctionSettings
    build: BuildSettings
    power: PowerSettings
    pins: PinSettings
    buttons: ButtonSettings
    buzzer: BuzzerSettings
    display: DisplaySettings
