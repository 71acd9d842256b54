"""The core's inputs and outputs, as plain values.

Inputs (:data:`Event`) come from the buttons with the time they happened;
outputs (:data:`Output`) say what changed: the state, the LED, the screen, a
sound, a build draw, a request to the system. The values of the enums are
part of the ``simulate`` trace (docs/simulate.md): keep them stable.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from unit.core import sounds, views
from unit.core.menu import Choices
from unit.core.settings import Brightness, BuildResult


class Button(StrEnum):
    POWER = "power"
    AUCTION = "auction"
    BUILD = "build"


BUTTONS: tuple[Button, ...] = tuple(Button)


class State(StrEnum):
    OFF = "off"
    READY = "ready"
    COUNTDOWN = "countdown"
    WARNING = "warning"  # the last seconds of a countdown
    BUILD = "build"  # spinning, then showing the result
    TIME_UP = "time_up"
    SETTINGS = "settings"  # the settings menu, reached from the welcome screen


class LedMode(StrEnum):
    OFF = "off"
    ON = "on"
    BLINK = "blink"


class SystemAction(StrEnum):
    SHUTDOWN = "shutdown"
    # the box's own Wi-Fi on or off (the settings menu): the SD card's root helper does it (unit/boxwifi.py)
    WIFI_ON = "wifi-on"
    WIFI_OFF = "wifi-off"


# --- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pressed:
    """A button went down."""

    button: Button


@dataclass(frozen=True)
class Released:
    """A button came back up (how long it was held is the core's to time)."""

    button: Button


@dataclass(frozen=True)
class Switched:
    """The latching power switch moved (``power.control: switch``)."""

    on: bool


Event = Pressed | Released | Switched


# --- outputs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class StateChanged:
    """The unit entered ``state`` (the trace's ``state`` line)."""

    state: State


@dataclass(frozen=True)
class LedChanged:
    """The LED is off, on, or blinks at ``hz``."""

    mode: LedMode
    hz: float | None = None  # with BLINK


@dataclass(frozen=True)
class ScreenChanged:
    """The screen shows ``view`` from now on."""

    view: views.View


@dataclass(frozen=True)
class SoundPlayed:
    """The buzzer plays ``name`` (its tones: :data:`unit.core.sounds.SOUNDS`)."""

    name: sounds.Sound

    @property
    def tones(self) -> sounds.Tones:
        return sounds.SOUNDS[self.name]


@dataclass(frozen=True)
class BuildDrawn:
    """CONSTRUCTION drew ``result`` (counted in the evening's summary)."""

    result: BuildResult


@dataclass(frozen=True)
class SystemRequested:
    """The core asks the system for ``action``: a shutdown, the box's own Wi-Fi on or off."""

    action: SystemAction


@dataclass(frozen=True)
class DisplayChanged:
    """The screen's brightness, whether it is dimmed, and the picture's offset against burn-in."""

    brightness: Brightness
    dimmed: bool = False
    shift: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class SettingsChanged:
    """A choice made in the settings menu (``reset``: the factory settings back): save it, apply it."""

    choices: Choices
    reset: bool = False


Output = (
    StateChanged
    | LedChanged
    | ScreenChanged
    | SoundPlayed
    | BuildDrawn
    | SystemRequested
    | DisplayChanged
    | SettingsChanged
)

LED_OFF = LedChanged(LedMode.OFF)
