"""The calculator on the phone in a real browser (issue 14): Playwright for Python driving Debian's Chromium.

A person's evening: start a game on an invented three-district City edition, buy and correct with taps on the
game's views (unit/web/table.py), read a rent (a square found by part of its name) and the fortunes, and compare
every figure with ``monopoly-city rent/fortune GAME --json`` on the same files; the same on the classic board; and bad
input through the forms (a ninth block, a building on a district nobody owns, a negative cash) shows
the field's error and leaves the file as it was. Skipped with one line when there is no Chromium.
``make golden`` rewrites the calculator's phone-sized screenshots under docs/images/phone/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from helpers import (  # noqa: E402
    PHONE,
    SMALL_PHONE,
    THREE_DISTRICTS,
    a_box,
    answered,
    buy,
    cli,
    create,
    pair_page,
    phone,
    screenshot,
    shown_fortunes,
    tap,
    view,
)

pytestmark = pytest.mark.browser


def count(page, square: str, key: str) -> int:
    """A holding's count as its square's view shows it among the corrections."""
    view(page, f"/square/{square}")
    return int(page.text_content(f"#fix-square output[data-key='{key}']") or "-1")


def city_evening(chromium, state_dir: Path, shots: Path | None = None, lang: str = "fr") -> None:
    """The City evening, asserting each figure against the command line; screenshots into ``shots``."""
    data = state_dir / "calculator"  # serve's default beside --state-dir
    data.mkdir(parents=True, exist_ok=True)
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    with a_box(state_dir, lang) as (base, unit), phone(chromium, lang, SMALL_PHONE) as page:
        pair_page(page, base, unit)  # the box's service: a paired phone writes
        if shots is not None:
            page.goto(f"{base}/games")
            page.fill("#new-name", "soiree")
            page.fill("#new-players", "Alice, Bruno, Chloé")
            screenshot(page, shots / "games.png", "#new-name", "#new-edition", "#create")
        create(page, base, "soiree", "trois.edition.yaml", "Alice, Bruno, Chloé")
        buy(page, 0, "Les Halles")
        buy(page, 0, "Quai Nord")
        for value in ("residential=1", "residential=2", "residential=3", "industrial=1", "industrial=2"):
            tap(page, "Les Halles", value)
        assert (count(page, "Les Halles", "residential"), count(page, "Les Halles", "industrial")) == (3, 2)
        tap(page, "Quai Nord", "skyscraper=1")
        assert page.get_attribute("#fix-square button[data-key='skyscraper']", "aria-pressed") == "true"
        game_file = data / "soiree.game.yaml"

        # A building on a district nobody owns: the form names Port Sud (nobody's) instead of Les Halles.
        before = game_file.read_bytes()
        view(page, "/square/Les Halles")
        page.locator("#fix-square form.fix-grid input[name='square']").evaluate(
            "input => { input.value = 'Port Sud'; }"
        )
        page.locator("#fix-square").evaluate("details => { details.open = true; }")
        page.click("#fix-square button[value='residential=4']")
        answered(page)
        assert "Port Sud" in page.text_content("#error") and game_file.read_bytes() == before
        # A ninth block: refused beside the corrections, on the square's view.
        for value in ("residential=4", "residential=5", "residential=6"):
            tap(page, "Les Halles", value)
        before = game_file.read_bytes()
        tap(page, "Les Halles", "industrial=3")
        assert "9" in page.text_content("#fix-square .field-error")
        assert game_file.read_bytes() == before and count(page, "Les Halles", "industrial") == 2
        if shots is not None:
            page.locator("#fix-square").evaluate("details => { details.open = true; }")
            tap(page, "Les Halles", "industrial=3")
            page.locator("#fix-square .field-error").scroll_into_view_if_needed()
            screenshot(page, shots / "game-refused.png", "#fix-square .field-error")
        # A negative cash: refused beside the field, what was typed kept; then the right one.
        page.click("#chip-1")
        answered(page)
        page.locator("#fix-player").evaluate("details => { details.open = true; }")
        page.fill("#fix-cash", "-5M")
        page.press("#fix-cash", "Enter")
        answered(page)
        page.wait_for_selector("#fix-player .field-error")
        assert game_file.read_bytes() == before and page.input_value("#fix-cash") == "-5M"
        page.fill("#fix-cash", "12,5M" if lang == "fr" else "12.5M")
        page.press("#fix-cash", "Enter")
        answered(page)
        page.wait_for_selector("#chip-1 b:has-text('12,5M')" if lang == "fr" else "#chip-1 b:has-text('12.5M')")
        buy(page, 1, "Port Sud")
        view(page, "/square/Port Sud")
        page.locator("#fix-square").evaluate("details => { details.open = true; }")
        page.select_option("#fix-hazard", "dump")
        page.click("#fix-square form:has(#fix-hazard) button")
        answered(page)
        page.wait_for_selector("#fix-hazard option[value='dump'][selected]", state="attached")

        # A rent: the square found by part of its name, its view says who pays what and why.
        page.click("#find")
        page.fill("#find", "hal")
        assert page.text_content("#found").count("Port Sud") == 0 and "Les Halles" in page.text_content("#found")
        page.click("#found a")
        answered(page)
        page.wait_for_selector("#rent-total")
        expected = cli(data, "rent", "soiree.game.yaml", "Les Halles", "--lang", lang)
        assert (
            int(page.get_attribute("#rent", "data-rent")) == expected["rent"] == 900_000 * 2
        )  # 8 blocks, doubled by the skyscraper
        shown = [li.text_content() for li in page.query_selector_all(".explanation li")]
        assert shown == expected["explanation"]
        if shots is not None:
            page.goto(f"{base}/games/soiree/rent?square=Les+Halles")
            screenshot(page, shots / "rent.png", "#rent-total", ".explanation li")

        page.goto(f"{base}/games/soiree/fortunes")
        expected = cli(data, "fortune", "soiree.game.yaml", "--lang", lang)
        assert shown_fortunes(page) == {row["name"]: row["fortune"] for row in expected["players"]}
        assert expected["winners"][0] in page.text_content("#winner")
        if shots is not None:
            screenshot(page, shots / "fortunes.png", "#ranking", "#winner")
            page.click("#big-view")
            page.wait_for_selector(".fortunes.big")
            screenshot(page, shots / "fortunes-big.png", "#ranking", "#winner")
            page.set_viewport_size({"width": PHONE["viewport"]["height"], "height": PHONE["viewport"]["width"]})
            screenshot(page, shots / "fortunes-big-landscape.png", "#ranking")
            page.set_viewport_size(PHONE["viewport"])
        page.goto(f"{base}/games/soiree/check")
        assert page.is_visible("#check-ok") and cli(data, "check", "soiree.game.yaml")["ok"]
        if shots is not None:
            screenshot(page, shots / "check.png", "#check-ok")


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_city_evening_in_the_browser_agrees_with_the_command_line(chromium, tmp_path, phone_images, lang):
    """The evening in both languages, each screen checked and photographed (``make golden`` keeps them)."""
    (phone_images / lang).mkdir(parents=True, exist_ok=True)
    city_evening(chromium, tmp_path / "state", phone_images / lang, lang)
    names = ["games", "game-refused", "rent", "fortunes", "fortunes-big", "fortunes-big-landscape", "check"]
    assert all((phone_images / lang / f"{name}.png").is_file() for name in names)


def test_a_classic_game_in_the_browser_agrees_with_the_command_line(chromium, tmp_path):
    state_dir = tmp_path / "state"
    data = state_dir / "calculator"
    with a_box(state_dir) as (base, unit), phone(chromium) as page:
        pair_page(page, base, unit)
        create(page, base, "classique", "classic-fr", "Bob, Léa")
        buy(page, 0, "Rue de la Paix")
        buy(page, 0, "Avenue des Champs-Élysées")
        buy(page, 1, "Gare de Lyon")
        tap(page, "Rue de la Paix", "houses=1")
        before = (data / "classique.game.yaml").read_bytes()
        tap(page, "Rue de la Paix", "houses=2")  # uneven: the rule's sentence, nothing written
        assert "Champs" in page.text_content("#error") and (data / "classique.game.yaml").read_bytes() == before
        assert page.is_visible("#error")  # beside the corrections it came from, opened
        tap(page, "Avenue des Champs-Élysées", "houses=1")
        page.fill("#find", "paix")
        page.click("#found a")
        answered(page)
        page.wait_for_selector("#rent-total")
        expected = cli(data, "rent", "classique.game.yaml", "paix")
        assert int(page.get_attribute("#rent", "data-rent")) == expected["rent"] == 200
        for variant in ("timed", "quick"):
            page.goto(f"{base}/games/classique/fortunes?variant={variant}")
            expected = cli(data, "fortune", "classique.game.yaml", "--variant", variant)
            assert shown_fortunes(page) == {row["name"]: row["fortune"] for row in expected["players"]}
