"""The validation vocabulary: checked reading of parsed YAML, for every file the project reads.

Configuration, scenarios, editions and game files all check their values with
these functions: each takes the value and ``where`` it was found (the file,
then after a colon the place inside it) and returns the checked value, or
raises :class:`~unit.errors.UserError` with one line naming the place and what
was expected, e.g. ``my-city.yaml: groups[0].districts[2].rents: expected 9
amounts (0 to 8 blocks), got 8``.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable
from typing import Any

from unit import yamlfile
from unit.errors import Text, UserError


def got(value: object) -> Text:
    """What was found instead, in words: ``got a list``, ``got text 'abc'``."""
    if value is None:
        return Text("errors.got_null")
    if isinstance(value, bool):
        return Text("errors.got_boolean", value=str(value).lower())
    if isinstance(value, (int, float)):
        return Text("errors.got_number", value=repr(value))
    if isinstance(value, str):
        if yamlfile.looks_like_an_old_number(value):
            return Text("errors.got_old_number", value=repr(value))
        return Text("errors.got_text", value=yamlfile.shown(value))
    if isinstance(value, list):
        return Text("errors.got_list")
    if isinstance(value, dict):
        return Text("errors.got_mapping")
    return Text("errors.got_other", type=type(value).__name__)


def hint(name: str, candidates: list[str]) -> Text | str:
    """`` (did you mean 'X'?)`` for the closest candidate, or nothing."""
    keys = {name_key(c): c for c in candidates}
    import difflib  # only for a name not found: a suggestion

    close = difflib.get_close_matches(name_key(name), list(keys), n=1, cutoff=0.6)
    return Text("errors.did_you_mean", name=repr(keys[close[0]])) if close else ""


def child(where: str, key: object) -> str:
    """The place of ``key`` inside ``where``: ``file.yaml: key``, then ``file.yaml: key.sub``."""
    return f"{where}.{key}" if ": " in where else f"{where}: {key}"


def mapping(value: Any, where: str, required: tuple[str, ...] = (), optional: tuple[str, ...] = ()) -> dict[Any, Any]:
    """A mapping with exactly these keys (``required`` must be present)."""
    if not isinstance(value, dict):
        raise UserError(where, Text("errors.expected_mapping", got=got(value)))
    known = (*required, *optional)
    for key in value:
        if key not in known:
            names = [str(k) for k in known]
            raise UserError(
                child(where, key), Text("errors.unknown_key", hint=hint(str(key), names), known=", ".join(names))
            )
    for key in required:
        if key not in value:
            raise UserError(where, Text("errors.missing_key", key=key))
    return value


def sequence(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise UserError(where, Text("errors.expected_list", got=got(value)))
    return value


def text(value: Any, where: str, *, what: str = "name", strip: bool = True, one_line: bool = False) -> str:
    """A non-empty text; ``what`` is ``name`` or ``text`` (how the error calls it).

    ``one_line``: no newline nor escape code (a shell command's, never meant there).
    """
    if not isinstance(value, str) or not value.strip():
        raise UserError(where, Text(f"errors.expected_{what}", got=got(value)))
    if one_line and not value.isprintable():
        raise UserError(where, Text("errors.expected_one_line", got=got(value)))
    return value.strip() if strip else value


def number(
    value: Any,
    where: str,
    *,
    minimum: float = 0,
    maximum: float,
    positive: bool = False,
    nullable: bool = False,
) -> float | None:
    """A finite real number in a range (YAML's booleans are ints to Python, but not numbers here)."""
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        key = "errors.expected_number_or_null" if nullable else "errors.expected_number"
        raise UserError(where, Text(key, got=got(value)))
    if positive and value <= 0:
        raise UserError(where, Text("errors.expected_positive", value=repr(value)))
    if value < minimum:
        raise UserError(where, Text("errors.expected_at_least", minimum=minimum, value=repr(value)))
    if value > maximum:
        raise UserError(where, Text("errors.expected_at_most", maximum=maximum, value=repr(value)))
    return value


def seconds(value: Any, where: str, *, maximum: float, positive: bool = False) -> float:
    """A time in seconds, as a scenario writes it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UserError(where, Text("errors.expected_seconds", got=got(value)))
    if value < 0 or (positive and value == 0):
        key = "errors.expected_positive_seconds" if positive else "errors.expected_non_negative_seconds"
        raise UserError(where, Text(key, value=f"{value:g}"))
    if value > maximum:
        raise UserError(where, Text("errors.expected_at_most_seconds", maximum=f"{maximum:g}", value=f"{value:g}"))
    return float(value)


def choice(value: Any, where: str, options: Iterable[str]) -> str:
    """One of a few words (a StrEnum's values, typically)."""
    options = [str(o) for o in options]
    if not isinstance(value, str) or value not in options:
        raise UserError(where, Text("errors.expected_one_of", options=", ".join(options), got=got(value)))
    return value


def unknown_key(where: str, key: object, known: Iterable[object]) -> UserError:
    """The error for ``key``, found at ``where``, that the schema does not have (with a suggestion when close)."""
    names = [str(k) for k in known]
    return UserError(where, Text("errors.unknown_key_of", hint=hint(str(key), names), known=", ".join(names)))


def integer(value: Any, where: str, minimum: int = 0, maximum: int = 10**6) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(where, Text("errors.expected_whole_number", got=got(value)))
    if not minimum <= value <= maximum:
        raise UserError(where, Text("errors.expected_whole_number_from", minimum=minimum, maximum=maximum, value=value))
    return value


def boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise UserError(where, Text("errors.expected_boolean", got=got(value)))
    return value


def ratio(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise UserError(where, Text("errors.expected_fraction", got=got(value)))
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
    import difflib  # only for a name not found: a suggestion

    close = difflib.get_close_matches(name_key(name), list(keys), n=1, cutoff=0.6)
    return f" (did you mean {keys[close[0]]!r}?)" if close else ""
