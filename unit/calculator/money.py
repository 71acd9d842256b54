"""Money as the table says it: ``12.5M``, ``12,5M``, ``M 500k``, ``500k``, ``1200``.

Amounts are whole numbers of the game's money (Monopoly City's M, the classic
game's units); JSON output gives plain integers.
"""

from __future__ import annotations

import re
from decimal import Decimal

from unit import yamlfile
from unit.errors import UserError

_AMOUNT = re.compile(r"^(?:M\s*)?(\d+(?:[.,]\d+)?)\s*([kKmM])?$")
_SCALE = {None: 1, "k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}
MAX_AMOUNT = 10**12


def parse(value: object, where: str) -> int:
    """An amount written as the table writes it; :class:`UserError` naming ``where`` otherwise."""
    if isinstance(value, bool):
        raise UserError(where, f"expected an amount like 12.5M, 500k or 1200, got {value}")
    if isinstance(value, int):
        amount = value
    elif isinstance(value, float) and value.is_integer():
        amount = int(value)
    elif isinstance(value, str) and (match := _AMOUNT.match(value.strip().replace("\u202f", "").replace(" ", ""))):
        number, unit = match.groups()
        exact = Decimal(number.replace(",", ".")) * _SCALE[unit]  # the pattern admits only decimals
        if exact != exact.to_integral_value():
            raise UserError(where, f"expected a whole amount, {value!r} is {exact}")
        amount = int(exact)
    else:
        raise UserError(where, f"expected an amount like 12.5M, 500k or 1200, got {yamlfile.type_name(value)}")
    if amount < 0:
        raise UserError(where, f"expected an amount of at least 0, got {amount}")
    if amount > MAX_AMOUNT:
        raise UserError(where, f"expected an amount of at most {MAX_AMOUNT:,}, got {amount:,}")
    return amount


def city(amount: int, language: str = "fr") -> str:
    """Monopoly City's way: ``M 1,5M``, ``M 500k`` (``M 1.5M`` in English)."""
    if amount >= 1_000_000 and amount % 1_000 == 0:
        text = f"{Decimal(amount) / 1_000_000:f}".rstrip("0").rstrip(".") + "M"
    elif amount >= 1_000 and amount % 1_000 == 0:
        text = f"{amount // 1_000}k"
    else:
        text = f"{amount:,}".replace(",", "\u202f" if language == "fr" else ",")
    if language == "fr":
        text = text.replace(".", ",")
    return f"M {text}"


def classic(amount: int) -> str:
    """The classic game's way: a plain number."""
    return str(amount)


def field(value: object, where: str, nullable: bool = False) -> int | None:
    """An amount read from a file (an edition, a game): :func:`parse`, or None where null is allowed."""
    if value is None and nullable:
        return None
    return parse(value, where)
