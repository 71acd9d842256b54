"""The last bad inputs of the audit (issue 21, item 8), each one line on stderr and exit status 2, never a traceback.

A 5,000-digit amount on the command line, an output on a full disk, ``serve`` on a port out of range or in use
or on an address not this machine's, a newline in a name (it must not print a fake « Gagnant : Mallory » line),
and a game file written on a full or read-only disk (the file stays as it was).
"""

from __future__ import annotations

import errno
import resource
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from unit import files
from unit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
CLASSIC = EXAMPLES / "classic-game.yaml"
BIG = "1" + "0" * 5000  # past int()'s 4,300 digits


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "command,start",
    [
        (
            ["rent", "--card", f"{BIG} 1 1 1 1 1 1 1 1"],
            "monopoly-city: --card, value for 0 block(s): expected an amount of at most",
        ),
        (["pay", str(CLASSIC), "Bob", "Léa", f"{BIG}k"], "monopoly-city: AMOUNT: expected an amount of at most"),
        (["undo", str(CLASSIC), BIG], "monopoly-city: argument N: expected a whole number, got '100000"),
        (["serve", "--port", "99999"], "monopoly-city: argument --port: expected a port from 1 to 65535, got '99999'"),
        (["serve", "--port", BIG], "monopoly-city: argument --port: expected a port from 1 to 65535, got '10000"),
    ],
)
def test_a_huge_number_on_the_command_line_is_one_short_line(capsys, command, start):
    assert status_of([*command, "--lang", "en"]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith(start), err
    assert len(err) < 200, err


def status_of(command: list[str]) -> int | str | None:
    try:
        return main(command)
    except SystemExit as exit:  # argparse's own errors exit
        return exit.code


def test_a_newline_in_a_name_cannot_fake_a_line(tmp_path, capsys):
    game = tmp_path / "game.yaml"
    shutil.copy(EXAMPLES / "classic-game.yaml", game)
    game.write_text(game.read_text(encoding="utf-8").replace("name: Bob\n", 'name: "Bob\\nGagnant : Mallory"\n'))
    # Issue 28 item 6: such a name is refused by the loader, in one line naming the file and the key, the name escaped.
    for command in (["fortune", str(game)], ["check", str(game)], ["pay", str(game), "Léa", "Malik", "10"]):
        assert main(command) == 2
        out, err = capsys.readouterr()
        assert out == "" and f"{game}: players[0], name: " in one_line(err) and "Bob\\nGagnant : Mallory" in err


def test_a_bad_edition_is_said_with_the_game_file_that_names_it(tmp_path, capsys):
    game = tmp_path / "game.yaml"
    game.write_text("edition: /dev/zero\nplayers:\n  - {name: Bob, cash: 1500, properties: []}\n")
    (tmp_path / "broken.yaml").write_text("game: classic\nname: X\ngroups: 5\n")
    assert main(["fortune", str(game), "--lang", "en"]) == 2
    assert one_line(capsys.readouterr().err) == (
        f"monopoly-city: {game}: edition: /dev/zero: is a device, expected an edition\n"
    )
    game.write_text(game.read_text().replace("/dev/zero", "broken.yaml"))
    assert main(["check", str(game), "--lang", "en"]) == 2
    assert one_line(capsys.readouterr().err).startswith(f"monopoly-city: {game}: edition: {tmp_path / 'broken.yaml'}: ")


def test_a_classic_edition_with_groups_as_a_number_is_one_line(tmp_path, capsys):
    text = (ROOT / "unit/calculator/editions/classic-fr.yaml").read_text(encoding="utf-8")
    start = text.index("\ngroups:") + 1
    end = text.index("\nstreets:")
    edition = tmp_path / "edition.yaml"
    edition.write_text(text[:start] + "groups: 5" + text[end:], encoding="utf-8")
    assert main(["board", str(edition), "--lang", "en"]) == 2
    assert one_line(capsys.readouterr().err) == f"monopoly-city: {edition}: groups: expected a mapping, got number 5\n"


def run(*args: str, stdout=subprocess.PIPE, preexec_fn=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "unit", *args, "--lang", "en"],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=preexec_fn,
        cwd=cwd,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["fortune", str(CLASSIC)],
        ["check", str(CLASSIC)],
        ["history", str(CLASSIC)],
        ["board", "classic-fr"],
        ["game", "new", "classic-fr", "--players", "A,B"],
    ],
)
def test_an_output_on_a_full_disk_is_one_line(command):
    with open("/dev/full", "w") as full:
        result = run(*command, stdout=full)
    assert result.returncode == 2, result.stderr
    assert result.stderr == "monopoly-city: stdout: cannot write the output: No space left on device\n"


def test_serve_on_a_port_in_use_or_an_address_not_here_is_one_line(capsys):
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port), "--lang", "en"]) == 2
        assert one_line(capsys.readouterr().err) == (
            f"monopoly-city: --port: cannot listen on http://127.0.0.1:{port}/: Address already in use\n"
        )
    assert main(["serve", "--host", "192.0.2.1", "--port", str(port), "--lang", "en"]) == 2  # TEST-NET-1
    err = one_line(capsys.readouterr().err)
    assert err == f"monopoly-city: --host: cannot listen on http://192.0.2.1:{port}/: Cannot assign requested address\n"
    assert capsys.readouterr().out == ""  # refused before it says it serves


def no_room() -> None:
    """A full disk: no file may grow (RLIMIT_FSIZE 0); the write fails with EFBIG rather than a SIGXFSZ."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


@pytest.mark.slow
def test_a_verb_on_a_full_disk_is_one_line_and_the_game_file_is_as_it_was(tmp_path):
    game = tmp_path / "game.yaml"
    shutil.copy(CLASSIC, game)
    before = game.read_bytes()
    result = run("pay", str(game), "Bob", "Léa", "10", preexec_fn=no_room)
    assert result.returncode == 2
    assert result.stderr == f"monopoly-city: {game}: cannot write it: File too large (the file is as it was)\n"
    assert game.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.yaml"]  # no temporary file left


def test_a_verb_on_a_read_only_disk_is_one_line_and_the_game_file_is_as_it_was(tmp_path, capsys, monkeypatch):
    game = tmp_path / "game.yaml"
    shutil.copy(CLASSIC, game)
    before = game.read_bytes()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(files, "_temporary", read_only)  # where unit.files writes first
    assert main(["pay", str(game), "Bob", "Léa", "10", "--lang", "en"]) == 2
    out, err = capsys.readouterr()
    assert err == f"monopoly-city: {game}: cannot write it: Read-only file system (the file is as it was)\n"
    assert out == "" and game.read_bytes() == before
