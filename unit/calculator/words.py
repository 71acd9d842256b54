"""The calculator's words: its sentences (catalog keys under ``calculator.`` and ``bank.``), said later in the reader's
language, and the refusal every rule raises.

The lowest floor of the calculator (docs/dev/architecture.md, « the calculator in layers »): the money, the names, the
editions, the game files and the rules all say their sentences with these, and import nothing else of the calculator.
"""

from __future__ import annotations

from collections.abc import Iterable

from unit import i18n
from unit.errors import Say, Text, UserError


def words(language: str, key: str, /, **values: object) -> str:
    """The calculator's sentence ``key`` (under ``calculator.`` in unit/locales/) in ``language``."""
    return i18n.words(language)(f"calculator.{key}", **values)


def said(key: str, /, **values: object) -> Text:
    """The calculator's sentence ``key`` with its values, to be said later in the reader's language."""
    return Text(f"calculator.{key}", **values)


class ByLanguage(Text):
    """A name an edition gives in French only (a classic colour group): French readers read it, the others read its
    identifier (``dark_blue`` -> ``dark blue``)."""

    __slots__ = ()

    def __init__(self, french: str, identifier: str):
        super().__init__("calculator.name", fr=french, other=identifier.replace("_", " "))

    def say(self, words: Say) -> str:
        return str(self.values["fr" if getattr(words, "language", i18n.REFERENCE) == "fr" else "other"])


class Phrase(Text):
    """Words said one after the other (« Bruno → Alice · M 600k · loyer de Docks »): each part a :class:`Text` said in
    the reader's language, or a literal (a name, an arrow, a number) as it is."""

    __slots__ = ()

    def __init__(self, *parts: object, key: str = "calculator.phrase", **values: object):
        super().__init__(key, parts=parts, **values)

    def between(self, words: Say) -> str:
        """What goes between two parts: nothing."""
        return ""

    def say(self, words: Say) -> str:
        parts = self.values["parts"]
        assert isinstance(parts, tuple)
        return self.between(words).join(part.say(words) if isinstance(part, Text) else str(part) for part in parts)


class Joined(Phrase):
    """Several words said as one list (``Front de Mer (M 480k), Docks (M 600k)``): each part in the reader's
    language, joined by ``separator`` (a catalog key, when the languages punctuate differently) or by a comma."""

    __slots__ = ()

    def __init__(self, parts: Iterable[Text | str], separator: str | None = None):
        super().__init__(*parts, key="calculator.joined", separator=separator)

    def between(self, words: Say) -> str:
        separator = self.values["separator"]
        return ", " if separator is None else words(str(separator))


class ActionRefused(UserError):
    """An action the bank refuses (:mod:`unit.calculator.bank`): ``message`` is the rule's sentence, a
    :class:`Text` said in the reader's language where the refusal is shown (:meth:`say`); ``key`` names it
    (``bank.short``, ``calculator.check.max_blocks``). Like every :class:`UserError`, ``str()`` is English: the
    bank never learns who reads."""

    def __init__(self, message: Text):
        super().__init__("", message)
        self.key = message.key
        self.text = message


def refused(key: str, /, **values: object) -> ActionRefused:
    """The bank's refusal ``key`` (under ``bank.`` in unit/locales/) with its values."""
    return ActionRefused(Text(f"bank.{key}", **values))


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
