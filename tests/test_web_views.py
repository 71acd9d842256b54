"""The game's views offer only what the rules then take, and say what is (issue 27 items 1 and 2, a review's defects).

Through Starlette's test client, as a phone posts: a mortgaged square offers no rent, a tax square says a tax, a
player with something is offered the bankruptcy only, the tower correction only where the rule allows it, a trade
leads to the square's view, and the phone's « Vérifier » says what ``monopoly-city check`` says of a hand change.
The address kept after a refusal is test_web_views_browser.py's.
"""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

import httpx2 as httpx  # noqa: E402
from helpers import Banker, cli_json  # noqa: E402

from unit.calculator import position as positions  # noqa: E402
from unit.web.app import create_app  # noqa: E402


def text_of(page: httpx.Response) -> str:
    return html.unescape(page.text)


@pytest.fixture
def phone(data):
    return Banker(create_app(None, "fr", data))


def test_a_mortgaged_square_offers_no_rent_and_says_why(phone):
    phone.create("classic-fr", "Alice, Bruno")
    phone.tap(action="buy", player="0", square="Rue de la Paix")
    assert 'id="pay-1"' in phone.look("/square/Rue de la Paix").text  # held: Bruno pays in one tap
    phone.tap(action="square", square="Rue de la Paix", op="mortgage")
    for page in (phone.look("/square/Rue de la Paix"), phone.look("/rent?square=Rue+de+la+Paix")):
        assert 'id="pay-1"' not in page.text and "Bruno paie 0" not in text_of(page)
    said = re.search(r'id="no-rent"[^>]*>([^<]*)<', text_of(phone.look("/square/Rue de la Paix")))
    assert said and "hypothéqué : pas de loyer" in said.group(1)


def test_a_tax_square_says_a_tax_not_a_rent(phone, capsys):
    phone.create("classic-fr", "Alice, Bruno")
    page = text_of(phone.look("/square/Impôts sur le revenu"))
    assert "Loyer" not in page and re.search(r'id="rent-total">Taxe : 200<', page)
    assert "Alice paie 200 à la banque" in page  # a tap on the square pays its tax
    status, out, _err = cli_json(capsys, "rent", str(phone_path(phone)), "Impôts sur le revenu")
    assert status == 0 and out["rent"] == 200


def phone_path(phone: Banker):
    app = phone.http.app
    return app.state.web.store.path("game", phone.name)


def test_a_player_with_something_is_offered_the_bankruptcy_only(phone):
    phone.create("trois.edition.yaml", "Alice, Bruno, Chloé")
    page = phone.look("/player/2")  # Chloé has her M 20M: removing her would lose it
    assert 'id="out-bank"' in page.text and 'id="drop"' not in page.text
    phone.tap("", action="cash", player="2", value="0")
    page = phone.look("/player/2")  # nothing left: she may leave
    assert 'id="drop"' in page.text and 'id="out-bank"' in page.text


def test_the_tower_correction_is_offered_only_where_the_rule_allows_it(phone):
    phone.create("trois.edition.yaml", "Alice, Bruno")
    phone.tap(action="buy", player="0", square="Les Halles")
    phone.tap(action="buy", player="0", square="Quai Nord")
    assert 'id="fix-tower"' not in phone.look("/square/Les Halles").text  # one full group: the rule needs two
    phone.tap(action="buy", player="0", square="Port Sud")
    assert 'id="fix-tower"' in phone.look("/square/Les Halles").text  # two full groups
    phone.tap("", action="tower", player="0", value="Les Halles")
    assert 'id="fix-tower" aria-pressed="true"' in phone.look("/square/Les Halles").text  # taken off: allowed


def test_a_trade_leads_to_the_square_s_view_with_its_new_owner_and_its_undo(phone, data):
    phone.create("trois.edition.yaml", "Alice, Bruno")
    phone.tap(action="buy", player="0", square="Les Halles")
    view = "/games/soiree/trade/Les%20Halles"
    answer = phone.tap(action="trade", seller="0", buyer="1", square="Les Halles", price="3M", view=view)
    entries = len(positions.load(data / "soiree.game.yaml").history)
    assert answer.headers["location"] == f"/games/soiree/square/Les%20Halles?done={entries}"
    page = text_of(phone.look(f"/square/Les Halles?done={entries}"))
    assert 'id="trade-form"' not in page and 'id="done-undo"' in page and "Enregistré" in page
    assert re.search(r'class="square-title">Les Halles <small>[^<]*· Bruno</small>', page)


def test_the_phone_s_check_says_a_hand_change_as_the_command_line_does(phone, data, capsys):
    phone.create("classic-fr", "Alice, Bruno")
    phone.tap(action="buy", player="0", square="Rue de la Paix")
    assert 'id="check-ok"' in phone.look("/check").text
    path = data / "soiree.game.yaml"
    text = path.read_text(encoding="utf-8")
    hand = text.replace("- name: Bruno\n  cash: 1500\n", "- name: Bruno\n  cash: 1700\n", 1)
    assert hand != text, text
    path.write_text(hand, encoding="utf-8")  # Bruno's cash changed by hand, in a text editor
    status, out, _err = cli_json(capsys, "check", str(path))
    assert status == 1 and [p["rule"] for p in out["problems"]] == ["ledger"]
    page = phone.look("/check")
    assert 'id="check-ok"' not in page.text and 'data-rule="ledger"' in page.text
    assert "enfreint 1 règle" in text_of(phone.look())  # the table counts it too
