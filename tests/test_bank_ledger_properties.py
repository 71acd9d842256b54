"""The ledger's properties (issues 27 and 28), over random sequences written through the one write path:

- for every file the pages or the command line write, its start plus its history is the position in it
  (``ledger.differences`` finds nothing), corrections, changes made by hand and undos included;
- for every accepted write, the file reads back as the game in memory (``load(written) == game``), from sane and from
  hostile starting files (a key after the history, comments, blank lines, a flow-style history, a forged entry...);
- a refused write changes nothing, and nothing but a one-line ``UserError`` ever comes out.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_bank_properties import action as bank_action

from unit.calculator import actions, gamefile, ledger, position
from unit.calculator.edition import BONUSES, HAZARDS
from unit.errors import UserError

EXAMPLES = Path(__file__).resolve().parent.parent / "docs/examples"
GAMES = {"city": ("city-game.yaml", "city-example.yaml"), "classic": ("classic-game.yaml", None)}


def squares(game: position.Game) -> list[str]:
    edition = game.edition
    return list(edition.districts if isinstance(edition, position.CityEdition) else edition.squares)


@st.composite
def correction(draw: st.DrawFn, game: position.Game) -> actions.Action:
    """One of the table's own changes (issue 27), valid or not."""
    names = [p.name for p in game.players] + ["Zoé"]
    player = st.sampled_from(names)
    square = st.sampled_from(squares(game) + list(game.owners()))
    choice = draw(st.integers(0, 9))
    if choice == 0:
        step = 10_000 if game.kind == "city" else 10
        return actions.SetCash(draw(player), draw(st.integers(0, 4_000)) * step)
    if choice == 1:
        fields = ("residential", "industrial", "skyscraper", "stadium", "mortgaged", "houses", "hotel", "station")
        field = draw(st.sampled_from(fields))
        value = draw(st.integers(-1, 9)) if field in ("residential", "industrial", "houses") else draw(st.booleans())
        return actions.Correct(draw(square), field, value)
    if choice == 2:
        return actions.Give(draw(square), draw(st.one_of(st.none(), player)), draw(st.booleans()))
    if choice == 3:
        return actions.SetTower(draw(player), draw(st.one_of(st.none(), square)))
    if choice == 4:
        return actions.PlaceStation(draw(square), draw(st.booleans()))
    if choice == 5:
        return actions.PlaceHazard(draw(square), draw(st.one_of(st.none(), st.sampled_from((*HAZARDS, "volcan")))))
    if choice == 6:
        return actions.PlaceBonus(draw(square), draw(st.one_of(st.none(), st.sampled_from(BONUSES))))
    if choice == 7:
        return actions.ExemptionCard(draw(st.one_of(st.none(), player)))
    if choice == 8:
        return actions.AddPlayer(draw(st.sampled_from(("Zoé", "Yann", "Alice", "X\nY"))))
    return actions.RemovePlayer(draw(player))


def by_hand(path: Path, draw: st.DrawFn) -> None:
    """A text editor's change to the players (their cash, a holding's field): what ``record`` writes down."""
    text = path.read_text(encoding="utf-8")
    head, marker, rest = text.partition("\nstart:\n")
    edits = [("cash: ", "cash: 1"), ("residential: 1", "residential: 2"), ("houses: 1", "houses: 2")]
    old, new = draw(st.sampled_from(edits))
    if old in head:
        path.write_text(head.replace(old, new, 1) + marker + rest, encoding="utf-8")


def copy(kind: str, folder: Path) -> Path:
    name, edition = GAMES[kind]
    shutil.copy(EXAMPLES / name, folder / name)
    if edition:
        shutil.copy(EXAMPLES / edition, folder / edition)
    return folder / name


def step(path: Path, data: st.DataObject, kept: list[gamefile.GameFile]) -> None:
    """One write through the one path (an action, a correction, an undo, or a hand's change then a write), and what
    must hold after it. ``kept``: the file as the last write left it, which the next uses as the pages do (its text
    is then known to be the bank's own, and only what changed is read back before writing)."""
    game = gamefile.read(path).game
    before = path.read_bytes()
    choice = data.draw(st.integers(0, 9))
    pages = {"kept": kept[-1]} if kept and data.draw(st.booleans()) else {}
    try:
        if choice < 4:
            done = gamefile.apply(path, data.draw(bank_action(game)), **pages)
        elif choice < 8:
            done = gamefile.apply(path, data.draw(correction(game)), **pages)
        elif choice == 8 and game.history:
            done = gamefile.undo(path, data.draw(st.integers(1, min(3, len(game.history)))), **pages)
        else:
            by_hand(path, data.draw)
            before = path.read_bytes()
            done = gamefile.apply(path, actions.RecordHandChange(), **pages)
    except UserError:
        event("refused")
        assert path.read_bytes() == before  # nothing written
        return
    event("written, as the pages" if pages else "written")
    kept.append(done.file)
    again = gamefile.read(path)
    assert again.game == done.file.game  # load(written) == game
    assert ledger.differences(again.game) == ()  # start + history = position
    assert again.game.revision == gamefile.parse(path, before).game.revision + 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(GAMES)), data=st.data())
def test_every_file_written_is_its_start_and_history_and_reads_back_as_the_game(kind, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = copy(kind, Path(tmp))
        kept: list[gamefile.GameFile] = []
        for _ in range(data.draw(st.integers(1, 12))):
            step(path, data, kept)


ENTRY = "{what: pay, from: Bruno, to: Alice, amount: 10k}"
FORGED = "{player: Alice, square: Atlantide, before: {}, after: null, at: 0}"


def history_first(text: str) -> str:
    head, _, history = text.partition("\nhistory:\n")
    return "history:\n" + history + head + "\n"


#: Hostile starting files (issue 28): what a person or an adversary may leave in a game file, each still readable.
HOSTILE = {
    "a key after the history": lambda t: t + "title: Soirée\n",
    "a comment after the history": lambda t: t + "# fin de soirée\n",
    "blank lines between entries": lambda t: t.replace("\n- {what", "\n\n- {what"),
    "a flow-style history": lambda t: t.replace(f"history:\n- {ENTRY}", f"history: [{ENTRY}]"),
    "the history before the players": history_first,
    "a forged entry of a square the edition lacks": lambda t: (
        t + f"- {{what: pay, from: Alice, amount: 1k, changes: [{FORGED}]}}\n"
    ),
    "an entry whose player is nobody": lambda t: t + "- {what: pay, from: Zorro, to: Alice, amount: 1k}\n",
    "an amount at the most a file holds": lambda t: t.replace("cash: 21,3M", "cash: 999999999999", 1),
    "an anchor used once": lambda t: t.replace("players:", "players: &all", 1),
    "Windows line ends": lambda t: t.replace("\n", "\r\n"),
    "tabs in a note": lambda t: t + '- {what: pay, from: Bruno, to: Alice, amount: 1k, for: "a\\tb"}\n',
}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile=st.sampled_from(sorted(HOSTILE)), data=st.data())
def test_no_accepted_write_of_a_hostile_file_leaves_a_file_that_reads_otherwise(hostile, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = copy("city", Path(tmp))
        assert gamefile.apply(path, actions.Pay("Bruno", "Alice", 10_000)) is not None
        path.write_bytes(HOSTILE[hostile](path.read_text(encoding="utf-8")).encode("utf-8"))
        try:
            gamefile.read(path)
        except UserError:
            event("hostile file refused at read")
            return
        for _ in range(data.draw(st.integers(1, 5))):
            game = gamefile.read(path).game
            before = path.read_bytes()
            choice = data.draw(st.integers(0, 3))
            try:
                if choice == 0 and game.history:
                    done = gamefile.undo(path, 1)
                elif choice == 1:
                    done = gamefile.apply(path, data.draw(correction(game)))
                else:
                    done = gamefile.apply(path, data.draw(bank_action(game)))
            except UserError:
                event(f"{hostile}: refused")
                assert path.read_bytes() == before
                continue
            event(f"{hostile}: written")
            assert gamefile.read(path).game == done.file.game  # load(written) == game
