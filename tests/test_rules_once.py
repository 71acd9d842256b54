"""The rules of a game are looked up once per request or command (issue 27): the view, the tap or the command
looks them up (:func:`unit.calculator.rules.of`) and hands them down, instead of every helper asking again.

Each test counts the calls to ``rules.of`` while one request is answered, or one command runs, in a City game and a
classic one, a square held in each: a GET of each view (the table, a player, a square, the squares to buy, the
history), a payment and a rent posted, and the command line's ``rent``, ``fortune`` and ``pay``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

from helpers import THREE_DISTRICTS  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit.calculator import rules  # noqa: E402
from unit.cli import main  # noqa: E402
from unit.web.app import create_app  # noqa: E402

#: Each kind of game: its edition, the square a player holds, an amount the other player can pay.
GAMES = {
    "city": ("trois.edition.yaml", "Les Halles", "500k"),
    "classic": ("classic-fr", "Rue de la Paix", "50"),
}


class Counted:
    """``rules.of`` wrapped: how many times it was called since :meth:`during` began."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.calls = 0
        of = rules.of

        def counting(source: Any) -> Any:
            self.calls += 1
            return of(source)

        monkeypatch.setattr(rules, "of", counting)

    def during(self, act: Callable[[], Any]) -> int:
        """The calls ``act()`` made."""
        self.calls = 0
        act()
        return self.calls


@pytest.fixture(params=sorted(GAMES))
def table(request, tmp_path) -> Iterator[tuple[TestClient, str, str, str]]:
    """A game of the kind asked on a service without a unit (its calculator open to the phone), Alice holding a
    square: the client, the game's name, the square and an amount Bruno can pay."""
    edition, square, amount = GAMES[request.param]
    (tmp_path / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    with TestClient(create_app(None, "fr", tmp_path), base_url="http://box.local") as phone:
        csrf = re.search(r'name="csrf" value="([^"]+)"', phone.get("/games").text).group(1)
        form = {"csrf": csrf, "name": "soiree", "edition": edition, "players": "Alice, Bruno"}
        assert phone.post("/games", data=form, follow_redirects=False).status_code == 303
        post(phone, tap_form(phone, action="buy", player="0", square=square))
        yield phone, "soiree", square, amount


def tap_form(phone: TestClient, **form: str) -> dict[str, str]:
    """A tap on the table's view as the page sends it: its token and the version it showed, the view it came from."""
    page = phone.get("/games/soiree").text
    csrf = re.search(r'data-csrf="([^"]+)"', page).group(1)
    version = re.search(r'name="version" value="([^"]+)"', page).group(1)
    return {"csrf": csrf, "version": version, "view": "/games/soiree"} | form


def post(phone: TestClient, form: dict[str, str]) -> None:
    answer = phone.post("/games/soiree/bank", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text[:300]


@pytest.mark.parametrize("path", ["", "/player/0", "/square/{square}", "/player/1/buy", "/history"])
def test_a_view_looks_the_rules_up_once(monkeypatch, table, path):
    phone, name, square, _amount = table
    url = f"/games/{name}{path.format(square=square)}"
    counted = Counted(monkeypatch)
    assert counted.during(lambda: phone.get(url).raise_for_status()) <= 1  # the history's lines said
    assert counted.during(lambda: phone.get(url).raise_for_status()) <= 1  # and kept


@pytest.mark.parametrize("tap", [{"action": "transfer", "to": "to:0"}, {"action": "rent"}])
def test_a_payment_looks_the_rules_up_once(monkeypatch, table, tap):
    phone, _name, square, amount = table
    form = tap_form(phone, player="1", payer="1", square=square, amount=amount, **tap)
    counted = Counted(monkeypatch)
    assert counted.during(lambda: post(phone, form)) <= 1


@pytest.fixture(params=sorted(GAMES))
def game_file(request, tmp_path, capsys) -> tuple[Path, str, str]:
    """A game file of the kind asked, Alice holding a square, as the command line writes it: its path, the square
    and an amount Bruno can pay."""
    edition, square, amount = GAMES[request.param]
    (tmp_path / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    ref = str(tmp_path / edition) if edition.endswith(".yaml") else edition
    assert main(["game", "new", ref, "--players", "Alice,Bruno"]) == 0
    path = tmp_path / "soiree.game.yaml"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["buy", str(path), "Alice", square]) == 0
    capsys.readouterr()
    return path, square, amount


def test_the_command_line_s_rent_and_fortune_look_the_rules_up_once(monkeypatch, game_file):
    path, square, _amount = game_file
    done: list[int] = []
    counted = Counted(monkeypatch)
    assert counted.during(lambda: done.append(main(["rent", str(path), square]))) <= 1
    assert counted.during(lambda: done.append(main(["fortune", str(path)]))) <= 1
    assert done == [0, 0]


@pytest.mark.parametrize("how", [["Alice", "{amount}"], ["--rent", "{square}"]])
def test_the_command_line_s_pay_looks_the_rules_up_once(monkeypatch, game_file, how):
    path, square, amount = game_file
    argv = ["pay", str(path), "Bruno", *(a.format(square=square, amount=amount) for a in how)]
    done: list[int] = []
    counted = Counted(monkeypatch)
    assert counted.during(lambda: done.append(main(argv))) <= 1
    assert done == [0]  # paid, not refused
