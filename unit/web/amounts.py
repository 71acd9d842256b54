"""An amount typed on the phone, checked for the slips a banker makes (issue 27 item 3): nothing recorded silently.

- In a City game nothing costs under M 10k (the smallest note): ``500`` is a forgotten k. The page asks back
  « M 500 ou M 500k ? » with both answers as taps; ``M 500`` (the currency written) is an amount in full, taken.
- A negative amount (``-500k``) is refused with the command line's own sentence (« -500k : un montant s'écrit sans
  signe moins : écrivez 500k »): on the page the direction is the button (« → Bruno », « ← la banque »).

(The ledger's ``money.slip`` says the same for the command line; this module is the pages' side of it.)
"""

from __future__ import annotations

import re

from unit import i18n
from unit.calculator import position as positions
from unit.errors import Text, UserError

#: The smallest amount a City game has (« M 10k », the smallest note): less, typed as a bare number, is a slip.
CITY_SMALLEST = 10_000
#: A bare number: digits (grouped or not), no scale (k, M) and no currency written.
_BARE = re.compile(r"[0-9][0-9  .,]*")
_MINUS = ("-", "−", "–")


def slip(
    game: positions.Game, typed: str, amount: int, language: str
) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """The question to ask back for ``typed`` (read as ``amount``), and its two answers (words, value to send);
    None when the amount is taken as typed."""
    text = typed.strip()
    if game.kind != "city" or not 0 < amount < CITY_SMALLEST or not _BARE.fullmatch(text):
        return None
    words = i18n.words(language)
    small, large = f"M {text}", f"M {text}k"
    return words("web.table.slip", a=small, b=large), ((small, small), (large, f"{text}k"))


def negative(typed: str, where: str) -> UserError | None:
    """The command line's refusal of an amount written with a minus sign, or None."""
    text = typed.strip()
    if text.startswith(_MINUS) and text[1:].strip():
        return UserError(where, Text("cli.argparse.negative_amount", typed=text, amount=text[1:].strip()))
    return None
