"""Money moves only from a paired phone (issue 28, item 4; docs/phone.en.md, "Who may do what").

Reading (the games, the rents, the fortunes, the history, the editions) stays open to every phone at the table;
every form that writes through the calculator's pages (a payment, a correction, an undo, the box's sale and its
dismissal, removing a player, a new game, an edition) is a paired phone's, and a visitor who is not paired is
told how to pair on the page itself, with what they typed; nothing is written. Several phones pair at once.
Where there is no unit to pair with (``serve`` on a laptop, nothing beside it), the calculator stays open and
its pages say so; the box's own service refuses while its unit is away.

Through the real application beside a running unit (helpers.RunningUnit), each phone a test client of its own.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

from helpers import THREE_DISTRICTS, RunningUnit, pair_client, wait_for  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from unit import i18n  # noqa: E402
from unit.calculator import position as positions  # noqa: E402
from unit.web.app import create_app  # noqa: E402

FR = i18n.words("fr")
AUCTION = {"auction": {"seconds": 1.5, "warning_seconds": 0.5}}


class Phone:
    """One phone at the table: its own cookies, and the token and version of the last page it looked at."""

    def __init__(self, app):
        self.http = TestClient(app, base_url="http://box.local")
        self.csrf = self.version = ""

    def look(self, path: str) -> str:
        page = self.http.get(path)
        assert page.status_code == 200, (path, page.status_code, page.text[:300])
        self.csrf = re.search(r'data-csrf="([^"]+)"', page.text).group(1)
        found = re.search(r'name="version" value="([^"]+)"', page.text)
        self.version = found.group(1) if found else self.version
        return html.unescape(page.text)

    def post(self, path: str, **form: str):
        data = {"csrf": self.csrf, "version": self.version} | form
        return self.http.post(path, data=data, follow_redirects=False)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def box(tmp_path):
    """A unit running on ``tmp_path`` and its web service (the calculator's files in ``tmp_path/calculator``,
    an edition and a game already there, as a banker set them up)."""
    data = tmp_path / "calculator"
    data.mkdir()
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    with RunningUnit(tmp_path, AUCTION) as unit:
        app = create_app(tmp_path)
        with TestClient(app, base_url="http://box.local") as banker:
            hub = app.state.web.hub
            wait_for(lambda: hub.connected and hub.generation is not None, what="the service to reach the unit")
            pair_client(banker, unit)
            phone = Phone(app)
            phone.http = banker
            phone.look("/games")
            assert (
                phone.post("/games", title="Soirée", edition="trois.edition.yaml", players="Alice, Bruno").status_code
                == 303
            )
            phone.look("/games/soiree")
            assert phone.post("/games/soiree/bank", action="buy", player="0", square="Les Halles").status_code == 303
            yield unit, app, phone, data


# --- the issue's own: a stranger's payment and dismissal ------------------------------------------------


def test_a_visitor_who_is_not_paired_can_neither_pay_nor_dismiss_the_box_s_sale(box):
    unit, app, banker, data = box
    banker.look("/games/soiree")
    assert banker.post("/games/soiree/bank", action="buy", op="auction", square="Port Sud").status_code == 303
    unit.press("power")
    wait_for(lambda: unit.runtime.unit.state == "ready", what="the unit on")
    unit.press("auction")
    wait_for(lambda: app.state.sales.pending() is not None, 10, "the box's sale to be offered")
    number = str(app.state.sales.pending().number)
    before = files(data)

    stranger = Phone(app)
    page = stranger.look("/games/soiree")  # reading is open: the game, the cash, the history
    assert "Alice" in page and 'id="pair-first"' in page and 'href="/remote"' in page
    assert 'id="sale"' not in page  # the sale is offered to paired phones only
    for form in (
        {"action": "transfer", "player": "1", "to": "to:0", "amount": "5M"},  # a payment
        {"action": "dismiss", "sale": number},  # « Pas de vente »
        {"action": "auction", "sale": number, "square": "Port Sud", "player": "1", "price": "1"},
    ):
        answer = stranger.post("/games/soiree/bank", **form)
        assert answer.status_code == 403, form
        assert FR("web.calc.pair_first") in html.unescape(answer.text), form
    assert files(data) == before
    assert app.state.sales.pending() is not None and str(app.state.sales.pending().number) == number

    banker.look("/games/soiree")  # the paired phone records it
    form = {"action": "auction", "sale": number, "square": "Port Sud", "player": "1", "price": "2,4M"}
    assert banker.post("/games/soiree/bank", **form).status_code == 303
    game = positions.load(data / "soiree.game.yaml")
    assert game.players[1].cash == 20_000_000 - 2_400_000 and app.state.sales.pending() is None


# --- every write refused, every read open ---------------------------------------------------------------

READS = [
    "/games",
    "/games/soiree",
    "/games/soiree?history=all",
    "/games/soiree/rent?square=Les+Halles",
    "/games/soiree/fortunes",
    "/games/soiree/check",
    "/games/soiree/file",
    "/editions",
    "/editions/ma-ville",
    "/editions/ma-ville/card",
    "/editions/ma-ville/download",
    "/editions/city/template",
]
#: Every form that writes through the calculator's pages (docs/phone.en.md), as a phone sends it.
WRITES = [
    ("/games", {"title": "Autre", "edition": "trois.edition.yaml", "players": "Chloé, Denis"}),
    ("/games/soiree", {"action": "player", "value": "Eve"}),  # a correction: a player added
    ("/games/soiree", {"action": "cash", "player": "0", "value": "99M"}),
    ("/games/soiree", {"action": "set", "square": "Les Halles", "kv": "residential=1"}),
    ("/games/soiree/bank", {"action": "player", "player": "1", "op": "salary"}),
    ("/games/soiree/bank", {"action": "square", "square": "Les Halles", "op": "residential"}),
    ("/games/soiree/bank", {"action": "rent", "back": "rent", "square": "Les Halles", "payer": "1"}),
    ("/games/soiree/bank", {"action": "undo", "count": "1"}),
    ("/games/soiree/bank", {"action": "drop", "player": "1", "confirm": "1"}),
    ("/games/soiree/bank", {"action": "out", "player": "1", "creditor": "bank", "confirm": "1"}),
    ("/games/soiree/card?for=rent&district=Les+Halles", {"price": "1M"}),  # a card the bank asks for
    ("/editions/new", {"title": "Ville Voisine"}),
    ("/editions/ma-ville/card", {"name": "Rue Neuve", "group": "bleu", "price": "1M"}),
    ("/editions/ma-ville/values", {"name": "Ma Ville", "starting_cash": "30M"}),
    ("/editions/ma-ville/card/delete", {"n": "0"}),
]


def with_an_edition(phone: Phone) -> None:
    phone.look("/editions")
    assert phone.post("/editions/new", title="Ma Ville").status_code == 303
    phone.look("/editions/ma-ville/card")
    card = {"name": "Rue Haute", "group": "rouge", "price": "1M"}
    assert phone.post("/editions/ma-ville/card", **card).status_code == 303


def test_every_write_is_refused_to_a_visitor_on_its_page_and_every_read_stays_open(box):
    _unit, app, banker, data = box
    with_an_edition(banker)
    before = files(data)
    stranger = Phone(app)
    for path in READS:
        assert stranger.http.get(path).status_code == 200, path
    for path, form in WRITES:
        stranger.look(path.removesuffix("/bank").removesuffix("/delete").removesuffix("/values").replace("/new", ""))
        answer = stranger.post(path, **form)
        said = html.unescape(answer.text)
        assert answer.status_code == 403 and FR("web.calc.pair_first") in said, (path, form, said[:300])
        assert "<html" in answer.text, path  # the page it came from, not a bare line
    upload = stranger.http.post(
        "/editions/upload?file=x.yaml",
        content=THREE_DISTRICTS.encode(),
        headers={"x-csrf-token": stranger.csrf, "content-type": "application/yaml", "accept": "application/json"},
    )
    assert upload.status_code == 403 and upload.json() == {"ok": False, "error": FR("web.calc.pair_first")}
    as_typed = stranger.http.post(
        "/editions/ma-ville/card",
        data={"csrf": stranger.csrf, "name": "Rue Neuve"},
        headers={"accept": "application/json"},
    )
    assert as_typed.json() == {"ok": False, "errors": {"_": FR("web.calc.pair_first")}}  # what the page's script shows
    assert files(data) == before


def test_a_visitor_told_to_pair_keeps_what_they_typed(box):
    _unit, app, banker, _data = box
    with_an_edition(banker)
    stranger = Phone(app)
    stranger.look("/games")
    page = html.unescape(
        stranger.post("/games", title="Notre soirée", edition="trois.edition.yaml", players="Zoé, Yann").text
    )
    assert 'value="Notre soirée"' in page and 'value="Zoé, Yann"' in page
    stranger.look("/editions/ma-ville/card")
    page = html.unescape(stranger.post("/editions/ma-ville/card", name="Rue Neuve", group="bleu", price="1,5M").text)
    assert 'value="Rue Neuve"' in page and 'value="1,5M"' in page
    stranger.look("/editions")
    page = html.unescape(stranger.post("/editions/new", title="Ville Voisine").text)
    assert 'value="Ville Voisine"' in page


def test_several_phones_paired_at_once_each_pay(box):
    unit, app, banker, data = box
    second = Phone(app)
    pair_client(second.http, unit)
    third = Phone(app)
    pair_client(third.http, unit)
    for phone, amount in ((banker, "1M"), (second, "2M"), (third, "3M"), (banker, "4M")):
        phone.look("/games/soiree")
        answer = phone.post("/games/soiree/bank", action="transfer", player="1", to="to:0", amount=amount)
        assert answer.status_code == 303, html.unescape(answer.text)[:300]
    assert positions.load(data / "soiree.game.yaml").players[1].cash == 20_000_000 - 10_000_000


def test_switching_the_unit_off_forgets_the_phones_paired_for_the_bank_too(box):
    unit, app, banker, _data = box
    unit.press("power")  # on: the game starts (a phone paired while off stays paired into it)
    wait_for(lambda: unit.runtime.unit.state == "ready")
    generation = app.state.web.hub.generation
    banker.look("/games/soiree")
    assert banker.post("/games/soiree/bank", action="player", player="0", op="salary").status_code == 303
    unit.press("power")  # « ÉTEINDRE ? »
    unit.press("power")  # yes: that game is over
    wait_for(lambda: unit.runtime.unit.state == "off", what="the unit off")
    wait_for(lambda: app.state.web.hub.generation not in (None, generation), what="a new pairing generation")
    banker.look("/games/soiree")
    assert banker.post("/games/soiree/bank", action="player", player="0", op="salary").status_code == 403


# --- without a unit to pair with -------------------------------------------------------------------------


def a_folder(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    return data


def test_without_a_unit_to_pair_with_the_calculator_stays_open_and_says_so(tmp_path):
    """``serve`` on a laptop with no unit beside it: nobody could pair, so every phone may write, and the
    calculator's pages say so."""
    data = a_folder(tmp_path)
    for app in (create_app(None, "fr", data), create_app(tmp_path / "state", "fr", data, box=False)):
        phone = Phone(app)
        page = phone.look("/games")
        assert FR("web.calc.open") in page and 'id="pair-first"' not in page
        form = {"title": f"Soirée {len(list(data.iterdir()))}", "edition": "trois.edition.yaml", "players": "A, B"}
        assert phone.post("/games", **form).status_code == 303
        assert FR("web.calc.open") in phone.look("/editions")
        assert FR("web.calc.open") not in phone.look("/")  # the calculator's pages only


def test_a_laptop_s_service_asks_for_pairing_once_a_unit_runs_beside_it(tmp_path):
    """``serve`` without ``--state-dir`` beside ``make run``: there is a unit to pair with, so pairing is asked."""
    data = a_folder(tmp_path)
    with RunningUnit(tmp_path) as unit:
        app = create_app(tmp_path, "fr", data, box=False)
        with TestClient(app, base_url="http://box.local") as client:
            wait_for(lambda: app.state.web.hub.connected, what="the service to reach the unit")
            stranger = Phone(app)
            page = stranger.look("/games")
            assert 'id="pair-first"' in page and FR("web.calc.open") not in page
            form = {"title": "Soirée", "edition": "trois.edition.yaml", "players": "A, B"}
            assert stranger.post("/games", **form).status_code == 403
            pair_client(client, unit)
            banker = Phone(app)
            banker.http = client
            banker.look("/games")
            assert banker.post("/games", **form).status_code == 303


def test_the_box_s_service_refuses_writes_while_its_unit_is_away(tmp_path):
    """On the box (``serve --state-dir``, as its systemd service runs it) nothing is written while the unit is
    not there: nobody could pair, and a stranger must not gain the bank by its absence."""
    data = a_folder(tmp_path)
    phone = Phone(create_app(tmp_path / "state", "fr", data))
    page = phone.look("/games")
    assert 'id="pair-first"' in page and FR("web.calc.open") not in page
    answer = phone.post("/games", title="Soirée", edition="trois.edition.yaml", players="A, B")
    assert answer.status_code == 403 and FR("web.calc.box_away") in html.unescape(answer.text)
    assert sorted(p.name for p in data.iterdir()) == ["trois.edition.yaml"]


def test_serve_says_whether_it_is_a_box_s(monkeypatch, tmp_path):
    """``serve --state-dir DIR`` (the box's systemd service) is a box's; without it, on a laptop, it is not."""
    from unit import cli
    from unit.web import server

    seen = {}
    monkeypatch.setattr(server, "serve", lambda *args, **kwargs: seen.update(kwargs, args=args))
    monkeypatch.setattr("unit.app.launch.is_raspberry_pi", lambda: False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert cli.main(["serve", "--state-dir", str(tmp_path / "state"), "--data", str(tmp_path / "data")]) == 0
    assert seen["box"] is True
    assert cli.main(["serve", "--data", str(tmp_path / "data")]) == 0
    assert seen["box"] is False
    monkeypatch.setattr("unit.app.launch.is_raspberry_pi", lambda: True)
    assert cli.main(["serve", "--data", str(tmp_path / "data")]) == 0
    assert seen["box"] is True
