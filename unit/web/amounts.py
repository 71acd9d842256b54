"""An amount typed on the phone, checked for the slips a banker makes (issue 27 item 3): nothing recorded silently.

- In a City game nothing costs under M 10k (the smallest note): ``500`` is a forgotten k. The page asks back
  « M 500 ou M 500k ? » with both answers as taps; ``M 500`` (the currency written) is an amount in full, taken.
- A negative amount (``-500k``) is refused by :func:`unit.calculator.money.parse` with the command line's own
  sentence (« -500k : un montant s'écrit sans signe moins : écrivez 500k »); on the page the direction is the
  button (« → Bruno », « ← la banque »).

The command line refuses the slip with :func:`unit.calculator.money.slip`'s sentence; the page asks it back with two
taps.
"""

from __future__ import annotations

from unit import i18n
from unit.calculator import money
from unit.calculator import position as positions


def slip(
    game: positions.Game, typed: str, amount: int, language: str
) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """The question to ask back for ``typed`` (read as ``amount``), and its two answers (words, value to send);
    None when the amount is taken as typed (:func:`unit.calculator.money.slip` says which are slips)."""
    text = typed.strip()
    if game.kind != "city" or money.slip(text, amount) is None:
        return None
    words = i18n.words(language)
    small, large = f"M {text}", f"M {text}k"
    return words("web.table.slip", a=small, b=large), ((small, small), (large, f"{text}k"))
