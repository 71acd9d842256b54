"""Checked reading of YAML data (editions, game positions): every error names the file and the place.

A file is read once into frozen values; a wrong entry stops everything with one
line, e.g. ``my-city.yaml: groups[0].districts[2].rents: expected 9 amounts (0 to 8 blocks), got 8``.
"""

from __future__ import annotations

import difflib
import unicodedata
from typing import Any

from unit import yamlfile
from unit.errors import UserError


def child(where: str, key: object) -> str:
    """The place of ``key`` inside ``where``: ``file.yaml: key``, then ``file.yaml: key.sub``."""
    return f"{where}.{key}" if ": " in where else f"{where}: {key}"


def mapping(value: Any, where: str, required: tuple[str, ...] = (), optional: tuple[str, ...] = ()) -> dict:
    """A mapping with exactly these keys (``required`` must be present)."""
    if not isinstance(value, dict):
        raise UserError(where, f"expected a mapping, got {yamlfile.type_name(value)}")
    known = (*required, *optional)
    for key in value:
        if key not in known:
            hint = suggestion(str(key), [str(k) for k in known])
            raise UserError(child(where, key), f"unknown key{hint} (expected {', '.join(str(k) for k in known)})")
    for key in required:
        if key not in value:
            raise UserError(where, f"missing `{key}`")
    return value


def sequence(value: Any, where: str) -> list:
    if not isinstance(value, list):
        raise UserError(where, f"expected a list, got {yamlfile.type_name(value)}")
    return value


def text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UserError(where, f"expected a name, got {yamlfile.type_name(value)}")
    return value.strip()


def integer(value: Any, where: str, minimum: int = 0, maximum: int = 10**6) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(where, f"expected a whole number, got {yamlfile.type_name(value)}")
    if not minimum <= value <= maximum:
        raise UserError(where, f"expected a whole number from {minimum} to {maximum}, got {value}")
    return value


def boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise UserError(where, f"expected true or false, got {yamlfile.type_name(value)}")
    return value


def ratio(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise UserError(where, f"expected a fraction from 0 to 1, got {yamlfile.type_name(value)}")
    return float(value)


def name_key(name: str) -> str:
    """How names compare: accents, case, hyphens and apostrophes do not matter."""
    plain = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in plain if not unicodedata.combining(c)).casefold()
    for mark in "-'’.":
        plain = plain.replace(mark, " ")
    return " ".join(plain.split())


def suggestion(name: str, candidates: list[str]) -> str:
    """`` (did you mean 'X'?)`` for the closest candidate, or an empty string."""
    keys = {name_key(c): c for c in candidates}
    close = difflib.get_close_matches(name_key(name), list(keys), n=1, cutoff=0.6)
    return f" (did you mean {keys[close[0]]!r}?)" if close else ""
