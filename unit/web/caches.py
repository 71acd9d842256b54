"""What the calculator's pages keep between requests, one set per application (:class:`unit.web.common.Web`
holds them, so two applications in one process never share them): the editions and the games as read, the games'
titles, and the history's lines in words.

Each is kept only while what it was made from is unchanged (a file's size and time, a game file's version, a
history entry itself), and each is bounded: the oldest goes first.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

from unit import files, yamlfile
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.errors import UserError
from unit.web.store import Store
from unit.yamlfile import MAX_BYTES

K = TypeVar("K")
V = TypeVar("V")


class EditionCache:
    """Editions as read, kept while their file is unchanged (path, size, modification time, inode): a City edition
    is most of the work of reading a game, and a page reads its game on every request.

    A file's time is kept to the kernel's tick (or to 2 s on FAT): two changes of the same size within one tick
    leave the same size and time. An edition read within :data:`RACY_NS` of its change is kept with its bytes, and
    its bytes are compared before it is used again, until its time is old enough to say it alone."""

    def __init__(self, size: int = 16):
        self.size = size
        self.kept: dict[tuple[object, ...], tuple[editions.Edition, bytes | None]] = {}
        self._lock = threading.Lock()  # the forms run on worker threads: one page's eviction at a time

    def load(self, name: str, relative_to: Path, where: str, language: str) -> editions.Edition:
        if name in editions.SHIPPED:
            return self._load((name, language), None, False, name, relative_to, where, language)
        path = Path(name) if Path(name).is_absolute() else relative_to / name
        try:
            info = path.stat()
        except OSError:
            return editions.load(name, relative_to=relative_to, where=where, language=language)
        key = (str(path), info.st_size, info.st_mtime_ns, info.st_ino, language)
        return self._load(key, path, _racy(info.st_mtime_ns), name, relative_to, where, language)

    def _load(
        self,
        key: tuple[object, ...],
        path: Path | None,
        racy: bool,
        name: str,
        relative_to: Path,
        where: str,
        language: str,
    ) -> editions.Edition:
        """The edition kept under ``key``, or read now; ``racy``: its file changed too recently for its size and
        time to say it is unchanged (its bytes do)."""
        with self._lock:
            found = self.kept.get(key)
        if found is not None and found[1] is None:
            return found[0]  # its size and time say it is unchanged
        content = _content(path) if path is not None and (racy or found is not None) else None
        if found is not None and content is not None and content == found[1]:
            edition = found[0]  # the same bytes: the same edition (the games read with it stay kept)
        else:
            edition = editions.load(name, relative_to=relative_to, where=where, language=language)
            if racy and content is None:  # bytes that could not be read cannot be compared: not kept
                return edition
        with self._lock:  # read after its bytes: never older than them (newer: they differ next time)
            _keep(self.kept, key, (edition, content if racy else None), self.size)
        return edition


def _content(path: Path) -> bytes | None:
    """The bytes of an edition's file, or None when they cannot be read (the edition's reader says why)."""
    try:
        return files.read_bounded(path, MAX_BYTES)
    except files.Unreadable:
        return None


class GameCache:
    """Games as read, by name and the version of their file's bytes: a long evening's history (2,000 entries,
    100 KB) takes PyYAML a third of a second to read, and every page reads its game. A game is reused only
    while its file has the same version and its edition is the one the editions' cache gives now (an edition
    edited on the phone is read again); the bank keeps the game it has just written (unit/web/bank.py), and that
    its file is the text :func:`unit.calculator.position.dumps` writes for it (``written``)."""

    def __init__(self, editions: EditionCache, size: int = 16):
        self.editions = editions
        self.size = size
        self.kept: dict[tuple[str, str], KeptGame] = {}
        self._lock = threading.Lock()

    def get(self, store: Store, name: str, version: str, language: str) -> KeptGame | None:
        """The game ``name`` as kept for ``version`` of its file, or None."""
        with self._lock:
            found = self.kept.get((name, language))
        if found is None or found.version != version:
            return None
        try:
            edition = self.editions.load(found.ref, store.root, f"{name}.game.yaml: edition", language)
        except UserError:
            return None
        return found if edition is found.game.edition else None

    def keep(
        self, name: str, version: str, language: str, game: positions.Game, ref: str, written: bool = False
    ) -> None:
        with self._lock:
            self.kept.pop((name, language), None)
            _keep(self.kept, (name, language), KeptGame(version, game, ref, written), self.size)


@dataclass(frozen=True)
class KeptGame:
    """A game as :class:`GameCache` keeps it: its file's version, the game, its edition as the file names it, and
    whether the file is exactly what ``position.dumps(game, ref)`` writes (the bank wrote it so)."""

    version: str
    game: positions.Game
    ref: str
    written: bool


class TitleCache:
    """Each game's title for the list of games, kept while its file is unchanged (its version): the list reads
    only the title, not the whole game, and a long evening's history is most of a file."""

    def __init__(self, size: int = 256):
        self.size = size
        self.kept: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def title(self, store: Store, name: str) -> str:
        """The game's title, or ``name`` for a game without one (or a file that does not read as a game)."""
        try:
            text, version = store.read("game", name)
        except (OSError, UserError):
            return name
        with self._lock:
            found = self.kept.get((name, version))
        if found is None:
            try:
                data = yamlfile.parse(text, f"{name}.game.yaml", what="game file")
                raw = data.get("title") if isinstance(data, dict) else None
                found = name if raw is None else positions.title_field(raw, "title")
            except UserError:
                found = name
            with self._lock:
                _keep(self.kept, (name, version), found, self.size)
        return found


class Lru:
    """Values by key, the least recently used dropped past ``size``; one lock (the pages run on worker threads)."""

    def __init__(self, size: int):
        self.size = size
        self.kept: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept under ``key``, or ``make()`` now and kept (the caller gives one kind of value per key)."""
        with self._lock:
            found = self.kept.get(key, _NONE)
            if found is not _NONE:
                self.kept.move_to_end(key)
                return cast(V, found)
        made = make()
        with self._lock:
            self.kept[key] = made
            if len(self.kept) > self.size:
                self.kept.popitem(last=False)
        return made

    def clear(self) -> None:
        with self._lock:
            self.kept.clear()


_NONE = object()  # what no key keeps


class PartCache:
    """What the game's views are put together from and keep between requests: each history entry in words, by the
    entry itself (kept: its identity), the game's kind and the language (``lines``, the least recently used dropped
    past ``lines``), so a view of a long evening says only the entries it has not said yet
    (:func:`unit.web.bank_page.line`)."""

    def __init__(self, lines: int = 4096):
        self.lines = Lru(lines)

    def clear(self) -> None:
        """Nothing kept: the next view is made afresh (the tests compare both)."""
        self.lines.clear()


#: How long after a file's change its size and time are not trusted to say it is unchanged: a file's time is kept
#: to the kernel's tick (a few ms), or to 2 s on FAT, so two changes within one tick, of the same size, can leave the
#: same size and time; a file read this soon after it changed is read again next time.
RACY_NS = 3_000_000_000


def _racy(mtime_ns: int) -> bool:
    """Whether a file changed at ``mtime_ns`` may change again without its time saying so (or the clock went back)."""
    return not RACY_NS <= time.time_ns() - mtime_ns


def _keep(kept: dict[K, V], key: K, value: V, size: int) -> None:
    """``value`` kept under ``key``, the oldest entry dropped first when ``size`` are kept (the caller holds
    the cache's lock)."""
    if key not in kept and len(kept) >= size:
        kept.pop(next(iter(kept)))
    kept[key] = value
