"""What a Monopoly City edition still lacks for the bank to do one thing (issue 27 item 4).

Monopoly City's values are printed only on the box's 22 cards, so a table may start a game with an edition
that has few of them, or none: the phone asks for a card's values the first time the bank needs them. This
module says which ones: :func:`missing` for a game, a need (buying a district, its rent, a block built...) and
a district gives the gaps, the card's fields (or the board's amounts) to copy first; :func:`gap_of` reads the
same from a refusal of the calculator (``bank.missing_price``, ``calculator.edition.missing_rents``...), which
names the card and the field it lacked.

Pure: the game and the edition as read, no file, no language. The bank's own checks stay the authority:
tests/test_card_needs.py proves, on random editions and positions, that the bank refuses for a missing value
exactly when :func:`missing` finds a gap, and that it names one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from unit.calculator.edition import HAZARDS, CityEdition
from unit.calculator.position import CityHolding, Game
from unit.errors import Text, UserError

#: What the bank may be about to do, and the card's fields each needs (the board's, for ``salary`` and ``tax``).
NEEDS: dict[str, tuple[str, ...]] = {
    "buy": ("price",),  # at the printed price
    "auction": (),  # the auction gives the price: only the card itself (its name, its group)
    "rent": ("rents",),  # the nine rents, 0 to 8 blocks: they go together
    "mortgage": ("rents",),  # « la valeur de l'hypothèque correspond à la valeur du loyer »
    "lift": ("rents",),
    "fortune": ("rents",),  # « la valeur du quartier est égale à la valeur du loyer »
    "residential": ("residential_cost",),
    "industrial": ("industrial_cost",),
    "build": ("residential_cost", "industrial_cost"),
    "skyscraper": ("skyscraper_cost",),  # the group's, printed at the bottom of each of its cards
    "hazard": (),  # removing the hazard on the district: what it is worth in blocks (the board's)
    "salary": ("go_salary",),
    "tax": ("industry_tax",),
}
#: The needs about the board, not a district's card.
BOARD_NEEDS = ("salary", "tax")
#: A card's own fields as :class:`Gap` names them (``card``: the district is not in the edition at all).
CARD_FIELDS = ("card", "price", "residential_cost", "industrial_cost", "rents", "skyscraper_cost")


@dataclass(frozen=True)
class Gap:
    """One value the bank needs and the edition lacks: a field of a district's card (``card``: the whole card,
    its name and group, when the edition has no such district), or of the board (``district`` None:
    ``go_salary``, ``industry_tax``, ``hazards.dump``...)."""

    district: str | None
    field: str

    @property
    def need(self) -> str:
        """The need that asks for this value first (``price`` -> ``buy``): what the card form is opened for."""
        if self.field.startswith("hazards."):
            return "hazard"
        return {
            "card": "auction",
            "price": "buy",
            "rents": "rent",
            "residential_cost": "residential",
            "industrial_cost": "industrial",
            "skyscraper_cost": "skyscraper",
            "go_salary": "salary",
            "industry_tax": "tax",
        }[self.field]


def missing(game: Game, need: str, district: str | None = None) -> tuple[Gap, ...]:
    """The values ``game``'s edition lacks for the bank to do ``need`` (one of :data:`NEEDS`) on ``district``.

    Empty when nothing is missing, and always for a classic game (its editions are complete). A district the
    edition does not have is the gap ``card`` first (the card in the banker's hand, not yet entered), then the
    need's fields. ``fortune`` without a district: every owned district's rents. ``hazard``: the value of the
    hazard standing on the district, if one does.
    """
    if need not in NEEDS:
        raise ValueError(f"unknown need {need!r}: one of {', '.join(NEEDS)}")
    if game.kind != "city":
        return ()
    edition = game.city
    if need == "fortune" and district is None:
        owned = [h.district for p in game.players for h in p.holdings]
        return tuple(gap for name in owned for gap in card_missing(edition, "rent", name))
    if need == "hazard":
        if district is None:
            return ()
        held = game.holding(district)
        hazard = held[1].hazard if held is not None and isinstance(held[1], CityHolding) else None
        if hazard is None or edition.hazards.get(hazard) is not None:
            return ()
        return (Gap(None, f"hazards.{hazard}"),)
    if need == "lift" and any(e.what == "mortgage" and e.square == district for e in game.history):
        return ()  # lifting costs what the bank paid (the history has it), not the rent value of now
    return card_missing(edition, need, district)


def card_missing(edition: CityEdition, need: str, district: str | None) -> tuple[Gap, ...]:
    """:func:`missing` on an edition alone: the card's fields (or the board's amounts) ``need`` asks for."""
    if need in BOARD_NEEDS:
        (key,) = NEEDS[need]
        return () if getattr(edition, key) is not None else (Gap(None, key),)
    if need == "hazard":
        return tuple(Gap(None, f"hazards.{h}") for h in HAZARDS if edition.hazards[h] is None)
    found = edition.districts.get(district) if district is not None else None
    if found is None:
        gaps = [Gap(district, "card")]
        gaps += [Gap(district, key) for key in NEEDS[need]]
        return tuple(gaps)
    gaps = []
    for key in NEEDS[need]:
        if key == "skyscraper_cost":
            lacking = edition.groups[found.group].skyscraper_cost is None
        else:
            lacking = getattr(found, key) is None
        if lacking:
            gaps.append(Gap(found.name, key))
    return tuple(gaps)


def gap_of(error: UserError) -> Gap | None:
    """The gap a calculator refusal names (a price, a block cost, the rents, the skyscraper price, the GO
    salary, the industry tax, a hazard's value), or None for any other refusal.

    The refusals are :class:`Text` with these keys and values (unit/locales, ``[bank]`` and
    ``[calculator]``); the group of a missing skyscraper price is given as ``group:NAME``, since the card form
    is a district's (the caller picks one of the group's)."""
    message = error.message
    if not isinstance(message, Text):
        return None
    values = message.values
    key = message.key
    if key == "bank.missing_price":
        return Gap(str(values["s"]), "price")
    if key == "calculator.edition.missing_rents":
        return Gap(str(values["d"]), "rents")
    if key == "bank.missing_cost":
        field = str(values["w"]).rsplit(".", 1)[-1]
        return Gap(str(values["s"]), field) if field in ("residential_cost", "industrial_cost") else None
    if key == "bank.missing_skyscraper_cost":
        return Gap(f"group:{values['g']}", "skyscraper_cost")
    if key in ("calculator.edition.missing_go_salary", "calculator.edition.missing_industry_tax"):
        return Gap(None, key.removeprefix("calculator.edition.missing_"))
    if key == "bank.missing_hazard":
        return Gap(None, f"hazards.{values['h']}")
    return None
