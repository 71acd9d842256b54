"""The game clock and the unit's deadlines: pure arithmetic on absolute times.

Every time here is an absolute reading of one monotonic clock (real or
virtual). Each next event is computed from the fixed start or end of the game,
never by adding intervals to the previous event, so nothing drifts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, TypeVar

HOUR = 3600.0
#: Times closer than this are the same instant (float sums of deadlines).
EPSILON = 1e-6


def ceil_seconds(seconds: float) -> int:
    """Whole seconds left, rounded up, robust to float noise (59.9999999 -> 60)."""
    return max(0, math.ceil(round(seconds, 6)))


def final_beep_step(remaining: int) -> int:
    """Seconds between final-minutes beeps when ``remaining`` seconds are left.

    Every 60 s, then every 30 s in the last 2 minutes, every 10 s in the last
    minute and every second in the last 10 s: the gaps never grow.
    """
    if remaining > 120:
        return 60
    if remaining > 60:
        return 30
    if remaining > 10:
        return 10
    return 1


@dataclass(frozen=True)
class GameClock:
    """One game: when its clock started and how long it lasts (``None``: untimed)."""

    start: float
    length: float | None
    final_warning: float = 0.0  # seconds before the end when the beeps begin

    @property
    def timed(self) -> bool:
        return self.length is not None

    @property
    def end(self) -> float | None:
        return None if self.length is None else self.start + self.length

    def played(self, now: float) -> float:
        return max(0.0, now - self.start)

    # What the screen shows: the clock rounded as it is displayed.

    def shown(self, now: float) -> int:
        """Seconds left (rounded up: minutes, then seconds in the last minute), or minutes played."""
        if self.end is None:
            return int(round(self.played(now), 6) // 60) * 60
        left = max(0.0, round(self.end - now, 6))
        if left > 60:
            return math.ceil(left / 60) * 60
        return math.ceil(left)

    def next_change(self, now: float) -> float | None:
        """When :meth:`shown` next changes, strictly after ``now``."""
        if self.end is None:
            return self.start + (int(round(self.played(now), 6) // 60) + 1) * 60
        left = round(self.end - now, 6)
        if left <= 0:
            return None
        if left > 60:
            return self.end - (math.ceil(left / 60) - 1) * 60
        return self.end - (math.ceil(left) - 1)

    # What the buzzer marks.

    def next_hour_mark(self, now: float) -> float | None:
        """The next full hour played strictly after ``now``, if it comes before the end."""
        k = int(round(self.played(now), 6) // HOUR) + 1
        mark = self.start + k * HOUR
        if self.end is not None and mark >= self.end - EPSILON:
            return None
        return mark

    def next_final_beep(self, now: float) -> float | None:
        """The next beep of the final minutes strictly after ``now``."""
        if self.end is None or self.final_warning <= 0:
            return None
        below = ceil_seconds(self.end - now) - 1  # whole seconds left at the next candidate
        remaining = min(below, int(self.final_warning))
        if remaining <= 0:
            return None
        remaining -= remaining % final_beep_step(remaining)
        return self.end - remaining


def spin_offsets(seconds: float, steps_per_second: int = 8, slow_down: float = 4.0) -> list[float]:
    """When each step of the build spin happens, from its start.

    The gaps grow geometrically (the last ``slow_down`` times the first), like a
    ring of lights running down; the last step is exactly at ``seconds``.
    """
    if seconds <= 0:
        return []
    n = max(1, round(seconds * steps_per_second))
    ratio = slow_down ** (1 / (n - 1)) if n > 1 else 1.0
    gaps = [ratio**i for i in range(n)]
    scale = seconds / sum(gaps)
    offsets: list[float] = []
    total = 0.0
    for gap in gaps:
        total += gap * scale
        offsets.append(total)
    offsets[-1] = seconds
    return offsets


K = TypeVar("K", bound=str)


class Deadlines(Generic[K]):
    """Named absolute deadlines; the earliest is due first, ties broken by ``order``."""

    def __init__(self, order: tuple[K, ...]):
        self._rank = {name: i for i, name in enumerate(order)}
        self._at: dict[K, float] = {}

    def set(self, name: K, at: float | None) -> None:
        if at is None:
            self._at.pop(name, None)
        else:
            self._at[name] = at

    def cancel(self, *names: K) -> None:
        for name in names:
            self._at.pop(name, None)

    def cancel_all_but(self, *kept: K) -> None:
        self._at = {n: t for n, t in self._at.items() if n in kept}

    def active(self, name: K) -> bool:
        return name in self._at

    def next(self) -> tuple[K, float] | None:
        """The earliest deadline and its time; of several at that very time, the first in ``order``.

        The runtime asks at every wake-up: the earliest time is found without a call per deadline, the
        order consulted only on a tie.
        """
        if not self._at:
            return None
        at = min(self._at.values())
        tied = [name for name, t in self._at.items() if t == at]
        name = tied[0] if len(tied) == 1 else min(tied, key=self._rank.__getitem__)
        return name, at
