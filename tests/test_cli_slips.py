"""The review of issues 27 and 28 on the command line and in the game loader: notes and names with a control
character or a name of the bank refused in one line, a minus sign said the same whichever is typed, the hand
changes worded with the game's money, a file's mode kept.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from unit.calculator import position
from unit.cli import main
from unit.files import write_atomically

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs/examples"


@pytest.fixture
def files(tmp_path):
    for name in ("city-game.yaml", "city-example.yaml", "classic-game.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


# --- 5. control characters ---------------------------------------------------------------------------------


def test_a_note_with_an_escape_code_is_refused_as_the_page_refuses_it(files, capsys):
    # Review of issue 28 item 6: « pay … --for $'x\e[31mred' » was accepted and stored, while the page refused it.
    game = files / "city-game.yaml"
    before = game.read_bytes()
    assert main(["pay", str(game), "Bruno", "Alice", "10k", "--for", "x\x1b[31mred"]) == 2
    err = capsys.readouterr().err
    line = "--for: une seule ligne sans caractère de contrôle était attendue, pas le texte 'x\\x1b[31mred'"
    assert err == f"monopoly-city: {line}\n"
    assert "\x1b" not in err and game.read_bytes() == before
    assert main(["pay", str(game), "Bruno", "Alice", "10k", "--for", "prêt"]) == 0


def test_a_game_file_with_a_control_character_in_a_name_is_refused_in_one_line(files, capsys):
    # Review of issue 28 item 6: a hand-written « Al\e[31mice » loaded, check said OK, and the page sent the raw ESC.
    game = files / "city-game.yaml"
    game.write_text(
        game.read_text(encoding="utf-8").replace("  - name: Alice\n", '  - name: "Al\\e[31mice"\n', 1), "utf-8"
    )
    for argv in (["check", str(game)], ["fortune", str(game)], ["pay", str(game), "Bruno", "Chloé", "10k"]):
        status = main(argv)
        err = capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1, (argv, err)
        assert f"{game}: players[0], name: un nom de joueur tient sur une ligne" in err and "\x1b" not in err, err


# --- 6. the bank's names are not players' ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["banque", "Bank", "la banque", "The Bank"])
def test_a_player_named_as_the_bank_is_refused_on_the_command_line_and_by_the_loader(files, capsys, name):
    # Review: a player « banque » was accepted; then « pay G banque Bob 10 » took that player's money.
    assert main(["game", "new", "classic-fr", "--players", f"Alice,{name}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--players: {name!r} est un nom de la banque" in err
    game = files / "city-game.yaml"
    before = game.read_bytes()
    assert main(["join", str(game), name]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "est un nom de la banque" in err and game.read_bytes() == before
    game.write_text(game.read_text(encoding="utf-8").replace("  - name: Bruno\n", f"  - name: {name}\n", 1), "utf-8")
    assert main(["check", str(game), "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{game}: {name}, name: {name!r} is a name of the bank" in err


def test_the_loader_still_reads_every_example():
    for name in ("city-game.yaml", "classic-game.yaml"):
        assert position.load(str(EXAMPLES / name)).players


# --- 4. the minus sign ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_payment_with_a_unicode_minus_is_told_as_one_with_a_hyphen(files, capsys, language):
    # Review of issue 27: « pay … −500k » (U+2212) lacked « c'est l'ordre qui dit qui paie » that « -500k » gets.
    game = files / "city-game.yaml"
    before = game.read_bytes()
    said = {}
    for sign in ("-", "\u2212"):
        assert status_of(["pay", str(game), "Bruno", "Alice", f"{sign}500k", "--lang", language]) == 2
        said[sign] = capsys.readouterr().err
    assert said["\u2212"] == said["-"].replace("-500k", "\u2212500k") and said["-"].count("\n") == 1
    assert ("c'est l'ordre qui dit qui paie" if language == "fr" else "the order says who pays") in said["-"]
    assert game.read_bytes() == before


def status_of(argv: list[str]) -> int | str | None:
    try:
        return main(argv)
    except SystemExit as exit:  # argparse's own errors exit (« -500k » is read as an option)
        return exit.code


@pytest.mark.parametrize("minus", ["-", "−"])
def test_a_minus_alone_is_told_that_an_amount_is_expected(files, capsys, minus):
    game = files / "city-game.yaml"
    assert status_of(["pay", str(game), "Bruno", "Alice", minus]) == 2
    err = capsys.readouterr().err
    assert err == f"monopoly-city: MONTANT: attendu un montant comme 12,5M, 500k ou 1200, reçu le texte {minus!r}\n"


# --- 3. the hand changes in the game's words ---------------------------------------------------------------


def edited(game: Path, old: str, new: str) -> None:
    """``old`` replaced by ``new`` in the players' part of the file (before ``start:``): a change made by hand."""
    players, _, rest = game.read_text(encoding="utf-8").partition("start:")
    assert old in players
    game.write_text(players.replace(old, new, 1) + "start:" + rest, encoding="utf-8")


@pytest.mark.parametrize(("language", "said"), [("fr", "M 12,51M selon l'historique, M 11M"), ("en", "M 12.51M")])
def test_a_cash_changed_by_hand_is_said_in_the_games_money(files, capsys, language, said):
    # Review: « argent : 19000000 selon l'historique, 18000000 dans le fichier ».
    game = files / "city-game.yaml"
    assert main(["pay", str(game), "Bruno", "Alice", "10k"]) == 0
    edited(game, "cash: 12,51M", "cash: 11M")
    capsys.readouterr()
    assert main(["undo", str(game), "--lang", language]) == 2
    err = capsys.readouterr().err
    assert said in err and "12510000" not in err and "11000000" not in err, err
    assert main(["check", str(game), "--lang", language]) == 1
    out = capsys.readouterr().out
    assert said in out and "12510000" not in out, out
    assert not any(line.startswith(":") for line in out.splitlines()), out  # no empty « : » in front


def test_a_district_moved_by_hand_with_its_buildings_says_them(files, capsys):
    # Review: « Bruno reçoit Les Halles » said without the building that came with it.
    game = files / "city-game.yaml"
    assert main(["pay", str(game), "Bruno", "Alice", "10k"]) == 0
    edited(game, "  - {name: Plein Ouest, residential: 2, industrial: 1}\n", "")
    edited(game, "  - {name: Opéra,", "  - {name: Plein Ouest, residential: 2, industrial: 1}\n  - {name: Opéra,")
    capsys.readouterr()
    assert main(["record", str(game)]) == 0
    out = capsys.readouterr().out
    assert "Bruno reçoit Plein Ouest (résidentiels 2, industriels 1)" in out and "Alice cède Plein Ouest" in out, out
    assert main(["undo", str(game)]) == 0
    assert "Bruno reçoit Plein Ouest (résidentiels 2, industriels 1)" in capsys.readouterr().out


# --- 7. a file's mode kept -----------------------------------------------------------------------------------


def test_a_write_keeps_the_game_files_mode_and_a_new_file_gets_open_s(files, capsys):
    # Review: a command line write turned a game file's 0644 into 0600 (mkstemp's mode).
    game = files / "city-game.yaml"
    for mode in (0o644, 0o664, 0o600):
        os.chmod(game, mode)
        assert main(["pay", str(game), "Bruno", "Alice", "10k"]) == 0
        assert stat.S_IMODE(os.stat(game).st_mode) == mode
    old = os.umask(0o027)
    try:
        new = files / "new.game.yaml"
        write_atomically(new, game.read_bytes())
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o640  # 0666 less the umask, as open() would
