"""Money: every amount the game can hold is written exactly and read back to itself, in both languages.

Properties over 0 to the maximum (multiples of 10k, the City's smallest note, and odd amounts too), then
one test per defect found at the table (issue 10), each failing before the fix.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unit import i18n
from unit.calculator import money
from unit.cli import main
from unit.errors import Text, UserError

LANGUAGES = ("fr", "en")
any_amount = st.integers(min_value=0, max_value=money.MAX_AMOUNT)
city_amount = st.integers(min_value=0, max_value=money.MAX_AMOUNT // 10_000).map(lambda n: n * 10_000)
small_amount = st.integers(min_value=0, max_value=100_000_000)  # where the k/M/grouping boundaries are


def digits_of(amount: int) -> str:
    """The significant digits of an amount (no trailing zeros): what a written amount must show."""
    return str(amount).rstrip("0") or "0"


@pytest.mark.parametrize("language", LANGUAGES)
@given(amount=st.one_of(any_amount, city_amount, small_amount))
def test_every_amount_reads_back_to_itself(language, amount):
    assert money.parse(money.city(amount, language), "test") == amount


@pytest.mark.parametrize("language", LANGUAGES)
@given(amount=st.one_of(any_amount, city_amount, small_amount))
def test_no_digit_is_lost_or_invented(language, amount):
    """The written digits, once the unit is applied, are the amount's significant digits, in order."""
    written = money.city(amount, language)
    assert written.startswith("M ")
    shown = re.sub(r"[^0-9]", "", written)
    assert (shown.rstrip("0") or "0") == digits_of(amount)


@given(amount=st.one_of(any_amount, small_amount))
def test_classic_amounts_are_plain_numbers(amount):
    assert money.classic(amount) == str(amount)
    assert money.parse(money.classic(amount), "test") == amount


@given(amount=city_amount)
def test_the_languages_differ_only_by_the_decimal_mark(amount):
    assert money.city(amount, "fr").replace(",", ".") == money.city(amount, "en")


# --- the defects of issue 10 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "amount,fr,en",
    [
        (10_000_000, "M 10M", "M 10M"),
        (20_000_000, "M 20M", "M 20M"),
        (40_000_000, "M 40M", "M 40M"),
        (100_000_000, "M 100M", "M 100M"),
        (12_500_000, "M 12,5M", "M 12.5M"),
        (37_700_000, "M 37,7M", "M 37.7M"),
        (1_050_000, "M 1,05M", "M 1.05M"),
        (500_000, "M 500k", "M 500k"),
        (0, "M 0", "M 0"),
        (1_234, "M 1\u202f234", "M 1,234"),
    ],
)
def test_multiples_of_ten_million_are_not_shown_ten_times_too_small(amount, fr, en):
    """Defect: money.city(10_000_000) gave « M 1M », 40M gave « M 4M »."""
    assert money.city(amount, "fr") == fr and money.city(amount, "en") == en


def test_a_fortune_of_40m_ranks_and_shows_above_37_7m(capsys, tmp_path):
    path = tmp_path / "game.yaml"
    path.write_text(
        f"edition: {_example()}\nplayers:\n  - {{name: Ana, cash: 40M}}\n  - {{name: Ben, cash: 37.7M}}\n",
        encoding="utf-8",
    )
    assert main(["fortune", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1. Ana  M 40M" in out and "2. Ben  M 37,7M" in out, out


def _example() -> str:
    return str(Path(__file__).resolve().parent.parent / "docs/examples/city-example.yaml")


@pytest.mark.parametrize(
    "text,amount",
    [
        ("500.000", 500_000),  # « 500 k (500.000) »
        ("37.700.000", 37_700_000),  # « M 37.700.000 »
        ("M 37.700.000", 37_700_000),
        ("100.000", 100_000),
        ("500 000", 500_000),
        ("500\u202f000", 500_000),
        ("1,234,567", 1_234_567),
        ("500 k", 500_000),
        ("12,5M", 12_500_000),
        ("12.5M", 12_500_000),
        ("M 2M", 2_000_000),
        ("1 500k", 1_500_000),
        ("1,125M", 1_125_000),
    ],
)
def test_amounts_written_the_rule_sheets_way(text, amount):
    """Defect: « 100.000 » was read as M 100 (a factor of 1000, silently)."""
    assert money.parse(text, "test") == amount


@pytest.mark.parametrize(
    "text,fr,en",
    [
        ("1.5", "1.5 est ambigu : écrivez 1,5M, 1,5k", "1.5 is ambiguous: write 1.5M, 1.5k"),
        ("12,50", "12,50 est ambigu : écrivez 12,50M", "12,50 is ambiguous: write 12.50M"),
        ("1,50,000", "attendu un montant", "expected an amount"),
        ("-500k", "-500k : un montant s'écrit sans signe moins : écrivez 500k", "without a minus sign: write 500k"),
        ("∞", "attendu un montant", "expected an amount"),
        ("١٢M", "seuls les chiffres 0 à 9", "only the digits 0 to 9"),
        ("１２", "seuls les chiffres 0 à 9", "only the digits 0 to 9"),
        ("1 2 3", "attendu un montant", "expected an amount"),
        ("1.2345k", "montant entier", "whole amount"),
        ("12 5M", "attendu un montant", "expected an amount"),
        (500.0, "un point fait un nombre décimal", "a dot makes a decimal number"),
    ],
)
def test_ambiguous_or_malformed_amounts_are_refused(text, fr, en):
    for language, message in (("fr", fr), ("en", en)):
        with pytest.raises(UserError, match=re.escape(message)):
            money.parse(text, "test", language)


def test_a_minus_typed_is_told_as_the_command_line_tells_it_and_a_files_as_before():
    # Issue 27: « -500k » on the phone said « attendu un montant d'au moins 0 »; the command line's sentence now,
    # on both (the page and the command line call money.parse); a file's value keeps the loader's sentence.
    with pytest.raises(UserError) as typed:
        money.parse("-500k", "montant", "fr")
    assert typed.value.message == "-500k : un montant s'écrit sans signe moins : écrivez 500k"
    with pytest.raises(UserError, match="au moins 0"):
        money.field("-500k", "cash", "fr")
    for nothing_after in ("-", "- ", "--5", "-abc", "−"):  # no amount after the sign: an amount is expected
        for read in (money.parse, money.field):  # (review of issue 27: not « attendu un montant d'au moins 0, reçu - »)
            with pytest.raises(UserError) as alone:
                read(nothing_after, "montant", "fr")
            said = f"attendu un montant comme 12,5M, 500k ou 1200, reçu le texte {nothing_after.strip()!r}"
            assert alone.value.message == said


def test_a_city_amount_under_10k_typed_bare_is_asked_back():
    # Issue 27: in a City game « 500 » recorded M 500 (nothing there costs under M 10k: a forgotten k).
    assert money.slip("500", 500) == Text("calculator.money.slip", typed="500")
    assert money.slip("500", 500).say(i18n.words("fr")).startswith("500 ? M 500 ou M 500k ?")
    for typed, amount in (("M 500", 500), ("M500", 500), ("500k", 500_000), ("10000", 10_000), ("0", 0)):
        assert money.slip(typed, amount) is None, typed  # written in full, or not under M 10k


def test_a_yaml_decimal_cash_is_refused_not_divided_by_1000(capsys, tmp_path):
    """Defect: ``cash: 500.000`` in a game file was read as 500 (YAML makes it the number 500.0)."""
    path = tmp_path / "game.yaml"
    path.write_text("edition: classic-fr\nplayers:\n  - {name: Bob, cash: 500.000}\n", encoding="utf-8")
    assert main(["fortune", str(path)]) == 2
    assert "Bob, cash: 500.0" in capsys.readouterr().err
    # 1.5 is not 500.000 without its zeros: the table means M 1,5M (or 1,5k), and the line says how to write it.
    path.write_text("edition: classic-fr\nplayers:\n  - {name: Bob, cash: 1.5}\n", encoding="utf-8")
    assert main(["fortune", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        "Bob, cash: 1.5 : pour YAML, c'est un nombre décimal" in err
        and "écrivez 1,5M (1\u202f500\u202f000) ou 1,5k" in err
    )
    assert "500.000" not in err.split(";")[0]
    path.write_text("edition: classic-fr\nplayers:\n  - {name: Bob, cash: '500.000'}\n", encoding="utf-8")
    assert main(["fortune", str(path), "--json"]) == 0
    assert '"cash": 500000' in capsys.readouterr().out


def test_a_card_written_with_dots_is_read_in_thousands(capsys):
    """Defect: ``--card "100.000 …"`` was read as M 100."""
    card = "100.000 200.000 300.000 400.000 500.000 600.000 800.000 1.000.000 1.200.000"
    assert main(["rent", "--card", card, "--industrial", "2", "--json"]) == 0
    assert '"rent": 300000' in capsys.readouterr().out


@given(amount=any_amount, sep=st.sampled_from([" ", ".", ",", "\u202f", "\u00a0"]))
def test_thousands_separated_any_usual_way_read_back(amount, sep):
    """« 500 k (500.000) », « M 37.700.000 »: a space, a dot or a comma before groups of three digits."""
    assert money.parse(f"{amount:,}".replace(",", sep), "test") == amount
    assert money.parse(f"M {amount:,}".replace(",", sep), "test") == amount


@given(thousands=st.integers(min_value=0, max_value=money.MAX_AMOUNT // 1000), mark=st.sampled_from(".,"))
def test_k_and_m_read_back(thousands, mark):
    assert money.parse(f"{thousands}k", "test") == thousands * 1000
    millions, rest = divmod(thousands, 1000)
    decimal = f"{millions}{mark}{rest:03d}M" if rest else f"{millions}M"
    assert money.parse(decimal, "test") == thousands * 1000
