"""The game in progress, kept on disk so that a pulled plug does not end it.

A knocked-out plug is not a decision to end the game: after a reboot the game
clock resumes with the time already played. A deliberate OFF (or a shutdown
from the button) clears the file. Writes are atomic (temporary file, fsync,
rename, fsync of the folder), so the file is always either the old game or the
new one, never half of each.

The time that passed while the power was off counts as played when the wall
clock can be trusted across the reboot (a Pi without RTC may come back with an
older time until NTP syncs); otherwise the time played at the last save is
used, at most a minute old.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = "monopoly-city-unit/game/1"
FILENAME = "game.json"
#: A longer gap between the last save and the restart is not a power cut: do not count it.
MAX_GAP = 12 * 3600.0


@dataclass(frozen=True)
class SavedGame:
    played: float  # seconds on the game clock at the save
    saved_at: float  # wall-clock time of the save
    minutes: float | None  # the game length then
    state: str  # what was running
    counts: dict[str, Any] = field(default_factory=dict)  # the evening's counts (none in older files)

    def elapsed(self, wall_now: float) -> float:
        """Seconds played now, counting the outage when the wall clock allows it."""
        gap = wall_now - self.saved_at
        if 0 <= gap <= MAX_GAP:
            return self.played + gap
        log.warning("the wall clock moved %+.0f s since the last save: resuming at the time saved", gap)
        return self.played


class GameStore:
    """``game.json`` in a state folder (``--state-dir``)."""

    def __init__(self, directory: str | Path, wall: Callable[[], float] = time.time):
        self.directory = Path(directory)
        self.path = self.directory / FILENAME
        self.wall = wall

    def load(self) -> SavedGame | None:
        """The saved game, or None; a corrupt or foreign file is ignored with one warning."""
        for stale in self.directory.glob(".game-*.tmp"):  # a write the power cut interrupted
            stale.unlink(missing_ok=True)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            log.warning("cannot read %s (%s): starting without it", self.path, error.strerror or error)
            return None
        try:
            data = json.loads(raw)
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
            game = SavedGame(
                played=float(data["played"]),
                saved_at=float(data["saved_at"]),
                minutes=None if data["minutes"] is None else float(data["minutes"]),
                state=str(data["state"]),
                counts=data["counts"] if isinstance(data.get("counts"), dict) else {},
            )
            if not (0 <= game.played < 1e7):
                raise ValueError(f"played {game.played!r} out of range")
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            log.warning("ignoring %s: not a saved game (%s)", self.path, error)
            return None
        return game

    def save(self, played: float, minutes: float | None, state: str, counts: dict[str, Any] | None = None) -> None:
        data = {"format": FORMAT, "played": round(played, 3), "saved_at": self.wall(), "minutes": minutes}
        data["state"] = state
        if counts is not None:
            data["counts"] = counts
        try:
            self._write_atomically(json.dumps(data).encode())
        except OSError as error:
            log.warning("cannot save the game in %s: %s", self.directory, error.strerror or error)

    def clear(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            return
        except OSError as error:
            log.warning("cannot remove %s: %s", self.path, error.strerror or error)
            return
        self._sync_directory()

    def _write_atomically(self, data: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".game-", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self._sync_directory()

    def _sync_directory(self) -> None:
        """Make the rename itself survive a power cut."""
        try:
            fd = os.open(self.directory, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)
