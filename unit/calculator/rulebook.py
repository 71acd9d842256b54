"""What the rule modules share: a sentence in the table's language, and the problems a check finds."""

from __future__ import annotations

from dataclasses import dataclass

from unit import i18n


def words(language: str, key: str, /, **values: object) -> str:
    """The calculator's sentence ``key`` (under ``calculator.`` in unit/locales/) in ``language``."""
    return i18n.words(language)(f"calculator.{key}", **values)


def say(language: str, fr: str, en: str, **values) -> str:
    """One sentence in the table's language (French unless ``language`` is ``en``)."""
    return (fr if language == "fr" else en).format(**values)


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

    def add(self, player: str | None, square: str | None, rule: str, fr: str, en: str, **values) -> None:
        self.append(Problem(player, square, rule, say(self.language, fr, en, **values)))

    def owned_once(self, owners: dict[str, list[str]]) -> None:
        """Every square or district has at most one owner (``owners``: square -> the players holding it)."""
        for square, names in owners.items():
            if len(names) > 1:
                self.add(
                    ", ".join(names),
                    square,
                    "owned_once",
                    "{s} a plusieurs propriétaires : {o}",
                    "{s} has several owners: {o}",
                    s=square,
                    o=", ".join(names),
                )
