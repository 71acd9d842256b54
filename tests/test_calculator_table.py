"""At the table: fewer keystrokes (names by a unique beginning or word, ``rent --edition``) and every word,
results and errors alike, in the table's language (French by default, English with ``--lang en``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from helpers import cli_json

from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.names import Names
from unit.cli import main
from unit.errors import UserError
from unit.fields import name_key

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs/examples"
CLASSIC = str(EXAMPLES / "classic-game.yaml")
CITY_EDITION = str(EXAMPLES / "city-example.yaml")


def ok(capsys, *argv):
    status, obj, err = cli_json(capsys, *argv)
    assert status == 0, err
    return obj


def error(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err


# --- names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed,name",
    [
        ("paix", "Rue de la Paix"),  # a word
        ("eaux", "Compagnie de distribution des eaux"),  # the last word
        ("champs", "Avenue des Champs-Élysées"),  # a word inside
        ("RUE DE LA P", "Rue de la Paix"),  # a beginning, case does not matter
        ("elysees", "Avenue des Champs-Élysées"),  # accents do not matter
        ("henri martin", "Avenue Henri-Martin"),  # nor hyphens
        ("lyon", "Gare de Lyon"),
    ],
)
def test_a_unique_beginning_or_word_is_enough(typed, name):
    assert editions.load("classic-fr").square(typed, "SQUARE").name == name


def test_an_ambiguous_name_lists_the_candidates(capsys):
    err = error(capsys, "rent", CLASSIC, "gare")
    assert "'gare' désigne plusieurs cases : 'Gare Montparnasse', 'Gare de Lyon', 'Gare du Nord'" in err
    err = error(capsys, "rent", CLASSIC, "avenue", "--lang", "en")
    assert "'avenue' matches several squares: " in err and ", …" in err  # more than six: the list is cut


def test_an_unknown_name_suggests_the_closest(capsys):
    assert "case inconnue 'Rue de la Pax' (vouliez-vous dire 'Rue de la Paix' ?)" in error(
        capsys, "rent", CLASSIC, "Rue de la Pax"
    )
    assert "unknown square 'zzz'\n" in error(capsys, "rent", CLASSIC, "zzz", "--lang", "en")


def test_an_exact_name_wins_over_a_longer_one_it_begins():
    names = Names({"Gare": 1, "Gare Sud": 2}, "district")
    assert names.find("gare", "x") == 1 and names.find("gare s", "x") == 2
    with pytest.raises(UserError, match="unknown district 'Nord'"):
        names.find("Nord", "x")


def test_players_are_found_the_same_way(capsys):
    assert ok(capsys, "salary", CLASSIC, "lé")["player"] == "Léa"
    assert "joueur inconnu 'Zoé'" in error(capsys, "salary", CLASSIC, "Zoé")


# --- rent without a game file ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags,rent",
    [
        (["--houses", "3"], 1400),
        (["--hotel"], 2000),
        ([], 50),
        (["--group"], 100),  # « Le loyer augmente sur chaque rue dès que vous avez un groupe complet. »
        (["--mortgaged"], 0),
    ],
)
def test_rent_from_the_edition(capsys, flags, rent):
    obj = ok(capsys, "rent", "--edition", "classic-fr", "Rue de la Paix", *flags)
    assert obj["square"] == "Rue de la Paix" and obj["owner"] is None and obj["rent"] == rent


def test_rent_from_the_edition_stations_and_utilities(capsys):
    assert ok(capsys, "rent", "--edition", "classic-fr", "lyon")["rent"] == 25
    assert ok(capsys, "rent", "--edition", "classic-fr", "lyon", "--group")["rent"] == 200
    assert ok(capsys, "rent", "--edition", "classic-fr", "eaux", "--group", "--dice", "7")["rent"] == 70
    assert "--dice" in error(capsys, "rent", "--edition", "classic-fr", "eaux")


def test_rent_from_a_city_edition_reads_the_card_there(capsys):
    """The same as ``--card`` with the nine values typed, but read from the edition once copied there."""
    flags = ["--residential", "3", "--industrial", "2", "--hazard", "--skyscraper"]
    by_card = ok(capsys, "rent", "--card", "100k 200k 300k 400k 500k 600k 800k 1M 1.2M", *flags)
    by_edition = ok(capsys, "rent", "--edition", CITY_EDITION, "docks", *flags)
    assert by_edition["rent"] == by_card["rent"] == 600_000
    assert by_edition["square"] == "Docks" and by_edition["explanation"] == by_card["explanation"]


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--edition", "classic-fr", "paix", "--houses", "5", "--lang", "en"], "--houses: expected 0 to 4 houses"),
        (["--edition", "classic-fr", "paix", "--houses", "2", "--hotel"], "--hotel: un hôtel ou des maisons"),
        (["--edition", "classic-fr", "lyon", "--hotel"], "--hotel: Gare de Lyon n'est pas une rue"),
        (["--edition", "classic-fr", "paix", "--residential", "2"], "--residential: seulement pour Monopoly City"),
        (["--edition", CITY_EDITION, "docks", "--houses", "2"], "--houses: seulement pour le Monopoly classique"),
        ([CLASSIC, "paix", "--houses", "2"], "--houses: seulement avec --edition"),
        (["--edition", "classic-fr"], "rent: attendu PARTIE.yaml et CASE"),
    ],
)
def test_rent_flags_that_do_not_fit_are_refused(capsys, argv, message):
    assert message in error(capsys, "rent", *argv)


# --- the table's language ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv,fr,en",
    [
        (["rent", CLASSIC, "paix", "--dice", "7"], "--dice: seul le loyer d'un service public dépend des dés",
         "--dice: only a utility's rent depends on the dice, not Rue de la Paix's"),
        (["rent", str(EXAMPLES / "city-game.yaml"), "docks", "--dice", "7"],
         "--dice: les loyers de Monopoly City ne dépendent pas des dés",
         "--dice: Monopoly City rents do not depend on the dice"),
        (["rent", "--card", "1 2 3"], "--card: attendu les 9 valeurs de la carte",
         "--card: expected the 9 values of the card (0 to 8 blocks), got 3"),
        (["rent", "--card", "1 2 3 4 5 6 7 8 1.5"], "--card, valeur pour 8 bâtiment(s): 1.5 est ambigu",
         "--card, value for 8 block(s): 1.5 is ambiguous"),
        (["edition", "template", "citi"], "modèle inconnu 'citi' (vouliez-vous dire 'city' ?)",
         "unknown template 'citi' (did you mean 'city'?) (expected city, europe-1991)"),
        (["rent", "--edition", "classic", "paix"], "pas d'édition de ce nom (vouliez-vous dire 'classic-fr' ?)",
         "no such edition (did you mean 'classic-fr'?)"),
    ],
)  # fmt: skip
def test_errors_are_french_by_default_and_english_with_lang_en(capsys, argv, fr, en):
    assert fr in error(capsys, *argv)
    assert en in error(capsys, *argv, "--lang", "en")


def test_results_are_french_by_default_and_english_with_lang_en(capsys):
    assert main(["rent", CLASSIC, "henri"]) == 0
    assert "hypothéquée : aucun loyer (lever l'hypothèque coûte 132 = 120 + 10 %)" in capsys.readouterr().out
    assert main(["rent", CLASSIC, "henri", "--lang", "en"]) == 0
    assert "mortgaged: no rent (lifting the mortgage costs 132 = 120 + 10 %)" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["city", "europe-1991"])
def test_edition_templates_in_both_languages(capsys, kind):
    texts = {}
    for lang in ("fr", "en"):
        assert main(["edition", "template", kind, "--lang", lang]) == 0
        texts[lang] = capsys.readouterr().out
    assert texts["fr"] != texts["en"] and "Enregistrez-le" in texts["fr"] and "Save as" in texts["en"]
    fr, en = (yaml.safe_load(texts[lang]) for lang in ("fr", "en"))
    assert fr.keys() == en.keys()
    if kind == "city":
        for data in (fr, en):
            edition = editions.parse(data, "template")
            assert len(edition.districts) == 22 and edition.starting_cash == 37_700_000


RULES_MODULES = ["city", "classic", "edition", "money", "names", "position", "rulebook", "rules"]


@pytest.mark.parametrize("module", RULES_MODULES)
def test_rules_modules_never_name_a_flag_nor_hold_a_sentence(module):
    """Issue 9: the rules name values (``ArgumentError("dice", ...)``), the CLI names the flag; and every
    sentence comes from unit/locales/ (no English or French literal left in the rules)."""
    tree = ast.parse((ROOT / f"unit/calculator/{module}.py").read_text(encoding="utf-8"))
    texts = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    docstrings = {
        ast.get_docstring(node, clean=False)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
    }
    code = [t for t in texts if t not in docstrings]
    assert [t for t in code if re.search(r"--[a-z]", t)] == []
    assert [t for t in code if re.search(r"[a-zé]{2,} [a-zé]{2,} [a-zé]{2,}", t)] == []


CLASSIC_NAMES = list(editions.load("classic-fr").squares)


@pytest.mark.parametrize("name", CLASSIC_NAMES)
def test_every_beginning_and_word_of_a_name_lists_it(name):
    """A name, any beginning of it and any beginning of one of its words designate it (alone, or among the
    candidates an ambiguous name lists), unless the text is exactly another name, or (for a word) the beginning
    of other names, which comes first."""
    names = editions.load("classic-fr").names
    key = name_key(name)
    assert names.matches(name.upper()) == [name]
    for typed in (key[:n] for n in range(1, len(key) + 1)):
        found = names.matches(typed)
        assert name in found or [name_key(other) for other in found] == [typed], (typed, found)
    for typed in (w[:n] for w in key.split() for n in range(1, len(w) + 1)):
        found = names.matches(typed)
        assert name in found or all(name_key(other).startswith(typed) for other in found), (typed, found)
        assert found  # never nothing: a beginning of a word always finds something


@pytest.mark.parametrize("typed", ["Départ", "case départ", "GO"])
def test_the_go_square_is_known_by_its_names_and_says_where_its_salary_is(capsys, typed):
    # Issue 22 §5: GO is not a property, but people type it where a square is asked.
    err = error(capsys, "rent", CLASSIC, typed)
    assert f"{typed!r} est la case DÉPART" in err and "monopoly-city salary PARTIE.yaml JOUEUR" in err


@pytest.mark.parametrize(
    "written,hazard",
    [
        ("décharge", "dump"),
        ("la Décharge", "dump"),
        ("station d'épuration", "sewage_plant"),
        ("l'usine de traitement des eaux usées", "sewage_plant"),
        ("centrale électrique", "power_station"),
        ("Power station", "power_station"),
        ("prison", "prison"),
        ("sewage_plant", "sewage_plant"),
    ],
)
def test_a_hazard_is_read_by_the_name_the_output_gives_it(tmp_path, written, hazard):
    # Issue 22 §5: the words the output itself uses are accepted in the file.
    text = (EXAMPLES / "city-game.yaml").read_text(encoding="utf-8").replace("hazard: prison", f'hazard: "{written}"')
    (tmp_path / "city-example.yaml").write_bytes((EXAMPLES / "city-example.yaml").read_bytes())
    (tmp_path / "game.yaml").write_text(text, encoding="utf-8")
    assert positions.load(str(tmp_path / "game.yaml")).held("Docks")[1].hazard == hazard
