"""Files written so that a power cut leaves the old one or the new one, never half of each.

Shared by the unit's state folder (unit.app.persist, unit.app.settings), the
calculator's files on the phone (unit.web.store) and the game files the bank's verbs write
(unit.calculator.bank_commands).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from unit.errors import Text, UserError


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``path`` so that a power cut leaves the old file or the new one, never half of each.

    A temporary file (``.NAME-*.tmp``, cleared at the next start), fsync, rename, fsync of the folder.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_directory(path.parent)


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
