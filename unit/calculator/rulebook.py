"""What the rule modules share: a sentence in the table's language, and the problems a check finds."""

from __future__ import annotations

from dataclasses import dataclass, field

from unit import i18n


def words(language: str, key: str, /, **values: object) -> str:
    """The calculator's sentence ``key`` (under ``calculator.`` in unit/locales/) in ``language``."""
    return i18n.words(language)(f"calculator.{key}", **values)


def shown(value: object, language: str) -> str:
    """How a wrong value read from a file is named in a message (``text 'chess'``, ``le texte 'chess'``)."""
    if value is None:
        return words(language, "got.null")
    if isinstance(value, bool):
        return words(language, "got.boolean", v=str(value).lower())
    if isinstance(value, (int, float)):
        return words(language, "got.number", v=repr(value))
    if isinstance(value, str):
        return words(language, "got.text", v=repr(value if len(value) <= 40 else value[:37] + "..."))
    if isinstance(value, list):
        return words(language, "got.list")
    if isinstance(value, dict):
        return words(language, "got.mapping")
    return type(value).__name__


@dataclass
class Deal:
    """What the bank pays or asks for, with the reasons."""

    amount: int
    explanation: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Problem:
    """One broken rule in a position: who, where, which rule (a stable id) and why, in words."""

    player: str | None
    square: str | None
    rule: str
    message: str


class Problems(list):
    """The problems a check collects, worded in one language."""

    def __init__(self, language: str):
        super().__init__()
        self.language = language

    def add(self, player: str | None, square: str | None, rule: str, **values: object) -> None:
        """One problem, worded by the catalog entry ``calculator.check.<rule>``."""
        self.append(Problem(player, square, rule, words(self.language, f"check.{rule}", **values)))

    def owned_once(self, owners: dict[str, list[str]]) -> None:
        """Every square or district has at most one owner (``owners``: square -> the players holding it)."""
        for square, names in owners.items():
            if len(names) > 1:
                self.add(
                    ", ".join(names),
                    square,
                    "owned_once",
                    s=square,
                    o=", ".join(names),
                )
