"""Classic Monopoly's rules: rents, mortgages, fortunes and the checks of a position.

From the French rule texts (seeds/fiche-monopoly-classique.txt,
seeds/regles-monopoly-classique-suite.txt); the numbers come from the edition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from unit.calculator.edition import ClassicEdition, Street
from unit.calculator.position import ClassicHolding, Game, Player
from unit.calculator.rulebook import Problem, Problems, say
from unit.errors import UserError

HOTEL_LEVEL = 5  # a hotel counts as a fifth house when building evenly
QUICK_HOTEL_HOUSES = 3  # « vous ne devez construire que trois maisons, au lieu de quatre »


@dataclass
class Rent:
    amount: int
    explanation: list[str] = field(default_factory=list)


def lift_cost(edition: ClassicEdition, mortgage: int) -> int:
    """Lifting a mortgage: its value plus 10 % interest, rounded up to a whole unit."""
    return mortgage + math.ceil(round(mortgage * edition.rules["unmortgage_interest"], 6))


def owns_whole_group(edition: ClassicEdition, player: Player, group: str) -> bool:
    mine = {h.square for h in player.holdings}
    return all(street.name in mine for street in edition.group_streets(group))


def rent(game: Game, square_name: str, dice: int | None, language: str) -> Rent:
    """What a player landing on ``square_name`` pays its owner (the owner must exist)."""
    edition: ClassicEdition = game.edition
    square = edition.squares[square_name]
    player, holding = game.holding(square_name)
    if holding.mortgaged:
        cost = lift_cost(edition, square.mortgage)
        return Rent(
            0,
            [
                say(
                    language,
                    "hypothéquée : aucun loyer (lever l'hypothèque coûte {c} = {m} + 10 %)",
                    "mortgaged: no rent (lifting the mortgage costs {c} = {m} + 10 %)",
                    c=cost,
                    m=square.mortgage,
                )
            ],
        )
    if isinstance(square, Street):
        return _street_rent(edition, player, holding, square, language)
    if square.kind == "station":
        owned = _owned(edition, player, "station")
        amount = edition.station_rents[owned]
        return Rent(
            amount, [say(language, "{n} gare(s) possédée(s) : {a}", "{n} station(s) owned: {a}", n=owned, a=amount)]
        )
    if square.kind == "utility":
        if dice is None:
            raise UserError("--dice", f"{square.name} is a utility: its rent depends on the dice total (--dice N)")
        owned = _owned(edition, player, "utility")
        factor = edition.utility_multipliers[owned]
        return Rent(
            factor * dice,
            [
                say(
                    language,
                    "{n} service(s) public(s) : {f} × {d} aux dés = {a}",
                    "{n} utility(ies) owned: {f} × {d} on the dice = {a}",
                    n=owned,
                    f=factor,
                    d=dice,
                    a=factor * dice,
                )
            ],
        )
    raise TypeError(square)


def _owned(edition: ClassicEdition, player: Player, kind: str) -> int:
    """How many stations (or utilities) the owner holds; mortgaged ones count unless the edition says not."""
    cancels = edition.rules["mortgaged_street_cancels_group_double_rent"]
    return sum(1 for h in player.holdings if edition.squares[h.square].kind == kind and not (cancels and h.mortgaged))


def _street_rent(
    edition: ClassicEdition, player: Player, holding: ClassicHolding, street: Street, language: str
) -> Rent:
    if holding.hotel:
        return Rent(street.rent[5], [say(language, "un hôtel : {a}", "a hotel: {a}", a=street.rent[5])])
    if holding.houses:
        amount = street.rent[min(holding.houses, 4)]
        return Rent(amount, [say(language, "{n} maison(s) : {a}", "{n} house(s): {a}", n=holding.houses, a=amount)])
    lines = [say(language, "terrain nu : {a}", "bare: {a}", a=street.rent[0])]
    whole = owns_whole_group(edition, player, street.group)
    doubled = whole and edition.rules["double_rent_on_full_group_unbuilt"]
    if doubled and edition.rules["mortgaged_street_cancels_group_double_rent"]:
        mine = {h.square: h for h in player.holdings}
        if any(mine[s.name].mortgaged for s in edition.group_streets(street.group)):
            doubled = False
            lines.append(
                say(
                    language,
                    "une rue du groupe est hypothéquée : pas de loyer double (règle de l'édition)",
                    "a street of the group is mortgaged: no double rent (this edition's rule)",
                )
            )
    if doubled:
        lines.append(
            say(
                language,
                "groupe {g} complet, sans maison : doublé → {a}",
                "whole {g} group, no houses: doubled → {a}",
                g=edition.groups[street.group]["fr"] if language == "fr" else street.group.replace("_", " "),
                a=2 * street.rent[0],
            )
        )
        return Rent(2 * street.rent[0], lines)
    return Rent(street.rent[0], lines)


# --- fortunes ---------------------------------------------------------------------------------


def fortunes(game: Game, variant: str) -> list[tuple[Player, int]]:
    """« ses terrains, services publics et gares au prix indiqué sur le plateau de jeu, ses propriétés
    hypothéquées estimées à la moitié [...], ses maisons estimées au prix d'achat, ses hôtels estimés au prix
    d'achat, qui comprend la valeur des [...] maisons données en échange »."""
    edition: ClassicEdition = game.edition
    houses_per_hotel = QUICK_HOTEL_HOUSES if variant == "quick" else edition.rules["hotel_requires_houses"]
    out = []
    for player in game.players:
        assets = 0
        for h in player.holdings:
            square = edition.squares[h.square]
            assets += square.price // 2 if h.mortgaged else square.price
            if isinstance(square, Street):
                assets += h.houses * square.house_cost
                if h.hotel:
                    assets += (1 + houses_per_hotel) * square.house_cost
        out.append((player, assets))
    return out


# --- checks -----------------------------------------------------------------------------------


def check(game: Game, language: str) -> list[Problem]:
    edition: ClassicEdition = game.edition
    problems = Problems(language)

    houses = hotels = 0
    for player in game.players:
        for h in player.holdings:
            houses += h.houses
            hotels += h.hotel
            square = edition.squares[h.square]
            if h.houses > 4:
                problems.add(
                    player.name,
                    h.square,
                    "max_houses",
                    "{n} maisons sur {s} : 4 au plus, puis un hôtel",
                    "{n} houses on {s}: 4 at most, then a hotel",
                    n=h.houses,
                    s=h.square,
                )
            if h.hotel and h.houses:
                problems.add(
                    player.name,
                    h.square,
                    "hotel_and_houses",
                    "{s} a un hôtel et {n} maison(s)",
                    "{s} has a hotel and {n} house(s)",
                    s=h.square,
                    n=h.houses,
                )
            built = h.houses or h.hotel
            if built and h.mortgaged:
                problems.add(
                    player.name,
                    h.square,
                    "mortgaged_with_buildings",
                    "{s} est hypothéquée avec des bâtiments : il faut d'abord les vendre",
                    "{s} is mortgaged with buildings on it: they must be sold first",
                    s=h.square,
                )
            if built and isinstance(square, Street):
                mine = {x.square: x for x in player.holdings}
                group = edition.group_streets(square.group)
                if not owns_whole_group(edition, player, square.group):
                    problems.add(
                        player.name,
                        h.square,
                        "build_needs_group",
                        "bâtiments sur {s} sans tout le groupe",
                        "buildings on {s} without the whole group",
                        s=h.square,
                    )
                elif any(mine[s.name].mortgaged for s in group):
                    problems.add(
                        player.name,
                        h.square,
                        "build_on_mortgaged_group",
                        "bâtiments sur {s} alors qu'une rue du groupe est hypothéquée",
                        "buildings on {s} while a street of its group is mortgaged",
                        s=h.square,
                    )
        for colour in edition.groups:
            if not owns_whole_group(edition, player, colour):
                continue
            mine = {x.square: x for x in player.holdings}
            levels = {
                s.name: HOTEL_LEVEL if mine[s.name].hotel else mine[s.name].houses
                for s in edition.group_streets(colour)
            }
            if max(levels.values()) - min(levels.values()) > 1:
                shown = ", ".join(f"{name} {level if level < HOTEL_LEVEL else 'H'}" for name, level in levels.items())
                problems.add(
                    player.name,
                    None,
                    "even_building",
                    "construction inégale dans le groupe {g} : {l}",
                    "uneven building in the {g} group: {l}",
                    g=colour,
                    l=shown,
                )
    problems.owned_once(game.owners())
    if houses > edition.rules["bank_houses"]:
        problems.add(
            None,
            None,
            "bank_houses",
            "{n} maisons en jeu : la banque n'en a que {b}",
            "{n} houses in play: the bank has only {b}",
            n=houses,
            b=edition.rules["bank_houses"],
        )
    if hotels > edition.rules["bank_hotels"]:
        problems.add(
            None,
            None,
            "bank_hotels",
            "{n} hôtels en jeu : la banque n'en a que {b}",
            "{n} hotels in play: the bank has only {b}",
            n=hotels,
            b=edition.rules["bank_hotels"],
        )
    return problems
