"""The bank's ledger and its one write path (issues 27 and 28): every change an entry, undo always right, one writer
at a time, never a file that cannot be read back, bounded work on every file, no money vanishing.

Each test of issue 28's list failed on the code before (the commit that made `unit/calculator/gamefile.py`), and
says how: two `pay` at once lost one, a tap past 10^12 left a file nothing could read, a key after `history:` made the
next write unreadable, undoing a forged entry wrote a square the edition does not have, a file of aliases kept the
commands busy for half a minute, a player with cash was removed with no entry.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import without_revision

from unit import i18n
from unit.calculator import actions, bank, gamefile, ledger, position
from unit.calculator import history as histories
from unit.calculator.words import ActionRefused
from unit.cli import main
from unit.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs/examples"


@pytest.fixture
def files(tmp_path):
    for name in ("city-game.yaml", "city-example.yaml", "classic-game.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


def said(text, language: str = "fr") -> str:
    return text.say(i18n.words(language))


def run_cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "unit.cli", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


# --- 1. one writer at a time, across processes ----------------------------------------------------------------


def test_eight_command_line_payments_at_once_are_all_in_the_file(files):
    # Issue 28: « 8 pay at once: 5 printed their payment and exited 0, the file held 2. » The folder's lock makes
    # them take turns: each reads the file as the one before left it.
    game = files / "city-game.yaml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "unit.cli", "pay", str(game), "Bruno", "Alice", "10k", "--json"]
    started = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(8)]
    results = []
    for process in started:
        out, err = process.communicate(timeout=60)
        results.append((process.returncode, out, err))
    paid = [r for r in results if r[0] == 0]
    assert all(status in (0, 2) for status, _out, _err in results), results
    assert all(b"Traceback" not in err for _s, _o, err in results)
    after = position.load(str(game))
    assert len(after.history) == len(paid) == 8  # waiting its turn, none is refused, none is lost
    assert after.players[1].cash == 9_800_000 - 8 * 10_000
    assert ledger.differences(after) == ()


def test_a_writer_that_finds_the_game_changed_since_its_version_is_refused_and_writes_nothing(files):
    game = files / "city-game.yaml"
    read = gamefile.read(game)
    assert gamefile.apply(game, actions.Salary("Bruno")).file.game.revision == 1
    before = game.read_bytes()
    with pytest.raises(gamefile.Changed):  # a page's tap from the version before
        gamefile.apply(game, actions.Salary("Bruno"), expected=read.version, kept=read)
    assert game.read_bytes() == before


def test_a_version_never_repeats_so_a_form_from_before_an_undo_is_refused(files):
    # Issue 28: « after an undo, an old form becomes valid again and pays again, because the page's version is the
    # file's digest, which repeats. »
    game = files / "city-game.yaml"
    first = gamefile.read(game)
    paid = gamefile.apply(game, actions.Salary("Bruno"), expected=first.version, kept=first)
    undone = gamefile.undo(game, 1, expected=paid.file.version, kept=paid.file)
    assert undone.file.game.players == first.game.players and undone.file.version != first.version
    assert undone.file.game.revision == 2
    with pytest.raises(gamefile.Changed):
        gamefile.apply(game, actions.Salary("Bruno"), expected=first.version)


def test_the_lock_is_the_folders_and_a_writer_held_too_long_is_refused(files, monkeypatch):
    from unit import files as lock

    monkeypatch.setattr(gamefile, "LOCK_WAIT", 0.05)
    game = files / "city-game.yaml"
    before = game.read_bytes()
    with lock.locked(files, 1.0), pytest.raises(gamefile.Busy) as busy:
        gamefile.apply(game, actions.Salary("Bruno"))
    assert "rien n'est écrit" in busy.value.say(i18n.words("fr")) and game.read_bytes() == before
    assert gamefile.status(busy.value) == 409


# --- 2. never write what cannot be read back --------------------------------------------------------------


def test_a_payment_past_the_largest_amount_is_refused_and_the_file_still_reads(files, capsys):
    # Issue 28 (a): « reçoit de la banque 1000000M » took a player past 10^12, and the file read no more.
    game = files / "city-game.yaml"
    before = game.read_bytes()
    assert main(["pay", str(game), "banque", "Chloé", "1000000M"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pas plus de M 1000000M par joueur" in err and "rien n'est écrit" in err
    assert game.read_bytes() == before and position.load(str(game)).players[2].cash == 21_300_000
    with pytest.raises(ActionRefused) as refused:
        bank.apply(position.load(str(game)), actions.SetCash("Chloé", 10**12 + 1))
    assert refused.value.key == "bank.cash_range"


def test_a_key_after_the_history_is_never_spliced_into(files, capsys):
    # Issue 28 (b): a hand-written file with `title:` after `history:`: the new entry went after that key and the
    # file no longer parsed. The history is appended only after a structure it knows; else the whole file is written.
    game = files / "city-game.yaml"
    assert main(["pay", str(game), "Bruno", "Alice", "100k"]) == 0
    game.write_text(game.read_text(encoding="utf-8") + "title: Soirée du vendredi\n", encoding="utf-8")
    assert main(["pay", str(game), "Bruno", "Alice", "200k"]) == 0
    capsys.readouterr()
    read = position.load(str(game))
    assert read.title == "Soirée du vendredi" and [e.payment.amount for e in read.history] == [100_000, 200_000]
    assert game.read_text(encoding="utf-8") == position.dumps(read, "city-example.yaml")


def test_undoing_a_forged_entry_is_refused_with_its_reason_and_writes_nothing(files, capsys):
    # Issue 28 (c): undoing a forged entry wrote a square the edition does not have: the file read no more.
    game = files / "city-game.yaml"
    forged = "history:\n- what: pay\n  from: Alice\n  amount: 1k\n  changes:\n"
    forged += "  - {player: Alice, square: Atlantide, before: {}, after: null, at: 0}\n"
    game.write_text(game.read_text(encoding="utf-8") + forged, encoding="utf-8")
    before = game.read_bytes()
    assert main(["undo", str(game)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rien n'est écrit : le fichier ne se relirait pas" in err and "Atlantide" in err
    assert game.read_bytes() == before
    position.load(str(game))  # still reads


# --- 3. bounded work on every file ------------------------------------------------------------------------


def alias_file(path: Path) -> None:
    """Issue 28: 262 KB of YAML aliases, one list of 2,000 changes shared by 2,000 entries (4 million to read)."""
    lines = [path.read_text(encoding="utf-8"), "history:"]
    change = "{player: Alice, field: exemption_card, before: false, after: false}"
    lines.append("- what: pay\n  from: Alice\n  to: Bruno\n  amount: 1k\n  changes: &many")
    lines += [f"  - {change}"] * 2000
    lines += ["- {what: pay, from: Alice, to: Bruno, amount: 1k, changes: *many}"] * 2000
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "argv",
    [["pay", "Alice", "Bruno", "10k"], ["undo"], ["buy", "Chloé", "halles"], ["history", "--json"], ["fortune"]],
)
def test_a_file_of_aliases_is_one_line_before_any_history_is_read(files, capsys, monkeypatch, argv):
    game = files / "city-game.yaml"
    alias_file(game)
    assert game.stat().st_size > 200_000
    before = game.read_bytes()

    def never(*args, **kwargs):
        raise AssertionError("the history of an alias file was read")

    monkeypatch.setattr(histories, "parse", never)  # the refusal comes first: no work grows with the aliases
    assert main([argv[0], str(game), *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "alias YAML" in err and game.read_bytes() == before


def test_a_file_of_aliases_is_refused_by_a_command_in_its_own_process(files):
    game = files / "city-game.yaml"
    alias_file(game)
    done = run_cli("history", str(game), "--json", cwd=files)  # a hang would be the timeout: 60 s
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "alias YAML" in done.stderr


def test_an_anchor_used_once_and_an_asterisk_in_a_note_are_no_alias(files, capsys):
    game = files / "city-game.yaml"
    text = game.read_text(encoding="utf-8").replace("players:", "players: &everyone", 1)
    game.write_text(text, encoding="utf-8")
    assert main(["pay", str(game), "Bruno", "Alice", "10k", "--for", "*carte* & co"]) == 0
    assert position.load(str(game)).history[-1].note == "*carte* & co"


# --- 5. no money vanishes -------------------------------------------------------------------------------


def test_a_player_with_cash_is_removed_only_by_a_bankruptcy_entry(files, capsys):
    # Issue 28: « Retirer … de la partie » removed a player who still had cash: 1,600 vanished with no entry.
    game = files / "city-game.yaml"
    before = game.read_bytes()
    assert main(["leave", str(game), "Chloé"]) == 2
    err = capsys.readouterr().err
    assert "Chloé a encore M 21,3M et 1 propriété(s) : seule une faillite" in err and game.read_bytes() == before
    assert main(["out", str(game), "Chloé"]) == 0  # the bankruptcy: to the bank, an entry with its undo
    read = position.load(str(game))
    assert [p.name for p in read.players] == ["Alice", "Bruno"] and read.history[-1].what == "out"
    assert read.history[-1].payment == histories.Payment("Chloé", None, 21_300_000)
    assert main(["undo", str(game)]) == 0
    assert without_revision(game.read_bytes()) == without_revision(
        position.dumps(position.load(str(EXAMPLES / "city-game.yaml")), "city-example.yaml")
    )


def test_a_player_with_nothing_leaves_and_comes_back_by_entries(files, capsys):
    game = files / "city-game.yaml"
    assert main(["join", str(game), "Zoé", "--cash", "M 0"]) == 0
    assert main(["leave", str(game), "Zoé"]) == 0
    out = capsys.readouterr().out
    assert "Zoé rejoint la partie" in out and "Zoé quitte la partie" in out
    read = position.load(str(game))
    assert [e.what for e in read.history] == ["join", "leave"] and ledger.differences(read) == ()
    assert main(["undo", str(game)]) == 0 and [p.name for p in position.load(str(game)).players][-1] == "Zoé"


# --- 6. every name one line; serve's folders ------------------------------------------------------------


@pytest.mark.parametrize("name", ["Bob\nGagnant : Mallory", "\x1b[31mBob", "Bob\u202e"])
def test_a_name_with_a_control_character_is_refused_in_one_line(files, capsys, name):
    assert main(["game", "new", "classic-fr", "--players", f"Alice,{name}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--players: un nom de joueur tient sur une ligne" in err
    game = files / "city-game.yaml"
    before = game.read_bytes()
    assert main(["join", str(game), name]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and game.read_bytes() == before


def test_the_shared_name_check_is_the_pages_and_the_command_lines():
    from unit.calculator.names import player_name

    assert player_name("  Léa  ", "name") == "Léa"
    for bad in ("", "\t", "a" * 41, "Bob\nX", "\x1b[2J"):
        with pytest.raises(UserError):
            player_name(bad, "name")


@pytest.mark.parametrize("option", ["--data", "--state-dir"])
def test_serve_on_a_file_where_a_folder_is_wanted_is_one_line_at_start(tmp_path, option):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    for given in (a_file, a_file / "below"):
        done = run_cli("serve", option, str(given), "--port", "65000", cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert f"monopoly-city: {option}: {given} : un dossier est attendu, et {a_file} est un fichier" in done.stderr


# --- 3 (issue 27). no slip recorded silently ----------------------------------------------------------


def test_a_city_amount_under_10k_is_refused_on_the_command_line_unless_written_in_full(files, capsys):
    game = files / "city-game.yaml"
    before = game.read_bytes()
    assert main(["pay", str(game), "Bruno", "Alice", "500"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MONTANT: 500 ? M 500 ou M 500k ?" in err and game.read_bytes() == before
    assert main(["buy", str(game), "Chloé", "halles", "--price", "600"]) == 2
    assert "--price: 600 ? M 600 ou M 600k ?" in capsys.readouterr().err
    assert main(["pay", str(game), "Bruno", "Alice", "M 500"]) == 0  # in full: the currency written
    assert main(["pay", str(game), "Bruno", "Alice", "500k"]) == 0
    assert [e.payment.amount for e in position.load(str(game)).history] == [500, 500_000]
    classic = files / "classic-game.yaml"
    assert main(["pay", str(classic), "Léa", "Malik", "50"]) == 0  # a classic game's amounts are such numbers


# --- issue 27, item 1: every change an entry; undo always right -----------------------------------------


def test_a_change_made_by_hand_is_named_by_undo_then_recorded_and_undone(files, capsys):
    game = files / "city-game.yaml"
    assert main(["build", str(game), "docks", "--residential", "1"]) == 0
    capsys.readouterr()
    text = game.read_text(encoding="utf-8")
    players, _, rest = text.partition("start:")
    game.write_text(players.replace("residential: 4", "residential: 6", 1) + "start:" + rest, encoding="utf-8")
    before = game.read_bytes()
    assert main(["undo", str(game)]) == 2
    err = capsys.readouterr().err
    assert "modifié à la main" in err and "Alice, Docks, résidentiels : 4 selon l'historique, 6 dans le fichier" in err
    assert game.read_bytes() == before
    assert main(["check", str(game)]) == 1
    assert "[ledger]" in capsys.readouterr().out
    assert main(["record", str(game)]) == 0
    assert "modification à la main inscrite · Docks : résidentiels 4 → 6" in capsys.readouterr().out
    assert main(["check", str(game)]) == 0
    assert main(["undo", str(game), "2"]) == 0  # the hand's change, then the build
    out = capsys.readouterr().out
    assert "Docks : résidentiels 6 → 3" in out and "vérifié" in out
    assert position.load(str(game)).players == position.load(str(EXAMPLES / "city-game.yaml")).players


def test_any_other_write_records_the_change_made_by_hand_first_and_says_so(files, capsys):
    game = files / "city-game.yaml"
    assert main(["salary", str(game), "Bruno", "--pay"]) == 0
    text = game.read_text(encoding="utf-8").replace("cash: 21,3M", "cash: 22M", 1)  # Chloé, in the players
    game.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["pay", str(game), "Chloé", "Alice", "100k"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Inscrit d'abord : banque → Chloé · M 700k · modification à la main inscrite"
    read = position.load(str(game))
    assert [e.what for e in read.history] == ["salary", "hand", "pay"] and ledger.differences(read) == ()


def test_the_table_s_own_changes_are_entries_with_their_lines_and_undo(files, capsys):
    game = files / "city-game.yaml"
    start = position.load(str(game))
    steps = [
        (["place", str(game), "Vieux Moulin", "--station"], "gare placée sur Vieux Moulin"),
        (["place", str(game), "Plein Ouest", "--hazard", "décharge"], "permis de construire · Plein Ouest"),
        (["place", str(game), "Docks", "--remove", "hazard"], "Docks : bâtiment nuisible prison → aucun"),
        (["card", str(game), "Bruno"], "carte exonération de loyer · Bruno · carte exonération de loyer : non → oui"),
        (["card", str(game), "banque"], "Bruno · carte exonération de loyer : oui → non"),
    ]
    for argv, says in steps:
        assert main(argv) == 0, capsys.readouterr().err
        assert says in capsys.readouterr().out
    read = position.load(str(game))
    assert [e.what for e in read.history] == ["station", "place", "place", "card", "card"]
    assert ledger.differences(read) == () and main(["check", str(game)]) == 0
    assert main(["undo", str(game), "5"]) == 0
    assert position.load(str(game)).players == start.players


def test_an_owner_corrected_then_an_earlier_entry_undone_gives_everything_back():
    # Issue 27: « Corriger sans payer → Propriétaire » recorded nothing; « Annuler jusqu'ici » gave Bruno's M 3M back
    # while his two districts stayed with Alice. The correction is an entry now: undone with the rest.
    game = position.load(str(EXAMPLES / "city-game.yaml"))
    game, _ = bank.apply(game, actions.Trade("Bruno", "Chloé", (), 3_000_000))  # Chloé pays Bruno M 3M
    for square, to in (("Port Sud", "Alice"), ("Front de Mer", "Bruno")):
        game, entry = bank.apply(game, actions.Give(square, to))
        assert entry.what == "correct"
    undone = bank.undo(game, 3)
    start = position.load(str(EXAMPLES / "city-game.yaml"))
    assert undone.game.players == start.players and undone.checked
    lines = [said(line) for line in undone.moves]
    assert "Port Sud : Alice → Bruno" in lines and "Bruno : M 12,8M → M 9,8M" in lines


def test_undo_checks_what_it_says_and_names_every_entry_it_took_back():
    game = position.load(str(EXAMPLES / "classic-game.yaml"))
    for action in (actions.Salary("Léa"), actions.Pay("Léa", "Malik", 10), actions.SetCash("Bob", 5)):
        game, _ = bank.apply(game, action)
    undone = bank.undo(game, 3)
    assert [e.what for e in undone.entries] == ["correct", "pay", "salary"] and undone.checked
    legacy = position.Game(game.source, game.edition, game.players, game.history)  # no start: taken back
    assert bank.undo(legacy, 1).checked


def test_a_rule_checked_correction_is_refused_with_the_rule(files):
    game = position.load(str(files / "city-game.yaml"))
    with pytest.raises(ActionRefused) as refused:
        bank.apply(game, actions.Correct("Docks", "residential", 9))
    assert refused.value.key == "calculator.check.max_blocks"
    assert bank.allows(game, actions.Build("Opéra", stadium=True)) is not None  # a second stadium in the game? no
    offered = {type(o.action).__name__ for o in bank.offers(game, bank.rules.of(game), square="Vieux Moulin")}
    assert "Mortgage" in offered and "Lift" not in offered and "PayRent" in offered


def test_the_walk_through_of_the_ledger_in_the_docs_is_what_the_commands_print(files, capsys):
    """docs/calculator.md's evening at the bank, from the rent to the change made by hand and its undo."""
    doc = (ROOT / "docs/calculator.md").read_text(encoding="utf-8")
    game = str(files / "city-game.yaml")
    steps = [
        ["pay", game, "bruno", "--rent", "docks"],
        ["build", game, "docks", "--residential", "1", "--industrial", "1"],
        ["salary", game, "bruno", "--pay"],
        ["undo", game],
        ["pay", game, "Bruno", "Alice", "500"],
        ["place", game, "Vieux Moulin", "--station"],
        ["card", game, "Chloé"],
        "by hand",
        ["undo", game],
        ["record", game],
        ["undo", game, "2"],
    ]
    for argv in steps:
        if argv == "by hand":  # « Docks passe à 5 résidentiels », in the players
            text = (files / "city-game.yaml").read_text(encoding="utf-8")
            players, _, rest = text.partition("start:")
            (files / "city-game.yaml").write_text(
                players.replace("residential: 4,", "residential: 5,", 1) + "start:" + rest, encoding="utf-8"
            )
            continue
        main(argv)
        out, err = capsys.readouterr()
        shown = out + err.removeprefix("monopoly-city: ").replace("monopoly-city: ", "")
        for line in shown.splitlines():
            assert line in doc, line
