"""Money as the table says it: ``12.5M``, ``12,5M``, ``M 500k``, ``500 000``, ``37.700.000``, ``1200``.

Amounts are whole numbers of the game's money (Monopoly City's M, the classic
game's units); JSON output gives plain integers.

Reading (:func:`parse`), one rule per shape, and nothing else:

- ``1200``: a whole number;
- ``500 000``, ``500.000``, ``37.700.000``, ``1,234,567``: without ``k`` or ``M``, a space, a dot or a
  comma followed by groups of exactly three digits separates thousands (the same separator throughout);
- ``12,5M``, ``12.5M``, ``500k``, ``500 k``, ``1 500k``: with ``k`` or ``M``, one dot or comma is the
  decimal mark; the result must be whole;
- an ``M`` in front is the currency (``M 2M``, ``M10k``).

Refused, with a line saying what to write: ``1.5`` alone (1.5 what?), ``1,50,000``, ``-500k`` (``−500k``, the
Unicode minus, alike; ``-`` alone: an amount expected), ``∞``,
digits other than 0-9 (``１２``, ``١٢M``), and a YAML decimal number (``cash: 500.000`` unquoted is the
number 500.0 to YAML: the dots are gone before we see them).

Writing (:func:`city`): ``M 10M``, ``M 12,5M`` (French) / ``M 12.5M`` (English), ``M 500k``, and an
amount that is not a whole number of thousands in full, grouped (``M 1 234`` / ``M 1,234``).
Every amount from 0 to :data:`MAX_AMOUNT` reads back to itself (tests/test_money.py proves it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction

from unit import i18n
from unit.calculator.words import shown
from unit.calculator.words import words as catalog
from unit.errors import Say, Text, UserError

MAX_AMOUNT = 10**12
_MOST_DIGITS = 40  # more digits than any amount needs, even with a scale (12,5M)
SPACES = " \u00a0\u202f\u2009"  # space, no-break space, narrow no-break space (French), thin space
_GROUPED = rf"[0-9]{{1,3}}(?P<sep>[{SPACES}.,])[0-9]{{3}}(?:(?P=sep)[0-9]{{3}})*"
_SPACED = rf"[0-9]{{1,3}}(?P<sep>[{SPACES}])[0-9]{{3}}(?:(?P=sep)[0-9]{{3}})*"
_PREFIX = rf"(?:M[{SPACES}]*)?"
#: A whole number, its thousands grouped or not.
_WHOLE = re.compile(rf"{_PREFIX}(?P<int>[0-9]+|{_GROUPED})")
#: A number with a unit: ``12,5M``, ``1 500k``.
_SCALED = re.compile(rf"{_PREFIX}(?P<int>[0-9]+|{_SPACED})(?:[.,](?P<frac>[0-9]+))?[{SPACES}]?(?P<unit>[kKmM])")
#: A decimal without a unit: ``1.5``, ``12,50`` (1.5 what?).
_BARE_DECIMAL = re.compile(rf"{_PREFIX}[0-9]+[.,][0-9]+")
_SCALE = {"k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}


def parse(value: object, where: str, language: str = "fr", typed: bool = True) -> int:
    """An amount written as the table writes it; :class:`UserError` naming ``where`` otherwise. ``typed``: by a
    person on the page or the command line, whose minus sign is told as a slip (« écrivez 500k »); a file's is
    « attendu un montant d'au moins 0 »."""

    def words(key: str, /, **values: object) -> str:
        return catalog(language, f"money.{key}", **values)

    if isinstance(value, bool):
        raise UserError(where, words("expected", got=shown(value, language)))
    if isinstance(value, float):
        raise UserError(where, _decimal(value, language))
    if isinstance(value, int):
        amount = value
    elif isinstance(value, str):
        if sum(c.isdigit() for c in value) > _MOST_DIGITS:  # int() refuses 4,300 digits: said here first
            sep = catalog(language, "money.thousands_separator")
            got = shown(value, language)
            raise UserError(where, words("too_big", max=f"{MAX_AMOUNT:,}".replace(",", sep), got=got))
        amount = _parse_text(value.strip(), where, words, typed)
    else:
        raise UserError(where, words("expected", got=shown(value, language)))
    if amount < 0:
        raise UserError(where, words("negative", got=amount))
    if amount > MAX_AMOUNT:
        sep = catalog(language, "money.thousands_separator")
        raise UserError(
            where, words("too_big", max=f"{MAX_AMOUNT:,}".replace(",", sep), got=f"{amount:,}".replace(",", sep))
        )
    return amount


def _decimal(value: float, language: str) -> str:
    """The sentence for a number YAML read as a decimal: a whole one (``500.000`` unquoted is 500.0) lost its
    thousands; another (``1.5``) is a fraction the table writes with its unit (``1,5M``, ``1,5k``)."""
    if not math.isfinite(value) or value.is_integer():
        return catalog(language, "money.yaml_decimal", got=repr(value))
    mark = catalog(language, "money.decimal_mark")
    forms = []
    for unit, scale in (("M", 1_000_000), ("k", 1_000)):
        amount = Fraction(repr(value)) * scale
        if amount.denominator == 1 and amount >= 0:
            grouped = f"{int(amount):,}".replace(",", catalog(language, "money.thousands_separator"))
            forms.append(catalog(language, "money.form", text=repr(value).replace(".", mark) + unit, v=grouped))
    if not forms:
        return catalog(language, "money.whole", text=repr(value))
    return catalog(language, "money.yaml_fraction", got=repr(value), forms=catalog(language, "money.or").join(forms))


def _parse_text(text: str, where: str, words: Callable[..., str], typed: bool) -> int:
    if any(c.isdigit() and not c.isascii() for c in text):
        raise UserError(where, words("digits", text=text))
    if (match := _WHOLE.fullmatch(text)) is not None:
        return int(re.sub(r"[^0-9]", "", match["int"]))
    if (match := _SCALED.fullmatch(text)) is not None:
        whole = int(re.sub(r"[^0-9]", "", match["int"]))
        frac = match["frac"] or ""
        scale = _SCALE[match["unit"]]
        numerator = (whole * 10 ** len(frac) + int(frac or "0")) * scale
        amount, rest = divmod(numerator, 10 ** len(frac))
        if rest:
            raise UserError(where, words("whole", text=text))
        return int(amount)
    if _BARE_DECIMAL.fullmatch(text) is not None:
        written = re.sub(r"[.,]", words("decimal_mark"), text)  # 1,5M in French, 1.5M in English
        raise UserError(where, words("ambiguous", text=text, written=written))
    if text.lstrip().startswith(MINUS):  # typed: the command line's sentence, on the page too (issue 27)
        rest = unsigned(text)
        if rest is None:  # « - » alone: no number to be under 0, an amount expected
            raise UserError(where, words("expected_text", got=repr(text)))
        if typed:
            raise UserError(where, words("minus", typed=text.strip(), amount=rest))
        raise UserError(where, words("negative", got=text))
    raise UserError(where, words("expected_text", got=repr(text)))


#: The minus signs a person types: the hyphen, and the Unicode minus (U+2212) a phone's keyboard may give.
MINUS = ("-", "\u2212")


def unsigned(text: str) -> str | None:
    """The amount ``text`` writes after its minus sign (« -500k », « −500k »: « 500k »), told « écrivez 500k »; None
    without a sign, or with no amount after it (« - » alone is told that an amount is expected, not « attendu un
    montant d'au moins 0, reçu - »: there is no number to be under 0)."""
    stripped = text.strip()
    rest = stripped[1:].strip()
    if not stripped.startswith(MINUS) or not rest or rest.startswith(MINUS):
        return None
    try:
        _parse_text(rest, "", lambda key, /, **values: key, typed=False)
    except UserError:
        return None
    return rest


#: Under this, a Monopoly City amount typed as a bare number is asked back: nothing there costs less (« M 10k »).
CITY_SMALLEST = 10_000


def slip(text: str, amount: int) -> Text | None:
    """The question to ask back when ``text`` (read as ``amount``) looks like a City amount with its « k » forgotten:
    a bare number from 1 to 9999 (« 500 »), « M 500 ou M 500k ? ». Written in full, with the currency (« M 500 »), it
    is what it says. For a Monopoly City game only (a classic game's amounts are such numbers)."""
    typed = text.strip()
    if typed.isascii() and typed.isdigit() and 0 < amount < CITY_SMALLEST:
        return Text("calculator.money.slip", typed=typed)
    return None


def field(value: object, where: str, language: str = "fr") -> int:
    """An amount read from a file."""
    return parse(value, where, language, typed=False)


def optional(value: object, where: str, language: str = "fr") -> int | None:
    """An amount read from a file, or ``null`` (a value still to be copied from the cards)."""
    return None if value is None else parse(value, where, language, typed=False)


def city(amount: int, language: str = "fr") -> str:
    """Monopoly City's way: ``M 10M``, ``M 1,5M``, ``M 500k`` (``M 1.5M`` in English); exact, never rounded."""
    return said_city(amount, i18n.words(language))


def said_city(amount: int, words: Say) -> str:
    """:func:`city` in the language of ``words`` (a catalog's lookup, as :class:`unit.errors.Text` says)."""
    mark = words("calculator.money.decimal_mark")
    if amount >= 1_000_000 and amount % 1_000 == 0:
        millions, rest = divmod(amount, 1_000_000)
        text = str(millions) + (mark + f"{rest:06d}".rstrip("0") if rest else "") + "M"
    elif amount >= 1_000 and amount % 1_000 == 0:
        text = f"{amount // 1_000}k"
    else:
        text = f"{amount:,}".replace(",", words("calculator.money.thousands_separator"))
    return f"M {text}"


def classic(amount: int) -> str:
    """The classic game's way: a plain number."""
    return str(amount)


def text(kind: str, amount: int, language: str) -> str:
    """An amount as the game ``kind`` (city or classic) writes it."""
    return city(amount, language) if kind == "city" else classic(amount)


class CityAmount(Text):
    """An amount inside a sentence of the rules, written Monopoly City's way when the sentence is said (``M 1,5M``
    in French, ``M 1.5M`` in English): the rules compute the number, the reader's language writes it."""

    __slots__ = ()

    def __init__(self, amount: int):
        super().__init__("calculator.money.city", amount=amount)

    @property
    def amount(self) -> int:
        value = self.values["amount"]
        assert isinstance(value, int)
        return value

    def say(self, words: Say) -> str:
        return said_city(self.amount, words)
