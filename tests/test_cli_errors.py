"""argparse's own errors (a missing argument, a bad choice) are errors like every other: one line, exit 2,
in the table's language."""

from __future__ import annotations

import pytest

from unit.cli import main

CASES = [
    (
        ["simulate"],
        "arguments obligatoires manquants : SCÉNARIO.yaml",
        "the following arguments are required: SCENARIO",
    ),
    (["fortune", "x.yaml", "--variant", "slow"], "choix invalide : 'slow'", "invalid choice: 'slow'"),
    (["simulate", "x.yaml", "--seed", "many"], "valeur invalide (nombre entier) : 'many'", "invalid int value: 'many'"),
    (
        ["edition", "template"],
        "arguments obligatoires manquants : MODÈLE",
        "the following arguments are required: KIND",
    ),
    (["bogus"], "argument COMMANDE : choix invalide : 'bogus'", "argument COMMAND: invalid choice: 'bogus'"),
    (["run", "--s", "x"], "option ambiguë : --s peut être --state-dir, --script", "ambiguous option: --s could match"),
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


@pytest.mark.parametrize(
    ("argv", "french", "english"),
    [
        (
            ["pay", "x.yaml", "Bruno", "Alice", "-500k"],
            "-500k : un montant s'écrit sans signe moins : écrivez 500k ; c'est l'ordre qui dit qui paie : "
            "pay PARTIE.yaml PAYEUR BÉNÉFICIAIRE 500k",
            "-500k: an amount is written without a minus sign: write 500k; the order says who pays: "
            "pay GAME.yaml PAYER PAYEE 500k",
        ),
        (
            ["buy", "x.yaml", "Bruno", "Docks", "--price", "-1,5M"],
            "-1,5M : un montant s'écrit sans signe moins : écrivez 1,5M",
            "-1,5M: an amount is written without a minus sign: write 1,5M",
        ),
    ],
)
def test_an_amount_typed_with_a_minus_says_how_to_write_it(capsys, argv, french, english):
    # argparse reads « -500k » as an option: « arguments inconnus : -500k » did not say what to do.
    for extra, expected in (([], french), (["--lang", "en"], english)):
        with pytest.raises(SystemExit) as caught:
            main(argv + extra)
        err = capsys.readouterr().err
        assert caught.value.code == 2 and err == f"monopoly-city: {expected}\n"


def test_a_negative_number_argparse_reads_is_refused_by_the_rules(capsys, tmp_path):
    game = tmp_path / "g.yaml"
    assert main(["game", "new", "classic-fr", "--players", "Bruno,Alice"]) == 0
    game.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["pay", str(game), "Bruno", "Alice", "-500"]) == 2
    assert capsys.readouterr().err == (  # as « -500k » and « −500k » are said: the order says who pays
        "monopoly-city: -500 : un montant s'écrit sans signe moins : écrivez 500 ; "
        "c'est l'ordre qui dit qui paie : pay PARTIE.yaml PAYEUR BÉNÉFICIAIRE 500\n"
    )


@pytest.mark.parametrize("extra", [["--lang", "en"], ["--lang=en"]])
def test_no_command_says_which_are_missing_in_the_language_asked_for(capsys, extra):
    for argv, expected in (([], "arguments obligatoires manquants : COMMANDE"), (extra, "required: COMMAND")):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2 and expected in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run", "--seed", "-12", "--nope"], "--nope"),  # a negative seed argparse read, another mistake
        (["simulate", "--seed", "-12"], "SCENARIO.yaml"),
    ],
)
def test_a_negative_number_argparse_read_is_not_taken_for_the_mistake(capsys, argv, expected):
    # « -12 : un montant s'écrit sans signe moins » named a seed argparse had read, not the mistake it reported.
    with pytest.raises(SystemExit) as caught:
        main(argv + ["--lang", "en"])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and "minus" not in err and expected in err, err


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ([], "monopoly-city: serve: le compagnon du téléphone a besoin de l'extra web (starlette manque) : "),
        (["--lang", "en"], "monopoly-city: serve: the phone companion needs the web extra (starlette is missing): "),
    ],
)
def test_serve_without_the_web_extra_says_how_to_install_it(capsys, monkeypatch, extra, expected):
    import builtins

    real_import = builtins.__import__

    def without_starlette(name, *args, **kwargs):
        if name == "unit.web.server":
            raise ModuleNotFoundError("No module named 'starlette'", name="starlette")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_starlette)
    assert main(["serve", *extra]) == 2
    assert capsys.readouterr().err == f"{expected}pip install -e '.[web]'\n"
