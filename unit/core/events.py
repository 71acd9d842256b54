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


# --- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pressed:
    button: Button


@dataclass(frozen=True)
class Released:
    button: Button


@dataclass(frozen=True)
class Switched:
    """The latching power switch moved (``power.control: switch``)."""

    on: bool


Event = Pressed | Released | Switched


# --- outputs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class StateChanged:
    state: State


@dataclass(frozen=True)
class LedChanged:
    mode: LedMode
    hz: float | None = None  # with BLINK


@dataclass(frozen=True)
class ScreenChanged:
    view: views.View


@dataclass(frozen=True)
class SoundPlayed:
    name: sounds.Sound

    @property
    def tones(self) -> sounds.Tones:
        return sounds.SOUNDS[self.name]


@dataclass(frozen=True)
class BuildDrawn:
    result: BuildResult


@dataclass(frozen=True)
class SystemRequested:
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
