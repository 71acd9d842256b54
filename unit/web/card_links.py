"""The address of a City card's page (unit/web/cards.py): what the other pages link to, and nothing else.

Apart from :mod:`unit.web.cards` so that the game's pages (:mod:`unit.web.game`), which that module reads, can
link to it: ``card_url(game, "rent", "Docks", back=...)``. The query's words: docs/phone.en.md and the lead's
note cards-api.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

#: The pending action's words in a query: whom it is for, and what the bank was given.
ACTION_KEYS = ("player", "payer", "price", "sale")
#: The needs whose values are the board's (the GO salary, the industry tax, a hazard's worth), not a card's.
BOARD_NEEDS = ("salary", "tax", "hazard")


@dataclass(frozen=True)
class Ask:
    """The card page's query: the need, the district, the bank's pending action, where to go back."""

    need: str
    district: str | None
    player: str = ""  # a place at the table (digits), as the bank's forms name players
    payer: str = ""
    price: str = ""  # an auction's price, as typed
    sale: str = ""  # the box's sale it records
    back: str | None = None  # a path of this game

    def query(self, **changes: Any) -> str:
        """The query of this ask (``changes`` replaced), empty values left out."""
        values = dataclasses.asdict(self) | changes
        pairs = {"for": values["need"], "district": values["district"]} | {k: values[k] for k in ACTION_KEYS}
        pairs |= {"back": values["back"], "saved": changes.get("saved")}
        return urlencode({k: v for k, v in pairs.items() if v})

    @property
    def board(self) -> bool:
        """Whether the values asked are the board's (the GO salary, the industry tax, a hazard's worth)."""
        return self.need in BOARD_NEEDS


def card_url(game_name: str, need: str, district: str | None = None, **action: str | None) -> str:
    """The card page's address for ``need`` on ``district`` (``action``: player, payer, price, sale, back)."""
    ask = Ask(need, district, **{k: v or "" for k, v in action.items() if k in ACTION_KEYS})
    return f"/games/{game_name}/card?{ask.query(back=action.get('back'))}"


def digits(text: str | None) -> str:
    text = text or ""
    return text if text.isascii() and text.isdigit() and len(text) < 3 else ""


def safe_back(text: str | None, game_name: str) -> str | None:
    """``text`` when it is a path of this game (``/games/NAME``, or below it), else None: never another site."""
    text = text or ""
    root = f"/games/{game_name}"
    if len(text) > 400 or not text.isprintable() or "\\" in text or "//" in text:
        return None
    return text if text == root or text.startswith((root + "/", root + "?", root + "#")) else None
