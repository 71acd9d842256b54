"""The calculator's files on the phone: ``NAME.edition.yaml`` and ``NAME.game.yaml`` in one folder.

One folder holds both kinds, so a game's ``edition: NAME.edition.yaml``
resolves for the command line too (``position.load`` reads it relative to the
game file), as do the built-in editions (``classic-fr``, ``europe-1991``).

A name comes from the page, never a path: it is checked against
:data:`NAME_RE` before anything touches the disk. Every read gives a version
(the first 16 hex digits of the bytes' SHA-256); a write names the version it
was made from and is refused with :class:`Changed` when the file moved on
since (two phones editing the same game: the later one reloads). Writes are
atomic (unit.files) and serialised by one lock, so the check and the write are
one step.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from unit import files
from unit.calculator.gamefile import version_of  # one version for the pages and the command line
from unit.errors import Text, UserError
from unit.files import write_atomically
from unit.yamlfile import MAX_BYTES  # the command line's own bound: the page never writes what it would refuse

KINDS = ("edition", "game")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
#: What each kind is called in the catalog's error lines (errors.what.*, errors.a.*).
WHAT = {"edition": "edition", "game": "game_file"}


def default_root(state_dir: str | Path | None) -> Path:
    """The folder when ``serve --data`` is not given: ``STATE_DIR/calculator`` with a state folder, else the
    user's data folder (``$XDG_DATA_HOME/monopoly-city`` or ``~/.local/share/monopoly-city``)."""
    if state_dir:
        return Path(state_dir) / "calculator"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "monopoly-city"


class NotSaved(UserError):
    """A write refused by the quota, the free-space margin or the disk itself (full, read-only): the file is as it
    was, and the page says so in one line (``unit.web.common.not_saved``, status 507)."""


class Changed(UserError):
    """The file changed since the page read it: the page must reload (catalog key ``web.calc.changed``)."""

    def __init__(self, where: str):
        super().__init__(where, Text("web.calc.changed"))


class Store:
    """The calculator's files: NAME.edition.yaml and NAME.game.yaml in one folder (created on first write)."""

    def __init__(self, root: str | Path, quota: Quota | None = None):
        self.root = Path(root)
        self.quota = quota or Quota()
        self._lock = threading.Lock()
        for kind in KINDS:  # a write a power cut interrupted (unit.files): the file itself is whole
            files.clear_leftovers(self.root / f"*.{kind}.yaml")

    def names(self, kind: str) -> list[str]:
        """The names of the files of ``kind`` in the folder, sorted; none when the folder does not exist yet."""
        suffix = f".{_kind(kind)}.yaml"
        try:
            found = [p.name.removesuffix(suffix) for p in self.root.iterdir() if p.name.endswith(suffix)]
        except OSError:
            return []
        return sorted(name for name in found if NAME_RE.match(name) and _regular(self.root / f"{name}{suffix}"))

    def path(self, kind: str, name: str) -> Path:
        """The file for ``name``; a UserError for a name that is not one (never a path from a client)."""
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise UserError(_kind(kind), Text("web.calc.bad_name"))
        return self.root / f"{name}.{_kind(kind)}.yaml"

    def read(self, kind: str, name: str) -> tuple[str, str]:
        """``(text, version)``; FileNotFoundError when there is no such file.

        Only a regular file of at most :data:`MAX_BYTES` is read (never a FIFO, which would block the page, nor a
        link); anything else is a UserError naming the file.
        """
        path = self.path(kind, name)
        data = self._bytes(path, kind)
        if data is None:
            raise FileNotFoundError(path)
        try:  # as strict as the command line: a file it refuses is never shown, nor rewritten, as if it were fine
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UserError(path.name, Text("errors.not_utf8", at=error.start, what=_what(kind))) from None
        return text, version_of(data)

    def game_bytes(self, path: Path) -> bytes:
        """A game file's bytes as the pages read them (a regular file, no link followed, bounded): the reader of
        :mod:`unit.calculator.gamefile`'s write path; FileNotFoundError when there is none."""
        data = self._bytes(path, "game")
        if data is None:
            raise FileNotFoundError(path)
        return data

    def version(self, kind: str, name: str) -> str | None:
        """The file's current version, None when it does not exist."""
        data = self._bytes(self.path(kind, name), kind)
        return None if data is None else version_of(data)

    @staticmethod
    def _bytes(path: Path, kind: str) -> bytes | None:
        """The file's bytes (:func:`unit.files.read_bounded`, a link not followed); None when there is none."""
        try:
            return files.read_bounded(path, MAX_BYTES, follow_links=False)
        except files.Unreadable as refusal:
            if refusal.reason == "missing":
                return None
            if refusal.reason == "not_a_file":
                special = Text("errors.kind.special")
                raise UserError(path.name, Text("errors.not_a_file", kind=special, what=_a(kind))) from None
            if refusal.reason == "too_large":
                raise UserError(path.name, Text("errors.too_large", limit=MAX_BYTES, what=_a(kind))) from None
            raise UserError(path.name, Text("errors.cannot_read", why=refusal.why)) from None

    def write(self, kind: str, name: str, text: str, expected: str | None) -> str:
        """Write ``text`` atomically if the file is still at version ``expected`` (None: must not exist yet).

        Returns the new version; :class:`Changed` when another write came first; a UserError, with the
        file as it was, when the text is larger than the command line reads or the disk refuses it (full,
        read-only).
        """
        path = self.path(kind, name)
        data = text.encode("utf-8")
        if len(data) > MAX_BYTES:
            raise UserError(path.name, Text("errors.too_large", limit=MAX_BYTES, what=_a(kind)))
        with self._lock:
            if self.version(kind, name) != expected:
                raise Changed(path.name)
            make_room(self.root, path, len(data), self.quota)
            try:
                write_atomically(path, data)
            except OSError as error:
                why = error.strerror or error
                raise NotSaved(path.name, Text("errors.cannot_write", why=why)) from None
        return version_of(data)


# --- the quota: what the phones may take of the disk ------------------------------------------------


@dataclass(frozen=True)
class Quota:
    """How much of the disk the phones' files may take, so that the unit's own saves always have room.

    Anyone who loaded a page may write here (the calculator works without the unit's pairing), so the folder
    is bounded: ``files`` entries and ``size`` bytes in all (22 cards make a 6 KB edition: a table's editions
    and games take a few hundred KB), and nothing is written while the disk has less than ``margin`` bytes
    free (the unit's game and settings files are a few KB, written every few seconds).
    """

    files: int = 200
    size: int = 16 * 1024 * 1024
    margin: int = 32 * 1024 * 1024


def make_room(root: Path, path: Path, size: int, quota: Quota) -> None:
    """Refuse (:class:`NotSaved`) writing ``size`` bytes to ``path`` in ``root`` beyond ``quota``; else nothing."""
    count, used, old = 0, 0, 0
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                count += 1
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    used += info.st_size if stat.S_ISREG(info.st_mode) else 0
                    old = info.st_size if entry.name == path.name and stat.S_ISREG(info.st_mode) else old
        disk = os.statvfs(root)
    except FileNotFoundError:  # the first write creates the folder
        disk = os.statvfs(_existing(root))
    except OSError as error:
        raise NotSaved(path.name, Text("errors.cannot_write", why=error.strerror or error)) from None
    if not path.exists() and count >= quota.files:
        raise NotSaved(path.name, Text("errors.quota_files", count=count, most=quota.files))
    if used - old + size > quota.size:
        raise NotSaved(path.name, Text("errors.quota_size", used=_mb(used), most=_mb(quota.size)))
    free = disk.f_bavail * disk.f_frsize
    if free - size < quota.margin:
        raise NotSaved(path.name, Text("errors.disk_margin", free=_mb(free), margin=_mb(quota.margin)))


def _existing(path: Path) -> Path:
    """``path`` or its nearest folder that exists (where the disk's free space is read)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _mb(size: int) -> str:
    return str(round(size / 1_000_000))


def _regular(path: Path) -> bool:
    """A regular file itself (a link is not followed)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _what(kind: str) -> Text:
    return Text("errors.what." + WHAT[_kind(kind)])


def _a(kind: str) -> Text:
    return Text("errors.a." + WHAT[_kind(kind)])


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}, expected one of {KINDS}")  # a bug, not a user's mistake
    return kind
