"""Monopoly City's rules: rents, mortgages, hazards, fortunes and the checks of a position.

The rules are those of the French rule text (seeds/regles-monopoly-city.txt),
summed up in docs/calculator.md. Card values come from the edition file. The functions compute values and
say their reasons as :class:`unit.errors.Text` (no language here); :class:`MonopolyCity` is this kind's rules
object, the interface the commands and the pages ask (:class:`unit.calculator.rulebook.Rules`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from typing import ClassVar

from unit.calculator.actions import Build as Building
from unit.calculator.edition import CityEdition, Edition
from unit.calculator.money import CityAmount, city, said_city
from unit.calculator.position import CityHolding, Game, Holding, Player
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
from unit.calculator.words import refused, said
from unit.errors import ArgumentError, Say, Text

MAX_BLOCKS = 8
#: « payant à la banque M 500k par bâtiment » to remove a hazard.
HAZARD_REMOVAL_PER_BLOCK = 500_000
#: « Coût : M 2M » (a stadium) and « Coût : M 7M » (the Monopoly Tower).
STADIUM_COST = 2_000_000
TOWER_COST = 7_000_000
#: « Payer une amende de M 500k » to leave jail.
JAIL_FINE = 500_000
#: « Les enchères commencent au montant [...] avec un minimum de M 10k ».
AUCTION_MINIMUM = 10_000
MAX_STADIUMS = 2
STADIUM_BONUS = 1_000_000  # « Vous recevez M 1M par stade possédé chaque fois que vous passez par la case DÉPART »

DOUBLED_BY = {
    (True, True): "rent.doubled_both",
    (True, False): "rent.doubled_skyscraper",
    (False, True): "rent.doubled_tower",
}


@dataclass(frozen=True)
class Rent:
    amount: int  # what a player landing there pays
    value: int  # the rent value (the same, but also for a mortgaged district: its mortgage value)
    blocks_counted: int
    explanation: tuple[Text, ...] = ()


def card_rent(
    rents: tuple[int, ...] | list[int],
    residential: int = 0,
    industrial: int = 0,
    *,
    hazard: bool = False,
    skyscraper: bool = False,
    tower: bool = False,
    mortgaged: bool = False,
) -> Rent:
    """The rent from a district card: the value for the blocks that count, doubled once at most."""
    m = CityAmount
    lines = []
    counted = industrial + (0 if hazard else residential)
    if hazard and residential:
        lines.append(said("rent.hazard_cancels", n=residential))
    if counted > MAX_BLOCKS:
        lines.append(said("rent.max_blocks", n=counted))
        counted = MAX_BLOCKS
    value = rents[counted]
    if counted:
        lines.append(said("rent.blocks", n=counted, v=m(value)))
    else:
        lines.append(said("rent.city_bare", v=m(value)))
    if skyscraper or tower:  # « vous ne pouvez pas doubler deux fois votre loyer »
        value *= 2
        lines.append(said(DOUBLED_BY[skyscraper, tower], v=m(value)))
    amount = value
    if mortgaged:
        amount = 0
        lines.append(said("rent.city_mortgaged", v=m(value)))
    return Rent(amount, value, counted, tuple(lines))


def owner_doubles(game: Game, player: Player, group: str) -> tuple[bool, bool]:
    """Whether ``player`` has a skyscraper in ``group``, and whether they have the Monopoly Tower."""
    edition = game.city
    skyscraper = any(h.skyscraper and edition.districts[h.district].group == group for h in player.holdings)
    return skyscraper, player.tower is not None


def district_rent(game: Game, player: Player, holding: CityHolding) -> Rent:
    """The rent of a district ``player`` holds, and, under a hazard, what removing it costs."""
    edition = game.city
    district = edition.districts[holding.district]
    skyscraper, tower = owner_doubles(game, player, district.group)
    rent = card_rent(
        edition.rents(district),
        holding.residential,
        holding.industrial,
        hazard=holding.hazard is not None,
        skyscraper=skyscraper,
        tower=tower,
        mortgaged=holding.mortgaged,
    )
    if holding.hazard is not None:
        return Rent(
            rent.amount,
            rent.value,
            rent.blocks_counted,
            (*rent.explanation, hazard_removal(edition, holding.hazard)),
        )
    return rent


def hazard_removal(edition: CityEdition, hazard: str) -> Text:
    """« payez à la banque M 500k par bâtiment » for the blocks the hazard is worth."""
    name = said(f"hazard.{hazard}")
    blocks = edition.hazards[hazard]
    if blocks is None:
        return said("hazard.missing", h=name, k=hazard, f=edition.source)
    return said("hazard.removal", h=name, v=CityAmount(blocks * HAZARD_REMOVAL_PER_BLOCK), n=blocks)


# --- fortunes ---------------------------------------------------------------------------------


def fortunes(game: Game) -> list[Fortune]:
    """« La valeur du quartier est égale à la valeur du loyer que payerait un autre joueur » (0 if mortgaged)."""
    return [
        Fortune(
            player.name,
            player.cash,
            tuple((h.district, district_rent(game, player, h).amount) for h in player.holdings),
        )
        for player in game.players
    ]


# --- checks -----------------------------------------------------------------------------------


def check(game: Game) -> Problems:
    """The rules of Monopoly City a position breaks."""
    edition = game.city
    problems = Problems()

    problems.owned_once(game.owners())

    def whole_groups(player: Player) -> set[str]:
        mine = {h.district for h in player.holdings}
        return {g.name for g in edition.groups.values() if set(g.districts) <= mine}

    skyscrapers: Counter[str] = Counter()
    stadiums: list[tuple[Player, CityHolding]] = []
    for player in game.players:
        whole = whole_groups(player)
        per_group = Counter(edition.districts[h.district].group for h in player.holdings)
        for h in player.holdings:
            group = edition.districts[h.district].group
            if h.blocks > MAX_BLOCKS:
                problems.add(player.name, h.district, "max_blocks", n=h.blocks, d=h.district)
            if h.hazard and h.bonus:
                problems.add(player.name, h.district, "hazard_and_bonus", d=h.district)
            if h.skyscraper:
                skyscrapers[group] += 1
                if group not in whole:
                    problems.add(player.name, h.district, "skyscraper_needs_group", d=h.district, g=group)
            if h.stadium:
                stadiums.append((player, h))
                if per_group[group] < 2:
                    problems.add(player.name, h.district, "stadium_needs_two_districts", d=h.district, g=group)
        if player.tower is not None:
            group = edition.districts[player.tower].group
            if len(whole) < 2:
                problems.add(player.name, player.tower, "tower_needs_two_groups")
            elif group not in whole:
                problems.add(player.name, player.tower, "tower_on_group")
    for group, count in skyscrapers.items():
        if count > 1:
            problems.add(None, group, "one_skyscraper_per_group", n=count, g=group)
    cards = [p.name for p in game.players if p.exemption_card]
    if len(cards) > 1:
        problems.add(", ".join(cards), None, "one_exemption_card", n=len(cards))
    towers = [p.name for p in game.players if p.tower is not None]
    if len(towers) > 1:
        problems.add(", ".join(towers), None, "one_tower", n=len(towers))
    if len(stadiums) > MAX_STADIUMS:
        problems.add(None, None, "max_stadiums", n=len(stadiums))
    by_group = Counter(edition.districts[h.district].group for _, h in stadiums)
    for group, count in by_group.items():
        if count > 1:
            problems.add(None, group, "one_stadium_per_group", n=count, g=group)
    return problems


# --- the bank: GO, the industry tax, mortgages --------------------------------------------------


def salary(game: Game, player: Player) -> Deal:
    """Passing GO: the salary « (en plus de votre salaire) », plus M 1M per stadium owned."""
    edition = game.city
    base = edition.board_amount("go_salary")
    stadiums = sum(1 for h in player.holdings if h.stadium)
    lines = [said("salary.go", a=CityAmount(base))]
    if stadiums:
        bonus = stadiums * STADIUM_BONUS
        lines.append(said("salary.stadiums", n=stadiums, a=CityAmount(bonus)))
    return Deal(base + stadiums * STADIUM_BONUS, tuple(lines))


def industry_tax(game: Game, player: Player) -> Deal:
    """« Si vous possédez un bâtiment industriel, vous devez payer le montant indiqué sur la case du plateau.
    Si vous n'en possédez pas, vous n'avez rien à payer. »"""
    edition = game.city
    industrial = sum(h.industrial for h in player.holdings)
    if not industrial:
        return Deal(0, (said("tax.none"),))
    amount = edition.board_amount("industry_tax")
    return Deal(amount, (said("tax.owed", n=industrial, a=CityAmount(amount)),))


def mortgage(game: Game, player: Player, holding: CityHolding) -> Mortgage:
    """« La valeur de l'hypothèque correspond à la valeur du loyer au moment de l'hypothèque » and lifting it
    costs « la valeur de l'hypothèque [...], soit le montant que la banque vous a versé auparavant »."""
    value = district_rent(game, player, holding).value
    key = "mortgage.city_lift" if holding.mortgaged else "mortgage.city_take"
    return Mortgage(value, value, Deal(value, (said(key, v=CityAmount(value)),)))


# --- the rules object -------------------------------------------------------------------------


class MonopolyCity(Rules):
    """Monopoly City: districts with blocks, hazards and bonuses, skyscrapers, stadiums and the Monopoly Tower;
    amounts in M (``M 1,5M``); no variant, nothing sold back to the bank."""

    kind: ClassVar[str] = "city"
    holdings_key: ClassVar[str] = "districts"
    auction_minimum: ClassVar[int] = AUCTION_MINIMUM
    foreign: ClassVar[tuple[str, ...]] = ("houses", "hotel", "group")
    lacks: ClassVar[dict[str, str]] = {"sell": "sell.city"}
    holding_fields: ClassVar[tuple[str, ...]] = (
        "residential",
        "industrial",
        "skyscraper",
        "stadium",
        "station",
        "mortgaged",
        "hazard",
        "bonus",
    )

    def amount(self, amount: int) -> object:
        return CityAmount(amount)

    def write(self, amount: int, words: Say) -> str:
        return said_city(amount, words)

    def written(self, amount: int, language: str) -> str:
        return json.dumps(city(amount, language), ensure_ascii=False)

    def refuse_variant(self, variant: str | None) -> str | None:
        if variant is not None:
            raise ArgumentError("variant", said("args.city_no_variant"))
        return None

    def starting_cash(self, edition: Edition) -> int | None:
        assert isinstance(edition, CityEdition)
        return edition.starting_cash

    def find(self, game: Game, typed: str, where: str) -> str:
        return game.city.district(typed, where).name

    def places(self, game: Game) -> list[Place]:
        return [Place(d.name, "district", d.group) for d in game.city.districts.values()]

    def holding_value(self, game: Game, player: Player, holding: Holding, variant: str | None) -> int:
        assert isinstance(holding, CityHolding)
        return district_rent(game, player, holding).amount

    def dice_refusal(self, game: Game, typed: str, dice: int | None) -> Text | None:
        return None if dice is None else said("args.city_no_dice")  # whatever the district: said before it is found

    def rent(self, game: Game, name: str, dice: int | None) -> RentReport:
        self.refuse_dice(game, name, dice)
        held = game.holding(name)
        if held is None:
            return RentReport(
                name, None, 0, (said("rent.nobody_district"),), self.total("rent.total", 0), exemption_card=True
            )
        player, holding = held
        rent = district_rent(game, player, holding)
        holder = next((p.name for p in game.players if p.exemption_card and p.name != player.name), None)
        explanation = rent.explanation + ((said("rent.exemption", p=holder),) if holder else ())
        return RentReport(
            name,
            player.name,
            rent.amount,
            explanation,
            self.total("rent.total", rent.amount),
            exemption_card=True,
            exemption=holder,
        )

    def what_if(self, edition: Edition, typed: str, situation: Situation) -> RentReport:
        assert isinstance(edition, CityEdition)
        self.situation(situation)
        if situation.dice is not None:
            raise ArgumentError("dice", said("args.city_no_dice"))
        district = edition.district(typed, "SQUARE")
        return self.card(edition.rents(district), situation, district.name)

    def situation(self, situation: Situation) -> None:
        """:class:`ArgumentError` for a classic value (houses) or a count of blocks out of 0-99 in ``situation``."""
        refuse(situation, self.foreign, "args.classic_only")
        for name in ("residential", "industrial"):
            if not 0 <= getattr(situation, name) <= 99:
                raise ArgumentError(name, said("args.blocks_range", n=getattr(situation, name)))

    def card(self, rents: tuple[int, ...] | list[int], situation: Situation, name: str | None = None) -> RentReport:
        """The rent from a card's nine values (``rent --card``), or a district's (``name``) in ``situation``."""
        rent = card_rent(
            rents,
            situation.residential,
            situation.industrial,
            hazard=situation.hazard,
            skyscraper=situation.skyscraper,
            tower=situation.tower,
            mortgaged=situation.mortgaged,
        )
        total = self.total("rent.total", rent.amount)
        return RentReport(name, None, rent.amount, rent.explanation, total, blocks_counted=rent.blocks_counted)

    def fortunes(self, game: Game, variant: str | None) -> FortuneReport:
        self.refuse_variant(variant)
        rows = sorted(fortunes(game), key=lambda row: -row.fortune)
        return FortuneReport(None, tuple(rows), said("fortune.title"))

    def check(self, game: Game, variant: str | None) -> CheckReport:
        self.refuse_variant(variant)
        return CheckReport(None, tuple(check(game)))

    def salary(self, game: Game, player: Player) -> Deal:
        return salary(game, player)

    def industry_tax(self, game: Game, player: Player) -> Deal:
        return industry_tax(game, player)

    def owned(self, game: Game, typed: str) -> str:
        return game.city.district(typed, "SQUARE").name

    def mortgage(self, game: Game, name: str) -> Mortgage:
        player, holding = game.held(name)
        return mortgage(game, player, holding)

    def sell(self, game: Game, name: str, variant: str | None) -> Deal:
        self.offers("sell")
        return Deal(0)

    # --- the bank

    def jail_fine(self, game: Game) -> int:
        return JAIL_FINE

    def price(self, game: Game, name: str) -> int:
        edition = game.city
        district = edition.districts[name]
        if district.price is None:
            raise refused("missing_price", s=name, w=f"{edition.source}: {district.where}.price")
        return district.price

    def build(self, game: Game, owner: Player, holding: Holding, order: Building) -> tuple[int, Holding]:
        """« Vous devez alors les acheter auprès de la banque au prix indiqué sur la/les carte(s) de propriété »;
        a stadium M 2M, the tower M 7M (one in the game)."""
        assert isinstance(holding, CityHolding)
        if order.houses or order.hotel:
            raise refused("classic_only")
        if order.residential < 0 or order.industrial < 0 or not order.city():
            raise refused("nothing_to_build")
        name = holding.district
        if holding.mortgaged:
            raise refused("build_mortgaged", s=name)
        edition = game.city
        district = edition.districts[name]
        cost = 0
        for kind, count in (("residential", order.residential), ("industrial", order.industrial)):
            unit = getattr(district, f"{kind}_cost")
            if count and unit is None:
                raise refused("missing_cost", s=name, w=f"{edition.source}: {district.where}.{kind}_cost")
            cost += count * (unit or 0)
        if (order.skyscraper and holding.skyscraper) or (order.stadium and holding.stadium):
            raise refused("already_built", s=name)
        if order.skyscraper:
            group = edition.groups[district.group]
            if group.skyscraper_cost is None:
                raise refused("missing_skyscraper_cost", g=group.name, w=f"{edition.source}: groups")
            cost += group.skyscraper_cost
        cost += STADIUM_COST * order.stadium
        if order.tower:
            if owner.tower is not None:
                raise refused("one_tower", s=owner.tower)
            cost += TOWER_COST
        return cost, replace(
            holding,
            residential=holding.residential + order.residential,
            industrial=holding.industrial + order.industrial,
            skyscraper=holding.skyscraper or order.skyscraper,
            stadium=holding.stadium or order.stadium,
        )

    def sell_back(self, game: Game, holding: Holding, levels: int | None, variant: str | None) -> tuple[int, Holding]:
        raise refused("city_no_buy_back")

    def remove_hazard(self, game: Game, holding: Holding) -> tuple[int, Holding]:
        """« payant à la banque M 500k par bâtiment » the hazard is worth."""
        assert isinstance(holding, CityHolding)
        if holding.hazard is None:
            raise refused("no_hazard", s=holding.district)
        edition = game.city
        blocks = edition.hazards[holding.hazard]
        if blocks is None:
            raise refused("missing_hazard", h=holding.hazard, w=f"{edition.source}: hazards.{holding.hazard}")
        return blocks * HAZARD_REMOVAL_PER_BLOCK, replace(holding, hazard=None)
