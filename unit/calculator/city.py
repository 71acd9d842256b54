"""Monopoly City's rules: rents, mortgages, hazards, fortunes and the checks of a position.

The rules are those of the French rule text (seeds/regles-monopoly-city.txt),
summed up in docs/calculator.md. Card values come from the edition file.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from unit.calculator import money
from unit.calculator.edition import CityEdition
from unit.calculator.position import CityHolding, Game, Player
from unit.calculator.rulebook import Deal, Problem, Problems, words

MAX_BLOCKS = 8
HAZARD_REMOVAL_PER_BLOCK = 500_000
MAX_STADIUMS = 2
STADIUM_BONUS = 1_000_000  # « Vous recevez M 1M par stade possédé chaque fois que vous passez par la case DÉPART »

DOUBLED_BY = {
    (True, True): "rent.doubled_both",
    (True, False): "rent.doubled_skyscraper",
    (False, True): "rent.doubled_tower",
}


@dataclass
class Rent:
    amount: int  # what a player landing there pays
    value: int  # the rent value (the same, but also for a mortgaged district: its mortgage value)
    blocks_counted: int
    explanation: list[str] = field(default_factory=list)


def card_rent(
    rents: tuple[int, ...] | list[int],
    residential: int = 0,
    industrial: int = 0,
    *,
    hazard: bool = False,
    skyscraper: bool = False,
    tower: bool = False,
    mortgaged: bool = False,
    language: str = "fr",
) -> Rent:
    """The rent from a district card: the value for the blocks that count, doubled once at most."""
    m = lambda amount: money.city(amount, language)  # noqa: E731
    lines = []
    counted = industrial + (0 if hazard else residential)
    if hazard and residential:
        lines.append(
            words(
                language,
                "rent.hazard_cancels",
                n=residential,
            )
        )
    if counted > MAX_BLOCKS:
        lines.append(words(language, "rent.max_blocks", n=counted))
        counted = MAX_BLOCKS
    value = rents[counted]
    if counted:
        lines.append(words(language, "rent.blocks", n=counted, v=m(value)))
    else:
        lines.append(words(language, "rent.city_bare", v=m(value)))
    if skyscraper or tower:  # « vous ne pouvez pas doubler deux fois votre loyer »
        value *= 2
        lines.append(words(language, DOUBLED_BY[skyscraper, tower], v=m(value)))
    amount = value
    if mortgaged:
        amount = 0
        lines.append(
            words(
                language,
                "rent.city_mortgaged",
                v=m(value),
            )
        )
    return Rent(amount, value, counted, lines)


def owner_doubles(game: Game, player: Player, group: str) -> tuple[bool, bool]:
    """Whether ``player`` has a skyscraper in ``group``, and whether they have the Monopoly Tower."""
    edition = game.city
    skyscraper = any(h.skyscraper and edition.districts[h.district].group == group for h in player.holdings)
    return skyscraper, player.tower is not None


def district_rent(game: Game, player: Player, holding: CityHolding, language: str) -> Rent:
    edition = game.city
    district = edition.districts[holding.district]
    skyscraper, tower = owner_doubles(game, player, district.group)
    rent = card_rent(
        edition.rents(district, language),
        holding.residential,
        holding.industrial,
        hazard=holding.hazard is not None,
        skyscraper=skyscraper,
        tower=tower,
        mortgaged=holding.mortgaged,
        language=language,
    )
    if holding.hazard is not None:
        rent.explanation.append(hazard_removal(edition, holding.hazard, language))
    return rent


def hazard_removal(edition: CityEdition, hazard: str, language: str) -> str:
    """« payez à la banque M 500k par bâtiment » for the blocks the hazard is worth."""
    name = words(language, f"hazard.{hazard}")
    blocks = edition.hazards[hazard]
    if blocks is None:
        return words(
            language,
            "hazard.missing",
            h=name,
            k=hazard,
            f=edition.source,
        )
    return words(
        language,
        "hazard.removal",
        h=name,
        v=money.city(blocks * HAZARD_REMOVAL_PER_BLOCK, language),
        n=blocks,
    )


# --- fortunes ---------------------------------------------------------------------------------


def fortunes(game: Game, language: str) -> list[tuple[Player, int]]:
    """« La valeur du quartier est égale à la valeur du loyer que payerait un autre joueur » (0 if mortgaged)."""
    out = []
    for player in game.players:
        assets = sum(district_rent(game, player, h, language).amount for h in player.holdings)
        out.append((player, assets))
    return out


# --- checks -----------------------------------------------------------------------------------


def check(game: Game, language: str) -> list[Problem]:
    edition = game.city
    problems = Problems(language)

    problems.owned_once(game.owners())

    def whole_groups(player: Player) -> set[str]:
        mine = {h.district for h in player.holdings}
        return {g.name for g in edition.groups.values() if set(g.districts) <= mine}

    skyscrapers: Counter = Counter()
    stadiums: list[tuple[Player, CityHolding]] = []
    for player in game.players:
        whole = whole_groups(player)
        per_group = Counter(edition.districts[h.district].group for h in player.holdings)
        for h in player.holdings:
            group = edition.districts[h.district].group
            if h.blocks > MAX_BLOCKS:
                problems.add(
                    player.name,
                    h.district,
                    "max_blocks",
                    n=h.blocks,
                    d=h.district,
                )
            if h.hazard and h.bonus:
                problems.add(
                    player.name,
                    h.district,
                    "hazard_and_bonus",
                    d=h.district,
                )
            if h.skyscraper:
                skyscrapers[group] += 1
                if group not in whole:
                    problems.add(
                        player.name,
                        h.district,
                        "skyscraper_needs_group",
                        d=h.district,
                        g=group,
                    )
            if h.stadium:
                stadiums.append((player, h))
                if per_group[group] < 2:
                    problems.add(
                        player.name,
                        h.district,
                        "stadium_needs_two_districts",
                        d=h.district,
                        g=group,
                    )
        if player.tower is not None:
            group = edition.districts[player.tower].group
            if len(whole) < 2:
                problems.add(
                    player.name,
                    player.tower,
                    "tower_needs_two_groups",
                )
            elif group not in whole:
                problems.add(
                    player.name,
                    player.tower,
                    "tower_on_group",
                )
    for group, count in skyscrapers.items():
        if count > 1:
            problems.add(
                None,
                group,
                "one_skyscraper_per_group",
                n=count,
                g=group,
            )
    cards = [p.name for p in game.players if p.exemption_card]
    if len(cards) > 1:
        problems.add(", ".join(cards), None, "one_exemption_card", n=len(cards))
    towers = [p.name for p in game.players if p.tower is not None]
    if len(towers) > 1:
        problems.add(
            ", ".join(towers),
            None,
            "one_tower",
            n=len(towers),
        )
    if len(stadiums) > MAX_STADIUMS:
        problems.add(
            None,
            None,
            "max_stadiums",
            n=len(stadiums),
        )
    by_group = Counter(edition.districts[h.district].group for _, h in stadiums)
    for group, count in by_group.items():
        if count > 1:
            problems.add(
                None,
                group,
                "one_stadium_per_group",
                n=count,
                g=group,
            )
    return problems


# --- the bank: GO, the industry tax, mortgages --------------------------------------------------


def salary(game: Game, player: Player, language: str) -> Deal:
    """Passing GO: the salary « (en plus de votre salaire) », plus M 1M per stadium owned."""
    edition = game.city
    base = edition.board_amount("go_salary", language)
    stadiums = sum(1 for h in player.holdings if h.stadium)
    lines = [words(language, "salary.go", a=money.city(base, language))]
    if stadiums:
        bonus = stadiums * STADIUM_BONUS
        lines.append(words(language, "salary.stadiums", n=stadiums, a=money.city(bonus, language)))
    return Deal(base + stadiums * STADIUM_BONUS, lines)


def industry_tax(game: Game, player: Player, language: str) -> Deal:
    """« Si vous possédez un bâtiment industriel, vous devez payer le montant indiqué sur la case du plateau.
    Si vous n'en possédez pas, vous n'avez rien à payer. »"""
    edition = game.city
    industrial = sum(h.industrial for h in player.holdings)
    if not industrial:
        return Deal(0, [words(language, "tax.none")])
    amount = edition.board_amount("industry_tax", language)
    return Deal(amount, [words(language, "tax.owed", n=industrial, a=money.city(amount, language))])


def mortgage(game: Game, player: Player, holding: CityHolding, language: str) -> tuple[int, Deal]:
    """« La valeur de l'hypothèque correspond à la valeur du loyer au moment de l'hypothèque » and lifting it
    costs « la valeur de l'hypothèque [...], soit le montant que la banque vous a versé auparavant »."""
    value = district_rent(game, player, holding, language).value
    shown = money.city(value, language)
    if holding.mortgaged:
        return value, Deal(value, [words(language, "mortgage.city_lift", v=shown)])
    return value, Deal(value, [words(language, "mortgage.city_take", v=shown)])
