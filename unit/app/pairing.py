"""Pairing a phone with the unit: the code shown on the OLED, and the generation that names the game's pairings.

A phone pairs by typing the code the unit shows (:meth:`Pairing.new_code`,
:meth:`Pairing.check`); the web service then signs a session cookie with the
unit's current **generation**. The generation is kept in the state folder (a
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
from unit.files import write_atomically

log = logging.getLogger(__name__)

PAIRING_FILE = "web-pairing.json"
MAX_BYTES = 4096  # the file is about 40 bytes
CODE_DIGITS = 6
CODE_SECONDS = 120.0  # a pairing code is valid this long after it is shown
CODE_TRIES = 5  # wrong tries before a code is void (then a new one must be asked for)


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


class Pairing:
    """The pairing generation (in ``state_dir``) and the one code at a time. Safe from any thread."""

    def __init__(self, state_dir: Path):
        self.path = state_dir / PAIRING_FILE
        self._lock = threading.Lock()
        self._code: Code | None = None
        self.generation = self._load()

    @property
    def code_pending(self) -> bool:
        return self._code is not None

    def new_code(self, now: float) -> str:
        """A fresh code, valid :data:`CODE_SECONDS` from ``now``; it replaces any earlier one."""
        import secrets

        digits = "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))
        with self._lock:
            self._code = Code(digits, now + CODE_SECONDS)
        return digits

    def check(self, code: str | None, now: float) -> Verdict:
        """A try at the code at ``now``: right once within its time; :data:`CODE_TRIES` wrong tries void it."""
        import secrets

        with self._lock:
            shown = self._code
            if shown is None:
                return Verdict.NONE
            if now >= shown.expires:
                self._code = None
                return Verdict.NONE
            if code is not None and secrets.compare_digest(code.encode(), shown.digits.encode()):
                self._code = None
                return Verdict.RIGHT
            if shown.tries + 1 >= CODE_TRIES:
                self._code = None
                return Verdict.VOID
            self._code = Code(shown.digits, shown.expires, shown.tries + 1)
            return Verdict.WRONG

    def renew(self) -> str:
        """A new generation (every phone must pair again), kept in the state folder; any code is dropped."""
        import secrets

        generation = secrets.token_hex(8)
        with self._lock:
            self.generation = generation
            self._code = None
        self._save(generation)
        return generation

    def _load(self) -> str:
        with contextlib.suppress(OSError):
            for stale in self.path.parent.glob(f".{self.path.stem}-*.tmp"):  # a write a power cut interrupted
                stale.unlink()
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
        """Keep the generation across restarts: a power cut keeps the phones paired."""
        try:
            write_atomically(self.path, json.dumps({"generation": generation}).encode())
        except OSError as error:
            log.warning("web link: cannot save the pairings in %s: %s", self.path, error.strerror or error)
