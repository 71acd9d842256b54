"""Editions: work bounded by what the game needs (issue 21, item 2).

A board has 40 squares: an edition with more is refused with one line before its squares are read; the
checks are linear (counted in name comparisons, not timed); the phone's card check reads the edition once
however many fields are wrong; an edition read again unchanged is not parsed again.
"""

from __future__ import annotations

import pytest

from unit import fields, i18n
from unit.calculator import edition
from unit.errors import UserError

pytest.importorskip("starlette")

from unit.web import editions  # noqa: E402


def city(districts: int, per_group: int = 3) -> dict:
    """A City edition with ``districts`` complete districts, ``per_group`` to a group."""
    card = {"price": 2_000_000, "residential_cost": 500_000, "industrial_cost": 1_000_000, "rents": [100_000] * 9}
    groups = []
    for start in range(0, districts, per_group):
        names = range(start, min(start + per_group, districts))
        groups.append(
            {
                "name": f"groupe {start // per_group}",
                "skyscraper_cost": 5_000_000,
                "districts": [{"name": f"quartier {n}", **card} for n in names],
            }
        )
    return {"game": "city", "name": "grande ville", "hazards": {"prison": 4}, "groups": groups}


def classic(streets: int) -> dict:
    """A classic edition with ``streets`` streets, four to a group (no stations, utilities nor taxes)."""
    groups = {f"g{n}": {"house_cost": 100, "size": 4} for n in range(streets // 4)}
    rows = [
        {"pos": n % 40, "name": f"Rue {n}", "group": f"g{n // 4}", "price": 100, "house_cost": 100, "rent": [1] * 6}
        for n in range(streets)
    ]
    rules = {key: 0 for key, kind in edition.CLASSIC_RULES.items() if kind in ("amount", "count")}
    rules |= {key: 0.5 for key, kind in edition.CLASSIC_RULES.items() if kind == "ratio"}
    rules |= {key: False for key, kind in edition.CLASSIC_RULES.items() if kind == "flag"}
    return {"game": "classic", "name": "grand plateau", **rules, "groups": groups, "streets": rows}


def say(error: UserError, language: str = "en") -> str:
    return error.say(i18n.words(language))


# --- the bound -------------------------------------------------------------------------------------------


def test_an_edition_of_40_districts_reads_and_one_of_41_gets_one_line() -> None:
    assert len(edition.parse(city(40), "big.edition.yaml").districts) == 40
    with pytest.raises(UserError) as refused:
        edition.parse(city(41), "big.edition.yaml", "en")
    assert say(refused.value) == (
        "big.edition.yaml: groups: 41 districts, at most 40: a board has 40 squares (Monopoly City: 22 districts)"
    )


def test_the_audits_1500_district_edition_is_refused_before_a_district_is_read(monkeypatch) -> None:
    calls = count_name_keys(monkeypatch)
    with pytest.raises(UserError, match="1500 districts, at most 40"):
        edition.parse(city(1500, per_group=1), "audit.edition.yaml", "en")
    assert calls == [0]


def test_a_classic_edition_of_more_than_40_squares_gets_one_line() -> None:
    assert len(edition.parse(classic(40), "plateau.yaml").squares) == 40
    for language, line in (
        ("en", "plateau.yaml: streets: more than 40 squares: a board has 40"),
        ("fr", "plateau.yaml: streets: plus de 40 cases : un plateau en a 40"),
    ):
        with pytest.raises(UserError) as refused:
            edition.parse(classic(44), "plateau.yaml", language)
        assert say(refused.value, language) == line


# --- linear -------------------------------------------------------------------------------------------


def count_name_keys(monkeypatch) -> list[int]:
    """How many times names are put in their comparable form (the unit of work of the duplicate checks)."""
    calls = [0]
    real = fields.name_key

    def counted(name: str) -> str:
        calls[0] += 1
        return real(name)

    monkeypatch.setattr(fields, "name_key", counted)
    return calls


@pytest.mark.parametrize("kind", ["city", "classic"])
def test_the_checks_are_linear_in_the_number_of_squares(monkeypatch, kind) -> None:
    """Four times the squares, four times the work (it was sixteen: each name compared with every other)."""
    monkeypatch.setattr(edition, "MAX_SQUARES", 10**6)
    monkeypatch.setattr(edition, "MAX_DISTRICTS", 10**6)
    calls = count_name_keys(monkeypatch)
    work = []
    for size in (100, 400):
        calls[0] = 0
        edition.parse(city(size) if kind == "city" else classic(size), "x.yaml")
        work.append(calls[0])
    assert work[0] >= 100 and work[1] <= 4 * work[0] + 8, work


# --- the card check: one reading ------------------------------------------------------------------------


def test_a_card_with_14_wrong_fields_is_checked_in_one_reading_of_the_largest_edition(monkeypatch) -> None:
    full = edition.parse(city(edition.MAX_DISTRICTS - 1), "full")
    readings = [0]
    real = edition.parse

    def counted(*args, **kwargs):
        readings[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(edition, "parse", counted)
    form = editions.card_form(full, 10, "fr")
    amounts = (*editions.CARD_AMOUNTS, *editions.RENT_FIELDS, "skyscraper_cost")
    wrong = form | dict.fromkeys(amounts, "-1") | {"name": ""}  # the audit's card: 14 wrong fields
    errors, result = editions.checked(editions.card_builder(full, 10), editions.card_values(wrong), "x", "en")
    assert readings == [1] and result is None
    assert set(errors) == {"name", *amounts} and len(errors) == 14
    readings[0] = 0
    errors, result = editions.checked(editions.card_builder(full, 10), editions.card_values(form), "x", "en")
    assert readings == [1] and errors == {} and result is not None


def test_one_reading_gives_the_same_lines_as_reading_until_it_loads() -> None:
    """The lines of one reading are those of the loader stopping at each wrong value in turn (as before)."""
    full = edition.parse(city(22), "full")
    wrong = editions.card_form(full, 4, "fr") | {
        "name": "",
        "group": "",
        "price": "beaucoup",
        "rent3": "",
        "rent5": "x",
    }
    errors, _result = editions.checked(editions.card_builder(full, 4), editions.card_values(wrong), "x", "fr")
    values = editions.card_values(wrong)
    expected: dict[str, str] = {}
    build = editions.card_builder(full, 4)
    while True:  # the former check: read, set the first wrong field aside, read again
        data, places = build(values)
        try:
            edition.parse(data, "x", "fr")
        except UserError as error:
            field = places[error.where.removeprefix("x: ")]
            message = error.message
            expected[field] = message if isinstance(message, str) else message.say(i18n.words("fr"))
            values[field] = editions.SET_ASIDE.get(field)
            continue
        break
    assert errors == expected and set(errors) == {"name", "group", "price", "rent3", "rent5"}


# --- parsed once by version --------------------------------------------------------------------------------


def test_an_edition_read_again_unchanged_is_not_parsed_again(tmp_path, monkeypatch) -> None:
    path = tmp_path / "ville.edition.yaml"
    path.write_text("game: city\nname: Ville\nhazards: {prison: 4}\ngroups: []\n", encoding="utf-8")
    readings = [0]
    real = edition.parse

    def counted(*args, **kwargs):
        readings[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(edition, "parse", counted)
    first = edition.load(str(path))
    assert edition.load(str(path)) is first and readings == [1]
    path.write_text("game: city\nname: Autre\nhazards: {prison: 4}\ngroups: []\n", encoding="utf-8")
    assert edition.load(str(path)).name == "Autre" and readings == [2]
    path.write_text("game: city\nname: Autre\nhazards: {prison: 9}\ngroups: []\n", encoding="utf-8")
    for _ in range(2):  # a broken file's line is kept too
        with pytest.raises(UserError, match="hazards.prison"):
            edition.load(str(path))
    assert readings == [3]
