"""Every sound the unit makes, as tones a buzzer can play.

A sound is a name and a tuple of ``(frequency in Hz, milliseconds)`` pairs; 0 Hz
is a rest. The names are part of the ``simulate`` trace (see docs/simulate.md):
keep them stable. The notes sit between 1 and 4 kHz, where a small piezo is
loudest.
"""

from __future__ import annotations

from enum import StrEnum

A6, C7, E7, G7, A7 = 1760, 2093, 2637, 3136, 3520
REST = 0

Tones = tuple[tuple[int, int], ...]


class Sound(StrEnum):
    POWER_ON = "power_on"
    POWER_OFF = "power_off"
    SHUTDOWN = "shutdown"
    AUCTION_START = "auction_start"
    WARNING = "warning"
    TICK = "tick"
    SOLD = "sold"
    CANCELLED = "cancelled"
    SPIN_TICK = "spin_tick"
    BUILD_RESULT = "build_result"
    HOUR = "hour"
    FINAL_BEEP = "final_beep"
    GAME_OVER = "game_over"
    WELCOME = "welcome"
    CONFIRM = "confirm"
    CLICK = "click"


#: Every sound, by name (a test checks each has its tones).
SOUNDS: dict[Sound, Tones] = {
    # the power control
    Sound.POWER_ON: ((C7, 80), (E7, 80), (G7, 120)),
    Sound.POWER_OFF: ((G7, 80), (E7, 80), (C7, 120)),
    Sound.SHUTDOWN: ((G7, 150), (E7, 150), (C7, 150), (A6, 300)),
    # auctions and deals
    Sound.AUCTION_START: ((A6, 80), (REST, 40), (C7, 120)),
    Sound.WARNING: ((A7, 100), (REST, 50), (A7, 100), (REST, 50), (A7, 100)),
    Sound.TICK: ((E7, 30),),
    Sound.SOLD: ((C7, 900),),
    Sound.CANCELLED: ((E7, 100), (REST, 50), (A6, 250)),
    # the build draw
    Sound.SPIN_TICK: ((G7, 8),),
    Sound.BUILD_RESULT: ((C7, 60), (E7, 60), (G7, 60), (A7, 200)),
    # the game clock
    Sound.HOUR: ((G7, 200), (REST, 100), (E7, 200), (REST, 100), (C7, 400)),
    Sound.FINAL_BEEP: ((A7, 60),),
    Sound.GAME_OVER: ((C7, 200), (E7, 200), (G7, 200), (A7, 300), (REST, 100), (G7, 150), (A7, 800)),
    # the welcome screen, the question before switching off, a step in the settings menu
    Sound.WELCOME: ((G7, 90), (C7, 90), (E7, 90), (G7, 180)),
    Sound.CONFIRM: ((A6, 120), (REST, 60), (A6, 120)),
    Sound.CLICK: ((E7, 20),),
}
