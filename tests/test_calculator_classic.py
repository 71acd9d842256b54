"""Classic Monopoly: every rent of the board, fortunes and the checks of a position.

The rents are compared with an independent copy of the reference table
(tests/data/classic-fr-reference.yaml), through the command line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers import cli_json

from unit.cli import main

REFERENCE = yaml.safe_load((Path(__file__).parent / "data/classic-fr-reference.yaml").read_text(encoding="utf-8"))
STREETS = REFERENCE["streets"]
GROUPS = {}
for street in STREETS:
    GROUPS.setdefault(street["group"], []).append(street["name"])


@pytest.fixture
def game(tmp_path):
    """Write a classic game file from {player: [property dicts]} and return its path."""

    def write(players: dict, edition: str = "classic-fr") -> str:
        data = {
            "edition": edition,
            "players": [{"name": name, "cash": 1000, "properties": props} for name, props in players.items()],
        }
        path = tmp_path / "game.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        return str(path)

    return write


def rent_of(capsys, path, square, *extra):
    status, obj, err = cli_json(capsys, "rent", path, square, *extra)
    assert status == 0, err
    return obj


LEVELS = [("bare", 0), ("1 house", 1), ("2 houses", 2), ("3 houses", 3), ("4 houses", 4), ("hotel", 5)]


@pytest.mark.parametrize("street", STREETS, ids=[s["name"] for s in STREETS])
@pytest.mark.parametrize("level,index", LEVELS, ids=[name for name, _ in LEVELS])
def test_every_street_rent_at_every_building_level(capsys, game, street, level, index):
    """« Rues appartenant à un joueur: [...] payez-lui le montant du loyer indiqué sur la carte Propriété »;
    « Le loyer augmente sur chaque rue dès que vous avez un groupe complet. - Si vous achetez des maisons,
    le loyer grimpe encore plus! »"""
    whole_group = [{"name": name} for name in GROUPS[street["group"]] if name != street["name"]]
    mine = {"name": street["name"]}
    if index == 5:
        mine["hotel"] = True
    elif index:
        mine["houses"] = index
    others = (
        [
            {"name": n, "hotel": True} if index == 5 else {"name": n, "houses": max(index - 1, 0)}
            for n in [p["name"] for p in whole_group]
        ]
        if index
        else []
    )
    # Built streets need the whole group; the bare rent is checked without it (not doubled).
    path = game({"Owner": [mine, *others]})
    obj = rent_of(capsys, path, street["name"])
    assert obj["rent"] == street["rent"][index]
    assert obj["owner"] == "Owner" and obj["square"] == street["name"]


@pytest.mark.parametrize("street", STREETS, ids=[s["name"] for s in STREETS])
def test_bare_rent_doubles_on_a_whole_group(capsys, game, street):
    """« Collectionnez les groupes de couleur [...] Le loyer augmente sur chaque rue dès que vous avez un
    groupe complet! » — « un loyer nu doublé (s'il possède toutes les propriétés de la couleur) »"""
    path = game({"Owner": [{"name": name} for name in GROUPS[street["group"]]]})
    assert rent_of(capsys, path, street["name"])["rent"] == 2 * street["rent"][0]


def test_other_unmortgaged_streets_keep_the_double_rent(capsys, game):
    """« On ne peut pas recevoir de loyer sur des propriétés hypothéquées. Cependant, le loyer augmenté des
    rues non hypothéquées d'un groupe de couleur peut être reçu. »"""
    path = game(
        {
            "Owner": [
                {"name": "Avenue Matignon", "mortgaged": True},
                {"name": "Boulevard Malesherbes"},
                {"name": "Avenue Henri-Martin"},
            ]
        }
    )
    assert rent_of(capsys, path, "Boulevard Malesherbes")["rent"] == 36
    assert rent_of(capsys, path, "Avenue Henri-Martin")["rent"] == 40
    mortgaged = rent_of(capsys, path, "Avenue Matignon")
    assert mortgaged["rent"] == 0
    assert any("121" in line for line in mortgaged["explanation"])  # lifting: 110 + 10 % = 121


@pytest.mark.parametrize("owned,rent", [(1, 25), (2, 50), (3, 100), (4, 200)])
def test_station_rent_by_stations_owned(capsys, game, owned, rent):
    """« 1 gare= M25, 2 gares= M50, 3 gares= M100, 4 gares= M200 »"""
    stations = [s["name"] for s in REFERENCE["stations"]["list"]]
    path = game({"Owner": [{"name": name} for name in stations[:owned]]})
    assert rent_of(capsys, path, stations[0])["rent"] == REFERENCE["stations"]["rent_by_count_owned"][owned] == rent


def test_a_mortgaged_station_still_counts_for_the_others(capsys, game):
    """« De la même manière, le loyer augmenté des gares et des services publics non hypothéqués peut être reçu. »"""
    path = game({"Owner": [{"name": "Gare du Nord"}, {"name": "Gare de Lyon", "mortgaged": True}]})
    assert rent_of(capsys, path, "Gare du Nord")["rent"] == 50
    assert rent_of(capsys, path, "Gare de Lyon")["rent"] == 0


@pytest.mark.parametrize("dice", range(2, 13))
@pytest.mark.parametrize("owned,factor", [(1, 4), (2, 10)])
def test_utility_rent_is_a_multiple_of_the_dice(capsys, game, dice, owned, factor):
    """« Si le propriétaire a 1 service public, le loyer est égal à 4x le résultat des dés. Si le propriétaire
    a 2 services publics, le loyer est égal à 10x le résultat des dés. »"""
    utilities = [u["name"] for u in REFERENCE["utilities"]["list"]]
    path = game({"Owner": [{"name": name} for name in utilities[:owned]]})
    assert rent_of(capsys, path, utilities[0], "--dice", str(dice))["rent"] == factor * dice


def test_a_utility_needs_the_dice(capsys, game):
    path = game({"Owner": [{"name": "Compagnie de distribution des eaux"}]})
    status = main(["rent", path, "Compagnie de distribution des eaux"])
    err = capsys.readouterr().err
    assert status == 2 and "--dice" in err and err.count("\n") == 1


def test_taxes_unowned_squares_and_mortgage_lifting(capsys, game):
    path = game({"Owner": [{"name": "Rue Lecourbe", "mortgaged": True}]})
    assert rent_of(capsys, path, "Taxe de luxe")["rent"] == 100
    assert rent_of(capsys, path, "Rue de la Paix") == {
        "square": "Rue de la Paix",
        "owner": None,
        "rent": 0,
        "explanation": ["personne ne possède cette propriété : pas de loyer"],
    }
    lecourbe = rent_of(capsys, path, "rue lecourbe")  # case and accents do not matter
    assert lecourbe["rent"] == 0 and "33 = 30 + 10 %" in lecourbe["explanation"][0]


def test_unknown_square_suggests_the_closest(capsys, game):
    path = game({"Owner": [{"name": "Rue de la Paix"}]})
    status = main(["rent", path, "Rue de la Pax", "--lang", "en"])
    err = capsys.readouterr().err
    assert status == 2 and "did you mean 'Rue de la Paix'?" in err
    assert main(["rent", path, "Rue de la Pax"]) == 2
    assert "case inconnue 'Rue de la Pax' (vouliez-vous dire 'Rue de la Paix' ?)" in capsys.readouterr().err
    bad = game({"Owner": [{"name": "Avenue Fich"}]})
    assert main(["rent", bad, "Avenue Foch", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "Owner, properties: unknown square 'Avenue Fich' (did you mean 'Avenue Foch'?)" in err


# --- fortunes -----------------------------------------------------------------------------------


def test_fortunes_timed_and_quick(capsys):
    """« Chaque joueur restant évalue alors sa richesse selon : 1 la somme des billets de banque qu'il a en main,
    2 ses terrains, services publics et gares au prix indiqué sur le plateau de jeu, 3 ses propriétés hypothéquées
    estimées à la moitié de la valeur indiquée sur le plateau de jeu, 4 ses maisons estimées au prix d'achat,
    5 ses hôtels estimés au prix d'achat, qui comprend la valeur des 3 maisons données en échange. »"""
    path = str(Path(__file__).parent.parent / "docs/examples/classic-game.yaml")
    status, timed, _ = cli_json(capsys, "fortune", path)
    assert status == 0 and timed["variant"] == "timed"
    bob = timed["players"][0]
    # 400 + 4 houses x 200 + 350 + hotel (200 + 4 houses x 200) + 200 + mortgaged 60 / 2
    assert bob == {"name": "Bob", "cash": 1200, "assets": 2780, "fortune": 3980}
    _, quick, _ = cli_json(capsys, "fortune", path, "--variant", "quick")
    assert quick["players"][0]["assets"] == 2780 - 200  # the hotel holds 3 houses, not 4
    assert [p["name"] for p in timed["players"]] == ["Bob", "Malik", "Léa"] and timed["winners"] == ["Bob"]


def test_a_tie_has_several_winners(capsys, game):
    path = game({"A": [{"name": "Rue Lecourbe"}], "B": [{"name": "Boulevard de Belleville"}]})
    _, obj, _ = cli_json(capsys, "fortune", path)
    assert obj["winners"] == ["A", "B"]


# --- checks -------------------------------------------------------------------------------------

BROWN = ["Boulevard de Belleville", "Rue Lecourbe"]
LIGHT_BLUE = ["Rue de Vaugirard", "Rue de Courcelles", "Avenue de la République"]


def problems(capsys, path):
    status, obj, _ = cli_json(capsys, "check", path)
    assert status == (0 if obj["ok"] else 1)
    return [p["rule"] for p in obj["problems"]]


CHECKS = {
    # rule: (a position that breaks it, a close one that does not)
    "max_houses": ({"A": [{"name": n, "houses": 5} for n in BROWN]}, {"A": [{"name": n, "houses": 4} for n in BROWN]}),
    "hotel_and_houses": (
        {"A": [{"name": BROWN[0], "hotel": True, "houses": 1}, {"name": BROWN[1], "hotel": True}]},
        {"A": [{"name": n, "hotel": True} for n in BROWN]},
    ),
    "build_needs_group": ({"A": [{"name": BROWN[0], "houses": 1}]}, {"A": [{"name": n, "houses": 1} for n in BROWN]}),
    "build_on_mortgaged_group": (
        {
            "A": [
                {"name": LIGHT_BLUE[0], "houses": 1},
                {"name": LIGHT_BLUE[1]},
                {"name": LIGHT_BLUE[2], "mortgaged": True},
            ]
        },
        {"A": [{"name": LIGHT_BLUE[0]}, {"name": LIGHT_BLUE[1]}, {"name": LIGHT_BLUE[2], "mortgaged": True}]},
    ),
    "mortgaged_with_buildings": (
        {"A": [{"name": BROWN[0], "houses": 1, "mortgaged": True}, {"name": BROWN[1], "houses": 1}]},
        {"A": [{"name": BROWN[0], "mortgaged": True}, {"name": BROWN[1]}]},
    ),
    "even_building": (
        {"A": [{"name": BROWN[0], "houses": 3}, {"name": BROWN[1], "houses": 1}]},
        {"A": [{"name": BROWN[0], "houses": 2}, {"name": BROWN[1], "houses": 1}]},
    ),
    "owned_once": (
        {"A": [{"name": BROWN[0]}], "B": [{"name": BROWN[0]}]},
        {"A": [{"name": BROWN[0]}], "B": [{"name": BROWN[1]}]},
    ),
}


@pytest.mark.parametrize("rule", CHECKS)
def test_each_check_fires_and_does_not(capsys, game, rule):
    """« Vous ne pouvez avoir que 4 maisons sur une rue. » « Construisez de façon équilibrée. » « Vous ne pouvez
    pas construire sur une rue si une des rues de son groupe de couleur est hypothéquée. »"""
    bad, good = CHECKS[rule]
    assert rule in problems(capsys, game(bad))
    assert problems(capsys, game(good)) == []


def every_street_built(houses: int = 0, hotel: bool = False) -> dict:
    return {"A": [{"name": s["name"], "houses": houses, "hotel": hotel} for s in STREETS]}


def test_bank_has_32_houses_and_12_hotels(capsys, game):
    """« Contenu: [...] 32 maisons, 12 hôtels »"""
    assert "bank_houses" in problems(capsys, game(every_street_built(houses=2)))  # 44 houses
    assert problems(capsys, game(every_street_built(houses=1))) == []  # 22 houses
    assert "bank_hotels" in problems(capsys, game(every_street_built(hotel=True)))  # 22 hotels
    twelve = {
        "A": [
            {"name": s["name"], "hotel": True}
            for s in STREETS
            if s["group"] in ("brown", "light_blue", "pink", "orange", "dark_blue")
        ]
    }
    assert len(twelve["A"]) == 13 and "bank_hotels" in problems(capsys, game(twelve))
    twelve["A"] = [p for p in twelve["A"] if p["name"] not in BROWN]
    assert problems(capsys, game(twelve)) == []


def test_check_text_output(capsys, game):
    status = main(["check", game(CHECKS["even_building"][0])])
    out = capsys.readouterr().out
    assert status == 1 and out.startswith("A: construction inégale dans le groupe marron : Boulevard de Belleville 3")
    status = main(["check", game(CHECKS["even_building"][1]), "--lang", "en"])
    assert status == 0 and capsys.readouterr().out == "OK\n"


def test_europe_1991_rules_and_missing_deeds(capsys, game, tmp_path):
    """« on touche un salaire de 2000 écus » ; « Pour en sortir, il faudra soit payer 50 écus »"""
    assert main(["board", "europe-1991"]) == 0
    out = capsys.readouterr().out
    assert "Salaire 2000" in out and "amende de prison 50" in out
    path = game({"A": [{"name": "Rue de la Paix"}]}, edition="europe-1991")
    assert main(["rent", path, "Rue de la Paix"]) == 2
    assert "edition template europe-1991" in capsys.readouterr().err


def test_board_lists_every_square(capsys):
    assert main(["board", "classic-fr"]) == 0
    out = capsys.readouterr().out
    for street in STREETS:
        assert street["name"] in out and "/".join(map(str, street["rent"])) in out
    assert "Gare Saint-Lazare" in out and "Taxe de luxe" in out
