"""The pure core: the state machine, its inputs and outputs, the game clock, the views and the sounds.

Standard library only, and no I/O: time comes in as an argument, outputs go out as
plain values (a test reads every import to keep it so).
"""

from unit.core.events import (
    BUTTONS,
    BuildDrawn,
    Button,
    DisplayChanged,
    Event,
    LedChanged,
    LedMode,
    Output,
    Pressed,
    Released,
    ScreenChanged,
    SettingsChanged,
    SoundPlayed,
    State,
    StateChanged,
    Switched,
    SystemRequested,
)
from unit.core.machine import Unit
from unit.core.settings import Config

__all__ = [
    "BUTTONS",
    "Button",
    "BuildDrawn",
    "Config",
    "DisplayChanged",
    "LedMode",
    "State",
    "Event",
    "LedChanged",
    "Output",
    "Pressed",
    "Released",
    "ScreenChanged",
    "SettingsChanged",
    "SoundPlayed",
    "StateChanged",
    "Switched",
    "SystemRequested",
    "Unit",
]
