"""The pure core: the state machine, its inputs and outputs, the game clock, the views and the sounds.

Standard library only, and no I/O: time comes in as an argument, outputs go out as
plain values (a test reads every import to keep it so).
"""

from unit.core.machine import (
    BUTTONS,
    BuildDrawn,
    Event,
    LedChanged,
    Output,
    Pressed,
    Released,
    ScreenChanged,
    SoundPlayed,
    StateChanged,
    Switched,
    SystemRequested,
    Unit,
)

__all__ = [
    "BUTTONS",
    "BuildDrawn",
    "Event",
    "LedChanged",
    "Output",
    "Pressed",
    "Released",
    "ScreenChanged",
    "SoundPlayed",
    "StateChanged",
    "Switched",
    "SystemRequested",
    "Unit",
]
