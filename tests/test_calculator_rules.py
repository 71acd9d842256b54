"""Every rule that puts a number on the table, each test quoting its sentence from the French rule sheets
(``reference/seeds/`` in the shared reference folder): the quick game's hotels in ``check``, selling
buildings back, mortgages, the GO salary, City's industry tax, stadiums and the rent-exemption card, and
the edition flags.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from helpers import cli_json

from unit.calculator import edition as editions
from unit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs/examples"
CLASSIC_FR = (ROOT / "unit/calculator/editions/classic-fr.yaml").read_text(encoding="utf-8")
LIGHT_BLUE = ["Rue de Vaugirard", "Rue de Courcelles", "Avenue de la République"]


def run(capsys, *argv):
    status, obj, err = cli_json(capsys, *argv)
    assert status in (0, 1), err
    return obj


@pytest.fixture
def classic(tmp_path):
    """Write a classic game file from {player: [property dicts]} (on ``edition``) and return its path."""

    def write(players: dict, edition: str = "classic-fr") -> str:
        data = {
            "edition": edition,
            "players": [{"name": name, "cash": 1000, "properties": props} for name, props in players.items()],
        }
        path = tmp_path / "game.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        return str(path)

    return write


@pytest.fixture
def city_game(tmp_path):
    def write(players: list[dict]) -> str:
        path = tmp_path / "city.yaml"
        data = {"edition": str(EXAMPLES / "city-example.yaml"), "players": players}
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        return str(path)

    return write


def edition_file(tmp_path, replace: dict[str, str]) -> str:
    """classic-fr with some lines changed (regular expressions), saved as an edition file."""
    text = CLASSIC_FR
    for pattern, repl in replace.items():
        text, n = re.subn(pattern, repl, text, flags=re.MULTILINE)
        assert n, pattern
    path = tmp_path / "edition.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- classic: the quick game and hotel_requires_houses in check -----------------------------------

HOTEL_3_3 = {"A": [{"name": LIGHT_BLUE[0], "hotel": True}, {"name": LIGHT_BLUE[1], "houses": 3},
                   {"name": LIGHT_BLUE[2], "houses": 3}]}  # fmt: skip


def test_check_knows_the_quick_game(capsys, classic):
    """« Dans cette partie courte, vous ne devez construire que trois maisons, au lieu de quatre, sur chaque
    terrain avant de pouvoir acheter un hôtel. »"""
    path = classic(HOTEL_3_3)
    assert [p["rule"] for p in run(capsys, "check", path)["problems"]] == ["even_building"]
    assert run(capsys, "check", path, "--variant", "quick") == {"ok": True, "problems": []}
    uneven = classic({"A": [{"name": LIGHT_BLUE[0], "hotel": True}, {"name": LIGHT_BLUE[1], "houses": 2},
                            {"name": LIGHT_BLUE[2], "houses": 3}]})  # fmt: skip
    assert [p["rule"] for p in run(capsys, "check", uneven, "--variant", "quick")["problems"]] == ["even_building"]


def test_check_honours_the_editions_hotel_requires_houses(capsys, classic, tmp_path):
    """The edition's ``hotel_requires_houses`` is the number of houses traded in for a hotel."""
    three = edition_file(tmp_path, {r"^hotel_requires_houses: 4": "hotel_requires_houses: 3"})
    assert run(capsys, "check", classic(HOTEL_3_3, edition=three))["ok"] is True


def test_check_quick_is_for_the_classic_game(capsys):
    assert main(["check", str(EXAMPLES / "city-game.yaml"), "--variant", "quick"]) == 2
    assert "--variant: Monopoly City n'a qu'une façon de compter" in capsys.readouterr().err


# --- classic: selling buildings back ------------------------------------------------------------


def test_houses_sell_back_at_half_price(capsys):
    """« Les maisons et les hôtels ne peuvent être vendus à d'autres joueurs. Ils doivent être vendus à la
    banque à la moitié de leur valeur, indiquée sur la carte de propriété. »"""
    obj = run(capsys, "sell", str(EXAMPLES / "classic-game.yaml"), "paix")
    assert obj["square"] == "Rue de la Paix" and obj["houses"] == 4 and obj["amount"] == 4 * 100


def test_a_hotel_sells_back_with_half_of_four_houses(capsys):
    """« Pour les hôtels, la banque paiera la moitié du prix de l'hôtel, plus la moitié du prix des quatre
    maisons qui ont été données en échange »; partie rapide: « Si l'on désire revendre un hôtel, sa valeur est
    réduite de moitié par rapport au prix d'achat, plus la moitié de la valeur de chacune des trois maisons. »"""
    path = str(EXAMPLES / "classic-game.yaml")
    assert run(capsys, "sell", path, "champs")["amount"] == 100 + 4 * 100  # house and hotel cost 200
    assert run(capsys, "sell", path, "champs", "--variant", "quick")["amount"] == 100 + 3 * 100


def test_nothing_to_sell_and_no_sale_in_city(capsys):
    assert run(capsys, "sell", str(EXAMPLES / "classic-game.yaml"), "lecourbe")["amount"] == 0
    assert main(["sell", str(EXAMPLES / "city-game.yaml"), "docks"]) == 2
    assert "Monopoly City ne rachète pas les bâtiments" in capsys.readouterr().err


# --- mortgages ----------------------------------------------------------------------------------


def test_classic_mortgage_and_lifting_it(capsys):
    """« Pour rembourser une hypothèque: Payez le coût de l'hypothèque à la banque (la valeur de l'hypothèque
    +10%) »; « Le nouveau propriétaire doit immédiatement: [...] maintenir l'hypothèque (payer uniquement 10% de
    la valeur de l'hypothèque à la banque pour l'instant) »."""
    path = str(EXAMPLES / "classic-game.yaml")
    lifted = run(capsys, "mortgage", path, "henri")
    assert lifted["mortgaged"] is True and (lifted["mortgage"], lifted["lift"], lifted["amount"]) == (120, 132, 132)
    assert "un créancier qui la reçoit paie aussitôt les intérêts : 12" in lifted["explanation"]
    taken = run(capsys, "mortgage", path, "matignon")
    assert taken["mortgaged"] is False and (taken["mortgage"], taken["lift"], taken["amount"]) == (110, 121, 110)


def test_mortgage_needs_the_groups_buildings_sold_first(capsys):
    """« Pour hypothéquer une propriété, vous devez d'abord vendre tous les bâtiments de son groupe de couleur
    à la banque pour la moitié de leur prix d'achat. »"""
    obj = run(capsys, "mortgage", str(EXAMPLES / "classic-game.yaml"), "paix", "--lang", "en")
    assert any("must first be sold to the bank" in line for line in obj["explanation"])


def test_city_mortgage_is_the_rent_value_and_lifting_pays_it_back(capsys, city_game):
    """« La valeur de l'hypothèque correspond à la valeur du loyer au moment de l'hypothèque. » « Vous pouvez
    lever une hypothèque en payant la valeur de l'hypothèque à la banque, soit le montant que la banque vous a
    versé auparavant. »"""
    docks = run(capsys, "mortgage", str(EXAMPLES / "city-game.yaml"), "docks")
    assert docks["mortgage"] == docks["amount"] == docks["lift"] == 600_000  # the rent value now
    path = city_game([{"name": "A", "districts": [{"name": "Docks", "industrial": 2, "mortgaged": True}]}])
    lifted = run(capsys, "mortgage", path, "docks")
    assert lifted["mortgaged"] is True and lifted["lift"] == lifted["mortgage"] == 300_000


# --- the GO salary, the industry tax --------------------------------------------------------------


def test_classic_salary(capsys):
    """« Départ: Chaque fois que vous vous arrêtez ou que vous passez sur la case DEPART, recevez M200 de la
    banque. »"""
    assert run(capsys, "salary", str(EXAMPLES / "classic-game.yaml"), "bob")["amount"] == 200


def test_passing_go_pays_1m_per_stadium_on_top_of_the_salary(capsys, city_game):
    """« Vous recevez M 1M par stade possédé chaque fois que vous passez par la case DÉPART (en plus de votre
    salaire) ! »"""
    two = city_game([{"name": "Ana", "districts": [
        {"name": "Docks", "stadium": True}, {"name": "Plein Ouest"},
        {"name": "Vieux Moulin", "stadium": True}, {"name": "Les Tanneries"}]}, {"name": "Ben"}])  # fmt: skip
    assert run(capsys, "salary", two, "ana")["amount"] == 2_000_000 + 2 * 1_000_000  # example salary: 2M
    assert run(capsys, "salary", two, "ben")["amount"] == 2_000_000
    status = main(["salary", two, "ana"])
    assert status == 0 and capsys.readouterr().out.splitlines()[-1] == "Reçoit de la banque : M 4M"


def test_industry_tax_only_with_an_industrial_building(capsys, city_game):
    """« Si vous possédez un bâtiment industriel, vous devez payer le montant indiqué sur la case du plateau.
    Si vous n'en possédez pas, vous n'avez rien à payer. »"""
    path = city_game([{"name": "Ana", "districts": [{"name": "Docks", "residential": 3}]},
                      {"name": "Ben", "districts": [{"name": "Gare", "industrial": 1}]}])  # fmt: skip
    assert run(capsys, "tax", path, "ana")["amount"] == 0
    assert run(capsys, "tax", path, "ben")["amount"] == 1_000_000  # the example edition's square: 1M


def test_a_missing_board_amount_names_the_field(capsys, tmp_path):
    text = (EXAMPLES / "city-example.yaml").read_text(encoding="utf-8").replace("industry_tax: 1M", "")
    (tmp_path / "city.yaml").write_text(text, encoding="utf-8")
    game = tmp_path / "game.yaml"
    game.write_text("edition: city.yaml\nplayers:\n  - {name: A, districts: [{name: Docks, industrial: 1}]}\n")
    assert main(["tax", str(game), "A", "--lang", "en"]) == 2
    assert "the Industry Tax amount is missing" in capsys.readouterr().err
    assert main(["tax", str(EXAMPLES / "classic-game.yaml"), "bob"]) == 2  # classic taxes are squares
    assert "rent PARTIE.yaml" in capsys.readouterr().err


# --- stadiums and the rent-exemption card ----------------------------------------------------------

RED = [{"name": "Docks"}, {"name": "Plein Ouest"}]


@pytest.mark.parametrize(
    "districts,rule",
    [
        ([{"name": "Docks", "stadium": True}], "stadium_needs_two_districts"),
        ([{"name": "Docks", "stadium": True}, {"name": "Plein Ouest", "stadium": True}], "one_stadium_per_group"),
    ],
)
def test_stadium_limits(capsys, city_game, districts, rule):
    """« Une fois que vous possédez deux quartiers d'un groupe de même couleur, vous pouvez construire un stade
    sur l'un de ces 2 quartiers » ; « Vous pouvez construire 1 stade par groupe de couleur. » ; « Il n'existe
    que 2 stades dans le jeu »."""
    owned = {d["name"] for d in districts}
    players = [{"name": "A", "districts": districts + [d for d in RED if d["name"] not in owned][:1]}]
    if rule == "stadium_needs_two_districts":
        players = [{"name": "A", "districts": districts}]
    assert rule in [p["rule"] for p in run(capsys, "check", city_game(players))["problems"]]
    legal = city_game([{"name": "A", "districts": [{"name": "Docks", "stadium": True}, {"name": "Plein Ouest"}]}])
    assert run(capsys, "check", legal)["ok"] is True


def test_the_rent_exemption_card(capsys, city_game):
    """« La carte exonération de loyer vous permet de ne pas payer un loyer qui vous est demandé par un autre
    joueur ! »"""
    path = city_game([{"name": "Ana", "districts": [{"name": "Docks", "industrial": 2}]},
                      {"name": "Ben", "exemption_card": True}])  # fmt: skip
    obj = run(capsys, "rent", path, "docks")
    assert obj["rent"] == 300_000 and obj["exemption"] == "Ben"
    assert "Ben a la carte exonération de loyer : il peut refuser de payer ce loyer" in obj["explanation"]
    nobody = city_game([{"name": "Ana", "districts": [{"name": "Docks"}]}, {"name": "Ben"}])
    assert run(capsys, "rent", nobody, "docks")["exemption"] is None
    two = city_game([{"name": "Ana", "exemption_card": True}, {"name": "Ben", "exemption_card": True}])
    assert [p["rule"] for p in run(capsys, "check", two)["problems"]] == ["one_exemption_card"]


# --- the edition's flags and constants, each read by a command -----------------------------------------


def test_every_rule_flag_is_read_by_a_command(capsys):
    """Europe 1991: « Les échanges de propriétés deviennent possibles uniquement lorsque toutes les propriétés
    auront été achetées. » « le créancier devra payer immédiatement les intérêts de l'hypothèque des propriétés
    hypothéquées reçues. » ``board`` states every yes/no rule of the edition."""
    assert main(["board", "europe-1991"]) == 0
    out = capsys.readouterr().out
    assert "Échanges seulement quand toutes les propriétés sont achetées" in out
    assert "Le créancier qui reçoit une propriété hypothéquée paie aussitôt les intérêts" in out
    assert main(["board", "classic-fr", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Trades only once" not in out and "A creditor receiving a mortgaged property pays" in out
    assert set(editions.RULE_FLAGS) == {k for k, kind in editions.CLASSIC_RULES.items() if kind == "flag"}


def test_mortgage_ratio_gives_the_mortgage_a_deed_leaves_out(tmp_path):
    """« La valeur de l'hypothèque [...] indiquée au dos » is half the price on every French deed: an edition
    file may leave ``mortgage`` out and ``mortgage_ratio`` gives it."""
    shipped = editions.load("classic-fr")
    bare = editions.load(edition_file(tmp_path, {r",\s*mortgage: \d+": "", r"^  mortgage: \d+\n": ""}))
    assert {n: s.mortgage for n, s in bare.squares.items() if s.kind != "tax"} == {
        n: s.mortgage for n, s in shipped.squares.items() if s.kind != "tax"
    }


def test_game_new_writes_a_valid_starting_position(capsys, tmp_path):
    """``starting_cash``: « (Total=M1 500) » for the classic game; City « Chaque joueur commence la partie avec
    M 37.700.000 »."""
    for edition, cash in (("classic-fr", 1500), (str(EXAMPLES / "city-example.yaml"), 37_700_000)):
        assert main(["game", "new", edition, "--players", "Alice, Bob ,Chloé"]) == 0
        path = tmp_path / "new.yaml"
        path.write_text(capsys.readouterr().out, encoding="utf-8")
        assert run(capsys, "check", str(path))["ok"] is True
        players = run(capsys, "fortune", str(path))["players"]
        assert sorted(p["name"] for p in players) == ["Alice", "Bob", "Chloé"]
        assert {p["cash"] for p in players} == {cash}


def test_game_new_refuses_a_name_twice_and_an_edition_without_starting_cash(capsys):
    assert main(["game", "new", "classic-fr", "--players", "Alice,alice"]) == 2
    assert "--players: le joueur 'alice' est nommé deux fois" in capsys.readouterr().err
    assert main(["game", "new", "europe-1991", "--players", "A,B", "--lang", "en"]) == 2
    assert "starting cash" in capsys.readouterr().err


def test_game_new_players_are_separated_by_commas_and_spaces_alone_say_how(capsys):
    # Issue 22 §5: « Alice Bob Chloé » could be three players or one long name: refused with how to write it;
    # a name with spaces is kept whole beside a comma.
    assert main(["game", "new", "classic-fr", "--players", "Alice Bob Chloé"]) == 2
    assert '--players: séparez les joueurs par des virgules : --players "Alice,Bob,Chloé"' in capsys.readouterr().err
    assert main(["game", "new", "classic-fr", "--players", "Jean Paul,Léa"]) == 0
    assert '- name: "Jean Paul"' in capsys.readouterr().out


def test_game_new_city_says_how_to_make_an_edition_from_the_template(capsys):
    # Issue 22 §5: City's cards are not shipped; the line gives the template's command, before any --players.
    assert main(["game", "new", "city"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "monopoly-city edition template city > ma-ville.yaml" in err
    assert main(["game", "new", "city", "--players", "A,B", "--lang", "en"]) == 2
    assert "monopoly-city edition template city > my-city.yaml" in capsys.readouterr().err
