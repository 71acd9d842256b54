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
from helpers import THREE_DISTRICTS, cli_json  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit.calculator import position as positions  # noqa: E402
from unit.web.app import create_app  # noqa: E402


class Banker:
    """One phone at the bank: the token and the version of the last view it looked at."""

    def __init__(self, app, name: str = "soiree"):
        self.http = TestClient(app, base_url="http://box.local")
        self.name = name
        self.csrf = ""
        self.version = ""

    def look(self, path: str = "") -> httpx.Response:
        page = self.http.get(f"/games/{self.name}{path}")
        assert page.status_code == 200, page.text
        self.csrf = re.search(r'data-csrf="([^"]+)"', page.text).group(1)
        found = re.search(r'name="version" value="([^"]+)"', page.text)
        self.version = found.group(1) if found else self.version
        return page

    def create(self, edition: str, players: str) -> None:
        page = self.http.get("/games")
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        form = {"csrf": self.csrf, "name": self.name, "edition": edition, "players": players}
        assert self.http.post("/games", data=form, follow_redirects=False).status_code == 303

    def tap(self, where: str = "/bank", **form: str) -> httpx.Response:
        """Look at the table, then tap (``where``: ``/bank``, or ``""`` for a correction); the tap must be taken."""
        self.look()
        data = {"csrf": self.csrf, "version": self.version, **form}
        answer = self.http.post(f"/games/{self.name}{where}", data=data, follow_redirects=False)
        assert answer.status_code == 303, answer.text[:300]
        return answer


def text_of(page: httpx.Response) -> str:
    return html.unescape(page.text)


@pytest.fixture
def data(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    return folder


@pytest.fixture
def phone(data):
    return Banker(create_app(None, "fr", data))


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
