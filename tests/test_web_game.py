"""The calculator on the phone (issue 14): its files (unit/web/store.py), the game pages, rents, fortunes, check."""

from __future__ import annotations

import html
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="httpx2 (Starlette's test client) is not installed")

import httpx2 as httpx  # noqa: E402
from helpers import THREE_DISTRICTS
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from unit import i18n, yamlfile
from unit.calculator import city, ledger
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.edition import BONUSES, HAZARDS
from unit.calculator.names import player_name
from unit.calculator.position import CityHolding, ClassicHolding, Game, Player
from unit.errors import UserError
from unit.fields import name_key
from unit.web.app import create_app
from unit.web.store import Changed, Store, default_root, version_of

ROOT = Path(__file__).resolve().parent.parent
WEB_SERVICE = ROOT / "systemd" / "monopoly-city-web.service"


# --- the files ------------------------------------------------------------------------------------


def test_a_new_file_is_written_once_and_then_only_from_its_version(tmp_path):
    store = Store(tmp_path / "calculator")  # created on first write
    assert store.names("game") == [] and store.version("game", "soiree") is None
    first = store.write("game", "soiree", "edition: classic-fr\nplayers: []\n", None)
    assert (tmp_path / "calculator" / "soiree.game.yaml").read_text() == "edition: classic-fr\nplayers: []\n"
    assert store.read("game", "soiree") == ("edition: classic-fr\nplayers: []\n", first)
    assert first == version_of(b"edition: classic-fr\nplayers: []\n") and len(first) == 16
    with pytest.raises(Changed):
        store.write("game", "soiree", "x", None)  # it exists now
    second = store.write("game", "soiree", "edition: classic-fr\n", first)
    with pytest.raises(Changed) as refused:
        store.write("game", "soiree", "y", first)  # a page that read the first version
    assert refused.value.say(i18n.words("en")) == "soiree.game.yaml: The game changed meanwhile: reload the page."
    assert store.read("game", "soiree") == ("edition: classic-fr\n", second)
    assert store.names("game") == ["soiree"] and store.names("edition") == []


@pytest.mark.parametrize("name", ["../x", "a/b", "", "-a", "A", "a.b", "x" * 41, "/etc/passwd", "a\x00", "é"])
def test_a_name_is_never_a_path(tmp_path, name):
    with pytest.raises(UserError) as error:
        Store(tmp_path).path("game", name)
    assert "lowercase letters, digits and hyphens" in error.value.say(i18n.words("en"))


def test_names_lists_each_kind_and_nothing_else(tmp_path):
    for file in ("a.game.yaml", "b.edition.yaml", "Bad.game.yaml", "c.game.yml", ".d.game.yaml", "e.game.yaml.tmp"):
        (tmp_path / file).write_text("x")
    (tmp_path / "dir.game.yaml").mkdir()
    assert Store(tmp_path).names("game") == ["a"] and Store(tmp_path).names("edition") == ["b"]


def test_two_writers_from_the_same_version_one_wins_one_is_told(tmp_path):
    store = Store(tmp_path)
    base = store.write("game", "g", "0", None)
    results: list[str] = []
    barrier = threading.Barrier(8)

    def write(i: int) -> None:
        barrier.wait()
        try:
            store.write("game", "g", str(i + 1), base)  # never "0": the same bytes, the same version
            results.append("ok")
        except Changed:
            results.append("changed")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["changed"] * 7 + ["ok"]


def test_the_default_folder(monkeypatch, tmp_path):
    assert default_root("/var/lib/monopoly-city") == Path("/var/lib/monopoly-city/calculator")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_root(None) == tmp_path / "monopoly-city"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_root(None) == tmp_path / "home" / ".local" / "share" / "monopoly-city"


def test_the_web_service_may_write_its_data_folder():
    """ProtectSystem=strict: the service writes only its StateDirectory (and ReadWritePaths); --data is inside."""
    lines = [line for line in WEB_SERVICE.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    found = {}
    for line in lines:
        if "=" in line:
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    argv = shlex.split(found["ExecStart"][0])
    data = Path(argv[argv.index("--data") + 1])
    writable = [Path("/var/lib") / d for v in found["StateDirectory"] for d in v.split()]
    writable += [Path(p.lstrip("-")) for v in found.get("ReadWritePaths", []) for p in v.split()]
    assert found["ProtectSystem"] == ["strict"]
    assert any(data == w or w in data.parents for w in writable), (data, writable)
    # Its own folder, not inside the unit's (#21): a full calculator folder can never fill the unit's saves.
    state = Path(argv[argv.index("--state-dir") + 1])
    assert data == Path("/var/lib/monopoly-city-web/calculator") and state not in data.parents


# --- a game written back reads as itself (unit/calculator/position.py: dump) -----------------------

CITY_EDITION = editions.load(str(ROOT / "docs" / "examples" / "city-example.yaml"))
CLASSIC_EDITION = editions.load("classic-fr")


def player_name_accepted(name: str) -> bool:
    """Whether the loader takes ``name`` as a player's (not « BANK »: a name of the bank, since issue 28)."""
    try:
        player_name(name, "test")
    except UserError:
        return False
    return True


names_strategy = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x85\u2028\u2029"),
    min_size=1,
    max_size=12,
).filter(lambda name: name == name.strip() and name.isprintable() and player_name_accepted(name))
amounts = st.one_of(st.integers(0, 10**12), st.integers(0, 10**9).map(lambda n: n * 1000))


@st.composite
def games(draw, edition) -> Game:
    city_game = edition.game == "city"
    owned = list(edition.districts) if city_game else [n for n, s in edition.squares.items() if s.kind != "tax"]
    names = draw(st.lists(names_strategy, min_size=1, max_size=6, unique_by=name_key))
    players = []
    for name in names:
        mine = draw(st.lists(st.sampled_from(owned), max_size=6, unique=True))
        if city_game:
            holdings = tuple(
                CityHolding(
                    d,
                    draw(st.integers(0, 99)),
                    draw(st.integers(0, 99)),
                    draw(st.sampled_from((None, *HAZARDS))),
                    draw(st.sampled_from((None, *BONUSES))),
                    *(draw(st.booleans()) for _ in range(4)),
                )
                for d in mine
            )
            tower = draw(st.sampled_from((None, *owned)))
            players.append(Player(name, draw(amounts), holdings, tower, draw(st.booleans())))
        else:
            holdings = tuple(
                ClassicHolding(
                    s,
                    draw(st.integers(0, 99)) if edition.squares[s].kind == "street" else 0,
                    draw(st.booleans()) if edition.squares[s].kind == "street" else False,
                    draw(st.booleans()),
                )
                for s in mine
            )
            players.append(Player(name, draw(amounts), holdings))
    return Game("game", edition, tuple(players))


@settings(max_examples=150, deadline=None)
@given(st.one_of(games(CITY_EDITION), games(CLASSIC_EDITION)))
def test_a_game_written_back_reads_as_itself(game):
    reference = CITY_EDITION.source if game.kind == "city" else "classic-fr"
    text = positions.dumps(game, reference)
    again = positions.parse(yamlfile.parse(text, "game.yaml", what="game file"), "game.yaml", ROOT)
    assert again.players == game.players and again.edition.name == game.edition.name


# --- the pages, as a phone uses them (Starlette's test client) --------------------------------------


class Phone:
    """One phone: its own cookies (session, CSRF token), the last version of the game it saw."""

    def __init__(self, app, name: str = "soiree"):
        self.http = TestClient(app, base_url="http://box.local")
        self.name = name
        self.csrf = ""
        self.version = ""

    def look(self, path: str = "") -> httpx.Response:
        page = self.http.get(f"/games/{self.name}{path}" if path != "/games" else "/games")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        self.csrf = found.group(1) if found else self.csrf
        version = re.search(r'name="version" value="([^"]+)"', page.text)
        self.version = version.group(1) if version else self.version
        return page

    def create(self, edition: str, players: str) -> httpx.Response:
        self.look("/games")
        form = {"csrf": self.csrf, "name": self.name, "edition": edition, "players": players}
        return self.http.post("/games", data=form, follow_redirects=False)

    def change(self, **form: str) -> httpx.Response:
        data = {"csrf": self.csrf, "version": self.version, **form}
        return self.http.post(f"/games/{self.name}", data=data, follow_redirects=False)

    def tap(self, **form: str) -> httpx.Response:
        """Look at the page, then change: what a person does."""
        self.look()
        response = self.change(**form)
        assert response.status_code == 303, error_of(response)
        return response


def error_of(page: httpx.Response) -> str:
    found = re.search(r'id="error"[^>]*>([^<]*)<', page.text)
    return html.unescape(found.group(1)) if found else ""


def field_error_of(page: httpx.Response) -> str:
    found = re.search(r'class="field-error" role="alert" data-field="[^"]*">([^<]*)<', page.text)
    return html.unescape(found.group(1)) if found else ""


@pytest.fixture
def app(data):
    return create_app(None, "fr", data)


def test_two_applications_keep_nothing_in_common(data, tmp_path):
    """What the pages keep (editions, games, titles, parts) is each application's: a game of one folder is never
    served from another's, even under the same name and the same bytes."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "trois.edition.yaml").write_text(THREE_DISTRICTS.replace("Les Halles", "Les Arcades"), encoding="utf-8")
    first, second = Phone(create_app(None, "fr", data)), Phone(create_app(None, "fr", other))
    for phone in (first, second):
        assert phone.create("trois.edition.yaml", "Alice").status_code == 303
    assert (data / "soiree.game.yaml").read_bytes() == (other / "soiree.game.yaml").read_bytes()
    assert "Les Halles" in first.look().text and "Les Arcades" not in first.look().text
    assert "Les Arcades" in second.look().text and "Les Halles" not in second.look().text
    webs = [phone.http.app.state.web for phone in (first, second)]
    for kept in ("editions", "games", "titles", "parts"):
        assert getattr(webs[0], kept) is not getattr(webs[1], kept)


def cli(*args: str, cwd: Path) -> dict:
    """``monopoly-city ARGS --json``, as a person at the table runs it."""
    run = subprocess.run([sys.executable, "-m", "unit", *args, "--json"], capture_output=True, text=True, cwd=cwd)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def test_a_city_evening_on_the_page_agrees_with_the_command_line(app, data):
    phone = Phone(app)
    assert phone.create("trois.edition.yaml", "Alice, Bruno").status_code == 303
    assert (data / "soiree.game.yaml").is_file()
    phone.tap(action="buy", player="0", square="Les Halles")
    phone.tap(action="buy", player="0", square="quai")  # any unique part of the name, as on the command line
    phone.tap(action="buy", player="1", square="Port Sud")
    phone.tap(action="set", square="Les Halles", kv="residential=1")
    phone.tap(action="set", square="Les Halles", kv="residential=2")
    phone.tap(action="set", square="Les Halles", kv="industrial=3")
    phone.tap(action="set", square="Quai Nord", kv="skyscraper=1")
    phone.tap(action="set", square="Port Sud", key="hazard", value="dump")
    phone.tap(action="cash", player="1", value="12,5M")
    phone.tap(action="exemption", player="1", value="1")
    game = positions.load(str(data / "soiree.game.yaml"))
    alice, bruno = game.players
    assert [h.district for h in alice.holdings] == ["Les Halles", "Quai Nord"] and bruno.cash == 12_500_000
    assert alice.holdings[0].blocks == 5 and alice.holdings[1].skyscraper and bruno.holdings[0].hazard == "dump"

    rent = phone.look("/rent?square=Les+Halles")
    expected = cli("rent", "soiree.game.yaml", "Les Halles", cwd=data)
    assert expected["rent"] == 800_000  # 5 blocks: 400k on the card, doubled by the skyscraper
    assert f'data-rent="{expected["rent"]}"' in rent.text
    for line in expected["explanation"]:
        assert f"<li>{html.escape(line)}</li>" in rent.text
    fortunes = phone.look("/fortunes")
    expected = cli("fortune", "soiree.game.yaml", cwd=data)
    for row in expected["players"]:
        assert f'data-player="{html.escape(row["name"])}" data-fortune="{row["fortune"]}"' in fortunes.text
    assert f"Gagnant : {expected['winners'][0]}" in fortunes.text
    assert "check-ok" in phone.look("/check").text and cli("check", "soiree.game.yaml", cwd=data)["ok"]


def test_a_classic_game_builds_evenly_and_counts_both_variants(app, data):
    phone = Phone(app, "classique")
    assert phone.create("classic-fr", "Bob, Léa").status_code == 303
    for street in ("Rue de la Paix", "Avenue des Champs-Élysées"):
        phone.tap(action="buy", player="0", square=street)
    phone.tap(action="set", square="paix", kv="houses=1")
    phone.look()
    uneven = phone.change(
        action="set", square="paix", kv="houses=2", view="/games/classique/square/Rue%20de%20la%20Paix"
    )
    assert uneven.status_code == 400 and "Champs" in field_error_of(uneven)  # the even-building rule's sentence
    phone.tap(action="set", square="champs", kv="houses=1")
    phone.tap(action="buy", player="1", square="Compagnie de distribution des eaux")
    rent = phone.look("/rent?square=Compagnie+de+distribution+des+eaux")
    assert "total des dés" in error_of(rent)
    rent = phone.look("/rent?square=Compagnie+de+distribution+des+eaux&dice=7")
    expected = cli("rent", "classique.game.yaml", "eaux", "--dice", "7", cwd=data)
    assert f'data-rent="{expected["rent"]}"' in rent.text and expected["rent"] == 28
    for variant in ("timed", "quick"):
        page = phone.look(f"/fortunes?variant={variant}")
        expected = cli("fortune", "classique.game.yaml", "--variant", variant, cwd=data)
        for row in expected["players"]:
            assert f'data-player="{html.escape(row["name"])}" data-fortune="{row["fortune"]}"' in page.text


HALLES = "/games/soiree/square/Les%20Halles"


@pytest.mark.parametrize(
    ("form", "field", "says"),
    [
        ({"action": "set", "square": "Les Halles", "kv": "residential=5", "view": HALLES}, "fix", "9 bâtiments"),
        (
            {"action": "set", "square": "Port Sud", "kv": "residential=1", "view": "/games/soiree/square/Port%20Sud"},
            "fix",
            "personne ne possède Port Sud",
        ),
        (
            {"action": "cash", "player": "0", "value": "-5M", "view": "/games/soiree/player/0"},
            "cash",
            "sans signe moins",
        ),
        ({"action": "cash", "player": "0", "value": "1.5", "view": "/games/soiree/player/0"}, "cash", "1,5M"),
        ({"action": "set", "square": "Les Halles", "kv": "residential=-1", "view": HALLES}, "fix", "0 à 99"),
        (
            {"action": "set", "square": "Les Halles", "key": "hazard", "value": "volcano", "view": HALLES},
            "fix",
            "volcano",
        ),
        ({"action": "tower", "player": "0", "value": "Les Halles", "view": HALLES}, "fix", "deux groupes"),
        (
            {"action": "buy", "player": "1", "square": "Les Halles", "view": "/games/soiree/player/1"},
            "add",
            "Les Halles",
        ),
        ({"action": "player", "value": "alice", "view": "/games/soiree"}, "new-player", "deux joueurs"),
        ({"action": "explode"}, "", "inconnu"),
    ],
)
def test_bad_input_gives_the_fields_error_and_changes_nothing(app, data, form, field, says):
    """A correction refused: the view it came from, the rule's sentence beside its control, nothing written."""
    phone = Phone(app)
    phone.create("trois.edition.yaml", "Alice, Bruno")
    phone.tap(action="buy", player="0", square="Les Halles")
    phone.tap(action="set", square="Les Halles", kv="residential=4")
    phone.tap(action="set", square="Les Halles", kv="industrial=4")
    before = (data / "soiree.game.yaml").read_bytes()
    phone.look()
    refused = phone.change(**form)
    assert refused.status_code == 400
    assert says in error_of(refused), error_of(refused)
    assert f'data-field="{html.escape(field)}"' in refused.text
    if field:
        assert says in field_error_of(refused)  # beside the control itself
    assert (data / "soiree.game.yaml").read_bytes() == before


def test_two_phones_the_later_change_is_refused_with_reload(app, data):
    first, second = Phone(app), Phone(app)
    first.create("trois.edition.yaml", "Alice, Bruno")
    first.look()
    second.look()
    assert first.version == second.version
    assert first.change(action="buy", player="0", square="Les Halles").status_code == 303
    after_first = (data / "soiree.game.yaml").read_bytes()
    late = second.change(action="buy", player="1", square="Les Halles")
    assert late.status_code == 409 and "La partie a changé entre-temps : rechargez la page." in error_of(late)
    assert (data / "soiree.game.yaml").read_bytes() == after_first
    second.look()  # reloaded: the change applies cleanly on the new version
    assert second.change(action="buy", player="1", square="Port Sud").status_code == 303
    owners = positions.load(str(data / "soiree.game.yaml")).owners()
    assert owners == {"Les Halles": ["Alice"], "Port Sud": ["Bruno"]}


def test_a_change_needs_the_pages_token_and_origin(app, data):
    phone = Phone(app)
    phone.create("trois.edition.yaml", "Alice")
    phone.look()
    before = (data / "soiree.game.yaml").read_bytes()
    no_token = phone.http.post("/games/soiree", data={"version": phone.version, "action": "buy", "player": "0"})
    assert no_token.status_code == 403
    foreign = phone.http.post(
        "/games/soiree",
        data={"csrf": phone.csrf, "version": phone.version, "action": "buy", "player": "0", "square": "Port Sud"},
        headers={"origin": "http://evil.example"},
    )
    assert foreign.status_code == 403 and (data / "soiree.game.yaml").read_bytes() == before
    assert phone.http.get("/games/..%2Fetc").status_code == 404 and phone.http.get("/games/Soiree").status_code == 404


def test_a_file_edited_by_hand_into_nonsense_says_its_line(app, data):
    (data / "abime.game.yaml").write_text("edition: trois.edition.yaml\nplayers: [{name: A, cash: -1}]\n")
    page = Phone(app, "abime").look()
    assert page.status_code == 422 and "abime.game.yaml: A, cash" in error_of(page)


def test_the_games_list_and_a_new_game_named_badly(app, data):
    phone = Phone(app, "Pas Bon")
    refused = phone.create("trois.edition.yaml", "Alice")
    assert refused.status_code == 400 and "minuscules" in error_of(refused)
    phone.name = "ok"
    assert phone.create("trois.edition.yaml", "Alice").status_code == 303
    again = phone.create("trois.edition.yaml", "Bruno")
    assert again.status_code == 409 and "existe déjà" in error_of(again)
    assert 'href="/games/ok"' in phone.http.get("/games").text
    assert phone.create("../secret.edition.yaml", "Alice").status_code == 400


@pytest.mark.parametrize(("variant", "houses"), [("timed", 4), ("quick", 3)])
def test_a_hotel_is_bought_for_the_houses_of_the_variant_and_sold_back_for_them(app, data, variant, houses):
    phone = Phone(app, "hotel")
    phone.create("classic-fr", "Bob")
    for street in ("Rue de la Paix", "Avenue des Champs-Élysées"):
        phone.tap(action="buy", player="0", square=street, variant=variant)
    for level in range(1, houses + 1):
        for street in ("paix", "champs"):
            phone.tap(action="set", square=street, kv=f"houses={level}", variant=variant)
    phone.tap(action="set", square="paix", kv="hotel=1", variant=variant)
    paix = positions.load(str(data / "hotel.game.yaml")).players[0].holdings[0]
    assert (paix.houses, paix.hotel) == (0, True)
    phone.tap(action="set", square="paix", kv="hotel=0", variant=variant)
    paix = positions.load(str(data / "hotel.game.yaml")).players[0].holdings[0]
    assert (paix.houses, paix.hotel) == (houses, False)
    if variant == "quick":  # after 3 houses a hotel breaks the even-building rule of the time-limited game
        phone.look()
        refused = phone.change(action="set", square="paix", kv="hotel=1", variant="timed")
        assert refused.status_code == 400 and "inégale" in error_of(refused)


SQUARES = ("Les Halles", "Quai Nord", "Port Sud", "quai", "nowhere", "")
forms = st.fixed_dictionaries(
    {
        "action": st.sampled_from(("buy", "give", "set", "cash", "tower", "exemption", "player", "drop", "x")),
        "player": st.sampled_from(("0", "1", "2", "", "-1", "x")),
        "square": st.sampled_from(SQUARES),
        "kv": st.builds(
            "{}={}".format,
            st.sampled_from(("residential", "industrial", "skyscraper", "stadium", "station", "mortgaged", "houses")),
            st.sampled_from(("-1", "0", "1", "2", "4", "8", "9", "x")),
        ),
        "value": st.sampled_from(("", "1", "0", "12,5M", "-1M", "Les Halles", "Chloé", "dump", "volcano")),
    }
)


@settings(max_examples=60, deadline=None)
@given(st.lists(forms, min_size=1, max_size=12))
def test_whatever_the_phones_send_the_file_stays_a_legal_game(changes):
    """Random changes: each is applied or refused (never a server error), and the file written is always a
    game the command line reads, breaking no rule (it starts legal, and no change may add a problem)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
        phone = Phone(create_app(None, "fr", folder))
        assert phone.create("trois.edition.yaml", "Alice, Bruno").status_code == 303
        for form in changes:
            phone.look()
            response = phone.change(**form)
            assert response.status_code in (303, 400), (form, response.status_code)
            game = positions.load(str(folder / "soiree.game.yaml"))
            assert city.check(game) == [], form
            assert ledger.differences(game) == (), form  # every correction an entry: start + history = position


def test_a_fifo_or_a_link_in_the_folder_is_refused_never_waited_on(tmp_path, app, data):
    os.mkfifo(data / "pipe.game.yaml")
    (data / "link.game.yaml").symlink_to(data / "trois.edition.yaml")
    store = Store(data)
    for name in ("pipe", "link"):
        with pytest.raises(UserError):
            store.read("game", name)
    assert store.names("game") == []  # neither is listed
    phone = Phone(app, "pipe")
    assert phone.look().status_code == 422  # the page says so at once


def test_the_game_file_downloads_as_the_command_line_reads_it(app, data):
    phone = Phone(app)
    phone.create("trois.edition.yaml", "Alice")
    phone.tap(action="buy", player="0", square="Port Sud")
    file = phone.http.get("/games/soiree/file")
    assert file.status_code == 200 and file.content == (data / "soiree.game.yaml").read_bytes()
    assert file.headers["content-disposition"] == 'attachment; filename="soiree.game.yaml"'
    assert b"{name: Port Sud}" in file.content and phone.http.get("/games/nothing/file").status_code == 404
