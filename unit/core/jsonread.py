"""Reading JSON values back as the typed values they were, checked: a wrong type raises, never passes.

The codec of the views (:mod:`unit.core.views`) and the protocol's readers (:mod:`unit.core.protocol`)
read what another process sent; each reader raises :class:`TypeError` or :class:`ValueError` for a value
that is not what it should be, and the caller turns that into "not a view" or "not a record".
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

from unit.core.settings import BUILD_RESULTS, BuildResult

T = TypeVar("T")
Reader = Callable[[object], Any]


def integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(value)
    return value


def number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(value)
    return value


def boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(value)
    return value


def text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def texts(value: object) -> tuple[str, ...]:
    return tuple(text(item) for item in sequence(value))


def integers(value: object) -> tuple[int, ...]:
    return tuple(integer(item) for item in sequence(value))


def sequence(value: object) -> list[object] | tuple[object, ...]:
    if not isinstance(value, list | tuple):
        raise TypeError(value)
    return value


def build_result(value: object) -> BuildResult:
    """1, 2, 3 or "station" (``True`` is not 1 here)."""
    for result in BUILD_RESULTS:
        if type(value) is type(result) and value == result:
            return result
    raise ValueError(value)


def enum(kind: type[StrEnum]) -> Reader:
    return lambda value: kind(text(value))


def optional(read: Callable[[object], T]) -> Callable[[object], T | None]:
    """``read``, or None for a null."""
    return lambda value: None if value is None else read(value)
