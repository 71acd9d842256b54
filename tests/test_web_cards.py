"""A City card asked the first time the bank needs it (unit/web/cards.py, issue 27 item 4), and « Nouvelle
partie »'s boards (unit/web/game.py board_choices).

No unit runs: the calculator works without one. Every refusal under a field is compared with what the edition
loader says of the same value in the same file; every saved file is read back by the loader. The bank's taps
that lacked a value go to the card form, with the tap carried over. Browser test: test_web_cards_browser.py.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

from helpers import JSON, csrf  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit import i18n  # noqa: E402
from unit.calculator import edition, edition_file  # noqa: E402
from unit.calculator import position as positions  # noqa: E402
from unit.calculator.edition import CityEdition  # noqa: E402
from unit.errors import UserError  # noqa: E402
from unit.web.app import create_app  # noqa: E402

RENTS = ["50k", "100k", "150k", "200k", "300k", "400k", "500k", "700k", "900k"]

#: Four cards of which little is entered: Docks and Marais nothing but their names, Halles its price and block
#: costs, Port Sud its price.
PARTIAL = """\
game: city
name: Ma ville
hazards: {prison: 4}
groups:
  - name: vert
    districts:
      - {name: Docks}
      - {name: Halles, price: 1M, residential_cost: 200k, industrial_cost: 400k}
  - name: gris
    skyscraper_cost: 5M
    districts:
      - {name: Port Sud, price: 2M}
      - {name: Marais}
"""
#: Alice holds Docks (an industrial block, a dump on it) and Halles; Bruno holds Port Sud.
GAME = """\
edition: ma-ville.edition.yaml
players:
  - {name: Alice, cash: 30M, districts: [{name: Docks, industrial: 1, hazard: dump}, {name: Halles}]}
  - {name: Bruno, cash: 30M, districts: [{name: Port Sud}]}
"""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def client(data: Path):
    with TestClient(create_app(None, "fr", data), base_url="http://box.local") as test_client:
        yield test_client


@pytest.fixture
def table(data: Path, client: TestClient) -> TestClient:
    """A game on the partial edition."""
    (data / "ma-ville.edition.yaml").write_text(PARTIAL, encoding="utf-8")
    (data / "soiree.game.yaml").write_text(GAME, encoding="utf-8")
    return client


def loaded(data: Path) -> CityEdition:
    found = edition.load(str(data / "ma-ville.edition.yaml"))
    assert isinstance(found, CityEdition)
    return found


def hidden(page_text: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page_text)
    assert found is not None, f"no {name} on the page"
    return html.unescape(found.group(1))


def errors_of(page_text: str) -> dict[str, str]:
    """The lines under the fields of a page (a form sent without script)."""
    line = r'class="field-error" id="e-([^"]+)" data-for="[^"]+"(?: data-label="[^"]*")?>([^<]+)<'
    found = re.findall(line, page_text)
    return {key: html.unescape(text) for key, text in found}


def query(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def form_of(client: TestClient, url: str) -> dict[str, str]:
    """The card form's hidden fields, as the page gives them (token, version, the card's name)."""
    page = client.get(url)
    assert page.status_code == 200, page.text
    fields = {"csrf": hidden(page.text, "csrf"), "version": hidden(page.text, "version")}
    if 'name="card"' in page.text:
        fields["card"] = hidden(page.text, "card")
    return fields


def tap(client: TestClient, **fields: str):
    """One tap of the bank, as the game page posts it."""
    page = client.get("/games/soiree")
    form = {"csrf": hidden(page.text, "csrf"), "version": hidden(page.text, "version")} | fields
    return client.post("/games/soiree/bank", data=form, follow_redirects=False)


# --- « Nouvelle partie »: the boards, and a City game with a new, empty edition in one step --------------------


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_new_game_says_what_each_board_is_and_chooses_a_city_one(client, lang):
    page = client.get(f"/games?lang={lang}").text
    values = re.findall(r'name="edition" id="board-\d+" value="([^"]+)"', page)
    assert values == ["new:city", "classic-fr", "europe-1991"]
    assert re.search(r'value="new:city" checked', page)  # the box is Monopoly City's: its board comes first
    explain = {
        "fr": ("« Ma ville »", "M\u00a037,7M par joueur", "prêt à jouer"),
        "en": ("“My town”", "M\u00a037.7M for"),
    }
    for words in explain[lang]:
        assert html.escape(words, quote=False) in page or words in html.unescape(page)


def test_a_city_game_starts_with_a_new_empty_edition_in_one_step(client, data):
    token = csrf(client, "/games")
    form = {"csrf": token, "title": "Vendredi soir", "players": "Alice, Bruno", "edition": "new:city"}
    made = client.post("/games", data=form)
    assert made.status_code == 200 and made.url.path == "/games/vendredi-soir"
    assert sorted(p.name for p in data.iterdir()) == ["ma-ville.edition.yaml", "vendredi-soir.game.yaml"]
    town = loaded(data)
    assert (town.name, town.districts, town.starting_cash) == ("Ma ville", {}, 37_700_000)  # « M 37.700.000 »
    game = positions.load(str(data / "vendredi-soir.game.yaml"))
    assert [(p.name, p.cash) for p in game.players] == [("Alice", 37_700_000), ("Bruno", 37_700_000)]
    # the next new City edition is named after its game: « Ma ville » is the table's already
    client.post("/games", data={"csrf": token, "title": "Mardi", "players": "Chloé", "edition": "new:city"})
    assert edition.load(str(data / "mardi.edition.yaml")).name == "Mardi"
    page = client.get("/games").text  # and the editions already entered come first, the first one chosen
    choices = re.findall(r'name="edition" id="board-\d+" value="([^"]+)"( checked)?', page)
    assert choices[:3] == [("ma-ville.edition.yaml", " checked"), ("mardi.edition.yaml", ""), ("new:city", "")]


def test_a_refused_new_game_leaves_no_edition_behind(client, data):
    token = csrf(client, "/games")
    refused = client.post("/games", data={"csrf": token, "title": "Soir", "players": "x" * 41, "edition": "new:city"})
    assert refused.status_code == 400
    assert not data.exists() or list(data.iterdir()) == []
    made = client.post("/games", data={"csrf": token, "title": "Soir", "players": "A", "edition": "new:city"})
    assert made.is_success
    again = client.post("/games", data={"csrf": token, "name": "soir", "players": "B", "edition": "new:city"})
    assert again.status_code == 409 and len(list(data.glob("*.edition.yaml"))) == 1


# --- the form: only what is missing for the action ----------------------------------------------------------


def test_a_card_not_yet_in_the_edition_asks_its_name_group_and_price_then_buys_in_one_tap(table, data):
    url = "/games/soiree/card?for=buy&player=1"
    page = table.get(url).text
    assert 'id="f-name"' in page and 'id="f-new_group"' in page and 'id="f-price"' in page
    chips = re.findall(r'name="group" value="([^"]*)"', page)
    assert chips == ["vert", "gris", ""]  # the groups entered, or a new one
    wanted, rest = page.split('id="card-save"')
    assert 'id="f-rent0"' in rest and 'id="f-rent0"' not in wanted  # the rest of the card: optional, folded
    fields = form_of(table, url)
    before = (data / "ma-ville.edition.yaml").read_bytes()
    refused = table.post(url, data=fields | {"name": "Quai", "group": "gris", "price": ""})
    assert refused.status_code == 400
    assert errors_of(refused.text) == {"price": "À recopier : la banque en a besoin pour l'achat."}
    assert 'value="Quai"' in refused.text and re.search(r'value="gris" checked', refused.text)  # as typed
    assert (data / "ma-ville.edition.yaml").read_bytes() == before  # refused: nothing written
    saved = table.post(url, data=fields | {"name": "Quai", "group": "gris", "price": "2,5M"}, follow_redirects=False)
    assert saved.status_code == 303
    assert query(saved.headers["location"]) == {"for": "buy", "district": "Quai", "player": "1", "saved": "1"}
    ready = table.get(saved.headers["location"]).text
    assert "Carte enregistrée : Quai." in ready
    line = re.search(r'id="card-do" [^>]*>([^<]+)<', ready).group(1)
    assert html.unescape(line) == "Bruno → banque · M 2,5M · achat de Quai"
    town = loaded(data)
    assert town.districts["Quai"].group == "gris" and town.districts["Quai"].price == 2_500_000
    assert town.groups["gris"].skyscraper_cost == 5_000_000  # the group's, kept
    done = table.post("/games/soiree/bank", data=dict(re.findall(r'name="([^"]+)" value="([^"]*)"', ready)))
    assert done.url.path == "/games/soiree" and "done=" in str(done.url)
    bruno = positions.load(str(data / "soiree.game.yaml")).players[1]
    assert bruno.cash == 27_500_000 and [h.district for h in bruno.holdings] == ["Port Sud", "Quai"]


def test_a_new_group_is_typed_once_and_offered_after(table, data):
    url = "/games/soiree/card?for=auction"
    fields = form_of(table, url)
    saved = table.post(url, data=fields | {"name": "Gare", "group": "", "new_group": "Bleu"}, follow_redirects=False)
    assert saved.status_code == 303  # an auction needs no price: the card itself only
    assert loaded(data).districts["Gare"].group == "Bleu" and loaded(data).districts["Gare"].price is None
    page = table.get("/games/soiree/card?for=buy").text
    assert re.findall(r'name="group" value="([^"]*)"', page) == ["vert", "gris", "Bleu", ""]
    joined = table.post(url, data=form_of(table, url) | {"name": "Lac", "new_group": "bleu"}, follow_redirects=False)
    assert joined.status_code == 303 and loaded(data).districts["Lac"].group == "Bleu"  # as names compare


def test_the_rents_are_asked_on_one_form_and_the_rest_stays_as_it_was(table, data):
    url = "/games/soiree/card?for=rent&district=Docks&payer=1"
    page = table.get(url).text
    wanted = page.split('id="card-save"')[0]
    assert [f"rent{j}" for j in range(9)] == re.findall(r'id="f-(rent\d)"', wanted)
    assert 'id="f-name"' not in page  # a card of the edition: its name and group stay
    fields = form_of(table, url)
    saved = table.post(url, data=fields | {f"rent{j}": r for j, r in enumerate(RENTS)}, follow_redirects=False)
    assert saved.status_code == 303, errors_of(saved.text)
    docks = loaded(data).districts["Docks"]
    assert docks.rents == (50_000, 100_000, 150_000, 200_000, 300_000, 400_000, 500_000, 700_000, 900_000)
    assert (docks.price, docks.residential_cost) == (None, None)
    ready = table.get(saved.headers["location"]).text
    assert "Bruno → Alice · M 100k · loyer de Docks" in html.unescape(ready)  # 1 industrial block counts


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_wrong_value_gets_the_loaders_own_line_under_its_field(table, data, tmp_path, lang):
    url = f"/games/soiree/card?for=rent&district=Docks&lang={lang}"
    typed = {f"rent{j}": r for j, r in enumerate(RENTS)} | {"rent3": "-5"}
    answer = table.post(url, data=form_of(table, url) | typed | {"check": "1"}, headers=JSON).json()
    path = tmp_path / "ma-ville.edition.yaml"
    path.write_text(PARTIAL.replace("{name: Docks}", "{name: Docks, rents: [0, 0, 0, -5, 0, 0, 0, 0, 0]}"))
    with pytest.raises(UserError) as said:
        edition.load(str(path), language=lang)
    message = said.value.message
    line = message if isinstance(message, str) else message.say(i18n.words(lang))
    assert said.value.where.endswith("groups[0].districts[0].rents[3]")
    assert answer == {"ok": False, "errors": {"rent3": line}}
    refused = table.post(url, data=form_of(table, url) | typed)
    assert refused.status_code == 400 and errors_of(refused.text)["rent3"] == answer["errors"]["rent3"]
    for key, value in typed.items():  # nothing typed is lost
        assert f'name="{key}" value="{value}"' in refused.text


def test_values_a_group_shares_are_entered_once_or_offered(table, data):
    # Docks: the block costs of Halles, its group's other card, offered (to check on the card)
    page = table.get("/games/soiree/card?for=residential&district=Docks").text
    assert 'name="residential_cost" value="200k"' in page and "Comme les autres cartes du groupe vert" in page
    # the skyscraper price is the group's: entered on one card, Port Sud's group needs nothing more
    ready = table.get("/games/soiree/card?for=skyscraper&district=Port+Sud").text
    assert 'id="card-save"' not in ready and 'id="card-onward"' in ready
    defaults = re.search(r"data-group-defaults='([^']*)'", table.get("/games/soiree/card?for=buy").text).group(1)
    assert html.unescape(defaults) == (
        '{"gris": {"skyscraper_cost": "5M"}, "vert": {"industrial_cost": "400k", "residential_cost": "200k"}}'
    )


def test_the_board_amounts_are_asked_when_first_needed(table, data):
    url = "/games/soiree/card?for=salary&player=0"
    page = table.get(url).text
    assert 'id="f-go_salary"' in page and 'id="f-industry_tax"' not in page
    saved = table.post(url, data=form_of(table, url) | {"go_salary": "2M"}, follow_redirects=False)
    assert saved.status_code == 303 and loaded(data).go_salary == 2_000_000
    assert "Alice" in html.unescape(table.get(saved.headers["location"]).text)  # « banque → Alice · M 2M… »
    url = "/games/soiree/card?for=hazard&district=Docks"
    saved = table.post(url, data=form_of(table, url) | {"dump": "2"}, follow_redirects=False)
    assert saved.status_code == 303 and loaded(data).hazards["dump"] == 2


def test_a_second_phone_meanwhile_keeps_what_was_typed(table, data):
    url = "/games/soiree/card?for=buy&district=Docks&player=1"
    stale = form_of(table, url)
    other = "/games/soiree/card?for=rent&district=Halles"
    table.post(other, data=form_of(table, other) | {f"rent{j}": r for j, r in enumerate(RENTS)})
    refused = table.post(url, data=stale | {"price": "3M"})
    assert refused.status_code == 409 and "autre téléphone" in errors_of(refused.text)["_"]
    assert 'name="price" value="3M"' in refused.text
    again = table.post(url, data=stale | {"price": "3M", "version": hidden(refused.text, "version")})
    assert again.status_code == 200 and loaded(data).districts["Docks"].price == 3_000_000
    assert loaded(data).districts["Halles"].rents is not None  # the other phone's card stays


def test_saved_as_typed_then_on_to_the_action(table, data):
    url = "/games/soiree/card?for=buy&player=0"
    fields = form_of(table, url)
    answer = table.post(url, data=fields | {"name": "Quai", "new_group": "bleu", "auto": "1"}, headers=JSON).json()
    assert answer["ok"] and answer["card"] == "Quai" and answer["errors"] == {"price": answer["errors"]["price"]}
    assert "Quai" in loaded(data).districts  # nothing typed is lost, even before the price
    fields |= {"version": answer["version"], "card": answer["card"]}
    done = table.post(url, data=fields | {"name": "Quai", "new_group": "bleu", "price": "1M"}, headers=JSON).json()
    assert done["ok"] and query(done["location"])["district"] == "Quai"
    assert list(loaded(data).districts).count("Quai") == 1
    # a new card saved as typed, then its name typed on: the same card, renamed (never a second one)
    fields = form_of(table, url)
    first = table.post(url, data=fields | {"name": "Mar", "group": "gris", "auto": "1"}, headers=JSON).json()
    fields |= {"version": first["version"], "card": first["card"]}
    table.post(url, data=fields | {"name": "Marché", "group": "gris", "price": "1M", "auto": "1"}, headers=JSON)
    assert "Marché" in loaded(data).districts and "Mar" not in loaded(data).districts


def test_back_goes_only_to_a_page_of_this_game(table, data):
    for back, lands in [
        ("/games/soiree/rent?square=Docks", "/games/soiree/rent?square=Docks"),
        ("https://example.org/", None),
        ("//example.org/games/soiree", None),
        ("/games/other", None),
        ("/games/soiree-2", None),
    ]:
        (data / "ma-ville.edition.yaml").write_text(PARTIAL, encoding="utf-8")  # Docks' cost missing again
        url = f"/games/soiree/card?for=industrial&district=Docks&back={back}"
        saved = table.post(url, data=form_of(table, url) | {"industrial_cost": "400k"}, follow_redirects=False)
        location = saved.headers["location"]
        assert location == lands if lands else location.startswith("/games/soiree/card?"), location


def test_only_a_city_game_on_an_edition_of_the_table_has_cards(client, data):
    token = csrf(client, "/games")
    client.post("/games", data={"csrf": token, "title": "Classique", "players": "A", "edition": "classic-fr"})
    assert client.get("/games/classique/card?for=buy").status_code == 404
    elsewhere = data.parent / "ailleurs.edition.yaml"  # a game of the command line, its edition elsewhere
    elsewhere.write_text(PARTIAL)
    (data / "x.game.yaml").write_text(GAME.replace("ma-ville.edition.yaml", str(elsewhere)))
    assert client.get("/games/x").status_code == 200 and client.get("/games/x/card?for=buy").status_code == 404
    (data / "ma-ville.edition.yaml").write_text(PARTIAL)
    (data / "y.game.yaml").write_text(GAME)
    assert client.get("/games/y/card?for=steal").status_code == 400
    refused = client.post("/games/y/card?for=buy", data={"name": "Quai"})
    assert refused.status_code == 403  # no token: as every form of the companion


# --- the hooks: where the bank lacked a value, the form for it ------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"action": "buy", "player": "1", "square": "Marais"}, {"for": "buy", "district": "Marais", "player": "1"}),
        ({"action": "rent", "payer": "1", "square": "Halles"}, {"for": "rent", "district": "Halles", "payer": "1"}),
        ({"action": "square", "square": "Docks", "op": "residential"}, {"for": "residential", "district": "Docks"}),
        ({"action": "square", "square": "Docks", "op": "skyscraper"}, {"for": "skyscraper", "district": "Docks"}),
        ({"action": "square", "square": "Docks", "op": "hazard"}, {"for": "hazard", "district": "Docks"}),
        ({"action": "square", "square": "Halles", "op": "mortgage"}, {"for": "mortgage", "district": "Halles"}),
        ({"action": "player", "player": "0", "op": "salary"}, {"for": "salary", "player": "0"}),
        ({"action": "player", "player": "0", "op": "tax"}, {"for": "tax", "player": "0"}),
    ],
)
def test_a_tap_the_bank_cannot_price_goes_to_the_card_form_for_it(table, data, fields, expected):
    before = (data / "soiree.game.yaml").read_bytes()
    answer = tap(table, **fields)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/games/soiree/card?")
    assert query(answer.headers["location"]) == expected
    assert (data / "soiree.game.yaml").read_bytes() == before


def test_once_entered_the_tap_goes_through_and_is_never_asked_again(table, data):
    url = tap(table, action="square", square="Halles", op="skyscraper").headers["location"]
    assert query(url)["for"] == "skyscraper"
    saved = table.post(url, data=form_of(table, url) | {"skyscraper_cost": "4M"}, follow_redirects=False)
    ready = table.get(saved.headers["location"]).text
    assert loaded(data).groups["vert"].skyscraper_cost == 4_000_000
    line = html.unescape(re.search(r'id="card-do" [^>]*>([^<]+)<', ready).group(1))
    assert line.startswith("Alice → banque · M 4M")  # the price just typed, on the tap
    done = table.post("/games/soiree/bank", data=dict(re.findall(r'name="([^"]+)" value="([^"]*)"', ready)))
    assert "done=" in str(done.url) and positions.load(str(data / "soiree.game.yaml")).players[0].holdings[1].skyscraper
    again = tap(table, action="square", square="Halles", op="residential")
    assert again.status_code == 303 and urlsplit(again.headers["location"]).path == "/games/soiree"  # built


def test_other_refusals_are_said_on_the_game_page_as_before(table, data):
    answer = tap(table, action="transfer", player="1", to="to:0", amount="0")
    assert answer.status_code == 400 and "rien à payer" in html.unescape(answer.text)


def test_a_short_payer_is_told_what_can_be_done_not_sent_to_another_card(table, data):
    """Bruno is short, and Port Sud's rents (its mortgage value) are not copied: the bank says he is short, with
    what the copied cards allow, and asks for no other card in the middle of a payment."""
    answer = tap(table, action="transfer", player="1", to="to:0", amount="99M", anchor="p1")
    assert answer.status_code == 400 and "manque" in html.unescape(answer.text)
    assert "Port Sud (M" not in html.unescape(answer.text)


def test_the_rent_page_asks_the_rents_of_a_held_district_first(table, data):
    asked = table.get("/games/soiree/rent?square=Docks", follow_redirects=False)
    assert asked.status_code == 303
    url = asked.headers["location"]
    assert query(url) == {"for": "rent", "district": "Docks", "back": "/games/soiree/rent?square=Docks"}
    assert table.get("/games/soiree/rent?square=Gare", follow_redirects=False).status_code == 200  # no such card
    saved = table.post(url, data=form_of(table, url) | {f"rent{j}": r for j, r in enumerate(RENTS)})
    assert saved.url.path == "/games/soiree/rent" and 'data-rent="100000"' in saved.text  # then its payers


def test_the_fortunes_ask_every_rent_still_missing_one_card_at_a_time(table, data):
    for district in ("Docks", "Halles", "Port Sud"):
        asked = table.get("/games/soiree/fortunes", follow_redirects=False)
        assert asked.status_code == 303 and query(asked.headers["location"])["district"] == district
        url = asked.headers["location"]
        table.post(url, data=form_of(table, url) | {f"rent{j}": r for j, r in enumerate(RENTS)})
    assert 'id="ranking"' in table.get("/games/soiree/fortunes").text


def test_the_file_written_is_the_one_the_editions_pages_and_the_command_line_read(table, data):
    url = "/games/soiree/card?for=buy&district=Docks"
    table.post(url, data=form_of(table, url) | {"price": "1,5M"})
    text = (data / "ma-ville.edition.yaml").read_text(encoding="utf-8")
    assert text == edition_file.render(loaded(data))


def test_the_industry_tax_is_offered_before_its_amount_is_copied(table, data):
    """Alice has an industrial block: her tax tap is there, without an amount; it asks the board's amount."""
    page = table.get("/games/soiree").text
    alice, bruno = page.split('id="p1"')
    assert 'data-op="tax"' in alice and 'data-op="tax"' not in bruno  # Bruno owes no industry tax
    asked = tap(table, action="player", player="0", op="tax")
    assert query(asked.headers["location"]) == {"for": "tax", "player": "0"}
