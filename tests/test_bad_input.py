"""The bad-input corpus (tests/data/bad/): every malformed file gets exit 2 and one line, never a traceback.

Each file is fed to the command that reads its kind: configurations to ``simulate --config``, scenarios to
``simulate``, editions to ``board``, game files to ``check``. The one line on stderr must name the file and
carry the message expected for it (tests/data/bad/expected.yaml); nothing may be printed on stdout.

Every command speaks French by default and English with ``--lang en``: the expected line is either one
text (the same in both languages) or ``{en: ..., fr: ...}``, and both languages are checked. The English
lines are the contract the English text has always had.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from unit.cli import main

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
    assert str(BAD / relative) in err, err
    assert expected(relative, lang) in err, err


@pytest.mark.parametrize("relative", ["config/binary.yaml", "scenario/out-of-order.yaml", "game/syntax-error.yaml"])
def test_no_traceback_from_the_real_command(relative):
    result = subprocess.run(
        [sys.executable, "-m", "unit", *command_for(relative)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
