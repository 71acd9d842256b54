"""Files written so that a power cut leaves the old one or the new one, never half of each, and read so that a
hostile one (a FIFO, a link to /dev/zero, a huge file) is one clear refusal, never a wait.

A game file's writers take turns (:func:`locked`): the pages and the command line write the same files.

Shared by the unit's state folder (unit.app.persist, unit.app.settings, unit.app.pairing), the
calculator's files on the phone (unit.web.store), the YAML files the commands read (unit.yamlfile) and the
game files the bank's verbs write (unit.calculator.bank_commands).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from unit.errors import Text, UserError

#: What :func:`write_atomically` writes first, beside the file: ``.NAME-<random>.tmp``.
TEMPORARY = ".{stem}-*.tmp"
#: The kinds of files that are not regular files, as the error lines name them (``errors.kind.<name>``).
FILE_TYPES = {
    stat.S_IFDIR: "directory",
    stat.S_IFIFO: "pipe",
    stat.S_IFCHR: "device",
    stat.S_IFBLK: "device",
    stat.S_IFSOCK: "socket",
}


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``path`` so that a power cut leaves the old file or the new one, never half of each.

    A temporary file (:data:`TEMPORARY`, cleared at the next start by :func:`clear_leftovers`), fsync, rename,
    fsync of the folder. The file keeps its mode (a game file 0644 stays 0644, not mkstemp's 0600); a new one gets
    the mode open() gives, 0666 less the umask (the services' UMask=0077 makes theirs 0600).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = None  # a new file
    fd, temporary = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as file:
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_directory(path.parent)


def _temporary(path: Path) -> tuple[int, str]:
    """A new file beside ``path``, named :data:`TEMPORARY`, created as open() creates one (0666 less the umask), and
    open for writing."""
    prefix, suffix = TEMPORARY.format(stem=path.stem).split("*")
    for _ in range(100):
        name = str(path.parent / f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def write_or_say(path: Path, data: bytes) -> None:
    """:func:`write_atomically` for a file a command was given: a full or read-only disk is the one line
    ``game.yaml: cannot write it: No space left on device (the file is as it was)``, and the file is unchanged."""
    try:
        write_atomically(path, data)
    except OSError as error:
        raise UserError(str(path), Text("errors.cannot_write", why=error.strerror or str(error))) from None


def sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` survive a power cut."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def clear_leftovers(path: Path) -> list[tuple[Path, OSError]]:
    """Remove the temporary files :func:`write_atomically` of ``path`` left when a power cut interrupted it
    (``path``'s name may be a pattern: ``*.game.yaml``, every game's). The file itself is whole, old or new.

    Returns the leftovers that could not be removed, with why (a directory, a read-only disk); none when the folder
    does not exist yet or cannot be read (saving will say so).
    """
    try:
        found = sorted(path.parent.glob(TEMPORARY.format(stem=path.stem)))
    except OSError:
        return []
    stuck = []
    for leftover in found:
        try:
            leftover.unlink()
        except FileNotFoundError:
            pass
        except OSError as error:
            stuck.append((leftover, error))
    return stuck


class Unreadable(Exception):
    """Why :func:`read_bounded` read nothing, for its caller to say in its own words: ``reason`` is ``missing``,
    ``not_a_file`` (``file_type``: a name of :data:`FILE_TYPES`, None for another kind), ``too_large`` (``size``: what
    the file says it holds, None when it grew while read), ``cannot_open`` or ``cannot_read`` (``why``: the system's
    words)."""

    def __init__(self, reason: str, *, file_type: str | None = None, size: int | None = None, why: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.file_type = file_type
        self.size = size
        self.why = why


def read_bounded(path: str | Path, limit: int, *, follow_links: bool = True) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; :class:`Unreadable` otherwise.

    The file is opened without blocking (a FIFO with no writer would wait forever), and without following a last
    link unless ``follow_links``; it is checked with ``fstat`` before a byte is read, and at most ``limit + 1`` bytes
    are read, whatever its size says (``/dev/zero`` says 0).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise Unreadable("missing") from None
    except IsADirectoryError:
        raise Unreadable("not_a_file", file_type="directory") from None
    except OSError as error:
        raise Unreadable("cannot_open", why=error.strerror or str(error)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not_a_file", file_type=FILE_TYPES.get(stat.S_IFMT(info.st_mode)))
        if info.st_size > limit:
            raise Unreadable("too_large", size=info.st_size)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise Unreadable("cannot_read", why=error.strerror or str(error)) from None
    finally:
        os.close(fd)
    if size > limit:
        raise Unreadable("too_large")
    return b"".join(chunks)


# --- one writer at a time -----------------------------------------------------------------------------------


class Busy(Exception):
    """:func:`locked` waited its time and another writer still holds the folder."""


#: How often a writer waiting for the folder tries again (a write of a game file takes a few milliseconds).
LOCK_RETRY = 0.005


@contextlib.contextmanager
def locked(folder: Path, wait: float) -> Iterator[None]:
    """Hold ``folder``'s advisory lock (``fcntl.flock``, exclusive) for the block: every writer of a file in it that
    takes the lock first takes turns, in this process (each call opens the folder anew: threads exclude each other
    too) and in every other. Waits at most ``wait`` seconds, then :class:`Busy`. A folder that does not exist is not
    locked (nothing in it can be written: the reader says so). The lock goes with the descriptor: a process killed
    while holding it holds nothing."""
    import fcntl  # POSIX only; imported where used

    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        yield
        return
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise Busy(str(folder)) from None
                time.sleep(LOCK_RETRY)
        yield
    finally:
        os.close(fd)
