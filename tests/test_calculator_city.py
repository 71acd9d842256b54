"""Monopoly City: rents, mortgages, hazards, fortunes and checks, on the documented example edition.

The example edition's card values are invented (docs/examples/city-example.yaml); the rules are the
French rule text's, quoted in each test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers import cli_json

from unit.calculator import money
from unit.cli import main
from unit.errors import UserError

EXAMPLES = Path(__file__).resolve().parent.parent / "docs/examples"
DOCKS_CARD = "100k 200k 300k 400k 500k 600k 800k 1M 1.2M"  # the example edition's Docks card
RED = ["Docks", "Plein Ouest", "Gare"]
BROWN = ["Vieux Moulin", "Les Tanneries"]


@pytest.fixture
def game(tmp_path):
    """Write a City game file on the example edition from {player: {districts: [...], tower: ...}}."""

    def write(players: dict, edition: str | None = None) -> str:
        data = {"edition": edition or str(EXAMPLES / "city-example.yaml"), "players": []}
        for name, spec in players.items():
            data["players"].append(
                {"name": name, "cash": spec.get("cash", "1M"), **{k: v for k, v in spec.items() if k != "cash"}}
            )
        path = tmp_path / "city.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        return str(path)

    return write


def card(capsys, *flags):
    status, obj, err = cli_json(capsys, "rent", "--card", DOCKS_CARD, *flags)
    assert status == 0, err
    return obj


# --- rents from the card ------------------------------------------------------------------------


def test_card_bare_land(capsys):
    """« Vous n'avez aucun bâtiment : le loyer est celui du terrain nu. »"""
    assert card(capsys) == {"rent": 100_000, "blocks_counted": 0, "explanation": ["terrain nu : M 100k"]}


@pytest.mark.parametrize("blocks", range(0, 9))
def test_card_value_for_the_blocks_built(capsys, blocks):
    """« comptez le nombre de bâtiments [...] que vous avez sur votre quartier et réclamez le loyer
    correspondant indiqué sur la carte de propriété. »"""
    values = [money.parse(v, "card") for v in DOCKS_CARD.split()]
    residential = blocks // 2
    obj = card(capsys, "--residential", str(residential), "--industrial", str(blocks - residential))
    assert obj["rent"] == values[blocks] and obj["blocks_counted"] == blocks


def test_a_hazard_makes_residential_blocks_worthless(capsys):
    """« Vous avez des bâtiments nuisibles sur votre quartier : vous ne comptez que les bâtiments industriels
    dans ce calcul. »"""
    obj = card(capsys, "--residential", "3", "--industrial", "2", "--hazard")
    assert obj["rent"] == 300_000 and obj["blocks_counted"] == 2


def test_skyscraper_or_tower_doubles_and_both_double_only_once(capsys):
    """« Vous possédez un gratte-ciel sur un des quartiers de ce groupe de couleur OU une tour Monopoly sur
    l'un de vos quartiers : le montant de vos loyers est doublé (si vous possédez les deux, vous ne pouvez pas
    doubler deux fois votre loyer) ! »"""
    base = ["--residential", "1", "--industrial", "1"]
    assert card(capsys, *base)["rent"] == 300_000
    assert card(capsys, *base, "--skyscraper")["rent"] == 600_000
    assert card(capsys, *base, "--tower")["rent"] == 600_000
    assert card(capsys, *base, "--skyscraper", "--tower")["rent"] == 600_000


def test_mortgaged_collects_nothing_and_its_mortgage_value_is_the_rent(capsys):
    """« La valeur de l'hypothèque correspond à la valeur du loyer au moment de l'hypothèque. » « Vous ne
    pouvez percevoir aucun loyer pour un quartier hypothéqué. »"""
    obj = card(capsys, "--industrial", "3", "--mortgaged")
    assert obj["rent"] == 0
    assert "M 400k" in obj["explanation"][-1]  # the mortgage value: the rent value now


def test_at_most_eight_blocks_count(capsys):
    """« Pour augmenter la valeur de vos loyers, construisez jusqu'à 8 bâtiments par quartiers. »"""
    obj = card(capsys, "--residential", "5", "--industrial", "5")
    assert obj["rent"] == 1_200_000 and obj["blocks_counted"] == 8


def test_negative_blocks_are_refused(capsys):
    assert main(["rent", "--card", DOCKS_CARD, "--residential", "-3", "--lang", "en"]) == 2
    assert "--residential: expected a number of blocks from 0 to 99, got -3" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["1 2 3", "a b c d e f g h i", "100k 200k 300k 400k 500k 600k 800k 1M 1.2M 2M"])
def test_a_bad_card_is_refused_in_one_line(capsys, text):
    assert main(["rent", "--card", text]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--card" in err


# --- rents in a game ----------------------------------------------------------------------------


def rent_of(capsys, path, square):
    status, obj, err = cli_json(capsys, "rent", path, square)
    assert status == 0, err
    return obj


def test_worked_example_position(capsys):
    path = str(EXAMPLES / "city-game.yaml")
    docks = rent_of(capsys, path, "Docks")
    assert docks["owner"] == "Alice" and docks["rent"] == 600_000  # 2 industrial (prison), doubled once
    assert "enlever la prison coûte M 2M (4 × M 500k)" in docks["explanation"]
    assert rent_of(capsys, path, "Plein Ouest")["rent"] == 2 * 440_000
    assert rent_of(capsys, path, "Les Tanneries")["rent"] == 0  # mortgaged
    assert rent_of(capsys, path, "Vieux Moulin")["rent"] == 120_000  # bare land, doubled by the tower
    assert rent_of(capsys, path, "opera")["rent"] == 1_440_000  # 8 blocks, accents do not matter
    assert rent_of(capsys, path, "Colline Dorée") == {
        "square": "Colline Dorée",
        "owner": None,
        "rent": 0,
        "explanation": ["personne ne possède ce quartier : pas de loyer"],
        "exemption": None,
    }


def test_hazard_removal_costs_500k_per_block(capsys, game):
    """« Pour enlever une prison (qui vaut 4 bâtiments) d'un de vos quartiers, payez M 2M (4 x M 500k) »"""
    path = game({"A": {"districts": [{"name": "Port Sud", "hazard": "sewage_plant"}]}})
    explanation = rent_of(capsys, path, "Port Sud")["explanation"]
    assert "enlever l'usine de traitement des eaux usées coûte M 1M (2 × M 500k)" in explanation


def test_a_missing_card_value_names_the_card_and_the_field(capsys, game, tmp_path):
    template = tmp_path / "my-city.yaml"
    assert main(["edition", "template", "city", "--lang", "en"]) == 0
    template.write_text(capsys.readouterr().out, encoding="utf-8")
    path = game({"A": {"districts": [{"name": "district-5"}]}}, edition=str(template))
    assert main(["rent", path, "district-5", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "copy the 9 rents (0 to 8 blocks) printed on the district-5 card into groups[1].districts[2].rents" in err
    assert err.count("\n") == 1


def test_text_output_writes_city_money(capsys):
    assert main(["rent", str(EXAMPLES / "city-game.yaml"), "Docks"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Loyer : M 600k"
    assert main(["rent", str(EXAMPLES / "city-game.yaml"), "Plein Ouest", "--lang", "en"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Rent: M 880k"


# --- fortunes -----------------------------------------------------------------------------------


def test_fortune_is_cash_plus_the_rent_value_of_each_district(capsys):
    """« Chacun calcule alors sa richesse : 1. En comptant ses billets. 2. En calculant la valeur des quartiers
    qu'il possède. La valeur du quartier est égale à la valeur du loyer que payerait un autre joueur qui
    tomberait sur cette case [...] 3. En additionnant enfin ses billets avec la valeur totale de ses quartiers. »"""
    status, obj, _ = cli_json(capsys, "fortune", str(EXAMPLES / "city-game.yaml"))
    assert status == 0 and obj["variant"] is None
    alice = next(p for p in obj["players"] if p["name"] == "Alice")
    assert alice == {
        "name": "Alice",
        "cash": 12_500_000,
        "assets": 600_000 + 880_000 + 720_000 + 120_000 + 0,
        "fortune": 14_820_000,
    }
    assert [p["name"] for p in obj["players"]] == ["Chloé", "Alice", "Bruno"] and obj["winners"] == ["Chloé"]


def test_city_has_no_fortune_variant(capsys):
    assert main(["fortune", str(EXAMPLES / "city-game.yaml"), "--variant", "quick", "--lang", "en"]) == 2
    assert "no variant" in capsys.readouterr().err


# --- checks -------------------------------------------------------------------------------------

WHOLE_RED = [{"name": n} for n in RED]
WHOLE_BROWN = [{"name": n} for n in BROWN]
CHECKS = {
    "max_blocks": (
        {"A": {"districts": [{"name": "Docks", "residential": 5, "industrial": 4}]}},
        {"A": {"districts": [{"name": "Docks", "residential": 4, "industrial": 4}]}},
    ),
    "hazard_and_bonus": (
        {"A": {"districts": [{"name": "Docks", "hazard": "dump", "bonus": "park"}]}},
        {"A": {"districts": [{"name": "Docks", "bonus": "park"}, {"name": "Gare", "hazard": "dump"}]}},
    ),
    "skyscraper_needs_group": (
        {"A": {"districts": [{"name": "Docks", "skyscraper": True}, {"name": "Gare"}]}},
        {"A": {"districts": [{"name": "Docks", "skyscraper": True}, {"name": "Gare"}, {"name": "Plein Ouest"}]}},
    ),
    "one_skyscraper_per_group": (
        {
            "A": {
                "districts": [
                    {"name": "Docks", "skyscraper": True},
                    {"name": "Gare", "skyscraper": True},
                    {"name": "Plein Ouest"},
                ]
            }
        },
        {"A": {"districts": [{"name": "Docks", "skyscraper": True}, {"name": "Gare"}, {"name": "Plein Ouest"}]}},
    ),
    "tower_needs_two_groups": (
        {"A": {"tower": "Docks", "districts": WHOLE_RED + [{"name": "Vieux Moulin"}]}},
        {"A": {"tower": "Docks", "districts": WHOLE_RED + WHOLE_BROWN}},
    ),
    "tower_on_group": (
        {"A": {"tower": "Opéra", "districts": WHOLE_RED + WHOLE_BROWN + [{"name": "Opéra"}]}},
        {"A": {"tower": "Vieux Moulin", "districts": WHOLE_RED + WHOLE_BROWN + [{"name": "Opéra"}]}},
    ),
    "one_tower": (
        {
            "A": {"tower": "Docks", "districts": WHOLE_RED + WHOLE_BROWN},
            "B": {
                "tower": "Opéra",
                "districts": [
                    {"name": n} for n in ("Opéra", "Beaux-Arts", "Place Royale", "Front de Mer", "Colline Dorée")
                ],
            },
        },
        {
            "A": {"tower": "Docks", "districts": WHOLE_RED + WHOLE_BROWN},
            "B": {"districts": [{"name": n} for n in ("Opéra", "Beaux-Arts", "Place Royale")]},
        },
    ),
    "max_stadiums": (
        {
            "A": {
                "districts": [
                    {"name": "Docks", "stadium": True},
                    {"name": "Gare"},
                    {"name": "Vieux Moulin", "stadium": True},
                    {"name": "Les Tanneries"},
                    {"name": "Opéra", "stadium": True},
                    {"name": "Beaux-Arts"},
                ]
            }
        },
        {
            "A": {
                "districts": [
                    {"name": "Docks", "stadium": True},
                    {"name": "Gare"},
                    {"name": "Vieux Moulin", "stadium": True},
                    {"name": "Les Tanneries"},
                    {"name": "Opéra"},
                    {"name": "Beaux-Arts"},
                ]
            }
        },
    ),
    "one_stadium_per_group": (
        {"A": {"districts": [{"name": "Docks", "stadium": True}, {"name": "Gare", "stadium": True}]}},
        {"A": {"districts": [{"name": "Docks", "stadium": True}, {"name": "Gare"}]}},
    ),
    "stadium_needs_two_districts": (
        {"A": {"districts": [{"name": "Docks", "stadium": True}]}},
        {"A": {"districts": [{"name": "Docks", "stadium": True}, {"name": "Plein Ouest"}]}},
    ),
    "owned_once": (
        {"A": {"districts": [{"name": "Docks"}]}, "B": {"districts": [{"name": "Docks"}]}},
        {"A": {"districts": [{"name": "Docks"}]}, "B": {"districts": [{"name": "Gare"}]}},
    ),
}


@pytest.mark.parametrize("rule", CHECKS)
def test_each_check_fires_and_does_not(capsys, game, rule):
    """« Les stades viennent en plus des 8 bâtiments autorisés par quartier. » « Vous pouvez construire un
    gratte-ciel par groupe de couleur. » « Une fois que vous possédez tous les quartiers de deux groupes de
    couleur, vous pouvez construire la tour Monopoly sur n'importe lequel des quartiers de ces 2 groupes. »
    « Il n'existe que 2 stades dans le jeu » « Placer des bâtiments bonus sur un quartier empêche un autre
    joueur d'y construire des bâtiments nuisibles ! »"""
    bad, good = CHECKS[rule]
    status, obj, _ = cli_json(capsys, "check", game(bad))
    assert status == 1 and rule in [p["rule"] for p in obj["problems"]]
    status, obj, _ = cli_json(capsys, "check", game(good))
    assert (status, obj) == (0, {"ok": True, "problems": []})


def test_check_json_names_player_and_square(capsys, game):
    _, obj, _ = cli_json(capsys, "check", game(CHECKS["max_blocks"][0]))
    assert obj["problems"] == [
        {"player": "A", "square": "Docks", "rule": "max_blocks", "message": "9 bâtiments sur Docks : 8 au plus"}
    ]


# --- money and bad files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,amount",
    [
        ("12.5M", 12_500_000),
        ("12,5M", 12_500_000),
        ("M 500k", 500_000),
        ("500k", 500_000),
        (1200, 1200),
        ("1200", 1200),
        ("M 37.7M", 37_700_000),
        ("1,2M", 1_200_000),
        ("M10k", 10_000),
    ],
)
def test_money_as_the_table_says_it(text, amount):
    assert money.parse(text, "test") == amount


@pytest.mark.parametrize("text", ["12.5", "1.2345k", "-5k", "five", True, None, "5 M M", 1.5])
def test_money_that_is_not_an_amount(text):
    with pytest.raises(UserError):
        money.parse(text, "test")


def test_money_is_written_the_city_way():
    assert money.city(1_500_000) == "M 1,5M" and money.city(1_500_000, "en") == "M 1.5M"
    assert money.city(500_000) == "M 500k" and money.city(37_700_000) == "M 37,7M" and money.city(0) == "M 0"


@pytest.mark.parametrize(
    "players,message",
    [
        ({"A": {"districts": [{"name": "Dok"}]}}, "unknown district 'Dok' (did you mean 'Docks'?)"),
        ({"A": {"districts": [{"name": "Docks", "hazard": "volcano"}]}}, "hazard: expected one of prison"),
        ({"A": {"districts": [{"name": "Docks", "residential": -1}]}}, "residential: expected a whole number"),
        ({"A": {"cash": "lots"}}, "cash: expected an amount"),
        ({"A": {"districts": [{"name": "Docks", "floors": 3}]}}, "floors: unknown key"),
    ],
)
def test_a_bad_game_file_exits_2_in_one_line(capsys, game, players, message):
    path = game(players)
    assert main(["check", path, "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and path in err and message in err, err


def test_template_is_a_loadable_city_edition(capsys):
    assert main(["edition", "template", "city"]) == 0
    text = capsys.readouterr().out
    data = yaml.safe_load(text)
    assert data["game"] == "city" and sum(len(g["districts"]) for g in data["groups"]) == 22
    assert main(["edition", "template", "monopoly"]) == 2
