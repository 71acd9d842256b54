"""The calculator on the phone (issue 14): its files (unit/web/store.py), the game pages, rents, fortunes, check."""

from __future__ import annotations

import shlex
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unit import i18n, yamlfile
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.edition import BONUSES, HAZARDS
from unit.calculator.position import CityHolding, ClassicHolding, Game, Player
from unit.errors import UserError
from unit.fields import name_key
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
            store.write("game", "g", str(i), base)
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
    assert data == default_root(argv[argv.index("--state-dir") + 1])  # the same folder as without --data


# --- a game written back reads as itself (unit/calculator/position.py: dump) -----------------------

CITY_EDITION = editions.load(str(ROOT / "docs" / "examples" / "city-example.yaml"))
CLASSIC_EDITION = editions.load("classic-fr")
names_strategy = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x85\u2028\u2029"),
    min_size=1,
    max_size=12,
).filter(lambda name: name == name.strip() and name.isprintable())
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
