"""The game in progress, kept on disk so that a pulled plug does not end it.

A knocked-out plug is not a decision to end the game: after a reboot the game
clock resumes with the time already played. A deliberate OFF (or a shutdown
from the button) clears the file. Writes are atomic (temporary file, fsync,
rename, fsync of the folder), so the file is always either the old game or the
new one, never half of each.

How long the unit was off counts as played only when it is known:

- the same boot (the program restarted, the Pi did not): the kernel's boot
  clock measures the gap exactly, whatever the wall clock did;
- another boot: the wall-clock gap, only if the wall clock was synchronised
  (NTP) both at the save and now. A Pi has no real-time clock: before NTP it
  runs on the time it last saw, hours behind, and a sync during the game
  would make the gap look hours long.

Otherwise the game resumes at the time played at the last save, which the
runtime makes every few seconds (:data:`unit.app.runtime.SAVE_EVERY`): a
resumed game may lose those seconds, it never jumps forward.

Nothing in the state folder can stop the unit from starting: a file that is
not a saved game (corrupt, foreign, nested too deeply, a FIFO, a link to a
device, a directory) is moved aside under a ``.bad-`` name, kept for diagnosis
and named in one log line, and the unit begins clean.
"""

from __future__ import annotations

import json
import logging
import math
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unit import files
from unit.files import sync_directory, write_atomically

log = logging.getLogger(__name__)

FORMAT = "monopoly-city-unit/game/1"
FILENAME = "game.json"
#: A longer gap between the last save and the restart is not a power cut: do not count it.
MAX_GAP = 12 * 3600.0
#: A saved game is about 200 bytes; anything much larger is not one (and is never read whole).
MAX_BYTES = 64 * 1024
#: Files moved aside are kept for diagnosis, the most recent few only.
KEEP_BAD = 3


def boot_id() -> str | None:
    """This boot's random id (Linux); the same id means the boot clock still counts from the same zero."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as file:
            return file.read(64).strip() or None
    except OSError:
        return None


def boot_clock() -> float:
    """Seconds since boot, counting suspend; never set by anyone."""
    return time.clock_gettime(getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC))


#: systemd-timesyncd creates this once the clock is synchronised (the default on Raspberry Pi OS).
TIMESYNC_FLAG = "/run/systemd/timesync/synchronized"


def wall_clock_synchronised() -> bool | None:
    """Whether the wall clock is NTP-synchronised; None if nobody can say.

    systemd-timesyncd's flag file first; else the kernel (adjtimex: not TIME_ERROR), which the service
    cannot ask when its ProtectClock= filter blocks adjtimex (EPERM): then None, as unknown as unsynchronised.
    """
    if os.path.exists(TIMESYNC_FLAG):
        return True
    try:
        import ctypes

        state = ctypes.CDLL(None, use_errno=True).adjtimex(ctypes.create_string_buffer(512))
    except (OSError, AttributeError):
        return None
    return None if state < 0 else state != 5  # 5 is TIME_ERROR: unsynchronised


@dataclass(frozen=True)
class Clocks:
    """Where a save and a restart read the time: injected in tests."""

    wall: Callable[[], float] = time.time
    synchronised: Callable[[], bool | None] = wall_clock_synchronised
    boot: Callable[[], str | None] = boot_id
    since_boot: Callable[[], float] = boot_clock


@dataclass(frozen=True)
class SavedGame:
    """The game as saved: the time played and the clocks that measure how long the unit was off."""

    played: float  # seconds on the game clock at the save
    saved_at: float  # wall-clock time of the save
    minutes: float | None  # the game length then
    state: str  # what was running
    synchronised: bool | None = None  # the wall clock at the save was NTP-synchronised (None: unknown)
    boot: str | None = None  # the boot id at the save
    since_boot: float | None = None  # the boot clock at the save
    counts: dict[str, Any] = field(default_factory=dict)  # the evening's counts (none in older files)

    def outage(self, wall_now: float, clocks: Clocks | None = None) -> float | None:
        """Seconds since the save, as a trustworthy clock measured them; None when none could."""
        if clocks is not None and self.boot is not None and self.since_boot is not None and self.boot == clocks.boot():
            gap, how = clocks.since_boot() - self.since_boot, "boot clock"
        elif clocks is None or (self.synchronised and clocks.synchronised()):
            gap, how = wall_now - self.saved_at, "wall clock"
        else:
            log.warning("the wall clock is not synchronised (no real-time clock): the outage is unknown")
            return None
        if gap < 0:
            log.warning("the %s moved %+.0f s since the last save: the outage is unknown", how, gap)
            return None
        return gap

    def elapsed(self, wall_now: float, clocks: Clocks | None = None) -> float:
        """Seconds played now, counting the outage only when a trustworthy clock measured it."""
        gap = self.outage(wall_now, clocks)
        if gap is None:
            return self.played
        if gap <= MAX_GAP:
            return self.played + gap
        log.warning("%.0f s since the last save: not a power cut, resuming at the time saved", gap)
        return self.played


def read_small_file(path: Path, limit: int) -> tuple[bytes | None, str | None]:
    """``(bytes, None)`` for a regular file of at most ``limit`` bytes, ``(None, None)`` when there is none,
    ``(None, why)`` for anything else. Never blocks (a FIFO), never follows a link, never reads past ``limit``.
    """
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # none; a state "folder" that is a file: saving says so
        return None, None
    except OSError:
        mode = 0
    if stat.S_ISLNK(mode):
        return None, "a symbolic link"
    try:
        return files.read_bounded(path, limit, follow_links=False), None
    except files.Unreadable as refusal:
        return None, _why(refusal)


def _why(refusal: files.Unreadable) -> str | None:
    """:func:`read_small_file`'s words for a file it did not read (None: there is none)."""
    match refusal.reason:
        case "missing":
            return None
        case "not_a_file" if refusal.file_type is None:
            return "not a regular file"
        case "not_a_file":
            return "a named pipe" if refusal.file_type == "pipe" else f"a {refusal.file_type}"
        case "too_large":
            return "too large" if refusal.size is None else f"too large ({refusal.size} bytes)"
        case "cannot_open":
            return f"cannot be opened ({refusal.why})"
    return f"cannot be read ({refusal.why})"


def move_aside(path: Path, why: str, then: str) -> None:
    """Rename ``path`` to ``<name>.bad-<n>`` (kept for diagnosis, the last few only), with one warning line."""
    taken = sorted(path.parent.glob(f"{path.name}.bad-*"), key=_number)
    target = path.with_name(f"{path.name}.bad-{_number(taken[-1]) + 1 if taken else 1}")
    try:
        os.rename(path, target)
    except OSError as error:
        log.warning("ignoring %s: %s; cannot move it aside (%s): %s", path, why, error.strerror, then)
        return
    log.warning("ignoring %s: %s; moved to %s, %s", path, why, target.name, then)
    for old in taken[: max(0, len(taken) + 1 - KEEP_BAD)]:
        try:
            if old.is_dir() and not old.is_symlink():
                continue  # never delete a tree: a person may want it
            old.unlink()
        except OSError:
            pass


class GameStore:
    """``game.json`` in a state folder (``--state-dir``)."""

    def __init__(self, directory: str | Path, wall: Callable[[], float] = time.time, clocks: Clocks | None = None):
        self.directory = Path(directory)
        self.path = self.directory / FILENAME
        self.clocks = clocks if clocks is not None else Clocks(wall=wall)
        self.wall = self.clocks.wall
        self._save_failed = False

    # --- reading, which never fails ------------------------------------------------------------

    def load(self) -> SavedGame | None:
        """The saved game, or None; anything else found is moved aside with one warning."""
        self._remove_leftovers()
        raw = self._read()
        if raw is None:
            return None
        try:
            return parse(raw)
        except Exception as error:  # corrupt, foreign, nested too deeply, numbers too large...
            self._move_aside(self.path, f"not a saved game ({_short(error)})")
            return None

    def resume_elapsed(self, saved: SavedGame) -> float:
        return saved.elapsed(self.wall(), self.clocks)

    def outage(self, saved: SavedGame) -> float | None:
        """How long the power was out since ``saved``, or None when no trustworthy clock can tell."""
        return saved.outage(self.wall(), self.clocks)

    def _read(self) -> bytes | None:
        """The bytes of game.json if it is a small regular file; never blocks (a FIFO), never follows a link."""
        raw, why = read_small_file(self.path, MAX_BYTES)
        if why is not None:
            self._move_aside(self.path, why)
        return raw

    def _remove_leftovers(self) -> None:
        """Temporary files of a write a power cut interrupted; what cannot be removed is moved aside or left."""
        for leftover, error in files.clear_leftovers(self.path):  # a directory, a read-only file system
            self._move_aside(leftover, f"a leftover that cannot be removed ({error.strerror or error})")

    def _move_aside(self, path: Path, why: str) -> None:
        move_aside(path, why, "starting a new game")

    # --- writing ---------------------------------------------------------------------------------

    def save(self, played: float, minutes: float | None, state: str, counts: dict[str, Any] | None = None) -> None:
        since_boot, wall = self.clocks.since_boot(), self.clocks.wall()  # first: the instant ``played`` is for
        data = {"format": FORMAT, "played": round(played, 3), "saved_at": wall, "minutes": minutes}
        data["state"] = state
        data |= {"synchronised": self.clocks.synchronised(), "boot": self.clocks.boot()}
        data["since_boot"] = round(since_boot, 3)
        if counts is not None:
            data["counts"] = counts
        try:
            self._write_atomically(json.dumps(data).encode())
        except OSError as error:
            if not self._save_failed:  # one warning per outage, not one every few seconds
                why = "not a folder" if isinstance(error, (FileExistsError, NotADirectoryError)) else error.strerror
                log.warning("cannot save the game in %s: %s", self.directory, why or error)
                self._save_failed = True
            return
        if self._save_failed:
            log.warning("saving the game works again")
            self._save_failed = False

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
        write_atomically(self.path, data)

    def _sync_directory(self) -> None:
        sync_directory(self.directory)


def parse(raw: bytes) -> SavedGame:
    """A saved game from the bytes of game.json; ValueError (or any error) if it is not one."""
    data = json.loads(raw)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"format {found!r}, expected {FORMAT!r}")
    game = SavedGame(
        played=_finite(data["played"]),
        saved_at=_finite(data["saved_at"]),
        minutes=None if data["minutes"] is None else _finite(data["minutes"]),
        state=str(data["state"]),
        synchronised=data.get("synchronised") if isinstance(data.get("synchronised"), bool) else None,
        boot=data.get("boot") if isinstance(data.get("boot"), str) else None,
        since_boot=_finite(data["since_boot"]) if data.get("since_boot") is not None else None,
        counts=data["counts"] if isinstance(data.get("counts"), dict) else {},
    )
    if not (0 <= game.played < 1e7):
        raise ValueError(f"played {game.played!r} out of range")
    if game.boot is not None and game.since_boot is None:
        raise ValueError("a boot id without its boot clock")
    return game


def _finite(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, got {type(value).__name__}")
    number = float(value)  # OverflowError for an integer of hundreds of digits
    if not math.isfinite(number):
        raise ValueError(f"{number!r} is not a finite number")
    return number


def _number(path: Path) -> int:
    suffix = path.name.rpartition(".bad-")[2]
    return int(suffix) if suffix.isdigit() and len(suffix) < 9 else 0


def _short(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}" if not isinstance(error, ValueError) else str(error)
    text = text.splitlines()[0] if text else type(error).__name__
    return text if len(text) <= 80 else text[:77] + "..."
