"""The table's bank: every money movement of the game, checked against the rules, kept and undone.

An action (a frozen dataclass below: :class:`Pay`, :class:`PayRent`, :class:`Buy`, :class:`Build`...) is
checked against the rules of the game's kind and turned into one history entry
(:class:`unit.calculator.history.Entry`): who pays whom, how much, what for, and the position change
that goes with it. :func:`apply` returns the new game with that entry at the end of its history;
:func:`undo` takes the last entries back and restores cash and position exactly. An action the rules
refuse raises :class:`Refused`, carrying the catalog key of the rule's sentence; when the cash is short
the sentence says what the player can do (mortgage, sell back, the rent-exemption card).

Pure: no file, no clock. The pages and ``monopoly-city pay/buy/build/...`` both call :func:`apply` on
the game file's contents and write the result with :func:`unit.calculator.position.dumps`, so a game
kept by the page and one kept by the command line are the same file. The rents, salaries and values
come from the rule modules through :mod:`unit.calculator.bank_rules`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from unit import i18n
from unit.calculator import bank_rules as rules
from unit.calculator import money
from unit.calculator.edition import CityEdition, ClassicEdition, Street, Tax
from unit.calculator.history import CITY_KEYS, CLASSIC_KEYS, Change, Entry, Payment
from unit.calculator.position import CityHolding, ClassicHolding, Game, Player
from unit.errors import UserError
from unit.fields import name_key

#: « Coût : M 2M » (a stadium) and « Coût : M 7M » (the Monopoly Tower), seeds/regles-monopoly-city.txt.
STADIUM_COST = 2_000_000
TOWER_COST = 7_000_000
#: « payant à la banque M 500k par bâtiment » to remove a hazard.
HAZARD_REMOVAL_PER_BLOCK = 500_000
#: « Payer une amende de M 500k » to leave jail (City; the classic fine is the edition's).
CITY_JAIL_FINE = 500_000
#: « Les enchères commencent au montant [...] avec un minimum de M 10k » (City); « Les enchères commencent à M10 ».
CITY_AUCTION_MINIMUM = 10_000
CLASSIC_AUCTION_MINIMUM = 10
#: What the command line and the pages may type for the bank, in any language.
BANK_NAMES = ("banque", "bank", "la banque", "the bank")


class Refused(UserError):
    """An action the rules refuse: ``key`` is the catalog key of the sentence, ``message`` the sentence."""

    def __init__(self, key: str, message: str):
        super().__init__("", message)
        self.key = key


def say(language: str, key: str, /, **values: object) -> str:
    """The bank's sentence ``key`` (under ``bank.`` in unit/locales/) in ``language``."""
    return i18n.words(language)(f"bank.{key}", **values)


def refuse(language: str, key: str, /, **values: object) -> Refused:
    return Refused(f"bank.{key}", say(language, key, **values))


# --- the actions ------------------------------------------------------------------------------------
# Names are as typed (a unique beginning is enough); a party None is the bank.


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


Action = (
    Pay | PayRent | Buy | Build | SellBack | RemoveHazard | Salary | PayTax | JailFine | Mortgage | Lift | Trade | Out
)


# --- applying and undoing ---------------------------------------------------------------------------


def apply(game: Game, action: Action, language: str = "fr") -> tuple[Game, Entry]:
    """The game after ``action``, and the history entry it added; :class:`Refused` when the rules say no."""
    entry, variant = _entry(game, action, language)
    after = commit(game, entry, language)
    if not isinstance(action, Out):  # a bankruptcy is not a choice: it happens whatever the position
        before = {(p.player, p.square, p.rule) for p in rules.problems(game, variant)}
        for problem in rules.problems(after, variant):
            if (problem.player, problem.square, problem.rule) not in before:
                raise Refused(f"calculator.check.{problem.rule}", problem.message.say(i18n.words(language)))
    return after, entry


def undo(game: Game, count: int = 1, language: str = "fr") -> tuple[Game, tuple[Entry, ...]]:
    """The game with its last ``count`` entries taken back (last first), and those entries."""
    if count < 1:
        raise refuse(language, "undo_count", n=count)
    if count > len(game.history):
        raise refuse(language, "undo_too_many", n=count, h=len(game.history))
    undone = []
    for _ in range(count):
        entry = game.history[-1]
        game = revert(game, entry, language)
        undone.append(entry)
    return game, tuple(undone)


def commit(game: Game, entry: Entry, language: str) -> Game:
    """The position after ``entry``'s payments and changes, with ``entry`` added to the history."""
    table = _Table(game, language)
    table.pay(entry.payments)
    for change in entry.changes:
        table.change(change, forward=True)
    table.solvent()
    return replace(game, players=table.players(), history=(*game.history, entry))


def revert(game: Game, entry: Entry, language: str) -> Game:
    """The position before ``entry`` (the last of the history); refused when the file no longer matches it."""
    if not game.history or game.history[-1] != entry:
        raise refuse(language, "undo_not_last")
    table = _Table(game, language)
    for change in reversed(entry.changes):
        table.change(change, forward=False)
    table.pay(Payment(p.payee, p.payer, p.amount) for p in reversed(entry.payments))
    table.solvent()
    return replace(game, players=table.players(), history=game.history[:-1])


class _Table:
    """The players while an entry is applied or taken back, checking that the file still matches it."""

    def __init__(self, game: Game, language: str):
        self.game = game
        self.language = language
        self.seats: list[Player] = list(game.players)

    def players(self) -> tuple[Player, ...]:
        return tuple(self.seats)

    def index(self, name: str) -> int:
        for i, player in enumerate(self.seats):
            if player.name == name:
                return i
        raise refuse(self.language, "mismatch_player", p=name)

    def pay(self, payments: Iterable[Payment]) -> None:
        for p in payments:
            if p.payer is not None:
                i = self.index(p.payer)
                self.seats[i] = replace(self.seats[i], cash=self.seats[i].cash - p.amount)
            if p.payee is not None:
                i = self.index(p.payee)
                self.seats[i] = replace(self.seats[i], cash=self.seats[i].cash + p.amount)

    def solvent(self) -> None:
        for player in self.seats:
            if player.cash < 0:
                raise refuse(self.language, "negative", p=player.name)

    def change(self, change: Change, forward: bool) -> None:
        if change.left is not None:
            self._seat(change, leaving=forward)
            return
        before, after = (change.before, change.after) if forward else (change.after, change.before)
        i = self.index(change.player)
        player = self.seats[i]
        if change.field is not None:
            if getattr(player, change.field) != before:
                raise refuse(self.language, "mismatch", p=player.name, s=change.field)
            self.seats[i] = replace(player, **{change.field: after})
            return
        square = change.square or ""
        holdings = list(player.holdings)
        found = [j for j, h in enumerate(holdings) if _name(h) == square]
        if before is None:
            if found:
                raise refuse(self.language, "mismatch", p=player.name, s=square)
            if forward or change.at is None:
                holdings.append(holding_of(self.game, square, after))
            else:
                holdings.insert(change.at, holding_of(self.game, square, after))
        else:
            if not found:
                raise refuse(self.language, "mismatch", p=player.name, s=square)
            now = all_fields(holdings[found[0]])
            if after is None and holding_data(holdings[found[0]]) != before:
                raise refuse(self.language, "mismatch", p=player.name, s=square)
            if after is not None and any(now.get(k) != v for k, v in before.items()):
                raise refuse(self.language, "mismatch", p=player.name, s=square)
            if after is None:
                if forward and change.at is not None and change.at != found[0]:
                    raise refuse(self.language, "mismatch", p=player.name, s=square)
                if not forward and found[0] != len(holdings) - 1:
                    raise refuse(self.language, "mismatch", p=player.name, s=square)
                del holdings[found[0]]
            else:
                holdings[found[0]] = holding_of(self.game, square, {**now, **after})
        self.seats[i] = replace(player, holdings=tuple(holdings))

    def _seat(self, change: Change, leaving: bool) -> None:
        place = change.left or 0
        if leaving:
            i = self.index(change.player)
            player = self.seats[i]
            if i != place or player != Player(player.name, 0, ()):
                raise refuse(self.language, "mismatch_player", p=change.player)
            del self.seats[i]
        else:
            if any(p.name == change.player for p in self.seats) or place > len(self.seats):
                raise refuse(self.language, "mismatch_player", p=change.player)
            self.seats.insert(place, Player(change.player, 0, ()))


def holding_data(holding: CityHolding | ClassicHolding) -> dict[str, Any]:
    """A holding as the game file writes it, without its name (only what differs from the defaults)."""
    keys = CITY_KEYS if isinstance(holding, CityHolding) else CLASSIC_KEYS
    return {key: getattr(holding, key) for key in keys if getattr(holding, key)}


def holding_of(game: Game, square: str, data: dict[str, Any] | None) -> CityHolding | ClassicHolding:
    values = data or {}
    if isinstance(game.edition, CityEdition):
        return CityHolding(
            square,
            residential=int(values.get("residential", 0)),
            industrial=int(values.get("industrial", 0)),
            hazard=values.get("hazard"),
            bonus=values.get("bonus"),
            skyscraper=bool(values.get("skyscraper", False)),
            stadium=bool(values.get("stadium", False)),
            station=bool(values.get("station", False)),
            mortgaged=bool(values.get("mortgaged", False)),
        )
    return ClassicHolding(
        square, int(values.get("houses", 0)), bool(values.get("hotel", False)), bool(values.get("mortgaged", False))
    )


def _name(holding: CityHolding | ClassicHolding) -> str:
    return holding.district if isinstance(holding, CityHolding) else holding.square


def all_fields(holding: CityHolding | ClassicHolding) -> dict[str, Any]:
    """Every field of a holding but its name, defaults included."""
    keys = CITY_KEYS if isinstance(holding, CityHolding) else CLASSIC_KEYS
    return {key: getattr(holding, key) for key in keys}


def _set(game: Game, player: Player, holding: CityHolding | ClassicHolding, **values: Any) -> Change:
    """The change of some of a holding's fields: only those that change, before and after (defaults written)."""
    before = all_fields(holding)
    after = all_fields(replace(holding, **values))
    keys = [k for k in before if before[k] != after[k]]
    return Change(
        player.name, square=_name(holding), before={k: before[k] for k in keys}, after={k: after[k] for k in keys}
    )


# --- finding players and squares --------------------------------------------------------------------


def player_of(game: Game, typed: str, language: str, where: str = "PLAYER") -> Player:
    """A player by name (a unique beginning is enough); an unknown one is refused with the list of players."""
    return game.player(typed, where, language)


def party(game: Game, typed: str | None, language: str, where: str = "PLAYER") -> str | None:
    """A player's name, or None for the bank (``banque``, ``bank``), unless a player is called exactly that."""
    if typed is None:
        return None
    if name_key(typed) in {name_key(b) for b in BANK_NAMES} and not any(
        name_key(p.name) == name_key(typed) for p in game.players
    ):
        return None
    return player_of(game, typed, language, where).name


def square_of(game: Game, typed: str, language: str, where: str = "SQUARE") -> str:
    """The canonical name of the square or district ``typed``."""
    if isinstance(game.edition, CityEdition):
        return game.edition.district(typed, where, language).name
    return str(game.edition.square(typed, where, language).name)


def _owned(game: Game, square: str, language: str) -> tuple[Player, Any]:
    held = game.holding(square)
    if held is None:
        raise refuse(language, "nobody_owns", s=square)
    return held


# --- what each action means -------------------------------------------------------------------------


def _entry(game: Game, action: Action, language: str) -> tuple[Entry, str | None]:
    """The entry ``action`` makes (not yet applied), and the classic variant its check follows."""
    variant = getattr(action, "variant", None)
    if isinstance(action, Pay):
        return _pay(game, action, language), variant
    if isinstance(action, PayRent):
        return _rent(game, action, language), variant
    if isinstance(action, Buy):
        return _buy(game, action, language), variant
    if isinstance(action, Build):
        return _build(game, action, language), variant
    if isinstance(action, SellBack):
        return _sell(game, action, language), variant
    if isinstance(action, RemoveHazard):
        return _hazard(game, action, language), variant
    if isinstance(action, Salary):
        player = player_of(game, action.player, language)
        return Entry("salary", Payment(None, player.name, rules.salary(game, player, language))), variant
    if isinstance(action, PayTax):
        return _tax(game, action, language), variant
    if isinstance(action, JailFine):
        player = player_of(game, action.player, language)
        edition = game.edition
        fine = edition.rules.jail_fine if isinstance(edition, ClassicEdition) else CITY_JAIL_FINE
        _afford(game, player, fine, language)
        return Entry("fine", Payment(player.name, None, fine)), variant
    if isinstance(action, Mortgage):
        return _mortgage(game, action, language), variant
    if isinstance(action, Lift):
        return _lift(game, action, language), variant
    if isinstance(action, Trade):
        return _trade(game, action, language), variant
    return _out(game, action, language), variant


def _pay(game: Game, action: Pay, language: str) -> Entry:
    payer = party(game, action.payer, language, "PAYER")
    payee = party(game, action.payee, language, "PAYEE")
    if payer is None and payee is None:
        raise refuse(language, "bank_to_bank")
    if payer == payee:
        raise refuse(language, "same_player", p=payer)
    if action.amount <= 0:
        raise refuse(language, "nothing_to_pay")
    if payer is not None:
        _afford(game, player_of(game, payer, language), action.amount, language)
    note = action.note.strip() if action.note and action.note.strip() else None
    return Entry("pay", Payment(payer, payee, action.amount), note=note)


def _rent(game: Game, action: PayRent, language: str) -> Entry:
    payer = player_of(game, action.payer, language)
    square = square_of(game, action.square, language)
    edition = game.edition
    if isinstance(edition, ClassicEdition) and isinstance(edition.squares[square], Tax):
        tax = edition.squares[square]
        assert isinstance(tax, Tax)
        _afford(game, payer, tax.amount, language)
        return Entry("tax", Payment(payer.name, None, tax.amount), square=square)
    owner, holding = _owned(game, square, language)
    if owner.name == payer.name:
        raise refuse(language, "own_square", s=square, p=payer.name)
    if holding.mortgaged:
        raise refuse(language, "rent_mortgaged", s=square)
    if action.exemption:
        if not payer.exemption_card:
            raise refuse(language, "no_exemption_card", p=payer.name)
        change = Change(payer.name, field="exemption_card", before=True, after=False)
        return Entry("rent", Payment(payer.name, owner.name, 0), square=square, changes=(change,))
    amount = rules.rent(game, square, action.dice, language).amount
    if amount <= 0:
        raise refuse(language, "nothing_to_pay")
    _afford(game, payer, amount, language, rent=True)
    return Entry("rent", Payment(payer.name, owner.name, amount), square=square)


def _buy(game: Game, action: Buy, language: str) -> Entry:
    player = player_of(game, action.player, language)
    square = square_of(game, action.square, language)
    edition = game.edition
    held = game.holding(square)
    if held is not None:
        raise refuse(language, "already_owned", s=square, o=held[0].name)
    if isinstance(edition, CityEdition):
        district = edition.districts[square]
        printed = district.price
        minimum = CITY_AUCTION_MINIMUM
        if printed is None and action.price is None:
            raise refuse(language, "missing_price", s=square, w=f"{edition.source}: {district.where}.price")
    else:
        deed = edition.squares[square]
        if isinstance(deed, Tax):
            raise refuse(language, "tax_square", s=square)
        printed = deed.price
        minimum = CLASSIC_AUCTION_MINIMUM
    if action.price is None:
        price, what = printed or 0, "buy"
    else:
        if action.price < minimum:
            raise refuse(language, "auction_minimum", a=_money(game, minimum, language))
        price, what = action.price, "auction"
    _afford(game, player, price, language)
    change = Change(player.name, square=square, before=None, after={})
    return Entry(what, Payment(player.name, None, price), square=square, changes=(change,))


def _build(game: Game, action: Build, language: str) -> Entry:
    square = square_of(game, action.square, language)
    owner, holding = _owned(game, square, language)
    changes: list[Change] = []
    edition = game.edition
    if isinstance(edition, CityEdition):
        if action.houses or action.hotel:
            raise refuse(language, "classic_only")
        if not (action.residential or action.industrial or action.skyscraper or action.stadium or action.tower):
            raise refuse(language, "nothing_to_build")
        if action.residential < 0 or action.industrial < 0:
            raise refuse(language, "nothing_to_build")
        if holding.mortgaged:
            raise refuse(language, "build_mortgaged", s=square)
        district = edition.districts[square]
        cost = 0
        for kind, count in (("residential", action.residential), ("industrial", action.industrial)):
            if count:
                unit = getattr(district, f"{kind}_cost")
                if unit is None:
                    raise refuse(
                        language, "missing_cost", s=square, w=f"{edition.source}: {district.where}.{kind}_cost"
                    )
                cost += count * unit
        if action.skyscraper:
            if holding.skyscraper:
                raise refuse(language, "already_built", s=square)
            group = edition.groups[district.group]
            if group.skyscraper_cost is None:
                raise refuse(language, "missing_skyscraper_cost", g=group.name, w=f"{edition.source}: groups")
            cost += group.skyscraper_cost
        if action.stadium:
            if holding.stadium:
                raise refuse(language, "already_built", s=square)
            cost += STADIUM_COST
        if action.tower:
            if owner.tower is not None:
                raise refuse(language, "one_tower", s=owner.tower)
            cost += TOWER_COST
            changes.append(Change(owner.name, field="tower", before=None, after=square))
        changes.insert(
            0,
            _set(
                game,
                owner,
                holding,
                residential=holding.residential + action.residential,
                industrial=holding.industrial + action.industrial,
                skyscraper=holding.skyscraper or action.skyscraper,
                stadium=holding.stadium or action.stadium,
            ),
        )
    else:
        if action.residential or action.industrial or action.skyscraper or action.stadium or action.tower:
            raise refuse(language, "city_only")
        street = rules.classic_street(edition, square)
        if street is None:
            raise refuse(language, "not_a_street", s=square)
        if not (action.houses > 0 or action.hotel) or action.houses < 0 or (action.houses and action.hotel):
            raise refuse(language, "nothing_to_build")
        if holding.hotel:
            raise refuse(language, "hotel_standing", s=square)
        if action.hotel:
            needed = rules.houses_per_hotel(edition, action.variant)
            if holding.houses != needed:
                raise refuse(language, "hotel_needs_houses", n=needed, s=square, h=holding.houses)
            cost = street.house_cost
            changes.append(_set(game, owner, holding, houses=0, hotel=True))
        else:
            if holding.houses + action.houses > 4:
                raise refuse(language, "max_houses", s=square, n=holding.houses)
            cost = action.houses * street.house_cost
            changes.append(_set(game, owner, holding, houses=holding.houses + action.houses))
    _afford(game, owner, cost, language)
    return Entry("build", Payment(owner.name, None, cost), square=square, changes=tuple(changes))


def _sell(game: Game, action: SellBack, language: str) -> Entry:
    square = square_of(game, action.square, language)
    owner, holding = _owned(game, square, language)
    edition = game.edition
    if isinstance(edition, CityEdition):
        raise refuse(language, "city_no_buy_back")
    street = rules.classic_street(edition, square)
    if street is None or not (holding.houses or holding.hotel):
        raise refuse(language, "nothing_to_sell", s=square)
    if action.houses is None:
        amount = rules.sell_buildings(game, square, action.variant, language)
        change = _set(game, owner, holding, houses=0, hotel=False)
    else:
        half = street.house_cost // 2
        houses, amount, hotel = holding.houses, 0, holding.hotel
        if hotel:  # « échanger votre hôtel contre quatre maisons et recevoir la moitié de la valeur de l'hôtel »
            houses, amount, hotel = rules.houses_per_hotel(edition, action.variant), half, False
        sold = action.houses - (1 if holding.hotel else 0)
        if action.houses < 1 or sold > houses:
            levels = houses + (1 if holding.hotel else 0)
            raise refuse(language, "sell_too_many", s=square, n=levels, k=action.houses)
        amount += sold * half
        change = _set(game, owner, holding, houses=houses - sold, hotel=hotel)
    return Entry("sell", Payment(None, owner.name, amount), square=square, changes=(change,))


def _hazard(game: Game, action: RemoveHazard, language: str) -> Entry:
    square = square_of(game, action.square, language)
    owner, holding = _owned(game, square, language)
    edition = game.edition
    if not isinstance(edition, CityEdition):
        raise refuse(language, "city_only")
    if holding.hazard is None:
        raise refuse(language, "no_hazard", s=square)
    blocks = edition.hazards[holding.hazard]
    if blocks is None:
        raise refuse(language, "missing_hazard", h=holding.hazard, w=f"{edition.source}: hazards.{holding.hazard}")
    amount = blocks * HAZARD_REMOVAL_PER_BLOCK
    _afford(game, owner, amount, language)
    change = _set(game, owner, holding, hazard=None)
    return Entry("hazard", Payment(owner.name, None, amount), square=square, changes=(change,))


def _tax(game: Game, action: PayTax, language: str) -> Entry:
    player = player_of(game, action.player, language)
    edition = game.edition
    if isinstance(edition, ClassicEdition):
        if action.square is None:
            raise refuse(language, "classic_tax_square")
        return _rent(game, PayRent(player.name, action.square), language)
    amount = rules.industry_tax(game, player, language)
    if amount == 0:
        raise refuse(language, "no_industry", p=player.name)
    _afford(game, player, amount, language)
    return Entry("tax", Payment(player.name, None, amount))


def _mortgage(game: Game, action: Mortgage, language: str) -> Entry:
    square = square_of(game, action.square, language)
    owner, holding = _owned(game, square, language)
    if holding.mortgaged:
        raise refuse(language, "already_mortgaged", s=square)
    edition = game.edition
    if isinstance(edition, CityEdition):
        value = rules.rent_value(game, owner, holding, language)
    else:
        street = rules.classic_street(edition, square)
        if street is not None:
            mine = {h.square: h for h in owner.holdings}
            built = [
                s.name
                for s in edition.group_streets(street.group)
                if s.name in mine and (mine[s.name].houses or mine[s.name].hotel)
            ]
            if built:
                raise refuse(language, "mortgage_sell_first", s=", ".join(built))
        value, _lift = rules.classic_mortgage(edition, square)
    change = _set(game, owner, holding, mortgaged=True)
    return Entry("mortgage", Payment(None, owner.name, value), square=square, changes=(change,))


def lift_cost(game: Game, square: str, language: str) -> int:
    """What lifting the mortgage of ``square`` costs: City, « le montant que la banque vous a versé auparavant »
    (the history's last mortgage of it; the rent value when the history does not have it); classic, + 10 %."""
    edition = game.edition
    if isinstance(edition, ClassicEdition):
        return rules.classic_mortgage(edition, square)[1]
    for entry in reversed(game.history):
        if entry.what == "mortgage" and entry.square == square:
            return entry.payment.amount
    owner, holding = _owned(game, square, language)
    return rules.rent_value(game, owner, holding, language)


def _lift(game: Game, action: Lift, language: str) -> Entry:
    square = square_of(game, action.square, language)
    owner, holding = _owned(game, square, language)
    if not holding.mortgaged:
        raise refuse(language, "not_mortgaged", s=square)
    cost = lift_cost(game, square, language)
    _afford(game, owner, cost, language)
    change = _set(game, owner, holding, mortgaged=False)
    return Entry("lift", Payment(owner.name, None, cost), square=square, changes=(change,))


def _trade(game: Game, action: Trade, language: str) -> Entry:
    seller = player_of(game, action.seller, language, "SELLER")
    buyer = player_of(game, action.buyer, language, "BUYER")
    if seller.name == buyer.name:
        raise refuse(language, "same_player", p=seller.name)
    if action.price < 0:
        raise refuse(language, "nothing_to_pay")
    if not action.squares and action.price == 0:
        raise refuse(language, "nothing_to_trade")
    edition = game.edition
    squares = [square_of(game, typed, language) for typed in action.squares]
    if len(set(squares)) != len(squares):
        raise refuse(language, "nothing_to_trade")
    if isinstance(edition, ClassicEdition) and edition.rules.trades_only_when_all_bought and squares:
        owners = game.owners()
        free = [s.name for s in edition.squares.values() if not isinstance(s, Tax) and s.name not in owners]
        if free:
            raise refuse(language, "trades_after_all_bought", n=len(free))
    interest = 0
    changes: list[Change] = []
    tower = seller.tower
    for square in squares:
        owner, holding = _owned(game, square, language)
        if owner.name != seller.name:
            raise refuse(language, "not_theirs", s=square, p=seller.name, o=owner.name)
        if isinstance(edition, ClassicEdition):
            deed = edition.squares[square]
            if isinstance(deed, Street):
                mine = {h.square: h for h in seller.holdings}
                if any(
                    mine[s.name].houses or mine[s.name].hotel
                    for s in edition.group_streets(deed.group)
                    if s.name in mine
                ):
                    raise refuse(language, "trade_with_buildings", s=square)
            if holding.mortgaged and edition.rules.creditor_pays_mortgage_interest_at_once:
                value, lift = rules.classic_mortgage(edition, square)
                interest += lift - value
        changes.append(
            Change(
                seller.name, square=square, before=holding_data(holding), after=None, at=_at(seller, square, changes)
            )
        )
        changes.append(Change(buyer.name, square=square, before=None, after=holding_data(holding)))
        if tower == square:  # « vous échangez/vendez également les bâtiments qui s'y trouvent »
            changes.append(Change(seller.name, field="tower", before=square, after=None))
            changes.append(Change(buyer.name, field="tower", before=buyer.tower, after=square))
    _afford(game, buyer, action.price + interest, language)
    also = (Payment(buyer.name, None, interest),) if interest else ()
    return Entry(
        "trade",
        Payment(buyer.name, seller.name, action.price),
        square=", ".join(squares) or None,
        also=also,
        changes=tuple(changes),
    )


def _at(player: Player, square: str, earlier: list[Change]) -> int:
    """Where ``square`` stands in ``player``'s list once the ``earlier`` changes took theirs away."""
    gone = {c.square for c in earlier if c.player == player.name and c.after is None and c.square}
    names = [_name(h) for h in player.holdings if _name(h) not in gone]
    return names.index(square)


def _out(game: Game, action: Out, language: str) -> Entry:
    """« Dette envers la banque » / « Dette envers un autre joueur »: cash and squares go to the creditor."""
    player = player_of(game, action.player, language)
    creditor = None if action.creditor is None else party(game, action.creditor, language, "CREDITOR")
    if creditor == player.name:
        raise refuse(language, "same_player", p=player.name)
    edition = game.edition
    also: list[Payment] = []
    changes: list[Change] = []
    proceeds = 0
    interest = 0
    for holding in player.holdings:
        square = _name(holding)
        changes.append(Change(player.name, square=square, before=holding_data(holding), after=None, at=0))
        if creditor is None:
            continue  # the bank takes the cards back (classic: « Les hypothèques sont annulées »)
        kept = holding
        if isinstance(edition, ClassicEdition) and isinstance(holding, ClassicHolding):
            if holding.houses or holding.hotel:  # « vos maisons et hôtels sont vendus à la banque à la moitié »
                proceeds += rules.sell_buildings(game, square, None, language)
                kept = replace(holding, houses=0, hotel=False)
            if holding.mortgaged and edition.rules.creditor_pays_mortgage_interest_at_once:
                value, lift = rules.classic_mortgage(edition, square)
                interest += lift - value
        changes.append(Change(creditor, square=square, before=None, after=holding_data(kept)))
    if player.tower is not None:
        changes.append(Change(player.name, field="tower", before=player.tower, after=None))
        if creditor is not None:
            new_owner = next(p for p in game.players if p.name == creditor)
            changes.append(Change(creditor, field="tower", before=new_owner.tower, after=player.tower))
    if player.exemption_card:  # « la carte exonération sur la case parc gratuit »
        changes.append(Change(player.name, field="exemption_card", before=True, after=False))
    changes.append(Change(player.name, left=game.players.index(player)))
    if proceeds:
        also.append(Payment(None, player.name, proceeds))
    if interest:
        also.append(Payment(creditor, None, interest))
    main = Payment(player.name, creditor, player.cash + proceeds)
    return Entry("out", main, also=tuple(also), changes=tuple(changes))


# --- short of cash: what the player can do ----------------------------------------------------------


def _afford(game: Game, player: Player, amount: int, language: str, rent: bool = False) -> None:
    """Refuse a payment ``player`` cannot make, saying what they can do: mortgage, sell back, the card."""
    if player.cash >= amount:
        return

    def fmt(amount: int) -> str:
        return _money(game, amount, language)

    options: list[str] = []
    edition = game.edition
    if isinstance(edition, CityEdition):
        can = [
            f"{h.district} ({fmt(rules.rent_value(game, player, h, language))})"
            for h in player.holdings
            if not h.mortgaged
        ]
        if can:
            options.append(say(language, "can_mortgage", s=", ".join(can)))
        rule = say(language, "rule_short_city")
    else:
        sell = [
            f"{h.square} ({fmt(rules.sell_buildings(game, h.square, None, language))})"
            for h in player.holdings
            if h.houses or h.hotel
        ]
        if sell:
            options.append(say(language, "can_sell", s=", ".join(sell)))
        can = [
            f"{h.square} ({fmt(rules.classic_mortgage(edition, h.square)[0])})"
            for h in player.holdings
            if not h.mortgaged
        ]
        if can:
            options.append(say(language, "can_mortgage", s=", ".join(can)))
        rule = say(language, "rule_short_classic")
    if rent and player.exemption_card:
        options.append(say(language, "can_exempt"))
    if not options:
        options.append(say(language, "bankrupt", p=player.name))
    raise refuse(
        language,
        "short",
        p=player.name,
        c=fmt(player.cash),
        a=fmt(amount),
        m=fmt(amount - player.cash),
        o=" ; ".join(options) if language == "fr" else "; ".join(options),
        r=rule,
    )


def _money(game: Game, amount: int, language: str) -> str:
    return money.text(game.kind, amount, language)


# --- in words ---------------------------------------------------------------------------------------


def describe(game: Game, entry: Entry, language: str) -> str:
    """One line for the table: « Bruno → Alice · M 600k · loyer de Docks »."""

    def fmt(amount: int) -> str:
        return _money(game, amount, language)

    key = entry.what
    if key == "rent" and any(c.field == "exemption_card" for c in entry.changes):
        key = "rent_exempt"
    elif key == "tax" and entry.square:
        key = "tax_square"
    elif key == "trade" and not entry.square:
        key = "trade_money"
    what = say(language, f"what.{key}", s=entry.square or "", p=entry.payment.payer or "")
    if entry.note:
        what = entry.note if entry.what == "pay" else f"{what} ({entry.note})"
    line = f"{_party_name(entry.payment.payer, language)} → {_party_name(entry.payment.payee, language)}"
    line += f" · {fmt(entry.payment.amount)} · {what}"
    for p in entry.also:
        line += f" · {_party_name(p.payer, language)} → {_party_name(p.payee, language)} {fmt(p.amount)}"
    return line


def describe_changes(entry: Entry, language: str) -> list[str]:
    """The position changes of ``entry``, one line each: « Docks : résidentiels 3 → 4 »."""
    lines = []
    for c in entry.changes:
        if c.left is not None:
            lines.append(say(language, "change.left", p=c.player))
        elif c.field is not None:
            lines.append(
                say(
                    language, f"change.{c.field}", p=c.player, b=_value(c.before, language), a=_value(c.after, language)
                )
            )
        elif c.before is None:
            lines.append(say(language, "change.gained", p=c.player, s=c.square))
        elif c.after is None:
            lines.append(say(language, "change.lost", p=c.player, s=c.square))
        else:
            keys = [k for k in (*CITY_KEYS, *CLASSIC_KEYS) if c.before.get(k) != c.after.get(k)]
            parts = [
                f"{say(language, f'key.{k}')} {_value(c.before.get(k), language)} → {_value(c.after.get(k), language)}"
                for k in dict.fromkeys(keys)
            ]
            lines.append(f"{c.square} : {', '.join(parts)}" if language == "fr" else f"{c.square}: {', '.join(parts)}")
    return lines


def _value(value: object, language: str) -> str:
    if value is None or value is False:
        return say(language, "value.none")
    if value is True:
        return say(language, "value.yes")
    return str(value)


def _party_name(name: str | None, language: str) -> str:
    return say(language, "the_bank") if name is None else name


def entry_json(entry: Entry) -> dict[str, Any]:
    """An entry as JSON: plain names (null for the bank), integer amounts."""
    out: dict[str, Any] = {
        "what": entry.what,
        "square": entry.square,
        "from": entry.payment.payer,
        "to": entry.payment.payee,
        "amount": entry.payment.amount,
        "for": entry.note,
        "also": [{"from": p.payer, "to": p.payee, "amount": p.amount} for p in entry.also],
        "changes": [
            {k: v for k, v in vars(c).items() if v is not None or (k in ("before", "after") and c.left is None)}
            for c in entry.changes
        ],
    }
    return out


# --- money is conserved -----------------------------------------------------------------------------


def bank_flow(entries: Iterable[Entry]) -> int:
    """What the bank paid the players, net, over ``entries``: the players' cash moved by that much."""
    flow = 0
    for entry in entries:
        for p in entry.payments:
            if p.payer is None and p.payee is not None:
                flow += p.amount
            elif p.payee is None and p.payer is not None:
                flow -= p.amount
    return flow
