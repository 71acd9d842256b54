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


class PressedLevel(StrEnum):
    """The level a pressed button gives on its pin."""

    LOW = "low"  # a button to ground, with the Pi's internal pull-up (the wiring of hardware/README.md)
    HIGH = "high"  # a button to 3.3 V (internal pull-down) or a touch module (TTP223) that drives its output high


class DisplayDriver(StrEnum):
    SSD1306 = "ssd1306"
    SH1106 = "sh1106"


class Volume(StrEnum):
    """How loud the buzzer is: the PWM duty cycle on the Pi, the mixer's volume in the emulator."""

    OFF = "off"
    LOW = "low"
    HIGH = "high"


class Brightness(StrEnum):
    """The OLED's contrast."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@dataclass(frozen=True)
class GameSettings:
    """The game's length (``minutes``; None: untimed) and when its final minutes are announced."""

    minutes: float | None  # None: untimed
    final_warning_minutes: float

    @property
    def seconds(self) -> float | None:
        return None if self.minutes is None else self.minutes * 60


@dataclass(frozen=True)
class AuctionSettings:
    """An auction's length, its last seconds that warn, and how long ENCHÈRES is held to cancel."""

    seconds: float
    warning_seconds: float
    cancel_hold_seconds: float


@dataclass(frozen=True)
class BuildSettings:
    """CONSTRUCTION: how likely each result is, and how long the spin and the result show."""

    weights: MappingProxyType[BuildResult, float]  # every result, 0 for those never drawn
    spin_seconds: float
    show_seconds: float


@dataclass(frozen=True)
class PowerSettings:
    """ON/OFF: a push button or a switch, the long press that shuts down, and what it runs."""

    control: PowerControl
    shutdown_hold_seconds: float
    shutdown_command: str
    confirm_off: bool = True  # a push button asks « ÉTEINDRE ? » during a game
    confirm_seconds: float = 4.0  # a second press within this long switches off
    resume_within_minutes: float = 30.0  # a saved game resumes only after a shorter outage


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
    """The buttons' debounce time and the level a pressed one gives."""

    bounce_seconds: float
    pressed: PressedLevel = PressedLevel.LOW

    @property
    def pull_up(self) -> bool:
        """gpiozero's ``pull_up``: the internal pull-up for buttons to ground, else the pull-down."""
        return self.pressed == PressedLevel.LOW


@dataclass(frozen=True)
class BuzzerSettings:
    """The buzzer: which kind, the middle of its tones, its range in octaves, how loud."""

    type: BuzzerType
    mid_tone_hz: float
    octaves: int
    volume: Volume = Volume.HIGH


@dataclass(frozen=True)
class DisplaySettings:
    """The OLED: its driver, its I2C port and address, its rotation, its brightness, dimming and shift."""

    driver: DisplayDriver
    i2c_port: int
    i2c_address: int
    rotate: int
    retry_seconds: float
    brightness: Brightness = Brightness.HIGH
    dim_after_minutes: float = 10.0  # untouched this long, the screen dims
    shift_minutes: float = 3.0  # the picture moves by a pixel this often (against burn-in)


@dataclass(frozen=True)
class MenuSettings:
    """The settings menu on the device."""

    hold_seconds: float = 2.0  # hold ENCHÈRES this long on the welcome screen to open it
    leave_after_seconds: float = 30.0  # untouched this long, it closes (keeping every change)


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
    menu: MenuSettings = MenuSettings()
