"""Game files, read and written through one path: the pages and the command line both write here.

:func:`record` is the one sequence every write of a game file goes through (``monopoly-city pay/buy/.../undo``, the
phone's taps and corrections)::

    lock the folder -> read the file -> check its version -> apply -> verify -> write a temporary file -> rename

- **One writer at a time, across processes** (issue 28): an advisory ``fcntl.flock`` on the game's folder
  (:func:`unit.files.locked`), held from the read to the rename. The folder, not a lock file beside the game: the
  rename replaces the folder's entry, and a lock on the folder needs no file of its own to create, count in the
  phones' quota or clear. A writer waits its turn (a few seconds at most, else :class:`Busy`), then reads the file
  as it is: two commands at once both pay, one after the other. A page's tap names the version it was made from
  (``expected``): a file that changed since is refused (:class:`Changed`), never paid twice.
- **A version never repeats**: every write adds one to the file's ``revision:``, so the file's bytes, whose digest
  is the version, never come back after an undo; a form from before an undo is refused.
- **Never a file that cannot be read back**: before writing, the text is read back as the loader reads it (only
  what changed: the players, the start and the new entries; the history kept as read was read) and must be the
  game in memory; otherwise nothing is written (:class:`Unwritable`, with the loader's reason: an undo that would
  give a player a square the edition does not have).
- **Every change is an entry**: a file changed by hand since it was written (its position is not its start and its
  history, :func:`unit.calculator.ledger.differences`) has the change recorded as an entry first (``what: hand``),
  said with the action's own line; an undo refuses instead (:class:`unit.calculator.bank.HandChanged`), so that
  nobody takes back more than they asked.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Generic, TypeVar

from unit import fields, files, yamlfile
from unit.calculator import bank, ledger, rules
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.actions import Action, RecordHandChange
from unit.calculator.history import Entry
from unit.calculator.position import Game
from unit.calculator.rulebook import Rules
from unit.errors import Text, UserError

T = TypeVar("T")

#: How long a writer waits for another to finish before it is refused (:class:`Busy`): a command's write of a long
#: evening takes well under a second; a process stopped while writing (Ctrl-Z) must not hold the table for ever.
LOCK_WAIT = 10.0

#: How a file's bytes are read: ``yamlfile.read_bounded``'s signature (the pages read theirs without following links).
Reader = Callable[[Path], bytes]


def version_of(data: bytes) -> str:
    """A file's version: the first 16 hex digits of its bytes' SHA-256 (never repeats: its ``revision:`` rises)."""
    return hashlib.sha256(data).hexdigest()[:16]


def read_bytes(path: Path) -> bytes:
    """The command line's reader: a regular file of at most :data:`unit.yamlfile.MAX_BYTES`, one line otherwise."""
    return yamlfile.read_bounded(path, what="game file")


# --- refusals -------------------------------------------------------------------------------------------------


class Changed(UserError):
    """The file changed since the version the write was made from (another phone, a command, the same tap twice):
    nothing is written (the web's 409)."""

    def __init__(self, where: str):
        super().__init__(where, Text("bank.changed_meanwhile"))


class Busy(UserError):
    """Another program kept the game's folder locked longer than :data:`LOCK_WAIT`: nothing is written (409)."""

    def __init__(self, where: str):
        super().__init__(where, Text("bank.busy", s=int(LOCK_WAIT)))


class Unwritable(UserError):
    """The file written would not read back as the game (the loader's ``reason``): nothing is written."""

    def __init__(self, where: str, reason: Text | str):
        super().__init__(where, Text("bank.unwritable", r=reason))


class NotWritten(UserError):
    """The disk refused the write (full, read-only) or the pages' quota did: the file is as it was (507)."""


def status(error: UserError) -> int:
    """The web's status for a refusal of this module or the bank's."""
    if isinstance(error, (Changed, Busy, bank.HandChanged)):
        return 409
    if isinstance(error, NotWritten):
        return 507
    return 400


# --- reading --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameFile:
    """A game file as read (or as just written): its bytes, the game, its ``edition:`` as written, and whether the
    bytes are exactly what :func:`unit.calculator.position.dumps` writes for the game (``written``: this module
    wrote them, so their history need not be looked through, nor their start and history compared again).
    ``known_rules``: the game's rules when the caller has looked them up already (a page's, the file just written)."""

    path: Path
    data: bytes
    game: Game
    edition_ref: str
    written: bool = False
    source: str = field(default="", compare=False)
    known_rules: Rules | None = field(default=None, compare=False, repr=False)

    @property
    def version(self) -> str:
        return version_of(self.data)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @cached_property
    def rules(self) -> Rules:
        """The game's rules, looked up once for the file (or given)."""
        return self.known_rules if self.known_rules is not None else rules.of(self.game)

    @cached_property
    def differences(self) -> tuple[ledger.Difference, ...]:
        """Where the position is not the start and the history (a change by hand); none for a file written here."""
        return () if self.written else ledger.differences(self.game)


def parse(
    path: Path,
    data: bytes,
    language: str = "fr",
    load_edition: positions.EditionLoader = editions.load,
    source: str | None = None,
) -> GameFile:
    """The game file whose bytes are ``data``: :class:`UserError` naming ``source`` (the path as given) otherwise.
    YAML aliases are refused (a file of 2,000 entries sharing one list of 2,000 changes would be 4 million changes
    to read)."""
    name = source or str(path)
    raw = yamlfile.parse(data, name, what="game file", aliases=False)
    game = positions.parse(raw, name, path.parent, language, load_edition)
    edition_ref = str(raw["edition"])  # type: ignore[index]  # parse checked: a mapping with a text
    return GameFile(path, data, game, edition_ref, source=name)


def read(
    path: str | Path,
    language: str = "fr",
    load_edition: positions.EditionLoader = editions.load,
    reader: Reader = read_bytes,
    source: str | None = None,
) -> GameFile:
    """The game file at ``path``, as read now (no lock: reading never waits)."""
    where = Path(path)
    return parse(where, reader(where), language, load_edition, source or str(path))


# --- the one write path ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded(Generic[T]):
    """What :func:`record` wrote: the file as now on disk (keep it: ``written``), what the change returned, and the
    entry that recorded a change made by hand first, if there was one."""

    file: GameFile
    result: T
    hand: Entry | None = None


Change = Callable[[Game, Rules], tuple[Game, T]]


def record(
    path: str | Path,
    change: Change[T],
    *,
    expected: str | None = None,
    kept: GameFile | None = None,
    language: str = "fr",
    load_edition: positions.EditionLoader = editions.load,
    reader: Reader = read_bytes,
    source: str | None = None,
    room: Callable[[int], None] | None = None,
    record_hand: bool = True,
) -> Recorded[T]:
    """Apply ``change`` to the game file at ``path`` and write it, as one step no other writer comes into.

    ``change(game, rules)`` returns the game after it and a result (the entry, what was undone); it raises to refuse,
    and then nothing is written. ``expected``: the version the caller showed (a page's form); another on disk is
    :class:`Changed`. ``kept``: the file as the caller read it, used as it is when its bytes are still the file's
    (the pages keep their games). ``room(size)``: refuses a write beyond the pages' quota. ``record_hand``: record a
    change made by hand as an entry first (an undo says it instead: :class:`unit.calculator.bank.HandChanged`).
    """
    where = Path(path)
    name = source or str(path)
    with _lock(where, name):
        data = reader(where)
        if expected is not None and version_of(data) != expected:
            raise Changed(name)
        file = kept if kept is not None and kept.data == data else parse(where, data, language, load_edition, name)
        kind = file.rules
        game = _with_start(file, language)
        hand = None
        if record_hand and file.differences:
            try:
                game, hand = bank.apply(game, RecordHandChange(), kind)
            except UserError:  # a history that does not apply to its start: the file stays as the hand left it
                hand = None
        after, result = change(game, kind)
        after = replace(after, revision=file.game.revision + 1)
        text = _verified(file, after, language)
        encoded = text.encode("utf-8")
        if len(encoded) > yamlfile.MAX_BYTES:
            raise NotWritten(name, Text("bank.too_large", n=len(encoded), m=yamlfile.MAX_BYTES))
        if room is not None:
            room(len(encoded))
        _write(where, name, encoded)
    return Recorded(GameFile(where, encoded, after, file.edition_ref, True, name, kind), result, hand)


def apply(
    path: str | Path,
    action: Action,
    *,
    expected: str | None = None,
    kept: GameFile | None = None,
    language: str = "fr",
    load_edition: positions.EditionLoader = editions.load,
    reader: Reader = read_bytes,
    source: str | None = None,
    room: Callable[[int], None] | None = None,
) -> Recorded[Entry]:
    """:func:`record` of one bank action (:func:`unit.calculator.bank.apply`); recording a change made by hand
    records nothing first."""

    def change(game: Game, kind: Rules) -> tuple[Game, Entry]:
        return bank.apply(game, action, kind)

    hand = not isinstance(action, RecordHandChange)
    return record(
        path,
        change,
        expected=expected,
        kept=kept,
        language=language,
        load_edition=load_edition,
        reader=reader,
        source=source,
        room=room,
        record_hand=hand,
    )


def undo(
    path: str | Path,
    count: int = 1,
    *,
    expected: str | None = None,
    kept: GameFile | None = None,
    language: str = "fr",
    load_edition: positions.EditionLoader = editions.load,
    reader: Reader = read_bytes,
    source: str | None = None,
    room: Callable[[int], None] | None = None,
) -> Recorded[bank.Undone]:
    """:func:`record` of taking back the last ``count`` entries (:func:`unit.calculator.bank.undo`); a change made by
    hand is not recorded first but named (:class:`unit.calculator.bank.HandChanged`)."""

    def change(game: Game, kind: Rules) -> tuple[Game, bank.Undone]:
        undone = bank.undo(game, count, kind)
        return undone.game, undone

    return record(
        path,
        change,
        expected=expected,
        kept=kept,
        language=language,
        load_edition=load_edition,
        reader=reader,
        source=source,
        room=room,
        record_hand=False,
    )


def create(
    path: str | Path,
    game: Game,
    edition_ref: str,
    *,
    language: str = "fr",
    reader: Reader = read_bytes,
    source: str | None = None,
    room: Callable[[int], None] | None = None,
) -> GameFile:
    """Write a new game file at ``path``: refused (:class:`Changed`) when one is there already."""
    where = Path(path)
    name = source or str(path)
    where.parent.mkdir(parents=True, exist_ok=True)
    with _lock(where, name):
        try:
            reader(where)
        except (FileNotFoundError, UserError):
            if where.exists() or where.is_symlink():
                raise Changed(name) from None
        else:
            raise Changed(name)
        text = positions.dumps(game, edition_ref)
        _check(text, game, where, name, language)
        encoded = text.encode("utf-8")
        if room is not None:
            room(len(encoded))
        _write(where, name, encoded)
    return GameFile(where, encoded, game, edition_ref, True, name)


@contextlib.contextmanager
def _lock(path: Path, name: str) -> Iterator[None]:
    """The game's folder locked for the write (:func:`unit.files.locked`); :class:`Busy` after :data:`LOCK_WAIT`."""
    try:
        with files.locked(path.parent, LOCK_WAIT):
            yield
    except files.Busy:
        raise Busy(name) from None


def _write(path: Path, name: str, data: bytes) -> None:
    try:
        files.write_atomically(path, data)
    except OSError as error:
        raise NotWritten(name, Text("errors.cannot_write", why=error.strerror or str(error))) from None


def _verified(file: GameFile, after: Game, language: str) -> str:
    """The text to write for ``after``, read back as the loader reads it and found to be ``after``; only what was
    written anew is read: the history kept as read was read, and in a file this module wrote (``written``), a player
    or a start unchanged is the same text as before, read when it was written. :class:`Unwritable` otherwise."""
    written = positions.write_after(file.text, file.game, after, file.edition_ref, file.written)
    if written.whole or not file.written:
        fresh = after if written.whole else replace(after, history=after.history[written.kept :])
        _check(written.fresh, fresh, file.path, file.source, language)
        return written.text
    before = file.game
    changed = tuple(p for i, p in enumerate(after.players) if i >= len(before.players) or before.players[i] != p)
    keys = [fields.name_key(p.name) for p in after.players]
    if not after.players or len(set(keys)) != len(keys):  # what the loader checks across the players
        raise Unwritable(file.source, Text("bank.reads_otherwise"))
    sample = replace(
        after,
        players=changed or after.players[:1],
        history=after.history[written.kept :],
        start=after.start if after.start != before.start else None,
    )
    _check(positions.dumps(sample, file.edition_ref), sample, file.path, file.source, language)
    return written.text


def _with_start(file: GameFile, language: str) -> Game:
    """The game with its start written down: the file's own, or, for a file written before the start was kept, the
    history taken back, if that start reads as a position of the edition (a forged entry may take back to a square
    the edition does not have: the file then stays as it was written, without a start)."""
    game = ledger.with_start(file.game)
    if game.start is None or file.game.start is not None:
        return game
    try:
        alone = replace(game, players=game.start, history=(), start=None, revision=0, title=None)
        _check(positions.dumps(alone, file.edition_ref), alone, file.path, file.source, language)
    except Unwritable:
        return file.game
    return game


def _check(text: str, game: Game, path: Path, name: str, language: str) -> None:
    def same_edition(*args: object, **kwargs: object) -> editions.Edition:
        return game.edition

    try:
        raw = yamlfile.parse(text, name, what="game file")
        again = positions.parse(raw, game.source, path.parent, language, same_edition)
    except UserError as error:
        raise Unwritable(
            name, error.message if error.where in ("", name) else f"{error.where}: {error.message}"
        ) from None
    if replace(again, source=game.source) != game:
        raise Unwritable(name, Text("bank.reads_otherwise"))
