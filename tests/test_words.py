"""Issue 22, section 2: the words people read. A game by the title its creator gave; one name for each City
hazard (the French rules' own), the same on the pages, the command line and in the docs; and no English on
a French table's command line, in its outputs nor in its error lines."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from unit import i18n
from unit.calculator import position as positions
from unit.calculator.edition import BONUSES, HAZARDS
from unit.cli import main
from unit.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs/examples"

#: regles-monopoly-city.txt, « Le but du jeu »: the rules name the hazards they give as examples.
RULE_HAZARDS = (
    "si un autre joueur décide de construire un bâtiment nuisible (comme une usine de traitement des eaux usées "
    "ou une décharge par exemple) sur votre quartiers, vos bâtiments résidentiels ne vaudront plus rien du tout !"
)
#: « Exemple : Si vous avez construit une école sur un de vos quartiers, les autres joueurs ne peuvent pas y
#: construire de centrale électrique, et vice-versa. » and « Pour enlever une prison (qui vaut 4 bâtiments) ».
RULE_EXAMPLES = (
    "une école sur un de vos quartiers, les autres joueurs ne peuvent pas y construire de centrale électrique"
)


def catalog(language: str, key: str) -> str:
    return i18n.words(language)(key)


def spellings(language: str, identifier: str) -> list[str]:
    """The other spellings a game file accepts for a building (none are shown anywhere)."""
    text = catalog(language, f"calculator.names.spellings.{identifier}")
    return [s.strip() for s in text.split(",") if s.strip()]


# --- one name for each hazard ----------------------------------------------------------------------


def test_the_hazards_french_names_are_the_rules_own():
    assert positions.building_name("sewage_plant", "fr") == "usine de traitement des eaux usées"
    assert positions.building_name("sewage_plant", "fr") in RULE_HAZARDS
    assert positions.building_name("dump", "fr") in RULE_HAZARDS
    assert positions.building_name("power_station", "fr") in RULE_EXAMPLES
    assert positions.building_name("school", "fr") in RULE_EXAMPLES
    assert positions.building_name("prison", "fr") == "prison"


@pytest.mark.parametrize("language", i18n.languages())
@pytest.mark.parametrize("hazard", HAZARDS)
def test_each_hazard_has_one_name_in_every_place_that_names_it(language, hazard):
    name = positions.building_name(hazard, language)
    assert "," not in name  # one name, not a list
    with_article = catalog(language, f"calculator.hazard.{hazard}")
    assert re.sub(r"^(la |le |l'|the )", "", with_article) == name
    assert catalog(language, f"web.calc.hazard_{hazard}") == name[0].upper() + name[1:]  # the game page's list
    assert catalog(language, f"web.edition.hazard_{hazard}") == name[0].upper() + name[1:]  # the edition's values


@pytest.mark.parametrize("language", i18n.languages())
@pytest.mark.parametrize("bonus", BONUSES)
def test_each_bonus_has_one_name_too(language, bonus):
    name = positions.building_name(bonus, language)
    assert "," not in name
    assert catalog(language, f"web.calc.bonus_{bonus}") == name[0].upper() + name[1:]


def shown_texts() -> dict[str, str]:
    """Every text people read: each catalog entry (but the file's accepted spellings), the templates, the
    page scripts and the user docs."""
    texts = {}
    for language in i18n.languages():
        words = i18n.words(language)
        for key in words.entries:
            if not key.startswith("calculator.names.spellings."):
                texts[f"{language}:{key}"] = words.entries[key]
    for folder, pattern in (("unit/web/templates", "*.html"), ("unit/web/static", "*.js"), ("docs", "*.md")):
        for path in sorted((ROOT / folder).glob(pattern)):
            texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    texts["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    return texts


def test_the_other_spellings_are_read_but_never_shown():
    others = {s for lang in i18n.languages() for b in (*HAZARDS, *BONUSES) for s in spellings(lang, b)}
    assert "station d'épuration" in others  # the name the pages and docs used beside the rules' one
    for where, text in shown_texts().items():
        for other in others:
            if where == "docs/calculator.md":  # the list of what a file still reads: each quoted as a value
                assert other.casefold() not in re.sub(r"`[^`]*`", "", text).casefold(), other
            else:
                assert other.casefold() not in text.casefold(), (where, other)


def game_with(tmp_path: Path, hazard: str, bonus: str | None = None) -> positions.Game:
    shutil.copy(EXAMPLES / "city-example.yaml", tmp_path / "city-example.yaml")
    district = {"name": "Docks", "hazard": hazard} | ({} if bonus is None else {"bonus": bonus})
    data = {"edition": "city-example.yaml", "players": [{"name": "Alice", "cash": "1M", "districts": [district]}]}
    (tmp_path / "game.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return positions.load(str(tmp_path / "game.yaml"))


@pytest.mark.parametrize(
    "written,hazard",
    [
        ("sewage_plant", "sewage_plant"),
        ("sewage plant", "sewage_plant"),
        ("usine de traitement des eaux usées", "sewage_plant"),
        ("L'Usine de traitement des eaux usees", "sewage_plant"),
        ("station d'épuration", "sewage_plant"),  # read as before
        ("la station d’épuration", "sewage_plant"),
        ("sewage treatment plant", "sewage_plant"),
        ("power plant", "power_station"),
        ("la centrale électrique", "power_station"),
        ("décharge", "dump"),
    ],
)
def test_a_game_file_still_reads_every_spelling_it_read(tmp_path, written, hazard):
    assert game_with(tmp_path, written).held("Docks")[1].hazard == hazard


def test_a_wrong_hazard_lists_the_names_in_the_tables_language(tmp_path):
    with pytest.raises(UserError) as refused:
        game_with(tmp_path, "volcan")
    assert refused.value.message == (
        "attendu l'un de prison, décharge, usine de traitement des eaux usées, centrale électrique ou null, "
        "reçu le texte 'volcan'"
    )
    assert "parc éolien" not in str(refused.value.message)
    with pytest.raises(UserError) as refused:
        game_with(tmp_path, "décharge", "parc à thème")
    assert "parc, école, château d'eau, éoliennes ou null" in str(refused.value.message)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exit:  # argparse's errors and --help
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_board_and_history_say_the_hazards_names(capsys, tmp_path):
    status, out, _ = run(capsys, "board", str(EXAMPLES / "city-example.yaml"))
    assert status == 0 and out.splitlines()[-2] == (
        "Bâtiments nuisibles (en bâtiments) : prison 4, décharge 3, usine de traitement des eaux usées 2, "
        "centrale électrique 3"
    )
    status, out, _ = run(capsys, "board", str(EXAMPLES / "city-example.yaml"), "--lang", "en")
    assert "Hazards (in blocks): prison 4, dump 3, sewage plant 2, power station 3" in out
    for name in ("city-example.yaml", "city-game.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    game = str(tmp_path / "city-game.yaml")
    status, out, err = run(capsys, "build", game, "port sud", "--remove-hazard")
    assert status == 0, err
    assert "  • Port Sud : bâtiment nuisible décharge → aucun" in out.splitlines()
    status, out, _ = run(capsys, "history", game, "--lang", "en")
    assert "       Port Sud: hazard dump → none" in out.splitlines()


# --- a game by its title ---------------------------------------------------------------------------


@pytest.fixture
def table(tmp_path):
    for name in ("city-example.yaml", "city-game.yaml", "classic-game.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


def test_a_title_is_read_kept_and_written_back(table):
    path = table / "city-game.yaml"
    path.write_text('title: "Soirée du vendredi"\n' + path.read_text(encoding="utf-8"), encoding="utf-8")
    game = positions.load(str(path))
    assert game.title == "Soirée du vendredi" and game.named("city-game") == "Soirée du vendredi"
    text = positions.dumps(game, "city-example.yaml")
    assert text.startswith("title: Soirée du vendredi\nedition: city-example.yaml\n")
    assert positions.parse(yaml.safe_load(text), str(path), table) == game
    untitled = positions.load(str(table / "classic-game.yaml"))
    assert untitled.title is None and untitled.named("classic-game") == "classic-game"
    assert "title" not in positions.dump(untitled, "classic-fr")  # a game without one is written as before


@pytest.mark.parametrize(
    "title,fr",
    [
        ("", "city-game.yaml: title: un nom était attendu, pas le texte ''"),
        (
            "Soirée\nsuite",
            "city-game.yaml: title: une seule ligne sans caractère de contrôle était attendue, "
            "pas le texte 'Soirée\\nsuite'",
        ),
        ("x" * 61, "city-game.yaml: title: attendu un titre de 60 caractères au plus, reçu 61 caractères"),
        (["a"], "city-game.yaml: title: un nom était attendu, pas une liste"),
    ],
)
def test_a_title_that_is_not_a_name_on_one_line_is_refused_with_one_line(capsys, table, title, fr):
    path = table / "city-game.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({"title": title} | data, allow_unicode=True), encoding="utf-8")
    status, out, err = run(capsys, "fortune", str(path))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err == f"monopoly-city: {table / fr}\n", err


def test_game_new_title_is_written_and_named_by_the_reports(capsys, table):
    status, out, err = run(capsys, "game", "new", "classic-fr", "--players", "Alice,Bob", "--title", "Soirée Ô")
    assert status == 0, err
    assert 'title: "Soirée Ô"\nedition: "classic-fr"\n' in out
    path = table / "soiree.yaml"
    path.write_text(out, encoding="utf-8")
    assert positions.load(str(path)).title == "Soirée Ô"
    status, out, _ = run(capsys, "fortune", str(path))
    assert out.splitlines()[0] == "Soirée Ô · Fortunes (partie limitée dans le temps)"
    status, out, err = run(capsys, "pay", str(path), "Alice", "Bob", "100")
    assert status == 0, err
    assert positions.load(str(path)).title == "Soirée Ô"  # the bank writes the file back with its title
    status, out, _ = run(capsys, "history", str(path), "--lang", "en")
    assert out.splitlines()[0] == "Soirée Ô · History (1 entry(ies))"
    status, out, _ = run(capsys, "fortune", str(table / "classic-game.yaml"))
    assert out.splitlines()[0] == "Fortunes (partie limitée dans le temps)"  # no title: as before
    status, out, err = run(capsys, "game", "new", "classic-fr", "--players", "A,B", "--title", "a\tb")
    assert status == 2 and err.startswith("monopoly-city: --title: une seule ligne"), err


# --- the pages name a game by its title ------------------------------------------------------------


def test_the_pages_name_a_game_by_the_title_typed(tmp_path):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")
    from starlette.testclient import TestClient

    from unit.web.app import create_app

    data = tmp_path / "data"
    data.mkdir()
    http = TestClient(create_app(None, "fr", data), base_url="http://box.local")
    csrf = re.search(r'name="csrf" value="([^"]+)"', http.get("/games").text).group(1)
    form = {"csrf": csrf, "title": "Soirée du vendredi", "edition": "classic-fr", "players": "Alice, Bruno"}
    created = http.post("/games", data=form, follow_redirects=False)
    assert created.status_code == 303 and created.headers["location"] == "/games/soiree-du-vendredi"
    file = data / "soiree-du-vendredi.game.yaml"
    assert file.read_text(encoding="utf-8").startswith("title: Soirée du vendredi\nedition: classic-fr\n")
    again = http.post("/games", data=form, follow_redirects=False)  # the same title: a second game, its own file
    assert again.headers["location"] == "/games/soiree-du-vendredi-2"
    file.with_name("vieille.game.yaml").write_text(file.read_text(encoding="utf-8").split("\n", 1)[1])
    listed = http.get("/games").text
    assert '<a href="/games/soiree-du-vendredi">Soirée du vendredi</a>' in listed
    assert '<a href="/games/vieille">vieille</a>' in listed  # a game without a title: its file's name
    for path in ("", "/rent", "/fortunes", "/check"):
        page = http.get(f"/games/soiree-du-vendredi{path}").text
        assert "<h1>Soirée du vendredi <small>" in page, path
        assert re.search(r"<title>[^<]*Soirée du vendredi</title>", page), path
    assert "<h1>vieille <small>" in http.get("/games/vieille").text
    taps = {"csrf": csrf, "version": "", "action": "player", "value": "Chloé"}
    page = http.get("/games/soiree-du-vendredi").text
    taps["version"] = re.search(r'name="version" value="([^"]+)"', page).group(1)
    assert http.post("/games/soiree-du-vendredi", data=taps, follow_redirects=False).status_code == 303
    assert file.read_text(encoding="utf-8").startswith("title: Soirée du vendredi\n")  # kept by a change
    long = form | {"title": "x" * 61}
    refused = http.post("/games", data=long, follow_redirects=False)
    assert refused.status_code == 400 and "attendu un titre de 60 caractères au plus" in refused.text


# --- no English on a French table's command line ---------------------------------------------------

#: English a French user must not read: the metavars, argparse's and the rules' words, identifiers.
ENGLISH = re.compile(
    r"\b(SQUARE|PLAYER|PAYER|PAYEE|AMOUNT|SELLER|BUYER|CREDITOR|GAME|EDITION|KIND|TEXT|TITLE|FILE|value|values|"
    r"not found|unknown|expected|got|invalid|required|missing|player|players|square|district|must|only|the|and|"
    r"of|is|no such|nobody|bank|cash|none|yes|cannot|choose|int|blocks?|houses?|hotel|amount|owner|"
    r"sewage|dump|power|brown|blue|dark|light|green|red|yellow|pink)\b"
    r"|\b[a-z]+_[a-z]+\b"
)
#: What is not a word: options and commands (``--rent``, ``monopoly-city salary``, ``rent PARTIE.yaml``), the
#: values typed, and the example edition's own name (« valeurs inventées / invented values »).
NOT_WORDS = re.compile(
    r"--[a-z][a-z-]*|monopoly-city(?: [a-z]+)?|^monopoly-city: [a-z ]+:|\b[a-z]+(?= PARTIE\.yaml)|'[^']*'|\"[^\"]*\""
    r"|\(valeurs inventées / invented values\)"
)

G, C = "city-game.yaml", "classic-game.yaml"
FREE = "Colline Dorée"  # a district nobody holds in the example
ERROR_PATHS = [
    ["rent", G, "Nowhere"],
    ["rent", G],
    ["rent", "--card", "1 2 3"],
    ["rent", "--card", "a b c d e f g h i"],
    ["rent", C, "eaux"],
    ["rent", C, "eaux", "--dice", "deux"],
    ["rent", G, "docks", "--dice", "3"],
    ["rent", G, "docks", "--residential", "2"],
    ["rent", "--edition", "classic", "paix"],
    ["rent", G, "docks", "--bogus"],
    ["fortune"],
    ["fortune", "absent.yaml"],
    ["fortune", C, "--variant", "lente"],
    ["check", "absent.yaml"],
    ["salary", G],
    ["salary", G, "Zed"],
    ["tax", G, "Zed"],
    ["tax", C, "Bob"],
    ["mortgage", G, "Nowhere"],
    ["mortgage", G, FREE],
    ["sell", G, "docks"],
    ["sell", C, "paix", "--houses", "2"],
    ["sell", C, "champs", "--pay"],
    ["pay", G, "Zed", "Alice", "1M"],
    ["pay", G, "Bruno", "Alice", "-5"],
    ["pay", G, "Bruno", "Alice", "100M"],
    ["pay", G, "Bruno"],
    ["pay", G, "Bruno", "Bruno", "1M"],
    ["pay", G, "Bruno", "--rent", FREE],
    ["pay", G, "Bruno", "Alice", "1M", "--dice", "3"],
    ["pay", G, "Bruno", "--rent", "docks", "--exemption"],
    ["pay", G, "Alice", "--rent", "docks"],
    ["buy", G, "Bruno", "Docks"],
    ["buy", G, "Bruno", "Nowhere"],
    ["buy", G, "Bruno", FREE, "--price", "x"],
    ["buy", G, "Bruno", FREE, "--price", "1k"],
    ["build", G, "Nowhere"],
    ["build", G, "docks"],
    ["build", G, "docks", "--houses", "2"],
    ["build", G, "docks", "--residential", "x"],
    ["build", C, "paix", "--houses", "1"],
    ["lift", G, "docks"],
    ["trade", G, "Alice", "Bruno", "Nowhere"],
    ["trade", G, "Alice", "Bruno"],
    ["trade", G, "Alice", "Bruno", "opéra"],
    ["out", G, "Zed"],
    ["out", G, "Chloé", "--to", "Zed"],
    ["undo", G, "5"],
    ["undo", G, "x"],
    ["undo", G, "0"],
    ["history", "absent.yaml"],
    ["board", "nothing"],
    ["game", "new", "nothing"],
    ["game", "new", "classic-fr"],
    ["game", "new", "classic-fr", "--players", "Alice Bob"],
    ["game", "new", "classic-fr", "--players", "Alice,alice"],
    ["game", "new", "city", "--players", "A,B"],
    ["game", "new", "classic-fr", "--players", "A,B", "--title", "x" * 61],
    ["edition", "template", "foo"],
    ["edition"],
    ["game"],
]


def english_in(text: str) -> list[str]:
    return sorted({m.group(0) for m in ENGLISH.finditer(NOT_WORDS.sub(" ", text))})


@pytest.mark.parametrize("argv", ERROR_PATHS, ids=" ".join)
def test_every_error_line_is_french_by_default(capsys, table, monkeypatch, argv):
    monkeypatch.chdir(table)
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert english_in(err) == [], err


OUTPUTS = [
    ["rent", G, "docks"],
    ["rent", C, "paix"],
    ["rent", C, "avenue matignon"],
    ["rent", "--card", "100k 200k 300k 400k 500k 600k 800k 1M 1.2M", "--residential", "3", "--hazard", "--tower"],
    ["rent", "--edition", "classic-fr", "belleville", "--group"],
    ["fortune", G],
    ["fortune", C, "--variant", "rapide"],
    ["check", G],
    ["salary", G, "bruno"],
    ["tax", G, "alice"],
    ["mortgage", G, "docks"],
    ["mortgage", C, "henri"],
    ["sell", C, "champs"],
    ["board", "city-example.yaml"],
    ["board", "classic-fr"],
    ["board", "europe-1991"],
    ["pay", G, "bruno", "--rent", "docks"],
    ["build", G, "port sud", "--remove-hazard"],
    ["salary", G, "bruno", "--pay"],
    ["history", G],
    ["undo", G],
]


def test_every_output_is_french_by_default(capsys, table, monkeypatch):
    monkeypatch.chdir(table)
    found = {}
    for argv in OUTPUTS:
        status, out, err = run(capsys, *argv)
        assert status == 0 and err == "", (argv, err)
        if english_in(out):
            found[" ".join(argv)] = english_in(out)
    assert found == {}


def every_command() -> list[tuple[str, ...]]:
    """``()`` (monopoly-city itself), every command and every command of a command (``game new``)."""
    import argparse

    from unit.cli import build_parser

    def below(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        found = [path]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found += below(sub, (*path, name))
        return found

    return below(build_parser(), ())


#: argparse's own English, which its gettext hook would say (« usage: », its headings, -h's line).
ARGPARSE_ENGLISH = ("usage:", "positional arguments", "options:", "show this help", "show program's version")


@pytest.mark.parametrize("command", every_command(), ids=lambda c: " ".join(c) or "monopoly-city")
def test_every_help_is_french_by_default_and_english_with_lang_en(capsys, command):
    status, french, err = run(capsys, *command, "--help")
    assert status == 0 and err == ""
    assert french.startswith(" ".join(("utilisation : monopoly-city", *command)))
    assert "options :\n" in french and "-h, --help" in french and "afficher cette aide et s'arrêter" in french
    assert [e for e in ARGPARSE_ENGLISH if e in french] == [] and "cli.help" not in french
    assert english_in(french) == [], french
    status, english, _ = run(capsys, *command, "--help", "--lang", "en")
    assert status == 0 and english.startswith(" ".join(("usage: monopoly-city", *command)))
    assert "show this help message and exit" in english and "cli.help" not in english
    assert [line.split()[0] for line in english.splitlines() if line.startswith("  -")] == [
        line.split()[0] for line in french.splitlines() if line.startswith("  -")
    ]  # the same options, by the same names


def test_the_help_language_may_come_before_the_command(capsys):
    status, english, _ = run(capsys, "--lang", "en", "--help")
    assert status == 0 and english.startswith("usage: monopoly-city") and "positional arguments:" in english
    status, french, _ = run(capsys, "--help")
    assert status == 0 and "arguments positionnels :" in french and "COMMANDE" in french


def test_a_french_help_names_the_values_in_french(capsys):
    status, usage, _ = run(capsys, "pay", "--help")
    assert status == 0 and "PARTIE.yaml PAYEUR [BÉNÉFICIAIRE] [MONTANT]" in " ".join(usage.split())
    status, usage, _ = run(capsys, "pay", "--help", "--lang", "en")
    assert status == 0 and "GAME.yaml PAYER [PAYEE] [AMOUNT]" in " ".join(usage.split())


# --- French elision: « achat d'Avenue Mozart », « loyer du Marais » ---------------------------------

VOWELS = tuple("AEIOUYHÀÂÄÉÈÊËÎÏÔÖÙÛÜŸÆŒ")
#: A name stored with its article (as a City owner may type one) and how French joins it after « de ».
WITH_ARTICLES = {
    "Le Marais": "du Marais",
    "Les Halles": "des Halles",
    "La Défense": "de la Défense",
    "L'Étoile": "de l'Étoile",
}


def shipped_square_names() -> list[str]:
    from unit.calculator import edition

    names = [name for shipped in edition.SHIPPED for name in edition.load(shipped).squares]
    template = yaml.safe_load(
        (Path(edition.__file__).parent / "editions" / "city-template.fr.yaml").read_text(encoding="utf-8")
    )
    names += [district["name"] for group in template["groups"] for district in group["districts"]]
    return names


def test_the_history_elides_de_before_every_square_name_of_the_shipped_editions():
    w = i18n.words("fr")
    names = shipped_square_names()
    assert "Avenue Mozart" in names and "Impôts sur le revenu" in names and "quartier-1" in names
    for name in names:
        joined = f"d'{name}" if name.startswith(VOWELS) else f"de {name}"
        assert w("bank.what.buy", s=name) == f"achat {joined}"
        assert w("bank.what.rent", s=name) == f"loyer {joined}"
        assert w("bank.what.mortgage", s=name) == f"hypothèque {joined}"
        assert i18n.words("en")("bank.what.buy", s=name) == f"{name} bought"  # English: as it is
    assert w("bank.what.buy", s="Avenue Mozart") == "achat d'Avenue Mozart"
    assert w("bank.what.rent", s="Rue de la Paix") == "loyer de Rue de la Paix"


@pytest.mark.parametrize(("name", "joined"), WITH_ARTICLES.items())
def test_a_name_stored_with_its_article_contracts_it(name, joined):
    w = i18n.words("fr")
    assert w("bank.what.rent", s=name) == f"loyer {joined}"
    assert w("bank.not_theirs", s="Docks", o="Alice", p=name).endswith(
        {"du": "pas au", "des": "pas aux", "de": "pas à"}[joined.split()[0]] + " " + joined.split(" ", 1)[1]
    )


def test_elision_leaves_numbers_identifiers_and_players_lowercase_alone():
    w = i18n.words("fr")
    assert w("errors.expected_whole_number_from", minimum=1, maximum=8, value="x") == (
        "un nombre entier de 1 à 8 était attendu, pas x"
    )
    assert w("calculator.game.one_of", x="active, passive", got="1").startswith("attendu l'un de active")
    assert w("bank.can_sell", s="Avenue Mozart").endswith("d'Avenue Mozart")
