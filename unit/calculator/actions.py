"""The bank's actions: what a tap on the phone or a verb of the command line asks the bank to do, as plain values.

An action names its players and squares as they were typed (a unique beginning is enough; a party None is the bank).
:func:`unit.calculator.bank.apply` checks it against the rules and turns it into one history entry
(:mod:`unit.calculator.history`), or refuses it with the rule's sentence. Nothing here knows the rules: adding an
action is a value here, its rules in :mod:`unit.calculator.bank`, its words in the catalog.
"""

from __future__ import annotations

from dataclasses import dataclass

#: What the command line and the pages may type for the bank, in any language.
BANK_NAMES = ("banque", "bank", "la banque", "the bank")


@dataclass(frozen=True)
class Pay:
    """A free transfer: a trade's money, a Chance card, a loan the table agreed. Either side may be the bank."""

    payer: str | None
    payee: str | None
    amount: int
    note: str | None = None


@dataclass(frozen=True)
class PayRent:
    """The rent of ``square`` paid by ``payer`` to its owner (a classic tax square: to the bank).
    ``exemption``: the payer plays the rent-exemption card instead (City)."""

    payer: str
    square: str
    dice: int | None = None
    exemption: bool = False


@dataclass(frozen=True)
class Buy:
    """A square nobody holds, at its printed price, or at ``price`` when an auction sold it."""

    player: str
    square: str
    price: int | None = None


@dataclass(frozen=True)
class Build:
    """Buildings bought from the bank by the square's owner: City blocks, skyscraper, stadium, tower;
    classic houses or a hotel (``variant`` ``quick``: a hotel after 3 houses)."""

    square: str
    residential: int = 0
    industrial: int = 0
    skyscraper: bool = False
    stadium: bool = False
    tower: bool = False
    houses: int = 0
    hotel: bool = False
    variant: str | None = None

    def city(self) -> bool:
        """Whether a City building is ordered (blocks, skyscraper, stadium, tower)."""
        return bool(self.residential or self.industrial or self.skyscraper or self.stadium or self.tower)


@dataclass(frozen=True)
class SellBack:
    """Classic: a street's buildings sold back to the bank at half price. ``houses`` None: all of them (a hotel
    with the houses it stands for); N: N levels, a hotel being one (it goes back to 4 houses, 3 in the quick
    game, for half its price), each house the next."""

    square: str
    houses: int | None = None
    variant: str | None = None


@dataclass(frozen=True)
class RemoveHazard:
    """City: the owner pays M 500k per block the hazard is worth and it goes back to the bank."""

    square: str


@dataclass(frozen=True)
class Salary:
    """Passing GO: the salary from the bank (City: + M 1M per stadium)."""

    player: str


@dataclass(frozen=True)
class PayTax:
    """City: the industry tax; classic: the tax square ``square``."""

    player: str
    square: str | None = None


@dataclass(frozen=True)
class JailFine:
    """Leaving jail by paying the fine (City M 500k; classic: the edition's)."""

    player: str


@dataclass(frozen=True)
class Mortgage:
    square: str


@dataclass(frozen=True)
class Lift:
    square: str


@dataclass(frozen=True)
class Trade:
    """``squares`` go from ``seller`` to ``buyer``, who pays ``price`` (0 for a swap or a gift)."""

    seller: str
    buyer: str
    squares: tuple[str, ...]
    price: int = 0


@dataclass(frozen=True)
class Out:
    """``player`` is bankrupt and leaves the game; ``creditor`` None: the debt is the bank's."""

    player: str
    creditor: str | None = None


# --- what the table does outside the money: each an entry too (issue 27), with its line and its undo ----------


@dataclass(frozen=True)
class SetCash:
    """A correction: ``player``'s cash set to ``cash`` (the difference comes from the bank or goes back to it)."""

    player: str
    cash: int


@dataclass(frozen=True)
class Correct:
    """A correction: one field of ``square``'s holding set to ``value`` (City: ``residential``, ``industrial``,
    ``skyscraper``, ``stadium``, ``mortgaged``; classic: ``houses``, ``hotel``, ``mortgaged``). A hotel set or unset
    trades the houses it stands for (``variant`` ``quick``: 3, else 4). The station, the hazard and the bonus have
    their own actions (:class:`PlaceStation`, :class:`PlaceHazard`, :class:`PlaceBonus`)."""

    square: str
    field: str
    value: int | bool
    variant: str | None = None


@dataclass(frozen=True)
class Give:
    """A correction of the owner: ``square`` goes to ``to`` (None: back to the bank), no money moves; the Monopoly
    Tower goes with its district. A square nobody holds is given as the bank's card would be."""

    square: str
    to: str | None
    unowned: bool = False  # only a square nobody holds (a page's « Ajouter sans payer »)


@dataclass(frozen=True)
class SetTower:
    """A correction: ``player``'s Monopoly Tower stands on ``square`` (None: they have none)."""

    player: str
    square: str | None


@dataclass(frozen=True)
class PlaceStation:
    """The station draw (« vous pouvez construire une gare sur le quartier de votre choix gratuitement ! »): a station
    placed on ``square`` (a held district), free; ``placed`` False takes it off (a slip)."""

    square: str
    placed: bool = True


@dataclass(frozen=True)
class PlaceHazard:
    """A planning permission (« construire un bâtiment nuisible sur l'un des quartiers d'un autre joueur »): the hazard
    ``hazard`` placed on ``square``, free; None takes the hazard off without paying (a slip; the owner's paid removal
    is :class:`RemoveHazard`)."""

    square: str
    hazard: str | None


@dataclass(frozen=True)
class PlaceBonus:
    """A planning permission's bonus (« Construire un bâtiment bonus sur un de vos quartiers »), free; None: taken
    off."""

    square: str
    bonus: str | None


@dataclass(frozen=True)
class ExemptionCard:
    """The rent-exemption card goes to ``player`` (« prenez la carte exonération de loyer »), from whoever holds it;
    None: back beside Free Parking. Playing it is :class:`PayRent` with ``exemption``."""

    player: str | None


@dataclass(frozen=True)
class AddPlayer:
    """A player joins the game with ``cash`` from the bank (None: the edition's starting cash)."""

    name: str
    cash: int | None = None


@dataclass(frozen=True)
class RemovePlayer:
    """A player with nothing leaves the game (no cash, no holding); with anything, :class:`Out` (a bankruptcy, to a
    player or to the bank) is the only way: no money vanishes."""

    player: str


@dataclass(frozen=True)
class RecordHandChange:
    """The game file's difference from its start and its history (a text editor's change), recorded as one entry
    (:func:`unit.calculator.ledger.correction`): then undone like any other."""


Action = (
    Pay
    | PayRent
    | Buy
    | Build
    | SellBack
    | RemoveHazard
    | Salary
    | PayTax
    | JailFine
    | Mortgage
    | Lift
    | Trade
    | Out
    | SetCash
    | Correct
    | Give
    | SetTower
    | PlaceStation
    | PlaceHazard
    | PlaceBonus
    | ExemptionCard
    | AddPlayer
    | RemovePlayer
    | RecordHandChange
)
