"""What a City edition lacks for the bank (unit/calculator/needs.py): the card form asks exactly that.

The bank's own refusals are the authority: on random editions (any value left null) and random positions,
the bank refuses for a missing value only with a gap :func:`needs.missing` found (a short payer is told what
the cards copied so far allow, never asked for another district's card), and never does what it was asked while
:func:`needs.missing` says a value is missing.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unit.calculator import bank, edition, needs
from unit.calculator.edition import CityEdition
from unit.calculator.needs import Gap
from unit.calculator.position import CityHolding, Game, Player
from unit.errors import UserError

RENTS = [50_000, 100_000, 150_000, 200_000, 300_000, 400_000, 500_000, 700_000, 900_000]


def city(groups: list[dict[str, Any]], **values: Any) -> CityEdition:
    data = {"game": "city", "name": "Ma ville", "hazards": {"prison": 4}, "groups": groups} | values
    made = edition.parse(data, "ma-ville.edition.yaml")
    assert isinstance(made, CityEdition)
    return made


def district(name: str, **values: Any) -> dict[str, Any]:
    return {"name": name} | values


def holding(name: str, **values: Any) -> CityHolding:
    base = dict(residential=0, industrial=0, hazard=None, bonus=None, skyscraper=False, stadium=False)
    return CityHolding(name, **(base | dict(station=False, mortgaged=False) | values))


def game(ed: CityEdition, *players: Player) -> Game:
    return Game("soiree.game.yaml", ed, players or (Player("Alice", 37_700_000, ()), Player("Bruno", 37_700_000, ())))


def test_an_empty_edition_lacks_the_card_itself_then_what_the_need_asks():
    empty = game(city([]))
    assert needs.missing(empty, "buy", "Docks") == (Gap("Docks", "card"), Gap("Docks", "price"))
    assert needs.missing(empty, "auction", "Docks") == (Gap("Docks", "card"),)
    assert needs.missing(empty, "buy") == (Gap(None, "card"), Gap(None, "price"))  # a card not yet named
    assert needs.missing(empty, "salary") == (Gap(None, "go_salary"),)
    assert needs.missing(empty, "tax") == (Gap(None, "industry_tax"),)
    assert needs.missing(empty, "fortune") == ()  # nobody holds anything


def test_each_need_asks_only_its_own_fields():
    ed = city([{"name": "vert", "districts": [district("Docks", price=1_000_000)]}], go_salary=2_000_000)
    g = game(ed)
    assert needs.missing(g, "buy", "Docks") == ()
    assert needs.missing(g, "auction", "Docks") == ()
    assert needs.missing(g, "rent", "Docks") == (Gap("Docks", "rents"),)
    assert needs.missing(g, "residential", "Docks") == (Gap("Docks", "residential_cost"),)
    assert needs.missing(g, "industrial", "Docks") == (Gap("Docks", "industrial_cost"),)
    assert needs.missing(g, "build", "Docks") == (Gap("Docks", "residential_cost"), Gap("Docks", "industrial_cost"))
    assert needs.missing(g, "skyscraper", "Docks") == (Gap("Docks", "skyscraper_cost"),)
    assert needs.missing(g, "salary") == ()
    assert [gap.need for gap in needs.missing(g, "build", "Docks")] == ["residential", "industrial"]


def test_values_shared_by_a_group_are_asked_once_for_the_group():
    ed = city(
        [
            {
                "name": "vert",
                "skyscraper_cost": 4_000_000,
                "districts": [district("Docks", price=1_000_000), district("Halles")],
            }
        ]
    )
    assert needs.missing(game(ed), "skyscraper", "Halles") == ()  # entered with the Docks card


def test_the_fortune_asks_the_rents_of_every_district_held():
    ed = city([{"name": "vert", "districts": [district("Docks", rents=RENTS), district("Halles"), district("Port")]}])
    g = game(ed, Player("Alice", 0, (holding("Docks"), holding("Halles"))), Player("Bruno", 0, (holding("Port"),)))
    assert needs.missing(g, "fortune") == (Gap("Halles", "rents"), Gap("Port", "rents"))
    assert needs.missing(g, "fortune", "Docks") == ()


def test_a_hazard_removed_asks_what_that_hazard_is_worth():
    ed = city([{"name": "vert", "districts": [district("Docks")]}])
    g = game(ed, Player("Alice", 0, (holding("Docks", hazard="dump"),)))
    assert needs.missing(g, "hazard", "Docks") == (Gap(None, "hazards.dump"),)
    jailed = game(ed, Player("Alice", 0, (holding("Docks", hazard="prison"),)))
    assert needs.missing(jailed, "hazard", "Docks") == ()  # the prison's 4 blocks: the rules
    assert Gap(None, "hazards.dump").need == "hazard"


def test_a_classic_game_lacks_nothing_and_an_unknown_need_is_a_bug():
    classic = edition.load("classic-fr")
    g = Game("x.game.yaml", classic, (Player("Alice", 1500, ()),))
    assert needs.missing(g, "buy", "Rue de la Paix") == ()
    with pytest.raises(ValueError, match="unknown need"):
        needs.missing(g, "steal", "Rue de la Paix")


@pytest.mark.parametrize(
    ("action", "gap"),
    [
        (bank.Buy("Alice", "Docks"), Gap("Docks", "price")),
        (bank.PayRent("Bruno", "Halles"), Gap("Halles", "rents")),
        (bank.Build("Halles", residential=1), Gap("Halles", "residential_cost")),
        (bank.Build("Halles", industrial=1), Gap("Halles", "industrial_cost")),
        (bank.Build("Halles", skyscraper=True), Gap("group:vert", "skyscraper_cost")),
        (bank.Salary("Alice"), Gap(None, "go_salary")),
        (bank.PayTax("Alice"), Gap(None, "industry_tax")),
        (bank.RemoveHazard("Halles"), Gap(None, "hazards.dump")),
        (bank.Mortgage("Halles"), Gap("Halles", "rents")),
    ],
)
def test_each_refusal_for_a_missing_value_names_its_gap(action, gap):
    ed = city([{"name": "vert", "districts": [district("Docks"), district("Halles")]}])
    alice = Player("Alice", 50_000_000, (holding("Halles", hazard="dump", industrial=1),))
    g = game(ed, alice, Player("Bruno", 50_000_000, ()))
    with pytest.raises(UserError) as refused:
        bank.apply(g, action)
    assert needs.gap_of(refused.value) == gap


def test_a_short_payer_is_told_what_the_copied_cards_allow_not_asked_for_another_card():
    ed = city([{"name": "vert", "districts": [district("Docks", rents=RENTS), district("Halles", price=1_000_000)]}])
    bruno = Player("Bruno", 10_000, (holding("Halles"),))  # Halles: its rents (its mortgage value) not copied yet
    g = game(ed, Player("Alice", 0, (holding("Docks"),)), bruno)
    with pytest.raises(UserError) as refused:
        bank.apply(g, bank.PayRent("Bruno", "Docks"))
    assert needs.gap_of(refused.value) is None
    assert refused.value.message.key == "bank.short"


def test_other_refusals_name_no_gap():
    ed = city([{"name": "vert", "districts": [district("Docks", price=90_000_000)]}])
    with pytest.raises(UserError) as refused:
        bank.apply(game(ed), bank.Buy("Alice", "Docks"))  # short of cash: not a card to copy
    assert needs.gap_of(refused.value) is None
    assert needs.gap_of(UserError("x", "a plain line")) is None


# --- the property: the bank and needs.missing agree ---------------------------------------------------------

NAMES = ("Docks", "Halles", "Port")
GROUPS = {"Docks": "vert", "Halles": "vert", "Port": "gris"}
amount = st.one_of(st.none(), st.sampled_from([10_000, 200_000, 1_000_000, 3_000_000]))


@st.composite
def positions(draw: st.DrawFn) -> Game:
    """A City game on an edition of up to three districts (any value null), two players holding some of them."""
    present = [name for name in NAMES if draw(st.booleans())]
    groups: list[dict[str, Any]] = []
    for colour in ("vert", "gris"):
        members = []
        for name in present:
            if GROUPS[name] == colour:
                rents = draw(st.one_of(st.none(), st.just(RENTS)))
                costs = {k: draw(amount) for k in ("price", "residential_cost", "industrial_cost")}
                members.append(district(name, rents=rents, **costs))
        if members:
            groups.append({"name": colour, "skyscraper_cost": draw(amount), "districts": members})
    hazards = {"prison": 4, "dump": draw(st.sampled_from([None, 2]))}
    ed = city(groups, go_salary=draw(amount), industry_tax=draw(amount), hazards=hazards)
    held: dict[str, list[CityHolding]] = {"Alice": [], "Bruno": []}
    for name in present:
        owner = draw(st.sampled_from([None, "Alice", "Bruno"]))
        if owner is not None:
            blocks = {k: draw(st.integers(0, 2)) for k in ("residential", "industrial")}
            hazard = draw(st.sampled_from([None, "dump", "prison"]))
            held[owner].append(holding(name, hazard=hazard, mortgaged=draw(st.booleans()), **blocks))
    cash = st.sampled_from([0, 500_000, 50_000_000])
    return game(ed, *(Player(p, draw(cash), tuple(held[p])) for p in ("Alice", "Bruno")))


ACTIONS = {
    "buy": lambda p, d: bank.Buy(p, d),
    "auction": lambda p, d: bank.Buy(p, d, 100_000),
    "rent": lambda p, d: bank.PayRent(p, d),
    "mortgage": lambda p, d: bank.Mortgage(d),
    "lift": lambda p, d: bank.Lift(d),
    "residential": lambda p, d: bank.Build(d, residential=1),
    "industrial": lambda p, d: bank.Build(d, industrial=1),
    "skyscraper": lambda p, d: bank.Build(d, skyscraper=True),
    "hazard": lambda p, d: bank.RemoveHazard(d),
    "salary": lambda p, d: bank.Salary(p),
    "tax": lambda p, d: bank.PayTax(p),
}


@given(positions(), st.sampled_from(sorted(ACTIONS)), st.sampled_from(NAMES), st.sampled_from(["Alice", "Bruno"]))
def test_the_bank_refuses_for_a_missing_value_exactly_where_needs_finds_one(g, need, name, player):
    found = needs.missing(g, need, None if need in needs.BOARD_NEEDS else name)
    try:
        bank.apply(g, ACTIONS[need](player, name))
    except UserError as error:
        gap = needs.gap_of(error)
        if gap is None:
            return  # refused for another reason (nobody owns it, short of cash...): nothing to copy
        payer = g.holding(name)[0].name if need in ("residential", "industrial", "skyscraper", "hazard") else player
        if gap.district is not None and gap.district.startswith("group:"):  # the group's skyscraper price
            assert Gap(name, "skyscraper_cost") in found and GROUPS[name] == gap.district.removeprefix("group:")
        else:
            assert gap in found, (gap, found, payer)
        return
    assert found == (), f"the bank did {need} on {name} without {found}"
