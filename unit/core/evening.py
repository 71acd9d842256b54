"""The evening's counts: what the summary at the end of the game shows.

Kept by the core as the game goes, saved with the game in progress (so a power
cut does not lose them) and read back as a plain mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from unit.core.settings import BUILD_RESULTS, BuildResult


@dataclass(frozen=True)
class Tally:
    """Auctions and deals started, sold and cancelled; build draws per result; sold in a row."""

    auctions: int = 0
    sold: int = 0
    cancelled: int = 0
    builds: tuple[int, ...] = (0,) * len(BUILD_RESULTS)  # in the order of BUILD_RESULTS
    streak: int = 0  # sold in a row, now
    longest_streak: int = 0

    def started(self) -> Tally:
        return replace(self, auctions=self.auctions + 1)

    def ended_sold(self) -> Tally:
        streak = self.streak + 1
        return replace(self, sold=self.sold + 1, streak=streak, longest_streak=max(streak, self.longest_streak))

    def ended_cancelled(self) -> Tally:
        return replace(self, cancelled=self.cancelled + 1, streak=0)

    def drew(self, result: BuildResult) -> Tally:
        index = BUILD_RESULTS.index(result)
        builds = tuple(n + (i == index) for i, n in enumerate(self.builds))
        return replace(self, builds=builds)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (the ``counts`` of the saved game)."""
        return {
            "auctions": self.auctions,
            "sold": self.sold,
            "cancelled": self.cancelled,
            "builds": {str(r): n for r, n in zip(BUILD_RESULTS, self.builds, strict=True)},
            "streak": self.streak,
            "longest_streak": self.longest_streak,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Tally:
        """Read :meth:`as_dict`'s mapping back; a missing or odd count is 0 (an older saved game has none)."""
        if not isinstance(data, dict):
            return cls()

        def count(value: Any) -> int:
            return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**6 else 0

        raw = data.get("builds")
        builds: dict[str, Any] = raw if isinstance(raw, dict) else {}
        return cls(
            auctions=count(data.get("auctions")),
            sold=count(data.get("sold")),
            cancelled=count(data.get("cancelled")),
            builds=tuple(count(builds.get(str(r))) for r in BUILD_RESULTS),
            streak=count(data.get("streak")),
            longest_streak=count(data.get("longest_streak")),
        )
