"""The bad-input corpus (tests/data/bad/): every malformed file gets exit 2 and one line, never a traceback.

Each file is fed to the command that reads its kind: configurations to ``simulate --config``, scenarios to
``simulate``, editions to ``board``, game files to ``check``. The one line on stderr must name the file and
carry the message expected for it (tests/data/bad/expected.yaml); nothing may be printed on stdout.

Every command speaks French by default and English with ``--lang en``: the expected line is either one
text (the same in both languages) or ``{en: ..., fr: ...}``, and both languages are checked. The English
lines are the contract the English text has always had.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from unit.cli import main
from unit.yamlfile import escape

BAD = Path(__file__).parent / "data" / "bad"
EXPECTED = yaml.safe_load((BAD / "expected.yaml").read_text(encoding="utf-8"))
GOOD_SCENARIO = Path(__file__).parent.parent / "docs" / "examples" / "demo-game.yaml"


CASES = sorted((relative, lang) for relative in EXPECTED for lang in ("fr", "en"))


def expected(relative: str, lang: str | None) -> str:
    text = EXPECTED[relative]
    return text if isinstance(text, str) else text[lang]


def command_for(relative: str) -> list[str]:
    path = str(BAD / relative)
    kind = relative.split("/")[0]
    return {
        "config": ["simulate", str(GOOD_SCENARIO), "--config", path],
        "scenario": ["simulate", path],
        "edition": ["board", path],
        "game": ["check", path],
    }[kind]


def test_the_corpus_is_large_and_complete():
    on_disk = {str(p.relative_to(BAD)) for p in BAD.glob("*/*")}
    assert on_disk == set(EXPECTED)
    assert len(EXPECTED) >= 60
    assert {name.split("/")[0] for name in EXPECTED} == {"config", "scenario", "edition", "game"}


@pytest.mark.parametrize("relative,lang", CASES)
def test_bad_file_exits_2_with_one_line_naming_it(capsys, relative, lang):
    # In-process: any exception other than the one-line error would escape main() and fail the test.
    status = main(command_for(relative) + (["--lang", lang] if lang == "en" else []))
    out, err = capsys.readouterr()
    assert status == 2, err
    assert out == ""  # never a partial output
    assert err.count("\n") == 1, err
    assert escape(err[:-1]) == err[:-1], err  # control characters escaped: nothing moves the cursor
    assert str(BAD / relative) in err, err
    assert expected(relative, lang) in err, err


@pytest.mark.parametrize("relative", ["config/binary.yaml", "scenario/out-of-order.yaml", "game/syntax-error.yaml"])
def test_no_traceback_from_the_real_command(relative):
    result = subprocess.run(
        [sys.executable, "-m", "unit", *command_for(relative)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


# --- special files, made by the test: each kind of file is refused before a byte is read ---------------


def special_file(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A path that is not a readable YAML file, and a piece of the line it must produce."""
    path = tmp_path / f"{kind}.yaml"
    if kind == "fifo":
        os.mkfifo(path)  # no writer: reading it would wait forever
        return path, "is a named pipe, expected a"
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")  # endless: reading it would fill the memory
        return path, "is a device, expected a"
    if kind == "directory":
        path.mkdir()
        return path, "is a directory, expected a"
    if kind == "too-large":
        path.write_bytes(b"# padding\n" * 200_000)  # 2 MB of valid YAML
        return path, "too large (more than 1000000 bytes)"
    if kind == "dangling-link":
        path.symlink_to(tmp_path / "nowhere")
        return path, "no such"
    raise ValueError(kind)


SPECIAL = ["fifo", "dev-zero", "directory", "too-large", "dangling-link"]


def command_for_path(kind: str, path: Path) -> list[str]:
    return {
        "config": ["simulate", str(GOOD_SCENARIO), "--config", str(path)],
        "scenario": ["simulate", str(path)],
        "edition": ["board", str(path)],
        "game": ["check", str(path)],
        "run-config": ["run", "--backend", "headless", "--config", str(path)],
        "run-script": ["run", "--backend", "headless", "--script", str(path)],
    }[kind]


@pytest.mark.parametrize("reader", ["config", "scenario", "edition", "game", "run-config", "run-script"])
@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.slow
def test_a_special_file_is_one_line_and_never_a_hang(tmp_path, kind, reader):
    path, expected = special_file(tmp_path, kind)
    result = subprocess.run(
        [sys.executable, "-m", "unit", *command_for_path(reader, path), "--lang", "en"],
        capture_output=True,
        text=True,
        timeout=30,  # a hang fails here
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert str(path) in result.stderr and expected in result.stderr, result.stderr


def test_unwritable_outputs_are_one_line(tmp_path):
    """`simulate > /dev/full` and `--frames` on a file: one line, exit 2; nothing else on stderr."""
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "unit", "simulate", str(GOOD_SCENARIO), "--lang", "en"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
        )
    assert result.returncode == 2
    assert result.stderr == "monopoly-city: stdout: cannot write the trace: No space left on device\n"
    a_file = tmp_path / "frames"
    a_file.write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "unit", "run", "--backend", "headless", "--frames", str(a_file), "--lang", "en"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr == f"monopoly-city: {a_file}: is not a folder, expected a folder for the frames\n"


def test_a_missing_config_is_refused_even_when_lang_is_given(capsys):
    examples = Path(__file__).parent.parent / "docs" / "examples"
    assert main(["fortune", str(examples / "classic-game.yaml"), "--lang", "en", "--config", "/nonexistent"]) == 2
    assert capsys.readouterr().err == "monopoly-city: /nonexistent: no such configuration file\n"
