"""The first Monopoly City evening without an hour of typing (issue 27 item 4), in a real browser at 360 x 640.

A City game started from an empty data folder: « Nouvelle partie » with a new, empty edition; each card's values
asked the first time the bank needs them, on one screen, with the page's k and M keys; a buy, a rent, a block
built and the GO salary each ask once, then never again; the fortunes ask for the rents still missing and then
equal ``monopoly-city fortune`` on the files the pages wrote. Every new screen: 0 axe-core violations, every
control 44 CSS px at least. ``make golden`` rewrites the screenshots of these screens under docs/images/phone/.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from helpers import (  # noqa: E402
    SMALL_PHONE,
    a_box,
    assert_accessible,
    cli,
    pair_page,
    phone,
    screenshot,
    shown_fortunes,
)

from unit.calculator import edition  # noqa: E402
from unit.calculator import position as positions  # noqa: E402

pytestmark = pytest.mark.browser

RENTS = ["50k", "100k", "150k", "200k", "300k", "400k", "500k", "700k", "900k"]


class Counted:
    """The page, counting what a person does on the card screens: taps (a click) and values typed (a fill)."""

    def __init__(self, page: Any):
        self.page = page
        self.taps = 0
        self.values = 0

    def tap(self, selector: str) -> None:
        self.taps += 1
        self.page.click(selector)

    def type(self, selector: str, text: str) -> None:
        self.values += 1
        self.page.fill(selector, text)

    def key(self, selector: str, text: str, letter: str) -> None:
        """An amount on the number keyboard, then the page's k or M key (a value and a tap)."""
        self.type(selector, text)
        self.tap(f"#keys [data-key='{letter}']")


def new_city_game(page: Any, base: str, title: str, players: str) -> None:
    page.goto(base + "/games")
    assert page.is_checked("#new-edition input[value='new:city']")  # chosen: the box is Monopoly City's
    page.fill("#new-name", title)
    page.fill("#new-players", players)
    page.click("#create")
    page.wait_for_selector("#chip-0")


def one_screen(page: Any, what: str) -> None:
    """The form and its Save on the phone's screen, nothing to scroll (the k and M keys show while typing)."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    box = page.locator("#card-save").bounding_box()
    assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"], f"{what}: {box}"


def saved_then_done(you: Counted) -> None:
    """Save the card, then the bank's action in one tap: back on the game, the entry recorded."""
    you.tap("#card-save")
    you.page.wait_for_selector("#card-do")
    you.tap("#card-do")
    you.page.wait_for_selector("#done")


def rents(you: Counted) -> None:
    for j, rent in enumerate(RENTS):
        you.type(f"#f-rent{j}", rent)


def test_a_city_evening_from_an_empty_folder_asks_each_card_once(chromium, tmp_path):
    state = tmp_path / "state"
    data = state / "calculator"
    with a_box(state) as (base, unit), phone(chromium, "fr", SMALL_PHONE) as page:
        pair_page(page, base, unit)  # the box's service: a paired phone writes
        new_city_game(page, base, "Vendredi soir", "Alice, Bruno")
        assert sorted(p.name for p in data.iterdir()) == ["ma-ville.edition.yaml", "vendredi-soir.game.yaml"]
        you = Counted(page)

        # Buy: a card not in the edition yet (the card in the banker's hand): its name, a new group, its price.
        page.goto(f"{base}/games/vendredi-soir/player/0/buy")  # the buy view (the player, Buy…: counted elsewhere)
        you.tap("#new-card-0")
        page.wait_for_selector("#f-name")
        assert_accessible(page, "a new card, the first of the edition")
        one_screen(page, "a new card")
        you.type("#f-name", "Docks")
        you.type("#f-new_group", "vert")
        you.key("#f-price", "1,2", "M")
        assert page.input_value("#f-price") == "1,2M"
        saved_then_done(you)
        first_buy = (you.taps, you.values)
        assert first_buy == (4, 3)  # new card, M key, save, buy; name, group, price
        # the second card of the group: its group is one tap
        page.goto(f"{base}/games/vendredi-soir/player/1/buy")
        you.tap("#new-card-1")
        page.wait_for_selector("#f-name")
        you.type("#f-name", "Halles")
        you.tap("#groups label:has-text('vert')")
        you.key("#f-price", "1,4", "M")
        assert_accessible(page, "a new card, a group to choose")
        one_screen(page, "a new card, a group to choose")
        saved_then_done(you)
        page.goto(f"{base}/games/vendredi-soir/player/0/buy")
        you.tap("#new-card-0")
        you.type("#f-name", "Port Sud")
        you.tap("#group-new")
        you.type("#f-new_group", "gris")
        you.key("#f-price", "2", "M")
        saved_then_done(you)
        town = edition.load(str(data / "ma-ville.edition.yaml"))
        assert [(d.name, d.group, d.price) for d in town.districts.values()] == [
            ("Docks", "vert", 1_200_000),
            ("Halles", "vert", 1_400_000),
            ("Port Sud", "gris", 2_000_000),
        ]

        # Rent: Bruno lands on Docks. The rent page asks its nine rents first, then its payers.
        taps = you.taps
        page.goto(f"{base}/games/vendredi-soir/rent")
        page.fill("#q", "doc")
        you.tap("#squares li:not([hidden]) a")
        page.wait_for_selector("#f-rent0")
        assert_accessible(page, "the nine rents")
        one_screen(page, "the nine rents")
        rents(you)
        you.tap("#card-save")
        page.wait_for_selector("#pay-1")
        assert int(page.get_attribute("#rent", "data-rent")) == 50_000  # bare land
        you.tap("#pay-1")
        page.wait_for_selector("#done")
        assert you.taps - taps == 3  # the square, save, who pays
        # ...and never again: the next rent of Docks is its payers at once
        page.goto(f"{base}/games/vendredi-soir/rent?square=Docks")
        assert page.is_visible("#pay-1") and "card" not in page.url

        # A block: its cost asked once (the card's), then each further block in one tap.
        page.goto(f"{base}/games/vendredi-soir/square/Docks")
        you.tap("#op-residential")
        page.wait_for_selector("#f-residential_cost")
        one_screen(page, "a block cost")
        you.key("#f-residential_cost", "500", "k")
        saved_then_done(you)
        before = you.taps
        page.goto(f"{base}/games/vendredi-soir/square/Docks")
        you.tap("#op-residential")
        page.wait_for_selector("#done")
        assert you.taps - before == 1
        # Halles, the group's other card: its block cost offered from Docks', a tap to keep it
        page.goto(f"{base}/games/vendredi-soir/square/Halles")
        you.tap("#op-residential")
        page.wait_for_selector("#f-residential_cost")
        assert page.input_value("#f-residential_cost") == "500k"
        assert page.is_visible("#h-residential_cost")  # « as the other cards of group vert: check it on the card »
        saved_then_done(you)

        # The GO salary: the board's amount, asked once.
        page.goto(f"{base}/games/vendredi-soir/player/1")
        you.tap("#op-salary")
        page.wait_for_selector("#f-go_salary")
        assert_accessible(page, "the GO salary")
        one_screen(page, "the GO salary")
        you.key("#f-go_salary", "2", "M")
        you.tap("#card-save")
        page.wait_for_selector("#card-do")
        assert_accessible(page, "the bank's action, ready")
        you.tap("#card-do")
        page.wait_for_selector("#done")
        page.goto(f"{base}/games/vendredi-soir/player/1")
        you.tap("#op-salary")
        page.wait_for_selector("#done")  # never again

        # The end: the fortunes ask for the rents still missing (Halles, Port Sud), then count.
        asked = []
        page.goto(f"{base}/games/vendredi-soir/fortunes")
        while page.query_selector("#f-rent0") is not None:
            asked.append(page.text_content("#card-title").split()[0])
            rents(you)
            with page.expect_navigation():
                you.tap("#card-save")
            page.wait_for_selector("#f-rent0, #ranking")
        assert asked == ["Port", "Halles"]  # Alice's card, then Bruno's
        expected = cli(data, "fortune", "vendredi-soir.game.yaml")
        assert shown_fortunes(page) == {row["name"]: row["fortune"] for row in expected["players"]}
        game = positions.load(str(data / "vendredi-soir.game.yaml"))
        alice = 37_700_000 - 1_200_000 - 2_000_000 + 50_000 - 2 * 500_000  # 2 cards, a rent in, 2 blocks
        bruno = 37_700_000 - 1_400_000 - 50_000 - 500_000 + 2 * 2_000_000  # a card, a rent out, a block, 2 salaries
        assert [p.cash for p in game.players] == [alice, bruno]
        board = subprocess.run(
            [sys.executable, "-m", "unit", "board", str(data / "ma-ville.edition.yaml")],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "Port Sud" in board.stdout
        # Everything this evening typed: 3 cards bought, 3 x 9 rents, 1 block cost, the GO salary.
        assert (you.taps, you.values) == TYPED_IN_THE_EVENING


#: What the scripted evening above took on the card screens: (taps, values typed), for docs/phone*.md.
TYPED_IN_THE_EVENING = (32, 37)


def take_screenshots(chromium, state_dir: Path, out: Path) -> list[Path]:
    """The new screens in both languages, each from an empty data folder: « Nouvelle partie », a new card (with
    the k and M keys), the bank's action ready, the rents with a wrong one."""
    shots = []
    for lang in ("fr", "en"):
        (out / lang).mkdir(parents=True, exist_ok=True)
        with a_box(state_dir / lang, lang) as (base, unit), phone(chromium, lang, SMALL_PHONE) as page:  # empty each
            pair_page(page, base, unit)  # the box's service: a paired phone writes
            page.goto(f"{base}/games?lang={lang}")
            title = {"fr": "Vendredi soir", "en": "Friday night"}[lang]
            page.fill("#new-name", title)
            page.fill("#new-players", "Alice, Bruno")
            assert_accessible(page, f"games ({lang})")
            shots.append(screenshot(page, out / lang / "games-new.png", "#new-edition", "#create", full_page=True))
            page.click("#create")
            page.wait_for_selector("#chip-0")
            slug = page.url.rsplit("/", 1)[-1]
            page.goto(f"{base}/games/{slug}/player/1/buy")
            page.click("#new-card-1")
            page.fill("#f-name", "Docks")
            page.fill("#f-new_group", {"fr": "vert", "en": "green"}[lang])
            page.fill("#f-price", "1,2" if lang == "fr" else "1.2")
            page.focus("#f-price")
            assert page.is_visible("#keys")  # the k and M keys while an amount is typed
            shots.append(screenshot(page, out / lang / "card-new.png", "#f-name", "#card-save", "#keys"))
            page.click("#keys [data-key='M']")
            page.click("#card-save")
            page.wait_for_selector("#card-do")
            assert_accessible(page, f"ready ({lang})")
            shots.append(screenshot(page, out / lang / "card-ready.png", "#card-do", "#message"))
            page.click("#card-do")
            page.wait_for_selector("#done")
            page.goto(f"{base}/games/{slug}/rent?square=Docks")
            page.wait_for_selector("#f-rent0")
            for j, rent in enumerate(RENTS[:4]):
                page.fill(f"#f-rent{j}", rent)
            page.type("#f-rent4", "-5")  # a wrong value: the loader's line under it, as it is typed
            page.wait_for_selector("#e-rent4:not([hidden])")
            assert_accessible(page, f"the rents ({lang})")
            shots.append(screenshot(page, out / lang / "card-rents.png", "#f-rent8", "#e-rent4", "#card-save"))
    return shots


def test_phone_sized_screenshots_of_the_card_screens(chromium, tmp_path, phone_images):
    shots = take_screenshots(chromium, tmp_path / "state", phone_images)
    assert [path.relative_to(phone_images).as_posix() for path in shots] == [
        f"{lang}/{name}.png" for lang in ("fr", "en") for name in ("games-new", "card-new", "card-ready", "card-rents")
    ]
