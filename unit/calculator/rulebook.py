"""What the rule modules share: the reports they return and the interface of a game kind's rules (:class:`Rules`,
one object per kind: :class:`unit.calculator.city.MonopolyCity`, :class:`unit.calculator.classic.ClassicMonopoly`).

The rules compute values. Every sentence they produce is a :class:`unit.errors.Text` (a catalog key under
``calculator.`` and its values, made with :mod:`unit.calculator.words`), put into words only where a line is printed
or a page rendered, in the reader's language: no rule takes a language.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from unit.calculator.actions import Build as Building
from unit.calculator.edition import Edition
from unit.calculator.history import COUNTS
from unit.calculator.position import Game, Holding, Player, all_fields, holding_of
from unit.calculator.words import ActionRefused as ActionRefused  # kept where callers found them before words.py
from unit.calculator.words import ByLanguage as ByLanguage
from unit.calculator.words import Joined as Joined
from unit.calculator.words import Phrase as Phrase
from unit.calculator.words import refused as refused
from unit.calculator.words import said as said
from unit.calculator.words import shown as shown
from unit.calculator.words import words as words
from unit.errors import ArgumentError, Say, Text, UserError

# --- the reports ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """What the bank pays or asks for, with the reasons."""

    amount: int
    explanation: tuple[Text, ...] = ()


@dataclass(frozen=True)
class Mortgage:
    """A property's mortgage: its value, what lifting it costs, and what the bank pays or asks for now."""

    value: int
    lift: int
    deal: Deal


@dataclass(frozen=True)
class Problem:
    """One broken rule in a position: who, where, which rule (a stable id) and why, in words to be said."""

    player: str | None
    square: str | None
    rule: str
    message: Text


class Problems(list[Problem]):
    """The problems a check collects."""

    def add(self, player: str | None, square: str | None, rule: str, **values: object) -> None:
        """One problem, worded by the catalog entry ``calculator.check.<rule>``."""
        self.append(Problem(player, square, rule, said(f"check.{rule}", **values)))

    def owned_once(self, owners: dict[str, list[str]]) -> None:
        """Every square or district has at most one owner (``owners``: square -> the players holding it)."""
        for square, names in owners.items():
            if len(names) > 1:
                self.add(", ".join(names), square, "owned_once", s=square, o=", ".join(names))


@dataclass(frozen=True)
class RentReport:
    """What a player landing on a square pays, and why (``rent``).

    ``needs_dice``: the rent is a multiple of the dice and none were given (a classic utility's owner charges by
    the throw): ``rent`` is 0 until they are. ``blocks_counted`` is City's (a card's rent); ``exemption_card`` says
    the game has the rent-exemption card (City), and ``exemption`` who holds it, the owner aside.
    """

    square: str | None  # None: a card's rent (``rent --card``), which names no square
    owner: str | None
    rent: int
    explanation: tuple[Text, ...]
    total: Text  # « Loyer : M 1,5M »
    needs_dice: bool = False
    blocks_counted: int | None = None
    exemption_card: bool = False
    exemption: str | None = None

    @property
    def title(self) -> str:
        """The square, and its owner in brackets."""
        return f"{self.square} ({self.owner})" if self.owner else self.square or ""

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules the computation applied, as the catalog names their sentences (``calculator.rent.hotel``)."""
        return tuple(line.key for line in self.explanation)


@dataclass(frozen=True)
class Fortune:
    """One player's fortune: the cash, and what each holding counts for (its buildings included)."""

    name: str
    cash: int
    holdings: tuple[tuple[str, int], ...]

    @property
    def assets(self) -> int:
        return sum(value for _, value in self.holdings)

    @property
    def fortune(self) -> int:
        return self.cash + self.assets


@dataclass(frozen=True)
class FortuneReport:
    """Every player's fortune, richest first (``fortune``); ``variant``: classic's ``timed`` or ``quick``."""

    variant: str | None
    players: tuple[Fortune, ...]
    title: Text

    @property
    def winners(self) -> tuple[str, ...]:
        best = max(p.fortune for p in self.players)
        return tuple(p.name for p in self.players if p.fortune == best)

    @property
    def verdict(self) -> Text:
        """« Gagnant : Alice », or the players tied first."""
        winners = self.winners
        if len(winners) == 1:
            return said("fortune.winner", w=winners[0])
        return said("fortune.winners", w=", ".join(winners))


@dataclass(frozen=True)
class CheckReport:
    """The rules a position breaks (``check``); none: a legal position."""

    variant: str | None
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Situation:
    """A square described without a game file (``rent --edition``, ``rent --card``): its buildings and what around it
    changes the rent. City reads the blocks, the hazard and the doublings; classic the houses, the hotel, the group
    and the dice."""

    residential: int = 0
    industrial: int = 0
    hazard: bool = False
    skyscraper: bool = False
    tower: bool = False
    mortgaged: bool = False
    houses: int = 0
    hotel: bool = False
    group: bool = False
    dice: int | None = None


class Place(NamedTuple):
    """A square (classic) or a district (City) in board order: its name, its kind (``street``, ``station``,
    ``tax``...; ``district``) and its colour group (``""``: none, a station, a utility, a tax)."""

    name: str
    kind: str
    group: str


# --- a game kind's rules ----------------------------------------------------------------------


class Rules(ABC):
    """The rules of one kind of game, behind one interface: the commands and the pages ask the same questions of
    Monopoly City and of classic Monopoly, and each kind answers. One object per kind, chosen once when a game or an
    edition is read (:func:`unit.calculator.rules.of`), as python-chess has one board class per variant."""

    #: ``city`` or ``classic``: the edition's ``game``.
    kind: ClassVar[str]
    #: What a player holds, as the game file names the list (``districts``, ``properties``).
    holdings_key: ClassVar[str]
    #: The values of :class:`Situation` this kind has no use for: given, they are refused.
    foreign: ClassVar[tuple[str, ...]]
    #: The commands this kind of game has no use for, and the sentence that says why.
    lacks: ClassVar[dict[str, str]] = {}
    #: A holding's fields as the game file writes them (what a correction may set).
    holding_fields: ClassVar[tuple[str, ...]]
    #: The variant played when none is named (classic's ``timed``; City has none).
    default_variant: ClassVar[str | None] = None

    def amount(self, amount: int) -> object:
        """An amount inside a sentence: a number (classic), or a :class:`Text` that writes it the game's way."""
        return amount

    def write(self, amount: int, words: Say) -> str:
        """An amount as this game writes it, in the language of ``words`` (the edge's: a line, a page)."""
        return str(amount)

    def written(self, amount: int, language: str) -> str:
        """An amount as a new game file writes it (``game new``): a number, or City's quoted ``"M 37,7M"``."""
        return str(amount)

    def total(self, key: str, amount: int) -> Text:
        """A report's last line (``rent.total``, ``salary.total``...) for ``amount``."""
        return said(key, a=self.amount(amount))

    def refuse_variant(self, variant: str | None) -> str | None:
        """The variant a command was asked for, checked: :class:`ArgumentError` if this kind has none."""
        return variant

    def variant_or_default(self, text: str | None) -> str | None:
        """The variant ``text`` names, or the one played when it names none (a page's ``?variant=``)."""
        return text if text in self.variants else self.default_variant

    @abstractmethod
    def places(self, game: Game) -> list[Place]:
        """Every square (or district) of the edition's board, in board order."""

    def group_name(self, game: Game, group: str) -> Text | str:
        """A colour group as a reader names it (City's are the edition's own words)."""
        return group

    @abstractmethod
    def holding_value(self, game: Game, player: Player, holding: Holding, variant: str | None) -> int:
        """What ``holding`` counts for in ``player``'s fortune (:meth:`fortunes`' figure for it)."""

    @abstractmethod
    def starting_cash(self, edition: Edition) -> int | None:
        """Each player's cash at the start (None: still to be copied into the edition)."""

    @abstractmethod
    def find(self, game: Game, typed: str, where: str) -> str:
        """The canonical name of the square (or district) ``typed``; :class:`UserError` naming ``where`` if none."""

    def rent_of(self, game: Game, typed: str, dice: int | None) -> RentReport:
        """``rent GAME SQUARE``: :meth:`rent` of the square ``typed`` (dice it has no use for refused first)."""
        self.refuse_dice(game, typed, dice)
        return self.rent(game, self.find(game, typed, "SQUARE"), dice)

    @abstractmethod
    def dice_refusal(self, game: Game, typed: str, dice: int | None) -> Text | None:
        """Why ``dice`` cannot be given for the rent of the square ``typed`` (City has no dice rent; classic: a
        street's, or 13), or None: none given, the rent is by the throw, or ``typed`` names no single square (the
        look-up says so). The rent refuses with it (:meth:`refuse_dice`); the rent page asks it to show its dice
        buttons with the sentence."""

    def refuse_dice(self, game: Game, typed: str, dice: int | None) -> None:
        """:class:`ArgumentError` naming ``dice`` with :meth:`dice_refusal`'s sentence, when there is one."""
        refusal = self.dice_refusal(game, typed, dice)
        if refusal is not None:
            raise ArgumentError("dice", refusal)

    def offers(self, command: str) -> None:
        """:class:`UserError` with the rule's sentence if this kind of game has no ``command`` (``tax``, ``sell``)."""
        if command in self.lacks:
            raise UserError(command, said(self.lacks[command]))

    @abstractmethod
    def rent(self, game: Game, name: str, dice: int | None) -> RentReport:
        """What a player landing on ``name`` pays its owner."""

    @abstractmethod
    def what_if(self, edition: Edition, typed: str, situation: Situation) -> RentReport:
        """The rent of the square ``typed`` in ``situation``, without a game file (``rent --edition``)."""

    @abstractmethod
    def fortunes(self, game: Game, variant: str | None) -> FortuneReport:
        """Every player's fortune, richest first."""

    @abstractmethod
    def check(self, game: Game, variant: str | None) -> CheckReport:
        """The rules the position breaks."""

    def new_problems(self, before: Game, after: Game, variant: str | None) -> list[Problem]:
        """The rules ``after`` breaks that ``before`` did not (the same player, square and rule): what a change
        broke. The bank and the page's corrections refuse a change with these, and let a position already broken
        (a file edited by hand) be mended one change at a time."""
        known = {(p.player, p.square, p.rule) for p in self.check(before, variant).problems}
        return [p for p in self.check(after, variant).problems if (p.player, p.square, p.rule) not in known]

    @abstractmethod
    def salary(self, game: Game, player: Player) -> Deal:
        """What ``player`` receives passing GO."""

    @abstractmethod
    def industry_tax(self, game: Game, player: Player) -> Deal:
        """What ``player`` owes on the industry tax square (City's only)."""

    @abstractmethod
    def owned(self, game: Game, typed: str) -> str:
        """The canonical name of the property ``typed``, one that can be held (for ``mortgage``, ``sell``)."""

    @abstractmethod
    def mortgage(self, game: Game, name: str) -> Mortgage:
        """Mortgaging ``name`` (held), or lifting its mortgage."""

    @abstractmethod
    def sell(self, game: Game, name: str, variant: str | None) -> Deal:
        """What the bank pays for the buildings on ``name`` (held)."""

    # --- what the table's bank asks (unit.calculator.bank): values, or a :class:`ActionRefused` with the rule's words

    #: The lowest bid an auction starts at.
    auction_minimum: ClassVar[int]
    #: The variants a command may name (classic's ``timed``, ``quick``).
    variants: ClassVar[tuple[str, ...]] = ()

    def holding(self, name: str, data: Mapping[str, Any]) -> Holding:
        """A holding of ``name`` from its fields as the history writes them (missing ones: the defaults)."""
        return holding_of(self.kind, name, data)

    def corrected(self, game: Game, holding: Holding, field: str, value: int | bool, variant: str | None) -> Holding:
        """``holding`` with its field ``field`` corrected to ``value`` (a count from 0 to 99, a flag): a correction
        (:class:`unit.calculator.actions.Correct`); the station, the hazard and the bonus have their own actions."""
        if field not in self.holding_fields or field in ("station", "hazard", "bonus"):
            raise refused(
                "unknown_field",
                f=field,
                k=", ".join(k for k in self.holding_fields if k not in ("station", "hazard", "bonus")),
            )
        if field in COUNTS:
            if isinstance(value, bool) or not 0 <= value <= 99:
                raise refused("count_range", f=Text(f"bank.key.{field}"), got=value)
            return holding_of(self.kind, holding.name, {**all_fields(holding), field: int(value)})
        return holding_of(self.kind, holding.name, {**all_fields(holding), field: bool(value)})

    @abstractmethod
    def jail_fine(self, game: Game) -> int:
        """What leaving jail costs."""

    def tax_square(self, game: Game, name: str) -> int | None:
        """What landing on ``name`` costs when it is a tax square (paid to the bank); None for a property."""
        return None

    @abstractmethod
    def price(self, game: Game, name: str) -> int:
        """The price printed on ``name``'s card; :class:`ActionRefused` when nobody can buy it or it is not copied
        yet."""

    @abstractmethod
    def build(self, game: Game, owner: Player, holding: Holding, order: Building) -> tuple[int, Holding]:
        """What the buildings of ``order`` on ``holding`` cost and the holding after; :class:`ActionRefused` when the
        rules forbid them (the position's own checks come after, :meth:`check`)."""

    @abstractmethod
    def sell_back(self, game: Game, holding: Holding, levels: int | None, variant: str | None) -> tuple[int, Holding]:
        """What the bank pays for ``levels`` of ``holding``'s buildings (None: all) and the holding after."""

    @abstractmethod
    def remove_hazard(self, game: Game, holding: Holding) -> tuple[int, Holding]:
        """What removing the hazard from ``holding`` costs, and the holding after."""

    def lift(self, game: Game, paid: int) -> int:
        """What lifting a mortgage costs when the bank paid ``paid`` for it."""
        return paid

    def built_in_group(self, game: Game, player: Player, name: str) -> list[str]:
        """The properties of ``name``'s group with buildings that must go back to the bank before ``name`` is
        mortgaged or sold to another player (classic); none where buildings stay with the property (City)."""
        return []

    def unbought(self, game: Game) -> int:
        """How many properties the bank still has, where trades must wait for every one to be bought."""
        return 0

    def transfer_interest(self, game: Game, holding: Holding) -> int:
        """What a player receiving the mortgaged ``holding`` owes the bank at once (classic's 10 %)."""
        return 0

    def seized(self, game: Game, holding: Holding) -> tuple[int, Holding]:
        """A bankrupt player's ``holding`` going to a creditor: what its buildings sold to the bank bring to the
        debt, and the holding the creditor receives."""
        return 0, holding


def refuse(situation: Situation, names: tuple[str, ...], key: str) -> None:
    """:class:`ArgumentError` naming the first of ``names`` set in ``situation`` (``key``: the sentence)."""
    for name in names:
        if getattr(situation, name):
            raise ArgumentError(name, said(key))
