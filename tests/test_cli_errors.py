"""argparse's own errors (a missing argument, a bad choice) are errors like every other: one line, exit 2,
in the table's language."""

from __future__ import annotations

import pytest

from unit.cli import main

CASES = [
    (["simulate"], "arguments obligatoires manquants : SCENARIO.yaml", "the following arguments are required"),
    (["fortune", "x.yaml", "--variant", "slow"], "choix invalide : 'slow'", "invalid choice: 'slow'"),
    (["simulate", "x.yaml", "--seed", "many"], "valeur invalide (int) : 'many'", "invalid int value: 'many'"),
    (["simulate", "x.yaml", "--nope"], "arguments inconnus : --nope", "unrecognized arguments: --nope"),
]


@pytest.mark.parametrize(("argv", "french", "english"), CASES)
def test_a_command_line_mistake_is_one_line_in_the_table_s_language(capsys, argv, french, english):
    for extra, expected in (([], french), (["--lang", "en"], english)):
        with pytest.raises(SystemExit) as caught:
            main(argv + extra)
        err = capsys.readouterr().err
        assert caught.value.code == 2
        assert err.count("\n") == 1 and err.startswith("monopoly-city: ") and "usage:" not in err, err
        assert expected in err and "--help)" in err, err
