"""The calculator on the phone in a real browser (issue 14): Playwright for Python driving Debian's Chromium.

A person's evening: start a game on an invented three-district City edition, buy and build with taps,
read a rent (searching part of a name) and the fortunes, and compare every figure with
``monopoly-city rent/fortune GAME --json`` on the same files; the same on the classic board; and bad
input through the forms (a ninth block, a building on a district nobody owns, a negative cash) shows
the field's error and leaves the file as it was. Skipped with one line when there is no Chromium.
``python tests/test_web_game_browser.py`` rewrites the calculator's phone-sized screenshots under
docs/images/phone/.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM}: .ci/run installs it: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
pytest.importorskip("starlette", reason="the web extra is not installed")

from test_web_browser import DOC_IMAGES, PHONE, browser, phone  # noqa: E402
from test_web_game import THREE_DISTRICTS  # noqa: E402
from test_web_support import serving  # noqa: E402


@pytest.fixture(scope="module")
def chromium():
    with browser() as launched:
        yield launched


def cli(data: Path, *args: str) -> dict:
    """``monopoly-city ARGS --json`` in the data folder, as at the table."""
    run = subprocess.run([sys.executable, "-m", "unit", *args, "--json"], capture_output=True, text=True, cwd=data)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def create(page, base: str, name: str, edition: str, players: str) -> None:
    page.goto(f"{base}/games")
    page.fill("#new-name", name)
    page.select_option("#new-edition", edition)
    page.fill("#new-players", players)
    page.click("#create")
    page.wait_for_url(f"**/games/{name}")


def buy(page, player: int, square: str) -> None:
    page.select_option(f"#buy-{player}", square)
    page.click(f"#buy-{player}-go")
    page.wait_for_selector(f"#p{player} article[data-square='{square}']")


def tap(page, square: str, value: str) -> None:
    """One tap on a district's card (``residential=3``, ``skyscraper=1``), among its corrections made without
    paying (the bank's taps are test_web_bank_browser.py's); the page comes back."""
    page.locator(f"article[data-square='{square}'] details.fix").evaluate("details => { details.open = true; }")
    with page.expect_navigation():  # the answer is a new page (a redirect, or the refusal)
        page.click(f"article[data-square='{square}'] button[value='{value}']")


def count(page, square: str, key: str) -> int:
    return int(page.text_content(f"article[data-square='{square}'] output[data-key='{key}']") or "-1")


def shown_fortunes(page) -> dict[str, int]:
    rows = page.query_selector_all("#ranking tbody tr")
    return {row.get_attribute("data-player"): int(row.get_attribute("data-fortune")) for row in rows}


def city_evening(chromium, state_dir: Path, shots: Path | None = None, lang: str = "fr") -> None:
    """The City evening, asserting each figure against the command line; screenshots into ``shots``."""
    data = state_dir / "calculator"  # serve's default beside --state-dir
    data.mkdir(parents=True, exist_ok=True)
    (data / "trois.edition.yaml").write_text(THREE_DISTRICTS, encoding="utf-8")
    with serving(state_dir, lang) as base, phone(chromium, lang) as page:
        if shots is not None:
            page.goto(f"{base}/games")
            page.fill("#new-name", "soiree")
            page.fill("#new-players", "Alice, Bruno, Chloé")
            page.screenshot(path=shots / "games.png")
        create(page, base, "soiree", "trois.edition.yaml", "Alice, Bruno, Chloé")
        buy(page, 0, "Les Halles")
        buy(page, 0, "Quai Nord")
        for value in ("residential=1", "residential=2", "residential=3", "industrial=1", "industrial=2"):
            tap(page, "Les Halles", value)
        assert (count(page, "Les Halles", "residential"), count(page, "Les Halles", "industrial")) == (3, 2)
        tap(page, "Quai Nord", "skyscraper=1")
        assert page.get_attribute("article[data-square='Quai Nord'] button[data-key='skyscraper']", "aria-pressed")
        game_file = data / "soiree.game.yaml"

        # A building on a district nobody owns: the form names Port Sud (nobody's) instead of Les Halles.
        before = game_file.read_bytes()
        page.locator("article[data-square='Les Halles'] form.taps input[name='square']").evaluate(
            "input => { input.value = 'Port Sud'; }"
        )
        tap(page, "Les Halles", "residential=4")
        assert "Port Sud" in page.text_content("#error") and game_file.read_bytes() == before
        # A ninth block.
        page.goto(f"{base}/games/soiree")
        for value in ("residential=4", "residential=5", "residential=6"):
            tap(page, "Les Halles", value)
        before = game_file.read_bytes()
        tap(page, "Les Halles", "industrial=3")
        assert "9" in page.text_content("article[data-square='Les Halles'] .field-error")
        assert game_file.read_bytes() == before and count(page, "Les Halles", "industrial") == 2
        if shots is not None:
            page.locator("article[data-square='Les Halles']").scroll_into_view_if_needed()
            page.screenshot(path=shots / "game-refused.png")
        # A negative cash.
        page.click("#fix-p1 summary")
        page.fill("#cash-1", "-5M")
        page.press("#cash-1", "Enter")
        page.wait_for_selector("#p1 .field-error")
        assert game_file.read_bytes() == before
        if not page.is_visible("#cash-1"):  # the refusal's page opens the corrections where it is
            page.click("#fix-p1 summary")
        page.fill("#cash-1", "12,5M")
        page.press("#cash-1", "Enter")
        page.wait_for_selector("#cash-1-shown:has-text('12,5M')" if lang == "fr" else "#cash-1-shown:has-text('12.5M')")
        buy(page, 1, "Port Sud")
        page.select_option("article[data-square='Port Sud'] select[id$='-hazard']", "dump")  # applies at once
        page.wait_for_selector("article[data-square='Port Sud'] option[value='dump'][selected]", state="attached")
        if shots is not None:
            page.goto(f"{base}/games/soiree")
            page.screenshot(path=shots / "game.png")

        # Rent in two taps: the tab, then the square found by part of its name.
        page.click("#tab-rent")
        page.fill("#q", "hal")
        assert page.is_hidden("#squares li[data-key^='port sud']") and page.is_visible(
            "#squares li[data-key^='les halles']"
        )
        page.click("#squares li:not([hidden]) a")
        page.wait_for_selector("#rent-total")
        expected = cli(data, "rent", "soiree.game.yaml", "Les Halles", "--lang", lang)
        assert (
            int(page.get_attribute("#rent", "data-rent")) == expected["rent"] == 900_000 * 2
        )  # 8 blocks, doubled by the skyscraper
        shown = [li.text_content() for li in page.query_selector_all(".explanation li")]
        assert shown == expected["explanation"]
        if shots is not None:
            page.screenshot(path=shots / "rent.png")

        page.goto(f"{base}/games/soiree/fortunes")
        expected = cli(data, "fortune", "soiree.game.yaml", "--lang", lang)
        assert shown_fortunes(page) == {row["name"]: row["fortune"] for row in expected["players"]}
        assert expected["winners"][0] in page.text_content("#winner")
        if shots is not None:
            page.screenshot(path=shots / "fortunes.png")
            page.click("#big-view")
            page.wait_for_selector(".fortunes.big")
            page.screenshot(path=shots / "fortunes-big.png")
            page.set_viewport_size({"width": PHONE["viewport"]["height"], "height": PHONE["viewport"]["width"]})
            page.screenshot(path=shots / "fortunes-big-landscape.png")
            page.set_viewport_size(PHONE["viewport"])
        page.goto(f"{base}/games/soiree/check")
        assert page.is_visible("#check-ok") and cli(data, "check", "soiree.game.yaml")["ok"]
        if shots is not None:
            page.screenshot(path=shots / "check.png")


def test_a_city_evening_in_the_browser_agrees_with_the_command_line(chromium, tmp_path):
    city_evening(chromium, tmp_path / "state")


def test_a_classic_game_in_the_browser_agrees_with_the_command_line(chromium, tmp_path):
    state_dir = tmp_path / "state"
    data = state_dir / "calculator"
    with serving(state_dir) as base, phone(chromium) as page:
        create(page, base, "classique", "classic-fr", "Bob, Léa")
        buy(page, 0, "Rue de la Paix")
        buy(page, 0, "Avenue des Champs-Élysées")
        buy(page, 1, "Gare de Lyon")
        tap(page, "Rue de la Paix", "houses=1")
        before = (data / "classique.game.yaml").read_bytes()
        tap(page, "Rue de la Paix", "houses=2")  # uneven: the rule's sentence, nothing written
        assert "Champs" in page.text_content("#error") and (data / "classique.game.yaml").read_bytes() == before
        tap(page, "Avenue des Champs-Élysées", "houses=1")
        page.click("#tab-rent")
        page.fill("#q", "paix")
        page.click("#squares li:not([hidden]) a")
        page.wait_for_selector("#rent-total")
        expected = cli(data, "rent", "classique.game.yaml", "paix")
        assert int(page.get_attribute("#rent", "data-rent")) == expected["rent"] == 200
        for variant in ("timed", "quick"):
            page.goto(f"{base}/games/classique/fortunes?variant={variant}")
            expected = cli(data, "fortune", "classique.game.yaml", "--variant", variant)
            assert shown_fortunes(page) == {row["name"]: row["fortune"] for row in expected["players"]}


if __name__ == "__main__":
    # python tests/test_web_game_browser.py: rewrite the calculator's screenshots for the docs.
    import tempfile

    with browser() as launched:
        for lang in ("fr", "en"):
            with tempfile.TemporaryDirectory() as tmp:
                out = DOC_IMAGES / lang
                out.mkdir(parents=True, exist_ok=True)
                city_evening(launched, Path(tmp) / "state", out, lang)
                for name in sorted(out.glob("*.png")):
                    print(re.sub(r"^.*/docs/", "docs/", str(name)))
    sys.exit(0)
