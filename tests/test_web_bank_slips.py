"""The review of issues 27 and 28 on the phone: no slip recorded silently (a cash corrected to ``500``, a City card's
``500``), an undo that says what it took back, names and notes with control characters or the bank's name refused.

Through Starlette's test client, as a phone posts; each page's words are checked against what ``monopoly-city``
says on the same file.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

from helpers import JSON, THREE_DISTRICTS, Banker, card, full_card  # noqa: E402

from unit.calculator import position as positions  # noqa: E402
from unit.web.app import create_app  # noqa: E402


def error_of(response) -> str:
    found = re.search(r'id="error"[^>]*>([^<]*)<', response.text)
    return html.unescape(found.group(1)) if found else ""


def question_of(response) -> tuple[str, dict[str, str], list[tuple[str, str, str]]]:
    """The question a refusal asks back: where its form posts, its hidden fields, and each answer (words, field,
    value)."""
    section = re.search(r'<section class="bank-ask" id="slip".*?</section>', response.text, re.S)
    assert section is not None, error_of(response) or response.text[:300]
    text = section.group(0)
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', text).group(1))
    hidden = {
        html.unescape(k): html.unescape(v) for k, v in re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', text)
    }
    answers = [
        (html.unescape(label), name, html.unescape(value))
        for name, value, label in re.findall(
            r'<button type="submit" name="([^"]+)" value="([^"]*)"[^>]*>([^<]*)<', text
        )
    ]
    return action, hidden, answers


@pytest.fixture
def phone(data):
    phone = Banker(create_app(None, "fr", data))
    phone.create("trois.edition.yaml", "Alice, Bruno")
    return phone


def game_of(data: Path) -> positions.Game:
    return positions.load(str(data / "soiree.game.yaml"))


# --- 1. no slip recorded silently ------------------------------------------------------------------------------


def test_a_cash_corrected_to_500_in_a_city_game_is_asked_back_and_each_answer_is_one_tap(phone, data):
    # Review of issue 27 item 3: « Corriger sans payer → Billets » with 500 set the cash to M 500 without a question,
    # while ``join --cash 500`` asks « M 500 ou M 500k ? ».
    before = (data / "soiree.game.yaml").read_bytes()
    phone.look("/player/0")
    asked = phone.post("", action="cash", player="0", value="500", view="/games/soiree/player/0")
    assert asked.status_code == 400 and (data / "soiree.game.yaml").read_bytes() == before
    action, hidden, answers = question_of(asked)
    assert error_of(asked) == "M 500 ou M 500k ?"
    assert action == "/games/soiree"  # a correction's answer goes where the correction went, not to the bank
    assert hidden["action"] == "cash" and hidden["player"] == "0" and "value" not in hidden
    assert answers == [("M 500", "value", "M 500"), ("M 500k", "value", "500k")]
    taken = phone.http.post(action, data={**hidden, "csrf": phone.csrf, "value": "500k"}, follow_redirects=False)
    assert taken.status_code == 303, error_of(taken)
    assert game_of(data).players[0].cash == 500_000
    phone.look("/player/0")
    assert phone.post("", action="cash", player="0", value="M 500").status_code == 303  # written in full: as said
    assert game_of(data).players[0].cash == 500


def test_a_city_card_typed_500_is_asked_back_and_kept_as_typed(phone, data):
    # Review of issue 27 item 3: a City card's price « 500 » was saved with no question, then one tap recorded M 500.
    (data / "vide.edition.yaml").write_text(
        "game: city\nname: Vide\nstarting_cash: 20M\ngo_salary: 2M\nindustry_tax: 1M\n"
        "hazards: {prison: 4, dump: 2, sewage_plant: 2, power_station: 3}\ngroups: []\n",
        encoding="utf-8",
    )
    before = (data / "vide.edition.yaml").read_bytes()
    page = phone.http.get("/editions/vide/card")
    token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    version = re.search(r'name="version" value="([^"]+)"', page.text).group(1)
    form = card(token, version, **full_card("Belleville", "rose", price="500"))
    for auto in ("1", ""):
        answer = phone.http.post("/editions/vide/card", data=form | {"auto": auto}, headers=JSON)
        assert not answer.json()["ok"], auto
        assert answer.json()["errors"]["price"].startswith("500 ? M 500 ou M 500k ?")
        assert set(answer.json()["errors"]) == {"price"}
    refused = phone.http.post("/editions/vide/card", data=form, follow_redirects=False)
    assert refused.status_code == 400 and 'value="500"' in refused.text  # what was typed stays
    assert "M 500 ou M 500k ?" in html.unescape(refused.text)
    assert (data / "vide.edition.yaml").read_bytes() == before
    answer = phone.http.post("/editions/vide/card", data=form | {"price": "M 500"}, headers=JSON)
    assert answer.json()["ok"], answer.json()  # written in full: taken as said, and shown so again
    assert 'value="M 500"' in phone.http.get("/editions/vide/card?n=0").text
    values = {"csrf": token, "version": answer.json()["version"], "name": "Vide", "starting_cash": "20M"}
    values |= {"go_salary": "2000", "industry_tax": "1M", "prison": "4", "dump": "2"}
    values |= {"sewage_plant": "2", "power_station": "3"}
    answer = phone.http.post("/editions/vide/values", data=values, headers=JSON)
    assert not answer.json()["ok"] and answer.json()["errors"]["go_salary"].startswith("2000 ? M 2000 ou M 2000k ?")


def test_the_card_the_bank_asks_for_a_purchase_asks_500_back(data):
    (data / "deux.edition.yaml").write_text(THREE_DISTRICTS.replace("price: 2M, ", "price: null, "), encoding="utf-8")
    phone = Banker(create_app(None, "fr", data))
    phone.create("deux.edition.yaml", "Alice, Bruno")
    phone.look()
    asked = phone.post(action="buy", player="0", square="Port Sud")
    assert asked.status_code == 303 and "/card?" in asked.headers["location"]
    url = asked.headers["location"]
    page = phone.http.get(url)
    token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    version = re.search(r'name="version" value="([^"]+)"', page.text).group(1)
    before = (data / "deux.edition.yaml").read_bytes()
    refused = phone.http.post(
        url, data={"csrf": token, "version": version, "card": "Port Sud", "price": "500"}, follow_redirects=False
    )
    assert refused.status_code == 400 and "500 ? M 500 ou M 500k ?" in html.unescape(refused.text)
    assert 'value="500"' in refused.text and (data / "deux.edition.yaml").read_bytes() == before
    saved = phone.http.post(
        url, data={"csrf": token, "version": version, "card": "Port Sud", "price": "2M"}, follow_redirects=False
    )
    assert saved.status_code == 303


# --- 2. undo says what it took back ----------------------------------------------------------------------------


def undone_shown(page: str) -> list[str]:
    found = re.search(r'id="undone"[^>]*><span>(.*?)</span>', page, re.S)
    assert found is not None, page[:300]
    return [html.unescape(line) for line in found.group(1).split("<br>")]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_pages_undo_says_each_entry_and_what_moved_as_the_command_line_does(data, capsys, language):
    # Review of issue 27 item 1: the page said only « 1 écriture(s) annulée(s) : l'argent et les biens sont revenus
    # comme avant », never which entries nor what moved, and without saying it had checked.
    from unit.cli import main

    phone = Banker(create_app(None, language, data))
    phone.create("trois.edition.yaml", "Alice, Bruno")
    path = data / "soiree.game.yaml"
    phone.look()
    assert phone.post(action="buy", player="0", square="Les Halles").status_code == 303
    phone.look()
    assert phone.post(action="transfer", player="1", to="to:0", amount="600k").status_code == 303
    before = path.read_bytes()
    copy = data / "copie.game.yaml"
    copy.write_bytes(before)
    capsys.readouterr()
    assert main(["undo", str(copy), "2", "--lang", language]) == 0
    by_command = capsys.readouterr().out.splitlines()
    phone.look()
    undone = phone.post(action="undo", count="2", confirm="1")
    assert undone.status_code == 303
    shown = undone_shown(phone.look(undone.headers["location"].removeprefix("/games/soiree")).text)
    assert [line.strip() for line in shown] == [line.strip() for line in by_command]
    checked = "vérifié : départ et historique" if language == "fr" else "checked: start and history"
    assert shown[-1].endswith(f"({checked})") and len(shown) > 3
    assert shown[0] == ("Annulé : 2. Bruno → Alice · M 600k · virement" if language == "fr" else shown[0])
    assert any("Les Halles" in line for line in shown)
    # Once the file is written again, the old undo is no longer said; nor does the count claim anything.
    phone.look()
    assert phone.post(action="player", player="0", op="salary").status_code == 303
    again = undone_shown(phone.look("?undone=2").text)
    assert again == ["2 écriture(s) annulée(s)." if language == "fr" else "2 entr(y/ies) undone."]


# --- 5 and 6. names: one line, and never the bank's ----------------------------------------------------------


def test_a_game_file_with_an_escape_code_in_a_name_is_one_line_on_the_page_never_the_raw_byte(phone, data):
    path = data / "soiree.game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("- name: Alice", '- name: "Al\\e[31mice"'), "utf-8")
    page = phone.http.get("/games/soiree")
    assert page.status_code == 422 and "\x1b" not in page.text
    assert "soiree.game.yaml: players[0], name: un nom de joueur tient sur une ligne" in html.unescape(page.text)


@pytest.mark.parametrize("name", ["banque", "Bank", "la banque"])
def test_a_player_named_as_the_bank_is_refused_on_the_page(data, name):
    phone = Banker(create_app(None, "fr", data))
    refused = phone.create("trois.edition.yaml", f"Alice, {name}", taken=False)
    assert refused.status_code == 400 and f"{name!r} est un nom de la banque" in html.unescape(refused.text)
    assert not (data / "soiree.game.yaml").exists()
    phone.create("trois.edition.yaml", "Alice, Bruno")
    before = (data / "soiree.game.yaml").read_bytes()
    phone.look()
    added = phone.post("", action="player", value=name)
    assert added.status_code == 400 and f"{name!r} est un nom de la banque" in error_of(added)
    assert (data / "soiree.game.yaml").read_bytes() == before


# --- 4. the minus sign -------------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["-", "−"])
def test_a_minus_alone_on_the_page_is_told_that_an_amount_is_expected(phone, typed):
    # Review of issue 27: « - » alone said « attendu un montant d'au moins 0, reçu - », the sentence the issue named.
    phone.look("/player/0")
    refused = phone.post(action="transfer", player="0", to="to:1", amount=typed, view="/games/soiree/player/0")
    assert refused.status_code == 400
    assert error_of(refused) == f"attendu un montant comme 12,5M, 500k ou 1200, reçu le texte {typed!r}"
