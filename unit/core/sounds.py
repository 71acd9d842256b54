"""Every sound the unit makes, as tones a buzzer can play.

A sound is a name and a tuple of ``(frequency in Hz, milliseconds)`` pairs; 0 Hz
is a rest. The names are part of the ``simulate`` trace (see docs/simulate.md):
keep them stable. The notes sit between 1 and 4 kHz, where a small piezo is
loudest.
"""

from __future__ import annotations

A6, C7, E7, G7, A7 = 1760, 2093, 2637, 3136, 3520
REST = 0

Tones = tuple[tuple[int, int], ...]

SOUNDS: dict[str, Tones] = {
    # the power control
    "power_on": ((C7, 80), (E7, 80), (G7, 120)),
    "power_off": ((G7, 80), (E7, 80), (C7, 120)),
    "shutdown": ((G7, 150), (E7, 150), (C7, 150), (A6, 300)),
    # auctions and deals
    "auction_start": ((A6, 80), (REST, 40), (C7, 120)),
    "warning": ((A7, 100), (REST, 50), (A7, 100), (REST, 50), (A7, 100)),
    "tick": ((E7, 30),),
    "sold": ((C7, 900),),
    "cancelled": ((E7, 100), (REST, 50), (A6, 250)),
    # the build draw
    "spin_tick": ((G7, 8),),
    "build_result": ((C7, 60), (E7, 60), (G7, 60), (A7, 200)),
    # the game clock
    "hour": ((G7, 200), (REST, 100), (E7, 200), (REST, 100), (C7, 400)),
    "final_beep": ((A7, 60),),
    "game_over": ((C7, 200), (E7, 200), (G7, 200), (A7, 300), (REST, 100), (G7, 150), (A7, 800)),
}
