"""Reading YAML files with errors a user can act on.

Every YAML file the project reads (configuration, scenarios, editions, game
positions) goes through :func:`load`, so every one of them fails the same
way: one line naming the file, the line and what is wrong.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from unit.errors import UserError

#: Files larger than this are not configuration: refuse them before parsing.
MAX_BYTES = 1_000_000


def load(path: str | Path, *, what: str = "file") -> object:
    """Parse ``path`` with ``yaml.safe_load``; raise :class:`UserError` on any problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UserError(str(path), f"no such {what}") from None
    except IsADirectoryError:
        raise UserError(str(path), f"is a directory, expected a {what}") from None
    except OSError as exc:
        raise UserError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise UserError(str(path), f"too large ({len(raw)} bytes) for a {what}")
    return parse(raw, str(path), what=what)


def parse(raw: bytes | str, name: str, *, what: str = "file") -> object:
    """Parse YAML text already in memory; ``name`` is used in error messages."""
    if isinstance(raw, bytes):
        if b"\0" in raw:
            raise UserError(name, f"binary data, expected a YAML {what}")
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UserError(name, f"not UTF-8 text (byte {exc.start}), expected a YAML {what}") from None
    try:
        data = yaml.safe_load(raw)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        raise UserError(name, f"{line}YAML syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise UserError(name, f"YAML error: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise UserError(name, "YAML nested too deeply") from None
    if data is None:
        raise UserError(name, f"empty {what}")
    return data


def type_name(value: object) -> str:
    """How a parsed YAML value is called in error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"text {shown!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
