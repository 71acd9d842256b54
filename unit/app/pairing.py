"""Pairing a phone with the unit: the code shown on the OLED, and the generation that names the game's pairings.

A phone pairs by typing the code the unit shows (:meth:`Pairing.new_code`,
:meth:`Pairing.check`); the web service then signs a session cookie with the
unit's current **generation**. Each code belongs to the session that asked for
it (the web service names the asking phone's session): only that session's
tries count against it, so nobody else can use it up or void it, and a new
code for another session leaves it valid (the screen shows the newest). The generation is kept in the state folder (a
power cut keeps the phones paired) and renewed at the end of a game
(:meth:`Pairing.renew`), which unpairs every phone.

No clock is read here: the caller passes ``now`` (the link passes its clock's
reading; tests drive time). ``secrets`` (hmac, OpenSSL: about 3 ms of CPU at a
Pi's start) is imported only when a code or a generation is made.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from unit.app.persist import read_small_file
from unit.core.protocol import CODE_DIGITS, CODE_SECONDS, CODE_TRIES
from unit.files import clear_leftovers, write_atomically

log = logging.getLogger(__name__)

__all__ = ["CODE_DIGITS", "CODE_SECONDS", "CODE_TRIES", "SESSIONLESS", "Checked", "Code", "Pairing", "Verdict"]

PAIRING_FILE = "web-pairing.json"
MAX_BYTES = 4096  # the file is about 40 bytes
MAX_CODES = 64  # codes kept at once (the web service asks for at most a few a minute); the oldest goes first
SESSIONLESS = ""  # the session of a code asked for without one ({"pair": "request"})


class Verdict(StrEnum):
    """What a try at the code came to."""

    RIGHT = "right"  # the code is used up: one phone per code
    WRONG = "wrong"  # the code stays, one try fewer
    VOID = "void"  # wrong, and the last try: the code is gone
    NONE = "none"  # no code to check against (none asked for, used, void or expired)

    @property
    def ends_code(self) -> bool:
        """The code the unit shows is no more (it should stop showing it)."""
        return self in (Verdict.RIGHT, Verdict.VOID)


@dataclass(frozen=True)
class Code:
    digits: str
    expires: float
    tries: int = 0  # wrong tries so far


@dataclass(frozen=True)
class Checked:
    """A try's verdict, and whether the code it ended is the one on the unit's screen (to take it off)."""

    verdict: Verdict
    on_screen: bool = False

    @property
    def hides_code(self) -> bool:
        return self.verdict.ends_code and self.on_screen


class Pairing:
    """The pairing generation (in ``state_dir``) and each session's code. Safe from any thread."""

    def __init__(self, state_dir: Path):
        self.path = state_dir / PAIRING_FILE
        self._lock = threading.Lock()
        self._codes: dict[str, Code] = {}  # session -> its code, oldest first
        self._shown: str | None = None  # the session whose code the screen shows (the newest asked for)
        self._unsaved = False  # the last save failed, and said so: the next failure is not said again
        self.generation = self._load()

    @property
    def code_pending(self) -> bool:
        return bool(self._codes)

    def new_code(self, now: float, session: str = SESSIONLESS) -> str:
        """A fresh code for ``session``, valid :data:`CODE_SECONDS` from ``now``; it replaces that session's
        earlier one only (another session's code stays valid, off the screen)."""
        import secrets

        digits = "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))
        with self._lock:
            for old in [s for s, c in self._codes.items() if now >= c.expires]:
                del self._codes[old]
            self._codes.pop(session, None)
            while len(self._codes) >= MAX_CODES:
                del self._codes[next(iter(self._codes))]
            self._codes[session] = Code(digits, now + CODE_SECONDS)
            self._shown = session
        return digits

    def check(self, code: str | None, now: float, session: str = SESSIONLESS) -> Verdict:
        """A try by ``session`` at its own code at ``now``: right once within its time; :data:`CODE_TRIES` wrong
        tries void it. Another session's code is never touched."""
        return self.attempt(code, now, session).verdict

    def attempt(self, code: str | None, now: float, session: str = SESSIONLESS) -> Checked:
        """:meth:`check`, also saying whether the code it ended is the one on the screen."""
        import secrets

        with self._lock:
            mine = self._codes.get(session)
            if mine is None:
                return Checked(Verdict.NONE)
            if now >= mine.expires:
                del self._codes[session]
                return Checked(Verdict.NONE)
            if code is not None and secrets.compare_digest(code.encode(), mine.digits.encode()):
                verdict = Verdict.RIGHT
            elif mine.tries + 1 >= CODE_TRIES:
                verdict = Verdict.VOID
            else:
                self._codes[session] = Code(mine.digits, mine.expires, mine.tries + 1)
                return Checked(Verdict.WRONG)
            del self._codes[session]
            on_screen = self._shown == session
            if on_screen:
                self._shown = None
            return Checked(verdict, on_screen)

    def renew(self) -> str:
        """A new generation (every phone must pair again), kept in the state folder; any code is dropped."""
        import secrets

        generation = secrets.token_hex(8)
        with self._lock:
            self.generation = generation
            self._codes.clear()
            self._shown = None
        self._save(generation)
        return generation

    def _load(self) -> str:
        clear_leftovers(self.path)  # a write a power cut interrupted
        raw, _why = read_small_file(self.path, MAX_BYTES)  # never blocks on a FIFO, never reads /dev/zero
        with contextlib.suppress(ValueError, RecursionError):
            data = json.loads(raw) if raw is not None else None
            if isinstance(data, dict) and isinstance(data.get("generation"), str):
                return data["generation"]  # type: ignore[no-any-return]
        import secrets  # here, not at every start: the first start ever, or a lost file

        generation = secrets.token_hex(8)
        self._save(generation)
        return generation

    def _save(self, generation: str) -> None:
        """Keep the generation across restarts: a power cut keeps the phones paired. A disk that refuses it is said
        once, not at every renewal, until a save succeeds again."""
        try:
            write_atomically(self.path, json.dumps({"generation": generation}).encode())
        except OSError as error:
            if not self._unsaved:
                log.warning("web link: cannot save the pairings in %s: %s", self.path, error.strerror or error)
            self._unsaved = True
        else:
            self._unsaved = False
