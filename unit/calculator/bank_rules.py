"""What the bank asks of the rule modules: the one place :mod:`unit.calculator.bank` calls them.

A thin seam: the rents, salaries, taxes, mortgage values and buy-back prices are the rule modules' own
(:mod:`unit.calculator.city`, :mod:`unit.calculator.classic`), so the bank and ``monopoly-city rent``,
``salary``, ``tax``, ``mortgage``, ``sell`` and ``check`` never disagree. When the rule modules change
shape, only this file follows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from unit import i18n
from unit.calculator import city, classic
from unit.calculator.edition import CityEdition, ClassicEdition, Street
from unit.calculator.position import CityHolding, ClassicHolding, Game, Player
from unit.calculator.rulebook import Problem
from unit.errors import Text


@dataclass(frozen=True)
class Rent:
    """What a player landing on a square owes its owner, and why (the lines ``monopoly-city rent`` prints)."""

    amount: int
    lines: tuple[str, ...]


def rent(game: Game, square: str, dice: int | None, language: str) -> Rent:
    """The rent of the held square ``square`` (canonical name): City's district rent, classic's deed rent."""
    player, holding = game.held(square)
    if isinstance(holding, CityHolding):
        found = city.district_rent(game, player, holding)
        return Rent(found.amount, said_all(found.explanation, language))
    got = classic.rent(game, square, dice)
    return Rent(got.amount, said_all(got.explanation, language))


def rent_value(game: Game, player: Player, holding: CityHolding, language: str) -> int:
    """A City district's rent value (its mortgage value, and what it counts for in a fortune)."""
    return city.district_rent(game, player, holding).value


def salary(game: Game, player: Player, language: str) -> int:
    """Passing GO: the salary (City: plus M 1M per stadium owned)."""
    if isinstance(game.edition, CityEdition):
        return city.salary(game, player).amount
    return classic.salary(game, player).amount


def industry_tax(game: Game, player: Player, language: str) -> int:
    """City's industry tax: the square's amount with an industrial building, else 0."""
    return city.industry_tax(game, player).amount


def classic_mortgage(edition: ClassicEdition, square: str) -> tuple[int, int]:
    """A deed's mortgage value and what lifting it costs (+10 %)."""
    deed = edition.deed(square)
    return deed.mortgage, classic.lift_cost(edition, deed.mortgage)


def sell_buildings(game: Game, square: str, variant: str | None, language: str) -> int:
    """What the bank pays for every building of a classic street (half price, a hotel with its houses)."""
    return classic.sell_buildings(game, square, variant).amount


def houses_per_hotel(edition: ClassicEdition, variant: str | None) -> int:
    """The houses a classic hotel stands for (4, or 3 in the quick game)."""
    return classic.houses_per_hotel(edition, variant)


def owns_whole_group(edition: ClassicEdition, player: Player, group: str) -> bool:
    return classic.owns_whole_group(edition, player, group)


def problems(game: Game, variant: str | None) -> list[Problem]:
    """The position's broken rules, as ``monopoly-city check`` finds them (their sentences still to be said)."""
    if isinstance(game.edition, CityEdition):
        return list(city.check(game))
    return list(classic.check(game, variant))


def said_all(texts: Iterable[Text], language: str) -> tuple[str, ...]:
    """Sentences of the rule modules said in ``language`` (the bank's history keeps words, not keys)."""
    words = i18n.words(language)
    return tuple(text.say(words) for text in texts)


def classic_street(edition: ClassicEdition, square: str) -> Street | None:
    found = edition.squares.get(square)
    return found if isinstance(found, Street) else None


def holding_kind(game: Game) -> type[CityHolding] | type[ClassicHolding]:
    return CityHolding if isinstance(game.edition, CityEdition) else ClassicHolding
