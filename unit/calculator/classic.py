"""Classic Monopoly's rules: rents, mortgages, fortunes and the checks of a position.

From the French rule texts (seeds/fiche-monopoly-classique.txt,
seeds/regles-monopoly-classique-suite.txt); the numbers come from the edition. The functions compute values
and say their reasons as :class:`unit.errors.Text` (no language here); :class:`ClassicMonopoly` is this kind's
rules object (:class:`unit.calculator.rulebook.Rules`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

from unit.calculator import position as positions
from unit.calculator.actions import Build as Building
from unit.calculator.edition import ClassicEdition, Edition, Street, Tax
from unit.calculator.position import ClassicHolding, Game, Holding, Player
from unit.calculator.rulebook import (
    CheckReport,
    Deal,
    Fortune,
    FortuneReport,
    Mortgage,
    Place,
    Problems,
    RentReport,
    Rules,
    Situation,
    refuse,
)
from unit.calculator.words import ByLanguage, refused, said
from unit.errors import ArgumentError, Text, UserError

QUICK_HOTEL_HOUSES = 3  # « vous ne devez construire que trois maisons, au lieu de quatre »
AUCTION_MINIMUM = 10  # « Les enchères commencent à M10 »
VARIANTS = ("timed", "quick")


@dataclass(frozen=True)
class Rent:
    amount: int
    explanation: tuple[Text, ...] = ()
    needs_dice: bool = False  # a utility's rent, and no dice given


def lift_cost(edition: ClassicEdition, mortgage: int) -> int:
    """Lifting a mortgage: its value plus 10 % interest, rounded up to a whole unit."""
    return mortgage + math.ceil(round(mortgage * edition.rules.unmortgage_interest, 6))


def owns_whole_group(edition: ClassicEdition, player: Player, group: str) -> bool:
    mine = {h.square for h in player.holdings}
    return all(street.name in mine for street in edition.group_streets(group))


def rent(game: Game, square_name: str, dice: int | None) -> Rent:
    """What a player landing on ``square_name`` pays its owner (the owner must exist)."""
    edition = game.classic
    square = edition.deed(square_name)
    player, holding = game.held(square_name)
    if holding.mortgaged:
        cost = lift_cost(edition, square.mortgage)
        return Rent(0, (said("rent.classic_mortgaged", c=cost, m=square.mortgage),))
    if isinstance(square, Street):
        return _street_rent(edition, player, holding, square)
    if square.kind == "station":
        owned = _owned(edition, player, "station")
        amount = edition.station_rents[owned]
        return Rent(amount, (said("rent.stations", n=owned, a=amount),))
    if square.kind == "utility":
        if dice is None:
            return Rent(0, (said("rent.utility_needs_dice", s=square.name),), needs_dice=True)
        owned = _owned(edition, player, "utility")
        factor = edition.utility_multipliers[owned]
        return Rent(factor * dice, (said("rent.utilities", n=owned, f=factor, d=dice, a=factor * dice),))
    raise TypeError(square)


def _owned(edition: ClassicEdition, player: Player, kind: str) -> int:
    """How many stations (or utilities) the owner holds; mortgaged ones count unless the edition says not."""
    cancels = edition.rules.mortgaged_street_cancels_group_double_rent
    return sum(1 for h in player.holdings if edition.squares[h.square].kind == kind and not (cancels and h.mortgaged))


def _street_rent(edition: ClassicEdition, player: Player, holding: ClassicHolding, street: Street) -> Rent:
    if holding.hotel:
        return Rent(street.rent[5], (said("rent.hotel", a=street.rent[5]),))
    if holding.houses:
        amount = street.rent[min(holding.houses, 4)]
        return Rent(amount, (said("rent.houses", n=holding.houses, a=amount),))
    lines = [said("rent.classic_bare", a=street.rent[0])]
    whole = owns_whole_group(edition, player, street.group)
    doubled = whole and edition.rules.double_rent_on_full_group_unbuilt
    if doubled and edition.rules.mortgaged_street_cancels_group_double_rent:
        mine = {h.square: h for h in player.holdings}
        if any(mine[s.name].mortgaged for s in edition.group_streets(street.group)):
            doubled = False
            lines.append(said("rent.group_mortgaged"))
    if doubled:
        group = ByLanguage(str(edition.groups[street.group]["fr"]), street.group)
        lines.append(said("rent.whole_group", g=group, a=2 * street.rent[0]))
        return Rent(2 * street.rent[0], tuple(lines))
    return Rent(street.rent[0], tuple(lines))


# --- fortunes ---------------------------------------------------------------------------------


def fortunes(game: Game, variant: str) -> list[Fortune]:
    """« ses terrains, services publics et gares au prix indiqué sur le plateau de jeu, ses propriétés
    hypothéquées estimées à la moitié [...], ses maisons estimées au prix d'achat, ses hôtels estimés au prix
    d'achat, qui comprend la valeur des [...] maisons données en échange »."""
    return [
        Fortune(player.name, player.cash, tuple((h.square, holding_value(game, h, variant)) for h in player.holdings))
        for player in game.players
    ]


def holding_value(game: Game, holding: ClassicHolding, variant: str) -> int:
    """What one property counts for in the fortune (:func:`fortunes`), its buildings included."""
    edition = game.classic
    square = edition.deed(holding.square)
    value = square.price // 2 if holding.mortgaged else square.price
    if isinstance(square, Street):
        value += holding.houses * square.house_cost
        if holding.hotel:
            value += (1 + houses_per_hotel(edition, variant)) * square.house_cost
    return value


# --- checks -----------------------------------------------------------------------------------


def houses_per_hotel(edition: ClassicEdition, variant: str | None) -> int:
    """The houses traded in for a hotel: the edition's ``hotel_requires_houses``, 3 in the quick game."""
    return QUICK_HOTEL_HOUSES if variant == "quick" else edition.rules.hotel_requires_houses


def check(game: Game, variant: str | None = None) -> Problems:
    """The problems of a position; ``variant`` ``quick``: « trois maisons, au lieu de quatre » before a hotel."""
    edition = game.classic
    problems = Problems()
    hotel_level = houses_per_hotel(edition, variant) + 1  # a hotel is one level above the houses it needs

    houses = hotels = 0
    for player in game.players:
        for h in player.holdings:
            houses += h.houses
            hotels += h.hotel
            square = edition.squares[h.square]
            if h.houses > 4:
                problems.add(player.name, h.square, "max_houses", n=h.houses, s=h.square)
            if h.hotel and h.houses:
                problems.add(player.name, h.square, "hotel_and_houses", s=h.square, n=h.houses)
            built = h.houses or h.hotel
            if built and h.mortgaged:
                problems.add(player.name, h.square, "mortgaged_with_buildings", s=h.square)
            if built and isinstance(square, Street):
                mine = {x.square: x for x in player.holdings}
                group = edition.group_streets(square.group)
                if not owns_whole_group(edition, player, square.group):
                    problems.add(player.name, h.square, "build_needs_group", s=h.square)
                elif any(mine[s.name].mortgaged for s in group):
                    problems.add(player.name, h.square, "build_on_mortgaged_group", s=h.square)
        for colour in edition.groups:
            if not owns_whole_group(edition, player, colour):
                continue
            mine = {x.square: x for x in player.holdings}
            levels = {
                s.name: hotel_level if mine[s.name].hotel else mine[s.name].houses
                for s in edition.group_streets(colour)
            }
            if max(levels.values()) - min(levels.values()) > 1:
                shown = ", ".join(f"{name} {'H' if mine[name].hotel else level}" for name, level in levels.items())
                french = str(edition.groups[colour]["fr"]).split(" (")[0]  # « marron », not brown nor its old names
                label = ByLanguage(french, colour)
                problems.add(player.name, None, "even_building", g=label, l=shown)
    problems.owned_once(game.owners())
    if houses > edition.rules.bank_houses:
        problems.add(None, None, "bank_houses", n=houses, b=edition.rules.bank_houses)
    if hotels > edition.rules.bank_hotels:
        problems.add(None, None, "bank_hotels", n=hotels, b=edition.rules.bank_hotels)
    return problems


# --- the bank: selling buildings back, mortgages, the salary ----------------------------------


def sell_buildings(game: Game, square_name: str, variant: str | None) -> Deal:
    """« Ils doivent être vendus à la banque à la moitié de leur valeur [...]. Pour les hôtels, la banque paiera
    la moitié du prix de l'hôtel, plus la moitié du prix des quatre maisons » (three in the quick game).
    A hotel costs one house plus the houses traded in; an odd cost's half is rounded down (docs/calculator.md)."""
    edition = game.classic
    square = edition.squares[square_name]
    _, holding = game.held(square_name)
    if not isinstance(square, Street) or not (holding.houses or holding.hotel):
        return Deal(0, (said("sell.nothing"),))
    half = square.house_cost // 2
    if holding.hotel:
        traded = houses_per_hotel(edition, variant)
        amount = half + traded * half
        return Deal(amount, (said("sell.hotel", h=half, n=traded, a=amount),))
    amount = holding.houses * half
    return Deal(amount, (said("sell.houses", n=holding.houses, h=half, a=amount),))


def mortgage(game: Game, square_name: str) -> Mortgage:
    """The deed's mortgage value, what lifting it costs (+10 %), and what to tell the table."""
    edition = game.classic
    square = edition.deed(square_name)
    player, holding = game.held(square_name)
    value, lift = square.mortgage, lift_cost(edition, square.mortgage)
    if holding.mortgaged:
        lines = [said("mortgage.classic_lift", v=value, c=lift)]
        if edition.rules.creditor_pays_mortgage_interest_at_once:
            lines.append(said("mortgage.creditor_interest", i=lift - value))
        return Mortgage(value, lift, Deal(lift, tuple(lines)))
    lines = [said("mortgage.classic_take", v=value, c=lift)]
    built = built_in_group(edition, player, square_name)
    if built:
        lines.append(said("mortgage.sell_first", s=", ".join(built)))
    return Mortgage(value, lift, Deal(value, tuple(lines)))


def built_in_group(edition: ClassicEdition, player: Player, square_name: str) -> list[str]:
    """The streets of ``square_name``'s colour group ``player`` has built on: « Pour hypothéquer une propriété,
    vous devez d'abord vendre tous les bâtiments de son groupe de couleur à la banque », and « aucun terrain ne
    peut être vendu à un autre joueur s'il y a des bâtiments construits sur un des terrains du même groupe »."""
    square = edition.squares[square_name]
    if not isinstance(square, Street):
        return []
    mine = {h.square: h for h in player.holdings}
    return [
        s.name
        for s in edition.group_streets(square.group)
        if s.name in mine and (mine[s.name].houses or mine[s.name].hotel)
    ]


def salary(game: Game, player: Player) -> Deal:
    """« Chaque fois que vous vous arrêtez ou que vous passez sur la case DEPART, recevez M200 de la banque. »"""
    amount = game.classic.rules.go_salary
    return Deal(amount, (said("salary.go", a=amount),))


# --- the rules object -------------------------------------------------------------------------


class ClassicMonopoly(Rules):
    """Classic Monopoly: streets with houses and hotels, stations, utilities (their rent by the dice) and taxes;
    plain amounts; two ways to end (``timed``, the default, and ``quick``); no industry tax."""

    kind: ClassVar[str] = "classic"
    holdings_key: ClassVar[str] = "properties"
    auction_minimum: ClassVar[int] = AUCTION_MINIMUM
    variants: ClassVar[tuple[str, ...]] = VARIANTS
    foreign: ClassVar[tuple[str, ...]] = ("residential", "industrial", "hazard", "skyscraper", "tower")
    lacks: ClassVar[dict[str, str]] = {"tax": "tax.classic"}
    holding_fields: ClassVar[tuple[str, ...]] = ("houses", "hotel", "mortgaged")
    default_variant: ClassVar[str | None] = "timed"

    def starting_cash(self, edition: Edition) -> int | None:
        assert isinstance(edition, ClassicEdition)
        return edition.rules.starting_cash

    def find(self, game: Game, typed: str, where: str) -> str:
        return str(game.classic.square(typed, where).name)

    def places(self, game: Game) -> list[Place]:
        return [Place(s.name, s.kind, getattr(s, "group", "")) for s in game.classic.squares.values()]

    def group_name(self, game: Game, group: str) -> Text | str:
        """The edition's French name of the colour (« bleu foncé »), its identifier in other languages; none for a
        station or a utility (its name says it)."""
        spec = game.classic.groups.get(group)
        return "" if spec is None else ByLanguage(str(spec["fr"]).split(" (")[0], group)

    def holding_value(self, game: Game, player: Player, holding: Holding, variant: str | None) -> int:
        assert isinstance(holding, ClassicHolding)
        return holding_value(game, holding, variant or "timed")

    def rent(self, game: Game, name: str, dice: int | None) -> RentReport:
        square = game.classic.squares[name]
        total = self.total
        self.refuse_dice(game, name, dice)
        if isinstance(square, Tax):  # a tax, not a rent: its last line says so (« Taxe : 200 »)
            return RentReport(
                name, None, square.amount, (said("rent.tax", a=square.amount),), total("rent.tax_total", square.amount)
            )
        held = game.holding(name)
        if held is None:
            return RentReport(name, None, 0, (said("rent.nobody_square"),), total("rent.total", 0))
        found = rent(game, name, dice)
        return RentReport(
            name, held[0].name, found.amount, found.explanation, total("rent.total", found.amount), found.needs_dice
        )

    def dice_refusal(self, game: Game, typed: str, dice: int | None) -> Text | None:
        found = [] if dice is None else game.classic.names.matches(typed)
        if dice is None or len(found) != 1:  # no dice, or no single square: the look-up says which
            return None
        square = game.classic.squares[found[0]]
        if isinstance(square, Tax):  # its tax, whatever the throw
            return None
        if square.kind != "utility":
            return said("args.dice_not_utility", s=square.name)
        return None if 2 <= dice <= 12 else said("args.dice_range", n=dice)

    def what_if(self, edition: Edition, typed: str, situation: Situation) -> RentReport:
        assert isinstance(edition, ClassicEdition)
        refuse(situation, self.foreign, "args.city_only")
        square = edition.square(typed, "SQUARE")
        if not 0 <= situation.houses <= 4:
            raise ArgumentError("houses", said("args.houses_range", n=situation.houses))
        if (situation.houses or situation.hotel) and not isinstance(square, Street):
            raise ArgumentError("houses" if situation.houses else "hotel", said("args.no_buildings", s=square.name))
        if situation.houses and situation.hotel:
            raise ArgumentError("hotel", said("args.hotel_or_houses"))
        if isinstance(square, Tax):
            return self.rent(Game(edition.source, edition, ()), square.name, None)
        game = positions.hypothetical(
            edition, square, situation.houses, situation.hotel, situation.mortgaged, situation.group
        )
        report = self.rent(game, square.name, situation.dice)
        return RentReport(report.square, None, report.rent, report.explanation, report.total, report.needs_dice)

    def fortunes(self, game: Game, variant: str | None) -> FortuneReport:
        variant = variant or "timed"
        rows = sorted(fortunes(game, variant), key=lambda row: -row.fortune)
        return FortuneReport(variant, tuple(rows), said(f"fortune.title_{variant}"))

    def check(self, game: Game, variant: str | None) -> CheckReport:
        return CheckReport(variant, tuple(check(game, variant)))

    def salary(self, game: Game, player: Player) -> Deal:
        return salary(game, player)

    def industry_tax(self, game: Game, player: Player) -> Deal:
        self.offers("tax")
        return Deal(0)

    def owned(self, game: Game, typed: str) -> str:
        square = game.classic.square(typed, "SQUARE")
        if square.kind == "tax":
            raise UserError("SQUARE", said("args.tax_square", s=square.name))
        return str(square.name)

    def mortgage(self, game: Game, name: str) -> Mortgage:
        return mortgage(game, name)

    def sell(self, game: Game, name: str, variant: str | None) -> Deal:
        return sell_buildings(game, name, variant)

    # --- the bank

    def corrected(self, game: Game, holding: Holding, field: str, value: int | bool, variant: str | None) -> Holding:
        """A hotel set or taken off trades the houses it stands for, as the bank does (4; 3 in the quick game)."""
        after = super().corrected(game, holding, field, value, variant)
        if (
            field == "hotel"
            and isinstance(after, ClassicHolding)
            and isinstance(holding, ClassicHolding)
            and after.hotel != holding.hotel
        ):
            return replace(after, houses=0 if after.hotel else houses_per_hotel(game.classic, variant))
        return after

    def jail_fine(self, game: Game) -> int:
        return game.classic.rules.jail_fine

    def tax_square(self, game: Game, name: str) -> int | None:
        square = game.classic.squares[name]
        return square.amount if isinstance(square, Tax) else None

    def price(self, game: Game, name: str) -> int:
        square = game.classic.squares[name]
        if isinstance(square, Tax):
            raise refused("tax_square", s=name)
        return square.price

    def build(self, game: Game, owner: Player, holding: Holding, order: Building) -> tuple[int, Holding]:
        """Houses at the card's price, « Vous ne pouvez avoir que 4 maisons sur une rue », a hotel for the houses
        it stands for (4, 3 in the quick game): even building and the bank's stock are :meth:`check`'s."""
        assert isinstance(holding, ClassicHolding)
        if order.city():
            raise refused("city_only")
        name = holding.square
        street = game.classic.squares[name]
        if not isinstance(street, Street):
            raise refused("not_a_street", s=name)
        if order.houses < 0 or not (order.houses or order.hotel) or (order.houses and order.hotel):
            raise refused("nothing_to_build")
        # The rules' order: the whole group first (« Vous ne pouvez pas construire avant d'avoir complété un groupe
        # de couleur »), then its mortgages (« ... si une des rues de son groupe de couleur est hypothéquée »).
        group = game.classic.group_streets(street.group)
        mine = {h.square: h for h in owner.holdings}
        missing = [s.name for s in group if s.name not in mine]
        if missing:
            raise refused("build_needs_group", p=owner.name, s=name, m=", ".join(missing))
        mortgaged = [s.name for s in group if mine[s.name].mortgaged]
        if mortgaged:
            raise refused("build_on_mortgaged_group", s=", ".join(mortgaged))
        if holding.hotel:
            raise refused("hotel_standing", s=name)
        if order.hotel:
            needed = houses_per_hotel(game.classic, order.variant)
            if holding.houses != needed:
                raise refused("hotel_needs_houses", n=needed, s=name, h=holding.houses)
            return street.house_cost, replace(holding, houses=0, hotel=True)
        if holding.houses + order.houses > 4:
            raise refused("max_houses", s=name, n=holding.houses)
        return order.houses * street.house_cost, replace(holding, houses=holding.houses + order.houses)

    def sell_back(self, game: Game, holding: Holding, levels: int | None, variant: str | None) -> tuple[int, Holding]:
        """All of a street's buildings (:func:`sell_buildings`), or ``levels`` of them: a hotel first, « échanger
        votre hôtel contre quatre maisons et recevoir la moitié de la valeur de l'hôtel », then each house."""
        assert isinstance(holding, ClassicHolding)
        name = holding.square
        street = game.classic.squares[name]
        if not isinstance(street, Street) or not (holding.houses or holding.hotel):
            raise refused("nothing_to_sell", s=name)
        if levels is None:
            return sell_buildings(game, name, variant).amount, replace(holding, houses=0, hotel=False)
        half = street.house_cost // 2
        houses, amount = holding.houses, 0
        if holding.hotel:
            houses, amount = houses_per_hotel(game.classic, variant), half
        sold = levels - holding.hotel
        if levels < 1 or sold > houses:
            raise refused("sell_too_many", s=name, n=houses + holding.hotel, k=levels)
        return amount + sold * half, replace(holding, houses=houses - sold, hotel=False)

    def remove_hazard(self, game: Game, holding: Holding) -> tuple[int, Holding]:
        raise refused("city_only")

    def lift(self, game: Game, paid: int) -> int:
        return lift_cost(game.classic, paid)

    def built_in_group(self, game: Game, player: Player, name: str) -> list[str]:
        return built_in_group(game.classic, player, name)

    def unbought(self, game: Game) -> int:
        """« Les échanges de propriétés deviennent possibles uniquement lorsque toutes les propriétés auront été
        achetées » (editions with ``trades_only_when_all_bought``)."""
        edition = game.classic
        if not edition.rules.trades_only_when_all_bought:
            return 0
        owners = game.owners()
        return sum(1 for s in edition.squares.values() if not isinstance(s, Tax) and s.name not in owners)

    def transfer_interest(self, game: Game, holding: Holding) -> int:
        edition = game.classic
        if not (holding.mortgaged and edition.rules.creditor_pays_mortgage_interest_at_once):
            return 0
        value = edition.deed(holding.name).mortgage
        return lift_cost(edition, value) - value

    def seized(self, game: Game, holding: Holding) -> tuple[int, Holding]:
        """« vos maisons et hôtels sont vendus à la banque à la moitié de leur valeur »: the creditor receives
        the bare deed."""
        assert isinstance(holding, ClassicHolding)
        if not (holding.houses or holding.hotel):
            return 0, holding
        return self.sell_back(game, holding, None, None)
