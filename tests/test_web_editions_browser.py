"""The Editions pages in a real browser (Debian's Chromium, as tests/test_web_browser.py).

A three-district invented City edition is entered through the form as a person
would: a wrong value typed shows the loader's message under its field, the
progress moves, each card is saved; the saved file is read back by the loader and
the command line with the typed values, downloaded, and bad uploads change
nothing. ``make golden`` rewrites the screenshots under docs/images/phone/.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from helpers import (  # noqa: E402
    SMALL_PHONE,
    a_box,
    buy,
    cli,
    create,
    pair_page,
    phone,
    screenshot,
    shown_fortunes,
    tap,
)

from unit import i18n  # noqa: E402
from unit.calculator import edition  # noqa: E402
from unit.errors import UserError  # noqa: E402
from unit.web import editions  # noqa: E402

#: The invented edition: (district, group, price, residential, industrial, nine rents, skyscraper).
CARDS = [
    (
        "Rue des Lilas",
        "violet",
        "1,2M",
        "500k",
        "400k",
        ["50k", "200k", "400k", "600k", "800k", "1M", "1,2M", "1,5M", "2M"],
        "3M",
    ),
    (
        "Allée des Pins",
        "violet",
        "1,4M",
        "500k",
        "400k",
        ["60k", "250k", "450k", "650k", "850k", "1,1M", "1,3M", "1,6M", "2,2M"],
        "3M",
    ),
    (
        "Quai du Port",
        "orange",
        "2,5M",
        "1M",
        "800k",
        ["100k", "400k", "800k", "1,2M", "1,6M", "2M", "2,5M", "3M", "4M"],
        "5M",
    ),
]


pytestmark = pytest.mark.browser


def type_card(page, values) -> None:
    name, group, price, residential, industrial, rents, sky = values
    page.fill("#f-name", name)
    page.fill("#f-group", group)
    page.fill("#f-price", price)
    page.fill("#f-residential_cost", residential)
    page.fill("#f-industrial_cost", industrial)
    for j, rent in enumerate(rents):
        page.fill(f"#f-rent{j}", rent)
    page.fill("#f-skyscraper_cost", sky)


def loader_line(body: bytes, folder: Path, name: str, lang: str) -> str:
    """What the command line says of this file, ``name`` in ``folder`` (the loader's line)."""
    path = folder / name
    path.write_bytes(body)
    try:
        edition.load(str(path), language=lang)
    except UserError as error:
        return error.say(i18n.words(lang)).removeprefix(f"{folder}/")
    raise AssertionError("the loader read it")


def test_a_city_edition_entered_card_by_card_is_the_file_the_command_line_reads(chromium, tmp_path):
    state = tmp_path / "state"
    data = state / "calculator"
    with a_box(state) as (base, unit), phone(chromium) as page:
        pair_page(page, base, unit)  # the box's service: a paired phone writes
        page.goto(base + "/editions")
        for name in edition.SHIPPED:  # the built-in editions: listed and downloadable as shipped
            with page.expect_download() as download:
                page.click(f"[data-edition='{name}'] a.download")
            shipped = resources.files("unit.calculator").joinpath(f"editions/{name}.yaml").read_bytes()
            assert Path(download.value.path()).read_bytes() == shipped
        page.fill("#new-name", "Ma Ville")
        page.click("#create")
        page.wait_for_url("**/editions/ma-ville")
        assert page.text_content("#progress").split() == "0 quartier sur 22".split()

        page.click("#add-card")
        page.wait_for_url("**/editions/ma-ville/card")
        name, group, price, residential, industrial, rents, sky = CARDS[0]
        eight = [*rents[:3], "", *rents[4:]]  # 8 rents of 9: never right, so never saved before the 9th
        type_card(page, (name, group, price, residential, industrial, eight, sky))
        page.type("#f-rent3", "-5")  # typed key by key: the check follows the typing
        page.wait_for_selector("#e-rent3:not([hidden])")
        assert "Lilas" not in (data / "ma-ville.edition.yaml").read_text()  # wrong: not saved
        message = page.text_content("#e-rent3")
        assert message == "attendu un montant d'au moins 0, reçu -5"
        assert page.get_attribute("#f-rent3", "aria-invalid") == "true"
        assert page.is_hidden("#e-price")  # the right fields say nothing
        page.fill("#f-rent3", "")
        page.type("#f-rent3", "600")
        page.click("#keys [data-key='k']")  # the number keyboard has no letters: the page's k key
        assert page.input_value("#f-rent3") == "600k"
        page.wait_for_selector("#e-rent3", state="hidden")
        page.wait_for_selector("#autosaved:not([hidden])")  # right: saved as typed, nothing is lost
        assert edition.load(str(data / "ma-ville.edition.yaml")).districts["Rue des Lilas"].rents[3] == 600_000
        assert page.input_value("input[name='n']") == "0"  # the next saves replace this card
        page.click("#save-card")
        page.wait_for_url("**/card?saved=0")
        assert page.text_content("#message") == "Carte enregistrée : Rue des Lilas."
        assert page.text_content("#progress").split() == "1 quartier sur 22".split()
        for values in CARDS[1:]:
            page.goto(base + "/editions/ma-ville/card")
            type_card(page, values)
            page.click("#save-card")
            page.wait_for_selector("#message")
        page.goto(base + "/editions/ma-ville")
        assert page.text_content("#progress").split() == "3 quartiers sur 22".split()
        with page.expect_download() as download:
            page.click("#download")
        saved = (data / "ma-ville.edition.yaml").read_bytes()
        assert Path(download.value.path()).read_bytes() == saved

        loaded = edition.load(str(data / "ma-ville.edition.yaml"))
        for name, group, price, residential, industrial, rents, sky in CARDS:
            district = loaded.districts[name]
            as_read = (district.group, district.price, district.residential_cost, district.industrial_cost)
            amount = lambda text: edition.money.parse(text, "typed")  # noqa: E731
            assert as_read == (group, amount(price), amount(residential), amount(industrial))
            assert district.rents == tuple(amount(r) for r in rents)
            assert loaded.groups[group].skyscraper_cost == amount(sky)
        board = subprocess.run(
            [sys.executable, "-m", "unit", "board", str(data / "ma-ville.edition.yaml")],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "Quai du Port" in board.stdout and "M 2,5M" in board.stdout

        # bad uploads: the loader's line, and nothing changes
        before = sorted((p.name, p.read_bytes()) for p in data.iterdir())
        wrong_field = (
            b"game: city\nname: x\nhazards: {}\ngroups:\n  - {name: r, districts: [{name: A, rents: [1, 2]}]}\n"
        )
        page.goto(base + "/editions")
        for body in (b"game: city\nname: [oops\n", b"\x89PNG\r\n\x1a\n\0", wrong_field, b"#" * (10 * 1024 * 1024)):
            page.set_input_files(
                "#upload-file", files=[{"name": "x.yaml", "mimeType": "application/yaml", "buffer": body}]
            )
            page.click("#upload-send")
            page.wait_for_selector("#upload-error:not([hidden])")
            shown = page.text_content("#upload-error")
            if len(body) > editions.MAX_UPLOAD:
                assert shown == f"x.yaml: trop grand (plus de {editions.MAX_UPLOAD} octets) pour une édition"
            else:
                assert shown == loader_line(body, tmp_path, "x.yaml", "fr")
            page.evaluate("document.getElementById('upload-error').hidden = true")
        assert sorted((p.name, p.read_bytes()) for p in data.iterdir()) == before


def take_screenshots(chromium, state_dir: Path, out: Path) -> list[Path]:
    """The Editions pages on a phone, in both languages: the list, an edition, a card with a wrong rent."""
    shots = []
    with a_box(state_dir) as (base, unit):
        for lang in ("fr", "en"):
            (out / lang).mkdir(parents=True, exist_ok=True)
            with phone(chromium, lang, SMALL_PHONE) as page:
                pair_page(page, base, unit)  # each phone pairs: the box's service
                page.goto(f"{base}/editions?lang={lang}")
                name = f"ville-{lang}"
                page.fill("#new-name", f"Ville {lang.upper()}")
                page.click("#create")
                page.wait_for_url(f"**/editions/{name}")
                for values in CARDS:
                    page.goto(f"{base}/editions/{name}/card")
                    type_card(page, values)
                    page.click("#save-card")
                    page.wait_for_selector("#message")
                page.goto(f"{base}/editions")
                for shipped in edition.SHIPPED:
                    assert page.is_visible(f"[data-edition='{shipped}']")
                shots.append(screenshot(page, out / lang / "editions.png", f"[data-edition='{name}']", full_page=True))
                page.goto(f"{base}/editions/{name}")
                assert page.text_content("#progress").split()[0] == "3"  # the three cards typed
                shots.append(screenshot(page, out / lang / "edition.png", "#progress", "#add-card"))
                page.goto(f"{base}/editions/{name}/card")
                page.fill("#f-name", "Place du Marché")
                page.fill("#f-group", "orange")
                page.fill("#f-price", "2,6M" if lang == "fr" else "2.6M")
                page.type("#f-rent0", "-5")
                page.wait_for_selector("#e-rent0:not([hidden])")
                assert "-5" in page.text_content("#e-rent0")  # the loader's message under the field
                shots.append(screenshot(page, out / lang / "edition-card.png", "#e-rent0", full_page=True))
    return shots


def test_phone_sized_screenshots_of_the_editions_pages(chromium, tmp_path, phone_images):
    shots = take_screenshots(chromium, tmp_path / "state", phone_images)
    assert [path.relative_to(phone_images).as_posix() for path in shots] == [
        f"{lang}/{name}.png" for lang in ("fr", "en") for name in ("editions", "edition", "edition-card")
    ]


def test_a_whole_evening_from_the_cards_typed_to_the_fortunes(chromium, tmp_path):
    """Issue 14 in one go: the cards typed through the form, a game on them, buying and building with taps,
    a rent and the fortunes, each figure the command line's on the same files."""
    state = tmp_path / "state"
    data = state / "calculator"
    with a_box(state) as (base, unit), phone(chromium) as page:
        pair_page(page, base, unit)  # the box's service: a paired phone writes
        page.goto(base + "/editions")
        page.fill("#new-name", "Ma Ville")
        page.click("#create")
        page.wait_for_url("**/editions/ma-ville")
        for values in CARDS:
            page.goto(base + "/editions/ma-ville/card")
            type_card(page, values)
            page.click("#save-card")
            page.wait_for_selector("#message")
        create(page, base, "soiree", "ma-ville.edition.yaml", "Alice, Bruno")
        buy(page, 0, "Rue des Lilas")
        buy(page, 0, "Allée des Pins")
        buy(page, 1, "Quai du Port")
        for value in ("residential=1", "residential=2", "industrial=1"):
            tap(page, "Rue des Lilas", value)
        tap(page, "Quai du Port", "residential=1")

        page.fill("#find", "lil")  # the square by 3 letters, then its view: its rent
        page.click("#found a")
        page.wait_for_selector("#rent-total")
        expected = cli(data, "rent", "soiree.game.yaml", "Rue des Lilas")
        # 3 blocks: the card's value for 3 (50k, 200k, 400k, 600k, ...), as typed; no skyscraper, no tower
        assert int(page.get_attribute("#rent", "data-rent")) == expected["rent"] == 600_000
        assert [li.text_content() for li in page.query_selector_all(".explanation li")] == expected["explanation"]

        page.goto(f"{base}/games/soiree/fortunes")
        expected = cli(data, "fortune", "soiree.game.yaml")
        assert shown_fortunes(page) == {row["name"]: row["fortune"] for row in expected["players"]}
        assert expected["winners"][0] in page.text_content("#winner")
