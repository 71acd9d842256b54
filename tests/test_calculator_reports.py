"""Issue 19, item 4: the calculator returns reports as values. One rules object per kind of game, chosen from the
edition; the rules take no language (their sentences are said where a line is printed or a page rendered); « needs
the dice » is a field of the rent report, not an exception; the command line prints the reports it gets.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unit import i18n
from unit.calculator import city, classic, commands, rules
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.rulebook import CheckReport, Fortune, FortuneReport, RentReport, Rules, Situation
from unit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs/examples"
FR, EN = i18n.words("fr"), i18n.words("en")
WATER = "Compagnie de distribution des eaux"


def classic_game(*holdings: positions.ClassicHolding) -> positions.Game:
    edition = editions.load("classic-fr")
    return positions.Game("test", edition, (positions.Player("Alice", 1500, holdings),))


def test_one_rules_object_per_kind_chosen_from_the_edition():
    city_game = positions.load(str(EXAMPLES / "city-game.yaml"))
    classic_one = positions.load(str(EXAMPLES / "classic-game.yaml"))
    assert isinstance(rules.of(city_game), city.MonopolyCity)
    assert isinstance(rules.of(classic_one), classic.ClassicMonopoly)
    assert rules.of(city_game) is rules.of(city_game.edition)  # one object per kind, not one per question
    assert {r.kind for r in rules.KINDS.values()} == {"city", "classic"}
    assert all(isinstance(r, Rules) for r in rules.KINDS.values())


@pytest.mark.parametrize("dice", range(2, 13))
def test_a_utility_without_the_dice_says_so_in_a_field(dice):
    """« Si le propriétaire a 1 service public, le loyer est égal à 4x le résultat des dés » (fiche classique):
    without the throw, the report says the dice are needed; with it, the rent is 4 times the dice."""
    game = classic_game(positions.ClassicHolding(WATER, 0, False, False))
    kind = rules.of(game)
    waiting = kind.rent(game, WATER, None)
    assert waiting.needs_dice and waiting.rent == 0 and waiting.owner == "Alice"
    thrown = kind.rent(game, WATER, dice)
    assert not thrown.needs_dice and thrown.rent == 4 * dice
    assert thrown.rules == ("calculator.rent.utilities",)


def test_nobodys_or_a_mortgaged_utility_needs_no_dice():
    nobody = classic_game()
    assert not rules.of(nobody).rent(nobody, WATER, None).needs_dice
    mortgaged = classic_game(positions.ClassicHolding(WATER, 0, False, True))
    report = rules.of(mortgaged).rent(mortgaged, WATER, None)
    assert not report.needs_dice and report.rent == 0


def test_the_command_line_still_asks_for_the_dice(capsys):
    status = main(["rent", str(EXAMPLES / "classic-game.yaml"), "eaux"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("monopoly-city: --dice: ") and err.count("\n") == 1


def test_reports_are_frozen_values():
    game = positions.load(str(EXAMPLES / "city-game.yaml"))
    kind = rules.of(game)
    for report in (kind.rent(game, "Docks", None), kind.fortunes(game, None), kind.check(game, None)):
        assert dataclasses.is_dataclass(report)
        with pytest.raises(dataclasses.FrozenInstanceError):
            report.variant = "quick"  # type: ignore[misc,union-attr]
    assert isinstance(kind.fortunes(game, None), FortuneReport)
    assert isinstance(kind.check(game, None), CheckReport)


def test_the_same_report_is_said_in_each_language():
    """The rules compute once; the words come at the edge: « M 1,5M » in French, « M 1.5M » in English."""
    report = city.MonopolyCity().card([1_500_000] * 9, Situation())
    assert isinstance(report, RentReport) and report.rent == 1_500_000
    assert report.total.say(FR) == "Loyer : M 1,5M"
    assert report.total.say(EN).endswith("M 1.5M") and report.total.say(EN) != report.total.say(FR)
    assert [line.key for line in report.explanation] == ["calculator.rent.city_bare"]


def test_fortunes_carry_each_holdings_value():
    """« ses terrains [...] au prix indiqué sur le plateau de jeu, ses propriétés hypothéquées estimées à la
    moitié »: Rue de la Paix (400) and the water company mortgaged (150 / 2)."""
    game = classic_game(
        positions.ClassicHolding("Rue de la Paix", 0, False, False), positions.ClassicHolding(WATER, 0, False, True)
    )
    report = rules.of(game).fortunes(game, None)
    assert report.variant == "timed" and report.winners == ("Alice",)
    assert report.players == (Fortune("Alice", 1500, (("Rue de la Paix", 400), (WATER, 75))),)
    assert report.players[0].fortune == 1500 + 475


def test_check_problems_are_said_at_the_edge():
    game = classic_game(positions.ClassicHolding("Rue de la Paix", 2, False, False))
    report = rules.of(game).check(game, None)
    assert not report.ok and [p.rule for p in report.problems] == ["build_needs_group"]
    message = report.problems[0].message
    assert message.say(FR) != message.say(EN) and "Rue de la Paix" in message.say(FR)


@given(
    rents=st.lists(st.integers(0, 20_000).map(lambda n: n * 1_000), min_size=9, max_size=9),
    residential=st.integers(0, 12),
    industrial=st.integers(0, 12),
    hazard=st.booleans(),
    skyscraper=st.booleans(),
    tower=st.booleans(),
    mortgaged=st.booleans(),
)
def test_a_card_report_is_what_the_command_line_prints(
    rents, residential, industrial, hazard, skyscraper, tower, mortgaged
):
    """The JSON and text lines are the report's fields said in words, nothing recomputed: « vous ne pouvez pas
    doubler deux fois votre loyer »."""
    situation = Situation(residential, industrial, hazard, skyscraper, tower, mortgaged)
    report = city.MonopolyCity().card(rents, situation)
    counted = min(8, industrial + (0 if hazard else residential))
    value = rents[counted] * (2 if skyscraper or tower else 1)
    assert report.blocks_counted == counted and report.rent == (0 if mortgaged else value)
    obj = commands.rent_object(report, FR)
    assert obj == {
        "rent": report.rent,
        "blocks_counted": counted,
        "explanation": [line.say(FR) for line in report.explanation],
    }
    lines = commands.rent_lines(report, FR)
    assert lines[-1] == report.total.say(FR) and len(lines) == len(report.explanation) + 1


def test_the_json_of_a_game_rent_is_unchanged(capsys):
    """City game files keep their ``exemption`` key; classic ones have none."""
    assert main(["rent", str(EXAMPLES / "city-game.yaml"), "Docks", "--json"]) == 0
    city_obj = json.loads(capsys.readouterr().out)
    assert list(city_obj) == ["square", "owner", "rent", "explanation", "exemption"]
    assert main(["rent", str(EXAMPLES / "classic-game.yaml"), "paix", "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["square", "owner", "rent", "explanation"]


RULE_MODULES = ["city", "classic", "rules", "rulebook"]


@pytest.mark.parametrize("module", RULE_MODULES)
def test_no_rule_takes_a_language(module):
    """Words said at the edge: no function of the rules has a ``language`` parameter, but the ones that look a name
    up as typed (their error names the closest name in the reader's language) and ``words`` itself."""
    tree = ast.parse((ROOT / f"unit/calculator/{module}.py").read_text(encoding="utf-8"))
    taking = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and "language" in {a.arg for a in node.args.args + node.args.kwonlyargs}
    }
    assert taking <= {"find", "rent_of", "what_if", "owned", "written", "words", "shown"}
