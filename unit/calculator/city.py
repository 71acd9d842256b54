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
from unit.calculator.rulebook import Problem, Problems, say

MAX_BLOCKS = 8
HAZARD_REMOVAL_PER_BLOCK = 500_000
MAX_STADIUMS = 2

HAZARD_NAMES = {
    "fr": {
        "prison": "la prison",
        "dump": "la décharge",
        "sewage_plant": "l'usine de traitement des eaux usées",
        "power_station": "la centrale électrique",
    },
    "en": {
        "prison": "the prison",
        "dump": "the dump",
        "sewage_plant": "the sewage plant",
        "power_station": "the power station",
    },
}


DOUBLED_BY = {
    (True, True): (
        "gratte-ciel et tour Monopoly : doublé une seule fois → {v}",
        "skyscraper and Monopoly Tower: doubled only once → {v}",
    ),
    (True, False): ("gratte-ciel dans le groupe : doublé → {v}", "skyscraper in the group: doubled → {v}"),
    (False, True): ("tour Monopoly du propriétaire : doublé → {v}", "the owner's Monopoly Tower: doubled → {v}"),
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
            say(
                language,
                "{n} bâtiment(s) résidentiel(s) ne compte(nt) pas : un bâtiment nuisible est là",
                "{n} residential block(s) do not count: a hazard stands here",
                n=residential,
            )
        )
    if counted > MAX_BLOCKS:
        lines.append(
            say(language, "au plus 8 bâtiments comptent ({n} posés)", "at most 8 blocks count ({n} built)", n=counted)
        )
        counted = MAX_BLOCKS
    value = rents[counted]
    if counted:
        lines.append(
            say(language, "{n} bâtiment(s) : {v} sur la carte", "{n} block(s): {v} on the card", n=counted, v=m(value))
        )
    else:
        lines.append(say(language, "terrain nu : {v}", "bare land: {v}", v=m(value)))
    if skyscraper or tower:  # « vous ne pouvez pas doubler deux fois votre loyer »
        fr, en = DOUBLED_BY[skyscraper, tower]
        value *= 2
        lines.append(say(language, fr, en, v=m(value)))
    amount = value
    if mortgaged:
        amount = 0
        lines.append(
            say(
                language,
                "hypothéqué : aucun loyer (valeur d'hypothèque : {v}, à rembourser pour la lever)",
                "mortgaged: no rent (mortgage value: {v}, paid back to lift it)",
                v=m(value),
            )
        )
    return Rent(amount, value, counted, lines)


def owner_doubles(game: Game, player: Player, group: str) -> tuple[bool, bool]:
    """Whether ``player`` has a skyscraper in ``group``, and whether they have the Monopoly Tower."""
    edition: CityEdition = game.edition
    skyscraper = any(h.skyscraper and edition.districts[h.district].group == group for h in player.holdings)
    return skyscraper, player.tower is not None


def district_rent(game: Game, player: Player, holding: CityHolding, language: str) -> Rent:
    edition: CityEdition = game.edition
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
        language=language,
    )
    if holding.hazard is not None:
        rent.explanation.append(hazard_removal(edition, holding.hazard, language))
    return rent


def hazard_removal(edition: CityEdition, hazard: str, language: str) -> str:
    """« payez à la banque M 500k par bâtiment » for the blocks the hazard is worth."""
    name = HAZARD_NAMES[language][hazard]
    blocks = edition.hazards[hazard]
    if blocks is None:
        return say(
            language,
            "enlever {h} : sa valeur en bâtiments manque (hazards.{k} dans {f})",
            "removing {h}: its value in blocks is missing (hazards.{k} in {f})",
            h=name,
            k=hazard,
            f=edition.source,
        )
    return say(
        language,
        "enlever {h} coûte {v} ({n} × M 500k)",
        "removing {h} costs {v} ({n} × M 500k)",
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
    edition: CityEdition = game.edition
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
                    "{n} bâtiments sur {d} : 8 au plus",
                    "{n} blocks on {d}: 8 at most",
                    n=h.blocks,
                    d=h.district,
                )
            if h.hazard and h.bonus:
                problems.add(
                    player.name,
                    h.district,
                    "hazard_and_bonus",
                    "{d} a un bâtiment nuisible et un bâtiment bonus : ils s'excluent",
                    "{d} has a hazard and a bonus building: they exclude each other",
                    d=h.district,
                )
            if h.skyscraper:
                skyscrapers[group] += 1
                if group not in whole:
                    problems.add(
                        player.name,
                        h.district,
                        "skyscraper_needs_group",
                        "gratte-ciel sur {d} sans tout le groupe {g}",
                        "skyscraper on {d} without the whole {g} group",
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
                        "stade sur {d} : il faut deux quartiers du groupe {g}",
                        "stadium on {d}: two districts of the {g} group are needed",
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
                    "tour Monopoly sans deux groupes complets",
                    "Monopoly Tower without two whole groups",
                )
            elif group not in whole:
                problems.add(
                    player.name,
                    player.tower,
                    "tower_on_group",
                    "la tour Monopoly doit être sur un quartier d'un des groupes complets",
                    "the Monopoly Tower must stand on a district of one of the whole groups",
                )
    for group, count in skyscrapers.items():
        if count > 1:
            problems.add(
                None,
                group,
                "one_skyscraper_per_group",
                "{n} gratte-ciel dans le groupe {g} : un seul",
                "{n} skyscrapers in the {g} group: one only",
                n=count,
                g=group,
            )
    towers = [p.name for p in game.players if p.tower is not None]
    if len(towers) > 1:
        problems.add(
            ", ".join(towers),
            None,
            "one_tower",
            "{n} tours Monopoly : une seule dans le jeu",
            "{n} Monopoly Towers: one only in the game",
            n=len(towers),
        )
    if len(stadiums) > MAX_STADIUMS:
        problems.add(
            None,
            None,
            "max_stadiums",
            "{n} stades : il n'y en a que 2 dans le jeu",
            "{n} stadiums: there are only 2 in the game",
            n=len(stadiums),
        )
    by_group = Counter(edition.districts[h.district].group for _, h in stadiums)
    for group, count in by_group.items():
        if count > 1:
            problems.add(
                None,
                group,
                "one_stadium_per_group",
                "{n} stades dans le groupe {g} : un par groupe",
                "{n} stadiums in the {g} group: one per group",
                n=count,
                g=group,
            )
    return problems
